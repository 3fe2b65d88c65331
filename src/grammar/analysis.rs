//! Grammar analyses used by parsing, generation and reduction.
//!
//! [`Analysis::compute`] finds nullable, productive and reachable symbols, the cheapest derivation
//! of every symbol (fewest bytes, then fewest levels) and unit chains (A ⇒+ B by single-item steps).

use super::diag::Sink;
use super::{Body, Item, Symbol, SymbolId, Terminal};

/// The cost of a cheapest derivation: bytes first, then tree height (which breaks ties so that the
/// chosen alternatives never form a cycle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cost {
    /// Bytes of the derived string.
    pub bytes: u64,
    /// Height of the derivation tree.
    pub height: u32,
}

impl Cost {
    /// The cost of a symbol that derives no finite string.
    pub const INFINITE: Cost = Cost {
        bytes: u64::MAX,
        height: u32::MAX,
    };

    /// Whether this is a real (finite) cost.
    pub fn is_finite(self) -> bool {
        self != Cost::INFINITE
    }
}

/// Facts about every symbol of a grammar; indexed by `SymbolId::index()`.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Derives the empty string.
    pub nullable: Vec<bool>,
    /// Derives at least one finite string.
    pub productive: Vec<bool>,
    /// Reachable from the start symbol.
    pub reachable: Vec<bool>,
    /// Cost of the cheapest derivation (`Cost::INFINITE` if unproductive).
    pub cheapest: Vec<Cost>,
    /// For choices: the alternative the cheapest derivation takes (0 for other bodies).
    pub cheapest_alt: Vec<u32>,
    /// Bytes of each terminal's cheapest string (a literal's length; a class's representative).
    pub terminal_cost: Vec<u64>,
    /// Nodes of each symbol's cheapest derivation tree, itself included (saturating; `u64::MAX`
    /// if unproductive).
    pub cheapest_nodes: Vec<u64>,
    /// For each symbol A, the sorted symbols B with A ⇒+ B through single-item steps: a choice
    /// alternative that is exactly `B`, `B?`, or a repetition of `B` that allows one iteration.
    pub unit_reach: Vec<Vec<SymbolId>>,
    /// Whether a recursive symbol (one that can reach itself) is reachable from the symbol,
    /// itself included: its derivations have unbounded depth. Symbols without are "lexical":
    /// the parser matches them as tokens, and generation cannot make them grow structurally.
    pub reaches_recursion: Vec<bool>,
    /// The bytes a non-empty string of each symbol can start with (the parser skips symbols whose
    /// first byte cannot match, unless they are nullable).
    pub first_bytes: Vec<ByteSet>,
    /// The same for each terminal.
    pub terminal_first: Vec<ByteSet>,
    /// Per choice symbol and alternative: the alternative's first bytes and whether it is
    /// nullable (empty for other bodies). The parser skips alternatives that cannot start here.
    pub alt_first: Vec<Vec<(ByteSet, bool)>>,
    /// Per choice symbol and alternative: the cheapest derivation of its items together (empty
    /// for other bodies). Generation weighs every alternative of every choice it makes by these.
    pub alt_cheapest: Vec<Vec<AltCheapest>>,
    /// Per choice symbol: the largest `bytes` and `nodes` of its alternatives' `alt_cheapest`,
    /// and whether any grows (all zero for other bodies). Where even the largest fits the
    /// budget, generation picks by the weights alone, without weighing each alternative.
    pub alt_cheapest_max: Vec<AltCheapest>,
}

/// The cheapest derivation of one alternative's items, and whether it can grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AltCheapest {
    /// Bytes (saturating).
    pub bytes: u64,
    /// Tree nodes of the items' cheapest derivations, the alternative's own node not included
    /// (saturating).
    pub nodes: u64,
    /// Whether an item is a symbol from which a recursive symbol is reachable.
    pub grows: bool,
}

/// The largest shortest derivation a used symbol may have, in bytes and in tree nodes. Nested
/// repetition bounds multiply (`("a"{10000}){10000}` is 10^8 bytes), and generation, reduction
/// and `check` build cheapest derivations as trees: without a bound a 40-byte grammar can ask
/// for terabytes. A grammar that needs more is refused with the symbol where the bound is crossed.
pub const MAX_CHEAPEST: u64 = 1 << 20;

/// A set of bytes (256 bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByteSet([u64; 4]);

