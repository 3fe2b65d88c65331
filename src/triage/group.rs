//! Grouping rerun crashes by coarse hash, minimizing each group's smallest file, and writing a
//! folder per group (original, minimized input, output log, JSON record).
//!
//! Map: [`group_results`] (files → [`Group`]s, sorted by id) · [`minimize_group`] (the one place
//! that reduces: a subprocess oracle that must see the group's crash again) · [`write_group`].

use super::error::TriageError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::crash::{Crash, CrashClass, Trace};
use super::debugger;
use super::rerun::{FileResult, Status};
use super::severity::Severity;
use super::stack::{CrashLine, Frame};
use crate::grammar::Grammar;
use crate::oracle::{Classify, Oracle, Outcome, Signature, Subprocess};
use crate::reduce::{Algorithm, Budget, ReduceOptions, Reduction, ReductionStats};

/// Whether a group is new tonight, known from earlier nights, or (for history entries not seen
/// tonight) fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Label {
    /// Not in the history, or back after having been fixed.
    New,
    /// In the history and still crashing.
    Known,
    /// In the history, no longer crashing.
    Fixed,
}

/// The minimized reproducer of a group.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Minimized {
    /// Its size in bytes.
    pub size: usize,
    /// Where it was written (in the group's folder).
    #[serde(serialize_with = "crate::files::path_lossy")]
    pub path: PathBuf,
    /// Whether it crashed the same way again when rerun at the end.
    pub confirmed: bool,
    /// What the reducer ran and what it cost (`budget_exhausted`: the budget ran out or triage
    /// was interrupted, so it is smaller than the original but maybe not minimal). `None`: the
    /// minimized file of an earlier run was kept (it still reproduces), nothing ran.
    #[serde(flatten)]
    pub stats: Option<ReductionStats>,
}

/// The crash files that show one bug (one coarse hash).
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Group {
    /// A stable short id: the first 12 hex digits of the coarse hash.
    pub id: String,
    /// The coarse hash (kind, location, message, top frames).
    pub coarse: String,
    /// The report's kind.
    pub class: CrashClass,
    /// Signature of the representative (the smallest reproducing file).
    pub signature: Signature,
    /// Its filtered backtrace frames (functions), innermost first.
    pub frames: Vec<String>,
    /// The same frames with their files and lines (the symbolized stack in the user's code).
    pub stack: Vec<Frame>,
    /// The crash line: the first frame in the user's code, with ±5 lines of its source when the
    /// file is readable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash_line: Option<CrashLine>,
    /// How bad it is.
    pub severity: Severity,
    /// Where its frames came from (a minimization asks candidates for frames the same way).
    pub trace: Trace,
    /// Every file in the group, sorted.
    #[serde(serialize_with = "crate::files::paths_lossy")]
    pub files: Vec<PathBuf>,
    /// How many of them are flaky.
    pub flaky_files: usize,
    /// Hits counted by continue mode: the `hellfuzz-crashes.json` entries (beside the files) whose
    /// saved original is among the group's files. `None` without such a summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hits: Option<u64>,
    /// Distinct exact hashes (paths to the bug) among the files.
    pub exact_hashes: usize,
    /// The smallest file (preferring files that always reproduce), and its size.
    #[serde(serialize_with = "crate::files::path_lossy")]
    pub smallest: PathBuf,
    /// Its size in bytes.
    pub smallest_size: u64,
    /// New, known or fixed (set from the history).
    pub label: Label,
    /// When the group was first seen (RFC 3339, UTC; from the history).
    pub first_seen: String,
    /// The minimized reproducer, once made.
    pub minimized: Option<Minimized>,
    /// Why no minimized file was made, in a few words for the report's table (the full reason
    /// is in [`Group::notes`]); `None` when minimized or not tried yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_minimized: Option<String>,
    /// Things to know (why it was not minimized, reducer notes, groups joined into it).
    pub notes: Vec<String>,
    /// The coarse hashes of the groups joined into this one by `--join-stacks` (see
    /// [`super::join::join_groups`]); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub joined: Vec<String>,
    /// The representative's stderr.
    #[serde(skip)]
    pub log: String,
    /// Wall-clock time of the representative's first run: what one run of the minimization
    /// costs. Not serialized: it varies from run to run.
    #[serde(skip)]
    pub run_time: Option<Duration>,
}

