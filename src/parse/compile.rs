//! Grammar → Earley tables: productions, their prefix tries (the recognizer's states), and tokens.
//!
//! Non-recursive symbols ("lexical": strings, numbers, whitespace) are not given to Earley; they
//! become single `Token` elements matched by `lexical`. Repetitions become left-recursive
//! productions (unbounded) or chains of tail symbols (bounded), which `forest` flattens again.

use std::collections::hash_map::Entry;

use super::scan::TokenDfa;
use crate::grammar::{Assoc, Body, ByteSet, Grammar, Item, SymbolId, Terminal, TerminalId};

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

/// What follows the dot of a dotted item. (A nonterminal's `nullable` is its symbol's, so two
/// `Next`s are equal when their elements are.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// The position before its first element (positions: one per production and dot).
    pub pos_base: u32,
}

/// A node of the prefix trie of one Earley symbol's productions: the productions that begin with
/// the same elements share it, so an Earley item (a state and an origin) stands for all their
/// dotted items at once. `js` has productions by the dozen that begin with `expression`
/// (`a + b`, `a.b`, `a(b)`, ...): each position predicted or advanced one item per production.
///
/// Invariant: the elements on the path from the symbol's root are a prefix of the right-hand
/// side of every production through the state, so a tree read back along `pred` links meets the
/// elements of the production that ends there.
///
/// What the recognizer reads for every item is here, in 8 bytes (js has some 10,000 states, and
/// 12 bytes made its parse 3 % slower);
/// the rest is in tables per state of [`Compiled`] (`state_look`, `single_to`, `state_end`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    /// Its first action in [`Compiled::actions`].
    pub first: u32,
    /// How many actions it has (low 31 bits), and whether it is a root (top bit).
    len_root: u32,
}

impl State {
    const ROOT: u32 = 1 << 31;

    /// How many actions it has. With more than one, each checks its own lookahead (an item of
    /// a one-action state was checked against the state's on entering).
    #[inline]
    pub fn len(self) -> usize {
        (self.len_root & !Self::ROOT) as usize
    }

    /// Whether it is a root: an item there was predicted, and its actions filter by the next
    /// byte as prediction does (see [`Action::look`]), not by the lookahead of advancing.
    #[inline]
    pub fn is_root(self) -> bool {
        self.len_root & Self::ROOT != 0
    }
}

/// What an item of a state does, once per distinct next element (and once for "ends here"), in
/// the order of the first production through the state that does it: the order in which the
/// dotted items it stands for were processed, so ambiguous inputs keep the same derivation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Action {
    pub next: Next,
    /// The state after the element; for `End`, the Earley symbol that ends.
    pub to: u32,
    /// The bytes (and end of input) after which this action can lead somewhere: the union of
    /// the lookaheads of the dotted items it stands for. A root's actions have the first bytes
    /// of their productions instead (every byte, and the end, if one can match nothing).
    pub look: u32,
    /// The element is a keyword right after the layout (`_ "select"`), which must not run on
    /// into a longer word.
    pub keyword: bool,
}

