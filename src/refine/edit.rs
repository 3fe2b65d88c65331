//! Grammar edits that exclude a culprit: the smallest change to the rules that rules it out.
//!
//! Each [`Change`] works on a copy of the grammar's IR and names the place it changes by
//! symbol and item position; [`apply`] makes the edited grammar, which the caller checks against
//! the samples before keeping it.

use crate::grammar::{
    same_items, Alternative, Body, CharClass, Distinct, Grammar, GrammarError, Item, Separate, Symbol, SymbolId,
    Terminal, TerminalId, Values,
};

/// Where an item sits: in alternative `alt` of `parent` (`None` for the body of a `?` or a
/// repetition) at position `item`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    /// The symbol whose body holds the item.
    pub parent: SymbolId,
    /// The alternative, for a choice.
    pub alt: Option<usize>,
    /// The item's position in the alternative (0 for a body).
    pub item: usize,
}

/// One edit of a grammar.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// Drop alternative `alt` of `sym` everywhere, and the alternatives `also` lists: other
    /// choices' alternatives that say the same (see [`same_items`](crate::grammar::same_items))
    /// and that no sample makes.
    /// Rust's `$x` outside a macro is no type, no path, no expression, no generic parameter:
    /// one culprit, one edit, where a round per choice would leave inverted output full of it.
    DropAlternative {
        /// The choice symbol.
        sym: SymbolId,
        /// The alternative.
        alt: usize,
        /// Other choices' alternatives dropped with it (symbol, alternative).
        also: Vec<(SymbolId, usize)>,
    },
    /// Drop alternative `alt` of `sym` where `place` uses it: `place` gets a copy of `sym`
    /// without it (named `sym[parent]`, an instance of the same rule for mining).
    DropAlternativeAt {
        /// The choice symbol.
        sym: SymbolId,
        /// The alternative.
        alt: usize,
        /// The reference to specialize.
        place: Place,
    },
    /// Drop alternative `alt` of `sym` at each of `places` (at least two, each using `sym`):
    /// they share one copy of `sym` without it (named `sym[without N]`, an instance of the same
    /// rule for mining): the places where no sample makes it and where, tried in place of a
    /// sample's node there, the parser rejects it. SQL's `INTO` is valid in a top-level
    /// `SELECT` only, and a copy per place, one place a round, would take every round there is.
    DropAlternativeAtAll {
        /// The choice symbol.
        sym: SymbolId,
        /// The alternative.
        alt: usize,
        /// The references that get the copy.
        places: Vec<Place>,
    },
    /// Alternative `alt` of `sym` only right after alternative `after`, where `place` uses
    /// it: `place` gets a copy of `sym` without `alt` and with a new alternative, `after`'s
    /// items then `alt`'s (Rust's `;` alone is no item, but `include!(…);` is), with `again`
    /// `alt`'s one or more times (Rust's `/**x*/` is a doc comment, `/*a*x*/` and `/*a*x*y*/`
    /// are not).
    JoinAfter {
        /// The choice symbol.
        sym: SymbolId,
        /// The alternative that may stand only after the other.
        alt: usize,
        /// The alternative it may follow.
        after: usize,
        /// Whether `alt` may follow itself there as well.
        again: bool,
        /// The reference to specialize.
        place: Place,
    },
    /// Alternative `alt` of `sym` (of an optional part: 1, its being there), where `place`
    /// uses it, only with the optional part at item `other` of the same alternative absent
    /// (or, if `present`, there): the parent's alternative is split in two, one where `sym`
    /// has no `alt` and one where `sym` is `alt` alone and the optional part is fixed
    /// (sqlparser reads `EXPLAIN (` as the start of EXPLAIN's options, so a parenthesized
    /// query may not follow `EXPLAIN`; either alone is valid. Rust's trailing `,` only after
    /// elements: `[,]` is no array). With `inner`, `sym` is a rule of one alternative and
    /// `alt` an alternative of `inner`, a choice among its items: `sym` is split the same way
    /// (SQL's `FROM ONLY` takes a table's name, not a parenthesized relation, where
    /// `relation` holds the choice).
    Apart {
        /// The choice symbol, or the optional part (with `inner`, the rule that holds the choice).
        sym: SymbolId,
        /// Its alternative that may not stand with the optional part as it was.
        alt: usize,
        /// The choice among the items of `sym`'s one alternative that `alt` is of, if not `sym`.
        inner: Option<SymbolId>,
        /// Where `sym` is used.
        place: Place,
        /// The optional part's item in the same alternative.
        other: usize,
        /// Whether the optional part must be there with `alt` (else it must be absent).
        present: bool,
    },
    /// The optional part `sym` at `place` there only where the item `other` before it in the
    /// same alternative ends without the optional parts `drop` of alternative `end_alt` of
    /// `end`, the rule on that item's right edge that `down` leads to (each step a place of
    /// the next rule on the way, from the item's own rule): the parent's alternative is split
    /// in two, one without `sym`'s part and one with it, where the item is a chain of copies
    /// down to a copy of `end` without those parts. sqlparser takes `RETURNING` after a
    /// `DELETE … WHERE …` but not after its `ORDER BY` or `LIMIT`, and `WITH ORDINALITY`
    /// after a table function but not after its alias, each valid alone.
    ApartTail {
        /// The later optional part.
        sym: SymbolId,
        /// Where it is used.
        place: Place,
        /// The earlier item in the same alternative.
        other: usize,
        /// The way down the earlier item's right edge: in each rule, the item of the next.
        down: Vec<Place>,
        /// The rule whose last items are the optional parts.
        end: SymbolId,
        /// Its alternative.
        end_alt: usize,
        /// The optional parts' items in that alternative, dropped in the copy.
        drop: Vec<usize>,
    },
    /// Alternative `alt` of `sym`, where `place` uses it, only with alternative `with` of the
    /// group choice at item `other` of the same alternative: the parent's alternative is split
    /// in two, one where `sym` has no `alt`, and one where `sym` is `alt` alone and the group
    /// is `with` alone. A CSS media type takes `and` after it, never `or` (`screen and (…)`,
    /// `(…) or (…)`), where the grammar's media query is any query, `and` or `or`, any query.
    OnlyWith {
        /// The choice symbol.
        sym: SymbolId,
        /// Its alternative that goes with the group's alternative `with` alone.
        alt: usize,
        /// Where `sym` is used.
        place: Place,
        /// The group choice's item in the same alternative.
        other: usize,
        /// The group's alternative that `alt` may stand with.
        with: usize,
    },
    /// Alternative `alt` of `sym`, where `place` uses it, only after the texts `words` of the
    /// item `key` of the same alternative (a function's name), which the samples write there
    /// with it: the parent's alternative is split in two, one where `sym` has no `alt`, and
    /// one where `sym` is `alt` alone and `key` is a copy of its rule whose generated texts
    /// are drawn from `words` (`%values`: parsing is not changed, and nor is the language).
    /// SQL's `EXTRACT(YEAR FROM d)`: no other function takes `FROM` between its arguments.
    Keyed {
        /// The choice symbol.
        sym: SymbolId,
        /// Its alternative that goes with the words.
        alt: usize,
        /// Where `sym` is used.
        place: Place,
        /// The key's item in the same alternative.
        key: usize,
        /// The key's texts the samples have with `alt` there, most used first.
        words: Vec<Vec<u8>>,
    },
    /// The iterations of the repetition `rep` (`x*`) that take alternative `alt` of `sym`,
    /// the choice the way `down` leads to from the repeated rule (each step a place of the
    /// next rule on the way; none where `sym` is the repeated rule), stand only before all
    /// the others: `x*` becomes `x_alt* x_without*`, each a chain of copies down to `sym`
    /// with that alternative alone, or without it. Rust's `#![…]` comes before a file's
    /// items, CSS's `@import` before its rules; the grammar's file is any statement, any
    /// number of times.
    Leading {
        /// The repetition (no fewer than none, no most).
        rep: SymbolId,
        /// The way down from the repeated rule to the choice.
        down: Vec<Place>,
        /// The choice symbol.
        sym: SymbolId,
        /// Its alternative that may lead only.
        alt: usize,
    },
    /// The layout `layout` at each of `places` becomes one shared copy without some kinds of
    /// layout: per drop, the way down from `layout` (in each rule, the item of the next; the
    /// last step's item is a choice) and the alternative of that choice the copy lacks. Rust's
    /// doc comments are layout to tree-sitter, attributes to the language: valid before an
    /// item or a field, not between `impl X` and its `{`, nor after `let`; `//!` only where a
    /// block starts. The layout is one rule, used between any two tokens.
    LayoutWithout {
        /// The layout rule the places use.
        layout: SymbolId,
        /// The references that get the copy.
        places: Vec<Place>,
        /// Per kind left out: the way down to its choice, and its alternative there.
        drops: Vec<(Vec<Place>, usize)>,
    },
    /// The class at `place` becomes `class` (fewer members).
    NarrowClass {
        /// Where the class terminal is used.
        place: Place,
        /// What it matches from now on.
        class: CharClass,
    },
    /// The first (with `last`, the last) iteration of `sym`, a repetition of a class, draws
    /// from `class` only: `[C]*` becomes `( [C'] [C]* )?` (`( [C]* [C'] )?`). A plain Rust
    /// comment may not start with `/` or `!` (it would be a doc comment, which is no layout),
    /// where the comment's other characters may be anything.
    NarrowEnd {
        /// The repetition.
        sym: SymbolId,
        /// What its first (last) iteration matches from now on.
        class: CharClass,
        /// The last iteration rather than the first.
        last: bool,
    },
    /// The fixed repetition `sym` (`x{n}`) written out as `x x ... x`, so that each position
    /// can be narrowed on its own (`"\\U" hex{8}`: only `0` is valid first).
    Unroll {
        /// The repetition.
        sym: SymbolId,
    },
    /// The repetition or optional part `sym` takes `min` to `max` iterations (an optional
    /// part: 0 or 1), where `place` uses it or, without a place, everywhere.
    Bound {
        /// The repetition or optional symbol.
        sym: SymbolId,
        /// The reference to specialize (`None`: the symbol itself).
        place: Option<Place>,
        /// Fewest iterations.
        min: u32,
        /// Most iterations (`None`: unbounded).
        max: Option<u32>,
    },
    /// `place` gets a copy of `sym` as it is (named `sym[in parent]`), so that later edits
    /// can change what it holds there only: layout never holds a space after CSS's `::`, but
    /// it may hold a comment, and the next round drops the space from the copy's items.
    Specialize {
        /// The rule.
        sym: SymbolId,
        /// The reference to specialize.
        place: Place,
    },
    /// The rule at the end of `down` uses `to`, a copy of its own rule that holds it, where
    /// the way down from `to` led back to the rule itself: each rule on the way gets a copy
    /// for the copy above it, so that the copy's edits hold in its own recursion too. A CSS
    /// media query's parenthesized condition is a media condition again, and Rust's type
    /// arguments are types: a copy made for one context, one level at a time, left every
    /// deeper level as loose as the editor grammar.
    Recur {
        /// The copy that holds the culprit, where its edits are to hold all the way down.
        to: SymbolId,
        /// The way down from `to`: in each rule, the item of the next; the last one's item is
        /// the other instance of `to`'s rule.
        down: Vec<Place>,
    },
    /// Generation draws the text of `sym` (a named rule) from `words`, texts the parser takes
    /// there (`%values sym sym_values ;` and a rule `sym_values` of the words): for tokens
    /// whose valid spellings no edit of the rules can say. Parsing is not changed.
    Values {
        /// The rule.
        sym: SymbolId,
        /// Its texts to draw from, most used first.
        words: Vec<Vec<u8>>,
    },
    /// Generation draws the text of a `sym` node whose `key` child has the text `word` from
    /// `words`, the samples' texts of `sym` with that key (`%values sym sym_values key ;`,
    /// keyed; a second edit of the same rule and key adds its words to the table): a CSS
    /// function's arguments depend on its name, and `var(0, 1fr)` is rejected where any
    /// other name takes them. For a choice that no place in the grammar makes, but the text
    /// of a token beside it. Parsing is not changed.
    ValuesBy {
        /// The rule whose texts are drawn (with every copy of it).
        sym: SymbolId,
        /// The key rule inside it (with every copy of it).
        key: SymbolId,
        /// The key's text these words are for.
        word: Vec<u8>,
        /// The samples' texts of `sym` whose key is `word`, most used first.
        words: Vec<Vec<u8>>,
    },
    /// Generation keeps the texts of `name` nodes in one `scope` node distinct (`%distinct
    /// name scope ;`): a key given twice in a table. Parsing is not changed.
    Distinct {
        /// The name rule.
        name: SymbolId,
        /// The scope rule.
        scope: SymbolId,
    },
    /// Generation never lets a token whose text is `before` directly touch a token whose text
    /// is `after` (`%separate "and" "(" ;`): CSS reads `and(` as a function token, where the
    /// grammar's layout between a media query's `and` and its `(` may be empty. For where a
    /// bound on that layout is refused (the layout's place is shared with places where the
    /// samples have none). Parsing is not changed.
    ///
    /// With `never`, generation never puts the two next to each other at all, layout or not
    /// (`%never "*" "except" ;`, texts compared ignoring ASCII case): sqlparser reads `* EXCEPT
    /// (` as a wildcard's column list where the grammar has a set operation, and `x EXCEPT
    /// (SELECT …)` or `* UNION (SELECT …)` are valid. For a culprit that is valid with another
    /// token before it (or after it), where the samples never have the two together.
    Separate {
        /// The token before.
        before: Vec<u8>,
        /// The token after.
        after: Vec<u8>,
        /// Not next to each other at all, rather than not touching.
        never: bool,
    },
}

