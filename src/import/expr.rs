//! The expressions an importer builds, printed as grammar text that a person can read.
//!
//! [`Expr`] mirrors the grammar format's operators; [`Expr::print`] writes it with only the
//! parentheses precedence needs, `x?` for a choice with an empty alternative, and classes in the
//! shorter of their plain and negated forms.

use crate::grammar::{escape_literal, CharClass};

/// A grammar expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    /// The empty string.
    Empty,
    /// Exact bytes.
    Lit(Vec<u8>),
    /// One code point from a class.
    Class(CharClass),
    /// A rule by name.
    Ref(String),
    /// A sequence.
    Seq(Vec<Expr>),
    /// A choice.
    Alt(Vec<Expr>),
    /// `e{min,max}`.
    Rep(Box<Expr>, u32, Option<u32>),
    /// `( e )`, kept as one item: a token made of several pieces, so that it is one symbol.
    Group(Box<Expr>),
    /// An alternative with a precedence (`@left(3) e`): printed where `e` is an alternative of
    /// a rule or its whole body, and left out anywhere else.
    Prec(crate::grammar::Prec, Box<Expr>),
}

impl Expr {
    /// A sequence, flattened, without empty parts.
    pub fn seq(parts: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        for p in parts {
            // A precedence inside a sequence chooses among nothing here.
            let mut p = p;
            while let Expr::Prec(_, inner) = p {
                p = *inner;
            }
            match p {
                Expr::Empty => {}
                Expr::Seq(inner) => out.extend(inner),
                p => out.push(p),
            }
        }
        match out.len() {
            0 => Expr::Empty,
            1 => out.pop().expect("one part"),
            _ => Expr::Seq(out),
        }
    }

    /// A choice, flattened; one alternative is just itself.
    pub fn alt(parts: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Expr::Alt(inner) => out.extend(inner),
                // A precedence over a choice is each alternative's that has none of its own.
                Expr::Prec(prec, inner) if matches!(*inner, Expr::Alt(_)) => {
                    let Expr::Alt(inner) = *inner else { unreachable!() };
                    out.extend(inner.into_iter().map(|a| match a {
                        a @ Expr::Prec(..) => a,
                        a => Expr::Prec(prec, Box::new(a)),
                    }));
                }
                p => out.push(p),
            }
        }
        match out.len() {
            0 => Expr::Empty,
            1 => out.pop().expect("one part"),
            _ => Expr::Alt(out),
        }
    }

    /// The expression as grammar text.
    pub fn print(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Prec::Alt);
        out
    }

    /// The top-level alternatives, one per line when the rule is long; an alternative's
    /// precedence is written before it (`@left(3) a "+" b`), and only there.
    pub fn print_rule_body(&self) -> String {
        match self {
            Expr::Alt(parts) if optional_of(parts).is_none() => {
                let printed: Vec<String> = parts
                    .iter()
                    .map(|p| {
                        let mut s = String::new();
                        match p {
                            Expr::Prec(prec, inner) => {
                                s.push_str(&prec.to_text());
                                inner.write(&mut s, Prec::Seq);
                            }
                            p => p.write(&mut s, Prec::Seq),
                        }
                        s
                    })
                    .collect();
                let total: usize = printed.iter().map(|p| p.len() + 3).sum();
                if total <= 90 {
                    printed.join(" | ")
                } else {
                    format!("\n      {}\n   ", printed.join("\n    | "))
                }
            }
            Expr::Prec(prec, inner) if !matches!(**inner, Expr::Alt(_)) => {
                format!("{}{}", prec.to_text(), inner.print())
            }
            _ => self.print(),
        }
    }

    fn write(&self, out: &mut String, ctx: Prec) {
        match self {
            Expr::Empty => out.push_str("\"\""),
            Expr::Lit(bytes) => {
                out.push('"');
                out.push_str(&escape_literal(bytes));
                out.push('"');
            }
            Expr::Class(class) => out.push_str(&class_text(class)),
            Expr::Ref(name) => out.push_str(name),
            Expr::Group(inner) => {
                out.push_str("( ");
                inner.write(out, Prec::Alt);
                out.push_str(" )");
            }
            Expr::Seq(parts) => {
                let paren = ctx > Prec::Seq;
                if paren {
                    out.push_str("( ");
                }
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    p.write(out, Prec::Postfix);
                }
                if paren {
                    out.push_str(" )");
                }
            }
            Expr::Alt(parts) => {
                if let Some(inner) = optional_of(parts) {
                    // `(x+)?` is `x*`.
                    if let Expr::Rep(sub, 1, None) = inner {
                        return Expr::Rep(sub.clone(), 0, None).write(out, ctx);
                    }
                    inner.write(out, Prec::Atom);
                    out.push('?');
                    return;
                }
                let paren = ctx > Prec::Alt;
                if paren {
                    out.push_str("( ");
                }
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" | ");
                    }
                    p.write(out, Prec::Seq);
                }
                if paren {
                    out.push_str(" )");
                }
            }
            // Written by `print_rule_body` where it is a rule's alternative; nowhere else.
            Expr::Prec(_, inner) => inner.write(out, ctx),
            Expr::Rep(sub, 0, Some(1)) if matches!(**sub, Expr::Rep(_, 1, None)) => {
                let Expr::Rep(inner, ..) = &**sub else { unreachable!() };
                Expr::Rep(inner.clone(), 0, None).write(out, ctx)
            }
            Expr::Rep(sub, min, max) => {
                sub.write(out, Prec::Atom);
                match (min, max) {
                    (0, Some(1)) => out.push('?'),
                    (0, None) => out.push('*'),
                    (1, None) => out.push('+'),
                    (n, None) => out.push_str(&format!("{{{n},}}")),
                    (n, Some(m)) if n == m => out.push_str(&format!("{{{n}}}")),
                    (n, Some(m)) => out.push_str(&format!("{{{n},{m}}}")),
                }
            }
        }
    }
}

