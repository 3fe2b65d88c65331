//! Derivation trees: an arena of nodes with exact unparse, sizes, levels, contexts and cheap edits.
//!
//! [`Tree`] owns its nodes and the bytes of its leaves; [`NodeId`] indexes a node. Edits unlink
//! nodes (the arena keeps them until [`Tree::compact`]); sizes are kept up to date on every edit.
//! `display` prints trees, `cheapest` builds the cheapest derivation of a symbol, `adjacent`
//! lists the tokens next to each other (for `%never`).

mod adjacent;
mod boundary;
mod cheapest;
mod display;

pub use adjacent::{apart_sides, never_violation, pair_position, tokens, tokens_of, TokenAt, TokenRules};
pub use boundary::{fix_boundaries, has_run_on, token_spans, trim_layout};
pub use cheapest::node_kind;

use crate::grammar::{Grammar, SymbolId, TerminalId};

const NONE: u32 = u32::MAX;

/// Index of a node in its [`Tree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    #[inline]
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a node is; every node has a grammar symbol, except leaves, which have a terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A choice symbol and the alternative taken; children are the alternative's items.
    Rule {
        /// The choice symbol.
        symbol: SymbolId,
        /// Index of the alternative taken, in the symbol's [`Body::Choice`](crate::grammar::Body::Choice).
        alt: u32,
    },
    /// A repetition symbol; children are the iterations, a flat list.
    Repeat {
        /// The repetition symbol.
        symbol: SymbolId,
    },
    /// An optional symbol; zero children (absent) or one (present).
    Optional {
        /// The optional symbol.
        symbol: SymbolId,
    },
    /// A terminal and the bytes it matched.
    Leaf {
        /// The terminal.
        terminal: TerminalId,
    },
}

impl NodeKind {
    /// The node's symbol (`None` for leaves).
    pub fn symbol(self) -> Option<SymbolId> {
        match self {
            NodeKind::Rule { symbol, .. } | NodeKind::Repeat { symbol } | NodeKind::Optional { symbol } => Some(symbol),
            NodeKind::Leaf { .. } => None,
        }
    }
}

/// A node: 32 bytes (2.3 of them per input byte on JSON, so their size is most of a parse's
/// memory). The kind is packed into `tag_index` and `extra`; see [`Node::kind`].
#[derive(Clone, Debug)]
struct Node {
    /// The kind's tag in the top 2 bits, its symbol or terminal index in the low 30.
    tag_index: u32,
    /// A rule's alternative, or a leaf's start of its bytes in `Tree::text`.
    extra: u32,
    parent: u32,
    first: u32,
    last: u32,
    next: u32,
    prev: u32,
    /// Bytes in the subtree (for a leaf, its own length). Set when the node is made (builders
    /// know every span) and kept up to date by linking edits.
    len: u32,
}

const TAG_SHIFT: u32 = 30;
const INDEX_MASK: u32 = (1 << TAG_SHIFT) - 1;
const TAG_RULE: u32 = 0;
const TAG_REPEAT: u32 = 1;
const TAG_OPTIONAL: u32 = 2;
const TAG_LEAF: u32 = 3;

impl Node {
    /// `tag_index` for a kind (a rule's alternative goes in `extra`). Symbol and terminal
    /// indexes are far below 2^30 (a grammar that large would not fit in memory);
    /// [`TerminalId::ERROR`] keeps all 30 bits set.
    fn pack(kind: NodeKind) -> u32 {
        let (tag, index) = match kind {
            NodeKind::Rule { symbol, .. } => (TAG_RULE, symbol.0),
            NodeKind::Repeat { symbol } => (TAG_REPEAT, symbol.0),
            NodeKind::Optional { symbol } => (TAG_OPTIONAL, symbol.0),
            NodeKind::Leaf { terminal } => (TAG_LEAF, terminal.0),
        };
        debug_assert!(index <= INDEX_MASK || index == TerminalId::ERROR.0);
        (tag << TAG_SHIFT) | (index & INDEX_MASK)
    }

