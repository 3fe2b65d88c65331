//! The subprocess oracle: run a command on each candidate (in a temp file named by `@@`, or on
//! stdin) with a timeout, and classify the run by exit status, stderr pattern, panic location or crash.
//!
//! [`Subprocess`] is built from an argv, [`Subprocess::calibrate`]d on the original input (which must
//! fail, and whose crash signature is recorded), and then used as an [`Oracle`]. [`Subprocess::run`]
//! gives the whole [`Run`] (exit, signature, output, duration) for callers such as triage.

use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use regex::Regex;
use wait_timeout::ChildExt;

use super::error::OracleError;
use super::output::Drain;
pub use super::output::KEPT_OUTPUT;
use super::signature::{crash_summary, parse_panic, parse_panics, CrashKind, Signature};
use super::{Oracle, Outcome};

/// The timeout used unless [`Subprocess::timeout`] sets another.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long to wait for the output pipes to close after the program exited. They stay open only
/// when a background process the program started still holds them.
const PIPE_GRACE: Duration = Duration::from_millis(500);

/// When a run counts as Fail. Runs that time out or cannot start are Unresolved, except that a
/// timeout is Fail for [`Classify::SameCrash`] when the original input timed out too.
#[derive(Clone, Debug)]
pub enum Classify {
    /// Fail iff the program exits with this status; another status is Pass, death by a signal
    /// Unresolved (it has no exit status).
    ExitCode(i32),
    /// Fail iff stderr contains a match of this pattern; Pass otherwise.
    Stderr(Regex),
    /// Fail iff stderr contains a Rust panic at the original's location; another panic or crash is
    /// Unresolved, a clean run Pass. Needs [`Subprocess::calibrate`].
    SamePanic,
    /// Fail iff the run's [`Signature`] matches the original's: same kind (panic, signal, exit
    /// status, timeout), and for panics the same location and normalized message. Another crash is
    /// Unresolved, a clean run (exit status 0, no panic) Pass. Needs [`Subprocess::calibrate`].
    SameCrash,
}

impl Classify {
    /// [`Classify::Stderr`] from a pattern, with an error a user can read if it does not compile.
    pub fn stderr(pattern: &str) -> Result<Classify, OracleError> {
        Regex::new(pattern)
            .map(Classify::Stderr)
            .map_err(|e| OracleError::BadRegex {
                pattern: pattern.to_string(),
                reason: e.to_string(),
            })
    }

    /// What a failing run looks like, for messages.
    fn expectation(&self) -> String {
        match self {
            Classify::ExitCode(c) => format!("exit status {c}"),
            Classify::Stderr(re) => format!("stderr matching `{re}`"),
            Classify::SamePanic => "a Rust panic on stderr".to_string(),
            Classify::SameCrash => "a crash (a panic, a signal, a non-zero exit status or a timeout)".to_string(),
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Exited with this status.
    Code(i32),
    /// Killed by this signal (not by us).
    Signal(i32),
    /// Killed by us after the timeout.
    Timeout,
    /// Could not run at all (the program does not start, no temp file); the reason.
    NotRun(String),
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Code(c) => write!(f, "exit status {c}"),
            Exit::Signal(s) => write!(f, "killed by signal {s}"),
            Exit::Timeout => write!(f, "timed out"),
            Exit::NotRun(reason) => write!(f, "did not run: {reason}"),
        }
    }
}

/// Everything about one run of the command.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Run {
    /// The classification.
    pub outcome: Outcome,
    /// The run's crash signature (`None` for a clean exit or a run that did not start): the first
    /// Rust panic on stderr; otherwise the signal, the non-zero exit status or the timeout.
    pub signature: Option<Signature>,
    /// How the run ended.
    pub exit: Exit,
    /// Standard output, lossily decoded, at most about [`KEPT_OUTPUT`] bytes.
    pub stdout: String,
    /// Standard error, lossily decoded, at most about [`KEPT_OUTPUT`] bytes.
    pub stderr: String,
    /// Wall-clock time from start to exit.
    pub duration: Duration,
}

/// A test command: an argv in which `@@` stands for the path of a temporary file holding the
/// candidate (without `@@` the candidate goes to stdin), a timeout, extra environment variables,
/// and a [`Classify`] rule.
///
/// Each run gets its own temporary file (safe from several threads at once), removed afterwards.
/// On Unix the program runs in its own process group, and a timed-out run is killed with the whole
/// group, so `sh -c '…'` wrappers do not leave their children behind. One consequence: a Ctrl-C in
/// the terminal reaches hellfuzz but not the running program; an interrupt handler should call
/// [`kill_running`].
#[derive(Clone, Debug)]
pub struct Subprocess {
    argv: Vec<String>,
    uses_file: bool,
    timeout: Duration,
    env: Vec<(String, String)>,
    classify: Classify,
    temp_suffix: String,
    original: Option<Signature>,
}

