//! `hellfuzz reduce`: a subprocess oracle around the user's command (or a harness binary's reduce
//! mode with `--harness`), progress, the result file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use hellfuzz::mine::samples;
use hellfuzz::oracle::Classify;
use hellfuzz::reduce::Options;

use super::common::{cancel_on_ctrl_c, check_output, load_grammar, read_input, report_skipped, split_command};

/// `hellfuzz reduce`.
#[allow(clippy::too_many_arguments)]
pub fn reduce_cmd(
    path: &PathBuf,
    grammar: Option<&str>,
    corpus: &[String],
    samples: &[String],
    cmd: &str,
    classify: Classify,
    timeout: Duration,
    mut options: Options,
    out: Option<PathBuf>,
    json: bool,
) -> Result<ExitCode, String> {
    check_output(path, &out.clone().unwrap_or_else(|| default_out(path)))?;
    let input = read_input(path)?;
    let argv = split_command(cmd)?;
    // Before the first run: a signal during calibration must kill the command too.
    let cancel = cancel_on_ctrl_c();
    options.budget.cancel = Some(cancel.clone());
    let command = hellfuzz::oracle::Command::new(argv)
        .map_err(|e| e.to_string())?
        .timeout(timeout)
        // Backtraces only slow down every crashing run; signatures need location and message.
        .env("RUST_BACKTRACE", "0")
        .classify(classify)
        .calibrate(&input);
    let command = match command {
        Err(_) if cancel.load(std::sync::atomic::Ordering::Relaxed) => {
            eprintln!("interrupted while running the command on the original input; nothing written");
            return Ok(ExitCode::from(130));
        }
        c => c.map_err(|e| e.to_string())?,
    };
    let grammar = grammar.map(load_grammar).transpose()?;
    if !corpus.is_empty() {
        let g = grammar
            .as_ref()
            .ok_or("--corpus needs --grammar: the corpus is parsed with it")?;
        let (filter, learned, skipped) = hellfuzz::reduce::CorpusFilter::learn_files(g, &samples::collect(corpus)?);
        report_skipped(&skipped);
        eprintln!("learned corpus filters from {learned} samples");
        options.corpus = Some(filter);
    }
    if !samples.is_empty() {
        let (filter, learned, unreadable) =
            hellfuzz::reduce::CorpusFilter::learn_generic_files(&samples::collect(samples)?);
        for (file, e) in &unreadable {
            eprintln!("skipped {}: {e}", file.display());
        }
        eprintln!("learned generic-tree filters from {learned} samples");
        options.corpus = Some(filter);
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"));
    let original = input.len();
    let progress = |p: &hellfuzz::reduce::Progress| {
        bar.set_message(format!(
            "{} of {original} bytes; {} candidates: {} oracle runs, {} cache hits",
            p.best, p.tests, p.oracle_calls, p.cache_hits
        ));
        bar.tick();
    };
    let result = hellfuzz::reduce::reduce_with_progress(&input, grammar.as_ref(), &command, &options, &progress);
    bar.finish_and_clear();
    let result = match result {
        Err(_) if cancel.load(std::sync::atomic::Ordering::Relaxed) => {
            eprintln!("interrupted before the first reduction; nothing written");
            return Ok(ExitCode::from(130));
        }
        r => r.map_err(|e| e.to_string())?,
    };
    for note in &result.notes {
        eprintln!("note: {note}");
    }
    let interrupted = cancel.load(std::sync::atomic::Ordering::Relaxed);
    let out = out.unwrap_or_else(|| default_out(path));
    hellfuzz::files::write_atomically(&out, &result.input)
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    eprintln!(
        "reduced {} from {} to {} bytes with {} in {:.1} s: {} candidates tested, {} oracle runs, {} cache hits{}; written to {}",
        path.display(),
        result.original_size,
        result.input.len(),
        result.algorithm,
        result.time.as_secs_f64(),
        result.tests,
        result.oracle_calls,
        result.cache_hits,
        if interrupted {
            " (interrupted: best so far)"
        } else if result.budget_exhausted {
            " (budget exhausted: best so far)"
        } else {
            ""
        },
        out.display()
    );
    if json {
        let mut record = serde_json::to_value(&result).expect("reductions serialize");
        record["input"] = serde_json::Value::String(String::from_utf8_lossy(&result.input).into_owned());
        record["output"] = serde_json::Value::String(out.display().to_string());
        outln!("{record}");
    }
    Ok(if interrupted {
        ExitCode::from(130)
    } else if result.confirmed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

/// `hellfuzz reduce --harness`: the harness's reduce mode, or the harness as a subprocess oracle.
pub fn reduce_harness_cmd(
    path: &Path,
    harness: &Path,
    grammar: Option<&str>,
    timeout: Duration,
    mut options: Options,
    out: Option<PathBuf>,
    json: bool,
) -> Result<ExitCode, String> {
    check_output(path, &out.clone().unwrap_or_else(|| default_out(path)))?;
    options.budget.cancel = Some(cancel_on_ctrl_c());
    let grammar = grammar.map(load_grammar).transpose()?;
    let out = out.unwrap_or_else(|| default_out(path));
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} reducing with {msg} ({elapsed})").expect("valid template"),
    );
    bar.set_message(harness.display().to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    let result = hellfuzz::harness::reduce_with_harness(harness, path, &out, grammar.as_ref(), &options, timeout);
    bar.finish_and_clear();
    let result = result?;
    for note in &result.notes {
        eprintln!("note: {note}");
    }
    let how = match result.method {
        hellfuzz::harness::Method::ReduceMode => "in the harness process",
        hellfuzz::harness::Method::Subprocess => "one harness run per candidate",
    };
    eprintln!(
        "reduced {} from {} to {} bytes with {} ({how}) in {:.1} s: {} runs{}; written to {}",
        path.display(),
        result.original_size,
        result.input.len(),
        result.algorithm,
        result.time_secs,
        result.oracle_calls,
        if result.budget_exhausted {
            " (budget exhausted: best so far)"
        } else {
            ""
        },
        out.display()
    );
    if json {
        let mut record = serde_json::to_value(&result).expect("reductions serialize");
        record["input"] = serde_json::Value::String(String::from_utf8_lossy(&result.input).into_owned());
        record["output"] = serde_json::Value::String(out.display().to_string());
        outln!("{record}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Where a reduced input goes without `--out`: the input's path plus `.reduced`.
fn default_out(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".reduced");
    PathBuf::from(p)
}
