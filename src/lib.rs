//! hellfuzz: grammar-based companion for cargo-fuzz and afl.rs campaigns.
//!
//! The library is organized in the order data flows through it:
//!
//! | module | owns |
//! |---|---|
//! | [`files`] | writing files atomically (a utility every later module may use) |
//! | `pool` | one worker pool on crossbeam-channel for parallel oracle calls and reruns (a utility) |
//! | [`grammar`] | the grammar text format, its loader and diagnostics, the IR, and analyses |
//! | [`import`] | other grammar formats (tree-sitter's `grammar.json`) → our grammar text |
//! | [`parse`] | an Earley parser over bytes producing one derivation tree |
//! | [`tree`] | the derivation tree (arena), unparse, sizes, levels, contexts, cheap edits |
//! | [`mine`] | counts of every choice in parsed samples → a model; mined, inverted, uniform probabilities |
//! | [`generate`] | size-bounded probabilistic generation, seeded and reproducible; corpus output |
//! | [`oracle`] | "is this candidate still interesting?": in-process closure or subprocess; signatures; cache; keep-if filter |
//! | [`reduce`] | ddmin, HDD/HDD*, GTR/GTR* with grammar-aware templates and corpus filters |
//! | [`harness`] | fuzz-target wrappers (libFuzzer, AFL, plain): reduce-on-crash, reduce mode, mutator |
//! | [`triage`] | crash folders: rerun, group by signature, minimize, NEW/KNOWN/FIXED reports |
//!
//! Each module depends only on the modules above it. The `hellfuzz` command is built on this
//! library behind the default feature `cli`; a fuzz target depends on the library alone
//! (`default-features = false, features = ["libfuzzer"]`, or `"afl"`).
//!
//! # Load a grammar and parse
//!
//! A grammar is loaded by built-in name (json, expr, js, toml, css, sql, glsl) or from a file;
//! parsing gives a derivation tree that unparses to the same bytes:
//!
//! ```
//! use hellfuzz::{grammar::Grammar, parse::Parser};
//! let json = Grammar::load("json").unwrap();
//! let tree = Parser::new(&json).parse(br#"{"a": [1, 2.5e3, "x"]}"#).unwrap();
//! assert_eq!(tree.unparse(), br#"{"a": [1, 2.5e3, "x"]}"#);
//! ```
//!
//! # Mine samples, generate more of the same or inputs from hell
//!
//! Mining counts the choices the samples' trees make; generation follows the mined
//! probabilities, or with [`mine::ProbabilityMode::Inverted`] prefers what the samples rarely or never use.
//! Every generated input parses with the same grammar:
//!
//! ```
//! use hellfuzz::generate::{Generator, Limits};
//! use hellfuzz::mine::{samples, ProbabilityMode, Probabilities};
//! use hellfuzz::{grammar::Grammar, parse::Parser};
//! let json = Grammar::load("json").unwrap();
//! let parser = Parser::new(&json);
//! let sample = parser.parse(br#"{"name": "x", "tags": ["a", "b"]}"#).unwrap();
//! let model = samples::model_of(&json, &[sample]);
//! let from_hell = Probabilities::new(&json, Some(&model), ProbabilityMode::Inverted);
//! let mut generator = Generator::checked(&json, &from_hell, Limits::up_to(200), 7).unwrap();
//! for _ in 0..10 {
//!     let input = generator.input();
//!     assert!(input.len() <= 200);
//!     assert!(parser.parse(&input).is_ok());
//! }
//! ```
//!
//! # Reduce a failing input with an in-process oracle
//!
//! An oracle says whether a candidate still fails; a closure is one. With a grammar, GTR* works
//! on the derivation tree, so every candidate it tries is valid JSON:
//!
//! ```
//! use hellfuzz::grammar::Grammar;
//! use hellfuzz::oracle::Outcome;
//! use hellfuzz::reduce::{reduce, ReduceOptions};
//! let json = Grammar::load("json").unwrap();
//! // The "bug": any input holding the number 13.
//! let fails = |data: &[u8]| {
//!     if data.windows(2).any(|w| w == b"13") {
//!         Outcome::Fail
//!     } else {
//!         Outcome::Pass
//!     }
//! };
//! let input = br#"{"a": [1, 2, {"b": 13}], "c": "some long text"}"#;
//! let reduced = reduce(input, Some(&json), &fails, &ReduceOptions::default()).unwrap();
//! assert_eq!(reduced.input, b"13");
//! ```
//!
//! # A fuzz target
//!
//! [`fuzz_target!`] takes every form of libfuzzer-sys's macro, and a grammar. Built with the
//! feature `libfuzzer` (cargo-fuzz) or `afl`, a panic is minimized in-process with the target as
//! oracle and the grammar's reducer before the fuzzer saves the crash; built with neither, the
//! target is a plain binary that runs the files named on its command line:
//!
//! ```no_run
//! hellfuzz::fuzz_target!(grammar = "json", |data: &[u8]| {
//!     if let Ok(text) = std::str::from_utf8(data) {
//!         let _ = text.trim().parse::<f64>();
//!     }
//! });
//! ```

#![deny(missing_docs)]

pub mod files;
pub mod generate;
pub mod grammar;
pub mod harness;
pub mod import;
pub mod mine;
pub mod oracle;
pub mod parse;
mod pool;
pub mod reduce;
pub mod refine;
pub mod tree;
pub mod triage;

pub use harness::corpus::Corpus;

/// What the macros expand to; not an API. `arbitrary` is re-exported so that a typed target
/// needs no dependency beyond the user's own `arbitrary` (the same 1.x crate, hence trait).
#[doc(hidden)]
pub mod __private {
    pub use crate::harness::typed::{run_typed, show_typed};
    pub use arbitrary;
}
