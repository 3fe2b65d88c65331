//! Reads one derivation tree back out of the Earley chart.
//!
//! Top-down with an explicit stack (deep inputs cannot overflow it): for a symbol spanning
//! `start..end`, take the first completion recorded for it, walk its production backwards through
//! predecessor items, and flatten the left-recursive and tail productions of repetitions into one
//! repetition node. Empty spans get the symbol's cheapest (empty) derivation.

use super::compile::{Compiled, EKind, Elem};
use super::earley::Chart;
use super::lexical::Lexer;
use crate::grammar::{Grammar, Item};
use crate::tree::{NodeId, NodeKind, Tree};

struct Task {
    node: NodeId,
    esym: u32,
    start: u32,
    end: u32,
}

pub(crate) fn build(c: &Compiled, g: &Grammar, input: &[u8], chart: &Chart, lexer: &mut Lexer<'_>) -> Result<Tree, String> {
    let mut b = Builder { c, g, chart, lexer, tree: Tree::with_text(input.to_vec(), input.len() / 2 + 16), tasks: Vec::new() };
    let start_elem = c.rhs(c.prods_of[c.start as usize].0)[0];
    let root = b.child(start_elem, 0, input.len() as u32)?;
    while let Some(task) = b.tasks.pop() {
        b.expand(task)?;
    }
    let mut tree = b.tree;
    tree.set_root(root);
    tree.compute_sizes(root);
    Ok(tree)
}

struct Builder<'a, 'l> {
    c: &'a Compiled,
    g: &'a Grammar,
    chart: &'a Chart,
    lexer: &'a mut Lexer<'l>,
    tree: Tree,
    tasks: Vec<Task>,
}

impl Builder<'_, '_> {
    /// A detached node for `elem` spanning `start..end`; Earley symbols are expanded later.
    fn child(&mut self, elem: Elem, start: u32, end: u32) -> Result<NodeId, String> {
        match elem {
            Elem::Term(t) => Ok(self.tree.add_leaf(t, start as usize, (end - start) as usize)),
            Elem::Token(s) => self
                .lexer
                .derive(&mut self.tree, Item::Symbol(s), start, end)
                .ok_or_else(|| format!("internal error: token `{}` does not derive bytes {start}..{end}", self.g.symbol(s).name)),
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
                let node = self.tree.add_node(NodeKind::Rule { symbol: sym, alt: 0 });
                self.tasks.push(Task { node, esym, start, end });
                Ok(node)
            }
        }
    }

    /// The completed item for `esym` spanning `start..end` (start < end).
    fn completion(&self, esym: u32, start: u32, end: u32) -> Result<u32, String> {
        self.chart
            .completions
            .get(&(end, esym, start))
            .copied()
            .ok_or_else(|| format!("internal error: no completion for symbol {esym} over {start}..{end}"))
    }

    /// The elements of the production completed by item `idx` (in set `end`) with their spans.
    fn spans(&self, idx: u32, end: u32) -> (u32, Vec<(Elem, u32, u32)>) {
        let prod = self.c.dot_prod[self.chart.items[idx as usize].dot as usize];
        let rhs = self.c.rhs(prod);
        let mut out = Vec::with_capacity(rhs.len());
        let (mut cur, mut e) = (idx, end);
        for &elem in rhs.iter().rev() {
            let it = self.chart.items[cur as usize];
            out.push((elem, it.split, e));
            e = it.split;
            cur = it.pred;
        }
        out.reverse();
        (prod, out)
    }

    fn expand(&mut self, t: Task) -> Result<(), String> {
        let idx = self.completion(t.esym, t.start, t.end)?;
        let (prod, spans) = self.spans(idx, t.end);
        let children: Vec<(Elem, u32, u32)> = match self.c.ekind[t.esym as usize] {
            EKind::Choice(symbol) => {
                self.tree.set_kind(t.node, NodeKind::Rule { symbol, alt: self.c.prods[prod as usize].alt });
                spans
            }
            EKind::Optional(symbol) => {
                self.tree.set_kind(t.node, NodeKind::Optional { symbol });
                spans
            }
            EKind::RepeatUnbounded(symbol) => {
                self.tree.set_kind(t.node, NodeKind::Repeat { symbol });
                self.unbounded_iterations(t.esym, t.start, prod, spans)?
            }
            EKind::RepeatBounded(symbol) => {
                self.tree.set_kind(t.node, NodeKind::Repeat { symbol });
                self.bounded_iterations(spans)?
            }
            EKind::Tail | EKind::Start => return Err("internal error: unexpected symbol kind in tree".into()),
        };
        for (elem, s, e) in children.into_iter().rev() {
            let child = self.child(elem, s, e)?;
            self.tree.prepend_child_unsized(t.node, child);
        }
        Ok(())
    }

    /// `S -> [x; min] | [S, x]`: peel iterations off the right until the base production.
    fn unbounded_iterations(&self, esym: u32, start: u32, mut prod: u32, mut spans: Vec<(Elem, u32, u32)>) -> Result<Vec<(Elem, u32, u32)>, String> {
        let mut reversed = Vec::new();
        loop {
            if self.c.prods[prod as usize].alt == 0 {
                reversed.extend(spans.into_iter().rev());
                break;
            }
            let [(_, _, inner_end), last] = spans[..] else {
                return Err("internal error: malformed repetition production".into());
            };
            reversed.push(last);
            if inner_end == start {
                // The rest of the repetition is empty: its minimum of (empty) iterations.
                let base = self.c.prods_of[esym as usize].0;
                reversed.extend(self.c.rhs(base).iter().map(|&x| (x, start, start)));
                break;
            }
            let idx = self.completion(esym, start, inner_end)?;
            (prod, spans) = self.spans(idx, inner_end);
        }
        reversed.reverse();
        Ok(reversed)
    }

    /// `S -> [x; min, T]` with `T -> [] | [x, T']`: the base elements, then the tail's iterations.
    fn bounded_iterations(&self, mut spans: Vec<(Elem, u32, u32)>) -> Result<Vec<(Elem, u32, u32)>, String> {
        let Some(&(Elem::Nt(mut tail), mut a, b)) = spans.last().filter(|(e, _, _)| matches!(e, Elem::Nt(t) if self.c.ekind[*t as usize] == EKind::Tail)) else {
            return Ok(spans);
        };
        spans.pop();
        while a < b {
            let idx = self.completion(tail, a, b)?;
            let (_, tail_spans) = self.spans(idx, b);
            match tail_spans[..] {
                [x] => {
                    spans.push(x);
                    break;
                }
                [x, (Elem::Nt(next), s, _)] => {
                    spans.push(x);
                    tail = next;
                    a = s;
                }
                _ => return Err("internal error: malformed repetition tail".into()),
            }
        }
        Ok(spans)
    }
}
