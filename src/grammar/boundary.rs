//! Token boundaries: whether a token would run on into the text after it (`a` `in` → `ain`).
//!
//! A grammar with a `%layout` rule has tokens (what follows the layout) and layout lexemes (the
//! layout's iterations: whitespace, comments). [`Boundaries`] matches all of them at once with a
//! lazy DFA, longest match first, as a maximal-munch lexer would.

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::nfa::thompson;
use regex_automata::util::syntax::Config;
use regex_automata::{Anchored, Input, MatchKind};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir};

use super::regex::ToRegex;
use super::{Body, CharClass, Grammar, Item, SymbolId, Terminal};

/// Tokens larger than this (in HIR nodes) are left out of the matcher: a token that big is a
/// sentence, not a word, and runs on into nothing a separator could fix.
const MAX_TOKEN_NODES: usize = 20_000;

/// The token matcher of a grammar with a `%layout` rule; inert without one.
#[derive(Clone, Debug)]
pub struct Boundaries {
    dfa: Option<DFA>,
    /// The `%lexeme` rules alone (tree-sitter's `word`): what a keyword must not run on into.
    words: Option<DFA>,
    /// Per terminal: a literal the words match entirely (a keyword such as `select`).
    keywords: Vec<bool>,
    /// Per `%layout` rule (the main one first): the repetition whose iterations are its
    /// lexemes, and its minimum count.
    layout_repeats: Vec<LayoutRepeat>,
    /// How many distinct tokens the matcher knows (for `check`'s summary).
    tokens: usize,
    /// Per pattern of `dfa`: whether it competes wherever a lexeme starts (the layout's lexemes,
    /// the `%lexeme` words) rather than only where the grammar lets its token follow.
    everywhere: Vec<bool>,
    /// Per symbol: the token patterns a derivation of it may start with (see [`TokenSet`]).
    first: Vec<TokenSet>,
    /// Per terminal: the pattern of it as a token, if it is one.
    terminal_first: Vec<TokenSet>,
    /// Per symbol: the token patterns that may follow it somewhere in the grammar.
    follow: Vec<TokenSet>,
    /// Per symbol and per terminal: whether it follows a layout somewhere (a token), so that
    /// where it starts inside the text between two layouts (`'` `identifier` in
    /// `lifetime = _ "'" identifier ;`) a token starts too.
    token_symbols: Vec<bool>,
    token_terminals: Vec<bool>,
    /// Caches given back by earlier users ([`Boundaries::with_cache`], a parse's lexer): a lazy
    /// DFA's cache holds the states determinized so far, and a fresh one per use (every
    /// generated tree is fixed, every parse checks keywords) determinized the same states again
    /// and again.
    spare: CachePool,
}

/// Caches left for the next caller; a clone of the pool starts empty.
#[derive(Default)]
struct CachePool(std::sync::Mutex<Vec<BoundaryCache>>);

impl Clone for CachePool {
    fn clone(&self) -> CachePool {
        CachePool::default()
    }
}

impl std::fmt::Debug for CachePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CachePool")
    }
}

/// Caches a pool keeps at most (one per thread that used them at once, up to this many).
const POOLED_CACHES: usize = 16;

/// A `%layout` rule and the repetition below it whose iterations are its lexemes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutRepeat {
    /// The `%layout` rule.
    pub layout: SymbolId,
    /// The repetition symbol at or below it (`_ = extra* ;`).
    pub repeat: SymbolId,
    /// The repetition's minimum count: lexemes below it cannot be removed.
    pub min: u32,
}

/// Scratch space for [`Boundaries::runs_on_parts`] and [`Boundaries::word_cut`]; one per thread.
pub struct BoundaryCache(Option<Cache>, Option<Cache>);

