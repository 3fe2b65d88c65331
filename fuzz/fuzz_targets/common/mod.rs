//! Checks shared by the fuzz targets: structural validity of derivation trees, and a size
//! estimate of cheapest derivations (so that the targets can skip ones too big to build quickly).

#![allow(dead_code)]

use hellfuzz::grammar::{decode_utf8, Body, Grammar, Item, Symbol, SymbolId, Terminal};
use hellfuzz::parse::ParseError;
use hellfuzz::tree::{NodeId, NodeKind, Tree};

/// Panics if a parse failed with one of the parser's "internal error" messages: the recognizer
/// accepted the input, but reading the tree back out of the chart failed.
pub fn check_not_internal(e: &ParseError, input: &[u8]) {
    if e.expected.iter().any(|x| x.starts_with("internal error")) {
        panic!(
            "input accepted by the recognizer but no tree built: {e} (input {:?})",
            String::from_utf8_lossy(input)
        );
    }
}

/// Panics unless `tree` is a well-formed derivation in `grammar` whose root is `root_sym`:
/// every inner node's kind matches its symbol's body, its children match the alternative (or the
/// repetition bounds), every leaf's bytes are matched by its terminal, and the cached sizes agree
/// with the subtree.
pub fn check_tree(grammar: &Grammar, tree: &Tree, root_sym: SymbolId, what: &str) {
    let root = tree.root();
    assert_eq!(
        tree.kind(root).symbol(),
        Some(root_sym),
        "{what}: root node has the wrong symbol"
    );
    assert_eq!(tree.parent(root), None, "{what}: root has a parent");
    // Post-order size check and per-node grammar check, iteratively (trees can be deep).
    let mut order = Vec::new();
    tree.pre_order(root, |n| order.push(n));
    let mut size: std::collections::HashMap<NodeId, (usize, usize)> = std::collections::HashMap::new();
    for &node in order.iter().rev() {
        let children: Vec<NodeId> = tree.children(node).collect();
        for &c in &children {
            assert_eq!(tree.parent(c), Some(node), "{what}: child's parent link is wrong");
        }
        let (len, count) = match tree.kind(node) {
            NodeKind::Leaf { terminal } => {
                assert!(children.is_empty(), "{what}: a leaf has children");
                let bytes = tree.leaf_bytes(node);
                match grammar.terminal(terminal) {
                    Terminal::Literal(lit) => assert_eq!(bytes, &lit[..], "{what}: literal leaf has the wrong bytes"),
                    Terminal::Class { class, text } => {
                        let (c, n) = decode_utf8(bytes).unwrap_or_else(|| {
                            panic!("{what}: class leaf {text} is not one UTF-8 character: {bytes:?}")
                        });
                        assert_eq!(
                            n,
                            bytes.len(),
                            "{what}: class leaf {text} holds more than one character: {bytes:?}"
                        );
                        assert!(
                            class.contains(c),
                            "{what}: class leaf {text} holds U+{c:04X}, not in the class"
                        );
                    }
                }
                (bytes.len(), 1)
            }
            kind => {
                let sym = kind.symbol().expect("inner node");
                let s: &Symbol = grammar.symbol(sym);
                let child_items: Vec<Item> = match (&s.body, kind) {
                    (Body::Choice(alts), NodeKind::Rule { alt, .. }) => {
                        let a = alts.get(alt as usize).unwrap_or_else(|| {
                            panic!(
                                "{what}: rule node of `{}` has alternative {alt} of {}",
                                s.name,
                                alts.len()
                            )
                        });
                        a.items.clone()
                    }
                    (Body::Repeat { item, min, max }, NodeKind::Repeat { .. }) => {
                        let n = children.len() as u32;
                        assert!(
                            n >= *min && max.is_none_or(|m| n <= m),
                            "{what}: repetition `{}` has {n} iterations, bounds {min}..{max:?}",
                            s.name
                        );
                        vec![*item; children.len()]
                    }
                    (Body::Optional(item), NodeKind::Optional { .. }) => {
                        assert!(
                            children.len() <= 1,
                            "{what}: optional `{}` has {} children",
                            s.name,
                            children.len()
                        );
                        vec![*item; children.len()]
                    }
                    (body, kind) => panic!(
                        "{what}: node kind {kind:?} does not fit the body of `{}`: {body:?}",
                        s.name
                    ),
                };
                assert_eq!(
                    children.len(),
                    child_items.len(),
                    "{what}: node of `{}` ({kind:?}) has {} children, expected {}",
                    s.name,
                    children.len(),
                    child_items.len()
                );
                for (&c, &it) in children.iter().zip(&child_items) {
                    match (it, tree.kind(c)) {
                        (Item::Terminal(t), NodeKind::Leaf { terminal }) if t == terminal => {}
                        (Item::Symbol(x), k) if k.symbol() == Some(x) => {}
                        (it, k) => panic!("{what}: child of `{}` is {k:?}, expected {it:?}", s.name),
                    }
                }
                let mut len = 0;
                let mut count = 1;
                for c in &children {
                    let (l, n) = size[c];
                    len += l;
                    count += n;
                }
                (len, count)
            }
        };
        assert_eq!(
            tree.len_of(node),
            len,
            "{what}: cached length of node {node:?} is wrong"
        );
        assert_eq!(
            tree.count_of(node),
            count,
            "{what}: cached node count of node {node:?} is wrong"
        );
        size.insert(node, (len, count));
    }
}

