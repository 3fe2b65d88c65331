//! Corpus-based filtering (GTR paper §4.2): what a corpus of sample trees says is never valid.
//!
//! [`CorpusFilter::learn`] records, per node label, the contexts (parent label, edge label) it was
//! seen in, and per parent label the edges present on every such node (mandatory edges).
//! [`CorpusFilter::learn_generic_files`] learns the same from samples cut into generic trees.

use std::collections::{HashMap, HashSet};

use super::labeled::ReducibleTree;

/// Knowledge learned from sample trees, used to reject candidates before the oracle sees them.
#[derive(Clone, Debug, Default)]
pub struct CorpusFilter {
    contexts: HashMap<String, HashSet<(String, String)>>,
    mandatory: HashMap<String, HashSet<String>>,
    /// How many nodes of each label were seen (the support of its mandatory edges).
    seen: HashMap<String, usize>,
    /// Mandatory edges of labels seen fewer times than this are ignored (0 or 1: all count).
    min_support: usize,
    /// Learned on generic trees (`reduce::generic`), not derivation trees: it applies to those.
    generic: bool,
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
                *f.seen.entry(t.label(n)).or_default() += 1;
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

    /// Learns from samples cut into generic trees (any text format, no grammar). A label must be
    /// seen on 3 nodes before its mandatory edges count: generic labels include words, and a
    /// word seen once would otherwise pin its whole line.
    pub fn learn_generic<S: AsRef<[u8]>>(samples: &[S]) -> CorpusFilter {
        let trees: Vec<_> = samples
            .iter()
            .map(|s| super::generic::GenericTree::parse(s.as_ref()))
            .collect();
        let mut filter = CorpusFilter::learn(&trees);
        filter.min_support = 3;
        filter.generic = true;
        filter
    }

    /// [`CorpusFilter::learn_generic`] from files. Returns the filter, how many samples it
    /// learned from, and the files that could not be read (with the error).
    pub fn learn_generic_files(
        files: &[std::path::PathBuf],
    ) -> (CorpusFilter, usize, Vec<(std::path::PathBuf, String)>) {
        let mut samples = Vec::new();
        let mut unreadable = Vec::new();
        for file in files {
            match std::fs::read(file) {
                Ok(bytes) => samples.push(bytes),
                Err(e) => unreadable.push((file.clone(), e.to_string())),
            }
        }
        (CorpusFilter::learn_generic(&samples), samples.len(), unreadable)
    }

    /// Whether it was learned on generic trees (then it applies to those, not to derivations).
    pub fn is_generic(&self) -> bool {
        self.generic
    }

    /// Whether every node labeled `parent` in the corpus had an edge `edge` (Alg. 3): then a
    /// child on that edge must not be deleted. Unknown labels (and, for generic filters,
    /// labels seen too rarely) have no mandatory edges.
    pub fn mandatory(&self, parent: &str, edge: &str) -> bool {
        self.seen.get(parent).is_some_and(|&n| n >= self.min_support)
            && self.mandatory.get(parent).is_some_and(|m| m.contains(edge))
    }

    /// Whether a node labeled `label` was seen in context `ctx` (the specialized Alg. 2).
    /// Labels never seen are allowed anywhere: the corpus knows nothing about them.
    pub fn allows_context(&self, label: &str, ctx: &(String, String)) -> bool {
        self.contexts.get(label).is_none_or(|c| c.contains(ctx))
    }
}
