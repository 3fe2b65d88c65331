//! Two panics, the shallow one hit first (`common/continue_bugs.rs`): in continue mode
//! (`HELLFUZZ_CONTINUE=1`) one process must save and minimize both, each once
//! (`scripts/fuzz-continue`, run by CI).
#![no_main]

#[path = "common/continue_bugs.rs"]
mod bugs;

hellfuzz::fuzz_target!(|data: &[u8]| {
    bugs::shallow(data);
    bugs::deeper(data);
});