/// The compiled tables. Invariant: productions of one Earley symbol are contiguous, in order.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub prods: Vec<Prod>,
    pub elems: Vec<Elem>,
    /// The recognizer's states (see [`State`]) and their actions.
    pub states: Vec<State>,
    pub actions: Vec<Action>,
    /// Per Earley symbol: the root state of its productions (where a prediction starts).
    pub root: Vec<u32>,
    /// Per state: the lookahead of an item entering it (the union of its actions'), in
    /// `looks`.
    pub state_look: Vec<u32>,
    /// Per state: the state after its action if it has only one (else NONE). Completion reads
    /// this and `state_look` for every item it advances.
    pub single_to: Vec<u32>,
    /// Per state: the first production (in order) that ends there, or NONE; trees are read
    /// back by it.
    pub state_end: Vec<u32>,
    /// Per Earley symbol: range of its productions.
    pub prods_of: Vec<(u32, u32)>,
    pub ekind: Vec<EKind>,
    pub nullable: Vec<bool>,
    /// Per grammar symbol: its Earley symbol, or NONE if it is lexical (matched as a token).
    pub esym_of: Vec<u32>,
    pub lexical: Vec<bool>,
    pub start: u32,
    /// Per production: the bytes a non-empty match can start with, and whether it can match
    /// nothing. Prediction skips productions that cannot start at the next byte (a root's
    /// actions carry the union of theirs as their `look`).
    prod_first: Vec<ByteSet>,
    prod_nullable: Vec<bool>,
    /// Per position: the next element is a keyword right after the layout.
    pub(crate) pos_keyword: Vec<bool>,
    /// Per position: the bytes that may come next for its dotted item to lead anywhere (FIRST
    /// of the rest of its production, and FOLLOW of its symbol if that rest can be empty), and
    /// whether the end of the input may. Items that fail it cannot be part of any parse.
    pos_look: Vec<(ByteSet, bool)>,
    /// The distinct lookaheads of states and actions: a large grammar has thousands of states
    /// and a few hundred lookaheads, and completion checks one per item it advances, so the
    /// table it reads stays in the cache.
    pub looks: Vec<(ByteSet, bool)>,
    /// The lexical symbols matched as tokens, as one lazy DFA.
    pub tokens: TokenDfa,
    /// Per grammar symbol: whether its derivations depend on their bytes alone (see
    /// [`self_contained`]), so one derivation of a token serves all its occurrences.
    pub self_contained: Vec<bool>,
    /// Keyword extraction (`%word`): per grammar symbol, for a token each of whose
    /// alternatives is a keyword after the layout (`primitive_type = _ "u8" | _ "i8" ;`), those
    /// keywords: where it matches, a name spelling its keyword is not read.
    pub keyword_tokens: Vec<Option<Vec<crate::grammar::TerminalId>>>,
    /// Per production: its alternative's precedence (`@left(3)`), and whether any has one.
    pub prod_prec: Vec<Option<crate::grammar::Prec>>,
    pub has_prec: bool,
    /// Per state: where the state ends a left-associative production `X → T … T` (its first
    /// and last parts the same nonterminal, or the first that one made optional) and nothing
    /// else, the completion key its items wait under for that last `T` (see [`right_keys`]),
    /// else NONE.
    pub right_key: Vec<u32>,
    /// Per Earley symbol `T`: the range of completion keys of the productions above whose last
    /// part is `T`, one key per production, each after every Earley symbol's own.
    pub right_keys_of: Vec<(u32, u32)>,
    /// Per production: its completion key as above, else NONE.
    pub right_key_of_prod: Vec<u32>,
    /// Per production: whether its first part is `T?` rather than `T` (see [`right_keys`]).
    pub right_first_optional: Vec<bool>,
    /// Keyword extraction: per grammar symbol, whether it is a name (see [`NameToken`]).
    pub names: Vec<NameToken>,
}

