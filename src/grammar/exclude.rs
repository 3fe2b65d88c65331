//! Exclusion for lexical rules: `ident = ident_name - reserved ;` matches the strings of
//! `ident_name` that are not words of `reserved`, expanded at load time into plain rules.
//!
//! The left side must be regular (no recursion through rules), the right side a finite set of
//! words. The expansion is a trie of the words in which every node either continues towards a
//! word (the left side's Brzozowski derivative by that character) or leaves the trie with a
//! character no word continues with (the left side's strings that start with such a character),
//! or ends where the prefix is not itself a word. So `ident` stays a context-free rule, every
//! choice is decided by its first character, and the parser, miner, generator and reducers work
//! on it unchanged.

use std::collections::{BTreeMap, HashMap};

use super::charclass::CharClass;
use super::diag::{Sink, Span};
use super::syntax::{AltAst, ExprAst, Quant, RuleAst};

/// The most words the right side of `-` may have.
pub const MAX_WORDS: usize = 10_000;
/// The longest word the right side of `-` may have, in characters.
pub const MAX_WORD_CHARS: usize = 200;
/// The most regular-expression nodes an exclusion may build.
const MAX_NODES: usize = 500_000;
/// How deeply the left side of `-` may nest once its rules are inlined: the expansion recurses
/// over it, so a deeper one is an error, not a stack overflow.
const MAX_DEPTH: usize = 200;
/// How deep rules may be inlined into either side of `-`.
const MAX_INLINE_DEPTH: usize = 64;

/// One exclusion as `check` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exclusion {
    /// The rule that contains `-`.
    pub rule: String,
    /// How many words it excludes.
    pub words: usize,
    /// The rules inlined into it (they count as used even if nothing else refers to them).
    pub uses: Vec<String>,
    /// Where the rule is this exclusion and nothing else, of a rule's strings (`ident =
    /// ident_name - reserved ;`): that rule and the excluded words (UTF-8). The parser then
    /// matches the rule as its left side's strings, less the words.
    pub(crate) whole: Option<(String, Vec<Vec<u8>>)>,
}

