//! `hellfuzz triage` end to end: a harness with planted bugs (tests/fixtures/triage_harness.rs, built
//! with rustc and debug info), crash folders in libFuzzer and AFL layouts, two nights.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hellfuzz::oracle::normalize_message;
use hellfuzz::triage::{triage, CrashClass, Label, SeverityClass, Status, Triage, TriageOptions};

const KEYWORDS: [&str; 12] = [
    "IDX", "UNWRAP", "OBJ", "ARR", "DIV", "SLICE", "ABORT", "HALT", "DEEP", "OOM", "HANG", "FLAKY",
];

/// The harness, compiled once per test run with debug info (symbolized backtraces).
fn harness() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("triage_harness");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_string());
        let beside = Path::new(&cargo).with_file_name("rustc");
        let rustc = if beside.exists() {
            beside
        } else {
            PathBuf::from("rustc")
        };
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/triage_harness.rs");
        let status = std::process::Command::new(rustc)
            .args(["--edition", "2021", "-g", "-C", "opt-level=0", "-o"])
            .arg(&out)
            .arg(&source)
            .status()
            .expect("rustc runs");
        assert!(status.success(), "building the test harness failed");
        out
    })
}

/// Writes `bytes` to `root/rel`, creating folders.
fn put(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A night's crash folders: several files per bug in libFuzzer and AFL layouts, files that no
/// longer crash, a flaky one, an empty and a huge one, and files that are not crash files.
/// With `hangs`, two files that hang.
fn plant(root: &Path, hangs: bool) {
    let lf = "fuzz/artifacts/parse_doc";
    for (i, text) in [
        "IDX",
        "a IDX b",
        "{ IDX }}}}",
        "UNWRAP 7",
        "[x UNWRAP]",
        "OBJ {",
        "{{ OBJ",
        "ARR [",
        "x ARR",
    ]
    .iter()
    .enumerate()
    {
        put(root, &format!("{lf}/crash-{i:02}"), text.as_bytes());
    }
    put(root, &format!("{lf}/crash-gone-1"), b"nothing to see");
    put(root, &format!("{lf}/crash-gone-2"), b"an old bug, fixed");
    put(root, &format!("{lf}/crash-empty"), b"");
    put(root, &format!("{lf}/crash-flaky"), b"FLAKY!");
    put(root, &format!("{lf}/oom-1"), b"OOM please");
    put(root, &format!("{lf}/crash-deep"), b"DEEP ((((");
    put(root, &format!("{lf}/minimized-0a"), b"ABORT");
    put(root, &format!("{lf}/minimized-0a.json"), b"{\"IDX\": 1}");
    let mut huge = vec![b'a'; 3 << 20];
    huge.extend_from_slice(b" IDX");
    put(root, "fuzz/artifacts/other_target/crash-huge", &huge);
    put(root, "fuzz/corpus/parse_doc/seed-IDX", b"IDX");
    // The same content as an AFL crash below: run once, counted twice.
    put(root, &format!("{lf}/crash-same-as-afl"), b"IDX!");
    let afl = "afl/out/default";
    put(
        root,
        &format!("{afl}/crashes/README.txt"),
        b"Command line used to find these crashes: IDX",
    );
    put(
        root,
        &format!("{afl}/crashes/id:000000,sig:06,src:000001,op:havoc,rep:2"),
        b"ABORT now",
    );
    put(
        root,
        &format!("{afl}/crashes/id:000001,sig:06,src:000003,op:havoc,rep:8"),
        b"~ABORT~",
    );
    put(
        root,
        &format!("{afl}/crashes/id:000002,sig:06,src:000004,op:flip1,pos:3"),
        b"IDX!",
    );
    put(
        root,
        &format!("{afl}/crashes/id:000003,sig:06,src:000004,op:flip1,pos:3"),
        b"OBJ",
    );
    put(root, &format!("{afl}/queue/id:000000,orig:seed"), b"UNWRAP");
    if hangs {
        put(
            root,
            &format!("{afl}/hangs/id:000000,src:000002,op:havoc,rep:4"),
            b"HANG\n",
        );
        put(root, &format!("{lf}/timeout-1"), b"HANG");
    }
}

/// Every file below `root` with its content.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                all.insert(path.clone(), std::fs::read(path).unwrap());
            }
        }
    }
    all
}

/// The planted bug a crash input triggers: its first keyword (as the harness decides).
fn keyword(bytes: &[u8]) -> Option<&'static str> {
    let text = String::from_utf8_lossy(bytes);
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(|w| KEYWORDS.iter().find(|k| **k == w).copied())
}

fn options(out: &Path, state: &Path) -> TriageOptions {
    let mut o = TriageOptions::new(harness());
    o.jobs = 2;
    o.out = out.to_path_buf();
    o.timeout = Duration::from_secs(2);
    o.minimize_time = Some(Duration::from_secs(60));
    o.env = vec![("TRIAGE_HARNESS_STATE".into(), state.display().to_string())];
    o
}

/// The folders of a test under `root`: the night's crashes, the triage output, the state
/// (history) folder, which is created.
fn layout(root: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let state = root.join("state");
    std::fs::create_dir_all(&state).unwrap();
    (root.join("night"), root.join("triage"), state)
}

fn night(n: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_795_305_600 + n * 86_400)
}

/// group keyword → the group.
fn by_keyword(t: &Triage) -> BTreeMap<&'static str, &hellfuzz::triage::Group> {
    let mut map = BTreeMap::new();
    for g in &t.groups {
        let words: BTreeSet<_> = g
            .files
            .iter()
            .map(|f| keyword(&std::fs::read(f).unwrap()).unwrap())
            .collect();
        assert_eq!(words.len(), 1, "group {} mixes bugs: {words:?}", g.id);
        assert!(
            map.insert(*words.first().unwrap(), g).is_none(),
            "two groups for {words:?}"
        );
    }
    map
}

