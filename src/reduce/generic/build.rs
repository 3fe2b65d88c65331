//! Building the generic tree: bracket matching, then lines, indented blocks, chunks and groups.
//!
//! [`top_level`] lexes the input, pairs brackets ([`match_brackets`]), nests the pairs into
//! groups, and adds the nodes to a [`GenericTree`]; the caller puts a root over them.

use super::lexer::{lex, Token, TokenKind};
use super::tree::{GNode, GenericTree, Kind};

/// Lexes and structures `input`; returns the nodes that go under the root.
pub(super) fn top_level(t: &mut GenericTree, input: &[u8]) -> Vec<GNode> {
    let tokens = lex(input);
    let closer = match_brackets(input, &tokens);
    let items = nest(&closer, 0, tokens.len());
    Builder {
        t,
        input,
        tokens: &tokens,
    }
    .lines_and_blocks(&items, false)
}

/// A token or a bracket group, before lines are formed.
enum Item {
    Token(usize),
    Group {
        open: usize,
        close: usize,
        inner: Vec<Item>,
    },
}

/// Bracket groups nest at most this deep in the generic tree; deeper brackets are plain tokens.
/// Every walk of the tree (building, reductions, dropping) is then bounded in depth, whatever
/// the input: a fuzzer's 100,000-deep stack-overflow input becomes 200 groups around a flat run
/// of tokens, which list deletion cuts by halves rather than one level per oracle run.
pub(super) const MAX_GROUP_DEPTH: usize = 200;

/// For each opening bracket token, the index of its closing one. A closer matching an opener
/// deeper in the stack closes it (the openers above stay plain); one matching none stays plain.
/// Openers beyond [`MAX_GROUP_DEPTH`] stay plain, and so do as many closers after them.
fn match_brackets(input: &[u8], tokens: &[Token]) -> Vec<Option<usize>> {
    let mut closer = vec![None; tokens.len()];
    let mut stack: Vec<(usize, u8)> = Vec::new();
    let mut too_deep = 0usize;
    for (i, t) in tokens.iter().enumerate() {
        if t.kind != TokenKind::Punct || t.end - t.start != 1 {
            continue;
        }
        match input[t.start] {
            b'(' | b'[' | b'{' if stack.len() >= MAX_GROUP_DEPTH => too_deep += 1,
            b'(' => stack.push((i, b')')),
            b'[' => stack.push((i, b']')),
            b'{' => stack.push((i, b'}')),
            b')' | b']' | b'}' if too_deep > 0 => too_deep -= 1,
            c @ (b')' | b']' | b'}') => {
                if let Some(k) = stack.iter().rposition(|&(_, want)| want == c) {
                    closer[stack[k].0] = Some(i);
                    stack.truncate(k);
                }
            }
            _ => {}
        }
    }
    closer
}

/// The items of tokens `from..to`: matched bracket pairs become groups.
fn nest(closer: &[Option<usize>], from: usize, to: usize) -> Vec<Item> {
    let mut items = Vec::new();
    let mut i = from;
    while i < to {
        match closer[i] {
            Some(c) if c < to => {
                items.push(Item::Group {
                    open: i,
                    close: c,
                    inner: nest(closer, i + 1, c),
                });
                i = c + 1;
            }
            _ => {
                items.push(Item::Token(i));
                i += 1;
            }
        }
    }
    items
}

struct Builder<'a> {
    t: &'a mut GenericTree,
    input: &'a [u8],
    tokens: &'a [Token],
}

