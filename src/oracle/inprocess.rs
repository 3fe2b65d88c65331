//! The in-process oracle: run a closure on each candidate under `catch_unwind`; a panic with the
//! original's signature is Fail, another panic Unresolved, no panic Pass.
//!
//! Panics are captured by one process-wide panic hook ([`install_panic_hook`]) that is quiet only on
//! threads currently running a candidate ([`catch_panic`]) and hands every other panic to the hook
//! that was installed before it, so the rest of the program (and other threads) behave as usual.
//!
//! A fuzz target's own input runs under [`catch_panic_fatal`] instead: its panic is handled *inside*
//! the hook, while the panicking frames are still on the stack, and the process aborts from there,
//! so the stack that sanitizers, libFuzzer, gdb and crash-triage tools see at death is the bug's.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::{Once, OnceLock};

use super::error::OracleError;
use super::signature::Signature;
use super::{Oracle, Outcome};

thread_local! {
    // Per-thread, because reducers run candidates on several threads at once (`-j`): one thread's
    // capture must neither silence nor steal another thread's panic. A depth, not a flag, so that a
    // closure which itself uses `catch_panic` does not switch capturing off for its caller.
    static CAPTURE_DEPTH: Cell<u32> = const { Cell::new(0) };
    static CAPTURED: RefCell<Option<Signature>> = const { RefCell::new(None) };
    // Set by `catch_panic_reported`: record the panic *and* let the previous hook print it.
    static REPORT: Cell<bool> = const { Cell::new(false) };
    // Set by `catch_panic_fatal` on the thread running a fuzzer's input: the capture depth at which
    // a panic is fatal (a deeper `catch_panic` inside the target still catches its own), and what
    // to run before aborting. A raw pointer because the callback borrows from the caller's frame;
    // it is only called while that frame is alive (from the hook of a panic inside it).
    static FATAL: Cell<Option<(u32, *const FatalCallback<'static>)>> = const { Cell::new(None) };
}

/// What [`catch_panic_fatal`] runs in the panic hook of the fuzzed input's panic, on the
/// panicking thread before unwinding: given the panic's signature and `report` (which prints the
/// panic as without hellfuzz, through the hook installed before ours), it decides the panic's
/// [`Fate`]. The hook prints the panic itself before aborting if the callback did not.
pub type FatalCallback<'a> = dyn Fn(&Signature, &dyn Fn()) -> Fate + 'a;

/// What becomes of a fuzzed input's panic (see [`FatalCallback`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// The process aborts from the hook, with the panic's frames on the stack.
    Abort,
    /// The panic unwinds and is caught: [`catch_panic_fatal`] returns its signature (continue
    /// mode: a known crash is counted and fuzzing goes on).
    Unwind,
}

static INSTALL: Once = Once::new();

/// The hook that was current when ours was installed (the default hook, which prints the panic).
static PREVIOUS: OnceLock<PanicHook> = OnceLock::new();

/// What `std::panic::take_hook` returns.
type PanicHook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send>;

/// Installs hellfuzz's panic hook, once per process (later calls do nothing).
///
/// The hook wraps the hook that was current at installation time: on a thread inside
/// [`catch_panic`] it records the panic's location and message and prints nothing; everywhere else
/// it calls the previous hook. Called automatically by [`catch_panic`]; call it yourself only to
/// control the order, e.g. after a fuzzing runtime installed its own aborting hook, so that
/// captured candidates do not reach that one. Code that replaces the hook *after* this one makes
/// captured panics loud again and their signatures lose their location (message only).
pub fn install_panic_hook() {
    // `take_hook`/`set_hook` panic when called on a panicking thread (e.g. from a `Drop` during
    // unwinding); skip installing then rather than panic: capture still works, only louder.
    if std::thread::panicking() {
        return;
    }
    INSTALL.call_once(|| {
        let _ = PREVIOUS.set(panic::take_hook());
        // A plain function, not a closure: its frame is on the stack when a fatal panic aborts.
        panic::set_hook(Box::new(rust_panic_hook_hellfuzz));
    });
}

