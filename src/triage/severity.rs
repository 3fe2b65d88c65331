//! How bad a crash is, in the spirit of CASR's severity classes: a Rust panic, an abort or an
//! assertion is not exploitable; a sanitizer's heap-buffer-overflow, use-after-free or wild write
//! (unsafe code gone wrong) is exploitable or probably exploitable; stack overflows, out-of-memory
//! and timeouts have classes of their own.
//!
//! Map: [`SeverityClass`] (the class, also a `--fail-on-new` value) · [`Severity`] (class, short
//! type, why) · [`Severity::of`] (from the crash class, the signal and the sanitizer's report).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::crash::CrashClass;
use crate::oracle::{CrashKind, Signature};

/// A severity class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeverityClass {
    /// Memory written where it must not be (a sanitizer's overflow or use-after-free on a
    /// write, a double free): an attacker may control what happens next.
    Exploitable,
    /// Memory read where it must not be, a segfault away from address zero, an illegal
    /// instruction: memory safety is broken, exploitation not shown.
    ProbablyExploitable,
    /// The program stopped itself: a panic, an assertion, an abort, a null dereference, a leak.
    NotExploitable,
    /// The stack overflowed (a guard page stopped it).
    StackOverflow,
    /// Out of memory, or an allocation too large.
    OutOfMemory,
    /// Did not finish in time.
    Timeout,
}

impl SeverityClass {
    /// Every class, most severe first.
    pub const ALL: [SeverityClass; 6] = [
        SeverityClass::Exploitable,
        SeverityClass::ProbablyExploitable,
        SeverityClass::NotExploitable,
        SeverityClass::StackOverflow,
        SeverityClass::OutOfMemory,
        SeverityClass::Timeout,
    ];

    /// The name used in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SeverityClass::Exploitable => "exploitable",
            SeverityClass::ProbablyExploitable => "probably-exploitable",
            SeverityClass::NotExploitable => "not-exploitable",
            SeverityClass::StackOverflow => "stack-overflow",
            SeverityClass::OutOfMemory => "out-of-memory",
            SeverityClass::Timeout => "timeout",
        }
    }
}

impl fmt::Display for SeverityClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a severity class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSeverity(pub String);

impl fmt::Display for UnknownSeverity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = SeverityClass::ALL.iter().map(|c| c.name()).collect();
        write!(f, "unknown severity '{}' (one of: {})", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownSeverity {}

impl FromStr for SeverityClass {
    type Err = UnknownSeverity;

    /// A class by its name; case and `_` for `-` do not matter (`PROBABLY_EXPLOITABLE` as CASR
    /// writes it works too).
    fn from_str(s: &str) -> Result<SeverityClass, UnknownSeverity> {
        let wanted = s.trim().to_ascii_lowercase().replace('_', "-");
        SeverityClass::ALL
            .into_iter()
            .find(|c| c.name() == wanted)
            .ok_or_else(|| UnknownSeverity(s.to_string()))
    }
}

/// A crash's severity: its class, a short type (`panic`, `abort`, `heap-buffer-overflow(write)`,
/// …) and in a few words why.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Severity {
    /// The class.
    pub class: SeverityClass,
    /// The short type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Why this class.
    pub why: String,
}

impl Severity {
    fn new(class: SeverityClass, kind: impl Into<String>, why: impl Into<String>) -> Severity {
        Severity {
            class,
            kind: kind.into(),
            why: why.into(),
        }
    }

