//! Probabilities of every choice point: mined (Eq. 4), inverted (Eq. 5–7) or uniform.
//!
//! A choice point never reached by the samples keeps the grammar's own weights (Eq. 3: uniform
//! unless hand-written), in every mode. [`Probabilities`] also prints a grammar annotated with them.
//! Character classes are choice points too ([`CharDist`]); layout is not inverted unless asked.

use std::sync::Arc;

use super::{arity, CharCounts, Model, SampleProfile};
use crate::grammar::print::{format_weight, Annotations};
use crate::grammar::{Body, CharClass, Grammar, Places, SymbolId, Terminal, NO_PLACE};

/// How counts become probabilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbabilityMode {
    /// "More of the same": count / total (Eq. 4).
    Mined,
    /// "Inputs from hell": reciprocal counts, normalized (Eq. 6–7); choices never seen share all
    /// the probability and seen ones drop to zero.
    Inverted,
    /// Every way of every choice point equally likely (hand-written weights ignored).
    Uniform,
}

/// The probability of each way of each choice point, indexed by symbol.
#[derive(Clone, Debug)]
pub struct Probabilities {
    /// How they were made.
    pub mode: ProbabilityMode,
    /// Per symbol: one probability per alternative (choices) or `[absent/stop, present/continue]`
    /// (optionals, repetitions); empty for symbols that are not choice points. Each sums to 1.
    pub by_symbol: Vec<Vec<f64>>,
    /// Per terminal: how to draw a member of a character class the samples drew from (`None`
    /// for literals and for classes the samples never reached, drawn uniformly).
    pub chars: Arc<Vec<Option<CharDist>>>,
    /// Inverted with layout left as the samples have it: per symbol whether it is layout, and
    /// per terminal its mined characters, drawn where a layout rule uses it. A class that
    /// content uses too (tree-sitter-css's whitespace, also a descendant combinator) is
    /// inverted there, but layout keeps the samples' spaces, not vertical tabs.
    pub layout_chars: Option<Arc<LayoutChars>>,
    /// Layout drawn as the samples have it at each place (`None`: as the layout rules' own
    /// probabilities say, everywhere). Not inverted: `--invert-layout` goes without it.
    pub layout_places: Option<Arc<LayoutPlaces>>,
}

/// The probabilities of the layout rules' choice points per place where a rule names one
/// (see [`Places`]): the samples' counts there, mined in every mode; where no sample reaches the
/// place, no layout (what the samples have there) beyond a repetition's minimum.
#[derive(Clone, Debug)]
pub struct LayoutPlaces {
    places: Arc<Places>,
    /// Per place: the probabilities of its layout rule's choice point there (empty: the rule's
    /// own, for a choice of layouts no sample reaches there).
    rows: Vec<Vec<f64>>,
}

impl LayoutPlaces {
    fn new(grammar: &Grammar, model: &Model, by_symbol: &[Vec<f64>]) -> LayoutPlaces {
        let places = Arc::clone(grammar.layout_places());
        let rows = places
            .places
            .iter()
            .map(|(key, layout)| {
                let n = by_symbol[layout.index()].len();
                match model.layout.get(key) {
                    Some(c) if c.len() == n && c.iter().sum::<u64>() > 0 => mined(c),
                    _ => match grammar.symbol(*layout).body {
                        Body::Repeat { .. } | Body::Optional(_) if n == 2 => vec![1.0, 0.0],
                        _ => Vec::new(),
                    },
                }
            })
            .collect();
        LayoutPlaces { places, rows }
    }
}

/// The mined character distributions that layout keeps under inversion.
#[derive(Clone, Debug)]
pub struct LayoutChars {
    /// Per symbol: whether a `%layout` rule reaches it.
    pub symbols: Vec<bool>,
    /// Per terminal: the samples' characters, mined.
    pub chars: Vec<Option<CharDist>>,
}

