//! Isolating the culprit of a rejected input: the smallest subtree whose replacement by a part
//! the samples have (or by the cheapest derivation) makes the user's parser accept the input.
//!
//! A hierarchical search over the derivation tree, as HDD over levels: from the root, descend
//! into the child whose replacement alone makes the input accepted, until none does.

use std::collections::{HashMap, HashSet};

use super::{place_of, Judge, Place, Verdict};
use crate::grammar::{Body, Grammar, Item, SymbolId, Terminal, TerminalId};
use crate::tree::{fix_boundaries, NodeId, NodeKind, Tree};

/// Oracle calls one isolation may make: a culprit deeper than this is not worth its time.
const MAX_CALLS: usize = 400;

/// Known-good parts kept per symbol, each of another shape: the smallest sample subtree of a
/// symbol may be valid only where it stands (Rust's `#[test]` is a whole declaration statement
/// in tree-sitter-rust, but needs an item after it), and the next one stands in for it.
pub(crate) const CANDIDATES: usize = 3;

/// Parts tried in turn where a node is replaced: the samples' [`CANDIDATES`], then the
/// cheapest derivation. A sample's part may be valid only where the samples use it (CSS's
/// smallest block holds declarations, which `@media` and `@scope` do not take), while the
/// cheapest (`{}`) is valid nearly everywhere.
pub(crate) const PARTS: usize = CANDIDATES + 1;

/// What the samples offer as known-good replacements: per symbol the smallest subtrees the
/// samples derive from it (one per shape, up to [`CANDIDATES`], smallest first), per class
/// terminal the character they draw from it most.
pub(crate) struct Good<'s> {
    trees: &'s [Tree],
    /// Per symbol, the one its parts are also filed under (see [`canonical`]).
    canon: Vec<SymbolId>,
    /// The parts by their own symbols and places.
    exact: Index,
    /// The parts by their canonical symbols and places: for a copy of a rule that the samples
    /// never use, the rule's parts elsewhere (the copy's own context comes first where the
    /// samples have it: a statement valid in a function body may be none at the top level).
    filed: Index,
}

/// [`Good`]'s parts under one kind of key.
#[derive(Default)]
struct Index {
    /// Per symbol, the smallest subtrees, one per shape, smallest first.
    smallest: HashMap<SymbolId, Vec<(usize, NodeId)>>,
    /// Per place in a rule, the smallest subtree the samples have there: what is valid at one
    /// place only (SQL's `NULL` after `IS`) is the first part tried there.
    at_place: HashMap<Place, (usize, NodeId)>,
    /// Per class terminal at a place of a rule, the character the samples draw most there.
    chars: HashMap<(Place, TerminalId), char>,
}

/// An [`Index`] being filled, one sample node at a time.
#[derive(Default)]
struct Filling {
    /// Per symbol and shape (the alternative taken, or how many iterations: none, one, more),
    /// the smallest subtree.
    shapes: HashMap<(SymbolId, u32), (usize, NodeId)>,
    at_place: HashMap<Place, (usize, NodeId)>,
    counts: HashMap<(Place, TerminalId, char), u64>,
}

impl Filling {
    /// Files node `n` of `trees[i]` under `sym`, its `shape` and `place` (as keyed).
    fn node(&mut self, trees: &[Tree], i: usize, n: NodeId, sym: SymbolId, shape: u32, place: Option<Place>) {
        let len = trees[i].len_of(n);
        let shorter = |at: Option<&(usize, NodeId)>| at.is_none_or(|&(t, m)| len < trees[t].len_of(m));
        if shorter(self.shapes.get(&(sym, shape))) {
            self.shapes.insert((sym, shape), (i, n));
        }
        if let Some(place) = place {
            if shorter(self.at_place.get(&place)) {
                self.at_place.insert(place, (i, n));
            }
        }
    }

