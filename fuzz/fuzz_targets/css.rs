//! The css target: crashes are minimized with the `css` grammar
//! before libFuzzer saves them (see `common/css_roundtrip.rs` for what is tested).
#![no_main]

#[path = "common/css_roundtrip.rs"]
mod css_roundtrip;

hellfuzz::fuzz_target!(grammar = "css", |data: &[u8]| {
    css_roundtrip::css(data);
});
