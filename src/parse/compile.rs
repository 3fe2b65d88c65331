//! Grammar → Earley tables: productions, dotted items with their next element, and token symbols.
//!
//! Non-recursive symbols ("lexical": strings, numbers, whitespace) are not given to Earley; they
//! become single `Token` elements matched by `lexical`. Repetitions become left-recursive
//! productions (unbounded) or chains of tail symbols (bounded), which `forest` flattens again.

use super::scan::TokenDfa;
use crate::grammar::{Body, ByteSet, Grammar, Item, SymbolId, Terminal, TerminalId};

pub(crate) const NONE: u32 = u32::MAX;

/// One element of a production's right-hand side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    Term(TerminalId),
    /// A lexical grammar symbol, matched as a whole by the token matcher.
    Token(SymbolId),
    /// An Earley nonterminal.
    Nt(u32),
}

/// What follows the dot of a dotted item.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Next {
    End,
    Term(TerminalId),
    Token(SymbolId),
    Nt { esym: u32, nullable: bool },
}

/// How an Earley nonterminal maps back to the grammar, for building trees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EKind {
    /// The grammar symbol of this id (choice: one production per alternative, in order).
    Choice(SymbolId),
    /// `X?`: productions `[]` and `[X]`.
    Optional(SymbolId),
    /// `X{min,}`: productions `[X; min]` and `[self, X]`.
    RepeatUnbounded(SymbolId),
    /// `X{min,max}`: production `[X; min, tail]` (or `[X; min]` if min == max).
    RepeatBounded(SymbolId),
    /// A tail of a bounded repetition: productions `[]` and `[X, next tail]` (or `[X]`).
    Tail,
    /// The super-start symbol: `[start]`.
    Start,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Prod {
    pub lhs: u32,
    pub rhs_start: u32,
    pub len: u32,
    /// The grammar alternative (choices) or production index within its symbol.
    pub alt: u32,
    /// First dotted-item id of this production (dot before the first element).
    pub dot_base: u32,
}

/// The compiled tables. Invariant: productions of one Earley symbol are contiguous, in order.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub prods: Vec<Prod>,
    pub elems: Vec<Elem>,
    /// Per dotted item: its production and what follows the dot.
    pub dot_prod: Vec<u32>,
    pub dot_next: Vec<Next>,
    /// Per Earley symbol: range of its productions.
    pub prods_of: Vec<(u32, u32)>,
    pub ekind: Vec<EKind>,
    pub nullable: Vec<bool>,
    /// Per grammar symbol: its Earley symbol, or NONE if it is lexical (matched as a token).
    pub esym_of: Vec<u32>,
    pub lexical: Vec<bool>,
    pub start: u32,
    /// Per production: the bytes a non-empty match can start with, and whether it can match
    /// nothing. Prediction skips productions that cannot start at the next byte.
    pub prod_first: Vec<ByteSet>,
    pub prod_nullable: Vec<bool>,
    /// Per dotted item: the next element is a keyword right after the layout (`_ "select"`),
    /// which must not run on into a longer word.
    pub dot_keyword: Vec<bool>,
    /// Per dotted item: the bytes that may come next for the item to lead anywhere (FIRST of
    /// the rest of its production, and FOLLOW of its symbol if that rest can be empty), and
    /// whether the end of the input may. Items that fail it cannot be part of any parse.
    pub dot_look: Vec<u32>,
    /// The distinct lookaheads of `dot_look`: a large grammar has tens of thousands of dotted
    /// items and a few hundred lookaheads, and completion checks one per item it advances, so
    /// the table it reads stays in the cache.
    pub looks: Vec<(ByteSet, bool)>,
    /// The lexical symbols matched as tokens, as one lazy DFA.
    pub tokens: TokenDfa,
    /// Per grammar symbol: whether its derivations depend on their bytes alone (see
    /// [`self_contained`]), so one derivation of a token serves all its occurrences.
    pub self_contained: Vec<bool>,
}

