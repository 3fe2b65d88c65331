//! Tokens as one lazy DFA: the ends of a lexical symbol from an offset in a single pass over
//! its bytes, instead of interpreting the grammar byte by byte (`lexical`).
//!
//! Every token symbol whose meaning in the parser is its regular language becomes one pattern
//! of a multi-pattern lazy DFA (regex-automata's hybrid DFA, anchored per pattern, all match
//! ends). A token is left to the interpreter where the parser gives it more than its language:
//! a longest-match symbol nested inside it (the interpreter keeps only that symbol's longest
//! match), a word check inside it (a keyword after the layout), or an expression too large. A
//! rule that is one exclusion of another rule's strings (`ident = ident_name - reserved`), and a
//! unit rule over it (`binding = ident`), is matched as that rule's pattern with the ends that
//! spell an excluded word taken out (as an expression it would repeat the name at every node of
//! a trie of the words).
//! The DFA has no failure tracking; the parser uses it only in the run that looks ahead, whose
//! failures are never reported (a failed parse is rerun on the interpreter for its message).

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::nfa::thompson;
use regex_automata::util::{start, syntax};
use regex_automata::{Anchored, MatchKind, PatternID};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir};

use rustc_hash::{FxHashMap, FxHashSet};

use super::compile::NONE;
use crate::grammar::regex::{concat, ToRegex};
use crate::grammar::{Body, Grammar, Item, SymbolId, Terminal};

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
    /// Per grammar symbol: the words its matches must not be (an index into `words`), or NONE.
    excluded: Vec<u32>,
    /// Per grammar symbol: whether a symbol between it and its pattern's is matched
    /// longest-first (`binding = ident` with `ident` a longest-match token).
    inner_longest: Vec<bool>,
    /// The words of exclusions (`ident = ident_name - reserved`).
    words: Vec<FxHashSet<Box<[u8]>>>,
}

/// What a token whose own expression is too large is matched as: the strings of `left` less
/// the words of the exclusion `which` (an index into the grammar's exclusions), longest-first
/// if `longest` (some symbol on the way is a longest-match token).
struct Excluding {
    left: SymbolId,
    which: usize,
    longest: bool,
}

/// How `sym` is an exclusion of a rule's strings, through unit rules (`binding = ident`,
/// `ident = ident_name - reserved`), if it is.
fn excluding(g: &Grammar, sym: SymbolId) -> Option<Excluding> {
    let (mut cur, mut longest) = (sym, false);
    // Unit rules do not cycle in a loaded grammar; the bound only keeps a walk finite.
    for _ in 0..g.symbols().len() {
        let name = &g.symbol(cur).name;
        if let Some((which, (left, _))) = g
            .exclusions()
            .iter()
            .enumerate()
            .find_map(|(k, e)| Some((k, e.whole.as_ref()?)).filter(|_| e.rule == *name))
        {
            return Some(Excluding {
                left: g.symbol_by_name(left)?,
                which,
                longest,
            });
        }
        match &g.symbol(cur).body {
            Body::Choice(alts) => match &alts[..] {
                [alt] => match alt.items[..] {
                    [Item::Symbol(next)] if next != cur => {
                        longest |= g.is_longest_match(next);
                        cur = next;
                    }
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        }
    }
    None
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
        let mut excluded = vec![NONE; g.symbols().len()];
        let mut inner_longest = vec![false; g.symbols().len()];
        let mut words: Vec<FxHashSet<Box<[u8]>>> = Vec::new();
        // Per exclusion: its pattern and words, made once for all the tokens that are it.
        let mut made: FxHashMap<usize, (usize, u32)> = FxHashMap::default();
        for &s in tokens {
            conv.nodes = 0;
            if let Some(hir) = conv.body(s) {
                hirs.push(hir);
                syms.push((s, hirs.len() - 1));
                continue;
            }
            // A name less the reserved words: as an expression, the exclusion copies the
            // name's expression into every node of a trie of the words, far too large; as the
            // name's expression with the words taken out of its matches, it is small.
            let Some(e) = excluding(g, s) else { continue };
            let (k, w) = match made.get(&e.which) {
                Some(&known) => known,
                None => {
                    conv.nodes = 0;
                    let Some(hir) = conv.body(e.left) else { continue };
                    hirs.push(hir);
                    let (_, list) = g.exclusions()[e.which]
                        .whole
                        .as_ref()
                        .expect("an exclusion of a whole rule");
                    words.push(list.iter().map(|w| w.clone().into_boxed_slice()).collect());
                    let known = (hirs.len() - 1, (words.len() - 1) as u32);
                    made.insert(e.which, known);
                    known
                }
            };
            syms.push((s, k));
            excluded[s.index()] = w;
            inner_longest[s.index()] = e.longest;
        }
        let dfa = (!hirs.is_empty()).then(|| build(&hirs)).flatten();
        if dfa.is_some() {
            for &(s, k) in &syms {
                pattern[s.index()] = k as u32;
            }
        }
        TokenDfa {
            dfa,
            pattern,
            excluded,
            inner_longest,
            words,
        }
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
        let longest = longest || self.inner_longest[sym.index()];
        let words = self.words.get(self.excluded[sym.index()] as usize);
        let cache = &mut cache.cache;
        let first = out.len();
        let mut last = None;
        // An end is kept unless it ends an excluded word; ends come ascending, so the last
        // one kept is the longest.
        let mut found = |at: u32, out: &mut Vec<u32>| {
            if words.is_some_and(|w| w.contains(&input[pos as usize..at as usize])) {
                return;
            }
            if longest {
                last = Some(at);
            } else {
                out.push(at);
            }
        };
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
                    found(at, out);
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
                Ok(s) if s.is_match() => found(at, out),
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
