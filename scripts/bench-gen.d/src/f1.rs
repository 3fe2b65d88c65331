//! The F1 fuzzer's technique ("Building Fast Fuzzers", Gopinath and Zeller, 2019) applied by
//! hand to hellfuzz's json.grammar, as the reference for what grammar compilation gives here.
//!
//! As F1 compiles a grammar: one function per rule, a uniform choice among a rule's
//! alternatives (a repetition `x*` is F1's `<x-star> ::= "" | <x> <x-star>`, so one more
//! iteration at one half), and past `max_depth` only the cheapest alternatives (those that close
//! in the fewest expansions), a fast seeded PRNG (rand's SmallRng), bytes appended to one buffer.
//! Nothing else: no probabilities, no size budget, no trees, no duplicate checks. Characters of
//! a class are drawn from its ASCII members, as F1's JSON grammar lists them.

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

/// A generator compiled from json.grammar by hand, F1's way.
pub struct F1 {
    rng: SmallRng,
    max_depth: u32,
    /// The input being generated.
    pub out: Vec<u8>,
}

/// `[^"\\\x00-\x1F]`'s ASCII members.
const CHARS: &[u8] =
    b" !#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f";
const DIGITS: &[u8] = b"0123456789";
const HEX: &[u8] = b"0123456789ABCDEFabcdef";
const WS: &[u8] = b" \t\n\r";

impl F1 {
    /// A generator seeded with `seed`; rules past `max_depth` close by their cheapest ways.
    pub fn new(seed: u64, max_depth: u32) -> F1 {
        F1 { rng: SmallRng::seed_from_u64(seed), max_depth, out: Vec::with_capacity(1 << 16) }
    }

    /// One input, in `out`.
    pub fn input(&mut self) {
        self.out.clear();
        self.ws(1);
        self.value(1);
        self.ws(1);
    }

    /// A uniform choice among `n` ways (F1 takes the PRNG's number modulo `n`; a multiply and a
    /// shift cost as little, with as small a bias).
    #[inline(always)]
    fn pick(&mut self, n: u32) -> u32 {
        ((u64::from(self.rng.next_u32()) * u64::from(n)) >> 32) as u32
    }

    /// F1's `<x-star>`: one more at one half, none past the depth.
    #[inline(always)]
    fn more(&mut self, d: u32) -> bool {
        d < self.max_depth && self.pick(2) == 1
    }

    #[inline(always)]
    fn one_of(&mut self, set: &[u8]) {
        let c = set[self.pick(set.len() as u32) as usize];
        self.out.push(c);
    }

    /// `ws = [ \t\n\r]*`.
    fn ws(&mut self, d: u32) {
        self.many(d, WS);
    }

    /// A repetition of one character of `set`, as F1's `<x-star>` (one level deeper per
    /// iteration).
    fn many(&mut self, d: u32, set: &[u8]) {
        let mut k = d;
        while self.more(k) {
            self.one_of(set);
            k += 1;
        }
    }

    fn value(&mut self, d: u32) {
        // Past the depth: the ways that close at once, `true`, `false` and `null`.
        let way = if d >= self.max_depth { 4 + self.pick(3) } else { self.pick(7) };
        match way {
            0 => self.object(d + 1),
            1 => self.array(d + 1),
            2 => self.string(d + 1),
            3 => self.number(d + 1),
            4 => self.out.extend_from_slice(b"true"),
            5 => self.out.extend_from_slice(b"false"),
            _ => self.out.extend_from_slice(b"null"),
        }
    }

    fn object(&mut self, d: u32) {
        self.list(b'{', b'}', d, F1::member);
    }

    fn member(&mut self, d: u32) {
        self.string(d + 1);
        self.ws(d + 1);
        self.out.push(b':');
        self.ws(d + 1);
        self.value(d + 1);
    }

    fn array(&mut self, d: u32) {
        self.list(b'[', b']', d, F1::value);
    }

    /// `open ws ( element ( ws "," ws element )* ws )? close`: json.grammar's objects and arrays.
    #[inline(always)]
    fn list(&mut self, open: u8, close: u8, d: u32, element: impl Fn(&mut F1, u32)) {
        self.out.push(open);
        self.ws(d + 1);
        if self.more(d) {
            element(self, d + 1);
            let mut k = d + 1;
            while self.more(k) {
                self.ws(k + 1);
                self.out.push(b',');
                self.ws(k + 1);
                element(self, k + 1);
                k += 1;
            }
            self.ws(d + 1);
        }
        self.out.push(close);
    }

    fn string(&mut self, d: u32) {
        self.out.push(b'"');
        let mut k = d + 1;
        while self.more(k) {
            // char = [^"\\\x00-\x1F] | escape
            if self.pick(2) == 0 || k + 1 >= self.max_depth {
                self.one_of(CHARS);
            } else {
                self.escape();
            }
            k += 1;
        }
        self.out.push(b'"');
    }

    fn escape(&mut self) {
        self.out.push(b'\\');
        if self.pick(2) == 0 {
            self.one_of(b"\"\\/bfnrt");
        } else {
            // The `u` escape of a code unit outside the surrogates (json.grammar's first way).
            self.out.push(b'u');
            self.one_of(b"0123456789ABCabc");
            for _ in 0..3 {
                self.one_of(HEX);
            }
        }
    }

    fn number(&mut self, d: u32) {
        if self.pick(2) == 1 {
            self.out.push(b'-');
        }
        if self.pick(2) == 0 {
            self.out.push(b'0');
        } else {
            self.one_of(b"123456789");
            self.many(d + 1, DIGITS);
        }
        if self.pick(2) == 1 {
            self.out.push(b'.');
            self.one_of(DIGITS);
            self.many(d + 1, DIGITS);
        }
        if self.pick(2) == 1 {
            self.one_of(b"eE");
            match self.pick(3) {
                0 => self.out.push(b'+'),
                1 => self.out.push(b'-'),
                _ => {}
            }
            self.one_of(DIGITS);
            self.many(d + 1, DIGITS);
        }
    }
}
