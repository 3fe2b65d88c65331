//! Deadly signals in a libFuzzer campaign: the input that kills the process is saved, and
//! minimized by a child process, and the dying thread's backtrace is printed, before the process
//! dies.
//!
//! Under `cargo fuzz run -s none` nothing else saves it. libFuzzer's SIGSEGV handler hands the
//! signal to the one Rust's runtime installed first, and returns when that one does; and neither
//! runs on an alternate stack, so a stack overflow kills the process outright. [`install`] puts a
//! handler for SIGSEGV and SIGBUS on a large alternate stack, after libFuzzer's (at the first
//! execution). It writes the running input to `<artifact_prefix>crash-<sha1>` (libFuzzer's name)
//! with async-signal-safe calls only, runs the harness binary itself in reduce mode on that file
//! (one process per candidate: see `reduce_mode`), waits for it, and passes the signal on to the
//! handler it replaced (a sanitizer's report still comes), so the process dies of it as before.
//!
//! SIGABRT, SIGILL and SIGFPE are handled the same way, and when the harness runs given files
//! (reproducing, triage) the handler is installed too but saves nothing. Before passing the signal
//! on, it prints the faulting thread's symbolized backtrace (a `stack backtrace:` section as Rust
//! prints one), so that aborts and stack overflows have a location for people and for triage,
//! also without a sanitizer: the frames are walked in the handler, which allocates nothing, and
//! symbolized by a fresh process of this binary (see [`backtrace_in_child`]): a signal taken
//! inside the allocator (a stack overflow in `malloc`) holds its lock, and anything that
//! allocates in the handler, glibc's `fork` included, waits for it forever.

use std::collections::HashMap;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::env::{CONTINUE_ENV, REDUCE_ENV, REDUCE_SUBPROCESS_ENV, REDUCE_TIME_ENV, SYMBOLIZE_ENV};
use super::target::Settings;

/// The signals a stack overflow, a wild pointer, an `abort()` (also the one after a panic), a trap
/// instruction or an arithmetic fault raise.
const SIGNALS: [libc::c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGABRT, libc::SIGILL, libc::SIGFPE];

/// At most this many frames of a backtrace are printed (a stack overflow has tens of thousands).
const MAX_FRAMES: usize = 200;

/// Frames the handler walks: [`MAX_FRAMES`] and the handler's own on top.
const FRAMES_WALKED: usize = MAX_FRAMES + 32;

/// Milliseconds the symbolizing process may take before it is killed (the backtrace is then
/// missing, the crash is not).
const SYMBOLIZE_MS: u32 = 20_000;

/// Seconds the handlers after ours may take before the process dies of the signal anyway:
/// libFuzzer's copies the input, and waits forever for the allocator's lock if the signal came
/// inside the allocator. It prints a few lines otherwise; a sanitizer's report, symbolized by
/// an external program, gets longer.
const WATCHDOG_SECS: u32 = 3;
/// [`WATCHDOG_SECS`] with a sanitizer linked in.
const WATCHDOG_SANITIZER_SECS: u32 = 60;

