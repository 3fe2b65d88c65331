//! Tree-sitter `PATTERN`s (JavaScript-style regular expressions) → grammar expressions.
//!
//! The pattern is parsed by `regex-syntax` (the regex crate's parser, with its Unicode tables) and
//! its HIR is rewritten as sequences, choices, repetitions, literals and character classes.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::expr::Expr;
use crate::grammar::CharClass;

/// The largest repetition bound the grammar format accepts (see the grammar loader).
const MAX_BOUND: u32 = 10_000;

/// Converts `pattern` (with tree-sitter's `flags`, e.g. `i`) to an expression, or says what is
/// wrong with it.
pub(crate) fn convert(pattern: &str, flags: &str) -> Result<Expr, String> {
    let js = ascii_shorthands(pattern);
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(true)
        .utf8(true)
        .case_insensitive(flags.contains('i'))
        .build()
        .parse(&js)
        .map_err(|e| {
            format!(
                "regex-syntax rejects the pattern /{pattern}/: {}",
                one_line(&e.to_string())
            )
        })?;
    // Iterative post-order over the HIR: a pattern nested deeply must not overflow our stack.
    enum Step<'h> {
        Enter(&'h Hir),
        Exit(&'h Hir),
    }
    let mut stack = vec![Step::Enter(&hir)];
    let mut done: Vec<Expr> = Vec::new();
    while let Some(step) = stack.pop() {
        match step {
            Step::Enter(h) => {
                stack.push(Step::Exit(h));
                match h.kind() {
                    HirKind::Repetition(r) => stack.push(Step::Enter(&r.sub)),
                    HirKind::Capture(c) => stack.push(Step::Enter(&c.sub)),
                    HirKind::Concat(subs) | HirKind::Alternation(subs) => {
                        stack.extend(subs.iter().rev().map(Step::Enter));
                    }
                    _ => {}
                }
            }
            Step::Exit(h) => {
                let e = match h.kind() {
                    HirKind::Empty => Expr::Empty,
                    HirKind::Literal(lit) => Expr::Lit(lit.0.to_vec()),
                    HirKind::Class(Class::Unicode(c)) => Expr::Class(CharClass::new(
                        &c.ranges()
                            .iter()
                            .map(|r| (r.start() as u32, r.end() as u32))
                            .collect::<Vec<_>>(),
                        false,
                    )),
                    HirKind::Class(Class::Bytes(c)) => Expr::Class(CharClass::new(
                        &c.ranges()
                            .iter()
                            .map(|r| (r.start() as u32, r.end() as u32))
                            .collect::<Vec<_>>(),
                        false,
                    )),
                    HirKind::Look(look) => {
                        return Err(format!(
                            "the pattern /{pattern}/ uses the assertion {look:?} (an anchor or word boundary), \
                             which a context-free grammar cannot express; replace the rule in the overrides file"
                        ))
                    }
                    HirKind::Repetition(r) => {
                        if r.min > MAX_BOUND || r.max.is_some_and(|m| m > MAX_BOUND) {
                            return Err(format!(
                                "the pattern /{pattern}/ repeats more than {MAX_BOUND} times, the grammar format's limit"
                            ));
                        }
                        let sub = done.pop().expect("sub converted");
                        Expr::Rep(Box::new(sub), r.min, r.max)
                    }
                    HirKind::Capture(_) => done.pop().expect("sub converted"),
                    HirKind::Concat(subs) => {
                        let parts = done.split_off(done.len() - subs.len());
                        Expr::seq(parts)
                    }
                    HirKind::Alternation(subs) => {
                        let parts = done.split_off(done.len() - subs.len());
                        Expr::alt(parts)
                    }
                };
                done.push(e);
            }
        }
    }
    Ok(done.pop().unwrap_or(Expr::Empty))
}

/// Tree-sitter patterns are JavaScript regular expressions, where `\d` and `\w` are ASCII
/// (`[0-9]`, `[A-Za-z0-9_]`); regex-syntax's Unicode mode would read them as every script's
/// digits and letters. Rewrites them (and `\D`, `\W` outside classes) to ASCII classes.
fn ascii_shorthands(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut in_class = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('d') if in_class => out.push_str("0-9"),
                Some('d') => out.push_str("[0-9]"),
                Some('w') if in_class => out.push_str("0-9A-Za-z_"),
                Some('w') => out.push_str("[0-9A-Za-z_]"),
                Some('D') if !in_class => out.push_str("[^0-9]"),
                Some('W') if !in_class => out.push_str("[^0-9A-Za-z_]"),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` right after `[` or `[^` is a literal in JavaScript as in regex-syntax.
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}