    #[inline]
    fn kind(&self) -> NodeKind {
        let index = self.tag_index & INDEX_MASK;
        match self.tag_index >> TAG_SHIFT {
            TAG_RULE => NodeKind::Rule {
                symbol: SymbolId(index),
                alt: self.extra,
            },
            TAG_REPEAT => NodeKind::Repeat {
                symbol: SymbolId(index),
            },
            TAG_OPTIONAL => NodeKind::Optional {
                symbol: SymbolId(index),
            },
            _ if index == INDEX_MASK => NodeKind::Leaf {
                terminal: TerminalId::ERROR,
            },
            _ => NodeKind::Leaf {
                terminal: TerminalId(index),
            },
        }
    }

    #[inline]
    fn is_leaf(&self) -> bool {
        self.tag_index >> TAG_SHIFT == TAG_LEAF
    }
}

/// Where a node sits: its parent, the parent's kind, and its index among the parent's children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    /// The parent node.
    pub parent: NodeId,
    /// The parent's kind (symbol and alternative).
    pub parent_kind: NodeKind,
    /// 0-based position among the parent's children.
    pub position: usize,
}

/// A derivation tree. Invariant: every reachable node's `len` equals the bytes its subtree
/// derives, and unparsing the root gives the bytes the tree derives.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    text: Vec<u8>,
    root: NodeId,
}

impl Drop for Tree {
    fn drop(&mut self) {
        arena::give(std::mem::take(&mut self.nodes));
    }
}

/// Large node arenas are kept for the next tree of the same thread. A parse writes all of its
/// tree's nodes (about 2.3 per byte of JSON, 32 bytes each), and an arena that large is mapped
/// fresh by the allocator and returned when freed: faulting its pages in and unmapping them
/// took about 30 % of the time of parsing a 1 MB document again and again (as `mine`, `reduce`
/// and the mutator parse). One arena per thread, of [`arena::LARGE`] to [`arena::MOST`] bytes.
mod arena {
    use std::cell::RefCell;

    use super::Node;

    /// Arenas of fewer bytes are left to the allocator, which keeps small blocks itself.
    pub(super) const LARGE: usize = 1 << 20;
    /// Arenas of more bytes are freed (a thread does not hold on to a huge tree's memory).
    pub(super) const MOST: usize = 256 << 20;

    thread_local! {
        static SPARE: RefCell<Vec<Node>> = const { RefCell::new(Vec::new()) };
    }

    fn bytes(capacity: usize) -> usize {
        capacity.saturating_mul(std::mem::size_of::<Node>())
    }

    /// An empty arena with room for `capacity` nodes: the spare one if it is large enough.
    pub(super) fn take(capacity: usize) -> Vec<Node> {
        if bytes(capacity) >= LARGE {
            let spare = SPARE
                .try_with(|s| std::mem::take(&mut *s.borrow_mut()))
                .unwrap_or_default();
            if spare.capacity() >= capacity {
                return spare;
            }
            give(spare);
        }
        Vec::with_capacity(capacity)
    }

    /// Keeps `nodes`' allocation as the spare arena if it is large and larger than the spare.
    pub(super) fn give(mut nodes: Vec<Node>) {
        let size = bytes(nodes.capacity());
        if !(LARGE..=MOST).contains(&size) {
            return;
        }
        nodes.clear();
        // During thread teardown the slot may be gone: the arena is then freed.
        let _ = SPARE.try_with(|s| {
            let mut s = s.borrow_mut();
            if s.capacity() < nodes.capacity() {
                *s = nodes;
            }
        });
    }
}

impl Tree {
    /// An empty arena whose leaves will point into `text` (the parsed input).
    pub(crate) fn with_text(text: Vec<u8>, capacity: usize) -> Tree {
        Tree {
            nodes: arena::take(capacity),
            text,
            root: NodeId(0),
        }
    }

