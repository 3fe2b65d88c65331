//! Crash signatures: what kind of crash, where (panic location), and the message, plus the parser
//! that finds Rust panics in a process's stderr and the message normalization used when comparing.
//!
//! Two crashes are "the same bug" when [`Signature::matches`]: same [`CrashKind`], same location,
//! and the same message once varying numbers and addresses are blanked out by [`normalize_message`].

use std::fmt;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// How a run crashed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CrashKind {
    /// A Rust panic (in-process, or recognized in a child's stderr).
    Panic,
    /// The process was killed by this signal (e.g. 6 = SIGABRT, 11 = SIGSEGV) without a panic message.
    Signal(i32),
    /// The process exited with this non-zero status without a panic message.
    ExitCode(i32),
    /// The process did not finish within the timeout.
    Timeout,
}

/// The identity of a crash, used to decide whether a candidate still shows *the same* failure.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Signature {
    /// What kind of crash it was.
    pub kind: CrashKind,
    /// For panics, the source location `file:line:column` (e.g. `src/x.rs:10:5`); `None` otherwise.
    pub location: Option<String>,
    /// The panic message (for other kinds: a telling stderr line such as a sanitizer's `SUMMARY:`,
    /// or empty). Kept verbatim; comparisons normalize it.
    pub message: String,
}

impl Signature {
    /// A panic signature.
    pub fn panic(location: Option<String>, message: impl Into<String>) -> Signature {
        Signature {
            kind: CrashKind::Panic,
            location,
            message: message.into(),
        }
    }

    /// True when `other` is the same crash: same kind, same location, same normalized message.
    ///
    /// The location is compared exactly (a different line is a different panic site); the message
    /// is normalized so that e.g. "index 7 out of range for length 3" and "index 2 out of range for
    /// length 1" stay one signature while a reducer shrinks the input.
    pub fn matches(&self, other: &Signature) -> bool {
        self.kind == other.kind
            && self.location == other.location
            && normalize_message(&self.message) == normalize_message(&other.message)
    }

    /// A copy whose message is normalized: equal keys for signatures that [`matches`](Self::matches),
    /// so it can serve as a hash-map key when clustering crashes.
    pub fn normalized(&self) -> Signature {
        Signature {
            kind: self.kind.clone(),
            location: self.location.clone(),
            message: normalize_message(&self.message),
        }
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            CrashKind::Panic => write!(f, "panic")?,
            CrashKind::Signal(s) => write!(f, "killed by signal {s}")?,
            CrashKind::ExitCode(c) => write!(f, "exit status {c}")?,
            CrashKind::Timeout => write!(f, "timeout")?,
        }
        if let Some(loc) = &self.location {
            write!(f, " at {loc}")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

/// Blanks out the parts of a message that vary between inputs hitting the same bug:
/// - every double-quoted string (as `{:?}` prints a `&str`, escapes included) becomes `"…"`,
///   since assertion messages often quote the input, which shrinks as a reducer works;
/// - every hex address `0x…` becomes `0xN` and every other run of decimal digits becomes `N`;
/// - a list of such numbers (`{:?}` of a byte slice: `[104, 105]`) becomes `N, …`.
///
/// `"index out of bounds: the len is 3 but the index is 17"` →
/// `"index out of bounds: the len is N but the index is N"`;
/// `"disagree on \"[1e5]\" (bytes [91, 49])"` → `"disagree on \"…\" (bytes [N, …])"`.
pub fn normalize_message(message: &str) -> String {
    static LIST: OnceLock<Regex> = OnceLock::new();
    let list = LIST.get_or_init(|| Regex::new(r"N(, N)+").expect("a valid regex"));
    let blanked = blank_numbers(&blank_quoted(message));
    list.replace_all(&blanked, "N, …").into_owned()
}

/// `message` with the contents of each double-quoted string (backslash escapes honoured) blanked
/// to `…`; an unterminated quote is left as it is.
fn blank_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let mut escaped = false;
        let close = after.char_indices().find_map(|(i, c)| match c {
            _ if escaped => {
                escaped = false;
                None
            }
            '\\' => {
                escaped = true;
                None
            }
            '"' => Some(i),
            _ => None,
        });
        let Some(close) = close else { break };
        out.push_str(&rest[..open]);
        out.push_str("\"…\"");
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// `message` with hex addresses as `0xN` and other runs of decimal digits as `N`.
fn blank_numbers(message: &str) -> String {
    let bytes = message.as_bytes();
    let mut out = String::with_capacity(message.len());
    let mut i = 0;
    // Slices below are taken at ASCII boundaries only, so they are always valid UTF-8.
    let mut copied_to = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let is_hex = b == b'0'
            && matches!(bytes.get(i + 1), Some(b'x' | b'X'))
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if is_hex {
            out.push_str(&message[copied_to..i]);
            out.push_str("0xN");
            i += 2;
            while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                i += 1;
            }
            copied_to = i;
        } else if b.is_ascii_digit() {
            out.push_str(&message[copied_to..i]);
            out.push('N');
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            copied_to = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&message[copied_to..]);
    out
}

/// The first Rust panic reported in `stderr`, if any. See [`parse_panics`].
pub fn parse_panic(stderr: &str) -> Option<Signature> {
    parse_panics(stderr).into_iter().next()
}

/// Every Rust panic reported in `stderr`, in order (a program may print several: a worker thread's
/// panic and then the main thread's `unwrap` on the join result, for example).
///
/// Understands the default panic hook's formats:
/// - since Rust 1.73: `thread 'main' panicked at src/main.rs:5:9:` with the message on the following
///   line(s), up to `note: …`, `stack backtrace:`, the next panic, or a sanitizer/libFuzzer line
///   (`==123==…`); newer versions add the thread id: `thread 'main' (4242) panicked at …`;
/// - before: `thread 'main' panicked at 'message', src/main.rs:5:9` (the message may span lines).
pub fn parse_panics(stderr: &str) -> Vec<Signature> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(rest) = panic_header(lines[i]) else {
            i += 1;
            continue;
        };
        if let Some(body) = rest.strip_prefix('\'') {
            // Old format: the message is quoted and the location follows it.
            if let Some((sig, next)) = parse_old_format(body, &lines, i) {
                found.push(sig);
                i = next;
                continue;
            }
        } else if let Some(location) = rest.strip_suffix(':').filter(|l| is_location(l)) {
            let mut j = i + 1;
            let mut message_lines = Vec::new();
            while j < lines.len() && !ends_message(lines[j]) {
                message_lines.push(lines[j]);
                j += 1;
            }
            let message = message_lines.join("\n").trim_end().to_string();
            found.push(Signature::panic(Some(location.to_string()), message));
            i = j;
            continue;
        }
        i += 1;
    }
    found
}

