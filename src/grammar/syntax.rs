//! The grammar text format, read into a syntax tree with spans (no name resolution yet).
//!
//! [`parse_file`] turns text into [`RuleAst`]s and `%` directives, reporting syntax errors
//! (unclosed literals and classes, bad escapes, bad quantifiers) into a [`Sink`] and recovering at
//! the next `;`.

use super::charclass::CharClass;
use super::diag::{Sink, Span};

/// The deepest nesting of parentheses accepted; deeper text is an error, not a stack overflow.
pub const MAX_NESTING: usize = 256;
/// The largest bound accepted in `{n}`, `{n,m}`, `{n,}`.
pub const MAX_REPEAT_BOUND: u32 = 10_000;

/// One rule `name = alternatives ;` as written.
#[derive(Debug)]
pub(crate) struct RuleAst {
    pub name: String,
    pub span: Span,
    /// Declared context parameters (`statement[return, yield] = ...`), in order.
    pub params: Vec<(String, Span)>,
    pub alts: Vec<AltAst>,
    /// Byte offset just past the rule's `;` (the rule's text is `span.offset..end`).
    pub end: usize,
}

/// A declaration `%name arg arg ... ;` (see [`DIRECTIVES`]).
#[derive(Debug)]
pub(crate) struct Directive {
    pub name: String,
    pub span: Span,
    pub args: Vec<(String, Span)>,
    /// The quoted literals of a directive that takes them (`%separate "and" "(" ;`).
    pub literals: Vec<(Vec<u8>, Span)>,
}

/// The directives a grammar file may contain, with what they take.
pub(crate) const DIRECTIVES: &[(&str, &str)] = &[
    (
        "layout",
        "rule names: the layout (whitespace, comments) allowed between tokens, then narrower layouts for restricted places",
    ),
    (
        "external",
        "rule names: tokens an imported grammar's external scanner made",
    ),
    (
        "distinct",
        "a name rule, then scope rules: generation keeps the names in one scope distinct",
    ),
    (
        "hoist",
        "name rules, then scope rules: a `%distinct` name there belongs to every scope up to the nearest of these",
    ),
    (
        "refer",
        "a reference rule, then definition rules: generation copies the nearest enclosing definition's text",
    ),
    (
        "values",
        "a rule, then a rule of its texts, then optionally a key rule: generation draws the first rule's text from the second (with a key, from the texts whose key has the node's key's text)",
    ),
    (
        "lexeme",
        "rule names: words the real lexer knows (for token boundaries; they need not be reachable)",
    ),
    (
        "word",
        "one rule name: the names rule of keyword extraction (a word that spells a keyword expected there is that keyword)",
    ),
    (
        "separate",
        "two literals: generation never lets the first token touch the second (a separator goes between them)",
    ),
    (
        "never",
        "two literals: generation never puts the second token right after the first, layout or not (texts compared ignoring ASCII case)",
    ),
];

/// A whole grammar file as written.
#[derive(Debug, Default)]
pub(crate) struct FileAst {
    pub rules: Vec<RuleAst>,
    pub directives: Vec<Directive>,
}

/// One alternative: an optional `N%` weight and a sequence of items.
#[derive(Debug, Clone)]
pub(crate) struct AltAst {
    /// Guards (`[+return]`, `[~in]`): the alternative exists only where all of them hold.
    pub guards: Vec<Guard>,
    /// `@left(3)` and the like (see [`super::Prec`]).
    pub prec: Option<super::Prec>,
    pub weight: Option<(f64, Span)>,
    pub items: Vec<ExprAst>,
    pub span: Span,
}

/// A repetition bound as written: `?` is `{0,1}`, `*` is `{0,}`, `+` is `{1,}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Quant {
    pub min: u32,
    pub max: Option<u32>,
}

/// A guard on an alternative: parameter `name` must be on (`+name`) or off (`~name`).
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    pub on: bool,
    pub name: String,
    pub span: Span,
}

/// How a reference sets one parameter of the rule it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgMode {
    /// `+p`: on.
    On,
    /// `~p`: off.
    Off,
    /// `?p`: as in the rule that contains the reference.
    Pass,
}

/// One argument of a reference, `+p`, `~p` or `?p`.
#[derive(Debug, Clone)]
pub(crate) struct Arg {
    pub mode: ArgMode,
    pub name: String,
    pub span: Span,
}

