//! `hellfuzz repair` end to end: the subject is hellfuzz itself (`parse json --quiet @@` exits 0
//! iff the input is JSON by the built-in grammar), so the test needs no other program.

use std::process::{Command, Output};

fn hellfuzz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
        .args(args)
        .output()
        .unwrap()
}

fn subject() -> String {
    format!("'{}' parse json --quiet @@", env!("CARGO_BIN_EXE_hellfuzz"))
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hellfuzz-repair-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn repair_writes_the_repaired_input_and_prints_the_diagnosis() {
    let dir = temp_dir("fig1");
    let input = dir.join("order.json");
    std::fs::write(&input, br#"{"item": "Apple", "price": **3.45}"#).unwrap();
    let out = hellfuzz(&[
        "repair",
        input.to_str().unwrap(),
        "--grammar",
        "json",
        "--cmd",
        &subject(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read(dir.join("order.json.repaired")).unwrap(),
        br#"{"item": "Apple", "price": 3.45}"#
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "removed offset 27 length 2: \"**\"\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("syntactic ddmax"));
    // The original is never modified.
    assert_eq!(std::fs::read(&input).unwrap(), br#"{"item": "Apple", "price": **3.45}"#);
}

#[test]
fn repair_json_record_for_the_missing_colon() {
    let dir = temp_dir("fig9");
    let input = dir.join("order.json");
    let fixed = dir.join("fixed.json");
    std::fs::write(&input, br#"{"item": "Apple", "price" 3.45}"#).unwrap();
    let args = [
        "repair",
        input.to_str().unwrap(),
        "-g",
        "json",
        "--cmd",
        &subject(),
        "--json",
        "-o",
        fixed.to_str().unwrap(),
        "-j",
        "2",
    ];
    // By default the grammar's expected `:` is inserted.
    let out = hellfuzz(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["mode"], "syntactic");
    assert_eq!(record["repaired"], true);
    assert_eq!(record["input"], r#"{"item": "Apple", "price": 3.45}"#);
    assert_eq!(record["removed"], serde_json::json!([]));
    assert_eq!(record["inserted"], serde_json::json!([{"offset": 25, "bytes": ":"}]));
    assert_eq!(std::fs::read(&fixed).unwrap(), br#"{"item": "Apple", "price": 3.45}"#);
    // --no-insert: the paper's repair (Fig. 10), a subsequence of the input.
    let out = hellfuzz(&[&args[..], &["--no-insert"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["input"], r#"{"item": "Apple"}"#);
    assert_eq!(record["removed"][0]["offset"], 16);
    assert_eq!(record["removed"][0]["bytes"], r#", "price" 3.45"#);
    assert_eq!(record["inserted"], serde_json::json!([]));
    assert_eq!(std::fs::read(&fixed).unwrap(), br#"{"item": "Apple"}"#);
}

#[test]
fn repair_inserts_what_the_grammar_expects_and_says_so() {
    let dir = temp_dir("truncated");
    let input = dir.join("list.json");
    std::fs::write(&input, b"[1, {\"b\": 2").unwrap();
    let out = hellfuzz(&["repair", input.to_str().unwrap(), "-g", "json", "--cmd", &subject()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read(dir.join("list.json.repaired")).unwrap(),
        b"[1, {\"b\": 2}]"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "inserted at offset 11: \"}]\"\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("kept 11 of 11 bytes, removed 0 part(s), inserted 1 part(s)"));
}

#[test]
fn an_unrepairable_input_exits_2_and_writes_nothing() {
    let dir = temp_dir("never");
    let input = dir.join("in.txt");
    std::fs::write(&input, b"abc").unwrap();
    let out = hellfuzz(&["repair", input.to_str().unwrap(), "--lexical", "--cmd", "false"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("could not repair"));
    assert!(!dir.join("in.txt.repaired").exists());
}

#[test]
fn a_command_that_hangs_on_every_input_is_refused_before_the_search() {
    let dir = temp_dir("hangs");
    let input = dir.join("order.json");
    std::fs::write(&input, br#"{"a": 1,}"#).unwrap();
    let started = std::time::Instant::now();
    let out = hellfuzz(&[
        "repair",
        input.to_str().unwrap(),
        "--cmd",
        "sh -c 'sleep 30' sh @@",
        "--timeout",
        "0.2",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("every run timed out after 0.2 s"), "{stderr}");
    assert!(!stderr.contains("could not repair"), "{stderr}");
    assert!(!dir.join("order.json.repaired").exists());
    // Two runs (the input, an empty input), not a search of a run per candidate.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn runs_that_time_out_are_counted_in_the_message() {
    let dir = temp_dir("some-hang");
    let input = dir.join("in.txt");
    std::fs::write(&input, b"ab").unwrap();
    // Hangs on every non-empty input, rejects the empty one at once.
    let cmd = r#"sh -c '[ -s "$1" ] && sleep 30; exit 1' sh @@"#;
    let out = hellfuzz(&["repair", input.to_str().unwrap(), "--cmd", cmd, "--timeout", "0.2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("could not repair") && stderr.contains("3 of them timed out after 0.2 s"),
        "{stderr}"
    );
}

#[test]
fn a_result_that_does_not_hold_on_a_re_run_exits_2() {
    let dir = temp_dir("flaky");
    let input = dir.join("order.json");
    std::fs::write(&input, br#"{"item": "Apple", "price": **3.45}"#).unwrap();
    let state = dir.join("seen");
    std::fs::create_dir_all(&state).unwrap();
    // Processes an input without `*` only the first time it sees it: every candidate of the
    // search is new, so the search repairs; the re-run of its result is rejected.
    let cmd = format!(
        r#"sh -c 'h=$(cksum < "$1" | tr " " _); [ -e "$2/$h" ] && exit 1; touch "$2/$h"; grep -q "[*]" "$1" && exit 1; exit 0' sh @@ '{}'"#,
        state.display()
    );
    let out = hellfuzz(&["repair", input.to_str().unwrap(), "--lexical", "--cmd", &cmd, "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the command is flaky"), "{stderr}");
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&record["repaired"], &record["confirmed"]),
        (&true.into(), &false.into())
    );
    // The result is still written: it is the best found, and the message says it may not hold.
    assert_eq!(
        std::fs::read(dir.join("order.json.repaired")).unwrap(),
        br#"{"item": "Apple", "price": 3.45}"#
    );
    // A command that is not flaky confirms: exit 0.
    std::fs::remove_dir_all(&state).unwrap();
    let steady = r#"sh -c 'grep -q "[*]" "$1" && exit 1; exit 0' sh @@"#;
    let out = hellfuzz(&[
        "repair",
        input.to_str().unwrap(),
        "--lexical",
        "--cmd",
        steady,
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["confirmed"], true);
}