/// hellfuzz's panic hook (see [`install_panic_hook`] and [`catch_panic_fatal`]).
///
/// Unmangled, with a name that begins with `rust_panic`, because a fatal panic aborts from this
/// frame: stack-based crash tools (CASR, ClusterFuzz) skip frames named `^rust_panic` as panic
/// machinery, so the top frame they keep is the function that panicked, as with libfuzzer-sys,
/// whose hook aborts from `libfuzzer_sys::initialize::{{closure}}`, a frame they skip too. A closure
/// here would be named `hellfuzz::oracle::…::{{closure}}` and would top every crash's stack.
#[no_mangle]
#[inline(never)]
fn rust_panic_hook_hellfuzz(info: &PanicHookInfo<'_>) {
    // `try_with`: a panic during thread teardown may find the thread-locals gone.
    let depth = CAPTURE_DEPTH.try_with(Cell::get).unwrap_or(0);
    let previous = |info: &PanicHookInfo<'_>| {
        if let Some(previous) = PREVIOUS.get() {
            previous(info);
        }
    };
    if depth == 0 {
        return previous(info);
    }
    let location = info.location().map(|l| l.to_string());
    let signature = Signature::panic(location, payload_message(info.payload()));
    let fatal = FATAL.try_with(Cell::get).ok().flatten().filter(|&(at, _)| at == depth);
    if let Some((_, callback)) = fatal {
        // Once: a panic inside the callback (a bug of ours) must not come back here.
        let _ = FATAL.try_with(|f| f.set(None));
        let reported = Cell::new(false);
        let report = || {
            if !reported.replace(true) {
                previous(info);
            }
        };
        // SAFETY: set by `catch_panic_fatal` for the extent of its closure, and this panic is
        // raised inside that closure and has not unwound yet, so the callback's frame is alive.
        let fate = unsafe { (*callback)(&signature, &report) };
        if fate == Fate::Abort {
            report();
            // Directly here, so that the frames under it are the panic's and the user's.
            std::process::abort();
        }
        // Unwinding to the caught end of `catch_panic_fatal`, which returns the signature.
        let _ = CAPTURED.try_with(|slot| slot.try_borrow_mut().map(|mut slot| *slot = Some(signature)));
        return;
    }
    let stored = CAPTURED.try_with(|slot| match slot.try_borrow_mut() {
        Ok(mut slot) => {
            *slot = Some(signature);
            true
        }
        Err(_) => false,
    });
    let report = REPORT.try_with(Cell::get).unwrap_or(false);
    if stored == Ok(true) && !report {
        return;
    }
    previous(info);
}

/// The text of a panic payload, as the default hook prints it.
fn payload_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "Box<dyn Any>".to_string()
    }
}

/// Runs `f` quietly: its return value, or the [`Signature`] of the panic that escaped it (location
/// `file:line:column` and message), without printing anything for that panic.
///
/// Only panics that unwind can be caught: a stack overflow, an `abort`, or a build with
/// `panic = "abort"` still ends the process.
pub fn catch_panic<R>(f: impl FnOnce() -> R) -> Result<R, Signature> {
    // Quiet even inside `catch_panic_reported`: that one reports only what escapes to it.
    capture(f, false)
}

