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
    like_samples: bool,
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
    // "More of the same" follows one sample per input (size, choices, characters), unless the
    // user set the grow phase (--min-size).
    let targets = match &model {
        Some(m) if mode == Mode::Mined && like_samples => hellfuzz::generate::targets(&g, m),
        _ => Vec::new(),
    };
    let mut generator = Generator::new(&g, &probs, limits, seed).with_targets(&targets);
    let mut corpus = match &out {
        Some(dir) => Some(Corpus::open(dir).map_err(|e| format!("cannot use corpus folder {}: {e}", dir.display()))?),
        None => None,
    };
    let bar = indicatif::ProgressBar::new(count as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} inputs, {elapsed} ({eta} left)")
            .expect("valid template"),
    );
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
            Some(c) => matches!(
                c.add(&input)
                    .map_err(|e| format!("cannot write into {}: {e}", out.as_ref().unwrap().display()))?,
                Written::New(_)
            ),
            None => {
                let new = seen.insert(input.clone());
                if new {
                    stdout
                        .write_all(&input)
                        .and_then(|_| stdout.write_all(if nul { b"\0" } else { b"\n" }))
                        .map_err(|e| format!("cannot write output: {e}"))?;
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
