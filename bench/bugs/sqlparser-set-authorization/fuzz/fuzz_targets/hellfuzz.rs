//! (H): the same call as `plain` behind hellfuzz's wrapper (crashes minimized with the grammar,
//! continue mode), with the grammar-aware custom mutator (which a grammar target installs by
//! default).
#![no_main]

hellfuzz::fuzz_target!(grammar = "sql", |data: &[u8]| bug_sqlparser_set_authorization::run(data));
