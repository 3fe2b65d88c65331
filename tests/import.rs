//! `hellfuzz import`: tree-sitter grammar.json → grammar text. The built-in imported grammars are
//! exactly what the importer makes of the vendored grammar.json and the overrides file; every
//! rule type converts; token boundaries hold in generated inputs; bad input is a located error.

use std::path::{Path, PathBuf};

use hellfuzz::generate::{Generator, Limits};
use hellfuzz::grammar::Grammar;
use hellfuzz::import::{self, ImportError, Overrides, Source};
use hellfuzz::mine::{Probabilities, ProbabilityMode};
use hellfuzz::parse::Parser;
use hellfuzz::tree::NodeKind;

/// (built-in name, vendored crate folder) of every imported built-in grammar.
const IMPORTED: &[(&str, &str)] = &[
    ("toml", "tree-sitter-toml-ng-0.7.0"),
    ("css", "tree-sitter-css-0.25.0"),
    ("sql", "tree-sitter-sequel-0.3.11"),
    ("glsl", "tree-sitter-glsl-0.2.0"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn import_builtin(name: &str, folder: &str) -> import::Imported {
    let json = root()
        .join("tests/fixtures/tree-sitter")
        .join(folder)
        .join("src/grammar.json");
    let source = import::find(json.to_str().unwrap()).unwrap();
    let ov_path = root().join(format!("grammars/{name}.overrides"));
    let text = std::fs::read_to_string(&ov_path).unwrap();
    let ov_name = format!("{name}.overrides");
    import::import(&source, Some(Overrides::new(&text, &ov_name))).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn builtin_imported_grammars_are_what_import_makes_of_the_vendored_json() {
    for (name, folder) in IMPORTED {
        let imported = import_builtin(name, folder);
        let committed = std::fs::read_to_string(root().join(format!("grammars/{name}.grammar"))).unwrap();
        assert!(
            imported.text == committed,
            "grammars/{name}.grammar is not what `hellfuzz import` makes of tests/fixtures/tree-sitter/{folder} \
             and grammars/{name}.overrides; regenerate it:\n  hellfuzz import tests/fixtures/tree-sitter/{folder} \
             --externals grammars/{name}.overrides -o grammars/{name}.grammar"
        );
        assert!(
            imported.undefined_externals.is_empty(),
            "{name}: {:?}",
            imported.undefined_externals
        );
        let header = committed.lines().next().unwrap();
        assert!(header.contains(folder.rsplit_once('-').unwrap().0), "{header}");
        assert!(header.contains("licence MIT"), "{header}");
        assert!(root()
            .join("tests/fixtures/tree-sitter")
            .join(folder)
            .join("LICENSE")
            .is_file());
    }
}

/// A grammar.json in a temporary crate-like folder (`<dir>/src/grammar.json`).
fn source(json: &str) -> Source {
    Source::new("test/grammar.json", json)
}

fn import_json(json: &str) -> Result<import::Imported, ImportError> {
    import::import(&source(json), None)
}

fn grammar_of(json: &str) -> Grammar {
    let imported = import_json(json).unwrap_or_else(|e| panic!("{e}"));
    Grammar::from_text(&imported.text, "imported").unwrap_or_else(|e| panic!("{e}\n{}", imported.text))
}

#[test]
fn every_rule_type_converts_with_the_layout_between_tokens() {
    let json = r#"{
      "name": "mini",
      "word": "ident",
      "extras": [{"type": "PATTERN", "value": "\\s"}, {"type": "SYMBOL", "name": "comment"}],
      "rules": {
        "program": {"type": "REPEAT", "content": {"type": "SYMBOL", "name": "stmt"}},
        "stmt": {"type": "CHOICE", "members": [
          {"type": "SEQ", "members": [
            {"type": "FIELD", "name": "kw", "content": {"type": "STRING", "value": "let"}},
            {"type": "ALIAS", "named": true, "value": "name", "content": {"type": "SYMBOL", "name": "ident"}},
            {"type": "STRING", "value": "="},
            {"type": "PREC_LEFT", "value": 1, "content": {"type": "SYMBOL", "name": "expr"}},
            {"type": "STRING", "value": ";"}]},
          {"type": "SEQ", "members": [
            {"type": "PREC_DYNAMIC", "value": 2, "content": {"type": "SYMBOL", "name": "call"}},
            {"type": "STRING", "value": ";"}]}]},
        "call": {"type": "SEQ", "members": [
          {"type": "SYMBOL", "name": "ident"},
          {"type": "IMMEDIATE_TOKEN", "content": {"type": "STRING", "value": "("}},
          {"type": "CHOICE", "members": [
            {"type": "SEQ", "members": [
              {"type": "SYMBOL", "name": "expr"},
              {"type": "REPEAT", "content": {"type": "SEQ", "members": [
                {"type": "STRING", "value": ","}, {"type": "SYMBOL", "name": "expr"}]}}]},
            {"type": "BLANK"}]},
          {"type": "STRING", "value": ")"}]},
        "expr": {"type": "CHOICE", "members": [
          {"type": "SYMBOL", "name": "number"},
          {"type": "SYMBOL", "name": "ident"},
          {"type": "ALIAS", "named": false, "value": "yes", "content": {"type": "PATTERN", "value": "true|false", "flags": "i"}},
          {"type": "PREC", "value": 1, "content": {"type": "SEQ", "members": [
            {"type": "STRING", "value": "("}, {"type": "SYMBOL", "name": "expr"}, {"type": "STRING", "value": ")"}]}},
          {"type": "PREC_RIGHT", "value": 1, "content": {"type": "SEQ", "members": [
            {"type": "SYMBOL", "name": "expr"}, {"type": "STRING", "value": "+"}, {"type": "SYMBOL", "name": "expr"}]}},
          {"type": "RESERVED", "context_name": "x", "content": {"type": "SYMBOL", "name": "call"}}]},
        "number": {"type": "TOKEN", "content": {"type": "SEQ", "members": [
          {"type": "PATTERN", "value": "\\d+"},
          {"type": "CHOICE", "members": [{"type": "PATTERN", "value": "\\.\\d+"}, {"type": "BLANK"}]}]}},
        "ident": {"type": "PATTERN", "value": "[a-z_]\\w*"},
        "comment": {"type": "TOKEN", "content": {"type": "SEQ", "members": [
          {"type": "STRING", "value": "//"}, {"type": "PATTERN", "value": "[^\\n]*"}]}},
        "unused": {"type": "REPEAT1", "content": {"type": "STRING", "value": "x"}}
      }
    }"#;
    let imported = import_json(json).unwrap();
    assert!(imported.text.contains("%layout _ ;"), "{}", imported.text);
    assert!(imported.text.contains("%word ident ;"), "{}", imported.text);
    assert!(
        imported.text.contains("`unused`"),
        "unreachable rules are listed as left out"
    );
    let g = grammar_of(json);
    let p = Parser::new(&g);
    for ok in [
        "let a = 1;",
        "  let   x=(1 + 2.5) ; // note\n f(1,TRUE , g( ) );",
        "let b=c+d;\n// trailing comment",
        "",
    ] {
        let tree = p.parse(ok.as_bytes()).unwrap_or_else(|e| panic!("{ok:?}: {e}"));
        assert_eq!(tree.unparse(), ok.as_bytes());
    }
    for bad in [
        "f (1);",    // layout before an IMMEDIATE_TOKEN
        "leta = 1;", // a keyword glued to a name is one name (longest match)
        "let 1 = 1;",
        "let a = 1",
        "let a = 1.;", // \d is ASCII and the fraction needs digits
        "let a = ١;",  // Arabic-Indic digit: not JavaScript's \d
    ] {
        assert!(p.parse(bad.as_bytes()).is_err(), "{bad:?} should not parse");
    }
}

#[test]
fn errors_name_the_json_path() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"{"name": "x", "rules": {"a": {"type": "SEQ", "members": [{"type": "STRING", "value": "a"}, {"type": "WHAT"}]}}}"#,
            "rules.a.members[1].type",
            "unknown rule type `WHAT`",
        ),
        (
            r#"{"name": "x", "rules": {"a": {"type": "SEQ", "members": [{"type": "SYMBOL", "name": "b"}]}}}"#,
            "rules.a.members[0].name",
            "neither a rule nor an external",
        ),
        (
            r#"{"name": "x", "rules": {"a": {"type": "SEQ", "members": [{"type": "STRING", "value": "("}, {"type": "SYMBOL", "name": "a"}]}}}"#,
            "rules.a",
            "unproductive",
        ),
        (
            r#"{"name": "x", "rules": {"string": {"type": "SEQ", "members": [{"type": "STRING", "value": "a"}, {"type": "STRING", "value": "b"}, {"type": "PATTERN", "value": "[a-"}]}}}"#,
            "rules.string.members[2].value",
            "regex-syntax rejects the pattern",
        ),
        (
            r#"{"name": "x", "rules": {"a": {"type": "PATTERN", "value": "a(?=b)"}}}"#,
            "rules.a.value",
            "regex-syntax rejects",
        ),
        (
            r#"{"name": "x", "rules": {"a": {"type": "PATTERN", "value": "^a$"}}}"#,
            "rules.a.value",
            "cannot express",
        ),
        (
            r#"{"name": "x", "rules": {"a": {"type": "REPEAT"}}}"#,
            "rules.a",
            "needs a `content`",
        ),
        (r#"{"name": "x", "rules": []}"#, "rules", "must be an object"),
        (r#"{"name": "x"}"#, "rules", "no `rules` object"),
    ];
    for (json, path, what) in cases {
        let e = import_json(json).unwrap_err();
        let shown = e.to_string();
        match &e {
            ImportError::Invalid { json_path, .. } => assert_eq!(json_path, path, "{shown}"),
            other => panic!("expected an Invalid error at {path}, got {other:?}"),
        }
        assert!(shown.contains(what), "{shown}");
        assert!(shown.starts_with("test/grammar.json: at `"), "{shown}");
    }
}

#[test]
fn json_syntax_errors_have_a_line_and_column() {
    let e = import_json("{\"name\": \"x\",\n \"rules\": {\"a\": }\n}").unwrap_err();
    assert!(matches!(e, ImportError::NotJson { .. }), "{e:?}");
    assert!(e.to_string().starts_with("test/grammar.json:2:"), "{e}");
    assert!(e.to_string().contains("invalid JSON"), "{e}");
}

#[test]
fn an_external_without_a_definition_is_a_check_error_naming_it() {
    let json = r#"{"name": "x", "externals": [{"type": "SYMBOL", "name": "_newline"}],
      "rules": {"a": {"type": "REPEAT", "content": {"type": "SEQ", "members": [
        {"type": "STRING", "value": "k"}, {"type": "SYMBOL", "name": "_newline"}]}}}}"#;
    let imported = import_json(json).unwrap();
    assert_eq!(imported.undefined_externals, ["_newline"]);
    let e = Grammar::from_text(&imported.text, "x.grammar").unwrap_err().to_string();
    assert!(e.contains("undefined symbol `_newline`"), "{e}");
    assert!(e.contains("external token") && e.contains("--externals FILE"), "{e}");
    // With an overrides file that defines it, the grammar loads, and the definition is used.
    let defined = import::import(
        &source(json),
        Some(Overrides::new(
            "# a line break\n_newline = _ \"\\n\" ;\n",
            "x.overrides",
        )),
    )
    .unwrap();
    assert!(
        defined.text.contains("# a line break\n_newline = _ \"\\n\" ;"),
        "{}",
        defined.text
    );
    let g = Grammar::from_text(&defined.text, "x.grammar").unwrap();
    assert!(Parser::new(&g).parse(b"k\n k  \n").is_ok());
}

