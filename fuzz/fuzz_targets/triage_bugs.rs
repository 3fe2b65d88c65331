//! The planted bugs of `tests/fixtures/triage_harness.rs` (see `common/triage_bugs.rs`) behind
//! `hellfuzz::fuzz_target!`, for `scripts/bench-triage-casr`: stack-based triage (CASR, `hellfuzz
//! triage`) must tell the bugs apart through our macro as through plain libfuzzer-sys.
#![no_main]

#[path = "common/triage_bugs.rs"]
mod bugs;

hellfuzz::fuzz_target!(|data: &[u8]| {
    bugs::parse(data);
});
