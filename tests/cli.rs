//! The command line: exit statuses, messages with file:line:col, and no panic traces.

use std::process::{Command, Output};

fn hellfuzz(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hellfuzz"));
    cmd.args(args).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(input) = stdin {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn check_builtin_grammar_parses_its_samples() {
    let out = hellfuzz(&["check", "json"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("<builtin:json>: ok, 15 rules"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("value ") && l.contains("object array string number")), "{stdout}");
    let samples = hellfuzz::grammar::builtin::samples("json").len();
    assert!(stdout.contains(&format!("samples: {samples} of {samples} parse and unparse exactly")), "{stdout}");
}

#[test]
fn check_bad_grammar_reports_every_error_with_position() {
    let dir = std::env::temp_dir().join(format!("hellfuzz-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.grammar");
    std::fs::write(&path, "s = a \"\\q\" ;\nt = [b-a] ;\n").unwrap();
    let out = hellfuzz(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("{}:1:8: error: bad escape `\\q`", path.display())), "{stderr}");
    assert!(stderr.contains(&format!("{}:2:6: error: bad range", path.display())), "{stderr}");
    assert!(stderr.contains("error: grammar"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn unknown_grammar_and_unreadable_file_are_errors() {
    let out = hellfuzz(&["check", "/no/such/file.grammar"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("not a built-in grammar (built-ins: expr"), "{}", text(&out.stderr));
    let out = hellfuzz(&["parse", "json", "/no/such/input.json"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read /no/such/input.json"), "{}", text(&out.stderr));
}

#[test]
fn parse_prints_a_tree_or_a_located_error() {
    let out = hellfuzz(&["parse", "expr", "-"], Some(b"1 + (2 * 3)"));
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("start\n  ws [0 items]\n  expr (alt 2)\n"), "{stdout}");

    let out = hellfuzz(&["parse", "json", "-"], Some(b"{\"a\":\n  tru}"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).trim(),
        "-:2:3: parse error: line 2, column 3 (byte 8): expected one of \"true\", \"false\", \"null\", \"{\", \"[\", \"\\\"\", \"-\", \"0\", [1-9], found `t`"
    );
}

#[test]
fn parse_json_output_is_json() {
    let out = hellfuzz(&["parse", "json", "--json", "-"], Some(b"[1]"));
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["symbol"], "json");
    assert_eq!(v["end"], 3);
}
