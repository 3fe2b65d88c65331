//! Frame parsing, filtering and hashing on verbatim outputs of rustc 1.95 and libFuzzer.

use super::*;
use crate::oracle::parse_panic;

/// Two bugs whose panics share one helper (same location, same message): the top three raw
/// frames are equal, the callers below differ. Shape as printed with RUST_BACKTRACE=1.
fn shared_helper_trace(caller: &str, n: usize) -> String {
    format!(
        "\nthread 'main' (1{n}) panicked at src/check.rs:1:37:\ninvariant violated at depth {n}\nstack backtrace:\n\
         \x20  0: __rustc::rust_begin_unwind\n             at /rustc/5980/library/std/src/panicking.rs:689:5\n\
         \x20  1: core::panicking::panic_fmt\n             at /rustc/5980/library/core/src/panicking.rs:80:14\n\
         \x20  2: p::fail\n             at ./src/check.rs:1:37\n\
         \x20  3: p::check\n             at ./src/check.rs:2:50\n\
         \x20  4: p::{caller}\n             at ./src/parse.rs:3:37\n\
         \x20  5: p::main\n             at ./src/main.rs:4:153\n\
         \x20  6: core::ops::function::FnOnce::call_once\n             at /rustc/5980/library/core/src/ops/function.rs:250:5\n\
         note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n"
    )
}

#[test]
fn rust_short_backtrace_frames() {
    let text = shared_helper_trace("object", 3);
    let frames = backtrace_frames(&text);
    assert_eq!(frames.len(), 7);
    assert_eq!(frames[0], "__rustc::rust_begin_unwind");
    assert_eq!(frames[4], "p::object");
    assert_eq!(crash_frames(&text), ["p::fail", "p::check", "p::object", "p::main"]);
}

#[test]
fn full_backtrace_addresses_and_hashes_are_stripped() {
    let text = concat!(
        "stack backtrace:\n",
        "   0:     0x555870613eba - std[e28293b1aa0f68bd]::backtrace_rs::backtrace::libunwind::trace\n",
        "                               at /rustc/x/library/std/src/../../backtrace/src/backtrace/libunwind.rs:117:9\n",
        "   1:     0x555870613ebb - p::parse::h0123456789abcdef\n",
        "   2:     0x555870613ebc - <p::Doc as core::fmt::Display>::fmt::hfedcba9876543210\n",
        "   3:     0x555870613ebd - <usize as core::slice::index::SliceIndex<[T]>>::index\n",
        "   4:        0x0 - <unknown>\n",
        "after the trace\n",
        "   9: not a frame of it\n",
    );
    assert_eq!(
        backtrace_frames(text),
        [
            "std::backtrace_rs::backtrace::libunwind::trace",
            "p::parse",
            "<p::Doc as core::fmt::Display>::fmt",
            "<usize as core::slice::index::SliceIndex<[T]>>::index",
            "<unknown>",
        ]
    );
    assert_eq!(crash_frames(text), ["p::parse", "<p::Doc as core::fmt::Display>::fmt"]);
}

#[test]
fn sanitizer_trace_frames() {
    let text = concat!(
        "==4242== ERROR: libFuzzer: deadly signal\n",
        "    #0 0x55d5a1 in __sanitizer_print_stack_trace (/out/t+0x1a2b)\n",
        "    #1 0x55d5a2 in fuzzer::PrintStackTrace() /src/FuzzerUtil.cpp:210:5\n",
        "    #2 0x55d5a3 in abort\n",
        "    #3 0x55d5a4 in std::process::abort::h0123456789abcdef /rustc/x/library/std/src/process.rs:2000:5\n",
        "    #4 0x55d5a5 in t::decode::h0123456789abcdef /src/t.rs:12:9\n",
        "    #5 0x55d5a6 in <t::Reader as std::io::Read>::read /src/t.rs:40:1\n",
        "    #6 0x55d5a7 in rust_fuzzer_test_input /cargo/libfuzzer-sys/src/lib.rs:1:1\n",
        "\n",
        "    #0 0x1 in another::trace\n",
    );
    assert_eq!(crash_frames(text), ["t::decode", "<t::Reader as std::io::Read>::read"]);
}

#[test]
fn rust_trace_wins_over_sanitizer_trace() {
    let text = format!(
        "{}    #0 0x1 in other::f /src/o.rs:1:1\n",
        shared_helper_trace("array", 1)
    );
    assert_eq!(crash_frames(&text), ["p::fail", "p::check", "p::array", "p::main"]);
}

#[test]
fn no_backtrace() {
    assert!(
        backtrace_frames("thread 'main' panicked at a.rs:1:1:\nboom\nnote: run with `RUST_BACKTRACE=1`\n").is_empty()
    );
    assert!(backtrace_frames("").is_empty());
}

