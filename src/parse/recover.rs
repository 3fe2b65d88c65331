//! Error-recovering parsing: a tree for any input, with the bytes that do not fit as error leaves.
//!
//! [`Parser::parse_recovering`] wraps the normal parser (which stays untouched and pays nothing):
//! while the bytes not yet declared errors fail to parse at offset k, it deletes the smallest
//! byte range around k that lets the parse get past k, like ANTLR's single-token deletion and
//! resynchronization; the deleted ranges come back as [`ErrorSpan`]s and as error leaves
//! ([`TerminalId::ERROR`]) in the tree, so unparsing the tree gives the input exactly.

use super::Parser;
use crate::grammar::TerminalId;
use crate::tree::{node_kind, NodeId, NodeKind, Tree};

/// A range of the input that the recovering parse could not fit into the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ErrorSpan {
    /// Byte offset in the input.
    pub offset: usize,
    /// Length in bytes (never 0).
    pub len: usize,
}

/// The longest byte range one recovery step deletes before giving up on local repair.
const MAX_SKIP: usize = 32;
/// How far before the failure offset a deletion may start.
const WINDOW: usize = 32;
/// Parses one recovering parse may spend on searching deletions; then the rest is an error.
const MAX_PARSES: usize = 20_000;

impl Parser {
    /// Parses `input`, recovering from errors: returns a tree whose unparse is exactly `input`
    /// and the error spans (ascending, disjoint, not adjacent), each an error leaf of the tree
    /// (a [`NodeKind::Leaf`] with [`TerminalId::ERROR`]). Without errors the tree is the one
    /// [`Parser::parse`] returns.
    ///
    /// Strategy: on a failure at offset k, delete the shortest range `[a, b)` (at most 32 bytes,
    /// starting at most 32 bytes from k, ranges covering k first) after which the parse
    /// gets past k, or, at the end of the input, parses completely; repeat. If no such range
    /// exists, the unparsed tail from k becomes an error; if nothing parses at all, the whole input
    /// is one error leaf under a node of the start symbol. A terminal interrupted by an error
    /// (`tr@ue`) is split into two leaves around it. Costs up to about a thousand parses per error.
    pub fn parse_recovering(&self, input: &[u8]) -> (Tree, Vec<ErrorSpan>) {
        let mut keep = vec![true; input.len()];
        let mut parses = 0usize;
        let tree = loop {
            // Original offsets of the bytes still in play.
            let pos: Vec<usize> = (0..input.len()).filter(|&i| keep[i]).collect();
            let rest: Vec<u8> = pos.iter().map(|&i| input[i]).collect();
            parses += 1;
            let k = match self.parse(&rest) {
                Ok(tree) => break Some(tree),
                Err(e) => e.offset.min(rest.len()),
            };
            if rest.is_empty() {
                break None;
            }
            let deletion = if parses < MAX_PARSES {
                self.find_deletion(&rest, k, &mut parses)
            } else {
                None
            };
            let (a, b) = match deletion {
                Some(range) => range,
                None if k < rest.len() => (k, rest.len()),
                // Failing at the end and no local fix: give up on the whole rest.
                None => (0, rest.len()),
            };
            for &p in &pos[a..b] {
                keep[p] = false;
            }
        };
        let errors = spans(&keep);
        let tree = match tree {
            Some(tree) => with_error_leaves(tree, input, &keep, &errors),
            None => {
                let g = self.grammar();
                let mut t = Tree::new(node_kind(g, g.start(), 0));
                if !input.is_empty() {
                    let leaf = t.new_leaf(TerminalId::ERROR, input);
                    let root = t.root();
                    t.append_child(root, leaf);
                }
                t
            }
        };
        debug_assert_eq!(tree.unparse(), input);
        (tree, errors)
    }

