//! Counts how many inputs the real Rust parser of a format accepts (for `scripts/eval-validity`).
//!
//! ```text
//! validator <format> [--nul] [--verbose N] [FILES_OR_DIRS...]
//! ```
//!
//! Formats and parsers: `json` serde_json (arbitrary precision, no recursion limit), `toml`
//! toml_edit (no recursion limit), `css` lightningcss (no error recovery), `sql` sqlparser
//! (generic dialect, no recursion limit), `glsl` naga's GLSL front end (accepted if it parses as
//! a vertex, fragment or compute shader), `js` oxc_parser (a classic script, or else a module),
//! `expr` the evaluator in `fuzz/calc` (only syntax errors reject). Deep nesting is valid in all of them, so
//! no parser keeps a depth limit.
//!
//! Inputs are the files given (for a directory, every regular file in it, sorted), or with
//! `--nul` the NUL-terminated inputs on standard input (what `hellfuzz gen --nul` prints; only
//! right for inputs without NUL bytes, which the js grammar can generate, so the script passes
//! the files of `hellfuzz gen --out`). Every parse runs under `catch_unwind` on a thread with a
//! 256 MiB stack; a panic counts as a rejection (except for `expr`, see [`Format::Expr`]) and is
//! reported apart. The last line of standard output is `accepted: A of N (P%)`. With
//! `--verbose N`, the first N rejected inputs with the parser's error, and the most common errors
//! (numbers and quoted parts blanked), go to standard error. The exit status is 0 unless the
//! command line is wrong (or an input cannot be read).

use std::collections::HashMap;
use std::io::Read;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: validator <json|toml|css|sql|glsl|js|expr> [--nul] [--verbose N] [FILES_OR_DIRS...]";

/// The stack of the parsing thread: deep nesting is valid in most of these formats, and the
/// parsers (and dropping what they build) recurse.
const STACK: usize = 256 << 20;

/// How much of a rejected input `--verbose` shows.
const SHOWN_CHARS: usize = 300;

/// How many distinct error messages the histogram lists.
const HISTOGRAM_ROWS: usize = 15;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Json,
    Toml,
    Css,
    Sql,
    Glsl,
    Js,
    /// calc's `eval` is the only way in: it parses and evaluates, and on a well-formed input
    /// (a value or an arithmetic error) runs a canonical-form pass that holds the two planted
    /// bugs (index out of bounds). A panic therefore means the input parsed, so for `expr` it
    /// counts as accepted (and is still reported as `panicked`); arithmetic errors (overflow,
    /// division by zero) are accepted too: only `Error::Syntax` rejects.
    Expr,
}

impl Format {
    fn from_name(name: &str) -> Option<Format> {
        Some(match name {
            "json" => Format::Json,
            "toml" => Format::Toml,
            "css" => Format::Css,
            "sql" => Format::Sql,
            "glsl" => Format::Glsl,
            "js" => Format::Js,
            "expr" => Format::Expr,
            _ => return None,
        })
    }

    /// Whether a panic during the parse means the input was accepted (see [`Format::Expr`]).
    fn panic_means_parsed(self) -> bool {
        self == Format::Expr
    }
}

/// What the parser said about one input.
enum Verdict {
    Accepted,
    /// Accepted, with a note (lightningcss warnings on rules it keeps without checking).
    AcceptedWithWarnings(usize),
    Rejected(String),
    Panicked(String),
}

/// Parses `data` as `format`: Ok, or the parser's error message.
fn check(format: Format, data: &[u8]) -> Result<usize, String> {
    match format {
        Format::Json => check_json(data).map(|()| 0),
        Format::Toml => check_toml(utf8(data)?).map(|()| 0),
        Format::Css => check_css(utf8(data)?),
        Format::Sql => check_sql(utf8(data)?).map(|()| 0),
        Format::Glsl => check_glsl(utf8(data)?).map(|()| 0),
        Format::Js => check_js(utf8(data)?).map(|()| 0),
        Format::Expr => check_expr(data).map(|()| 0),
    }
}

fn utf8(data: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(data).map_err(|e| format!("not UTF-8: {e}"))
}

