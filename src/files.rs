//! Writing files so that nothing is lost: results, models and corpus inputs.
//!
//! [`write_atomically`] and [`copy_atomically`] write a temporary file beside the target and
//! rename it into place; [`sha1_hex`] names files by content; [`rfc3339`] gives the UTC
//! timestamps that records carry, without a date-time dependency; [`read_whole`] reads an input
//! file once, memory-mapped when it is large.

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

/// Files larger than this are memory-mapped by [`read_whole`]; smaller ones are read (a map costs
/// system calls and page faults that a small read does not).
pub const MAP_ABOVE: u64 = 1 << 20;

/// A whole file's bytes, from [`read_whole`]: mapped, or read into memory. Dereferences to `[u8]`.
pub struct Contents(Bytes);

enum Bytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for Contents {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Bytes::Mapped(map) => map,
            Bytes::Read(bytes) => bytes,
        }
    }
}

impl From<Vec<u8>> for Contents {
    fn from(bytes: Vec<u8>) -> Contents {
        Contents(Bytes::Read(bytes))
    }
}

impl Contents {
    /// Whether the bytes are a memory map (not a copy in memory).
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Bytes::Mapped(_))
    }
}

/// A whole file, for reading it once (a sample to parse, a crash file to hash or reduce): a
/// regular file larger than [`MAP_ABOVE`] is memory-mapped, so its bytes are not copied into
/// memory; anything else (a small file, a pipe or device, a file system that cannot map) is
/// read. The error is the `io::Error` of opening or reading; callers add the path.
pub fn read_whole(path: &Path) -> std::io::Result<Contents> {
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() > MAP_ABOVE {
        if let Ok(map) = map_file(&file) {
            return Ok(Contents(Bytes::Mapped(map)));
        }
    }
    let mut bytes = Vec::with_capacity(if meta.is_file() { meta.len() as usize } else { 0 });
    std::io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(Contents(Bytes::Read(bytes)))
}

/// A read-only map of `file`.
#[allow(unsafe_code)]
fn map_file(file: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only. Samples and crash files are inputs that nothing writes
    // while hellfuzz reads them; if another process truncated one meanwhile, reading the lost
    // pages would fault (SIGBUS), the documented risk of a file map, which a copy would not have.
    unsafe { memmap2::Mmap::map(file) }
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

    #[test]
    fn whole_files_are_mapped_when_large_and_read_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small");
        std::fs::write(&small, b"abc").unwrap();
        let read = read_whole(&small).unwrap();
        assert!(!read.is_mapped());
        assert_eq!(&*read, b"abc");
        let large = dir.path().join("large");
        let bytes: Vec<u8> = (0..MAP_ABOVE as usize + 4097).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&large, &bytes).unwrap();
        let mapped = read_whole(&large).unwrap();
        assert!(mapped.is_mapped());
        assert_eq!(&*mapped, &bytes[..]);
        // Not a regular file: read, not mapped (a FIFO cannot be mapped).
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            assert!(std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success());
            let writer = {
                let fifo = fifo.clone();
                std::thread::spawn(move || std::fs::write(fifo, b"through a pipe").unwrap())
            };
            let piped = read_whole(&fifo).unwrap();
            writer.join().unwrap();
            assert!(!piped.is_mapped());
            assert_eq!(&*piped, b"through a pipe");
        }
        let missing = read_whole(&dir.path().join("missing")).err().unwrap();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    }
}
