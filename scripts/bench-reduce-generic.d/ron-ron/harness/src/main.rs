//! Reads the file named by the first argument and hands it to the crate, as the bug report does.
fn main() {
    let path = std::env::args().nth(1).expect("usage: harness FILE");
    let data = std::fs::read(&path).expect("the input file is readable");
    let Ok(text) = String::from_utf8(data) else { return };
    // Parsed in a thread with a stack of fixed size: the main thread's stack starts at a random
    // offset and also holds the arguments and environment, so the nesting depth at which the
    // parser overflows it would vary from run to run and with the length of the file's path.
    let parser = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let _: Result<ron::Value, _> = ron::from_str(&text);
        })
        .expect("a thread can be spawned");
    let _ = parser.join();
}
