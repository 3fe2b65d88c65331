//! `fuzz_target!` and `fuzz_mutator!`: the user-facing macros. Which runtime they expand to is
//! decided by hellfuzz's features (`libfuzzer`, `afl`, or neither: a plain binary).
//!
//! The closure body becomes a named `#[inline(never)]` function, so backtraces and signatures
//! show the target's own frame (as libfuzzer-sys does).

/// Defines a fuzz target whose crashes are minimized (with a grammar, for bytes) before they are
/// saved. Every form of libfuzzer-sys 0.4's `fuzz_target!` is accepted, with the same meaning:
///
/// ```ignore
/// hellfuzz::fuzz_target!(|data: &[u8]| { /* ... */ });                        // bytes
/// hellfuzz::fuzz_target!(|data| { /* ... */ });                               // the same
/// hellfuzz::fuzz_target!(|input: MyStruct| { /* ... */ });  // MyStruct: arbitrary::Arbitrary + Debug
/// hellfuzz::fuzz_target!(|data: &[u8]| -> hellfuzz::Corpus { /* ... */ });   // Reject: not kept
/// hellfuzz::fuzz_target!(init: { /* once */ }, |data: &[u8]| { /* ... */ });  // one-time set-up
/// ```
///
/// and, before the closure, the grammar used to minimize crashes of a byte-slice target:
///
/// ```ignore
/// hellfuzz::fuzz_target!(grammar = "json", |data: &[u8]| { /* ... */ });       // built-in or path
/// hellfuzz::fuzz_target!(grammar_file = "my.grammar", |data: &[u8]| { /* ... */ }); // compiled in
/// hellfuzz::fuzz_target!(grammar = "json", init: setup(), |data: &[u8]| -> Corpus { /* ... */ });
/// ```
///
/// `grammar_file` is relative to the target crate's `Cargo.toml` and embedded in the binary.
///
/// With a grammar, the grammar also shapes what libFuzzer tries (feature `libfuzzer`): the
/// target installs the grammar-aware custom mutator ([`fuzz_mutator!`]'s: subtrees regenerated,
/// spliced from other inputs, or their recursion repeated, with libFuzzer's own mutation for the
/// rest), and passes the grammar's literals to libFuzzer as a dictionary (`-dict=`, written to
/// `.hellfuzz/grammar.dict` beside the artifacts, unless the command line names one). Leave the
/// mutator out with `mutator = false` (to install a custom mutator of your own), turn it off at
/// run time with `HELLFUZZ_MUTATOR=off`, and the dictionary with `HELLFUZZ_DICT=0`:
///
/// ```ignore
/// hellfuzz::fuzz_target!(grammar = "json", mutator = false, |data: &[u8]| { /* ... */ });
/// ```
///
/// A panic is minimized and then ends the run, as with libfuzzer-sys. With `HELLFUZZ_CONTINUE=1`
/// (or `cargo fuzz run t -- --hellfuzz-continue`) the first panic of each signature is saved and
/// minimized and fuzzing goes on in the same process; later ones are counted in
/// `.hellfuzz/hellfuzz-crashes.json` in the artifacts folder (see [`ContinueSettings`](crate::harness::ContinueSettings)).
///
/// A typed input is built from the fuzzer's bytes exactly as libfuzzer-sys builds it
/// (`Unstructured::new(bytes)`, `arbitrary_take_rest`; an input shorter than the type's size
/// hint, or that builds no value, is rejected without running the body). Its type derives
/// `Arbitrary` from the user's own `arbitrary` 1.x dependency. Crashes are minimized on those
/// bytes: each candidate is rebuilt the same way, and the record shows the minimized value. A
/// grammar describes bytes, so it is refused with a typed input:
///
/// ```compile_fail
/// #[derive(Debug, arbitrary::Arbitrary)]
/// struct Point { x: u8, y: u8 }
/// hellfuzz::fuzz_target!(grammar = "json", |point: Point| { let _ = point; });
/// ```
///
/// ```no_run
/// #[derive(Debug, arbitrary::Arbitrary)]
/// struct Point { x: u8, y: u8 }
/// hellfuzz::fuzz_target!(|point: Point| { let _ = point; });
/// ```
#[macro_export]
macro_rules! fuzz_target {
    ($($input:tt)*) => {
        $crate::__hellfuzz_target!(@options [] [] [] $($input)*);
    };
}

