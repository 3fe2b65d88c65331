//! Tree-sitter `grammar.json` → hellfuzz grammar text.
//!
//! Tree-sitter lexes tokens (`STRING`, `PATTERN`, `TOKEN`, rules whose body is one of those) and
//! skips its `extras` (whitespace, comments) before any token. Our parser reads bytes, so the
//! conversion writes that layout out: a rule `_` (the extras, repeated) before every token but an
//! `IMMEDIATE_TOKEN`, and once at the end of the start rule. `%layout _` then lets generation and
//! reduction keep tokens apart where they would lex as one. Precedences, conflicts and the like
//! choose among parses and do not change the language, so they are left out; externals (tokens of
//! a C scanner) and rules wider than the real format come from an overrides file.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use super::expr::Expr;
use super::source::Source;
use super::{pattern, ImportError};
use crate::grammar::{Assoc, Grammar, Prec, Severity};

/// The result of an import: grammar text, and what the conversion had to approximate.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Imported {
    /// The grammar file (it loads with [`Grammar::from_text`] once every external is defined).
    pub text: String,
    /// Approximations, one line each (also written as comments into `text`).
    pub notes: Vec<String>,
    /// External tokens that the overrides file does not define: `check` reports them.
    pub undefined_externals: Vec<String>,
}

/// An overrides file: grammar rules that define externals, replace imported rules or help them.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Overrides<'a> {
    /// The file's text, in hellfuzz's grammar format.
    pub text: &'a str,
    /// Its name as shown in messages and in the generated header (a file name, not a full path,
    /// so the output does not depend on where it was run).
    pub name: &'a str,
}

impl<'a> Overrides<'a> {
    /// The overrides in `text`, named `name` in messages and in the generated header.
    pub fn new(text: &'a str, name: &'a str) -> Overrides<'a> {
        Overrides { text, name }
    }
}

/// The rule types a grammar.json may use.
const TYPES: &[&str] = &[
    "BLANK",
    "STRING",
    "PATTERN",
    "SYMBOL",
    "SEQ",
    "CHOICE",
    "REPEAT",
    "REPEAT1",
    "FIELD",
    "ALIAS",
    "TOKEN",
    "IMMEDIATE_TOKEN",
    "PREC",
    "PREC_LEFT",
    "PREC_RIGHT",
    "PREC_DYNAMIC",
    "RESERVED",
];

/// The `rules` object in file order (serde_json's map would sort it).
struct OrderedRules(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for OrderedRules {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedRules;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of rule name → rule")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedRules, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    out.push((k, v));
                }
                Ok(OrderedRules(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(serde::Deserialize)]
struct RulesOnly {
    rules: OrderedRules,
}

/// How a rule is lexed by tree-sitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lexical {
    /// A phrase of tokens.
    No,
    /// One token: the layout may come before it.
    Token,
    /// One token right after the previous one, no layout between.
    Immediate,
}

/// Where a conversion is: between tokens (layout before each token) or inside one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Syntactic,
    Token,
}

struct Conv<'a> {
    file: String,
    rules: HashMap<&'a str, &'a Value>,
    lexical: HashMap<&'a str, Lexical>,
    /// Rules reached from `extras`: converted as tokens (no layout inside the layout).
    token_rules: HashSet<&'a str>,
    /// External token names (not rules) → names in the output.
    externals: HashMap<String, String>,
    /// Rule names in the output (tree-sitter names, sanitized).
    names: HashMap<String, String>,
    taken: HashSet<String>,
    gap: String,
    /// Named aliases made into rules: (content JSON, mode) → rule name; and their definitions,
    /// waiting to be written after the rule that first used them.
    aliases: HashMap<(String, String, bool), String>,
    pending: Vec<(String, Expr)>,
    notes: Vec<String>,
}

/// Converts a tree-sitter grammar to hellfuzz grammar text; see the module docs. Rules that
/// the start rule cannot reach (left over once the overrides replaced what used them, or unused
/// in the source) are left out and listed in a comment, so the grammar loads without warnings.
pub fn import(source: &Source, overrides: Option<Overrides<'_>>) -> Result<Imported, ImportError> {
    // Leaving rules out cannot make others reachable, but a rule used only by a left-out one
    // shows up as unreachable only in the next round: repeat until none is left.
    let prepared = Prepared::new(source, overrides)?;
    let mut skip: HashSet<String> = HashSet::new();
    loop {
        let (imported, _) = render(&prepared, &skip, true)?;
        let unreachable: Vec<String> = match Grammar::from_text(&imported.text, "<import>") {
            Ok(g) => g.unused_rules().into_iter().map(|s| g.symbol(s).name.clone()).collect(),
            Err(_) => Vec::new(),
        };
        if unreachable.is_empty() || unreachable.iter().all(|n| skip.contains(n)) {
            return Ok(imported);
        }
        skip.extend(unreachable);
    }
}

