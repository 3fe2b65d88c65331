//! The `hellfuzz` command line: argument parsing and printing only; the work is in the library.

#[macro_use]
mod cli;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser as ClapParser, Subcommand};
use hellfuzz::generate::Limits;
use hellfuzz::mine::Mode;
use hellfuzz::oracle::Classify;
use hellfuzz::reduce::{Algorithm, Budget, Options};

use cli::common::load_grammar;

/// `gen --max-size` when not given (and not following the samples' sizes).
const DEFAULT_MAX_SIZE: usize = 1000;

#[derive(ClapParser)]
#[command(
    name = "hellfuzz",
    version,
    about = "Grammar-based seeds, crash minimization and triage for cargo-fuzz and afl.rs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a grammar: print its diagnostics and a summary of its rules; for a built-in grammar
    /// (or with --samples), also parse its samples and verify that unparsing gives them back.
    Check {
        /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
        grammar: String,
        /// Sample files, folders (searched recursively) or glob patterns to parse (default for
        /// built-ins: their built-in samples).
        #[arg(long)]
        samples: Vec<String>,
        /// Print the grammar with its contexts and exclusions expanded into plain rules (what the
        /// parser, miner and generator use) instead of the summary.
        #[arg(long)]
        expand: bool,
    },
    /// Parse files with a grammar and print their derivation trees.
    Parse {
        /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
        grammar: String,
        /// Files to parse (`-` reads standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print trees as JSON (one document per file, one per line).
        #[arg(long)]
        json: bool,
        /// Print nothing for files that parse; only errors and the exit status.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Mine samples: count every choice their derivations make, into a model (JSON).
    Mine {
        /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
        grammar: String,
        /// Sample files, folders (searched recursively) or glob patterns.
        #[arg(required = true)]
        samples: Vec<String>,
        /// Write the model here.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Add the counts of existing models (mined with the same grammar).
        #[arg(long)]
        merge: Vec<PathBuf>,
        /// Print the grammar annotated with the mined probabilities (a valid grammar file).
        #[arg(long)]
        show: bool,
        /// With --show: print the inverted probabilities instead (a model holds counts: it is
        /// inverted when `gen --invert` uses it).
        #[arg(long, requires = "show")]
        invert: bool,
    },
    /// Generate inputs: "more of the same" as the samples, or with --invert "inputs from hell";
    /// with --keep-if, only those a command accepts.
    Gen {
        /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
        grammar: String,
        /// Models to generate from (default: mine --samples, or a built-in grammar's samples).
        #[arg(long)]
        model: Vec<PathBuf>,
        /// Sample files, folders or globs to mine first (instead of --model).
        #[arg(long)]
        samples: Vec<String>,
        /// Invert the mined probabilities: prefer what the samples rarely or never use.
        #[arg(long, conflicts_with = "uniform")]
        invert: bool,
        /// Ignore models and weights: every choice equally likely.
        #[arg(long)]
        uniform: bool,
        /// How many inputs to generate (duplicates are skipped and counted); with --keep-if, how
        /// many inputs the command must keep.
        #[arg(long, short = 'n', default_value_t = 100, value_parser = at_least_one, allow_negative_numbers = true)]
        count: usize,
        /// Seed of the random choices; the same seed gives the same inputs.
        #[arg(long, default_value_t = 0, value_parser = seed, allow_negative_numbers = true)]
        seed: u64,
        /// Largest input in bytes (default 1000; "more of the same" mined from samples: as large
        /// as the largest sample).
        #[arg(long, value_parser = max_size, allow_negative_numbers = true)]
        max_size: Option<usize>,
        /// Grow phase: keep inputs growing until they have this many bytes (default: half of
        /// --max-size with --invert or --uniform; by default each input follows the size of a
        /// random sample instead).
        #[arg(long, value_parser = size, allow_negative_numbers = true)]
        min_size: Option<usize>,
        /// Write each input into this folder, named by the SHA-1 of its content (a libFuzzer corpus).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// On standard output, end each input with a NUL byte instead of a newline.
        #[arg(long)]
        nul: bool,
        /// Keep only the inputs this command accepts (exit status 0; another status, a signal or
        /// a timeout drops the input): `@@` becomes the path of a file holding the input; without
        /// `@@` the input goes to standard input. Rejected inputs are never written.
        #[arg(long, value_name = "CMD @@")]
        keep_if: Option<String>,
        /// With --keep-if: generate at most this many candidates (default: 20 × --count); stop
        /// with an error as soon as --count cannot be reached within them.
        #[arg(long, requires = "keep_if", value_parser = at_least_one, allow_negative_numbers = true)]
        max_tries: Option<usize>,
        /// With --keep-if: commands run at once (default: the number of CPUs); the kept inputs
        /// are the same for every -j.
        #[arg(short = 'j', long, requires = "keep_if", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        jobs: Option<usize>,
        /// With --keep-if: seconds before a run of the command is killed (the input is dropped)
        /// [default: 10].
        #[arg(long, requires = "keep_if", value_parser = positive_seconds, allow_negative_numbers = true)]
        timeout: Option<Duration>,
    },
    /// Reduce a failing input: GTR* on its derivation tree (without a grammar: on a generic tree
    /// of the text), then ddmin on its characters.
    Reduce {
        /// The failing input (never modified).
        input: PathBuf,
        /// A built-in grammar name or a grammar file; without one (or if the input does not
        /// parse), GTR* runs on a generic tree: tokens, bracket groups, lines, indented blocks.
        #[arg(long, short)]
        grammar: Option<String>,
        /// The command to run on each candidate: `@@` becomes the path of a file holding it;
        /// without `@@` the candidate goes to standard input.
        #[arg(long, required_unless_present = "harness")]
        cmd: Option<String>,
        /// A fuzz-target binary built with `hellfuzz::fuzz_target!`: reduce in its process (reduce
        /// mode); crashes that kill the process fall back to one run of the binary per candidate.
        #[arg(long, conflicts_with_all = ["cmd", "same_panic", "exit_code", "stderr", "corpus", "samples"])]
        harness: Option<PathBuf>,
        /// The algorithm: gtr*, gtr, hdd*, hdd or ddmin.
        #[arg(long, default_value = "gtr*")]
        algo: String,
        /// A candidate fails if it panics where the original panicked (default: if it crashes
        /// the way the original crashed: same panic, signal, exit status or timeout).
        #[arg(long, conflicts_with_all = ["exit_code", "stderr"])]
        same_panic: bool,
        /// A candidate fails if the command exits with this status.
        #[arg(long, conflicts_with = "stderr", value_parser = clap::builder::RangedI64ValueParser::<i32>::new().range(0..=255), allow_negative_numbers = true)]
        exit_code: Option<i32>,
        /// A candidate fails if the command's standard error matches this regular expression.
        #[arg(long)]
        stderr: Option<String>,
        /// Where to write the reduced input (default: the input's path with `.reduced` added).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Print a JSON record of the reduction on standard output.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: SearchLimits,
        /// Skip the final ddmin pass over characters.
        #[arg(long)]
        no_byte_pass: bool,
        /// Simplification passes to run once deletion is exhausted, in order, comma-separated:
        /// tokens (a word becomes `a`, a number `0`/`1`, a string empty or unquoted), repeats
        /// (every copy of a repeated token deleted, or replaced by a smaller one), pairs (two tokens at once, up to 40 tokens),
        /// bytes (a byte becomes a smaller one); `none` for none. Each costs oracle runs.
        #[arg(long, value_delimiter = ',', value_parser = parse_pass, default_value = "tokens,repeats")]
        passes: Vec<Option<hellfuzz::reduce::Pass>>,
        /// Sample inputs (files, folders, globs) to learn the GTR paper's corpus filters from
        /// (mandatory edges, allowed contexts): extra pruning of candidates, needs --grammar.
        #[arg(long)]
        corpus: Vec<String>,
        /// Sample inputs of the input's format (files, folders, globs): the same filters, learned
        /// on their generic trees, for inputs reduced without a grammar.
        #[arg(long, conflicts_with = "corpus")]
        samples: Vec<String>,
    },
    /// Repair an input the program cannot process: remove as little as possible (ddmax) so that
    /// the command exits with status 0; print what was removed, with offsets.
    Repair {
        /// The input to repair (never modified).
        input: PathBuf,
        /// A built-in grammar name or a grammar file: enables syntactic ddmax (over tokens).
        #[arg(long, short)]
        grammar: Option<String>,
        /// The command to run on each candidate: `@@` becomes the path of a file holding it;
        /// without `@@` the candidate goes to standard input. Exit status 0 = processed.
        #[arg(long)]
        cmd: String,
        /// ddmax over bytes (default without --grammar, or when nothing of the input parses).
        #[arg(long, conflicts_with = "syntactic")]
        lexical: bool,
        /// ddmax over the tokens of the error-recovering parse (default with --grammar).
        #[arg(long, requires = "grammar")]
        syntactic: bool,
        /// Never insert what the grammar expects at a parse error: the result is a subsequence
        /// of the input (the paper's ddmax). By default, with --grammar, repair may insert the
        /// cheapest string of an expected terminal (`{` -> `{}`, a missing `:`).
        #[arg(long)]
        no_insert: bool,
        /// Where to write the repaired input (default: the input's path with `.repaired` added).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Print a JSON record of the repair on standard output.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: SearchLimits,
    },
    /// Triage crash folders: rerun every crash file (libFuzzer crash-*/oom-*/timeout-*/…, AFL
    /// crashes/id:*, hangs/id:*, at any depth), group by signature, minimize one file per group,
    /// and report NEW / KNOWN / FIXED groups (report.md, report.json, report.sarif, history.json).
    Triage {
        /// Folders to search (at any depth) or crash files; never modified.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The harness binary: run as `HARNESS FILE` on each crash file.
        #[arg(long)]
        harness: PathBuf,
        /// A built-in grammar name or a grammar file: minimize with GTR* (default: ddmin).
        #[arg(long, short)]
        grammar: Option<String>,
        /// Files rerun at once (and candidates tested at once while minimizing).
        #[arg(short = 'j', long, default_value_t = 1, value_parser = at_least_one, allow_negative_numbers = true)]
        jobs: usize,
        /// Where reports, history and group folders go.
        #[arg(long, default_value = "triage")]
        out: PathBuf,
        /// Seconds before a run is killed and counted as a timeout.
        #[arg(long, default_value = "10", value_parser = positive_seconds, allow_negative_numbers = true)]
        timeout: Duration,
        /// Extra runs per file to tell flaky files from reproducible ones.
        #[arg(long, default_value_t = 1)]
        reruns: u32,
        /// Do not minimize (only rerun, group and report).
        #[arg(long)]
        no_minimize: bool,
        /// Seconds allowed for minimizing one group.
        #[arg(long, default_value = "120", value_parser = positive_seconds, allow_negative_numbers = true)]
        minimize_time: Duration,
        /// Exit with status 1 when a group is new (for CI gating); with `=SEVERITY[,SEVERITY…]`
        /// only when a new group has one of these severities: exploitable, probably-exploitable,
        /// not-exploitable, stack-overflow, out-of-memory, timeout.
        #[arg(long, value_name = "SEVERITY", num_args = 0..=1, require_equals = true, default_missing_value = "any")]
        fail_on_new: Option<String>,
        /// Rerun every crash file that prints no stack for its frames (with RUST_BACKTRACE=1, or
        /// under gdb), instead of a few per crash site: slower, and no group can hide behind
        /// another that crashes at the same place with the same message.
        #[arg(long)]
        trace_all: bool,
        /// Join groups whose stacks are nearly the same: CASR's stack distance (0: the same stack,
        /// 1: nothing in common) below THRESHOLD, complete linkage. Plain `--join-stacks` takes
        /// CASR's 0.3.
        #[arg(long, value_name = "THRESHOLD", num_args = 0..=1, require_equals = true,
              default_missing_value = "0.3", value_parser = stack_distance)]
        join_stacks: Option<f64>,
    },
    /// Convert a tree-sitter grammar (a grammar.json, or the name of a tree-sitter crate in cargo's
    /// registry) into a hellfuzz grammar file.
    Import {
        /// A path to a grammar.json (or a crate folder), or a crate name such as
        /// tree-sitter-toml-ng (looked up under $CARGO_HOME/registry/src; newest version).
        source: String,
        /// Write the grammar here (atomically) instead of to standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// An overrides file (hellfuzz grammar format): definitions of the external tokens, and
        /// replacements for imported rules that are wider than the real format.
        #[arg(long)]
        externals: Option<PathBuf>,
    },
    /// Print a libFuzzer/AFL dictionary of the grammar's literals (use with -dict=FILE or -x FILE).
    Dict {
        /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
        grammar: String,
    },
}

