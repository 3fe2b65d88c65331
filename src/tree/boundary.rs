//! Token boundaries on derivation trees: find where a lexeme runs on into the next one, and fix it.
//!
//! In a grammar with a `%layout` rule, a tree's text is a sequence of lexemes: tokens (the text
//! between two layout nodes) and the layout's own iterations (whitespace, comments). Where one
//! would lex as part of the next (`a` `in`, `#note` then `x` on one line), [`fix_boundaries`]
//! drops the offending layout lexeme or puts a separator into the empty layout between tokens.

use std::collections::HashMap;

use super::{NodeId, NodeKind, Tree};
use crate::grammar::{Body, Boundaries, BoundaryCache, Grammar, Item, LayoutRepeat, SymbolId, TokenSet};

/// One lexeme: `start..end` in the tree's text; `extra` is the layout iteration it is, if any.
#[derive(Clone, Copy, Debug)]
struct Lexeme {
    start: usize,
    end: usize,
    extra: Option<Extra>,
    /// For a token: the layout repetition just before it (where a separator can go), if any.
    gap_before: Option<NodeId>,
    /// Where the last token starts inside this text between two layouts: `static` in
    /// `'static` when a rule writes `_ "'" identifier` (two tokens, no layout between them).
    last_token: usize,
    /// For a token: the last token before it (the node of its item), which says what the
    /// grammar lets start here (see [`allowed_after`]); `None` at the start of the text.
    after: Option<NodeId>,
    /// The same for the last token in it, where that is not its first.
    last_after: Option<NodeId>,
}

#[derive(Clone, Copy, Debug)]
struct Extra {
    repeat: NodeId,
    node: NodeId,
}

/// The lexemes of `tree` in order (empty without a layout rule).
fn lexemes(grammar: &Grammar, tree: &Tree, layouts: &[LayoutRepeat]) -> Vec<Lexeme> {
    let b = grammar.boundaries();
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut token_start = 0usize;
    // The last token item's start in the current text between layouts, and where it ends (a
    // token inside it is part of it, not a token of its own).
    let (mut last_token, mut covered) = (0usize, 0usize);
    let mut pending_gap: Option<NodeId> = None;
    // The last token item's node, and the one before the current text between layouts.
    let (mut token_node, mut after): (Option<NodeId>, Option<NodeId>) = (None, None);
    let mut before_last: Option<NodeId> = None;
    let mut stack = vec![tree.root()];
    let flush =
        |out: &mut Vec<Lexeme>, start: usize, end: usize, last: usize, gap: &mut Option<NodeId>, after, last_after| {
            if start < end {
                out.push(Lexeme {
                    start,
                    end,
                    extra: None,
                    gap_before: gap.take(),
                    last_token: last.clamp(start, end),
                    after,
                    last_after,
                });
            }
        };
    while let Some(node) = stack.pop() {
        let kind = tree.kind(node);
        if let Some(l) = layouts.iter().find(|l| kind.symbol() == Some(l.layout)) {
            flush(
                &mut out,
                token_start,
                offset,
                last_token,
                &mut pending_gap,
                after,
                before_last,
            );
            after = token_node;
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
                                last_token: at,
                                after: None,
                                last_after: None,
                            });
                        }
                        at += len;
                    }
                }
                _ => {}
            }
            offset += tree.len_of(node);
            token_start = offset;
            last_token = offset;
            covered = offset;
            continue;
        }
        let item = match kind {
            NodeKind::Leaf { terminal } => Some(Item::Terminal(terminal)),
            _ => kind.symbol().map(Item::Symbol),
        };
        let len = tree.len_of(node);
        if offset >= covered && len > 0 && item.is_some_and(|i| b.is_token(i)) {
            last_token = offset;
            covered = offset + len;
            before_last = token_node;
            token_node = Some(node);
        }
        if let NodeKind::Leaf { .. } = kind {
            offset += len;
            continue;
        }
        let children: Vec<NodeId> = tree.children(node).collect();
        stack.extend(children.into_iter().rev());
    }
    flush(
        &mut out,
        token_start,
        offset,
        last_token,
        &mut pending_gap,
        after,
        before_last,
    );
    out
}

