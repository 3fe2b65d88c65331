//! Token boundaries on derivation trees: find where a lexeme runs on into the next one, and fix it.
//!
//! In a grammar with a `%layout` rule, a tree's text is a sequence of lexemes: tokens (the text
//! between two layout nodes) and the layout's own iterations (whitespace, comments). Where one
//! would lex as part of the next (`a` `in`, `#note` then `x` on one line), [`fix_boundaries`]
//! drops the offending layout lexeme or puts a separator into the empty layout between tokens.

use std::collections::HashMap;

use super::{NodeId, NodeKind, Tree};
use crate::grammar::{Body, Grammar, LayoutRepeat, SymbolId};

/// One lexeme: `start..end` in the tree's text; `extra` is the layout iteration it is, if any.
#[derive(Clone, Copy, Debug)]
struct Lexeme {
    start: usize,
    end: usize,
    extra: Option<Extra>,
    /// For a token: the layout repetition just before it (where a separator can go), if any.
    gap_before: Option<NodeId>,
}

#[derive(Clone, Copy, Debug)]
struct Extra {
    repeat: NodeId,
    node: NodeId,
}

/// The lexemes of `tree` in order (empty without a layout rule).
fn lexemes(tree: &Tree, layouts: &[LayoutRepeat]) -> Vec<Lexeme> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut token_start = 0usize;
    let mut pending_gap: Option<NodeId> = None;
    let mut stack = vec![tree.root()];
    let flush = |out: &mut Vec<Lexeme>, start: usize, end: usize, gap: &mut Option<NodeId>| {
        if start < end {
            out.push(Lexeme {
                start,
                end,
                extra: None,
                gap_before: gap.take(),
            });
        }
    };
    while let Some(node) = stack.pop() {
        let kind = tree.kind(node);
        if let Some(l) = layouts.iter().find(|l| kind.symbol() == Some(l.layout)) {
            flush(&mut out, token_start, offset, &mut pending_gap);
            let repeat = find_repeat(tree, node, l.repeat);
            // The next token's gap: where a separator goes if the layout is (or becomes, once
            // a run-on comment is dropped) empty.
            pending_gap = repeat;
            match repeat {
                Some(rep) if tree.len_of(node) > 0 => {
                    let mut at = offset;
                    for child in tree.children(rep) {
                        let len = tree.len_of(child);
                        if len > 0 {
                            out.push(Lexeme {
                                start: at,
                                end: at + len,
                                extra: Some(Extra {
                                    repeat: rep,
                                    node: child,
                                }),
                                gap_before: None,
                            });
                        }
                        at += len;
                    }
                }
                _ => {}
            }
            offset += tree.len_of(node);
            token_start = offset;
            continue;
        }
        if let NodeKind::Leaf { .. } = kind {
            offset += tree.len_of(node);
            continue;
        }
        let children: Vec<NodeId> = tree.children(node).collect();
        stack.extend(children.into_iter().rev());
    }
    flush(&mut out, token_start, offset, &mut pending_gap);
    out
}

/// The repetition node of symbol `repeat_sym` at or below `node` through single children.
fn find_repeat(tree: &Tree, mut node: NodeId, repeat_sym: SymbolId) -> Option<NodeId> {
    loop {
        if let NodeKind::Repeat { symbol } = tree.kind(node) {
            return (symbol == repeat_sym).then_some(node);
        }
        let mut children = tree.children(node);
        match (children.next(), children.next()) {
            (Some(only), None) => node = only,
            _ => return None,
        }
    }
}

/// The decisions of one pass: layout lexemes to drop, empty layouts to fill with a separator.
struct Plan {
    remove: Vec<NodeId>,
    separate: Vec<NodeId>,
}

/// One left-to-right pass over the lexemes, as a maximal-munch lexer reads them: where the last
/// kept lexeme would run on into the next, drop whichever of the two is layout (a comment that
/// would swallow the rest of its line) or, between two tokens, put a separator into the empty
/// layout. Separators are trusted (a space runs into nothing), so the pass never undoes itself.
fn plan(grammar: &Grammar, tree: &Tree, layouts: &[LayoutRepeat]) -> Plan {
    let text = tree.unparse();
    let lexemes = lexemes(tree, layouts);
    let b = grammar.boundaries();
    b.with_cache(|cache| {
        let mut counts: HashMap<NodeId, usize> = HashMap::new();
        let mut plan = Plan {
            remove: Vec::new(),
            separate: Vec::new(),
        };
        // Kept lexemes so far; `None` marks an inserted separator (nothing runs on from it).
        let mut kept: Vec<Option<Lexeme>> = Vec::new();
        'next: for lex in &lexemes {
            while let Some(Some(a)) = kept.last().copied() {
                if !b.runs_on_parts(cache, &text[a.start..a.end], &text[lex.start..]) {
                    break;
                }
                let mut removable = |e: &Extra| {
                    let min = repeat_min(tree, layouts, e.repeat);
                    let n = counts.entry(e.repeat).or_insert_with(|| tree.child_count(e.repeat));
                    if *n > min as usize {
                        *n -= 1;
                        true
                    } else {
                        false
                    }
                };
                if let Some(e) = a.extra.filter(|e| removable(e)) {
                    plan.remove.push(e.node);
                    kept.pop();
                    continue;
                }
                if let Some(e) = lex.extra.filter(|e| removable(e)) {
                    plan.remove.push(e.node);
                    continue 'next;
                }
                if let (None, None, Some(gap)) = (a.extra, lex.extra, lex.gap_before) {
                    plan.separate.push(gap);
                    kept.push(None);
                }
                break;
            }
            kept.push(Some(*lex));
        }
        plan
    })
}

