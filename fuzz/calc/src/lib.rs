//! A small integer expression evaluator: the language of hellfuzz's built-in `expr` grammar
//! (integers, `+ - * /`, unary `+`/`-`, parentheses, whitespace), evaluated with checked `i64`
//! arithmetic by an operator-precedence (shunting-yard) loop.
//!
//! **It has two planted bugs**, the subjects of hellfuzz's fuzzing walk-through. Both live in
//! the canonical-form pass, which runs only on well-formed expressions (those with a value or an
//! arithmetic error), and both write past a fixed table sized for "what a person writes":
//!
//! - *Shallow:* each run of prefix signs is kept as its sign changes (`- - + -` → `-+-`) in a
//!   table of [`SIGN_FLIPS`] entries; a run of twelve alternating signs overflows it. Byte
//!   mutation of ordinary samples finds it within seconds: a loop's hit count climbs with every
//!   sign, so coverage guides the fuzzer there step by step.
//! - *Deep:* a divisor's sign is hoisted out of its division (`a / -b` prints as `-(a / b)`,
//!   the same value under truncating division). When the divisor is a group that itself ends
//!   in a hoisted divisor, the two signs merge (`a / -(b / -c)` prints as `a / (b / c)`), and
//!   a table notes where groups close, by chain length up to [`MERGE_CHAIN`]. A merge inside a
//!   merge, `a / -(b / -(c / -d))`, overflows it. The chain length is computed without a
//!   branch, so no coverage counter tells a fuzzer it is halfway there: byte mutation of the
//!   samples (none has a signed group as divisor) must nest two such groups, each ending in a
//!   signed divisor, by luck. Inputs from hell, which choose unary signs, division and
//!   parentheses often, contain one in about one input in twenty.

use std::fmt;

/// Sign changes one prefix run may hold. (The shallow bug: nothing checks it.)
pub const SIGN_FLIPS: usize = 11;

/// The longest chain of merged signs the printer expects. (The deep bug: nothing checks it.)
pub const MERGE_CHAIN: usize = 1;

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

/// What the canonical printer rewrites in a well-formed expression.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Rewrites {
    /// Sign changes in the longest run of prefix signs (`- - + -` has 3).
    pub longest_sign_run: usize,
    /// Divisions whose divisor carries a sign (`a / -b`), hoisted as `-(a / b)`.
    pub hoisted_signs: usize,
    /// The longest chain of merged hoists (`a / -(b / -c)` has 1).
    pub longest_merge_chain: usize,
}

/// A parenthesized group, as the canonical pass tracks it.
#[derive(Default)]
struct Group {
    /// The group is a signed divisor: `/ -( … )`.
    hoisted: bool,
    /// The group's last operand so far is a signed divisor.
    ends_with_hoist: bool,
    /// The merge chain of that last signed divisor (0 unless it is itself a merging group).
    last_chain: usize,
}

/// The canonical form's rewrites. Each run of prefix signs becomes its sign changes, e.g.
/// `- - + -` → `-+-` (one run's changes go into a table of [`SIGN_FLIPS`] entries); each
/// divisor's sign is hoisted out of its division; a signed group ending in a signed divisor
/// merges the two signs, and where the last group of each chain length closed goes into a table
/// with an entry for each length up to [`MERGE_CHAIN`]. Neither table's end is checked: these
/// are the planted bugs.
pub fn canonical_rewrites(input: &[u8]) -> Rewrites {
    let mut flips = [0u8; SIGN_FLIPS];
    let mut closed_at = [0usize; MERGE_CHAIN + 1];
    let mut groups = vec![Group::default()]; // the whole expression; never popped
    let mut rewrites = Rewrites::default();
    let mut runs = 0;
    let mut expect_operand = true;
    let mut after_division = false; // an operand position right after `/`
    let mut hoisting = false; // inside the sign run of a divisor
    for (at, &b) in input.iter().enumerate() {
        let top = groups.len() - 1;
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'+' | b'-' if expect_operand => {
                if after_division {
                    rewrites.hoisted_signs += 1;
                    groups[top].ends_with_hoist = true;
                    groups[top].last_chain = 0;
                    hoisting = true;
                    after_division = false;
                }
                if runs == 0 || flips[runs - 1] != b {
                    flips[runs] = b;
                    runs += 1;
                }
            }
            b'(' => {
                groups.push(Group {
                    hoisted: hoisting,
                    ..Group::default()
                });
                (hoisting, after_division, runs) = (false, false, 0);
            }
            b'+' | b'-' | b'*' | b'/' => {
                groups[top].ends_with_hoist = false;
                expect_operand = true;
                (hoisting, after_division, runs) = (false, b == b'/', 0);
            }
            _ => {
                if b == b')' && top > 0 {
                    let group = groups.pop().expect("top > 0");
                    // A signed group that ends in a signed divisor merges the two signs, one
                    // more link in the chain; any other group has chain 0.
                    let merges = usize::from(group.hoisted & group.ends_with_hoist);
                    let chain = (group.last_chain + 1) * merges;
                    closed_at[chain] = at;
                    rewrites.longest_merge_chain = rewrites.longest_merge_chain.max(chain);
                    groups[top - 1].last_chain = chain;
                }
                expect_operand = false;
                rewrites.longest_sign_run = rewrites.longest_sign_run.max(runs);
                (hoisting, after_division, runs) = (false, false, 0);
            }
        }
    }
    std::hint::black_box(&closed_at);
    rewrites
}

