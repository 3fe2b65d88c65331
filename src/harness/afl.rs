//! The AFL runtime (feature `afl`): what `fuzz_target!` expands to under `cargo afl build`.
//!
//! AFL's per-execution timeout (calibrated to a few milliseconds) leaves no room to reduce inside
//! an execution, so a panic just aborts, as `afl::fuzz!` does: from the panic hook, so that the
//! stack at death (in a debugger, under a sanitizer) is the panic's. Crashes are minimized after
//! the run by the same binary's reduce mode (`hellfuzz reduce --harness`, `hellfuzz triage`).

use super::corpus::RunFn;
use super::target::Target;

/// The harness's `main` under AFL: the target's `init`, then reduce mode when asked, else AFL's
/// persistent loop. AFL has no corpus to keep an input out of: `Corpus::Reject` is a plain run.
pub fn main(target: &Target, run: RunFn) {
    target.run_init();
    super::reduce_mode::run_if_requested(target, run);
    afl::fuzz(false, |data: &[u8]| {
        if crate::oracle::catch_panic_fatal(|| run(data), &|_| {}).is_err() {
            std::process::abort();
        }
    });
}
