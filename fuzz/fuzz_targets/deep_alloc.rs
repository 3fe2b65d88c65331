//! A recursion bomb that allocates at every level, as a parser that builds a node per level
//! does: the stack overflows inside the allocator in many runs, holding its lock. The handler
//! must still save the input and end the process (`scripts/fuzz-overflow-alloc`, run by CI):
//! anything in it that allocates would wait for that lock forever.
#![no_main]

/// Nesting of `[`…`]` from `data[*at..]`: each level allocates past glibc's per-thread cache (so
/// the allocator takes its arena's lock) and frees it again, before the next level.
fn nest(data: &[u8], at: &mut usize) -> usize {
    let mut deepest = 0;
    while let Some(&c) = data.get(*at) {
        *at += 1;
        match c {
            b'[' => {
                // Allocated and freed before going deeper: memory stays flat however deep.
                let node: Vec<u8> = Vec::with_capacity(4096 + *at % 4096);
                deepest += usize::from(std::hint::black_box(node).capacity() == 0);
                deepest = deepest.max(nest(data, at) + 1);
            }
            b']' => break,
            _ => {}
        }
    }
    deepest
}

hellfuzz::fuzz_target!(|data: &[u8]| {
    let mut at = 0;
    std::hint::black_box(nest(data, &mut at));
});
