//! Parse throughput of the generic Earley parser on JSON, with serde_json on the same documents
//! in the same run as the reference. Run through `scripts/bench-parse`.
//!
//! Documents: every file under seeds/json (parsed one after the other), and a ~1 MB document
//! made deterministically from those seeds (an array of them, repeated). Then every built-in
//! grammar on its own samples (the imported tree-sitter grammars among them), without a reference. Each measurement is the
//! median of several runs; lines are `name: value unit` as DESIGN.md's "Measuring" asks.

use std::time::Instant;

use hellfuzz::grammar::{builtin, Grammar};
use hellfuzz::parse::Parser;

const RUNS: usize = 7;

fn median_secs(mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    times[RUNS / 2]
}

fn main() {
    let grammar = Grammar::load("json").expect("built-in json grammar loads");
    let parser = Parser::new(&grammar);
    let seeds: Vec<&[u8]> = builtin::samples("json").iter().map(|(_, b)| *b).collect();
    let seed_bytes: usize = seeds.iter().map(|s| s.len()).sum();

    let mut big = b"[\n".to_vec();
    while big.len() < 1_000_000 {
        for s in &seeds {
            if big.len() > 2 {
                big.extend_from_slice(b",\n");
            }
            big.extend_from_slice(s);
        }
    }
    big.extend_from_slice(b"\n]\n");
    assert!(
        serde_json::from_slice::<serde_json::Value>(&big).is_ok(),
        "the generated document is valid JSON"
    );

    let mut report = Vec::new();
    for (name, docs) in [("seeds", seeds.clone()), ("1mb", vec![big.as_slice()])] {
        let bytes: usize = docs.iter().map(|d| d.len()).sum();
        let ours = median_secs(|| {
            for d in &docs {
                let tree = parser.parse(d).expect("every benchmark document parses");
                std::hint::black_box(tree);
            }
        });
        let serde = median_secs(|| {
            for d in &docs {
                let v: serde_json::Value = serde_json::from_slice(d).expect("valid JSON");
                std::hint::black_box(v);
            }
        });
        let mbps = |secs: f64| bytes as f64 / secs / 1e6;
        println!("json-{name}-bytes: {bytes} bytes");
        println!("json-{name}-hellfuzz: {:.2} MB/s", mbps(ours));
        println!("json-{name}-serde_json: {:.2} MB/s", mbps(serde));
        println!("json-{name}-ratio: {:.1} x slower than serde_json", ours / serde);
        report.push((name, mbps(ours), ours / serde));
    }
    let _ = seed_bytes;
    let mut per_grammar = Vec::new();
    for name in builtin::names() {
        let g = Grammar::load(name).expect("built-in grammars load");
        let p = Parser::new(&g);
        // Every sample parses (the tests check it); one that did not would only be skipped here.
        let docs: Vec<&[u8]> = builtin::samples(name)
            .iter()
            .map(|(_, b)| *b)
            .filter(|d| p.parse(d).is_ok())
            .collect();
        let bytes: usize = docs.iter().map(|d| d.len()).sum();
        let secs = median_secs(|| {
            for d in &docs {
                std::hint::black_box(p.parse(d).ok());
            }
        });
        println!("{name}-samples-bytes: {bytes} bytes");
        println!("{name}-samples-hellfuzz: {:.2} MB/s", bytes as f64 / secs / 1e6);
        per_grammar.push(format!("{name} {:.1}", bytes as f64 / secs / 1e6));
    }
    println!("samples: MB/s per grammar: {}", per_grammar.join(", "));
    println!(
        "summary: hellfuzz Earley parses JSON at {:.1} MB/s (seeds) and {:.1} MB/s (1 MB document), {:.0}x and {:.0}x the time of serde_json (median of {RUNS} runs)",
        report[0].1, report[1].1, report[0].2, report[1].2
    );
}
