//! The Earley recognizer: builds the chart of items, one set per byte offset.
//!
//! An item is a state of its symbol's prefix trie (`compile::State`: the dotted items of every
//! production that begins alike) and an origin: 16 bytes with the predecessor item and the
//! completed child. On large inputs the chart is collected between sets: items no later step or
//! tree can reach are dropped.
//! Nullable symbols are handled at prediction time (Aycock–Horspool); tokens may jump ahead many
//! bytes at once. Each item remembers the first way it was derived, which `forest` follows back.

use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::compile::{match_terminal, Compiled, NameToken, Next, NONE};
use super::lexical::Lexer;
use crate::grammar::{Assoc, Grammar, Prec, TerminalId};

/// An item in a set: a state and an origin. `pred` is the item before the last element was
/// passed over (the state before, same origin), and `child` the completed item of that element
/// when it is a nonterminal with a non-empty span (else NONE). Where that element starts is the
/// offset of `pred`'s set ([`Chart::split`]), so it is not stored: 16 bytes an item.
///
/// Invariant (what makes reading a tree back well-founded): `pred` and `child` were added to the
/// chart before this item, and only the first derivation of an item is kept.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EItem {
    pub state: u32,
    pub origin: u32,
    pub pred: u32,
    pub child: u32,
}

/// The result of recognition: the items a tree may need, and the completed start item.
pub(crate) struct Chart<'s> {
    pub items: &'s [EItem],
    pub accept: u32,
    /// `(first item, offset)` of every set that kept items, in order.
    sets: &'s [(u32, u32)],
    /// Items derived more than once (state, origin, offset), if the run tracked them.
    pub ambiguous: &'s FxHashSet<(u32, u32, u32)>,
}

impl Chart<'_> {
    /// The index (in set order) of the set holding item `idx`.
    pub fn set_of(&self, idx: u32) -> usize {
        self.sets.partition_point(|&(first, _)| first <= idx) - 1
    }

    /// [`Chart::set_of`] for an item at or before set `from`: a search back from there,
    /// by doubling steps. Reading a tree back walks from an item to its predecessors, whose
    /// sets are mostly a few offsets back (a token's length), where a search over all sets
    /// (one per input byte) missed the cache about twenty times per element.
    pub fn set_before(&self, idx: u32, from: usize) -> usize {
        let mut hi = from;
        if self.sets[hi].0 <= idx {
            return hi;
        }
        let mut step = 1;
        let lo = loop {
            if step >= hi {
                break 0;
            }
            let lo = hi - step;
            if self.sets[lo].0 <= idx {
                break lo;
            }
            hi = lo;
            step *= 2;
        };
        lo + self.sets[lo..hi].partition_point(|&(first, _)| first <= idx) - 1
    }

    /// The input offset of set `k`.
    pub fn offset(&self, k: usize) -> u32 {
        self.sets[k].1
    }
}

/// The chart's buffers, kept by the parser between parses: on large inputs, fresh memory
/// (the kernel zeroing its pages) costs more than filling it.
#[derive(Default)]
pub(crate) struct Scratch {
    items: Vec<EItem>,
    waiting: Vec<Waiting>,
    sets: Vec<(u32, u32)>,
    dedup: Dedup,
    /// Per set: its range of `waiting`.
    waiting_range: Vec<(u32, u32)>,
    /// The tables `recognize` describes, reset at every parse. Those sized by the grammar
    /// (per Earley symbol or per grammar symbol; js has 2,148 Earley symbols) were allocated at
    /// every parse, 7 % of a small js parse's time.
    waiting_for: Vec<(u32, u32, u32)>,
    predicted: Vec<bool>,
    predicted_list: Vec<u32>,
    token_cache: Vec<(u32, u32, u32)>,
    token_ends: Vec<u32>,
    /// Keyword extraction: the spans (start, end) of the keywords read so far that start at
    /// or after the current set, and the names read (start of the word, end, item), which
    /// wait until every keyword starting where the word does has been read, to be dropped if
    /// one has the same span.
    keywords: Vec<(u32, u32)>,
    names: Vec<(u32, u32, EItem)>,
    /// With [`Lexer::track_ambiguity`]: the items (state, origin, offset) derived more than
    /// once, each a place where the input has two parses if the tree uses the item.
    ambiguous: FxHashSet<(u32, u32, u32)>,
    /// The token DFA's cache (its states are built lazily, and kept between parses).
    pub dfa_cache: Option<super::scan::ScanCache>,
}

impl Scratch {
    /// Buffers beyond this many items are not kept (a parser should not hold on to gigabytes).
    const KEEP_ITEMS: usize = 8 << 20;

