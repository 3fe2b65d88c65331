//! hellfuzz: grammar-based companion for cargo-fuzz and afl.rs campaigns.
//!
//! The library is organized in the order data flows through it:
//!
//! | module | owns |
//! |---|---|
//! | [`files`] | writing files atomically (a utility every later module may use) |
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
//! Each module depends only on the modules above it. Start with [`grammar::Grammar::load`] and
//! [`parse::Parser`]:
//!
//! ```
//! use hellfuzz::{grammar::Grammar, parse::Parser};
//! let json = Grammar::load("json").unwrap();
//! let tree = Parser::new(&json).parse(br#"{"a": [1, 2.5e3, "x"]}"#).unwrap();
//! assert_eq!(tree.unparse(), br#"{"a": [1, 2.5e3, "x"]}"#);
//! ```

pub mod files;
pub mod generate;
pub mod grammar;
pub mod harness;
pub mod import;
pub mod mine;
pub mod oracle;
pub mod parse;
pub mod reduce;
pub mod tree;
pub mod triage;

pub use harness::Corpus;

/// What the macros expand to; not an API. `arbitrary` is re-exported so that a typed target
/// needs no dependency beyond the user's own `arbitrary` (the same 1.x crate, hence trait).
#[doc(hidden)]
pub mod __private {
    pub use crate::harness::typed::{run_typed, show_typed};
    pub use arbitrary;
}
