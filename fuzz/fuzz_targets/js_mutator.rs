//! The js target with hellfuzz's grammar-aware custom mutator: crashes are minimized with the `js` grammar
//! before libFuzzer saves them (see `common/js_roundtrip.rs` for what is tested).
#![no_main]

#[path = "common/js_roundtrip.rs"]
mod js_roundtrip;

hellfuzz::fuzz_target!(grammar = "js", |data: &[u8]| {
    js_roundtrip::js(data);
});