/// The signal the process is dying of, for the watchdog.
static DYING_OF: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Room for the handler and for the handlers it passes the signal on to (a sanitizer's report).
const ALT_STACK_SIZE: usize = 4 << 20;

/// The longest crash path the handler writes (longer artifact prefixes: no file, a message).
const PATH_MAX: usize = 4096;

/// The input being run: set around each execution, read by the handler.
static INPUT: AtomicPtr<u8> = AtomicPtr::new(ptr::null_mut());
static INPUT_LEN: AtomicUsize = AtomicUsize::new(0);

/// Set by the first deadly signal: a second one (in the handler, or in what it passes on to)
/// falls through to the default action.
static HANDLING: AtomicBool = AtomicBool::new(false);

/// Set by [`panic_abort_follows`]: the coming SIGABRT is the panic hook's, whose crash is handled.
static PANIC_ABORT: AtomicBool = AtomicBool::new(false);

/// Everything the handler needs, prepared at install time (no allocation in the handler).
struct Prepared {
    /// The artifact prefix as bytes (`"./"`, `"fuzz/artifacts/t/"`).
    prefix: Vec<u8>,
    /// This executable, for the reducing child.
    exe: CString,
    /// The environment of the child without any `HELLFUZZ_REDUCE*` entry, NUL-terminated strings;
    /// the handler adds [`REDUCE_ENV`] pointing at the saved file.
    env: Vec<CString>,
    /// The environment of the symbolizing child: ours with [`SYMBOLIZE_ENV`] set.
    symbolize_env: Vec<CString>,
    /// Whether to minimize at all (`HELLFUZZ_MINIMIZE=0` turns it off).
    minimize: bool,
    /// Whether to print the dying thread's backtrace: not with `HELLFUZZ_BACKTRACE=0`, nor with a
    /// sanitizer linked in (libFuzzer has it print a better one for every deadly signal).
    backtrace: bool,
    /// `RUST_BACKTRACE` is on: the panic hook printed the backtrace of a panic already.
    panic_backtrace: bool,
    /// Seconds the handlers after ours may take ([`WATCHDOG_SECS`]).
    watchdog_secs: u32,
    /// The handlers replaced, per entry of [`SIGNALS`].
    previous: [libc::sigaction; SIGNALS.len()],
}

// SAFETY: written once before the handler is installed, only read afterwards.
unsafe impl Sync for Prepared {}
unsafe impl Send for Prepared {}

static PREPARED: OnceLock<Prepared> = OnceLock::new();

/// Buffers the handler fills: the crash path, its temporary name, and the child's
/// `HELLFUZZ_REDUCE=` entry. Only the one thread that wins [`HANDLING`] touches them.
struct Buffers {
    path: [u8; PATH_MAX],
    temp: [u8; PATH_MAX],
    env: [u8; PATH_MAX + 32],
    /// The dying thread's return addresses, innermost first.
    frames: [usize; FRAMES_WALKED],
}

struct SharedBuffers(std::cell::UnsafeCell<Buffers>);
// SAFETY: see `Buffers`: one writer, guarded by HANDLING.
unsafe impl Sync for SharedBuffers {}

static BUFFERS: SharedBuffers = SharedBuffers(std::cell::UnsafeCell::new(Buffers {
    path: [0; PATH_MAX],
    temp: [0; PATH_MAX],
    env: [0; PATH_MAX + 32],
    frames: [0; FRAMES_WALKED],
}));

/// Marks `data` as the input being run until the returned guard drops.
pub(super) fn running(data: &[u8]) -> RunningGuard {
    INPUT_LEN.store(data.len(), Ordering::Release);
    INPUT.store(data.as_ptr().cast_mut(), Ordering::Release);
    RunningGuard
}

/// Clears the running input when dropped.
pub(super) struct RunningGuard;

impl Drop for RunningGuard {
    fn drop(&mut self) {
        INPUT.store(ptr::null_mut(), Ordering::Release);
    }
}

/// Marks the SIGABRT that follows as the panic hook's: the crash is saved (and minimized)
/// already, so the handler only prints the backtrace, and not even that when the hook printed one.
pub(super) fn panic_abort_follows() {
    INPUT.store(ptr::null_mut(), Ordering::Release);
    PANIC_ABORT.store(true, Ordering::Release);
}

/// Gives the calling thread an alternate signal stack of [`ALT_STACK_SIZE`], once per thread: a
/// stack overflow on it can then still be handled (and a thread started by Rust has only a small
/// one, too small for the handler).
pub(super) fn prepare_thread() {
    thread_local! {
        static ALT_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if !ALT_STACK.get() {
        ALT_STACK.set(true);
        alternate_stack();
    }
}

/// Installs the handler (once per process) with `prefix` as libFuzzer's artifact prefix and
/// the reduce-on-crash `settings` (asked once: whether to minimize, and for how long; and
/// `continuing`, whether continue mode is on, which the reducing child then counts the crash
/// in), and
/// gives the calling thread an alternate signal stack (once per thread). Call it on the thread
/// that runs the target, after libFuzzer has set up its own handlers.
pub(super) fn install(prefix: &str, continuing: bool, settings: impl FnOnce() -> Settings) {
    prepare_thread();
    // Called before every execution: after the first, one look at PREPARED is all it costs.
    if PREPARED.get().is_some() {
        return;
    }
    PREPARED.get_or_init(|| {
        let settings = settings();
        // The child gets the time the in-process reduction would have had.
        let time = settings
            .options
            .budget
            .max_time
            .filter(|_| std::env::var_os(REDUCE_TIME_ENV).is_none())
            .and_then(|t| CString::new(format!("{REDUCE_TIME_ENV}={}", t.as_secs_f64())).ok());
        let exe = std::env::current_exe()
            .ok()
            .and_then(|p| CString::new(p.as_os_str().as_bytes()).ok())
            .unwrap_or_else(|| CString::new("/proc/self/exe").expect("no NUL"));
        let base: Vec<CString> = std::env::vars_os()
            .filter(|(k, _)| !k.as_bytes().starts_with(REDUCE_ENV.as_bytes()))
            // Said once, below, when continue mode is on.
            .filter(|(k, _)| !(continuing && k.as_bytes() == CONTINUE_ENV.as_bytes()))
            .filter_map(|(k, v)| {
                let mut entry = k.as_bytes().to_vec();
                entry.push(b'=');
                entry.extend_from_slice(v.as_bytes());
                CString::new(entry).ok()
            })
            .collect();
        let env = base
            .iter()
            .cloned()
            .chain(CString::new(format!("{REDUCE_SUBPROCESS_ENV}=1")).ok())
            .chain(
                continuing
                    .then(|| CString::new(format!("{CONTINUE_ENV}=1")).ok())
                    .flatten(),
            )
            .chain(time)
            .collect();
        let symbolize_env = base
            .into_iter()
            .chain(CString::new(format!("{SYMBOLIZE_ENV}=1")).ok())
            .collect();
        // The first walk of a stack loads what the unwinder needs (it may allocate); the
        // handler's walk then allocates nothing.
        // SAFETY: no other thread walks this one's stack now.
        unsafe { backtrace::trace_unsynchronized(|_| false) };
        // SAFETY: a zeroed sigaction is a valid "default action" value; sigaction(2) only
        // writes the current handler into it.
        let mut previous: [libc::sigaction; SIGNALS.len()] = unsafe { std::mem::zeroed() };
        for (i, &signal) in SIGNALS.iter().enumerate() {
            unsafe {
                libc::sigaction(signal, ptr::null(), &mut previous[i]);
            }
        }
        // Built with a sanitizer (see build.rs): dlsym alone finds nothing in an executable, which
        // does not export the runtime's symbols; it still finds a runtime in a shared library.
        // SAFETY: dlsym with a NUL-terminated name; only the null-ness of the result is used.
        let sanitizer = cfg!(hellfuzz_sanitizer)
            || !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__sanitizer_print_stack_trace".as_ptr()) }.is_null();
        let off = |name: &str| std::env::var(name).map_or(true, |v| v.trim() == "0");
        Prepared {
            prefix: prefix.as_bytes().to_vec(),
            exe,
            env,
            symbolize_env,
            minimize: settings.enabled,
            backtrace: !sanitizer && std::env::var(super::env::BACKTRACE_ENV).map_or(true, |v| v.trim() != "0"),
            panic_backtrace: !off("RUST_BACKTRACE"),
            watchdog_secs: if sanitizer {
                WATCHDOG_SANITIZER_SECS
            } else {
                WATCHDOG_SECS
            },
            previous,
        }
    });
    activate();
}

/// Points the [`SIGNALS`] at [`handler`] (once PREPARED is set).
fn activate() {
    static ACTIVE: AtomicBool = AtomicBool::new(false);
    if ACTIVE.swap(true, Ordering::AcqRel) {
        return;
    }
    for signal in SIGNALS {
        // SAFETY: a valid sigaction for a handler of the SA_SIGINFO kind.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, ptr::null_mut());
        }
    }
}

/// Gives the calling thread an alternate signal stack of [`ALT_STACK_SIZE`], mapped for the life
/// of the process (it must outlive the thread's last signal). Mapped, not allocated: memory from
/// the allocator that only the kernel points to is a leak to LeakSanitizer, which then reported
/// every input of an ASan build, crashing or not, as `detected memory leaks` (exit status 1).
fn alternate_stack() {
    // SAFETY: an anonymous private mapping; the result is checked before use.
    let memory = unsafe {
        libc::mmap(
            ptr::null_mut(),
            ALT_STACK_SIZE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if memory == libc::MAP_FAILED {
        return; // no alternate stack: a stack overflow then kills the thread unhandled, as before
    }
    let stack = libc::stack_t {
        ss_sp: memory,
        ss_flags: 0,
        ss_size: ALT_STACK_SIZE,
    };
    // SAFETY: the mapping is valid for the life of the process.
    unsafe {
        libc::sigaltstack(&stack, ptr::null_mut());
    }
}

/// Appends `bytes` to `buf` at `*len`; false if they do not fit (with a NUL after them).
fn push(buf: &mut [u8], len: &mut usize, bytes: &[u8]) -> bool {
    if *len + bytes.len() + 1 > buf.len() {
        return false;
    }
    buf[*len..*len + bytes.len()].copy_from_slice(bytes);
    *len += bytes.len();
    buf[*len] = 0;
    true
}

/// Writes `message` to stderr (async-signal-safe).
fn say(parts: &[&[u8]]) {
    say_to(2, parts);
}

/// Writes `parts` to the file descriptor `fd` (async-signal-safe).
fn say_to(fd: libc::c_int, parts: &[&[u8]]) {
    for part in parts {
        // SAFETY: write(2) with a valid buffer.
        unsafe {
            libc::write(fd, part.as_ptr().cast(), part.len());
        }
    }
}

/// The signal handler: save, minimize in a child, print the backtrace (symbolized by another),
/// pass the signal on. Async-signal-safe calls only (open, write, fsync, rename, clone, execve,
/// waitpid, sigaction, and the unwinder's walk, see [`backtrace_in_child`]).
extern "C" fn handler(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let Some(prepared) = PREPARED.get() else {
        return fall_through(signal);
    };
    let index = SIGNALS.iter().position(|&s| s == signal).unwrap_or(0);
    if HANDLING.swap(true, Ordering::AcqRel) {
        return pass_on(&prepared.previous[index], signal, info, context);
    }
    // libFuzzer's `-timeout` alarm must not go off while the crash is handled: minimizing takes
    // longer than a timeout, and the crash was reported as one (exit status 70).
    stop_timer();
    // SAFETY: only the thread that won HANDLING gets here.
    let buffers = unsafe { &mut *BUFFERS.0.get() };
    let data = INPUT.load(Ordering::Acquire);
    if !data.is_null() {
        let len = INPUT_LEN.load(Ordering::Acquire);
        // SAFETY: the input stays alive while it is marked as running (the guard clears it).
        let input = unsafe { std::slice::from_raw_parts(data, len) };
        save_and_minimize(prepared, input, signal, buffers);
    }
    let panic_reported = signal == libc::SIGABRT && PANIC_ABORT.load(Ordering::Acquire) && prepared.panic_backtrace;
    if prepared.backtrace && !panic_reported {
        backtrace_in_child(prepared, signal, buffers);
    }
    arm_watchdog(signal, prepared.watchdog_secs);
    if signal == libc::SIGSEGV || signal == libc::SIGBUS {
        // Called from here, on our alternate stack: after a stack overflow, a handler run on the
        // overflowed stack could not run at all.
        pass_on(&prepared.previous[index], signal, info, context)
    } else {
        // Delivered again once we return, to the handler we replaced, from the interrupted frame:
        // the stack libFuzzer has a sanitizer print then starts at `abort`, under the crash,
        // without this handler's frames (which would top every abort's stack).
        reraise(&prepared.previous[index], signal)
    }
}

/// Stops the process's interval timer (libFuzzer's `-timeout` alarm). Async-signal-safe.
fn stop_timer() {
    // SAFETY: setitimer(2) with a zeroed (disarming) value.
    unsafe {
        let off: libc::itimerval = std::mem::zeroed();
        libc::setitimer(libc::ITIMER_REAL, &off, ptr::null_mut());
    }
}

/// Has the process die of `signal` if it is still alive `secs` from now (see [`watchdog`]).
/// Async-signal-safe.
fn arm_watchdog(signal: libc::c_int, secs: u32) {
    DYING_OF.store(signal, Ordering::Release);
    // SAFETY: a valid sigaction for a plain handler; alarm(2).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = watchdog as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGALRM, &action, ptr::null_mut());
        libc::alarm(secs);
    }
}

/// The handlers after ours did not finish: the process dies of its signal now, on whichever
/// thread the alarm came to, rather than hang (or be reported as a timeout).
extern "C" fn watchdog(_: libc::c_int) {
    let signal = DYING_OF.load(Ordering::Acquire);
    say(&[
        b"\nhellfuzz: the crash handlers after hellfuzz's did not finish (a signal inside the allocator \
          leaves its lock taken); dying of ",
        signal_name(signal),
        b" now\n",
    ]);
    // SAFETY: sigprocmask(2) to unblock the signal in this thread, then the default action.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, ptr::null_mut());
    }
    fall_through(signal);
}

/// Reinstalls `previous` for `signal` and raises it: blocked while this handler runs, it is
/// delivered when the handler returns, at the interrupted instruction.
fn reraise(previous: &libc::sigaction, signal: libc::c_int) {
    if previous.sa_sigaction == handler as *const () as libc::sighandler_t {
        return fall_through(signal);
    }
    // SAFETY: `previous` was read by sigaction(2) for this signal; raise(3) is async-signal-safe.
    unsafe {
        libc::sigaction(signal, previous, ptr::null_mut());
        libc::raise(signal);
    }
}

/// The name of one of the [`SIGNALS`].
fn signal_name(signal: libc::c_int) -> &'static [u8] {
    match signal {
        libc::SIGBUS => b"SIGBUS",
        libc::SIGABRT => b"SIGABRT",
        libc::SIGILL => b"SIGILL",
        libc::SIGFPE => b"SIGFPE",
        _ => b"SIGSEGV",
    }
}

