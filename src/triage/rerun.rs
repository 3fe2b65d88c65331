//! Rerunning crash files on the harness in parallel workers and deciding for each: reproduced
//! (which [`Crash`]), flaky, does not reproduce, or could not be tested.
//!
//! Map: [`rerun_all`] (hash first to run identical files once; a crossbeam-channel work queue,
//! `jobs` workers, cancellation) · [`rerun_file`] (run, confirm by reruns) · `hash_file` (memmap2).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::crash::{Crash, CrashClass};
use super::discover::CrashFile;
use crate::oracle::Exit;

/// How to rerun crash files.
#[derive(Clone, Debug)]
pub struct RerunOptions {
    /// The harness binary; it is run as `harness FILE`.
    pub harness: PathBuf,
    /// A run longer than this is killed and counts as a timeout.
    pub timeout: Duration,
    /// Files run at once.
    pub jobs: usize,
    /// Extra runs: to confirm a crash (a clean run or another signature makes the file flaky), and
    /// to retry a file that did not crash (a crash then makes it flaky). Timeouts are not rerun
    /// (too costly).
    pub reruns: u32,
    /// Extra environment for the harness. RUST_BACKTRACE is set: 1 until a run crashed (its
    /// frames make the group), 0 for confirming runs.
    pub env: Vec<(String, String)>,
    /// Set from outside (Ctrl-C): no further runs start, runs in progress are abandoned.
    pub cancel: Option<Arc<AtomicBool>>,
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
    /// Wall-clock time of its first run (the one with a backtrace), if it ran: what a run of it
    /// costs, so that cheap groups are minimized first. Not in the reports: it varies from run
    /// to run.
    #[serde(skip)]
    pub duration: Option<Duration>,
}

