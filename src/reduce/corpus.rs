//! Corpus-based filtering (GTR paper §4.2): what a corpus of sample trees says is never valid.
//!
//! [`CorpusFilter::learn`] records, per node label, the contexts (parent label, edge label) it was
//! seen in, and per parent label the edges present on every such node (mandatory edges).

use std::collections::{HashMap, HashSet};

use super::labeled::ReducibleTree;

/// Knowledge learned from sample trees, used to reject candidates before the oracle sees them.
#[derive(Clone, Debug, Default)]
pub struct CorpusFilter {
    contexts: HashMap<String, HashSet<(String, String)>>,
    mandatory: HashMap<String, HashSet<String>>,
}

impl CorpusFilter {
    /// Learns from the trees of a corpus (parsed samples of the input format).
    pub fn learn<T: ReducibleTree>(trees: &[T]) -> CorpusFilter {
        let mut f = CorpusFilter::default();
        for t in trees {
            let mut stack = vec![t.root()];
            while let Some(n) = stack.pop() {
                let children = t.children(n);
                if let Some(ctx) = t.context(n) {
                    f.contexts.entry(t.label(n)).or_default().insert(ctx);
                }
                let edges: HashSet<String> = children.iter().map(|&c| t.edge_label(c)).collect();
                f.mandatory
                    .entry(t.label(n))
                    .and_modify(|m| m.retain(|e| edges.contains(e)))
                    .or_insert(edges);
                stack.extend(children);
            }
        }
        f
    }

    /// Learns from sample files parsed with `grammar`. Returns the filter, how many samples it
    /// learned from, and the samples that could not be read or parsed.
    pub fn learn_files(
        grammar: &crate::grammar::Grammar,
        files: &[std::path::PathBuf],
    ) -> (CorpusFilter, usize, Vec<crate::mine::samples::Skipped>) {
        let (trees, skipped) = crate::mine::samples::parse_files(grammar, files);
        let derivations: Vec<super::Derivation<'_>> =
            trees.into_iter().map(|t| super::Derivation::new(grammar, t)).collect();
        (CorpusFilter::learn(&derivations), derivations.len(), skipped)
    }

    /// Whether every node labeled `parent` in the corpus had an edge `edge` (Alg. 3): then a
    /// child on that edge must not be deleted. Unknown labels have no mandatory edges.
    pub fn mandatory(&self, parent: &str, edge: &str) -> bool {
        self.mandatory.get(parent).is_some_and(|m| m.contains(edge))
    }

    /// Whether a node labeled `label` was seen in context `ctx` (the specialized Alg. 2).
    /// Labels never seen are allowed anywhere: the corpus knows nothing about them.
    pub fn allows_context(&self, label: &str, ctx: &(String, String)) -> bool {
        self.contexts.get(label).is_none_or(|c| c.contains(ctx))
    }
}