/// Groups the crashing (reproduced and flaky) files by coarse hash. Groups come sorted by id,
/// files by path: the same results always give the same groups.
pub fn group_results(results: &[FileResult]) -> Vec<Group> {
    let mut by_hash: BTreeMap<&str, Vec<(&FileResult, &Crash)>> = BTreeMap::new();
    for r in results {
        if let (Some(crash), Status::Reproduced | Status::Flaky) = (&r.crash, r.status) {
            by_hash
                .entry(crash.hashes.coarse.as_str())
                .or_default()
                .push((r, crash));
        }
    }
    let mut groups: Vec<Group> = by_hash
        .into_iter()
        .map(|(coarse, members)| {
            // The representative: reproducing before flaky, then smallest, then first by path.
            let (rep, crash) = *members
                .iter()
                .min_by_key(|(r, _)| (r.status != Status::Reproduced, r.size.unwrap_or(u64::MAX), &r.file.path))
                .expect("a group has members");
            let mut files: Vec<PathBuf> = members.iter().map(|(r, _)| r.file.path.clone()).collect();
            files.sort();
            let mut exact: Vec<&str> = members.iter().map(|(_, c)| c.hashes.exact.as_str()).collect();
            exact.sort_unstable();
            exact.dedup();
            Group {
                id: coarse[..12].to_string(),
                coarse: coarse.to_string(),
                class: crash.class,
                signature: crash.signature.clone(),
                frames: crash.frames.clone(),
                stack: crash.stack.clone(),
                crash_line: CrashLine::of(&crash.stack),
                severity: crash.severity.clone(),
                trace: crash.trace,
                files,
                hits: None,
                flaky_files: members.iter().filter(|(r, _)| r.status == Status::Flaky).count(),
                exact_hashes: exact.len(),
                smallest: rep.file.path.clone(),
                smallest_size: rep.size.unwrap_or(0),
                label: Label::New,
                first_seen: String::new(),
                minimized: None,
                not_minimized: None,
                notes: Vec::new(),
                joined: Vec::new(),
                log: crash.log.clone(),
                run_time: rep.duration,
            }
        })
        .collect();
    groups.sort_by(|a, b| a.id.cmp(&b.id));
    groups
}

/// The order in which to minimize `groups` (indices into it), cheapest first, so that a hang
/// does not hold up quick groups behind it (under a deadline, an interruption or a person
/// waiting): groups for which `free` says that nothing will be run come first, then
/// non-timeout groups before timeouts (every candidate that still hangs costs the whole
/// timeout), then by the representative's measured run time in steps of a factor of 4 (coarse,
/// so that jitter between two runs of one harness rarely reorders groups), then smallest file
/// first, then by id. The order depends on measured times; what each group gets does not (each
/// has its own budget).
pub fn minimization_order(groups: &[Group], free: &dyn Fn(&Group) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_cached_key(|&i| {
        let g = &groups[i];
        (
            !free(g),
            g.class == CrashClass::Timeout,
            g.run_time.map_or(u32::MAX, time_step),
            g.smallest_size,
            g.id.clone(),
        )
    });
    order
}

/// 0 below 10 ms (process start-up noise), then one step per factor of 4: 10–40 ms is 1,
/// 40–160 ms is 2, and so on.
fn time_step(time: Duration) -> u32 {
    let mut step = 0;
    let mut limit = Duration::from_millis(10);
    while time >= limit && step < 32 {
        step += 1;
        limit = limit.saturating_mul(4);
    }
    step
}

/// How to minimize a group's representative.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct MinimizeOptions {
    /// Per-run timeout of the harness.
    pub timeout: Duration,
    /// Candidates tested at once.
    pub jobs: usize,
    /// Limits of one group's reduction (the cancel flag included).
    pub budget: Budget,
    /// Extra environment for the harness.
    pub env: Vec<(String, String)>,
    /// Let a harness built with hellfuzz reduce in its own process first (see
    /// [`minimize_group`]). Off for hangs: reduce mode runs the input in-process, where a hang
    /// cannot be stopped, and would wait for its whole time limit (the budget plus 30 s) before
    /// the subprocess oracle even starts.
    pub reduce_mode: bool,
    /// How the group's frames were had: a candidate that crashes the same way without printing
    /// a stack is asked for its frames the same way ([`Trace::None`]: a cheap run only).
    pub trace: Trace,
}

impl Default for MinimizeOptions {
    /// The defaults of [`TriageOptions::new`](super::TriageOptions::new): a 10 s timeout, one
    /// job, no budget, reduce mode tried first, no frames asked for.
    fn default() -> MinimizeOptions {
        MinimizeOptions {
            timeout: Duration::from_secs(10),
            jobs: 1,
            budget: Budget::default(),
            env: Vec::new(),
            reduce_mode: true,
            trace: Trace::None,
        }
    }
}

