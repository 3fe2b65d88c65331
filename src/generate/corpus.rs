//! Writing generated inputs into a corpus folder the way libFuzzer does: one file per input, named
//! by the SHA-1 of its content, so duplicates (also of files already there) are skipped.
//!
//! Every write is atomic (a temporary file in the same folder, then a rename), so an interrupted
//! run never leaves a half-written input for the fuzzer to load.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What happened to one input handed to [`Corpus::add`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// Written to this path.
    New(PathBuf),
    /// An input with the same content is already in the folder.
    Duplicate,
}

/// A corpus folder being filled.
pub struct Corpus {
    dir: PathBuf,
    seen: HashSet<String>,
}

impl Corpus {
    /// Opens (creating if needed) a corpus folder; names of files already there count as seen.
    pub fn open(dir: &Path) -> std::io::Result<Corpus> {
        std::fs::create_dir_all(dir)?;
        let seen = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        Ok(Corpus {
            dir: dir.to_path_buf(),
            seen,
        })
    }

    /// Adds one input, unless an input with the same content is already there.
    pub fn add(&mut self, input: &[u8]) -> std::io::Result<Written> {
        let name = content_name(input);
        if !self.seen.insert(name.clone()) {
            return Ok(Written::Duplicate);
        }
        let path = self.dir.join(&name);
        write_atomically(&path, input)?;
        Ok(Written::New(path))
    }
}

/// The libFuzzer file name of an input: the hex SHA-1 of its bytes.
pub fn content_name(input: &[u8]) -> String {
    sha1_smol::Sha1::from(input).digest().to_string()
}

/// Writes `bytes` to `path` atomically: into a temporary file beside it, then renamed over it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
