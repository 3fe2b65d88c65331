//! Joining groups whose stacks are nearly the same (`--join-stacks`): CASR's stack distance (the
//! PDM similarity of two symbolized stacks) and complete-linkage clustering cut at a threshold.
//!
//! Map: [`similarity`] (two stacks, 0 to 1) · [`clusters`] (complete linkage by nearest-neighbour
//! chain, cut below the threshold) · [`join_groups`] (one group per cluster, the largest member
//! keeps its id and representative).

use super::group::Group;
use super::stack::Frame;

/// CASR's default threshold: groups closer than this (1 − similarity) are joined.
pub const DEFAULT_THRESHOLD: f64 = 0.3;

/// Weight of a frame's depth (CASR's `a`): a match deeper in the stack counts less.
const DEPTH_WEIGHT: f64 = 0.04;

/// Weight of a match's offset between the two stacks (CASR's `r`).
const OFFSET_WEIGHT: f64 = 0.13;

/// Whether two frames are the same place, as CASR compares them: by file, line and column when
/// both have a location (the column only when both have one: gdb prints none), else by function.
fn same_frame(a: &Frame, b: &Frame) -> bool {
    match (&a.file, a.line, &b.file, b.line) {
        (Some(fa), Some(la), Some(fb), Some(lb)) => {
            fa == fb && la == lb && (a.column.is_none() || b.column.is_none() || a.column == b.column)
        }
        _ => a.function == b.function,
    }
}

