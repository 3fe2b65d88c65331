//! Writing files so that nothing is lost: results, models and corpus inputs.
//!
//! [`write_atomically`] writes a temporary file beside the target and renames it into place.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically: into a temporary file beside it, then renamed over it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // Beside the target (a rename within one file system is atomic); removed if anything fails.
    let mut builder = tempfile::Builder::new();
    builder.prefix(".hellfuzz-tmp-");
    // A file like any other (tempfile's default, 0600, is for secrets), the umask applied.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Serializes a path as text with any bytes that are not UTF-8 replaced (U+FFFD), for
/// `#[serde(serialize_with)]`: a report must not fail because of one file's name (serde's own
/// `Path` serialization refuses such names).
pub fn path_lossy<S: serde::Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

/// [`path_lossy`] for a list of paths.
pub fn paths_lossy<S: serde::Serializer>(paths: &[std::path::PathBuf], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(paths.iter().map(|p| p.to_string_lossy()))
}
