//! Derivation trees as reducible trees: labels are symbols (or terminals), edges are positions.
//!
//! [`Derivation`] pairs a [`Tree`] with its grammar. Edits applied for good keep the tree a valid
//! derivation: a node hoisted into a slot of another symbol gets the unit-chain nodes between
//! (`statement` → `block`), and an equivalent list or optional takes the slot's symbol.

use rustc_hash::FxHashMap;

use super::labeled::{Edit, Edits, ReducibleTree};
use crate::grammar::{Body, Grammar, Item, SymbolId};
use crate::tree::{node_kind, NodeId, NodeKind, Tree};

/// A derivation tree and its grammar, reducible by GTR.
pub struct Derivation<'g> {
    /// The grammar the tree derives from.
    pub grammar: &'g Grammar,
    /// The tree (edited in place by reductions).
    pub tree: Tree,
}

impl<'g> Derivation<'g> {
    /// Wraps a derivation tree of `grammar`.
    pub fn new(grammar: &'g Grammar, tree: Tree) -> Derivation<'g> {
        Derivation { grammar, tree }
    }

    /// The symbol of a node (`None` for leaves).
    pub fn symbol(&self, node: NodeId) -> Option<SymbolId> {
        self.tree.kind(node).symbol()
    }

    /// Whether a node of symbol `b` may stand where the grammar expects `a`: the same symbol, a
    /// symbol `a` derives through a unit chain, or an equivalent list/optional/group.
    pub fn fits(&self, a: SymbolId, b: SymbolId) -> bool {
        a == b || self.grammar.unit_derives(a, b) || self.grammar.same_shape(a, b)
    }

    /// Whether node `r` may stand where the grammar expects `a`: its symbol fits, or its subtree
    /// is also a derivation of another context instance of its rule that fits (`assign[in]`
    /// where `assign[in,st]` is expected, a statement of a loop body at the top level when it
    /// uses no `break`).
    pub fn fits_node(&self, a: SymbolId, r: NodeId) -> bool {
        self.symbol(r).is_some_and(|b| self.fits(a, b)) || self.context_target(a, r).is_some()
    }

    /// The context instance `r` can be retyped to so that it fits a slot of `a`: `a` itself or a
    /// symbol at the end of a unit chain below it.
    fn context_target(&self, a: SymbolId, r: NodeId) -> Option<SymbolId> {
        let g = self.grammar;
        let b = self.symbol(r)?;
        if g.contexts().is_empty() {
            return None;
        }
        std::iter::once(a)
            .chain(g.analysis().unit_reach[a.index()].iter().copied())
            .find(|&t| t != b && g.same_source(t, b) && retype_plan(&self.tree, g, r, t).is_some())
    }
}

/// The new kinds that make the subtree of `root` a derivation of `to`, a context instance of
/// the same rule as its symbol: each node takes the instance its parent's alternative now
/// names, down to the nodes whose symbol already is that instance. `None` where an alternative
/// the subtree uses is guarded out in the new context (a `break` taken out of its loop).
fn retype_plan(tree: &Tree, g: &Grammar, root: NodeId, to: SymbolId) -> Option<Vec<(NodeId, NodeKind)>> {
    let mut plan = Vec::new();
    let mut stack = vec![(root, to)];
    while let Some((node, sym)) = stack.pop() {
        let kind = tree.kind(node);
        if kind.symbol() == Some(sym) {
            continue;
        }
        let items: Vec<Item> = match (kind, &g.symbol(sym).body) {
            (NodeKind::Rule { symbol, alt }, Body::Choice(alts)) => {
                let old = g.symbol(symbol).alternatives().get(alt as usize)?;
                let (idx, new) = alts
                    .iter()
                    .enumerate()
                    .find(|(_, a)| a.span.offset == old.span.offset && a.items.len() == old.items.len())?;
                plan.push((
                    node,
                    NodeKind::Rule {
                        symbol: sym,
                        alt: idx as u32,
                    },
                ));
                new.items.clone()
            }
            (NodeKind::Repeat { .. }, Body::Repeat { item, .. }) => {
                plan.push((node, NodeKind::Repeat { symbol: sym }));
                vec![*item; tree.child_count(node)]
            }
            (NodeKind::Optional { .. }, Body::Optional(item)) => {
                plan.push((node, NodeKind::Optional { symbol: sym }));
                vec![*item; tree.child_count(node)]
            }
            _ => return None,
        };
        if items.len() != tree.child_count(node) {
            return None;
        }
        for (child, item) in tree.children(node).zip(items) {
            match item {
                Item::Terminal(t) => {
                    if tree.kind(child) != (NodeKind::Leaf { terminal: t }) {
                        return None;
                    }
                }
                Item::Symbol(s) => stack.push((child, s)),
            }
        }
    }
    Some(plan)
}

impl ReducibleTree for Derivation<'_> {
    type Node = NodeId;

