//! The subcommands' glue: each reads its arguments' files, calls the library, and prints.
//!
//! `common` (grammar and input loading), `grammar` (check, parse), `seeds` (mine, gen, dict),
//! `reduce` (reduce), `repair` (repair), `triage` (triage).

pub mod common;
pub mod grammar;
pub mod reduce;
pub mod repair;
pub mod seeds;
pub mod triage;
