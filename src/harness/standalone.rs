//! The plain runtime (no fuzzer feature): the harness binary runs each file named on its
//! command line once (standard input without arguments), like a libFuzzer binary given file paths, and honours reduce mode.
//!
//! A panic is printed as usual and the process aborts (as under libFuzzer), so subprocess
//! oracles and triage see the same crash either way. Useful to reproduce and in tests.

use super::target::Target;

/// The harness's `main` without a fuzzer.
pub fn main(target: &Target, run: fn(&[u8])) {
    super::reduce_mode::run_if_requested(target, run);
    let mut status = 0;
    let paths: Vec<_> = std::env::args_os().skip(1).collect();
    if paths.is_empty() {
        let mut data = Vec::new();
        if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut data) {
            eprintln!("cannot read standard input: {e}");
            std::process::exit(2);
        }
        if crate::oracle::catch_panic_reported(|| run(&data)).is_err() {
            std::process::abort();
        }
    }
    for path in paths {
        match std::fs::read(&path) {
            Ok(data) => {
                eprintln!("Running: {}", path.to_string_lossy());
                if crate::oracle::catch_panic_reported(|| run(&data)).is_err() {
                    std::process::abort();
                }
            }
            Err(e) => {
                eprintln!("cannot read {}: {e}", path.to_string_lossy());
                status = 2;
            }
        }
    }
    std::process::exit(status);
}