impl Change {
    /// A key that is the same for the same edit (edits found for several inputs are made once).
    pub fn key(&self, grammar: &Grammar) -> String {
        match self {
            // The words change as inputs are accepted: the same edit with other words is
            // still the edit that was taken back.
            Change::Values { sym, .. } => {
                format!("`{}` drawn from the texts the parser takes", owner_name(grammar, *sym))
            }
            // One edit per key word, whatever the samples' texts with it.
            Change::ValuesBy { sym, key, word, .. } => format!(
                "`{}` drawn by `{}` \"{}\"",
                crate::grammar::base_name(&owner_name(grammar, *sym)),
                crate::grammar::base_name(&owner_name(grammar, *key)),
                crate::grammar::escape_literal(word)
            ),
            _ => self.describe(grammar),
        }
    }

    /// What the edit does, for people: `drop alternative 3 of `escape` ("\\" "k")`.
    pub fn describe(&self, g: &Grammar) -> String {
        let name = |s: SymbolId| owner_name(g, s);
        let base = |s: SymbolId| crate::grammar::base_name(&owner_name(g, s)).to_string();
        match self {
            Change::DropAlternative { sym, alt, also } => format!(
                "dropped alternative {} of `{}` ({}) everywhere{}",
                alt + 1,
                name(*sym),
                alternative_text(g, *sym, *alt),
                match also.len() {
                    0 => String::new(),
                    n => format!(", and from {n} other choice(s) no sample makes it in"),
                }
            ),
            Change::DropAlternativeAt { sym, alt, place } => format!(
                "dropped alternative {} of `{}` ({}) where `{}` uses it (item {} of its alternative {})",
                alt + 1,
                name(*sym),
                alternative_text(g, *sym, *alt),
                name(place.parent),
                place.item + 1,
                place.alt.map_or(1, |a| a + 1)
            ),
            Change::DropAlternativeAtAll { sym, alt, places } => format!(
                "dropped alternative {} of `{}` ({}) at the {} place(s) no sample has it at, in {}",
                alt + 1,
                name(*sym),
                alternative_text(g, *sym, *alt),
                places.len(),
                parents_shown(g, places)
            ),
            Change::JoinAfter {
                sym,
                alt,
                after,
                again,
                place,
            } => format!(
                "alternative {} of `{}` ({}) only right after alternative {}{} ({}), where `{}` uses it \
                 (item {} of its alternative {})",
                alt + 1,
                name(*sym),
                alternative_text(g, *sym, *alt),
                after + 1,
                if *again { " or itself" } else { "" },
                alternative_text(g, *sym, *after),
                name(place.parent),
                place.item + 1,
                place.alt.map_or(1, |a| a + 1)
            ),
            Change::Leading { rep, sym, alt, .. } => format!(
                "alternative {} of `{}` ({}) only before every other iteration of the repetition in `{}`",
                alt + 1,
                name(*sym),
                alternative_text(g, *sym, *alt),
                name(*rep)
            ),
            Change::ApartTail {
                sym,
                place,
                other,
                end,
                end_alt,
                drop,
                ..
            } => format!(
                "`{}` ({}) only where {} in `{}` (item {} of its alternative {}) ends without {} of `{}`'s alternative {}",
                name(*sym),
                g.item_text(Item::Symbol(*sym)),
                place_item(g.symbols(), Place { item: *other, ..*place }).map_or_else(String::new, |i| g.item_written(i)),
                name(place.parent),
                place.item + 1,
                place.alt.map_or(1, |a| a + 1),
                drop.iter()
                    .filter_map(|&i| place_item(g.symbols(), Place { parent: *end, alt: Some(*end_alt), item: i }))
                    .map(|i| g.item_written(i))
                    .collect::<Vec<_>>()
                    .join(" "),
                name(*end),
                end_alt + 1
            ),
            Change::Apart {
                sym,
                alt,
                inner,
                place,
                other,
                present,
            } => format!(
                "{} only {} {} in `{}` (item {} of its alternative {})",
                if let Some(choice) = inner {
                    format!(
                        "`{}` with alternative {} of its choice {} ({})",
                        name(*sym),
                        alt + 1,
                        g.item_text(Item::Symbol(*choice)),
                        alternative_text(g, *choice, *alt)
                    )
                } else if let Body::Optional(_) = g.symbol(*sym).body {
                    format!("`{}` ({}) there", name(*sym), g.item_text(Item::Symbol(*sym)))
                } else {
                    format!(
                        "alternative {} of `{}` ({})",
                        alt + 1,
                        name(*sym),
                        alternative_text(g, *sym, *alt)
                    )
                },
                if *present { "after" } else { "without" },
                place_item(g.symbols(), Place { item: *other, ..*place })
                    .map_or_else(String::new, |i| g.item_written(i)),
                name(place.parent),
                place.item + 1,
                place.alt.map_or(1, |a| a + 1)
            ),
            Change::OnlyWith {
                sym,
                alt,
                place,
                other,
                with,
            } => {
                let group = place_item(g.symbols(), Place { item: *other, ..*place });
                format!(
                    "alternative {} of `{}` ({}) only with {} of {} in `{}` (item {} of its alternative {})",
                    alt + 1,
                    name(*sym),
                    alternative_text(g, *sym, *alt),
                    match group {
                        Some(Item::Symbol(c)) => alternative_text(g, c, *with),
                        _ => String::new(),
                    },
                    group.map_or_else(String::new, |i| g.item_written(i)),
                    name(place.parent),
                    place.item + 1,
                    place.alt.map_or(1, |a| a + 1)
                )
            }
            Change::Keyed {
                sym,
                alt,
                place,
                key,
                words,
            } => format!(
                "alternative {} of `{}` ({}) only after {} spelled {}, in `{}` (item {} of its alternative {})",
                alt + 1,
                name(*sym),
                alternative_text(g, *sym, *alt),
                place_item(g.symbols(), Place { item: *key, ..*place }).map_or_else(String::new, |i| g.item_written(i)),
                shown_words(words),
                name(place.parent),
                place.item + 1,
                place.alt.map_or(1, |a| a + 1)
            ),
            Change::NarrowClass { place, class } => format!(
                "narrowed class {} in `{}` to {}",
                item_text(g, *place),
                name(place.parent),
                class.to_text()
            ),
            Change::Unroll { sym } => format!("`{}` ({}) written out", name(*sym), g.item_text(Item::Symbol(*sym))),
            Change::NarrowEnd { sym, class, last } => format!(
                "the {} character of `{}` ({}) drawn from {} only",
                if *last { "last" } else { "first" },
                name(*sym),
                g.item_text(Item::Symbol(*sym)),
                class.to_text()
            ),
            Change::Bound { sym, place, min, max } => {
                let how = match (min, max) {
                    (_, Some(0)) => "never there".to_string(),
                    (1, Some(1)) => "always there, once".to_string(),
                    (m, None) => format!("at least {m} time(s)"),
                    (m, Some(n)) => format!("{m} to {n} time(s)"),
                };
                let at = place.map_or_else(
                    || " everywhere".to_string(),
                    |p| format!(" where `{}` uses it", name(p.parent)),
                );
                format!("`{}` ({}): {how}{at}", name(*sym), g.item_text(Item::Symbol(*sym)))
            }
            Change::LayoutWithout { layout, places, drops } => {
                let kinds: Vec<String> = drops
                    .iter()
                    .filter_map(|(down, alt)| {
                        let Some(Item::Symbol(choice)) = end_of_way(g.symbols(), Some(Item::Symbol(*layout)), down) else {
                            return None;
                        };
                        Some(format!("{} of `{}` ({})", alt + 1, name(choice), alternative_text(g, choice, *alt)))
                    })
                    .collect();
                format!(
                    "layout `{}` without alternative {} at the {} place(s) where the parser rejects it, in {}",
                    name(*layout),
                    kinds.join(" and "),
                    places.len(),
                    parents_shown(g, places)
                )
            }
            Change::Specialize { sym, place } => format!(
                "`{}` ({}) made a rule of its own where `{}` uses it, for the edits inside it",
                name(*sym),
                g.item_text(Item::Symbol(*sym)),
                name(place.parent)
            ),
            Change::Recur { to, down } => format!(
                "`{}` uses `{}` where `{}` reaches its rule again{}: the copy's edits hold in its recursion",
                down.last().map_or_else(String::new, |p| name(p.parent)),
                name(*to),
                name(*to),
                match down.len() {
                    0 | 1 => String::new(),
                    n => format!(" (the {} rule(s) on the way copied for it)", n - 1),
                }
            ),
            Change::Values { sym, words } => format!(
                "`{}` drawn from the {} text(s) the parser takes: {}",
                name(*sym),
                words.len(),
                shown_words(words)
            ),
            Change::ValuesBy { sym, key, word, words } => format!(
                "`{}` with `{}` \"{}\" drawn from the samples' {} text(s) with it: {}",
                base(*sym),
                base(*key),
                crate::grammar::escape_literal(word),
                words.len(),
                shown_words(words)
            ),
            Change::Distinct { name: n, scope } => {
                format!("`{}` kept distinct within one `{}`", name(*n), name(*scope))
            }
            Change::Separate {
                before,
                after,
                never: false,
            } => format!(
                "\"{}\" never touches \"{}\" (a separator between them)",
                crate::grammar::escape_literal(before),
                crate::grammar::escape_literal(after)
            ),
            Change::Separate {
                before,
                after,
                never: true,
            } => format!(
                "\"{}\" never right after \"{}\", layout or not",
                crate::grammar::escape_literal(after),
                crate::grammar::escape_literal(before)
            ),
        }
    }
}

