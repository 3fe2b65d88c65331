//! Tests on the papers' worked examples (exact results) and properties of every reducer.

use super::*;
use crate::generate::{Generator, Limits};
use crate::mine::{Probabilities, ProbabilityMode};
use crate::oracle::Outcome;
use proptest::prelude::*;

fn run(input: &str, grammar: &str, algorithm: Algorithm, oracle: &(dyn Fn(&[u8]) -> Outcome + Sync)) -> Reduction {
    let g = Grammar::load(grammar).unwrap();
    let options = ReduceOptions {
        algorithm,
        byte_pass: false,
        passes: Vec::new(),
        ..ReduceOptions::default()
    };
    reduce(input.as_bytes(), Some(&g), &oracle, &options).unwrap()
}

fn text(r: &Reduction) -> String {
    String::from_utf8(r.input.clone()).unwrap()
}

fn js_oracle(check: impl Fn(&str) -> bool + Sync) -> impl Fn(&[u8]) -> Outcome + Sync {
    let parser = Parser::new(&Grammar::load("js").unwrap());
    move |s: &[u8]| {
        let ok = parser.parse(s).is_ok() && check(&String::from_utf8_lossy(s));
        if ok {
            Outcome::Fail
        } else {
            Outcome::Pass
        }
    }
}

#[test]
fn gtr_running_example_reduces_to_the_declaration_and_hdd_does_not() {
    // GTR paper, Figure 1: only `var a = 5;` matters.
    let input = "if (!c) { var a = 5; } else { isNaN(2); }";
    let oracle = js_oracle(|s| s.contains("var a = 5"));
    assert_eq!(text(&run(input, "js", Algorithm::Gtr, &oracle)), "var a = 5;");
    assert_eq!(text(&run(input, "js", Algorithm::GtrStar, &oracle)), "var a = 5;");
    // HDD can only delete: the `if` and its condition stay.
    assert_eq!(
        text(&run(input, "js", Algorithm::Hdd, &oracle)),
        "if(!c){var a = 5;}else{}"
    );
    assert_eq!(
        text(&run(input, "js", Algorithm::HddStar, &oracle)),
        "if(!c){var a = 5;}else{}"
    );
}

/// The paper's second example: `crash(b)` must be called with `b` assigned, and every variable
/// read must have been assigned before (reading `a` unassigned throws before the crash).
fn crash_oracle(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut assigned: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let name = &s[start..i];
            let rest = s[i..].trim_start();
            let is_target = rest.starts_with('=') && !rest.starts_with("==");
            if is_target {
                assigned.push(name);
            } else if !["if", "crash"].contains(&name) && !assigned.contains(&name) {
                return false;
            }
        } else {
            i += 1;
        }
    }
    s.contains("crash(b)")
}

#[test]
fn gtr_needs_a_second_pass_over_a_level_for_the_assignment() {
    let oracle = js_oracle(crash_oracle);
    let r = run("a = b = 0; if (a) crash(b);", "js", Algorithm::GtrStar, &oracle);
    assert_eq!(text(&r), "b=0;crash(b);");
}

#[test]
fn gtr_reduces_the_introductions_loop_to_the_two_calls() {
    let input = "for (var i = 0; i < 10; i++) {\n  if (cond1 || cond2) {\n    partOfBug();\n  }\n  if (cond3) {\n    otherPartOfBug();\n  }\n}\n";
    let oracle = js_oracle(|s| s.contains("partOfBug()") && s.contains("otherPartOfBug()"));
    assert_eq!(
        text(&run(input, "js", Algorithm::GtrStar, &oracle)),
        "partOfBug();otherPartOfBug();"
    );
    // HDD keeps the loop and the ifs, as the paper shows.
    assert_eq!(
        text(&run(input, "js", Algorithm::HddStar, &oracle)),
        "for(;;){if(c||c){partOfBug();}if(c){otherPartOfBug();}}"
    );
}

/// fuzzingbook's MysteryRunner: fails when a `(` comes before a `)`.
fn mystery(s: &[u8]) -> Outcome {
    let x = s.iter().position(|&b| b == b'(');
    let y = s.iter().position(|&b| b == b')');
    if matches!((x, y), (Some(x), Some(y)) if x < y) {
        Outcome::Fail
    } else {
        Outcome::Pass
    }
}