impl Boundaries {
    pub(crate) fn new(grammar: &Grammar) -> Boundaries {
        let inert = Boundaries {
            dfa: None,
            words: None,
            keywords: vec![false; grammar.terminals().len()],
            layout_repeats: Vec::new(),
            tokens: 0,
            everywhere: Vec::new(),
            first: Vec::new(),
            terminal_first: Vec::new(),
            follow: Vec::new(),
            token_symbols: Vec::new(),
            token_terminals: Vec::new(),
            spare: CachePool::default(),
        };
        if grammar.layouts().is_empty() {
            return inert;
        }
        let layout_repeats: Vec<LayoutRepeat> = grammar
            .layouts()
            .iter()
            .filter_map(|&layout| {
                repeat_below(grammar, layout).map(|(repeat, min)| LayoutRepeat { layout, repeat, min })
            })
            .collect();
        // Tokens: every item that follows a layout in a sequence, and the layouts' lexemes.
        let mut items: Vec<Item> = Vec::new();
        for sym in grammar.symbols() {
            for alt in sym.alternatives() {
                for pair in alt.items.windows(2) {
                    if grammar.is_layout(pair[0]) && !grammar.is_layout(pair[1]) && !items.contains(&pair[1]) {
                        items.push(pair[1]);
                    }
                }
            }
        }
        let mut token_symbols = vec![false; grammar.symbols().len()];
        let mut token_terminals = vec![false; grammar.terminals().len()];
        for item in &items {
            match *item {
                Item::Symbol(s) => token_symbols[s.index()] = true,
                Item::Terminal(t) => token_terminals[t.index()] = true,
            }
        }
        let extras: Vec<Item> = layout_repeats
            .iter()
            .filter_map(|r| match grammar.symbol(r.repeat).body {
                Body::Repeat { item, .. } => Some(item),
                _ => None,
            })
            .collect();
        for &e in &extras {
            if !items.contains(&e) {
                items.push(e);
            }
        }
        let mut conv = ToHir {
            grammar,
            visiting: Vec::new(),
            nodes: 0,
            skip_layout: false,
            terminals: vec![None; grammar.terminals().len()],
            layout_chars: layout_chars(grammar),
        };
        // Tokens that may contain whitespace (string contents, a preprocessor line) only ever
        // appear in their own context, between delimiters; matched everywhere, they would make
        // every lexeme "run on". Layout lexemes (comments) are kept: they may appear anywhere;
        // so are tokens that start with a fixed mark and run to the end of their line (a
        // hash-bang `"#!" [^\n]*`, a comment written as a token): what follows on their line
        // is theirs, so a separator after them must be a line break.
        let mut patterns: Vec<(Item, bool)> = Vec::new();
        let hirs: Vec<Hir> = items
            .iter()
            .filter_map(|&item| {
                conv.nodes = 0;
                // Layout inside a layout lexeme (an external written `_ "--[["`) is nothing.
                let extra = extras.contains(&item);
                conv.skip_layout = extra;
                let hir = conv.item(item)?;
                let kept = extra || !may_contain_space(&hir) || runs_to_line_end(&hir);
                kept.then(|| patterns.push((item, extra)));
                kept.then_some(hir)
            })
            .collect();
        // `%lexeme` rules: words of the real lexer, kept whatever they contain (layout in them is
        // read as nothing).
        let mut hirs = hirs;
        conv.skip_layout = true;
        let mut word_hirs = Vec::new();
        for &lexeme in grammar.lexemes() {
            conv.nodes = 0;
            if let Some(hir) = conv.item(Item::Symbol(lexeme)) {
                word_hirs.push(hir.clone());
                hirs.push(hir);
                patterns.push((Item::Symbol(lexeme), true));
            }
        }
        let tokens = hirs.len();
        let dfa = (!hirs.is_empty()).then(|| build_dfa_many(&hirs)).flatten();
        // A token whose classes take three or more of the grammar's one-character punctuation
        // tokens is a catch-all that only a lexer reading by context can have (tree-sitter-css's
        // `plain_value` takes `xlink|href` and `thumb:hover`): it competes only where the grammar
        // lets it come. Every other token competes everywhere, as in the context-free lexers of
        // real languages (`+` `++` is `+++` in JavaScript wherever it stands).
        let punctuation: Vec<u8> = grammar
            .terminals()
            .iter()
            .filter_map(|t| match t {
                Terminal::Literal(b) if b.len() == 1 && b[0].is_ascii_punctuation() => Some(b[0]),
                _ => None,
            })
            .collect();
        let everywhere = patterns
            .iter()
            .zip(&hirs)
            .map(|(&(_, e), hir)| e || classes_take(hir, &punctuation) < CATCH_ALL_PUNCTUATION)
            .collect();
        let (first, terminal_first, follow) = first_and_follow(grammar, &patterns);
        let words = (!word_hirs.is_empty())
            .then(|| build_dfa(Hir::alternation(word_hirs)))
            .flatten();
        let keywords = match &words {
            None => vec![false; grammar.terminals().len()],
            Some(w) => {
                let mut cache = w.create_cache();
                grammar
                    .terminals()
                    .iter()
                    .map(|t| matches!(t, Terminal::Literal(b) if matches_exactly(w, &mut cache, b)))
                    .collect()
            }
        };
        Boundaries {
            dfa,
            words,
            keywords,
            layout_repeats,
            tokens,
            everywhere,
            first,
            terminal_first,
            follow,
            token_symbols,
            token_terminals,
            spare: CachePool::default(),
        }
    }