/// How hard `reduce` and `repair` search: one set of options for both commands.
#[derive(clap::Args)]
struct SearchLimits {
    /// Candidates tested at once (the result is the same as with -j 1).
    #[arg(short = 'j', long, default_value_t = 1, value_parser = at_least_one, allow_negative_numbers = true)]
    jobs: usize,
    /// Seconds before a run of the command is killed. reduce: a timed-out run is the failure when
    /// the original timed out too, else unresolved; repair: not processed. A command that times
    /// out on the input and on an empty input alike is refused.
    #[arg(long, default_value = "10", value_parser = positive_seconds, allow_negative_numbers = true)]
    timeout: Duration,
    /// Stop after testing this many candidates (the best input so far is kept).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
    max_tests: Option<u64>,
    /// Stop after this many seconds (the best input so far is kept).
    #[arg(long, value_parser = positive_seconds, allow_negative_numbers = true)]
    max_time: Option<Duration>,
}

impl SearchLimits {
    /// The search budget (no cancel flag: the command installs its own Ctrl-C handler).
    fn budget(&self) -> Budget {
        Budget {
            max_tests: self.max_tests,
            max_time: self.max_time,
            cancel: None,
        }
    }

    /// The per-run timeout of the command.
    fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// A number of seconds: finite and not negative.
fn seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text.parse().map_err(|e| format!("not a number of seconds: {e}"))?;
    Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("{text} is not a number of seconds above 0 (finite, below 1.8e19)"))
}

