//! Recall of the built-in `js` grammar on the constructs real files use (ES2015 to ES2023:
//! automatic semicolon insertion, optional chaining, class fields and private names, async
//! functions, modules, ...): each hand-written file of `tests/fixtures/js-recall/` parses and
//! round-trips, and node accepts it (`node --check`: a `.js` file as a CommonJS script, a `.mjs`
//! file as a module) when node is on the PATH. And the other side of ASI: where JavaScript inserts
//! no semicolon, the grammar does not end a statement either. `scripts/eval-recall` measures
//! recall on the machine's real files; `tests/js_validity.rs` checks that generated inputs stay
//! valid.

use std::path::{Path, PathBuf};
use std::process::Command;

use hellfuzz::grammar::Grammar;
use hellfuzz::parse::Parser;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js-recall");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "js" || x == "mjs"))
        .collect();
    files.sort();
    files
}

fn node_available() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The fixtures and the constructs each must hold (so that a fixture edited into a file without
/// them fails here, rather than the test passing on something else).
const CONSTRUCTS: &[(&str, &[&str])] = &[
    (
        "asi.js",
        &[
            "const a = 1\n",
            "if (!x) return\n",
            "do b++\nwhile",
            ";[a, b]",
            ";(function",
        ],
    ),
    (
        "async.js",
        &[
            "async function",
            "await ",
            "async (x) =>",
            "async x =>",
            "for await",
            "async *",
            "static async",
        ],
    ),
    (
        "classes.js",
        &[
            "static instances = 0",
            "#step = 1",
            "static #secret",
            "static {",
            "#bump ()",
            "#step in this",
            "this.#step",
        ],
    ),
    (
        "literals.js",
        &[
            "10n",
            "1_000_000",
            "(?<year>",
            "(?<=",
            "\\x7f-\\x9f",
            "{10,20}",
            "import('",
        ],
    ),
    (
        "module-default.mjs",
        &["import {", "export class", "export default function"],
    ),
    (
        "module.mjs",
        &[
            "import * as",
            "export * from",
            "export { join } from",
            "import.meta",
            "await read",
            "export { Reader, data as contents }",
        ],
    ),
    (
        "optional-chaining.js",
        &["?.a", "?.[0]", "?.()", "??", "??=", "||=", "&&="],
    ),
];

#[test]
fn every_fixture_parses_round_trips_and_node_accepts_it() {
    let g = Grammar::load("js").unwrap();
    let parser = Parser::new(&g);
    let files = fixtures();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let expected: Vec<&str> = CONSTRUCTS.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, expected, "the fixtures and CONSTRUCTS must list the same files");
    let node = node_available();
    if !node {
        eprintln!("node not found: the fixtures are not checked with node --check");
    }
    for (file, (_, constructs)) in files.iter().zip(CONSTRUCTS) {
        let text = std::fs::read(file).unwrap();
        let shown = String::from_utf8_lossy(&text);
        for c in *constructs {
            assert!(shown.contains(c), "{}: holds no {c:?}", file.display());
        }
        let tree = parser
            .parse(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(
            tree.unparse(),
            text,
            "{}: the tree does not give back the file",
            file.display()
        );
        if node {
            let out = Command::new("node").arg("--check").arg(file).output().unwrap();
            assert!(
                out.status.success(),
                "node --check rejects {}: {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// A line break ends a statement only where the next token could not continue it (§12.10):
/// these continue it into something invalid, which node rejects and the grammar must reject too
/// (rather than read two statements, which is what it would then also generate).
#[test]
fn no_semicolon_is_inserted_where_the_next_line_continues_the_statement() {
    let g = Grammar::load("js").unwrap();
    let parser = Parser::new(&g);
    let continued: &[&str] = &[
        "let a = b\n(c) => c\n",
        "x = y\n[...z]\n",
        "x = y\n[]\n",
        "a = b\n/c d/g.test(e)\n",
        "a?.b\n`c`\n",
        "const f = g\n(h) => h\n",
        "class A {\n  x = 1\n  [y] () {}\n}\n",
        "class A {\n  x = 1\n  *g () {}\n}\n",
        "a = 1 b = 2\n",
        "return\n",
    ];
    let node = node_available();
    for src in continued {
        assert!(parser.parse(src.as_bytes()).is_err(), "the grammar accepts {src:?}");
        if node {
            let out = Command::new("node")
                .args(["-e", "new (require('vm').Script)(process.argv[1])", src])
                .output()
                .unwrap();
            assert!(
                !out.status.success(),
                "node accepts {src:?}, so this case tests nothing"
            );
        }
    }
    // And where the next token cannot continue the statement, a line break ends it.
    for src in [
        "a = b\n++c\n",
        "const f = () => {}\n[1].map(f)\n",
        "x = y\nlet z\n",
        "if (a) b\nelse c\n",
    ] {
        assert!(parser.parse(src.as_bytes()).is_ok(), "the grammar rejects {src:?}");
        if node {
            let out = Command::new("node")
                .args(["-e", "new (require('vm').Script)(process.argv[1])", src])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "node rejects {src:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}