impl ByteSet {
    /// Whether `b` is in the set.
    #[inline]
    pub fn contains(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] & (1u64 << (b & 63)) != 0
    }

    /// Every byte.
    pub(crate) fn all() -> ByteSet {
        ByteSet([u64::MAX; 4])
    }

    fn insert_range(&mut self, lo: u8, hi: u8) {
        for b in lo..=hi {
            self.0[(b >> 6) as usize] |= 1u64 << (b & 63);
        }
    }

    /// Adds `other`; whether that changed the set.
    pub(crate) fn union(&mut self, other: &ByteSet) -> bool {
        let mut changed = false;
        for i in 0..4 {
            let n = self.0[i] | other.0[i];
            changed |= n != self.0[i];
            self.0[i] = n;
        }
        changed
    }

    /// The lead bytes of the UTF-8 encodings of a class's code points.
    fn of_class(ranges: &[(u32, u32)]) -> ByteSet {
        let mut set = ByteSet::default();
        // (first code point, last code point) of each encoding length, and its first lead byte.
        const SEGMENTS: [(u32, u32); 4] = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xFFFF), (0x10000, 0x10FFFF)];
        for &(lo, hi) in ranges {
            for &(s_lo, s_hi) in &SEGMENTS {
                let (a, b) = (lo.max(s_lo), hi.min(s_hi));
                if a > b {
                    continue;
                }
                let lead = |c: u32| -> u8 {
                    let mut buf = [0u8; 4];
                    char::from_u32(c).map_or(0xEE, |ch| ch.encode_utf8(&mut buf).as_bytes()[0])
                };
                // Surrogates are not scalar values: clamp them out of the range's ends.
                let a = if (0xD800..=0xDFFF).contains(&a) { 0xE000 } else { a };
                let b = if (0xD800..=0xDFFF).contains(&b) { 0xD7FF } else { b };
                if a <= b {
                    set.insert_range(lead(a), lead(b));
                }
            }
        }
        set
    }
}

impl Analysis {
    /// Runs every analysis on a lowered grammar.
    pub fn compute(symbols: &[Symbol], terminals: &[Terminal], start: SymbolId) -> Analysis {
        let terminal_cost: Vec<u64> = terminals
            .iter()
            .map(|t| match t {
                Terminal::Literal(b) => b.len() as u64,
                Terminal::Class { class, .. } => class.representative().map_or(1, |c| c.len_utf8() as u64),
            })
            .collect();
        let nullable = fixpoint(symbols, |item, known| match item {
            Item::Symbol(s) => known[s.index()],
            Item::Terminal(_) => false,
        });
        let productive = fixpoint_productive(symbols);
        let reachable = reachable_from(symbols, &[start]);
        let (cheapest, cheapest_alt) = cheapest(symbols, &terminal_cost);
        let cheapest_nodes = cheapest_nodes(symbols, &cheapest, &cheapest_alt);
        let unit_reach = unit_reach(symbols);
        let reaches_recursion = reaches_recursion(symbols);
        let terminal_first: Vec<ByteSet> = terminals
            .iter()
            .map(|t| match t {
                Terminal::Literal(b) => {
                    let mut set = ByteSet::default();
                    if let Some(&first) = b.first() {
                        set.insert_range(first, first);
                    }
                    set
                }
                Terminal::Class { class, .. } => ByteSet::of_class(class.ranges()),
            })
            .collect();
        let first_bytes = first_bytes(symbols, &nullable, &terminal_first);
        let alt_first = symbols
            .iter()
            .map(|s| {
                s.alternatives()
                    .iter()
                    .map(|a| seq_first(&a.items, &first_bytes, &nullable, &terminal_first))
                    .collect()
            })
            .collect();
        let alt_cheapest: Vec<Vec<AltCheapest>> = symbols
            .iter()
            .map(|s| {
                s.alternatives()
                    .iter()
                    .map(|a| {
                        a.items.iter().fold(
                            AltCheapest {
                                bytes: 0,
                                nodes: 0,
                                grows: false,
                            },
                            |acc, &item| {
                                let (bytes, nodes, grows) = match item {
                                    Item::Terminal(t) => (terminal_cost[t.index()], 1, false),
                                    Item::Symbol(s) => (
                                        cheapest[s.index()].bytes,
                                        cheapest_nodes[s.index()],
                                        reaches_recursion[s.index()],
                                    ),
                                };
                                AltCheapest {
                                    bytes: acc.bytes.saturating_add(bytes),
                                    nodes: acc.nodes.saturating_add(nodes),
                                    grows: acc.grows || grows,
                                }
                            },
                        )
                    })
                    .collect()
            })
            .collect();
        let alt_cheapest_max = alt_cheapest
            .iter()
            .map(|alts| AltCheapest {
                bytes: alts.iter().map(|a| a.bytes).max().unwrap_or(0),
                nodes: alts.iter().map(|a| a.nodes).max().unwrap_or(0),
                grows: alts.iter().any(|a| a.grows),
            })
            .collect();
        Analysis {
            nullable,
            productive,
            reachable,
            cheapest,
            cheapest_alt,
            terminal_cost,
            cheapest_nodes,
            unit_reach,
            reaches_recursion,
            first_bytes,
            terminal_first,
            alt_first,
            alt_cheapest,
            alt_cheapest_max,
        }
    }