/// The probabilities of a character class's members: the characters listed with their own
/// probabilities, and the rest of the class sharing `rest` uniformly.
///
/// Invariant: `chars` is sorted and its characters are members of the class; `cumulative` has
/// one entry per character, ascending; `cumulative.last() + rest` is 1 (up to rounding).
#[derive(Clone, Debug, PartialEq)]
pub struct CharDist {
    /// The characters with a probability of their own, ascending.
    pub chars: Vec<char>,
    /// Their cumulative probabilities, in the same order.
    pub cumulative: Vec<f64>,
    /// The probability of a member not in `chars`, all such members alike.
    pub rest: f64,
}

impl CharDist {
    /// Eq. 4 per character: each one the share of the samples' draws it had. The characters
    /// counted together ([`CharCounts::other`]) become the rest.
    pub fn mined(counts: &CharCounts, class: &CharClass) -> Option<CharDist> {
        let listed: Vec<(char, f64)> = counts
            .chars
            .iter()
            .filter(|&(&c, &n)| n > 0 && class.contains(c as u32))
            .map(|(&c, &n)| (c, n as f64))
            .collect();
        let total = listed.iter().map(|&(_, n)| n).sum::<f64>() + counts.other as f64;
        (total > 0.0).then(|| CharDist::from_weights(listed, counts.other as f64, total))
    }

    /// Eq. 6–7 per character: members the samples never drew share everything (drawn
    /// uniformly among them); if they drew every member, reciprocal counts.
    pub fn inverted(counts: &CharCounts, class: &CharClass) -> Option<CharDist> {
        let listed: Vec<(char, u64)> = counts
            .chars
            .iter()
            .filter(|&(&c, &n)| n > 0 && class.contains(c as u32))
            .map(|(&c, &n)| (c, n))
            .collect();
        if listed.is_empty() && counts.other == 0 {
            return None;
        }
        if class.len() > listed.len() as u64 + u64::from(counts.other > 0) {
            let zero = listed.into_iter().map(|(c, _)| (c, 0.0)).collect();
            return Some(CharDist::from_weights(zero, 1.0, 1.0));
        }
        let weights: Vec<(char, f64)> = listed.iter().map(|&(c, n)| (c, 1.0 / n as f64)).collect();
        let rest = if counts.other > 0 {
            1.0 / counts.other as f64
        } else {
            0.0
        };
        let total = weights.iter().map(|&(_, w)| w).sum::<f64>() + rest;
        Some(CharDist::from_weights(weights, rest, total))
    }

    fn from_weights(listed: Vec<(char, f64)>, rest: f64, total: f64) -> CharDist {
        let mut sum = 0.0;
        let (chars, cumulative) = listed
            .into_iter()
            .map(|(c, w)| {
                sum += w / total;
                (c, sum)
            })
            .unzip();
        CharDist {
            chars,
            cumulative,
            rest: rest / total,
        }
    }

    /// The probability of drawing `c` from `class` (a member, or 0).
    pub fn probability(&self, c: char, class: &CharClass) -> f64 {
        match self.chars.binary_search(&c) {
            Ok(i) => self.cumulative[i] - if i == 0 { 0.0 } else { self.cumulative[i - 1] },
            Err(_) if class.contains(c as u32) => {
                let others = class.len().saturating_sub(self.chars.len() as u64);
                if others == 0 {
                    0.0
                } else {
                    self.rest / others as f64
                }
            }
            Err(_) => 0.0,
        }
    }

    /// Whether `c` is one of the listed characters.
    pub fn lists(&self, c: char) -> bool {
        self.chars.binary_search(&c).is_ok()
    }
}

impl Probabilities {
    /// Probabilities for `grammar` from `model` (or from the grammar's own weights if `None`).
    /// Inverted probabilities leave layout (what a `%layout` rule reaches: whitespace and
    /// comments) as the samples have it: inverting it only makes layout, which no parser
    /// cares about ([`Probabilities::new_with`] inverts it too, on request).
    pub fn new(grammar: &Grammar, model: Option<&Model>, mode: ProbabilityMode) -> Probabilities {
        Probabilities::new_with(grammar, model, mode, false)
    }

