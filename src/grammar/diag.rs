//! Diagnostics for grammar files: where (file:line:col) and what went wrong.
//!
//! [`Span`] locates a piece of grammar text; [`Diagnostic`] is one error or warning; [`GrammarError`]
//! is the error value a failed load returns, carrying every diagnostic found.

use std::fmt;

/// A location in a grammar file: byte offset plus 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub struct Span {
    /// Byte offset of the first character.
    pub offset: usize,
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, counted in characters (not bytes).
    pub col: u32,
}

impl Span {
    /// The span of byte `offset` in `text`, computing line and column.
    pub fn at(text: &str, offset: usize) -> Span {
        let (line, col) = line_col(text.as_bytes(), offset);
        Span { offset, line, col }
    }
}

/// 1-based line and column (in characters) of byte `offset` in `bytes`; offsets past the end
/// are clamped to the end.
pub fn line_col(bytes: &[u8], offset: usize) -> (u32, u32) {
    let offset = offset.min(bytes.len());
    let before = &bytes[..offset];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    // Count characters, not bytes: continuation bytes 0b10xx_xxxx do not start a character.
    let col = before[line_start..].iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u32 + 1;
    (line, col)
}

/// How bad a diagnostic is: errors make the grammar unusable, warnings do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Severity {
    /// The grammar is still usable (for example, an unreachable rule).
    Warning,
    /// The grammar cannot be used.
    Error,
}

/// One message about a grammar file, with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where the problem is.
    pub span: Span,
    /// What is wrong and, where useful, what to do about it.
    pub message: String,
    /// The grammar's origin (a path, or `<builtin:json>`), for display.
    pub file: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.span.line, self.span.col, kind, self.message
        )
    }
}

/// A grammar that could not be loaded: every error found (and the warnings seen on the way).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GrammarError {
    /// All diagnostics, errors first in file order, then warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl GrammarError {
    /// An error about the grammar as a whole, not about a position in it (an unreadable file).
    pub fn whole_file(file: &str, message: String) -> GrammarError {
        GrammarError {
            diagnostics: vec![Diagnostic {
                severity: Severity::Error,
                span: Span {
                    offset: 0,
                    line: 1,
                    col: 1,
                },
                message,
                file: file.to_string(),
            }],
        }
    }

    /// The errors only (warnings dropped).
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error)
    }
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.errors().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for GrammarError {}

/// Collects diagnostics while a grammar is loaded.
#[derive(Default)]
pub(crate) struct Sink {
    pub file: String,
    pub items: Vec<Diagnostic>,
}

impl Sink {
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Severity::Error, span, message.into());
    }

    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.push(Severity::Warning, span, message.into());
    }

    fn push(&mut self, severity: Severity, span: Span, message: String) {
        self.items.push(Diagnostic {
            severity,
            span,
            message,
            file: self.file.clone(),
        });
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// Errors first (in file order), then warnings (in file order).
    pub fn sorted(mut self) -> Vec<Diagnostic> {
        self.items
            .sort_by(|a, b| b.severity.cmp(&a.severity).then(a.span.cmp(&b.span)));
        self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_not_bytes() {
        let text = "ab\nçd = x";
        assert_eq!(line_col(text.as_bytes(), 0), (1, 1));
        assert_eq!(line_col(text.as_bytes(), 3), (2, 1));
        // 'd' is at byte 5 (ç is two bytes) but is the second character of line 2.
        assert_eq!(line_col(text.as_bytes(), 5), (2, 2));
        assert_eq!(line_col(text.as_bytes(), 999), (2, 7));
    }
}