#[test]
fn groups_minimizes_and_reports_one_night() {
    let dir = tempfile::tempdir().unwrap();
    let (night_dir, out, state) = layout(dir.path());
    plant(&night_dir, true);
    let before = snapshot(&night_dir);
    let mut last_done = 0;
    let t = triage(
        std::slice::from_ref(&night_dir),
        &options(&out, &state),
        night(0),
        &mut |p| {
            if let hellfuzz::triage::Progress::Rerun { done, .. } = p {
                last_done = done;
            }
        },
    )
    .unwrap();
    // Crash files are only read.
    assert_eq!(snapshot(&night_dir), before);
    // 9 + 2 gone + empty + flaky + oom + deep + minimized + huge + same + 4 AFL crashes + 2 hangs.
    assert_eq!(t.files.len(), 24);
    assert_eq!(last_done, 24);
    let groups = by_keyword(&t);
    let expected = [
        ("IDX", CrashClass::Panic),
        ("UNWRAP", CrashClass::Panic),
        ("OBJ", CrashClass::Panic),
        ("ARR", CrashClass::Panic),
        ("ABORT", CrashClass::Signal),
        ("DEEP", CrashClass::StackOverflow),
        ("OOM", CrashClass::OutOfMemory),
        ("HANG", CrashClass::Timeout),
        ("FLAKY", CrashClass::Panic),
    ];
    let got: Vec<(&str, CrashClass)> = groups.iter().map(|(k, g)| (*k, g.class)).collect();
    let mut want = expected.to_vec();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(groups["IDX"].files.len(), 6, "numbers in messages do not split a group");
    assert_eq!(groups["ABORT"].files.len(), 3);
    assert_eq!(groups["HANG"].files.len(), 2);
    assert_eq!(groups["FLAKY"].flaky_files, 1);
    // OBJ and ARR panic in one helper with one message: only the deeper frames tell them apart.
    let (obj, arr) = (&groups["OBJ"].signature, &groups["ARR"].signature);
    assert_eq!(obj.location, arr.location);
    assert_eq!(normalize_message(&obj.message), normalize_message(&arr.message));
    assert!(groups["OBJ"].frames.iter().any(|f| f.ends_with("::object")));
    assert!(groups["ARR"].frames.iter().any(|f| f.ends_with("::array")));
    // Statuses of the files that do not crash.
    let status = |name: &str| t.files.iter().find(|f| f.file.path.ends_with(name)).unwrap().status;
    assert_eq!(status("crash-gone-1"), Status::DoesNotReproduce);
    assert_eq!(status("crash-empty"), Status::DoesNotReproduce);
    assert_eq!(status("crash-flaky"), Status::Flaky);
    assert_eq!(status("crash-huge"), Status::Reproduced);
    let same = t
        .files
        .iter()
        .find(|f| f.file.path.ends_with("crash-same-as-afl"))
        .unwrap();
    assert_eq!(same.status, Status::Reproduced);
    assert!(same.note.as_deref().unwrap().starts_with("same content as"));
    assert_eq!(same.crash.as_ref().unwrap().hashes.coarse, groups["IDX"].coarse);
    assert_eq!(t.counts.does_not_reproduce, 3);
    assert!(t
        .groups
        .iter()
        .all(|g| g.label == Label::New && !g.first_seen.is_empty()));
    // Every minimized file crashes again with its group's signature, and is its bug's keyword.
    for (word, g) in &groups {
        let folder = out.join("groups").join(&g.id);
        for name in ["original", "output.log", "group.json"] {
            assert!(folder.join(name).is_file(), "{word}: {name}");
        }
        assert_eq!(
            std::fs::read(folder.join("original")).unwrap(),
            std::fs::read(&g.smallest).unwrap()
        );
        if *word == "FLAKY" {
            assert!(g.minimized.is_none());
            continue;
        }
        let m = g
            .minimized
            .as_ref()
            .unwrap_or_else(|| panic!("{word} not minimized: {:?}", g.notes));
        let bytes = std::fs::read(folder.join("minimized")).unwrap();
        assert_eq!(bytes.len(), m.size);
        assert!(bytes.len() as u64 <= g.smallest_size);
        assert_eq!(keyword(&bytes), Some(*word));
        assert_eq!(bytes, word.as_bytes(), "ddmin keeps just the keyword");
        // Frames as triage gets them (a backtrace, or gdb for the abort and the overflow).
        let mut settings = hellfuzz::triage::MinimizeOptions::default();
        settings.timeout = Duration::from_secs(2);
        settings.reduce_mode = false;
        assert!(
            hellfuzz::triage::reproduces(harness(), &bytes, &g.coarse, &settings),
            "{word}"
        );
    }
    // The reports.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_eq!(md.lines().filter(|l| l.starts_with("| NEW |")).count(), 9);
    assert!(md.contains("crash-gone-2"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["counts"]["groups"], 9);
    assert_eq!(json["groups"].as_array().unwrap().len(), 9);
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 9);
    assert!(results
        .iter()
        .all(|r| r["locations"][0]["physicalLocation"].is_object()));
}

#[test]
fn second_night_labels_known_and_fixed_and_same_folder_gives_same_groups() {
    let dir = tempfile::tempdir().unwrap();
    let (night_dir, out, state) = layout(dir.path());
    plant(&night_dir, false);
    let quick = {
        let mut o = options(&out, &state);
        o.minimize = false;
        o
    };
    let first = triage(std::slice::from_ref(&night_dir), &quick, night(0), &mut |_| {}).unwrap();
    assert_eq!(first.counts.new, 8);
    // The same folder again into another output folder: the same groups, files and verdicts.
    let again = triage(
        std::slice::from_ref(&night_dir),
        &{
            let mut o = quick.clone();
            o.out = dir.path().join("again");
            o
        },
        night(0),
        &mut |_| {},
    )
    .unwrap();
    let summary = |t: &Triage| {
        let groups: Vec<_> = t
            .groups
            .iter()
            .map(|g| (g.id.clone(), g.files.clone(), g.smallest.clone()))
            .collect();
        let files: Vec<_> = t.files.iter().map(|f| (f.file.path.clone(), f.status)).collect();
        (groups, files)
    };
    assert_eq!(summary(&first), summary(&again));
    assert_eq!(
        std::fs::read(out.join("report.md")).unwrap(),
        std::fs::read(dir.path().join("again/report.md")).unwrap()
    );

    // Next night UNWRAP is fixed.
    let fixed_unwrap = {
        let mut o = quick.clone();
        o.env = [
            quick.env.clone(),
            vec![("TRIAGE_HARNESS_FIXED".into(), "UNWRAP".into())],
        ]
        .concat();
        o
    };
    let second = triage(std::slice::from_ref(&night_dir), &fixed_unwrap, night(1), &mut |_| {}).unwrap();
    let unwrap_coarse = &by_keyword(&first)["UNWRAP"].coarse;
    assert_eq!(second.fixed.len(), 1);
    assert_eq!(&second.fixed[0].coarse, unwrap_coarse);
    assert_eq!(second.counts.new, 0);
    assert_eq!(second.counts.known, 7);
    assert!(second.groups.iter().all(|g| g.first_seen == first.groups[0].first_seen));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_eq!(md.lines().filter(|l| l.starts_with("| FIXED |")).count(), 1);
    assert_eq!(md.lines().filter(|l| l.starts_with("| KNOWN |")).count(), 7);
    // The night after, it is back: NEW again, so that --fail-on-new catches the regression.
    let third = triage(std::slice::from_ref(&night_dir), &quick, night(2), &mut |_| {}).unwrap();
    let back = third.groups.iter().find(|g| &g.coarse == unwrap_coarse).unwrap();
    assert_eq!(back.label, Label::New);
    assert_eq!(third.counts.new, 1);
    // Another night's folders lack the IDX files: the group is not fixed, since its kept
    // reproducer (groups/<id>/original) still crashes; with IDX fixed, it is.
    let other = dir.path().join("other-night");
    for (path, bytes) in snapshot(&night_dir) {
        if keyword(&bytes) != Some("IDX") {
            put(&other, path.strip_prefix(&night_dir).unwrap().to_str().unwrap(), &bytes);
        }
    }
    let idx_coarse = &by_keyword(&first)["IDX"].coarse;
    let fourth = triage(std::slice::from_ref(&other), &quick, night(3), &mut |_| {}).unwrap();
    assert!(fourth.fixed.is_empty());
    assert_eq!(fourth.unseen.len(), 1);
    assert_eq!(&fourth.unseen[0].coarse, idx_coarse);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("kept reproducer still crashes"));
    let fixed_idx = {
        let mut o = quick.clone();
        o.env = [quick.env.clone(), vec![("TRIAGE_HARNESS_FIXED".into(), "IDX".into())]].concat();
        o
    };
    let fifth = triage(std::slice::from_ref(&other), &fixed_idx, night(4), &mut |_| {}).unwrap();
    assert_eq!(fifth.fixed.len(), 1);
    assert_eq!(&fifth.fixed[0].coarse, idx_coarse);
    assert!(fifth.unseen.is_empty());
}