/// Replaces every `left - right` in `rules` by its expansion. Errors go to `sink`.
pub(crate) fn expand(rules: &mut [RuleAst], sink: &mut Sink) -> Vec<Exclusion> {
    if !rules.iter().any(|r| alts_have_except(&r.alts)) {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut replaced: Vec<(usize, Vec<AltAst>)> = Vec::new();
    {
        let view: HashMap<&str, &RuleAst> = rules.iter().rev().map(|r| (r.name.as_str(), r)).collect();
        for (i, rule) in rules.iter().enumerate() {
            if !alts_have_except(&rule.alts) {
                continue;
            }
            // `name = left - right ;` with `left` a rule.
            let whole = match &rule.alts[..] {
                [alt] if alt.guards.is_empty() => match &alt.items[..] {
                    [ExprAst::Except(left, _, _)] => match &**left {
                        ExprAst::Ref(name, _) => Some(name.clone()),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            };
            let mut cx = Cx {
                view: &view,
                sink,
                rule: &rule.name,
                found: &mut found,
                whole,
            };
            let alts = cx.alts(&rule.alts);
            replaced.push((i, alts));
        }
    }
    for (i, alts) in replaced {
        rules[i].alts = alts;
    }
    found
}

fn alts_have_except(alts: &[AltAst]) -> bool {
    alts.iter().any(|a| a.items.iter().any(has_except))
}

fn has_except(e: &ExprAst) -> bool {
    match e {
        ExprAst::Except(..) => true,
        ExprAst::Group(alts, _) => alts_have_except(alts),
        ExprAst::Postfix(inner, _, _) => has_except(inner),
        _ => false,
    }
}

struct Cx<'a, 's> {
    view: &'a HashMap<&'a str, &'a RuleAst>,
    sink: &'s mut Sink,
    rule: &'a str,
    found: &'a mut Vec<Exclusion>,
    /// The left side's rule, if the rule is one exclusion and nothing else.
    whole: Option<String>,
}

impl Cx<'_, '_> {
    fn alts(&mut self, alts: &[AltAst]) -> Vec<AltAst> {
        alts.iter()
            .map(|a| AltAst {
                guards: a.guards.clone(),
                prec: a.prec,
                weight: a.weight,
                items: a.items.iter().map(|e| self.expr(e)).collect(),
                span: a.span,
            })
            .collect()
    }

    fn expr(&mut self, e: &ExprAst) -> ExprAst {
        match e {
            ExprAst::Group(alts, span) => ExprAst::Group(self.alts(alts), *span),
            ExprAst::Postfix(inner, q, span) => ExprAst::Postfix(Box::new(self.expr(inner)), *q, *span),
            ExprAst::Except(left, right, span) => match self.except(left, right) {
                Ok(Expanded {
                    re: expanded,
                    words,
                    uses,
                }) => {
                    let utf8 = |w: &Vec<u32>| {
                        w.iter()
                            .filter_map(|&c| char::from_u32(c))
                            .collect::<String>()
                            .into_bytes()
                    };
                    self.found.push(Exclusion {
                        rule: self.rule.to_string(),
                        words: words.len(),
                        uses,
                        whole: self.whole.take().map(|left| (left, words.iter().map(utf8).collect())),
                    });
                    to_expr(&expanded, *span)
                }
                Err(message) => {
                    self.sink.error(*span, message);
                    ExprAst::Literal(Vec::new())
                }
            },
            other => other.clone(),
        }
    }

    /// The expansion of `left - right`, its words (as code points) and the rules it inlined.
    fn except(&mut self, left: &ExprAst, right: &ExprAst) -> Result<Expanded, String> {
        let mut b = Builder {
            view: self.view,
            stack: Vec::new(),
            nodes: 0,
            uses: Vec::new(),
        };
        let re = b.re(left)?;
        if depth(&re) > MAX_DEPTH {
            return Err(format!(
                "the left side of this exclusion nests more than {MAX_DEPTH} groups deep (with its rules inlined)"
            ));
        }
        let words = b.words(right)?;
        let mut trie = Trie::default();
        for w in &words {
            trie.insert(w);
        }
        let out = b.node(&trie, 0, &re)?;
        if out == Re::Nothing {
            return Err("this exclusion matches nothing: every string of the left side is excluded".into());
        }
        Ok(Expanded {
            re: out,
            words,
            uses: b.uses,
        })
    }
}

/// An exclusion expanded: the expression, the excluded words (code points) and the rules it
/// inlined.
struct Expanded {
    re: Re,
    words: Vec<Vec<u32>>,
    uses: Vec<String>,
}

/// A regular expression over code points.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Re {
    Nothing,
    Eps,
    /// One character of the (normalized, non-empty) ranges.
    Chars(Vec<(u32, u32)>),
    Seq(Vec<Re>),
    Alt(Vec<Re>),
    Rep(Box<Re>, u32, Option<u32>),
}

fn seq(parts: Vec<Re>) -> Re {
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        match p {
            Re::Nothing => return Re::Nothing,
            Re::Eps => {}
            Re::Seq(inner) => out.extend(inner),
            other => out.push(other),
        }
    }
    match out.len() {
        0 => Re::Eps,
        1 => out.pop().expect("one part"),
        _ => Re::Seq(out),
    }
}

fn alt(parts: Vec<Re>) -> Re {
    let mut out: Vec<Re> = Vec::with_capacity(parts.len());
    for p in parts {
        if p != Re::Nothing && !out.contains(&p) {
            out.push(p);
        }
    }
    match out.len() {
        0 => Re::Nothing,
        1 => out.pop().expect("one part"),
        _ => Re::Alt(out),
    }
}

fn rep(r: Re, min: u32, max: Option<u32>) -> Re {
    match (&r, min, max) {
        (_, _, Some(0)) | (Re::Eps, _, _) => Re::Eps,
        (Re::Nothing, 0, _) => Re::Eps,
        (Re::Nothing, _, _) => Re::Nothing,
        (_, 1, Some(1)) => r,
        _ => Re::Rep(Box::new(r), min, max),
    }
}

fn chars(ranges: Vec<(u32, u32)>) -> Re {
    if ranges.is_empty() {
        Re::Nothing
    } else {
        Re::Chars(ranges)
    }
}

/// The nesting depth of `r`, counted without recursion.
fn depth(r: &Re) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(r, 1usize)];
    while let Some((r, d)) = stack.pop() {
        deepest = deepest.max(d);
        match r {
            Re::Seq(v) | Re::Alt(v) => stack.extend(v.iter().map(|x| (x, d + 1))),
            Re::Rep(inner, _, _) => stack.push((inner, d + 1)),
            _ => {}
        }
    }
    deepest
}

