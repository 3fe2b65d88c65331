//! Tokens next to each other in a derivation tree, layout aside: what `%never` pairs forbid.
//!
//! [`tokens`] lists a tree's tokens with their nodes and spans; [`never_violation`] finds the
//! first pair of neighbours a `%never` declaration forbids; [`apart_sides`] gives the subtrees
//! that hold one of the two and not the other, which generation draws again.

use super::{NodeId, NodeKind, Tree};
use crate::grammar::{Body, Grammar, Item};

/// A token of a tree: its node (the outermost node of a rule that holds no layout, or a leaf
/// outside any) and its byte span in the tree's text. Never empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenAt {
    /// The token's node.
    pub node: NodeId,
    /// Where it starts in the tree's text.
    pub start: usize,
    /// Where it ends.
    pub end: usize,
}

/// Which rules a token is made of: the layout rules, and the rules that may hold layout
/// (a node of any other rule is one token, however many terminals it has: `EXCEPT` spelled
/// `[Ee] [Xx] …`).
#[derive(Clone, Debug, Default)]
pub struct TokenRules {
    layout: Vec<bool>,
    holds_layout: Vec<bool>,
}

impl TokenRules {
    /// The token rules of `grammar` (without a `%layout` rule, every leaf is a token of its
    /// own).
    pub fn new(grammar: &Grammar) -> TokenRules {
        let layout = grammar.layout_parts().0;
        if !layout.contains(&true) {
            // No layout, no rule to tell where a token ends: each leaf is one.
            let holds_layout = vec![true; layout.len()];
            return TokenRules { layout, holds_layout };
        }
        let mut holds_layout = layout.clone();
        // A fixed point: a rule holds layout if an item of its body does.
        let mut changed = true;
        while changed {
            changed = false;
            for (i, sym) in grammar.symbols().iter().enumerate() {
                if holds_layout[i] {
                    continue;
                }
                let holds = |item: &Item| matches!(item, Item::Symbol(s) if holds_layout[s.index()]);
                let now = match &sym.body {
                    Body::Choice(alts) => alts.iter().any(|a| a.items.iter().any(holds)),
                    Body::Repeat { item, .. } | Body::Optional(item) => holds(item),
                };
                if now {
                    holds_layout[i] = true;
                    changed = true;
                }
            }
        }
        TokenRules { layout, holds_layout }
    }
}

/// The tokens of the subtree of `node` (starting at byte `at` of the text), in order, without
/// the layout's (whitespace, comments): the outermost nodes of rules that hold no layout, and
/// the leaves outside them. Iterative: deep trees do not recurse.
pub fn tokens_of(rules: &TokenRules, tree: &Tree, node: NodeId, at: usize) -> Vec<TokenAt> {
    let mut out = Vec::new();
    let mut stack = vec![(node, at)];
    let mut children = Vec::new();
    while let Some((n, start)) = stack.pop() {
        let len = tree.len_of(n);
        if len == 0 {
            continue;
        }
        let token = match tree.kind(n).symbol() {
            None => true,
            Some(s) if rules.layout.get(s.index()).copied().unwrap_or(false) => continue,
            Some(s) => !rules.holds_layout.get(s.index()).copied().unwrap_or(true),
        };
        if token {
            out.push(TokenAt {
                node: n,
                start,
                end: start + len,
            });
            continue;
        }
        children.clear();
        let mut offset = start;
        for c in tree.children(n) {
            children.push((c, offset));
            offset += tree.len_of(c);
        }
        stack.extend(children.drain(..).rev());
    }
    out
}

/// The tokens of `tree` (see [`tokens_of`]).
pub fn tokens(rules: &TokenRules, tree: &Tree) -> Vec<TokenAt> {
    tokens_of(rules, tree, tree.root(), 0)
}

/// The first pair of neighbouring tokens (indexes `i` and `i + 1` of `tokens`) that a `%never`
/// declaration of `grammar` forbids, in the tree whose text is `text`.
pub fn never_violation(grammar: &Grammar, tokens: &[TokenAt], text: &[u8]) -> Option<usize> {
    let never: Vec<_> = grammar.separate().iter().filter(|s| s.never).collect();
    if never.is_empty() {
        return None;
    }
    pair_position(tokens, text, |a, b| never.iter().any(|s| s.forbids(a, b)))
}

/// The first pair of neighbouring tokens (indexes `i` and `i + 1` of `tokens`) whose texts in
/// `text` satisfy `pair`.
pub fn pair_position(tokens: &[TokenAt], text: &[u8], mut pair: impl FnMut(&[u8], &[u8]) -> bool) -> Option<usize> {
    tokens
        .windows(2)
        .position(|w| pair(&text[w[0].start..w[0].end], &text[w[1].start..w[1].end]))
}

/// For neighbouring tokens `a` and `b` of `tree`: the highest node that holds `a` and ends
/// before `b` starts, and the highest node that holds `b` and starts after `a` ends (either
/// `None` where it would be the token itself as a leaf, which no symbol can draw again).
pub fn apart_sides(tree: &Tree, a: &TokenAt, b: &TokenAt) -> (Option<NodeId>, Option<NodeId>) {
    // Walking up from a token, a node's span grows to the left by its earlier children's
    // lengths and to the right by its later ones'.
    let side = |t: &TokenAt, before: bool| {
        let (mut node, mut start, mut end) = (t.node, t.start, t.end);
        let mut best = None;
        while let Some(parent) = tree.parent(node) {
            let (mut left, mut right, mut seen) = (0usize, 0usize, false);
            for c in tree.children(parent) {
                if c == node {
                    seen = true;
                } else if seen {
                    right += tree.len_of(c);
                } else {
                    left += tree.len_of(c);
                }
            }
            let (s, e) = (start - left, end + right);
            // The node holding `a` must end at or before `b`; the one holding `b` must start
            // at or after `a`'s end.
            let fits = if before { e <= b.start } else { s >= a.end };
            if !fits {
                break;
            }
            (node, start, end) = (parent, s, e);
            best = Some(node);
        }
        best.or_else(|| (!matches!(tree.kind(t.node), NodeKind::Leaf { .. })).then_some(t.node))
    };
    (side(a, true), side(b, false))
}
