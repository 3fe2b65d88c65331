//! Reads one derivation tree back out of the Earley chart.
//!
//! Top-down with an explicit stack (deep inputs cannot overflow it): from a completed item, walk
//! its production backwards through predecessor items; each nonterminal element points at the
//! completed item that derived it. Left-recursive and tail productions of repetitions are
//! flattened into one repetition node. Empty spans get the symbol's cheapest (empty) derivation.
//! Tokens are derived by the lexer's interpreter; on the fast path a self-contained token's
//! derivation is made once per distinct text and copied wherever that text recurs.

use rustc_hash::FxHashMap;

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
    build_checked(c, g, input, chart, lexer).map(|(tree, _)| tree)
}

/// [`build`], and the first place the tree reads an item the chart derived more than once
/// (the input has another parse there): the symbol and its span.
pub(crate) fn build_checked(
    c: &Compiled,
    g: &Grammar,
    input: &[u8],
    chart: &Chart<'_>,
    lexer: &mut Lexer<'_>,
) -> Result<(Tree, Option<super::Ambiguity>), String> {
    let mut b = Builder {
        ambiguity: None,
        c,
        g,
        chart,
        lexer,
        tree: Tree::with_text(input.to_vec(), 2 * input.len() + 16),
        tasks: Vec::new(),
        input,
        tokens: FxHashMap::default(),
        spare: [Vec::new(), Vec::new(), Vec::new()],
    };
    let mut start = Vec::new();
    b.spans(
        chart.accept,
        input.len() as u32,
        chart.set_of(chart.accept) as u32,
        &mut start,
    );
    let root = b.child(start[0])?;
    while let Some(task) = b.tasks.pop() {
        b.expand(task)?;
    }
    let mut tree = b.tree;
    tree.set_root(root);
    Ok((tree, b.ambiguity))
}

