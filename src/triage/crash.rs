//! What one run of the harness shows: a [`Crash`] (signature, filtered frames, hashes) and its
//! [`CrashClass`] as the report names it (panic, signal, sanitizer, stack overflow, timeout, OOM).
//!
//! Map: [`Crash::from_run`] · `classify` (kind and telling stderr lines → class).

use serde::Serialize;

use crate::oracle::{crash_frames, CrashHashes, CrashKind, Run, Signature};

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

/// One reproduced crash: its signature, class, filtered frames, hashes and output.
#[derive(Clone, Debug, Serialize)]
pub struct Crash {
    /// Kind, location, message.
    pub signature: Signature,
    /// The report's name for it.
    pub class: CrashClass,
    /// The backtrace without machinery frames, innermost first (empty without a backtrace).
    pub frames: Vec<String>,
    /// Grouping (coarse) and exact hashes.
    pub hashes: CrashHashes,
    /// The run's stderr (capped), for the group's log.
    #[serde(skip)]
    pub log: String,
}

impl Crash {
    /// The crash a run shows, if any (`None` for a clean exit or a run that did not happen).
    pub fn from_run(run: &Run) -> Option<Crash> {
        let signature = run.signature.clone()?;
        let frames = crash_frames(&run.stderr);
        let hashes = CrashHashes::new(&signature, &frames);
        let class = classify(&signature, &run.stderr);
        Some(Crash {
            signature,
            class,
            frames,
            hashes,
            log: run.stderr.clone(),
        })
    }
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