/// For every symbol, the number of nodes of its cheapest-derivation tree (saturating), or
/// `u64::MAX` for unproductive symbols. Panics if the cheapest choices are not well-founded
/// (a symbol's chosen alternative using a symbol whose cheapest tree is not strictly lower),
/// because then `Tree::cheapest` could not terminate.
pub fn cheapest_node_counts(grammar: &Grammar) -> Vec<u64> {
    let a = grammar.analysis();
    let syms = grammar.symbols();
    let mut order: Vec<usize> = (0..syms.len()).filter(|&i| a.cheapest[i].is_finite()).collect();
    order.sort_by_key(|&i| a.cheapest[i].height);
    let mut nodes = vec![u64::MAX; syms.len()];
    for i in order {
        let height = a.cheapest[i].height;
        let item_nodes = |it: Item| -> u64 {
            match it {
                Item::Terminal(_) => 1,
                Item::Symbol(s) => {
                    assert!(
                        a.cheapest[s.index()].is_finite(),
                        "cheapest derivation of `{}` uses unproductive `{}`",
                        syms[i].name,
                        syms[s.index()].name
                    );
                    assert!(
                        a.cheapest[s.index()].height < height,
                        "cheapest derivation of `{}` (height {height}) uses `{}` of height {}: not well-founded",
                        syms[i].name,
                        syms[s.index()].name,
                        a.cheapest[s.index()].height
                    );
                    nodes[s.index()]
                }
            }
        };
        let n = match &syms[i].body {
            Body::Choice(alts) => {
                let alt = &alts[a.cheapest_alt[i] as usize];
                alt.items
                    .iter()
                    .fold(1u64, |acc, &it| acc.saturating_add(item_nodes(it)))
            }
            Body::Repeat { item, min, .. } => {
                if *min == 0 {
                    1
                } else {
                    item_nodes(*item).saturating_mul(*min as u64).saturating_add(1)
                }
            }
            Body::Optional(_) => 1,
        };
        nodes[i] = n;
    }
    nodes
}

/// A random derivation of `grammar`'s start symbol, with choices read from `choices` (one byte
/// per decision); when the bytes run out or the derivation gets big, every remaining symbol is
/// finished with its cheapest derivation. Returns the derived bytes, or `None` if the result
/// would exceed `max_len` bytes or `max_steps` expansions (cheapest derivations can be huge).
/// Whatever it returns is in the grammar's language, so the parser must accept it.
pub fn generate(grammar: &Grammar, choices: &[u8], max_len: usize, max_steps: usize) -> Option<Vec<u8>> {
    let a = grammar.analysis();
    let mut choices = choices.iter().copied();
    let mut out = Vec::new();
    let mut stack = vec![Item::Symbol(grammar.start())];
    let mut steps = 0usize;
    while let Some(item) = stack.pop() {
        steps += 1;
        if steps > max_steps || out.len() > max_len {
            return None;
        }
        // Random decisions only while the derivation is small; then close it off cheaply.
        let mut pick = || {
            if steps < max_steps / 4 && out.len() < max_len / 2 {
                choices.next()
            } else {
                None
            }
        };
        match item {
            Item::Terminal(t) => match grammar.terminal(t) {
                Terminal::Literal(bytes) => out.extend_from_slice(bytes),
                Terminal::Class { class, .. } => {
                    let c = match pick() {
                        Some(b) => class.nth((b as u64).wrapping_mul(0x9E37_79B9) % class.len()),
                        None => class.representative(),
                    }
                    .expect("loaded classes are not empty");
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
            },
            Item::Symbol(s) => match &grammar.symbol(s).body {
                Body::Choice(alts) => {
                    let k = match pick() {
                        Some(b) => b as usize % alts.len(),
                        None => a.cheapest_alt[s.index()] as usize,
                    };
                    stack.extend(alts[k].items.iter().rev());
                }
                Body::Repeat { item, min, max } => {
                    let extra = match pick() {
                        Some(b) => (b % 4) as u32,
                        None => 0,
                    };
                    let n = max.map_or(min + extra, |m| (min + extra).min(m));
                    stack.extend(std::iter::repeat(*item).take(n as usize));
                }
                Body::Optional(item) => {
                    if pick().is_some_and(|b| b & 1 == 1) {
                        stack.push(*item);
                    }
                }
            },
        }
    }
    Some(out)
}
