//! Completing a draw depth first, straight to bytes, where that gives exactly what PTC2's random
//! order would: the fast path of generation once the grow phase is over.
//!
//! Every node draws its choices, characters and children's streams from its own stream of
//! random numbers (seeded from its parent's), so what a node becomes does not depend on when it
//! is expanded, only on whether the budget restricted it then. PTC2 expands open nodes in
//! random order and restricts a choice whose options would not all fit the budget, a character
//! that would not, and nodes left when expansions run out. Depth first, every choice is made
//! unrestricted; the tree it gives is then checked against the worst order: if no order could
//! have restricted any of its choices, PTC2 would have made every one of them the same way and
//! the tree is PTC2's. Otherwise the draw is undone and PTC2 goes on from where it was, with
//! its own order's random numbers, which the attempt did not touch. Either way the input is
//! PTC2's, bit for bit (a property test compares the two on json and expr, at every size, with
//! every limit). A tree past the limits also tells that PTC2 will be restricted somewhere, so
//! its draw will be clipped: a caller that draws again after a clipped draw need not draw it.
//!
//! The worst order for a choice at node `x` is every other node expanded first: the estimate
//! (bytes so far plus the cheapest completion of what is open) is then at most
//! `size(T) - size(x) + cheapest(x) + D`, where `D` makes up for characters shorter than their
//! class's cheapest one. So no order restricts `x` if `size(T) - size(x) + most(x) + D` fits,
//! `most(x)` being the cheapest derivation of `x`'s most expensive alternative. An optional
//! item or one more iteration fits if `size(T) + cost(item) + D` does. Nodes are bounded the
//! same way, with every open node's cheapest node count added (a derivation can have fewer
//! nodes than the cheapest one by bytes).

use rand::{RngCore, SeedableRng};
use rand_xoshiro::SplitMix64;

use super::bytes::Arena;
use super::{item_nodes, pick_any, sample_class, Generator, Open, Tally};
use crate::grammar::{Body, Item, SymbolId, Terminal, TerminalId};

/// What is left to do, depth first.
pub(super) enum Frame {
    /// Expand a node of `sym`, drawing from `stream`.
    Node { sym: SymbolId, stream: SplitMix64 },
    /// Decide on one more iteration of a repetition of `sym` that has `done` iterations.
    More {
        sym: SymbolId,
        done: u32,
        stream: SplitMix64,
    },
    /// Write a literal terminal.
    Literal(TerminalId),
    /// Write a character drawn from a class (of the terminal whose cheapest string is `cost`
    /// bytes).
    Char { c: char, cost: u64 },
    /// A choice node ends: its bytes started at `start`, and its costliest alternative's
    /// cheapest derivation is `most` bytes.
    End { start: usize, most: u64 },
}

/// The worst-order bounds gathered while drawing (see the module doc).
#[derive(Default)]
struct Bounds {
    /// The largest `most(x) - size(x)` of a choice, or `cost(item)` of an optional item or an
    /// iteration: what the worst order adds to the final size at some choice.
    bytes_over: i64,
    /// `D`: bytes by which drawn characters fall short of their class's cheapest one.
    deficit: u64,
    /// Nodes drawn, plus the cheapest node count of every node that was open.
    nodes: u64,
    /// Nodes drawn.
    drawn: u64,
    /// The largest node count a choice could add beside the tree.
    nodes_over: u64,
    /// Expansions, counted as PTC2 counts them.
    expansions: u64,
}

/// How a depth-first completion ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Completion {
    /// The draw is complete, as PTC2 would have completed it.
    Done,
    /// Undone: PTC2 might have drawn something else.
    Undone,
    /// Undone, and PTC2 will run into the limits (the tree drawn depth first is past them, and
    /// PTC2 draws that tree unless a limit restricts it): its draw will be clipped.
    Clipped,
}

