//! Reads the file named by the first argument and hands it to the crate, as the bug report does.
use html5ever::tendril::TendrilSink;

fn main() {
    let path = std::env::args().nth(1).expect("usage: harness FILE");
    let data = std::fs::read(&path).expect("the input file is readable");
    let Ok(text) = std::str::from_utf8(&data) else { return };
    let _ = html5ever::parse_document(markup5ever_rcdom::RcDom::default(), Default::default()).one(text);
}
