//! `hellfuzz repair`: ddmax against the user's command (Pass = exit status 0), the repaired file
//! and the diagnosis (removed parts with their offsets), as lines or as a JSON record.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use hellfuzz::oracle::{Exit, Oracle, Outcome, Processed, Subprocess};
use hellfuzz::reduce::repair::{repair_with_progress, RepairMode, RepairOptions};

use super::args::SearchLimits;

use super::common::{cancel_on_ctrl_c, check_output, load_grammar, read_input, split_command};

/// Repair an input the program cannot process: remove as little as possible (ddmax) so that
/// the command exits with status 0; print what was removed, with offsets.
#[derive(clap::Args)]
pub struct RepairArgs {
    /// The input to repair (never modified).
    pub input: PathBuf,
    /// A built-in grammar name or a grammar file: enables syntactic ddmax (over tokens).
    #[arg(long, short)]
    pub grammar: Option<String>,
    /// The command to run on each candidate: `@@` becomes the path of a file holding it;
    /// without `@@` the candidate goes to standard input. Exit status 0 = processed.
    #[arg(long)]
    pub cmd: String,
    /// ddmax over bytes (default without --grammar, or when nothing of the input parses).
    #[arg(long, conflicts_with = "syntactic")]
    pub lexical: bool,
    /// ddmax over the tokens of the error-recovering parse (default with --grammar).
    #[arg(long, requires = "grammar")]
    pub syntactic: bool,
    /// Never insert what the grammar expects at a parse error: the result is a subsequence
    /// of the input (the paper's ddmax). By default, with --grammar, repair may insert the
    /// cheapest string of an expected terminal (`{` -> `{}`, a missing `:`).
    #[arg(long)]
    pub no_insert: bool,
    /// Where to write the repaired input (default: the input's path with `.repaired` added).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Print a JSON record of the repair on standard output.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: SearchLimits,
}

