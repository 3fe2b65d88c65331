//! Reduce mode: a harness binary started with `HELLFUZZ_REDUCE=<crash file>` reduces that file
//! in-process instead of fuzzing, writes the minimized input and its record, and exits.
//!
//! Map: [`REDUCE_ENV`]/[`REDUCE_OUT_ENV`] · `run_if_requested` (called first by every wrapper) ·
//! the stdout protocol the client reads (`hellfuzz-harness:` then `hellfuzz-result:` lines).
//!
//! Exit status: 0 minimized and written; [`EXIT_NO_PANIC`] the file does not panic in-process (it
//! passes, or crashes in a way that cannot be caught); [`EXIT_ERROR`] an unreadable file or an
//! unwritable output.

use std::path::{Path, PathBuf};

use super::continuing::{Campaign, ContinueSettings};
use super::corpus::RunFn;
use super::crash::{find_record, make_record, minimize, stack_limit, write_artifacts, ArtifactRecord, Reproduced};
use super::target::{Settings, Target};
use crate::oracle::{catch_panic, crash_frames, Outcome, Signature, Subprocess};
use crate::reduce::deepen::{deepen, Deepened};

use super::env::{REDUCE_ENV, REDUCE_OUT_ENV, REDUCE_SUBPROCESS_ENV};
/// Per-candidate time limit of [`REDUCE_SUBPROCESS_ENV`] reductions.
const PROCESS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Exit status: the file did not panic when run in-process.
pub const EXIT_NO_PANIC: i32 = 3;
/// Exit status: the crash file could not be read or the output not written.
pub const EXIT_ERROR: i32 = 2;
/// Exit status: a crash that kills the process, of a signature the campaign has minimized
/// before (a record for it is in the artifacts folder): not reduced again.
pub const EXIT_KNOWN: i32 = 4;
/// A minimized stack overflow is made this many times as deep (see [`deepen`]): it overflowed
/// the fuzz target's stack at the smallest depth the reducer found, and a build with smaller
/// frames (no instrumentation, no debug assertions) needs more. Kept so only if it then
/// overflows a stack [`STACK_MARGIN`] times as large (the frames below the recursion, which
/// do not grow, take some of it).
const DEEPEN_FACTOR: usize = 3;
/// See [`DEEPEN_FACTOR`]: the deepened input overflows where frames are this many times smaller.
const STACK_MARGIN: u64 = 2;
/// The longest a run that prints the crash's symbolized frames may take.
const FRAMES_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
/// Functions met this often among a crash's top [`RECURSION_WINDOW`] frames recurse.
const RECURSION_HITS: usize = 3;
/// See [`RECURSION_HITS`].
const RECURSION_WINDOW: usize = 64;
/// Prefix of the first stdout line: `{"grammar": ...}`, printed before the file is run, so a
/// client learns the grammar even when the run kills the process.
pub const INFO_LINE: &str = "hellfuzz-harness: ";
/// Prefix of the last stdout line: the [`ArtifactRecord`] as JSON.
pub const RESULT_LINE: &str = "hellfuzz-result: ";

/// Without a time limit in the environment, reduce mode may take longer than reduce-on-crash:
/// no fuzzer is waiting for it.
const DEFAULT_TIME_SECS: u64 = 300;

/// Runs reduce mode and exits the process if [`REDUCE_ENV`] is set; returns otherwise. The
/// target's `init` has run before (see [`Target::run_init`]).
pub fn run_if_requested(target: &Target, run: RunFn) {
    let Some(crash) = std::env::var_os(REDUCE_ENV) else {
        return;
    };
    target.run_init();
    let out = std::env::var_os(REDUCE_OUT_ENV).map(PathBuf::from);
    let info = serde_json::json!({ "grammar": target.source().name() });
    println!("{INFO_LINE}{info}");
    let result = if std::env::var_os(REDUCE_SUBPROCESS_ENV).is_some() {
        // The candidates' processes must fuzz-run their file, not reduce it again.
        std::env::remove_var(REDUCE_ENV);
        std::env::remove_var(REDUCE_OUT_ENV);
        std::env::remove_var(REDUCE_SUBPROCESS_ENV);
        reduce_file_in_processes(target, Path::new(&crash), out)
    } else {
        reduce_file(target, Path::new(&crash), out, run)
    };
    let status = match result {
        Ok(record) => {
            println!(
                "{RESULT_LINE}{}",
                serde_json::to_string(&record).expect("records serialize")
            );
            0
        }
        Err((status, message)) => {
            eprintln!("hellfuzz: {message}");
            status
        }
    };
    std::process::exit(status);
}

