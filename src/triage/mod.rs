//! Triage of crash folders: find crash files, rerun them, group them by crash signature, minimize
//! one file per group, and report what is new, known and fixed since the last run.
//!
//! Map: `discover` (libFuzzer/AFL layouts) · `rerun` (parallel reruns: frames asked for per crash
//! site, flakiness per group) · `crash` (what a run shows, its class) · `stack` (symbolized
//! frames, crash line and source) · `debugger` (gdb runs for crashes that print no stack) ·
//! `severity` (CASR-like classes) · `group` (grouping, [`minimize_group`], group folders) · `join`
//! (`--join-stacks`: groups with nearly the same stack joined) · `history` (NEW/KNOWN/FIXED
//! across nights) · `report` (markdown, JSON, SARIF). [`triage`] runs them in that order.
//!
//! Crash files are only ever read. Everything is written into [`TriageOptions::out`]: `report.md`,
//! `report.json`, `report.sarif`, `history.json` and `groups/<id>/`.

mod crash;
pub mod debugger;
mod discover;
mod error;
mod group;
mod history;
pub mod join;
pub mod report;
mod rerun;
mod severity;
mod stack;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

pub use crash::{Crash, CrashClass, Trace};
pub use discover::{classify_name, continue_hits, discover, CrashFile, Discovery, Origin};
pub use error::TriageError;
pub use group::{
    group_results, minimization_order, minimize_group, minimize_group_with_progress, reproduces, write_group, Group,
    Label, MinimizeOptions, Minimized,
};
pub use history::{Entry, FixedGroup, History};
pub use rerun::{rerun_all, rerun_file, FileResult, RerunOptions, Status, TRACE_SAMPLE};
pub use severity::{Severity, SeverityClass, UnknownSeverity};
pub use stack::{gdb_stack, output_stack, raw_stack, user_frames, CrashLine, Frame, SourceLine, CONTEXT_LINES};

use crate::grammar::Grammar;
use crate::reduce::Budget;

