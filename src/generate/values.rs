//! `%values`: rules whose generated texts are drawn from a rule of words (the Unicode property
//! names a regex parser knows, a date's valid days), each word parsed again as the rule.
//!
//! A context-free rule cannot always say which spellings of a token the real parser takes;
//! `hellfuzz refine` then learns a list of texts that it does take, and generation uses it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rand::Rng;

use super::{Generator, Limits};
use crate::grammar::{Body, Grammar, SymbolId, Values};
use crate::parse::Parser;
use crate::tree::{NodeId, Tree};

/// Longest text drawn from a `%values` source rule (its words are short tokens).
const MAX_WORD: usize = 256;

/// Per `%values` rule instance: its parser (the grammar started at it), and the trees of the
/// words parsed so far (`None`: not a text of the rule); per keyed table (its source), its
/// words with their keys' texts. Shared by generators that draw in parallel from the same
/// grammar (see [`Generator::with_words`]): a rule's parser is compiled once, not per generator.
#[derive(Default)]
struct Cache {
    parsers: HashMap<SymbolId, Arc<Parser>>,
    trees: HashMap<(SymbolId, Vec<u8>), Option<Tree>>,
    keyed: HashMap<SymbolId, Arc<Vec<KeyedWord>>>,
}

/// The `%values` words of one grammar parsed as their rules, for generators of that grammar
/// to share (a clone shares the same cache). Parsing a word is the same whichever generator
/// does it first, so sharing changes no generated input.
#[derive(Default, Clone)]
pub struct Words(Arc<Mutex<Cache>>);

impl Words {
    /// The cache, also after a generator panicked while holding it (what it holds is whole:
    /// every entry is inserted complete).
    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
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
        let mut drawn = NodeMarks::default();
        // Most tables name copies of a rule that few trees hold: a table none of whose rules
        // is in the tree is passed over without a walk.
        let mut present = vec![false; g.symbols().len()];
        mark_symbols(tree, tree.root(), &mut present);
        let mut tables: Vec<&Values> = g.values().iter().collect();
        tables.sort_by_key(|v| (!v.key.is_empty(), std::cmp::Reverse(v.names.len())));
        let mut stack = Vec::new();
        for v in tables {
            if !v.names.iter().any(|s| present[s.0 as usize]) {
                continue;
            }
            if !v.key.is_empty() {
                self.draw_keyed_table(tree, v, &drawn, &mut present);
                continue;
            }
            let copies_only = v.names.iter().all(|&s| {
                let name = &g.symbol(s).name;
                crate::grammar::base_name(name) != *name
            });
            let mut nodes: Vec<NodeId> = Vec::new();
            stack.push(tree.root());
            while let Some(n) = stack.pop() {
                if tree.kind(n).symbol().is_some_and(|s| v.names.contains(&s)) {
                    nodes.push(n);
                    continue;
                }
                if drawn.get(n) && !copies_only {
                    continue;
                }
                push_children_reversed(tree, n, &mut stack);
            }
            for node in nodes {
                let Some(sym) = tree.kind(node).symbol() else { continue };
                let (limits, clipped) = (self.limits, self.clipped);
                self.limits = Limits::up_to(MAX_WORD);
                let word = self.draw::<Tree>(v.source).unparse();
                (self.limits, self.clipped) = (limits, clipped);
                if let Some(parsed) = self.word_tree(sym, word) {
                    mark_symbols(&parsed, parsed.root(), &mut present);
                    let copy = tree.graft(&parsed, parsed.root());
                    tree.replace(node, copy);
                    drawn.set(node, false);
                    drawn.set(copy, true);
                }
            }
        }
    }

    /// Redraws the nodes of keyed table `v`, the outermost first; inside a node left as it
    /// was (a call of a function no word names), those it holds (`calc(var(…))`), but not
    /// inside a word an earlier table drew (`drawn`).
    fn draw_keyed_table(&mut self, tree: &mut Tree, v: &Values, drawn: &NodeMarks, present: &mut [bool]) {
        let mut stack = vec![tree.root()];
        while let Some(n) = stack.pop() {
            if let Some(sym) = tree.kind(n).symbol().filter(|s| v.names.contains(s)) {
                if self.draw_keyed(tree, n, sym, v, present) {
                    continue;
                }
            }
            if drawn.get(n) {
                continue;
            }
            push_children_reversed(tree, n, &mut stack);
        }
    }

    /// Redraws `node` (of `sym`) from the words of the keyed table `v` whose key has the text
    /// of `node`'s key, and says whether it did; a node without a key child, or whose key no
    /// word has, stays.
    fn draw_keyed(&mut self, tree: &mut Tree, node: NodeId, sym: SymbolId, v: &Values, present: &mut [bool]) -> bool {
        let Some(key) = key_child(self.grammar, tree, node, &v.key) else {
            return false;
        };
        let key = tree.unparse_node(key).trim_ascii().to_vec();
        let known = self.words.lock().keyed.get(&v.source).cloned();
        let words = match known {
            Some(words) => words,
            None => {
                // Outside the lock: listing the words parses them (`word_tree` locks).
                let words = Arc::new(self.keyed_words(sym, v));
                Arc::clone(self.words.lock().keyed.entry(v.source).or_insert(words))
            }
        };
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
        mark_symbols(&parsed, parsed.root(), present);
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
        let parser = {
            let mut cache = self.words.lock();
            if let Some(t) = cache.trees.get(&(sym, word.clone())) {
                return t.clone();
            }
            // Compiled under the lock: another generator waits for it rather than compiling
            // the same parser again.
            Arc::clone(
                cache
                    .parsers
                    .entry(sym)
                    .or_insert_with(|| Arc::new(Parser::new(&g.with_start(sym)))),
            )
        };
        let tree = parser.tree(&word);
        self.words.lock().trees.insert((sym, word), tree.clone());
        tree
    }
}

/// Nodes of a tree being redrawn that are marked (the words drawn so far); nodes grafted
/// after it was made are unmarked until set.
#[derive(Default)]
struct NodeMarks(Vec<bool>);

impl NodeMarks {
    fn get(&self, n: NodeId) -> bool {
        self.0.get(n.0 as usize).copied().unwrap_or(false)
    }

    fn set(&mut self, n: NodeId, marked: bool) {
        let i = n.0 as usize;
        if i >= self.0.len() {
            self.0.resize(i + 1, false);
        }
        self.0[i] = marked;
    }
}

/// Marks in `present` (indexed by symbol) every rule with a node in the subtree of `node`.
fn mark_symbols(tree: &Tree, node: NodeId, present: &mut [bool]) {
    tree.pre_order(node, |n| {
        if let Some(s) = tree.kind(n).symbol() {
            present[s.0 as usize] = true;
        }
    });
}

/// Pushes `node`'s children on `stack` last first, so that they pop in order.
fn push_children_reversed(tree: &Tree, node: NodeId, stack: &mut Vec<NodeId>) {
    let from = stack.len();
    stack.extend(tree.children(node));
    stack[from..].reverse();
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
