//! Mining: counts of every choice made in parsed samples, kept as a [`Model`]; probabilities from it.
//!
//! A choice point is a rule's alternatives, a `?` (absent/present), a repetition (stop/one more
//! iteration beyond the minimum), or a character class (which member: lexical choices, counted per
//! character as the paper's lexical rules are). [`Model`] holds raw counts (so models merge by
//! adding) and the grammar's fingerprint; `probs` turns counts into mined, inverted or uniform
//! probabilities.

mod probs;
pub mod samples;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::grammar::{Body, CharClass, Grammar, SymbolId, Terminal};
use crate::tree::{NodeKind, Tree};

pub use probs::{CharDist, Probabilities, ProbabilityMode};

/// The format tag written into model files. Version 2 added the character counts
/// ([`Model::chars`]); a version-1 file is refused with a message saying to mine again.
pub const MODEL_FORMAT: &str = "hellfuzz-model/2";

/// Distinct characters a [`CharCounts`] lists one by one; the samples' further characters of that
/// class are counted together in [`CharCounts::other`]. Classes of names and strings in real
/// samples use a few dozen characters; a sample of Chinese prose would otherwise list thousands.
pub const MAX_LISTED_CHARS: usize = 256;

/// How often the samples drew each member of one character class: the class's lexical choices.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CharCounts {
    /// Count per character, for at most [`MAX_LISTED_CHARS`] distinct characters.
    pub chars: BTreeMap<char, u64>,
    /// Characters beyond those, counted together.
    #[serde(default)]
    pub other: u64,
}

impl CharCounts {
    /// Counts `n` more of `c`.
    pub fn add(&mut self, c: char, n: u64) {
        if let Some(k) = self.chars.get_mut(&c) {
            *k += n;
        } else if self.chars.len() < MAX_LISTED_CHARS {
            self.chars.insert(c, n);
        } else {
            self.other += n;
        }
    }

    /// All characters counted.
    pub fn total(&self) -> u64 {
        self.chars.values().sum::<u64>() + self.other
    }
}

/// Counts of the choices made in a set of samples, per choice point.
///
/// Invariant: `counts[name]` has one entry per alternative for a choice symbol, and two entries
/// (`[absent, present]` or `[stop, continue]`) for optionals and repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Model {
    /// Always [`MODEL_FORMAT`].
    pub format: String,
    /// Where the grammar came from, for people.
    pub grammar: String,
    /// [`Grammar::fingerprint`] of the grammar the counts belong to.
    pub fingerprint: String,
    /// How many samples were mined.
    pub samples: u64,
    /// Counts per choice point, keyed by symbol name (synthetic symbols: `rule.N`).
    pub counts: BTreeMap<String, Vec<u64>>,
    /// Counts per character class terminal, keyed by the class as the grammar writes it
    /// (`[0-9]`; classes with the same members are one terminal): which characters the samples
    /// drew from it.
    #[serde(default)]
    pub chars: BTreeMap<String, CharCounts>,
    /// Counts of the `%layout` rules' choice points per place (`rule: prev _ next`, see
    /// [`crate::grammar::Places`]): whether the samples have layout there, apart from the rule's counts in
    /// [`Model::counts`] (all places together). Models written before have none, and draw
    /// layout as the rule's counts say everywhere.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub layout: BTreeMap<String, Vec<u64>>,
    /// One profile per mined sample, in mining order: "more of the same" makes each input like
    /// one of them. Models written before profiles were kept have none (and generate as
    /// before); a merge with such a model keeps the profiles that are known.
    #[serde(default)]
    pub profiles: Vec<SampleProfile>,
}

/// What one sample was like: its size, its characters and its own choices.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SampleProfile {
    /// Size in bytes.
    pub size: u64,
    /// Characters matched by character classes that have both ASCII and non-ASCII members (the
    /// only ones where a generator chooses between the two).
    pub class_chars: u64,
    /// How many of those were not ASCII.
    pub non_ascii: u64,
    /// The sample's own counts per choice point (as [`Model::counts`]).
    pub counts: BTreeMap<String, Vec<u64>>,
}

