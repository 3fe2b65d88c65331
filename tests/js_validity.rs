//! Generated JavaScript is JavaScript: V8 (node, as `node --check` parses a script, or else a
//! module) accepts at least 95% of "more of the same" and 90% of inverted and uniform output,
//! and every token boundary survives a re-parse. CI installs node; without it this test fails and says so.

use std::process::{Command, Stdio};

use hellfuzz::generate::{targets_with_trees, Generator, Limits};
use hellfuzz::grammar::Grammar;
use hellfuzz::mine::{samples, Probabilities, ProbabilityMode};
use hellfuzz::parse::Parser;

/// Parses every file of the folder given as argument as a classic script, like `node --check`,
/// and what is no script as an ES module (the grammar makes both: `program = script | module`;
/// constructing a vm.SourceTextModule parses without linking, under --experimental-vm-modules),
/// and prints the names of those it rejects, with the messages, one per line.
const CHECK: &str = r#"
const vm = require('vm'), fs = require('fs'), path = require('path');
const dir = process.argv[1];
for (const f of fs.readdirSync(dir)) {
  const text = fs.readFileSync(path.join(dir, f), 'utf8');
  try { new vm.Script(text); }
  catch (e) {
    try { new vm.SourceTextModule(text); }
    catch (m) { console.log(f + ' ' + e.message + ' (as a module: ' + m.message + ')'); }
  }
}
"#;

fn node_rejections(inputs: &[Vec<u8>]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    for (i, input) in inputs.iter().enumerate() {
        std::fs::write(dir.path().join(format!("{i:04}.js")), input).unwrap();
    }
    let out = Command::new("node")
        .args([
            "--experimental-vm-modules",
            "--no-warnings",
            "-e",
            CHECK,
            dir.path().to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("this test needs node (V8) on the PATH: {e}; install nodejs"));
    assert!(out.status.success(), "node failed: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn v8_accepts_generated_javascript() {
    let g = Grammar::load("js").unwrap();
    let (model, skipped) = samples::mine_builtin(&g, "js");
    assert!(skipped.is_empty());
    for (mode, seed, floor) in [
        (ProbabilityMode::Mined, 0, 95),
        (ProbabilityMode::Inverted, 1, 90),
        (ProbabilityMode::Uniform, 2, 90),
    ] {
        let probs = Probabilities::new(&g, Some(&model), mode);
        let mut generator = Generator::new(&g, &probs, Limits::up_to(1000), seed);
        let mut inputs: Vec<Vec<u8>> = (0..300).map(|_| generator.input()).collect();
        if mode == ProbabilityMode::Mined {
            // And as `hellfuzz gen js` makes "more of the same": the samples partly redrawn.
            let trees = samples::parse_builtin(&g, "js").0;
            let targets = targets_with_trees(&g, &model, trees);
            let mut generator = Generator::new(&g, &probs, Limits::up_to(4000), seed).with_targets(&targets);
            inputs.extend((0..300).map(|_| generator.input()));
        }
        let rejected = node_rejections(&inputs);
        let accepted = inputs.len() - rejected.len();
        eprintln!("{mode:?}: node accepts {accepted} of {}", inputs.len());
        assert!(
            accepted * 100 >= inputs.len() * floor,
            "{mode:?}: node accepts only {accepted} of {}; first rejections: {:?}",
            inputs.len(),
            &rejected[..rejected.len().min(5)]
        );
    }
}

#[test]
fn the_samples_are_javascript_and_parse() {
    let g = Grammar::load("js").unwrap();
    let parser = Parser::new(&g);
    let samples: Vec<Vec<u8>> = hellfuzz::grammar::builtin::samples("js")
        .iter()
        .map(|(_, b)| b.to_vec())
        .collect();
    assert!(samples.len() >= 30);
    assert_eq!(node_rejections(&samples), Vec::<String>::new());
    for s in &samples {
        assert_eq!(parser.parse(s).unwrap().unparse(), *s);
    }
}

mod boundaries {
    use super::*;
    use proptest::prelude::*;

    fn grammar_and_probs(name: &str, mode: ProbabilityMode) -> (Grammar, Probabilities) {
        let g = Grammar::load(name).unwrap();
        let (model, _) = samples::mine_builtin(&g, name);
        let p = Probabilities::new(&g, Some(&model), mode);
        (g, p)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Generate, then re-lex: parsing a generated input finds the tokens generation made (no
        /// two tokens ran together), in every grammar with a layout.
        #[test]
        fn generated_tokens_are_the_tokens_a_reparse_finds(
            name in prop::sample::select(vec!["js", "toml", "css", "sql", "glsl"]),
            inverted in any::<bool>(),
            seed in 0u64..1_000_000,
        ) {
            let mode = if inverted { ProbabilityMode::Inverted } else { ProbabilityMode::Mined };
            let (g, probs) = grammar_and_probs(name, mode);
            let tree = Generator::new(&g, &probs, Limits::up_to(400), seed).tree();
            let text = tree.unparse();
            let again = Parser::new(&g).parse(&text).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            prop_assert!(!hellfuzz::tree::has_run_on(&g, &tree));
            // Every place where generation ended one token and began the next is a token boundary
            // of the re-parse too (an ambiguous grammar may cut more finely: `var(` or `var` `(`),
            // except where the re-parse may take another, equally valid cut that a lexer's
            // maximal munch (checked by `has_run_on` above) does not: between two whitespace bytes
            // (a token that ends in whitespace, css's descendant combinator, before layout can end
            // anywhere in that run), and inside a run of one punctuation character (js's `a++ +b`
            // printed `a+++b`, which the scannerless re-parse may read as `a + ++b`). In 1,500
            // seeds per grammar and mode, these were the only cuts the re-parse did not make.
            let made = hellfuzz::tree::token_spans(&g, &tree);
            let cuts: std::collections::HashSet<usize> = hellfuzz::tree::token_spans(&g, &again)
                .into_iter()
                .flat_map(|(a, b)| [a, b])
                .collect();
            let space = |i: usize| text.get(i).is_some_and(|b| b.is_ascii_whitespace());
            let punctuation_run =
                |at: usize| at > 0 && at < text.len() && text[at - 1] == text[at] && text[at].is_ascii_punctuation();
            let seen = |at: usize| cuts.contains(&at) || (at > 0 && space(at - 1) && space(at)) || punctuation_run(at);
            if let Some(&(a, b)) = made.iter().find(|&&(a, b)| !seen(a) || !seen(b)) {
                return Err(TestCaseError::fail(format!(
                    "{name}: the generated token {:?} runs into its neighbour when re-parsed, near {:?}",
                    String::from_utf8_lossy(&text[a..b]),
                    String::from_utf8_lossy(&text[a.saturating_sub(30)..(b + 30).min(text.len())])
                )));
            }
        }
    }
}
