//! Grammar-aware mutation for libFuzzer's custom-mutator hook: parse the input, then replace a
//! random subtree by a freshly generated one, by a subtree of the same symbol from another input,
//! or by itself with its recursion repeated (Nautilus's recursive mutation).
//!
//! Map: [`Mutator`] (the mutation itself, independent of libFuzzer, tested here) ·
//! `SharedMutator` (the process-wide one `fuzz_mutator!` uses, with libFuzzer's own mutation as
//! fallback for inputs that do not parse).
//!
//! Cost: in a fuzz build the parser and generator are coverage-instrumented like the target
//! (every comparison calls into libFuzzer), and a parse is most of a mutation: 1 ms for a
//! 400-byte json input. So `SharedMutator` parses corpus units, not libFuzzer's byte-level
//! mutants, which mostly do not parse (about 90% for json): libFuzzer mutates a unit several
//! times in a chain, each mutant the next one's input, so an input that is not the last mutant
//! starts a chain and is a unit. A unit is parsed when met a second time (libFuzzer replaces
//! units by smaller ones thousands of times a minute), and its parse is kept (the cache holds the
//! corpus). Its own mutants are not parsed at all: each keeps how it was made (the input's parse,
//! the node, the donor subtree or the generator's seed), and its tree is rebuilt from that, a
//! derivation of the same bytes (for an unambiguous grammar, the parse's tree; a test checks json
//! and expr). And the tree mutation is rationed to a share of the campaign's time
//! (`HELLFUZZ_MUTATOR_SHARE`, default 3%), so a fast target keeps its speed and a slow one gets
//! more tree mutations per execution.

use std::hash::Hasher;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::generate::{Generator, Limits};
use crate::grammar::{Grammar, SymbolId};
use crate::mine::{samples::mine_builtin, Model, Probabilities, ProbabilityMode};
use crate::parse::Parser;
use crate::tree::{NodeId, NodeKind, Tree};

/// Inputs kept for splicing: recent parsed inputs, so splices draw from the live corpus.
const POOL_SIZE: usize = 32;
/// Tree nodes the parse cache holds at most (32 bytes each, and up to 40 more in the indexes of
/// `Parsed`: some 75 MB): libFuzzer mutates the same corpus units over and over, and a parse is
/// most of a mutation's cost, so the cache holds the corpus (json_mutator's 1,300 units after 30
/// s hold 1.3 M nodes; the oldest, most often replaced since, go first).
const CACHE_NODES: usize = 1 << 20;
/// The mutator's own recent mutants it can rebuild the tree of (see `Mutator::made`).
const MADE_SIZE: usize = 64;
/// Attempts at a mutation that fits `max_size` before giving up.
const ATTEMPTS: usize = 4;
/// The share of mutations that try the recursive one first (Nautilus draws its mutations
/// about evenly; ours are three).
const RECURSIVE_SHARE: f64 = 0.25;
/// A recursive mutation repeats a recursion up to 2^this times (Nautilus: 2^1 to 2^15), as
/// `max_size` allows: deep nesting is what overflows a recursive-descent parser's stack.
const MAX_PUMP_LOG: u32 = 12;
/// Nodes searched below a node for one of its symbol.
const PUMP_SEARCH: usize = 4096;

/// What a mutation did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MutationKind {
    /// A subtree was replaced by one generated with the mined ("more of the same") model.
    Regenerated,
    /// A subtree was replaced by one generated with the inverted model (inputs from hell).
    RegeneratedInverted,
    /// A subtree was replaced by a subtree of the same symbol from another input.
    Spliced,
    /// A subtree `u D w`, with `D` a descendant of its symbol, became `u…u D w…w`.
    Recursive,
}

/// A parsed input with the indexes mutations use, computed once per parse since a cached input
/// or a pool donor is used many times.
struct Parsed {
    /// Hash of the input bytes (cache and pool identity).
    hash: u64,
    tree: Tree,
    /// Every node with a symbol (the subtrees a mutation may replace) in pre-order, with the
    /// offset of its first byte: the mutant is then input prefix + replacement + suffix.
    nodes: Vec<(NodeId, usize)>,
    /// The same nodes by symbol, in pre-order within a symbol: splice donors.
    by_symbol: Vec<(SymbolId, NodeId)>,
}

impl Parsed {
    fn new(tree: Tree, hash: u64) -> Parsed {
        let mut nodes = Vec::new();
        let mut offset = 0;
        tree.pre_order(tree.root(), |n| match tree.kind(n) {
            NodeKind::Leaf { .. } => offset += tree.len_of(n),
            _ => nodes.push((n, offset)),
        });
        let mut by_symbol: Vec<(SymbolId, NodeId)> = nodes
            .iter()
            .filter_map(|&(n, _)| Some((tree.kind(n).symbol()?, n)))
            .collect();
        // Stable: a symbol's nodes stay in pre-order, so picks match a pre-order filter.
        by_symbol.sort_by_key(|&(s, _)| s);
        Parsed {
            hash,
            tree,
            nodes,
            by_symbol,
        }
    }

    /// The nodes of `symbol`, in pre-order.
    fn of_symbol(&self, symbol: SymbolId) -> &[(SymbolId, NodeId)] {
        let lo = self.by_symbol.partition_point(|&(s, _)| s < symbol);
        let hi = self.by_symbol.partition_point(|&(s, _)| s <= symbol);
        &self.by_symbol[lo..hi]
    }

    /// Whether this is the parse of `input` (the hash first: a full comparison only on a match).
    fn is_of(&self, hash: u64, input: &[u8]) -> bool {
        self.hash == hash && self.tree.len() == input.len() && self.tree.unparse() == input
    }
}

/// A cached parse result: `None` when the input does not parse.
struct Cached {
    input: Box<[u8]>,
    parsed: Option<Arc<Parsed>>,
}

impl Cached {
    /// What the entry counts against the cache's bound: its tree's nodes, at least one.
    fn nodes(&self) -> usize {
        self.parsed.as_ref().map_or(0, |p| p.tree.node_count()).max(1)
    }
}

/// Parse results by input hash, the oldest dropped first once their trees hold more than
/// `max_nodes` nodes (an entry counts at least one, so failed parses are bounded too).
struct Cache {
    map: std::collections::HashMap<u64, Cached, rustc_hash::FxBuildHasher>,
    order: std::collections::VecDeque<(u64, usize)>,
    nodes: usize,
    max_nodes: usize,
}

impl Cache {
    fn new(max_nodes: usize) -> Cache {
        Cache {
            map: Default::default(),
            order: Default::default(),
            nodes: 0,
            max_nodes,
        }
    }

