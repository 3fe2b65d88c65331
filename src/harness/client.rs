//! Reducing a crash with a harness binary from outside: first its reduce mode (in-process, fast),
//! then, for crashes that kill the process, the binary as a subprocess oracle.
//!
//! Map: [`reduce_with_harness`] · [`HarnessReduction`] (the result, whichever way it was made) ·
//! [`Method`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::crash::ArtifactRecord;
use super::env::{self, REDUCE_ENV, REDUCE_OUT_ENV};
use super::reduce_mode::{INFO_LINE, RESULT_LINE};
use crate::grammar::Grammar;
use crate::oracle::OracleError;
use crate::oracle::{Classify, Exit, Oracle, Outcome, Signature, Subprocess};
use crate::reduce::{reduce, ReduceError, ReduceOptions, ReductionStats};

/// How a crash was reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Method {
    /// In the harness process (its reduce mode): one process, thousands of candidates per second.
    ReduceMode,
    /// One harness process per candidate (the crash is not a catchable panic, or the binary has
    /// no reduce mode).
    Subprocess,
}

/// A reduction made through a harness binary.
#[derive(Clone, Debug, serde::Serialize)]
#[non_exhaustive]
pub struct HarnessReduction {
    /// How it was made.
    pub method: Method,
    /// The minimized input (it crashes the harness like the original).
    pub input: Vec<u8>,
    /// Bytes in the original.
    pub original_size: usize,
    /// The crash signature that was preserved.
    pub signature: Option<Signature>,
    /// What ran and what it cost (`oracle_calls`: runs of the target, in-process calls or
    /// processes); the notes say what the user should know (fallbacks, reasons).
    #[serde(flatten)]
    pub stats: ReductionStats,
}

/// Why [`reduce_with_harness`] or [`reduce_in_harness`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum HarnessError {
    /// The crash file, or the reduced file reduce mode wrote, cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The result cannot be written.
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The harness binary cannot be run.
    NotRun {
        /// The binary.
        binary: PathBuf,
        /// Why (from the system).
        reason: String,
    },
    /// Reduce mode printed a result line that is not a record.
    BadResult {
        /// The binary.
        binary: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// The harness cannot serve as an oracle on the crash (it does not start, or does not crash).
    Oracle(OracleError),
    /// The crash does not crash the harness to begin with.
    Reduce(ReduceError),
}

impl std::fmt::Display for HarnessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HarnessError::Read { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            HarnessError::Write { path, source } => write!(f, "cannot write {}: {source}", path.display()),
            HarnessError::NotRun { binary, reason } => write!(f, "cannot run {}: {reason}", binary.display()),
            HarnessError::BadResult { binary, source } => {
                write!(f, "unreadable reduce-mode result from {}: {source}", binary.display())
            }
            HarnessError::Oracle(e) => e.fmt(f),
            HarnessError::Reduce(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for HarnessError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HarnessError::Read { source, .. } | HarnessError::Write { source, .. } => Some(source),
            HarnessError::BadResult { source, .. } => Some(source),
            HarnessError::Oracle(e) => Some(e),
            HarnessError::Reduce(e) => Some(e),
            HarnessError::NotRun { .. } => None,
        }
    }
}

impl From<OracleError> for HarnessError {
    fn from(e: OracleError) -> HarnessError {
        HarnessError::Oracle(e)
    }
}

impl From<ReduceError> for HarnessError {
    fn from(e: ReduceError) -> HarnessError {
        HarnessError::Reduce(e)
    }
}

/// What [`reduce_in_harness`] did: reduced in the harness's process, or why reduce mode could not.
#[derive(Debug)]
#[non_exhaustive]
pub enum InHarness {
    /// Reduced in the harness's own process.
    Reduced(HarnessReduction),
    /// Reduce mode could not do it: the crash kills the process, or the binary has no reduce mode.
    Unavailable {
        /// The grammar the harness named, if it said.
        grammar: Option<String>,
        /// Why, for the user.
        reason: String,
    },
}