/// [`catch_panic`], with the panic printed by the previous hook when `report` is set.
fn capture<R>(f: impl FnOnce() -> R, report: bool) -> Result<R, Signature> {
    install_panic_hook();
    let outer_report = REPORT.with(|r| r.replace(report));
    // A panic caught inside `f` by `f` itself may have left a record; only the one that escapes
    // counts, and it is the last one the hook saw.
    let _ = CAPTURED.try_with(|slot| slot.borrow_mut().take());
    CAPTURE_DEPTH.with(|d| d.set(d.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CAPTURE_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    REPORT.with(|r| r.set(outer_report));
    let recorded = CAPTURED.try_with(|slot| slot.borrow_mut().take()).ok().flatten();
    match result {
        Ok(value) => Ok(value),
        // No record means the hook did not run for this panic (`resume_unwind`, or another hook
        // replaced ours): the payload still gives the message, the location is unknown.
        Err(payload) => Err(recorded.unwrap_or_else(|| Signature::panic(None, payload_message(&*payload)))),
    }
}

/// Runs `f` like [`catch_panic`], except that a panic is also reported as it would be without
/// hellfuzz: the hook installed before ours prints the message (and, with `RUST_BACKTRACE=1`,
/// the backtrace, taken before unwinding). Fuzz-target wrappers use it for the real input, whose
/// crash log people and triage read; candidates during a reduction use the quiet [`catch_panic`].
pub fn catch_panic_reported<R>(f: impl FnOnce() -> R) -> Result<R, Signature> {
    capture(f, true)
}

/// Runs `f` for a fuzzer: a panic escaping it is handled by `on_panic` *on the panicking thread,
/// before unwinding*, with its signature. When it answers [`Fate::Abort`] (it may reduce the
/// crash first), the panic is printed as usual (by the hook installed before ours) and the
/// process aborts from the hook. So the stack at death is the panic's own (the user's function
/// under `core::panicking` and the hook), as with libfuzzer-sys, and not the wrapper's; `on_panic`
/// can still reduce the crash, provided it runs candidates on another thread (a panic on this
/// thread, inside the hook, would abort at once). When it answers [`Fate::Unwind`] (continue
/// mode), the panic unwinds and `Err` returns its signature.
///
/// A panic that `f` catches itself with [`catch_panic`] is not fatal; one it catches with
/// `std::panic::catch_unwind` is (the hook cannot know it will be caught), as under libfuzzer-sys.
/// `Err` also when the hook did not see the panic (another hook replaced ours, or
/// `resume_unwind`): the caller then decides, after unwinding.
pub fn catch_panic_fatal<R>(f: impl FnOnce() -> R, on_panic: &FatalCallback<'_>) -> Result<R, Signature> {
    install_panic_hook();
    let depth = CAPTURE_DEPTH.with(Cell::get) + 1;
    // SAFETY (lifetime erasure): the pointer is only dereferenced by the hook of a panic raised
    // inside `f`, before that panic unwinds out of this function, and is unset before we return.
    let callback: *const FatalCallback<'static> =
        unsafe { std::mem::transmute::<*const FatalCallback<'_>, *const FatalCallback<'static>>(on_panic) };
    let outer = FATAL.with(|fatal| fatal.replace(Some((depth, callback))));
    let result = catch_panic_reported(f);
    FATAL.with(|fatal| fatal.set(outer));
    result
}

/// [`catch_panic_fatal`] as a scope rather than a wrapper: entered before a fuzzer's input runs
/// and dropped after it returns, so that no frame of hellfuzz lies between the caller (the
/// generated `rust_fuzzer_test_input`) and the target on the stack at death. Stack-based tools
/// (CASR) skip `rust_fuzzer_test_input` but would count wrapper frames under every crash alike,
/// which made different bugs look alike (their stacks' common tail).
///
/// A panic inside the scope is handled by the hook, as with [`catch_panic_fatal`]: printed,
/// `before_abort` called with its signature before unwinding, then the process aborts. If the
/// hook did not see it (the target replaced it), the scope's drop during unwinding calls
/// `before_abort` and aborts instead.
pub struct FatalScope<'a> {
    before_abort: Box<FatalCallback<'a>>,
    outer_fatal: Option<(u32, *const FatalCallback<'static>)>,
    outer_report: bool,
}

impl<'a> FatalScope<'a> {
    /// Enters the scope on this thread.
    pub fn enter(before_abort: Box<FatalCallback<'a>>) -> FatalScope<'a> {
        install_panic_hook();
        let outer_report = REPORT.with(|r| r.replace(true));
        let _ = CAPTURED.try_with(|slot| slot.borrow_mut().take());
        let depth = CAPTURE_DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get()
        });
        // SAFETY (lifetime erasure): the box lives as long as the scope, which unsets the pointer
        // when dropped; the hook only calls it for a panic raised while the scope is entered.
        let callback: *const FatalCallback<'static> =
            unsafe { std::mem::transmute::<*const FatalCallback<'_>, *const FatalCallback<'static>>(&*before_abort) };
        let outer_fatal = FATAL.with(|fatal| fatal.replace(Some((depth, callback))));
        FatalScope {
            before_abort,
            outer_fatal,
            outer_report,
        }
    }
}

impl Drop for FatalScope<'_> {
    fn drop(&mut self) {
        let _ = FATAL.try_with(|fatal| fatal.set(self.outer_fatal));
        let _ = CAPTURE_DEPTH.try_with(|d| d.set(d.get().saturating_sub(1)));
        let _ = REPORT.try_with(|r| r.set(self.outer_report));
        if std::thread::panicking() {
            // Unwinding through the scope: the hook did not handle this panic.
            let recorded = CAPTURED.try_with(|slot| slot.borrow_mut().take()).ok().flatten();
            let signature =
                recorded.unwrap_or_else(|| Signature::panic(None, "a panic hellfuzz's hook did not see".to_string()));
            // Aborting whatever the callback answers: the panic cannot be caught here.
            let _ = (self.before_abort)(&signature, &|| {});
            std::process::abort();
        }
    }
}

