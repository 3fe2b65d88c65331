//! Errors raised while setting an oracle up: the original input does not fail, the command cannot
//! start, a pattern does not compile. Once set up, oracles never error: they answer `Unresolved`.

use std::fmt;

/// Why an oracle could not be set up. Every message says what to check or change.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OracleError {
    /// The in-process closure returned normally on the original input.
    NoPanic,
    /// This program was built with `panic = "abort"`, so panics cannot be caught in-process.
    PanicAbort,
    /// The command line has no program.
    EmptyCommand,
    /// The program could not be started.
    Spawn {
        /// The program as given (`argv[0]`).
        program: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The temporary file for `@@` could not be created or written.
    TempFile(String),
    /// A `--stderr` style pattern is not a valid regular expression.
    BadRegex {
        /// The pattern as given.
        pattern: String,
        /// The regex crate's explanation.
        reason: String,
    },
    /// The command timed out on the original input and on an empty input too: it may hang on
    /// every input, and a search whose every run ends alike learns nothing (a reducer would
    /// present an empty input as the reproducer).
    AlwaysTimesOut {
        /// The per-run timeout.
        timeout: std::time::Duration,
    },
    /// Calibration: the original input does not show the property the oracle tests for.
    NotFailing {
        /// What the classification expected, e.g. "exit status 3".
        expected: String,
        /// What happened instead, e.g. "exit status 0".
        happened: String,
        /// The last lines of the run's stderr (may be empty).
        stderr_tail: String,
    },
}

impl fmt::Display for OracleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OracleError::NoPanic => write!(
                f,
                "the original input does not panic in the closure, so there is no crash to preserve; \
                 check that the harness passes the input to the code under test and does not catch \
                 the panic itself"
            ),
            OracleError::PanicAbort => write!(
                f,
                "this program is built with panic = \"abort\", so panics cannot be caught in-process; \
                 build with panic = \"unwind\" or use a subprocess oracle"
            ),
            OracleError::EmptyCommand => {
                write!(
                    f,
                    "the test command is empty; give a program and its arguments (use @@ for the input file)"
                )
            }
            OracleError::Spawn { program, reason } => write!(
                f,
                "could not start `{program}`: {reason}; check that the program exists and is \
                 executable (give a path, or put it on PATH)"
            ),
            OracleError::TempFile(reason) => write!(
                f,
                "could not write the candidate input to a temporary file: {reason}; check that the \
                 temporary directory (TMPDIR) exists and is writable"
            ),
            OracleError::BadRegex { pattern, reason } => {
                write!(
                    f,
                    "the stderr pattern `{pattern}` is not a valid regular expression: {reason}"
                )
            }
            OracleError::AlwaysTimesOut { timeout } => write!(
                f,
                "every run timed out after {} s, on the original input and on an empty input alike: \
                 the command may hang on every input, and runs that all end alike show nothing; \
                 check the command (does it read its input, through @@ or standard input, and \
                 exit?), or raise the timeout (--timeout) if it needs longer",
                timeout.as_secs_f64()
            ),
            OracleError::NotFailing {
                expected,
                happened,
                stderr_tail,
            } => {
                write!(
                    f,
                    "the original input does not fail the test: expected {expected}, but {happened}; \
                     check the command and the classification (the test must fail on the original input)"
                )?;
                if stderr_tail.trim().is_empty() {
                    write!(f, "\n(stderr was empty)")
                } else {
                    write!(f, "\nlast lines of stderr:\n{stderr_tail}")
                }
            }
        }
    }
}

impl std::error::Error for OracleError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_problem_and_the_fix() {
        let e = OracleError::Spawn {
            program: "./nope".into(),
            reason: "No such file or directory (os error 2)".into(),
        };
        let text = e.to_string();
        assert!(
            text.contains("`./nope`") && text.contains("No such file") && text.contains("PATH"),
            "{text}"
        );
        let e = OracleError::NotFailing {
            expected: "exit status 3".into(),
            happened: "exit status 0".into(),
            stderr_tail: "usage: prog FILE".into(),
        };
        let text = e.to_string();
        assert!(text.contains("expected exit status 3, but exit status 0"), "{text}");
        assert!(text.ends_with("last lines of stderr:\nusage: prog FILE"), "{text}");
        let e = OracleError::AlwaysTimesOut {
            timeout: std::time::Duration::from_millis(200),
        };
        let text = e.to_string();
        assert!(
            text.starts_with("every run timed out after 0.2 s") && text.contains("--timeout"),
            "{text}"
        );
    }
}
