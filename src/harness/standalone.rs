//! The plain runtime (no fuzzer feature): the harness binary runs each file named on its
//! command line once (standard input without arguments), like a libFuzzer binary given file paths, and honours reduce mode.
//!
//! A panic is printed as usual and the process aborts (as under libFuzzer) from the panic hook,
//! with the panic's frames on the stack, so subprocess oracles, debuggers and triage see the same
//! crash either way. Useful to reproduce and in tests.

use super::corpus::RunFn;
use super::target::Target;

/// The harness's `main` without a fuzzer: the target's `init` once, then reduce mode or the files.
/// `Corpus::Reject` means nothing here (no corpus): a rejected input is a run that passed.
pub fn main(target: &Target, run: RunFn) {
    target.run_init();
    super::reduce_mode::run_if_requested(target, run);
    let mut status = 0;
    let paths: Vec<_> = std::env::args_os().skip(1).collect();
    if paths.is_empty() {
        let mut data = Vec::new();
        if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut data) {
            eprintln!("cannot read standard input: {e}");
            std::process::exit(2);
        }
        run_or_abort(run, &data);
    }
    for path in paths {
        match std::fs::read(&path) {
            Ok(data) => {
                eprintln!("Running: {}", path.to_string_lossy());
                run_or_abort(run, &data);
            }
            Err(e) => {
                eprintln!("cannot read {}: {e}", path.to_string_lossy());
                status = 2;
            }
        }
    }
    std::process::exit(status);
}

/// Runs one input; a panic aborts the process from the panic hook (see
/// [`catch_panic_fatal`](crate::oracle::catch_panic_fatal)), or after unwinding if the hook
/// was replaced.
fn run_or_abort(run: RunFn, data: &[u8]) {
    if crate::oracle::catch_panic_fatal(|| run(data), &|_, _| crate::oracle::Fate::Abort).is_err() {
        std::process::abort();
    }
}
