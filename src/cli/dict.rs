//! `hellfuzz dict`: a libFuzzer/AFL dictionary of a grammar's literals.

use std::process::ExitCode;

use super::common::load_grammar;

/// Print a libFuzzer/AFL dictionary of the grammar's literals (use with -dict=FILE or -x FILE).
#[derive(clap::Args)]
pub struct DictArgs {
    /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
    pub grammar: String,
}

impl DictArgs {
    /// Runs `hellfuzz dict`.
    pub fn run(self) -> Result<ExitCode, String> {
        load_grammar(&self.grammar).map(|g| {
            out!("{}", g.dictionary());
            ExitCode::SUCCESS
        })
    }
}