/// A number of seconds above zero: a limit of 0 would make every run time out, and every
/// timed-out run look like the failure being reduced.
fn positive_seconds(text: &str) -> Result<Duration, String> {
    let d = seconds(text)?;
    if d.is_zero() {
        return Err(format!("{text}: must be more than 0 seconds"));
    }
    Ok(d)
}

/// A simplification pass of `reduce --passes` by name (`none`: no pass).
fn parse_pass(text: &str) -> Result<Option<hellfuzz::reduce::Pass>, String> {
    use hellfuzz::reduce::Pass;
    if text == "none" {
        return Ok(None);
    }
    Pass::from_name(text).map(Some).ok_or_else(|| {
        let names: Vec<&str> = Pass::ALL.iter().map(|p| p.name()).collect();
        format!("unknown pass `{text}`: use {} or none", names.join(", "))
    })
}

/// The largest `--max-size`: generation needs memory proportional to it (a tree of up to 16
/// nodes per byte), about 40 bytes per byte of input; above this it would need gigabytes.
const MAX_SIZE_LIMIT: usize = 64 << 20;

/// A size in bytes (`--min-size`).
fn size(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .map_err(|_| format!("{text} is not a size in bytes (a whole number, 0 or more)"))
}

/// `--max-size`: at least 1 byte, at most [`MAX_SIZE_LIMIT`].
fn max_size(text: &str) -> Result<usize, String> {
    match size(text)? {
        0 => Err("must be at least 1 byte".to_string()),
        n if n > MAX_SIZE_LIMIT => Err(format!(
            "{n} bytes is more than gen makes in one input (at most {MAX_SIZE_LIMIT}, 64 MiB: memory grows with --max-size); for larger inputs, concatenate generated ones"
        )),
        n => Ok(n),
    }
}

