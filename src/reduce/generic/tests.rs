//! The generic tree's shape, exact unparse (property tests over any bytes), edits, templates.

use super::templates::{GenericDeletion, Hoist, Literals};
use super::*;
use crate::reduce::Edit;
use proptest::prelude::*;

/// The tree as text: `R` root, `L` line, `B` block, `Y` body, `C` chunk, `G` group, `T` content;
/// leaves as their text (newlines as `⏎`).
fn sketch(t: &GenericTree, n: GNode) -> String {
    let tag = match t.kind(n) {
        Kind::Token(_) => return String::from_utf8_lossy(t.bytes(n)).replace('\n', "⏎"),
        Kind::Root => "R",
        Kind::Line => "L",
        Kind::Block => "B",
        Kind::Body => "Y",
        Kind::Chunk => "C",
        Kind::Group => "G",
        Kind::Content => "T",
    };
    let inner: Vec<String> = t.children(n).into_iter().map(|c| sketch(t, c)).collect();
    format!("{tag}<{}>", inner.join("|"))
}

fn tree_of(s: &str) -> String {
    let t = GenericTree::parse(s.as_bytes());
    sketch(&t, t.root())
}

#[test]
fn lines_chunks_and_groups_nest() {
    assert_eq!(
        tree_of("a = f(x, [1]);\n"),
        "R<L<C<a| >|C<=| >|C<f|G<(|T<C<x|,| >|G<[|T<1>|]>>|)>|;>|⏎>>"
    );
}

#[test]
fn a_group_spanning_lines_holds_them_and_its_lines_nest_by_indentation() {
    assert_eq!(
        tree_of("p {\n  a: 1;\n}\n"),
        "R<L<C<p| >|G<{|T<L<⏎>|L<  |C<a|:| >|C<1|;>|⏎>>|}>|⏎>>"
    );
}

#[test]
fn indented_lines_form_a_block_under_the_line_before_them_and_blank_lines_go_with_the_next() {
    assert_eq!(
        tree_of("def f():\n  x\n\n  y\nz\n"),
        "R<B<L<C<def| >|C<f|G<(|)>|:>|⏎>|Y<L<  |x|⏎>|L<⏎>|L<  |y|⏎>>>|L<z|⏎>>"
    );
    // Nested blocks: a YAML-like document.
    assert_eq!(
        tree_of("a:\n  b:\n    c\n  d\n"),
        "R<B<L<C<a|:>|⏎>|Y<B<L<  |C<b|:>|⏎>|Y<L<    |c|⏎>>>|L<  |d|⏎>>>>"
    );
}

#[test]
fn unbalanced_brackets_stay_plain_tokens() {
    // `]` closes nothing; `(` … `)` still pair up around it.
    assert_eq!(tree_of("(a ] b)"), "R<L<G<(|T<C<a| >|C<]| >|b>|)>>>");
    assert_eq!(tree_of(") x ("), "R<L<C<)| >|C<x| >|(>>");
    // `[` is never closed: the `)` closes the `(` below it, the `[` stays plain inside.
    assert_eq!(tree_of("f(a[1)"), "R<L<C<f|G<(|T<C<a|[|1>>|)>>>>");
}

#[test]
fn bytes_that_are_not_utf8_become_leaves_of_their_own() {
    let input = b"k = \xff\xfe(\x80)\n";
    let t = GenericTree::parse(input);
    assert_eq!(t.unparse(), input);
    assert_eq!(
        sketch(&t, t.root()),
        "R<L<C<k| >|C<=| >|C<\u{fffd}|\u{fffd}|G<(|T<\u{fffd}>|)>>|⏎>>"
    );
}

/// Sizes and parents stay right after applying edits: unparse of the edited tree equals
/// `unparse_with` of the edits, and the root's size is that length.
fn check_edit(input: &[u8], picks: &[usize]) -> Result<(), TestCaseError> {
    let mut t = GenericTree::parse(input);
    let mut depth = 1;
    for &p in picks {
        let level = t.level(depth);
        if level.is_empty() {
            break;
        }
        let node = level[p % level.len()];
        let kids = t.children(node);
        let edit = match kids.get(p % 3) {
            Some(&c) if t.size(c) < t.size(node) => Edit::Replace(c),
            _ => Edit::Delete,
        };
        let expected = t.unparse_with(&vec![(node, edit)]);
        t.apply(&vec![(node, edit)]);
        prop_assert_eq!(&t.unparse(), &expected);
        prop_assert_eq!(t.size(t.root()), expected.len());
        depth = 1 + p % 4;
    }
    Ok(())
}

proptest! {
    #[test]
    fn unparse_is_exact_for_any_bytes(input in proptest::collection::vec(any::<u8>(), 0..300)) {
        prop_assert_eq!(GenericTree::parse(&input).unparse(), input);
    }

    #[test]
    fn unparse_is_exact_for_bracket_and_indent_heavy_text(input in "[ \t\n(){}\\[\\]a-c0-9\"'\\\\,;:=#-]{0,200}") {
        let t = GenericTree::parse(input.as_bytes());
        prop_assert_eq!(t.unparse(), input.as_bytes());
        prop_assert_eq!(t.size(t.root()), input.len());
    }

    #[test]
    fn edits_keep_sizes_and_unparse_consistent(
        input in "[ \n(){}\\[\\]a-c0-9\"'=,]{0,120}",
        picks in proptest::collection::vec(0usize..1000, 1..8),
    ) {
        check_edit(input.as_bytes(), &picks)?;
    }
}

