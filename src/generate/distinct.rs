//! `%distinct` and `%refer`: names that must differ within a scope (a JavaScript function's
//! parameters, the declarations of one block) are drawn again where they repeat a name before
//! them; references (`continue L;`) take the text of the definition around them.
//!
//! Constraints like these need a symbol table, which a context-free grammar does not have; the
//! generator keeps one per scope instead of throwing inputs away.

use std::collections::{HashMap, HashSet};

use super::{Generator, Limits};
use crate::grammar::SymbolId;
use crate::tree::{NodeId, NodeKind, Tree};

/// How often a repeated name is drawn again before it is left as it is.
const REDRAWS: usize = 16;

impl Generator<'_> {
    /// Redraws every `%distinct` name that repeats an earlier name of the same scope.
    pub(super) fn make_distinct(&mut self, tree: &mut Tree) {
        let g = self.grammar;
        for d in g.distinct() {
            let mut names = Vec::new();
            tree.pre_order(tree.root(), |n| {
                if tree.kind(n).symbol().is_some_and(|s| d.names.contains(&s)) {
                    names.push(n);
                }
            });
            let mut seen: HashMap<Option<NodeId>, HashSet<Vec<u8>>> = HashMap::new();
            for mut node in names {
                let Some(sym) = tree.kind(node).symbol() else { continue };
                let scopes = scopes_of(tree, g, node, &d.scopes);
                let mut text = tree.unparse_node(node);
                for _ in 0..REDRAWS {
                    if !scopes
                        .iter()
                        .any(|s| seen.get(s).is_some_and(|set| set.contains(&text)))
                    {
                        break;
                    }
                    let fresh = self.small_tree(sym);
                    let copy = tree.graft(&fresh, fresh.root());
                    tree.replace(node, copy);
                    node = copy;
                    text = tree.unparse_node(node);
                }
                for s in scopes {
                    seen.entry(s).or_default().insert(text.clone());
                }
            }
        }
    }

    /// Makes every `%refer` reference name its nearest enclosing definition, after drawing
    /// again the definitions that repeat one around them.
    pub(super) fn make_references(&mut self, tree: &mut Tree) {
        let g = self.grammar;
        for r in g.refer() {
            let of = |tree: &Tree, set: &[SymbolId]| {
                let mut found = Vec::new();
                tree.pre_order(tree.root(), |n| {
                    if tree.kind(n).symbol().is_some_and(|s| set.contains(&s)) {
                        found.push(n);
                    }
                });
                found
            };
            for mut def in of(tree, &r.defs) {
                let Some(sym) = tree.kind(def).symbol() else { continue };
                for _ in 0..REDRAWS {
                    let text = tree.unparse_node(def);
                    if !enclosing_defs(tree, def, &r.defs).any(|o| tree.unparse_node(o) == text) {
                        break;
                    }
                    let fresh = self.small_tree(sym);
                    let copy = tree.graft(&fresh, fresh.root());
                    tree.replace(def, copy);
                    def = copy;
                }
            }
            // Definitions are not references: the copies come from one snapshot of the tree.
            let defs = tree.clone();
            for reference in of(tree, &r.refs) {
                let Some(def) = enclosing_def(tree, reference, &r.defs) else {
                    continue;
                };
                let (Some(to), Some(from)) = (tree.kind(reference).symbol(), tree.kind(def).symbol()) else {
                    continue;
                };
                // The definition's subtree, relabelled as the reference (their rules have the
                // same items: `label_ref = ident ;`, `loop_label = ident ;`).
                if !g.same_shape(to, from) {
                    continue;
                }
                let copy = tree.graft(&defs, def);
                let kind = match tree.kind(copy) {
                    NodeKind::Rule { alt, .. } => NodeKind::Rule { symbol: to, alt },
                    NodeKind::Repeat { .. } => NodeKind::Repeat { symbol: to },
                    NodeKind::Optional { .. } => NodeKind::Optional { symbol: to },
                    leaf => leaf,
                };
                tree.set_kind(copy, kind);
                tree.replace(reference, copy);
            }
        }
    }

    /// A fresh, small derivation tree of a name symbol. Names are drawn while a tree is
    /// finished: whether that tree's draw was clipped (which decides whether a redraw keeps it)
    /// is its own, not the name's.
    fn small_tree(&mut self, sym: SymbolId) -> Tree {
        let (limits, clipped) = (self.limits, self.clipped);
        let cheapest = self.grammar.cheapest_len(sym) as usize;
        self.limits = Limits::up_to((cheapest * 4).max(12));
        let tree = self.draw(sym);
        (self.limits, self.clipped) = (limits, clipped);
        tree
    }
}

/// The scopes `node` belongs to: the nearest ancestor whose symbol is one of `scopes` (`None`:
/// the whole input), and for a hoisted name (`%hoist`) every scope above it up to the nearest
/// stop.
fn scopes_of(tree: &Tree, g: &crate::grammar::Grammar, node: NodeId, scopes: &[SymbolId]) -> Vec<Option<NodeId>> {
    let is = |n: NodeId, set: &[SymbolId]| tree.kind(n).symbol().is_some_and(|s| set.contains(&s));
    let hoist = tree
        .parent(node)
        .and_then(|p| g.hoist().iter().find(|h| is(p, &h.names)));
    let mut out = Vec::new();
    let mut at = tree.parent(node);
    while let Some(p) = at {
        if is(p, scopes) {
            out.push(Some(p));
            match hoist {
                None => return out,
                Some(h) if is(p, &h.stops) => return out,
                Some(_) => {}
            }
        }
        at = tree.parent(p);
    }
    out.push(None);
    out
}

/// The definitions around `node`, nearest first: children of its ancestors, other than the
/// ancestor's child that holds `node`.
fn enclosing_defs<'t>(tree: &'t Tree, node: NodeId, defs: &'t [SymbolId]) -> impl Iterator<Item = NodeId> + 't {
    let mut below = node;
    let mut at = tree.parent(node);
    std::iter::from_fn(move || {
        let p = at?;
        let found: Vec<NodeId> = tree
            .children(p)
            .filter(|&c| c != below && tree.kind(c).symbol().is_some_and(|s| defs.contains(&s)))
            .collect();
        below = p;
        at = tree.parent(p);
        Some(found)
    })
    .flatten()
}

/// The nearest definition around `node`.
fn enclosing_def(tree: &Tree, node: NodeId, defs: &[SymbolId]) -> Option<NodeId> {
    enclosing_defs(tree, node, defs).next()
}
