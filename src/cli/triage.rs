//! `hellfuzz triage`: Ctrl-C handling, the progress bar, the morning report on stdout, and the
//! exit status (`--fail-on-new` for CI gating).

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use hellfuzz::triage::{triage, Options, Progress};
use indicatif::{ProgressBar, ProgressStyle};

/// `hellfuzz triage`. Exit status: 0; 1 with `fail_on_new` when a group is new; 130 when
/// interrupted (the partial report is written).
pub fn triage_cmd(dirs: &[std::path::PathBuf], mut options: Options, fail_on_new: bool) -> Result<ExitCode, String> {
    // Ctrl-C: stop starting runs, kill the running ones, and write what is known.
    let cancel = super::common::cancel_on_ctrl_c();
    options.cancel = Some(cancel.clone());
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} files, {msg} ({elapsed})").expect("valid template"),
    );
    let mut on_progress = |p: Progress<'_>| match p {
        Progress::WaitingForLock { lock } => {
            bar.suspend(|| {
                eprintln!(
                    "waiting for another triage run to finish ({} is locked)",
                    lock.display()
                )
            });
        }
        Progress::Found { files } => bar.set_length(files as u64),
        Progress::Rerun { done, groups } => {
            bar.set_position(done as u64);
            bar.set_message(format!("{groups} groups"));
        }
        Progress::Minimizing { index, total, id } => {
            bar.set_message(format!("minimizing group {} of {total} ({id})", index + 1));
        }
    };
    let out = options.out.clone();
    let result = triage(dirs, &options, SystemTime::now(), &mut on_progress);
    bar.finish_and_clear();
    let t = result?;
    out!("{}", hellfuzz::triage::report::markdown(&t));
    eprintln!(
        "reports written to {}/report.md, report.json and report.sarif; groups in {}/groups",
        out.display(),
        out.display()
    );
    Ok(if t.interrupted || cancel.load(Ordering::Relaxed) {
        eprintln!("interrupted: the report is partial");
        ExitCode::from(130)
    } else if fail_on_new && t.counts.new > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
