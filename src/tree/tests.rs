//! Tests of the tree arena: sizes under edits, levels, contexts, grafting, cheapest derivations.

use super::*;
use crate::parse::Parser;

fn json(input: &str) -> (Grammar, Tree) {
    let g = Grammar::load("json").unwrap();
    let t = Parser::new(&g).parse(input.as_bytes()).unwrap();
    (g, t)
}

fn nodes_of(g: &Grammar, t: &Tree, name: &str) -> Vec<NodeId> {
    let mut out = Vec::new();
    t.pre_order(t.root(), |n| {
        if t.kind(n).symbol().is_some_and(|s| g.symbol(s).name == name) {
            out.push(n);
        }
    });
    out
}

/// Sizes kept by edits equal sizes recomputed from scratch.
fn assert_sizes_consistent(t: &Tree) {
    let mut count = 0;
    t.pre_order(t.root(), |n| {
        count += 1;
        assert_eq!(t.len_of(n), t.unparse_node(n).len());
    });
    assert_eq!(count, t.count());
    assert_eq!(t.len(), t.unparse().len());
}

/// The repetition nodes (flat lists) of the tree, in pre-order.
fn repetitions(t: &Tree) -> Vec<NodeId> {
    let mut out = Vec::new();
    t.pre_order(t.root(), |n| {
        if matches!(t.kind(n), NodeKind::Repeat { .. }) && t.child_count(n) > 0 {
            out.push(n);
        }
    });
    out
}

#[test]
fn removing_a_list_element_keeps_sizes_right() {
    let (g, mut t) = json("[1, 22, 333]");
    assert_sizes_consistent(&t);
    // The array's tail (", 22" and ", 333") is the first non-empty repetition.
    let tail = repetitions(&t)[0];
    assert_eq!(t.child_count(tail), 2);
    let first = t.children(tail).next().unwrap();
    t.remove(first);
    assert_eq!(t.unparse(), b"[1, 333]");
    assert_sizes_consistent(&t);
    // The edited tree is still a valid derivation: it parses to the same bytes.
    assert_eq!(Parser::new(&g).parse(&t.unparse()).unwrap().unparse(), t.unparse());
}

