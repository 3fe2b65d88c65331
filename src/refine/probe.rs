//! Probes: the samples, each with one optional part they never fill put in, judged once before
//! the rounds. The accepted ones show the language where the samples are silent.
//!
//! Twenty samples of a language leave most of its optional parts empty: none of Rust's
//! samples ends a list of two parameters or arguments with a `,`, none has `let … else`. The
//! rounds' generated inputs rarely put such a part where it is valid (default inputs follow
//! the samples; inverted ones put every unseen part in at once, and are rejected for others),
//! so an edit made for a culprit elsewhere could rule the part out everywhere, and nothing
//! objected: Rust's trailing `,` after two arguments went three ways, one edit at a time,
//! and with it a quarter of the held-out files. A probe that the command accepts is kept with
//! the known inputs, and an edit that loses it is refused.

use std::collections::{HashMap, HashSet};

use super::isolate::{self, Good};
use super::{place_of, with_count, Facts, Judge, Place};
use crate::grammar::{Grammar, SymbolId};
use crate::tree::{NodeId, NodeKind, Tree};

/// Sample contexts a part is probed in, each from another sample where the samples have its
/// place in more than one: a part may be valid in one and not another for what is around it.
const CONTEXTS: usize = 2;

/// Probes judged at most, spread over the parts (each part's first context before any second):
/// a probe costs a run or two of the command (Rust's twenty samples give 151 probes).
const MAX_PROBES: usize = 600;

/// Longest sample a part is probed in: the command reads the whole probe, and a small context
/// shows the part as well as a large one.
const MAX_CONTEXT: usize = 16 * 1024;

/// The probes of `g`'s optional parts and repetitions that none of the samples (`trees`, their
/// derivations) fills at their place, layout aside (its places are probed by the rounds), that
/// the command accepts and reads to the end: each a sample with that one part filled, by a
/// samples' part of its item where they have one, else by the item's cheapest derivation.
pub(crate) fn accepted_probes(g: &Grammar, trees: &[Tree], judge: &Judge<'_>, jobs: usize) -> Vec<Vec<u8>> {
    let candidates = candidates(g, trees);
    let verdicts = crate::pool::map(&candidates, jobs, |_, input| {
        let verdict = judge.verdict(input);
        judge.read_to_end(input, &verdict)
    });
    candidates
        .into_iter()
        .zip(verdicts)
        .filter_map(|(input, ok)| ok.then_some(input))
        .collect()
}

/// The probes to judge, at most [`MAX_PROBES`], distinct, each part's first context first.
fn candidates(g: &Grammar, trees: &[Tree]) -> Vec<Vec<u8>> {
    let facts = Facts::new(g, trees);
    let good = Good::new(g, trees);
    let layout = g.layout_parts().0;
    // Per part, the samples' nodes where it is empty, one per sample, up to CONTEXTS.
    let mut spots: HashMap<(SymbolId, Place), Vec<(usize, NodeId)>> = HashMap::new();
    let mut order: Vec<(SymbolId, Place)> = Vec::new();
    for (i, tree) in trees.iter().enumerate() {
        if tree.len_of(tree.root()) > MAX_CONTEXT {
            continue;
        }
        tree.pre_order(tree.root(), |n| {
            let (NodeKind::Repeat { symbol } | NodeKind::Optional { symbol }) = tree.kind(n) else {
                return;
            };
            if tree.child_count(n) > 0 || layout[symbol.index()] {
                return;
            }
            let Some(place) = place_of(g, tree, n) else {
                return;
            };
            if facts
                .iterations
                .get(&(symbol, Some(place)))
                .is_some_and(|&(_, most)| most > 0)
            {
                return;
            }
            let list = spots.entry((symbol, place)).or_insert_with(|| {
                order.push((symbol, place));
                Vec::new()
            });
            if list.len() < CONTEXTS && list.iter().all(|&(t, _)| t != i) {
                list.push((i, n));
            }
        });
    }
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut out = Vec::new();
    for k in 0..CONTEXTS {
        for key in &order {
            if out.len() >= MAX_PROBES {
                return out;
            }
            let Some(&(t, n)) = spots[key].get(k) else {
                continue;
            };
            if let Some(text) = filled(g, &trees[t], n, &good) {
                if seen.insert(text.clone()) {
                    out.push(text);
                }
            }
        }
    }
    out
}

/// `tree` with the empty optional part or repetition `node` holding one item: a samples' part
/// of the item where they have one, else its cheapest derivation.
fn filled(g: &Grammar, tree: &Tree, node: NodeId, good: &Good<'_>) -> Option<Vec<u8>> {
    let cheapest = with_count(g, tree, node, 1)?;
    let item = cheapest.children(node).next()?;
    let t = isolate::with_sample_part(g, &cheapest, item, good, 0).unwrap_or(cheapest);
    Some(t.unparse())
}