    /// The index: per symbol its smallest parts, per class at a place its most drawn character.
    fn finish(self, trees: &[Tree]) -> Index {
        let mut smallest: HashMap<SymbolId, Vec<(usize, NodeId)>> = HashMap::new();
        for ((sym, _), at) in self.shapes {
            smallest.entry(sym).or_default().push(at);
        }
        for list in smallest.values_mut() {
            list.sort_by_key(|&(t, n)| (trees[t].len_of(n), t, n));
            list.truncate(CANDIDATES);
        }
        let mut chars: HashMap<(Place, TerminalId), (char, u64)> = HashMap::new();
        for ((p, t, c), n) in self.counts {
            let best = chars.entry((p, t)).or_insert((c, n));
            if n > best.1 || (n == best.1 && c < best.0) {
                *best = (c, n);
            }
        }
        Index {
            smallest,
            at_place: self.at_place,
            chars: chars.into_iter().map(|(k, (c, _))| (k, c)).collect(),
        }
    }
}

impl<'s> Good<'s> {
    /// Indexes the samples' trees (derivations of `grammar`), by their own symbols and places
    /// and by the canonical ones (see [`canonical`]).
    pub(crate) fn new(grammar: &Grammar, trees: &'s [Tree]) -> Good<'s> {
        let canon = canonical(grammar);
        let (mut exact, mut filed) = (Filling::default(), Filling::default());
        for (i, tree) in trees.iter().enumerate() {
            tree.pre_order(tree.root(), |n| {
                let place = place_of(grammar, tree, n);
                let canonical = place.map(|p| canonical_place(grammar, &canon, p));
                match tree.kind(n) {
                    NodeKind::Leaf { terminal } => {
                        if let (Some(c), Some(p), Some(q)) = (leaf_char(grammar, tree, n, terminal), place, canonical) {
                            *exact.counts.entry((p, terminal, c)).or_default() += 1;
                            *filed.counts.entry((q, terminal, c)).or_default() += 1;
                        }
                    }
                    kind => {
                        let sym = kind.symbol().expect("inner nodes have symbols");
                        let shape = match kind {
                            NodeKind::Rule { alt, .. } => alt,
                            _ => tree.child_count(n).min(2) as u32,
                        };
                        exact.node(trees, i, n, sym, shape, place);
                        filed.node(trees, i, n, canon[sym.index()], shape, canonical);
                    }
                }
            });
        }
        Good {
            trees,
            canon,
            exact: exact.finish(trees),
            filed: filed.finish(trees),
        }
    }

    /// The samples' `k`-th smallest subtree of `sym` (of a shape the smaller ones do not
    /// have), or the largest kept if there are fewer; where they have none of `sym` itself,
    /// of another instance of its rule; `None` if they derive neither.
    pub(crate) fn subtree(&self, sym: SymbolId, k: usize) -> Option<(&'s Tree, NodeId)> {
        let list = (self.exact.smallest.get(&sym)).or_else(|| self.filed.smallest.get(&self.canon[sym.index()]))?;
        list.get(k).or(list.last()).map(|&(t, n)| (&self.trees[t], n))
    }

    /// The `k`-th known-good part for a node of `sym` at `place`: first the samples' smallest
    /// subtree at that place (or, where they have none there, at the place that says the same
    /// in another instance of the rule), then [`Good::subtree`]'s.
    fn part_at(&self, g: &Grammar, sym: SymbolId, place: Option<Place>, k: usize) -> Option<(&'s Tree, NodeId)> {
        let here = place
            .and_then(|p| {
                (self.exact.at_place.get(&p)).or_else(|| self.filed.at_place.get(&canonical_place(g, &self.canon, p)))
            })
            .map(|&(t, n)| (&self.trees[t], n));
        match (here, k) {
            (Some(part), 0) => Some(part),
            (Some(_), k) => self.subtree(sym, k - 1),
            (None, k) => self.subtree(sym, k),
        }
    }

    /// The character the samples draw most from class `terminal` at `place` (or at the place
    /// that says the same in another instance of the rule).
    fn char_at(&self, g: &Grammar, place: Place, terminal: TerminalId) -> Option<char> {
        (self.exact.chars.get(&(place, terminal)))
            .or_else(|| {
                self.filed
                    .chars
                    .get(&(canonical_place(g, &self.canon, place), terminal))
            })
            .copied()
    }
}

/// The character a class leaf holds.
pub(crate) fn leaf_char(grammar: &Grammar, tree: &Tree, node: NodeId, t: TerminalId) -> Option<char> {
    match grammar.terminals().get(t.index())? {
        Terminal::Class { .. } => {
            crate::grammar::decode_utf8(tree.leaf_bytes(node)).and_then(|(c, _)| char::from_u32(c))
        }
        Terminal::Literal(_) => None,
    }
}

/// What replaces a node.
pub(crate) enum Replacement<'a> {
    /// A subtree of another tree (a sample's).
    Subtree(&'a Tree, NodeId),
    /// One character of a class terminal.
    Char(TerminalId, char),
    /// The cheapest derivation of the item.
    Cheapest(Item),
}

/// `tree` with `node` replaced by its `candidate` known-good part (see [`good_part`]), token
/// boundaries fixed; `None` where that is what the node already is.
pub(crate) fn with_good_part(
    grammar: &Grammar,
    tree: &Tree,
    node: NodeId,
    good: &Good<'_>,
    candidate: usize,
) -> Option<Tree> {
    with_part(grammar, tree, node, &good_part(grammar, tree, node, good, candidate)?)
}

/// [`with_good_part`] with a part the samples have (never the cheapest derivation, which may
/// be the very text whose validity is in question: SQL's `FILTER (WHERE a)`).
pub(crate) fn with_sample_part(
    grammar: &Grammar,
    tree: &Tree,
    node: NodeId,
    good: &Good<'_>,
    candidate: usize,
) -> Option<Tree> {
    match good_part(grammar, tree, node, good, candidate)? {
        Replacement::Cheapest(_) => None,
        with => with_part(grammar, tree, node, &with),
    }
}

/// [`with_children_replaced`] with the parts the samples have (see [`with_sample_part`]).
pub(crate) fn with_children_from_samples(
    grammar: &Grammar,
    tree: &Tree,
    node: NodeId,
    good: &Good<'_>,
    candidate: usize,
) -> Option<Tree> {
    children_replaced(tree, node, |t, c| with_sample_part(grammar, t, c, good, candidate))
}

/// `tree` with `node` replaced by `with`, token boundaries fixed.
fn with_part(grammar: &Grammar, tree: &Tree, node: NodeId, with: &Replacement<'_>) -> Option<Tree> {
    let (mut t, _) = grafted(grammar, tree, node, with)?;
    fix_boundaries(grammar, &mut t);
    Some(t)
}

/// `tree` with each child of `node` replaced by its `candidate` known-good part (see
/// [`with_good_part`]): `node`'s own choice kept, what it holds made known-good. `None` where
/// every child already is its part.
pub(crate) fn with_children_replaced(
    grammar: &Grammar,
    tree: &Tree,
    node: NodeId,
    good: &Good<'_>,
    candidate: usize,
) -> Option<Tree> {
    children_replaced(tree, node, |t, c| with_good_part(grammar, t, c, good, candidate))
}

/// `tree` with each child of `node` replaced by `part` in turn; `None` where none was.
fn children_replaced(tree: &Tree, node: NodeId, part: impl Fn(&Tree, NodeId) -> Option<Tree>) -> Option<Tree> {
    let mut out: Option<Tree> = None;
    for c in tree.children(node).collect::<Vec<_>>() {
        if let Some(t) = part(out.as_ref().unwrap_or(tree), c) {
            out = Some(t);
        }
    }
    out
}

/// `tree` with `node` replaced, token boundaries fixed, as bytes.
pub(crate) fn replaced(grammar: &Grammar, tree: &Tree, node: NodeId, with: &Replacement<'_>) -> Option<Vec<u8>> {
    with_part(grammar, tree, node, with).map(|t| t.unparse())
}

/// A copy of `tree` with `node` replaced by `with`, and the new node in it.
fn grafted(grammar: &Grammar, tree: &Tree, node: NodeId, with: &Replacement<'_>) -> Option<(Tree, NodeId)> {
    let mut t = tree.clone();
    let new = graft(grammar, &mut t, node, with)?;
    t.replace(node, new);
    Some((t, new))
}

/// A rejected input's culprit: a node whose own choice (its alternative, its iterations, its
/// character) is to blame, in a context where everything else was made acceptable.
pub(crate) struct Culprit {
    /// The rejected input's tree, with the parts after the culprit replaced by known-good ones
    /// where that was needed to isolate it: replacing the culprit as well makes it accepted.
    pub tree: Tree,
    /// The culprit node in it (never the root).
    pub node: NodeId,
    /// The input made smaller around the culprit (everything off the path from the root to it
    /// replaced by cheapest derivations), if that is still rejected; else the tree's input.
    pub input: Vec<u8>,
}

/// Finds the culprit of `tree` (an input `judge` rejected), or `None` if replacing the whole
/// input by a sample is not accepted either or the search runs out of calls.
///
/// Inverted inputs break the language in many places at once, so replacing one part at a
/// time never makes them accepted. The search therefore works on a prefix: at each node it
/// looks (by bisection) for the child `c_j` such that the input is accepted with `c_j` and
/// everything after it replaced by known-good parts, and rejected with only what comes after
/// `c_j` replaced. That child holds a culprit in a context that is otherwise accepted; the
/// parts after it stay replaced and the search goes on inside it. A node whose children, all
/// replaced, still leave the input rejected is the culprit itself.
pub(crate) fn isolate(grammar: &Grammar, tree: Tree, good: &Good<'_>, judge: &Judge<'_>) -> Option<Culprit> {
    let mut calls = 0;
    let mut accepted = |bytes: &[u8]| {
        calls += 1;
        (calls <= MAX_CALLS).then(|| judge.verdict(bytes) == Verdict::Accepted)
    };
    let mut work = tree;
    let root = work.root();
    if !(0..PARTS)
        .any(|k| replacement_of(grammar, &work, root, good, k).is_some_and(|bytes| accepted(&bytes) == Some(true)))
    {
        return None;
    }
    let mut node = root;
    // The parts to replace, in order: the node's children, or, where no known-good parts in
    // their place make the input accepted, the parts inside them (see [`FLATTEN`]).
    while let Some((children, removable, candidate)) = parts_to_replace(grammar, &work, node, good, &mut accepted) {
        let with_suffix_replaced = |w: &Tree, k: usize, candidate: usize| -> Option<Vec<u8>> {
            let mut t = w.clone();
            replace_after(grammar, &mut t, &children[k..], &removable, good, candidate)?;
            fix_boundaries(grammar, &mut t);
            Some(t.unparse())
        };
        // accepted at 0 replaced... rejected with none replaced (all k kept): bisect.
        let (mut lo, mut hi) = (0, children.len());
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if accepted(&with_suffix_replaced(&work, mid, candidate)?)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        // Child `hi - 1` (kept) with the ones after it replaced is rejected; replaced, accepted.
        let culprit_child = children[hi - 1];
        replace_after(grammar, &mut work, &children[hi..], &removable, good, candidate)?;
        node = culprit_child;
        if matches!(work.kind(node), NodeKind::Leaf { .. }) {
            break;
        }
    }
    if node == work.root() {
        return None;
    }
    fix_boundaries(grammar, &mut work);
    let input = minimized(grammar, &work, node)
        .filter(|small| judge.verdict(small) == Verdict::Rejected)
        .unwrap_or_else(|| work.unparse());
    Some(Culprit {
        tree: work,
        node,
        input,
    })
}

/// Levels below a node's children that isolation looks into when no known-good parts put in
/// the children's place make the input accepted: a part may hold two faults, each wrong only
/// where the part stands, so that every whole part the samples have is as wrong there (SQL's
/// `REPLACE … SET …` in a `WITH` query, where the samples' smallest insert is such a statement
/// too), while replacing the parts inside it, `REPLACE` and `SET` among them, is accepted.
const FLATTEN: usize = 3;

/// The parts under `node` whose replacement by known-good parts (the returned candidate's) makes
/// the input accepted, in order, with the ones that may be left out instead: `node`'s
/// children or, failing that, their children, up to [`FLATTEN`] levels down. `None` where no
/// level does (the node's own choice is to blame) or the calls run out.
fn parts_to_replace(
    grammar: &Grammar,
    work: &Tree,
    node: NodeId,
    good: &Good<'_>,
    accepted: &mut impl FnMut(&[u8]) -> Option<bool>,
) -> Option<(Vec<NodeId>, HashSet<NodeId>, usize)> {
    let mut frontier: Vec<NodeId> = work.children(node).collect();
    let mut removable = removable_after(grammar, work, node);
    for _ in 0..=FLATTEN {
        // Parts that some known-good part would change (one already like the first may be as
        // wrong there as it is, and the next part right).
        let parts: Vec<NodeId> = frontier
            .iter()
            .copied()
            .filter(|&c| (0..PARTS).any(|k| good_part(grammar, work, c, good, k).is_some()))
            .collect();
        // (None: what stands there is already the samples' first part, which may be as wrong
        // there as the rest; the parts inside it are still tried.)
        for candidate in (0..PARTS).filter(|_| !parts.is_empty()) {
            let mut t = work.clone();
            if replace_after(grammar, &mut t, &parts, &removable, good, candidate).is_none() {
                continue;
            }
            fix_boundaries(grammar, &mut t);
            if accepted(&t.unparse())? {
                return Some((parts, removable, candidate));
            }
        }
        let inner: Vec<NodeId> = frontier
            .iter()
            .flat_map(|&c| match work.kind(c) {
                // A rule of one alternative makes no choice of its own: what it holds is
                // tried instead. A choice stays a part, so that its own choice is replaced.
                NodeKind::Rule { symbol, .. } if grammar.symbol(symbol).alternatives().len() == 1 => {
                    work.children(c).collect()
                }
                _ => vec![c],
            })
            .collect();
        if inner == frontier {
            return None;
        }
        for &c in &frontier {
            removable.extend(removable_after(grammar, work, c));
        }
        frontier = inner;
    }
    None
}

/// Replaces each of `nodes` by its `candidate` known-good part, or leaves it out where it is
/// `removable`; `None` if a part cannot be grafted.
fn replace_after(
    grammar: &Grammar,
    tree: &mut Tree,
    nodes: &[NodeId],
    removable: &HashSet<NodeId>,
    good: &Good<'_>,
    candidate: usize,
) -> Option<()> {
    for &c in nodes {
        if removable.contains(&c) {
            tree.remove(c);
            continue;
        }
        // A child already like its candidate part stays as it is.
        let Some(with) = good_part(grammar, tree, c, good, candidate) else {
            continue;
        };
        let new = graft(grammar, tree, c, &with)?;
        tree.replace(c, new);
    }
    Some(())
}

/// In a repetition node, the children that may be left out together (the ones past the
/// repetition's minimum count); none for other nodes.
fn removable_after(grammar: &Grammar, tree: &Tree, node: NodeId) -> HashSet<NodeId> {
    let NodeKind::Repeat { symbol } = tree.kind(node) else {
        return HashSet::new();
    };
    let min = match grammar.symbol(symbol).body {
        crate::grammar::Body::Repeat { min, .. } => min as usize,
        _ => return HashSet::new(),
    };
    tree.children(node).skip(min).collect()
}

/// The known-good part for `node`: the samples' `candidate`-th part for its symbol at its
/// place (see [`Good::part_at`]; the cheapest derivation where the samples have none, or for
/// `candidate` [`CANDIDATES`], the last of the [`PARTS`]), the character the samples draw
/// most from a class leaf's class under the same parent; `None` where that is what the node
/// already is.
fn good_part<'g>(
    grammar: &Grammar,
    tree: &Tree,
    node: NodeId,
    good: &Good<'g>,
    candidate: usize,
) -> Option<Replacement<'g>> {
    match tree.kind(node) {
        NodeKind::Leaf { terminal } => {
            // Where the samples never drew this class at this place, the class's smallest
            // printable member: a digit drawn most in `\u00e9` is no safe part of `\U00xxxxxx`.
            let drawn = place_of(grammar, tree, node).and_then(|p| good.char_at(grammar, p, terminal));
            let c = match (drawn, grammar.terminal(terminal)) {
                (Some(c), _) => c,
                (None, Terminal::Class { class, .. }) => class.representative()?,
                (None, Terminal::Literal(_)) => return None,
            };
            (leaf_char(grammar, tree, node, terminal) != Some(c)).then_some(Replacement::Char(terminal, c))
        }
        kind => {
            let sym = kind.symbol().expect("inner nodes have symbols");
            let sample = if candidate < CANDIDATES {
                good.part_at(grammar, sym, place_of(grammar, tree, node), candidate)
            } else {
                None
            };
            match sample {
                Some((t, n)) if t.unparse_node(n) != tree.unparse_node(node) => Some(Replacement::Subtree(t, n)),
                Some(_) => None,
                None => {
                    let cheapest = Tree::cheapest(grammar, sym)?;
                    (cheapest.unparse() != tree.unparse_node(node)).then_some(Replacement::Cheapest(Item::Symbol(sym)))
                }
            }
        }
    }
}

