//! Symbolized stacks of a crash: frames (function, file:line:col) from what the run printed (a
//! Rust backtrace, the one our fuzz-target macro prints on a deadly signal, a sanitizer's or
//! libFuzzer's `#N 0x… in f file:line`) or from a debugger's `bt`; the user's frames among them;
//! the crash line with its source.
//!
//! Map: [`Frame`] · [`output_stack`] (a run's stderr) · [`gdb_stack`] (gdb's `bt`) ·
//! [`user_frames`] (without panic machinery, std/core/alloc, libFuzzer, libfuzzer_sys, our
//! harness) · [`CrashLine`] (the first user frame and ±[`CONTEXT_LINES`] lines of its source).

use std::io::{BufRead, BufReader};
use std::sync::OnceLock;

use regex::{Captures, Regex};
use serde::Serialize;

use crate::oracle::is_machinery_frame;

/// One frame of a stack.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Frame {
    /// The function, without build hashes (`::h0123…`, `[0123…]`) and generic arguments.
    pub function: String,
    /// Its source file as the symbolizer printed it (absolute, or relative to the build folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The line in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The column, when the symbolizer gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl Frame {
    /// `file:line[:column]`, if the frame has a file and a line.
    pub fn location(&self) -> Option<String> {
        let (file, line) = (self.file.as_ref()?, self.line?);
        Some(match self.column {
            Some(c) => format!("{file}:{line}:{c}"),
            None => format!("{file}:{line}"),
        })
    }

    /// `function (file:line:col)`, or the function alone.
    pub fn describe(&self) -> String {
        match self.location() {
            Some(l) => format!("{} ({l})", self.function),
            None => self.function.clone(),
        }
    }
}

/// The first stack in a run's output, innermost frame first: a Rust `stack backtrace:` section,
/// else a Rust backtrace printed without that heading (`   0: f` / `at file:line:col` lines, as
/// our fuzz-target macro prints on a deadly signal), else the first sanitizer or libFuzzer trace
/// (`#0 0x… in f /src/x.rs:1:2`). Empty when there is none.
pub fn output_stack(stderr: &str) -> Vec<Frame> {
    let lines: Vec<&str> = stderr.lines().map(|l| l.trim_end_matches('\r')).collect();
    if let Some(start) = lines.iter().position(|l| l.starts_with("stack backtrace:")) {
        let frames = rust_stack(&lines[start + 1..]);
        if !frames.is_empty() {
            return frames;
        }
    }
    // A headless Rust backtrace starts at frame 0 followed by its `at` line: an ordinary output
    // line such as "  0: ok" is not taken for one.
    let headless = (0..lines.len()).find(|&i| {
        rust_frame(lines[i]).is_some_and(|(n, _)| n == 0) && lines.get(i + 1).is_some_and(|l| at_line(l).is_some())
    });
    if let Some(start) = headless {
        return rust_stack(&lines[start..]);
    }
    sanitizer_stack(&lines)
}

/// `   N: symbol` or (RUST_BACKTRACE=full) `   N:     0x55… - symbol`.
fn rust_frame(line: &str) -> Option<(u32, &str)> {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    let re = FRAME.get_or_init(|| Regex::new(r"^\s*(\d+):\s+(?:0x[0-9a-fA-F]+ - )?(.+)$").expect("constant regex"));
    let c = re.captures(line)?;
    Some((c[1].parse().ok()?, c.get(2)?.as_str()))
}

/// `             at file:line:col` → the location.
fn at_line(line: &str) -> Option<&str> {
    // Indented, always: an unindented "at …" is program output.
    if !line.starts_with(char::is_whitespace) {
        return None;
    }
    Some(line.trim_start().strip_prefix("at ")?.trim())
}

/// The frames of a Rust backtrace starting at `lines[0]`, up to the first line that is neither a
/// frame nor a frame's `at` line.
fn rust_stack(lines: &[&str]) -> Vec<Frame> {
    let mut frames: Vec<Frame> = Vec::new();
    for line in lines {
        if let Some(location) = at_line(line) {
            // Inlined frames print several `at` lines; the first is the frame's own.
            if let Some(last) = frames.last_mut().filter(|f| f.file.is_none()) {
                set_location(last, location);
            }
            continue;
        }
        match rust_frame(line) {
            Some((_, symbol)) => frames.push(frame(symbol, None)),
            None => break,
        }
    }
    frames
}