    /// Reports unproductive rules (errors) and unreachable rules (warnings) for named symbols,
    /// and used symbols whose shortest derivation crosses [`MAX_CHEAPEST`] (errors).
    /// `used` says which symbols the start rule or a `%lexeme` reaches (see [`used_symbols`]).
    pub(crate) fn report(&self, symbols: &[Symbol], used: &[bool], sink: &mut Sink) {
        self.report_too_large(symbols, used, sink);
        for (i, s) in symbols.iter().enumerate().filter(|(_, s)| !s.synthetic) {
            if !self.productive[i] {
                sink.error(
                    s.span,
                    format!("rule `{}` is unproductive: it cannot derive any finite string, because every alternative needs itself or another unproductive rule; add an alternative that ends the recursion", s.name),
                );
            } else if !used[i] {
                sink.warning(
                    s.span,
                    format!(
                        "rule `{}` is unreachable from the start rule `{}`",
                        s.name, symbols[0].name
                    ),
                );
            }
        }
    }
}

impl Analysis {
    /// Errors for the used symbols where the cheapest derivation crosses [`MAX_CHEAPEST`] bytes
    /// or nodes: those over the bound none of whose cheapest-derivation children is over it
    /// (the product of bounds that blows up is named once, not at every enclosing rule).
    fn report_too_large(&self, symbols: &[Symbol], used: &[bool], sink: &mut Sink) {
        let over = |s: SymbolId| {
            let i = s.index();
            self.productive[i] && (self.cheapest[i].bytes > MAX_CHEAPEST || self.cheapest_nodes[i] > MAX_CHEAPEST)
        };
        for (i, s) in symbols.iter().enumerate() {
            let id = SymbolId(i as u32);
            if !used[i] || !over(id) {
                continue;
            }
            let children = match &s.body {
                Body::Choice(alts) => alts[self.cheapest_alt[i] as usize].items.clone(),
                Body::Repeat { item, .. } => vec![*item],
                Body::Optional(_) => Vec::new(),
            };
            if children.iter().any(|c| matches!(c, Item::Symbol(c) if over(*c))) {
                continue;
            }
            let what = if s.synthetic {
                format!("the group or repetition `{}`", s.name)
            } else {
                format!("rule `{}`", s.name)
            };
            let (bytes, nodes) = (self.cheapest[i].bytes, self.cheapest_nodes[i]);
            let size = if bytes > MAX_CHEAPEST {
                format!("{} bytes", big(bytes))
            } else {
                format!("{} tree nodes", big(nodes))
            };
            sink.error(
                s.span,
                format!(
                    "{what}: its shortest derivation has {size}, more than the limit of {MAX_CHEAPEST} \
                     (the bounds of nested repetitions multiply): lower the repetition bounds, or let \
                     the repetition be shorter (a smaller minimum, `?` or `*`)"
                ),
            );
        }
    }
}

/// A count for messages; saturated counts say so rather than print 2^64 - 1.
fn big(n: u64) -> String {
    if n == u64::MAX {
        "more than 18446744073709551615".to_string()
    } else {
        n.to_string()
    }
}

/// Nodes of every symbol's cheapest derivation tree, following the cheapest choices (which never
/// form a cycle: the cost's height breaks ties), saturating.
fn cheapest_nodes(symbols: &[Symbol], cost: &[Cost], choice: &[u32]) -> Vec<u64> {
    // Children have a smaller height than their parent: compute in order of height.
    let mut order: Vec<usize> = (0..symbols.len()).filter(|&i| cost[i].is_finite()).collect();
    order.sort_by_key(|&i| cost[i].height);
    let mut nodes = vec![u64::MAX; symbols.len()];
    let item_nodes = |item: &Item, nodes: &[u64]| match item {
        Item::Symbol(s) => nodes[s.index()],
        Item::Terminal(_) => 1,
    };
    for i in order {
        nodes[i] = match &symbols[i].body {
            Body::Choice(alts) => alts[choice[i] as usize]
                .items
                .iter()
                .fold(1u64, |sum, it| sum.saturating_add(item_nodes(it, &nodes))),
            Body::Repeat { item, min, .. } => 1u64.saturating_add(item_nodes(item, &nodes).saturating_mul(*min as u64)),
            Body::Optional(_) => 1,
        };
    }
    nodes
}

