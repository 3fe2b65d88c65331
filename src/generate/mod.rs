//! Size-bounded probabilistic generation from a grammar and choice probabilities; seeded.
//!
//! [`Generator`] builds derivation trees the way PTC2 does (*Inputs from Hell* §3.4): it expands
//! randomly picked open nodes by the probabilities while the budget lasts, then closes every open
//! node by its cheapest derivation, so generation always terminates. `corpus` writes the results.
//!
//! Budget and grow phase: the generator keeps an exact lower bound of the final size (bytes so
//! far plus the cheapest completion of every open node). No expansion may push it past
//! `max_size`. While it is below `min_size`, the last open node that can still grow structurally
//! (reach a recursive symbol) may only take choices that keep such a node open (PTC2's grow
//! phase). Inverted probabilities favour stopping when the samples had long lists; the grow phase
//! makes inversion change what is generated rather than how little, and it grows structure (more
//! values, statements, terms), never padding such as whitespace runs.
//!
//! "More of the same" one sample at a time: with [`Generator::with_targets`] (one [`Target`] per
//! mined sample, from [`targets`]), each input draws a sample and follows its size (as budget,
//! capped at `max_size`), its own choice probabilities (smoothed by the whole model's) and its
//! share of non-ASCII characters. A grow phase forces structure (it makes the last growing node
//! recurse), so such an input is drawn without one, again while it stays below half of the
//! sample's size, and only after repeated failures with a grow phase to half of it. The
//! generated inputs then differ among themselves as the samples do: small and large, plain and
//! escaped, ASCII and not, instead of all being alike averages of the samples. When the sample's
//! tree is at hand ([`targets_with_trees`]), the input is that tree with subtrees holding
//! [`REDRAWN_SHARE`] of its nodes drawn anew by the sample's probabilities: what the sample has
//! once stays in most of its inputs, which drawing whole inputs cannot do.
//!
//! Trees or bytes: one draw (`Generator::draw_into`) builds into a `Sink`, a derivation tree
//! or, for [`Generator::input`] on grammars whose trees need nothing fixed over their whole
//! (json, expr), a bare arena that only writes bytes (`bytes`); the same seed gives the same
//! bytes either way (a property test checks it). Choices read per-alternative cheapest costs
//! precomputed with the grammar's analyses, and buffers are reused from draw to draw.
//!
//! Random numbers: the generator's own (xoshiro256++) pick targets and subtrees and seed each
//! draw; within a draw, every node has its own stream (SplitMix64, seeded from its parent's),
//! and PTC2's order has another. What a node becomes then depends on when it is expanded only
//! through the budget, so bytes drawn past the grow phase can be completed depth first, straight
//! to bytes, wherever no order could have run into the budget (`depth_first`): the same input
//! as PTC2's, several times faster.

mod bytes;
mod corpus;
mod depth_first;
mod distinct;
mod values;

use rand::distr::Bernoulli;
use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::{SplitMix64, Xoshiro256PlusPlus};

pub use corpus::{Corpus, Written};
pub(crate) use values::key_child;
pub use values::Words;

use crate::grammar::{Body, CharClass, Grammar, Item, SymbolId, Terminal, TerminalId, NO_PLACE};
use crate::mine::{CharDist, Model, Probabilities, ProbabilityMode};
use crate::tree::{NodeId, NodeKind, Tree};
use depth_first::Completion;

/// Size limits for one generated input.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Limits {
    /// Never generate more bytes than this (unless the start symbol's cheapest derivation is
    /// longer: [`Generator::checked`] refuses such limits, [`Generator::new`] draws the
    /// cheapest derivation).
    pub max_size: usize,
    /// Grow phase: below this many bytes, the last open node keeps growing.
    pub min_size: usize,
    /// Expansions (choices made by probability) before everything is closed.
    pub max_expansions: usize,
    /// Never build a derivation tree of more nodes than this (unless the symbol's cheapest
    /// derivation has more). Bytes alone do not bound a tree: iterations of a repetition that
    /// derive nothing (`(""{0,10000}){0,10000}`) cost no bytes but nodes, and nested bounds
    /// multiply.
    pub max_nodes: usize,
}

/// Tree nodes per byte of `max_size` in [`Limits::up_to`]'s node budget. The built-in grammars'
/// generated trees have at most about 5 nodes per byte of `max_size` from 1000 bytes up and 8
/// for 50 bytes (js: an identifier is a dozen levels of expression rules deep); a budget of 16
/// leaves their inputs as they were (a test checks it) and bounds a tree of any grammar to
/// about a kilobyte of memory per byte of `max_size`.
pub const NODES_PER_BYTE: usize = 16;

/// Tree nodes [`Limits::up_to`] allows beyond [`NODES_PER_BYTE`] per byte: room for the
/// structure of very small inputs (`{}` is 2 bytes and 5 nodes in json).
pub const NODES_FLOOR: usize = 256;

/// The largest `max_size` a tree can hold: a derivation tree counts bytes in 32 bits.
pub const MAX_SIZE_LIMIT: usize = u32::MAX as usize;

impl Limits {
    /// Limits for inputs of at most `max_size` bytes: the grow phase lasts to half of it.
    pub fn up_to(max_size: usize) -> Limits {
        Limits {
            max_size,
            min_size: max_size / 2,
            max_expansions: max_size.saturating_mul(8).max(1000),
            max_nodes: node_budget(max_size),
        }
    }
}

/// The node budget of [`Limits::up_to`] for inputs of at most `max_size` bytes.
fn node_budget(max_size: usize) -> usize {
    max_size.saturating_mul(NODES_PER_BYTE).saturating_add(NODES_FLOOR)
}

/// Limits that no input of a grammar can satisfy.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenerateError {
    /// The start symbol's smallest derivation is longer than `max_size`: every input would be
    /// larger than the limit.
    TooSmall {
        /// The grammar's origin (its path, or `<builtin:json>`).
        grammar: String,
        /// The start rule.
        rule: String,
        /// Bytes of its smallest derivation.
        smallest: u64,
        /// The limit asked for.
        max_size: usize,
    },
    /// `max_size` is more than a derivation tree can hold ([`MAX_SIZE_LIMIT`]).
    TooLarge {
        /// The limit asked for.
        max_size: usize,
    },
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerateError::TooSmall {
                grammar,
                rule,
                smallest,
                max_size,
            } => write!(
                f,
                "the smallest input grammar {grammar} derives is {smallest} byte{} (rule `{rule}`), \
                 more than the size limit of {max_size}: raise the limit to at least {smallest}",
                if *smallest == 1 { "" } else { "s" }
            ),
            GenerateError::TooLarge { max_size } => write!(
                f,
                "a size limit of {max_size} bytes is more than generation can hold \
                 ({MAX_SIZE_LIMIT} bytes): lower it"
            ),
        }
    }
}

impl std::error::Error for GenerateError {}

impl Limits {
    /// Whether inputs of `grammar` can keep to these limits: the start symbol's smallest
    /// derivation must fit within `max_size`, and `max_size` within [`MAX_SIZE_LIMIT`].
    pub fn check(&self, grammar: &Grammar) -> Result<(), GenerateError> {
        if self.max_size > MAX_SIZE_LIMIT {
            return Err(GenerateError::TooLarge {
                max_size: self.max_size,
            });
        }
        let start = grammar.start();
        let smallest = grammar.cheapest_len(start);
        if smallest > self.max_size as u64 {
            return Err(GenerateError::TooSmall {
                grammar: grammar.origin().to_string(),
                rule: grammar.symbol(start).name.clone(),
                smallest,
                max_size: self.max_size,
            });
        }
        Ok(())
    }
}

/// What one generated input aims at: a sample's size, choices and characters ("more of the
/// same", one sample at a time).
#[derive(Clone, Debug)]
pub struct Target {
    /// The sample's size in bytes: the input's budget and grow phase (capped at `max_size`).
    pub size: usize,
    /// The sample's own mined probabilities, smoothed by the whole model's.
    pub probs: Probabilities,
    /// How often a mixed character class yields an ASCII member (see [`sample_class`]).
    pub ascii_share: f64,
    /// The sample's derivation tree, when the sample itself is at hand (mined in this run rather
    /// than read from a model): inputs are then the sample with parts of it drawn anew (see
    /// [`Generator::with_targets`]).
    pub tree: Option<Tree>,
}

