//! The libFuzzer runtime (feature `libfuzzer`): what `fuzz_target!` expands to under cargo-fuzz.
//!
//! Map: [`initialize`] (flags from libFuzzer's argv, our panic hook, reduce mode) · [`test_input`]
//! (one execution: on a panic, reduce from the panic hook and abort there, so libFuzzer saves the
//! crash as always and the stack at death is the panic's) · [`test_input_continuing`] (continue
//! mode: a panic is caught, saved and minimized once per signature, and fuzzing goes on).

use std::ffi::CStr;
use std::sync::OnceLock;
use std::time::Duration;

use super::continuing::{Campaign, ContinueSettings};
use super::corpus::{Corpus, RunFn};
use super::crash::{handle_in_hook, CrashHandler};
use super::target::{Settings, Target};
use crate::oracle::{catch_panic_fatal, install_panic_hook, FatalScope, Fate, Signature};

/// The flags of this process that matter for reduction.
struct Flags {
    artifact_prefix: String,
    timeout: Option<Duration>,
    /// libFuzzer was given files, not corpus folders: it runs them once (reproducing a crash,
    /// or a subprocess oracle / triage rerun). Nothing is reduced or saved then: the file exists,
    /// and each run must stay a single quick execution.
    running_files: bool,
    /// `-mutate_depth=` (default 5), `None` with `-reduce_depth=1` (see `mutator::Yields`).
    mutate_depth: Option<u32>,
}

/// libFuzzer's `-mutate_depth` when a mutation chain that ends early means its last mutant was
/// kept (not with `-reduce_depth=1`); read by the custom mutator.
pub(crate) fn mutate_depth() -> Option<u32> {
    FLAGS.get().and_then(|f| f.mutate_depth)
}

static FLAGS: OnceLock<Flags> = OnceLock::new();

/// Continue mode's campaign, when it is on (and libFuzzer is fuzzing, not running given files).
static CAMPAIGN: OnceLock<Campaign> = OnceLock::new();

/// Called from `LLVMFuzzerInitialize`: reads `-artifact_prefix=` and `-timeout=` from the command
/// line, installs hellfuzz's panic hook (not libfuzzer-sys's aborting one: ours tells the fuzzed
/// input's panic, which it reduces and then aborts on, from candidates' panics, which unwind),
/// runs the target's `init` (after the hook, as libfuzzer-sys does), and runs reduce mode when
/// asked.
///
/// # Safety
/// `argc` and `argv` must be what libFuzzer passes to `LLVMFuzzerInitialize` (`int *argc`,
/// `char ***argv`).
pub unsafe fn initialize(target: &Target, argc: *const std::os::raw::c_int, argv: *const *const *const u8, run: RunFn) {
    // A process started by a deadly signal's handler to symbolize the dying thread's frames.
    #[cfg(unix)]
    super::deadly::symbolize_if_requested();
    let args = unsafe { arguments(argc, argv) };
    let flags = FLAGS.get_or_init(|| parse_flags(&args));
    if std::env::var_os(super::env::REDUCE_ENV).is_none() {
        if let Some(dict) = dictionary_flag(target, &args, flags, |name| std::env::var(name).ok()) {
            // SAFETY: libFuzzer's own argc/argv, which it reads again after this call.
            unsafe { append_argument(argc, argv, &dict) };
        }
    }
    let continuing = ContinueSettings::from_env(&args);
    if continuing.enabled && !flags.running_files && std::env::var_os(super::env::REDUCE_ENV).is_none() {
        let summary = Campaign::summary_path(&flags.artifact_prefix);
        if CAMPAIGN
            .set(Campaign::new(flags.artifact_prefix.clone(), summary, continuing))
            .is_ok()
        {
            // libFuzzer ends a run (`-runs`, `-max_total_time`) with `exit`: the summary is
            // completed and printed then.
            // SAFETY: registering a plain `extern "C"` function.
            #[cfg(unix)]
            unsafe {
                libc::atexit(finish_campaign)
            };
        }
    }
    install_panic_hook();
    target.run_init();
    super::reduce_mode::run_if_requested(target, run);
}