/// Adds a replacement's nodes to `tree`, detached, for `node` (a subtree of another instance
/// of `node`'s rule relabeled as one of `node`'s symbol, see [`graft_as`]).
fn graft(grammar: &Grammar, tree: &mut Tree, node: NodeId, with: &Replacement<'_>) -> Option<NodeId> {
    Some(match *with {
        Replacement::Subtree(src, n) => match tree.kind(node).symbol() {
            Some(sym) => graft_as(grammar, tree, src, n, sym),
            None => tree.graft(src, n),
        },
        Replacement::Char(term, c) => tree.new_leaf(term, c.encode_utf8(&mut [0; 4]).as_bytes()),
        Replacement::Cheapest(item) => tree.add_cheapest(grammar, item)?,
    })
}

/// The input with `node` replaced by its known-good part (see [`good_part`]), as bytes.
fn replacement_of(grammar: &Grammar, tree: &Tree, node: NodeId, good: &Good<'_>, candidate: usize) -> Option<Vec<u8>> {
    let with = good_part(grammar, tree, node, good, candidate)?;
    replaced(grammar, tree, node, &with)
}

/// `tree` with every subtree off the path from the root to `node` replaced by its cheapest
/// derivation: the culprit in as little else as the grammar allows.
fn minimized(grammar: &Grammar, tree: &Tree, node: NodeId) -> Option<Vec<u8>> {
    around(grammar, tree.clone(), node, false)
}

