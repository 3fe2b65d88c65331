//! Tests of refinement against acceptance checks whose boundary is known.

use super::edit::{Change, Place};
use super::*;
use crate::grammar::Grammar;
use proptest::prelude::*;

/// A JSON-like grammar that is a superset of JSON in two known places: a number may end in
/// its dot (`1.`), and a string may hold control characters.
const LOOSE_JSON: &str = r#"
value  = number | string | "[" ( value ( "," value )* )? "]" ;
number = "-"? digits ( "." [0-9]* )? ;
digits = "0" | [1-9] [0-9]* ;
string = "\"" [^"\\]* "\"" ;
"#;

const SAMPLES: &[&str] = &[
    r#"[1,2.5,"ab",["x y",-3.25]]"#,
    r#""plain text""#,
    r#"[0.75,[],"a,b",[[12]]]"#,
    r#"-40.125"#,
    r#"["é","",7]"#,
];

fn samples() -> Vec<Sample> {
    named_samples("sample", SAMPLES)
}

/// `texts` as samples named `{prefix}-0`, `{prefix}-1`, ...
fn named_samples(prefix: &str, texts: &[&str]) -> Vec<Sample> {
    texts
        .iter()
        .enumerate()
        .map(|(i, s)| Sample {
            name: format!("{prefix}-{i}"),
            bytes: s.as_bytes().to_vec(),
        })
        .collect()
}

/// serde_json is the parser whose language the grammar should learn.
fn json_accepts(input: &[u8]) -> Verdict {
    match serde_json::from_slice::<serde_json::Value>(input) {
        Ok(_) => Verdict::Accepted,
        Err(_) => Verdict::Rejected,
    }
}

fn options(seed: u64) -> Options {
    Options {
        per_round: 60,
        culprits: 12,
        max_time: Duration::from_secs(120),
        max_rounds: 8,
        jobs: 1,
        seed,
        max_size: 200,
        target_default: 1.0,
        target_inverted: 1.0,
        cancel: None,
    }
}

/// `g` refined with the issue's targets (95 % default, 90 % inverted) as [`options`] for
/// `seed` set them otherwise, and its edits file, to show when an assertion fails.
fn refined_to_targets(
    g: &Grammar,
    samples: &[Sample],
    accept: &(dyn Fn(&[u8]) -> Verdict + Sync),
    seed: u64,
) -> (Refined, String) {
    let mut opts = options(seed);
    opts.target_default = 0.95;
    opts.target_inverted = 0.9;
    let refined = refine(g, samples, accept, &opts, &mut |_| {}).unwrap();
    let edits = refined.edits_text(g.origin());
    (refined, edits)
}

/// Accepted if `ok`.
fn verdict(ok: bool) -> Verdict {
    if ok {
        Verdict::Accepted
    } else {
        Verdict::Rejected
    }
}

fn parses(g: &Grammar, input: &[u8]) -> bool {
    Parser::new(g).parse(input).is_ok()
}

/// `n` inputs of `g` mined from the samples `texts`, "more of the same" and inverted (`seed`, at most
/// `max_size` bytes).
fn generated(
    g: &Grammar,
    texts: &[&str],
    max_size: usize,
    seed: u64,
    n: usize,
) -> Vec<(ProbabilityMode, Vec<Vec<u8>>)> {
    let trees: Vec<Tree> = texts
        .iter()
        .map(|s| Parser::new(g).parse(s.as_bytes()).unwrap())
        .collect();
    let model = samples::model_of(g, &trees);
    [ProbabilityMode::Mined, ProbabilityMode::Inverted]
        .into_iter()
        .map(|mode| {
            let probs = Probabilities::new(g, Some(&model), mode);
            let mut gen = Generator::new(g, &probs, Limits::up_to(max_size), seed);
            (mode, (0..n).map(|_| gen.input()).collect())
        })
        .collect()
}

#[test]
fn refine_learns_json_numbers_and_strings_from_serde_json() {
    let g = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
    // The superset as given: a trailing dot and a control character both parse.
    assert!(parses(&g, b"1.") && parses(&g, b"\"\x01\""));
    let refined = refine(&g, &samples(), &json_accepts, &options(0), &mut |_| {}).unwrap();
    let r = &refined.grammar;
    for s in SAMPLES {
        assert!(parses(r, s.as_bytes()), "sample {s} no longer parses");
    }
    // The boundary is where serde_json draws it.
    assert!(!parses(r, b"1."), "a number ending in its dot still parses");
    assert!(!parses(r, b"[2.]"), "a number ending in its dot still parses");
    for c in [0x00u8, 0x01, 0x0A, 0x1F] {
        assert!(
            !parses(r, &[b'"', c, b'"']),
            "control character {c:#x} in a string still parses"
        );
    }
    // ... and no further: what JSON allows and the samples never had still parses.
    for ok in [
        &b"\"\x7F\""[..],
        b"\"~#\"",
        "\"\u{4E2D}\u{1F600}\"".as_bytes(),
        b"3.14159",
        b"[-0.5,[[]]]",
    ] {
        assert!(parses(r, ok), "{} no longer parses", String::from_utf8_lossy(ok));
    }
    // The edits name what they did and why.
    let text = refined.edits_text("loose.grammar");
    assert!(text.contains("narrowed class [^\"\\\\]"), "{text}");
    assert!(text.contains("at least 1 time(s)"), "{text}");
    assert!(text.contains("#   rejected: "), "{text}");
    // The refined text loads as the same grammar, and its output is all JSON.
    let reloaded = Grammar::from_text(&refined.text, "refined.grammar").unwrap();
    assert_eq!(reloaded.fingerprint(), r.fingerprint());
    for (mode, inputs) in generated(r, SAMPLES, 300, 9, 300) {
        for input in inputs {
            assert_eq!(
                json_accepts(&input),
                Verdict::Accepted,
                "{mode:?}: {}",
                String::from_utf8_lossy(&input)
            );
        }
    }
    assert_eq!(refined.stop, Some(Stop::Targets));
}

/// Inputs are drawn in seeded chunks and culprits' edits proposed on the workers: the
/// refinement is the same for every `-j`.
#[test]
fn refinement_is_the_same_for_every_number_of_jobs() {
    let g = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
    let run = |jobs: usize| {
        let mut o = options(3);
        o.jobs = jobs;
        o.max_rounds = 3;
        let refined = refine(&g, &samples(), &json_accepts, &o, &mut |_| {}).unwrap();
        let rounds: Vec<(usize, usize, usize)> = refined
            .rounds
            .iter()
            .map(|r| (r.default_accepted, r.inverted_accepted, r.edits))
            .collect();
        (refined.edits_text("loose.grammar"), refined.text, rounds)
    };
    let one = run(1);
    assert!(one.2.iter().any(|&(.., edits)| edits > 0), "{:?}", one.2);
    assert_eq!(run(2), one);
    assert_eq!(run(3), one);
}

#[test]
fn a_command_that_accepts_nothing_and_samples_that_do_not_parse_are_refused() {
    let g = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
    let err = refine(&g, &samples(), &|_: &[u8]| Verdict::Rejected, &options(0), &mut |_| {}).unwrap_err();
    assert!(matches!(err, RefineError::AllSamplesRejected { .. }), "{err}");
    assert!(err.to_string().contains("rejects every sample"), "{err}");
    let mut bad = samples();
    bad.push(Sample {
        name: "broken.json".into(),
        bytes: b"[1,2,,3]".to_vec(),
    });
    let err = refine(&g, &bad, &json_accepts, &options(0), &mut |_| {}).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("broken.json:1:6"), "{text}");
    let err = refine(&g, &[], &json_accepts, &options(0), &mut |_| {}).unwrap_err();
    assert!(matches!(err, RefineError::NoSamples));
    let err = refine(
        &g,
        &samples(),
        &|_: &[u8]| Verdict::NotRun("no such program".into()),
        &options(0),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("no such program"), "{err}");
}

#[test]
fn an_interrupted_refinement_returns_the_grammar_so_far() {
    let g = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
    let cancel = Arc::new(AtomicBool::new(false));
    let mut o = options(0);
    o.cancel = Some(cancel.clone());
    let mut rounds = 0;
    let refined = refine(&g, &samples(), &json_accepts, &o, &mut |r| {
        rounds += 1;
        assert!(Grammar::from_text(&r.text, "so-far.grammar").is_ok());
        cancel.store(true, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(refined.stop, Some(Stop::Interrupted));
    assert_eq!(rounds, 1);
    for s in SAMPLES {
        assert!(parses(&refined.grammar, s.as_bytes()));
    }
}

/// A refinement that runs out of rounds before the targets or the time says so (not "the
/// time is up", which would send the user to raise `--max-time` in vain).
#[test]
fn a_refinement_that_makes_its_most_rounds_stops_for_that() {
    let g = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
    let mut o = options(0);
    o.max_rounds = 1;
    let refined = refine(&g, &samples(), &json_accepts, &o, &mut |_| {}).unwrap();
    assert_eq!(refined.rounds.len(), 1);
    assert_eq!(refined.stop, Some(Stop::Rounds));
}

/// serde_json, and a length that is no multiple of three: a boundary no grammar edit draws, so
/// that the rounds stop finding better grammars.
fn json_not_thirds_accepts(input: &[u8]) -> Verdict {
    match json_accepts(input) {
        Verdict::Accepted if input.len() % 3 != 0 => Verdict::Accepted,
        _ => Verdict::Rejected,
    }
}

#[test]
fn a_refinement_that_stalls_starts_afresh_from_its_best_grammar() {
    let g = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
    let mut o = options(1);
    o.max_rounds = 60;
    // The grammar each round ended with (before it: the given one).
    let mut texts = vec![g.to_file_text()];
    let mut edits = vec![0];
    let refined = refine(&g, &samples(), &json_not_thirds_accepts, &o, &mut |r| {
        texts.push(r.text.clone());
        edits.push(r.edits.len());
    })
    .unwrap();
    let rounds = &refined.rounds;
    let restart = rounds
        .iter()
        .find(|r| r.restarted_from.is_some())
        .unwrap_or_else(|| panic!("no restart in {} rounds: {rounds:#?}", rounds.len()));
    let (at, from) = (restart.number, restart.restarted_from.unwrap_or(0));
    assert!(
        from < at && at - from >= RESTART_ROUNDS,
        "round {at} restarted from round {from}"
    );
    // No round measured since was better than the best, that of round `from`.
    let score = |r: &Round| shortfall(r.default_percent(), r.inverted_percent(), &o);
    let best = score(&rounds[from - 1]);
    for r in &rounds[from..at] {
        assert!(
            r.reverted > 0 || score(r) >= best,
            "round {} measured better than round {from}",
            r.number
        );
    }
    // Round `from` measured the grammar the round before it ended with: the restart takes it
    // up, with its edits, and the rounds go on from there.
    assert_eq!(
        texts[at],
        texts[from - 1],
        "the restart did not take up round {from}'s grammar"
    );
    assert_eq!(edits[at], edits[from - 1]);
    assert!(rounds.len() > at, "the refinement stopped at its restart");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Whatever the seed and whichever samples: every sample the command accepts still
    /// parses with the refined grammar, and the refined grammar's text loads.
    #[test]
    fn refinement_keeps_every_sample_parsing(seed in 0u64..1000, keep in proptest::collection::vec(any::<bool>(), SAMPLES.len())) {
        let g = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
        let chosen: Vec<Sample> = samples().into_iter().zip(&keep).filter(|(_, &k)| k).map(|(s, _)| s).collect();
        prop_assume!(!chosen.is_empty());
        let mut o = options(seed);
        o.max_rounds = 3;
        let refined = refine(&g, &chosen, &json_accepts, &o, &mut |_| {}).unwrap();
        for s in &chosen {
            prop_assert!(parses(&refined.grammar, &s.bytes), "{} no longer parses", s.name);
        }
        prop_assert!(Grammar::from_text(&refined.text, "refined.grammar").is_ok());
    }

    /// [`new_taken`] counts the new inputs [`remember`]'s interleaving keeps, one old and one
    /// new in turn up to the cap, as taking them one by one does.
    #[test]
    fn new_taken_counts_what_the_interleaving_keeps(old in 0usize..30, new in 0usize..30, cap in 0usize..40) {
        let (mut a, mut b) = (0, 0);
        while a + b < cap && (a < old || b < new) {
            if a < old {
                a += 1;
            }
            if a + b < cap && b < new {
                b += 1;
            }
        }
        prop_assert_eq!(new_taken(old, new, cap), b);
    }

    /// A class prints as text that loads as the same class.
    #[test]
    fn classes_print_and_load_as_the_same_class(ranges in proptest::collection::vec((0u32..0x11_0000, 0u32..300), 1..6), negate: bool) {
        let ranges: Vec<(u32, u32)> = ranges.into_iter().map(|(lo, n)| (lo, (lo + n).min(0x10FFFF))).collect();
        let class = CharClass::new(&ranges, negate);
        prop_assume!(!class.is_empty());
        let text = format!("x = {} ;", class.to_text());
        let g = Grammar::from_text(&text, "class.grammar").unwrap();
        let loaded = g.terminals().iter().find_map(|t| match t {
            Terminal::Class { class, .. } => Some(class.clone()),
            _ => None,
        });
        prop_assert_eq!(loaded, Some(class), "{}", text);
    }
}

/// A settings format whose boundary no context-free edit can draw: keys may not repeat, a
/// unit is one of a few words, a month is 01 to 12, and a year has four digits.
const SETTINGS: &str = r#"
doc   = line* ;
line  = key "=" value "\n" ;
key   = [a-z]+ ;
value = date | unit ;
date  = [0-9]{1,4} "-" month ;
month = [0-9] [0-9] ;
unit  = [a-z]+ ;
"#;

const SETTINGS_SAMPLES: &[&str] = &[
    "width=px\nheight=em\nsince=2024-01\n",
    "a=1999-12\nb=px\n",
    "margin=em\nupdated=2021-06\npadding=px\nborder=em\n",
    "start=2000-02\nend=2010-11\n",
];

/// The parser of the settings format.
fn settings_accepts(input: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(input) else {
        return Verdict::Rejected;
    };
    let mut keys = HashSet::new();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            return Verdict::Rejected;
        };
        if !keys.insert(key) {
            return Verdict::Rejected;
        }
        let ok = match value.split_once('-') {
            Some((year, month)) => year.len() == 4 && matches!(month.parse::<u32>(), Ok(1..=12)) && month.len() == 2,
            None => ["px", "em", "pt", "cm"].contains(&value),
        };
        if !ok {
            return Verdict::Rejected;
        }
    }
    Verdict::Accepted
}

#[test]
fn refine_learns_words_distinct_names_and_a_fewest_count_where_rules_cannot_say_it() {
    let g = Grammar::from_text(SETTINGS, "settings.grammar").unwrap();
    let samples = named_samples("settings", SETTINGS_SAMPLES);
    for s in &samples {
        assert_eq!(settings_accepts(&s.bytes), Verdict::Accepted, "{}", s.name);
    }
    let mut o = options(1);
    o.max_rounds = 12;
    o.target_default = 0.99;
    o.target_inverted = 0.99;
    let refined = refine(&g, &samples, &settings_accepts, &o, &mut |_| {}).unwrap();
    let r = &refined.grammar;
    let name = |s: SymbolId| crate::grammar::base_name(&r.symbol(s).name).to_string();
    // A unit is drawn from the words the parser takes; keys are kept distinct in a document.
    let values: Vec<String> = r.values().iter().map(|v| name(v.names[0])).collect();
    assert!(values.contains(&"unit".to_string()), "{values:?}\n{}", refined.text);
    let distinct: Vec<(String, String)> = r
        .distinct()
        .iter()
        .map(|d| (name(d.names[0]), name(d.scopes[0])))
        .collect();
    assert!(
        distinct.iter().any(|(n, _)| n == "key"),
        "{distinct:?}\n{}",
        refined.text
    );
    // A year has four digits: a rule edit, so a short year no longer parses.
    assert!(!parses(r, b"x=99-01\n"), "{}", refined.text);
    // Words and distinct names are for generation: what the parser takes and the samples
    // never had still parses.
    for ok in ["x=pt\n", "x=cm\ny=cm\n", "k=2030-09\n"] {
        assert!(parses(r, ok.as_bytes()), "{ok:?} no longer parses\n{}", refined.text);
    }
    for s in SETTINGS_SAMPLES {
        assert!(parses(r, s.as_bytes()));
    }
    // The text loads with its declarations, and generation keeps to the boundary.
    let reloaded = Grammar::from_text(&refined.text, "refined.grammar").unwrap();
    assert_eq!(reloaded.values().len(), r.values().len());
    assert_eq!(reloaded.distinct().len(), r.distinct().len());
    for (mode, inputs) in generated(r, SETTINGS_SAMPLES, 200, 3, 300) {
        let accepted = inputs
            .iter()
            .filter(|i| settings_accepts(i) == Verdict::Accepted)
            .count();
        assert!(
            accepted >= 285,
            "{mode:?}: {accepted} of 300 accepted\n{}",
            refined.text
        );
    }
    let text = refined.edits_text("settings.grammar");
    assert!(text.contains("drawn from the"), "{text}");
    assert!(text.contains("kept distinct within one"), "{text}");
}

/// Statements where an attribute is a statement of its own in the grammar, but the parser
/// wants a declaration after it (as tree-sitter-rust reads `#[test]`), and a number may not
/// start with 0.
const ATTRIBUTED: &str = r##"
file = item* ;
item = stmt ";" ;
stmt = attr | decl ;
attr = "#" [a-z]+ ;
decl = "let " [a-z]+ "=" [0-9]+ ;
"##;

fn attributed_accepts(input: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(input) else {
        return Verdict::Rejected;
    };
    let Some(body) = text.strip_suffix(';').or(text.is_empty().then_some("")) else {
        return Verdict::Rejected;
    };
    let mut attribute_open = false;
    for stmt in body.split(';').filter(|_| !body.is_empty()) {
        let ok = if let Some(name) = stmt.strip_prefix('#') {
            attribute_open = true;
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase())
        } else if let Some((name, number)) = stmt.strip_prefix("let ").and_then(|d| d.split_once('=')) {
            attribute_open = false;
            !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_lowercase())
                && !number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit())
                && (number == "0" || !number.starts_with('0'))
        } else {
            false
        };
        if !ok {
            return Verdict::Rejected;
        }
    }
    verdict(!attribute_open)
}

#[test]
fn isolation_looks_past_a_smallest_part_that_is_valid_only_where_it_stands() {
    let g = Grammar::from_text(ATTRIBUTED, "attributed.grammar").unwrap();
    let samples = ["#t;let a=1;", "let bb=22;", "#x;let c=3;let d=45;"];
    let trees: Vec<Tree> = samples
        .iter()
        .map(|s| {
            assert_eq!(attributed_accepts(s.as_bytes()), Verdict::Accepted, "{s}");
            Parser::new(&g).parse(s.as_bytes()).unwrap()
        })
        .collect();
    let good = isolate::Good::new(&g, &trees);
    let judge = Judge::new(&attributed_accepts);
    // The samples' smallest statement is `#t`, which is rejected at the end of an input: the
    // culprit is still found, inside the number (`0` alone is a number, so the `7` after it
    // may be the one to blame).
    let rejected = b"let a=1;let b=07;let c=2;";
    assert_eq!(attributed_accepts(b"let a=1;#t;"), Verdict::Rejected);
    let tree = Parser::new(&g).parse(rejected).unwrap();
    let culprit = isolate::isolate(&g, tree, &good, &judge).expect("a culprit");
    let text = culprit.tree.unparse_node(culprit.node);
    assert!(
        [&b"0"[..], b"7", b"07"].contains(&&text[..]),
        "culprit {:?}",
        String::from_utf8_lossy(&text)
    );
}

/// SQL's `IS` in small: any value after `=`, only `null` after `is`.
const IS: &str = r#"
cond  = name " = " value | name " is " value ;
value = name | "1" | "2" | "null" ;
name  = "a" | "b" ;
"#;

fn is_accepts(input: &[u8]) -> Verdict {
    let s = String::from_utf8_lossy(input);
    let value = |v: &str| ["a", "b", "1", "2", "null"].contains(&v);
    verdict(match s.split_once(' ') {
        Some((name, rest)) if ["a", "b"].contains(&name) => match rest.split_once(' ') {
            Some(("=", v)) => value(v),
            Some(("is", v)) => v == "null",
            _ => false,
        },
        _ => false,
    })
}

#[test]
fn isolation_tries_first_what_the_samples_have_at_the_same_place() {
    let g = Grammar::from_text(IS, "is.grammar").unwrap();
    let trees = trees_of(&g, &["a = b", "b is null", "a = 1", "b = 2"]);
    let good = isolate::Good::new(&g, &trees);
    let judge = Judge::new(&is_accepts);
    // The samples' three smallest values (`b`, `1`, `2`) and the cheapest are all wrong
    // after `is`; the `null` a sample has there is right, so the value is the culprit.
    let tree = Parser::new(&g).parse(b"a is b").unwrap();
    let culprit = isolate::isolate(&g, tree, &good, &judge).expect("a culprit");
    assert_eq!(culprit.tree.unparse_node(culprit.node), b"b");
    let place = place_of(&g, &culprit.tree, culprit.node).unwrap();
    assert_eq!(
        (g.symbol(place.parent).name.as_str(), place.alt, place.item),
        ("cond", Some(1), 2)
    );
}

/// A grammar as refinement leaves it after copying `ins` for `with(…)`, where the parser
/// takes only `insert … values` (as sqlparser takes no `REPLACE` nor `INSERT … SET` in a
/// `WITH` query). The shorter choices are the cheapest derivation.
const IN_WITH: &str = r#"
program = stmt ( ";" stmt )* ;
stmt    = "with(" `ins[in stmt]` ")" | ins ;
ins     = ( "rep" | "insert" ) " t " ( "set" | "values" ) ;
`ins[in stmt]` = ( "rep" | "insert" ) " t " ( "set" | "values" ) ;
"#;

fn in_with_accepts(input: &[u8]) -> Verdict {
    let s = String::from_utf8_lossy(input);
    let top = |x: &str| {
        let w: Vec<&str> = x.split(' ').collect();
        matches!(w[..], ["rep" | "insert", "t", "set" | "values"])
    };
    verdict(s.split(';').all(
        |stmt| match stmt.strip_prefix("with(").and_then(|x| x.strip_suffix(')')) {
            Some(inner) => inner == "insert t values",
            None => top(stmt),
        },
    ))
}

/// Kinds of `tree`'s nodes in pre-order.
fn kinds(tree: &Tree) -> Vec<NodeKind> {
    let mut out = Vec::new();
    tree.pre_order(tree.root(), |n| out.push(tree.kind(n)));
    out
}

#[test]
fn isolation_finds_one_of_two_faults_in_a_copy_the_samples_never_use() {
    let g = Grammar::from_text(IN_WITH, "in_with.grammar").unwrap();
    let sym = |name: &str| SymbolId(g.symbols().iter().position(|s| s.name == name).unwrap() as u32);
    let (ins, copy) = (sym("ins"), sym("ins[in stmt]"));
    // The copy and its groups are filed with `ins` and its groups.
    let canon = isolate::canonical(&g);
    assert_eq!(canon[copy.index()], ins);
    let groups = |s: SymbolId| -> Vec<SymbolId> {
        g.symbol(s).alternatives()[0]
            .items
            .iter()
            .filter_map(|i| match *i {
                Item::Symbol(x) => Some(x),
                Item::Terminal(_) => None,
            })
            .collect()
    };
    for (a, b) in groups(copy).into_iter().zip(groups(ins)) {
        assert_ne!(a, b);
        assert_eq!(canon[a.index()], b);
    }
    let samples = ["rep t set;insert t values", "insert t set"];
    assert_all_accepted(&samples, &in_with_accepts);
    let trees = trees_of(&g, &samples);
    let good = isolate::Good::new(&g, &trees);
    let judge = Judge::new(&in_with_accepts);
    // Every whole `ins` the samples have, and the cheapest, is as wrong in `with(…)`; only
    // the parts inside it, taken from the samples' `ins`, make it accepted. The first fault
    // is the culprit, in the copy.
    let tree = Parser::new(&g).parse(b"with(rep t set)").unwrap();
    assert_eq!(in_with_accepts(b"with(rep t set)"), Verdict::Rejected);
    let culprit = isolate::isolate(&g, tree, &good, &judge).expect("a culprit");
    assert_eq!(culprit.tree.unparse_node(culprit.node), b"rep");
    let parent = culprit.tree.parent(culprit.node).unwrap();
    assert_eq!(culprit.tree.kind(parent).symbol(), Some(copy));
    // What stands in for `set` is a sample's, relabeled as the copy's own: the tree is the
    // derivation the parser gives its text.
    assert_eq!(culprit.tree.unparse(), b"with(rep t values)");
    let reparsed = Parser::new(&g).parse(&culprit.tree.unparse()).unwrap();
    assert_eq!(kinds(&culprit.tree.compact()), kinds(&reparsed));
}

#[test]
fn acceptance_fell_only_beyond_a_rounds_noise() {
    let round = |d: usize, i: usize| Round {
        default_tried: 200,
        default_accepted: d,
        inverted_tried: 200,
        inverted_accepted: i,
        ..Round::default()
    };
    // rust's `let` statement dropped: 43.5 % to 31.5 % of "more of the same".
    assert!(fell(&round(87, 3), &round(63, 5)));
    // Inverted inputs bought with "more of the same" (sql): a fall all the same.
    assert!(fell(&round(147, 11), &round(101, 59)));
    // A few points either way is one round's noise.
    assert!(!fell(&round(87, 3), &round(80, 3)));
    assert!(!fell(&round(100, 100), &round(100, 100)));
    assert!(!fell(&round(0, 0), &round(0, 0)));
    // Under a tenth accepted, what the parser takes is mostly flukes (sql's inverted inputs
    // after `BEGIN END`, which it takes with anything after): 6.5 % to none is no fall.
    assert!(!fell(&round(200, 13), &round(199, 0)));
    // From a tenth up it is.
    assert!(fell(&round(200, 30), &round(199, 5)));
}

#[test]
fn targets_are_confirmed_only_beyond_the_measurements_noise() {
    let options = Options::default();
    let round = |d: usize, i: usize| Round {
        default_tried: 1000,
        default_accepted: d,
        inverted_tried: 1000,
        inverted_accepted: i,
        ..Round::default()
    };
    // CSS's confirmation: 95.0 % on 1,000 inputs, where the eval's 3,000 gave 94.0 %.
    assert!(meets_targets(&round(950, 955), &options));
    assert!(!surely_meets_targets(&round(950, 955), &options));
    // Two standard errors above: 96.5 % and 92 % are sure.
    assert!(surely_meets_targets(&round(965, 920), &options));
    assert!(!surely_meets_targets(&round(965, 910), &options));
    // All accepted has no noise; nothing measured meets nothing.
    assert!(surely_meets_targets(&round(1000, 1000), &options));
    assert!(!surely_meets_targets(&Round::default(), &options));
}

proptest! {
    #[test]
    fn acceptance_that_rose_in_both_modes_never_fell(d in 0usize..=200, i in 0usize..=200, dd in 0usize..=200, di in 0usize..=200) {
        let round = |d: usize, i: usize| Round {
            default_tried: 200,
            default_accepted: d.min(200),
            inverted_tried: 200,
            inverted_accepted: i.min(200),
            ..Round::default()
        };
        prop_assert!(!fell(&round(d, i), &round(d + dd, i + di)));
    }
}

/// A language with keyword extraction and a macro whose body takes any words: `m(let x)` is
/// valid, with `let` read as a name there (as in a Rust macro's token tree).
const MACROS: &str = r#"
%layout _ ;
%word id ;
s = stmt* _ ;
stmt = _ "let" _ id _ "=" _ id _ ";" | _ "m" _ "(" ( _ id )* _ ")" ;
id = [a-z]+ ;
_ = " "* ;
"#;

#[test]
fn words_to_draw_never_spell_a_keyword() {
    let g = Grammar::from_text(MACROS, "macros.grammar").unwrap();
    let trees = vec![Parser::new(&g).parse(b"let a = b; m(let x) let c = a;").unwrap()];
    let texts = Texts::new(&g, &trees);
    let words = |rule: &str| -> Vec<String> {
        let sym = g.symbol_by_name(rule).unwrap();
        texts
            .words(sym)
            .unwrap_or_default()
            .iter()
            .map(|w| String::from_utf8_lossy(&w.text).into_owned())
            .collect()
    };
    // `let` is a name in the macro, but drawn as a name it would be rejected everywhere else.
    assert_eq!(words("id"), ["a", "b", "c", "x"]);
    // Nor is the macro a word: its text holds the keyword.
    let stmts = words("stmt");
    assert!(stmts.iter().all(|s| !s.contains("m(")), "{stmts:?}");
    assert!(stmts.contains(&"let a = b;".to_string()), "{stmts:?}");
}

/// As [`MACROS`], with SQL's keywords: rules of letters in either case.
const ANY_CASE: &str = r#"
%layout _ ;
%word id ;
s = stmt* _ ;
stmt = _ kw_let _ id _ "=" _ id _ ";" | _ "m" _ "(" ( _ id )* _ ")" ;
kw_let = [Ll] [Ee] [Tt] ;
id = [a-zA-Z]+ ;
_ = " "* ;
"#;