#[test]
fn machinery_frames() {
    for f in [
        "__rustc::rust_begin_unwind",
        "rust_begin_unwind",
        "core::panicking::panic_bounds_check",
        "core::slice::index::<impl core::ops::index::Index<I> for [T]>::index",
        "<alloc::vec::Vec<T,A> as core::ops::index::Index<I>>::index",
        "<[T] as core::fmt::Debug>::fmt",
        "std::panic::catch_unwind",
        "__rust_start_panic",
        "rust_fuzzer_test_input",
        "fuzz_target_1::_::__libfuzzer_sys_run",
        "libfuzzer_sys::test_input_wrap",
        "main",
        "hellfuzz::harness::run",
    ] {
        assert!(is_machinery_frame(f), "{f}");
    }
    for f in [
        "p::fail",
        "<p::Doc as core::fmt::Display>::fmt",
        "p::main::{{closure}}",
        "mainframe::x",
    ] {
        assert!(!is_machinery_frame(f), "{f}");
    }
}

/// The anchors' known failure: both traces have the same top-3 raw frames, so ClusterFuzz's crash
/// state merges them; the coarse hash keeps them apart.
#[test]
fn shared_helper_bugs_get_different_coarse_hashes() {
    let (a, b) = (shared_helper_trace("object", 3), shared_helper_trace("array", 17));
    assert_eq!(backtrace_frames(&a)[..3], backtrace_frames(&b)[..3]);
    let (sa, sb) = (parse_panic(&a).unwrap(), parse_panic(&b).unwrap());
    assert!(sa.matches(&sb), "same location and normalized message");
    let ha = CrashHashes::new(&sa, &crash_frames(&a));
    let hb = CrashHashes::new(&sb, &crash_frames(&b));
    assert_ne!(ha.coarse, hb.coarse);
    assert_ne!(ha.exact, hb.exact);
    // The same bug with other numbers in the message: one hash.
    assert_eq!(
        ha,
        CrashHashes::new(&sa, &crash_frames(&shared_helper_trace("object", 99)))
    );
}

#[test]
fn coarse_hash_ignores_deep_frames_exact_does_not() {
    let sig = Signature::panic(Some("a.rs:1:1".into()), "boom 1");
    let frames: Vec<String> = (0..8).map(|i| format!("p::f{i}")).collect();
    let mut deeper = frames.clone();
    deeper[7] = "p::other".into();
    let (h1, h2) = (CrashHashes::new(&sig, &frames), CrashHashes::new(&sig, &deeper));
    assert_eq!(h1.coarse, h2.coarse);
    assert_ne!(h1.exact, h2.exact);
    let mut shallow = frames.clone();
    shallow[COARSE_FRAMES - 1] = "p::other".into();
    assert_ne!(h1.coarse, CrashHashes::new(&sig, &shallow).coarse);
    let other_kind = Signature {
        kind: CrashKind::Signal(6),
        ..sig.clone()
    };
    assert_ne!(h1.coarse, CrashHashes::new(&other_kind, &frames).coarse);
    assert_eq!(h1.coarse.len(), 40);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Numbers in the message never split a group; frames below the top COARSE_FRAMES never
        /// change the coarse hash; any change in the top frames does.
        #[test]
        fn coarse_hash_invariants(
            a in any::<u64>(),
            b in any::<u64>(),
            frames in proptest::collection::vec("[a-z]{1,6}(::[a-z]{1,6}){0,2}", 0..10),
            deep in "[a-z]{1,8}",
        ) {
            let sig = |n: u64| Signature::panic(Some("src/p.rs:3:9".into()), format!("index {n} at 0x{n:x}"));
            let h = CrashHashes::new(&sig(a), &frames);
            prop_assert_eq!(&h, &CrashHashes::new(&sig(b), &frames));
            let mut deeper = frames.clone();
            deeper.push(deep.clone());
            let hd = CrashHashes::new(&sig(a), &deeper);
            prop_assert_eq!(frames.len() >= COARSE_FRAMES, hd.coarse == h.coarse);
            prop_assert_ne!(hd.exact, h.exact);
        }

        /// Cleaning a symbol twice changes nothing, and removes every `::h<16 hex>` suffix.
        #[test]
        fn clean_symbol_is_idempotent(path in "[a-z_]{1,8}(::[a-z_<>]{1,8}){0,3}", hash in "[0-9a-f]{16}") {
            let once = clean_symbol(&format!("{path}::h{hash}"));
            prop_assert_eq!(&once, &path);
            prop_assert_eq!(clean_symbol(&once), once);
        }
    }
}
