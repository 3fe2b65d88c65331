//! A cache in front of any oracle: outcomes keyed by the SHA-1 of the candidate, shared by all
//! threads, with counters of real oracle calls, cache hits and the time spent in the oracle.
//!
//! Reducers often regenerate a candidate they tried before (the same subtree deleted along two
//! paths, GTR* repeating a pass); for a subprocess oracle every avoided run saves milliseconds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{Oracle, Outcome};

/// Counters of a [`Cached`] oracle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Stats {
    /// Candidates the wrapped oracle actually ran.
    pub calls: u64,
    /// Candidates answered from the cache.
    pub cache_hits: u64,
    /// Total time spent in the wrapped oracle, summed over threads (so with `-j` it can exceed
    /// the wall-clock time).
    pub time: Duration,
}

/// Wraps an oracle so that each distinct input is tested once.
///
/// Two threads asking about the same new input at the same moment may both run it (the lock is
/// not held while the oracle runs, so that threads test in parallel); both runs are counted.
pub struct Cached<O: Oracle> {
    inner: O,
    // SHA-1 rather than the input itself: candidates can be large and there can be many of them.
    outcomes: Mutex<FxHashMap<[u8; 20], Outcome>>,
    calls: AtomicU64,
    cache_hits: AtomicU64,
    nanos: AtomicU64,
}

impl<O: Oracle> Cached<O> {
    /// A cache in front of `inner`, empty.
    pub fn new(inner: O) -> Self {
        Cached {
            inner,
            outcomes: Mutex::new(FxHashMap::default()),
            calls: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
        }
    }

    /// The wrapped oracle.
    pub fn inner(&self) -> &O {
        &self.inner
    }

    /// Gives the wrapped oracle back.
    pub fn into_inner(self) -> O {
        self.inner
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        Stats {
            calls: self.calls.load(Ordering::Relaxed),
            cache_hits: self.cache_hits.load(Ordering::Relaxed),
            time: Duration::from_nanos(self.nanos.load(Ordering::Relaxed)),
        }
    }

    /// The cached outcome for `input`, if it was tested before (does not count as a hit).
    pub fn lookup(&self, input: &[u8]) -> Option<Outcome> {
        self.map().get(&key(input)).copied()
    }

    /// Records an outcome known from elsewhere (e.g. the original input, already tested during
    /// calibration), so the oracle is not asked again.
    pub fn insert(&self, input: &[u8], outcome: Outcome) {
        self.map().insert(key(input), outcome);
    }

    // A thread that panicked while holding the lock cannot have left the map half-updated
    // (inserts are single calls), so a poisoned lock is still usable.
    fn map(&self) -> std::sync::MutexGuard<'_, FxHashMap<[u8; 20], Outcome>> {
        self.outcomes.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn key(input: &[u8]) -> [u8; 20] {
    crate::files::sha1(input)
}

impl<O: Oracle> Oracle for Cached<O> {
    fn test(&self, input: &[u8]) -> Outcome {
        let key = key(input);
        if let Some(&outcome) = self.map().get(&key) {
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
            return outcome;
        }
        let start = Instant::now();
        let outcome = self.inner.test(input);
        let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.map().insert(key, outcome);
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An oracle that counts its runs: Fail iff the input contains "BUG".
    struct Counting(AtomicU64);

    impl Oracle for Counting {
        fn test(&self, input: &[u8]) -> Outcome {
            self.0.fetch_add(1, Ordering::Relaxed);
            if input.windows(3).any(|w| w == b"BUG") {
                Outcome::Fail
            } else {
                Outcome::Pass
            }
        }
    }

    #[test]
    fn second_call_is_a_hit() {
        let cached = Cached::new(Counting(AtomicU64::new(0)));
        assert_eq!(cached.test(b"a BUG here"), Outcome::Fail);
        assert_eq!(cached.test(b"a BUG here"), Outcome::Fail);
        assert_eq!(cached.test(b"fine"), Outcome::Pass);
        assert_eq!(cached.test(b"fine"), Outcome::Pass);
        assert_eq!(cached.test(b"a BUG here"), Outcome::Fail);
        let stats = cached.stats();
        assert_eq!((stats.calls, stats.cache_hits), (2, 3));
        assert_eq!(cached.inner().0.load(Ordering::Relaxed), 2);
        assert_eq!(cached.lookup(b"fine"), Some(Outcome::Pass));
        assert_eq!(cached.lookup(b"new"), None);
    }

    #[test]
    fn inserted_outcomes_are_not_run() {
        let cached = Cached::new(Counting(AtomicU64::new(0)));
        cached.insert(b"original", Outcome::Fail);
        assert_eq!(cached.test(b"original"), Outcome::Fail);
        assert_eq!(cached.stats().calls, 0);
        assert_eq!(cached.stats().cache_hits, 1);
    }

    #[test]
    fn wraps_closures_and_counts_time() {
        let cached = Cached::new(|input: &[u8]| {
            std::thread::sleep(Duration::from_millis(2));
            if input.is_empty() {
                Outcome::Unresolved
            } else {
                Outcome::Pass
            }
        });
        assert_eq!(cached.test(b""), Outcome::Unresolved);
        assert_eq!(cached.test(b""), Outcome::Unresolved);
        assert!(cached.stats().time >= Duration::from_millis(2));
        let json = serde_json::to_string(&cached.stats()).unwrap();
        assert!(
            json.contains("\"calls\":1") && json.contains("\"cache_hits\":1"),
            "{json}"
        );
    }

    #[test]
    fn shared_across_threads() {
        let cached = Cached::new(Counting(AtomicU64::new(0)));
        let inputs: Vec<Vec<u8>> = (0..50)
            .map(|i| format!("input {i} {}", if i % 3 == 0 { "BUG" } else { "" }).into_bytes())
            .collect();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..3 {
                        for (i, input) in inputs.iter().enumerate() {
                            let expected = if i % 3 == 0 { Outcome::Fail } else { Outcome::Pass };
                            assert_eq!(cached.test(input), expected);
                        }
                    }
                });
            }
        });
        let stats = cached.stats();
        // Every question is answered once, either by a run or by the cache.
        assert_eq!(stats.calls + stats.cache_hits, 4 * 3 * 50);
        // Races may run an input twice, but never more often than there are threads.
        assert!(stats.calls >= 50 && stats.calls <= 4 * 50, "{stats:?}");
        assert_eq!(stats.calls, cached.inner().0.load(Ordering::Relaxed));
    }
}