/// The share of a sample's tree nodes that an input following it draws anew (when the sample's
/// tree is at hand): subtrees holding about this many are replaced by fresh derivations of the
/// same symbols. Nodes rather than bytes: a long literal (a 700-byte GLSL header) is one node
/// and no reason to redraw all the rest. Two fifths: every input differs from its sample in
/// many places, yet what the sample has once (a comment, a `try`) is kept more often than not,
/// where drawing a whole input by the sample's probabilities loses it in 1/e of the inputs and
/// more (`scripts/eval-profile`: with whole inputs drawn, json features were up to 16 points
/// from the samples' shares, toml and glsl 30; with half redrawn, up to 11; with two fifths, 9).
pub const REDRAWN_SHARE: f64 = 0.4;

/// A redrawn subtree may grow to this many times the size of the one it replaces. Room to vary
/// in size; with the budget at the old size, most draws ran into it and were closed by cheapest
/// derivations (json: empty containers in 56 % of inputs, 33 % of the samples).
pub const REDRAW_BUDGET: usize = 3;

/// Draws of a replacement until one neither ran into its budget nor ended below half of the
/// old subtree's size (the last one is taken regardless).
const REDRAW_TRIES: usize = 8;

/// Parts drawn again per tree to take apart the tokens of `%never` pairs.
const NEVER_REDRAWS: usize = 16;

/// How deep `%never` fixes go: a part drawn again is fixed in turn, and that part's parts.
const NEVER_DEPTH: u32 = 3;

/// [`Generator::tree_of`] trims layout to make room for separators only while the tree's bytes
/// times the bytes over stay below this (each byte trimmed copies the tree once); above it, and
/// where trimming is not enough, the input is drawn again with a smaller budget. Inputs of up to
/// a kilobyte are always trimmed first (up to a sixth of an input is separators: sql).
const TRIM_WORK: usize = 1 << 20;

/// Draws again after too many separators with the overshoot taken off the budget, before the
/// budget is halved instead (so that [`Generator::tree_of`] always ends within its limit).
const REDRAWS_OVER: usize = 8;

/// How much the whole model's probabilities weigh beside one sample's counts in a [`Target`]:
/// as many observations of each choice point. A fifth of one: with a whole one, a choice a
/// sample made a few times and never the other way still took the other way often enough to
/// show in most inputs (js: `let`/`const` in 58 % of inputs, in 30 % of the samples;
/// `scripts/eval-profile`).
pub const TARGET_PRIOR: f64 = 0.2;

/// Draws of an input without a grow phase before the grow phase is used (see
/// [`Generator::with_targets`]).
const TARGET_TRIES: usize = 20;

/// One [`Target`] per sample profile of `model` (none for models without profiles).
pub fn targets(grammar: &Grammar, model: &Model) -> Vec<Target> {
    let mined = Probabilities::new(grammar, Some(model), ProbabilityMode::Mined);
    // A sample without characters of mixed classes says nothing about them: the corpus does.
    let (chars, non_ascii) = model
        .profiles
        .iter()
        .fold((0, 0), |(c, n), p| (c + p.class_chars, n + p.non_ascii));
    let corpus_share = if chars > 0 {
        1.0 - non_ascii as f64 / chars as f64
    } else {
        ascii_share(ProbabilityMode::Mined)
    };
    model
        .profiles
        .iter()
        .map(|p| Target {
            size: usize::try_from(p.size).unwrap_or(usize::MAX),
            probs: mined.like_sample(grammar, p, TARGET_PRIOR),
            ascii_share: if p.class_chars > 0 {
                1.0 - p.non_ascii as f64 / p.class_chars as f64
            } else {
                corpus_share
            },
            tree: None,
        })
        .collect()
}

/// [`targets`] of a model mined from `trees` in this run ([`crate::mine::samples::model_of`]),
/// each with its sample's tree: "more of the same" then redraws parts of the samples.
/// `trees` must be the model's samples in mining order; if their number differs from the
/// model's profiles, the targets get no trees.
pub fn targets_with_trees(grammar: &Grammar, model: &Model, trees: Vec<Tree>) -> Vec<Target> {
    let mut targets = targets(grammar, model);
    if trees.len() == targets.len() {
        for (t, tree) in targets.iter_mut().zip(trees) {
            t.tree = Some(tree);
        }
    }
    targets
}

/// Generates derivation trees; the same seed gives the same sequence of trees.
pub struct Generator<'a> {
    grammar: &'a Grammar,
    /// The probabilities given to [`Generator::new`].
    base: &'a Probabilities,
    /// The probabilities of the input being drawn: `base` or its target's.
    probs: &'a Probabilities,
    /// How ASCII members are chosen from mixed character classes for this input (its share).
    ascii: Bernoulli,
    /// While following a target: its share of ASCII characters, which splits the mined
    /// characters of a class with ASCII and non-ASCII members (a sample without non-ASCII
    /// text gives inputs without it, though other samples drew non-ASCII characters).
    ascii_part: Option<Bernoulli>,
    limits: Limits,
    rng: Xoshiro256PlusPlus,
    /// Per symbol: whether some derivation of it contains a recursive symbol (can grow).
    grows: &'a [bool],
    /// Targets that each input of the start symbol draws one of (empty: none).
    targets: &'a [Target],
    /// Whether the last draw ran into its budget (a way ruled out as too large, a character
    /// replaced by a shorter one, or expansions run out with nodes open).
    clipped: bool,
    /// How depth-first completions ended (see `depth_first`): done, undone, clipped.
    #[cfg(test)]
    completions: [u64; 3],
    /// Whether drawn trees need nothing over their whole (see [`Generator::input`]), so that
    /// inputs can be drawn as bytes without a tree.
    bytes_only: bool,
    /// Per target, its sample's [`Plan`] once it has been redrawn.
    plans: Vec<Option<Plan>>,
    /// The options of the last choice, kept for their allocation.
    options: Vec<(f64, bool, bool)>,
    /// The last draw's buffers, kept for their allocations.
    spare: Spare,
    /// The depth-first completion's stack, kept for its allocation.
    frames: Vec<depth_first::Frame<'a>>,
    /// `%values` words parsed as their rules (maybe shared with other generators).
    words: Words,
    /// What a token is, for `%never` (empty without one).
    token_rules: crate::tree::TokenRules,
    /// How many `%never` fixes are open: a part drawn again is fixed in turn, to this depth.
    never_depth: u32,
}

/// Buffers one draw leaves to the next (generation makes many small draws).
#[derive(Default)]
struct Spare {
    arena: Option<bytes::Arena>,
    open: Vec<Open>,
    attached: Vec<bytes::Attached>,
}

/// A node waiting to be expanded.
#[derive(Clone)]
struct Open {
    /// Its node in the [`Sink`].
    node: u32,
    sym: SymbolId,
    /// The place of layout it is ([`Probabilities::place`]: its probabilities there), or
    /// [`NO_PLACE`].
    place: u32,
    /// For repetitions already started: iterations so far (`None`: not expanded yet).
    iterations: Option<u32>,
    /// Where the sink linked it: its entry in [`Draft::links`] for a tree ([`ROOT`] for the
    /// root, which has none).
    link: u32,
    /// The node's own random numbers (see [`Generator::draw_into`]).
    stream: SplitMix64,
}

/// [`Open::link`] of the root.
const ROOT: u32 = u32::MAX;

/// What a draw builds as it goes: a derivation tree ([`Draft`]), or only what is needed for
/// the bytes ([`bytes::Arena`]). The draw itself (choices, budget, random numbers) is the same
/// code for both, so the bytes of a draw are exactly the unparsed tree of the same draw.
trait Sink: Sized {
    /// An empty draw of `sym`: its root, not expanded yet (in buffers from `spare`, if any).
    fn start(grammar: &Grammar, sym: SymbolId, spare: &mut Spare) -> Self;
    /// The root node.
    fn root(&self) -> u32;
    /// The choice node `node` of `sym` took alternative `alt`.
    fn chose(&mut self, node: u32, sym: SymbolId, alt: u32);
    /// Adds a leaf of terminal `t` with `bytes` (the literal's, if `literal`, else a character
    /// drawn from its class) as the next child of `parent`.
    fn leaf(&mut self, parent: u32, t: TerminalId, bytes: &[u8], literal: bool);
    /// Adds an unexpanded node of `sym` as the next child of `parent`: (node, link).
    fn node(&mut self, grammar: &Grammar, parent: u32, sym: SymbolId) -> (u32, u32);
    /// Closes the unexpanded `node` of `sym` (entered as `link`) by its cheapest derivation.
    fn close(&mut self, grammar: &Grammar, node: u32, link: u32, sym: SymbolId);
    /// The sink as a bytes-only arena, if it is one: the rest of a draw can then be completed
    /// depth first (see `depth_first`).
    fn arena(&mut self) -> Option<&mut bytes::Arena> {
        None
    }
    /// Leaves the sink's buffers to the next draw (a draw given up).
    fn recycle(self, _spare: &mut Spare) {}
}

