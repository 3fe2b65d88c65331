//! Isolating the culprit of a rejected input: the smallest subtree whose replacement by a part
//! the samples have (or by the cheapest derivation) makes the user's parser accept the input.
//!
//! A hierarchical search over the derivation tree, as HDD over levels: from the root, descend
//! into the child whose replacement alone makes the input accepted, until none does.

use std::collections::HashMap;

use super::{Judge, Verdict};
use crate::grammar::{Grammar, Item, SymbolId, Terminal, TerminalId};
use crate::tree::{fix_boundaries, NodeId, NodeKind, Tree};

/// Oracle calls one isolation may make: a culprit deeper than this is not worth its time.
const MAX_CALLS: usize = 400;

/// What the samples offer as known-good replacements: per symbol the smallest subtree the
/// samples derive from it, per class terminal the character they draw from it most.
pub(crate) struct Good<'s> {
    trees: &'s [Tree],
    smallest: HashMap<SymbolId, (usize, NodeId)>,
    chars: HashMap<TerminalId, char>,
}

impl<'s> Good<'s> {
    /// Indexes the samples' trees (derivations of `grammar`).
    pub(crate) fn new(grammar: &Grammar, trees: &'s [Tree]) -> Good<'s> {
        let mut smallest: HashMap<SymbolId, (usize, NodeId)> = HashMap::new();
        let mut counts: HashMap<(TerminalId, char), u64> = HashMap::new();
        for (i, tree) in trees.iter().enumerate() {
            tree.pre_order(tree.root(), |n| match tree.kind(n) {
                NodeKind::Leaf { terminal } => {
                    if let Some(c) = leaf_char(grammar, tree, n, terminal) {
                        *counts.entry((terminal, c)).or_default() += 1;
                    }
                }
                kind => {
                    let sym = kind.symbol().expect("inner nodes have symbols");
                    let len = tree.len_of(n);
                    let better = smallest.get(&sym).is_none_or(|&(t, m)| len < trees[t].len_of(m));
                    if better {
                        smallest.insert(sym, (i, n));
                    }
                }
            });
        }
        let mut chars: HashMap<TerminalId, (char, u64)> = HashMap::new();
        for ((t, c), n) in counts {
            let best = chars.entry(t).or_insert((c, n));
            if n > best.1 || (n == best.1 && c < best.0) {
                *best = (c, n);
            }
        }
        Good {
            trees,
            smallest,
            chars: chars.into_iter().map(|(t, (c, _))| (t, c)).collect(),
        }
    }

    /// The samples' smallest subtree of `sym`, if they derive it.
    pub(crate) fn subtree(&self, sym: SymbolId) -> Option<(&'s Tree, NodeId)> {
        self.smallest.get(&sym).map(|&(t, n)| (&self.trees[t], n))
    }
}

/// The character a class leaf holds.
pub(crate) fn leaf_char(grammar: &Grammar, tree: &Tree, node: NodeId, t: TerminalId) -> Option<char> {
    match grammar.terminals().get(t.index())? {
        Terminal::Class { .. } => {
            crate::grammar::decode_utf8(tree.leaf_bytes(node)).and_then(|(c, _)| char::from_u32(c))
        }
        Terminal::Literal(_) => None,
    }
}

/// What replaces a node.
pub(crate) enum Replacement<'a> {
    /// A subtree of another tree (a sample's).
    Subtree(&'a Tree, NodeId),
    /// One character of a class terminal.
    Char(TerminalId, char),
    /// The cheapest derivation of the item.
    Cheapest(Item),
}

/// `tree` with `node` replaced, token boundaries fixed, as bytes.
pub(crate) fn replaced(grammar: &Grammar, tree: &Tree, node: NodeId, with: &Replacement<'_>) -> Option<Vec<u8>> {
    let mut t = tree.clone();
    let new = match *with {
        Replacement::Subtree(src, n) => t.graft(src, n),
        Replacement::Char(term, c) => t.new_leaf(term, c.encode_utf8(&mut [0; 4]).as_bytes()),
        Replacement::Cheapest(item) => t.add_cheapest(grammar, item)?,
    };
    t.replace(node, new);
    fix_boundaries(grammar, &mut t);
    Some(t.unparse())
}

/// A rejected input's culprit: the node whose replacement by a known-good part makes the input
/// accepted while replacing any one of its children does not.
pub(crate) struct Culprit {
    /// The rejected input's tree.
    pub tree: Tree,
    /// The culprit node in it (never the root).
    pub node: NodeId,
    /// The input made smaller around the culprit (everything off the path from the root to it
    /// replaced by cheapest derivations), if that is still rejected; else the input itself.
    pub input: Vec<u8>,
}

/// Finds the culprit of `tree` (an input `judge` rejected), or `None` if no single subtree is
/// to blame (replacing the root's parts one at a time never makes it accepted).
pub(crate) fn isolate(grammar: &Grammar, tree: Tree, good: &Good<'_>, judge: &Judge<'_>) -> Option<Culprit> {
    let mut calls = 0;
    let mut node = tree.root();
    loop {
        let mut children: Vec<NodeId> = tree.children(node).collect();
        children.sort_by_key(|&c| std::cmp::Reverse(tree.len_of(c)));
        let mut next = None;
        for c in children {
            let Some(bytes) = replacement_of(grammar, &tree, c, good) else {
                continue;
            };
            if calls >= MAX_CALLS {
                return None;
            }
            calls += 1;
            if judge.verdict(&bytes) == Verdict::Accepted {
                next = Some(c);
                break;
            }
        }
        match next {
            Some(c) => node = c,
            None => break,
        }
    }
    if node == tree.root() {
        return None;
    }
    let input = minimized(grammar, &tree, node)
        .filter(|small| judge.verdict(small) == Verdict::Rejected)
        .unwrap_or_else(|| tree.unparse());
    Some(Culprit { tree, node, input })
}

/// The input with `node` replaced by its known-good part: a sample's smallest subtree of its
/// symbol, or its cheapest derivation, or for a class leaf the samples' most drawn character;
/// `None` where that changes nothing.
pub(crate) fn replacement_of(grammar: &Grammar, tree: &Tree, node: NodeId, good: &Good<'_>) -> Option<Vec<u8>> {
    let with = match tree.kind(node) {
        NodeKind::Leaf { terminal } => {
            // Literals, and classes the samples never drew from, have nothing to offer.
            let c = *good.chars.get(&terminal)?;
            if leaf_char(grammar, tree, node, terminal) == Some(c) {
                return None;
            }
            Replacement::Char(terminal, c)
        }
        kind => {
            let sym = kind.symbol().expect("inner nodes have symbols");
            match good.subtree(sym) {
                Some((t, n)) if t.unparse_node(n) != tree.unparse_node(node) => Replacement::Subtree(t, n),
                Some(_) => return None,
                None => Replacement::Cheapest(Item::Symbol(sym)),
            }
        }
    };
    replaced(grammar, tree, node, &with).filter(|b| *b != tree.unparse())
}

/// `tree` with every subtree off the path from the root to `node` replaced by its cheapest
/// derivation: the culprit in as little else as the grammar allows.
fn minimized(grammar: &Grammar, tree: &Tree, node: NodeId) -> Option<Vec<u8>> {
    let mut path = vec![node];
    while let Some(p) = tree.parent(*path.last().expect("not empty")) {
        path.push(p);
    }
    let mut t = tree.clone();
    for &on_path in path.iter().skip(1) {
        let siblings: Vec<NodeId> = t.children(on_path).filter(|c| !path.contains(c)).collect();
        for s in siblings {
            let item = match t.kind(s) {
                NodeKind::Leaf { terminal } => Item::Terminal(terminal),
                kind => Item::Symbol(kind.symbol().expect("inner nodes have symbols")),
            };
            // A repetition's extra iterations can go; everything else keeps its place.
            if let NodeKind::Repeat { .. } = t.kind(on_path) {
                continue;
            }
            let new = t.add_cheapest(grammar, item)?;
            t.replace(s, new);
        }
    }
    fix_boundaries(grammar, &mut t);
    Some(t.unparse())
}