#[test]
fn overrides_replace_rules_and_their_errors_are_located() {
    let json = r#"{"name": "x", "rules": {"a": {"type": "REPEAT", "content": {"type": "SYMBOL", "name": "b"}},
      "b": {"type": "PATTERN", "value": "[a-z]+"}}}"#;
    let ov = Overrides::new("b = \"yes\" | \"no\" ;\n", "x.overrides");
    let g = Grammar::from_text(&import::import(&source(json), Some(ov)).unwrap().text, "x").unwrap();
    let p = Parser::new(&g);
    assert!(p.parse(b"yes no").is_ok());
    assert!(p.parse(b"maybe").is_err());
    let bad = Overrides::new("b = \"yes\" | ;\nc = [a- ;\n", "x.overrides");
    let e = import::import(&source(json), Some(bad)).unwrap_err().to_string();
    assert!(e.contains("x.overrides:2:"), "{e}");
}

#[test]
fn a_crate_missing_from_the_registry_says_how_to_fetch_it() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("registry/src/index.example")).unwrap();
    let e = import::find_in("tree-sitter-nonesuch", Some(home.path())).unwrap_err();
    let shown = e.to_string();
    assert!(matches!(e, ImportError::CrateNotFound { .. }));
    assert!(
        shown.contains("cargo add tree-sitter-nonesuch") && shown.contains("cargo fetch"),
        "{shown}"
    );
    // A crate that is there: the newest version, with name, version and licence from Cargo.toml.
    for v in ["0.9.0", "0.10.1", "0.10.0-rc.1"] {
        let dir = home
            .path()
            .join(format!("registry/src/index.example/tree-sitter-demo-{v}"));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("src/grammar.json"),
            format!("{{\"name\": \"v{}\", \"rules\": {{}}}}", v.replace('.', "_")),
        )
        .unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            format!("[package]\nname = \"tree-sitter-demo\"\nversion = \"{v}\"\nlicense = \"MIT\"\n"),
        )
        .unwrap();
    }
    let found = import::find_in("tree-sitter-demo", Some(home.path())).unwrap();
    assert!(
        found.path.ends_with("tree-sitter-demo-0.10.1/src/grammar.json"),
        "{}",
        found.path.display()
    );
    assert_eq!(found.krate.unwrap().version, "0.10.1");
}

