//! Reduction without a grammar: a generic tree for any text, and the templates GTR uses on it.
//!
//! Map: `lexer` (tokens of any bytes), `build` (brackets, lines, blocks), `tree` ([`GenericTree`]:
//! the arena, a [`ReducibleTree`]), `templates` (delete, hoist, simplify literals); [`reduce_generic`]
//! (long runs of a repeated unit shortened by halves first, `reduce::runs`).

mod build;
pub mod lexer;
pub mod templates;
mod tree;

pub use tree::{GNode, GenericTree, Kind};

use super::corpus::CorpusFilter;
use super::gtr;
use super::labeled::ReducibleTree;
use super::templates::Template;
use super::tester::Tester;
use super::Algorithm;
use templates::{GenericDeletion, Hoist, Literals};

/// Reduces `input` (which fails) on its generic tree with `algorithm` (GTR*/GTR with all
/// templates, HDD*/HDD with deletion only; ddmin: unchanged) and returns the result's bytes.
/// `corpus` is used only if it was learned on generic trees.
pub fn reduce_generic(
    input: &[u8],
    algorithm: Algorithm,
    corpus: Option<&CorpusFilter>,
    tester: &Tester<'_>,
) -> Vec<u8> {
    if algorithm == Algorithm::Ddmin {
        return input.to_vec();
    }
    let filter = corpus.filter(|c| c.is_generic());
    // Deep nesting first, by halves: the tree of what is left is far smaller.
    let input = super::runs::shorten_runs(input, tester);
    let mut tree = GenericTree::parse(&input);
    let deletion = GenericDeletion { filter };
    let hoist = Hoist { filter };
    let (zero, one) = (Literals::ZERO, Literals::ONE);
    let all: [&dyn Template<GenericTree>; 4] = [&deletion, &hoist, &zero, &one];
    let delete_only: [&dyn Template<GenericTree>; 1] = [&deletion];
    match algorithm {
        Algorithm::GtrStar => gtr::gtr_star(&mut tree, &all, tester),
        Algorithm::Gtr => gtr::gtr(&mut tree, &all, tester),
        Algorithm::HddStar => gtr::gtr_star(&mut tree, &delete_only, tester),
        Algorithm::Hdd => gtr::gtr(&mut tree, &delete_only, tester),
        Algorithm::Ddmin => {}
    }
    tree.unparse()
}

#[cfg(test)]
mod reductions;
#[cfg(test)]
mod tests;
