//! Tokens as one lazy DFA: the ends of a lexical symbol from an offset in a single pass over
//! its bytes, instead of interpreting the grammar byte by byte (`lexical`).
//!
//! Every token symbol whose meaning in the parser is its regular language becomes one pattern
//! of a multi-pattern lazy DFA (regex-automata's hybrid DFA, anchored per pattern, all match
//! ends). A token is left to the interpreter where the parser gives it more than its language:
//! a longest-match symbol nested inside it (the interpreter keeps only that symbol's longest
//! match), a word check inside it (a keyword after the layout), or an expression too large.
//! The DFA has no failure tracking; the parser uses it only in the run that looks ahead, whose
//! failures are never reported (a failed parse is rerun on the interpreter for its message).

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::nfa::thompson;
use regex_automata::util::{start, syntax};
use regex_automata::{Anchored, MatchKind, PatternID};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir};

use super::compile::NONE;
use crate::grammar::regex::{concat, ToRegex};
use crate::grammar::{Grammar, Item, SymbolId, Terminal};

/// Expressions larger than this (in HIR nodes and class ranges, counting every use of a rule)
/// stay with the interpreter: rules are expanded at every use, and a name made of Unicode
/// classes (hundreds of ranges) used in many places would take longer to compile than to
/// interpret on any sample.
const MAX_NODES: usize = 20_000;
/// The NFA's size limit: Unicode classes (names of JavaScript) compile to large NFAs.
const NFA_SIZE_LIMIT: usize = 64 << 20;
/// The lazy DFA's cache: states are made on demand and the cache is cleared when it is full.
const CACHE_CAPACITY: usize = 4 << 20;

/// The token DFA of a grammar (the default matches no token).
#[derive(Debug, Default)]
pub(crate) struct TokenDfa {
    dfa: Option<DFA>,
    /// Per grammar symbol: its pattern, or NONE where the interpreter runs.
    pattern: Vec<u32>,
}

impl TokenDfa {
    /// A DFA for those of `tokens` whose parser meaning is regular (see the module doc).
    pub fn new(g: &Grammar, tokens: &[SymbolId]) -> TokenDfa {
        let mut pattern = vec![NONE; g.symbols().len()];
        let mut conv = ToHir {
            g,
            nodes: 0,
            check_words: g.layout().is_some() && !g.lexemes().is_empty(),
            terminals: vec![None; g.terminals().len()],
        };
        let mut hirs = Vec::new();
        let mut syms = Vec::new();
        for &s in tokens {
            conv.nodes = 0;
            if let Some(hir) = conv.body(s) {
                hirs.push(hir);
                syms.push(s);
            }
        }
        let dfa = (!hirs.is_empty()).then(|| build(&hirs)).flatten();
        if dfa.is_some() {
            for (k, s) in syms.iter().enumerate() {
                pattern[s.index()] = k as u32;
            }
        }
        TokenDfa { dfa, pattern }
    }

    /// Whether the DFA matches token `sym`.
    #[inline]
    pub fn has(&self, sym: SymbolId) -> bool {
        self.pattern.get(sym.index()).is_some_and(|&p| p != NONE)
    }

    /// Fresh scratch space for [`TokenDfa::ends`] (`None` without a DFA).
    pub fn cache(&self) -> Option<ScanCache> {
        self.dfa.as_ref().map(|d| ScanCache {
            cache: d.create_cache(),
            starts: vec![None; self.pattern.len()],
            clears: 0,
        })
    }

    /// The start state of `sym`'s pattern, remembered until the cache is next cleared (which
    /// invalidates state ids): most tokens are a few bytes long, and finding the start state
    /// would cost more than walking them.
    #[inline]
    fn start(&self, dfa: &DFA, cache: &mut ScanCache, sym: SymbolId) -> Option<LazyStateID> {
        if cache.cache.clear_count() != cache.clears {
            cache.clears = cache.cache.clear_count();
            cache.starts.iter_mut().for_each(|s| *s = None);
        }
        if let Some(sid) = cache.starts[sym.index()] {
            return Some(sid);
        }
        let pid = PatternID::new_unchecked(self.pattern[sym.index()] as usize);
        let config = start::Config::new().anchored(Anchored::Pattern(pid));
        let sid = dfa.start_state(&mut cache.cache, &config).ok()?;
        // Computing it may have cleared the cache; then it is valid but the others are not.
        if cache.cache.clear_count() != cache.clears {
            cache.clears = cache.cache.clear_count();
            cache.starts.iter_mut().for_each(|s| *s = None);
        }
        cache.starts[sym.index()] = Some(sid);
        Some(sid)
    }