/// The frames of the first sanitizer/libFuzzer trace: lines `    #N 0x… in symbol [file:line[:col]]`.
fn sanitizer_stack(lines: &[&str]) -> Vec<Frame> {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    // A frame in a library without symbols has no ` in function`: `#4 0x7f…  (/lib/libc.so.6+0x3c04f)`.
    let re = FRAME
        .get_or_init(|| Regex::new(r"^\s*#(\d+) 0x[0-9a-fA-F]+(?: in (.+)|\s+\(.*\).*)$").expect("constant regex"));
    let mut frames = Vec::new();
    for c in first_trace(lines.iter().copied(), re) {
        let Some(text) = c.get(2).map(|m| m.as_str().trim()) else {
            frames.push(frame("??", None));
            continue;
        };
        // `symbol /path/file.rs:1:2` or `symbol (binary+0x1234)`; symbols may hold spaces
        // (`<T as Trait>::f`), a path or module does not start a symbol.
        let (symbol, location) = match text.rfind(' ') {
            Some(pos) if text[pos + 1..].starts_with('(') => (&text[..pos], None),
            Some(pos) if looks_like_location(&text[pos + 1..]) => (&text[..pos], Some(&text[pos + 1..])),
            // A file without a line (code the compiler gave line 0, such as an inlined `abort()`).
            Some(pos) if text[pos + 1..].starts_with('/') && text[pos + 1..].ends_with(".rs") => {
                let mut f = frame(&text[..pos], None);
                f.file = Some(text[pos + 1..].to_string());
                frames.push(f);
                continue;
            }
            _ => (text, None),
        };
        frames.push(frame(symbol, location));
    }
    frames
}

/// The frames of the first sanitizer/libFuzzer trace in `stderr` as printed, without their
/// absolute addresses (which vary from run to run) and build ids: `(/path/bin+0x1234)` for a frame
/// the sanitizer did not symbolize (`ASAN_OPTIONS=symbolize=0`), `in f file:line` for one it did.
/// Within one binary the module offsets fix the symbolized frames, so two runs with the same raw
/// stack have the same frames once symbolized. Empty when there is no such trace.
pub fn raw_stack(stderr: &str) -> Vec<String> {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    static BUILD_ID: OnceLock<Regex> = OnceLock::new();
    let re = FRAME.get_or_init(|| Regex::new(r"^\s*#(\d+) 0x[0-9a-fA-F]+\s+(\S.*)$").expect("constant regex"));
    let build_id = BUILD_ID.get_or_init(|| Regex::new(r"\s*\(BuildId: [0-9a-fA-F]+\)").expect("constant regex"));
    first_trace(stderr.lines().map(|l| l.trim_end_matches('\r')), re)
        .map(|c| build_id.replace_all(&c[2], "").trim().to_string())
        .collect()
}

/// The matches of `frame` (group 1: the frame number) on the lines of the first trace: from
/// the first matching line to the first line that does not match, or to a second `#0` (a
/// second trace, where the memory was allocated or freed, is not the crash's).
fn first_trace<'l>(lines: impl Iterator<Item = &'l str>, frame: &'l Regex) -> impl Iterator<Item = Captures<'l>> {
    let mut started = false;
    lines
        .map(move |line| frame.captures(line))
        .skip_while(|c| c.is_none())
        .map_while(|c| c)
        .take_while(move |c| {
            let second = started && &c[1] == "0";
            started = true;
            !second
        })
}

/// `file:line` or `file:line:col` whose file looks like a path (has a `/` or an extension).
fn looks_like_location(text: &str) -> bool {
    static LOCATION: OnceLock<Regex> = OnceLock::new();
    let re = LOCATION.get_or_init(|| Regex::new(r"^[^\s:]*[/.][^\s]*:\d+(?::\d+)?$").expect("constant regex"));
    re.is_match(text)
}

