//! `hellfuzz gen --keep-if`: the binary keeps exactly --count inputs the command accepts, the same
//! for every -j, never writes a rejected one, and stops with a message a user can act on.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn hellfuzz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// NUL-separated inputs on stdout.
fn inputs(out: &Output) -> Vec<Vec<u8>> {
    out.stdout
        .split(|&b| b == 0)
        .filter(|s| !s.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hellfuzz-keep-if-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Small expressions: about one in two contains a `1`, and no two are equal (uniform choices:
/// "more of the same" follows single samples and repeats small ones).
const GEN: [&str; 9] = [
    "gen",
    "expr",
    "--uniform",
    "--max-size",
    "20",
    "--seed",
    "7",
    "--nul",
    "--count",
];

/// "kept K of T inputs tried" from the summary line or the error: (K, T).
fn kept_of_tried(stderr: &str) -> (usize, usize) {
    stderr
        .split("kept ")
        .skip(1)
        .find_map(|rest| {
            let mut words = rest.split(' ');
            let kept = words.next()?.parse().ok()?;
            (words.next()? == "of").then_some(())?;
            Some((kept, words.next()?.parse().ok()?))
        })
        .unwrap_or_else(|| panic!("no 'kept K of T': {stderr}"))
}

#[test]
fn keeps_exactly_count_inputs_the_command_accepts_and_none_it_rejects() {
    let out = hellfuzz(&[&GEN[..], &["40", "--keep-if", "grep -q 1 @@", "-j", "2"]].concat());
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let kept = inputs(&out);
    assert_eq!(kept.len(), 40, "{stderr}");
    assert!(kept.iter().all(|k| k.contains(&b'1')), "{kept:?}");
    let (k, tried) = kept_of_tried(&stderr);
    assert_eq!(k, 40);
    assert!(
        tried > 40,
        "some inputs must be rejected for the test to mean anything: {stderr}"
    );
    let percent = format!("({:.1}%)", 100.0 * 40.0 / tried as f64);
    assert!(stderr.contains(&percent), "no acceptance rate {percent}: {stderr}");
    assert!(stderr.contains("40 distinct, 0 duplicates skipped"), "{stderr}");

    // The same seed without the filter generates the same candidates: the kept inputs are
    // exactly the accepted ones among the first `tried`, in order; the rejected are nowhere.
    let all = inputs(&hellfuzz(&[&GEN[..], &[tried.to_string().as_str()]].concat()));
    assert_eq!(all.len(), tried);
    let (accepted, rejected): (Vec<_>, Vec<_>) = all.into_iter().partition(|i| i.contains(&b'1'));
    assert_eq!(kept, accepted);
    assert!(!rejected.is_empty() && rejected.iter().all(|r| !kept.contains(r)));
}

#[test]
fn the_same_inputs_for_every_jobs_and_with_stdin() {
    let run = |extra: &[&str]| {
        let out = hellfuzz(&[&GEN[..], &["60"], extra].concat());
        assert!(out.status.success(), "{}", text(&out.stderr));
        (out.stdout.clone(), kept_of_tried(&text(&out.stderr)))
    };
    let one = run(&["--keep-if", "grep -q 1 @@", "-j", "1"]);
    assert_eq!(one.1 .0, 60);
    assert_eq!(run(&["--keep-if", "grep -q 1 @@", "-j", "2"]), one);
    assert_eq!(run(&["--keep-if", "grep -q 1 @@", "-j", "5"]), one);
    // Without @@ the input goes to standard input.
    assert_eq!(run(&["--keep-if", "grep -q 1", "-j", "2"]), one);
    assert_eq!(run(&["--keep-if", "sh -c 'grep -q 1'"]), one);
}

#[test]
fn into_a_corpus_folder() {
    let dir = temp_dir("corpus");
    let corpus = dir.join("corpus");
    let args = [
        "gen",
        "json",
        "--count",
        "25",
        "--max-size",
        "60",
        "--keep-if",
        "grep -q [[] @@",
        "--out",
        corpus.to_str().unwrap(),
    ];
    let out = hellfuzz(&args);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(out.stdout.is_empty());
    let (kept, tried) = kept_of_tried(&stderr);
    assert!(kept == 25 && tried > 25, "{stderr}");
    let files: Vec<_> = std::fs::read_dir(&corpus).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(stderr.contains(&format!("{} distinct", files.len())), "{stderr}");
    assert!(files.len() > 1);
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(bytes.contains(&b'['), "{f:?} was not kept by the command");
        assert_eq!(
            f.file_name().unwrap().to_str().unwrap(),
            sha1_smol::Sha1::from(&bytes).digest().to_string()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rejecting_everything_stops_with_a_message_within_max_tries() {
    let out = hellfuzz(
        &[
            &GEN[..],
            &[
                "5",
                "--keep-if",
                "sh -c 'echo no good >&2; exit 3' @@",
                "--max-tries",
                "50",
            ],
        ]
        .concat(),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty());
    // After 46 rejections 4 tries remain for 5 inputs: it stops there.
    assert!(stderr.contains("kept 0 of 46 inputs tried (0.0%)"), "{stderr}");
    assert!(
        stderr.contains("--count 5 cannot be reached within --max-tries 50"),
        "{stderr}"
    );
    assert!(
        stderr.contains("loosen the command, raise --max-tries") && stderr.contains("fix the grammar"),
        "{stderr}"
    );
    assert!(
        stderr.contains("exit status 3") && stderr.contains("no good"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    // The default --max-tries is 20 × --count.
    let out = hellfuzz(&[&GEN[..], &["3", "--keep-if", "false"]].concat());
    assert!(
        text(&out.stderr).contains("kept 0 of 58 inputs tried"),
        "{}",
        text(&out.stderr)
    );

    // Some kept, too few: they are written, and the rate is in the message.
    let out = hellfuzz(&[&GEN[..], &["30", "--keep-if", "grep -q 8 @@", "--max-tries", "40"]].concat());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let kept = inputs(&out);
    assert!(!kept.is_empty() && kept.iter().all(|k| k.contains(&b'8')), "{stderr}");
    assert!(
        stderr.contains(&format!("kept so far: {} distinct", kept.len())),
        "{stderr}"
    );
    let (k, tried) = kept_of_tried(&stderr);
    let percent = format!("({:.1}%)", 100.0 * k as f64 / tried as f64);
    assert!(k == kept.len() && stderr.contains(&percent), "{stderr}");
    assert!(stderr.contains("(at this rate about"), "{stderr}");
}

#[test]
fn a_command_that_cannot_start_is_an_error() {
    let out = hellfuzz(&["gen", "expr", "--keep-if", "/nonexistent/checker @@"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("cannot run: could not start `/nonexistent/checker`"),
        "{stderr}"
    );
    let out = hellfuzz(&["gen", "expr", "--keep-if", "true", "--timeout=-1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = hellfuzz(&["gen", "expr", "--max-tries", "5"]);
    assert!(text(&out.stderr).contains("--keep-if"), "{}", text(&out.stderr));
}

#[test]
fn sigterm_kills_the_running_commands_and_keeps_what_was_kept() {
    let dir = temp_dir("sigterm");
    let pids = dir.join("pids");
    // The first runs keep their input at once (a count in a file); later ones hang until killed.
    let count = dir.join("count");
    let check = format!(
        "sh -c 'echo >> {}; [ $(wc -l < {}) -le 6 ] && exit 0; echo $$ >> {}; exec sleep 60' sh @@",
        count.display(),
        count.display(),
        pids.display()
    );
    let corpus = dir.join("corpus");
    let child = Command::new(env!("CARGO_BIN_EXE_hellfuzz"))
        .args(["gen", "expr", "--max-size", "20", "--seed", "7", "--count", "1000"])
        .args(["--keep-if", &check, "-j", "2", "--out", corpus.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let hanging = || -> Vec<u32> {
        std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.parse().ok())
            .collect()
    };
    for _ in 0..200 {
        if !hanging().is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!hanging().is_empty(), "no command started");
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("(interrupted)"), "{stderr}");
    let files = std::fs::read_dir(&corpus).unwrap().count();
    assert!(files > 0 && stderr.contains(&format!(": {files} distinct")), "{stderr}");
    for pid in hanging() {
        assert!(gone(pid), "command {pid} outlived hellfuzz");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// True once process `pid` is gone (or a zombie) within a few seconds.
fn gone(pid: u32) -> bool {
    for _ in 0..100 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) if stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z') => return true,
            Ok(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    false
}
