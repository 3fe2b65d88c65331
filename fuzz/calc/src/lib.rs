//! A small integer expression evaluator: the language of hellfuzz's built-in `expr` grammar
//! (integers, `+ - * /`, unary `+`/`-`, parentheses, whitespace), evaluated with checked `i64`
//! arithmetic by an operator-precedence (shunting-yard) loop.
//!
//! **It has a planted bug**, the subject of hellfuzz's fuzzing walk-through. A run of prefix signs
//! (`- - + -3`) has a canonical form in which repeats of one sign collapse; after a successful
//! evaluation, each change of sign is recorded in a fixed buffer of [`SIGN_FLIPS`] entries,
//! because "nobody writes more than a few sign flips". Nothing checks the buffer's end, so a
//! *valid* expression with a run of twelve alternating signs indexes past it. Inputs from hell
//! (rare alternatives, such as unary signs, chosen often; always valid) reach it; byte mutation
//! of ordinary samples must build twelve alternations and keep the whole expression valid.

use std::fmt;

/// Sign changes one prefix run may hold. (The bug: nothing checks it.)
pub const SIGN_FLIPS: usize = 11;

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Not an expression of the language; the byte offset of the problem.
    Syntax(usize),
    /// A literal or an intermediate result does not fit `i64`.
    Overflow,
    /// Division by zero.
    DivisionByZero,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Syntax(at) => write!(f, "syntax error at byte {at}"),
            Error::Overflow => f.write_str("integer overflow"),
            Error::DivisionByZero => f.write_str("division by zero"),
        }
    }
}

impl std::error::Error for Error {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    /// A run of `n` unary minus signs.
    Neg(u32),
    Open,
}

impl Op {
    fn precedence(self) -> u8 {
        match self {
            Op::Add | Op::Sub => 1,
            Op::Mul | Op::Div => 2,
            Op::Neg(_) => 3,
            Op::Open => 0,
        }
    }
}

/// The operator stack.
struct OpStack {
    ops: Vec<Op>,
}

impl OpStack {
    fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    fn pop(&mut self) -> Option<Op> {
        self.ops.pop()
    }

    fn top(&self) -> Option<Op> {
        self.ops.last().copied()
    }
}

/// Folds the run of prefix signs starting at `i` (whitespace between them allowed) into one
/// operator; returns it (`None` for an even number of minus signs) and the offset after the run.
fn fold_signs(input: &[u8], mut i: usize) -> (Option<Op>, usize) {
    let mut minus = 0u32;
    while i < input.len() {
        match input[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b'+' => {}
            b'-' => minus += 1,
            _ => break,
        }
        i += 1;
    }
    (if minus % 2 == 1 { Some(Op::Neg(1)) } else { None }, i)
}

/// The canonical sign runs of a *valid* expression (what its pretty-printer keeps): each run of
/// prefix signs as its sign changes, e.g. `- - + -` → `-+-`. The longest run's changes are
/// counted into a fixed buffer of [`SIGN_FLIPS`] entries.
fn longest_sign_run(input: &[u8]) -> usize {
    let mut flips = [0u8; SIGN_FLIPS];
    let mut longest = 0;
    let mut runs = 0;
    let mut expect_operand = true;
    for &b in input {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'+' | b'-' if expect_operand => {
                if runs == 0 || flips[runs - 1] != b {
                    flips[runs] = b;
                    runs += 1;
                }
            }
            b'+' | b'-' | b'*' | b'/' | b'(' => {
                expect_operand = true;
                runs = 0;
            }
            _ => {
                expect_operand = false;
                longest = longest.max(runs);
                runs = 0;
            }
        }
    }
    longest
}

/// Evaluates an expression.
///
/// ```
/// assert_eq!(calc::eval(b"1 + (2 * 3)"), Ok(7));
/// assert_eq!(calc::eval(b"-(7 / 2) - -1"), Ok(-2));
/// assert!(calc::eval(b"1 +").is_err());
/// ```
pub fn eval(input: &[u8]) -> Result<i64, Error> {
    let value = evaluate(input)?;
    // The canonical form is only computed for expressions that have a value.
    let _ = std::hint::black_box(longest_sign_run(input));
    Ok(value)
}

