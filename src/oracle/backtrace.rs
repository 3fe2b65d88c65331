//! Backtraces in a crash's stderr: the frames of a Rust `stack backtrace:` (RUST_BACKTRACE=1 or
//! `full`) or of a sanitizer/libFuzzer trace (`#3 0x… in f /src/x.rs:1:2`), and crash hashes.
//!
//! Map: [`backtrace_frames`] (parse, strip `::h<16 hex>` and `[<hex>]` crate hashes) ·
//! [`is_machinery_frame`] / [`crash_frames`] (drop panic machinery, std, libFuzzer and harness
//! frames) · [`CrashHashes`] (a coarse hash over the top [`COARSE_FRAMES`] frames, an exact one).

use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::signature::{normalize_message, CrashKind, Signature};

/// How many filtered frames the coarse hash (the one crashes are grouped by) covers. ClusterFuzz
/// uses the top 3 *unfiltered* frames, which for Rust panics are mostly `rust_begin_unwind`,
/// `core::panicking::panic_fmt` and a shared helper: different bugs then merge.
pub const COARSE_FRAMES: usize = 5;

/// Every frame of the first backtrace in `stderr`, top (innermost) first, as symbol names without
/// `::h<16 hex>` suffixes, `[<hex>]` crate disambiguators and addresses. A Rust `stack backtrace:`
/// section is preferred; otherwise the first sanitizer-style trace (`#0 0x… in symbol …`) is used.
/// Empty when there is none (e.g. RUST_BACKTRACE unset).
pub fn backtrace_frames(stderr: &str) -> Vec<String> {
    let rust = rust_frames(stderr);
    if !rust.is_empty() {
        return rust;
    }
    sanitizer_frames(stderr)
}

/// The frames of a Rust `stack backtrace:` section: lines `   N: symbol` or, with
/// RUST_BACKTRACE=full, `   N:     0x55… - symbol`; the `at file:line` lines between are skipped.
fn rust_frames(stderr: &str) -> Vec<String> {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    let re = FRAME.get_or_init(|| Regex::new(r"^\s*\d+:\s+(?:0x[0-9a-fA-F]+ - )?(.+)$").expect("constant regex"));
    let mut frames = Vec::new();
    let mut lines = stderr.lines().skip_while(|l| !l.starts_with("stack backtrace:"));
    if lines.next().is_none() {
        return frames;
    }
    for line in lines {
        let line = line.trim_end_matches('\r');
        if line.trim_start().starts_with("at ") {
            continue;
        }
        match re.captures(line) {
            Some(c) => frames.push(clean_symbol(&c[1])),
            // The section ends at the first line that is neither a frame nor its location.
            None => break,
        }
    }
    frames
}

/// The frames of the first sanitizer/libFuzzer trace: lines `    #N 0x… in symbol [file:line]`.
fn sanitizer_frames(stderr: &str) -> Vec<String> {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    let re = FRAME.get_or_init(|| Regex::new(r"^\s*#(\d+) 0x[0-9a-fA-F]+ in (.+)$").expect("constant regex"));
    let mut frames = Vec::new();
    for line in stderr.lines() {
        let Some(c) = re.captures(line.trim_end_matches('\r')) else {
            if !frames.is_empty() {
                break;
            }
            continue;
        };
        // A second trace (`#0` again) starts: keep only the first.
        if &c[1] == "0" && !frames.is_empty() {
            break;
        }
        let mut symbol = c[2].trim();
        // Drop a trailing ` /path/file.rs:1:2` or ` (binary+0x1234)`; symbols themselves may
        // contain spaces (`<T as Trait>::f`), paths and module names do not start a symbol.
        if let Some(pos) = symbol.rfind(' ') {
            let last = &symbol[pos + 1..];
            if last.starts_with('/') || last.starts_with('(') || last.contains(".rs:") || last.contains(".c:") {
                symbol = symbol[..pos].trim_end();
            }
        }
        frames.push(clean_symbol(symbol));
    }
    frames
}

