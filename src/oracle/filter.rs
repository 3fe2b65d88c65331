//! Keeping only the inputs a command accepts (`hellfuzz gen --keep-if 'CMD @@'`): a filter for
//! semantic constraints no grammar captures, such as "`node --check` accepts it".
//!
//! [`keep_if`] draws candidates from a source in order, runs a [`Subprocess`] on each (exit status 0
//! keeps it; any other status, a signal or a timeout rejects it) on `jobs` worker threads, and
//! hands the kept ones to a sink **in the order they were drawn**. Candidates are checked ahead
//! in parallel but judged one after the other, so for a deterministic source (a seeded generator)
//! the kept inputs, the number tried and every figure but [`KeepIfStats::runs`] are the same for
//! every `jobs`. A candidate equal to one drawn before gets that one's verdict without a run.
//!
//! It stops when `count` inputs are kept, and fails with [`KeepIfError::TooFewKept`] as soon as
//! `count` is out of reach even if every remaining try were kept (`max_tries` bounds the
//! candidates drawn). Kept inputs already handed to the sink stay there in every case.
//!
//! ```
//! use hellfuzz::oracle::{keep_if, Subprocess, KeepIfOptions};
//! // Keep the inputs that contain a `1` (the input reaches `grep` on stdin: no `@@`).
//! let command = Subprocess::new(["grep", "-q", "1"]).unwrap();
//! let mut candidates = (0..).map(|i: u32| i.to_string().into_bytes());
//! let mut kept = Vec::new();
//! let mut options = KeepIfOptions::new(3);
//! options.jobs = 2;
//! let stats = keep_if(
//!     &command,
//!     &options,
//!     || candidates.next().unwrap(),
//!     |input| {
//!         kept.push(input.to_vec());
//!         Ok(())
//!     },
//!     |_| {},
//! )
//! .unwrap();
//! assert_eq!(kept, [b"1".to_vec(), b"10".to_vec(), b"11".to_vec()]);
//! assert_eq!((stats.kept, stats.tried), (3, 12));
//! ```

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::OracleError;
use super::subprocess::{last_lines, Exit, Subprocess};

/// `max_tries` per wanted input unless set otherwise: [`KeepIfOptions::new`] allows an
/// acceptance rate down to 5%.
pub const DEFAULT_TRIES_PER_INPUT: usize = 20;

/// How many lines of a rejected run's stderr the error message keeps.
const STDERR_LINES: usize = 5;

/// How often the wait for results looks at the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(100);

/// What [`keep_if`] is asked for.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct KeepIfOptions {
    /// Inputs to keep.
    pub count: usize,
    /// Candidates to draw at most (kept or not).
    pub max_tries: usize,
    /// Commands run at once (0 counts as 1). The kept inputs do not depend on it.
    pub jobs: usize,
    /// Set (e.g. by a Ctrl-C handler) to stop: no further candidate is judged, and the result
    /// says [`KeepIfStats::interrupted`].
    pub cancel: Option<Arc<AtomicBool>>,
}

impl KeepIfOptions {
    /// Keep `count` inputs of at most `count` × [`DEFAULT_TRIES_PER_INPUT`] tried, one command at
    /// a time.
    pub fn new(count: usize) -> KeepIfOptions {
        KeepIfOptions {
            count,
            max_tries: count.saturating_mul(DEFAULT_TRIES_PER_INPUT),
            jobs: 1,
            cancel: None,
        }
    }
}

/// What [`keep_if`] did. Everything but `runs` and `time` is the same for every `jobs`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeepIfStats {
    /// Candidates judged, in the order drawn (kept or rejected).
    pub tried: usize,
    /// Candidates the command accepted, handed to the sink.
    pub kept: usize,
    /// Rejected candidates whose run timed out (part of `tried - kept`).
    pub timed_out: usize,
    /// Candidates equal to one drawn before: judged like it, without a run.
    pub repeats: usize,
    /// Runs of the command, including candidates checked ahead in parallel that were not needed.
    pub runs: usize,
    /// Stopped by the cancel flag before `count` inputs were kept.
    pub interrupted: bool,
    /// Wall-clock time.
    pub time: Duration,
}

impl KeepIfStats {
    /// Candidates the command rejected.
    pub fn rejected(&self) -> usize {
        self.tried - self.kept
    }

    /// Kept / tried in percent (0 when nothing was tried).
    pub fn acceptance_percent(&self) -> f64 {
        if self.tried == 0 {
            0.0
        } else {
            100.0 * self.kept as f64 / self.tried as f64
        }
    }
}

