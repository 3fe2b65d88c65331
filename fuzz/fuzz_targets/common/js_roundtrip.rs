//! The code under test of the js target: oxc's parser and printer, as a round trip.

/// oxc's parser and printer, as a round trip: a script that parses without errors is printed,
/// the printed text must parse without errors too, and printing that must give the same text
/// (printing is idempotent). The first print is compared with the second, not with the input,
/// because the printer normalizes on purpose (layout, quotes, parentheses, number spelling).
/// Comments are checked apart: the printer keeps only some of them and moves them about (its
/// documentation says so), so idempotence is required of the code printed without comments, and
/// the text printed with comments must parse to that same code. Inputs that do not parse are
/// answers, not bugs: only a panic there is a finding.
///
/// The panic messages leave the input and the printed text out, unlike `json`'s: the wrapper
/// minimizes a crash only while the message stays the same (numbers aside), and the input is in
/// the crash file anyway (run the target on the `minimized-*` file to see it fail).
pub fn js(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(first) = js_parse_print(text) else {
        return;
    };
    let Some(second) = js_reparse(&first.code) else {
        return;
    };
    assert!(second.code == first.code, "oxc's printing is not idempotent");
    if first.commented != first.code {
        let Some(third) = js_reparse(&first.commented) else {
            return;
        };
        assert!(third.code == first.code, "oxc's printed comments change the program");
    }
}

/// A program as oxc prints it.
struct Printed {
    /// Without comments.
    code: String,
    /// With the comments the printer keeps.
    commented: String,
}

/// Parses text that oxc printed: panics if it does not parse, None for the known bug below.
fn js_reparse(printed: &str) -> Option<Printed> {
    match js_parse_print(printed) {
        Ok(again) => Some(again),
        // Known and exempted so fuzzing goes on: oxc_codegen (0.146, unchanged in 0.157) prints a
        // private field of an integer, `6..#x` or `6 .#x`, as `6.#x`, where `6.` lexes as the
        // number. This target found it (see the README).
        Err(_) if private_field_of_integer(printed) => None,
        Err(error) => panic!("oxc's printed program does not parse: {error}"),
    }
}

/// Parses `text` as a script (the js grammar has no import/export, and a module would be strict
/// mode, which rejects ES5 that the grammar allows, such as `with`), regular expression bodies
/// included, and prints it; or the first parse error (the later ones follow from where the parser
/// recovered, so they would split one bug into many signatures).
fn js_parse_print(text: &str) -> Result<Printed, String> {
    let allocator = oxc_allocator::Allocator::default();
    let options = oxc_parser::ParseOptions {
        parse_regular_expression: true,
        ..oxc_parser::ParseOptions::default()
    };
    let parsed = oxc_parser::Parser::new(&allocator, text, oxc_span::SourceType::script())
        .with_options(options)
        .parse();
    // Only errors make a program invalid; this parser version emits no warnings anyway.
    if parsed.panicked || parsed.diagnostics.has_errors() {
        let first = parsed.diagnostics.errors().next().map(|e| e.to_string());
        return Err(first.unwrap_or_else(|| "the parser gave up without an error".to_string()));
    }
    let bare = oxc_codegen::CodegenOptions {
        comments: oxc_codegen::CommentOptions::disabled(),
        ..oxc_codegen::CodegenOptions::default()
    };
    let code = oxc_codegen::Codegen::new()
        .with_options(bare)
        .build(&parsed.program)
        .code;
    let commented = if parsed.program.comments.is_empty() {
        code.clone()
    } else {
        oxc_codegen::Codegen::new().build(&parsed.program).code
    };
    Ok(Printed { code, commented })
}

/// Whether printed code has a digit right before `.#`, the mark of oxc_codegen's known
/// private-field bug (it also matches `a1.#x`, which is fine: only used once a reparse failed).
fn private_field_of_integer(printed: &str) -> bool {
    printed
        .as_bytes()
        .windows(3)
        .any(|w| w[0].is_ascii_digit() && w[1] == b'.' && w[2] == b'#')
}
