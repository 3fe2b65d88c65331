//! Reads the file named by the first argument and hands it to the crate, as the bug report does.
use lightningcss::stylesheet::{ParserFlags, ParserOptions, StyleSheet};

fn main() {
    let path = std::env::args().nth(1).expect("usage: harness FILE");
    let data = std::fs::read(&path).expect("the input file is readable");
    let Ok(code) = std::str::from_utf8(&data) else { return };
    let options = ParserOptions {
        filename: "input.css".to_string(),
        css_modules: None,
        source_index: 0,
        error_recovery: false,
        warnings: None,
        flags: ParserFlags::empty(),
    };
    let _ = StyleSheet::parse(code, options);
}
