//! Input repair: lexical or syntactic ddmax, and the diagnosis (what was removed, where).
//!
//! [`repair`] takes an input the oracle does not pass and returns the largest passing subset
//! ddmax finds, over bytes ([`Mode::Lexical`]) or over the tokens of an error-recovering parse
//! ([`Mode::Syntactic`]: the paper's terminal nodes, error leaves included). Pass = processed.

use std::ops::Range;
use std::time::{Duration, Instant};

use super::ddmax::{ddmax, Maximized};
use super::tester::{confirm, Budget, Tester, CONFIRM_RUNS};
use crate::grammar::{Grammar, TerminalId};
use crate::oracle::{Cached, Oracle, Outcome};
use crate::parse::{ErrorSpan, Parser};
use crate::tree::{NodeKind, Tree};

/// Which elements ddmax maximizes over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The input's bytes (the paper's lexical ddmax, §3).
    Lexical,
    /// The tokens of the input's recovered parse tree (the paper's syntactic ddmax, §4).
    Syntactic,
}

/// How to repair.
#[derive(Clone, Debug, Default)]
pub struct RepairOptions {
    /// `None`: syntactic when a grammar is given and its recovering parse finds some structure
    /// (not everything is an error), else lexical.
    pub mode: Option<Mode>,
    /// Candidates tested at once (results equal the sequential ones).
    pub jobs: usize,
    /// Limits; when they run out, the largest passing input found so far is returned.
    pub budget: Budget,
}

/// One removed part of the input: the diagnosis is the list of these.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Removed {
    /// Byte offset in the original input.
    pub offset: usize,
    /// The removed bytes.
    #[serde(serialize_with = "lossy")]
    pub bytes: Vec<u8>,
}

/// The outcome of a repair.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Repair {
    /// The repaired input: a subsequence of the original. It passed the oracle iff `repaired`.
    #[serde(serialize_with = "lossy")]
    pub input: Vec<u8>,
    /// The ddmax that ran.
    pub mode: Mode,
    /// Whether `input` passed the oracle (false: no subset tried passed; `input` is then empty).
    pub repaired: bool,
    /// The original already passed: nothing was removed.
    pub already_passing: bool,
    /// The removed parts, in order: the original minus these is `input`.
    pub removed: Vec<Removed>,
    /// Size of the original input in bytes.
    pub original_size: usize,
    /// Elements ddmax worked on (bytes, or tokens of the recovered tree).
    pub elements: usize,
    /// Syntactic mode: the spans the recovering parse could not fit into the grammar.
    pub parse_errors: Vec<ErrorSpan>,
    /// Candidates tested (oracle runs and cache hits alike).
    pub tests: u64,
    /// Real oracle runs (distinct candidates), the check of the original included.
    pub oracle_calls: u64,
    /// Wall time (in JSON: seconds).
    #[serde(serialize_with = "as_secs")]
    pub time: Duration,
    /// The budget ran out: `input` passes but may not be 1-maximal.
    pub budget_exhausted: bool,
    /// Whether `input` passed again on each of [`CONFIRM_RUNS`] re-runs on the oracle itself
    /// (not the cache) after the search. False with `repaired` means a flaky oracle: the input
    /// passed once, but the program may not process it. False also when there was nothing to
    /// confirm (not `repaired`) or the search was cancelled (no more runs after a Ctrl-C).
    pub confirmed: bool,
}

fn lossy<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(bytes))
}

fn as_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

struct ByRef<'a>(&'a dyn Oracle);

impl Oracle for ByRef<'_> {
    fn test(&self, input: &[u8]) -> Outcome {
        self.0.test(input)
    }
}

/// Repairs `input`: the largest subsequence ddmax finds that the oracle passes (Pass = "the
/// program processed it"; Fail and Unresolved both count as not processed). If the original
/// passes already, it is returned unchanged. Unless the budget runs out the result is
/// 1-maximal over the chosen elements: putting back any one removed element makes it fail.
/// A passing result is then re-run [`CONFIRM_RUNS`] times on `oracle` itself
/// ([`Repair::confirmed`]), as reductions are, so that a flaky oracle shows.
pub fn repair(input: &[u8], grammar: Option<&Grammar>, oracle: &dyn Oracle, options: &RepairOptions) -> Repair {
    repair_with_progress(input, grammar, oracle, options, &|_, _| {})
}