/// `tree` with `node` replaced (as [`replaced`]), then with everything off the path from the
/// root to the new node made as small as the grammar allows, a repetition's other iterations
/// too (down to its minimum): a sample's whole text around a moved part would cost a parse of
/// the sample for every edit checked against it.
pub(crate) fn replaced_small(grammar: &Grammar, tree: &Tree, node: NodeId, with: &Replacement<'_>) -> Option<Vec<u8>> {
    let (t, new) = grafted(grammar, tree, node, with)?;
    around(grammar, t, new, true)
}

/// `t` with each subtree off the path from the root to `node` replaced by its cheapest
/// derivation, and, with `drop_iterations`, a repetition's iterations off the path dropped
/// down to its minimum (else they stay as they are), as bytes.
fn around(grammar: &Grammar, mut t: Tree, node: NodeId, drop_iterations: bool) -> Option<Vec<u8>> {
    let mut path = vec![node];
    while let Some(p) = t.parent(*path.last().expect("not empty")) {
        path.push(p);
    }
    for &on_path in path.iter().skip(1) {
        let siblings: Vec<NodeId> = t.children(on_path).filter(|c| !path.contains(c)).collect();
        if let NodeKind::Repeat { symbol } = t.kind(on_path) {
            // A repetition's extra iterations can go; everything else keeps its place.
            if drop_iterations {
                let min = match grammar.symbol(symbol).body {
                    Body::Repeat { min, .. } => min as usize,
                    _ => usize::MAX,
                };
                let mut count = t.child_count(on_path);
                for s in siblings {
                    if count <= min.max(1) {
                        break;
                    }
                    t.remove(s);
                    count -= 1;
                }
            }
            continue;
        }
        for s in siblings {
            let item = match t.kind(s) {
                NodeKind::Leaf { terminal } => Item::Terminal(terminal),
                kind => Item::Symbol(kind.symbol().expect("inner nodes have symbols")),
            };
            let new = t.add_cheapest(grammar, item)?;
            t.replace(s, new);
        }
    }
    fix_boundaries(grammar, &mut t);
    Some(t.unparse())
}

