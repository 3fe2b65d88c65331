//! Whole reductions without a grammar on real-looking TOML, Markdown, SQL and CSS inputs, each
//! with an in-process oracle: the result still fails, is smaller, and is 1-minimal in bytes.

use crate::oracle::Outcome;
use crate::reduce::{ddmin, reduce, ReduceOptions, Reduction};

fn balanced(s: &str) -> bool {
    let mut stack = Vec::new();
    for c in s.chars() {
        match c {
            '(' | '[' | '{' => stack.push(c),
            ')' | ']' | '}' => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if stack.pop() != Some(want) {
                    return false;
                }
            }
            _ => {}
        }
    }
    stack.is_empty()
}

/// A bug condition on the text of a candidate.
type Check = fn(&str) -> bool;

fn oracle(check: Check) -> impl Fn(&[u8]) -> Outcome + Sync {
    move |b: &[u8]| match std::str::from_utf8(b) {
        Ok(s) if check(s) => Outcome::Fail,
        _ => Outcome::Pass,
    }
}

/// Reduces without a grammar and checks what every such reduction must give.
fn reduce_and_check(input: &str, check: Check) -> Reduction {
    let o = oracle(check);
    assert_eq!(
        o(input.as_bytes()),
        Outcome::Fail,
        "the example must fail to begin with"
    );
    let r = reduce(input.as_bytes(), None, &o, &ReduceOptions::default()).unwrap();
    assert_eq!(o(&r.input), Outcome::Fail);
    assert!(r.confirmed);
    assert!(r.input.len() < input.len() / 4, "{}", String::from_utf8_lossy(&r.input));
    assert!(r.stats.notes[0].contains("no grammar given") && r.stats.notes[0].contains("generic tree"));
    // 1-minimal in characters: removing any one makes it pass.
    let units = ddmin::units(&r.input);
    for i in 0..units.len() {
        let mut smaller = units.clone();
        smaller.remove(i);
        assert_eq!(o(&smaller.concat()), Outcome::Pass, "removing unit {i} still fails");
    }
    r
}

const TOML: &str = r#"# Cargo manifest
[package]
name = "demo"
version = "0.3.1"
authors = ["A. Person <a@example.com>", "B. Person"]
edition = "2021"

[dependencies]
serde = { version = "1.0.197", features = ["derive", "rc"] }
rand = "0.8"

[[bin]]
name = "tool"
path = "src/bin/tool.rs"
required-features = ["cli", "fancy"]

[profile.release]
lto = true
opt-level = 3
"#;

/// An array of tables whose inline array nests inside an inline table.
fn toml_bug(s: &str) -> bool {
    balanced(s) && s.contains("[[") && s.contains("{") && s.contains("[\"")
}

#[test]
fn toml_manifest_reduces_to_a_minimal_failing_document() {
    let r = reduce_and_check(TOML, toml_bug);
    // Strings emptied: only the brackets and quotes the oracle needs are left.
    assert!(r.input.len() <= 10, "{}", String::from_utf8_lossy(&r.input));
}

const MARKDOWN: &str = "# Release notes\n\nSome *intro* text with a [link](https://example.com).\n\n\
## Changes\n\n- Fixed the parser\n  - nested item with `code`\n  - another one\n- Added:\n\n  > quoted **bold** \
text\n  > and [a link](http://x.org \"title\")\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";

/// A link with a title inside a block quote, with a table somewhere.
fn markdown_bug(s: &str) -> bool {
    s.lines()
        .any(|l| l.trim_start().starts_with('>') && l.contains("](") && l.contains('"'))
        && s.contains('|')
}

#[test]
fn markdown_notes_reduce_to_the_quoted_link() {
    let r = reduce_and_check(MARKDOWN, markdown_bug);
    assert!(r.input.len() <= 12, "{}", String::from_utf8_lossy(&r.input));
}

const SQL: &str = "-- report\nSELECT u.id, u.name, COUNT(o.id) AS orders\nFROM users u\n\
LEFT JOIN orders o ON o.user_id = u.id AND o.total > 100.50\nWHERE u.created_at >= '2024-01-01'\n  AND u.id IN \
(SELECT user_id FROM bans WHERE reason = 'spam' AND (level > 3 OR level IS NULL))\nGROUP BY u.id, u.name\n\
HAVING COUNT(o.id) > 2\nORDER BY orders DESC\nLIMIT 50;\n";

