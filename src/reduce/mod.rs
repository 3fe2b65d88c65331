//! Reduction: ddmin, HDD/HDD*, GTR/GTR* over derivation trees, and the default pipeline.
//!
//! [`reduce`] takes an input that fails, an [`Oracle`] and [`ReduceOptions`], and returns the smallest
//! failing input it finds: GTR* on the input's derivation tree, then ddmin over its characters,
//! so the result is 1-transformation-minimal in the tree and 1-minimal in bytes. Without a
//! grammar, or for inputs it cannot parse, GTR runs on a generic tree of the text (`generic`:
//! tokens, bracket groups, lines, indented blocks), and the [`Reduction`] says so.
//!
//! Map: `labeled` (the tree interface, Definition 3.1), `derivation` (derivation trees behind it),
//! `generic` (the grammar-free tree), `templates`, `corpus` (learned filters), `gtr`
//! (Algorithms 4–6), `ddmin`, `tester` (budget), `ddmax` and `repair` (input repair: the largest
//! passing subset, lexical or syntactic), `deepen` (a minimized stack overflow made deeper).

mod corpus;
pub mod ddmax;
pub mod ddmin;
pub mod deepen;
mod derivation;
pub mod generic;
pub mod gtr;
mod labeled;
mod passes;
pub mod repair;
mod runs;
mod stats;
pub mod templates;
mod tester;

use std::time::Instant;

pub use corpus::CorpusFilter;
pub use derivation::Derivation;
pub use labeled::{Edit, Edits, ReducibleTree};
pub use passes::{simplify, Pass, PAIR_LIMIT};
pub use stats::ReductionStats;
pub use tester::{confirm, Budget, Confirmation, Tester, CONFIRM_RUNS};

use crate::grammar::Grammar;
use crate::oracle::{Cached, Oracle, Outcome};
use crate::parse::Parser;
use templates::{Cheapest, GrammarDeletion, GrammarSubstitute, Template};

/// Which reduction algorithm to run on the tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Algorithm {
    /// GTR repeated until nothing changes (Algorithm 6): the default.
    #[default]
    #[serde(rename = "gtr*")]
    GtrStar,
    /// One GTR pass (Algorithm 4).
    #[serde(rename = "gtr")]
    Gtr,
    /// HDD* (GTR* with deletion only).
    #[serde(rename = "hdd*")]
    HddStar,
    /// HDD (GTR with deletion only).
    #[serde(rename = "hdd")]
    Hdd,
    /// Delta debugging on the characters (bytes if not UTF-8) only.
    #[serde(rename = "ddmin")]
    Ddmin,
}

impl Algorithm {
    /// An algorithm by its name (`gtr*`, `gtr`, `hdd*`, `hdd`, `ddmin`: the names of
    /// `hellfuzz reduce --algo` and `HELLFUZZ_REDUCE_ALGO`).
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Some(match name {
            "gtr*" => Algorithm::GtrStar,
            "gtr" => Algorithm::Gtr,
            "hdd*" => Algorithm::HddStar,
            "hdd" => Algorithm::Hdd,
            "ddmin" => Algorithm::Ddmin,
            _ => return None,
        })
    }

    /// The name as `--algo` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::GtrStar => "gtr*",
            Algorithm::Gtr => "gtr",
            Algorithm::HddStar => "hdd*",
            Algorithm::Hdd => "hdd",
            Algorithm::Ddmin => "ddmin",
        }
    }
}

/// Prints [`Algorithm::name`] (as records and messages spell it).
impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to reduce.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReduceOptions {
    /// The algorithm: a tree algorithm runs on the derivation tree, or on the generic tree of
    /// inputs without a grammar (or that do not parse); only [`Algorithm::Ddmin`] means ddmin.
    pub algorithm: Algorithm,
    /// After the tree algorithm, ddmin over the characters of what remains (default: on).
    pub byte_pass: bool,
    /// After deletion is exhausted, these simplification passes (default: [`Pass::DEFAULT`]),
    /// each followed by ddmin again when it changed something. Empty: none.
    pub passes: Vec<Pass>,
    /// Candidates tested at once (results equal the sequential ones).
    pub jobs: usize,
    /// Limits; when they run out, the best input so far is returned.
    pub budget: Budget,
    /// Extra pruning learned from a corpus of samples (optional): learned with the grammar, it
    /// prunes derivation trees; learned on generic trees, it prunes those.
    pub corpus: Option<CorpusFilter>,
}

impl Default for ReduceOptions {
    fn default() -> ReduceOptions {
        ReduceOptions {
            algorithm: Algorithm::GtrStar,
            byte_pass: true,
            passes: Pass::DEFAULT.to_vec(),
            jobs: 1,
            budget: Budget::default(),
            corpus: None,
        }
    }
}

/// The outcome of a reduction.
#[derive(Clone, Debug, serde::Serialize)]
#[non_exhaustive]
pub struct Reduction {
    /// The reduced input (it failed the oracle, and is never larger than the original).
    pub input: Vec<u8>,
    /// Size of the original input in bytes.
    pub original_size: usize,
    /// Whether the final input failed again when re-run without the cache. `false` means a
    /// flaky oracle: the result is still the best found, but it may not reproduce.
    pub confirmed: bool,
    /// What ran (the tree algorithm ran on the generic tree when there was no grammar or the
    /// input did not parse: the notes say so) and what it cost.
    #[serde(flatten)]
    pub stats: ReductionStats,
}

