//! (P), (P+S): the plain libfuzzer-sys target: the library call of the bug report (`bug_regex_syntax_flag_group_capture::run`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bug_regex_syntax_flag_group_capture::run(data));
