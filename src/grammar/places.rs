//! Places of layout: each item of the grammar that names a `%layout` rule, keyed by its rule and
//! neighbours, so that mining counts the samples' layout per place and generation follows it.
//!
//! Layout is not content (issue: "inverted inputs keep the samples' layout distribution"), but
//! one distribution for the whole input is not the samples' either: an imported grammar puts
//! the layout rule between every two tokens, inside a string's too (`"'" _ string_content`),
//! where the samples never have any and a newline is an error. A place is named by its rule
//! and its neighbours (`string_value.1: ^ _ string_content`), without the context a copy of
//! the rule was made for, so a rule's copies (`string_value[in _selector]`) share the counts
//! of the rule's places.

use super::{base_name, Body, Grammar, Item, SymbolId};

/// Marks a slot that holds no layout rule.
pub const NO_PLACE: u32 = u32::MAX;

/// The places of a grammar's layout rules: each item of each alternative (or the item of a
/// repetition or optional) that names a `%layout` rule, numbered, with its key.
///
/// Invariant: `first[s][a] + k` indexes `slot` for every item `k` of alternative `a` of `s`.
#[derive(Clone, Debug, Default)]
pub struct Places {
    /// Per symbol, per alternative (one for a repetition or an optional): its first slot.
    first: Vec<Vec<u32>>,
    /// Per slot (an item of the grammar): the place it is, or [`NO_PLACE`].
    slot: Vec<u32>,
    /// Per place: its key and the layout rule it names.
    pub places: Vec<(String, SymbolId)>,
}

impl Places {
    /// The places of `grammar`'s layout rules (none without `%layout`).
    pub(super) fn new(grammar: &Grammar) -> Places {
        let mut places = Places::default();
        if grammar.layouts().is_empty() {
            return places;
        }
        let mut slots = 0u32;
        for i in 0..grammar.symbols().len() {
            let sym = SymbolId(i as u32);
            let mut firsts = Vec::new();
            let mut seq = |items: &[Item], places: &mut Places| {
                firsts.push(slots);
                for (k, &item) in items.iter().enumerate() {
                    slots += 1;
                    places.slot.push(match item {
                        Item::Symbol(l) if grammar.is_layout(item) => {
                            places.places.push((place_key(grammar, sym, items, k), l));
                            (places.places.len() - 1) as u32
                        }
                        _ => NO_PLACE,
                    });
                }
            };
            match &grammar.symbol(sym).body {
                Body::Choice(alts) => alts.iter().for_each(|a| seq(&a.items, &mut places)),
                Body::Repeat { item, .. } | Body::Optional(item) => seq(std::slice::from_ref(item), &mut places),
            }
            places.first.push(firsts);
        }
        places
    }

    /// Whether the grammar has any place of layout.
    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// The place item `k` of alternative `alt` of `parent` is (`alt` 0 for a repetition or an
    /// optional), or [`NO_PLACE`].
    #[inline]
    pub fn at(&self, parent: SymbolId, alt: u32, k: u32) -> u32 {
        self.first
            .get(parent.index())
            .and_then(|f| f.get(alt as usize))
            .and_then(|&f| self.slot.get(f.saturating_add(k) as usize))
            .copied()
            .unwrap_or(NO_PLACE)
    }
}

/// `rule: prev _ next`: the rule without its contexts, and the items beside the layout (`^`
/// and `$` at the ends of the alternative), symbols by their names without contexts.
fn place_key(grammar: &Grammar, parent: SymbolId, items: &[Item], k: usize) -> String {
    let name = |item: Option<&Item>, end: &str| match item {
        None => end.to_string(),
        Some(Item::Symbol(s)) => base_name(&grammar.symbol(*s).name),
        Some(Item::Terminal(t)) => grammar.terminal(*t).to_string(),
    };
    format!(
        "{}: {} {} {}",
        base_name(&grammar.symbol(parent).name),
        name(k.checked_sub(1).and_then(|p| items.get(p)), "^"),
        name(items.get(k), "_"),
        name(items.get(k + 1), "$"),
    )
}