impl Compiled {
    pub fn new(g: &Grammar) -> Compiled {
        // Symbols that reach no recursion are matched as tokens.
        let lexical: Vec<bool> = g.analysis().reaches_recursion.iter().map(|r| !r).collect();
        let n = g.symbols().len();
        let mut c = Compiled {
            prods: Vec::new(),
            elems: Vec::new(),
            dot_prod: Vec::new(),
            dot_next: Vec::new(),
            prods_of: Vec::new(),
            ekind: Vec::new(),
            nullable: Vec::new(),
            esym_of: vec![NONE; n],
            lexical,
            start: NONE,
            prod_first: Vec::new(),
            prod_nullable: Vec::new(),
            dot_keyword: Vec::new(),
            dot_look: Vec::new(),
            looks: Vec::new(),
            tokens: TokenDfa::default(),
            self_contained: Vec::new(),
        };
        // Earley symbols for every non-lexical grammar symbol, then the start, then tails.
        for (i, s) in g.symbols().iter().enumerate() {
            if c.lexical[i] {
                continue;
            }
            let sym = SymbolId(i as u32);
            let kind = match s.body {
                Body::Choice(_) => EKind::Choice(sym),
                Body::Optional(_) => EKind::Optional(sym),
                Body::Repeat { max: None, .. } => EKind::RepeatUnbounded(sym),
                Body::Repeat { max: Some(_), .. } => EKind::RepeatBounded(sym),
            };
            c.esym_of[i] = c.new_esym(kind, g.is_nullable(sym));
        }
        c.start = c.new_esym(EKind::Start, g.is_nullable(g.start()));
        // Productions, grouped by lhs: symbols first (in id order), then the start, then tails as
        // they are created (each tail's productions are emitted right after it is made).
        let mut pending_tails: Vec<(u32, Elem, u32)> = Vec::new();
        for (i, s) in g.symbols().iter().enumerate() {
            let e = c.esym_of[i];
            if e == NONE {
                continue;
            }
            let begin = c.prods.len() as u32;
            match &s.body {
                Body::Choice(alts) => {
                    for (k, alt) in alts.iter().enumerate() {
                        let rhs: Vec<Elem> = alt.items.iter().map(|&it| c.elem(it)).collect();
                        c.add_prod(e, &rhs, k as u32);
                    }
                }
                Body::Optional(item) => {
                    c.add_prod(e, &[], 0);
                    let x = c.elem(*item);
                    c.add_prod(e, &[x], 1);
                }
                Body::Repeat { item, min, max } => {
                    let x = c.elem(*item);
                    let mut base = vec![x; *min as usize];
                    match max {
                        None => {
                            c.add_prod(e, &base, 0);
                            c.add_prod(e, &[Elem::Nt(e), x], 1);
                        }
                        Some(max) => {
                            let extra = max - min;
                            if extra > 0 {
                                let tail = c.new_esym(EKind::Tail, true);
                                base.push(Elem::Nt(tail));
                                pending_tails.push((tail, x, extra));
                            }
                            c.add_prod(e, &base, 0);
                        }
                    }
                }
            }
            c.prods_of[e as usize] = (begin, c.prods.len() as u32);
        }
        let begin = c.prods.len() as u32;
        let start_elem = c.elem(Item::Symbol(g.start()));
        c.add_prod(c.start, &[start_elem], 0);
        c.prods_of[c.start as usize] = (begin, c.prods.len() as u32);
        // Tail k allows k more iterations: T_k -> [] | [X, T_{k-1}] and T_1 -> [] | [X].
        while let Some((tail, x, k)) = pending_tails.pop() {
            let mut rhs = vec![x];
            if k > 1 {
                let next = c.new_esym(EKind::Tail, true);
                rhs.push(Elem::Nt(next));
                pending_tails.push((next, x, k - 1));
            }
            let begin = c.prods.len() as u32;
            c.add_prod(tail, &[], 0);
            c.add_prod(tail, &rhs, 1);
            c.prods_of[tail as usize] = (begin, c.prods.len() as u32);
        }
        c.fill_dots();
        let esym_first = c.first_sets(g);
        c.follow_sets(g, &esym_first);
        c.keywords(g);
        // The symbols the chart matches as tokens (their parts stay with the interpreter:
        // patterns for all of them would cost more to build than they save).
        let mut tokens: Vec<SymbolId> = c
            .elems
            .iter()
            .filter_map(|e| match e {
                Elem::Token(s) => Some(*s),
                _ => None,
            })
            .collect();
        tokens.sort_unstable();
        tokens.dedup();
        c.tokens = TokenDfa::new(g, &tokens);
        c.self_contained = self_contained(g, &c.lexical);
        c
    }

    fn new_esym(&mut self, kind: EKind, nullable: bool) -> u32 {
        self.ekind.push(kind);
        self.nullable.push(nullable);
        self.prods_of.push((0, 0));
        (self.ekind.len() - 1) as u32
    }

    fn elem(&self, item: Item) -> Elem {
        match item {
            Item::Terminal(t) => Elem::Term(t),
            Item::Symbol(s) if self.lexical[s.index()] => Elem::Token(s),
            Item::Symbol(s) => Elem::Nt(self.esym_of[s.index()]),
        }
    }

