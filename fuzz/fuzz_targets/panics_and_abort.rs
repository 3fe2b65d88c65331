//! The two panics of `two_panics` and an `abort()`, which continue mode cannot catch: a lone
//! process ends there, `-fork=1` with continue mode goes on (`scripts/bench-continue`).
#![no_main]

#[path = "common/continue_bugs.rs"]
mod bugs;

hellfuzz::fuzz_target!(|data: &[u8]| {
    bugs::shallow(data);
    bugs::halt(data);
    bugs::deeper(data);
});
