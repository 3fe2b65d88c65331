//! The json target, without the grammar-aware mutator (the baseline of `json_mutator`): crashes are
//! minimized with the `json` grammar before libFuzzer saves them (see `common/subjects.rs` for what
//! is tested).
#![no_main]

#[path = "common/subjects.rs"]
mod subjects;

hellfuzz::fuzz_target!(grammar = "json", mutator = false, |data: &[u8]| {
    subjects::json(data);
});
