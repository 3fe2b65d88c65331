//! Grammar-aware mutation for libFuzzer's custom-mutator hook: parse the input, then replace a
//! random subtree by a freshly generated one or by a subtree of the same symbol from another input.
//!
//! Map: [`Mutator`] (the mutation itself, independent of libFuzzer, tested here) ·
//! `SharedMutator` (the process-wide one `fuzz_mutator!` uses, with libFuzzer's own mutation as
//! fallback for inputs that do not parse).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::generate::{Generator, Limits};
use crate::grammar::Grammar;
use crate::mine::{samples::mine_builtin, Mode, Model, Probabilities};
use crate::parse::Parser;
use crate::tree::{NodeId, NodeKind, Tree};

/// Inputs kept for splicing: recent parsed inputs, so splices draw from the live corpus.
const POOL_SIZE: usize = 32;
/// Attempts at a mutation that fits `max_size` before giving up.
const ATTEMPTS: usize = 4;

/// What a mutation did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MutationKind {
    /// A subtree was replaced by one generated with the mined ("more of the same") model.
    Regenerated,
    /// A subtree was replaced by one generated with the inverted model (inputs from hell).
    RegeneratedInverted,
    /// A subtree was replaced by a subtree of the same symbol from another input.
    Spliced,
}

/// Mutates inputs of one grammar. Deterministic for a given sequence of calls and seeds.
pub struct Mutator {
    parser: Parser,
    mined: Probabilities,
    inverted: Probabilities,
    /// Which models regeneration uses (`None`: both, half the time each).
    mode: Option<Mode>,
    pool: Vec<Tree>,
    next_slot: usize,
}

impl Mutator {
    /// A mutator for `grammar`, with probabilities mined from `model` (for a built-in grammar,
    /// see [`Mutator::for_builtin`]). `mode` picks the model for regeneration: `Mined`, `Inverted`,
    /// or `None` for both in turn; `Uniform` ignores the model.
    pub fn new(grammar: &Grammar, model: Option<&Model>, mode: Option<Mode>) -> Mutator {
        let (mined, inverted) = match mode {
            Some(Mode::Uniform) => {
                let uniform = Probabilities::new(grammar, None, Mode::Uniform);
                (uniform.clone(), uniform)
            }
            _ => (
                Probabilities::new(grammar, model, Mode::Mined),
                Probabilities::new(grammar, model, Mode::Inverted),
            ),
        };
        Mutator {
            parser: Parser::new(grammar),
            mined,
            inverted,
            mode,
            pool: Vec::new(),
            next_slot: 0,
        }
    }

    /// A mutator whose model is mined from the built-in samples of the grammar called `name`
    /// (none for other grammars: then the grammar's own weights).
    pub fn for_builtin(grammar: &Grammar, name: &str, mode: Option<Mode>) -> Mutator {
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
        let tree = self.parser.parse(input).ok()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let nodes = inner_nodes(&tree);
        let mut result = None;
        for _ in 0..ATTEMPTS {
            let &node = nodes.get(rng.random_range(0..nodes.len().max(1)))?;
            let splice = !self.pool.is_empty() && rng.random_bool(0.5);
            let mutant = if splice {
                self.splice(&tree, node, &mut rng)
            } else {
                None
            };
            let mutant = match mutant {
                Some(m) => Some((m, MutationKind::Spliced)),
                None => self.regenerate(&tree, node, max_size, &mut rng),
            };
            if let Some((bytes, kind)) = mutant.filter(|(m, _)| m.len() <= max_size && m != input) {
                result = Some((bytes, kind));
                break;
            }
        }
        self.remember(tree);
        result
    }

    /// Replaces `node` by a fresh derivation of its symbol, sized to fit what `max_size` leaves.
    fn regenerate(
        &self,
        tree: &Tree,
        node: NodeId,
        max_size: usize,
        rng: &mut ChaCha8Rng,
    ) -> Option<(Vec<u8>, MutationKind)> {
        let symbol = tree.kind(node).symbol()?;
        let room = max_size.saturating_sub(tree.len() - tree.len_of(node));
        // Mostly near the old size, sometimes larger: growth is what byte mutation does poorly.
        let cap = room.min(2 * tree.len_of(node) + 64).max(1);
        let budget = rng.random_range(1..=cap);
        let inverted = match self.mode {
            Some(Mode::Inverted) => true,
            Some(_) => false,
            None => rng.random_bool(0.5),
        };
        let (probs, kind) = if inverted {
            (&self.inverted, MutationKind::RegeneratedInverted)
        } else {
            (&self.mined, MutationKind::Regenerated)
        };
        let fresh = Generator::new(self.grammar(), probs, Limits::up_to(budget), rng.random()).tree_of(symbol);
        Some((replaced(tree, node, &fresh, fresh.root()), kind))
    }

