//! Long runs of a repeated unit (`[[[[…`, `((((…`, `{"a":{"a":…`), shortened by halves.
//!
//! Fuzzer-found stack overflows are deep nesting: 100,000 brackets where 5,000 still crash.
//! Deleting them by ddmin converges on that count one granularity at a time, building a
//! candidate of the whole input for each of thousands of complements; a binary search on the
//! run's length finds it in about 17 runs. Used before the generic tree is built.

use super::tester::Tester;
use crate::oracle::Outcome;

/// Runs shorter than this many repetitions are left to the tree reduction.
const MIN_REPEATS: usize = 64;

/// The longest repeated unit looked for, in bytes.
const MAX_PERIOD: usize = 8;

/// At most this many runs are shortened, longest first.
const MAX_RUNS: usize = 16;

/// A run: `repeats` copies of `input[start..start + period]` from `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    start: usize,
    period: usize,
    repeats: usize,
}

/// The maximal runs of at least [`MIN_REPEATS`] copies of a unit of up to [`MAX_PERIOD`] bytes,
/// not overlapping, longest (in bytes) first. The shortest period wins where several fit
/// (`[[[[` is `[` repeated, not `[[`).
fn find_runs(input: &[u8]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let mut best: Option<Run> = None;
        for period in 1..=MAX_PERIOD.min(input.len() - i) {
            // Count whole copies of input[i..i + period] from i.
            let mut end = i + period;
            while end + period <= input.len() && input[end..end + period] == input[i..i + period] {
                end += period;
            }
            let repeats = (end - i) / period;
            if repeats >= MIN_REPEATS && best.is_none_or(|b| repeats * period > b.repeats * b.period) {
                best = Some(Run {
                    start: i,
                    period,
                    repeats,
                });
            }
        }
        match best {
            Some(run) => {
                runs.push(run);
                i = run.start + run.period * run.repeats;
            }
            None => i += 1,
        }
    }
    runs.sort_by_key(|r| std::cmp::Reverse(r.period * r.repeats));
    runs.truncate(MAX_RUNS);
    runs
}

/// `input` with `run` cut to `keep` copies.
fn with_repeats(input: &[u8], run: Run, keep: usize) -> Vec<u8> {
    let end = run.start + run.period * run.repeats;
    let mut out = Vec::with_capacity(input.len() - run.period * (run.repeats - keep));
    out.extend_from_slice(&input[..run.start + run.period * keep]);
    out.extend_from_slice(&input[end..]);
    out
}

/// Shortens each long run of `input` (which fails) to the fewest copies that still fail, found
/// by binary search as if failing were monotone in the count (nesting depth is); only failing
/// candidates are kept, so a non-monotone oracle costs size, never correctness.
pub fn shorten_runs(input: &[u8], tester: &Tester<'_>) -> Vec<u8> {
    let mut current = input.to_vec();
    // Runs that no cut could shorten, as found (skipped while the input has not changed).
    let mut uncut: Vec<Run> = Vec::new();
    for _ in 0..MAX_RUNS {
        if tester.exhausted() {
            break;
        }
        // Found again after each cut: offsets move, and a cut can join two runs.
        let Some(run) = find_runs(&current).into_iter().find(|r| !uncut.contains(r)) else {
            break;
        };
        // Fewest copies known to fail: all of them; `lo` copies are not known to.
        let (mut lo, mut hi) = (0usize, run.repeats);
        while lo < hi && !tester.exhausted() {
            let mid = lo + (hi - lo) / 2;
            if tester.test(&with_repeats(&current, run, mid)) == Outcome::Fail {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if hi == run.repeats {
            uncut.push(run);
            continue;
        }
        uncut.clear();
        current = with_repeats(&current, run, hi);
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::Budget;

    #[test]
    fn runs_are_maximal_with_the_shortest_period_and_longest_first() {
        let input = [b"x".repeat(3), b"[".repeat(100), b"ab".repeat(70), b"]".repeat(100)].concat();
        let runs = find_runs(&input);
        assert_eq!(
            runs,
            vec![
                Run {
                    start: 103,
                    period: 2,
                    repeats: 70
                },
                Run {
                    start: 3,
                    period: 1,
                    repeats: 100
                },
                Run {
                    start: 243,
                    period: 1,
                    repeats: 100
                },
            ]
        );
        assert!(find_runs(&b"[".repeat(63)).is_empty());
    }

    #[test]
    fn deep_nesting_is_cut_to_the_depth_that_still_fails_in_a_few_runs() {
        // Fails when brackets nest at least 300 deep.
        let oracle = |s: &[u8]| {
            let (mut d, mut max) = (0i64, 0i64);
            for &b in s {
                d += match b {
                    b'[' => 1,
                    b']' => -1,
                    _ => 0,
                };
                max = max.max(d);
            }
            if max >= 300 {
                Outcome::Fail
            } else {
                Outcome::Pass
            }
        };
        let tester = Tester::new(&oracle, Budget::default(), 1);
        let input = [b"[".repeat(100_000), b"]".repeat(100_000)].concat();
        let out = shorten_runs(&input, &tester);
        assert_eq!(out, b"[".repeat(300));
        // About log2(100,000) = 17 per run, and 9 to find the 300 left cannot be cut.
        assert!(tester.tests() <= 50, "{} tests", tester.tests());
    }
}