/// serde_json into a `Value`, without the recursion limit (128 by default), numbers kept as
/// written (arbitrary precision), and nothing but whitespace after the value.
fn check_json(data: &[u8]) -> Result<(), String> {
    use serde::Deserialize;
    let mut de = serde_json::Deserializer::from_slice(data);
    de.disable_recursion_limit();
    let value = serde_json::Value::deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    drop(value);
    Ok(())
}

/// toml_edit (TOML 1.1), built with `unbounded`: without it, arrays and inline tables nested
/// deeper than 80 are an error ("cannot recurse further"), though valid TOML.
fn check_toml(text: &str) -> Result<(), String> {
    text.parse::<toml_edit::DocumentMut>()
        .map(drop)
        .map_err(|e| match e.span() {
            Some(span) => format!("{} at byte {}", e.message().trim_end(), span.start),
            None => e.message().trim_end().to_string(),
        })
}

/// lightningcss without error recovery: an invalid rule or declaration is an error. Returns the
/// number of warnings (lightningcss warns, and keeps the rule, for an unknown at-rule or an
/// unsupported pseudo-class or pseudo-element even without error recovery).
fn check_css(text: &str) -> Result<usize, String> {
    use lightningcss::stylesheet::{ParserOptions, StyleSheet};
    use std::sync::{Arc, RwLock};
    let warnings = Arc::new(RwLock::new(Vec::new()));
    let options = ParserOptions {
        error_recovery: false,
        warnings: Some(warnings.clone()),
        ..ParserOptions::default()
    };
    let sheet = StyleSheet::parse(text, options).map_err(|e| e.to_string())?;
    drop(sheet);
    let count = warnings.read().map(|w| w.len()).unwrap_or(0);
    Ok(count)
}

/// sqlparser with the generic dialect: `Parser::parse_sql` without its recursion limit (50 by
/// default: `SELECT` of 50 nested parentheses is an error, though valid SQL).
fn check_sql(text: &str) -> Result<(), String> {
    use sqlparser::parser::Parser;
    let dialect = sqlparser::dialect::GenericDialect {};
    Parser::new(&dialect)
        .with_recursion_limit(usize::MAX)
        .try_with_sql(text)
        .and_then(|mut parser| parser.parse_statements())
        .map(drop)
        .map_err(|e| e.to_string())
}

/// naga's GLSL front end: accepted if the text parses for any of the three stages; otherwise
/// the first error of each stage (once if they agree).
fn check_glsl(text: &str) -> Result<(), String> {
    use naga::front::glsl::{Frontend, Options};
    use naga::ShaderStage;
    let mut frontend = Frontend::default();
    let mut messages: Vec<(&str, String)> = Vec::new();
    for (name, stage) in [
        ("vertex", ShaderStage::Vertex),
        ("fragment", ShaderStage::Fragment),
        ("compute", ShaderStage::Compute),
    ] {
        match frontend.parse(&Options::from(stage), text) {
            Ok(_) => return Ok(()),
            Err(errors) => {
                let message = match errors.errors.first() {
                    Some(e) => match e.meta.to_range() {
                        Some(r) => format!("{e} at byte {}", r.start),
                        None => e.to_string(),
                    },
                    None => "rejected without an error".to_string(),
                };
                messages.push((name, message));
            }
        }
    }
    if messages.iter().all(|(_, m)| *m == messages[0].1) {
        return Err(messages.swap_remove(0).1);
    }
    Err(messages
        .iter()
        .map(|(stage, m)| format!("{stage}: {m}"))
        .collect::<Vec<_>>()
        .join(" | "))
}

/// oxc as a classic script (a module is strict mode and rejects ES5 that the grammar allows,
/// such as `with`), and what is no script as a module: the js grammar makes both (`program =
/// script | module`, a module with import/export, top-level `await` or `import.meta`), as node
/// does for a .js file with module syntax. Regular expression bodies parsed, as in the fuzz
/// target `js`. Accepted iff no error and the parser did not give up.
fn check_js(text: &str) -> Result<(), String> {
    let script = parse_js(text, oxc_span::SourceType::script());
    match script {
        Ok(()) => Ok(()),
        Err(e) => parse_js(text, oxc_span::SourceType::mjs()).map_err(|m| format!("{e} (as a module: {m})")),
    }
}

