//! Printing trees: indented text for people, JSON for machines.
//!
//! Both walk the tree iteratively, so a 100,000-deep tree prints without overflowing the stack.

use std::fmt::Write as _;

use super::{NodeId, NodeKind, Tree};
use crate::grammar::Grammar;

/// Levels of indentation [`Tree::write_text`] shows; deeper lines carry their depth instead.
pub const MAX_INDENT: usize = 100;

impl Tree {
    /// The tree as indented text, one node per line: `symbol (alt N)`, `symbol*` for repetitions,
    /// `symbol?` for optionals, and leaves as their terminal followed by the matched text. See
    /// [`Tree::write_text`].
    pub fn to_text(&self, grammar: &Grammar) -> String {
        let mut out = Vec::new();
        self.write_text(grammar, &mut out)
            .expect("writing to memory does not fail");
        String::from_utf8(out).expect("labels and escaped text are UTF-8")
    }

    /// Writes [`Tree::to_text`]'s lines to `out` as they are made (memory stays proportional to
    /// the tree, not to the text). Indentation stops at `MAX_INDENT` levels; a deeper line
    /// starts with its depth, `[depth N]`, so a 100,000-deep tree prints in linear size rather
    /// than the 10 GB of spaces full indentation would take.
    pub fn write_text(&self, grammar: &Grammar, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut stack = vec![(self.root(), 0usize)];
        let mut children = Vec::new();
        let mut line = String::new();
        while let Some((node, depth)) = stack.pop() {
            line.clear();
            for _ in 0..depth.min(MAX_INDENT) {
                line.push_str("  ");
            }
            if depth > MAX_INDENT {
                let _ = write!(line, "[depth {depth}] ");
            }
            let label = self.label(grammar, node);
            let name = crate::grammar::abbreviated(&label);
            let _ = match self.kind(node) {
                NodeKind::Rule { alt, .. }
                    if grammar.symbol(self.kind(node).symbol().unwrap()).alternatives().len() > 1 =>
                {
                    writeln!(line, "{name} (alt {})", alt + 1)
                }
                NodeKind::Rule { .. } => writeln!(line, "{name}"),
                NodeKind::Repeat { .. } => writeln!(line, "{name} [{} items]", self.child_count(node)),
                NodeKind::Optional { .. } => {
                    let state = if self.child_count(node) == 0 {
                        "absent"
                    } else {
                        "present"
                    };
                    writeln!(line, "{name} ({state})")
                }
                NodeKind::Leaf { .. } => {
                    let text = String::from_utf8_lossy(self.leaf_bytes(node));
                    writeln!(line, "{name} {:?}", text)
                }
            };
            out.write_all(line.as_bytes())?;
            children.clear();
            children.extend(self.children(node));
            for &c in children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
        Ok(())
    }

    /// The tree as JSON: each node is `{"symbol": .., "kind": "rule"|"repeat"|"optional",
    /// "alt": N (rules), "children": [..]}` or, for leaves, `{"terminal": .., "text": ..}`, where
    /// `text` is the matched bytes as a string (invalid UTF-8 replaced) and `start`/`end` are byte
    /// offsets into the unparsed input.
    pub fn to_json(&self, grammar: &Grammar) -> String {
        let mut out = Vec::new();
        self.write_json(grammar, &mut out)
            .expect("writing to a Vec cannot fail");
        String::from_utf8(out).expect("the JSON is UTF-8")
    }

    /// Writes [`Tree::to_json`]'s text to `out` as it goes (the JSON of a large tree is many
    /// times the input: it is never held in memory whole). Buffer `out`: it gets small writes.
    pub fn write_json(&self, grammar: &Grammar, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        enum Step {
            Open(NodeId, usize),
            Close,
        }
        // Offsets: a pre-order walk where each leaf advances the position.
        let mut pos = 0usize;
        let mut stack = vec![Step::Open(self.root(), 0)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Close => out.write_all(b"]}")?,
                Step::Open(node, index) => {
                    if index > 0 {
                        out.write_all(b",")?;
                    }
                    let label = json_string(&self.label(grammar, node));
                    let start = pos;
                    let end = start + self.len_of(node);
                    let kind = match self.kind(node) {
                        NodeKind::Leaf { .. } => {
                            let bytes = self.leaf_bytes(node);
                            pos += bytes.len();
                            let text = json_string(&String::from_utf8_lossy(bytes));
                            write!(
                                out,
                                "{{\"terminal\":{label},\"text\":{text},\"start\":{start},\"end\":{pos}}}"
                            )?;
                            continue;
                        }
                        NodeKind::Rule { alt, .. } => format!("\"rule\",\"alt\":{alt}"),
                        NodeKind::Repeat { .. } => "\"repeat\"".to_string(),
                        NodeKind::Optional { .. } => "\"optional\"".to_string(),
                    };
                    write!(
                        out,
                        "{{\"symbol\":{label},\"kind\":{kind},\"start\":{start},\"end\":{end},\"children\":["
                    )?;
                    stack.push(Step::Close);
                    let children: Vec<NodeId> = self.children(node).collect();
                    for (i, &c) in children.iter().enumerate().rev() {
                        stack.push(Step::Open(c, i));
                    }
                }
            }
        }
        Ok(())
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings always serialize")
}
