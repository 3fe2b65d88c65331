//! Input repair: lexical or syntactic ddmax, and the diagnosis (what was removed, where).
//!
//! [`repair`] takes an input the oracle does not pass and returns the largest passing subset
//! ddmax finds, over bytes ([`Mode::Lexical`]) or over the tokens of an error-recovering parse
//! ([`Mode::Syntactic`]: the paper's terminal nodes, error leaves included). Pass = processed.

use std::ops::Range;
use std::time::{Duration, Instant};

use super::ddmax::{ddmax, Maximized};
use super::generic::lexer::lex;
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
    let parser = grammar.map(Parser::new);
    let recovered = match (options.mode, &parser) {
        (Some(Mode::Lexical), _) | (None, None) => None,
        (_, Some(p)) => Some(p.parse_recovering(input)),
        (Some(Mode::Syntactic), None) => Some(whole_input_as_error(input)),
    };
    let (mode, elements, parse_errors) = match recovered {
        Some((tree, errors)) if options.mode == Some(Mode::Syntactic) || !all_error(&errors, input.len()) => {
            (Mode::Syntactic, tokens(input, grammar, &tree, &errors), errors)
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
        let Maximized {
            kept,
            passes,
            exhausted,
        } = maximize(input, &elements, parser.as_ref(), &tester);
        result.input = build(input, &elements, &kept);
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

/// The bytes of the elements `kept` (ascending indices), in order.
fn build(input: &[u8], elements: &[Range<usize>], kept: &[usize]) -> Vec<u8> {
    kept.iter()
        .flat_map(|&i| &input[elements[i].clone()])
        .copied()
        .collect()
}

/// ddmax over `elements`, started where the grammar finds the errors. With a parser,
/// [`error_first`] removes the smallest windows of elements around each parse error until the
/// grammar accepts the rest; if the program passes that too, ddmax only has to grow it by the
/// removed elements (the paper's `ddmax2(C', n)` with a large `C'`), which takes a few runs per
/// removed element instead of a search from the empty input, and which cannot end in a small
/// local maximum such as a lone JSON string found by "increase to subset". Otherwise, or without
/// a parser, plain ddmax over all elements. Either way the result is 1-maximal (budget allowing).
fn maximize(input: &[u8], elements: &[Range<usize>], parser: Option<&Parser>, tester: &Tester<'_>) -> Maximized {
    let whole = |sub: &[&Range<usize>]| -> Vec<u8> { sub.iter().flat_map(|r| &input[(*r).clone()]).copied().collect() };
    // When fixing errors one by one runs into a dead end (a window that got past one error but
    // made a worse one, such as a quote that now opens a string running to the end of the
    // line), the single-error reading is tried: one window after which the grammar accepts all.
    let stop = || tester.stopped();
    let start = parser.and_then(|p| {
        error_first(p, input, elements, false, &stop).or_else(|| error_first(p, input, elements, true, &stop))
    });
    let Some(start) = start else {
        return ddmax(elements, tester, &whole);
    };
    let outcome = tester.test(&build(input, elements, &start));
    if tester.exhausted() {
        // A spent budget answers Pass without a run: nothing is known to pass.
        return Maximized {
            kept: Vec::new(),
            passes: false,
            exhausted: true,
        };
    }
    if outcome != Outcome::Pass {
        // The program is stricter than the grammar here: search from scratch.
        return ddmax(elements, tester, &whole);
    }
    let removed: Vec<usize> = complement(elements.len(), &start);
    // ddmax over the removed elements, each configuration joined with `start` (which passes).
    let grow = |sub: &[&usize]| -> Vec<u8> {
        let mut kept = start.clone();
        kept.extend(sub.iter().map(|&&i| i));
        kept.sort_unstable();
        build(input, elements, &kept)
    };
    let grown = ddmax(&removed, tester, &grow);
    let mut kept = start.clone();
    kept.extend(grown.kept.iter().map(|&j| removed[j]));
    kept.sort_unstable();
    Maximized {
        kept,
        passes: true,
        exhausted: grown.exhausted,
    }
}

/// The indices `0..all` not in the ascending list `without`.
fn complement(all: usize, without: &[usize]) -> Vec<usize> {
    let mut w = without.iter().peekable();
    (0..all)
        .filter(|&i| {
            let skip = w.peek() == Some(&&i);
            if skip {
                w.next();
            }
            !skip
        })
        .collect()
}

/// The widest window [`error_first`] removes at once, in elements.
const MAX_WINDOW: usize = 32;
/// How far from the error element a window may lie when it does not cover it, in elements.
const NEAR: usize = 32;
/// A removal "gets past" an error when the parse then reads at least this many more non-blank
/// bytes: removing only the `3.45` of `"price" 3.45 }` makes the parse fail one byte later, at
/// `}`, which would otherwise count as progress and lead to removing everything up to the end.
const MARGIN: usize = 3;
/// Errors [`error_first`] fixes before it gives up (each fix removes at least one element).
const MAX_ROUNDS: usize = 64;

/// A starting configuration for ddmax: the elements left after removing, error by error, the
/// smallest window of elements around where the grammar's parse fails (smallest in bytes; a
/// window covering the failing element before one after it, before one before it; nearer first)
/// after which the parse accepts the input, or gets past the error by [`MARGIN`] non-blank bytes
/// and fails elsewhere than at the end of the input (reaching the end is how a removed closing
/// quote turns the rest of the input into a string: taken only if nothing else works). `None`
/// when an error has no such window or the grammar work (bytes parsed, proportional to the
/// input) runs out. Costs parses, not program runs.
///
/// With `whole`, a window counts only if the grammar then accepts the input: one round. `stop`
/// is asked before every parse (a Ctrl-C or the time limit ends the search: `None`).
fn error_first(
    parser: &Parser,
    input: &[u8],
    elements: &[Range<usize>],
    whole: bool,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<usize>> {
    let mut kept: Vec<usize> = (0..elements.len()).collect();
    let mut budget = 64 * input.len() + (4 << 20);
    for _ in 0..MAX_ROUNDS {
        let cand = build(input, elements, &kept);
        // starts[i]: offset in `cand` of kept element i; starts[m] = cand.len().
        let mut starts = Vec::with_capacity(kept.len() + 1);
        let mut at = 0;
        for &i in &kept {
            starts.push(at);
            at += elements[i].len();
        }
        starts.push(at);
        budget = budget.checked_sub(cand.len())?;
        if stop() {
            return None;
        }
        let k = match parser.recognize(&cand) {
            Ok(()) => return Some(kept),
            Err(e) => e.offset.min(cand.len()),
        };
        let (a, b) = fix_window(parser, &cand, &starts, (k, whole, stop), &mut budget)?;
        kept.drain(a..b);
    }
    None
}

/// The window `[a, b)` of elements (by their `starts` in `cand`) that [`error_first`] removes for
/// the parse error at byte `k` of `cand`.
fn fix_window(
    parser: &Parser,
    cand: &[u8],
    starts: &[usize],
    (k, whole, stop): (usize, bool, &dyn Fn() -> bool),
    budget: &mut usize,
) -> Option<(usize, usize)> {
    let m = starts.len() - 1;
    // The element holding byte k (m at the end of the input).
    let p = starts.partition_point(|&s| s <= k).saturating_sub(1).min(m);
    let p = if k >= cand.len() { m } else { p };
    let bytes = |a: usize, b: usize| starts[b] - starts[a];
    // Non-blank bytes of cand before each offset.
    let mut solid = Vec::with_capacity(cand.len() + 1);
    solid.push(0usize);
    for &c in cand {
        solid.push(solid.last().copied().unwrap_or(0) + usize::from(!c.is_ascii_whitespace()));
    }
    // Whether element i has a non-blank byte: wide windows start and end at such elements.
    let is_solid = |i: usize| solid[starts[i + 1]] > solid[starts[i]];
    // Widths up to MAX_WINDOW elements first, all of them; then, while none works, covering
    // windows twice as wide, up to 8 times (a corrupted closing quote can leave a long
    // string's worth of tokens to remove).
    let mut width = MAX_WINDOW;
    let mut narrower = 0;
    let mut fallback = None;
    loop {
        let mut windows: Vec<(usize, u8, usize, usize, usize)> = Vec::new();
        if p < m {
            for a in p.saturating_sub(width - 1)..=p {
                if narrower > 0 && !is_solid(a) {
                    continue;
                }
                for b in (p + 1).max(a + narrower + 1)..=(a + width).min(m) {
                    if narrower == 0 || is_solid(b - 1) {
                        windows.push((bytes(a, b), 0, p - a, a, b));
                    }
                }
            }
        }
        if narrower == 0 {
            if p < m {
                for a in p + 1..(p + 1 + NEAR).min(m) {
                    for b in a + 1..=(a + width).min(m) {
                        windows.push((bytes(a, b), 1, a - p, a, b));
                    }
                }
            }
            for b in p.saturating_sub(NEAR).max(1)..=p {
                for a in b.saturating_sub(width)..b {
                    windows.push((bytes(a, b), 2, p - b, a, b));
                }
            }
        }
        windows.sort_unstable();
        let at = ErrorAt {
            parser,
            cand,
            starts,
            k,
            whole,
            solid: &solid,
            stop,
        };
        if let Some(found) = first_fix(&at, &windows, budget, &mut fallback)? {
            return Some(found);
        }
        if width >= MAX_WINDOW << 3 || width >= m {
            return fallback;
        }
        narrower = width;
        width *= 2;
    }
}

/// A parse error of an [`error_first`] round: the candidate, its elements' offsets, the error
/// offset and the non-blank bytes before each offset.
#[derive(Clone, Copy)]
struct ErrorAt<'a> {
    parser: &'a Parser,
    cand: &'a [u8],
    starts: &'a [usize],
    k: usize,
    /// Only windows after which the grammar accepts the whole candidate count.
    whole: bool,
    solid: &'a [usize],
    /// Asked before each parse: stop the search.
    stop: &'a dyn Fn() -> bool,
}

/// The first of `windows` that fixes the error at `k` for [`fix_window`], else `Some(None)`
/// (`fallback` is then the first whose parse only fails at the end of the input, if it was
/// `None`); `None` when the budget runs out.
fn first_fix(
    at: &ErrorAt<'_>,
    windows: &[(usize, u8, usize, usize, usize)],
    budget: &mut usize,
    fallback: &mut Option<(usize, usize)>,
) -> Option<Option<(usize, usize)>> {
    let ErrorAt {
        parser,
        cand,
        starts,
        k,
        whole,
        solid,
        stop,
    } = *at;
    let mut without = Vec::with_capacity(cand.len());
    for &(_, _, _, a, b) in windows {
        if stop() {
            return None;
        }
        let (sa, sb) = (starts[a], starts[b]);
        let cut = sb - sa;
        without.clear();
        without.extend_from_slice(&cand[..sa]);
        without.extend_from_slice(&cand[sb..]);
        // Where reading resumes after the window or after k, in `cand` offsets.
        let from = sb.max(k);
        let solid_from = solid[from];
        // How far the parse must then get: a wide window must be paid for by as much progress
        // (else removing a string's closing quote and what follows up to another quote would
        // count: the parse runs on inside a string that now ends elsewhere).
        let need = MARGIN.max(solid[sb] - solid[sa]);
        // Past the error by `need` non-blank bytes at byte `f` of `without`?
        let past = |f: usize| {
            let f = if f < sa { f } else { f + cut };
            !whole && f > from && solid[f] - solid_from >= need
        };
        // A prefix that ends just after MARGIN + 1 more non-blank bytes tells most windows
        // apart (the parse fails before its end) for a fraction of a full parse.
        let end = solid.partition_point(|&n| n < solid_from + need + 1).min(cand.len());
        if end < cand.len() {
            let prefix = &without[..end - cut];
            *budget = budget.checked_sub(prefix.len())?;
            if let Err(e) = parser.recognize(prefix) {
                if e.offset < prefix.len() && !past(e.offset) {
                    continue;
                }
            }
        }
        *budget = budget.checked_sub(without.len())?;
        match parser.recognize(&without) {
            Ok(()) => return Some(Some((a, b))),
            Err(e) if e.offset < without.len() && past(e.offset) => return Some(Some((a, b))),
            Err(e) if !whole && fallback.is_none() && (e.offset >= without.len() && from < cand.len()) => {
                *fallback = Some((a, b));
            }
            Err(_) => {}
        }
    }
    Some(None)
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
/// lexical-symbol subtree (a string, a number, whitespace: what a separate lexer would make one
/// token, like ANTLR's terminal nodes), every other terminal leaf, and the tokens of the damaged
/// regions. A damaged region is a run of error leaves and of lexical subtrees an error falls into
/// (a short error leaf alone between sound tokens is kept whole, as the paper's error node);
/// the recovering parse cut its tokens wherever its shortest deletion happened to be (`"Apple", "`
/// for a missing colon), so the region is lexed again as a whole ([`lex`]: strings, numbers, words,
/// punctuation), and a token is split around an error only where the error lies inside it (a
/// control character inside a string: the string minus that byte is what the grammar lexes).
/// Empty ranges are left out (ddmax cannot remove nothing). `tree` and `errors` are what
/// [`Parser::parse_recovering`] returned for `input`; without a grammar, the tree is not looked
/// at and the errors are lexed.
pub fn tokens(input: &[u8], grammar: Option<&Grammar>, tree: &Tree, errors: &[ErrorSpan]) -> Vec<Range<usize>> {
    let error_ranges: Vec<Range<usize>> = errors.iter().map(|e| e.offset..e.offset + e.len).collect();
    let mut out = Vec::new();
    let Some(g) = grammar else {
        for r in &error_ranges {
            lex_damaged(input, r.clone(), &error_ranges, &mut out);
        }
        return out;
    };
    let text = input;
    let lexical = |sym: crate::grammar::SymbolId| !g.analysis().reaches_recursion[sym.index()];
    let overlaps_error = |r: &Range<usize>| error_ranges.iter().any(|e| e.start < r.end && r.start < e.end);
    // The damaged region being collected: lexed when a sound token follows, or at the end.
    let mut damaged: Option<Range<usize>> = None;
    // Explicit stack of (node, start offset): trees of deep inputs must not overflow the stack.
    let mut stack = vec![(tree.root(), 0usize)];
    while let Some((node, start)) = stack.pop() {
        let range = start..start + tree.len_of(node);
        if range.is_empty() {
            continue;
        }
        let (atomic, broken) = match tree.kind(node) {
            NodeKind::Leaf { terminal } => (true, terminal == TerminalId::ERROR || overlaps_error(&range)),
            kind => {
                let lex = kind.symbol().is_some_and(lexical);
                (lex, lex && overlaps_error(&range))
            }
        };
        if broken {
            damaged = Some(damaged.map_or(range.clone(), |d| d.start..range.end));
            continue;
        }
        if atomic {
            if let Some(d) = damaged.take() {
                lex_damaged(text, d, &error_ranges, &mut out);
            }
            out.push(range);
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
    if let Some(d) = damaged.take() {
        lex_damaged(text, d, &error_ranges, &mut out);
    }
    out
}

/// A lone error leaf up to this long between sound tokens stays one element (the paper's error
/// node): a local deletion of the recovering parse (at most its 32 bytes), not a tail it gave up on.
const ERROR_NODE: usize = 32;

/// Appends the tokens of the damaged region `region` of `text`: its generic tokens, each split
/// around the errors that lie wholly inside it; or the region whole if it is one short error leaf.
fn lex_damaged(text: &[u8], region: Range<usize>, errors: &[Range<usize>], out: &mut Vec<Range<usize>>) {
    if region.len() <= ERROR_NODE && errors.contains(&region) {
        out.push(region);
        return;
    }
    for t in lex(&text[region.clone()]) {
        let token = region.start + t.start..region.start + t.end;
        let mut at = token.start;
        for e in errors {
            if e.start >= token.start && e.end <= token.end && (e.start > token.start || e.end < token.end) {
                if at < e.start {
                    out.push(at..e.start);
                }
                out.push(e.clone());
                at = e.end;
            }
        }
        if at < token.end {
            out.push(at..token.end);
        }
    }
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod tests;