/// A tree being drawn: nodes made in the tree's arena but not linked yet. Linking a child adds
/// its bytes to every ancestor, so linking each child as it is made costs the tree's depth per
/// node, quadratic in the input for deep inputs (a 300 KB inverted json took 54 s). The links
/// are kept in the order the children were made and made at the end, last first: a node's
/// children are all made after it, so each is linked while its parent is still detached, and
/// linking costs one step.
struct Draft {
    tree: Tree,
    /// (child, parent) in the order the children were made, which is each parent's child order.
    links: Vec<(NodeId, NodeId)>,
}

impl Draft {
    /// Adds `child` as the next child of `parent`; returns its link's index.
    fn add(&mut self, parent: NodeId, child: NodeId) -> u32 {
        self.links.push((child, parent));
        (self.links.len() - 1) as u32
    }

    /// The finished tree: every link made, children before parents.
    fn link(self) -> Tree {
        let Draft { mut tree, links } = self;
        for &(child, parent) in links.iter().rev() {
            tree.prepend_child(parent, child);
        }
        tree
    }
}

impl Sink for Draft {
    fn start(grammar: &Grammar, sym: SymbolId, _spare: &mut Spare) -> Draft {
        Draft {
            tree: Tree::new(crate::tree::node_kind(grammar, sym, 0)),
            links: Vec::new(),
        }
    }

    fn root(&self) -> u32 {
        self.tree.root().0
    }

    fn chose(&mut self, node: u32, sym: SymbolId, alt: u32) {
        self.tree.set_kind(NodeId(node), NodeKind::Rule { symbol: sym, alt });
    }

    fn leaf(&mut self, parent: u32, t: TerminalId, bytes: &[u8], _literal: bool) {
        let leaf = self.tree.new_leaf(t, bytes);
        self.add(NodeId(parent), leaf);
    }

    fn node(&mut self, grammar: &Grammar, parent: u32, sym: SymbolId) -> (u32, u32) {
        let node = self.tree.new_node(crate::tree::node_kind(grammar, sym, 0));
        (node.0, self.add(NodeId(parent), node))
    }

    fn close(&mut self, grammar: &Grammar, _node: u32, link: u32, sym: SymbolId) {
        let closed = self
            .tree
            .add_cheapest(grammar, Item::Symbol(sym))
            .expect("loaded grammars are productive");
        if link == ROOT {
            self.tree.replace(self.tree.root(), closed);
        } else {
            self.links[link as usize].0 = closed;
        }
    }
}

/// What generation hands out: a derivation tree, or only its bytes (for grammars whose drawn
/// trees need nothing over their whole, see [`Generator::input`]).
trait Drawn: Sized {
    /// What a draw builds.
    type Sink: Sink;
    /// A sample being partly redrawn.
    type Edit<'p>: Edit<Self>;
    /// The finished draw: linked and fixed over its whole ([`Generator::finish`]), or its bytes.
    fn finished(generator: &mut Generator<'_>, sink: Self::Sink) -> Self;
    /// Bytes.
    fn len(&self) -> usize;
    /// Makes room for separators by trimming layout (nothing to do without layout).
    fn trim(&mut self, grammar: &Grammar, limit: usize);
    /// Whether it is a sample (whose bytes are `bytes`) unchanged.
    fn same_as(&self, bytes: &[u8]) -> bool;
    /// `sample` (planned as `plan`), ready to have subtrees replaced.
    fn edit<'p>(sample: &'p Tree, plan: &'p Plan) -> Self::Edit<'p>;
}

/// A sample whose subtrees (nodes numbered in pre-order, as in its [`Plan`]) are being replaced.
trait Edit<D> {
    /// Bytes now.
    fn len(&self) -> usize;
    /// Bytes of the subtree of `node` now (it may hold replaced subtrees).
    fn len_of(&self, node: u32) -> usize;
    /// Replaces the subtree of `node` (not inside a replaced one) by `fresh`.
    fn replace(&mut self, node: u32, fresh: D);
    /// The edited sample, fixed over its whole and trimmed to `limit` as a drawn one.
    fn done(self, generator: &mut Generator<'_>, limit: usize) -> D;
}

impl Drawn for Tree {
    type Sink = Draft;
    type Edit<'p> = TreeEdit;

    fn finished(generator: &mut Generator<'_>, sink: Draft) -> Tree {
        let mut tree = sink.link();
        generator.finish(&mut tree);
        tree
    }

    fn len(&self) -> usize {
        Tree::len(self)
    }

    fn trim(&mut self, grammar: &Grammar, limit: usize) {
        crate::tree::trim_layout(grammar, self, limit);
    }

    fn same_as(&self, bytes: &[u8]) -> bool {
        Tree::len(self) == bytes.len() && self.unparse() == bytes
    }

    fn edit<'p>(sample: &'p Tree, _plan: &'p Plan) -> TreeEdit {
        let tree = sample.compact();
        let mut ids = Vec::with_capacity(tree.count());
        tree.pre_order(tree.root(), |n| ids.push(n));
        TreeEdit { tree, ids }
    }
}

/// A copy of a sample whose subtrees are being replaced, and its nodes by pre-order number.
struct TreeEdit {
    tree: Tree,
    ids: Vec<NodeId>,
}

impl Edit<Tree> for TreeEdit {
    fn len(&self) -> usize {
        self.tree.len()
    }

    fn len_of(&self, node: u32) -> usize {
        self.tree.len_of(self.ids[node as usize])
    }

    fn replace(&mut self, node: u32, fresh: Tree) {
        let grafted = self.tree.graft(&fresh, fresh.root());
        self.tree.replace(self.ids[node as usize], grafted);
    }

    fn done(self, generator: &mut Generator<'_>, limit: usize) -> Tree {
        let mut tree = self.tree;
        generator.finish(&mut tree);
        if tree.len() > limit {
            crate::tree::trim_layout(generator.grammar, &mut tree, limit);
        }
        tree
    }
}

/// A sample's tree as redrawing needs it, computed once per sample: its nodes numbered in
/// pre-order (a subtree is a range of numbers), their subtree sizes and byte spans.
struct Plan {
    /// Nodes in the subtree of each node, itself included.
    counts: Vec<u32>,
    /// Where each node's bytes start in `bytes`, and how many there are.
    spans: Vec<(u32, u32)>,
    /// The rule nodes other than the root, in pre-order, with their symbols: what may be redrawn.
    rules: Vec<(u32, SymbolId)>,
    /// The sample's bytes.
    bytes: Vec<u8>,
}

impl Plan {
    fn new(sample: &Tree) -> Plan {
        let mut order = Vec::new();
        sample.pre_order(sample.root(), |n| order.push(n));
        let mut index = vec![0u32; order.iter().map(|n| n.0 as usize + 1).max().unwrap_or(0)];
        for (i, n) in order.iter().enumerate() {
            index[n.0 as usize] = i as u32;
        }
        let mut counts = vec![1u32; order.len()];
        for &n in order.iter().rev() {
            if let Some(p) = sample.parent(n) {
                counts[index[p.0 as usize] as usize] += counts[index[n.0 as usize] as usize];
            }
        }
        // Pre-order visits a node's bytes before its later siblings': a running offset over the
        // leaves gives every node's start.
        let mut spans = Vec::with_capacity(order.len());
        let mut at = 0u32;
        for &n in &order {
            let len = sample.len_of(n) as u32;
            spans.push((at, len));
            if sample.kind(n).symbol().is_none() {
                at += len;
            }
        }
        let rules = order
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n != sample.root())
            .filter_map(|(i, &n)| sample.kind(n).symbol().map(|s| (i as u32, s)))
            .collect();
        Plan {
            counts,
            spans,
            rules,
            bytes: sample.unparse(),
        }
    }
}

