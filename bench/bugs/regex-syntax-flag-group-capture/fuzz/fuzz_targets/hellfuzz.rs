//! (H): the same call as `plain` behind hellfuzz's wrapper (crashes minimized with the grammar,
//! continue mode), with the grammar-aware custom mutator.
#![no_main]

hellfuzz::fuzz_target!(grammar_file = "../../regex.grammar", |data: &[u8]| bug_regex_syntax_flag_group_capture::run(data));

hellfuzz::fuzz_mutator!(grammar_file = "../../regex.grammar");
