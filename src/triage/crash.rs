//! What one run of the harness shows: a [`Crash`] (signature, filtered frames, hashes) and its
//! [`CrashClass`] as the report names it (panic, signal, sanitizer, stack overflow, timeout, OOM).
//!
//! Map: [`Crash::from_run`] (signature, stack printed by the run, severity) ·
//! [`Crash::set_stack`] (frames from a traced or debugger run: located, rehashed) · [`Crash::key`]
//! (what a run shows without a stack) · `classify` (kind and telling stderr lines → class).

use serde::Serialize;

use super::severity::Severity;
use super::stack::{output_stack, raw_stack, user_frames, Frame};
use crate::oracle::{normalize_message, CrashHashes, CrashKind, Run, Signature};

/// What kind of crash, as the morning report names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CrashClass {
    /// A Rust panic (location + message).
    Panic,
    /// Killed by a signal (an abort, a segfault) without a more telling report.
    Signal,
    /// Exited with a non-zero status without a more telling report.
    ExitStatus,
    /// A sanitizer report (`SUMMARY: …Sanitizer: …`).
    Sanitizer,
    /// A stack overflow.
    StackOverflow,
    /// Did not finish in time.
    Timeout,
    /// Out of memory (Rust's allocation failure, libFuzzer's or a sanitizer's OOM report).
    OutOfMemory,
}

impl CrashClass {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            CrashClass::Panic => "panic",
            CrashClass::Signal => "signal",
            CrashClass::ExitStatus => "exit-status",
            CrashClass::Sanitizer => "sanitizer",
            CrashClass::StackOverflow => "stack-overflow",
            CrashClass::Timeout => "timeout",
            CrashClass::OutOfMemory => "out-of-memory",
        }
    }
}

/// Where a crash's frames came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trace {
    /// No frames: no stack was printed, none was asked for (or none could be had).
    #[default]
    None,
    /// The run printed a stack by itself (a sanitizer, libFuzzer, our macro on a deadly signal).
    Output,
    /// A rerun with `RUST_BACKTRACE=1`.
    RustBacktrace,
    /// A rerun under gdb.
    Debugger,
}

/// One reproduced crash: its signature, class, filtered frames, hashes and output.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Crash {
    /// Kind, location, message. A crash other than a panic is located at its first user frame
    /// when it has frames (an abort then has a location, and two abort sites two groups).
    pub signature: Signature,
    /// The report's name for it.
    pub class: CrashClass,
    /// The functions of [`Crash::stack`] (empty without a backtrace): what the hashes cover.
    pub frames: Vec<String>,
    /// The frames in the user's code with their files and lines, innermost first.
    pub stack: Vec<Frame>,
    /// Where the frames came from.
    pub trace: Trace,
    /// How bad it is.
    pub severity: Severity,
    /// Grouping (coarse) and exact hashes.
    pub hashes: CrashHashes,
    /// The run's stderr (capped), for the group's log.
    #[serde(skip)]
    pub log: String,
    /// When the run printed a stack that gave no frames, that stack as printed, without its
    /// addresses (see [`raw_stack`]): a sanitizer's trace with `symbolize=0` is module offsets,
    /// which tell crash sites apart as the frames would, until a symbolized run gives the frames.
    /// Kept when frames are taken. Empty otherwise.
    #[serde(skip)]
    pub raw_stack: Vec<String>,
}

impl Crash {
    /// The crash a run shows, if any (`None` for a clean exit or a run that did not happen),
    /// with the frames of the stack its output holds, if any.
    pub fn from_run(run: &Run) -> Option<Crash> {
        let signature = run.signature.clone()?;
        let class = classify(&signature, &run.stderr);
        let severity = Severity::of(class, &signature, &run.stderr);
        let mut crash = Crash {
            hashes: CrashHashes::new(&signature, &[]),
            signature,
            class,
            frames: Vec::new(),
            stack: Vec::new(),
            trace: Trace::None,
            severity,
            log: run.stderr.clone(),
            raw_stack: Vec::new(),
        };
        crash.set_stack(output_stack(&run.stderr), Trace::Output);
        if crash.trace == Trace::None {
            crash.raw_stack = raw_stack(&run.stderr);
        }
        Some(crash)
    }