/// The similarity of two stacks (innermost frame first), from 0 (nothing in common) to 1 (the
/// same), as CASR's `similarity` (Position Dependent Model, from ReBucket): the best alignment of
/// equal frames, each match weighted by `exp(-(min depth · 0.04 + depth difference · 0.13))`,
/// divided by the weight of a perfect match of the shorter stack. An empty stack is like
/// nothing: 0.
pub fn similarity(first: &[Frame], second: &[Frame]) -> f64 {
    let shorter = first.len().min(second.len());
    if shorter == 0 {
        return 0.0;
    }
    // One row of the dynamic programme at a time: `previous[j]` is the best of first[..j] against
    // second[..i - 1].
    let mut previous = vec![0.0f64; first.len() + 1];
    let mut current = vec![0.0f64; first.len() + 1];
    for i in 1..=second.len() {
        current[0] = 0.0;
        for j in 1..=first.len() {
            let cost = if same_frame(&first[j - 1], &second[i - 1]) {
                (-(i.min(j) as f64 * DEPTH_WEIGHT + i.abs_diff(j) as f64 * OFFSET_WEIGHT)).exp()
            } else {
                0.0
            };
            current[j] = current[j - 1].max(previous[j]).max(previous[j - 1] + cost);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    let perfect: f64 = (1..=shorter).map(|i| (-DEPTH_WEIGHT * i as f64).exp()).sum();
    previous[first.len()] / perfect
}

/// Flat clusters of `stacks` (cluster numbers from 0, in order of first member): complete
/// linkage on the distance 1 − [`similarity`], cut where the distance reaches `threshold`, as
/// `casr-cluster` does. Two stacks end up in one cluster only if every pair across the two
/// sides of each merge is closer than `threshold`. The nearest-neighbour chain finds the same
/// merges as the textbook algorithm (complete linkage is reducible) in O(n²) time; the distance
/// matrix takes O(n²) memory, n being the number of groups, not files.
pub fn clusters(stacks: &[&[Frame]], threshold: f64) -> Vec<usize> {
    let n = stacks.len();
    // Lower triangle, row by row: distance(i, j) for j < i at i·(i−1)/2 + j.
    let index = |i: usize, j: usize| {
        let (hi, lo) = if i > j { (i, j) } else { (j, i) };
        hi * (hi - 1) / 2 + lo
    };
    let mut distance = vec![0.0f64; n * n.saturating_sub(1) / 2];
    for i in 0..n {
        for j in 0..i {
            distance[index(i, j)] = 1.0 - similarity(stacks[i], stacks[j]);
        }
    }
    // Union-find over the merges below the threshold; a merged cluster lives on in its first
    // slot, the second slot goes inactive.
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut active = vec![true; n];
    let mut left = n;
    let mut chain: Vec<usize> = Vec::new();
    while left > 1 {
        if chain.is_empty() {
            chain.push(active.iter().position(|&a| a).expect("two clusters are left"));
        }
        let top = *chain.last().expect("not empty");
        let before = chain.len().checked_sub(2).map(|k| chain[k]);
        // The nearest active cluster; on a tie the one before in the chain, then the lowest slot,
        // so that the chain cannot cycle.
        let mut nearest = None;
        for c in (0..n).filter(|&c| c != top && active[c]) {
            let d = distance[index(top, c)];
            let better = match nearest {
                None => true,
                Some((best, bd)) => d < bd || (d == bd && Some(c) == before && Some(best) != before),
            };
            if better {
                nearest = Some((c, d));
            }
        }
        let (next, d) = nearest.expect("another cluster is active");
        if Some(next) != before {
            chain.push(next);
            continue;
        }
        // `top` and `next` are each other's nearest: merge them into `next`'s slot.
        chain.truncate(chain.len() - 2);
        let (keep, gone) = (next, top);
        for c in (0..n).filter(|&c| c != keep && c != gone && active[c]) {
            let merged = distance[index(keep, c)].max(distance[index(gone, c)]);
            distance[index(keep, c)] = merged;
        }
        active[gone] = false;
        left -= 1;
        if d < threshold {
            let (a, b) = (root(&mut parent, keep), root(&mut parent, gone));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut numbers = std::collections::HashMap::new();
    (0..n)
        .map(|i| {
            let r = root(&mut parent, i);
            let next = numbers.len();
            *numbers.entry(r).or_insert(next)
        })
        .collect()
}

/// Joins the groups whose stacks are closer than `threshold` (see [`clusters`]). A joined group
/// keeps the id, coarse hash, signature, stack and representative of its member with the most
/// files (then the lowest id), so that its minimization looks for that member's crash; it takes
/// every member's files and lists the others' coarse hashes in [`Group::joined`] (the history
/// counts them as seen). Groups without a stack are never joined. The result is sorted by id.
pub fn join_groups(groups: Vec<Group>, threshold: f64) -> Vec<Group> {
    let stacks: Vec<&[Frame]> = groups.iter().map(|g| g.stack.as_slice()).collect();
    let numbers = clusters(&stacks, threshold);
    let count = numbers.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<Group>> = (0..count).map(|_| Vec::new()).collect();
    for (g, number) in groups.into_iter().zip(numbers) {
        members[number].push(g);
    }
    let mut joined: Vec<Group> = members
        .into_iter()
        .filter_map(|mut list| {
            list.sort_by(|a, b| b.files.len().cmp(&a.files.len()).then_with(|| a.id.cmp(&b.id)));
            let mut list = list.into_iter();
            let mut keeper = list.next()?;
            for other in list {
                let d = 1.0 - similarity(&keeper.stack, &other.stack);
                keeper.notes.push(format!(
                    "joined with group {} ({}, {} files; stack distance {d:.2}, below {threshold})",
                    other.id,
                    other.signature,
                    other.files.len()
                ));
                keeper.files.extend(other.files);
                keeper.flaky_files += other.flaky_files;
                keeper.exact_hashes += other.exact_hashes;
                keeper.joined.push(other.coarse);
                keeper.joined.extend(other.joined);
            }
            keeper.files.sort();
            keeper.joined.sort();
            Some(keeper)
        })
        .collect();
    joined.sort_by(|a, b| a.id.cmp(&b.id));
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triage::{output_stack, user_frames};

    /// The user frames of a backtrace printed by examples/triage_harness.rs (RUST_BACKTRACE=1).
    fn stack(backtrace: &str) -> Vec<Frame> {
        user_frames(&output_stack(backtrace))
    }

    /// A real backtrace of the OBJ or ARR bug of tests/fixtures/triage_harness.rs (one panicking
    /// helper, two callers), trimmed after `main`: the caller (`object` at line 89, called from
    /// `parse` at line 42, or `array` at 94, from 43) is what differs.
    fn backtrace(caller: &str, caller_line: u32, parse_line: u32) -> String {
        format!(
            "\
thread 'main' (1) panicked at examples/triage_harness.rs:107:5:
invariant violated at depth 12
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/59807616e/library/std/src/panicking.rs:689:5
   1: core::panicking::panic_fmt
             at /rustc/59807616e/library/core/src/panicking.rs:80:14
   2: triage_harness::fail
             at ./examples/triage_harness.rs:107:5
   3: triage_harness::check
             at ./examples/triage_harness.rs:101:9
   4: triage_harness::{caller}
             at ./examples/triage_harness.rs:{caller_line}:5
   5: triage_harness::parse
             at ./examples/triage_harness.rs:{parse_line}:22
   6: triage_harness::main
             at ./examples/triage_harness.rs:27:5
   7: core::ops::function::FnOnce::call_once
             at /rustc/59807616e/library/core/src/ops/function.rs:250:5
"
        )
    }

    /// The user frames of the OBJ bug's backtrace.
    fn obj() -> Vec<Frame> {
        stack(&backtrace("object", 89, 42))
    }

    /// The user frames of the ARR bug's backtrace.
    fn arr() -> Vec<Frame> {
        stack(&backtrace("array", 94, 43))
    }

    /// A deep stack: the same panic reached through a chain of eight frames, with `depth` varying
    /// one frame in the middle (as a parser's recursion does).
    fn deep(middle: &str, line: u32) -> Vec<Frame> {
        let mut text = String::from("thread 'main' (1) panicked at src/value.rs:40:9:\nbad value\nstack backtrace:\n");
        let frames = [
            ("p::value::check", "./src/value.rs:40:9".to_string()),
            ("p::value::parse_value", "./src/value.rs:12:5".to_string()),
            ("p::value::parse_member", "./src/value.rs:30:13".to_string()),
            (middle, format!("./src/object.rs:{line}:17")),
            ("p::object::parse_object", "./src/object.rs:8:9".to_string()),
            ("p::document::parse_document", "./src/document.rs:21:5".to_string()),
            ("p::document::load", "./src/document.rs:3:5".to_string()),
            ("fuzz::run", "./fuzz/run.rs:9:5".to_string()),
            ("fuzz::main", "./fuzz/run.rs:2:5".to_string()),
        ];
        for (i, (function, at)) in frames.iter().enumerate() {
            text.push_str(&format!("   {i}: {function}\n             at {at}\n"));
        }
        stack(&text)
    }

    #[test]
    fn the_same_stack_is_similarity_one_and_nothing_in_common_zero() {
        let obj = obj();
        assert_eq!(obj.len(), 5, "{obj:?}");
        assert!((similarity(&obj, &obj) - 1.0).abs() < 1e-12);
        assert_eq!(similarity(&obj, &deep("p::object::parse_members", 20)), 0.0);
        assert_eq!(similarity(&obj, &[]), 0.0);
    }

    #[test]
    fn two_callers_of_one_helper_stay_apart_at_casr_threshold() {
        let (obj, arr) = (obj(), arr());
        // fail and check match, object/array and the two parse lines do not, main does but at
        // depth 5: (e^-.04 + e^-.08 + e^-.2) / (e^-.04 + … + e^-.2) = 0.61.
        let s = similarity(&obj, &arr);
        assert!((s - 0.6085).abs() < 1e-3, "{s}");
        assert_eq!(clusters(&[&obj, &arr], DEFAULT_THRESHOLD), [0, 1]);
        // With a looser threshold they are one cluster.
        assert_eq!(clusters(&[&obj, &arr], 0.5), [0, 0]);
    }

    #[test]
    fn stacks_that_differ_in_one_middle_frame_are_joined() {
        let a = deep("p::object::parse_members", 20);
        let b = deep("p::object::parse_entries", 51);
        let d = 1.0 - similarity(&a, &b);
        assert!(d > 0.0 && d < DEFAULT_THRESHOLD, "{d}");
        let obj = obj();
        assert_eq!(clusters(&[&a, &obj, &b], DEFAULT_THRESHOLD), [0, 1, 0]);
    }

    #[test]
    fn complete_linkage_does_not_chain() {
        // a–b and b–c are close, a–c is not: single linkage would join all three, complete
        // linkage joins one pair and leaves the third apart.
        let frame = |function: &str, line| Frame {
            function: function.to_string(),
            file: Some("src/x.rs".to_string()),
            line: Some(line),
            column: None,
        };
        let base: Vec<Frame> = (1..=12).map(|i| frame("f", i)).collect();
        let mut b = base.clone();
        b[3] = frame("g", 100);
        let mut c = b.clone();
        c[6] = frame("h", 200);
        c[2] = frame("h", 201);
        let (ab, bc, ac) = (
            1.0 - similarity(&base, &b),
            1.0 - similarity(&b, &c),
            1.0 - similarity(&base, &c),
        );
        let threshold = (ab.max(bc) + ac) / 2.0;
        assert!(ab < threshold && bc < threshold && ac > threshold, "{ab} {bc} {ac}");
        let found = clusters(&[&base, &b, &c], threshold);
        assert_eq!(found.iter().collect::<std::collections::BTreeSet<_>>().len(), 2);
        assert_ne!(found[0], found[2]);
    }

    #[test]
    fn frames_compare_by_location_then_by_function() {
        let with = |function: &str, column| Frame {
            function: function.to_string(),
            file: Some("src/a.rs".to_string()),
            line: Some(3),
            column,
        };
        // gdb names an inlined function differently and prints no column: still the same place.
        assert!(same_frame(&with("a::f", Some(9)), &with("a::f::{{closure}}", None)));
        assert!(!same_frame(&with("a::f", Some(9)), &with("a::f", Some(10))));
        let bare = Frame {
            function: "a::f".to_string(),
            file: None,
            line: None,
            column: None,
        };
        assert!(same_frame(&bare, &with("a::f", Some(9))));
        assert!(!same_frame(&bare, &with("a::g", Some(9))));
    }
}
