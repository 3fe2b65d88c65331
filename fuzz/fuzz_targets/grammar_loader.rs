//! Fuzzes the grammar loader, the grammar analyses, cheapest derivations and the parser.
//!
//! Input format: `GRAMMAR TEXT [0xFF PARSE INPUT]`. The grammar text is everything before the
//! first 0xFF byte (0xFF never occurs in UTF-8, so any grammar file is a valid input as is;
//! invalid UTF-8 is decoded lossily); the bytes after it are parsed with the loaded grammar.
//!
//! Invariants checked:
//! - `Grammar::from_text` never panics; a failed load reports at least one error.
//! - For every symbol: productive <=> its cheapest cost is finite <=> `Tree::cheapest` is `Some`;
//!   the cheapest tree is a well-formed derivation of the symbol and unparses to exactly
//!   `cheapest_len(sym)` bytes.
//! - The cheapest string of the start symbol parses, and the parse tree unparses to it.
//! - So does a random derivation of the start symbol whose choices are read from the parse input
//!   bytes (see `common::generate`).
//! - `Parser::parse` never panics and never reports an internal error (the recognizer accepted
//!   but no tree could be built); on `Ok` the tree is a well-formed derivation of the start
//!   symbol and unparses to the input exactly.
//!
//! To keep executions fast, grammars or parse inputs over 4 KiB are skipped, and cheapest trees
//! bigger than `MAX_CHEAPEST` bytes or nodes are not built (their size is legal, just slow).
#![no_main]

mod common;

use hellfuzz::grammar::{Grammar, SymbolId};
use hellfuzz::parse::Parser;
use hellfuzz::tree::Tree;

const MAX_TEXT: usize = 4096;
const MAX_INPUT: usize = 4096;
/// Largest generated string that is parsed (Earley is cubic on ambiguous grammars; keep it quick).
const MAX_GENERATED: usize = 512;
/// Largest cheapest tree (in bytes, and in nodes) that is built and checked.
const MAX_CHEAPEST: u64 = 1 << 16;
/// Total nodes of cheapest trees built per execution.
const CHEAPEST_BUDGET: u64 = 1 << 20;

hellfuzz::fuzz_target!(|data: &[u8]| {
    let (grammar_bytes, input) = match data.iter().position(|&b| b == 0xFF) {
        Some(p) => (&data[..p], &data[p + 1..]),
        None => (data, &[][..]),
    };
    if grammar_bytes.len() > MAX_TEXT || input.len() > MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(grammar_bytes);
    let grammar = match Grammar::from_text(&text, "fuzz.grammar") {
        Ok(g) => g,
        Err(e) => {
            assert!(
                e.errors().next().is_some(),
                "a failed load must report an error: {:?}",
                e.diagnostics
            );
            for d in &e.diagnostics {
                assert!(
                    d.span.offset <= text.len(),
                    "diagnostic span past the end of the text: {d:?}"
                );
            }
            let _ = e.to_string();
            return;
        }
    };
    for w in grammar.warnings() {
        let _ = w.to_string();
    }
    check_cheapest(&grammar);
    let parser = Parser::new(&grammar);

    // The cheapest string of the start symbol is in the language.
    let start = grammar.start();
    if grammar.cheapest_len(start) <= MAX_CHEAPEST
        && common::cheapest_node_counts(&grammar)[start.index()] <= MAX_CHEAPEST
    {
        let cheapest = Tree::cheapest(&grammar, start).expect("the start symbol of a loaded grammar is productive");
        let bytes = cheapest.unparse();
        match parser.parse(&bytes) {
            Ok(tree) => {
                common::check_tree(&grammar, &tree, start, "parse of the cheapest start string");
                assert_eq!(tree.unparse(), bytes, "round trip of the cheapest start string");
            }
            Err(e) => panic!(
                "the cheapest string of the start symbol {:?} does not parse: {e}",
                String::from_utf8_lossy(&bytes)
            ),
        }
    }

    // A random derivation (choices read from the input bytes) is in the language.
    if let Some(bytes) = common::generate(&grammar, input, MAX_GENERATED, 5_000) {
        match parser.parse(&bytes) {
            Ok(tree) => {
                common::check_tree(&grammar, &tree, start, "parse of a generated string");
                assert_eq!(tree.unparse(), bytes, "round trip of a generated string");
            }
            Err(e) => panic!(
                "the generated string {:?} does not parse: {e}",
                String::from_utf8_lossy(&bytes)
            ),
        }
    }

    // Arbitrary input: no panic, and an exact round trip on success.
    match parser.parse(input) {
        Ok(tree) => {
            common::check_tree(&grammar, &tree, start, "parse of the input");
            assert_eq!(tree.unparse(), input, "round trip of the input");
        }
        Err(e) => {
            assert!(
                e.offset <= input.len(),
                "error offset {} past the end of the input ({} bytes)",
                e.offset,
                input.len()
            );
            common::check_not_internal(&e, input);
            let _ = e.to_string();
        }
    }
});

fn check_cheapest(grammar: &Grammar) {
    let analysis = grammar.analysis();
    let nodes = common::cheapest_node_counts(grammar);
    let mut budget = CHEAPEST_BUDGET;
    for (i, s) in grammar.symbols().iter().enumerate() {
        let sym = SymbolId(i as u32);
        let productive = analysis.productive[i];
        assert_eq!(
            analysis.cheapest[i].is_finite(),
            productive,
            "`{}`: productive = {productive} but cheapest cost is {:?}",
            s.name,
            analysis.cheapest[i]
        );
        if !productive {
            assert!(
                s.synthetic,
                "named rule `{}` is unproductive in a loaded grammar",
                s.name
            );
            assert!(
                Tree::cheapest(grammar, sym).is_none(),
                "unproductive `{}` has a cheapest tree",
                s.name
            );
            continue;
        }
        let len = grammar.cheapest_len(sym);
        if len > MAX_CHEAPEST || nodes[i] > MAX_CHEAPEST || nodes[i] > budget {
            continue;
        }
        budget -= nodes[i];
        let tree =
            Tree::cheapest(grammar, sym).unwrap_or_else(|| panic!("productive `{}` has no cheapest tree", s.name));
        common::check_tree(grammar, &tree, sym, &format!("cheapest tree of `{}`", s.name));
        assert_eq!(
            tree.count() as u64,
            nodes[i],
            "cheapest tree of `{}` has an unexpected node count",
            s.name
        );
        assert_eq!(
            tree.unparse().len() as u64,
            len,
            "cheapest tree of `{}` does not have cheapest_len bytes",
            s.name
        );
    }
}
