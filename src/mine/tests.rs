//! Tests of mining and inversion against *Inputs from Hell*'s own example: Fig. 3 and Fig. 5.

use super::*;
use crate::grammar::Grammar;
use crate::parse::Parser;

/// The paper's arithmetic grammar in its BNF form (§2). Spaces (`_`) are added only between
/// tokens so that the paper's sample parses; they change no rule's alternatives.
const PAPER_GRAMMAR: &str = r#"
expr   = term | expr _ "+" _ term | expr _ "-" _ term ;
term   = factor | term _ "*" _ factor | term _ "/" _ factor ;
factor = int | "+" factor | "-" factor | "(" _ expr _ ")" ;
int    = digit int | digit ;
digit  = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" ;
_      = " "* ;
"#;

fn paper_model() -> (Grammar, Model) {
    let g = Grammar::from_text(PAPER_GRAMMAR, "paper.grammar").unwrap();
    let tree = Parser::new(&g).parse(b"1 + (2 * 3)").unwrap();
    let mut model = Model::new(&g);
    model.add_tree(&g, &tree);
    (g, model)
}

fn assert_probs(g: &Grammar, p: &Probabilities, name: &str, expected: &[f64]) {
    let got = p.of(g.symbol_by_name(name).unwrap());
    assert_eq!(got.len(), expected.len(), "{name}");
    for (k, (a, b)) in got.iter().zip(expected).enumerate() {
        assert!(
            (a - b).abs() < 1e-9,
            "{name} alternative {}: {a} != {b} (all: {got:?})",
            k + 1
        );
    }
}