/// `fuzz_target!`'s parser: options (`grammar =`, `grammar_file =`, `init:`, `mutator =`, in any
/// order) into `[grammar] [init] [mutator]`, then one of the closure forms.
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_target {
    // Options.
    (@options [] [$($init:tt)*] [$($mutator:tt)*] grammar = $name:expr, $($rest:tt)*) => {
        $crate::__hellfuzz_target!(@options [$crate::harness::GrammarSource::Named($name)] [$($init)*] [$($mutator)*] $($rest)*);
    };
    (@options [] [$($init:tt)*] [$($mutator:tt)*] grammar_file = $path:literal, $($rest:tt)*) => {
        $crate::__hellfuzz_target!(
            @options
            [$crate::harness::GrammarSource::Embedded {
                origin: $path,
                text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $path)),
            }]
            [$($init)*]
            [$($mutator)*]
            $($rest)*
        );
    };
    (@options [$($grammar:tt)+] [$($init:tt)*] [$($mutator:tt)*] grammar $($rest:tt)*) => {
        compile_error!("hellfuzz::fuzz_target!: give one grammar (`grammar = …` or `grammar_file = …`), not two");
    };
    (@options [$($grammar:tt)+] [$($init:tt)*] [$($mutator:tt)*] grammar_file $($rest:tt)*) => {
        compile_error!("hellfuzz::fuzz_target!: give one grammar (`grammar = …` or `grammar_file = …`), not two");
    };
    (@options [$($grammar:tt)*] [] [$($mutator:tt)*] init: $init:expr, $($rest:tt)*) => {
        $crate::__hellfuzz_target!(@options [$($grammar)*] [$init] [$($mutator)*] $($rest)*);
    };
    (@options [$($grammar:tt)*] [$($init:tt)+] [$($mutator:tt)*] init: $($rest:tt)*) => {
        compile_error!("hellfuzz::fuzz_target!: `init:` is given twice");
    };
    (@options [$($grammar:tt)*] [$($init:tt)*] [] mutator = false, $($rest:tt)*) => {
        $crate::__hellfuzz_target!(@options [$($grammar)*] [$($init)*] [off] $($rest)*);
    };
    (@options [$($grammar:tt)*] [$($init:tt)*] [] mutator = true, $($rest:tt)*) => {
        $crate::__hellfuzz_target!(@options [$($grammar)*] [$($init)*] [on] $($rest)*);
    };
    (@options [$($grammar:tt)*] [$($init:tt)*] [$($mutator:tt)+] mutator $($rest:tt)*) => {
        compile_error!("hellfuzz::fuzz_target!: `mutator =` is given twice");
    };
    (@options [$($grammar:tt)*] [$($init:tt)*] [] mutator $($rest:tt)*) => {
        compile_error!("hellfuzz::fuzz_target!: `mutator =` takes `true` (the default with a grammar) or `false`");
    };

    // Byte-slice closures (before the typed ones: `&[u8]` would match `$ty` too).
    (@options [$($grammar:tt)*] [$($init:tt)*] [$($mutator:tt)*] |$data:ident| $body:expr $(,)?) => {
        $crate::__hellfuzz_target!(@bytes [$($grammar)*] [$($init)*] [$($mutator)*] $data, (), { $body });
    };
    (@options [$($grammar:tt)*] [$($init:tt)*] [$($mutator:tt)*] |$data:ident: &[u8]| $body:expr $(,)?) => {
        $crate::__hellfuzz_target!(@bytes [$($grammar)*] [$($init)*] [$($mutator)*] $data, (), { $body });
    };
    (@options [$($grammar:tt)*] [$($init:tt)*] [$($mutator:tt)*] |$data:ident: &[u8]| -> $rty:ty $body:block $(,)?) => {
        $crate::__hellfuzz_target!(@bytes [$($grammar)*] [$($init)*] [$($mutator)*] $data, $rty, $body);
    };

    // Typed closures.
    (@options [$($grammar:tt)+] [$($init:tt)*] [$($mutator:tt)*] |$data:ident: $dty:ty| $($rest:tt)*) => {
        compile_error!(concat!(
            "hellfuzz::fuzz_target!: a grammar describes the input bytes, but this target takes a typed input (`",
            stringify!($dty),
            "`) that `arbitrary` builds from the bytes; remove `grammar`/`grammar_file` (crashes are then minimized on the raw bytes), or take `|",
            stringify!($data),
            ": &[u8]|` and parse the bytes yourself"
        ));
    };
    (@options [] [$($init:tt)*] [$($mutator:tt)*] |$data:ident: $dty:ty| $body:expr $(,)?) => {
        $crate::__hellfuzz_target!(@typed [$($init)*] $data, $dty, (), { $body });
    };
    (@options [] [$($init:tt)*] [$($mutator:tt)*] |$data:ident: $dty:ty| -> $rty:ty $body:block $(,)?) => {
        $crate::__hellfuzz_target!(@typed [$($init)*] $data, $dty, $rty, $body);
    };

    (@options [$($grammar:tt)*] [$($init:tt)*] [$($mutator:tt)*] $($rest:tt)*) => {
        compile_error!(concat!(
            "hellfuzz::fuzz_target!: expected `|data: &[u8]| { … }`, `|input: Type| { … }` or either with `-> Corpus` before the body, ",
            "after the options `grammar = \"name\"`, `grammar_file = \"path\"`, `init: { … }`, `mutator = false` (each followed by a comma); found `",
            stringify!($($rest)*),
            "`"
        ));
    };

    // Expansion. `__hellfuzz_run` is the user's body, a named frame on the stack at a crash, as
    // libfuzzer-sys's `__libfuzzer_sys_run`; `__hellfuzz_input` is what the runtimes call.
    (@bytes [$($grammar:tt)*] [$($init:tt)*] [$($mutator:tt)*] $data:ident, $rty:ty, $body:block) => {
        $crate::__hellfuzz_target!(@mutator [$($grammar)*] [$($mutator)*]);
        $crate::__hellfuzz_runtime!(
            $crate::harness::Target::with(
                $crate::__hellfuzz_target!(@grammar $($grammar)*),
                $crate::__hellfuzz_target!(@init_fn $($init)*),
                None,
            );
            $crate::__hellfuzz_target!(@init_item $($init)*);
            $crate::__hellfuzz_target!(@mutator_item [$($grammar)*] [$($mutator)*]);

            #[inline(never)]
            fn __hellfuzz_run($data: &[u8]) -> $rty $body

            fn __hellfuzz_input(bytes: &[u8]) -> $crate::Corpus {
                $crate::Corpus::from(__hellfuzz_run(bytes))
            }
        );
    };
    (@typed [$($init:tt)*] $data:ident, $dty:ty, $rty:ty, $body:block) => {
        $crate::__hellfuzz_runtime!(
            $crate::harness::Target::with(
                $crate::harness::GrammarSource::None,
                $crate::__hellfuzz_target!(@init_fn $($init)*),
                Some(__hellfuzz_show),
            );
            $crate::__hellfuzz_target!(@init_item $($init)*);

            #[inline(never)]
            fn __hellfuzz_run($data: $dty) -> $rty $body

            fn __hellfuzz_input(bytes: &[u8]) -> $crate::Corpus {
                $crate::__private::run_typed::<$dty, _>(bytes, __hellfuzz_run)
            }

            fn __hellfuzz_show(bytes: &[u8]) -> Option<String> {
                $crate::__private::show_typed::<$dty>(bytes)
            }
        );
    };
    // The mutator's marker at the module's top (a `fuzz_mutator!` beside it names it twice),
    // and the mutator itself beside the target's `static`, whose grammar it shares.
    (@mutator [] [$($mutator:tt)*]) => {};
    (@mutator [$($grammar:tt)+] [off]) => {};
    (@mutator [$($grammar:tt)+] [$($on:tt)?]) => {
        $crate::__hellfuzz_mutator_marker!();
    };
    (@mutator_item [] [$($mutator:tt)*]) => {};
    (@mutator_item [$($grammar:tt)+] [off]) => {};
    (@mutator_item [$($grammar:tt)+] [$($on:tt)?]) => {
        $crate::__hellfuzz_grammar_mutator!();
    };
    (@grammar) => { $crate::harness::GrammarSource::None };
    (@grammar $($grammar:tt)+) => { $($grammar)+ };
    (@init_fn) => { None };
    (@init_fn $init:expr) => { Some(__hellfuzz_init as fn()) };
    (@init_item) => {};
    (@init_item $init:expr) => {
        fn __hellfuzz_init() {
            $init;
        }
    };
}

