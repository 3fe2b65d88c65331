//! `hellfuzz reduce`: a subprocess oracle around the user's command (or a harness binary's reduce
//! mode with `--harness`), progress, the result file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use hellfuzz::mine::samples;
use hellfuzz::oracle::Classify;
use hellfuzz::reduce::ReduceOptions;

use super::args::{parse_pass, AlgoArg, SearchLimits};

use super::common::{cancel_on_ctrl_c, check_output, load_grammar, read_input, report_skipped, split_command};

/// Reduce a failing input: GTR* on its derivation tree (without a grammar: on a generic tree
/// of the text), then ddmin on its characters.
#[derive(clap::Args)]
pub struct ReduceArgs {
    /// The failing input (never modified).
    pub input: PathBuf,
    /// A built-in grammar name or a grammar file; without one (or if the input does not
    /// parse), GTR* runs on a generic tree: tokens, bracket groups, lines, indented blocks.
    #[arg(long, short)]
    pub grammar: Option<String>,
    /// The command to run on each candidate: `@@` becomes the path of a file holding it;
    /// without `@@` the candidate goes to standard input.
    #[arg(long, required_unless_present = "harness")]
    pub cmd: Option<String>,
    /// A fuzz-target binary built with `hellfuzz::fuzz_target!`: reduce in its process (reduce
    /// mode); crashes that kill the process fall back to one run of the binary per candidate.
    #[arg(long, conflicts_with_all = ["cmd", "same_panic", "exit_code", "stderr", "corpus", "samples"])]
    pub harness: Option<PathBuf>,
    /// The algorithm.
    #[arg(long, value_enum, default_value_t = AlgoArg::GtrStar)]
    pub algo: AlgoArg,
    /// A candidate fails if it panics where the original panicked (default: if it crashes
    /// the way the original crashed: same panic, signal, exit status or timeout).
    #[arg(long, conflicts_with_all = ["exit_code", "stderr"])]
    pub same_panic: bool,
    /// A candidate fails if the command exits with this status.
    #[arg(long, conflicts_with = "stderr", value_parser = clap::builder::RangedI64ValueParser::<i32>::new().range(0..=255), allow_negative_numbers = true)]
    pub exit_code: Option<i32>,
    /// A candidate fails if the command's standard error matches this regular expression.
    #[arg(long)]
    pub stderr: Option<String>,
    /// Where to write the reduced input (default: the input's path with `.reduced` added).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Print a JSON record of the reduction on standard output.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: SearchLimits,
    /// Skip the final ddmin pass over characters.
    #[arg(long)]
    pub no_byte_pass: bool,
    /// Simplification passes to run once deletion is exhausted, in order, comma-separated:
    /// tokens (a word becomes `a`, a number `0`/`1`, a string empty or unquoted), repeats
    /// (every copy of a repeated token deleted, or replaced by a smaller one), pairs (two tokens at once, up to 40 tokens),
    /// bytes (a byte becomes a smaller one); `none` for none. Each costs oracle runs.
    #[arg(long, value_delimiter = ',', value_parser = parse_pass, default_value = "tokens,repeats")]
    pub passes: Vec<Option<hellfuzz::reduce::Pass>>,
    /// Sample inputs (files, folders, globs) to learn the GTR paper's corpus filters from
    /// (mandatory edges, allowed contexts): extra pruning of candidates, needs --grammar.
    #[arg(long)]
    pub corpus: Vec<String>,
    /// Sample inputs of the input's format (files, folders, globs): the same filters, learned
    /// on their generic trees, for inputs reduced without a grammar.
    #[arg(long, conflicts_with = "corpus")]
    pub samples: Vec<String>,
}

impl ReduceArgs {
    /// Runs `hellfuzz reduce`.
    pub fn run(self) -> Result<ExitCode, String> {
        let ReduceArgs {
            input,
            grammar,
            cmd,
            harness,
            algo,
            same_panic,
            exit_code,
            stderr,
            out,
            json,
            limits,
            no_byte_pass,
            passes,
            corpus,
            samples,
        } = self;
        let classify = match (same_panic, exit_code, stderr) {
            (true, _, _) => Classify::SamePanic,
            (_, Some(code), _) => Classify::ExitCode(code),
            (_, _, Some(re)) => Classify::stderr(&re).map_err(|e| e.to_string())?,
            _ => Classify::SameCrash,
        };
        let mut options = ReduceOptions::default();
        options.algorithm = algo.into();
        options.byte_pass = !no_byte_pass;
        options.passes = passes.into_iter().flatten().collect();
        options.jobs = limits.jobs;
        options.budget = limits.budget();
        let timeout = limits.timeout();
        if let Some(harness) = harness {
            return reduce_harness(&input, &harness, grammar.as_deref(), timeout, options, out, json);
        }
        let (path, grammar, cmd, mut options) =
            (&input, grammar.as_deref(), cmd.as_deref().unwrap_or_default(), options);
        let (corpus, samples) = (corpus.as_slice(), samples.as_slice());
        check_output(path, &out.clone().unwrap_or_else(|| default_out(path)))?;
        let input = read_input(path)?;
        let argv = split_command(cmd)?;
        // Before the first run: a signal during calibration must kill the command too.
        let cancel = cancel_on_ctrl_c();
        options.budget.cancel = Some(cancel.clone());
        let command = hellfuzz::oracle::Subprocess::new(argv)
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
            let (filter, learned, skipped) =
                hellfuzz::reduce::CorpusFilter::learn_files(g, &samples::collect(corpus).map_err(|e| e.to_string())?);
            report_skipped(&skipped);
            eprintln!("learned corpus filters from {learned} samples");
            options.corpus = Some(filter);
        }
        if !samples.is_empty() {
            let (filter, learned, unreadable) = hellfuzz::reduce::CorpusFilter::learn_generic_files(
                &samples::collect(samples).map_err(|e| e.to_string())?,
            );
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
        for note in &result.stats.notes {
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
        result.stats.algorithm,
        result.stats.time.as_secs_f64(),
        result.stats.tests,
        result.stats.oracle_calls,
        result.stats.cache_hits,
        if interrupted {
            " (interrupted: best so far)"
        } else if result.stats.budget_exhausted {
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
}

/// `hellfuzz reduce --harness`: the harness's reduce mode, or the harness as a subprocess oracle.
fn reduce_harness(
    path: &Path,
    harness: &Path,
    grammar: Option<&str>,
    timeout: Duration,
    mut options: ReduceOptions,
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
    let result = result.map_err(|e| e.to_string())?;
    for note in &result.stats.notes {
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
        result.stats.algorithm,
        result.stats.time.as_secs_f64(),
        result.stats.oracle_calls,
        if result.stats.budget_exhausted {
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