    /// Marks the dotted items before a word token (see [`Grammar::is_word_token`]).
    fn keywords(&mut self, g: &Grammar) {
        self.dot_keyword = vec![false; self.dot_next.len()];
        // Earley nonterminals are never tokens; the others are the grammar's items.
        let item = |e: Elem| match e {
            Elem::Term(t) => Some(Item::Terminal(t)),
            Elem::Token(s) => Some(Item::Symbol(s)),
            Elem::Nt(_) => None,
        };
        for p in &self.prods {
            let rhs = &self.elems[p.rhs_start as usize..(p.rhs_start + p.len) as usize];
            for k in 1..rhs.len() {
                let Some(this) = item(rhs[k]) else { continue };
                // After the token: the production's end (`None`), or an element; a nonterminal
                // there is not the layout, so the token is not whole.
                let after = match rhs.get(k + 1) {
                    None => None,
                    Some(&e) => match item(e) {
                        Some(a) => Some(a),
                        None => continue,
                    },
                };
                if g.is_word_token(item(rhs[k - 1]), this, after) {
                    self.dot_keyword[(p.dot_base as usize) + k] = true;
                }
            }
        }
    }

    /// FIRST bytes of every production, by fixpoint over the Earley symbols; returns those of
    /// every Earley symbol.
    fn first_sets(&mut self, g: &Grammar) -> Vec<ByteSet> {
        let a = g.analysis();
        let mut esym_first = vec![ByteSet::default(); self.ekind.len()];
        let rhs_first = |c: &Compiled, p: &Prod, esym_first: &[ByteSet]| -> (ByteSet, bool) {
            let mut acc = ByteSet::default();
            for &e in &c.elems[p.rhs_start as usize..(p.rhs_start + p.len) as usize] {
                let (first, nullable) = match e {
                    Elem::Term(t) => (a.terminal_first[t.index()], false),
                    Elem::Token(s) => (a.first_bytes[s.index()], g.is_nullable(s)),
                    Elem::Nt(n) => (esym_first[n as usize], c.nullable[n as usize]),
                };
                acc.union(&first);
                if !nullable {
                    return (acc, false);
                }
            }
            (acc, true)
        };
        loop {
            let mut changed = false;
            for p in &self.prods {
                let (first, _) = rhs_first(self, p, &esym_first);
                changed |= esym_first[p.lhs as usize].union(&first);
            }
            if !changed {
                break;
            }
        }
        let (firsts, nullables): (Vec<ByteSet>, Vec<bool>) =
            self.prods.iter().map(|p| rhs_first(self, p, &esym_first)).unzip();
        self.prod_first = firsts;
        self.prod_nullable = nullables;
        esym_first
    }

    /// FIRST and nullability of one element.
    fn elem_first(&self, g: &Grammar, esym_first: &[ByteSet], e: Elem) -> (ByteSet, bool) {
        match e {
            Elem::Term(t) => (g.analysis().terminal_first[t.index()], false),
            Elem::Token(s) => (g.analysis().first_bytes[s.index()], g.is_nullable(s)),
            Elem::Nt(n) => (esym_first[n as usize], self.nullable[n as usize]),
        }
    }

