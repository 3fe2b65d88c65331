//! Passes past 1-minimality: once no deletion helps, make what is left simpler and smaller.
//!
//! ddmin leaves an input from which no single character can go. These passes then try what it
//! never tries, cheapest first ([`Pass`]): a token replaced by the simplest one of its class, every
//! occurrence of a repeated token deleted at once, two tokens deleted together, a byte replaced
//! by a smaller one. Every accepted candidate is smaller in shortlex order (shorter, or as long and
//! bytewise smaller), so the loop ends; after each accepted change ddmin runs again, since a
//! simpler input often lets more go.

use super::ddmin::ddmin_bytes;
use super::generic::lexer::{lex, Token, TokenKind};
use super::tester::Tester;
use crate::oracle::Outcome;

/// One simplification pass. [`Pass::DEFAULT`] lists the ones `reduce` runs unless told otherwise:
/// [`Pass::Tokens`] and [`Pass::Repeats`]. On the eleven real crashes of
/// `scripts/bench-reduce-generic` they made two results smaller (html5ever 49 → 46 bytes, its
/// attribute values unquoted; ron 317 → 288, its nested `{` turned into `(`; shrinkray ended at
/// 47 and 289) for 0–108 more oracle calls per case. Pairs and bytes made no result smaller and
/// cost runs (+3–54 and +7–1,066 per case), so they are left to `--passes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Pass {
    /// A word becomes `a`, a number `0` or `1` (or keeps its digits with a shorter unit of the
    /// original input: `6px` → `6%`), a quoted string its empty quotes or its bare content.
    Tokens,
    /// Every occurrence of a token text that occurs more than once, deleted at once or replaced
    /// by a smaller token text of the input.
    Repeats,
    /// Two tokens deleted at once, on inputs of at most [`PAIR_LIMIT`] tokens.
    Pairs,
    /// A byte replaced by a smaller one: bytes of the input first, then `0`, `a`, space.
    Bytes,
}

/// Pair deletion is quadratic in the tokens; above this many it is not tried.
pub const PAIR_LIMIT: usize = 40;

impl Pass {
    /// The passes run by default, in the order they run.
    pub const DEFAULT: &'static [Pass] = &[Pass::Tokens, Pass::Repeats];

    /// Every pass, for `--passes`.
    pub const ALL: &'static [Pass] = &[Pass::Tokens, Pass::Repeats, Pass::Pairs, Pass::Bytes];

    /// The name `--passes` accepts.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Tokens => "tokens",
            Pass::Repeats => "repeats",
            Pass::Pairs => "pairs",
            Pass::Bytes => "bytes",
        }
    }

    /// The pass named `name`, if any.
    pub fn from_name(name: &str) -> Option<Pass> {
        Pass::ALL.iter().copied().find(|p| p.name() == name)
    }
}

/// Whether `a` comes before `b` in shortlex order (shorter first, then bytewise).
fn shortlex_less(a: &[u8], b: &[u8]) -> bool {
    (a.len(), a) < (b.len(), b)
}

/// Runs `passes` over `input` (which fails) until none of them changes it, with ddmin over the
/// characters after every change, and returns the result (which fails, and is never larger or
/// shortlex-larger than `input`). `original` is the input the reduction started from: the units
/// its numbers carry are the ones [`Pass::Tokens`] may give a number (see `number_units`).
pub fn simplify(input: &[u8], original: &[u8], passes: &[Pass], tester: &Tester<'_>) -> Vec<u8> {
    let units = number_units(original);
    let mut current = input.to_vec();
    loop {
        let before = current.clone();
        for &pass in passes {
            if tester.exhausted() {
                return current;
            }
            let next = match pass {
                Pass::Tokens => tokens(&current, &units, tester),
                Pass::Repeats => repeats(&current, tester),
                Pass::Pairs => pairs(&current, tester),
                Pass::Bytes => bytes(&current, tester),
            };
            if next != current {
                current = ddmin_bytes(&next, tester);
            }
        }
        if current == before || tester.exhausted() {
            return current;
        }
    }
}

