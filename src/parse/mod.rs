//! Parsing bytes with any grammar: an Earley parser that returns one derivation tree.
//!
//! [`Parser::new`] compiles a [`Grammar`] once; [`Parser::parse`] returns a [`Tree`] or a
//! [`ParseError`] with the furthest offset reached (line:col) and the terminals expected there.
//! [`Parser::parse_recovering`] (`recover`) always returns a tree: bytes that do not fit become
//! error leaves (for input repair); the normal path does not pay for it.
//!
//! ```
//! use hellfuzz::{grammar::Grammar, parse::Parser};
//! let g = Grammar::from_text(r#"sum = sum "+" num | num ; num = [0-9]+ ;"#, "sum").unwrap();
//! let parser = Parser::new(&g);
//! let tree = parser.parse(b"1+22+3").unwrap();
//! assert_eq!(tree.unparse(), b"1+22+3");
//! let err = parser.parse(b"1+x").unwrap_err();
//! assert_eq!((err.offset, err.line, err.col), (2, 1, 3));
//! assert_eq!(err.expected, vec!["[0-9]".to_string()]);
//! ```
//!
//! How it is fast: non-recursive symbols (numbers, strings, whitespace) are matched as tokens
//! instead of byte-by-byte Earley items, by a lazy DFA (`scan`) where their meaning is regular,
//! else by a direct matcher (`lexical`); prediction, nullable handling and lookahead (items that
//! cannot continue are dropped) are precomputed (`compile`); items are 16 bytes (`earley`); the
//! tree is read back from recorded completions without search, and a token's derivation is
//! made once per distinct text and copied where the text recurs (`forest`).

mod compile;
mod earley;
mod forest;
mod lexical;
mod recover;
mod scan;

use std::fmt;

use crate::grammar::{line_col, Grammar, TerminalId};
use crate::tree::Tree;

pub use recover::ErrorSpan;

/// A parser for one grammar. Cheap to share; parse as many inputs as you like.
pub struct Parser {
    grammar: Grammar,
    compiled: compile::Compiled,
    /// Chart buffers reused by the next parse (taken without waiting: parallel parses each
    /// allocate their own).
    scratch: std::sync::Mutex<earley::Scratch>,
    /// Whether parses take the fast paths (token DFA, dropping items that cannot continue);
    /// off only where tests compare them with the plain interpreter.
    fast: bool,
}

/// Why an input does not parse: the furthest point reached and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseError {
    /// Byte offset of the furthest point reached.
    pub offset: usize,
    /// 1-based line of `offset`.
    pub line: u32,
    /// 1-based column (in characters) of `offset`.
    pub col: u32,
    /// The terminals that would have been accepted there, as written in the grammar, sorted.
    /// Empty when only the end of the input would have been accepted.
    pub expected: Vec<String>,
    /// What was found there: a character in backquotes, a byte in hex, or "the end of the input".
    pub found: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {} (byte {}): ", self.line, self.col, self.offset)?;
        let expected: Vec<String> = self
            .expected
            .iter()
            .map(|t| crate::grammar::abbreviated(t).into_owned())
            .collect();
        match expected.as_slice() {
            [] => write!(f, "expected the end of the input")?,
            [one] => write!(f, "expected {one}")?,
            many if many.len() <= 12 => write!(f, "expected one of {}", many.join(", "))?,
            many => write!(
                f,
                "expected one of {}, … ({} in all)",
                many[..12].join(", "),
                many.len()
            )?,
        }
        write!(f, ", found {}", self.found)
    }
}

impl std::error::Error for ParseError {}

/// Where an input has more than one parse (see [`Parser::parse_ambiguity`]): the symbol whose
/// span the grammar derives in two ways. Mining counts the choices of the parse the parser
/// picked, so a sample with several parses may be counted in the wrong way.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ambiguity {
    /// The rule (or "a repetition") with two derivations of the span.
    pub symbol: String,
    /// Byte offset where the span starts.
    pub start: usize,
    /// Byte offset where the span ends (exclusive).
    pub end: usize,
}

impl Parser {
    /// Compiles `grammar` for parsing (the grammar is cloned into the parser).
    pub fn new(grammar: &Grammar) -> Parser {
        Parser {
            compiled: compile::Compiled::new(grammar),
            grammar: grammar.clone(),
            scratch: Default::default(),
            fast: true,
        }
    }

    /// The same parser without the fast paths: the plain interpreter, which must give the same
    /// trees and errors (what tests compare against).
    #[cfg(test)]
    pub(crate) fn interpreted(grammar: &Grammar) -> Parser {
        Parser {
            fast: false,
            ..Parser::new(grammar)
        }
    }

    /// The grammar this parser parses.
    pub fn grammar(&self) -> &Grammar {
        &self.grammar
    }

