//! The calc evaluator fed a typed input: an expression tree that `arbitrary` builds from the
//! fuzzer's bytes, printed as text (structure-aware fuzzing, libfuzzer-sys's `|input: T|` form).
//!
//! Every tree prints to a well-formed expression, so every input reaches the canonical-form pass
//! and its planted bugs (see `fuzz/calc`). A crash is minimized on the raw bytes, each candidate
//! rebuilt into a tree as the fuzzer's input was; the record shows the minimized tree
//! (`scripts/fuzz-campaign-calc-ast`).
#![no_main]

use arbitrary::Arbitrary;

/// An expression; `Num` first, so that a tree whose bytes run out closes with numbers.
#[derive(Debug, Arbitrary)]
enum Expr {
    Num(u8),
    Neg(Box<Expr>),
    Plus(Box<Expr>),
    Group(Box<Expr>),
    Binary(Box<Expr>, Op, Box<Expr>),
}

#[derive(Debug, Arbitrary)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// Prints `expr` without spaces or added parentheses (`Group` is the only source of them).
/// Recursive: a level costs `arbitrary` at least 4 bytes, so libFuzzer's `-max_len` bounds it.
fn print(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Num(n) => out.push_str(&n.to_string()),
        Expr::Neg(e) => {
            out.push('-');
            print(e, out);
        }
        Expr::Plus(e) => {
            out.push('+');
            print(e, out);
        }
        Expr::Group(e) => {
            out.push('(');
            print(e, out);
            out.push(')');
        }
        Expr::Binary(a, op, b) => {
            print(a, out);
            out.push(match op {
                Op::Add => '+',
                Op::Sub => '-',
                Op::Mul => '*',
                Op::Div => '/',
            });
            print(b, out);
        }
    }
}

hellfuzz::fuzz_target!(|expr: Expr| {
    let mut text = String::new();
    print(&expr, &mut text);
    let result = calc::eval(text.as_bytes());
    assert!(
        !matches!(result, Err(calc::Error::Syntax(_))),
        "a printed tree is well-formed: {text:?}"
    );
});
