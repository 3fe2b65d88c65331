//! Rerunning crash files on the harness in parallel workers and deciding for each: reproduced
//! (which [`Crash`]), flaky, does not reproduce, or could not be tested.
//!
//! Map: [`rerun_all`] (hash first to run identical files once; `jobs` workers of the crate's
//! worker pool, cancellation) · [`rerun_file`] (run, confirm by reruns) · `hash_file`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use std::collections::BTreeMap;

use super::crash::{Crash, CrashClass, Trace};
use super::debugger;
use super::discover::CrashFile;
use crate::files::read_whole;
use crate::oracle::{CrashKind, Exit};

/// How to rerun crash files.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RerunOptions {
    /// The harness binary; it is run as `harness FILE`.
    pub harness: PathBuf,
    /// A run longer than this is killed and counts as a timeout.
    pub timeout: Duration,
    /// Files run at once.
    pub jobs: usize,
    /// Extra runs: to confirm a crash (a clean run or another signature makes the file flaky:
    /// one file per group, all of the group's files when one is flaky), and to retry a file that
    /// did not crash (a crash then makes it flaky). Timeouts are not rerun (too costly).
    pub reruns: u32,
    /// Extra environment for the harness. RUST_BACKTRACE is set: 0, and 1 for the runs that
    /// ask for frames (see [`rerun_all`]).
    pub env: Vec<(String, String)>,
    /// Ask every crash file without a printed stack for its frames, instead of
    /// [`TRACE_SAMPLE`] files per key: slower, and sure to split every group the frames split.
    pub trace_all: bool,
    /// Set from outside (Ctrl-C): no further runs start, runs in progress are abandoned.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl RerunOptions {
    /// Defaults for `harness`, as [`TriageOptions::new`](super::TriageOptions::new) has them: a
    /// 10 s timeout, one job, one rerun, no extra environment, frames for a sample of files.
    pub fn new(harness: impl Into<PathBuf>) -> RerunOptions {
        RerunOptions {
            harness: harness.into(),
            timeout: Duration::from_secs(10),
            jobs: 1,
            reruns: 1,
            env: Vec::new(),
            trace_all: false,
            cancel: None,
        }
    }
}

/// What rerunning a file showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Crashed, the same way on every run.
    Reproduced,
    /// Crashed on some runs only, or differently.
    Flaky,
    /// Never crashed.
    DoesNotReproduce,
    /// Could not be tested: unreadable, or the harness did not run (see the note).
    Error,
    /// Not tested: triage was interrupted.
    Interrupted,
}

/// One crash file after reruns.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct FileResult {
    /// The file.
    #[serde(flatten)]
    pub file: CrashFile,
    /// Its size in bytes (if readable).
    pub size: Option<u64>,
    /// SHA-1 of its content (if readable).
    pub sha1: Option<String>,
    /// The verdict.
    pub status: Status,
    /// The crash (of the first crashing run) for reproduced and flaky files.
    pub crash: Option<Crash>,
    /// Runs made, and how many crashed.
    pub runs: u32,
    /// Crashing runs.
    pub crashed_runs: u32,
    /// Why the file could not be tested, or other things to know.
    pub note: Option<String>,
    /// Wall-clock time of its first run (without a backtrace), if it ran: what a run of it
    /// costs, so that cheap groups are minimized first. Not in the reports: it varies from run
    /// to run.
    #[serde(skip)]
    pub duration: Option<Duration>,
}

/// How many files of one [`Crash::key`] (kind, normalized message, panic location) are rerun
/// for their frames when the output shows none: if they agree, the key's other files take their
/// frames; if not, every file of the key is rerun (see [`rerun_all`]).
pub const TRACE_SAMPLE: usize = 3;

