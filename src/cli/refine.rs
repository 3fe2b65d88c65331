//! `hellfuzz refine`: a grammar tightened to what the user's own parser accepts, learned from
//! generated inputs it rejects; the refined grammar and the edits, written after every round.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hellfuzz::oracle::{Exit, Subprocess};
use hellfuzz::refine::{refine, Options, Refined, Sample, Stop, Verdict};

use super::args::{at_least_one, max_size, positive_seconds, seed};
use super::common::{cancel_on_ctrl_c, load_grammar, split_command};

/// Refine a grammar against your parser: generate "more of the same" and inverted inputs, run
/// the acceptance command on each (exit status 0 = in the language), find what in each
/// rejected input is to blame, and tighten the grammar there (narrow a character class, drop
/// an alternative everywhere or in one context, fix an optional part, bound a repetition),
/// never so that a sample stops parsing. Writes the refined grammar and the edits (one comment
/// per edit naming the rejected input that caused it) after every round.
#[derive(clap::Args)]
pub struct RefineArgs {
    /// A built-in grammar name or a path to a grammar file (e.g. one `hellfuzz import` wrote).
    pub grammar: String,
    /// Sample files, folders or globs: inputs the grammar parses and the command accepts
    /// (default for a built-in grammar: its built-in samples).
    #[arg(long, value_name = "PATH")]
    pub samples: Vec<String>,
    /// The acceptance command: `@@` becomes the path of a file holding the input (without
    /// `@@` the input goes to standard input); exit status 0 accepts it.
    #[arg(long, value_name = "'CMD @@'")]
    pub accept: String,
    /// Where to write the refined grammar.
    #[arg(long, short)]
    pub out: PathBuf,
    /// Where to write the edits, an overrides-style file (default: the output with the
    /// extension `.edits`).
    #[arg(long)]
    pub edits: Option<PathBuf>,
    /// Stop after this many seconds (the round under way is finished first).
    #[arg(long, default_value = "600", value_parser = positive_seconds, allow_negative_numbers = true)]
    pub max_time: Duration,
    /// Stop after this many rounds (a run is the same for the same rounds, seed and
    /// inputs, whatever the machine's speed: for reproducing one).
    #[arg(long, default_value_t = 400, value_parser = at_least_one, allow_negative_numbers = true)]
    pub max_rounds: usize,
    /// Commands run at once (default: the number of CPUs).
    #[arg(short = 'j', long, value_parser = at_least_one, allow_negative_numbers = true)]
    pub jobs: Option<usize>,
    /// Seconds before a run of the command is killed (the input counts as rejected).
    #[arg(long, default_value = "10", value_parser = positive_seconds, allow_negative_numbers = true)]
    pub timeout: Duration,
    /// Seed of the generation.
    #[arg(long, default_value_t = 0, value_parser = seed, allow_negative_numbers = true)]
    pub seed: u64,
    /// Inputs generated per round in each mode.
    #[arg(long, default_value_t = 200, value_parser = at_least_one, allow_negative_numbers = true)]
    pub per_round: usize,
    /// Largest inverted input in bytes.
    #[arg(long, default_value = "1000", value_parser = max_size, allow_negative_numbers = true)]
    pub max_size: usize,
}

