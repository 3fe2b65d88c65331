//! Finding and mining sample inputs: files, folders (recursively) and glob patterns.
//!
//! [`collect`] resolves the arguments to a sorted list of files; [`mine`] parses each one, counts
//! its choices into a [`Model`] and reports (rather than fails on) the samples that do not parse.

use std::path::{Path, PathBuf};

use super::Model;
use crate::grammar::Grammar;
use crate::parse::{ParseError, Parser};

/// Samples larger than this many bytes are skipped (with a reason): parsing takes about 100 bytes
/// of memory per input byte (see `scripts/bench-parse`), so one 20 MB file among the samples
/// would need 2 GB. Samples are meant to be typical inputs, not bulk data.
pub const MAX_SAMPLE_SIZE: u64 = 8 << 20;

/// The reason a sample of `len` bytes is skipped, if it is larger than [`MAX_SAMPLE_SIZE`].
fn too_large(len: u64) -> Option<String> {
    (len > MAX_SAMPLE_SIZE).then(|| {
        format!(
            "{len} bytes, more than the limit of {MAX_SAMPLE_SIZE} for a sample (parsing takes about 100 \
             bytes of memory per input byte): leave it out or split it into smaller samples"
        )
    })
}

/// A sample that could not be mined, and why.
#[derive(Debug)]
#[non_exhaustive]
pub struct Skipped {
    /// The sample's name (its path, or `<builtin:NAME>/file`).
    pub name: String,
    /// What was wrong: a parse error or an I/O error, as a message.
    pub reason: String,
    /// The parse error, if it was one.
    pub parse_error: Option<ParseError>,
}

/// Why [`collect`] found no samples where it was told to look.
#[derive(Debug)]
#[non_exhaustive]
pub enum CollectError {
    /// A folder (given, or matched by a pattern) could not be read.
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The argument names a pipe, socket or device: reading it could block forever.
    NotAFile {
        /// The argument.
        arg: String,
    },
    /// The argument is neither a file, a folder nor a valid glob pattern.
    Pattern {
        /// The argument.
        arg: String,
        /// Why the pattern is invalid.
        source: glob::PatternError,
    },
    /// A path the pattern matched could not be read.
    Glob {
        /// The pattern.
        arg: String,
        /// The unreadable path and why.
        source: glob::GlobError,
    },
    /// Nothing exists at the argument, and no file or folder matches it as a pattern.
    NoMatch {
        /// The argument.
        arg: String,
    },
}

impl std::fmt::Display for CollectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CollectError::Folder { path, source } => write!(f, "cannot read folder {}: {source}", path.display()),
            CollectError::NotAFile { arg } => write!(
                f,
                "`{arg}` is not a regular file or a folder (a pipe, socket or device): give sample files"
            ),
            CollectError::Pattern { arg, source } => {
                write!(f, "`{arg}` is no file, folder or valid glob pattern: {source}")
            }
            CollectError::Glob { arg, source } => write!(f, "{arg}: {source}"),
            CollectError::NoMatch { arg } => {
                write!(
                    f,
                    "no samples found at `{arg}` (no such file or folder, and no glob match)"
                )
            }
        }
    }
}

impl std::error::Error for CollectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CollectError::Folder { source, .. } => Some(source),
            CollectError::Pattern { source, .. } => Some(source),
            CollectError::Glob { source, .. } => Some(source),
            CollectError::NotAFile { .. } | CollectError::NoMatch { .. } => None,
        }
    }
}

/// The files named by `args`: files as they are, folders walked recursively, anything else as a
/// glob pattern. Sorted and without duplicates (also through links). An argument that names
/// nothing is an error.
pub fn collect(args: &[String]) -> Result<Vec<PathBuf>, CollectError> {
    let mut files = Vec::new();
    for arg in args {
        let path = Path::new(arg);
        if path.is_file() {
            files.push(path.to_path_buf());
        } else if path.is_dir() {
            walk(path, &mut files).map_err(|source| CollectError::Folder {
                path: path.to_path_buf(),
                source,
            })?;
        } else if path.exists() {
            // A FIFO, socket or device: reading it could block forever.
            return Err(CollectError::NotAFile { arg: arg.clone() });
        } else {
            let matches = glob::glob(arg).map_err(|source| CollectError::Pattern {
                arg: arg.clone(),
                source,
            })?;
            let before = files.len();
            for m in matches {
                let m = m.map_err(|source| CollectError::Glob {
                    arg: arg.clone(),
                    source,
                })?;
                if m.is_file() {
                    files.push(m);
                } else if m.is_dir() {
                    walk(&m, &mut files).map_err(|source| CollectError::Folder {
                        path: m.clone(),
                        source,
                    })?;
                }
            }
            if files.len() == before {
                return Err(CollectError::NoMatch { arg: arg.clone() });
            }
        }
    }
    files.sort();
    // One file reached by several paths (links) is one sample.
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.canonicalize().unwrap_or_else(|_| f.clone())));
    Ok(files)
}