#[test]
fn fuzzingbook_expression_example() {
    // Delta debugging on characters, as in fuzzingbook: the same tests, the same result.
    let tested = std::sync::Mutex::new(Vec::new());
    let recording = |s: &[u8]| {
        tested.lock().unwrap().push(String::from_utf8_lossy(s).into_owned());
        mystery(s)
    };
    let r = run("1 + (2 * 3)", "expr", Algorithm::Ddmin, &recording);
    assert_eq!(text(&r), "()");
    let tested = tested.into_inner().unwrap();
    let book = [
        "1 + (2 * 3)",
        "2 * 3)",
        "1 + (",
        "+ (2 * 3)",
        "+ ( 3)",
        " 3)",
        "+ (",
        " ( 3)",
        "( 3)",
        "3)",
        "( ",
        "(3)",
        "()",
        ")",
        "(",
    ];
    assert_eq!(
        &tested[..book.len()],
        &book,
        "the candidates fuzzingbook's ddmin tests, in order"
    );
    // The grammar reducer with an oracle that needs valid expressions: `(3)`, as in fuzzingbook.
    let parser = Parser::new(&Grammar::load("expr").unwrap());
    let eval = |s: &[u8]| {
        if parser.parse(s).is_err() {
            Outcome::Unresolved
        } else {
            mystery(s)
        }
    };
    assert_eq!(text(&run("1 + (2 * 3)", "expr", Algorithm::GtrStar, &eval)), "(3)");
}

#[test]
fn inputs_that_do_not_parse_are_reduced_on_the_generic_tree_and_say_so() {
    let r = run("1 + (2 * 3", "expr", Algorithm::GtrStar, &|s: &[u8]| {
        if s.contains(&b'(') {
            Outcome::Fail
        } else {
            Outcome::Pass
        }
    });
    assert_eq!(text(&r), "(");
    assert_eq!(r.stats.algorithm, Algorithm::GtrStar);
    assert!(
        r.stats.notes[0].contains("does not parse with <builtin:expr>") && r.stats.notes[0].contains("generic tree"),
        "{:?}",
        r.stats.notes
    );
}

#[test]
fn a_passing_input_is_an_error_and_a_flaky_oracle_is_reported() {
    let g = Grammar::load("expr").unwrap();
    let err = reduce(b"1", Some(&g), &|_: &[u8]| Outcome::Pass, &ReduceOptions::default()).unwrap_err();
    assert!(err.to_string().contains("does not fail to begin with"));
    // Fails on every first sight of an input, passes on the second: only the re-run sees it.
    let seen = std::sync::Mutex::new(std::collections::HashSet::new());
    let flaky = |s: &[u8]| {
        if seen.lock().unwrap().insert(s.to_vec()) {
            Outcome::Fail
        } else {
            Outcome::Pass
        }
    };
    let r = reduce(b"1 + 2", Some(&g), &flaky, &ReduceOptions::default()).unwrap();
    assert!(!r.confirmed);
    assert!(r.stats.notes.iter().any(|n| n.contains("flaky")));
}

#[test]
fn the_budget_stops_early_with_the_best_so_far() {
    let oracle = js_oracle(|s| s.contains("partOfBug()") && s.contains("otherPartOfBug()"));
    let input =
        "for (var i = 0; i < 10; i++) { if (cond1 || cond2) { partOfBug(); } if (cond3) { otherPartOfBug(); } }";
    let g = Grammar::load("js").unwrap();
    let options = ReduceOptions {
        budget: Budget {
            max_tests: Some(30),
            ..Budget::default()
        },
        ..ReduceOptions::default()
    };
    let r = reduce(input.as_bytes(), Some(&g), &oracle, &options).unwrap();
    assert!(r.stats.budget_exhausted && r.confirmed);
    assert!(r.input.len() < input.len() && oracle(&r.input) == Outcome::Fail);
    assert!(r.stats.tests <= 31);
}

