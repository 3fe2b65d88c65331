//! `fuzz_target!` and `fuzz_mutator!`: the user-facing macros. Which runtime they expand to is
//! decided by hellfuzz's features (`libfuzzer`, `afl`, or neither: a plain binary).
//!
//! The closure body becomes a named `#[inline(never)]` function, so backtraces and signatures
//! show the target's own frame (as libfuzzer-sys does).

/// Defines a fuzz target whose crashes are minimized with a grammar before they are saved.
///
/// ```ignore
/// hellfuzz::fuzz_target!(grammar = "json", |data: &[u8]| { /* ... */ });       // built-in or path
/// hellfuzz::fuzz_target!(grammar_file = "my.grammar", |data: &[u8]| { /* ... */ }); // compiled in
/// hellfuzz::fuzz_target!(|data: &[u8]| { /* ... */ });                        // no grammar
/// ```
///
/// `grammar_file` is relative to the target crate's `Cargo.toml` and embedded in the binary.
#[macro_export]
macro_rules! fuzz_target {
    (grammar = $name:expr, |$data:ident: &[u8]| $body:block) => {
        $crate::__hellfuzz_runtime!($crate::harness::GrammarSource::Named($name), |$data| $body);
    };
    (grammar_file = $path:literal, |$data:ident: &[u8]| $body:block) => {
        $crate::__hellfuzz_runtime!(
            $crate::harness::GrammarSource::Embedded {
                origin: $path,
                text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $path)),
            },
            |$data| $body
        );
    };
    (|$data:ident: &[u8]| $body:block) => {
        $crate::__hellfuzz_runtime!($crate::harness::GrammarSource::None, |$data| $body);
    };
}

#[cfg(feature = "libfuzzer")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_runtime {
    ($grammar:expr, |$data:ident| $body:block) => {
        const _: () = {
            static TARGET: $crate::harness::Target = $crate::harness::Target::new($grammar);

            #[no_mangle]
            pub extern "C" fn LLVMFuzzerInitialize(
                argc: *const std::os::raw::c_int,
                argv: *const *const *const u8,
            ) -> std::os::raw::c_int {
                // Safety: libFuzzer passes its own argc/argv.
                unsafe { $crate::harness::libfuzzer::initialize(&TARGET, argc, argv, __hellfuzz_run) };
                0
            }

            #[no_mangle]
            #[allow(improper_ctypes_definitions)]
            pub extern "C" fn rust_fuzzer_test_input(bytes: &[u8]) -> i32 {
                $crate::harness::libfuzzer::test_input(&TARGET, bytes, __hellfuzz_run)
            }

            #[inline(never)]
            fn __hellfuzz_run($data: &[u8]) {
                $body
            }
        };
    };
}

/// AFL and the plain binary own `main`; which one runs is `harness::main_runtime`.
#[cfg(not(feature = "libfuzzer"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_runtime {
    ($grammar:expr, |$data:ident| $body:block) => {
        static __HELLFUZZ_TARGET: $crate::harness::Target = $crate::harness::Target::new($grammar);

        #[inline(never)]
        fn __hellfuzz_run($data: &[u8]) {
            $body
        }

        fn main() {
            $crate::harness::main_runtime(&__HELLFUZZ_TARGET, __hellfuzz_run);
        }
    };
}

/// Installs the grammar-aware custom mutator for libFuzzer (feature `libfuzzer`): subtree
/// regeneration from the grammar's built-in samples' model (`HELLFUZZ_MUTATOR=inverted` for
/// inputs from hell) and splicing, with libFuzzer's own mutation for inputs that do not parse.
///
/// ```ignore
/// hellfuzz::fuzz_mutator!(grammar = "json");
/// ```
#[cfg(feature = "libfuzzer")]
#[macro_export]
macro_rules! fuzz_mutator {
    (grammar = $name:expr) => {
        $crate::__hellfuzz_mutator!($crate::harness::GrammarSource::Named($name));
    };
    (grammar_file = $path:literal) => {
        $crate::__hellfuzz_mutator!($crate::harness::GrammarSource::Embedded {
            origin: $path,
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $path)),
        });
    };
}

#[cfg(feature = "libfuzzer")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_mutator {
    ($grammar:expr) => {
        const _: () = {
            static MUTATOR: $crate::harness::SharedMutator = $crate::harness::SharedMutator::new($grammar);

            #[export_name = "LLVMFuzzerCustomMutator"]
            pub unsafe extern "C" fn __hellfuzz_custom_mutator(
                data: *mut u8,
                size: usize,
                max_size: usize,
                seed: std::os::raw::c_uint,
            ) -> usize {
                // Safety: libFuzzer's buffer holds max(size, max_size) bytes.
                let buffer = unsafe { std::slice::from_raw_parts_mut(data, size.max(max_size)) };
                MUTATOR.mutate(buffer, size, max_size, seed as u32)
            }
        };
    };
}