/// How the first rejected candidate was rejected, for the message of [`KeepIfError::TooFewKept`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rejection {
    /// How its run ended (never [`Exit::Code`]`(0)` nor [`Exit::NotRun`]).
    pub exit: Exit,
    /// The last lines of its stderr (may be empty).
    pub stderr_tail: String,
}

/// The figures of [`KeepIfError::TooFewKept`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shortfall {
    /// Inputs wanted.
    pub count: usize,
    /// Candidates allowed.
    pub max_tries: usize,
    /// What happened up to the stop (`stats.kept` inputs were handed to the sink).
    pub stats: KeepIfStats,
    /// How the first rejected candidate was rejected.
    pub first_rejection: Option<Rejection>,
}

/// Why [`keep_if`] stopped without keeping `count` inputs.
#[derive(Debug)]
#[non_exhaustive]
pub enum KeepIfError {
    /// `max_tries` is below `count`: nothing was tried.
    MaxTriesBelowCount {
        /// Inputs wanted.
        count: usize,
        /// Candidates allowed.
        max_tries: usize,
    },
    /// The command could not run on a candidate at all (it does not start, the temporary file
    /// cannot be written): counting that as a rejection would blame the inputs.
    Command(OracleError),
    /// So few candidates were kept that `count` cannot be reached within `max_tries`.
    TooFewKept(Box<Shortfall>),
    /// The sink could not take a kept input.
    Write(std::io::Error),
}

impl fmt::Display for KeepIfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeepIfError::MaxTriesBelowCount { count, max_tries } => write!(
                f,
                "--max-tries {max_tries} is below --count {count}: at most {max_tries} inputs could be \
                 kept; raise --max-tries (default: {DEFAULT_TRIES_PER_INPUT} × --count)"
            ),
            KeepIfError::Command(e) => write!(f, "the --keep-if command cannot run: {e}"),
            KeepIfError::TooFewKept(shortfall) => {
                let Shortfall {
                    count,
                    max_tries,
                    stats,
                    first_rejection,
                } = shortfall.as_ref();
                write!(
                    f,
                    "the --keep-if command kept {} of {} inputs tried ({:.1}%){}: --count {count} cannot \
                     be reached within --max-tries {max_tries}; loosen the command, raise --max-tries{}, \
                     or fix the grammar so that it generates more of what the command accepts",
                    stats.kept,
                    stats.tried,
                    stats.acceptance_percent(),
                    if stats.timed_out > 0 {
                        format!(", {} timed out (raise --timeout if they need longer)", stats.timed_out)
                    } else {
                        String::new()
                    },
                    match stats.kept {
                        0 => String::new(),
                        k => format!(
                            " (at this rate about {})",
                            count.saturating_mul(stats.tried).div_ceil(k)
                        ),
                    },
                )?;
                if let Some(r) = first_rejection {
                    write!(f, "\nthe first rejected input: {}", r.exit)?;
                    if r.stderr_tail.trim().is_empty() {
                        write!(f, ", stderr empty")?;
                    } else {
                        write!(f, "; last lines of stderr:\n{}", r.stderr_tail)?;
                    }
                }
                Ok(())
            }
            KeepIfError::Write(e) => write!(f, "cannot write a kept input: {e}"),
        }
    }
}

impl std::error::Error for KeepIfError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KeepIfError::Command(e) => Some(e),
            KeepIfError::Write(e) => Some(e),
            _ => None,
        }
    }
}

/// One candidate's verdict.
enum Verdict {
    Kept,
    Rejected(Rejection),
}

/// A drawn candidate waiting to be judged in order.
struct Slot {
    input: Vec<u8>,
    key: [u8; 20],
    /// `None` while its run is in progress.
    verdict: Option<Judged>,
}

enum Judged {
    /// Back from a worker.
    Run(Result<Verdict, OracleError>),
    /// Equal to an earlier candidate: judged like it.
    Repeat,
}