    /// Whether these buffers are worth keeping for the next parse.
    pub fn worth_keeping(&self) -> bool {
        self.items.capacity() <= Self::KEEP_ITEMS && self.waiting_range.capacity() <= Self::KEEP_ITEMS
    }
}

/// An entry of the completion index: an item waiting for a nonterminal, as `symbol << 32 |
/// item index`, so that sorting a set's entries (by symbol, then in item order) sorts plain
/// integers: sorting them as pairs was 5 % of a js parse.
type Waiting = u64;

/// The completion-index entry of item `idx` waiting for Earley symbol `esym`.
#[inline]
fn wait_entry(esym: u32, idx: u32) -> Waiting {
    (u64::from(esym) << 32) | u64::from(idx)
}

/// The symbol an entry waits for.
#[inline]
fn waits_for(w: Waiting) -> u32 {
    (w >> 32) as u32
}

/// The item of an entry.
#[inline]
fn waiting_item(w: Waiting) -> u32 {
    w as u32
}

/// An item waiting for the set at `target`. Ordered so that the heap pops the smallest target
/// first, and items of one target in the order they were scanned (which keeps results stable).
struct Pending {
    target: u32,
    seq: u64,
    item: EItem,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.target, self.seq) == (other.target, other.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.target, other.seq).cmp(&(self.target, self.seq))
    }
}

/// Whether an item entering state `state` at offset `at` can lead anywhere: the byte there (or
/// the end of the input) is one the rest of one of its productions, or what follows its symbol,
/// may start with. Items that fail this are part of no parse, and neither is anything derived
/// from them, so dropping them changes no tree.
#[inline]
fn viable(c: &Compiled, input: &[u8], state: u32, at: usize) -> bool {
    looks_on(c, input, c.state_look[state as usize], at)
}

/// Whether the byte at `at` (or the end of the input) is in lookahead `look` of `c.looks`.
#[inline]
fn looks_on(c: &Compiled, input: &[u8], look: u32, at: usize) -> bool {
    let (bytes, eof) = &c.looks[look as usize];
    match input.get(at) {
        Some(&b) => bytes.contains(b),
        None => *eof,
    }
}

/// Items of another origin than the set's are deduplicated by a linear scan while the set is
/// smaller than this, then by a stamp per state (see [`Dedup`]).
const SMALL_SET: usize = 24;

/// What the current set holds, so that [`add`] keeps one item per (state, origin). Items
/// predicted in this set (origin = its offset) are most of a large set in a big grammar (a
/// statement position in js predicts dozens of symbols), so they are checked by a stamp per
/// state, without hashing; the others by a linear scan while the set is small, then by a stamp
/// and an origin per state, with a hash set for the rare state met with several origins.
/// Kept in [`Scratch`] between parses: small inputs would otherwise pay for a stamp per state
/// of the grammar at every parse.
#[derive(Default)]
pub(crate) struct Dedup {
    /// Per state: the stamp of the last set that holds it with origin = that set's offset.
    here: Vec<u32>,
    /// Per state: the stamp of the last set that holds it with another origin, the first
    /// such origin and its item (valid in the current set once `stamped`).
    elsewhere: Vec<(u32, u32, u32)>,
    /// The current set's stamp, one more for every set of every parse (so an old one never
    /// matches; all are cleared when it would wrap).
    stamp: u32,
    /// The current set's offset.
    offset: u32,
    /// The current set's items of other origins beyond the first one of their state, as
    /// `state << 32 | origin`, and their indices.
    more_origins: FxHashMap<u64, u32>,
    /// Whether this set's items of other origins are in `elsewhere` (and `more_origins`).
    stamped: bool,
}

impl Dedup {
    /// Makes room for a stamp per state of a grammar of `states` of them (once per parse; a
    /// parser's scratch always meets the same grammar, so this is a no-op after the first).
    fn for_grammar(&mut self, states: usize) {
        if self.here.len() != states {
            self.here.clear();
            self.here.resize(states, 0);
            self.elsewhere.clear();
            self.elsewhere.resize(states, (0, 0, 0));
            self.stamp = 0;
        }
    }

    /// Starts the set at `offset`.
    fn start(&mut self, offset: u32) {
        if self.stamp == u32::MAX {
            self.here.fill(0);
            self.elsewhere.fill((0, 0, 0));
            self.stamp = 0;
        }
        self.stamp += 1;
        self.offset = offset;
        if self.stamped {
            self.more_origins.clear();
            self.stamped = false;
        }
    }