fn nullable(r: &Re) -> bool {
    match r {
        Re::Nothing | Re::Chars(_) => false,
        Re::Eps => true,
        Re::Seq(v) => v.iter().all(nullable),
        Re::Alt(v) => v.iter().any(nullable),
        Re::Rep(inner, min, _) => *min == 0 || nullable(inner),
    }
}

/// The ranges in both `a` and `b` (both normalized).
fn intersect(a: &[(u32, u32)], b: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo <= hi {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The rest after a first character: for every non-empty string of `r` whose first character
/// `first` maps to `Eps` (or to that character's class), what may follow it. With `first` =
/// "is it `c`?" this is the derivative by `c`; with "its class within K" it is the strings of `r`
/// that start in K.
fn step(r: &Re, first: &FirstChar, nodes: &mut usize) -> Result<Re, String> {
    *nodes += 1;
    if *nodes > MAX_NODES {
        return Err(format!(
            "this exclusion expands into more than {MAX_NODES} nodes; exclude fewer words or simplify the left side"
        ));
    }
    Ok(match r {
        Re::Nothing | Re::Eps => Re::Nothing,
        Re::Chars(ranges) => first(ranges),
        Re::Alt(v) => alt(v.iter().map(|x| step(x, first, nodes)).collect::<Result<_, _>>()?),
        Re::Seq(v) => {
            let rest = seq(v[1..].to_vec());
            let head = seq(vec![step(&v[0], first, nodes)?, rest.clone()]);
            if nullable(&v[0]) {
                alt(vec![head, step(&rest, first, nodes)?])
            } else {
                head
            }
        }
        Re::Rep(inner, min, max) => {
            let rest_min = if nullable(inner) { 0 } else { min.saturating_sub(1) };
            let rest = rep((**inner).clone(), rest_min, max.map(|m| m - 1));
            seq(vec![step(inner, first, nodes)?, rest])
        }
    })
}

/// What a first character (given as the ranges of the class it comes from) leaves: `Eps` to
/// continue, `Nothing` to drop, or a narrowed class.
type FirstChar<'f> = dyn Fn(&[(u32, u32)]) -> Re + 'f;

/// The words to exclude, as a trie over characters.
#[derive(Default)]
struct Trie {
    children: Vec<BTreeMap<u32, usize>>,
    word: Vec<bool>,
}

impl Trie {
    fn insert(&mut self, w: &[u32]) {
        if self.children.is_empty() {
            self.children.push(BTreeMap::new());
            self.word.push(false);
        }
        let mut node = 0;
        for &c in w {
            node = match self.children[node].get(&c) {
                Some(&n) => n,
                None => {
                    let n = self.children.len();
                    self.children.push(BTreeMap::new());
                    self.word.push(false);
                    self.children[node].insert(c, n);
                    n
                }
            };
        }
        self.word[node] = true;
    }
}

struct Builder<'a> {
    view: &'a HashMap<&'a str, &'a RuleAst>,
    stack: Vec<String>,
    nodes: usize,
    uses: Vec<String>,
}

impl<'a> Builder<'a> {
    /// The trie node's language: `re` (what the left side allows after the node's prefix) minus
    /// the words below the node. Recursion is as deep as the longest word (bounded).
    fn node(&mut self, trie: &Trie, node: usize, re: &Re) -> Result<Re, String> {
        let mut alts = Vec::new();
        let Some(children) = trie.children.get(node) else {
            return Ok(re.clone());
        };
        for (&c, &child) in children {
            let d = step(
                re,
                &|ranges: &[(u32, u32)]| {
                    if intersect(ranges, &[(c, c)]).is_empty() {
                        Re::Nothing
                    } else {
                        Re::Eps
                    }
                },
                &mut self.nodes,
            )?;
            if d != Re::Nothing {
                alts.push(seq(vec![Re::Chars(vec![(c, c)]), self.node(trie, child, &d)?]));
            }
        }
        let continuing: Vec<(u32, u32)> = children.keys().map(|&c| (c, c)).collect();
        let others = CharClass::new(&continuing, true).ranges().to_vec();
        alts.push(step(
            re,
            &|ranges: &[(u32, u32)]| chars(intersect(ranges, &others)),
            &mut self.nodes,
        )?);
        if !trie.word[node] && nullable(re) {
            alts.push(Re::Eps);
        }
        Ok(alt(alts))
    }

    fn enter(&mut self, name: &str) -> Result<&'a RuleAst, String> {
        let Some(rule) = self.view.get(name).copied() else {
            return Err(format!("`{name}` in an exclusion is not a defined rule"));
        };
        if self.stack.iter().any(|s| s == name) {
            return Err(format!(
                "an exclusion needs a regular left side and a finite right side, but `{name}` is recursive"
            ));
        }
        if self.stack.len() >= MAX_INLINE_DEPTH {
            return Err(format!(
                "rules nest more than {MAX_INLINE_DEPTH} deep inside an exclusion"
            ));
        }
        self.stack.push(name.to_string());
        if !self.uses.iter().any(|u| u == name) {
            self.uses.push(name.to_string());
        }
        Ok(rule)
    }

    /// The left side as a regular expression, rules inlined.
    fn re(&mut self, e: &ExprAst) -> Result<Re, String> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(format!(
                "the left side of this exclusion is larger than {MAX_NODES} nodes"
            ));
        }
        Ok(match e {
            ExprAst::Literal(bytes) => {
                let text = std::str::from_utf8(bytes)
                    .map_err(|_| "an exclusion works on text: this literal is not UTF-8".to_string())?;
                seq(text.chars().map(|c| Re::Chars(vec![(c as u32, c as u32)])).collect())
            }
            ExprAst::Class { class, .. } => chars(class.ranges().to_vec()),
            ExprAst::Ref(name, _) => {
                let rule = self.enter(name)?;
                let r = self.alts_re(&rule.alts)?;
                self.stack.pop();
                r
            }
            ExprAst::Group(alts, _) => self.alts_re(alts)?,
            ExprAst::Postfix(inner, Quant { min, max }, _) => rep(self.re(inner)?, *min, *max),
            ExprAst::Except(..) | ExprAst::Call(..) => {
                return Err(
                    "an exclusion cannot contain another exclusion; exclude all words at once: `a - ( b | c )`".into(),
                )
            }
        })
    }

    fn alts_re(&mut self, alts: &[AltAst]) -> Result<Re, String> {
        let mut out = Vec::new();
        for a in alts {
            out.push(seq(a.items.iter().map(|i| self.re(i)).collect::<Result<_, _>>()?));
        }
        Ok(alt(out))
    }

    /// The right side as a finite list of words (each a list of characters).
    fn words(&mut self, e: &ExprAst) -> Result<Vec<Vec<u32>>, String> {
        let out = match e {
            ExprAst::Literal(bytes) => {
                let text = std::str::from_utf8(bytes)
                    .map_err(|_| "an exclusion works on text: this literal is not UTF-8".to_string())?;
                vec![text.chars().map(|c| c as u32).collect()]
            }
            ExprAst::Class { text, .. } => {
                return Err(format!(
                    "the words after `-` must be a finite set of strings; write the characters of `{text}` as literals"
                ))
            }
            ExprAst::Ref(name, _) => {
                let rule = self.enter(name)?;
                let w = self.alts_words(&rule.alts)?;
                self.stack.pop();
                w
            }
            ExprAst::Group(alts, _) => self.alts_words(alts)?,
            ExprAst::Postfix(inner, Quant { min, max }, _) => {
                let Some(max) = max else {
                    return Err("the words after `-` must be a finite set: remove `*`, `+` or `{n,}`".into());
                };
                let one = self.words(inner)?;
                let mut all = Vec::new();
                let mut power = vec![Vec::new()];
                for n in 0..=*max {
                    if n >= *min {
                        all.extend(power.iter().cloned());
                    }
                    if n < *max {
                        power = product(&power, &one)?;
                    }
                }
                all
            }
            ExprAst::Except(..) | ExprAst::Call(..) => {
                return Err("the words after `-` cannot contain another exclusion".into())
            }
        };
        if out.len() > MAX_WORDS {
            return Err(format!("more than {MAX_WORDS} words to exclude"));
        }
        if let Some(w) = out.iter().find(|w| w.len() > MAX_WORD_CHARS) {
            return Err(format!(
                "an excluded word is {} characters long; at most {MAX_WORD_CHARS} are supported",
                w.len()
            ));
        }
        Ok(out)
    }

    fn alts_words(&mut self, alts: &[AltAst]) -> Result<Vec<Vec<u32>>, String> {
        let mut all = Vec::new();
        for a in alts {
            let mut words = vec![Vec::new()];
            for item in &a.items {
                words = product(&words, &self.words(item)?)?;
            }
            all.extend(words);
            if all.len() > MAX_WORDS {
                return Err(format!("more than {MAX_WORDS} words to exclude"));
            }
        }
        Ok(all)
    }
}