struct Builder<'a, 'l> {
    /// The first item read that the chart derived more than once.
    ambiguity: Option<super::Ambiguity>,
    c: &'a Compiled,
    g: &'a Grammar,
    chart: &'a Chart<'a>,
    lexer: &'a mut Lexer<'l>,
    tree: Tree,
    tasks: Vec<Task>,
    input: &'a [u8],
    /// Per self-contained token and its bytes, where it was first derived (root and start):
    /// the same bytes elsewhere get a copy of that derivation. Layout and names recur all over
    /// an input, and deriving one again (`ident`, a trie of the reserved words) costs many
    /// times more than copying it.
    tokens: FxHashMap<(u32, &'a [u8]), (NodeId, u32)>,
    /// Buffers of spans, kept from node to node (a production's elements, a repetition's
    /// iterations, the next production of a repetition).
    spare: [Vec<Span>; 3],
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
            Elem::Token(s) => {
                // A fast path: the plain parser derives every token, for the tests to compare.
                let reuse = self.lexer.fast && self.c.self_contained[s.index()];
                let key = (s.0, &self.input[start as usize..end as usize]);
                if reuse {
                    if let Some(&(node, at)) = self.tokens.get(&key) {
                        return Ok(self.tree.copy_shifted(node, i64::from(start) - i64::from(at)));
                    }
                }
                let node = self
                    .lexer
                    .derive(&mut self.tree, Item::Symbol(s), start, end)
                    .ok_or_else(|| {
                        format!(
                            "internal error: token `{}` does not derive bytes {start}..{end}",
                            self.g.symbol(s).name
                        )
                    })?;
                if reuse {
                    self.tokens.insert(key, (node, start));
                }
                Ok(node)
            }
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

    /// The production completed by item `idx` (in the set at `end`, the `end_set`-th); its
    /// elements' spans go to `out`, in order.
    fn spans(&mut self, idx: u32, end: u32, end_set: u32, out: &mut Vec<Span>) -> u32 {
        let prod = self.c.state_end[self.chart.items[idx as usize].state as usize];
        let rhs = self.c.rhs(prod);
        let first = out.len();
        let (mut cur, mut e, mut k) = (idx, end, end_set as usize);
        for &elem in rhs.iter().rev() {
            let it = self.chart.items[cur as usize];
            if self.ambiguity.is_none()
                && !self.chart.ambiguous.is_empty()
                && self.chart.ambiguous.contains(&(it.state, it.origin, e))
            {
                self.ambiguity = Some(self.ambiguity_at(prod, it.origin, e));
            }
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
        out[first..].reverse();
        prod
    }

    /// The ambiguity of production `prod`'s item from `start` to `end`, named by its symbol.
    fn ambiguity_at(&self, prod: u32, start: u32, end: u32) -> super::Ambiguity {
        let lhs = self.c.prods[prod as usize].lhs;
        let symbol = match self.c.ekind[lhs as usize] {
            EKind::Choice(s) | EKind::Optional(s) | EKind::RepeatUnbounded(s) | EKind::RepeatBounded(s) => {
                self.g.symbol(s).name.clone()
            }
            EKind::Tail => "a repetition".to_string(),
            EKind::Start => self.g.symbol(self.g.start()).name.clone(),
        };
        super::Ambiguity {
            symbol,
            start: start as usize,
            end: end as usize,
        }
    }

    fn expand(&mut self, t: Task) -> Result<(), String> {
        let mut children = std::mem::take(&mut self.spare[0]);
        children.clear();
        let prod = self.spans(t.item, t.end, t.end_set, &mut children);
        match self.c.ekind[t.esym as usize] {
            EKind::Choice(symbol) => self.tree.set_kind(
                t.node,
                NodeKind::Rule {
                    symbol,
                    alt: self.c.prods[prod as usize].alt,
                },
            ),
            EKind::Optional(symbol) => self.tree.set_kind(t.node, NodeKind::Optional { symbol }),
            EKind::RepeatUnbounded(symbol) => {
                self.tree.set_kind(t.node, NodeKind::Repeat { symbol });
                self.unbounded_iterations(t.esym, prod, &mut children)?;
            }
            EKind::RepeatBounded(symbol) => {
                self.tree.set_kind(t.node, NodeKind::Repeat { symbol });
                self.bounded_iterations(&mut children)?;
            }
            EKind::Tail | EKind::Start => return Err("internal error: unexpected symbol kind in tree".into()),
        }
        for &span in children.iter().rev() {
            let child = self.child(span)?;
            self.tree.prepend_child_unsized(t.node, child);
        }
        self.spare[0] = children;
        Ok(())
    }

    /// `S -> [x; min] | [S, x]`: peel iterations off the right until the base production;
    /// `spans` (the last production's) become the iterations.
    fn unbounded_iterations(&mut self, esym: u32, mut prod: u32, spans: &mut Vec<Span>) -> Result<(), String> {
        let mut reversed = std::mem::take(&mut self.spare[1]);
        reversed.clear();
        loop {
            if self.c.prods[prod as usize].alt == 0 {
                reversed.extend(spans.iter().rev());
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
            spans.clear();
            prod = self.spans(inner.child, inner.end, inner.end_set, spans);
        }
        spans.clear();
        spans.extend(reversed.iter().rev());
        self.spare[1] = reversed;
        Ok(())
    }

    /// `S -> [x; min, T]` with `T -> [] | [x, T']`: the base elements, then the tail's
    /// iterations, in `spans` (the production's).
    fn bounded_iterations(&mut self, spans: &mut Vec<Span>) -> Result<(), String> {
        let Some(&tail) = spans
            .last()
            .filter(|s| matches!(s.elem, Elem::Nt(t) if self.c.ekind[t as usize] == EKind::Tail))
        else {
            return Ok(());
        };
        spans.pop();
        let mut tail = tail;
        let mut next = std::mem::take(&mut self.spare[2]);
        while tail.start < tail.end {
            next.clear();
            self.spans(tail.child, tail.end, tail.end_set, &mut next);
            match next[..] {
                [x] => {
                    spans.push(x);
                    break;
                }
                [x, rest] => {
                    spans.push(x);
                    tail = rest;
                }
                _ => return Err("internal error: malformed repetition tail".into()),
            }
        }
        self.spare[2] = next;
        Ok(())
    }
}
