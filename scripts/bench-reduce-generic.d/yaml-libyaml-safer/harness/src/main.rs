//! Reads the file named by the first argument and hands it to the crate, as the bug report does.
fn main() {
    let path = std::env::args().nth(1).expect("usage: harness FILE");
    let data = std::fs::read(&path).expect("the input file is readable");
    let mut input: &[u8] = &data;
    let mut parser = libyaml_safer::Parser::new();
    parser.set_input_string(&mut input);
    let _ = libyaml_safer::Document::load(&mut parser);
}