/// Reruns every file on `jobs` workers; results come back in the order of `files`. Files with
/// the same content are run once (the first by path) and share the verdict. `progress` is called
/// on this thread after each file's first run. Cancellation (through `options.cancel`) marks the
/// files not yet run as interrupted.
///
/// Runs are spent where they decide something, in three rounds:
/// 1. every file once without a backtrace (`RUST_BACKTRACE=0`: symbolizing one costs the harness
///    far more than the run) and without symbolizing a sanitizer's stack (`symbolize=0` added to
///    `ASAN_OPTIONS` and the other sanitizers' options: ASan's `llvm-symbolizer` reading the
///    binary's debug info costs several times the run); a file that does not crash is retried
///    [`RerunOptions::reruns`] times. A symbolized stack the run prints anyway (our macro's on a
///    deadly signal) gives the crash its frames; an unsymbolized one, its [`Crash::raw_stack`].
/// 2. crashes without frames, by key and raw stack: of a raw stack (module offsets, which fix
///    the frames), its smallest file is rerun with the sanitizer symbolizing, and the others take
///    its frames. Without one, [`TRACE_SAMPLE`] files of the key (spread over it by size) are
///    rerun with `RUST_BACKTRACE=1`, and under gdb (when installed) if that prints no stack
///    either (an abort, a segfault, a stack overflow); when their frames agree the key's other
///    files take them, otherwise every file of the key gets its own (two callers of one
///    panicking helper, two `abort()` sites). With [`RerunOptions::trace_all`], every file.
/// 3. flakiness: per group (coarse hash), its smallest file runs until it has had `1 + reruns`
///    runs (the traced run counts, so a group whose smallest file was traced needs none more;
///    these runs symbolize nothing: they compare [`Crash::key`]s); when one of the group's
///    files proves flaky, every file of the group does.
pub fn rerun_all(
    files: &[CrashFile],
    options: &RerunOptions,
    progress: &mut dyn FnMut(&FileResult),
) -> Vec<FileResult> {
    // Hashing first (cheap next to a run) finds duplicates before any run, deterministically.
    let hashes: Vec<std::io::Result<(u64, String)>> = files.iter().map(|f| hash_file(&f.path)).collect();
    let mut first_with: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut copies: Vec<Vec<usize>> = vec![Vec::new(); files.len()];
    let mut unique = Vec::new();
    for (i, hash) in hashes.iter().enumerate() {
        match hash {
            Ok((_, sha1)) => match first_with.get(sha1.as_str()) {
                Some(&first) => copies[first].push(i),
                None => {
                    first_with.insert(sha1, i);
                    unique.push(i);
                }
            },
            Err(_) => unique.push(i),
        }
    }
    let mut results: Vec<Option<FileResult>> = vec![None; files.len()];
    // Round 1: every file once, without a backtrace.
    parallel(
        &unique,
        options.jobs,
        &|i| match &hashes[i] {
            Ok((size, sha1)) => first_runs(&files[i], *size, sha1, options),
            Err(e) => not_tested(&files[i], Status::Error, Some(format!("cannot read it: {e}"))),
        },
        &mut |i, result| {
            progress(&result);
            for &j in &copies[i] {
                progress(&copy_of(&result, &files[j], &files[i]));
            }
            results[i] = Some(result);
        },
    );
    if !cancelled(options) {
        trace_keys(files, &unique, &mut results, options);
    }
    if cancelled(options) {
        // Crashes still waiting for their frames have no group yet: an interrupted run must not
        // make up groups (they would enter the history as groups of their own).
        for &i in &unique {
            if let Some(r) = results[i].as_mut().filter(|r| needs_frames(r)) {
                r.status = Status::Interrupted;
                r.note = Some("interrupted before its frames were known".to_string());
            }
        }
    }
    if !cancelled(options) && options.reruns > 0 {
        confirm_groups(files, &unique, &mut results, options);
    }
    // Copies share the verdict of the file that ran.
    for &i in &unique {
        for &j in &copies[i] {
            results[j] = results[i].as_ref().map(|r| copy_of(r, &files[j], &files[i]));
        }
    }
    results
        .into_iter()
        .zip(files)
        .map(|(r, f)| r.unwrap_or_else(|| not_tested(f, Status::Interrupted, None)))
        .collect()
}

/// `result` (of `original`) as the result of `copy`, a file with the same content.
fn copy_of(result: &FileResult, copy: &CrashFile, original: &CrashFile) -> FileResult {
    FileResult {
        file: copy.clone(),
        note: Some(format!("same content as {}: not run again", original.path.display())),
        ..result.clone()
    }
}