/// Whether continue mode is on: the macro then runs each input through [`test_input_continuing`].
pub fn continuing() -> bool {
    CAMPAIGN.get().is_some()
}

extern "C" fn finish_campaign() {
    if let Some(campaign) = CAMPAIGN.get() {
        campaign.finish();
    }
}

/// # Safety: as for [`initialize`].
unsafe fn arguments(argc: *const std::os::raw::c_int, argv: *const *const *const u8) -> Vec<String> {
    if argc.is_null() || argv.is_null() {
        return Vec::new();
    }
    let (count, list) = unsafe { (*argc, *argv) };
    (0..count.max(0) as usize)
        .filter_map(|i| {
            let arg = unsafe { *list.add(i) };
            (!arg.is_null()).then(|| unsafe { CStr::from_ptr(arg.cast()) }.to_string_lossy().into_owned())
        })
        .collect()
}

/// File name of the grammar's dictionary in the artifacts folder's `.hellfuzz/` subfolder.
const DICTIONARY_FILE: &str = "grammar.dict";

/// The `-dict=FILE` argument a grammar target adds to libFuzzer's, with the grammar's literals
/// written to `FILE` (`.hellfuzz/grammar.dict` beside the artifacts): libFuzzer's own mutations
/// then insert the grammar's keywords and punctuation, as a user passing `-dict` by hand gets.
/// `None` without a grammar, when the command line has a `-dict=` already (the user's; also a
/// `-fork` job's, which inherits its parent's), when running given files, with
/// `HELLFUZZ_DICT=0`, or when the file cannot be written (said on stderr: fuzzing goes on).
fn dictionary_flag(
    target: &Target,
    args: &[String],
    flags: &Flags,
    var: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    if flags.running_files
        || var(super::env::DICT_ENV).is_some_and(|v| v.trim() == "0")
        || args.iter().skip(1).any(|a| a.starts_with("-dict="))
    {
        return None;
    }
    let text = target.grammar()?.dictionary();
    let path = super::sidecar::sidecar_path(std::path::Path::new(&format!(
        "{}{DICTIONARY_FILE}",
        flags.artifact_prefix
    )));
    let written = super::sidecar::create_folder_of(&path).and_then(|()| {
        // Every `-fork` job and every run writes it; the same text is left as it is.
        if std::fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
            return Ok(());
        }
        crate::files::write_atomically(&path, text.as_bytes())
    });
    match written {
        Ok(()) => Some(format!("-dict={}", path.display())),
        Err(e) => {
            eprintln!(
                "hellfuzz: the grammar's dictionary was not passed to libFuzzer: cannot write {}: {e}",
                path.display()
            );
            None
        }
    }
}

/// Appends `arg` to libFuzzer's argument vector (a new vector, leaked: libFuzzer keeps
/// pointers into it for the whole process).
///
/// # Safety: as for [`initialize`]; libFuzzer passes `int *argc, char ***argv`, both writable.
unsafe fn append_argument(argc: *const std::os::raw::c_int, argv: *const *const *const u8, arg: &str) {
    let Ok(arg) = std::ffi::CString::new(arg) else {
        return;
    };
    if argc.is_null() || argv.is_null() {
        return;
    }
    let (count, list) = unsafe { (*argc, *argv) };
    let count = count.max(0) as usize;
    let mut new: Vec<*const u8> = (0..count).map(|i| unsafe { *list.add(i) }).collect();
    new.push(arg.into_raw().cast_const().cast());
    new.push(std::ptr::null());
    let new = Box::leak(new.into_boxed_slice());
    unsafe {
        *argc.cast_mut() = (count + 1) as std::os::raw::c_int;
        *argv.cast_mut() = new.as_ptr();
    }
}

