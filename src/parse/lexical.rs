//! The token matcher: all end positions of a non-recursive symbol at a position, and its derivation.
//!
//! [`Lexer::ends`] answers "where can symbol S starting at byte i end?" directly on the grammar IR
//! (sets of positions, no backtracking blow-up); [`Lexer::derive`] rebuilds the tree for one span.
//! It also remembers the furthest byte any terminal test failed at, for error messages.

use rustc_hash::FxHashMap;

use super::compile::match_terminal;
use super::scan::{ScanCache, TokenDfa};
use crate::grammar::{Body, ByteSet, Grammar, Item, TerminalId};
use crate::tree::{NodeId, NodeKind, Tree};

pub(crate) struct Lexer<'a> {
    grammar: &'a Grammar,
    input: &'a [u8],
    /// Furthest offset at which a terminal test failed, and the terminals tried there.
    pub furthest: usize,
    pub expected: Vec<TerminalId>,
    track_failures: bool,
    /// The outer failure list while a token runs (see [`Lexer::token_ends`]).
    outer_expected: Vec<TerminalId>,
    pool: Vec<Vec<u32>>,
    /// Ends of (symbol, offset), once memoization is on. Stacked repetitions (`(x*)*`,
    /// `"x"?++`) and chains of rules (`a = b b; b = c c; ...`) ask for the same ones again and
    /// again, exponentially often in their depth; remembered, every grammar is polynomial.
    memo: FxHashMap<(u32, u32), Vec<u32>>,
    /// Symbol-level `ends` calls so far. Ordinary tokens make a few per input byte, and the memo
    /// would cost them a third of their speed, so it is switched on only once the calls exceed
    /// [`MEMO_AFTER_CALLS_PER_BYTE`] per byte: bounded waste first, polynomial after.
    calls: usize,
    memoize: bool,
    /// The grammar's `%layout` symbol, whose ends are remembered per offset from the start: in
    /// an imported grammar every token begins with it, so every token tried at an offset would
    /// otherwise match the same whitespace and comments again.
    layout: Option<u32>,
    /// Per offset: the range of `layout_ends` holding the layout's ends there (`u32::MAX`: not
    /// computed yet). Empty when the grammar has no layout.
    layout_memo: Vec<(u32, u32)>,
    layout_ends: Vec<u32>,
    /// Skip symbols whose first byte cannot match (fast). Off when diagnosing a failed parse:
    /// the skipped symbols' terminals belong in "expected one of ...".
    pub lookahead: bool,
    /// Whether the grammar has word tokens to check (a layout and `%lexeme` rules): spares the
    /// per-item test in grammars that have none.
    check_words: bool,
    /// For keywords after the layout (made on first use).
    boundary_cache: Option<crate::grammar::BoundaryCache>,
    /// The token DFA (see `scan`) and its cache: the ends of the symbols it matches, wherever
    /// failures need not be tracked (the run that looks ahead, and `derive`).
    dfa: Option<&'a TokenDfa>,
    pub dfa_cache: Option<ScanCache>,
    /// Whether the fast paths are on: the DFA here, and in `earley` dropping items that cannot
    /// continue. Off, the parser is the plain interpreter (tests compare the two).
    pub fast: bool,
    /// Keyword extraction (see [`Grammar::word`]): a name is not read where a keyword with the
    /// same span was. Only a run that may fail does this (the parser reruns without it).
    pub prefer_keywords: bool,
    /// Set by recognition when keyword extraction dropped a name: only then can a run without
    /// it accept what this run rejected.
    pub names_dropped: bool,
    /// Whether recognition records the items derived more than once (see `Chart::ambiguous`).
    pub track_ambiguity: bool,
}

impl Drop for Lexer<'_> {
    /// The boundary cache goes back to the grammar's pool: the next parse would otherwise set
    /// up its DFAs' tables again.
    fn drop(&mut self) {
        if let Some(cache) = self.boundary_cache.take() {
            self.grammar.boundaries().keep_cache(cache);
        }
    }
}

/// See [`Lexer::calls`]: far above what real grammars need (about 3 calls per byte for JSON).
const MEMO_AFTER_CALLS_PER_BYTE: usize = 64;

