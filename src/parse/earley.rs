//! The Earley recognizer: builds the chart of dotted items, one set per byte offset.
//!
//! Items are 20 bytes (dotted-item id, origin, predecessor item, split offset, completed child).
//! Nullable symbols are handled at prediction time (Aycock–Horspool); tokens may jump ahead many
//! bytes at once. Each item remembers the first way it was derived, which `forest` follows back.

use std::collections::BinaryHeap;

use rustc_hash::FxHashSet;

use super::compile::{match_terminal, Compiled, Next, NONE};
use super::lexical::Lexer;
use crate::grammar::{Grammar, TerminalId};

/// A dotted item in a set. `pred` is the item before the dot moved (same production, dot - 1),
/// `split` the offset where the element just passed over starts, and `child` the completed item
/// of that element when it is a nonterminal with a non-empty span (else NONE).
///
/// Invariant (what makes reading a tree back well-founded): `pred` and `child` were added to the
/// chart before this item, and only the first derivation of an item is kept.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EItem {
    pub dot: u32,
    pub origin: u32,
    pub pred: u32,
    pub split: u32,
    pub child: u32,
}

/// The result of recognition: every item, and the completed start item.
pub(crate) struct Chart<'s> {
    pub items: &'s [EItem],
    pub accept: u32,
}

/// The chart's buffers, kept by the parser between parses: on large inputs, fresh memory
/// (the kernel zeroing its pages) costs more than filling it.
#[derive(Default)]
pub(crate) struct Scratch {
    items: Vec<EItem>,
    waiting: Vec<(u32, u32)>,
}

impl Scratch {
    /// Buffers beyond this many items are not kept (a parser should not hold on to gigabytes).
    const KEEP_ITEMS: usize = 8 << 20;

    /// Whether these buffers are worth keeping for the next parse.
    pub fn worth_keeping(&self) -> bool {
        self.items.capacity() <= Self::KEEP_ITEMS
    }
}

/// An item waiting for the set at `target`. Ordered so that the heap pops the smallest target
/// first, and items of one target in the order they were scanned (which keeps results stable).
struct Pending {
    target: u32,
    seq: u64,
    item: EItem,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.target, self.seq) == (other.target, other.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.target, other.seq).cmp(&(self.target, self.seq))
    }
}

/// Sets up to this size are deduplicated by a linear scan; larger ones by a hash set.
const SMALL_SET: usize = 24;

/// Adds `it` to the current set (which starts at `set_start`) unless an item with the same dot
/// and origin is already there.
#[inline]
fn add(items: &mut Vec<EItem>, seen: &mut FxHashSet<u64>, set_start: usize, it: EItem) {
    let key = ((it.dot as u64) << 32) | it.origin as u64;
    let size = items.len() - set_start;
    if size < SMALL_SET {
        if items[set_start..]
            .iter()
            .any(|x| x.dot == it.dot && x.origin == it.origin)
        {
            return;
        }
    } else {
        if size == SMALL_SET {
            seen.extend(
                items[set_start..]
                    .iter()
                    .map(|x| ((x.dot as u64) << 32) | x.origin as u64),
            );
        }
        if !seen.insert(key) {
            return;
        }
    }
    items.push(it);
}

/// Adds to the current set (at offset `at`) the start item of every production of `esym`.
/// `next` is the byte at `at` when prediction may look ahead (`None` at the end of the input):
/// productions that cannot match there are skipped. Without lookahead, `look` is false.
#[allow(clippy::too_many_arguments)]
fn predict(
    c: &Compiled,
    esym: u32,
    at: u32,
    look: bool,
    next: Option<u8>,
    items: &mut Vec<EItem>,
    seen: &mut FxHashSet<u64>,
    set_start: usize,
) {
    let (b, e) = c.prods_of[esym as usize];
    for p in b..e {
        if look && !c.prod_nullable[p as usize] && !next.is_some_and(|byte| c.prod_first[p as usize].contains(byte)) {
            continue;
        }
        let dot = c.prods[p as usize].dot_base;
        add(
            items,
            seen,
            set_start,
            EItem {
                dot,
                origin: at,
                pred: NONE,
                split: at,
                child: NONE,
            },
        );
    }
}

/// Where recognition failed: the furthest offset reached and what was expected there.
pub(crate) struct Failure {
    pub offset: usize,
    pub expected: Vec<TerminalId>,
}