/// Why a model cannot be used or read.
#[derive(Debug)]
#[non_exhaustive]
pub enum ModelError {
    /// The model was mined with a different grammar.
    WrongGrammar {
        /// The grammar the model names.
        model_grammar: String,
        /// The grammar it was to be used with.
        expected: String,
    },
    /// The file could not be read or written.
    Io(String),
    /// The file is not a model.
    Format(String),
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::WrongGrammar { model_grammar, expected } => write!(
                f,
                "the model was mined with another grammar ({model_grammar}), not {expected}; mine the samples again with this grammar"
            ),
            ModelError::Io(m) | ModelError::Format(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ModelError {}

/// The number of ways a choice point can go: alternatives, or 2 for `?` and repetitions.
/// Zero for symbols that are not choice points (a single alternative, a fixed repetition).
pub fn arity(grammar: &Grammar, sym: SymbolId) -> usize {
    match &grammar.symbol(sym).body {
        Body::Choice(alts) if alts.len() > 1 => alts.len(),
        Body::Choice(_) => 0,
        Body::Optional(_) => 2,
        Body::Repeat { min, max, .. } if *max == Some(*min) => 0,
        Body::Repeat { .. } => 2,
    }
}

impl Model {
    /// An empty model for `grammar`.
    pub fn new(grammar: &Grammar) -> Model {
        Model {
            format: MODEL_FORMAT.into(),
            grammar: grammar.origin().into(),
            fingerprint: grammar.fingerprint(),
            samples: 0,
            counts: BTreeMap::new(),
            chars: BTreeMap::new(),
            layout: BTreeMap::new(),
            profiles: Vec::new(),
        }
    }

    /// Adds the choices made in `tree` (a derivation of `grammar`) and its profile.
    pub fn add_tree(&mut self, grammar: &Grammar, tree: &Tree) {
        self.samples += 1;
        let mut profile = SampleProfile {
            size: tree.len() as u64,
            ..SampleProfile::default()
        };
        tree.pre_order(tree.root(), |node| {
            let kind = tree.kind(node);
            let Some(sym) = kind.symbol() else {
                if let NodeKind::Leaf { terminal } = kind {
                    if let Some(Terminal::Class { class, text }) = grammar.terminals().get(terminal.index()) {
                        let bytes = tree.leaf_bytes(node);
                        if mixed(class) {
                            profile.class_chars += 1;
                            profile.non_ascii += u64::from(bytes.first().is_some_and(|&b| b >= 0x80));
                        }
                        if let Some(c) = crate::grammar::decode_utf8(bytes).and_then(|(c, _)| char::from_u32(c)) {
                            // Mostly the same few classes: look up before allocating a key.
                            match self.chars.get_mut(text.as_str()) {
                                Some(counts) => counts.add(c, 1),
                                None => self.chars.entry(text.clone()).or_default().add(c, 1),
                            }
                        }
                    }
                }
                return;
            };
            let n = arity(grammar, sym);
            if n == 0 {
                return;
            }
            let counts = profile
                .counts
                .entry(grammar.symbol(sym).name.clone())
                .or_insert_with(|| vec![0; n]);
            count_choice(grammar, tree, node, counts);
        });
        self.add_layout_places(grammar, tree);
        for (name, c) in &profile.counts {
            let mine = self.counts.entry(name.clone()).or_default();
            // Only a model that was never checked against the grammar can disagree on a length.
            mine.resize(c.len(), 0);
            for (a, b) in mine.iter_mut().zip(c) {
                *a += b;
            }
        }
        self.profiles.push(profile);
    }

    /// Adds the choices of the layout rules in `tree` per place (see [`Model::layout`]).
    fn add_layout_places(&mut self, grammar: &Grammar, tree: &Tree) {
        let places = grammar.layout_places();
        if places.is_empty() {
            return;
        }
        tree.pre_order(tree.root(), |node| {
            let alt = match tree.kind(node) {
                NodeKind::Rule { alt, .. } => alt,
                NodeKind::Repeat { .. } | NodeKind::Optional { .. } => 0,
                NodeKind::Leaf { .. } => return,
            };
            let Some(parent) = tree.kind(node).symbol() else {
                return;
            };
            let repeated = !matches!(grammar.symbol(parent).body, Body::Choice(_));
            for (k, child) in tree.children(node).enumerate() {
                let place = places.at(parent, alt, if repeated { 0 } else { k as u32 });
                let Some(&(ref key, layout)) = places.places.get(place as usize) else {
                    continue;
                };
                let n = arity(grammar, layout);
                if n == 0 || tree.kind(child).symbol() != Some(layout) {
                    continue;
                }
                let counts = self.layout.entry(key.clone()).or_insert_with(|| vec![0; n]);
                // Copies of a layout rule narrowed for a context may have another arity at the
                // same place: the first one counted keeps it.
                if counts.len() == n {
                    count_choice(grammar, tree, child, counts);
                }
            }
        });
    }

    /// Adds another model's counts to this one (same grammar required).
    pub fn merge(&mut self, other: &Model) -> Result<(), ModelError> {
        if other.fingerprint != self.fingerprint {
            return Err(ModelError::WrongGrammar {
                model_grammar: other.grammar.clone(),
                expected: self.grammar.clone(),
            });
        }
        add_counts(&mut self.counts, &other.counts)?;
        add_counts(&mut self.layout, &other.layout)?;
        for (class, counts) in &other.chars {
            let mine = self.chars.entry(class.clone()).or_default();
            for (&c, &n) in &counts.chars {
                mine.add(c, n);
            }
            mine.other += counts.other;
        }
        self.samples += other.samples;
        self.profiles.extend_from_slice(&other.profiles);
        Ok(())
    }

    /// Checks that the model belongs to `grammar` and that its counts fit the grammar's symbols.
    pub fn check(&self, grammar: &Grammar) -> Result<(), ModelError> {
        if self.fingerprint != grammar.fingerprint() {
            return Err(ModelError::WrongGrammar {
                model_grammar: self.grammar.clone(),
                expected: grammar.origin().to_string(),
            });
        }
        let arities: std::collections::HashMap<&str, usize> = (0..grammar.symbols().len())
            .map(|i| SymbolId(i as u32))
            .map(|s| (grammar.symbol(s).name.as_str(), arity(grammar, s)))
            .collect();
        let profiles = self.profiles.iter().flat_map(|p| &p.counts);
        for (name, counts) in self.counts.iter().chain(profiles) {
            if arities.get(name.as_str()) != Some(&counts.len()) {
                return Err(ModelError::Format(format!(
                    "the model counts a choice point `{name}` that the grammar does not have"
                )));
            }
        }
        for class in self.chars.keys() {
            if grammar.class_named(class).is_none() {
                return Err(ModelError::Format(format!(
                    "the model counts the characters of a class `{class}` that the grammar does not have"
                )));
            }
        }
        Ok(())
    }

    /// The character counts of class terminal `t`, if the samples drew from it.
    pub fn chars_of(&self, grammar: &Grammar, t: crate::grammar::TerminalId) -> Option<&CharCounts> {
        match grammar.terminals().get(t.index()) {
            Some(Terminal::Class { text, .. }) => self.chars.get(text.as_str()),
            _ => None,
        }
    }

    /// The counts of `sym`'s choice point, if it was ever reached.
    pub fn counts_of(&self, grammar: &Grammar, sym: SymbolId) -> Option<&[u64]> {
        self.counts.get(&grammar.symbol(sym).name).map(Vec::as_slice)
    }

    /// Reads a model file and checks it against `grammar`.
    pub fn load(path: &Path, grammar: &Grammar) -> Result<Model, ModelError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ModelError::Io(format!("cannot read model {}: {e}", path.display())))?;
        // The format tag first: an older model is refused for what it is, not for a field.
        #[derive(Deserialize)]
        struct Tag {
            format: String,
        }
        if let Ok(Tag { format }) = serde_json::from_str::<Tag>(&text) {
            if format == "hellfuzz-model/1" {
                return Err(ModelError::Format(format!(
                    "{}: a model of an older hellfuzz (format `hellfuzz-model/1`, without the characters \
                     the samples drew from each character class); mine the samples again: \
                     `hellfuzz mine GRAMMAR --samples PATH... -o {}`",
                    path.display(),
                    path.display()
                )));
            }
        }
        let model: Model = serde_json::from_str(&text)
            .map_err(|e| ModelError::Format(format!("{}: not a hellfuzz model: {e}", path.display())))?;
        if model.format != MODEL_FORMAT {
            return Err(ModelError::Format(format!(
                "{}: unknown model format `{}` (expected `{MODEL_FORMAT}`)",
                path.display(),
                model.format
            )));
        }
        model.check(grammar)?;
        Ok(model)
    }