/// A grammar.json and an overrides file, read and checked once; [`render`] writes the grammar.
struct Prepared<'s> {
    source: &'s Source,
    overrides: Option<Overrides<'s>>,
    /// The grammar.json as shown in messages.
    file: String,
    top: serde_json::Map<String, Value>,
    /// `rules` in file order (serde_json's map would sort them).
    rules: Vec<(String, Value)>,
    extras: Vec<Value>,
    externals: Vec<Value>,
    /// Overrides: rule name → its text (with the comment lines just above it), and the byte
    /// offset in the overrides file where that text starts.
    override_rules: Vec<(String, String, usize)>,
    override_lexemes: Vec<String>,
    /// The overrides file's `%distinct`, `%hoist` and `%refer` lines: (directive, its names).
    override_tables: Vec<(String, Vec<String>, usize)>,
}

impl<'s> Prepared<'s> {
    fn new(source: &'s Source, overrides: Option<Overrides<'s>>) -> Result<Prepared<'s>, ImportError> {
        let file = source.path.display().to_string();
        let invalid = |json_path: &str, message: &str| ImportError::Invalid {
            path: file.clone(),
            json_path: json_path.to_string(),
            message: message.to_string(),
        };
        let not_json = |e| ImportError::NotJson {
            path: file.clone(),
            source: e,
        };
        let Value::Object(top) = serde_json::from_str(&source.json).map_err(not_json)? else {
            return Err(invalid("$", "a grammar.json is a JSON object with `name` and `rules`"));
        };
        match top.get("rules") {
            Some(Value::Object(_)) => {}
            Some(_) => return Err(invalid("rules", "`rules` must be an object of rule name → rule")),
            None => {
                return Err(invalid(
                    "rules",
                    "no `rules` object: is this a tree-sitter grammar.json?",
                ))
            }
        }
        // Parsed again for the order of `rules` alone.
        let rules = serde_json::from_str::<RulesOnly>(&source.json)
            .map_err(not_json)?
            .rules
            .0;
        if rules.is_empty() {
            return Err(invalid("rules", "the grammar has no rules"));
        }
        let array = |field: &str, default: Vec<Value>| match top.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(_) => Err(invalid(field, &format!("`{field}` must be an array of rules"))),
        };
        let extras = array("extras", vec![serde_json::json!({"type": "PATTERN", "value": "\\s"})])?;
        let externals = array("externals", Vec::new())?;
        let mut override_rules = Vec::new();
        let mut override_lexemes = Vec::new();
        let mut override_tables = Vec::new();
        if let Some(ov) = overrides {
            let mut sink = crate::grammar::Sink {
                file: ov.name.to_string(),
                items: Vec::new(),
            };
            let parsed = crate::grammar::syntax::parse_file(ov.text, &mut sink);
            if sink.has_errors() {
                return Err(ImportError::Overrides {
                    error: crate::grammar::GrammarError {
                        diagnostics: sink.sorted(),
                    },
                });
            }
            for r in &parsed.rules {
                let (from, rule_text) = with_leading_comments(ov.text, r.span.offset, r.end);
                override_rules.push((r.name.clone(), rule_text, from));
            }
            for d in &parsed.directives {
                let names = || d.args.iter().map(|(n, _)| n.clone());
                match d.name.as_str() {
                    "lexeme" => override_lexemes.extend(names()),
                    "distinct" | "hoist" | "refer" | "values" => {
                        override_tables.push((d.name.clone(), names().collect(), d.span.offset))
                    }
                    // Generation's token pairs (what `refine`'s edits file declares): quoted
                    // literals, kept as written.
                    "separate" | "never" => override_tables.push((
                        d.name.clone(),
                        d.literals
                            .iter()
                            .map(|(bytes, _)| format!("\"{}\"", crate::grammar::escape_literal(bytes)))
                            .collect(),
                        d.span.offset,
                    )),
                    // The import writes these itself: a second one would be a duplicate or be
                    // ignored, so say what to write instead.
                    other => {
                        let what = if other == "layout" {
                            "the import declares the layout itself (`%layout _ ;`, the rule `_` written \
                             before every token): to change it, define `_` (e.g. `_ = \"\" ;` for no layout \
                             at all) or `_extra` (one layout item) in this file"
                        } else {
                            "the import declares the external tokens itself (`%external` lists those this \
                             file does not define): define them here as rules instead"
                        };
                        let mut sink = crate::grammar::Sink {
                            file: ov.name.to_string(),
                            items: Vec::new(),
                        };
                        sink.error(d.span, format!("`%{other}` in an overrides file: {what}"));
                        return Err(ImportError::Overrides {
                            error: crate::grammar::GrammarError {
                                diagnostics: sink.sorted(),
                            },
                        });
                    }
                }
            }
        }
        Ok(Prepared {
            source,
            overrides,
            file,
            top,
            rules,
            extras,
            externals,
            override_rules,
            override_lexemes,
            override_tables,
        })
    }
}

