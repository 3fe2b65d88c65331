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
//!
//! The completion is cheap per node: children are drawn from their parent's stream when their
//! turn comes (a stream gives the same numbers in the same order whenever it is read), a
//! terminal is written as it is drawn, and a choice of terminals alone (a character, a digit)
//! takes no frame on the stack. Where the limits end it early, whether it says clipped or
//! undone only decides how soon: a draw it calls clipped is one PTC2 would clip.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::SplitMix64;

use super::bytes::Arena;
use super::{item_nodes, pick_any, pick_two, Generator, Open, Tally};
use crate::grammar::{Body, Item, SymbolId, Terminal};

/// A node whose children are still being drawn, depth first. Children are drawn from their
/// parent's stream when their turn comes, not all at once when the parent is expanded: each
/// stream gives the same numbers in the same order either way, and terminals are then written
/// as they are drawn, with no frame of their own.
pub(super) enum Frame<'g> {
    /// The alternative `items` of a choice of `sym` from `next` on, drawn from `stream`; when
    /// they are drawn, the node's bytes (from `start`) bound the worst order.
    Seq {
        items: &'g [Item],
        next: u32,
        sym: SymbolId,
        /// Which alternative of `sym` `items` is (with `next`, the place of a layout child).
        alt: u32,
        start: usize,
        stream: SplitMix64,
    },
    /// A repetition of `sym` with `done` iterations: `min_left` more of its minimum to draw,
    /// then decisions on one more. `counts` says whether the next decision is an expansion of
    /// its own (PTC2 counts the first one with the node's).
    Rep {
        sym: SymbolId,
        /// The place of layout the repetition is (see [`Open`]), or `NO_PLACE`.
        place: u32,
        item: Item,
        done: u32,
        min_left: u32,
        max: u32,
        counts: bool,
        stream: SplitMix64,
    },
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

