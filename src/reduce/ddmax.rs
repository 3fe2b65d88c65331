//! Maximizing delta debugging (ddmax, Kirschner et al., ICSE 2020, Fig. 5) over any list.
//!
//! [`ddmax`] grows a passing subset `C'` of the failing input's elements towards the whole input:
//! "increase to complement", then "increase to subset", then "increase granularity", exactly as
//! the paper defines `ddmax2`. [`ddmax_bytes`] is lexical ddmax over the bytes of an input.
//!
//! Direction: here **Pass is the goal** ("the program processed it"); Fail and Unresolved both
//! mean "not processed". This is the reducers' [`Oracle`](crate::oracle::Oracle) abstraction
//! unchanged, maximized towards the other outcome.

use std::collections::HashMap;
use std::sync::Mutex;

use super::tester::Tester;
use crate::oracle::Outcome;

/// What [`ddmax`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Maximized {
    /// Indices (ascending) of the kept elements: the maximal passing configuration `C'`.
    pub kept: Vec<usize>,
    /// Whether the oracle said Pass for the kept elements. False when no tested subset passed
    /// (then `kept` is empty and the empty configuration did not pass, or was not testable).
    pub passes: bool,
    /// Whether the budget ran out: the result then passes but need not be 1-maximal.
    pub exhausted: bool,
}

/// Maximizes a passing subset of `items`. `build` turns a configuration (a sublist, in order)
/// into the input to test. Precondition (not checked, to save a run): the whole list does not
/// pass. The paper also assumes the empty configuration passes; where it does not (an empty JSON
/// text is invalid), ddmax still searches, and [`Maximized::passes`] says whether any subset did.
///
/// Unless the budget ran out, the result is 1-maximal: adding back any single removed element
/// gives an input that does not pass (the last round tests every such configuration).
/// With `jobs > 1` the candidates of a step are tested in groups and the first passing one in
/// order is taken, so results equal the sequential ones. Identical candidates (the complements
/// and subsets coincide when `C'` is empty and `n = 2`) are tested once.
pub fn ddmax<T>(items: &[T], tester: &Tester<'_>, build: &dyn Fn(&[&T]) -> Vec<u8>) -> Maximized {
    let all = items.len();
    let seen: Mutex<HashMap<Vec<u8>, Outcome>> = Mutex::new(HashMap::new());
    // Tests configurations (as index lists) in groups of `jobs`; the first that passes, in order.
    let first_passing = |configs: Vec<Vec<usize>>| -> Result<Option<Vec<usize>>, ()> {
        for group in configs.chunks(tester.jobs()) {
            let inputs: Vec<Vec<u8>> = group
                .iter()
                .map(|c| build(&c.iter().map(|&i| &items[i]).collect::<Vec<_>>()))
                .collect();
            let fresh: Vec<Vec<u8>> = {
                let seen = seen.lock().expect("no panics while held");
                inputs.iter().filter(|i| !seen.contains_key(*i)).cloned().collect()
            };
            let outcomes = tester.test_batch(&fresh);
            // A spent budget makes the tester answer Pass without running anything; for ddmax
            // Pass is the goal, so such answers must not be taken.
            if tester.exhausted() {
                return Err(());
            }
            let mut seen = seen.lock().expect("no panics while held");
            seen.extend(fresh.into_iter().zip(outcomes));
            if let Some(k) = inputs.iter().position(|i| seen[i] == Outcome::Pass) {
                return Ok(Some(group[k].clone()));
            }
        }
        Ok(None)
    };
    let mut kept: Vec<usize> = Vec::new();
    let mut passes = false;
    let mut n = 2usize;
    let exhausted = loop {
        let delta: Vec<usize> = difference(all, &kept);
        if delta.is_empty() {
            break false;
        }
        n = n.min(delta.len());
        let chunks = chunks(&delta, n);
        // Increase to complement: C✗ \ Δi = C' ∪ (Δ \ Δi). With one chunk that is C' itself.
        let complements = if chunks.len() >= 2 {
            chunks.iter().map(|c| difference(all, c)).collect()
        } else {
            Vec::new()
        };
        match first_passing(complements) {
            Err(()) => break true,
            Ok(Some(c)) => {
                kept = c;
                passes = true;
                n = (n - 1).max(2);
                continue;
            }
            Ok(None) => {}
        }
        // Increase to subset: C' ∪ Δi.
        let subsets = chunks.iter().map(|c| union(&kept, c)).collect();
        match first_passing(subsets) {
            Err(()) => break true,
            Ok(Some(c)) => {
                kept = c;
                passes = true;
                n = 2;
                continue;
            }
            Ok(None) => {}
        }
        if n < delta.len() {
            n = (2 * n).min(delta.len());
        } else {
            break false;
        }
    };
    if !passes && !exhausted && kept.is_empty() {
        // The empty configuration was never tested by the steps above unless it coincided with a
        // complement; test it so that `passes` is the truth.
        passes = first_passing(vec![Vec::new()]).is_ok_and(|p| p.is_some());
    }
    Maximized {
        kept,
        passes,
        exhausted: exhausted || tester.exhausted(),
    }
}