/// The least fixpoint of "a symbol has property P if one of its ways to derive has all items P",
/// used for nullable (items: terminals are never empty).
fn fixpoint(symbols: &[Symbol], item_has: impl Fn(Item, &[bool]) -> bool) -> Vec<bool> {
    let mut known = vec![false; symbols.len()];
    loop {
        let mut changed = false;
        for (i, s) in symbols.iter().enumerate() {
            if known[i] {
                continue;
            }
            let has = match &s.body {
                Body::Choice(alts) => alts.iter().any(|a| a.items.iter().all(|&it| item_has(it, &known))),
                Body::Repeat { item, min, .. } => *min == 0 || item_has(*item, &known),
                Body::Optional(_) => true,
            };
            if has {
                known[i] = true;
                changed = true;
            }
        }
        if !changed {
            return known;
        }
    }
}

fn fixpoint_productive(symbols: &[Symbol]) -> Vec<bool> {
    fixpoint(symbols, |item, known| match item {
        Item::Symbol(s) => known[s.index()],
        Item::Terminal(_) => true,
    })
}

/// FIRST sets in bytes, by fixpoint: a sequence starts with its first item's bytes, and the next
/// item's too while the items before are nullable.
fn first_bytes(symbols: &[Symbol], nullable: &[bool], terminal_first: &[ByteSet]) -> Vec<ByteSet> {
    let mut first = vec![ByteSet::default(); symbols.len()];
    loop {
        let mut changed = false;
        for (i, s) in symbols.iter().enumerate() {
            let mut acc = first[i];
            match &s.body {
                Body::Choice(alts) => {
                    for a in alts {
                        acc.union(&seq_first(&a.items, &first, nullable, terminal_first).0);
                    }
                }
                Body::Repeat { item, .. } | Body::Optional(item) => {
                    acc.union(&seq_first(std::slice::from_ref(item), &first, nullable, terminal_first).0);
                }
            }
            changed |= first[i].union(&acc);
        }
        if !changed {
            return first;
        }
    }
}

/// The bytes a non-empty string of the sequence `items` can start with, and whether the sequence
/// is nullable, from per-symbol FIRST sets and nullability.
fn seq_first(items: &[Item], first: &[ByteSet], nullable: &[bool], terminal_first: &[ByteSet]) -> (ByteSet, bool) {
    let mut acc = ByteSet::default();
    for &item in items {
        match item {
            Item::Terminal(t) => {
                acc.union(&terminal_first[t.index()]);
                return (acc, false);
            }
            Item::Symbol(s) => {
                acc.union(&first[s.index()]);
                if !nullable[s.index()] {
                    return (acc, false);
                }
            }
        }
    }
    (acc, true)
}

/// Per symbol: whether the start rule or one of the `%lexeme` rules reaches it. Lexemes are there
/// for token boundaries, so what only they use is not unused.
pub(crate) fn used_symbols(symbols: &[Symbol], start: SymbolId, lexemes: &[SymbolId]) -> Vec<bool> {
    let roots: Vec<SymbolId> = std::iter::once(start).chain(lexemes.iter().copied()).collect();
    reachable_from(symbols, &roots)
}

/// Per symbol: whether one of `roots` reaches it (roots included).
pub(crate) fn reachable_from(symbols: &[Symbol], roots: &[SymbolId]) -> Vec<bool> {
    let mut seen = vec![false; symbols.len()];
    let mut stack: Vec<SymbolId> = roots.to_vec();
    while let Some(s) = stack.pop() {
        if std::mem::replace(&mut seen[s.index()], true) {
            continue;
        }
        for item in body_items(&symbols[s.index()].body) {
            if let Item::Symbol(t) = item {
                if !seen[t.index()] {
                    stack.push(t);
                }
            }
        }
    }
    seen
}

/// Every item mentioned in a body, in order.
pub(crate) fn body_items(body: &Body) -> Vec<Item> {
    match body {
        Body::Choice(alts) => alts.iter().flat_map(|a| a.items.iter().copied()).collect(),
        Body::Repeat { item, .. } | Body::Optional(item) => vec![*item],
    }
}

