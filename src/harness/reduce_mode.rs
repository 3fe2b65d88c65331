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

use super::crash::{make_record, minimize, write_artifacts, ArtifactRecord};
use super::target::{Settings, Target};
use crate::oracle::catch_panic;

/// Names the crash file to reduce.
pub const REDUCE_ENV: &str = "HELLFUZZ_REDUCE";
/// Where to write the minimized input (default: `minimized-<sha1>` beside the crash file); the
/// record goes to the same path plus `.json`.
pub const REDUCE_OUT_ENV: &str = "HELLFUZZ_REDUCE_OUT";
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

/// Runs reduce mode and exits the process if [`REDUCE_ENV`] is set; returns otherwise.
pub fn run_if_requested(target: &Target, run: fn(&[u8])) {
    let Some(crash) = std::env::var_os(REDUCE_ENV) else {
        return;
    };
    let out = std::env::var_os(REDUCE_OUT_ENV).map(PathBuf::from);
    let info = serde_json::json!({ "grammar": target.source().name() });
    println!("{INFO_LINE}{info}");
    let status = match reduce_file(target, Path::new(&crash), out, run) {
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

fn reduce_file(
    target: &Target,
    crash: &Path,
    out: Option<PathBuf>,
    run: fn(&[u8]),
) -> Result<ArtifactRecord, (i32, String)> {
    let input = std::fs::read(crash).map_err(|e| (EXIT_ERROR, format!("cannot read {}: {e}", crash.display())))?;
    let signature = match catch_panic(|| run(&input)) {
        Ok(()) => {
            return Err((
                EXIT_NO_PANIC,
                format!("{} does not panic when run in-process", crash.display()),
            ))
        }
        Err(signature) => signature,
    };
    let mut settings = Settings::from_env(None);
    if std::env::var_os("HELLFUZZ_REDUCE_TIME").is_none() {
        settings.options.budget.max_time = Some(std::time::Duration::from_secs(DEFAULT_TIME_SECS));
    }
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
    let reduction =
        minimize(target, &input, &signature, run, &settings.options, &partial).map_err(|e| (EXIT_ERROR, e))?;
    let sha = sha1_smol::Sha1::from(&reduction.input).digest().to_string();
    let out = out.unwrap_or_else(|| dir.join(format!("minimized-{sha}")));
    let name = |p: &Path| {
        p.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    };
    let record = make_record(target, &signature, &name(crash), &name(&out), &reduction);
    write_artifacts(&out, &reduction.input, &record).map_err(|e| (EXIT_ERROR, e))?;
    let _ = std::fs::remove_file(&partial);
    Ok(record)
}
