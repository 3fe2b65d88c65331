//! The js target, without the grammar-aware mutator (the baseline of `js_mutator`): crashes are
//! minimized with the `js` grammar before libFuzzer saves them (see `common/js_roundtrip.rs` for
//! what is tested).
#![no_main]

#[path = "common/js_roundtrip.rs"]
mod js_roundtrip;

hellfuzz::fuzz_target!(grammar = "js", mutator = false, |data: &[u8]| {
    js_roundtrip::js(data);
});
