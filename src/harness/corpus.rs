//! [`Corpus`]: what a fuzz target returns to keep an input out of the corpus (`-> Corpus`), the
//! same type as libfuzzer-sys's under the `libfuzzer` feature and an identical enum otherwise.

/// Whether the input is kept in the corpus (`Keep`, also what `()` means) or rejected (`Reject`).
///
/// Under the `libfuzzer` feature this is `libfuzzer_sys::Corpus`, so a target written for
/// libfuzzer-sys compiles unchanged; AFL and the plain binary have no corpus to keep an input
/// out of, and treat `Reject` as a run that found nothing. A rejected input never counts as a
/// crash while minimizing, since it returned normally.
#[cfg(feature = "libfuzzer")]
pub use libfuzzer_sys::Corpus;

/// Whether the input is kept in the corpus (`Keep`, also what `()` means) or rejected (`Reject`).
///
/// Under the `libfuzzer` feature this is `libfuzzer_sys::Corpus`, so a target written for
/// libfuzzer-sys compiles unchanged; AFL and the plain binary have no corpus to keep an input
/// out of, and treat `Reject` as a run that found nothing. A rejected input never counts as a
/// crash while minimizing, since it returned normally.
#[cfg(not(feature = "libfuzzer"))]
#[derive(Debug)]
pub enum Corpus {
    /// Keep the input in the corpus.
    Keep,
    /// Reject the input and do not keep it in the corpus.
    Reject,
}

#[cfg(not(feature = "libfuzzer"))]
impl From<()> for Corpus {
    fn from(_: ()) -> Self {
        Corpus::Keep
    }
}

#[cfg(not(feature = "libfuzzer"))]
impl Corpus {
    /// libFuzzer's code for this verdict: -1 for `Reject`, 0 for `Keep` (as libfuzzer-sys's).
    pub fn to_libfuzzer_code(self) -> i32 {
        match self {
            Corpus::Keep => 0,
            Corpus::Reject => -1,
        }
    }
}

/// The shape of every harness's entry point that the wrappers call: one run of the target on raw
/// bytes (for a typed target: the value built from them as libfuzzer-sys builds it, `Reject` when
/// that fails), and its verdict.
pub type RunFn = fn(&[u8]) -> Corpus;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_means_keep_and_codes_match_libfuzzer() {
        assert_eq!(Corpus::from(()).to_libfuzzer_code(), 0);
        assert_eq!(Corpus::Keep.to_libfuzzer_code(), 0);
        assert_eq!(Corpus::Reject.to_libfuzzer_code(), -1);
    }
}
