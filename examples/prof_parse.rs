//! Profiling aid: parses one built-in grammar's samples N times (`prof_parse NAME N`).
use hellfuzz::grammar::{builtin, Grammar};
use hellfuzz::parse::Parser;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("css", String::as_str);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let g = Grammar::load(name).unwrap();
    let p = Parser::new(&g);
    for _ in 0..n {
        for (_, d) in builtin::samples(name) {
            std::hint::black_box(p.parse(d).ok());
        }
    }
}