/// Words an edit's description shows.
const WORDS_SHOWN: usize = 8;

/// The first [`WORDS_SHOWN`] of `words`, quoted, and how many more there are.
fn shown_words(words: &[Vec<u8>]) -> String {
    let shown: Vec<String> = words
        .iter()
        .take(WORDS_SHOWN)
        .map(|w| format!("{:?}", String::from_utf8_lossy(w)))
        .collect();
    match words.len().saturating_sub(WORDS_SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Parents a [`Change::DropAlternativeAtAll`] or [`Change::LayoutWithout`] names in its
/// description.
const PARENTS_SHOWN: usize = 4;

/// The rules that hold `places`, as a description names them: the first [`PARENTS_SHOWN`],
/// then how many more.
fn parents_shown(g: &Grammar, places: &[Place]) -> String {
    let mut parents: Vec<String> = places
        .iter()
        .map(|p| format!("`{}`", owner_name(g, p.parent)))
        .collect();
    parents.dedup();
    let more = parents.len().saturating_sub(PARENTS_SHOWN);
    parents.truncate(PARENTS_SHOWN);
    let shown = parents.join(", ");
    if more > 0 {
        format!("{shown} and {more} more")
    } else {
        shown
    }
}

/// The text of alternative `alt` of `sym`.
fn alternative_text(g: &Grammar, sym: SymbolId, alt: usize) -> String {
    let alts = g.symbol(sym).alternatives();
    alts.get(alt).map_or_else(String::new, |a| {
        if a.items.is_empty() {
            "\"\"".into()
        } else {
            a.items.iter().map(|&i| g.item_text(i)).collect::<Vec<_>>().join(" ")
        }
    })
}

fn item_text(g: &Grammar, place: Place) -> String {
    place_item(g.symbols(), place).map_or_else(String::new, |i| g.item_text(i))
}

/// The named rule that a symbol is, or whose group or repetition it is.
pub fn owner_name(g: &Grammar, sym: SymbolId) -> String {
    let name = &g.symbol(sym).name;
    if g.symbol(sym).synthetic {
        // Synthetic symbols are named `rule.N`.
        name.rsplit_once('.')
            .map_or(name.as_str(), |(rule, _)| rule)
            .to_string()
    } else {
        name.clone()
    }
}

/// The same edit in the other copies of its place's rule: where `change` keeps a choice apart
/// from an optional part, the corresponding place in each other copy of that rule (`from` and
/// `from[in _select_statement]`), with the copy's own symbols. Copies are made for the edits
/// inside them, one context at a time; that two parts may not stand together holds in every
/// copy (`FROM ONLY (VALUES …)` is no SQL in any `SELECT`), and one copy a round would take
/// every round there is. Empty for other edits, and where a copy no longer has the choice.
/// (Drops of an alternative where a rule uses it are not echoed: measured on SQL, each echo
/// makes a copy of the rule that holds the alternative, the grammar grew 3.5 times, and the
/// acceptance stayed where it was.)
pub fn echoes(g: &Grammar, change: &Change) -> Vec<Change> {
    let Change::Apart {
        sym,
        alt,
        inner,
        place,
        other,
        present,
    } = *change
    else {
        return Vec::new();
    };
    let symbols = g.symbols();
    let parent = &symbols[place.parent.index()];
    let Some(parent_alt) = place.alt else {
        return Vec::new();
    };
    if parent.synthetic {
        return Vec::new();
    }
    let base = crate::grammar::base_name(&parent.name);
    let mut out = Vec::new();
    for (k, copy) in symbols.iter().enumerate() {
        if k == place.parent.index() || copy.synthetic || crate::grammar::base_name(&copy.name) != base {
            continue;
        }
        // The copy's alternative that says the same, and what stands at the place there.
        let Some(a) = corresponding_alt(symbols, place.parent, parent_alt, SymbolId(k as u32)) else {
            continue;
        };
        let at = Place {
            parent: SymbolId(k as u32),
            alt: Some(a),
            item: place.item,
        };
        let Some(Item::Symbol(sym2)) = place_item(symbols, at) else {
            continue;
        };
        let inner2 = match inner {
            None => None,
            Some(i) => match inner_counterpart(symbols, sym, i, sym2) {
                Some(i2) => Some(i2),
                None => continue,
            },
        };
        if let Some(alt) = corresponding_alt(symbols, inner.unwrap_or(sym), alt, inner2.unwrap_or(sym2)) {
            out.push(Change::Apart {
                sym: sym2,
                alt,
                inner: inner2,
                place: at,
                other,
                present,
            });
        }
    }
    out
}

/// The alternative of `to` that says what alternative `alt` of `from` says (the same
/// alternative where `to` is `from`; an optional part's presence where both are optional).
fn corresponding_alt(symbols: &[Symbol], from: SymbolId, alt: usize, to: SymbolId) -> Option<usize> {
    if from == to {
        return Some(alt);
    }
    match (&symbols[from.index()].body, &symbols[to.index()].body) {
        (Body::Choice(xs), Body::Choice(ys)) => {
            let wanted = xs.get(alt)?;
            ys.iter().position(|y| same_items(symbols, wanted, y))
        }
        (Body::Optional(_), Body::Optional(_)) => Some(alt),
        _ => None,
    }
}

/// In `to`, a rule of one alternative that says what `from`'s says, the item that stands
/// where `from`'s one alternative has the choice `inner`.
fn inner_counterpart(symbols: &[Symbol], from: SymbolId, inner: SymbolId, to: SymbolId) -> Option<SymbolId> {
    let (Body::Choice(xs), Body::Choice(ys)) = (&symbols[from.index()].body, &symbols[to.index()].body) else {
        return None;
    };
    let ([x], [y]) = (xs.as_slice(), ys.as_slice()) else {
        return None;
    };
    let k = x.items.iter().position(|&i| i == Item::Symbol(inner))?;
    match y.items.get(k) {
        Some(&Item::Symbol(s)) if same_items(symbols, x, y) => Some(s),
        _ => None,
    }
}

/// The item at `place`.
pub(super) fn place_item(symbols: &[Symbol], place: Place) -> Option<Item> {
    match (&symbols.get(place.parent.index())?.body, place.alt) {
        (Body::Choice(alts), Some(a)) => alts.get(a)?.items.get(place.item).copied(),
        (Body::Repeat { item, .. } | Body::Optional(item), None) => Some(*item),
        _ => None,
    }
}

/// Sets the item at `place`; false if there is no such place.
fn set_item(symbols: &mut [Symbol], place: Place, to: Item) -> bool {
    let Some(s) = symbols.get_mut(place.parent.index()) else {
        return false;
    };
    match (&mut s.body, place.alt) {
        (Body::Choice(alts), Some(a)) => match alts.get_mut(a).and_then(|alt| alt.items.get_mut(place.item)) {
            Some(slot) => {
                *slot = to;
                true
            }
            None => false,
        },
        (Body::Repeat { item, .. } | Body::Optional(item), None) => {
            *item = to;
            true
        }
        _ => false,
    }
}

/// The items in the rules that name `sym`, in the order of the rules.
pub(crate) fn places_of(symbols: &[Symbol], sym: SymbolId) -> Vec<Place> {
    let mut out = Vec::new();
    for (k, s) in symbols.iter().enumerate() {
        let parent = SymbolId(k as u32);
        match &s.body {
            Body::Choice(alts) => {
                for (a, alternative) in alts.iter().enumerate() {
                    for (item, &i) in alternative.items.iter().enumerate() {
                        if i == Item::Symbol(sym) {
                            out.push(Place {
                                parent,
                                alt: Some(a),
                                item,
                            });
                        }
                    }
                }
            }
            Body::Repeat { item, .. } | Body::Optional(item) => {
                if *item == Item::Symbol(sym) {
                    out.push(Place {
                        parent,
                        alt: None,
                        item: 0,
                    });
                }
            }
        }
    }
    out
}

/// Whether `sym` is the rule of `place` alone, edited there in place: a group, or a copy made
/// for the place's rule that this rule names nowhere else. A copy named at two places of its
/// rule (Rust's item-level `macro_invocation`, alone and before its `;`, after a
/// [`Change::JoinAfter`]) is copied again for one of them. (Copies of the rule made for other
/// places, which name the same inner copies, keep sharing them: `_[in X]` and `_` one `_extra`.)
fn own_rule_of(g: &Grammar, symbols: &[Symbol], sym: SymbolId, place: Place) -> bool {
    let s = &symbols[sym.index()];
    s.synthetic
        || (is_copy_for(&s.name, &owner_name(g, place.parent))
            && places_of(symbols, sym)
                .iter()
                .filter(|p| p.parent == place.parent)
                .count()
                == 1)
}

/// Whether `alt` names a group (a synthetic symbol): a group is used at one place, so an
/// alternative that holds one cannot be written twice ([`Change::JoinAfter`]).
pub(crate) fn holds_group(symbols: &[Symbol], alt: &Alternative) -> bool {
    alt.items
        .iter()
        .any(|&i| matches!(i, Item::Symbol(s) if symbols[s.index()].synthetic))
}

/// The longest fixed repetition [`Change::Unroll`] writes out.
pub const MAX_UNROLL: u32 = 16;

/// Why an edit cannot be made.
#[derive(Debug)]
pub enum EditError {
    /// The edit names a place or alternative the grammar does not have, or would leave a
    /// rule with no alternative.
    Impossible(String),
    /// The edited rules are not a valid grammar (e.g. a rule became unproductive).
    Invalid(GrammarError),
}

/// A grammar with edits made.
#[derive(Debug)]
#[non_exhaustive]
pub struct Applied {
    /// The edited grammar, loaded anew.
    pub grammar: Grammar,
    /// Its text (a complete grammar file).
    pub text: String,
    /// Per change, the named rules it changed or added.
    pub rules: Vec<Vec<String>>,
}

/// `grammar` with `changes` made, loaded anew.
pub fn apply(grammar: &Grammar, changes: &[Change], origin: &str) -> Result<Applied, EditError> {
    let mut draft = Draft {
        symbols: grammar.symbols().to_vec(),
        terminals: grammar.terminals().to_vec(),
        distinct: Vec::new(),
        values: Vec::new(),
        separate: Vec::new(),
    };
    let mut rules = Vec::new();
    for change in changes {
        rules.push(make(grammar, &mut draft, change)?);
    }
    let (grammar, text) = grammar
        .rebuilt_with(
            draft.symbols,
            draft.terminals,
            draft.distinct,
            draft.values,
            draft.separate,
            origin,
        )
        .map_err(EditError::Invalid)?;
    Ok(Applied { grammar, text, rules })
}

/// Most rules on the way down of a [`Change::Recur`]: a bound on the copies one edit makes.
pub const MAX_RECUR_STEPS: usize = 8;

/// The grammar's parts being edited.
struct Draft {
    symbols: Vec<Symbol>,
    terminals: Vec<Terminal>,
    distinct: Vec<Distinct>,
    values: Vec<Values>,
    separate: Vec<Separate>,
}

/// The literal terminal `bytes`, added if the grammar has none.
fn literal(terminals: &mut Vec<Terminal>, bytes: &[u8]) -> TerminalId {
    let i = terminals
        .iter()
        .position(|t| matches!(t, Terminal::Literal(b) if b == bytes))
        .unwrap_or_else(|| {
            terminals.push(Terminal::Literal(bytes.to_vec()));
            terminals.len() - 1
        });
    TerminalId(i as u32)
}

/// The class terminal matching `class`, added if the grammar has none.
fn class_terminal(terminals: &mut Vec<Terminal>, class: &CharClass) -> TerminalId {
    let i = terminals
        .iter()
        .position(|t| matches!(t, Terminal::Class { class: c, .. } if c == class))
        .unwrap_or_else(|| {
            terminals.push(Terminal::Class {
                class: class.clone(),
                text: class.to_text(),
            });
            terminals.len() - 1
        });
    TerminalId(i as u32)
}

/// Gives `place` its own copy of `sym` with `body` (named `sym[in parent]`, with the rule's
/// span, so that mining pools it with the rule's other instances where no sample reaches it:
/// see [`specialized_name`]); a group, or a copy already made for this place, is used there
/// only and gets `body` itself. The named rules changed or added.
fn specialize(
    g: &Grammar,
    symbols: &mut Vec<Symbol>,
    sym: SymbolId,
    place: Place,
    body: Body,
) -> Result<Vec<String>, &'static str> {
    if place_item(symbols, place) != Some(Item::Symbol(sym)) {
        return Err("the place does not use the rule");
    }
    if own_rule_of(g, symbols, sym, place) {
        symbols[sym.index()].body = body;
        return Ok(vec![owner_name(g, sym)]);
    }
    let original = &symbols[sym.index()];
    let parent = owner_name(g, place.parent);
    let copy = Symbol {
        name: specialized_name(symbols, &original.name, &parent),
        body,
        span: original.span,
        synthetic: false,
    };
    let name = copy.name.clone();
    let id = SymbolId(symbols.len() as u32);
    symbols.push(copy);
    own_groups(symbols, id);
    set_item(symbols, place, Item::Symbol(id));
    Ok(vec![name, parent])
}

/// `alts` without alternative `alt`, and that alternative: the two halves of a choice split
/// in two ([`Change::Apart`], [`Change::OnlyWith`], [`Change::Keyed`]); `None` unless `alt`
/// is one of them and another is left.
fn split_off(alts: &[Alternative], alt: usize) -> Option<(Vec<Alternative>, Alternative)> {
    if alts.len() < 2 || alt >= alts.len() {
        return None;
    }
    let mut without = alts.to_vec();
    let only = without.remove(alt);
    Some((without, only))
}

/// The rule at item `other` of the alternative that holds `place`, where that place, in a
/// sequence, uses `sym` (the part [`Change::Apart`] and [`Change::Keyed`] split a choice by).
fn rule_beside(symbols: &[Symbol], sym: SymbolId, place: Place, other: usize) -> Option<SymbolId> {
    if place.alt.is_none() || other == place.item || place_item(symbols, place) != Some(Item::Symbol(sym)) {
        return None;
    }
    match place_item(symbols, Place { item: other, ..place }) {
        Some(Item::Symbol(s)) => Some(s),
        _ => None,
    }
}

/// Splits the alternative of `place.parent` that holds `place` in two: there `sym` becomes a
/// copy for the place with the alternatives `without`, and a new alternative of the parent
/// has, in `sym`'s place, a rule of `only` alone, and at item `other` `at_other` (nothing
/// where `None`). Every group of the new alternative is its own. The named rules changed or
/// added.
fn split_in_two(
    g: &Grammar,
    symbols: &mut Vec<Symbol>,
    sym: SymbolId,
    place: Place,
    (without, only): (Vec<Alternative>, Alternative),
    other: usize,
    at_other: Option<Item>,
) -> Result<Vec<String>, &'static str> {
    let parent_name = owner_name(g, place.parent);
    let (Some(k), Body::Choice(parent_alts)) = (place.alt, &symbols[place.parent.index()].body) else {
        return Err("not in a sequence");
    };
    let split = parent_alts.get(k).cloned().ok_or("no such alternative")?;
    if other >= split.items.len() || other == place.item {
        return Err("no such item");
    }
    // With the rule's groups, which `sym` keeps too.
    let alone = copy_rule(g, symbols, sym, place.parent, Body::Choice(vec![only]));
    let mut items = split.items.clone();
    items[place.item] = Item::Symbol(alone);
    match at_other {
        Some(item) => items[other] = item,
        None => drop(items.remove(other)),
    }
    // Held by a group of its own whose groups are copies, so that no group is used twice.
    let holder = SymbolId(symbols.len() as u32);
    symbols.push(Symbol {
        name: parent_name.clone(),
        body: Body::Choice(vec![Alternative { items, ..split }]),
        span: symbols[place.parent.index()].span,
        synthetic: true,
    });
    own_groups(symbols, holder);
    let Body::Choice(mut held) = symbols[holder.index()].body.clone() else {
        return Err("not a sequence");
    };
    let second = held.remove(0);
    let mut rules = specialize(g, symbols, sym, place, Body::Choice(without))?;
    let Body::Choice(parent_alts) = &mut symbols[place.parent.index()].body else {
        return Err("not in a sequence");
    };
    parent_alts.push(second);
    rules.push(parent_name);
    rules.dedup();
    Ok(rules)
}