/// The frames of gdb's `bt` (innermost first): `#N  0x… in f (args) at file:line`, `#N  f (args)
/// at file:line` (frame 0 and inlined frames have no address), `… from /lib/libc.so.6`.
pub fn gdb_stack(output: &str) -> Vec<Frame> {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    let re = FRAME.get_or_init(|| {
        Regex::new(r"^#(\d+)\s+(?:0x[0-9a-fA-F]+ in )?(.+?)(?: at (\S+:\d+)| from \S+)?$").expect("constant regex")
    });
    let mut frames = Vec::new();
    for line in output.lines().map(|l| l.trim_end_matches('\r')) {
        let Some(c) = re.captures(line) else {
            // gdb wraps nothing, but a program's output may sit between runs: only `#` lines count.
            continue;
        };
        if &c[1] == "0" && !frames.is_empty() {
            break;
        }
        // A system library's frame (`… from /lib/x86_64-linux-gnu/libc.so.6`) is never the
        // user's code, whatever its name (`kill`, `raise`).
        if [" from /lib", " from /usr/lib"].iter().any(|lib| line.contains(lib)) {
            continue;
        }
        // The function is what precedes the argument list: `f (a=1, b=...)`.
        let text = c[2].trim();
        let function = argument_list_start(text).map_or(text, |i| text[..i].trim_end());
        frames.push(frame(function, c.get(3).map(|m| m.as_str())));
    }
    frames
}

/// Where ` (` opens a trailing argument list, outside `<…>` generics.
fn argument_list_start(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, ch) in text.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth <= 0 && i > 0 && text[..i].ends_with(' ') => return Some(i - 1),
            _ => {}
        }
    }
    None
}

fn frame(symbol: &str, location: Option<&str>) -> Frame {
    let mut f = Frame {
        function: clean_symbol(symbol),
        file: None,
        line: None,
        column: None,
    };
    if let Some(location) = location {
        set_location(&mut f, location);
    }
    f
}

/// Sets file, line and column from `file:line[:col]`.
fn set_location(frame: &mut Frame, location: &str) {
    let Some((rest, last)) = location.rsplit_once(':') else {
        return;
    };
    let Ok(last) = last.parse::<u32>() else { return };
    match rest.rsplit_once(':').map(|(file, line)| (file, line.parse::<u32>())) {
        Some((file, Ok(line))) => {
            frame.file = Some(file.to_string());
            frame.line = Some(line);
            frame.column = Some(last);
        }
        _ => {
            frame.file = Some(rest.to_string());
            frame.line = Some(last);
        }
    }
}

