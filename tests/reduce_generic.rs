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
