//! The `HELLFUZZ_*` environment variables: the protocol between `hellfuzz reduce --harness` /
//! `hellfuzz triage` and a harness binary, and the settings a user gives a fuzz target.
//!
//! One place for every name, so that the side that sets a variable and the side that reads it
//! cannot disagree on its spelling (a typo would fail silently).

/// Names the crash file to reduce: the harness reduces it in-process and exits (reduce mode).
pub const REDUCE_ENV: &str = "HELLFUZZ_REDUCE";
/// Where to write the minimized input; the record goes to the same path plus `.json`. Default:
/// `minimized-<sha1>` beside the crash file, its record in the `.hellfuzz/` subfolder there.
pub const REDUCE_OUT_ENV: &str = "HELLFUZZ_REDUCE_OUT";
/// Set (to `1`) with [`REDUCE_ENV`] by a process that a deadly signal is killing: the crash
/// cannot be caught in-process, so each candidate runs in a process of its own (this binary,
/// on the candidate's file).
pub const REDUCE_SUBPROCESS_ENV: &str = "HELLFUZZ_REDUCE_SUBPROCESS";
/// The reduction algorithm by name (`gtr*`, `gtr`, `hdd*`, `hdd`, `ddmin`; default `gtr*`).
pub const REDUCE_ALGO_ENV: &str = "HELLFUZZ_REDUCE_ALGO";
/// Candidates tested at once while reducing (default 1).
pub const REDUCE_JOBS_ENV: &str = "HELLFUZZ_REDUCE_JOBS";
/// Seconds a reduction may take (the best input so far is kept).
pub const REDUCE_TIME_ENV: &str = "HELLFUZZ_REDUCE_TIME";
/// Candidates a reduction may test (at least 1).
pub const REDUCE_TESTS_ENV: &str = "HELLFUZZ_REDUCE_TESTS";
/// `0` turns reduce-on-crash off (`1` or unset: on).
pub const MINIMIZE_ENV: &str = "HELLFUZZ_MINIMIZE";
/// `0`: a deadly signal prints no symbolized backtrace (time, and no use to a reducer).
pub const BACKTRACE_ENV: &str = "HELLFUZZ_BACKTRACE";
/// Set (to `1`) in the process a deadly signal starts to symbolize the dying thread's
/// backtrace: its standard input holds the signal's name, the dying process's id and the frames'
/// addresses; it prints the backtrace and exits (`harness::deadly`).
pub const SYMBOLIZE_ENV: &str = "HELLFUZZ_SYMBOLIZE";
/// The variable that turns continue mode on (`1`; `0` or unset: off).
pub const CONTINUE_ENV: &str = "HELLFUZZ_CONTINUE";
/// The variable bounding the panics caught per signature (a whole number; unset: no bound).
pub const CONTINUE_MAX_ENV: &str = "HELLFUZZ_CONTINUE_MAX";
/// The variable naming the summary file instead of `.hellfuzz/hellfuzz-crashes.json` in the
/// artifacts folder.
pub const SUMMARY_ENV: &str = "HELLFUZZ_SUMMARY";
/// The custom mutator's probabilities: `mined`, `inverted` or `uniform`; `off`: libFuzzer's own
/// mutation only (the target as built, without the tree mutation).
pub const MUTATOR_ENV: &str = "HELLFUZZ_MUTATOR";
/// The custom mutator runs on one call in this many (default 4); libFuzzer's own on the rest.
pub const MUTATOR_EVERY_ENV: &str = "HELLFUZZ_MUTATOR_EVERY";
/// The share of the campaign's time the custom mutator's tree mutation may take (0 to 1,
/// default 0.03); past it, libFuzzer's own mutation runs until fuzzing has caught up.
pub const MUTATOR_SHARE_ENV: &str = "HELLFUZZ_MUTATOR_SHARE";
/// `0`: a grammar target does not pass the grammar's literals to libFuzzer as `-dict=` (default:
/// it does, unless the command line names a dictionary).
pub const DICT_ENV: &str = "HELLFUZZ_DICT";
/// `1`: triage does not run gdb (for tests, and machines where ptrace is not allowed).
pub const NO_GDB_ENV: &str = "HELLFUZZ_NO_GDB";