    /// Appends to `out` the ends of token `sym` (which [`TokenDfa::has`]) starting at `pos` in
    /// `input`, ascending: every end, or with `longest` only the last. `false` (with `out`
    /// unchanged) if the DFA could not answer; the interpreter must then.
    pub fn ends(
        &self,
        cache: &mut ScanCache,
        input: &[u8],
        sym: SymbolId,
        pos: u32,
        longest: bool,
        out: &mut Vec<u32>,
    ) -> bool {
        let Some(dfa) = &self.dfa else { return false };
        let Some(mut sid) = self.start(dfa, cache, sym) else {
            return false;
        };
        let cache = &mut cache.cache;
        let first = out.len();
        let mut last = None;
        let mut at = pos;
        // Matches are reported one byte late: a match state after byte `at` means a match of
        // the bytes before it.
        for &b in &input[pos as usize..] {
            sid = match dfa.next_state(cache, sid, b) {
                Ok(s) => s,
                Err(_) => {
                    out.truncate(first);
                    return false;
                }
            };
            if sid.is_tagged() {
                if sid.is_match() {
                    if longest {
                        last = Some(at);
                    } else {
                        out.push(at);
                    }
                }
                if sid.is_dead() {
                    break;
                }
                if sid.is_quit() {
                    out.truncate(first);
                    return false;
                }
            }
            at += 1;
        }
        if at as usize == input.len() {
            match dfa.next_eoi_state(cache, sid) {
                Ok(s) if s.is_match() => {
                    if longest {
                        last = Some(at);
                    } else {
                        out.push(at);
                    }
                }
                Ok(_) => {}
                Err(_) => {
                    out.truncate(first);
                    return false;
                }
            }
        }
        out.extend(last);
        true
    }
}

/// The lazy DFA's cache, and the start state of each symbol's pattern in it.
#[derive(Clone, Debug)]
pub(crate) struct ScanCache {
    cache: Cache,
    /// Per grammar symbol.
    starts: Vec<Option<LazyStateID>>,
    /// The cache's clear count when `starts` was valid.
    clears: usize,
}

fn build(hirs: &[Hir]) -> Option<DFA> {
    let nfa = thompson::Compiler::new()
        .syntax(syntax::Config::new().utf8(false))
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
                .starts_for_each_pattern(true)
                .cache_capacity(CACHE_CAPACITY)
                .skip_cache_capacity_check(true),
        )
        .build_from_nfa(nfa)
        .ok()
}

/// Lexical symbols as regular expressions, exactly: `None` where the parser's meaning differs
/// from the symbol's language, or the expression is too large.
struct ToHir<'g> {
    g: &'g Grammar,
    nodes: usize,
    /// Whether the grammar has word tokens (a layout and `%lexeme` rules).
    check_words: bool,
    /// Each terminal's expression, made once (Unicode classes have hundreds of ranges).
    terminals: Vec<Option<Hir>>,
}

impl<'g> ToRegex<'g> for ToHir<'g> {
    fn grammar(&self) -> &'g Grammar {
        self.g
    }

    fn item(&mut self, item: Item) -> Option<Hir> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return None;
        }
        match item {
            Item::Terminal(t) => {
                if let Terminal::Class { class, .. } = self.g.terminal(t) {
                    self.nodes += class.ranges().len();
                    if self.nodes > MAX_NODES {
                        return None;
                    }
                }
                if let Some(hir) = &self.terminals[t.index()] {
                    return Some(hir.clone());
                }
                let hir = match self.g.terminal(t) {
                    Terminal::Literal(bytes) => Hir::literal(bytes.clone()),
                    Terminal::Class { class, .. } => {
                        // Scalar values only: the parser's UTF-8 decoding rejects surrogates.
                        let ranges = class.ranges().iter().flat_map(|&(lo, hi)| {
                            [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)]
                                .into_iter()
                                .filter(|(a, b)| a <= b)
                                .filter_map(|(a, b)| {
                                    Some(ClassUnicodeRange::new(char::from_u32(a)?, char::from_u32(b)?))
                                })
                        });
                        Hir::class(Class::Unicode(ClassUnicode::new(ranges)))
                    }
                };
                self.terminals[t.index()] = Some(hir.clone());
                Some(hir)
            }
            // The interpreter keeps only the longest match of such a symbol, wherever it is.
            Item::Symbol(s) if self.g.is_longest_match(s) => None,
            // Lexical symbols do not recurse, so neither does this beyond their depth.
            Item::Symbol(s) => self.body(s),
        }
    }

    fn seq(&mut self, items: &[Item]) -> Option<Hir> {
        if self.check_words {
            // A word token after the layout inside this symbol: the interpreter cuts it where
            // a longer word continues it, which no regular expression of the symbol says.
            for k in 0..items.len() {
                let before = k.checked_sub(1).map(|j| items[j]);
                if self.g.is_word_token(before, items[k], items.get(k + 1).copied()) {
                    return None;
                }
            }
        }
        concat(self, items)
    }
}
