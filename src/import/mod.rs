//! Other grammar formats → hellfuzz grammar text: tree-sitter's `grammar.json` today.
//!
//! [`tree_sitter::import`] converts a tree-sitter grammar (found by path or crate name with
//! [`source::find`]) plus an optional overrides file into a grammar file a person can read and edit.

mod expr;
mod pattern;
mod source;
mod tree_sitter;

use std::fmt;
use std::path::PathBuf;

pub use source::{find, find_in, CrateInfo, Source};
pub use tree_sitter::{import, Imported, Overrides};

/// Why an import failed. Every variant says where (file, JSON path) and what to do.
#[derive(Debug)]
#[non_exhaustive]
pub enum ImportError {
    /// A file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The grammar.json is not JSON.
    NotJson {
        /// The file.
        path: String,
        /// The parser's error (it carries line and column).
        source: serde_json::Error,
    },
    /// The grammar.json is JSON but not a tree-sitter grammar we can convert.
    Invalid {
        /// The file.
        path: String,
        /// Where in the JSON, e.g. `rules.string.members[2]`.
        json_path: String,
        /// What is wrong, and what to do.
        message: String,
    },
    /// No crate of that name in cargo's registry sources.
    CrateNotFound {
        /// The crate name asked for.
        name: String,
        /// The registry source folders searched.
        searched: Vec<PathBuf>,
    },
    /// The overrides file has grammar errors.
    Overrides {
        /// The diagnostics, with file:line:col.
        error: crate::grammar::GrammarError,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Io { path, source } => write!(f, "{}: cannot read: {source}", path.display()),
            ImportError::NotJson { path, source } => write!(
                f,
                "{path}:{}:{}: not a tree-sitter grammar.json: invalid JSON: {source}",
                source.line(),
                source.column()
            ),
            ImportError::Invalid {
                path,
                json_path,
                message,
            } => write!(f, "{path}: at `{json_path}`: {message}"),
            ImportError::CrateNotFound { name, searched } => {
                write!(
                    f,
                    "no crate `{name}` in cargo's registry sources ({}); add it to a Cargo.toml \
                     (`cargo add {name}`) and run `cargo fetch`, or give the path of its src/grammar.json",
                    if searched.is_empty() {
                        "no registry folder found under $CARGO_HOME/registry/src".to_string()
                    } else {
                        format!(
                            "searched {}",
                            searched
                                .iter()
                                .map(|p| p.display().to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                )
            }
            ImportError::Overrides { error } => write!(f, "the overrides file has errors:\n{error}"),
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImportError::Io { source, .. } => Some(source),
            ImportError::NotJson { source, .. } => Some(source),
            ImportError::Overrides { error } => Some(error),
            _ => None,
        }
    }
}
