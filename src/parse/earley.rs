//! The Earley recognizer: builds the chart of dotted items, one set per byte offset.
//!
//! Items are 16 bytes (dotted-item id, origin, predecessor item, split offset). Nullable symbols
//! are handled at prediction time (Aycock–Horspool); tokens may jump ahead many bytes at once.
//! The chart keeps, per set, the first completion of each (symbol, origin): `forest` reads it back.

use rustc_hash::{FxHashMap, FxHashSet};

use super::compile::{match_terminal, Compiled, Next, NONE};
use super::lexical::Lexer;
use crate::grammar::{Grammar, Item, SymbolId, TerminalId};

/// A dotted item in a set. `pred` is the item before the dot moved (same production, dot - 1),
/// `split` the offset where the element just passed over starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EItem {
    pub dot: u32,
    pub origin: u32,
    pub pred: u32,
    pub split: u32,
}

/// The result of recognition.
pub(crate) struct Chart {
    pub items: Vec<EItem>,
    /// First completion of (set, Earley symbol, origin) → item index (origin < set only).
    pub completions: FxHashMap<(u32, u32, u32), u32>,
}

/// Where recognition failed: the furthest offset reached and what was expected there.
pub(crate) struct Failure {
    pub offset: usize,
    pub expected: Vec<TerminalId>,
}

pub(crate) fn recognize(c: &Compiled, g: &Grammar, input: &[u8], lexer: &mut Lexer<'_>) -> Result<Chart, Failure> {
    let n = input.len();
    let mut items: Vec<EItem> = Vec::new();
    let mut completions: FxHashMap<(u32, u32, u32), u32> = FxHashMap::default();
    let mut pending: Vec<Vec<EItem>> = vec![Vec::new(); n + 1];
    // Per finished set: (Earley symbol after the dot, item index), sorted, for completion.
    let mut waiting: Vec<(u32, u32)> = Vec::new();
    let mut waiting_range: Vec<(u32, u32)> = vec![(0, 0); n + 1];
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut predicted = vec![false; c.ekind.len()];
    let mut predicted_list: Vec<u32> = Vec::new();
    let mut token_cache: Vec<(SymbolId, Vec<u32>)> = Vec::new();
    let mut last_nonempty = 0usize;
    let mut accepted = false;

    for i in 0..=n {
        let set_start = items.len();
        seen.clear();
        for e in predicted_list.drain(..) {
            predicted[e as usize] = false;
        }
        token_cache.clear();
        let add = |items: &mut Vec<EItem>, seen: &mut FxHashSet<u64>, it: EItem| {
            if seen.insert(((it.dot as u64) << 32) | it.origin as u64) {
                items.push(it);
            }
        };
        if i == 0 {
            let (b, e) = c.prods_of[c.start as usize];
            for p in b..e {
                add(&mut items, &mut seen, EItem { dot: c.prods[p as usize].dot_base, origin: 0, pred: NONE, split: 0 });
            }
        }
        for it in std::mem::take(&mut pending[i]) {
            add(&mut items, &mut seen, it);
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
                    if lhs == c.start && it.origin == 0 && i == n {
                        accepted = true;
                    }
                    // Empty completions were already advanced over at prediction time.
                    if it.origin == iu {
                        k += 1;
                        continue;
                    }
                    if let std::collections::hash_map::Entry::Vacant(v) = completions.entry((iu, lhs, it.origin)) {
                        v.insert(k as u32);
                        let (wb, we) = waiting_range[it.origin as usize];
                        let slice = &waiting[wb as usize..we as usize];
                        let from = slice.partition_point(|&(e, _)| e < lhs);
                        for &(e, w) in &slice[from..] {
                            if e != lhs {
                                break;
                            }
                            let wi = items[w as usize];
                            add(&mut items, &mut seen, EItem { dot: wi.dot + 1, origin: wi.origin, pred: w, split: it.origin });
                        }
                    }
                }
                Next::Nt { esym, nullable } => {
                    if !predicted[esym as usize] {
                        predicted[esym as usize] = true;
                        predicted_list.push(esym);
                        let (b, e) = c.prods_of[esym as usize];
                        for p in b..e {
                            add(&mut items, &mut seen, EItem { dot: c.prods[p as usize].dot_base, origin: iu, pred: NONE, split: iu });
                        }
                    }
                    if nullable {
                        add(&mut items, &mut seen, EItem { dot: it.dot + 1, origin: it.origin, pred: k as u32, split: iu });
                    }
                }
                Next::Term(t) => match match_terminal(g.terminal(t), &input[i..]) {
                    Some(len) => pending[i + len].push(EItem { dot: it.dot + 1, origin: it.origin, pred: k as u32, split: iu }),
                    None => lexer.note_failure(t, i),
                },
                Next::Token(sym) => {
                    let at = match token_cache.iter().position(|(s, _)| *s == sym) {
                        Some(at) => at,
                        None => {
                            let mut ends = Vec::new();
                            lexer.ends(Item::Symbol(sym), iu, &mut ends);
                            ends.sort_unstable();
                            ends.dedup();
                            token_cache.push((sym, ends));
                            token_cache.len() - 1
                        }
                    };
                    let advanced = EItem { dot: it.dot + 1, origin: it.origin, pred: k as u32, split: iu };
                    for &e in &token_cache[at].1 {
                        if e == iu {
                            add(&mut items, &mut seen, advanced);
                        } else {
                            pending[e as usize].push(advanced);
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

    if accepted {
        return Ok(Chart { items, completions });
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