    /// The severity of a crash of class `class` with `signature`, whose run printed `stderr`.
    pub fn of(class: CrashClass, signature: &Signature, stderr: &str) -> Severity {
        use SeverityClass::*;
        match class {
            CrashClass::Timeout => return Severity::new(Timeout, "timeout", "did not finish in time"),
            CrashClass::StackOverflow => {
                return Severity::new(
                    StackOverflow,
                    "stack-overflow",
                    "the stack overflowed into its guard page",
                )
            }
            CrashClass::OutOfMemory => return Severity::new(OutOfMemory, "out-of-memory", "ran out of memory"),
            CrashClass::Panic => {
                let assertion = signature.message.starts_with("assertion");
                let kind = if assertion { "assertion" } else { "panic" };
                return Severity::new(NotExploitable, kind, "a Rust panic: the program stopped itself");
            }
            _ => {}
        }
        if let Some(s) = sanitizer(stderr) {
            return s;
        }
        match signature.kind {
            CrashKind::Signal(6) => Severity::new(NotExploitable, "abort", "abort(): the program stopped itself"),
            CrashKind::Signal(11) | CrashKind::Signal(7) => Severity::new(
                ProbablyExploitable,
                if signature.kind == CrashKind::Signal(7) {
                    "bus-error"
                } else {
                    "segv"
                },
                "a bad memory access (not a stack overflow): memory safety is broken",
            ),
            CrashKind::Signal(4) => Severity::new(
                ProbablyExploitable,
                "illegal-instruction",
                "an illegal instruction: a corrupted code pointer, or a trap",
            ),
            CrashKind::Signal(8) => Severity::new(NotExploitable, "floating-point-exception", "an arithmetic trap"),
            CrashKind::Signal(s) => Severity::new(NotExploitable, format!("signal-{s}"), "killed by a signal"),
            _ => Severity::new(NotExploitable, "exit-status", "exited with a failure status"),
        }
    }
}

