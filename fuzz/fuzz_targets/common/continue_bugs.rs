//! Planted bugs for continue mode (`scripts/fuzz-continue`, `scripts/bench-continue`): a shallow
//! panic that byte mutation hits within a second, a deeper one behind four nested checks, and an
//! `abort()` that no wrapper can catch.

/// Panics on inputs that start with `-`: hit again and again once found.
#[inline(never)]
pub fn shallow(data: &[u8]) {
    if data.first() == Some(&b'-') {
        panic!("a leading minus in {} bytes", data.len());
    }
}

/// Panics on inputs that start with `(()`, then `)`: coverage leads there one byte at a time.
#[inline(never)]
pub fn deeper(data: &[u8]) {
    if data.len() >= 4 && data[0] == b'(' && data[1] == b'(' {
        if data[2] == b')' {
            if data[3] == b')' {
                panic!("an empty group in a group");
            }
        }
    }
}

/// Aborts on inputs that start with `!!`, as a failed internal check in C code might.
#[inline(never)]
#[allow(dead_code)]
pub fn halt(data: &[u8]) {
    if data.starts_with(b"!!") {
        std::process::abort();
    }
}
