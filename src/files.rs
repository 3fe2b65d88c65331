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
