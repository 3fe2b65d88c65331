//! Lowering of the syntax tree into the IR: name resolution, synthetic symbols, interned terminals.
//!
//! Named rules keep their file order as symbol ids 0..n; each group or repetition becomes a synthetic
//! symbol `rule.N`. Undefined names, duplicate rules and bad weights are reported here.

use std::collections::HashMap;

use super::diag::{Sink, Span};
use super::syntax::{AltAst, ExprAst, Quant, RuleAst};
use super::{Alternative, Body, Item, Symbol, SymbolId, Terminal, TerminalId};

/// Weights may be printed rounded to 0.1% (33.3% three times): sums within 0.5% plus 0.05% per
/// weighted alternative of 100% are accepted.
fn weight_tolerance(weighted: usize) -> f64 {
    0.5 + 0.05 * weighted as f64
}

/// Lowers `rules` into symbols and terminals. Returns `None` only when nothing usable remains;
/// callers must still check `sink` for errors.
pub(crate) fn lower(rules: &[RuleAst], externals: &[&str], sink: &mut Sink) -> Option<(Vec<Symbol>, Vec<Terminal>)> {
    if rules.is_empty() {
        return None;
    }
    let mut names: HashMap<&str, (SymbolId, Span)> = HashMap::new();
    let mut defined: Vec<&RuleAst> = Vec::new();
    for rule in rules {
        if let Some((_, first)) = names.get(rule.name.as_str()) {
            sink.error(
                rule.span,
                format!(
                    "duplicate rule `{}` (first defined at line {}, column {}); merge the alternatives into one rule",
                    rule.name, first.line, first.col
                ),
            );
            continue;
        }
        names.insert(&rule.name, (SymbolId(defined.len() as u32), rule.span));
        defined.push(rule);
    }
    let mut lowerer = Lowerer {
        names,
        symbols: defined
            .iter()
            .map(|r| Symbol {
                name: r.name.clone(),
                body: Body::Choice(Vec::new()),
                span: r.span,
                synthetic: false,
            })
            .collect(),
        terminals: Vec::new(),
        interned: HashMap::new(),
        sink,
        externals,
        rule_name: String::new(),
        group_counter: 0,
    };
    for (i, rule) in defined.iter().enumerate() {
        lowerer.rule_name = rule.name.clone();
        lowerer.group_counter = 0;
        lowerer.symbols[i].body = lowerer.rule_body(&rule.alts);
    }
    Some((lowerer.symbols, lowerer.terminals))
}

#[derive(PartialEq, Eq, Hash)]
enum TerminalKey {
    Literal(Vec<u8>),
    Class(Vec<(u32, u32)>),
}

struct Lowerer<'a, 's> {
    names: HashMap<&'a str, (SymbolId, Span)>,
    symbols: Vec<Symbol>,
    terminals: Vec<Terminal>,
    interned: HashMap<TerminalKey, TerminalId>,
    sink: &'s mut Sink,
    /// Names declared `%external`: their undefined-symbol message says where to define them.
    externals: &'a [&'a str],
    rule_name: String,
    group_counter: u32,
}

impl Lowerer<'_, '_> {
    /// A rule's body. A rule that is exactly one repetition (`ws = [ \t]* ;`) is that repetition,
    /// so its node is the repetition itself rather than a rule node wrapping a synthetic one.
    fn rule_body(&mut self, alts: &[AltAst]) -> Body {
        if let [AltAst {
            weight: None,
            prec: None,
            items,
            ..
        }] = alts
        {
            if let [ExprAst::Postfix(inner, Quant { min, max }, _)] = items.as_slice() {
                if (*min, *max) != (1, Some(1)) {
                    if let Some(item) = self.expr(inner) {
                        return postfix_body(item, *min, *max);
                    }
                }
            }
        }
        Body::Choice(self.alternatives(alts))
    }

    fn alternatives(&mut self, alts: &[AltAst]) -> Vec<Alternative> {
        self.check_weights(alts);
        alts.iter()
            .map(|alt| Alternative {
                items: alt.items.iter().filter_map(|e| self.expr(e)).collect(),
                weight: alt.weight.map(|(w, _)| w),
                prec: alt.prec,
                span: alt.span,
            })
            .collect()
    }

    fn check_weights(&mut self, alts: &[AltAst]) {
        let given: f64 = alts.iter().filter_map(|a| a.weight.map(|(w, _)| w)).sum();
        let Some(first) = alts.iter().find_map(|a| a.weight.map(|(_, s)| s)) else {
            return;
        };
        let tolerance = weight_tolerance(alts.iter().filter(|a| a.weight.is_some()).count());
        if given > 100.0 + tolerance {
            self.sink.error(
                first,
                format!("the weights of these alternatives add up to {given}%, more than 100%"),
            );
        } else if alts.iter().all(|a| a.weight.is_some()) && given < 100.0 - tolerance {
            self.sink.warning(
                first,
                format!(
                    "the weights of these alternatives add up to {given}%, not 100%; they are used as relative weights"
                ),
            );
        }
    }

