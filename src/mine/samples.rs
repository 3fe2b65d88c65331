//! Finding and mining sample inputs: files, folders (recursively) and glob patterns.
//!
//! [`collect`] resolves the arguments to a sorted list of files; [`mine`] parses each one, counts
//! its choices into a [`Model`] and reports (rather than fails on) the samples that do not parse.

use std::path::{Path, PathBuf};

use super::Model;
use crate::grammar::Grammar;
use crate::parse::{ParseError, Parser};

/// A sample that could not be mined, and why.
#[derive(Debug)]
pub struct Skipped {
    /// The sample's name (its path, or `<builtin:NAME>/file`).
    pub name: String,
    /// What was wrong: a parse error or an I/O error, as a message.
    pub reason: String,
    /// The parse error, if it was one.
    pub parse_error: Option<ParseError>,
}

/// The files named by `args`: files as they are, folders walked recursively, anything else as a
/// glob pattern. Sorted and without duplicates (also through links). An argument that names
/// nothing is an error.
pub fn collect(args: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for arg in args {
        let path = Path::new(arg);
        if path.is_file() {
            files.push(path.to_path_buf());
        } else if path.is_dir() {
            walk(path, &mut files).map_err(|e| format!("cannot read folder {arg}: {e}"))?;
        } else {
            let matches =
                glob::glob(arg).map_err(|e| format!("`{arg}` is no file, folder or valid glob pattern: {e}"))?;
            let before = files.len();
            for m in matches {
                let m = m.map_err(|e| format!("{arg}: {e}"))?;
                if m.is_file() {
                    files.push(m);
                } else if m.is_dir() {
                    walk(&m, &mut files).map_err(|e| format!("cannot read folder {}: {e}", m.display()))?;
                }
            }
            if files.len() == before {
                return Err(format!(
                    "no samples found at `{arg}` (no such file or folder, and no glob match)"
                ));
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
    let mut unreadable = Vec::new();
    let readable: Vec<(String, std::borrow::Cow<'static, [u8]>)> = files
        .iter()
        .filter_map(|f| match std::fs::read(f) {
            Ok(bytes) => Some((f.display().to_string(), std::borrow::Cow::Owned(bytes))),
            Err(e) => {
                unreadable.push(Skipped {
                    name: f.display().to_string(),
                    reason: format!("cannot read: {e}"),
                    parse_error: None,
                });
                None
            }
        })
        .collect();
    let (trees, mut skipped) = parse_all(grammar, readable);
    skipped.extend(unreadable);
    (trees, skipped)
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

/// Reads the files and mines them; unreadable files are skipped like unparseable ones.
pub fn mine_files(grammar: &Grammar, files: &[PathBuf]) -> (Model, Vec<Skipped>) {
    let (trees, skipped) = parse_files(grammar, files);
    (model_of(grammar, &trees), skipped)
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
