//! Grammars: the text format, its loader and diagnostics, the IR, and the analyses built on it.
//!
//! A [`Grammar`] is a list of [`Symbol`]s (named rules first, in file order, then synthetic symbols
//! for groups and repetitions) over [`Terminal`]s (literals and character classes). Load one with
//! [`Grammar::load`] (a built-in name like `json`, or a path) or [`Grammar::from_text`].
//!
//! ```
//! use hellfuzz::grammar::Grammar;
//! let g = Grammar::from_text("list = \"[\" (item (\",\" item)*)? \"]\" ; item = [0-9]+ ;", "list.grammar").unwrap();
//! assert_eq!(g.symbol(g.start()).name, "list");
//! assert!(!g.is_nullable(g.start()));
//! assert_eq!(g.cheapest_len(g.start()), 2); // "[]"
//! ```

mod analysis;
mod boundary;
pub mod builtin;
mod charclass;
mod context;
mod diag;
mod exclude;
mod lower;
mod places;
pub mod print;
pub use print::abbreviated;
pub(crate) mod regex;
pub(crate) mod syntax;

use std::fmt;
use std::path::Path;

pub use analysis::{Analysis, ByteSet};
pub(crate) use boundary::TokenSet;
pub use boundary::{Boundaries, BoundaryCache, LayoutRepeat};
pub use charclass::{decode_utf8, CharClass};
pub use context::{base_name, instance_name, Expansion, MAX_INSTANCES, MAX_PARAMS};
pub(crate) use diag::Sink;
pub use diag::{line_col, Diagnostic, GrammarError, Severity, Span};
pub use exclude::{Exclusion, MAX_WORDS, MAX_WORD_CHARS};
pub use places::{Places, NO_PLACE};

/// Index of a symbol in [`Grammar::symbols`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SymbolId(pub u32);

/// Index of a terminal in [`Grammar::terminals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TerminalId(pub u32);

impl SymbolId {
    /// The index as `usize`, for slices.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl TerminalId {
    /// The terminal of error leaves: bytes an error-recovering parse
    /// (`Parser::parse_recovering`) could not fit into the grammar. Not an index into the grammar.
    pub const ERROR: TerminalId = TerminalId(u32::MAX);

    /// The index as `usize`, for slices.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A terminal: a byte string, or one code point from a class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminal {
    /// Exact bytes (never empty: empty literals are dropped when loading).
    Literal(Vec<u8>),
    /// One UTF-8 encoded code point from the class; `text` is the class as written (`[a-z]`, `.`).
    Class {
        /// The code points it matches.
        class: CharClass,
        /// The class as the grammar wrote it, for messages and printing.
        text: String,
    },
}

impl fmt::Display for Terminal {
    /// The terminal as it would be written in a grammar file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Terminal::Literal(bytes) => write!(f, "\"{}\"", escape_literal(bytes)),
            Terminal::Class { text, .. } => f.write_str(text),
        }
    }
}

/// Writes `bytes` with the grammar format's escapes, so it can go between double quotes.
pub fn escape_literal(bytes: &[u8]) -> String {
    let mut out = String::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        match charclass::decode_utf8(rest) {
            Some((c, len)) => {
                match char::from_u32(c).expect("decoded scalar") {
                    '\\' => out.push_str("\\\\"),
                    '"' => out.push_str("\\\""),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    ch if (ch as u32) < 0x20 || ch as u32 == 0x7F => out.push_str(&format!("\\x{:02X}", ch as u32)),
                    ch => out.push(ch),
                }
                rest = &rest[len..];
            }
            None => {
                out.push_str(&format!("\\x{:02X}", rest[0]));
                rest = &rest[1..];
            }
        }
    }
    out
}

/// One element of an alternative or the body of a repetition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    /// A nonterminal.
    Symbol(SymbolId),
    /// A terminal.
    Terminal(TerminalId),
}

/// One alternative of a choice: a sequence of items and an optional hand-written weight.
#[derive(Clone, Debug)]
pub struct Alternative {
    /// The sequence; empty means the empty string.
    pub items: Vec<Item>,
    /// The `N%` prefix, if written (0..=100).
    pub weight: Option<f64>,
    /// The `@prec(N)`, `@left(N)` or `@right(N)` prefix, if written (see [`Prec`]).
    pub prec: Option<Prec>,
    /// Where the alternative starts in the grammar file.
    pub span: Span,
}

/// An alternative's precedence (`@prec(N)`, `@left(N)`, `@right(N)`, as tree-sitter's `prec`,
/// `prec.left` and `prec.right`): it chooses among parses, never what parses. Where an input has
/// two parses, the parser reads the one whose top construct has the lower precedence (the
/// tighter-binding one lies inside: `1 + 2 * 3` is a sum); between equal precedences, a left
/// (right) one nests to the left (right): `1 - 2 - 3` is `(1 - 2) - 3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prec {
    /// The level; unannotated alternatives count as 0.
    pub level: i32,
    /// How a construct nests into one of its own precedence.
    pub assoc: Assoc,
}

/// The associativity of a [`Prec`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assoc {
    /// `@prec(N)`: none.
    None,
    /// `@left(N)`: `a - b - c` is `(a - b) - c`.
    Left,
    /// `@right(N)`: `a = b = c` is `a = (b = c)`.
    Right,
}

impl Prec {
    /// The prefix as written: `@left(3) `, with the trailing space.
    pub fn to_text(self) -> String {
        let name = match self.assoc {
            Assoc::None => "prec",
            Assoc::Left => "left",
            Assoc::Right => "right",
        };
        format!("@{name}({}) ", self.level)
    }
}