    /// The entry of `input` (whose hash is `hash`), if it is there.
    fn get(&self, hash: u64, input: &[u8]) -> Option<&Cached> {
        self.map.get(&hash).filter(|c| *c.input == *input)
    }

    /// Adds the parse result of `input` (replacing an entry of the same hash), then drops the
    /// oldest past the bound.
    fn insert(&mut self, hash: u64, input: &[u8], parsed: Option<Arc<Parsed>>) {
        let entry = Cached {
            input: input.into(),
            parsed,
        };
        let nodes = entry.nodes();
        if nodes > self.max_nodes {
            return;
        }
        if let Some(old) = self.map.insert(hash, entry) {
            self.nodes -= old.nodes();
            self.order.retain(|&(h, _)| h != hash);
        }
        self.order.push_back((hash, nodes));
        self.nodes += nodes;
        while self.nodes > self.max_nodes {
            let Some((old, n)) = self.order.pop_front() else { break };
            self.map.remove(&old);
            self.nodes -= n;
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.len()
    }
}

/// One of the mutator's own mutants: the input's parse with `node`'s subtree replaced.
struct Made {
    hash: u64,
    from: Arc<Parsed>,
    node: NodeId,
    with: Replacement,
}

/// What replaced a subtree in a mutant.
enum Replacement {
    /// A fresh derivation of `symbol`, drawn again from the same generator settings.
    Fresh {
        symbol: SymbolId,
        inverted: bool,
        budget: usize,
        seed: u64,
    },
    /// A subtree of an input in the pool.
    Donor(Arc<Parsed>, NodeId),
    /// The node itself, with its descendant at `path` (child indexes) replaced by a copy of
    /// the node `times` times over.
    Pumped { path: Vec<usize>, times: usize },
}

/// The last `capacity` items pushed, replaced oldest first (nothing is kept at capacity 0).
struct Ring<T> {
    items: Vec<T>,
    next: usize,
    capacity: usize,
}

impl<T> Ring<T> {
    fn new(capacity: usize) -> Ring<T> {
        Ring {
            items: Vec::new(),
            next: 0,
            capacity,
        }
    }

    fn push(&mut self, item: T) {
        if self.items.len() < self.capacity {
            self.items.push(item);
        } else if self.capacity > 0 {
            self.items[self.next] = item;
            self.next = (self.next + 1) % self.capacity;
        }
    }
}

/// Mutates inputs of one grammar. Deterministic for a given sequence of calls and seeds.
pub struct Mutator {
    parser: Parser,
    mined: Probabilities,
    inverted: Probabilities,
    /// Which models regeneration uses (`None`: both, half the time each).
    mode: Option<ProbabilityMode>,
    /// Distinct recent inputs (a repeated input is not added again: it would weigh its subtrees
    /// double in splices).
    pool: Ring<Arc<Parsed>>,
    /// Parse results, and the rebuilt trees of its own mutants that may have become corpus units
    /// ([`Mutator::keep_mutant`]); not every rebuilt mutant: libFuzzer hands most back once, in
    /// a chain, where corpus units come back for as long as the run lasts. Only saves work: a
    /// hit gives what the parse or the rebuild gave, so mutants do not depend on it.
    cache: Cache,
    /// The last mutants this mutator made (valid by construction) and how: when libFuzzer hands
    /// one back (it chains several mutations on one input), its tree is rebuilt from the input's
    /// and the replacement instead of parsed.
    made: Ring<Made>,
    /// Inputs parsed so far (what the rebuilt trees of its own mutants save).
    parses: u64,
}

impl Mutator {
    /// A mutator for `grammar`, with probabilities mined from `model` (for a built-in grammar,
    /// see [`Mutator::for_builtin`]). `mode` picks the model for regeneration: `Mined`, `Inverted`,
    /// or `None` for both in turn; `Uniform` ignores the model.
    pub fn new(grammar: &Grammar, model: Option<&Model>, mode: Option<ProbabilityMode>) -> Mutator {
        let (mined, inverted) = match mode {
            Some(ProbabilityMode::Uniform) => {
                let uniform = Probabilities::new(grammar, None, ProbabilityMode::Uniform);
                (uniform.clone(), uniform)
            }
            _ => (
                Probabilities::new(grammar, model, ProbabilityMode::Mined),
                Probabilities::new(grammar, model, ProbabilityMode::Inverted),
            ),
        };
        Mutator {
            parser: Parser::new(grammar),
            mined,
            inverted,
            mode,
            pool: Ring::new(POOL_SIZE),
            cache: Cache::new(CACHE_NODES),
            made: Ring::new(MADE_SIZE),
            parses: 0,
        }
    }

    /// A mutator whose model is mined from the built-in samples of the grammar called `name`
    /// (none for other grammars: then the grammar's own weights).
    pub fn for_builtin(grammar: &Grammar, name: &str, mode: Option<ProbabilityMode>) -> Mutator {
        let (model, _) = mine_builtin(grammar, name);
        Mutator::new(grammar, Some(&model), mode)
    }

    /// The grammar.
    pub fn grammar(&self) -> &Grammar {
        self.parser.grammar()
    }

    /// A mutant of `input` of at most `max_size` bytes, or `None` when `input` does not parse
    /// (or no mutation fits): the caller then mutates bytes instead.
    pub fn mutate(&mut self, input: &[u8], max_size: usize, seed: u64) -> Option<(Vec<u8>, MutationKind)> {
        let parsed = self.parsed(input)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let nodes = &parsed.nodes;
        let mut result = None;
        for _ in 0..ATTEMPTS {
            let &(node, start) = nodes.get(rng.random_range(0..nodes.len().max(1)))?;
            let recursive = rng.random_bool(RECURSIVE_SHARE);
            let mutant = if recursive {
                pump(&parsed, node, start, input, max_size, &mut rng)
            } else {
                None
            };
            let mutant = match mutant {
                Some(m) => Some(m),
                None => {
                    let splice = !self.pool.items.is_empty() && rng.random_bool(0.5);
                    let mutant = if splice {
                        self.splice(&parsed.tree, node, &mut rng)
                    } else {
                        None
                    };
                    match mutant {
                        Some((m, with)) => Some((m, MutationKind::Spliced, with)),
                        None => self.regenerate(&parsed.tree, node, max_size, &mut rng),
                    }
                }
            };
            let mutant = mutant
                .map(|(bytes, kind, with)| (replaced(input, start, parsed.tree.len_of(node), &bytes), kind, with));
            if let Some((bytes, kind, with)) = mutant.filter(|(m, _, _)| m.len() <= max_size && m != input) {
                result = Some((bytes, kind, node, with));
                break;
            }
        }
        self.remember(parsed.clone(), input);
        let (bytes, kind, node, with) = result?;
        self.made.push(Made {
            hash: hash_of(&bytes),
            from: parsed,
            node,
            with,
        });
        Some((bytes, kind))
    }