/// How to triage.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TriageOptions {
    /// The harness binary, run as `harness FILE`.
    pub harness: PathBuf,
    /// Grammar of the inputs: GTR* minimization (ddmin without).
    pub grammar: Option<Grammar>,
    /// Parallel workers (reruns) and parallel candidates (minimization).
    pub jobs: usize,
    /// The output folder (reports, history, group folders).
    pub out: PathBuf,
    /// Per-run timeout of the harness.
    pub timeout: Duration,
    /// Extra runs per file to tell flaky files (see [`RerunOptions::reruns`]).
    pub reruns: u32,
    /// Minimize a file per group.
    pub minimize: bool,
    /// Limit of one group's minimization in time.
    pub minimize_time: Option<Duration>,
    /// Groups whose smallest file is larger than this are not minimized.
    pub max_minimize_size: u64,
    /// Extra environment for the harness.
    pub env: Vec<(String, String)>,
    /// Rerun every crash file without a printed stack for its frames (see
    /// [`RerunOptions::trace_all`]).
    pub trace_all: bool,
    /// Join groups whose stacks are closer than this stack distance (CASR's, from 0 to 1; see
    /// [`join::join_groups`]); `None`: groups are their coarse hashes.
    pub join_stacks: Option<f64>,
    /// Set from outside (Ctrl-C): stop starting work, write a partial report.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl TriageOptions {
    /// Defaults for a harness: 1 job, `./triage`, 10 s timeout, 1 rerun, minimization on with
    /// 120 s per group and files up to 1 MiB.
    pub fn new(harness: impl Into<PathBuf>) -> TriageOptions {
        TriageOptions {
            harness: harness.into(),
            grammar: None,
            jobs: 1,
            out: PathBuf::from("triage"),
            timeout: Duration::from_secs(10),
            reruns: 1,
            minimize: true,
            minimize_time: Some(Duration::from_secs(120)),
            max_minimize_size: 1 << 20,
            env: Vec::new(),
            trace_all: false,
            join_stacks: None,
            cancel: None,
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// Where a triage run stands, for a progress display. Every event comes on the thread that
/// called [`triage`].
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// Another triage run holds the out folder's lock: this one waits for it to finish.
    WaitingForLock {
        /// The lock file.
        lock: &'a Path,
    },
    /// Crash files found.
    Found {
        /// How many.
        files: usize,
    },
    /// A file was rerun.
    Rerun {
        /// Files done so far.
        done: usize,
        /// Files to rerun in all (as in [`Progress::Found`]).
        total: usize,
        /// Groups found so far.
        groups: usize,
    },
    /// A group's minimization starts. Groups are minimized cheapest first (see
    /// [`group::minimization_order`]), not in the order of [`Triage::groups`].
    Minimizing {
        /// Groups done before this one (0 for the first).
        index: usize,
        /// Groups tonight.
        total: usize,
        /// Its id.
        id: &'a str,
        /// Its kind.
        class: CrashClass,
        /// The size of the file to minimize, in bytes.
        size: u64,
    },
    /// A group's minimization goes on: sent every quarter of a second while it runs, so that a
    /// display can show its elapsed time even while one run of the harness hangs.
    MinimizeStep {
        /// Groups done before this one.
        index: usize,
        /// Groups tonight.
        total: usize,
        /// Its id.
        id: &'a str,
        /// Its kind.
        class: CrashClass,
        /// Since its [`Progress::Minimizing`].
        elapsed: Duration,
        /// Candidates tested so far (0 while the harness reduces in its own process).
        tests: u64,
        /// The smallest size that still crashes the same way, so far.
        best: usize,
    },
    /// A group's minimization ended (or was skipped).
    MinimizeDone {
        /// Groups done before this one.
        index: usize,
        /// Groups tonight.
        total: usize,
        /// Its id.
        id: &'a str,
        /// Its kind.
        class: CrashClass,
        /// Since its [`Progress::Minimizing`].
        elapsed: Duration,
        /// The minimized size, if a minimized file was made or kept.
        minimized: Option<usize>,
        /// Otherwise why not, in a few words ([`Group::not_minimized`]).
        not_minimized: Option<&'a str>,
    },
}

/// Counts for the summary line.
#[derive(Clone, Debug, Default, Serialize)]
#[non_exhaustive]
pub struct Counts {
    /// Crash files found.
    pub files: usize,
    /// Files that crashed on every run.
    pub reproduced: usize,
    /// Files that crashed on some runs only.
    pub flaky: usize,
    /// Files that never crashed.
    pub does_not_reproduce: usize,
    /// Files that could not be tested.
    pub errors: usize,
    /// Files not tested because triage was interrupted.
    pub interrupted: usize,
    /// Groups tonight.
    pub groups: usize,
    /// NEW groups.
    pub new: usize,
    /// KNOWN groups.
    pub known: usize,
    /// Groups that stopped crashing tonight.
    pub fixed: usize,
    /// Known groups not in tonight's folders whose kept reproducer still crashes.
    pub unseen: usize,
}

/// The result of a triage run: what `report.json` holds.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Triage {
    /// When the run happened (RFC 3339, UTC).
    pub generated_at: String,
    /// The harness.
    #[serde(serialize_with = "crate::files::path_lossy")]
    pub harness: PathBuf,
    /// The folders searched.
    #[serde(serialize_with = "crate::files::paths_lossy")]
    pub roots: Vec<PathBuf>,
    /// True when interrupted (Ctrl-C). Files not reached are [`Status::Interrupted`] and then no
    /// group is marked fixed; groups not reached are not minimized.
    pub interrupted: bool,
    /// Summary counts.
    pub counts: Counts,
    /// Tonight's groups, by id.
    pub groups: Vec<Group>,
    /// Groups of the history that stopped crashing tonight.
    pub fixed: Vec<FixedGroup>,
    /// Groups of the history not in tonight's folders whose kept reproducer still crashes: still
    /// there, so not fixed.
    pub unseen: Vec<FixedGroup>,
    /// Every crash file and its verdict, by path.
    pub files: Vec<FileResult>,
    /// Folders or entries that could not be read.
    pub problems: Vec<String>,
    /// Folders given that hold no crash file: mistyped, or not the fuzzer's output folder?
    #[serde(serialize_with = "crate::files::paths_lossy")]
    pub empty_roots: Vec<PathBuf>,
}

