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
        let chunks = chunk_bounds(inp.len(), n);
        let mut found = None;
        // Test the round's complements in groups of `jobs`, stopping at the first group with a
        // failing one; the first failing complement in order wins, as in the sequential loop.
        // Complements are made a group at a time: all n of them at once would take memory
        // quadratic in the list (10,000 characters: 10^8 items).
        for group in chunks.chunks(tester.jobs()) {
            let complements: Vec<Vec<T>> = group.iter().map(|&(a, b)| complement(&inp, a, b)).collect();
            let outcomes = tester.test_options(&complements.iter().map(|c| build(c)).collect::<Vec<_>>());
            if let Some(k) = outcomes.iter().position(|&o| o == Outcome::Fail) {
                found = complements.into_iter().nth(k);
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

/// The bounds of the `n` chunks of a list of `len`, as fuzzingbook computes them.
fn chunk_bounds(len: usize, n: usize) -> Vec<(usize, usize)> {
    let subset_length = len as f64 / n as f64;
    let mut out = Vec::new();
    let mut start = 0.0f64;
    while start < len as f64 {
        out.push((start as usize, ((start + subset_length) as usize).min(len)));
        start += subset_length;
    }
    out
}

/// `inp` without `inp[a..b]`.
fn complement<T: Clone>(inp: &[T], a: usize, b: usize) -> Vec<T> {
    let mut c = Vec::with_capacity(inp.len() - (b - a));
    c.extend_from_slice(&inp[..a]);
    c.extend_from_slice(&inp[b..]);
    c
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
    // Characters as (start, end) in `input`: 8 bytes each, not an allocation each.
    let ranges: Vec<(u32, u32)> = match std::str::from_utf8(input) {
        Ok(text) => text
            .char_indices()
            .map(|(i, c)| (i as u32, (i + c.len_utf8()) as u32))
            .collect(),
        Err(_) => (0..input.len() as u32).map(|i| (i, i + 1)).collect(),
    };
    let concat = |units: &[(u32, u32)]| -> Vec<u8> {
        let mut out = Vec::with_capacity(units.iter().map(|&(a, b)| (b - a) as usize).sum());
        for &(a, b) in units {
            out.extend_from_slice(&input[a as usize..b as usize]);
        }
        out
    };
    concat(&ddmin(ranges, tester, false, &|units: &[(u32, u32)]| {
        Some(concat(units))
    }))
}

/// ddmin over the lines of `input` (each line with its newline). Precondition: `input` fails.
pub fn ddmin_lines(input: &[u8], tester: &Tester<'_>) -> Vec<u8> {
    let lines: Vec<Vec<u8>> = input.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    ddmin(lines, tester, false, &|ls: &[Vec<u8>]| Some(ls.concat())).concat()
}
