//! Parse throughput of the generic Earley parser on JSON, with serde_json on the same documents
//! in the same run as the reference. Run through `scripts/bench-parse`.
//!
//! Documents: every file under seeds/json (parsed one after the other), and a ~1 MB document
//! made deterministically from those seeds (an array of them, repeated). Then every built-in
//! grammar on its own samples (the imported tree-sitter grammars among them), without a reference. Each measurement is the
//! median of several runs; lines are `name: value unit` as DESIGN.md's "Measuring" asks.
//! Last, peak memory per input byte on a 20 MB document (a fresh process per parser).

#[path = "support/median.rs"]
mod median;
use median::median_secs;

use hellfuzz::grammar::{builtin, Grammar};
use hellfuzz::parse::Parser;

const RUNS: usize = 7;

/// A JSON document of at least `size` bytes: an array of the seeds, repeated.
fn document(seeds: &[&[u8]], size: usize) -> Vec<u8> {
    let mut big = b"[\n".to_vec();
    while big.len() < size {
        for s in seeds {
            if big.len() > 2 {
                big.extend_from_slice(b",\n");
            }
            big.extend_from_slice(s);
        }
    }
    big.extend_from_slice(b"\n]\n");
    big
}

/// The peak resident memory of this process so far (`VmHWM`), in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc/self/status");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status");
    kb * 1024
}

/// Child mode: `--peak WHAT FILE` reads FILE, parses it with WHAT (`none`, `hellfuzz` (the
/// tree), `hellfuzz-recognize` (no tree), `serde_json`) and prints the peak resident memory in
/// bytes.
fn peak_child(what: &str, file: &str) {
    let input = std::fs::read(file).expect("the benchmark document");
    let grammar = Grammar::load("json").expect("built-in json grammar loads");
    let parser = Parser::new(&grammar);
    match what {
        "hellfuzz" => {
            let tree = parser.parse(&input).expect("the document parses");
            std::hint::black_box(&tree);
        }
        "hellfuzz-recognize" => parser.recognize(&input).expect("the document parses"),
        "serde_json" => {
            let v: serde_json::Value = serde_json::from_slice(&input).expect("valid JSON");
            std::hint::black_box(&v);
        }
        _ => {}
    }
    println!("{}", peak_rss());
}

/// Peak memory per input byte of parsing a 20 MB document, in a fresh process per parser (peak
/// memory only grows), less the same process's peak without parsing.
fn memory(seeds: &[&[u8]]) {
    let doc = document(seeds, 20_000_000);
    let file = tempfile::NamedTempFile::new().expect("a temporary file");
    std::fs::write(file.path(), &doc).expect("write the document");
    let me = std::env::current_exe().expect("the benchmark's own path");
    let peak = |what: &str| -> f64 {
        let out = std::process::Command::new(&me)
            .args(["--peak", what, file.path().to_str().expect("a UTF-8 temp path")])
            .output()
            .expect("run the benchmark's child");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a byte count")
    };
    let base = peak("none");
    println!("json-20mb-bytes: {} bytes", doc.len());
    for what in ["hellfuzz", "hellfuzz-recognize", "serde_json"] {
        let used = peak(what) - base;
        println!("json-20mb-peak-{what}: {:.0} MB", used / 1e6);
        println!(
            "json-20mb-peak-{what}-per-byte: {:.1} bytes per input byte",
            used / doc.len() as f64
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, what, file] = args.as_slice() {
        if flag == "--peak" {
            return peak_child(what, file);
        }
    }
    let grammar = Grammar::load("json").expect("built-in json grammar loads");
    let parser = Parser::new(&grammar);
    let seeds: Vec<&[u8]> = builtin::samples("json").iter().map(|(_, b)| *b).collect();
    let seed_bytes: usize = seeds.iter().map(|s| s.len()).sum();

    let big = document(&seeds, 1_000_000);
    assert!(
        serde_json::from_slice::<serde_json::Value>(&big).is_ok(),
        "the generated document is valid JSON"
    );

    let mut report = Vec::new();
    for (name, docs) in [("seeds", seeds.clone()), ("1mb", vec![big.as_slice()])] {
        let bytes: usize = docs.iter().map(|d| d.len()).sum();
        let ours = median_secs(RUNS, || {
            for d in &docs {
                let tree = parser.parse(d).expect("every benchmark document parses");
                std::hint::black_box(tree);
            }
        });
        let serde = median_secs(RUNS, || {
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
        let secs = median_secs(RUNS, || {
            for d in &docs {
                std::hint::black_box(p.parse(d).ok());
            }
        });
        println!("{name}-samples-bytes: {bytes} bytes");
        println!("{name}-samples-hellfuzz: {:.2} MB/s", bytes as f64 / secs / 1e6);
        per_grammar.push(format!("{name} {:.1}", bytes as f64 / secs / 1e6));
    }
    println!("samples: MB/s per grammar: {}", per_grammar.join(", "));
    memory(&seeds);
    println!(
        "summary: hellfuzz Earley parses JSON at {:.1} MB/s (seeds) and {:.1} MB/s (1 MB document), {:.0}x and {:.0}x the time of serde_json (median of {RUNS} runs)",
        report[0].1, report[1].1, report[0].2, report[1].2
    );
}