#[test]
fn counts_of_the_papers_sample() {
    let (g, model) = paper_model();
    let counts = |n: &str| model.counts_of(&g, g.symbol_by_name(n).unwrap()).unwrap().to_vec();
    assert_eq!(counts("expr"), [2, 1, 0]);
    assert_eq!(counts("term"), [3, 1, 0]);
    assert_eq!(counts("factor"), [3, 0, 0, 1]);
    assert_eq!(counts("int"), [0, 3]);
    assert_eq!(counts("digit"), [0, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn figure_3_mined_probabilities() {
    let (g, model) = paper_model();
    let p = Probabilities::new(&g, Some(&model), ProbabilityMode::Mined);
    let third = 1.0 / 3.0;
    assert_probs(&g, &p, "expr", &[2.0 / 3.0, third, 0.0]);
    assert_probs(&g, &p, "term", &[0.75, 0.25, 0.0]);
    assert_probs(&g, &p, "factor", &[0.75, 0.0, 0.0, 0.25]);
    assert_probs(&g, &p, "int", &[0.0, 1.0]);
    assert_probs(
        &g,
        &p,
        "digit",
        &[0.0, third, third, third, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    );
    // The annotated grammar reads like the figure, with explicit 0% for what was never seen.
    let text = p.annotate(&g);
    for line in [
        r#"expr = 66.7% term | 33.3% expr _ "+" _ term | 0% expr _ "-" _ term ;"#,
        r#"term = 75% factor | 25% term _ "*" _ factor | 0% term _ "/" _ factor ;"#,
        r#"factor = 75% int | 0% "+" factor | 0% "-" factor | 25% "(" _ expr _ ")" ;"#,
        r#"int = 0% digit int | 100% digit ;"#,
        r#"digit = 0% "0" | 33.3% "1" | 33.3% "2" | 33.3% "3" | 0% "4" | 0% "5" | 0% "6" | 0% "7" | 0% "8" | 0% "9" ;"#,
    ] {
        assert!(text.lines().any(|l| l == line), "missing line\n{line}\nin\n{text}");
    }
}

#[test]
fn figure_5_inverted_probabilities() {
    let (g, model) = paper_model();
    let p = Probabilities::new(&g, Some(&model), ProbabilityMode::Inverted);
    let seventh = 1.0 / 7.0;
    assert_probs(&g, &p, "expr", &[0.0, 0.0, 1.0]);
    assert_probs(&g, &p, "term", &[0.0, 0.0, 1.0]);
    assert_probs(&g, &p, "factor", &[0.0, 0.5, 0.5, 0.0]);
    assert_probs(&g, &p, "int", &[1.0, 0.0]);
    assert_probs(
        &g,
        &p,
        "digit",
        &[
            seventh, 0.0, 0.0, 0.0, seventh, seventh, seventh, seventh, seventh, seventh,
        ],
    );
    let text = p.annotate(&g);
    assert!(
        text.contains(r#"digit = 14.3% "0" | 0% "1" | 0% "2" | 0% "3" | 14.3% "4" |"#),
        "{text}"
    );
}

#[test]
fn inversion_of_all_seen_is_plain_reciprocals() {
    // Eq. 6-7 without unseen alternatives: weights 1/3 and 1/1 normalize to 1/4 and 3/4.
    assert_eq!(probs_inverted_for(&[3, 1]), vec![0.25, 0.75]);
}

fn probs_inverted_for(counts: &[u64]) -> Vec<f64> {
    let g = Grammar::from_text(r#"s = "a" | "b" ;"#, "t").unwrap();
    let mut model = Model::new(&g);
    model.counts.insert("s".into(), counts.to_vec());
    Probabilities::new(&g, Some(&model), ProbabilityMode::Inverted)
        .of(g.start())
        .to_vec()
}

#[test]
fn unreached_choice_points_stay_uniform_or_hand_weighted() {
    let g = Grammar::from_text(r#"s = a | b ; a = "x" | "y" | "z" ; b = 60% "p" | "q" ;"#, "t").unwrap();
    let tree = Parser::new(&g).parse(b"x").unwrap();
    let mut model = Model::new(&g);
    model.add_tree(&g, &tree);
    for mode in [ProbabilityMode::Mined, ProbabilityMode::Inverted] {
        let p = Probabilities::new(&g, Some(&model), mode);
        assert_probs(&g, &p, "b", &[0.6, 0.4]);
    }
    assert_probs(
        &g,
        &Probabilities::new(&g, Some(&model), ProbabilityMode::Uniform),
        "b",
        &[0.5, 0.5],
    );
}

#[test]
fn empty_alternatives_zero_iterations_and_absent_optionals_are_counted() {
    let g = Grammar::from_text(r#"s = "<" item* ">" opt? ; item = "i" | ; opt = "o" ;"#, "t").unwrap();
    let tree = Parser::new(&g).parse(b"<>").unwrap();
    let mut model = Model::new(&g);
    model.add_tree(&g, &tree);
    assert_eq!(model.counts["s.1"], [1, 0]); // item*: stopped at once
    assert_eq!(model.counts["s.2"], [1, 0]); // opt?: absent
    let tree = Parser::new(&g).parse(b"<ii>o").unwrap();
    model.add_tree(&g, &tree);
    assert_eq!(model.counts["s.1"], [2, 2]);
    assert_eq!(model.counts["s.2"], [1, 1]);
    assert_eq!(model.counts["item"], [2, 0]);
}

#[test]
fn bounded_repetitions_count_only_real_choices() {
    let g = Grammar::from_text(r#"s = "a"{1,3} ;"#, "t").unwrap();
    let mut model = Model::new(&g);
    for input in ["a", "aa", "aaa"] {
        model.add_tree(&g, &Parser::new(&g).parse(input.as_bytes()).unwrap());
    }
    // Continues beyond the minimum: 0 + 1 + 2; stops: at 1 and 2 (at 3 the maximum stopped it).
    assert_eq!(model.counts["s"], [2, 3]);
}

#[test]
fn models_merge_and_refuse_other_grammars() {
    let (g, a) = paper_model();
    let mut b = a.clone();
    b.merge(&a).unwrap();
    assert_eq!(b.samples, 2);
    assert_eq!(b.counts["expr"], [4, 2, 0]);
    let other = Grammar::from_text(r#"s = "x" ;"#, "other.grammar").unwrap();
    let err = Model::new(&other).merge(&a).unwrap_err();
    assert!(
        err.to_string().contains("mined with another grammar (paper.grammar)"),
        "{err}"
    );
    assert!(a.check(&g).is_ok());
    assert!(a.check(&other).is_err());
}

#[test]
fn models_round_trip_through_json_files() {
    let (g, model) = paper_model();
    let dir = std::env::temp_dir().join(format!("hellfuzz-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.json");
    model.save(&path).unwrap();
    assert_eq!(Model::load(&path, &g).unwrap(), model);
    std::fs::write(&path, "{\"format\": \"nope\"}").unwrap();
    assert!(Model::load(&path, &g)
        .unwrap_err()
        .to_string()
        .contains("not a hellfuzz model"));
}

#[test]
fn annotated_grammar_loads_with_the_same_structure_and_probabilities() {
    for name in crate::grammar::builtin::names() {
        let g = Grammar::load(name).unwrap();
        let (model, skipped) = samples::mine_builtin(&g, name);
        assert!(skipped.is_empty(), "{name}: {skipped:?}");
        for mode in [ProbabilityMode::Mined, ProbabilityMode::Inverted] {
            let p = Probabilities::new(&g, Some(&model), mode);
            let text = p.annotate(&g);
            let again = Grammar::from_text(&text, "annotated").unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            assert_eq!(again.fingerprint(), g.fingerprint(), "{name}");
            for (i, s) in g.symbols().iter().enumerate() {
                if let crate::grammar::Body::Choice(alts) = &s.body {
                    if alts.len() > 1 {
                        let written = again.symbol(crate::grammar::SymbolId(i as u32)).alt_probabilities();
                        for (a, b) in written.iter().zip(p.of(crate::grammar::SymbolId(i as u32))) {
                            // Weights are printed to 0.1% and renormalized on loading.
                            assert!(
                                (a - b).abs() < 0.005,
                                "{name} {}: {written:?} vs {:?}",
                                s.name,
                                p.of(crate::grammar::SymbolId(i as u32))
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn context_instances_the_samples_never_reached_take_their_rules_counts() {
    // `s[loop]` is never reached by the sample: it takes the counts of `s`, its `break`
    // alternative (guarded, in `s[loop]` only) keeping no count.
    let g = Grammar::from_text(
        r#"p = s* ; s[loop] = "x;" | "y;" | [+loop] "break;" | "while{" s[+loop]* "}" ;"#,
        "ctx.grammar",
    )
    .unwrap();
    let tree = Parser::new(&g).parse(b"x;x;x;y;").unwrap();
    let mut model = Model::new(&g);
    model.add_tree(&g, &tree);
    let p = Probabilities::new(&g, Some(&model), ProbabilityMode::Mined);
    assert_probs(&g, &p, "s", &[0.75, 0.25, 0.0]);
    assert_probs(&g, &p, "s[loop]", &[0.75, 0.25, 0.0, 0.0]);
    // Inverted, the guarded alternative is one the samples never used: it gets its share.
    let inv = Probabilities::new(&g, Some(&model), ProbabilityMode::Inverted);
    assert_probs(&g, &inv, "s[loop]", &[0.0, 0.0, 0.5, 0.5]);
}

#[test]
fn copies_that_refine_wrote_and_the_samples_never_reached_take_their_rules_counts_when_mined() {
    // A grammar as `refine` writes it: `x[in s]` is a rule of its own (its own span, no
    // contexts), with one alternative dropped. Unreached, it takes `x`'s counts, alternative
    // by alternative, for "more of the same"; inverted, it draws uniformly.
    let g = Grammar::from_text(
        "s = \"a\" x | \"b\" `x[in s]` ;\nx = \"1\" | \"2\" | \"3\" | \"4\" ;\n`x[in s]` = \"1\" | \"3\" | \"4\" ;\n",
        "refined.grammar",
    )
    .unwrap();
    let mut model = Model::new(&g);
    for sample in [&b"a1"[..], b"a1", b"a2"] {
        model.add_tree(&g, &Parser::new(&g).parse(sample).unwrap());
    }
    let p = Probabilities::new(&g, Some(&model), ProbabilityMode::Mined);
    assert_probs(&g, &p, "x[in s]", &[1.0, 0.0, 0.0]);
    let inv = Probabilities::new(&g, Some(&model), ProbabilityMode::Inverted);
    assert_probs(&g, &inv, "x[in s]", &[1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]);
    assert_probs(&g, &inv, "x", &[0.0, 0.0, 0.5, 0.5]);
}

#[test]
fn profiles_keep_each_samples_size_characters_and_choices() {
    let g = Grammar::load("json").unwrap();
    let parser = Parser::new(&g);
    let mut model = Model::new(&g);
    model.add_tree(&g, &parser.parse(b"[1, 2]").unwrap());
    model.add_tree(&g, &parser.parse("\"h\u{e9}\"".as_bytes()).unwrap());
    assert_eq!(model.profiles.len(), 2);
    let (a, b) = (&model.profiles[0], &model.profiles[1]);
    assert_eq!((a.size, a.class_chars, a.non_ascii), (6, 0, 0));
    // `h` and `é` come from the string's mixed class; digits are ASCII-only classes.
    assert_eq!((b.size, b.class_chars, b.non_ascii), (5, 2, 1));
    // The model's counts are the sum of the samples' own counts.
    for (name, counts) in &model.counts {
        let sum: Vec<u64> = (0..counts.len())
            .map(|k| {
                model
                    .profiles
                    .iter()
                    .map(|p| p.counts.get(name).map_or(0, |c| c[k]))
                    .sum()
            })
            .collect();
        assert_eq!(&sum, counts, "{name}");
    }
    // Merging keeps both models' profiles; check refuses a profile that does not fit.
    let mut merged = model.clone();
    merged.merge(&model).unwrap();
    assert_eq!((merged.samples, merged.profiles.len()), (4, 4));
    merged.profiles[3].counts.insert("value".into(), vec![1]);
    assert!(merged.check(&g).is_err());
}

#[test]
fn like_sample_smooths_one_samples_counts_by_the_model() {
    let g = Grammar::load("json").unwrap();
    let parser = Parser::new(&g);
    let mut model = Model::new(&g);
    for s in [&b"[1, 2, 3]"[..], b"\"a\""] {
        model.add_tree(&g, &parser.parse(s).unwrap());
    }
    let mined = Probabilities::new(&g, Some(&model), ProbabilityMode::Mined);
    let value = g.symbol_by_name("value").unwrap();
    // value: object, array, string, number, true, false, null. The model: 1 array, 1 string,
    // 3 numbers of 5; the string sample alone: 1 string, with the model as one more observation.
    assert_probs(&g, &mined, "value", &[0.0, 0.2, 0.2, 0.6, 0.0, 0.0, 0.0]);
    let like = mined.like_sample(&g, &model.profiles[1], 1.0);
    assert_probs(&g, &like, "value", &[0.0, 0.1, 0.6, 0.3, 0.0, 0.0, 0.0]);
    // A choice point the sample never reached keeps the model's probabilities.
    let digits = g.symbol_by_name("int").unwrap();
    assert_eq!(like.of(digits), mined.of(digits));
    assert_eq!(like.of(value).len(), 7);
}

/// The paper's grammar with `Digit` as a character class: the digit choice is lexical, and
/// mining must count it per character as Fig. 3 counts the alternatives of `Digit`.
const LEXICAL_GRAMMAR: &str = r#"
expr   = term | expr _ "+" _ term | expr _ "-" _ term ;
term   = factor | term _ "*" _ factor | term _ "/" _ factor ;
factor = int | "+" factor | "-" factor | "(" _ expr _ ")" ;
int    = [0-9]+ ;
_      = " "* ;
%layout _ ;
"#;

#[test]
fn characters_of_a_class_are_mined_per_character_as_fig_3_and_5() {
    let g = Grammar::from_text(LEXICAL_GRAMMAR, "lexical.grammar").unwrap();
    let tree = Parser::new(&g).parse(b"1 + (2 * 3)").unwrap();
    let model = samples::model_of(&g, &[tree]);
    let digits = &model.chars["[0-9]"];
    assert_eq!(digits.chars, BTreeMap::from([('1', 1), ('2', 1), ('3', 1)]));
    let t = g.class_named("[0-9]").unwrap();
    let Terminal::Class { class, .. } = g.terminal(t) else {
        unreachable!()
    };
    // Fig. 3: the digits seen, a third each; the others never.
    let mined = Probabilities::new(&g, Some(&model), ProbabilityMode::Mined);
    let dist = mined.chars_of(t).unwrap();
    for c in '0'..='9' {
        let expected = if ('1'..='3').contains(&c) { 1.0 / 3.0 } else { 0.0 };
        assert!((dist.probability(c, class) - expected).abs() < 1e-9, "mined {c}");
    }
    // Fig. 5: the seven digits never seen share everything, 1/7 = 14.3 % each.
    let inverted = Probabilities::new(&g, Some(&model), ProbabilityMode::Inverted);
    let dist = inverted.chars_of(t).unwrap();
    for c in '0'..='9' {
        let expected = if ('1'..='3').contains(&c) { 0.0 } else { 1.0 / 7.0 };
        assert!((dist.probability(c, class) - expected).abs() < 1e-9, "inverted {c}");
    }
    // Generation follows them: "more of the same" writes only 1, 2 and 3; inverted output
    // only the seven others (and the operators the grammar has).
    for (mode, allowed) in [(ProbabilityMode::Mined, "123"), (ProbabilityMode::Inverted, "0456789")] {
        let probs = Probabilities::new(&g, Some(&model), mode);
        let mut gen = crate::generate::Generator::new(&g, &probs, crate::generate::Limits::up_to(200), 1);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..50 {
            let input = gen.input();
            seen.extend(input.iter().filter(|b| b.is_ascii_digit()).map(|&b| b as char));
        }
        let seen: String = seen.into_iter().collect();
        assert!(!seen.is_empty(), "{mode:?}: no digits at all");
        assert!(
            seen.chars().all(|c| allowed.contains(c)),
            "{mode:?}: digits {seen}, allowed {allowed}"
        );
        assert_eq!(
            seen.len(),
            allowed.len(),
            "{mode:?}: every allowed digit shows up in 50 inputs"
        );
    }
}

#[test]
fn layout_is_not_inverted_unless_asked() {
    let g = Grammar::from_text(LEXICAL_GRAMMAR, "lexical.grammar").unwrap();
    let tree = Parser::new(&g).parse(b"1 + (2 * 3)").unwrap();
    let model = samples::model_of(&g, &[tree]);
    let layout = g.symbol_by_name("_").unwrap();
    let mined = Probabilities::new(&g, Some(&model), ProbabilityMode::Mined);
    let inverted = Probabilities::new(&g, Some(&model), ProbabilityMode::Inverted);
    assert_eq!(
        inverted.of(layout),
        mined.of(layout),
        "layout keeps the samples' distribution"
    );
    // Content is inverted: `factor`'s unary alternatives, never seen, get everything.
    let factor = g.symbol_by_name("factor").unwrap();
    assert_eq!(inverted.of(factor)[1] + inverted.of(factor)[2], 1.0);
    let asked = Probabilities::new_with(&g, Some(&model), ProbabilityMode::Inverted, true);
    assert_ne!(asked.of(layout), mined.of(layout), "--invert-layout inverts it");
}

/// Words apart by a comma with layout around it, or by one whitespace character that is
/// content (tree-sitter-css's descendant combinator): one class, used by both.
const SHARED_CLASS_GRAMMAR: &str = r#"
list = word ( sep word )* ;
sep  = _ "," _ | [ \t\u{B}] ;
word = [a-c]+ ;
_    = [ \t\u{B}]* ;
%layout _ ;
"#;

#[test]
fn layout_keeps_the_samples_characters_of_a_class_content_uses_too() {
    let g = Grammar::from_text(SHARED_CLASS_GRAMMAR, "shared.grammar").unwrap();
    let trees: Vec<Tree> = ["a , b", "a b c"]
        .iter()
        .map(|s| Parser::new(&g).parse(s.as_bytes()).unwrap())
        .collect();
    let model = samples::model_of(&g, &trees);
    let inverted = Probabilities::new(&g, Some(&model), ProbabilityMode::Inverted);
    let layout = g.symbol_by_name("_").unwrap();
    let sep = g.symbol_by_name("sep").unwrap();
    let mut gen = crate::generate::Generator::new(&g, &inverted, crate::generate::Limits::up_to(60), 3);
    let (mut in_layout, mut in_content) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for _ in 0..100 {
        let tree = gen.tree();
        tree.pre_order(tree.root(), |n| {
            if let (crate::tree::NodeKind::Leaf { .. }, Some(parent)) = (tree.kind(n), tree.parent(n)) {
                let text = String::from_utf8(tree.unparse_node(n)).unwrap();
                match tree.kind(parent).symbol() {
                    Some(s) if s == layout => in_layout.extend(text.chars()),
                    Some(s) if s == sep && text != "," => in_content.extend(text.chars()),
                    _ => {}
                }
            }
        });
    }
    // Layout as the samples have it: spaces only. The content separator inverted: the tab and
    // the vertical tab no sample has.
    assert_eq!(in_layout.into_iter().collect::<String>(), " ");
    assert_eq!(in_content.into_iter().collect::<String>(), "\t\u{b}");
}

#[test]
fn char_counts_merge_and_old_models_are_refused_with_a_reason() {
    let g = Grammar::from_text(LEXICAL_GRAMMAR, "lexical.grammar").unwrap();
    let p = Parser::new(&g);
    let mut a = samples::model_of(&g, &[p.parse(b"12").unwrap()]);
    let b = samples::model_of(&g, &[p.parse(b"2 + 9").unwrap()]);
    a.merge(&b).unwrap();
    assert_eq!(a.chars["[0-9]"].chars, BTreeMap::from([('1', 1), ('2', 2), ('9', 1)]));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    a.save(&path).unwrap();
    assert_eq!(Model::load(&path, &g).unwrap(), a);
    let old = std::fs::read_to_string(&path)
        .unwrap()
        .replace(MODEL_FORMAT, "hellfuzz-model/1");
    std::fs::write(&path, old).unwrap();
    let err = Model::load(&path, &g).unwrap_err().to_string();
    assert!(err.contains("older hellfuzz") && err.contains("hellfuzz mine"), "{err}");
    // Beyond MAX_LISTED_CHARS distinct characters, the rest is counted together.
    let mut many = CharCounts::default();
    for c in (0..MAX_LISTED_CHARS as u32 + 10).filter_map(|i| char::from_u32(0x4E00 + i)) {
        many.add(c, 1);
    }
    assert_eq!(
        (many.chars.len(), many.other, many.total()),
        (MAX_LISTED_CHARS, 10, MAX_LISTED_CHARS as u64 + 10)
    );
}

#[test]
fn like_sample_takes_an_instance_with_one_alternative_left_by_its_guards() {
    // `end[a]` keeps one alternative and `decl[a]` too, the one `decl` shares with it: no
    // choice point, so nothing to pool from its siblings (this used to index out of bounds).
    let g = Grammar::from_text(
        "s = decl decl[+a] ;\ndecl[a] = \"x\" end[?a] | [~a] \"y;\" ;\nend[a] = [~a] \";\" | [+a] ;\n",
        "one.grammar",
    )
    .unwrap();
    let mut model = Model::new(&g);
    model.add_tree(&g, &Parser::new(&g).parse(b"x;x").unwrap());
    let mined = Probabilities::new(&g, Some(&model), ProbabilityMode::Mined);
    let like = mined.like_sample(&g, &model.profiles[0], 1.0);
    let one = g.symbol_by_name("decl[a]").unwrap();
    assert_eq!(like.of(one), mined.of(one));
}

/// A list in parentheses or brackets, with layout between every two tokens: the shape of an
/// imported tree-sitter grammar, where the layout rule stands before each token.
const PLACES_GRAMMAR: &str = r#"
list = _ "(" ( _ word )* _ ")" | _ "[" ( _ word )* _ "]" ;
word = [a-z]+ ;
_    = [ \n]* ;
%layout _ ;
"#;

/// Whether some input has layout right before `)` or `]`, and whether some has it before its
/// first word (between two words it may be a separator): for the place tests.
fn layout_before_close_and_words(inputs: &[Vec<u8>]) -> (bool, bool) {
    let text = |i: &Vec<u8>| String::from_utf8(i.clone()).unwrap();
    let close = inputs
        .iter()
        .map(text)
        .any(|t| t.contains(" )") || t.contains("\n)") || t.contains(" ]") || t.contains("\n]"));
    let words = inputs
        .iter()
        .map(text)
        .any(|t| t.contains("( ") || t.contains("(\n") || t.contains("[ ") || t.contains("[\n"));
    (close, words)
}

#[test]
fn layout_is_counted_per_place_by_its_rule_and_neighbours() {
    let g = Grammar::from_text(PLACES_GRAMMAR, "places.grammar").unwrap();
    let trees: Vec<Tree> = ["(a b\nc)", "( d e)", "(f)"]
        .iter()
        .map(|s| Parser::new(&g).parse(s.as_bytes()).unwrap())
        .collect();
    let model = samples::model_of(&g, &trees);
    let key = |suffix: &str| {
        let found: Vec<_> = model.layout.iter().filter(|(k, _)| k.ends_with(suffix)).collect();
        assert_eq!(found.len(), 1, "one place ends with {suffix:?}: {:?}", model.layout);
        found[0].1.clone()
    };
    // [stop, one more]: no layout before `(` or `)` in the three lists; before the six words,
    // three spaces and a line break (each a character of layout).
    assert_eq!(key(r#"list: ^ _ "(""#), [3, 0]);
    assert_eq!(key(r#"_ ")""#), [3, 0]);
    assert_eq!(key("^ _ word"), [6, 4]);
    // Brackets are in no sample: their places are not counted.
    assert!(model.layout.keys().all(|k| !k.contains('[')), "{:?}", model.layout);
    // The layout rule's own counts are all places together.
    let own = model.counts_of(&g, g.symbol_by_name("_").unwrap()).unwrap();
    assert_eq!(own, [12, 4]);
}

#[test]
fn layout_is_drawn_per_place_where_the_samples_have_it_and_nowhere_else() {
    let g = Grammar::from_text(PLACES_GRAMMAR, "places.grammar").unwrap();
    let trees: Vec<Tree> = ["(a b\nc)", "( d e)", "(f g h i)"]
        .iter()
        .map(|s| Parser::new(&g).parse(s.as_bytes()).unwrap())
        .collect();
    let model = samples::model_of(&g, &trees);
    let mut before = model.clone();
    before.layout.clear();
    let draw = |model: &Model, mode: ProbabilityMode, seed: u64| -> Vec<Vec<u8>> {
        let p = Probabilities::new(&g, Some(model), mode);
        let mut gen = crate::generate::Generator::new(&g, &p, crate::generate::Limits::up_to(40), seed);
        // Trees (every node drawn in PTC2's order) and bytes (completed depth first).
        let mut out: Vec<Vec<u8>> = (0..150).map(|_| gen.tree().unparse()).collect();
        out.extend((0..150).map(|_| gen.input()));
        out
    };
    for mode in [ProbabilityMode::Mined, ProbabilityMode::Inverted] {
        // Inverted, every list is in brackets, which no sample has: no layout inside them.
        let (close, words) = layout_before_close_and_words(&draw(&model, mode, 7));
        assert!(
            !close,
            "{mode:?}: no layout before a closing bracket, where no sample has any"
        );
        assert_eq!(
            words,
            mode == ProbabilityMode::Mined,
            "{mode:?}: layout before words as the samples"
        );
        // Without the places (a model of before them), layout goes anywhere: the test can fail.
        let (close, _) = layout_before_close_and_words(&draw(&before, mode, 7));
        assert!(
            close,
            "{mode:?}: one distribution for all places puts layout before `)`"
        );
    }
    // `--invert-layout` inverts layout everywhere, places or not.
    let p = Probabilities::new_with(&g, Some(&model), ProbabilityMode::Inverted, true);
    assert!(p.layout_places.is_none());
}

#[test]
fn layout_places_merge_and_models_without_them_still_load() {
    let g = Grammar::from_text(PLACES_GRAMMAR, "places.grammar").unwrap();
    let tree = |s: &str| Parser::new(&g).parse(s.as_bytes()).unwrap();
    let mut a = samples::model_of(&g, &[tree("( a)")]);
    let b = samples::model_of(&g, &[tree("(b )")]);
    a.merge(&b).unwrap();
    let close = a.layout.iter().find(|(k, _)| k.ends_with(r#"_ ")""#)).unwrap().1;
    assert_eq!(close, &[2, 1]);
    // A model written before places has no `layout` field: it loads, and draws as before.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.json");
    let mut json: serde_json::Value = serde_json::to_value(&a).unwrap();
    json.as_object_mut().unwrap().remove("layout");
    std::fs::write(&path, json.to_string()).unwrap();
    let old = Model::load(&path, &g).unwrap();
    assert!(old.layout.is_empty());
    assert!(Probabilities::new(&g, Some(&old), ProbabilityMode::Mined)
        .layout_places
        .is_none());
}
