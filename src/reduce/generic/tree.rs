//! The generic tree of any text: bracket groups nest, lines and indented blocks form levels.
//!
//! [`GenericTree::parse`] builds it from [`lex`] tokens (never fails; unparse is exact);
//! [`GenericTree`] implements [`ReducibleTree`], so GTR and HDD run on it unchanged.

use rustc_hash::FxHashMap;

use super::lexer::{lex, Token, TokenKind};
use crate::reduce::labeled::{Edit, Edits, ReducibleTree};

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

/// A token or a bracket group, before lines are formed.
enum Item {
    Token(usize),
    Group { open: usize, close: usize, inner: Vec<Item> },
}

impl GenericTree {
    /// Builds the tree of `input`. Never fails: unbalanced brackets stay plain tokens, bytes that
    /// are not UTF-8 become byte-chunk leaves.
    pub fn parse(input: &[u8]) -> GenericTree {
        let tokens = lex(input);
        let closer = match_brackets(input, &tokens);
        let items = nest(&closer, 0, tokens.len());
        let mut t = GenericTree {
            nodes: Vec::new(),
            root: GNode(0),
        };
        let mut b = Builder { t: &mut t, input, tokens: &tokens };
        let children = b.lines_and_blocks(&items, false);
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

/// For each opening bracket token, the index of its closing one. A closer matching an opener
/// deeper in the stack closes it (the openers above stay plain); one matching none stays plain.
fn match_brackets(input: &[u8], tokens: &[Token]) -> Vec<Option<usize>> {
    let mut closer = vec![None; tokens.len()];
    let mut stack: Vec<(usize, u8)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind != TokenKind::Punct || t.end - t.start != 1 {
            continue;
        }
        match input[t.start] {
            b'(' => stack.push((i, b')')),
            b'[' => stack.push((i, b']')),
            b'{' => stack.push((i, b'}')),
            c @ (b')' | b']' | b'}') => {
                if let Some(k) = stack.iter().rposition(|&(_, want)| want == c) {
                    closer[stack[k].0] = Some(i);
                    stack.truncate(k);
                }
            }
            _ => {}
        }
    }
    closer
}

/// The items of tokens `from..to`: matched bracket pairs become groups.
fn nest(closer: &[Option<usize>], from: usize, to: usize) -> Vec<Item> {
    let mut items = Vec::new();
    let mut i = from;
    while i < to {
        match closer[i] {
            Some(c) if c < to => {
                items.push(Item::Group {
                    open: i,
                    close: c,
                    inner: nest(closer, i + 1, c),
                });
                i = c + 1;
            }
            _ => {
                items.push(Item::Token(i));
                i += 1;
            }
        }
    }
    items
}

struct Builder<'a> {
    t: &'a mut GenericTree,
    input: &'a [u8],
    tokens: &'a [Token],
}