/// `x | ""` or `"" | x`: printed `x?`.
fn optional_of(parts: &[Expr]) -> Option<&Expr> {
    match parts {
        [Expr::Empty, x] | [x, Expr::Empty] if *x != Expr::Empty => Some(x),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Alt,
    Seq,
    Postfix,
    Atom,
}

/// A class as the grammar format writes it, negated when that is shorter (`[^"\\\n]`).
pub(crate) fn class_text(class: &CharClass) -> String {
    let all = CharClass::any();
    if *class == all {
        return ".".to_string();
    }
    let ranges = class.ranges();
    let complement = CharClass::new(ranges, true);
    if !complement.is_empty() && complement.ranges().len() < ranges.len() {
        return format!("[^{}]", ranges_text(complement.ranges()));
    }
    format!("[{}]", ranges_text(ranges))
}

fn ranges_text(ranges: &[(u32, u32)]) -> String {
    let mut out = String::new();
    for &(lo, hi) in ranges {
        out.push_str(&class_char(lo));
        if hi > lo {
            if hi > lo + 1 {
                out.push('-');
            }
            out.push_str(&class_char(hi));
        }
    }
    out
}

/// One code point inside `[...]`: printable ASCII as is (escaping `] [ - ^ \`), the usual
/// escapes for whitespace, `\xHH` for other ASCII controls and `\u{H}` beyond ASCII.
fn class_char(c: u32) -> String {
    match char::from_u32(c) {
        Some(ch @ (']' | '[' | '-' | '^' | '\\')) => format!("\\{ch}"),
        Some('\n') => "\\n".into(),
        Some('\r') => "\\r".into(),
        Some('\t') => "\\t".into(),
        Some(ch) if (' '..='~').contains(&ch) => ch.to_string(),
        _ if c < 0x80 => format!("\\x{c:02X}"),
        _ => format!("\\u{{{c:X}}}"),
    }
}
