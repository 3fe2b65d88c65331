//! (P), (P+S): the plain libfuzzer-sys target: the library call of the bug report (`bug_serde_json_wasm_nesting_overflow::run`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bug_serde_json_wasm_nesting_overflow::run(data));
