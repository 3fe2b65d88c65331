//! Deepening: a minimized stack overflow recurses just deep enough to overflow the build it was
//! reduced with; this repeats the part of it that nests, so that builds with smaller frames overflow too.
//!
//! Map: [`deepen`] (the nesting in the derivation tree, then every occurrence of a unit that
//! repeats back to back, most bytes first).

use crate::grammar::Grammar;
use crate::parse::Parser;
use crate::tree::{NodeId, Tree};

/// The longest unit [`deepen`] looks for in bytes (`(`, `[{`, `a(`, `NOT `).
const MAX_UNIT: usize = 8;
/// How many units [`deepen`] offers.
const UNITS: usize = 3;

/// How an input was deepened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Deepened {
    /// The derivation tree's deepest nesting of one symbol: what surrounds its innermost
    /// instance inside the next one out was repeated.
    Nesting {
        /// The symbol's name.
        symbol: String,
        /// Instances nested before.
        depth: usize,
    },
    /// Every occurrence of a unit of bytes that repeats back to back somewhere was repeated.
    Unit {
        /// The unit.
        unit: Vec<u8>,
        /// Its occurrences before.
        times: usize,
    },
}

/// Ways to make `input`'s deepest nesting `factor` times as deep (`factor` ≥ 2), most likely
/// first: the nesting of one symbol in `grammar`'s derivation tree of the input (what its
/// innermost instance sits in, inside the next instance out, repeated); then, for inputs
/// without a grammar or that it does not parse (a minimized overflow is often cut short:
/// `[[1[[ [`), every occurrence of a unit of bytes that repeats back to back somewhere, repeated
/// `factor` times, the units covering most bytes first. Empty when nothing nests or repeats.
pub fn deepen(input: &[u8], grammar: Option<&Grammar>, factor: usize) -> Vec<(Vec<u8>, Deepened)> {
    let extra = factor.max(2) - 1;
    let mut out = Vec::new();
    if let Some(g) = grammar {
        if let Ok(tree) = Parser::new(g).parse(input) {
            if let Some((outer, inner, depth)) = deepest_nesting(&tree) {
                let (o, i) = (tree_span(&tree, outer), tree_span(&tree, inner));
                let (before, after) = (&input[o.0..i.0], &input[i.1..o.1]);
                if !before.is_empty() || !after.is_empty() {
                    let times = depth * extra;
                    let mut deeper = Vec::with_capacity(input.len() + times * (before.len() + after.len()));
                    deeper.extend_from_slice(&input[..i.0]);
                    for _ in 0..times {
                        deeper.extend_from_slice(before);
                    }
                    deeper.extend_from_slice(&input[i.0..i.1]);
                    for _ in 0..times {
                        deeper.extend_from_slice(after);
                    }
                    deeper.extend_from_slice(&input[i.1..]);
                    let symbol = tree
                        .kind(inner)
                        .symbol()
                        .map(|s| g.symbol(s).name.clone())
                        .unwrap_or_default();
                    out.push((deeper, Deepened::Nesting { symbol, depth }));
                }
            }
        }
    }
    for (unit, times) in repeating_units(input) {
        let mut deeper = Vec::with_capacity(input.len() + unit.len() * times * extra);
        let mut at = 0;
        while at < input.len() {
            if input[at..].starts_with(&unit) {
                for _ in 0..=extra {
                    deeper.extend_from_slice(&unit);
                }
                at += unit.len();
            } else {
                deeper.push(input[at]);
                at += 1;
            }
        }
        out.push((deeper, Deepened::Unit { unit, times }));
    }
    out
}

/// The innermost node of the deepest nesting of one symbol, the nearest node of its symbol
/// above it, and how many nodes of that symbol the nesting has. Iterative: a tree of an overflow
/// is as deep as its input.
fn deepest_nesting(tree: &Tree) -> Option<(NodeId, NodeId, usize)> {
    // Per node on the current path: (node, its nearest ancestor of the same symbol, nesting).
    let mut path: Vec<(NodeId, Option<NodeId>, usize)> = Vec::new();
    let mut stack: Vec<(NodeId, usize)> = vec![(tree.root(), 0)];
    let mut best: Option<(NodeId, NodeId, usize)> = None;
    while let Some((node, at)) = stack.pop() {
        path.truncate(at);
        let symbol = tree.kind(node).symbol();
        let above = symbol.and_then(|s| {
            path.iter()
                .rev()
                .find(|(n, _, _)| tree.kind(*n).symbol() == Some(s))
                .map(|&(n, _, depth)| (n, depth))
        });
        let depth = above.map_or(1, |(_, d)| d + 1);
        if let Some((outer, _)) = above {
            if best.is_none_or(|b| depth > b.2) {
                best = Some((outer, node, depth));
            }
        }
        path.push((node, above.map(|a| a.0), depth));
        let children: Vec<NodeId> = tree.children(node).collect();
        for &child in children.iter().rev() {
            stack.push((child, at + 1));
        }
    }
    best.filter(|b| b.2 >= 2)
}

