//! The js target: crashes are minimized with the `js` grammar
//! before libFuzzer saves them (see `common/subjects.rs` for what is tested).
#![no_main]

#[path = "common/subjects.rs"]
mod subjects;

hellfuzz::fuzz_target!(grammar = "js", |data: &[u8]| {
    subjects::js(data);
});
