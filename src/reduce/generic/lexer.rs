//! A lexer for any text: words, numbers, quoted strings, whitespace, newlines, punctuation.
//!
//! [`lex`] cuts bytes into [`Token`]s whose concatenation is exactly the input. Bytes that are not
//! valid UTF-8 become [`TokenKind::Bytes`] chunks; the valid runs between them are lexed as text.

/// What a token is. The tree builder and the templates only look at this, never at a grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// Letters, digits and `_` starting with a letter or `_` (identifiers, keywords, plain words).
    Word,
    /// Starts with a digit: digits, letters, `_` and `.` followed by a digit (`42`, `0x1F`,
    /// `1.5e3`), plus the sign of an exponent (`1e-9`).
    Number,
    /// A `"…"`, `'…'` or `` `…` `` literal on one line, backslash escapes included.
    String,
    /// Spaces, tabs and other non-newline whitespace.
    Space,
    /// `\n`, or `\r\n`.
    Newline,
    /// One character that is none of the above (brackets, operators, a lone quote).
    Punct,
    /// A run of bytes that are not valid UTF-8.
    Bytes,
}

/// A token: its kind and where its bytes are in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Start offset in the input.
    pub start: usize,
    /// End offset (exclusive); `end > start`.
    pub end: usize,
}

/// Cuts `input` into tokens covering it exactly, in order.
pub fn lex(input: &[u8]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut offset = 0;
    for chunk in input.utf8_chunks() {
        lex_text(chunk.valid(), offset, &mut tokens);
        offset += chunk.valid().len();
        let invalid = chunk.invalid().len();
        if invalid > 0 {
            tokens.push(Token {
                kind: TokenKind::Bytes,
                start: offset,
                end: offset + invalid,
            });
            offset += invalid;
        }
    }
    tokens
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Lexes valid text starting at input offset `base`.
fn lex_text(text: &str, base: usize, tokens: &mut Vec<Token>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = text[i..].chars().next().expect("i is on a char boundary");
        let rest = &text[i..];
        let (kind, len) = if c == '\n' {
            (TokenKind::Newline, 1)
        } else if rest.starts_with("\r\n") {
            (TokenKind::Newline, 2)
        } else if c.is_whitespace() {
            // A `\r` ends a run of spaces: it may start a `\r\n` newline.
            (
                TokenKind::Space,
                span(rest, |c| c.is_whitespace() && c != '\n' && c != '\r'),
            )
        } else if c.is_ascii_digit() {
            (TokenKind::Number, number_len(rest))
        } else if is_word_char(c) {
            (TokenKind::Word, span(rest, is_word_char))
        } else if let Some(len) = (matches!(c, '"' | '\'' | '`')).then(|| string_len(rest)).flatten() {
            (TokenKind::String, len)
        } else {
            (TokenKind::Punct, c.len_utf8())
        };
        tokens.push(Token {
            kind,
            start: base + i,
            end: base + i + len,
        });
        i += len;
    }
}

/// The byte length of the longest prefix of `s` whose chars satisfy `f` (at least the first).
fn span(s: &str, f: impl Fn(char) -> bool) -> usize {
    let first = s.chars().next().map_or(0, char::len_utf8);
    first
        + s[first..]
            .chars()
            .take_while(|&c| f(c))
            .map(char::len_utf8)
            .sum::<usize>()
}

fn number_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 1;
    while i < b.len() {
        let c = b[i];
        let exponent_sign = (c == b'+' || c == b'-')
            && matches!(b[i - 1], b'e' | b'E')
            && !s[..i].starts_with("0x")
            && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        let decimal_point = c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_alphanumeric() || c == b'_' || exponent_sign || decimal_point {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// The length of a quoted literal at the start of `s`, if it closes on the same line.
fn string_len(s: &str) -> Option<usize> {
    let quote = s.as_bytes()[0];
    let b = s.as_bytes();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 < b.len() && b[i + 1] != b'\n' => i += 2,
            b'\n' => return None,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn kinds(input: &str) -> Vec<(TokenKind, &str)> {
        lex(input.as_bytes())
            .into_iter()
            .map(|t| (t.kind, &input[t.start..t.end]))
            .collect()
    }

    #[test]
    fn words_numbers_strings_and_punctuation() {
        use TokenKind::*;
        assert_eq!(
            kinds("x_1 = 1.5e-3 + 0x1F;\r\n"),
            vec![
                (Word, "x_1"),
                (Space, " "),
                (Punct, "="),
                (Space, " "),
                (Number, "1.5e-3"),
                (Space, " "),
                (Punct, "+"),
                (Space, " "),
                (Number, "0x1F"),
                (Punct, ";"),
                (Newline, "\r\n"),
            ]
        );
        assert_eq!(
            kinds(r#"s = "a\"b" 'c'"#),
            vec![
                (Word, "s"),
                (Space, " "),
                (Punct, "="),
                (Space, " "),
                (String, r#""a\"b""#),
                (Space, " "),
                (String, "'c'"),
            ]
        );
    }

    #[test]
    fn unclosed_quotes_are_punctuation_and_a_dot_needs_a_digit() {
        use TokenKind::*;
        assert_eq!(
            kinds("don't\n1.x"),
            vec![
                (Word, "don"),
                (Punct, "'"),
                (Word, "t"),
                (Newline, "\n"),
                (Number, "1"),
                (Punct, "."),
                (Word, "x")
            ]
        );
    }

    #[test]
    fn invalid_utf8_becomes_byte_chunks_between_text_tokens() {
        let input = b"ab\xff\xfe cd\xc3";
        let tokens = lex(input);
        let pieces: Vec<(TokenKind, &[u8])> = tokens.iter().map(|t| (t.kind, &input[t.start..t.end])).collect();
        assert_eq!(
            pieces,
            vec![
                (TokenKind::Word, &b"ab"[..]),
                (TokenKind::Bytes, &b"\xff"[..]),
                (TokenKind::Bytes, &b"\xfe"[..]),
                (TokenKind::Space, &b" "[..]),
                (TokenKind::Word, &b"cd"[..]),
                (TokenKind::Bytes, &b"\xc3"[..]),
            ]
        );
    }

    proptest! {
        #[test]
        fn tokens_cover_any_bytes_exactly(input in proptest::collection::vec(any::<u8>(), 0..200)) {
            let tokens = lex(&input);
            let mut at = 0;
            for t in &tokens {
                prop_assert_eq!(t.start, at);
                prop_assert!(t.end > t.start);
                at = t.end;
            }
            prop_assert_eq!(at, input.len());
        }

        #[test]
        fn tokens_cover_any_text_exactly(input in "\\PC{0,100}|[ \t\r\n\"'a-z0-9.({\\[\\]})\\\\-]{0,100}") {
            let tokens = lex(input.as_bytes());
            let joined: String = tokens.iter().map(|t| &input[t.start..t.end]).collect();
            prop_assert_eq!(joined, input);
        }
    }
}
