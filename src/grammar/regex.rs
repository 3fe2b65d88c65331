//! Grammar items as regular expressions (regex-syntax's `Hir`), for the lazy DFAs of token
//! boundaries and of the parser's tokens: bodies and sequences translate the same way for both.

use regex_syntax::hir::{Hir, Repetition};

use super::{Body, Grammar, Item, SymbolId};

/// A translation of grammar items into regular expressions, `None` where an item has none (or
/// one too large). Leaves and symbols are the implementor's to translate (what a token boundary
/// and the parser read into a symbol differs); bodies and sequences are the same.
pub(crate) trait ToRegex<'g> {
    /// The grammar being translated.
    fn grammar(&self) -> &'g Grammar;

    /// One item: a terminal, or a symbol (usually through [`ToRegex::body`]).
    fn item(&mut self, item: Item) -> Option<Hir>;

    /// A sequence of items: their expressions, concatenated.
    fn seq(&mut self, items: &[Item]) -> Option<Hir> {
        concat(self, items)
    }

    /// The body of symbol `s`: its alternatives, or an optional or repeated item.
    fn body(&mut self, s: SymbolId) -> Option<Hir> {
        let repetition = |min: u32, max: Option<u32>, sub: Hir| {
            Hir::repetition(Repetition {
                min,
                max,
                greedy: true,
                sub: Box::new(sub),
            })
        };
        match &self.grammar().symbol(s).body {
            Body::Choice(alts) => {
                let alts = alts.iter().map(|a| self.seq(&a.items)).collect::<Option<Vec<_>>>()?;
                Some(Hir::alternation(alts))
            }
            Body::Optional(item) => Some(repetition(0, Some(1), self.item(*item)?)),
            Body::Repeat { item, min, max } => Some(repetition(*min, *max, self.item(*item)?)),
        }
    }
}

/// The items' expressions concatenated (what [`ToRegex::seq`] does unless an implementor
/// checks something first).
pub(crate) fn concat<'g, T: ToRegex<'g> + ?Sized>(t: &mut T, items: &[Item]) -> Option<Hir> {
    let parts = items.iter().map(|&i| t.item(i)).collect::<Option<Vec<_>>>()?;
    Some(Hir::concat(parts))
}