impl<'a> Generator<'a> {
    /// A generator for `grammar` choosing by `probs`, seeded with `seed`. Limits beyond what
    /// a tree holds are lowered to [`MAX_SIZE_LIMIT`]; a start symbol whose cheapest derivation
    /// is longer than `max_size` gives that derivation. [`Generator::checked`] refuses both.
    pub fn new(grammar: &'a Grammar, probs: &'a Probabilities, mut limits: Limits, seed: u64) -> Generator<'a> {
        limits.max_size = limits.max_size.min(MAX_SIZE_LIMIT);
        limits.min_size = limits.min_size.min(MAX_SIZE_LIMIT);
        Generator {
            grammar,
            base: probs,
            probs,
            ascii: ascii_draw(ascii_share(probs.mode)),
            ascii_part: None,
            limits,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            grows: &grammar.analysis().reaches_recursion,
            targets: &[],
            clipped: false,
            bytes_only: grammar.boundaries().layout_repeats().is_empty()
                && grammar.distinct().is_empty()
                && grammar.refer().is_empty()
                && grammar.values().is_empty()
                && !grammar.has_never(),
            plans: Vec::new(),
            options: Vec::new(),
            spare: Spare::default(),
            frames: Vec::new(),
            words: Words::default(),
            token_rules: if grammar.has_never() {
                crate::tree::TokenRules::new(grammar)
            } else {
                crate::tree::TokenRules::default()
            },
            never_depth: 0,
            #[cfg(test)]
            completions: [0; 3],
        }
    }

    /// [`Generator::new`] for limits that every input can keep to (see [`Limits::check`]): an
    /// error, before anything is generated, if the grammar's smallest input is larger than
    /// `max_size` or `max_size` is beyond [`MAX_SIZE_LIMIT`].
    pub fn checked(
        grammar: &'a Grammar,
        probs: &'a Probabilities,
        limits: Limits,
        seed: u64,
    ) -> Result<Generator<'a>, GenerateError> {
        limits.check(grammar)?;
        Ok(Generator::new(grammar, probs, limits, seed))
    }

    /// Each input (of [`Generator::tree`] and [`Generator::input`]) draws one of `targets`
    /// and follows it. A target with its sample's tree (no larger than `max_size`) gives that
    /// tree partly redrawn (see [`REDRAWN_SHARE`]). Otherwise its probabilities and ASCII share
    /// replace the generator's, and its size
    /// (capped at `max_size`) replaces the limits: it is the budget, and the input is drawn
    /// without a grow phase until it has at least half of it (at most 20 draws; the last one
    /// grows to half of it). [`Generator::tree_of`] is not affected.
    pub fn with_targets(mut self, targets: &'a [Target]) -> Generator<'a> {
        self.targets = targets;
        self.plans = std::iter::repeat_with(|| None).take(targets.len()).collect();
        self
    }

    /// Shares `words` (the `%values` words parsed as their rules) with the other generators
    /// given it, which must draw from the same grammar: generators drawing in parallel then
    /// compile each rule's parser once. The inputs drawn are the same as without it.
    pub fn with_words(mut self, words: &Words) -> Generator<'a> {
        self.words = words.clone();
        self
    }

    /// One derivation tree of the start symbol.
    pub fn tree(&mut self) -> Tree {
        self.whole()
    }

    /// One input: the bytes of what [`Generator::tree`] would give at this point, the same for
    /// the same seed. For grammars whose drawn trees need nothing over their whole (no layout,
    /// `%distinct`, `%refer` or `%values`: json, expr) no tree is built, which is several times faster.
    pub fn input(&mut self) -> Vec<u8> {
        if self.bytes_only {
            self.whole()
        } else {
            self.whole::<Tree>().unparse()
        }
    }

    /// One input of the start symbol as a tree or bytes (see [`Generator::tree`]).
    fn whole<D: Drawn>(&mut self) -> D {
        let start = self.grammar.start();
        let targets = self.targets;
        if targets.is_empty() {
            return self.drawn_of(start);
        }
        let full = self.limits;
        let which = self.rng.random_range(0..targets.len());
        let target = &targets[which];
        let size = target.size.min(full.max_size);
        self.probs = &target.probs;
        self.ascii = ascii_draw(target.ascii_share);
        self.ascii_part = Some(ascii_draw(target.ascii_share));
        if let Some(sample) = target.tree.as_ref().filter(|t| t.len() <= full.max_size) {
            let plan = match self.plans[which].take() {
                Some(plan) => plan,
                None => Plan::new(sample),
            };
            // A small sample may come back unchanged (`{}`, `0`): that is no new input.
            let mut drawn: D = self.redraw(sample, &plan, full.max_size);
            for _ in 1..REDRAW_TRIES {
                if !drawn.same_as(&plan.bytes) {
                    break;
                }
                drawn = self.redraw(sample, &plan, full.max_size);
            }
            self.plans[which] = Some(plan);
            self.follow_base();
            return drawn;
        }
        // The target's size is the budget. Drawn without a grow phase, an input keeps the
        // sample's structure (a bare scalar stays possible, nesting is not forced); one that
        // ends below half of the target is drawn again, and after TARGET_TRIES such draws the
        // grow phase makes the last one reach it.
        self.limits.max_size = size;
        self.limits.min_size = 0;
        let mut drawn = None;
        for _ in 0..TARGET_TRIES {
            let t: D = self.drawn_of(start);
            if t.len() >= size / 2 {
                drawn = Some(t);
                break;
            }
        }
        let drawn = drawn.unwrap_or_else(|| {
            self.limits.min_size = size / 2;
            self.drawn_of(start)
        });
        self.limits = full;
        self.follow_base();
        drawn
    }

    /// Back to the generator's own probabilities and ASCII share after an input that followed
    /// a target.
    fn follow_base(&mut self) {
        self.probs = self.base;
        self.ascii = ascii_draw(ascii_share(self.base.mode));
        self.ascii_part = None;
    }

    /// `sample` with subtrees holding about [`REDRAWN_SHARE`] of its nodes drawn anew, each
    /// by the current probabilities within [`REDRAW_BUDGET`] times the replaced subtree's size
    /// (a subtree larger than what is left to redraw is passed over, so small and large parts
    /// change); names and token boundaries are fixed over the whole as in a drawn tree. A
    /// replacement that would take the input past `limit` bytes is not made.
    fn redraw<D: Drawn>(&mut self, sample: &Tree, plan: &Plan, limit: usize) -> D {
        let mut edit = D::edit(sample, plan);
        let full = self.limits;
        let counts = &plan.counts;
        let mut left = (counts.len() as f64 * REDRAWN_SHARE).ceil() as usize;
        // Each rule node is considered once; the nodes of a replaced subtree are dead.
        let mut nodes = plan.rules.clone();
        let mut dead = vec![false; counts.len()];
        while left > 0 && !nodes.is_empty() {
            let (node, sym) = nodes.swap_remove(self.rng.random_range(0..nodes.len()));
            let count = counts[node as usize] as usize;
            if dead[node as usize] || count > left {
                continue;
            }
            let len = edit.len_of(node);
            // A replacement of about the subtree's size that the probabilities produced by
            // themselves: a draw that ran into its budget was cut short by cheapest closings
            // (`{}`, `""`), which the samples do not have as often.
            self.limits.max_size = len.saturating_mul(REDRAW_BUDGET);
            self.limits.min_size = 0;
            // Nodes in proportion too: a draw per replaced subtree, each with the whole
            // input's node budget, would let a sample's tree grow by that budget many times.
            self.limits.max_nodes = node_budget(self.limits.max_size).min(full.max_nodes);
            // Where the budget rules out one of the first choice's ways whatever is drawn,
            // every draw is clipped and would be drawn again to the last: the first is as good.
            let tries = if self.first_choice_restricted(sym) {
                1
            } else {
                REDRAW_TRIES
            };
            let mut fresh = None;
            for k in 1..=tries {
                // A clipped draw is drawn again unless it is the last: it is not needed.
                let drawn = if k < tries {
                    self.draw_unless_clipped::<D>(sym)
                } else {
                    Some(self.draw(sym))
                };
                if let Some(d) = drawn.filter(|d| k == tries || (!self.clipped && d.len() >= len / 2)) {
                    fresh = Some(d);
                    break;
                }
            }
            let fresh = fresh.expect("the last try is taken");
            self.limits = full;
            if edit.len() - len + fresh.len() > limit {
                continue;
            }
            // A subtree is a range of pre-order numbers.
            dead[node as usize..node as usize + count].fill(true);
            edit.replace(node, fresh);
            left = left.saturating_sub(count);
        }
        edit.done(self, limit)
    }

    /// One derivation tree of `sym`, at most `max_size` bytes (or `sym`'s cheapest derivation,
    /// if that is longer).
    pub fn tree_of(&mut self, sym: SymbolId) -> Tree {
        self.drawn_of(sym)
    }

    /// The bytes of what [`Generator::tree_of`] would give at this point (drawn without a tree
    /// where the grammar allows, as [`Generator::input`]).
    pub fn bytes_of(&mut self, sym: SymbolId) -> Vec<u8> {
        if self.bytes_only {
            self.drawn_of(sym)
        } else {
            self.drawn_of::<Tree>(sym).unparse()
        }
    }

    /// [`Generator::tree_of`] as a tree or bytes.
    fn drawn_of<D: Drawn>(&mut self, sym: SymbolId) -> D {
        // Separators put between tokens that would run together are not in the size estimate.
        // Where they push the tree past `max_size`, layout (whitespace, comments) makes room
        // first; failing that, the tree is drawn again with the overshoot taken off the budget.
        let limit = self.limits.max_size.max(self.grammar.cheapest_len(sym) as usize);
        let full = self.limits;
        let mut drawn: D = self.draw(sym);
        for attempt in 0.. {
            let over = drawn.len().saturating_sub(limit);
            // Trimming tries one layout lexeme at a time on a copy of the whole tree, so it
            // costs the tree's size per byte over: quadratic when the overshoot grows with the
            // tree (a 100 KB sql input is some 7 KB of separators over; trimming took 13 s).
            // Large overshoots are drawn again instead, with a margin.
            let trim = over > 0 && over.saturating_mul(drawn.len()) <= TRIM_WORK;
            if trim {
                drawn.trim(self.grammar, limit);
            }
            if drawn.len() <= limit || self.limits.max_size == 0 {
                break;
            }
            let over = drawn.len() - limit;
            self.limits.max_size = if attempt >= REDRAWS_OVER {
                // Halving ends the loop after a few more draws, which together cost no more than
                // one more draw of the full size; a draw of budget 0 is the cheapest derivation.
                self.limits.max_size / 2
            } else if trim {
                self.limits.max_size.saturating_sub(over.max(8))
            } else {
                // The next draw has about as many separators per byte: a quarter more than this
                // overshoot lands it below the limit without trimming.
                self.limits.max_size.saturating_sub(over + over / 4)
            };
            self.limits.min_size = self.limits.min_size.min(self.limits.max_size / 2);
            // Not two trees of the full size at once: the one that was too large goes first.
            drop(drawn);
            drawn = self.draw(sym);
        }
        self.limits = full;
        drawn
    }

    /// Whether the limits rule out a way of the first choice of every draw of `sym` (a way the
    /// probabilities give a chance): every draw is then clipped (see [`Generator::pick`]).
    fn first_choice_restricted(&self, sym: SymbolId) -> bool {
        let g = self.grammar;
        let a = g.analysis();
        // The first expansion is the root's, with nothing else open: its estimate is the
        // root's cheapest derivation, and the root's node is the only one besides.
        let (max_size, max_nodes) = (
            self.limits.max_size.max(g.cheapest_len(sym) as usize) as u64,
            self.limits.max_nodes.max(item_nodes(g, Item::Symbol(sym))) as u64,
        );
        let p = self.probs.of(sym);
        // A decision on one more `item` (an optional item, or a first iteration) weighing
        // `more`, where one more cannot fit beside the root's cheapest derivation.
        let one_more_ruled_out = |item: Item, more: f64| {
            more > 0.0
                && (g.cheapest_len(sym).saturating_add(g.item_cheapest_len(item)) > max_size
                    || (item_nodes(g, Item::Symbol(sym)) as u64).saturating_add(item_nodes(g, item) as u64) > max_nodes)
        };
        match &g.symbol(sym).body {
            Body::Choice(_) => a.alt_cheapest[sym.index()].iter().enumerate().any(|(k, c)| {
                p.get(k).copied().unwrap_or(1.0) > 0.0 && (c.bytes > max_size || c.nodes.saturating_add(1) > max_nodes)
            }),
            Body::Optional(item) => one_more_ruled_out(*item, p.get(1).copied().unwrap_or(1.0)),
            // Without a minimum, the first decision on one more iteration is the first choice,
            // made as an optional item's (layout of no bytes: `ws` redrawn within 0 bytes). With
            // one, it comes after the minimum's characters, which may fall short of their cheapest.
            Body::Repeat { item, min: 0, max } => {
                max.is_none_or(|m| m > 0) && one_more_ruled_out(*item, self.stop_more(sym, NO_PLACE).1)
            }
            Body::Repeat { .. } => false,
        }
    }

    /// One derivation tree (or its bytes) of `sym`, token boundaries fixed.
    fn draw<D: Drawn>(&mut self, sym: SymbolId) -> D {
        let sink = self
            .draw_into::<D::Sink>(sym, false)
            .expect("draws that are not discarded end");
        D::finished(self, sink)
    }

    /// [`Generator::draw`], or `None` (and `clipped`) where the draw is sure to be clipped and
    /// it is cheaper to know that than to draw it (what the caller then draws again is the same
    /// as if this had been drawn).
    fn draw_unless_clipped<D: Drawn>(&mut self, sym: SymbolId) -> Option<D> {
        let sink = self.draw_into::<D::Sink>(sym, true)?;
        Some(D::finished(self, sink))
    }

    /// Draws `sym` into a sink.
    ///
    /// Every step costs the same whatever the tree's size or depth (no walk over the tree or
    /// the open nodes), so drawing is linear in the tree; a tree's nodes are linked at the end
    /// (see [`Draft`]).
    fn draw_into<S: Sink>(&mut self, sym: SymbolId, discard_clipped: bool) -> Option<S> {
        let g = self.grammar;
        let mut sink = S::start(g, sym, &mut self.spare);
        let mut open = Frontier {
            open: std::mem::take(&mut self.spare.open),
            growing: 0,
        };
        open.open.clear();
        // Two numbers per draw whichever way it is drawn: the root's stream and the order's.
        let root = SplitMix64::seed_from_u64(self.rng.next_u64());
        let mut order = SplitMix64::seed_from_u64(self.rng.next_u64());
        open.push(
            self.grows,
            Open {
                node: sink.root(),
                sym,
                place: NO_PLACE,
                iterations: None,
                link: ROOT,
                stream: root,
            },
        );
        // Bytes and nodes of the tree if every open node were closed now by its cheapest
        // derivation: exact, and never past the limits, since every choice that would take
        // them past is ruled out and closing (stop, absent, the cheapest alternative) never
        // adds to them. The cheapest derivation always fits: over a limit it would still be
        // drawn, but no choice would fit and `pick` would fall back to the first alternative,
        // not the cheapest.
        let mut t = Tally {
            estimate: g.cheapest_len(sym) as usize,
            nodes: item_nodes(g, Item::Symbol(sym)),
            max_size: self.limits.max_size.max(g.cheapest_len(sym) as usize),
            max_nodes: self.limits.max_nodes.max(item_nodes(g, Item::Symbol(sym))),
        };
        let mut expansions = 0;
        let mut options = std::mem::take(&mut self.options);
        self.clipped = false;
        let mut depth_first = true;
        while !open.is_empty() && expansions < self.limits.max_expansions {
            // Past the grow phase, the rest is drawn depth first when that gives what PTC2's
            // order would (see `depth_first`); it is tried once, and not where the first choice
            // is restricted (PTC2's own draw then).
            if depth_first && t.estimate >= self.limits.min_size {
                depth_first = false;
                let arena = sink.arena().filter(|_| !self.first_choice_restricted(sym));
                if let Some(arena) = arena {
                    let completion = self.complete_depth_first(arena, &open.open, &t, expansions);
                    #[cfg(test)]
                    {
                        self.completions[completion as usize] += 1;
                    }
                    match completion {
                        Completion::Done => {
                            open.open.clear();
                            break;
                        }
                        Completion::Clipped if discard_clipped => {
                            self.clipped = true;
                            self.spare.open = open.open;
                            self.options = options;
                            sink.recycle(&mut self.spare);
                            return None;
                        }
                        Completion::Clipped | Completion::Undone => {}
                    }
                }
            }
            let mut o = open.take(self.grows, order.random_range(0..open.len()));
            let grow = t.estimate < self.limits.min_size && self.grows[o.sym.index()] && open.growing == 0;
            expansions += 1;
            let r = &mut o.stream;
            match &g.symbol(o.sym).body {
                Body::Choice(alts) => {
                    let base = t.estimate.saturating_sub(g.cheapest_len(o.sym) as usize);
                    // The node itself stays; its cheapest children go.
                    let base_nodes = t.nodes.saturating_sub(item_nodes(g, Item::Symbol(o.sym))) + 1;
                    let probs = self.probs.at(o.sym, o.place);
                    let costs = &g.analysis().alt_cheapest[o.sym.index()];
                    let most = g.analysis().alt_cheapest_max[o.sym.index()];
                    let fits = |bytes: u64, nodes: u64| {
                        base.saturating_add(usize::try_from(bytes).unwrap_or(usize::MAX)) <= t.max_size
                            && base_nodes.saturating_add(usize::try_from(nodes).unwrap_or(usize::MAX)) <= t.max_nodes
                    };
                    // Most choices are made with room for any alternative, where `pick` would
                    // allow them all: the same draw, without weighing each one.
                    let alt = if fits(most.bytes, most.nodes) && !(grow && most.grows) {
                        pick_any(r, probs, costs.len())
                    } else {
                        options.clear();
                        options.extend(
                            costs
                                .iter()
                                .enumerate()
                                .map(|(k, c)| (probs.get(k).copied().unwrap_or(1.0), fits(c.bytes, c.nodes), c.grows)),
                        );
                        self.pick(r, &options, grow)
                    };
                    sink.chose(o.node, o.sym, alt as u32);
                    let items = &alts[alt].items;
                    t.nodes = base_nodes.saturating_add(usize::try_from(costs[alt].nodes).unwrap_or(usize::MAX));
                    // Every item's cheapest cost is in the estimate while earlier items are added,
                    // so a character drawn for one of them cannot crowd out the later ones.
                    t.estimate = base + costs[alt].bytes as usize;
                    for (k, &item) in items.iter().enumerate() {
                        t.estimate -= g.item_cheapest_len(item) as usize;
                        t.estimate += self.add_child(
                            r,
                            &mut sink,
                            &mut open,
                            o.node,
                            (o.sym, alt as u32, k as u32),
                            item,
                            t.max_size.saturating_sub(t.estimate),
                        );
                    }
                }
                Body::Optional(item) => {
                    let p = self.probs.at(o.sym, o.place);
                    self.maybe_one_more(
                        r,
                        &mut sink,
                        &mut open,
                        o.node,
                        o.sym,
                        *item,
                        (p[0], p[1]),
                        grow,
                        &mut t,
                    );
                }
                Body::Repeat { item, min, max } => {
                    let mut done = o.iterations.unwrap_or(0);
                    if o.iterations.is_none() {
                        // The minimum is not a choice; its bytes and nodes are already in the
                        // estimates (the repetition's cheapest derivation).
                        for _ in 0..*min {
                            t.estimate -= g.item_cheapest_len(*item) as usize;
                            t.estimate += self.add_child(
                                r,
                                &mut sink,
                                &mut open,
                                o.node,
                                (o.sym, 0, 0),
                                *item,
                                t.max_size.saturating_sub(t.estimate),
                            );
                        }
                        done = *min;
                    }
                    if max.is_some_and(|m| done >= m) {
                        continue;
                    }
                    let stop_more = self.stop_more(o.sym, o.place);
                    if self.maybe_one_more(r, &mut sink, &mut open, o.node, o.sym, *item, stop_more, grow, &mut t) {
                        open.push(
                            self.grows,
                            Open {
                                iterations: Some(done + 1),
                                ..o
                            },
                        );
                    }
                }
            }
        }
        self.options = options;
        // Budget spent: close what is still open by its cheapest derivation (a repetition
        // started stops where it is, which the budget decided too).
        self.clipped |= !open.open.is_empty();
        for o in &open.open {
            if o.iterations.is_none() {
                sink.close(g, o.node, o.link, o.sym);
            }
        }
        self.spare.open = open.open;
        Some(sink)
    }

    /// Adds `item` once more as the next child of `node` (an optional item, or an iteration),
    /// or not, by the weights `(stop, more)` of the two ways and by the budget; whether it did.
    #[allow(clippy::too_many_arguments)]
    fn maybe_one_more<S: Sink>(
        &mut self,
        r: &mut SplitMix64,
        sink: &mut S,
        open: &mut Frontier,
        node: u32,
        sym: SymbolId,
        item: Item,
        (stop, more): (f64, f64),
        grow: bool,
        tally: &mut Tally,
    ) -> bool {
        let g = self.grammar;
        let cost = g.item_cheapest_len(item) as usize;
        let cost_nodes = item_nodes(g, item);
        let fits = tally.estimate + cost <= tally.max_size && tally.nodes.saturating_add(cost_nodes) <= tally.max_nodes;
        let grows = self.item_grows(item);
        // Both ways allowed (the grow phase restricts them only if one more grows): the same
        // pick without weighing each.
        let picked = if fits && !(grow && grows) {
            usize::from(pick_two(r, stop, more))
        } else {
            self.pick(r, &[(stop, true, false), (more, fits, grows)], grow)
        };
        if picked != 1 {
            return false;
        }
        tally.nodes = tally.nodes.saturating_add(cost_nodes);
        tally.estimate += self.add_child(
            r,
            sink,
            open,
            node,
            (sym, 0, 0),
            item,
            tally.max_size.saturating_sub(tally.estimate),
        );
        true
    }

    /// What a drawn (or partly redrawn) tree needs over its whole: names a scope declares made
    /// drawn from their words (`%values`), distinct (`%distinct`), references pointed at
    /// declared names (`%refer`), and tokens
    /// drawn independently that would run into each other (`a` `in`) separated.
    fn finish(&mut self, tree: &mut Tree) {
        let g = self.grammar;
        if g.has_never() {
            self.keep_never_apart(tree);
        }
        if !g.values().is_empty() {
            self.draw_values(tree);
        }
        if !g.distinct().is_empty() {
            self.make_distinct(tree);
        }
        if !g.refer().is_empty() {
            self.make_references(tree);
        }
        crate::tree::fix_boundaries(g, tree);
    }

    /// Draws again, within twice its size, a part of `tree` that holds one of two neighbouring
    /// tokens a `%never` pair forbids and not the other (the later's side first, then the
    /// earlier's, in turn; the token's own node first, then higher), until no pair is left or
    /// [`NEVER_REDRAWS`] parts are drawn. A pair no draw separates is left as it is: the
    /// grammar's own choices come first.
    fn keep_never_apart(&mut self, tree: &mut Tree) {
        if self.never_depth >= NEVER_DEPTH {
            return;
        }
        self.never_depth += 1;
        for attempt in 0..NEVER_REDRAWS {
            let text = tree.unparse();
            let tokens = crate::tree::tokens(&self.token_rules, tree);
            let Some(i) = crate::tree::never_violation(self.grammar, &tokens, &text) else {
                break;
            };
            let (a, b) = (tokens[i], tokens[i + 1]);
            let (before, after) = crate::tree::apart_sides(tree, &a, &b);
            // The later token's side first, then the earlier's, in turn; on each, the token's
            // own node first, a level higher every other attempt: the smallest part drawn
            // again keeps most of the input (and its places' own probabilities).
            let sides = [(b, after), (a, before)];
            let (token, top) = match sides[attempt % 2] {
                (_, None) => sides[(attempt + 1) % 2],
                side => side,
            };
            let Some(top) = top else {
                break;
            };
            let mut chain = Vec::new();
            let mut n = token.node;
            loop {
                if tree.kind(n).symbol().is_some() {
                    chain.push(n);
                }
                match tree.parent(n) {
                    Some(parent) if n != top => n = parent,
                    _ => break,
                }
            }
            let Some(&node) = chain.get((attempt / 2).min(chain.len().saturating_sub(1))) else {
                break;
            };
            let Some(sym) = tree.kind(node).symbol() else {
                break;
            };
            let full = self.limits;
            // Twice its size, so that a longer alternative than the one drawn fits.
            let len = tree.len_of(node);
            self.limits.max_size = len.max(self.grammar.cheapest_len(sym) as usize).saturating_mul(2);
            self.limits.min_size = 0;
            self.limits.max_nodes = node_budget(self.limits.max_size).min(full.max_nodes);
            let fresh: Tree = self.draw(sym);
            self.limits = full;
            let grafted = tree.graft(&fresh, fresh.root());
            tree.replace(node, grafted);
        }
        self.never_depth -= 1;
    }

    /// The weights of stopping a repetition of `sym` and of one more iteration (even, where
    /// the probabilities have none). PTC2 and the depth-first completion must weigh alike.
    fn stop_more(&self, sym: SymbolId, place: u32) -> (f64, f64) {
        match self.probs.at(sym, place) {
            &[stop, more] => (stop, more),
            _ => (0.5, 0.5),
        }
    }

    /// Whether expanding `item` can keep the input growing (a recursive symbol is reachable).
    fn item_grows(&self, item: Item) -> bool {
        matches!(item, Item::Symbol(s) if self.grows[s.index()])
    }

    /// Picks an option index by probability among feasible ones; in the grow phase only among
    /// growing ones if any is feasible. Zero total weight falls back to a uniform pick, and if no
    /// option is feasible, to the first (cheapest by construction for stop/absent).
    fn pick(&mut self, r: &mut SplitMix64, options: &[(f64, bool, bool)], grow: bool) -> usize {
        // This runs for every choice of every input: one pass for what is allowed, no list.
        let (mut clipped, mut any_growing, mut any_out) = (false, false, false);
        for &(p, fits, grows) in options {
            clipped |= !fits && p > 0.0;
            any_out |= !fits;
            any_growing |= fits && grows;
        }
        self.clipped |= clipped;
        let grow = grow && any_growing;
        let allowed = |&(_, fits, grows): &(f64, bool, bool)| fits && (!grow || grows);
        let (mut count, mut total, mut last) = (0usize, 0.0f64, 0usize);
        for (i, o) in options.iter().enumerate() {
            if allowed(o) {
                count += 1;
                total += o.0;
                last = i;
            }
        }
        if count == 0 {
            return 0;
        }
        if total <= 0.0 {
            // A uniform pick among fewer ways is a different pick.
            self.clipped |= any_out;
            let k = r.random_range(0..count);
            return (0..options.len())
                .filter(|&i| allowed(&options[i]))
                .nth(k)
                .expect("k < count");
        }
        let mut x = r.random::<f64>() * total;
        for (i, o) in options.iter().enumerate() {
            if allowed(o) {
                x -= o.0;
                if x < 0.0 {
                    return i;
                }
            }
        }
        last
    }
}

