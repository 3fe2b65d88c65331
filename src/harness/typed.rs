//! Typed fuzz-target inputs (`|input: T|`, `T: arbitrary::Arbitrary`): the value is built from the
//! raw bytes exactly as libfuzzer-sys 0.4 builds it, and shown as `cargo fuzz fmt` shows it.
//!
//! Everything else (the fuzzer, reduction, artifacts) sees only the bytes: a minimizing candidate
//! is rebuilt by [`run_typed`] just as the fuzzer's input was, so the reducer needs no knowledge
//! of `T`, and the minimized artifact is a byte file that `cargo fuzz run` reproduces.

use arbitrary::{Arbitrary, Unstructured};

use super::corpus::Corpus;

/// Builds a `T` from `bytes` as libfuzzer-sys's `fuzz_target!` does: `None` when the input is
/// shorter than `T`'s lower size hint (rejected before construction is tried), else the result of
/// `T::arbitrary_take_rest` on the whole input.
pub fn build<'a, T: Arbitrary<'a>>(bytes: &'a [u8]) -> Option<arbitrary::Result<T>> {
    if bytes.len() < T::size_hint(0).0 {
        return None;
    }
    Some(T::arbitrary_take_rest(Unstructured::new(bytes)))
}

/// One run of a typed target: `run` on the value built from `bytes`, or [`Corpus::Reject`]
/// without running it when the bytes build no value (libfuzzer-sys's `-1`).
pub fn run_typed<'a, T: Arbitrary<'a>, R: Into<Corpus>>(bytes: &'a [u8], run: fn(T) -> R) -> Corpus {
    match build::<T>(bytes) {
        Some(Ok(value)) => run(value).into(),
        Some(Err(_)) | None => Corpus::Reject,
    }
}

/// What `cargo fuzz fmt` prints for `bytes` (libfuzzer-sys's `RUST_LIBFUZZER_DEBUG_PATH`): the
/// value's `{:#?}`, or `Arbitrary Error: <error>` when it cannot be built; `None` (nothing
/// written) when the input is shorter than the size hint.
pub fn show_typed<'a, T: Arbitrary<'a> + std::fmt::Debug>(bytes: &'a [u8]) -> Option<String> {
    Some(match build::<T>(bytes)? {
        Ok(value) => format!("{value:#?}"),
        Err(e) => format!("Arbitrary Error: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written `Arbitrary` with a lower size hint of 3 and a construction that can fail.
    #[derive(Debug, PartialEq)]
    struct Rgb(u8, u8, u8);

    impl<'a> Arbitrary<'a> for Rgb {
        fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
            let rgb = Rgb(u.arbitrary()?, u.arbitrary()?, u.arbitrary()?);
            if rgb.0 == 0xff {
                return Err(arbitrary::Error::IncorrectFormat);
            }
            Ok(rgb)
        }

        fn size_hint(_depth: usize) -> (usize, Option<usize>) {
            (3, Some(3))
        }
    }

    fn red(rgb: Rgb) -> Corpus {
        if rgb.0 > 128 {
            Corpus::Keep
        } else {
            Corpus::Reject
        }
    }

    #[test]
    fn inputs_are_built_checked_and_shown_as_libfuzzer_sys_does() {
        assert!(build::<Rgb>(b"ab").is_none(), "shorter than the size hint");
        assert_eq!(build::<Rgb>(b"abcdef").unwrap().unwrap(), Rgb(b'a', b'b', b'c'));
        assert!(build::<Rgb>(b"\xffbc").unwrap().is_err());

        assert_eq!(run_typed(b"\xf0bc", red).to_libfuzzer_code(), 0);
        assert_eq!(run_typed(b"abc", red).to_libfuzzer_code(), -1, "the target rejects it");
        assert_eq!(run_typed(b"ab", red).to_libfuzzer_code(), -1, "too short: not run");
        assert_eq!(run_typed(b"\xffbc", red).to_libfuzzer_code(), -1, "no value: not run");
        assert_eq!(run_typed(b"abc", |_: Rgb| ()).to_libfuzzer_code(), 0);

        assert_eq!(show_typed::<Rgb>(b"ab"), None);
        assert_eq!(show_typed::<Rgb>(b"abc").unwrap(), format!("{:#?}", Rgb(97, 98, 99)));
        assert_eq!(
            show_typed::<Rgb>(b"\xffbc").unwrap(),
            format!("Arbitrary Error: {}", arbitrary::Error::IncorrectFormat)
        );
    }
}
