//! `hellfuzz parse`: derivation trees of files, as text or JSON, streamed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use hellfuzz::parse::Parser;

use super::common::{load_grammar, read_input};

/// Parse files with a grammar and print their derivation trees.
#[derive(clap::Args)]
pub struct ParseArgs {
    /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
    pub grammar: String,
    /// Files to parse (`-` reads standard input).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print trees as JSON (one document per file, one per line).
    #[arg(long)]
    pub json: bool,
    /// Print nothing for files that parse; only errors and the exit status.
    #[arg(long, short)]
    pub quiet: bool,
}

impl ParseArgs {
    /// Runs `hellfuzz parse`.
    pub fn run(self) -> Result<ExitCode, String> {
        let ParseArgs {
            grammar,
            files,
            json,
            quiet,
        } = self;
        let (name, files) = (grammar.as_str(), files.as_slice());
        let g = load_grammar(name)?;
        let parser = Parser::new(&g);
        let mut failed = false;
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        for path in files {
            let input = read_input(path)?;
            let parsed = if quiet {
                // Validation only: no tree to build.
                parser.recognize(&input).map(|()| None)
            } else {
                parser.parse(&input).map(Some)
            };
            match parsed {
                Ok(None) => {}
                Ok(Some(tree)) => {
                    // Streamed: a deep or large tree's text is far larger than the tree.
                    let mut buffered = std::io::BufWriter::new(&mut out);
                    let written = if json {
                        tree.write_json(&g, &mut buffered)
                            .and_then(|()| buffered.write_all(b"\n"))
                    } else {
                        tree.write_text(&g, &mut buffered)
                    }
                    .and_then(|()| buffered.flush());
                    if let Err(e) = written {
                        super::common::stdout_failed(e);
                    }
                }
                Err(e) => {
                    failed = true;
                    eprintln!("{}:{}:{}: parse error: {e}", path.display(), e.line, e.col);
                }
            }
        }
        Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
    }
}
