//! The tree the reducers work on: the paper's labeled ordered tree (Definition 3.1) plus edits.
//!
//! [`ReducibleTree`] is all GTR, HDD and their templates need: nodes with labels, edge labels and
//! ordered children, a size, and a way to unparse the tree with a set of [`Edit`]s applied.
//! Derivation trees implement it (`derivation`); trees from other parsers can, unchanged algorithms.

use std::fmt::Debug;
use std::hash::Hash;

/// One change to one node: remove it, or put another node (a descendant, or a new detached
/// subtree the template made) in its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edit<N> {
    /// The node and its subtree disappear.
    Delete,
    /// The node's subtree is replaced by this node's subtree.
    Replace(N),
    /// The head of a separated list (`x` in `x (sep x)*`) is deleted: the node is replaced by
    /// `with`, the item of the list's next element `drop`, and `drop` (with its separator)
    /// disappears, so the next item becomes the head.
    Promote {
        /// The next item, inside `drop`.
        with: N,
        /// The element after the head: separator and next item.
        drop: N,
    },
}

impl<N: Copy + Eq + Hash> Edit<N> {
    /// The edits a set stands for with [`Edit::Promote`] split into a replacement and a
    /// deletion, as one node → edit map (for unparsing with edits).
    pub fn expand(edits: &Edits<N>) -> rustc_hash::FxHashMap<N, Edit<N>> {
        let mut map = rustc_hash::FxHashMap::default();
        for &(node, edit) in edits {
            match edit {
                Edit::Promote { with, drop } => {
                    map.insert(node, Edit::Replace(with));
                    map.insert(drop, Edit::Delete);
                }
                other => {
                    map.insert(node, other);
                }
            }
        }
        map
    }
}

/// A set of edits to apply together: at most one per node, on nodes none of which lies inside
/// another's subtree (GTR edits one level at a time, so this holds).
pub type Edits<N> = Vec<(N, Edit<N>)>;

/// A labeled ordered tree (GTR paper, Definition 3.1) that can be unparsed and edited.
pub trait ReducibleTree {
    /// A node handle; stays valid across edits of other nodes.
    type Node: Copy + Eq + Hash + Ord + Debug + Send + Sync;

    /// The root.
    fn root(&self) -> Self::Node;
    /// The children, in order.
    fn children(&self, node: Self::Node) -> Vec<Self::Node>;
    /// The node's label (for derivation trees: the symbol, or the terminal for leaves).
    fn label(&self, node: Self::Node) -> String;
    /// The label of the edge from the parent (for derivation trees: the alternative and
    /// position in the parent); empty for the root.
    fn edge_label(&self, node: Self::Node) -> String;
    /// The parent, if any.
    fn parent(&self, node: Self::Node) -> Option<Self::Node>;
    /// The size of the node's subtree, the measure reductions minimize (bytes it derives).
    fn size(&self, node: Self::Node) -> usize;
    /// The bytes of the whole tree with `edits` applied (the tree itself is unchanged).
    fn unparse_with(&self, edits: &Edits<Self::Node>) -> Vec<u8>;
    /// Applies `edits` for good.
    fn apply(&mut self, edits: &Edits<Self::Node>);

    /// The nodes `depth` edges below the root, left to right.
    fn level(&self, depth: usize) -> Vec<Self::Node> {
        let mut level = vec![self.root()];
        for _ in 0..depth {
            level = level.into_iter().flat_map(|n| self.children(n)).collect();
            if level.is_empty() {
                break;
            }
        }
        level
    }

    /// The bytes of the whole tree.
    fn unparse(&self) -> Vec<u8> {
        self.unparse_with(&Vec::new())
    }

    /// The context of a node (paper: `context(t)`): its parent's label and its edge label.
    fn context(&self, node: Self::Node) -> Option<(String, String)> {
        self.parent(node).map(|p| (self.label(p), self.edge_label(node)))
    }
}