/// Generation, then parsing with longest-match tokens, is a re-lex: a generated input that
/// parses lexes as it was generated. No tree the generator returns has a run-on token left.
#[test]
fn generated_inputs_keep_their_token_boundaries() {
    for name in ["toml", "sql", "css", "glsl"] {
        let g = Grammar::load(name).unwrap();
        let (model, _) = hellfuzz::mine::samples::mine_builtin(&g, name);
        let parser = Parser::new(&g);
        for mode in [ProbabilityMode::Mined, ProbabilityMode::Inverted] {
            let probs = Probabilities::new(&g, Some(&model), mode);
            let mut generator = Generator::new(&g, &probs, Limits::up_to(600), 7);
            for _ in 0..60 {
                let tree = generator.tree();
                assert!(!hellfuzz::tree::has_run_on(&g, &tree), "{name} {mode:?}");
                let input = tree.unparse();
                if let Err(e) = parser.parse(&input) {
                    panic!("{name} {mode:?}: {e}\n{}", String::from_utf8_lossy(&input));
                }
            }
        }
    }
}

/// Keywords next to names: the separator goes in where the layout allows it and only there.
#[test]
fn adjacent_words_get_a_separator_and_glued_candidates_are_never_made() {
    let g = Grammar::from_text(
        r##"%layout _ ;
           %lexeme name ;
           program = ( _ "var" _ name _ ( "in" | "of" ) _ name _ ";" )* _ ;
           name = [a-z]+ ;
           _ = ( " " | "\n" | "#" [^\n]* )* ;"##,
        "words.grammar",
    )
    .unwrap();
    let parser = Parser::new(&g);
    // A hand-made derivation with every layout empty: `varaina;`.
    let mut tree = parser.parse(b"var a in b;").unwrap();
    let mut empties = Vec::new();
    tree.pre_order(tree.root(), |n| {
        if tree.kind(n).symbol() == g.layout() {
            empties.push(n);
        }
    });
    for n in empties {
        let children: Vec<_> = tree.children(n).collect();
        for c in children {
            tree.remove(c);
        }
    }
    assert_eq!(tree.unparse(), b"varainb;");
    assert!(hellfuzz::tree::has_run_on(&g, &tree));
    assert_eq!(hellfuzz::tree::fix_boundaries(&g, &mut tree), 3);
    assert_eq!(tree.unparse(), b"var a in b;");
    assert!(!hellfuzz::tree::has_run_on(&g, &tree));
    // A comment that would swallow the rest of its line is dropped, not the code after it.
    let mut commented = parser.parse(b"var a #note\nin b;").unwrap();
    assert!(!hellfuzz::tree::has_run_on(&g, &commented));
    let newline = find_leaf(&commented, b"\n");
    commented.remove(newline);
    assert_eq!(commented.unparse(), b"var a #notein b;");
    hellfuzz::tree::fix_boundaries(&g, &mut commented);
    assert_eq!(commented.unparse(), b"var a in b;");
    // Reduction keeps the separators: the crash needs a well-formed `of` statement, and GTR's
    // deletions (whole statements, layout) never glue `var` to the name; the tokens pass then
    // makes the names `a`.
    let input = b"var a in b; var c of d;  # end\n".to_vec();
    let glued = Parser::new(&g);
    let oracle = hellfuzz::oracle::InProcess::new(
        move |x: &[u8]| {
            if glued.parse(x).is_ok() && std::str::from_utf8(x).is_ok_and(|s| s.contains("of")) {
                panic!("found of");
            }
        },
        &input,
    )
    .unwrap();
    let result =
        hellfuzz::reduce::reduce(&input, Some(&g), &oracle, &hellfuzz::reduce::ReduceOptions::default()).unwrap();
    assert_eq!(String::from_utf8_lossy(&result.input), "var a of a;");
}