    /// Whether `item` follows a layout somewhere in the grammar: a token wherever it starts.
    pub fn is_token(&self, item: Item) -> bool {
        match item {
            Item::Symbol(s) => self.token_symbols.get(s.index()).copied().unwrap_or(false),
            Item::Terminal(t) => self.token_terminals.get(t.index()).copied().unwrap_or(false),
        }
    }

    /// Whether `head` (ending in a letter, digit or `_`) and `tail` (starting with a word of the
    /// `%lexeme` rules) would lex as one: a lexer reads `99if` as one token (a number with a
    /// suffix, or an error), not `99` `if`, whatever the grammar's own number token says.
    pub fn glues_words(&self, cache: &mut BoundaryCache, head: &[u8], tail: &[u8]) -> bool {
        let (Some(words), Some(cache)) = (self.words.as_ref(), cache.1.as_mut()) else {
            return false;
        };
        let word_char = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
        if !head.last().is_some_and(word_char) || !tail.first().is_some_and(word_char) {
            return false;
        }
        let mut word = false;
        match_ends(words, cache, tail.iter().copied(), |e, _, _| {
            word |= e > 0;
            !word
        });
        word
    }

    /// Fresh scratch space for [`Boundaries::runs_on_parts`] and [`Boundaries::word_cut`]; users
    /// take it from the pool ([`Boundaries::take_cache`]), which makes one only when it is empty.
    fn cache(&self) -> BoundaryCache {
        BoundaryCache(
            self.dfa.as_ref().map(|d| d.create_cache()),
            self.words.as_ref().map(|d| d.create_cache()),
        )
    }

    /// Runs `f` with scratch space for [`Boundaries::runs_on_parts`] and
    /// [`Boundaries::word_cut`], taken from the caches earlier calls left (or fresh) and left
    /// for later calls.
    pub fn with_cache<R>(&self, f: impl FnOnce(&mut BoundaryCache) -> R) -> R {
        let mut cache = self.take_cache();
        let r = f(&mut cache);
        self.keep_cache(cache);
        r
    }

    /// Scratch space left by an earlier user (see [`Boundaries::keep_cache`]), or fresh. A fresh
    /// one costs more than a small parse: its lazy DFAs set up their tables (4 µs of the 9.5 µs
    /// a 3-byte js input took to parse).
    pub fn take_cache(&self) -> BoundaryCache {
        let pooled = self.spare.0.lock().ok().and_then(|mut p| p.pop());
        pooled.unwrap_or_else(|| self.cache())
    }

    /// Leaves `cache` for a later [`Boundaries::take_cache`] (up to a few of them: one per
    /// thread that uses these boundaries at once).
    pub fn keep_cache(&self, cache: BoundaryCache) {
        if let Ok(mut pool) = self.spare.0.lock() {
            if pool.len() < POOLED_CACHES {
                pool.push(cache);
            }
        }
    }

    /// Whether terminal `t` is a keyword: a literal that the `%lexeme` words match entirely.
    pub fn is_keyword(&self, t: crate::grammar::TerminalId) -> bool {
        self.keywords.get(t.index()).copied().unwrap_or(false)
    }

