//! Reads one derivation tree back out of the Earley chart.
//!
//! Top-down with an explicit stack (deep inputs cannot overflow it): from a completed item, walk
//! its production backwards through predecessor items; each nonterminal element points at the
//! completed item that derived it. Left-recursive and tail productions of repetitions are
//! flattened into one repetition node. Empty spans get the symbol's cheapest (empty) derivation.

use super::compile::{Compiled, EKind, Elem, NONE};
use super::earley::Chart;
use super::lexical::Lexer;
use crate::grammar::{Grammar, Item};
use crate::tree::{NodeId, NodeKind, Tree};

/// Fill in `node` from the completed item `item` (in the set at offset `end`).
struct Task {
    node: NodeId,
    esym: u32,
    item: u32,
    end: u32,
    /// The index of the set at `end` (see [`Chart::set_before`]).
    end_set: u32,
}

/// An element of a production with its span and, for nonterminals, its completed item.
#[derive(Clone, Copy)]
struct Span {
    elem: Elem,
    start: u32,
    end: u32,
    child: u32,
    /// The index of the set at `end`, which holds `child`.
    end_set: u32,
}

/// Character-level grammars make about two nodes per input byte (a symbol node and its leaf);
/// reserving that up front avoids regrowing (and copying) the arena of large inputs.
pub(crate) fn build(
    c: &Compiled,
    g: &Grammar,
    input: &[u8],
    chart: &Chart<'_>,
    lexer: &mut Lexer<'_>,
) -> Result<Tree, String> {
    let mut b = Builder {
        c,
        g,
        chart,
        lexer,
        tree: Tree::with_text(input.to_vec(), 2 * input.len() + 16),
        tasks: Vec::new(),
    };
    let (_, start) = b.spans(chart.accept, input.len() as u32, chart.set_of(chart.accept) as u32);
    let root = b.child(start[0])?;
    while let Some(task) = b.tasks.pop() {
        b.expand(task)?;
    }
    let mut tree = b.tree;
    tree.set_root(root);
    Ok(tree)
}

struct Builder<'a, 'l> {
    c: &'a Compiled,
    g: &'a Grammar,
    chart: &'a Chart<'a>,
    lexer: &'a mut Lexer<'l>,
    tree: Tree,
    tasks: Vec<Task>,
}

impl Builder<'_, '_> {
    /// A detached node for an element and its span; nonterminals are expanded later.
    fn child(&mut self, span: Span) -> Result<NodeId, String> {
        let Span {
            elem,
            start,
            end,
            child,
            end_set,
        } = span;
        match elem {
            Elem::Term(t) => Ok(self.tree.add_leaf(t, start as usize, (end - start) as usize)),
            Elem::Token(s) => self
                .lexer
                .derive(&mut self.tree, Item::Symbol(s), start, end)
                .ok_or_else(|| {
                    format!(
                        "internal error: token `{}` does not derive bytes {start}..{end}",
                        self.g.symbol(s).name
                    )
                }),
            Elem::Nt(esym) => {
                let sym = match self.c.ekind[esym as usize] {
                    EKind::Choice(s) | EKind::Optional(s) | EKind::RepeatUnbounded(s) | EKind::RepeatBounded(s) => s,
                    EKind::Tail | EKind::Start => return Err("internal error: tail symbol outside a repetition".into()),
                };
                if start == end {
                    return self
                        .tree
                        .add_cheapest(self.g, Item::Symbol(sym))
                        .ok_or_else(|| "internal error: empty span of an unproductive symbol".into());
                }
                let node = self
                    .tree
                    .add_node(NodeKind::Rule { symbol: sym, alt: 0 }, (end - start) as usize);
                self.tasks.push(Task {
                    node,
                    esym,
                    item: child,
                    end,
                    end_set,
                });
                Ok(node)
            }
        }
    }