impl Compiled {
    pub fn new(g: &Grammar) -> Compiled {
        // Symbols that reach no recursion are matched as tokens.
        let lexical: Vec<bool> = g.analysis().reaches_recursion.iter().map(|r| !r).collect();
        let n = g.symbols().len();
        let mut c = Compiled {
            prods: Vec::new(),
            elems: Vec::new(),
            states: Vec::new(),
            actions: Vec::new(),
            root: Vec::new(),
            state_look: Vec::new(),
            single_to: Vec::new(),
            state_end: Vec::new(),
            prods_of: Vec::new(),
            ekind: Vec::new(),
            nullable: Vec::new(),
            esym_of: vec![NONE; n],
            lexical,
            start: NONE,
            prod_first: Vec::new(),
            prod_nullable: Vec::new(),
            pos_keyword: Vec::new(),
            pos_look: Vec::new(),
            looks: Vec::new(),
            tokens: TokenDfa::default(),
            self_contained: Vec::new(),
            keyword_tokens: Vec::new(),
            names: Vec::new(),
            prod_prec: Vec::new(),
            has_prec: false,
            right_key: Vec::new(),
            right_keys_of: Vec::new(),
            right_key_of_prod: Vec::new(),
            right_first_optional: Vec::new(),
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
        c.number_positions();
        let esym_first = c.first_sets(g);
        c.follow_sets(g, &esym_first);
        c.keywords(g);
        c.build_states();
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
        // And what follows the layout inside them (`_type_identifier = _ type_identifier ;`):
        // the layout there is matched between its lexemes, which a pattern cannot say, so
        // such a token is interpreted, but the name after the layout need not be.
        let inner: Vec<SymbolId> = tokens
            .iter()
            .flat_map(|&t| match &g.symbol(t).body {
                Body::Choice(alts) => alts
                    .iter()
                    .flat_map(|a| {
                        a.items.windows(2).filter_map(|w| match w {
                            [l, Item::Symbol(x)] if g.is_layout(*l) => Some(*x),
                            _ => None,
                        })
                    })
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            })
            .collect();
        tokens.extend(inner);
        tokens.sort_unstable();
        tokens.dedup();
        c.tokens = TokenDfa::new(g, &tokens);
        c.self_contained = self_contained(g, &c.lexical);
        c.keyword_tokens = keyword_tokens(g, &c.lexical);
        c.prod_prec = c
            .prods
            .iter()
            .map(|p| match c.ekind[p.lhs as usize] {
                EKind::Choice(s) => match &g.symbol(s).body {
                    Body::Choice(alts) => alts.get(p.alt as usize).and_then(|a| a.prec),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        c.has_prec = c.prod_prec.iter().any(Option::is_some);
        right_keys(&mut c);
        c.names = (0..n)
            .map(|i| {
                let sym = crate::grammar::SymbolId(i as u32);
                if g.word().is_none() {
                    return NameToken::No;
                }
                if g.is_word_name(sym) {
                    return NameToken::Bare;
                }
                match &g.symbol(sym).body {
                    Body::Choice(alts) => match &alts[..] {
                        [alt] => match alt.items[..] {
                            [l, Item::Symbol(w)] if g.is_layout(l) && g.is_word_name(w) => NameToken::AfterLayout,
                            _ => NameToken::No,
                        },
                        _ => NameToken::No,
                    },
                    _ => NameToken::No,
                }
            })
            .collect();
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
        self.pos_keyword = vec![false; self.positions()];
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
                // there is not the layout, so the token is not whole. With a `%word` rule it is:
                // tree-sitter's lexer reads the longest name first and takes it as a keyword only
                // if it spells one, so no keyword starts a longer name, whatever rule follows
                // (SQL's `NOT is_admin` is no `IS` with a column `_admin` after it).
                let after = match rhs.get(k + 1) {
                    None => None,
                    Some(&e) => match item(e) {
                        Some(a) => Some(a),
                        None if g.word().is_some() => None,
                        None => continue,
                    },
                };
                if g.is_word_token(item(rhs[k - 1]), this, after) {
                    self.pos_keyword[(p.pos_base as usize) + k] = true;
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
    /// position's lookahead (`pos_look`).
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
        let mut look = Vec::with_capacity(self.positions());
        for p in &self.prods {
            for k in 0..=p.len as usize {
                look.push(after(self, p, k, &follow));
            }
        }
        self.pos_look = look;
    }

    /// Builds every Earley symbol's prefix trie of productions (see [`State`]).
    fn build_states(&mut self) {
        /// A state being built: its actions, and their lookaheads as sets.
        struct Draft {
            lhs: u32,
            end: u32,
            actions: Vec<(Action, (ByteSet, bool))>,
        }
        fn union(a: &mut (ByteSet, bool), b: &(ByteSet, bool)) {
            a.0.union(&b.0);
            a.1 |= b.1;
        }
        let mut drafts: Vec<Draft> = Vec::new();
        // (state, next element, keyword) -> the index of that action in the state's: a symbol
        // may have thousands of alternatives (a list of words), each a root action.
        let mut edges: rustc_hash::FxHashMap<(usize, Next, bool), usize> = Default::default();
        let mut root = vec![NONE; self.ekind.len()];
        for (esym, &(b, e)) in self.prods_of.iter().enumerate() {
            root[esym] = drafts.len() as u32;
            drafts.push(Draft {
                lhs: esym as u32,
                end: NONE,
                actions: Vec::new(),
            });
            for p in b..e {
                let prod = self.prods[p as usize];
                let mut state = root[esym] as usize;
                for k in 0..=prod.len as usize {
                    let pos = prod.pos_base as usize + k;
                    // A root's actions filter as prediction did, by the production's first
                    // bytes (a production that can match nothing is never skipped); the others
                    // by the position's lookahead.
                    let look = if k > 0 {
                        self.pos_look[pos]
                    } else if self.prod_nullable[p as usize] {
                        (ByteSet::all(), true)
                    } else {
                        (self.prod_first[p as usize], false)
                    };
                    let (next, keyword) = match self.elems.get(prod.rhs_start as usize + k) {
                        Some(&elem) if k < prod.len as usize => (self.next_of(elem), self.pos_keyword[pos]),
                        _ => (Next::End, false),
                    };
                    let index = match edges.entry((state, next, keyword)) {
                        Entry::Occupied(e) => *e.get(),
                        Entry::Vacant(e) => {
                            let to = if matches!(next, Next::End) {
                                esym as u32
                            } else {
                                drafts.push(Draft {
                                    lhs: esym as u32,
                                    end: NONE,
                                    actions: Vec::new(),
                                });
                                (drafts.len() - 1) as u32
                            };
                            let action = Action {
                                next,
                                to,
                                look: 0,
                                keyword,
                            };
                            drafts[state].actions.push((action, (ByteSet::default(), false)));
                            *e.insert(drafts[state].actions.len() - 1)
                        }
                    };
                    union(&mut drafts[state].actions[index].1, &look);
                    match next {
                        Next::End => {
                            if drafts[state].end == NONE {
                                drafts[state].end = p;
                            }
                        }
                        _ => state = drafts[state].actions[index].0.to as usize,
                    }
                }
            }
        }
        let mut looks = Vec::new();
        let mut known: rustc_hash::FxHashMap<(ByteSet, bool), u32> = Default::default();
        let mut intern = |l: (ByteSet, bool)| -> u32 {
            *known.entry(l).or_insert_with(|| {
                looks.push(l);
                (looks.len() - 1) as u32
            })
        };
        for (i, d) in drafts.iter().enumerate() {
            let mut all = (ByteSet::default(), false);
            let first = self.actions.len() as u32;
            for (a, l) in &d.actions {
                union(&mut all, l);
                self.actions.push(Action { look: intern(*l), ..*a });
            }
            // More than 2^31 actions would take more memory than a grammar can.
            let len = u32::try_from(d.actions.len()).unwrap_or(u32::MAX) & !State::ROOT;
            let is_root = root[d.lhs as usize] == i as u32;
            self.states.push(State {
                first,
                len_root: len | if is_root { State::ROOT } else { 0 },
            });
            self.state_look.push(intern(all));
            self.state_end.push(d.end);
            let single = d.actions.len() == 1 && !matches!(d.actions[0].0.next, Next::End);
            self.single_to.push(if single { d.actions[0].0.to } else { NONE });
        }
        self.root = root;
        self.looks = looks;
    }

    /// What follows a dot before `elem`.
    pub fn next_of(&self, elem: Elem) -> Next {
        match elem {
            Elem::Term(t) => Next::Term(t),
            Elem::Token(s) => Next::Token(s),
            Elem::Nt(e) => Next::Nt {
                esym: e,
                nullable: self.nullable[e as usize],
            },
        }
    }

    /// The actions of state `st`.
    #[inline]
    pub fn actions_of(&self, st: State) -> &[Action] {
        &self.actions[st.first as usize..st.first as usize + st.len()]
    }

    /// How many positions (dotted items of single productions) the productions have.
    fn positions(&self) -> usize {
        self.prods.iter().map(|p| p.len as usize + 1).sum()
    }

    fn add_prod(&mut self, lhs: u32, rhs: &[Elem], alt: u32) {
        let rhs_start = self.elems.len() as u32;
        self.elems.extend_from_slice(rhs);
        self.prods.push(Prod {
            lhs,
            rhs_start,
            len: rhs.len() as u32,
            alt,
            pos_base: 0,
        });
    }

    /// Numbers every production's positions (`pos_base`).
    fn number_positions(&mut self) {
        let mut at = 0;
        for p in &mut self.prods {
            p.pos_base = at;
            at += p.len + 1;
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

/// Whether a token is a name that keyword extraction (`%word`) gives way to keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameToken {
    /// Not a name.
    No,
    /// The `%word` rule or a chain of one-item rules down to it.
    Bare,
    /// The layout, then such a name (`_type_identifier = _ type_identifier ;`).
    AfterLayout,
}

/// [`Compiled::keyword_tokens`]: empty without a `%word` rule.
fn keyword_tokens(g: &Grammar, lexical: &[bool]) -> Vec<Option<Vec<crate::grammar::TerminalId>>> {
    if g.word().is_none() {
        return Vec::new();
    }
    let b = g.boundaries();
    g.symbols()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let Body::Choice(alts) = &s.body else { return None };
            if !lexical[i] {
                return None;
            }
            alts.iter()
                .map(|a| match a.items[..] {
                    [l, Item::Terminal(t)] if g.is_layout(l) && b.is_keyword(t) => Some(t),
                    [Item::Terminal(t)] if b.is_keyword(t) => Some(t),
                    _ => None,
                })
                .collect()
        })
        .collect()
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
            // The layout's lexemes are longest-first, but they tile the layout's bytes alone:
            // a lexeme that ran on past its end would have made the layout longer.
            let layout = g.is_layout(Item::Symbol(crate::grammar::SymbolId(s as u32)));
            ok[s] = lexical[s]
                && !words
                && kids.iter().all(|&item| match item {
                    Item::Symbol(t) => ok[t.index()] && (layout || !g.is_longest_match(t)),
                    Item::Terminal(_) => true,
                });
            done[s] = true;
        }
    }
    ok
}

/// Fills [`Compiled::right_key`], [`Compiled::right_keys_of`], [`Compiled::right_key_of_prod`]
/// and [`Compiled::right_first_optional`]. An item about to complete a left-associative `X → T op T`
/// waits for its last `T` under a key of its own, so that completing a `T` that is itself
/// that production's (`b - c` in `a - b - c`) can pass it by without looking at it: that
/// reading (`a - (b - c)`) is the one the associativity rejects, and the left-nested one
/// over the same span is always there. Otherwise every split of a chain of one operator is
/// an item, and parsing the chain takes cubic time (CSS's `a > a > … > a`, 2.5 KB in 14 s).
fn right_keys(c: &mut Compiled) {
    let base = c.ekind.len() as u32;
    c.right_key_of_prod = vec![NONE; c.prods.len()];
    c.right_first_optional = vec![false; c.prods.len()];
    c.right_keys_of = vec![(0, 0); c.ekind.len()];
    // The eligible productions, grouped by their last part so that each symbol's keys are
    // one range.
    let mut eligible: Vec<(u32, u32)> = Vec::new();
    for (q, p) in c.prods.iter().enumerate() {
        if p.len < 2 || !c.prod_prec[q].is_some_and(|pr| pr.assoc == Assoc::Left) {
            continue;
        }
        let first = c.elems[p.rhs_start as usize];
        let last = c.elems[(p.rhs_start + p.len - 1) as usize];
        let Elem::Nt(t) = last else { continue };
        // `T?` as the first part (CSS's `child_selector = _selector? _ ">" _selector`): a
        // reading skipped only where it is there (see `earley::right_nested_key`).
        let optional_t = |e: Elem| match e {
            Elem::Nt(o) if matches!(c.ekind[o as usize], EKind::Optional(_)) => {
                let (b, e) = c.prods_of[o as usize];
                (b..e).any(|r| {
                    let pr = &c.prods[r as usize];
                    pr.len == 1 && c.elems[pr.rhs_start as usize] == last
                })
            }
            _ => false,
        };
        if first == last {
            eligible.push((t, q as u32));
        } else if optional_t(first) {
            eligible.push((t, q as u32));
            c.right_first_optional[q] = true;
        }
    }
    eligible.sort_unstable();
    for (r, &(t, q)) in eligible.iter().enumerate() {
        let key = base + r as u32;
        c.right_key_of_prod[q as usize] = key;
        let range = &mut c.right_keys_of[t as usize];
        if range.0 == range.1 {
            *range = (key, key + 1);
        } else {
            range.1 = key + 1;
        }
    }
    let keys: Vec<u32> = c
        .states
        .iter()
        .zip(&c.state_end)
        .map(|(state, &q)| {
            let ends_only = state.len() == 1 && c.actions[state.first as usize].next == Next::End;
            if q != NONE && ends_only {
                c.right_key_of_prod[q as usize]
            } else {
                NONE
            }
        })
        .collect();
    c.right_key = keys;
}