impl Subprocess {
    /// A command from its argv (program first). Defaults: timeout [`DEFAULT_TIMEOUT`], no extra
    /// environment, [`Classify::SameCrash`]. Errors when argv is empty.
    pub fn new<I, S>(argv: I) -> Result<Subprocess, OracleError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let argv: Vec<String> = argv.into_iter().map(Into::into).collect();
        if argv.is_empty() || argv[0].is_empty() {
            return Err(OracleError::EmptyCommand);
        }
        let uses_file = argv.iter().any(|a| a.contains("@@"));
        Ok(Subprocess {
            argv,
            uses_file,
            timeout: DEFAULT_TIMEOUT,
            env: Vec::new(),
            classify: Classify::SameCrash,
            temp_suffix: String::new(),
            original: None,
        })
    }

    /// Sets the timeout after which a run is killed. A timed-out run is Unresolved, except under
    /// [`Classify::SameCrash`] when the original timed out too: then it is the failure.
    pub fn timeout(mut self, timeout: Duration) -> Subprocess {
        self.timeout = timeout;
        self
    }

    /// Adds an environment variable for the program (the rest of the environment is inherited).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Subprocess {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets the classification rule. Changing it forgets a previous calibration.
    pub fn classify(mut self, classify: Classify) -> Subprocess {
        self.classify = classify;
        self.original = None;
        self
    }

    /// Ends the temporary files' names with this suffix (e.g. `.js`), for programs that look at
    /// the extension.
    pub fn temp_suffix(mut self, suffix: impl Into<String>) -> Subprocess {
        self.temp_suffix = suffix.into();
        self
    }

    /// The argv as given (with `@@` unreplaced).
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// True when the candidate is passed as a file (`@@`), false when on stdin.
    pub fn uses_file(&self) -> bool {
        self.uses_file
    }

    /// The original input's signature, once [`calibrate`](Self::calibrate)d for
    /// [`Classify::SamePanic`] or [`Classify::SameCrash`].
    pub fn original_signature(&self) -> Option<&Signature> {
        self.original.as_ref()
    }

    /// Runs the original input once: it must be Fail under the classification. For
    /// [`Classify::SamePanic`] and [`Classify::SameCrash`] its signature is recorded and later
    /// runs are compared with it.
    ///
    /// Errors when the program cannot start, and when the original does not fail; the message
    /// then says what happened (exit status, timeout, the last lines of stderr). When the
    /// original's failure is a timeout, an empty input is run too (see
    /// [`refuse_hanging`](Self::refuse_hanging)): if it times out as well, every candidate would
    /// "fail" alike, and the error says so instead of letting a reducer shrink to nothing.
    pub fn calibrate(mut self, original: &[u8]) -> Result<Subprocess, OracleError> {
        let raw = self.execute(original)?;
        let signature = run_signature(&raw.exit, &raw.stderr);
        let happened = match &raw.exit {
            Exit::Timeout => {
                format!(
                    "it timed out after {:?} (raise the timeout if the input needs longer)",
                    self.timeout
                )
            }
            other => format!("it ended with {other}"),
        };
        let not_failing = |expected: String, happened: String| OracleError::NotFailing {
            expected,
            happened,
            stderr_tail: last_lines(&raw.stderr, 10),
        };
        let expected = self.classify.expectation();
        match &self.classify {
            Classify::SamePanic => match parse_panic(&raw.stderr) {
                Some(panic) => self.original = Some(panic),
                None => {
                    return Err(not_failing(
                        expected,
                        format!("{happened} and printed no Rust panic on stderr"),
                    ))
                }
            },
            Classify::SameCrash => match &signature {
                Some(sig) => self.original = Some(sig.clone()),
                None => return Err(not_failing(expected, format!("{happened} without a panic on stderr"))),
            },
            Classify::ExitCode(_) | Classify::Stderr(_) => {}
        }
        // For the rules that record a signature this holds by construction; for the others it is
        // the actual check.
        if self.outcome(&raw.exit, &raw.stderr, signature.as_ref()) != Outcome::Fail {
            let detail = match &self.classify {
                Classify::Stderr(_) => format!("{happened} and stderr did not match"),
                _ => happened,
            };
            return Err(not_failing(expected, detail));
        }
        self.refuse_hanging(original, &raw.exit)?;
        Ok(self)
    }

    /// After a run of `original` that ended with `exit`: if that was a timeout, runs an empty
    /// input, and errors with [`OracleError::AlwaysTimesOut`] when it times out too. A command
    /// that hangs on everything (a missing `@@`, a program waiting for a terminal, a timeout
    /// shorter than its start-up) otherwise turns a search into runs that all end alike: a
    /// reducer would "reduce" to an empty input, a repair would find nothing, and neither would
    /// say why. One run of the timeout's length is the price, paid only when the original timed
    /// out. An empty `original` is not checked (it was the empty input's run).
    pub fn refuse_hanging(&self, original: &[u8], exit: &Exit) -> Result<(), OracleError> {
        if *exit != Exit::Timeout || original.is_empty() {
            return Ok(());
        }
        if self.execute(b"")?.exit == Exit::Timeout {
            return Err(OracleError::AlwaysTimesOut { timeout: self.timeout });
        }
        Ok(())
    }

    /// Runs the command on `input` and classifies the run. Never panics and never errors: a
    /// program that cannot start gives [`Exit::NotRun`] and Unresolved.
    pub fn run(&self, input: &[u8]) -> Run {
        self.try_run(input).unwrap_or_else(|e| Run {
            outcome: Outcome::Unresolved,
            signature: None,
            exit: Exit::NotRun(e.to_string()),
            stdout: String::new(),
            stderr: String::new(),
            duration: Duration::ZERO,
        })
    }

    /// Like [`run`](Self::run), but a run that cannot happen at all (the program does not start,
    /// the temporary file cannot be written) is the error itself, for callers that stop on it
    /// rather than count it (it never yields [`Exit::NotRun`]).
    pub fn try_run(&self, input: &[u8]) -> Result<Run, OracleError> {
        let raw = self.execute(input)?;
        let signature = run_signature(&raw.exit, &raw.stderr);
        let outcome = self.outcome(&raw.exit, &raw.stderr, signature.as_ref());
        Ok(Run {
            outcome,
            signature,
            exit: raw.exit,
            stdout: raw.stdout,
            stderr: raw.stderr,
            duration: raw.duration,
        })
    }

    /// The classification of a finished run whose own signature is `signature`.
    fn outcome(&self, exit: &Exit, stderr: &str, signature: Option<&Signature>) -> Outcome {
        if let Exit::NotRun(_) = exit {
            return Outcome::Unresolved;
        }
        if *exit == Exit::Timeout {
            let original_timed_out = self.original.as_ref().is_some_and(|o| o.kind == CrashKind::Timeout);
            return if matches!(self.classify, Classify::SameCrash) && original_timed_out {
                Outcome::Fail
            } else {
                Outcome::Unresolved
            };
        }
        let crashed = if signature.is_some() {
            Outcome::Unresolved
        } else {
            Outcome::Pass
        };
        match &self.classify {
            Classify::ExitCode(code) => match exit {
                Exit::Code(c) if c == code => Outcome::Fail,
                Exit::Code(_) => Outcome::Pass,
                _ => Outcome::Unresolved,
            },
            Classify::Stderr(re) => {
                if re.is_match(stderr) {
                    Outcome::Fail
                } else {
                    Outcome::Pass
                }
            }
            Classify::SamePanic => match &self.original {
                // Not calibrated: nothing to compare with.
                None => Outcome::Unresolved,
                Some(original) => {
                    if parse_panics(stderr).iter().any(|p| p.location == original.location) {
                        Outcome::Fail
                    } else {
                        crashed
                    }
                }
            },
            Classify::SameCrash => match (&self.original, signature) {
                (None, _) => Outcome::Unresolved,
                (Some(original), Some(sig)) if sig.matches(original) => Outcome::Fail,
                _ => crashed,
            },
        }
    }

    /// Starts the program on `input`, waits (at most the timeout) and collects its output.
    /// Errors only when the run cannot happen at all.
    fn execute(&self, input: &[u8]) -> Result<RawRun, OracleError> {
        // Kept alive until the end of this function: dropping it removes the file.
        let temp = if self.uses_file {
            Some(self.write_temp(input)?)
        } else {
            None
        };
        let expand = |arg: &String| -> OsString {
            match &temp {
                Some(path) if arg.contains("@@") => {
                    let mut out = OsString::new();
                    for (i, part) in arg.split("@@").enumerate() {
                        if i > 0 {
                            out.push(path.as_os_str());
                        }
                        out.push(part);
                    }
                    out
                }
                _ => OsString::from(arg),
            }
        };
        let mut cmd = std::process::Command::new(expand(&self.argv[0]));
        cmd.args(self.argv[1..].iter().map(expand))
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(if self.uses_file { Stdio::null() } else { Stdio::piped() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let start = Instant::now();
        let mut child = cmd.spawn().map_err(|e| OracleError::Spawn {
            program: self.argv[0].clone(),
            reason: e.to_string(),
        })?;
        let _running = Running::register(child.id());

        // Feeding stdin and draining stdout/stderr happen on their own threads, so that a program
        // that writes a lot before reading (or never reads) cannot deadlock with us.
        if let Some(mut stdin) = child.stdin.take() {
            let data = input.to_vec();
            // A program that exits without reading all of stdin makes this fail: that is fine.
            thread::spawn(move || {
                let _ = stdin.write_all(&data);
            });
        }
        let stdout = child.stdout.take().map(Drain::start);
        let stderr = child.stderr.take().map(Drain::start);

        let exit = match child.wait_timeout(self.timeout) {
            Ok(Some(status)) => exit_of(status),
            Ok(None) => {
                kill_group(&mut child);
                Exit::Timeout
            }
            Err(e) => {
                kill_group(&mut child);
                return Err(OracleError::Spawn {
                    program: self.argv[0].clone(),
                    reason: format!("waiting for it failed: {e}"),
                });
            }
        };
        let duration = start.elapsed();

        // The pipes close when the program exits, unless a background process it started holds
        // them; then that process group is killed too, and whatever was read so far is kept.
        let drains_finish = |grace: Duration| {
            let deadline = Instant::now() + grace;
            [&stdout, &stderr]
                .iter()
                .all(|d| d.as_ref().is_none_or(|d| d.wait_until(deadline)))
        };
        if !drains_finish(PIPE_GRACE) {
            #[cfg(unix)]
            kill_process_group(child.id());
            // If even that does not close them (a process that left the group), give up on the
            // rest of the output: the reader threads end whenever the pipes finally close.
            drains_finish(PIPE_GRACE);
        }
        drop(temp);
        Ok(RawRun {
            exit,
            stdout: stdout.map(|d| d.text()).unwrap_or_default(),
            stderr: stderr.map(|d| d.text()).unwrap_or_default(),
            duration,
        })
    }

    fn write_temp(&self, input: &[u8]) -> Result<tempfile::TempPath, OracleError> {
        let err = |e: std::io::Error| OracleError::TempFile(e.to_string());
        let mut file = tempfile::Builder::new()
            .prefix("hellfuzz-")
            .suffix(&self.temp_suffix)
            .tempfile()
            .map_err(err)?;
        file.write_all(input).and_then(|()| file.flush()).map_err(err)?;
        // Closed, so that the program is the only one with the file open; removed on drop.
        Ok(file.into_temp_path())
    }
}

impl Oracle for Subprocess {
    fn test(&self, input: &[u8]) -> Outcome {
        self.run(input).outcome
    }
}

/// A finished run before classification.
struct RawRun {
    exit: Exit,
    stdout: String,
    stderr: String,
    duration: Duration,
}

/// A run's crash signature: a timeout, else the first Rust panic on stderr, else the signal or the
/// non-zero exit status (with a sanitizer or runtime summary line as the message when there is one).
fn run_signature(exit: &Exit, stderr: &str) -> Option<Signature> {
    let other = |kind| Signature {
        kind,
        location: None,
        message: crash_summary(stderr).unwrap_or_default(),
    };
    match exit {
        Exit::NotRun(_) => None,
        Exit::Timeout => Some(Signature {
            kind: CrashKind::Timeout,
            location: None,
            message: String::new(),
        }),
        _ if parse_panic(stderr).is_some() => parse_panic(stderr),
        Exit::Signal(s) => Some(other(CrashKind::Signal(*s))),
        Exit::Code(0) => None,
        Exit::Code(c) => Some(other(CrashKind::ExitCode(*c))),
    }
}

fn exit_of(status: ExitStatus) -> Exit {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return Exit::Signal(signal);
        }
    }
    // Without a code and without a signal (not possible on Unix once exited): call it -1.
    Exit::Code(status.code().unwrap_or(-1))
}

