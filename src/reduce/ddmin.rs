//! Delta debugging (ddmin) over any list: bytes, characters, lines, or the nodes of a tree level.
//!
//! [`ddmin`] is fuzzingbook's `DeltaDebuggingReducer.reduce` (complements only, granularity
//! doubling, chunk bounds computed in floating point exactly as there), so it returns the same
//! 1-minimal results; with `jobs > 1` a round's complements are tested at once and the first
//! failing one in order is taken, which is the sequential result.

use super::tester::Tester;
use crate::oracle::Outcome;

/// Reduces `items` to a 1-minimal sublist on which `build` + the tester still say Fail.
/// `build` turns a sublist into the input to test, or `None` if that sublist is not a valid
/// configuration (it then counts as Pass, without an oracle call). Precondition: the full list
/// fails. With `try_empty`, the empty list is tested first (ddmin alone never tests it).
pub fn ddmin<T: Clone>(
    items: Vec<T>,
    tester: &Tester<'_>,
    try_empty: bool,
    build: &dyn Fn(&[T]) -> Option<Vec<u8>>,
) -> Vec<T> {
    let mut inp = items;
    if try_empty && !inp.is_empty() && build(&[]).is_some_and(|input| tester.test(&input) == Outcome::Fail) {
        return Vec::new();
    }
    let mut n = 2usize;
    while inp.len() >= 2 {
        let complements = complements(&inp, n);
        let mut found = None;
        // Test the round's complements in groups of `jobs`, stopping at the first group with a
        // failing one; the first failing complement in order wins, as in the sequential loop.
        for group in complements.chunks(tester.jobs()) {
            let outcomes = tester.test_options(&group.iter().map(|c| build(c)).collect::<Vec<_>>());
            if let Some(k) = outcomes.iter().position(|&o| o == Outcome::Fail) {
                found = Some(group[k].clone());
                break;
            }
        }
        match found {
            Some(c) => {
                inp = c;
                n = (n - 1).max(2);
            }
            None => {
                if n == inp.len() {
                    break;
                }
                n = (n * 2).min(inp.len());
            }
        }
        if tester.exhausted() {
            break;
        }
    }
    inp
}

/// The complements of the `n` chunks of `inp`, chunk bounds as fuzzingbook computes them.
fn complements<T: Clone>(inp: &[T], n: usize) -> Vec<Vec<T>> {
    let len = inp.len();
    let subset_length = len as f64 / n as f64;
    let mut out = Vec::new();
    let mut start = 0.0f64;
    while start < len as f64 {
        let (a, b) = (start as usize, ((start + subset_length) as usize).min(len));
        let mut c = inp[..a].to_vec();
        c.extend_from_slice(&inp[b..]);
        out.push(c);
        start += subset_length;
    }
    out
}

/// The characters of `input` as byte chunks when it is UTF-8 (so ddmin never splits a
/// character), else its single bytes.
pub fn units(input: &[u8]) -> Vec<Vec<u8>> {
    match std::str::from_utf8(input) {
        Ok(text) => text.chars().map(|c| c.to_string().into_bytes()).collect(),
        Err(_) => input.iter().map(|&b| vec![b]).collect(),
    }
}

/// ddmin over the characters (or bytes) of `input`. Precondition: `input` fails.
pub fn ddmin_bytes(input: &[u8], tester: &Tester<'_>) -> Vec<u8> {
    ddmin(units(input), tester, false, &|units: &[Vec<u8>]| Some(units.concat())).concat()
}

/// ddmin over the lines of `input` (each line with its newline). Precondition: `input` fails.
pub fn ddmin_lines(input: &[u8], tester: &Tester<'_>) -> Vec<u8> {
    let lines: Vec<Vec<u8>> = input.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    ddmin(lines, tester, false, &|ls: &[Vec<u8>]| Some(ls.concat())).concat()
}
