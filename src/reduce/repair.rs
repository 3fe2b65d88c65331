//! Input repair: lexical or syntactic ddmax, and the diagnosis (what was removed, where).
//!
//! [`repair`] takes an input the oracle does not pass and returns the largest passing subset
//! ddmax finds, over bytes ([`RepairMode::Lexical`]) or over the tokens of an error-recovering parse
//! ([`RepairMode::Syntactic`]: the paper's terminal nodes, error leaves included). Pass = processed.

use std::ops::Range;
use std::time::{Duration, Instant};

use super::ddmax::{ddmax, Maximized};
use super::generic::lexer::lex;
use super::tester::{confirm, Budget, Tester, CONFIRM_RUNS};
use crate::grammar::{Grammar, Terminal, TerminalId};
use crate::oracle::{Cached, Oracle, Outcome};
use crate::parse::{ErrorSpan, Parser};
use crate::tree::{NodeKind, Tree};

/// Which elements ddmax maximizes over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RepairMode {
    /// The input's bytes (the paper's lexical ddmax, §3).
    Lexical,
    /// The tokens of the input's recovered parse tree (the paper's syntactic ddmax, §4).
    Syntactic,
}

/// How to repair. The default: the mode chosen by the input, one job, no limits, insertion on.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RepairOptions {
    /// `None`: syntactic when a grammar is given and its recovering parse finds some structure
    /// (not everything is an error), else lexical.
    pub mode: Option<RepairMode>,
    /// Candidates tested at once (results equal the sequential ones).
    pub jobs: usize,
    /// Limits; when they run out, the largest passing input found so far is returned.
    pub budget: Budget,
    /// With a grammar: where removing nothing near a parse error gets past it as cheaply, insert
    /// the cheapest string of a terminal the grammar expects there (`{` → `{}`, `nul` → `null`,
    /// a missing `:`), validated by the oracle like any candidate. Off: the paper's repair, a
    /// subsequence of the input. Either way ddmax then grows the result over deletions only.
    pub insert: bool,
}

impl Default for RepairOptions {
    fn default() -> RepairOptions {
        RepairOptions {
            mode: None,
            jobs: 1,
            budget: Budget::default(),
            insert: true,
        }
    }
}

/// One removed part of the input: the diagnosis is the list of these.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Removed {
    /// Byte offset in the original input.
    pub offset: usize,
    /// The removed bytes.
    #[serde(serialize_with = "lossy")]
    pub bytes: Vec<u8>,
}

/// Bytes a repair inserted (see [`RepairOptions::insert`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Inserted {
    /// Byte offset in the original input before which the bytes go.
    pub offset: usize,
    /// The inserted bytes.
    #[serde(serialize_with = "lossy")]
    pub bytes: Vec<u8>,
}

/// The outcome of a repair.
#[derive(Clone, Debug, serde::Serialize)]
#[non_exhaustive]
pub struct Repair {
    /// The repaired input: the original minus `removed`, plus `inserted` (empty unless
    /// [`RepairOptions::insert`]). It passed the oracle iff `repaired`.
    #[serde(serialize_with = "lossy")]
    pub input: Vec<u8>,
    /// The ddmax that ran.
    pub mode: RepairMode,
    /// Whether `input` passed the oracle (false: no subset tried passed; `input` is then empty).
    pub repaired: bool,
    /// The original already passed: nothing was removed.
    pub already_passing: bool,
    /// The removed parts, in order: the original minus these (plus `inserted`) is `input`.
    pub removed: Vec<Removed>,
    /// What the repair inserted, in order: the grammar's cheapest strings at parse errors.
    pub inserted: Vec<Inserted>,
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
        (Some(RepairMode::Lexical), _) | (None, None) => None,
        (_, Some(p)) => Some(p.parse_recovering(input)),
        (Some(RepairMode::Syntactic), None) => Some(whole_input_as_error(input)),
    };
    let (mode, elements, parse_errors) = match recovered {
        Some((tree, errors)) if options.mode == Some(RepairMode::Syntactic) || !all_error(&errors, input.len()) => (
            RepairMode::Syntactic,
            tokens_with(input, grammar, &tree, &errors, !options.insert),
            errors,
        ),
        _ => (
            RepairMode::Lexical,
            (0..input.len()).map(|i| i..i + 1).collect(),
            Vec::new(),
        ),
    };
    let mut result = Repair {
        input: input.to_vec(),
        mode,
        repaired: true,
        already_passing: false,
        removed: Vec::new(),
        inserted: Vec::new(),
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
        let (
            pieces,
            Maximized {
                kept,
                passes,
                exhausted,
            },
        ) = maximize(input, &elements, parser.as_ref(), options.insert, &tester);
        result.input = build_pieces(input, &elements, &pieces);
        result.repaired = passes;
        result.budget_exhausted = exhausted;
        result.removed = removed_parts(input, &elements, &kept);
        result.inserted = inserted_parts(input, &elements, &pieces);
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

/// One piece of a candidate: an element of the input, or bytes a repair inserted.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Elem(usize),
    Ins(Vec<u8>),
}