/// Lexical ddmax over the bytes of `input`: the repaired input and which bytes it keeps.
/// Precondition: `input` does not pass.
pub fn ddmax_bytes(input: &[u8], tester: &Tester<'_>) -> (Vec<u8>, Maximized) {
    let result = ddmax(input, tester, &|bytes: &[&u8]| bytes.iter().map(|&&b| b).collect());
    (result.kept.iter().map(|&i| input[i]).collect(), result)
}

/// `delta` split into `n` chunks, bounds computed as [`ddmin`](super::ddmin::ddmin) does.
fn chunks(delta: &[usize], n: usize) -> Vec<Vec<usize>> {
    let len = delta.len();
    let size = len as f64 / n as f64;
    let mut out = Vec::with_capacity(n);
    let mut start = 0.0f64;
    while start < len as f64 {
        let (a, b) = (start as usize, ((start + size) as usize).min(len));
        if a < b {
            out.push(delta[a..b].to_vec());
        }
        start += size;
    }
    out
}

/// The indices `0..all` not in the ascending list `without`.
fn difference(all: usize, without: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(all - without.len());
    let mut w = without.iter().peekable();
    for i in 0..all {
        if w.peek() == Some(&&i) {
            w.next();
        } else {
            out.push(i);
        }
    }
    out
}

/// The ascending union of two ascending, disjoint index lists.
fn union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if j == b.len() || (i < a.len() && a[i] < b[j]) {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::Budget;
    use proptest::prelude::*;

    fn json_ok(data: &[u8]) -> Outcome {
        match serde_json::from_slice::<serde_json::Value>(data) {
            Ok(_) => Outcome::Pass,
            Err(_) => Outcome::Fail,
        }
    }

    #[test]
    fn chunks_cover_delta_in_order() {
        let delta: Vec<usize> = (10..17).collect();
        let c = chunks(&delta, 4);
        assert_eq!(c, vec![vec![10], vec![11, 12], vec![13, 14], vec![15, 16]]);
        assert_eq!(difference(5, &[1, 3]), vec![0, 2, 4]);
        assert_eq!(union(&[1, 4], &[0, 2, 5]), vec![0, 1, 2, 4, 5]);
    }

    #[test]
    fn nothing_passes_is_reported() {
        let never = |_: &[u8]| Outcome::Fail;
        let tester = Tester::new(&never, Budget::default(), 1);
        let (out, r) = ddmax_bytes(b"abc", &tester);
        assert!(out.is_empty());
        assert!(!r.passes);
    }

    #[test]
    fn a_spent_budget_never_counts_as_pass() {
        let oracle = json_ok;
        let budget = Budget {
            max_tests: Some(3),
            ..Budget::default()
        };
        let tester = Tester::new(&oracle, budget, 1);
        let (out, r) = ddmax_bytes(br#"{"a": 1x, "b": [true, false]}"#, &tester);
        assert!(r.exhausted);
        if r.passes {
            assert_eq!(json_ok(&out), Outcome::Pass);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        // 1-maximality (the paper's §3.3 property): the result passes, and adding back any single
        // removed byte, at its place, does not. Also: parallel results equal sequential ones.
        #[test]
        fn results_are_one_maximal(doc in r#"\{"[a-c]{1,3}": \[[0-9]{1,3}, "[a-z ]{0,4}", (true|null)\]\}"#,
                                   junk in proptest::collection::vec((0usize..40, any::<u8>()), 1..4)) {
            let mut input = doc.into_bytes();
            for (at, b) in junk {
                let at = at % (input.len() + 1);
                input.insert(at, b);
            }
            prop_assume!(json_ok(&input) != Outcome::Pass);
            let oracle = json_ok;
            let tester = Tester::new(&oracle, Budget::default(), 1);
            let (out, r) = ddmax_bytes(&input, &tester);
            prop_assert!(!r.exhausted);
            prop_assert!(r.passes);
            prop_assert_eq!(json_ok(&out), Outcome::Pass);
            let removed = difference(input.len(), &r.kept);
            for &d in &removed {
                let with = union(&r.kept, &[d]);
                let candidate: Vec<u8> = with.iter().map(|&i| input[i]).collect();
                prop_assert_ne!(json_ok(&candidate), Outcome::Pass, "adding back byte {} passes", d);
            }
            let parallel = Tester::new(&oracle, Budget::default(), 2);
            prop_assert_eq!(ddmax_bytes(&input, &parallel).0, out);
        }
    }
}
