//! [`ReductionStats`]: what a reduction ran and what it cost, the one record that the reducer's
//! result, the fuzz-target harness's `minimized-*.json` and triage's groups all embed.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Algorithm;

/// What ran and what it cost. Embedded (flattened in JSON) in [`Reduction`](super::Reduction),
/// [`HarnessReduction`](crate::harness::HarnessReduction),
/// [`ArtifactRecord`](crate::harness::ArtifactRecord) and triage's
/// [`Minimized`](crate::triage::Minimized), so every record spells these fields alike. Fields a
/// record read back from an older file lacks take their defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ReductionStats {
    /// The algorithm that ran (in JSON by its `--algo` name: `gtr*`, `ddmin`, ...).
    pub algorithm: Algorithm,
    /// Candidates tested (oracle runs and cache hits alike).
    #[serde(deserialize_with = "json_number::count")]
    pub tests: u64,
    /// Real oracle runs (candidates not answered by the cache), the final confirmation included.
    #[serde(deserialize_with = "json_number::count")]
    pub oracle_calls: u64,
    /// Candidates answered by the content-hash cache.
    #[serde(deserialize_with = "json_number::count")]
    pub cache_hits: u64,
    /// Wall time (in JSON: `time_secs`, seconds).
    #[serde(
        rename = "time_secs",
        serialize_with = "json_number::secs",
        deserialize_with = "json_number::duration"
    )]
    pub time: Duration,
    /// The budget ran out (or the reduction was cancelled): the result is the best found, maybe
    /// not minimal.
    pub budget_exhausted: bool,
    /// Things the user should know (for example: the input did not parse, the oracle is flaky).
    pub notes: Vec<String>,
}

impl ReductionStats {
    /// A record of `algorithm` with nothing counted yet; the fields are then set one by one.
    pub fn new(algorithm: Algorithm) -> ReductionStats {
        ReductionStats {
            algorithm,
            ..ReductionStats::default()
        }
    }
}

/// JSON numbers of a flattened record. Flattening buffers the fields it does not know, and with
/// serde_json's `arbitrary_precision` (on in this crate's tests, and in any build that unifies the
/// feature in) a buffered number is a map that `u64`/`f64` refuse; `serde_json::Number` reads
/// both forms. A duration is written as fractional seconds (what scripts and older records read).
mod json_number {
    use std::time::Duration;

    use serde::{de::Error, Deserialize, Deserializer, Serializer};
    use serde_json::Number;

    pub fn secs<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let n = Number::deserialize(d)?;
        let secs = n
            .as_f64()
            .ok_or_else(|| D::Error::custom(format!("{n} is not a number of seconds")))?;
        Duration::try_from_secs_f64(secs).map_err(D::Error::custom)
    }

    pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let n = Number::deserialize(d)?;
        n.as_u64()
            .ok_or_else(|| D::Error::custom(format!("{n} is not a count")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_spells_the_algorithm_by_name_and_time_in_seconds_and_reads_older_records() {
        let stats = ReductionStats {
            oracle_calls: 7,
            time: Duration::from_millis(1500),
            ..ReductionStats::new(Algorithm::HddStar)
        };
        let json = serde_json::to_value(&stats).unwrap();
        assert_eq!(json["algorithm"], "hdd*");
        assert_eq!(json["time_secs"].as_f64(), Some(1.5));
        assert_eq!(serde_json::from_value::<ReductionStats>(json).unwrap(), stats);
        // A record written before `tests` and `cache_hits` were in it.
        let old =
            r#"{"algorithm": "ddmin", "oracle_calls": 3, "time_secs": 0.25, "budget_exhausted": true, "notes": ["x"]}"#;
        let read: ReductionStats = serde_json::from_str(old).unwrap();
        assert_eq!(
            (read.algorithm, read.tests, read.oracle_calls),
            (Algorithm::Ddmin, 0, 3)
        );
        assert_eq!(read.time, Duration::from_millis(250));
        assert!(read.budget_exhausted);
        assert!(serde_json::from_str::<ReductionStats>(r#"{"algorithm": "quick"}"#).is_err());
    }
}
