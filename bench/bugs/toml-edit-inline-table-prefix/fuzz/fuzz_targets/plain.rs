//! (P), (P+S): the plain libfuzzer-sys target: the library call of the bug report (`bug_toml_edit_inline_table_prefix::run`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bug_toml_edit_inline_table_prefix::run(data));