impl<'a> Lexer<'a> {
    pub fn new(grammar: &'a Grammar, input: &'a [u8]) -> Lexer<'a> {
        Lexer {
            grammar,
            input,
            furthest: 0,
            expected: Vec::new(),
            track_failures: true,
            outer_expected: Vec::new(),
            pool: Vec::new(),
            memo: FxHashMap::default(),
            calls: 0,
            memoize: false,
            layout: grammar.layout().map(|s| s.0),
            layout_memo: if grammar.layout().is_some() {
                vec![(u32::MAX, 0); input.len() + 1]
            } else {
                Vec::new()
            },
            layout_ends: Vec::new(),
            lookahead: true,
            check_words: grammar.layout().is_some() && !grammar.lexemes().is_empty(),
            boundary_cache: None,
            dfa: None,
            dfa_cache: None,
            fast: false,
            prefer_keywords: false,
            names_dropped: false,
            track_ambiguity: false,
        }
    }

    /// Turns the fast paths on, with the grammar's token DFA and a cache for it (`None`: a
    /// fresh one).
    pub fn with_dfa(mut self, dfa: &'a TokenDfa, cache: Option<ScanCache>) -> Lexer<'a> {
        self.dfa_cache = cache.or_else(|| dfa.cache());
        self.dfa = Some(dfa);
        self.fast = true;
        self
    }

    /// Appends the ends of `sym` at `pos` found by the DFA (ascending, distinct, longest only
    /// for longest-match symbols), if the DFA may answer here; `false` if the interpreter must.
    #[inline]
    pub fn dfa_ends(&mut self, sym: crate::grammar::SymbolId, pos: u32, out: &mut Vec<u32>) -> bool {
        match (self.dfa, self.dfa_cache.as_mut()) {
            (Some(dfa), Some(cache)) if self.fast && (self.lookahead || !self.track_failures) && dfa.has(sym) => {
                dfa.ends(cache, self.input, sym, pos, self.grammar.is_longest_match(sym), out)
            }
            _ => false,
        }
    }

    /// Where the layout that starts at `pos` ends (its longest match; `pos` without layout).
    pub fn layout_end(&mut self, pos: u32) -> u32 {
        let Some(layout) = self.layout else { return pos };
        let mut out = self.buf();
        self.ends(Item::Symbol(crate::grammar::SymbolId(layout)), pos, &mut out);
        let end = out.iter().copied().max().unwrap_or(pos);
        self.give(out);
        end
    }

    /// Whether the token at `start..end` is a word that a longer word continues.
    pub fn word_cut(&mut self, start: usize, end: usize) -> bool {
        if self.grammar.lexemes().is_empty() {
            return false;
        }
        let b = self.grammar.boundaries();
        let cache = self.boundary_cache.get_or_insert_with(|| b.take_cache());
        b.word_cut(cache, self.input, start, end)
    }

    fn buf(&mut self) -> Vec<u32> {
        self.pool.pop().unwrap_or_default()
    }

    fn give(&mut self, mut v: Vec<u32>) {
        v.clear();
        self.pool.push(v);
    }

    /// Appends to `out` every end offset of `item` starting at `pos` (unsorted, may repeat).
    pub fn ends(&mut self, item: Item, pos: u32, out: &mut Vec<u32>) {
        match item {
            Item::Terminal(t) => {
                let rest = &self.input[pos as usize..];
                match match_terminal(self.grammar.terminal(t), rest) {
                    Some(len) => out.push(pos + len as u32),
                    None if self.track_failures && pos as usize >= self.furthest => self.failed(t, pos as usize),
                    None => {}
                }
            }
            // A symbol whose first byte cannot be here matches only the empty string, if that.
            Item::Symbol(s)
                if self.lookahead
                    && !self
                        .input
                        .get(pos as usize)
                        .is_some_and(|&b| self.grammar.analysis().first_bytes[s.index()].contains(b)) =>
            {
                if self.grammar.is_nullable(s) {
                    out.push(pos);
                }
            }
            Item::Symbol(s) if Some(s.0) == self.layout => {
                let (from, to) = self.layout_memo[pos as usize];
                if from != u32::MAX {
                    out.extend_from_slice(&self.layout_ends[from as usize..to as usize]);
                    return;
                }
                let first = out.len();
                if !self.dfa_ends(s, pos, out) {
                    self.ends_body(s, pos, out);
                }
                let from = self.layout_ends.len() as u32;
                self.layout_ends.extend_from_slice(&out[first..]);
                self.layout_memo[pos as usize] = (from, self.layout_ends.len() as u32);
            }
            Item::Symbol(s) => {
                if self.dfa_ends(s, pos, out) {
                    return;
                }
                if self.memoize {
                    if let Some(known) = self.memo.get(&(s.0, pos)) {
                        out.extend_from_slice(known);
                        return;
                    }
                } else {
                    self.calls += 1;
                    self.memoize = self.calls > MEMO_AFTER_CALLS_PER_BYTE * (self.input.len() + 16);
                }
                let first = out.len();
                self.ends_body(s, pos, out);
                // Inside a token the layout may end between any two of its lexemes (an external
                // token's scanner sees the whitespace first: `_newline = _ "\n" ;`); before a
                // token, in `token_ends`, only where its longest match does.
                if self.grammar.is_longest_match(s) && !self.grammar.is_layout(Item::Symbol(s)) {
                    // A token ends where its longest match ends, as in a lexer.
                    keep_longest(out, first);
                }
                if self.memoize {
                    let mut found = out[first..].to_vec();
                    sort_dedup(&mut found);
                    self.memo.insert((s.0, pos), found);
                }
            }
        }
    }

    /// The ends of `s`'s body at `pos` (no memo).
    fn ends_body(&mut self, s: crate::grammar::SymbolId, pos: u32, out: &mut Vec<u32>) {
        match &self.grammar.symbol(s).body {
            Body::Choice(alts) => {
                // Big choices (a list of keywords or property names) mostly cannot start here.
                let firsts = &self.grammar.analysis().alt_first[s.index()];
                let byte = self.input.get(pos as usize).copied();
                for (alt, &(first, nullable)) in alts.iter().zip(firsts) {
                    if self.lookahead && !nullable && !byte.is_some_and(|b| first.contains(b)) {
                        continue;
                    }
                    self.ends_seq(&alt.items, pos, out, !self.grammar.is_external(s));
                }
            }
            Body::Optional(inner) => {
                out.push(pos);
                self.ends(*inner, pos, out);
            }
            Body::Repeat { item, min, max } => self.ends_repeat(*item, *min, *max, pos, out),
        }
    }

    /// Appends the end offsets of token `sym` at `pos` to `out`, like [`Lexer::ends`], but keeps
    /// the token's inner failures only where they explain something: if the token matched
    /// nothing, or if they lie beyond every end it reached (`12.` stops at `.`, expecting a
    /// digit). A token that matched leaves no trace of where its repetitions stopped, or error
    /// messages would point into the middle of the last comment or string before the real error.
    pub fn token_ends(&mut self, sym: crate::grammar::SymbolId, pos: u32, out: &mut Vec<u32>) {
        let first = out.len();
        let outer_furthest = std::mem::replace(&mut self.furthest, pos as usize);
        std::mem::swap(&mut self.expected, &mut self.outer_expected);
        self.expected.clear();
        self.ends(Item::Symbol(sym), pos, out);
        if self.grammar.is_layout(Item::Symbol(sym)) {
            // The layout before a token: all of it (see `Grammar::is_longest_match`).
            keep_longest(out, first);
        }
        let inner_furthest = std::mem::replace(&mut self.furthest, outer_furthest);
        std::mem::swap(&mut self.expected, &mut self.outer_expected);
        let explains = out[first..].iter().all(|&end| inner_furthest > end as usize);
        if explains && !self.outer_expected.is_empty() && inner_furthest >= self.furthest {
            if inner_furthest > self.furthest {
                self.furthest = inner_furthest;
                self.expected.clear();
            }
            self.expected.extend_from_slice(&self.outer_expected);
        }
        self.outer_expected.clear();
    }

    /// Records that terminal `t` did not match at `pos` (kept only if `pos` is the furthest yet).
    pub fn failed(&mut self, t: TerminalId, pos: usize) {
        if !self.track_failures || pos < self.furthest {
            return;
        }
        if pos > self.furthest {
            self.furthest = pos;
            self.expected.clear();
        }
        self.expected.push(t);
    }

    /// The ends of a sequence; with `whole_layout`, a layout in it ends only where its longest
    /// match does (see [`Grammar::is_longest_match`]).
    fn ends_seq(&mut self, items: &[Item], pos: u32, out: &mut Vec<u32>, whole_layout: bool) {
        if let [only] = items {
            if whole_layout && self.grammar.is_layout(*only) {
                let first = out.len();
                self.ends(*only, pos, out);
                keep_longest(out, first);
                return;
            }
            return self.ends(*only, pos, out);
        }
        let mut cur = self.buf();
        cur.push(pos);
        for (k, &item) in items.iter().enumerate() {
            if cur.is_empty() {
                break;
            }
            sort_dedup(&mut cur);
            let mut next = self.buf();
            // A word token after the layout must not be continued by a longer word.
            let check = self.check_words
                && self
                    .grammar
                    .is_word_token(k.checked_sub(1).map(|j| items[j]), item, items.get(k + 1).copied());
            let whole = whole_layout && self.grammar.is_layout(item);
            for &p in &cur {
                let before = next.len();
                self.ends(item, p, &mut next);
                if whole {
                    keep_longest(&mut next, before);
                }
                if check {
                    let mut kept = before;
                    for r in before..next.len() {
                        let e = next[r];
                        if !self.word_cut(p as usize, e as usize) {
                            next[kept] = e;
                            kept += 1;
                        }
                    }
                    next.truncate(kept);
                }
            }
            let old = std::mem::replace(&mut cur, next);
            self.give(old);
        }
        sort_dedup(&mut cur);
        out.extend_from_slice(&cur);
        self.give(cur);
    }

    fn ends_repeat(&mut self, item: Item, min: u32, max: Option<u32>, pos: u32, out: &mut Vec<u32>) {
        if min == 0 {
            out.push(pos);
        }
        // Fast path while each iteration has exactly one end, past the previous one (`char*`
        // inside a string): no sets, no sorting. Anything else continues in the general loop.
        let mut frontier = self.buf();
        let mut step = self.buf();
        let mut p = pos;
        let mut count = 0u32;
        loop {
            if max.is_some_and(|m| count >= m) {
                self.give(step);
                self.give(frontier);
                return;
            }
            step.clear();
            self.ends(item, p, &mut step);
            match step[..] {
                [q] if q > p => {
                    count += 1;
                    if count >= min {
                        out.push(q);
                    }
                    p = q;
                }
                [] => {
                    self.give(step);
                    self.give(frontier);
                    return;
                }
                _ => break,
            }
        }
        // The general case: sets of positions per iteration count, from the `count` forced
        // iterations done so far (their positions are all below `p`, so they need no seen-check).
        sort_dedup(&mut step);
        count += 1;
        if count >= min {
            out.extend_from_slice(&step);
        }
        frontier.extend_from_slice(&step);
        self.give(step);
        self.general_repeat(item, min, max, count, frontier, out);
    }

    /// Iterations `count + 1, ...` of a repetition whose positions after `count` iterations are
    /// `frontier`.
    fn general_repeat(
        &mut self,
        item: Item,
        min: u32,
        max: Option<u32>,
        mut count: u32,
        mut frontier: Vec<u32>,
        out: &mut Vec<u32>,
    ) {
        // Once `min` is reached a position seen before adds nothing new (this also stops nullable
        // items from looping). Positions only grow, so `seen` stays sorted by pushing.
        let mut seen = self.buf();
        if count >= min {
            seen.extend_from_slice(&frontier);
        }
        while !frontier.is_empty() && max.is_none_or(|m| count < m) {
            count += 1;
            let mut next = self.buf();
            for &p in &frontier {
                self.ends(item, p, &mut next);
            }
            sort_dedup(&mut next);
            if count >= min && max.is_none() {
                // Positions past everything seen are new (the common, deterministic case);
                // only the others need a lookup.
                let seen_max = seen.last().copied();
                if next.first().is_some_and(|&q| seen_max.is_none_or(|m| q > m)) {
                    seen.extend_from_slice(&next);
                } else {
                    next.retain(|q| match seen.binary_search(q) {
                        Ok(_) => false,
                        Err(at) => {
                            seen.insert(at, *q);
                            true
                        }
                    });
                }
            }
            if count >= min {
                out.extend_from_slice(&next);
            }
            let old = std::mem::replace(&mut frontier, next);
            self.give(old);
        }
        self.give(frontier);
        self.give(seen);
    }

    /// Builds, in `tree`, a derivation of `item` spanning exactly `start..end` and returns its
    /// (detached) root, or `None` if there is none. Deterministic: alternatives in order, fewest
    /// iterations, and earlier items as short as possible.
    pub fn derive(&mut self, tree: &mut Tree, item: Item, start: u32, end: u32) -> Option<NodeId> {
        self.track_failures = false;
        let result = self.derive_item(tree, item, start, end);
        self.track_failures = true;
        result
    }

    fn derive_item(&mut self, tree: &mut Tree, item: Item, start: u32, end: u32) -> Option<NodeId> {
        let s = match item {
            Item::Terminal(t) => {
                let len = match_terminal(self.grammar.terminal(t), &self.input[start as usize..])?;
                return (start + len as u32 == end).then(|| tree.add_leaf(t, start as usize, len));
            }
            Item::Symbol(s) => s,
        };
        match &self.grammar.symbol(s).body {
            Body::Choice(alts) => {
                for (k, alt) in alts.iter().enumerate() {
                    // A single terminal (a character of a string, a digit) derives the span
                    // if it matches all of it: no split search.
                    if let [Item::Terminal(t)] = alt.items[..] {
                        let term = self.grammar.terminal(t);
                        let len = (end - start) as usize;
                        if match_terminal(term, &self.input[start as usize..end as usize]) != Some(len) {
                            continue;
                        }
                        let node = tree.add_node(
                            NodeKind::Rule {
                                symbol: s,
                                alt: k as u32,
                            },
                            len,
                        );
                        let leaf = tree.add_leaf(t, start as usize, len);
                        tree.prepend_child_unsized(node, leaf);
                        return Some(node);
                    }
                    // The span is known to be derivable, so if every earlier alternative failed,
                    // the last one derives it and needs no verification.
                    let trusted = k == alts.len() - 1;
                    if !trusted && !self.may_start(self.grammar.analysis().alt_first[s.index()][k], start, end) {
                        continue;
                    }
                    if let Some(splits) = self.seq_splits(&alt.items, start, end, trusted) {
                        let node = tree.add_node(
                            NodeKind::Rule {
                                symbol: s,
                                alt: k as u32,
                            },
                            (end - start) as usize,
                        );
                        let derived = self.derive_children(tree, node, &alt.items, &splits);
                        self.give(splits);
                        derived?;
                        return Some(node);
                    }
                }
                None
            }
            Body::Optional(inner) => {
                let node = tree.add_node(NodeKind::Optional { symbol: s }, (end - start) as usize);
                if start != end {
                    let child = self.derive_item(tree, *inner, start, end)?;
                    tree.prepend_child_unsized(node, child);
                }
                Some(node)
            }
            Body::Repeat { item: inner, min, max } => {
                let splits = self.repeat_splits(*inner, *min, *max, start, end)?;
                let node = tree.add_node(NodeKind::Repeat { symbol: s }, (end - start) as usize);
                for w in splits.windows(2).rev() {
                    let child = self.derive_item(tree, *inner, w[0], w[1])?;
                    tree.prepend_child_unsized(node, child);
                }
                self.give(splits);
                Some(node)
            }
        }
    }

    /// Whether an alternative with these first bytes and nullability can derive `start..end`
    /// as far as the first byte tells: an empty span needs a nullable one.
    fn may_start(&self, (first, nullable): (ByteSet, bool), start: u32, end: u32) -> bool {
        match self.input.get(start as usize).filter(|_| start < end) {
            Some(&byte) => first.contains(byte),
            None => nullable,
        }
    }

    fn derive_children(&mut self, tree: &mut Tree, node: NodeId, items: &[Item], splits: &[u32]) -> Option<()> {
        for (k, &it) in items.iter().enumerate().rev() {
            let child = self.derive_item(tree, it, splits[k], splits[k + 1])?;
            tree.prepend_child_unsized(node, child);
        }
        Some(())
    }

    /// Split points `start = p0 <= p1 <= ... <= pn = end` such that item k spans `pk..pk+1`.
    /// Terminals at either end have fixed spans and are peeled off directly; a single item left
    /// in the middle gets the rest (verified unless `trusted`, i.e. the caller knows the sequence
    /// derives the span); only two or more middle items need a search.
    fn seq_splits(&mut self, items: &[Item], start: u32, end: u32, trusted: bool) -> Option<Vec<u32>> {
        let (mut lo, mut hi, mut a, mut b) = (0, items.len(), start, end);
        // Buffers from the pool: a tree derives one split list per node of every token.
        let mut left = self.buf();
        left.push(start);
        let mut right = self.buf();
        while lo < hi {
            let Item::Terminal(t) = items[lo] else { break };
            a += match_terminal(self.grammar.terminal(t), &self.input[a as usize..b as usize])? as u32;
            left.push(a);
            lo += 1;
        }
        while lo < hi {
            if !matches!(items[hi - 1], Item::Terminal(_)) {
                break;
            }
            right.push(b);
            b = self.terminal_start(items[hi - 1], b).filter(|&p| p >= a)?;
            hi -= 1;
        }
        let middle = &items[lo..hi];
        match middle {
            [] if a != b => return None,
            [] => {}
            [only] => {
                if !trusted && !self.can_span(*only, a, b) {
                    return None;
                }
                left.push(b);
            }
            _ => {
                let inner = self.searched_seq_splits(middle, a, b)?;
                left.extend_from_slice(&inner[1..]);
            }
        }
        left.extend(right.iter().rev());
        self.give(right);
        Some(left)
    }

    /// Split points by search: positions reachable after each prefix, then backwards from `end`,
    /// for each item the earliest start that reaches the current target.
    fn searched_seq_splits(&mut self, items: &[Item], start: u32, end: u32) -> Option<Vec<u32>> {
        let mut reach: Vec<Vec<u32>> = vec![vec![start]];
        for &item in items {
            let mut next = Vec::new();
            for &p in reach.last().unwrap() {
                self.ends(item, p, &mut next);
            }
            next.retain(|&p| p <= end);
            sort_dedup(&mut next);
            if next.is_empty() {
                return None;
            }
            reach.push(next);
        }
        if reach.last().unwrap().binary_search(&end).is_err() {
            return None;
        }
        let mut splits = vec![end; items.len() + 1];
        let mut target = end;
        let mut ends = Vec::new();
        for k in (0..items.len()).rev() {
            let found = match self.terminal_start(items[k], target) {
                // A terminal's start follows from its end: no search needed.
                Some(p) => reach[k].binary_search(&p).is_ok().then_some(p),
                // `target` is reachable from some start in reach[k]; if there is one, it is it.
                None if reach[k].len() == 1 => Some(reach[k][0]),
                None => reach[k].iter().copied().find(|&p| {
                    ends.clear();
                    self.ends(items[k], p, &mut ends);
                    ends.contains(&target)
                }),
            }?;
            splits[k] = found;
            target = found;
        }
        Some(splits)
    }

    /// Whether `item` derives exactly `start..end`.
    fn can_span(&mut self, item: Item, start: u32, end: u32) -> bool {
        if let Item::Terminal(t) = item {
            return match_terminal(self.grammar.terminal(t), &self.input[start as usize..])
                == Some((end - start) as usize);
        }
        let mut ends = self.buf();
        self.ends(item, start, &mut ends);
        let found = ends.contains(&end);
        self.give(ends);
        found
    }

    /// If `item` is a terminal that can end at `end`, where it starts.
    fn terminal_start(&self, item: Item, end: u32) -> Option<u32> {
        let Item::Terminal(t) = item else { return None };
        let before = &self.input[..end as usize];
        let start = match self.grammar.terminal(t) {
            crate::grammar::Terminal::Literal(bytes) => before.len().checked_sub(bytes.len())?,
            crate::grammar::Terminal::Class { .. } => {
                // The code point ending at `end`: back up over at most three continuation bytes.
                let mut p = before.len().checked_sub(1)?;
                while p > 0 && before.len() - p < 4 && before[p] & 0xC0 == 0x80 {
                    p -= 1;
                }
                p
            }
        };
        (match_terminal(self.grammar.terminal(t), &self.input[start..]) == Some(end as usize - start))
            .then_some(start as u32)
    }

    /// Iteration boundaries of a repetition spanning `start..end` with the fewest iterations.
    fn repeat_splits(&mut self, item: Item, min: u32, max: Option<u32>, start: u32, end: u32) -> Option<Vec<u32>> {
        self.forced_repeat_splits(item, min, max, start, end)
            .or_else(|| self.searched_repeat_splits(item, min, max, start, end))
    }

    /// The common case: from every position the item has exactly one non-empty end, so the
    /// iterations are forced. `None` if that does not hold or does not reach `end` within bounds.
    fn forced_repeat_splits(
        &mut self,
        item: Item,
        min: u32,
        max: Option<u32>,
        start: u32,
        end: u32,
    ) -> Option<Vec<u32>> {
        let mut splits = self.buf();
        splits.push(start);
        let mut ends = self.buf();
        let mut p = start;
        while p < end {
            ends.clear();
            self.ends(item, p, &mut ends);
            let next = match ends[..] {
                [q] if q > p && q <= end => q,
                _ => break,
            };
            splits.push(next);
            p = next;
        }
        self.give(ends);
        let iterations = (splits.len() - 1) as u32;
        if p == end && iterations >= min && max.is_none_or(|m| iterations <= m) {
            return Some(splits);
        }
        self.give(splits);
        None
    }

    /// Breadth-first search for the fewest iterations, for repetitions with choices at each step.
    fn searched_repeat_splits(
        &mut self,
        item: Item,
        min: u32,
        max: Option<u32>,
        start: u32,
        end: u32,
    ) -> Option<Vec<u32>> {
        // Breadth-first search over states (position, count); the count is capped at `min` when
        // the repetition is unbounded (past `min` it no longer matters). Predecessors live in a
        // dense table indexed by (count layer, position - start).
        let layers = match max {
            None => min as usize + 1,
            Some(m) => m as usize + 1,
        };
        let width = (end - start) as usize + 1;
        let cap = |c: u32| if max.is_none() { c.min(min) } else { c };
        let goal = |p: u32, c: u32| p == end && c >= min && max.is_none_or(|m| c <= m);
        let mut pred: PredTable = if layers.saturating_mul(width) <= 1 << 22 {
            PredTable::Dense(vec![u32::MAX; layers * width])
        } else {
            PredTable::Sparse(FxHashMap::default())
        };
        let key = |p: u32, c: u32| c as usize * width + (p - start) as usize;
        let mut queue = std::collections::VecDeque::from([(start, 0u32)]);
        pred.set(key(start, 0), u32::MAX - 1);
        let mut ends = self.buf();
        let mut found = None;
        while let Some((p, c)) = queue.pop_front() {
            if goal(p, c) {
                found = Some((p, c));
                break;
            }
            if max.is_some_and(|m| c >= m) {
                continue;
            }
            ends.clear();
            self.ends(item, p, &mut ends);
            sort_dedup(&mut ends);
            for &q in &ends {
                // An empty iteration only helps while the minimum is not yet reached.
                if q > end || (q == p && c >= min) {
                    continue;
                }
                let next = (q, cap(c + 1));
                if pred.get(key(next.0, next.1)) == u32::MAX {
                    pred.set(key(next.0, next.1), key(p, c) as u32);
                    queue.push_back(next);
                }
            }
        }
        self.give(ends);
        let (p, c) = found?;
        let mut at = key(p, c);
        let mut splits = vec![p];
        loop {
            let prev = pred.get(at);
            if prev == u32::MAX - 1 {
                break;
            }
            at = prev as usize;
            splits.push(start + (at % width) as u32);
        }
        splits.reverse();
        Some(splits)
    }
}

/// Predecessor links of the repetition search: dense when small enough, else a hash map.
enum PredTable {
    Dense(Vec<u32>),
    Sparse(FxHashMap<usize, u32>),
}

impl PredTable {
    fn get(&self, k: usize) -> u32 {
        match self {
            PredTable::Dense(v) => v[k],
            PredTable::Sparse(m) => m.get(&k).copied().unwrap_or(u32::MAX),
        }
    }

    fn set(&mut self, k: usize, v: u32) {
        match self {
            PredTable::Dense(t) => t[k] = v,
            PredTable::Sparse(m) => {
                m.insert(k, v);
            }
        }
    }
}

fn sort_dedup(v: &mut Vec<u32>) {
    if v.len() > 1 {
        v.sort_unstable();
        v.dedup();
    }
}

/// Keeps of the ends `out[first..]` only the furthest (a longest match).
fn keep_longest(out: &mut Vec<u32>, first: usize) {
    if let Some(&max) = out[first..].iter().max() {
        out.truncate(first);
        out.push(max);
    }
}