/// The severity a sanitizer's report gives: AddressSanitizer's error kind and access (`WRITE of
/// size 4` / `READ of size 4`, or for a SEGV `The signal is caused by a WRITE memory access`),
/// MemorySanitizer, LeakSanitizer. `None` without a sanitizer error line.
fn sanitizer(stderr: &str) -> Option<Severity> {
    use SeverityClass::*;
    let (line, kind) = stderr.lines().find_map(|l| {
        let at = l
            .find("ERROR: AddressSanitizer: ")
            .map(|i| (i, "ERROR: AddressSanitizer: "));
        let at = at.or_else(|| {
            l.find("ERROR: HWAddressSanitizer: ")
                .map(|i| (i, "ERROR: HWAddressSanitizer: "))
        });
        let (i, prefix) = at?;
        let kind = l[i + prefix.len()..].split_whitespace().next()?.trim_end_matches(':');
        Some((l, kind.to_string()))
    })?;
    let write = stderr.contains("WRITE of size") || stderr.contains("caused by a WRITE memory access");
    let read = stderr.contains("READ of size") || stderr.contains("caused by a READ memory access");
    let access = if write {
        "(write)"
    } else if read {
        "(read)"
    } else {
        ""
    };
    let memory = [
        "heap-buffer-overflow",
        "stack-buffer-overflow",
        "stack-buffer-underflow",
        "global-buffer-overflow",
        "dynamic-stack-buffer-overflow",
        "container-overflow",
        "heap-use-after-free",
        "stack-use-after-return",
        "stack-use-after-scope",
        "use-after-poison",
        "intra-object-overflow",
    ];
    let typed = format!("{kind}{access}");
    Some(match kind.as_str() {
        k if memory.contains(&k) && write => Severity::new(Exploitable, typed, "an out-of-bounds or freed write"),
        k if memory.contains(&k) => Severity::new(ProbablyExploitable, typed, "an out-of-bounds or freed read"),
        "double-free" => Severity::new(Exploitable, kind, "memory freed twice"),
        "attempting" | "bad-free" | "alloc-dealloc-mismatch" | "bad-malloc_usable_size" => Severity::new(
            ProbablyExploitable,
            "bad-free",
            "memory freed that was not allocated so",
        ),
        "SEGV" | "BUS" => {
            let null =
                line.contains("unknown address 0x000000000") || stderr.contains("address points to the zero page");
            if null {
                Severity::new(NotExploitable, "null-deref", "a read or write near address zero")
            } else if write {
                Severity::new(Exploitable, "wild-write", "a write to a wild address")
            } else {
                Severity::new(
                    ProbablyExploitable,
                    format!("wild-access{access}"),
                    "an access to a wild address",
                )
            }
        }
        "stack-overflow" => Severity::new(StackOverflow, "stack-overflow", "the stack overflowed"),
        "allocation-size-too-big" | "out-of-memory" | "requested" | "calloc-overflow" => {
            Severity::new(OutOfMemory, kind, "an allocation too large")
        }
        "ABRT" => Severity::new(NotExploitable, "abort", "abort(): the program stopped itself"),
        _ => Severity::new(ProbablyExploitable, kind, "a sanitizer found a memory error"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signal(s: i32) -> Signature {
        Signature {
            kind: CrashKind::Signal(s),
            location: None,
            message: String::new(),
        }
    }

    #[test]
    fn classes_by_kind_signal_and_sanitizer() {
        let of = |class, sig: &Signature, err: &str| Severity::of(class, sig, err);
        let panic = Signature::panic(None, "index out of bounds");
        assert_eq!(of(CrashClass::Panic, &panic, "").class, SeverityClass::NotExploitable);
        let assertion = Signature::panic(None, "assertion `left == right` failed");
        assert_eq!(of(CrashClass::Panic, &assertion, "").kind, "assertion");
        assert_eq!(of(CrashClass::Signal, &signal(6), "").kind, "abort");
        assert_eq!(
            of(CrashClass::Signal, &signal(11), "").class,
            SeverityClass::ProbablyExploitable
        );
        assert_eq!(
            of(CrashClass::StackOverflow, &signal(11), "").class,
            SeverityClass::StackOverflow
        );
        assert_eq!(
            of(CrashClass::OutOfMemory, &signal(6), "").class,
            SeverityClass::OutOfMemory
        );
        assert_eq!(of(CrashClass::Timeout, &signal(9), "").class, SeverityClass::Timeout);
        let asan = |body: &str| of(CrashClass::Sanitizer, &signal(6), body);
        let hbo = "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020 at pc 0x55 bp 0x7f sp 0x7f\n";
        let w = asan(&format!("{hbo}WRITE of size 4 at 0x6020 thread T0\n"));
        assert_eq!(
            (w.class, w.kind.as_str()),
            (SeverityClass::Exploitable, "heap-buffer-overflow(write)")
        );
        let r = asan(&format!("{hbo}READ of size 1 at 0x6020 thread T0\n"));
        assert_eq!(r.class, SeverityClass::ProbablyExploitable);
        let uaf = asan("==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\nWRITE of size 8\n");
        assert_eq!(uaf.class, SeverityClass::Exploitable);
        let null = asan(concat!(
            "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x1 bp 0x2 sp 0x3 T0)\n",
            "==1==The signal is caused by a READ memory access.\n",
            "==1==Hint: address points to the zero page.\n"
        ));
        assert_eq!(
            (null.class, null.kind.as_str()),
            (SeverityClass::NotExploitable, "null-deref")
        );
        let wild = asan(concat!(
            "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x7f0012345678 (pc 0x1 bp 0x2 sp 0x3 T0)\n",
            "==1==The signal is caused by a WRITE memory access.\n",
        ));
        assert_eq!(
            (wild.class, wild.kind.as_str()),
            (SeverityClass::Exploitable, "wild-write")
        );
        let deadly = asan("==1== ERROR: libFuzzer: deadly signal\n");
        assert_eq!(deadly.kind, "abort");
    }

    #[test]
    fn names_round_trip() {
        for c in SeverityClass::ALL {
            assert_eq!(c.name().parse::<SeverityClass>(), Ok(c));
        }
        assert_eq!("PROBABLY_EXPLOITABLE".parse(), Ok(SeverityClass::ProbablyExploitable));
        let err = "bad".parse::<SeverityClass>().unwrap_err().to_string();
        assert!(err.contains("one of: exploitable"), "{err}");
    }
}
