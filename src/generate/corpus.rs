//! Writing generated inputs into a corpus folder the way libFuzzer does: one file per input, named
//! by the SHA-1 of its content, so duplicates (also of files already there) are skipped.
//!
//! Every write is atomic ([`crate::files::write_atomically`]), so an interrupted run never
//! leaves a half-written input for the fuzzer to load.

use std::collections::HashSet;
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
        if dir.exists() && !dir.is_dir() {
            // create_dir_all would say only "File exists".
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "it is a file, not a folder: give a folder (it is created if missing)",
            ));
        }
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
        crate::files::write_atomically(&path, input)?;
        Ok(Written::New(path))
    }
}

/// The libFuzzer file name of an input: the hex SHA-1 of its bytes.
pub fn content_name(input: &[u8]) -> String {
    sha1_smol::Sha1::from(input).digest().to_string()
}