#[cfg(feature = "libfuzzer")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_runtime {
    ($target:expr; $($item:item)*) => {
        const _: () = {
            $($item)*

            static TARGET: $crate::harness::Target = $target;

            #[no_mangle]
            pub extern "C" fn LLVMFuzzerInitialize(
                argc: *const std::os::raw::c_int,
                argv: *const *const *const u8,
            ) -> std::os::raw::c_int {
                // Safety: libFuzzer passes its own argc/argv.
                unsafe { $crate::harness::libfuzzer::initialize(&TARGET, argc, argv, __hellfuzz_input) };
                0
            }

            #[no_mangle]
            #[allow(improper_ctypes_definitions)]
            pub extern "C" fn rust_fuzzer_test_input(bytes: &[u8]) -> i32 {
                if $crate::harness::libfuzzer::continuing() {
                    return $crate::harness::libfuzzer::test_input_continuing(&TARGET, bytes, __hellfuzz_input);
                }
                // The target is called from here, not from inside hellfuzz: at a crash, only
                // this frame (which crash tools skip) lies between libFuzzer's and the target's.
                match $crate::harness::libfuzzer::enter(&TARGET, bytes, __hellfuzz_input) {
                    Ok(execution) => {
                        let verdict = __hellfuzz_input(bytes);
                        execution.finish(verdict)
                    }
                    Err(code) => code,
                }
            }
        };
    };
}