/// Why a reduction could not start.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReduceError {
    /// The input does not fail the oracle to begin with: there is nothing to keep while reducing.
    NotFailing(Outcome),
}

impl std::fmt::Display for ReduceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReduceError::NotFailing(outcome) => write!(
                f,
                "the input does not fail to begin with (the oracle says {outcome:?}); check the command and the failure condition"
            ),
        }
    }
}

impl std::error::Error for ReduceError {}

/// Reduces `input`, which must fail the oracle. With a grammar, the tree algorithm runs on its
/// derivation tree; without one, or if the input does not parse, on its generic tree.
pub fn reduce(
    input: &[u8],
    grammar: Option<&Grammar>,
    oracle: &dyn Oracle,
    options: &ReduceOptions,
) -> Result<Reduction, ReduceError> {
    reduce_with_progress(input, grammar, oracle, options, &|_| {})
}

/// Where a running reduction stands, reported after every test.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Progress {
    /// Candidates tested so far.
    pub tests: u64,
    /// Size of the smallest failing input seen (the original's size until one is found).
    pub best: usize,
    /// Real oracle runs so far.
    pub oracle_calls: u64,
    /// Candidates answered by the cache so far.
    pub cache_hits: u64,
}

/// [`reduce`], calling `progress` after every test.
pub fn reduce_with_progress(
    input: &[u8],
    grammar: Option<&Grammar>,
    oracle: &dyn Oracle,
    options: &ReduceOptions,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Reduction, ReduceError> {
    let started = Instant::now();
    let cached = Cached::new(ByRef(oracle));
    let report = |tests: u64, best: usize| {
        let stats = cached.stats();
        let best = if best == usize::MAX { input.len() } else { best };
        progress(&Progress {
            tests,
            best,
            oracle_calls: stats.calls,
            cache_hits: stats.cache_hits,
        });
    };
    let tester = Tester::new(&cached, options.budget.clone(), options.jobs).with_progress(&report);
    match tester.test(input) {
        Outcome::Fail => {}
        other => return Err(ReduceError::NotFailing(other)),
    }
    let mut notes = Vec::new();
    let algorithm = options.algorithm;
    let mut current = input.to_vec();
    if algorithm != Algorithm::Ddmin {
        let generic = |notes: &mut Vec<String>, why: String| {
            notes.push(format!(
                "{why}: reduced with {} on a generic tree of the text (tokens, bracket groups, lines, indented blocks)",
                algorithm.name()
            ));
            generic::reduce_generic(input, algorithm, options.corpus.as_ref(), &tester)
        };
        current = match grammar {
            None => generic(&mut notes, "no grammar given".to_string()),
            Some(g) => match Parser::new(g).parse(input) {
                Ok(tree) => {
                    let mut d = Derivation::new(g, tree);
                    let corpus = options.corpus.as_ref().filter(|c| !c.is_generic());
                    reduce_tree(&mut d, algorithm, corpus, &tester);
                    d.unparse()
                }
                Err(e) => generic(
                    &mut notes,
                    format!(
                        "the input does not parse with {} ({}:{}: {})",
                        g.origin(),
                        e.line,
                        e.col,
                        e
                    ),
                ),
            },
        };
    }
    if algorithm == Algorithm::Ddmin || options.byte_pass {
        current = ddmin::ddmin_bytes(&current, &tester);
    }
    if !options.passes.is_empty() {
        current = passes::simplify(&current, input, &options.passes, &tester);
    }
    // Confirmed by the oracle itself, not the cache: a flaky oracle shows here.
    let check = tester::confirm(oracle, &current, Outcome::Fail, tester::CONFIRM_RUNS);
    let confirmed = check.held;
    let stats = cached.stats();
    if !confirmed {
        notes.push("the reduced input did not fail again when re-run: the oracle is flaky".to_string());
    }
    Ok(Reduction {
        original_size: input.len(),
        input: current,
        confirmed,
        stats: ReductionStats {
            algorithm,
            tests: tester.tests(),
            oracle_calls: stats.calls + check.runs,
            cache_hits: stats.cache_hits,
            time: started.elapsed(),
            budget_exhausted: tester.exhausted(),
            notes,
        },
    })
}

/// Lets a borrowed `dyn Oracle` be cached (the cache owns what it wraps).
struct ByRef<'a>(&'a dyn Oracle);

impl Oracle for ByRef<'_> {
    fn test(&self, input: &[u8]) -> Outcome {
        self.0.test(input)
    }
}

/// Runs a tree algorithm on a derivation tree with the grammar-aware templates: deletion,
/// substitute-by-descendant and cheapest derivation for GTR, deletion only for HDD.
pub fn reduce_tree(d: &mut Derivation<'_>, algorithm: Algorithm, corpus: Option<&CorpusFilter>, tester: &Tester<'_>) {
    let deletion = GrammarDeletion { filter: corpus };
    let substitute = GrammarSubstitute { filter: corpus };
    let gtr_templates: [&dyn Template<Derivation<'_>>; 3] = [&deletion, &substitute, &Cheapest];
    let hdd_templates: [&dyn Template<Derivation<'_>>; 1] = [&deletion];
    match algorithm {
        Algorithm::GtrStar => gtr::gtr_star(d, &gtr_templates, tester),
        Algorithm::Gtr => gtr::gtr(d, &gtr_templates, tester),
        Algorithm::HddStar => gtr::gtr_star(d, &hdd_templates, tester),
        Algorithm::Hdd => gtr::gtr(d, &hdd_templates, tester),
        Algorithm::Ddmin => {}
    }
}

#[cfg(test)]
mod tests;