/// Tests candidates in order, `jobs` at a time, and returns the first that fails.
fn first_failing(candidates: impl Iterator<Item = Vec<u8>>, tester: &Tester<'_>) -> Option<Vec<u8>> {
    let mut candidates = candidates.peekable();
    while candidates.peek().is_some() && !tester.exhausted() {
        let group: Vec<Vec<u8>> = candidates.by_ref().take(tester.jobs()).collect();
        let outcomes = tester.test_batch(&group);
        if let Some(k) = outcomes.iter().position(|&o| o == Outcome::Fail) {
            return group.into_iter().nth(k);
        }
    }
    None
}

/// `input` with `token` replaced by `with`.
fn replace(input: &[u8], token: &Token, with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() - (token.end - token.start) + with.len());
    out.extend_from_slice(&input[..token.start]);
    out.extend_from_slice(with);
    out.extend_from_slice(&input[token.end..]);
    out
}

/// The units of the numbers in `text`, distinct, shortest (then bytewise smallest) first: the
/// letters that end a number token after a digit (`px` in `16px`, `rem` in `1.5rem`) and a `%`
/// right after a number (`100%`). A number may trade its unit for a shorter one of these: which
/// of two units a crash needs is often decided by which one ddmin happened to delete first, and
/// `6px` → `6%` is one byte that no deletion can save (a CSS `calc(1% - 6 - 0)` against
/// `calc(0 - 6px - 0)`).
fn number_units(text: &[u8]) -> Vec<Vec<u8>> {
    let mut units: Vec<Vec<u8>> = Vec::new();
    for t in lex(text).iter().filter(|t| t.kind == TokenKind::Number) {
        let unit = unit_of(&text[t.start..t.end]);
        if !unit.is_empty() {
            units.push(unit.to_vec());
        }
        if text.get(t.end) == Some(&b'%') {
            units.push(b"%".to_vec());
        }
    }
    units.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
    units.dedup();
    units
}

/// The unit ending the number token `number`: its trailing letters, if only digits and `.` come
/// before them (`px` of `16px`; none for `1e5`, nor for `0x1F`, whose `F` is a digit of the hex).
fn unit_of(number: &[u8]) -> &[u8] {
    let letters = number.iter().rev().take_while(|b| b.is_ascii_alphabetic()).count();
    let digits = &number[..number.len() - letters];
    if digits.last().is_some_and(u8::is_ascii_digit) && digits.iter().all(|&b| b.is_ascii_digit() || b == b'.') {
        &number[digits.len()..]
    } else {
        &[]
    }
}

/// The simpler tokens that `text` (a token of `kind`, followed by the byte `next`) may become,
/// shortest first, each shortlex-smaller than `text`: a word `a`, a number `0` or `1` or its
/// digits with one of the shorter `units`, a quoted string its empty quotes or its bare content
/// (with a space after it where a word follows, so that it does not run on: `"x"y` → `x y`).
fn simpler(kind: TokenKind, text: &[u8], next: Option<u8>, units: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut options: Vec<Vec<u8>> = match kind {
        TokenKind::Word => vec![b"a".to_vec()],
        TokenKind::Number => {
            let unit = unit_of(text);
            let digits = &text[..text.len() - unit.len()];
            let shorter = units.iter().filter(|u| !unit.is_empty() && u.len() < unit.len());
            [b"0".to_vec(), b"1".to_vec()]
                .into_iter()
                .chain(shorter.map(|u| [digits, u].concat()))
                .collect()
        }
        TokenKind::String => {
            let mut bare = text[1..text.len() - 1].to_vec();
            if next.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
                bare.push(b' ');
            }
            vec![vec![text[0], text[0]], bare]
        }
        _ => Vec::new(),
    };
    options.retain(|o| shortlex_less(o, text));
    options.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
    options
}

/// Replaces each token, left to right, by the first simpler token of its class that still fails.
fn tokens(input: &[u8], units: &[Vec<u8>], tester: &Tester<'_>) -> Vec<u8> {
    let mut current = input.to_vec();
    let mut cursor = 0;
    loop {
        let toks = lex(&current);
        let Some(t) = toks.iter().find(|t| t.start >= cursor) else {
            return current;
        };
        let text = &current[t.start..t.end];
        let candidates = simpler(t.kind, text, current.get(t.end).copied(), units);
        let mut next_cursor = t.end;
        if let Some(found) = first_failing(candidates.iter().map(|c| replace(&current, t, c)), tester) {
            // The token is now shorter (or as long): go on after its new end.
            next_cursor = t.start + (t.end - t.start) - (current.len() - found.len());
            current = found;
        }
        if tester.exhausted() {
            return current;
        }
        cursor = next_cursor.max(t.start + 1);
    }
}

