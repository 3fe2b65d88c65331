//! A debugger run of a crash file, for crashes that print no stack (an `abort()`, a segfault or a
//! stack overflow in a binary without sanitizer): `gdb -batch -ex run -ex bt --args HARNESS
//! FILE`, as CASR does. Skipped without a word when gdb is not installed.
//!
//! Map: [`available`] (gdb on the PATH, looked up once) · [`command`] (the gdb run as a
//! [`Subprocess`], bounded by the timeout) · [`stack`] (run it, parse `bt`).

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use super::stack::{gdb_stack, Frame};
use crate::oracle::Subprocess;

/// Frames printed by `bt`: enough to get past libc, std and the signal handler to the user's
/// frames, without printing tens of thousands of them for a stack overflow.
const BT_FRAMES: u32 = 64;

/// Whether gdb can be run (`gdb --version` succeeds); looked up once per process.
/// `HELLFUZZ_NO_GDB=1` says no, for tests and for machines where ptrace is not allowed.
pub fn available() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        std::env::var_os(crate::harness::env::NO_GDB_ENV).is_none_or(|v| v.is_empty() || v == "0")
            && std::process::Command::new("gdb")
                .args(["-nx", "-batch", "--version"])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
    })
}

/// The time a gdb run of `runs` harness runs gets: the harness's timeout for each, plus gdb's own
/// start (reading the harness's debug information takes seconds on a loaded machine; a gdb cut
/// short would leave the crash without its location, and a group without its id).
fn gdb_time(timeout: Duration, runs: u32) -> Duration {
    timeout.saturating_mul(runs).saturating_add(Duration::from_secs(10))
}

/// The gdb run of `harness` on `file` (a path, or `@@` for the file a [`Subprocess`] writes), with
/// `env` for the harness; `None` when gdb is not available. The timeout (the harness's) bounds the
/// whole gdb run, with time for gdb itself (`gdb_time`).
pub fn command(harness: &Path, file: &str, timeout: Duration, env: &[(String, String)]) -> Option<Subprocess> {
    if !available() {
        return None;
    }
    let bt = format!("bt {BT_FRAMES}");
    let argv = [
        "gdb",
        "-nx",
        "-batch",
        "-iex",
        SETTINGS[0],
        "-iex",
        SETTINGS[1],
        "-iex",
        SETTINGS[2],
        "-ex",
        "run",
        "-ex",
        &bt,
        "--args",
        &harness.to_string_lossy(),
        file,
    ]
    .map(str::to_string);
    let mut command = Subprocess::new(argv).ok()?.timeout(gdb_time(timeout, 1));
    for (k, v) in env {
        command = command.env(k.clone(), v.clone());
    }
    // The stack comes from gdb: the harness need not symbolize one itself.
    Some(command.env("RUST_BACKTRACE", "0"))
}

/// The stack at the signal that killed `input`'s run under gdb, innermost first; empty when the
/// run did not die of a signal (or gdb did not run, or timed out).
pub fn stack(command: &Subprocess, input: &[u8]) -> Vec<Frame> {
    let run = command.run(input);
    if !run.stdout.contains("Program received signal") && !run.stdout.contains("Program terminated with signal") {
        return Vec::new();
    }
    gdb_stack(&run.stdout)
}

/// Marks where the output of each file of a batch starts.
// Not `@@`: a [`Subprocess`] puts its temporary file's path in place of that, in any argument.
const MARK: &str = "==hellfuzz-file-";

