//! Fuzz-target wrappers: the target's closure runs under `catch_unwind`; a panic is reduced
//! in-process with the same closure as oracle, and the minimized input lands next to the crash.
//!
//! Map: `macros` (`fuzz_target!`, `fuzz_mutator!`) · `target` (a target's grammar and settings) ·
//! `continuing` (continue mode: keep fuzzing past known crashes) · `corpus` (`Corpus`, a run's verdict) · `typed` (`arbitrary` inputs built from bytes) · `crash` (reduce-on-crash, artifacts) · `sidecar` (records and summary in `<artifacts>/.hellfuzz/`) · `reduce_mode` (a harness binary reducing one file) ·
//! `env` (the `HELLFUZZ_*` variables) · `client` (`hellfuzz reduce --harness`: reduce mode, else a subprocess oracle) · `mutator`
//! (grammar-aware mutation) · `libfuzzer`, `afl`, `standalone` (one entry point per runtime).
//!
//! A target looks like libfuzzer-sys's (every form of its `fuzz_target!`: bytes, a typed
//! `arbitrary` input, `-> Corpus`, `init:`), with the grammar named for bytes:
//!
//! ```ignore
//! #![no_main]
//! hellfuzz::fuzz_target!(grammar = "json", |data: &[u8]| {
//!     my_crate::parse(data);
//! });
//! ```
//!
//! Build it with hellfuzz's feature `libfuzzer` (cargo-fuzz), `afl` (cargo afl), or neither (a
//! plain binary that runs the files named on its command line, for reproducing and for tests).
//! Every runtime honours the reduce mode: `HELLFUZZ_REDUCE=<crash file> <harness>` reduces that
//! file in-process, writes the minimized input, and exits.

#[cfg(all(feature = "libfuzzer", feature = "afl"))]
compile_error!(
    "hellfuzz: the features `libfuzzer` and `afl` exclude each other (one runtime's main per binary); \
     build libFuzzer and AFL targets in separate cargo workspaces, as fuzz/afl does"
);

mod client;
mod continuing;
pub(crate) mod corpus;
mod crash;
#[cfg(all(unix, feature = "libfuzzer"))]
mod deadly;
pub mod env;
mod macros;
mod mutator;
mod reduce_mode;
pub(crate) mod sidecar;
mod target;
#[doc(hidden)]
pub mod typed;

// The runtimes the macros expand to: public for the macros' sake, not an API (as libfuzzer-sys
// hides its `initialize`).
#[cfg(feature = "afl")]
#[doc(hidden)]
pub mod afl;
#[cfg(feature = "libfuzzer")]
#[doc(hidden)]
pub mod libfuzzer;
#[doc(hidden)]
pub mod standalone;

/// The `main` of a harness built without the `libfuzzer` feature: AFL's loop with `afl`, else
/// the plain binary that runs files.
#[cfg(feature = "afl")]
#[doc(hidden)]
pub use afl::main as main_runtime;
#[cfg(not(feature = "afl"))]
#[doc(hidden)]
pub use standalone::main as main_runtime;

pub use client::{reduce_in_harness, reduce_with_harness, HarnessError, HarnessReduction, InHarness, Method};
pub use continuing::{
    Campaign, Caught, ContinueSettings, CrashSummary, SummaryEntry, SummaryError, CONTINUE_FLAG, SUMMARY_FILE,
};
pub use corpus::RunFn;
pub use crash::{ArtifactRecord, CrashHandler};
#[cfg(feature = "libfuzzer")]
pub use mutator::SharedMutator;
pub use mutator::{MutationKind, Mutator};
pub use sidecar::SIDECAR_DIR;
pub use target::{GrammarSource, Settings, ShowFn, Target};

/// Re-exported for the macros: a target crate needs no direct dependency on these.
#[cfg(feature = "afl")]
#[doc(hidden)]
pub use ::afl as afl_crate;
#[cfg(feature = "libfuzzer")]
#[doc(hidden)]
pub use ::libfuzzer_sys;