    /// Whether the lexeme `text[start..end]` is a word (the `%lexeme` rules match it exactly) that
    /// a longer word continues: a lexer reading words would not stop at `end` (`of` in `ofd`).
    pub fn word_cut(&self, cache: &mut BoundaryCache, text: &[u8], start: usize, end: usize) -> bool {
        let (Some(words), Some(cache)) = (self.words.as_ref(), cache.1.as_mut()) else {
            return false;
        };
        if end >= text.len() || start >= end {
            return false;
        }
        let len = end - start;
        let (mut exact, mut longer) = (false, false);
        match_ends(words, cache, text[start..].iter().copied(), |e, _, _| {
            exact |= e == len;
            longer |= e > len;
            !longer
        });
        exact && longer
    }

    /// Per `%layout` rule (the main one first), the repetition whose iterations are its lexemes.
    pub fn layout_repeats(&self) -> &[LayoutRepeat] {
        &self.layout_repeats
    }

    /// How many tokens the matcher knows (0 without a layout).
    pub fn token_count(&self) -> usize {
        self.tokens
    }

    /// Whether the lexeme `head` runs on into `tail` (the text after it): some token matches all
    /// of `head` and at least one byte of `tail`.
    pub fn runs_on_parts(&self, cache: &mut BoundaryCache, head: &[u8], tail: &[u8]) -> bool {
        self.runs_on_among(cache, head, tail, None)
    }

    /// [`Boundaries::runs_on_parts`] where only the tokens of `allowed` (and the layout's lexemes
    /// and `%lexeme` words, which a lexer reads anywhere) may start at `head`: a lexer that reads
    /// a token only where the grammar lets it come, as tree-sitter's does. CSS's `plain_value`
    /// (`xlink|href` is one) is a value, never a selector, so `[xlink|href]` needs no space
    /// before `|`. `None` allows every token.
    pub(crate) fn runs_on_among(
        &self,
        cache: &mut BoundaryCache,
        head: &[u8],
        tail: &[u8],
        allowed: Option<&TokenSet>,
    ) -> bool {
        let (Some(dfa), Some(cache)) = (self.dfa.as_ref(), cache.0.as_mut()) else {
            return false;
        };
        if head.is_empty() || tail.is_empty() {
            return false;
        }
        let mut longer = false;
        match_ends(dfa, cache, head.iter().chain(tail).copied(), |e, cache, sid| {
            longer = e > head.len()
                && allowed.is_none_or(|allowed| {
                    (0..dfa.match_len(cache, sid)).any(|i| {
                        let p = dfa.match_pattern(cache, sid, i).as_usize();
                        self.everywhere.get(p).copied().unwrap_or(true) || allowed.contains(p)
                    })
                });
            !longer
        });
        longer
    }

    /// The token patterns a derivation of `item` may start with.
    pub(crate) fn first_of(&self, item: Item) -> Option<&TokenSet> {
        match item {
            Item::Symbol(s) => self.first.get(s.index()),
            Item::Terminal(t) => self.terminal_first.get(t.index()),
        }
    }

    /// The token patterns that may follow `sym` somewhere in the grammar.
    pub(crate) fn follow_of(&self, sym: SymbolId) -> Option<&TokenSet> {
        self.follow.get(sym.index())
    }
}

/// A set of the token matcher's patterns (bits by pattern index).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TokenSet(Vec<u64>);

impl TokenSet {
    /// Whether pattern `p` is in the set.
    pub(crate) fn contains(&self, p: usize) -> bool {
        self.0.get(p / 64).is_some_and(|w| w & (1 << (p % 64)) != 0)
    }

    fn insert(&mut self, p: usize) {
        if self.0.len() <= p / 64 {
            self.0.resize(p / 64 + 1, 0);
        }
        self.0[p / 64] |= 1 << (p % 64);
    }

    /// Adds `other`'s patterns; whether that changed the set.
    pub(crate) fn union_with(&mut self, other: &TokenSet) -> bool {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut changed = false;
        for (w, o) in self.0.iter_mut().zip(&other.0) {
            changed |= *w | o != *w;
            *w |= o;
        }
        changed
    }
}