/// Steps of [`canonical`]'s walk through one copy: a bound on a walk that the shapes of
/// the copy's groups already bound.
const MAX_CANONICAL_STEPS: usize = 4096;

/// Per symbol, the symbol the samples' parts of it are filed under: for a copy of a rule made
/// for a context (`insert[in _insert_statement]`, see [`super::edit`]) the rule itself, and for
/// the copy's own groups the rule's groups that say the same. Copies are made for edits in
/// one context; the samples may have a rule's parts in its other contexts only, which are
/// the known-good parts there as well (after a copy of the insert statement made for `WITH`
/// queries, the samples' `INSERT INTO t VALUES …` is still the part to try in a `WITH`).
pub(crate) fn canonical(g: &Grammar) -> Vec<SymbolId> {
    let symbols = g.symbols();
    let mut canon: Vec<SymbolId> = (0..symbols.len()).map(|i| SymbolId(i as u32)).collect();
    let by_name: HashMap<&str, SymbolId> = symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.synthetic)
        .map(|(i, s)| (s.name.as_str(), SymbolId(i as u32)))
        .collect();
    for (i, s) in symbols.iter().enumerate() {
        if s.synthetic {
            continue;
        }
        let base = crate::grammar::base_name(&s.name);
        let Some(&rule) = by_name.get(base.as_str()) else {
            continue;
        };
        if rule.index() == i {
            continue;
        }
        canon[i] = rule;
        // The copy's groups, beside the rule's, where alternatives say the same.
        let mut todo = vec![(SymbolId(i as u32), rule)];
        let mut steps = 0;
        while let Some((x, y)) = todo.pop() {
            steps += 1;
            if steps > MAX_CANONICAL_STEPS {
                break;
            }
            let pairs: Vec<(Item, Item)> = match (&symbols[x.index()].body, &symbols[y.index()].body) {
                (Body::Choice(xs), Body::Choice(ys)) => xs
                    .iter()
                    .filter_map(|a| {
                        ys.iter()
                            .find(|b| crate::grammar::same_items(symbols, a, b))
                            .map(|b| (a, b))
                    })
                    .flat_map(|(a, b)| a.items.iter().copied().zip(b.items.iter().copied()))
                    .collect(),
                (Body::Repeat { item: p, .. }, Body::Repeat { item: q, .. })
                | (Body::Optional(p), Body::Optional(q)) => {
                    vec![(*p, *q)]
                }
                _ => Vec::new(),
            };
            for pair in pairs {
                if let (Item::Symbol(p), Item::Symbol(q)) = pair {
                    if p != q && symbols[p.index()].synthetic && symbols[q.index()].synthetic {
                        canon[p.index()] = canon[q.index()];
                        todo.push((p, q));
                    }
                }
            }
        }
    }
    canon
}

