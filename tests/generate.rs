//! Generated inputs are what they claim: they parse back, JSON is JSON, the same seed repeats,
//! "more of the same" is close to the samples' choice frequencies and inverted output is far.

use std::collections::HashSet;

use hellfuzz::generate::{targets, targets_with_trees, Generator, Limits};
use hellfuzz::grammar::{Grammar, SymbolId};
use hellfuzz::mine::{samples, Model, Probabilities, ProbabilityMode};
use hellfuzz::parse::Parser;

const MODES: [ProbabilityMode; 3] = [
    ProbabilityMode::Mined,
    ProbabilityMode::Inverted,
    ProbabilityMode::Uniform,
];

fn builtin(name: &str) -> (Grammar, Model) {
    let g = Grammar::load(name).unwrap();
    let (model, skipped) = samples::mine_builtin(&g, name);
    assert!(skipped.is_empty());
    (g, model)
}

/// A built-in grammar with a model mined from only those of its samples whose file name
/// starts with `prefix` (the expr samples use every alternative; the paper mined one input).
fn builtin_subset(name: &str, prefix: &str) -> (Grammar, Model) {
    let g = Grammar::load(name).unwrap();
    let chosen = hellfuzz::grammar::builtin::samples(name)
        .iter()
        .filter(|(f, _)| f.starts_with(prefix));
    let (model, skipped) = samples::mine(&g, chosen.map(|(f, b)| (f.to_string(), std::borrow::Cow::Borrowed(*b))));
    assert!(skipped.is_empty() && model.samples > 0);
    (g, model)
}

/// The cases the frequency tests use: all json and js samples; for expr the paper's example.
fn frequency_cases() -> Vec<(&'static str, Grammar, Model)> {
    vec![
        ("json", builtin("json").0, builtin("json").1),
        (
            "expr",
            builtin_subset("expr", "01-paper-example").0,
            builtin_subset("expr", "01-paper-example").1,
        ),
        ("js", builtin("js").0, builtin("js").1),
    ]
}

fn generate(
    g: &Grammar,
    model: &Model,
    mode: ProbabilityMode,
    seed: u64,
    count: usize,
    max_size: usize,
) -> Vec<Vec<u8>> {
    let probs = Probabilities::new(g, Some(model), mode);
    let mut generator = Generator::new(g, &probs, Limits::up_to(max_size), seed);
    (0..count).map(|_| generator.input()).collect()
}

fn serde_accepts(input: &[u8]) -> bool {
    let mut de = serde_json::Deserializer::from_slice(input);
    de.disable_recursion_limit();
    let ok = serde::de::Deserialize::deserialize(&mut de)
        .map(|_: serde_json::Value| ())
        .is_ok();
    ok && de.end().is_ok()
}