/// Per symbol the token patterns its derivations may start with, the same per terminal, and per
/// symbol the token patterns that may follow it (FIRST and FOLLOW over tokens: layout items are
/// skipped, their lexemes compete everywhere). `patterns` are the matcher's, in order.
fn first_and_follow(grammar: &Grammar, patterns: &[(Item, bool)]) -> (Vec<TokenSet>, Vec<TokenSet>, Vec<TokenSet>) {
    let n = grammar.symbols().len();
    let mut own_symbol = vec![TokenSet::default(); n];
    let mut terminal_first = vec![TokenSet::default(); grammar.terminals().len()];
    for (p, &(item, everywhere)) in patterns.iter().enumerate() {
        match (item, everywhere) {
            (_, true) => {}
            (Item::Symbol(s), false) => own_symbol[s.index()].insert(p),
            (Item::Terminal(t), false) => terminal_first[t.index()].insert(p),
        }
    }
    // FIRST: a fixpoint over the rules (recursion through nullable prefixes needs it).
    let mut first = own_symbol;
    let item_first = |first: &[TokenSet], item: Item| match item {
        Item::Symbol(s) => first[s.index()].clone(),
        Item::Terminal(t) => terminal_first[t.index()].clone(),
    };
    let seq_first = |first: &[TokenSet], items: &[Item]| {
        let mut set = TokenSet::default();
        for &it in items {
            if grammar.is_layout(it) {
                continue;
            }
            set.union_with(&item_first(first, it));
            if !grammar.item_nullable(it) {
                break;
            }
        }
        set
    };
    let mut changed = true;
    while changed {
        changed = false;
        for (i, sym) in grammar.symbols().iter().enumerate() {
            let add = match &sym.body {
                Body::Choice(alts) => {
                    let mut set = TokenSet::default();
                    for alt in alts {
                        set.union_with(&seq_first(&first, &alt.items));
                    }
                    set
                }
                Body::Repeat { item, .. } | Body::Optional(item) => seq_first(&first, std::slice::from_ref(item)),
            };
            changed |= first[i].union_with(&add);
        }
    }
    // FOLLOW: what comes after an item in its rule, and where the rest can be empty, what
    // follows the rule.
    let mut follow = vec![TokenSet::default(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for (i, sym) in grammar.symbols().iter().enumerate() {
            let outer = follow[i].clone();
            let mut add = |follow: &mut [TokenSet], items: &[Item], after: &[Item], again: Option<Item>| {
                for (k, &it) in items.iter().enumerate() {
                    let Item::Symbol(b) = it else { continue };
                    let rest = &after[k + 1..];
                    let mut set = seq_first(&first, rest);
                    if let Some(again) = again {
                        set.union_with(&seq_first(&first, std::slice::from_ref(&again)));
                    }
                    if rest.iter().all(|&r| grammar.is_layout(r) || grammar.item_nullable(r)) {
                        set.union_with(&outer);
                    }
                    changed |= follow[b.index()].union_with(&set);
                }
            };
            match &sym.body {
                Body::Choice(alts) => {
                    for alt in alts {
                        add(&mut follow, &alt.items, &alt.items, None);
                    }
                }
                Body::Repeat { item, .. } => add(
                    &mut follow,
                    std::slice::from_ref(item),
                    std::slice::from_ref(item),
                    Some(*item),
                ),
                Body::Optional(item) => add(
                    &mut follow,
                    std::slice::from_ref(item),
                    std::slice::from_ref(item),
                    None,
                ),
            }
        }
    }
    (first, terminal_first, follow)
}

/// Whether some string of `hir` contains a space, tab or line break (an over-approximation that
/// looks at every literal and class).
fn may_contain_space(hir: &Hir) -> bool {
    use regex_syntax::hir::HirKind;
    let mut stack = vec![hir];
    while let Some(h) = stack.pop() {
        match h.kind() {
            HirKind::Literal(lit) => {
                if lit.0.iter().any(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
                    return true;
                }
            }
            HirKind::Class(Class::Unicode(c)) => {
                if c.ranges().iter().any(|r| {
                    [' ', '\t', '\n', '\r']
                        .iter()
                        .any(|w| (r.start()..=r.end()).contains(w))
                }) {
                    return true;
                }
            }
            HirKind::Class(Class::Bytes(c)) => {
                if c.ranges().iter().any(|r| {
                    [b' ', b'\t', b'\n', b'\r']
                        .iter()
                        .any(|w| (r.start()..=r.end()).contains(w))
                }) {
                    return true;
                }
            }
            HirKind::Repetition(r) => stack.push(&r.sub),
            HirKind::Capture(c) => stack.push(&c.sub),
            HirKind::Concat(subs) | HirKind::Alternation(subs) => stack.extend(subs.iter()),
            HirKind::Empty | HirKind::Look(_) => {}
        }
    }
    false
}

/// How many of the grammar's one-character punctuation tokens make a token a catch-all.
const CATCH_ALL_PUNCTUATION: usize = 3;

/// How many of `chars` (ASCII) some class of `hir` takes.
fn classes_take(hir: &Hir, chars: &[u8]) -> usize {
    use regex_syntax::hir::HirKind;
    let mut taken = vec![false; chars.len()];
    let mut stack = vec![hir];
    while let Some(h) = stack.pop() {
        match h.kind() {
            HirKind::Class(Class::Unicode(c)) => {
                for (i, &ch) in chars.iter().enumerate() {
                    taken[i] |= c
                        .ranges()
                        .iter()
                        .any(|r| (r.start()..=r.end()).contains(&char::from(ch)));
                }
            }
            HirKind::Class(Class::Bytes(c)) => {
                for (i, &ch) in chars.iter().enumerate() {
                    taken[i] |= c.ranges().iter().any(|r| (r.start()..=r.end()).contains(&ch));
                }
            }
            HirKind::Repetition(r) => stack.push(&r.sub),
            HirKind::Capture(c) => stack.push(&c.sub),
            HirKind::Concat(subs) | HirKind::Alternation(subs) => stack.extend(subs.iter()),
            HirKind::Empty | HirKind::Look(_) | HirKind::Literal(_) => {}
        }
    }
    taken.iter().filter(|&&t| t).count()
}

/// Whether `hir` starts with a fixed mark without whitespace (`#!`, `//`) and ends with an
/// unbounded run of characters that are not a line break (`[^\n]*`): a token that takes the rest
/// of its line, such as a hash-bang line or a line comment.
fn runs_to_line_end(hir: &Hir) -> bool {
    use regex_syntax::hir::HirKind;
    let HirKind::Concat(subs) = hir.kind() else {
        return false;
    };
    let starts_with_mark = matches!(
        subs.first().map(Hir::kind),
        Some(HirKind::Literal(lit)) if !lit.0.is_empty() && !lit.0.iter().any(u8::is_ascii_whitespace)
    );
    let mut last = subs.last();
    // Through `( … )?` and captures to the run at the end.
    while let Some(h) = last {
        match h.kind() {
            HirKind::Capture(c) => last = Some(&c.sub),
            HirKind::Repetition(r) if r.max == Some(1) => last = Some(&r.sub),
            HirKind::Concat(inner) => last = inner.last(),
            HirKind::Repetition(r) if r.max.is_none() => {
                let no_line_break = match r.sub.kind() {
                    HirKind::Class(Class::Unicode(c)) => {
                        !c.ranges().iter().any(|r| r.start() <= '\n' && '\n' <= r.end())
                    }
                    HirKind::Class(Class::Bytes(c)) => {
                        !c.ranges().iter().any(|r| r.start() <= b'\n' && b'\n' <= r.end())
                    }
                    _ => false,
                };
                return starts_with_mark && no_line_break && may_contain_space(&r.sub);
            }
            _ => return false,
        }
    }
    false
}

/// Calls `each` with the end of every match of `dfa` anchored at the start of `bytes` (an offset
/// into `bytes`) and its match state (whose patterns the cache tells), shortest first, until
/// `each` returns false or the DFA dies. A cache that gives
/// up ends the walk: a missed boundary costs a separator, never a wrong answer elsewhere.
fn match_ends(
    dfa: &DFA,
    cache: &mut Cache,
    bytes: impl Iterator<Item = u8>,
    mut each: impl FnMut(usize, &Cache, LazyStateID) -> bool,
) {
    let Ok(mut sid) = dfa.start_state_forward(cache, &Input::new(&[][..]).anchored(Anchored::Yes)) else {
        return;
    };
    let mut len = 0;
    for b in bytes {
        let Ok(next) = dfa.next_state(cache, sid, b) else {
            return;
        };
        sid = next;
        // Matches are reported one byte late: a match state after `len + 1` bytes means a match
        // of the first `len`.
        if sid.is_match() && !each(len, cache, sid) {
            return;
        }
        if sid.is_dead() || sid.is_quit() {
            return;
        }
        len += 1;
    }
    if let Ok(eoi) = dfa.next_eoi_state(cache, sid) {
        if eoi.is_match() {
            each(len, cache, eoi);
        }
    }
}

/// Whether `dfa` matches all of `bytes`.
fn matches_exactly(dfa: &DFA, cache: &mut Cache, bytes: &[u8]) -> bool {
    let mut exact = false;
    match_ends(dfa, cache, bytes.iter().copied(), |e, _, _| {
        exact = e == bytes.len();
        true
    });
    exact
}

/// The repetition at or below `sym` through single-item rules (`_ = extra* ;`).
fn repeat_below(grammar: &Grammar, mut sym: SymbolId) -> Option<(SymbolId, u32)> {
    for _ in 0..grammar.symbols().len() {
        match &grammar.symbol(sym).body {
            Body::Repeat { min, .. } => return Some((sym, *min)),
            Body::Choice(alts) => match alts.as_slice() {
                [only] => match only.items.as_slice() {
                    [Item::Symbol(s)] => sym = *s,
                    _ => return None,
                },
                _ => return None,
            },
            Body::Optional(_) => return None,
        }
    }
    None
}

/// Classes with more ranges than this (Unicode name characters: hundreds of ranges, in many
/// tokens) are matched coarsely: exactly below 128, and beyond it as everything from their first
/// to their last character except the layout's own characters. A token boundary then costs a
/// separator more often, never one less; a keyword is still ended by any layout character.
const MAX_EXACT_RANGES: usize = 32;

/// `class` exact below 128, then its span beyond ASCII minus `layout` (sorted ranges).
fn coarse_class(class: &CharClass, layout: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let ranges = class.ranges();
    let mut out: Vec<(u32, u32)> = ranges
        .iter()
        .filter(|r| r.0 < 0x80)
        .map(|&(lo, hi)| (lo, hi.min(0x7F)))
        .collect();
    let beyond: Vec<&(u32, u32)> = ranges.iter().filter(|r| r.1 >= 0x80).collect();
    if let (Some(first), Some(last)) = (beyond.first(), beyond.last()) {
        let span = CharClass::new(&[(first.0.max(0x80), last.1)], false);
        let minus = CharClass::new(layout, true);
        out.extend(span.ranges().iter().flat_map(|&(lo, hi)| {
            minus
                .ranges()
                .iter()
                .filter_map(move |&(a, b)| (a.max(lo) <= b.min(hi)).then_some((a.max(lo), b.min(hi))))
        }));
    }
    out
}

/// The characters beyond ASCII of the literals and small classes the layout rules reach (the
/// spaces and line breaks; a comment's "anything but `*/`" is left out).
fn layout_chars(grammar: &Grammar) -> Vec<(u32, u32)> {
    let mut seen = vec![false; grammar.symbols().len()];
    let mut stack: Vec<SymbolId> = grammar.layouts().to_vec();
    let mut out = Vec::new();
    while let Some(sym) = stack.pop() {
        if std::mem::replace(&mut seen[sym.index()], true) {
            continue;
        }
        for item in super::analysis::body_items(&grammar.symbol(sym).body) {
            match item {
                Item::Symbol(s) => stack.push(s),
                Item::Terminal(t) => match grammar.terminal(t) {
                    // Spaces and line breaks, not the "anything" inside a comment.
                    Terminal::Class { class, .. } if class.len() <= 4096 => {
                        out.extend(class.ranges().iter().filter(|r| r.1 >= 0x80).copied())
                    }
                    Terminal::Class { .. } => {}
                    Terminal::Literal(bytes) => {
                        if let Ok(text) = std::str::from_utf8(bytes) {
                            out.extend(text.chars().filter(|&c| c as u32 >= 0x80).map(|c| (c as u32, c as u32)));
                        }
                    }
                },
            }
        }
    }
    out
}

/// The NFA and lazy-DFA cache sizes: tokens with Unicode classes (JavaScript's names, made of
/// ID_Start and ID_Continue) compile to NFAs far over regex-automata's defaults.
const NFA_SIZE_LIMIT: usize = 64 << 20;
const DFA_CACHE_CAPACITY: usize = 8 << 20;

/// A matcher of `hirs`, one pattern each (pattern `i` is `hirs[i]`).
fn build_dfa_many(hirs: &[Hir]) -> Option<DFA> {
    let nfa = thompson::Compiler::new()
        .syntax(Config::new().utf8(false))
        .configure(
            thompson::Config::new()
                .which_captures(thompson::WhichCaptures::None)
                .nfa_size_limit(Some(NFA_SIZE_LIMIT)),
        )
        .build_many_from_hir(hirs)
        .ok()?;
    DFA::builder()
        .configure(
            DFA::config()
                .match_kind(MatchKind::All)
                .cache_capacity(DFA_CACHE_CAPACITY)
                .skip_cache_capacity_check(true),
        )
        .build_from_nfa(nfa)
        .ok()
}

/// A matcher of `hir` alone.
fn build_dfa(hir: Hir) -> Option<DFA> {
    build_dfa_many(&[hir])
}

/// Grammar items as regular expressions, where they are regular and not too big.
struct ToHir<'g> {
    grammar: &'g Grammar,
    visiting: Vec<SymbolId>,
    nodes: usize,
    /// Read the layout as the empty string instead of giving up on the token.
    skip_layout: bool,
    /// Each terminal's expression, made once: a class of hundreds of ranges (Unicode names)
    /// appears in many tokens, and building it sorts its ranges every time.
    terminals: Vec<Option<Hir>>,
    /// The characters beyond ASCII that the layout rules use (a coarse class must not cover them).
    layout_chars: Vec<(u32, u32)>,
}

