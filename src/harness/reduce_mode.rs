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

use super::corpus::RunFn;
use super::crash::{make_record, minimize, write_artifacts, ArtifactRecord};
use super::target::{Settings, Target};
use crate::oracle::{catch_panic, Signature};

use super::env::{REDUCE_ENV, REDUCE_OUT_ENV, REDUCE_SUBPROCESS_ENV};
/// Per-candidate time limit of [`REDUCE_SUBPROCESS_ENV`] reductions.
const PROCESS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Exit status: the file did not panic when run in-process.
pub const EXIT_NO_PANIC: i32 = 3;
/// Exit status: the crash file could not be read or the output not written.
pub const EXIT_ERROR: i32 = 2;
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
/// candidate, keeping the way it dies; writes `minimized-<sha1>` beside it and its record (see `outputs`).
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
    let staging = out
        .clone()
        .unwrap_or_else(|| dir.join(format!("minimized-partial-{}", name(crash))));
    eprintln!(
        "hellfuzz: reducing {} ({} bytes) with one process per candidate",
        crash.display(),
        input.len()
    );
    let reduction = super::client::reduce_in_processes(
        &binary,
        &input,
        &staging,
        target.grammar(),
        &options,
        PROCESS_TIMEOUT,
        Vec::new(),
    )
    .map_err(|e| (EXIT_ERROR, e.to_string()))?;
    let (out, json_path) = outputs(out, dir, &reduction.input);
    let signature = reduction
        .signature
        .clone()
        .unwrap_or_else(|| Signature::panic(None, "the harness process died"));
    let record = ArtifactRecord {
        signature_hash: super::crash::signature_hash(&signature),
        signature,
        original: name(crash),
        original_size: reduction.original_size,
        minimized: name(&out),
        minimized_size: reduction.input.len(),
        grammar: target.source().name().map(str::to_string),
        stats: reduction.stats.clone(),
        minimized_value: target.show_input(&reduction.input),
    };
    write_artifacts(&out, &json_path, &reduction.input, &record).map_err(|e| (EXIT_ERROR, e))?;
    if staging != out {
        let _ = std::fs::remove_file(&staging);
    }
    eprintln!(
        "hellfuzz: minimized {} to {} bytes in {} runs: {}",
        name(crash),
        reduction.input.len(),
        reduction.stats.oracle_calls,
        out.display()
    );
    Ok(record)
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