/// [`repair`], calling `progress` with (candidates tested, real oracle runs) after every test.
pub fn repair_with_progress(
    input: &[u8],
    grammar: Option<&Grammar>,
    oracle: &dyn Oracle,
    options: &RepairOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Repair {
    let started = Instant::now();
    let cached = Cached::new(ByRef(oracle));
    let report = |tests: u64, _best: usize| progress(tests, cached.stats().calls);
    let tester = Tester::new(&cached, options.budget.clone(), options.jobs).with_progress(&report);
    let recovered = match (options.mode, grammar) {
        (Some(Mode::Lexical), _) | (None, None) => None,
        (_, Some(g)) => Some(Parser::new(g).parse_recovering(input)),
        (Some(Mode::Syntactic), None) => Some(whole_input_as_error(input)),
    };
    let (mode, elements, parse_errors) = match recovered {
        Some((tree, errors)) if options.mode == Some(Mode::Syntactic) || !all_error(&errors, input.len()) => {
            (Mode::Syntactic, tokens(grammar, &tree, &errors), errors)
        }
        _ => (Mode::Lexical, (0..input.len()).map(|i| i..i + 1).collect(), Vec::new()),
    };
    let mut result = Repair {
        input: input.to_vec(),
        mode,
        repaired: true,
        already_passing: false,
        removed: Vec::new(),
        original_size: input.len(),
        elements: elements.len(),
        parse_errors,
        tests: 0,
        oracle_calls: 0,
        time: Duration::ZERO,
        budget_exhausted: false,
        confirmed: false,
    };
    if tester.test(input) == Outcome::Pass && !tester.exhausted() {
        result.already_passing = true;
    } else {
        let build =
            |parts: &[&Range<usize>]| -> Vec<u8> { parts.iter().flat_map(|r| &input[(*r).clone()]).copied().collect() };
        let Maximized {
            kept,
            passes,
            exhausted,
        } = ddmax(&elements, &tester, &build);
        let kept_ranges: Vec<&Range<usize>> = kept.iter().map(|&i| &elements[i]).collect();
        result.input = build(&kept_ranges);
        result.repaired = passes;
        result.budget_exhausted = exhausted;
        result.removed = removed_parts(input, &elements, &kept);
    }
    result.oracle_calls = cached.stats().calls;
    let cancelled = options
        .budget
        .cancel
        .as_ref()
        .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed));
    if result.repaired && !cancelled {
        // The search believed the cache; the claim "processed" must hold on fresh runs too.
        let check = confirm(oracle, &result.input, Outcome::Pass, CONFIRM_RUNS);
        result.confirmed = check.held;
        result.oracle_calls += check.runs;
    }
    result.tests = tester.tests();
    result.time = started.elapsed();
    result
}

/// The removed elements merged into maximal runs of the original.
fn removed_parts(input: &[u8], elements: &[Range<usize>], kept: &[usize]) -> Vec<Removed> {
    let mut out: Vec<Removed> = Vec::new();
    let mut k = kept.iter().peekable();
    for (i, r) in elements.iter().enumerate() {
        if k.peek() == Some(&&i) {
            k.next();
            continue;
        }
        match out.last_mut() {
            Some(last) if last.offset + last.bytes.len() == r.start => last.bytes.extend_from_slice(&input[r.clone()]),
            _ => out.push(Removed {
                offset: r.start,
                bytes: input[r.clone()].to_vec(),
            }),
        }
    }
    out
}

fn all_error(errors: &[ErrorSpan], len: usize) -> bool {
    errors.iter().map(|e| e.len).sum::<usize>() == len
}

fn whole_input_as_error(input: &[u8]) -> (Tree, Vec<ErrorSpan>) {
    // A stand-in tree: without a grammar the only "token" is the whole input.
    let errors = if input.is_empty() {
        Vec::new()
    } else {
        vec![ErrorSpan {
            offset: 0,
            len: input.len(),
        }]
    };
    (
        Tree::new(NodeKind::Leaf {
            terminal: TerminalId::ERROR,
        }),
        errors,
    )
}

/// The syntactic elements of a recovered tree, as byte ranges tiling the input in order: each
/// error leaf, each lexical-symbol subtree (a string, a number, whitespace: what a separate lexer
/// would make one token, like ANTLR's terminal nodes) unless an error falls inside it, and every
/// other terminal leaf. Empty ranges are left out (ddmax cannot remove nothing).
pub fn tokens(grammar: Option<&Grammar>, tree: &Tree, errors: &[ErrorSpan]) -> Vec<Range<usize>> {
    let Some(g) = grammar else {
        return errors.iter().map(|e| e.offset..e.offset + e.len).collect();
    };
    let lexical = |sym: crate::grammar::SymbolId| !g.analysis().reaches_recursion[sym.index()];
    let overlaps_error = |r: &Range<usize>| errors.iter().any(|e| e.offset < r.end && r.start < e.offset + e.len);
    let mut out = Vec::new();
    // Explicit stack of (node, start offset): trees of deep inputs must not overflow the stack.
    let mut stack = vec![(tree.root(), 0usize)];
    while let Some((node, start)) = stack.pop() {
        let range = start..start + tree.len_of(node);
        let atomic = match tree.kind(node) {
            NodeKind::Leaf { .. } => true,
            kind => kind.symbol().is_some_and(lexical) && !overlaps_error(&range),
        };
        if atomic {
            if !range.is_empty() {
                out.push(range);
            }
            continue;
        }
        let mut children = Vec::new();
        let mut at = start;
        for c in tree.children(node) {
            children.push((c, at));
            at += tree.len_of(c);
        }
        stack.extend(children.into_iter().rev());
    }
    out
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod tests;