/// The flags among libFuzzer's arguments (the last occurrence wins, as in libFuzzer).
fn parse_flags(args: &[String]) -> Flags {
    let mut flags = Flags {
        artifact_prefix: "./".to_string(),
        timeout: None,
        running_files: false,
        mutate_depth: Some(5),
    };
    let mut reduce_depth = false;
    for arg in args.iter().skip(1) {
        if !arg.starts_with('-') && std::path::Path::new(arg).is_file() {
            flags.running_files = true;
        }
        if let Some(prefix) = arg.strip_prefix("-artifact_prefix=") {
            flags.artifact_prefix = prefix.to_string();
        } else if let Some(secs) = arg.strip_prefix("-timeout=") {
            flags.timeout = secs.parse::<u64>().ok().map(Duration::from_secs);
        } else if let Some(depth) = arg.strip_prefix("-mutate_depth=") {
            flags.mutate_depth = depth.parse::<u32>().ok();
        } else if let Some(on) = arg.strip_prefix("-reduce_depth=") {
            reduce_depth = on.parse::<i64>().is_ok_and(|v| v != 0);
        }
    }
    if reduce_depth {
        flags.mutate_depth = None;
    }
    flags
}

/// One execution of the fuzzed input in one call: [`enter`], `run(data)`, [`Execution::finish`];
/// returns libFuzzer's code for the run's verdict (-1 for `Corpus::Reject`, and for a typed input
/// the bytes build no value of). The macro's `rust_fuzzer_test_input` makes the three calls
/// itself, so that no frame of this function lies under the target's at a crash.
pub fn test_input(target: &'static Target, data: &[u8], run: RunFn) -> i32 {
    match enter(target, data, run) {
        Ok(execution) => {
            let verdict = run(data);
            execution.finish(verdict)
        }
        Err(code) => code,
    }
}

/// One execution of the fuzzed input, between [`enter`] and [`Execution::finish`].
pub struct Execution<'a> {
    // Dropped first: a panic the hook did not see is handled before the input is forgotten.
    _scope: FatalScope<'a>,
    _running: Running,
}

impl Execution<'_> {
    /// Ends the execution and turns the target's verdict into libFuzzer's code.
    pub fn finish(self, verdict: Corpus) -> i32 {
        drop(self);
        verdict.to_libfuzzer_code()
    }
}

/// Prepares the execution of `data`, or answers without running the target (`Err`: the code to
/// return, for `cargo fuzz fmt`). While the execution lasts, a panic in the target is printed as
/// usual, the crash is reduced and its artifacts written, then the process aborts, so libFuzzer
/// reports the crash and saves the input exactly as without hellfuzz. All of that happens inside
/// the panic hook (see [`FatalScope`]): the process dies with the panic's frames on the stack,
/// directly under `rust_fuzzer_test_input`, so the stack a sanitizer or libFuzzer prints names
/// the function that panicked and holds no frame of hellfuzz's that every crash would share.
pub fn enter<'a>(target: &'static Target, data: &'a [u8], run: RunFn) -> Result<Execution<'a>, i32> {
    let (flags, running) = prepare(target, data)?;
    let before_abort = move |signature: &Signature, report: &dyn Fn()| {
        report();
        abort_follows(target, flags, data, signature, run);
        Fate::Abort
    };
    Ok(Execution {
        _scope: FatalScope::enter(Box::new(before_abort)),
        _running: running,
    })
}

