//! A recursion bomb: nesting counted by a recursive descent with no depth limit, as in many
//! parsers before their first stack-overflow report. Under `cargo fuzz run -s none` a deep input
//! kills the process with SIGSEGV; hellfuzz's wrapper must still leave `crash-<sha1>` and a
//! minimized file (`scripts/fuzz-stack-overflow`, run by CI).
#![no_main]

/// The deepest nesting of `[`…`]` from `data[*at..]`, one stack frame (with a 64 KiB buffer, as
/// a parser's token buffer would be) per level: about 130 levels overflow the main thread's
/// 8 MiB stack.
fn depth(data: &[u8], at: &mut usize) -> usize {
    let mut scratch = [0u8; 65536];
    let mut deepest = 0;
    while let Some(&c) = data.get(*at) {
        *at += 1;
        scratch[*at % scratch.len()] = c;
        match c {
            b'[' => deepest = deepest.max(depth(data, at) + 1),
            b']' => break,
            _ => {}
        }
    }
    // Keep the buffer (and so the frame size) from being optimized away.
    deepest + usize::from(std::hint::black_box(&scratch)[0] == 1)
}

hellfuzz::fuzz_target!(|data: &[u8]| {
    let mut at = 0;
    std::hint::black_box(depth(data, &mut at));
});
