//! Profiling aid: parses one built-in grammar's samples N times (`prof_parse NAME N`), or with
//! NAME `json-1mb` the ~1 MB JSON document of `bench_parse` (the seeds in an array, repeated), or
//! with NAME `js-tiny` the 3-byte js input `x;` 10,000 times per pass (what a parse costs
//! whatever the input). Prints the throughput and time per parse of those N passes (grammar
//! loading and a first pass left out).
use hellfuzz::grammar::{builtin, Grammar};
use hellfuzz::parse::Parser;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("css", String::as_str);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let docs: Vec<Vec<u8>> = if name == "json-1mb" {
        let mut big = b"[\n".to_vec();
        while big.len() < 1_000_000 {
            for (_, s) in builtin::samples("json") {
                if big.len() > 2 {
                    big.extend_from_slice(b",\n");
                }
                big.extend_from_slice(s);
            }
        }
        big.extend_from_slice(b"\n]\n");
        vec![big]
    } else if name == "js-tiny" {
        vec![b"x;\n".to_vec(); 10_000]
    } else {
        builtin::samples(name).iter().map(|(_, d)| d.to_vec()).collect()
    };
    let g = Grammar::load(name.strip_suffix("-1mb").or(name.strip_suffix("-tiny")).unwrap_or(name)).unwrap();
    let p = Parser::new(&g);
    for d in &docs {
        std::hint::black_box(p.parse(d).ok());
    }
    let started = std::time::Instant::now();
    for _ in 0..n {
        for d in &docs {
            std::hint::black_box(p.parse(d).ok());
        }
    }
    let bytes = n * docs.iter().map(Vec::len).sum::<usize>();
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{name}: {bytes} bytes in {secs:.3} s, {:.2} MB/s, {:.1} µs per parse",
        bytes as f64 / secs / 1e6,
        secs / (n * docs.len()) as f64 * 1e6
    );
}
