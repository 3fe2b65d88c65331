//! Helpers every subcommand uses: loading grammars and inputs, reporting skipped samples.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use hellfuzz::files::{read_whole, Contents};
use hellfuzz::grammar::Grammar;
use hellfuzz::mine::samples;

/// Loads a grammar by built-in name or path, printing its diagnostics (warnings too).
pub fn load_grammar(name: &str) -> Result<Grammar, String> {
    let grammar = Grammar::load(name).map_err(|e| {
        for d in &e.diagnostics {
            eprintln!("{d}");
        }
        format!("grammar `{name}` has {} error(s)", e.errors().count())
    })?;
    for w in grammar.warnings() {
        eprintln!("{w}");
    }
    Ok(grammar)
}

/// Reads a file (memory-mapped when large), or standard input for `-`.
pub fn read_input(path: &Path) -> Result<Contents, String> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(buf.into());
    }
    read_whole(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Ends the process after a failed write to standard output: quietly (status 0) when the reader
/// has gone (a closed pipe), with a message (status 1) otherwise.
pub fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write output: {e}");
    std::process::exit(1);
}

/// Checks, before any work, that the result can go to `out`: not the input file itself (the same
/// file by canonical path, also through links: the input is never modified), not a folder, and in
/// an existing folder where files can be made (a failed write after hours of reduction would
/// lose them).
pub fn check_output(input: &Path, out: &Path) -> Result<(), String> {
    let same = match (std::fs::canonicalize(input), std::fs::canonicalize(out)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(format!(
            "--out {} is the input file: it would be overwritten; write the result elsewhere",
            out.display()
        ));
    }
    if out.is_dir() {
        return Err(format!("--out {} is a folder: give a file path", out.display()));
    }
    let folder = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(format!(
            "cannot write {}: the folder {} does not exist; create it first",
            out.display(),
            folder.display()
        ));
    }
    // The result is written atomically through a temporary file beside it: try making one.
    tempfile::Builder::new()
        .prefix(".hellfuzz-check-")
        .tempfile_in(folder)
        .map(drop)
        .map_err(|e| {
            // Without tempfile's note naming its temporary file: the user named `out`.
            let e = e.raw_os_error().map_or(e, std::io::Error::from_raw_os_error);
            format!("cannot write {}: {e}", out.display())
        })
}

/// Prints one line per sample that could not be mined.
pub fn report_skipped(skipped: &[samples::Skipped]) {
    for s in skipped {
        match &s.parse_error {
            Some(e) => eprintln!("skipped {}:{}:{}: does not parse: {e}", s.name, e.line, e.col),
            None => eprintln!("skipped {}: {}", s.name, s.reason),
        }
    }
}

/// The warning `mine` and `gen` print at the end of their run when some of the `total` samples
/// could not be used (each was reported on its own line when it was read): how many, which, and
/// what to do. `None` when every sample was used.
pub fn skipped_warning(skipped: &[samples::Skipped], total: usize) -> Option<String> {
    if skipped.is_empty() {
        return None;
    }
    let unparsed: Vec<&samples::Skipped> = skipped.iter().filter(|s| s.parse_error.is_some()).collect();
    let names = |list: &[&samples::Skipped]| {
        let mut shown: Vec<String> = list
            .iter()
            .take(5)
            .map(|s| match &s.parse_error {
                Some(e) => format!("{}:{}:{}", s.name, e.line, e.col),
                None => s.name.clone(),
            })
            .collect();
        if list.len() > 5 {
            shown.push(format!("and {} more", list.len() - 5));
        }
        shown.join(", ")
    };
    let mut parts = Vec::new();
    if !unparsed.is_empty() {
        parts.push(format!(
            "{} of {total} samples do not parse and were left out: {} (the grammar, or an override in it, \
             rejects them: `hellfuzz check GRAMMAR --samples …` shows each error)",
            unparsed.len(),
            names(&unparsed)
        ));
    }
    let other: Vec<&samples::Skipped> = skipped.iter().filter(|s| s.parse_error.is_none()).collect();
    if !other.is_empty() {
        parts.push(format!(
            "{} of {total} samples could not be used: {} (the reasons are above)",
            other.len(),
            names(&other)
        ));
    }
    Some(format!("warning: {}", parts.join("; ")))
}

/// Splits a `--cmd` string into words, as a shell would (quotes, escapes).
pub fn split_command(cmd: &str) -> Result<Vec<String>, String> {
    shlex::split(cmd)
        .filter(|a| !a.is_empty())
        .ok_or_else(|| format!("cannot split the command `{cmd}` into words (unbalanced quotes?)"))
}

/// A flag that Ctrl-C (SIGINT), SIGTERM and SIGHUP set, after killing the commands running at that
/// moment: long work checks it, stops, and keeps what it has (the best input so far, a partial
/// report). The handler cannot tell the signals apart, so the commands exit 130 for all three.
pub fn cancel_on_ctrl_c() -> Arc<AtomicBool> {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let _ = ctrlc::set_handler(move || {
        flag.store(true, Ordering::Relaxed);
        hellfuzz::oracle::kill_running();
    });
    cancel
}