    /// Takes the user frames of `stack` (a whole stack, innermost first) as this crash's frames,
    /// when it has any, and recomputes the location and hashes.
    pub fn set_stack(&mut self, stack: Vec<Frame>, trace: Trace) {
        let user = user_frames(&stack);
        if user.is_empty() {
            return;
        }
        self.frames = user.iter().map(|f| f.function.clone()).collect();
        if self.signature.kind != CrashKind::Panic && self.signature.location.is_none() {
            // A stack overflow stops anywhere in the recursing function (its line varies from
            // run to run); the frames below it stand at the recursive call.
            let recursing =
                self.class == CrashClass::StackOverflow && user.len() > 1 && user[0].function == user[1].function;
            let from = usize::from(recursing);
            self.signature.location = user[from..].iter().find_map(Frame::location);
        }
        self.stack = user;
        self.trace = trace;
        self.hashes = CrashHashes::new(&self.signature, &self.frames);
    }

    /// Takes another run's frames, location and hashes (a file of the same [`Crash::key`] whose
    /// frames were not asked for: the traced files of its key all agree). A crash other than a
    /// panic takes its message too: the same up to what symbolizing changes (a sanitizer's
    /// `SUMMARY:` line names the crash's file and function, or its module offset without).
    pub fn take_frames_of(&mut self, other: &Crash) {
        if self.signature.kind != CrashKind::Panic {
            self.signature.location = other.signature.location.clone();
            self.signature.message = other.signature.message.clone();
        }
        self.frames = other.frames.clone();
        self.stack = other.stack.clone();
        self.trace = other.trace;
        self.hashes = CrashHashes::new(&self.signature, &self.frames);
    }

    /// What a run shows without any stack, symbolized or not: kind, normalized message and (for
    /// a panic, which prints it) location. A sanitizer's `SUMMARY:` line counts up to the error
    /// type: what follows is the crash's first frame, as a file and function when the sanitizer
    /// symbolized it and as a module offset when not. Crashes of one key differ only in their
    /// frames.
    pub fn key(&self) -> (String, Option<String>, String) {
        let kind = format!("{:?}", self.signature.kind);
        let location = match self.signature.kind {
            CrashKind::Panic => self.signature.location.clone(),
            _ => None,
        };
        let message = match self.signature.kind {
            CrashKind::Panic => self.signature.message.as_str(),
            _ => without_summary_location(&self.signature.message),
        };
        (kind, location, normalize_message(message))
    }
}

/// A sanitizer's `SUMMARY: XSanitizer: type …` line up to the type (`SUMMARY: AddressSanitizer:
/// stack-overflow`); any other message as it is (libFuzzer's `SUMMARY: libFuzzer: deadly signal`
/// names no frame).
fn without_summary_location(message: &str) -> &str {
    let Some(rest) = message.strip_prefix("SUMMARY: ") else {
        return message;
    };
    let mut words = rest.split(' ');
    let tool = words.next().unwrap_or("");
    if !tool.ends_with("Sanitizer:") {
        return message;
    }
    let Some(kind) = words.next() else { return message };
    let end = "SUMMARY: ".len() + tool.len() + 1 + kind.len();
    &message[..end.min(message.len())]
}