/// Draws candidates from `next`, keeps those `command` accepts (exit status 0) and hands them to
/// `keep` in the order drawn, until `options.count` are kept. `progress` sees the figures after
/// every judged candidate.
///
/// Returns the figures; with [`KeepIfStats::interrupted`] when the cancel flag stopped it first.
/// Errors when the count cannot be reached within `options.max_tries` (as soon as that is
/// certain), when the command cannot run at all, and when `keep` fails. The command's own
/// classification rule is not used.
pub fn keep_if(
    command: &Subprocess,
    options: &KeepIfOptions,
    mut next: impl FnMut() -> Vec<u8>,
    mut keep: impl FnMut(&[u8]) -> std::io::Result<()>,
    mut progress: impl FnMut(&KeepIfStats),
) -> Result<KeepIfStats, KeepIfError> {
    let start = Instant::now();
    let (count, max_tries) = (options.count, options.max_tries);
    if max_tries < count {
        return Err(KeepIfError::MaxTriesBelowCount { count, max_tries });
    }
    let jobs = options.jobs.max(1);
    // Runs in flight: two per worker, so that none waits for the next candidate.
    let ahead = 2 * jobs;
    // Candidates drawn but not judged (repeats need no run but wait for their turn).
    let window = ahead + 64;
    let cancelled = || options.cancel.as_ref().is_some_and(|c| c.load(Ordering::SeqCst));

    let mut stats = KeepIfStats::default();
    let mut first_rejection: Option<Rejection> = None;
    // By content: `None` while the first candidate with it is not judged, then whether it was kept.
    let mut verdicts: HashMap<[u8; 20], Option<bool>> = HashMap::new();
    // Candidates `stats.tried ..` in the order drawn.
    let mut pending: VecDeque<Slot> = VecDeque::new();
    let (mut drawn, mut in_flight) = (0usize, 0usize);

    let (job_tx, job_rx) = crossbeam_channel::unbounded::<(usize, Vec<u8>)>();
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<(usize, Result<Verdict, OracleError>)>();
    // Set when the judging is over: the workers skip the candidates still queued.
    let done = AtomicBool::new(false);
    let runs = AtomicUsize::new(0);
    let result = std::thread::scope(|scope| {
        for _ in 0..jobs.min(max_tries.max(1)) {
            let (job_rx, result_tx, done, runs) = (job_rx.clone(), result_tx.clone(), &done, &runs);
            scope.spawn(move || {
                for (index, input) in job_rx {
                    // After an interrupt the handler has killed the running commands: start no
                    // new one (the judging stops without waiting for this verdict).
                    if done.load(Ordering::SeqCst) || cancelled() {
                        continue;
                    }
                    runs.fetch_add(1, Ordering::Relaxed);
                    let verdict = command.try_run(&input).map(|run| match run.exit {
                        Exit::Code(0) => Verdict::Kept,
                        exit => Verdict::Rejected(Rejection {
                            exit,
                            stderr_tail: last_lines(&run.stderr, STDERR_LINES),
                        }),
                    });
                    if result_tx.send((index, verdict)).is_err() {
                        break;
                    }
                }
            });
        }
        drop((job_rx, result_tx));
        let too_few = |stats: &KeepIfStats, first_rejection: &Option<Rejection>| {
            KeepIfError::TooFewKept(Box::new(Shortfall {
                count,
                max_tries,
                stats: stats.clone(),
                first_rejection: first_rejection.clone(),
            }))
        };
        let outcome = 'work: loop {
            // Judge, in the order drawn, every candidate whose verdict is known. The cancel flag
            // is read first: runs killed by an interrupt handler must not count as rejections.
            loop {
                if stats.kept >= count {
                    break 'work Ok(());
                }
                if cancelled() {
                    stats.interrupted = true;
                    break 'work Ok(());
                }
                let Some(Slot { verdict: Some(_), .. }) = pending.front() else {
                    break;
                };
                let Some(Slot {
                    input,
                    key,
                    verdict: Some(verdict),
                }) = pending.pop_front()
                else {
                    break;
                };
                let kept = match verdict {
                    // The first candidate with this content came earlier, so it is judged.
                    Judged::Repeat => {
                        stats.repeats += 1;
                        verdicts.get(&key).copied().flatten().unwrap_or(false)
                    }
                    Judged::Run(Err(e)) => break 'work Err(KeepIfError::Command(e)),
                    Judged::Run(Ok(Verdict::Kept)) => true,
                    Judged::Run(Ok(Verdict::Rejected(r))) => {
                        if r.exit == Exit::Timeout {
                            stats.timed_out += 1;
                        }
                        first_rejection.get_or_insert(r);
                        false
                    }
                };
                stats.tried += 1;
                stats.runs = runs.load(Ordering::Relaxed);
                verdicts.insert(key, Some(kept));
                if kept {
                    stats.kept += 1;
                    if let Err(e) = keep(&input) {
                        break 'work Err(KeepIfError::Write(e));
                    }
                }
                stats.time = start.elapsed();
                progress(&stats);
                if stats.kept < count && stats.kept + (max_tries - stats.tried) < count {
                    break 'work Err(too_few(&stats, &first_rejection));
                }
            }
            // Draw ahead while there is room.
            while drawn < max_tries && in_flight < ahead && pending.len() < window {
                let input = next();
                let key = crate::files::sha1(&input);
                let verdict = match verdicts.entry(key) {
                    Entry::Occupied(_) => Some(Judged::Repeat),
                    Entry::Vacant(entry) => {
                        entry.insert(None);
                        // The workers only stop once `job_tx` is dropped, so this cannot fail.
                        let _ = job_tx.send((drawn, input.clone()));
                        in_flight += 1;
                        None
                    }
                };
                pending.push_back(Slot { input, key, verdict });
                drawn += 1;
            }
            match pending.front() {
                // Nothing left to draw or judge: only once `max_tries` is spent, which the check
                // after each verdict reports first; kept for safety.
                None => break Err(too_few(&stats, &first_rejection)),
                // A repeat at the front: judged on the next turn.
                Some(Slot { verdict: Some(_), .. }) => {}
                // Wait for a verdict (any: the front's may not be the first to come back).
                Some(Slot { verdict: None, .. }) => match result_rx.recv_timeout(CANCEL_POLL) {
                    Ok((index, verdict)) => {
                        in_flight -= 1;
                        pending[index - stats.tried].verdict = Some(Judged::Run(verdict));
                    }
                    Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                    // Only after a worker panicked: leaving the scope raises that panic again.
                    Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break Ok(()),
                },
            }
        };
        // The workers finish the runs they have started (checked ahead, not needed), skip the
        // candidates still queued, and stop.
        done.store(true, Ordering::SeqCst);
        drop(job_tx);
        outcome
    });
    stats.runs = runs.load(Ordering::Relaxed);
    stats.time = start.elapsed();
    result.map(|()| stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::subprocess::tests::sh;

    /// Keeps inputs of `candidates` (cycled) with `command`; the kept inputs and the result.
    fn run(
        command: &Subprocess,
        options: &KeepIfOptions,
        candidates: &[&str],
    ) -> (Vec<String>, Result<KeepIfStats, KeepIfError>) {
        let mut source = candidates.iter().cycle().enumerate();
        let mut kept = Vec::new();
        let result = keep_if(
            command,
            options,
            || {
                let (i, c) = source.next().unwrap();
                // Distinct candidates unless the caller repeats them on purpose.
                c.replace("#", &i.to_string()).into_bytes()
            },
            |input| {
                kept.push(String::from_utf8(input.to_vec()).unwrap());
                Ok(())
            },
            |_| {},
        );
        (kept, result)
    }

    #[test]
    fn keeps_what_the_command_accepts_in_order_for_any_jobs() {
        let cmd = sh(r#"grep -q 1 "$1""#, &["@@"]);
        let candidates = ["a#", "b#", "c#"];
        let (one, stats_one) = run(
            &cmd,
            &KeepIfOptions {
                jobs: 1,
                ..KeepIfOptions::new(8)
            },
            &candidates,
        );
        let stats_one = stats_one.unwrap();
        assert_eq!(one.len(), 8);
        assert!(one.iter().all(|k| k.contains('1')), "{one:?}");
        for jobs in [2, 5] {
            let (many, stats) = run(
                &cmd,
                &KeepIfOptions {
                    jobs,
                    ..KeepIfOptions::new(8)
                },
                &candidates,
            );
            let stats = stats.unwrap();
            assert_eq!(many, one, "-j {jobs}");
            assert_eq!((stats.tried, stats.kept), (stats_one.tried, stats_one.kept));
            assert!(stats.runs >= stats.tried);
        }
        // 1, 10..19, 21, 31, ...: the eighth is "b16" (candidate 16).
        assert_eq!(stats_one.tried, 17);
    }

    #[test]
    fn stdin_without_at_at() {
        let (kept, stats) = run(&sh("grep -q x", &[]), &KeepIfOptions::new(2), &["x#", "y#"]);
        assert_eq!(kept, ["x0", "x2"]);
        assert_eq!(stats.unwrap().tried, 3);
    }

    #[test]
    fn rejecting_everything_stops_as_soon_as_the_count_is_out_of_reach() {
        let cmd = sh("echo 'SyntaxError: nope' >&2; exit 1", &[]);
        let options = KeepIfOptions {
            jobs: 2,
            ..KeepIfOptions::new(5)
        };
        assert_eq!(options.max_tries, 100);
        let (kept, result) = run(&cmd, &options, &["#"]);
        assert!(kept.is_empty());
        let err = result.unwrap_err();
        let KeepIfError::TooFewKept(shortfall) = &err else {
            panic!("{err:?}")
        };
        let stats = &shortfall.stats;
        // After 96 rejections, 4 tries remain for 5 inputs.
        assert_eq!((stats.tried, stats.kept), (96, 0));
        assert!(stats.runs <= 96 + 4, "{}", stats.runs);
        let text = err.to_string();
        assert!(text.contains("kept 0 of 96 inputs tried (0.0%)"), "{text}");
        assert!(
            text.contains("--count 5 cannot be reached within --max-tries 100"),
            "{text}"
        );
        assert!(text.contains("loosen the command, raise --max-tries"), "{text}");
        assert!(
            text.contains("exit status 1") && text.contains("SyntaxError: nope"),
            "{text}"
        );
    }

    #[test]
    fn low_acceptance_stops_with_the_rate() {
        // Keeps one input in ten: 3 of 30 cannot become 10 within 40.
        let cmd = sh(r#"grep -q 0 "$1""#, &["@@"]);
        let options = KeepIfOptions {
            max_tries: 40,
            jobs: 2,
            ..KeepIfOptions::new(10)
        };
        let candidates: Vec<String> = (0..10).map(|d| format!("#{d}")).collect();
        let candidates: Vec<&str> = candidates.iter().map(|s| s.as_str()).collect();
        let (kept, result) = run(&cmd, &options, &candidates);
        let err = result.unwrap_err();
        let KeepIfError::TooFewKept(shortfall) = &err else {
            panic!("{err:?}")
        };
        let stats = &shortfall.stats;
        assert_eq!(kept.len(), stats.kept);
        assert!(stats.kept + (40 - stats.tried) < 10);
        assert!(err.to_string().contains('%'), "{err}");
    }

    #[test]
    fn repeats_get_the_first_verdict_without_a_run() {
        let cmd = sh(r#"grep -q k "$1""#, &["@@"]);
        let (kept, stats) = run(
            &cmd,
            &KeepIfOptions {
                jobs: 3,
                ..KeepIfOptions::new(6)
            },
            &["k", "r"],
        );
        let stats = stats.unwrap();
        assert_eq!(kept, ["k"; 6]);
        assert_eq!((stats.tried, stats.runs, stats.repeats), (11, 2, 9));
    }

    #[test]
    fn timeouts_are_rejections() {
        let cmd = sh(r#"grep -q slow "$1" && sleep 30; exit 0"#, &["@@"]).timeout(Duration::from_millis(200));
        let (kept, stats) = run(
            &cmd,
            &KeepIfOptions {
                jobs: 2,
                ..KeepIfOptions::new(2)
            },
            &["slow#", "fast#"],
        );
        assert_eq!(kept, ["fast1", "fast3"]);
        let stats = stats.unwrap();
        assert_eq!((stats.tried, stats.timed_out), (4, 2));
    }

    #[test]
    fn a_program_that_cannot_start_is_an_error_not_a_rejection() {
        let cmd = Subprocess::new(["/nonexistent/hellfuzz-check", "@@"]).unwrap();
        let (_, result) = run(&cmd, &KeepIfOptions::new(3), &["#"]);
        let err = result.unwrap_err();
        assert!(
            matches!(err, KeepIfError::Command(OracleError::Spawn { .. })),
            "{err:?}"
        );
        assert!(err.to_string().contains("/nonexistent/hellfuzz-check"), "{err}");
    }

    #[test]
    fn edge_cases() {
        let cmd = sh("exit 0", &[]);
        let (kept, stats) = run(&cmd, &KeepIfOptions::new(0), &["#"]);
        assert!(kept.is_empty());
        assert_eq!(stats.unwrap().tried, 0);
        let options = KeepIfOptions {
            max_tries: 2,
            ..KeepIfOptions::new(3)
        };
        let err = run(&cmd, &options, &["#"]).1.unwrap_err();
        assert!(matches!(err, KeepIfError::MaxTriesBelowCount { .. }), "{err:?}");
        // A sink that fails stops the run with its error.
        let err = keep_if(
            &cmd,
            &KeepIfOptions::new(3),
            || b"x".to_vec(),
            |_| Err(std::io::Error::other("disk full")),
            |_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
    }

    #[test]
    fn cancel_stops_and_reports_interrupted() {
        let cancel = Arc::new(AtomicBool::new(false));
        let cmd = sh("exit 0", &[]);
        let options = KeepIfOptions {
            cancel: Some(cancel.clone()),
            jobs: 2,
            ..KeepIfOptions::new(100)
        };
        let mut kept = 0;
        let stats = keep_if(
            &cmd,
            &options,
            || b"x".to_vec(),
            |_| {
                kept += 1;
                if kept == 3 {
                    cancel.store(true, Ordering::SeqCst);
                }
                Ok(())
            },
            |_| {},
        )
        .unwrap();
        assert!(stats.interrupted);
        assert!(stats.kept >= 3 && stats.kept < 100, "{}", stats.kept);
    }
}