/// [`Generator::pick`] where every one of `n` options fits and the grow phase does not restrict
/// them (weights from `probs`, 1 past its end): the same sum in the same order and the same
/// draws, so the same pick.
fn pick_any(r: &mut SplitMix64, probs: &[f64], n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    let weight = |k: usize| probs.get(k).copied().unwrap_or(1.0);
    let total: f64 = (0..n).fold(0.0, |sum, k| sum + weight(k));
    if total <= 0.0 {
        return r.random_range(0..n);
    }
    let mut x = r.random::<f64>() * total;
    for k in 0..n {
        x -= weight(k);
        if x < 0.0 {
            return k;
        }
    }
    n - 1
}

/// [`pick_any`] between two ways weighing `stop` and `more`: whether it picks `more`. The
/// same sum and draws, so the same pick (a decision on one more is made for every character).
#[inline]
fn pick_two(r: &mut SplitMix64, stop: f64, more: f64) -> bool {
    let total = 0.0 + stop + more;
    if total <= 0.0 {
        return r.random_range(0..2usize) == 1;
    }
    let x = r.random::<f64>() * total - stop;
    // Past both weights (rounding), the last way, as in `pick_any`.
    x >= 0.0
}

impl Generator<'_> {
    /// Adds a child for `item` as the next child of `parent` (a node of `parent_sym`, which
    /// says whether a class is drawn as layout; `item` is item `k` of its alternative `alt`,
    /// the place that says how layout is drawn there): terminals get their bytes now,
    /// symbols become open nodes. `room` is what the limit leaves beside the estimate of
    /// everything but this item. Returns the bytes it adds (a symbol's cheapest derivation's).
    #[allow(clippy::too_many_arguments)]
    fn add_child<S: Sink>(
        &mut self,
        r: &mut SplitMix64,
        sink: &mut S,
        open: &mut Frontier,
        parent: u32,
        (parent_sym, alt, k): (SymbolId, u32, u32),
        item: Item,
        room: usize,
    ) -> usize {
        match item {
            Item::Terminal(t) => {
                let mut buf = [0; 4];
                let (bytes, literal): (&[u8], bool) = match self.grammar.terminal(t) {
                    Terminal::Literal(b) => (b, true),
                    Terminal::Class { class, .. } => {
                        let c = self.draw_char(t, class, parent_sym, r);
                        // A multi-byte character must not break the size limit (the draw ran
                        // into its budget).
                        let c = if c.len_utf8() > room {
                            self.clipped = true;
                            class.representative().unwrap_or(c)
                        } else {
                            c
                        };
                        (c.encode_utf8(&mut buf).as_bytes(), false)
                    }
                };
                sink.leaf(parent, t, bytes, literal);
                bytes.len()
            }
            Item::Symbol(s) => {
                let (node, link) = sink.node(self.grammar, parent, s);
                open.push(
                    self.grows,
                    Open {
                        node,
                        sym: s,
                        place: self.probs.place(parent_sym, alt, k),
                        iterations: None,
                        link,
                        stream: SplitMix64::seed_from_u64(r.next_u64()),
                    },
                );
                self.grammar.cheapest_len(s) as usize
            }
        }
    }
}

