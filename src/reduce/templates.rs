//! Transformation templates (GTR paper, Definition 4.1): for a node, the candidate edits.
//!
//! Plain templates work on any [`ReducibleTree`] (Alg. 1 deletion, Alg. 2 substitute-by-child),
//! optionally specialized by a corpus-learned [`CorpusFilter`] (Alg. 3). Grammar templates work
//! on derivation trees and offer only what the grammar allows, plus cheapest-derivation replacement.

use super::corpus::CorpusFilter;
use super::derivation::Derivation;
use super::labeled::{Edit, Edits, ReducibleTree};
use crate::grammar::{Body, Item, SymbolId};
use crate::tree::{NodeId, NodeKind};

/// A transformation template.
pub trait Template<T: ReducibleTree> {
    /// For messages and statistics.
    fn name(&self) -> &'static str;
    /// Whether it never offers more than one candidate per node (then GTR uses ddmin on levels).
    fn at_most_one(&self) -> bool;
    /// The candidate edits of `node`, each smaller than the node (may add detached nodes).
    fn candidates(&self, tree: &mut T, node: T::Node) -> Vec<Edit<T::Node>>;
    /// Whether edits that are each allowed may be applied together (e.g. not deleting more list
    /// elements than the list's minimum allows).
    fn compatible(&self, _tree: &T, _edits: &Edits<T::Node>) -> bool {
        true
    }
}

/// Alg. 1 (with Alg. 3 if a corpus filter is given): delete any node but the root.
pub struct Deletion<'c> {
    /// Only delete nodes whose edge is not mandatory for their parent's label.
    pub filter: Option<&'c CorpusFilter>,
}

impl<T: ReducibleTree> Template<T> for Deletion<'_> {
    fn name(&self) -> &'static str {
        "delete"
    }
    fn at_most_one(&self) -> bool {
        true
    }
    fn candidates(&self, tree: &mut T, node: T::Node) -> Vec<Edit<T::Node>> {
        let allowed = tree
            .context(node)
            .is_some_and(|(parent, edge)| self.filter.is_none_or(|f| !f.mandatory(&parent, &edge)));
        if allowed && tree.size(node) > 0 {
            vec![Edit::Delete]
        } else {
            Vec::new()
        }
    }
}

/// Alg. 2 (specialized by contexts if a corpus filter is given): replace a node by a child.
pub struct SubstituteByChild<'c> {
    /// Only children whose label was seen in the node's context.
    pub filter: Option<&'c CorpusFilter>,
}

impl<T: ReducibleTree> Template<T> for SubstituteByChild<'_> {
    fn name(&self) -> &'static str {
        "substitute-by-child"
    }
    fn at_most_one(&self) -> bool {
        false
    }
    fn candidates(&self, tree: &mut T, node: T::Node) -> Vec<Edit<T::Node>> {
        let size = tree.size(node);
        let context = tree.context(node);
        tree.children(node)
            .into_iter()
            .filter(|&c| tree.size(c) < size)
            .filter(|&c| match (self.filter, &context) {
                (Some(f), Some(ctx)) => f.allows_context(&tree.label(c), ctx),
                _ => true,
            })
            .map(Edit::Replace)
            .collect()
    }
}

/// Grammar-aware deletion: list elements (while the list keeps its minimum), an optional's
/// content, and nullable nodes (replaced by their empty derivation). Nothing else can vanish.
pub struct GrammarDeletion<'c> {
    /// Extra pruning by a corpus-learned filter.
    pub filter: Option<&'c CorpusFilter>,
}