/// `place` as [`Good`] files it: in the canonical rule, at the alternative that says the same.
fn canonical_place(g: &Grammar, canon: &[SymbolId], place: Place) -> Place {
    let parent = canon[place.parent.index()];
    if parent == place.parent {
        return place;
    }
    let alt = match (place.alt, &g.symbol(place.parent).body, &g.symbol(parent).body) {
        (Some(a), Body::Choice(xs), Body::Choice(ys)) => {
            match xs
                .get(a)
                .and_then(|x| ys.iter().position(|y| crate::grammar::same_items(g.symbols(), x, y)))
            {
                Some(b) => Some(b),
                // The copy's alternative is its own: filed apart.
                None => return place,
            }
        }
        (alt, _, _) => alt,
    };
    Place {
        parent,
        alt,
        item: place.item,
    }
}

/// Grafts `src`'s subtree at `node` into `tree`, detached, as a derivation of `sym`: where
/// the subtree is of another instance of the same rule (a copy made for a context, or the
/// rule of which `sym` is a copy), each node is relabeled with the symbol and alternative
/// that say the same in `sym`'s derivation; where some node has no such counterpart, the
/// subtree is grafted as it is (its text is what the parser sees).
pub(crate) fn graft_as(g: &Grammar, tree: &mut Tree, src: &Tree, node: NodeId, sym: SymbolId) -> NodeId {
    let new = tree.graft(src, node);
    if src.kind(node).symbol() == Some(sym) {
        return new;
    }
    if let Some(kinds) = relabeled(g, tree, new, Item::Symbol(sym)) {
        for (n, kind) in kinds {
            tree.set_kind(n, kind);
        }
    }
    new
}

