//! (P), (P+S): the plain libfuzzer-sys target: the library call of the bug report (`bug_naga_glsl_shift_negative::run`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bug_naga_glsl_shift_negative::run(data));
