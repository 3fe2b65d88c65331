//! Parse throughput of grammars of programming languages on real source files: an imported
//! tree-sitter grammar beside the hand-written js grammar (the reference) in the same run.
//! Run through `scripts/bench-parse-imported`, which imports the grammars and finds the files.
//!
//! Arguments: groups `NAME GRAMMAR FILE... --`, where GRAMMAR is a built-in name or a path.
//! Per group: the files it parses, their bytes, the median (of 3 runs) time of parsing them
//! all, MB/s, and the slowest file in seconds per 10 KB. Files the grammar rejects are counted
//! and left out of the figures. Lines are `name: value unit` as DESIGN.md's "Measuring" asks.

use std::time::Instant;

#[path = "support/median.rs"]
mod median;
use median::median_secs;

use hellfuzz::grammar::Grammar;
use hellfuzz::parse::Parser;

const RUNS: usize = 3;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    for group in args.split(|a| a == "--").filter(|g| g.len() >= 2) {
        let (name, grammar, files) = (&group[0], &group[1], &group[2..]);
        let g = Grammar::load(grammar).unwrap_or_else(|e| panic!("{grammar}: {e}"));
        let parser = Parser::new(&g);
        let mut parsed: Vec<(String, Vec<u8>)> = Vec::new();
        let mut rejected = 0;
        for f in files {
            let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}"));
            if parser.recognize(&bytes).is_ok() {
                parsed.push((f.clone(), bytes));
            } else {
                rejected += 1;
            }
        }
        let total: usize = parsed.iter().map(|(_, b)| b.len()).sum();
        let mut slowest = (0.0f64, String::new());
        let secs = median_secs(RUNS, || {
            for (f, b) in &parsed {
                let t = Instant::now();
                let tree = parser.parse(b).expect("parsed before");
                std::hint::black_box(tree);
                let per_10k = t.elapsed().as_secs_f64() / (b.len().max(1) as f64 / 10_000.0);
                if per_10k > slowest.0 {
                    slowest = (per_10k, f.clone());
                }
            }
        });
        println!("{name}: files parsed: {} of {}", parsed.len(), parsed.len() + rejected);
        println!("{name}: bytes: {total}");
        println!("{name}: time: {secs:.3} s");
        println!("{name}: throughput: {:.2} MB/s", total as f64 / secs / 1e6);
        println!("{name}: slowest file: {:.3} s per 10 KB ({})", slowest.0, slowest.1);
    }
}
