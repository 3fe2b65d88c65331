//! The generic tree of any text: bracket groups nest, lines and indented blocks form levels.
//!
//! [`GenericTree::parse`] builds it (with `build`; never fails; unparse is exact);
//! [`GenericTree`] implements [`ReducibleTree`], so GTR and HDD run on it unchanged.

use rustc_hash::FxHashMap;

use super::build;
use super::lexer::TokenKind;
use crate::reduce::{Edit, Edits, ReducibleTree};

/// A node handle into a [`GenericTree`]'s arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GNode(u32);

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The whole input: lines and blocks.
    Root,
    /// A line that has more-indented lines under it: children `[header line, body]`.
    Block,
    /// The more-indented lines of a block.
    Body,
    /// One line: its tokens, groups and chunks, ending with its newline token (if any).
    Line,
    /// Tokens and groups between whitespace, with the whitespace that follows them.
    Chunk,
    /// A balanced bracket pair: children `[open, content, close]` (content absent if empty).
    Group,
    /// What is between a group's brackets: lines and blocks, or a single line's pieces.
    Content,
    /// A leaf with the token's bytes.
    Token(TokenKind),
}

struct Node {
    kind: Kind,
    /// Leaves only.
    bytes: Box<[u8]>,
    children: Vec<GNode>,
    parent: Option<GNode>,
    size: usize,
}

/// A generic tree over any bytes (see the module doc). Edits keep sizes and parents up to date.
pub struct GenericTree {
    nodes: Vec<Node>,
    root: GNode,
}

impl GenericTree {
    /// Builds the tree of `input`. Never fails: unbalanced brackets stay plain tokens, bytes that
    /// are not UTF-8 become byte-chunk leaves.
    pub fn parse(input: &[u8]) -> GenericTree {
        let mut t = GenericTree {
            nodes: Vec::new(),
            root: GNode(0),
        };
        let children = build::top_level(&mut t, input);
        t.root = t.add_node(Kind::Root, children);
        t
    }

    /// The node's kind.
    pub fn kind(&self, n: GNode) -> Kind {
        self.nodes[n.0 as usize].kind
    }

    /// A leaf's bytes (empty for inner nodes).
    pub fn bytes(&self, n: GNode) -> &[u8] {
        &self.nodes[n.0 as usize].bytes
    }

    /// Adds a detached leaf (for a template's replacement).
    pub fn add_leaf(&mut self, kind: TokenKind, bytes: &[u8]) -> GNode {
        let id = GNode(self.nodes.len() as u32);
        self.nodes.push(Node {
            kind: Kind::Token(kind),
            bytes: bytes.into(),
            children: Vec::new(),
            parent: None,
            size: bytes.len(),
        });
        id
    }

    /// Adds a detached inner node over `children` (which become its own).
    pub fn add_node(&mut self, kind: Kind, children: Vec<GNode>) -> GNode {
        let id = GNode(self.nodes.len() as u32);
        let size = children.iter().map(|&c| self.nodes[c.0 as usize].size).sum();
        for &c in &children {
            self.nodes[c.0 as usize].parent = Some(id);
        }
        self.nodes.push(Node {
            kind,
            bytes: Box::default(),
            children,
            parent: None,
            size,
        });
        id
    }

    /// A detached deep copy of `node` whose lines (through blocks and bodies, not inside groups)
    /// lose `delta` bytes of leading whitespace: a block's body moved out to its header's level.
    /// Precondition: every non-blank line there is indented by at least `delta` bytes.
    pub fn dedented_copy(&mut self, node: GNode, delta: usize) -> GNode {
        let kind = self.kind(node);
        if let Kind::Token(k) = kind {
            let bytes = self.bytes(node).to_vec();
            return self.add_leaf(k, &bytes);
        }
        let mut copies = Vec::new();
        for (i, c) in self.children(node).into_iter().enumerate() {
            let leading_space = i == 0 && self.kind(c) == Kind::Token(TokenKind::Space);
            if kind == Kind::Line && leading_space {
                let kept = self.bytes(c)[delta.min(self.size(c))..].to_vec();
                if !kept.is_empty() {
                    copies.push(self.add_leaf(TokenKind::Space, &kept));
                }
            } else {
                let inner = if matches!(kind, Kind::Block | Kind::Body) {
                    delta
                } else {
                    0
                };
                copies.push(self.dedented_copy(c, inner));
            }
        }
        self.add_node(kind, copies)
    }

    /// The width (bytes) of a line's or block's leading whitespace; `None` for blank lines and
    /// nodes that are neither.
    pub fn indent(&self, node: GNode) -> Option<usize> {
        let children = &self.nodes[node.0 as usize].children;
        match self.kind(node) {
            Kind::Block => self.indent(*children.first()?),
            Kind::Line => {
                let space = |c: &GNode| matches!(self.kind(*c), Kind::Token(TokenKind::Space | TokenKind::Newline));
                if children.iter().all(space) {
                    return None;
                }
                let first = children[0];
                Some(if self.kind(first) == Kind::Token(TokenKind::Space) {
                    self.size(first)
                } else {
                    0
                })
            }
            _ => None,
        }
    }