/// One item of an alternative.
#[derive(Debug, Clone)]
pub(crate) enum ExprAst {
    Literal(Vec<u8>),
    Class {
        class: CharClass,
        text: String,
    },
    Ref(String, Span),
    /// A reference with arguments: `statement[+return, ?in]`.
    Call(String, Span, Vec<Arg>),
    Group(Vec<AltAst>, Span),
    Postfix(Box<ExprAst>, Quant, Span),
    /// `left - right`: the strings of `left` that are not among the words of `right`.
    Except(Box<ExprAst>, Box<ExprAst>, Span),
}

/// Parses a whole grammar file. Syntax errors go to `sink`; rules with errors are dropped.
pub(crate) fn parse_file(text: &str, sink: &mut Sink) -> FileAst {
    let line_starts = std::iter::once(0)
        .chain(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
        line_starts,
    };
    let mut file = FileAst::default();
    loop {
        p.skip_trivia();
        if p.pos >= p.bytes.len() {
            break;
        }
        let rule_start = p.pos;
        let parsed = if p.peek() == Some(b'%') {
            p.directive().map(|d| file.directives.push(d))
        } else {
            p.rule().map(|r| file.rules.push(r))
        };
        match parsed {
            Ok(()) => {}
            Err(SyntaxError { span, message, resume }) => {
                sink.error(span, message);
                // Rescan the failed rule from its start, so literals and classes are skipped
                // whole, unless the error knows where the next rule begins.
                match resume {
                    Some(at) => p.pos = at,
                    None => {
                        p.pos = rule_start;
                        p.recover();
                    }
                }
            }
        }
    }
    file
}

struct SyntaxError {
    span: Span,
    message: String,
    /// Where parsing can resume, when the error itself knows (a missing `;` before a rule).
    resume: Option<usize>,
}

type PResult<T> = Result<T, SyntaxError>;

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    /// Byte offset of the start of each line (the first is 0).
    line_starts: Vec<usize>,
}

impl<'a> Parser<'a> {
    /// The span of `offset`: line by binary search over the line starts, column by counting the
    /// characters since the line's start (not from the file's start: big grammars have
    /// thousands of spans).
    fn span(&self, offset: usize) -> Span {
        let offset = offset.min(self.bytes.len());
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self.line_starts[line - 1];
        let col = self.bytes[start..offset]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count() as u32
            + 1;
        Span {
            offset,
            line: line as u32,
            col,
        }
    }