/// Reduces `crash` with the harness `binary`, writing the result to `out` (and, in reduce mode,
/// its record to `out.json`). `grammar` overrides the harness's own; `timeout` limits each
/// subprocess run in the fallback. The crash file itself is only read.
pub fn reduce_with_harness(
    binary: &Path,
    crash: &Path,
    out: &Path,
    grammar: Option<&Grammar>,
    options: &ReduceOptions,
    timeout: Duration,
) -> Result<HarnessReduction, HarnessError> {
    let input = crate::files::read_whole(crash).map_err(|source| HarnessError::Read {
        path: crash.to_path_buf(),
        source,
    })?;
    let mut notes = Vec::new();
    // Reduce mode, unless a grammar from outside must be used (the harness only knows its own).
    let mut harness_grammar = None;
    if grammar.is_none() {
        match reduce_in_harness(binary, crash, out, options)? {
            InHarness::Reduced(done) => return Ok(done),
            InHarness::Unavailable { grammar, reason } => {
                notes.push(format!(
                    "{reason}; reducing with one harness process per candidate instead"
                ));
                harness_grammar = grammar;
            }
        }
    }
    let loaded = match (grammar, harness_grammar) {
        (Some(_), _) | (None, None) => None,
        (None, Some(name)) => match Grammar::load(&name) {
            Ok(g) => Some(g),
            Err(e) => {
                notes.push(format!("cannot load the harness's grammar {name}: {e}"));
                None
            }
        },
    };
    let grammar = grammar.or(loaded.as_ref());
    reduce_in_processes(binary, &input, out, grammar, options, timeout, notes)
}

/// Reduces `input` (a crash of the harness `binary`) with one harness process per candidate,
/// keeping the way the original crashes (signal, panic location), and writes the result to
/// `out`. Starts from `out.partial` if an interrupted reduce mode left a smaller one that still
/// crashes alike. `notes` are passed into the result.
pub(super) fn reduce_in_processes(
    binary: &Path,
    input: &[u8],
    out: &Path,
    grammar: Option<&Grammar>,
    options: &ReduceOptions,
    timeout: Duration,
    notes: Vec<String>,
) -> Result<HarnessReduction, HarnessError> {
    let command = candidate_command(binary, timeout)?.calibrate(input)?;
    reduce_calibrated(&command, input, out, grammar, options, notes)
}

/// The command that runs one candidate: the harness `binary` on the file, neither minimizing
/// nor printing backtraces, Fail when it crashes as the original (to calibrate it on) did.
pub(super) fn candidate_command(binary: &Path, timeout: Duration) -> Result<Subprocess, OracleError> {
    Ok(
        Subprocess::new([binary.to_string_lossy().into_owned(), "@@".to_string()])?
            .timeout(timeout)
            .env("RUST_BACKTRACE", "0")
            .env(env::MINIMIZE_ENV, "0")
            // Each candidate's death would print a symbolized backtrace: time, and no use here.
            .env(env::BACKTRACE_ENV, "0")
            .classify(Classify::SameCrash),
    )
}

