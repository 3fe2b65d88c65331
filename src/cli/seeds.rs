//! `hellfuzz mine`, `hellfuzz gen` and `hellfuzz dict`: models, generated seeds, dictionaries.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use hellfuzz::generate::{Corpus, Generator, Limits, Written};
use hellfuzz::grammar::{builtin, Grammar};
use hellfuzz::mine::{samples, Mode, Model, Probabilities};

use super::common::{load_grammar, report_skipped};

/// `hellfuzz mine`.
pub fn mine(
    name: &str,
    args: &[String],
    output: Option<PathBuf>,
    merge: &[PathBuf],
    show: bool,
    invert: bool,
) -> Result<ExitCode, String> {
    let g = load_grammar(name)?;
    let files = samples::collect(args)?;
    let (mut model, skipped) = samples::mine_files(&g, &files);
    report_skipped(&skipped);
    for path in merge {
        let other = Model::load(path, &g).map_err(|e| e.to_string())?;
        model.merge(&other).map_err(|e| e.to_string())?;
    }
    eprintln!(
        "mined {} of {} samples ({} skipped){}",
        files.len() - skipped.len(),
        files.len(),
        skipped.len(),
        if merge.is_empty() {
            String::new()
        } else {
            format!(", merged {} model(s): {} samples in all", merge.len(), model.samples)
        }
    );
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
            model
                .merge(&Model::load(path, g).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
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

/// `hellfuzz gen`.
#[allow(clippy::too_many_arguments)]
pub fn gen(
    name: &str,
    models: &[PathBuf],
    sample_args: &[String],
    mode: Mode,
    count: usize,
    seed: u64,
    limits: Limits,
    out: Option<PathBuf>,
    nul: bool,
) -> Result<ExitCode, String> {
    let g = load_grammar(name)?;
    let model = gen_model(&g, name, models, sample_args)?;
    if model.is_none() && mode != Mode::Uniform {
        eprintln!(
            "note: no samples or model for {}: using the grammar's own weights (give --samples or --model)",
            g.origin()
        );
    }
    let probs = Probabilities::new(&g, model.as_ref(), mode);
    let mut generator = Generator::new(&g, &probs, limits, seed);
    let mut output = Output::new(out.as_ref(), nul)?;
    let bar = indicatif::ProgressBar::new(count as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} inputs, {elapsed} ({eta} left)")
            .expect("valid template"),
    );
    if count < 200 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let written = (0..count)
        .try_for_each(|_| {
            let input = generator.input();
            bar.inc(1);
            output.add(&input)
        })
        .and_then(|()| output.finish());
    bar.finish_and_clear();
    if let Err(e) = written {
        return match output.error(e) {
            Some(message) => Err(message),
            None => Ok(ExitCode::SUCCESS),
        };
    }
    eprintln!(
        "generated {count} inputs ({}, seed {seed}): {}",
        mode_name(mode),
        output.summary()
    );
    Ok(ExitCode::SUCCESS)
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Mined => "more of the same",
        Mode::Inverted => "inverted",
        Mode::Uniform => "uniform",
    }
}