/// For a line `thread '<name>' [(<id>) ]panicked at <rest>`, returns `<rest>`.
fn panic_header(line: &str) -> Option<&str> {
    static HEADER: OnceLock<Regex> = OnceLock::new();
    let re = HEADER.get_or_init(|| {
        // The name may contain anything, even spaces; the id in parentheses appeared in Rust 1.89.
        Regex::new(r"^thread '.*?' (?:\(\d+\) )?panicked at (.*)$").expect("constant regex")
    });
    re.captures(line.trim_end_matches('\r'))
        .and_then(|c| c.get(1))
        .map(|m| m.as_str())
}

/// `file:line:column` (or the pre-1.42 `file:line`), the file being anything non-empty.
fn is_location(s: &str) -> bool {
    static LOCATION: OnceLock<Regex> = OnceLock::new();
    let re = LOCATION.get_or_init(|| Regex::new(r"^\S.*:\d+(?::\d+)?$").expect("constant regex"));
    re.is_match(s)
}

/// Lines that end a new-format panic message: the hook's own trailer, a backtrace, another panic,
/// or a libFuzzer/sanitizer report (`==1234== ERROR: libFuzzer: deadly signal`).
fn ends_message(line: &str) -> bool {
    line.starts_with("note: ")
        || line.starts_with("stack backtrace:")
        || panic_header(line).is_some()
        || line.starts_with("fatal runtime error:")
        || (line.starts_with("==") && line[2..].starts_with(|c: char| c.is_ascii_digit()))
}

/// Old format: `body` is what follows `panicked at '` on line `start`. The message ends at the
/// last `', ` of the first line (from `start` on) that ends in `', file:line:col`.
fn parse_old_format(body: &str, lines: &[&str], start: usize) -> Option<(Signature, usize)> {
    let mut message = String::new();
    // Only look a bounded number of lines ahead, so a stray quote cannot swallow the whole stderr.
    for (k, line) in std::iter::once(body)
        .chain(lines[start + 1..].iter().copied())
        .take(64)
        .enumerate()
    {
        if k > 0 {
            message.push('\n');
        }
        if let Some(pos) = line.rfind("', ") {
            let location = line[pos + 3..].trim_end_matches('\r');
            if is_location(location) {
                message.push_str(&line[..pos]);
                let sig = Signature::panic(Some(location.to_string()), message);
                return Some((sig, start + k + 1));
            }
        }
        message.push_str(line);
    }
    None
}