/// What a signal usually means, for the message.
fn signal_meaning(signal: libc::c_int) -> &'static [u8] {
    match signal {
        libc::SIGABRT => b" (an abort)",
        libc::SIGILL => b" (a trap instruction)",
        libc::SIGFPE => b" (an arithmetic fault)",
        _ => b" (a stack overflow or a bad pointer)",
    }
}

/// Prints the backtrace of this thread, from the frame the signal interrupted down, symbolized
/// (function, then `at file:line:column`), as a `stack backtrace:` section like Rust's, at most
/// [`MAX_FRAMES`] frames. Async-signal-safe: the frames' addresses are walked here without
/// allocating (the unwinder was warmed up at install time), and a fresh process of this binary
/// (started without glibc's `fork`, see [`spawn`]) reads them on its standard input, symbolizes
/// them against this process's mappings and prints them on the shared standard error
/// ([`symbolize_if_requested`]). It is killed after [`SYMBOLIZE_MS`]: a crash never becomes a
/// hang.
fn backtrace_in_child(prepared: &Prepared, signal: libc::c_int, b: &mut Buffers) {
    let mut walked = 0;
    // SAFETY: only this thread's stack is walked, by this thread, which is stopped in the handler.
    unsafe {
        backtrace::trace_unsynchronized(|frame| {
            b.frames[walked] = frame.ip() as usize;
            walked += 1;
            walked < FRAMES_WALKED
        });
    }
    let mut pipe = [0; 2];
    // SAFETY: pipe(2) into a two-element array.
    if unsafe { libc::pipe(pipe.as_mut_ptr()) } != 0 {
        return;
    }
    let argv: [*const libc::c_char; 2] = [prepared.exe.as_ptr(), ptr::null()];
    let mut envp: [*const libc::c_char; 512] = [ptr::null(); 512];
    for (slot, entry) in envp.iter_mut().zip(prepared.symbolize_env.iter().take(511)) {
        *slot = entry.as_ptr();
    }
    // SAFETY: async-signal-safe calls in the child until execve, with strings that live for the
    // process; the pipe's ends are closed where they are not used.
    let child = unsafe {
        spawn(|| {
            libc::dup2(pipe[0], 0);
            libc::close(pipe[0]);
            libc::close(pipe[1]);
            libc::execve(prepared.exe.as_ptr(), argv.as_ptr(), envp.as_ptr());
        })
    };
    // SAFETY: closing our copy of the read end.
    unsafe { libc::close(pipe[0]) };
    if child > 0 {
        // The request: the signal's name, this process's id, one address per line (a few KiB,
        // within the pipe's buffer, so writing never waits for the child). A child that died
        // before reading (its exec failed) must not have SIGPIPE end us instead of the crash:
        // libFuzzer's C++ `main` leaves it deadly, as Rust's runtime would not.
        // SAFETY: sigaction(2) to ignore SIGPIPE while writing, the old action restored after.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        unsafe {
            let mut ignore: libc::sigaction = std::mem::zeroed();
            ignore.sa_sigaction = libc::SIG_IGN;
            libc::sigaction(libc::SIGPIPE, &ignore, &mut old);
        }
        let mut line = [0u8; 32];
        say_to(pipe[1], &[signal_name(signal), b"\n"]);
        // SAFETY: getpid(2) is async-signal-safe.
        let pid = unsafe { libc::getpid() } as usize;
        say_to(pipe[1], &[hex(pid, &mut line)]);
        for &ip in &b.frames[..walked] {
            say_to(pipe[1], &[hex(ip, &mut line)]);
        }
        // SAFETY: restoring the action read above.
        unsafe { libc::sigaction(libc::SIGPIPE, &old, ptr::null_mut()) };
    }
    // SAFETY: closing the write end: the child reads to the end of its input.
    unsafe { libc::close(pipe[1]) };
    if child > 0 && !wait_for(child, SYMBOLIZE_MS) {
        say(&[b"hellfuzz: symbolizing the backtrace took too long; it is left out\n"]);
    }
}

