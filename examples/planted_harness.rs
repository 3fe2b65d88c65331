//! A fuzz target with two planted bugs, built as a plain binary (no fuzzer feature): it runs the
//! files named on its command line, and reduces one in-process under `HELLFUZZ_REDUCE=<file>`.
//! The tests of `hellfuzz reduce --harness` use it.
//!
//! - an object whose `"boom"` array has three or more elements: a panic (index out of bounds);
//! - an object with an `"abort"` key: `std::process::abort()`, which no `catch_unwind` survives.

fn consume(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if value.get("abort").is_some() {
        std::process::abort();
    }
    if let Some(items) = value.get("boom").and_then(|v| v.as_array()) {
        let table = [1u8, 2];
        let _ = std::hint::black_box(table[items.len() - 1]);
    }
}

hellfuzz::fuzz_target!(grammar = "json", |data: &[u8]| {
    consume(data);
});
