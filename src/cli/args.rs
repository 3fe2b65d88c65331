//! Arguments several subcommands share, and the value parsers that validate arguments before any
//! work starts (clap reports a bad value with the usage, never a panic).

use std::time::Duration;

use hellfuzz::reduce::{Algorithm, Budget};

/// `reduce --algo` and the harness's `HELLFUZZ_REDUCE_ALGO`: the reduction algorithms by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AlgoArg {
    /// GTR* (GTR repeated until the size stops changing): 1-tree-minimal.
    #[value(name = "gtr*")]
    GtrStar,
    /// One pass of GTR (deletion, substitution by a descendant, cheapest derivation).
    Gtr,
    /// HDD* (HDD repeated): deletion only, level by level.
    #[value(name = "hdd*")]
    HddStar,
    /// One pass of HDD.
    Hdd,
    /// ddmin over the input's bytes.
    Ddmin,
}

impl From<AlgoArg> for Algorithm {
    fn from(a: AlgoArg) -> Algorithm {
        match a {
            AlgoArg::GtrStar => Algorithm::GtrStar,
            AlgoArg::Gtr => Algorithm::Gtr,
            AlgoArg::HddStar => Algorithm::HddStar,
            AlgoArg::Hdd => Algorithm::Hdd,
            AlgoArg::Ddmin => Algorithm::Ddmin,
        }
    }
}

/// How hard `reduce` and `repair` search: one set of options for both commands.
#[derive(clap::Args)]
pub struct SearchLimits {
    /// Candidates tested at once (the result is the same as with -j 1).
    #[arg(short = 'j', long, default_value_t = 1, value_parser = at_least_one, allow_negative_numbers = true)]
    pub jobs: usize,
    /// Seconds before a run of the command is killed. reduce: a timed-out run is the failure when
    /// the original timed out too, else unresolved; repair: not processed. A command that times
    /// out on the input and on an empty input alike is refused.
    #[arg(long, default_value = "10", value_parser = positive_seconds, allow_negative_numbers = true)]
    pub timeout: Duration,
    /// Stop after testing this many candidates (the best input so far is kept).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
    pub max_tests: Option<u64>,
    /// Stop after this many seconds (the best input so far is kept).
    #[arg(long, value_parser = positive_seconds, allow_negative_numbers = true)]
    pub max_time: Option<Duration>,
}

impl SearchLimits {
    /// The search budget (no cancel flag: the command installs its own Ctrl-C handler).
    pub fn budget(&self) -> Budget {
        let mut budget = Budget::default();
        budget.max_tests = self.max_tests;
        budget.max_time = self.max_time;
        budget
    }

    /// The per-run timeout of the command.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// A number of seconds: finite and not negative.
pub fn seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text.parse().map_err(|e| format!("not a number of seconds: {e}"))?;
    Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("{text} is not a number of seconds above 0 (finite, below 1.8e19)"))
}

/// A number of seconds above zero: a limit of 0 would make every run time out, and every
/// timed-out run look like the failure being reduced.
pub fn positive_seconds(text: &str) -> Result<Duration, String> {
    let d = seconds(text)?;
    if d.is_zero() {
        return Err(format!("{text}: must be more than 0 seconds"));
    }
    Ok(d)
}

/// A simplification pass of `reduce --passes` by name (`none`: no pass).
pub fn parse_pass(text: &str) -> Result<Option<hellfuzz::reduce::Pass>, String> {
    use hellfuzz::reduce::Pass;
    if text == "none" {
        return Ok(None);
    }
    Pass::from_name(text).map(Some).ok_or_else(|| {
        let names: Vec<&str> = Pass::ALL.iter().map(|p| p.name()).collect();
        format!("unknown pass `{text}`: use {} or none", names.join(", "))
    })
}

/// The largest `--max-size`: generation needs memory proportional to it (a tree of up to 16
/// nodes per byte), about 40 bytes per byte of input; above this it would need gigabytes.
pub const MAX_SIZE_LIMIT: usize = 64 << 20;

/// A size in bytes (`--min-size`).
pub fn size(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .map_err(|_| format!("{text} is not a size in bytes (a whole number, 0 or more)"))
}

/// `--max-size`: at least 1 byte, at most [`MAX_SIZE_LIMIT`].
pub fn max_size(text: &str) -> Result<usize, String> {
    match size(text)? {
        0 => Err("must be at least 1 byte".to_string()),
        n if n > MAX_SIZE_LIMIT => Err(format!(
            "{n} bytes is more than gen makes in one input (at most {MAX_SIZE_LIMIT}, 64 MiB: memory grows with --max-size); for larger inputs, concatenate generated ones"
        )),
        n => Ok(n),
    }
}

/// A `--seed`: a whole number from 0 to 2^64-1.
pub fn seed(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("{text} is not a seed (a whole number from 0 to {})", u64::MAX))
}

/// A stack distance threshold: more than 0 (0 would join nothing), at most 1.
pub fn stack_distance(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 1.0 => Ok(t),
        Ok(_) => Err(format!(
            "{text}: a stack distance is more than 0 and at most 1 (CASR uses 0.3)"
        )),
        Err(e) => Err(format!("{text}: not a number ({e})")),
    }
}

/// A count of at least 1 (workers, runs).
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{text} is not a count (a whole number, at least 1)")),
    }
}