/// Reduces a crash that kills the process (a stack overflow): one process of this binary per
/// candidate, keeping the way it dies; writes `minimized-<sha1>` beside it and its record (see
/// `outputs`). Started by the deadly-signal handler (no `out`), a crash whose signature was
/// minimized before is only counted ([`EXIT_KNOWN`]); in continue mode it goes into the
/// campaign's summary either way. A stack overflow is reduced on a larger stack, or deepened
/// after reduction (see [`DEEPEN_FACTOR`]), and what is written is checked in a fresh process on
/// the stack the crash had; the record says what was checked.
fn reduce_file_in_processes(
    target: &Target,
    crash: &Path,
    out: Option<PathBuf>,
) -> Result<ArtifactRecord, (i32, String)> {
    let input =
        crate::files::read_whole(crash).map_err(|e| (EXIT_ERROR, format!("cannot read {}: {e}", crash.display())))?;
    let binary = std::env::current_exe().map_err(|e| (EXIT_ERROR, format!("cannot find this executable: {e}")))?;
    let options = options_from_env();
    let dir = crash.parent().unwrap_or(Path::new("."));
    // The frames of the crash name it: the functions that recurse (a stack overflow stops
    // anywhere in the cycle), else the innermost.
    let frames = frames_of(&binary, &input);
    let recursion = recursion(&frames);
    let located = |signature: Signature| Signature {
        location: signature.location.clone().or_else(|| match recursion.as_slice() {
            [] => frames.first().cloned(),
            cycle => Some(format!("recursion of {}", cycle.join(", "))),
        }),
        ..signature
    };
    let campaign = out.is_none().then(|| campaign_of(crash)).flatten();
    let staging = out
        .clone()
        .unwrap_or_else(|| dir.join(format!("minimized-partial-{}", name(crash))));
    let alike = super::client::candidate_command(&binary, PROCESS_TIMEOUT)
        .and_then(|c| c.calibrate(&input))
        .map_err(|e| {
            (
                EXIT_ERROR,
                format!("{} does not crash when run alone: {e}", crash.display()),
            )
        })?;
    let signature = located(
        alike
            .original_signature()
            .cloned()
            .unwrap_or_else(|| Signature::panic(None, "the harness process died")),
    );
    let hash = super::crash::signature_hash(&signature);
    if let Some((prefix, _)) = &campaign {
        if let Some(record) = find_record(prefix, &hash) {
            // The record is `minimized-<sha1>.json`.
            let minimized = record.file_stem().map(|n| n.to_string_lossy().into_owned());
            count_in_summary(campaign.as_ref(), &signature, crash, minimized);
            return Err((
                EXIT_KNOWN,
                format!(
                    "{signature} was minimized before ({}): {} is kept as it is",
                    record.display(),
                    crash.display()
                ),
            ));
        }
    }
    eprintln!(
        "hellfuzz: reducing {} ({} bytes, {signature}) with one process per candidate",
        crash.display(),
        input.len()
    );
    // A stack overflow deep enough to overflow a larger stack too is reduced on that stack: the
    // result then overflows where frames are smaller (a build without the fuzzer's
    // instrumentation) as well. Else it is reduced on the crash's stack and deepened after.
    let overflow = !recursion.is_empty();
    let larger = stack_limit()
        .filter(|_| overflow)
        .map(|stack| stack.saturating_mul(STACK_MARGIN))
        .filter(|&larger| crashes_alike_on(&alike, &input, larger));
    let reduce = || super::client::reduce_calibrated(&alike, &input, &staging, target.grammar(), &options, Vec::new());
    let reduction = match larger {
        Some(larger) => with_stack_limit(larger, reduce).unwrap_or_else(reduce),
        None => reduce(),
    }
    .map_err(|e| (EXIT_ERROR, e.to_string()))?;
    let (minimized, reproduced) = check_alone(&alike, target, reduction.input.clone(), overflow, larger);
    let (out, json_path) = outputs(out, dir, &minimized);
    let record = ArtifactRecord {
        signature_hash: hash,
        signature: signature.clone(),
        original: name(crash),
        original_size: reduction.original_size,
        minimized: name(&out),
        minimized_size: minimized.len(),
        grammar: target.source().name().map(str::to_string),
        stats: reduction.stats.clone(),
        minimized_value: target.show_input(&minimized),
        reproduced: Some(reproduced),
    };
    write_artifacts(&out, &json_path, &minimized, &record).map_err(|e| (EXIT_ERROR, e))?;
    if staging != out {
        let _ = std::fs::remove_file(&staging);
    }
    count_in_summary(campaign.as_ref(), &signature, crash, Some(name(&out)));
    eprintln!(
        "hellfuzz: minimized {} to {} bytes in {} runs: {} ({})",
        name(crash),
        minimized.len(),
        reduction.stats.oracle_calls,
        out.display(),
        record.reproduced.as_ref().map_or(String::new(), |r| r.checked.clone())
    );
    Ok(record)
}