/// `n` in hexadecimal and a line break, in `buf`.
fn hex(mut n: usize, buf: &mut [u8; 32]) -> &[u8] {
    let mut at = buf.len() - 1;
    buf[at] = b'\n';
    loop {
        at -= 1;
        buf[at] = b"0123456789abcdef"[n % 16];
        n /= 16;
        if n == 0 {
            break;
        }
    }
    &buf[at..]
}

/// Starts a child process that runs `child` (which must only make async-signal-safe calls and
/// end in `execve`; it exits with status 127 if that returns). On Linux the child is made with
/// the `clone` system call rather than glibc's `fork`, which runs the `atfork` handlers first:
/// the allocator's takes its locks, and one may be held by the very thread the signal
/// interrupted. The child's id, or -1.
///
/// # Safety
/// Call it from the signal handler's thread only; see `child`.
unsafe fn spawn(child: impl FnOnce()) -> libc::pid_t {
    #[cfg(target_os = "linux")]
    // SAFETY: clone with SIGCHLD alone and no new stack is fork(2) without glibc's handlers.
    let pid = unsafe { libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_long, 0, 0, 0, 0) } as libc::pid_t;
    #[cfg(not(target_os = "linux"))]
    // SAFETY: fork(2); see the function's documentation.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: the handler runs with the signal blocked; the child must not inherit that.
        unsafe {
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, ptr::null_mut());
        }
        child();
        // SAFETY: _exit(2) is async-signal-safe.
        unsafe { libc::_exit(127) };
    }
    pid
}