/// A draw's running estimate of its bytes and nodes (see [`Generator::draw_into`]) and their
/// limits.
struct Tally {
    estimate: usize,
    nodes: usize,
    max_size: usize,
    max_nodes: usize,
}

/// The open nodes of a tree being drawn, and how many of them can grow (have a symbol that
/// reaches a recursive one): the grow phase asks for that count at every step, and counting
/// them there would cost a walk over the open nodes per step.
#[derive(Default)]
struct Frontier {
    open: Vec<Open>,
    growing: usize,
}

impl Frontier {
    fn push(&mut self, grows: &[bool], o: Open) {
        self.growing += usize::from(grows[o.sym.index()]);
        self.open.push(o);
    }

    /// Removes and returns the open node at `index` (the last one takes its place).
    fn take(&mut self, grows: &[bool], index: usize) -> Open {
        let o = self.open.swap_remove(index);
        self.growing -= usize::from(grows[o.sym.index()]);
        o
    }

    fn len(&self) -> usize {
        self.open.len()
    }

    fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

/// Nodes of the cheapest derivation of `item` (a terminal is one leaf), saturating.
fn item_nodes(g: &Grammar, item: Item) -> usize {
    match item {
        Item::Terminal(_) => 1,
        Item::Symbol(s) => usize::try_from(g.analysis().cheapest_nodes[s.index()]).unwrap_or(usize::MAX),
    }
}

/// How often a character class yields an ASCII member (when it has any). Classes are not choice
/// points, so samples say nothing about them: "more of the same" stays mostly readable, inverted
/// output reaches into all of Unicode half of the time.
fn ascii_share(mode: ProbabilityMode) -> f64 {
    match mode {
        ProbabilityMode::Mined => 0.95,
        ProbabilityMode::Uniform => 0.75,
        ProbabilityMode::Inverted => 0.5,
    }
}

/// A random member of a class: with probability `ascii_share` a uniform pick from its ASCII part
/// (if it has one), otherwise a uniform pick from all its members.
/// A share outside 0 to 1 counts as the nearest of the two (not a number, as 0).
pub fn sample_class(class: &CharClass, ascii_share: f64, rng: &mut impl Rng) -> char {
    sample_member(class, &ascii_draw(ascii_share), rng)
}

/// [`sample_class`] with its ASCII share made a distribution once: a generator draws a
/// character for most bytes it writes, and `random_bool` makes the distribution at every call
/// (the same draws either way).
fn sample_member(class: &CharClass, ascii: &Bernoulli, rng: &mut impl Rng) -> char {
    let ascii_len = class.ascii_len();
    let n = if ascii_len > 0 && rng.sample(ascii) {
        rng.random_range(0..ascii_len)
    } else {
        rng.random_range(0..class.len())
    };
    class.nth(n).or_else(|| class.representative()).unwrap_or('?')
}

impl Generator<'_> {
    /// A member of class terminal `t` in a node of `parent`: by the samples' characters where
    /// they drew from it (mined or inverted per character; layout as mined, see
    /// [`Probabilities::chars_in`]), else [`sample_member`]'s uniform pick.
    #[inline]
    fn draw_char(&self, t: TerminalId, class: &CharClass, parent: SymbolId, r: &mut SplitMix64) -> char {
        match (self.probs.chars_in(t, parent), &self.ascii_part) {
            (None, _) => sample_member(class, &self.ascii, r),
            (Some(dist), Some(part)) if crate::mine::mixed(class) => {
                let ascii = r.sample(part);
                sample_part(dist, ascii, r).unwrap_or_else(|| sample_dist(class, dist, &self.ascii, r))
            }
            (Some(dist), _) => sample_dist(class, dist, &self.ascii, r),
        }
    }
}

