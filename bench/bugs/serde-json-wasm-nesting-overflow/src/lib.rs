pub fn run(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = serde_json_wasm::from_str::<serde::de::IgnoredAny>(s);
    }
}