pub(crate) fn recognize<'s>(
    c: &Compiled,
    g: &Grammar,
    input: &[u8],
    lexer: &mut Lexer<'_>,
    scratch: &'s mut Scratch,
) -> Result<Chart<'s>, Failure> {
    let n = input.len();
    // JSON-like inputs make about three items per input byte (measured: 3.0 M for 1 MB);
    // reserving that avoids regrowing, which copies and touches the whole chart again.
    let items = &mut scratch.items;
    items.clear();
    items.reserve(3 * n + 64);
    // Items scanned ahead (terminals and tokens end past the current set), by target offset.
    let mut pending: BinaryHeap<Pending> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut scan_ahead = |pending: &mut BinaryHeap<Pending>, target: u32, item: EItem| {
        seq += 1;
        pending.push(Pending { target, seq, item });
    };
    // Per finished set: (Earley symbol after the dot, item index), sorted, for completion.
    let waiting = &mut scratch.waiting;
    waiting.clear();
    waiting.reserve(n + 64);
    let mut waiting_range: Vec<(u32, u32)> = vec![(0, 0); n + 1];
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut predicted = vec![false; c.ekind.len()];
    let mut predicted_list: Vec<u32> = Vec::new();
    // Ends of each token tried in the current set, by symbol: (set, range in `token_ends`); an
    // entry of another set is stale. Indexed, as big grammars try dozens of tokens per set.
    let mut token_cache: Vec<(u32, u32, u32)> = vec![(NONE, 0, 0); g.symbols().len()];
    let mut token_ends: Vec<u32> = Vec::new();
    let mut last_nonempty = 0usize;
    let mut accept = NONE;

    for i in 0..=n {
        let set_start = items.len();
        seen.clear();
        for e in predicted_list.drain(..) {
            predicted[e as usize] = false;
        }
        token_ends.clear();
        if i == 0 {
            predict(
                c,
                c.start,
                0,
                lexer.lookahead,
                input.first().copied(),
                items,
                &mut seen,
                set_start,
            );
        }
        while pending.peek().is_some_and(|p| p.target == i as u32) {
            let p = pending.pop().expect("peeked");
            add(items, &mut seen, set_start, p.item);
        }
        if items.len() == set_start {
            continue;
        }
        last_nonempty = i;
        let iu = i as u32;
        let mut k = set_start;
        while k < items.len() {
            let it = items[k];
            match c.dot_next[it.dot as usize] {
                Next::End => {
                    let lhs = c.prods[c.dot_prod[it.dot as usize] as usize].lhs;
                    if lhs == c.start && it.origin == 0 && i == n && accept == NONE {
                        accept = k as u32;
                    }
                    // Empty completions were already advanced over at prediction time. Later
                    // completions of the same (symbol, origin) only re-derive items `add` drops.
                    if it.origin != iu {
                        let (wb, we) = waiting_range[it.origin as usize];
                        let slice = &waiting[wb as usize..we as usize];
                        let from = slice.partition_point(|&(e, _)| e < lhs);
                        for &(e, w) in &slice[from..] {
                            if e != lhs {
                                break;
                            }
                            let wi = items[w as usize];
                            add(
                                items,
                                &mut seen,
                                set_start,
                                EItem {
                                    dot: wi.dot + 1,
                                    origin: wi.origin,
                                    pred: w,
                                    split: it.origin,
                                    child: k as u32,
                                },
                            );
                        }
                    }
                }
                Next::Nt { esym, nullable } => {
                    if !predicted[esym as usize] {
                        predicted[esym as usize] = true;
                        predicted_list.push(esym);
                        predict(
                            c,
                            esym,
                            iu,
                            lexer.lookahead,
                            input.get(iu as usize).copied(),
                            items,
                            &mut seen,
                            set_start,
                        );
                    }
                    if nullable {
                        add(
                            items,
                            &mut seen,
                            set_start,
                            EItem {
                                dot: it.dot + 1,
                                origin: it.origin,
                                pred: k as u32,
                                split: iu,
                                child: NONE,
                            },
                        );
                    }
                }
                Next::Term(t) => match match_terminal(g.terminal(t), &input[i..]) {
                    Some(len) if c.dot_keyword[it.dot as usize] && lexer.word_cut(i, i + len) => lexer.failed(t, i),
                    Some(len) => scan_ahead(
                        &mut pending,
                        (i + len) as u32,
                        EItem {
                            dot: it.dot + 1,
                            origin: it.origin,
                            pred: k as u32,
                            split: iu,
                            child: NONE,
                        },
                    ),
                    None => lexer.failed(t, i),
                },
                Next::Token(sym) => {
                    let (from, to) = match token_cache[sym.index()] {
                        (set, from, to) if set == i as u32 => (from, to),
                        _ => {
                            let from = token_ends.len();
                            lexer.token_ends(sym, iu, &mut token_ends);
                            token_ends[from..].sort_unstable();
                            let mut kept = from;
                            for r in from..token_ends.len() {
                                if r == from || token_ends[r] != token_ends[kept - 1] {
                                    token_ends[kept] = token_ends[r];
                                    kept += 1;
                                }
                            }
                            token_ends.truncate(kept);
                            token_cache[sym.index()] = (i as u32, from as u32, kept as u32);
                            (from as u32, kept as u32)
                        }
                    };
                    let advanced = EItem {
                        dot: it.dot + 1,
                        origin: it.origin,
                        pred: k as u32,
                        split: iu,
                        child: NONE,
                    };
                    let check_word = c.dot_keyword[it.dot as usize];
                    for &e in &token_ends[from as usize..to as usize] {
                        if check_word && lexer.word_cut(i, e as usize) {
                            continue;
                        }
                        if e == iu {
                            add(items, &mut seen, set_start, advanced);
                        } else {
                            scan_ahead(&mut pending, e, advanced);
                        }
                    }
                }
            }
            k += 1;
        }
        // Index this set's items by the nonterminal they wait for, for later completions.
        let wb = waiting.len() as u32;
        for (idx, it) in items.iter().enumerate().skip(set_start) {
            if let Next::Nt { esym, .. } = c.dot_next[it.dot as usize] {
                waiting.push((esym, idx as u32));
            }
        }
        waiting[wb as usize..].sort_unstable();
        waiting_range[i] = (wb, waiting.len() as u32);
    }

    if accept != NONE {
        return Ok(Chart {
            items: &scratch.items,
            accept,
        });
    }
    // Every failed terminal test, in Earley sets or inside tokens, went through the lexer's
    // failure tracking; if the last live set lies beyond it, nothing more was expected there.
    let (mut offset, mut expected) = (lexer.furthest, std::mem::take(&mut lexer.expected));
    if last_nonempty > offset {
        offset = last_nonempty;
        expected.clear();
    }
    expected.sort_unstable();
    expected.dedup();
    Err(Failure { offset, expected })
}
