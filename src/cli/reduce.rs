//! `hellfuzz reduce`: a subprocess oracle around the user's command, progress, the result file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use hellfuzz::mine::samples;
use hellfuzz::oracle::Classify;
use hellfuzz::reduce::Options;

use super::common::{load_grammar, read_input, report_skipped};

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
    let input = read_input(path)?;
    let argv = shlex::split(cmd)
        .filter(|a| !a.is_empty())
        .ok_or_else(|| format!("cannot split the command `{cmd}` into words (unbalanced quotes?)"))?;
    let command = hellfuzz::oracle::Command::new(argv)
        .map_err(|e| e.to_string())?
        .timeout(timeout)
        // Backtraces only slow down every crashing run; signatures need location and message.
        .env("RUST_BACKTRACE", "0")
        .classify(classify)
        .calibrate(&input)
        .map_err(|e| e.to_string())?;
    // Ctrl-C: stop testing, kill the running command, and keep the best input found so far.
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = cancel.clone();
    let _ = ctrlc::set_handler(move || {
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
        hellfuzz::oracle::kill_running();
    });
    options.budget.cancel = Some(cancel);
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
    let result = hellfuzz::reduce::reduce_with_progress(&input, grammar.as_ref(), &command, &options, &progress)
        .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    for note in &result.notes {
        eprintln!("note: {note}");
    }
    let out = out.unwrap_or_else(|| {
        let mut p = path.clone().into_os_string();
        p.push(".reduced");
        PathBuf::from(p)
    });
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
        if result.budget_exhausted { " (budget exhausted: best so far)" } else { "" },
        out.display()
    );
    if json {
        let mut record = serde_json::to_value(&result).expect("reductions serialize");
        record["input"] = serde_json::Value::String(String::from_utf8_lossy(&result.input).into_owned());
        record["output"] = serde_json::Value::String(out.display().to_string());
        println!("{record}");
    }
    Ok(if result.confirmed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