/// Strips what varies between builds of the same code: `::h0123456789abcdef` hash suffixes and
/// `[0123456789abcdef]` crate disambiguators of v0 mangling.
fn clean_symbol(symbol: &str) -> String {
    static HASHES: OnceLock<Regex> = OnceLock::new();
    let re = HASHES.get_or_init(|| Regex::new(r"::h[0-9a-f]{16}\b|\[[0-9a-f]{1,16}\]").expect("constant regex"));
    re.replace_all(symbol.trim(), "").into_owned()
}

/// True for frames that say nothing about which bug crashed: Rust's panic machinery and standard
/// library (`rust_begin_unwind`, `core::panicking::…`, `std::panic::…`, `<usize as
/// core::slice::index::SliceIndex<…>>::index`), process start-up, libc's abort, sanitizer and
/// libFuzzer internals, and fuzz-harness entry points (`rust_fuzzer_test_input`, `hellfuzz::harness`).
pub fn is_machinery_frame(symbol: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "std::",
        "core::",
        "alloc::",
        "__rust",
        "__rustc::",
        "rust_begin_unwind",
        "rust_panic",
        "rust_fuzzer_test_input",
        "libfuzzer_sys::",
        "LLVMFuzzerTestOneInput",
        "fuzzer::",
        "__sanitizer",
        "__asan",
        "__msan",
        "__ubsan",
        "__lsan",
        "__interceptor_",
        "__libc_",
        "__GI_",
        "__pthread",
        "_start",
        "panic_abort::",
        "panic_unwind::",
        "afl::",
        "__afl",
        "hellfuzz::harness::",
        "<unknown>",
    ];
    const EXACT: &[&str] = &["main", "abort", "raise", "gsignal", "pthread_kill", "clone", "clone3"];
    if EXACT.contains(&symbol) || PREFIXES.iter().any(|p| symbol.starts_with(p)) {
        return true;
    }
    if symbol.contains("__libfuzzer_sys_run") {
        return true;
    }
    // `<A as B>::f`: standard code when A is a standard type, or when A is not a path (a
    // primitive, a slice, a generic parameter) and B is a standard trait.
    if let Some(inner) = symbol.strip_prefix('<') {
        let is_std = |s: &str| ["std::", "core::", "alloc::"].iter().any(|p| s.starts_with(p));
        if let Some((a, b)) = inner.split_once(" as ") {
            return if a.contains("::") { is_std(a) } else { is_std(b) };
        }
        return is_std(inner);
    }
    false
}

/// The frames of `stderr`'s first backtrace that identify the bug: [`backtrace_frames`] without
/// [`is_machinery_frame`]s, innermost first.
pub fn crash_frames(stderr: &str) -> Vec<String> {
    backtrace_frames(stderr)
        .into_iter()
        .filter(|f| !is_machinery_frame(f))
        .collect()
}

/// Two hashes (40 hex digits, SHA-1) of a crash: both over the signature's kind, location and
/// normalized message; the coarse one adds the top [`COARSE_FRAMES`] filtered frames (crashes are
/// grouped by it), the exact one all filtered frames (same bug reached along the same path).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CrashHashes {
    /// Kind + location + message + top frames.
    pub coarse: String,
    /// Kind + location + message + every frame.
    pub exact: String,
}

impl CrashHashes {
    /// The hashes of a crash with `signature` and filtered `frames` (see [`crash_frames`]).
    pub fn new(signature: &Signature, frames: &[String]) -> CrashHashes {
        let hash = |frames: &[String]| {
            let mut h = sha1_smol::Sha1::new();
            let kind = match &signature.kind {
                CrashKind::Panic => "panic".to_string(),
                CrashKind::Signal(s) => format!("signal {s}"),
                CrashKind::ExitCode(c) => format!("exit {c}"),
                CrashKind::Timeout => "timeout".to_string(),
            };
            // Fields are separated by a byte that none of them contains.
            for part in [kind.as_str(), signature.location.as_deref().unwrap_or("")] {
                h.update(part.as_bytes());
                h.update(b"\0");
            }
            h.update(normalize_message(&signature.message).as_bytes());
            for f in frames {
                h.update(b"\0");
                h.update(f.as_bytes());
            }
            h.digest().to_string()
        };
        CrashHashes {
            coarse: hash(&frames[..frames.len().min(COARSE_FRAMES)]),
            exact: hash(frames),
        }
    }
}

#[cfg(test)]
mod tests;