impl Builder<'_> {
    fn kind_of(&self, item: &Item) -> Option<TokenKind> {
        match item {
            Item::Token(i) => Some(self.tokens[*i].kind),
            Item::Group { .. } => None,
        }
    }

    fn leaf(&mut self, i: usize) -> GNode {
        let t = self.tokens[i];
        self.t.add_leaf(t.kind, &self.input[t.start..t.end])
    }

    /// Splits `items` into lines, nests more-indented lines under the line before them, and
    /// builds the nodes. `mid_line`: the first line starts after an opening bracket, so its
    /// indentation means nothing and nothing nests under it.
    fn lines_and_blocks(&mut self, items: &[Item], mid_line: bool) -> Vec<GNode> {
        let mut lines: Vec<&[Item]> = Vec::new();
        let mut start = 0;
        for (i, item) in items.iter().enumerate() {
            if self.kind_of(item) == Some(TokenKind::Newline) {
                lines.push(&items[start..=i]);
                start = i + 1;
            }
        }
        if start < items.len() {
            lines.push(&items[start..]);
        }
        let mut indents: Vec<Option<usize>> = lines.iter().map(|l| self.indent(l)).collect();
        if mid_line && indents.first().is_some_and(Option::is_some) {
            indents[0] = Some(usize::MAX);
        }
        // A blank line belongs with the next non-blank line.
        let mut next = 0;
        let effective: Vec<usize> = indents
            .iter()
            .rev()
            .map(|&d| {
                next = d.unwrap_or(next);
                next
            })
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        self.blocks(&lines, &indents, &effective)
    }

    fn blocks(&mut self, lines: &[&[Item]], indents: &[Option<usize>], effective: &[usize]) -> Vec<GNode> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let mut j = i + 1;
            if indents[i].is_some() {
                while j < lines.len() && effective[j] > effective[i] {
                    j += 1;
                }
            }
            let header = self.line(lines[i]);
            if j > i + 1 {
                let inner = self.blocks(&lines[i + 1..j], &indents[i + 1..j], &effective[i + 1..j]);
                let body = self.t.add_node(Kind::Body, inner);
                out.push(self.t.add_node(Kind::Block, vec![header, body]));
            } else {
                out.push(header);
            }
            i = j;
        }
        out
    }

    /// The width of a line's leading whitespace; `None` for a blank line.
    fn indent(&self, line: &[Item]) -> Option<usize> {
        let mut width = 0;
        for item in line {
            match item {
                Item::Token(i) if self.tokens[*i].kind == TokenKind::Space => {
                    width += self.tokens[*i].end - self.tokens[*i].start
                }
                Item::Token(i) if self.tokens[*i].kind == TokenKind::Newline => return None,
                _ => return Some(width),
            }
        }
        None
    }

    fn line(&mut self, items: &[Item]) -> GNode {
        let children = self.pieces(items);
        self.t.add_node(Kind::Line, children)
    }

    /// A line's children: leading space, chunks (non-space items with the space after them;
    /// a lone item stands for itself), the newline.
    fn pieces(&mut self, items: &[Item]) -> Vec<GNode> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < items.len() {
            let kind = self.kind_of(&items[i]);
            if matches!(kind, Some(TokenKind::Space | TokenKind::Newline)) {
                out.push(self.item(&items[i]));
                i += 1;
                continue;
            }
            let mut j = i;
            while j < items.len() && !matches!(self.kind_of(&items[j]), Some(TokenKind::Space | TokenKind::Newline)) {
                j += 1;
            }
            while j < items.len() && self.kind_of(&items[j]) == Some(TokenKind::Space) {
                j += 1;
            }
            let nodes: Vec<GNode> = items[i..j].iter().map(|it| self.item(it)).collect();
            if nodes.len() == 1 {
                out.extend(nodes);
            } else {
                out.push(self.t.add_node(Kind::Chunk, nodes));
            }
            i = j;
        }
        out
    }

    fn item(&mut self, item: &Item) -> GNode {
        match item {
            Item::Token(i) => self.leaf(*i),
            Item::Group { open, close, inner } => {
                let open = self.leaf(*open);
                let mut children = vec![open];
                if !inner.is_empty() {
                    let has_newline = inner.iter().any(|it| self.kind_of(it) == Some(TokenKind::Newline));
                    let content = if has_newline {
                        self.lines_and_blocks(inner, true)
                    } else {
                        self.pieces(inner)
                    };
                    children.push(self.t.add_node(Kind::Content, content));
                }
                children.push(self.leaf(*close));
                self.t.add_node(Kind::Group, children)
            }
        }
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
        let Some(p) = self.parent(node) else { return String::new() };
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
        let map: FxHashMap<GNode, Edit<GNode>> = edits.iter().copied().collect();
        let mut out = Vec::with_capacity(self.size(self.root));
        let mut stack = vec![self.root];
        while let Some(mut node) = stack.pop() {
            match map.get(&node) {
                Some(Edit::Delete) => continue,
                Some(Edit::Replace(r)) => node = *r,
                None => {}
            }
            let n = &self.nodes[node.0 as usize];
            out.extend_from_slice(&n.bytes);
            stack.extend(n.children.iter().rev());
        }
        out
    }

    fn apply(&mut self, edits: &Edits<GNode>) {
        for &(node, edit) in edits {
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