    /// [`Probabilities::new`], with layout inverted as well where `invert_layout` (the paper's
    /// inversion applied to every choice point).
    pub fn new_with(
        grammar: &Grammar,
        model: Option<&Model>,
        mode: ProbabilityMode,
        invert_layout: bool,
    ) -> Probabilities {
        // In a grammar without contexts, a rule's other instances are copies `refine` made.
        // Inverted, one that no sample reached draws uniformly: its rule's counts inverted
        // put all the weight on what the samples use nowhere, the editor grammar's surplus
        // that the copy was not refined against yet (Rust's inverted output fell from 75.6
        // to 57.5 % accepted when it did).
        let pool = mode != ProbabilityMode::Inverted || !grammar.contexts().is_empty();
        let siblings = model.filter(|_| pool).map(|_| Siblings::new(grammar));
        let (layout, layout_terminals) = if mode == ProbabilityMode::Inverted && !invert_layout {
            grammar.layout_parts()
        } else {
            (Vec::new(), Vec::new())
        };
        let by_symbol: Vec<Vec<f64>> = (0..grammar.symbols().len())
            .map(|i| {
                let sym = SymbolId(i as u32);
                let n = arity(grammar, sym);
                if n == 0 {
                    return Vec::new();
                }
                let counts = model.and_then(|m| {
                    m.counts_of(grammar, sym)
                        .filter(|c| c.iter().sum::<u64>() > 0)
                        .map(<[u64]>::to_vec)
                        .or_else(|| {
                            siblings
                                .as_ref()
                                .and_then(|s| s.pooled(grammar, &|o| m.counts_of(grammar, o), sym))
                        })
                });
                let layout = layout.get(i).copied().unwrap_or(false);
                match (mode, counts) {
                    (ProbabilityMode::Uniform, _) => vec![1.0 / n as f64; n],
                    (_, None) => unspecified(grammar, sym, n),
                    (ProbabilityMode::Mined, Some(c)) => mined(&c),
                    (ProbabilityMode::Inverted, Some(c)) if layout => mined(&c),
                    (ProbabilityMode::Inverted, Some(c)) => inverted(&c),
                }
            })
            .collect();
        let dists = |layout_only: bool| -> Vec<Option<CharDist>> {
            grammar
                .terminals()
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let (Terminal::Class { class, text }, Some(m)) = (t, model) else {
                        return None;
                    };
                    let counts = m.chars.get(text.as_str())?;
                    match mode {
                        ProbabilityMode::Uniform => None,
                        ProbabilityMode::Mined => CharDist::mined(counts, class),
                        ProbabilityMode::Inverted
                            if layout_only || layout_terminals.get(i).copied().unwrap_or(false) =>
                        {
                            CharDist::mined(counts, class)
                        }
                        ProbabilityMode::Inverted => CharDist::inverted(counts, class),
                    }
                })
                .collect()
        };
        let chars = Arc::new(dists(false));
        let layout_chars = layout.contains(&true).then(|| {
            Arc::new(LayoutChars {
                chars: dists(true),
                symbols: layout,
            })
        });
        let per_place = match mode {
            ProbabilityMode::Mined => true,
            ProbabilityMode::Inverted => !invert_layout,
            ProbabilityMode::Uniform => false,
        };
        let layout_places = model
            .filter(|m| per_place && !m.layout.is_empty())
            .map(|m| Arc::new(LayoutPlaces::new(grammar, m, &by_symbol)));
        Probabilities {
            mode,
            by_symbol,
            chars,
            layout_chars,
            layout_places,
        }
    }

    /// "More of the same" like one sample: its own counts mined (Eq. 4), each choice point
    /// smoothed by these probabilities (the whole model's, mined) as a prior worth `prior`
    /// observations. Choice points the sample never reached keep these probabilities.
    pub fn like_sample(&self, grammar: &Grammar, profile: &SampleProfile, prior: f64) -> Probabilities {
        let siblings = Siblings::new(grammar);
        let own = |sym: SymbolId| profile.counts.get(&grammar.symbol(sym).name).map(Vec::as_slice);
        let by_symbol = self
            .by_symbol
            .iter()
            .enumerate()
            .map(|(i, base)| {
                let sym = SymbolId(i as u32);
                // The sample's counts, or those of its other context instances of the rule.
                let counts = own(sym)
                    .filter(|c| c.iter().sum::<u64>() > 0)
                    .map(<[u64]>::to_vec)
                    .or_else(|| siblings.pooled(grammar, &own, sym))
                    .filter(|c| c.len() == base.len());
                match counts {
                    None => base.clone(),
                    Some(c) => {
                        let total = c.iter().sum::<u64>() as f64 + prior;
                        c.iter()
                            .zip(base)
                            .map(|(&n, &p)| (n as f64 + prior * p) / total)
                            .collect()
                    }
                }
            })
            .collect();
        Probabilities {
            mode: ProbabilityMode::Mined,
            by_symbol,
            chars: Arc::clone(&self.chars),
            layout_chars: self.layout_chars.clone(),
            layout_places: self.layout_places.clone(),
        }
    }

    /// How to draw a member of class terminal `t` (`None`: uniformly, as the generator does for
    /// classes the samples never reached).
    #[inline]
    pub fn chars_of(&self, t: crate::grammar::TerminalId) -> Option<&CharDist> {
        self.chars.get(t.index()).and_then(Option::as_ref)
    }

    /// [`Probabilities::chars_of`] where a node of `parent` holds the class: the samples' own
    /// distribution if `parent` is layout and inversion leaves layout alone.
    #[inline]
    pub fn chars_in(&self, t: crate::grammar::TerminalId, parent: SymbolId) -> Option<&CharDist> {
        match &self.layout_chars {
            Some(l) if l.symbols.get(parent.index()).copied().unwrap_or(false) => {
                l.chars.get(t.index()).and_then(Option::as_ref)
            }
            _ => self.chars_of(t),
        }
    }

    /// The probabilities of `sym`'s choice point (empty if it is not one).
    pub fn of(&self, sym: SymbolId) -> &[f64] {
        &self.by_symbol[sym.index()]
    }

    /// The place item `k` of alternative `alt` of `parent` is (`alt` and `k` 0 for the item of
    /// a repetition or an optional), if it names a layout rule whose probabilities there are
    /// the samples' own: for [`Probabilities::at`]. [`NO_PLACE`] otherwise.
    #[inline]
    pub fn place(&self, parent: SymbolId, alt: u32, k: u32) -> u32 {
        match &self.layout_places {
            Some(l) => l.places.at(parent, alt, k),
            None => NO_PLACE,
        }
    }

    /// The probabilities of `sym`'s choice point where `place` ([`Probabilities::place`]) has
    /// a node of it: the samples' layout there, or [`Probabilities::of`].
    #[inline]
    pub fn at(&self, sym: SymbolId, place: u32) -> &[f64] {
        let own = &self.by_symbol[sym.index()];
        if place == NO_PLACE {
            return own;
        }
        match self.layout_places.as_ref().and_then(|l| l.rows.get(place as usize)) {
            Some(row) if row.len() == own.len() => row,
            _ => own,
        }
    }

    /// The grammar annotated with these probabilities, in the style of *Inputs from Hell*'s
    /// Fig. 3: `expr = 66.7% term | 33.3% expr "+" term | 0% expr "-" term ;`. The text loads as a
    /// grammar again; `?` and repetition probabilities go into comments.
    pub fn annotate(&self, grammar: &Grammar) -> String {
        let mut text = grammar.to_text_with(&Annotated { probs: self, grammar });
        text.push_str(&self.char_table(grammar));
        text
    }

    /// The character distributions as comments, one line per class the samples drew from:
    /// `# [0-9]: "1" 40%, "2" 35%, "7" 25%; the 7 others 0%`. Characters listed beyond
    /// [`SHOWN_CHARS`] are summed into one figure.
    pub fn char_table(&self, grammar: &Grammar) -> String {
        let mut out = String::new();
        for (i, t) in grammar.terminals().iter().enumerate() {
            let (Terminal::Class { class, text }, Some(Some(dist))) = (t, self.chars.get(i)) else {
                continue;
            };
            if out.is_empty() {
                out.push_str("\n# Characters per class (lexical choices: the share of draws each character gets):\n");
            }
            let mut shown: Vec<(char, f64)> = dist.chars.iter().map(|&c| (c, dist.probability(c, class))).collect();
            // Inverted, the characters the samples drew get nothing where others were never drawn.
            let zero = shown.iter().filter(|&&(_, p)| p <= 0.0).count();
            shown.retain(|&(_, p)| p > 0.0);
            shown.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let mut parts: Vec<String> = shown
                .iter()
                .take(SHOWN_CHARS)
                .map(|&(c, p)| format!("{:?} {}", c, format_weight(p * 100.0)))
                .collect();
            if shown.len() > SHOWN_CHARS {
                let more: f64 = shown[SHOWN_CHARS..].iter().map(|&(_, p)| p).sum();
                parts.push(format!(
                    "{} more {}",
                    shown.len() - SHOWN_CHARS,
                    format_weight(more * 100.0)
                ));
            }
            if zero > 0 {
                parts.push(format!("{zero} drawn by the samples 0%"));
            }
            let others = class.len().saturating_sub(dist.chars.len() as u64);
            let rest = if others > 0 {
                format!(
                    "{}the {others} other member(s) {} together",
                    if parts.is_empty() { "" } else { "; " },
                    format_weight(dist.rest * 100.0)
                )
            } else {
                String::new()
            };
            out.push_str(&format!("# {text}: {}{rest}\n", parts.join(", ")));
        }
        out
    }
}

