//! The subject program of `scripts/eval-repair`: reads the file named by its first argument and
//! exits 0 if serde_json accepts it as JSON, 1 otherwise (2 if the file cannot be read).

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: json_subject FILE");
        std::process::exit(2);
    };
    let data = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot read {}: {e}", path.to_string_lossy());
            std::process::exit(2);
        }
    };
    match serde_json::from_slice::<serde::de::IgnoredAny>(&data) {
        Ok(_) => {}
        Err(e) => {
            eprintln!("invalid JSON: {e}");
            std::process::exit(1);
        }
    }
}
