//! Running candidates through the oracle for a reducer: budget, statistics, parallel batches.
//!
//! [`Tester`] wraps an [`Oracle`]; once the budget (oracle calls or time) is spent every further
//! candidate counts as not interesting, so reducers wind down with the best input found so far.
//! [`Tester::test_batch`] tests candidates on `jobs` threads of the crate's worker pool; results
//! come back in order.
//! [`confirm`] re-runs a final result on the oracle itself, so that a flaky oracle shows.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::oracle::{Oracle, Outcome};

/// How many times [`confirm`] re-runs a result by default. One run catches an oracle that
/// rejects one run in three only a third of the time; three catch it 70% of the time, for the
/// price of three runs at the end of a search that made hundreds.
pub const CONFIRM_RUNS: u32 = 3;

/// What [`confirm`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Confirmation {
    /// Every re-run gave the expected outcome.
    pub held: bool,
    /// Runs made (fewer than asked when one did not hold: the answer is known then).
    pub runs: u64,
}

/// Re-runs `input` on `oracle` up to `runs` times and says whether every run gave `expected`
/// (Fail for a reduced crash, Pass for a repaired input). Pass the oracle itself, not a
/// [`Cached`](crate::oracle::Cached) one: a cache would repeat the answer the search relied on,
/// and a flaky oracle must get the chance to answer differently. Not counted against a
/// [`Budget`]: a result that is kept deserves its check even when the search ran out of time.
pub fn confirm(oracle: &dyn Oracle, input: &[u8], expected: Outcome, runs: u32) -> Confirmation {
    for run in 1..=u64::from(runs) {
        if oracle.test(input) != expected {
            return Confirmation { held: false, runs: run };
        }
    }
    Confirmation {
        held: true,
        runs: u64::from(runs),
    }
}

/// Limits on a reduction. `None` means unlimited.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Budget {
    /// At most this many candidates are tested.
    pub max_tests: Option<u64>,
    /// Stop testing after this long.
    pub max_time: Option<Duration>,
    /// Stop testing once this flag is set (for example by Ctrl-C): the reduction then ends
    /// with the best input found so far.
    pub cancel: Option<std::sync::Arc<AtomicBool>>,
}

/// Tests candidates against an oracle within a budget.
pub struct Tester<'o> {
    oracle: &'o dyn Oracle,
    budget: Budget,
    jobs: usize,
    started: Instant,
    tests: AtomicU64,
    exhausted: AtomicBool,
    /// The size of the smallest failing candidate seen (the reduction's best so far).
    best: AtomicUsize,
    progress: Option<&'o (dyn Fn(u64, usize) + Sync)>,
}

impl<'o> Tester<'o> {
    /// A tester running up to `jobs` candidates at once (1: sequentially).
    pub fn new(oracle: &'o dyn Oracle, budget: Budget, jobs: usize) -> Tester<'o> {
        Tester {
            oracle,
            budget,
            jobs: jobs.max(1),
            started: Instant::now(),
            tests: AtomicU64::new(0),
            exhausted: AtomicBool::new(false),
            best: AtomicUsize::new(usize::MAX),
            progress: None,
        }
    }

    /// Calls `progress` with the number of tests so far and the smallest failing size after
    /// every test.
    pub fn with_progress(mut self, progress: &'o (dyn Fn(u64, usize) + Sync)) -> Tester<'o> {
        self.progress = Some(progress);
        self
    }

    /// Whether the budget ran out (the result is then the best found, not necessarily minimal).
    pub fn exhausted(&self) -> bool {
        self.exhausted.load(Ordering::Relaxed)
    }

    /// Candidates tested so far.
    pub fn tests(&self) -> u64 {
        self.tests.load(Ordering::Relaxed)
    }

    /// Whether the time is up or the reduction was cancelled (also marks the budget spent): long
    /// work between tests (parsing a large input again and again) checks it to stop in time.
    pub fn stopped(&self) -> bool {
        let over_time = self.budget.max_time.is_some_and(|t| self.started.elapsed() >= t);
        let cancelled = self.budget.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        if over_time || cancelled {
            self.exhausted.store(true, Ordering::Relaxed);
        }
        over_time || cancelled
    }

    /// Tests one candidate (Pass without running the oracle once the budget is spent).
    pub fn test(&self, input: &[u8]) -> Outcome {
        let over_calls = self.budget.max_tests.is_some_and(|m| self.tests() >= m);
        if over_calls || self.stopped() {
            self.exhausted.store(true, Ordering::Relaxed);
            return Outcome::Pass;
        }
        let n = self.tests.fetch_add(1, Ordering::Relaxed) + 1;
        let outcome = self.oracle.test(input);
        if outcome == Outcome::Fail {
            self.best.fetch_min(input.len(), Ordering::Relaxed);
        }
        if let Some(p) = self.progress {
            p(n, self.best.load(Ordering::Relaxed));
        }
        outcome
    }

    /// Tests several candidates, in parallel when `jobs > 1`; results are in input order and
    /// equal to testing them one by one.
    pub fn test_batch(&self, inputs: &[Vec<u8>]) -> Vec<Outcome> {
        crate::pool::map(inputs, self.jobs, |_, input| self.test(input))
    }

    /// Like [`Tester::test_batch`] for candidates that may be invalid (`None`: Pass, untested).
    pub fn test_options(&self, inputs: &[Option<Vec<u8>>]) -> Vec<Outcome> {
        let valid: Vec<Vec<u8>> = inputs.iter().flatten().cloned().collect();
        let mut outcomes = self.test_batch(&valid).into_iter();
        inputs
            .iter()
            .map(|i| {
                if i.is_some() {
                    outcomes.next().expect("one outcome per valid input")
                } else {
                    Outcome::Pass
                }
            })
            .collect()
    }

    /// How many candidates to test at once.
    pub fn jobs(&self) -> usize {
        self.jobs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confirm_stops_at_the_first_run_that_does_not_hold() {
        let runs = AtomicU64::new(0);
        // Passes twice, then fails: the third re-run shows the flakiness.
        let flaky = |_: &[u8]| {
            if runs.fetch_add(1, Ordering::Relaxed) < 2 {
                Outcome::Pass
            } else {
                Outcome::Fail
            }
        };
        assert_eq!(
            confirm(&flaky, b"x", Outcome::Pass, 5),
            Confirmation { held: false, runs: 3 }
        );
        assert_eq!(
            confirm(&|_: &[u8]| Outcome::Fail, b"x", Outcome::Fail, CONFIRM_RUNS),
            Confirmation {
                held: true,
                runs: u64::from(CONFIRM_RUNS)
            }
        );
    }
}