    /// Adds a detached inner node whose subtree will derive `len` bytes once its children are
    /// linked without size updates (bulk construction); pass 0 when children are linked with
    /// [`Tree::append_child`]/[`Tree::prepend_child`], which add their sizes.
    pub(crate) fn add_node(&mut self, kind: NodeKind, len: usize) -> NodeId {
        self.push(kind, 0, len as u32)
    }

    /// Adds a detached leaf for `text[start..start + len]`.
    pub(crate) fn add_leaf(&mut self, terminal: TerminalId, start: usize, len: usize) -> NodeId {
        self.push(NodeKind::Leaf { terminal }, start as u32, len as u32)
    }

    /// Adds a detached leaf with its own bytes, appended to the tree's text.
    pub fn new_leaf(&mut self, terminal: TerminalId, bytes: &[u8]) -> NodeId {
        let start = self.text.len();
        self.text.extend_from_slice(bytes);
        self.add_leaf(terminal, start, bytes.len())
    }

    /// Adds a detached inner node with no children (for building trees by hand).
    pub fn new_node(&mut self, kind: NodeKind) -> NodeId {
        assert!(!matches!(kind, NodeKind::Leaf { .. }), "leaves are made with new_leaf");
        self.add_node(kind, 0)
    }

    fn push(&mut self, kind: NodeKind, text_start: u32, len: u32) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        let extra = match kind {
            NodeKind::Rule { alt, .. } => alt,
            _ => text_start,
        };
        self.nodes.push(Node {
            tag_index: Node::pack(kind),
            extra,
            parent: NONE,
            first: NONE,
            last: NONE,
            next: NONE,
            prev: NONE,
            len,
        });
        id
    }

    /// A tree of a single leaf-less node, to be filled by hand; see [`Tree::append_child`].
    pub fn new(root_kind: NodeKind) -> Tree {
        let mut t = Tree::with_text(Vec::new(), 16);
        let root = t.push(root_kind, 0, 0);
        t.root = root;
        t
    }

    /// Changes a node's kind (the parser fills in a node's alternative after creating it).
    pub(crate) fn set_kind(&mut self, node: NodeId, kind: NodeKind) {
        debug_assert!(
            !matches!(kind, NodeKind::Leaf { .. }),
            "a leaf's bytes cannot be set this way"
        );
        let n = &mut self.nodes[node.index()];
        n.tag_index = Node::pack(kind);
        if let NodeKind::Rule { alt, .. } = kind {
            n.extra = alt;
        }
    }

    /// Makes `root` the root.
    pub(crate) fn set_root(&mut self, root: NodeId) {
        self.root = root;
    }

    /// Links detached `child` as the last child of `parent`, updating sizes up to the root.
    pub fn append_child(&mut self, parent: NodeId, child: NodeId) {
        let last = self.nodes[parent.index()].last;
        self.link(parent, child, last, NONE);
    }

    /// Links detached `child` as the first child of `parent`, updating sizes up to the root.
    pub fn prepend_child(&mut self, parent: NodeId, child: NodeId) {
        let first = self.nodes[parent.index()].first;
        self.link(parent, child, NONE, first);
    }

    /// Links detached `child` right before `sibling`, under its parent, updating sizes up to
    /// the root; nothing happens if `sibling` is the root.
    pub fn insert_before(&mut self, sibling: NodeId, child: NodeId) {
        let s = &self.nodes[sibling.index()];
        let (parent, prev) = (s.parent, s.prev);
        if parent != NONE {
            self.link(NodeId(parent), child, prev, sibling.0);
        }
    }

    /// Links detached `child` as the first child of `parent` without updating sizes: for bulk
    /// construction, where every node was made with its final length.
    pub(crate) fn prepend_child_unsized(&mut self, parent: NodeId, child: NodeId) {
        let first = self.nodes[parent.index()].first;
        self.link_unsized(parent, child, NONE, first);
    }

    /// Links detached `child` under `parent` between `prev` and `next` (either may be NONE).
    fn link(&mut self, parent: NodeId, child: NodeId, prev: u32, next: u32) {
        self.link_unsized(parent, child, prev, next);
        let len = self.nodes[child.index()].len as i64;
        self.add_len(parent, len);
    }

    fn link_unsized(&mut self, parent: NodeId, child: NodeId, prev: u32, next: u32) {
        debug_assert_eq!(self.nodes[child.index()].parent, NONE, "child must be detached");
        {
            let c = &mut self.nodes[child.index()];
            c.parent = parent.0;
            c.prev = prev;
            c.next = next;
        }
        if prev == NONE {
            self.nodes[parent.index()].first = child.0;
        } else {
            self.nodes[prev as usize].next = child.0;
        }
        if next == NONE {
            self.nodes[parent.index()].last = child.0;
        } else {
            self.nodes[next as usize].prev = child.0;
        }
    }

    fn add_len(&mut self, from: NodeId, len: i64) {
        let mut at = from.0;
        while at != NONE {
            let n = &mut self.nodes[at as usize];
            n.len = (n.len as i64 + len) as u32;
            at = n.parent;
        }
    }

    /// Unlinks `node` (and its subtree) from its parent; the root cannot be detached.
    /// Sizes of the former ancestors are updated. The node stays in the arena, reusable.
    pub fn detach(&mut self, node: NodeId) {
        let n = &self.nodes[node.index()];
        let (parent, len) = (n.parent, n.len as i64);
        if parent == NONE {
            return;
        }
        self.detach_unsized(node);
        self.add_len(NodeId(parent), -len);
    }

    /// Unlinks `node` like [`Tree::detach`] but leaves the former ancestors' sizes stale: for
    /// many edits in one go, followed by [`Tree::recompute_lens`] (each sized edit walks up to
    /// the root, which makes a batch of edits on a deep tree quadratic).
    pub(crate) fn detach_unsized(&mut self, node: NodeId) {
        let n = &self.nodes[node.index()];
        let (parent, prev, next) = (n.parent, n.prev, n.next);
        if parent == NONE {
            return;
        }
        if prev == NONE {
            self.nodes[parent as usize].first = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NONE {
            self.nodes[parent as usize].last = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
        let n = &mut self.nodes[node.index()];
        n.parent = NONE;
        n.prev = NONE;
        n.next = NONE;
    }

    /// Links detached `child` as the last child of `parent` without updating sizes (see
    /// [`Tree::detach_unsized`]).
    pub(crate) fn append_child_unsized(&mut self, parent: NodeId, child: NodeId) {
        let last = self.nodes[parent.index()].last;
        self.link_unsized(parent, child, last, NONE);
    }

    /// Sets every inner node's size from its children's, bottom-up, in one pass over the tree
    /// (iteratively: deep trees do not overflow the stack).
    pub(crate) fn recompute_lens(&mut self) {
        let mut order = Vec::new();
        self.pre_order(self.root, |n| order.push(n));
        for &n in order.iter().rev() {
            if self.nodes[n.index()].is_leaf() {
                continue;
            }
            let mut len = 0u32;
            let mut child = self.nodes[n.index()].first;
            while child != NONE {
                len += self.nodes[child as usize].len;
                child = self.nodes[child as usize].next;
            }
            self.nodes[n.index()].len = len;
        }
    }

    /// Removes `node` from the tree (a repetition element, an optional's child, ...).
    /// Whether the result is still grammatical is the caller's concern.
    pub fn remove(&mut self, node: NodeId) {
        self.detach(node);
    }

    /// Puts detached `replacement` where `node` is, detaching `node`. If `node` is the root,
    /// `replacement` becomes the root. `replacement` may be a descendant of `node` (hoisting).
    pub fn replace(&mut self, node: NodeId, replacement: NodeId) {
        if node == replacement {
            return;
        }
        if self.nodes[replacement.index()].parent != NONE {
            self.detach(replacement);
        }
        let n = &self.nodes[node.index()];
        let (parent, prev, next) = (n.parent, n.prev, n.next);
        if parent == NONE {
            self.root = replacement;
            return;
        }
        self.detach(node);
        self.link(NodeId(parent), replacement, prev, next);
    }

    /// Copies the subtree of `other` rooted at `node` into this arena (detached) and returns it.
    pub fn graft(&mut self, other: &Tree, node: NodeId) -> NodeId {
        let new_root = self.copy_node(other, node);
        let mut stack = vec![(node, new_root)];
        while let Some((src, dst)) = stack.pop() {
            let mut child = other.nodes[src.index()].last;
            while child != NONE {
                let copy = self.copy_node(other, NodeId(child));
                self.prepend_child_unsized(dst, copy);
                stack.push((NodeId(child), copy));
                child = other.nodes[child as usize].prev;
            }
        }
        new_root
    }

    /// Copies the subtree at `node` within this tree (detached) with every leaf's bytes `shift`
    /// bytes further on in the text, and returns its root: the same derivation of the same
    /// bytes elsewhere in the text. Pre-order over the links, without a stack.
    pub(crate) fn copy_shifted(&mut self, node: NodeId, shift: i64) -> NodeId {
        let copy = |t: &mut Tree, src: u32| {
            let n = &t.nodes[src as usize];
            // A leaf's `extra` is its text offset, which moves; an inner node's is kept.
            let extra = if n.is_leaf() {
                (i64::from(n.extra) + shift) as u32
            } else {
                n.extra
            };
            let (kind, len) = (n.kind(), n.len);
            t.push(kind, extra, len)
        };
        let root = copy(self, node.0);
        let (mut src, mut dst) = (node.0, root);
        loop {
            // Down to the first child, else on to the next sibling, else up until there is one.
            let first = self.nodes[src as usize].first;
            if first != NONE {
                let child = copy(self, first);
                self.append_child_unsized(dst, child);
                (src, dst) = (first, child);
                continue;
            }
            loop {
                if src == node.0 {
                    return root;
                }
                let next = self.nodes[src as usize].next;
                let parent = self.nodes[dst.index()].parent;
                if next != NONE {
                    let sibling = copy(self, next);
                    self.append_child_unsized(NodeId(parent), sibling);
                    (src, dst) = (next, sibling);
                    break;
                }
                src = self.nodes[src as usize].parent;
                dst = NodeId(parent);
            }
        }
    }

    fn copy_node(&mut self, other: &Tree, node: NodeId) -> NodeId {
        match other.kind(node) {
            NodeKind::Leaf { terminal } => self.new_leaf(terminal, other.leaf_bytes(node)),
            kind => self.add_node(kind, other.len_of(node)),
        }
    }

    /// A fresh tree holding only the live nodes, in pre-order (node ids change).
    pub fn compact(&self) -> Tree {
        let mut t = Tree::with_text(Vec::with_capacity(self.len()), self.nodes.len());
        let root = t.graft(self, self.root);
        t.root = root;
        t
    }

    /// The root.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The node's kind.
    #[inline]
    pub fn kind(&self, node: NodeId) -> NodeKind {
        self.nodes[node.index()].kind()
    }

    /// The parent, or `None` for the root and detached nodes.
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        let p = self.nodes[node.index()].parent;
        (p != NONE).then_some(NodeId(p))
    }

    /// The children in order.
    pub fn children(&self, node: NodeId) -> Children<'_> {
        Children {
            tree: self,
            next: self.nodes[node.index()].first,
        }
    }

    /// The number of children.
    pub fn child_count(&self, node: NodeId) -> usize {
        self.children(node).count()
    }

    /// The bytes of a leaf (empty for inner nodes).
    pub fn leaf_bytes(&self, node: NodeId) -> &[u8] {
        let n = &self.nodes[node.index()];
        if n.is_leaf() {
            &self.text[n.extra as usize..(n.extra + n.len) as usize]
        } else {
            &[]
        }
    }

    /// Bytes derived by the subtree of `node`.
    pub fn len_of(&self, node: NodeId) -> usize {
        self.nodes[node.index()].len as usize
    }

    /// Nodes in the subtree of `node`, itself included (a walk over the subtree).
    pub fn count_of(&self, node: NodeId) -> usize {
        let mut count = 0;
        self.pre_order(node, |_| count += 1);
        count
    }

    /// Nodes in the arena, detached ones included: what the tree's memory holds.
    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Bytes derived by the whole tree (the length of [`Tree::unparse`]).
    pub fn len(&self) -> usize {
        self.len_of(self.root)
    }

    /// True if the tree derives the empty string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Nodes in the whole tree.
    pub fn count(&self) -> usize {
        self.count_of(self.root)
    }

    /// The bytes the subtree of `node` derives.
    pub fn unparse_node(&self, node: NodeId) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len_of(node));
        self.pre_order(node, |id| out.extend_from_slice(self.leaf_bytes(id)));
        out
    }

    /// The bytes the tree derives: for a parsed tree, exactly the input.
    pub fn unparse(&self) -> Vec<u8> {
        self.unparse_node(self.root)
    }

    /// Calls `visit` on every node of the subtree of `node` in pre-order (iteratively: deep trees
    /// do not overflow the stack).
    pub fn pre_order(&self, node: NodeId, mut visit: impl FnMut(NodeId)) {
        let mut stack = vec![node.0];
        while let Some(id) = stack.pop() {
            visit(NodeId(id));
            let mut child = self.nodes[id as usize].last;
            while child != NONE {
                stack.push(child);
                child = self.nodes[child as usize].prev;
            }
        }
    }

    /// The nodes grouped by depth: level 0 is the root, level k the nodes k edges below it,
    /// each level in left-to-right order (GTR walks the tree this way).
    pub fn levels(&self) -> Vec<Vec<NodeId>> {
        let mut levels = vec![vec![self.root]];
        loop {
            let next: Vec<NodeId> = levels.last().unwrap().iter().flat_map(|&n| self.children(n)).collect();
            if next.is_empty() {
                return levels;
            }
            levels.push(next);
        }
    }

    /// The depth of `node` (root: 0).
    pub fn depth(&self, node: NodeId) -> usize {
        let mut d = 0;
        let mut at = node;
        while let Some(p) = self.parent(at) {
            d += 1;
            at = p;
        }
        d
    }

    /// Where `node` sits in its parent, or `None` for the root.
    pub fn context(&self, node: NodeId) -> Option<Context> {
        let parent = self.parent(node)?;
        let position = self
            .children(parent)
            .position(|c| c == node)
            .expect("a child is among its parent's children");
        Some(Context {
            parent,
            parent_kind: self.kind(parent),
            position,
        })
    }

    /// The name of a node's label: its symbol's name, or a leaf's terminal as written.
    pub fn label(&self, grammar: &Grammar, node: NodeId) -> String {
        match self.kind(node) {
            NodeKind::Leaf { terminal } if terminal == TerminalId::ERROR => "<error>".to_string(),
            NodeKind::Leaf { terminal } => grammar.terminal(terminal).to_string(),
            kind => grammar
                .symbol(kind.symbol().expect("inner nodes have symbols"))
                .name
                .clone(),
        }
    }
}

/// Iterator over a node's children, left to right.
pub struct Children<'a> {
    tree: &'a Tree,
    next: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if self.next == NONE {
            return None;
        }
        let id = NodeId(self.next);
        self.next = self.tree.nodes[id.index()].next;
        Some(id)
    }
}

#[cfg(test)]
mod tests;