impl Generator<'_> {
    /// Completes the draw whose open nodes are `open` depth first into `arena`, if that gives
    /// exactly what PTC2 would (see the module doc); otherwise leaves `arena` as it was. `t` and
    /// `expansions` are the draw's tally and expansions so far; the grow phase must be over.
    pub(super) fn complete_depth_first(
        &mut self,
        arena: &mut Arena,
        open: &[Open],
        t: &Tally,
        expansions: usize,
    ) -> Completion {
        let g = self.grammar;
        let from = arena.chars().len();
        // Characters are addressed in 32 bits; a draw that could pass that is left to PTC2.
        if from.saturating_add(t.max_size).saturating_add(8) > u32::MAX as usize {
            return Completion::Undone;
        }
        // Bytes and nodes of the tree that are drawn already: the tally less what is open.
        let mut done = t.estimate;
        let mut stack = std::mem::take(&mut self.spare.frames);
        let mut attached = std::mem::take(&mut self.spare.attached);
        attached.clear();
        let mut b = Bounds {
            nodes: t.nodes as u64,
            drawn: t.nodes as u64,
            expansions: expansions as u64,
            ..Bounds::default()
        };
        let mut end = Completion::Done;
        for o in open {
            stack.clear();
            match o.iterations {
                None => {
                    done = done.saturating_sub(g.cheapest_len(o.sym) as usize);
                    b.drawn = b.drawn.saturating_sub(item_nodes(g, Item::Symbol(o.sym)) as u64);
                    b.nodes += 1;
                    b.drawn += 1;
                    stack.push(Frame::Node {
                        sym: o.sym,
                        stream: o.stream.clone(),
                    });
                }
                Some(k) => stack.push(Frame::More {
                    sym: o.sym,
                    done: k,
                    stream: o.stream.clone(),
                }),
            }
            let start = arena.chars().len();
            end = self.depth_first(&mut stack, arena.chars(), from, t, &mut b);
            if end != Completion::Done {
                break;
            }
            let len = arena.chars().len() - start;
            attached.push(arena.attach(o.node, start, len));
        }
        if end == Completion::Done {
            let size = (done + arena.chars().len() - from) as u64;
            let worst = size + b.deficit;
            if size > t.max_size as u64
                || b.drawn > t.max_nodes as u64
                || b.expansions > self.limits.max_expansions as u64
            {
                end = Completion::Clipped;
            } else if signed(worst).saturating_add(b.bytes_over) > signed(t.max_size)
                || b.nodes.saturating_add(b.nodes_over) > t.max_nodes as u64
            {
                end = Completion::Undone;
            }
        }
        if end != Completion::Done {
            arena.detach(&attached, from);
        }
        self.spare.frames = stack;
        self.spare.attached = attached;
        end
    }

    /// Draws what `stack` holds depth first, appending its bytes to `out`; `Done`, or what the
    /// completion is as soon as it is known not to be (more bytes since `from` than
    /// `max_size`, more nodes or expansions than the limits).
    fn depth_first(
        &mut self,
        stack: &mut Vec<Frame>,
        out: &mut Vec<u8>,
        from: usize,
        t: &Tally,
        b: &mut Bounds,
    ) -> Completion {
        let g = self.grammar;
        let a = g.analysis();
        let probs = self.probs;
        while let Some(frame) = stack.pop() {
            if out.len() - from > t.max_size
                || b.drawn > t.max_nodes as u64
                || b.expansions > self.limits.max_expansions as u64
            {
                return Completion::Clipped;
            }
            if b.nodes > t.max_nodes as u64 {
                return Completion::Undone;
            }
            match frame {
                Frame::Literal(term) => match g.terminal(term) {
                    Terminal::Literal(bytes) => out.extend_from_slice(bytes),
                    Terminal::Class { .. } => unreachable!("classes are drawn as characters"),
                },
                Frame::Char { c, cost } => {
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    b.deficit += cost.saturating_sub(c.len_utf8() as u64);
                }
                Frame::End { start, most } => {
                    // An alternative without a derivation costs "infinitely" much (u64::MAX).
                    let over = signed(most).saturating_sub(signed(out.len() - start));
                    b.bytes_over = b.bytes_over.max(over);
                }
                Frame::Node { sym, mut stream } => {
                    b.expansions += 1;
                    let r = &mut stream;
                    match &g.symbol(sym).body {
                        Body::Choice(alts) => {
                            let costs = &a.alt_cheapest[sym.index()];
                            let most = a.alt_cheapest_max[sym.index()];
                            let alt = pick_any(r, probs.of(sym), costs.len());
                            b.nodes_over = b.nodes_over.max(most.nodes.saturating_add(1));
                            stack.push(Frame::End {
                                start: out.len(),
                                most: most.bytes,
                            });
                            let at = stack.len();
                            for &item in &alts[alt].items {
                                self.child(r, item, stack, b);
                            }
                            stack[at..].reverse();
                        }
                        Body::Optional(item) => {
                            let p = probs.of(sym);
                            if self.one_more(r, *item, (p[0], p[1]), b) {
                                let at = stack.len();
                                self.child(r, *item, stack, b);
                                stack[at..].reverse();
                            }
                        }
                        Body::Repeat { item, min, max } => {
                            // The minimum's children, then the first decision (one expansion,
                            // as in PTC2), then the first further iteration: drawn in that
                            // order, written in that order.
                            let at = stack.len();
                            for _ in 0..*min {
                                self.child(r, *item, stack, b);
                            }
                            self.iteration(sym, *item, *max, *min, stream, stack, b);
                            stack[at..].reverse();
                        }
                    }
                }
                Frame::More { sym, done, stream } => {
                    b.expansions += 1;
                    let Body::Repeat { item, max, .. } = &g.symbol(sym).body else {
                        unreachable!("only repetitions continue")
                    };
                    let at = stack.len();
                    self.iteration(sym, *item, *max, done, stream, stack, b);
                    stack[at..].reverse();
                }
            }
        }
        Completion::Done
    }

    /// Decides on one more iteration of a repetition of `sym` with `done` iterations (none
    /// past `max`) and, if so, pushes the iteration's frame and then the next decision's: in
    /// the order they are drawn, which the caller reverses.
    #[allow(clippy::too_many_arguments)]
    fn iteration(
        &mut self,
        sym: SymbolId,
        item: Item,
        max: Option<u32>,
        done: u32,
        mut stream: SplitMix64,
        stack: &mut Vec<Frame>,
        b: &mut Bounds,
    ) {
        if max.is_some_and(|m| done >= m) {
            return;
        }
        let stop_more = self.stop_more(sym);
        if self.one_more(&mut stream, item, stop_more, b) {
            self.child(&mut stream, item, stack, b);
            stack.push(Frame::More {
                sym,
                done: done + 1,
                stream,
            });
        }
    }

    /// The unrestricted decision on an optional item or one more iteration (as
    /// [`Generator::maybe_one_more`] makes it when both ways fit), with its worst-order bound.
    fn one_more(&mut self, r: &mut SplitMix64, item: Item, (stop, more): (f64, f64), b: &mut Bounds) -> bool {
        let g = self.grammar;
        b.bytes_over = b.bytes_over.max(signed(g.item_cheapest_len(item)));
        b.nodes_over = b.nodes_over.max(item_nodes(g, item) as u64);
        pick_any(r, &[stop, more], 2) == 1
    }

    /// Pushes the frame of one child `item`, drawing from the parent's stream `r` what
    /// [`Generator::add_child`] draws: a class's character, or a node's own stream.
    fn child(&mut self, r: &mut SplitMix64, item: Item, stack: &mut Vec<Frame>, b: &mut Bounds) {
        let g = self.grammar;
        b.nodes += 1;
        b.drawn += 1;
        match item {
            Item::Terminal(t) => match g.terminal(t) {
                Terminal::Literal(_) => stack.push(Frame::Literal(t)),
                Terminal::Class { class, .. } => stack.push(Frame::Char {
                    c: sample_class(class, self.ascii_share, r),
                    cost: g.item_cheapest_len(item),
                }),
            },
            Item::Symbol(s) => {
                b.nodes += item_nodes(g, item) as u64;
                stack.push(Frame::Node {
                    sym: s,
                    stream: SplitMix64::seed_from_u64(r.next_u64()),
                });
            }
        }
    }
}

/// A size as a signed number, saturating.
fn signed(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}
