//! `%distinct`: names that must differ within a scope (a JavaScript function's parameters, the
//! declarations of one block) are drawn again where they repeat a name before them.
//!
//! Constraints like these need a symbol table, which a context-free grammar does not have; the
//! generator keeps one per scope instead of throwing inputs away.

use std::collections::{HashMap, HashSet};

use super::{Generator, Limits};
use crate::grammar::SymbolId;
use crate::tree::{NodeId, Tree};

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
                let scope = nearest_scope(tree, node, &d.scopes);
                let set = seen.entry(scope).or_default();
                let mut text = tree.unparse_node(node);
                for _ in 0..REDRAWS {
                    if !set.contains(&text) {
                        break;
                    }
                    let fresh = self.small_tree(sym);
                    let copy = tree.graft(&fresh, fresh.root());
                    tree.replace(node, copy);
                    node = copy;
                    text = tree.unparse_node(node);
                }
                set.insert(text);
            }
        }
    }

    /// A fresh, small derivation tree of a name symbol.
    fn small_tree(&mut self, sym: SymbolId) -> Tree {
        let saved = self.limits;
        let cheapest = self.grammar.cheapest_len(sym) as usize;
        self.limits = Limits::up_to((cheapest * 4).max(12));
        let tree = self.draw(sym);
        self.limits = saved;
        tree
    }
}

/// The nearest ancestor of `node` whose symbol is one of `scopes` (`None`: the whole input).
fn nearest_scope(tree: &Tree, node: NodeId, scopes: &[SymbolId]) -> Option<NodeId> {
    let mut at = tree.parent(node);
    while let Some(p) = at {
        if tree.kind(p).symbol().is_some_and(|s| scopes.contains(&s)) {
            return Some(p);
        }
        at = tree.parent(p);
    }
    None
}