/// Runs `work` on every item (an index into the files) on up to `jobs` threads of the shared
/// [`pool`](crate::pool), and `done` with the item on this thread as each ends.
fn parallel<R: Send>(items: &[usize], jobs: usize, work: &(dyn Fn(usize) -> R + Sync), done: &mut dyn FnMut(usize, R)) {
    crate::pool::for_each(items, jobs, |_, &i| work(i), |at, r| done(items[at], r));
}

fn cancelled(options: &RerunOptions) -> bool {
    options.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
}

fn not_tested(file: &CrashFile, status: Status, note: Option<String>) -> FileResult {
    FileResult {
        file: file.clone(),
        size: None,
        sha1: None,
        status,
        crash: None,
        runs: 0,
        crashed_runs: 0,
        note,
        duration: None,
    }
}

/// Hashes and reruns one file (see [`rerun_all`]). Never panics, never fails: problems become
/// [`Status::Error`] with a note.
pub fn rerun_file(file: &CrashFile, options: &RerunOptions) -> FileResult {
    let mut results = rerun_all(std::slice::from_ref(file), options, &mut |_| {});
    results
        .pop()
        .unwrap_or_else(|| not_tested(file, Status::Interrupted, None))
}

/// The harness on one crash file, ready to run.
struct HarnessRun {
    command: crate::oracle::Subprocess,
    /// What `command.run` is given: nothing when the harness reads the file by its path; the
    /// file's bytes when its name is not UTF-8 and goes through a temporary copy (`@@`) instead.
    input: Vec<u8>,
}

impl HarnessRun {
    fn run(&self) -> crate::oracle::Run {
        self.command.run(&self.input)
    }
}

/// The options variables of the sanitizers that take `symbolize=0` (ThreadSanitizer's reports
/// differ, and it is not used for fuzzing).
const SANITIZER_OPTIONS: [&str; 5] = [
    "ASAN_OPTIONS",
    "MSAN_OPTIONS",
    "LSAN_OPTIONS",
    "UBSAN_OPTIONS",
    "HWASAN_OPTIONS",
];

/// The sanitizers' options variables with `symbolize=0` after what the user set (in `env`, else
/// in our own environment; a later option overrides an earlier one).
fn unsymbolized(env: &[(String, String)]) -> Vec<(String, String)> {
    SANITIZER_OPTIONS
        .iter()
        .map(|&name| {
            let given = env
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .or_else(|| std::env::var(name).ok())
                .unwrap_or_default();
            let value = match given.trim_end_matches([':', ' ', ',']) {
                "" => "symbolize=0".to_string(),
                given => format!("{given}:symbolize=0"),
            };
            (name.to_string(), value)
        })
        .collect()
}

/// The harness on `file`, with `RUST_BACKTRACE` as given, and the sanitizers symbolizing their
/// stacks or not.
fn harness_command(
    file: &CrashFile,
    options: &RerunOptions,
    backtrace: bool,
    symbolize: bool,
) -> Result<HarnessRun, String> {
    // Commands take UTF-8 arguments: a file whose name is not UTF-8 is given as a temporary
    // copy (its lossy name would name no file, and the harness would report it missing).
    let (arg, input) = match file.path.to_str() {
        Some(path) => (path.to_string(), Vec::new()),
        None => (
            "@@".to_string(),
            std::fs::read(&file.path).map_err(|e| format!("cannot read {}: {e}", file.path.display()))?,
        ),
    };
    let argv = [options.harness.to_string_lossy().into_owned(), arg];
    let mut command = crate::oracle::Subprocess::new(argv)
        .map_err(|e| e.to_string())?
        .timeout(options.timeout);
    for (k, v) in &options.env {
        command = command.env(k.clone(), v.clone());
    }
    if !symbolize {
        for (k, v) in unsymbolized(&options.env) {
            command = command.env(k, v);
        }
    }
    Ok(HarnessRun {
        command: command.env("RUST_BACKTRACE", if backtrace { "1" } else { "0" }),
        input,
    })
}