/// Characters [`Probabilities::char_table`] names one by one per class.
pub const SHOWN_CHARS: usize = 24;

/// Context instances of the same rule (`statement`, `statement[return]`, ...) and the copies
/// `refine` made of it (`statement[in block]`), for a back-off: an instance the samples never
/// reached takes the counts of its rule's other instances, so that contexts do not dilute the
/// model (most instances of a JavaScript statement are seen rarely, though the rule is seen
/// everywhere).
struct Siblings {
    /// Per symbol: the index into `members` of its group.
    group: Vec<usize>,
    /// The symbols expanded from one rule, group or repetition (each group includes itself).
    members: Vec<Vec<SymbolId>>,
}

impl Siblings {
    fn new(grammar: &Grammar) -> Siblings {
        let mut by_source: std::collections::HashMap<(usize, bool, String), usize> = std::collections::HashMap::new();
        let mut members: Vec<Vec<SymbolId>> = Vec::new();
        let mut group = Vec::with_capacity(grammar.symbols().len());
        for (i, s) in grammar.symbols().iter().enumerate() {
            // A named rule's instances by name (`x`, `x[in y]`, `x[without 2]`: a grammar that
            // `refine` wrote has them as rules of their own, each with its own span); a group's
            // by where it was written as well, its name being numbered per rule.
            let offset = if s.synthetic { s.span.offset } else { 0 };
            let key = (offset, s.synthetic, crate::grammar::base_name(&s.name));
            let g = *by_source.entry(key).or_insert_with(|| {
                members.push(Vec::new());
                members.len() - 1
            });
            members[g].push(SymbolId(i as u32));
            group.push(g);
        }
        Siblings { group, members }
    }

