//! `%values`: rules whose generated texts are drawn from a rule of words (the Unicode property
//! names a regex parser knows, a date's valid days), each word parsed again as the rule.
//!
//! A context-free rule cannot always say which spellings of a token the real parser takes;
//! `hellfuzz refine` then learns a list of texts that it does take, and generation uses it.

use std::collections::HashMap;

use super::{Generator, Limits};
use crate::grammar::SymbolId;
use crate::parse::Parser;
use crate::tree::{NodeId, Tree};

/// Longest text drawn from a `%values` source rule (its words are short tokens).
const MAX_WORD: usize = 256;

/// Per `%values` rule instance: its parser (the grammar started at it), and the trees of the
/// words parsed so far (`None`: not a text of the rule).
#[derive(Default)]
pub(super) struct Words {
    parsers: HashMap<SymbolId, Parser>,
    trees: HashMap<(SymbolId, Vec<u8>), Option<Tree>>,
}

impl Generator<'_> {
    /// Redraws the text of every `%values` node (the outermost where they nest) from its source.
    pub(super) fn draw_values(&mut self, tree: &mut Tree) {
        let g = self.grammar;
        // The broadest tables first: a copy's own words (`%values` naming `x[in y]`) are
        // drawn after the rule's (`%values x` covers every copy of `x`), whichever came first.
        let mut tables: Vec<&crate::grammar::Values> = g.values().iter().collect();
        tables.sort_by_key(|v| std::cmp::Reverse(v.names.len()));
        for v in tables {
            let mut nodes: Vec<NodeId> = Vec::new();
            let mut stack = vec![tree.root()];
            while let Some(n) = stack.pop() {
                if tree.kind(n).symbol().is_some_and(|s| v.names.contains(&s)) {
                    nodes.push(n);
                    continue;
                }
                let children: Vec<NodeId> = tree.children(n).collect();
                stack.extend(children.into_iter().rev());
            }
            for node in nodes {
                let Some(sym) = tree.kind(node).symbol() else { continue };
                let (limits, clipped) = (self.limits, self.clipped);
                self.limits = Limits::up_to(MAX_WORD);
                let word = self.draw::<Tree>(v.source).unparse();
                (self.limits, self.clipped) = (limits, clipped);
                if let Some(parsed) = self.word_tree(sym, word) {
                    let copy = tree.graft(&parsed, parsed.root());
                    tree.replace(node, copy);
                }
            }
        }
    }

    /// `word` parsed as `sym` (cached), if it is one of its texts.
    fn word_tree(&mut self, sym: SymbolId, word: Vec<u8>) -> Option<Tree> {
        let g = self.grammar;
        let words = &mut self.words;
        if let Some(t) = words.trees.get(&(sym, word.clone())) {
            return t.clone();
        }
        let parser = words
            .parsers
            .entry(sym)
            .or_insert_with(|| Parser::new(&g.with_start(sym)));
        let tree = parser.tree(&word);
        words.trees.insert((sym, word), tree.clone());
        tree
    }
}