/// Round 1 for one file: a run without a backtrace; a file that does not crash is retried
/// `reruns` times (a crash then makes it flaky).
fn first_runs(file: &CrashFile, size: u64, sha1: &str, options: &RerunOptions) -> FileResult {
    if cancelled(options) {
        return not_tested(file, Status::Interrupted, None);
    }
    let command = match harness_command(file, options, false, false) {
        Ok(c) => c,
        Err(e) => return not_tested(file, Status::Error, Some(e)),
    };
    let mut result = FileResult {
        size: Some(size),
        sha1: Some(sha1.to_string()),
        ..not_tested(file, Status::DoesNotReproduce, None)
    };
    // The harness reads the file itself (no copy, even of a huge file); stdin stays empty.
    for attempt in 0..=options.reruns {
        let run = command.run();
        if cancelled(options) {
            result.status = Status::Interrupted;
            return result;
        }
        if let Exit::NotRun(reason) = &run.exit {
            result.status = Status::Error;
            result.note = Some(format!("the harness did not run: {reason}"));
            return result;
        }
        result.runs += 1;
        if attempt == 0 {
            result.duration = Some(run.duration);
        }
        if let Some(crash) = Crash::from_run(&run) {
            result.crashed_runs += 1;
            result.crash = Some(crash);
            // Confirming a crash is left to round 3, once per group.
            break;
        }
    }
    settle(&mut result, false);
    result
}

/// Sets the status from the run counts (and whether the crashing runs differed).
fn settle(result: &mut FileResult, differs: bool) {
    let was_flaky = result.status == Status::Flaky;
    result.status = match &result.crash {
        None => Status::DoesNotReproduce,
        Some(_) if was_flaky || differs || result.crashed_runs < result.runs => Status::Flaky,
        Some(_) => Status::Reproduced,
    };
    if result.status == Status::Flaky && (!was_flaky || differs) {
        result.note = Some(format!(
            "crashed on {} of {} runs{}",
            result.crashed_runs,
            result.runs,
            if differs { ", not always the same way" } else { "" }
        ));
    }
}

/// Adds a confirming run's crash (or its absence) to `result`.
fn record(result: &mut FileResult, crash: Option<&Crash>) {
    result.runs += 1;
    let differs = match (crash, &result.crash) {
        (Some(c), Some(first)) => {
            result.crashed_runs += 1;
            c.key() != first.key()
        }
        (Some(_), None) => {
            result.crashed_runs += 1;
            false
        }
        (None, _) => false,
    };
    settle(result, differs);
}

/// Whether round 2 concerns a file: it crashed, not by a timeout, and showed no frames.
fn needs_frames(result: &FileResult) -> bool {
    matches!(result.status, Status::Reproduced | Status::Flaky)
        && result
            .crash
            .as_ref()
            .is_some_and(|c| c.class != CrashClass::Timeout && c.trace == Trace::None)
}