/// The byte range of `node` in the tree's text.
fn tree_span(tree: &Tree, node: NodeId) -> (usize, usize) {
    let mut start = 0;
    let mut at = node;
    while let Some(parent) = tree.parent(at) {
        for sibling in tree.children(parent) {
            if sibling == at {
                break;
            }
            start += tree.len_of(sibling);
        }
        at = parent;
    }
    (start, start + tree.len_of(node))
}

/// Up to [`UNITS`] units of bytes that occur twice back to back somewhere in `input`, with their
/// occurrences (counted left to right without overlap), the units covering most bytes first.
fn repeating_units(input: &[u8]) -> Vec<(Vec<u8>, usize)> {
    let mut units: Vec<(Vec<u8>, usize)> = Vec::new();
    for len in 1..=MAX_UNIT.min(input.len() / 2) {
        for start in 0..=input.len() - 2 * len {
            let unit = &input[start..start + len];
            if input[start + len..start + 2 * len] != *unit || units.iter().any(|(u, _)| u == unit) {
                continue;
            }
            // A unit that is itself a repetition (`[[`) adds nothing to the shorter one.
            if (1..len).any(|p| len % p == 0 && unit.chunks(p).all(|c| c == &unit[..p])) {
                continue;
            }
            let mut times = 0;
            let mut at = 0;
            while at + len <= input.len() {
                if input[at..at + len] == *unit {
                    times += 1;
                    at += len;
                } else {
                    at += 1;
                }
            }
            units.push((unit.to_vec(), times));
        }
    }
    units.sort_by_key(|(u, times)| std::cmp::Reverse(u.len() * times));
    units.truncate(UNITS);
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    const BRACKETS: &str = r#"
doc   = "x=" value ;
value = "[" value "]" | [0-9] ;
"#;

    #[test]
    fn a_nesting_in_the_tree_is_repeated_with_both_sides() {
        let g = Grammar::from_text(BRACKETS, "brackets.grammar").unwrap();
        let ways = deepen(b"x=[[[1]]]", Some(&g), 2);
        let (out, how) = &ways[0];
        assert_eq!(
            *how,
            Deepened::Nesting {
                symbol: "value".into(),
                depth: 4
            }
        );
        // Four instances nested (three brackets and the digit): four more.
        assert_eq!(&out[..], b"x=[[[[[[[1]]]]]]]");
        assert!(Parser::new(&g).parse(out).is_ok());
    }

    #[test]
    fn an_input_the_grammar_does_not_parse_repeats_its_units() {
        let g = Grammar::from_text(BRACKETS, "brackets.grammar").unwrap();
        let ways = deepen(b"x=[[[[", Some(&g), 3);
        assert_eq!(
            ways[0].1,
            Deepened::Unit {
                unit: b"[".to_vec(),
                times: 4
            }
        );
        assert_eq!(&ways[0].0[..], b"x=[[[[[[[[[[[[");
        // Every occurrence, not only the longest run: a minimized overflow mixes forms.
        let ways = deepen(b"[[[ [ [1[1[1", None, 2);
        assert_eq!(
            ways[0].1,
            Deepened::Unit {
                unit: b"[".to_vec(),
                times: 7
            }
        );
        assert_eq!(&ways[0].0[..], b"[[[[[[ [[ [[1[[1[[1");
        assert!(ways.iter().any(|(_, how)| *how
            == Deepened::Unit {
                unit: b"[1".to_vec(),
                times: 3
            }));
        // A unit of several bytes.
        let ways = deepen(b"SELECT a(a(a(a(1", None, 2);
        assert_eq!(
            ways[0].1,
            Deepened::Unit {
                unit: b"a(".to_vec(),
                times: 4
            }
        );
        assert_eq!(&ways[0].0[..], b"SELECT a(a(a(a(a(a(a(a(1");
        assert!(deepen(b"abc", None, 2).is_empty());
    }

    #[test]
    fn a_deep_tree_is_walked_without_recursion() {
        let g = Grammar::from_text(BRACKETS, "brackets.grammar").unwrap();
        let n = 20_000;
        let input = format!("x={}1{}", "[".repeat(n), "]".repeat(n));
        let ways = deepen(input.as_bytes(), Some(&g), 2);
        assert_eq!(
            ways[0].1,
            Deepened::Nesting {
                symbol: "value".into(),
                depth: n + 1
            }
        );
        assert_eq!(ways[0].0.len(), input.len() + 2 * (n + 1));
    }

    proptest::proptest! {
        /// What is deepened keeps the input's bytes in order (only insertions) and grows.
        #[test]
        fn deepening_only_inserts(input in proptest::collection::vec(proptest::sample::select(b"([a1 )]".to_vec()), 0..40)) {
            for (out, _) in deepen(&input, None, 2) {
                proptest::prop_assert!(out.len() > input.len());
                let mut rest = out.iter();
                proptest::prop_assert!(input.iter().all(|b| rest.any(|o| o == b)));
            }
        }
    }
}