/// Minimizes `input` (a crash file of the group with coarse hash `coarse`): GTR* with a grammar,
/// ddmin otherwise, on a subprocess oracle that runs `harness FILE` and counts a candidate as
/// failing only if it crashes with the same coarse hash (kind, location, message and top frames:
/// two bugs sharing a panicking helper do not pass for each other).
///
/// Without `grammar`, a harness built with `hellfuzz::fuzz_target!` first reduces in its own
/// process (reduce mode, with the grammar it names): far faster, but its oracle compares panic
/// location and message only, so its result is kept only if it still shows the group's coarse
/// hash; otherwise, for crashes that kill the process, and with [`MinimizeOptions::reduce_mode`]
/// off, the subprocess oracle runs.
pub fn minimize_group(
    harness: &Path,
    input: &[u8],
    grammar: Option<&Grammar>,
    coarse: &str,
    options: &MinimizeOptions,
) -> Result<Reduction, TriageError> {
    minimize_group_with_progress(harness, input, grammar, coarse, options, &|_| {})
}

/// [`minimize_group`], calling `progress` after every candidate the subprocess oracle tests (from
/// the reducer's worker threads; a reduction in the harness's own process reports nothing).
pub fn minimize_group_with_progress(
    harness: &Path,
    input: &[u8],
    grammar: Option<&Grammar>,
    coarse: &str,
    options: &MinimizeOptions,
    progress: &(dyn Fn(&crate::reduce::Progress) + Sync),
) -> Result<Reduction, TriageError> {
    if grammar.is_none() && options.reduce_mode {
        if let Some(r) = minimize_in_harness(harness, input, coarse, options) {
            return Ok(r);
        }
    }
    // Candidates run without a backtrace: most do not crash, or crash otherwise, and a
    // symbolized backtrace costs more than the run. Frames are asked for only when the crash
    // looks the same without them.
    let observer = Observer::new(harness, options).map_err(TriageError::Oracle)?;
    let command = observer
        .plain
        .clone()
        .classify(Classify::SameCrash)
        .calibrate(input)
        .map_err(TriageError::Oracle)?;
    let oracle = SameGroup {
        command,
        observer,
        trace: options.trace,
        coarse: coarse.to_string(),
    };
    let reduce_options = ReduceOptions {
        algorithm: if grammar.is_some() {
            Algorithm::GtrStar
        } else {
            Algorithm::Ddmin
        },
        byte_pass: true,
        passes: crate::reduce::Pass::DEFAULT.to_vec(),
        jobs: options.jobs,
        budget: options.budget.clone(),
        corpus: None,
    };
    crate::reduce::reduce_with_progress(input, grammar, &oracle, &reduce_options, progress).map_err(TriageError::Reduce)
}

/// The harness's reduce mode on `input`, if it has one and its result keeps the coarse hash.
fn minimize_in_harness(harness: &Path, input: &[u8], coarse: &str, options: &MinimizeOptions) -> Option<Reduction> {
    let dir = tempfile::tempdir().ok()?;
    let crash = dir.path().join("crash");
    std::fs::write(&crash, input).ok()?;
    let out = dir.path().join("minimized");
    let reduce_options = ReduceOptions {
        jobs: options.jobs,
        budget: options.budget.clone(),
        ..ReduceOptions::default()
    };
    let started = std::time::Instant::now();
    let crate::harness::InHarness::Reduced(done) =
        crate::harness::reduce_in_harness(harness, &crash, &out, &reduce_options).ok()?
    else {
        return None;
    };
    if !reproduces(harness, &done.input, coarse, options) {
        return None;
    }
    let mut notes = done.stats.notes;
    notes.push("reduced in the harness process (reduce mode)".to_string());
    Some(Reduction {
        original_size: input.len(),
        input: done.input,
        confirmed: true,
        stats: ReductionStats {
            tests: done.stats.oracle_calls,
            time: started.elapsed(),
            notes,
            ..done.stats
        },
    })
}

/// Whether `input` (e.g. a minimized file kept from an earlier night) still crashes the harness
/// with the coarse hash `coarse`. Frames are asked for as far as it takes: a run without a
/// backtrace, then with one, then under gdb.
pub fn reproduces(harness: &Path, input: &[u8], coarse: &str, options: &MinimizeOptions) -> bool {
    let Ok(observer) = Observer::new(harness, options) else {
        return false;
    };
    let Some(mut crash) = Crash::from_run(&observer.plain.run(input)) else {
        return false;
    };
    for trace in [Trace::RustBacktrace, Trace::Debugger] {
        if crash.hashes.coarse == coarse || crash.trace != Trace::None {
            break;
        }
        observer.deepen(&mut crash, input, trace);
    }
    crash.hashes.coarse == coarse
}

/// Runs of the harness on a candidate: without a backtrace, with one, under gdb.
struct Observer {
    plain: Subprocess,
    traced: Subprocess,
    gdb: Option<Subprocess>,
}

impl Observer {
    fn new(harness: &Path, options: &MinimizeOptions) -> Result<Observer, crate::oracle::OracleError> {
        let mut command =
            Subprocess::new([harness.to_string_lossy().into_owned(), "@@".to_string()])?.timeout(options.timeout);
        for (k, v) in &options.env {
            command = command.env(k.clone(), v.clone());
        }
        Ok(Observer {
            plain: command.clone().env("RUST_BACKTRACE", "0"),
            traced: command.env("RUST_BACKTRACE", "1"),
            gdb: debugger::command(harness, "@@", options.timeout, &options.env),
        })
    }

