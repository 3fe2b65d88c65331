//! Reads the file named by the first argument and hands it to the crate, as the bug report does.
fn main() {
    let path = std::env::args().nth(1).expect("usage: harness FILE");
    let data = std::fs::read(&path).expect("the input file is readable");
    let Ok(text) = std::str::from_utf8(&data) else { return };
    // The report runs `pulldown-cmark -F -H`: footnotes and heading attributes.
    let options = pulldown_cmark::Options::ENABLE_FOOTNOTES | pulldown_cmark::Options::ENABLE_HEADING_ATTRIBUTES;
    for _ in pulldown_cmark::Parser::new_ext(text, options) {}
}
