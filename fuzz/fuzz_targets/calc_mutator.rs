//! The calc target with hellfuzz's grammar-aware custom mutator: crashes are minimized with the `expr` grammar
//! before libFuzzer saves them (see `common/subjects.rs` for what is tested).
#![no_main]

#[path = "common/subjects.rs"]
mod subjects;

hellfuzz::fuzz_target!(grammar = "expr", |data: &[u8]| {
    subjects::calc(data);
});