/// Strips what varies between builds or symbolizers of the same code: `::h<16 hex>` suffixes,
/// `[<hex>]` crate disambiguators, and the generic arguments gdb appends (`f<u8>`), which Rust's
/// own backtraces leave out.
fn clean_symbol(symbol: &str) -> String {
    static HASHES: OnceLock<Regex> = OnceLock::new();
    let re = HASHES.get_or_init(|| Regex::new(r"::h[0-9a-f]{16}\b|\[[0-9a-f]{1,16}\]").expect("constant regex"));
    let mut s = re.replace_all(symbol.trim(), "").into_owned();
    if s.ends_with('>') && !s.starts_with('<') {
        let mut depth = 0i32;
        for (i, ch) in s.char_indices().rev() {
            match ch {
                '>' => depth += 1,
                '<' => {
                    depth -= 1;
                    if depth == 0 {
                        if i > 0 && !s[..i].ends_with("::") {
                            s.truncate(i);
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    s
}

/// The frames in the user's code: without [`is_machinery_frame`]s, frames without a symbol
/// (`??` from gdb), and frames in the Rust standard library's sources (in an optimized build an
/// inlined `core` function, `abort` or `unreachable_unchecked`, is shown under the user's
/// function name with `core`'s file and line: two `abort()` sites would share that line),
/// innermost first.
pub fn user_frames(frames: &[Frame]) -> Vec<Frame> {
    // Below the first `catch_unwind` under the user's frames (`__rust_try`) is the harness that
    // called them: a sanitizer names its inlined functions without their paths (`capture`,
    // `test_input`), which would pass for user frames and locate an abort in the harness.
    let end = frames
        .iter()
        .position(|f| f.function.starts_with("__rust_try"))
        .filter(|&i| {
            frames[..i]
                .iter()
                .any(|f| !is_machinery_frame(&f.function) && !f.function.starts_with("??"))
        })
        .unwrap_or(frames.len());
    frames[..end]
        .iter()
        .filter(|f| {
            !is_machinery_frame(&f.function)
                && !f.function.starts_with("??")
                && !f.function.is_empty()
                && !f.file.as_deref().is_some_and(in_rust_library)
        })
        .cloned()
        .collect()
}

/// Whether `file` is a source of Rust's standard library (`/rustc/<hash>/library/core/...`, or
/// `library/std/...` relative to the toolchain's source).
fn in_rust_library(file: &str) -> bool {
    file.starts_with("/rustc/")
        || ["library/core/", "library/std/", "library/alloc/", "library/panic_"]
            .iter()
            .any(|lib| file.starts_with(lib) || file.contains(&format!("/rust/{lib}")))
}

/// Lines of source shown on each side of the crash line.
pub const CONTEXT_LINES: u32 = 5;

/// Source files longer than this are not read for a snippet.
const MAX_SOURCE_BYTES: u64 = 8 << 20;

/// Where the crash happened in the user's code: the first user frame, with its source around.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CrashLine {
    /// The frame.
    #[serde(flatten)]
    pub frame: Frame,
    /// Lines `line - 5 ..= line + 5` of the file when it could be read (relative paths are taken
    /// from the folder triage runs in), each with its number; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub source: Vec<SourceLine>,
}

/// A numbered line of source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SourceLine {
    /// 1-based.
    pub number: u32,
    /// Its text, without the line break.
    pub text: String,
}

impl CrashLine {
    /// The crash line of `stack` (user frames, innermost first): its first frame with a file and
    /// a line, with the source around it when the file is readable.
    pub fn of(stack: &[Frame]) -> Option<CrashLine> {
        let frame = stack.iter().find(|f| f.file.is_some() && f.line.is_some())?.clone();
        let source = read_source(frame.file.as_deref()?, frame.line?);
        Some(CrashLine { frame, source })
    }
}

/// Lines around `line` of `file`, or nothing when it cannot be read (a build machine's path, a
/// file too large, not text).
fn read_source(file: &str, line: u32) -> Vec<SourceLine> {
    let Ok(f) = std::fs::File::open(file) else {
        return Vec::new();
    };
    if !f.metadata().is_ok_and(|m| m.is_file() && m.len() <= MAX_SOURCE_BYTES) {
        return Vec::new();
    }
    let first = line.saturating_sub(CONTEXT_LINES).max(1);
    let mut out = Vec::new();
    for (number, text) in (1u32..).zip(BufReader::new(f).split(b'\n')) {
        if number > line + CONTEXT_LINES {
            break;
        }
        let Ok(text) = text else { return Vec::new() };
        if number >= first {
            let text = String::from_utf8_lossy(&text).trim_end_matches('\r').to_string();
            out.push(SourceLine { number, text });
        }
    }
    if out.iter().any(|l| l.number == line) {
        out
    } else {
        Vec::new() // the file is shorter than the line: not the source that was built
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_in_the_rust_library_under_a_user_name_are_not_user_frames() {
        // gdb on an optimized harness: `abort` inlined into `main`, shown with core's line.
        let frame = |function: &str, file: &str, line| Frame {
            function: function.to_string(),
            file: Some(file.to_string()),
            line: Some(line),
            column: None,
        };
        let frames = [
            frame("triage_harness::main", "/rustc/abc/library/core/src/hint.rs", 491),
            frame("triage_harness::main", "examples/triage_harness.rs", 49),
            frame("std::rt::lang_start", "library/std/src/rt.rs", 195),
        ];
        let user = user_frames(&frames);
        assert_eq!(user.len(), 1);
        assert_eq!(user[0].line, Some(49));
    }

    fn names(frames: &[Frame]) -> Vec<&str> {
        frames.iter().map(|f| f.function.as_str()).collect()
    }

    #[test]
    fn rust_backtrace_with_and_without_heading() {
        let panic = concat!(
            "thread 'main' (7) panicked at src/check.rs:1:37:\nboom\nstack backtrace:\n",
            "   0: __rustc::rust_begin_unwind\n",
            "             at /rustc/5980/library/std/src/panicking.rs:689:5\n",
            "   1: p::fail::h0123456789abcdef\n",
            "             at ./src/check.rs:1:37\n",
            "   2: p::object\n",
            "             at ./src/parse.rs:3:37\n",
            "             at ./src/inlined.rs:9:1\n",
            "   3: p::main\n",
            "note: Some details are omitted\n",
        );
        let stack = output_stack(panic);
        assert_eq!(
            names(&stack),
            ["__rustc::rust_begin_unwind", "p::fail", "p::object", "p::main"]
        );
        assert_eq!(stack[1].location().as_deref(), Some("./src/check.rs:1:37"));
        assert_eq!(stack[2].location().as_deref(), Some("./src/parse.rs:3:37"));
        assert_eq!(stack[3].location(), None);
        // As the macro prints it on a deadly signal: no heading.
        let deadly = concat!(
            "==12== ERROR: libFuzzer: deadly signal\n",
            "  0: 1 line of program output\n",
            "   0: std::backtrace::Backtrace::force_capture\n",
            "             at /rustc/x/library/std/src/backtrace.rs:312:9\n",
            "   1: t::halt\n",
            "             at /src/t.rs:102:9\n",
            "MS: 1 ChangeBit-\n",
        );
        let stack = output_stack(deadly);
        assert_eq!(names(&stack), ["std::backtrace::Backtrace::force_capture", "t::halt"]);
        assert_eq!(user_frames(&stack)[0].location().as_deref(), Some("/src/t.rs:102:9"));
    }

    #[test]
    fn sanitizer_trace_through_a_library_frame_without_symbols_to_a_line_less_user_frame() {
        // libFuzzer's deadly-signal trace of an ASan build with hellfuzz::fuzz_target!: an
        // inlined abort() in `parse` (no line), libc without symbols, the harness below.
        let trace = concat!(
            "==1== ERROR: libFuzzer: deadly signal\n",
            "    #0 0x55 in __sanitizer_print_stack_trace /rustc/llvm/src/llvm-project/compiler-rt/lib/asan/asan_stack.cpp:87:3\n",
            "    #1 0x55 in fuzzer::PrintStackTrace() /r/libfuzzer/FuzzerUtil.cpp:210:38\n",
            "    #4 0x7f  (/lib/x86_64-linux-gnu/libc.so.6+0x3c04f) (BuildId: 93ac61ec)\n",
            "    #5 0x7f in __pthread_kill_implementation nptl/./nptl/pthread_kill.c:43:17\n",
            "    #7 0x7f in abort stdlib/./stdlib/abort.c:79:7\n",
            "    #9 0x55 in std::process::abort /rustc/5980/library/std/src/process.rs:2533:5\n",
            "    #10 0x55 in triage_bugs::bugs::parse /w/fuzz/fuzz_targets/common/triage_bugs.rs\n",
            "    #11 0x55 in __rust_try hellfuzz.d90eab47a7ff2fbf-cgu.0\n",
            "    #12 0x55 in catch_unwind<(), core::panic::AssertUnwindSafe<F>> /rustc/5980/library/std/src/panicking.rs:544:19\n",
            "    #14 0x55 in capture<(), F> /w/src/oracle/inprocess.rs:144:18\n",
            "    #17 0x55 in hellfuzz::harness::libfuzzer::test_input /w/src/harness/libfuzzer.rs:109:11\n",
        );
        let stack = output_stack(trace);
        assert_eq!(stack.len(), 11, "{stack:?}");
        let user = user_frames(&stack);
        assert_eq!(names(&user), ["triage_bugs::bugs::parse"]);
        assert_eq!(
            user[0].file.as_deref(),
            Some("/w/fuzz/fuzz_targets/common/triage_bugs.rs")
        );
        assert_eq!(user[0].line, None);
    }

    #[test]
    fn sanitizer_and_libfuzzer_traces() {
        let text = concat!(
            "==4242== ERROR: libFuzzer: deadly signal\n",
            "    #0 0x55d5a1 in __sanitizer_print_stack_trace (/out/t+0x1a2b)\n",
            "    #1 0x55d5a2 in fuzzer::PrintStackTrace() /src/FuzzerUtil.cpp:210:5\n",
            "    #2 0x55d5a3 in abort\n",
            "    #3 0x55d5a4 in std::process::abort::h0123456789abcdef /rustc/x/library/std/src/process.rs:2000:5\n",
            "    #4 0x55d5a5 in t::decode::h0123456789abcdef /src/t.rs:12:9\n",
            "    #5 0x55d5a6 in <t::Reader as std::io::Read>::read /src/t.rs:40\n",
            "    #6 0x55d5a7 in rust_fuzzer_test_input /cargo/libfuzzer-sys/src/lib.rs:1:1\n",
            "\n",
            "    #0 0x1 in another::trace\n",
        );
        let user = user_frames(&output_stack(text));
        assert_eq!(names(&user), ["t::decode", "<t::Reader as std::io::Read>::read"]);
        assert_eq!(user[0].location().as_deref(), Some("/src/t.rs:12:9"));
        assert_eq!(user[1].location().as_deref(), Some("/src/t.rs:40"));
        assert!(output_stack("thread 'main' panicked at a.rs:1:1:\nboom\n").is_empty());
    }

    /// ASan's stack-overflow report of `fuzz/fuzz_targets/triage_bugs.rs` (ASan build), symbolized
    /// and with `ASAN_OPTIONS=symbolize=0` (addresses as printed in two runs: ASLR moves them).
    const OVERFLOW_SYMBOLIZED: &str = concat!(
        "==8423==ERROR: AddressSanitizer: stack-overflow on address 0x7ffd6a3e8ff8 (pc 0x5650b8d66bee bp 0x7ffd6a3e9870 sp 0x7ffd6a3e9000 T0)\n",
        "    #0 0x5650b8d66bee in __asan_memcpy /rustc/llvm/src/llvm-project/compiler-rt/lib/asan/asan_interceptors_memintrinsics.cpp:63:3\n",
        "    #1 0x5650b91e4aaf in triage_bugs::bugs::recurse /w/fuzz/fuzz_targets/common/triage_bugs.rs:96:5\n",
        "    #2 0x5650b91e4aaf in triage_bugs::bugs::recurse /w/fuzz/fuzz_targets/common/triage_bugs.rs:96:5\n",
        "\n",
        "SUMMARY: AddressSanitizer: stack-overflow /w/fuzz/fuzz_targets/common/triage_bugs.rs:96:5 in triage_bugs::bugs::recurse\n",
        "==8423==ABORTING\n",
    );
    const OVERFLOW_RAW: &str = concat!(
        "==8415==ERROR: AddressSanitizer: stack-overflow on address 0x7ffc1e0a7ff8 (pc 0x556588551bee bp 0x7ffc1e0a8870 sp 0x7ffc1e0a8000 T0)\n",
        "    #0 0x556588551bee  (/w/fuzz/target/release/triage_bugs+0x66bee1) (BuildId: 1fce27e7254524703af1c1f77a61d1d3fc61e91f)\n",
        "    #1 0x556588585aaf  (/w/fuzz/target/release/triage_bugs+0x699aaf) (BuildId: 1fce27e7254524703af1c1f77a61d1d3fc61e91f)\n",
        "    #2 0x556588585aaf  (/w/fuzz/target/release/triage_bugs+0x699aaf) (BuildId: 1fce27e7254524703af1c1f77a61d1d3fc61e91f)\n",
        "\n",
        "SUMMARY: AddressSanitizer: stack-overflow (/w/fuzz/target/release/triage_bugs+0x66bee1) (BuildId: 1fce27e7254524703af1c1f77a61d1d3fc61e91f) \n",
        "==8415==ABORTING\n",
    );

    #[test]
    fn an_unsymbolized_sanitizer_trace_is_a_raw_stack_without_frames() {
        // Without symbols: no frame, so no user frame; the raw stack is the module offsets.
        assert!(user_frames(&output_stack(OVERFLOW_RAW)).is_empty());
        let raw = raw_stack(OVERFLOW_RAW);
        assert_eq!(
            raw,
            [
                "(/w/fuzz/target/release/triage_bugs+0x66bee1)",
                "(/w/fuzz/target/release/triage_bugs+0x699aaf)",
                "(/w/fuzz/target/release/triage_bugs+0x699aaf)",
            ]
        );
        // Another run of the same crash: other absolute addresses, the same raw stack.
        let moved = OVERFLOW_RAW.replace("0x556588585aaf", "0x7f1234585aaf");
        assert_eq!(raw_stack(&moved), raw);
        // Symbolized: frames, and a raw stack of the symbolized lines (never asked for then).
        let user = user_frames(&output_stack(OVERFLOW_SYMBOLIZED));
        assert_eq!(
            names(&user),
            ["triage_bugs::bugs::recurse", "triage_bugs::bugs::recurse"]
        );
        assert_eq!(
            raw_stack(OVERFLOW_SYMBOLIZED)[1],
            "in triage_bugs::bugs::recurse /w/fuzz/fuzz_targets/common/triage_bugs.rs:96:5"
        );
        // Only the first trace: an allocation stack after it is not the crash's.
        let two = format!("{OVERFLOW_RAW}allocated by thread T0 here:\n    #0 0x1  (/lib/libc.so.6+0x10)\n");
        assert_eq!(raw_stack(&two), raw);
        assert!(raw_stack("thread 'main' panicked at a.rs:1:1:\nboom\n").is_empty());
    }

    #[test]
    fn gdb_backtrace() {
        let text = concat!(
            "Program received signal SIGABRT, Aborted.\n",
            "__pthread_kill_implementation (threadid=<optimized out>, signo=signo@entry=6, no_tid=no_tid@entry=0) at ./nptl/pthread_kill.c:44\n",
            "44\t./nptl/pthread_kill.c: No such file or directory.\n",
            "#0  __pthread_kill_implementation (threadid=<optimized out>, signo=signo@entry=6, no_tid=no_tid@entry=0) at ./nptl/pthread_kill.c:44\n",
            "#1  0x00007ffff7e3ff4f in __pthread_kill_internal (signo=6, threadid=<optimized out>) at ./nptl/pthread_kill.c:78\n",
            "#2  0x00007ffff7df0fb2 in __GI_raise (sig=sig@entry=6) at ../sysdeps/posix/raise.c:26\n",
            "#3  0x00007ffff7ddb472 in __GI_abort () at ./stdlib/abort.c:79\n",
            "#4  0x000055555559970a in std::sys::pal::unix::abort_internal () at library/std/src/sys/pal/unix/mod.rs:305\n",
            "#5  0x0000555555598229 in std::process::abort () at library/std/src/process.rs:2533\n",
            "#6  0x000055555556c71b in triage_harness::parse (data=...) at /work/examples/triage_harness.rs:42\n",
            "#7  0x000055555556cb91 in triage_harness::recurse<u8> (n=24918, pad=...) at /work/examples/triage_harness.rs:99\n",
            "#8  0x000055555556fbcb in core::ops::function::FnOnce::call_once<fn(), ()> () at /rustc/x/library/core/src/ops/function.rs:250\n",
            "#9  0x00007ffff7ddc24a in __libc_start_call_main () from /lib/x86_64-linux-gnu/libc.so.6\n",
            "#10 0x000055555556f1ae in main ()\n",
            "#11 0x0000000000401000 in ?? ()\n",
        );
        let stack = gdb_stack(text);
        assert_eq!(stack.len(), 11, "without the system library's frame");
        assert_eq!(stack[0].function, "__pthread_kill_implementation");
        assert_eq!(stack[9].file, None);
        let user = user_frames(&stack);
        assert_eq!(names(&user), ["triage_harness::parse", "triage_harness::recurse"]);
        assert_eq!(
            user[0].location().as_deref(),
            Some("/work/examples/triage_harness.rs:42")
        );
        assert!(gdb_stack("[Inferior 1 (process 5) exited normally]\nNo stack.\n").is_empty());
    }

    #[test]
    fn symbols_are_cleaned() {
        assert_eq!(clean_symbol("p::f::h0123456789abcdef"), "p::f");
        assert_eq!(clean_symbol("p::f<alloc::vec::Vec<u8>>"), "p::f");
        assert_eq!(clean_symbol("<p::A as p::B>::f"), "<p::A as p::B>::f");
        assert_eq!(clean_symbol("std[e28293b1aa0f68bd]::x"), "std::x");
    }

    #[test]
    fn crash_line_reads_the_source_around() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.rs");
        let text: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&file, text).unwrap();
        let at = |line| Frame {
            function: "x::f".into(),
            file: Some(file.display().to_string()),
            line: Some(line),
            column: Some(3),
        };
        let c = CrashLine::of(&[at(10)]).unwrap();
        let numbers: Vec<u32> = c.source.iter().map(|l| l.number).collect();
        assert_eq!(numbers, (5..=15).collect::<Vec<_>>());
        assert_eq!(c.source[5].text, "line 10");
        assert_eq!(CrashLine::of(&[at(2)]).unwrap().source.len(), 7);
        assert!(CrashLine::of(&[at(40)]).unwrap().source.is_empty(), "past the end");
        let gone = Frame {
            file: Some("/no/such/file.rs".into()),
            ..at(1)
        };
        assert!(CrashLine::of(&[gone]).unwrap().source.is_empty());
        assert!(CrashLine::of(&[]).is_none());
    }
}
