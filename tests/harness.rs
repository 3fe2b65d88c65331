//! `hellfuzz reduce --harness` with real harness binaries (tests/fixtures/harness/*_harness.rs, `[[test]]` targets built here by
//! cargo), one per form of `fuzz_target!`: reduce mode for a panic, the subprocess fallback for an
//! abort; a typed (`arbitrary`) input minimized on its bytes; `init:` and `-> Corpus`; the
//! `|data| expr` shorthand; a grammar with a typed input refused at compile time.

use std::path::{Path, PathBuf};
use std::process::Command;

use arbitrary::{Arbitrary, Unstructured};
use rand::{RngCore, SeedableRng};

#[path = "fixtures/stack_machine.rs"]
mod stack_machine;

/// `cargo build --test name`'s JSON messages.
fn build_fixture(name: &str) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--test", name, "--message-format=json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .collect()
}

/// The executable of fixture `name`, built by cargo.
fn fixture(name: &str) -> PathBuf {
    // Building a test target builds the crate's binaries too (`hellfuzz`): pick the fixture's.
    build_fixture(name)
        .iter()
        .filter(|v| v["target"]["name"] == name)
        .find_map(|v| v["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the fixture's executable")
}

fn harness() -> PathBuf {
    fixture("planted_harness")
}

fn reduce(harness: &Path, crash: &Path, out: &Path) -> serde_json::Value {
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
fn run_harness(harness: &Path, file: &Path) -> (bool, String) {
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

/// The file names at the top of `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_artifacts_folder_holds_only_inputs_at_its_top() {
    // cargo-fuzz offers every file at the top of the artifacts folder that a run changed as a
    // "Failing input": a harness reducing a crash there (reduce mode, as `hellfuzz triage` and
    // the deadly-signal path run it) leaves only inputs there, its record in `.hellfuzz/`.
    let harness = harness();
    let dir = tempfile::tempdir().unwrap();
    let crash = dir.path().join("crash-panic");
    let doc = br#"{"id": 7, "boom": [1, 2, 3, 4, 5], "meta": {"x": null}}"#;
    std::fs::write(&crash, doc).unwrap();
    let run = Command::new(&harness)
        .env("HELLFUZZ_REDUCE", &crash)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let top = names(dir.path());
    assert_eq!(top.len(), 3, "{top:?}");
    assert_eq!(top[0], ".hellfuzz");
    assert_eq!(top[1], "crash-panic");
    let minimized = &top[2];
    assert!(
        minimized.starts_with("minimized-") && minimized.len() == "minimized-".len() + 40,
        "{top:?}"
    );
    assert_eq!(names(&dir.path().join(".hellfuzz")), [format!("{minimized}.json")]);
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(".hellfuzz").join(format!("{minimized}.json"))).unwrap())
            .unwrap();
    assert_eq!(record["original"], "crash-panic");
    assert_eq!(&record["minimized"], minimized.as_str());
    let bytes = std::fs::read(dir.path().join(minimized)).unwrap();
    assert_eq!(record["minimized_size"], bytes.len());
    assert!(bytes.len() < doc.len() / 2, "{}", String::from_utf8_lossy(&bytes));
    assert_eq!(std::fs::read(&crash).unwrap(), doc, "the crash file is never modified");
}

/// A crash found the way a fuzzer finds one: random bytes (seeded) whose `Program` hits the bug.
fn typed_crash(len: usize) -> Vec<u8> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20);
    (0..100_000)
        .find_map(|_| {
            let mut bytes = vec![0u8; len];
            rng.fill_bytes(&mut bytes);
            let program = stack_machine::Program::arbitrary_take_rest(Unstructured::new(&bytes)).ok()?;
            stack_machine::crashes(&program).then_some(bytes)
        })
        .expect("random programs reach the bug")
}

#[test]
fn a_typed_input_is_minimized_on_its_bytes_and_its_value_recorded() {
    let harness = fixture("typed_harness");
    let dir = tempfile::tempdir().unwrap();

    // Inputs the target rejects (no value, or an empty program) and a program without the bug
    // run and pass, as under libFuzzer.
    let pass = dir.path().join("pass");
    std::fs::write(&pass, [1u8, 0, 0, 0, 0, 7]).unwrap(); // more: yes, Push(7), more: no
    assert!(!run_harness(&harness, &pass).0);
    std::fs::write(&pass, b"").unwrap();
    assert!(!run_harness(&harness, &pass).0);

    let crash = dir.path().join("crash-typed");
    let bytes = typed_crash(300);
    std::fs::write(&crash, &bytes).unwrap();
    let (killed, stderr) = run_harness(&harness, &crash);
    assert!(killed && stderr.contains("stack_machine.rs"), "{stderr}");
    assert!(!stderr.contains("init ran"), "{stderr}");

    let out = dir.path().join("min-typed");
    let record = reduce(&harness, &crash, &out);
    assert_eq!(record["method"], "ReduceMode");
    assert!(record["signature"]["location"]
        .as_str()
        .unwrap()
        .contains("stack_machine.rs"));
    let minimized = std::fs::read(&out).unwrap();
    assert!(minimized.len() < bytes.len() / 4, "{minimized:?}");
    // The minimized bytes build a program that still hits the bug, and crash the harness there.
    let program = stack_machine::Program::arbitrary_take_rest(Unstructured::new(&minimized)).unwrap();
    assert!(stack_machine::crashes(&program), "{program:?}");
    assert!(program.ops.len() <= 6, "{program:?}");
    let (killed, stderr) = run_harness(&harness, &out);
    let location = record["signature"]["location"].as_str().unwrap();
    assert!(killed && stderr.contains(location), "{stderr}");
    // The record shows the value, as `cargo fuzz fmt` would.
    let json_path = format!("{}.json", out.display());
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(json_path).unwrap()).unwrap();
    assert_eq!(json["minimized_value"].as_str().unwrap(), format!("{program:#?}"));
    assert_eq!(json["minimized_size"], minimized.len());
    assert_eq!(
        std::fs::read(&crash).unwrap(),
        bytes,
        "the crash file is never modified"
    );
}