/// Evaluates an expression.
///
/// ```
/// assert_eq!(calc::eval(b"1 + (2 * 3)"), Ok(7));
/// assert_eq!(calc::eval(b"-(7 / 2) - -1"), Ok(-2));
/// assert!(calc::eval(b"1 +").is_err());
/// ```
pub fn eval(input: &[u8]) -> Result<i64, Error> {
    let result = evaluate(input);
    // Every well-formed expression is reported in canonical form, with its value or with its
    // arithmetic error; only a syntax error has no canonical form.
    if !matches!(result, Err(Error::Syntax(_))) {
        std::hint::black_box(canonical_rewrites(input));
    }
    result
}

/// Evaluates `input`. The first arithmetic error is reported only once the whole input has
/// parsed: a syntax error anywhere wins, so that an arithmetic error means "well-formed".
fn evaluate(input: &[u8]) -> Result<i64, Error> {
    let mut ops = OpStack { ops: Vec::new() };
    let mut values = Values {
        stack: Vec::new(),
        first_error: None,
    };
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
                values.push(digits.parse().map_err(|_| Error::Overflow));
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
                        Some(op) => values.apply(op)?,
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
                    values.apply(top)?;
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
        values.apply(op)?;
    }
    match (values.stack.as_slice(), values.first_error) {
        ([_], Some(error)) => Err(error),
        ([v], None) => Ok(*v),
        _ => Err(Error::Syntax(input.len())),
    }
}

/// The value stack, and the first arithmetic error (after which evaluation goes on with a zero
/// in place of the failed result, to check the rest of the syntax).
struct Values {
    stack: Vec<i64>,
    first_error: Option<Error>,
}

impl Values {
    fn push(&mut self, value: Result<i64, Error>) {
        let value = value.unwrap_or_else(|error| {
            self.first_error.get_or_insert(error);
            0
        });
        self.stack.push(value);
    }

    /// Applies `op` to the top of the stack; only a syntax error (a missing operand) is returned.
    fn apply(&mut self, op: Op) -> Result<(), Error> {
        let syntax = Error::Syntax(0);
        let right = self.stack.pop().ok_or(syntax.clone())?;
        let result = match op {
            Op::Neg(n) if n % 2 == 1 => right.checked_neg().ok_or(Error::Overflow),
            Op::Neg(_) => Ok(right),
            Op::Open => return Err(syntax),
            _ => {
                let left = self.stack.pop().ok_or(syntax)?;
                match op {
                    Op::Add => left.checked_add(right).ok_or(Error::Overflow),
                    Op::Sub => left.checked_sub(right).ok_or(Error::Overflow),
                    Op::Mul => left.checked_mul(right).ok_or(Error::Overflow),
                    _ if right == 0 => Err(Error::DivisionByZero),
                    _ => left.checked_div(right).ok_or(Error::Overflow),
                }
            }
        };
        self.push(result);
        Ok(())
    }
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
        assert_eq!(eval(b"99999999999999999999 * 0"), Err(Error::Overflow));
        // The first arithmetic error is reported only for a well-formed expression.
        assert_eq!(
            eval(b"1 / 0 + 2 / 0 * 99999999999999999999"),
            Err(Error::DivisionByZero)
        );
        assert_eq!(eval(b"1 / 0 +"), Err(Error::Syntax(7)));
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
    fn canonical_rewrites_count_sign_changes_hoists_and_merges() {
        let r = canonical_rewrites(b"1 / - -+2 * (3 / +4) / (-5) - - + -6");
        assert_eq!(
            r,
            Rewrites {
                longest_sign_run: 3,
                hoisted_signs: 2,
                longest_merge_chain: 0
            }
        );
        // A merge needs a signed group whose last operand is a signed divisor.
        let r = canonical_rewrites(b"8 / -(4 / -2) + 8 / -(4 / -2 * 1) + 8 / (4 / -2)");
        assert_eq!(
            r,
            Rewrites {
                longest_sign_run: 1,
                hoisted_signs: 5,
                longest_merge_chain: 1
            }
        );
        let r = canonical_rewrites(b"9 / -(8 / -(4 / -2) + 1) / -(3 / -(2 / 1))");
        assert_eq!(r.longest_merge_chain, 1);
    }

    #[test]
    fn the_deep_planted_bug_a_merge_inside_a_merge() {
        assert_eq!(eval(b"64 / -(8 / -2)"), Ok(16));
        assert_eq!(eval(b"64 / -(16 / -(4 / 2))"), Ok(8));
        assert!(std::panic::catch_unwind(|| eval(b"64 / -(16 / -(8 / -2))")).is_err());
        // Arithmetic errors do not hide it: the expression is still well-formed.
        assert!(std::panic::catch_unwind(|| eval(b"1 / 0 + 1 / -(1 / -(1 / - 1))")).is_err());
    }

    #[test]
    fn the_shallow_planted_bug_twelve_alternating_signs() {
        assert_eq!(eval(b"1 - -+-+-+-+-+- 2"), Ok(-1)); // eleven runs of signs: fine
        assert!(std::panic::catch_unwind(|| eval(b"1 - -+-+-+-+-+-+ 2")).is_err());
        assert!(std::panic::catch_unwind(|| eval(b"- + - + - + - + - + - + 7")).is_err());
    }
}