impl<'g> ToRegex<'g> for ToHir<'g> {
    fn grammar(&self) -> &'g Grammar {
        self.grammar
    }

    fn item(&mut self, item: Item) -> Option<Hir> {
        self.nodes += 1;
        if self.nodes > MAX_TOKEN_NODES {
            return None;
        }
        match item {
            Item::Terminal(t) => {
                if let Some(hir) = &self.terminals[t.index()] {
                    return Some(hir.clone());
                }
                let hir = match self.grammar.terminal(t) {
                    Terminal::Literal(bytes) => Hir::literal(bytes.clone()),
                    Terminal::Class { class, .. } => {
                        let coarse;
                        let ranges = if class.ranges().len() > MAX_EXACT_RANGES {
                            coarse = coarse_class(class, &self.layout_chars);
                            &coarse
                        } else {
                            class.ranges()
                        };
                        let ranges = ranges.iter().filter_map(|&(lo, hi)| {
                            Some(ClassUnicodeRange::new(char::from_u32(lo)?, char::from_u32(hi)?))
                        });
                        Hir::class(Class::Unicode(ClassUnicode::new(ranges)))
                    }
                };
                self.terminals[t.index()] = Some(hir.clone());
                Some(hir)
            }
            Item::Symbol(_) if self.grammar.is_layout(item) && self.skip_layout => Some(Hir::empty()),
            // A token containing the layout is a phrase, and a recursive one is not regular.
            Item::Symbol(s) if self.grammar.is_layout(item) || self.visiting.contains(&s) => None,
            Item::Symbol(s) => {
                self.visiting.push(s);
                let hir = self.body(s);
                self.visiting.pop();
                hir
            }
        }
    }
}