/// Reruns every file on `jobs` workers; results come back in the order of `files`. Files with
/// the same content are run once (the first by path) and share the verdict. `progress` is called
/// on this thread after each file. Cancellation (through `options.cancel`) marks the files not
/// yet done as interrupted.
pub fn rerun_all(
    files: &[CrashFile],
    options: &RerunOptions,
    progress: &mut dyn FnMut(&FileResult),
) -> Vec<FileResult> {
    // Hashing first (cheap next to a run) finds duplicates before any run, deterministically.
    let hashes: Vec<std::io::Result<(u64, String)>> = files.iter().map(|f| hash_file(&f.path)).collect();
    let mut first_with: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut copies: Vec<Vec<usize>> = vec![Vec::new(); files.len()];
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<usize>();
    for (i, hash) in hashes.iter().enumerate() {
        match hash {
            Ok((_, sha1)) => match first_with.get(sha1.as_str()) {
                Some(&first) => copies[first].push(i),
                None => {
                    first_with.insert(sha1, i);
                    let _ = job_tx.send(i);
                }
            },
            Err(_) => {
                let _ = job_tx.send(i);
            }
        }
    }
    drop(job_tx);
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<(usize, FileResult)>();
    let mut results: Vec<Option<FileResult>> = vec![None; files.len()];
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1).min(files.len().max(1)) {
            let (job_rx, result_tx, hashes) = (job_rx.clone(), result_tx.clone(), &hashes);
            scope.spawn(move || {
                for i in job_rx {
                    let result = match &hashes[i] {
                        Ok((size, sha1)) => rerun_hashed(&files[i], *size, sha1, options),
                        Err(e) => not_tested(&files[i], Status::Error, Some(format!("cannot read it: {e}"))),
                    };
                    if result_tx.send((i, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(result_tx);
        for (i, result) in result_rx {
            progress(&result);
            for &j in &copies[i] {
                let copy = FileResult {
                    file: files[j].clone(),
                    note: Some(format!("same content as {}: not run again", files[i].path.display())),
                    ..result.clone()
                };
                progress(&copy);
                results[j] = Some(copy);
            }
            results[i] = Some(result);
        }
    });
    results
        .into_iter()
        .zip(files)
        .map(|(r, f)| r.unwrap_or_else(|| not_tested(f, Status::Interrupted, None)))
        .collect()
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

/// Hashes and reruns one file (see [`RerunOptions::reruns`]). Never panics, never fails: problems
/// become [`Status::Error`] with a note.
pub fn rerun_file(file: &CrashFile, options: &RerunOptions) -> FileResult {
    match hash_file(&file.path) {
        Ok((size, sha1)) => rerun_hashed(file, size, &sha1, options),
        Err(e) => not_tested(file, Status::Error, Some(format!("cannot read it: {e}"))),
    }
}

/// Reruns one file whose size and hash are known.
fn rerun_hashed(file: &CrashFile, size: u64, sha1: &str, options: &RerunOptions) -> FileResult {
    if cancelled(options) {
        return not_tested(file, Status::Interrupted, None);
    }
    let argv = [
        options.harness.to_string_lossy().into_owned(),
        file.path.to_string_lossy().into_owned(),
    ];
    let mut command = match crate::oracle::Command::new(argv) {
        Ok(c) => c.timeout(options.timeout),
        Err(e) => return not_tested(file, Status::Error, Some(e.to_string())),
    };
    for (k, v) in &options.env {
        command = command.env(k.clone(), v.clone());
    }
    // Symbolizing a backtrace costs the harness more than the run itself: confirming runs of a
    // crash skip it and compare signatures (kind, location, normalized message) only.
    let (with_trace, without_trace) = (
        command.clone().env("RUST_BACKTRACE", "1"),
        command.env("RUST_BACKTRACE", "0"),
    );
    let mut result = FileResult {
        size: Some(size),
        sha1: Some(sha1.to_string()),
        ..not_tested(file, Status::DoesNotReproduce, None)
    };
    // The harness reads the file itself (no copy, even of a huge file); stdin stays empty.
    let mut first: Option<Crash> = None;
    let mut differs = false;
    for attempt in 0..=options.reruns {
        let command = if first.is_some() { &without_trace } else { &with_trace };
        let run = command.run(b"");
        if cancelled(options) {
            return FileResult {
                status: Status::Interrupted,
                ..result
            };
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
        let crash = Crash::from_run(&run);
        if let Some(c) = &crash {
            result.crashed_runs += 1;
            match &first {
                None => first = Some(c.clone()),
                Some(f) => differs |= !f.signature.matches(&c.signature),
            }
        }
        // A timeout on the first run is not repeated: each costs the whole timeout.
        if attempt == 0 && crash.as_ref().is_some_and(|c| c.class == CrashClass::Timeout) {
            break;
        }
    }
    result.status = match &first {
        None => Status::DoesNotReproduce,
        Some(_) if differs || result.crashed_runs < result.runs => Status::Flaky,
        Some(_) => Status::Reproduced,
    };
    if result.status == Status::Flaky {
        result.note = Some(format!(
            "crashed on {} of {} runs{}",
            result.crashed_runs,
            result.runs,
            if differs { ", not always the same way" } else { "" }
        ));
    }
    result.crash = first;
    result
}

/// Files larger than this are hashed through a memory map instead of being read.
const MAP_ABOVE: u64 = 1 << 20;

/// Size and SHA-1 of a file; large files are memory-mapped rather than read into memory.
fn hash_file(path: &Path) -> std::io::Result<(u64, String)> {
    let mut file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    let mut sha = sha1_smol::Sha1::new();
    if size > MAP_ABOVE {
        // SAFETY: the map is read-only and lives only for this hash; crash files are not written
        // while triage runs (if one is truncated meanwhile, reading may fault: a documented risk
        // of memory maps that a nightly crash folder does not run into).
        let map = unsafe { memmap2::Mmap::map(&file)? };
        sha.update(&map);
    } else {
        let mut bytes = Vec::with_capacity(size as usize);
        file.read_to_end(&mut bytes)?;
        sha.update(&bytes);
    }
    Ok((size, sha.digest().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triage::discover::Origin;

    fn options(harness: &str) -> RerunOptions {
        RerunOptions {
            harness: PathBuf::from(harness),
            timeout: Duration::from_secs(5),
            jobs: 2,
            reruns: 1,
            env: Vec::new(),
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