/// Waits for `child` to end, at most `ms` milliseconds; past that, kills it. Whether it ended
/// in time. Async-signal-safe.
fn wait_for(child: libc::pid_t, ms: u32) -> bool {
    let mut status = 0;
    for _ in 0..ms / 10 {
        // SAFETY: waitpid(2) on our own child, nanosleep(2) with a valid duration.
        unsafe {
            let r = libc::waitpid(child, &mut status, libc::WNOHANG);
            if r == child || (r == -1 && *libc::__errno_location() != libc::EINTR) {
                return true;
            }
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 10_000_000,
            };
            libc::nanosleep(&pause, ptr::null_mut());
        }
    }
    // SAFETY: kill(2) and waitpid(2) on our own child.
    unsafe {
        libc::kill(child, libc::SIGKILL);
        while libc::waitpid(child, &mut status, 0) == -1 && *libc::__errno_location() == libc::EINTR {}
    }
    false
}

/// The symbolizing process's work (see [`backtrace_in_child`]), when [`SYMBOLIZE_ENV`] is set:
/// reads the request on standard input, prints the `stack backtrace:` section on standard
/// error, and exits. Returns otherwise. Called first by the harness's initialization.
pub(super) fn symbolize_if_requested() {
    if std::env::var_os(SYMBOLIZE_ENV).is_none() {
        return;
    }
    let mut request = String::new();
    let _ = std::io::Read::read_to_string(&mut std::io::stdin(), &mut request);
    let mut lines = request.lines();
    let name = lines.next().unwrap_or("the signal").to_string();
    let pid = lines
        .next()
        .and_then(|l| usize::from_str_radix(l, 16).ok())
        .unwrap_or(0);
    let addresses: Vec<usize> = lines.filter_map(|l| usize::from_str_radix(l, 16).ok()).collect();
    let theirs = mappings(&format!("/proc/{pid}/maps"));
    let ours = mappings("/proc/self/maps");
    let mut symbols = SymbolTables::default();
    let mut text = String::new();
    let mut number = 0;
    for &address in &addresses {
        // A return address points after the call: one byte back is in the call's line.
        let address = address.saturating_sub(1);
        let mut found = false;
        if let Some(local) = translate(address, &theirs, &ours) {
            backtrace::resolve(local as *mut std::ffi::c_void, |symbol| {
                found = true;
                let function = symbol.name().map_or_else(|| "<unknown>".to_string(), |n| n.to_string());
                text.push_str(&format!("{number:>4}: {function}\n"));
                if let (Some(file), Some(line)) = (symbol.filename(), symbol.lineno()) {
                    let column = symbol.colno().map_or_else(String::new, |c| format!(":{c}"));
                    text.push_str(&format!("             at {}:{line}{column}\n", file.display()));
                }
                number += 1;
            });
        }
        if !found {
            let function = file_offset(address, &theirs)
                .and_then(|(path, offset)| symbols.name(path, offset))
                .unwrap_or_else(|| "<unknown>".to_string());
            text.push_str(&format!("{number:>4}: {function}\n"));
            number += 1;
        }
    }
    let mut out = String::with_capacity(text.len().min(1 << 16) + 256);
    out.push_str("\nhellfuzz: backtrace of the thread that received ");
    out.push_str(&name);
    out.push_str(" (HELLFUZZ_BACKTRACE=0 turns it off):\nstack backtrace:\n");
    let frames = trim_to_interrupted(&text);
    for (number, frame) in frames.iter().take(MAX_FRAMES).enumerate() {
        out.push_str(&format!("{number:>4}: {}\n", frame.0));
        for location in &frame.1 {
            out.push_str(location);
            out.push('\n');
        }
    }
    if frames.len() > MAX_FRAMES {
        out.push_str(&format!("      ... {} more frames\n", frames.len() - MAX_FRAMES));
    }
    say(&[out.as_bytes()]);
    std::process::exit(0);
}

