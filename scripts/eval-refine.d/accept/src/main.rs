//! The real parser's verdict on inputs, for `scripts/eval-refine` and for
//! `hellfuzz refine --accept '<this> <fmt> @@'`.
//!
//! ```text
//! accept <format> FILE                   exit 0 iff the parser accepts FILE (1: rejected, the
//!                                        error on stderr; 2: bad command line or unreadable file)
//! accept <format> --count PATH...        prints `accepted: A of N (P%)` (directories: every
//!                                        regular file in them, sorted); --verbose N shows the
//!                                        first N rejections on stderr
//! accept <format> --list PATH...         prints the accepted files' paths, one per line
//! ```
//!
//! Formats and parsers: `regex` regex-syntax 0.8 (`ParserBuilder::new().build().parse`: the AST
//! parse and the translation to HIR, what `Regex::new` does before compiling; default nest limit
//! and Unicode mode), `rust` syn 2 (`syn::parse_file`: syntax only), and, exactly as in
//! `scripts/eval-validity.d/validator`, `toml` toml_edit (no recursion limit), `css` lightningcss
//! (no error recovery; warnings do not reject), `sql` sqlparser (generic dialect, no recursion
//! limit), `glsl` naga's GLSL front end (accepted if it parses as a vertex, fragment or compute
//! shader). The input is the file's bytes as they are (a trailing newline is part of a regex);
//! input that is not UTF-8 is rejected. Every parse runs under `catch_unwind` on a thread with a
//! 256 MiB stack; a panic is a rejection.

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: accept <regex|rust|toml|css|sql|glsl> FILE\n       accept <format> --count [--verbose N] PATH...\n       accept <format> --list PATH...";

const STACK: usize = 256 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Regex,
    Rust,
    Toml,
    Css,
    Sql,
    Glsl,
}

impl Format {
    fn from_name(name: &str) -> Option<Format> {
        Some(match name {
            "regex" => Format::Regex,
            "rust" => Format::Rust,
            "toml" => Format::Toml,
            "css" => Format::Css,
            "sql" => Format::Sql,
            "glsl" => Format::Glsl,
            _ => return None,
        })
    }
}

fn check(format: Format, data: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(data).map_err(|e| format!("not UTF-8: {e}"))?;
    match format {
        Format::Regex => check_regex(text),
        Format::Rust => check_rust(text),
        Format::Toml => check_toml(text),
        Format::Css => check_css(text),
        Format::Sql => check_sql(text),
        Format::Glsl => check_glsl(text),
    }
}

fn check_regex(text: &str) -> Result<(), String> {
    regex_syntax::ParserBuilder::new()
        .build()
        .parse(text)
        .map(drop)
        .map_err(|e| e.to_string())
}

fn check_rust(text: &str) -> Result<(), String> {
    syn::parse_file(text).map(drop).map_err(|e| {
        // Columns counted from 1, as sqlparser's are.
        let at = e.span().start();
        format!("{e} at :{}:{}", at.line, at.column + 1)
    })
}

/// As in the validator: toml_edit built with `unbounded`.
fn check_toml(text: &str) -> Result<(), String> {
    text.parse::<toml_edit::DocumentMut>()
        .map(drop)
        .map_err(|e| match e.span() {
            Some(span) => format!("{} at byte {}", e.message().trim_end(), span.start),
            None => e.message().trim_end().to_string(),
        })
}