/// A copy of rule `sym` with `body`, for its place in `holder` (a group keeps its name, being
/// written inline; a named rule is named `sym[in holder]`), with groups of its own.
fn copy_rule(g: &Grammar, symbols: &mut Vec<Symbol>, sym: SymbolId, holder: SymbolId, body: Body) -> SymbolId {
    let original = symbols[sym.index()].clone();
    let name = if original.synthetic {
        original.name.clone()
    } else {
        specialized_name(symbols, &original.name, &owner_name(g, holder))
    };
    let id = SymbolId(symbols.len() as u32);
    symbols.push(Symbol {
        name,
        body,
        span: original.span,
        synthetic: original.synthetic,
    });
    own_groups(symbols, id);
    id
}

/// The rule that the way `down` leads to in `g`, from the first step's own rule.
pub(super) fn end_of_way_in(g: &Grammar, down: &[Place]) -> Option<SymbolId> {
    match end_of_way(g.symbols(), Some(Item::Symbol(down.first()?.parent)), down)? {
        Item::Symbol(s) => Some(s),
        Item::Terminal(_) => None,
    }
}

/// The item that the way `down` leads to from `start`, each step a place in the rule that
/// the step before led to; `None` where the way is no longer there as it was found.
fn end_of_way(symbols: &[Symbol], start: Option<Item>, down: &[Place]) -> Option<Item> {
    let mut at = start;
    for step in down {
        if at != Some(Item::Symbol(step.parent)) {
            return None;
        }
        at = place_item(symbols, *step);
    }
    at
}

