//! Probabilities of every choice point: mined (Eq. 4), inverted (Eq. 5–7) or uniform.
//!
//! A choice point never reached by the samples keeps the grammar's own weights (Eq. 3: uniform
//! unless hand-written), in every mode. [`Probabilities`] also prints a grammar annotated with them.

use super::{arity, Model, SampleProfile};
use crate::grammar::print::{format_weight, Annotations};
use crate::grammar::{Body, Grammar, SymbolId};

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
}

impl Probabilities {
    /// Probabilities for `grammar` from `model` (or from the grammar's own weights if `None`).
    pub fn new(grammar: &Grammar, model: Option<&Model>, mode: ProbabilityMode) -> Probabilities {
        let siblings = model.map(|_| Siblings::new(grammar));
        let by_symbol = (0..grammar.symbols().len())
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
                match (mode, counts) {
                    (ProbabilityMode::Uniform, _) => vec![1.0 / n as f64; n],
                    (_, None) => unspecified(grammar, sym, n),
                    (ProbabilityMode::Mined, Some(c)) => mined(&c),
                    (ProbabilityMode::Inverted, Some(c)) => inverted(&c),
                }
            })
            .collect();
        Probabilities { mode, by_symbol }
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
        }
    }

    /// The probabilities of `sym`'s choice point (empty if it is not one).
    pub fn of(&self, sym: SymbolId) -> &[f64] {
        &self.by_symbol[sym.index()]
    }

    /// The grammar annotated with these probabilities, in the style of *Inputs from Hell*'s
    /// Fig. 3: `expr = 66.7% term | 33.3% expr "+" term | 0% expr "-" term ;`. The text loads as a
    /// grammar again; `?` and repetition probabilities go into comments.
    pub fn annotate(&self, grammar: &Grammar) -> String {
        grammar.to_text_with(&Annotated { probs: self, grammar })
    }
}

/// Context instances of the same rule (`statement`, `statement[return]`, ...), for a back-off:
/// an instance the samples never reached takes the counts of its rule's other instances, so
/// that contexts do not dilute the model (most instances of a JavaScript statement are seen
/// rarely, though the rule is seen everywhere).
struct Siblings {
    /// Per symbol: the index into `members` of its group (empty without contexts).
    group: Vec<usize>,
    /// The symbols expanded from one rule, group or repetition (each group includes itself).
    members: Vec<Vec<SymbolId>>,
}

impl Siblings {
    fn new(grammar: &Grammar) -> Siblings {
        if grammar.contexts().is_empty() {
            return Siblings {
                group: Vec::new(),
                members: Vec::new(),
            };
        }
        let mut by_source: std::collections::HashMap<(usize, bool, String), usize> = std::collections::HashMap::new();
        let mut members: Vec<Vec<SymbolId>> = Vec::new();
        let mut group = Vec::with_capacity(grammar.symbols().len());
        for (i, s) in grammar.symbols().iter().enumerate() {
            let key = (s.span.offset, s.synthetic, crate::grammar::base_name(&s.name));
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
                        if let Some(i) = mine.iter().position(|a| a.span.offset == alt.span.offset) {
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