/// Round 2 (see [`rerun_all`]).
fn trace_keys(files: &[CrashFile], unique: &[usize], results: &mut [Option<FileResult>], options: &RerunOptions) {
    // Crashes without frames by what their runs showed: the key, and the stack as printed
    // without symbols (empty when there was none).
    let mut by_key: BTreeMap<_, Vec<usize>> = BTreeMap::new();
    for &i in unique {
        if let Some(c) = results[i]
            .as_ref()
            .filter(|r| needs_frames(r))
            .and_then(|r| r.crash.as_ref())
        {
            by_key.entry((c.key(), c.raw_stack.clone())).or_default().push(i);
        }
    }
    let order = |i: &usize| {
        let r = results[*i].as_ref();
        (r.and_then(|r| r.size), files[*i].path.clone())
    };
    let mut samples = Vec::new();
    // Per key: its sampled files, the others, and whether it has a raw stack.
    let mut keys: Vec<(Vec<usize>, Vec<usize>, bool)> = Vec::new();
    for ((_, raw), members) in by_key.iter_mut() {
        members.sort_by_cached_key(order);
        let n = members.len();
        // Module offsets fix the frames: one file of a raw stack tells them all, the smallest
        // (it is the group's representative, and its symbolized log the group's).
        let wanted = if raw.is_empty() { TRACE_SAMPLE } else { 1 };
        let (sample, others): (Vec<usize>, Vec<usize>) = if options.trace_all || n <= wanted {
            (members.clone(), Vec::new())
        } else if wanted == 1 {
            (vec![members[0]], members[1..].to_vec())
        } else {
            // Spread over the key (smallest, largest and between): files of one size often come
            // from one fuzzer's mutations of one seed, and share a path through the code.
            let picks: Vec<usize> = (0..wanted).map(|k| k * (n - 1) / (wanted - 1)).collect();
            let mut sample = Vec::new();
            let mut others = Vec::new();
            for (p, &i) in members.iter().enumerate() {
                if picks.contains(&p) {
                    sample.push(i);
                } else {
                    others.push(i);
                }
            }
            (sample, others)
        };
        samples.extend(&sample);
        keys.push((sample, others, !raw.is_empty()));
    }
    let apply = |results: &mut [Option<FileResult>], i: usize, traced: Option<Option<Crash>>| {
        let (Some(result), Some(traced)) = (results[i].as_mut(), traced) else {
            return; // cancelled, or the harness did not run: the file keeps its first verdict
        };
        record(result, traced.as_ref());
        if let (Some(first), Some(t)) = (result.crash.as_mut(), traced) {
            if t.trace != Trace::None && t.key() == first.key() {
                first.take_frames_of(&t);
                first.log = t.log;
            }
        }
    };
    for (i, t) in trace_files(files, &samples, results, options) {
        apply(results, i, t);
    }
    let mut second = Vec::new();
    for (sample, others, raw) in keys {
        if others.is_empty() {
            continue;
        }
        let traced: Vec<&Crash> = sample
            .iter()
            .filter_map(|&i| results[i].as_ref()?.crash.as_ref())
            .filter(|c| c.trace != Trace::None)
            .collect();
        let mut coarse: Vec<&str> = traced.iter().map(|c| c.hashes.coarse.as_str()).collect();
        coarse.sort_unstable();
        coarse.dedup();
        let sample_flaky = sample
            .iter()
            .any(|&i| results[i].as_ref().is_some_and(|r| r.status == Status::Flaky));
        match coarse.len() {
            // The one file of a raw stack did not crash alike again: the others tell their own.
            0 if raw && sample_flaky => second.extend(others),
            // No frames to be had (no symbolizer nor gdb, a crash gdb cannot see): nothing to
            // give or split.
            0 => {}
            1 => {
                let model = traced[0].clone();
                for &i in &others {
                    if let Some(c) = results[i].as_mut().and_then(|r| r.crash.as_mut()) {
                        c.take_frames_of(&model);
                    }
                }
            }
            // The frames decide between groups here: every file gets its own.
            _ => second.extend(others),
        }
    }
    for (i, t) in trace_files(files, &second, results, options) {
        apply(results, i, t);
    }
}

/// Runs of `which` for their frames: a crash with a [`Crash::raw_stack`] with the sanitizers
/// symbolizing ([`symbolized_run`]), others with `RUST_BACKTRACE=1`; then under gdb (when
/// installed) for those that printed no stack and are not a panic or a timeout, in one gdb per
/// worker. Per file: `None` when the run did not happen (cancelled, the harness does not start);
/// `Some(None)` when it did not crash.
fn trace_files(
    files: &[CrashFile],
    which: &[usize],
    results: &[Option<FileResult>],
    options: &RerunOptions,
) -> Vec<(usize, Option<Option<Crash>>)> {
    let raw = |i: usize| {
        results[i]
            .as_ref()
            .and_then(|r| r.crash.as_ref())
            .is_some_and(|c| !c.raw_stack.is_empty())
    };
    let mut traced: BTreeMap<usize, Option<Option<Crash>>> = BTreeMap::new();
    parallel(
        which,
        options.jobs,
        &|i| {
            if raw(i) {
                symbolized_run(&files[i], options)
            } else {
                backtrace_run(&files[i], options)
            }
        },
        &mut |i, t| {
            traced.insert(i, t);
        },
    );
    let silent: Vec<usize> = traced
        .iter()
        .filter(|(_, t)| {
            matches!(t, Some(Some(c)) if c.trace == Trace::None
                && c.signature.kind != CrashKind::Panic
                && c.class != CrashClass::Timeout)
        })
        .map(|(&i, _)| i)
        .collect();
    if silent.is_empty() || cancelled(options) || !debugger::available() {
        return traced.into_iter().collect();
    }
    // One gdb per worker, each with its share of the files.
    let workers = options.jobs.max(1).min(silent.len());
    let chunks: Vec<Vec<usize>> = (0..workers)
        .map(|w| silent.iter().copied().skip(w).step_by(workers).collect())
        .collect();
    let chunk_ids: Vec<usize> = (0..chunks.len()).collect();
    let debug = |c: usize| {
        let paths: Vec<&Path> = chunks[c].iter().map(|&i| files[i].path.as_path()).collect();
        debugger::stacks(&options.harness, &paths, options.timeout, &options.env).unwrap_or_default()
    };
    parallel(&chunk_ids, workers, &debug, &mut |c, stacks| {
        for (&i, frames) in chunks[c].iter().zip(stacks) {
            if let Some(Some(Some(crash))) = traced.get_mut(&i) {
                crash.set_stack(frames, Trace::Debugger);
            }
        }
    });
    traced.into_iter().collect()
}