fn product(a: &[Vec<u32>], b: &[Vec<u32>]) -> Result<Vec<Vec<u32>>, String> {
    if a.len().saturating_mul(b.len()) > MAX_WORDS {
        return Err(format!("more than {MAX_WORDS} words to exclude"));
    }
    Ok(a.iter()
        .flat_map(|x| b.iter().map(move |y| x.iter().chain(y).copied().collect()))
        .collect())
}

/// The expansion as grammar syntax.
fn to_expr(r: &Re, span: Span) -> ExprAst {
    let group = |alts: Vec<AltAst>| ExprAst::Group(alts, span);
    let alt_of = |items: Vec<ExprAst>| AltAst {
        guards: Vec::new(),
        prec: None,
        weight: None,
        items,
        span,
    };
    match r {
        Re::Nothing | Re::Eps => ExprAst::Literal(Vec::new()),
        Re::Chars(ranges) => chars_expr(ranges),
        Re::Seq(v) => group(vec![alt_of(seq_items(v, span))]),
        Re::Alt(v) => group(
            v.iter()
                .map(|x| match x {
                    Re::Seq(parts) => alt_of(seq_items(parts, span)),
                    Re::Eps => alt_of(Vec::new()),
                    other => alt_of(vec![to_expr(other, span)]),
                })
                .collect(),
        ),
        Re::Rep(inner, min, max) => {
            ExprAst::Postfix(Box::new(to_expr(inner, span)), Quant { min: *min, max: *max }, span)
        }
    }
}

