//! Continue mode (`HELLFUZZ_CONTINUE=1`): a panic in the target does not end the campaign. The
//! first panic of each signature is saved and minimized as always; later ones are only counted.
//!
//! Map: [`ContinueSettings`] (the switch and the per-signature bound, from the environment) ·
//! [`CrashSummary`] (`.hellfuzz/hellfuzz-crashes.json` in the artifacts folder: one [`SummaryEntry`]
//! per signature, shared by every process of a campaign) · [`Campaign`] (this process's counts; it
//! decides each panic's [`Fate`] and keeps the summary up to date).
//!
//! A panic unwinds out of the target when it is caught, so state the target keeps between inputs
//! (globals, caches, thread-locals) may be left half-updated: continue mode is for targets without
//! such state, like most parsers. `HELLFUZZ_CONTINUE_MAX` bounds the panics caught per signature;
//! past it, the panic ends the process as without continue mode. What cannot be caught (a stack
//! overflow, an abort, running out of memory, a timeout) ends the process as always; libFuzzer's
//! `-fork=N` restarts it, and the summary and the artifacts folder carry what is known across.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use super::crash::{find_record, signature_hash};
use super::env::{CONTINUE_ENV, CONTINUE_MAX_ENV, SUMMARY_ENV};
use super::sidecar::{create_folder_of, legacy_path, sidecar_path};
use crate::files::{rfc3339, write_atomically};
use crate::oracle::{Fate, Signature};

/// The libFuzzer argument that turns continue mode on, as `cargo fuzz run t -- --hellfuzz-continue`
/// passes it (libFuzzer ignores arguments that start with `--`, and `-fork` hands them on).
pub const CONTINUE_FLAG: &str = "--hellfuzz-continue";
/// The summary's file name, after libFuzzer's `-artifact_prefix`, in the artifacts folder's
/// `.hellfuzz/` subfolder (AFL: `./.hellfuzz/`).
pub const SUMMARY_FILE: &str = "hellfuzz-crashes.json";

/// Whether continue mode is on, and its bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContinueSettings {
    /// Panics are caught and fuzzing goes on.
    pub enabled: bool,
    /// At most this many panics of one signature are caught in one process; the next one ends
    /// it as without continue mode. `None`: no bound.
    pub max_per_signature: Option<u64>,
}

impl ContinueSettings {
    /// The settings from the environment and the fuzzer's arguments ([`CONTINUE_FLAG`]).
    pub fn from_env(args: &[String]) -> ContinueSettings {
        ContinueSettings::from_vars(|name| std::env::var(name).ok(), args.iter().any(|a| a == CONTINUE_FLAG))
    }

    /// [`ContinueSettings::from_env`] with the variables looked up by `var` (for tests). Malformed
    /// values are reported on stderr: a switch that is neither 0 nor 1 turns the mode on (the user
    /// asked for something), a bad bound is ignored.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>, flag: bool) -> ContinueSettings {
        let enabled = flag
            || var(CONTINUE_ENV).is_some_and(|v| match v.trim() {
                "0" | "" => false,
                "1" => true,
                other => {
                    eprintln!(
                        "hellfuzz: {CONTINUE_ENV}={other:?} is neither 0 (off) nor 1 (on): continuing past crashes"
                    );
                    true
                }
            });
        let max_per_signature = var(CONTINUE_MAX_ENV).and_then(|v| match v.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                eprintln!("hellfuzz: ignoring {CONTINUE_MAX_ENV}={v:?}: expected a whole number of at least 1; catching without a bound");
                None
            }
        });
        ContinueSettings {
            enabled,
            max_per_signature,
        }
    }
}