/// What a symbol derives. Every node of a derivation tree corresponds to one of these.
#[derive(Clone, Debug)]
pub enum Body {
    /// Alternatives (`a | b c | ...`); a rule node records which one was taken.
    Choice(Vec<Alternative>),
    /// `item{min,max}` (`*` is `{0,}`, `+` is `{1,}`); a repetition node holds the iterations as a
    /// flat list. Invariant: `max`, if set, is at least `max(min, 1)`.
    Repeat {
        /// What is repeated.
        item: Item,
        /// Fewest iterations.
        min: u32,
        /// Most iterations; `None`: unbounded.
        max: Option<u32>,
    },
    /// `item?`; an optional node has zero or one child.
    Optional(Item),
}

/// A nonterminal: a named rule, or a synthetic symbol for a group or repetition inside one.
#[derive(Clone, Debug)]
pub struct Symbol {
    /// The rule name, or for synthetic symbols `rule.N` (N counts the groups of that rule).
    pub name: String,
    /// What the symbol derives.
    pub body: Body,
    /// Where it is defined.
    pub span: Span,
    /// True for groups and repetitions, which have no name in the grammar file.
    pub synthetic: bool,
}

impl Symbol {
    /// The alternatives of a choice (empty for repetitions and optionals).
    pub fn alternatives(&self) -> &[Alternative] {
        match &self.body {
            Body::Choice(alts) => alts,
            _ => &[],
        }
    }

    /// The probability of each alternative from hand-written weights (Eq. 3 of inputs-from-hell):
    /// alternatives without a weight share what the weighted ones leave of 100% equally; if all are
    /// weighted the weights are normalized. Empty for non-choices.
    pub fn alt_probabilities(&self) -> Vec<f64> {
        let alts = self.alternatives();
        let given: f64 = alts.iter().filter_map(|a| a.weight).sum();
        let unweighted = alts.iter().filter(|a| a.weight.is_none()).count();
        if unweighted == 0 {
            let total = if given > 0.0 { given } else { 1.0 };
            return alts.iter().map(|a| a.weight.unwrap_or(0.0) / total).collect();
        }
        let rest = ((100.0 - given) / 100.0).max(0.0) / unweighted as f64;
        alts.iter().map(|a| a.weight.map_or(rest, |w| w / 100.0)).collect()
    }
}

/// A loaded, checked grammar with its analyses. Immutable once built.
#[derive(Clone, Debug)]
pub struct Grammar {
    symbols: Vec<Symbol>,
    terminals: Vec<Terminal>,
    start: SymbolId,
    origin: String,
    warnings: Vec<Diagnostic>,
    analysis: Analysis,
    /// The `%layout` rules, the main one first.
    layouts: Vec<SymbolId>,
    /// Rules named by `%lexeme`: words the real lexer knows, for token boundaries.
    lexemes: Vec<SymbolId>,
    /// Per symbol: a token the parser matches longest-first (see [`Grammar::is_longest_match`]).
    longest: Vec<bool>,
    /// The `%word` rule (keyword extraction), and per symbol whether it is that rule or a chain
    /// of one-item rules down to it (see [`Grammar::is_word_name`]).
    word: Option<SymbolId>,
    word_names: Vec<bool>,
    /// Per symbol: whether `%external` names it (a token an imported grammar's scanner made).
    externals: Vec<bool>,
    /// Built on first use: only generation and reduction need the token matcher.
    boundaries: std::sync::OnceLock<Boundaries>,
    /// Built on first use: only mining and generation with a model need them.
    layout_places: std::sync::OnceLock<std::sync::Arc<Places>>,
    /// What each rule with parameters expanded into.
    contexts: Vec<Expansion>,
    /// The exclusions (`a - b`) the grammar uses.
    exclusions: Vec<Exclusion>,
    /// `%distinct` declarations.
    distinct: Vec<Distinct>,
    /// `%refer` declarations.
    refer: Vec<Refer>,
    /// `%hoist` declarations.
    hoist: Vec<Hoist>,
    /// `%values` declarations.
    values: Vec<Values>,
    /// `%separate` declarations.
    separate: Vec<Separate>,
}

/// A `%separate "BEFORE" "AFTER" ;` declaration: in generated inputs, a token whose text is
/// `before` never directly touches a token whose text is `after`; where the layout between
/// them comes out empty, a separator goes in. For pairs the real lexer reads as one token
/// where the grammar has two: CSS's `and(` is a function token, `and (` a keyword and a
/// parenthesis. `hellfuzz refine` writes them; parsing does not look at them.
///
/// With `never` it is a `%never "BEFORE" "AFTER" ;` declaration: a token whose text is
/// `after` never comes right after a token whose text is `before`, whatever layout is between
/// them (texts compared ignoring ASCII case, as SQL's keywords are written in any case);
/// generation draws one of the two again. For pairs the real parser reads another way:
/// sqlparser takes `* EXCEPT (` for the start of a wildcard's column list, never a set
/// operation, where each of `*` and `EXCEPT` is valid alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Separate {
    /// The text of the token before.
    pub before: Vec<u8>,
    /// The text of the token after.
    pub after: Vec<u8>,
    /// `%never` (not next to each other at all) rather than `%separate` (not touching).
    pub never: bool,
}

impl Separate {
    /// Whether this `%never` pair forbids a token `after` right after a token `before`.
    pub fn forbids(&self, before: &[u8], after: &[u8]) -> bool {
        self.never && self.before.eq_ignore_ascii_case(before) && self.after.eq_ignore_ascii_case(after)
    }
}

/// The bytes of a sequence of literal terminals (a word of a `%values` rule), or `None` if an
/// item is no literal.
pub(crate) fn literal_text(terminals: &[Terminal], items: &[Item]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Terminal(t) => match &terminals[t.index()] {
                Terminal::Literal(bytes) => out.extend_from_slice(bytes),
                Terminal::Class { .. } => return None,
            },
            Item::Symbol(_) => return None,
        }
    }
    Some(out)
}