    /// Records `it` (of another origin), to be item `idx`, as in the current set: `None` if it
    /// was not there yet, else the index of the item already there.
    #[inline]
    fn enter_elsewhere(&mut self, it: EItem, idx: u32) -> Option<u32> {
        let (stamp, origin, at) = &mut self.elsewhere[it.state as usize];
        if *stamp != self.stamp {
            (*stamp, *origin, *at) = (self.stamp, it.origin, idx);
            None
        } else if *origin == it.origin {
            Some(*at)
        } else {
            match self
                .more_origins
                .entry((u64::from(it.state) << 32) | u64::from(it.origin))
            {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(idx);
                    None
                }
            }
        }
    }
}

/// Adds `it` to the current set (which starts at `set_start`) unless an item with the same state
/// and origin is already there: `None` if added, else the index of that item (`NONE` for an
/// item of this set's own origin, which only prediction makes).
#[inline(always)]
fn add(items: &mut Vec<EItem>, seen: &mut Dedup, set_start: usize, it: EItem) -> Option<u32> {
    if it.origin == seen.offset {
        let stamp = &mut seen.here[it.state as usize];
        if *stamp != seen.stamp {
            *stamp = seen.stamp;
            items.push(it);
            return None;
        }
        Some(NONE)
    } else if items.len() - set_start < SMALL_SET {
        match items[set_start..]
            .iter()
            .position(|x| x.state == it.state && x.origin == it.origin)
        {
            None => {
                items.push(it);
                None
            }
            Some(k) => Some((set_start + k) as u32),
        }
    } else {
        add_stamped(items, seen, set_start, it)
    }
}

/// [`add`] for an item of another origin in a large set.
#[inline(never)]
fn add_stamped(items: &mut Vec<EItem>, seen: &mut Dedup, set_start: usize, it: EItem) -> Option<u32> {
    if !seen.stamped {
        seen.stamped = true;
        let offset = seen.offset;
        for (k, x) in items[set_start..].iter().enumerate() {
            if x.origin != offset {
                seen.enter_elsewhere(*x, (set_start + k) as u32);
            }
        }
    }
    let found = seen.enter_elsewhere(it, items.len() as u32);
    if found.is_none() {
        items.push(it);
    }
    found
}

/// Precedence (`@prec`, `@left`, `@right`; see [`crate::grammar::Prec`]): `candidate` is another
/// derivation of item `there` of the current set (which starts at `set_start`); the item keeps
/// the one the precedences prefer. An item whose derivation is replaced may then point to an
/// item added after it; the replacement is made only where that cannot make a cycle. Whether
/// the precedences decided between the two (else the input has two parses there).
fn prefer(c: &Compiled, items: &mut [EItem], set_start: usize, there: u32, candidate: EItem) -> bool {
    let old = items[there as usize];
    if old.child == NONE || candidate.child == NONE || (old.pred, old.child) == (candidate.pred, candidate.child) {
        return false;
    }
    match better(c, items, old, candidate) {
        Some(true) if !reaches(items, set_start, candidate, there) => {
            let it = &mut items[there as usize];
            (it.pred, it.child) = (candidate.pred, candidate.child);
            true
        }
        Some(true) => false,
        Some(false) => true,
        None => false,
    }
}

/// Whether derivation `new` of an item beats `old`, the one it has; `None` where the
/// precedences say nothing about the two.
fn better(c: &Compiled, items: &[EItem], old: EItem, new: EItem) -> Option<bool> {
    // The same production split in two places (`a - b - c`): its associativity decides.
    let own = c.state_end[old.state as usize];
    if own != NONE {
        if let Some(p) = c.prod_prec[own as usize] {
            let (o, n) = (items[old.child as usize].origin, items[new.child as usize].origin);
            if o != n {
                return match p.assoc {
                    Assoc::Left => Some(n > o),
                    Assoc::Right => Some(n < o),
                    Assoc::None => None,
                };
            }
        }
    }
    // Two constructs over the same span: the lower precedence goes on top (the tighter one is
    // inside it), and between equal ones, associativity.
    let (old_prec, new_prec) = (chain_prec(c, items, old.child), chain_prec(c, items, new.child));
    let (Some((po, io)), Some((pn, in_))) = (old_prec, new_prec) else {
        let level = |p: Option<(Prec, u32)>| p.map_or(0, |(p, _)| p.level);
        let (lo, ln) = (level(old_prec), level(new_prec));
        return (lo != ln).then_some(ln < lo);
    };
    if pn.level != po.level {
        return Some(pn.level < po.level);
    }
    // Equal levels: where each construct's last part starts (`a + b - c`: the later split is
    // the left-nested reading).
    let last = |idx: u32| {
        let child = items[idx as usize].child;
        (child != NONE).then(|| items[child as usize].origin)
    };
    match (pn.assoc, last(io), last(in_)) {
        (Assoc::Left, Some(o), Some(n)) if n != o => Some(n > o),
        (Assoc::Right, Some(o), Some(n)) if n != o => Some(n < o),
        _ => None,
    }
}