/// AFL and the plain binary own `main`; which one runs is `harness::main_runtime`.
#[cfg(not(feature = "libfuzzer"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_runtime {
    ($target:expr; $($item:item)*) => {
        $($item)*

        static __HELLFUZZ_TARGET: $crate::harness::Target = $target;

        fn main() {
            $crate::harness::main_runtime(&__HELLFUZZ_TARGET, __hellfuzz_input);
        }
    };
}

/// Installs the grammar-aware custom mutator for libFuzzer (feature `libfuzzer`): subtree
/// regeneration from the grammar's built-in samples' model (`HELLFUZZ_MUTATOR=inverted` for
/// inputs from hell) and splicing, with libFuzzer's own mutation for inputs that do not parse.
///
/// A [`fuzz_target!`] with a grammar installs it already; this macro is for a target written
/// with another macro (libfuzzer-sys's own `fuzz_target!`):
///
/// ```ignore
/// libfuzzer_sys::fuzz_target!(|data: &[u8]| { /* ... */ });
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

/// The grammar-aware mutator a `fuzz_target!` with a grammar installs (libFuzzer only: AFL and
/// the plain binary have no custom-mutator hook), expanded beside the target's `TARGET`.
#[cfg(feature = "libfuzzer")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_grammar_mutator {
    () => {
        $crate::__hellfuzz_mutator_hook!($crate::harness::SharedMutator::of(&TARGET));
    };
}

#[cfg(not(feature = "libfuzzer"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_grammar_mutator {
    () => {};
}

/// One custom mutator per binary: with `fuzz_mutator!` beside a `fuzz_target!` that has a
/// grammar (which installs it already), the compiler names this item twice.
#[cfg(feature = "libfuzzer")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_mutator_marker {
    () => {
        #[allow(dead_code, non_upper_case_globals)]
        const hellfuzz_custom_mutator_is_installed_by_fuzz_target_with_a_grammar__remove_fuzz_mutator_or_write_mutator_false: () = ();
    };
}

#[cfg(not(feature = "libfuzzer"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_mutator_marker {
    () => {};
}

#[cfg(feature = "libfuzzer")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_mutator {
    ($grammar:expr) => {
        $crate::__hellfuzz_mutator_marker!();
        $crate::__hellfuzz_mutator_hook!($crate::harness::SharedMutator::new($grammar));
    };
}

/// libFuzzer's custom-mutator hook, calling the `SharedMutator` `$mutator` builds.
#[cfg(feature = "libfuzzer")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hellfuzz_mutator_hook {
    ($mutator:expr) => {
        const _: () = {
            static MUTATOR: $crate::harness::SharedMutator = $mutator;

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