/// The bytes of `pieces`, in order.
fn build_pieces(input: &[u8], elements: &[Range<usize>], pieces: &[Piece]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in pieces {
        match p {
            Piece::Elem(i) => out.extend_from_slice(&input[elements[*i].clone()]),
            Piece::Ins(b) => out.extend_from_slice(b),
        }
    }
    out
}

/// The insertions among `pieces`, each at the original offset of the next kept element.
fn inserted_parts(input: &[u8], elements: &[Range<usize>], pieces: &[Piece]) -> Vec<Inserted> {
    let mut out: Vec<Inserted> = Vec::new();
    for (j, p) in pieces.iter().enumerate() {
        if let Piece::Ins(bytes) = p {
            let offset = pieces[j..]
                .iter()
                .find_map(|q| match q {
                    Piece::Elem(i) => Some(elements[*i].start),
                    Piece::Ins(_) => None,
                })
                .unwrap_or(input.len());
            match out.last_mut() {
                Some(last) if last.offset == offset => last.bytes.extend_from_slice(bytes),
                _ => out.push(Inserted {
                    offset,
                    bytes: bytes.clone(),
                }),
            }
        }
    }
    out
}

/// ddmax over `elements`, started where the grammar finds the errors. With a parser,
/// [`error_first`] removes the smallest windows of elements around each parse error until the
/// grammar accepts the rest (with `insert`, a window may be replaced by, or nothing removed for,
/// a string the grammar expects there); if the program passes that too, ddmax only has to grow
/// it by the removed elements (the paper's `ddmax2(C', n)` with a large `C'`), which takes a few
/// runs per removed element instead of a search from the empty input, and which cannot end in a
/// small local maximum such as a lone JSON string found by "increase to subset". If that start
/// does not pass, the recovering parse's own deletions are tried as a start (the error tokens
/// removed); then, or without a parser, plain ddmax over all elements. Either way the result is
/// 1-maximal over the removed elements (budget allowing), the insertions held in place.
/// Returns the pieces of the result (kept elements and insertions, in order) and the ddmax
/// outcome (kept elements by index).
fn maximize(
    input: &[u8],
    elements: &[Range<usize>],
    parser: Option<&Parser>,
    insert: bool,
    tester: &Tester<'_>,
) -> (Vec<Piece>, Maximized) {
    let whole = |sub: &[&Range<usize>]| -> Vec<u8> { sub.iter().flat_map(|r| &input[(*r).clone()]).copied().collect() };
    let plain = |m: Maximized| (m.kept.iter().map(|&i| Piece::Elem(i)).collect(), m);
    let Some(parser) = parser else {
        return plain(ddmax(elements, tester, &whole));
    };
    let stop = || tester.stopped();
    // When fixing errors one by one runs into a dead end (a window that got past one error but
    // made a worse one, such as a quote that now opens a string running to the end of the
    // line), the single-error reading is tried: one window after which the grammar accepts all.
    // Insertions first (they keep the most of the input), then the paper's deletions only.
    let mut tried: Vec<Vec<Piece>> = Vec::new();
    let passes_alone = |pieces: &[Piece]| tester.test(&build_pieces(input, elements, pieces)) == Outcome::Pass;
    let modes: &[(bool, bool)] = if insert {
        &[(true, false), (true, true), (false, false), (false, true)]
    } else {
        &[(false, false), (false, true)]
    };
    for &(ins, whole_only) in modes {
        if tester.stopped() {
            break;
        }
        let Some(start) = error_first(
            parser,
            input,
            elements,
            Fix {
                whole: whole_only,
                insert: ins,
            },
            &stop,
        ) else {
            continue;
        };
        if tried.contains(&start) {
            continue;
        }
        let ok = passes_alone(&start);
        if tester.exhausted() {
            break;
        }
        if ok {
            return grow(input, elements, start, tester);
        }
        tried.push(start);
    }
    if tester.exhausted() {
        return spent();
    }
    // The recovering parse's own deletions: every element that overlaps none of its errors.
    let errors = parser.parse_recovering(input).1;
    let clean: Vec<Piece> = (0..elements.len())
        .filter(|&i| {
            !errors
                .iter()
                .any(|e| e.offset < elements[i].end && elements[i].start < e.offset + e.len)
        })
        .map(Piece::Elem)
        .collect();
    if !errors.is_empty()
        && !tried.contains(&clean)
        && parser.recognize(&build_pieces(input, elements, &clean)).is_ok()
        && passes_alone(&clean)
        && !tester.exhausted()
    {
        return grow(input, elements, clean, tester);
    }
    if tester.exhausted() {
        return spent();
    }
    // The program is stricter than the grammar here, or no start was found: search from scratch.
    plain(ddmax(elements, tester, &whole))
}

