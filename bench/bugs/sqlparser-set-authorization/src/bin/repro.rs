fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("cannot read input file");
        eprintln!("running {}", path);
        bug_sqlparser_set_authorization::run(&data);
    }
}