/// A `%values NAME SOURCE ;` declaration: in generated inputs, the text of every `names` node
/// is drawn from `source` (and parsed again as the node's rule; a drawn text that is not one
/// of its texts leaves the node as it was). For tokens whose valid spellings a grammar cannot
/// say, such as the Unicode property names of a regex or a date's valid days: `hellfuzz
/// refine` writes one with the texts the samples and the user's parser accept. Parsing does
/// not look at it.
///
/// With a key (`%values NAME SOURCE KEY ;`), a node's text is drawn only from the words whose
/// `KEY` child has the text the node's own `KEY` child has (a node whose key matches no word
/// is left as it is): a CSS function's arguments depend on its name (`var(--x)` takes a
/// custom property, `rgba(…)` numbers), and a call drawn with a sample's name is then a call
/// the samples make with that name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values {
    /// The rule whose texts are drawn (all its context instances).
    pub names: Vec<SymbolId>,
    /// The rule they are drawn from (unreachable from the start rule, as a rule of words).
    pub source: SymbolId,
    /// The key rule (all its context instances) whose text picks the words; empty: none.
    pub key: Vec<SymbolId>,
}

/// A `%hoist NAME SCOPE... ;` declaration: a `%distinct` name whose parent is a `names` node
/// (JavaScript's `var x`) belongs to every `%distinct` scope from its own up to the nearest
/// `stops` node (the function around it), so it differs from the names of all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hoist {
    /// The rules whose child name is hoisted (all their context instances).
    pub names: Vec<SymbolId>,
    /// The scopes a hoisted name stops at (all their context instances).
    pub stops: Vec<SymbolId>,
}

/// A `%refer REF DEF... ;` declaration: in generated inputs, a `refs` node takes the text of the
/// nearest `defs` node that is a child of one of its ancestors (a JavaScript `continue L;` names
/// the label of a loop around it), and `defs` nodes nested in each other get different texts.
/// Each rule must be one item (`label_ref = ident ;`). Only generation enforces it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refer {
    /// The reference rule (all its context instances).
    pub refs: Vec<SymbolId>,
    /// The definition rules (all their context instances).
    pub defs: Vec<SymbolId>,
}

/// A `%distinct NAME SCOPE... ;` declaration: in generated inputs, the texts of the `names`
/// nodes whose nearest enclosing `scopes` node is the same are all different (JavaScript's
/// parameters and `let` declarations). Only generation enforces it; parsing does not check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distinct {
    /// The name rule (all its context instances).
    pub names: Vec<SymbolId>,
    /// The scope rules (all their context instances).
    pub scopes: Vec<SymbolId>,
}