    /// Replaces `node` by a random subtree of the same symbol from an input in the pool.
    fn splice(&self, tree: &Tree, node: NodeId, rng: &mut ChaCha8Rng) -> Option<Vec<u8>> {
        let symbol = tree.kind(node).symbol()?;
        let donor = &self.pool[rng.random_range(0..self.pool.len())];
        let matches: Vec<NodeId> = inner_nodes(donor)
            .into_iter()
            .filter(|&n| donor.kind(n).symbol() == Some(symbol))
            .collect();
        let &pick = matches.get(rng.random_range(0..matches.len().max(1)))?;
        Some(replaced(tree, node, donor, pick))
    }

    fn remember(&mut self, tree: Tree) {
        if self.pool.len() < POOL_SIZE {
            self.pool.push(tree);
        } else {
            self.pool[self.next_slot] = tree;
            self.next_slot = (self.next_slot + 1) % POOL_SIZE;
        }
    }
}

/// Every node with a symbol (the subtrees a mutation may replace), in pre-order.
fn inner_nodes(tree: &Tree) -> Vec<NodeId> {
    let mut nodes = Vec::new();
    tree.pre_order(tree.root(), |n| {
        if !matches!(tree.kind(n), NodeKind::Leaf { .. }) {
            nodes.push(n);
        }
    });
    nodes
}

/// The bytes of `tree` with `node` replaced by `other`'s subtree at `replacement` (same symbol,
/// so the result is still a derivation of the grammar).
fn replaced(tree: &Tree, node: NodeId, other: &Tree, replacement: NodeId) -> Vec<u8> {
    let mut copy = tree.clone();
    let new = copy.graft(other, replacement);
    copy.replace(node, new);
    copy.unparse()
}

/// The process-wide mutator behind `fuzz_mutator!`: built on first use from the target's grammar;
/// inputs that do not parse get libFuzzer's own mutation.
#[cfg(feature = "libfuzzer")]
pub struct SharedMutator {
    target: super::Target,
    mutator: std::sync::OnceLock<Option<std::sync::Mutex<Mutator>>>,
    /// One call in `every` mutates the tree (`HELLFUZZ_MUTATOR_EVERY`, default 4); the others
    /// use libFuzzer's own, much cheaper mutation, so exec/s stays close to the plain target's.
    every: std::sync::OnceLock<u32>,
}

#[cfg(feature = "libfuzzer")]
impl SharedMutator {
    /// A mutator for the grammar from `source`.
    pub const fn new(source: super::GrammarSource) -> SharedMutator {
        SharedMutator {
            target: super::Target::new(source),
            mutator: std::sync::OnceLock::new(),
            every: std::sync::OnceLock::new(),
        }
    }

    /// libFuzzer's `LLVMFuzzerCustomMutator`: mutates `data[..size]` in place, returns the new size.
    pub fn mutate(&self, data: &mut [u8], size: usize, max_size: usize, seed: u32) -> usize {
        let mutator = self.mutator.get_or_init(|| {
            let grammar = self.target.grammar()?;
            let mode = match std::env::var("HELLFUZZ_MUTATOR").as_deref() {
                Ok("mined") => Some(Mode::Mined),
                Ok("inverted") => Some(Mode::Inverted),
                Ok("uniform") => Some(Mode::Uniform),
                _ => None,
            };
            let name = self.target.source().name().unwrap_or("");
            Some(std::sync::Mutex::new(Mutator::for_builtin(grammar, name, mode)))
        });
        let size = size.min(data.len());
        let max_size = max_size.min(data.len());
        let every = *self.every.get_or_init(|| {
            std::env::var("HELLFUZZ_MUTATOR_EVERY")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(4)
                .max(1)
        });
        if seed % every != 0 {
            return super::libfuzzer::fuzzer_mutate(data, size, max_size);
        }
        if let Some(m) = mutator {
            let mut m = m.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((bytes, _)) = m.mutate(&data[..size], max_size, u64::from(seed)) {
                data[..bytes.len()].copy_from_slice(&bytes);
                return bytes.len();
            }
        }
        super::libfuzzer::fuzzer_mutate(data, size, max_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(kinds.len(), 3, "all three kinds of mutation happen: {kinds:?}");
        assert!(declined < 15, "{declined} of 300 valid inputs got no mutation");
    }

    #[test]
    fn inputs_that_do_not_parse_are_left_to_the_fuzzer() {
        let expr = Grammar::load("expr").unwrap();
        let mut mutator = Mutator::for_builtin(&expr, "expr", Some(Mode::Inverted));
        assert!(mutator.mutate(b"1 + (", 100, 7).is_none());
        let (mutant, kind) = mutator.mutate(b"1 + (2 * 3)", 100, 7).unwrap();
        assert_eq!(kind, MutationKind::RegeneratedInverted);
        Parser::new(&expr).parse(&mutant).unwrap();
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
}
