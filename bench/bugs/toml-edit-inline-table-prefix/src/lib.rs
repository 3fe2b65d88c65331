pub fn run(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = s.parse::<toml_edit::DocumentMut>();
    }
}
