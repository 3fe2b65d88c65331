//! libfuzzer-sys's shortest form, `|data| expression` (bytes, no type, no braces), built as a
//! plain binary; tests/harness.rs runs and reduces it. It panics on inputs holding `bug`.

fn check(data: &[u8]) {
    if let Some(at) = data.windows(3).position(|w| w == b"bug") {
        panic!("bug at byte {at}");
    }
}

hellfuzz::fuzz_target!(|data| check(data));