fn parse_js(text: &str, source_type: oxc_span::SourceType) -> Result<(), String> {
    let allocator = oxc_allocator::Allocator::default();
    let options = oxc_parser::ParseOptions {
        parse_regular_expression: true,
        ..oxc_parser::ParseOptions::default()
    };
    let parsed = oxc_parser::Parser::new(&allocator, text, source_type)
        .with_options(options)
        .parse();
    if parsed.panicked || parsed.diagnostics.has_errors() {
        let first = parsed.diagnostics.errors().next().map(|e| e.to_string());
        return Err(first.unwrap_or_else(|| "the parser gave up without an error".to_string()));
    }
    Ok(())
}

fn check_expr(data: &[u8]) -> Result<(), String> {
    match calc::eval(data) {
        Err(e @ calc::Error::Syntax(_)) => Err(e.to_string()),
        // A value, an overflow or a division by zero: the expression is well-formed.
        Ok(_) | Err(_) => Ok(()),
    }
}

fn judge(format: Format, data: &[u8]) -> Verdict {
    match panic::catch_unwind(AssertUnwindSafe(|| check(format, data))) {
        Ok(Ok(0)) => Verdict::Accepted,
        Ok(Ok(warnings)) => Verdict::AcceptedWithWarnings(warnings),
        Ok(Err(message)) => Verdict::Rejected(message),
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(a panic without a message)".to_string());
            Verdict::Panicked(message)
        }
    }
}

struct Args {
    format: Format,
    nul: bool,
    verbose: usize,
    paths: Vec<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut format = None;
    let mut nul = false;
    let mut verbose = 0;
    let mut paths = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--nul" => nul = true,
            "--verbose" => {
                let n = args.next().ok_or("--verbose needs a number")?;
                verbose = n.parse().map_err(|_| format!("--verbose needs a number, not `{n}`"))?;
            }
            "-h" | "--help" => return Err(String::new()),
            _ if a.starts_with("--verbose=") => {
                let n = &a["--verbose=".len()..];
                verbose = n.parse().map_err(|_| format!("--verbose needs a number, not `{n}`"))?;
            }
            _ if a.starts_with("--") => return Err(format!("unknown option `{a}`")),
            _ if format.is_none() => {
                format = Some(Format::from_name(&a).ok_or_else(|| format!("unknown format `{a}`"))?)
            }
            _ => paths.push(PathBuf::from(a)),
        }
    }
    let format = format.ok_or("no format given")?;
    if nul && !paths.is_empty() {
        return Err("--nul reads standard input: give no files".to_string());
    }
    if !nul && paths.is_empty() {
        return Err("no inputs: give files or directories, or --nul".to_string());
    }
    Ok(Args {
        format,
        nul,
        verbose,
        paths,
    })
}

/// The inputs, each with a name for `--verbose`.
fn read_inputs(args: &Args) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut inputs = Vec::new();
    if args.nul {
        let mut all = Vec::new();
        std::io::stdin()
            .read_to_end(&mut all)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        let mut parts: Vec<&[u8]> = all.split(|&b| b == 0).collect();
        // Each input ends with a NUL, so the last part is empty (or an unterminated last input).
        if parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
        for (i, p) in parts.into_iter().enumerate() {
            inputs.push((format!("#{}", i + 1), p.to_vec()));
        }
        return Ok(inputs);
    }
    for path in &args.paths {
        if path.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                .filter_map(|entry| entry.ok())
                .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
                .map(|entry| entry.path())
                .collect();
            files.sort();
            for f in files {
                inputs.push(read_file(&f)?);
            }
        } else {
            inputs.push(read_file(path)?);
        }
    }
    Ok(inputs)
}

fn read_file(path: &Path) -> Result<(String, Vec<u8>), String> {
    let data = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok((path.display().to_string(), data))
}

/// An error message with its numbers and quoted parts blanked, to group alike errors. A `'`
/// right after a letter or digit is an apostrophe, not a quote.
fn signature(message: &str) -> String {
    let chars: Vec<char> = message.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let quote = matches!(c, '"' | '`') || (c == '\'' && !(i > 0 && chars[i - 1].is_alphanumeric()));
        if c.is_ascii_digit() {
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            out.push('N');
            continue;
        }
        if quote {
            // A quoted part, up to the matching quote on the same line.
            if let Some(len) = chars[i + 1..].iter().take_while(|&&d| d != '\n').position(|&d| d == c) {
                out.push(c);
                out.push('…');
                out.push(c);
                i += len + 2;
                continue;
            }
        }
        out.push(if c == '\n' { ' ' } else { c });
        i += 1;
    }
    out
}