/// Kills a timed-out child together with its process group, and reaps it.
fn kill_group(child: &mut Child) {
    // The group first, while the child is not yet reaped: its id cannot be reused before that.
    #[cfg(unix)]
    kill_process_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

/// Sends SIGKILL to the process group `pgid` (the child's id: it was started with
/// `process_group(0)`) with killpg(2): no fork and exec of `kill` per timeout, and nothing to
/// fail when `kill` is not on the PATH. Async-signal-safe, so the Ctrl-C handler may call it.
#[cfg(unix)]
fn kill_process_group(pgid: u32) {
    // killpg(1) or killpg(0) would signal init's group or our own: never let a bad id through.
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal; a group that has already gone gives ESRCH, ignored.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Process groups of the runs in progress (their leaders' ids), for [`kill_running`].
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Membership in [`RUNNING`] for the duration of one run.
struct Running(u32);

impl Running {
    fn register(pid: u32) -> Running {
        RUNNING.lock().unwrap_or_else(|p| p.into_inner()).push(pid);
        Running(pid)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut running = RUNNING.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = running.iter().position(|&p| p == self.0) {
            running.swap_remove(i);
        }
    }
}

/// Kills every command run in progress, with its process group. For an interrupt handler:
/// the programs run in their own process groups, so a Ctrl-C in the terminal does not reach
/// them, and a hanging one would otherwise outlive hellfuzz. The interrupted runs end as timeouts
/// would (Unresolved).
pub fn kill_running() {
    let groups: Vec<u32> = RUNNING.lock().unwrap_or_else(|p| p.into_inner()).clone();
    #[cfg(unix)]
    for pgid in groups {
        kill_process_group(pgid);
    }
    #[cfg(not(unix))]
    let _ = groups;
}

/// The last `n` lines of `text`.
pub(super) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `sh -c SCRIPT sh EXTRA...` as a command.
    pub(crate) fn sh(script: &str, extra: &[&str]) -> Subprocess {
        let mut argv = vec!["sh".to_string(), "-c".to_string(), script.to_string(), "sh".to_string()];
        argv.extend(extra.iter().map(|s| s.to_string()));
        Subprocess::new(argv).unwrap()
    }

    /// A fake Rust program: "A" panics at src/parse.rs:10:5 with the input's length in the
    /// message (as index-out-of-bounds messages do), "B" panics elsewhere, "X" exits 2.
    const FAKE_PANIC: &str = r#"
        len=$(wc -c < "$1")
        if grep -q A "$1"; then
            printf "\nthread 'main' (%d) panicked at src/parse.rs:10:5:\n" $$ >&2
            printf "index out of bounds: the len is %d but the index is 9\n" $len >&2
            printf "note: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace\n" >&2
            exit 101
        fi
        if grep -q B "$1"; then
            printf "thread 'main' panicked at src/lex.rs:3:1:\nother\n" >&2
            exit 101
        fi
        grep -q X "$1" && exit 2
        exit 0
    "#;

    #[test]
    fn exit_code_with_file_argument() {
        let cmd = sh(r#"grep -q BUG "$1" && exit 3; exit 0"#, &["@@"]).classify(Classify::ExitCode(3));
        assert!(cmd.uses_file());
        let cmd = cmd.calibrate(b"a BUG here").unwrap();
        assert_eq!(cmd.test(b"BUG"), Outcome::Fail);
        assert_eq!(cmd.test(b"fine"), Outcome::Pass);
        assert_eq!(cmd.test(b""), Outcome::Pass);
        let run = cmd.run(b"xBUGx");
        assert_eq!(run.exit, Exit::Code(3));
        assert_eq!(run.signature.unwrap().kind, CrashKind::ExitCode(3));
    }

    #[test]
    fn exit_code_with_stdin() {
        let cmd = sh("grep -q BUG && exit 3; exit 0", &[]).classify(Classify::ExitCode(3));
        assert!(!cmd.uses_file());
        let cmd = cmd.calibrate(b"a BUG here").unwrap();
        assert_eq!(cmd.test(b"BUG"), Outcome::Fail);
        assert_eq!(cmd.test(b"fine"), Outcome::Pass);
        // Larger than any pipe buffer, with the match at the very end.
        let mut big = vec![b'.'; 1 << 20];
        big.extend_from_slice(b"BUG");
        assert_eq!(cmd.test(&big), Outcome::Fail);
    }

    #[test]
    fn program_that_ignores_stdin() {
        let cmd = sh("exit 3", &[]).classify(Classify::ExitCode(3));
        assert_eq!(cmd.test(&vec![b'x'; 1 << 20]), Outcome::Fail);
    }

    #[test]
    fn at_at_inside_an_argument() {
        let script = r#"case "$1" in --input=*) grep -q BUG "${1#--input=}" && exit 3;; esac; exit 0"#;
        let cmd = sh(script, &["--input=@@"])
            .classify(Classify::ExitCode(3))
            .calibrate(b"BUG")
            .unwrap();
        assert_eq!(cmd.test(b"no"), Outcome::Pass);
        assert_eq!(cmd.test(b"BUG!"), Outcome::Fail);
    }

    #[test]
    fn temp_files_are_removed_and_unique_across_threads() {
        let cmd = sh(r#"printf '%s\n' "$1"; cat "$1""#, &["@@"])
            .classify(Classify::ExitCode(0))
            .temp_suffix(".json");
        let run = cmd.run(b"content");
        assert_eq!(run.outcome, Outcome::Fail);
        let (path, content) = run.stdout.split_once('\n').unwrap();
        assert!(path.ends_with(".json"), "{path}");
        assert_eq!(content, "content");
        assert!(!std::path::Path::new(path).exists(), "{path} was not removed");
        std::thread::scope(|s| {
            for t in 0..4 {
                let cmd = &cmd;
                s.spawn(move || {
                    for i in 0..10 {
                        let input = format!("thread {t} input {i}");
                        let run = cmd.run(input.as_bytes());
                        assert_eq!(run.stdout.split_once('\n').unwrap().1, input);
                    }
                });
            }
        });
    }

    #[test]
    fn stderr_pattern() {
        let script =
            r#"grep -q BUG && echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1" >&2; exit 1"#;
        let cmd = sh(script, &[]).classify(Classify::stderr("heap-buffer-overflow").unwrap());
        let cmd = cmd.calibrate(b"BUG").unwrap();
        assert_eq!(cmd.test(b"xBUGx"), Outcome::Fail);
        assert_eq!(cmd.test(b"x"), Outcome::Pass);
        let err = Classify::stderr("(unclosed").unwrap_err();
        assert!(err.to_string().contains("`(unclosed`"), "{err}");
    }

    #[test]
    fn same_panic_compares_locations() {
        let cmd = sh(FAKE_PANIC, &["@@"]).classify(Classify::SamePanic);
        // Before calibration there is nothing to compare with.
        assert_eq!(cmd.test(b"A"), Outcome::Unresolved);
        let cmd = cmd.calibrate(b"xxAxx").unwrap();
        let sig = cmd.original_signature().unwrap();
        assert_eq!(sig.location.as_deref(), Some("src/parse.rs:10:5"));
        assert_eq!(sig.message, "index out of bounds: the len is 5 but the index is 9");
        assert_eq!(cmd.test(b"A"), Outcome::Fail);
        assert_eq!(cmd.test(b"B"), Outcome::Unresolved);
        assert_eq!(cmd.test(b"X"), Outcome::Unresolved);
        assert_eq!(cmd.test(b"ok"), Outcome::Pass);
        let run = cmd.run(b"B");
        assert_eq!(run.signature.unwrap().location.as_deref(), Some("src/lex.rs:3:1"));
        assert_eq!(run.exit, Exit::Code(101));
    }

    #[test]
    fn same_crash_normalizes_messages_and_distinguishes_kinds() {
        let cmd = sh(FAKE_PANIC, &["@@"])
            .classify(Classify::SameCrash)
            .calibrate(b"xxAxx")
            .unwrap();
        assert_eq!(cmd.test(b"A"), Outcome::Fail); // "the len is 1": same after normalization
        assert_eq!(cmd.test(b"B"), Outcome::Unresolved);
        assert_eq!(cmd.test(b"X"), Outcome::Unresolved);
        assert_eq!(cmd.test(b""), Outcome::Pass);
        // The original may be a non-zero exit status as well.
        let cmd = sh(FAKE_PANIC, &["@@"]).calibrate(b"X").unwrap(); // SameCrash is the default
        assert_eq!(cmd.original_signature().unwrap().kind, CrashKind::ExitCode(2));
        assert_eq!(cmd.test(b"XX"), Outcome::Fail);
        assert_eq!(cmd.test(b"A"), Outcome::Unresolved);
    }

    #[test]
    fn same_crash_with_signals() {
        let script = r#"grep -q BUG "$1" && kill -USR1 $$; grep -q OTHER "$1" && kill -TERM $$; exit 0"#;
        let cmd = sh(script, &["@@"]).calibrate(b"a BUG").unwrap();
        let sig = cmd.original_signature().unwrap().clone();
        assert_eq!(sig.kind, CrashKind::Signal(10));
        assert_eq!(cmd.test(b"BUG"), Outcome::Fail);
        assert_eq!(cmd.test(b"OTHER"), Outcome::Unresolved);
        assert_eq!(cmd.test(b"fine"), Outcome::Pass);
        assert_eq!(cmd.run(b"OTHER").exit, Exit::Signal(15));
    }

    #[test]
    fn timeout_is_unresolved_and_kills_the_group() {
        let cmd = sh("grep -q SLOW && sleep 30; exit 3", &[])
            .classify(Classify::ExitCode(3))
            .timeout(Duration::from_millis(300));
        let cmd = cmd.calibrate(b"BUG").unwrap();
        let run = cmd.run(b"SLOW");
        assert_eq!(run.exit, Exit::Timeout);
        assert_eq!(run.outcome, Outcome::Unresolved);
        assert_eq!(run.signature.unwrap().kind, CrashKind::Timeout);
        assert!(run.duration < Duration::from_secs(20));

        // `sleep` is a child of `sh`: killing only `sh` would leave it running.
        let cmd = sh("sleep 30 & echo $!; wait", &[]).timeout(Duration::from_millis(300));
        let run = cmd.run(b"");
        assert_eq!(run.exit, Exit::Timeout);
        let pid: u32 = run.stdout.trim().parse().unwrap();
        assert!(wait_gone(pid), "sleep {pid} survived the timeout");
    }

    #[test]
    fn background_process_holding_the_pipes_does_not_hang() {
        let cmd = sh("sleep 30 & echo $!; exit 3", &[])
            .classify(Classify::ExitCode(3))
            .timeout(Duration::from_secs(60));
        let run = cmd.run(b"");
        assert_eq!(run.outcome, Outcome::Fail);
        let pid: u32 = run.stdout.trim().parse().unwrap();
        assert!(wait_gone(pid), "background sleep {pid} left running");
    }

    /// True once process `pid` is gone (or a zombie) within a few seconds.
    fn wait_gone(pid: u32) -> bool {
        for _ in 0..100 {
            match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                Err(_) => return true,
                Ok(stat) if stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z') => return true,
                Ok(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        false
    }

    #[test]
    fn original_timeout_with_same_crash() {
        // stdin is read once into a variable: the first `grep` would consume it otherwise.
        let script = r#"in=$(cat); case "$in" in *SLOW*) sleep 30;; *X*) exit 3;; esac; exit 0"#;
        let cmd = sh(script, &[]).timeout(Duration::from_millis(300));
        let cmd = cmd.calibrate(b"SLOW").unwrap();
        assert_eq!(cmd.original_signature().unwrap().kind, CrashKind::Timeout);
        assert_eq!(cmd.test(b"SLOW!"), Outcome::Fail);
        assert_eq!(cmd.test(b"X"), Outcome::Unresolved);
        assert_eq!(cmd.test(b""), Outcome::Pass);
        // With another rule, the original timing out is a calibration error that says so.
        let err = sh("sleep 30", &[])
            .classify(Classify::ExitCode(3))
            .timeout(Duration::from_millis(200))
            .calibrate(b"")
            .unwrap_err();
        assert!(err.to_string().contains("timed out"), "{err}");
    }

    #[test]
    fn a_command_that_hangs_on_everything_is_refused() {
        let hangs = sh("sleep 30", &[]).timeout(Duration::from_millis(200));
        let err = hangs.clone().calibrate(b"x").unwrap_err();
        assert_eq!(
            err,
            OracleError::AlwaysTimesOut {
                timeout: Duration::from_millis(200)
            }
        );
        // An empty original has no smaller input to tell it from.
        assert!(hangs.clone().calibrate(b"").is_ok());
        // The same check for callers without calibration (repair): only after a timeout.
        let run = hangs.run(b"x");
        assert_eq!(run.exit, Exit::Timeout);
        assert!(hangs.refuse_hanging(b"x", &run.exit).is_err());
        assert!(hangs.refuse_hanging(b"x", &Exit::Code(1)).is_ok());
    }

    /// Run by `kill_running_ends_runs_in_progress` in a child process, where no other test's
    /// commands can be killed by accident.
    #[test]
    #[ignore = "helper: runs in a child process"]
    fn kill_running_child() {
        if std::env::var_os("HELLFUZZ_KILL_RUNNING_CHILD").is_none() {
            return;
        }
        let cmd = sh("sleep 30", &[])
            .classify(Classify::ExitCode(0))
            .timeout(Duration::from_secs(60));
        std::thread::scope(|s| {
            let run = s.spawn(|| cmd.run(b""));
            while RUNNING.lock().unwrap().is_empty() {
                std::thread::sleep(Duration::from_millis(10));
            }
            kill_running();
            let run = run.join().unwrap();
            assert_eq!(run.exit, Exit::Signal(9));
            assert_eq!(run.outcome, Outcome::Unresolved);
        });
        assert!(RUNNING.lock().unwrap().is_empty());
    }

    #[test]
    fn kill_running_ends_runs_in_progress() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "oracle::subprocess::tests::kill_running_child",
                "--exact",
                "--ignored",
                "--test-threads=1",
            ])
            .env("HELLFUZZ_KILL_RUNNING_CHILD", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("1 passed"), "the helper did not run:\n{stdout}");
    }

    #[test]
    fn missing_program() {
        let cmd = Subprocess::new(["/nonexistent/hellfuzz-target", "@@"]).unwrap();
        let err = cmd.clone().calibrate(b"x").unwrap_err();
        assert!(matches!(err, OracleError::Spawn { .. }), "{err:?}");
        assert!(err.to_string().contains("/nonexistent/hellfuzz-target"), "{err}");
        let run = cmd.run(b"x");
        assert_eq!(run.outcome, Outcome::Unresolved);
        assert!(matches!(run.exit, Exit::NotRun(_)));
        assert_eq!(cmd.test(b"x"), Outcome::Unresolved);
        assert_eq!(
            Subprocess::new(Vec::<String>::new()).unwrap_err(),
            OracleError::EmptyCommand
        );
    }

    #[test]
    fn original_that_does_not_fail() {
        let cmd = sh("echo 'usage: prog FILE' >&2; exit 0", &["@@"]);
        let err = cmd.clone().classify(Classify::ExitCode(3)).calibrate(b"x").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("expected exit status 3, but it ended with exit status 0"),
            "{text}"
        );
        assert!(text.contains("usage: prog FILE"), "{text}");
        let err = cmd.clone().classify(Classify::SamePanic).calibrate(b"x").unwrap_err();
        assert!(err.to_string().contains("no Rust panic"), "{err}");
        let err = cmd.classify(Classify::SameCrash).calibrate(b"x").unwrap_err();
        assert!(err.to_string().contains("without a panic"), "{err}");
    }

    #[test]
    fn non_utf8_and_huge_output() {
        let cmd = sh(
            r#"printf '\377\376 BUG\n' >&2; head -c 1000000 /dev/zero | tr '\0' x >&2; echo END >&2; exit 1"#,
            &[],
        );
        let cmd = cmd.classify(Classify::stderr("BUG").unwrap()).calibrate(b"").unwrap();
        let run = cmd.run(b"");
        assert_eq!(run.outcome, Outcome::Fail);
        assert!(run.stderr.len() < KEPT_OUTPUT + 200, "{}", run.stderr.len());
        assert!(run.stderr.ends_with("END\n"));
        assert!(run.stderr.contains("bytes omitted"));
        assert!(run.stderr.contains('\u{FFFD}'));
    }

    #[test]
    fn environment_variables() {
        let cmd = sh(r#"[ "$HF_MODE" = crash ] && exit 3; exit 0"#, &[]).classify(Classify::ExitCode(3));
        assert_eq!(cmd.test(b""), Outcome::Pass);
        assert_eq!(cmd.env("HF_MODE", "crash").test(b""), Outcome::Fail);
    }

    #[test]
    fn sanitizer_summary_separates_signatures() {
        let script = r#"
            grep -q H "$1" && echo "SUMMARY: AddressSanitizer: heap-buffer-overflow /a.c:3:5 in f" >&2 && exit 1
            grep -q U "$1" && echo "SUMMARY: AddressSanitizer: heap-use-after-free /a.c:9:1 in g" >&2 && exit 1
            exit 0"#;
        let cmd = sh(script, &["@@"]).calibrate(b"H").unwrap();
        assert_eq!(cmd.test(b"HH"), Outcome::Fail);
        assert_eq!(cmd.test(b"U"), Outcome::Unresolved);
    }
}
