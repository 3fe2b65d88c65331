//! Tests of the Earley parser: recursion, nullable rules, ambiguity, repetitions, tokens, failures.

use super::*;
use crate::tree::{NodeId, NodeKind};

fn parser(text: &str) -> Parser {
    Parser::new(&Grammar::from_text(text, "t.grammar").unwrap_or_else(|e| panic!("{e}")))
}

/// Parses and checks the round trip; returns the tree.
fn ok(p: &Parser, input: &str) -> Tree {
    let tree = p.parse(input.as_bytes()).unwrap_or_else(|e| panic!("{input:?}: {e}"));
    assert_eq!(tree.unparse(), input.as_bytes());
    assert_eq!(tree.len(), input.len());
    tree
}

/// The tree as a bracketed string of named symbols and leaf text, e.g. `e(e(n(1)) + n(2))`.
fn shape(p: &Parser, t: &Tree, node: NodeId) -> String {
    let g = p.grammar();
    match t.kind(node) {
        NodeKind::Leaf { .. } => String::from_utf8_lossy(t.leaf_bytes(node)).into_owned(),
        kind => {
            let inner: Vec<String> = t.children(node).map(|c| shape(p, t, c)).collect();
            let name = &g.symbol(kind.symbol().unwrap()).name;
            format!("{name}({})", inner.join(" "))
        }
    }
}

