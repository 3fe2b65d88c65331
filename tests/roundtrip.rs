//! Every shipped sample parses with its grammar and unparses to the same bytes; arbitrary JSON
//! documents (generated, then serialized compactly and prettily) do too.

use std::path::Path;

use hellfuzz::grammar::Grammar;
use hellfuzz::parse::Parser;
use proptest::prelude::*;

#[test]
fn every_seed_file_round_trips() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
    let mut checked = 0;
    for dir in std::fs::read_dir(&seeds).unwrap() {
        let dir = dir.unwrap().path();
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        let grammar = Grammar::load(&name).unwrap_or_else(|e| panic!("seeds/{name} has no grammar: {e}"));
        let parser = Parser::new(&grammar);
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let bytes = std::fs::read(&file).unwrap();
            let tree = parser
                .parse(&bytes)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert_eq!(tree.unparse(), bytes, "{}", file.display());
            assert_eq!(tree.len(), bytes.len());
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} seed files found");
}

#[test]
fn shipped_sample_counts_meet_the_minimums() {
    let count = |name: &str| hellfuzz::grammar::builtin::samples(name).len();
    assert!(count("json") >= 30);
    assert!(count("expr") >= 20);
    for imported in ["toml", "css", "sql", "glsl"] {
        assert!(count(imported) >= 20, "{imported}");
    }
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| serde_json::json!(n)),
        (-1e300f64..1e300).prop_map(|f| serde_json::json!(f)),
        ".*".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(".*", inner, 0..8)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_serialized_json_parses_and_round_trips(v in json_value(), pretty in any::<bool>()) {
        static PARSER: std::sync::OnceLock<Parser> = std::sync::OnceLock::new();
        let parser = PARSER.get_or_init(|| Parser::new(&Grammar::load("json").unwrap()));
        let text = if pretty { serde_json::to_vec_pretty(&v).unwrap() } else { serde_json::to_vec(&v).unwrap() };
        let tree = parser.parse(&text).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert_eq!(tree.unparse(), text);
    }
}
