//! (P), (P+S): the plain libfuzzer-sys target: the library call of the bug report (`bug_sqlparser_top_literal_int::run`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bug_sqlparser_top_literal_int::run(data));