#[test]
fn init_runs_once_and_rejected_candidates_never_fail() {
    let harness = fixture("corpus_harness");
    let dir = tempfile::tempdir().unwrap();

    // The bug without `"v"`: rejected before it is reached, so no crash.
    let rejected = dir.path().join("rejected");
    std::fs::write(&rejected, br#"{"boom": [1, 2, 3]}"#).unwrap();
    let (killed, stderr) = run_harness(&harness, &rejected);
    assert!(!killed, "{stderr}");

    let crash = dir.path().join("crash-corpus");
    let doc = br#"{"name": "x", "v": 2, "list": [1, 2, {"deep": true}], "boom": [10, 20, 30, 40], "z": null}"#;
    std::fs::write(&crash, doc).unwrap();
    let out = dir.path().join("min-corpus");
    let record = reduce(&harness, &crash, &out);
    assert_eq!(record["method"], "ReduceMode");
    assert_eq!(record["algorithm"], "gtr*");
    assert!(
        record["signature"]["message"]
            .as_str()
            .unwrap()
            .contains("index out of bounds"),
        "init ran once in reduce mode: {record}"
    );
    let minimized = std::fs::read(&out).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&minimized).expect("still JSON (the grammar)");
    // Without `"v"` a candidate is rejected, which is not the crash.
    assert!(
        value.get("v").is_some() && value["boom"].as_array().unwrap().len() == 3,
        "{value}"
    );
    assert!(minimized.len() <= 24, "{}", String::from_utf8_lossy(&minimized));
    assert!(run_harness(&harness, &out).0, "the minimized input still crashes");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{}.json", out.display())).unwrap()).unwrap();
    assert!(
        json.get("minimized_value").is_none(),
        "bytes have no typed value: {json}"
    );
}

#[test]
fn the_shorthand_form_runs_and_reduces() {
    let harness = fixture("shorthand_harness");
    let dir = tempfile::tempdir().unwrap();
    let crash = dir.path().join("crash-short");
    std::fs::write(&crash, b"a line with a bug in the middle of it").unwrap();
    let (killed, stderr) = run_harness(&harness, &crash);
    assert!(killed && stderr.contains("bug at byte"), "{stderr}");
    let out = dir.path().join("min-short");
    reduce(&harness, &crash, &out);
    assert_eq!(std::fs::read(&out).unwrap(), b"bug");
}

#[test]
fn a_grammar_with_a_typed_input_is_refused_at_compile_time() {
    // Compiles a target against the hellfuzz and arbitrary that cargo built for typed_harness.
    let messages = build_fixture("typed_harness");
    let rlib = |name: &str| -> PathBuf {
        messages
            .iter()
            .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
            .flat_map(|m| m["filenames"].as_array().cloned().unwrap_or_default())
            .filter_map(|f| f.as_str().map(PathBuf::from))
            .find(|f| f.extension().is_some_and(|e| e == "rlib"))
            .unwrap_or_else(|| panic!("cargo built no {name} rlib"))
    };
    let (hellfuzz, arbitrary) = (rlib("hellfuzz"), rlib("arbitrary"));
    let deps = arbitrary.parent().unwrap().to_path_buf();
    let dir = tempfile::tempdir().unwrap();
    let compile = |grammar: &str| {
        let source = dir.path().join("target.rs");
        std::fs::write(
            &source,
            format!(
                "#[derive(Debug, arbitrary::Arbitrary)]\nstruct Point {{ x: u8, y: u8 }}\n\
                 hellfuzz::fuzz_target!({grammar}|point: Point| {{ let _ = (point.x, point.y); }});\n"
            ),
        )
        .unwrap();
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
        Command::new(rustc)
            .args([
                "--edition",
                "2021",
                "--crate-type",
                "bin",
                "--emit",
                "metadata",
                "--out-dir",
            ])
            .arg(dir.path())
            .arg(&source)
            .arg("--extern")
            .arg(format!("hellfuzz={}", hellfuzz.display()))
            .arg("--extern")
            .arg(format!("arbitrary={}", arbitrary.display()))
            .arg("-L")
            .arg(format!("dependency={}", deps.display()))
            .output()
            .unwrap()
    };
    let typed = compile("");
    assert!(typed.status.success(), "{}", String::from_utf8_lossy(&typed.stderr));
    let refused = compile("grammar = \"json\", ");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("a grammar describes the input bytes, but this target takes a typed input (`Point`)"),
        "{stderr}"
    );
}
