//! Why triage could not run: [`TriageError`], with the path it concerns and the underlying error
//! kept as its source.

use std::path::PathBuf;

use crate::oracle::OracleError;
use crate::reduce::ReduceError;

/// Why [`triage`](super::triage), [`discover`](super::discover), [`History::load`](super::History::load)
/// or [`minimize_group`](super::minimize_group) failed. Problems with single crash files are not
/// errors: they are in the report.
#[derive(Debug)]
#[non_exhaustive]
pub enum TriageError {
    /// The harness cannot be read (missing: not built yet?).
    HarnessMissing {
        /// The harness.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The harness is a folder or a special file.
    HarnessNotAFile {
        /// The harness.
        path: PathBuf,
    },
    /// The harness has no execute permission.
    HarnessNotExecutable {
        /// The harness.
        path: PathBuf,
    },
    /// The out folder is, holds or lies inside a crash folder.
    OutInCrashFolder {
        /// The out folder.
        out: PathBuf,
        /// The crash folder.
        root: PathBuf,
    },
    /// Writing into the out folder failed.
    Write {
        /// The out folder.
        out: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The out folder's lock could not be taken.
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Interrupted while another run held the out folder's lock.
    InterruptedWaiting {
        /// The lock file.
        path: PathBuf,
    },
    /// A crash folder given to triage cannot be listed.
    ReadFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A crash folder or file given to triage cannot be read.
    Read {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The history file cannot be read.
    HistoryRead {
        /// The history file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The history file is not a hellfuzz triage history.
    HistoryFormat {
        /// The history file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// The history file has another version than this hellfuzz reads.
    HistoryVersion {
        /// The history file.
        path: PathBuf,
        /// Its version.
        found: u32,
        /// The version this hellfuzz reads.
        expected: u32,
    },
    /// Not one crash file could be run.
    NothingTestable {
        /// Why the first one could not.
        first: String,
    },
    /// The harness could not be run on the crash as an oracle.
    Oracle(OracleError),
    /// The crash does not crash the harness the same way any more.
    Reduce(ReduceError),
}

impl std::fmt::Display for TriageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use TriageError::*;
        match self {
            HarnessMissing { path, source } => {
                write!(f, "cannot use the harness {}: {source}; build it first", path.display())
            }
            HarnessNotAFile { path } => write!(f, "the harness {} is not a file", path.display()),
            HarnessNotExecutable { path } => {
                write!(f, "the harness {} is not executable (chmod +x it)", path.display())
            }
            OutInCrashFolder { out, root } => write!(
                f,
                "--out {} is, holds or lies inside the crash folder {}: give an out folder outside the crash folders (crash folders are only read)",
                out.display(),
                root.display()
            ),
            Write { out, source } => write!(f, "cannot write into {}: {source}", out.display()),
            Lock { path, source } => write!(f, "cannot lock {}: {source}", path.display()),
            InterruptedWaiting { path } => write!(f, "interrupted while waiting for the lock {}", path.display()),
            ReadFolder { path, source } => write!(f, "cannot read the folder {}: {source}", path.display()),
            Read { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            HistoryRead { path, source } => write!(f, "cannot read the history {}: {source}", path.display()),
            HistoryFormat { path, source } => write!(
                f,
                "the history {} is not a hellfuzz triage history ({source}); move it away to start a new one",
                path.display()
            ),
            HistoryVersion { path, found, expected } => write!(
                f,
                "the history {} has version {found}, this hellfuzz reads version {expected}",
                path.display()
            ),
            NothingTestable { first } => write!(f, "no crash file could be tested; the first: {first}"),
            Oracle(e) => e.fmt(f),
            Reduce(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TriageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        use TriageError::*;
        match self {
            HarnessMissing { source, .. }
            | Write { source, .. }
            | Lock { source, .. }
            | Read { source, .. }
            | ReadFolder { source, .. } => Some(source),
            HistoryRead { source, .. } => Some(source),
            HistoryFormat { source, .. } => Some(source),
            Oracle(e) => Some(e),
            Reduce(e) => Some(e),
            _ => None,
        }
    }
}
