//! Load a grammar and parse: a built-in grammar by name (or a grammar file by path), one input
//! parsed into its derivation tree, printed, and unparsed back to the same bytes.
//!
//! `cargo run --example parse [GRAMMAR] [INPUT]` (default: json and a small document).

use hellfuzz::grammar::Grammar;
use hellfuzz::parse::Parser;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let grammar = Grammar::load(&args.next().unwrap_or_else(|| "json".to_string()))?;
    let input = args
        .next()
        .unwrap_or_else(|| r#"{"name": "hellfuzz", "tags": [1, 2.5]}"#.to_string());

    let tree = Parser::new(&grammar).parse(input.as_bytes())?;
    println!("{}", tree.to_text(&grammar));
    // The tree keeps every byte (layout included), so unparsing gives the input back.
    assert_eq!(tree.unparse(), input.as_bytes());
    Ok(())
}