impl Builder<'_> {
    fn kind_of(&self, item: &Item) -> Option<TokenKind> {
        match item {
            Item::Token(i) => Some(self.tokens[*i].kind),
            Item::Group { .. } => None,
        }
    }

    fn leaf(&mut self, i: usize) -> GNode {
        let t = self.tokens[i];
        self.t.add_leaf(t.kind, &self.input[t.start..t.end])
    }

    /// Splits `items` into lines, nests more-indented lines under the line before them, and
    /// builds the nodes. `mid_line`: the first line starts after an opening bracket, so its
    /// indentation means nothing and nothing nests under it.
    fn lines_and_blocks(&mut self, items: &[Item], mid_line: bool) -> Vec<GNode> {
        let mut lines: Vec<&[Item]> = Vec::new();
        let mut start = 0;
        for (i, item) in items.iter().enumerate() {
            if self.kind_of(item) == Some(TokenKind::Newline) {
                lines.push(&items[start..=i]);
                start = i + 1;
            }
        }
        if start < items.len() {
            lines.push(&items[start..]);
        }
        let mut indents: Vec<Option<usize>> = lines.iter().map(|l| self.indent(l)).collect();
        if mid_line && indents.first().is_some_and(Option::is_some) {
            indents[0] = Some(usize::MAX);
        }
        // A blank line belongs with the next non-blank line.
        let mut next = 0;
        let effective: Vec<usize> = indents
            .iter()
            .rev()
            .map(|&d| {
                next = d.unwrap_or(next);
                next
            })
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        self.blocks(&lines, &indents, &effective, 0)
    }

    /// Lines nested by indentation, at most [`MAX_GROUP_DEPTH`] blocks deep (deeper lines stay
    /// flat in the innermost block).
    fn blocks(
        &mut self,
        lines: &[&[Item]],
        indents: &[Option<usize>],
        effective: &[usize],
        depth: usize,
    ) -> Vec<GNode> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let mut j = i + 1;
            if indents[i].is_some() && depth < MAX_GROUP_DEPTH {
                while j < lines.len() && effective[j] > effective[i] {
                    j += 1;
                }
            }
            let header = self.line(lines[i]);
            if j > i + 1 {
                let inner = self.blocks(&lines[i + 1..j], &indents[i + 1..j], &effective[i + 1..j], depth + 1);
                let body = self.t.add_node(Kind::Body, inner);
                out.push(self.t.add_node(Kind::Block, vec![header, body]));
            } else {
                out.push(header);
            }
            i = j;
        }
        out
    }

    /// The width of a line's leading whitespace; `None` for a blank line.
    fn indent(&self, line: &[Item]) -> Option<usize> {
        let mut width = 0;
        for item in line {
            match item {
                Item::Token(i) if self.tokens[*i].kind == TokenKind::Space => {
                    width += self.tokens[*i].end - self.tokens[*i].start
                }
                Item::Token(i) if self.tokens[*i].kind == TokenKind::Newline => return None,
                _ => return Some(width),
            }
        }
        None
    }

    fn line(&mut self, items: &[Item]) -> GNode {
        let children = self.pieces(items);
        self.t.add_node(Kind::Line, children)
    }

    /// A line's children: leading space, chunks (non-space items with the space after them;
    /// a lone item stands for itself), the newline.
    fn pieces(&mut self, items: &[Item]) -> Vec<GNode> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < items.len() {
            let kind = self.kind_of(&items[i]);
            if matches!(kind, Some(TokenKind::Space | TokenKind::Newline)) {
                out.push(self.item(&items[i]));
                i += 1;
                continue;
            }
            let mut j = i;
            while j < items.len() && !matches!(self.kind_of(&items[j]), Some(TokenKind::Space | TokenKind::Newline)) {
                j += 1;
            }
            while j < items.len() && self.kind_of(&items[j]) == Some(TokenKind::Space) {
                j += 1;
            }
            let nodes: Vec<GNode> = items[i..j].iter().map(|it| self.item(it)).collect();
            if nodes.len() == 1 {
                out.extend(nodes);
            } else {
                out.push(self.t.add_node(Kind::Chunk, nodes));
            }
            i = j;
        }
        out
    }

    fn item(&mut self, item: &Item) -> GNode {
        match item {
            Item::Token(i) => self.leaf(*i),
            Item::Group { open, close, inner } => {
                let open = self.leaf(*open);
                let mut children = vec![open];
                if !inner.is_empty() {
                    let has_newline = inner.iter().any(|it| self.kind_of(it) == Some(TokenKind::Newline));
                    let content = if has_newline {
                        self.lines_and_blocks(inner, true)
                    } else {
                        self.pieces(inner)
                    };
                    children.push(self.t.add_node(Kind::Content, content));
                }
                children.push(self.leaf(*close));
                self.t.add_node(Kind::Group, children)
            }
        }
    }
}