#[test]
fn words_to_draw_never_spell_a_keyword_of_letters_in_either_case() {
    let g = Grammar::from_text(ANY_CASE, "any-case.grammar").unwrap();
    let trees = vec![Parser::new(&g).parse(b"LET a = b; m(lEt x Y) let c = a;").unwrap()];
    let texts = Texts::new(&g, &trees);
    let sym = g.symbol_by_name("id").unwrap();
    let words: Vec<String> = texts
        .words(sym)
        .unwrap_or_default()
        .iter()
        .map(|w| String::from_utf8_lossy(&w.text).into_owned())
        .collect();
    assert_eq!(words, ["a", "Y", "b", "c", "x"]);
}

#[test]
fn a_rule_copied_for_one_place_has_groups_of_its_own() {
    let g = Grammar::from_text(
        r#"s = a "|" b ; a = sep ; b = sep ; sep = ( " " | "/**/" )* ;"#,
        "t.grammar",
    )
    .unwrap();
    let id = |name: &str| g.symbol_by_name(name).unwrap();
    let specialize = Change::Specialize {
        sym: id("sep"),
        place: Place {
            parent: id("a"),
            alt: Some(0),
            item: 0,
        },
    };
    // The copy alone is the same language.
    let copied = edit::apply(&g, std::slice::from_ref(&specialize), "t.grammar").unwrap();
    assert!(parses(&copied.grammar, b" /**/| /**/ "));
    assert!(copied.text.contains("sep[in a]"), "{}", copied.text);
    // Edits are made together: the space dropped from the original's group (where `b` uses
    // it) after the copy for `a` was made leaves `a` its spaces.
    let crate::grammar::Body::Repeat {
        item: crate::grammar::Item::Symbol(group),
        ..
    } = g.symbol(id("sep")).body
    else {
        panic!("sep is a repetition of a group");
    };
    let drop_space = Change::DropAlternativeAt {
        sym: group,
        alt: 0,
        place: Place {
            parent: id("sep"),
            alt: None,
            item: 0,
        },
    };
    let edited = edit::apply(&g, &[specialize, drop_space], "t.grammar").unwrap().grammar;
    assert!(parses(&edited, b" /**/|/**/"), "`a` lost its spaces with `b`");
    assert!(!parses(&edited, b"| "), "a space is still layout in `b`");
}

#[test]
fn a_copy_named_at_two_places_of_its_rule_is_copied_again_for_one() {
    // As Rust's item-level macro call after a `JoinAfter` edit: the same copy alone (where
    // only braces are valid) and before its `;` (where parentheses are too).
    let g = Grammar::from_text(
        "file = stmt* ;\nstmt = `m[in stmt]` | `m[in stmt]` \";\" ;\n`m[in stmt]` = \"m!\" tt ;\ntt = \"(\" \")\" | \"{\" \"}\" ;\n",
        "t.grammar",
    )
    .unwrap();
    let id = |g: &Grammar, name: &str| g.symbol_by_name(name).unwrap();
    let alone = Change::Specialize {
        sym: id(&g, "m[in stmt]"),
        place: Place {
            parent: id(&g, "stmt"),
            alt: Some(0),
            item: 0,
        },
    };
    let copied = edit::apply(&g, &[alone], "t.grammar")
        .expect("a copy for the place alone")
        .grammar;
    let copy = id(&copied, "m[in stmt 2]");
    let braces_only = Change::DropAlternativeAt {
        sym: id(&copied, "tt"),
        alt: 0,
        place: Place {
            parent: copy,
            alt: Some(0),
            item: 1,
        },
    };
    let edited = edit::apply(&copied, &[braces_only], "t.grammar").unwrap().grammar;
    assert!(parses(&edited, b"m!{}m!();m!{};"));
    assert!(!parses(&edited, b"m!()"), "parentheses without `;`");
}

#[test]
fn edits_refused_in_a_rule_and_its_copies_are_forgotten_for_that_rule_alone() {
    let mut refused = Refused::default();
    for key in [
        "dropped alternative 1 of `tt[in m[in stmt]]` (\"(\" \")\") where `m[in stmt]` uses it",
        "dropped alternative 1 of `tt[in m[in stmt] 2]` (\"(\" \")\") where `m[in stmt]` uses it",
        "dropped alternative 2 of `m[in stmt]` (x) everywhere",
        "dropped alternative 1 of `tt[in m[in stmt 2]]` (\"(\" \")\") where `m[in stmt 2]` uses it",
        "dropped alternative 1 of `tt` (\"(\" \")\") everywhere",
    ] {
        refused.insert(key.to_string());
    }
    forget_refused(&mut refused, "m[in stmt]");
    let mut left: Vec<&str> = refused.until.keys().map(String::as_str).collect();
    left.sort();
    assert_eq!(
        left,
        [
            "dropped alternative 1 of `tt[in m[in stmt 2]]` (\"(\" \")\") where `m[in stmt 2]` uses it",
            "dropped alternative 1 of `tt` (\"(\" \")\") everywhere",
        ]
    );
}

/// `?name` is a type only in a bound (as Rust's `?Sized`): a grammar that allows it in every
/// type, and samples whose first types are all in `let`s.
const BOUNDS: &str = r#"
prog = item* ;
item = "let " id ":" ty ";" | "fn " id "<" id ":" ty ">;" ;
ty = id | "?" id ;
id = [a-z]+ ;
"#;

fn bounds_accepts(input: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(input) else {
        return Verdict::Rejected;
    };
    let name = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase());
    let mut rest = text;
    while !rest.is_empty() {
        let ok = if let Some(r) = rest.strip_prefix("let ") {
            r.split_once(';').and_then(|(decl, after)| {
                let (x, t) = decl.split_once(':')?;
                rest = after;
                Some(name(x) && name(t))
            })
        } else if let Some(r) = rest.strip_prefix("fn ") {
            r.split_once(">;").and_then(|(sig, after)| {
                let (f, bound) = sig.split_once('<')?;
                let (t, b) = bound.split_once(':')?;
                rest = after;
                Some(name(f) && name(t) && name(b.strip_prefix('?').unwrap_or(b)))
            })
        } else {
            None
        };
        if ok != Some(true) {
            return Verdict::Rejected;
        }
    }
    Verdict::Accepted
}

#[test]
fn an_alternative_valid_at_another_place_is_dropped_only_where_it_is_not() {
    let g = Grammar::from_text(BOUNDS, "bounds.grammar").unwrap();
    let texts = ["let a:b;let c:d;let e:f;fn g<h:i>;", "let x:y;fn z<t:u>;let v:w;"];
    let samples = named_samples("sample", &texts);
    let trees = trees_of(&g, &texts);
    // The culprit `?b` in a `let`: the spots to try it at are the other places' (a few of
    // each, from different samples), so the bound is among them although the samples' first
    // types are all in `let`s.
    let ty = g.symbol_by_name("ty").unwrap();
    let item = g.symbol_by_name("item").unwrap();
    let in_let = Place {
        parent: item,
        alt: Some(0),
        item: 3,
    };
    let spots = spots_at_places(&g, &trees, ty, in_let, OTHER_PLACES);
    let texts_around: Vec<String> = spots
        .iter()
        .map(|&(t, n)| String::from_utf8_lossy(&t.unparse_node(t.parent(n).unwrap())).into_owned())
        .collect();
    assert_eq!(texts_around, ["fn g<h:i>;", "fn z<t:u>;"]);
    // So refine drops `?` from the `let`s and keeps it in bounds.
    let (refined, edits) = refined_to_targets(&g, &samples, &bounds_accepts, 3);
    let r = &refined.grammar;
    assert!(!parses(r, b"let a:?b;"), "{edits}");
    assert!(parses(r, b"fn f<t:?s>;"), "`?` dropped in bounds too:\n{edits}");
}

/// Statements and `begin … end` blocks, a superset of [`blocks_accepts`]'s language in two
/// known places: `begin` needs its `;` when a statement follows, and `!` is no statement's end.
const BLOCKS: &str = r#"
program = ( stmt ";" )* ;
stmt    = "sel:" name | "sel:" name "!" | "halt" | "begin" ";"? ( "sel:" name ";" )* "end" ;
name    = [a-z]+ ;
"#;

/// The parser of [`BLOCKS`]'s language, with sqlparser's quirk after `BEGIN END`: past a
/// `halt` it reads no further, so whatever follows is accepted.
fn blocks_accepts(input: &[u8]) -> Verdict {
    fn sel(s: &str) -> Option<&str> {
        let s = s.strip_prefix("sel:")?;
        let n = s.bytes().take_while(u8::is_ascii_lowercase).count();
        (n > 0).then(|| s[n..].strip_prefix(';')).flatten()
    }
    let Ok(mut s) = std::str::from_utf8(input) else {
        return Verdict::Rejected;
    };
    loop {
        if s.is_empty() || s.starts_with("halt") {
            return Verdict::Accepted;
        }
        if let Some(rest) = sel(s) {
            s = rest;
        } else if let Some(rest) = s.strip_prefix("begin") {
            if let Some(rest) = rest.strip_prefix("end;") {
                s = rest;
                continue;
            }
            let Some(mut rest) = rest.strip_prefix(';') else {
                return Verdict::Rejected;
            };
            while let Some(r) = sel(rest) {
                rest = r;
            }
            let Some(rest) = rest.strip_prefix("end;") else {
                return Verdict::Rejected;
            };
            s = rest;
        } else {
            return Verdict::Rejected;
        }
    }
}

#[test]
fn a_choice_before_the_culprit_that_only_what_follows_shows_wrong_is_edited() {
    let g = Grammar::from_text(BLOCKS, "blocks.grammar").unwrap();
    let texts = ["sel:a;sel:bc;", "sel:x;"];
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&blocks_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    // `begin end;` is valid, so the block is not to blame, and no statement in it is valid
    // either: what is wrong is the missing `;` before them.
    let rejected = Parser::new(&g).parse(b"beginsel:a;end;").unwrap();
    let culprit = isolate::isolate(&g, rejected, &good, &judge).unwrap();
    assert_eq!(culprit.tree.unparse_node(culprit.node), b"sel:a;");
    let edits = rule_edits(&g, &culprit, &trees, &good, &facts, &judge, 1);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    let semicolon = |e: &Change| matches!(e, Change::Bound { min: 1, .. });
    assert!(edits.first().is_some_and(semicolon), "{described:?}");
    let refined = edit::apply(&g, &edits[..1], "blocks.grammar").unwrap().grammar;
    assert!(!parses(&refined, b"beginsel:a;end;"));
    assert!(parses(&refined, b"begin;sel:a;end;"));
}

#[test]
fn an_input_the_parser_did_not_read_to_its_end_blocks_no_edit() {
    let g = Grammar::from_text(BLOCKS, "blocks.grammar").unwrap();
    let samples = named_samples("sample", &["sel:a;sel:bc;", "sel:x;begin;sel:y;end;"]);
    // Inverted inputs put `halt` first as often as not, and the parser takes whatever follows
    // it: were those inputs known to be in the language, `!` could not be dropped.
    let (refined, edits) = refined_to_targets(&g, &samples, &blocks_accepts, 5);
    let r = &refined.grammar;
    assert!(!parses(r, b"sel:a!;"), "{edits}");
    assert!(parses(r, b"halt;sel:a;"), "{edits}");
    assert!(parses(r, b"begin;sel:a;end;sel:b;"), "{edits}");
}

/// A file with an optional `#!` line first, a superset of [`shebang_accepts`]'s language in
/// one known place: layout before the `#!`, where no sample has one.
const SHEBANG: &str = r##"
file = ( _ "#!" name "\n" )? ( "sel:" name ";" )* ;
_    = [ \t]* ;
name = [a-z]+ ;
"##;

/// The `#!` line only at the very start, as syn and rustc have it.
fn shebang_accepts(input: &[u8]) -> Verdict {
    let Ok(s) = std::str::from_utf8(input) else {
        return Verdict::Rejected;
    };
    let mut rest = match s.strip_prefix("#!") {
        Some(line) => match line.split_once('\n') {
            Some((name, rest)) if !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase()) => rest,
            _ => return Verdict::Rejected,
        },
        None => s,
    };
    while !rest.is_empty() {
        let Some(r) = rest.strip_prefix("sel:") else {
            return Verdict::Rejected;
        };
        let n = r.bytes().take_while(u8::is_ascii_lowercase).count();
        match r[n..].strip_prefix(';') {
            Some(r) if n > 0 => rest = r,
            _ => return Verdict::Rejected,
        }
    }
    Verdict::Accepted
}

#[test]
fn a_count_where_no_sample_goes_is_bounded_as_the_parser_says() {
    let g = Grammar::from_text(SHEBANG, "shebang.grammar").unwrap();
    // No sample has a `#!` line, but accepted inputs will: dropping it is refused, and what
    // remains is the layout before it, at a place no sample reaches.
    let samples = named_samples("sample", &["sel:a;sel:bc;", "sel:x;"]);
    let (refined, edits) = refined_to_targets(&g, &samples, &shebang_accepts, 2);
    let r = &refined.grammar;
    assert!(!parses(r, b" #!x\nsel:a;"), "{edits}");
    assert!(parses(r, b"#!x\nsel:a;"), "{edits}");
}

proptest! {
    /// Taken back alone (the only edit, or a solo round's), an edit is refused; with others,
    /// it is on probation, shared the first time and alone after that. No key is in both.
    #[test]
    fn an_edit_is_refused_only_when_taken_back_alone(
        rounds in proptest::collection::vec((proptest::collection::btree_set(0u8..6, 1..4), any::<bool>()), 1..8),
    ) {
        let (mut refused, mut probation) = (Refused::default(), HashMap::new());
        for (keys, solo) in rounds {
            // A refused edit is never made again, so never taken back again.
            let keys: Vec<String> = keys.iter().map(|k| k.to_string()).filter(|k| !refused.contains(k)).collect();
            if keys.is_empty() {
                continue;
            }
            let before = probation.clone();
            take_back(keys.clone(), solo, &mut refused, &mut probation);
            for k in &keys {
                let to_blame = solo || keys.len() == 1;
                prop_assert_eq!(refused.contains(k), to_blame);
                let stage = if to_blame {
                    None
                } else if before.contains_key(k) {
                    Some(Probation::Alone)
                } else {
                    Some(Probation::Shared)
                };
                prop_assert_eq!(probation.get(k).copied(), stage);
            }
        }
    }
}

/// Style sheets in little: a rule set's block holds declarations and nested rules, a
/// `@scope` block (the same `block` rule) nested rules only, as CSS has it.
const SCOPED: &str = r#"
sheet = ( rule | scope )* ;
rule  = name block ;
scope = "@scope" block ;
block = "{" item* "}" ;
item  = decl | rule ;
decl  = name ":" name ";" ;
name  = [a-z]+ ;
"#;

/// The parser of [`SCOPED`]'s language.
fn scoped_accepts(input: &[u8]) -> Verdict {
    scoped_parser(input, false)
}

/// The same, with a quirk of the kind real parsers have: in a `@scope` block it takes a
/// declaration whose value is its name and a `z` (reading it as something else).
fn quirky_scoped_accepts(input: &[u8]) -> Verdict {
    scoped_parser(input, true)
}

fn scoped_parser(input: &[u8], quirk: bool) -> Verdict {
    fn name(s: &[u8]) -> Option<(&[u8], &[u8])> {
        let n = s.iter().take_while(|b| b.is_ascii_lowercase()).count();
        (n > 0).then(|| s.split_at(n))
    }
    // Blocks nest no deeper than the short inputs of the tests; a depth bound keeps it so.
    fn block(s: &[u8], scope: bool, quirk: bool, depth: usize) -> Option<&[u8]> {
        let mut s = s.strip_prefix(b"{")?;
        if depth >= 64 {
            return None;
        }
        loop {
            if let Some(rest) = s.strip_prefix(b"}") {
                return Some(rest);
            }
            let (n, rest) = name(s)?;
            s = match rest.strip_prefix(b":") {
                Some(value) => {
                    let (v, rest) = name(value)?;
                    if scope && !(quirk && v.strip_suffix(b"z") == Some(n)) {
                        return None;
                    }
                    rest.strip_prefix(b";")?
                }
                None => block(rest, false, quirk, depth + 1)?,
            };
        }
    }
    let mut s = input;
    while !s.is_empty() {
        let rest = match s.strip_prefix(b"@scope") {
            Some(rest) => block(rest, true, quirk, 0),
            None => name(s).and_then(|(_, rest)| block(rest, false, quirk, 0)),
        };
        let Some(rest) = rest else {
            return Verdict::Rejected;
        };
        s = rest;
    }
    Verdict::Accepted
}

const SCOPED_SAMPLES: &[&str] = &["a{b:c;}", "d{e:f;g{h:i;}}", "j{k{l:m;}n:o;}"];

fn scoped_trees(g: &Grammar) -> Vec<Tree> {
    SCOPED_SAMPLES
        .iter()
        .map(|s| {
            assert_eq!(scoped_accepts(s.as_bytes()), Verdict::Accepted, "{s}");
            Parser::new(g).parse(s.as_bytes()).unwrap()
        })
        .collect()
}

#[test]
fn isolation_replaces_a_part_by_its_cheapest_where_no_samples_part_is_valid() {
    let g = Grammar::from_text(SCOPED, "scoped.grammar").unwrap();
    let trees = scoped_trees(&g);
    let good = Good::new(&g, &trees);
    let judge = Judge::new(&scoped_accepts);
    // Every block of the samples holds a declaration, which a `@scope` block rejects: only
    // the cheapest block (`{}`) shows that the block's content is to blame, not the `@scope`.
    assert_eq!(scoped_accepts(b"@scope{b:c;}"), Verdict::Rejected);
    assert_eq!(scoped_accepts(b"@scope{}"), Verdict::Accepted);
    let rejected = Parser::new(&g).parse(b"@scope{p{q:r;}s:t;}").unwrap();
    let culprit = isolate::isolate(&g, rejected, &good, &judge).expect("a culprit");
    assert_eq!(
        String::from_utf8_lossy(&culprit.tree.unparse_node(culprit.node)),
        "s:t;"
    );
}

#[test]
fn a_choice_wrong_in_one_context_of_a_shared_rule_is_dropped_in_a_copy_for_it() {
    let g = Grammar::from_text(SCOPED, "scoped.grammar").unwrap();
    let samples = named_samples("sample", SCOPED_SAMPLES);
    let (refined, edits) = refined_to_targets(&g, &samples, &scoped_accepts, 3);
    let r = &refined.grammar;
    assert!(!parses(r, b"@scope{b:c;}"), "{edits}");
    assert!(parses(r, b"@scope{a{b:c;}}"), "{edits}");
    assert!(parses(r, b"a{b:c;d{e:f;}}"), "{edits}");
    assert!(edits.contains("block[in scope]"), "{edits}");
}

#[test]
fn an_accepted_input_that_needs_more_than_the_forbidden_choice_is_a_fluke() {
    let g = Grammar::from_text(SCOPED, "scoped.grammar").unwrap();
    let trees = scoped_trees(&g);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let judge = Judge::new(&quirky_scoped_accepts);
    let id = |name: &str| g.symbol_by_name(name).unwrap();
    let no_declarations = Change::DropAlternative {
        sym: id("item"),
        alt: 0,
        also: Vec::new(),
    };
    // The parser takes `x:xz;` in a `@scope` block for what it holds: neither the samples'
    // declarations (nor the cheapest) nor one with its name or its value alone replaced is
    // taken there, so it is no evidence for declarations.
    assert_eq!(quirky_scoped_accepts(b"@scope{x:xz;}"), Verdict::Accepted);
    assert!(is_fluke(&g, &no_declarations, b"@scope{x:xz;}", &good, &facts, &judge));
    // In a rule set's block, any declaration is: the evidence stands.
    assert!(!is_fluke(&g, &no_declarations, b"a{x:y;}", &good, &facts, &judge));
    // A choice made inside one part stays when another part alone is replaced: the input is
    // evidence if that is accepted (here the name; the samples' smallest rule set, put in
    // whole, is `a{b:c;}`, which holds a declaration and so keeps the choice anyway).
    let no_nesting = Change::DropAlternative {
        sym: id("item"),
        alt: 1,
        also: Vec::new(),
    };
    assert!(!is_fluke(&g, &no_nesting, b"a{x{}}", &good, &facts, &judge));
    // A character is evidence in itself.
    let name = g.symbol_by_name("name").unwrap();
    let narrow = Change::NarrowClass {
        place: Place {
            parent: name,
            alt: None,
            item: 0,
        },
        class: CharClass::new(&[(u32::from(b'a'), u32::from(b'w'))], false),
    };
    assert!(!is_fluke(&g, &narrow, b"a{x:y;}", &good, &facts, &judge));
}

#[test]
fn a_copy_of_the_layout_is_layout() {
    let g = Grammar::from_text(
        "file = ( _ item )* _ ;\nitem = \"'\" ( _ text )* \"'\" ;\ntext = [a-z ]+ ;\n_ = [ \\n]* ;\n%layout _ ;\n",
        "t.grammar",
    )
    .unwrap();
    let id = |name: &str| g.symbol_by_name(name).unwrap();
    let copied = edit::apply(
        &g,
        &[Change::Specialize {
            sym: id("_"),
            place: place_of_item(&g, "item", "_"),
        }],
        "t.grammar",
    )
    .unwrap()
    .grammar;
    let (layout, _) = copied.layout_parts();
    let copy = copied.symbol_by_name("_[in item]").expect("the copy");
    assert!(layout[copy.index()], "the copy of `_` for `item` is layout too");
    assert!(!layout[copied.symbol_by_name("text").unwrap().index()]);
    // Layout is no feature of a sample: an edit that moves a space from the layout into the
    // text keeps the samples' profile.
    let sample = Parser::new(&copied).parse(b"' a b' 'c'").unwrap();
    let features = profile(&copied, &[sample]);
    assert!(
        features.contains_key("text") && !features.contains_key("_"),
        "{features:?}"
    );
}

/// The place of the first item of `parent`'s groups or alternatives that names `child`.
fn place_of_item(g: &Grammar, parent: &str, child: &str) -> Place {
    let child = g.symbol_by_name(child).unwrap();
    let mut todo = vec![g.symbol_by_name(parent).unwrap()];
    while let Some(s) = todo.pop() {
        let items: Vec<(Option<usize>, usize, Item)> = match &g.symbol(s).body {
            Body::Choice(alts) => alts
                .iter()
                .enumerate()
                .flat_map(|(a, alt)| alt.items.iter().enumerate().map(move |(i, &it)| (Some(a), i, it)))
                .collect(),
            Body::Repeat { item, .. } | Body::Optional(item) => vec![(None, 0, *item)],
        };
        for (alt, item, it) in items {
            match it {
                Item::Symbol(c) if c == child => return Place { parent: s, alt, item },
                Item::Symbol(c) if g.symbol(c).synthetic => todo.push(c),
                _ => {}
            }
        }
    }
    panic!("{child:?} not in a group of the rule");
}

/// Modules and traits in little: both bodies are the same `body` rule, and an `impl` is an
/// item of a module's body but not of a trait's, as in Rust.
const BODIES: &str = r#"
file = item* ;
item = "mod " name "{" body "}" | "trait " name "{" body "}" | "fn " name ";" | "impl " name "{}" ;
body = item* ;
name = [a-z]+ ;
"#;

/// The parser of [`BODIES`]'s language.
fn bodies_accepts(input: &[u8]) -> Verdict {
    fn name(s: &[u8]) -> Option<&[u8]> {
        let n = s.iter().take_while(|b| b.is_ascii_lowercase()).count();
        (n > 0).then(|| &s[n..])
    }
    // The items of a body up to its `}` (or of the file, to its end), `impl` where allowed.
    fn items(mut s: &[u8], in_trait: bool, depth: usize) -> Option<&[u8]> {
        if depth > 32 {
            return None;
        }
        loop {
            if s.is_empty() || s.starts_with(b"}") {
                return Some(s);
            }
            s = if let Some(r) = s.strip_prefix(b"fn ") {
                name(r)?.strip_prefix(b";")?
            } else if let Some(r) = s.strip_prefix(b"impl ") {
                if in_trait {
                    return None;
                }
                name(r)?.strip_prefix(b"{}")?
            } else {
                let (r, is_trait) = match s.strip_prefix(b"mod ") {
                    Some(r) => (r, false),
                    None => (s.strip_prefix(b"trait ")?, true),
                };
                let r = items(name(r)?.strip_prefix(b"{")?, is_trait, depth + 1)?;
                r.strip_prefix(b"}")?
            };
        }
    }
    match items(input, false, 0) {
        Some([]) => Verdict::Accepted,
        _ => Verdict::Rejected,
    }
}

#[test]
fn an_alternative_valid_at_its_place_in_another_context_is_dropped_in_a_copy_for_this_one() {
    let g = Grammar::from_text(BODIES, "bodies.grammar").unwrap();
    let texts = [
        "mod a{fn b;}trait c{fn d;}impl e{}",
        "trait f{fn g;fn h;}mod i{mod j{fn k;}}",
    ];
    assert_all_accepted(&texts, &bodies_accepts);
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&bodies_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    // No sample has an `impl` in a body, and the parser rejects it in a trait's: the first
    // edit proposed is a copy of `body` for traits, not a drop from every body (which no
    // sample would refuse), since a module's body takes it.
    let rejected = Parser::new(&g).parse(b"trait a{impl b{}}").unwrap();
    assert_eq!(judge.verdict(&rejected.unparse()), Verdict::Rejected);
    let culprit = isolate::isolate(&g, rejected, &good, &judge).unwrap();
    assert_eq!(culprit.tree.unparse_node(culprit.node), b"impl b{}");
    let edits = rule_edits(&g, &culprit, &trees, &good, &facts, &judge, 1);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    let body = g.symbol_by_name("body").unwrap();
    assert!(
        matches!(edits.first(), Some(Change::Specialize { sym, .. }) if *sym == body),
        "{described:?}"
    );
    // And refinement ends there: `impl` out of traits' bodies, kept in modules'.
    let samples = named_samples("sample", &texts);
    let (refined, edits) = refined_to_targets(&g, &samples, &bodies_accepts, 5);
    let r = &refined.grammar;
    assert!(!parses(r, b"trait a{impl b{}}"), "{edits}");
    assert!(parses(r, b"mod a{impl b{}}"), "{edits}");
    assert!(parses(r, b"mod a{trait c{fn d;}}"), "{edits}");
}

/// Types with Rust's two function types: `fn()` is a type anywhere, the sugar `Name()` only
/// where no `<…>` holds it.
const FN_TYPES: &str = r#"
file = ( "let " name ":" ty ";" )* ;
ty   = name | fnty | name "<" arg ">" ;
arg  = name | fnty ;
fnty = ( trait | "fn" ) "(" ")" ;
name = [a-z]+ ;
trait = [A-Z]+ ;
"#;

/// The parser of [`FN_TYPES`]'s language.
fn fn_types_accepts(input: &[u8]) -> Verdict {
    fn name(s: &[u8]) -> Option<(&[u8], &[u8])> {
        let n = s.iter().take_while(|b| b.is_ascii_lowercase()).count();
        (n > 0).then(|| s.split_at(n))
    }
    // A type up to what follows it; the sugar only outside `<…>`.
    fn ty(s: &[u8], in_args: bool) -> Option<&[u8]> {
        let sugar = s.iter().take_while(|b| b.is_ascii_uppercase()).count();
        if sugar > 0 {
            return s[sugar..].strip_prefix(b"()").filter(|_| !in_args);
        }
        let (n, rest) = name(s)?;
        if n == b"fn" {
            return rest.strip_prefix(b"()");
        }
        match rest.strip_prefix(b"<") {
            Some(r) if !in_args => ty(r, true)?.strip_prefix(b">"),
            Some(_) => None,
            None => Some(rest),
        }
    }
    let mut s = input;
    while !s.is_empty() {
        let Some(r) = s.strip_prefix(b"let ").and_then(name) else {
            return Verdict::Rejected;
        };
        let Some(r) =
            r.1.strip_prefix(b":")
                .and_then(|r| ty(r, false))
                .and_then(|r| r.strip_prefix(b";"))
        else {
            return Verdict::Rejected;
        };
        s = r;
    }
    Verdict::Accepted
}

#[test]
fn an_alternative_valid_in_another_form_loses_only_the_wrong_form() {
    let g = Grammar::from_text(FN_TYPES, "fntypes.grammar").unwrap();
    let texts = ["let a:b;let c:F();let d:v<u>;", "let e:fn();let g:w<x>;let h:fn();"];
    assert_all_accepted(&texts, &fn_types_accepts);
    assert_eq!(fn_types_accepts(b"let a:v<F()>;"), Verdict::Rejected);
    assert_eq!(fn_types_accepts(b"let a:v<fn()>;"), Verdict::Accepted);
    let samples = named_samples("sample", &texts);
    // Every inverted input accepted as the target: the sugar is rare in them.
    let refined = refine(&g, &samples, &fn_types_accepts, &options(5), &mut |_| {}).unwrap();
    let edits = refined.edits_text(g.origin());
    let r = &refined.grammar;
    assert!(!parses(r, b"let a:v<F()>;"), "{edits}");
    // No sample has a function type in `<…>`: the parser's word keeps `fn()` there.
    assert!(parses(r, b"let a:v<fn()>;"), "{edits}");
    assert!(parses(r, b"let a:F();"), "{edits}");
}