/// Whether `head` runs on into `tail` for a lexer that reads a catch-all token only where the
/// grammar lets it come: read with every token first (nearly always no), and only then with
/// the tokens `allowed` gives (`None`: every token), which walks the tree and is not needed
/// for the rest.
fn runs_on_here(
    b: &Boundaries,
    cache: &mut BoundaryCache,
    head: &[u8],
    tail: &[u8],
    allowed: impl FnOnce() -> Option<TokenSet>,
) -> bool {
    b.runs_on_parts(cache, head, tail)
        && match allowed() {
            None => true,
            Some(set) => b.runs_on_among(cache, head, tail, Some(&set)),
        }
}

/// The tokens the grammar lets start right after the token item `node`: what the rest of its
/// rule may start with and, where that rest may be empty, whatever may follow the rule
/// anywhere (another parse may end there too: `x` `++` is `x++` in JavaScript, wherever `x`
/// stands); before the first token, what the start rule may start with.
fn allowed_after(grammar: &Grammar, tree: &Tree, node: Option<NodeId>) -> Option<TokenSet> {
    let b = grammar.boundaries();
    let Some(node) = node else {
        return b.first_of(Item::Symbol(grammar.start())).cloned();
    };
    let parent = tree.parent(node)?;
    let sym = tree.kind(parent).symbol()?;
    let mut set = TokenSet::default();
    let rest_empty = match tree.kind(parent) {
        NodeKind::Rule { alt, .. } => {
            let items = &grammar.symbol(sym).alternatives().get(alt as usize)?.items;
            let k = tree.children(parent).position(|c| c == node)?;
            let mut empty = true;
            for &it in items.get(k + 1..)? {
                if grammar.is_layout(it) {
                    continue;
                }
                set.union_with(b.first_of(it)?);
                if !grammar.item_nullable(it) {
                    empty = false;
                    break;
                }
            }
            empty
        }
        NodeKind::Repeat { .. } => {
            if let Body::Repeat { item, .. } = grammar.symbol(sym).body {
                set.union_with(b.first_of(item)?);
            }
            true
        }
        _ => true,
    };
    if rest_empty {
        set.union_with(b.follow_of(sym)?);
    }
    Some(set)
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
    /// The empty layout repetition, the token before it and where the text after it starts.
    separate: Vec<(NodeId, Lexeme, usize)>,
}

/// One left-to-right pass over the lexemes, as a maximal-munch lexer reads them: where the last
/// kept lexeme would run on into the next, drop whichever of the two is layout (a comment that
/// would swallow the rest of its line) or, between two tokens, put a separator into the empty
/// layout. Separators are trusted (a space runs into nothing), so the pass never undoes itself.
fn plan(grammar: &Grammar, tree: &Tree, layouts: &[LayoutRepeat]) -> Plan {
    let text = tree.unparse();
    let lexemes = lexemes(grammar, tree, layouts);
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
                let (head, tail) = (&text[a.start..a.end], &text[lex.start..]);
                // The whole text between two layouts (read with the tokens that may start
                // there), the last token in it (`static` of `'static`), or a word glued to what
                // ends in a word character (`99if`).
                let allowed = || {
                    a.extra
                        .is_none()
                        .then(|| allowed_after(grammar, tree, a.after))
                        .flatten()
                };
                let last = &text[a.last_token..a.end];
                let runs_on = runs_on_here(b, cache, head, tail, allowed)
                    || (a.last_token > a.start
                        && runs_on_here(b, cache, last, tail, || allowed_after(grammar, tree, a.last_after)))
                    || (a.extra.is_none() && lex.extra.is_none() && b.glues_words(cache, head, tail))
                    || (a.extra.is_none() && lex.extra.is_none() && kept_apart(grammar, last, tail));
                if !runs_on {
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
                    plan.separate.push((gap, a, lex.start));
                    kept.push(None);
                }
                break;
            }
            kept.push(Some(*lex));
        }
        plan
    })
}