/// The first node (depth first) whose text is `text`.
fn find(t: &GenericTree, text: &str) -> GNode {
    let mut stack = vec![t.root()];
    while let Some(n) = stack.pop() {
        if text_of(t, n) == text && t.parent(n).is_some() {
            return n;
        }
        stack.extend(t.children(n).into_iter().rev());
    }
    panic!("no node `{text}`");
}

fn text_of(t: &GenericTree, n: GNode) -> String {
    match t.kind(n) {
        Kind::Token(_) => String::from_utf8_lossy(t.bytes(n)).into_owned(),
        _ => t.children(n).into_iter().map(|c| text_of(t, c)).collect(),
    }
}

fn with(t: &GenericTree, n: GNode, e: Edit<GNode>) -> String {
    String::from_utf8(t.unparse_with(&vec![(n, e)])).unwrap()
}

#[test]
fn deletion_takes_groups_and_their_content_but_never_a_lone_bracket() {
    let mut t = GenericTree::parse(b"f(a, b)\n");
    let del = GenericDeletion { filter: None };
    let group = find(&t, "(a, b)");
    let content = find(&t, "a, b");
    assert_eq!(del.candidates(&mut t, group), vec![Edit::Delete]);
    assert_eq!(with(&t, content, Edit::Delete), "f()\n");
    assert!(del.candidates(&mut t, content) == vec![Edit::Delete]);
    for bracket in t.children(group) {
        if matches!(t.kind(bracket), Kind::Token(_)) {
            assert!(del.candidates(&mut t, bracket).is_empty());
        }
    }
}

#[test]
fn hoisting_offers_the_content_then_nested_groups_of_the_same_brackets() {
    let mut t = GenericTree::parse(b"x = ((a) + [b] + (c))\n");
    let outer = find(&t, "((a) + [b] + (c))");
    let got: Vec<String> = Hoist { filter: None }
        .candidates(&mut t, outer)
        .into_iter()
        .map(|e| with(&t, outer, e))
        .collect();
    assert_eq!(got, ["x = (a) + [b] + (c)\n", "x = (a)\n", "x = (c)\n"]);
}

#[test]
fn hoisting_a_block_keeps_its_body() {
    let mut t = GenericTree::parse(b"if x:\n    y\n    z\nw\n");
    let block = find(&t, "if x:\n    y\n    z\n");
    let got: Vec<String> = Hoist { filter: None }
        .candidates(&mut t, block)
        .into_iter()
        .map(|e| with(&t, block, e))
        .collect();
    assert_eq!(got[0], "y\nz\nw\n");
    assert_eq!(got[1], "    y\n    z\nw\n");
}

#[test]
fn literals_become_empty_strings_zero_and_one() {
    let mut t = GenericTree::parse(br#"a = "hello" + 42 + 7"#);
    let (zero, one) = (Literals::ZERO, Literals::ONE);
    let s = find(&t, "\"hello\"");
    let n = find(&t, "42");
    let seven = find(&t, "7");
    let e = zero.candidates(&mut t, s)[0];
    assert_eq!(with(&t, s, e), r#"a = "" + 42 + 7"#);
    let e = zero.candidates(&mut t, n)[0];
    assert_eq!(with(&t, n, e), r#"a = "hello" + 0 + 7"#);
    let e = one.candidates(&mut t, n)[0];
    assert_eq!(with(&t, n, e), r#"a = "hello" + 1 + 7"#);
    // Not smaller: no candidate.
    assert!(zero.candidates(&mut t, seven).is_empty());
    assert!(one.candidates(&mut t, s).is_empty());
}

#[test]
fn hoisting_a_block_moves_its_body_out_to_the_block_indentation_first() {
    let input = "a:\n  b:\n    c: 1\n\n    d: [x,\n  y]\n  f: 3\ne: 2\n";
    let mut t = GenericTree::parse(input.as_bytes());
    let block = find(&t, "  b:\n    c: 1\n\n    d: [x,\n  y]\n");
    let got: Vec<String> = Hoist { filter: None }
        .candidates(&mut t, block)
        .into_iter()
        .map(|e| with(&t, block, e))
        .collect();
    // Lines inside the bracket group keep their indentation; the blank line stays blank.
    assert_eq!(got[0], "a:\n  c: 1\n\n  d: [x,\n  y]\n  f: 3\ne: 2\n");
    assert_eq!(got[1], "a:\n    c: 1\n\n    d: [x,\n  y]\n  f: 3\ne: 2\n");
    // The copy is detached: the tree itself is unchanged.
    assert_eq!(t.unparse(), input.as_bytes());
}