/// Items and attributes: an attribute is valid before an item, never last.
const ATTRIBUTES: &str = r##"
file = item* ;
item = "fn " name ";" | "#" name " " ;
name = [a-z]+ ;
"##;

/// The parser of [`ATTRIBUTES`]'s language.
fn attributes_accepts(input: &[u8]) -> Verdict {
    let text = String::from_utf8_lossy(input);
    let mut pending = false;
    let mut rest = text.as_ref();
    while !rest.is_empty() {
        let name = |s: &str| s.bytes().take_while(u8::is_ascii_lowercase).count();
        if let Some(r) = rest.strip_prefix("fn ") {
            let n = name(r);
            match r[n..].strip_prefix(';') {
                Some(r) if n > 0 => rest = r,
                _ => return Verdict::Rejected,
            }
            pending = false;
        } else if let Some(r) = rest.strip_prefix('#') {
            let n = name(r);
            match r[n..].strip_prefix(' ') {
                Some(r) if n > 0 => rest = r,
                _ => return Verdict::Rejected,
            }
            pending = true;
        } else {
            return Verdict::Rejected;
        }
    }
    verdict(!pending)
}

/// The derivation trees of `texts` (each must parse).
/// Asserts that `accept` takes every one of `texts` (a test's samples must be in the language).
fn assert_all_accepted(texts: &[&str], accept: &dyn Fn(&[u8]) -> Verdict) {
    for t in texts {
        assert_eq!(accept(t.as_bytes()), Verdict::Accepted, "{t:?}");
    }
}

fn trees_of(g: &Grammar, texts: &[&str]) -> Vec<Tree> {
    texts
        .iter()
        .map(|t| Parser::new(g).parse(t.as_bytes()).unwrap())
        .collect()
}

/// The node of `tree` for which `pick` holds that comes first in pre-order.
fn first_node(tree: &Tree, pick: impl Fn(NodeId) -> bool) -> NodeId {
    let mut found = None;
    tree.pre_order(tree.root(), |n| {
        if found.is_none() && pick(n) {
            found = Some(n);
        }
    });
    found.expect("a node")
}