#[test]
fn hoisting_a_descendant_replaces_its_ancestor() {
    let (g, mut t) = json(r#"{"a": {"b": [true]}}"#);
    let values = nodes_of(&g, &t, "value");
    let outer_object_value = values[1]; // {"b": [true]}
    let innermost = *values.last().unwrap(); // true
    t.replace(outer_object_value, innermost);
    assert_eq!(t.unparse(), br#"{"a": true}"#);
    assert_sizes_consistent(&t);
}

#[test]
fn replacing_the_root_makes_a_new_root() {
    let (g, mut t) = json(" [1] ");
    let value = nodes_of(&g, &t, "value")[0];
    let root = t.root();
    t.replace(root, value);
    assert_eq!(t.root(), value);
    assert_eq!(t.unparse(), b"[1]");
    assert_sizes_consistent(&t);
}

#[test]
fn grafting_copies_a_subtree_from_another_tree() {
    let (g, mut t) = json("[1, 2]");
    let (_, other) = json(r#"{"k": "v"}"#);
    let donor = nodes_of(&g, &other, "value")[0];
    let target = nodes_of(&g, &t, "value")[2]; // `2` (0 is the array itself)
    let copy = t.graft(&other, donor);
    t.replace(target, copy);
    assert_eq!(t.unparse(), br#"[1, {"k": "v"}]"#);
    assert_sizes_consistent(&t);
    let compact = t.compact();
    assert_eq!(compact.unparse(), t.unparse());
    assert_eq!(compact.count(), t.count());
    assert_sizes_consistent(&compact);
}

/// A copy of a subtree shifted onto the same bytes elsewhere in the text is that subtree over
/// those bytes: the same shape, kinds and sizes, each leaf at the other bytes' offset.
#[test]
fn a_shifted_copy_reads_the_same_bytes_elsewhere() {
    let (g, mut t) = json(r#"[{"ab": [1, "x"]}, {"ab": [1, "x"]}]"#);
    let objects = nodes_of(&g, &t, "object");
    let (first, second) = (objects[0], objects[1]);
    let shape = |t: &Tree, n: NodeId| {
        let mut out = Vec::new();
        t.pre_order(n, |m| {
            out.push((t.kind(m), t.child_count(m), t.len_of(m), t.leaf_bytes(m).to_vec()))
        });
        out
    };
    // Leaves' offsets into the text, in pre-order.
    let offsets = |t: &Tree, n: NodeId| {
        let mut out = Vec::new();
        t.pre_order(n, |m| {
            if t.nodes[m.index()].is_leaf() {
                out.push(t.nodes[m.index()].extra);
            }
        });
        out
    };
    // The second object starts 18 bytes after the first.
    assert_eq!(offsets(&t, second)[0], offsets(&t, first)[0] + 18);
    let copy = t.copy_shifted(first, 18);
    assert_eq!(shape(&t, copy), shape(&t, first));
    assert_eq!(offsets(&t, copy), offsets(&t, second));
    assert_ne!(offsets(&t, copy), offsets(&t, first));
    t.replace(second, copy);
    assert_eq!(t.unparse(), br#"[{"ab": [1, "x"]}, {"ab": [1, "x"]}]"#);
    assert_sizes_consistent(&t);
    // Back again, onto the first.
    let back = t.copy_shifted(copy, -18);
    assert_eq!(shape(&t, back), shape(&t, first));
    assert_eq!(offsets(&t, back), offsets(&t, first));
}

#[test]
fn levels_partition_the_nodes_by_depth() {
    let (_, t) = json(r#"{"a": [1, {"b": null}]}"#);
    let levels = t.levels();
    assert_eq!(levels[0], [t.root()]);
    assert_eq!(levels.iter().map(Vec::len).sum::<usize>(), t.count());
    for (depth, level) in levels.iter().enumerate() {
        for &n in level {
            assert_eq!(t.depth(n), depth);
        }
    }
}

#[test]
fn context_names_parent_alternative_and_position() {
    let (g, t) = json(r#"[true]"#);
    let member = nodes_of(&g, &t, "value")[1]; // `true` inside the array
    let leaf = t.children(member).next().unwrap();
    let ctx = t.context(leaf).unwrap();
    assert_eq!(ctx.parent, member);
    assert_eq!(ctx.position, 0);
    let value = g.symbol_by_name("value").unwrap();
    assert_eq!(ctx.parent_kind, NodeKind::Rule { symbol: value, alt: 4 }); // "true" is alternative 5
    assert!(t.context(t.root()).is_none());
}

#[test]
fn cheapest_derivations_have_the_cheapest_length_and_parse() {
    for name in crate::grammar::builtin::names() {
        let g = Grammar::load(name).unwrap();
        for (i, s) in g.symbols().iter().enumerate() {
            let sym = crate::grammar::SymbolId(i as u32);
            let t = Tree::cheapest(&g, sym).unwrap();
            assert_eq!(t.len() as u64, g.cheapest_len(sym), "{name}: {}", s.name);
            assert_sizes_consistent(&t);
        }
        // Tokens of a cheapest derivation may touch (`voidmain`); generation separates them.
        let mut start = Tree::cheapest(&g, g.start()).unwrap();
        crate::tree::fix_boundaries(&g, &mut start);
        let start = start.unparse();
        Parser::new(&g)
            .parse(&start)
            .unwrap_or_else(|e| panic!("{name}: cheapest {:?}: {e}", String::from_utf8_lossy(&start)));
    }
}

#[test]
fn json_dump_has_offsets_and_round_trips_text() {
    let (g, t) = json(r#"{"é": [1]}"#);
    let v: serde_json::Value = serde_json::from_str(&t.to_json(&g)).unwrap();
    assert_eq!(v["symbol"], "json");
    assert_eq!(v["end"], t.len());
    // Concatenating the leaves' text gives the input back.
    fn leaves(v: &serde_json::Value, out: &mut String) {
        if let Some(text) = v.get("text").and_then(|t| t.as_str()) {
            out.push_str(text);
        }
        for c in v.get("children").and_then(|c| c.as_array()).into_iter().flatten() {
            leaves(c, out);
        }
    }
    let mut text = String::new();
    leaves(&v, &mut text);
    assert_eq!(text, r#"{"é": [1]}"#);
}

/// A large tree's node arena is kept for the thread's next large tree (no fresh pages to fault
/// in), and a tree built in a kept arena is the one a fresh arena gives.
#[test]
fn a_large_tree_reuses_the_arena_of_the_last_one_dropped() {
    let g = Grammar::load("json").unwrap();
    let p = Parser::new(&g);
    // Arrays of strings: about 3 nodes per byte, so these arenas are well over arena::LARGE.
    let doc = |n: usize, s: &str| format!("[{}]", vec![format!("\"{s}\""); n].join(","));
    let (a, b) = (doc(20_000, "ab"), doc(15_000, "xyz"));
    let shape = |t: &Tree| {
        let mut v = Vec::new();
        t.pre_order(t.root(), |n| v.push((t.kind(n), t.len_of(n))));
        v
    };
    let first = p.parse(a.as_bytes()).unwrap();
    assert!(first.nodes.capacity() * std::mem::size_of::<Node>() >= arena::LARGE);
    let kept = first.nodes.as_ptr();
    drop(first);
    let second = p.parse(b.as_bytes()).unwrap();
    assert_eq!(
        second.nodes.as_ptr(),
        kept,
        "the second tree is built in the first one's arena"
    );
    assert_eq!(second.unparse(), b.as_bytes());
    // The same document in a thread of its own, whose first arena is fresh.
    let (b2, g2) = (b.clone(), g.clone());
    let fresh = std::thread::spawn(move || {
        let t = Parser::new(&g2).parse(b2.as_bytes()).unwrap();
        let mut v = Vec::new();
        t.pre_order(t.root(), |n| v.push((t.kind(n), t.len_of(n))));
        v
    })
    .join()
    .unwrap();
    assert_eq!(shape(&second), fresh);
    drop(second);
    // Small arenas are the allocator's, and one over arena::MOST is not kept.
    let small = p.parse(b"[1]").unwrap();
    assert!(small.nodes.capacity() * std::mem::size_of::<Node>() < arena::LARGE);
    let huge: Vec<Node> = Vec::with_capacity(arena::MOST / std::mem::size_of::<Node>() + 1);
    arena::give(huge);
    let taken = arena::take(arena::LARGE / std::mem::size_of::<Node>());
    assert_eq!(taken.as_ptr(), kept, "the kept arena is still the second tree's");
}

#[test]
fn a_copy_of_the_layout_rule_is_layout_and_its_tokens_are_kept_apart() {
    // As `refine` writes them: a copy of `_` for one place, named but not in `%layout`.
    let text = "%layout _ ;\nfile = \"let\" `_[in file]` name \";\" ;\n`_[in file]` = \" \"* ;\n_ = \" \"* ;\nname = [a-z]+ ;\n";
    let g = Grammar::from_text(text, "copy.grammar").unwrap();
    let copy = g.symbol_by_name("_[in file]").unwrap();
    assert!(g.is_layout(crate::grammar::Item::Symbol(copy)));
    // Written back, the file names `_` alone, and reads as the same grammar.
    assert!(g.to_file_text().contains("%layout _ ;\n"), "{}", g.to_file_text());
    Grammar::from_text(&g.to_file_text(), "again.grammar").unwrap();
    // A generated `letx;` (the copy drew no space) gets one, as after `_` itself.
    let mut t = Parser::new(&g).parse(b"letx;").unwrap();
    assert_eq!(crate::tree::fix_boundaries(&g, &mut t), 1);
    assert_eq!(t.unparse(), b"let x;");
}

/// A stylesheet-like grammar whose `value` takes `catch` (a class with punctuation tokens in it,
/// as tree-sitter-css's `plain_value`) and comes only after `:`.
fn catch_all_grammar(catch: &str) -> Grammar {
    let text = format!(
        "%layout _ ;\nsheet = ( _ rule )* _ ;\nrule = sel ( _ \",\" _ sel )* _ \"{{\" ( _ decl )* _ \"}}\" ;\n\
         sel = name ( _ \"|\" _ name )? ;\ndecl = name _ \":\" ( _ value )+ _ \";\" ;\nname = [a-z]+ ;\n\
         value = [a-z] [{catch}]* ;\n_ = [ \\n]* ;\n"
    );
    Grammar::from_text(&text, "catch-all.grammar").unwrap()
}

#[test]
fn a_catch_all_token_runs_on_only_where_the_grammar_lets_it_come() {
    use crate::grammar::{Item, TokenSet};
    // `value` takes `:`, `|` and `,`, three of the grammar's punctuation tokens.
    let g = catch_all_grammar("a-z:|,");
    let b = g.boundaries();
    let sym = |n: &str| Item::Symbol(g.symbol_by_name(n).unwrap());
    b.with_cache(|cache| {
        // Read with every token, `x|y` is one value; where a selector starts, no value can.
        assert!(b.runs_on_parts(cache, b"x", b"|y"));
        assert!(!b.runs_on_among(cache, b"x", b"|y", b.first_of(sym("sel"))));
        assert!(b.runs_on_among(cache, b"x", b"|y", b.first_of(sym("value"))));
        // Other tokens run on wherever they stand, as in a context-free lexer.
        assert!(b.runs_on_among(cache, b"x", b"y", Some(&TokenSet::default())));
    });
    // A generated `x|y` (no layout drawn around `|`) stays as it is, where the same text in a
    // declaration's values gets its space.
    let mut t = Parser::new(&g).parse(b"x|y{a:b;}").unwrap();
    assert_eq!(crate::tree::fix_boundaries(&g, &mut t), 0);
    assert_eq!(t.unparse(), b"x|y{a:b;}");
    // With two of them the class is an ordinary token's, which competes everywhere (`a:b` in
    // the declaration too).
    let g = catch_all_grammar("a-z:|");
    let mut t = Parser::new(&g).parse(b"x|y{a:b;}").unwrap();
    assert_eq!(crate::tree::fix_boundaries(&g, &mut t), 2);
    assert_eq!(t.unparse(), b"x |y{a :b;}");
}

proptest::proptest! {
    /// Trimming layout brings a tree within the limit wherever taking out all of its layout
    /// would, keeps its tokens (the result parses, and has the same bytes but whitespace), and
    /// takes out no more than it must: taking the lexemes longest first, the last one taken
    /// was needed, so the bytes saved fall short of the overshoot plus the longest lexeme.
    #[test]
    fn trimming_layout_takes_out_what_the_limit_needs_and_no_more(
        gaps in proptest::collection::vec(0usize..7, 14),
        cut in 0usize..1000,
    ) {
        let g = Grammar::load("css").unwrap();
        let tokens = ["a", "b", "{", "color", ":", "red", ";", "margin", ":", "0", "1px", ";", "}", "p{}"];
        let mut text = String::new();
        for (token, &gap) in tokens.iter().zip(&gaps) {
            text.push_str(token);
            // `a b` and `0 1px` need their space; the other gaps are layout alone.
            let gap = if matches!(*token, "a" | "0") { gap.max(1) } else { gap };
            text.push_str(&" ".repeat(gap));
        }
        let parser = Parser::new(&g);
        let tree = parser.tree(text.as_bytes()).expect("the stylesheet parses");
        let mut floor = tree.clone();
        trim_layout(&g, &mut floor, 0);
        let max_len = floor.len() + cut % (text.len() - floor.len() + 1);
        let mut t = tree.clone();
        let saved = trim_layout(&g, &mut t, max_len);
        proptest::prop_assert_eq!(saved, text.len() - t.len());
        proptest::prop_assert!(t.len() <= max_len, "{} bytes over a limit of {max_len}", t.len());
        let out = t.unparse();
        proptest::prop_assert!(parser.tree(&out).is_some(), "{}", String::from_utf8_lossy(&out));
        let squeeze = |b: &[u8]| b.iter().copied().filter(|c| !c.is_ascii_whitespace()).collect::<Vec<u8>>();
        proptest::prop_assert_eq!(squeeze(&out), squeeze(text.as_bytes()));
        // The spaces the tokens need are kept: `a b` is not `ab`, `0 1px` not `01px`.
        let px = out.windows(3).position(|w| w == b"1px").expect("1px is there");
        proptest::prop_assert!(out[1].is_ascii_whitespace() && out[px - 1].is_ascii_whitespace());
        let longest = gaps.iter().max().copied().unwrap_or(0).max(1);
        if text.len() <= max_len {
            proptest::prop_assert_eq!(saved, 0);
        } else {
            proptest::prop_assert!(saved < text.len() - max_len + longest, "saved {saved} for an overshoot of {}", text.len() - max_len);
        }
    }
}
