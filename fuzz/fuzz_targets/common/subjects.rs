//! The code under test of the json and calc targets, shared by the libFuzzer targets (with and
//! without the grammar-aware mutator) and the AFL targets in `fuzz/afl/`. (The js target's is in
//! `js_roundtrip.rs`, so that the AFL workspace does not need oxc.)

#![allow(dead_code)] // each target uses one of the subjects

/// serde_json, checked against a second JSON crate (`json`): a document both accept must give
/// the same value (objects as maps where the last duplicate key wins, numbers as f64 up to
/// rounding). Acceptance itself differs on purpose (depth limits, lone surrogates), so it is not
/// compared; the `parse_json` target compares acceptance against the RFC 8259 grammar instead.
pub fn json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let (Ok(ours), Ok(theirs)) = (serde_json::from_str::<serde_json::Value>(text), json::parse(text)) {
        assert!(
            same(&ours, &theirs),
            // The values stay out of the message: they change as the crash is minimized, and
            // the wrapper keeps a candidate only while the message (quoted input aside) holds.
            "serde_json and json disagree on {text:?}"
        );
    }
}

fn same(a: &serde_json::Value, b: &json::JsonValue) -> bool {
    use serde_json::Value as S;
    match (a, b) {
        (S::Null, json::JsonValue::Null) => true,
        (S::Bool(x), json::JsonValue::Boolean(y)) => x == y,
        (S::String(x), _) => b.as_str() == Some(x.as_str()),
        // Known and exempted so fuzzing goes on: json 0.12 turns a zero with a huge exponent
        // (`0e1367`) into NaN. The inverted json seeds found it (see the README).
        (S::Number(x), json::JsonValue::Number(y)) if y.is_zero() => x.as_f64() == Some(0.0),
        (S::Number(x), json::JsonValue::Number(y)) => close(x.as_f64().unwrap_or(f64::NAN), f64::from(*y)),
        (S::Array(xs), json::JsonValue::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        (S::Object(xs), json::JsonValue::Object(ys)) => {
            xs.len() == ys.len() && xs.iter().all(|(k, x)| ys.get(k).is_some_and(|y| same(x, y)))
        }
        _ => false,
    }
}

fn close(x: f64, y: f64) -> bool {
    x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
}

/// The expression evaluator; its errors are answers, not bugs.
pub fn calc(data: &[u8]) {
    let _ = calc::eval(data);
}