/// The filtered frames (see [`crash_frames`]) of `input`'s crash, from one run with the
/// deadly-signal handler's backtrace on (empty if it is off: `HELLFUZZ_BACKTRACE=0`).
fn frames_of(binary: &Path, input: &[u8]) -> Vec<String> {
    let Ok(command) = Subprocess::new([binary.to_string_lossy().into_owned(), "@@".to_string()]) else {
        return Vec::new();
    };
    let run = command
        .timeout(FRAMES_TIMEOUT)
        .env("RUST_BACKTRACE", "0")
        .env(super::env::MINIMIZE_ENV, "0")
        .run(input);
    crash_frames(&run.stderr)
}

/// The functions that recur among the top frames (a recursion), sorted; empty if none does.
fn recursion(frames: &[String]) -> Vec<String> {
    let top = &frames[..frames.len().min(RECURSION_WINDOW)];
    let mut names: Vec<String> = top
        .iter()
        .filter(|f| top.iter().filter(|g| g == f).count() >= RECURSION_HITS)
        .cloned()
        .collect();
    names.sort();
    names.dedup();
    names
}

/// For a crash file the deadly-signal handler saved (`<prefix>crash-<sha1>`): its campaign's
/// artifact prefix, and continue mode's campaign if that is on (the handler passes it on).
fn campaign_of(crash: &Path) -> Option<(String, Option<Campaign>)> {
    let path = crash.to_str()?;
    let prefix = path[..path.rfind("crash-")?].to_string();
    let settings = ContinueSettings::from_env(&[]);
    let campaign = settings
        .enabled
        .then(|| Campaign::new(prefix.clone(), Campaign::summary_path(&prefix), settings));
    Some((prefix, campaign))
}

/// Counts a crash that ended its process in continue mode's summary, with its files.
fn count_in_summary(
    campaign: Option<&(String, Option<Campaign>)>,
    signature: &Signature,
    crash: &Path,
    minimized: Option<String>,
) {
    if let Some((_, Some(campaign))) = campaign {
        campaign.ended(signature, Some(name(crash)), minimized);
    }
}