/// Copies of the rules the way `down` passes through, from the bottom up, each for the rule
/// above it (the first for `holder`) and holding the next copy at its step's place, the last
/// one `bottom`. The top copy; the names of the named copies are added to `rules` (a group is
/// written inline in its holder).
fn copy_way(
    g: &Grammar,
    symbols: &mut Vec<Symbol>,
    holder: SymbolId,
    down: &[Place],
    bottom: SymbolId,
    rules: &mut Vec<String>,
) -> SymbolId {
    copy_way_by(g, symbols, holder, down, bottom, rules, false).expect("a whole rule's copy has every step's place")
}

/// [`copy_way`], where with `taken` each copy on the way holds only the alternative its step
/// takes (the way down to [`Change::Leading`]'s leading iterations); `None` where a step
/// takes no alternative.
fn copy_way_by(
    g: &Grammar,
    symbols: &mut Vec<Symbol>,
    holder: SymbolId,
    down: &[Place],
    bottom: SymbolId,
    rules: &mut Vec<String>,
    taken: bool,
) -> Option<SymbolId> {
    let mut copy = bottom;
    for (k, step) in down.iter().enumerate().rev() {
        let above = if k == 0 { holder } else { down[k - 1].parent };
        let (body, at) = if taken {
            let alt = symbols[step.parent.index()].alternatives().get(step.alt?)?.clone();
            (Body::Choice(vec![alt]), Some(0))
        } else {
            (symbols[step.parent.index()].body.clone(), step.alt)
        };
        let next = copy_rule(g, symbols, step.parent, above, body);
        let place = Place {
            parent: next,
            alt: at,
            item: step.item,
        };
        set_item(symbols, place, Item::Symbol(copy));
        rules.extend(named_copy(symbols, next));
        copy = next;
    }
    Some(copy)
}

/// The name of copy `id`, if it is a named rule.
fn named_copy(symbols: &[Symbol], id: SymbolId) -> Option<String> {
    (!symbols[id.index()].synthetic).then(|| symbols[id.index()].name.clone())
}

/// Gives the new rule `id` copies of the groups its body uses, named `rule.N`: a group is
/// used in one place only, and is edited there in place, so a copy must not share its groups
/// with the rule it was copied from.
fn own_groups(symbols: &mut Vec<Symbol>, id: SymbolId) {
    let name = symbols[id.index()].name.clone();
    let mut next = 1;
    // A worklist, not recursion: groups nest as deep as the grammar file does.
    let mut todo = vec![id];
    while let Some(s) = todo.pop() {
        let mut body = symbols[s.index()].body.clone();
        let items: Vec<&mut Item> = match &mut body {
            Body::Choice(alts) => alts.iter_mut().flat_map(|a| a.items.iter_mut()).collect(),
            Body::Repeat { item, .. } | Body::Optional(item) => vec![item],
        };
        for item in items {
            let Item::Symbol(child) = *item else { continue };
            if !symbols[child.index()].synthetic {
                continue;
            }
            let mut group = symbols[child.index()].clone();
            group.name = format!("{name}.{next}");
            next += 1;
            let new = SymbolId(symbols.len() as u32);
            symbols.push(group);
            *item = Item::Symbol(new);
            todo.push(new);
        }
        symbols[s.index()].body = body;
    }
}

/// The named symbols of the rule `sym` is an instance of (`x` and every `x[...]`).
pub(crate) fn instances(symbols: &[Symbol], g: &Grammar, sym: SymbolId) -> Vec<SymbolId> {
    let base = crate::grammar::base_name(&owner_name(g, sym));
    (0..symbols.len())
        .filter(|&i| {
            let s = &symbols[i];
            !s.synthetic && crate::grammar::base_name(&s.name) == base
        })
        .map(|i| SymbolId(i as u32))
        .collect()
}

