//! A plain harness with planted bugs, for `hellfuzz triage`'s tests and benchmark: it reads the
//! file named by its first argument and "parses" it; the first keyword in it picks the bug.
//!
//! Map: `main` (read the file, exit 0 when nothing crashed) · `parse` (keywords → bugs) · the bugs.
//! Keywords: IDX (index out of bounds, message varies with the input), UNWRAP (unwrap on None),
//! OBJ and ARR (one shared panicking helper, reached from different callers), DIV (division by
//! zero), SLICE (a bad range), ABORT and HALT (two `abort()` sites in one function: only the line
//! tells them apart), DEEP (stack overflow), OOM (allocation failure), HANG (never ends), FLAKY
//! (crashes on every other run, keeping state in $TRIAGE_HARNESS_STATE), NAME (a panic whose
//! message quotes the next word of the input, unquoted: one bug, a coarse hash per word).
//! TRIAGE_HARNESS_FIXED=KEYWORD,... "fixes" those bugs.
//! No dependencies: the tests compile it with `rustc --edition 2021 -g` in about a second.

use std::hint::black_box;

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: triage_harness FILE");
        std::process::exit(2);
    };
    let data = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot read {}: {e}", path.to_string_lossy());
            std::process::exit(2);
        }
    };
    parse(&data);
}

/// Runs the bug of the first keyword in `data` that is not fixed.
#[inline(never)]
fn parse(data: &[u8]) {
    let fixed = std::env::var("TRIAGE_HARNESS_FIXED").unwrap_or_default();
    let text = String::from_utf8_lossy(data);
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        if fixed.split(',').any(|f| f == word) {
            continue;
        }
        match word {
            "IDX" => lookup(data),
            "UNWRAP" => number(data),
            "OBJ" => object(data),
            "ARR" => array(data),
            "DIV" => divide(data),
            "SLICE" => slice(data),
            "ABORT" => std::process::abort(),
            "HALT" => {
                black_box(data.len());
                std::process::abort()
            }
            "DEEP" => {
                black_box(recurse(0, [1; 256]));
            }
            "OOM" => {
                black_box(vec![0u8; black_box(1usize << 46)]);
            }
            "HANG" => loop {
                std::thread::sleep(std::time::Duration::from_secs(1));
            },
            "FLAKY" => flaky(data),
            "NAME" => name(&text),
            _ => continue,
        }
        return;
    }
}

#[inline(never)]
fn name(text: &str) {
    let after = text.split("NAME").nth(1).unwrap_or_default();
    let word = after.split_whitespace().next().unwrap_or("nothing");
    panic!("unknown name {word}");
}

#[inline(never)]
fn lookup(data: &[u8]) {
    let table = [0u8; 3];
    black_box(table[black_box(data.len()) + 3]);
}

#[inline(never)]
fn number(data: &[u8]) {
    let digit = data.iter().find(|b| b.is_ascii_digit() && **b > b'9');
    black_box(digit.unwrap());
}

#[inline(never)]
fn divide(data: &[u8]) {
    black_box(100 / black_box(data.len() - data.len()));
}

#[inline(never)]
fn slice(data: &[u8]) {
    black_box(&data[black_box(5)..black_box(2)]);
}

#[inline(never)]
fn object(data: &[u8]) {
    check(data.len(), "object");
}

#[inline(never)]
fn array(data: &[u8]) {
    check(data.len(), "array");
}

/// Shared by `object` and `array`: their panics have one location and one message.
#[inline(never)]
fn check(depth: usize, _what: &str) {
    if black_box(depth) > 0 {
        fail(depth);
    }
}

#[inline(never)]
fn fail(depth: usize) {
    panic!("invariant violated at depth {depth}");
}

// Unbounded on purpose: the stack overflow is the planted bug.
#[allow(unconditional_recursion)]
#[inline(never)]
fn recurse(n: u64, pad: [u8; 256]) -> u64 {
    black_box(&pad);
    recurse(n + 1, pad) + pad[(n % 256) as usize] as u64
}

/// Crashes when its state file is absent (and creates it), passes when present (and removes it):
/// a first run crashes and a confirming rerun does not.
#[inline(never)]
fn flaky(data: &[u8]) {
    let dir = std::env::var_os("TRIAGE_HARNESS_STATE").unwrap_or_else(|| std::env::temp_dir().into_os_string());
    let name = format!("flaky-{}", data.iter().map(|&b| b as u64).sum::<u64>());
    let marker = std::path::Path::new(&dir).join(name);
    if std::fs::remove_file(&marker).is_err() {
        let _ = std::fs::write(&marker, b"");
        panic!("flaky failure");
    }
}
