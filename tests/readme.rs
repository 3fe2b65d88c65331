//! The README's example sessions (`$ hellfuzz check json`, `gen`, `mine --show`, `parse`, `dict`)
//! are run as written and their output compared with what the README shows, so that they stay true.
//!
//! A block runs when each of its `$` lines is a `hellfuzz` command that needs nothing but the
//! command itself (check, gen without --keep-if, mine, parse, dict). Timings are not compared, and
//! a `...` line stands for any number of lines.

use std::path::Path;
use std::process::Command;

/// Subcommands whose examples run in an empty folder with nothing else installed.
const RUNNABLE: [&str; 5] = ["check", "gen", "mine", "parse", "dict"];

/// One example session: the commands (`$` lines, continuation lines joined) and the output shown.
struct Example {
    line: usize,
    commands: Vec<String>,
    expected: Vec<String>,
}

/// The fenced blocks of `text` that start with a `$` line.
fn examples(text: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if !line.starts_with("```") {
            continue;
        }
        let block: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| !l.starts_with("```"))
            .collect();
        if !block.first().is_some_and(|l| l.starts_with("$ ")) {
            continue;
        }
        let mut example = Example {
            line: i + 2,
            commands: Vec::new(),
            expected: Vec::new(),
        };
        let mut continued = false;
        for l in block {
            if continued {
                let last = example.commands.last_mut().expect("a command is being continued");
                last.push_str(l.trim_end_matches('\\'));
            } else if let Some(cmd) = l.strip_prefix("$ ") {
                example.commands.push(cmd.trim_end_matches('\\').to_string());
            } else {
                example.expected.push(l.to_string());
                continue;
            }
            continued = l.ends_with('\\');
        }
        found.push(example);
    }
    found
}

/// Whether every command of the example can run here: `hellfuzz <runnable> …`, possibly after
/// an `echo` that feeds it (`echo … | hellfuzz …`, `echo … > f && hellfuzz …`).
fn runnable(example: &Example) -> bool {
    example.commands.iter().all(|cmd| {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let sub = words
            .iter()
            .position(|w| *w == "hellfuzz")
            .and_then(|i| words.get(i + 1));
        (cmd.starts_with("hellfuzz ") || cmd.starts_with("echo "))
            && sub.is_some_and(|s| RUNNABLE.contains(s))
            && !cmd.contains("--keep-if")
    })
}

/// A line with trailing spaces removed and times (`13.1 ms`, `0.2 s`) replaced by `<time>`.
fn normalize(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line.trim_end();
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        out.push_str(&rest[..start]);
        let number = rest[start..]
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map_or(rest.len(), |n| start + n);
        let after = &rest[number..];
        // A unit ends the word: ` ms`, or ` s` before the end, a space or punctuation.
        let unit = [" ms", " s"]
            .into_iter()
            .find(|u| after.starts_with(u) && !after[u.len()..].starts_with(|c: char| c.is_alphanumeric()));
        match unit {
            Some(u) => {
                out.push_str("<time>");
                rest = &after[u.len()..];
            }
            None => {
                out.push_str(&rest[start..number]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether `actual` is `expected` line by line, a `...` line matching any run of lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => (0..=actual.len()).any(|skip| matches(rest, &actual[skip..])),
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| a == e && matches(rest, more)),
    }
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_hellfuzz"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let all = examples(&readme);
    let run: Vec<&Example> = all.iter().filter(|e| runnable(e)).collect();
    // The ones the README is known to show: check json, gen, mine --show, parse.
    assert!(
        run.len() >= 4,
        "only {} runnable examples found in README.md",
        run.len()
    );
    let mut failures = Vec::new();
    for example in run {
        let dir = tempfile::tempdir().unwrap();
        let mut output = Vec::new();
        for cmd in &example.commands {
            // stderr into the same pipe: the lines appear in the order a terminal shows them.
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!("exec 2>&1; {cmd}"))
                .current_dir(dir.path())
                .env("PATH", &path)
                .output()
                .unwrap();
            output.extend_from_slice(&out.stdout);
        }
        let actual: Vec<String> = String::from_utf8_lossy(&output).lines().map(normalize).collect();
        let expected: Vec<String> = example.expected.iter().map(|l| normalize(l)).collect();
        if !matches(&expected, &actual) {
            failures.push(format!(
                "README.md:{}: `{}` printed\n{}\nbut the README shows\n{}",
                example.line,
                example.commands.join("; "),
                actual.join("\n"),
                expected.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn normalize_hides_times_only() {
    assert_eq!(
        normalize("samples: 39 of 39 parse (47753 bytes in 13.1 ms)  "),
        "samples: 39 of 39 parse (47753 bytes in <time>)"
    );
    assert_eq!(normalize("took 0.2 s, 12 runs"), "took <time>, 12 runs");
    assert_eq!(normalize("largest 598; 3 s"), "largest 598; <time>");
    assert_eq!(normalize("1 + 2 sums"), "1 + 2 sums");
}

#[test]
fn dots_match_any_run_of_lines() {
    let lines = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(matches(&lines(&["a", "...", "d"]), &lines(&["a", "b", "c", "d"])));
    assert!(matches(&lines(&["a", "...", "d"]), &lines(&["a", "d"])));
    assert!(!matches(&lines(&["a", "...", "d"]), &lines(&["a", "b", "c"])));
    assert!(!matches(&lines(&["a", "b"]), &lines(&["a", "b", "c"])));
}

/// Issue 41, item 8.9: hellfuzz is not on crates.io, so every dependency line the README shows
/// names a path or a git repository, never a bare version; and the README says what
/// `grammar_file` is relative to, as the macro does (`CARGO_MANIFEST_DIR`).
#[test]
fn dependency_lines_resolve_and_grammar_file_is_explained() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let deps: Vec<&str> = readme
        .lines()
        .filter(|l| l.trim_start().starts_with("hellfuzz = {"))
        .collect();
    assert!(deps.len() >= 3, "{deps:?}");
    for d in &deps {
        assert!(
            (d.contains("path = ") || d.contains("git = ")) && !d.contains("version = "),
            "README.md shows a dependency that does not resolve: {d}"
        );
        assert!(d.contains("default-features = false, features = ["), "{d}");
    }
    assert!(
        readme.contains("`grammar_file = \"path\"` is relative to the fuzz crate's `Cargo.toml`"),
        "the README must say what grammar_file is relative to"
    );
    let macros = std::fs::read_to_string(root.join("src/harness/macros.rs")).unwrap();
    assert!(macros.contains(r#"include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $path))"#));
}