fn find_leaf(tree: &hellfuzz::tree::Tree, bytes: &[u8]) -> hellfuzz::tree::NodeId {
    let mut found = None;
    tree.pre_order(tree.root(), |n| {
        if found.is_none() && tree.leaf_bytes(n) == bytes {
            found = Some(n);
        }
    });
    found.unwrap()
}

#[test]
fn vendored_grammars_convert_without_overrides_too() {
    // Without the overrides, the externals stay undefined (a `check` error), nothing else fails.
    for (_, folder) in IMPORTED {
        let json = root()
            .join("tests/fixtures/tree-sitter")
            .join(folder)
            .join("src/grammar.json");
        let source = import::find(json.to_str().unwrap()).unwrap();
        let imported = import::import(&source, None).unwrap_or_else(|e| panic!("{folder}: {e}"));
        if imported.undefined_externals.is_empty() {
            Grammar::from_text(&imported.text, folder).unwrap_or_else(|e| panic!("{folder}: {e}"));
        }
        let _ = Path::new(folder);
    }
}

/// Real shaders (written for naga, before the built-in `glsl` grammar was narrowed to a typed
/// subset) against the plain import of tree-sitter-glsl: the vertex and fragment shaders parse;
/// the compute shaders' `layout(local_size_x = 8) in;` does not, exactly as in tree-sitter-glsl
/// 0.2.0 itself, whose declaration rule needs a declarator after the qualifiers.
#[test]
fn real_shaders_parse_with_the_plain_import_as_with_tree_sitter() {
    let json = root().join("tests/fixtures/tree-sitter/tree-sitter-glsl-0.2.0/src/grammar.json");
    let source = import::find(json.to_str().unwrap()).unwrap();
    let g = Grammar::from_text(&import::import(&source, None).unwrap().text, "glsl-plain").unwrap();
    let parser = Parser::new(&g);
    let dir = root().join("tests/fixtures/glsl-shaders");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 40);
    for f in files {
        let text = std::fs::read(&f).unwrap();
        let compute = f.to_string_lossy().ends_with(".comp.glsl");
        match parser.parse(&text) {
            Ok(tree) => {
                assert!(!compute, "{} parses", f.display());
                assert_eq!(tree.unparse(), text);
            }
            Err(e) => {
                assert!(compute, "{}: {e}", f.display());
                let line = String::from_utf8_lossy(&text)
                    .lines()
                    .nth(e.line as usize - 1)
                    .unwrap()
                    .to_string();
                assert!(
                    line.contains("local_size_x") && line.trim_end().ends_with("in;"),
                    "{}: {e}",
                    f.display()
                );
            }
        }
    }
}