    /// Gives `crash` (of a run of `input` that printed no stack) the frames `trace` gets.
    fn deepen(&self, crash: &mut Crash, input: &[u8], trace: Trace) {
        match trace {
            Trace::RustBacktrace => {
                if let Some(traced) = Crash::from_run(&self.traced.run(input)) {
                    if traced.trace != Trace::None && traced.key() == crash.key() {
                        crash.take_frames_of(&traced);
                    }
                }
            }
            Trace::Debugger if crash.signature.kind != crate::oracle::CrashKind::Panic => {
                if let Some(gdb) = &self.gdb {
                    crash.set_stack(debugger::stack(gdb, input), Trace::Debugger);
                }
            }
            _ => {}
        }
    }
}

/// Fail only for the same crash *and* the same coarse hash; another crash is Unresolved.
struct SameGroup {
    /// Without a backtrace, calibrated on the original.
    command: Subprocess,
    observer: Observer,
    trace: Trace,
    coarse: String,
}

impl Oracle for SameGroup {
    fn test(&self, input: &[u8]) -> Outcome {
        let run = self.command.run(input);
        match run.outcome {
            Outcome::Fail => match Crash::from_run(&run) {
                Some(mut c) => {
                    if c.trace == Trace::None {
                        self.observer.deepen(&mut c, input, self.trace);
                    }
                    if c.hashes.coarse == self.coarse {
                        Outcome::Fail
                    } else {
                        Outcome::Unresolved
                    }
                }
                None => Outcome::Unresolved,
            },
            other => other,
        }
    }
}

/// Writes `dir/` for a group: `original` (a copy of the smallest file), `minimized` (if made),
/// `output.log` (the representative's stderr) and `group.json`; every file atomically.
pub fn write_group(dir: &Path, group: &Group, minimized: Option<&[u8]>) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    crate::files::copy_atomically(&group.smallest, &dir.join("original"))?;
    if let Some(bytes) = minimized {
        crate::files::write_atomically(&dir.join("minimized"), bytes)?;
    }
    crate::files::write_atomically(&dir.join("output.log"), group.log.as_bytes())?;
    let json = serde_json::to_string_pretty(group).map_err(std::io::Error::other)?;
    crate::files::write_atomically(&dir.join("group.json"), format!("{json}\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(id: &str, class: CrashClass, run_ms: u64, size: u64) -> Group {
        Group {
            id: id.to_string(),
            coarse: id.to_string(),
            class,
            signature: Signature::panic(None, "x"),
            frames: Vec::new(),
            stack: Vec::new(),
            crash_line: None,
            severity: Severity::of(class, &Signature::panic(None, "x"), ""),
            trace: Trace::None,
            files: vec![PathBuf::from(id)],
            hits: None,
            flaky_files: 0,
            exact_hashes: 1,
            smallest: PathBuf::from(id),
            smallest_size: size,
            label: Label::New,
            first_seen: String::new(),
            minimized: None,
            not_minimized: None,
            notes: Vec::new(),
            joined: Vec::new(),
            log: String::new(),
            run_time: Some(Duration::from_millis(run_ms)),
        }
    }

    #[test]
    fn time_steps_are_factors_of_four_from_10_ms() {
        let step = |ms| time_step(Duration::from_millis(ms));
        assert_eq!(
            [step(0), step(9), step(10), step(39), step(40), step(159), step(160)],
            [0, 0, 1, 1, 2, 2, 3]
        );
        assert_eq!(time_step(Duration::MAX), 32);
    }

    #[test]
    fn cheapest_groups_first_timeouts_last() {
        let groups = [
            group("0hang", CrashClass::Timeout, 3000, 5),
            group("1slow", CrashClass::Panic, 900, 5),
            group("2big", CrashClass::Panic, 12, 500),
            group("3small", CrashClass::Panic, 15, 50),
            group("4jitter", CrashClass::Panic, 25, 50),
            group("5skip", CrashClass::Timeout, 3000, 1 << 30),
            group("6slowhang", CrashClass::Timeout, 2000, 1),
        ];
        let free = |g: &Group| g.id == "5skip";
        let ids: Vec<&str> = minimization_order(&groups, &free)
            .into_iter()
            .map(|i| groups[i].id.as_str())
            .collect();
        // 2big, 3small and 4jitter (12, 15, 25 ms) take one step (10–40 ms): by size, then id.
        assert_eq!(
            ids,
            ["5skip", "3small", "4jitter", "2big", "1slow", "6slowhang", "0hang"]
        );
    }
}