fn evaluate(input: &[u8]) -> Result<i64, Error> {
    let mut ops = OpStack { ops: Vec::new() };
    let mut values: Vec<i64> = Vec::new();
    // Whether the next token must be an operand (or a prefix operator / parenthesis).
    let mut expect_operand = true;
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'0'..=b'9' if expect_operand => {
                let start = i;
                while i < input.len() && input[i].is_ascii_digit() {
                    i += 1;
                }
                let digits = std::str::from_utf8(&input[start..i]).expect("ASCII digits");
                values.push(digits.parse().map_err(|_| Error::Overflow)?);
                expect_operand = false;
            }
            b'(' if expect_operand => {
                ops.push(Op::Open);
                i += 1;
            }
            b'-' | b'+' if expect_operand => {
                let (sign, next) = fold_signs(input, i);
                if let Some(op) = sign {
                    ops.push(op);
                }
                i = next;
            }
            b')' if !expect_operand => {
                loop {
                    match ops.pop() {
                        Some(Op::Open) => break,
                        Some(op) => apply(op, &mut values)?,
                        None => return Err(Error::Syntax(i)),
                    }
                }
                i += 1;
            }
            b'+' | b'-' | b'*' | b'/' if !expect_operand => {
                let op = match b {
                    b'+' => Op::Add,
                    b'-' => Op::Sub,
                    b'*' => Op::Mul,
                    _ => Op::Div,
                };
                while let Some(top) = ops.top() {
                    if top == Op::Open || top.precedence() < op.precedence() {
                        break;
                    }
                    ops.pop();
                    apply(top, &mut values)?;
                }
                ops.push(op);
                expect_operand = true;
                i += 1;
            }
            _ => return Err(Error::Syntax(i)),
        }
    }
    if expect_operand {
        return Err(Error::Syntax(input.len()));
    }
    while let Some(op) = ops.pop() {
        if op == Op::Open {
            return Err(Error::Syntax(input.len()));
        }
        apply(op, &mut values)?;
    }
    match values.as_slice() {
        [v] => Ok(*v),
        _ => Err(Error::Syntax(input.len())),
    }
}

fn apply(op: Op, values: &mut Vec<i64>) -> Result<(), Error> {
    let syntax = Error::Syntax(0);
    let right = values.pop().ok_or(syntax.clone())?;
    let result = match op {
        Op::Neg(n) if n % 2 == 1 => right.checked_neg().ok_or(Error::Overflow)?,
        Op::Neg(_) => right,
        Op::Open => return Err(syntax),
        _ => {
            let left = values.pop().ok_or(syntax)?;
            match op {
                Op::Add => left.checked_add(right),
                Op::Sub => left.checked_sub(right),
                Op::Mul => left.checked_mul(right),
                _ if right == 0 => return Err(Error::DivisionByZero),
                _ => left.checked_div(right),
            }
            .ok_or(Error::Overflow)?
        }
    };
    values.push(result);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_with_precedence_and_signs() {
        assert_eq!(eval(b"1 + (2 * 3)"), Ok(7));
        assert_eq!(eval(b"2 * 3 + 4 * 5"), Ok(26));
        assert_eq!(eval(b"10 - 4 - 3"), Ok(3));
        assert_eq!(eval(b"100 / 7 / 2"), Ok(7));
        assert_eq!(eval(b"--3"), Ok(3));
        assert_eq!(eval(b"- -+-3"), Ok(-3));
        assert_eq!(eval(b" ( ( 42 ) ) \n"), Ok(42));
    }

    #[test]
    fn rejects_what_is_not_an_expression() {
        assert_eq!(eval(b"1 +"), Err(Error::Syntax(3)));
        assert_eq!(eval(b"(1"), Err(Error::Syntax(2)));
        assert_eq!(eval(b"1)"), Err(Error::Syntax(1)));
        assert_eq!(eval(b"1 2"), Err(Error::Syntax(2)));
        assert_eq!(eval(b""), Err(Error::Syntax(0)));
        assert_eq!(eval(b"1 / (2 - 2)"), Err(Error::DivisionByZero));
        assert_eq!(eval(b"9223372036854775807 + 1"), Err(Error::Overflow));
    }

    #[test]
    fn runs_of_one_sign_are_folded() {
        let mut long = vec![b'-'; 1001];
        long.push(b'5');
        assert_eq!(eval(&long), Ok(-5));
        let deep = format!("{}1{}", "1-(".repeat(200), ")".repeat(200));
        assert_eq!(eval(deep.as_bytes()), Ok(1));
    }

    #[test]
    fn the_planted_bug_twelve_alternating_signs() {
        assert_eq!(eval(b"1 - -+-+-+-+-+- 2"), Ok(-1)); // eleven runs of signs: fine
        assert!(std::panic::catch_unwind(|| eval(b"1 - -+-+-+-+-+-+ 2")).is_err());
        assert!(std::panic::catch_unwind(|| eval(b"- + - + - + - + - + - + 7")).is_err());
    }
}