#[test]
fn every_generated_input_parses_back() {
    for (name, count) in [
        ("json", 1000),
        ("expr", 1000),
        ("js", 150),
        ("toml", 150),
        ("css", 100),
        ("sql", 100),
        ("glsl", 60),
    ] {
        let (g, model) = builtin(name);
        let parser = Parser::new(&g);
        for mode in MODES {
            for seed in [1, 2, 3] {
                for input in generate(&g, &model, mode, seed, count, 1000) {
                    assert!(
                        input.len() <= 1000,
                        "{name} {mode:?} seed {seed}: {} bytes",
                        input.len()
                    );
                    if let Err(e) = parser.parse(&input) {
                        panic!(
                            "{name} {mode:?} seed {seed}: generated input does not parse: {e}\n{}",
                            String::from_utf8_lossy(&input)
                        );
                    }
                    if name == "json" {
                        assert!(
                            serde_accepts(&input),
                            "serde_json rejects generated JSON:\n{}",
                            String::from_utf8_lossy(&input)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_inputs() {
    let (g, model) = builtin("json");
    for mode in MODES {
        assert_eq!(
            generate(&g, &model, mode, 7, 50, 500),
            generate(&g, &model, mode, 7, 50, 500)
        );
        assert_ne!(
            generate(&g, &model, mode, 7, 50, 500),
            generate(&g, &model, mode, 8, 50, 500)
        );
    }
}

/// How far the choice frequencies of `other` are from those of `reference`: the total
/// variation distance of each choice point's distribution, averaged with the reference's
/// counts as weights, over the choice points both reached. 0 = identical, 1 = disjoint.
fn distance(g: &Grammar, reference: &Model, other: &Model) -> f64 {
    let (mut sum, mut weight) = (0.0, 0.0);
    for (i, s) in g.symbols().iter().enumerate() {
        let sym = SymbolId(i as u32);
        let (Some(a), Some(b)) = (reference.counts_of(g, sym), other.counts_of(g, sym)) else {
            continue;
        };
        let (ta, tb) = (a.iter().sum::<u64>() as f64, b.iter().sum::<u64>() as f64);
        if ta == 0.0 || tb == 0.0 {
            continue;
        }
        let tv: f64 = a
            .iter()
            .zip(b)
            .map(|(&x, &y)| (x as f64 / ta - y as f64 / tb).abs())
            .sum::<f64>()
            / 2.0;
        let _ = s;
        sum += ta * tv;
        weight += ta;
    }
    sum / weight
}

fn mine_outputs(g: &Grammar, inputs: &[Vec<u8>]) -> Model {
    let parser = Parser::new(g);
    let mut model = Model::new(g);
    for input in inputs {
        model.add_tree(g, &parser.parse(input).unwrap());
    }
    model
}

#[test]
fn more_of_the_same_is_close_and_inverted_is_far() {
    for (name, g, samples) in frequency_cases().into_iter().filter(|c| c.0 != "js") {
        let same = mine_outputs(&g, &generate(&g, &samples, ProbabilityMode::Mined, 11, 500, 1000));
        let inverted = mine_outputs(&g, &generate(&g, &samples, ProbabilityMode::Inverted, 11, 500, 1000));
        let (d_same, d_inv) = (distance(&g, &samples, &same), distance(&g, &samples, &inverted));
        eprintln!("{name}: distance of more-of-the-same {d_same:.3}, of inverted {d_inv:.3}");
        // Inverted output can never be entirely disjoint: an inverted grammar whose only live
        // alternatives recurse ends through the base alternatives the samples used (§3.4).
        assert!(
            d_same < 0.15,
            "{name}: more of the same is {d_same:.3} away from the samples"
        );
        assert!(
            d_inv > 0.4 && d_inv > 3.0 * d_same,
            "{name}: inverted output is only {d_inv:.3} away from the samples"
        );
    }
}

#[test]
fn inverted_output_uses_what_the_samples_never_used() {
    // js at 3,000 bytes: many of its unseen alternatives (`new x`, `0o7`) sit below the fifteen
    // precedence levels of expressions, whose pass-through alternatives the samples use most and
    // inversion therefore starves; larger inputs reach them. And 400 of them: since ES2023 (ASI,
    // classes with private names, modules) the grammar has 119 alternatives its samples never
    // use, many inside class bodies and modules, which 200 inputs reached 79 % of.
    for (name, g, samples) in frequency_cases() {
        let inverted = mine_outputs(
            &g,
            &generate(
                &g,
                &samples,
                ProbabilityMode::Inverted,
                5,
                if name == "js" { 400 } else { 500 },
                if name == "js" { 3000 } else { 1000 },
            ),
        );
        // Per alternative of the grammar text: the context instances of a rule (`stmt`,
        // `stmt[ret]`) are one rule the samples use or not.
        let mut pooled: std::collections::BTreeMap<(usize, String, usize), (u64, u64)> = Default::default();
        // Layout (comments, whitespace) keeps the samples' distribution under inversion.
        let (layout, _) = g.layout_parts();
        for (i, s) in g.symbols().iter().enumerate() {
            let sym = SymbolId(i as u32);
            if layout[i] {
                continue;
            }
            let (Some(a), Some(b)) = (samples.counts_of(&g, sym), inverted.counts_of(&g, sym)) else {
                continue;
            };
            let alt_at = |k: usize| match &s.body {
                hellfuzz::grammar::Body::Choice(alts) => alts[k].span.offset,
                _ => k,
            };
            for (k, (x, y)) in a.iter().zip(b).enumerate() {
                let key = (s.span.offset, hellfuzz::grammar::base_name(&s.name), alt_at(k));
                let e = pooled.entry(key).or_default();
                e.0 += x;
                e.1 += y;
            }
        }
        for ((_, rule, alt), (x, y)) in &pooled {
            if *x == 0 && *y == 0 {
                eprintln!("{name}: never used in the samples nor in inverted output: {rule} alternative at byte {alt}");
            }
        }
        let unseen = pooled.values().filter(|(x, _)| *x == 0).count();
        let now_used = pooled.values().filter(|(x, y)| *x == 0 && *y > 0).count();
        eprintln!("{name}: {now_used} of {unseen} alternatives the samples never used appear in inverted output");
        assert!(
            unseen > 0 && now_used * 10 >= unseen * 8,
            "{name}: only {now_used} of {unseen}"
        );
    }
}

#[test]
fn inverted_output_stays_useful_at_a_thousand_inputs() {
    // The acceptance figures of the generation issue: >= 90% distinct, and a mean size at least
    // half that of "more of the same" at the same settings.
    for name in ["json", "expr"] {
        let (g, model) = builtin(name);
        let mean = |inputs: &[Vec<u8>]| inputs.iter().map(Vec::len).sum::<usize>() as f64 / inputs.len() as f64;
        let same = generate(&g, &model, ProbabilityMode::Mined, 0, 1000, 1000);
        let inverted = generate(&g, &model, ProbabilityMode::Inverted, 0, 1000, 1000);
        let distinct = inverted.iter().collect::<HashSet<_>>().len();
        eprintln!(
            "{name}: inverted {distinct}/1000 distinct, mean {:.1} bytes; more of the same mean {:.1}",
            mean(&inverted),
            mean(&same)
        );
        assert!(distinct >= 900, "{name}: {distinct} distinct");
        assert!(
            mean(&inverted) >= mean(&same) / 2.0,
            "{name}: {:.1} vs {:.1}",
            mean(&inverted),
            mean(&same)
        );
    }
}

/// "More of the same" as `hellfuzz gen` does it: each input follows a random sample.
fn generate_like_samples(g: &Grammar, model: &Model, seed: u64, count: usize, max_size: usize) -> Vec<Vec<u8>> {
    let probs = Probabilities::new(g, Some(model), ProbabilityMode::Mined);
    let targets = targets(g, model);
    assert_eq!(targets.len(), model.samples as usize, "one target per sample");
    let mut generator = Generator::new(g, &probs, Limits::up_to(max_size), seed).with_targets(&targets);
    (0..count).map(|_| generator.input()).collect()
}

/// The share of `inputs` for which `f` holds.
fn share(inputs: &[Vec<u8>], f: impl Fn(&[u8]) -> bool) -> f64 {
    inputs.iter().filter(|i| f(i)).count() as f64 / inputs.len() as f64
}

#[test]
fn more_of_the_same_follows_the_samples_sizes() {
    let (g, model) = builtin("json");
    let max_size = 1000;
    let samples: Vec<&[u8]> = hellfuzz::grammar::builtin::samples("json")
        .iter()
        .map(|s| s.1)
        .collect();
    let sample_share =
        |f: &dyn Fn(&[u8]) -> bool| samples.iter().filter(|s| f(s)).count() as f64 / samples.len() as f64;
    let small = |i: &[u8]| i.len() < 128;
    let scalar = |i: &[u8]| !matches!(i.trim_ascii_start().first(), Some(b'{' | b'[') | None);
    let inputs = generate_like_samples(&g, &model, 3, 600, max_size);
    let parser = Parser::new(&g);
    for input in &inputs {
        assert!(input.len() <= max_size, "{} bytes", input.len());
        parser.parse(input).expect("generated input parses");
        assert!(serde_accepts(input), "{}", String::from_utf8_lossy(input));
    }
    // Not all forced to half of --max-size: small inputs and bare scalars, as among the samples
    // (28% below 128 bytes, 15% scalars).
    let (s_small, s_scalar) = (sample_share(&small), sample_share(&scalar));
    let (g_small, g_scalar) = (share(&inputs, small), share(&inputs, scalar));
    eprintln!(
        "json below 128 bytes: samples {s_small:.2}, generated {g_small:.2}; scalars {s_scalar:.2} vs {g_scalar:.2}"
    );
    assert!(
        s_small > 0.2 && (g_small - s_small).abs() < 0.15,
        "{g_small} small vs {s_small}"
    );
    assert!(
        s_scalar > 0.1 && (g_scalar - s_scalar).abs() < 0.1,
        "{g_scalar} scalars vs {s_scalar}"
    );
    assert!(share(&inputs, |i| i.len() < max_size / 2) > 0.2);
    // The large samples still give large inputs.
    assert!(share(&inputs, |i| i.len() >= 512) > 0.4);
    // Raw non-ASCII text where the samples have it (21% of them), not in nearly every input.
    let non_ascii = share(&inputs, |i| i.iter().any(|&b| b >= 0x80));
    assert!((0.05..0.4).contains(&non_ascii), "non-ASCII in {non_ascii}");

    // Choice frequencies stay close to the samples' over all inputs.
    let same = mine_outputs(&g, &inputs);
    let d = distance(&g, &model, &same);
    assert!(
        d < 0.15,
        "more of the same (like samples) is {d:.3} away from the samples"
    );

    // Inverted output keeps its grow phase to half of --max-size.
    let inverted = generate(&g, &model, ProbabilityMode::Inverted, 3, 300, max_size);
    let smallest = inverted.iter().map(Vec::len).min().unwrap();
    assert!(smallest >= max_size / 2, "an inverted input of {smallest} bytes");
}

#[test]
fn following_the_samples_is_deterministic_and_parses_back() {
    for (name, count) in [("json", 200), ("expr", 200), ("toml", 60), ("css", 40)] {
        let (g, model) = builtin(name);
        let a = generate_like_samples(&g, &model, 9, count, 1000);
        assert_eq!(
            a,
            generate_like_samples(&g, &model, 9, count, 1000),
            "{name}: seed 9 twice"
        );
        assert_ne!(
            a,
            generate_like_samples(&g, &model, 10, count, 1000),
            "{name}: seeds 9 and 10"
        );
        let parser = Parser::new(&g);
        for input in &a {
            assert!(input.len() <= 1000, "{name}: {} bytes", input.len());
            if let Err(e) = parser.parse(input) {
                panic!("{name}: does not parse: {e}\n{}", String::from_utf8_lossy(input));
            }
        }
    }
}

#[test]
fn models_without_profiles_generate_as_before() {
    // A model file written before profiles were kept: no targets, the grow phase to half.
    let (g, model) = builtin("json");
    let mut text: serde_json::Value = serde_json::to_value(&model).unwrap();
    text.as_object_mut().unwrap().remove("profiles");
    let old: Model = serde_json::from_value(text).unwrap();
    assert!(old.profiles.is_empty() && old.counts == model.counts);
    assert!(targets(&g, &old).is_empty());
    let probs = Probabilities::new(&g, Some(&old), ProbabilityMode::Mined);
    let mut generator = Generator::new(&g, &probs, Limits::up_to(400), 1).with_targets(&[]);
    assert!((0..50).all(|_| generator.input().len() >= 200));
}

/// "More of the same" as `hellfuzz gen` makes it when the samples are at hand: each input is a
/// sample with parts of it drawn anew.
fn redraw_samples(g: &Grammar, name: &str, seed: u64, count: usize, max_size: usize) -> Vec<Vec<u8>> {
    let (trees, skipped) = samples::parse_builtin(g, name);
    assert!(skipped.is_empty());
    let model = samples::model_of(g, &trees);
    let probs = Probabilities::new(g, Some(&model), ProbabilityMode::Mined);
    let targets = targets_with_trees(g, &model, trees);
    assert!(
        targets.iter().all(|t| t.tree.is_some()),
        "{name}: every target has its sample"
    );
    let mut generator = Generator::new(g, &probs, Limits::up_to(max_size), seed).with_targets(&targets);
    (0..count).map(|_| generator.input()).collect()
}

#[test]
fn redrawn_samples_parse_differ_from_them_and_keep_what_they_have() {
    // Per grammar: a construct some samples have and others not, as text.
    type Has = dyn Fn(&[u8]) -> bool;
    let cases: [(&str, &Has); 4] = [
        ("json", &|i: &[u8]| i.contains(&b'\\')),
        ("toml", &|i: &[u8]| {
            i.split(|&b| b == b'\n').any(|l| l.trim_ascii_start().starts_with(b"#"))
        }),
        ("css", &|i: &[u8]| i.windows(2).any(|w| w == b"/*")),
        ("js", &|i: &[u8]| i.windows(4).any(|w| w == b"try{" || w == b"try ")),
    ];
    for (name, has) in cases {
        let g = Grammar::load(name).unwrap();
        let samples: Vec<&[u8]> = hellfuzz::grammar::builtin::samples(name).iter().map(|s| s.1).collect();
        let largest = samples.iter().map(|s| s.len()).max().unwrap();
        let inputs = redraw_samples(&g, name, 4, 300, largest);
        assert_eq!(inputs, redraw_samples(&g, name, 4, 300, largest), "{name}: seeded");
        let parser = Parser::new(&g);
        for input in &inputs {
            assert!(input.len() <= largest, "{name}: {} bytes", input.len());
            if let Err(e) = parser.parse(input) {
                panic!("{name}: does not parse: {e}\n{}", String::from_utf8_lossy(input));
            }
        }
        // Not copies: nearly every input differs from every sample, and from the others.
        let copies = inputs.iter().filter(|i| samples.contains(&i.as_slice())).count();
        let distinct = inputs.iter().collect::<HashSet<_>>().len();
        // What half the samples have (and the others not) stays in about as many inputs: drawn
        // whole by a sample's probabilities, what a sample has once is lost in 1/e of the inputs.
        let in_samples = samples.iter().filter(|s| has(s)).count() as f64 / samples.len() as f64;
        let in_inputs = share(&inputs, has);
        eprintln!(
            "{name}: {copies} copies of samples, {distinct} distinct of 300; feature in {in_samples:.2} of the samples, {in_inputs:.2} of the inputs"
        );
        assert!(copies <= 15, "{name}: {copies} of 300 are copies of samples");
        assert!(distinct >= 270, "{name}: {distinct} distinct of 300");
        assert!(
            (0.1..0.9).contains(&in_samples),
            "{name}: the feature does not discriminate"
        );
        assert!(
            (in_inputs - in_samples).abs() <= 0.1,
            "{name}: the feature is in {in_inputs:.2} of the inputs, {in_samples:.2} of the samples"
        );
    }
}

#[test]
fn samples_larger_than_max_size_are_followed_not_redrawn() {
    // A --max-size below a sample's size: that sample's inputs are drawn by its probabilities
    // within the limit (a redrawn sample could not fit), the others redrawn.
    let g = Grammar::load("json").unwrap();
    for input in redraw_samples(&g, "json", 5, 200, 100) {
        assert!(input.len() <= 100, "{} bytes", input.len());
        assert!(serde_accepts(&input), "{}", String::from_utf8_lossy(&input));
    }
}

/// A grammar of the test's own, and a model of it mined from `samples`.
fn grammar_and_model(text: &str, samples: &[&str]) -> (Grammar, Model) {
    let g = Grammar::from_text(text, "test.grammar").unwrap();
    let (model, skipped) = samples::mine(
        &g,
        samples
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("sample-{i}"), std::borrow::Cow::Borrowed(s.as_bytes()))),
    );
    assert!(skipped.is_empty(), "the samples parse");
    (g, model)
}

/// Every node's byte count is the sum of its children's (a leaf's, its bytes): what the
/// generator's bulk linking of a drawn tree must leave, as edits one by one do.
fn sizes_add_up(tree: &hellfuzz::tree::Tree) -> bool {
    let mut ok = true;
    tree.pre_order(tree.root(), |n| {
        if tree.child_count(n) > 0 {
            ok &= tree.len_of(n) == tree.children(n).map(|c| tree.len_of(c)).sum::<usize>();
        } else {
            ok &= tree.len_of(n) == tree.leaf_bytes(n).len();
        }
    });
    ok
}

#[test]
fn large_deep_inputs_keep_to_the_limit_and_parse_back() {
    // Inverted json nests as deep as the input is long: the case whose tree edits cost its depth
    // each (generation was quadratic; the time is measured by scripts/bench-gen-size).
    for (name, mode) in [
        ("json", ProbabilityMode::Inverted),
        ("expr", ProbabilityMode::Uniform),
        ("sql", ProbabilityMode::Uniform),
    ] {
        let (g, model) = builtin(name);
        let probs = Probabilities::new(&g, Some(&model), mode);
        let mut generator = Generator::new(&g, &probs, Limits::up_to(200_000), 3);
        let parser = Parser::new(&g);
        for _ in 0..2 {
            let tree = generator.tree();
            let input = tree.unparse();
            assert_eq!(tree.len(), input.len(), "{name}");
            assert!(sizes_add_up(&tree), "{name}: node sizes");
            assert!(
                (50_000..=200_000).contains(&input.len()),
                "{name}: {} bytes",
                input.len()
            );
            // (Not serde_json: it recurses as deep as the input nests.)
            assert!(parser.parse(&input).is_ok(), "{name}: does not parse back");
        }
    }
}

#[test]
fn a_grammar_whose_smallest_input_is_over_max_size_is_refused() {
    use hellfuzz::generate::GenerateError;
    let g = Grammar::from_text("start = (\"a\"{100}){100} ;\n", "big.grammar").unwrap();
    let probs = Probabilities::new(&g, None, ProbabilityMode::Uniform);
    let err = Generator::checked(&g, &probs, Limits::up_to(10), 0)
        .err()
        .expect("refused");
    assert_eq!(
        err,
        GenerateError::TooSmall {
            grammar: "big.grammar".into(),
            rule: "start".into(),
            smallest: 10_000,
            max_size: 10
        }
    );
    let message = err.to_string();
    for part in [
        "big.grammar",
        "10000 bytes",
        "`start`",
        "size limit of 10",
        "at least 10000",
    ] {
        assert!(message.contains(part), "{message:?} lacks {part:?}");
    }
    // Exactly large enough: the one input there is.
    let mut generator = Generator::checked(&g, &probs, Limits::up_to(10_000), 0).unwrap();
    assert_eq!(generator.input(), vec![b'a'; 10_000]);
    // More than a tree can count is refused too, not wrapped around.
    let huge = Limits::up_to(hellfuzz::generate::MAX_SIZE_LIMIT + 1);
    assert!(matches!(
        Generator::checked(&g, &probs, huge, 0).err(),
        Some(GenerateError::TooLarge { .. })
    ));
}

/// `hellfuzz gen ARGS` with a grammar file holding `grammar`: (exit code, stdout, stderr).
fn run_gen(grammar: &str, args: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.grammar");
    std::fs::write(&path, grammar).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
        .arg("gen")
        .arg(&path)
        .args(args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn gen_refuses_a_max_size_below_the_smallest_input() {
    let (code, stdout, stderr) = run_gen(
        "start = (\"a\"{100}){100} ;\n",
        &["--count", "1", "--max-size", "10", "--out", "corpus"],
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stdout.is_empty(), "nothing generated");
    assert!(
        stderr.contains("the smallest input grammar ")
            && stderr.contains("g.grammar derives is 10000 bytes (rule `start`), more than --max-size 10: raise --max-size to at least 10000"),
        "{stderr}"
    );
    // Without --max-size: its default is named as such.
    let (code, _, stderr) = run_gen("start = (\"a\"{100}){100} ;\n", &["--count", "1", "--uniform"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("more than --max-size 1000 (the default)"), "{stderr}");
    // Large enough: generated.
    let (code, stdout, _) = run_gen(
        "start = (\"a\"{100}){100} ;\n",
        &["--count", "1", "--max-size", "10000"],
    );
    assert_eq!(code, Some(0));
    assert_eq!(stdout.len(), 10_001);
}

#[test]
fn gen_warns_once_when_min_size_is_over_max_size() {
    let grammar = "start = \"[\" (item (\",\" item)*)? \"]\" ; item = [0-9] | start ;\n";
    let (code, stdout, stderr) = run_gen(grammar, &["--count", "5", "--min-size", "500", "--max-size", "100"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stderr
            .matches("warning: --min-size 500 is more than --max-size 100: inputs stay at most 100 bytes")
            .count(),
        1,
        "{stderr}"
    );
    let lines: Vec<&[u8]> = stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    assert!(!lines.is_empty() && lines.iter().all(|l| l.len() <= 100));
    // No warning where they agree.
    let (_, _, stderr) = run_gen(grammar, &["--count", "5", "--min-size", "50", "--max-size", "100"]);
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn repetitions_of_empty_items_keep_the_tree_in_proportion_to_max_size() {
    // Iterations that derive nothing cost no bytes, so the byte budget never stops them; nested
    // bounds multiply. Inverted from a sample that never repeats, "more" is the only choice.
    let budget = Limits::up_to(10).max_nodes;
    assert_eq!(
        budget,
        10 * hellfuzz::generate::NODES_PER_BYTE + hellfuzz::generate::NODES_FLOOR
    );
    for (text, sample) in [
        ("start = (\"\"{0,10000}){0,10000} \"a\" ;\n", "a"),
        ("start = ((\"a\"?){0,10000}){0,10000} ;\n", ""),
        (
            "start = (inner ? \"\"){0,10000}{0,10000} \"a\" ; inner = \"\"{0,10000} ;\n",
            "a",
        ),
        ("start = (e{0,10000}){0,10000} \"a\" ; e = \"b\"? ;\n", "a"),
        // Every iteration of `start`'s repetition is a million empty nodes (within the loader's
        // limit on the smallest derivation): a 10-byte input took 125 MB.
        ("start = x{0,10000} \"a\" ; x = (e{1000}){1000} ; e = \"b\"? ;\n", "a"),
    ] {
        let (g, model) = grammar_and_model(text, &[sample]);
        let parser = Parser::new(&g);
        for mode in MODES {
            let probs = Probabilities::new(&g, Some(&model), mode);
            let mut generator = Generator::checked(&g, &probs, Limits::up_to(10), 1).unwrap();
            for _ in 0..20 {
                let tree = generator.tree();
                let input = tree.unparse();
                assert!(input.len() <= 10, "{text} {mode:?}: {} bytes", input.len());
                assert!(parser.parse(&input).is_ok(), "{text} {mode:?}: does not parse back");
                assert!(
                    tree.count() <= budget,
                    "{text} {mode:?}: {} nodes for at most 10 bytes",
                    tree.count()
                );
            }
        }
    }
}

#[test]
fn the_node_budget_leaves_the_built_in_grammars_inputs_as_they_were() {
    // The budget bounds degenerate grammars; real ones have far fewer nodes per byte.
    for (name, count) in [
        ("json", 200),
        ("expr", 200),
        ("js", 60),
        ("toml", 60),
        ("css", 60),
        ("sql", 60),
        ("glsl", 30),
    ] {
        let (g, model) = builtin(name);
        for mode in MODES {
            for max_size in [50, 1000] {
                let probs = Probabilities::new(&g, Some(&model), mode);
                let mut unbounded = Limits::up_to(max_size);
                unbounded.max_nodes = usize::MAX;
                let mut with = Generator::new(&g, &probs, Limits::up_to(max_size), 2);
                let mut without = Generator::new(&g, &probs, unbounded, 2);
                for _ in 0..count {
                    assert_eq!(with.input(), without.input(), "{name} {mode:?} {max_size}");
                }
            }
        }
    }
}

mod bytes_and_trees {
    use super::*;
    use proptest::prelude::*;

    /// What the generators follow: nothing, the samples' profiles, or the samples themselves
    /// (redrawn in part).
    #[derive(Clone, Copy, Debug)]
    enum Follow {
        Nothing,
        Profiles,
        Samples,
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// json and expr inputs are drawn as bytes, without a tree (no layout, `%distinct` or
        /// `%refer` to fix over the whole): they are exactly the unparsed trees that the same
        /// draws give, in every mode, at every size, following samples or not. So whatever
        /// holds of generated trees holds of these bytes.
        #[test]
        fn inputs_drawn_as_bytes_are_the_trees_of_the_same_draws(
            name in prop::sample::select(vec!["json", "expr"]),
            mode in prop::sample::select(MODES.to_vec()),
            follow in prop::sample::select(vec![Follow::Nothing, Follow::Profiles, Follow::Samples]),
            max_size in prop_oneof![1usize..40, 40usize..2000, Just(30_000usize)],
            min_size in prop_oneof![Just(None), (0usize..3000).prop_map(Some)],
            // Few expansions: the open nodes left are closed by their cheapest derivations.
            max_expansions in prop_oneof![Just(None), (1usize..300).prop_map(Some)],
            // Few nodes: choices are restricted by the node budget.
            max_nodes in prop_oneof![Just(None), (1usize..600).prop_map(Some)],
            seed in any::<u64>(),
        ) {
            let g = Grammar::load(name).unwrap();
            let (trees, _) = samples::parse_builtin(&g, name);
            let model = samples::model_of(&g, &trees);
            let probs = Probabilities::new(&g, Some(&model), mode);
            let targets = match follow {
                Follow::Nothing => Vec::new(),
                Follow::Profiles => targets(&g, &model),
                Follow::Samples => targets_with_trees(&g, &model, trees),
            };
            let mut limits = Limits::up_to(max_size);
            if let Some(min) = min_size {
                limits.min_size = min;
            }
            if let Some(expansions) = max_expansions {
                limits.max_expansions = expansions;
            }
            if let Some(nodes) = max_nodes {
                limits.max_nodes = nodes;
            }
            let mut as_bytes = Generator::new(&g, &probs, limits, seed).with_targets(&targets);
            let mut as_trees = Generator::new(&g, &probs, limits, seed).with_targets(&targets);
            for _ in 0..12 {
                let tree = as_trees.tree();
                prop_assert_eq!(as_bytes.input(), tree.unparse());
            }
            // Any symbol, as the mutator draws replacements.
            for k in 0..g.symbols().len() as u32 {
                let sym = SymbolId(k);
                prop_assert_eq!(as_bytes.bytes_of(sym), as_trees.tree_of(sym).unparse());
            }
        }
    }
}

/// Generators drawing in parallel share one cache of `%values` words parsed as their rules
/// (`Generator::with_words`): what a generator draws is the same whether another generator
/// filled the cache first, shares it at the same time, or it has a cache of its own.
#[test]
fn generators_sharing_words_draw_what_each_draws_alone() {
    let text = "%values name names ;\ns = name ( \",\" name )* ;\nname = [a-z]+ ;\nnames = \"ab\" | \"cd\" | \"ef\" | \"x1\" ;\n";
    let g = Grammar::from_text(text, "t.grammar").unwrap();
    let probs = Probabilities::new(&g, None, ProbabilityMode::Uniform);
    let draw = |seed: u64, words: Option<&hellfuzz::generate::Words>| -> Vec<Vec<u8>> {
        let mut generator = Generator::new(&g, &probs, Limits::up_to(200), seed);
        if let Some(w) = words {
            generator = generator.with_words(w);
        }
        (0..40).map(|_| generator.input()).collect()
    };
    let alone: Vec<Vec<Vec<u8>>> = (0..4).map(|seed| draw(seed, None)).collect();
    let words = hellfuzz::generate::Words::default();
    let shared: Vec<Vec<Vec<u8>>> = std::thread::scope(|scope| {
        let (draw, words) = (&draw, &words);
        let handles: Vec<_> = (0..4)
            .map(|seed| scope.spawn(move || draw(seed, Some(words))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(shared, alone);
    // Filled by the others before: the same again.
    assert_eq!(draw(2, Some(&words)), alone[2]);
    // The words are drawn (a drawn word the rule does not take, `x1`, leaves the name as it was).
    let names: Vec<Vec<u8>> = alone
        .concat()
        .iter()
        .flat_map(|input| input.split(|&b| b == b',').map(<[u8]>::to_vec).collect::<Vec<_>>())
        .collect();
    let words = names
        .iter()
        .filter(|n| [&b"ab"[..], b"cd", b"ef"].contains(&n.as_slice()))
        .count();
    assert!(words * 2 > names.len(), "{words} of {} names are words", names.len());
}
