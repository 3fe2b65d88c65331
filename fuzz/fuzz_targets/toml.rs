//! The toml target: crashes are minimized with the `toml` grammar
//! before libFuzzer saves them (see `common/toml_roundtrip.rs` for what is tested).
#![no_main]

#[path = "common/toml_roundtrip.rs"]
mod toml_roundtrip;

hellfuzz::fuzz_target!(grammar = "toml", |data: &[u8]| {
    toml_roundtrip::toml(data);
});
