//! Reduce a crashing input with an in-process oracle: the "bug" is a panic of a function under
//! test; [`InProcess`] runs it on each candidate and counts a candidate as failing only if it
//! panics the same way. With the json grammar every candidate GTR* tries is valid JSON; the
//! byte-level passes that usually follow it are turned off here, so the result stays JSON.
//!
//! `cargo run --example reduce`

use hellfuzz::grammar::Grammar;
use hellfuzz::oracle::InProcess;
use hellfuzz::reduce::{reduce, ReduceOptions};

/// The code under test: it panics on any object with a key "b" whose value holds the number 13.
fn under_test(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(at) = text.find(r#""b""#) {
        if text[at..].contains("13") {
            panic!("unlucky number");
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let json = Grammar::load("json")?;
    let crash = br#"{"a": [1, 2, 3], "b": {"c": "some text", "d": [13, 14]}, "e": null}"#;
    // Runs the crash once to record its panic (location and message), quietly.
    let oracle = InProcess::new(under_test, crash)?;
    let mut options = ReduceOptions::default();
    options.byte_pass = false;
    options.passes.clear();
    let result = reduce(crash, Some(&json), &oracle, &options)?;
    assert!(hellfuzz::parse::Parser::new(&json).parse(&result.input).is_ok());
    println!(
        "{} -> {} bytes with {} in {} oracle calls: {}",
        crash.len(),
        result.input.len(),
        result.stats.algorithm,
        result.stats.oracle_calls,
        String::from_utf8_lossy(&result.input)
    );
    Ok(())
}