/// Makes one change; the named rules it changed or added.
fn make(g: &Grammar, draft: &mut Draft, change: &Change) -> Result<Vec<String>, EditError> {
    let impossible = |what: &str| Err(EditError::Impossible(format!("{what}: {}", change.describe(g))));
    let Draft {
        symbols,
        terminals,
        distinct,
        values,
        separate,
    } = draft;
    match change {
        Change::DropAlternative { sym, alt, also } => {
            let Some(dropped) = symbols[sym.index()].alternatives().get(*alt).cloned() else {
                return impossible("no such alternative");
            };
            let mut drops: Vec<(SymbolId, usize)> = also.clone();
            drops.push((*sym, *alt));
            // Per symbol from the last alternative down, so that the indices stay valid.
            drops.sort_unstable_by(|a, b| b.cmp(a));
            drops.dedup();
            let mut rules = vec![owner_name(g, *sym)];
            for (s, k) in drops {
                let same = symbols[s.index()]
                    .alternatives()
                    .get(k)
                    .is_some_and(|a| same_items(symbols, a, &dropped));
                let Body::Choice(alts) = &mut symbols[s.index()].body else {
                    return impossible("not a choice");
                };
                if !same || alts.len() < 2 {
                    return impossible("no such alternative, or no other would be left");
                }
                alts.remove(k);
                rules.push(owner_name(g, s));
            }
            rules.sort();
            rules.dedup();
            Ok(rules)
        }
        Change::DropAlternativeAt { sym, alt, place } => {
            let Body::Choice(alts) = &symbols[sym.index()].body else {
                return impossible("not a choice");
            };
            if alts.len() < 2 || *alt >= alts.len() {
                return impossible("no other alternative would be left");
            }
            let mut alts: Vec<Alternative> = alts.clone();
            alts.remove(*alt);
            specialize(g, symbols, *sym, *place, Body::Choice(alts)).or_else(&impossible)
        }
        Change::DropAlternativeAtAll { sym, alt, places } => {
            let original = &symbols[sym.index()];
            let Body::Choice(alts) = &original.body else {
                return impossible("not a choice");
            };
            if alts.len() < 2 || *alt >= alts.len() || places.len() < 2 || original.synthetic {
                return impossible("no other alternative would be left, or not a named rule used at places");
            }
            let name = original.name.clone();
            // The places first, the copy's own among them (a recursive rule's places in its
            // body): the copy is made from the body as it then is, so that what it holds at
            // those places is the copy again.
            let copy = SymbolId(symbols.len() as u32);
            for &place in places {
                if place_item(symbols, place) != Some(Item::Symbol(*sym)) {
                    return impossible("a place does not use the rule");
                }
                set_item(symbols, place, Item::Symbol(copy));
            }
            let Body::Choice(mut alts) = symbols[sym.index()].body.clone() else {
                return impossible("not a choice");
            };
            alts.remove(*alt);
            let taken = |n: &str| symbols.iter().any(|s| s.name == n);
            let new_name = std::iter::once(format!("{name}[without {}]", alt + 1))
                .chain((2..).map(|k| format!("{name}[without {} {k}]", alt + 1)))
                .find(|n| !taken(n))
                .expect("some name is free");
            symbols.push(Symbol {
                name: new_name.clone(),
                body: Body::Choice(alts),
                span: symbols[sym.index()].span,
                synthetic: false,
            });
            own_groups(symbols, copy);
            let mut rules: Vec<String> = places.iter().map(|p| owner_name(g, p.parent)).collect();
            rules.push(new_name);
            rules.sort();
            rules.dedup();
            Ok(rules)
        }
        Change::LayoutWithout { layout, places, drops } => {
            let original = &symbols[layout.index()];
            if places.is_empty() || drops.is_empty() || original.synthetic {
                return impossible("no places, no kinds, or not a named rule");
            }
            for &place in places {
                if place_item(symbols, place) != Some(Item::Symbol(*layout)) {
                    return impossible("a place does not use the layout");
                }
            }
            let name = original.name.clone();
            let fresh = symbols.len();
            let taken = |n: &str, symbols: &[Symbol]| symbols.iter().any(|s| s.name == n);
            let stem = format!("{name}[without");
            let new_name = (1..)
                .map(|k| format!("{stem} {k}]"))
                .find(|n| !taken(n, symbols))
                .expect("some name is free");
            let top = copy_rule(g, symbols, *layout, *layout, symbols[layout.index()].body.clone());
            symbols[top.index()].name = new_name.clone();
            let mut rules = vec![new_name];
            // Per drop, the way down through copies of this edit's own (a rule already copied
            // for an earlier drop, or a group its copy owns, is walked into, not copied again).
            let mut removals: Vec<(SymbolId, usize)> = Vec::new();
            for (down, alt) in drops {
                if end_of_way(symbols, Some(Item::Symbol(*layout)), down).is_none() || down.is_empty() {
                    return impossible("the way down to a kind changed");
                }
                let mut at = top;
                for step in down {
                    let here = Place { parent: at, ..*step };
                    let Some(Item::Symbol(child)) = place_item(symbols, here) else {
                        return impossible("the way down to a kind changed");
                    };
                    at = if child.index() >= fresh {
                        child
                    } else {
                        // Named for the rule it is copied in (the copy above is no rule of `g`).
                        let copy = copy_rule(g, symbols, child, step.parent, symbols[child.index()].body.clone());
                        set_item(symbols, here, Item::Symbol(copy));
                        rules.extend(named_copy(symbols, copy));
                        copy
                    };
                }
                removals.push((at, *alt));
            }
            removals.sort_unstable_by(|a, b| b.cmp(a));
            removals.dedup();
            for (choice, alt) in removals {
                let Body::Choice(alts) = &mut symbols[choice.index()].body else {
                    return impossible("a kind's choice is no choice");
                };
                if alt >= alts.len() || alts.len() < 2 {
                    return impossible("no such alternative, or no other would be left");
                }
                alts.remove(alt);
            }
            for &place in places {
                set_item(symbols, place, Item::Symbol(top));
            }
            rules.extend(places.iter().map(|p| owner_name(g, p.parent)));
            rules.sort();
            rules.dedup();
            Ok(rules)
        }
        Change::JoinAfter {
            sym,
            alt,
            after,
            again,
            place,
        } => {
            let Body::Choice(alts) = &symbols[sym.index()].body else {
                return impossible("not a choice");
            };
            if alts.len() < 2 || *alt >= alts.len() || *after >= alts.len() || alt == after {
                return impossible("no such alternatives");
            }
            if holds_group(symbols, &alts[*after]) {
                return impossible("the alternative before holds a group");
            }
            let mut alts: Vec<Alternative> = alts.clone();
            let mut tail = alts[*alt].items.clone();
            if *again {
                // `alt`'s items one or more times: a repetition of them (in a group of their
                // own where they are more than one).
                let (name, span) = (symbols[sym.index()].name.clone(), symbols[sym.index()].span);
                let item = match tail.as_slice() {
                    [one] => *one,
                    _ => {
                        symbols.push(Symbol {
                            name: name.clone(),
                            body: Body::Choice(vec![Alternative {
                                items: tail,
                                weight: None,
                                prec: None,
                                span: alts[*alt].span,
                            }]),
                            span,
                            synthetic: true,
                        });
                        Item::Symbol(SymbolId(symbols.len() as u32 - 1))
                    }
                };
                symbols.push(Symbol {
                    name,
                    body: Body::Repeat {
                        item,
                        min: 1,
                        max: None,
                    },
                    span,
                    synthetic: true,
                });
                tail = vec![Item::Symbol(SymbolId(symbols.len() as u32 - 1))];
            }
            let joined = Alternative {
                items: [alts[*after].items.clone(), tail].concat(),
                weight: None,
                prec: alts[*after].prec,
                span: alts[*alt].span,
            };
            alts.remove(*alt);
            alts.push(joined);
            specialize(g, symbols, *sym, *place, Body::Choice(alts)).or_else(&impossible)
        }
        Change::ApartTail {
            sym,
            place,
            other,
            down,
            end,
            end_alt,
            drop,
        } => {
            let Body::Optional(inner) = symbols[sym.index()].body else {
                return impossible("no optional part there");
            };
            if drop.is_empty() {
                return impossible("no parts to drop");
            }
            // The way down must still be there as it was found.
            let first = place_item(symbols, Place { item: *other, ..*place });
            if end_of_way(symbols, first, down) != Some(Item::Symbol(*end)) {
                return impossible("the earlier item's right edge changed");
            }
            let Body::Choice(mut alts) = symbols[end.index()].body.clone() else {
                return impossible("the rule on the right edge is no sequence");
            };
            let Some(items) = alts.get_mut(*end_alt).map(|a| &mut a.items) else {
                return impossible("no such alternative");
            };
            let mut dropped: Vec<usize> = drop.clone();
            dropped.sort_unstable();
            if dropped.last().is_some_and(|&i| i >= items.len()) {
                return impossible("no such item");
            }
            for &i in dropped.iter().rev() {
                items.remove(i);
            }
            // The copies, from the right edge up: each rule on the way gets a copy holding
            // the next copy in its place.
            let holder = down.last().map_or(place.parent, |p| p.parent);
            let end_copy = copy_rule(g, symbols, *end, holder, Body::Choice(alts));
            let mut rules = Vec::new();
            rules.extend(named_copy(symbols, end_copy));
            let copy = copy_way(g, symbols, place.parent, down, end_copy, &mut rules);
            let with = |items| Alternative {
                items,
                weight: None,
                prec: None,
                span: symbols[sym.index()].span,
            };
            let (without, only) = (vec![with(Vec::new())], with(vec![inner]));
            rules.extend(
                split_in_two(
                    g,
                    symbols,
                    *sym,
                    *place,
                    (without, only),
                    *other,
                    Some(Item::Symbol(copy)),
                )
                .or_else(&impossible)?,
            );
            rules.sort();
            rules.dedup();
            Ok(rules)
        }
        Change::Apart {
            sym,
            alt,
            inner: within,
            place,
            other,
            present,
        } => {
            let Some(optional) = rule_beside(symbols, *sym, *place, *other) else {
                return impossible("the place does not use the rule, or no optional part beside it");
            };
            let Body::Optional(inner) = symbols[optional.index()].body else {
                return impossible("no optional part there");
            };
            let original = symbols[sym.index()].clone();
            let (without, only) = match (within, &original.body) {
                // The one alternative twice, its choice without `alt` in the first and `alt`
                // alone in the second, each in a group of its own.
                (Some(choice), Body::Choice(alts)) if alts.len() == 1 => {
                    let Some(j) = alts[0].items.iter().position(|i| *i == Item::Symbol(*choice)) else {
                        return impossible("the choice is no item of the rule");
                    };
                    let (Body::Choice(choices), true) =
                        (&symbols[choice.index()].body, symbols[choice.index()].synthetic)
                    else {
                        return impossible("the choice is no group");
                    };
                    let Some((rest, only)) = split_off(choices, *alt) else {
                        return impossible("no other alternative would be left");
                    };
                    let mut with_group = |alts: Vec<Alternative>| {
                        let group = SymbolId(symbols.len() as u32);
                        symbols.push(Symbol {
                            body: Body::Choice(alts),
                            ..symbols[choice.index()].clone()
                        });
                        let mut a = original.alternatives()[0].clone();
                        a.items[j] = Item::Symbol(group);
                        a
                    };
                    (vec![with_group(rest)], with_group(vec![only]))
                }
                (Some(_), _) => return impossible("not a rule of one alternative"),
                (None, Body::Choice(alts)) => match split_off(alts, *alt) {
                    Some(parts) => parts,
                    None => return impossible("no other alternative would be left"),
                },
                // An optional part's alternative 1 is its being there.
                (None, &Body::Optional(item)) if *alt == 1 => {
                    let with = |items| Alternative {
                        items,
                        weight: None,
                        prec: None,
                        span: original.span,
                    };
                    (vec![with(Vec::new())], with(vec![item]))
                }
                _ => return impossible("no other alternative would be left"),
            };
            let at_other = present.then_some(inner);
            split_in_two(g, symbols, *sym, *place, (without, only), *other, at_other).or_else(&impossible)
        }
        Change::OnlyWith {
            sym,
            alt,
            place,
            other,
            with,
        } => {
            let Some(group) = rule_beside(symbols, *sym, *place, *other) else {
                return impossible("the place does not use the rule, or no group beside it");
            };
            let (Body::Choice(choices), true) = (&symbols[group.index()].body, symbols[group.index()].synthetic) else {
                return impossible("the item beside it is no group choice");
            };
            let Some(kept) = choices.get(*with).cloned() else {
                return impossible("no such alternative of the group");
            };
            if choices.len() < 2 {
                return impossible("the group makes no choice");
            }
            let Body::Choice(alts) = &symbols[sym.index()].body else {
                return impossible("not a choice");
            };
            let Some((without, only)) = split_off(alts, *alt) else {
                return impossible("no other alternative would be left");
            };
            let alone = SymbolId(symbols.len() as u32);
            symbols.push(Symbol {
                body: Body::Choice(vec![kept]),
                ..symbols[group.index()].clone()
            });
            split_in_two(
                g,
                symbols,
                *sym,
                *place,
                (without, only),
                *other,
                Some(Item::Symbol(alone)),
            )
            .or_else(&impossible)
        }
        Change::Keyed {
            sym,
            alt,
            place,
            key,
            words,
        } => {
            let Some(key_sym) = rule_beside(symbols, *sym, *place, *key) else {
                return impossible("the place does not use the rule, or no rule at the key");
            };
            let key_rule = symbols[key_sym.index()].clone();
            let original = symbols[sym.index()].clone();
            let Body::Choice(alts) = &original.body else {
                return impossible("not a choice");
            };
            let parts = split_off(alts, *alt).filter(|_| !key_rule.synthetic && !words.is_empty());
            let Some((without, only)) = parts else {
                return impossible("the key is no named rule, no words, or no other alternative would be left");
            };
            let parent_name = owner_name(g, place.parent);
            // The key of the second alternative, where `sym` is `alt` alone: a copy of its rule.
            let keyed = SymbolId(symbols.len() as u32);
            let keyed_name = specialized_name(symbols, &key_rule.name, &parent_name);
            symbols.push(Symbol {
                name: keyed_name.clone(),
                ..key_rule.clone()
            });
            own_groups(symbols, keyed);
            let mut rules = split_in_two(
                g,
                symbols,
                *sym,
                *place,
                (without, only),
                *key,
                Some(Item::Symbol(keyed)),
            )
            .or_else(&impossible)?;
            // The copy's texts drawn from the words (its own `%values`, drawn after the rule's).
            let base = crate::grammar::base_name(&key_rule.name).to_string();
            let source_name = values_name(symbols, &base);
            symbols.push(Symbol {
                name: source_name.clone(),
                body: Body::Choice(word_alternatives(terminals, words, key_rule.span)),
                span: key_rule.span,
                synthetic: false,
            });
            values.push(Values {
                names: vec![keyed],
                source: SymbolId(symbols.len() as u32 - 1),
                key: Vec::new(),
            });
            rules.extend([keyed_name, source_name]);
            rules.sort();
            rules.dedup();
            Ok(rules)
        }
        Change::NarrowClass { place, class } => {
            if class.is_empty() {
                return impossible("the class would match nothing");
            }
            let Some(Item::Terminal(_)) = place_item(symbols, *place) else {
                return impossible("no class there");
            };
            set_item(symbols, *place, Item::Terminal(class_terminal(terminals, class)));
            Ok(vec![owner_name(g, place.parent)])
        }
        Change::Leading { rep, down, sym, alt } => {
            let r = &symbols[rep.index()];
            let Body::Repeat {
                item: top @ Item::Symbol(_),
                min: 0,
                max: None,
            } = r.body
            else {
                return impossible("not a repetition of a rule, of any number");
            };
            let (name, span) = (r.name.clone(), r.span);
            if end_of_way(symbols, Some(top), down) != Some(Item::Symbol(*sym)) {
                return impossible("the way down to the choice changed");
            }
            let Some((without, only)) = split_off(symbols[sym.index()].alternatives(), *alt) else {
                return impossible("no such alternative, or no other would be left");
            };
            let holder = down.last().map_or(*rep, |step| step.parent);
            let mut rules = vec![owner_name(g, *rep)];
            // The leading iterations: each rule on the way only as the way takes it.
            let only = copy_rule(g, symbols, *sym, holder, Body::Choice(vec![only]));
            rules.extend(named_copy(symbols, only));
            let Some(lead) = copy_way_by(g, symbols, *rep, down, only, &mut rules, true) else {
                return impossible("the way passes no alternative");
            };
            // The others: the way as it is, down to the choice without the alternative.
            let bottom = copy_rule(g, symbols, *sym, holder, Body::Choice(without));
            rules.extend(named_copy(symbols, bottom));
            let rest = copy_way(g, symbols, *rep, down, bottom, &mut rules);
            let mut repeat = |item: SymbolId| {
                symbols.push(Symbol {
                    name: name.clone(),
                    body: Body::Repeat {
                        item: Item::Symbol(item),
                        min: 0,
                        max: None,
                    },
                    span,
                    synthetic: true,
                });
                Item::Symbol(SymbolId(symbols.len() as u32 - 1))
            };
            let items = vec![repeat(lead), repeat(rest)];
            symbols[rep.index()].body = Body::Choice(vec![Alternative {
                items,
                weight: None,
                prec: None,
                span,
            }]);
            rules.sort();
            rules.dedup();
            Ok(rules)
        }
        Change::NarrowEnd { sym, class, last } => {
            let s = &symbols[sym.index()];
            let Body::Repeat {
                item: item @ Item::Terminal(t),
                min,
                max,
            } = s.body
            else {
                return impossible("not a repetition of a class");
            };
            if class.is_empty() || !matches!(terminals[t.index()], Terminal::Class { .. }) {
                return impossible("not a repetition of a class, or the class would match nothing");
            }
            let (span, name) = (s.span, s.name.clone());
            let end = Item::Terminal(class_terminal(terminals, class));
            // The other iterations, one fewer at each bound (none if at most one was allowed).
            let rest = (max != Some(1)).then(|| {
                symbols.push(Symbol {
                    name: name.clone(),
                    body: Body::Repeat {
                        item,
                        min: min.saturating_sub(1),
                        max: max.map(|m| m - 1),
                    },
                    span,
                    synthetic: true,
                });
                Item::Symbol(SymbolId(symbols.len() as u32 - 1))
            });
            let items: Vec<Item> = match (rest, *last) {
                (None, _) => vec![end],
                (Some(r), false) => vec![end, r],
                (Some(r), true) => vec![r, end],
            };
            let seq = Body::Choice(vec![Alternative {
                items,
                weight: None,
                prec: None,
                span,
            }]);
            symbols[sym.index()].body = if min == 0 {
                symbols.push(Symbol {
                    name,
                    body: seq,
                    span,
                    synthetic: true,
                });
                Body::Optional(Item::Symbol(SymbolId(symbols.len() as u32 - 1)))
            } else {
                seq
            };
            Ok(vec![owner_name(g, *sym)])
        }
        Change::Unroll { sym } => {
            let s = &mut symbols[sym.index()];
            let Body::Repeat { item, min, max } = s.body else {
                return impossible("not a repetition");
            };
            if max != Some(min) || min > MAX_UNROLL {
                return impossible("not a fixed repetition of a few");
            }
            s.body = Body::Choice(vec![Alternative {
                items: vec![item; min as usize],
                weight: None,
                prec: None,
                span: s.span,
            }]);
            Ok(vec![owner_name(g, *sym)])
        }
        Change::Bound { sym, place, min, max } => {
            let original = &symbols[sym.index()];
            let item = match original.body {
                Body::Repeat { item, .. } | Body::Optional(item) => item,
                Body::Choice(_) => return impossible("not a repetition or optional part"),
            };
            let span = original.span;
            let body = match (*min, *max) {
                (_, Some(0)) => Body::Choice(vec![Alternative {
                    items: Vec::new(),
                    weight: None,
                    prec: None,
                    span,
                }]),
                (1, Some(1)) => Body::Choice(vec![Alternative {
                    items: vec![item],
                    weight: None,
                    prec: None,
                    span,
                }]),
                (lo, hi) if hi.is_none_or(|h| h >= lo.max(1)) => Body::Repeat { item, min: lo, max: hi },
                _ => return impossible("the bounds are empty"),
            };
            match place {
                Some(place) => specialize(g, symbols, *sym, *place, body).or_else(&impossible),
                None => {
                    symbols[sym.index()].body = body;
                    Ok(vec![owner_name(g, *sym)])
                }
            }
        }
        Change::Recur { to, down } => {
            let Some(first) = down.first() else {
                return impossible("no way down");
            };
            if symbols[to.index()].synthetic || down.len() > MAX_RECUR_STEPS {
                return impossible("the copy is no named rule, or the way down is too long");
            }
            // The way down must still be there as it was found, from the copy to its rule.
            match end_of_way(symbols, Some(Item::Symbol(*to)), down) {
                Some(Item::Symbol(s))
                    if s != *to
                        && !symbols[s.index()].synthetic
                        && crate::grammar::base_name(&symbols[s.index()].name)
                            == crate::grammar::base_name(&symbols[to.index()].name) => {}
                _ => return impossible("the way down changed, or does not end at the copy's rule"),
            }
            // The copies, from the bottom up: each rule on the way gets a copy holding the
            // next copy in its place, the last one holding `to` itself.
            let mut rules = vec![owner_name(g, *to)];
            let copy = copy_way(g, symbols, *to, &down[1..], *to, &mut rules);
            set_item(symbols, *first, Item::Symbol(copy));
            rules.sort();
            rules.dedup();
            Ok(rules)
        }
        Change::Specialize { sym, place } => {
            if own_rule_of(g, symbols, *sym, *place) {
                return impossible("already a rule of that place alone");
            }
            let body = symbols[sym.index()].body.clone();
            specialize(g, symbols, *sym, *place, body).or_else(&impossible)
        }
        Change::Values { sym, words } => {
            let original = &symbols[sym.index()];
            if original.synthetic || words.is_empty() {
                return impossible("not a named rule, or no words");
            }
            let span = original.span;
            let base = crate::grammar::base_name(&original.name).to_string();
            let alts = word_alternatives(terminals, words, span);
            let name = values_name(symbols, &base);
            // A second edit of the same rule replaces the words of the first. A copy's words
            // are its own (what `%values` covers when it names the copy): CSS's strings after
            // `@namespace`, or its integers in a media query (`768px`), are no words for
            // every string or integer.
            let names = crate::grammar::instances_named(symbols, &owner_name(g, *sym));
            let plain = |v: &&Values| v.names == names && v.key.is_empty();
            let old_source = values.iter().find(plain).map(|v| v.source);
            let source = match old_source.or_else(|| g.values().iter().find(plain).map(|v| v.source)) {
                Some(src) => {
                    symbols[src.index()].body = Body::Choice(alts);
                    src
                }
                None => {
                    symbols.push(Symbol {
                        name: name.clone(),
                        body: Body::Choice(alts),
                        span,
                        synthetic: false,
                    });
                    SymbolId(symbols.len() as u32 - 1)
                }
            };
            values.retain(|v| v.names != names || !v.key.is_empty());
            values.push(Values {
                names,
                source,
                key: Vec::new(),
            });
            Ok(vec![base, symbols[source.index()].name.clone()])
        }
        Change::ValuesBy { sym, key, words, .. } => {
            if symbols[sym.index()].synthetic || symbols[key.index()].synthetic || words.is_empty() {
                return impossible("not named rules, or no words");
            }
            let span = symbols[sym.index()].span;
            let base = crate::grammar::base_name(&symbols[sym.index()].name).to_string();
            let key_base = crate::grammar::base_name(&symbols[key.index()].name).to_string();
            let names = crate::grammar::instances_named(symbols, &base);
            let keys = crate::grammar::instances_named(symbols, &key_base);
            let same = |v: &&Values| v.names == names && v.key == keys;
            let old_source = values
                .iter()
                .find(same)
                .or_else(|| g.values().iter().find(same))
                .map(|v| v.source);
            let source = match old_source {
                // The words of other keys stay; this key's are added.
                Some(src) => {
                    let mut all: Vec<Vec<u8>> = match &symbols[src.index()].body {
                        Body::Choice(alts) => alts
                            .iter()
                            .filter_map(|a| crate::grammar::literal_text(terminals, &a.items))
                            .collect(),
                        _ => Vec::new(),
                    };
                    for w in words {
                        if !all.contains(w) {
                            all.push(w.clone());
                        }
                    }
                    symbols[src.index()].body = Body::Choice(word_alternatives(terminals, &all, span));
                    src
                }
                None => {
                    symbols.push(Symbol {
                        name: values_name(symbols, &base),
                        body: Body::Choice(word_alternatives(terminals, words, span)),
                        span,
                        synthetic: false,
                    });
                    SymbolId(symbols.len() as u32 - 1)
                }
            };
            values.retain(|v| v.names != names || v.key != keys);
            values.push(Values {
                names,
                source,
                key: keys,
            });
            Ok(vec![base, symbols[source.index()].name.clone()])
        }
        Change::Distinct { name, scope } => {
            if symbols[name.index()].synthetic || symbols[scope.index()].synthetic {
                return impossible("not named rules");
            }
            let d = Distinct {
                names: instances(symbols, g, *name),
                scopes: instances(symbols, g, *scope),
            };
            if !distinct.contains(&d) {
                distinct.push(d);
            }
            Ok(vec![owner_name(g, *name)])
        }
        Change::Separate { before, after, never } => {
            if before.is_empty() || after.is_empty() {
                return impossible("an empty token");
            }
            let s = Separate {
                before: before.clone(),
                after: after.clone(),
                never: *never,
            };
            if g.separate().contains(&s) || separate.contains(&s) {
                return impossible("already kept apart");
            }
            separate.push(s);
            Ok(Vec::new())
        }
    }
}