impl Grammar {
    /// Loads a built-in grammar by name (`json`, `expr`, `js`, `toml`, `css`, `sql`, `glsl`) or a
    /// grammar file by path.
    /// A name that is neither built in nor an existing file is an error listing the built-ins.
    pub fn load(name_or_path: &str) -> Result<Grammar, GrammarError> {
        if let Some(text) = builtin::grammar_text(name_or_path) {
            return Grammar::from_text(text, &format!("<builtin:{name_or_path}>"));
        }
        let path = Path::new(name_or_path);
        if !path.exists() {
            return Err(GrammarError::whole_file(
                name_or_path,
                format!(
                    "no such grammar file, and not a built-in grammar (built-ins: {})",
                    builtin::names().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        Grammar::from_file(path)
    }

    /// Loads a grammar file.
    pub fn from_file(path: &Path) -> Result<Grammar, GrammarError> {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path)
            .map_err(|e| GrammarError::whole_file(&shown, format!("cannot read grammar file: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let (line, col) = diag::line_col(e.as_bytes(), e.utf8_error().valid_up_to());
            GrammarError::whole_file(
                &shown,
                format!("grammar file is not UTF-8 (first bad byte at line {line}, column {col})"),
            )
        })?;
        Grammar::from_text(&text, &shown)
    }

    /// Loads a grammar from text; `origin` names it in diagnostics (a path or `<builtin:json>`).
    pub fn from_text(text: &str, origin: &str) -> Result<Grammar, GrammarError> {
        let mut sink = diag::Sink {
            file: origin.to_string(),
            items: Vec::new(),
        };
        let mut file = syntax::parse_file(text, &mut sink);
        if file.rules.is_empty() && !sink.has_errors() {
            sink.error(
                Span::at(text, text.len()),
                "the grammar has no rules; write at least one `name = ... ;`",
            );
        }
        // Names and analyses of a text with syntax errors would only add follow-on errors.
        if sink.has_errors() {
            return Err(GrammarError {
                diagnostics: sink.sorted(),
            });
        }
        // Contexts, then exclusions, become plain rules before anything else sees them.
        let roots: Vec<String> = file
            .directives
            .iter()
            .filter(|d| matches!(d.name.as_str(), "layout" | "lexeme" | "word"))
            .flat_map(|d| d.args.iter().map(|(n, _)| n.clone()))
            .collect();
        let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
        let (mut rules, contexts) = context::expand(std::mem::take(&mut file.rules), &roots, &mut sink);
        if sink.has_errors() {
            return Err(GrammarError {
                diagnostics: sink.sorted(),
            });
        }
        let exclusions = exclude::expand(&mut rules, &mut sink);
        if sink.has_errors() {
            return Err(GrammarError {
                diagnostics: sink.sorted(),
            });
        }
        let rules = &rules;
        let externals: Vec<&str> = file
            .directives
            .iter()
            .filter(|d| d.name == "external")
            .flat_map(|d| d.args.iter().map(|(n, _)| n.as_str()))
            .collect();
        let lowered = lower::lower(rules, &externals, &mut sink);
        let (symbols, terminals) = match lowered {
            Some(l) if !sink.has_errors() => l,
            _ => {
                return Err(GrammarError {
                    diagnostics: sink.sorted(),
                })
            }
        };
        let start = SymbolId(0);
        // `%layout _ _nonl ;`: the first is the layout between tokens; the others are narrower
        // layouts for restricted places (no line break before `=>`), tokens after them too.
        let mut layouts: Vec<SymbolId> = Vec::new();
        for (n, d) in file.directives.iter().filter(|d| d.name == "layout").enumerate() {
            if n > 0 {
                sink.error(
                    d.span,
                    "a second `%layout`: name all layout rules in one, `%layout main other ;`",
                );
                continue;
            }
            for (name, span) in &d.args {
                match rule_named(&symbols, name) {
                    Some(id) if !layouts.contains(&id) => layouts.push(id),
                    Some(_) => sink.error(*span, format!("`{name}` is named twice in `%layout`")),
                    None => sink.error(
                        *span,
                        format!("`%layout {name}` names no rule; define `{name} = ... ;`"),
                    ),
                }
            }
        }
        // A copy of a layout rule for one place (`_[in x]`, as `refine` makes them) is layout
        // too: what follows it is a token, and a token boundary there is fixed as after the
        // rule itself (else `let` and a name glue where the copy allows no space).
        let declared: Vec<String> = layouts.iter().map(|l| symbols[l.index()].name.clone()).collect();
        for (i, sym) in symbols.iter().enumerate() {
            let id = SymbolId(i as u32);
            if !sym.synthetic
                && sym.name.contains('[')
                && !layouts.contains(&id)
                && declared.contains(&context::base_name(&sym.name))
            {
                layouts.push(id);
            }
        }
        if sink.has_errors() {
            return Err(GrammarError {
                diagnostics: sink.sorted(),
            });
        }
        let mut lexemes = Vec::new();
        for (name, span) in file
            .directives
            .iter()
            .filter(|d| d.name == "lexeme")
            .flat_map(|d| &d.args)
        {
            match rule_named(&symbols, name) {
                Some(id) => lexemes.push(id),
                None => sink.error(
                    *span,
                    format!("`%lexeme {name}` names no rule; define `{name} = ... ;`"),
                ),
            }
        }
        let mut word = None;
        for d in file.directives.iter().filter(|d| d.name == "word") {
            match &d.args[..] {
                [(name, span)] => match rule_named(&symbols, name) {
                    Some(id) if word.is_none() => {
                        // The names rule is a word the real lexer knows.
                        word = Some(id);
                        if !lexemes.contains(&id) {
                            lexemes.push(id);
                        }
                    }
                    Some(_) => sink.error(d.span, "a second `%word`; a grammar has one names rule"),
                    None => sink.error(*span, format!("`%word {name}` names no rule; define `{name} = ... ;`")),
                },
                _ => sink.error(d.span, "`%word` takes one rule name: `%word identifier ;`"),
            }
        }
        let word_names = word_names(&symbols, word);
        let mut external_flags = vec![false; symbols.len()];
        for name in &externals {
            if let Some(id) = rule_named(&symbols, name) {
                external_flags[id.index()] = true;
            }
        }
        let mut distinct = Vec::new();
        let mut refer = Vec::new();
        let mut hoist = Vec::new();
        let mut values = Vec::new();
        for d in file.directives.iter().filter(|d| d.name == "values") {
            let ((name, name_span), (source, source_span), key) = match &d.args[..] {
                [n, s] => (n, s, None),
                [n, s, k] => (n, s, Some(k)),
                _ => continue,
            };
            let key = match key {
                None => Vec::new(),
                Some((key, key_span)) => {
                    let ids = instances_named(&symbols, key);
                    if ids.is_empty() {
                        sink.error(
                            *key_span,
                            format!("`%values {name} {source} {key}` keys on `{key}`, which is not a rule; name a rule used inside `{name}`"),
                        );
                        continue;
                    }
                    ids
                }
            };
            let names = instances_named(&symbols, name);
            if names.is_empty() {
                sink.error(
                    *name_span,
                    format!("`%values` names `{name}`, which is not a rule; define `{name} = ... ;`"),
                );
            }
            match rule_named(&symbols, source) {
                Some(source) if !names.is_empty() => values.push(Values { names, source, key }),
                Some(_) => {}
                None => sink.error(
                    *source_span,
                    format!("`%values {name} {source}` draws from `{source}`, which is not a rule; define `{source} = \"text\" | ... ;`"),
                ),
            }
        }
        for d in file
            .directives
            .iter()
            .filter(|d| matches!(d.name.as_str(), "distinct" | "refer" | "hoist"))
        {
            let mut sets: Vec<Vec<SymbolId>> = Vec::new();
            for (name, span) in &d.args {
                let ids = instances_named(&symbols, name);
                if ids.is_empty() {
                    sink.error(
                        *span,
                        format!("`%distinct` names `{name}`, which is not a rule; define `{name} = ... ;`"),
                    );
                }
                sets.push(ids);
            }
            let mut sets = sets.into_iter();
            if let Some(names) = sets.next() {
                let rest = sets.flatten().collect();
                match d.name.as_str() {
                    "distinct" => distinct.push(Distinct { names, scopes: rest }),
                    "hoist" => hoist.push(Hoist { names, stops: rest }),
                    _ => refer.push(Refer {
                        refs: names,
                        defs: rest,
                    }),
                }
            }
        }
        let mut separate = Vec::new();
        for d in file
            .directives
            .iter()
            .filter(|d| d.name == "separate" || d.name == "never")
        {
            let never = d.name == "never";
            if layouts.is_empty() && !never {
                sink.warning(
                    d.span,
                    "`%separate` does nothing without a `%layout` rule: a separator goes into the layout between the tokens",
                );
            }
            if let [(before, before_span), (after, after_span)] = &d.literals[..] {
                for (text, span) in [(before, before_span), (after, after_span)] {
                    if text.is_empty() {
                        sink.error(
                            *span,
                            format!(
                                "`%{}` names an empty token; write the token's text, as in `\"and\"`",
                                d.name
                            ),
                        );
                    }
                }
                let s = Separate {
                    before: before.clone(),
                    after: after.clone(),
                    never,
                };
                if !separate.contains(&s) {
                    separate.push(s);
                }
            }
        }
        let analysis = Analysis::compute(&symbols, &terminals, start);
        let sources: Vec<SymbolId> = values.iter().map(|v| v.source).collect();
        let roots = used_roots(&symbols, &lexemes, &exclusions, &sources);
        analysis.report(&symbols, &analysis::used_symbols(&symbols, start, &roots), &mut sink);
        let longest = if layouts.is_empty() {
            vec![false; symbols.len()]
        } else {
            longest_match_tokens(&symbols, &analysis, &layouts)
        };
        if sink.has_errors() {
            return Err(GrammarError {
                diagnostics: sink.sorted(),
            });
        }
        Ok(Grammar {
            symbols,
            terminals,
            start,
            origin: origin.to_string(),
            warnings: sink.sorted(),
            analysis,
            layouts,
            lexemes,
            longest,
            word,
            word_names,
            externals: external_flags,
            boundaries: std::sync::OnceLock::new(),
            layout_places: std::sync::OnceLock::new(),
            contexts,
            exclusions,
            distinct,
            refer,
            hoist,
            values,
            separate,
        })
    }

    /// The rules with parameters and the plain rules each was expanded into (empty for a
    /// grammar without contexts).
    pub fn contexts(&self) -> &[Expansion] {
        &self.contexts
    }

    /// The `%hoist` declarations: `%distinct` names that belong to the scopes around them too.
    pub fn hoist(&self) -> &[Hoist] {
        &self.hoist
    }

    /// The `%refer` declarations: references generation makes name an enclosing definition.
    pub fn refer(&self) -> &[Refer] {
        &self.refer
    }

    /// The `%distinct` declarations: names generation keeps distinct within a scope.
    pub fn distinct(&self) -> &[Distinct] {
        &self.distinct
    }

    /// The `%values` declarations: rules whose generated texts are drawn from a rule of words.
    pub fn values(&self) -> &[Values] {
        &self.values
    }

    /// The `%separate` and `%never` declarations: pairs of tokens generation never lets
    /// touch, or never puts next to each other (see [`Separate::never`]).
    pub fn separate(&self) -> &[Separate] {
        &self.separate
    }

    /// Whether the grammar has a `%never` pair.
    pub fn has_never(&self) -> bool {
        self.separate.iter().any(|s| s.never)
    }

    /// The same grammar with `start` as its start symbol (same symbol ids), to parse a text
    /// as one rule (a `%values` word as the rule it spells).
    pub fn with_start(&self, start: SymbolId) -> Grammar {
        let mut g = self.clone();
        g.start = start;
        g
    }

    /// The grammar with `changes` made to its rules and `distinct`, `values` and `separate`
    /// declarations added, printed and loaded anew (what `refine`'s edits make).
    pub fn rebuilt_with(
        &self,
        symbols: Vec<Symbol>,
        terminals: Vec<Terminal>,
        distinct: Vec<Distinct>,
        values: Vec<Values>,
        separate: Vec<Separate>,
        origin: &str,
    ) -> Result<(Grammar, String), GrammarError> {
        let mut draft = self.clone();
        draft.symbols = symbols;
        draft.terminals = terminals;
        for d in distinct {
            if !draft.distinct.contains(&d) {
                draft.distinct.push(d);
            }
        }
        for s in separate {
            if !draft.separate.contains(&s) {
                draft.separate.push(s);
            }
        }
        for v in values {
            draft.values.retain(|old| old.names != v.names || old.key != v.key);
            draft.values.push(v);
        }
        let text = draft.to_file_text();
        drop(draft);
        Ok((Grammar::from_text(&text, origin)?, text))
    }

    /// Whether two symbols have the same body (`stmt*` in two rules, `label_ref = ident ;` and
    /// `loop_label = ident ;`): a subtree of one is a subtree of the other once relabelled.
    pub fn same_shape(&self, a: SymbolId, b: SymbolId) -> bool {
        match (&self.symbol(a).body, &self.symbol(b).body) {
            (
                Body::Repeat {
                    item: i,
                    min: m,
                    max: x,
                },
                Body::Repeat {
                    item: j,
                    min: n,
                    max: y,
                },
            ) => (i, m, x) == (j, n, y),
            (Body::Optional(i), Body::Optional(j)) => i == j,
            (Body::Choice(p), Body::Choice(q)) => {
                p.len() == q.len() && p.iter().zip(q).all(|(x, y)| x.items == y.items)
            }
            _ => false,
        }
    }

    /// Whether `a` and `b` were expanded from the same rule, group or repetition of the grammar
    /// text (two context instances, `statement` and `statement[return]`, or their groups).
    pub fn same_source(&self, a: SymbolId, b: SymbolId) -> bool {
        let (x, y) = (self.symbol(a), self.symbol(b));
        !self.contexts.is_empty()
            && x.span.offset == y.span.offset
            && x.synthetic == y.synthetic
            && context::base_name(&x.name) == context::base_name(&y.name)
    }

    /// The exclusions (`ident_name - reserved`) of the grammar, by rule.
    pub fn exclusions(&self) -> &[Exclusion] {
        &self.exclusions
    }

    /// The start symbol (the first rule of the file).
    pub fn start(&self) -> SymbolId {
        self.start
    }

    /// All symbols: named rules in file order, then synthetic ones.
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// One symbol.
    pub fn symbol(&self, id: SymbolId) -> &Symbol {
        &self.symbols[id.index()]
    }

    /// All terminals, deduplicated.
    pub fn terminals(&self) -> &[Terminal] {
        &self.terminals
    }

    /// One terminal.
    pub fn terminal(&self, id: TerminalId) -> &Terminal {
        &self.terminals[id.index()]
    }

    /// The named (non-synthetic) symbol called `name`.
    pub fn symbol_by_name(&self, name: &str) -> Option<SymbolId> {
        rule_named(&self.symbols, name)
    }

    /// This grammar with other rules, loaded anew: `symbols` and `terminals` replace this
    /// grammar's (existing symbols keep their ids, new ones come after them), the directives
    /// stay. Returns the grammar and the text it was loaded from ([`Grammar::to_file_text`]),
    /// or the loader's diagnostics if the rules are not a valid grammar.
    pub fn rebuilt(
        &self,
        symbols: Vec<Symbol>,
        terminals: Vec<Terminal>,
        origin: &str,
    ) -> Result<(Grammar, String), GrammarError> {
        self.rebuilt_with(symbols, terminals, Vec::new(), Vec::new(), Vec::new(), origin)
    }

    /// The character class terminal written `text` (as [`Terminal::Class::text`] holds it).
    pub fn class_named(&self, text: &str) -> Option<TerminalId> {
        self.terminals
            .iter()
            .position(|t| matches!(t, Terminal::Class { text: t, .. } if t == text))
            .map(|i| TerminalId(i as u32))
    }

    /// What belongs to layout: per symbol, whether a `%layout` rule or a copy of one for a
    /// context (`_[in string]`) reaches it (whitespace, comments and their parts); per
    /// terminal, whether every use of it is in such a symbol. Inversion leaves layout as the
    /// samples have it (see `mine::Probabilities`).
    pub fn layout_parts(&self) -> (Vec<bool>, Vec<bool>) {
        let mut symbols = vec![false; self.symbols.len()];
        // The copies are among the layouts (see `from_text`).
        let mut stack: Vec<SymbolId> = self.layouts.clone();
        while let Some(s) = stack.pop() {
            if std::mem::replace(&mut symbols[s.index()], true) {
                continue;
            }
            let mut visit = |item: &Item| {
                if let Item::Symbol(c) = *item {
                    if !symbols[c.index()] {
                        stack.push(c);
                    }
                }
            };
            match &self.symbol(s).body {
                Body::Choice(alts) => alts.iter().flat_map(|a| &a.items).for_each(&mut visit),
                Body::Repeat { item, .. } | Body::Optional(item) => visit(item),
            }
        }
        // A terminal is layout when no symbol outside layout uses it.
        let mut content = vec![false; self.terminals.len()];
        for (s, _) in self.symbols.iter().zip(&symbols).filter(|&(_, &layout)| !layout) {
            let mut mark = |item: &Item| {
                if let Item::Terminal(t) = *item {
                    content[t.index()] = true;
                }
            };
            match &s.body {
                Body::Choice(alts) => alts.iter().flat_map(|a| &a.items).for_each(&mut mark),
                Body::Repeat { item, .. } | Body::Optional(item) => mark(item),
            }
        }
        let terminals = content.iter().map(|&c| !c).collect();
        (symbols, terminals)
    }

    /// Named rules that neither the start rule nor a `%lexeme` reaches (the ones `check` warns
    /// about), in file order.
    pub fn unused_rules(&self) -> Vec<SymbolId> {
        let sources: Vec<SymbolId> = self.values.iter().map(|v| v.source).collect();
        let roots = used_roots(&self.symbols, &self.lexemes, &self.exclusions, &sources);
        let used = analysis::used_symbols(&self.symbols, self.start, &roots);
        (0..self.symbols.len())
            .filter(|&i| !used[i] && !self.symbols[i].synthetic)
            .map(|i| SymbolId(i as u32))
            .collect()
    }

    /// Where the grammar came from (a path or `<builtin:NAME>`).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Warnings found while loading (for example, unreachable rules).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The layout rule named first by `%layout` (whitespace and comments allowed between tokens),
    /// if any.
    pub fn layout(&self) -> Option<SymbolId> {
        self.layouts.first().copied()
    }

    /// Every `%layout` rule: the main one, then narrower ones for restricted places (a layout
    /// without line breaks where the language forbids one). Tokens follow any of them.
    pub fn layouts(&self) -> &[SymbolId] {
        &self.layouts
    }

    /// Whether `item` is one of the `%layout` rules.
    pub fn is_layout(&self, item: Item) -> bool {
        matches!(item, Item::Symbol(s) if self.layouts.contains(&s))
    }

    /// The rules named by `%lexeme` (words the real lexer knows, used for token boundaries).
    pub fn lexemes(&self) -> &[SymbolId] {
        &self.lexemes
    }

    /// Whether the parser matches `sym` longest-first, as a lexer does: in a grammar with a
    /// `%layout` rule, a symbol that follows the layout somewhere, is not recursive and does not
    /// itself contain the layout is a token, and a token ends only where its longest match ends.
    /// The `%layout` rules themselves are matched longest-first too, as a lexer skips all the
    /// whitespace and comments before a token: a shorter end would start a token inside a run
    /// of comments, a parse to carry for each (n comments in a row cost n^3 otherwise). Only in
    /// an `%external` token's definition (`_newline = _ "\n" ;`) may the layout end between
    /// two of its lexemes, which are longest-first themselves (the repeated item of
    /// `_ = _extra* ;`: a comment is never cut short).
    pub fn is_longest_match(&self, sym: SymbolId) -> bool {
        self.longest[sym.index()]
    }

    /// The `%word` rule: tree-sitter's keyword extraction. Where the grammar expects a keyword
    /// (a literal this rule also matches) and a name, a word spelling the keyword is read as the
    /// keyword whenever the input parses that way (`return (x)` is a return, not a call of a
    /// function named `return`); the parser reads it as a name only if nothing else parses.
    pub fn word(&self) -> Option<SymbolId> {
        self.word
    }

    /// Whether `%external` names `sym`: a token an imported grammar's C scanner made, whose
    /// definition's layout may end between its lexemes (the scanner sees the whitespace first).
    pub fn is_external(&self, sym: SymbolId) -> bool {
        self.externals.get(sym.index()).copied().unwrap_or(false)
    }

    /// Whether `sym` is the `%word` rule or a chain of one-item rules down to it
    /// (`type_identifier = identifier ;`): a name that keyword extraction gives way to keywords.
    pub fn is_word_name(&self, sym: SymbolId) -> bool {
        self.word_names.get(sym.index()).copied().unwrap_or(false)
    }

    /// Whether `item`, between `before` and `after` in a sequence, is a whole token after the
    /// layout (`_ "select" _`, `_ name` at the end) that is a word: a keyword literal or a
    /// longest-match token. The parser rejects such a token where a longer word continues it
    /// (`select` in `selectx`). A literal that only starts a token (`_ "p" [0-9]`) is not one;
    /// without `%lexeme` rules nothing is.
    pub fn is_word_token(&self, before: Option<Item>, item: Item, after: Option<Item>) -> bool {
        before.is_some_and(|b| self.is_layout(b))
            && after.is_none_or(|a| self.is_layout(a))
            && !self.lexemes.is_empty()
            && match item {
                Item::Terminal(t) => self.boundaries().is_keyword(t),
                Item::Symbol(s) => self.is_longest_match(s) && !self.layouts.contains(&s),
            }
    }

    /// The token-boundary checker of this grammar (see [`Boundaries`]); built on first use.
    pub fn boundaries(&self) -> &Boundaries {
        self.boundaries.get_or_init(|| Boundaries::new(self))
    }

    /// The places of the layout rules (see [`Places`]); built on first use.
    pub fn layout_places(&self) -> &std::sync::Arc<Places> {
        self.layout_places
            .get_or_init(|| std::sync::Arc::new(Places::new(self)))
    }

    /// The analyses (nullable, productive, reachable, cheapest derivations, unit chains).
    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// Whether `sym` derives the empty string.
    pub fn is_nullable(&self, sym: SymbolId) -> bool {
        self.analysis.nullable[sym.index()]
    }

    /// Whether `item` derives the empty string.
    pub fn item_nullable(&self, item: Item) -> bool {
        match item {
            Item::Symbol(s) => self.is_nullable(s),
            Item::Terminal(_) => false,
        }
    }

    /// The length in bytes of the shortest string `sym` derives.
    pub fn cheapest_len(&self, sym: SymbolId) -> u64 {
        self.analysis.cheapest[sym.index()].bytes
    }

    /// The length in bytes of the shortest string `item` derives.
    pub fn item_cheapest_len(&self, item: Item) -> u64 {
        match item {
            Item::Symbol(s) => self.cheapest_len(s),
            Item::Terminal(t) => self.analysis.terminal_cost[t.index()],
        }
    }

    /// Whether `from` derives exactly `to` through single-item steps (a unit chain, `from ⇒+ to`).
    pub fn unit_derives(&self, from: SymbolId, to: SymbolId) -> bool {
        self.analysis.unit_reach[from.index()].binary_search(&to).is_ok()
    }

    /// The unit chain from `from` down to `to` (exclusive): the symbols and the alternative each
    /// takes (for optionals and repetitions: 0), such that `from` ⇒+ `to` by single-item steps.
    /// `None` if `from` does not unit-derive `to`. Shortest chain, first alternatives first.
    pub fn unit_path(&self, from: SymbolId, to: SymbolId) -> Option<Vec<(SymbolId, u32)>> {
        if !self.unit_derives(from, to) {
            return None;
        }
        let steps = |s: SymbolId| -> Vec<(u32, SymbolId)> {
            match &self.symbol(s).body {
                Body::Choice(alts) => alts
                    .iter()
                    .enumerate()
                    .filter_map(|(k, a)| match a.items.as_slice() {
                        [Item::Symbol(b)] => Some((k as u32, *b)),
                        _ => None,
                    })
                    .collect(),
                Body::Optional(Item::Symbol(b)) => vec![(0, *b)],
                Body::Repeat {
                    item: Item::Symbol(b),
                    min,
                    max,
                } if *min <= 1 && max.is_none_or(|m| m >= 1) => vec![(0, *b)],
                _ => Vec::new(),
            }
        };
        // Breadth-first from `from`; `prev` remembers how each symbol was reached.
        let mut prev: std::collections::HashMap<SymbolId, (SymbolId, u32)> = std::collections::HashMap::new();
        let mut queue = std::collections::VecDeque::from([from]);
        while let Some(s) = queue.pop_front() {
            for (alt, b) in steps(s) {
                if b == from || prev.contains_key(&b) {
                    continue;
                }
                prev.insert(b, (s, alt));
                if b == to {
                    let mut path = Vec::new();
                    let mut at = to;
                    while let Some(&(p, alt)) = prev.get(&at) {
                        path.push((p, alt));
                        if p == from {
                            break;
                        }
                        at = p;
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(b);
            }
        }
        None
    }

    /// How an item is written: a terminal as in the file, a symbol by name.
    pub fn item_text(&self, item: Item) -> String {
        match item {
            Item::Symbol(s) => self.symbol(s).name.clone(),
            Item::Terminal(t) => self.terminal(t).to_string(),
        }
    }
}

/// The named (non-synthetic) rule called `name`.
fn rule_named(symbols: &[Symbol], name: &str) -> Option<SymbolId> {
    symbols
        .iter()
        .position(|s| s.name == name && !s.synthetic)
        .map(|i| SymbolId(i as u32))
}

/// The rules that count as used besides what the start rule reaches: the `%lexeme` rules and
/// the rules inlined into an exclusion.
fn used_roots(
    symbols: &[Symbol],
    lexemes: &[SymbolId],
    exclusions: &[Exclusion],
    sources: &[SymbolId],
) -> Vec<SymbolId> {
    let mut roots = lexemes.to_vec();
    roots.extend_from_slice(sources);
    roots.extend(
        exclusions
            .iter()
            .flat_map(|e| &e.uses)
            .filter_map(|n| rule_named(symbols, n)),
    );
    roots
}

/// Most pairs of items [`same_items`] compares: a bound on the work for deep groups.
const MAX_COMPARED: usize = 4096;

/// Whether two alternatives say the same: item by item the same terminal, the same rule or
/// instances of one rule (`_type` and `_type[in x]`), or groups of the same shape that say
/// the same (a copy's own groups).
pub(crate) fn same_items(symbols: &[Symbol], a: &Alternative, b: &Alternative) -> bool {
    if a.items.len() != b.items.len() {
        return false;
    }
    // A worklist, not recursion: groups nest as deep as the grammar file does.
    let mut todo: Vec<(Item, Item)> = a.items.iter().copied().zip(b.items.iter().copied()).collect();
    let mut compared = 0;
    while let Some(pair) = todo.pop() {
        compared += 1;
        if compared > MAX_COMPARED {
            return false;
        }
        let (x, y) = match pair {
            (Item::Terminal(x), Item::Terminal(y)) if x == y => continue,
            (Item::Symbol(x), Item::Symbol(y)) if x == y => continue,
            (Item::Symbol(x), Item::Symbol(y)) => (&symbols[x.index()], &symbols[y.index()]),
            _ => return false,
        };
        match (x.synthetic, y.synthetic) {
            (false, false) => {
                if base_name(&x.name) != base_name(&y.name) {
                    return false;
                }
            }
            (true, true) => match (&x.body, &y.body) {
                (Body::Choice(xs), Body::Choice(ys)) => {
                    if xs.len() != ys.len() || xs.iter().zip(ys).any(|(p, q)| p.items.len() != q.items.len()) {
                        return false;
                    }
                    for (p, q) in xs.iter().zip(ys) {
                        todo.extend(p.items.iter().copied().zip(q.items.iter().copied()));
                    }
                }
                (
                    Body::Repeat {
                        item: p,
                        min: m1,
                        max: n1,
                    },
                    Body::Repeat {
                        item: q,
                        min: m2,
                        max: n2,
                    },
                ) if m1 == m2 && n1 == n2 => todo.push((*p, *q)),
                (Body::Optional(p), Body::Optional(q)) => todo.push((*p, *q)),
                _ => return false,
            },
            _ => return false,
        }
    }
    true
}

/// The named symbols of rule `name` and of its context instances (`name[...]`): what a
/// directive naming `name` covers.
pub(crate) fn instances_named(symbols: &[Symbol], name: &str) -> Vec<SymbolId> {
    symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            !s.synthetic && (s.name == name || s.name.strip_prefix(name).is_some_and(|rest| rest.starts_with('[')))
        })
        .map(|(i, _)| SymbolId(i as u32))
        .collect()
}

/// The symbols [`Grammar::is_word_name`] is true of: `word` and the rules whose one
/// alternative is one symbol that is (chains are followed iteratively, at most one step per
/// symbol per pass, so a cycle of unit rules ends).
fn word_names(symbols: &[Symbol], word: Option<SymbolId>) -> Vec<bool> {
    let mut names = vec![false; symbols.len()];
    let Some(word) = word else { return names };
    names[word.index()] = true;
    loop {
        let mut changed = false;
        for (i, s) in symbols.iter().enumerate() {
            if names[i] {
                continue;
            }
            if let Body::Choice(alts) = &s.body {
                if let [alt] = &alts[..] {
                    if let [Item::Symbol(t)] = alt.items[..] {
                        if names[t.index()] {
                            names[i] = true;
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            return names;
        }
    }
}

/// The symbols [`Grammar::is_longest_match`] is true of.
fn longest_match_tokens(symbols: &[Symbol], analysis: &Analysis, layouts: &[SymbolId]) -> Vec<bool> {
    // Symbols that reach the layout: reverse reachability from it, breadth first.
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); symbols.len()];
    for (i, s) in symbols.iter().enumerate() {
        for item in analysis::body_items(&s.body) {
            if let Item::Symbol(t) = item {
                users[t.index()].push(i as u32);
            }
        }
    }
    let mut reaches_layout = vec![false; symbols.len()];
    for l in layouts {
        reaches_layout[l.index()] = true;
    }
    let mut queue: Vec<u32> = layouts.iter().map(|l| l.0).collect();
    while let Some(t) = queue.pop() {
        for &u in &users[t as usize] {
            if !reaches_layout[u as usize] {
                reaches_layout[u as usize] = true;
                queue.push(u);
            }
        }
    }
    let mut longest = vec![false; symbols.len()];
    for l in layouts {
        longest[l.index()] = true;
        // The layout's lexemes (`_ = _extra* ;`): a comment ends where its longest match
        // does, wherever the layout is, as a lexer reads it (`"//" [^\n]*` is the whole line).
        if let Body::Repeat {
            item: Item::Symbol(x), ..
        } = symbols[l.index()].body
        {
            if !analysis.reaches_recursion[x.index()] {
                longest[x.index()] = true;
            }
        }
    }
    for s in symbols {
        for alt in s.alternatives() {
            for pair in alt.items.windows(2) {
                if let [Item::Symbol(l), Item::Symbol(t)] = pair {
                    if layouts.contains(l) && !reaches_layout[t.index()] && !analysis.reaches_recursion[t.index()] {
                        longest[t.index()] = true;
                    }
                }
            }
        }
    }
    longest
}

#[cfg(test)]
mod context_tests;
#[cfg(test)]
mod tests;