/// `file` run again with the sanitizers symbolizing (and `RUST_BACKTRACE` as `backtrace`), or
/// `None` when triage was cancelled or the harness did not run.
fn symbolized_rerun(file: &CrashFile, options: &RerunOptions, backtrace: bool) -> Option<crate::oracle::Run> {
    if cancelled(options) {
        return None;
    }
    let run = harness_command(file, options, backtrace, true).ok()?.run();
    if matches!(run.exit, Exit::NotRun(_)) || cancelled(options) {
        return None;
    }
    Some(run)
}

/// A run of `file` as round 1's but with the sanitizers symbolizing: its stack, the one round 1
/// printed without symbols, with functions, files and lines (see [`trace_files`]). When that
/// gives no frames either (no symbolizer), a [`backtrace_run`].
fn symbolized_run(file: &CrashFile, options: &RerunOptions) -> Option<Option<Crash>> {
    let run = symbolized_rerun(file, options, false)?;
    match Crash::from_run(&run) {
        Some(crash) if crash.trace == Trace::None => backtrace_run(file, options),
        crash => Some(crash),
    }
}

/// A run of `file` with `RUST_BACKTRACE=1` (see [`trace_files`]).
fn backtrace_run(file: &CrashFile, options: &RerunOptions) -> Option<Option<Crash>> {
    let run = symbolized_rerun(file, options, true)?;
    let Some(mut crash) = Crash::from_run(&run) else {
        return Some(None);
    };
    if crash.trace == Trace::Output {
        crash.trace = Trace::RustBacktrace;
    }
    Some(Some(crash))
}

/// Round 3 (see [`rerun_all`]).
fn confirm_groups(files: &[CrashFile], unique: &[usize], results: &mut [Option<FileResult>], options: &RerunOptions) {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for &i in unique {
        if let Some(r) = &results[i] {
            if let (Some(c), Status::Reproduced | Status::Flaky) = (&r.crash, r.status) {
                // A timeout is not rerun: each run costs the whole timeout.
                if c.class != CrashClass::Timeout {
                    groups.entry(c.hashes.coarse.clone()).or_default().push(i);
                }
            }
        }
    }
    let smallest = |members: &Vec<usize>| {
        members
            .iter()
            .copied()
            .min_by_key(|&i| (results[i].as_ref().and_then(|r| r.size), files[i].path.clone()))
    };
    let first: Vec<usize> = groups.values().filter_map(smallest).collect();
    confirm_files(files, &first, results, options);
    let flaky = |i: &usize| results[*i].as_ref().is_some_and(|r| r.status == Status::Flaky);
    let all: Vec<usize> = groups
        .values()
        .filter(|members| members.iter().any(flaky))
        .flatten()
        .copied()
        .collect();
    confirm_files(files, &all, results, options);
}

/// Runs each of `which` without a backtrace or symbolizing until it has had `1 + reruns` runs.
fn confirm_files(files: &[CrashFile], which: &[usize], results: &mut [Option<FileResult>], options: &RerunOptions) {
    let wanted = 1 + options.reruns;
    let before: Vec<Option<FileResult>> = results.to_vec();
    let confirm = |i: usize| {
        let mut result = before[i].clone()?;
        let command = harness_command(&files[i], options, false, false).ok()?;
        while result.runs < wanted {
            let run = command.run();
            if matches!(run.exit, Exit::NotRun(_)) || cancelled(options) {
                return None;
            }
            record(&mut result, Crash::from_run(&run).as_ref());
        }
        Some(result)
    };
    parallel(which, options.jobs, &confirm, &mut |i, r| {
        if let Some(r) = r {
            results[i] = Some(r);
        }
    });
}

