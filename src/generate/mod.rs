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

mod corpus;
mod distinct;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use corpus::{Corpus, Written};

use crate::grammar::{Body, CharClass, Grammar, Item, SymbolId, Terminal};
use crate::mine::{Model, Probabilities, ProbabilityMode};
use crate::tree::{NodeId, NodeKind, Tree};

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
    /// The share of ASCII members drawn from mixed character classes for this input.
    ascii_share: f64,
    limits: Limits,
    rng: ChaCha8Rng,
    /// Per symbol: whether some derivation of it contains a recursive symbol (can grow).
    grows: &'a [bool],
    /// Targets that each input of the start symbol draws one of (empty: none).
    targets: &'a [Target],
    /// Whether the last draw ran into its budget (a way ruled out as too large, or open nodes
    /// closed by their cheapest derivation).
    clipped: bool,
}

/// A node waiting to be expanded.
#[derive(Clone, Copy)]
struct Open {
    node: NodeId,
    sym: SymbolId,
    /// For repetitions already started: iterations so far (`None`: not expanded yet).
    iterations: Option<u32>,
    /// Its entry in [`Draft::links`] ([`ROOT`] for the root, which has none).
    link: u32,
}

/// [`Open::link`] of the root.
const ROOT: u32 = u32::MAX;

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

    /// Puts `closed` (a detached subtree) where the open node of `link` was.
    fn close(&mut self, link: u32, closed: NodeId) {
        if link == ROOT {
            self.tree.replace(self.tree.root(), closed);
        } else {
            self.links[link as usize].0 = closed;
        }
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
            ascii_share: ascii_share(probs.mode),
            limits,
            rng: ChaCha8Rng::seed_from_u64(seed),
            grows: &grammar.analysis().reaches_recursion,
            targets: &[],
            clipped: false,
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
        self
    }

    /// One derivation tree of the start symbol.
    pub fn tree(&mut self) -> Tree {
        let start = self.grammar.start();
        let targets = self.targets;
        if targets.is_empty() {
            return self.tree_of(start);
        }
        let full = self.limits;
        let target = &targets[self.rng.random_range(0..targets.len())];
        let size = target.size.min(full.max_size);
        self.probs = &target.probs;
        self.ascii_share = target.ascii_share;
        if let Some(sample) = target.tree.as_ref().filter(|t| t.len() <= full.max_size) {
            // A small sample may come back unchanged (`{}`, `0`): that is no new input.
            let mut tree = self.redraw(sample, full.max_size);
            for _ in 1..REDRAW_TRIES {
                if tree.len() != sample.len() || tree.unparse() != sample.unparse() {
                    break;
                }
                tree = self.redraw(sample, full.max_size);
            }
            self.probs = self.base;
            self.ascii_share = ascii_share(self.base.mode);
            return tree;
        }
        // The target's size is the budget. Drawn without a grow phase, an input keeps the
        // sample's structure (a bare scalar stays possible, nesting is not forced); one that
        // ends below half of the target is drawn again, and after TARGET_TRIES such draws the
        // grow phase makes the last one reach it.
        self.limits.max_size = size;
        self.limits.min_size = 0;
        let mut tree = None;
        for _ in 0..TARGET_TRIES {
            let t = self.tree_of(start);
            if t.len() >= size / 2 {
                tree = Some(t);
                break;
            }
        }
        let tree = tree.unwrap_or_else(|| {
            self.limits.min_size = size / 2;
            self.tree_of(start)
        });
        self.limits = full;
        self.probs = self.base;
        self.ascii_share = ascii_share(self.base.mode);
        tree
    }

    /// `sample` with subtrees holding about [`REDRAWN_SHARE`] of its nodes drawn anew, each
    /// by the current probabilities within [`REDRAW_BUDGET`] times the replaced subtree's size
    /// (a subtree larger than what is left to redraw is passed over, so small and large parts
    /// change); names and token boundaries are fixed over the whole as in a drawn tree. A
    /// replacement that would take the input past `limit` bytes is not made.
    fn redraw(&mut self, sample: &Tree, limit: usize) -> Tree {
        let g = self.grammar;
        let mut tree = sample.compact();
        let full = self.limits;
        // The copy's nodes are numbered from 0 in pre-order (grafted ones come after them):
        // their subtree sizes in one pass, children before parents.
        let mut order = Vec::new();
        tree.pre_order(tree.root(), |n| order.push(n));
        let mut counts = vec![1usize; order.len()];
        for &n in order.iter().rev() {
            if let Some(p) = tree.parent(n) {
                counts[p.0 as usize] += counts[n.0 as usize];
            }
        }
        let mut left = (order.len() as f64 * REDRAWN_SHARE).ceil() as usize;
        // Each rule node is considered once; the nodes of a replaced subtree are dead.
        let mut nodes: Vec<NodeId> = order
            .into_iter()
            .filter(|&n| tree.kind(n).symbol().is_some() && n != tree.root())
            .collect();
        let mut dead = vec![false; counts.len()];
        while left > 0 && !nodes.is_empty() {
            let node = nodes.swap_remove(self.rng.random_range(0..nodes.len()));
            let count = counts[node.0 as usize];
            if dead[node.0 as usize] || count > left {
                continue;
            }
            let sym = tree.kind(node).symbol().expect("rule nodes only");
            let len = tree.len_of(node);
            // A replacement of about the subtree's size that the probabilities produced by
            // themselves: a draw that ran into its budget was cut short by cheapest closings
            // (`{}`, `""`), which the samples do not have as often.
            self.limits.max_size = len.saturating_mul(REDRAW_BUDGET);
            self.limits.min_size = 0;
            // Nodes in proportion too: a draw per replaced subtree, each with the whole
            // input's node budget, would let a sample's tree grow by that budget many times.
            self.limits.max_nodes = node_budget(self.limits.max_size).min(full.max_nodes);
            let mut fresh = self.draw(sym);
            for _ in 1..REDRAW_TRIES {
                if !self.clipped && fresh.len() >= len / 2 {
                    break;
                }
                fresh = self.draw(sym);
            }
            self.limits = full;
            if tree.len() - len + fresh.len() > limit {
                continue;
            }
            tree.pre_order(node, |n| {
                if let Some(d) = dead.get_mut(n.0 as usize) {
                    *d = true;
                }
            });
            let grafted = tree.graft(&fresh, fresh.root());
            tree.replace(node, grafted);
            left = left.saturating_sub(count);
        }
        self.finish(&mut tree);
        if tree.len() > limit {
            crate::tree::trim_layout(g, &mut tree, limit);
        }
        tree
    }

    /// One input (the unparsed tree of the start symbol).
    pub fn input(&mut self) -> Vec<u8> {
        self.tree().unparse()
    }

    /// One derivation tree of `sym`, at most `max_size` bytes (or `sym`'s cheapest derivation,
    /// if that is longer).
    pub fn tree_of(&mut self, sym: SymbolId) -> Tree {
        // Separators put between tokens that would run together are not in the size estimate.
        // Where they push the tree past `max_size`, layout (whitespace, comments) makes room
        // first; failing that, the tree is drawn again with the overshoot taken off the budget.
        let limit = self.limits.max_size.max(self.grammar.cheapest_len(sym) as usize);
        let full = self.limits;
        let mut tree = self.draw(sym);
        for attempt in 0.. {
            let over = tree.len().saturating_sub(limit);
            // Trimming tries one layout lexeme at a time on a copy of the whole tree, so it
            // costs the tree's size per byte over: quadratic when the overshoot grows with the
            // tree (a 100 KB sql input is some 7 KB of separators over; trimming took 13 s).
            // Large overshoots are drawn again instead, with a margin.
            let trim = over > 0 && over.saturating_mul(tree.len()) <= TRIM_WORK;
            if trim {
                crate::tree::trim_layout(self.grammar, &mut tree, limit);
            }
            if tree.len() <= limit || self.limits.max_size == 0 {
                break;
            }
            let over = tree.len() - limit;
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
            drop(tree);
            tree = self.draw(sym);
        }
        self.limits = full;
        tree
    }

    /// One derivation tree of `sym`, token boundaries fixed.
    ///
    /// Every step costs the same whatever the tree's size or depth (no walk over the tree or
    /// the open nodes), so drawing is linear in the tree; the tree's nodes are linked at the end
    /// (see [`Draft`]).
    fn draw(&mut self, sym: SymbolId) -> Tree {
        let g = self.grammar;
        // The cheapest derivation always fits: over a limit it would still be drawn, but no
        // choice would fit and `pick` would fall back to the first alternative, not the cheapest.
        let max_size = self.limits.max_size.max(g.cheapest_len(sym) as usize);
        let max_nodes = self.limits.max_nodes.max(item_nodes(g, Item::Symbol(sym)));
        let mut draft = Draft {
            tree: Tree::new(crate::tree::node_kind(g, sym, 0)),
            links: Vec::new(),
        };
        let mut open = Frontier::default();
        open.push(
            self.grows,
            Open {
                node: draft.tree.root(),
                sym,
                iterations: None,
                link: ROOT,
            },
        );
        // Bytes and nodes of the tree if every open node were closed now by its cheapest
        // derivation: exact, and never past the limits, since every choice that would take
        // them past is ruled out and closing (stop, absent, the cheapest alternative) never
        // adds to them.
        let mut estimate = g.cheapest_len(sym) as usize;
        let mut nodes = item_nodes(g, Item::Symbol(sym));
        let mut expansions = 0;
        self.clipped = false;
        while !open.is_empty() && expansions < self.limits.max_expansions {
            let o = open.take(self.grows, self.rng.random_range(0..open.len()));
            let grow = estimate < self.limits.min_size && self.grows[o.sym.index()] && open.growing == 0;
            expansions += 1;
            match &g.symbol(o.sym).body {
                Body::Choice(alts) => {
                    let base = estimate.saturating_sub(g.cheapest_len(o.sym) as usize);
                    // The node itself stays; its cheapest children go.
                    let base_nodes = nodes.saturating_sub(item_nodes(g, Item::Symbol(o.sym))) + 1;
                    let options: Vec<(f64, bool, bool)> = alts
                        .iter()
                        .enumerate()
                        .map(|(k, a)| {
                            let cost: u64 = a.items.iter().map(|&it| g.item_cheapest_len(it)).sum();
                            let cost_nodes = a
                                .items
                                .iter()
                                .fold(0usize, |n, &it| n.saturating_add(item_nodes(g, it)));
                            let p = self.probs.of(o.sym).get(k).copied().unwrap_or(1.0);
                            (
                                p,
                                base + cost as usize <= max_size && base_nodes.saturating_add(cost_nodes) <= max_nodes,
                                a.items.iter().any(|it| self.item_grows(*it)),
                            )
                        })
                        .collect();
                    let alt = self.pick(&options, grow);
                    draft.tree.set_kind(
                        o.node,
                        NodeKind::Rule {
                            symbol: o.sym,
                            alt: alt as u32,
                        },
                    );
                    let items = &alts[alt].items;
                    nodes = items
                        .iter()
                        .fold(base_nodes, |n, &it| n.saturating_add(item_nodes(g, it)));
                    // Every item's cheapest cost is in the estimate while earlier items are added,
                    // so a character drawn for one of them cannot crowd out the later ones.
                    estimate = base + items.iter().map(|&it| g.item_cheapest_len(it) as usize).sum::<usize>();
                    for &item in items {
                        estimate -= g.item_cheapest_len(item) as usize;
                        estimate +=
                            self.add_child(&mut draft, &mut open, o.node, item, max_size.saturating_sub(estimate));
                    }
                }
                Body::Optional(item) => {
                    let cost = g.item_cheapest_len(*item) as usize;
                    let cost_nodes = item_nodes(g, *item);
                    let p = self.probs.of(o.sym);
                    let options = [
                        (p[0], true, false),
                        (
                            p[1],
                            estimate + cost <= max_size && nodes.saturating_add(cost_nodes) <= max_nodes,
                            self.item_grows(*item),
                        ),
                    ];
                    if self.pick(&options, grow) == 1 {
                        nodes = nodes.saturating_add(cost_nodes);
                        estimate +=
                            self.add_child(&mut draft, &mut open, o.node, *item, max_size.saturating_sub(estimate));
                    }
                }
                Body::Repeat { item, min, max } => {
                    let mut done = o.iterations.unwrap_or(0);
                    if o.iterations.is_none() {
                        // The minimum is not a choice; its bytes and nodes are already in the
                        // estimates (the repetition's cheapest derivation).
                        for _ in 0..*min {
                            estimate -= g.item_cheapest_len(*item) as usize;
                            estimate +=
                                self.add_child(&mut draft, &mut open, o.node, *item, max_size.saturating_sub(estimate));
                        }
                        done = *min;
                    }
                    if max.is_some_and(|m| done >= m) {
                        continue;
                    }
                    let cost = g.item_cheapest_len(*item) as usize;
                    let cost_nodes = item_nodes(g, *item);
                    let p = self.probs.of(o.sym);
                    let (stop, more) = if p.len() == 2 { (p[0], p[1]) } else { (0.5, 0.5) };
                    let options = [
                        (stop, true, false),
                        (
                            more,
                            estimate + cost <= max_size && nodes.saturating_add(cost_nodes) <= max_nodes,
                            self.item_grows(*item),
                        ),
                    ];
                    if self.pick(&options, grow) == 1 {
                        nodes = nodes.saturating_add(cost_nodes);
                        estimate +=
                            self.add_child(&mut draft, &mut open, o.node, *item, max_size.saturating_sub(estimate));
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
        // Budget spent: close what is still open by its cheapest derivation.
        self.clipped |= open.open.iter().any(|o| o.iterations.is_none());
        for o in open.open {
            if o.iterations.is_none() {
                let closed = draft
                    .tree
                    .add_cheapest(g, Item::Symbol(o.sym))
                    .expect("loaded grammars are productive");
                draft.close(o.link, closed);
            }
        }
        let mut tree = draft.link();
        self.finish(&mut tree);
        tree
    }

    /// What a drawn (or partly redrawn) tree needs over its whole: names a scope declares made
    /// distinct (`%distinct`), references pointed at declared names (`%refer`), and tokens
    /// drawn independently that would run into each other (`a` `in`) separated.
    fn finish(&mut self, tree: &mut Tree) {
        let g = self.grammar;
        if !g.distinct().is_empty() {
            self.make_distinct(tree);
        }
        if !g.refer().is_empty() {
            self.make_references(tree);
        }
        crate::tree::fix_boundaries(g, tree);
    }

    /// Whether expanding `item` can keep the input growing (a recursive symbol is reachable).
    fn item_grows(&self, item: Item) -> bool {
        matches!(item, Item::Symbol(s) if self.grows[s.index()])
    }

    /// Picks an option index by probability among feasible ones; in the grow phase only among
    /// growing ones if any is feasible. Zero total weight falls back to a uniform pick, and if no
    /// option is feasible, to the first (cheapest by construction for stop/absent).
    fn pick(&mut self, options: &[(f64, bool, bool)], grow: bool) -> usize {
        self.clipped |= options.iter().any(|&(p, fits, _)| !fits && p > 0.0);
        let grow = grow && options.iter().any(|&(_, fits, grows)| fits && grows);
        let allowed: Vec<usize> = (0..options.len())
            .filter(|&i| options[i].1 && (!grow || options[i].2))
            .collect();
        if allowed.is_empty() {
            return 0;
        }
        let total: f64 = allowed.iter().map(|&i| options[i].0).sum();
        if total <= 0.0 {
            return allowed[self.rng.random_range(0..allowed.len())];
        }
        let mut r = self.rng.random::<f64>() * total;
        for &i in &allowed {
            r -= options[i].0;
            if r < 0.0 {
                return i;
            }
        }
        *allowed.last().expect("not empty")
    }

    /// Adds a child for `item` as the next child of `parent`: terminals get their bytes now,
    /// symbols become open nodes. `room` is what the limit leaves beside the estimate of
    /// everything but this item. Returns the bytes it adds (a symbol's cheapest derivation's).
    fn add_child(&mut self, draft: &mut Draft, open: &mut Frontier, parent: NodeId, item: Item, room: usize) -> usize {
        match item {
            Item::Terminal(t) => {
                let mut buf = [0; 4];
                let bytes: &[u8] = match self.grammar.terminal(t) {
                    Terminal::Literal(b) => b,
                    Terminal::Class { class, .. } => {
                        let c = sample_class(class, self.ascii_share, &mut self.rng);
                        // A multi-byte character must not break the size limit.
                        let c = if c.len_utf8() > room {
                            class.representative().unwrap_or(c)
                        } else {
                            c
                        };
                        c.encode_utf8(&mut buf).as_bytes()
                    }
                };
                let leaf = draft.tree.new_leaf(t, bytes);
                draft.add(parent, leaf);
                bytes.len()
            }
            Item::Symbol(s) => {
                let node = draft.tree.new_node(crate::tree::node_kind(self.grammar, s, 0));
                let link = draft.add(parent, node);
                open.push(
                    self.grows,
                    Open {
                        node,
                        sym: s,
                        iterations: None,
                        link,
                    },
                );
                self.grammar.cheapest_len(s) as usize
            }
        }
    }
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
pub fn sample_class(class: &CharClass, ascii_share: f64, rng: &mut impl Rng) -> char {
    let ascii: u64 = class
        .ranges()
        .iter()
        .filter(|r| r.0 < 128)
        .map(|&(lo, hi)| (hi.min(127) - lo) as u64 + 1)
        .sum();
    let n = if ascii > 0 && rng.random_bool(ascii_share) {
        rng.random_range(0..ascii)
    } else {
        rng.random_range(0..class.len())
    };
    class.nth(n).or_else(|| class.representative()).unwrap_or('?')
}