fn classify(signature: &Signature, stderr: &str) -> CrashClass {
    let message = signature.message.as_str();
    match signature.kind {
        CrashKind::Timeout => return CrashClass::Timeout,
        CrashKind::Panic => return CrashClass::Panic,
        _ => {}
    }
    if message.contains("libFuzzer: timeout") {
        CrashClass::Timeout
    } else if message.contains("stack overflow")
        || message.contains("stack-overflow")
        || stderr.contains("has overflowed its stack")
    {
        CrashClass::StackOverflow
    } else if message.starts_with("memory allocation of ")
        || message.contains("out-of-memory")
        || message.contains("allocation-size-too-big")
    {
        CrashClass::OutOfMemory
    } else if message.starts_with("SUMMARY: ") {
        CrashClass::Sanitizer
    } else if let CrashKind::Signal(_) = signature.kind {
        CrashClass::Signal
    } else {
        CrashClass::ExitStatus
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{crash_summary, Exit, Outcome};
    use std::time::Duration;

    /// A run that exited with status 1 after printing `stderr`, as the subprocess oracle sees it.
    fn run(stderr: &str) -> Run {
        Run {
            outcome: Outcome::Fail,
            signature: Some(Signature {
                kind: CrashKind::ExitCode(1),
                location: None,
                message: crash_summary(stderr).unwrap_or_default(),
            }),
            exit: Exit::Code(1),
            stdout: String::new(),
            stderr: stderr.to_string(),
            duration: Duration::ZERO,
        }
    }

    const SYMBOLIZED: &str = concat!(
        "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000013 at pc 0x55d5a4\n",
        "READ of size 1 at 0x602000000013 thread T0\n",
        "    #0 0x55d5a4 in t::read /src/t.rs:30:13\n",
        "    #1 0x55d5a5 in t::parse /src/t.rs:41:5\n",
        "SUMMARY: AddressSanitizer: heap-buffer-overflow /src/t.rs:30:13 in t::read\n",
    );
    const RAW: &str = concat!(
        "==2==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000013 at pc 0x7fd5a4\n",
        "READ of size 1 at 0x602000000013 thread T0\n",
        "    #0 0x7fd5a4  (/fuzz/t+0x3c00) (BuildId: 1fce27e7)\n",
        "    #1 0x7fd5a5  (/fuzz/t+0x4010) (BuildId: 1fce27e7)\n",
        "SUMMARY: AddressSanitizer: heap-buffer-overflow (/fuzz/t+0x3c00) (BuildId: 1fce27e7) \n",
    );

    #[test]
    fn an_unsymbolized_run_has_the_key_of_the_symbolized_one_and_takes_its_frames() {
        let symbolized = Crash::from_run(&run(SYMBOLIZED)).unwrap();
        let mut raw = Crash::from_run(&run(RAW)).unwrap();
        assert_eq!(symbolized.trace, Trace::Output);
        assert_eq!(symbolized.frames, ["t::read", "t::parse"]);
        assert!(symbolized.raw_stack.is_empty());
        assert_eq!(raw.trace, Trace::None);
        assert!(raw.frames.is_empty());
        assert_eq!(raw.raw_stack, ["(/fuzz/t+0x3c00)", "(/fuzz/t+0x4010)"]);
        assert_eq!(raw.key(), symbolized.key());
        assert_eq!(raw.class, symbolized.class);
        assert_eq!(raw.severity, symbolized.severity);
        raw.take_frames_of(&symbolized);
        assert_eq!(
            raw.signature, symbolized.signature,
            "the symbolized SUMMARY line and location"
        );
        assert_eq!(raw.hashes, symbolized.hashes, "the same group");
        assert_eq!(raw.stack, symbolized.stack);
    }

    #[test]
    fn a_summary_line_counts_up_to_the_error_type() {
        let cut = without_summary_location;
        assert_eq!(
            cut("SUMMARY: AddressSanitizer: stack-overflow /a/t.rs:96:5 in t::recurse"),
            "SUMMARY: AddressSanitizer: stack-overflow"
        );
        assert_eq!(
            cut("SUMMARY: AddressSanitizer: SEGV (/fuzz/t+0x12) (BuildId: 1f)"),
            "SUMMARY: AddressSanitizer: SEGV"
        );
        assert_eq!(
            cut("SUMMARY: libFuzzer: deadly signal"),
            "SUMMARY: libFuzzer: deadly signal"
        );
        assert_eq!(cut("SUMMARY: MemorySanitizer:"), "SUMMARY: MemorySanitizer:");
        assert_eq!(
            cut("memory allocation of 8 bytes failed"),
            "memory allocation of 8 bytes failed"
        );
    }
}
