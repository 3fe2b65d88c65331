//! `hellfuzz reduce` without a grammar: GTR* on the generic tree of a TOML file, with filters
//! learned from `--samples`, through a real command as oracle.

use std::process::Command;

#[test]
fn reduce_without_a_grammar_uses_the_generic_tree_and_learns_from_samples() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crash.toml");
    std::fs::write(
        &input,
        "[package]\nname = \"demo\"\nversion = \"0.3.1\"\n\n[dependencies]\nserde = { version = \"1.0\", \
         features = [\"derive\"] }\nrand = \"0.8\"\n\n[profile.release]\nlto = true\n",
    )
    .unwrap();
    let samples = dir.path().join("samples");
    std::fs::create_dir(&samples).unwrap();
    std::fs::write(
        samples.join("a.toml"),
        "[package]\nname = \"a\"\n\n[dependencies]\nlog = \"0.4\"\n",
    )
    .unwrap();
    std::fs::write(samples.join("b.toml"), "[workspace]\nmembers = [\"a\", \"b\"]\n").unwrap();
    // Fails when an inline table holds an array (both on one line).
    let cmd = "sh -c 'grep -q \"{.*\\[.*\\].*}\" \"$1\" && exit 101; exit 0' sh @@";
    let out = Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
        .args([
            "reduce",
            input.to_str().unwrap(),
            "--cmd",
            cmd,
            "--exit-code",
            "101",
            "--json",
        ])
        .args(["--samples", samples.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("learned generic-tree filters from 2 samples"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note: no grammar given: reduced with gtr* on a generic tree"),
        "{stderr}"
    );
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["input"], "{[]}");
    assert_eq!(std::fs::read(dir.path().join("crash.toml.reduced")).unwrap(), b"{[]}");
}

/// What a fuzzer finds when a parser overflows its stack: nesting 100,000 deep, in brackets and
/// in indentation. Reduced without a grammar, without overflowing our own stack (the generic
/// tree nests at most 200 groups or blocks deep), and by halves rather than one oracle run per
/// level of nesting.
#[test]
fn inputs_nested_a_hundred_thousand_deep_reduce_by_halves() {
    use hellfuzz::oracle::Outcome;
    use hellfuzz::reduce::{reduce, ReduceOptions};
    let brackets = format!("{}x{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes();
    let indented: Vec<u8> = (0..3_000)
        .flat_map(|i| format!("{}y\n", " ".repeat(i)).into_bytes())
        .collect();
    for (input, needle) in [(brackets, b"[[[[[" as &[u8]), (indented, b"   y")] {
        let fails = |c: &[u8]| {
            if c.windows(needle.len()).any(|w| w == needle) {
                Outcome::Fail
            } else {
                Outcome::Pass
            }
        };
        let result = reduce(&input, None, &fails, &ReduceOptions::default()).unwrap();
        assert!(fails(&result.input) == Outcome::Fail);
        assert_eq!(
            result.input.len(),
            needle.len(),
            "{:?}",
            String::from_utf8_lossy(&result.input)
        );
        assert!(
            result.stats.oracle_calls < 2_000,
            "{} oracle runs for {} bytes",
            result.stats.oracle_calls,
            input.len()
        );
    }
}