#[test]
fn interruption_writes_a_partial_report_and_marks_nothing_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let (night_dir, out, state) = layout(dir.path());
    plant(&night_dir, false);
    let quick = {
        let mut o = options(&out, &state);
        o.minimize = false;
        o.jobs = 1;
        o
    };
    let full = triage(std::slice::from_ref(&night_dir), &quick, night(0), &mut |_| {}).unwrap();
    let cancel = Arc::new(AtomicBool::new(false));
    let interrupted_options = {
        let mut o = quick.clone();
        o.cancel = Some(cancel.clone());
        o
    };
    let partial = triage(
        std::slice::from_ref(&night_dir),
        &interrupted_options,
        night(1),
        &mut |p| {
            if let hellfuzz::triage::Progress::Rerun { done: 3, .. } = p {
                cancel.store(true, Ordering::Relaxed);
            }
        },
    )
    .unwrap();
    assert!(partial.interrupted);
    // Cancelled after 3 files: a run under way then ends as interrupted too.
    assert!(
        partial.counts.interrupted > full.files.len() / 2,
        "{:?}",
        partial.counts
    );
    assert_eq!(
        partial.counts.interrupted
            + partial.counts.reproduced
            + partial.counts.flaky
            + partial.counts.does_not_reproduce,
        full.files.len()
    );
    assert!(partial.fixed.is_empty(), "groups not reached are not fixed");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Interrupted: partial report"));
    let history: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("history.json")).unwrap()).unwrap();
    let groups = history["groups"].as_object().unwrap();
    assert_eq!(groups.len(), full.groups.len());
    assert!(groups.values().all(|g| g["fixed_since"].is_null()));
}

