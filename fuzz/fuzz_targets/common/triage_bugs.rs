//! The planted bugs of `tests/fixtures/triage_harness.rs` as a libFuzzer target's body, for
//! `scripts/bench-triage-casr`: the same keywords, the same kinds of crash, the same shapes.
//!
//! Shared by `triage_bugs` (`hellfuzz::fuzz_target!`) and `triage_bugs_plain`
//! (`libfuzzer_sys::fuzz_target!`): the first keyword of the input picks the bug. IDX (index out
//! of bounds, message varies with the input), UNWRAP (unwrap on None), OBJ and ARR (one shared
//! panicking helper, reached from different callers), DIV (division by zero), SLICE (a bad
//! range), ABORT and HALT (two `abort()` sites in one function: only the line tells them apart),
//! DEEP (stack overflow), OOM (allocation failure). Other inputs do nothing.

use std::hint::black_box;

/// Runs the bug of the first keyword in `data`.
#[inline(never)]
pub fn parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        match word {
            "IDX" => lookup(data),
            "UNWRAP" => number(data),
            "OBJ" => object(data),
            "ARR" => array(data),
            "DIV" => divide(data),
            "SLICE" => slice(data),
            "ABORT" => std::process::abort(),
            "HALT" => {
                black_box(data.len());
                std::process::abort()
            }
            "DEEP" => {
                black_box(recurse(0, [1; 256]));
            }
            "OOM" => {
                black_box(vec![0u8; black_box(1usize << 46)]);
            }
            _ => continue,
        }
        return;
    }
}

#[inline(never)]
fn lookup(data: &[u8]) {
    let table = [0u8; 3];
    black_box(table[black_box(data.len()) + 3]);
}

#[inline(never)]
fn number(data: &[u8]) {
    let digit = data.iter().find(|b| b.is_ascii_digit() && **b > b'9');
    black_box(digit.unwrap());
}

#[inline(never)]
fn divide(data: &[u8]) {
    black_box(100 / black_box(data.len() - data.len()));
}

#[inline(never)]
fn slice(data: &[u8]) {
    black_box(&data[black_box(5)..black_box(2)]);
}

// The result goes through black_box after the call: an optimized build would otherwise make the
// call a tail call (the caller's frame gone from the stack) or merge the two callers into one
// function, and the two callers of the helper, the planted shape, would no longer show.
#[inline(never)]
fn object(data: &[u8]) {
    black_box(check(data.len(), "object"));
}

#[inline(never)]
fn array(data: &[u8]) {
    black_box(check(data.len(), "array"));
}

/// Shared by `object` and `array`: their panics have one location and one message.
#[inline(never)]
fn check(depth: usize, what: &str) -> usize {
    if black_box(depth) > 0 {
        fail(depth);
    }
    black_box(what).len()
}

#[inline(never)]
fn fail(depth: usize) {
    panic!("invariant violated at depth {depth}");
}

// Unbounded on purpose: the stack overflow is the planted bug.
#[allow(unconditional_recursion)]
#[inline(never)]
fn recurse(n: u64, pad: [u8; 256]) -> u64 {
    black_box(&pad);
    recurse(n + 1, pad) + pad[(n % 256) as usize] as u64
}