/// One line of `/proc/PID/maps`: a file mapped at `start..end` from `offset` in it.
struct Mapping {
    start: usize,
    end: usize,
    offset: usize,
    path: String,
}

/// The file mappings of a process (none if its maps cannot be read).
fn mappings(path: &str) -> Vec<Mapping> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (start, end) = fields.next()?.split_once('-')?;
            let offset = fields.nth(1)?;
            let path = fields.nth(2)?;
            path.starts_with('/').then(|| Mapping {
                start: usize::from_str_radix(start, 16).unwrap_or(0),
                end: usize::from_str_radix(end, 16).unwrap_or(0),
                offset: usize::from_str_radix(offset, 16).unwrap_or(0),
                path: path.to_string(),
            })
        })
        .collect()
}

/// The address in this process of the code at `address` in the process `theirs` describes: the
/// same file at the same offset (the two map their files at different places).
fn translate(address: usize, theirs: &[Mapping], ours: &[Mapping]) -> Option<usize> {
    let (path, offset) = file_offset(address, theirs)?;
    let here = ours
        .iter()
        .find(|m| m.path == path && (m.offset..m.offset + (m.end - m.start)).contains(&offset))?;
    Some(here.start + offset - here.offset)
}

/// The file mapped at `address` in the process `theirs` describes, and the offset in it.
fn file_offset(address: usize, theirs: &[Mapping]) -> Option<(&str, usize)> {
    let there = theirs.iter().find(|m| (m.start..m.end).contains(&address))?;
    Some((&there.path, address - there.start + there.offset))
}