    /// [`Parser::parse`]'s tree, or `None` where it gives an error: no diagnosis (a failed
    /// parse is recognized once, not again to find what was expected), so an input that does
    /// not parse costs about half. For callers that skip such inputs, like the mutator.
    pub fn tree(&self, input: &[u8]) -> Option<Tree> {
        if input.len() >= u32::MAX as usize {
            return None;
        }
        let mut scratch = self.take_scratch();
        let built = self
            .first_run(input, &mut scratch, |chart, lexer| {
                forest::build(&self.compiled, &self.grammar, input, chart, lexer).ok()
            })
            .flatten();
        self.keep_scratch(scratch);
        built
    }

    /// Parses `input` as the grammar's start symbol. On ambiguity one derivation is chosen,
    /// deterministically. Inputs of 4 GiB or more are rejected.
    pub fn parse(&self, input: &[u8]) -> Result<Tree, ParseError> {
        if input.len() >= u32::MAX as usize {
            return Err(self.error(input, 0, vec!["an input smaller than 4 GiB".into()]));
        }
        let mut scratch = self.take_scratch();
        let fast = self.first_run(input, &mut scratch, |chart, lexer| {
            forest::build(&self.compiled, &self.grammar, input, chart, lexer)
        });
        let result = match fast {
            Some(built) => built.map_err(|internal| self.error(input, 0, vec![internal])),
            // The fast run skipped symbols that cannot start where they were tried; what was
            // expected at the furthest point is exact only from a run that tries them all.
            None => {
                let mut lexer = self.lexer(input, &mut scratch);
                lexer.lookahead = false;
                let result = match earley::recognize(&self.compiled, &self.grammar, input, &mut lexer, &mut scratch) {
                    Ok(chart) => forest::build(&self.compiled, &self.grammar, input, &chart, &mut lexer)
                        .map_err(|internal| self.error(input, 0, vec![internal])),
                    Err(failure) => {
                        let expected = failure
                            .expected
                            .iter()
                            .map(|&t| self.grammar.terminal(t).to_string())
                            .collect();
                        Err(self.error(input, failure.offset, expected))
                    }
                };
                scratch.dfa_cache = lexer.dfa_cache.take();
                result
            }
        };
        self.keep_scratch(scratch);
        result
    }

    /// [`Parser::parse`], and whether the tree it returns is one of several: the first place
    /// (top down) where the input has another parse. Keyword extraction (`%word`) counts: where
    /// it decides, the parse is the one it picks.
    pub fn parse_ambiguity(&self, input: &[u8]) -> Result<(Tree, Option<Ambiguity>), ParseError> {
        if input.len() >= u32::MAX as usize {
            return Err(self.error(input, 0, vec!["an input smaller than 4 GiB".into()]));
        }
        let mut scratch = self.take_scratch();
        let built = self.first_run_tracking(input, &mut scratch, true, |chart, lexer| {
            forest::build_checked(&self.compiled, &self.grammar, input, chart, lexer)
        });
        self.keep_scratch(scratch);
        match built {
            Some(result) => result.map_err(|internal| self.error(input, 0, vec![internal])),
            None => self.parse(input).map(|tree| (tree, None)),
        }
    }

    /// The first recognition run over `input` (the one that looks ahead, with the fast paths as
    /// this parser has them), and `then` on its chart; `None` if that run rejects `input`. The
    /// lexer's DFA cache goes back into `scratch`.
    fn first_run<T>(
        &self,
        input: &[u8],
        scratch: &mut earley::Scratch,
        then: impl FnOnce(&earley::Chart<'_>, &mut lexical::Lexer<'_>) -> T,
    ) -> Option<T> {
        self.first_run_tracking(input, scratch, false, then)
    }

    /// [`Parser::first_run`], recording the items derived more than once if `track`.
    fn first_run_tracking<T>(
        &self,
        input: &[u8],
        scratch: &mut earley::Scratch,
        track: bool,
        then: impl FnOnce(&earley::Chart<'_>, &mut lexical::Lexer<'_>) -> T,
    ) -> Option<T> {
        // Keyword extraction first; where no parse reads every keyword as one, the input is
        // still in the language, read with names.
        let mut then = Some(then);
        if self.grammar.word().is_some() {
            match self.run_once(input, scratch, (true, track), &mut then) {
                (Some(done), _) => return Some(done),
                // No name was dropped: the run without extraction would be this one again.
                (None, false) => return None,
                (None, true) => {}
            }
        }
        self.run_once(input, scratch, (false, track), &mut then).0
    }

