//! Templates for the generic tree: delete, hoist a group's or block's content, simplify literals.
//!
//! [`GenericDeletion`] deletes lines, blocks, chunks, tokens, a group's content (`(…)` → `()`);
//! [`Hoist`] replaces a group or block by its content or a nested one; [`Literals`] empties strings
//! and turns numbers into `0` or `1`. All take an optional corpus-learned [`CorpusFilter`].

use std::collections::HashSet;

use super::lexer::TokenKind;
use super::tree::{GNode, GenericTree, Kind};
use crate::reduce::templates::Template;
use crate::reduce::CorpusFilter;
use crate::reduce::{Edit, Edits, ReducibleTree};

/// Deletion (GTR Alg. 1, Alg. 3 with a filter) on the generic tree. Brackets of a group are
/// never deleted alone (that would unbalance it): the group goes whole, or its content does.
pub struct GenericDeletion<'c> {
    /// Keeps, for every parent, at least one child on each edge the corpus says is mandatory.
    pub filter: Option<&'c CorpusFilter>,
}

impl Template<GenericTree> for GenericDeletion<'_> {
    fn name(&self) -> &'static str {
        "delete"
    }
    fn at_most_one(&self) -> bool {
        true
    }
    fn candidates(&self, t: &mut GenericTree, node: GNode) -> Vec<Edit<GNode>> {
        let Some(parent) = t.parent(node) else {
            return Vec::new();
        };
        let bracket = t.kind(parent) == Kind::Group && matches!(t.kind(node), Kind::Token(_));
        if bracket || t.size(node) == 0 {
            return Vec::new();
        }
        if let Some(f) = self.filter {
            // The paper forbids deleting a child on a mandatory edge; a list of children with the
            // same edge label may lose all but one (checked in `compatible`).
            let edge = t.edge_label(node);
            if f.mandatory(&t.label(parent), &edge)
                && !t.children(parent).iter().any(|&s| s != node && t.edge_label(s) == edge)
            {
                return Vec::new();
            }
        }
        vec![Edit::Delete]
    }
    fn compatible(&self, t: &GenericTree, edits: &Edits<GNode>) -> bool {
        let Some(f) = self.filter else { return true };
        let deleted: HashSet<GNode> = edits.iter().map(|&(n, _)| n).collect();
        let parents: HashSet<GNode> = edits.iter().filter_map(|&(n, _)| t.parent(n)).collect();
        parents.into_iter().all(|p| {
            let label = t.label(p);
            let children = t.children(p);
            let before: HashSet<String> = children.iter().map(|&c| t.edge_label(c)).collect();
            let after: HashSet<String> = children
                .iter()
                .filter(|c| !deleted.contains(c))
                .map(|&c| t.edge_label(c))
                .collect();
            before.iter().all(|e| after.contains(e) || !f.mandatory(&label, e))
        })
    }
}

/// Hoisting (substitute-by-child, GTR Alg. 2, specialized to the generic tree): a group becomes
/// its content (`( x )` → ` x `) or a smaller group of the same brackets inside it; a block
/// becomes its body (moved out to the block's indentation, or as it is) or a smaller block
/// inside it; a line becomes a line nested inside it.
pub struct Hoist<'c> {
    /// Only replacements whose label the corpus saw in the node's context.
    pub filter: Option<&'c CorpusFilter>,
}

impl Template<GenericTree> for Hoist<'_> {
    fn name(&self) -> &'static str {
        "hoist"
    }
    fn at_most_one(&self) -> bool {
        false
    }
    fn candidates(&self, t: &mut GenericTree, node: GNode) -> Vec<Edit<GNode>> {
        let kind = t.kind(node);
        let size = t.size(node);
        let mut out = Vec::new();
        // The content itself first: hoisting it is usually what the format tolerates best. A
        // block's body moves out to the header's indentation first (Python, YAML, Markdown
        // nest by it), then as it is.
        if matches!(kind, Kind::Group | Kind::Block) {
            let inner = if kind == Kind::Group { Kind::Content } else { Kind::Body };
            let contents: Vec<GNode> = t.children(node).into_iter().filter(|&c| t.kind(c) == inner).collect();
            for c in contents {
                if inner == Kind::Body {
                    let lines: Vec<GNode> = t.children(c).into_iter().filter(|&l| t.size(l) > 0).collect();
                    let body = lines.iter().filter_map(|&l| t.indent(l)).min().unwrap_or(0);
                    let header = t.children(node).first().and_then(|&h| t.indent(h)).unwrap_or(0);
                    if body > header {
                        out.push(t.dedented_copy(c, body - header));
                    }
                }
                out.push(c);
            }
        }
        let label = t.label(node);
        let fits = |t: &GenericTree, n: GNode| match kind {
            Kind::Group => t.kind(n) == Kind::Group && t.label(n) == label,
            Kind::Block | Kind::Line => matches!(t.kind(n), Kind::Block | Kind::Line),
            _ => false,
        };
        if matches!(kind, Kind::Group | Kind::Block | Kind::Line) {
            // The nearest fitting descendants, left to right; deeper ones get their turn in
            // later GTR rounds, once these are in place.
            let mut stack = t.children(node);
            stack.reverse();
            while let Some(n) = stack.pop() {
                if fits(t, n) && t.size(n) < size {
                    out.push(n);
                } else {
                    let children = t.children(n);
                    stack.extend(children.into_iter().rev());
                }
            }
        }
        let context = t.context(node);
        out.into_iter()
            .filter(|&c| t.size(c) < size)
            .filter(|&c| match (self.filter, &context) {
                (Some(f), Some(ctx)) if t.kind(c) == kind => f.allows_context(&t.label(c), ctx),
                _ => true,
            })
            .map(Edit::Replace)
            .collect()
    }
}

/// Literal simplification: a string literal becomes empty (`"…"` → `""`) and a number becomes
/// `digit` — one at-most-one template per digit, so GTR tries them on a whole level by ddmin.
pub struct Literals {
    /// What numbers become (`"0"` or `"1"`).
    pub number: &'static str,
    /// Whether strings are emptied too (done by the first of the two templates only).
    pub strings: bool,
}

impl Literals {
    /// The first literal pass: numbers become `0`, strings are emptied.
    pub const ZERO: Literals = Literals {
        number: "0",
        strings: true,
    };
    /// The second: numbers become `1` (for inputs where a zero does not keep the failure).
    pub const ONE: Literals = Literals {
        number: "1",
        strings: false,
    };
}

impl Template<GenericTree> for Literals {
    fn name(&self) -> &'static str {
        "simplify-literal"
    }
    fn at_most_one(&self) -> bool {
        true
    }
    fn candidates(&self, t: &mut GenericTree, node: GNode) -> Vec<Edit<GNode>> {
        let Kind::Token(kind) = t.kind(node) else {
            return Vec::new();
        };
        let replacement = match kind {
            TokenKind::Number => self.number.as_bytes().to_vec(),
            TokenKind::String if self.strings => {
                let bytes = t.bytes(node);
                vec![bytes[0], bytes[bytes.len() - 1]]
            }
            _ => return Vec::new(),
        };
        if replacement.len() >= t.size(node) || t.parent(node).is_none() {
            return Vec::new();
        }
        vec![Edit::Replace(t.add_leaf(kind, &replacement))]
    }
}
