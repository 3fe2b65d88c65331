//! "Did the program process it?": the oracle input repair maximizes towards.
//!
//! [`Processed`] runs a [`Subprocess`] and answers Pass for a clean exit (status 0), Fail for any
//! other exit status or a signal, Unresolved for a timeout or a run that could not start.

use super::subprocess::{Exit, Subprocess};
use super::{Oracle, Outcome};

/// A subprocess oracle for repair (ddmax): Pass iff the command exits with status 0. The
/// command's [`Classify`](super::Classify) rule is not used, and no calibration is needed.
#[derive(Clone, Debug)]
pub struct Processed(pub Subprocess);

impl Processed {
    /// The outcome of a run that ended with `exit`, for callers that run the command themselves
    /// (to look at more of the run than the outcome).
    pub fn outcome(exit: &Exit) -> Outcome {
        match exit {
            Exit::Code(0) => Outcome::Pass,
            Exit::Code(_) | Exit::Signal(_) => Outcome::Fail,
            Exit::Timeout | Exit::NotRun(_) => Outcome::Unresolved,
        }
    }
}

impl Oracle for Processed {
    fn test(&self, input: &[u8]) -> Outcome {
        Processed::outcome(&self.0.run(input).exit)
    }
}
