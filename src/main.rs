//! The `hellfuzz` command line: argument parsing and printing only; the work is in the library.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser as ClapParser, Subcommand};
use hellfuzz::generate::{Corpus, Generator, Limits, Written};
use hellfuzz::grammar::{builtin, Body, Grammar, Severity};
use hellfuzz::mine::{samples, Mode, Model, Probabilities};
use hellfuzz::oracle::Classify;
use hellfuzz::parse::Parser;
use hellfuzz::reduce::{Algorithm, Budget, Options};
use hellfuzz::tree::Tree;
use std::time::Duration;

#[derive(ClapParser)]
#[command(name = "hellfuzz", version, about = "Grammar-based seeds, crash minimization and triage for cargo-fuzz and afl.rs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a grammar: print its diagnostics and a summary of its rules; for a built-in grammar
    /// (or with --samples), also parse its samples and verify that unparsing gives them back.
    Check {
        /// A built-in grammar name (json, expr, js) or a path to a grammar file.
        grammar: String,
        /// A directory of sample inputs to parse (default for built-ins: their built-in samples).
        #[arg(long)]
        samples: Option<PathBuf>,
    },
    /// Parse files with a grammar and print their derivation trees.
    Parse {
        /// A built-in grammar name (json, expr, js) or a path to a grammar file.
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
        /// A built-in grammar name (json, expr, js) or a path to a grammar file.
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
        /// With --show: print the inverted probabilities instead.
        #[arg(long)]
        invert: bool,
    },
    /// Generate inputs: "more of the same" as the samples, or with --invert "inputs from hell".
    Gen {
        /// A built-in grammar name (json, expr, js) or a path to a grammar file.
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
        /// How many inputs to generate (duplicates are skipped and counted).
        #[arg(long, short = 'n', default_value_t = 100)]
        count: usize,
        /// Seed of the random choices; the same seed gives the same inputs.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Largest input in bytes.
        #[arg(long, default_value_t = 1000)]
        max_size: usize,
        /// Grow phase: keep inputs growing until they have this many bytes (default: half of
        /// --max-size).
        #[arg(long)]
        min_size: Option<usize>,
        /// Write each input into this folder, named by the SHA-1 of its content (a libFuzzer corpus).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// On standard output, end each input with a NUL byte instead of a newline.
        #[arg(long)]
        nul: bool,
    },
    /// Reduce a failing input: GTR* on its derivation tree, then ddmin on its characters.
    Reduce {
        /// The failing input (never modified).
        input: PathBuf,
        /// A built-in grammar name or a grammar file; without one (or if the input does not
        /// parse), ddmin on characters is used.
        #[arg(long, short)]
        grammar: Option<String>,
        /// The command to run on each candidate: `@@` becomes the path of a file holding it;
        /// without `@@` the candidate goes to standard input.
        #[arg(long)]
        cmd: String,
        /// The algorithm: gtr*, gtr, hdd*, hdd or ddmin.
        #[arg(long, default_value = "gtr*")]
        algo: String,
        /// A candidate fails if it panics where the original panicked (default: if it crashes
        /// the way the original crashed: same panic, signal, exit status or timeout).
        #[arg(long, conflicts_with_all = ["exit_code", "stderr"])]
        same_panic: bool,
        /// A candidate fails if the command exits with this status.
        #[arg(long, conflicts_with = "stderr")]
        exit_code: Option<i32>,
        /// A candidate fails if the command's standard error matches this regular expression.
        #[arg(long)]
        stderr: Option<String>,
        /// Candidates tested at once (the result is the same as with -j 1).
        #[arg(short = 'j', long, default_value_t = 1)]
        jobs: usize,
        /// Where to write the reduced input (default: the input's path with `.reduced` added).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Print a JSON record of the reduction on standard output.
        #[arg(long)]
        json: bool,
        /// Seconds before a run of the command is killed (and counts as unresolved).
        #[arg(long, default_value_t = 10.0)]
        timeout: f64,
        /// Stop after testing this many candidates (the best input so far is kept).
        #[arg(long)]
        max_tests: Option<u64>,
        /// Stop after this many seconds (the best input so far is kept).
        #[arg(long)]
        max_time: Option<f64>,
        /// Skip the final ddmin pass over characters.
        #[arg(long)]
        no_byte_pass: bool,
        /// Sample inputs (files, folders, globs) to learn the GTR paper's corpus filters from
        /// (mandatory edges, allowed contexts): extra pruning of candidates, needs --grammar.
        #[arg(long)]
        corpus: Vec<String>,
    },
    /// Print a libFuzzer/AFL dictionary of the grammar's literals (use with -dict=FILE or -x FILE).
    Dict {
        /// A built-in grammar name (json, expr, js) or a path to a grammar file.
        grammar: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check { grammar, samples } => check(&grammar, samples),
        Command::Parse { grammar, files, json, quiet } => parse(&grammar, &files, json, quiet),
        Command::Mine { grammar, samples, output, merge, show, invert } => mine(&grammar, &samples, output, &merge, show, invert),
        Command::Gen { grammar, model, samples, invert, uniform, count, seed, max_size, min_size, out, nul } => {
            let mode = if invert { Mode::Inverted } else if uniform { Mode::Uniform } else { Mode::Mined };
            let limits = Limits { min_size: min_size.unwrap_or(max_size / 2), ..Limits::up_to(max_size) };
            gen(&grammar, &model, &samples, mode, count, seed, limits, out, nul)
        }
        Command::Reduce { input, grammar, cmd, algo, same_panic, exit_code, stderr, jobs, out, json, timeout, max_tests, max_time, no_byte_pass, corpus } => {
            let classify = match (same_panic, exit_code, stderr) {
                (true, _, _) => Ok(Classify::SamePanic),
                (_, Some(code), _) => Ok(Classify::ExitCode(code)),
                (_, _, Some(re)) => Classify::stderr(&re).map_err(|e| e.to_string()),
                _ => Ok(Classify::SameCrash),
            };
            let budget = Budget { max_tests, max_time: max_time.map(Duration::from_secs_f64) };
            classify.and_then(|classify| {
                let algorithm = Algorithm::from_name(&algo).ok_or_else(|| format!("unknown algorithm `{algo}`: use gtr*, gtr, hdd*, hdd or ddmin"))?;
                let options = Options { algorithm, byte_pass: !no_byte_pass, jobs, budget, corpus: None };
                reduce_cmd(&input, grammar.as_deref(), &corpus, &cmd, classify, Duration::from_secs_f64(timeout), options, out, json)
            })
        }
        Command::Dict { grammar } => load_grammar(&grammar).map(|g| {
            print!("{}", g.dictionary());
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

fn load_grammar(name: &str) -> Result<Grammar, String> {
    let grammar = Grammar::load(name).map_err(|e| {
        for d in &e.diagnostics {
            eprintln!("{d}");
        }
        format!("grammar `{name}` has {} error(s)", e.errors().count())
    })?;
    for w in grammar.warnings() {
        eprintln!("{w}");
    }
    Ok(grammar)
}

fn check(name: &str, samples: Option<PathBuf>) -> Result<ExitCode, String> {
    let g = load_grammar(name)?;
    let named = g.symbols().iter().filter(|s| !s.synthetic).count();
    let warnings = g.warnings().iter().filter(|d| d.severity == Severity::Warning).count();
    println!(
        "{}: ok, {} rules (+{} synthetic symbols for groups and repetitions), {} terminals, start `{}`, {} warning(s)",
        g.origin(),
        named,
        g.symbols().len() - named,
        g.terminals().len(),
        g.symbol(g.start()).name,
        warnings
    );
    println!("{:<16} {:>5} {:>8} {:>9}  {:<24} unit chains (⇒+)", "rule", "alts", "nullable", "cheapest", "cheapest derivation");
    for (i, s) in g.symbols().iter().enumerate().filter(|(_, s)| !s.synthetic) {
        let sym = hellfuzz::grammar::SymbolId(i as u32);
        let alts = match &s.body {
            Body::Choice(a) => a.len(),
            _ => 1,
        };
        let cheapest = Tree::cheapest(&g, sym).map(|t| t.unparse()).unwrap_or_default();
        let shown: String = format!("{:?}", String::from_utf8_lossy(&cheapest)).chars().take(24).collect();
        let units: Vec<&str> = g.analysis().unit_reach[i].iter().filter(|u| !g.symbol(**u).synthetic).map(|u| g.symbol(*u).name.as_str()).collect();
        println!("{:<16} {:>5} {:>8} {:>9}  {:<24} {}", s.name, alts, if g.is_nullable(sym) { "yes" } else { "no" }, g.cheapest_len(sym), shown, units.join(" "));
    }
    let files: Vec<(String, Vec<u8>)> = match samples {
        Some(dir) => read_dir_files(&dir)?,
        None => builtin::samples(name).iter().map(|(n, b)| (format!("<builtin:{name}>/{n}"), b.to_vec())).collect(),
    };
    if files.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let parser = Parser::new(&g);
    let mut failed = 0;
    let mut bytes = 0;
    let started = std::time::Instant::now();
    for (file, input) in &files {
        bytes += input.len();
        match parser.parse(input) {
            Ok(tree) if tree.unparse() == *input => {}
            Ok(_) => {
                failed += 1;
                eprintln!("{file}: parsed, but unparsing did not give the same bytes back (a hellfuzz bug; please report it)");
            }
            Err(e) => {
                failed += 1;
                eprintln!("{file}:{}:{}: parse error: {e}", e.line, e.col);
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "samples: {} of {} parse and unparse exactly ({} bytes in {:.1} ms)",
        files.len() - failed,
        files.len(),
        bytes,
        secs * 1e3
    );
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn read_dir_files(dir: &PathBuf) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read samples directory {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths.into_iter().map(|p| read_input(&p).map(|b| (p.display().to_string(), b))).collect()
}

fn read_input(path: &PathBuf) -> Result<Vec<u8>, String> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn parse(name: &str, files: &[PathBuf], json: bool, quiet: bool) -> Result<ExitCode, String> {
    let g = load_grammar(name)?;
    let parser = Parser::new(&g);
    let mut failed = false;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for path in files {
        let input = read_input(path)?;
        match parser.parse(&input) {
            Ok(tree) if quiet => drop(tree),
            Ok(tree) => {
                let text = if json { tree.to_json(&g) + "\n" } else { tree.to_text(&g) };
                out.write_all(text.as_bytes()).map_err(|e| format!("cannot write output: {e}"))?;
            }
            Err(e) => {
                failed = true;
                eprintln!("{}:{}:{}: parse error: {e}", path.display(), e.line, e.col);
            }
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn report_skipped(skipped: &[samples::Skipped]) {
    for s in skipped {
        match &s.parse_error {
            Some(e) => eprintln!("skipped {}:{}:{}: does not parse: {e}", s.name, e.line, e.col),
            None => eprintln!("skipped {}: {}", s.name, s.reason),
        }
    }
}

fn mine(name: &str, args: &[String], output: Option<PathBuf>, merge: &[PathBuf], show: bool, invert: bool) -> Result<ExitCode, String> {
    let g = load_grammar(name)?;
    let files = samples::collect(args)?;
    let (mut model, skipped) = samples::mine_files(&g, &files);
    report_skipped(&skipped);
    for path in merge {
        let other = Model::load(path, &g).map_err(|e| e.to_string())?;
        model.merge(&other).map_err(|e| e.to_string())?;
    }
    eprintln!("mined {} of {} samples ({} skipped){}", files.len() - skipped.len(), files.len(), skipped.len(), if merge.is_empty() { String::new() } else { format!(", merged {} model(s): {} samples in all", merge.len(), model.samples) });
    if model.samples == 0 {
        return Err("no sample could be mined".into());
    }
    if let Some(path) = &output {
        model.save(path).map_err(|e| e.to_string())?;
        eprintln!("model written to {}", path.display());
    }
    if show || output.is_none() {
        let mode = if invert { Mode::Inverted } else { Mode::Mined };
        print!("{}", Probabilities::new(&g, Some(&model), mode).annotate(&g));
    }
    Ok(ExitCode::SUCCESS)
}

/// The model `gen` uses: the given models merged, else the given samples mined, else the
/// built-in samples of a built-in grammar; `None` if there is nothing to mine.
fn gen_model(g: &Grammar, name: &str, models: &[PathBuf], sample_args: &[String]) -> Result<Option<Model>, String> {
    if let Some((first, rest)) = models.split_first() {
        let mut model = Model::load(first, g).map_err(|e| e.to_string())?;
        for path in rest {
            model.merge(&Model::load(path, g).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        }
        return Ok(Some(model));
    }
    let (model, skipped) = if !sample_args.is_empty() {
        samples::mine_files(g, &samples::collect(sample_args)?)
    } else if builtin::grammar_text(name).is_some() {
        samples::mine_builtin(g, name)
    } else {
        return Ok(None);
    };
    report_skipped(&skipped);
    Ok((model.samples > 0).then_some(model))
}

#[allow(clippy::too_many_arguments)]
fn gen(name: &str, models: &[PathBuf], sample_args: &[String], mode: Mode, count: usize, seed: u64, limits: Limits, out: Option<PathBuf>, nul: bool) -> Result<ExitCode, String> {
    let g = load_grammar(name)?;
    let model = gen_model(&g, name, models, sample_args)?;
    if model.is_none() && mode != Mode::Uniform {
        eprintln!("note: no samples or model for {}: using the grammar's own weights (give --samples or --model)", g.origin());
    }
    let probs = Probabilities::new(&g, model.as_ref(), mode);
    let mut generator = Generator::new(&g, &probs, limits, seed);
    let mut corpus = match &out {
        Some(dir) => Some(Corpus::open(dir).map_err(|e| format!("cannot use corpus folder {}: {e}", dir.display()))?),
        None => None,
    };
    let bar = indicatif::ProgressBar::new(count as u64);
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} inputs, {elapsed} ({eta} left)").expect("valid template"));
    if count < 200 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let mut seen = std::collections::HashSet::new();
    let (mut written, mut duplicates, mut bytes, mut largest) = (0usize, 0usize, 0usize, 0usize);
    let stdout = std::io::stdout();
    let mut stdout = std::io::BufWriter::new(stdout.lock());
    for _ in 0..count {
        let input = generator.input();
        bar.inc(1);
        let new = match &mut corpus {
            Some(c) => matches!(c.add(&input).map_err(|e| format!("cannot write into {}: {e}", out.as_ref().unwrap().display()))?, Written::New(_)),
            None => {
                let new = seen.insert(input.clone());
                if new {
                    stdout.write_all(&input).and_then(|_| stdout.write_all(if nul { b"\0" } else { b"\n" })).map_err(|e| format!("cannot write output: {e}"))?;
                }
                new
            }
        };
        if new {
            written += 1;
            bytes += input.len();
            largest = largest.max(input.len());
        } else {
            duplicates += 1;
        }
    }
    bar.finish_and_clear();
    stdout.flush().map_err(|e| format!("cannot write output: {e}"))?;
    let mode_name = match mode {
        Mode::Mined => "more of the same",
        Mode::Inverted => "inverted",
        Mode::Uniform => "uniform",
    };
    eprintln!(
        "generated {count} inputs ({mode_name}, seed {seed}): {written} distinct, {duplicates} duplicates skipped; mean size {:.1} bytes, largest {largest}{}",
        if written > 0 { bytes as f64 / written as f64 } else { 0.0 },
        out.map(|d| format!("; written to {}", d.display())).unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::too_many_arguments)]
fn reduce_cmd(path: &PathBuf, grammar: Option<&str>, corpus: &[String], cmd: &str, classify: Classify, timeout: Duration, mut options: Options, out: Option<PathBuf>, json: bool) -> Result<ExitCode, String> {
    let input = read_input(path)?;
    let argv = shlex::split(cmd).filter(|a| !a.is_empty()).ok_or_else(|| format!("cannot split the command `{cmd}` into words (unbalanced quotes?)"))?;
    let command = hellfuzz::oracle::Command::new(argv)
        .map_err(|e| e.to_string())?
        .timeout(timeout)
        .classify(classify)
        .calibrate(&input)
        .map_err(|e| format!("the original input does not fail as required: {e}"))?;
    let grammar = grammar.map(load_grammar).transpose()?;
    if !corpus.is_empty() {
        let g = grammar.as_ref().ok_or("--corpus needs --grammar: the corpus is parsed with it")?;
        let (filter, learned, skipped) = hellfuzz::reduce::CorpusFilter::learn_files(g, &samples::collect(corpus)?);
        report_skipped(&skipped);
        eprintln!("learned corpus filters from {learned} samples");
        options.corpus = Some(filter);
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"));
    let original = input.len();
    let progress = |tests: u64, best: usize| {
        let best = if best == usize::MAX { original } else { best };
        bar.set_message(format!("{best} of {original} bytes, {tests} candidates tested"));
        bar.tick();
    };
    let result = hellfuzz::reduce::reduce_with_progress(&input, grammar.as_ref(), &command, &options, &progress).map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    for note in &result.notes {
        eprintln!("note: {note}");
    }
    let out = out.unwrap_or_else(|| {
        let mut p = path.clone().into_os_string();
        p.push(".reduced");
        PathBuf::from(p)
    });
    hellfuzz::generate::write_atomically(&out, &result.input).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
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
    Ok(if result.confirmed { ExitCode::SUCCESS } else { ExitCode::from(2) })
}
