//! The command line: exit statuses, messages with file:line:col, and no panic traces.

use std::process::{Command, Output};

fn hellfuzz(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hellfuzz"));
    cmd.args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
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
    assert!(stdout.contains("<builtin:json>: ok, 16 rules"), "{stdout}");
    let samples = hellfuzz::grammar::builtin::samples("json").len();
    assert!(
        stdout.contains(&format!("samples: {samples} of {samples} parse and unparse exactly")),
        "{stdout}"
    );
    // The verdict first; the rule table only with --rules, after it (issue 41, item 8.10).
    assert!(!stdout.lines().any(|l| l.starts_with("value ")), "{stdout}");
    assert!(stdout.contains("`--rules` prints"), "{stdout}");
    let out = hellfuzz(&["check", "json", "--rules"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let verdict = lines.iter().position(|l| l.starts_with("samples: ")).unwrap();
    let value = lines
        .iter()
        .position(|l| l.starts_with("value ") && l.contains("object array string number"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(lines[0].contains(": ok, ") && verdict < value, "{stdout}");
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
    assert!(
        stderr.contains(&format!("{}:1:8: error: bad escape `\\q`", path.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}:2:6: error: bad range", path.display())),
        "{stderr}"
    );
    assert!(stderr.contains("error: grammar"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn unknown_grammar_and_unreadable_file_are_errors() {
    let out = hellfuzz(&["check", "/no/such/file.grammar"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("not a built-in grammar (built-ins: css, expr, glsl, js, json, sql, toml)"),
        "{}",
        text(&out.stderr)
    );
    let out = hellfuzz(&["parse", "json", "/no/such/input.json"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("cannot read /no/such/input.json"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn parse_prints_a_tree_or_a_located_error() {
    let out = hellfuzz(&["parse", "expr", "-"], Some(b"1 + (2 * 3)"));
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("start\n  ws [0 items]\n  expr (alt 2)\n"),
        "{stdout}"
    );

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

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hellfuzz-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn gen_writes_a_libfuzzer_corpus_and_skips_duplicates() {
    let dir = temp_dir("gen");
    let corpus = dir.join("corpus");
    let args = [
        "gen",
        "json",
        "--invert",
        "--count",
        "300",
        "--seed",
        "5",
        "--out",
        corpus.to_str().unwrap(),
    ];
    let out = hellfuzz(&args, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("generated 300 inputs (inverted, seed 5): 300 distinct, 0 duplicates skipped"),
        "{stderr}"
    );
    let files: Vec<_> = std::fs::read_dir(&corpus).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 300);
    for f in &files {
        // Named by the SHA-1 of the content, as libFuzzer names corpus files.
        let bytes = std::fs::read(f).unwrap();
        assert_eq!(
            f.file_name().unwrap().to_str().unwrap(),
            sha1_smol::Sha1::from(&bytes).digest().to_string()
        );
    }
    // The same seed again: every input is already there.
    let out = hellfuzz(&args, None);
    assert!(
        text(&out.stderr).contains("0 distinct, 300 duplicates skipped"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn gen_to_stdout_separates_inputs() {
    let out = hellfuzz(&["gen", "expr", "--count", "20", "--nul", "--max-size", "50"], None);
    assert!(out.status.success());
    let inputs: Vec<&[u8]> = out.stdout.split(|&b| b == 0).filter(|s| !s.is_empty()).collect();
    assert!(!inputs.is_empty() && inputs.iter().all(|i| i.len() <= 50));
    let g = hellfuzz::grammar::Grammar::load("expr").unwrap();
    let parser = hellfuzz::parse::Parser::new(&g);
    assert!(inputs.iter().all(|i| parser.parse(i).is_ok()));
}

#[test]
fn mine_writes_a_model_that_gen_uses_and_shows_probabilities() {
    let dir = temp_dir("mine");
    let samples = dir.join("samples");
    std::fs::create_dir_all(&samples).unwrap();
    std::fs::write(samples.join("a.expr"), "1 + (2 * 3)").unwrap();
    std::fs::write(samples.join("broken.expr"), "1 + + ").unwrap();
    let model = dir.join("model.json");
    let out = hellfuzz(
        &[
            "mine",
            "expr",
            "--samples",
            samples.to_str().unwrap(),
            "-o",
            model.to_str().unwrap(),
            "--show",
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("broken.expr:1:7: does not parse"), "{stderr}");
    assert!(stderr.contains("mined 1 of 2 samples (1 skipped)"), "{stderr}");
    assert!(
        text(&out.stdout).contains(r#"digit = 0% "0" | 33.3% "1" | 33.3% "2" | 33.3% "3" | 0% "4""#),
        "{}",
        text(&out.stdout)
    );
    // The older spelling, samples without --samples, still works and mines the same; both
    // spellings together add up; without samples clap refuses the command.
    let old = hellfuzz(&["mine", "expr", samples.to_str().unwrap(), "--show"], None);
    assert!(old.status.success(), "{}", text(&old.stderr));
    assert_eq!(text(&old.stdout), text(&out.stdout));
    let (a, broken) = (samples.join("a.expr"), samples.join("broken.expr"));
    let both = hellfuzz(
        &[
            "mine",
            "expr",
            "--samples",
            a.to_str().unwrap(),
            broken.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        text(&both.stderr).contains("mined 1 of 2 samples (1 skipped)"),
        "{}",
        text(&both.stderr)
    );
    let none = hellfuzz(&["mine", "expr", "--show"], None);
    assert_eq!(none.status.code(), Some(2), "{}", text(&none.stderr));
    assert!(text(&none.stderr).contains("--samples"), "{}", text(&none.stderr));
    let out = hellfuzz(
        &["gen", "expr", "--model", model.to_str().unwrap(), "--count", "10"],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // More of the same from `1 + (2 * 3)`: only the digits 1, 2 and 3 appear.
    assert!(
        out.stdout
            .iter()
            .filter(|b| b.is_ascii_digit())
            .all(|b| b"123".contains(b)),
        "{}",
        text(&out.stdout)
    );
    // A model mined with another grammar is refused with a clear message.
    let out = hellfuzz(
        &["gen", "json", "--model", model.to_str().unwrap(), "--count", "1"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("the model was mined with another grammar (<builtin:expr>)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn dict_lists_the_literals() {
    let out = hellfuzz(&["dict", "json"], None);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    for entry in ["\"true\"", "\"null\"", "\"{\"", "\"\\\"\"", "\"\\\\u\""] {
        assert!(stdout.lines().any(|l| l == entry), "{entry} in\n{stdout}");
    }
}

#[test]
fn reduce_with_a_command_writes_the_minimized_input() {
    let dir = temp_dir("reduce");
    let input = dir.join("crash.js");
    std::fs::write(&input, "for (var i = 0; i < 10; i++) {\n  if (cond1 || cond2) {\n    partOfBug();\n  }\n  if (cond3) {\n    otherPartOfBug();\n  }\n}\n").unwrap();
    let cmd = "sh -c 'grep -q \"partOfBug()\" \"$1\" && grep -q \"otherPartOfBug()\" \"$1\" && exit 101; exit 0' sh @@";
    let out = hellfuzz(
        &[
            "reduce",
            input.to_str().unwrap(),
            "--grammar",
            "js",
            "--cmd",
            cmd,
            "--exit-code",
            "101",
            "--json",
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // GTR* leaves `partOfBug();otherPartOfBug();`; this oracle does not need valid JavaScript,
    // so the final ddmin pass over characters drops the semicolons too.
    assert_eq!(record["input"], "partOfBug()otherPartOfBug()");
    assert_eq!(record["original_size"], 119);
    assert_eq!(record["confirmed"], true);
    assert!(record["oracle_calls"].as_u64().unwrap() > 0 && record["time_secs"].as_f64().unwrap() > 0.0);
    let reduced = dir.join("crash.js.reduced");
    assert_eq!(std::fs::read(&reduced).unwrap(), b"partOfBug()otherPartOfBug()");
    // The original is never touched.
    assert_eq!(std::fs::read(&input).unwrap().len(), 119);
    assert!(text(&out.stderr).contains("reduced"), "{}", text(&out.stderr));
}

#[test]
fn reduce_refuses_an_input_that_does_not_fail() {
    let dir = temp_dir("reduce-pass");
    let input = dir.join("fine.json");
    std::fs::write(&input, "[1, 2]").unwrap();
    let out = hellfuzz(
        &[
            "reduce",
            input.to_str().unwrap(),
            "--grammar",
            "json",
            "--cmd",
            "true @@",
            "--exit-code",
            "3",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("the original input does not fail the test"),
        "{}",
        text(&out.stderr)
    );
    let out = hellfuzz(
        &["reduce", input.to_str().unwrap(), "--cmd", "true", "--algo", "magic"],
        None,
    );
    // Refused by clap before any run, with the names it takes.
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("invalid value 'magic' for '--algo <ALGO>'")
            && text(&out.stderr).contains("[possible values: gtr*, gtr, hdd*, hdd, ddmin]"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn bad_limits_are_usage_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "[[1]]").unwrap();
    let input = input.to_str().unwrap();
    let dirs = dir.path().to_str().unwrap();
    for (command, option) in [
        (&["reduce", input, "--cmd", "false"][..], "--timeout"),
        (&["reduce", input, "--cmd", "false"], "--max-time"),
        (&["repair", input, "--cmd", "true"], "--timeout"),
        (&["repair", input, "--cmd", "true"], "--max-time"),
        (&["triage", dirs, "--harness", "/bin/true"], "--timeout"),
        (&["triage", dirs, "--harness", "/bin/true"], "--minimize-time"),
    ] {
        for value in ["-1", "-0", "nan", "inf", "1e300", "18446744073709551615", "0", "x"] {
            // Both spellings: `--timeout -1` once read -1 as a flag.
            for args in [
                vec![format!("{option}={value}")],
                vec![option.to_string(), value.to_string()],
            ] {
                let mut all: Vec<&str> = command.to_vec();
                all.extend(args.iter().map(String::as_str));
                let out = hellfuzz(&all, None);
                let stderr = text(&out.stderr);
                assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
                assert!(stderr.contains(&format!("'{value}'")), "{all:?}: {stderr}");
                assert!(!stderr.contains("panicked"), "{all:?}: {stderr}");
            }
        }
    }
    for count in ["0", "-3"] {
        let out = hellfuzz(&["reduce", input, "--cmd", "false", "-j", count], None);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        let out = hellfuzz(&["reduce", input, "--cmd", "false", "--max-tests", count], None);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    }
    // Negative numbers are values that are refused, not flags (clap's tip `use -- -5` misled).
    for (option, value, says) in [
        ("--count", "-5", "not a count"),
        ("--count", "0", "at least 1"),
        ("--max-size", "-1", "not a size"),
        ("--max-size", "0", "at least 1 byte"),
        ("--max-size", "100000000", "64 MiB"),
        ("--min-size", "-1", "not a size"),
        ("--seed", "-1", "not a seed"),
    ] {
        let out = hellfuzz(&["gen", "json", option, value], None);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{option} {value}: {stderr}");
        assert!(stderr.contains(says), "{option} {value}: {stderr}");
        assert!(!stderr.contains("-- "), "{option} {value}: {stderr}");
    }
    for code in ["256", "-1"] {
        let out = hellfuzz(&["reduce", input, "--cmd", "false", "--exit-code", code], None);
        assert_eq!(out.status.code(), Some(2), "--exit-code {code}: {}", text(&out.stderr));
    }
}

#[test]
fn gen_out_that_is_a_file_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("empty.txt");
    std::fs::write(&file, "").unwrap();
    let out = hellfuzz(&["gen", "json", "--count", "3", "--out", file.to_str().unwrap()], None);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is a file, not a folder"), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), b"");
}

#[test]
fn triage_out_equal_to_or_inside_a_crash_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let night = dir.path().join("night");
    std::fs::create_dir(&night).unwrap();
    std::fs::write(night.join("crash-1"), "x").unwrap();
    let night_s = night.to_str().unwrap();
    for out in [night.clone(), night.join("report")] {
        let out = hellfuzz(
            &[
                "triage",
                night_s,
                "--harness",
                "/bin/true",
                "--out",
                out.to_str().unwrap(),
            ],
            None,
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("outside the crash folders"), "{stderr}");
    }
    let names: Vec<_> = std::fs::read_dir(&night)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["crash-1"], "nothing was written into the crash folder");
}

#[test]
fn mine_refuses_a_fifo_as_a_sample() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("crash-fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = hellfuzz(&["mine", "json", fifo.to_str().unwrap()], None);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
}

#[test]
fn the_input_is_never_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crash.json");
    std::fs::write(&input, "[[1, 2], 3]").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let input_s = input.to_str().unwrap();
    for out in [input_s, link.to_str().unwrap()] {
        for args in [
            &[
                "reduce",
                input_s,
                "--grammar",
                "json",
                "--cmd",
                "grep -q 3 @@",
                "--exit-code",
                "0",
                "-o",
                out,
            ][..],
            &["repair", input_s, "--grammar", "json", "--cmd", "true", "-o", out],
        ] {
            let out = hellfuzz(args, None);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(stderr.contains("is the input file"), "{stderr}");
            assert_eq!(std::fs::read_to_string(&input).unwrap(), "[[1, 2], 3]");
        }
    }
}

/// An output that cannot be written is refused before the first run of the command (the report
/// found `-o` errors only after the whole reduction): a folder, a missing folder, an unwritable one.
#[test]
fn an_unwritable_output_is_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crash.json");
    std::fs::write(&input, "[[1, 2], 3]").unwrap();
    let runs = dir.path().join("runs");
    let cmd = format!("sh -c 'echo run >> {}; grep -q 3 \"$1\"' sh @@", runs.display());
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o500)).unwrap();
    // Root may write anywhere: the unwritable case is checked only where permissions hold.
    let root = tempfile::tempfile_in(&locked).is_ok();
    let cases = [
        (dir.path().to_path_buf(), "is a folder"),
        (dir.path().join("no/such/out"), "does not exist; create it first"),
        (locked.join("out"), "Permission denied"),
    ];
    for (out, message) in cases.iter().filter(|(_, m)| !(root && m.contains("Permission"))) {
        let out = out.to_str().unwrap();
        for args in [
            &[
                "reduce",
                input.to_str().unwrap(),
                "--cmd",
                &cmd,
                "--exit-code",
                "0",
                "-o",
                out,
            ][..],
            &["repair", input.to_str().unwrap(), "--cmd", &cmd, "-o", out],
        ] {
            let result = hellfuzz(args, None);
            let stderr = text(&result.stderr);
            assert_eq!(result.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(
                stderr.contains(message) && !stderr.contains(".hellfuzz-check"),
                "{stderr}"
            );
            assert!(!runs.exists(), "{args:?} ran the command before refusing");
        }
    }
}

#[test]
fn deep_trees_print_in_linear_size_and_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("deep.json");
    let depth = 20_000;
    std::fs::write(&deep, format!("{}{}", "[".repeat(depth), "]".repeat(depth))).unwrap();
    let deep = deep.to_str().unwrap();
    // Whole output: indentation stops at 100 levels, deeper lines carry their depth.
    let out = hellfuzz(&["parse", "json", deep], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines = stdout.lines().count();
    assert!(lines > 5 * depth, "{lines} lines");
    assert!(stdout.len() < 300 * lines, "{} bytes for {lines} lines", stdout.len());
    assert!(
        stdout.contains(&format!("[depth {}] ", depth * 2)),
        "the deepest lines say how deep"
    );
    // A reader that stops after a few bytes (`| head`): exit 0, nothing on stderr.
    for args in [
        &["parse", "json", deep][..],
        &["check", "js"],
        &["dict", "js"],
        &["gen", "json", "--count", "100000"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        use std::io::Read;
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{args:?}: {stderr}"
        );
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

#[test]
fn sigterm_kills_the_running_command_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "hello").unwrap();
    let pidfile = dir.path().join("pid");
    // The command records its pid and hangs, already on the original input (calibration).
    let cmd = format!("sh -c 'echo $$ > {}; exec sleep 1000'", pidfile.display());
    let out_file = dir.path().join("out.txt");
    let (input_s, out_s) = (input.to_str().unwrap(), out_file.to_str().unwrap());
    for command in ["reduce", "repair"] {
        let _ = std::fs::remove_file(&pidfile);
        let stderr = sigterm_after_start(
            &[command, input_s, "--cmd", &cmd, "--timeout", "100", "-o", out_s],
            &pidfile,
        );
        assert!(stderr.contains("interrupted"), "{command}: {stderr}");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "hello");
    }
    // Triage: the harness hangs on the crash file.
    let night = dir.path().join("night");
    std::fs::create_dir(&night).unwrap();
    std::fs::write(night.join("crash-1"), "x").unwrap();
    let harness = dir.path().join("hang.sh");
    std::fs::write(
        &harness,
        format!("#!/bin/sh\necho $$ > {}\nexec sleep 1000\n", pidfile.display()),
    )
    .unwrap();
    std::fs::set_permissions(&harness, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let _ = std::fs::remove_file(&pidfile);
    let out = dir.path().join("report");
    let stderr = sigterm_after_start(
        &[
            "triage",
            night.to_str().unwrap(),
            "--harness",
            harness.to_str().unwrap(),
            "--timeout",
            "100",
        ]
        .into_iter()
        .chain(["--out", out.to_str().unwrap()])
        .collect::<Vec<_>>(),
        &pidfile,
    );
    assert!(stderr.contains("interrupted"), "triage: {stderr}");
    assert_eq!(std::fs::read_to_string(night.join("crash-1")).unwrap(), "x");
}

/// Runs hellfuzz with `args`, waits until the command it runs has written its pid to `pidfile`,
/// sends hellfuzz SIGTERM, and checks that it exits with 130 and that the command is gone.
/// Returns hellfuzz's standard error.
fn sigterm_after_start(args: &[&str], pidfile: &std::path::Path) -> String {
    let child = Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::fs::read_to_string(pidfile).map_or(true, |p| p.trim().is_empty()) {
        assert!(started.elapsed().as_secs() < 60, "{args:?}: the command never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = std::fs::read_to_string(pidfile).unwrap().trim().to_string();
    let kill = |signal: &str, pid: &str| Command::new("kill").args([signal, pid]).status().unwrap().success();
    assert!(kill("-TERM", &child.id().to_string()));
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{args:?}: {stderr}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let alive = kill("-0", &pid);
    if alive {
        kill("-KILL", &pid);
    }
    assert!(!alive, "{args:?}: the command (pid {pid}) outlived hellfuzz");
    stderr
}

#[test]
fn an_interrupted_gen_leaves_complete_files_and_no_temporaries() {
    for signal in ["-INT", "-TERM", "-HUP"] {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus");
        let child = Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
            .args(["gen", "json", "--count", "100000000", "--out", corpus.to_str().unwrap()])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while std::fs::read_dir(&corpus).map_or(0, |d| d.count()) < 20 {
            assert!(started.elapsed().as_secs() < 60, "gen wrote nothing");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap()
            .success());
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{signal}: {stderr}");
        assert!(stderr.contains("interrupted after"), "{stderr}");
        for entry in std::fs::read_dir(&corpus).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(!name.starts_with('.'), "{signal}: temporary file {name} left");
            let sha = sha1_smol::Sha1::from(std::fs::read(&path).unwrap())
                .digest()
                .to_string();
            assert_eq!(name, sha, "{signal}: incomplete file");
        }
    }
}

#[test]
fn samples_are_visited_once_through_links_and_check_takes_files() {
    let dir = tempfile::tempdir().unwrap();
    let samples = dir.path().join("samples");
    std::fs::create_dir_all(samples.join("sub")).unwrap();
    std::fs::write(samples.join("a.json"), "[1]").unwrap();
    std::fs::write(samples.join("sub/b.json"), "{}").unwrap();
    // A link back to the top (a loop) and a second name for a file.
    std::os::unix::fs::symlink(&samples, samples.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink(samples.join("a.json"), samples.join("also-a.json")).unwrap();
    let s = samples.to_str().unwrap();
    let out = hellfuzz(&["check", "json", "--samples", s], None);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("samples: 2 of 2 parse"), "{stdout}");
    // A single file, as other --samples take.
    let a = samples.join("a.json");
    let out = hellfuzz(&["check", "json", "--samples", a.to_str().unwrap()], None);
    assert!(
        text(&out.stdout).contains("samples: 1 of 1 parse"),
        "{}",
        text(&out.stdout)
    );
    // --invert only means something with --show.
    let out = hellfuzz(&["mine", "json", s, "--invert"], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn repair_says_when_its_command_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("order.json");
    std::fs::write(&input, "{\"a\": 1,}").unwrap();
    let out = hellfuzz(
        &["repair", input.to_str().unwrap(), "--cmd", "/no/such/program @@"],
        None,
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot run the command") && stderr.contains("/no/such/program"),
        "{stderr}"
    );
    assert!(text(&out.stdout).is_empty(), "nothing removed is reported");
}

#[test]
fn reduce_refuses_a_command_that_times_out_on_every_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crash.json");
    std::fs::write(&input, "[1, [2, 3]]").unwrap();
    let reduced = dir.path().join("crash.json.reduced");
    let out = hellfuzz(
        &[
            "reduce",
            input.to_str().unwrap(),
            "--cmd",
            "sh -c 'sleep 30' sh @@",
            "--timeout",
            "0.2",
        ],
        None,
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("every run timed out after 0.2 s") && stderr.contains("--timeout"),
        "{stderr}"
    );
    assert!(!stderr.contains("reduced"), "{stderr}");
    assert!(!reduced.exists(), "no 0-byte 'reproducer' is written");
    // A real timeout still reduces: only inputs with SLOW hang.
    std::fs::write(&input, "[1, SLOW]").unwrap();
    let cmd = r#"sh -c 'grep -q SLOW "$1" && sleep 30; exit 0' sh @@"#;
    let out = hellfuzz(
        &["reduce", input.to_str().unwrap(), "--cmd", cmd, "--timeout", "0.2"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&reduced).unwrap(), b"SLOW");
}

/// The planted-bug fuzz target of tests/fixtures/harness/planted_harness.rs, built by cargo (a `[[test]]` target).
fn planted_harness() -> std::path::PathBuf {
    let out = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--test", "planted_harness", "--message-format=json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        // Building a test target builds the crate's binaries too (`hellfuzz`): pick the fixture's.
        .filter(|v| v["target"]["name"] == "planted_harness")
        .find_map(|v| v["executable"].as_str().map(std::path::PathBuf::from))
        .expect("cargo reports the fixture's executable")
}

#[test]
fn reduce_mode_ignores_a_budget_of_no_tests() {
    let dir = tempfile::tempdir().unwrap();
    let crash = dir.path().join("crash-panic");
    std::fs::write(&crash, r#"{"id": 7, "boom": [1, 2, 3]}"#).unwrap();
    let minimized = dir.path().join("min");
    let out = Command::new(planted_harness())
        .env("HELLFUZZ_REDUCE", &crash)
        .env("HELLFUZZ_REDUCE_OUT", &minimized)
        .env("HELLFUZZ_REDUCE_TESTS", "0")
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("ignoring HELLFUZZ_REDUCE_TESTS=\"0\""), "{stderr}");
    assert!(!stderr.contains("does not fail"), "{stderr}");
    let minimized = std::fs::read(&minimized).unwrap();
    assert!(minimized.len() < 28, "{}", text(&minimized));
}

/// Issue 41, item 8.6: a sample the grammar rejects is a warning with the count at the end of
/// `mine` and `gen --samples`, and an error (exit status 1) with the count in `check --samples`.
#[test]
fn samples_that_do_not_parse_are_counted_at_the_end() {
    let dir = temp_dir("skipped");
    let samples = dir.join("samples");
    std::fs::create_dir_all(&samples).unwrap();
    std::fs::write(samples.join("a.expr"), "1 + 2").unwrap();
    std::fs::write(samples.join("b.expr"), "(3 * 4)").unwrap();
    std::fs::write(samples.join("broken.expr"), "1 + (").unwrap();
    let s = samples.to_str().unwrap();
    let model = dir.join("model.json");
    for args in [
        vec!["mine", "expr", "--samples", s, "-o", model.to_str().unwrap()],
        vec!["gen", "expr", "--samples", s, "--count", "5"],
    ] {
        let out = hellfuzz(&args, None);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stderr = text(&out.stderr);
        let last = stderr.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("warning: 1 of 3 samples do not parse and were left out: ")
                && last.contains("broken.expr:1:6"),
            "{args:?}: {stderr}"
        );
    }
    let out = hellfuzz(&["check", "expr", "--samples", s], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("error: 1 of 3 samples do not parse"),
        "{}",
        text(&out.stderr)
    );
}

/// Issue 41, item 8.8: when the grow phase runs and the inputs stay below --min-size on
/// average, the end of the run says so, why and what to do; not when they reach it.
#[test]
fn gen_warns_when_inputs_stay_below_min_size() {
    let dir = temp_dir("min-size");
    let flat = dir.join("flat.grammar");
    std::fs::write(&flat, "list = item* ;\nitem = \"ab\" ;\n").unwrap();
    let out = hellfuzz(
        &[
            "gen",
            flat.to_str().unwrap(),
            "--uniform",
            "--count",
            "50",
            "--min-size",
            "500",
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: the inputs' mean size is")
            && stderr.contains("below --min-size 500: the grammar has no recursive rule"),
        "{stderr}"
    );
    let out = hellfuzz(&["gen", "json", "--invert", "--count", "30", "--min-size", "300"], None);
    assert!(out.status.success());
    assert!(!text(&out.stderr).contains("--min-size"), "{}", text(&out.stderr));
}

/// Issue 41, item 8.11: `--count N` writes N distinct inputs, drawing past duplicates; when the
/// grammar has fewer (within 10 × N draws), the end of the run says how many and why. The same
/// seed again writes nothing new.
#[test]
fn gen_count_is_the_number_of_distinct_inputs() {
    let dir = temp_dir("count");
    let small = dir.join("small.grammar");
    std::fs::write(&small, "s = [a-z] [a-z]? ;\n").unwrap();
    let corpus = dir.join("corpus");
    let args = [
        "gen",
        small.to_str().unwrap(),
        "--uniform",
        "--count",
        "200",
        "--out",
        corpus.to_str().unwrap(),
    ];
    let out = hellfuzz(&args, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_dir(&corpus).unwrap().count(),
        200,
        "{}",
        text(&out.stderr)
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(": 200 distinct, ") && !stderr.contains("warning"),
        "{stderr}"
    );
    let again = hellfuzz(&args, None);
    assert!(
        text(&again.stderr).contains(": 0 distinct, "),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(std::fs::read_dir(&corpus).unwrap().count(), 200);
    // Three inputs in all.
    let three = dir.join("three.grammar");
    std::fs::write(&three, "s = \"a\" | \"b\" | \"c\" ;\n").unwrap();
    let out = hellfuzz(&["gen", three.to_str().unwrap(), "--uniform", "--count", "5"], None);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout).lines().count(), 3);
    assert!(
        text(&out.stderr).contains("warning: only 3 distinct inputs of --count 5: 50 draws"),
        "{}",
        text(&out.stderr)
    );
}

/// `refine` end to end with a real acceptance command (a shell script whose language is
/// known: decimal numbers without a trailing dot), and its refusals: a command that accepts
/// nothing, one that hangs, samples that do not parse.
#[test]
fn refine_tightens_a_grammar_to_what_the_command_accepts_and_refuses_bad_setups() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(
        p("num.grammar"),
        "list = num ( \",\" num )* ;\nnum = [0-9]+ ( \".\" [0-9]* )? ;\n",
    )
    .unwrap();
    std::fs::create_dir(p("samples")).unwrap();
    for (i, s) in ["1,2.5", "10.25,3", "7"].iter().enumerate() {
        std::fs::write(dir.path().join(format!("samples/{i}")), s).unwrap();
    }
    // Accepts comma-separated numbers whose dot, if any, is followed by a digit.
    std::fs::write(
        p("accept.sh"),
        "#!/bin/sh\ngrep -Eqx '[0-9]+(\\.[0-9]+)?(,[0-9]+(\\.[0-9]+)?)*' \"$1\"\n",
    )
    .unwrap();
    let accept = format!("sh {} @@", p("accept.sh"));
    // `refine` of the grammar on the samples with `accept`, written to `out`, and `more`.
    let refine = |accept: &str, out: &str, more: &[&str]| {
        let (grammar, samples, out) = (p("num.grammar"), p("samples"), p(out));
        let mut args = vec![
            "refine",
            &grammar,
            "--samples",
            &samples,
            "--accept",
            accept,
            "-o",
            &out,
        ];
        args.extend_from_slice(more);
        hellfuzz(&args, None)
    };
    let out = refine(&accept, "out.grammar", &["--per-round", "40", "-j", "2"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("round 1: accepted"), "{stderr}");
    let edits = std::fs::read_to_string(p("out.edits")).unwrap();
    assert!(
        edits.contains("at least 1 time(s)") && edits.contains("#   rejected: "),
        "{edits}"
    );
    // The refined grammar parses the samples, and no longer a number ending in its dot.
    let check = hellfuzz(&["check", &p("out.grammar"), "--samples", &p("samples")], None);
    assert!(check.status.success(), "{}", text(&check.stderr));
    std::fs::write(p("dot"), "1.").unwrap();
    assert!(!hellfuzz(&["parse", &p("out.grammar"), &p("dot"), "--quiet"], None)
        .status
        .success());
    // `--max-rounds` stops after that many rounds, whatever is left to edit.
    let out = refine(&accept, "one.grammar", &["--per-round", "40", "--max-rounds", "1"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("round 1: accepted") && !stderr.contains("round 2:") && stderr.contains("in 1 round(s)"),
        "{stderr}"
    );
    // A command that accepts nothing.
    let out = refine("false", "x.grammar", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("rejects every sample"),
        "{}",
        text(&out.stderr)
    );
    // One that hangs is killed at --timeout (every sample then counts as rejected).
    let start = std::time::Instant::now();
    let out = refine("sleep 100", "x.grammar", &["--timeout", "0.3"]);
    assert!(text(&out.stderr).contains("timed out"), "{}", text(&out.stderr));
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    // Samples the grammar does not parse: their locations, and nothing written.
    std::fs::write(dir.path().join("samples/bad"), "1,,2").unwrap();
    let out = refine(&accept, "y.grammar", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("samples/bad:1:3"), "{stderr}");
    assert!(!dir.path().join("y.grammar").exists());
}