/// Triages the crash files below `roots`, taking `now` as the time of the run (history and
/// reports; a parameter so that runs are reproducible). Writes the reports, the history and a
/// folder per group into `options.out` and returns what the reports say.
///
/// Errors (before anything is written) when the harness is missing, the folders cannot be read
/// or the history is unreadable. Everything later (unreadable files, a harness that crashes,
/// hangs or does not start on some file) is reported, not an error; so is a folder without
/// crash files ([`Triage::empty_roots`]). Groups are minimized cheapest first, hangs last (see
/// [`group::minimization_order`]). Interrupted through `options.cancel`, it still writes a
/// partial report and keeps the history consistent.
pub fn triage(
    roots: &[PathBuf],
    options: &TriageOptions,
    now: SystemTime,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Triage, TriageError> {
    check_harness(&options.harness)?;
    check_out(roots, &options.out)?;
    // One run at a time per out folder: two would each save their own history, and the groups
    // of one would vanish from it (they would be NEW again every night, never FIXED).
    let _lock = lock_out(&options.out, progress, &|| options.cancelled())?;
    let history_path = options.out.join("history.json");
    let mut history = History::load(&history_path)?;
    let found = discover(roots, Some(&options.out))?;
    let total_files = found.files.len();
    progress(Progress::Found { files: total_files });
    let empty_roots: Vec<PathBuf> = roots
        .iter()
        .zip(&found.per_root)
        .filter(|(_, &n)| n == 0)
        .map(|(root, _)| root.clone())
        .collect();
    let rerun_options = RerunOptions {
        harness: options.harness.clone(),
        timeout: options.timeout,
        jobs: options.jobs,
        reruns: options.reruns,
        env: options.env.clone(),
        trace_all: options.trace_all,
        cancel: options.cancel.clone(),
    };
    let mut done = 0;
    let mut seen = std::collections::BTreeSet::new();
    let results = rerun::rerun_all(&found.files, &rerun_options, &mut |r| {
        done += 1;
        if let (Some(c), Status::Reproduced | Status::Flaky) = (&r.crash, r.status) {
            seen.insert(c.hashes.coarse.clone());
        }
        progress(Progress::Rerun {
            done,
            total: total_files,
            groups: seen.len(),
        });
    });
    if !results.is_empty() && results.iter().all(|r| r.status == Status::Error) {
        let note = results[0].note.clone().unwrap_or_default();
        return Err(TriageError::NothingTestable { first: note });
    }
    let mut groups = group::group_results(&results);
    let hits = discover::continue_hits(&found.files);
    if !hits.is_empty() {
        for g in &mut groups {
            let counted: Vec<u64> = g.files.iter().filter_map(|f| hits.get(f).copied()).collect();
            if !counted.is_empty() {
                g.hits = Some(counted.iter().sum());
            }
        }
    }
    if let Some(threshold) = options.join_stacks {
        groups = join::join_groups(groups, threshold);
    }
    let now = crate::files::rfc3339(now);
    let interrupted = options.cancelled();
    // A group missing from tonight's folders is fixed only if its kept reproducer (from the
    // group folder of an earlier run) no longer crashes: folders that were cleaned or not
    // searched tonight do not make bugs look fixed. An interruption kills the check's run: that
    // must not read as "fixed" either.
    let mut still_crashes = |coarse: &str, entry: &history::Entry| {
        let folder = options.out.join("groups").join(&entry.id);
        options.cancelled()
            || ["minimized", "original"].iter().any(|name| {
                std::fs::read(folder.join(name)).is_ok_and(|bytes| {
                    let settings = MinimizeOptions {
                        timeout: options.timeout,
                        jobs: 1,
                        budget: Budget::default(),
                        env: options.env.clone(),
                        reduce_mode: false,
                        trace: Trace::None,
                    };
                    group::reproduces(&options.harness, &bytes, coarse, &settings) || options.cancelled()
                })
            })
    };
    let (fixed, unseen) = history.update(&mut groups, &now, !interrupted, &mut still_crashes);
    let mut t = Triage {
        generated_at: now,
        harness: options.harness.clone(),
        roots: roots.to_vec(),
        interrupted,
        counts: Counts::default(),
        groups,
        fixed,
        unseen,
        files: results,
        problems: found.problems,
        empty_roots,
    };
    t.counts = count(&t);
    let write_err = |source| TriageError::Write {
        out: options.out.clone(),
        source,
    };
    std::fs::create_dir_all(options.out.join("groups")).map_err(write_err)?;
    // Reports first without minimized inputs: an interruption during minimization loses nothing.
    report::write_reports(&options.out, &t).map_err(write_err)?;
    // Cheapest first: a hang (every candidate costs the whole timeout) used to take its whole
    // budget while quick groups waited behind it, and an interrupted run had minimized none.
    let free = |g: &Group| costs_nothing(g, options);
    let order = group::minimization_order(&t.groups, &free);
    let total = order.len();
    for (index, &i) in order.iter().enumerate() {
        let (id, class) = (t.groups[i].id.clone(), t.groups[i].class);
        progress(Progress::Minimizing {
            index,
            total,
            id: &id,
            class,
            size: t.groups[i].smallest_size,
        });
        let started = Instant::now();
        let minimized = if options.cancelled() {
            t.groups[i].not_minimized = Some("interrupted".to_string());
            None
        } else {
            minimize_watched(&mut t.groups[i], options, &mut |elapsed, tests, best| {
                progress(Progress::MinimizeStep {
                    index,
                    total,
                    id: &id,
                    class,
                    elapsed,
                    tests,
                    best,
                })
            })
        };
        let g = &t.groups[i];
        progress(Progress::MinimizeDone {
            index,
            total,
            id: &id,
            class,
            elapsed: started.elapsed(),
            minimized: g.minimized.as_ref().map(|m| m.size),
            not_minimized: g.not_minimized.as_deref(),
        });
        let dir = options.out.join("groups").join(&g.id);
        group::write_group(&dir, g, minimized.as_deref()).map_err(write_err)?;
    }
    t.interrupted = options.cancelled();
    t.counts = count(&t);
    report::write_reports(&options.out, &t).map_err(write_err)?;
    history.save(&history_path).map_err(write_err)?;
    Ok(t)
}

/// Refuses an out folder that is one of the crash folders, lies inside one, or holds one: its
/// reports and group folders would be mixed with the crash files (and discovery, which skips the
/// out folder, found nothing when it held them).
fn check_out(roots: &[PathBuf], out: &Path) -> Result<(), TriageError> {
    let out_real = resolved(out);
    for root in roots {
        let Ok(r) = root.canonicalize() else { continue };
        if r.starts_with(&out_real) || out_real.starts_with(&r) {
            return Err(TriageError::OutInCrashFolder {
                out: out.to_path_buf(),
                root: root.clone(),
            });
        }
    }
    Ok(())
}

/// `path` made absolute with links resolved, also when it does not exist yet: its deepest
/// existing ancestor resolved, the rest appended.
fn resolved(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = at.canonicalize() {
            return missing.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                at = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Takes the out folder's lock (`<out>/.lock`, an advisory file lock the system releases when the
/// process ends), waiting for another run that holds it.
fn lock_out(
    out: &Path,
    progress: &mut dyn FnMut(Progress<'_>),
    cancelled: &dyn Fn() -> bool,
) -> Result<std::fs::File, TriageError> {
    let write_err = |source| TriageError::Write {
        out: out.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(out).map_err(write_err)?;
    let path = out.join(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(write_err)?;
    // Polled rather than blocking, so that an interrupt still ends a waiting run.
    let mut told = false;
    loop {
        match try_lock(&file) {
            Ok(true) => return Ok(file),
            Ok(false) => {
                if !told {
                    progress(Progress::WaitingForLock { lock: &path });
                    told = true;
                }
                if cancelled() {
                    return Err(TriageError::InterruptedWaiting { path });
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Err(source) => return Err(TriageError::Lock { path, source }),
        }
    }
}

/// An exclusive advisory lock on `file` (flock(2); `File::try_lock` needs Rust 1.89, above our
/// MSRV): `Ok(false)` if another process holds it. Without flock (not Unix): always taken.
fn try_lock(file: &std::fs::File) -> std::io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a file descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::WouldBlock {
            return Ok(false);
        }
        Err(e)
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        Ok(true)
    }
}

/// How often [`Progress::MinimizeStep`] is sent while a group is minimized.
const STEP_EVERY: Duration = Duration::from_millis(250);

/// [`minimize`] on a worker thread, calling `step(elapsed, tests, best)` on this thread every
/// [`STEP_EVERY`] until it ends: the caller's progress callback needs neither be `Send` nor wait
/// for the next candidate (which may hang for the whole timeout) to hear how long it has run.
fn minimize_watched(
    g: &mut Group,
    options: &TriageOptions,
    step: &mut dyn FnMut(Duration, u64, usize),
) -> Option<Vec<u8>> {
    use std::sync::atomic::{AtomicU64, AtomicUsize};
    let started = Instant::now();
    let tests = AtomicU64::new(0);
    let best = AtomicUsize::new(usize::try_from(g.smallest_size).unwrap_or(usize::MAX));
    let (tests_seen, best_seen) = (&tests, &best);
    let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(0);
    std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            // Dropped when the worker ends, however it ends: that wakes the loop below.
            let _done = done_tx;
            minimize(g, options, &|p: &crate::reduce::Progress| {
                tests_seen.store(p.tests, Ordering::Relaxed);
                best_seen.store(p.best, Ordering::Relaxed);
            })
        });
        while let Err(crossbeam_channel::RecvTimeoutError::Timeout) = done_rx.recv_timeout(STEP_EVERY) {
            step(
                started.elapsed(),
                tests.load(Ordering::Relaxed),
                best.load(Ordering::Relaxed),
            );
        }
        // A panic in the worker is a bug of ours: carried on as it would have been without
        // the thread.
        worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Whether [`minimize`] will run nothing for `g`: no minimized file of an earlier run to check
/// (one run), and no reduction to make.
fn costs_nothing(g: &Group, options: &TriageOptions) -> bool {
    let reduces = options.minimize && g.flaky_files < g.files.len() && g.smallest_size <= options.max_minimize_size;
    !reduces && !options.out.join("groups").join(&g.id).join("minimized").is_file()
}

/// Minimizes a group's smallest file when it can (not too large, not only flaky); records the
/// outcome in the group (the minimized file, or why there is none) and returns the minimized
/// bytes. A minimized file left in the group's folder by an earlier run is kept when it still
/// shows the group's crash (and checked, not redone, even with minimization off): nightly runs
/// only minimize new groups. `progress` hears of every candidate tested.
fn minimize(
    g: &mut Group,
    options: &TriageOptions,
    progress: &(dyn Fn(&crate::reduce::Progress) + Sync),
) -> Option<Vec<u8>> {
    let settings = MinimizeOptions {
        timeout: options.timeout,
        jobs: options.jobs,
        budget: Budget {
            max_tests: None,
            max_time: options.minimize_time,
            cancel: options.cancel.clone(),
        },
        env: options.env.clone(),
        reduce_mode: g.class != CrashClass::Timeout,
        trace: g.trace,
    };
    let path = options.out.join("groups").join(&g.id).join("minimized");
    if let Ok(earlier) = std::fs::read(&path) {
        if earlier.len() as u64 <= g.smallest_size
            && group::reproduces(&options.harness, &earlier, &g.coarse, &settings)
        {
            g.minimized = Some(Minimized {
                size: earlier.len(),
                path,
                confirmed: true,
                stats: None,
            });
            return Some(earlier);
        }
        g.notes
            .push("the minimized file of an earlier run no longer shows this crash".to_string());
    }
    // Each way out without a minimized file says why: in full in the notes (group.json), in a
    // few words for the report's table.
    let skip = |g: &mut Group, short: String, note: Option<String>| {
        g.notes.extend(note);
        g.not_minimized = Some(short);
        None
    };
    if !options.minimize {
        return skip(g, "minimization off".to_string(), None);
    }
    if g.flaky_files == g.files.len() {
        let note = "not minimized: every file of the group is flaky".to_string();
        return skip(g, "all files flaky".to_string(), Some(note));
    }
    if g.smallest_size > options.max_minimize_size {
        let note = format!(
            "not minimized: the smallest file has {} bytes, more than the limit of {}",
            g.smallest_size, options.max_minimize_size
        );
        return skip(
            g,
            format!("over the {} limit", size_text(options.max_minimize_size)),
            Some(note),
        );
    }
    let input = match crate::files::read_whole(&g.smallest) {
        Ok(b) => b,
        Err(e) => {
            let note = format!("not minimized: cannot read {}: {e}", g.smallest.display());
            return skip(g, "file unreadable".to_string(), Some(note));
        }
    };
    match group::minimize_group_with_progress(
        &options.harness,
        &input,
        options.grammar.as_ref(),
        &g.coarse,
        &settings,
        progress,
    ) {
        Ok(r) => {
            g.notes.extend(r.stats.notes.iter().cloned());
            g.minimized = Some(Minimized {
                size: r.input.len(),
                path,
                confirmed: r.confirmed,
                stats: Some(r.stats.clone()),
            });
            Some(r.input)
        }
        Err(e) if options.cancelled() => skip(g, "interrupted".to_string(), Some(format!("not minimized: {e}"))),
        Err(e) => skip(
            g,
            "failed: see group.json".to_string(),
            Some(format!("not minimized: {e}")),
        ),
    }
}

/// A size for a person: bytes, or KiB/MiB when it is a whole number of them.
fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

fn count(t: &Triage) -> Counts {
    let files = |s: Status| t.files.iter().filter(|f| f.status == s).count();
    let labels = |l: Label| t.groups.iter().filter(|g| g.label == l).count();
    Counts {
        files: t.files.len(),
        reproduced: files(Status::Reproduced),
        flaky: files(Status::Flaky),
        does_not_reproduce: files(Status::DoesNotReproduce),
        errors: files(Status::Error),
        interrupted: files(Status::Interrupted),
        groups: t.groups.len(),
        new: labels(Label::New),
        known: labels(Label::Known),
        fixed: t.fixed.len(),
        unseen: t.unseen.len(),
    }
}

/// The harness must be an existing, executable file: otherwise every run would fail the same way.
fn check_harness(harness: &Path) -> Result<(), TriageError> {
    let meta = std::fs::metadata(harness).map_err(|source| TriageError::HarnessMissing {
        path: harness.to_path_buf(),
        source,
    })?;
    if !meta.is_file() {
        return Err(TriageError::HarnessNotAFile {
            path: harness.to_path_buf(),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(TriageError::HarnessNotExecutable {
                path: harness.to_path_buf(),
            });
        }
    }
    Ok(())
}
