//! `hellfuzz reduce --harness` with a real harness binary (examples/planted_harness.rs, built here
//! by cargo): reduce mode for a panic, the subprocess fallback for an abort.

use std::path::PathBuf;
use std::process::Command;

fn harness() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "--example",
            "planted_harness",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| v["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the example's executable")
}

fn reduce(harness: &PathBuf, crash: &std::path::Path, out: &std::path::Path) -> serde_json::Value {
    let run = Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
        .arg("reduce")
        .arg("--harness")
        .arg(harness)
        .arg(crash)
        .arg("--out")
        .arg(out)
        .arg("--json")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    serde_json::from_slice(&run.stdout).unwrap()
}

/// Runs the harness on `file`: (killed by a signal?, stderr).
fn run_harness(harness: &PathBuf, file: &std::path::Path) -> (bool, String) {
    let run = Command::new(harness)
        .arg(file)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    (
        run.status.code().is_none(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

#[test]
fn panics_are_reduced_in_the_harness_process_and_aborts_by_subprocess() {
    let harness = harness();
    let dir = tempfile::tempdir().unwrap();

    let crash = dir.path().join("crash-panic");
    let doc = br#"{"id": 7, "tags": ["a", "b"], "boom": [1, 2, 3, 4, 5], "meta": {"x": null}}"#;
    std::fs::write(&crash, doc).unwrap();
    let (killed, stderr) = run_harness(&harness, &crash);
    assert!(killed && stderr.contains("index out of bounds"), "{stderr}");
    let out = dir.path().join("min-panic");
    let record = reduce(&harness, &crash, &out);
    assert_eq!(record["method"], "ReduceMode");
    assert_eq!(record["algorithm"], "gtr*");
    let minimized = std::fs::read(&out).unwrap();
    assert!(
        minimized.len() < doc.len() / 3,
        "{}",
        String::from_utf8_lossy(&minimized)
    );
    let (killed, stderr) = run_harness(&harness, &out);
    let location = record["signature"]["location"].as_str().unwrap();
    assert!(killed && stderr.contains(location), "{stderr}");
    assert_eq!(std::fs::read(&crash).unwrap(), doc, "the crash file is never modified");

    let crash = dir.path().join("crash-abort");
    let doc = br#"{"list": [1, 2, 3], "abort": {"why": "because"}, "tail": "x"}"#;
    std::fs::write(&crash, doc).unwrap();
    let out = dir.path().join("min-abort");
    let record = reduce(&harness, &crash, &out);
    assert_eq!(record["method"], "Subprocess");
    let notes = record["notes"].to_string();
    assert!(notes.contains("killed by signal"), "{notes}");
    let minimized = std::fs::read(&out).unwrap();
    assert!(
        minimized.len() < doc.len() / 2,
        "{}",
        String::from_utf8_lossy(&minimized)
    );
    assert!(serde_json::from_slice::<serde_json::Value>(&minimized)
        .unwrap()
        .get("abort")
        .is_some());
    assert!(run_harness(&harness, &out).0, "the minimized input still aborts");
}