/// [`reduce_in_processes`] with its [`candidate_command`], calibrated on `input`.
pub(super) fn reduce_calibrated(
    command: &Subprocess,
    input: &[u8],
    out: &Path,
    grammar: Option<&Grammar>,
    options: &ReduceOptions,
    mut notes: Vec<String>,
) -> Result<HarnessReduction, HarnessError> {
    let signature = command.original_signature().cloned();
    // An interrupted reduce mode leaves its best candidate: start from it if it still crashes alike.
    let partial = PathBuf::from(format!("{}.partial", out.display()));
    let mut start = input.to_vec();
    if let Ok(best) = std::fs::read(&partial) {
        if best.len() < input.len() && command.test(&best) == Outcome::Fail {
            notes.push(format!(
                "continuing from the reduce mode's best so far ({} bytes)",
                best.len()
            ));
            start = best;
        }
    }
    let reduction = reduce(&start, grammar, command, options)?;
    crate::files::write_atomically(out, &reduction.input).map_err(|source| HarnessError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    let _ = std::fs::remove_file(&partial);
    notes.extend(reduction.stats.notes);
    Ok(HarnessReduction {
        method: Method::Subprocess,
        original_size: input.len(),
        input: reduction.input,
        signature,
        stats: ReductionStats {
            notes,
            ..reduction.stats
        },
    })
}

/// Reduces `crash` with the harness's reduce mode only, writing the result to `out`.
/// [`InHarness::Unavailable`] says why reduce mode could not do it (with the grammar the harness
/// named, if any): the crash kills the process, or the binary has no reduce mode. `Err`: the
/// harness cannot be run, or its result cannot be read.
pub fn reduce_in_harness(
    binary: &Path,
    crash: &Path,
    out: &Path,
    options: &ReduceOptions,
) -> Result<InHarness, HarnessError> {
    match run_reduce_mode(binary, crash, out, options)? {
        ReduceMode::Done(record) => {
            let reduced = std::fs::read(out).map_err(|source| HarnessError::Read {
                path: out.to_path_buf(),
                source,
            })?;
            Ok(InHarness::Reduced(HarnessReduction {
                method: Method::ReduceMode,
                input: reduced,
                original_size: record.original_size,
                signature: Some(record.signature),
                stats: record.stats,
            }))
        }
        ReduceMode::Failed { grammar, reason } => Ok(InHarness::Unavailable { grammar, reason }),
    }
}

enum ReduceMode {
    Done(Box<ArtifactRecord>),
    /// Reduce mode did not produce a result; `grammar` is what the harness said it uses.
    Failed {
        grammar: Option<String>,
        reason: String,
    },
}

/// Runs `binary crash` with [`REDUCE_ENV`] set. A harness built with hellfuzz reduces; any other
/// libFuzzer-style binary just runs the file once, which is harmless.
fn run_reduce_mode(
    binary_path: &Path,
    crash: &Path,
    out: &Path,
    options: &ReduceOptions,
) -> Result<ReduceMode, HarnessError> {
    let binary = binary_path.to_string_lossy();
    let budget = &options.budget;
    let wall = budget
        .max_time
        .map_or(Duration::from_secs(3600), |t| t + Duration::from_secs(30));
    let mut command = Subprocess::new([binary.to_string(), crash.to_string_lossy().into_owned()])?
        .timeout(wall)
        .env("RUST_BACKTRACE", "0")
        .env(REDUCE_ENV, crash.to_string_lossy())
        .env(REDUCE_OUT_ENV, out.to_string_lossy())
        .env(env::REDUCE_ALGO_ENV, options.algorithm.name())
        .env(env::REDUCE_JOBS_ENV, options.jobs.to_string());
    if let Some(t) = budget.max_time {
        command = command.env(env::REDUCE_TIME_ENV, format!("{}", t.as_secs_f64()));
    }
    if let Some(n) = budget.max_tests {
        command = command.env(env::REDUCE_TESTS_ENV, n.to_string());
    }
    let run = command.run(b"");
    let grammar = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix(INFO_LINE))
        .and_then(|info| serde_json::from_str::<serde_json::Value>(info).ok());
    let Some(info) = grammar else {
        return Ok(ReduceMode::Failed {
            grammar: None,
            reason: format!("{binary} has no reduce mode (not built with hellfuzz::fuzz_target!)"),
        });
    };
    let grammar = info["grammar"].as_str().map(str::to_string);
    let result = run.stdout.lines().find_map(|l| l.strip_prefix(RESULT_LINE));
    if let (Exit::Code(0), Some(result)) = (&run.exit, result) {
        let record = serde_json::from_str(result).map_err(|source| HarnessError::BadResult {
            binary: binary_path.to_path_buf(),
            source,
        })?;
        return Ok(ReduceMode::Done(Box::new(record)));
    }
    let reason = match &run.exit {
        Exit::Code(super::reduce_mode::EXIT_NO_PANIC) => "the crash is not a panic the harness can catch".to_string(),
        Exit::Timeout => format!("reduce mode did not finish within {:.0} s", wall.as_secs_f64()),
        Exit::Code(c) => format!("reduce mode exited with status {c}"),
        Exit::Signal(s) => format!("reduce mode was killed by signal {s} (the crash kills the process)"),
        Exit::NotRun(e) => {
            return Err(HarnessError::NotRun {
                binary: binary_path.to_path_buf(),
                reason: e.clone(),
            })
        }
    };
    Ok(ReduceMode::Failed { grammar, reason })
}
