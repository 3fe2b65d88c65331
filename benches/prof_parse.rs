//! Profiling aid: parses one built-in grammar's samples N times (`prof_parse NAME N`), or with
//! NAME `json-1mb` the ~1 MB JSON document of `bench_parse` (the seeds in an array, repeated).
//! Prints the parse throughput of those N passes (grammar loading and a first pass left out).
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
    } else {
        builtin::samples(name).iter().map(|(_, d)| d.to_vec()).collect()
    };
    let g = Grammar::load(name.strip_suffix("-1mb").unwrap_or(name)).unwrap();
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
        "{name}: {bytes} bytes in {secs:.3} s, {:.2} MB/s",
        bytes as f64 / secs / 1e6
    );
}