    /// What is known about `input` without parsing it: `Some(true)` if it parsed before (and is
    /// still cached) or is one of this mutator's recent mutants, `Some(false)` if it failed to
    /// parse, `None` if it is new. In a libFuzzer run most new inputs are byte-level mutants
    /// that do not parse (about 90% for json), so the caller parses only some of them.
    pub fn known_to_parse(&self, input: &[u8]) -> Option<bool> {
        let hash = hash_of(input);
        if let Some(hit) = self.cache.get(hash, input) {
            return Some(hit.parsed.is_some());
        }
        self.made.items.iter().any(|m| m.hash == hash).then_some(true)
    }

    /// Caches the tree of `input` if it is one of this mutator's recent mutants (rebuilt, not
    /// parsed); whether it is. For a mutant that may have become a corpus unit: libFuzzer
    /// adds an input that reaches new coverage, or replaces a unit with a smaller input that
    /// reaches the same, and mutates it again much later, when it is no longer among the recent
    /// mutants.
    pub fn keep_mutant(&mut self, input: &[u8]) -> bool {
        let hash = hash_of(input);
        if self.cache.get(hash, input).is_some() {
            return true;
        }
        let Some(tree) = self.rebuilt(hash, input) else {
            return false;
        };
        self.cache.insert(hash, input, Some(Arc::new(Parsed::new(tree, hash))));
        true
    }

    /// The parse of `input`, from the cache if it was parsed before, or rebuilt if it is one
    /// of this mutator's recent mutants; `None` if it does not parse.
    fn parsed(&mut self, input: &[u8]) -> Option<Arc<Parsed>> {
        let hash = hash_of(input);
        if let Some(hit) = self.cache.get(hash, input) {
            return hit.parsed.clone();
        }
        if let Some(tree) = self.rebuilt(hash, input) {
            return Some(Arc::new(Parsed::new(tree, hash)));
        }
        self.parses += 1;
        let parsed = self.parser.tree(input).map(|tree| Arc::new(Parsed::new(tree, hash)));
        self.cache.insert(hash, input, parsed.clone());
        parsed
    }

    /// The tree of `input` if it is one of this mutator's recent mutants: the tree it was made
    /// from with the replacement grafted in (for an unambiguous grammar, the tree a parse gives).
    fn rebuilt(&self, hash: u64, input: &[u8]) -> Option<Tree> {
        let made = self.made.items.iter().find(|m| m.hash == hash)?;
        let mut tree = made.from.tree.clone();
        let sub = match &made.with {
            Replacement::Fresh {
                symbol,
                inverted,
                budget,
                seed,
            } => {
                let fresh = Generator::new(self.grammar(), self.probs(*inverted), Limits::up_to(*budget), *seed)
                    .tree_of(*symbol);
                tree.graft(&fresh, fresh.root())
            }
            Replacement::Donor(donor, node) => tree.graft(&donor.tree, *node),
            Replacement::Pumped { path, times } => {
                let source = &made.from.tree;
                let sub = tree.graft(source, made.node);
                let mut at = sub;
                for _ in 0..*times {
                    let inner = path.iter().try_fold(at, |n, &i| tree.children(n).nth(i))?;
                    let copy = tree.graft(source, made.node);
                    tree.replace(inner, copy);
                    at = copy;
                }
                sub
            }
        };
        tree.replace(made.node, sub);
        // The replaced subtree's nodes go (chained mutants would carry them all).
        let tree = tree.compact();
        (tree.len() == input.len() && tree.unparse() == input).then_some(tree)
    }

    /// The probabilities regeneration draws by: inverted or mined.
    fn probs(&self, inverted: bool) -> &Probabilities {
        if inverted {
            &self.inverted
        } else {
            &self.mined
        }
    }

    /// The bytes of a fresh derivation of `node`'s symbol, sized to fit what `max_size` leaves,
    /// and how to draw it again.
    fn regenerate(
        &self,
        tree: &Tree,
        node: NodeId,
        max_size: usize,
        rng: &mut ChaCha8Rng,
    ) -> Option<(Vec<u8>, MutationKind, Replacement)> {
        let symbol = tree.kind(node).symbol()?;
        let room = max_size.saturating_sub(tree.len() - tree.len_of(node));
        // Mostly near the old size, sometimes larger: growth is what byte mutation does poorly.
        let cap = room.min(2 * tree.len_of(node) + 64).max(1);
        let budget = rng.random_range(1..=cap);
        let inverted = match self.mode {
            Some(ProbabilityMode::Inverted) => true,
            Some(_) => false,
            None => rng.random_bool(0.5),
        };
        let kind = if inverted {
            MutationKind::RegeneratedInverted
        } else {
            MutationKind::Regenerated
        };
        let seed = rng.random();
        let fresh = Generator::new(self.grammar(), self.probs(inverted), Limits::up_to(budget), seed).bytes_of(symbol);
        let again = Replacement::Fresh {
            symbol,
            inverted,
            budget,
            seed,
        };
        Some((fresh, kind, again))
    }

    /// The bytes of a random subtree of `node`'s symbol from an input in the pool, and where
    /// they come from.
    fn splice(&self, tree: &Tree, node: NodeId, rng: &mut ChaCha8Rng) -> Option<(Vec<u8>, Replacement)> {
        let symbol = tree.kind(node).symbol()?;
        let donor = &self.pool.items[rng.random_range(0..self.pool.items.len())];
        let matches = donor.of_symbol(symbol);
        let &(_, pick) = matches.get(rng.random_range(0..matches.len().max(1)))?;
        Some((donor.tree.unparse_node(pick), Replacement::Donor(donor.clone(), pick)))
    }