/// A rule's alternatives for `words`, one literal each (none for the empty word).
fn word_alternatives(terminals: &mut Vec<Terminal>, words: &[Vec<u8>], span: crate::grammar::Span) -> Vec<Alternative> {
    words
        .iter()
        .map(|w| Alternative {
            items: if w.is_empty() {
                Vec::new()
            } else {
                vec![Item::Terminal(literal(terminals, w))]
            },
            weight: None,
            prec: None,
            span,
        })
        .collect()
}

/// A free name for the rule of words of `base`: `base_values`, else with a number.
fn values_name(symbols: &[Symbol], base: &str) -> String {
    let taken = |n: &str| symbols.iter().any(|s| s.name == n);
    std::iter::once(format!("{base}_values"))
        .chain((2..).map(|k| format!("{base}_values_{k}")))
        .find(|n| !taken(n))
        .expect("some name is free")
}

/// Whether `name` is a copy [`specialized_name`] made for a place in `parent`.
fn is_copy_for(name: &str, parent: &str) -> bool {
    rule_of_copy(name, parent).is_some()
}

/// The rule that `name` is a copy of, if it is a copy made for a place in `parent`
/// (`name[in parent]` or `name[in parent 2]`).
fn rule_of_copy<'n>(name: &'n str, parent: &str) -> Option<&'n str> {
    if let Some(rule) = name.strip_suffix(&format!("[in {parent}]")) {
        return Some(rule);
    }
    let (rule, k) = name.rsplit_once(&format!("[in {parent} "))?;
    k.strip_suffix(']')
        .is_some_and(|k| k.parse::<u32>().is_ok())
        .then_some(rule)
}

/// A new rule name `name[in parent]` (with a number if taken): an instance of `name` for the
/// grammar's contexts: mining pools an unreached copy's counts with the rule's by that name (a
/// grammar that `refine` wrote gives each copy a span of its own), inverted generation only
/// where the grammar has contexts.
fn specialized_name(symbols: &[Symbol], name: &str, parent: &str) -> String {
    // Another copy of a copy for `parent` is numbered, not nested (`m[in stmt 2]`).
    let name = rule_of_copy(name, parent).unwrap_or(name);
    let base = format!("{name}[in {parent}]");
    let taken = |n: &str| symbols.iter().any(|s| s.name == n);
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|k| format!("{name}[in {parent} {k}]"))
        .find(|n| !taken(n))
        .expect("some number is free")
}