/// A line worth keeping as the message of a non-panic crash, so that e.g. two different sanitizer
/// reports, a stack overflow, an out-of-memory abort and a plain abort do not collapse into one
/// signature. In order of preference: a sanitizer `SUMMARY:` line, Rust's `fatal runtime error:`,
/// Rust's `memory allocation of N bytes failed`, libFuzzer's `ERROR: libFuzzer: …` (without the
/// `==pid==` prefix).
pub fn crash_summary(stderr: &str) -> Option<String> {
    let find = |wanted: &dyn Fn(&str) -> Option<usize>| {
        stderr
            .lines()
            .find_map(|l| wanted(l).map(|start| l[start..].trim_end().to_string()))
    };
    find(&|l| l.starts_with("SUMMARY: ").then_some(0))
        .or_else(|| find(&|l| l.starts_with("fatal runtime error:").then_some(0)))
        .or_else(|| {
            find(&|l| (l.starts_with("memory allocation of ") && l.trim_end().ends_with(" failed")).then_some(0))
        })
        .or_else(|| find(&|l| l.starts_with("==").then(|| l.find("ERROR: libFuzzer: ")).flatten()))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verbatim outputs of rustc 1.95 (thread id), 1.73–1.88 and pre-1.73 default panic hooks.
    const NEW_WITH_ID: &str = concat!(
        "\n",
        "thread 'main' (7349) panicked at p.rs:5:78:\n",
        "index out of bounds: the len is 3 but the index is 7\n",
        "stack backtrace:\n",
        "   0: __rustc::rust_begin_unwind\n",
        "             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs:689:5\n",
        "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n",
    );
    const NEW: &str = concat!(
        "thread 'main' panicked at src/main.rs:5:9:\n",
        "called `Option::unwrap()` on a `None` value\n",
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
    );
    const OLD: &str = concat!(
        "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/main.rs:4:37\n",
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
    );

    #[test]
    fn normalization_blanks_quoted_input_numbers_and_byte_lists() {
        let long = r#"disagree on "{\"a\": [1, 2]}" (bytes [123, 34, 97]) at 0x7ffd1"#;
        let short = r#"disagree on "[]" (bytes [91, 93]) at 0x10"#;
        assert_eq!(normalize_message(long), normalize_message(short));
        assert_eq!(normalize_message(short), r#"disagree on "…" (bytes [N, …]) at 0xN"#);
        // Different templates stay apart, and so does an unterminated quote's tail.
        assert_ne!(
            normalize_message(r#"bad key "a""#),
            normalize_message(r#"bad value "a""#)
        );
        assert_eq!(normalize_message(r#"open "quote 12"#), r#"open "quote N"#);
        assert_eq!(
            normalize_message("the len is 3 but the index is 17"),
            "the len is N but the index is N"
        );
    }

    #[test]
    fn parses_new_format_with_thread_id() {
        let sig = parse_panic(NEW_WITH_ID).unwrap();
        assert_eq!(sig.kind, CrashKind::Panic);
        assert_eq!(sig.location.as_deref(), Some("p.rs:5:78"));
        assert_eq!(sig.message, "index out of bounds: the len is 3 but the index is 7");
    }

    #[test]
    fn parses_new_format() {
        let sig = parse_panic(NEW).unwrap();
        assert_eq!(sig.location.as_deref(), Some("src/main.rs:5:9"));
        assert_eq!(sig.message, "called `Option::unwrap()` on a `None` value");
    }

    #[test]
    fn parses_old_format() {
        let sig = parse_panic(OLD).unwrap();
        assert_eq!(sig.location.as_deref(), Some("src/main.rs:4:37"));
        assert_eq!(sig.message, "called `Option::unwrap()` on a `None` value");
        // The same panic in both formats is one signature.
        assert!(sig.matches(&parse_panic(NEW).unwrap().clone_with_location("src/main.rs:4:37")));
    }

    #[test]
    fn parses_old_format_with_quotes_and_lines_in_message() {
        let text = "thread 'main' panicked at 'bad token ', here', at\nline two', src/lib.rs:10:5\n";
        let sig = parse_panic(text).unwrap();
        assert_eq!(sig.location.as_deref(), Some("src/lib.rs:10:5"));
        assert_eq!(sig.message, "bad token ', here', at\nline two");
    }

    #[test]
    fn parses_multi_line_and_empty_messages() {
        let multi = "\nthread 'main' (7351) panicked at p.rs:7:20:\nline one\nline two\nstack backtrace:\n   0: x\n";
        assert_eq!(parse_panic(multi).unwrap().message, "line one\nline two");
        let empty = "\nthread 'main' (7352) panicked at p.rs:8:20:\n\nstack backtrace:\n";
        let sig = parse_panic(empty).unwrap();
        assert_eq!(sig.message, "");
        assert_eq!(sig.location.as_deref(), Some("p.rs:8:20"));
    }

    #[test]
    fn finds_every_panic_and_odd_thread_names() {
        let text = concat!(
            "\n",
            "thread 'worker 1' (7354) panicked at p.rs:9:79:\n",
            "in worker 7\n",
            "note: Some details are omitted.\n",
            "\n",
            "thread 'main' (7353) panicked at p.rs:9:122:\n",
            "called `Result::unwrap()` on an `Err` value: Any { .. }\n",
        );
        let all = parse_panics(text);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].location.as_deref(), Some("p.rs:9:79"));
        assert_eq!(all[0].message, "in worker 7");
        assert_eq!(all[1].location.as_deref(), Some("p.rs:9:122"));
        let unnamed = "thread '<unnamed>' panicked at src/lib.rs:1:1:\nx\n";
        assert_eq!(parse_panic(unnamed).unwrap().message, "x");
    }

    #[test]
    fn message_stops_at_libfuzzer_report() {
        let text = concat!(
            "thread '<unnamed>' panicked at fuzz_targets/t.rs:7:5:\n",
            "boom\n",
            "==4242== ERROR: libFuzzer: deadly signal\n",
            "    #0 0x55d5 in __sanitizer_print_stack_trace\n",
        );
        let sig = parse_panic(text).unwrap();
        assert_eq!(sig.message, "boom");
    }

    #[test]
    fn no_panic_in_ordinary_stderr() {
        assert_eq!(parse_panic(""), None);
        assert_eq!(parse_panic("error: file not found\nthread count: 4\n"), None);
        // A header without a location is not a panic report.
        assert_eq!(parse_panic("thread 'main' panicked at nothing useful\n"), None);
    }

    #[test]
    fn normalization_blanks_numbers_and_addresses() {
        assert_eq!(
            normalize_message("index out of bounds: the len is 3 but the index is 17"),
            "index out of bounds: the len is N but the index is N"
        );
        assert_eq!(
            normalize_message("bad pointer 0x7ffd1234abcd at 12"),
            "bad pointer 0xN at N"
        );
        assert_eq!(normalize_message("0x"), "Nx"); // no hex digits: only the 0 is a number
        assert_eq!(normalize_message("größe 3 – ü"), "größe N – ü");
        assert_eq!(normalize_message(""), "");
    }

    #[test]
    fn matching_rules() {
        let a = Signature::panic(Some("src/a.rs:1:1".into()), "index 3 of 4");
        let b = Signature::panic(Some("src/a.rs:1:1".into()), "index 9 of 12");
        let other_place = Signature::panic(Some("src/a.rs:2:1".into()), "index 3 of 4");
        let other_msg = Signature::panic(Some("src/a.rs:1:1".into()), "key 3 of 4");
        assert!(a.matches(&b));
        assert!(!a.matches(&other_place));
        assert!(!a.matches(&other_msg));
        assert_eq!(a.normalized(), b.normalized());
        let sig = |kind| Signature {
            kind,
            location: None,
            message: String::new(),
        };
        assert!(sig(CrashKind::Signal(11)).matches(&sig(CrashKind::Signal(11))));
        assert!(!sig(CrashKind::Signal(11)).matches(&sig(CrashKind::Signal(6))));
        assert!(!sig(CrashKind::ExitCode(1)).matches(&sig(CrashKind::Timeout)));
    }

    #[test]
    fn display_and_summary() {
        let a = Signature::panic(Some("src/a.rs:1:1".into()), "boom");
        assert_eq!(a.to_string(), "panic at src/a.rs:1:1: boom");
        let asan = concat!(
            "=================================================================\n",
            "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011\n",
            "SUMMARY: AddressSanitizer: heap-buffer-overflow /src/a.c:3:5 in f\n",
        );
        assert_eq!(
            crash_summary(asan).unwrap(),
            "SUMMARY: AddressSanitizer: heap-buffer-overflow /src/a.c:3:5 in f"
        );
        let overflow = "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow, aborting\n";
        assert_eq!(
            crash_summary(overflow).unwrap(),
            "fatal runtime error: stack overflow, aborting"
        );
        assert_eq!(crash_summary("plain\n"), None);
        let oom = "memory allocation of 70368744177664 bytes failed\n";
        assert_eq!(crash_summary(oom).unwrap(), oom.trim_end());
        let libfuzzer = "==77== ERROR: libFuzzer: out-of-memory (malloc(2147483648))\n";
        assert_eq!(
            crash_summary(libfuzzer).unwrap(),
            "ERROR: libFuzzer: out-of-memory (malloc(2147483648))"
        );
        // A sanitizer summary beats libFuzzer's own line, wherever each one is.
        assert!(crash_summary(&format!("{libfuzzer}{asan}"))
            .unwrap()
            .starts_with("SUMMARY: "));
    }

    impl Signature {
        fn clone_with_location(&self, loc: &str) -> Signature {
            Signature {
                location: Some(loc.into()),
                ..self.clone()
            }
        }
    }
}
