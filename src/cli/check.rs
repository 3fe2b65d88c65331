//! `hellfuzz check`: a grammar's diagnostics and summary, and whether its samples parse and
//! unparse exactly.

use std::process::ExitCode;

use hellfuzz::grammar::{builtin, Body, Severity};
use hellfuzz::parse::Parser;
use hellfuzz::tree::Tree;

use super::common::{load_grammar, read_input};

/// Check a grammar: print its diagnostics and a summary of its rules; for a built-in grammar
/// (or with --samples), also parse its samples and verify that unparsing gives them back.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// A built-in grammar name (json, expr, js, toml, css, sql, glsl) or a path to a grammar file.
    pub grammar: String,
    /// Sample files, folders (searched recursively) or glob patterns to parse (default for
    /// built-ins: their built-in samples).
    #[arg(long)]
    pub samples: Vec<String>,
    /// Print the grammar with its contexts and exclusions expanded into plain rules (what the
    /// parser, miner and generator use) instead of the summary.
    #[arg(long)]
    pub expand: bool,
    /// Also print a table of every rule (after the verdict): its alternatives, whether it is
    /// nullable, its cheapest derivation and the rules it reaches through unit chains.
    #[arg(long)]
    pub rules: bool,
}

impl CheckArgs {
    /// Runs `hellfuzz check`.
    pub fn run(self) -> Result<ExitCode, String> {
        let (name, samples, expand, rules) = (self.grammar.as_str(), self.samples.as_slice(), self.expand, self.rules);
        let g = load_grammar(name)?;
        if expand {
            // The grammar the parser, miner, generator and reducers see: contexts and exclusions
            // expanded into plain rules (the printout loads as a grammar again).
            out!("{}", g.to_text());
            return Ok(ExitCode::SUCCESS);
        }
        let named = g.symbols().iter().filter(|s| !s.synthetic).count();
        let warnings = g.warnings().iter().filter(|d| d.severity == Severity::Warning).count();
        outln!(
        "{}: ok, {} rules (+{} synthetic symbols for groups and repetitions), {} terminals, start `{}`, {} warning(s)",
        g.origin(),
        named,
        g.symbols().len() - named,
        g.terminals().len(),
        g.symbol(g.start()).name,
        warnings
    );
        for c in g.contexts() {
            outln!(
                "context: {}[{}] expands into {} rule(s): {}",
                c.rule,
                c.params.join(", "),
                c.instances.len(),
                c.instances.join(" ")
            );
        }
        for e in g.exclusions() {
            outln!(
                "exclusion in {}: {} word(s) excluded (from {})",
                e.rule,
                e.words,
                e.uses.join(", ")
            );
        }
        if !g.contexts().is_empty() || !g.exclusions().is_empty() {
            outln!("(`hellfuzz check --expand` prints the expanded grammar)");
        }
        let files: Vec<(String, hellfuzz::files::Contents)> = if samples.is_empty() {
            builtin::samples(name)
                .iter()
                .map(|(n, b)| (format!("<builtin:{name}>/{n}"), b.to_vec().into()))
                .collect()
        } else {
            hellfuzz::mine::samples::collect(samples)
                .map_err(|e| e.to_string())?
                .into_iter()
                .map(|p| read_input(&p).map(|b| (p.display().to_string(), b)))
                .collect::<Result<_, _>>()?
        };
        if files.is_empty() {
            rule_table(&g, rules);
            return Ok(ExitCode::SUCCESS);
        }
        let parser = Parser::new(&g);
        let mut failed = 0;
        let mut bytes = 0;
        let started = std::time::Instant::now();
        let mut ambiguous = 0;
        for (file, input) in &files {
            bytes += input.len();
            match parser.parse_ambiguity(input) {
                Ok((tree, Some(a))) if tree.unparse() == input[..] => {
                    ambiguous += 1;
                    if ambiguous <= MAX_AMBIGUITY_LINES {
                        let (line, col) = hellfuzz::grammar::line_col(input, a.start);
                        let text = String::from_utf8_lossy(&input[a.start..a.end]);
                        let text: String = text.chars().take(40).collect::<String>().escape_debug().to_string();
                        eprintln!(
                            "{file}:{line}:{col}: note: more than one parse: `{}` over bytes {}..{} (\"{text}{}\") derives in two ways; mining counts the one picked",
                            a.symbol,
                            a.start,
                            a.end,
                            if a.end - a.start > 40 { "…" } else { "" }
                        );
                    }
                }
                Ok((tree, None)) if tree.unparse() == input[..] => {}
                Ok(_) => {
                    failed += 1;
                    eprintln!(
                    "{file}: parsed, but unparsing did not give the same bytes back (a hellfuzz bug; please report it)"
                );
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("{file}:{}:{}: parse error: {e}", e.line, e.col);
                }
            }
        }
        let secs = started.elapsed().as_secs_f64();
        outln!(
            "samples: {} of {} parse and unparse exactly ({} bytes in {:.1} ms)",
            files.len() - failed,
            files.len(),
            bytes,
            secs * 1e3
        );
        if ambiguous > 0 {
            outln!(
                "note: {ambiguous} of {} samples have more than one parse{} (an ambiguous grammar: what mining counts there depends on the parse picked)",
                files.len(),
                if ambiguous > MAX_AMBIGUITY_LINES {
                    format!(", the first {MAX_AMBIGUITY_LINES} listed above")
                } else {
                    String::new()
                }
            );
        }
        if failed > 0 {
            eprintln!(
                "error: {failed} of {} samples do not parse (or do not unparse exactly): see the lines above",
                files.len()
            );
        }
        rule_table(&g, rules);
        Ok(if failed == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }
}

/// Samples with more than one parse listed one by one; beyond this, only counted.
const MAX_AMBIGUITY_LINES: usize = 20;

/// With `rules`, the table of every rule; without, a line saying how to get it.
fn rule_table(g: &hellfuzz::grammar::Grammar, rules: bool) {
    if !rules {
        outln!("(`--rules` prints each rule's alternatives, nullability, cheapest derivation and unit chains)");
        return;
    }
    outln!(
        "{:<16} {:>5} {:>8} {:>9}  {:<24} unit chains (⇒+)",
        "rule",
        "alts",
        "nullable",
        "cheapest",
        "cheapest derivation"
    );
    for (i, s) in g.symbols().iter().enumerate().filter(|(_, s)| !s.synthetic) {
        let sym = hellfuzz::grammar::SymbolId(i as u32);
        let alts = match &s.body {
            Body::Choice(a) => a.len(),
            _ => 1,
        };
        let cheapest = Tree::cheapest(g, sym).map(|t| t.unparse()).unwrap_or_default();
        let shown: String = format!("{:?}", String::from_utf8_lossy(&cheapest))
            .chars()
            .take(24)
            .collect();
        let units: Vec<&str> = g.analysis().unit_reach[i]
            .iter()
            .filter(|u| !g.symbol(**u).synthetic)
            .map(|u| g.symbol(*u).name.as_str())
            .collect();
        outln!(
            "{:<16} {:>5} {:>8} {:>9}  {:<24} {}",
            s.name,
            alts,
            if g.is_nullable(sym) { "yes" } else { "no" },
            g.cheapest_len(sym),
            shown,
            units.join(" ")
        );
    }
}