/// The commands downstream of `import` on an imported grammar: `parse`, `dict`, `reduce
/// --grammar toml` and `repair --grammar toml` (as subprocesses, like a user runs them).
#[test]
fn commands_work_with_imported_grammars() {
    let bin = env!("CARGO_BIN_EXE_hellfuzz");
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| std::process::Command::new(bin).args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();

    let doc = dir.path().join("config.toml");
    std::fs::write(
        &doc,
        "# service\n[server]\nhost = \"localhost\"\nport = 8080\n\n[database]\nurl = 'postgres://x'\npool = [1, 2, 3]\n",
    )
    .unwrap();
    let out = run(&["parse", "toml", doc.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("bare_key"), "{}", text(&out.stdout));

    let out = run(&["dict", "sql"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).lines().count() > 50);

    // reduce: the "crash" needs a `pool` array with the number 2; GTR* keeps a valid document.
    let cmd = "sh -c 'grep -q \"pool\" \"$1\" && grep -q \"2\" \"$1\" && exit 101; exit 0' sh @@";
    let out = run(&[
        "reduce",
        doc.to_str().unwrap(),
        "--grammar",
        "toml",
        "--cmd",
        cmd,
        "--exit-code",
        "101",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reduced = record["input"].as_str().unwrap().to_string();
    assert!(
        reduced.len() < 20 && reduced.contains("pool") && reduced.contains('2'),
        "{reduced:?}"
    );

    // repair: a corrupted document; toml_edit is not available to a test, so the program is
    // hellfuzz's own parser with the toml grammar (exit 0 when it parses).
    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "a = 1\nb = [1, 2,, 3]\nc = \"x\"\n").unwrap();
    let check = format!("{bin} parse toml --quiet @@");
    // `repair` of the broken document with `extra` arguments: its JSON record.
    let repair = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "repair",
            broken.to_str().unwrap(),
            "--grammar",
            "toml",
            "--cmd",
            &check,
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert!(out.status.success(), "{} {}", text(&out.stdout), text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let record = repair(&[]);
    assert_eq!(record["repaired"], true, "{record}");
    // By default repair may insert what the grammar expects (a value between the commas: no
    // byte of the input is lost); with --no-insert it is the paper's ddmax (the comma goes).
    assert_eq!(
        record["input"].as_str(),
        Some("a = 1\nb = [1, 2,0, 3]\nc = \"x\"\n"),
        "{record}"
    );
    let no_insert_out = dir.path().join("broken-no-insert.toml");
    let record = repair(&["--no-insert", "--out", no_insert_out.to_str().unwrap()]);
    assert_eq!(
        record["input"].as_str(),
        Some("a = 1\nb = [1, 2, 3]\nc = \"x\"\n"),
        "{record}"
    );
}

/// The grammar-aware mutator on imported grammars: most of its mutants of the samples parse.
#[test]
fn the_mutator_keeps_imported_inputs_well_formed() {
    for name in ["toml", "css"] {
        let g = Grammar::load(name).unwrap();
        let (model, _) = hellfuzz::mine::samples::mine_builtin(&g, name);
        let mut mutator = hellfuzz::harness::Mutator::new(&g, Some(&model), Some(ProbabilityMode::Inverted));
        let parser = Parser::new(&g);
        let (mut made, mut parsed) = (0, 0);
        for (i, (_, sample)) in hellfuzz::grammar::builtin::samples(name).iter().enumerate().take(20) {
            for k in 0..10 {
                if let Some((mutant, _)) = mutator.mutate(sample, 4096, (i * 10 + k) as u64) {
                    made += 1;
                    parsed += usize::from(parser.parse(&mutant).is_ok());
                }
            }
        }
        assert!(made >= 150, "{name}: {made} mutants");
        assert!(parsed * 100 >= made * 90, "{name}: {parsed} of {made} mutants parse");
    }
}

/// Issue 41, item 8.1: `_ = "" ;` in an overrides file replaces the layout rule (no layout at
/// all), and `%layout` there is an error saying to define `_` instead.
#[test]
fn a_layout_override_replaces_the_layout_rule() {
    let json = r#"{"name": "x", "rules": {"a": {"type": "REPEAT1", "content": {"type": "SYMBOL", "name": "b"}},
      "b": {"type": "PATTERN", "value": "[a-z]"}}}"#;
    let imported = import::import(
        &source(json),
        Some(Overrides::new("# no layout\n_ = \"\" ;\n", "x.overrides")),
    )
    .unwrap();
    assert!(imported.text.contains("# no layout\n_ = \"\" ;"), "{}", imported.text);
    assert!(!imported.text.contains("_ = _extra*"), "{}", imported.text);
    assert!(!imported.text.contains("_extra ="), "{}", imported.text);
    let g = Grammar::from_text(&imported.text, "x.grammar").unwrap();
    let p = Parser::new(&g);
    assert!(p.parse(b"abc").is_ok());
    assert!(p.parse(b"a b").is_err(), "no layout left");
    // `_extra` still replaces one layout item.
    let extra = import::import(&source(json), Some(Overrides::new("_extra = \" \" ;\n", "x.overrides"))).unwrap();
    let g = Grammar::from_text(&extra.text, "x.grammar").unwrap();
    assert!(Parser::new(&g).parse(b"a b").is_ok() && Parser::new(&g).parse(b"a\nb").is_err());
    let e = import::import(&source(json), Some(Overrides::new("%layout _ ;\n", "x.overrides")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("x.overrides:1:1") && e.contains("define `_`"), "{e}");
}

/// Issue 41, item 8.2: `%distinct`, `%hoist` and `%refer` lines of an overrides file are
/// carried into the imported grammar (as `%lexeme` lines are), and generation follows them.
#[test]
fn symbol_table_directives_of_the_overrides_survive_the_import() {
    let json = r#"{"name": "x", "rules": {
      "block": {"type": "SEQ", "members": [{"type": "STRING", "value": "{"},
        {"type": "REPEAT", "content": {"type": "SYMBOL", "name": "decl"}}, {"type": "STRING", "value": "}"}]},
      "decl": {"type": "SEQ", "members": [{"type": "STRING", "value": "let"}, {"type": "SYMBOL", "name": "name"},
        {"type": "STRING", "value": ";"}]},
      "name": {"type": "PATTERN", "value": "[a-b]"}}}"#;
    let ov = "%distinct name block ;\n%hoist decl block ;\nname = [a-e] ;\n";
    let imported = import::import(&source(json), Some(Overrides::new(ov, "x.overrides"))).unwrap();
    assert!(imported.text.contains("%distinct name block ;"), "{}", imported.text);
    assert!(imported.text.contains("%hoist decl block ;"), "{}", imported.text);
    let g = Grammar::from_text(&imported.text, "x.grammar").unwrap();
    assert_eq!(g.distinct().len(), 1);
    // Five names, at most four declarations: with the directive a block never declares one
    // twice; without it, some do.
    let repeats = |g: &Grammar| {
        let probs = Probabilities::new(g, None, ProbabilityMode::Uniform);
        let mut generator = Generator::new(g, &probs, Limits::up_to(30), 3);
        (0..200)
            .filter(|_| {
                let text = String::from_utf8(generator.input()).unwrap();
                let names: Vec<char> = text
                    .split("let")
                    .skip(1)
                    .filter_map(|d| d.trim_start().chars().next())
                    .collect();
                let mut unique = names.clone();
                unique.sort();
                unique.dedup();
                unique.len() < names.len()
            })
            .count()
    };
    assert_eq!(repeats(&g), 0);
    let without = import::import(&source(json), Some(Overrides::new("name = [a-e] ;\n", "x.overrides"))).unwrap();
    assert!(repeats(&Grammar::from_text(&without.text, "x.grammar").unwrap()) > 0);
    // A line naming no rule of the grammar is an error at its place in the overrides file.
    let bad = "name = [a-e] ;\n\n%distinct nosuch block ;\n";
    let e = import::import(&source(json), Some(Overrides::new(bad, "x.overrides")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("x.overrides:3:1") && e.contains("nosuch"), "{e}");
    // `%refer` too; a line naming a rule the import left out is left out with it.
    let ov = "%refer name decl ;\n";
    let imported = import::import(&source(json), Some(Overrides::new(ov, "x.overrides"))).unwrap();
    assert!(imported.text.contains("%refer name decl ;"), "{}", imported.text);
    // What `refine`'s edits file declares besides rules: `%values` tables and the token pairs
    // of `%separate` and `%never`, with their literals as written.
    let ov = "%values name names ;\nnames = \"a\" | \"b\" ;\n%never \"let\" \"b\" ;\n%separate \";\" \"let\" ;\n";
    let imported = import::import(&source(json), Some(Overrides::new(ov, "x.overrides"))).unwrap();
    for line in [
        "%values name names ;",
        "%never \"let\" \"b\" ;",
        "%separate \";\" \"let\" ;",
    ] {
        assert!(imported.text.contains(line), "{line}\n{}", imported.text);
    }
    let g = Grammar::from_text(&imported.text, "x.grammar").unwrap();
    assert_eq!(g.values().len(), 1);
    assert_eq!(g.separate().iter().filter(|s| s.never).count(), 1);
}

/// A crate laid out like tree-sitter-xml 0.7.0: no `src/grammar.json`, but `xml/src/` and
/// `dtd/src/`, with the Cargo.toml at the top.
fn xml_like_crate(home: &Path, name: &str, subs: &[&str]) -> PathBuf {
    let dir = home.join(format!("registry/src/index.example/{name}-0.7.0"));
    for sub in subs {
        std::fs::create_dir_all(dir.join(sub).join("src")).unwrap();
        std::fs::write(
            dir.join(sub).join("src/grammar.json"),
            format!(r#"{{"name": "{sub}", "rules": {{"doc": {{"type": "STRING", "value": "<{sub}/>"}}}}}}"#),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("Cargo.toml"),
        format!("[package]\nname = \"{name}\"\nversion = \"0.7.0\"\nlicense = \"MIT\"\n"),
    )
    .unwrap();
    dir
}

/// Issue 41, item 8.3: grammars in subfolders of the crate are found: the one named like the
/// crate, or `NAME/SUB`; with several and none named like the crate, the error lists them.
#[test]
fn a_crate_with_its_grammars_in_subfolders_is_imported() {
    let home = tempfile::tempdir().unwrap();
    let dir = xml_like_crate(home.path(), "tree-sitter-xml", &["xml", "dtd"]);
    let found = import::find_in("tree-sitter-xml", Some(home.path())).unwrap();
    assert!(
        found.path.ends_with("tree-sitter-xml-0.7.0/xml/src/grammar.json"),
        "{}",
        found.path.display()
    );
    assert_eq!(found.subfolder.as_deref(), Some("xml"));
    assert_eq!(found.subfolders, ["dtd", "xml"]);
    let k = found.krate.clone().unwrap();
    assert_eq!((k.name.as_str(), k.version.as_str()), ("tree-sitter-xml", "0.7.0"));
    let imported = import::import(&found, None).unwrap();
    assert!(
        imported
            .text
            .contains("from tree-sitter-xml 0.7.0 (xml/src/grammar.json, licence MIT)"),
        "{}",
        imported.text
    );
    assert!(
        imported.text.contains("hellfuzz import tree-sitter-xml/xml -o"),
        "{}",
        imported.text
    );
    let dtd = import::find_in("tree-sitter-xml/dtd", Some(home.path())).unwrap();
    assert!(dtd.path.ends_with("dtd/src/grammar.json") && dtd.json.contains("<dtd/>"));
    // The crate folder given as a path finds them too.
    let by_path = import::find_in(dir.to_str().unwrap(), None).unwrap();
    assert_eq!(by_path.subfolder.as_deref(), Some("xml"));
    let e = import::find_in("tree-sitter-xml/html", Some(home.path()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`tree-sitter-xml/dtd`, `tree-sitter-xml/xml`"), "{e}");
    // Several grammars, none named like the crate: the error lists them and how to pick one.
    xml_like_crate(home.path(), "tree-sitter-markup", &["html", "svg"]);
    let e = import::find_in("tree-sitter-markup", Some(home.path()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("html/src/grammar.json, svg/src/grammar.json")
            && e.contains("hellfuzz import tree-sitter-markup/html"),
        "{e}"
    );
}

/// Issue 41, item 8.5: referencing a helper the import made from a rule the overrides file
/// replaces is an error saying so, where in the overrides file, and what to write.
#[test]
fn a_helper_of_a_replaced_rule_is_named_as_such() {
    let json = r#"{"name": "x", "rules": {
      "start": {"type": "SEQ", "members": [{"type": "SYMBOL", "name": "item"},
        {"type": "ALIAS", "named": true, "value": "item", "content": {"type": "PATTERN", "value": "[0-9]"}}]},
      "item": {"type": "PATTERN", "value": "[a-z]"}}}"#;
    let plain = import_json(json).unwrap();
    assert!(plain.text.contains("item_2 = [0-9] ;"), "{}", plain.text);
    let ov = "# the imported rule, edited\nstart = _ item _ item_2 _ item ;\n";
    let e = import::import(&source(json), Some(Overrides::new(ov, "x.overrides")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("x.overrides:2:"), "{e}");
    assert!(
        e.contains("`item_2` is a helper rule the import makes from the imported rule `start`")
            && e.contains("define it in x.overrides")
            && e.contains("`item_2 = [0-9] ;`"),
        "{e}"
    );
    // Defined in the overrides file, it works.
    let ov = "start = _ item _ item_2 _ item ;\nitem_2 = [0-9] ;\n";
    let fixed = import::import(&source(json), Some(Overrides::new(ov, "x.overrides"))).unwrap();
    let g = Grammar::from_text(&fixed.text, "x").unwrap();
    assert!(Parser::new(&g).parse(b"a 1 b").is_ok());
}

/// `%layout` trees of `grammar` with every layout emptied, then fixed: the text.
fn emptied_and_fixed(g: &Grammar, input: &[u8]) -> String {
    let mut tree = Parser::new(g).parse(input).unwrap();
    let mut layouts = Vec::new();
    tree.pre_order(tree.root(), |n| {
        if tree.kind(n).symbol() == g.layout() {
            layouts.push(n);
        }
    });
    for n in layouts {
        let children: Vec<_> = tree.children(n).collect();
        for c in children {
            tree.remove(c);
        }
    }
    hellfuzz::tree::fix_boundaries(g, &mut tree);
    assert!(!hellfuzz::tree::has_run_on(g, &tree));
    String::from_utf8(tree.unparse()).unwrap()
}

/// Issue 41, item 8.4: a token that is not the first item after the layout (`identifier` in
/// `lifetime = _ "'" identifier ;`, `number` after `-`) keeps its boundary, and a word never
/// follows what ends in a word character (`99if`).
#[test]
fn every_token_after_a_layout_keeps_its_boundary() {
    let g = Grammar::from_text(
        r#"%layout _ ;
           %lexeme identifier ;
           program = ( _ stmt )* _ ;
           stmt = _ "&" lifetime _ identifier _ ";"
                | _ "-" number _ "if" _ ";"
                | _ number _ identifier _ ";" ;
           lifetime = _ "'" identifier ;
           identifier = [a-z]+ ;
           number = [0-9]+ ;
           _ = ( " " | "\n" )* ;"#,
        "lifetimes.grammar",
    )
    .unwrap();
    assert_eq!(emptied_and_fixed(&g, b"& 'static str ;"), "&'static str;");
    assert_eq!(emptied_and_fixed(&g, b"-99 if ;"), "-99 if;");
    assert_eq!(emptied_and_fixed(&g, b"99 if ;"), "99 if;");
    // Generated inputs: every lifetime and number is apart from the word after it.
    let probs = Probabilities::new(&g, None, ProbabilityMode::Uniform);
    let mut generator = Generator::new(&g, &probs, Limits::up_to(200), 1);
    let lifetime = regex_lite(r"&[ \n]*'[a-z]+[ \n]+[a-z]+");
    let (mut lifetimes, mut numbers) = (0, 0);
    for _ in 0..200 {
        let text = String::from_utf8(generator.input()).unwrap();
        for (i, _) in text.match_indices("&") {
            lifetimes += 1;
            assert!(lifetime(&text[i..]), "{text:?}");
        }
        let bytes = text.as_bytes();
        for w in bytes.windows(2) {
            if w[0].is_ascii_digit() && w[1].is_ascii_lowercase() {
                panic!("a number glued to a word: {text:?}");
            }
            numbers += usize::from(w[0].is_ascii_digit() && !w[1].is_ascii_digit());
        }
    }
    assert!(lifetimes > 20 && numbers > 20, "{lifetimes} {numbers}");
}

/// `&`, layout, `'name`, layout, then a name, at the start of `text` (what
/// `&[ \n]*'[a-z]+[ \n]+[a-z]+` matches), without a regex crate.
fn regex_lite(_: &str) -> impl Fn(&str) -> bool {
    |text: &str| {
        let rest = text.strip_prefix('&').unwrap_or("").trim_start_matches([' ', '\n']);
        let rest = rest.strip_prefix('\'').unwrap_or("");
        let name = rest.bytes().take_while(u8::is_ascii_lowercase).count();
        let gap = rest[name..].bytes().take_while(|b| *b == b' ' || *b == b'\n').count();
        name > 0 && gap > 0 && rest[name + gap..].starts_with(|c: char| c.is_ascii_lowercase())
    }
}

/// Issue 41, item 8.7: a token that runs to the end of its line (a hash-bang `"#!" [^\n]*`)
/// is ended by a line break, not a space, and a `#` layout comment never swallows code: what a
/// real lexer reads (comments to the end of the line dropped) is the statements generated.
#[test]
fn line_comments_and_hash_bangs_never_swallow_code() {
    let text = r##"%layout _ ;
           %lexeme name ;
           program = ( _ shebang )? ( _ stmt )+ _ ;
           shebang = "#!" [^\n]* ;
           stmt = _ name _ "=" _ name _ ";" ;
           name = [a-z]+ ;
           _ = _extra* ;
           _extra = [ \t\n] | comment ;
           comment = "#" [^\n]* ;"##;
    let g = Grammar::from_text(text, "hash.grammar").unwrap();
    // With `#` comments the hash-bang line may parse as one; with `--` comments it is the token.
    let dashes = Grammar::from_text(
        &text.replace(r##"comment = "#""##, r#"comment = "--""#),
        "dashes.grammar",
    )
    .unwrap();
    assert_eq!(emptied_and_fixed(&dashes, b"#!/bin/x\na = b;"), "#!/bin/x\na=b;");
    let parser = Parser::new(&g);
    let stmt = g.symbols().iter().position(|s| s.name == "stmt").unwrap();
    let probs = Probabilities::new(&g, None, ProbabilityMode::Uniform);
    let mut generator = Generator::new(&g, &probs, Limits::up_to(300), 0);
    let mut shebangs = 0;
    for _ in 0..300 {
        let tree = generator.tree();
        let text = tree.unparse();
        assert!(parser.parse(&text).is_ok());
        let mut stmts = 0;
        tree.pre_order(tree.root(), |n| {
            stmts += usize::from(tree.kind(n).symbol().is_some_and(|s| s.index() == stmt));
        });
        shebangs += usize::from(text.starts_with(b"#!"));
        // A real lexer: `#` to the end of the line is a comment (the hash-bang too).
        let code: Vec<u8> = text
            .split(|&b| b == b'\n')
            .flat_map(|line| line.split(|&b| b == b'#').next().unwrap().iter().copied())
            .collect();
        let statements = code.iter().filter(|&&b| b == b';').count();
        assert_eq!(statements, stmts, "{:?}", String::from_utf8_lossy(&text));
    }
    assert!(shebangs > 20, "{shebangs}");
}

/// tree-sitter's numbered precedences and its `word` rule come through as `@left(N)`-style
/// alternatives and `%word`, and the parser builds the tree tree-sitter would.
#[test]
fn precedences_and_keyword_extraction_choose_the_parse_tree_sitter_builds() {
    let json = r#"{"name": "calc", "word": "id", "extras": [{"type": "PATTERN", "value": "\\s"}],
      "rules": {
        "program": {"type": "REPEAT", "content": {"type": "SYMBOL", "name": "_stmt"}},
        "_stmt": {"type": "CHOICE", "members": [
          {"type": "SEQ", "members": [{"type": "STRING", "value": "return"}, {"type": "SYMBOL", "name": "_expr"}, {"type": "STRING", "value": ";"}]},
          {"type": "SEQ", "members": [{"type": "SYMBOL", "name": "_expr"}, {"type": "STRING", "value": ";"}]}]},
        "_expr": {"type": "CHOICE", "members": [
          {"type": "SYMBOL", "name": "binary"}, {"type": "SYMBOL", "name": "call"}, {"type": "SYMBOL", "name": "id"},
          {"type": "SEQ", "members": [{"type": "STRING", "value": "("}, {"type": "SYMBOL", "name": "_expr"}, {"type": "STRING", "value": ")"}]}]},
        "binary": {"type": "CHOICE", "members": [
          {"type": "PREC_LEFT", "value": 1, "content": {"type": "SEQ", "members": [
            {"type": "SYMBOL", "name": "_expr"}, {"type": "STRING", "value": "+"}, {"type": "SYMBOL", "name": "_expr"}]}},
          {"type": "PREC_LEFT", "value": 2, "content": {"type": "SEQ", "members": [
            {"type": "SYMBOL", "name": "_expr"}, {"type": "STRING", "value": "*"}, {"type": "SYMBOL", "name": "_expr"}]}}]},
        "call": {"type": "PREC", "value": 5, "content": {"type": "SEQ", "members": [
          {"type": "SYMBOL", "name": "_expr"}, {"type": "STRING", "value": "("}, {"type": "SYMBOL", "name": "_expr"}, {"type": "STRING", "value": ")"}]}},
        "id": {"type": "PATTERN", "value": "[a-z]+"}}}"#;
    let imported = import_json(json).unwrap();
    for line in [
        "%word id ;",
        "@left(1) _expr _ \"+\" _expr",
        "@left(2) _expr _ \"*\" _expr",
        "call = @prec(5) ",
    ] {
        assert!(imported.text.contains(line), "{line}\n{}", imported.text);
    }
    let g = grammar_of(json);
    let p = Parser::new(&g);
    let alts_of = |input: &str, name: &str| -> Vec<u32> {
        let (tree, ambiguity) = p
            .parse_ambiguity(input.as_bytes())
            .unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(ambiguity, None, "{input}");
        let mut alts = Vec::new();
        tree.pre_order(tree.root(), |n| {
            if let NodeKind::Rule { symbol, alt } = tree.kind(n) {
                if g.symbol(symbol).name == name {
                    alts.push(alt);
                }
            }
        });
        alts
    };
    // `return (a);` returns `(a)`: `return` is a keyword where one is expected, not a name called.
    assert_eq!(alts_of("return (a);", "_stmt"), [0]);
    assert_eq!(alts_of("return (a);", "call"), Vec::<u32>::new());
    // `a + b * c;` is a sum of a product, `a + b + c;` a sum nested to the left.
    assert_eq!(alts_of("a + b * c;", "binary"), [0, 1]);
    assert_eq!(alts_of("a * b + c;", "binary"), [0, 1]);
    let (tree, _) = p.parse_ambiguity(b"a + b + c;").unwrap();
    let mut sums = Vec::new();
    tree.pre_order(tree.root(), |n| {
        if tree.kind(n).symbol().is_some_and(|s| g.symbol(s).name == "binary") {
            sums.push(String::from_utf8(tree.unparse_node(n)).unwrap());
        }
    });
    assert_eq!(sums, ["a + b + c", "a + b"]);
}
