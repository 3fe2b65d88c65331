//! Oracles: "is this candidate still interesting?" (placeholder; the oracle module is being written).

/// What an oracle says about one candidate input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Still shows the property (for crashes: the same signature as the original).
    Fail,
    /// Does not show it.
    Pass,
    /// Neither: the test could not decide (another crash, a timeout, a broken harness).
    Unresolved,
}

/// Anything that classifies candidate inputs. Implementations must be usable from several
/// threads at once (reducers test candidates in parallel with `-j`).
pub trait Oracle: Send + Sync {
    /// Classifies one candidate.
    fn test(&self, input: &[u8]) -> Outcome;
}

impl<F: Fn(&[u8]) -> Outcome + Send + Sync> Oracle for F {
    fn test(&self, input: &[u8]) -> Outcome {
        self(input)
    }
}