    /// Writes the model as JSON, atomically (a temporary file renamed into place).
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        let text = serde_json::to_string_pretty(self).expect("models always serialize");
        crate::files::write_atomically(path, text.as_bytes())
            .map_err(|e| ModelError::Io(format!("cannot write model {}: {e}", path.display())))
    }
}

/// Adds the choice `node` (a node of a choice point) made to `counts`.
fn count_choice(grammar: &Grammar, tree: &Tree, node: crate::tree::NodeId, counts: &mut [u64]) {
    let kind = tree.kind(node);
    let Some(sym) = kind.symbol() else {
        return;
    };
    match (kind, &grammar.symbol(sym).body) {
        (NodeKind::Rule { alt, .. }, _) => {
            if let Some(c) = counts.get_mut(alt as usize) {
                *c += 1;
            }
        }
        (NodeKind::Optional { .. }, _) => counts[usize::from(tree.child_count(node) > 0)] += 1,
        (NodeKind::Repeat { .. }, Body::Repeat { min, max, .. }) => {
            let k = tree.child_count(node) as u64;
            // Each iteration beyond the minimum was a "continue"; stopping was a choice
            // unless the maximum forced it.
            counts[1] += k.saturating_sub(*min as u64);
            if max.is_none_or(|m| k < m as u64) {
                counts[0] += 1;
            }
        }
        _ => {}
    }
}

/// Adds `more` to `counts`, choice point by choice point; nothing changes if their lengths
/// disagree.
fn add_counts(counts: &mut BTreeMap<String, Vec<u64>>, more: &BTreeMap<String, Vec<u64>>) -> Result<(), ModelError> {
    for (name, c) in more {
        if let Some(mine) = counts.get(name).filter(|m| m.len() != c.len()) {
            return Err(ModelError::Format(format!(
                "choice point `{name}` has {} counts in one model and {} in the other",
                mine.len(),
                c.len()
            )));
        }
    }
    for (name, c) in more {
        let mine = counts.entry(name.clone()).or_insert_with(|| vec![0; c.len()]);
        for (a, b) in mine.iter_mut().zip(c) {
            *a += b;
        }
    }
    Ok(())
}

/// Whether a character class has both ASCII and non-ASCII members.
pub(crate) fn mixed(class: &CharClass) -> bool {
    let r = class.ranges();
    r.first().is_some_and(|f| f.0 < 128) && r.last().is_some_and(|l| l.1 >= 128)
}

#[cfg(test)]
mod tests;