/// A subquery with a parenthesized condition inside it.
fn sql_bug(s: &str) -> bool {
    balanced(s) && s.contains("(SELECT") && s.matches('(').count() >= 2 && s.contains("OR")
}

#[test]
fn sql_query_reduces_to_the_nested_subquery() {
    let r = reduce_and_check(SQL, sql_bug);
    assert!(r.input.starts_with(b"(SELECT"), "{}", String::from_utf8_lossy(&r.input));
}

const CSS: &str = "/* site */\nbody {\n  margin: 0;\n  font: 14px/1.5 \"Helvetica\", sans-serif;\n}\n\n\
@media (max-width: 600px) {\n  .nav > li:hover {\n    color: rgb(10, 20, 30) !important;\n    padding: 2px 4px;\n  }\n\
  .footer { display: none; }\n}\n\na[href^=\"http\"] { text-decoration: underline; }\n";

/// `!important` inside a rule inside an at-rule block.
fn css_bug(s: &str) -> bool {
    if !balanced(s) {
        return false;
    }
    let Some(at) = s.find('@') else { return false };
    let rest = &s[at..];
    rest.find("{").zip(rest.find("!important")).is_some_and(|(a, b)| a < b) && rest.matches('{').count() >= 2
}

#[test]
fn css_stylesheet_reduces_to_the_nested_important_rule() {
    let r = reduce_and_check(CSS, css_bug);
    assert!(r.input.len() <= 16, "{}", String::from_utf8_lossy(&r.input));
}

/// The point of the generic tree: on structured text it beats ddmin on characters alone.
#[test]
fn the_generic_tree_needs_fewer_oracle_calls_than_ddmin_and_ends_no_larger() {
    let cases: [(&str, Check); 4] = [
        (TOML, toml_bug),
        (MARKDOWN, markdown_bug),
        (SQL, sql_bug),
        (CSS, css_bug),
    ];
    for (input, check) in cases {
        let o = oracle(check);
        let tree = reduce(input.as_bytes(), None, &o, &ReduceOptions::default()).unwrap();
        let ddmin_only = ReduceOptions {
            algorithm: crate::reduce::Algorithm::Ddmin,
            ..ReduceOptions::default()
        };
        let chars = reduce(input.as_bytes(), None, &o, &ddmin_only).unwrap();
        assert!(
            tree.input.len() <= chars.input.len(),
            "{:?}",
            String::from_utf8_lossy(&tree.input)
        );
        assert!(
            tree.stats.oracle_calls < chars.stats.oracle_calls,
            "{} vs {}",
            tree.stats.oracle_calls,
            chars.stats.oracle_calls
        );
    }
}

const TOML_SAMPLES: [&str; 3] = [
    "[package]\nname = \"a\"\nversion = \"1.0.0\"\n\n[dependencies]\nlog = \"0.4\"\n",
    "[package]\nname = \"b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[[bin]]\nname = \"b\"\npath = \"main.rs\"\n",
    "[workspace]\nmembers = [\"a\", \"b\"]\n\n[profile.dev]\nopt-level = 1\n",
];

/// Filters learned from samples of the format (GTR paper §4.2) spare candidates the samples say
/// are invalid: the tree phase tests fewer, and the result still fails.
#[test]
fn filters_learned_from_toml_samples_prune_candidates() {
    let o = oracle(toml_bug);
    let tree_only = ReduceOptions {
        byte_pass: false,
        passes: Vec::new(),
        ..ReduceOptions::default()
    };
    let plain = reduce(TOML.as_bytes(), None, &o, &tree_only).unwrap();
    let learned = ReduceOptions {
        corpus: Some(crate::reduce::CorpusFilter::learn_generic(&TOML_SAMPLES)),
        ..tree_only
    };
    let filtered = reduce(TOML.as_bytes(), None, &o, &learned).unwrap();
    assert_eq!(o(&filtered.input), Outcome::Fail);
    assert!(
        filtered.stats.tests < plain.stats.tests,
        "{} vs {}",
        filtered.stats.tests,
        plain.stats.tests
    );
    // It keeps what every sample line had: its newline.
    assert!(filtered.input.ends_with(b"\n"));
}