/// The completion key (see `compile::right_keys`) of the left-associative production that the
/// completed item `idx` is (through productions of one part), where its first part is there:
/// the items waiting under that key would read it as their right part, a reading that the
/// left-nested one always replaces (`a > b > c`). Where the production's first part is
/// optional and empty (`a > (> c)`), there is no other reading: NONE.
fn right_nested_key(c: &Compiled, items: &[EItem], idx: u32) -> u32 {
    let Some((_, at)) = chain_prec(c, items, idx) else {
        return NONE;
    };
    let it = items[at as usize];
    let q = c.state_end[it.state as usize];
    let key = c.right_key_of_prod[q as usize];
    if key == NONE || !c.right_first_optional[q as usize] {
        return key;
    }
    // Back along the predecessors to the item past the first part: its child is the `T?`'s
    // item, none where it was skipped as empty.
    let mut k = at;
    for _ in 1..c.prods[q as usize].len {
        k = items[k as usize].pred;
        if k == NONE {
            return NONE;
        }
    }
    let first = items[k as usize].child;
    let first_prod = if first == NONE {
        NONE
    } else {
        c.state_end[items[first as usize].state as usize]
    };
    if first_prod == NONE || c.prods[first_prod as usize].len == 0 {
        return NONE;
    }
    key
}

/// The precedence of the completed item `idx`: its production's, or, for a production of one
/// nonterminal without one, that nonterminal's (a few levels down), and the item it is on.
fn chain_prec(c: &Compiled, items: &[EItem], mut idx: u32) -> Option<(Prec, u32)> {
    for _ in 0..16 {
        let it = items[idx as usize];
        let prod = c.state_end[it.state as usize];
        if prod == NONE {
            return None;
        }
        if let Some(p) = c.prod_prec[prod as usize] {
            return Some((p, idx));
        }
        if c.prods[prod as usize].len != 1 || it.child == NONE {
            return None;
        }
        idx = it.child;
    }
    None
}

/// Whether `there` lies in `candidate`'s derivation within the current set (a cycle if that
/// became its derivation). Items of earlier sets cannot point into this one. Gives up (true)
/// after a bounded search.
fn reaches(items: &[EItem], set_start: usize, candidate: EItem, there: u32) -> bool {
    let mut stack = vec![candidate.pred, candidate.child];
    let mut visited = 0;
    while let Some(k) = stack.pop() {
        if k == there {
            return true;
        }
        if k == NONE || (k as usize) < set_start {
            continue;
        }
        visited += 1;
        if visited > 256 {
            return true;
        }
        let it = items[k as usize];
        stack.push(it.pred);
        stack.push(it.child);
    }
    false
}

/// Adds to the current set (at offset `at`) the item of the root state of `esym`: the start of
/// all its productions. With `look`, not if none of them can start at the byte there (or end
/// there, at the end of the input); its actions then skip the productions that cannot.
#[allow(clippy::too_many_arguments)]
fn predict(
    c: &Compiled,
    input: &[u8],
    esym: u32,
    at: u32,
    look: bool,
    items: &mut Vec<EItem>,
    seen: &mut Dedup,
    set_start: usize,
) {
    let root = c.root[esym as usize];
    if look && !viable(c, input, root, at as usize) {
        return;
    }
    add(
        items,
        seen,
        set_start,
        EItem {
            state: root,
            origin: at,
            pred: NONE,
            child: NONE,
        },
    );
}

/// The state after the nonterminal `esym` in state `state` (whose item waited for it).
#[inline]
fn advance(c: &Compiled, state: u32, esym: u32) -> u32 {
    let to = c.single_to[state as usize];
    if to != NONE {
        return to;
    }
    c.actions_of(c.states[state as usize])
        .iter()
        .find(|a| matches!(a.next, Next::Nt { esym: e, .. } if e == esym))
        .map_or(NONE, |a| a.to)
}

/// Charts smaller than this many items are never collected (small inputs pay nothing); above
/// it, a collection runs whenever the chart has doubled since the last one kept.
const COLLECT_MIN: usize = 1 << 20;

/// One collection of the chart between two sets. An item is needed later if a later set or the
/// tree can reach it: items scanned ahead (pending), items waiting in a set that can still see
/// a completion, and whatever those reach through `pred` and `child`. A set can see a completion
/// ("is active") if an item with that origin is pending, or waits in an active set: its symbol
/// may still complete from there.
struct Collector {
    active: Vec<bool>,
    live: Vec<bool>,
    /// Old index → new index (valid for live items).
    new_index: Vec<u32>,
}

