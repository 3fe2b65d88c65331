//! Oracles: "is this candidate still interesting?" — [`Outcome`] and the [`Oracle`] trait the
//! reducers use, implemented in-process, by a subprocess, and by a cache in front of either.
//!
//! Map: `signature` (crash identity, panic parsing, normalization) · `backtrace` (frames, crash hashes) · `inprocess` (closure under
//! `catch_unwind`, quiet per-thread panic hook) · `subprocess` (command with `@@`/stdin, timeout,
//! classification) · `output` (its stdout/stderr, drained and capped) · `cache` (outcomes by
//! SHA-1, call/hit/time counters) · `error` (setup errors) · `processed` (Pass = exit 0, for repair) ·
//! `filter` (keep the generated inputs a command accepts, checked in parallel, kept in order).
//!
//! ```
//! use hellfuzz::oracle::{Cached, InProcess, Oracle, Outcome};
//! let parse = |data: &[u8]| {
//!     let eq = data.iter().position(|&b| b == b'=').unwrap();
//!     let _first_value_byte = data[eq + 1];
//! };
//! let oracle = Cached::new(InProcess::new(parse, b"key=").unwrap());
//! assert_eq!(oracle.test(b"k="), Outcome::Fail);       // same panic: index out of bounds there
//! assert_eq!(oracle.test(b"k"), Outcome::Unresolved);  // another panic: the unwrap
//! assert_eq!(oracle.test(b"k=v"), Outcome::Pass);
//! assert_eq!(oracle.stats().calls, 3);
//! ```

mod backtrace;
mod cache;
mod error;
mod filter;
mod inprocess;
mod output;
mod processed;
mod signature;
mod subprocess;

pub use backtrace::{backtrace_frames, crash_frames, is_machinery_frame, CrashHashes, COARSE_FRAMES};
pub use cache::{Cached, Stats};
pub use error::OracleError;
pub use filter::{keep_if, KeepIfError, KeepIfOptions, KeepIfStats, Rejection, Shortfall, DEFAULT_TRIES_PER_INPUT};
pub use inprocess::{
    catch_panic, catch_panic_fatal, catch_panic_reported, install_panic_hook, FatalCallback, FatalScope, Fate,
    InProcess,
};
pub use processed::Processed;
pub use signature::{crash_summary, normalize_message, parse_panic, parse_panics, CrashKind, Signature};
pub use subprocess::{kill_running, Classify, Exit, Run, Subprocess, DEFAULT_TIMEOUT, KEPT_OUTPUT};

/// What an oracle says about one candidate input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Still shows the property (for crashes: the same signature as the original).
    Fail,
    /// Does not show it.
    Pass,
    /// Neither: the test could not decide (another crash, a timeout, a broken harness).
    Unresolved,
}

/// Anything that classifies candidate inputs. Implementations must be usable from several
/// threads at once (reducers test candidates in parallel with `-j`).
pub trait Oracle: Send + Sync {
    /// Classifies one candidate.
    fn test(&self, input: &[u8]) -> Outcome;
}

impl<F: Fn(&[u8]) -> Outcome + Send + Sync> Oracle for F {
    fn test(&self, input: &[u8]) -> Outcome {
        self(input)
    }
}
