//! `hellfuzz gen`: inputs generated from a grammar and mined (or inverted, or uniform)
//! probabilities, into a corpus folder or onto standard output; with `--keep-if`, filtered.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use hellfuzz::generate::{Corpus, GenerateError, Generator, Limits, Written, MAX_SIZE_LIMIT};
use hellfuzz::grammar::{builtin, Grammar};
use hellfuzz::mine::{samples, Model, Probabilities, ProbabilityMode};
use hellfuzz::oracle::{KeepIfError, KeepIfOptions, Subprocess};
use hellfuzz::tree::Tree;

use super::args::{at_least_one, max_size, positive_seconds, seed, size};
use super::common::{cancel_on_ctrl_c, load_grammar, report_skipped, skipped_warning, split_command};

/// `gen --max-size` when not given (and not following the samples' sizes).
const DEFAULT_MAX_SIZE: usize = 1000;

/// The model `gen` uses: the given models merged, else the given samples mined, else the
/// built-in samples of a built-in grammar; `None` if there is nothing to mine. With it, the
/// samples' trees when they were mined here (none for models read from files), and the warning
/// to print at the end when some samples could not be mined.
type GenModel = (Option<Model>, Vec<Tree>, Option<String>);

fn gen_model(g: &Grammar, name: &str, models: &[PathBuf], sample_args: &[String]) -> Result<GenModel, String> {
    if let Some((first, rest)) = models.split_first() {
        let mut model = Model::load(first, g).map_err(|e| e.to_string())?;
        for path in rest {
            model
                .merge(&Model::load(path, g).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
        }
        return Ok((Some(model), Vec::new(), None));
    }
    let (trees, skipped) = if !sample_args.is_empty() {
        samples::parse_files(g, &samples::collect(sample_args).map_err(|e| e.to_string())?)
    } else if builtin::grammar_text(name).is_some() {
        samples::parse_builtin(g, name)
    } else {
        return Ok((None, Vec::new(), None));
    };
    report_skipped(&skipped);
    let warning = skipped_warning(&skipped, trees.len() + skipped.len());
    let model = samples::model_of(g, &trees);
    Ok(((model.samples > 0).then_some(model), trees, warning))
}

/// Where `gen` puts its inputs: a corpus folder, or standard output; duplicates are skipped
/// and counted.
struct Output {
    corpus: Option<(Corpus, PathBuf)>,
    stdout: std::io::BufWriter<std::io::StdoutLock<'static>>,
    nul: bool,
    seen: std::collections::HashSet<Vec<u8>>,
    written: usize,
    duplicates: usize,
    bytes: usize,
    largest: usize,
}

impl Output {
    fn new(out: Option<&PathBuf>, nul: bool) -> Result<Output, String> {
        let corpus = match out {
            Some(dir) => Some((
                Corpus::open(dir).map_err(|e| format!("cannot use corpus folder {}: {e}", dir.display()))?,
                dir.clone(),
            )),
            None => None,
        };
        Ok(Output {
            corpus,
            stdout: std::io::BufWriter::new(std::io::stdout().lock()),
            nul,
            seen: std::collections::HashSet::new(),
            written: 0,
            duplicates: 0,
            bytes: 0,
            largest: 0,
        })
    }

    /// Writes one input unless it is a duplicate.
    fn add(&mut self, input: &[u8]) -> std::io::Result<()> {
        let new = match &mut self.corpus {
            Some((c, _)) => matches!(c.add(input)?, Written::New(_)),
            None => {
                let new = self.seen.insert(input.to_vec());
                if new {
                    self.stdout.write_all(input)?;
                    self.stdout.write_all(if self.nul { b"\0" } else { b"\n" })?;
                }
                new
            }
        };
        if new {
            self.written += 1;
            self.bytes += input.len();
            self.largest = self.largest.max(input.len());
        } else {
            self.duplicates += 1;
        }
        Ok(())
    }

    /// Flushes standard output.
    fn finish(&mut self) -> std::io::Result<()> {
        self.stdout.flush()
    }

    /// A write error as a message; `None` for a closed standard output (`gen … | head`), which
    /// ends the program quietly.
    fn error(&self, e: std::io::Error) -> Option<String> {
        match &self.corpus {
            Some((_, dir)) => Some(format!("cannot write into {}: {e}", dir.display())),
            None if e.kind() == std::io::ErrorKind::BrokenPipe => None,
            None => Some(format!("cannot write output: {e}")),
        }
    }

    /// "N distinct, D duplicates skipped; mean size …, largest L; written to DIR".
    fn summary(&self) -> String {
        format!(
            "{} distinct, {} duplicates skipped; mean size {:.1} bytes, largest {}{}",
            self.written,
            self.duplicates,
            if self.written > 0 {
                self.bytes as f64 / self.written as f64
            } else {
                0.0
            },
            self.largest,
            self.corpus
                .as_ref()
                .map(|(_, d)| format!("; written to {}", d.display()))
                .unwrap_or_default()
        )
    }
}

/// `gen --keep-if`: the command and how to run it.
pub struct KeepIf {
    /// The command line, `@@` for the input's file.
    pub cmd: String,
    /// Candidates at most (default: [`hellfuzz::oracle::DEFAULT_TRIES_PER_INPUT`] × count).
    pub max_tries: Option<usize>,
    /// Commands at once (default: the number of CPUs).
    pub jobs: Option<usize>,
    /// Per run.
    pub timeout: Duration,
}

/// The largest `--max-size` that following the samples' sizes may choose.
const SAMPLE_MAX_SIZE_CAP: usize = 1 << 20;

/// Generate inputs: "more of the same" as the samples, or with --invert "inputs from hell";
/// with --keep-if, only those a command accepts.
#[derive(clap::Args)]
pub struct GenArgs {
    /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
    pub grammar: String,
    /// Models to generate from (default: mine --samples, or a built-in grammar's samples).
    #[arg(long)]
    pub model: Vec<PathBuf>,
    /// Sample files, folders or globs to mine first (instead of --model).
    #[arg(long)]
    pub samples: Vec<String>,
    /// Invert the mined probabilities: prefer what the samples rarely or never use.
    #[arg(long, conflicts_with = "uniform")]
    pub invert: bool,
    /// With --invert: invert layout too (whitespace, comments: what the grammar's `%layout`
    /// rule reaches). By default inverted inputs keep the samples' layout: inverting it only
    /// makes layout.
    #[arg(long, requires = "invert")]
    pub invert_layout: bool,
    /// Ignore models and weights: every choice equally likely.
    #[arg(long)]
    pub uniform: bool,
    /// How many distinct inputs to generate: duplicates are skipped, counted and drawn again, up
    /// to 10 × N draws (a warning says when fewer were found); with --keep-if, how many inputs
    /// the command must keep.
    #[arg(long, short = 'n', default_value_t = 100, value_parser = at_least_one, allow_negative_numbers = true)]
    pub count: usize,
    /// Seed of the random choices; the same seed gives the same inputs.
    #[arg(long, default_value_t = 0, value_parser = seed, allow_negative_numbers = true)]
    pub seed: u64,
    /// Largest input in bytes (default 1000; "more of the same" mined from samples: as large
    /// as the largest sample).
    #[arg(long, value_parser = max_size, allow_negative_numbers = true)]
    pub max_size: Option<usize>,
    /// Grow phase: keep inputs growing until they have this many bytes (default: half of
    /// --max-size with --invert or --uniform; by default each input follows the size of a
    /// random sample instead).
    #[arg(long, value_parser = size, allow_negative_numbers = true)]
    pub min_size: Option<usize>,
    /// Write each input into this folder, named by the SHA-1 of its content (a libFuzzer corpus).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// On standard output, end each input with a NUL byte instead of a newline.
    #[arg(long)]
    pub nul: bool,
    /// Keep only the inputs this command accepts (exit status 0; another status, a signal or
    /// a timeout drops the input): `@@` becomes the path of a file holding the input; without
    /// `@@` the input goes to standard input. Rejected inputs are never written.
    #[arg(long, value_name = "CMD @@")]
    pub keep_if: Option<String>,
    /// With --keep-if: generate at most this many candidates (default: 20 × --count); stop
    /// with an error as soon as --count cannot be reached within them.
    #[arg(long, requires = "keep_if", value_parser = at_least_one, allow_negative_numbers = true)]
    pub max_tries: Option<usize>,
    /// With --keep-if: commands run at once (default: the number of CPUs); the kept inputs
    /// are the same for every -j.
    #[arg(short = 'j', long, requires = "keep_if", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub jobs: Option<usize>,
    /// With --keep-if: seconds before a run of the command is killed (the input is dropped)
    /// [default: 10].
    #[arg(long, requires = "keep_if", value_parser = positive_seconds, allow_negative_numbers = true)]
    pub timeout: Option<Duration>,
}

impl GenArgs {
    /// Runs `hellfuzz gen`.
    pub fn run(self) -> Result<ExitCode, String> {
        let GenArgs {
            grammar,
            model: models,
            samples: sample_args,
            invert,
            invert_layout,
            uniform,
            count,
            seed,
            max_size,
            min_size,
            out,
            nul,
            keep_if,
            max_tries,
            jobs,
            timeout,
        } = self;
        let (name, models, sample_args) = (grammar.as_str(), models.as_slice(), sample_args.as_slice());
        let mode = if invert {
            ProbabilityMode::Inverted
        } else if uniform {
            ProbabilityMode::Uniform
        } else {
            ProbabilityMode::Mined
        };
        let sample_max_size = max_size.is_none();
        let max_size = max_size.unwrap_or(DEFAULT_MAX_SIZE);
        let mut limits = Limits::up_to(max_size);
        limits.min_size = min_size.unwrap_or(max_size / 2);
        let keep_if = keep_if.map(|cmd| KeepIf {
            cmd,
            max_tries,
            jobs,
            timeout: timeout.unwrap_or(hellfuzz::oracle::DEFAULT_TIMEOUT),
        });
        let like_samples = min_size.is_none();
        let g = load_grammar(name)?;
        // A --max-size no input can keep to is refused before mining samples (again below, once the
        // default has followed the samples).
        if !sample_max_size {
            limits.check(&g).map_err(|e| gen_limits_error(&e, false))?;
        }
        let (model, trees, skipped_note) = gen_model(&g, name, models, sample_args)?;
        if model.is_none() && mode != ProbabilityMode::Uniform {
            eprintln!(
                "note: no samples or model for {}: using the grammar's own weights (give --samples or --model)",
                g.origin()
            );
        }
        let probs = Probabilities::new_with(&g, model.as_ref(), mode, invert_layout);
        // "More of the same" follows one sample per input (size, choices, characters), unless the
        // user set the grow phase (--min-size).
        let targets = match &model {
            Some(m) if mode == ProbabilityMode::Mined && like_samples => {
                hellfuzz::generate::targets_with_trees(&g, m, trees)
            }
            _ => Vec::new(),
        };
        // Without --max-size, "more of the same" is as large as the samples are (up to 1 MiB).
        if sample_max_size {
            if let Some(largest) = targets.iter().map(|t| t.size).max() {
                limits.max_size = largest.clamp(1, SAMPLE_MAX_SIZE_CAP);
            }
        }
        // --min-size is a wish (a grow phase), --max-size a bound: the bound wins, and says so.
        if !like_samples && limits.min_size > limits.max_size {
            eprintln!(
                "warning: --min-size {} is more than --max-size {}{}: inputs stay at most {} bytes",
                limits.min_size,
                limits.max_size,
                if sample_max_size { " (the default)" } else { "" },
                limits.max_size
            );
        }
        let (min_len, max_len) = (limits.min_size, limits.max_size);
        // Refused before anything is generated or written (not even the corpus folder is made).
        let generator =
            Generator::checked(&g, &probs, limits, seed).map_err(|e| gen_limits_error(&e, sample_max_size))?;
        let mut generator = generator.with_targets(&targets);
        let mut output = Output::new(out.as_ref(), nul)?;
        // Printed after the summary, where they are seen: samples left out of the model, and
        // inputs smaller than the grow phase's --min-size.
        let grow_phase = targets.is_empty() && min_len <= max_len;
        let end_warnings = |output: &Output| {
            if let Some(w) = &skipped_note {
                eprintln!("{w}");
            }
            let recursive = g.analysis().reaches_recursion[g.start().index()];
            if let Some(w) = size_warning(output, (min_len, max_len), grow_phase, min_size.is_some(), recursive) {
                eprintln!("{w}");
            }
        };
        if let Some(keep_if) = keep_if {
            let result = gen_kept(&mut || generator.input(), &mut output, count, seed, mode, &keep_if);
            end_warnings(&output);
            return result;
        }
        let bar = indicatif::ProgressBar::new(count as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} inputs, {elapsed} ({eta} left)")
                .expect("valid template"),
        );
        if count < 200 {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        // A signal stops between two inputs: every file written is complete, no temporary is left.
        let cancel = cancel_on_ctrl_c();
        // --count distinct inputs: draws go on past duplicates (of this run: an input already in
        // the folder counts, it is there) up to MAX_DRAWS_PER_INPUT × --count draws.
        let (mut done, mut distinct) = (0usize, 0usize);
        let mut this_run: std::collections::HashSet<[u8; 20]> = std::collections::HashSet::new();
        let max_draws = count.saturating_mul(MAX_DRAWS_PER_INPUT);
        let mut draw = || -> std::io::Result<()> {
            while distinct < count && done < max_draws && !cancel.load(std::sync::atomic::Ordering::Relaxed) {
                let input = generator.input();
                done += 1;
                if this_run.insert(sha1_smol::Sha1::from(&input).digest().bytes()) {
                    distinct += 1;
                    bar.inc(1);
                }
                output.add(&input)?;
            }
            output.finish()
        };
        let written = draw();
        bar.finish_and_clear();
        if let Err(e) = written {
            return match output.error(e) {
                Some(message) => Err(message),
                None => Ok(ExitCode::SUCCESS),
            };
        }
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!(
                "interrupted after {done} of {count} inputs ({}, seed {seed}): {}",
                mode_name(mode),
                output.summary()
            );
            return Ok(ExitCode::from(130));
        }
        eprintln!(
            "generated {done} inputs ({}, seed {seed}): {}",
            mode_name(mode),
            output.summary()
        );
        if distinct < count {
            eprintln!(
                "warning: only {distinct} distinct inputs of --count {count}: {done} draws ({MAX_DRAWS_PER_INPUT} × \
                 --count) repeated the others; this grammar and model have few inputs within --max-size {} \
                 (raise --max-size, use --invert or --uniform, or give more varied samples)",
                max_len
            );
        }
        end_warnings(&output);
        Ok(ExitCode::SUCCESS)
    }
}