    /// The shortest deletion `[a, b)` of `rest` (failing at `k`) after which the parse gets past
    /// `k` (or, when `k` is the end, succeeds). Ranges covering or following `k` are tried before
    /// ranges ending before it, and a parse that then fails only at the end of the input counts
    /// only if nothing else works: deleting a closing quote "gets past k" by swallowing the rest
    /// of the input into a string, which is rarely the repair.
    fn find_deletion(&self, rest: &[u8], k: usize, parses: &mut usize) -> Option<(usize, usize)> {
        let m = rest.len();
        if k == m {
            let near_end = |len: usize| (m.saturating_sub(len + WINDOW)..=m - len).rev().collect();
            return self.try_deletions(rest, k, parses, false, &near_end);
        }
        // The failure may be reported at the start of a terminal the error is inside (`tr@ue`
        // fails at `t`), hence ranges after k, nearest first.
        let around = |len: usize| -> Vec<usize> {
            let covering = (k + 1).saturating_sub(len)..=k.min(m - len);
            covering.rev().chain(k + 1..=(k + WINDOW).min(m - len)).collect()
        };
        let before =
            |len: usize| -> Vec<usize> { (k.saturating_sub(WINDOW)..(k + 1).saturating_sub(len)).rev().collect() };
        for at_end_counts in [false, true] {
            for starts in [&around as &dyn Fn(usize) -> Vec<usize>, &before] {
                if let Some(range) = self.try_deletions(rest, k, parses, at_end_counts, starts) {
                    return Some(range);
                }
            }
        }
        None
    }

    /// Tries deleting `len` bytes at each of `starts(len)`, for `len` = 1, 2, …, [`MAX_SKIP`].
    fn try_deletions(
        &self,
        rest: &[u8],
        k: usize,
        parses: &mut usize,
        at_end_counts: bool,
        starts: &dyn Fn(usize) -> Vec<usize>,
    ) -> Option<(usize, usize)> {
        let m = rest.len();
        let mut candidate = Vec::with_capacity(m);
        for len in 1..=MAX_SKIP.min(m) {
            for a in starts(len) {
                if *parses >= MAX_PARSES {
                    return None;
                }
                *parses += 1;
                candidate.clear();
                candidate.extend_from_slice(&rest[..a]);
                candidate.extend_from_slice(&rest[a + len..]);
                let progress = match self.parse(&candidate) {
                    Ok(_) => true,
                    // At least one byte after the gap accepted, and past the old failure point.
                    Err(e) => {
                        k < m
                            && e.offset > a
                            && (e.offset > k || (a <= k && e.offset + len > k))
                            && (at_end_counts || e.offset < candidate.len())
                    }
                };
                if progress {
                    return Some((a, a + len));
                }
            }
        }
        None
    }
}

/// Maximal runs of deleted bytes.
fn spans(keep: &[bool]) -> Vec<ErrorSpan> {
    let mut out: Vec<ErrorSpan> = Vec::new();
    for (i, &k) in keep.iter().enumerate() {
        if k {
            continue;
        }
        match out.last_mut() {
            Some(s) if s.offset + s.len == i => s.len += 1,
            _ => out.push(ErrorSpan { offset: i, len: 1 }),
        }
    }
    out
}

/// Inserts one error leaf per span into `tree` (the parse of the kept bytes).
fn with_error_leaves(mut tree: Tree, input: &[u8], keep: &[bool], errors: &[ErrorSpan]) -> Tree {
    // Insert from the last error backwards: offsets before an insertion point do not move.
    for e in errors.iter().rev() {
        let at = keep[..e.offset].iter().filter(|&&k| k).count();
        let leaf = tree.new_leaf(TerminalId::ERROR, &input[e.offset..e.offset + e.len]);
        insert_at(&mut tree, at, leaf);
    }
    tree
}

/// Links detached `leaf` so that it starts at byte `at` of the tree's unparse, as high in the
/// tree as possible (between siblings, never inside a token's subtree unless `at` falls inside
/// it); a leaf straddling `at` is split in two around it.
fn insert_at(tree: &mut Tree, at: usize, leaf: NodeId) {
    let mut node = tree.root();
    let mut base = 0usize;
    loop {
        let mut start = base;
        let mut inside = None;
        let mut before = None;
        for c in tree.children(node) {
            let end = start + tree.len_of(c);
            if start < at && at < end {
                inside = Some((c, start));
                break;
            }
            if start >= at {
                before = Some(c);
                break;
            }
            start = end;
        }
        match inside {
            Some((c, s)) if matches!(tree.kind(c), NodeKind::Leaf { .. }) => {
                let NodeKind::Leaf { terminal } = tree.kind(c) else {
                    unreachable!("matched a leaf")
                };
                let bytes = tree.leaf_bytes(c).to_vec();
                let left = tree.new_leaf(terminal, &bytes[..at - s]);
                let right = tree.new_leaf(terminal, &bytes[at - s..]);
                let next = tree.children(node).skip_while(|&x| x != c).nth(1);
                tree.replace(c, left);
                link_before(tree, node, next, leaf);
                link_before(tree, node, next, right);
                return;
            }
            Some((c, s)) => {
                node = c;
                base = s;
            }
            None => {
                link_before(tree, node, before, leaf);
                return;
            }
        }
    }
}