impl<'g> Template<Derivation<'g>> for GrammarDeletion<'_> {
    fn name(&self) -> &'static str {
        "delete"
    }
    fn at_most_one(&self) -> bool {
        true
    }
    fn candidates(&self, d: &mut Derivation<'g>, node: NodeId) -> Vec<Edit<NodeId>> {
        if d.tree.len_of(node) == 0 {
            return Vec::new();
        }
        if let Some(f) = self.filter {
            if d.context(node).is_some_and(|(p, e)| f.mandatory(&p, &e)) {
                // A mandatory edge stays filled when the head of a list is deleted.
                return promote(d, node).into_iter().collect();
            }
        }
        let parent_kind = d.tree.parent(node).map(|p| d.tree.kind(p));
        match parent_kind {
            Some(NodeKind::Repeat { symbol }) => {
                let min = match d.grammar.symbol(symbol).body {
                    Body::Repeat { min, .. } => min as usize,
                    _ => 0,
                };
                if d.tree.child_count(d.tree.parent(node).expect("has a parent")) > min {
                    return vec![Edit::Delete];
                }
            }
            Some(NodeKind::Optional { .. }) => return vec![Edit::Delete],
            _ => {}
        }
        match d.symbol(node) {
            Some(sym) if d.grammar.is_nullable(sym) => {
                let empty = d
                    .tree
                    .add_cheapest(d.grammar, Item::Symbol(sym))
                    .expect("nullable symbols are productive");
                vec![Edit::Replace(empty)]
            }
            _ => promote(d, node).into_iter().collect(),
        }
    }
    fn compatible(&self, d: &Derivation<'g>, edits: &Edits<NodeId>) -> bool {
        // Deleting several elements of one list must leave it its minimum (a promoted head
        // takes one element of the list that follows it).
        let mut deleted: rustc_hash::FxHashMap<NodeId, usize> = Default::default();
        for &(node, edit) in edits {
            let gone = match edit {
                Edit::Delete => node,
                Edit::Promote { drop, .. } => drop,
                Edit::Replace(_) => continue,
            };
            if let Some(p) = d.tree.parent(gone) {
                *deleted.entry(p).or_default() += 1;
            }
        }
        deleted.into_iter().all(|(list, n)| match d.tree.kind(list) {
            NodeKind::Repeat { symbol } => match d.grammar.symbol(symbol).body {
                Body::Repeat { min, .. } => d.tree.child_count(list) - n >= min as usize,
                _ => true,
            },
            _ => true,
        })
    }
}

/// Deleting the head of a separated list: `x (sep x)*` (JSON's arrays and objects, argument
/// lists) keeps its first item in a slot of its own, which deletion cannot empty; the edit puts
/// the next element's item there instead and drops that element with its separator
/// (`[0,42]` → `[42]`). Likewise the last item of `(x sep)* x`. `None` if `node` is not such a
/// head or tail, or the list is empty (or at its minimum).
fn promote(d: &Derivation<'_>, node: NodeId) -> Option<Edit<NodeId>> {
    let slot = d.symbol(node)?;
    let parent = d.tree.parent(node)?;
    if !matches!(d.tree.kind(parent), NodeKind::Rule { .. }) {
        return None;
    }
    let siblings: Vec<NodeId> = d.tree.children(parent).collect();
    let at = siblings.iter().position(|&c| c == node)?;
    // The list after the head, its first element and that element's last child; or the list
    // before the tail, its last element and that element's first child.
    let candidates = [
        siblings.get(at + 1).map(|&list| (list, true)),
        at.checked_sub(1).map(|k| (siblings[k], false)),
    ];
    for (list, after) in candidates.into_iter().flatten() {
        let NodeKind::Repeat { symbol } = d.tree.kind(list) else {
            continue;
        };
        let Body::Repeat { min, .. } = d.grammar.symbol(symbol).body else {
            continue;
        };
        let elements: Vec<NodeId> = d.tree.children(list).collect();
        if elements.len() <= min as usize {
            continue;
        }
        let element = if after {
            elements[0]
        } else {
            elements[elements.len() - 1]
        };
        let parts: Vec<NodeId> = d.tree.children(element).collect();
        let item = if after { parts.last() } else { parts.first() };
        if let Some(&item) = item.filter(|_| parts.len() > 1) {
            if d.symbol(item).is_some() && d.fits_node(slot, item) {
                return Some(Edit::Promote {
                    with: item,
                    drop: element,
                });
            }
        }
    }
    None
}