impl<'a> Generator<'a> {
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
        let mut stack = std::mem::take(&mut self.frames);
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
            let start = arena.chars().len();
            match o.iterations {
                None => {
                    done = done.saturating_sub(g.cheapest_len(o.sym) as usize);
                    b.drawn = b.drawn.saturating_sub(item_nodes(g, Item::Symbol(o.sym)) as u64);
                    b.nodes += 1;
                    b.drawn += 1;
                    self.expand(o.sym, o.place, o.stream.clone(), &mut stack, arena.chars(), &mut b);
                }
                Some(k) => {
                    let frame = self.repetition(o.sym, o.place, k, 0, true, o.stream.clone(), &mut b);
                    stack.push(frame);
                }
            }
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
        self.frames = stack;
        self.spare.attached = attached;
        end
    }

    /// Draws what `stack` holds depth first, appending its bytes to `out`; `Done`, or what the
    /// completion is as soon as it is known not to be (more bytes since `from` than
    /// `max_size`, more nodes or expansions than the limits).
    fn depth_first(
        &mut self,
        stack: &mut Vec<Frame<'a>>,
        out: &mut Vec<u8>,
        from: usize,
        t: &Tally,
        b: &mut Bounds,
    ) -> Completion {
        loop {
            if out.len() - from > t.max_size
                || b.drawn > t.max_nodes as u64
                || b.expansions > self.limits.max_expansions as u64
            {
                return Completion::Clipped;
            }
            if b.nodes > t.max_nodes as u64 {
                return Completion::Undone;
            }
            // The frame on top draws its next child (whose frame goes on top of it), or is
            // done. It is changed where it is: frames are moved as little as they can be.
            let Some(top) = stack.last_mut() else {
                return Completion::Done;
            };
            let child = match top {
                Frame::Seq {
                    items,
                    next,
                    sym,
                    alt,
                    start,
                    stream,
                } => {
                    let Some(&item) = items.get(*next as usize) else {
                        let (sym, start) = (*sym, *start);
                        stack.pop();
                        self.bound_choice(sym, out.len() - start, b);
                        continue;
                    };
                    *next += 1;
                    let place = self.probs.place(*sym, *alt, *next - 1);
                    self.child(stream, *sym, item, out, b).map(|(s, st)| (s, place, st))
                }
                Frame::Rep {
                    sym,
                    place,
                    item,
                    done,
                    min_left,
                    max,
                    counts,
                    stream,
                } => {
                    if *min_left > 0 {
                        *min_left -= 1;
                    } else {
                        if std::mem::replace(counts, true) {
                            b.expansions += 1;
                        }
                        if *done >= *max || {
                            let (stop, more) = self.stop_more(*sym, *place);
                            !pick_two(stream, stop, more)
                        } {
                            stack.pop();
                            continue;
                        }
                    }
                    *done += 1;
                    let place = self.probs.place(*sym, 0, 0);
                    self.child(stream, *sym, *item, out, b).map(|(s, st)| (s, place, st))
                }
            };
            if let Some((sym, place, s)) = child {
                self.expand(sym, place, s, stack, out, b);
            }
        }
    }

    /// The worst-order bound of a choice of `sym` whose node wrote `len` bytes: its costliest
    /// alternative's cheapest derivation in their place.
    fn bound_choice(&self, sym: SymbolId, len: usize, b: &mut Bounds) {
        // An alternative without a derivation costs "infinitely" much (u64::MAX).
        let most = self.grammar.analysis().alt_cheapest_max[sym.index()].bytes;
        b.bytes_over = b.bytes_over.max(signed(most).saturating_sub(signed(len)));
    }

    /// Expands a node of `sym` drawing from `stream`: a choice writes its alternative's
    /// terminals up to its first symbol and leaves the rest on the stack, an optional item is
    /// decided (and its node, if any, expanded in turn: a loop, as optional items may nest as
    /// deep as the input), a repetition goes on the stack.
    fn expand(
        &mut self,
        mut sym: SymbolId,
        mut place: u32,
        mut stream: SplitMix64,
        stack: &mut Vec<Frame<'a>>,
        out: &mut Vec<u8>,
        b: &mut Bounds,
    ) {
        let g = self.grammar;
        let a = g.analysis();
        loop {
            // Optional items present one inside another are expanded here, not on the stack:
            // past the expansions allowed, the stack's loop ends the completion as clipped.
            if b.expansions > self.limits.max_expansions as u64 {
                return;
            }
            b.expansions += 1;
            let r = &mut stream;
            match &g.symbol(sym).body {
                Body::Choice(alts) => {
                    let alt = pick_any(r, self.probs.at(sym, place), alts.len());
                    let most = a.alt_cheapest_max[sym.index()];
                    b.nodes_over = b.nodes_over.max(most.nodes.saturating_add(1));
                    let start = out.len();
                    let items = &alts[alt].items[..];
                    // Terminals up to the first symbol are written now; an alternative of
                    // terminals alone (a character of a string, a digit) needs no frame.
                    let first = items.iter().position(|i| matches!(i, Item::Symbol(_)));
                    for &item in &items[..first.unwrap_or(items.len())] {
                        self.child(r, sym, item, out, b);
                    }
                    match first {
                        None => self.bound_choice(sym, out.len() - start, b),
                        Some(k) => stack.push(Frame::Seq {
                            items,
                            next: k as u32,
                            sym,
                            alt: alt as u32,
                            start,
                            stream,
                        }),
                    }
                    return;
                }
                Body::Optional(item) => {
                    let p = self.probs.at(sym, place);
                    self.bound_one_more(*item, b);
                    if !pick_two(r, p[0], p[1]) {
                        return;
                    }
                    let child_place = self.probs.place(sym, 0, 0);
                    match self.child(r, sym, *item, out, b) {
                        Some((s, st)) => (sym, place, stream) = (s, child_place, st),
                        None => return,
                    }
                }
                Body::Repeat { min, .. } => {
                    // The minimum's children, then the first decision (one expansion with the
                    // node's, as in PTC2), then one more decision per iteration.
                    let frame = self.repetition(sym, place, 0, *min, false, stream, b);
                    stack.push(frame);
                    return;
                }
            }
        }
    }

    /// The frame of a repetition of `sym` at `place` (see [`Open`]'s) with `done` iterations
    /// and `min_left` of its minimum to draw; `counts`: whether its next decision counts as an
    /// expansion. Every decision on one more has the same worst-order bound: it is taken once,
    /// here, if one will be made.
    #[allow(clippy::too_many_arguments)]
    fn repetition(
        &self,
        sym: SymbolId,
        place: u32,
        done: u32,
        min_left: u32,
        counts: bool,
        stream: SplitMix64,
        b: &mut Bounds,
    ) -> Frame<'a> {
        let Body::Repeat { item, max, .. } = &self.grammar.symbol(sym).body else {
            unreachable!("only repetitions repeat")
        };
        if max.is_none_or(|m| done.saturating_add(min_left) < m) {
            self.bound_one_more(*item, b);
        }
        Frame::Rep {
            sym,
            place,
            item: *item,
            done,
            min_left,
            max: max.unwrap_or(u32::MAX),
            counts,
            stream,
        }
    }

    /// The worst-order bound of an unrestricted decision on an optional `item` or one more
    /// iteration of it (as [`Generator::maybe_one_more`] makes it when both ways fit).
    fn bound_one_more(&self, item: Item, b: &mut Bounds) {
        let g = self.grammar;
        b.bytes_over = b.bytes_over.max(signed(g.item_cheapest_len(item)));
        b.nodes_over = b.nodes_over.max(item_nodes(g, item) as u64);
    }

    /// Draws one child `item` from the parent's stream `r` as [`Generator::add_child`] draws
    /// it: a terminal is written to `out` (a class's character drawn), a symbol's node gets its
    /// own stream, returned with it for the caller to expand.
    fn child(
        &mut self,
        r: &mut SplitMix64,
        parent: SymbolId,
        item: Item,
        out: &mut Vec<u8>,
        b: &mut Bounds,
    ) -> Option<(SymbolId, SplitMix64)> {
        let g = self.grammar;
        b.nodes += 1;
        b.drawn += 1;
        match item {
            Item::Terminal(t) => {
                match g.terminal(t) {
                    Terminal::Literal(bytes) => out.extend_from_slice(bytes),
                    Terminal::Class { class, .. } => {
                        let c = self.draw_char(t, class, parent, r);
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        b.deficit += g.item_cheapest_len(item).saturating_sub(c.len_utf8() as u64);
                    }
                }
                None
            }
            Item::Symbol(s) => {
                b.nodes += item_nodes(g, item) as u64;
                Some((s, SplitMix64::seed_from_u64(r.next_u64())))
            }
        }
    }
}

/// A size as a signed number, saturating.
fn signed(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}
