//! Writing files so that nothing is lost: results, models and corpus inputs.
//!
//! [`write_atomically`] and [`copy_atomically`] write a temporary file beside the target and
//! rename it into place; [`sha1_hex`] names files by content; [`rfc3339`] gives the UTC
//! timestamps that records carry, without a date-time dependency.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically: into a temporary file beside it, then renamed over it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = temp_beside(path)?;
    tmp.write_all(bytes)?;
    persist(tmp, path)
}

/// Copies the file `from` to `to` atomically (a crash file into a group folder): `to` is either
/// absent, as before, or a complete copy.
pub fn copy_atomically(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut tmp = temp_beside(to)?;
    std::io::copy(&mut std::fs::File::open(from)?, tmp.as_file_mut())?;
    persist(tmp, to)
}

/// A temporary file beside `path` (a rename within one file system is atomic), removed when
/// dropped: if anything fails, nothing is left. Named by tempfile, so that two threads writing
/// the same path never share a temporary file.
fn temp_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".hellfuzz-tmp-");
    // A file like any other (tempfile's default, 0600, is for secrets), the umask applied.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    builder.tempfile_in(dir)
}

/// Flushes `tmp` to disk and renames it to `path`.
fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> std::io::Result<()> {
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The SHA-1 of `bytes` in hexadecimal: the names of crash, minimized and corpus files.
pub fn sha1_hex(bytes: &[u8]) -> String {
    sha1_smol::Sha1::from(bytes).digest().to_string()
}

/// The SHA-1 of `bytes`: keys of caches and seen-sets.
pub fn sha1(bytes: &[u8]) -> [u8; 20] {
    sha1_smol::Sha1::from(bytes).digest().bytes()
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

/// `time` as RFC 3339 in UTC to the second (`2026-11-21T17:34:48Z`); times before 1970 give the epoch.
pub fn rfc3339(time: std::time::SystemTime) -> String {
    let secs = time
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(1_795_282_488)),
            "2026-11-21T17:34:48Z"
        );
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(4_102_444_799)),
            "2099-12-31T23:59:59Z"
        );
    }
}
