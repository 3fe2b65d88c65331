//! `hellfuzz import`: a tree-sitter grammar converted into a hellfuzz grammar file.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Convert a tree-sitter grammar (a grammar.json, or the name of a tree-sitter crate in cargo's
/// registry) into a hellfuzz grammar file.
#[derive(clap::Args)]
pub struct ImportArgs {
    /// A path to a grammar.json (or a crate folder), or a crate name such as
    /// tree-sitter-toml-ng (looked up under $CARGO_HOME/registry/src; newest version); NAME/SUB
    /// picks the grammar in subfolder SUB of a crate that ships several (tree-sitter-xml/dtd).
    pub source: String,
    /// Write the grammar here (atomically) instead of to standard output.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// An overrides file (hellfuzz grammar format): definitions of the external tokens, and
    /// replacements for imported rules that are wider than the real format.
    #[arg(long)]
    pub externals: Option<PathBuf>,
    /// Refine the import in the same step (as `hellfuzz refine`) against this acceptance
    /// command (`@@` is the input's file; exit status 0 accepts it): `-o` gets the refined
    /// grammar, `OUT` with the extension `.raw.grammar` the import as it was, and `OUT` with
    /// the extension `.edits` the edits. Needs --samples and -o.
    #[arg(long, value_name = "'CMD @@'", requires_all = ["samples", "out"])]
    pub accept: Option<String>,
    /// With --accept: the samples refine learns from (files, folders, globs).
    #[arg(long, value_name = "PATH", requires = "accept")]
    pub samples: Vec<String>,
    /// With --accept: refine's time limit in seconds.
    #[arg(long, default_value = "600", requires = "accept", value_parser = super::args::positive_seconds)]
    pub max_time: std::time::Duration,
    /// With --accept: commands run at once (default: the number of CPUs).
    #[arg(short = 'j', long, requires = "accept", value_parser = super::args::at_least_one)]
    pub jobs: Option<usize>,
}

impl ImportArgs {
    /// Runs `hellfuzz import`.
    pub fn run(self) -> Result<ExitCode, String> {
        let ImportArgs {
            source,
            out,
            externals,
            accept,
            samples,
            max_time,
            jobs,
        } = self;
        if let (Some(accept), Some(out)) = (accept, &out) {
            // Import next to the output, then refine into it.
            let raw = out.with_extension("raw.grammar");
            ImportArgs {
                source,
                out: Some(raw.clone()),
                externals,
                accept: None,
                samples: Vec::new(),
                max_time,
                jobs,
            }
            .run()?;
            return super::refine::RefineArgs {
                grammar: raw.display().to_string(),
                samples,
                accept,
                out: out.clone(),
                edits: None,
                max_time,
                max_rounds: hellfuzz::refine::Options::default().max_rounds,
                jobs,
                timeout: hellfuzz::oracle::DEFAULT_TIMEOUT,
                seed: 0,
                per_round: 200,
                max_size: 1000,
            }
            .run();
        }
        let (source, output, externals) = (source.as_str(), out.as_deref(), externals.as_deref());
        let src = hellfuzz::import::find(source).map_err(|e| e.to_string())?;
        let ov_text = match externals {
            Some(p) => Some(
                std::fs::read_to_string(p)
                    .map_err(|e| format!("{}: cannot read the overrides file: {e}", p.display()))?,
            ),
            None => None,
        };
        let ov_name = externals
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let overrides = ov_text
            .as_deref()
            .map(|text| hellfuzz::import::Overrides::new(text, &ov_name));
        let imported = hellfuzz::import::import(&src, overrides).map_err(|e| e.to_string())?;
        match output {
            Some(path) => {
                hellfuzz::files::write_atomically(path, imported.text.as_bytes())
                    .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
                eprintln!(
                    "imported {} into {} ({} bytes, {} approximation(s) noted in comments)",
                    src.path.display(),
                    path.display(),
                    imported.text.len(),
                    imported.notes.len()
                );
            }
            None => {
                let mut out = std::io::stdout().lock();
                if let Err(e) = out.write_all(imported.text.as_bytes()).and_then(|_| out.flush()) {
                    if e.kind() != std::io::ErrorKind::BrokenPipe {
                        return Err(format!("cannot write to standard output: {e}"));
                    }
                }
            }
        }
        if let (Some(sub), true) = (&src.subfolder, src.subfolders.len() > 1) {
            let base = source.split_once('/').map_or(source, |(b, _)| b);
            let others: Vec<String> = src
                .subfolders
                .iter()
                .filter(|s| *s != sub)
                .map(|s| format!("`hellfuzz import {base}/{s}`"))
                .collect();
            eprintln!(
                "note: {base} ships {} grammars ({}); this is `{sub}`; for another: {}",
                src.subfolders.len(),
                src.subfolders.join(", "),
                others.join(", ")
            );
        }
        if !imported.undefined_externals.is_empty() {
            eprintln!(
                "warning: {} external token(s) have no definition yet: {}; define them in an overrides file \
             (grammar format) and import again with --externals FILE",
                imported.undefined_externals.len(),
                imported.undefined_externals.join(", ")
            );
        }
        Ok(ExitCode::SUCCESS)
    }
}