    /// A short label of the node's first significant leaf (`w:SELECT`, `p:=`, `num`, ...).
    fn head_label(&self, n: GNode) -> String {
        let mut n = n;
        loop {
            match self.kind(n) {
                Kind::Token(k) => return token_label(k, self.bytes(n)),
                Kind::Group => return self.label(n),
                _ => {
                    let children = &self.nodes[n.0 as usize].children;
                    let first = children
                        .iter()
                        .find(|&&c| self.kind(c) != Kind::Token(TokenKind::Space))
                        .or(children.first());
                    match first {
                        Some(&c) => n = c,
                        None => return "empty".to_string(),
                    }
                }
            }
        }
    }

    fn add_size(&mut self, from: Option<GNode>, delta: isize) {
        let mut at = from;
        while let Some(p) = at {
            let node = &mut self.nodes[p.0 as usize];
            node.size = (node.size as isize + delta) as usize;
            at = node.parent;
        }
    }
}

fn token_label(kind: TokenKind, bytes: &[u8]) -> String {
    match kind {
        TokenKind::Word if bytes.len() <= 24 => format!("w:{}", String::from_utf8_lossy(bytes)),
        TokenKind::Word => "word".to_string(),
        TokenKind::Punct => format!("p:{}", String::from_utf8_lossy(bytes)),
        TokenKind::Number => "num".to_string(),
        TokenKind::String => "str".to_string(),
        TokenKind::Space => "ws".to_string(),
        TokenKind::Newline => "nl".to_string(),
        TokenKind::Bytes => "bytes".to_string(),
    }
}

impl ReducibleTree for GenericTree {
    type Node = GNode;

    fn root(&self) -> GNode {
        self.root
    }

    fn children(&self, node: GNode) -> Vec<GNode> {
        self.nodes[node.0 as usize].children.clone()
    }

    fn label(&self, node: GNode) -> String {
        match self.kind(node) {
            Kind::Root => "root".to_string(),
            Kind::Body => "body".to_string(),
            Kind::Content => "content".to_string(),
            Kind::Token(k) => token_label(k, self.bytes(node)),
            Kind::Group => {
                let c = &self.nodes[node.0 as usize].children;
                let open = c.first().map(|&o| self.bytes(o)).unwrap_or_default();
                let close = c.last().map(|&o| self.bytes(o)).unwrap_or_default();
                format!("g{}{}", String::from_utf8_lossy(open), String::from_utf8_lossy(close))
            }
            Kind::Line => format!("line:{}", self.head_label(node)),
            Kind::Block => format!("block:{}", self.head_label(node)),
            Kind::Chunk => format!("chunk:{}", self.head_label(node)),
        }
    }

    fn edge_label(&self, node: GNode) -> String {
        let Some(p) = self.parent(node) else {
            return String::new();
        };
        match (self.kind(p), self.kind(node)) {
            (Kind::Group, Kind::Content) => "content".to_string(),
            (Kind::Group, _) if self.nodes[p.0 as usize].children.first() == Some(&node) => "open".to_string(),
            (Kind::Group, _) => "close".to_string(),
            (Kind::Block, Kind::Body) => "body".to_string(),
            (Kind::Block, _) => "header".to_string(),
            _ => self.label(node),
        }
    }

    fn parent(&self, node: GNode) -> Option<GNode> {
        self.nodes[node.0 as usize].parent
    }

    fn size(&self, node: GNode) -> usize {
        self.nodes[node.0 as usize].size
    }

    fn unparse_with(&self, edits: &Edits<GNode>) -> Vec<u8> {
        let map: FxHashMap<GNode, Edit<GNode>> = Edit::expand(edits);
        let mut out = Vec::with_capacity(self.size(self.root));
        let mut stack = vec![self.root];
        while let Some(mut node) = stack.pop() {
            match map.get(&node) {
                Some(Edit::Delete) => continue,
                Some(Edit::Replace(r)) => node = *r,
                Some(Edit::Promote { .. }) | None => {} // expanded above
            }
            let n = &self.nodes[node.0 as usize];
            out.extend_from_slice(&n.bytes);
            stack.extend(n.children.iter().rev());
        }
        out
    }

    fn apply(&mut self, edits: &Edits<GNode>) {
        let expanded: Edits<GNode> = Edit::expand(edits).into_iter().collect();
        // Replacements before deletions: a promoted item leaves the element it is dropped with.
        let (mut first, then): (Edits<GNode>, Edits<GNode>) =
            expanded.into_iter().partition(|(_, e)| matches!(e, Edit::Replace(_)));
        first.extend(then);
        for &(node, edit) in &first {
            let Some(parent) = self.parent(node) else {
                continue; // the root is never edited
            };
            let old = self.size(node) as isize;
            let siblings = &mut self.nodes[parent.0 as usize].children;
            let Some(pos) = siblings.iter().position(|&c| c == node) else {
                continue;
            };
            let new = match edit {
                Edit::Delete => {
                    siblings.remove(pos);
                    0
                }
                Edit::Promote { .. } => continue, // expanded above
                Edit::Replace(r) => {
                    siblings[pos] = r;
                    // `r` may have been a descendant of `node`; that subtree is gone anyway.
                    self.nodes[r.0 as usize].parent = Some(parent);
                    self.size(r) as isize
                }
            };
            self.nodes[node.0 as usize].parent = None;
            self.add_size(Some(parent), new - old);
        }
    }
}