/// Adds the files under `dir` to `out`, each folder entered once (a symbolic link back to a
/// parent would otherwise be followed until the path is too long, adding the same files over
/// and over); folders are kept on a list, not on the call stack.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entered = std::collections::HashSet::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        if !entered.insert(folder.canonicalize().unwrap_or_else(|_| folder.clone())) {
            continue;
        }
        for entry in std::fs::read_dir(&folder)? {
            let path = entry?.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.is_file() {
                out.push(path);
            }
        }
    }
    Ok(())
}

/// Parses `samples` (name, bytes): the trees of those that parse, and the others with their
/// errors.
pub fn parse_all<'s>(
    grammar: &Grammar,
    samples: impl IntoIterator<Item = (String, std::borrow::Cow<'s, [u8]>)>,
) -> (Vec<crate::tree::Tree>, Vec<Skipped>) {
    let parser = Parser::new(grammar);
    let mut trees = Vec::new();
    let mut skipped = Vec::new();
    for (name, bytes) in samples {
        if let Some(reason) = too_large(bytes.len() as u64) {
            skipped.push(Skipped {
                name,
                reason,
                parse_error: None,
            });
            continue;
        }
        match parser.parse(&bytes) {
            Ok(tree) => trees.push(tree),
            Err(e) => skipped.push(Skipped {
                name,
                reason: e.to_string(),
                parse_error: Some(e),
            }),
        }
    }
    (trees, skipped)
}

/// Reads and parses sample files; unreadable files are skipped like unparseable ones.
pub fn parse_files(grammar: &Grammar, files: &[PathBuf]) -> (Vec<crate::tree::Tree>, Vec<Skipped>) {
    let mut trees = Vec::new();
    let skipped = for_each_file(grammar, files, |tree| trees.push(tree));
    (trees, skipped)
}

/// Reads and parses the files one at a time (a file is read only when its turn comes, and
/// dropped after), handing each tree to `f`; returns the files skipped and why.
fn for_each_file(grammar: &Grammar, files: &[PathBuf], mut f: impl FnMut(crate::tree::Tree)) -> Vec<Skipped> {
    let parser = Parser::new(grammar);
    let mut skipped = Vec::new();
    for file in files {
        let name = file.display().to_string();
        let skip = |reason: String, parse_error| Skipped {
            name: name.clone(),
            reason,
            parse_error,
        };
        // The size first: a huge file is not even read.
        let read = std::fs::metadata(file).and_then(|m| match too_large(m.len()) {
            Some(reason) => Ok(Err(reason)),
            None => crate::files::read_whole(file).map(Ok),
        });
        match read {
            Err(e) => skipped.push(skip(format!("cannot read: {e}"), None)),
            Ok(Err(reason)) => skipped.push(skip(reason, None)),
            Ok(Ok(bytes)) => match parser.parse(&bytes) {
                Ok(tree) => f(tree),
                Err(e) => skipped.push(skip(e.to_string(), Some(e))),
            },
        }
    }
    skipped
}

/// Mines `samples` (name, bytes) into a new model; samples that do not parse are skipped and
/// returned with their errors.
pub fn mine<'s>(
    grammar: &Grammar,
    samples: impl IntoIterator<Item = (String, std::borrow::Cow<'s, [u8]>)>,
) -> (Model, Vec<Skipped>) {
    let (trees, skipped) = parse_all(grammar, samples);
    (model_of(grammar, &trees), skipped)
}

/// Reads the files and mines them one at a time (memory for one sample's tree, not all);
/// unreadable files are skipped like unparseable ones.
pub fn mine_files(grammar: &Grammar, files: &[PathBuf]) -> (Model, Vec<Skipped>) {
    let mut model = Model::new(grammar);
    let skipped = for_each_file(grammar, files, |tree| model.add_tree(grammar, &tree));
    (model, skipped)
}

/// Mines the built-in samples of the built-in grammar `name` (an empty model if there are none).
pub fn mine_builtin(grammar: &Grammar, name: &str) -> (Model, Vec<Skipped>) {
    let (trees, skipped) = parse_builtin(grammar, name);
    (model_of(grammar, &trees), skipped)
}

/// Parses the built-in samples of the built-in grammar `name` (none if there are none).
pub fn parse_builtin(grammar: &Grammar, name: &str) -> (Vec<crate::tree::Tree>, Vec<Skipped>) {
    let samples = crate::grammar::builtin::samples(name);
    parse_all(
        grammar,
        samples
            .iter()
            .map(|(file, bytes)| (format!("<builtin:{name}>/{file}"), std::borrow::Cow::Borrowed(*bytes))),
    )
}

/// The model of parsed samples, in their order (as [`mine`] makes it).
pub fn model_of(grammar: &Grammar, trees: &[crate::tree::Tree]) -> Model {
    let mut model = Model::new(grammar);
    for tree in trees {
        model.add_tree(grammar, tree);
    }
    model
}