#[test]
fn an_alternative_the_parser_takes_where_a_sample_has_the_rule_is_not_dropped_for_its_neighbours() {
    let g = Grammar::from_text(ATTRIBUTES, "attributes.grammar").unwrap();
    let texts = ["fn a;fn b;", "fn c;"];
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&attributes_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    // The attribute is wrong last, not wrong: put in place of a sample's first item it is
    // accepted, so no edit drops it, although no sample has one.
    assert_eq!(attributes_accepts(b"#x fn b;"), Verdict::Accepted);
    let rejected = Parser::new(&g).parse(b"fn a;#x ").unwrap();
    let item = g.symbol_by_name("item").unwrap();
    let attribute = first_node(&rejected, |n| {
        rejected.kind(n) == NodeKind::Rule { symbol: item, alt: 1 }
    });
    let place = place_of(&g, &rejected, attribute).unwrap();
    let edits = unseen_choice(&g, &rejected, attribute, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(edits.is_empty(), "{described:?}");
}

/// Words apart: any number of spaces, and a comment `#` only as the last thing.
const SPACED: &str = r##"
file = "a" gap "b" ;
gap  = ( " " | "#" )* ;
"##;

fn spaced_accepts(input: &[u8]) -> Verdict {
    let gap = input.strip_prefix(b"a").and_then(|r| r.strip_suffix(b"b"));
    match gap {
        Some(gap) if gap.iter().all(|&b| b == b' ') => Verdict::Accepted,
        Some([spaces @ .., b'#']) if spaces.iter().all(|&b| b == b' ') => Verdict::Accepted,
        _ => Verdict::Rejected,
    }
}

#[test]
fn a_count_is_bounded_only_where_as_many_copies_of_the_first_are_rejected_too() {
    let g = Grammar::from_text(SPACED, "spaced.grammar").unwrap();
    let trees = vec![Parser::new(&g).parse(b"a b").unwrap()];
    let judge = Judge::new(&spaced_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    // `a # b` is rejected, and keeping the first item alone (the samples' most) accepted;
    // but three spaces (the first item, three times) are accepted too: the count is not to
    // blame.
    let rejected = Parser::new(&g).parse(b"a # b").unwrap();
    assert_eq!(spaced_accepts(b"a   b"), Verdict::Accepted);
    let gap = g.symbol_by_name("gap").unwrap();
    let node = first_node(&rejected, |n| rejected.kind(n).symbol() == Some(gap));
    let place = place_of(&g, &rejected, node).unwrap();
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    // (Its "never there" bound, `gap{0}`, stays: the samples refuse it.)
    let capped = |e: &Change| matches!(e, Change::Bound { max: Some(m), .. } if *m > 0);
    assert!(!edits.iter().any(capped), "{described:?}");
    // Where the count is to blame (at most two), it is bounded.
    let two = |input: &[u8]| match input.strip_prefix(b"a").and_then(|r| r.strip_suffix(b"b")) {
        Some(gap) if gap.len() <= 2 => Verdict::Accepted,
        _ => Verdict::Rejected,
    };
    let judge = Judge::new(&two);
    let rejected = Parser::new(&g).parse(b"a   b").unwrap();
    let node = first_node(&rejected, |n| rejected.kind(n).symbol() == Some(gap));
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        edits.iter().any(|e| matches!(e, Change::Bound { max: Some(2), .. })),
        "{described:?}"
    );
}

/// Lists whose trailing comma the samples never write.
const LISTS: &str = r##"
list = "[" ( item ( "," item )* )? ","? "]" ;
item = "a" | "b" ;
"##;

/// A list of `a`s and `b`s; a trailing comma only after an item (`[a,]`, not `[,]`).
fn lists_accept(input: &[u8]) -> Verdict {
    let Some(inner) = input.strip_prefix(b"[").and_then(|r| r.strip_suffix(b"]")) else {
        return Verdict::Rejected;
    };
    let inner = inner.strip_suffix(b",").filter(|i| !i.is_empty()).unwrap_or(inner);
    let items_ok = inner.is_empty() || inner.split(|&b| b == b',').all(|i| i == b"a" || i == b"b");
    verdict(items_ok)
}

#[test]
fn an_optional_part_the_parser_takes_at_a_samples_spot_is_not_made_never_there() {
    let g = Grammar::from_text(LISTS, "lists.grammar").unwrap();
    let trees = trees_of(&g, &["[a,b]", "[]"]);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let never = |e: &Change| matches!(e, Change::Bound { max: Some(0), .. });
    // `[,]` is rejected, and `[]` (no trailing comma) accepted; but the comma is valid after
    // the samples' items (`[a,b,]`): not the comma is to blame, but the list with nothing
    // before it.
    let edits_for = |accepts: &(dyn Fn(&[u8]) -> Verdict + Sync)| {
        let judge = Judge::new(accepts);
        let rejected = Parser::new(&g).parse(b"[,]").unwrap();
        assert_eq!(judge.verdict(b"[,]"), Verdict::Rejected);
        let list = g.symbol_by_name("list").unwrap();
        let trailing = first_node(&rejected, |n| {
            matches!(rejected.kind(n), NodeKind::Optional { .. })
                && rejected.child_count(n) == 1
                && rejected.parent(n).and_then(|p| rejected.kind(p).symbol()) == Some(list)
        });
        let place = place_of(&g, &rejected, trailing).unwrap();
        let edits = unseen_choice(&g, &rejected, trailing, place, &trees, &good, &facts, &judge);
        edits.iter().map(|e| (never(e), e.describe(&g))).collect::<Vec<_>>()
    };
    assert_eq!(lists_accept(b"[a,b,]"), Verdict::Accepted);
    let edits = edits_for(&lists_accept);
    assert!(!edits.iter().any(|(n, _)| *n), "{edits:?}");
    // Where the parser takes no trailing comma at all, it is never there.
    let no_trailing = |input: &[u8]| match input.ends_with(b",]") {
        true => Verdict::Rejected,
        false => lists_accept(input),
    };
    let edits = edits_for(&no_trailing);
    assert!(edits.iter().any(|(n, _)| *n), "{edits:?}");
}

/// Paths that the samples never write, valid in `f` items only.
const PATHS: &str = r##"
file = item+ ;
item = "f" expr ";" | "g" expr ";" ;
expr = name | name "." path ;
path = name | "<" name ">" ;
name = "a" | "b" ;
"##;

/// Items of `PATHS`, where a bracketed path stands in an `f` item alone.
fn paths_accept(input: &[u8]) -> Verdict {
    let text = String::from_utf8_lossy(input);
    let ok = text.split_terminator(';').all(|item| {
        let (head, expr) = item.split_at(item.len().min(1));
        head == "f" || (head == "g" && !expr.contains('<'))
    });
    verdict(ok && text.ends_with(';'))
}

#[test]
fn an_alternative_no_sample_has_is_kept_where_the_rule_above_it_takes_it_in_a_sample() {
    let g = Grammar::from_text(PATHS, "paths.grammar").unwrap();
    let trees = trees_of(&g, &["fa;gb;"]);
    let judge = Judge::new(&paths_accept);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    // In a `g` item, the bracketed path is wrong in every form, and no sample has a path;
    // but the expression that holds it, put where the samples' `f` item has its expression,
    // is accepted: it is not dropped everywhere.
    let rejected = Parser::new(&g).parse(b"gb.<a>;").unwrap();
    assert_eq!(paths_accept(b"fb.<a>;gb;"), Verdict::Accepted);
    let path = g.symbol_by_name("path").unwrap();
    let bracketed = first_node(&rejected, |n| {
        rejected.kind(n) == NodeKind::Rule { symbol: path, alt: 1 }
    });
    let place = place_of(&g, &rejected, bracketed).unwrap();
    let edits = unseen_choice(&g, &rejected, bracketed, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(edits.is_empty(), "{described:?}");
    // Where no item takes it, it is dropped everywhere.
    let nowhere = |input: &[u8]| match input.contains(&b'<') {
        true => Verdict::Rejected,
        false => paths_accept(input),
    };
    let judge = Judge::new(&nowhere);
    let edits = unseen_choice(&g, &rejected, bracketed, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        edits.iter().any(|e| matches!(e, Change::DropAlternative { .. })),
        "{described:?}"
    );
}

/// Items, a macro call among them, and a stray `;` that the grammar allows anywhere.
const ITEMS: &str = r##"
file = item* ;
item = "f;" | "m!()" | ";" ;
"##;

/// `f;` and `m!();` items only: a macro call needs its `;`, and a `;` stands only after one.
fn items_accept(input: &[u8]) -> Verdict {
    let mut rest = input;
    while !rest.is_empty() {
        match [&b"f;"[..], b"m!();"].iter().find(|item| rest.starts_with(item)) {
            Some(item) => rest = &rest[item.len()..],
            None => return Verdict::Rejected,
        }
    }
    Verdict::Accepted
}

#[test]
fn an_alternative_valid_only_right_after_another_is_joined_to_it() {
    let g = Grammar::from_text(ITEMS, "items.grammar").unwrap();
    let trees = trees_of(&g, &["f;f;"]);
    let judge = Judge::new(&items_accept);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    // `;` alone is rejected where the samples have items, but accepted right after `m!()`,
    // which no sample has.
    let rejected = Parser::new(&g).parse(b"f;;").unwrap();
    let item = g.symbol_by_name("item").unwrap();
    let semi = first_node(&rejected, |n| {
        rejected.kind(n) == NodeKind::Rule { symbol: item, alt: 2 }
    });
    let place = place_of(&g, &rejected, semi).unwrap();
    let edits = unseen_choice(&g, &rejected, semi, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(
            edits.first(),
            Some(Change::JoinAfter {
                alt: 2,
                after: 1,
                again: false,
                ..
            })
        ),
        "{described:?}"
    );
    // The edited grammar reads `m!();` and no `;` alone; the samples still parse.
    let joined = edit::apply(&g, &edits[..1], "items.grammar").unwrap().grammar;
    let parses = |text: &[u8]| Parser::new(&joined).parse(text).is_ok();
    assert!(parses(b"m!();f;") && parses(b"f;f;"));
    assert!(!parses(b"f;;") && !parses(b";"));
}

/// Words apart by spaces or a comment `#c`, which the samples never put there.
const GAPS: &str = r##"
file = "a" gap "b" ;
gap  = ( " " | "#c" )* ;
"##;

#[test]
fn a_part_whose_cheapest_item_is_taken_is_not_made_never_there_but_copied_for_its_items() {
    let g = Grammar::from_text(GAPS, "gaps.grammar").unwrap();
    let trees = vec![Parser::new(&g).parse(b"ab").unwrap()];
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let rejected = Parser::new(&g).parse(b"a#cb").unwrap();
    let gap = g.symbol_by_name("gap").unwrap();
    let node = first_node(&rejected, |n| rejected.kind(n).symbol() == Some(gap));
    let place = place_of(&g, &rejected, node).unwrap();
    let never = |e: &Change| matches!(e, Change::Bound { max: Some(0), .. });
    // Spaces are valid there, the comment is not: the gap is copied for this place (a later
    // round drops the comment in the copy), not made never there.
    let spaces = |input: &[u8]| match input.strip_prefix(b"a").and_then(|r| r.strip_suffix(b"b")) {
        Some(gap) if gap.iter().all(|&b| b == b' ') => Verdict::Accepted,
        _ => Verdict::Rejected,
    };
    let judge = Judge::new(&spaces);
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(!edits.iter().any(never), "{described:?}");
    assert!(
        edits.iter().any(|e| matches!(e, Change::Specialize { .. })),
        "{described:?}"
    );
    // Where nothing may stand there, it is never there.
    let nothing = |input: &[u8]| match input {
        b"ab" => Verdict::Accepted,
        _ => Verdict::Rejected,
    };
    let judge = Judge::new(&nothing);
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(edits.iter().any(never), "{described:?}");
}

/// A statement with an optional `explain ` before a query, bare or in parentheses.
const EXPLAIN: &str = r##"
stmt = ( "explain " )? ( "q" | "(q)" ) ;
"##;

/// As sqlparser: `EXPLAIN (` starts EXPLAIN's options, so a parenthesized query may not follow
/// `explain `; each is valid alone.
fn explain_accepts(input: &[u8]) -> Verdict {
    match input {
        b"q" | b"(q)" | b"explain q" => Verdict::Accepted,
        _ => Verdict::Rejected,
    }
}

#[test]
fn a_choice_wrong_only_after_an_optional_part_is_kept_apart_from_it() {
    let g = Grammar::from_text(EXPLAIN, "explain.grammar").unwrap();
    let trees = trees_of(&g, &["q", "explain q"]);
    let judge = Judge::new(&explain_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let input = b"explain (q)".to_vec();
    let tree = Parser::new(&g).parse(&input).unwrap();
    // The culprit is the parenthesized query: with the samples' `q` in its place, accepted.
    let node = first_node(&tree, |n| {
        matches!(tree.kind(n), NodeKind::Rule { alt: 1, .. }) && n != tree.root()
    });
    let culprit = Culprit { tree, node, input };
    // `explain ` is valid where the samples have it, the parentheses are valid alone: neither
    // is dropped, they are kept apart.
    let edits = earlier_choice(&g, &culprit, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(
            edits.first(),
            Some(Change::Apart {
                alt: 1,
                other: 0,
                present: false,
                ..
            })
        ),
        "{described:?}"
    );
    assert!(forbids(&g, &edits[0], &culprit.tree, culprit.node));
    let apart = edit::apply(&g, &edits[..1], "explain.grammar").unwrap().grammar;
    let parses = |text: &[u8]| Parser::new(&apart).parse(text).is_ok();
    assert!(parses(b"q") && parses(b"(q)") && parses(b"explain q"));
    assert!(!parses(b"explain (q)"));
}

/// SQL's `DELETE … RETURNING` in small: the clauses that end the statement's `FROM` are a
/// rule of their own, two levels below the statement that holds `RETURNING`.
const RETURNING: &str = r##"
stmt    = "delete" from ( " returning" )? ;
from    = " from t" clauses ;
clauses = ( " where x" )? ( " order by x" )? ( " limit 1" )? ;
"##;

/// As sqlparser: `RETURNING` after `WHERE`, not after `ORDER BY` or `LIMIT`; each is valid
/// without it.
fn returning_accepts(input: &[u8]) -> Verdict {
    let Some(rest) = input.strip_prefix(b"delete from t") else {
        return Verdict::Rejected;
    };
    let (rest, returning) = match rest.strip_suffix(b" returning") {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let rest = rest.strip_prefix(b" where x").unwrap_or(rest);
    let (rest, order) = rest.strip_prefix(b" order by x").map_or((rest, false), |r| (r, true));
    let (rest, limit) = rest.strip_prefix(b" limit 1").map_or((rest, false), |r| (r, true));
    verdict(rest.is_empty() && !(returning && (order || limit)))
}

#[test]
fn an_optional_part_wrong_after_the_optional_parts_that_end_the_item_before_it_is_kept_apart() {
    let g = Grammar::from_text(RETURNING, "returning.grammar").unwrap();
    let trees = trees_of(&g, &["delete from t", "delete from t where x order by x limit 1"]);
    let judge = Judge::new(&returning_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let clauses = g.symbol_by_name("clauses").unwrap();
    // Blamed: ` returning`, which no sample has; `from` before it is a rule of one
    // alternative, and what makes it wrong is the last clause that is there, or the last two.
    let split = |text: &[u8]| {
        let tree = Parser::new(&g).parse(text).unwrap();
        let node = first_node(&tree, |n| {
            matches!(tree.kind(n), NodeKind::Optional { .. }) && tree.unparse_node(n) == b" returning"
        });
        let culprit = Culprit {
            tree,
            node,
            input: text.to_vec(),
        };
        let edits = earlier_choice(&g, &culprit, &trees, &good, &facts, &judge);
        let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
        match edits.first() {
            Some(
                change @ Change::ApartTail {
                    end,
                    other: 1,
                    down,
                    drop,
                    ..
                },
            ) if *end == clauses && down.len() == 1 => (change.clone(), drop.clone()),
            _ => panic!("{described:?}"),
        }
    };
    let parses = |g: &Grammar, text: &str| Parser::new(g).parse(text.as_bytes()).is_ok();
    let valid = [
        "delete from t",
        "delete from t returning",
        "delete from t where x returning",
        "delete from t where x order by x limit 1",
        "delete from t order by x",
    ];
    // `ORDER BY` alone: the copy of `clauses` before `RETURNING` has none.
    let (change, drop) = split(b"delete from t where x order by x returning");
    assert_eq!(drop, vec![1]);
    // The edits file names the dropped part as the grammar writes it, not a group's name.
    let described = change.describe(&g);
    assert!(described.contains("\" order by x\""), "{described}");
    let applied = edit::apply(&g, &[change], "returning.grammar").unwrap().grammar;
    assert!(valid.iter().all(|t| parses(&applied, t)));
    assert!(!parses(&applied, "delete from t where x order by x returning"));
    assert!(!parses(&applied, "delete from t order by x limit 1 returning"));
    // Both: taking out `LIMIT` alone is not enough, and both go.
    let (change, drop) = split(b"delete from t order by x limit 1 returning");
    assert_eq!(drop, vec![2, 1]);
    let applied = edit::apply(&g, &[change], "returning.grammar").unwrap().grammar;
    assert!(valid.iter().all(|t| parses(&applied, t)));
    for text in ["delete from t limit 1 returning", "delete from t order by x returning"] {
        assert!(!parses(&applied, text), "{text}");
    }
}

/// SQL's `FROM ONLY` in small: the relation's choice is inside a rule of its own.
const ONLY: &str = r##"
stmt     = "select" from ;
from     = " from" ( " only" )? relation ;
relation = ( " t" | " (v)" ) ( " as a" )? ;
"##;

/// As sqlparser: `ONLY` takes a table's name, not a parenthesized relation.
fn only_accepts(input: &[u8]) -> Verdict {
    let rest = input.strip_suffix(b" as a").unwrap_or(input);
    verdict(matches!(
        rest,
        b"select from t" | b"select from (v)" | b"select from only t"
    ))
}

#[test]
fn a_choice_inside_a_rule_wrong_only_after_an_optional_part_is_kept_apart_from_it() {
    let g = Grammar::from_text(ONLY, "only.grammar").unwrap();
    let trees = trees_of(&g, &["select from t", "select from only t", "select from (v) as a"]);
    let judge = Judge::new(&only_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let relation = g.symbol_by_name("relation").unwrap();
    let input = b"select from only (v) as a".to_vec();
    let tree = Parser::new(&g).parse(&input).unwrap();
    let culprit = |text: &[u8]| Culprit {
        node: first_node(&tree, |n| tree.unparse_node(n) == text && tree.parent(n).is_some()),
        tree: tree.clone(),
        input: input.clone(),
    };
    // Isolation blames the parenthesized relation (with the samples' `t` in its place,
    // accepted), whose choice is inside `relation`; or `only` (without it, accepted), which is
    // valid where the samples have it: the same split either way.
    let relation_blamed = culprit(b" (v)");
    let only_blamed = culprit(b" only");
    let from_relation = earlier_choice(&g, &relation_blamed, &trees, &good, &facts, &judge);
    let from_only = later_choice(&g, &only_blamed, &good, &judge);
    let described: Vec<String> = from_relation.iter().map(|e| e.describe(&g)).collect();
    let change = from_relation.first().cloned();
    assert!(
        matches!(
            change,
            Some(Change::Apart {
                sym,
                alt: 1,
                inner: Some(_),
                present: false,
                ..
            }) if sym == relation
        ),
        "{described:?}"
    );
    assert_eq!(from_only, change);
    let change = change.unwrap();
    let holder = relation_blamed.tree.parent(relation_blamed.node).unwrap();
    assert!(forbids(&g, &change, &relation_blamed.tree, holder));
    let applied = edit::apply(&g, &[change], "only.grammar").unwrap();
    let parses = |text: &[u8]| Parser::new(&applied.grammar).parse(text).is_ok();
    for text in [
        "select from t",
        "select from only t",
        "select from (v)",
        "select from (v) as a",
        "select from only t as a",
    ] {
        assert!(parses(text.as_bytes()), "{text}\n{}", applied.text);
    }
    assert!(!parses(b"select from only (v)"), "{}", applied.text);
    assert!(!parses(b"select from only (v) as a"), "{}", applied.text);
}

/// [`ONLY`] where a parenthesized query has its own copy of `from` (as refine makes copies
/// for the edits inside them), both using `relation`.
const ONLY_COPIES: &str = r##"
stmt            = "select" from | "(select" `from[in stmt]` ")" ;
from            = " from" ( " only" )? relation ;
`from[in stmt]` = " from" ( " only" )? relation ;
relation        = ( " t" | " (v)" ) ( " as a" )? ;
"##;

/// [`only_accepts`], in parentheses too.
fn only_copies_accept(input: &[u8]) -> Verdict {
    match input.strip_prefix(b"(").and_then(|i| i.strip_suffix(b")")) {
        Some(inner) => only_accepts(inner),
        None => only_accepts(input),
    }
}

/// In [`ONLY_COPIES`], `(select from only (v) as a)` with its parenthesized relation to blame.
fn parenthesized_only(g: &Grammar) -> Culprit {
    let input = b"(select from only (v) as a)".to_vec();
    let tree = Parser::new(g).parse(&input).unwrap();
    Culprit {
        node: first_node(&tree, |n| tree.unparse_node(n) == b" (v)" && tree.parent(n).is_some()),
        tree,
        input,
    }
}

#[test]
fn an_edit_in_one_copy_of_a_rule_echoes_in_the_others() {
    let g = Grammar::from_text(ONLY_COPIES, "only.grammar").unwrap();
    let samples = [
        "select from t",
        "(select from only t)",
        "(select from (v) as a)",
        "select from only t",
    ];
    let trees = trees_of(&g, &samples);
    let judge = Judge::new(&only_copies_accept);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let culprit = parenthesized_only(&g);
    let change = earlier_choice(&g, &culprit, &trees, &good, &facts, &judge)
        .into_iter()
        .next()
        .unwrap();
    let copy = g.symbol_by_name("from[in stmt]").unwrap();
    let from = g.symbol_by_name("from").unwrap();
    assert!(
        matches!(change, Change::Apart { place, .. } if place.parent == copy),
        "{}",
        change.describe(&g)
    );
    // The same split where the other copy, `from`, uses `relation`: one echo.
    let echoes = edit::echoes(&g, &change);
    assert_eq!(echoes.len(), 1, "{echoes:?}");
    assert!(matches!(echoes[0], Change::Apart { place, .. } if place.parent == from));
    let only_the_edit = edit::apply(&g, std::slice::from_ref(&change), "only.grammar")
        .unwrap()
        .grammar;
    let both = edit::apply(&g, &[change.clone(), echoes[0].clone()], "only.grammar")
        .unwrap()
        .grammar;
    let parses = |g: &Grammar, text: &[u8]| Parser::new(g).parse(text).is_ok();
    assert!(parses(&only_the_edit, b"select from only (v)"));
    for text in samples.iter().chain(&["select from (v) as a", "(select from t as a)"]) {
        assert!(parses(&both, text.as_bytes()), "{text}");
        assert_eq!(only_copies_accept(text.as_bytes()), Verdict::Accepted, "{text}");
    }
    for text in ["select from only (v)", "(select from only (v) as a)"] {
        assert!(!parses(&both, text.as_bytes()), "{text}");
    }
    // Echoed back, the echo is the edit; a rule with no copies has no echo.
    assert_eq!(edit::echoes(&g, &echoes[0]), vec![change]);
    let relation = g.symbol_by_name("relation").unwrap();
    let Some(&Item::Symbol(choice)) = g.symbol(relation).alternatives()[0].items.first() else {
        panic!("relation starts with its choice")
    };
    let drop = Change::DropAlternativeAt {
        sym: choice,
        alt: 1,
        place: Place {
            parent: relation,
            alt: Some(0),
            item: 0,
        },
    };
    assert!(edit::echoes(&g, &drop).is_empty());
}

#[test]
fn an_optional_part_no_sample_reaches_is_kept_apart_before_it_is_fixed() {
    let g = Grammar::from_text(ONLY_COPIES, "only.grammar").unwrap();
    // No sample has a parenthesized query, so none reaches `only` there: fixing it absent
    // there would pass, and lose `(select from only t)`, which the parser takes.
    let trees = trees_of(&g, &["select from t", "select from only t", "select from (v) as a"]);
    let judge = Judge::new(&only_copies_accept);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let culprit = parenthesized_only(&g);
    let copy = g.symbol_by_name("from[in stmt]").unwrap();
    let edits = earlier_choice(&g, &culprit, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(edits.as_slice(), [Change::Apart { place, inner: Some(_), .. }, Change::Bound { min: 0, max: Some(0), .. }] if place.parent == copy),
        "{described:?}"
    );
    // And the split comes first among the culprit's edits, before its choice is dropped
    // where no sample has it.
    let all = rule_edits(&g, &culprit, &trees, &good, &facts, &judge, 1);
    assert_eq!(
        all.first(),
        edits.first(),
        "{:?}",
        all.iter().map(|e| e.describe(&g)).collect::<Vec<_>>()
    );
    let applied = edit::apply(&g, &edits[..1], "only.grammar").unwrap().grammar;
    assert!(Parser::new(&applied).parse(b"(select from only t)").is_ok());
    assert!(Parser::new(&applied).parse(b"(select from only (v))").is_err());
}

/// Arrays with optional elements and an optional trailing comma, which a Rust parser takes
/// only after an element.
const ARRAYS: &str = r##"
file  = ( "let " array ";" )* ;
array = "[" ( "x" ( "," "x" )* )? ( "," )? "]" ;
"##;

/// Lists `OPEN items CLOSE`, one per `;`-ended statement, whose items are all `item`, with a
/// trailing `,` only after an item.
fn list_accept(input: &[u8], open: &str, close: &str, item: &str) -> Verdict {
    let Ok(text) = std::str::from_utf8(input) else {
        return Verdict::Rejected;
    };
    let ok = text.split_inclusive(';').all(|s| {
        s.strip_prefix(open)
            .and_then(|r| r.strip_suffix(close))
            .is_some_and(|inside| {
                inside.is_empty() || inside.strip_suffix(',').unwrap_or(inside).split(',').all(|x| x == item)
            })
    });
    verdict(ok)
}

fn arrays_accept(input: &[u8]) -> Verdict {
    list_accept(input, "let [", "];", "x")
}

/// The edit `earlier_choice` finds for the trailing `,` of `input` (an empty list with one),
/// with `accept` as the parser: the `,` kept apart from an empty list, so that every list of
/// `valid` still parses and `input` does not.
fn assert_trailing_comma_kept_apart(
    text: &str,
    samples: &[&str],
    accept: &(dyn Fn(&[u8]) -> Verdict + Sync),
    input: &[u8],
    valid: &[&str],
) {
    let g = Grammar::from_text(text, "lists.grammar").unwrap();
    let trees = trees_of(&g, samples);
    let judge = Judge::new(accept);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let tree = Parser::new(&g).parse(input).unwrap();
    // The culprit is the trailing comma (isolation's answer: without it, accepted).
    let node = first_node(&tree, |n| {
        matches!(tree.kind(n), NodeKind::Optional { .. }) && tree.child_count(n) == 1 && tree.unparse_node(n) == b","
    });
    let culprit = Culprit {
        tree,
        node,
        input: input.to_vec(),
    };
    let edits = earlier_choice(&g, &culprit, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(
            edits.first(),
            Some(Change::Apart {
                alt: 1,
                present: true,
                ..
            })
        ),
        "{described:?}"
    );
    assert!(forbids(&g, &edits[0], &culprit.tree, culprit.node));
    let applied = edit::apply(&g, &edits[..1], "lists.grammar").unwrap();
    let parses = |text: &[u8]| Parser::new(&applied.grammar).parse(text).is_ok();
    for text in valid {
        assert!(parses(text.as_bytes()), "{text}\n{}", applied.text);
    }
    assert!(!parses(input), "{}", applied.text);
}

#[test]
fn an_optional_part_wrong_only_after_another_absent_is_kept_apart_from_it() {
    // No sample has `[]`: raising the elements' count would pass the samples, and lose it.
    assert_eq!(arrays_accept(b"let [];"), Verdict::Accepted);
    assert_trailing_comma_kept_apart(
        ARRAYS,
        &["let [x];let [x,x,];", "let [x,];"],
        &arrays_accept,
        b"let [,];",
        &["let [];", "let [x];", "let [x,];", "let [x,x];", "let [x,x,];"],
    );
}

/// Parameter lists whose cheapest parameter (`!`) the parser rejects, with an optional
/// trailing comma it takes only after a parameter.
const PARAMS: &str = r##"
file  = ( "fn f" params ";" )* ;
params = "(" ( param ( "," param )* )? ( "," )? ")" ;
param = "!" | "a:u8" ;
"##;

fn params_accept(input: &[u8]) -> Verdict {
    list_accept(input, "fn f(", ");", "a:u8")
}

#[test]
fn a_trailing_part_is_kept_apart_from_an_empty_list_whose_cheapest_item_is_rejected() {
    // The samples leave the list empty (`f()`), so its count is no edit; a parameter of
    // theirs, not the cheapest one, shows the comma valid after it.
    assert_eq!(params_accept(b"fn f(!,);"), Verdict::Rejected);
    assert_trailing_comma_kept_apart(
        PARAMS,
        &["fn f();fn f(a:u8,a:u8,);", "fn f(a:u8);"],
        &params_accept,
        b"fn f(,);",
        &["fn f();", "fn f(a:u8);", "fn f(a:u8,);", "fn f(a:u8,a:u8,);"],
    );
}

/// Blocks of rules and of `@s` statements, one rule for both: a last `e` without its `;`.
const SCOPED_BLOCKS: &str = r##"
sheet = item* ;
item  = "r" block | "@s" block ;
block = "{" "d;"* "e"? "}" ;
"##;

/// As lightningcss with declarations: a rule's block may end in `e`, an `@s` block may not.
fn blocks_accept(input: &[u8]) -> Verdict {
    let text = String::from_utf8_lossy(input);
    let ok = text.split_inclusive('}').all(|item| {
        let (head, body) = item.split_once('{').unwrap_or(("", item));
        let body = body.strip_suffix('}').unwrap_or("?");
        let body = if head == "r" {
            body.strip_suffix('e').unwrap_or(body)
        } else {
            body
        };
        (head == "r" || head == "@s") && body.len() % 2 == 0 && body.as_bytes().chunks(2).all(|c| c == b"d;")
    });
    verdict(ok)
}

#[test]
fn a_part_valid_only_in_another_context_gets_the_rule_that_holds_it_copied_for_this_one() {
    let g = Grammar::from_text(SCOPED_BLOCKS, "blocks.grammar").unwrap();
    let trees = trees_of(&g, &["r{d;e}", "@s{d;}"]);
    for t in ["r{d;e}", "@s{d;}", "r{}@s{}"] {
        assert_eq!(blocks_accept(t.as_bytes()), Verdict::Accepted, "{t}");
    }
    let judge = Judge::new(&blocks_accept);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let rejected = Parser::new(&g).parse(b"@s{e}").unwrap();
    assert_eq!(judge.verdict(b"@s{e}"), Verdict::Rejected);
    let node = first_node(&rejected, |n| {
        matches!(rejected.kind(n), NodeKind::Optional { .. }) && rejected.child_count(n) == 1
    });
    let place = place_of(&g, &rejected, node).unwrap();
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    // The `e` is valid where a rule's block has it: not made never there, but `block` copied
    // for the `@s` statement, where the next round bounds it alone.
    let item = g.symbol_by_name("item").unwrap();
    let block = g.symbol_by_name("block").unwrap();
    assert_eq!(
        edits,
        vec![Change::Specialize {
            sym: block,
            place: Place {
                parent: item,
                alt: Some(1),
                item: 1
            }
        }],
        "{described:?}"
    );
}

/// A type rule with a copy made for `fn` (as an earlier edit would have made it), both with a
/// macro variable `$x` no parser outside a macro takes, in a group each has of its own (the
/// copy's other alternative differs: edited since); and a macro's arguments, where `$x` is
/// valid.
const COPIED: &str = r#"
prog = item* ;
item = "let " id ":" ty ";" | "fn " id "(" `ty[in item]` ");" | "mac " arg ";" ;
arg  = id | "$" id ;
ty = id | ( "$" id | "*" id ) ;
`ty[in item]` = id | ( "$" id | "&" id ) ;
id = [a-z]+ ;
"#;

fn copied_accepts(input: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(input) else {
        return Verdict::Rejected;
    };
    let plain = |s: &str| {
        let s = s.trim_start_matches(['*', '&']);
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase())
    };
    let ok = text.split_inclusive(';').all(|part| {
        if let Some(decl) = part.strip_prefix("let ").and_then(|r| r.strip_suffix(';')) {
            decl.split_once(':').is_some_and(|(x, t)| plain(x) && plain(t))
        } else if let Some(sig) = part.strip_prefix("fn ").and_then(|r| r.strip_suffix(");")) {
            sig.split_once('(').is_some_and(|(f, t)| plain(f) && plain(t))
        } else if let Some(arg) = part.strip_prefix("mac ").and_then(|r| r.strip_suffix(';')) {
            plain(arg.strip_prefix('$').unwrap_or(arg))
        } else {
            false
        }
    });
    verdict(ok)
}

#[test]
fn an_alternative_wrong_everywhere_is_dropped_from_the_choices_that_say_the_same() {
    let g = Grammar::from_text(COPIED, "copied.grammar").unwrap();
    let texts = ["let a:b;fn c(d);let e:*f;", "fn g(&h);let i:j;mac k;"];
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&copied_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let group = (0..g.symbols().len())
        .map(|i| SymbolId(i as u32))
        .find(|&s| g.symbol(s).synthetic && edit::owner_name(&g, s) == "ty")
        .unwrap();
    let rejected = Parser::new(&g).parse(b"let a:$b;").unwrap();
    let dollar = first_node(&rejected, |n| {
        rejected.kind(n) == NodeKind::Rule { symbol: group, alt: 0 }
    });
    let place = place_of(&g, &rejected, dollar).unwrap();
    let edits = unseen_choice(&g, &rejected, dollar, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    let copy_group = (0..g.symbols().len())
        .map(|i| SymbolId(i as u32))
        .find(|&s| g.symbol(s).synthetic && edit::owner_name(&g, s) == "ty[in item]")
        .unwrap();
    assert_eq!(
        edits.first(),
        Some(&Change::DropAlternative {
            sym: group,
            alt: 0,
            also: vec![(copy_group, 0)],
        }),
        "{described:?}"
    );
    // Made, it drops `$` from the rule and from the copy's group; not from a macro's
    // arguments, where the parser takes it.
    let applied = edit::apply(&g, &edits[..1], "copied.grammar").unwrap();
    let r = &applied.grammar;
    assert_eq!(applied.rules[0], ["ty", "ty[in item]"]);
    for (text, kept) in [
        ("let a:$b;", false),
        ("fn f($b);", false),
        ("let a:*b;", true),
        ("fn f(&b);", true),
        ("fn f(b);", true),
        ("mac $b;", true),
    ] {
        assert_eq!(parses(r, text.as_bytes()), kept, "{text}\n{}", applied.text);
    }
    // Alone, the copy keeps it.
    let alone = Change::DropAlternative {
        sym: group,
        alt: 0,
        also: Vec::new(),
    };
    let applied = edit::apply(&g, &[alone], "copied.grammar").unwrap();
    assert!(parses(&applied.grammar, b"fn f($b);"));
    assert!(!parses(&applied.grammar, b"let a:$b;"));
}

/// Statements with an optional `to (…)`, spaces anywhere.
const TO: &str = r#"
%layout _ ;
sheet = stmt* ;
stmt  = _ "@s" _ "(" _ "a" _ ")" ( _ "to" _ "(" _ "b" _ ")" )? _ ";" ;
_     = " "* ;
"#;

/// As CSS's tokenizer: `to(` is a function token, which `@s` does not take.
fn to_accepts(input: &[u8]) -> Verdict {
    parsed_without(TO, input, "to(")
}

/// Accepted: `input` parses with `grammar` and does not hold `banned`.
fn parsed_without(grammar: &str, input: &[u8], banned: &str) -> Verdict {
    let parsed = Grammar::from_text(grammar, "test.grammar")
        .ok()
        .is_some_and(|g| Parser::new(&g).parse(input).is_ok());
    verdict(parsed && !String::from_utf8_lossy(input).contains(banned))
}

#[test]
fn two_tokens_the_parser_reads_as_one_get_layout_between_them() {
    let g = Grammar::from_text(TO, "to.grammar").unwrap();
    let input = b"@s(a) to(b);".to_vec();
    let tree = Parser::new(&g).parse(&input).unwrap();
    // Say isolation blames the `b` (each of the part's tokens is as much to blame).
    let node = first_node(&tree, |n| {
        matches!(tree.kind(n), NodeKind::Leaf { .. }) && tree.leaf_bytes(n) == b"b"
    });
    let culprit = Culprit { tree, node, input };
    let judge = Judge::new(&to_accepts);
    let edits = touching(&g, &culprit, &Facts::new(&g, &[]), &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(edits.first(), Some(Change::Bound { min: 1, .. })),
        "{described:?}"
    );
    // Where the bound is refused, the two literals kept apart.
    assert_eq!(
        edits.get(1),
        Some(&Change::Separate {
            before: b"to".to_vec(),
            after: b"(".to_vec(),
            never: false,
        }),
        "{described:?}"
    );
    let applied = edit::apply(&g, &edits[..1], "to.grammar").unwrap();
    let parses = |text: &[u8]| Parser::new(&applied.grammar).parse(text).is_ok();
    for text in ["@s(a) to (b);", "@s (a);", "@s(a)to (b) ;"] {
        assert!(parses(text.as_bytes()), "{text}\n{}", applied.text);
    }
    assert!(!parses(b"@s(a) to(b);"), "{}", applied.text);
}

/// Statements of a keyword in any case and an expression, spaces anywhere.
const DOLLAR: &str = r#"
%layout _ ;
stmts   = stmt* ;
stmt    = _ kw_into _ expr _ ";" ;
kw_into = [Ii] [Nn] [Tt] [Oo] ;
expr    = _ "(" _ expr _ ")" | _ param | _ name ;
param   = "$" [0-9]+ ;
name    = [a-z]+ ;
_       = " "* ;
"#;

/// As sqlparser's lexer: `$` goes on a word (`INTO$7` is one name).
fn dollar_accepts(input: &[u8]) -> Verdict {
    let glued = input
        .windows(2)
        .any(|w| (w[0].is_ascii_alphanumeric() || w[0] == b'_') && w[1] == b'$');
    let parsed = Grammar::from_text(DOLLAR, "into.grammar")
        .ok()
        .is_some_and(|g| Parser::new(&g).parse(input).is_ok());
    verdict(parsed && !glued)
}

#[test]
fn a_word_and_a_token_starting_with_a_literal_the_lexer_reads_as_one_are_kept_apart() {
    let g = Grammar::from_text(DOLLAR, "into.grammar").unwrap();
    let input = b"inTO$7;".to_vec();
    let tree = Parser::new(&g).parse(&input).unwrap();
    let node = first_node(&tree, |n| tree.kind(n).symbol() == g.symbol_by_name("param"));
    let culprit = Culprit { tree, node, input };
    let judge = Judge::new(&dollar_accepts);
    let edits = touching(&g, &culprit, &Facts::new(&g, &[]), &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(edits.first(), Some(Change::Bound { min: 1, .. })),
        "{described:?}"
    );
    // The keyword in lower case; of `$7`, the literal it starts with.
    let separate = Change::Separate {
        before: b"into".to_vec(),
        after: b"$".to_vec(),
        never: false,
    };
    assert_eq!(edits.get(1), Some(&separate), "{described:?}");
    // Generation keeps them apart in any case; the samples have no layout there.
    let glued = |outputs: &[Vec<u8>]| {
        outputs
            .iter()
            .filter(|o| dollar_accepts(o) == Verdict::Rejected)
            .count()
    };
    let texts = ["into(a);", "INTO(b);into(c);"];
    let before: usize = generated(&g, &texts, 64, 1, 300).iter().map(|(_, o)| glued(o)).sum();
    assert!(before > 0, "the grammar as given never glues: the test shows nothing");
    let applied = edit::apply(&g, &[separate], "into.grammar").unwrap();
    for (mode, outputs) in generated(&applied.grammar, &texts, 64, 1, 300) {
        assert_eq!(glued(&outputs), 0, "{mode:?}\n{}", applied.text);
    }
    // Parsing is not changed.
    assert!(parses(&applied.grammar, b"Into$7;"));
}

/// Numbers, and a copy of their rule made for a media query.
const MEDIA: &str = r#"
sheet = ( "w:" num ";" | "@m(" `num[in sheet]` "){}" )* ;
num   = [0-9]+ unit? ;
`num[in sheet]` = [0-9]+ unit? ;
unit  = "px" | "em" ;
"#;

#[test]
fn words_found_for_a_copy_of_a_rule_are_drawn_there_only() {
    let g = Grammar::from_text(MEDIA, "media.grammar").unwrap();
    let copy = g.symbol_by_name("num[in sheet]").unwrap();
    let words = Change::Values {
        sym: copy,
        words: vec![b"768px".to_vec(), b"480px".to_vec()],
    };
    let applied = edit::apply(&g, &[words], "media.grammar").unwrap();
    let name = |g: &Grammar, v: &crate::grammar::Values| -> Vec<String> {
        v.names.iter().map(|&s| g.symbol(s).name.clone()).collect()
    };
    let r = &applied.grammar;
    assert_eq!(r.values().len(), 1);
    assert_eq!(name(r, &r.values()[0]), ["num[in sheet]"], "{}", applied.text);
    // Written and read again, the table still covers the copy alone.
    let again = Grammar::from_text(&applied.text, "media.grammar").unwrap();
    assert_eq!(name(&again, &again.values()[0]), ["num[in sheet]"], "{}", applied.text);
    // Generated, the copy spells one of the words, and the rule's other uses what they like.
    let samples = ["w:12;@m(1em){}w:3px;", "@m(5){}w:400em;"];
    let out: Vec<Vec<u8>> = generated(&again, &samples, 200, 7, 40)
        .into_iter()
        .flat_map(|(_, inputs)| inputs)
        .collect();
    let joined = String::from_utf8_lossy(&out.concat()).into_owned();
    assert!(
        joined.contains("@m(768px){}") || joined.contains("@m(480px){}"),
        "{joined}"
    );
    assert!(
        joined
            .split("@m(")
            .skip(1)
            .all(|rest| rest.starts_with("768px)") || rest.starts_with("480px)")),
        "{joined}"
    );
    assert!(
        joined
            .split("w:")
            .skip(1)
            .any(|rest| !rest.starts_with("768px;") && !rest.starts_with("480px;")),
        "{joined}"
    );
}

/// Calls and names, with a table of function names (a copy's words) declared before a table
/// of all names, as refine writes them when it learns the names first.
const FNAMES: &str = r#"
%values fname fnames ;
%values name names ;
file   = ( call ";" | name ";" )* ;
call   = fname "(" name ")" ;
fname  = name ;
name   = [a-z]+ ;
fnames = "extract" ;
names  = "a" | "b" ;
"#;

#[test]
fn no_table_redraws_inside_a_word_another_table_drew() {
    let g = Grammar::from_text(FNAMES, "fnames.grammar").unwrap();
    let out: Vec<Vec<u8>> = generated(&g, &["f(x);y;f(z);"], 200, 3, 40)
        .into_iter()
        .flat_map(|(_, inputs)| inputs)
        .collect();
    let joined = String::from_utf8_lossy(&out.concat()).into_owned();
    // Every call is of `extract` (the names table would make it `a` or `b`); the names
    // around it are from their own table.
    assert!(joined.contains("extract("), "{joined}");
    for call in joined.split(';').filter(|s| s.contains('(')) {
        assert!(call == "extract(a)" || call == "extract(b)", "{call:?} in {joined}");
    }
}

/// Declared and used type names: a table of all type names (`Self` among them, as the
/// samples use it), and the own words of the copy of a name in a declaration.
const DECLARED: &str = r#"
%values tname tnames ;
%values `name[in tname[in decl]]` declared ;
file     = ( decl | use )* ;
decl     = "struct " `tname[in decl]` ";" ;
use      = "use " tname ";" ;
tname    = name ;
`tname[in decl]` = `name[in tname[in decl]]` ;
name     = [A-Za-z]+ ;
`name[in tname[in decl]]` = [A-Za-z]+ ;
tnames   = "Self" | "Vec" ;
declared = "Point" | "Node" ;
"#;

#[test]
fn a_copys_own_table_draws_inside_a_word_of_its_rules_table() {
    let g = Grammar::from_text(DECLARED, "declared.grammar").unwrap();
    let out: Vec<Vec<u8>> = generated(&g, &["struct A;use B;struct C;use D;"], 200, 5, 40)
        .into_iter()
        .flat_map(|(_, inputs)| inputs)
        .collect();
    let joined = String::from_utf8_lossy(&out.concat()).into_owned();
    let names = |keyword: &str| -> Vec<String> {
        joined
            .split(keyword)
            .skip(1)
            .map(|rest| rest.split(';').next().unwrap_or("").to_string())
            .collect()
    };
    let (declared, used) = (names("struct "), names("use "));
    assert!(!declared.is_empty() && !used.is_empty(), "{joined}");
    // A declaration's name is the copy's word (never `Self`); a use's, the rule's.
    assert!(declared.iter().all(|n| n == "Point" || n == "Node"), "{declared:?}");
    assert!(used.iter().all(|n| n == "Self" || n == "Vec"), "{used:?}");
}

/// Functions with one type parameter and a result type, both names.
const SELFISH: &str = r#"
file = item* ;
item = "fn<" name ">" name ";" ;
name = [A-Za-z]+ ;
"#;

/// As Rust: `Self` names a type, but no type parameter.
fn selfish_accepts(input: &[u8]) -> Verdict {
    parsed_without(SELFISH, input, "<Self>")
}

#[test]
fn a_tables_words_fit_every_place_of_its_rule_in_the_samples() {
    let g = Grammar::from_text(SELFISH, "selfish.grammar").unwrap();
    let trees = trees_of(&g, &["fn<T>Self;", "fn<U>Vec;fn<T>T;fn<K>V;"]);
    let texts = Texts::new(&g, &trees);
    let judge = Judge::new(&selfish_accepts);
    let name = g.symbol_by_name("name").unwrap();
    let words: Vec<&Word<'_>> = texts.words(name).unwrap().iter().collect();
    let spelled = |ws: &[&Word<'_>]| -> Vec<String> {
        let mut out: Vec<String> = ws
            .iter()
            .map(|w| String::from_utf8_lossy(&w.text).into_owned())
            .collect();
        out.sort();
        out
    };
    assert!(spelled(&words).contains(&"Self".to_string()));
    // `Self` is a result's name in the samples, but no parameter takes it.
    let kept = fit_elsewhere(&g, name, words, &trees, &judge);
    assert_eq!(spelled(&kept), ["K", "T", "U", "V", "Vec"]);
}

#[test]
fn a_word_valid_at_one_place_only_is_drawn_there_only() {
    let g = Grammar::from_text(SELFISH, "selfish.grammar").unwrap();
    let samples = ["fn<T>Self;", "fn<U>Vec;fn<T>T;"];
    let judge = Judge::new(&selfish_accepts);
    let name = g.symbol_by_name("name").unwrap();
    let blame = |g: &Grammar, input: &[u8]| {
        let tree = Parser::new(g).parse(input).unwrap();
        let node = first_node(&tree, |n| {
            tree.kind(n)
                .symbol()
                .is_some_and(|s| g.symbol(s).name.starts_with("name"))
        });
        Culprit {
            tree,
            node,
            input: input.to_vec(),
        }
    };
    // `Self` is one of the rule's words, so no table of words leaves it out; but the samples
    // never write it as a parameter, where their own words are accepted: the rule gets a copy there.
    let trees = trees_of(&g, &samples);
    let texts = Texts::new(&g, &trees);
    let culprit = blame(&g, b"fn<Self>Vec;");
    let edit = values_edit(&g, &culprit, &trees, &texts, &judge);
    let described = edit.as_ref().map(|e| e.describe(&g));
    assert!(
        matches!(edit, Some(Change::Specialize { sym, .. }) if sym == name),
        "{described:?}"
    );
    let copied = edit::apply(&g, &[edit.unwrap()], "selfish.grammar").unwrap();
    // The copy's words are the parameters' alone, and `Self` is none of them.
    let g2 = &copied.grammar;
    let trees = trees_of(g2, &samples);
    let texts = Texts::new(g2, &trees);
    let culprit = blame(g2, b"fn<Self>Vec;");
    let edit = values_edit(g2, &culprit, &trees, &texts, &judge);
    let described = edit.as_ref().map(|e| e.describe(g2));
    let Some(Change::Values { sym, words }) = &edit else {
        panic!("{described:?}\n{}", copied.text)
    };
    assert_ne!(*sym, g2.symbol_by_name("name").unwrap(), "{}", copied.text);
    let mut words: Vec<&[u8]> = words.iter().map(|w| &w[..]).collect();
    words.sort();
    assert_eq!(words, [&b"T"[..], b"U"]);
    // A table for the whole rule drawn as well, made after the copy's, does not override it.
    let whole = Change::Values {
        sym: g2.symbol_by_name("name").unwrap(),
        words: vec![b"Self".to_vec(), b"Vec".to_vec()],
    };
    let both = edit::apply(g2, &[edit.unwrap(), whole], "selfish.grammar").unwrap();
    let out: Vec<Vec<u8>> = generated(&both.grammar, &samples, 100, 3, 60)
        .into_iter()
        .flat_map(|(_, inputs)| inputs)
        .collect();
    let joined = String::from_utf8_lossy(&out.concat()).into_owned();
    assert!(joined.contains(">Self;"), "{joined}");
    assert!(
        out.iter().all(|o| selfish_accepts(o) == Verdict::Accepted),
        "{joined}\n{}",
        both.text
    );
}

/// Imports and declarations, each with a call of a function by name.
const IMPORTS: &str = r#"
sheet  = rule* ;
rule   = import | decl ;
import = "@import " call ";" ;
decl   = "x:" call ";" ;
call   = fname "(" [a-z]+ ")" ;
fname  = [a-z]+ ;
"#;

/// As CSS: `@import` takes `url(…)` only, a declaration any function.
fn imports_accepts(input: &[u8]) -> Verdict {
    let text = String::from_utf8_lossy(input);
    let parsed = parsed_without(IMPORTS, input, "\u{0}") == Verdict::Accepted;
    verdict(parsed && text.split("@import ").skip(1).all(|rest| rest.starts_with("url(")))
}

/// The edits [`values_edit`] makes, one after the other on the grammar each makes, for
/// `@import teropl(a);` with the culprit the first node of a rule named `culprit*`: the
/// copies made, then the rule drawn from words and its words.
fn import_words(samples: &[&str], culprit: &str) -> (Vec<String>, String, Vec<Vec<u8>>) {
    let judge = Judge::new(&imports_accepts);
    let mut g = Grammar::from_text(IMPORTS, "imports.grammar").unwrap();
    let mut made = Vec::new();
    loop {
        let trees = trees_of(&g, samples);
        let texts = Texts::new(&g, &trees);
        let tree = Parser::new(&g).parse(b"@import teropl(a);").unwrap();
        let node = first_node(&tree, |n| {
            tree.kind(n)
                .symbol()
                .is_some_and(|s| g.symbol(s).name.starts_with(culprit))
        });
        let input = tree.unparse();
        let culprit = Culprit { tree, node, input };
        let edit = values_edit(&g, &culprit, &trees, &texts, &judge);
        let described = edit.as_ref().map(|e| e.describe(&g));
        match edit {
            Some(Change::Values { sym, words }) => return (made, g.symbol(sym).name.clone(), words),
            Some(copy @ Change::Specialize { .. }) if made.len() < 3 => {
                made.push(described.unwrap());
                g = edit::apply(&g, &[copy], "imports.grammar").unwrap().grammar;
            }
            _ => panic!("{described:?} after {made:?}"),
        }
    }
}

#[test]
fn a_word_valid_under_one_place_of_a_rule_around_it_is_drawn_there_only() {
    // The function's name is none of the rule's words, and those the samples write most
    // (`rgb`, `var`, `calc`) are wrong in an import too; at the name's own place (any call)
    // they are the same. Under the import's call, the samples write `url`, and it is
    // accepted: the call gets a copy for the import, then the name one for that call, whose
    // words are `url` alone.
    let samples = [
        "x:rgb(a);x:var(b);x:calc(c);",
        "x:rgb(d);x:var(e);x:calc(f);@import url(g);",
    ];
    let (made, rule, words) = import_words(&samples, "fname");
    assert!(made[0].contains("`call`"), "{made:?}");
    assert!(rule.starts_with("fname[in call[in import]"), "{rule} after {made:?}");
    assert_eq!(words, [b"url".to_vec()], "{made:?}");
    // The culprit the whole call, which is no word (a sample's call is too long for one),
    // nor are the rules around it: the name inside it leads to the same edits.
    let long = format!("@import url({});", "g".repeat(70));
    let samples = [samples[0], samples[1], &long];
    let (made, rule, words) = import_words(&samples, "call");
    assert!(made[0].contains("`call`"), "{made:?}");
    assert!(rule.starts_with("fname[in call[in import]"), "{rule} after {made:?}");
    assert_eq!(words, [b"url".to_vec()], "{made:?}");
}

/// Statements apart, by a space or a block comment of letters, a `*` before some.
const COMMENTED: &str = r#"
file    = stmt* ;
stmt    = "x" gap ";" ;
gap     = " " | comment ;
comment = "/*" part* "*/" ;
part    = [a-z] | "*" [a-z] ;
"#;

/// As Rust: `/**a*/` is a doc comment, which no statement's gap takes; `/*a*b*/` is none.
fn commented_accepts(input: &[u8]) -> Verdict {
    parsed_without(COMMENTED, input, "/**")
}

#[test]
fn a_part_wrong_only_first_where_no_sample_has_it_is_joined_after_another() {
    let g = Grammar::from_text(COMMENTED, "commented.grammar").unwrap();
    // No sample has a comment: nothing shows where `*a` is valid but the parser.
    let trees = trees_of(&g, &["x ;", "x ;x ;"]);
    let judge = Judge::new(&commented_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let part = g.symbol_by_name("part").unwrap();
    let rejected = Parser::new(&g).parse(b"x/**q*/;").unwrap();
    let node = first_node(&rejected, |n| {
        rejected.kind(n) == NodeKind::Rule { symbol: part, alt: 1 }
    });
    let place = place_of(&g, &rejected, node).unwrap();
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(edits.first(), Some(Change::JoinAfter { alt: 1, after: 0, .. })),
        "{described:?}"
    );
    assert!(
        !edits.iter().any(|e| matches!(e, Change::DropAlternative { .. })),
        "{described:?}"
    );
    let applied = edit::apply(&g, &edits[..1], "commented.grammar").unwrap();
    let parses = |text: &[u8]| Parser::new(&applied.grammar).parse(text).is_ok();
    assert!(parses(b"x/*a*b*/;") && parses(b"x/*ab*/;"), "{}", applied.text);
    // `*c` right after `*b` as well: the parser takes it, and the joined alternative repeats.
    assert!(
        matches!(edits.first(), Some(Change::JoinAfter { again: true, .. })),
        "{described:?}"
    );
    assert!(parses(b"x/*a*b*c*/;") && parses(b"x/*a*b*cd*e*/;"), "{}", applied.text);
    assert!(!parses(b"x/**q*/;"), "{}", applied.text);
}

/// Items with gaps that may be comments, `/**…*/` a doc comment as in Rust.
const DOC_GAPS: &str = r#"
file    = item* ;
item    = "pub" gap "fn" gap "f;" gap ;
gap     = " " | comment ;
comment = "/*" "*"? text "*/" ;
text    = [a-z]* ;
"#;

/// As Rust: a doc comment is no gap between `pub` and `fn`, but one anywhere else.
fn doc_gaps_accept(input: &[u8]) -> Verdict {
    parsed_without(DOC_GAPS, input, "pub/**")
}

#[test]
fn a_culprit_is_tried_where_the_samples_have_its_rule() {
    let g = Grammar::from_text(DOC_GAPS, "doc-gaps.grammar").unwrap();
    // No sample has a comment; their gaps are spaces.
    let trees = trees_of(&g, &["pub fn f; pub fn f; ", "pub fn f; "]);
    let judge = Judge::new(&doc_gaps_accept);
    let input = b"pub/**q*/fn f; ".to_vec();
    let tree = Parser::new(&g).parse(&input).unwrap();
    // Isolation blames the doc comment's text, which is wrong only where it stands.
    let text = g.symbol_by_name("text").unwrap();
    let node = first_node(&tree, |n| tree.kind(n).symbol() == Some(text));
    let culprit = Culprit { tree, node, input };
    let moved = transplanted(&g, &culprit, &trees, &Good::new(&g, &trees), &judge);
    let shown: Vec<String> = moved.iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect();
    // In the samples' other gaps the comment is accepted: each such input holds it whole.
    assert!(!moved.is_empty(), "{shown:?}");
    for b in &moved {
        assert_eq!(doc_gaps_accept(b), Verdict::Accepted, "{shown:?}");
        let text = String::from_utf8_lossy(b);
        assert!(text.contains("/**q*/") && !text.contains("pub/**"), "{shown:?}");
        // In as little of the sample as the grammar allows: its other items are gone.
        assert_eq!(text.matches("pub").count(), 1, "{shown:?}");
    }
}

/// Options of a statement, as SQL's `CREATE FUNCTION … LANGUAGE c`.
const OPTIONS: &str = r#"
file = ( "f" opt* ";" )* ;
opt  = " l" name | " s" ;
name = [a-z]+ ;
"#;

/// As sqlparser: each option at most once in a statement.
fn options_accept(input: &[u8]) -> Verdict {
    let text = String::from_utf8_lossy(input);
    let once = text
        .split(';')
        .all(|stmt| stmt.matches(" l").count() <= 1 && stmt.matches(" s").count() <= 1);
    let g = Grammar::from_text(OPTIONS, "options.grammar").unwrap();
    verdict(once && Parser::new(&g).parse(input).is_ok())
}

#[test]
fn a_culprits_input_accepted_without_it_is_evidence() {
    let g = Grammar::from_text(OPTIONS, "options.grammar").unwrap();
    // No sample has the `l` option.
    let trees = trees_of(&g, &["f s;", "f;"]);
    let judge = Judge::new(&options_accept);
    let good = Good::new(&g, &trees);
    let input = b"f la lb;".to_vec();
    let tree = Parser::new(&g).parse(&input).unwrap();
    // The second `l` is to blame.
    let opt = g.symbol_by_name("opt").unwrap();
    let mut opts = Vec::new();
    tree.pre_order(tree.root(), |n| {
        if tree.kind(n).symbol() == Some(opt) {
            opts.push(n);
        }
    });
    let culprit = Culprit {
        tree,
        node: opts[1],
        input,
    };
    let moved: Vec<String> = transplanted(&g, &culprit, &trees, &good, &judge)
        .iter()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    // The input with the culprit replaced keeps the first `l`: the option is valid.
    assert!(
        moved.iter().any(|m| m.starts_with("f la") && !m.contains(" lb")),
        "{moved:?}"
    );
    // And the culprit alone in the samples' place of an option is accepted.
    assert!(moved.iter().any(|m| m.contains("f lb;")), "{moved:?}");
    assert!(
        moved.iter().all(|m| options_accept(m.as_bytes()) == Verdict::Accepted),
        "{moved:?}"
    );
}

/// Rust's `?Sized` in small: `?` before a type is a bound only with a name (`?A`), and only
/// after `b` and in `[ ]`; the samples write no `?` and no name.
const MAYBE: &str = r#"
file  = item ( ";" item )* ;
item  = "b" bound | "(" bound ")" | "[" bound "]" | "{" bound "}" ;
bound = ty | "?" ty ;
ty    = "!" | "A" | "()" ;
"#;

fn maybe_accepts(input: &[u8]) -> Verdict {
    let ok = |item: &[u8]| {
        let (open, inner, close): (&[u8], &[u8], &[u8]) = match item.first() {
            Some(b'b') => (b"b", &item[1..], b""),
            Some(b'(') => (b"(", &item[1..], b")"),
            Some(b'[') => (b"[", &item[1..], b"]"),
            Some(b'{') => (b"{", &item[1..], b"}"),
            _ => return false,
        };
        let Some(bound) = inner.strip_suffix(close) else {
            return false;
        };
        match bound {
            b"!" | b"A" | b"()" => true,
            b"?A" => open == b"b" || open == b"[",
            _ => false,
        }
    };
    verdict(input.split(|&b| b == b';').all(ok))
}

#[test]
fn an_alternative_is_kept_at_a_place_where_another_form_of_it_is_valid() {
    let g = Grammar::from_text(MAYBE, "maybe.grammar").unwrap();
    let trees = trees_of(&g, &["b();(!)", "[()];{!}", "b!;[!]"]);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let bound = g.symbol_by_name("bound").unwrap();
    let item = g.symbol_by_name("item").unwrap();
    let judge = Judge::new(&maybe_accepts);
    let rejected = Parser::new(&g).parse(b"(?!)").unwrap();
    let node = first_node(&rejected, |n| rejected.kind(n).symbol() == Some(bound));
    let place = place_of(&g, &rejected, node).unwrap();
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    let all = edits.iter().find_map(|e| match e {
        Change::DropAlternativeAtAll { sym, alt: 1, places } if *sym == bound => Some(places.clone()),
        _ => None,
    });
    let at = |alt| Place {
        parent: item,
        alt: Some(alt),
        item: 1,
    };
    // The culprit (`?!`) and the alternative's forms the samples' parts make (`?()`) are
    // rejected everywhere; `?A`, a form with another type, is valid after `b` and in `[ ]`:
    // the `?` is dropped in `( )` and `{ }` alone.
    assert_eq!(all, Some(vec![at(1), at(3)]), "{described:?}");
    assert!(
        !edits
            .iter()
            .any(|e| matches!(e, Change::DropAlternative { sym, .. } if *sym == bound)),
        "{described:?}"
    );
}

/// SQL's `INTO` in small: a selection may end in `@` only right after `q`, not inside
/// brackets of any kind.
const INTO: &str = r#"
file   = query ( ";" query )* ;
query  = "q" select | "(" select ")" | "[" select "]" | "{" select "}" | "<" select ">" ;
select = "s" | "s@" ;
"#;

/// `INTO`'s language, or with `[s@]` also valid (`square`).
fn into_accepts(input: &[u8], square: bool) -> Verdict {
    let ok = |q: &[u8]| match q {
        b"qs" | b"qs@" | b"(s)" | b"[s]" | b"{s}" | b"<s>" => true,
        b"[s@]" => square,
        _ => false,
    };
    verdict(input.split(|&b| b == b';').all(ok))
}

#[test]
fn an_alternative_wrong_at_several_places_is_dropped_from_all_of_them_at_once() {
    let g = Grammar::from_text(INTO, "into.grammar").unwrap();
    // The samples have the selection after `q` (with and without `@`) and in `( )`, `[ ]`
    // and `{ }`; none has `< >`.
    let trees = trees_of(&g, &["qs@;(s)", "[s];qs", "{s}"]);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let select = g.symbol_by_name("select").unwrap();
    let query = g.symbol_by_name("query").unwrap();
    let rejected = Parser::new(&g).parse(b"(s@)").unwrap();
    let node = first_node(&rejected, |n| rejected.kind(n).symbol() == Some(select));
    let place = place_of(&g, &rejected, node).unwrap();
    let at = |alt| Place {
        parent: query,
        alt: Some(alt),
        item: 1,
    };
    let found = |square: bool| {
        let accepts = move |i: &[u8]| into_accepts(i, square);
        let judge = Judge::new(&accepts);
        let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
        let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
        let all = edits.iter().find_map(|e| match e {
            Change::DropAlternativeAtAll { sym, alt: 1, places } if *sym == select => Some(places.clone()),
            _ => None,
        });
        (all, described)
    };
    // Rejected in `( )`, where the culprit is, and in a sample's `[ ]` and `{ }`: dropped
    // at those three; kept after `q`, where a sample has it, and in `< >`, where no sample
    // has the selection to say it is wrong.
    let (all, described) = found(false);
    assert_eq!(all, Some(vec![at(1), at(2), at(3)]), "{described:?}");
    let edits = [Change::DropAlternativeAtAll {
        sym: select,
        alt: 1,
        places: vec![at(1), at(2), at(3)],
    }];
    let edited = edit::apply(&g, &edits, "into.grammar").unwrap().grammar;
    let parses = |s: &[u8]| Parser::new(&edited).parse(s).is_ok();
    assert!(parses(b"qs@;(s);[s];{s};qs;<s@>"));
    assert!(!parses(b"(s@)") && !parses(b"[s@]") && !parses(b"{s@}"));
    // Where the parser takes it in a sample's `[ ]`, it is kept there.
    let (all, described) = found(true);
    assert_eq!(all, Some(vec![at(1), at(3)]), "{described:?}");
}

/// A wildcard with an alias, which the parser never takes; `0` then `* n` is a product.
const WILDCARD: &str = r#"
file  = term ;
term  = "*" alias | expr ;
expr  = "0" | " n" | expr "*" expr ;
alias = " n" ;
"#;

/// `WILDCARD`'s language: products, no wildcard.
const PRODUCTS: &str = r#"
file = expr ;
expr = "0" | " n" | expr "*" expr ;
"#;

#[test]
fn a_join_the_grammar_reads_otherwise_is_no_join() {
    let g = Grammar::from_text(WILDCARD, "wildcard.grammar").unwrap();
    let accepts = |input: &[u8]| parsed_without(PRODUCTS, input, "#");
    let judge = Judge::new(&accepts);
    let trees = trees_of(&g, &["0", "0* n"]);
    let good = Good::new(&g, &trees);
    let rejected = Parser::new(&g).parse(b"* n").unwrap();
    let term = g.symbol_by_name("term").unwrap();
    let node = first_node(&rejected, |n| {
        rejected.kind(n) == NodeKind::Rule { symbol: term, alt: 0 }
    });
    // `0* n` is accepted, but as a product: no evidence that the wildcard may follow a term.
    assert_eq!(accepts(b"0* n"), Verdict::Accepted);
    let own = [(&rejected, node)];
    assert_eq!(joined_after(&g, &rejected, node, term, 0, &own, &good, &judge), None);
}

/// SQL's select list in small: an alias after a name, never after the wildcard.
const ALIASED: &str = r#"
list  = term ( "," term )* ;
term  = ( "*" | name ) alias? ;
name  = "a" | "b" ;
alias = " as x" ;
"#;

fn aliased_accepts(input: &[u8]) -> Verdict {
    let ok = |t: &[u8]| matches!(t, b"*" | b"a" | b"b" | b"a as x" | b"b as x");
    verdict(input.split(|&b| b == b',').all(ok))
}

#[test]
fn an_optional_part_wrong_only_after_one_choice_is_kept_apart_from_it() {
    let g = Grammar::from_text(ALIASED, "aliased.grammar").unwrap();
    let trees = trees_of(&g, &["a as x,b", "b,a"]);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let judge = Judge::new(&aliased_accepts);
    // The wildcard alone is valid, and so is an alias after a name: the two together are not.
    let rejected = Parser::new(&g).parse(b"a,* as x").unwrap();
    let culprit = isolate::isolate(&g, rejected, &good, &judge).expect("a culprit");
    let edits = rule_edits(&g, &culprit, &trees, &good, &facts, &judge, 1);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    let apart = edits
        .iter()
        .find(|e| matches!(e, Change::Apart { present: false, .. }))
        .unwrap_or_else(|| panic!("{described:?}"));
    let edited = edit::apply(&g, std::slice::from_ref(apart), "aliased.grammar")
        .unwrap()
        .grammar;
    let parses = |s: &[u8]| Parser::new(&edited).parse(s).is_ok();
    assert!(parses(b"*,a as x,b,*"), "{described:?}");
    assert!(!parses(b"* as x"), "{described:?}");
}

/// SQL's CTE bodies in small: `write[in inner]`, a copy both bodies share, holds `t` (a
/// `TRUNCATE`), which is valid only after `!` (at the top level).
const CTE_BODIES: &str = r#"
file             = "(" inner ")" | "[" inner2 "]" | "!" write ;
inner            = "s" | `write[in inner]` ;
inner2           = "s" | `write[in inner]` ;
`write[in inner]` = "delete" | "t" ;
write            = "delete" | "t" ;
"#;

fn cte_bodies_accepts(input: &[u8]) -> Verdict {
    verdict(matches!(
        input,
        b"(s)" | b"(delete)" | b"[s]" | b"[delete]" | b"!t" | b"!delete"
    ))
}

#[test]
fn a_choice_wrong_inside_a_shared_copy_is_dropped_in_the_copy() {
    let g = Grammar::from_text(CTE_BODIES, "cte_bodies.grammar").unwrap();
    // (No sample has a body that writes: their smallest parts would be `delete`.)
    let trees = trees_of(&g, &["(s)", "[s]", "!t"]);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let judge = Judge::new(&cte_bodies_accepts);
    let inner = g.symbol_by_name("inner").unwrap();
    let copy = g.symbol_by_name("write[in inner]").unwrap();
    let rejected = Parser::new(&g).parse(b"(t)").unwrap();
    let node = first_node(&rejected, |n| rejected.kind(n).symbol() == Some(inner));
    let place = place_of(&g, &rejected, node).unwrap();
    // `(delete)` is accepted: the body's choice inside the copy is to blame. The copy is
    // not copied again; the choice is dropped from it.
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    let drop = edits
        .iter()
        .find(|e| matches!(e, Change::DropAlternativeAt { sym, alt: 1, .. } if *sym == copy))
        .unwrap_or_else(|| panic!("{described:?}"));
    let edited = edit::apply(&g, std::slice::from_ref(drop), "cte_bodies.grammar")
        .unwrap()
        .grammar;
    let parses = |s: &[u8]| Parser::new(&edited).parse(s).is_ok();
    assert!(parses(b"!t") && parses(b"(delete)") && parses(b"[s]"), "{described:?}");
    assert!(!parses(b"(t)") && !parses(b"[t]"), "{described:?}");
}

/// Rust's block-like expressions in small, where refine's copies already stand for every
/// expression: `{x}` may not start an assignment (it would end the statement), `async{x}`
/// may, and both are values.
const BLOCK_LIKE: &str = r#"
file               = stmt* ;
stmt               = "let a=" `expr[in stmt]` ";" | `expr[in stmt]` "=t;" ;
`expr[in stmt]`    = "x" | `ending[in expr]` ;
`ending[in expr]`  = "{x}" | "loop{x}" | "async{x}" ;
expr               = "x" | ending ;
ending             = "{x}" | "loop{x}" | "async{x}" ;
"#;

fn block_like_accepts(input: &[u8]) -> Verdict {
    let parsed = parsed_without(BLOCK_LIKE, input, "\0") == Verdict::Accepted;
    let text = String::from_utf8_lossy(input);
    verdict(parsed && !text.split(';').any(|s| s.starts_with('{') || s.starts_with("loop")))
}

#[test]
fn a_choice_the_samples_show_valid_in_a_shared_copy_is_not_dropped_from_it() {
    let g = Grammar::from_text(BLOCK_LIKE, "block_like.grammar").unwrap();
    let judge = Judge::new(&block_like_accepts);
    let expr = g.symbol_by_name("expr[in stmt]").unwrap();
    let edits_for = |samples: &[&str]| {
        let trees = trees_of(&g, samples);
        let good = Good::new(&g, &trees);
        let facts = Facts::new(&g, &trees);
        let rejected = Parser::new(&g).parse(b"{x}=t;").unwrap();
        assert_eq!(judge.verdict(&rejected.unparse()), Verdict::Rejected);
        let node = first_node(&rejected, |n| rejected.kind(n).symbol() == Some(expr));
        let place = place_of(&g, &rejected, node).unwrap();
        let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
        edits.iter().map(|e| e.describe(&g)).collect::<Vec<String>>()
    };
    let dropped = |described: &[String]| {
        described
            .iter()
            .any(|d| d.contains("dropped") && d.contains("ending[in expr]"))
    };
    // `async{x}=t;` is accepted: the block, a choice inside the copy, is to blame. No sample
    // has a block-like value: nothing says the copy holds the block validly anywhere.
    let described = edits_for(&["let a=x;x=t;"]);
    assert!(dropped(&described), "{described:?}");
    // A sample's `let a=loop{x};` with the block in its place is accepted: the copy holds it
    // validly, and it is not dropped from it (nor from any other place).
    let described = edits_for(&["let a=loop{x};x=t;"]);
    assert!(!dropped(&described), "{described:?}");
}

/// Blocks in small: an attribute `#a` is a statement of its own in the grammar, but the
/// parser wants an item after it.
const TRAILING: &str = r##"
file  = block* ;
block = "ext{" stmt* "}" ;
stmt  = "#a" | "f;" | "g;" ;
"##;

fn trailing_accepts(input: &[u8]) -> Verdict {
    let s = std::str::from_utf8(input).unwrap_or("");
    verdict(!s.contains("#a}") && !s.contains("#a#a"))
}

#[test]
fn an_alternative_valid_only_before_another_item_is_not_dropped() {
    let g = Grammar::from_text(TRAILING, "trailing.grammar").unwrap();
    let trees = trees_of(&g, &["ext{f;}", "ext{g;f;}"]);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let judge = Judge::new(&trailing_accepts);
    let stmt = g.symbol_by_name("stmt").unwrap();
    let rejected = Parser::new(&g).parse(b"ext{f;#a}").unwrap();
    let node = first_node(&rejected, |n| {
        rejected.kind(n).symbol() == Some(stmt) && rejected.unparse_node(n) == b"#a"
    });
    let place = place_of(&g, &rejected, node).unwrap();
    // `ext{#a}` (the attribute in place of a sample's item) is rejected, but `ext{#af;}`
    // (before it) is accepted: the attribute is valid in a block, its being last is wrong.
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(edits.is_empty(), "{described:?}");
    // Without the samples' item to put it before, the only evidence is the rejection.
    let lone = trees_of(&g, &["ext{}"]);
    let good = Good::new(&g, &lone);
    let facts = Facts::new(&g, &lone);
    let edits = unseen_choice(&g, &rejected, node, place, &lone, &good, &facts, &judge);
    assert!(!edits.is_empty());
}

/// An edit's check parses again only the known inputs whose parse uses a production the
/// edit changed; the others keep their parse in the edited grammar.
#[test]
fn only_inputs_that_use_a_changed_production_are_checked_again() {
    let old = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
    let tight = LOOSE_JSON.replace(r#"( "." [0-9]* )?"#, r#"( "." [0-9]+ )?"#);
    assert_ne!(tight, LOOSE_JSON);
    let new = Grammar::from_text(&tight, "tight.grammar").unwrap();
    let changed: Vec<bool> = production_map(&old, &new).iter().map(Option::is_none).collect();
    let numbers = Productions::new(&old);
    let first = |name: &str| numbers.first[old.symbols().iter().position(|s| s.name == name).unwrap()] as usize;
    for name in ["value", "number", "digits", "string"] {
        assert!(!changed[first(name)], "{name} derives what it did");
    }
    let which: Vec<&str> = old
        .symbols()
        .iter()
        .filter(|s| changed[first(&s.name)])
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(
        which.len(),
        1,
        "only the repetition of the fraction's digits changed: {which:?}"
    );
    assert!(which[0].starts_with("number."), "{which:?}");
    assert_eq!(changed.iter().filter(|&&c| c).count(), 1);

    let inputs: Vec<Vec<u8>> = [r#"["ab",[]]"#, "1.", "[2.5]", "-7"]
        .map(|s| s.as_bytes().to_vec())
        .to_vec();
    let again = checked_again(&old, &changed, &inputs);
    assert_eq!(again, [false, true, true, false]);
    // What is not checked again parses; of the rest, only `1.` is lost.
    assert_eq!(parses_each(&new, &inputs, 1), [true, false, true, true]);
}

/// Per input (each parsed by `old`), whether its parse takes a production `changed` marks: the
/// inputs an edit's check parses again.
fn checked_again(old: &Grammar, changed: &[bool], inputs: &[Vec<u8>]) -> Vec<bool> {
    productions_used(old, inputs, 1)
        .iter()
        .map(|u| u.as_ref().unwrap().iter().any(|&p| changed[p as usize]))
        .collect()
}

/// Dropping one alternative changes that production alone: an input whose parse takes the
/// rule's other alternatives (even those after it, whose numbers moved) keeps its parse.
#[test]
fn dropping_an_alternative_leaves_the_rules_other_alternatives_unchanged() {
    let old = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
    let narrow = LOOSE_JSON.replace("value  = number | string |", "value  = string |");
    assert_ne!(narrow, LOOSE_JSON);
    let new = Grammar::from_text(&narrow, "narrow.grammar").unwrap();
    let changed: Vec<bool> = production_map(&old, &new).iter().map(Option::is_none).collect();
    let numbers = Productions::new(&old);
    let value = numbers.first[old.symbols().iter().position(|s| s.name == "value").unwrap()] as usize;
    assert_eq!(
        &changed[value..value + 3],
        [true, false, false],
        "number dropped, string and list kept"
    );
    assert_eq!(changed.iter().filter(|&&c| c).count(), 1);

    let inputs: Vec<Vec<u8>> = [r#"["ab",[]]"#, "[1]", r#""x""#, "7"]
        .map(|s| s.as_bytes().to_vec())
        .to_vec();
    let again = checked_again(&old, &changed, &inputs);
    assert_eq!(again, [false, true, false, true]);
    assert_eq!(parses_each(&new, &inputs, 1), [true, false, true, false]);
}

/// Hexadecimal numbers, digits and `_` after `0x`.
const HEX: &str = r#"
file = item* ;
item = "n=" num ";" ;
num  = "0x" [0-9a-f_]+ ;
"#;

#[test]
fn a_count_is_raised_only_where_its_own_iterations_repeated_are_accepted() {
    let g = Grammar::from_text(HEX, "hex.grammar").unwrap();
    // The samples' numbers have at least four digits.
    let trees = trees_of(&g, &["n=0xff_00;n=0x1234;", "n=0xabcd;"]);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let raised = |accepts: &(dyn Fn(&[u8]) -> Verdict + Sync), text: &[u8]| {
        let judge = Judge::new(accepts);
        let rejected = Parser::new(&g).parse(text).unwrap();
        assert_eq!(accepts(text), Verdict::Rejected);
        let node = first_node(&rejected, |n| {
            matches!(rejected.kind(n), NodeKind::Repeat { .. })
                && rejected.parent(n).and_then(|p| rejected.kind(p).symbol()) == g.symbol_by_name("num")
        });
        let place = place_of(&g, &rejected, node).unwrap();
        let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
        let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
        (
            edits.iter().any(|e| matches!(e, Change::Bound { min, .. } if *min > 1)),
            described,
        )
    };
    // As Rust: a number needs a digit, `_` alone is none. `0x_0` is accepted, `0x____` is
    // not: the count is not to blame.
    let digit = |i: &[u8]| {
        let text = String::from_utf8_lossy(i);
        let ok = text
            .split(';')
            .filter(|n| !n.is_empty())
            .all(|n| n.trim_start_matches("n=0x").chars().any(|c| c != '_'));
        verdict(parsed_without(HEX, i, "\0") == Verdict::Accepted && ok)
    };
    let (made, described) = raised(&digit, b"n=0x_;");
    assert!(!made, "{described:?}");
    // A parser that wants two digits or more: `0x11` is accepted as `0x10` is, the count is.
    let two = |i: &[u8]| {
        let text = String::from_utf8_lossy(i);
        let ok = text
            .split(';')
            .filter(|n| !n.is_empty())
            .all(|n| n.trim_start_matches("n=0x").len() >= 2);
        verdict(parsed_without(HEX, i, "\0") == Verdict::Accepted && ok)
    };
    let (made, described) = raised(&two, b"n=0x1;");
    assert!(made, "{described:?}");
}

/// Lines with notes: the parser takes any note but one that starts with `!` (as Rust's `//!`
/// is no plain comment) or ends with `-`.
const NOTED: &str = r##"
file = line* ;
line = "x" note? ";" ;
note = "#" [a-z!-]* "\n" ;
"##;

fn noted_accepts(input: &[u8]) -> Verdict {
    let text = String::from_utf8_lossy(input);
    verdict(parsed_without(NOTED, input, "#!") == Verdict::Accepted && !text.contains("-\n"))
}

/// The first leaf of `tree` that holds `text` and is of a class: the leaf, its terminal and
/// the class.
fn class_leaf<'g>(g: &'g Grammar, tree: &Tree, text: &[u8]) -> (NodeId, TerminalId, &'g CharClass) {
    let leaf = first_node(tree, |n| {
        tree.leaf_bytes(n) == text && matches!(tree.kind(n), NodeKind::Leaf { .. })
    });
    let NodeKind::Leaf { terminal } = tree.kind(leaf) else {
        unreachable!()
    };
    let crate::grammar::Terminal::Class { class, .. } = g.terminal(terminal) else {
        panic!("a class")
    };
    (leaf, terminal, class)
}

#[test]
fn a_whole_class_is_narrowed_only_by_what_is_wrong_amid_its_repetition_too() {
    let g = Grammar::from_text(NOTED, "noted.grammar").unwrap();
    // The samples' first characters of a note come first; `!` is wrong only there.
    let trees = trees_of(&g, &["x#ab\n;", "x#cd\n;", "x#efg\n;"]);
    let judge = Judge::new(&noted_accepts);
    let rejected = Parser::new(&g).parse(b"x#!ab\n;").unwrap();
    assert_eq!(noted_accepts(b"x#!ab\n;"), Verdict::Rejected);
    let (leaf, terminal, class) = class_leaf(&g, &rejected, b"!");
    let narrowed = narrowed_class(&g, &rejected, leaf, terminal, class, None, &trees, &judge, 1);
    assert!(narrowed.as_ref().is_none_or(|c| c.contains('!' as u32)), "{narrowed:?}");
    // Wrong amid the samples' notes as well: dropped from the whole class.
    let strict = |i: &[u8]| verdict(noted_accepts(i) == Verdict::Accepted && !i.contains(&b'z'));
    let judge_z = Judge::new(&strict);
    let rejected = Parser::new(&g).parse(b"x#zab\n;").unwrap();
    let (leaf, _, _) = class_leaf(&g, &rejected, b"z");
    let narrowed = narrowed_class(&g, &rejected, leaf, terminal, class, None, &trees, &judge_z, 1).expect("narrowed");
    assert!(!narrowed.contains('z' as u32) && narrowed.contains('!' as u32));
}

#[test]
fn a_class_no_sample_has_is_narrowed_by_what_is_wrong_amid_the_culprits_own_repetition() {
    let g = Grammar::from_text(NOTED, "noted.grammar").unwrap();
    // No sample has a note (Rust's samples had no block comment): `!` alone in one is wrong
    // only because it comes first, as `x#a!a` shows.
    let trees = trees_of(&g, &["x;", "x;x;"]);
    let judge = Judge::new(&noted_accepts);
    let rejected = Parser::new(&g).parse(b"x#!\n;").unwrap();
    assert_eq!(noted_accepts(b"x#!\n;"), Verdict::Rejected);
    assert_eq!(noted_accepts(b"x#a!a\n;"), Verdict::Accepted);
    let (leaf, terminal, class) = class_leaf(&g, &rejected, b"!");
    let narrowed = narrowed_class(&g, &rejected, leaf, terminal, class, None, &trees, &judge, 1);
    assert!(narrowed.as_ref().is_none_or(|c| c.contains('!' as u32)), "{narrowed:?}");
    // The first iteration loses it, with letters standing for the samples' first characters.
    let edits = end_edits(&g, &rejected, leaf, &trees, &judge, 1);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(&edits[..], [Change::NarrowEnd { last: false, class, .. }] if !class.contains('!' as u32) && class.contains('a' as u32)),
        "{described:?}"
    );
    // Where the samples have notes, but none two long (no last character to try), the
    // letters do not stand in for them: no edit at that end.
    let short = trees_of(&g, &["x#a\n;", "x#b\n;x;"]);
    let rejected_end = Parser::new(&g).parse(b"x#ab-\n;").unwrap();
    let dash = first_node(&rejected_end, |n| rejected_end.leaf_bytes(n) == b"-");
    let edits = end_edits(&g, &rejected_end, dash, &short, &judge, 1);
    assert!(
        !edits.iter().any(|e| matches!(e, Change::NarrowEnd { last: true, .. })),
        "{:?}",
        edits.iter().map(|e| e.describe(&g)).collect::<Vec<_>>()
    );
    // Wrong amid a note too (a judge that takes no `z`): dropped from the whole class.
    let strict = |i: &[u8]| verdict(noted_accepts(i) == Verdict::Accepted && !i.contains(&b'z'));
    let judge_z = Judge::new(&strict);
    let rejected = Parser::new(&g).parse(b"x#z\n;").unwrap();
    let (leaf, _, _) = class_leaf(&g, &rejected, b"z");
    let narrowed = narrowed_class(&g, &rejected, leaf, terminal, class, None, &trees, &judge_z, 1).expect("narrowed");
    assert!(
        !narrowed.contains('z' as u32) && narrowed.contains('!' as u32),
        "{narrowed:?}"
    );
}

#[test]
fn a_character_wrong_only_at_an_end_of_its_repetition_is_dropped_there_only() {
    let g = Grammar::from_text(NOTED, "noted.grammar").unwrap();
    let trees = trees_of(&g, &["x#a!b\n;", "x#c-d\n;x;", "x#e\n;"]);
    let judge = Judge::new(&noted_accepts);
    let repeat_in = |tree: &Tree| {
        first_node(tree, |n| {
            matches!(tree.kind(n), NodeKind::Repeat { .. })
                && tree
                    .parent(n)
                    .is_some_and(|p| tree.kind(p).symbol() == g.symbol_by_name("note"))
        })
    };
    let edge = |text: &[u8]| {
        let rejected = Parser::new(&g).parse(text).unwrap();
        assert_eq!(noted_accepts(text), Verdict::Rejected);
        let node = repeat_in(&rejected);
        end_edits(&g, &rejected, node, &trees, &judge, 1)
    };
    let first = edge(b"x#!ab\n;");
    let described: Vec<String> = first.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(&first[..], [Change::NarrowEnd { last: false, class, .. }] if !class.contains('!' as u32) && class.contains('a' as u32) && class.contains('-' as u32)),
        "{described:?}"
    );
    let last = edge(b"x#ab-\n;");
    let described: Vec<String> = last.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(&last[..], [Change::NarrowEnd { last: true, class, .. }] if !class.contains('-' as u32) && class.contains('!' as u32)),
        "{described:?}"
    );
    // Wrong in the middle as much as at the ends: the whole class is narrowed.
    let strict = |i: &[u8]| verdict(noted_accepts(i) == Verdict::Accepted && !i.contains(&b'z'));
    let judge_z = Judge::new(&strict);
    let rejected = Parser::new(&g).parse(b"x#zab\n;").unwrap();
    let whole = end_edits(&g, &rejected, repeat_in(&rejected), &trees, &judge_z, 1);
    let described: Vec<String> = whole.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(&whole[..], [Change::NarrowClass { class, .. }] if !class.contains('z' as u32) && class.contains('!' as u32)),
        "{described:?}"
    );
    // Each made: its end narrowed, the middle and the other end as they were, an empty note
    // still a note. (Both at once: the second names a repetition the first rewrote.)
    for (edit, wrong, ok) in [(&first[0], "x#!a\n;", "x#a!\n;"), (&last[0], "x#a-\n;", "x#-a\n;")] {
        let applied = edit::apply(&g, std::slice::from_ref(edit), "noted.grammar").unwrap();
        let parses = |text: &[u8]| Parser::new(&applied.grammar).parse(text).is_ok();
        for ok in [ok, "x#a!-b\n;", "x#\n;", "x#a\n;x;", "x;"] {
            assert!(parses(ok.as_bytes()), "{ok:?}\n{}", applied.text);
        }
        assert!(!parses(wrong.as_bytes()), "{wrong:?}\n{}", applied.text);
    }
    assert!(edit::apply(&g, &[first[0].clone(), last[0].clone()], "noted.grammar").is_err());
}

#[test]
fn refine_learns_which_characters_may_not_start_or_end_a_note() {
    let g = Grammar::from_text(NOTED, "noted.grammar").unwrap();
    let texts = ["x#a!b\n;", "x#c-d\n;x;", "x#e\n;", "x;x#ab!c-d\n;"];
    let samples = named_samples("noted", &texts);
    let (refined, edits) = refined_to_targets(&g, &samples, &noted_accepts, 1);
    let parses = |text: &[u8]| parses(&refined.grammar, text);
    assert!(texts.iter().all(|t| parses(t.as_bytes())), "{edits}");
    assert!(!parses(b"x#!a\n;") && !parses(b"x#a-\n;"), "{edits}");
    assert!(parses(b"x#a!-b\n;"), "{edits}");
    assert!(
        edits.contains("first character") && edits.contains("last character"),
        "{edits}"
    );
}

/// Selectors in little: layout may stand between any two tokens, as tree-sitter-css has it,
/// but not around `|` and `:` (CSS's `[ns|attr]`, `a:hover`), a `-` needs it on both sides
/// (as in CSS's `calc(a - b)`), and so does `to` before its `(` (else, in CSS, a function).
const NAMESPACED: &str = r#"
%layout _ ;
sheet = ( _ rule )* _ ;
rule  = sel _ "{" _ "}" ;
sel   = "[" _ name _ "|" _ name _ "]" | name _ ":" _ name | name _ "-" _ name | "to" _ "(" _ name _ ")" ;
_     = [ \n]* ;
name  = [a-z]+ ;
"#;

/// The language [`NAMESPACED`] should have been.
fn namespaced_accepts(input: &[u8]) -> Verdict {
    fn ws(s: &str) -> &str {
        s.trim_start_matches([' ', '\n'])
    }
    fn name(s: &str) -> Option<&str> {
        let n = s.bytes().take_while(u8::is_ascii_lowercase).count();
        (n > 0).then(|| &s[n..])
    }
    fn spaced(s: &str, token: char) -> Option<&str> {
        let t = ws(s);
        let u = t.strip_prefix(token).filter(|_| t.len() < s.len())?;
        Some(ws(u)).filter(|v| v.len() < u.len())
    }
    fn sheet(s: &str) -> Option<()> {
        let mut rest = ws(s);
        while !rest.is_empty() {
            let r = if let Some(r) = rest.strip_prefix('[') {
                ws(name(name(ws(r))?.strip_prefix('|')?)?).strip_prefix(']')?
            } else if let Some(r) = rest.strip_prefix("to") {
                let t = ws(r).strip_prefix('(').filter(|_| ws(r).len() < r.len())?;
                ws(name(ws(t))?).strip_prefix(')')?
            } else {
                let r = name(rest)?;
                match r.strip_prefix(':') {
                    Some(r) => name(r)?,
                    None => name(spaced(r, '-')?)?,
                }
            };
            rest = ws(ws(ws(r).strip_prefix('{')?).strip_prefix('}')?);
        }
        Some(())
    }
    verdict(std::str::from_utf8(input).ok().and_then(sheet).is_some())
}

#[test]
fn the_layout_count_the_samples_and_the_parser_show_at_a_place_is_learned_first() {
    let g = Grammar::from_text(NAMESPACED, "namespaced.grammar").unwrap();
    let texts = [
        "[a|b ] { }\nx:y{}",
        "[ ns|attr ]{ }\n\nfoo:bar {}",
        "p:q {} a - b{}",
        "c -\nd { }",
    ];
    assert_all_accepted(&texts, &namespaced_accepts);
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&namespaced_accepts);
    let mut probed = HashMap::new();
    let facts = Facts::new(&g, &trees);
    // No sample has `to`: the layout after it is learned from a rejected input.
    // It is rejected for its `: ` too, which the probe makes good around the `to`.
    let rejected = trees_of(&g, &["a: b{} to(b ){}"]);
    let good = Good::new(&g, &trees);
    let edits = layout_edits(&g, &trees, &rejected, &facts, &good, &judge, &mut probed, 2);
    let (sel, layout) = (g.symbol_by_name("sel").unwrap(), g.symbol_by_name("_").unwrap());
    let mut found: Vec<(Option<usize>, usize, u32, Option<u32>)> = edits
        .iter()
        .map(|(change, ..)| match *change {
            Change::Bound {
                sym,
                place: Some(p),
                min,
                max,
            } if sym == layout && p.parent == sel => (p.alt, p.item, min, max),
            ref other => panic!("{other:?}"),
        })
        .collect();
    found.sort();
    // Never around `|` and `:`, always around `-`; where the samples differ (after `[`, before
    // `{`), or the parser takes the other count (every sample has layout before `]`), no edit.
    assert_eq!(
        found,
        [
            (Some(0), 3, 0, Some(0)),
            (Some(0), 5, 0, Some(0)),
            (Some(1), 1, 0, Some(0)),
            (Some(1), 3, 0, Some(0)),
            (Some(2), 1, 1, None),
            (Some(2), 3, 1, None),
            (Some(3), 1, 1, None),
        ]
    );
    // Each with the input that shows it: a probe of a sample the parser rejects, or the
    // rejected input made good around the layout, where the probe of it was accepted.
    for (_, input, _) in &edits {
        assert_eq!(
            namespaced_accepts(input),
            Verdict::Rejected,
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
    assert!(
        layout_edits(&g, &trees, &[], &facts, &good, &judge, &mut probed, 2).is_empty(),
        "a place the samples reach is probed once"
    );
    let samples = named_samples("sample", &texts);
    let (refined, edits) = refined_to_targets(&g, &samples, &namespaced_accepts, 2);
    let r = &refined.grammar;
    // Where no sample has layout (around `|` and `:`), generation draws none (layout is drawn
    // per place as the samples have it): the whole refine has no rejected input there, and
    // leaves the layout as it is; where the samples always have it, or none reaches the
    // place, it learns the bound.
    for (input, ok) in [
        ("a-b{}", false),
        ("[ a|b ]{}", true),
        ("a  -\nb{}", true),
        ("to(a){}", false),
        ("to (a){}", true),
    ] {
        assert_eq!(parses(r, input.as_bytes()), ok, "{input:?}\n{edits}");
    }
}

/// Items with comments in their layout: `#@` documents the item after it, `#!` the file (as
/// Rust's `///` and `//!`), `# ` is a plain comment; the grammar's layout takes any anywhere.
const DOCUMENTED: &str = r##"
%layout _ ;
file    = _ item* ;
item    = "fn" _ name _ ";" _ ;
name    = [a-z]+ ;
_       = extra* ;
extra   = [ \n] | comment ;
comment = "#" ( marker [a-z ]* | " " [a-z ]* ) ;
marker  = "@" | "!" ;
"##;

/// The language [`DOCUMENTED`] should have been: `#@` right before an item (layout and other
/// comments between), `#!` only before the first token.
fn documented_accepts(input: &[u8]) -> Verdict {
    static GRAMMAR: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
    let g = GRAMMAR.get_or_init(|| Grammar::from_text(DOCUMENTED, "documented.grammar").unwrap());
    if !parses(g, input) {
        return Verdict::Rejected;
    }
    // The first token at or after `i`, past layout.
    let next_token = |mut i: usize| {
        while i < input.len() {
            match input[i] {
                b' ' | b'\n' => i += 1,
                b'#' => i += input[i..].iter().position(|&b| b == b'\n').unwrap_or(input.len() - i),
                _ => return &input[i..],
            }
        }
        &input[i..]
    };
    let (mut i, mut seen_token) = (0, false);
    while i < input.len() {
        match input[i] {
            b' ' | b'\n' => i += 1,
            b'#' => {
                let end = i + input[i..].iter().position(|&b| b == b'\n').unwrap_or(input.len() - i);
                match input.get(i + 1) {
                    Some(b'!') if seen_token => return Verdict::Rejected,
                    Some(b'@') if !next_token(end).starts_with(b"fn") => return Verdict::Rejected,
                    _ => {}
                }
                i = end;
            }
            _ => {
                seen_token = true;
                i += 1;
            }
        }
    }
    Verdict::Accepted
}

#[test]
fn a_kind_of_layout_is_left_out_where_the_parser_rejects_it() {
    let g = Grammar::from_text(DOCUMENTED, "documented.grammar").unwrap();
    // (The last one ends with a comment and no line break: no model of a plain comment.)
    let texts = [
        "#! crate\nfn a;\n#@ doc\nfn b; # plain\n",
        "fn c ; #@ d\nfn  e;",
        "fn f # x\n;# e",
    ];
    assert_all_accepted(&texts, &documented_accepts);
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&documented_accepts);
    let mut probed = HashMap::new();
    let edits = layout_kind_edits(&g, &trees, &judge, &mut probed, 2);
    let item = g.symbol_by_name("item").unwrap();
    let (comment, marker) = (
        g.symbol_by_name("comment").unwrap(),
        g.symbol_by_name("marker").unwrap(),
    );
    // Per edit: the items of `item` it is made at, and per drop the choice and alternative.
    type Found = (Vec<usize>, Vec<(String, usize)>);
    let mut found: Vec<Found> = edits
        .iter()
        .map(|(change, input, _)| {
            assert_eq!(
                documented_accepts(input),
                Verdict::Rejected,
                "{:?}",
                String::from_utf8_lossy(input)
            );
            let Change::LayoutWithout { places, drops, .. } = change else {
                panic!("{change:?}")
            };
            assert!(places.iter().all(|p| p.parent == item), "{change:?}");
            let drops = drops
                .iter()
                .map(|(down, alt)| {
                    let end = match edit::end_of_way_in(&g, down) {
                        Some(s) if s == marker => "marker",
                        Some(s) if g.symbol(s).synthetic && edit::owner_name(&g, s) == g.symbol(comment).name => {
                            "comment"
                        }
                        other => panic!("{other:?}"),
                    };
                    (end.to_string(), *alt)
                })
                .collect();
            (places.iter().map(|p| p.item).collect(), drops)
        })
        .collect();
    found.sort();
    // After `fn` and after the name no doc comment at all (both markers rejected there: the
    // comment's doc alternative goes); after `;` (before the next item) `#@` stays, `#!` goes.
    assert_eq!(
        found,
        [
            (vec![1, 3], vec![("comment".to_string(), 0)]),
            (vec![5], vec![("marker".to_string(), 1)]),
        ]
    );
    assert!(
        layout_kind_edits(&g, &trees, &judge, &mut probed, 2).is_empty(),
        "each place and kind is probed once"
    );
    let changes: Vec<Change> = edits.into_iter().map(|(c, ..)| c).collect();
    let refined = edit::apply(&g, &changes, "documented.grammar").unwrap().grammar;
    for (input, ok) in [
        ("#! x\nfn a; #@ y\nfn b;", true),
        ("fn a; # plain\nfn # plain\n b # plain\n;", true),
        ("fn a; #! x\nfn b;", false),
        ("fn #@ x\na;", false),
        ("fn a #@ x\n;", false),
    ] {
        assert_eq!(parses(&refined, input.as_bytes()), ok, "{input:?}");
    }
    for t in &texts {
        assert!(parses(&refined, t.as_bytes()), "{t:?}");
    }
}

/// Calls whose second form (`name FROM expr` between the parentheses) only `extract` takes,
/// where the grammar lets any function take it, as SQL's tree-sitter grammar does.
const KEYED: &str = r#"
%layout _ ;
program = ( _ stmt _ ";" )* _ ;
stmt    = "select" _ expr ( _ "," _ expr )* ;
expr    = call | name ;
call    = name _ ( "(" _ expr _ ")" | "(" _ name _ "FROM" _ expr _ ")" ) ;
name    = [a-z]+ ;
_       = [ \n]* ;
"#;

/// The language [`KEYED`] should have been: `FROM` inside the parentheses of `extract` only.
fn keyed_accepts(input: &[u8]) -> Verdict {
    static GRAMMAR: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
    let g = GRAMMAR.get_or_init(|| Grammar::from_text(KEYED, "keyed.grammar").unwrap());
    if !parses(g, input) {
        return Verdict::Rejected;
    }
    // The callee of each open parenthesis, innermost last.
    let (mut callees, mut word): (Vec<Vec<u8>>, Vec<u8>) = (Vec::new(), Vec::new());
    let mut last = Vec::new();
    // Words as the grammar reads them: runs of one case (`xFROMy` is `x FROM y`).
    for (i, &b) in input.iter().enumerate() {
        if b.is_ascii_alphabetic() {
            word.push(b);
            if input
                .get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() && c.is_ascii_lowercase() == b.is_ascii_lowercase())
            {
                continue;
            }
        }
        if !word.is_empty() {
            if word == b"FROM" && callees.last().map(Vec::as_slice) != Some(b"extract") {
                return Verdict::Rejected;
            }
            last = std::mem::take(&mut word);
        }
        match b {
            b'(' => callees.push(std::mem::take(&mut last)),
            b')' => drop(callees.pop()),
            _ => {}
        }
    }
    Verdict::Accepted
}

#[test]
fn a_choice_the_samples_make_after_one_word_only_is_keyed_to_it() {
    let g = Grammar::from_text(KEYED, "keyed.grammar").unwrap();
    let texts = [
        "select extract(year FROM d);",
        "select f(x), g(h(y));",
        "select count(z);\nselect extract(month FROM e), sum(a);",
        "select max(m), extract(day FROM  k);",
    ];
    assert_all_accepted(&texts, &keyed_accepts);
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&keyed_accepts);
    let texts_of = Texts::new(&g, &trees);
    let input = b"select f(x FROM y);".to_vec();
    assert_eq!(keyed_accepts(&input), Verdict::Rejected);
    let tree = Parser::new(&g).parse(&input).unwrap();
    let culprit = Culprit {
        node: first_node(&tree, |n| {
            tree.unparse_node(n) == b"(x FROM y)" && tree.parent(n).is_some()
        }),
        tree,
        input,
    };
    let change = keyed_choice(&g, &culprit, &trees, &texts_of, &judge).expect("a keyed choice");
    let call = g.symbol_by_name("call").unwrap();
    assert!(
        matches!(&change, Change::Keyed { alt: 1, place, key: 0, words, .. }
            if place.parent == call && words == &[b"extract".to_vec()]),
        "{}",
        change.describe(&g)
    );
    // The form with `FROM` after a sample's other words: no key.
    let good_call = b"select count(x FROM y);".to_vec();
    let tree = Parser::new(&g).parse(&good_call).unwrap();
    let at_count = Culprit {
        node: first_node(&tree, |n| {
            tree.unparse_node(n) == b"(x FROM y)" && tree.parent(n).is_some()
        }),
        tree,
        input: good_call,
    };
    let extract_only = |i: &[u8]| match i.windows(4).any(|w| w == b"FROM") {
        true => Verdict::Rejected,
        false => keyed_accepts(i),
    };
    assert!(keyed_choice(&g, &at_count, &trees, &texts_of, &Judge::new(&extract_only)).is_none());
    // The language is the same; generated calls take `FROM` after `extract` only.
    let applied = edit::apply(&g, std::slice::from_ref(&change), "keyed.grammar")
        .unwrap()
        .grammar;
    for text in texts.iter().chain(&["select f(x FROM y);", "select g(a);"]) {
        assert!(parses(&applied, text.as_bytes()), "{text}");
    }
    let rejected = |g: &Grammar| -> usize {
        generated(g, &texts, 300, 7, 300)
            .iter()
            .flat_map(|(_, inputs)| inputs)
            .filter(|i| keyed_accepts(i) == Verdict::Rejected)
            .count()
    };
    assert!(rejected(&g) > 0, "the grammar as given makes calls no parser takes");
    assert_eq!(rejected(&applied), 0, "{}", change.describe(&g));
    // Found in a refinement, from the parser alone.
    let (refined, edits) = refined_to_targets(&g, &named_samples("sample", &texts), &keyed_accepts, 3);
    assert!(edits.contains("only after name spelled \"extract\""), "{edits}");
    assert_eq!(rejected(&refined.grammar), 0, "{edits}");
}

/// Queries in little, as CSS's media queries: `and` then a parenthesized query, whose layout
/// is one place for every query, and which the samples leave empty after `@s`.
const QUERIES: &str = r#"
%layout _ ;
sheet = stmt* ;
stmt  = _ "@s" query ( _ "and" query )* _ ";" ;
query = _ "(" _ [a-z]+ _ ")" ;
_     = " "* ;
"#;

/// As CSS's tokenizer: `and(` is a function token, which a query does not take.
fn queries_accept(input: &[u8]) -> Verdict {
    parsed_without(QUERIES, input, "and(")
}

#[test]
fn two_tokens_that_may_not_touch_where_their_layout_is_shared_are_kept_apart() {
    let g = Grammar::from_text(QUERIES, "queries.grammar").unwrap();
    let texts = ["@s(a);", "@s(b) and (c);", "@s(ab) and (cd) and (e);"];
    let samples = named_samples("queries", &texts);
    let (refined, edits) = refined_to_targets(&g, &samples, &queries_accept, 1);
    // The layout before `(` is the query's for every place, and the samples leave it empty
    // after `@s`: no bound on it keeps them, so generation keeps the tokens apart instead.
    assert!(edits.contains("%separate \"and\" \"(\" ;"), "{edits}");
    assert!(texts.iter().all(|t| parses(&refined.grammar, t.as_bytes())), "{edits}");
    // Parsing is as before: the grammar still reads `and(`.
    assert!(parses(&refined.grammar, b"@s(a) and(b);"), "{edits}");
    for (mode, inputs) in generated(&refined.grammar, &texts, 200, 3, 200) {
        for input in inputs {
            let shown = String::from_utf8_lossy(&input);
            assert_eq!(queries_accept(&input), Verdict::Accepted, "{mode:?}: {shown}\n{edits}");
        }
    }
}

/// [`LOOSE_JSON`] as JSON is: no trailing `.`, no control characters in strings.
const TIGHT_JSON: &str = r#"
value  = number | string | "[" ( value ( "," value )* )? "]" ;
number = "-"? digits ( "." [0-9]+ )? ;
digits = "0" | [1-9] [0-9]* ;
string = "\"" [^"\\\x00-\x1F]* "\"" ;
"#;

/// A refinement's state holding `text` as its grammar, its last round measured as `figures`.
fn state_of(text: &str, round: usize, figures: (usize, usize)) -> Refined {
    let grammar = Grammar::from_text(text, "json.grammar").unwrap();
    let measured = Round {
        number: round,
        default_tried: 100,
        default_accepted: figures.0,
        inverted_tried: 100,
        inverted_accepted: figures.1,
        ..Round::default()
    };
    Refined {
        text: grammar.to_file_text(),
        grammar,
        edits: vec![Edit {
            round,
            rules: Vec::new(),
            what: format!("the edit of round {round}"),
            input: Vec::new(),
            culprit: Vec::new(),
        }],
        rounds: vec![measured],
        stop: Some(Stop::Budget),
        chosen: None,
    }
}

#[test]
fn the_best_grammar_measured_is_kept_where_the_time_ran_out() {
    let judge = Judge::new(&json_accepts);
    let opts = options(0);
    // The loose grammar's round was lucky (all accepted), the tight one's not: measured again
    // side by side, the tight grammar wins whichever the refinement ended with.
    for tight_last in [true, false] {
        let (last, other) = if tight_last {
            (state_of(TIGHT_JSON, 9, (10, 10)), state_of(LOOSE_JSON, 4, (100, 100)))
        } else {
            (state_of(LOOSE_JSON, 9, (100, 100)), state_of(TIGHT_JSON, 4, (10, 10)))
        };
        let mut best = Vec::new();
        keep_if_best(&mut best, &other, &other.rounds[0], &opts);
        let mut state = last;
        choose_best(&mut state, best, &samples(), &judge, &opts);
        let chosen = state.chosen.clone().expect("a grammar was chosen");
        assert_eq!(chosen.round, if tight_last { 9 } else { 4 }, "{chosen:?}");
        assert_eq!(state.text, state_of(TIGHT_JSON, 0, (0, 0)).text);
        assert_eq!(state.edits[0].round, chosen.round, "the edits are the chosen grammar's");
        assert_eq!(chosen.inputs, 2 * opts.per_round);
        assert!(
            chosen.default_percent > 90.0 && chosen.inverted_percent > 90.0,
            "{chosen:?}"
        );
    }
}

#[test]
fn only_the_grammars_measured_best_are_kept_as_candidates() {
    let opts = options(0);
    let mut best = Vec::new();
    // Targets of 100 %: the shortfall is what is missing in both modes together.
    for (round, figures) in [
        (1, (50, 10)),
        (2, (90, 80)),
        (3, (20, 20)),
        (4, (95, 70)),
        (5, (99, 99)),
        (6, (60, 60)),
    ] {
        // Each round's grammar another (told apart by a comment).
        let mut state = state_of(LOOSE_JSON, round, figures);
        state.text.push_str(&format!("# round {round}\n"));
        keep_if_best(&mut best, &state, &state.rounds[0], &opts);
    }
    let rounds: Vec<usize> = best.iter().map(|c| c.round.number).collect();
    assert_eq!(rounds, [5, 2, 4]);
    // The same grammar measured again is one candidate, with its better figures.
    let mut best = Vec::new();
    for (round, figures) in [(1, (50, 50)), (2, (70, 70)), (3, (60, 60))] {
        let state = state_of(LOOSE_JSON, round, figures);
        keep_if_best(&mut best, &state, &state.rounds[0], &opts);
    }
    let rounds: Vec<usize> = best.iter().map(|c| c.round.number).collect();
    assert_eq!(rounds, [2]);
}

/// Values in declarations, and in a lenient statement that takes anything (as CSS's unknown
/// at-rules take a bad string in their prelude).
const LENIENT: &str = r#"
sheet = item* ;
item  = "x:" val ";" | "@skip " val ";" ;
val   = [a-z\n]+ ;
"#;

/// A declaration's value has no line break; a skipped one may.
fn lenient_accepts(input: &[u8]) -> Verdict {
    let text = String::from_utf8_lossy(input);
    let parsed = parsed_without(LENIENT, input, "\u{0}") == Verdict::Accepted;
    verdict(
        parsed
            && text
                .split(';')
                .filter(|i| i.starts_with("x:"))
                .all(|i| !i.contains('\n')),
    )
}

#[test]
fn a_words_table_keeps_only_the_words_the_parser_takes_in_the_culprits_place() {
    let g = Grammar::from_text(LENIENT, "lenient.grammar").unwrap();
    // The three words used most fit a declaration; `g\nh`, accepted where it was, does not.
    let samples = ["x:ab;x:cd;x:ef;", "x:ab;x:cd;x:ef;@skip g\nh;"];
    assert!(samples
        .iter()
        .all(|s| lenient_accepts(s.as_bytes()) == Verdict::Accepted));
    let judge = Judge::new(&lenient_accepts);
    let trees = trees_of(&g, &samples);
    let texts = Texts::new(&g, &trees);
    let tree = Parser::new(&g).parse(b"x:q\nq;").unwrap();
    let node = first_node(&tree, |n| tree.kind(n).symbol() == g.symbol_by_name("val"));
    let input = tree.unparse();
    let culprit = Culprit { tree, node, input };
    let edit = values_edit(&g, &culprit, &trees, &texts, &judge);
    let described = edit.as_ref().map(|e| e.describe(&g));
    let Some(Change::Values { words, .. }) = edit else {
        panic!("{described:?}")
    };
    let mut words: Vec<&[u8]> = words.iter().map(|w| &w[..]).collect();
    words.sort();
    assert_eq!(words, [&b"ab"[..], b"cd", b"ef"], "{described:?}");
}

#[test]
fn a_words_table_made_again_with_its_words_leaves_the_grammar_text_as_it_was() {
    // Refine refuses an edit that leaves the text as it was (else a culprit whose first edit
    // is such a table would get it every round, and never its next edit).
    let g = Grammar::from_text(LENIENT, "lenient.grammar").unwrap();
    let val = g.symbol_by_name("val").unwrap();
    let words = Change::Values {
        sym: val,
        words: vec![b"ab".to_vec(), b"cd".to_vec()],
    };
    let once = edit::apply(&g, std::slice::from_ref(&words), "lenient.grammar").unwrap();
    let again_sym = once.grammar.symbol_by_name("val").unwrap();
    let same = Change::Values {
        sym: again_sym,
        words: vec![b"ab".to_vec(), b"cd".to_vec()],
    };
    let twice = edit::apply(&once.grammar, &[same], "lenient.grammar").unwrap();
    assert_eq!(once.text, twice.text);
    let other = Change::Values {
        sym: again_sym,
        words: vec![b"ef".to_vec()],
    };
    assert_ne!(
        edit::apply(&once.grammar, &[other], "lenient.grammar").unwrap().text,
        once.text
    );
}

/// Statements, and a statement in parentheses: SQL's writes at the top level and in a CTE.
const WRITES: &str = r#"
script = stmt* ;
stmt   = write ";" | "c(" `write[in stmt]` ")" ";" ;
write  = "q"? ( "t" | "ins" ) ;
`write[in stmt]` = "q"? ( "t" | "ins" ) ;
"#;

/// `t` (a `TRUNCATE`) only at the top level.
fn writes_accepts(input: &[u8]) -> Verdict {
    verdict(
        parsed_without(WRITES, input, "\u{0}") == Verdict::Accepted
            && !String::from_utf8_lossy(input).contains("(t)")
            && !String::from_utf8_lossy(input).contains("(qt)"),
    )
}

#[test]
fn a_culprit_that_makes_no_choice_is_blamed_for_the_choice_right_inside_it() {
    let g = Grammar::from_text(WRITES, "writes.grammar").unwrap();
    let texts = ["t;ins;c(ins);", "qt;c(qins);"];
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&writes_accepts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    // The culprit as isolation leaves it when the samples' smallest part of the choice is
    // the wrong alternative itself (a top-level `t`, in the rule the copy was made of): the
    // whole copy, which makes no choice of its own.
    let tree = Parser::new(&g).parse(b"c(t);").unwrap();
    let write = g.symbol_by_name("write[in stmt]").unwrap();
    let node = first_node(&tree, |n| tree.kind(n).symbol() == Some(write));
    let input = tree.unparse();
    let culprit = Culprit { tree, node, input };
    let edits = rule_edits(&g, &culprit, &trees, &good, &facts, &judge, 1);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    // The first edit that keeps every sample parsing excludes `c(t);` and keeps `t;` valid.
    let kept = edits.iter().find_map(|e| {
        let refined = edit::apply(&g, std::slice::from_ref(e), "writes.grammar").ok()?.grammar;
        texts.iter().all(|t| parses(&refined, t.as_bytes())).then_some(refined)
    });
    let refined = kept.unwrap_or_else(|| panic!("no edit keeps the samples: {described:?}"));
    assert!(!parses(&refined, b"c(t);"), "{described:?}");
    assert!(parses(&refined, b"t;c(ins);"), "{described:?}");
}

/// Declarations with calls, as CSS's: any function takes any arguments, to the grammar.
const CALLS: &str = r#"
%layout _ ;
sheet = ( _ decl _ ";" )* _ ;
decl  = prop _ ":" _ value ( " " _ value )* ( _ important )? ;
important = "!" [Ii] "mportant" ;
prop  = [a-z]+ ;
value = call | number | ident ;
call  = fname "(" _ value ( _ "," _ value )* _ ")" ;
fname = "var" | "calc" | "rgb" | "max" | "min" ;
number = [0-9]+ ;
ident = "-"* [a-z]+ ;
_     = [ \n]* ;
"#;

/// The language [`CALLS`] should have been: `var` takes a custom property (`--x`) first, as
/// lightningcss says; other functions take anything.
fn calls_accept(input: &[u8]) -> Verdict {
    static GRAMMAR: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
    let g = GRAMMAR.get_or_init(|| Grammar::from_text(CALLS, "calls.grammar").unwrap());
    let bad = input.windows(4).enumerate().any(|(i, w)| {
        w == b"var("
            && (i == 0 || !input[i - 1].is_ascii_lowercase())
            && !input[i + 4..].trim_ascii_start().starts_with(b"--")
    });
    verdict(!bad && parses(g, input))
}

#[test]
fn a_rule_whose_form_only_a_names_text_decides_is_drawn_from_the_samples_by_that_name() {
    let g = Grammar::from_text(CALLS, "calls.grammar").unwrap();
    let texts = [
        "color: var(--ink);\nwidth: calc(1, 2);",
        "margin: 4 var(--gap, 2) auto;",
        "border: 1 solid rgb(10, 20, 30);\nheight: var(--tall);",
        "gap: max(2, 3) !important;",
        "top: 0 !Important;",
    ];
    assert_all_accepted(&texts, &calls_accept);
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&calls_accept);
    let texts_of = Texts::new(&g, &trees);
    // A key is a name the samples write in more than one way, not a keyword.
    assert!(is_name(&texts_of, g.symbol_by_name("prop").unwrap()));
    assert!(!is_name(&texts_of, g.symbol_by_name("important").unwrap()));
    let input = b"color: var(0, auto);".to_vec();
    assert_eq!(calls_accept(&input), Verdict::Rejected);
    let tree = Parser::new(&g).parse(&input).unwrap();
    let fname = g.symbol_by_name("fname").unwrap();
    // Isolation's culprit: the name, since another name is accepted with those arguments.
    let culprit = Culprit {
        node: first_node(&tree, |n| tree.kind(n).symbol() == Some(fname)),
        tree,
        input,
    };
    let change = keyed_values(&g, &culprit, &trees, &texts_of, &judge).expect("a keyed table");
    let call = g.symbol_by_name("call").unwrap();
    let Change::ValuesBy { sym, key, word, words } = &change else {
        panic!("{}", change.describe(&g));
    };
    assert_eq!((*sym, *key, &word[..]), (call, fname, &b"var"[..]));
    let mut want = vec![
        b"var(--ink)".to_vec(),
        b"var(--gap, 2)".to_vec(),
        b"var(--tall)".to_vec(),
    ];
    want.sort();
    let mut got = words.clone();
    got.sort();
    assert_eq!(got, want, "{}", change.describe(&g));
    // Beside a wrong call of `var`, a call of `calc` is not to blame, nor is the declaration
    // around both drawn whole for it.
    let fine = b"color: var(0) calc(0, auto);".to_vec();
    let tree = Parser::new(&g).parse(&fine).unwrap();
    let at_calc = Culprit {
        node: first_node(&tree, |n| {
            tree.kind(n).symbol() == Some(fname) && tree.unparse_node(n) == b"calc"
        }),
        tree,
        input: fine,
    };
    let none = keyed_values(&g, &at_calc, &trees, &texts_of, &judge);
    assert!(none.is_none(), "{}", none.map(|c| c.describe(&g)).unwrap_or_default());
    // The language is the same; generated calls of `var` are the samples'.
    let applied = edit::apply(&g, std::slice::from_ref(&change), "calls.grammar")
        .unwrap()
        .grammar;
    for text in texts.iter().chain(&["color: var(0, auto);", "a: min(1);"]) {
        assert!(parses(&applied, text.as_bytes()), "{text}");
    }
    assert!(applied.to_file_text().contains("%values call call_values fname ;"));
    let rejected = |g: &Grammar| -> usize {
        generated(g, &texts, 300, 7, 300)
            .iter()
            .flat_map(|(_, inputs)| inputs)
            .filter(|i| calls_accept(i) == Verdict::Rejected)
            .count()
    };
    assert!(
        rejected(&g) > 0,
        "the grammar as given makes calls of `var` no parser takes"
    );
    assert_eq!(rejected(&applied), 0, "{}", change.describe(&g));
    // Found in a refinement, from the parser alone, and the samples still parse.
    let (refined, edits) = refined_to_targets(&g, &named_samples("sample", &texts), &calls_accept, 3);
    assert!(
        edits.contains("with `fname` \"var\" drawn from the samples'"),
        "{edits}"
    );
    assert!(texts.iter().all(|t| parses(&refined.grammar, t.as_bytes())), "{edits}");
}

/// Set operations of selects, as SQL's: to the grammar, any select list may come before any
/// operator.
const SETS: &str = r#"
%layout _ ;
query  = _ select ( _ op _ select )* _ ;
select = [Ss] [Ee] [Ll] [Ee] [Cc] [Tt] _ item ( _ "," _ item )* ;
item   = "*" | [a-z] ;
op     = [Uu] [Nn] [Ii] [Oo] [Nn] | [Ee] [Xx] [Cc] [Ee] [Pp] [Tt] | [Ii] [Nn] [Tt] [Ee] [Rr] [Ss] [Ee] [Cc] [Tt] ;
_      = [ \n]* ;
"#;

/// The language [`SETS`] should have been: as sqlparser, a parser that reads `* EXCEPT` as
/// the start of a wildcard's column list, so that a set operation `EXCEPT` may not follow a
/// select list that ends in `*`.
fn sets_accept(input: &[u8]) -> Verdict {
    static STRICT: Strict = std::sync::OnceLock::new();
    parses_without(&STRICT, (SETS, "sets.grammar"), r"(?i)\*\s*except", input)
}

/// A test's stricter language, made once: a grammar and a pattern its inputs must not match.
type Strict = std::sync::OnceLock<(Grammar, ::regex::bytes::Regex)>;

/// Accepted if `input` parses with the grammar `text` (named `file`) and `forbidden` does not
/// match it: a real parser that draws the line the grammar does not, made once in `strict`.
fn parses_without(strict: &Strict, (text, file): (&str, &str), forbidden: &str, input: &[u8]) -> Verdict {
    let (g, forbidden) = strict.get_or_init(|| {
        (
            Grammar::from_text(text, file).unwrap(),
            ::regex::bytes::Regex::new(forbidden).unwrap(),
        )
    });
    verdict(!forbidden.is_match(input) && parses(g, input))
}

#[test]
fn a_culprit_valid_beside_another_token_keeps_apart_from_the_one_it_follows() {
    let g = Grammar::from_text(SETS, "sets.grammar").unwrap();
    let texts = [
        "select a union select *",
        "SELECT * UNION select b, c",
        "select a except select b",
        "select x, * union select y except select z",
        "select a intersect select *",
    ];
    assert_all_accepted(&texts, &sets_accept);
    let trees = trees_of(&g, &texts);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let judge = Judge::new(&sets_accept);
    // Isolation's culprit: the operator, since `union` is accepted there.
    let input = b"select a, * Except select b".to_vec();
    assert_eq!(sets_accept(&input), Verdict::Rejected);
    let tree = Parser::new(&g).parse(&input).unwrap();
    let op = g.symbol_by_name("op").unwrap();
    let culprit = Culprit {
        node: first_node(&tree, |n| tree.kind(n).symbol() == Some(op)),
        tree,
        input,
    };
    let change = never_edit(&g, &culprit, &good, &facts, &judge).expect("a %never pair");
    assert_eq!(
        change,
        Change::Separate {
            before: b"*".to_vec(),
            after: b"except".to_vec(),
            never: true,
        },
        "{}",
        change.describe(&g)
    );
    // `* union` is in the samples: no pair there, whatever the parser says of the input.
    let seen = b"select * union select a".to_vec();
    let tree = Parser::new(&g).parse(&seen).unwrap();
    let at_union = Culprit {
        node: first_node(&tree, |n| tree.kind(n).symbol() == Some(op)),
        tree,
        input: seen,
    };
    let reject_all = |_: &[u8]| Verdict::Rejected;
    assert_eq!(never_edit(&g, &at_union, &good, &facts, &Judge::new(&reject_all)), None);
    // A culprit that is wrong whatever comes before it is no pair: the parser rejects every
    // `intersect` (a parser that knows no INTERSECT).
    let no_intersect = |i: &[u8]| {
        verdict(sets_accept(i) == Verdict::Accepted && !i.to_ascii_lowercase().windows(9).any(|w| w == b"intersect"))
    };
    let input = b"select * intersect select b".to_vec();
    let tree = Parser::new(&g).parse(&input).unwrap();
    let at_intersect = Culprit {
        node: first_node(&tree, |n| tree.kind(n).symbol() == Some(op)),
        tree,
        input,
    };
    let judge_no = Judge::new(&no_intersect);
    assert_eq!(never_edit(&g, &at_intersect, &good, &facts, &judge_no), None);
    // The language is the same; generated inputs no longer have the pair.
    let applied = edit::apply(&g, std::slice::from_ref(&change), "sets.grammar").unwrap();
    assert!(applied.text.contains("%never \"*\" \"except\" ;"), "{}", applied.text);
    let applied = applied.grammar;
    assert!(parses(&applied, b"select * except select a"));
    let rejected = |g: &Grammar| -> usize {
        generated(g, &texts, 200, 3, 300)
            .iter()
            .flat_map(|(_, inputs)| inputs)
            .filter(|i| sets_accept(i) == Verdict::Rejected)
            .count()
    };
    assert!(rejected(&g) > 0, "the grammar as given puts `except` after `*`");
    assert_eq!(rejected(&applied), 0, "{}", change.describe(&g));
    // Found in a refinement, from the parser alone; neither `*` nor `except` is dropped.
    let (refined, edits) = refined_to_targets(&g, &named_samples("sample", &texts), &sets_accept, 5);
    assert!(edits.contains("\"except\" never right after \"*\""), "{edits}");
    assert!(edits.contains("\n%never \"*\" \"except\" ;\n"), "{edits}");
    for text in texts
        .iter()
        .chain(&["select * except select a", "select a except select *"])
    {
        assert!(parses(&refined.grammar, text.as_bytes()), "{text}\n{edits}");
    }
}

/// Items at the top and in blocks, the rule that holds them a copy already (as refine names
/// them): a copy of it for one context is no edit refine makes.
const NESTED: &str = r#"
%layout _ ;
file = ( _ `item[in file]` )* _ ;
`item[in file]` = func | "{" ( _ `item[in file]` )* _ "}" ;
func = kw _ "fn" ;
kw = "pub" | "const" ;
_ = " "* ;
"#;

/// [`NESTED`] as a parser that takes `const` at the top only.
fn nested_accept(input: &[u8]) -> Verdict {
    static GRAMMAR: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
    let g = GRAMMAR.get_or_init(|| Grammar::from_text(NESTED, "nested.grammar").unwrap());
    let text = String::from_utf8_lossy(input);
    let in_block = text
        .split('{')
        .skip(1)
        .any(|s| s.split('}').next().unwrap_or("").contains("const"));
    verdict(!in_block && parses(g, input))
}

#[test]
fn an_alternative_valid_in_the_samples_context_is_not_dropped_where_no_copy_can_keep_it() {
    let g = Grammar::from_text(NESTED, "nested.grammar").unwrap();
    let texts = ["pub fn", "{ pub fn } pub fn"];
    assert_all_accepted(&texts, &nested_accept);
    let trees = trees_of(&g, &texts);
    let judge = Judge::new(&nested_accept);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    assert_eq!(nested_accept(b"const fn"), Verdict::Accepted);
    let rejected = Parser::new(&g).parse(b"{ const fn }").unwrap();
    assert_eq!(nested_accept(b"{ const fn }"), Verdict::Rejected);
    let kw = g.symbol_by_name("kw").unwrap();
    let node = first_node(&rejected, |n| rejected.kind(n).symbol() == Some(kw));
    let place = place_of(&g, &rejected, node).unwrap();
    let edits = unseen_choice(&g, &rejected, node, place, &trees, &good, &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    // `const` is valid where the samples have functions at the top: neither dropped
    // everywhere nor at its place (which is every function's).
    assert!(
        !edits
            .iter()
            .any(|e| matches!(e, Change::DropAlternative { .. } | Change::DropAlternativeAt { .. })),
        "{described:?}"
    );
}

/// A table in a `FROM`, as SQL's, with an alias and a column list that the grammar (as
/// tree-sitter-sql's) lets be empty.
const COLUMNS: &str = r#"
%layout _ ;
query = _ from ( _ "," _ from )* _ ;
from  = [Ff] [Rr] [Oo] [Mm] _ name ( _ [Aa] [Ss] _ name _ "(" ( _ name ( _ "," _ name )* )? _ ")" )? ;
name  = [a-z] [a-z0-9]* ;
_     = " "* ;
"#;

/// The language [`COLUMNS`] should have been: sqlparser's, whose column list after an alias
/// holds at least one column.
fn columns_accept(input: &[u8]) -> Verdict {
    static STRICT: Strict = std::sync::OnceLock::new();
    parses_without(&STRICT, (COLUMNS, "columns.grammar"), r"\( *\)", input)
}

#[test]
fn an_optional_part_the_parser_wants_is_made_required_where_the_samples_always_have_it() {
    let g = Grammar::from_text(COLUMNS, "columns.grammar").unwrap();
    let texts = [
        "from t",
        "FROM t AS a(x)",
        "from u as b(x, y), from v",
        "from w as c(z1)",
    ];
    assert_all_accepted(&texts, &columns_accept);
    let trees = trees_of(&g, &texts);
    let facts = Facts::new(&g, &trees);
    let judge = Judge::new(&columns_accept);
    // The culprit as isolation finds it: the rule that holds the empty list, since there is
    // nothing in the list to replace.
    let input = b"from t as a()".to_vec();
    assert_eq!(columns_accept(&input), Verdict::Rejected);
    let tree = Parser::new(&g).parse(&input).unwrap();
    let from = g.symbol_by_name("from").unwrap();
    let node = first_node(&tree, |n| tree.kind(n).symbol() == Some(from));
    let change = empty_part(&g, &tree, node, &facts, &judge).expect("a count edit");
    assert!(
        matches!(
            change,
            Change::Bound {
                min: 1,
                max: Some(1),
                place: Some(_),
                ..
            }
        ),
        "{}",
        change.describe(&g)
    );
    // Where the samples leave the part out (no alias at all), no bound, whatever the parser
    // says: `from t` stays.
    let bare = b"from t".to_vec();
    let tree = Parser::new(&g).parse(&bare).unwrap();
    let node = first_node(&tree, |n| tree.kind(n).symbol() == Some(from));
    let accept_all = |_: &[u8]| Verdict::Accepted;
    assert_eq!(empty_part(&g, &tree, node, &facts, &Judge::new(&accept_all)), None);
    // A part the parser does not want either way is no count edit.
    let reject_all = |_: &[u8]| Verdict::Rejected;
    let tree = Parser::new(&g).parse(&input).unwrap();
    let node = first_node(&tree, |n| tree.kind(n).symbol() == Some(from));
    assert_eq!(empty_part(&g, &tree, node, &facts, &Judge::new(&reject_all)), None);
    // Applied: the empty list is gone, every sample parses.
    let applied = edit::apply(&g, std::slice::from_ref(&change), "columns.grammar")
        .unwrap()
        .grammar;
    assert!(!parses(&applied, b"from t as a()"));
    assert!(texts.iter().all(|t| parses(&applied, t.as_bytes())));
    // Found in a refinement, from the parser alone.
    let (refined, edits) = refined_to_targets(&g, &named_samples("sample", &texts), &columns_accept, 7);
    assert!(!parses(&refined.grammar, b"from t as a()"), "{edits}");
    assert!(parses(&refined.grammar, b"from t as a(x, y)"), "{edits}");
    assert!(texts.iter().all(|t| parses(&refined.grammar, t.as_bytes())), "{edits}");
}

/// Char literals whose escape is any character but `u` and `x`, or `x` and two digits.
const CHARS: &str = r#"
file = item* ;
item = "'" ( "\\" ( [^ux] | "x" [0-9] [0-9] ) | [a-z] ) "'" ";" ;
"#;

/// As Rust: the escapes are `\n`, `\t`, `\\`, `\'` and `\x` with two digits.
fn chars_accept(input: &[u8]) -> Verdict {
    let parsed = Grammar::from_text(CHARS, "chars.grammar")
        .ok()
        .is_some_and(|g| Parser::new(&g).parse(input).is_ok());
    let escapes_ok = input
        .windows(2)
        .filter(|w| w[0] == b'\\')
        .all(|w| b"nt\\'x".contains(&w[1]));
    verdict(parsed && escapes_ok)
}

#[test]
fn an_alternative_of_a_class_is_narrowed_before_it_is_dropped() {
    let g = Grammar::from_text(CHARS, "chars.grammar").unwrap();
    let input = b"'a';'\\q';".to_vec();
    let tree = Parser::new(&g).parse(&input).unwrap();
    let leaf = first_node(&tree, |n| {
        matches!(tree.kind(n), NodeKind::Leaf { .. }) && tree.leaf_bytes(n) == b"q"
    });
    let group = tree.parent(leaf).unwrap();
    let NodeKind::Rule { symbol, alt } = tree.kind(group) else {
        panic!("the escape's choice is a rule node")
    };
    let drop = Change::DropAlternative {
        sym: symbol,
        alt: alt as usize,
        also: Vec::new(),
    };
    let judge = Judge::new(&chars_accept);
    let item = first_node(&tree, |n| {
        tree.kind(n).symbol() == g.symbol_by_name("item") && tree.unparse_node(n) == b"'\\q';"
    });
    let narrowed = class_first(&g, &tree, item, &drop, &[], &judge, 1);
    let Some(Change::NarrowClass { class, .. }) = &narrowed else {
        panic!("{narrowed:?}")
    };
    for c in ['n', 't', '\\', '\''] {
        assert!(class.contains(c as u32), "{c:?} dropped: {class:?}");
    }
    for c in ['q', 'a', '"', '\u{e9}'] {
        assert!(!class.contains(c as u32), "{c:?} kept: {class:?}");
    }
    // Applied, the escapes real files have still parse; the wrong one does not.
    let applied = edit::apply(&g, &[narrowed.unwrap()], "chars.grammar").unwrap();
    assert!(parses(&applied.grammar, b"'\\'';'\\t';'\\x41';"), "{}", applied.text);
    assert!(!parses(&applied.grammar, b"'\\q';"), "{}", applied.text);
    // Nothing to narrow where no character of the class is taken: the drop stands alone.
    let none = |_: &[u8]| Verdict::Rejected;
    assert_eq!(class_first(&g, &tree, item, &drop, &[], &Judge::new(&none), 1), None);
}

/// Calls with a `FILTER` clause, in a select list and (as sqlparser has no such thing) after a
/// table function.
const FILTERS: &str = r#"
query  = "select " call ( " from " table )? ;
call   = name "()" filter? ;
table  = name "()" filter? ;
filter = " filter(where " cond ")" ;
cond   = name | name "=" num | "(" cond ")" | "not " cond | name " in (" num ")" | "exists(" num ")" ;
name   = [a-z]+ ;
num    = [0-9]+ ;
"#;

/// [`FILTERS`] as a refinement makes it in its first round: the table function's clause a
/// rule of its own.
const FILTERS_APART: &str = r#"
query   = "select " call ( " from " table )? ;
call    = name "()" filter? ;
table   = name "()" tfilter? ;
filter  = " filter(where " cond ")" ;
tfilter = " filter(where " tcond ")" ;
cond    = name | name "=" num | "(" cond ")" | "not " cond | name " in (" num ")" | "exists(" num ")" ;
tcond   = name | name "=" num | "(" cond ")" | "not " cond | name " in (" num ")" | "exists(" num ")" ;
name    = [a-z]+ ;
num     = [0-9]+ ;
"#;

/// The language [`FILTERS`] should have been, with sqlparser's fluke: after a table function,
/// `filter(where x)` is an alias `filter` with a column `where` of type `x`, so a bare name
/// there is accepted and nothing else is.
fn filters_accept(input: &[u8]) -> Verdict {
    static GRAMMAR: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
    let g = GRAMMAR.get_or_init(|| Grammar::from_text(FILTERS, "filters.grammar").unwrap());
    let Ok(text) = std::str::from_utf8(input) else {
        return Verdict::Rejected;
    };
    if !parses(g, input) {
        return Verdict::Rejected;
    }
    let table_ok = text
        .split_once(" from ")
        .is_none_or(|(_, table)| match table.split_once(" filter(where ") {
            None => true,
            Some((_, rest)) => rest
                .strip_suffix(')')
                .is_some_and(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_lowercase())),
        });
    if table_ok {
        Verdict::Accepted
    } else {
        Verdict::Rejected
    }
}

const FILTER_SAMPLES: [&str; 5] = [
    "select count() filter(where a=1) from t()",
    "select f()",
    "select g() filter(where not b) from u()",
    "select h() filter(where (c)) from v()",
    "select k() filter(where d in (2))",
];

#[test]
fn a_rule_dropped_from_again_and_again_is_blamed_on_the_optional_part_around_it() {
    let g = Grammar::from_text(FILTERS_APART, "filters.grammar").unwrap();
    assert_all_accepted(&FILTER_SAMPLES, &filters_accept);
    let trees = trees_of(&g, &FILTER_SAMPLES);
    let judge = Judge::new(&filters_accept);
    let good = Good::new(&g, &trees);
    let input = b"select f() from t() filter(where x=1)".to_vec();
    assert_eq!(filters_accept(&input), Verdict::Rejected);
    assert_eq!(
        filters_accept(b"select f() from t() filter(where x)"),
        Verdict::Accepted
    );
    let tree = Parser::new(&g).parse(&input).unwrap();
    let tcond = g.symbol_by_name("tcond").unwrap();
    let node = first_node(&tree, |n| tree.kind(n).symbol() == Some(tcond));
    let edits = |facts: &Facts| -> Vec<Change> {
        let culprit = Culprit {
            tree: tree.clone(),
            node,
            input: input.clone(),
        };
        rule_edits(&g, &culprit, &trees, &good, facts, &judge, 1)
    };
    let is_drop = |c: &Change| matches!(c, Change::DropAlternative { .. } | Change::DropAlternativeAt { .. });
    // Before any drop in `tcond`, its alternative is what is blamed.
    let facts = Facts::new(&g, &trees);
    let first = edits(&facts);
    assert!(
        first.first().is_some_and(is_drop),
        "{:?}",
        first.iter().map(|c| c.describe(&g)).collect::<Vec<_>>()
    );
    // After two, the optional part around it that no sample has there, first: no `FILTER`
    // after a table function.
    let mut drops = HashMap::new();
    drops.insert("tcond".to_string(), DROPS_BEFORE_BOUND);
    let facts = Facts::new(&g, &trees).with_dropped(&g, &drops);
    let change = bound_around(&g, &tree, node, &facts, &judge).expect("a bound");
    let table = g.symbol_by_name("table").unwrap();
    assert!(
        matches!(change, Change::Bound { min: 0, max: Some(0), place: Some(p), .. } if p.parent == table),
        "{}",
        change.describe(&g)
    );
    assert_eq!(edits(&facts).first(), Some(&change));
    let applied = edit::apply(&g, std::slice::from_ref(&change), "filters.grammar")
        .unwrap()
        .grammar;
    assert!(!parses(&applied, b"select f() from t() filter(where x)"));
    assert!(parses(&applied, b"select f() filter(where x=1) from t()"));
    assert!(FILTER_SAMPLES.iter().all(|t| parses(&applied, t.as_bytes())));
    // In a select list, where the samples have the part, no bound.
    let input = b"select f() filter(where exists(1))".to_vec();
    let tree = Parser::new(&g).parse(&input).unwrap();
    let cond = g.symbol_by_name("cond").unwrap();
    let node = first_node(&tree, |n| tree.kind(n).symbol() == Some(cond));
    let mut drops = HashMap::new();
    drops.insert("cond".to_string(), DROPS_BEFORE_BOUND);
    let facts = Facts::new(&g, &trees).with_dropped(&g, &drops);
    assert_eq!(bound_around(&g, &tree, node, &facts, &judge), None);
}

#[test]
fn a_refinement_blames_a_fluke_place_on_the_part_the_samples_never_have_there() {
    let g = Grammar::from_text(FILTERS, "filters.grammar").unwrap();
    let (refined, edits) = refined_to_targets(&g, &named_samples("sample", &FILTER_SAMPLES), &filters_accept, 3);
    assert!(
        !parses(&refined.grammar, b"select f() from t() filter(where x)"),
        "{edits}"
    );
    assert!(
        parses(&refined.grammar, b"select f() filter(where exists(1)) from t()"),
        "{edits}"
    );
    assert!(
        FILTER_SAMPLES.iter().all(|t| parses(&refined.grammar, t.as_bytes())),
        "{edits}"
    );
}

#[test]
fn a_fluke_is_told_by_the_samples_parts_never_by_the_cheapest_derivation() {
    // The table function's clause has a rule of its own that no sample uses: its cheapest
    // derivation, ` filter(where a)`, is the fluke itself; the samples' `where a=1` is not.
    let g = Grammar::from_text(
        r#"
query   = "select " call ( " from " table )? ;
call    = name "()" filter? ;
table   = name "()" tfilter? ;
filter  = " filter(" where ")" ;
tfilter = " filter(" where ")" ;
where   = "where " cond ;
cond    = name | name "=" num | "not " cond ;
name    = [a-z]+ ;
num     = [0-9]+ ;
"#,
        "fluke.grammar",
    )
    .unwrap();
    let samples = ["select count() filter(where a=1) from t()", "select f()"];
    assert_all_accepted(&samples, &filters_accept);
    let trees = trees_of(&g, &samples);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let judge = Judge::new(&filters_accept);
    // The edit that makes an optional part absent, at the place of the first one in `input`
    // whose parent is `parent`.
    let bound_in = |input: &[u8], parent: &str| {
        let tree = Parser::new(&g).parse(input).unwrap();
        let parent = g.symbol_by_name(parent).unwrap();
        let node = first_node(&tree, |n| {
            matches!(tree.kind(n), NodeKind::Optional { .. })
                && place_of(&g, &tree, n).is_some_and(|p| p.parent == parent)
                && tree.child_count(n) > 0
        });
        Change::Bound {
            sym: tree.kind(node).symbol().unwrap(),
            place: place_of(&g, &tree, node),
            min: 0,
            max: Some(0),
        }
    };
    let fluke = b"select f() from t() filter(where x)";
    assert_eq!(filters_accept(fluke), Verdict::Accepted);
    assert!(is_fluke(&g, &bound_in(fluke, "table"), fluke, &good, &facts, &judge));
    // Valid in a select list: a sample's clause there is accepted too.
    let valid = b"select f() filter(where x) from t()";
    assert!(!is_fluke(&g, &bound_in(valid, "call"), valid, &good, &facts, &judge));
}

/// Per input, whether `grammar` parses it (`jobs` at once).
fn parses_each(grammar: &Grammar, inputs: &[Vec<u8>], jobs: usize) -> Vec<bool> {
    let parser = Parser::new(grammar);
    crate::pool::map(inputs, jobs, |_, b| parser.recognize(b).is_ok())
}

/// The productions cached for the known inputs follow the grammar from edit to edit: each
/// grammar's answer is the parser's, whether an input was carried over or parsed again.
#[test]
fn the_known_inputs_productions_follow_the_grammar_from_edit_to_edit() {
    let steps = [
        LOOSE_JSON.to_string(),
        LOOSE_JSON.replace(r#"( "." [0-9]* )?"#, r#"( "." [0-9]+ )?"#),
        LOOSE_JSON
            .replace(r#"( "." [0-9]* )?"#, r#"( "." [0-9]+ )?"#)
            .replace("value  = number | string |", "value  = string |"),
        // Taken back: the wider grammar again.
        LOOSE_JSON.to_string(),
    ];
    let inputs: Vec<Vec<u8>> = [r#"["ab",[]]"#, "1.", "[2.5]", "-7", r#""x""#, "[1,[2.]]"]
        .map(|s| s.as_bytes().to_vec())
        .to_vec();
    let mut cache = UsesCache::default();
    for (n, text) in steps.iter().enumerate() {
        let g = Grammar::from_text(text, "step.grammar").unwrap();
        let parses = parses_each(&g, &inputs, 1);
        let uses = cache.uses(&g, &inputs, 1);
        assert_eq!(uses.iter().map(Option::is_some).collect::<Vec<_>>(), parses, "step {n}");
        let fresh = productions_used(&g, &inputs, 1);
        assert_eq!(uses, fresh, "step {n}: carried over as a fresh parse finds them");
        assert_eq!(cache.parses(&g, &inputs, 1), parses, "step {n}");
    }
}

proptest! {
    /// A refused edit is refused for [`REFUSED_ROUNDS`] rounds, then for twice as many each
    /// time it is refused again: never for good, and never tried again sooner.
    #[test]
    fn a_refused_edit_is_tried_again_after_a_wait_that_doubles(
        gaps in proptest::collection::vec(0usize..70, 1..6),
    ) {
        let mut refused = Refused::default();
        let mut round = 1;
        refused.start(round);
        let mut wait = REFUSED_ROUNDS;
        for gap in gaps {
            refused.insert("e".to_string());
            prop_assert!(refused.contains("e"));
            // Refused through the wait, free from the round after it.
            refused.start(round + wait);
            prop_assert!(refused.contains("e"));
            refused.start(round + wait + 1);
            prop_assert!(!refused.contains("e"));
            prop_assert!(!refused.contains("other"));
            round += wait + 1 + gap;
            refused.start(round);
            wait *= 2;
        }
    }
}

proptest! {
    /// Parted again after a round, every checked input is in the list of its kind, a witness
    /// found in the round leaves the others (a probe stays a probe), a witness is never dropped
    /// but for the cap (the oldest first), no probe is ever dropped, and no list holds an input
    /// twice.
    #[test]
    fn a_witness_is_kept_apart_and_for_good(
        checked in proptest::collection::vec((0u8..40, 0u8..4), 0..60),
        found in proptest::collection::vec(0u8..40, 0..10),
    ) {
        // Distinct texts, as the known inputs are.
        let mut seen = HashSet::new();
        let kinds = [Known::Generated, Known::Moved, Known::Witness, Known::Probe];
        let checked: Vec<(Vec<u8>, Known)> = checked
            .into_iter()
            .filter(|(t, _)| seen.insert(*t))
            .map(|(t, k)| (vec![t], kinds[k as usize]))
            .collect();
        let found: Vec<Vec<u8>> = found.into_iter().map(|t| vec![t]).collect();
        let (texts, group): (Vec<Vec<u8>>, Vec<Known>) = checked.iter().cloned().unzip();
        let [generated, moved, witnesses, probes] = part_known(texts, &group, found.clone());
        for (text, kind) in &checked {
            let probe = *kind == Known::Probe;
            let witness = !probe && (*kind == Known::Witness || found.contains(text));
            prop_assert_eq!(probes.contains(text), probe);
            prop_assert_eq!(witnesses.contains(text), witness);
            prop_assert_eq!(generated.contains(text), *kind == Known::Generated && !witness);
            prop_assert_eq!(moved.contains(text), *kind == Known::Moved && !witness);
        }
        for list in [&generated, &moved, &witnesses, &probes] {
            let distinct: HashSet<&Vec<u8>> = list.iter().collect();
            prop_assert_eq!(distinct.len(), list.len());
        }
        prop_assert!(witnesses.len() <= MAX_WITNESSES);
    }
}

#[test]
fn a_release_ends_the_waits_but_not_their_doubling() {
    let mut refused = Refused::default();
    refused.start(1);
    assert!(!refused.release(), "nothing was waiting");
    refused.insert("e".to_string());
    refused.insert("f".to_string());
    assert!(refused.release());
    // Still refused in the round that ran out of edits; free from the next on.
    assert!(refused.contains("e"));
    refused.start(2);
    assert!(!refused.contains("e") && !refused.contains("f"));
    assert!(!refused.release(), "no wait left to end");
    // Refused again, it waits twice as long as the first time.
    refused.insert("e".to_string());
    refused.start(2 + 2 * REFUSED_ROUNDS);
    assert!(refused.contains("e"));
    refused.start(3 + 2 * REFUSED_ROUNDS);
    assert!(!refused.contains("e"));
}

/// A call whose argument may follow `distinct`, where the parser reads a word with `$` in it
/// as one name: `f(distinct$7)` is a call of the name `distinct$7`.
const GLUED: &str = r#"
call = "f(" ( "distinct" sp )? arg ")" ;
sp   = " "? ;
arg  = "$" [0-9] | [a-z]+ | "*" ;
"#;

/// The parser of [`GLUED`]'s language: no `distinct` at all, and a name of letters, digits
/// and `$`, or `*` (or with `spaces_too`, `distinct` before a placeholder, with or without a
/// space).
fn glued_accepts(input: &[u8], spaces_too: bool) -> Verdict {
    let s = String::from_utf8_lossy(input);
    let Some(arg) = s.strip_prefix("f(").and_then(|s| s.strip_suffix(')')) else {
        return Verdict::Rejected;
    };
    let name = |a: &str| {
        a.starts_with(|c: char| c.is_ascii_lowercase() || c == '$')
            && a.chars().all(|c| c.is_ascii_alphanumeric() || c == '$')
    };
    let placeholder = |a: &str| {
        a.strip_prefix('$')
            .is_some_and(|d| d.len() == 1 && d.bytes().all(|b| b.is_ascii_digit()))
    };
    let spaced = spaces_too
        && arg
            .strip_prefix("distinct")
            .is_some_and(|a| placeholder(a.trim_start()));
    verdict(name(arg) || arg == "*" || spaced)
}

#[test]
fn an_input_accepted_only_as_one_token_with_its_neighbour_is_no_evidence() {
    let g = Grammar::from_text(GLUED, "glued.grammar").unwrap();
    let trees = trees_of(&g, &["f(a)", "f($1)", "f(*)"]);
    let good = isolate::Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let strict = |input: &[u8]| glued_accepts(input, false);
    let judge = Judge::new(&strict);
    // `distinct` never there, the edit that `f(distinct *)` asks for.
    let optional = (0..g.symbols().len())
        .map(|i| SymbolId(i as u32))
        .find(|&s| {
            matches!(g.symbol(s).body, crate::grammar::Body::Optional(_)) && g.symbol(s).name.starts_with("call")
        })
        .expect("the optional `distinct`");
    let drop = &Change::Bound {
        sym: optional,
        place: None,
        min: 0,
        max: Some(0),
    };
    assert_eq!(strict(b"f(distinct *)"), Verdict::Rejected);
    // Accepted as the name `distinct$7`, rejected with the space that parts the grammar's
    // two tokens: no evidence against the edit.
    assert_eq!(strict(b"f(distinct$7)"), Verdict::Accepted);
    assert!(is_fluke(&g, drop, b"f(distinct$7)", &good, &facts, &judge));
    // Where the parser takes `distinct` before a placeholder, the input is evidence.
    let loose = |input: &[u8]| glued_accepts(input, true);
    let loose_judge = Judge::new(&loose);
    assert!(!is_fluke(&g, drop, b"f(distinct$7)", &good, &facts, &loose_judge));
}

/// A call whose argument may follow `distinct`, a variable `@a`, a quoted name `'a` or
/// `'static`; the parser reads `@` and `'` inside a word as part of it (as sqlparser reads
/// `distinct@a`), and never takes a space inside `'static`, which the grammar allows.
const PARTED: &str = r#"
top  = key _ arg | "f(" _ ( key _ )? arg ")" ;
key  = "distinct" ;
arg  = "@" name | "'" _ life | name ;
life = "static" | name ;
name = [a-z]+ ;
_    = " "* ;
%layout _ ;
"#;

/// The parser of [`PARTED`]'s language: `distinct` only at the top, and a word of letters,
/// `@` and `'`, which may start with `@` or `'`.
fn parted_accepts(input: &[u8]) -> Verdict {
    let s = String::from_utf8_lossy(input);
    let arg = |a: &str| {
        let a = a.trim_start();
        let a = a.strip_prefix(['@', '\'']).unwrap_or(a);
        a.starts_with(|c: char| c.is_ascii_lowercase())
            && a.chars().all(|c| c.is_ascii_lowercase() || c == '@' || c == '\'')
    };
    if let Some(a) = s.strip_prefix("distinct ") {
        return verdict(arg(a));
    }
    verdict(s.strip_prefix("f(").and_then(|s| s.strip_suffix(')')).is_some_and(arg))
}

#[test]
fn a_space_parts_two_glued_tokens_only_where_the_samples_space_them() {
    let g = Grammar::from_text(PARTED, "parted.grammar").unwrap();
    let samples = ["distinct @a", "distinct 'b", "f(c)", "f( @d)", "f('static)"];
    assert_all_accepted(&samples, &parted_accepts);
    let trees = trees_of(&g, &samples);
    let facts = Facts::new(&g, &trees);
    let accepted = |t: &[u8]| parted_accepts(t) == Verdict::Accepted;
    let glued_at = |facts: &Facts, input: &[u8], rule: &str| {
        let tree = Parser::new(&g).parse(input).unwrap();
        let sym = g.symbol_by_name(rule).unwrap();
        let node = first_node(&tree, |n| tree.kind(n).symbol() == Some(sym));
        glued(&g, &tree, node, input, facts, &accepted)
    };
    // `distinct@a` in a call is the parser's one word; `f(distinct @a)`, as the grammar reads
    // it, is rejected, and the samples space both a `distinct` before and a `@` after.
    assert_eq!(parted_accepts(b"f(distinct@a)"), Verdict::Accepted);
    assert_eq!(parted_accepts(b"f(distinct @a)"), Verdict::Rejected);
    assert!(glued_at(&facts, b"f(distinct@a)", "key"));
    // `' static` is rejected too, but no sample spaces a quote from what follows it: the
    // space says nothing of `'static`.
    assert_eq!(parted_accepts(b"f(' static)"), Verdict::Rejected);
    assert!(!glued_at(&facts, b"f('static)", "life"));
    // With a sample that does, it parts them.
    let trees = trees_of(&g, &[&samples[..], &["distinct ' e"]].concat());
    assert!(glued_at(&Facts::new(&g, &trees), b"f('static)", "life"));
}

/// Declarations of words, parenthesized words and calls whose argument is a custom property
/// (`--x`), spaces anywhere: a word and a parenthesized word touch (`var(x)`) to the grammar.
const VARS: &str = r#"
%layout _ ;
sheet = decl* ;
decl  = _ word _ ":" value+ _ ";" ;
value = _ word | paren | call ;
paren = _ "(" _ word _ ")" ;
call  = _ word "(" _ "--" word _ ")" ;
word  = [a-z]+ ;
_     = " "* ;
"#;

/// As CSS's tokenizer and lightningcss: a word right before `(` is a function's name, and
/// `var` takes a custom property (`--x`) first.
fn vars_accept(input: &[u8]) -> Verdict {
    static STRICT: Strict = std::sync::OnceLock::new();
    parses_without(&STRICT, (VARS, "vars.grammar"), r"(?:^|[^a-z])var\( *[^ -]", input)
}

#[test]
fn a_name_that_the_parser_reads_with_the_next_token_as_one_is_kept_apart_from_it_by_its_text() {
    let g = Grammar::from_text(VARS, "vars.grammar").unwrap();
    let samples = trees_of(&g, &["b: var(--y) (z);", "c: calc(--x) d;"]);
    let culprit_of = |text: &str| {
        let input = text.as_bytes().to_vec();
        let tree = Parser::new(&g).parse(&input).unwrap();
        // Isolation blames the parenthesized word (`x`), as much to blame as the name.
        let word = g.symbol_by_name("word");
        let node = first_node(&tree, |n| tree.kind(n).symbol() == word && tree.unparse_node(n) == b"x");
        Culprit { tree, node, input }
    };
    let judge = Judge::new(&vars_accept);
    let facts = Facts::new(&g, &samples);
    // `var` is a name the samples write right before `(`: a layout bound first (refused
    // where other parenthesized words touch what is before them), then `var` kept apart.
    let edits = touching(&g, &culprit_of("a: var(x);"), &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(edits.first(), Some(Change::Bound { min: 1, .. })),
        "{described:?}"
    );
    let separate = Change::Separate {
        before: b"var".to_vec(),
        after: b"(".to_vec(),
        never: false,
    };
    assert_eq!(edits.get(1), Some(&separate), "{described:?}");
    // A name no sample writes before `(` gets no pair: drawn once, it would never recur.
    assert_eq!(judge.verdict(b"a: vax(x);"), Verdict::Accepted);
    let judge = Judge::new(&|input: &[u8]| {
        verdict(vars_accept(input) == Verdict::Accepted && !input.windows(4).any(|w| w == b"vax("))
    });
    let edits = touching(&g, &culprit_of("a: vax(x);"), &facts, &judge);
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert!(
        matches!(edits.as_slice(), [Change::Bound { min: 1, .. }]),
        "{described:?}"
    );
    // Nor does `var` where the samples never have it before `(`.
    let edits = touching(
        &g,
        &culprit_of("a: var(x);"),
        &Facts::new(&g, &samples[1..]),
        &Judge::new(&vars_accept),
    );
    let described: Vec<String> = edits.iter().map(|e| e.describe(&g)).collect();
    assert_eq!(edits.len(), 1, "{described:?}");
}

/// serde_json, and no input longer than 12 bytes or with an odd sum of bytes but the samples:
/// what isolation cannot pin on a part once the grammar's small parts are right, so that the
/// rounds find nothing more to edit. (Length alone was learned in the end: copies that hold in
/// their recursion bound an array's nesting.)
fn json_short_accepts(input: &[u8]) -> Verdict {
    let even = input.iter().map(|&b| u32::from(b)).sum::<u32>() % 2 == 0;
    match json_accepts(input) {
        Verdict::Accepted if (input.len() <= 12 && even) || SAMPLES.iter().any(|s| s.as_bytes() == input) => {
            Verdict::Accepted
        }
        _ => Verdict::Rejected,
    }
}

/// Stuck with time left, a refinement starts afresh from its best grammar measured, up to
/// [`STUCK_RESTARTS`] times, before it stops, and keeps the best grammar measured.
#[test]
fn a_refinement_stuck_with_time_left_starts_afresh_before_it_stops() {
    let g = Grammar::from_text(LOOSE_JSON, "loose.grammar").unwrap();
    let mut o = options(1);
    o.max_rounds = 200;
    let refined = refine(&g, &samples(), &json_short_accepts, &o, &mut |_| {}).unwrap();
    let rounds = &refined.rounds;
    assert_eq!(refined.stop, Some(Stop::Stuck), "{} rounds", rounds.len());
    // A restart for being stuck ends STUCK_ROUNDS rounds in a row without an edit.
    let empty_before =
        |r: &Round| r.number >= STUCK_ROUNDS && rounds[r.number - STUCK_ROUNDS..r.number].iter().all(|r| r.edits == 0);
    let stuck_restarts: Vec<&Round> = rounds.iter().filter(|r| r.restarted_stuck).collect();
    assert_eq!(
        stuck_restarts.len(),
        STUCK_RESTARTS,
        "restarts when stuck in {} rounds",
        rounds.len()
    );
    for r in stuck_restarts {
        assert!(r.restarted_from.is_some() && empty_before(r), "round {}", r.number);
    }
    assert!(empty_before(rounds.last().unwrap()));
    // The grammar kept is the best of those measured again, not merely the last.
    assert!(refined.chosen.is_some(), "no grammar chosen");
    for s in SAMPLES {
        assert!(parses(&refined.grammar, s.as_bytes()), "{s}");
    }
}

/// A condition nests in parentheses; after `q` it may hold no `b`, at any depth.
const CONDS: &str = r#"
file = stmt+ ;
stmt = "q" cond ";" | "s" cond ";" ;
cond = "(" cond ")" | "a" | "b" ;
"#;

/// The parser of [`CONDS`]'s language.
fn conds_accepts(input: &[u8]) -> Verdict {
    static STRICT: Strict = std::sync::OnceLock::new();
    parses_without(&STRICT, (CONDS, "conds.grammar"), r"q\(*b", input)
}

#[test]
fn a_copys_edits_hold_in_its_own_recursion() {
    let g = Grammar::from_text(CONDS, "conds.grammar").unwrap();
    let samples = named_samples("sample", &["qa;sb;", "q(a);s(b);", "s((b));q((a));s(a);"]);
    let (refined, edits) = refined_to_targets(&g, &samples, &conds_accepts, 3);
    let r = &refined.grammar;
    // Deeper than the generated inputs that showed it: the copy after `q` is its own condition.
    assert!(!parses(r, b"q(((((((((b)))))))));"), "{edits}");
    assert!(parses(r, b"q(((((((((a)))))))));"), "{edits}");
    assert!(parses(r, b"s(((((((((b)))))))));"), "{edits}");
    assert!(edits.contains("hold in its recursion"), "{edits}");
}

/// Queries joined by `&` or `|` in brackets; a bare name may stand before `&` only.
const JOINED: &str = r#"
file = ( q ";" )+ ;
q = n | "(" q ")" | "[" q ( "&" | "|" ) q "]" ;
n = [a-z]+ ;
"#;

/// The parser of [`JOINED`]'s language.
fn joined_accepts(input: &[u8]) -> Verdict {
    static STRICT: Strict = std::sync::OnceLock::new();
    parses_without(&STRICT, (JOINED, "joined.grammar"), r"\[[a-z]+\|", input)
}

#[test]
fn a_choice_valid_with_one_alternative_of_the_group_beside_it_goes_with_that_one_alone() {
    let g = Grammar::from_text(JOINED, "joined.grammar").unwrap();
    let samples = named_samples("sample", &["[ab&m];", "[(m)|xy];", "m;", "[[m&cd]|(m)];(m);"]);
    let (refined, edits) = refined_to_targets(&g, &samples, &joined_accepts, 3);
    let r = &refined.grammar;
    assert!(!parses(r, b"[m|m];"), "{edits}");
    assert!(parses(r, b"[m&(m)];"), "{edits}");
    assert!(parses(r, b"[(m)|[m&m]];"), "{edits}");
    assert!(edits.contains("only with"), "{edits}");
}

/// Statements of a file, `#![a]` an inner attribute as in Rust: valid before every other
/// statement only; `1` valid as the last statement only, as a block's tail expression.
const INNER: &str = r##"
file = stmt* ;
stmt = decl | "x;" | "1" ;
decl = "#![a]" | "fn f(){}" ;
"##;

/// The parser of [`INNER`]'s language.
fn inner_accepts(input: &[u8]) -> Verdict {
    static STRICT: Strict = std::sync::OnceLock::new();
    parses_without(
        &STRICT,
        (INNER, "inner.grammar"),
        r"(fn f\(\)\{\}|x;|1).*#!\[a\]|1.",
        input,
    )
}

/// The culprit of `text` as isolation would find it: its `decl` node that is `#![a]` (with
/// `alt` 1, `fn f(){}`), the `nth` of them.
fn inner_culprit(g: &Grammar, text: &[u8], alt: u32, nth: usize) -> Culprit {
    let tree = Parser::new(g).parse(text).unwrap();
    let decl = g.symbol_by_name("decl").unwrap();
    let mut nodes = Vec::new();
    tree.pre_order(tree.root(), |n| {
        if tree.kind(n) == (NodeKind::Rule { symbol: decl, alt }) {
            nodes.push(n);
        }
    });
    Culprit {
        node: nodes[nth],
        tree,
        input: text.to_vec(),
    }
}

#[test]
fn an_iteration_valid_only_before_the_others_is_made_to_lead() {
    let g = Grammar::from_text(INNER, "inner.grammar").unwrap();
    let judge = Judge::new(&inner_accepts);
    let culprit = inner_culprit(&g, b"fn f(){}x;#![a]fn f(){}", 0, 0);
    let change = leading_edit(&g, &culprit, &judge);
    let Some(Change::Leading { alt: 0, ref down, .. }) = change else {
        panic!("{change:?}");
    };
    // From the repeated `stmt` down to the choice `decl`.
    assert_eq!(down.len(), 1, "{change:?}");
    let applied = edit::apply(&g, &[change.clone().unwrap()], "inner.grammar").unwrap();
    let r = &applied.grammar;
    for valid in ["", "#![a]", "#![a]#![a]fn f(){}x;1", "x;fn f(){}x;", "#![a]x;"] {
        assert!(parses(r, valid.as_bytes()), "{valid} in {}", applied.text);
    }
    for invalid in ["fn f(){}x;#![a]fn f(){}", "x;#![a]", "#![a]x;#![a]"] {
        assert!(!parses(r, invalid.as_bytes()), "{invalid} in {}", applied.text);
    }
    // Where it already leads, or where it is wrong wherever it stands, the order is not to
    // blame.
    let first = inner_culprit(&g, b"#![a]x;", 0, 0);
    assert_eq!(leading_edit(&g, &first, &judge), None);
    let never = |_: &[u8]| Verdict::Rejected;
    let culprit = inner_culprit(&g, b"x;#![a]", 0, 0);
    assert_eq!(leading_edit(&g, &culprit, &Judge::new(&never)), None);
    // Nor where the iteration before it is valid only last: `fn f(){}1` is accepted, but so
    // is `fn f(){}` after `x;`.
    let after_last = inner_culprit(&g, b"x;1fn f(){}", 1, 0);
    assert_eq!(leading_edit(&g, &after_last, &judge), None);
}

#[test]
fn refine_learns_that_inner_attributes_lead() {
    let g = Grammar::from_text(INNER, "inner.grammar").unwrap();
    let samples = named_samples("sample", &["#![a]fn f(){}x;1", "fn f(){}", "#![a]#![a]x;fn f(){}x;"]);
    let (refined, edits) = refined_to_targets(&g, &samples, &inner_accepts, 1);
    let r = &refined.grammar;
    assert!(!parses(r, b"x;#![a]"), "{edits}");
    assert!(parses(r, b"#![a]#![a]x;"), "{edits}");
    assert!(edits.contains("only before every other iteration"), "{edits}");
}

/// A parameter list whose trailing `,` has a list of its own (as a copy made for it), which
/// no sample reaches; `s` is a `self`, valid first only.
const SELF_FIRST: &str = r#"
params = "(" list? ")" | "(" `list[in params]` "," ")" ;
list = p ( "," p )* ;
`list[in params]` = p ( "," p )* ;
p = "a" | "s" ;
"#;

/// The parser of [`SELF_FIRST`]'s language: `s` first only.
fn self_first_accepts(input: &[u8]) -> Verdict {
    static STRICT: Strict = std::sync::OnceLock::new();
    parses_without(&STRICT, (SELF_FIRST, "self_first.grammar"), r",s", input)
}

/// As [`self_first_accepts`], and no trailing `,` after two parameters or more.
fn one_trailing_accepts(input: &[u8]) -> Verdict {
    static STRICT: Strict = std::sync::OnceLock::new();
    parses_without(&STRICT, (SELF_FIRST, "self_first.grammar"), r",s|,.,\)", input)
}

#[test]
fn a_part_no_sample_reaches_is_not_made_never_there_for_what_it_holds() {
    let g = Grammar::from_text(SELF_FIRST, "self_first.grammar").unwrap();
    let trees = trees_of(&g, &["(a,a)", "(s,a,a)", "()"]);
    let good = Good::new(&g, &trees);
    let facts = Facts::new(&g, &trees);
    let copy = g.symbol_by_name("list[in params]").unwrap();
    let bound_for = |text: &[u8], accepts: &(dyn Fn(&[u8]) -> Verdict + Sync)| {
        let tree = Parser::new(&g).parse(text).unwrap();
        // The copy's repetition, which holds the culprit's iteration.
        let node = first_node(&tree, |n| {
            matches!(tree.kind(n), NodeKind::Repeat { .. })
                && tree.parent(n).and_then(|p| tree.kind(p).symbol()) == Some(copy)
        });
        let place = place_of(&g, &tree, node).unwrap();
        unreached_count(&g, &tree, node, place, &good, &facts, &Judge::new(accepts))
    };
    // `(a,s,)` is rejected for its `s`: `(a,a,)`, the samples' parameter in its place, is
    // accepted, and the repetition stays.
    assert_eq!(bound_for(b"(a,s,)", &self_first_accepts), None);
    // Where a trailing `,` follows one parameter only, the repetition is never there.
    assert!(
        matches!(
            bound_for(b"(a,a,)", &one_trailing_accepts),
            Some(Change::Bound { max: Some(0), .. })
        ),
        "never there"
    );
}

/// Calls whose trailing `,` the samples never write; the language takes it after an
/// argument only (see [`commas_accept`]).
const COMMAS: &str = r#"
calls = call ( ";" call )* ;
call  = name "(" ( arg ( "," arg )* )? ","? ")" ;
name  = "f" | "g" | "h" ;
arg   = "a" | "b" | "1" | "s" | call ;
"#;

/// The parser of [`COMMAS`]'s language: no `,` right after `(` or another `,`, and `s` (a
/// `self`) first only.
fn commas_accept(input: &[u8]) -> Verdict {
    static STRICT: Strict = std::sync::OnceLock::new();
    parses_without(&STRICT, (COMMAS, "commas.grammar"), r"\(,|,,|,s", input)
}

const COMMA_SAMPLES: [&str; 5] = ["f(a,b)", "g()", "h(1);f(g(a),b,1)", "g(s,b)", "f(s)"];

#[test]
fn probes_are_the_samples_with_one_unfilled_part_put_in_that_the_parser_takes() {
    let g = Grammar::from_text(COMMAS, "commas.grammar").unwrap();
    assert_all_accepted(&COMMA_SAMPLES, &commas_accept);
    let trees = trees_of(&g, &COMMA_SAMPLES);
    let judge = Judge::new(&commas_accept);
    let probes: Vec<String> = probe::accepted_probes(&g, &trees, &judge, 1)
        .into_iter()
        .map(|p| String::from_utf8(p).unwrap())
        .collect();
    // The trailing `,` after arguments, which no sample has.
    assert!(probes.contains(&"f(a,b,)".to_string()), "{probes:?}");
    // Rejected after `(`: not a probe.
    assert!(!probes.iter().any(|p| p.contains("(,")), "{probes:?}");
    // Every probe is accepted, and each is a sample with one stretch of text put in.
    let inserted_into = |p: &str, s: &str| {
        let pre = p.bytes().zip(s.bytes()).take_while(|(a, b)| a == b).count();
        let post = p.bytes().rev().zip(s.bytes().rev()).take_while(|(a, b)| a == b).count();
        p.len() > s.len() && pre + post >= s.len()
    };
    for p in &probes {
        assert_eq!(commas_accept(p.as_bytes()), Verdict::Accepted, "{p}");
        assert!(COMMA_SAMPLES.iter().any(|s| inserted_into(p, s)), "{p}");
    }
}

#[test]
fn refine_excludes_a_leading_comma_and_keeps_the_trailing_one() {
    let g = Grammar::from_text(COMMAS, "commas.grammar").unwrap();
    let samples = named_samples("sample", &COMMA_SAMPLES);
    let (refined, edits) = refined_to_targets(&g, &samples, &commas_accept, 3);
    let r = &refined.grammar;
    // Inverted inputs put `,` after `(` and `s` after `,`, and the edits that exclude them
    // must not take the trailing `,` after arguments with them. (This small language keeps it
    // without the probes too: Rust's chain of three edits is not reproduced here.)
    assert!(parses(r, b"f(a,b,)"), "{edits}");
    assert!(parses(r, b"g(h(1,),a,)"), "{edits}");
    assert!(!parses(r, b"g(,)"), "{edits}");
    assert!(parses(r, b"f(s,a,)"), "{edits}");
}