/// The stacks of several crash files under one gdb (see [`stack`]), in order: a run under gdb
/// costs about half of what a gdb started per file does (symbols are read once). A file whose
/// path gdb's argument parser could take apart (blanks, quotes, backslashes, not UTF-8), or
/// that the batch did not reach (the batch timed out), gets a gdb of its own. `None` for all when
/// gdb is not available.
pub fn stacks(harness: &Path, files: &[&Path], timeout: Duration, env: &[(String, String)]) -> Option<Vec<Vec<Frame>>> {
    if !available() {
        return None;
    }
    fn plain(p: &Path) -> Option<&str> {
        p.to_str()
            .filter(|s| !s.contains(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '\\')))
    }
    let batched: Vec<usize> = (0..files.len()).filter(|&i| plain(files[i]).is_some()).collect();
    let mut found: Vec<Option<Vec<Frame>>> = vec![None; files.len()];
    if batched.len() > 1 {
        let mut argv: Vec<String> = ["gdb", "-nx", "-batch"].map(str::to_string).to_vec();
        for setting in SETTINGS {
            argv.extend(["-iex".to_string(), setting.to_string()]);
        }
        for (k, &i) in batched.iter().enumerate() {
            let path = plain(files[i]).unwrap_or_default();
            argv.extend([
                "-ex".to_string(),
                format!("echo \\n{MARK}{k}\\n"),
                "-ex".to_string(),
                // Without a shell, gdb splits `run`'s arguments at blanks and keeps quotes: only
                // paths without either are batched.
                format!("run {path}"),
                "-ex".to_string(),
                format!("bt {BT_FRAMES}"),
            ]);
        }
        argv.push(harness.to_string_lossy().into_owned());
        let rounds = u32::try_from(batched.len()).unwrap_or(u32::MAX);
        if let Ok(mut command) = Subprocess::new(argv) {
            command = command.timeout(gdb_time(timeout, rounds));
            for (k, v) in env {
                command = command.env(k.clone(), v.clone());
            }
            let run = command.env("RUST_BACKTRACE", "0").run(b"");
            for (k, part) in run.stdout.split(MARK).skip(1).enumerate() {
                // The last part may have been cut by the timeout: only finished ones count.
                let finished = part.contains("Program received signal")
                    || part.contains("No stack.")
                    || run.stdout.split(MARK).count() > k + 2;
                if let (Some(&i), true) = (batched.get(k), finished) {
                    found[i] = Some(if part.contains("Program received signal") {
                        gdb_stack(part)
                    } else {
                        Vec::new()
                    });
                }
            }
        }
    }
    let single = command(harness, "@@", timeout, env);
    Some(
        found
            .into_iter()
            .zip(files)
            .map(|(frames, file)| match (frames, &single) {
                (Some(frames), _) => frames,
                (None, Some(_)) => {
                    let file = file.to_string_lossy();
                    command(harness, &file, timeout, env).map_or_else(Vec::new, |c| stack(&c, b""))
                }
                (None, None) => Vec::new(),
            })
            .collect(),
    )
}

/// gdb settings: nothing from the user's or the binary's gdb scripts, no network lookups for
/// debug info, the harness started directly (no shell between).
const SETTINGS: [&str; 3] = [
    "set auto-load off",
    "set debuginfod enabled off",
    "set startup-with-shell off",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A real gdb run when gdb is installed (skipped otherwise): a shell harness killing itself.
    #[test]
    fn a_shell_that_aborts_has_a_stack() {
        let Some(command) = command(Path::new("/bin/sh"), "@@", Duration::from_secs(20), &[]) else {
            return;
        };
        let frames = stack(&command, b"kill -ABRT $$\n");
        assert!(!frames.is_empty());
        assert!(stack(&command, b"exit 0\n").is_empty());
        // A batch: the same stacks, in order.
        let dir = tempfile::tempdir().unwrap();
        let (abort, fine) = (dir.path().join("a"), dir.path().join("b c"));
        std::fs::write(&abort, "kill -ABRT $$\n").unwrap();
        std::fs::write(&fine, "exit 0\n").unwrap();
        let files = [abort.as_path(), fine.as_path(), abort.as_path()];
        let all = stacks(Path::new("/bin/sh"), &files, Duration::from_secs(20), &[]).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0], frames);
        assert!(all[1].is_empty());
        assert_eq!(all[2], frames);
    }
}