/// An oracle that calls a closure on each candidate in this process.
///
/// Fail when the closure panics with a signature that [`matches`](Signature::matches) the
/// original's (same location, same normalized message), Unresolved when it panics differently
/// (another bug), Pass when it returns.
pub struct InProcess<F>
where
    F: Fn(&[u8]) + Send + Sync,
{
    f: F,
    signature: Signature,
}

impl<F> InProcess<F>
where
    F: Fn(&[u8]) + Send + Sync,
{
    /// Runs `f(original)` once and records the signature of its panic.
    ///
    /// Errors when `original` does not panic (there is nothing to preserve) and when the program is
    /// built with `panic = "abort"` (panics cannot be caught).
    pub fn new(f: F, original: &[u8]) -> Result<Self, OracleError> {
        if cfg!(panic = "abort") {
            return Err(OracleError::PanicAbort);
        }
        match catch_panic(|| f(original)) {
            Ok(()) => Err(OracleError::NoPanic),
            Err(signature) => Ok(InProcess { f, signature }),
        }
    }

    /// An oracle for a crash whose signature is already known (e.g. captured by a fuzz-target
    /// wrapper with [`catch_panic`]), without running the original again.
    pub fn with_signature(f: F, signature: Signature) -> Self {
        InProcess { f, signature }
    }

    /// The original crash's signature.
    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Runs the closure on `input`: `None` when it returns, else the signature of its panic.
    pub fn run(&self, input: &[u8]) -> Option<Signature> {
        catch_panic(|| (self.f)(input)).err()
    }
}