/// `gen` draws at most this many times --count inputs to find --count distinct ones.
const MAX_DRAWS_PER_INPUT: usize = 10;

/// The warning when the grow phase ran (`grow_phase`) and the inputs' mean size is below its
/// `min_size`: what happened, why, and what to do.
/// `recursive`: whether the start rule reaches a recursive rule (something the grow phase can grow).
fn size_warning(
    output: &Output,
    (min_size, max_size): (usize, usize),
    grow_phase: bool,
    given: bool,
    recursive: bool,
) -> Option<String> {
    // A grammar with nothing to grow and a --min-size no one asked for: nothing to say.
    if !grow_phase || output.written == 0 || (!given && !recursive) {
        return None;
    }
    let mean = output.bytes as f64 / output.written as f64;
    if mean >= min_size as f64 {
        return None;
    }
    let why = if recursive {
        format!(
            "the grow phase keeps only the last open node of a recursive rule open, so it stops short \
             where the grammar's growth is capped: repetitions end by their (mined or inverted) \
             probabilities, and items that derive nothing (an empty layout such as `_extra = \"\" ;`) fill \
             the bound of {} tree nodes (16 per byte of --max-size, plus 256) without adding bytes",
            max_size.saturating_mul(16).saturating_add(256)
        )
    } else {
        "the grammar has no recursive rule, so the grow phase has nothing to grow: inputs are as long \
         as its repetitions' probabilities make them"
            .to_string()
    };
    Some(format!(
        "warning: the inputs' mean size is {mean:.1} bytes, below --min-size {min_size}{}: {why}; to get \
         larger inputs, make items that derive nothing non-empty or remove them (`_ = \"\" ;`), raise \
         --max-size, or generate more of the same from larger samples (without --min-size and --invert)",
        if given {
            ""
        } else {
            " (the default: half of --max-size)"
        },
    ))
}

