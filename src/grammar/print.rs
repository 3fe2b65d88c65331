//! Printing a grammar back to the text format, optionally with a probability per alternative.
//!
//! Synthetic symbols are printed inline (as groups and postfix operators) under their named rule,
//! so the output loads as a grammar again; [`Grammar::fingerprint`] hashes the plain printout.

use std::fmt::Write as _;

use super::{Body, Grammar, Item, SymbolId};

/// The longest literal [`Grammar::dictionary`] lists: libFuzzer's dictionary words hold 64 bytes
/// (a longer one overruns its fixed buffer).
pub const MAX_DICTIONARY_WORD: usize = 64;

/// What to print beside a choice point: a weight per alternative, or a comment for `?` and
/// repetitions (whose probabilities the format has no syntax for).
pub trait Annotations {
    /// The weight (a percentage, 0..=100) of alternative `alt` of choice symbol `sym`.
    fn alt_weight(&self, sym: SymbolId, alt: usize) -> Option<f64>;
    /// A note on a `?` or repetition symbol, printed as a trailing comment of its rule.
    fn note(&self, sym: SymbolId) -> Option<String>;
    /// Whether weights written in the grammar are printed where `alt_weight` gives none.
    fn written_weights(&self) -> bool {
        true
    }
}

/// The structure only: no weights at all (what [`Grammar::fingerprint`] hashes).
struct Structure;

impl Annotations for Structure {
    fn alt_weight(&self, _: SymbolId, _: usize) -> Option<f64> {
        None
    }
    fn note(&self, _: SymbolId) -> Option<String> {
        None
    }
    fn written_weights(&self) -> bool {
        false
    }
}

/// No annotations: the plain grammar.
pub struct Plain;

impl Annotations for Plain {
    fn alt_weight(&self, _: SymbolId, _: usize) -> Option<f64> {
        None
    }
    fn note(&self, _: SymbolId) -> Option<String> {
        None
    }
}

impl Grammar {
    /// The grammar as text in the grammar format, one rule per line, with `notes` applied.
    /// Loading the result gives a grammar with the same symbols (and the same fingerprint).
    pub fn to_text_with(&self, notes: &dyn Annotations) -> String {
        self.rules_text(notes, &|_| true)
    }

    /// The named rules `keep` keeps, as [`Grammar::to_text_with`] writes them.
    fn rules_text(&self, notes: &dyn Annotations, keep: &dyn Fn(SymbolId) -> bool) -> String {
        let mut out = String::new();
        for (i, s) in self.symbols().iter().enumerate().filter(|(_, s)| !s.synthetic) {
            let sym = SymbolId(i as u32);
            if !keep(sym) {
                continue;
            }
            let mut comments = Vec::new();
            let body = match &s.body {
                Body::Choice(_) => self.alternatives_text(sym, notes, &mut comments),
                _ => self.postfix_text(sym, notes, &mut comments),
            };
            let _ = write!(out, "{} = {} ;", quoted_name(&s.name), body);
            if !comments.is_empty() {
                let _ = write!(out, "  # {}", comments.join("; "));
            }
            out.push('\n');
        }
        out
    }

    /// The plain grammar text (no weights, no comments).
    pub fn to_text(&self) -> String {
        self.to_text_with(&Plain)
    }

    /// One named rule as the grammar format writes it: `name = ... ;` (its groups inline).
    pub fn rule_text(&self, sym: SymbolId) -> String {
        let s = self.symbol(sym);
        let mut ignored = Vec::new();
        let body = match &s.body {
            Body::Choice(_) => self.alternatives_text(sym, &Plain, &mut ignored),
            _ => self.postfix_text(sym, &Plain, &mut ignored),
        };
        format!("{} = {} ;", quoted_name(&s.name), body)
    }

