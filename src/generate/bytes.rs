//! Generation straight to bytes: the same draws as a tree's, kept as a bare arena of nodes
//! (links and leaf bytes, no sizes or kinds) and written out in one pass at the end.
//!
//! PTC2 expands open nodes in random order, so an input's bytes are only known in order once
//! it is drawn: the arena holds the shape until then. Closing a node by its cheapest derivation
//! writes that derivation's bytes at the end instead of building its nodes.

use super::{Drawn, Edit, Generator, Plan, Sink, Spare};
use crate::grammar::{Body, Grammar, Item, SymbolId, Terminal, TerminalId};
use crate::tree::Tree;

const NONE: u32 = u32::MAX;

/// A node of an [`Arena`].
#[derive(Clone, Copy)]
struct Cell {
    first: u32,
    last: u32,
    next: u32,
    what: What,
}

/// What a [`Cell`] writes besides its children.
#[derive(Clone, Copy)]
enum What {
    /// Nothing: its children's bytes.
    Inner,
    /// A literal terminal's bytes.
    Literal(TerminalId),
    /// `len` bytes of [`Arena::chars`] from `start` (a character drawn from a class, or what a
    /// depth-first completion drew for the rest of a node).
    Chars { start: u32, len: u32 },
    /// The cheapest derivation of the symbol.
    Cheapest(SymbolId),
}

/// The shape of a draw, enough to write its bytes.
pub(super) struct Arena {
    cells: Vec<Cell>,
    /// The characters drawn from classes, UTF-8, in the order they were drawn, and the bytes of
    /// depth-first completions (see `depth_first`).
    chars: Vec<u8>,
    /// Scratch space of [`Arena::write`], kept for its allocations.
    stack: Vec<u32>,
    items: Vec<Item>,
}

impl Arena {
    fn push(&mut self, what: What) -> u32 {
        self.cells.push(Cell {
            first: NONE,
            last: NONE,
            next: NONE,
            what,
        });
        (self.cells.len() - 1) as u32
    }

    fn append(&mut self, parent: u32, child: u32) {
        let p = &mut self.cells[parent as usize];
        let last = std::mem::replace(&mut p.last, child);
        if last == NONE {
            p.first = child;
        } else {
            self.cells[last as usize].next = child;
        }
    }

    /// The bytes, in one walk (iterative: deep draws do not overflow the stack).
    fn write(&mut self, grammar: &Grammar) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.chars.len() + self.cells.len());
        let (mut stack, mut items) = (std::mem::take(&mut self.stack), std::mem::take(&mut self.items));
        stack.clear();
        stack.push(0);
        while let Some(mut id) = stack.pop() {
            // Down the first children without the stack; later siblings wait on it.
            loop {
                let cell = self.cells[id as usize];
                if cell.next != NONE {
                    stack.push(cell.next);
                }
                match cell.what {
                    What::Inner if cell.first != NONE => {
                        id = cell.first;
                        continue;
                    }
                    What::Inner => {}
                    What::Literal(t) => out.extend_from_slice(literal(grammar, t)),
                    What::Chars { start, len } => {
                        out.extend_from_slice(&self.chars[start as usize..(start + len) as usize])
                    }
                    What::Cheapest(sym) => write_cheapest(grammar, sym, &mut items, &mut out),
                }
                break;
            }
        }
        (self.stack, self.items) = (stack, items);
        out
    }
}

/// The bytes of a literal terminal.
fn literal(grammar: &Grammar, t: TerminalId) -> &[u8] {
    match grammar.terminal(t) {
        Terminal::Literal(b) => b,
        Terminal::Class { .. } => unreachable!("class leaves keep their character"),
    }
}

