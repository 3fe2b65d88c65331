fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("cannot read input file");
        eprintln!("running {}", path);
        bug_serde_json_wasm_nesting_overflow::run(&data);
    }
}