impl Collector {
    fn new(items: usize, current: usize) -> Collector {
        Collector {
            active: vec![false; current + 1],
            live: vec![false; items],
            new_index: Vec::new(),
        }
    }

    /// Extends `active` from the pending items' origins to every set they can complete into.
    /// An item's origin is at most its set's offset, so one pass from the current set down
    /// sees every contribution to a set before the set itself.
    fn activate(&mut self, items: &[EItem], waiting: &[Waiting], waiting_range: &[(u32, u32)]) {
        for m in (0..self.active.len()).rev() {
            if self.active[m] {
                let (b, e) = waiting_range[m];
                for &w in &waiting[b as usize..e as usize] {
                    self.active[items[waiting_item(w) as usize].origin as usize] = true;
                }
            }
        }
    }

    /// Marks the roots, the waiting items of active sets, and all they reach.
    fn mark(
        &mut self,
        items: &[EItem],
        waiting: &[Waiting],
        waiting_range: &[(u32, u32)],
        roots: impl Iterator<Item = u32>,
    ) {
        let mut stack: Vec<u32> = roots.collect();
        for (m, _) in self.active.iter().enumerate().filter(|(_, a)| **a) {
            let (b, e) = waiting_range[m];
            stack.extend(waiting[b as usize..e as usize].iter().map(|&w| waiting_item(w)));
        }
        while let Some(k) = stack.pop() {
            if k == NONE || self.live[k as usize] {
                continue;
            }
            self.live[k as usize] = true;
            let it = items[k as usize];
            stack.push(it.pred);
            stack.push(it.child);
        }
    }

    /// Drops the items not marked, keeping the order (so `pred` and `child` still point back),
    /// and the sets left empty.
    fn compact(&mut self, items: &mut Vec<EItem>, sets: &mut Vec<(u32, u32)>) {
        self.new_index = vec![NONE; items.len()];
        // Indices first: a derivation that precedence chose may point forward (see `prefer`).
        let mut kept = 0usize;
        for k in 0..items.len() {
            if self.live[k] {
                self.new_index[k] = kept as u32;
                kept += 1;
            }
        }
        let mut kept = 0usize;
        for k in 0..items.len() {
            if self.live[k] {
                let mut it = items[k];
                it.pred = self.map(it.pred);
                it.child = self.map(it.child);
                items[kept] = it;
                kept += 1;
            }
        }
        items.truncate(kept);
        let old_sets = std::mem::take(sets);
        for (s, &(first, offset)) in old_sets.iter().enumerate() {
            let end = old_sets.get(s + 1).map_or(self.live.len(), |&(next, _)| next as usize);
            if let Some(k) = (first as usize..end).find(|&k| self.live[k]) {
                sets.push((self.new_index[k], offset));
            }
        }
    }

    /// Rebuilds the completion index with the waiting items of active sets only.
    fn rewait(&self, waiting: &mut Vec<Waiting>, waiting_range: &mut [(u32, u32)]) {
        let old = std::mem::take(waiting);
        for (m, range) in waiting_range.iter_mut().enumerate().take(self.active.len()) {
            let (b, e) = *range;
            let begin = waiting.len() as u32;
            if self.active[m] {
                // The mapping keeps the order, so each set's entries stay sorted.
                waiting.extend(
                    old[b as usize..e as usize]
                        .iter()
                        .map(|&w| wait_entry(waits_for(w), self.map(waiting_item(w)))),
                );
            }
            *range = (begin, waiting.len() as u32);
        }
    }

    fn map(&self, k: u32) -> u32 {
        if k == NONE {
            NONE
        } else {
            self.new_index[k as usize]
        }
    }
}

/// Where recognition failed: the furthest offset reached and what was expected there.
pub(crate) struct Failure {
    pub offset: usize,
    pub expected: Vec<TerminalId>,
}

