//! `hellfuzz mine`: counts of every choice the samples' derivations make, as a model (JSON) or
//! as the grammar annotated with the probabilities.

use std::path::PathBuf;
use std::process::ExitCode;

use hellfuzz::mine::{samples, Model, Probabilities, ProbabilityMode};

use super::common::{load_grammar, report_skipped, skipped_warning};

/// Mine samples: count every choice their derivations make, into a model (JSON).
#[derive(clap::Args)]
pub struct MineArgs {
    /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
    pub grammar: String,
    /// Sample files, folders (searched recursively) or glob patterns; repeat it for more (the
    /// same option as `check`, `gen` and `reduce` take).
    #[arg(long, value_name = "PATH", required_unless_present = "samples_positional")]
    pub samples: Vec<String>,
    /// Samples given without `--samples` (the older spelling, still accepted; also a shell's
    /// expansion of `--samples dir/*` past its first file).
    #[arg(hide = true, value_name = "PATH")]
    pub samples_positional: Vec<String>,
    /// Write the model here.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Add the counts of existing models (mined with the same grammar).
    #[arg(long)]
    pub merge: Vec<PathBuf>,
    /// Print the grammar annotated with the mined probabilities (a valid grammar file).
    #[arg(long)]
    pub show: bool,
    /// With --show: print the inverted probabilities instead (a model holds counts: it is
    /// inverted when `gen --invert` uses it).
    #[arg(long, requires = "show")]
    pub invert: bool,
    /// With --invert: invert layout too (as `gen --invert --invert-layout`).
    #[arg(long, requires = "invert")]
    pub invert_layout: bool,
}

impl MineArgs {
    /// Runs `hellfuzz mine`.
    pub fn run(self) -> Result<ExitCode, String> {
        let MineArgs {
            grammar,
            samples: mut args,
            samples_positional,
            out: output,
            merge,
            show,
            invert,
            invert_layout,
        } = self;
        args.extend(samples_positional);
        let (name, args, merge) = (grammar.as_str(), args.as_slice(), merge.as_slice());
        let g = load_grammar(name)?;
        let files = samples::collect(args).map_err(|e| e.to_string())?;
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
            let mode = if invert {
                ProbabilityMode::Inverted
            } else {
                ProbabilityMode::Mined
            };
            out!(
                "{}",
                Probabilities::new_with(&g, Some(&model), mode, invert_layout).annotate(&g)
            );
        }
        // Last, where it is seen: the model lacks these samples.
        if let Some(warning) = skipped_warning(&skipped, files.len()) {
            eprintln!("{warning}");
        }
        Ok(ExitCode::SUCCESS)
    }
}