    fn err<T>(&self, offset: usize, message: impl Into<String>) -> PResult<T> {
        Err(SyntaxError {
            span: self.span(offset),
            message: message.into(),
            resume: None,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_char(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    /// Skips whitespace and `#` comments.
    fn skip_trivia(&mut self) {
        while let Some(b) = self.peek() {
            if b.is_ascii_whitespace() {
                self.pos += 1;
            } else if b == b'#' {
                while let Some(b) = self.peek() {
                    if b == b'\n' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// After an error: skip to just past the next `;` that is not inside a literal or class.
    fn recover(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b';' => {
                    self.pos += 1;
                    return;
                }
                b'"' | b'\'' | b'[' => {
                    let close = if b == b'[' { b']' } else { b };
                    self.pos += 1;
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                        if c == b'\\' {
                            self.pos = (self.pos + 1).min(self.bytes.len());
                        } else if c == close {
                            break;
                        }
                    }
                }
                _ => self.pos += self.peek_char().map_or(1, char::len_utf8),
            }
        }
    }

    /// A rule name: `[A-Za-z_][A-Za-z0-9_]*`, or any text but a backquote or line break in
    /// backquotes (how a rule that contexts expanded, `` `statement[return]` ``, is printed).
    fn name(&mut self) -> Option<(String, Span)> {
        let start = self.pos;
        if self.peek() == Some(b'`') {
            let rest = &self.text[start + 1..];
            let end = rest.find(['`', '\n'])?;
            if end == 0 || !rest[end..].starts_with('`') {
                return None;
            }
            self.pos = start + 1 + end + 1;
            return Some((rest[..end].to_string(), self.span(start)));
        }
        match self.peek() {
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => {}
            _ => return None,
        }
        while matches!(self.peek(), Some(b) if b.is_ascii_alphanumeric() || b == b'_') {
            self.pos += 1;
        }
        Some((self.text[start..self.pos].to_string(), self.span(start)))
    }

    fn rule(&mut self) -> PResult<RuleAst> {
        let Some((name, span)) = self.name() else {
            return self.unexpected("a rule name");
        };
        let params = if self.peek() == Some(b'[') {
            self.params(&name)?
        } else {
            Vec::new()
        };
        self.skip_trivia();
        if self.peek() != Some(b'=') {
            return self.unexpected(&format!("`=` after rule name `{name}`"));
        }
        self.pos += 1;
        let alts = self.alternatives()?;
        self.skip_trivia();
        match self.peek() {
            Some(b';') => {
                self.pos += 1;
                Ok(RuleAst {
                    name,
                    span,
                    params,
                    alts,
                    end: self.pos,
                })
            }
            None => self.err(
                self.pos,
                format!("rule `{name}` is not terminated: expected `;` before the end of the file"),
            ),
            _ => self.unexpected("`;`, `|` or another item"),
        }
    }

    /// A rule's parameter list `[a, b]`, the position on the `[`.
    fn params(&mut self, rule: &str) -> PResult<Vec<(String, Span)>> {
        let start = self.pos;
        self.pos += 1;
        let mut params: Vec<(String, Span)> = Vec::new();
        loop {
            self.skip_trivia();
            let Some((param, span)) = self.plain_name() else {
                return self.unexpected(&format!(
                    "a parameter name in the parameter list of `{rule}` (write `{rule}[a, b] = ... ;`)"
                ));
            };
            if params.iter().any(|(p, _)| *p == param) {
                return self.err(
                    span.offset,
                    format!("parameter `{param}` is declared twice in `{rule}[...]`"),
                );
            }
            params.push((param, span));
            self.skip_trivia();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(params);
                }
                None => return self.err(start, format!("unclosed parameter list of `{rule}`: expected `]`")),
                _ => return self.unexpected("`,` or `]` in the parameter list"),
            }
        }
    }

    /// A plain name `[A-Za-z_][A-Za-z0-9_]*` (a parameter), not a backquoted one.
    fn plain_name(&mut self) -> Option<(String, Span)> {
        match self.peek() {
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => self.name(),
            _ => None,
        }
    }

    /// A list `[+a, ~b, ?c]` of prefixed names at the position (on a `[`), each prefix one of
    /// `prefixes`; `None` (position unchanged) if the text there is not such a list, so that a
    /// character class such as `[+\-]` stays a class.
    fn prefixed_list(&mut self, prefixes: &[u8]) -> Option<Vec<(u8, String, Span)>> {
        let save = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        let ok = loop {
            while matches!(self.peek(), Some(b' ' | b'\t')) {
                self.pos += 1;
            }
            let Some(prefix) = self.peek().filter(|b| prefixes.contains(b)) else {
                break false;
            };
            self.pos += 1;
            let Some((name, span)) = self.plain_name() else {
                break false;
            };
            out.push((prefix, name, span));
            while matches!(self.peek(), Some(b' ' | b'\t')) {
                self.pos += 1;
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break true;
                }
                _ => break false,
            }
        };
        if !ok {
            self.pos = save;
            return None;
        }
        Some(out)
    }

    /// `%name arg ... ;`, the position on the `%`.
    fn directive(&mut self) -> PResult<Directive> {
        let start = self.pos;
        self.pos += 1;
        let Some((name, _)) = self.name() else {
            return self.unexpected("a directive name after `%`");
        };
        if !DIRECTIVES.iter().any(|(n, _)| *n == name) {
            let known: Vec<String> = DIRECTIVES.iter().map(|(n, what)| format!("`%{n}` ({what})")).collect();
            return self.err(
                start,
                format!("unknown directive `%{name}`; known: {}", known.join(", ")),
            );
        }
        let mut args = Vec::new();
        let mut literals = Vec::new();
        loop {
            self.skip_trivia();
            if self.peek() == Some(b';') {
                self.pos += 1;
                break;
            }
            if name == "separate" || name == "never" {
                let at = self.pos;
                match self.peek() {
                    Some(q @ (b'"' | b'\'')) => {
                        if let ExprAst::Literal(bytes) = self.literal(q)? {
                            literals.push((bytes, self.span(at)));
                        }
                    }
                    _ => return self.unexpected(&format!("a quoted literal or `;` in `%{name}`")),
                }
                continue;
            }
            match self.name() {
                Some(arg) => args.push(arg),
                None => return self.unexpected(&format!("a rule name or `;` in `%{name}`")),
            }
        }
        if name == "hoist" && args.len() < 2 {
            return self.err(
                start,
                "`%hoist` takes a name rule and at least one scope rule: `%hoist var_name function_body ;`",
            );
        }
        if name == "refer" && args.len() < 2 {
            return self.err(
                start,
                "`%refer` takes a reference rule and at least one definition rule: `%refer label_ref loop_label ;`",
            );
        }
        if name == "distinct" && args.len() < 2 {
            return self.err(
                start,
                "`%distinct` takes a name rule and at least one scope rule: `%distinct binding block ;`",
            );
        }
        if name == "values" && !(2..=3).contains(&args.len()) {
            return self.err(
                start,
                "`%values` takes a rule, the rule its texts are drawn from, and optionally a key rule inside the first: `%values property property_names ;`, `%values call call_texts function_name ;`",
            );
        }
        if name == "separate" && literals.len() != 2 {
            return self.err(
                start,
                "`%separate` takes two literals, the token before and the token after: `%separate \"and\" \"(\" ;`",
            );
        }
        if name == "never" && literals.len() != 2 {
            return self.err(
                start,
                "`%never` takes two literals, the token before and the token after: `%never \"*\" \"except\" ;`",
            );
        }
        if name == "layout" && args.is_empty() {
            return self.err(
                start,
                "`%layout` takes the layout rule's name (then any narrower layout rules)",
            );
        }
        Ok(Directive {
            name,
            span: self.span(start),
            args,
            literals,
        })
    }

    fn unexpected<T>(&self, expected: &str) -> PResult<T> {
        match self.peek_char() {
            None => self.err(self.pos, format!("expected {expected}, found the end of the file")),
            Some(c) => self.err(self.pos, format!("expected {expected}, found `{}`", shown(c))),
        }
    }

    fn alternatives(&mut self) -> PResult<Vec<AltAst>> {
        let mut alts = vec![self.alternative()?];
        loop {
            self.skip_trivia();
            if self.peek() == Some(b'|') {
                self.pos += 1;
                alts.push(self.alternative()?);
            } else {
                return Ok(alts);
            }
        }
    }

    fn alternative(&mut self) -> PResult<AltAst> {
        self.skip_trivia();
        let start = self.pos;
        let mut guards = Vec::new();
        while self.peek() == Some(b'[') {
            let Some(list) = self.prefixed_list(b"+~") else {
                break;
            };
            guards.extend(list.into_iter().map(|(prefix, name, span)| Guard {
                on: prefix == b'+',
                name,
                span,
            }));
            self.skip_trivia();
        }
        let prec = self.prec()?;
        self.skip_trivia();
        let weight = self.weight()?;
        let mut items = Vec::new();
        loop {
            self.skip_trivia();
            // `name =` here means the previous rule lacks its `;`: say so instead of swallowing it.
            let save = self.pos;
            if let Some((name, span)) = self.name() {
                if self.peek() == Some(b'[') && self.prefixed_list(b"+~?").is_none() {
                    // `name[a, b] =`: the header of a rule with parameters.
                    let _ = self.params(&name);
                }
                self.skip_trivia();
                if self.peek() == Some(b'=') {
                    return Err(SyntaxError {
                        span,
                        message: format!("expected `;` before the start of rule `{name}`"),
                        resume: Some(save),
                    });
                }
                self.pos = save;
            }
            match self.item()? {
                Some(item) => items.push(item),
                None => break,
            }
        }
        Ok(AltAst {
            guards,
            prec,
            weight,
            items,
            span: self.span(start),
        })
    }

    /// An optional `@prec(N)`, `@left(N)` or `@right(N)` prefix (N an integer, maybe negative).
    fn prec(&mut self) -> PResult<Option<super::Prec>> {
        let start = self.pos;
        if self.peek() != Some(b'@') {
            return Ok(None);
        }
        self.pos += 1;
        let rest = &self.text[self.pos..];
        let (assoc, word) = if rest.starts_with("prec(") {
            (super::Assoc::None, "prec(")
        } else if rest.starts_with("left(") {
            (super::Assoc::Left, "left(")
        } else if rest.starts_with("right(") {
            (super::Assoc::Right, "right(")
        } else {
            return self.err(
                start,
                "a precedence is `@prec(N)`, `@left(N)` or `@right(N)` with an integer N".to_string(),
            );
        };
        self.pos += word.len();
        let digits_at = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        let digits = &self.text[digits_at..self.pos];
        let level = match digits.parse::<i32>() {
            Ok(n) if self.peek() == Some(b')') => n,
            _ => {
                return self.err(
                    start,
                    format!(
                        "a precedence is `@{word}N)` with an integer N, not `{}`",
                        &self.text[start..self.pos.min(self.text.len())]
                    ),
                )
            }
        };
        self.pos += 1;
        Ok(Some(super::Prec { level, assoc }))
    }

    /// An optional `N%` or `N.M%` prefix.
    fn weight(&mut self) -> PResult<Option<(f64, Span)>> {
        let start = self.pos;
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return Ok(None);
        }
        while matches!(self.peek(), Some(b'0'..=b'9' | b'.')) {
            self.pos += 1;
        }
        let digits = &self.text[start..self.pos];
        if self.peek() != Some(b'%') {
            return self.err(
                start,
                format!("a number `{digits}` here must be a weight like `{digits}%`"),
            );
        }
        self.pos += 1;
        match digits.parse::<f64>() {
            Ok(w) if (0.0..=100.0).contains(&w) => Ok(Some((w, self.span(start)))),
            _ => self.err(
                start,
                format!("bad weight `{digits}%`: a weight is a percentage from 0 to 100"),
            ),
        }
    }

    /// An item, possibly `left - right` (an exclusion: the postfix items on either side).
    fn item(&mut self) -> PResult<Option<ExprAst>> {
        let Some(left) = self.postfix_item()? else {
            return Ok(None);
        };
        let save = self.pos;
        self.skip_trivia();
        if self.peek() != Some(b'-') {
            self.pos = save;
            return Ok(Some(left));
        }
        let minus = self.pos;
        self.pos += 1;
        self.skip_trivia();
        let Some(right) = self.postfix_item()? else {
            return self.unexpected("the words to exclude after `-` (a rule name, a literal or a group)");
        };
        let span = self.span(minus);
        let save = self.pos;
        self.skip_trivia();
        if self.peek() == Some(b'-') {
            return self.err(self.pos, "`a - b - c` is ambiguous: write `a - ( b | c )`");
        }
        self.pos = save;
        Ok(Some(ExprAst::Except(Box::new(left), Box::new(right), span)))
    }

    fn postfix_item(&mut self) -> PResult<Option<ExprAst>> {
        let Some(mut expr) = self.primary()? else {
            return Ok(None);
        };
        loop {
            // No trivia between an item and its postfix operator is required, but allow it.
            let save = self.pos;
            self.skip_trivia();
            let start = self.pos;
            let quant = match self.peek() {
                Some(b'?') => Quant { min: 0, max: Some(1) },
                Some(b'*') => Quant { min: 0, max: None },
                Some(b'+') => Quant { min: 1, max: None },
                Some(b'{') => self.bounds()?,
                _ => {
                    self.pos = save;
                    return Ok(Some(expr));
                }
            };
            // `?`, `*`, `+` are one byte; `bounds` leaves the position on the closing `}`.
            self.pos += 1;
            expr = ExprAst::Postfix(Box::new(expr), quant, self.span(start));
        }
    }

    /// `{n}`, `{n,m}` or `{n,}`; leaves the position on the closing `}`.
    fn bounds(&mut self) -> PResult<Quant> {
        let start = self.pos;
        self.pos += 1;
        let min = self.number(start)?;
        let max = if self.peek() == Some(b',') {
            self.pos += 1;
            if self.peek() == Some(b'}') {
                None
            } else {
                Some(self.number(start)?)
            }
        } else {
            Some(min)
        };
        if self.peek() != Some(b'}') {
            return self.err(start, "unclosed repetition bound: expected `{n}`, `{n,m}` or `{n,}`");
        }
        if let Some(max) = max {
            if max < min {
                return self.err(
                    start,
                    format!("repetition bound `{{{min},{max}}}` has its maximum below its minimum"),
                );
            }
            if max == 0 {
                return self.err(
                    start,
                    "repetition bound `{0}` matches nothing useful; remove the item instead",
                );
            }
        }
        Ok(Quant { min, max })
    }

    fn number(&mut self, bound_start: usize) -> PResult<u32> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        match self.text[start..self.pos].parse::<u32>() {
            Ok(n) if n <= MAX_REPEAT_BOUND => Ok(n),
            Ok(_) | Err(_) if self.pos > start => self.err(
                bound_start,
                format!(
                    "repetition bound too large (at most {MAX_REPEAT_BOUND}); use `*` or `+` for unbounded repetition"
                ),
            ),
            _ => self.err(
                bound_start,
                "bad repetition bound: expected `{n}`, `{n,m}` or `{n,}` with decimal numbers",
            ),
        }
    }