impl<F> Oracle for InProcess<F>
where
    F: Fn(&[u8]) + Send + Sync,
{
    fn test(&self, input: &[u8]) -> Outcome {
        match self.run(input) {
            None => Outcome::Pass,
            Some(sig) if sig.matches(&self.signature) => Outcome::Fail,
            Some(_) => Outcome::Unresolved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small "parser" of `key=value` with three real panic sites.
    fn parse_pair(data: &[u8]) {
        let eq = data.iter().position(|&b| b == b'=').unwrap(); // unwrap on None without '='
        let value = &data[eq + 1..];
        let first = value[0]; // index out of bounds when the value is empty
        if first == b'!' {
            panic!("bang after key of length {eq}");
        }
    }

    #[test]
    fn index_out_of_bounds_is_preserved() {
        let oracle = InProcess::new(parse_pair, b"key=").unwrap();
        let sig = oracle.signature();
        assert!(sig.location.as_deref().unwrap().contains("inprocess.rs:"), "{sig}");
        assert_eq!(sig.message, "index out of bounds: the len is 0 but the index is 0");
        assert_eq!(oracle.test(b"k="), Outcome::Fail);
        assert_eq!(oracle.test(b"="), Outcome::Fail);
        assert_eq!(oracle.test(b"k=v"), Outcome::Pass);
        // A different panic site is a different bug.
        assert_eq!(oracle.test(b"k"), Outcome::Unresolved);
        assert_eq!(oracle.test(b"k=!"), Outcome::Unresolved);
    }

    #[test]
    fn unwrap_on_none_is_preserved() {
        let oracle = InProcess::new(parse_pair, b"no equals sign").unwrap();
        assert_eq!(
            oracle.signature().message,
            "called `Option::unwrap()` on a `None` value"
        );
        assert_eq!(oracle.test(b""), Outcome::Fail);
        assert_eq!(oracle.test(b"x"), Outcome::Fail);
        assert_eq!(oracle.test(b"x=1"), Outcome::Pass);
        assert_eq!(oracle.test(b"x="), Outcome::Unresolved);
    }

    #[test]
    fn explicit_panic_matches_despite_varying_numbers() {
        let oracle = InProcess::new(parse_pair, b"long key=!").unwrap();
        assert_eq!(oracle.signature().message, "bang after key of length 8");
        assert_eq!(oracle.test(b"k=!"), Outcome::Fail); // "length 1": same normalized message
        assert_eq!(oracle.test(b"=!"), Outcome::Fail);
        assert_eq!(oracle.test(b"k=?"), Outcome::Pass);
    }

    #[test]
    fn same_location_other_message_is_unresolved() {
        let f = |d: &[u8]| {
            if !d.is_empty() {
                panic!("{}", if d[0] == b'a' { "first kind" } else { "second kind" });
            }
        };
        let oracle = InProcess::new(f, b"a").unwrap();
        assert_eq!(oracle.test(b"aa"), Outcome::Fail);
        assert_eq!(oracle.test(b"b"), Outcome::Unresolved);
        assert_eq!(oracle.test(b""), Outcome::Pass);
    }

    #[test]
    fn non_panicking_original_is_an_error() {
        let err = InProcess::new(parse_pair, b"k=v").err().unwrap();
        assert_eq!(err, OracleError::NoPanic);
        assert!(err.to_string().contains("does not panic"));
    }

    #[test]
    fn non_string_payload() {
        let oracle = InProcess::new(|_: &[u8]| std::panic::panic_any(42u32), b"x").unwrap();
        assert_eq!(oracle.signature().message, "Box<dyn Any>");
        assert_eq!(oracle.test(b""), Outcome::Fail);
    }

    #[test]
    fn with_signature_skips_the_original_run() {
        let sig = catch_panic(|| parse_pair(b"k=")).unwrap_err();
        let oracle = InProcess::with_signature(parse_pair, sig.clone());
        assert_eq!(oracle.signature(), &sig);
        assert_eq!(oracle.test(b"xy="), Outcome::Fail);
    }

    #[test]
    fn nested_capture_keeps_the_outer_one_working() {
        let outer = catch_panic(|| {
            let inner = catch_panic(|| parse_pair(b"k"));
            assert!(inner.is_err());
            parse_pair(b"k="); // escapes the outer capture
        });
        let sig = outer.unwrap_err();
        assert!(sig.message.starts_with("index out of bounds"), "{sig}");
        assert_eq!(catch_panic(|| 7), Ok(7));
        // A panic caught inside the closure does not count once the closure returns normally.
        assert_eq!(
            catch_panic(|| std::panic::catch_unwind(|| parse_pair(b"")).is_err()),
            Ok(true)
        );
    }

    #[test]
    fn threads_capture_independently() {
        let index = InProcess::new(parse_pair, b"key=").unwrap();
        let unwrap = InProcess::new(parse_pair, b"key").unwrap();
        std::thread::scope(|s| {
            for t in 0..4 {
                let (index, unwrap) = (&index, &unwrap);
                s.spawn(move || {
                    for i in 0..200 {
                        let key = format!("k{t}{i}");
                        assert_eq!(index.test(format!("{key}=").as_bytes()), Outcome::Fail);
                        assert_eq!(index.test(key.as_bytes()), Outcome::Unresolved);
                        assert_eq!(unwrap.test(key.as_bytes()), Outcome::Fail);
                        assert_eq!(unwrap.test(format!("{key}=1").as_bytes()), Outcome::Pass);
                    }
                });
            }
        });
    }

    /// Run by `hook_is_quiet_while_capturing_and_transparent_otherwise` in a child process, whose
    /// stderr shows what the hook printed.
    #[test]
    #[ignore = "helper: runs in a child process"]
    fn quiet_hook_child() {
        if std::env::var_os("HELLFUZZ_QUIET_HOOK_CHILD").is_none() {
            return;
        }
        let oracle = InProcess::new(parse_pair, b"key=").unwrap();
        for input in [&b"k="[..], b"k", b"k=!", b"k=v"] {
            oracle.test(input);
        }
        // Outside a capture, panics still reach the previous (default) hook.
        let _ = std::thread::spawn(|| panic!("uncaptured panic marker")).join();
    }

    /// A fuzz target's function that panics, as a user would write it.
    #[inline(never)]
    fn user_function_that_panics(data: &[u8]) {
        if data.first() == Some(&b'!') {
            panic!("fatal marker {}", data.len());
        }
    }

    /// Run by `fatal_panic_is_handled_on_the_panicking_stack_then_aborts` in a child process.
    #[test]
    #[ignore = "helper: runs in a child process"]
    fn fatal_panic_child() {
        if std::env::var_os("HELLFUZZ_FATAL_CHILD").is_none() {
            return;
        }
        // A panic the target catches itself with `catch_panic` is not fatal.
        let inner = catch_panic_fatal(
            || catch_panic(|| user_function_that_panics(b"!inner")).is_err(),
            &|_, _| {
                println!("wrongly fatal");
                Fate::Abort
            },
        );
        println!("inner caught: {inner:?}");
        // A panic the callback lets unwind is caught, with its signature.
        let spared = catch_panic_fatal(|| user_function_that_panics(b"!spared"), &|_, _| Fate::Unwind);
        println!("spared: {:?}", spared.map_err(|s| s.message));
        let before_abort = |signature: &Signature, _report: &dyn Fn()| {
            // The panicking frames are still there while the callback runs.
            let stack = std::backtrace::Backtrace::force_capture().to_string();
            println!("on stack: {}", stack.contains("user_function_that_panics"));
            println!("signature: {}", signature.message);
            // Candidates run on another thread: their panics are caught, quietly.
            let oracle = InProcess::with_signature(user_function_that_panics, signature.clone());
            let outcomes = std::thread::scope(|s| s.spawn(|| (oracle.test(b"!"), oracle.test(b"ok"))).join().unwrap());
            println!("candidates: {outcomes:?}");
            Fate::Abort
        };
        let _ = catch_panic_fatal(|| user_function_that_panics(b"!fatal"), &before_abort);
        println!("not reached");
    }

    #[test]
    fn fatal_panic_is_handled_on_the_panicking_stack_then_aborts() {
        let exe = std::env::current_exe().unwrap();
        let out = std::process::Command::new(exe)
            .args([
                "oracle::inprocess::tests::fatal_panic_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("HELLFUZZ_FATAL_CHILD", "1")
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(out.status.signal(), Some(6), "SIGABRT\n{stdout}\n{stderr}");
        }
        assert!(stdout.contains("inner caught: Ok(true)"), "{stdout}");
        assert!(!stdout.contains("wrongly fatal"), "{stdout}");
        assert!(stdout.contains("spared: Err(\"fatal marker 7\")"), "{stdout}");
        assert!(stdout.contains("on stack: true"), "{stdout}");
        assert!(stdout.contains("signature: fatal marker 6"), "{stdout}");
        assert!(stdout.contains("candidates: (Fail, Pass)"), "{stdout}");
        assert!(!stdout.contains("not reached"), "{stdout}");
        // The fatal panic is printed as usual, once; the caught ones are quiet.
        assert_eq!(stderr.matches("panicked at").count(), 1, "{stderr}");
        assert!(stderr.contains("fatal marker 6"), "{stderr}");
    }

    #[test]
    fn hook_is_quiet_while_capturing_and_transparent_otherwise() {
        let exe = std::env::current_exe().unwrap();
        let out = std::process::Command::new(exe)
            .args([
                "oracle::inprocess::tests::quiet_hook_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("HELLFUZZ_QUIET_HOOK_CHILD", "1")
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(stdout.contains("1 passed"), "the helper did not run:\n{stdout}");
        assert_eq!(stderr.matches("panicked at").count(), 1, "{stderr}");
        assert!(stderr.contains("uncaptured panic marker"), "{stderr}");
    }
}