/// Links detached `child` under `parent` before its child `before` (`None`: as the last child).
/// The tree has no "insert before" edit, so the later siblings are detached and re-appended.
fn link_before(tree: &mut Tree, parent: NodeId, before: Option<NodeId>, child: NodeId) {
    let later: Vec<NodeId> = match before {
        Some(b) => tree.children(parent).skip_while(|&x| x != b).collect(),
        None => Vec::new(),
    };
    for &l in &later {
        tree.detach(l);
    }
    tree.append_child(parent, child);
    for l in later {
        tree.append_child(parent, l);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::Grammar;
    use proptest::prelude::*;

    fn json() -> Parser {
        Parser::new(&Grammar::load("json").unwrap())
    }

    /// The error leaves of `tree` as (offset, bytes), in order.
    fn error_leaves(tree: &Tree) -> Vec<(usize, Vec<u8>)> {
        let mut out = Vec::new();
        let mut pos = 0;
        tree.pre_order(tree.root(), |n| {
            if let NodeKind::Leaf { terminal } = tree.kind(n) {
                if terminal == TerminalId::ERROR {
                    out.push((pos, tree.leaf_bytes(n).to_vec()));
                }
                pos += tree.len_of(n);
            }
        });
        out
    }

    fn check(p: &Parser, input: &[u8]) -> Vec<(usize, Vec<u8>)> {
        let (tree, errors) = p.parse_recovering(input);
        assert_eq!(tree.unparse(), input);
        let leaves = error_leaves(&tree);
        let from_spans: Vec<(usize, Vec<u8>)> = errors
            .iter()
            .map(|e| (e.offset, input[e.offset..e.offset + e.len].to_vec()))
            .collect();
        assert_eq!(leaves, from_spans);
        leaves
    }

    #[test]
    fn valid_inputs_have_no_errors_and_the_normal_tree() {
        let p = json();
        let input = br#"{"a": [1, 2.5e3, "x"], "b": null}"#;
        let (tree, errors) = p.parse_recovering(input);
        assert!(errors.is_empty());
        assert_eq!(tree.to_json(p.grammar()), p.parse(input).unwrap().to_json(p.grammar()));
    }

    #[test]
    fn stray_bytes_are_skipped() {
        let p = json();
        let input = br#"{"item": "Apple", "price": **3.45}"#;
        assert_eq!(check(&p, input), vec![(27, b"**".to_vec())]);
    }

    #[test]
    fn a_missing_colon_drops_the_member() {
        let p = json();
        let input = br#"{"item": "Apple", "price" 3.45}"#;
        assert_eq!(check(&p, input), vec![(16, br#", "price" 3.45"#.to_vec())]);
    }

    #[test]
    fn errors_inside_a_terminal_split_it() {
        let p = json();
        let input = b"[tr@ue, 1]";
        assert_eq!(check(&p, input), vec![(3, b"@".to_vec())]);
    }

    #[test]
    fn unrepairable_inputs_are_one_error() {
        let p = json();
        assert_eq!(check(&p, b"@@@"), vec![(0, b"@@@".to_vec())]);
        assert_eq!(check(&p, b""), vec![]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        // Whatever the corruption, the tree unparses to the input and its error leaves are the spans.
        #[test]
        fn recovered_trees_unparse_exactly(
            seed in 0usize..8,
            edits in proptest::collection::vec((0usize..400, any::<u8>(), 0u8..3), 1..4),
        ) {
            let docs = [
                r#"{"name": "x", "tags": ["a", "b"], "n": -1.5e3}"#,
                "[1, 2, [3, [4, {}]], true, false, null]",
                "{\n  \"deep\": {\"deeper\": {\"deepest\": [\"\\u00e9\"]}}\n}",
                r#""just a string""#,
                "[]",
                r#"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}"#,
                "  42  ",
                r#"[{"k": "v"}, {"k": "w"}, {"k": ["x", "y", "z"]}]"#,
            ];
            let mut input = docs[seed].as_bytes().to_vec();
            for (at, b, op) in edits {
                let at = at % (input.len() + 1);
                match op {
                    0 => input.insert(at, b),
                    1 if at < input.len() => { input.remove(at); }
                    _ if at < input.len() => input[at] ^= 1 << (b % 8),
                    _ => {}
                }
            }
            check(&json(), &input);
        }
    }
}