#[test]
fn left_recursion_nests_to_the_left() {
    let p = parser(r#"e = e "+" n | n ; n = [0-9] ;"#);
    let t = ok(&p, "1+2+3");
    assert_eq!(shape(&p, &t, t.root()), "e(e(e(n(1)) + n(2)) + n(3))");
}

#[test]
fn right_recursion_nests_to_the_right() {
    let p = parser(r#"e = n "+" e | n ; n = [0-9] ;"#);
    let t = ok(&p, "1+2+3");
    assert_eq!(shape(&p, &t, t.root()), "e(n(1) + e(n(2) + e(n(3))))");
}

#[test]
fn long_left_and_right_recursion() {
    let left = parser(r#"e = e "+" n | n ; n = [0-9] ;"#);
    let right = parser(r#"e = n "+" e | n ; n = [0-9] ;"#);
    let input = vec!["1"; 5000].join("+");
    ok(&left, &input);
    ok(&right, &input);
}

#[test]
fn nullable_rules_everywhere() {
    let p = parser(r#"s = a b "x" c ; a = "a"? ; b = ; c = (d e)* ; d = "d"? ; e = a ;"#);
    for input in ["x", "ax", "axd", "xdada", "axaaa"] {
        ok(&p, input);
    }
    assert!(p.parse(b"xx").is_err());
}

#[test]
fn nullable_start_and_empty_input() {
    let p = parser(r#"s = item* ; item = "a" | "b" ;"#);
    let t = ok(&p, "");
    assert_eq!(t.child_count(t.root()), 0);
    assert_eq!(ok(&p, "abba").child_count(t.root()), 4);
}

#[test]
fn repetitions_are_flat_lists() {
    let p = parser(r#"list = "[" (item ("," item)*)? "]" ; item = "x" | list ;"#);
    let t = ok(&p, "[x,x,[x],x]");
    let reps: Vec<NodeId> = {
        let mut v = Vec::new();
        t.pre_order(t.root(), |n| {
            if matches!(t.kind(n), NodeKind::Repeat { .. }) {
                v.push(n)
            }
        });
        v
    };
    // The outer list's tail has three iterations, the inner one none.
    assert_eq!(reps.iter().map(|&r| t.child_count(r)).collect::<Vec<_>>(), [3, 0]);
}

#[test]
fn bounded_repetitions_respect_their_bounds() {
    let p = parser(r#"s = "a"{2,4} "b"{3} "c"{1,} ;"#);
    for good in ["aabbbc", "aaaabbbccc", "aaabbbc"] {
        let t = ok(&p, good);
        let counts: Vec<usize> = t.children(t.root()).map(|c| t.child_count(c)).collect();
        let a = good.matches('a').count();
        assert_eq!(counts, [a, 3, good.matches('c').count()]);
    }
    for bad in ["abbbc", "aaaaabbbc", "aabbc", "aabbb"] {
        assert!(p.parse(bad.as_bytes()).is_err(), "{bad}");
    }
}

#[test]
fn bounded_repetitions_inside_recursion_use_tail_symbols() {
    // `item` is recursive, so the repetition is parsed by Earley (not as a token).
    let p = parser(r#"s = item{1,3} ; item = "(" s ")" | "x" ;"#);
    let t = ok(&p, "x(xx)(x(x)x)");
    assert_eq!(t.child_count(t.root()), 3);
    assert!(p.parse(b"xxxx").is_err());
}

#[test]
fn ambiguity_is_resolved_deterministically() {
    let p = parser(r#"e = e "+" e | "1" ;"#);
    let a = ok(&p, "1+1+1+1");
    let b = ok(&p, "1+1+1+1");
    assert_eq!(a.to_text(p.grammar()), b.to_text(p.grammar()));
    // Exactly one of the derivations, with all seven leaves.
    let mut leaves = 0;
    a.pre_order(a.root(), |n| {
        leaves += usize::from(matches!(a.kind(n), NodeKind::Leaf { .. }))
    });
    assert_eq!(leaves, 7);
}

/// Alternatives that begin alike share the recognizer's states up to where they part; each
/// tree still names the alternative it derives, also where one ends inside another's path.
#[test]
fn alternatives_that_share_a_prefix_keep_their_own_alternative() {
    let p = parser(r#"s = x "b" | x "c" | x | x "b" "d" | x "b" ; x = "a" | "[" s "]" ;"#);
    for (input, alt) in [
        ("ab", 0),
        ("ac", 1),
        ("a", 2),
        ("abd", 3),
        ("[ab]c", 1),
        ("[abd]", 2),
        ("[a]bd", 3),
    ] {
        let t = ok(&p, input);
        match t.kind(t.root()) {
            NodeKind::Rule { alt: got, .. } => assert_eq!(got, alt, "{input}"),
            other => panic!("{input}: root {other:?}"),
        }
    }
    // `s`'s five alternatives start in one state and share the one after `x` (alternative 4
    // repeats 0, so "ab" above is the first of the two): s has 5 states, not 15 positions.
    let c = &p.compiled;
    let s_states = (0..c.states.len()).filter(|&k| c.prods[0].lhs == lhs_of(c, k)).count();
    assert_eq!(s_states, 5);
}

/// The Earley symbol whose productions state `k` belongs to (states of a symbol are numbered
/// from its root up to the next symbol's root).
fn lhs_of(c: &compile::Compiled, k: usize) -> u32 {
    (c.root.iter().enumerate())
        .filter(|&(_, &r)| r as usize <= k)
        .max_by_key(|&(_, &r)| r)
        .map(|(e, _)| e as u32)
        .unwrap()
}

/// Every production of the built-in grammars is a path of states from its symbol's root, and
/// the state at its end ends the first production with the same elements.
#[test]
fn every_production_is_a_path_from_its_root() {
    for name in ["json", "expr", "toml", "css", "sql", "js"] {
        let p = Parser::new(&Grammar::load(name).unwrap());
        let c = &p.compiled;
        for (k, prod) in c.prods.iter().enumerate() {
            let mut state = c.root[prod.lhs as usize];
            for (i, &elem) in c.rhs(k as u32).iter().enumerate() {
                // A keyword position (a word that must not run on) is an edge of its own.
                let keyword = c.pos_keyword[prod.pos_base as usize + i];
                let found = (c.actions_of(c.states[state as usize]).iter())
                    .find(|a| a.next == c.next_of(elem) && a.keyword == keyword);
                state = found
                    .unwrap_or_else(|| panic!("{name}: production {k} leaves the trie"))
                    .to;
            }
            let end = c.state_end[state as usize] as usize;
            assert!(end <= k, "{name}: production {k} ends where {end} does");
            assert_eq!(c.rhs(end as u32), c.rhs(k as u32), "{name}: production {k}");
            assert_eq!(c.prods[end].lhs, prod.lhs, "{name}: production {k}");
        }
    }
}

#[test]
fn tokens_with_several_possible_ends() {
    // `word` is non-recursive, so it is matched as a token that may end at any 'a' or 'b'.
    let p = parser(r#"s = word "b" ; word = [ab]* ;"#);
    let t = ok(&p, "abab");
    let word = t.children(t.root()).next().unwrap();
    assert_eq!(t.unparse_node(word), b"aba");
}

#[test]
fn nested_nullable_repetitions_terminate() {
    let p = parser(r#"s = ("a"? ("b"*)?)* "c" ;"#);
    for input in ["c", "abc", "bbbac", "aabbc"] {
        ok(&p, input);
    }
}

#[test]
fn stacked_repetitions_match_what_they_should() {
    // `(x*)*` nests repetitions whose ends are remembered (they would otherwise be recomputed
    // exponentially often); the answers must be those of the plain definition.
    let p = parser(r#"s = ((("x" | "xy")*)*)* "!" | "(" s ")" ; "#);
    for good in ["!", "x!", "xyx!", "xxxxyxy!", "(xyxy!)"] {
        ok(&p, good);
    }
    let e = p.parse(b"xxyy!").unwrap_err();
    assert_eq!(e.offset, 3);
    let long = format!("{}!", "xy".repeat(300));
    ok(&p, &long);
}

#[test]
fn grammars_the_fuzzer_made_exponential_parse_correctly() {
    // Found by fuzz/grammar_loader: a stack of `+` over a nullable item, and a chain of rules.
    // Without memoization both took seconds to minutes on inputs of a few bytes.
    let stacked = parser(&format!("s = \"x\"?{} ;", "+".repeat(28)));
    ok(&stacked, "");
    ok(&stacked, "xxx");
    let chain_of = |n: usize| {
        let rules: String = (0..n).map(|i| format!("a{i} = a{} a{} ;", i + 1, i + 1)).collect();
        format!("{rules} a{n} = \"x\"? ;")
    };
    let chain = parser(&chain_of(16));
    ok(&chain, "xx");
    assert!(chain.parse(b"xxy").is_err());
    // At 20 rules every tree has 2^21 nodes (every empty `a20` is one): a bomb, refused by name.
    let e = Grammar::from_text(&chain_of(20), "t.grammar").unwrap_err().to_string();
    assert!(
        e.contains("rule `a0`: its shortest derivation has 2097151 tree nodes"),
        "{e}"
    );
}

#[test]
fn a_parser_reused_gives_the_same_trees() {
    // The chart's buffers are kept between parses; nothing of one parse may leak into the next.
    let json = Parser::new(&Grammar::load("json").unwrap());
    let a = br#"{"a": [1, 2, {"b": null}], "c": "\u00e9"}"#;
    let b = b"[[[[[]]]], 1e5, -0.5]";
    let first = json.parse(a).unwrap().to_text(json.grammar());
    json.parse(b).unwrap();
    assert!(json.parse(b"[1, 2,, 3]").is_err());
    assert_eq!(json.parse(a).unwrap().to_text(json.grammar()), first);
    assert_eq!(json.parse(b).unwrap().unparse(), b);
}

#[test]
fn lexical_start_symbol() {
    let p = parser(r#"num = "-"? [0-9]+ ("." [0-9]+)? ;"#);
    ok(&p, "-12.5");
    let e = p.parse(b"12.").unwrap_err();
    assert_eq!((e.offset, e.expected.clone()), (3, vec!["[0-9]".to_string()]));
}

#[test]
fn unicode_classes_match_code_points() {
    let p = parser(r#"s = [^a]+ ;"#);
    let t = ok(&p, "é😀中");
    assert_eq!(t.child_count(t.root()), 3);
    let e = p.parse(b"x\xFFy").unwrap_err();
    assert_eq!(e.offset, 1);
    assert_eq!(e.found, "byte 0xFF (not UTF-8)");
}

#[test]
fn failure_reports_furthest_offset_line_col_and_expected() {
    let json = Parser::new(&Grammar::load("json").unwrap());
    let e = json.parse(b"{\n  \"a\": [1, 2,, 3]\n}").unwrap_err();
    assert_eq!((e.offset, e.line, e.col), (15, 2, 14));
    assert_eq!(e.found, "`,`");
    for t in ["\"{\"", "\"[\"", "\"true\"", "\"-\"", "[1-9]", "\"\\\"\""] {
        assert!(e.expected.contains(&t.to_string()), "{t} in {:?}", e.expected);
    }
    // Inside a token: the furthest point is inside the string, not at its start.
    let e = json.parse(b"[\"abc\\q\"]").unwrap_err();
    assert_eq!(e.offset, 6);
    assert!(e.expected.contains(&"\"u\"".to_string()), "{:?}", e.expected);
    // At the end of the input.
    let e = json.parse(b"[1, 2").unwrap_err();
    assert_eq!((e.offset, e.found.as_str()), (5, "the end of the input"));
    assert!(e.expected.contains(&"\"]\"".to_string()) && e.expected.contains(&"\",\"".to_string()));
}

#[test]
fn where_a_matched_token_stopped_is_not_an_error() {
    // `word` matched "abc" and stopped at `?`; that is not what went wrong: the `!` is missing.
    let p = parser(r#"s = word "!" | "(" s ")" ; word = [a-z]+ ;"#);
    let e = p.parse(b"abc?").unwrap_err();
    assert_eq!((e.offset, e.expected.clone()), (3, vec!["\"!\"".to_string()]));
}

#[test]
fn failure_expecting_only_the_end() {
    let p = parser(r#"s = "ab" ;"#);
    let e = p.parse(b"abc").unwrap_err();
    assert_eq!((e.offset, e.expected.len()), (2, 0));
    assert_eq!(
        e.to_string(),
        "line 1, column 3 (byte 2): expected the end of the input, found `c`"
    );
}

#[test]
fn expr_failure_lists_what_may_follow() {
    let expr = Parser::new(&Grammar::load("expr").unwrap());
    let e = expr.parse(b"1 + (2 * )").unwrap_err();
    assert_eq!(e.offset, 9);
    for t in ["\"(\"", "\"-\"", "\"+\"", "\"0\"", "\"9\""] {
        assert!(e.expected.contains(&t.to_string()), "{t} in {:?}", e.expected);
    }
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let json = Parser::new(&Grammar::load("json").unwrap());
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let t = json.parse(deep.as_bytes()).unwrap();
    assert_eq!(t.unparse(), deep.as_bytes());
    // Printing walks iteratively too (JSON: indented text of this depth would be quadratic).
    assert!(t.to_json(json.grammar()).len() > 1_000_000);
    let expr = Parser::new(&Grammar::load("expr").unwrap());
    let parens = format!("{}1{}", "(".repeat(20_000), ")".repeat(20_000));
    assert_eq!(expr.parse(parens.as_bytes()).unwrap().unparse(), parens.as_bytes());
}

/// Every built-in grammar with its parser and the same parser without the fast paths (token
/// DFA, dropping items that cannot continue), built once for all the comparisons below.
fn both_paths() -> &'static [(&'static str, Parser, Parser)] {
    static PARSERS: std::sync::OnceLock<Vec<(&'static str, Parser, Parser)>> = std::sync::OnceLock::new();
    PARSERS.get_or_init(|| {
        crate::grammar::builtin::names()
            .map(|name| {
                let g = Grammar::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
                (name, Parser::new(&g), Parser::interpreted(&g))
            })
            .collect()
    })
}

/// The tree in pre-order: each node's kind, child count, size and (for leaves) bytes.
fn fingerprint(t: &Tree) -> Vec<(NodeKind, usize, usize, Vec<u8>)> {
    let mut out = Vec::new();
    t.pre_order(t.root(), |n| {
        out.push((t.kind(n), t.child_count(n), t.len_of(n), t.leaf_bytes(n).to_vec()))
    });
    out
}

/// Both paths agree on `input`: the same tree, or the same error (offset and expected set).
fn same_on_both_paths(name: &str, fast: &Parser, plain: &Parser, input: &[u8]) -> Result<(), String> {
    // `tree` (no diagnosis) gives what `parse` gives, or nothing where it fails.
    if fast.tree(input).map(|t| fingerprint(&t)) != fast.parse(input).ok().map(|t| fingerprint(&t)) {
        return Err(format!(
            "{name}: {:?}: tree and parse differ",
            String::from_utf8_lossy(input)
        ));
    }
    match (fast.parse(input), plain.parse(input)) {
        // A failed fast run is retried without the fast paths: that would hide a DFA that
        // misses an end, so the fast run must accept on its own.
        (Ok(_), Ok(_)) if !fast.first_run_accepts(input) => Err(format!(
            "{name}: {:?}: the fast run alone rejects it",
            String::from_utf8_lossy(input)
        )),
        (Ok(a), Ok(b)) if fingerprint(&a) == fingerprint(&b) => Ok(()),
        (Err(a), Err(b)) if a == b => Ok(()),
        (a, b) => Err(format!(
            "{name}: {:?}: fast {:?} / plain {:?}",
            String::from_utf8_lossy(input),
            a.map(|t| fingerprint(&t).len()),
            b.map(|t| fingerprint(&t).len())
        )),
    }
}

/// Parses share buffers and caches that outlive them: the parser's chart buffers, and the
/// grammar's boundary DFAs' caches, which a lexer takes from a pool and gives back. Four threads
/// parsing the samples at once, each in its own order, get the trees one parse alone gets.
#[test]
fn parses_from_several_threads_give_the_trees_of_one() {
    for name in ["js", "css", "sql"] {
        let g = Grammar::load(name).unwrap();
        let parser = Parser::new(&g);
        let samples = crate::grammar::builtin::samples(name);
        let alone: Vec<_> = samples
            .iter()
            .map(|(file, s)| fingerprint(&parser.parse(s).unwrap_or_else(|e| panic!("{name}/{file}: {e}"))))
            .collect();
        std::thread::scope(|scope| {
            for k in 0..4 {
                let (parser, alone) = (&parser, &alone);
                scope.spawn(move || {
                    for j in 0..samples.len() {
                        let at = (j * (k + 1) + k) % samples.len();
                        let (file, sample) = samples[at];
                        let tree = parser.parse(sample).unwrap_or_else(|e| panic!("{name}/{file}: {e}"));
                        assert!(
                            fingerprint(&tree) == alone[at],
                            "{name}/{file}: another tree in thread {k}"
                        );
                    }
                });
            }
        });
    }
}

#[test]
fn fast_and_plain_paths_give_the_same_trees_on_every_sample() {
    for (name, fast, plain) in both_paths() {
        for (file, sample) in crate::grammar::builtin::samples(name) {
            let tree = fast.parse(sample).unwrap_or_else(|e| panic!("{name}/{file}: {e}"));
            assert_eq!(tree.unparse(), *sample);
            same_on_both_paths(name, fast, plain, sample).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
    }
}

/// The fast path derives a self-contained token once per distinct text and copies it: the
/// copies are the trees the plain path derives, wherever the same text recurs (names inside
/// and beside keywords, layout, strings, numbers), and js has such tokens.
#[test]
fn tokens_derived_once_are_copied_exactly() {
    let (_, fast, plain) = both_paths().iter().find(|(name, ..)| *name == "js").unwrap();
    let c = &fast.compiled;
    let g = fast.grammar();
    let reused: Vec<&str> = (0..g.symbols().len())
        .filter(|&s| c.self_contained[s])
        .map(|s| g.symbols()[s].name.as_str())
        .collect();
    for name in ["ident", "_"] {
        assert!(reused.contains(&name), "{name} is not self-contained: {reused:?}");
    }
    let input = b"var inx = 1, ins = 'in';\nfor (inx in ins) inx++; /* in */ /* in */\n\
                  if (inx in ins) { ins = inx.in + 'in' + 1.5 + 1.5; } else inx = ins;\n";
    same_on_both_paths("js", fast, plain, input).unwrap();
}

/// `ident = ident_name - reserved` and the unit rules over it (`binding = ident`) are matched
/// by the token DFA, as the name's expression with the reserved words taken out of its
/// matches: what the plain path's interpreter gives, reserved words included.
#[test]
fn exclusions_are_matched_by_the_dfa_less_their_words() {
    let (_, fast, plain) = both_paths().iter().find(|(name, ..)| *name == "js").unwrap();
    let g = fast.grammar();
    for name in ["ident", "binding"] {
        let sym = g.symbol_by_name(name).unwrap();
        assert!(fast.compiled.tokens.has(sym), "{name} is left to the interpreter");
    }
    for input in [
        "var inx = 1;",
        "var i;",
        "var in;",
        "var iff, if_, In, \u{e9}t\u{e9};",
        "x = in1 in in2;",
    ] {
        same_on_both_paths("js", fast, plain, input.as_bytes()).unwrap();
    }
    assert!(fast.parse(b"var in;").is_err());
    assert!(fast.parse("var iff, if_, In, \u{e9}t\u{e9};".as_bytes()).is_ok());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Generated inputs (uniform choices) parse to the same trees on both paths.
    #[test]
    fn fast_and_plain_paths_agree_on_generated_inputs(which in 0usize..64, seed in 0u64..1_000_000) {
        let (name, fast, plain) = &both_paths()[which % both_paths().len()];
        let g = fast.grammar();
        let probs = crate::mine::Probabilities::new(g, None, crate::mine::ProbabilityMode::Uniform);
        let input = crate::generate::Generator::new(g, &probs, crate::generate::Limits::up_to(300), seed).input();
        proptest::prop_assert!(fast.parse(&input).is_ok(), "{}: generated input does not parse", name);
        if let Err(e) = same_on_both_paths(name, fast, plain, &input) {
            proptest::prop_assert!(false, "{}", e);
        }
    }

    /// Samples with a byte deleted, replaced or inserted: the same tree, or the same error
    /// (offset and expected set), on both paths.
    #[test]
    fn fast_and_plain_paths_agree_on_corrupted_samples(
        which in 0usize..64,
        file in 0usize..1000,
        at in 0usize..100_000,
        edit in 0u8..3,
        byte in proptest::prelude::any::<u8>(),
    ) {
        let (name, fast, plain) = &both_paths()[which % both_paths().len()];
        let samples = crate::grammar::builtin::samples(name);
        let mut input = samples[file % samples.len()].1.to_vec();
        let at = at % (input.len() + 1);
        match edit {
            0 if at < input.len() => {
                input.remove(at);
            }
            1 if at < input.len() => input[at] = byte,
            _ => input.insert(at, byte),
        }
        if let Err(e) = same_on_both_paths(name, fast, plain, &input) {
            proptest::prop_assert!(false, "{}", e);
        }
    }
}

#[test]
fn json_tokens_are_matched_by_the_dfa() {
    let g = Grammar::load("json").unwrap();
    let p = Parser::new(&g);
    for name in ["ws", "string", "number"] {
        let s = g.symbols().iter().position(|s| s.name == name).unwrap();
        assert!(p.compiled.tokens.has(crate::grammar::SymbolId(s as u32)), "{name}");
    }
}

/// The words of `tree` that `sym` derives, in order.
fn words_of(p: &Parser, tree: &Tree, sym: &str) -> Vec<String> {
    nodes_of(p, tree, sym)
        .into_iter()
        .map(|n| String::from_utf8_lossy(&tree.unparse_node(n)).into_owned())
        .collect()
}

/// The nodes of `tree` of symbol `sym`, in pre-order.
fn nodes_of(p: &Parser, tree: &Tree, sym: &str) -> Vec<NodeId> {
    let g = p.grammar();
    let mut found = Vec::new();
    tree.pre_order(tree.root(), |n| {
        if tree.kind(n).symbol().is_some_and(|s| g.symbol(s).name == sym) {
            found.push(n);
        }
    });
    found
}

/// A lexer skips all the layout before a token: a line comment's text is never a token, even
/// where the comment's pattern could stop early (`"//" [^\n]*` as tree-sitter writes it).
#[test]
fn the_layout_is_matched_longest_first() {
    let p = parser(
        "%layout _ ; %lexeme word ;
         s = ( _ word )* _ ;
         word = [a-z]+ ;
         _ = ( [ \\n] | \"//\" [^\\n]* )* ;",
    );
    let tree = ok(&p, "//abc def\n// x\nghi // jk\n");
    assert_eq!(words_of(&p, &tree, "word"), ["ghi"]);
    // Many comments in a row: one reading, not one per way to split them.
    let many = "/// doc\n".repeat(300) + "x";
    let (tree, ambiguity) = p.parse_ambiguity(many.as_bytes()).unwrap();
    assert_eq!(words_of(&p, &tree, "word"), ["x"]);
    assert_eq!(ambiguity, None);
}

/// `%word`: a name that spells a keyword expected there is the keyword (`return (x)` returns),
/// and a name where no keyword reading parses (`return;` in a language with a bare name
/// statement) is still accepted: the language does not change.
#[test]
fn keyword_extraction_prefers_the_keyword_and_keeps_the_language() {
    let text = "%layout _ ;
         s = ( stmt )* _ ;
         stmt = _ \"return\" expr _ \";\" | expr _ \";\" ;
         expr = name | name _ \"(\" expr _ \")\" | _ \"(\" expr _ \")\" ;
         name = _ id ;
         id = [a-z]+ ;
         _ = \" \"* ;";
    let with_word = parser(&format!("%word id ;\n{text}"));
    let tree = ok(&with_word, "return (x);");
    let stmt = nodes_of(&with_word, &tree, "stmt")[0];
    assert!(
        matches!(tree.kind(stmt), NodeKind::Rule { alt: 0, .. }),
        "return (x) is a return"
    );
    assert_eq!(with_word.parse_ambiguity(b"return (x);").unwrap().1, None);
    assert_eq!(words_of(&with_word, &ok(&with_word, "return;"), "id"), ["return"]);
    // Without `%word` the same input has two parses, and `parse_ambiguity` says where.
    let without = parser(text);
    let (_, ambiguity) = without.parse_ambiguity(b"return (x);").unwrap();
    let a = ambiguity.expect("two parses without keyword extraction");
    assert_eq!((a.start, a.end), (0, 11), "{a:?}");
}

/// With `%word`, a keyword never starts a longer name, whatever rule follows it: tree-sitter's
/// lexer reads the longest name first (SQL's `AND NOT is_admin` had been read as `… IS` and a
/// column `_admin`, and mining counted a column after `IS`).
#[test]
fn with_keyword_extraction_a_keyword_never_starts_a_longer_name() {
    let text = "%layout _ ;
         s = expr _ \";\" ;
         expr = name | expr _ kw_is expr ;
         kw_is = [Ii] [Ss] ;
         name = _ id ;
         id = [a-z_]+ ;
         _ = \" \"* ;";
    let with_word = parser(&format!("%word id ;\n{text}"));
    assert!(with_word.parse(b"a is_b;").is_err(), "`is_b` is one name");
    assert_eq!(words_of(&with_word, &ok(&with_word, "is_b;"), "id"), ["is_b"]);
    assert_eq!(nodes_of(&with_word, &ok(&with_word, "a IS b;"), "kw_is").len(), 1);
    // Without `%word` the grammar alone decides: `is`, then the name `_b`.
    let without = parser(text);
    assert_eq!(words_of(&without, &ok(&without, "a is_b;"), "id"), ["a", "_b"]);
}

#[test]
fn parse_ambiguity_names_the_first_place_with_two_parses() {
    let p = parser("e = e \"+\" e | \"1\" ;");
    assert_eq!(p.parse_ambiguity(b"1+1").unwrap().1, None);
    let a = p.parse_ambiguity(b"1+1+1").unwrap().1.expect("(1+1)+1 and 1+(1+1)");
    assert_eq!((a.symbol.as_str(), a.start, a.end), ("e", 0, 5));
    assert!(p.parse_ambiguity(b"1+").is_err());
}

#[test]
fn a_word_directive_names_one_rule() {
    for (text, message) in [
        ("%word a b ; s = \"x\" ; a = \"a\" ; b = \"b\" ;", "takes one rule name"),
        ("%word nope ; s = \"x\" ;", "names no rule"),
    ] {
        let e = Grammar::from_text(text, "t.grammar").unwrap_err().to_string();
        assert!(e.contains(message), "{text}: {e}");
    }
    let g = Grammar::from_text("%word id ; s = id ; id = [a-z]+ ;", "t.grammar").unwrap();
    let printed = g.to_file_text();
    assert!(printed.contains("%word id ;"), "{printed}");
    assert!(!printed.contains("%lexeme"), "{printed}");
    let again = Grammar::from_text(&printed, "again").unwrap();
    assert_eq!(again.word().map(|w| again.symbol(w).name.clone()), Some("id".into()));
}

/// Precedences choose the parse as tree-sitter's do: the lower precedence on top, and a left
/// (right) one nesting to the left (right) with its own kind; the parse is then unambiguous.
#[test]
fn precedences_choose_among_parses() {
    let p = parser(
        "e = @left(1) e \"+\" e | @left(1) e \"-\" e | @left(2) e \"*\" e | @right(0) e \"=\" e
           | @prec(5) e \"(\" e \")\" | @prec(-1) \"r\" | @left(0) \"r\" e | \"(\" e \")\" | v ;
         v = [a-z] ;",
    );
    for (input, expected) in [
        ("a+b*c", "e(e(v(a)) + e(e(v(b)) * e(v(c))))"),
        ("a*b+c", "e(e(e(v(a)) * e(v(b))) + e(v(c)))"),
        ("a+b+c", "e(e(e(v(a)) + e(v(b))) + e(v(c)))"),
        ("a-b+c", "e(e(e(v(a)) - e(v(b))) + e(v(c)))"),
        ("a=b=c", "e(e(v(a)) = e(e(v(b)) = e(v(c))))"),
        // `r` alone has the lowest precedence: `r(x)` returns `(x)`, it does not call `r`.
        ("r(x)", "e(r e(( e(v(x)) )))"),
        ("f(x)", "e(e(v(f)) ( e(v(x)) ))"),
    ] {
        let tree = ok(&p, input);
        assert_eq!(shape(&p, &tree, tree.root()), expected, "{input}");
        assert_eq!(p.parse_ambiguity(input.as_bytes()).unwrap().1, None, "{input}");
    }
    // The interpreter (no fast paths) chooses alike.
    let g = p.grammar().clone();
    let plain = Parser::interpreted(&g);
    let tree = ok(&plain, "a+b*c+d");
    assert_eq!(
        shape(&plain, &tree, tree.root()),
        "e(e(e(v(a)) + e(e(v(b)) * e(v(c)))) + e(v(d)))"
    );
}

#[test]
fn precedences_are_written_and_read_back() {
    let g = Grammar::from_text("e = @left(1) e \"+\" e | @right(-2) 40% \"x\" | @prec(3) \"y\" ;", "t").unwrap();
    let text = g.to_file_text();
    assert!(text.contains("@left(1) e \"+\" e"), "{text}");
    assert!(text.contains("@right(-2) 40% \"x\""), "{text}");
    assert!(text.contains("@prec(3) \"y\""), "{text}");
    let again = Grammar::from_text(&text, "again").unwrap();
    assert_eq!(again.to_file_text(), text);
    for bad in [
        "e = @lft(1) \"x\" ;",
        "e = @left(x) \"x\" ;",
        "e = @left(1 \"x\" ;",
        "e = \"x\" @left(1) ;",
    ] {
        let e = Grammar::from_text(bad, "t").unwrap_err().to_string();
        assert!(e.contains("t:1:"), "{bad}: {e}");
    }
}

/// A chain of one left-associative operator: the right-nested readings, which the left-nested
/// one replaces, are passed by while parsing (see `compile::right_keys`); the tree is the
/// left-nested one, in the interpreter too. Where the production's first part is optional and
/// empty (`a>>b`: `a > (> b)`), the right-nested reading is the only one, and it is kept.
#[test]
fn left_chains_nest_left_and_an_empty_first_part_keeps_its_reading() {
    let text = "e = @left(1) e? \">\" e | @left(1) e \"-\" e | v ; v = [a-z] ;";
    let p = parser(text);
    let g = p.grammar().clone();
    let plain = Parser::interpreted(&g);
    for (input, expected) in [
        ("a-b-c-d", "e(e(e(e(v(a)) - e(v(b))) - e(v(c))) - e(v(d)))"),
        ("a>b>c", "e(e.1(e(e.1(e(v(a))) > e(v(b)))) > e(v(c)))"),
        (">a", "e(e.1() > e(v(a)))"),
        ("a>>b", "e(e.1(e(v(a))) > e(e.1() > e(v(b))))"),
        ("a>b->c", "e(e(e.1(e(v(a))) > e(v(b))) - e(e.1() > e(v(c))))"),
        (">>a-b", "e(e(e.1() > e(e.1() > e(v(a)))) - e(v(b)))"),
    ] {
        for parser in [&p, &plain] {
            let tree = ok(parser, input);
            assert_eq!(shape(parser, &tree, tree.root()), expected, "{input}");
        }
        assert_eq!(p.parse_ambiguity(input.as_bytes()).unwrap().1, None, "{input}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

    /// Every input generated from a grammar of left-associative chains, some with an optional
    /// first part, parses back to itself: the readings passed by while parsing always have
    /// another (see `compile::right_keys`).
    #[test]
    fn left_chains_generated_parse(seed in 0u64..1_000_000) {
        let p = parser("s = e ; e = @left(1) e? \">\" e | @left(1) e \"-\" e | @left(2) e \"*\" e | \"(\" e \")\" | v ; v = [a-c] ;");
        let g = p.grammar();
        let probs = crate::mine::Probabilities::new(g, None, crate::mine::ProbabilityMode::Uniform);
        let input = crate::generate::Generator::new(g, &probs, crate::generate::Limits::up_to(200), seed).input();
        let tree = p.parse(&input);
        proptest::prop_assert!(tree.is_ok(), "{:?} does not parse", String::from_utf8_lossy(&input));
        proptest::prop_assert_eq!(tree.unwrap().unparse(), input);
    }
}
