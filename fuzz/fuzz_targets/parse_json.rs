//! Fuzzes the parser with the built-in JSON grammar (RFC 8259), differentially against serde_json.
//!
//! Invariants checked:
//! - `Parser::parse` never panics and never reports an internal error; on `Ok` the tree is a well-formed derivation and unparses to
//!   the input exactly.
//! - The grammar accepts an input exactly when `serde_json::from_slice::<serde_json::Value>` does,
//!   except where serde_json is stricter than RFC 8259 for reasons outside the grammar's scope
//!   (see `serde_exempt`).
//!
//! Seed it with `/work/main/seeds/json` as an extra corpus directory.
#![no_main]

mod common;

use std::sync::OnceLock;

use hellfuzz::grammar::Grammar;
use hellfuzz::parse::Parser;

fn parser() -> &'static Parser {
    static PARSER: OnceLock<Parser> = OnceLock::new();
    PARSER.get_or_init(|| Parser::new(&Grammar::load("json").expect("built-in json grammar loads")))
}

/// Rejections by serde_json that RFC 8259's grammar does not make, so the grammar may accept:
/// - "recursion limit exceeded": serde_json stops at 128 nested arrays/objects (RFC 8259 §9
///   allows implementations to limit nesting depth; the grammar has no limit). Only exempt when
///   the input has at least 128 `[`/`{` bytes.
/// - "number out of range": a number whose magnitude overflows f64 (`1e400`, or 400 digits);
///   the grammar only checks syntax (RFC 8259 §6 allows limiting range).
/// - lone surrogate escapes (`"\ud800"`, `"\udc00"`, a high surrogate not followed by a low
///   one): syntactically valid per RFC 8259 §7 (`\u` 4HEXDIG; §8.2 only says such strings may
///   behave unpredictably), but serde_json cannot put them in a Rust `String` and rejects them
///   with "lone leading surrogate in hex escape" or "unexpected end of hex escape". Only exempt
///   when the input contains a `\u` escape of a surrogate (D800-DFFF).
/// Everything else must agree: whitespace set, number syntax, escapes, control characters,
/// invalid UTF-8 (serde_json: "invalid unicode code point"), trailing characters, BOM.
fn serde_exempt(err: &serde_json::Error, data: &[u8]) -> bool {
    let msg = err.to_string();
    if msg.starts_with("recursion limit exceeded") {
        return data.iter().filter(|&&b| b == b'[' || b == b'{').count() >= 128;
    }
    if msg.starts_with("number out of range") {
        return true;
    }
    if msg.starts_with("lone leading surrogate in hex escape") || msg.starts_with("unexpected end of hex escape") {
        return has_surrogate_escape(data);
    }
    false
}

/// Whether `data` contains `\u` followed by D, one of 8-F, and two hex digits (case-insensitive).
fn has_surrogate_escape(data: &[u8]) -> bool {
    data.windows(6).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && matches!(w[2], b'd' | b'D')
            && matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
            && w[4].is_ascii_hexdigit()
            && w[5].is_ascii_hexdigit()
    })
}

hellfuzz::fuzz_target!(grammar = "json", |data: &[u8]| {
    let parser = parser();
    let ours = parser.parse(data);
    if let Ok(tree) = &ours {
        common::check_tree(parser.grammar(), tree, parser.grammar().start(), "json parse");
        assert_eq!(tree.unparse(), data, "round trip");
    }
    if let Err(e) = &ours {
        common::check_not_internal(e, data);
    }
    let theirs = serde_json::from_slice::<serde_json::Value>(data);
    match (&ours, &theirs) {
        (Ok(_), Ok(_)) | (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) if serde_exempt(e, data) => {}
        (Ok(_), Err(e)) => panic!(
            "the json grammar accepts {:?} but serde_json rejects it: {e}",
            String::from_utf8_lossy(data)
        ),
        (Err(e), Ok(_)) => panic!(
            "serde_json accepts {:?} but the json grammar rejects it: {e}",
            String::from_utf8_lossy(data)
        ),
    }
});