    fn root(&self) -> NodeId {
        self.tree.root()
    }

    fn children(&self, node: NodeId) -> Vec<NodeId> {
        self.tree.children(node).collect()
    }

    fn label(&self, node: NodeId) -> String {
        self.tree.label(self.grammar, node)
    }

    fn edge_label(&self, node: NodeId) -> String {
        match self.tree.context(node) {
            None => String::new(),
            Some(ctx) => match ctx.parent_kind {
                NodeKind::Rule { alt, .. } => format!("{}.{}", alt + 1, ctx.position + 1),
                _ => "item".to_string(),
            },
        }
    }

    fn parent(&self, node: NodeId) -> Option<NodeId> {
        self.tree.parent(node)
    }

    fn size(&self, node: NodeId) -> usize {
        self.tree.len_of(node)
    }

    fn unparse_with(&self, edits: &Edits<NodeId>) -> Vec<u8> {
        if self.grammar.layout().is_some() && !edits.is_empty() {
            // An edit may bring two tokens together (`select x` → `selectx`): the candidate is
            // the edited tree with its boundaries fixed, exactly what `apply` would keep.
            let mut edited = Derivation::new(self.grammar, self.tree.clone());
            edited.apply(edits);
            return edited.tree.unparse();
        }
        let map: FxHashMap<NodeId, Edit<NodeId>> = Edit::expand(edits);
        let mut out = Vec::with_capacity(self.tree.len());
        let mut stack = vec![self.tree.root()];
        while let Some(mut node) = stack.pop() {
            match map.get(&node) {
                Some(Edit::Delete) => continue,
                Some(Edit::Replace(r)) => node = *r,
                Some(Edit::Promote { .. }) | None => {} // expanded above
            }
            out.extend_from_slice(self.tree.leaf_bytes(node));
            let children: Vec<NodeId> = self.tree.children(node).collect();
            stack.extend(children.into_iter().rev());
        }
        out
    }

    fn apply(&mut self, edits: &Edits<NodeId>) {
        for &(node, edit) in edits {
            match edit {
                Edit::Delete => self.tree.remove(node),
                Edit::Replace(r) => {
                    let fitted = self.fit(node, r);
                    self.tree.replace(node, fitted);
                }
                Edit::Promote { with, drop } => {
                    let fitted = self.fit(node, with);
                    self.tree.replace(node, fitted);
                    self.tree.remove(drop);
                }
            }
        }
        crate::tree::fix_boundaries(self.grammar, &mut self.tree);
    }
}

impl Derivation<'_> {
    /// Makes `r` fit the slot of `node`: relabels an equivalent symbol, or wraps it in the unit
    /// chain from the slot's symbol down to its own. Returns the node to put in the slot.
    fn fit(&mut self, node: NodeId, r: NodeId) -> NodeId {
        let (Some(a), Some(b)) = (self.symbol(node), self.symbol(r)) else {
            return r;
        };
        if a == b {
            return r;
        }
        let mut b = b;
        if !self.fits(a, b) {
            // Another context instance of the node's rule: retype the subtree to it.
            let Some(t) = self.context_target(a, r) else {
                return r;
            };
            for (n, kind) in retype_plan(&self.tree, self.grammar, r, t).unwrap_or_default() {
                self.tree.set_kind(n, kind);
            }
            if t == a {
                return r;
            }
            b = t;
        }
        if self.grammar.same_shape(a, b) {
            let kind = match self.tree.kind(r) {
                NodeKind::Rule { alt, .. } => NodeKind::Rule { symbol: a, alt },
                NodeKind::Repeat { .. } => NodeKind::Repeat { symbol: a },
                NodeKind::Optional { .. } => NodeKind::Optional { symbol: a },
                leaf => leaf,
            };
            self.tree.set_kind(r, kind);
            return r;
        }
        let Some(path) = self.grammar.unit_path(a, b) else {
            return r;
        };
        // Build the chain a → ... → (parent of b), then hang `r` under its last node.
        self.tree.detach(r);
        let len = self.tree.len_of(r);
        let mut top = None;
        let mut last: Option<NodeId> = None;
        for (sym, alt) in path {
            let wrapper = self.tree.add_node(node_kind(self.grammar, sym, alt), len);
            match last {
                Some(l) => self.tree.prepend_child_unsized(l, wrapper),
                None => top = Some(wrapper),
            }
            last = Some(wrapper);
        }
        match (top, last) {
            (Some(top), Some(last)) => {
                self.tree.prepend_child_unsized(last, r);
                top
            }
            _ => r,
        }
    }
}
