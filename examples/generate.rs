//! Mine samples and generate: the choices a few JSON samples make are counted into a model, and
//! inputs are generated with the inverted probabilities (what the samples rarely or never do:
//! "inputs from hell"). Every generated input parses with the same grammar.
//!
//! `cargo run --example generate [COUNT]` (default: 5 inputs).

use hellfuzz::generate::{Generator, Limits};
use hellfuzz::grammar::Grammar;
use hellfuzz::mine::{samples, Probabilities, ProbabilityMode};
use hellfuzz::parse::Parser;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args().nth(1).map_or(Ok(5), |n| n.parse())?;
    let json = Grammar::load("json")?;
    let parser = Parser::new(&json);
    let trees = [r#"{"id": 1, "name": "a"}"#, r#"[{"id": 2}, {"id": 3, "tags": []}]"#]
        .iter()
        .map(|sample| parser.parse(sample.as_bytes()))
        .collect::<Result<Vec<_>, _>>()?;

    let model = samples::model_of(&json, &trees);
    let from_hell = Probabilities::new(&json, Some(&model), ProbabilityMode::Inverted);
    // Seeded: the same seed gives the same inputs.
    let mut generator = Generator::checked(&json, &from_hell, Limits::up_to(120), 42)?;
    for _ in 0..count {
        let input = generator.input();
        assert!(parser.parse(&input).is_ok());
        println!("{:?}", String::from_utf8_lossy(&input));
    }
    Ok(())
}
