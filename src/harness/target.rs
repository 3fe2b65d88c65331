//! A fuzz target's static description (its grammar) and the reduction settings read from the
//! environment.
//!
//! Map: [`GrammarSource`] (built-in name, embedded text, none) · [`Target`] (loads the grammar once,
//! runs the target's `init` once, shows a typed input) · [`Settings`] (`HELLFUZZ_*` variables, with defaults that stay inside libFuzzer's `-timeout`).

use std::sync::{Once, OnceLock};
use std::time::Duration;

use super::env;
use crate::grammar::Grammar;
use crate::parse::Parser;
use crate::reduce::{Algorithm, Budget, ReduceOptions};

/// Where a target's grammar comes from.
#[derive(Clone, Copy, Debug)]
pub enum GrammarSource {
    /// No grammar: crashes are reduced on the generic token tree / bytes.
    None,
    /// A built-in grammar name (`json`, `expr`, `js`) or a path read at run time.
    Named(&'static str),
    /// Grammar text compiled into the harness (`grammar_file = "..."` in the macro), so the
    /// binary works wherever it is copied.
    Embedded {
        /// The path it was read from, for messages.
        origin: &'static str,
        /// The grammar text.
        text: &'static str,
    },
}

impl GrammarSource {
    /// What to call the grammar in records and messages (`None` without one).
    pub fn name(&self) -> Option<&'static str> {
        match self {
            GrammarSource::None => None,
            GrammarSource::Named(name) => Some(name),
            GrammarSource::Embedded { origin, .. } => Some(origin),
        }
    }

    fn load(&self) -> Result<Option<Grammar>, String> {
        match self {
            GrammarSource::None => Ok(None),
            GrammarSource::Named(name) => Grammar::load(name).map(Some).map_err(|e| e.to_string()),
            GrammarSource::Embedded { origin, text } => {
                Grammar::from_text(text, origin).map(Some).map_err(|e| e.to_string())
            }
        }
    }
}

/// Shows a typed target's input: the `Debug` of the value built from the bytes, as `cargo fuzz fmt`
/// prints it (`None` when libfuzzer-sys would print nothing). See `typed::show_typed`.
pub type ShowFn = fn(&[u8]) -> Option<String>;

/// One fuzz target: what the macros put in a `static`. The grammar is loaded on first use.
pub struct Target {
    source: GrammarSource,
    parser: OnceLock<Option<Parser>>,
    init: Option<fn()>,
    init_once: Once,
    show: Option<ShowFn>,
}

impl Target {
    /// A target over bytes reducing with the grammar from `source`, without set-up.
    pub const fn new(source: GrammarSource) -> Target {
        Target::with(source, None, None)
    }

    /// A target with a one-time set-up `init` (the macro's `init: …`) and, for a typed input,
    /// `show` (its `Debug`, for `cargo fuzz fmt` and the minimized artifact's record).
    pub const fn with(source: GrammarSource, init: Option<fn()>, show: Option<ShowFn>) -> Target {
        Target {
            source,
            parser: OnceLock::new(),
            init,
            init_once: Once::new(),
            show,
        }
    }

    /// Runs the target's `init` if it has one and it has not run in this process: every runtime
    /// calls it before the first input (also in reduce mode), as libfuzzer-sys does from
    /// `LLVMFuzzerInitialize`.
    pub fn run_init(&self) {
        if let Some(init) = self.init {
            self.init_once.call_once(init);
        }
    }

    /// Whether the target takes a typed (`arbitrary`) input rather than bytes.
    pub fn is_typed(&self) -> bool {
        self.show.is_some()
    }

    /// The `Debug` of the typed value `bytes` build (`None` for a byte-slice target, when the
    /// bytes are too short to build one, or when the user's `Arbitrary` or `Debug` panics: the
    /// crash may be in them, and showing it must not end the reduction that found it).
    pub fn show_input(&self, bytes: &[u8]) -> Option<String> {
        let show = self.show?;
        crate::oracle::catch_panic(|| show(bytes)).ok().flatten()
    }

    /// Where the grammar comes from.
    pub fn source(&self) -> GrammarSource {
        self.source
    }

    /// The grammar, loaded once. A grammar that fails to load is reported on stderr (once) and
    /// treated as absent: a broken grammar must not stop the campaign, only make reduction coarser.
    pub fn grammar(&self) -> Option<&Grammar> {
        self.parser().map(Parser::grammar)
    }

    /// A parser for the grammar (see [`Target::grammar`]).
    pub fn parser(&self) -> Option<&Parser> {
        self.parser
            .get_or_init(|| match self.source.load() {
                Ok(grammar) => grammar.map(|g| Parser::new(&g)),
                Err(e) => {
                    eprintln!("hellfuzz: cannot load the grammar, reducing without it: {e}");
                    None
                }
            })
            .as_ref()
    }
}

/// How crashes are reduced, from the environment:
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `HELLFUZZ_MINIMIZE` | `0` turns reduce-on-crash off | on |
/// | `HELLFUZZ_REDUCE_TIME` | seconds of reduction per crash | 30 (at most a third of `-timeout`) |
/// | `HELLFUZZ_REDUCE_TESTS` | candidates per crash | unlimited |
/// | `HELLFUZZ_REDUCE_JOBS` | candidates tested at once (threads) | 1 |
/// | `HELLFUZZ_REDUCE_ALGO` | `gtr*`, `gtr`, `hdd*`, `hdd`, `ddmin` | `gtr*` |
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Settings {
    /// Whether crashes are reduced at all.
    pub enabled: bool,
    /// The reduction options (budget, algorithm, jobs).
    pub options: ReduceOptions,
}