impl RefineArgs {
    /// Runs `hellfuzz refine`.
    pub fn run(self) -> Result<ExitCode, String> {
        let g = load_grammar(&self.grammar)?;
        let samples = read_samples(&self.grammar, &self.samples)?;
        let command = Subprocess::new(split_command(&self.accept)?)
            .map_err(|e| e.to_string())?
            .timeout(self.timeout)
            .env("RUST_BACKTRACE", "0");
        let accept = |input: &[u8]| match command.run(input).exit {
            Exit::Code(0) => Verdict::Accepted,
            Exit::Timeout => Verdict::TimedOut,
            Exit::NotRun(why) => Verdict::NotRun(why),
            Exit::Code(_) | Exit::Signal(_) => Verdict::Rejected,
        };
        let edits_path = self.edits.clone().unwrap_or_else(|| self.out.with_extension("edits"));
        let cancel = cancel_on_ctrl_c();
        let mut options = Options::default();
        options.max_time = self.max_time;
        options.max_rounds = self.max_rounds;
        options.jobs = self
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        options.seed = self.seed;
        options.per_round = self.per_round;
        options.max_size = self.max_size;
        options.cancel = Some(cancel.clone());
        let origin = g.origin().to_string();
        let mut write_error = None;
        let mut save = |r: &Refined| {
            if let Err(e) = write(r, &origin, &self.out, &edits_path) {
                write_error.get_or_insert(e);
            }
        };
        let mut progress = |r: &Refined| {
            if let Some(round) = r.rounds.last() {
                if round.reverted > 0 {
                    eprintln!(
                        "round {}: accepted {:.1} % of \"more of the same\", {:.1} % of inverted, less than before the last round's edits: took back its {} edit(s) ({} in all); {} runs, {:.0} s",
                        round.number,
                        round.default_percent(),
                        round.inverted_percent(),
                        round.reverted,
                        round.edits_total,
                        round.runs,
                        round.elapsed.as_secs_f64()
                    );
                    save(r);
                    return;
                }
                if round.probes > 0 {
                    eprintln!(
                        "round {}: {} probe(s) accepted (a sample with one optional part the samples never fill put in): edits must keep them",
                        round.number, round.probes
                    );
                }
                eprintln!(
                    "round {}: accepted {:.1} % of \"more of the same\", {:.1} % of inverted; {} culprit(s) found, {} edit(s) ({} in all, {} refused: a sample or accepted input would no longer parse as before); {} runs, {:.0} s",
                    round.number,
                    round.default_percent(),
                    round.inverted_percent(),
                    round.culprits,
                    round.edits,
                    round.edits_total,
                    round.refused,
                    round.runs,
                    round.elapsed.as_secs_f64()
                );
                if let Some(from) = round.restarted_from {
                    let why = if round.restarted_stuck {
                        format!(
                            "{} rounds in a row found nothing more to edit",
                            hellfuzz::refine::STUCK_ROUNDS
                        )
                    } else {
                        format!(
                            "no better grammar measured in {} rounds",
                            hellfuzz::refine::RESTART_ROUNDS
                        )
                    };
                    eprintln!(
                        "round {}: {why}: starting afresh from round {}'s ({} edit(s)), its refusals and known inputs forgotten",
                        round.number,
                        from,
                        r.edits.len()
                    );
                }
            }
            save(r);
        };
        let refined = refine(&g, &samples, &accept, &options, &mut progress).map_err(|e| e.to_string())?;
        write(&refined, &origin, &self.out, &edits_path)?;
        if let Some(e) = write_error {
            return Err(e);
        }
        let last = refined.rounds.last().cloned().unwrap_or_default();
        let why = match refined.stop {
            Some(Stop::Targets) => "the acceptance targets are met",
            Some(Stop::Stuck) => "the last rounds found nothing more to edit",
            Some(Stop::Interrupted) => "interrupted",
            Some(Stop::Rounds) => "the most rounds a refinement makes were made",
            Some(Stop::Budget) | None => "the time is up",
        };
        eprintln!(
            "refined {} in {} round(s): {} edit(s); last round accepted {:.1} % / {:.1} % (default / inverted); stopped: {why}",
            origin,
            refined.rounds.len(),
            refined.edits.len(),
            last.default_percent(),
            last.inverted_percent(),
        );
        if let Some(c) = &refined.chosen {
            eprintln!(
                "kept the best grammar measured, that of round {} ({} edit(s)): measured again on {} + {} inputs, {:.1} % / {:.1} % (default / inverted)",
                c.round,
                refined.edits.len(),
                c.inputs,
                c.inputs,
                c.default_percent,
                c.inverted_percent
            );
        }
        eprintln!(
            "grammar written to {}, edits to {}",
            self.out.display(),
            edits_path.display()
        );
        Ok(if cancel.load(Ordering::Relaxed) {
            ExitCode::from(130)
        } else {
            ExitCode::SUCCESS
        })
    }
}

/// Writes the refined grammar and the edits, each atomically.
fn write(r: &Refined, origin: &str, out: &Path, edits: &Path) -> Result<(), String> {
    let header = format!(
        "# {origin} refined by `hellfuzz refine` ({} edit(s)); the edits and their reasons are in {}\n",
        r.edits.len(),
        edits.display()
    );
    hellfuzz::files::write_atomically(out, format!("{header}{}", r.file_text()).as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    hellfuzz::files::write_atomically(edits, r.edits_text(origin).as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", edits.display()))
}

/// The samples: the files `args` name, or a built-in grammar's own.
fn read_samples(grammar: &str, args: &[String]) -> Result<Vec<Sample>, String> {
    if args.is_empty() {
        let builtin = hellfuzz::grammar::builtin::samples(grammar);
        if builtin.is_empty() {
            return Err("give --samples: refine learns from samples the grammar parses and the command accepts".into());
        }
        return Ok(builtin
            .iter()
            .map(|(name, bytes)| Sample {
                name: format!("<builtin:{grammar}>/{name}"),
                bytes: bytes.to_vec(),
            })
            .collect());
    }
    let files = hellfuzz::mine::samples::collect(args).map_err(|e| e.to_string())?;
    files
        .iter()
        .map(|path| {
            std::fs::read(path)
                .map(|bytes| Sample {
                    name: path.display().to_string(),
                    bytes,
                })
                .map_err(|e| format!("cannot read sample {}: {e}", path.display()))
        })
        .collect()
}