    /// FOLLOW bytes (and end of input) of every Earley symbol by fixpoint, then each dotted
    /// item's lookahead (`dot_look`).
    fn follow_sets(&mut self, g: &Grammar, esym_first: &[ByteSet]) {
        let mut follow = vec![(ByteSet::default(), false); self.ekind.len()];
        follow[self.start as usize].1 = true;
        // What may come after each suffix of a production: FIRST of the suffix, plus the lhs's
        // FOLLOW while the suffix is nullable.
        let after = |c: &Compiled, p: &Prod, k: usize, follow: &[(ByteSet, bool)]| -> (ByteSet, bool) {
            let mut acc = ByteSet::default();
            for &e in &c.elems[p.rhs_start as usize + k..(p.rhs_start + p.len) as usize] {
                let (first, nullable) = c.elem_first(g, esym_first, e);
                acc.union(&first);
                if !nullable {
                    return (acc, false);
                }
            }
            let (f, eof) = follow[p.lhs as usize];
            acc.union(&f);
            (acc, eof)
        };
        loop {
            let mut changed = false;
            for p in &self.prods {
                for k in 0..p.len as usize {
                    if let Elem::Nt(n) = self.elems[p.rhs_start as usize + k] {
                        let (f, eof) = after(self, p, k + 1, &follow);
                        changed |= follow[n as usize].0.union(&f);
                        if eof && !follow[n as usize].1 {
                            follow[n as usize].1 = true;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut look = Vec::with_capacity(self.dot_next.len());
        let mut looks = Vec::new();
        let mut known: rustc_hash::FxHashMap<(ByteSet, bool), u32> = Default::default();
        for p in &self.prods {
            for k in 0..=p.len as usize {
                let l = after(self, p, k, &follow);
                look.push(*known.entry(l).or_insert_with(|| {
                    looks.push(l);
                    (looks.len() - 1) as u32
                }));
            }
        }
        self.dot_look = look;
        self.looks = looks;
    }

    fn add_prod(&mut self, lhs: u32, rhs: &[Elem], alt: u32) {
        let rhs_start = self.elems.len() as u32;
        self.elems.extend_from_slice(rhs);
        self.prods.push(Prod {
            lhs,
            rhs_start,
            len: rhs.len() as u32,
            alt,
            dot_base: 0,
        });
    }

    fn fill_dots(&mut self) {
        for p in 0..self.prods.len() {
            let prod = self.prods[p];
            self.prods[p].dot_base = self.dot_prod.len() as u32;
            for k in 0..=prod.len {
                self.dot_prod.push(p as u32);
                let next = if k == prod.len {
                    Next::End
                } else {
                    match self.elems[(prod.rhs_start + k) as usize] {
                        Elem::Term(t) => Next::Term(t),
                        Elem::Token(s) => Next::Token(s),
                        Elem::Nt(e) => Next::Nt {
                            esym: e,
                            nullable: self.nullable[e as usize],
                        },
                    }
                };
                self.dot_next.push(next);
            }
        }
    }

    /// The right-hand side of production `p`.
    pub fn rhs(&self, p: u32) -> &[Elem] {
        let prod = &self.prods[p as usize];
        &self.elems[prod.rhs_start as usize..(prod.rhs_start + prod.len) as usize]
    }
}

/// Whether terminal `t` matches at the start of `input`; returns the matched length.
#[inline]
pub(crate) fn match_terminal(term: &Terminal, input: &[u8]) -> Option<usize> {
    match term {
        // Most literals fail on their first byte; check it before calling memcmp.
        Terminal::Literal(bytes) => (input.first() == bytes.first() && input.starts_with(bytes)).then_some(bytes.len()),
        Terminal::Class { class, .. } => {
            let &b = input.first()?;
            if b < 0x80 {
                return class.contains_ascii(b).then_some(1);
            }
            let (c, len) = crate::grammar::decode_utf8(input)?;
            class.contains(c).then_some(len)
        }
    }
}

/// Per grammar symbol: whether it is lexical and its derivation of some bytes depends on those
/// bytes alone. Two things inside a token look past its bytes: a word check (`_ "in"` must not
/// run on into a longer word), and a longest-match symbol below it (its longest match may run
/// past the token's end in one place and not in another). Symbols without either are
/// self-contained. Bottom-up with an explicit stack: lexical symbols do not recurse, but user
/// grammars may nest them deeply.
fn self_contained(g: &Grammar, lexical: &[bool]) -> Vec<bool> {
    let check_words = g.layout().is_some() && !g.lexemes().is_empty();
    let n = g.symbols().len();
    let mut ok = vec![false; n];
    let mut done = vec![false; n];
    let children = |s: usize| -> Vec<Item> {
        match &g.symbols()[s].body {
            Body::Choice(alts) => alts.iter().flat_map(|a| a.items.iter().copied()).collect(),
            Body::Optional(item) | Body::Repeat { item, .. } => vec![*item],
        }
    };
    let mut stack = Vec::new();
    for root in (0..n).filter(|&s| lexical[s]) {
        stack.push((root, false));
        while let Some((s, ready)) = stack.pop() {
            if done[s] {
                continue;
            }
            let kids = children(s);
            if !ready {
                stack.push((s, true));
                for item in kids {
                    if let Item::Symbol(t) = item {
                        if !done[t.index()] {
                            stack.push((t.index(), false));
                        }
                    }
                }
                continue;
            }
            let words = check_words
                && match &g.symbols()[s].body {
                    Body::Choice(alts) => alts.iter().any(|a| {
                        (1..a.items.len())
                            .any(|k| g.is_word_token(Some(a.items[k - 1]), a.items[k], a.items.get(k + 1).copied()))
                    }),
                    _ => false,
                };
            ok[s] = lexical[s]
                && !words
                && kids.iter().all(|&item| match item {
                    Item::Symbol(t) => ok[t.index()] && !g.is_longest_match(t),
                    Item::Terminal(_) => true,
                });
            done[s] = true;
        }
    }
    ok
}