/// Writes the grammar of `p`, leaving out the rules in `skip`.
/// With `check`, an output that does not load is an error; the spans map output offsets to the
/// JSON paths (or overrides) they came from.
fn render(
    p: &Prepared<'_>,
    skip: &HashSet<String>,
    check: bool,
) -> Result<(Imported, Vec<(usize, String)>), ImportError> {
    let (source, overrides, file) = (p.source, p.overrides, p.file.clone());
    let invalid = |json_path: &str, message: String| ImportError::Invalid {
        path: file.clone(),
        json_path: json_path.to_string(),
        message,
    };
    let (top_map, rules, extras, externals_json) = (&p.top, &p.rules, &p.extras, &p.externals);
    let (override_rules, override_lexemes) = (&p.override_rules, &p.override_lexemes);
    let lang = top_map
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("grammar")
        .to_string();
    let overridden: HashMap<&str, (&str, usize)> = override_rules
        .iter()
        .map(|(n, t, from)| (n.as_str(), (t.as_str(), *from)))
        .collect();
    // Where each override's text went in the output: (output offset, length, offset in the
    // overrides file, rule name), so that errors in it point into the overrides file.
    let mut placed: Vec<(usize, usize, usize, String)> = Vec::new();
    let mut directive_lines: Vec<(usize, usize, usize)> = Vec::new();
    let mut place = |text: &mut String, name: &str, (ov, from): (&str, usize)| {
        placed.push((text.len(), ov.len(), from, name.to_string()));
        text.push_str(ov);
        text.push('\n');
    };

    let mut conv = Conv {
        file: file.clone(),
        rules: rules.iter().map(|(n, v)| (n.as_str(), v)).collect(),
        lexical: rules.iter().map(|(n, v)| (n.as_str(), lexical_kind(v))).collect(),
        token_rules: HashSet::new(),
        externals: HashMap::new(),
        names: HashMap::new(),
        taken: HashSet::new(),
        gap: String::new(),
        aliases: HashMap::new(),
        pending: Vec::new(),
        notes: Vec::new(),
    };
    for (name, _) in rules {
        let out = conv.fresh(&sanitize(name));
        conv.names.insert(name.clone(), out);
    }
    conv.gap = conv.fresh("_");
    let extra_name = conv.fresh("_extra");
    for (i, e) in externals_json.iter().enumerate() {
        let path = format!("externals[{i}]");
        match e.get("type").and_then(Value::as_str) {
            Some("SYMBOL") => {
                let Some(name) = e.get("name").and_then(Value::as_str) else {
                    return Err(invalid(
                        &format!("{path}.name"),
                        "a SYMBOL needs a string `name`".into(),
                    ));
                };
                if !conv.rules.contains_key(name) && !conv.externals.contains_key(name) {
                    let out = conv.fresh(&sanitize(name));
                    conv.externals.insert(name.to_string(), out);
                }
            }
            // A string or pattern external is just that token; the rules use it as such.
            Some("STRING" | "PATTERN" | "TOKEN" | "IMMEDIATE_TOKEN") => {}
            Some(other) => return Err(invalid(&path, format!("unexpected external of type `{other}`"))),
            None => return Err(invalid(&path, "an external needs a string `type`".into())),
        }
    }
    // Rules the extras reach are tokens: the layout has no layout inside.
    let mut stack: Vec<&Value> = extras.iter().collect();
    while let Some(v) = stack.pop() {
        if let Some(name) = symbol_name(v) {
            if let Some((n, r)) = conv.rules.get_key_value(name) {
                if conv.token_rules.insert(n) {
                    stack.push(r);
                }
            }
        }
        stack.extend(children(v));
    }

    let mut text = String::new();
    let krate = source.krate.as_ref();
    let origin = match krate {
        Some(k) => format!("{} {}", k.name, k.version),
        None => source
            .path
            .file_name()
            .map_or(file.clone(), |f| f.to_string_lossy().into_owned()),
    };
    let licence = krate
        .and_then(|k| k.license.clone())
        .unwrap_or_else(|| "not stated".into());
    let import_arg = match (krate, &source.subfolder) {
        (Some(k), Some(sub)) => format!("{}/{sub}", k.name),
        (Some(k), None) => k.name.clone(),
        (None, _) => "path/to/grammar.json".to_string(),
    };
    let json_in = match &source.subfolder {
        Some(sub) => format!("{sub}/src/grammar.json"),
        None => "src/grammar.json".to_string(),
    };
    let ov_arg = overrides.map_or(String::new(), |o| format!(" --externals {}", o.name));
    let _ = writeln!(
        text,
        "# The `{lang}` grammar, imported by `hellfuzz import` from {origin} ({json_in}, licence {licence})."
    );
    let _ = writeln!(
        text,
        "# Edit the overrides file rather than this one, then import again:"
    );
    let _ = writeln!(text, "#   hellfuzz import {import_arg}{ov_arg} -o {lang}.grammar");
    let _ = writeln!(
        text,
        "# Layout: tree-sitter skips its `extras` (whitespace, comments) before any token; here that is"
    );
    let _ = writeln!(
        text,
        "# the rule `{}` written before each token (none before an immediate token) and at the end;",
        conv.gap
    );
    let _ = writeln!(
        text,
        "# an external token's definition (overrides file) starts with `{}` where layout may precede it.",
        conv.gap
    );
    let _ = writeln!(
        text,
        "# `%layout` makes generation and reduction keep tokens apart where they would lex as one."
    );
    // tree-sitter's `word` rule lexes every keyword and name, and a name that spells a keyword
    // the parser expects there is that keyword: `%word`.
    let word: Option<String> = top_map
        .get("word")
        .and_then(Value::as_str)
        .and_then(|w| conv.names.get(w).cloned())
        .filter(|w| !skip.contains(w));
    if word.is_some() {
        let _ = writeln!(
            text,
            "# `%word`: keyword extraction by tree-sitter's `word` rule (a name that spells a keyword"
        );
        let _ = writeln!(text, "# expected there is read as that keyword).");
    }
    let _ = writeln!(
        text,
        "# Numbered precedences are kept on the alternatives they wrap (`@left(N)` and the like: they"
    );
    let _ = writeln!(
        text,
        "# choose among parses). Left out, as they do not change the language: named and dynamic"
    );
    let _ = writeln!(
        text,
        "# precedences, precedences inside a sequence, conflicts, inline, supertypes, reserved words."
    );
    let _ = writeln!(text, "%layout {} ;", conv.gap);
    if let Some(word) = &word {
        let _ = writeln!(text, "%word {word} ;");
    }
    let mut lexemes: Vec<String> = override_lexemes.clone();
    lexemes.retain(|l| !skip.contains(l) && Some(l) != word.as_ref());
    if !lexemes.is_empty() {
        let _ = writeln!(text, "%lexeme {} ;", lexemes.join(" "));
    }
    let mut spans: Vec<(usize, String)> = Vec::new();

    if !skip.is_empty() {
        let mut left_out: Vec<&String> = skip.iter().collect();
        left_out.sort();
        let names: Vec<String> = left_out.iter().map(|n| format!("`{n}`")).collect();
        let _ = writeln!(
            text,
            "# Left out, as the start rule cannot reach them: {}.",
            names.join(", ")
        );
    }
    for (i, (name, body)) in rules.iter().enumerate() {
        let out_name = conv.names[name].clone();
        if skip.contains(&out_name) {
            continue;
        }
        text.push('\n');
        spans.push((text.len(), format!("rules.{name}")));
        if let Some(&ov) = overridden.get(out_name.as_str()) {
            let _ = writeln!(
                text,
                "# `{out_name}`: from {}, replacing the imported rule.",
                overrides.map_or("", |o| o.name)
            );
            place(&mut text, &out_name, ov);
        } else {
            let path = format!("rules.{name}");
            let mode = if conv.token_rules.contains(name.as_str()) || conv.lexical[name.as_str()] != Lexical::No {
                Mode::Token
            } else {
                Mode::Syntactic
            };
            if conv.token_rules.contains(name.as_str()) && conv.lexical[name.as_str()] == Lexical::No {
                let note = format!("`{out_name}` is used in `extras`: converted without layout inside it");
                let _ = writeln!(text, "# Approximation: {note}.");
                conv.notes.push(note);
            }
            let mut e = conv.expr(body, &path, mode)?;
            if i == 0 {
                e = Expr::seq(vec![e, Expr::Ref(conv.gap.clone())]);
            }
            let _ = writeln!(text, "{out_name} = {} ;", e.print_rule_body());
        }
        // A left-out rule is not converted, so it makes no aliases; skipping aliases by name would
        // be wrong, as their numbering differs once rules are left out.
        for (alias, e) in std::mem::take(&mut conv.pending) {
            spans.push((text.len(), format!("rules.{name} (alias `{alias}`)")));
            let _ = writeln!(text, "{alias} = {} ;", e.print_rule_body());
        }
    }

    // The layout: extras, repeated, or the overrides file's own `_`.
    text.push('\n');
    spans.push((text.len(), "extras".into()));
    if let Some(&ov) = overridden.get(conv.gap.as_str()) {
        let _ = writeln!(
            text,
            "# `{}`: the layout, from {}, replacing the imported extras.",
            conv.gap,
            overrides.map_or("", |o| o.name)
        );
        place(&mut text, &conv.gap, ov);
    } else {
        let _ = writeln!(text, "# Layout (tree-sitter's `extras`).");
        let _ = writeln!(text, "{} = {}* ;", conv.gap, extra_name);
    }
    if skip.contains(&extra_name) {
        // The overrides file's `_` does not use the extras.
    } else if let Some(&ov) = overridden.get(extra_name.as_str()) {
        let _ = writeln!(
            text,
            "# `{extra_name}`: from {}, replacing the imported extras.",
            overrides.map_or("", |o| o.name)
        );
        place(&mut text, &extra_name, ov);
    } else {
        let mut parts = Vec::new();
        for (i, e) in extras.iter().enumerate() {
            parts.push(conv.expr(e, &format!("extras[{i}]"), Mode::Token)?);
        }
        let _ = writeln!(text, "{extra_name} = {} ;", Expr::alt(parts).print_rule_body());
        for (alias, e) in std::mem::take(&mut conv.pending) {
            let _ = writeln!(text, "{alias} = {} ;", e.print_rule_body());
        }
    }

    // Externals, from the overrides file, or declared so that `check` says where to define them.
    let mut undefined = Vec::new();
    let mut defined = Vec::new();
    if !conv.externals.is_empty() {
        text.push('\n');
        let _ = writeln!(
            text,
            "# External tokens (tree-sitter's C scanner makes them): defined by the overrides file."
        );
        for e in externals_json {
            let Some(name) = symbol_name(e) else { continue };
            let Some(out) = conv.externals.get(name) else { continue };
            if skip.contains(out) {
                continue;
            }
            spans.push((text.len(), format!("externals ({name})")));
            match overridden.get(out.as_str()) {
                Some(&ov) => {
                    place(&mut text, out, ov);
                    defined.push(out.clone());
                }
                None => undefined.push(out.clone()),
            }
        }
        // Declared: an undefined one gets a message saying where to define it, and the layout
        // inside a defined one may end between its lexemes (the scanner sees them first).
        let all: Vec<String> = defined.iter().chain(&undefined).cloned().collect();
        if !all.is_empty() {
            let _ = writeln!(text, "%external {} ;", all.join(" "));
        }
    }
    // Helper rules of the overrides file.
    let known: HashSet<&str> = conv
        .names
        .values()
        .chain(conv.externals.values())
        .map(String::as_str)
        .chain([conv.gap.as_str(), extra_name.as_str()])
        .collect();
    let helpers: Vec<&(String, String, usize)> = override_rules
        .iter()
        .filter(|(n, _, _)| !known.contains(n.as_str()) && !skip.contains(n))
        .collect();
    if !helpers.is_empty() {
        text.push('\n');
        let _ = writeln!(text, "# Helper rules of {}.", overrides.map_or("", |o| o.name));
        for (n, t, from) in helpers {
            spans.push((text.len(), "the overrides file".into()));
            place(&mut text, n, (t, *from));
        }
    }
    // The overrides file's symbol tables, without the rules left out.
    if !p.override_tables.is_empty() {
        text.push('\n');
        let _ = writeln!(text, "# Symbol tables of {}.", overrides.map_or("", |o| o.name));
        for (directive, names, from) in &p.override_tables {
            let literals = directive == "separate" || directive == "never";
            let kept: Vec<String> = names
                .iter()
                .filter(|n| literals || !skip.contains(*n))
                .map(|n| {
                    if literals || n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        n.clone()
                    } else {
                        format!("`{n}`")
                    }
                })
                .collect();
            // Without its first rule (the name or reference) the line means nothing.
            if !literals && names.first().is_some_and(|n| skip.contains(n)) || kept.len() < 2 {
                continue;
            }
            spans.push((text.len(), "the overrides file".into()));
            let line = format!("%{directive} {} ;\n", kept.join(" "));
            // Errors in it point at the directive in the overrides file.
            directive_lines.push((text.len(), line.len(), *from));
            text.push_str(&line);
        }
    }

    // The result must load (but for undefined externals, which `check` reports).
    if let Err(err) = Grammar::from_text(&text, "<import>") {
        let first = err.diagnostics.iter().find(|d| {
            d.severity == Severity::Error
                && !undefined
                    .iter()
                    .any(|u| d.message.starts_with(&format!("undefined symbol `{u}`")))
        });
        if let (Some(d), true) = (first, check) {
            // An error inside an override's text is the overrides file's: say where in it.
            let off = d.span.offset;
            if let (Some(ov), Some((start, _, from, rule))) = (
                overrides,
                placed
                    .iter()
                    .find(|(start, len, _, _)| *start <= off && off < start + len),
            ) {
                let mut message = d.message.clone();
                if let Some(undefined) = undefined_name(&d.message) {
                    if let Some((origin, definition)) = helper_origin(p, undefined) {
                        message = format!(
                            "undefined symbol `{undefined}`: `{undefined}` is a helper rule the import makes \
                             from the imported rule `{origin}`, and this file replaces `{origin}`{}, so the \
                             helper is not made; define it in {} (the import's definition was \
                             `{}`) or do not reference it",
                            if origin == *rule {
                                String::new()
                            } else {
                                format!(" (used here in `{rule}`)")
                            },
                            ov.name,
                            definition.trim_end()
                        );
                    }
                }
                let mut sink = crate::grammar::Sink {
                    file: ov.name.to_string(),
                    items: Vec::new(),
                };
                sink.error(crate::grammar::Span::at(ov.text, from + (off - start)), message);
                return Err(ImportError::Overrides {
                    error: crate::grammar::GrammarError {
                        diagnostics: sink.sorted(),
                    },
                });
            }
            if let (Some(ov), Some((_, _, from))) = (
                overrides,
                directive_lines
                    .iter()
                    .find(|(start, len, _)| *start <= off && off < start + len),
            ) {
                let mut sink = crate::grammar::Sink {
                    file: ov.name.to_string(),
                    items: Vec::new(),
                };
                sink.error(crate::grammar::Span::at(ov.text, *from), d.message.clone());
                return Err(ImportError::Overrides {
                    error: crate::grammar::GrammarError {
                        diagnostics: sink.sorted(),
                    },
                });
            }
            let at = spans
                .iter()
                .rev()
                .find(|(start, _)| *start <= d.span.offset)
                .map_or("rules".to_string(), |(_, p)| p.clone());
            return Err(invalid(
                &at,
                format!("the converted rule is not a usable grammar rule: {}", d.message),
            ));
        }
    }
    Ok((
        Imported {
            text,
            notes: conv.notes,
            undefined_externals: undefined,
        },
        spans,
    ))
}