    fn primary(&mut self) -> PResult<Option<ExprAst>> {
        let start = self.pos;
        match self.peek() {
            Some(q @ (b'"' | b'\'')) => self.literal(q).map(Some),
            Some(b'[') => self.class().map(Some),
            Some(b'.') => {
                self.pos += 1;
                Ok(Some(ExprAst::Class {
                    class: CharClass::any(),
                    text: ".".into(),
                }))
            }
            Some(b'(') => {
                if self.depth >= MAX_NESTING {
                    return self.err(start, format!("groups nested more than {MAX_NESTING} deep"));
                }
                self.pos += 1;
                self.depth += 1;
                let alts = self.alternatives()?;
                self.depth -= 1;
                self.skip_trivia();
                if self.peek() != Some(b')') {
                    return match self.peek() {
                        None => self.err(start, "unclosed `(`: expected `)` before the end of the file"),
                        _ => self.unexpected("`)` to close the group"),
                    };
                }
                self.pos += 1;
                Ok(Some(ExprAst::Group(alts, self.span(start))))
            }
            Some(b) if b.is_ascii_alphabetic() || b == b'_' || b == b'`' => {
                let Some((name, span)) = self.name() else {
                    return self.err(
                        start,
                        "unclosed `` ` ``: a quoted rule name ends with a backquote on the same line",
                    );
                };
                // `name[+a, ~b, ?c]` (no space before `[`) passes context arguments; anything
                // else after the name, such as ` [a-z]`, is the next item.
                if self.peek() == Some(b'[') {
                    if let Some(list) = self.prefixed_list(b"+~?") {
                        let args = list
                            .into_iter()
                            .map(|(prefix, name, span)| Arg {
                                mode: match prefix {
                                    b'+' => ArgMode::On,
                                    b'~' => ArgMode::Off,
                                    _ => ArgMode::Pass,
                                },
                                name,
                                span,
                            })
                            .collect();
                        return Ok(Some(ExprAst::Call(name, span, args)));
                    }
                }
                Ok(Some(ExprAst::Ref(name, span)))
            }
            Some(b'0'..=b'9') => self.err(start, "a weight like `40%` may only start an alternative"),
            Some(b'?' | b'*' | b'+' | b'{') => self.err(start, "a repetition operator needs an item before it"),
            Some(b';' | b'|' | b')') | None => Ok(None),
            Some(_) => self.unexpected("an item (a \"literal\", a [class], `.`, a rule name or a `(` group)"),
        }
    }