/// Size and SHA-1 of a file, read once (memory-mapped when large, see [`read_whole`]).
fn hash_file(path: &Path) -> std::io::Result<(u64, String)> {
    let bytes = read_whole(path)?;
    Ok((bytes.len() as u64, crate::files::sha1_hex(&bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triage::Origin;

    fn options(harness: &str) -> RerunOptions {
        RerunOptions {
            harness: PathBuf::from(harness),
            timeout: Duration::from_secs(5),
            jobs: 2,
            reruns: 1,
            env: Vec::new(),
            trace_all: false,
            cancel: None,
        }
    }

    fn file(path: &Path) -> CrashFile {
        CrashFile {
            path: path.to_path_buf(),
            origin: Origin::LibFuzzerCrash,
        }
    }

    #[test]
    fn unsymbolized_runs_keep_the_users_sanitizer_options() {
        let env = vec![
            ("ASAN_OPTIONS".to_string(), "detect_leaks=1".to_string()),
            ("ASAN_OPTIONS".to_string(), "detect_leaks=0:".to_string()),
            ("OTHER".to_string(), "x".to_string()),
        ];
        let vars = unsymbolized(&env);
        let asan = vars.iter().find(|(k, _)| k == "ASAN_OPTIONS").unwrap();
        assert_eq!(asan.1, "detect_leaks=0:symbolize=0", "the last one given, then ours");
        assert!(vars.iter().all(|(_, v)| v.ends_with("symbolize=0")));
        assert_eq!(vars.len(), SANITIZER_OPTIONS.len());
    }

    #[test]
    fn unreadable_file_and_harness_that_cannot_start_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = rerun_file(&file(&dir.path().join("crash-gone")), &options("sh"));
        assert_eq!(missing.status, Status::Error);
        assert!(missing.note.unwrap().starts_with("cannot read it"));
        let present = dir.path().join("crash-1");
        std::fs::write(&present, b"x").unwrap();
        let no_harness = rerun_file(&file(&present), &options("/nonexistent/harness"));
        assert_eq!(no_harness.status, Status::Error);
        assert!(no_harness.note.unwrap().contains("did not run"));
    }

    #[test]
    fn classes_and_hashes_of_real_runs() {
        let dir = tempfile::tempdir().unwrap();
        // A fake harness whose verdict depends on the content of the file it is given.
        let script = dir.path().join("harness");
        std::fs::write(
            &script,
            "#!/bin/sh\ncase \"$(cat \"$1\")\" in\n\
             abort) kill -ABRT $$ ;;\n\
             oom) echo 'memory allocation of 123 bytes failed' >&2; kill -ABRT $$ ;;\n\
             asan) echo 'SUMMARY: AddressSanitizer: heap-buffer-overflow /a.c:1:2 in f' >&2; exit 1 ;;\n\
             exit) exit 3 ;;\n\
             esac\nexit 0\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let files: Vec<CrashFile> = ["abort", "oom", "asan", "exit", "fine", "abort"]
            .iter()
            .enumerate()
            .map(|(i, content)| {
                let p = dir.path().join(format!("crash-{i}"));
                std::fs::write(&p, content).unwrap();
                file(&p)
            })
            .collect();
        let mut seen = 0;
        let results = rerun_all(&files, &options(script.to_str().unwrap()), &mut |_| seen += 1);
        assert_eq!(seen, files.len());
        let classes: Vec<Option<CrashClass>> = results.iter().map(|r| r.crash.as_ref().map(|c| c.class)).collect();
        use CrashClass::*;
        assert_eq!(
            classes,
            [
                Some(Signal),
                Some(OutOfMemory),
                Some(Sanitizer),
                Some(ExitStatus),
                None,
                Some(Signal)
            ]
        );
        assert_eq!(results[4].status, Status::DoesNotReproduce);
        assert_eq!(results[4].runs, 2);
        assert!(results
            .iter()
            .all(|r| r.status != Status::Flaky && r.size.is_some() && r.duration.is_some()));
        let coarse = |i: usize| results[i].crash.as_ref().unwrap().hashes.coarse.clone();
        assert_eq!(coarse(0), coarse(5));
        assert_ne!(coarse(0), coarse(1), "an OOM abort is not a plain abort");
    }
}