/// The tokens that count as units for deletion: not whitespace.
fn solid(input: &[u8]) -> Vec<Token> {
    lex(input)
        .into_iter()
        .filter(|t| !matches!(t.kind, TokenKind::Space | TokenKind::Newline))
        .collect()
}

/// `input` without the tokens `drop` (sorted by start, not overlapping).
fn without(input: &[u8], drop: &[&Token]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut at = 0;
    for t in drop {
        out.extend_from_slice(&input[at..t.start]);
        at = t.end;
    }
    out.extend_from_slice(&input[at..]);
    out
}

/// For each token text that occurs more than once (most frequent first): deletes every
/// occurrence at once, or else replaces every occurrence by a smaller token text of the input
/// (shortest and bytewise smallest first, at most [`REPEAT_SUBSTITUTES`] of them): a run of `{`
/// that overflows a parser's stack may need fewer levels as `(`.
fn repeats(input: &[u8], tester: &Tester<'_>) -> Vec<u8> {
    let mut current = input.to_vec();
    let mut tried: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
    loop {
        let toks = solid(&current);
        let mut counts: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
        for t in &toks {
            *counts.entry(&current[t.start..t.end]).or_default() += 1;
        }
        let mut texts: Vec<(&[u8], usize)> = counts
            .iter()
            .map(|(&text, &n)| (text, n))
            .filter(|&(text, n)| n > 1 && !tried.contains(text))
            .collect();
        texts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let Some(&(text, _)) = texts.first() else {
            return current;
        };
        let text = text.to_vec();
        tried.insert(text.clone());
        let mut substitutes: Vec<&[u8]> = counts
            .keys()
            .copied()
            .filter(|&other| shortlex_less(other, &text) && !other.is_empty())
            .collect();
        substitutes.sort_by(|a, b| (a.len(), *a).cmp(&(b.len(), *b)));
        substitutes.truncate(REPEAT_SUBSTITUTES);
        let places: Vec<&Token> = toks.iter().filter(|t| current[t.start..t.end] == text[..]).collect();
        let mut candidates = vec![without(&current, &places)];
        candidates.extend(substitutes.iter().map(|with| replaced(&current, &places, with)));
        // The longest run of adjacent copies alone (a nesting that overflows a stack): elsewhere
        // the same token may have to stay what it is.
        let run = longest_run(&current, &places);
        if run.len() > 1 && run.len() < places.len() {
            candidates.extend(substitutes.iter().map(|with| replaced(&current, run, with)));
        }
        if let Some(found) = first_failing(candidates.into_iter(), tester) {
            current = found;
        }
        if tester.exhausted() {
            return current;
        }
    }
}

/// The longest stretch of `places` whose tokens follow each other with nothing but whitespace
/// between them.
fn longest_run<'t>(input: &[u8], places: &'t [&'t Token]) -> &'t [&'t Token] {
    let (mut best, mut start) = (0..0, 0);
    for i in 1..=places.len() {
        let joined = i < places.len()
            && input[places[i - 1].end..places[i].start]
                .iter()
                .all(u8::is_ascii_whitespace);
        if !joined {
            if i - start > best.len() {
                best = start..i;
            }
            start = i;
        }
    }
    &places[best]
}

/// How many smaller token texts [`repeats`] tries in place of a repeated one.
const REPEAT_SUBSTITUTES: usize = 3;

/// `input` with each of the tokens `places` (sorted, not overlapping) replaced by `with`.
fn replaced(input: &[u8], places: &[&Token], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut at = 0;
    for t in places {
        out.extend_from_slice(&input[at..t.start]);
        out.extend_from_slice(with);
        at = t.end;
    }
    out.extend_from_slice(&input[at..]);
    out
}

/// Deletes two tokens at once (every pair, the later one first varying), on inputs of at most
/// [`PAIR_LIMIT`] tokens; starts over after each success.
fn pairs(input: &[u8], tester: &Tester<'_>) -> Vec<u8> {
    let mut current = input.to_vec();
    'again: loop {
        let toks = solid(&current);
        if toks.len() > PAIR_LIMIT || toks.len() < 2 {
            return current;
        }
        let candidates = (0..toks.len()).flat_map(|i| (i + 1..toks.len()).map(move |j| (i, j)));
        let made = candidates.map(|(i, j)| without(&current, &[&toks[i], &toks[j]]));
        match first_failing(made, tester) {
            Some(found) => {
                current = found;
                continue 'again;
            }
            None => return current,
        }
    }
}

