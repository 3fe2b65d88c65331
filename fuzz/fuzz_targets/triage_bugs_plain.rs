//! The planted bugs of `tests/fixtures/triage_harness.rs` (see `common/triage_bugs.rs`) behind plain
//! `libfuzzer_sys::fuzz_target!`: the reference setup for CASR in `scripts/bench-triage-casr`.
#![no_main]

#[path = "common/triage_bugs.rs"]
mod bugs;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bugs::parse(data);
});