    /// The whole grammar as a file that loads again as the same grammar: the directives
    /// ([`Grammar::directives_text`]), then every rule, with contexts and exclusions expanded
    /// into plain rules ([`Grammar::to_text`] leaves the directives out).
    pub fn to_file_text(&self) -> String {
        let mut out = self.directives_text();
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&self.to_text());
        out
    }

    /// [`Grammar::to_file_text`] without the named rules nothing uses ([`Grammar::unused_rules`]),
    /// where the text loads again without them (a directive may name one): what is left of a
    /// grammar whose edits cut rules off (`refine`), without a warning per dead rule.
    pub fn to_file_text_used(&self) -> String {
        let unused: std::collections::HashSet<SymbolId> = self.unused_rules().into_iter().collect();
        if unused.is_empty() {
            return self.to_file_text();
        }
        let mut out = self.directives_text();
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&self.rules_text(&Plain, &|s| !unused.contains(&s)));
        if Grammar::from_text(&out, self.origin()).is_ok() {
            out
        } else {
            self.to_file_text()
        }
    }

    /// The grammar's directives as a file writes them, one per line: `%layout`, `%lexeme`,
    /// `%word`, `%distinct`, `%hoist`, `%refer`, `%values`, `%separate` (empty if it has none).
    pub fn directives_text(&self) -> String {
        let names = |ids: &[SymbolId]| -> Vec<String> {
            let mut out: Vec<String> = Vec::new();
            for &id in ids {
                let name = quoted_name(&super::base_name(&self.symbol(id).name));
                if !out.contains(&name) {
                    out.push(name);
                }
            }
            out
        };
        let mut out = String::new();
        let mut directive = |name: &str, args: Vec<String>| {
            if !args.is_empty() {
                let _ = writeln!(out, "%{name} {} ;", args.join(" "));
            }
        };
        // Copies of a layout rule are layout without being named (see `from_text`).
        directive(
            "layout",
            self.layouts()
                .iter()
                .filter(|&&l| !self.symbol(l).name.contains('['))
                .map(|&l| quoted_name(&self.symbol(l).name))
                .collect(),
        );
        directive(
            "lexeme",
            self.lexemes()
                .iter()
                .filter(|&&l| Some(l) != self.word())
                .map(|&l| quoted_name(&self.symbol(l).name))
                .collect(),
        );
        directive(
            "word",
            self.word()
                .map(|w| quoted_name(&self.symbol(w).name))
                .into_iter()
                .collect(),
        );
        for d in self.distinct() {
            directive("distinct", [names(&d.names), names(&d.scopes)].concat());
        }
        for h in self.hoist() {
            directive("hoist", [names(&h.names), names(&h.stops)].concat());
        }
        for r in self.refer() {
            directive("refer", [names(&r.refs), names(&r.defs)].concat());
        }
        // A table covers a rule and the copies made of it (its key too): `%values` reads the
        // name of the rule as covering them, and a copy's name as covering its own copies.
        let covering = |ids: &[SymbolId]| -> Vec<String> {
            ids.iter()
                .map(|&id| self.symbol(id).name.as_str())
                .min_by_key(|n| n.len())
                .map(|n| vec![quoted_name(n)])
                .unwrap_or_default()
        };
        for v in self.values() {
            directive(
                "values",
                [covering(&v.names), names(&[v.source]), covering(&v.key)].concat(),
            );
        }
        for s in self.separate() {
            let quoted = |b: &[u8]| format!("\"{}\"", super::escape_literal(b));
            let name = if s.never { "never" } else { "separate" };
            directive(name, vec![quoted(&s.before), quoted(&s.after)]);
        }
        out
    }

    /// A libFuzzer/AFL dictionary of the grammar's literal terminals: one `"..."` entry per line,
    /// non-printable bytes as `\xHH`, in grammar order. Single characters are included: for
    /// a grammar they are the punctuation that matters. The empty literal is left out (libFuzzer
    /// refuses the file for a `""` line), and so are literals longer than
    /// [`MAX_DICTIONARY_WORD`] bytes (libFuzzer's words hold 64).
    pub fn dictionary(&self) -> String {
        let mut out = format!(
            "# libFuzzer/AFL dictionary: the literal terminals of {}\n",
            self.origin()
        );
        for t in self.terminals() {
            if let super::Terminal::Literal(bytes) = t {
                if bytes.is_empty() || bytes.len() > MAX_DICTIONARY_WORD {
                    continue;
                }
                out.push('"');
                for &b in bytes {
                    match b {
                        b'"' | b'\\' => out.push_str(&format!("\\{}", b as char)),
                        0x20..=0x7E => out.push(b as char),
                        _ => out.push_str(&format!("\\x{b:02X}")),
                    }
                }
                out.push_str("\"\n");
            }
        }
        out
    }

    /// A fingerprint of the grammar's structure (SHA-1 of its printout without weights): equal
    /// for the same rules written with other spacing, comments or weights, different for any
    /// other grammar. Models are tied to it.
    pub fn fingerprint(&self) -> String {
        crate::files::sha1_hex(self.to_text_with(&Structure).as_bytes())
    }

    fn alternatives_text(&self, sym: SymbolId, notes: &dyn Annotations, comments: &mut Vec<String>) -> String {
        let alts = self.symbol(sym).alternatives();
        let parts: Vec<String> = alts
            .iter()
            .enumerate()
            .map(|(k, alt)| {
                let items: Vec<String> = alt
                    .items
                    .iter()
                    .map(|&it| self.item_source(it, notes, comments))
                    .collect();
                let weight = notes
                    .alt_weight(sym, k)
                    .or(alt.weight.filter(|_| notes.written_weights()));
                let body = if items.is_empty() {
                    "\"\"".to_string()
                } else {
                    items.join(" ")
                };
                let prec = alt.prec.map(super::Prec::to_text).unwrap_or_default();
                match weight {
                    Some(w) => format!("{prec}{} {body}", format_weight(w)),
                    None => format!("{prec}{body}"),
                }
            })
            .collect();
        parts.join(" | ")
    }

    fn postfix_text(&self, sym: SymbolId, notes: &dyn Annotations, comments: &mut Vec<String>) -> String {
        let s = self.symbol(sym);
        if let Some(note) = notes.note(sym) {
            comments.push(format!("{}: {note}", self.postfix_label(sym, notes)));
        }
        match &s.body {
            Body::Optional(item) => format!("{}?", self.operand(*item, notes, comments)),
            Body::Repeat { item, min, max } => {
                let op = match (min, max) {
                    (0, None) => "*".to_string(),
                    (1, None) => "+".to_string(),
                    (n, None) => format!("{{{n},}}"),
                    (n, Some(m)) if n == m => format!("{{{n}}}"),
                    (n, Some(m)) => format!("{{{n},{m}}}"),
                };
                format!("{}{op}", self.operand(*item, notes, comments))
            }
            Body::Choice(_) => format!("( {} )", self.alternatives_text(sym, notes, comments)),
        }
    }

    /// How a postfix symbol is named in a comment: the operator text without its annotations.
    fn postfix_label(&self, sym: SymbolId, _notes: &dyn Annotations) -> String {
        let mut ignored = Vec::new();
        let s = self.symbol(sym);
        let inner = match &s.body {
            Body::Optional(item) | Body::Repeat { item, .. } => self.operand(*item, &Plain, &mut ignored),
            Body::Choice(_) => return quoted_name(&s.name),
        };
        let op = match &s.body {
            Body::Optional(_) => "?".to_string(),
            Body::Repeat { min: 0, max: None, .. } => "*".into(),
            Body::Repeat { min: 1, max: None, .. } => "+".into(),
            Body::Repeat { min, max, .. } => format!("{{{min},{}}}", max.map_or(String::new(), |m| m.to_string())),
            Body::Choice(_) => unreachable!(),
        };
        format!("{inner}{op}")
    }

    /// An item as the grammar format writes it inside an alternative (a group inline, as
    /// `( _ keyword_explain )?`, not by its internal name).
    pub fn item_written(&self, item: Item) -> String {
        self.item_source(item, &Plain, &mut Vec::new())
    }

    /// An item as it appears inside an alternative.
    fn item_source(&self, item: Item, notes: &dyn Annotations, comments: &mut Vec<String>) -> String {
        match item {
            Item::Terminal(t) => self.terminal(t).to_string(),
            Item::Symbol(s) if !self.symbol(s).synthetic => quoted_name(&self.symbol(s).name),
            Item::Symbol(s) => self.postfix_text(s, notes, comments),
        }
    }

    /// An item as the operand of a postfix operator: groups in parentheses.
    fn operand(&self, item: Item, notes: &dyn Annotations, comments: &mut Vec<String>) -> String {
        let text = self.item_source(item, notes, comments);
        match item {
            Item::Symbol(s) if self.symbol(s).synthetic && !text.starts_with('(') => format!("( {text} )"),
            _ => text,
        }
    }
}

/// A weight as the format writes it: `33.3%`, `50%`, `0%`.
pub fn format_weight(w: f64) -> String {
    let rounded = (w * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}%")
    } else {
        format!("{rounded:.1}%")
    }
}

/// A rule name as the grammar format reads it: plain names as they are, others (the rules that
/// contexts expanded, `statement[return]`) in backquotes.
pub fn quoted_name(name: &str) -> String {
    let plain = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if plain {
        name.to_string()
    } else {
        format!("`{name}`")
    }
}

/// `text` (a terminal as written) cut to about 48 characters for people to read: an imported
/// name class lists hundreds of Unicode ranges, which would fill a screen per mention.
pub fn abbreviated(text: &str) -> std::borrow::Cow<'_, str> {
    const KEEP: usize = 40;
    if text.chars().count() <= KEEP + 8 {
        return std::borrow::Cow::Borrowed(text);
    }
    let head: String = text.chars().take(KEEP).collect();
    let last = text
        .chars()
        .last()
        .filter(|c| matches!(c, ']' | '"' | '\''))
        .map(String::from);
    std::borrow::Cow::Owned(format!("{head}…{}", last.unwrap_or_default()))
}