/// A character `dist` lists, ASCII or not as `ascii` says, by the probabilities it gives them
/// (renormalized); `None` if it lists none of that part.
fn sample_part(dist: &CharDist, ascii: bool, rng: &mut impl Rng) -> Option<char> {
    let weight = |i: usize| dist.cumulative[i] - if i == 0 { 0.0 } else { dist.cumulative[i - 1] };
    let part = |i: &usize| dist.chars[*i].is_ascii() == ascii;
    let total: f64 = (0..dist.chars.len()).filter(part).map(weight).sum();
    if total <= 0.0 {
        return None;
    }
    let mut x = rng.random::<f64>() * total;
    let mut last = None;
    for i in (0..dist.chars.len()).filter(part) {
        x -= weight(i);
        last = Some(dist.chars[i]);
        if x < 0.0 {
            break;
        }
    }
    last
}

/// Tries at drawing a member that `dist` does not list, by [`sample_member`], before the first
/// unlisted member in order is taken: the listed ones are few beside most classes.
const UNLISTED_TRIES: usize = 16;

/// A member of `class` drawn by `dist`: a listed character by its probability, or with
/// probability `dist.rest` one of the others (ASCII first by `ascii`, as [`sample_member`]).
fn sample_dist(class: &CharClass, dist: &CharDist, ascii: &Bernoulli, rng: &mut impl Rng) -> char {
    let listed = dist.cumulative.last().copied().unwrap_or(0.0);
    let x = rng.random::<f64>() * (listed + dist.rest);
    if x < listed || dist.rest <= 0.0 {
        let i = dist
            .cumulative
            .partition_point(|&c| c <= x)
            .min(dist.chars.len().saturating_sub(1));
        if let Some(&c) = dist.chars.get(i) {
            return c;
        }
    }
    for _ in 0..UNLISTED_TRIES {
        let c = sample_member(class, ascii, rng);
        if !dist.lists(c) {
            return c;
        }
    }
    class
        .ranges()
        .iter()
        .flat_map(|&(lo, hi)| (lo..=hi).take(dist.chars.len() + 1))
        .filter_map(char::from_u32)
        .find(|&c| !dist.lists(c))
        .unwrap_or_else(|| sample_member(class, ascii, rng))
}