/// A rejected input for `--verbose`: its first characters (bytes if it is not UTF-8), escaped.
fn shown(data: &[u8]) -> String {
    let (head, cut) = match std::str::from_utf8(data) {
        Ok(text) => {
            let head: String = text.chars().take(SHOWN_CHARS).collect();
            let cut = head.len() < text.len();
            (format!("{head:?}"), cut)
        }
        Err(_) => {
            let head = &data[..data.len().min(SHOWN_CHARS)];
            (format!("b\"{}\"", head.escape_ascii()), head.len() < data.len())
        }
    };
    if cut {
        format!("{head} … ({} bytes in all)", data.len())
    } else {
        head
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("validator: {e}");
            }
            eprintln!("{USAGE}");
            return if e.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            };
        }
    };
    let inputs = match read_inputs(&args) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("validator: {e}");
            return ExitCode::from(2);
        }
    };
    // Panics are verdicts here, not news.
    panic::set_hook(Box::new(|_| {}));
    let format = args.format;
    let verdicts = std::thread::Builder::new()
        .name("parse".to_string())
        .stack_size(STACK)
        .spawn(move || {
            let verdicts: Vec<Verdict> = inputs.iter().map(|(_, data)| judge(format, data)).collect();
            (inputs, verdicts)
        })
        .expect("spawn the parsing thread")
        .join();
    let _ = panic::take_hook();
    let (inputs, verdicts) = match verdicts {
        Ok(v) => v,
        Err(_) => {
            eprintln!("validator: the parsing thread died");
            return ExitCode::from(1);
        }
    };

    let n = inputs.len();
    let mut accepted = 0;
    let mut rejected = 0;
    let mut panicked = 0;
    let mut warned = 0;
    let mut warnings = 0;
    let mut failures: Vec<(usize, String)> = Vec::new();
    for (i, v) in verdicts.iter().enumerate() {
        match v {
            Verdict::Accepted => accepted += 1,
            Verdict::AcceptedWithWarnings(w) => {
                accepted += 1;
                warned += 1;
                warnings += w;
            }
            Verdict::Rejected(m) => {
                rejected += 1;
                failures.push((i, m.clone()));
            }
            Verdict::Panicked(m) => {
                panicked += 1;
                if format.panic_means_parsed() {
                    accepted += 1;
                } else {
                    failures.push((i, format!("panicked: {m}")));
                }
            }
        }
    }

    if args.verbose > 0 && !failures.is_empty() {
        eprintln!(
            "first {} of {} rejected inputs:",
            args.verbose.min(failures.len()),
            failures.len()
        );
        for (i, message) in failures.iter().take(args.verbose) {
            let (name, data) = &inputs[*i];
            eprintln!("  {name}: {}", shown(data));
            eprintln!("    error: {message}");
        }
        let mut counts: HashMap<String, usize> = HashMap::new();
        for (_, message) in &failures {
            *counts.entry(signature(message)).or_default() += 1;
        }
        let mut rows: Vec<(String, usize)> = counts.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        eprintln!("most common errors ({} distinct):", rows.len());
        for (message, count) in rows.iter().take(HISTOGRAM_ROWS) {
            eprintln!("  {count:>6}  {message}");
        }
    }

    let percent = if n == 0 {
        0.0
    } else {
        100.0 * accepted as f64 / n as f64
    };
    println!("rejected: {rejected}");
    if format.panic_means_parsed() {
        println!("panicked: {panicked} (calc's planted bugs, hit only after a successful parse: counted as accepted)");
    } else {
        println!("panicked: {panicked} (counted as rejected)");
    }
    if format == Format::Css {
        println!("accepted with lightningcss warnings: {warned} ({warnings} warnings)");
    }
    println!("accepted: {accepted} of {n} ({percent:.1}%)");
    ExitCode::SUCCESS
}