#[test]
fn harness_problems() {
    let dir = tempfile::tempdir().unwrap();
    let night_dir = dir.path().join("night");
    plant(&night_dir, false);
    let out = dir.path().join("out");
    let missing = TriageOptions::new(dir.path().join("no-such-harness"));
    let err = triage(
        std::slice::from_ref(&night_dir),
        &{
            let mut o = missing;
            o.out = out.clone();
            o
        },
        night(0),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(&err, hellfuzz::triage::TriageError::HarnessMissing { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
    assert!(err.to_string().contains("build it first"), "{err}");
    let script = dir.path().join("hangs.sh");
    std::fs::write(&script, "#!/bin/sh\nsleep 30\n").unwrap();
    let not_exec = triage(
        std::slice::from_ref(&night_dir),
        &TriageOptions::new(&script),
        night(0),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(&not_exec, hellfuzz::triage::TriageError::HarnessNotExecutable { path } if *path == script),
        "{not_exec:?}"
    );
    assert!(not_exec.to_string().contains("not executable"), "{not_exec}");
    // A harness that hangs on everything: every file is one timeout group, nothing is lost.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let hanging = {
        let mut o = TriageOptions::new(&script);
        o.out = out.clone();
        o.jobs = 2;
        o.timeout = Duration::from_millis(300);
        o.minimize = false;
        o
    };
    let t = triage(&[night_dir.join("afl")], &hanging, night(0), &mut |_| {}).unwrap();
    assert_eq!(t.groups.len(), 1);
    assert_eq!(t.groups[0].class, CrashClass::Timeout);
    assert_eq!(t.groups[0].files.len(), 4);
    assert!(out.join("report.md").is_file());
}

#[test]
fn cli_fail_on_new_gates_ci() {
    let dir = tempfile::tempdir().unwrap();
    let night_dir = dir.path().join("night");
    plant(&night_dir, false);
    let out = dir.path().join("out");
    let run = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
            .arg("triage")
            .arg(&night_dir)
            .arg("--harness")
            .arg(harness())
            .args(["-j", "2", "--no-minimize", "--fail-on-new", "--out"])
            .arg(&out)
            .env("TRIAGE_HARNESS_STATE", dir.path())
            .output()
            .unwrap()
    };
    let first = run();
    assert_eq!(
        first.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let report = String::from_utf8_lossy(&first.stdout);
    assert_eq!(report.lines().filter(|l| l.starts_with("| NEW |")).count(), 8);
    let second = run();
    assert_eq!(
        second.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(String::from_utf8_lossy(&second.stdout).contains("**0 new**, 8 known, 0 fixed"));
}

#[test]
fn grammar_minimization_uses_gtr_star() {
    let dir = tempfile::tempdir().unwrap();
    let (night_dir, out, state) = layout(dir.path());
    put(
        &night_dir,
        "artifacts/json/crash-1",
        br#"{"name": [1, 2.5, "ARR", {"k": null}], "x": true}"#,
    );
    put(&night_dir, "artifacts/json/crash-2", br#"[{"a": "ARR"}, 12, false]"#);
    let with_grammar = {
        let mut o = options(&out, &state);
        o.grammar = Some(hellfuzz::grammar::Grammar::load("json").unwrap());
        o
    };
    let t = triage(std::slice::from_ref(&night_dir), &with_grammar, night(0), &mut |_| {}).unwrap();
    assert_eq!(t.groups.len(), 1);
    let g = &t.groups[0];
    let m = g.minimized.as_ref().unwrap();
    assert_eq!(
        m.stats.as_ref().unwrap().algorithm,
        hellfuzz::reduce::Algorithm::GtrStar
    );
    assert!(m.confirmed);
    let bytes = std::fs::read(&m.path).unwrap();
    assert!(bytes.len() < 25, "{}", String::from_utf8_lossy(&bytes));
    assert_eq!(keyword(&bytes), Some("ARR"));
}

/// An executable `harness.sh` in `dir` running `body` with sh (the crash file is `$1`).
fn shell_harness(dir: &Path, body: &str) -> PathBuf {
    let harness = dir.join("harness.sh");
    std::fs::write(&harness, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&harness, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    harness
}

/// A crash folder as fuzzers and people leave it: a FIFO (reading it would block for ever) and
/// a file name that is not UTF-8 beside a real crash. The FIFO is skipped, the odd name reported.
#[test]
fn a_fifo_is_skipped_and_a_non_utf8_name_is_reported() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let night = dir.path().join("night");
    std::fs::create_dir(&night).unwrap();
    std::fs::write(night.join("crash-real"), "boom").unwrap();
    std::fs::write(night.join(std::ffi::OsStr::from_bytes(b"crash-\xff\xfe")), "boom").unwrap();
    let fifo = night.join("crash-fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // A file the harness cannot read is an error of its own (exit 2), not "does not crash".
    let harness = shell_harness(
        dir.path(),
        "[ -r \"$1\" ] || exit 2\ngrep -q boom \"$1\" && kill -SEGV $$\nexit 0\n",
    );
    let out = dir.path().join("out");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
        .args([
            "triage",
            night.to_str().unwrap(),
            "--harness",
            harness.to_str().unwrap(),
        ])
        .args(["--timeout", "5", "--minimize-time", "5", "--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed().as_secs() > 60 {
            child.kill().unwrap();
            panic!("triage hangs (on the FIFO?)");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    let report = std::fs::read_to_string(out.join("report.json")).unwrap();
    assert!(report.contains("crash-real"), "{report}");
    assert!(
        report.contains("crash-\u{fffd}\u{fffd}"),
        "the odd name, replaced: {report}"
    );
    assert!(!report.contains("crash-fifo"), "the FIFO was run: {report}");
    // The odd name was run on its own bytes: both files crash alike, in one group.
    let json: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(json["counts"]["groups"], 1, "{report}");
    assert_eq!(json["groups"][0]["files"].as_array().map(Vec::len), Some(2), "{report}");
}

/// Two runs at once on one out folder (two nights' folders triaged in parallel): the second waits
/// for the first, and the history keeps the groups of both (it kept only one run's).
#[test]
fn concurrent_runs_on_one_out_folder_keep_both_histories() {
    let dir = tempfile::tempdir().unwrap();
    let harness = shell_harness(
        dir.path(),
        "sleep 0.5\ngrep -q A \"$1\" && exit 3\ngrep -q B \"$1\" && kill -SEGV $$\nexit 0\n",
    );
    let out = dir.path().join("out");
    let spawn = |name: &str, content: &str| {
        let night = dir.path().join(name);
        std::fs::create_dir(&night).unwrap();
        std::fs::write(night.join("crash-1"), content).unwrap();
        std::process::Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
            .args([
                "triage",
                night.to_str().unwrap(),
                "--harness",
                harness.to_str().unwrap(),
            ])
            .args(["--no-minimize", "--out", out.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn("nightA", "A");
    let b = spawn("nightB", "B");
    for run in [a, b] {
        let result = run.wait_with_output().unwrap();
        assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    }
    let history: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("history.json")).unwrap()).unwrap();
    let groups = history["groups"].as_object().unwrap();
    assert_eq!(groups.len(), 2, "{history}");
}

/// Quick groups, one hang (two files), in libFuzzer layout below `root`.
fn plant_quick_and_hang(root: &Path) {
    let lf = "fuzz/artifacts/parse_doc";
    for (name, text) in [
        ("crash-1", "a IDX b"),
        ("crash-2", "x UNWRAP 7"),
        ("crash-3", "{ OBJ {"),
        ("crash-4", "x ARR ["),
        ("crash-5", "now ABORT"),
        ("timeout-1", "zz HANG zz"),
        ("timeout-2", "HANG!"),
    ] {
        put(root, &format!("{lf}/{name}"), text.as_bytes());
    }
}

/// Row 67 of the newcomer report: an interrupted run had minimized none of 8 groups, the quick
/// ones waiting behind a hang (a timeout group's id sorts first). Cheapest first, an
/// interruption when the hang's turn comes leaves every quick group minimized.
#[test]
fn quick_groups_are_minimized_before_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let (night_dir, out, state) = layout(dir.path());
    plant_quick_and_hang(&night_dir);
    let cancel = Arc::new(AtomicBool::new(false));
    let options = {
        let mut o = options(&out, &state);
        o.timeout = Duration::from_secs(1);
        o.cancel = Some(cancel.clone());
        o
    };
    let mut started = Vec::new();
    let mut done = Vec::new();
    let mut reruns = Vec::new();
    let t = triage(std::slice::from_ref(&night_dir), &options, night(0), &mut |p| match p {
        hellfuzz::triage::Progress::Rerun { done, total, .. } => reruns.push((done, total)),
        hellfuzz::triage::Progress::Minimizing {
            index, total, class, ..
        } => {
            started.push((index, total, class));
            if class == CrashClass::Timeout {
                cancel.store(true, Ordering::Relaxed);
            }
        }
        hellfuzz::triage::Progress::MinimizeDone { index, minimized, .. } => done.push((index, minimized)),
        _ => {}
    })
    .unwrap();
    assert_eq!(reruns.last(), Some(&(7, 7)), "{reruns:?}");
    let groups = by_keyword(&t);
    assert_eq!(groups.len(), 6);
    // The hang comes last; every group is started and done once, in order.
    let classes: Vec<CrashClass> = started.iter().map(|s| s.2).collect();
    assert_eq!(
        classes.iter().position(|c| *c == CrashClass::Timeout),
        Some(5),
        "{classes:?}"
    );
    assert!(started.iter().enumerate().all(|(i, s)| s.0 == i && s.1 == 6));
    assert_eq!(done.iter().map(|d| d.0).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
    assert!(t.interrupted);
    for (word, g) in &groups {
        if *word == "HANG" {
            assert!(g.minimized.is_none());
            assert_eq!(g.not_minimized.as_deref(), Some("interrupted"));
        } else {
            let m = g.minimized.as_ref().unwrap_or_else(|| panic!("{word}: {:?}", g.notes));
            assert_eq!(std::fs::read(&m.path).unwrap(), word.as_bytes());
        }
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let hang_row = md.lines().find(|l| l.starts_with("| NEW | timeout |")).unwrap();
    assert!(hang_row.contains("| — (interrupted) |"), "{hang_row}");
}

/// Row 66: a hang group's minimization first waited for the harness's reduce mode, which runs
/// the input in its own process and so hung for the whole budget plus 30 s. Now it starts with
/// the subprocess oracle, and reports its elapsed time while it runs. (The bound below is on
/// that 30-s wait, far from the run's own few seconds.)
#[test]
fn a_hang_group_takes_its_budget_and_reports_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    let (night_dir, out, state) = layout(dir.path());
    put(&night_dir, "fuzz/artifacts/parse_doc/timeout-1", b"zz HANG zz");
    let options = {
        let mut o = options(&out, &state);
        o.timeout = Duration::from_millis(500);
        o.minimize_time = Some(Duration::from_secs(2));
        o
    };
    let mut steps = Vec::new();
    let mut finished = None;
    let t = triage(std::slice::from_ref(&night_dir), &options, night(0), &mut |p| match p {
        hellfuzz::triage::Progress::MinimizeStep {
            index,
            total,
            id,
            class,
            elapsed,
            ..
        } => steps.push((index, total, id.to_string(), class, elapsed)),
        hellfuzz::triage::Progress::MinimizeDone { elapsed, minimized, .. } => finished = Some((elapsed, minimized)),
        _ => {}
    })
    .unwrap();
    assert_eq!(t.groups.len(), 1);
    let g = &t.groups[0];
    assert_eq!(g.class, CrashClass::Timeout);
    let (elapsed, minimized) = finished.unwrap();
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}: {:?}", g.notes);
    assert!(minimized.is_some_and(|size| size <= 10), "{:?}", g.notes);
    // Steps come while it runs (a quarter of a second apart), naming the group, time going on.
    assert!(steps.len() >= 3, "{steps:?}");
    assert!(steps
        .iter()
        .all(|s| s.0 == 0 && s.1 == 1 && s.2 == g.id && s.3 == CrashClass::Timeout));
    assert!(steps.windows(2).all(|w| w[0].4 < w[1].4));
}

/// Row 75: a group not minimized because of the size limit showed only "—" in the report.
#[test]
fn the_report_says_why_a_group_is_not_minimized() {
    let dir = tempfile::tempdir().unwrap();
    let (night_dir, out, state) = layout(dir.path());
    let mut big = b"IDX ".to_vec();
    big.resize(100, b'.');
    put(&night_dir, "artifacts/crash-big", &big);
    put(&night_dir, "artifacts/crash-flaky", b"FLAKY?");
    let options = {
        let mut o = options(&out, &state);
        o.max_minimize_size = 64;
        o
    };
    let t = triage(std::slice::from_ref(&night_dir), &options, night(0), &mut |_| {}).unwrap();
    let groups = by_keyword(&t);
    assert_eq!(groups["IDX"].not_minimized.as_deref(), Some("over the 64 B limit"));
    assert_eq!(groups["FLAKY"].not_minimized.as_deref(), Some("all files flaky"));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let row = |kind: &str| md.lines().find(|l| l.contains(kind)).unwrap().to_string();
    assert!(
        row("index out of bounds").contains("| 100 B | — (over the 64 B limit) |"),
        "{md}"
    );
    assert!(row("flaky failure").contains("| — (all files flaky) |"), "{md}");
    // group.json keeps the whole reason.
    let json = std::fs::read_to_string(out.join("groups").join(&groups["IDX"].id).join("group.json")).unwrap();
    assert!(json.contains("more than the limit of 64"), "{json}");
}

/// Runs `hellfuzz triage DIRS --harness HARNESS --out DIR/out` with stdout and stderr piped (not
/// a terminal); it must exit 0. Returns stdout and stderr.
fn run_cli_triage(dir: &Path, harness: &Path, dirs: &[&Path]) -> (String, String) {
    let result = std::process::Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
        .arg("triage")
        .args(dirs)
        .arg("--harness")
        .arg(harness)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    assert_eq!(result.status.code(), Some(0), "{stderr}");
    (String::from_utf8_lossy(&result.stdout).into_owned(), stderr)
}

/// A harness for the CLI tests: a file with an A exits 3, one with a B dies of SIGSEGV.
fn a_b_harness(dir: &Path) -> PathBuf {
    shell_harness(
        dir,
        "grep -q A \"$1\" && exit 3\ngrep -q B \"$1\" && kill -SEGV $$\nexit 0\n",
    )
}

/// Row 66: triage printed nothing for minutes. Without a terminal (a CI log), stderr gets plain
/// lines: files found, reruns done, each group minimized.
#[test]
fn cli_shows_progress_lines_without_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let harness = a_b_harness(dir.path());
    let night_dir = dir.path().join("night");
    put(&night_dir, "crash-a", b"xxAxx");
    put(&night_dir, "crash-b", b"yyBy");
    let (report, stderr) = run_cli_triage(dir.path(), &harness, &[&night_dir]);
    assert_eq!(report.lines().filter(|l| l.starts_with("| NEW |")).count(), 2);
    for line in [
        "triage: 2 crash files found",
        "triage: rerun 2 of 2 files, 2 groups so far",
        "triage: group 1 of 2 (",
        "triage: group 2 of 2 (",
    ] {
        assert!(stderr.contains(line), "{line} in {stderr}");
    }
    assert_eq!(stderr.matches("minimized to 1 bytes in").count(), 2, "{stderr}");
}

/// Row 71: `triage emptydir` said "0 crash files" and exited 0 like a quiet night: a mistyped
/// folder went unnoticed in CI. It still exits 0 (no crashes is no failure), with a warning.
#[test]
fn cli_warns_about_folders_without_crash_files() {
    let dir = tempfile::tempdir().unwrap();
    let harness = a_b_harness(dir.path());
    let empty = dir.path().join("emptydir");
    std::fs::create_dir_all(empty.join("fuzz/artifacts/target")).unwrap();
    put(&empty, "fuzz/corpus/target/seed-1", b"A");
    let (report, stderr) = run_cli_triage(dir.path(), &harness, &[&empty]);
    let warning = format!(
        "warning: no crash files found under {}: is the folder right?",
        empty.display()
    );
    assert!(stderr.contains(&warning), "{stderr}");
    assert!(report.contains("**No crash files found under"), "{report}");
    // Two folders, one of them empty: the warning names that one only.
    let night_dir = dir.path().join("night");
    put(&night_dir, "crash-a", b"xxAxx");
    let (report, stderr) = run_cli_triage(dir.path(), &harness, &[&night_dir, &empty]);
    assert!(stderr.contains(&warning), "{stderr}");
    assert!(!stderr.contains(&night_dir.display().to_string()), "{stderr}");
    assert_eq!(report.lines().filter(|l| l.starts_with("| NEW |")).count(), 1);
}

/// Whether gdb runs here (the located-abort test needs it; without it aborts stay unlocated).
fn gdb_available() -> bool {
    hellfuzz::triage::debugger::available()
}

/// Two `abort()` sites in one function (ABORT and HALT, lines apart) were one group: no stack is
/// printed. A debugger run locates each at its line; the report gives the crash line with its
/// source, the frames (report.json, group.json, SARIF stacks and code flows) and the severity.
#[test]
fn abort_sites_are_located_apart_with_crash_line_frames_and_severity() {
    if !gdb_available() {
        eprintln!("gdb is not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (night_dir, out, state) = layout(dir.path());
    let lf = "fuzz/artifacts/t";
    for (i, text) in ["ABORT", "x ABORT", "ABORT!!", "HALT", "HALT now", "DEEP", "IDX"]
        .iter()
        .enumerate()
    {
        put(&night_dir, &format!("{lf}/crash-{i}"), text.as_bytes());
    }
    let quick = {
        let mut o = options(&out, &state);
        o.minimize = false;
        o
    };
    let t = triage(std::slice::from_ref(&night_dir), &quick, night(0), &mut |_| {}).unwrap();
    let groups = by_keyword(&t);
    assert_eq!(groups.len(), 4, "ABORT and HALT apart");
    let (abort, halt) = (groups["ABORT"], groups["HALT"]);
    assert_eq!(abort.files.len(), 3);
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/triage_harness.rs"))
            .unwrap();
    let line_of = |needle: &str| 1 + source.lines().position(|l| l.contains(needle)).unwrap() as u32;
    for (g, line) in [(abort, line_of("\"ABORT\" =>")), (halt, line_of("\"HALT\" =>") + 2)] {
        assert_eq!(g.class, CrashClass::Signal);
        let c = g.crash_line.as_ref().expect("a crash line");
        assert_eq!(c.frame.function, "triage_harness::parse");
        assert_eq!(c.frame.line, Some(line), "{:?}", g.stack);
        assert!(g
            .signature
            .location
            .as_deref()
            .unwrap()
            .ends_with(&format!("triage_harness.rs:{line}")));
        assert_eq!(c.source.len(), 11, "±5 lines");
        assert!(c.source[5].text.contains("abort()"));
        assert_eq!(g.severity.class, SeverityClass::NotExploitable);
        assert_eq!(g.severity.kind, "abort");
    }
    assert_eq!(groups["DEEP"].severity.class, SeverityClass::StackOverflow);
    assert_eq!(
        groups["DEEP"].crash_line.as_ref().unwrap().frame.function,
        "triage_harness::recurse"
    );
    let idx = groups["IDX"];
    assert_eq!(
        idx.crash_line.as_ref().unwrap().frame.function,
        "triage_harness::lookup"
    );
    assert_eq!(idx.stack[1].function, "triage_harness::parse");
    // report.md: the severity column and a section per group with the source.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| not-exploitable (abort) |"), "{md}");
    assert!(md.contains("## Where they crash"));
    assert!(md.contains(&format!(">{} |", line_of("\"ABORT\" =>"))), "{md}");
    // report.json and group.json carry the frames; the SARIF has stacks and code flows.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let g = json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == halt.id.as_str())
        .unwrap();
    assert_eq!(g["stack"][0]["function"], "triage_harness::parse");
    assert_eq!(g["severity"]["class"], "not-exploitable");
    let group_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("groups").join(&halt.id).join("group.json")).unwrap())
            .unwrap();
    assert_eq!(group_json["crash_line"]["line"], line_of("\"HALT\" =>") + 2);
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.sarif")).unwrap()).unwrap();
    let result = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == halt.id.as_str())
        .unwrap();
    let frame = &result["stacks"][0]["frames"][0]["location"];
    assert_eq!(
        frame["physicalLocation"]["region"]["startLine"],
        line_of("\"HALT\" =>") + 2
    );
    assert_eq!(
        frame["logicalLocations"][0]["fullyQualifiedName"],
        "triage_harness::parse"
    );
    let flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .unwrap();
    assert_eq!(
        flow.last().unwrap()["location"]["physicalLocation"]["region"]["startLine"],
        line_of("\"HALT\" =>") + 2,
        "the code flow ends at the crash line"
    );
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        line_of("\"HALT\" =>") + 2
    );
}

/// A harness printing what Rust prints for a panic in a helper reached from two callers (the
/// first word of the file), with its backtrace only under RUST_BACKTRACE=1; every backtrace
/// asked for is logged.
fn two_callers_harness(dir: &Path) -> PathBuf {
    shell_harness(
        dir,
        &format!(
            "caller=$(cut -d' ' -f1 \"$1\")\n\
             [ \"$RUST_BACKTRACE\" = 1 ] && echo \"$1\" >> {}/traced\n\
             printf \"thread 'main' panicked at src/check.rs:3:5:\\ninvariant violated\\n\" >&2\n\
             if [ \"$RUST_BACKTRACE\" = 1 ]; then\n\
             printf 'stack backtrace:\\n   0: p::fail\\n             at ./src/check.rs:3:5\\n   1: p::%s\\n             at ./src/p.rs:9:1\\n' \"$caller\" >&2\n\
             fi\n\
             exit 101\n",
            dir.display()
        ),
    )
}

/// Backtraces cost more than runs: only a few files of one crash site are rerun with one, and
/// the site's other files take their frames, unless the sampled ones disagree (two callers of
/// one helper): then every file gets its own, and the groups are as exact as before.
#[test]
fn backtraces_are_asked_for_a_sample_per_crash_site_unless_frames_disagree() {
    let dir = tempfile::tempdir().unwrap();
    let harness = two_callers_harness(dir.path());
    let night_dir = dir.path().join("night");
    for i in 0..10 {
        put(
            &night_dir,
            &format!("one/crash-{i:02}"),
            format!("object {i}").as_bytes(),
        );
    }
    let run = |folder: &str, out: &str| {
        let _ = std::fs::remove_file(dir.path().join("traced"));
        let options = {
            let mut o = TriageOptions::new(&harness);
            o.jobs = 2;
            o.minimize = false;
            o.out = dir.path().join(out);
            o
        };
        let t = triage(&[night_dir.join(folder)], &options, night(0), &mut |_| {}).unwrap();
        let traced = std::fs::read_to_string(dir.path().join("traced")).unwrap_or_default();
        (t, traced.lines().count())
    };
    let (one, traced) = run("one", "out-one");
    assert_eq!(one.groups.len(), 1);
    assert_eq!(one.groups[0].files.len(), 10);
    assert_eq!(one.groups[0].frames, ["p::fail", "p::object"]);
    assert_eq!(traced, hellfuzz::triage::TRACE_SAMPLE, "one backtrace per sampled file");
    assert!(one.files.iter().all(|f| f.status == Status::Reproduced));
    // Two callers, 5 files each, of one panic site: the sample disagrees, all are traced.
    for i in 0..10 {
        let caller = if i % 2 == 0 { "object" } else { "array" };
        put(
            &night_dir,
            &format!("two/crash-{i:02}"),
            format!("{caller} {i}").as_bytes(),
        );
    }
    let (two, traced) = run("two", "out-two");
    assert_eq!(two.groups.len(), 2);
    assert!(two.groups.iter().all(|g| g.files.len() == 5));
    assert_eq!(traced, 10);
    for g in &two.groups {
        let callers: BTreeSet<String> = g
            .files
            .iter()
            .map(|f| {
                std::fs::read_to_string(f)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(callers.len(), 1, "{:?}", g.files);
    }
}

/// `--fail-on-new=SEVERITY,…` fails only for new groups of those severities; plain
/// `--fail-on-new` for any new group (see `cli_fail_on_new_gates_ci`).
#[test]
fn cli_fail_on_new_by_severity() {
    let dir = tempfile::tempdir().unwrap();
    let night_dir = dir.path().join("night");
    put(&night_dir, "fuzz/artifacts/t/crash-1", b"IDX");
    let run = |flag: &str, out: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
            .arg("triage")
            .arg(&night_dir)
            .arg("--harness")
            .arg(harness())
            .args(["--no-minimize", flag, "--out"])
            .arg(dir.path().join(out))
            .output()
            .unwrap()
    };
    let exploitable = run("--fail-on-new=exploitable,probably-exploitable", "a");
    assert_eq!(
        exploitable.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&exploitable.stderr)
    );
    let any_panic = run("--fail-on-new=not-exploitable", "b");
    assert_eq!(any_panic.status.code(), Some(1));
    let bad = run("--fail-on-new=harmless", "c");
    assert_ne!(bad.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown severity 'harmless'"));
}

#[test]
fn join_stacks_joins_a_panic_that_quotes_the_input_and_keeps_two_callers_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (root, out, state) = layout(dir.path());
    let lf = "fuzz/artifacts/parse_doc";
    // One bug whose message quotes a word of the input: a coarse hash per word.
    for (i, word) in ["alpha", "beta", "gamma", "beta"].iter().enumerate() {
        put(
            &root,
            &format!("{lf}/crash-name-{i}"),
            format!("NAME {word} {i}").as_bytes(),
        );
    }
    // One helper, two callers: near stacks, but not near enough at CASR's threshold.
    put(&root, &format!("{lf}/crash-obj"), b"OBJ {");
    put(&root, &format!("{lf}/crash-arr"), b"x ARR");
    let run = |join: Option<f64>, n: u64| {
        let options = {
            let mut o = options(&out, &state);
            o.minimize = false;
            o.join_stacks = join;
            o
        };
        triage(std::slice::from_ref(&root), &options, night(n), &mut |_| {}).unwrap()
    };
    let apart = run(None, 0);
    assert_eq!(apart.groups.len(), 5, "three words, OBJ, ARR");
    let first_ids: BTreeSet<String> = apart.groups.iter().map(|g| g.id.clone()).collect();
    std::fs::remove_dir_all(&out).unwrap();

    let joined = run(Some(0.3), 0);
    assert_eq!(joined.groups.len(), 3, "{:#?}", joined.groups);
    let names: Vec<_> = joined.groups.iter().filter(|g| g.files.len() == 4).collect();
    assert_eq!(names.len(), 1);
    let name = names[0];
    // The largest member (beta, two files) keeps its id; the other two are listed as joined.
    assert!(name.signature.message.contains("beta"), "{}", name.signature);
    assert!(first_ids.contains(&name.id));
    assert_eq!(name.joined.len(), 2);
    assert!(
        name.notes.iter().any(|n| n.starts_with("joined with group")),
        "{:?}",
        name.notes
    );
    let json = std::fs::read_to_string(out.join("report.json")).unwrap();
    assert!(json.contains("\"joined\""));
    for g in joined.groups.iter().filter(|g| g.files.len() == 1) {
        assert!(g.joined.is_empty());
        let text = std::fs::read_to_string(&g.files[0]).unwrap();
        assert!(text.contains("OBJ") || text.contains("ARR"), "{text}");
    }

    // The next night without the join: the groups that were joined are seen again, none is
    // fixed; with the join again, everything is known.
    let apart_again = run(None, 1);
    assert_eq!(apart_again.counts.fixed, 0);
    let again = run(Some(0.3), 2);
    assert_eq!((again.counts.new, again.counts.known, again.counts.fixed), (0, 3, 0));
}

/// A harness printing what a libFuzzer target built with AddressSanitizer prints (the first word
/// of the file picks the crash): two `abort()` sites, a panic in a helper reached from two
/// callers (libFuzzer's deadly-signal trace after the panic message), and a heap-buffer-overflow
/// (ASan's report with the allocation's stack after the crash's). Like ASan, it symbolizes its
/// stacks (`#N 0x… in function file:line`) unless `ASAN_OPTIONS` has `symbolize=0` (then
/// `#N 0x…  (module+offset) (BuildId: …)`), or always when `FAKE_SYMBOLIZE_ALWAYS` is set. The
/// absolute addresses move with every run, as ASLR moves them. Every symbolized run is logged
/// to `dir/symbolized`.
fn fake_asan_harness(dir: &Path) -> PathBuf {
    shell_harness(
        dir,
        &format!(
            r#"what=$(cut -d' ' -f1 "$1")
case "$ASAN_OPTIONS" in *symbolize=0*) sym=0 ;; *) sym=1 ;; esac
[ -n "$FAKE_SYMBOLIZE_ALWAYS" ] && sym=1
[ $sym = 1 ] && echo "$1" >> {log}
base=$(( 0x550000000000 + ($$ % 4093) * 4096 ))
n=0
frame() {{
  if [ $sym = 1 ]; then
    printf '    #%d 0x%x in %s %s\n' $n $((base + $1)) "$2" "$3" >&2
  else
    printf '    #%d 0x%x  (/fuzz/t+0x%x) (BuildId: 1fce27e7)\n' $n $((base + $1)) $1 >&2
  fi
  n=$((n + 1))
}}
deadly() {{
  printf '==%d== ERROR: libFuzzer: deadly signal\n' $$ >&2
  frame 4096 __sanitizer_print_stack_trace /rustc/llvm/asan_stack.cpp:87:3
  frame 8192 std::process::abort /rustc/x/library/std/src/process.rs:2533:5
}}
bottom() {{
  frame 16384 t::parse /src/t.rs:40:5
  frame 20480 rust_fuzzer_test_input /src/lib.rs:1:1
}}
case $what in
  abort_a|abort_b)
    deadly
    if [ $what = abort_a ]; then frame 12288 t::site_a /src/t.rs:12:9; else frame 12544 t::site_b /src/t.rs:22:9; fi
    bottom
    echo 'SUMMARY: libFuzzer: deadly signal' >&2
    exit 77 ;;
  object|array)
    printf "thread '<unnamed>' panicked at src/check.rs:3:5:\ninvariant violated\n" >&2
    deadly
    frame 9000 core::panicking::panic_fmt /rustc/x/library/core/src/panicking.rs:80:14
    frame 10000 t::fail /src/check.rs:3:5
    if [ $what = object ]; then frame 11000 t::object /src/p.rs:9:1; else frame 11500 t::array /src/p.rs:19:1; fi
    bottom
    echo 'SUMMARY: libFuzzer: deadly signal' >&2
    exit 77 ;;
  overflow)
    printf '==%d==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000013\n' $$ >&2
    echo 'READ of size 1 at 0x602000000013 thread T0' >&2
    frame 14000 t::read /src/t.rs:30:13
    bottom
    printf '0x602000000013 is located 0 bytes after 3-byte region\nallocated by thread T0 here:\n' >&2
    n=0
    frame 24576 malloc /rustc/llvm/asan_malloc_linux.cpp:69:3
    frame 16400 t::parse /src/t.rs:39:5
    if [ $sym = 1 ]; then
      echo 'SUMMARY: AddressSanitizer: heap-buffer-overflow /src/t.rs:30:13 in t::read' >&2
    else
      echo 'SUMMARY: AddressSanitizer: heap-buffer-overflow (/fuzz/t+0x36b0) (BuildId: 1fce27e7) ' >&2
    fi
    exit 1 ;;
esac
exit 0
"#,
            log = dir.join("symbolized").display()
        ),
    )
}

