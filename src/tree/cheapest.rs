//! Cheapest derivations as trees: the fewest-bytes string a symbol derives, with its derivation.
//!
//! Used to close open symbols in generation and by the reducers' "replace by the cheapest
//! derivation" template. The choices come from `grammar::Analysis`.

use super::{NodeId, NodeKind, Tree};
use crate::grammar::{Body, Grammar, Item, SymbolId, Terminal};

impl Tree {
    /// The cheapest derivation of `sym` as a tree of its own.
    /// Returns `None` if `sym` is unproductive (a loaded grammar has no such named symbols).
    pub fn cheapest(grammar: &Grammar, sym: SymbolId) -> Option<Tree> {
        let mut t = Tree::with_text(Vec::new(), 16);
        let root = t.add_cheapest(grammar, Item::Symbol(sym))?;
        t.set_root(root);
        Some(t)
    }

    /// Adds the cheapest derivation of `item` to this arena, detached, and returns its root.
    pub fn add_cheapest(&mut self, grammar: &Grammar, item: Item) -> Option<NodeId> {
        if let Item::Symbol(s) = item {
            if !grammar.analysis().cheapest[s.index()].is_finite() {
                return None;
            }
        }
        let root = self.cheapest_node(grammar, item);
        let mut stack = vec![(root, item)];
        while let Some((node, item)) = stack.pop() {
            let Item::Symbol(sym) = item else { continue };
            let children: Vec<Item> = match &grammar.symbol(sym).body {
                Body::Choice(alts) => alts[grammar.analysis().cheapest_alt[sym.index()] as usize]
                    .items
                    .clone(),
                Body::Repeat { item, min, .. } => vec![*item; *min as usize],
                Body::Optional(_) => Vec::new(),
            };
            for child in children.into_iter().rev() {
                let id = self.cheapest_node(grammar, child);
                self.prepend_child_unsized(node, id);
                stack.push((id, child));
            }
        }
        Some(root)
    }

    /// A detached node for `item` with no children yet (a leaf gets its cheapest bytes).
    fn cheapest_node(&mut self, grammar: &Grammar, item: Item) -> NodeId {
        match item {
            Item::Terminal(t) => match grammar.terminal(t) {
                Terminal::Literal(bytes) => self.new_leaf(t, bytes),
                Terminal::Class { class, .. } => {
                    let c = class.representative().expect("loaded classes are never empty");
                    self.new_leaf(t, c.encode_utf8(&mut [0; 4]).as_bytes())
                }
            },
            Item::Symbol(s) => self.add_node(
                node_kind(grammar, s, grammar.analysis().cheapest_alt[s.index()]),
                grammar.cheapest_len(s) as usize,
            ),
        }
    }
}

/// The node kind for a node of symbol `sym` (taking alternative `alt` if it is a choice).
pub fn node_kind(grammar: &Grammar, sym: SymbolId, alt: u32) -> NodeKind {
    match grammar.symbol(sym).body {
        Body::Choice(_) => NodeKind::Rule { symbol: sym, alt },
        Body::Repeat { .. } => NodeKind::Repeat { symbol: sym },
        Body::Optional(_) => NodeKind::Optional { symbol: sym },
    }
}
