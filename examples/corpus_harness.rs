//! A byte-slice fuzz target with every option: a grammar, `init:` and `-> Corpus`, built as a
//! plain binary; tests/harness.rs reduces its crash in reduce mode.
//!
//! The planted bug: a JSON object whose `"boom"` array has three or more elements. Documents
//! without a `"v"` key are rejected (`Corpus::Reject`), so a minimized crash keeps one. `init`
//! must have run exactly once before any input, also in reduce mode: the body checks.

use std::sync::atomic::{AtomicUsize, Ordering};

use hellfuzz::Corpus;

static INITS: AtomicUsize = AtomicUsize::new(0);

hellfuzz::fuzz_target!(grammar = "json", init: INITS.fetch_add(1, Ordering::SeqCst), |data: &[u8]| -> Corpus {
    let inits = INITS.load(Ordering::SeqCst);
    assert!(inits == 1, "init ran {inits} times before an input");
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return Corpus::Reject;
    };
    if value.get("v").is_none() {
        return Corpus::Reject;
    }
    if let Some(items) = value.get("boom").and_then(|v| v.as_array()) {
        let table = [1u8, 2];
        std::hint::black_box(table[items.len() - 1]);
    }
    Corpus::Keep
});