/// A `--seed`: a whole number from 0 to 2^64-1.
fn seed(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("{text} is not a seed (a whole number from 0 to {})", u64::MAX))
}

/// A stack distance threshold: more than 0 (0 would join nothing), at most 1.
fn stack_distance(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 1.0 => Ok(t),
        Ok(_) => Err(format!(
            "{text}: a stack distance is more than 0 and at most 1 (CASR uses 0.3)"
        )),
        Err(e) => Err(format!("{text}: not a number ({e})")),
    }
}

/// A count of at least 1 (workers, runs).
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{text} is not a count (a whole number, at least 1)")),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check {
            grammar,
            samples,
            expand,
        } => cli::grammar::check(&grammar, &samples, expand),
        Command::Parse {
            grammar,
            files,
            json,
            quiet,
        } => cli::grammar::parse(&grammar, &files, json, quiet),
        Command::Mine {
            grammar,
            samples,
            output,
            merge,
            show,
            invert,
        } => cli::seeds::mine(&grammar, &samples, output, &merge, show, invert),
        Command::Gen {
            grammar,
            model,
            samples,
            invert,
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
        } => {
            let mode = if invert {
                Mode::Inverted
            } else if uniform {
                Mode::Uniform
            } else {
                Mode::Mined
            };
            let sample_max_size = max_size.is_none();
            let max_size = max_size.unwrap_or(DEFAULT_MAX_SIZE);
            let limits = Limits {
                min_size: min_size.unwrap_or(max_size / 2),
                ..Limits::up_to(max_size)
            };
            let keep_if = keep_if.map(|cmd| cli::seeds::KeepIf {
                cmd,
                max_tries,
                jobs,
                timeout: timeout.unwrap_or(hellfuzz::oracle::DEFAULT_TIMEOUT),
            });
            let like_samples = min_size.is_none();
            cli::seeds::gen(
                &grammar,
                &model,
                &samples,
                mode,
                count,
                seed,
                limits,
                like_samples,
                sample_max_size,
                out,
                nul,
                keep_if,
            )
        }
        Command::Reduce {
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
        } => {
            let classify = match (same_panic, exit_code, stderr) {
                (true, _, _) => Ok(Classify::SamePanic),
                (_, Some(code), _) => Ok(Classify::ExitCode(code)),
                (_, _, Some(re)) => Classify::stderr(&re).map_err(|e| e.to_string()),
                _ => Ok(Classify::SameCrash),
            };
            classify.and_then(|classify| {
                let algorithm = Algorithm::from_name(&algo)
                    .ok_or_else(|| format!("unknown algorithm `{algo}`: use gtr*, gtr, hdd*, hdd or ddmin"))?;
                let options = Options {
                    algorithm,
                    byte_pass: !no_byte_pass,
                    passes: passes.into_iter().flatten().collect(),
                    jobs: limits.jobs,
                    budget: limits.budget(),
                    corpus: None,
                };
                let timeout = limits.timeout();
                if let Some(harness) = harness {
                    return cli::reduce::reduce_harness_cmd(
                        &input,
                        &harness,
                        grammar.as_deref(),
                        timeout,
                        options,
                        out,
                        json,
                    );
                }
                cli::reduce::reduce_cmd(
                    &input,
                    grammar.as_deref(),
                    &corpus,
                    &samples,
                    cmd.as_deref().unwrap_or_default(),
                    classify,
                    timeout,
                    options,
                    out,
                    json,
                )
            })
        }
        Command::Repair {
            input,
            grammar,
            cmd,
            lexical,
            syntactic,
            no_insert,
            out,
            json,
            limits,
        } => {
            use hellfuzz::reduce::repair::{Mode as RepairMode, RepairOptions};
            let mode = match (lexical, syntactic) {
                (true, _) => Some(RepairMode::Lexical),
                (_, true) => Some(RepairMode::Syntactic),
                _ => None,
            };
            let options = RepairOptions {
                mode,
                jobs: limits.jobs,
                budget: limits.budget(),
                insert: !no_insert,
            };
            cli::repair::repair_cmd(&input, grammar.as_deref(), &cmd, limits.timeout(), options, out, json)
        }
        Command::Triage {
            dirs,
            harness,
            grammar,
            jobs,
            out,
            timeout,
            reruns,
            no_minimize,
            minimize_time,
            fail_on_new,
            trace_all,
            join_stacks,
        } => grammar.as_deref().map(load_grammar).transpose().and_then(|grammar| {
            let fail_on_new = fail_on_new.as_deref().map(cli::triage::FailOn::parse).transpose()?;
            let options = hellfuzz::triage::Options {
                grammar,
                jobs,
                out,
                timeout,
                reruns,
                minimize: !no_minimize,
                minimize_time: Some(minimize_time),
                trace_all,
                join_stacks,
                ..hellfuzz::triage::Options::new(harness)
            };
            cli::triage::triage_cmd(&dirs, options, fail_on_new)
        }),
        Command::Import {
            source,
            output,
            externals,
        } => cli::grammar::import(&source, output.as_deref(), externals.as_deref()),
        Command::Dict { grammar } => load_grammar(&grammar).map(|g| {
            out!("{}", g.dictionary());
            ExitCode::SUCCESS
        }),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