/// Replaces each byte, left to right, by the first smaller byte that still fails: bytes that
/// occur in the input (smallest first), then `0`, `a` and space. Bytes of multi-byte characters
/// are left alone (a replacement would break the character).
fn bytes(input: &[u8], tester: &Tester<'_>) -> Vec<u8> {
    let mut current = input.to_vec();
    for p in 0..current.len() {
        let b = current[p];
        if b >= 0x80 {
            continue;
        }
        let mut alphabet: Vec<u8> = current.iter().copied().filter(|&c| c < 0x80).collect();
        alphabet.sort_unstable();
        alphabet.dedup();
        for extra in [b'0', b'a', b' '] {
            if !alphabet.contains(&extra) {
                alphabet.push(extra);
            }
        }
        let made = alphabet.into_iter().filter(|&c| c < b).map(|c| {
            let mut next = current.clone();
            next[p] = c;
            next
        });
        if let Some(found) = first_failing(made, tester) {
            current = found;
        }
        if tester.exhausted() {
            break;
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::{Budget, Tester};

    /// Runs `f` (a pass, or [`simplify`]) with an oracle that fails where `fails` holds.
    fn with(fails: impl Fn(&[u8]) -> bool + Sync, f: impl FnOnce(&Tester<'_>) -> Vec<u8>) -> Vec<u8> {
        let oracle = |i: &[u8]| if fails(i) { Outcome::Fail } else { Outcome::Pass };
        let tester = Tester::new(&oracle, Budget::default(), 1);
        f(&tester)
    }

    #[test]
    fn tokens_become_the_simplest_of_their_class() {
        // Fails while it is a call with a number and a string argument.
        let fails = |i: &[u8]| {
            let s = String::from_utf8_lossy(i);
            s.contains('(') && s.contains(", \"") && s.chars().any(|c| c.is_ascii_digit())
        };
        let out = with(fails, |t| tokens(b"crash(12345, \"hello\")", &[], t));
        assert_eq!(out, b"a(0, \"\")");
    }

    #[test]
    fn units_are_the_letters_or_percent_after_a_number() {
        assert_eq!(unit_of(b"16px"), b"px");
        assert_eq!(unit_of(b"1.5rem"), b"rem");
        assert_eq!(unit_of(b"0x1F"), b"");
        assert_eq!(unit_of(b"1e5"), b"");
        assert_eq!(unit_of(b"42"), b"");
        let units = number_units(b"h { width: 100%; margin: 16px 1.5rem 2px } x1 { }");
        assert_eq!(units, [b"%".to_vec(), b"px".to_vec(), b"rem".to_vec()]);
    }

    #[test]
    fn a_number_trades_its_unit_for_a_shorter_one_of_the_original() {
        // lightningcss 1.0.0-alpha.72 overflows its stack on `calc(1% - 6 - 0)` and on
        // `calc(0 - 6px - 0)`, not on plain numbers: a dimension or percentage must stay, and a
        // zero first operand needs its second to carry a unit. ddmin, having deleted the `%`,
        // leaves `0 - 6px - 0`; `6%` is one byte less.
        let fails = |i: &[u8]| {
            let s = String::from_utf8_lossy(i);
            let Some(args) = s.strip_prefix("calc(") else {
                return false;
            };
            let ops: Vec<&str> = args.split(" - ").collect();
            let united = |o: &str| o.ends_with('%') || o.ends_with("px");
            ops.len() == 3 && ops.iter().all(|o| !o.is_empty()) && ops[1..].iter().any(|o| united(o))
        };
        let units = number_units(b"a { left: calc(100% - 16px - 0); }");
        let out = with(fails, |t| tokens(b"calc(0 - 6px - 0", &units, t));
        assert_eq!(out, b"calc(0 - 6% - 0");
        // Without units from the original, nothing shorter keeps the failure.
        assert_eq!(
            with(fails, |t| tokens(b"calc(0 - 6px - 0", &[], t)),
            b"calc(0 - 6px - 0"
        );
    }
    #[test]
    fn repeated_tokens_go_together() {
        // Fails while `x` is there and `foo` occurs an even number of times: one `foo` alone
        // cannot go, both can.
        let fails = |i: &[u8]| {
            let s = String::from_utf8_lossy(i);
            s.contains('x') && s.matches("foo").count() % 2 == 0
        };
        assert_eq!(with(fails, |t| repeats(b"foo x foo", t)), b" x ");
    }

    #[test]
    fn repeated_tokens_are_replaced_together_by_a_smaller_one() {
        // A stack overflow at nesting depth 4 with `{`, or 3 with `(` (deeper per level).
        let fails = |i: &[u8]| {
            let (braces, parens) = (
                i.iter().filter(|&&b| b == b'{').count(),
                i.iter().filter(|&&b| b == b'(').count(),
            );
            braces >= 4 || parens >= 3 || (parens >= 1 && braces + 2 * parens >= 5)
        };
        assert_eq!(with(fails, |t| ddmin_bytes(b"({{{{", t)), b"{{{{");
        assert_eq!(
            with(fails, |t| simplify(b"({{{{", b"({{{{", &[Pass::Repeats], t)),
            b"((("
        );
        // Only the run: the `{` before the `x` must stay.
        let fails = |i: &[u8]| i.starts_with(b"{x") && fails(&i[2..]);
        assert_eq!(
            with(fails, |t| simplify(b"{x({{{{", b"{x({{{{", &[Pass::Repeats], t)),
            b"{x((("
        );
    }

    #[test]
    fn pairs_delete_what_single_deletions_cannot() {
        // Parentheses must stay balanced; the crash needs `y`.
        let fails = |i: &[u8]| {
            let opens = i.iter().filter(|&&b| b == b'(').count();
            let closes = i.iter().filter(|&&b| b == b')').count();
            opens == closes && i.contains(&b'y')
        };
        assert_eq!(with(fails, |t| pairs(b"f(y)", t)), b"fy");
        assert_eq!(with(fails, |t| ddmin_bytes(b"f(y)", t)), b"(y)");
    }

    #[test]
    fn bytes_become_smaller_ones() {
        // Fails while the input has three bytes, no space, and ends with `z`.
        let fails = |i: &[u8]| i.len() == 3 && i.ends_with(b"z") && !i.contains(&b' ');
        assert_eq!(with(fails, |t| bytes(b"qrz", t)), b"00z");
    }

    #[test]
    fn simplify_deletes_again_after_a_change() {
        // Needs `(` first and a digit: ddmin alone ends at `(7`; the token pass makes the number
        // `0` and the string empty, and ddmin then removes the rest.
        let fails = |i: &[u8]| i.starts_with(b"(") && i.iter().any(u8::is_ascii_digit);
        assert_eq!(with(fails, |t| ddmin_bytes(b"(77, \"ab\")", t)), b"(7");
        assert_eq!(
            with(fails, |t| simplify(b"(77, \"ab\")", b"(77, \"ab\")", Pass::ALL, t)),
            b"(0"
        );
    }

    #[test]
    fn the_result_always_fails_and_is_never_larger() {
        use proptest::prelude::*;
        proptest!(ProptestConfig::with_cases(64), |(input in "[a-c0-2 ()\"]{1,24}", k in 0usize..3)| {
            let needle = [b'a', b'1', b'('][k];
            let fails = |i: &[u8]| i.contains(&needle);
            prop_assume!(fails(input.as_bytes()));
            let out = with(fails, |t| simplify(input.as_bytes(), input.as_bytes(), Pass::ALL, t));
            prop_assert!(fails(&out));
            prop_assert!(!shortlex_less(input.as_bytes(), &out));
        });
    }
}