pub(crate) fn recognize<'s>(
    c: &Compiled,
    g: &Grammar,
    input: &[u8],
    lexer: &mut Lexer<'_>,
    scratch: &'s mut Scratch,
) -> Result<Chart<'s>, Failure> {
    let n = input.len();
    // JSON-like inputs make about five items per input byte; reserving that avoids regrowing,
    // which copies and touches the whole chart again. Larger charts are collected (see
    // `Collector`) and stay near twice the items kept, so reserving more would only waste.
    let items = &mut scratch.items;
    items.clear();
    items.reserve((5 * n).min(2 * COLLECT_MIN) + 64);
    // Items scanned ahead (terminals and tokens end past the current set), by target offset.
    let mut pending: BinaryHeap<Pending> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut scan_ahead = |pending: &mut BinaryHeap<Pending>, target: u32, item: EItem| {
        seq += 1;
        pending.push(Pending { target, seq, item });
    };
    // Per finished set: (Earley symbol an item waits for, item index), sorted, for completion.
    let waiting = &mut scratch.waiting;
    waiting.clear();
    waiting.reserve(n + 64);
    let waiting_range = &mut scratch.waiting_range;
    waiting_range.clear();
    waiting_range.resize(n + 1, (0, 0));
    // Per symbol, the entries of the last set it was looked up in: `(origin, from, to)`. A
    // symbol completes from one origin at many offsets (`a`, `a.b`, `a.b(c)` each complete
    // a dozen expression levels that start where `a` does), and each looked it up again.
    let waiting_for = &mut scratch.waiting_for;
    waiting_for.clear();
    waiting_for.resize(c.ekind.len(), (NONE, 0, 0));
    let seen = &mut scratch.dedup;
    seen.for_grammar(c.states.len());
    let predicted = &mut scratch.predicted;
    predicted.clear();
    predicted.resize(c.ekind.len(), false);
    let predicted_list = &mut scratch.predicted_list;
    predicted_list.clear();
    // Ends of each token tried in the current set, by symbol: (set, range in `token_ends`); an
    // entry of another set is stale. Indexed, as big grammars try dozens of tokens per set.
    let token_cache = &mut scratch.token_cache;
    token_cache.clear();
    token_cache.resize(g.symbols().len(), (NONE, 0, 0));
    let token_ends = &mut scratch.token_ends;
    token_ends.clear();
    let prefer_keywords = lexer.prefer_keywords && g.word().is_some();
    let keywords = &mut scratch.keywords;
    keywords.clear();
    let names = &mut scratch.names;
    names.clear();
    let track = lexer.track_ambiguity;
    let ambiguous = &mut scratch.ambiguous;
    ambiguous.clear();
    let sets = &mut scratch.sets;
    sets.clear();
    let mut last_nonempty = 0usize;
    let mut accept = NONE;
    let mut collect_at = COLLECT_MIN;
    // The run that looks ahead (whose failures are never reported) drops items that cannot
    // continue, and the lexer matches tokens with the DFA; the diagnosing run tries everything.
    let look = lexer.lookahead && lexer.fast;

    for i in 0..=n {
        let set_start = items.len();
        seen.start(i as u32);
        for e in predicted_list.drain(..) {
            predicted[e as usize] = false;
        }
        token_ends.clear();
        if prefer_keywords && !names.is_empty() {
            // Keyword extraction: a name whose word starts before this offset is read unless
            // a keyword with the same span was (every such keyword has been read by now).
            let iu = i as u32;
            names.retain(|&(word, e, item)| {
                if word >= iu {
                    return true;
                }
                if keywords.contains(&(word, e)) {
                    lexer.names_dropped = true;
                } else {
                    scan_ahead(&mut pending, e, item);
                }
                false
            });
            keywords.retain(|&(start, _)| start >= iu);
        }
        if i == 0 {
            predict(c, input, c.start, 0, lexer.lookahead, items, seen, set_start);
        }
        while pending.peek().is_some_and(|p| p.target == i as u32) {
            let p = pending.pop().expect("peeked");
            if add(items, seen, set_start, p.item).is_some() && track {
                ambiguous.insert((p.item.state, p.item.origin, i as u32));
            }
        }
        if items.len() == set_start {
            continue;
        }
        last_nonempty = i;
        sets.push((set_start as u32, i as u32));
        let iu = i as u32;
        let wb = waiting.len() as u32;
        let mut k = set_start;
        while k < items.len() {
            let it = items[k];
            let state = c.states[it.state as usize];
            // Several actions check their own lookahead: as prediction did for a root, as
            // advancing did for the others.
            let check = state.len() > 1 && if state.is_root() { lexer.lookahead } else { look };
            for a in c.actions_of(state) {
                if check && !looks_on(c, input, a.look, i) {
                    continue;
                }
                match a.next {
                    Next::End => {
                        let lhs = a.to;
                        if lhs == c.start && it.origin == 0 && i == n && accept == NONE {
                            accept = k as u32;
                        }
                        // Empty completions were already advanced over at prediction time. Later
                        // completions of the same (symbol, origin) only re-derive items `add` drops.
                        if it.origin != iu {
                            let (from, to) = match waiting_for[lhs as usize] {
                                (origin, from, to) if origin == it.origin => (from, to),
                                _ => {
                                    let (wb, we) = waiting_range[it.origin as usize];
                                    let slice = &waiting[wb as usize..we as usize];
                                    let from = wb + slice.partition_point(|&w| waits_for(w) < lhs) as u32;
                                    let to = wb + slice.partition_point(|&w| waits_for(w) <= lhs) as u32;
                                    waiting_for[lhs as usize] = (it.origin, from, to);
                                    (from, to)
                                }
                            };
                            // The items about to complete a left-associative `X → T op T` wait
                            // apart (see `compile::right_keys`), all but those of the production
                            // this `T` is (the reading the associativity rejects).
                            let (rlo, rhi) = c.right_keys_of[lhs as usize];
                            let mut ranges = [(from, to), (0, 0), (0, 0)];
                            if rlo < rhi {
                                let (wb, we) = waiting_range[it.origin as usize];
                                let slice = &waiting[wb as usize..we as usize];
                                let at = |key: u32| wb + slice.partition_point(|&w| waits_for(w) < key) as u32;
                                let (lo, hi) = (at(rlo), at(rhi));
                                // Which production this `T` is, only where some item waits.
                                let skip = if lo < hi {
                                    right_nested_key(c, items, k as u32)
                                } else {
                                    NONE
                                };
                                ranges[1] = if (rlo..rhi).contains(&skip) {
                                    ranges[2] = (at(skip + 1), hi);
                                    (lo, at(skip))
                                } else {
                                    (lo, hi)
                                };
                            }
                            for &entry in ranges.iter().flat_map(|&(f, t)| &waiting[f as usize..t as usize]) {
                                let w = waiting_item(entry);
                                let wi = items[w as usize];
                                let next = advance(c, wi.state, lhs);
                                if look && !viable(c, input, next, i) {
                                    continue;
                                }
                                let candidate = EItem {
                                    state: next,
                                    origin: wi.origin,
                                    pred: w,
                                    child: k as u32,
                                };
                                if let Some(there) = add(items, seen, set_start, candidate) {
                                    let decided =
                                        c.has_prec && there != NONE && prefer(c, items, set_start, there, candidate);
                                    if track && !decided {
                                        ambiguous.insert((next, wi.origin, iu));
                                    }
                                }
                            }
                        }
                    }
                    Next::Nt { esym, nullable } => {
                        let key = c.right_key[a.to as usize];
                        waiting.push(wait_entry(if key == NONE { esym } else { key }, k as u32));
                        if !predicted[esym as usize] {
                            predicted[esym as usize] = true;
                            predicted_list.push(esym);
                            predict(c, input, esym, iu, lexer.lookahead, items, seen, set_start);
                        }
                        if nullable && (!look || viable(c, input, a.to, i)) {
                            add(
                                items,
                                seen,
                                set_start,
                                EItem {
                                    state: a.to,
                                    origin: it.origin,
                                    pred: k as u32,
                                    child: NONE,
                                },
                            );
                        }
                    }
                    Next::Term(t) => match match_terminal(g.terminal(t), &input[i..]) {
                        Some(len) if a.keyword && lexer.word_cut(i, i + len) => lexer.failed(t, i),
                        Some(len) if look && !viable(c, input, a.to, i + len) => {}
                        Some(len) => {
                            // (`a.keyword` is only set where the layout follows too.)
                            if prefer_keywords && g.boundaries().is_keyword(t) {
                                keywords.push((iu, (i + len) as u32));
                            }
                            scan_ahead(
                                &mut pending,
                                (i + len) as u32,
                                EItem {
                                    state: a.to,
                                    origin: it.origin,
                                    pred: k as u32,
                                    child: NONE,
                                },
                            )
                        }
                        None => lexer.failed(t, i),
                    },
                    Next::Token(sym) => {
                        let (from, to) = match token_cache[sym.index()] {
                            (set, from, to) if set == i as u32 => (from, to),
                            _ => {
                                let from = token_ends.len();
                                // The DFA's ends come ascending and distinct.
                                if !lexer.dfa_ends(sym, iu, token_ends) {
                                    lexer.token_ends(sym, iu, token_ends);
                                    token_ends[from..].sort_unstable();
                                }
                                let mut kept = from;
                                for r in from..token_ends.len() {
                                    if r == from || token_ends[r] != token_ends[kept - 1] {
                                        token_ends[kept] = token_ends[r];
                                        kept += 1;
                                    }
                                }
                                token_ends.truncate(kept);
                                token_cache[sym.index()] = (i as u32, from as u32, kept as u32);
                                (from as u32, kept as u32)
                            }
                        };
                        let advanced = EItem {
                            state: a.to,
                            origin: it.origin,
                            pred: k as u32,
                            child: NONE,
                        };
                        for &e in &token_ends[from as usize..to as usize] {
                            if look && !viable(c, input, advanced.state, e as usize) {
                                continue;
                            }
                            if a.keyword && lexer.word_cut(i, e as usize) {
                                continue;
                            }
                            if prefer_keywords {
                                if let Some(Some(words)) = c.keyword_tokens.get(sym.index()) {
                                    // The keyword is the token's end (after its layout).
                                    let before = &input[..e as usize];
                                    for &t in words {
                                        if let crate::grammar::Terminal::Literal(word) = g.terminal(t) {
                                            if before.ends_with(word) {
                                                keywords.push((e - word.len() as u32, e));
                                            }
                                        }
                                    }
                                }
                            }
                            if e == iu {
                                add(items, seen, set_start, advanced);
                            } else if prefer_keywords && c.names[sym.index()] != NameToken::No {
                                // The name's word starts after its layout, if it has one.
                                let word = match c.names[sym.index()] {
                                    NameToken::AfterLayout => lexer.layout_end(iu),
                                    _ => iu,
                                };
                                names.push((word, e, advanced));
                            } else {
                                scan_ahead(&mut pending, e, advanced);
                            }
                        }
                    }
                }
            }
            k += 1;
        }
        // This set's items by the nonterminal they wait for (each was entered as the loop met
        // it), for later completions.
        waiting[wb as usize..].sort_unstable();
        waiting_range[i] = (wb, waiting.len() as u32);
        if items.len() >= collect_at && i < n {
            let mut gc = Collector::new(items.len(), i);
            for p in pending.iter() {
                gc.active[p.item.origin as usize] = true;
            }
            gc.activate(items, waiting, waiting_range);
            let roots = pending.iter().flat_map(|p| [p.item.pred, p.item.child]);
            gc.mark(items, waiting, waiting_range, roots);
            gc.compact(items, sets);
            let mut kept = std::mem::take(&mut pending).into_vec();
            for p in &mut kept {
                p.item.pred = gc.map(p.item.pred);
                p.item.child = gc.map(p.item.child);
            }
            pending = BinaryHeap::from(kept);
            gc.rewait(waiting, waiting_range);
            waiting_for.fill((NONE, 0, 0));
            collect_at = (items.len() + items.len() / 2).max(COLLECT_MIN);
        }
    }

    if accept != NONE {
        // Before the tree is read back (and built beside the chart), keep only what it needs.
        if items.len() >= COLLECT_MIN {
            let mut gc = Collector::new(items.len(), n);
            gc.mark(items, waiting, waiting_range, [accept].into_iter());
            gc.compact(items, sets);
            accept = gc.map(accept);
            // Give the dropped items' memory back: the tree is built next to what is left.
            items.shrink_to_fit();
        }
        return Ok(Chart {
            items: &scratch.items,
            accept,
            sets: &scratch.sets,
            ambiguous: &scratch.ambiguous,
        });
    }
    // Every failed terminal test, in Earley sets or inside tokens, went through the lexer's
    // failure tracking; if the last live set lies beyond it, nothing more was expected there.
    let (mut offset, mut expected) = (lexer.furthest, std::mem::take(&mut lexer.expected));
    if last_nonempty > offset {
        offset = last_nonempty;
        expected.clear();
    }
    expected.sort_unstable();
    expected.dedup();
    Err(Failure { offset, expected })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(state: u32, origin: u32) -> EItem {
        EItem {
            state,
            origin,
            pred: NONE,
            child: NONE,
        }
    }

    /// `add` keeps one item per (state, origin) in a set, small or large, predicted there or not;
    /// a set never sees the stamps of an earlier one, across the wrap of the stamp too.
    #[test]
    fn add_keeps_one_item_per_state_and_origin() {
        let mut seen = Dedup::default();
        seen.for_grammar(100);
        let mut items = Vec::new();
        for start_stamp in [0, u32::MAX - 2] {
            seen.stamp = start_stamp;
            for offset in [5u32, 6, 7] {
                let set_start = items.len();
                seen.start(offset);
                // 60 distinct items (past SMALL_SET): 20 predicted here, each added four times,
                // and 20 of each of two earlier origins (one state, two origins), each added twice.
                for round in 0..4 {
                    for state in 0..20 {
                        add(&mut items, &mut seen, set_start, item(state, offset));
                        add(&mut items, &mut seen, set_start, item(state, offset - 1 - round % 2));
                    }
                }
                let mut set: Vec<(u32, u32)> = items[set_start..].iter().map(|x| (x.state, x.origin)).collect();
                let n = set.len();
                set.sort_unstable();
                set.dedup();
                assert_eq!(set.len(), n, "a duplicate in the set at {offset}");
                assert_eq!(n, 60, "items lost in the set at {offset}");
            }
        }
    }
}