    fn remember(&mut self, parsed: Arc<Parsed>, input: &[u8]) {
        if self
            .pool
            .items
            .iter()
            .any(|p| Arc::ptr_eq(p, &parsed) || p.is_of(parsed.hash, input))
        {
            return;
        }
        self.pool.push(parsed);
    }
}

/// Nautilus's recursive mutation: where `node` (at `start` in `input`) derives a descendant of
/// its own symbol, `u D w` becomes `u…u D w…w`, the recursion repeated 2 to 2^[`MAX_PUMP_LOG`]
/// times as `max_size` allows; with how to make it again. `None` where it has no such
/// descendant (within [`PUMP_SEARCH`] nodes) or no room.
fn pump(
    parsed: &Parsed,
    node: NodeId,
    start: usize,
    input: &[u8],
    max_size: usize,
    rng: &mut ChaCha8Rng,
) -> Option<(Vec<u8>, MutationKind, Replacement)> {
    let tree = &parsed.tree;
    let symbol = tree.kind(node).symbol()?;
    // Depth first, without recursion.
    let mut stack: Vec<NodeId> = tree.children(node).collect();
    stack.reverse();
    // `node` itself was the first searched.
    let mut searched = 1;
    let inner = loop {
        let at = stack.pop()?;
        if tree.kind(at).symbol() == Some(symbol) {
            break at;
        }
        searched += 1;
        if searched > PUMP_SEARCH {
            return None;
        }
        let end = stack.len();
        stack.extend(tree.children(at));
        stack[end..].reverse();
    };
    // The child indexes from `node` down to it.
    let mut path: Vec<usize> = std::iter::successors(Some(inner), |&n| tree.parent(n))
        .take_while(|&n| n != node)
        .filter_map(|n| tree.children(tree.parent(n)?).position(|c| c == n))
        .collect();
    path.reverse();
    let &(_, inner_start) = parsed.nodes.iter().find(|(n, _)| *n == inner)?;
    let (len, inner_len) = (tree.len_of(node), tree.len_of(inner));
    let (before, after) = (&input[start..inner_start], &input[inner_start + inner_len..start + len]);
    let step = before.len() + after.len();
    let room = max_size.saturating_sub(input.len()).checked_div(step)?;
    if room == 0 {
        return None;
    }
    let times = (1usize << rng.random_range(1..=MAX_PUMP_LOG)).min(room);
    let mut bytes = Vec::with_capacity(len + times * step);
    for _ in 0..=times {
        bytes.extend_from_slice(before);
    }
    bytes.extend_from_slice(&input[inner_start..inner_start + inner_len]);
    for _ in 0..=times {
        bytes.extend_from_slice(after);
    }
    Some((bytes, MutationKind::Recursive, Replacement::Pumped { path, times }))
}

/// The hash that identifies an input in the parse cache and among recent mutants.
fn hash_of(input: &[u8]) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(input);
    hasher.finish()
}

/// `input` with its `len` bytes at `start` (a node of its parse tree) replaced by `replacement`
/// (a derivation of the same symbol, so the result is still a derivation of the grammar).
fn replaced(input: &[u8], start: usize, len: usize, replacement: &[u8]) -> Vec<u8> {
    let end = (start + len).min(input.len());
    let start = start.min(end);
    let mut out = Vec::with_capacity(input.len() - (end - start) + replacement.len());
    out.extend_from_slice(&input[..start]);
    out.extend_from_slice(replacement);
    out.extend_from_slice(&input[end..]);
    out
}

/// The process-wide mutator behind `fuzz_mutator!` and a grammar target: built on first use
/// from the target's grammar; inputs that do not parse get libFuzzer's own mutation.
#[cfg(feature = "libfuzzer")]
pub struct SharedMutator {
    target: TargetRef,
    state: std::sync::OnceLock<Option<std::sync::Mutex<Shared>>>,
    /// One call in `every` mutates the tree (`HELLFUZZ_MUTATOR_EVERY`, default 4); the others
    /// use libFuzzer's own, much cheaper mutation, so exec/s stays close to the plain target's.
    every: std::sync::OnceLock<u32>,
}

/// What `SharedMutator` keeps between calls.
#[cfg(feature = "libfuzzer")]
struct Shared {
    mutator: Mutator,
    share: TimeShare,
    /// The last mutant handed to libFuzzer. libFuzzer mutates a corpus unit several times in a
    /// chain, each mutant the next one's input: an input that is not the last mutant starts a
    /// chain, so it is a corpus unit, worth parsing (it comes back for as long as the run
    /// lasts); the inputs in a chain are byte-level mutants that mostly do not parse (about
    /// 90% for json), or the mutator's own, whose trees it rebuilds.
    last: Vec<u8>,
    /// What each kind of mutation yields (reported at exit).
    yields: Yields,
    /// Hashes of new corpus units met once. libFuzzer replaces units by smaller ones that reach
    /// the same coverage thousands of times a minute (calc_mutator: 2,585 in 20 s, against
    /// 143 new units), most of them soon replaced again; a unit is parsed when it is met a
    /// second time, so the short-lived ones are not.
    met_once: std::collections::HashSet<u64, rustc_hash::FxBuildHasher>,
}

/// The target whose grammar a [`SharedMutator`] mutates by. (Large, but only ever in one
/// `static`; a `const fn` cannot box it.)
#[cfg(feature = "libfuzzer")]
#[allow(clippy::large_enum_variant)]
enum TargetRef {
    /// Its own (`fuzz_mutator!` beside another macro's target).
    Own(super::Target),
    /// The fuzz target's, so that the grammar is loaded and mined once per process (loading
    /// the js grammar takes seconds, and every `-fork` job is a process of its own).
    Shared(&'static super::Target),
}

#[cfg(feature = "libfuzzer")]
impl SharedMutator {
    /// A mutator for the grammar from `source`.
    pub const fn new(source: super::GrammarSource) -> SharedMutator {
        SharedMutator::with(TargetRef::Own(super::Target::new(source)))
    }

    /// A mutator for the grammar of `target` (a `fuzz_target!` with a grammar), which it shares.
    pub const fn of(target: &'static super::Target) -> SharedMutator {
        SharedMutator::with(TargetRef::Shared(target))
    }

    const fn with(target: TargetRef) -> SharedMutator {
        SharedMutator {
            target,
            state: std::sync::OnceLock::new(),
            every: std::sync::OnceLock::new(),
        }
    }

    fn target(&self) -> &super::Target {
        match &self.target {
            TargetRef::Own(t) => t,
            TargetRef::Shared(t) => t,
        }
    }

