//! In-process generation speed, for scripts/bench-gen: hellfuzz's generator on a built-in grammar
//! ("more of the same" or inverted, as `hellfuzz gen` sets them up), or the `bnf` crate's on
//! `json.bnf`. Prints one line: `MB/s inputs/s bytes inputs seconds`.
//!
//!   bench-gen hellfuzz GRAMMAR default|inverted SECONDS
//!   bench-gen bnf SECONDS
//!   bench-gen f1 MAX_DEPTH SECONDS       (F1's technique by hand on json.grammar, see f1.rs)
//!   bench-gen f1-out MAX_DEPTH COUNT     (its inputs, one per line, to check them)

mod f1;

use std::io::Write;
use std::time::{Duration, Instant};

use hellfuzz::generate::{targets_with_trees, Generator, Limits};
use hellfuzz::grammar::Grammar;
use hellfuzz::mine::{samples, Probabilities, ProbabilityMode};
use rand::SeedableRng;

/// Generates with `next` until `seconds` have passed; prints the line.
fn run(seconds: f64, mut next: impl FnMut() -> Option<usize>) {
    let limit = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let (mut bytes, mut inputs, mut failed) = (0usize, 0usize, 0usize);
    loop {
        for _ in 0..64 {
            match next() {
                Some(n) => {
                    bytes += n;
                    inputs += 1;
                }
                None => failed += 1,
            }
        }
        if start.elapsed() >= limit {
            break;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{:.2} {:.0} {} {} {:.2}{}",
        bytes as f64 / secs / 1e6,
        inputs as f64 / secs,
        bytes,
        inputs,
        secs,
        if failed > 0 { format!(" ({failed} failed)") } else { String::new() }
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["hellfuzz", grammar, mode, seconds] => {
            let g = Grammar::load(grammar).expect("a built-in grammar");
            let (trees, _) = samples::parse_builtin(&g, grammar);
            let model = samples::model_of(&g, &trees);
            let inverted = *mode == "inverted";
            let probs = Probabilities::new(
                &g,
                Some(&model),
                if inverted { ProbabilityMode::Inverted } else { ProbabilityMode::Mined },
            );
            // As `hellfuzz gen` sets it up: "more of the same" follows one sample per input (up
            // to the largest sample's size), inverted inputs have a grow phase to 500 bytes.
            let mut limits = Limits::up_to(1000);
            let targets = if inverted { Vec::new() } else { targets_with_trees(&g, &model, trees) };
            if let Some(largest) = targets.iter().map(|t| t.size).max() {
                limits.max_size = largest.clamp(1, 1 << 20);
            }
            let mut generator = Generator::checked(&g, &probs, limits, 0).unwrap().with_targets(&targets);
            run(seconds.parse().unwrap(), || Some(generator.input().len()));
        }
        ["bnf", seconds] => {
            let text = include_str!("../json.bnf");
            let g: bnf::Grammar = text.parse().expect("json.bnf is BNF");
            let mut rng = rand::rngs::StdRng::seed_from_u64(0);
            run(seconds.parse().unwrap(), || g.generate_seeded(&mut rng).ok().map(|s| s.len()));
        }
        ["f1", depth, seconds] => {
            let mut f1 = f1::F1::new(0, depth.parse().unwrap());
            run(seconds.parse().unwrap(), || {
                f1.input();
                Some(f1.out.len())
            });
        }
        ["f1-out", depth, count] => {
            let mut f1 = f1::F1::new(0, depth.parse().unwrap());
            let mut stdout = std::io::stdout().lock();
            for _ in 0..count.parse::<usize>().unwrap() {
                f1.input();
                // One per line: JSON strings hold no raw newline, whitespace runs may.
                let line: Vec<u8> = f1.out.iter().map(|&b| if b == b'\n' { b' ' } else { b }).collect();
                stdout.write_all(&line).unwrap();
                stdout.write_all(b"\n").unwrap();
            }
        }
        _ => {
            eprintln!("usage: bench-gen hellfuzz GRAMMAR default|inverted SECONDS | bench-gen bnf SECONDS | bench-gen f1 MAX_DEPTH SECONDS | bench-gen f1-out MAX_DEPTH COUNT");
            std::process::exit(2);
        }
    }
}