/// The name in a loader message `undefined symbol `NAME`...`.
fn undefined_name(message: &str) -> Option<&str> {
    message.strip_prefix("undefined symbol `")?.split('`').next()
}

/// Where the plain import (no overrides) defines `name` as a helper of another rule (a named
/// alias): that rule's tree-sitter name and the helper's definition line.
fn helper_origin(p: &Prepared<'_>, name: &str) -> Option<(String, String)> {
    let plain = Prepared {
        source: p.source,
        overrides: None,
        file: p.file.clone(),
        top: p.top.clone(),
        rules: p.rules.clone(),
        extras: p.extras.clone(),
        externals: p.externals.clone(),
        override_rules: Vec::new(),
        override_lexemes: Vec::new(),
        override_tables: Vec::new(),
    };
    let (imported, spans) = render(&plain, &HashSet::new(), false).ok()?;
    let prefix = format!("{name} = ");
    let at = imported
        .text
        .match_indices(&prefix)
        .find(|(i, _)| *i == 0 || imported.text.as_bytes()[i - 1] == b'\n')?
        .0;
    let (_, path) = spans.iter().rev().find(|(start, _)| *start <= at)?;
    let origin = sanitize(path.strip_prefix("rules.")?.split(' ').next()?);
    if origin == name || !p.override_rules.iter().any(|(n, _, _)| *n == origin) {
        return None;
    }
    let line = imported.text[at..].lines().next()?.to_string();
    Some((origin, line))
}