/// The minimized input to write, checked alone in a fresh process (on the stack the crash had),
/// and what was checked. A stack overflow (`overflow`) not reduced on a larger stack
/// (`reduced_on`) is deepened first, and kept deepened if
/// that also crashes alike on a stack [`STACK_MARGIN`] times as large: it then overflows where
/// frames are smaller too.
fn check_alone(
    alike: &Subprocess,
    target: &Target,
    minimized: Vec<u8>,
    overflow: bool,
    reduced_on: Option<u64>,
) -> (Vec<u8>, Reproduced) {
    let stack = stack_limit();
    let on_stack = format!("a {} main stack", stack.map_or("unlimited".to_string(), mib));
    let mut checked = Vec::new();
    let mut deeper = None;
    if let Some(larger) = reduced_on {
        checked.push(format!(
            "reduced on a {} stack ({STACK_MARGIN} times the crash's)",
            mib(larger)
        ));
    } else if overflow {
        let ways = deepen(&minimized, target.grammar(), DEEPEN_FACTOR);
        match stack {
            None => checked.push("not deepened: the stack has no limit".to_string()),
            Some(_) if ways.is_empty() => checked.push("not deepened: nothing in it nests or repeats".to_string()),
            Some(stack) => {
                let larger = stack.saturating_mul(STACK_MARGIN);
                for (input, how) in ways {
                    let how = describe(&how);
                    if crashes_alike_on(alike, &input, larger) {
                        checked.push(format!(
                            "deepened from {} bytes ({how}), it crashes alike on a {} stack",
                            minimized.len(),
                            mib(larger)
                        ));
                        deeper = Some((input, how));
                        break;
                    }
                    checked.push(format!(
                        "not deepened as {how} ({} bytes): that does not crash alike on a {} stack",
                        input.len(),
                        mib(larger)
                    ));
                }
            }
        }
    }
    if let Some((input, how)) = deeper {
        if alike.run(&input).outcome == Outcome::Fail {
            checked.push(format!("crashes alike in a fresh process with {on_stack}"));
            let reproduced = Reproduced {
                checked: checked.join("; "),
                alone: true,
                stack_bytes: stack,
                deepened_from: Some(minimized.len()),
                deepened: Some(how),
            };
            return (input, reproduced);
        }
        // Never worse than the reducer's result, which crashed alike in a process of its own.
        checked.push(format!(
            "the deepened input does not crash alike with {on_stack}: the reducer's result is kept"
        ));
    }
    let alone = alike.run(&minimized).outcome == Outcome::Fail;
    checked.push(format!(
        "{} in a fresh process with {on_stack}",
        if alone { "crashes alike" } else { "DOES NOT crash alike" }
    ));
    let reproduced = Reproduced {
        checked: checked.join("; "),
        alone,
        stack_bytes: stack,
        deepened_from: None,
        deepened: None,
    };
    (minimized, reproduced)
}

/// How an input was deepened, for the record.
fn describe(how: &Deepened) -> String {
    match how {
        Deepened::Nesting { symbol, depth } => {
            format!("the nesting of `{symbol}`, {depth} deep, made {DEEPEN_FACTOR} times as deep")
        }
        Deepened::Unit { unit, times } => format!(
            "each of the {times} × {:?} made {DEEPEN_FACTOR}",
            String::from_utf8_lossy(unit)
        ),
    }
}

/// `bytes` in MiB for messages.
fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes as f64 / f64::from(1 << 20))
}

/// Whether `input` crashes as `alike`'s original did, run with a main stack of `bytes` (false if
/// the limit cannot be set).
fn crashes_alike_on(alike: &Subprocess, input: &[u8], bytes: u64) -> bool {
    with_stack_limit(bytes, || alike.run(input).outcome == Outcome::Fail) == Some(true)
}

/// `f()` with this process's stack limit set to `bytes` for the processes it starts (the limit
/// is inherited), restored after; `None` if the limit cannot be set (above the hard limit).
fn with_stack_limit<R>(bytes: u64, f: impl FnOnce() -> R) -> Option<R> {
    #[cfg(unix)]
    {
        // SAFETY: getrlimit/setrlimit with structs we own.
        let mut old: libc::rlimit = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut old) } != 0 {
            return None;
        }
        let new = libc::rlimit {
            rlim_cur: bytes as libc::rlim_t,
            rlim_max: old.rlim_max,
        };
        if old.rlim_max != libc::RLIM_INFINITY && new.rlim_cur > old.rlim_max {
            return None;
        }
        if unsafe { libc::setrlimit(libc::RLIMIT_STACK, &new) } != 0 {
            return None;
        }
        let result = f();
        unsafe { libc::setrlimit(libc::RLIMIT_STACK, &old) };
        Some(result)
    }
    #[cfg(not(unix))]
    {
        let _ = (bytes, f);
        None
    }
}