/// Continue mode's execution of `data` (see `continuing`): a panic is printed, saved and
/// minimized the first time its signature is met in the campaign, counted afterwards, and
/// answered with -1 (not interesting: not added to the corpus) so that fuzzing goes on in this
/// process. Past `HELLFUZZ_CONTINUE_MAX` catches of one signature it is fatal as in [`enter`].
pub fn test_input_continuing(target: &'static Target, data: &[u8], run: RunFn) -> i32 {
    let Some(campaign) = CAMPAIGN.get() else {
        return test_input(target, data, run);
    };
    let (flags, _running) = match prepare(target, data) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    campaign.executed();
    let on_panic = |signature: &Signature, report: &dyn Fn()| match campaign.decide(signature, report, false) {
        Fate::Abort => {
            abort_follows(target, flags, data, signature, run);
            Fate::Abort
        }
        Fate::Unwind => Fate::Unwind,
    };
    match catch_panic_fatal(|| run(data), &on_panic) {
        Ok(verdict) => verdict.to_libfuzzer_code(),
        Err(signature) => {
            campaign.caught(&signature, || {
                let settings = Settings::from_env(flags.timeout);
                let handler = CrashHandler::new(target, flags.artifact_prefix.clone(), true, settings);
                let record = handler.handle(data, &signature, run);
                let crash = format!("crash-{}", crate::files::sha1_hex(data));
                (Some(crash), record.map(|r| r.minimized))
            });
            -1
        }
    }
}

/// What both kinds of execution do first: answer `cargo fuzz fmt` (`Err`: the code to return),
/// install the deadly-signal handler, and remember the input for it.
fn prepare(target: &'static Target, data: &[u8]) -> Result<(&'static Flags, Running), i32> {
    if let Some(path) = libfuzzer_sys::rust_libfuzzer_debug_path() {
        // `cargo fuzz fmt` asks for the input's Debug form; answered as libfuzzer-sys does: the
        // bytes (code 0), or a typed input's value or `Arbitrary Error: …` (code -1, and nothing
        // written for an input shorter than the type's size hint).
        if target.is_typed() {
            if let Some(text) = target.show_input(data) {
                let _ = std::fs::write(path, format!("{text}\n"));
            }
            return Err(-1);
        }
        let _ = std::fs::write(path, format!("{data:?}\n"));
        return Err(0);
    }
    let flags = FLAGS.get_or_init(|| parse_flags(&[]));
    // Installed here rather than in `initialize`, as libFuzzer sets its own handlers after that.
    // Also when running given files: nothing is saved then, but a deadly signal's backtrace is
    // printed, which is what a rerun (triage, a person reproducing) needs.
    #[cfg(unix)]
    super::deadly::install(&flags.artifact_prefix, continuing(), || {
        Settings::from_env(flags.timeout)
    });
    // A campaign (not a run of given files): a deadly signal must not lose the input.
    #[cfg(unix)]
    let running = (!flags.running_files).then(|| super::deadly::running(data));
    #[cfg(not(unix))]
    let running = ();
    Ok((flags, running))
}

/// While an input runs: the deadly-signal handler's hold on it (see [`prepare`]).
#[cfg(unix)]
type Running = Option<super::deadly::RunningGuard>;
#[cfg(not(unix))]
type Running = ();

/// Before a fatal panic aborts: save and reduce it (not when running given files), and tell the
/// deadly-signal handler that the abort is ours.
fn abort_follows(target: &'static Target, flags: &Flags, data: &[u8], signature: &Signature, run: RunFn) {
    if !flags.running_files {
        let settings = Settings::from_env(flags.timeout);
        handle_in_hook(target, &flags.artifact_prefix, settings, data, signature, run);
    }
    #[cfg(unix)]
    super::deadly::panic_abort_follows();
}

