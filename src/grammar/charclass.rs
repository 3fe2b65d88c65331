//! Character classes (`[a-z]`, `[^"\\]`, `.`): sets of Unicode scalar values.
//!
//! [`CharClass`] stores sorted, disjoint, non-negated ranges plus an ASCII bitmap for the hot path;
//! [`decode_utf8`] reads one code point from bytes, the unit a class matches.

/// A set of Unicode scalar values, matched against one UTF-8 encoded code point.
///
/// Invariant: `ranges` are sorted, disjoint, non-adjacent and lie within 0..=0x10FFFF;
/// `ascii` mirrors the part of the set below 128.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CharClass {
    ranges: Vec<(u32, u32)>,
    ascii: u128,
}

impl CharClass {
    /// The class of the given inclusive ranges (any order, may overlap), negated if `negate`.
    pub fn new(ranges: &[(u32, u32)], negate: bool) -> CharClass {
        let mut rs: Vec<(u32, u32)> = ranges
            .iter()
            .map(|&(a, b)| (a.min(b), a.max(b).min(0x10FFFF)))
            .collect();
        rs.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(rs.len());
        for (lo, hi) in rs {
            match merged.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        if negate {
            merged = complement(&merged);
        }
        // Surrogates are not scalar values; they can never be decoded, so drop them.
        merged = subtract(&merged, (0xD800, 0xDFFF));
        let mut ascii = 0u128;
        for &(lo, hi) in &merged {
            for c in lo..=hi.min(127) {
                ascii |= 1u128 << c;
            }
        }
        CharClass { ranges: merged, ascii }
    }

    /// Every Unicode scalar value (the `.` of the grammar format).
    pub fn any() -> CharClass {
        CharClass::new(&[(0, 0x10FFFF)], false)
    }

    /// Whether code point `c` is in the class.
    #[inline]
    pub fn contains(&self, c: u32) -> bool {
        if c < 128 {
            return self.ascii & (1u128 << c) != 0;
        }
        self.ranges
            .binary_search_by(|&(lo, hi)| {
                if hi < c {
                    std::cmp::Ordering::Less
                } else if lo > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }

    /// Whether the class contains ASCII byte `b` (always false for `b >= 128`).
    #[inline]
    pub fn contains_ascii(&self, b: u8) -> bool {
        b < 128 && self.ascii & (1u128 << b) != 0
    }

    /// True if the class matches nothing (for example `[^\x00-\u{10FFFF}]`).
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The sorted disjoint ranges of the class.
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    /// A representative member: the smallest printable one (>= U+0020) if any, else the smallest.
    /// Used for cheapest derivations, so that they read well.
    pub fn representative(&self) -> Option<char> {
        let printable = self
            .ranges
            .iter()
            .find(|&&(_, hi)| hi >= 0x20)
            .map(|&(lo, _)| lo.max(0x20));
        printable
            .or_else(|| self.ranges.first().map(|r| r.0))
            .and_then(char::from_u32)
    }

    /// The number of scalar values in the class.
    pub fn len(&self) -> u64 {
        self.ranges.iter().map(|&(lo, hi)| (hi - lo) as u64 + 1).sum()
    }

    /// The number of ASCII members (those below 128, which come first in ascending order).
    #[inline]
    pub fn ascii_len(&self) -> u64 {
        u64::from(self.ascii.count_ones())
    }

    /// The class as the grammar format writes it: `[a-z_]`, or `[^"\\]` where the complement
    /// takes fewer ranges; `.` for every scalar value. Loads back as the same class.
    pub fn to_text(&self) -> String {
        if *self == CharClass::any() {
            return ".".into();
        }
        let complement = subtract(&complement(&self.ranges), (0xD800, 0xDFFF));
        let (ranges, negated) = if complement.len() < self.ranges.len() {
            (complement, true)
        } else {
            (self.ranges.clone(), false)
        };
        let mut out = String::from(if negated { "[^" } else { "[" });
        for (lo, hi) in ranges {
            push_class_char(&mut out, lo);
            if hi > lo {
                if hi > lo + 1 {
                    out.push('-');
                }
                push_class_char(&mut out, hi);
            }
        }
        out.push(']');
        out
    }

    /// The `n`-th member in ascending order (`n < len()`), for uniform sampling.
    pub fn nth(&self, mut n: u64) -> Option<char> {
        for &(lo, hi) in &self.ranges {
            let size = (hi - lo) as u64 + 1;
            if n < size {
                return char::from_u32(lo + n as u32);
            }
            n -= size;
        }
        None
    }
}

/// Writes code point `c` as a class member: escaped where the format needs it.
fn push_class_char(out: &mut String, c: u32) {
    match char::from_u32(c) {
        Some(ch @ ('\\' | ']' | '[' | '-' | '^')) => {
            out.push('\\');
            out.push(ch);
        }
        Some('\n') => out.push_str("\\n"),
        Some('\r') => out.push_str("\\r"),
        Some('\t') => out.push_str("\\t"),
        Some(ch) if c < 0x20 || c == 0x7F => out.push_str(&format!("\\x{:02X}", ch as u32)),
        Some(ch) if !ch.is_control() && !ch.is_whitespace() && c < 0xE000 || (0xF900..0xFFF0).contains(&c) => {
            out.push(ch)
        }
        _ => out.push_str(&format!("\\u{{{c:X}}}")),
    }
}

fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(lo, hi) in ranges {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi + 1;
    }
    if next <= 0x10FFFF {
        out.push((next, 0x10FFFF));
    }
    out
}

fn subtract(ranges: &[(u32, u32)], (cut_lo, cut_hi): (u32, u32)) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for &(lo, hi) in ranges {
        if hi < cut_lo || lo > cut_hi {
            out.push((lo, hi));
            continue;
        }
        if lo < cut_lo {
            out.push((lo, cut_lo - 1));
        }
        if hi > cut_hi {
            out.push((cut_hi + 1, hi));
        }
    }
    out
}

/// Decodes the UTF-8 code point at the start of `bytes`: `Some((code point, length))`, or `None`
/// if `bytes` is empty or does not start with a valid, shortest-form encoding of a scalar value.
#[inline]
pub fn decode_utf8(bytes: &[u8]) -> Option<(u32, usize)> {
    let b0 = *bytes.first()?;
    if b0 < 0x80 {
        return Some((b0 as u32, 1));
    }
    let (len, init) = match b0 {
        0xC2..=0xDF => (2, (b0 & 0x1F) as u32),
        0xE0..=0xEF => (3, (b0 & 0x0F) as u32),
        0xF0..=0xF4 => (4, (b0 & 0x07) as u32),
        _ => return None,
    };
    if bytes.len() < len {
        return None;
    }
    let mut c = init;
    for &b in &bytes[1..len] {
        if b & 0xC0 != 0x80 {
            return None;
        }
        c = (c << 6) | (b & 0x3F) as u32;
    }
    let min = [0, 0, 0x80, 0x800, 0x10000][len];
    if c < min || c > 0x10FFFF || (0xD800..=0xDFFF).contains(&c) {
        return None;
    }
    Some((c, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negation_and_ranges() {
        let c = CharClass::new(
            &[(b'"' as u32, b'"' as u32), (b'\\' as u32, b'\\' as u32), (0, 0x1F)],
            true,
        );
        assert!(c.contains('a' as u32));
        assert!(c.contains('é' as u32));
        assert!(c.contains(0x1F600));
        assert!(!c.contains('"' as u32));
        assert!(!c.contains(0x1F));
        assert!(!c.contains(0xD800));
        assert_eq!(c.representative(), Some(' '));
    }

    #[test]
    fn overlapping_ranges_merge() {
        let c = CharClass::new(
            &[
                (b'a' as u32, b'f' as u32),
                (b'c' as u32, b'z' as u32),
                (b'0' as u32, b'9' as u32),
            ],
            false,
        );
        assert_eq!(c.ranges(), &[(48, 57), (97, 122)]);
        assert_eq!(c.len(), 36);
        assert_eq!(c.nth(10), Some('a'));
    }

    #[test]
    fn utf8_decoding_rejects_bad_sequences() {
        assert_eq!(decode_utf8("é".as_bytes()), Some((0xE9, 2)));
        assert_eq!(decode_utf8("😀".as_bytes()), Some((0x1F600, 4)));
        assert_eq!(decode_utf8(&[0xC0, 0x80]), None); // overlong
        assert_eq!(decode_utf8(&[0xED, 0xA0, 0x80]), None); // surrogate
        assert_eq!(decode_utf8(&[0xE2, 0x82]), None); // truncated
        assert_eq!(decode_utf8(&[]), None);
    }
}