/// The distribution of [`sample_member`]'s choice of an ASCII member, for a share from
/// [`ascii_share`] or a [`Target`]'s (clamped to 0 to 1: a target's is public).
fn ascii_draw(share: f64) -> Bernoulli {
    let p = if share >= 0.0 { share.min(1.0) } else { 0.0 };
    Bernoulli::new(p).expect("0 to 1 is a probability")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs of json and expr that follow samples, or are drawn without a grow phase, are
    /// mostly completed depth first: the fast path is the one taken (that it gives what PTC2
    /// gives is `tests/generate.rs`'s `inputs_drawn_as_bytes_are_the_trees_of_the_same_draws`).
    #[test]
    fn inputs_without_a_grow_phase_are_mostly_drawn_depth_first() {
        for name in ["json", "expr"] {
            let g = Grammar::load(name).unwrap();
            let (trees, _) = crate::mine::samples::parse_builtin(&g, name);
            let model = crate::mine::samples::model_of(&g, &trees);
            let probs = Probabilities::new(&g, Some(&model), ProbabilityMode::Mined);
            let targets = targets_with_trees(&g, &model, trees);
            let mut limits = Limits::up_to(1000);
            limits.min_size = 0;
            for follow in [&targets[..], &[]] {
                let mut generator = Generator::new(&g, &probs, limits, 7).with_targets(follow);
                for _ in 0..200 {
                    generator.input();
                }
                let [done, undone, clipped] = generator.completions;
                let all = done + undone + clipped;
                assert!(all >= 200, "{name}: {all} completions tried");
                // Following samples, most draws are small redraws of a sample's subtrees in a
                // budget of a few times their size, which a draw often runs into (clipped) or
                // comes close enough to that some order could have (undone): 43 % (json) and
                // 21 % (expr) are done depth first. Drawn whole, 95 % and all.
                let share = if follow.is_empty() { 0.9 } else { 0.15 };
                assert!(
                    done as f64 >= share * all as f64,
                    "{name}: {done} of {all} done ({undone} undone)"
                );
            }
        }
    }

    /// What lets a redraw take the first draw where the first choice is restricted: every draw
    /// of such a symbol is clipped, whatever it draws. Checked on every symbol of four
    /// grammars at small budgets (where the restrictions are), with each kind of probabilities.
    #[test]
    fn a_restricted_first_choice_clips_every_draw() {
        for name in ["json", "expr", "toml", "js"] {
            let g = Grammar::load(name).unwrap();
            let (trees, _) = crate::mine::samples::parse_builtin(&g, name);
            let model = crate::mine::samples::model_of(&g, &trees);
            let mut restricted = 0;
            // Mined and inverted probabilities have ways of weight 0, which no budget restricts.
            for mode in [
                ProbabilityMode::Uniform,
                ProbabilityMode::Mined,
                ProbabilityMode::Inverted,
            ] {
                let probs = Probabilities::new(&g, Some(&model), mode);
                for max_size in [0, 1, 2, 3, 5, 8] {
                    let mut limits = Limits::up_to(max_size);
                    limits.min_size = 0;
                    let mut generator = Generator::new(&g, &probs, limits, max_size as u64);
                    for s in 0..g.symbols().len() {
                        let sym = SymbolId(s as u32);
                        if !generator.first_choice_restricted(sym) {
                            continue;
                        }
                        restricted += 1;
                        for _ in 0..10 {
                            let _: Tree = generator.draw(sym);
                            assert!(
                                generator.clipped,
                                "{name}: a draw of {} in {max_size} bytes was not clipped",
                                g.symbol(sym).name
                            );
                        }
                    }
                }
            }
            assert!(restricted > 0, "{name}: no restricted first choice met");
        }
    }

    proptest::proptest! {
        /// Where every option fits and the grow phase does not restrict them, `pick_any` picks
        /// what `pick` picks from the same random state (zero and missing weights included).
        #[test]
        fn pick_any_is_pick_with_every_option_allowed(
            weights in proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(0.0), 0.0f64..5.0], 1..8),
            n_extra in 0usize..3,
            grows in proptest::collection::vec(proptest::prelude::any::<bool>(), 11),
            seed in 0u64..1_000_000,
        ) {
            let g = Grammar::load("expr").unwrap();
            let probs = Probabilities::new(&g, None, ProbabilityMode::Uniform);
            let n = weights.len() + n_extra;
            // Past the weights' end an option weighs 1, as for a choice without probabilities.
            let options: Vec<(f64, bool, bool)> =
                (0..n).map(|k| (weights.get(k).copied().unwrap_or(1.0), true, grows[k])).collect();
            let mut a = Generator::new(&g, &probs, Limits::up_to(100), seed);
            let (mut ra, mut rb) = (SplitMix64::seed_from_u64(seed), SplitMix64::seed_from_u64(seed));
            for _ in 0..20 {
                // Not in the grow phase: `pick` allows every option.
                proptest::prop_assert_eq!(a.pick(&mut ra, &options, false), pick_any(&mut rb, &weights, n));
            }
        }
    }
}