/// libFuzzer's own mutation of `data[..size]` (for the custom mutator's fallback).
pub fn fuzzer_mutate(data: &mut [u8], size: usize, max_size: usize) -> usize {
    libfuzzer_sys::fuzzer_mutate(data, size, max_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_from_libfuzzer_arguments() {
        let args: Vec<String> = [
            "fuzz/target/x",
            "-artifact_prefix=fuzz/artifacts/t/",
            "-timeout=25",
            "src",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let flags = parse_flags(&args);
        assert_eq!(flags.artifact_prefix, "fuzz/artifacts/t/");
        assert_eq!(flags.timeout, Some(Duration::from_secs(25)));
        assert!(!flags.running_files, "a corpus folder is fuzzed");
        assert_eq!(parse_flags(&[]).artifact_prefix, "./");
        let file = format!("{}/Cargo.toml", env!("CARGO_MANIFEST_DIR"));
        assert!(parse_flags(&["x".to_string(), file]).running_files);
        assert_eq!(flags.mutate_depth, Some(5), "libFuzzer's default");
        let depth = |args: &[&str]| parse_flags(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).mutate_depth;
        assert_eq!(depth(&["x", "-mutate_depth=3"]), Some(3));
        assert_eq!(
            depth(&["x", "-mutate_depth=3", "-reduce_depth=1"]),
            None,
            "chains end early without a find"
        );
        assert_eq!(depth(&["x", "-reduce_depth=0"]), Some(5));
    }

    #[test]
    fn a_grammar_target_passes_its_literals_as_a_dictionary_unless_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = format!("{}/", dir.path().display());
        let flags = Flags {
            artifact_prefix: prefix.clone(),
            timeout: None,
            running_files: false,
            mutate_depth: Some(5),
        };
        let target = Target::new(super::super::GrammarSource::Named("json"));
        let args = vec!["fuzz/target/x".to_string(), "corpus".to_string()];
        let none = |_: &str| None;
        let flag = dictionary_flag(&target, &args, &flags, none).expect("a dictionary for json");
        let path = dir.path().join(".hellfuzz").join(DICTIONARY_FILE);
        assert_eq!(flag, format!("-dict={}", path.display()));
        let text = std::fs::read_to_string(&path).unwrap();
        for word in ["\"true\"", "\"null\"", "\"{\""] {
            assert!(text.lines().any(|l| l == word), "{word} missing from:\n{text}");
        }
        // Written again by the next run (or -fork job) without debris beside it.
        assert!(dictionary_flag(&target, &args, &flags, none).is_some());
        let entries: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(entries.len(), 1, "only the dictionary in .hellfuzz/");

        let named = vec!["x".to_string(), "-dict=mine.dict".to_string()];
        assert_eq!(
            dictionary_flag(&target, &named, &flags, none),
            None,
            "the user's dictionary wins"
        );
        let off = |name: &str| (name == super::super::env::DICT_ENV).then(|| "0".to_string());
        assert_eq!(dictionary_flag(&target, &args, &flags, off), None, "HELLFUZZ_DICT=0");
        let files = Flags {
            running_files: true,
            ..flags
        };
        assert_eq!(
            dictionary_flag(&target, &args, &files, none),
            None,
            "running given files"
        );
        let plain = Target::new(super::super::GrammarSource::None);
        let flags = Flags {
            artifact_prefix: prefix,
            timeout: None,
            running_files: false,
            mutate_depth: Some(5),
        };
        assert_eq!(
            dictionary_flag(&plain, &args, &flags, none),
            None,
            "no grammar, no dictionary"
        );
    }

    #[test]
    fn an_argument_appended_to_libfuzzers_argv_is_read_back_after_the_others() {
        let owned: Vec<std::ffi::CString> = ["prog", "-runs=1", "corpus"]
            .iter()
            .map(|s| std::ffi::CString::new(*s).unwrap())
            .collect();
        let mut list: Vec<*const u8> = owned.iter().map(|c| c.as_ptr().cast()).collect();
        list.push(std::ptr::null());
        let mut argc: std::os::raw::c_int = 3;
        let mut argv: *const *const u8 = list.as_ptr();
        unsafe { append_argument(&mut argc, &mut argv, "-dict=x.dict") };
        let args = unsafe { arguments(&argc, &argv) };
        assert_eq!(args, ["prog", "-runs=1", "corpus", "-dict=x.dict"]);
        assert!(unsafe { *argv.add(4) }.is_null(), "the vector stays null-terminated");
    }
}
