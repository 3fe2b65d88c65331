//! Reads the file named by the first argument and hands it to the crate, as the bug report does.
fn main() {
    let path = std::env::args().nth(1).expect("usage: harness FILE");
    let data = std::fs::read(&path).expect("the input file is readable");
    let Ok(pattern) = std::str::from_utf8(&data) else { return };
    // What `regex::Regex::new` does first: parse the pattern and translate it to HIR.
    let _ = regex_syntax::Parser::new().parse(pattern);
}
