//! `hellfuzz check` and `hellfuzz parse`: grammar diagnostics and summaries, derivation trees.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use hellfuzz::grammar::{builtin, Body, Severity};
use hellfuzz::parse::Parser;
use hellfuzz::tree::Tree;

use super::common::{load_grammar, read_input};

/// `hellfuzz check`.
pub fn check(name: &str, samples: &[String], expand: bool) -> Result<ExitCode, String> {
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
        let cheapest = Tree::cheapest(&g, sym).map(|t| t.unparse()).unwrap_or_default();
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
    let files: Vec<(String, Vec<u8>)> = if samples.is_empty() {
        builtin::samples(name)
            .iter()
            .map(|(n, b)| (format!("<builtin:{name}>/{n}"), b.to_vec()))
            .collect()
    } else {
        hellfuzz::mine::samples::collect(samples)?
            .into_iter()
            .map(|p| read_input(&p).map(|b| (p.display().to_string(), b)))
            .collect::<Result<_, _>>()?
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
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `hellfuzz parse`.
pub fn parse(name: &str, files: &[PathBuf], json: bool, quiet: bool) -> Result<ExitCode, String> {
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

/// `hellfuzz import`.
pub fn import(
    source: &str,
    output: Option<&std::path::Path>,
    externals: Option<&std::path::Path>,
) -> Result<ExitCode, String> {
    let src = hellfuzz::import::source::find(source).map_err(|e| e.to_string())?;
    let ov_text = match externals {
        Some(p) => Some(
            std::fs::read_to_string(p).map_err(|e| format!("{}: cannot read the overrides file: {e}", p.display()))?,
        ),
        None => None,
    };
    let ov_name = externals
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let overrides = ov_text
        .as_deref()
        .map(|text| hellfuzz::import::tree_sitter::Overrides { text, name: &ov_name });
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