/// Grammar-aware substitute-by-child: the nearest descendants whose symbol fits the node's slot
/// (same symbol, a unit chain below it, or an equivalent list), smaller than the node.
pub struct GrammarSubstitute<'c> {
    /// Extra pruning by a corpus-learned filter.
    pub filter: Option<&'c CorpusFilter>,
}

impl<'g> Template<Derivation<'g>> for GrammarSubstitute<'_> {
    fn name(&self) -> &'static str {
        "substitute-by-descendant"
    }
    fn at_most_one(&self) -> bool {
        false
    }
    fn candidates(&self, d: &mut Derivation<'g>, node: NodeId) -> Vec<Edit<NodeId>> {
        let Some(slot) = d.symbol(node) else { return Vec::new() };
        let context = d.context(node);
        let mut out = self.nearest(d, node, slot, &context);
        // A long chain (one fitting descendant, whose own nearest is one, and so on: a value
        // nested in a value 100,000 deep) is offered whole, so that GTR can hoist far down in
        // one step: it searches long candidate lists by halves. A short one is not: GTR would
        // try its links one by one, more runs than hoisting link by link in later rounds
        // (measured: 2.2x the oracle calls on `+-+-+-0`-like chains of the calc crashes).
        if let [Edit::Replace(only)] = out[..] {
            let mut at = only;
            for _ in 0..MAX_CHAIN {
                match self.nearest(d, at, slot, &context)[..] {
                    [Edit::Replace(next)] => {
                        out.push(Edit::Replace(next));
                        at = next;
                    }
                    _ => break,
                }
            }
            if out.len() <= super::gtr::HALVING_FROM {
                out.truncate(1);
            }
        }
        out
    }
}

/// The longest chain of nested fitting descendants [`GrammarSubstitute`] offers at once.
const MAX_CHAIN: usize = 1 << 20;

impl GrammarSubstitute<'_> {
    /// The nearest descendants of `node` that fit `slot` and are smaller than `node`.
    fn nearest(
        &self,
        d: &Derivation<'_>,
        node: NodeId,
        slot: SymbolId,
        context: &Option<(String, String)>,
    ) -> Vec<Edit<NodeId>> {
        let size = d.tree.len_of(node);
        let mut out = Vec::new();
        // Depth-first, left to right; a smaller fitting descendant ends the search below it
        // (deeper ones become candidates in later GTR rounds, once this one is in place). One of
        // the same size (a unit chain, `stmt` over `if_stmt`) is looked through.
        let mut stack: Vec<NodeId> = d.tree.children(node).collect();
        stack.reverse();
        while let Some(n) = stack.pop() {
            match d.symbol(n) {
                None => {} // a leaf: no symbol to fit, no children
                Some(_) if d.tree.len_of(n) < size && d.fits_node(slot, n) => {
                    let allowed = match (self.filter, context) {
                        (Some(f), Some(ctx)) => f.allows_context(&d.label(n), ctx),
                        _ => true,
                    };
                    if allowed {
                        out.push(Edit::Replace(n));
                    }
                }
                Some(_) => {
                    let children: Vec<NodeId> = d.tree.children(n).collect();
                    stack.extend(children.into_iter().rev());
                }
            }
        }
        out
    }
}

/// Replace a node by the cheapest derivation of its symbol, if that is smaller (fuzzingbook's
/// alternative expansions; for example a whole `(2 * 3)` factor by `0`).
pub struct Cheapest;

impl<'g> Template<Derivation<'g>> for Cheapest {
    fn name(&self) -> &'static str {
        "cheapest"
    }
    fn at_most_one(&self) -> bool {
        true
    }
    fn candidates(&self, d: &mut Derivation<'g>, node: NodeId) -> Vec<Edit<NodeId>> {
        let Some(sym) = d.symbol(node) else { return Vec::new() };
        // Nullable nodes are the deletion template's; here only real replacements.
        let cost = d.grammar.cheapest_len(sym) as usize;
        if cost == 0 || cost >= d.tree.len_of(node) {
            return Vec::new();
        }
        let cheap = d
            .tree
            .add_cheapest(d.grammar, Item::Symbol(sym))
            .expect("loaded grammars are productive");
        vec![Edit::Replace(cheap)]
    }
}
