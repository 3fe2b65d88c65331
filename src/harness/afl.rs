//! The AFL runtime (feature `afl`): what `fuzz_target!` expands to under `cargo afl build`.
//!
//! AFL's per-execution timeout (calibrated to a few milliseconds) leaves no room to reduce inside
//! an execution, so a panic just aborts, as `afl::fuzz!` does: from the panic hook, so that the
//! stack at death (in a debugger, under a sanitizer) is the panic's. Crashes are minimized after
//! the run by the same binary's reduce mode (`hellfuzz reduce --harness`, `hellfuzz triage`).
//!
//! Continue mode (`HELLFUZZ_CONTINUE=1`): AFL restarts the target after every crash and keeps a
//! crash only when it takes a new path, so one shallow bug reached by many paths still fills
//! `crashes/`. Here a panic whose signature the campaign's summary (`.hellfuzz/hellfuzz-crashes.json`
//! in the current folder, or `HELLFUZZ_SUMMARY`) already holds is caught and counted instead; a new one
//! is entered in the summary and aborts, and AFL saves it: one file per signature.

use super::continuing::{Campaign, ContinueSettings};
use super::corpus::RunFn;
use super::target::Target;
use crate::oracle::{catch_panic_fatal, Fate};

/// The harness's `main` under AFL: the target's `init`, then reduce mode when asked, else AFL's
/// persistent loop. AFL has no corpus to keep an input out of: `Corpus::Reject` is a plain run.
pub fn main(target: &Target, run: RunFn) {
    target.run_init();
    super::reduce_mode::run_if_requested(target, run);
    let settings = ContinueSettings::from_env(&[]);
    if !settings.enabled {
        afl::fuzz(false, |data: &[u8]| {
            if catch_panic_fatal(|| run(data), &|_, _| Fate::Abort).is_err() {
                std::process::abort();
            }
        });
        return;
    }
    let summary = Campaign::summary_path("./");
    // Minimized records are looked for where the summary is (`HELLFUZZ_SUMMARY` may put it by
    // `crashes/`, where reduce mode writes them): the folder above its `.hellfuzz/`.
    let folder = super::sidecar::owner_prefix(&summary);
    let campaign = Campaign::new(folder, summary, settings);
    afl::fuzz(false, |data: &[u8]| {
        campaign.executed();
        let on_panic =
            |signature: &crate::oracle::Signature, report: &dyn Fn()| campaign.decide(signature, report, true);
        if let Err(signature) = catch_panic_fatal(|| run(data), &on_panic) {
            // New only when the hook did not see the panic (the target replaced it): a crash.
            if campaign.caught(&signature, || (None, None)) != super::Caught::Known {
                std::process::abort();
            }
        }
    });
    campaign.finish();
}