/// `rule` text from `start..end` of `text` with the comment lines right above it, and where
/// that text starts.
fn with_leading_comments(text: &str, start: usize, end: usize) -> (usize, String) {
    let mut from = start;
    let before = &text[..start];
    let mut lines: Vec<&str> = before.split('\n').collect();
    lines.pop(); // the part of the rule's own line before it
    let mut taken = 0;
    for line in lines.iter().rev() {
        if line.trim_start().starts_with('#') {
            taken += line.len() + 1;
        } else {
            break;
        }
    }
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    if taken > 0 && before[line_start..].trim().is_empty() {
        from = line_start - taken;
    }
    (from, text[from..end].to_string())
}

fn symbol_name(v: &Value) -> Option<&str> {
    (v.get("type")?.as_str()? == "SYMBOL").then(|| v.get("name")?.as_str())?
}

fn children(v: &Value) -> Vec<&Value> {
    let mut out: Vec<&Value> = v
        .get("members")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    if let Some(c) = v.get("content") {
        out.push(c);
    }
    out
}

/// Whether a rule body is one token (tree-sitter lexes it as a whole).
fn lexical_kind(mut v: &Value) -> Lexical {
    loop {
        match v.get("type").and_then(Value::as_str) {
            Some("PREC" | "PREC_LEFT" | "PREC_RIGHT" | "PREC_DYNAMIC" | "FIELD" | "RESERVED" | "ALIAS") => {
                match v.get("content") {
                    Some(c) => v = c,
                    None => return Lexical::No,
                }
            }
            Some("STRING" | "PATTERN" | "TOKEN") => return Lexical::Token,
            Some("IMMEDIATE_TOKEN") => return Lexical::Immediate,
            _ => return Lexical::No,
        }
    }
}