/// The new kinds of the nodes of the subtree at `node` as a derivation of `item` (see
/// [`graft_as`]); `None` where a node has no counterpart.
fn relabeled(g: &Grammar, tree: &Tree, node: NodeId, item: Item) -> Option<Vec<(NodeId, NodeKind)>> {
    let symbols = g.symbols();
    let mut out = Vec::new();
    // A worklist, not recursion: trees are as deep as their inputs.
    let mut todo = vec![(node, item)];
    while let Some((n, item)) = todo.pop() {
        let kind = tree.kind(n);
        let into = match item {
            Item::Terminal(t) => {
                if kind != (NodeKind::Leaf { terminal: t }) {
                    return None;
                }
                continue;
            }
            Item::Symbol(y) => y,
        };
        let from = kind.symbol()?;
        let children: Vec<NodeId> = tree.children(n).collect();
        let (new, items): (NodeKind, Vec<Item>) = match (kind, &symbols[into.index()].body) {
            (NodeKind::Rule { alt, .. }, Body::Choice(ys)) => {
                let x = symbols[from.index()].alternatives().get(alt as usize)?;
                let b = if from == into {
                    alt as usize
                } else {
                    ys.iter().position(|y| crate::grammar::same_items(symbols, x, y))?
                };
                (
                    NodeKind::Rule {
                        symbol: into,
                        alt: b as u32,
                    },
                    ys[b].items.clone(),
                )
            }
            (NodeKind::Repeat { .. }, &Body::Repeat { item, min, max }) => {
                let n = children.len();
                if n < min as usize || max.is_some_and(|max| n > max as usize) {
                    return None;
                }
                (NodeKind::Repeat { symbol: into }, vec![item; n])
            }
            (NodeKind::Optional { .. }, &Body::Optional(item)) => {
                (NodeKind::Optional { symbol: into }, vec![item; children.len()])
            }
            _ => return None,
        };
        if children.len() != items.len() {
            return None;
        }
        if new != kind {
            out.push((n, new));
        }
        todo.extend(children.into_iter().zip(items));
    }
    Some(out)
}