/// Writes the bytes of the cheapest derivation of `sym` (what [`Tree::add_cheapest`] builds),
/// with `stack` as scratch space.
fn write_cheapest(grammar: &Grammar, sym: SymbolId, stack: &mut Vec<Item>, out: &mut Vec<u8>) {
    stack.clear();
    stack.push(Item::Symbol(sym));
    while let Some(item) = stack.pop() {
        match item {
            Item::Terminal(t) => match grammar.terminal(t) {
                Terminal::Literal(b) => out.extend_from_slice(b),
                Terminal::Class { class, .. } => {
                    let c = class.representative().expect("loaded classes are never empty");
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
            },
            Item::Symbol(s) => match &grammar.symbol(s).body {
                Body::Choice(alts) => {
                    let alt = &alts[grammar.analysis().cheapest_alt[s.index()] as usize];
                    stack.extend(alt.items.iter().rev());
                }
                Body::Repeat { item, min, .. } => stack.extend(std::iter::repeat_n(*item, *min as usize)),
                Body::Optional(_) => {}
            },
        }
    }
}

impl Sink for Arena {
    fn start(_grammar: &Grammar, _sym: SymbolId, spare: &mut Spare) -> Arena {
        let mut arena = spare.arena.take().unwrap_or(Arena {
            cells: Vec::new(),
            chars: Vec::new(),
            stack: Vec::new(),
            items: Vec::new(),
        });
        arena.cells.clear();
        arena.chars.clear();
        arena.push(What::Inner);
        arena
    }

    fn root(&self) -> u32 {
        0
    }

    fn chose(&mut self, _node: u32, _sym: SymbolId, _alt: u32) {}

    fn leaf(&mut self, parent: u32, t: TerminalId, bytes: &[u8], literal: bool) {
        let what = if !literal {
            let start = self.chars.len() as u32;
            self.chars.extend_from_slice(bytes);
            What::Chars {
                start,
                len: bytes.len() as u32,
            }
        } else {
            What::Literal(t)
        };
        let leaf = self.push(what);
        self.append(parent, leaf);
    }

    fn node(&mut self, _grammar: &Grammar, parent: u32, _sym: SymbolId) -> (u32, u32) {
        let node = self.push(What::Inner);
        self.append(parent, node);
        (node, node)
    }

    fn close(&mut self, _grammar: &Grammar, node: u32, _link: u32, sym: SymbolId) {
        self.cells[node as usize].what = What::Cheapest(sym);
    }

    fn arena(&mut self) -> Option<&mut Arena> {
        Some(self)
    }

    fn recycle(self, spare: &mut Spare) {
        spare.arena = Some(self);
    }
}

/// A node's links before [`Arena::attach`] gave it one more child, to undo it.
#[derive(Clone, Copy)]
pub(super) struct Attached {
    node: u32,
    first: u32,
    last: u32,
}

impl Arena {
    /// The characters drawn so far, which a depth-first completion appends its bytes to.
    pub(super) fn chars(&mut self) -> &mut Vec<u8> {
        &mut self.chars
    }

    /// Gives `node` one more child: `len` bytes of the characters from `start`.
    pub(super) fn attach(&mut self, node: u32, start: usize, len: usize) -> Attached {
        let cell = self.cells[node as usize];
        let child = self.push(What::Chars {
            start: start as u32,
            len: len as u32,
        });
        self.append(node, child);
        Attached {
            node,
            first: cell.first,
            last: cell.last,
        }
    }

    /// Undoes `attached` (in the order they were made) and drops the characters from `chars`
    /// on: the arena is as it was before them.
    pub(super) fn detach(&mut self, attached: &[Attached], chars: usize) {
        for a in attached.iter().rev() {
            let child = self.cells[a.node as usize].last;
            let cell = &mut self.cells[a.node as usize];
            cell.first = a.first;
            cell.last = a.last;
            if a.last != NONE {
                self.cells[a.last as usize].next = NONE;
            }
            debug_assert_eq!(child as usize, self.cells.len() - 1);
            self.cells.pop();
        }
        self.chars.truncate(chars);
    }
}

impl Drawn for Vec<u8> {
    type Sink = Arena;
    type Edit<'p> = Spliced<'p>;

    fn finished(generator: &mut Generator<'_>, mut sink: Arena) -> Vec<u8> {
        let bytes = sink.write(generator.grammar);
        generator.spare.arena = Some(sink);
        bytes
    }

    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn trim(&mut self, _grammar: &Grammar, _limit: usize) {
        // Bytes are drawn only for grammars without layout (see `Generator::input`).
    }

    fn same_as(&self, bytes: &[u8]) -> bool {
        self.as_slice() == bytes
    }

    fn edit<'p>(_sample: &'p Tree, plan: &'p Plan) -> Spliced<'p> {
        Spliced {
            counts: &plan.counts,
            spans: &plan.spans,
            sample: &plan.bytes,
            replaced: Vec::new(),
            len: plan.bytes.len(),
        }
    }
}

/// A sample's bytes with subtrees replaced: the replacements are kept beside the sample and
/// spliced in at the end.
pub(super) struct Spliced<'p> {
    counts: &'p [u32],
    spans: &'p [(u32, u32)],
    sample: &'p [u8],
    /// The new bytes of replaced subtrees, none inside another, sorted by node: by pre-order
    /// number, which is text order, and the nodes inside a subtree are a range of them. A sorted
    /// vector, not a map: an input has a hundred or so, looked up by range at every redraw.
    replaced: Vec<(u32, Vec<u8>)>,
    len: usize,
}

impl Spliced<'_> {
    /// Where the replaced nodes inside the subtree of `node` (itself included) are in `replaced`.
    fn inside(&self, node: u32) -> std::ops::Range<usize> {
        let from = self.replaced.partition_point(|&(r, _)| r < node);
        let end = node + self.counts[node as usize];
        from..from + self.replaced[from..].partition_point(|&(r, _)| r < end)
    }
}

impl Edit<Vec<u8>> for Spliced<'_> {
    fn len(&self) -> usize {
        self.len
    }

    fn len_of(&self, node: u32) -> usize {
        let own = self.spans[node as usize].1 as usize;
        self.replaced[self.inside(node)].iter().fold(own, |n, (r, fresh)| {
            n - self.spans[*r as usize].1 as usize + fresh.len()
        })
    }

    fn replace(&mut self, node: u32, fresh: Vec<u8>) {
        self.len = self.len - self.len_of(node) + fresh.len();
        let inside = self.inside(node);
        self.replaced.splice(inside, [(node, fresh)]);
    }

    fn done(self, _generator: &mut Generator<'_>, _limit: usize) -> Vec<u8> {
        // Nothing to fix over the whole, nor layout to trim: see `Generator::input`.
        let mut out = Vec::with_capacity(self.len);
        let mut at = 0;
        for (r, fresh) in &self.replaced {
            let (start, len) = self.spans[*r as usize];
            out.extend_from_slice(&self.sample[at..start as usize]);
            out.extend_from_slice(fresh);
            at = (start + len) as usize;
        }
        out.extend_from_slice(&self.sample[at..]);
        out
    }
}