    /// The production completed by item `idx` (in the set at `end`, the `end_set`-th) and its
    /// elements' spans.
    fn spans(&self, idx: u32, end: u32, end_set: u32) -> (u32, Vec<Span>) {
        let prod = self.c.dot_prod[self.chart.items[idx as usize].dot as usize];
        let rhs = self.c.rhs(prod);
        let mut out = Vec::with_capacity(rhs.len());
        let (mut cur, mut e, mut k) = (idx, end, end_set as usize);
        for &elem in rhs.iter().rev() {
            let it = self.chart.items[cur as usize];
            let before = self.chart.set_before(it.pred, k);
            let split = self.chart.offset(before);
            out.push(Span {
                elem,
                start: split,
                end: e,
                child: it.child,
                end_set: k as u32,
            });
            e = split;
            k = before;
            cur = it.pred;
        }
        out.reverse();
        (prod, out)
    }

    fn expand(&mut self, t: Task) -> Result<(), String> {
        let (prod, spans) = self.spans(t.item, t.end, t.end_set);
        let children: Vec<Span> = match self.c.ekind[t.esym as usize] {
            EKind::Choice(symbol) => {
                self.tree.set_kind(
                    t.node,
                    NodeKind::Rule {
                        symbol,
                        alt: self.c.prods[prod as usize].alt,
                    },
                );
                spans
            }
            EKind::Optional(symbol) => {
                self.tree.set_kind(t.node, NodeKind::Optional { symbol });
                spans
            }
            EKind::RepeatUnbounded(symbol) => {
                self.tree.set_kind(t.node, NodeKind::Repeat { symbol });
                self.unbounded_iterations(t.esym, prod, spans)?
            }
            EKind::RepeatBounded(symbol) => {
                self.tree.set_kind(t.node, NodeKind::Repeat { symbol });
                self.bounded_iterations(spans)?
            }
            EKind::Tail | EKind::Start => return Err("internal error: unexpected symbol kind in tree".into()),
        };
        for span in children.into_iter().rev() {
            let child = self.child(span)?;
            self.tree.prepend_child_unsized(t.node, child);
        }
        Ok(())
    }

    /// `S -> [x; min] | [S, x]`: peel iterations off the right until the base production.
    fn unbounded_iterations(&self, esym: u32, mut prod: u32, mut spans: Vec<Span>) -> Result<Vec<Span>, String> {
        let mut reversed = Vec::new();
        loop {
            if self.c.prods[prod as usize].alt == 0 {
                reversed.extend(spans.into_iter().rev());
                break;
            }
            let [inner, last] = spans[..] else {
                return Err("internal error: malformed repetition production".into());
            };
            reversed.push(last);
            if inner.start == inner.end {
                // The rest of the repetition is empty: its minimum of (empty) iterations.
                let base = self.c.prods_of[esym as usize].0;
                reversed.extend(self.c.rhs(base).iter().map(|&elem| Span {
                    elem,
                    start: inner.start,
                    end: inner.start,
                    child: NONE,
                    end_set: NONE,
                }));
                break;
            }
            (prod, spans) = self.spans(inner.child, inner.end, inner.end_set);
        }
        reversed.reverse();
        Ok(reversed)
    }

    /// `S -> [x; min, T]` with `T -> [] | [x, T']`: the base elements, then the tail's iterations.
    fn bounded_iterations(&self, mut spans: Vec<Span>) -> Result<Vec<Span>, String> {
        let Some(&tail) = spans
            .last()
            .filter(|s| matches!(s.elem, Elem::Nt(t) if self.c.ekind[t as usize] == EKind::Tail))
        else {
            return Ok(spans);
        };
        spans.pop();
        let mut tail = tail;
        while tail.start < tail.end {
            let (_, tail_spans) = self.spans(tail.child, tail.end, tail.end_set);
            match tail_spans[..] {
                [x] => {
                    spans.push(x);
                    break;
                }
                [x, next] => {
                    spans.push(x);
                    tail = next;
                }
                _ => return Err("internal error: malformed repetition tail".into()),
            }
        }
        Ok(spans)
    }
}