/// A sequence's items, runs of single characters joined into one literal.
fn seq_items(parts: &[Re], span: Span) -> Vec<ExprAst> {
    let mut out = Vec::new();
    let mut text = String::new();
    for p in parts {
        if let Re::Chars(r) = p {
            if let [(lo, hi)] = r.as_slice() {
                if lo == hi {
                    if let Some(c) = char::from_u32(*lo) {
                        text.push(c);
                        continue;
                    }
                }
            }
        }
        if !text.is_empty() {
            out.push(ExprAst::Literal(std::mem::take(&mut text).into_bytes()));
        }
        out.push(to_expr(p, span));
    }
    if !text.is_empty() {
        out.push(ExprAst::Literal(text.into_bytes()));
    }
    out
}

fn chars_expr(ranges: &[(u32, u32)]) -> ExprAst {
    if let [(lo, hi)] = ranges {
        if lo == hi {
            if let Some(c) = char::from_u32(*lo) {
                return ExprAst::Literal(c.to_string().into_bytes());
            }
        }
    }
    let mut text = String::from("[");
    for &(lo, hi) in ranges {
        text += &class_char(lo);
        if hi > lo {
            text.push('-');
            text += &class_char(hi);
        }
    }
    text.push(']');
    ExprAst::Class {
        class: CharClass::new(ranges, false),
        text,
    }
}

/// One member of a class as the grammar format writes it.
fn class_char(c: u32) -> String {
    match char::from_u32(c) {
        Some(ch @ (']' | '[' | '\\' | '-' | '^' | '"' | '\'')) => format!("\\{ch}"),
        Some(ch) if ch.is_ascii_graphic() || ch == ' ' => ch.to_string(),
        _ => format!("\\u{{{c:X}}}"),
    }
}
