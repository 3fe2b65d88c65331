//! The code under test of the css target: lightningcss's parser and printer, as a round trip.

use lightningcss::stylesheet::{ParserOptions, PrinterOptions, StyleSheet};

/// lightningcss's parser and printer, as a round trip, printed as is and minified: a style sheet
/// that parses (default options: no error recovery, no CSS modules, no targets, so nothing is
/// lowered) and prints must print to a style sheet that parses and prints the same again
/// (printing is idempotent). The first print is compared with the second, not with the input,
/// because the printer normalizes on purpose (layout, colours, units, shorthands; minified, also
/// `100%` to `to` in keyframes and the like, so the two printings are not compared either).
/// Inputs that do not parse are answers, not bugs: only a panic there is a finding; a
/// style sheet that parses but that the printer refuses (a `PrinterError`, such as an ambiguous
/// `url()` in a custom property) is an answer too.
///
/// The panic messages leave the input and the printed text out, and name an error by its kind
/// only (`UnexpectedToken`, not the token): the wrapper minimizes a crash only while the message
/// stays the same (numbers aside), and the input is in the crash file anyway (run the target on
/// the `minimized-*` file to see it fail).
pub fn css(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(failure) = check(text) {
        // Known and exempted so fuzzing goes on: minified, a comment in a value kept as tokens
        // (a custom or unknown property) is dropped without what parts the tokens either side:
        // `--x:1/**/2` minifies to `--x:12`, `b:c/**/(d)` to the function `b:c(d)`, and the
        // blanks around it stay (`a{--x:a /**/}` gives `a{--x:a }`, tightened by the next pass).
        // This target found it on its first seeds. A failure that goes away with the comments
        // made blanks is taken for it.
        if text.contains("/*") && check(&decomment(text)).is_ok() {
            return;
        }
        panic!("{failure}");
    }
}

/// The round trip, printed as is and minified.
fn check(text: &str) -> Result<(), String> {
    roundtrip(text, false)?;
    roundtrip(text, true)?;
    Ok(())
}

/// Parses, prints, parses and prints again: Ok for the same text twice, or for an input that
/// does not parse or print (an answer); what failed otherwise.
fn roundtrip(text: &str, minify: bool) -> Result<(), String> {
    let how = if minify { "minified " } else { "" };
    let Ok(first) = parse_print(text, minify) else {
        return Ok(());
    };
    let second =
        parse_print(&first, minify).map_err(|error| format!("lightningcss's {how}printed style sheet {error}"))?;
    if second != first {
        return Err(format!("lightningcss's {how}printing is not idempotent"));
    }
    Ok(())
}

/// The text with every comment made one blank (strings are not told apart: only used to decide
/// whether a failure is the known one).
fn decomment(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        out.push(' ');
        rest = match rest[start + 2..].find("*/") {
            Some(end) => &rest[start + 2 + end + 2..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// Parses `text` as a style sheet and prints it; or what went wrong, by kind.
fn parse_print(text: &str, minify: bool) -> Result<String, String> {
    let sheet =
        StyleSheet::parse(text, ParserOptions::default()).map_err(|e| format!("does not parse: {}", kind(&e.kind)))?;
    let options = PrinterOptions {
        minify,
        ..PrinterOptions::default()
    };
    let printed = sheet
        .to_css(options)
        .map_err(|e| format!("does not print: {}", kind(&e.kind)))?;
    Ok(printed.code)
}

/// An error's variant name: its `Debug` text up to what it holds (`UnexpectedToken(Ident("a"))`
/// gives `UnexpectedToken`).
fn kind(error: &impl std::fmt::Debug) -> String {
    let text = format!("{error:?}");
    let end = text.find(['(', ' ', '{']).unwrap_or(text.len());
    text[..end].to_string()
}
