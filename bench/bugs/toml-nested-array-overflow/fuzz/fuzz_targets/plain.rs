//! (P), (P+S): the plain libfuzzer-sys target: the library call of the bug report (`bug_toml_nested_array_overflow::run`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bug_toml_nested_array_overflow::run(data));