/// The functions of the ELF files' symbol tables, read once per file: the fallback for an
/// address `backtrace::resolve` finds no debug info for.
#[derive(Default)]
struct SymbolTables {
    /// Per file; `None` if it cannot be read.
    files: HashMap<String, Option<SymbolTable>>,
}

/// One file's loadable segments (file offset, size, address) and functions (address, name),
/// sorted by address.
struct SymbolTable {
    segments: Vec<(u64, u64, u64)>,
    functions: Vec<(u64, String)>,
}

impl SymbolTables {
    /// The demangled name of the function at `offset` in the file `path`.
    fn name(&mut self, path: &str, offset: usize) -> Option<String> {
        let SymbolTable { segments, functions } = self
            .files
            .entry(path.to_string())
            .or_insert_with(|| read_symbols(path))
            .as_ref()?;
        let offset = offset as u64;
        let address = segments
            .iter()
            .find(|(start, size, _)| (*start..start + size).contains(&offset))
            .map(|(start, _, address)| address + (offset - start))?;
        let at = functions.partition_point(|(a, _)| *a <= address).checked_sub(1)?;
        Some(format!("{:#}", rustc_demangle::demangle(&functions[at].1)))
    }
}

/// See [`SymbolTables`].
fn read_symbols(path: &str) -> Option<SymbolTable> {
    use object::{Object, ObjectSegment, ObjectSymbol};
    let bytes = std::fs::read(path).ok()?;
    let file = object::File::parse(&*bytes).ok()?;
    let segments = file
        .segments()
        .map(|s| {
            let (start, size) = s.file_range();
            (start, size, s.address())
        })
        .collect();
    let mut functions: Vec<(u64, String)> = file
        .symbols()
        .filter(|s| s.kind() == object::SymbolKind::Text && s.address() != 0)
        .filter_map(|s| Some((s.address(), s.name().ok()?.to_string())))
        .collect();
    functions.sort();
    Some(SymbolTable { segments, functions })
}

/// The frames of a backtrace written in `std::backtrace::Backtrace`'s format by
/// [`symbolize_if_requested`] (`  N: function` lines, each followed by its `at file:line`
/// lines), below this handler's own: the first is the signal trampoline, then
/// the frame the signal interrupted (`abort`, the faulting function).
fn trim_to_interrupted(text: &str) -> Vec<(&str, Vec<&str>)> {
    let mut frames: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        let frame = line
            .trim_start()
            .split_once(": ")
            .filter(|(number, _)| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()));
        match (frame, frames.last_mut()) {
            (Some((_, function)), _) => frames.push((function, Vec::new())),
            (None, Some(last)) => last.1.push(line),
            (None, None) => {}
        }
    }
    // Capturing, formatting and this handler: the last frame of this module among the first few
    // (inlined frames are named without their module path, so their file tells).
    let ours = frames.iter().take(32).rposition(|(function, locations)| {
        function.contains("harness::deadly::") || locations.iter().any(|l| l.contains("harness/deadly.rs:"))
    });
    let mut frames = match ours {
        Some(i) => frames.split_off(i + 1),
        None => frames,
    };
    // The signal trampoline (`__restore_rt`, usually unsymbolized) says nothing about the crash.
    if frames
        .first()
        .is_some_and(|(function, _)| *function == "<unknown>" || function.contains("__restore_rt"))
    {
        frames.remove(0);
    }
    frames
}