#[test]
fn cancelling_ends_with_the_best_input_so_far() {
    // As Ctrl-C does in the CLI: the flag is raised in the middle of the reduction.
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let calls = std::sync::atomic::AtomicU64::new(0);
    let inner = js_oracle(|s| s.contains("partOfBug()") && s.contains("otherPartOfBug()"));
    let oracle = |s: &[u8]| {
        if calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 40 {
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        inner(s)
    };
    let input =
        "for (var i = 0; i < 10; i++) { if (cond1 || cond2) { partOfBug(); } if (cond3) { otherPartOfBug(); } }";
    let g = Grammar::load("js").unwrap();
    let options = ReduceOptions {
        budget: Budget {
            cancel: Some(cancel.clone()),
            ..Budget::default()
        },
        ..ReduceOptions::default()
    };
    let r = reduce(input.as_bytes(), Some(&g), &oracle, &options).unwrap();
    assert!(r.stats.budget_exhausted && r.confirmed);
    assert!(r.input.len() < input.len() && inner(&r.input) == Outcome::Fail);
}

#[test]
fn parallel_reduction_gives_the_sequential_result() {
    let input = "for (var i = 0; i < 10; i++) {\n  if (cond1 || cond2) {\n    partOfBug();\n  }\n  if (cond3) {\n    otherPartOfBug();\n  }\n}\n";
    let oracle = js_oracle(|s| s.contains("partOfBug()") && s.contains("otherPartOfBug()"));
    let g = Grammar::load("js").unwrap();
    for algorithm in [Algorithm::GtrStar, Algorithm::HddStar, Algorithm::Ddmin] {
        let one = reduce(
            input.as_bytes(),
            Some(&g),
            &oracle,
            &ReduceOptions {
                algorithm,
                ..ReduceOptions::default()
            },
        )
        .unwrap();
        let four = reduce(
            input.as_bytes(),
            Some(&g),
            &oracle,
            &ReduceOptions {
                algorithm,
                jobs: 4,
                ..ReduceOptions::default()
            },
        )
        .unwrap();
        assert_eq!(one.input, four.input, "{algorithm:?}");
    }
}

/// The oracles the property tests draw from: each a real condition on expressions.
#[test]
fn the_head_of_a_separated_list_can_be_deleted() {
    // `array = "[" ws ( value ( ws "," ws value )* ws )? "]"`: the first value has a slot of
    // its own. Deleting it promotes the next one (with its comma gone), so the reduction no
    // longer stops at `{"k":[0,42]}`.
    let json = Parser::new(&Grammar::load("json").unwrap());
    let oracle = move |s: &[u8]| {
        let tree_has_42 = json.parse(s).is_ok() && s.windows(2).any(|w| w == b"42");
        if tree_has_42 && s.contains(&b'[') {
            Outcome::Fail
        } else {
            Outcome::Pass
        }
    };
    let r = run(
        r#"{"k": [0, 7, 42, 3], "z": [1, 2]}"#,
        "json",
        Algorithm::GtrStar,
        &oracle,
    );
    assert_eq!(text(&r), "[42]");
    // In JavaScript: an argument list's head goes too.
    let oracle = js_oracle(|s| s.contains("crash(") && s.contains("b)"));
    let r = run("crash(a, b);", "js", Algorithm::GtrStar, &oracle);
    assert_eq!(text(&r), "crash(b);");
}

/// Fails when brackets nest at least `depth` deep (what a parser's stack overflow looks like).
fn nested_at_least(depth: usize) -> impl Fn(&[u8]) -> Outcome + Sync {
    move |s: &[u8]| {
        let (mut d, mut max) = (0usize, 0usize);
        for &b in s {
            if b == b'[' {
                d += 1;
                max = max.max(d);
            } else if b == b']' {
                d = d.saturating_sub(1);
            }
        }
        if max >= depth {
            Outcome::Fail
        } else {
            Outcome::Pass
        }
    }
}

#[test]
fn a_deep_chain_is_hoisted_by_halves_with_a_grammar() {
    // JSON arrays 20,000 deep, failing from 300 deep: the nearest fitting descendant alone
    // would be one hoist, and one oracle run, per level; the whole chain is offered and
    // searched by halves, and GTR stops at MAX_LEVELS levels (the rest is left to ddmin).
    let input = format!("{}{}", "[".repeat(20_000), "]".repeat(20_000));
    let r = run(&input, "json", Algorithm::GtrStar, &nested_at_least(300));
    assert_eq!(text(&r), format!("{}{}", "[".repeat(300), "]".repeat(300)));
    assert!(r.stats.oracle_calls < 1_000, "{} oracle calls", r.stats.oracle_calls);
}

#[test]
fn a_large_document_is_cut_by_halves_not_one_value_at_a_time() {
    // 2,000 objects in one array with the culprit in one string: hoisting the top value has
    // thousands of candidates (every nested value); tried one by one that was a run each.
    let mut doc = String::from("[");
    for i in 0..2_000 {
        let name = if i == 1_234 {
            "boom".to_string()
        } else {
            format!("item{i}")
        };
        doc.push_str(&format!(
            "{}{{\"id\": {i}, \"name\": \"{name}\", \"v\": [1, 2.5]}}",
            if i > 0 { ", " } else { "" }
        ));
    }
    doc.push(']');
    let oracle = |s: &[u8]| {
        if s.windows(4).any(|w| w == b"boom") {
            Outcome::Fail
        } else {
            Outcome::Pass
        }
    };
    let r = run(&doc, "json", Algorithm::GtrStar, &oracle);
    assert_eq!(text(&r), "\"boom\"");
    assert!(r.stats.oracle_calls < 400, "{} oracle calls", r.stats.oracle_calls);
}

fn property_oracle(which: u8) -> impl Fn(&[u8]) -> Outcome + Sync {
    let parser = Parser::new(&Grammar::load("expr").unwrap());
    move |s: &[u8]| {
        if parser.parse(s).is_err() {
            return Outcome::Unresolved;
        }
        let has = |c: u8| s.contains(&c);
        let fails = match which % 4 {
            0 => mystery(s) == Outcome::Fail,
            1 => has(b'7') && has(b'*'),
            2 => has(b'-') && has(b'/'),
            _ => s.len() > 6 && has(b'+'),
        };
        if fails {
            Outcome::Fail
        } else {
            Outcome::Pass
        }
    }
}

fn generated_exprs(seed: u64) -> Vec<Vec<u8>> {
    let g = Grammar::load("expr").unwrap();
    let probs = Probabilities::new(&g, None, ProbabilityMode::Uniform);
    let mut generator = Generator::new(&g, &probs, Limits::up_to(80), seed);
    (0..20).map(|_| generator.input()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_result_fails_and_is_never_larger(seed in 0u64..1000, which in 0u8..4, algo in 0usize..5) {
        let algorithm = [Algorithm::GtrStar, Algorithm::Gtr, Algorithm::HddStar, Algorithm::Hdd, Algorithm::Ddmin][algo];
        let g = Grammar::load("expr").unwrap();
        let oracle = property_oracle(which);
        for input in generated_exprs(seed).into_iter().filter(|i| oracle(i) == Outcome::Fail).take(3) {
            let r = reduce(&input, Some(&g), &oracle, &ReduceOptions { algorithm, ..ReduceOptions::default() }).unwrap();
            prop_assert_eq!(oracle(&r.input), Outcome::Fail);
            prop_assert!(r.input.len() <= input.len());
            prop_assert!(r.confirmed);
        }
    }

    #[test]
    fn ddmin_results_are_one_minimal(seed in 0u64..1000, which in 0u8..4) {
        let g = Grammar::load("expr").unwrap();
        let oracle = property_oracle(which);
        for input in generated_exprs(seed).into_iter().filter(|i| oracle(i) == Outcome::Fail).take(3) {
            let r = reduce(&input, Some(&g), &oracle, &ReduceOptions { algorithm: Algorithm::Ddmin, ..ReduceOptions::default() }).unwrap();
            let units = ddmin::units(&r.input);
            for k in 0..units.len() {
                let without: Vec<u8> = units.iter().enumerate().filter(|(i, _)| *i != k).flat_map(|(_, u)| u.clone()).collect();
                prop_assert_ne!(oracle(&without), Outcome::Fail, "removing unit {} of {:?} still fails", k, String::from_utf8_lossy(&r.input));
            }
        }
    }

    #[test]
    fn gtr_star_results_are_one_transformation_minimal(seed in 0u64..1000, which in 0u8..4) {
        // Exhaustively: no single candidate of any template at any node still fails and is smaller.
        let g = Grammar::load("expr").unwrap();
        let oracle = property_oracle(which);
        for input in generated_exprs(seed).into_iter().filter(|i| oracle(i) == Outcome::Fail).take(2) {
            let r = reduce(&input, Some(&g), &oracle, &ReduceOptions { byte_pass: false, passes: Vec::new(), ..ReduceOptions::default() }).unwrap();
            let mut d = Derivation::new(&g, Parser::new(&g).parse(&r.input).unwrap());
            let deletion = templates::GrammarDeletion { filter: None };
            let substitute = templates::GrammarSubstitute { filter: None };
            let all: [&dyn Template<Derivation<'_>>; 3] = [&deletion, &substitute, &templates::Cheapest];
            let mut nodes = Vec::new();
            d.tree.pre_order(d.tree.root(), |n| nodes.push(n));
            for node in nodes {
                for template in all {
                    for edit in template.candidates(&mut d, node) {
                        let candidate = d.unparse_with(&vec![(node, edit)]);
                        prop_assert!(
                            candidate.len() >= r.input.len() || oracle(&candidate) != Outcome::Fail,
                            "{} at {} turns {:?} into the smaller failing {:?}", template.name(), d.label(node),
                            String::from_utf8_lossy(&r.input), String::from_utf8_lossy(&candidate)
                        );
                    }
                }
            }
        }
    }
}