/// What [`maximize`] returns once the budget is spent: a spent budget answers Pass without a
/// run, so nothing is known to pass.
fn spent() -> (Vec<Piece>, Maximized) {
    let nothing = Maximized {
        kept: Vec::new(),
        passes: false,
        exhausted: true,
    };
    (Vec::new(), nothing)
}

/// ddmax over the elements `start` (which passes) lacks, each configuration joined with
/// `start`: its pieces and the outcome, with `kept` the kept elements of the whole input.
fn grow(input: &[u8], elements: &[Range<usize>], start: Vec<Piece>, tester: &Tester<'_>) -> (Vec<Piece>, Maximized) {
    let in_start: Vec<usize> = start
        .iter()
        .filter_map(|p| match p {
            Piece::Elem(i) => Some(*i),
            Piece::Ins(_) => None,
        })
        .collect();
    let removed: Vec<usize> = complement(elements.len(), &in_start);
    // Every piece of `start` gets a sort key: an element its index, an insertion the index of
    // the next element of `start` (before which it stays); put-back elements go by index.
    let mut anchored: Vec<((usize, u8, usize), Piece)> = Vec::with_capacity(start.len());
    let mut next = elements.len();
    for (seq, p) in start.into_iter().enumerate().rev() {
        let key = match &p {
            Piece::Elem(i) => {
                next = *i;
                (*i, 1, seq)
            }
            Piece::Ins(_) => (next, 0, seq),
        };
        anchored.push((key, p));
    }
    anchored.reverse();
    let with = |sub: &mut dyn Iterator<Item = usize>| -> Vec<Piece> {
        let mut all: Vec<((usize, u8, usize), Piece)> = anchored.clone();
        all.extend(sub.map(|i| ((i, 1, 0), Piece::Elem(i))));
        all.sort_by_key(|(k, _)| *k);
        all.into_iter().map(|(_, p)| p).collect()
    };
    let build_grown =
        |sub: &[&usize]| -> Vec<u8> { build_pieces(input, elements, &with(&mut sub.iter().map(|&&i| removed[i]))) };
    let grown = ddmax(&(0..removed.len()).collect::<Vec<_>>(), tester, &build_grown);
    let pieces = with(&mut grown.kept.iter().map(|&j| removed[j]));
    let mut kept = in_start;
    kept.extend(grown.kept.iter().map(|&j| removed[j]));
    kept.sort_unstable();
    (
        pieces,
        Maximized {
            kept,
            passes: true,
            exhausted: grown.exhausted,
        },
    )
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

/// An insertion gets past an error only when the parse then reads at least this many more
/// non-blank bytes of the input (or accepts it): an inserted quote turns what follows into a
/// string, which reads on a few bytes before the parse fails again.
const INSERT_MARGIN: usize = 16;
/// At the end of the input, [`complete_end`] tries strings of up to this many expected
/// terminals (`[1, {"b": 2` needs `}]`), at most [`END_NODES`] of them.
const END_DEPTH: usize = 3;
/// See [`END_DEPTH`].
const END_NODES: usize = 64;

/// What [`error_first`] may do at a parse error.
#[derive(Clone, Copy)]
struct Fix {
    /// Only edits after which the grammar accepts the whole candidate count: one round.
    whole: bool,
    /// Edits may insert the cheapest string of an expected terminal ([`RepairOptions::insert`]).
    insert: bool,
}

/// A starting configuration for ddmax: the pieces left after editing, error by error, the
/// smallest window of elements around where the grammar's parse fails (smallest in bytes; a
/// window covering the failing element before one after it, before one before it; nearer first)
/// after which the parse accepts the input, or gets past the error by [`MARGIN`] non-blank bytes
/// and fails elsewhere than at the end of the input (reaching the end is how a removed closing
/// quote turns the rest of the input into a string: taken only if nothing else works). With
/// [`Fix::insert`], an edit may also insert, at the failing element or in place of it, the
/// cheapest string of a terminal the grammar expects there (it must get past by
/// [`INSERT_MARGIN`]), and at the end of the input a short sequence of them ([`complete_end`]).
/// `None` when an error has no such edit or the grammar work (bytes parsed, proportional to the
/// input) runs out. Costs parses, not program runs.
///
/// With [`Fix::whole`], an edit counts only if the grammar then accepts the input: one round.
/// `stop` is asked before every parse (a Ctrl-C or the time limit ends the search: `None`).
fn error_first(
    parser: &Parser,
    input: &[u8],
    elements: &[Range<usize>],
    fix: Fix,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<Piece>> {
    let mut pieces: Vec<Piece> = (0..elements.len()).map(Piece::Elem).collect();
    let mut budget = 64 * input.len() + (4 << 20);
    for _ in 0..MAX_ROUNDS {
        let cand = build_pieces(input, elements, &pieces);
        // starts[i]: offset in `cand` of piece i; starts[m] = cand.len().
        let mut starts = Vec::with_capacity(pieces.len() + 1);
        let mut at = 0;
        for p in &pieces {
            starts.push(at);
            at += match p {
                Piece::Elem(i) => elements[*i].len(),
                Piece::Ins(b) => b.len(),
            };
        }
        starts.push(at);
        budget = budget.checked_sub(cand.len())?;
        if stop() {
            return None;
        }
        let Some((k, expected)) = parser.expected_terminals(&cand) else {
            return Some(pieces);
        };
        let k = k.min(cand.len());
        let inserts = if fix.insert {
            expected_strings(parser.grammar(), &expected)
        } else {
            Vec::new()
        };
        if fix.insert && k >= cand.len() {
            if let Some(tail) = complete_end(parser, &cand, &inserts, &mut budget, stop) {
                pieces.push(Piece::Ins(tail));
                continue;
            }
        }
        let at = ErrorAt {
            parser,
            cand: &cand,
            starts: &starts,
            k,
            whole: fix.whole,
            solid: &[],
            stop,
            inserts: &inserts,
        };
        let (a, b, ins) = fix_window(&at, &mut budget)?;
        let replacement = ins.map(|i| Piece::Ins(inserts[i].clone()));
        pieces.splice(a..b, replacement);
    }
    None
}

/// The cheapest string of each terminal in `expected` (a literal's bytes, a class's first
/// member), shortest first, without repeats.
fn expected_strings(grammar: &Grammar, expected: &[TerminalId]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for &t in expected {
        if t == TerminalId::ERROR || t.index() >= grammar.terminals().len() {
            continue;
        }
        let bytes = match grammar.terminal(t) {
            Terminal::Literal(b) => b.clone(),
            Terminal::Class { class, .. } => match class.representative() {
                Some(c) => c.to_string().into_bytes(),
                None => continue,
            },
        };
        if !bytes.is_empty() && !out.contains(&bytes) {
            out.push(bytes);
        }
    }
    out.sort_by_key(Vec::len);
    out
}

/// The shortest string of up to [`END_DEPTH`] expected terminals (breadth first, `first` being
/// those expected at the end of `cand`) after which the grammar accepts `cand`, if one is found
/// within [`END_NODES`] parses: the cheapest completion of a truncated input.
fn complete_end(
    parser: &Parser,
    cand: &[u8],
    first: &[Vec<u8>],
    budget: &mut usize,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<u8>> {
    let mut queue: std::collections::VecDeque<(Vec<u8>, usize)> = first.iter().map(|s| (s.clone(), 1)).collect();
    let mut text = cand.to_vec();
    for _ in 0..END_NODES {
        let (tail, depth) = queue.pop_front()?;
        if stop() {
            return None;
        }
        text.truncate(cand.len());
        text.extend_from_slice(&tail);
        *budget = budget.checked_sub(text.len())?;
        match parser.expected_terminals(&text) {
            None => return Some(tail),
            Some((k, expected)) if k >= text.len() && depth < END_DEPTH => {
                for s in expected_strings(parser.grammar(), &expected) {
                    let mut longer = tail.clone();
                    longer.extend_from_slice(&s);
                    queue.push_back((longer, depth + 1));
                }
            }
            Some(_) => {}
        }
    }
    None
}

/// The length of the longest common subsequence of two short strings.
fn common(a: &[u8], b: &[u8]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for &x in a {
        let mut diag = 0;
        for (j, &y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
            diag = up;
        }
    }
    row[b.len()]
}

/// A candidate edit of [`fix_window`]: (bytes lost, class, distance, a, b, insertion) where
/// the window `[a, b)` of pieces is removed and, if `insertion > 0`, `inserts[insertion - 1]`
/// goes in its place; sorted, the cheapest comes first. Bytes lost: those removed, less those
/// the insertion gives back (as a common subsequence).
type Window = (usize, u8, usize, usize, usize, usize);

/// The edit `[a, b)` of pieces (by their `starts` in `cand`), with the insertion that replaces
/// it, if any, that [`error_first`] makes for the parse error at byte `at.k` of `at.cand`.
fn fix_window(at: &ErrorAt<'_>, budget: &mut usize) -> Option<(usize, usize, Option<usize>)> {
    let (cand, starts, k) = (at.cand, at.starts, at.k);
    let m = starts.len() - 1;
    // The piece holding byte k (m at the end of the input).
    let p = starts.partition_point(|&s| s <= k).saturating_sub(1).min(m);
    let p = if k >= cand.len() { m } else { p };
    let bytes = |a: usize, b: usize| starts[b] - starts[a];
    // Non-blank bytes of cand before each offset.
    let mut solid = Vec::with_capacity(cand.len() + 1);
    solid.push(0usize);
    for &c in cand {
        solid.push(solid.last().copied().unwrap_or(0) + usize::from(!c.is_ascii_whitespace()));
    }
    // Whether piece i has a non-blank byte: wide windows start and end at such pieces.
    let is_solid = |i: usize| solid[starts[i + 1]] > solid[starts[i]];
    // Widths up to MAX_WINDOW pieces first, all of them; then, while none works, covering
    // windows twice as wide, up to 8 times (a corrupted closing quote can leave a long
    // string's worth of tokens to remove).
    let mut width = MAX_WINDOW;
    let mut narrower = 0;
    let mut fallback = None;
    loop {
        let mut windows: Vec<Window> = Vec::new();
        if p < m {
            for a in p.saturating_sub(width - 1)..=p {
                if narrower > 0 && !is_solid(a) {
                    continue;
                }
                for b in (p + 1).max(a + narrower + 1)..=(a + width).min(m) {
                    if narrower == 0 || is_solid(b - 1) {
                        windows.push((bytes(a, b), 0, p - a, a, b, 0));
                    }
                }
            }
        }
        if narrower == 0 {
            if p < m {
                for a in p + 1..(p + 1 + NEAR).min(m) {
                    for b in a + 1..=(a + width).min(m) {
                        windows.push((bytes(a, b), 1, a - p, a, b, 0));
                    }
                }
            }
            for b in p.saturating_sub(NEAR).max(1)..=p {
                for a in b.saturating_sub(width)..b {
                    windows.push((bytes(a, b), 2, p - b, a, b, 0));
                }
            }
            // Insertions: before the failing piece, after it, or in place of it and of up to as
            // many pieces as the string has bytes (bytes `rue` or the token `nul` by `true`).
            // Before the blanks in front of the failing piece first: `"price": 3.45`, not
            // `"price" :3.45`.
            let mut q = p;
            while q > 0 && !is_solid(q - 1) {
                q -= 1;
            }
            for (i, s) in at.inserts.iter().enumerate() {
                windows.push((0, 0, 0, p, p, i + 1));
                if q < p {
                    windows.push((0, 0, 0, q, q, i + 1));
                }
                if p < m {
                    windows.push((0, 1, 1, p + 1, p + 1, i + 1));
                }
                for b in p + 1..=(p + s.len()).min(m) {
                    // Bytes lost: those removed that the string does not give back.
                    let lost = bytes(p, b) - common(&cand[starts[p]..starts[b]], s);
                    windows.push((lost, 0, 0, p, b, i + 1));
                }
            }
        }
        windows.sort_unstable();
        let at = ErrorAt { solid: &solid, ..*at };
        if let Some(found) = first_fix(&at, &windows, budget, &mut fallback)? {
            return Some(found);
        }
        if width >= MAX_WINDOW << 3 || width >= m {
            return fallback.map(|(a, b)| (a, b, None));
        }
        narrower = width;
        width *= 2;
    }
}

/// A parse error of an [`error_first`] round: the candidate, its pieces' offsets, the error
/// offset and the non-blank bytes before each offset.
#[derive(Clone, Copy)]
struct ErrorAt<'a> {
    parser: &'a Parser,
    cand: &'a [u8],
    starts: &'a [usize],
    k: usize,
    /// Only edits after which the grammar accepts the whole candidate count.
    whole: bool,
    solid: &'a [usize],
    /// Asked before each parse: stop the search.
    stop: &'a dyn Fn() -> bool,
    /// The strings an edit may insert (the cheapest of each expected terminal).
    inserts: &'a [Vec<u8>],
}

/// The first of `windows` that fixes the error at `k` for [`fix_window`], else `Some(None)`
/// (`fallback` is then the first deletion whose parse only fails at the end of the input, if it
/// was `None`); `None` when the budget runs out.
fn first_fix(
    at: &ErrorAt<'_>,
    windows: &[Window],
    budget: &mut usize,
    fallback: &mut Option<(usize, usize)>,
) -> Option<Option<(usize, usize, Option<usize>)>> {
    let ErrorAt {
        parser,
        cand,
        starts,
        k,
        whole,
        solid,
        stop,
        inserts,
    } = *at;
    let mut without = Vec::with_capacity(cand.len());
    // Deletions that leave the parse failing at the end get a completion search each (of up
    // to END_NODES parses), the first few of them.
    let mut completions = 4usize;
    for &(_, _, _, a, b, ins) in windows {
        if stop() {
            return None;
        }
        let (sa, sb) = (starts[a], starts[b]);
        let cut = sb - sa;
        let inserted: &[u8] = if ins > 0 { &inserts[ins - 1] } else { &[] };
        let il = inserted.len();
        without.clear();
        without.extend_from_slice(&cand[..sa]);
        without.extend_from_slice(inserted);
        without.extend_from_slice(&cand[sb..]);
        // Where reading resumes after the window or after k, in `cand` offsets.
        let from = sb.max(k);
        let solid_from = solid[from];
        // How far the parse must then get: a wide window must be paid for by as much progress
        // (else removing a string's closing quote and what follows up to another quote would
        // count: the parse runs on inside a string that now ends elsewhere); an insertion by
        // INSERT_MARGIN.
        let margin = if ins > 0 { INSERT_MARGIN } else { MARGIN };
        let need = margin.max(solid[sb] - solid[sa]);
        // Past the error by `need` non-blank bytes at byte `f` of `without`? (Inside the
        // inserted bytes is no progress.)
        let past = |f: usize| {
            let f = if f < sa + il { f.min(sa) } else { f - il + cut };
            !whole && f > from && solid[f] - solid_from >= need
        };
        // A prefix that ends just after `need` + 1 more non-blank bytes tells most windows
        // apart (the parse fails before its end) for a fraction of a full parse.
        let end = solid.partition_point(|&n| n < solid_from + need + 1).min(cand.len());
        if end < cand.len() {
            let prefix = &without[..end - cut + il];
            *budget = budget.checked_sub(prefix.len())?;
            if let Err(e) = parser.recognize(prefix) {
                if e.offset < prefix.len() && !past(e.offset) {
                    continue;
                }
            }
        }
        *budget = budget.checked_sub(without.len())?;
        let found = Some(Some((a, b, (ins > 0).then(|| ins - 1))));
        match parser.expected_terminals(&without) {
            None => return found,
            Some((f, _)) if f < without.len() && past(f) => return found,
            // Past the error up to the end of the input, which the next round completes (`�[`
            // of a flipped `[]`: removing `�` leaves `[`, which `]` completes).
            Some((f, expected))
                if !inserts.is_empty() && ins == 0 && f >= without.len() && from < cand.len() && completions > 0 =>
            {
                completions -= 1;
                let first = expected_strings(parser.grammar(), &expected);
                if complete_end(parser, &without, &first, budget, stop).is_some() {
                    return found;
                }
                if !whole && fallback.is_none() {
                    *fallback = Some((a, b));
                }
            }
            Some((f, _)) if !whole && ins == 0 && fallback.is_none() && (f >= without.len() && from < cand.len()) => {
                *fallback = Some((a, b));
            }
            Some(_) => {}
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
    tokens_with(input, grammar, tree, errors, true)
}

/// [`tokens`]; without `error_nodes`, short error leaves are lexed too (a repair that may insert
/// needs the tokens of `, "price" 3.45` to put the missing `:` between them).
fn tokens_with(
    input: &[u8],
    grammar: Option<&Grammar>,
    tree: &Tree,
    errors: &[ErrorSpan],
    error_nodes: bool,
) -> Vec<Range<usize>> {
    let error_ranges: Vec<Range<usize>> = errors.iter().map(|e| e.offset..e.offset + e.len).collect();
    let mut out = Vec::new();
    let Some(g) = grammar else {
        for r in &error_ranges {
            lex_damaged(input, r.clone(), &error_ranges, error_nodes, &mut out);
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
                lex_damaged(text, d, &error_ranges, error_nodes, &mut out);
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
        lex_damaged(text, d, &error_ranges, error_nodes, &mut out);
    }
    out
}

/// A lone error leaf up to this long between sound tokens stays one element (the paper's error
/// node): a local deletion of the recovering parse (at most its 32 bytes), not a tail it gave up
/// on, nor the start or end of the input (where the parse failed, it is lexed: `k}` is `k` `}`).
const ERROR_NODE: usize = 32;

/// Appends the tokens of the damaged region `region` of `text`: its generic tokens, each split
/// around the errors that lie wholly inside it; or, with `error_nodes`, the region whole if it is
/// one short error leaf.
fn lex_damaged(
    text: &[u8],
    region: Range<usize>,
    errors: &[Range<usize>],
    error_nodes: bool,
    out: &mut Vec<Range<usize>>,
) {
    if error_nodes
        && region.len() <= ERROR_NODE
        && errors.contains(&region)
        && region.start > 0
        && region.end < text.len()
    {
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