/// A file's name for records and messages (empty for a path without one).
fn name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Where the minimized `input` and its record go: the path [`REDUCE_OUT_ENV`] names and that
/// path plus `.json`, as the caller chose; without it `minimized-<sha1>` in `dir`, the crash's
/// (artifacts) folder, with its record in `dir/.hellfuzz/` as during a campaign.
fn outputs(out: Option<PathBuf>, dir: &Path, input: &[u8]) -> (PathBuf, PathBuf) {
    match out {
        Some(out) => {
            let json = super::sidecar::beside(&out, ".json");
            (out, json)
        }
        None => {
            let out = dir.join(format!("minimized-{}", crate::files::sha1_hex(input)));
            let json = super::sidecar::record_path(&out);
            (out, json)
        }
    }
}

/// The reduction options from the environment, with reduce mode's longer default time.
fn options_from_env() -> crate::reduce::ReduceOptions {
    options_from_vars(|name| std::env::var(name).ok())
}

/// [`options_from_env`] with the variables looked up by `var` (a budget of 0 candidates is
/// ignored with a warning by [`Settings::from_vars`]).
fn options_from_vars(var: impl Fn(&str) -> Option<String>) -> crate::reduce::ReduceOptions {
    let mut settings = Settings::from_vars(None, &var);
    if var(super::env::REDUCE_TIME_ENV).is_none() {
        settings.options.budget.max_time = Some(std::time::Duration::from_secs(DEFAULT_TIME_SECS));
    }
    settings.options
}

fn reduce_file(
    target: &Target,
    crash: &Path,
    out: Option<PathBuf>,
    run: RunFn,
) -> Result<ArtifactRecord, (i32, String)> {
    let input =
        crate::files::read_whole(crash).map_err(|e| (EXIT_ERROR, format!("cannot read {}: {e}", crash.display())))?;
    let signature = match catch_panic(|| run(&input)).map(drop) {
        Ok(()) => {
            return Err((
                EXIT_NO_PANIC,
                format!("{} does not panic when run in-process", crash.display()),
            ))
        }
        Err(signature) => signature,
    };
    let options = options_from_env();
    let dir = crash.parent().unwrap_or(Path::new("."));
    let partial = match &out {
        Some(out) => PathBuf::from(format!("{}.partial", out.display())),
        None => dir.join(format!(
            "minimized-partial-{}",
            super::crash::signature_hash(&signature)
        )),
    };
    eprintln!(
        "hellfuzz: reducing {} ({} bytes, {signature})",
        crash.display(),
        input.len()
    );
    let reduction = minimize(target, &input, &signature, run, &options, &partial).map_err(|e| (EXIT_ERROR, e))?;
    let (out, json_path) = outputs(out, dir, &reduction.input);
    let record = make_record(target, &signature, &name(crash), &name(&out), &reduction);
    write_artifacts(&out, &json_path, &reduction.input, &record).map_err(|e| (EXIT_ERROR, e))?;
    let _ = std::fs::remove_file(&partial);
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn a_budget_of_no_tests_is_ignored() {
        // "0.5" rounds down to 0 candidates as well.
        for zero in ["0", "0.5"] {
            let options = options_from_vars(vars(&[("HELLFUZZ_REDUCE_TESTS", zero)]));
            assert_eq!(options.budget.max_tests, None, "{zero}");
        }
        let options = options_from_vars(vars(&[("HELLFUZZ_REDUCE_TESTS", "7")]));
        assert_eq!(options.budget.max_tests, Some(7));
        assert_eq!(
            options.budget.max_time,
            Some(std::time::Duration::from_secs(DEFAULT_TIME_SECS))
        );
    }
}