/// As in the validator: lightningcss without error recovery (warnings do not reject).
fn check_css(text: &str) -> Result<(), String> {
    use lightningcss::stylesheet::{ParserOptions, StyleSheet};
    use std::sync::{Arc, RwLock};
    let warnings = Arc::new(RwLock::new(Vec::new()));
    let options = ParserOptions {
        error_recovery: false,
        warnings: Some(warnings.clone()),
        ..ParserOptions::default()
    };
    StyleSheet::parse(text, options)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// As in the validator: sqlparser, generic dialect, no recursion limit.
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

/// As in the validator: naga's GLSL front end, any of the three stages.
fn check_glsl(text: &str) -> Result<(), String> {
    use naga::front::glsl::{Frontend, Options};
    use naga::ShaderStage;
    let mut frontend = Frontend::default();
    let mut first = None;
    for stage in [ShaderStage::Vertex, ShaderStage::Fragment, ShaderStage::Compute] {
        match frontend.parse(&Options::from(stage), text) {
            Ok(_) => return Ok(()),
            Err(errors) => {
                if first.is_none() {
                    first = Some(match errors.errors.first() {
                        Some(e) => e.to_string(),
                        None => "rejected without an error".to_string(),
                    });
                }
            }
        }
    }
    Err(first.unwrap_or_default())
}

/// The verdict on one input, a panic being a rejection.
fn judge(format: Format, data: &[u8]) -> Result<(), String> {
    match panic::catch_unwind(AssertUnwindSafe(|| check(format, data))) {
        Ok(verdict) => verdict,
        Err(payload) => Err(format!(
            "panicked: {}",
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default()
        )),
    }
}

/// The files named: a directory stands for its regular files, sorted.
fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut in_dir: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                .filter_map(|entry| entry.ok())
                .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
                .map(|entry| entry.path())
                .collect();
            in_dir.sort();
            out.extend(in_dir);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

enum Mode {
    One(PathBuf),
    Count { verbose: usize, paths: Vec<PathBuf> },
    List(Vec<PathBuf>),
}

fn parse_args() -> Result<(Format, Mode), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return Err(String::new());
    }
    let (name, rest) = args.split_first().ok_or("no format given")?;
    let format = Format::from_name(name).ok_or_else(|| format!("unknown format `{name}`"))?;
    match rest.first().map(String::as_str) {
        Some("--count") => {
            let mut verbose = 0;
            let mut paths = Vec::new();
            let mut it = rest[1..].iter();
            while let Some(a) = it.next() {
                if a == "--verbose" {
                    let n = it.next().ok_or("--verbose needs a number")?;
                    verbose = n.parse().map_err(|_| format!("--verbose needs a number, not `{n}`"))?;
                } else {
                    paths.push(PathBuf::from(a));
                }
            }
            Ok((format, Mode::Count { verbose, paths }))
        }
        Some("--list") => Ok((format, Mode::List(rest[1..].iter().map(PathBuf::from).collect()))),
        Some(a) if !a.starts_with("--") && rest.len() == 1 => Ok((format, Mode::One(PathBuf::from(a)))),
        _ => Err("expected one FILE, or --count/--list with paths".to_string()),
    }
}

fn run(format: Format, mode: Mode) -> Result<ExitCode, String> {
    match mode {
        Mode::One(path) => {
            let data = read(&path)?;
            match judge(format, &data) {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(message) => {
                    eprintln!("{}: rejected: {message}", path.display());
                    Ok(ExitCode::from(1))
                }
            }
        }
        Mode::Count { verbose, paths } => {
            let files = files(&paths)?;
            let mut accepted = 0;
            let mut shown = 0;
            for f in &files {
                let data = read(f)?;
                match judge(format, &data) {
                    Ok(()) => accepted += 1,
                    Err(message) => {
                        if shown < verbose {
                            shown += 1;
                            let text = String::from_utf8_lossy(&data);
                            let head: String = text.chars().take(200).collect();
                            eprintln!("{}: {head:?}\n    error: {message}", f.display());
                        }
                    }
                }
            }
            let n = files.len();
            let percent = if n == 0 { 0.0 } else { 100.0 * accepted as f64 / n as f64 };
            println!("accepted: {accepted} of {n} ({percent:.1}%)");
            Ok(ExitCode::SUCCESS)
        }
        Mode::List(paths) => {
            for f in files(&paths)? {
                // An unreadable file (a dangling link) is not accepted.
                if let Ok(data) = read(&f) {
                    if judge(format, &data).is_ok() {
                        println!("{}", f.display());
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    let (format, mode) = match parse_args() {
        Ok(x) => x,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("accept: {e}");
            }
            eprintln!("{USAGE}");
            return if e.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) };
        }
    };
    panic::set_hook(Box::new(|_| {}));
    let result = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || run(format, mode))
        .expect("spawn the parsing thread")
        .join();
    match result {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("accept: {e}");
            ExitCode::from(2)
        }
        Err(_) => {
            eprintln!("accept: the parsing thread died");
            ExitCode::from(2)
        }
    }
}
