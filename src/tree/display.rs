//! Printing trees: indented text for people, JSON for machines.
//!
//! Both walk the tree iteratively, so a 100,000-deep tree prints without overflowing the stack.

use std::fmt::Write as _;

use super::{NodeId, NodeKind, Tree};
use crate::grammar::Grammar;

impl Tree {
    /// The tree as indented text, one node per line: `symbol (alt N)`, `symbol*` for repetitions,
    /// `symbol?` for optionals, and leaves as their terminal followed by the matched text.
    pub fn to_text(&self, grammar: &Grammar) -> String {
        let mut out = String::new();
        let mut stack = vec![(self.root(), 0usize)];
        while let Some((node, depth)) = stack.pop() {
            for _ in 0..depth {
                out.push_str("  ");
            }
            let name = self.label(grammar, node);
            match self.kind(node) {
                NodeKind::Rule { alt, .. }
                    if grammar.symbol(self.kind(node).symbol().unwrap()).alternatives().len() > 1 =>
                {
                    let _ = writeln!(out, "{name} (alt {})", alt + 1);
                }
                NodeKind::Rule { .. } => {
                    let _ = writeln!(out, "{name}");
                }
                NodeKind::Repeat { .. } => {
                    let _ = writeln!(out, "{name} [{} items]", self.child_count(node));
                }
                NodeKind::Optional { .. } => {
                    let state = if self.child_count(node) == 0 {
                        "absent"
                    } else {
                        "present"
                    };
                    let _ = writeln!(out, "{name} ({state})");
                }
                NodeKind::Leaf { .. } => {
                    let text = String::from_utf8_lossy(self.leaf_bytes(node));
                    let _ = writeln!(out, "{name} {:?}", text);
                }
            }
            let children: Vec<NodeId> = self.children(node).collect();
            for &c in children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
        out
    }

    /// The tree as JSON: each node is `{"symbol": .., "kind": "rule"|"repeat"|"optional",
    /// "alt": N (rules), "children": [..]}` or, for leaves, `{"terminal": .., "text": ..}`, where
    /// `text` is the matched bytes as a string (invalid UTF-8 replaced) and `start`/`end` are byte
    /// offsets into the unparsed input.
    pub fn to_json(&self, grammar: &Grammar) -> String {
        enum Step {
            Open(NodeId, usize),
            Close,
        }
        // Offsets: a pre-order walk where each leaf advances the position.
        let mut out = String::new();
        let mut pos = 0usize;
        let mut stack = vec![Step::Open(self.root(), 0)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Close => out.push_str("]}"),
                Step::Open(node, index) => {
                    if index > 0 {
                        out.push(',');
                    }
                    let label = json_string(&self.label(grammar, node));
                    let start = pos;
                    match self.kind(node) {
                        NodeKind::Leaf { .. } => {
                            let bytes = self.leaf_bytes(node);
                            pos += bytes.len();
                            let text = json_string(&String::from_utf8_lossy(bytes));
                            let _ = write!(
                                out,
                                "{{\"terminal\":{label},\"text\":{text},\"start\":{start},\"end\":{pos}}}"
                            );
                            continue;
                        }
                        NodeKind::Rule { alt, .. } => {
                            let _ = write!(out, "{{\"symbol\":{label},\"kind\":\"rule\",\"alt\":{alt},\"start\":{start},\"end\":{},\"children\":[", start + self.len_of(node));
                        }
                        NodeKind::Repeat { .. } => {
                            let _ = write!(
                                out,
                                "{{\"symbol\":{label},\"kind\":\"repeat\",\"start\":{start},\"end\":{},\"children\":[",
                                start + self.len_of(node)
                            );
                        }
                        NodeKind::Optional { .. } => {
                            let _ = write!(out, "{{\"symbol\":{label},\"kind\":\"optional\",\"start\":{start},\"end\":{},\"children\":[", start + self.len_of(node));
                        }
                    }
                    stack.push(Step::Close);
                    let children: Vec<NodeId> = self.children(node).collect();
                    for (i, &c) in children.iter().enumerate().rev() {
                        stack.push(Step::Open(c, i));
                    }
                }
            }
        }
        out
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings always serialize")
}