    /// The summed counts of `sym`'s siblings, choices matched by the alternative they came from.
    fn pooled<'c>(
        &self,
        grammar: &Grammar,
        counts_of: &dyn Fn(SymbolId) -> Option<&'c [u64]>,
        sym: SymbolId,
    ) -> Option<Vec<u64>> {
        let members = &self.members[*self.group.get(sym.index())?];
        let n = arity(grammar, sym);
        // A context instance whose guards leave one alternative is no choice point: nothing to
        // pool (its alternative may still be a sibling's, which must not index `total`).
        if n == 0 {
            return None;
        }
        let mut total = vec![0u64; n];
        for &other in members.iter().filter(|&&o| o != sym) {
            let Some(c) = counts_of(other) else {
                continue;
            };
            match (&grammar.symbol(sym).body, &grammar.symbol(other).body) {
                (Body::Choice(mine), Body::Choice(theirs)) => {
                    for (j, alt) in theirs.iter().enumerate() {
                        let found = mine
                            .iter()
                            .position(|a| {
                                a.span.offset == alt.span.offset
                                    && crate::grammar::same_items(grammar.symbols(), a, alt)
                            })
                            .or_else(|| {
                                mine.iter()
                                    .position(|a| crate::grammar::same_items(grammar.symbols(), a, alt))
                            });
                        if let Some(i) = found {
                            total[i] += c.get(j).copied().unwrap_or(0);
                        }
                    }
                }
                _ if c.len() == n => {
                    for (t, v) in total.iter_mut().zip(c) {
                        *t += v;
                    }
                }
                _ => {}
            }
        }
        (total.iter().sum::<u64>() > 0).then_some(total)
    }
}