/// Sanitizers symbolize their stacks with llvm-symbolizer, which costs several times the run: the
/// first runs ask for none (`symbolize=0`), and only one file per unsymbolized stack (module
/// offsets, which fix the frames) is rerun symbolized. The groups, their frames, crash lines,
/// messages and logs are those of runs that symbolized every stack.
#[test]
fn unsymbolized_sanitizer_stacks_group_as_symbolized_ones_with_one_symbolized_run_per_stack() {
    let dir = tempfile::tempdir().unwrap();
    let harness = fake_asan_harness(dir.path());
    let night_dir = dir.path().join("night");
    let kinds = ["abort_a", "abort_b", "object", "array", "overflow"];
    for (k, kind) in kinds.iter().enumerate() {
        for i in 0..4 {
            put(
                &night_dir,
                &format!("fuzz/artifacts/t/crash-{k}{i}"),
                format!("{kind} {}", "x".repeat(3 - i)).as_bytes(),
            );
        }
    }
    put(&night_dir, "fuzz/artifacts/t/crash-fine", b"fine");
    let run = |out: &str, env: Vec<(String, String)>| {
        let _ = std::fs::remove_file(dir.path().join("symbolized"));
        let options = {
            let mut o = TriageOptions::new(&harness);
            o.jobs = 2;
            o.minimize = false;
            o.out = dir.path().join(out);
            o.env = env;
            o
        };
        let t = triage(std::slice::from_ref(&night_dir), &options, night(0), &mut |_| {}).unwrap();
        let symbolized = std::fs::read_to_string(dir.path().join("symbolized")).unwrap_or_default();
        (t, symbolized.lines().map(str::to_string).collect::<Vec<_>>())
    };
    let (always, _) = run("always", vec![("FAKE_SYMBOLIZE_ALWAYS".into(), "1".into())]);
    let (deferred, symbolized) = run("deferred", Vec::new());
    assert_eq!(always.groups.len(), 5, "{:#?}", always.groups);
    assert_eq!(
        symbolized.len(),
        5,
        "one symbolized run per stack, of its smallest file: {symbolized:?}"
    );
    assert!(symbolized.iter().all(|f| f.ends_with('3')), "{symbolized:?}");
    let view = |t: &Triage| {
        t.groups
            .iter()
            .map(|g| {
                (
                    g.id.clone(),
                    g.files.clone(),
                    g.signature.clone(),
                    g.frames.clone(),
                    g.stack.clone(),
                    g.crash_line.clone(),
                    (g.class, g.severity.clone(), g.trace, g.flaky_files),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(view(&deferred), view(&always));
    let counts = &deferred.counts;
    assert_eq!((counts.reproduced, counts.flaky, counts.does_not_reproduce), (20, 0, 1));
    let crash_lines: BTreeSet<String> = deferred
        .groups
        .iter()
        .map(|g| g.crash_line.as_ref().unwrap().frame.describe())
        .collect();
    let expected: BTreeSet<String> = [
        "t::site_a (/src/t.rs:12:9)",
        "t::site_b (/src/t.rs:22:9)",
        "t::fail (/src/check.rs:3:5)",
        "t::read (/src/t.rs:30:13)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(crash_lines, expected);
    let overflow = deferred.groups.iter().find(|g| g.frames[0] == "t::read").unwrap();
    assert_eq!(
        overflow.signature.message,
        "SUMMARY: AddressSanitizer: heap-buffer-overflow /src/t.rs:30:13 in t::read"
    );
    for g in &deferred.groups {
        let log = std::fs::read_to_string(dir.path().join("deferred/groups").join(&g.id).join("output.log")).unwrap();
        assert!(log.contains(" in t::parse /src/t.rs:40:5"), "{log}");
        assert!(!log.contains("BuildId"), "the group's log is a symbolized run's: {log}");
    }
}