    /// libFuzzer's `LLVMFuzzerCustomMutator`: mutates `data[..size]` in place, returns the new size.
    pub fn mutate(&self, data: &mut [u8], size: usize, max_size: usize, seed: u32) -> usize {
        let size = size.min(data.len());
        let max_size = max_size.min(data.len());
        let Some(state) = self.state.get_or_init(|| self.set_up()) else {
            return super::libfuzzer::fuzzer_mutate(data, size, max_size);
        };
        let every = *self.every.get_or_init(|| {
            std::env::var(super::env::MUTATOR_EVERY_ENV)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(4)
                .max(1)
        });
        let mut guard = state.lock().unwrap_or_else(|p| p.into_inner());
        let shared = &mut *guard;
        let now = std::time::Instant::now();
        let unit = data[..size] != shared.last[..];
        let kept = shared.yields.call(now, unit);
        // A tree mutant that libFuzzer kept (or may have: the chain does not tell) comes back
        // as a unit much later: its tree is cached now, as it would cost a parse then. Part of
        // the tree mutation's cost, though the share is not asked.
        if unit && kept != Some(false) && shared.yields.last_made_by() == Some(Arm::Tree) {
            let last = std::mem::take(&mut shared.last);
            shared.mutator.keep_mutant(&last);
            shared.last = last;
            shared.share.spend(now.elapsed());
        }
        if shared.yields.report_due(now) {
            set_report(shared.yields.report());
        }
        let mutant = (seed % every == 0)
            .then(|| shared.tree_mutation(&data[..size], max_size, seed, unit))
            .flatten();
        if mutant.is_some() {
            shared.yields.made_by(Arm::Tree, now);
        } else {
            // A tree mutation that came to nothing (an input that does not parse) is the tree
            // mutation's time all the same; libFuzzer's mutant is charged from here on.
            let after = std::time::Instant::now();
            shared.yields.charge(Arm::Tree, after.saturating_duration_since(now));
            shared.yields.made_by(Arm::Bytes, after);
        }
        let new_size = match mutant {
            Some(bytes) => {
                data[..bytes.len()].copy_from_slice(&bytes);
                bytes.len()
            }
            None => super::libfuzzer::fuzzer_mutate(data, size, max_size),
        };
        shared.last.clear();
        shared.last.extend_from_slice(&data[..new_size.min(data.len())]);
        new_size
    }

    /// The mutator and its time share, once: `None` if the target's grammar does not load, or
    /// with `HELLFUZZ_MUTATOR=off`.
    fn set_up(&self) -> Option<std::sync::Mutex<Shared>> {
        let mode = match std::env::var(super::env::MUTATOR_ENV).as_deref().map(str::trim) {
            // libFuzzer's own mutation only, without rebuilding the target (`mutator = false`
            // in the macro leaves the hook out altogether).
            Ok("off") => return None,
            Ok("mined") => Some(ProbabilityMode::Mined),
            Ok("inverted") => Some(ProbabilityMode::Inverted),
            Ok("uniform") => Some(ProbabilityMode::Uniform),
            _ => None,
        };
        let grammar = self.target().grammar()?;
        let name = self.target().source().name().unwrap_or("");
        let mutator = Mutator::for_builtin(grammar, name, mode);
        let share = std::env::var(super::env::MUTATOR_SHARE_ENV)
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|s| (0.0..=1.0).contains(s))
            .unwrap_or(DEFAULT_SHARE);
        // The clock starts after the set-up (grammar, mining), which is not a mutation's cost.
        let now = std::time::Instant::now();
        let yields = Yields::new(super::libfuzzer::mutate_depth(), now);
        set_report(yields.report());
        // SAFETY: registering a plain `extern "C"` function.
        #[cfg(unix)]
        unsafe {
            libc::atexit(print_report)
        };
        Some(std::sync::Mutex::new(Shared {
            mutator,
            share: TimeShare::new(share, now),
            yields,
            last: Vec::new(),
            met_once: Default::default(),
        }))
    }
}

#[cfg(feature = "libfuzzer")]
impl Shared {
    /// A tree mutant of `input`, if the time share allows one now and `input` parses: inputs
    /// known to parse (cached corpus units, its own recent mutants) and corpus units met before
    /// are parsed, other new inputs are left to libFuzzer's mutation.
    fn tree_mutation(&mut self, input: &[u8], max_size: usize, seed: u32, unit: bool) -> Option<Vec<u8>> {
        let began = std::time::Instant::now();
        if !self.share.allows(began) {
            return None;
        }
        let worth_parsing = self.mutator.known_to_parse(input).unwrap_or_else(|| {
            if !unit {
                return false;
            }
            // Met before: parse it now (and forget it: the cache knows it from here on).
            let hash = hash_of(input);
            if self.met_once.remove(&hash) {
                return true;
            }
            if self.met_once.len() >= MET_ONCE_SIZE {
                self.met_once.clear();
            }
            self.met_once.insert(hash);
            false
        });
        let mutant = if worth_parsing {
            self.mutator
                .mutate(input, max_size, u64::from(seed))
                .map(|(bytes, _)| bytes)
        } else {
            None
        };
        self.share.spend(began.elapsed());
        mutant
    }
}

/// The line [`print_report`] prints at exit, kept current by `SharedMutator`.
#[cfg(feature = "libfuzzer")]
static REPORT: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

#[cfg(feature = "libfuzzer")]
fn set_report(line: String) {
    *REPORT.lock().unwrap_or_else(|p| p.into_inner()) = line;
}

/// At exit: what each kind of mutation made and what libFuzzer kept of it (the counts as of
/// the last refresh, at most a few seconds old).
#[cfg(feature = "libfuzzer")]
extern "C" fn print_report() {
    if let Ok(line) = REPORT.try_lock() {
        if !line.is_empty() {
            eprintln!("{line}");
        }
    }
}

/// Corpus units met once that `SharedMutator` remembers (hashes; forgotten all at once past it).
#[cfg(feature = "libfuzzer")]
const MET_ONCE_SIZE: usize = 1 << 16;

/// The share of a campaign's time the tree mutation may take by default
/// (`HELLFUZZ_MUTATOR_SHARE`). exec/s falls by some 3 to 4 times the share (the target runs
/// other inputs, larger and more often valid, and the mutator's memory evicts the target's from
/// the caches): json_mutator ran at 95% of the plain target's at 0.02, 83% at 0.05, 79% at 0.1.
#[cfg(feature = "libfuzzer")]
const DEFAULT_SHARE: f64 = 0.03;

/// The time the tree mutation has taken against the time since the campaign began: it may run
/// while it has taken at most `share` of it. A fast target would spend most of a run in its
/// mutator otherwise (a json execution takes some 10 µs, a coverage-instrumented parse of a
/// 400-byte input about 1 ms), so the grammar-aware mutation is rationed to what it costs, not to
/// a fixed count: a slow target gets more tree mutations per execution, a fast one fewer.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "libfuzzer"), allow(dead_code))]
struct TimeShare {
    share: f64,
    start: std::time::Instant,
    spent: std::time::Duration,
}

