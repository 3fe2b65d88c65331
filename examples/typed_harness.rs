//! A typed fuzz target (libfuzzer-sys's structure-aware form: `|program: Program|`, built from the
//! bytes by `arbitrary`), with `init:` and `-> Corpus`, built as a plain binary. tests/harness.rs
//! runs it and reduces its crash in reduce mode; the subject is tests/fixtures/stack_machine.rs.
//!
//! `init` must have run exactly once before any input, also in reduce mode: the body checks.

#[path = "../tests/fixtures/stack_machine.rs"]
mod stack_machine;

use std::sync::atomic::{AtomicUsize, Ordering};

use hellfuzz::Corpus;
use stack_machine::Program;

static INITS: AtomicUsize = AtomicUsize::new(0);

hellfuzz::fuzz_target!(
    init: {
        INITS.fetch_add(1, Ordering::SeqCst);
    },
    |program: Program| -> Corpus {
        let inits = INITS.load(Ordering::SeqCst);
        assert!(inits == 1, "init ran {inits} times before an input");
        if program.ops.is_empty() {
            return Corpus::Reject;
        }
        std::hint::black_box(stack_machine::execute(&program));
        Corpus::Keep
    }
);