    fn literal(&mut self, quote: u8) -> PResult<ExprAst> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None | Some(b'\n') => {
                    return self.err(
                        start,
                        "unclosed literal: expected a closing quote on the same line (write \\n for a newline)",
                    );
                }
                Some(b) if b == quote => {
                    self.pos += 1;
                    return Ok(ExprAst::Literal(out));
                }
                Some(b'\\') => match self.escape(false)? {
                    Escaped::Byte(b) => out.push(b),
                    Escaped::Char(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                },
                Some(_) => {
                    let c = self.peek_char().expect("not at end");
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// Reads an escape starting at `\`. In classes `\xHH` is a code point, in literals a raw byte.
    fn escape(&mut self, in_class: bool) -> PResult<Escaped> {
        let start = self.pos;
        self.pos += 1;
        let Some(c) = self.peek_char() else {
            return self.err(start, "unfinished escape at the end of the file");
        };
        self.pos += c.len_utf8();
        let simple = match c {
            '\\' => Some('\\'),
            '"' => Some('"'),
            '\'' => Some('\''),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            ']' | '[' | '-' | '^' if in_class => Some(c),
            _ => None,
        };
        if let Some(s) = simple {
            return Ok(Escaped::Char(s));
        }
        match c {
            'x' => {
                let hex = self
                    .text
                    .get(self.pos..self.pos + 2)
                    .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
                let Some(hex) = hex else {
                    return self.err(
                        start,
                        "bad escape: `\\x` must be followed by exactly two hex digits, as in `\\x0A`",
                    );
                };
                let value = u8::from_str_radix(hex, 16).expect("two hex digits");
                self.pos += 2;
                Ok(if in_class {
                    Escaped::Char(value as char)
                } else {
                    Escaped::Byte(value)
                })
            }
            'u' => {
                let rest = &self.text[self.pos..];
                let close = rest.find('}');
                let digits = match close {
                    Some(end) if rest.starts_with('{') => &rest[1..end],
                    _ => {
                        return self.err(
                            start,
                            "bad escape: `\\u` must be written `\\u{H…}` with 1 to 6 hex digits",
                        )
                    }
                };
                let value = (1..=6)
                    .contains(&digits.len())
                    .then(|| u32::from_str_radix(digits, 16).ok())
                    .flatten()
                    .and_then(char::from_u32);
                match value {
                    Some(ch) => {
                        self.pos += digits.len() + 2;
                        Ok(Escaped::Char(ch))
                    }
                    None => self.err(
                        start,
                        format!("bad escape `\\u{{{digits}}}`: not a Unicode scalar value"),
                    ),
                }
            }
            other => {
                let allowed = if in_class {
                    "\\\\ \\\" \\' \\n \\r \\t \\xHH \\u{H…} \\] \\[ \\- \\^"
                } else {
                    "\\\\ \\\" \\' \\n \\r \\t \\xHH \\u{H…}"
                };
                self.err(
                    start,
                    format!("bad escape `\\{}`: the escapes are {allowed}", other.escape_debug()),
                )
            }
        }
    }

    fn class(&mut self) -> PResult<ExprAst> {
        let start = self.pos;
        self.pos += 1;
        let negate = self.peek() == Some(b'^');
        if negate {
            self.pos += 1;
        }
        let mut ranges = Vec::new();
        loop {
            let member_start = self.pos;
            let lo = match self.class_char(start)? {
                None => break,
                Some(c) => c,
            };
            if self.peek() == Some(b'-') && !matches!(self.bytes.get(self.pos + 1), Some(b']')) {
                self.pos += 1;
                let Some(hi) = self.class_char(start)? else {
                    return self.err(start, "unclosed character class: expected `]`");
                };
                if hi < lo {
                    return self.err(
                        member_start,
                        format!(
                            "bad range in character class: `{}` comes after `{}`",
                            char_text(lo),
                            char_text(hi)
                        ),
                    );
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        let text = self.text[start..self.pos].to_string();
        if ranges.is_empty() && !negate {
            return self.err(start, "empty character class `[]` matches nothing");
        }
        let class = CharClass::new(&ranges, negate);
        if class.is_empty() {
            return self.err(start, format!("character class `{text}` matches nothing"));
        }
        Ok(ExprAst::Class { class, text })
    }

    /// One member of a class, or `None` at the closing `]` (which is consumed).
    fn class_char(&mut self, class_start: usize) -> PResult<Option<u32>> {
        match self.peek() {
            None | Some(b'\n') => self.err(class_start, "unclosed character class: expected `]` on the same line"),
            Some(b']') => {
                self.pos += 1;
                Ok(None)
            }
            Some(b'\\') => match self.escape(true)? {
                Escaped::Char(c) => Ok(Some(c as u32)),
                Escaped::Byte(b) => Ok(Some(b as u32)),
            },
            Some(_) => {
                let c = self.peek_char().expect("not at end");
                self.pos += c.len_utf8();
                Ok(Some(c as u32))
            }
        }
    }
}

enum Escaped {
    Byte(u8),
    Char(char),
}

/// A character for a message: printable ones as they are, others escaped.
fn shown(c: char) -> String {
    if c.is_control() {
        c.escape_debug().to_string()
    } else {
        c.to_string()
    }
}

fn char_text(c: u32) -> String {
    char::from_u32(c).map_or_else(|| format!("U+{c:04X}"), |ch| ch.escape_debug().to_string())
}
