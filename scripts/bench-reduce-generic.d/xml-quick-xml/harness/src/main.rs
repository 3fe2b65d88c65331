//! Reads the file named by the first argument and hands it to the crate, as the bug report does.
fn main() {
    let path = std::env::args().nth(1).expect("usage: harness FILE");
    let data = std::fs::read(&path).expect("the input file is readable");
    let mut reader = quick_xml::Reader::from_reader(data.as_slice());
    let mut buf = Vec::new();
    // As in the report: read events until the end, ignoring errors, never clearing the buffer.
    for _ in 0..100_000 {
        if let Ok(quick_xml::events::Event::Eof) = reader.read_event_into(&mut buf) {
            break;
        }
    }
}
