//! (P), (P+S): the plain libfuzzer-sys target: the library call of the bug report (`bug_sqlparser_set_authorization::run`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bug_sqlparser_set_authorization::run(data));
