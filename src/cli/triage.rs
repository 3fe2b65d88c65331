//! `hellfuzz triage`: Ctrl-C handling, progress on stderr (a bar on a terminal, occasional plain
//! lines otherwise), the morning report on stdout, and the exit status (`--fail-on-new` for CI
//! gating).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

use hellfuzz::triage::report::CRASH_FILE_NAMES;
use hellfuzz::triage::{triage, CrashClass, Label, Options, Progress, SeverityClass};
use indicatif::{ProgressBar, ProgressStyle};

/// Which new groups fail a CI run (`--fail-on-new[=SEVERITY,…]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Any new group.
    Any,
    /// A new group of one of these severities.
    Severities(Vec<SeverityClass>),
}

impl FailOn {
    /// `any` (plain `--fail-on-new`), or severity names separated by commas.
    pub fn parse(text: &str) -> Result<FailOn, String> {
        if text == "any" {
            return Ok(FailOn::Any);
        }
        let classes = text
            .split(',')
            .map(|name| name.parse::<SeverityClass>().map_err(|e| format!("--fail-on-new: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FailOn::Severities(classes))
    }

    fn fails(&self, t: &hellfuzz::triage::Triage) -> bool {
        let new = t.groups.iter().filter(|g| g.label == Label::New);
        match self {
            FailOn::Any => t.counts.new > 0,
            FailOn::Severities(classes) => new.into_iter().any(|g| classes.contains(&g.severity.class)),
        }
    }
}

/// `hellfuzz triage`. Exit status: 0; 1 with `fail_on_new` when a group is new (of one of its
/// severities); 130 when interrupted (the partial report is written). Folders without crash
/// files are warned about on stderr, and are no error: a night without crashes is good news.
pub fn triage_cmd(
    dirs: &[std::path::PathBuf],
    mut options: Options,
    fail_on_new: Option<FailOn>,
) -> Result<ExitCode, String> {
    // Ctrl-C: stop starting runs, kill the running ones, and write what is known.
    let cancel = super::common::cancel_on_ctrl_c();
    options.cancel = Some(cancel.clone());
    let mut display = Display::new(std::io::stderr().is_terminal());
    let out = options.out.clone();
    let result = triage(dirs, &options, SystemTime::now(), &mut |p| display.show(p));
    display.finish();
    let t = result?;
    out!("{}", hellfuzz::triage::report::markdown(&t));
    if !t.empty_roots.is_empty() {
        let folders: Vec<String> = t.empty_roots.iter().map(|r| r.display().to_string()).collect();
        eprintln!(
            "warning: no crash files found under {}: is the folder right? ({CRASH_FILE_NAMES})",
            folders.join(", ")
        );
    }
    eprintln!(
        "reports written to {}/report.md, report.json and report.sarif; groups in {}/groups",
        out.display(),
        out.display()
    );
    Ok(if t.interrupted || cancel.load(Ordering::Relaxed) {
        eprintln!("interrupted: the report is partial");
        ExitCode::from(130)
    } else if fail_on_new.as_ref().is_some_and(|f| f.fails(&t)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Plain progress lines (stderr not a terminal: a CI log, a file) come at most this often, besides
/// one when the files are found, one at the end of the reruns and one per group minimized.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// Renders the library's progress events: a bar (reruns) then a spinner (minimization) on a
/// terminal; otherwise a line now and then, so that a log shows a long run is alive and where.
struct Display {
    /// `None` when stderr is not a terminal.
    bar: Option<ProgressBar>,
    /// When the last plain line was written.
    last_line: Instant,
    started: Instant,
    minimizing: bool,
}

impl Display {
    fn new(terminal: bool) -> Display {
        let bar = terminal.then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} files rerun, {msg} ({elapsed})")
                    .expect("valid template"),
            );
            bar
        });
        Display {
            bar,
            last_line: Instant::now(),
            started: Instant::now(),
            minimizing: false,
        }
    }

    /// A plain line if `due` (always for milestones, else at most every [`PLAIN_EVERY`]).
    fn line(&mut self, due: bool, text: std::fmt::Arguments<'_>) {
        if self.bar.is_none() && (due || self.last_line.elapsed() >= PLAIN_EVERY) {
            eprintln!("triage: {text}");
            self.last_line = Instant::now();
        }
    }

    fn show(&mut self, p: Progress<'_>) {
        match p {
            Progress::WaitingForLock { lock } => {
                let text = format!(
                    "waiting for another triage run to finish ({} is locked)",
                    lock.display()
                );
                match &self.bar {
                    Some(bar) => bar.suspend(|| eprintln!("{text}")),
                    None => eprintln!("{text}"),
                }
            }
            Progress::Found { files } => {
                if let Some(bar) = &self.bar {
                    bar.set_length(files as u64);
                }
                // None found: the warning after the report says so.
                self.line(files > 0, format_args!("{files} crash files found, rerunning them"));
            }
            Progress::Rerun { done, total, groups } => {
                if let Some(bar) = &self.bar {
                    bar.set_position(done as u64);
                    bar.set_message(format!("{groups} groups"));
                }
                let elapsed = self.started.elapsed().as_secs_f64();
                self.line(
                    done == total,
                    format_args!("rerun {done} of {total} files, {groups} groups so far ({elapsed:.0} s)"),
                );
            }
            Progress::Minimizing {
                index,
                total,
                id,
                class,
                size,
            } => {
                let message = format!("now {} {id} ({size} bytes)", class.name());
                match self.bar.take() {
                    // A bar of its own for the groups: restyling the rerun bar drew it once with
                    // the old counts in the new style.
                    Some(reruns) if !self.minimizing => {
                        reruns.finish_and_clear();
                        let bar = ProgressBar::new(total as u64)
                            .with_style(
                                ProgressStyle::with_template("{spinner} {pos}/{len} groups minimized; {msg}")
                                    .expect("valid template"),
                            )
                            .with_position(index as u64)
                            .with_message(message);
                        // The spinner moves even while a run hangs.
                        bar.enable_steady_tick(Duration::from_millis(100));
                        self.bar = Some(bar);
                    }
                    Some(bar) => {
                        bar.set_position(index as u64);
                        bar.set_message(message);
                        self.bar = Some(bar);
                    }
                    None => {}
                }
                self.minimizing = true;
            }
            Progress::MinimizeStep {
                index,
                total,
                id,
                class,
                elapsed,
                tests,
                best,
            } => {
                let elapsed = elapsed.as_secs_f64();
                if let Some(bar) = &self.bar {
                    bar.set_message(format!(
                        "now {} {id}: {elapsed:.0} s, {tests} candidates, {best} bytes",
                        class.name()
                    ));
                }
                self.line(
                    false,
                    format_args!(
                        "minimizing group {} of {total} ({}): {elapsed:.0} s, {tests} candidates, {best} bytes so far",
                        index + 1,
                        what(class, id)
                    ),
                );
            }
            Progress::MinimizeDone {
                index,
                total,
                id,
                class,
                elapsed,
                minimized,
                not_minimized,
            } => {
                if let Some(bar) = &self.bar {
                    bar.set_position(index as u64 + 1);
                }
                let outcome = match (minimized, not_minimized) {
                    (Some(size), _) => format!("minimized to {size} bytes"),
                    (None, Some(why)) => format!("not minimized ({why})"),
                    (None, None) => "not minimized".to_string(),
                };
                // A line per group minimized; groups skipped in no time (minimization off, too
                // large, interrupted) are no news, and may be hundreds.
                self.line(
                    minimized.is_some() || elapsed >= Duration::from_secs(1),
                    format_args!(
                        "group {} of {total} ({}): {outcome} in {:.1} s",
                        index + 1,
                        what(class, id),
                        elapsed.as_secs_f64()
                    ),
                );
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A group for a progress line: its kind and id.
fn what(class: CrashClass, id: &str) -> String {
    format!("{} {id}", class.name())
}