    /// Lowers one item; `None` means it derives only the empty string (and is left out).
    fn expr(&mut self, e: &ExprAst) -> Option<Item> {
        match e {
            ExprAst::Literal(bytes) if bytes.is_empty() => None,
            ExprAst::Literal(bytes) => {
                Some(Item::Terminal(self.intern(TerminalKey::Literal(bytes.clone()), || {
                    Terminal::Literal(bytes.clone())
                })))
            }
            ExprAst::Class { class, text, .. } => {
                let key = TerminalKey::Class(class.ranges().to_vec());
                Some(Item::Terminal(self.intern(key, || Terminal::Class {
                    class: class.clone(),
                    text: text.clone(),
                })))
            }
            ExprAst::Ref(name, span) => match self.names.get(name.as_str()) {
                Some(&(id, _)) => Some(Item::Symbol(id)),
                None if self.externals.contains(&name.as_str()) => {
                    self.sink.error(
                        *span,
                        format!(
                            "undefined symbol `{name}`: an external token of the imported grammar (its C \
                             scanner makes it, so the import cannot); define `{name} = ... ;` in the \
                             overrides file and import again with `hellfuzz import SOURCE --externals FILE`"
                        ),
                    );
                    None
                }
                None => {
                    let hint = self
                        .suggestion(name)
                        .map(|s| format!("; did you mean `{s}`?"))
                        .unwrap_or_else(|| "; define it with `name = ... ;`".into());
                    self.sink.error(*span, format!("undefined symbol `{name}`{hint}"));
                    None
                }
            },
            ExprAst::Group(alts, span) => {
                // Plain parentheses around one item are just grouping; they get no node of their own.
                if let [only] = alts.as_slice() {
                    if only.weight.is_none() && only.items.len() <= 1 {
                        return only.items.first().and_then(|i| self.expr(i));
                    }
                }
                let id = self.synthetic(*span);
                let lowered = self.alternatives(alts);
                self.symbols[id.index()].body = Body::Choice(lowered);
                Some(Item::Symbol(id))
            }
            // Contexts and exclusions are expanded before lowering (`context`, `exclude`).
            ExprAst::Call(_, span, _) | ExprAst::Except(_, _, span) => {
                self.sink.error(
                    *span,
                    "internal error: an unexpanded context or exclusion reached lowering",
                );
                None
            }
            ExprAst::Postfix(inner, Quant { min, max }, span) => {
                // Repeating the empty string is the empty string: `?` lets it vanish.
                let item = self.expr(inner)?;
                if (*min, *max) == (1, Some(1)) {
                    return Some(item);
                }
                let id = self.synthetic(*span);
                self.symbols[id.index()].body = postfix_body(item, *min, *max);
                Some(Item::Symbol(id))
            }
        }
    }

    fn synthetic(&mut self, span: Span) -> SymbolId {
        self.group_counter += 1;
        let id = SymbolId(self.symbols.len() as u32);
        self.symbols.push(Symbol {
            name: format!("{}.{}", self.rule_name, self.group_counter),
            body: Body::Choice(Vec::new()),
            span,
            synthetic: true,
        });
        id
    }

    fn intern(&mut self, key: TerminalKey, make: impl FnOnce() -> Terminal) -> TerminalId {
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        let id = TerminalId(self.terminals.len() as u32);
        self.terminals.push(make());
        self.interned.insert(key, id);
        id
    }

    /// A defined name close to `name` (case-insensitive equal, or within edit distance 2).
    fn suggestion(&self, name: &str) -> Option<String> {
        let lower = name.to_ascii_lowercase();
        let mut best: Option<(usize, &str)> = None;
        for candidate in self.names.keys() {
            let d = if candidate.to_ascii_lowercase() == lower {
                0
            } else {
                edit_distance(&lower, &candidate.to_ascii_lowercase())
            };
            if d <= 2 && best.is_none_or(|(bd, bc)| (d, *candidate) < (bd, bc)) {
                best = Some((d, candidate));
            }
        }
        best.map(|(_, c)| c.to_string())
    }
}

/// The body of `item` under a postfix operator: `?` is an optional, anything else a repetition.
fn postfix_body(item: Item, min: u32, max: Option<u32>) -> Body {
    if (min, max) == (0, Some(1)) {
        Body::Optional(item)
    } else {
        Body::Repeat { item, min, max }
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