/// The minimum count of the layout repetition node `rep`.
fn repeat_min(tree: &Tree, layouts: &[LayoutRepeat], rep: NodeId) -> u32 {
    let sym = tree.kind(rep).symbol();
    layouts
        .iter()
        .find(|l| Some(l.repeat) == sym)
        .map_or(u32::MAX, |l| l.min)
}

fn layout_parts(grammar: &Grammar) -> Option<&[LayoutRepeat]> {
    let layouts = grammar.boundaries().layout_repeats();
    (!layouts.is_empty()).then_some(layouts)
}

/// The byte ranges of the tokens of `tree` (the text between layout nodes, without the
/// layout's own lexemes), in order; empty for grammars without `%layout`. A lexer reading the
/// text must find the same tokens: what token-boundary fixing guarantees.
pub fn token_spans(grammar: &Grammar, tree: &Tree) -> Vec<(usize, usize)> {
    let Some(layouts) = layout_parts(grammar) else {
        return Vec::new();
    };
    lexemes(tree, layouts)
        .into_iter()
        .filter(|l| l.extra.is_none())
        .map(|l| (l.start, l.end))
        .collect()
}

/// Fixes every token boundary of `tree` where a lexeme would run on into the next: a layout
/// lexeme that runs on (a line comment before more text on its line) is removed; between two
/// tokens that would lex as one, the empty layout gets one cheapest layout lexeme (a space).
/// Returns the number of fixes. No-op for grammars without `%layout`.
pub fn fix_boundaries(grammar: &Grammar, tree: &mut Tree) -> usize {
    let Some(layouts) = layout_parts(grammar) else {
        return 0;
    };
    let plan = plan(grammar, tree, layouts);
    if plan.remove.is_empty() && plan.separate.is_empty() {
        return 0;
    }
    // Unsized edits, then one pass for the sizes: sized ones walk up to the root each, which
    // made generating megabytes of css or toml quadratic.
    for &node in &plan.remove {
        tree.detach_unsized(node);
    }
    for &rep in &plan.separate {
        // The separator is the cheapest lexeme of the gap's own layout (a space, also where
        // only a layout without line breaks may go).
        let Some(Body::Repeat { item, .. }) = tree.kind(rep).symbol().map(|s| &grammar.symbol(s).body) else {
            continue;
        };
        if let Some(sep) = tree.add_cheapest(grammar, *item) {
            tree.append_child_unsized(rep, sep);
        }
    }
    tree.recompute_lens();
    plan.remove.len() + plan.separate.len()
}

/// Whether some lexeme of `tree` runs on into the next where a fix is possible (what
/// [`fix_boundaries`] would change). False for grammars without `%layout`.
pub fn has_run_on(grammar: &Grammar, tree: &Tree) -> bool {
    let Some(layouts) = layout_parts(grammar) else {
        return false;
    };
    let plan = plan(grammar, tree, layouts);
    !plan.remove.is_empty() || !plan.separate.is_empty()
}

/// Removes layout lexemes (whitespace runs, comments), longest first, until the tree derives at
/// most `max_len` bytes or no layout is left that can go; the boundaries stay fixed (a removal
/// that makes two tokens touch costs a one-byte separator). Returns the bytes saved. Generation
/// uses it to stay within its size limit once separators were added.
pub fn trim_layout(grammar: &Grammar, tree: &mut Tree, max_len: usize) -> usize {
    let Some(layouts) = layout_parts(grammar) else {
        return 0;
    };
    let start = tree.len();
    let mut extras: Vec<Lexeme> = lexemes(tree, layouts)
        .into_iter()
        .filter(|l| l.extra.is_some())
        .collect();
    // Longest first; equal lengths keep text order (deterministic).
    extras.sort_by_key(|l| std::cmp::Reverse(l.end - l.start));
    for lex in extras {
        if tree.len() <= max_len {
            break;
        }
        let Some(e) = lex.extra else { continue };
        if tree.child_count(e.repeat) <= repeat_min(tree, layouts, e.repeat) as usize || tree.parent(e.node).is_none() {
            continue;
        }
        let before = tree.len();
        let mut trial = tree.clone();
        trial.remove(e.node);
        fix_boundaries(grammar, &mut trial);
        if trial.len() < before {
            *tree = trial;
        }
    }
    start - tree.len()
}
