//! `hellfuzz triage`: Ctrl-C handling, progress on stderr (a bar on a terminal, occasional plain
//! lines otherwise), the morning report on stdout, and the exit status (`--fail-on-new` for CI
//! gating).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

use hellfuzz::triage::report::CRASH_FILE_NAMES;
use hellfuzz::triage::{triage, CrashClass, Label, Progress, SeverityClass, TriageOptions};
use indicatif::{ProgressBar, ProgressStyle};

use super::args::{at_least_one, positive_seconds, stack_distance};
use super::common::load_grammar;

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

/// Triage crash folders: rerun every crash file (libFuzzer crash-*/oom-*/timeout-*/…, AFL
/// crashes/id:*, hangs/id:*, at any depth), group by signature, minimize one file per group,
/// and report NEW / KNOWN / FIXED groups (report.md, report.json, report.sarif, history.json).
#[derive(clap::Args)]
pub struct TriageArgs {
    /// Folders to search (at any depth) or crash files; never modified.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// The harness binary: run as `HARNESS FILE` on each crash file.
    #[arg(long)]
    pub harness: PathBuf,
    /// A built-in grammar name or a grammar file: minimize with GTR* (default: ddmin).
    #[arg(long, short)]
    pub grammar: Option<String>,
    /// Files rerun at once (and candidates tested at once while minimizing).
    #[arg(short = 'j', long, default_value_t = 1, value_parser = at_least_one, allow_negative_numbers = true)]
    pub jobs: usize,
    /// Where reports, history and group folders go.
    #[arg(long, short, default_value = "triage")]
    pub out: PathBuf,
    /// Seconds before a run is killed and counted as a timeout.
    #[arg(long, default_value = "10", value_parser = positive_seconds, allow_negative_numbers = true)]
    pub timeout: Duration,
    /// Extra runs per file to tell flaky files from reproducible ones.
    #[arg(long, default_value_t = 1)]
    pub reruns: u32,
    /// Do not minimize (only rerun, group and report).
    #[arg(long)]
    pub no_minimize: bool,
    /// Seconds allowed for minimizing one group.
    #[arg(long, default_value = "120", value_parser = positive_seconds, allow_negative_numbers = true)]
    pub minimize_time: Duration,
    /// Exit with status 1 when a group is new (for CI gating); with `=SEVERITY[,SEVERITY…]`
    /// only when a new group has one of these severities: exploitable, probably-exploitable,
    /// not-exploitable, stack-overflow, out-of-memory, timeout.
    #[arg(long, value_name = "SEVERITY", num_args = 0..=1, require_equals = true, default_missing_value = "any")]
    pub fail_on_new: Option<String>,
    /// Rerun every crash file that prints no stack for its frames (with RUST_BACKTRACE=1, or
    /// under gdb), instead of a few per crash site: slower, and no group can hide behind
    /// another that crashes at the same place with the same message.
    #[arg(long)]
    pub trace_all: bool,
    /// Join groups whose stacks are nearly the same: CASR's stack distance (0: the same stack,
    /// 1: nothing in common) below THRESHOLD, complete linkage. Plain `--join-stacks` takes
    /// CASR's 0.3.
    #[arg(long, value_name = "THRESHOLD", num_args = 0..=1, require_equals = true,
          default_missing_value = "0.3", value_parser = stack_distance)]
    pub join_stacks: Option<f64>,
}

impl TriageArgs {
    /// Runs `hellfuzz triage`. Exit status: 0; 1 with `--fail-on-new` when a group is new (of one
    /// of its severities); 130 when interrupted (the partial report is written). Folders without
    /// crash files are warned about on stderr, and are no error: a night without crashes is good
    /// news.
    pub fn run(self) -> Result<ExitCode, String> {
        let TriageArgs {
            dirs,
            harness,
            grammar,
            jobs,
            out,
            timeout,
            reruns,
            no_minimize,
            minimize_time,
            fail_on_new,
            trace_all,
            join_stacks,
        } = self;
        let grammar = grammar.as_deref().map(load_grammar).transpose()?;
        let fail_on_new = fail_on_new.as_deref().map(FailOn::parse).transpose()?;
        let mut options = TriageOptions::new(harness);
        options.grammar = grammar;
        options.jobs = jobs;
        options.out = out;
        options.timeout = timeout;
        options.reruns = reruns;
        options.minimize = !no_minimize;
        options.minimize_time = Some(minimize_time);
        options.trace_all = trace_all;
        options.join_stacks = join_stacks;
        // Ctrl-C: stop starting runs, kill the running ones, and write what is known.
        let cancel = super::common::cancel_on_ctrl_c();
        options.cancel = Some(cancel.clone());
        let mut display = Display::new(std::io::stderr().is_terminal());
        let out = options.out.clone();
        let result = triage(&dirs, &options, SystemTime::now(), &mut |p| display.show(p));
        display.finish();
        let t = result.map_err(|e| e.to_string())?;
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