/// A [`GenerateError`] in terms of `gen`'s options; `default` if --max-size was not given.
fn gen_limits_error(e: &GenerateError, default: bool) -> String {
    let given = if default { " (the default)" } else { "" };
    match e {
        GenerateError::TooSmall {
            grammar,
            rule,
            smallest,
            max_size,
        } => format!(
            "the smallest input grammar {grammar} derives is {smallest} byte{} (rule `{rule}`), more than \
             --max-size {max_size}{given}: raise --max-size to at least {smallest}",
            if *smallest == 1 { "" } else { "s" }
        ),
        GenerateError::TooLarge { max_size } => {
            format!("--max-size {max_size} is more than one input can have ({MAX_SIZE_LIMIT} bytes): lower --max-size")
        }
        other => other.to_string(),
    }
}

fn mode_name(mode: ProbabilityMode) -> &'static str {
    match mode {
        ProbabilityMode::Mined => "more of the same",
        ProbabilityMode::Inverted => "inverted",
        ProbabilityMode::Uniform => "uniform",
    }
}

/// `hellfuzz gen --keep-if`: the library's filter between the generator and the output.
fn gen_kept(
    next: &mut dyn FnMut() -> Vec<u8>,
    output: &mut Output,
    count: usize,
    seed: u64,
    mode: ProbabilityMode,
    keep_if: &KeepIf,
) -> Result<ExitCode, String> {
    let command = Subprocess::new(split_command(&keep_if.cmd)?)
        .map_err(|e| e.to_string())?
        .timeout(keep_if.timeout)
        .env("RUST_BACKTRACE", "0");
    let jobs = keep_if
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut options = KeepIfOptions::new(count);
    options.max_tries = keep_if.max_tries.unwrap_or(options.max_tries);
    options.jobs = jobs;
    // Ctrl-C, SIGTERM, SIGHUP: kill the running commands, stop, keep what was kept.
    options.cancel = Some(cancel_on_ctrl_c());
    // Shown on a terminal only (indicatif draws on stderr when it is one), whatever the count:
    // running a command per input is slow.
    let bar = indicatif::ProgressBar::new(count as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} kept, {msg}, {elapsed} ({eta} left)")
            .expect("valid template"),
    );
    let result = hellfuzz::oracle::keep_if(
        &command,
        &options,
        next,
        |input| output.add(input),
        |stats| {
            bar.set_position(stats.kept as u64);
            bar.set_message(format!(
                "{} tried ({:.1}% kept)",
                stats.tried,
                stats.acceptance_percent()
            ));
        },
    )
    .and_then(|stats| output.finish().map(|()| stats).map_err(KeepIfError::Write));
    bar.finish_and_clear();
    let stats = match result {
        Ok(stats) => stats,
        Err(KeepIfError::Write(e)) => {
            return match output.error(e) {
                Some(message) => Err(message),
                None => Ok(ExitCode::SUCCESS),
            }
        }
        Err(e) => {
            // What was kept is written all the same (the error comes after it on stderr).
            if output.finish().is_ok() && output.written + output.duplicates > 0 {
                eprintln!("kept so far: {}", output.summary());
            }
            return Err(e.to_string());
        }
    };
    eprintln!(
        "kept {} of {} inputs tried ({:.1}%) with `{}` ({}, seed {seed}; {} runs{}, -j {jobs}, {:.1} s){}: {}",
        stats.kept,
        stats.tried,
        stats.acceptance_percent(),
        keep_if.cmd,
        mode_name(mode),
        stats.runs,
        if stats.timed_out > 0 {
            format!(", {} timed out", stats.timed_out)
        } else {
            String::new()
        },
        stats.time.as_secs_f64(),
        if stats.interrupted { " (interrupted)" } else { "" },
        output.summary()
    );
    Ok(if stats.interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}