/// A valid grammar-format name for a tree-sitter name.
fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, '_');
    }
    s
}

impl<'a> Conv<'a> {
    /// `base`, or `base_2`, `base_3`, ... whichever is not taken yet; marks it taken.
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.taken.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.taken.insert(name.clone());
        name
    }

    fn invalid(&self, path: &str, message: String) -> ImportError {
        ImportError::Invalid {
            path: self.file.clone(),
            json_path: path.to_string(),
            message,
        }
    }

    fn str_field<'v>(&self, v: &'v Value, field: &str, path: &str, ty: &str) -> Result<&'v str, ImportError> {
        v.get(field)
            .and_then(Value::as_str)
            .ok_or_else(|| self.invalid(path, format!("a {ty} needs a string `{field}`")))
    }

    fn content<'v>(&self, v: &'v Value, path: &str, ty: &str) -> Result<&'v Value, ImportError> {
        v.get("content")
            .ok_or_else(|| self.invalid(path, format!("a {ty} needs a `content` rule")))
    }

    fn members<'v>(&self, v: &'v Value, path: &str, ty: &str) -> Result<&'v Vec<Value>, ImportError> {
        v.get("members")
            .and_then(Value::as_array)
            .ok_or_else(|| self.invalid(path, format!("a {ty} needs a `members` array")))
    }

    /// Layout before a token in syntactic mode. A token of several pieces is grouped, so that
    /// the item after the layout is the whole token (the parser matches it longest-first).
    fn token(&self, e: Expr, mode: Mode) -> Expr {
        match mode {
            Mode::Syntactic => {
                let e = match e {
                    Expr::Seq(_) => Expr::Group(Box::new(e)),
                    e => e,
                };
                Expr::seq(vec![Expr::Ref(self.gap.clone()), e])
            }
            Mode::Token => e,
        }
    }

    /// Converts one rule node. Nesting is bounded by serde_json's recursion limit (128), so the
    /// recursion here is too.
    fn expr(&mut self, v: &'a Value, path: &str, mode: Mode) -> Result<Expr, ImportError> {
        let Some(ty) = v.get("type").and_then(Value::as_str) else {
            return Err(self.invalid(
                path,
                "a rule needs a string `type` (SEQ, CHOICE, SYMBOL, STRING, ...)".into(),
            ));
        };
        Ok(match ty {
            "BLANK" => Expr::Empty,
            "STRING" => {
                let s = self.str_field(v, "value", path, "STRING")?;
                if s.is_empty() {
                    Expr::Empty
                } else {
                    self.token(Expr::Lit(s.as_bytes().to_vec()), mode)
                }
            }
            "PATTERN" => {
                let p = self.str_field(v, "value", path, "PATTERN")?;
                let flags = v.get("flags").and_then(Value::as_str).unwrap_or("");
                let e = pattern::convert(p, flags).map_err(|m| self.invalid(&format!("{path}.value"), m))?;
                self.token(e, mode)
            }
            "SYMBOL" => {
                let name = self.str_field(v, "name", path, "SYMBOL")?;
                if let Some(out) = self.names.get(name) {
                    let r = Expr::Ref(out.clone());
                    match self.lexical[name] {
                        Lexical::Token => self.token(r, mode),
                        _ => r,
                    }
                } else if let Some(out) = self.externals.get(name) {
                    // The C scanner decides whether layout may come first (it sees whitespace
                    // itself), so the definition in the overrides file says so with `_`.
                    Expr::Ref(out.clone())
                } else {
                    return Err(self.invalid(
                        &format!("{path}.name"),
                        format!("refers to `{name}`, which is neither a rule nor an external of this grammar"),
                    ));
                }
            }
            "SEQ" | "CHOICE" => {
                let members = self.members(v, path, ty)?;
                let mut parts = Vec::with_capacity(members.len());
                for (i, m) in members.iter().enumerate() {
                    parts.push(self.expr(m, &format!("{path}.members[{i}]"), mode)?);
                }
                if ty == "SEQ" {
                    Expr::seq(parts)
                } else {
                    Expr::alt(parts)
                }
            }
            "REPEAT" | "REPEAT1" => {
                let c = self.content(v, path, ty)?;
                let inner = self.expr(c, &format!("{path}.content"), mode)?;
                if inner == Expr::Empty {
                    Expr::Empty
                } else {
                    Expr::Rep(Box::new(inner), u32::from(ty == "REPEAT1"), None)
                }
            }
            // A numbered precedence of a syntactic rule chooses among parses: kept on the
            // alternative it wraps. Named ones, dynamic ones and those inside tokens are not.
            "PREC" | "PREC_LEFT" | "PREC_RIGHT" if mode == Mode::Syntactic => {
                let c = self.content(v, path, ty)?;
                let inner = self.expr(c, &format!("{path}.content"), mode)?;
                let assoc = match ty {
                    "PREC_LEFT" => Assoc::Left,
                    "PREC_RIGHT" => Assoc::Right,
                    _ => Assoc::None,
                };
                match v.get("value").and_then(Value::as_i64) {
                    // The innermost precedence is the alternative's.
                    _ if matches!(inner, Expr::Prec(..)) => inner,
                    Some(level) if inner != Expr::Empty => Expr::Prec(
                        Prec {
                            level: level.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
                            assoc,
                        },
                        Box::new(inner),
                    ),
                    _ => inner,
                }
            }
            "FIELD" | "PREC" | "PREC_LEFT" | "PREC_RIGHT" | "PREC_DYNAMIC" | "RESERVED" => {
                let c = self.content(v, path, ty)?;
                self.expr(c, &format!("{path}.content"), mode)?
            }
            "TOKEN" => {
                let c = self.content(v, path, ty)?;
                let inner = self.expr(c, &format!("{path}.content"), Mode::Token)?;
                self.token(inner, mode)
            }
            "IMMEDIATE_TOKEN" => {
                let c = self.content(v, path, ty)?;
                self.expr(c, &format!("{path}.content"), Mode::Token)?
            }
            "ALIAS" => {
                let c = self.content(v, path, ty)?;
                let named = v.get("named").and_then(Value::as_bool).unwrap_or(false);
                let value = self.str_field(v, "value", path, "ALIAS")?;
                if !named {
                    // An anonymous alias renames the node, not the text: the content stays.
                    return self.expr(c, &format!("{path}.content"), mode);
                }
                // A named alias is a rule of that name. A token's layout stays outside it, so
                // the rule is the token alone.
                let lex = match symbol_name(c) {
                    Some(n) => self.lexical.get(n).copied().unwrap_or(Lexical::No),
                    None => lexical_kind(c),
                };
                let inner_mode = if lex == Lexical::No { mode } else { Mode::Token };
                let key = (value.to_string(), c.to_string(), inner_mode == Mode::Token);
                let name = match self.aliases.get(&key) {
                    Some(n) => n.clone(),
                    None => {
                        let n = self.fresh(&sanitize(value));
                        self.aliases.insert(key, n.clone());
                        let body = self.expr(c, &format!("{path}.content"), inner_mode)?;
                        self.pending.push((n.clone(), body));
                        n
                    }
                };
                match lex {
                    Lexical::Token => self.token(Expr::Ref(name), mode),
                    _ => Expr::Ref(name),
                }
            }
            other => {
                return Err(self.invalid(
                    &format!("{path}.type"),
                    format!("unknown rule type `{other}`; tree-sitter's are {}", TYPES.join(", ")),
                ))
            }
        })
    }
}