    /// One recognition run of [`Parser::first_run`] (keyword extraction, ambiguity tracking); `then`
    /// (taken) on its chart if it accepts; and whether keyword extraction dropped a name.
    fn run_once<T, F>(
        &self,
        input: &[u8],
        scratch: &mut earley::Scratch,
        (prefer_keywords, track_ambiguity): (bool, bool),
        then: &mut Option<F>,
    ) -> (Option<T>, bool)
    where
        F: FnOnce(&earley::Chart<'_>, &mut lexical::Lexer<'_>) -> T,
    {
        let mut lexer = self.lexer(input, scratch);
        lexer.prefer_keywords = prefer_keywords;
        lexer.track_ambiguity = track_ambiguity;
        let result = match earley::recognize(&self.compiled, &self.grammar, input, &mut lexer, scratch) {
            Ok(chart) => then.take().map(|then| then(&chart, &mut lexer)),
            Err(_) => None,
        };
        scratch.dfa_cache = lexer.dfa_cache.take();
        (result, lexer.names_dropped)
    }

    /// A lexer for `input` with the fast paths as this parser has them (the DFA's cache taken
    /// from `scratch`; the caller puts it back).
    fn lexer<'a>(&'a self, input: &'a [u8], scratch: &mut earley::Scratch) -> lexical::Lexer<'a> {
        let lexer = lexical::Lexer::new(&self.grammar, input);
        if self.fast {
            lexer.with_dfa(&self.compiled.tokens, scratch.dfa_cache.take())
        } else {
            lexer
        }
    }

    /// Whether `input` parses, without building its tree: what validation needs, in about a
    /// third of the memory (the chart only; a tree takes about 75 bytes per input byte on JSON).
    pub fn recognize(&self, input: &[u8]) -> Result<(), ParseError> {
        if input.len() >= u32::MAX as usize {
            return Err(self.error(input, 0, vec!["an input smaller than 4 GiB".into()]));
        }
        let mut scratch = self.take_scratch();
        let ok = self.first_run(input, &mut scratch, |_, _| ()).is_some();
        self.keep_scratch(scratch);
        if ok {
            return Ok(());
        }
        // The error needs the run that tries every symbol (see `parse`).
        self.parse(input).map(drop)
    }

    /// Whether the first recognition run (the one that looks ahead, and takes the fast paths
    /// unless they are off) accepts `input` by itself, without the diagnosing rerun.
    #[cfg(test)]
    pub(crate) fn first_run_accepts(&self, input: &[u8]) -> bool {
        self.first_run(input, &mut self.take_scratch(), |_, _| ()).is_some()
    }

    /// Where `input` fails to parse and the terminals expected there (as [`Parser::parse`]'s
    /// error names them, but as ids, for callers that build what is expected, such as input
    /// repair's insertions); `None` when `input` parses.
    pub fn expected_terminals(&self, input: &[u8]) -> Option<(usize, Vec<TerminalId>)> {
        if input.len() >= u32::MAX as usize {
            return Some((0, Vec::new()));
        }
        let mut scratch = self.take_scratch();
        let fast = self.first_run(input, &mut scratch, |_, _| ()).is_some();
        let result = if fast {
            None
        } else {
            // As in `parse`: only a run that tries every symbol knows all that was expected.
            let mut lexer = lexical::Lexer::new(&self.grammar, input);
            lexer.lookahead = false;
            earley::recognize(&self.compiled, &self.grammar, input, &mut lexer, &mut scratch)
                .err()
                .map(|f| (f.offset, f.expected))
        };
        self.keep_scratch(scratch);
        result
    }

    /// The kept chart buffers, or fresh ones if another parse is using them.
    fn take_scratch(&self) -> earley::Scratch {
        self.scratch
            .try_lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default()
    }

    /// Keeps chart buffers for the next parse, unless they are too large to hold on to.
    fn keep_scratch(&self, scratch: earley::Scratch) {
        if scratch.worth_keeping() {
            if let Ok(mut kept) = self.scratch.try_lock() {
                *kept = scratch;
            }
        }
    }

    fn error(&self, input: &[u8], offset: usize, expected: Vec<String>) -> ParseError {
        let (line, col) = line_col(input, offset);
        ParseError {
            offset,
            line,
            col,
            expected,
            found: describe_at(input, offset),
        }
    }
}

/// A short description of what is at `offset`: `x`, a byte in hex, or the end of the input.
fn describe_at(input: &[u8], offset: usize) -> String {
    match crate::grammar::decode_utf8(&input[offset.min(input.len())..]) {
        _ if offset >= input.len() => "the end of the input".to_string(),
        Some((c, _)) => format!(
            "`{}`",
            char::from_u32(c).map_or_else(String::new, |ch| ch.escape_debug().to_string())
        ),
        None => format!("byte 0x{:02X} (not UTF-8)", input[offset]),
    }
}

#[cfg(test)]
mod tests;