impl RepairArgs {
    /// Runs `hellfuzz repair`.
    pub fn run(self) -> Result<ExitCode, String> {
        let RepairArgs {
            input,
            grammar,
            cmd,
            lexical,
            syntactic,
            no_insert,
            out,
            json,
            limits,
        } = self;
        let mode = match (lexical, syntactic) {
            (true, _) => Some(RepairMode::Lexical),
            (_, true) => Some(RepairMode::Syntactic),
            _ => None,
        };
        let mut options = RepairOptions::default();
        options.mode = mode;
        options.jobs = limits.jobs;
        options.budget = limits.budget();
        options.insert = !no_insert;
        let (path, grammar, cmd, timeout) = (&input, grammar.as_deref(), cmd.as_str(), limits.timeout());
        check_output(path, &out.clone().unwrap_or_else(|| default_out(path)))?;
        let input = read_input(path)?;
        let argv = split_command(cmd)?;
        // Before the first run: a signal while the command runs on the input must kill it too.
        let cancel = cancel_on_ctrl_c();
        options.budget.cancel = Some(cancel.clone());
        let interrupted_early = || {
            eprintln!("interrupted while running the command on the original input; nothing written");
            Ok(ExitCode::from(130))
        };
        let command = Subprocess::new(argv)
            .map_err(|e| e.to_string())?
            .timeout(timeout)
            .env("RUST_BACKTRACE", "0");
        // A command that cannot run at all would make every candidate "not processed": say so.
        let first = command
            .try_run(&input)
            .map_err(|e| format!("cannot run the command: {e}"))?;
        if cancel.load(Ordering::Relaxed) {
            return interrupted_early();
        }
        // Nor would one that hangs on everything: refused before a search of timeouts.
        let hanging = command.refuse_hanging(&input, &first.exit);
        if cancel.load(Ordering::Relaxed) {
            return interrupted_early();
        }
        hanging.map_err(|e| e.to_string())?;
        let oracle = CountingTimeouts {
            command,
            runs: AtomicU64::new(0),
            timeouts: AtomicU64::new(0),
        };
        // From here Ctrl-C stops testing and keeps the largest passing input found so far.
        let grammar = grammar.map(load_grammar).transpose()?;
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"));
        let progress = |tests: u64, runs: u64| {
            bar.set_message(format!("{tests} candidates, {runs} runs of the command"));
            bar.tick();
        };
        let result = repair_with_progress(&input, grammar.as_ref(), &oracle, &options, &progress);
        bar.finish_and_clear();
        let interrupted = cancel.load(Ordering::Relaxed);
        let out = out.unwrap_or_else(|| default_out(path));
        if result.repaired {
            hellfuzz::files::write_atomically(&out, &result.input)
                .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        }
        // Bytes of the original in the result (inserted bytes are not the input's).
        let kept = result.original_size - result.removed.iter().map(|r| r.bytes.len()).sum::<usize>();
        let inserted = if result.inserted.is_empty() {
            String::new()
        } else {
            format!(", inserted {} part(s)", result.inserted.len())
        };
        let (runs, timeouts) = (
            oracle.runs.load(Ordering::Relaxed),
            oracle.timeouts.load(Ordering::Relaxed),
        );
        let timed_out = if timeouts == 0 {
            String::new()
        } else if timeouts == runs {
            format!(
            ", every one timed out after {} s: the command may hang on every input; raise --timeout or check the command",
            timeout.as_secs_f64()
        )
        } else {
            format!(
                ", {timeouts} of them timed out after {} s and counted as not processed",
                timeout.as_secs_f64()
            )
        };
        let flaky = result.repaired && !result.confirmed && !interrupted;
        let summary = if flaky && result.already_passing {
            format!(
            "{} was processed once, but not on every one of {} re-runs: the command is flaky (it may not process the same input twice)",
            path.display(),
            hellfuzz::reduce::CONFIRM_RUNS
        )
        } else if result.already_passing {
            format!("{} is processed already: nothing to repair", path.display())
        } else if result.repaired {
            format!(
            "repaired {} with {} ddmax: kept {kept} of {} bytes, removed {} part(s){inserted}; {} candidates, {} runs, {:.1} s{}; written to {}",
            path.display(),
            serde_json::to_value(result.mode).expect("modes serialize").as_str().unwrap_or("?"),
            result.original_size,
            result.removed.len(),
            result.tests,
            result.oracle_calls,
            result.time.as_secs_f64(),
            if interrupted {
                " (interrupted: maybe not maximal)"
            } else if result.budget_exhausted {
                " (budget exhausted: maybe not maximal)"
            } else {
                ""
            },
            out.display()
        )
        } else {
            format!(
                "could not repair {}: no subset of it that was tried is processed ({} runs{timed_out}){}",
                path.display(),
                result.oracle_calls,
                if interrupted {
                    "; interrupted before the search ended"
                } else {
                    ""
                }
            )
        };
        eprintln!("{summary}");
        if flaky && !result.already_passing {
            eprintln!(
            "warning: the repaired input was not processed again when re-run (one of up to {} re-runs rejected it): the command is flaky, and the result may not hold",
            hellfuzz::reduce::CONFIRM_RUNS
        );
        }
        if result.repaired && timeouts > 0 {
            eprintln!(
            "note: {timeouts} of {runs} runs timed out after {} s and counted as not processed; with a longer --timeout more may be kept",
            timeout.as_secs_f64()
        );
        }
        if json {
            let mut record = serde_json::to_value(&result).expect("repairs serialize");
            record["output"] = if result.repaired {
                serde_json::Value::String(out.display().to_string())
            } else {
                serde_json::Value::Null
            };
            outln!("{record}");
        } else {
            for r in &result.removed {
                outln!(
                    "removed offset {} length {}: \"{}\"",
                    r.offset,
                    r.bytes.len(),
                    r.bytes.escape_ascii()
                );
            }
            for i in &result.inserted {
                outln!("inserted at offset {}: \"{}\"", i.offset, i.bytes.escape_ascii());
            }
        }
        Ok(if interrupted {
            ExitCode::from(130)
        } else if result.repaired && result.confirmed {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        })
    }
}

/// [`Processed`], counting the runs and those that timed out: when nothing is processed, whether
/// every run timed out is what tells a hanging command from an unrepairable input.
struct CountingTimeouts {
    command: Subprocess,
    runs: AtomicU64,
    timeouts: AtomicU64,
}

impl Oracle for CountingTimeouts {
    fn test(&self, input: &[u8]) -> Outcome {
        let run = self.command.run(input);
        self.runs.fetch_add(1, Ordering::Relaxed);
        if run.exit == Exit::Timeout {
            self.timeouts.fetch_add(1, Ordering::Relaxed);
        }
        Processed::outcome(&run.exit)
    }
}

/// Where a repaired input goes without `--out`: the input's path plus `.repaired`.
fn default_out(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".repaired");
    PathBuf::from(p)
}