/// One signature in the summary.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[non_exhaustive]
pub struct SummaryEntry {
    /// The signature's short hash, as in the `minimized-*.json` records.
    pub signature_hash: String,
    /// The crash: panic location and message.
    pub signature: Signature,
    /// When it was first seen (RFC 3339, UTC).
    pub first_seen: String,
    /// Seconds from the start of the process that first saw it until then.
    pub first_seen_secs: f64,
    /// Executions of that process until then, the crashing one included.
    pub first_seen_execs: u64,
    /// When it was last seen (RFC 3339, UTC), as of the last update.
    pub last_seen: String,
    /// Panics of this signature caught or ending a process, over every process of the campaign.
    pub hits: u64,
    /// The saved original's file name (`crash-<sha1>` after the artifact prefix), when this
    /// campaign saved one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<String>,
    /// The minimized input's file name (`minimized-<sha1>`), when one was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimized: Option<String>,
}

/// The summary file: every signature a campaign's processes met, with hit counts and files.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[non_exhaustive]
pub struct CrashSummary {
    /// The file format's version (1).
    pub version: u32,
    /// One entry per signature, in the order first seen.
    pub signatures: Vec<SummaryEntry>,
}

/// A summary file that cannot be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum SummaryError {
    /// Reading the file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is not a summary.
    Json {
        /// The file.
        path: PathBuf,
        /// What the JSON parser said (line and column).
        source: serde_json::Error,
    },
}

impl fmt::Display for SummaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SummaryError::Io { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            SummaryError::Json { path, source } => write!(
                f,
                "{}: not a hellfuzz crash summary ({source}); move it away and a new one is started",
                path.display()
            ),
        }
    }
}

impl std::error::Error for SummaryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SummaryError::Io { source, .. } => Some(source),
            SummaryError::Json { source, .. } => Some(source),
        }
    }
}

impl CrashSummary {
    /// The summary at `path`; an empty one when there is no file.
    pub fn load(path: &Path) -> Result<CrashSummary, SummaryError> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| SummaryError::Json {
                path: path.to_path_buf(),
                source,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(CrashSummary {
                version: 1,
                signatures: Vec::new(),
            }),
            Err(source) => Err(SummaryError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// The entry for a signature hash.
    pub fn get(&self, hash: &str) -> Option<&SummaryEntry> {
        self.signatures.iter().find(|e| e.signature_hash == hash)
    }
}

/// What this process knows of one signature.
struct Seen {
    signature: Signature,
    /// Panics of it in this process.
    hits: u64,
    /// Of those, not yet added to the summary file.
    unflushed: u64,
    /// Known before this process met it (summary entry or minimized record on disk).
    known_before: bool,
    first_seen: SystemTime,
    first_seen_secs: f64,
    first_seen_execs: u64,
    crash: Option<String>,
    minimized: Option<String>,
    /// Its entry in the file lacks something this process knows (it is new, or a file name).
    entry_stale: bool,
}

/// This process's side of a continue-mode campaign.
pub struct Campaign {
    prefix: String,
    summary: PathBuf,
    settings: ContinueSettings,
    start: Instant,
    execs: AtomicU64,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// By signature hash, in the order first seen.
    seen: Vec<(String, Seen)>,
    index: HashMap<String, usize>,
    /// Exact (location, message) pairs met, with their index in `seen` (at most [`RAW_CACHE`]).
    raw: Vec<(Option<String>, String, usize)>,
    /// The index in `seen` the hook last decided on: [`Campaign::caught`] finishes what it began.
    decided: Option<usize>,
    last_flush: Option<Instant>,
    /// The summary file could not be read: warned once, never overwritten.
    unreadable: bool,
}

/// Hits are written to the summary at most this often (new signatures at once).
const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// Exact panics remembered for the hot path of a known hit.
const RAW_CACHE: usize = 256;

/// What [`Campaign::caught`] did with a caught panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caught {
    /// A signature new to the campaign: its original and minimized input were saved.
    New {
        /// The original's file name, if it was saved.
        crash: Option<String>,
        /// The minimized input's file name, if one was written.
        minimized: Option<String>,
    },
    /// A known signature: counted.
    Known,
}

impl Campaign {
    /// A campaign writing artifacts after `prefix` (libFuzzer's `-artifact_prefix`) and its
    /// summary to `summary` (see [`Campaign::summary_path`]).
    pub fn new(prefix: impl Into<String>, summary: PathBuf, settings: ContinueSettings) -> Campaign {
        Campaign {
            prefix: prefix.into(),
            summary,
            settings,
            start: Instant::now(),
            execs: AtomicU64::new(0),
            state: Mutex::new(State::default()),
        }
    }

