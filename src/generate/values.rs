//! `%values`: rules whose generated texts are drawn from a rule of words (the Unicode property
//! names a regex parser knows, a date's valid days), each word parsed again as the rule.
//!
//! A context-free rule cannot always say which spellings of a token the real parser takes;
//! `hellfuzz refine` then learns a list of texts that it does take, and generation uses it.

use std::collections::{HashMap, HashSet};

use rand::Rng;

use super::{Generator, Limits};
use crate::grammar::{Body, Grammar, SymbolId, Values};
use crate::parse::Parser;
use crate::tree::{NodeId, Tree};

/// Longest text drawn from a `%values` source rule (its words are short tokens).
const MAX_WORD: usize = 256;

/// Per `%values` rule instance: its parser (the grammar started at it), and the trees of the
/// words parsed so far (`None`: not a text of the rule); per keyed table (its source), its
/// words with their keys' texts.
#[derive(Default)]
pub(super) struct Words {
    parsers: HashMap<SymbolId, Parser>,
    trees: HashMap<(SymbolId, Vec<u8>), Option<Tree>>,
    keyed: HashMap<SymbolId, Vec<KeyedWord>>,
}

/// A word of a keyed table: its key's text, and the word.
type KeyedWord = (Vec<u8>, Vec<u8>);

impl Generator<'_> {
    /// Redraws the text of every `%values` node (the outermost where they nest) from its source.
    pub(super) fn draw_values(&mut self, tree: &mut Tree) {
        let g = self.grammar;
        // The broadest tables first: a copy's own words (`%values` naming `x[in y]`) are
        // drawn after the rule's (`%values x` covers every copy of `x`), whichever came first.
        // Keyed tables last: their key (a function's name) is read once it is drawn, and
        // nothing redraws inside a node they drew.
        // A word is a text the parser took whole: no later table of a rule redraws inside it
        // (the samples' names table would turn `EXTRACT` of an `EXTRACT(… FROM …)` drawn from
        // a copy's words into any name). A later table of the same node still draws it again,
        // and so does a copy's own table inside it: Rust's type names (`Self` among them)
        // drawn for a struct's name, whose copy's words leave `Self` out.
        let mut drawn: HashSet<NodeId> = HashSet::new();
        let mut tables: Vec<&Values> = g.values().iter().collect();
        tables.sort_by_key(|v| (!v.key.is_empty(), std::cmp::Reverse(v.names.len())));
        for v in tables {
            if !v.key.is_empty() {
                self.draw_keyed_table(tree, v, &drawn);
                continue;
            }
            let copies_only = v.names.iter().all(|&s| {
                let name = &g.symbol(s).name;
                crate::grammar::base_name(name) != *name
            });
            let mut nodes: Vec<NodeId> = Vec::new();
            let mut stack = vec![tree.root()];
            while let Some(n) = stack.pop() {
                if tree.kind(n).symbol().is_some_and(|s| v.names.contains(&s)) {
                    nodes.push(n);
                    continue;
                }
                if drawn.contains(&n) && !copies_only {
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
                    drawn.remove(&node);
                    drawn.insert(copy);
                }
            }
        }
    }

    /// Redraws the nodes of keyed table `v`, the outermost first; inside a node left as it
    /// was (a call of a function no word names), those it holds (`calc(var(…))`), but not
    /// inside a word an earlier table drew (`drawn`).
    fn draw_keyed_table(&mut self, tree: &mut Tree, v: &Values, drawn: &HashSet<NodeId>) {
        let mut stack = vec![tree.root()];
        while let Some(n) = stack.pop() {
            if let Some(sym) = tree.kind(n).symbol().filter(|s| v.names.contains(s)) {
                if self.draw_keyed(tree, n, sym, v) {
                    continue;
                }
            }
            if drawn.contains(&n) {
                continue;
            }
            let children: Vec<NodeId> = tree.children(n).collect();
            stack.extend(children.into_iter().rev());
        }
    }

    /// Redraws `node` (of `sym`) from the words of the keyed table `v` whose key has the text
    /// of `node`'s key, and says whether it did; a node without a key child, or whose key no
    /// word has, stays.
    fn draw_keyed(&mut self, tree: &mut Tree, node: NodeId, sym: SymbolId, v: &Values) -> bool {
        let Some(key) = key_child(self.grammar, tree, node, &v.key) else {
            return false;
        };
        let key = tree.unparse_node(key).trim_ascii().to_vec();
        if !self.words.keyed.contains_key(&v.source) {
            let words = self.keyed_words(sym, v);
            self.words.keyed.insert(v.source, words);
        }
        let words = &self.words.keyed[&v.source];
        let count = words.iter().filter(|(k, _)| *k == key).count();
        if count == 0 {
            return false;
        }
        let pick = self.rng.random_range(0..count);
        let Some(word) = words
            .iter()
            .filter(|(k, _)| *k == key)
            .nth(pick)
            .map(|(_, w)| w.clone())
        else {
            return false;
        };
        let Some(parsed) = self.word_tree(sym, word) else {
            return false;
        };
        let copy = tree.graft(&parsed, parsed.root());
        tree.replace(node, copy);
        true
    }

    /// The words of keyed table `v` (its source's alternatives of literals) that parse as
    /// `sym`, each with its key's text.
    fn keyed_words(&mut self, sym: SymbolId, v: &Values) -> Vec<KeyedWord> {
        let g = self.grammar;
        let Body::Choice(alts) = &g.symbol(v.source).body else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for alt in alts {
            let Some(word) = crate::grammar::literal_text(g.terminals(), &alt.items) else {
                continue;
            };
            let Some(parsed) = self.word_tree(sym, word.clone()) else {
                continue;
            };
            if let Some(k) = key_child(g, &parsed, parsed.root(), &v.key) {
                out.push((parsed.unparse_node(k).trim_ascii().to_vec(), word));
            }
        }
        out
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

/// The first node of one of the `key` symbols among `node`'s children, looking through the
/// synthetic nodes (groups, repetitions) of its rule but not into other named rules.
pub(crate) fn key_child(g: &Grammar, tree: &Tree, node: NodeId, key: &[SymbolId]) -> Option<NodeId> {
    let mut stack: Vec<NodeId> = tree.children(node).collect();
    stack.reverse();
    while let Some(n) = stack.pop() {
        let Some(s) = tree.kind(n).symbol() else { continue };
        if key.contains(&s) {
            return Some(n);
        }
        if g.symbol(s).synthetic {
            let children: Vec<NodeId> = tree.children(n).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    None
}