fn cheapest(symbols: &[Symbol], terminal_cost: &[u64]) -> (Vec<Cost>, Vec<u32>) {
    let mut cost = vec![Cost::INFINITE; symbols.len()];
    let mut choice = vec![0u32; symbols.len()];
    let item_cost = |item: Item, cost: &[Cost]| match item {
        Item::Symbol(s) => cost[s.index()],
        Item::Terminal(t) => Cost {
            bytes: terminal_cost[t.index()],
            height: 0,
        },
    };
    let seq_cost = |items: &mut dyn Iterator<Item = Cost>| {
        let mut total = Cost { bytes: 0, height: 0 };
        for c in items {
            if !c.is_finite() {
                return Cost::INFINITE;
            }
            total.bytes = total.bytes.saturating_add(c.bytes);
            total.height = total.height.max(c.height);
        }
        total.height = total.height.saturating_add(1);
        total
    };
    // Bellman-Ford style relaxation: costs only decrease, and strictly, so this terminates.
    loop {
        let mut changed = false;
        for (i, s) in symbols.iter().enumerate() {
            let (best, alt) = match &s.body {
                Body::Choice(alts) => alts
                    .iter()
                    .enumerate()
                    .map(|(k, a)| (seq_cost(&mut a.items.iter().map(|&it| item_cost(it, &cost))), k as u32))
                    .min()
                    .unwrap_or((Cost::INFINITE, 0)),
                Body::Optional(_) => (Cost { bytes: 0, height: 1 }, 0),
                Body::Repeat { item, min, .. } => {
                    let c = item_cost(*item, &cost);
                    if *min == 0 {
                        (Cost { bytes: 0, height: 1 }, 0)
                    } else if !c.is_finite() {
                        (Cost::INFINITE, 0)
                    } else {
                        (
                            Cost {
                                bytes: c.bytes.saturating_mul(*min as u64),
                                height: c.height.saturating_add(1),
                            },
                            0,
                        )
                    }
                }
            };
            if best < cost[i] {
                cost[i] = best;
                choice[i] = alt;
                changed = true;
            }
        }
        if !changed {
            return (cost, choice);
        }
    }
}

fn reaches_recursion(symbols: &[Symbol]) -> Vec<bool> {
    let n = symbols.len();
    let succ: Vec<Vec<usize>> = symbols
        .iter()
        .map(|s| {
            body_items(&s.body)
                .into_iter()
                .filter_map(|i| if let Item::Symbol(t) = i { Some(t.index()) } else { None })
                .collect()
        })
        .collect();
    // A symbol is recursive if it can reach itself.
    let recursive: Vec<bool> = (0..n)
        .map(|a| {
            let mut seen = vec![false; n];
            let mut stack = succ[a].clone();
            while let Some(b) = stack.pop() {
                if b == a {
                    return true;
                }
                if !seen[b] {
                    seen[b] = true;
                    stack.extend(&succ[b]);
                }
            }
            false
        })
        .collect();
    // Then: recursive, or a successor reaches recursion (fixpoint).
    let mut reaches = recursive;
    loop {
        let mut changed = false;
        for a in 0..n {
            if !reaches[a] && succ[a].iter().any(|&b| reaches[b]) {
                reaches[a] = true;
                changed = true;
            }
        }
        if !changed {
            return reaches;
        }
    }
}

fn unit_reach(symbols: &[Symbol]) -> Vec<Vec<SymbolId>> {
    let direct: Vec<Vec<SymbolId>> = symbols
        .iter()
        .map(|s| {
            let mut out = Vec::new();
            match &s.body {
                Body::Choice(alts) => {
                    for a in alts {
                        if let [Item::Symbol(b)] = a.items.as_slice() {
                            out.push(*b);
                        }
                    }
                }
                Body::Optional(Item::Symbol(b)) => out.push(*b),
                Body::Repeat {
                    item: Item::Symbol(b),
                    min,
                    max,
                } if *min <= 1 && max.is_none_or(|m| m >= 1) => out.push(*b),
                _ => {}
            }
            out
        })
        .collect();
    (0..symbols.len())
        .map(|a| {
            let mut seen = vec![false; symbols.len()];
            let mut stack: Vec<SymbolId> = direct[a].clone();
            let mut out = Vec::new();
            while let Some(b) = stack.pop() {
                if seen[b.index()] {
                    continue;
                }
                seen[b.index()] = true;
                out.push(b);
                stack.extend(direct[b.index()].iter().copied());
            }
            out.sort_unstable();
            out
        })
        .collect()
}