    /// The summary file for artifacts after `prefix`: [`SUMMARY_ENV`] if set, else
    /// `hellfuzz-crashes.json` after `prefix` in the `.hellfuzz/` subfolder (`art/x-` →
    /// `art/.hellfuzz/x-hellfuzz-crashes.json`), where cargo-fuzz does not take it for an input.
    pub fn summary_path(prefix: &str) -> PathBuf {
        match std::env::var_os(SUMMARY_ENV) {
            Some(path) if !path.is_empty() => PathBuf::from(path),
            _ => sidecar_path(Path::new(&format!("{prefix}{SUMMARY_FILE}"))),
        }
    }

    /// The summary as the campaign left it: the file, else (a campaign from before the
    /// `.hellfuzz/` subfolder) the one at its old place beside the artifacts, which the next
    /// [`Campaign::flush`] moves into the subfolder.
    fn load_summary(&self) -> Result<CrashSummary, SummaryError> {
        if !self.summary.exists() {
            if let Some(old) = legacy_path(&self.summary).filter(|old| old.is_file()) {
                return CrashSummary::load(&old);
            }
        }
        CrashSummary::load(&self.summary)
    }

    /// The summary file this campaign keeps.
    pub fn summary(&self) -> &Path {
        &self.summary
    }

    /// Counts one execution (for the summary's `first_seen_execs`). Nothing else: no
    /// comparison either (see [`Campaign::decide`]).
    pub fn executed(&self) {
        self.execs.fetch_add(1, Ordering::Relaxed);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Decides, in the panic hook, what becomes of a panic of the fuzzed input: counts it and
    /// answers [`Fate::Unwind`] (caught), or [`Fate::Abort`] past [`ContinueSettings::max_per_signature`].
    /// `report` prints the panic: called for a signature new to the campaign only, so that a
    /// shallow bug hit a million times does not fill the log. `abort_new`: a new signature ends
    /// the process (AFL, which saves crashes itself; known ones are caught so that they do not
    /// flood `crashes/`).
    ///
    /// A known hit must cost little, and few comparisons above all: this code runs inside
    /// libFuzzer's callback, instrumented like the target, and every comparison it makes goes
    /// into libFuzzer's tables of recent comparisons, which guide its mutations. Normalizing and
    /// hashing a message on every hit filled them with our own operands (with comparison-guided
    /// mutation off, `-use_cmp=0`, continue mode had needed fewer executions than fork mode).
    /// So a panic met before with the same location and message is found by two string
    /// comparisons, and the signature hash is computed only for a new pair.
    pub fn decide(&self, signature: &Signature, report: &dyn Fn(), abort_new: bool) -> Fate {
        let mut state = self.lock();
        let cached = state
            .raw
            .iter()
            .find(|(location, message, _)| *message == signature.message && *location == signature.location)
            .map(|&(_, _, at)| at);
        let at = match cached {
            Some(at) => at,
            None => {
                let at = self.index_of(&mut state, signature);
                if state.raw.len() < RAW_CACHE {
                    state
                        .raw
                        .push((signature.location.clone(), signature.message.clone(), at));
                }
                at
            }
        };
        let seen = &mut state.seen[at].1;
        seen.hits += 1;
        seen.unflushed += 1;
        let (hits, new) = (seen.hits, seen.hits == 1 && !seen.known_before);
        state.decided = Some(at);
        if new {
            report();
        }
        if let Some(max) = self.settings.max_per_signature.filter(|&max| hits > max) {
            drop(state);
            report();
            eprintln!("hellfuzz: {signature} was caught {max} times ({CONTINUE_MAX_ENV}={max}): ending the run");
            self.flush(true);
            return Fate::Abort;
        }
        if new && abort_new {
            drop(state);
            self.flush(true);
            return Fate::Abort;
        }
        Fate::Unwind
    }

    /// The index in `seen` of `signature`'s hash, entered (known before or not) if new.
    fn index_of(&self, state: &mut State, signature: &Signature) -> usize {
        let hash = signature_hash(signature);
        if let Some(&at) = state.index.get(&hash) {
            return at;
        }
        let known_before =
            self.load_summary().is_ok_and(|s| s.get(&hash).is_some()) || find_record(&self.prefix, &hash).is_some();
        state.seen.push((
            hash.clone(),
            Seen {
                signature: signature.clone(),
                hits: 0,
                unflushed: 0,
                known_before,
                first_seen: SystemTime::now(),
                first_seen_secs: self.start.elapsed().as_secs_f64(),
                first_seen_execs: self.execs.load(Ordering::Relaxed),
                crash: None,
                minimized: None,
                entry_stale: !known_before,
            },
        ));
        let at = state.seen.len() - 1;
        state.index.insert(hash, at);
        at
    }

    /// After a caught panic has unwound: for a signature new to the campaign, `save` keeps the
    /// original and minimizes it (it returns the two file names); every hit is counted, and the
    /// summary is brought up to date (at once for a new signature, else at most every second).
    pub fn caught(&self, signature: &Signature, save: impl FnOnce() -> (Option<String>, Option<String>)) -> Caught {
        let decided = self.lock().decided.take();
        let at = match decided {
            Some(at) => at,
            None => {
                // The hook did not see this panic (the target replaced it): count it here.
                self.decide(
                    signature,
                    &|| eprintln!("hellfuzz: the target panicked: {signature}"),
                    false,
                );
                self.lock().decided.take().unwrap_or_default()
            }
        };
        let new = {
            let state = self.lock();
            let seen = &state.seen[at].1;
            seen.hits == 1 && !seen.known_before
        };
        if !new {
            self.flush(false);
            return Caught::Known;
        }
        let (crash, minimized) = save();
        {
            let mut state = self.lock();
            let seen = &mut state.seen[at].1;
            seen.crash = crash.clone();
            seen.minimized = minimized.clone();
            seen.entry_stale = true;
        }
        self.flush(true);
        eprintln!(
            "hellfuzz: continuing past {signature} ({CONTINUE_ENV}): later hits are counted in {}",
            self.summary.display()
        );
        Caught::New { crash, minimized }
    }

    /// Counts a crash that ended a process of the campaign (a stack overflow, an abort: what
    /// cannot be caught), with its files: reduce mode, started by the deadly signal's handler,
    /// adds it to the summary. For a signature new to the campaign, the entry's `first_seen_secs`
    /// and `first_seen_execs` are 0 (the process that met it is gone).
    pub fn ended(&self, signature: &Signature, crash: Option<String>, minimized: Option<String>) {
        {
            let mut state = self.lock();
            let at = self.index_of(&mut state, signature);
            let seen = &mut state.seen[at].1;
            seen.hits += 1;
            seen.unflushed += 1;
            seen.crash = crash;
            seen.minimized = minimized;
            seen.entry_stale = true;
        }
        self.flush(true);
    }

    /// Adds this process's news to the summary file: under an exclusive lock on its folder (the
    /// processes of a `-fork` campaign share it), read, merge, written atomically. `force`: now;
    /// else only if a second has passed since the last write.
    pub fn flush(&self, force: bool) {
        let mut state = self.lock();
        if state.unreadable || !state.seen.iter().any(|(_, s)| s.unflushed > 0 || s.entry_stale) {
            return;
        }
        if !force && state.last_flush.is_some_and(|t| t.elapsed() < FLUSH_EVERY) {
            return;
        }
        state.last_flush = Some(Instant::now());
        if let Err(e) = create_folder_of(&self.summary) {
            eprintln!("hellfuzz: cannot create the folder of {}: {e}", self.summary.display());
        }
        let _lock = FolderLock::acquire(&self.summary);
        let mut summary = match self.load_summary() {
            Ok(summary) => summary,
            Err(e) => {
                eprintln!("hellfuzz: {e}; the crash summary is not updated");
                state.unreadable = true;
                return;
            }
        };
        summary.version = 1;
        let now = rfc3339(SystemTime::now());
        for (hash, seen) in state.seen.iter_mut() {
            if seen.unflushed == 0 && !seen.entry_stale {
                continue;
            }
            let at = match summary.signatures.iter().position(|e| &e.signature_hash == hash) {
                Some(at) => at,
                None => {
                    summary.signatures.push(SummaryEntry {
                        signature_hash: hash.clone(),
                        signature: seen.signature.clone(),
                        first_seen: rfc3339(seen.first_seen),
                        first_seen_secs: seen.first_seen_secs,
                        first_seen_execs: seen.first_seen_execs,
                        last_seen: now.clone(),
                        hits: 0,
                        crash: None,
                        minimized: None,
                    });
                    summary.signatures.len() - 1
                }
            };
            let entry = &mut summary.signatures[at];
            entry.hits += seen.unflushed;
            entry.last_seen = now.clone();
            if entry.crash.is_none() {
                entry.crash = seen.crash.clone();
            }
            if entry.minimized.is_none() {
                entry.minimized = seen.minimized.clone();
            }
            seen.unflushed = 0;
            seen.entry_stale = false;
        }
        let json = serde_json::to_vec_pretty(&summary).expect("summaries serialize");
        match write_atomically(&self.summary, &json) {
            Ok(()) => {
                // Its counts are in the new file now; left beside, it would be counted twice.
                if let Some(old) = legacy_path(&self.summary).filter(|old| old.is_file()) {
                    let _ = std::fs::remove_file(old);
                }
            }
            Err(e) => eprintln!("hellfuzz: cannot write {}: {e}", self.summary.display()),
        }
    }

    /// Brings the summary file up to date and prints what this process met, for the end of a run.
    pub fn finish(&self) {
        self.flush(true);
        let state = self.lock();
        if state.seen.is_empty() {
            return;
        }
        let execs = self.execs.load(Ordering::Relaxed);
        let caught: u64 = state.seen.iter().map(|(_, s)| s.hits).sum();
        eprintln!(
            "hellfuzz: continue mode: {} signature(s), {caught} panic(s) in {execs} executions, {:.0} s (summary: {}):",
            state.seen.len(),
            self.start.elapsed().as_secs_f64(),
            self.summary.display()
        );
        for (hash, seen) in &state.seen {
            let files = match (&seen.crash, &seen.minimized) {
                (_, _) if seen.known_before => "known before this run".to_string(),
                (Some(c), Some(m)) => format!("{c}, {m}"),
                (Some(c), None) => c.clone(),
                (None, _) => "not saved here".to_string(),
            };
            eprintln!(
                "hellfuzz:   {hash}  {:>9} hit(s)  first at {:.1} s, execution {}  {}  ({files})",
                seen.hits, seen.first_seen_secs, seen.first_seen_execs, seen.signature
            );
        }
    }

    /// Executions counted so far.
    pub fn executions(&self) -> u64 {
        self.execs.load(Ordering::Relaxed)
    }
}

/// An exclusive `flock` on the folder holding a file, released when dropped; nothing when the
/// folder cannot be opened or locked (the write is still atomic, a concurrent update may be lost).
struct FolderLock {
    #[cfg(unix)]
    _folder: Option<std::fs::File>,
}

impl FolderLock {
    fn acquire(file: &Path) -> FolderLock {
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            let dir = file
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let folder = std::fs::File::open(dir).ok().filter(|f| {
                // SAFETY: flock on a descriptor we own; released by close when the file drops.
                unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) == 0 }
            });
            FolderLock { _folder: folder }
        }
        #[cfg(not(unix))]
        {
            let _ = file;
            FolderLock {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::catch_panic;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn settings_from_variables_and_flag() {
        assert!(!ContinueSettings::from_vars(vars(&[]), false).enabled);
        assert!(ContinueSettings::from_vars(vars(&[]), true).enabled);
        assert!(ContinueSettings::from_vars(vars(&[(CONTINUE_ENV, "1")]), false).enabled);
        assert!(!ContinueSettings::from_vars(vars(&[(CONTINUE_ENV, "0")]), false).enabled);
        assert!(ContinueSettings::from_vars(vars(&[(CONTINUE_ENV, "yes")]), false).enabled);
        let s = ContinueSettings::from_vars(vars(&[(CONTINUE_ENV, "1"), (CONTINUE_MAX_ENV, "3")]), false);
        assert_eq!(s.max_per_signature, Some(3));
        for bad in ["0", "-1", "x", "1.5"] {
            let s = ContinueSettings::from_vars(vars(&[(CONTINUE_MAX_ENV, bad)]), false);
            assert_eq!(s.max_per_signature, None, "{bad}");
        }
    }

    fn panic_at(data: &[u8]) {
        if data.starts_with(b"a") {
            panic!("first bug, {} bytes", data.len());
        }
        if data.starts_with(b"b") {
            panic!("second bug");
        }
    }

    fn signature(data: &[u8]) -> Signature {
        catch_panic(|| panic_at(data)).unwrap_err()
    }

    #[test]
    fn new_signatures_are_saved_once_and_hits_counted_across_processes() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = format!("{}/", dir.path().display());
        let summary = dir.path().join(SUMMARY_FILE);
        let settings = ContinueSettings {
            enabled: true,
            max_per_signature: None,
        };
        let campaign = Campaign::new(prefix.clone(), summary.clone(), settings);
        let mut saves = 0;
        let mut hit = |c: &Campaign, data: &[u8]| {
            c.executed();
            let sig = signature(data);
            assert_eq!(c.decide(&sig, &|| {}, false), Fate::Unwind);
            c.caught(&sig, || {
                saves += 1;
                (Some(format!("crash-{}", data.len())), Some("minimized-x".to_string()))
            })
        };
        assert!(matches!(hit(&campaign, b"a1"), Caught::New { .. }));
        // The same signature (the number in the message varies): counted, not saved.
        assert_eq!(hit(&campaign, b"a22"), Caught::Known);
        assert_eq!(hit(&campaign, b"a333"), Caught::Known);
        assert!(matches!(hit(&campaign, b"b"), Caught::New { .. }));
        campaign.finish();
        let written = CrashSummary::load(&summary).unwrap();
        assert_eq!(written.signatures.len(), 2);
        let first = &written.signatures[0];
        assert_eq!(first.hits, 3);
        assert_eq!(first.first_seen_execs, 1);
        assert_eq!(first.crash.as_deref(), Some("crash-2"));
        assert_eq!(first.minimized.as_deref(), Some("minimized-x"));
        assert_eq!(written.signatures[1].hits, 1);
        assert_eq!(written.signatures[1].first_seen_execs, 4);

        // A second process of the same campaign: known signatures are counted into the same
        // entries and not saved again.
        let second = Campaign::new(prefix, summary.clone(), settings);
        assert_eq!(hit(&second, b"b"), Caught::Known);
        second.finish();
        assert_eq!(saves, 2);
        let written = CrashSummary::load(&summary).unwrap();
        assert_eq!(written.signatures.len(), 2);
        assert_eq!(written.signatures[1].hits, 2);
        assert_eq!(written.signatures[1].crash.as_deref(), Some("crash-1"));
        // Nothing but the summary was written: no temporary files are left.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [SUMMARY_FILE]);
    }

    #[test]
    fn the_bound_ends_the_run_and_new_crashes_end_it_under_afl() {
        let dir = tempfile::tempdir().unwrap();
        let summary = dir.path().join(SUMMARY_FILE);
        let settings = ContinueSettings {
            enabled: true,
            max_per_signature: Some(2),
        };
        let campaign = Campaign::new(format!("{}/", dir.path().display()), summary.clone(), settings);
        let sig = signature(b"a");
        let reported = std::cell::Cell::new(0);
        let report = || reported.set(reported.get() + 1);
        assert_eq!(campaign.decide(&sig, &report, false), Fate::Unwind);
        assert_eq!(campaign.decide(&sig, &report, false), Fate::Unwind);
        assert_eq!(reported.get(), 1, "only the first panic of a signature is printed");
        assert_eq!(campaign.decide(&sig, &report, false), Fate::Abort);
        assert_eq!(CrashSummary::load(&summary).unwrap().signatures[0].hits, 3);

        // AFL: a new signature aborts (AFL saves it), and is in the summary first, so that the
        // next process catches it as known.
        let afl = Campaign::new("./", summary.clone(), ContinueSettings::default());
        let second = signature(b"b");
        assert_eq!(afl.decide(&second, &|| {}, true), Fate::Abort);
        let next = Campaign::new("./", summary.clone(), ContinueSettings::default());
        assert_eq!(next.decide(&second, &|| {}, true), Fate::Unwind);
    }

    #[test]
    fn the_summary_lives_in_the_sidecar_and_an_old_one_is_carried_over() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = format!("{}/x-", dir.path().display());
        let summary = Campaign::summary_path(&prefix);
        assert_eq!(summary, dir.path().join(".hellfuzz").join(format!("x-{SUMMARY_FILE}")));
        let settings = ContinueSettings {
            enabled: true,
            max_per_signature: None,
        };
        // A campaign from before the subfolder left its summary beside the artifacts.
        let old = dir.path().join(format!("x-{SUMMARY_FILE}"));
        let first = Campaign::new(prefix.clone(), old.clone(), settings);
        let sig = signature(b"a");
        assert_eq!(first.decide(&sig, &|| {}, false), Fate::Unwind);
        assert!(matches!(
            first.caught(&sig, || (Some("x-crash-1".into()), None)),
            Caught::New { .. }
        ));
        first.finish();
        assert!(old.is_file());

        // Today's campaign knows its signature, counts into it, and moves the file.
        let next = Campaign::new(prefix, summary.clone(), settings);
        assert_eq!(next.decide(&sig, &|| {}, false), Fate::Unwind);
        assert_eq!(
            next.caught(&sig, || panic!("a known signature is not saved")),
            Caught::Known
        );
        next.finish();
        let moved = CrashSummary::load(&summary).unwrap();
        assert_eq!(moved.signatures.len(), 1);
        assert_eq!(moved.signatures[0].hits, 2);
        assert_eq!(moved.signatures[0].crash.as_deref(), Some("x-crash-1"));
        assert!(!old.exists(), "counted once, in the subfolder");
        let top: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(top, [".hellfuzz"]);
    }

    #[test]
    fn an_unreadable_summary_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let summary = dir.path().join(SUMMARY_FILE);
        std::fs::write(&summary, "{not a summary").unwrap();
        let err = CrashSummary::load(&summary).unwrap_err();
        assert!(err.to_string().contains("move it away"), "{err}");
        let campaign = Campaign::new("./", summary.clone(), ContinueSettings::default());
        let sig = signature(b"a");
        assert_eq!(campaign.decide(&sig, &|| {}, false), Fate::Unwind);
        campaign.caught(&sig, || (None, None));
        campaign.finish();
        assert_eq!(std::fs::read_to_string(&summary).unwrap(), "{not a summary");
    }
}