/// Reduction time when nothing says otherwise: long enough for GTR* on typical crashes, short
/// next to libFuzzer's default `-timeout` of 1200 s.
pub const DEFAULT_REDUCE_TIME: Duration = Duration::from_secs(30);

impl Settings {
    /// Settings from the `HELLFUZZ_*` variables. `timeout` is the fuzzer's per-input timeout if
    /// known: the default time stays at a third of it, so a reduction is never mistaken for a hang.
    /// Malformed values are reported on stderr and replaced by the default.
    pub fn from_env(timeout: Option<Duration>) -> Settings {
        Settings::from_vars(timeout, |name| std::env::var(name).ok())
    }

    /// [`Settings::from_env`] with the variables looked up by `var` (for tests).
    pub fn from_vars(timeout: Option<Duration>, var: impl Fn(&str) -> Option<String>) -> Settings {
        let mut default_time = DEFAULT_REDUCE_TIME;
        if let Some(t) = timeout.filter(|t| !t.is_zero()) {
            default_time = default_time.min(t / 3);
        }
        let number = |name: &str| -> Option<f64> {
            let value = var(name)?;
            match value.trim().parse::<f64>() {
                Ok(n) if n >= 0.0 && n.is_finite() => Some(n),
                _ => {
                    eprintln!("hellfuzz: ignoring {name}={value:?}: expected a non-negative number");
                    None
                }
            }
        };
        let algorithm = var(env::REDUCE_ALGO_ENV).and_then(|name| {
            let algo = Algorithm::from_name(name.trim());
            if algo.is_none() {
                eprintln!(
                    "hellfuzz: ignoring {}={name:?}: expected gtr*, gtr, hdd*, hdd or ddmin",
                    env::REDUCE_ALGO_ENV
                );
            }
            algo
        });
        let options = ReduceOptions {
            algorithm: algorithm.unwrap_or(Algorithm::GtrStar),
            jobs: number(env::REDUCE_JOBS_ENV).map_or(1, |n| {
                if n < 1.0 {
                    eprintln!("hellfuzz: ignoring HELLFUZZ_REDUCE_JOBS=\"{n}\": expected at least 1; testing one candidate at a time");
                }
                (n as usize).max(1)
            }),
            budget: Budget {
                max_tests: number(env::REDUCE_TESTS_ENV).and_then(|n| {
                    if n < 1.0 {
                        // Not even the crash itself could be run: "does not fail" would be false.
                        eprintln!(
                            "hellfuzz: ignoring HELLFUZZ_REDUCE_TESTS=\"{n}\": expected at least 1 candidate (with 0 not even the crash is run); reducing without a limit on candidates"
                        );
                        None
                    } else {
                        Some(n as u64)
                    }
                }),
                max_time: Some(number(env::REDUCE_TIME_ENV).map_or(default_time, Duration::from_secs_f64)),
                cancel: None,
            },
            ..ReduceOptions::default()
        };
        Settings {
            enabled: var(env::MINIMIZE_ENV).is_none_or(|v| match v.trim() {
                "0" => false,
                "1" | "" => true,
                other => {
                    eprintln!(
                        "hellfuzz: {}={other:?} is neither 0 (off) nor 1 (on): minimizing",
                        env::MINIMIZE_ENV
                    );
                    true
                }
            }),
            options,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn defaults_stay_inside_the_fuzzer_timeout() {
        let s = Settings::from_vars(None, vars(&[]));
        assert!(s.enabled);
        assert_eq!(s.options.budget.max_time, Some(DEFAULT_REDUCE_TIME));
        let s = Settings::from_vars(Some(Duration::from_secs(12)), vars(&[]));
        assert_eq!(s.options.budget.max_time, Some(Duration::from_secs(4)));
        assert_eq!(s.options.algorithm, Algorithm::GtrStar);
    }

    #[test]
    fn odd_switches_and_no_jobs_fall_back_to_minimizing_one_at_a_time() {
        let s = Settings::from_vars(
            None,
            vars(&[("HELLFUZZ_MINIMIZE", "maybe"), ("HELLFUZZ_REDUCE_JOBS", "0")]),
        );
        assert!(s.enabled);
        assert_eq!(s.options.jobs, 1);
        assert!(!Settings::from_vars(None, vars(&[("HELLFUZZ_MINIMIZE", " 0 ")])).enabled);
        assert!(Settings::from_vars(None, vars(&[("HELLFUZZ_MINIMIZE", "1")])).enabled);
    }

    #[test]
    fn variables_override_and_bad_values_fall_back() {
        let s = Settings::from_vars(
            None,
            vars(&[
                ("HELLFUZZ_REDUCE_TIME", "2.5"),
                ("HELLFUZZ_REDUCE_TESTS", "100"),
                ("HELLFUZZ_REDUCE_JOBS", "nope"),
                ("HELLFUZZ_REDUCE_ALGO", "hdd"),
                ("HELLFUZZ_MINIMIZE", "0"),
            ]),
        );
        assert!(!s.enabled);
        assert_eq!(s.options.budget.max_time, Some(Duration::from_millis(2500)));
        assert_eq!(s.options.budget.max_tests, Some(100));
        assert_eq!(s.options.jobs, 1);
        assert_eq!(s.options.algorithm, Algorithm::Hdd);
    }

    #[test]
    fn a_budget_of_no_tests_is_ignored_not_obeyed() {
        // With 0 not even the crash could be run, and "the input does not fail" would follow.
        for zero in ["0", "0.5"] {
            let s = Settings::from_vars(None, vars(&[("HELLFUZZ_REDUCE_TESTS", zero)]));
            assert_eq!(s.options.budget.max_tests, None, "{zero}");
        }
        let s = Settings::from_vars(None, vars(&[("HELLFUZZ_REDUCE_TESTS", "1")]));
        assert_eq!(s.options.budget.max_tests, Some(1));
    }
}