struct Annotated<'a> {
    probs: &'a Probabilities,
    grammar: &'a Grammar,
}

impl Annotations for Annotated<'_> {
    fn alt_weight(&self, sym: SymbolId, alt: usize) -> Option<f64> {
        self.probs.of(sym).get(alt).map(|p| p * 100.0)
    }

    fn note(&self, sym: SymbolId) -> Option<String> {
        let p = self.probs.of(sym);
        if p.len() != 2 {
            return None;
        }
        Some(match self.grammar.symbol(sym).body {
            Body::Optional(_) => format!(
                "present {}, absent {}",
                format_weight(p[1] * 100.0),
                format_weight(p[0] * 100.0)
            ),
            _ => format!(
                "one more {}, stop {}",
                format_weight(p[1] * 100.0),
                format_weight(p[0] * 100.0)
            ),
        })
    }
}

/// Eq. 4: each way's share of the expansions.
fn mined(counts: &[u64]) -> Vec<f64> {
    let total: u64 = counts.iter().sum();
    counts.iter().map(|&c| c as f64 / total as f64).collect()
}

/// Eq. 6–7: weights 1/count normalized; if some ways were never seen (infinite weight), they
/// share everything equally and the seen ones get zero.
fn inverted(counts: &[u64]) -> Vec<f64> {
    let unseen = counts.iter().filter(|&&c| c == 0).count();
    if unseen > 0 {
        return counts
            .iter()
            .map(|&c| if c == 0 { 1.0 / unseen as f64 } else { 0.0 })
            .collect();
    }
    let weights: Vec<f64> = counts.iter().map(|&c| 1.0 / c as f64).collect();
    let total: f64 = weights.iter().sum();
    weights.iter().map(|w| w / total).collect()
}

/// A choice point the samples never reached: the grammar's weights (Eq. 3), uniform by default.
fn unspecified(grammar: &Grammar, sym: SymbolId, n: usize) -> Vec<f64> {
    match grammar.symbol(sym).body {
        Body::Choice(_) => grammar.symbol(sym).alt_probabilities(),
        _ => vec![1.0 / n as f64; n],
    }
}