#[cfg_attr(not(feature = "libfuzzer"), allow(dead_code))]
impl TimeShare {
    /// A ration of `share` (0 to 1) of the time from `start`.
    fn new(share: f64, start: std::time::Instant) -> TimeShare {
        TimeShare {
            share,
            start,
            spent: std::time::Duration::ZERO,
        }
    }

    /// Whether the tree mutation is within its share at `now` (never, for a share of 0).
    fn allows(&self, now: std::time::Instant) -> bool {
        self.share > 0.0
            && self.spent.as_secs_f64() <= self.share * now.saturating_duration_since(self.start).as_secs_f64()
    }

    /// Counts `took` against the share.
    fn spend(&mut self, took: std::time::Duration) {
        self.spent += took;
    }
}

/// Which mutation made a mutant: the tree mutation, or libFuzzer's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "libfuzzer"), allow(dead_code))]
enum Arm {
    Tree = 0,
    Bytes = 1,
}

/// What each kind of mutation yields: how many of its mutants libFuzzer kept (new coverage, or a
/// smaller input for a unit's coverage), and the seconds spent on them, printed at exit.
///
/// libFuzzer tells a custom mutator nothing of what its mutants did, but its loop does: it
/// mutates a corpus unit `-mutate_depth` times (default 5) in a chain, each mutant the next
/// one's input, and ends the chain early at the first mutant it keeps. So a chain that ends
/// (the next input is not the last mutant) after fewer than `depth` mutations ended with a
/// kept mutant. The time between one call and the next (the mutation and the execution of
/// its mutant) is charged to the kind that made the mutant, and a tree mutation that made
/// nothing (its input did not parse) to the tree mutation. The mutator caches the trees of
/// kept tree mutants only (they come back as units), where it cached every chain's last.
///
/// (Measured and not kept: moving the tree mutation's share of time towards the kind with
/// more kept mutants per second. On js, tree mutants are kept far more often per mutant (36 %
/// against libFuzzer's 1.3 % in 3 minutes) but cost some 100 times the time, so the share
/// went to its floor of 1 %, and the run ended with 5 % fewer edges than at the fixed 3 %.)
#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "libfuzzer"), allow(dead_code))]
struct Yields {
    /// libFuzzer's `-mutate_depth`, or `None` when chains do not tell (`-reduce_depth=1` also
    /// ends a chain at a mutant that found nothing).
    depth: Option<u32>,
    /// Mutations in the current chain so far.
    chain: u32,
    /// The kind that made the last mutant, and when the call that made it began.
    last: Option<(Arm, std::time::Instant)>,
    /// Per kind: mutants made, mutants kept, seconds spent.
    made: [u64; 2],
    kept: [u64; 2],
    seconds: [f64; 2],
    /// When the report was last refreshed.
    reported: std::time::Instant,
}

/// Seconds between two refreshes of the report printed at exit.
const REPORT_EVERY: f64 = 5.0;

#[cfg_attr(not(feature = "libfuzzer"), allow(dead_code))]
impl Yields {
    fn new(depth: Option<u32>, now: std::time::Instant) -> Yields {
        Yields {
            depth: depth.filter(|&d| d > 1),
            chain: 0,
            last: None,
            made: [0; 2],
            kept: [0; 2],
            seconds: [0.0; 2],
            reported: now,
        }
    }

    /// A call of the mutator began at `now`; `unit`: its input is not the last mutant (a chain
    /// begins). Says whether libFuzzer kept the last mutant: `Some(true)` if the chain that
    /// ended told so, `Some(false)` if it told it did not, `None` if it cannot tell (a chain as
    /// long as `depth` ends there whether its last mutant was kept or not; no depth; no chain
    /// ended).
    fn call(&mut self, now: std::time::Instant, unit: bool) -> Option<bool> {
        let mut kept = None;
        if let Some((arm, began)) = self.last {
            self.seconds[arm as usize] += now.saturating_duration_since(began).as_secs_f64();
            if unit {
                kept = self.depth.filter(|&d| self.chain < d).map(|_| self.chain > 0);
                if kept == Some(true) {
                    self.kept[arm as usize] += 1;
                }
            }
        }
        if unit {
            self.chain = 0;
        }
        self.chain += 1;
        kept
    }

    /// The kind that made the last mutant (`None` before the first).
    fn last_made_by(&self) -> Option<Arm> {
        self.last.map(|(arm, _)| arm)
    }

    /// `took` of a call's time went to `arm`, which made no mutant of it.
    fn charge(&mut self, arm: Arm, took: std::time::Duration) {
        self.seconds[arm as usize] += took.as_secs_f64();
    }

    /// The mutant of the call that began at `began` was made by `arm`.
    fn made_by(&mut self, arm: Arm, began: std::time::Instant) {
        self.made[arm as usize] += 1;
        self.last = Some((arm, began));
    }

    /// Whether the report is due for a refresh at `now` (every [`REPORT_EVERY`] seconds).
    fn report_due(&mut self, now: std::time::Instant) -> bool {
        let due = now.saturating_duration_since(self.reported).as_secs_f64() >= REPORT_EVERY;
        if due {
            self.reported = now;
        }
        due
    }

