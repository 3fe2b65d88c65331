//! Crashes at known places, to check what the stack at death shows (`scripts/fuzz-crash-stacks`,
//! run by CI): two panic sites in two functions, an `abort()` and a stack overflow. Stack-based
//! triage (CASR, ClusterFuzz, `hellfuzz triage`) must see each one's own function on top, not the
//! wrapper's frames.
#![no_main]

/// Panics with an index out of bounds on inputs that start with `key`.
#[inline(never)]
fn parse_key(data: &[u8]) -> u8 {
    let table = [7u8; 4];
    if data.starts_with(b"key") {
        return table[std::hint::black_box(data.len()) + 4];
    }
    0
}

/// Panics with `unwrap()` on `None` on inputs that start with `val` and hold no `=`.
#[inline(never)]
fn check_value(data: &[u8]) -> usize {
    if data.starts_with(b"val") {
        return data.iter().position(|&b| b == b'=').unwrap();
    }
    0
}

/// Aborts the process on inputs that start with `halt`, as a failed internal check might.
#[inline(never)]
fn halt(data: &[u8]) {
    if data.starts_with(b"halt") {
        std::process::abort();
    }
}

/// Recursion without a depth limit, 64 KiB of stack per level: an input of 200 `[` overflows
/// the main thread's 8 MiB stack.
#[inline(never)]
fn nest(data: &[u8], at: usize) -> usize {
    let mut scratch = [0u8; 65536];
    match data.get(at) {
        Some(b'[') => {
            scratch[at % scratch.len()] = 1;
            nest(data, at + 1) + usize::from(std::hint::black_box(&scratch)[0] == 1)
        }
        _ => 0,
    }
}

hellfuzz::fuzz_target!(|data: &[u8]| {
    std::hint::black_box(parse_key(data));
    std::hint::black_box(check_value(data));
    halt(data);
    std::hint::black_box(nest(data, 0));
});