/// Whether a `%separate` pair forbids the token `last` (the last token before an empty
/// layout) to touch the text `tail` that follows it: `and` then `(…`. ASCII case aside, as
/// `%never` pairs: a space between two tokens is valid in either case, and SQL's keywords
/// come in any.
fn kept_apart(grammar: &Grammar, last: &[u8], tail: &[u8]) -> bool {
    grammar.separate().iter().any(|s| {
        !s.never
            && s.before.eq_ignore_ascii_case(last)
            && tail
                .get(..s.after.len())
                .is_some_and(|t| t.eq_ignore_ascii_case(&s.after))
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
    lexemes(grammar, tree, layouts)
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
    let text = if plan.separate.is_empty() {
        Vec::new()
    } else {
        tree.unparse()
    };
    // Unsized edits, then one pass for the sizes: sized ones walk up to the root each, which
    // made generating megabytes of css or toml quadratic.
    for &node in &plan.remove {
        tree.detach_unsized(node);
    }
    let b = grammar.boundaries();
    for &(rep, a, tail_start) in &plan.separate {
        // The separator is the cheapest lexeme of the gap's own layout (a space, also where
        // only a layout without line breaks may go), unless the token before it would run on
        // through it (a token that ends at the end of its line, `#!x` or a `#` comment written
        // as a token): then a line break, if the layout has one.
        let Some(Body::Repeat { item, .. }) = tree.kind(rep).symbol().map(|s| &grammar.symbol(s).body) else {
            continue;
        };
        let tail = &text[tail_start..text.len().min(tail_start + 256)];
        // Computed here, once per separator: `separator` changes the tree.
        let allowed = allowed_after(grammar, tree, a.after);
        let last_allowed = allowed_after(grammar, tree, a.last_after);
        let stops = |sep: &[u8]| {
            let after: Vec<u8> = sep.iter().chain(tail).copied().collect();
            b.with_cache(|cache| {
                let whole = b.runs_on_among(cache, &text[a.start..a.end], &after, allowed.as_ref());
                let last = a.last_token > a.start
                    && b.runs_on_among(cache, &text[a.last_token..a.end], &after, last_allowed.as_ref());
                !(whole || last)
            })
        };
        if let Some(sep) = separator(grammar, tree, *item, stops) {
            tree.append_child_unsized(rep, sep);
        }
    }
    tree.recompute_lens();
    plan.remove.len() + plan.separate.len()
}

/// A detached separator for a layout repetition of `item`: its cheapest derivation if `stops`
/// accepts its text, else the first of the item's alternatives (cheapest derivations), each also
/// with its first line-break class made a line break, that `stops` accepts; else the cheapest.
fn separator(grammar: &Grammar, tree: &mut Tree, item: Item, stops: impl Fn(&[u8]) -> bool) -> Option<NodeId> {
    let first = tree.add_cheapest(grammar, item)?;
    if stops(&tree.unparse_node(first)) {
        return Some(first);
    }
    let mut candidates = Vec::new();
    if let Item::Symbol(s) = item {
        if let Body::Choice(alts) = &grammar.symbol(s).body {
            'alts: for (i, alt) in alts.iter().enumerate() {
                let node = tree.new_node(NodeKind::Rule {
                    symbol: s,
                    alt: i as u32,
                });
                for &it in &alt.items {
                    let Some(c) = tree.add_cheapest(grammar, it) else {
                        continue 'alts;
                    };
                    tree.append_child_unsized(node, c);
                }
                candidates.push(node);
            }
        }
    }
    let copy = tree.add_cheapest(grammar, item)?;
    candidates.insert(0, copy);
    for c in candidates {
        if stops(&tree.unparse_node(c)) {
            return Some(c);
        }
        if with_line_break(grammar, tree, c) && stops(&tree.unparse_node(c)) {
            return Some(c);
        }
    }
    Some(first)
}

/// Makes the first leaf below `node` whose terminal is a class with `\n` in it a `\n`; false if
/// there is none.
fn with_line_break(grammar: &Grammar, tree: &mut Tree, node: NodeId) -> bool {
    let mut found = None;
    tree.pre_order(node, |n| {
        if let (None, NodeKind::Leaf { terminal }) = (found, tree.kind(n)) {
            if let crate::grammar::Terminal::Class { class, .. } = grammar.terminal(terminal) {
                if class.contains(u32::from(b'\n')) {
                    found = Some((n, terminal));
                }
            }
        }
    });
    let Some((leaf, terminal)) = found else { return false };
    let nl = tree.new_leaf(terminal, b"\n");
    tree.replace(leaf, nl);
    true
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
    if start <= max_len {
        return 0;
    }
    let mut extras: Vec<Lexeme> = lexemes(grammar, tree, layouts)
        .into_iter()
        .filter(|l| l.extra.is_some())
        .collect();
    // Longest first; equal lengths keep text order (deterministic).
    extras.sort_by_key(|l| std::cmp::Reverse(l.end - l.start));
    // What may go, in that order (no repetition below its minimum), with its bytes.
    let mut spare: HashMap<NodeId, usize> = HashMap::new();
    let removable: Vec<(NodeId, usize)> = extras
        .iter()
        .filter_map(|l| {
            let e = l.extra?;
            tree.parent(e.node)?;
            let n = spare.entry(e.repeat).or_insert_with(|| {
                tree.child_count(e.repeat)
                    .saturating_sub(repeat_min(tree, layouts, e.repeat) as usize)
            });
            (*n > 0).then(|| {
                *n -= 1;
                (e.node, l.end - l.start)
            })
        })
        .collect();
    if removable.is_empty() {
        return 0;
    }
    let trial = |k: usize| {
        let mut t = tree.clone();
        for &(node, _) in &removable[..k] {
            t.detach_unsized(node);
        }
        t.recompute_lens();
        fix_boundaries(grammar, &mut t);
        t
    };
    // The fewest of them, longest first, that bring the tree within `max_len`. Each trial is a
    // pass over the tree with the lexer, so the bytes removed bound the search first: removing
    // the first `k` saves at most their bytes, so it takes at least `least` of them; and at
    // least their bytes less a one-byte separator each, so `most` of them are enough. (Doubling
    // from one and then bisecting took twice the logarithm of their number in trials: a fifth
    // to a third of the time generating inverted SQL.)
    // Separators make the length only nearly monotone in `k` and the bounds nearly exact, so
    // every result is checked, not assumed, and bisection over all of them is the fallback.
    let fits = |t: &Tree| t.len() <= max_len;
    let over = start - max_len;
    let first_saving = |saving: &dyn Fn(usize) -> usize| {
        let mut saved = 0;
        removable
            .iter()
            .position(|&(_, len)| {
                saved += saving(len);
                saved >= over
            })
            .map_or(removable.len(), |i| i + 1)
    };
    let least = first_saving(&|len| len);
    let most = first_saving(&|len| len.saturating_sub(1)).max(least);
    let (mut lo, mut hi) = (least - 1, least);
    let mut best = trial(hi);
    for next in [most, removable.len()] {
        if fits(&best) {
            break;
        }
        if next > hi {
            (lo, hi) = (hi, next);
            best = trial(hi);
        }
    }
    if fits(&best) {
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let t = trial(mid);
            if fits(&t) {
                hi = mid;
                best = t;
            } else {
                lo = mid;
            }
        }
    }
    if best.len() < start {
        *tree = best;
    }
    start - tree.len()
}