fn save_and_minimize(prepared: &Prepared, input: &[u8], signal: libc::c_int, b: &mut Buffers) {
    let digest = crate::files::sha1(input);
    let mut hex = [0u8; 40];
    for (i, byte) in digest.iter().enumerate() {
        hex[2 * i] = b"0123456789abcdef"[usize::from(byte >> 4)];
        hex[2 * i + 1] = b"0123456789abcdef"[usize::from(byte & 15)];
    }
    let (mut n, mut t) = (0, 0);
    let fits = push(&mut b.path, &mut n, &prepared.prefix)
        && push(&mut b.path, &mut n, b"crash-")
        && push(&mut b.path, &mut n, &hex)
        && push(&mut b.temp, &mut t, &b.path[..n])
        && push(&mut b.temp, &mut t, b".hellfuzz-partial");
    let signal_name = signal_name(signal);
    if !fits {
        say(&[
            b"hellfuzz: deadly ",
            signal_name,
            b": the artifact prefix is too long to save the input\n",
        ]);
        return;
    }
    let path = &b.path[..n];
    // SAFETY: NUL-terminated paths in our buffers; a valid input buffer.
    let saved = unsafe { write_file(b.temp.as_ptr().cast(), b.path.as_ptr().cast(), input) };
    if !saved {
        say(&[b"hellfuzz: deadly ", signal_name, b": cannot write ", path, b"\n"]);
        return;
    }
    say(&[
        b"\nhellfuzz: deadly ",
        signal_name,
        signal_meaning(signal),
        b": input saved to ",
        path,
        b"\n",
    ]);
    if !prepared.minimize {
        return;
    }
    let mut e = 0;
    if !(push(&mut b.env, &mut e, REDUCE_ENV.as_bytes())
        && push(&mut b.env, &mut e, b"=")
        && push(&mut b.env, &mut e, path))
    {
        return;
    }
    say(&[b"hellfuzz: minimizing it with one process per candidate\n"]);
    // SAFETY: fork/execve/waitpid with NUL-terminated strings that live for the process; the
    // arrays of pointers are built on this (alternate) stack.
    unsafe {
        let mut envp: [*const libc::c_char; 512] = [ptr::null(); 512];
        let mut k = 0;
        for entry in prepared.env.iter().take(envp.len() - 2) {
            envp[k] = entry.as_ptr();
            k += 1;
        }
        envp[k] = b.env.as_ptr().cast();
        let argv: [*const libc::c_char; 3] = [prepared.exe.as_ptr(), b.path.as_ptr().cast(), ptr::null()];
        let child = spawn(|| {
            libc::execve(prepared.exe.as_ptr(), argv.as_ptr(), envp.as_ptr());
        });
        if child > 0 {
            let mut status = 0;
            while libc::waitpid(child, &mut status, 0) == -1 && *libc::__errno_location() == libc::EINTR {}
        }
    }
}

/// Writes `data` to `temp`, flushes it and renames it to `path` (no partial file under `path`).
/// Async-signal-safe.
unsafe fn write_file(temp: *const libc::c_char, path: *const libc::c_char, data: &[u8]) -> bool {
    let fd = unsafe {
        libc::open(
            temp,
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
            0o644,
        )
    };
    if fd < 0 {
        return false;
    }
    let mut written = 0;
    while written < data.len() {
        let n = unsafe { libc::write(fd, data[written..].as_ptr().cast(), data.len() - written) };
        if n <= 0 {
            unsafe {
                libc::close(fd);
                libc::unlink(temp);
            }
            return false;
        }
        written += n as usize;
    }
    unsafe {
        libc::fsync(fd);
        libc::close(fd);
        libc::rename(temp, path) == 0
    }
}

/// Hands the signal to the handler that was there before ours; with none, restores the default
/// action so that the faulting instruction, run again on return, kills the process.
fn pass_on(previous: &libc::sigaction, signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let h = previous.sa_sigaction;
    if h == libc::SIG_DFL || h == libc::SIG_IGN || h == handler as *const () as libc::sighandler_t {
        return fall_through(signal);
    }
    // SAFETY: the previous handler was installed for this signal with these flags; calling it
    // as the kernel would.
    unsafe {
        if previous.sa_flags & libc::SA_SIGINFO != 0 {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(h);
            f(signal, info, context);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
            f(signal);
        }
    }
    // It returned: make sure the signal is deadly once we return.
    fall_through(signal);
}

/// Restores the default action for `signal` and raises it again: it is delivered when the
/// handler returns (a fault also recurs then), so the process dies of it, as without us.
fn fall_through(signal: libc::c_int) {
    // SAFETY: a zeroed sigaction is SIG_DFL; raise(3) is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(signal, &action, ptr::null_mut());
        libc::raise(signal);
    }
}