    /// One line for the end of the run: what each kind made, what libFuzzer kept of it, and
    /// the seconds each took (its mutations and the executions of its mutants).
    fn report(&self) -> String {
        let [tree, bytes] = self.made;
        let [tree_kept, bytes_kept] = self.kept;
        let [tree_s, bytes_s] = self.seconds;
        let kept = |n: u64, of: u64| match self.depth {
            Some(_) => format!(" ({n} kept, {:.1} %)", 100.0 * n as f64 / of.max(1) as f64),
            None => String::new(),
        };
        format!(
            "hellfuzz: mutator: {tree} tree mutant(s){} in {tree_s:.0} s, {bytes} of libFuzzer's{} in {bytes_s:.0} s",
            kept(tree_kept, tree),
            kept(bytes_kept, bytes),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a chain of calls: `chain` (unit first, then mutants of mutants), each taking
    /// `step`, made by `arms` in turn; returns what `call` said at each.
    fn chain(y: &mut Yields, t: &mut std::time::Instant, arms: &[Arm], step: f64) -> Vec<Option<bool>> {
        let mut out = Vec::new();
        for (k, &arm) in arms.iter().enumerate() {
            out.push(y.call(*t, k == 0));
            y.made_by(arm, *t);
            *t += std::time::Duration::from_secs_f64(step);
        }
        out
    }

    #[test]
    fn a_chain_that_ends_early_tells_that_libfuzzer_kept_its_last_mutant() {
        let mut t = std::time::Instant::now();
        let mut y = Yields::new(Some(5), t);
        // A full chain of 5: nothing kept, then a chain of 2 ending with a tree mutant.
        // (The first call ends no chain; the full one cannot tell.)
        assert_eq!(chain(&mut y, &mut t, &[Arm::Bytes; 5], 0.001), vec![None; 5]);
        assert_eq!(chain(&mut y, &mut t, &[Arm::Bytes, Arm::Tree], 0.001), vec![None, None]);
        // The next chain begins: the tree mutant was kept.
        assert_eq!(chain(&mut y, &mut t, &[Arm::Bytes], 0.001), vec![Some(true)]);
        // A chain of one ends when the next begins: its byte mutant was kept.
        assert_eq!(y.call(t, true), Some(true));
        assert_eq!((y.made, y.kept), ([1, 7], [1, 1]));
        // Time between calls goes to the kind that made the mutant.
        assert!((y.seconds[Arm::Tree as usize] - 0.001).abs() < 1e-6, "{:?}", y.seconds);
        assert!((y.seconds[Arm::Bytes as usize] - 0.007).abs() < 1e-6, "{:?}", y.seconds);
        let report = y.report();
        assert!(report.contains("1 tree mutant(s) (1 kept, 100.0 %)"), "{report}");
        assert!(report.contains("7 of libFuzzer's (1 kept, 14.3 %)"), "{report}");

        // A chain of 3 of 5 ended early: kept; a chain of 5 cannot tell.
        let mut y = Yields::new(Some(5), t);
        chain(&mut y, &mut t, &[Arm::Tree; 3], 0.001);
        assert_eq!(y.call(t, true), Some(true));
        y.made_by(Arm::Bytes, t);
        for _ in 0..4 {
            assert_eq!(y.call(t, false), None, "mid-chain");
            y.made_by(Arm::Bytes, t);
        }
        assert_eq!(y.call(t, true), None, "a full chain cannot tell");
        // With -reduce_depth=1 (no depth), a short chain says nothing.
        let mut y = Yields::new(None, t);
        chain(&mut y, &mut t, &[Arm::Tree], 0.001);
        assert_eq!(y.call(t, true), None);
        assert_eq!(y.kept, [0, 0]);
        assert!(!y.report().contains("kept"), "{}", y.report());
    }

    #[test]
    fn mutants_parse_fit_and_differ() {
        let json = Grammar::load("json").unwrap();
        let mut mutator = Mutator::for_builtin(&json, "json", None);
        let parser = Parser::new(&json);
        let input = br#"{"name": "hellfuzz", "tags": [1, 2.5, true, null], "nested": {"a": []}}"#;
        let mut kinds = std::collections::HashSet::new();
        let mut declined = 0;
        for seed in 0..300 {
            let Some((mutant, kind)) = mutator.mutate(input, 200, seed) else {
                declined += 1;
                continue;
            };
            assert!(mutant.len() <= 200, "{} bytes", mutant.len());
            assert_ne!(&mutant[..], &input[..]);
            parser
                .parse(&mutant)
                .unwrap_or_else(|e| panic!("mutant does not parse: {e}\n{mutant:?}"));
            kinds.insert(kind);
        }
        assert_eq!(kinds.len(), 4, "all four kinds of mutation happen: {kinds:?}");
        assert!(declined < 15, "{declined} of 300 valid inputs got no mutation");
    }

    #[test]
    fn the_recursive_mutation_repeats_a_recursion() {
        let expr = Grammar::load("expr").unwrap();
        let mut mutator = Mutator::for_builtin(&expr, "expr", None);
        let parser = Parser::new(&expr);
        let mut deepest = 0;
        let mut made = 0;
        for seed in 0..300 {
            if let Some((mutant, MutationKind::Recursive)) = mutator.mutate(b"((1) * 2)", 4096, seed) {
                made += 1;
                assert!(mutant.len() <= 4096);
                parser
                    .parse(&mutant)
                    .unwrap_or_else(|e| panic!("mutant does not parse: {e}\n{mutant:?}"));
                deepest = deepest.max(mutant.iter().filter(|&&b| b == b'(').count());
            }
        }
        assert!(made > 20, "{made} recursive mutants of 300");
        assert!(
            deepest >= 64,
            "a recursion repeated many times: {deepest} parentheses at most"
        );
    }

    #[test]
    fn inputs_that_do_not_parse_are_left_to_the_fuzzer() {
        let expr = Grammar::load("expr").unwrap();
        let mut mutator = Mutator::for_builtin(&expr, "expr", Some(ProbabilityMode::Inverted));
        assert!(mutator.mutate(b"1 + (", 100, 7).is_none());
        let (mutant, kind) = mutator.mutate(b"1 + (2 * 3)", 100, 7).unwrap();
        assert_ne!(kind, MutationKind::Regenerated, "the inverted model only");
        Parser::new(&expr).parse(&mutant).unwrap();
    }

    #[test]
    fn what_parses_is_known_without_parsing_again() {
        let expr = Grammar::load("expr").unwrap();
        let mut mutator = Mutator::for_builtin(&expr, "expr", None);
        assert_eq!(mutator.known_to_parse(b"1 + 2"), None);
        assert!(mutator.mutate(b"1 + (", 100, 1).is_none());
        assert_eq!(mutator.known_to_parse(b"1 + ("), Some(false));
        let (mutant, _) = mutator.mutate(b"1 + 2", 100, 1).unwrap();
        assert_eq!(mutator.known_to_parse(b"1 + 2"), Some(true));
        // Its own mutants are known to parse before they are ever parsed.
        assert_eq!(mutator.known_to_parse(&mutant), Some(true));
        assert!(Parser::new(&expr).parse(&mutant).is_ok());
    }

    #[test]
    fn the_same_seeds_give_the_same_mutants() {
        let json = Grammar::load("json").unwrap();
        let run = || {
            let mut m = Mutator::for_builtin(&json, "json", None);
            (0..20).map(|s| m.mutate(b"[1, {\"a\": 2}]", 64, s)).collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn the_parse_cache_gives_the_mutants_a_fresh_parse_would() {
        let json = Grammar::load("json").unwrap();
        let inputs: [&[u8]; 4] = [
            b"[1, {\"a\": 2}]",
            b"{\"b\": [true, null]}",
            b"[1, {\"a\": 2}]",
            b"[1, 2",
        ];
        let run = |cache_nodes| {
            let mut m = Mutator::for_builtin(&json, "json", None);
            m.cache = Cache::new(cache_nodes);
            // Its own mutants are not handed back here: every input is one of the four.
            m.made = Ring::new(0);
            let mutants: Vec<_> = (0..200).map(|s| m.mutate(inputs[s % 4], 128, s as u64)).collect();
            (mutants, m.cache.len(), m.pool.items.len())
        };
        let (cached, cache_len, pool_len) = run(CACHE_NODES);
        let (uncached, uncached_len, uncached_pool_len) = run(0);
        assert_eq!(
            (cache_len, uncached_len),
            (3, 0),
            "three distinct inputs, one does not parse"
        );
        assert_eq!(
            (pool_len, uncached_pool_len),
            (2, 2),
            "repeated inputs are not pooled again"
        );
        assert_eq!(cached, uncached);
        assert!(cached.iter().filter(|m| m.is_some()).count() > 100);
    }

    #[test]
    fn own_mutants_handed_back_are_rebuilt_as_a_parse_gives_them() {
        // libFuzzer chains mutations on one input: each mutant here is the next input. For an
        // unambiguous grammar a rebuilt tree is the parse's, so the chain is the same without
        // rebuilding (every mutant parsed), at a fraction of the parses.
        let cases: [(&str, &[u8]); 2] = [("json", b"[1, {\"a\": 2}, \"x\"]"), ("expr", b"1 + (2 * 3) - 4")];
        for (name, input) in cases {
            let g = Grammar::load(name).unwrap();
            let chain = |made: usize| {
                let mut m = Mutator::for_builtin(&g, name, None);
                m.made = Ring::new(made);
                let mut current = input.to_vec();
                let mut seen = Vec::new();
                for s in 0..300 {
                    if let Some((next, _)) = m.mutate(&current, 256, s) {
                        current = next;
                    }
                    seen.push(current.clone());
                }
                (seen, m.parses)
            };
            let (rebuilt, parses) = chain(MADE_SIZE);
            let (parsed, every_parse) = chain(0);
            assert_eq!(rebuilt, parsed, "{name}");
            assert!(
                every_parse > 250 && parses < 5,
                "{name}: {parses} parses against {every_parse}"
            );
        }
    }

    #[test]
    fn the_tree_mutation_keeps_to_its_share_of_the_time() {
        use std::time::{Duration, Instant};
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        let mut share = TimeShare::new(0.1, start);
        assert!(share.allows(at(0)), "nothing spent yet");
        share.spend(Duration::from_millis(5));
        assert!(!share.allows(at(10)), "5 ms of 10");
        assert!(!share.allows(at(49)), "5 ms of 49");
        assert!(share.allows(at(50)), "5 ms of 50 is a tenth");
        // A run of mutations that each take 4 ms, every 1 ms of fuzzing, is held to a tenth.
        let mut share = TimeShare::new(0.1, start);
        let (mut now, mut mutations) = (0u64, 0u64);
        while now < 10_000 {
            if share.allows(at(now)) {
                share.spend(Duration::from_millis(4));
                mutations += 1;
                now += 4;
            }
            now += 1;
        }
        let spent = mutations * 4;
        assert!((900..=1100).contains(&spent), "{spent} ms of 10 s in mutations");
        assert!(
            !TimeShare::new(0.0, start).allows(at(1000)),
            "a share of 0 turns it off"
        );
    }

    #[test]
    fn a_mutant_kept_is_known_after_it_is_no_longer_recent() {
        let expr = Grammar::load("expr").unwrap();
        let mut m = Mutator::for_builtin(&expr, "expr", None);
        let (mutant, _) = m.mutate(b"1 + (2 * 3) - 4", 100, 7).unwrap();
        assert!(!m.keep_mutant(b"5 * 5"), "not one of its mutants");
        let parses = m.parses;
        assert!(m.keep_mutant(&mutant));
        // Many more mutations push it out of the recent mutants; the cache still knows it, with
        // the tree a parse gives, and no parse was needed.
        for s in 0..(2 * MADE_SIZE as u64) {
            m.mutate(b"7 / (8 + 9)", 100, s);
        }
        assert!(!m.made.items.iter().any(|made| made.hash == hash_of(&mutant)));
        assert_eq!(m.known_to_parse(&mutant), Some(true));
        let kept = m.cache.get(hash_of(&mutant), &mutant).unwrap().parsed.clone().unwrap();
        let parsed = Parser::new(&expr).parse(&mutant).unwrap();
        let shape = |t: &Tree| {
            let mut nodes = Vec::new();
            t.pre_order(t.root(), |n| nodes.push((t.kind(n), t.len_of(n))));
            nodes
        };
        assert_eq!(kept.tree.unparse(), mutant);
        assert_eq!(shape(&kept.tree), shape(&parsed));
        assert_eq!(m.parses, parses + 1, "only `7 / (8 + 9)` was parsed");
    }

    #[test]
    fn a_full_cache_drops_its_oldest_entries() {
        let expr = Grammar::load("expr").unwrap();
        let mut m = Mutator::for_builtin(&expr, "expr", None);
        let inputs: Vec<Vec<u8>> = (0..300).map(|i| format!("{i} + 1").into_bytes()).collect();
        let nodes = |m: &Mutator, input: &[u8]| {
            m.cache
                .get(hash_of(input), input)
                .unwrap()
                .parsed
                .as_ref()
                .unwrap()
                .tree
                .node_count()
        };
        m.mutate(&inputs[0], 100, 0).unwrap();
        // Room for about 100 such trees; every input parsed (none taken for a mutant rebuilt).
        m.cache = Cache::new(100 * nodes(&m, &inputs[0]));
        m.made = Ring::new(0);
        for (s, input) in inputs.iter().enumerate() {
            m.mutate(input, 100, s as u64).unwrap();
        }
        let hit = |m: &Mutator, input: &[u8]| m.cache.get(hash_of(input), input).is_some();
        // `299 + 1` has more nodes than `0 + 1`: fewer than 100 fit, the newest ones.
        assert!((60..=100).contains(&m.cache.len()), "{} entries", m.cache.len());
        assert!(m.cache.nodes <= m.cache.max_nodes);
        assert!(inputs[..150].iter().all(|i| !hit(&m, i)) && inputs[240..].iter().all(|i| hit(&m, i)));
        assert_eq!(m.pool.items.len(), POOL_SIZE);
        // An input seen again is a hit, not a parse; mutants are still spliced into the input at
        // the right offsets.
        let parses = m.parses;
        for s in 0..50 {
            let (mutant, _) = m.mutate(&inputs[299], 100, s).unwrap();
            Parser::new(&expr).parse(&mutant).unwrap();
        }
        assert_eq!(m.parses, parses);
    }
}
