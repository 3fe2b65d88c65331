//! Tests of the grammar loader: one per diagnostic, escapes, classes, weights, and the analyses.

use super::*;

pub(super) fn load(text: &str) -> Grammar {
    Grammar::from_text(text, "t.grammar").unwrap_or_else(|e| panic!("grammar should load:\n{e}"))
}

/// The single error of a grammar that must fail, as "line:col: message".
pub(super) fn error(text: &str) -> String {
    let e = Grammar::from_text(text, "t.grammar").expect_err("grammar should fail");
    let errors: Vec<&Diagnostic> = e.errors().collect();
    assert_eq!(errors.len(), 1, "expected one error, got: {e}");
    format!("{}:{}: {}", errors[0].span.line, errors[0].span.col, errors[0].message)
}

fn terminal_bytes(g: &Grammar, name: &str) -> Vec<u8> {
    let sym = g.symbol_by_name(name).unwrap();
    match g.symbol(sym).alternatives()[0].items[0] {
        Item::Terminal(t) => match g.terminal(t) {
            Terminal::Literal(b) => b.clone(),
            other => panic!("not a literal: {other}"),
        },
        other => panic!("not a terminal: {other:?}"),
    }
}

#[test]
fn literal_escapes_decode_to_bytes() {
    let g = load(r#"a = "q\\\"\'\n\r\t\x00\xFF\u{41}\u{1F600}é" ; b = 'it''s' ;"#);
    let mut expected = b"q\\\"'\n\r\t\x00\xFFA".to_vec();
    expected.extend_from_slice("😀é".as_bytes());
    assert_eq!(terminal_bytes(&g, "a"), expected);
    // 'it''s' is two literals in sequence.
    let b = g.symbol_by_name("b").unwrap();
    assert_eq!(g.symbol(b).alternatives()[0].items.len(), 2);
}

#[test]
fn classes_ranges_negation_escapes_and_any() {
    let g = load(r#"a = [a-c\]\-x] [^"\\\x00-\x1F] . [\u{4E00}-\u{9FFF}] ;"#);
    let items = &g.symbol(g.start()).alternatives()[0].items;
    let class = |i: usize| match items[i] {
        Item::Terminal(t) => match g.terminal(t) {
            Terminal::Class { class, .. } => class.clone(),
            _ => unreachable!(),
        },
        _ => unreachable!(),
    };
    let c0 = class(0);
    for ch in ['a', 'b', 'c', ']', '-', 'x'] {
        assert!(c0.contains(ch as u32), "{ch}");
    }
    assert!(!c0.contains('d' as u32));
    let c1 = class(1);
    assert!(c1.contains('é' as u32) && !c1.contains('"' as u32) && !c1.contains(0x0A));
    assert!(class(2).contains(0x10FFFF) && class(2).contains(0));
    assert!(class(3).contains('中' as u32) && !class(3).contains('a' as u32));
}

#[test]
fn operators_make_synthetic_symbols() {
    let g =
        load(r#"s = a? b* c+ d{2} e{1,3} f{2,} ("x" | "y") ; a = "a"; b = "b"; c = "c"; d = "d"; e = "e"; f = "f";"#);
    let items = &g.symbol(g.start()).alternatives()[0].items;
    let bodies: Vec<String> = items
        .iter()
        .map(|&it| match it {
            Item::Symbol(s) => match &g.symbol(s).body {
                Body::Optional(_) => "?".to_string(),
                Body::Repeat { min, max, .. } => format!("{{{min},{max:?}}}"),
                Body::Choice(alts) => format!("choice/{}", alts.len()),
            },
            Item::Terminal(_) => "terminal".into(),
        })
        .collect();
    assert_eq!(
        bodies,
        [
            "?",
            "{0,None}",
            "{1,None}",
            "{2,Some(2)}",
            "{1,Some(3)}",
            "{2,None}",
            "choice/2"
        ]
    );
    assert!(g
        .symbols()
        .iter()
        .filter(|s| s.synthetic)
        .all(|s| s.name.starts_with("s.")));
}

#[test]
fn a_rule_that_is_one_repetition_is_that_repetition() {
    let g = load(r#"s = ws "x" ; ws = [ \t]* ;"#);
    let ws = g.symbol_by_name("ws").unwrap();
    assert!(matches!(g.symbol(ws).body, Body::Repeat { min: 0, max: None, .. }));
}

#[test]
fn weights_follow_eq3() {
    let g = load(
        r#"r = s t u ; s = 50% "a" | "b" | "c" ; t = 20% "a" | 30% "b" ; u = 33.3% "a" | 33.3% "b" | 33.3% "c" ;"#,
    );
    let probs = |n: &str| g.symbol(g.symbol_by_name(n).unwrap()).alt_probabilities();
    assert_eq!(probs("s"), [0.5, 0.25, 0.25]);
    // All weighted but not summing to 100: used as relative weights (with a warning).
    assert_eq!(probs("t"), [0.4, 0.6]);
    assert!((probs("u")[0] - 1.0 / 3.0).abs() < 1e-9);
    assert_eq!(g.warnings().len(), 1);
    assert!(g.warnings()[0].message.contains("add up to 50%"), "{}", g.warnings()[0]);
}

#[test]
fn comments_and_empty_alternatives() {
    let g = load("# header\ns = \"a\" # trailing\n  | ; # empty alternative\n");
    assert!(g.is_nullable(g.start()));
    assert_eq!(g.symbol(g.start()).alternatives().len(), 2);
}

#[test]
fn error_undefined_symbol_suggests_a_name() {
    assert_eq!(
        error("s = vlaue ;\nvalue = \"v\" ;"),
        "1:5: undefined symbol `vlaue`; did you mean `value`?"
    );
}

#[test]
fn error_duplicate_rule_names_the_first() {
    assert_eq!(
        error("s = a ;\na = \"x\" ;\na = \"y\" ;"),
        "3:1: duplicate rule `a` (first defined at line 2, column 1); merge the alternatives into one rule"
    );
}

#[test]
fn error_unproductive_symbol() {
    let msg = error("s = a | \"x\" ;\na = \"(\" a \")\" ;");
    assert!(msg.starts_with("2:1: rule `a` is unproductive"), "{msg}");
}

#[test]
fn warning_unreachable_rule() {
    let g = load("s = \"x\" ;\n\nlonely = \"y\" ;");
    let w = &g.warnings()[0];
    assert_eq!((w.severity, w.span.line, w.span.col), (Severity::Warning, 3, 1));
    assert_eq!(
        w.to_string(),
        "t.grammar:3:1: warning: rule `lonely` is unreachable from the start rule `s`"
    );
}

#[test]
fn file_text_used_leaves_out_the_rules_nothing_reaches() {
    let g = load("s = a | \"x\" ;\na = \"(\" s \")\" ;\nlonely = b ;\nb = \"y\" ;\n");
    assert_eq!(g.unused_rules().len(), 2, "{:?}", g.warnings());
    let text = g.to_file_text_used();
    let again = Grammar::from_text(&text, "t.grammar").expect("the text loads");
    assert!(again.warnings().is_empty(), "{text}");
    assert!(!text.contains("lonely") && !text.contains("\"y\""), "{text}");
    assert_eq!(again.to_file_text(), text);
    assert_eq!(again.symbols().len(), g.symbols().len() - 2);
    // Nothing to leave out: the whole text.
    assert_eq!(again.to_file_text_used(), text);
}

#[test]
fn file_text_used_keeps_an_unused_rule_a_directive_names() {
    let g = load("%distinct lonely s ;\ns = \"x\" ;\nlonely = \"y\" ;\n");
    assert_eq!(g.unused_rules().len(), 1);
    let text = g.to_file_text_used();
    assert!(Grammar::from_text(&text, "t.grammar").is_ok(), "{text}");
    assert_eq!(text, g.to_file_text());
}

#[test]
fn error_bad_escapes() {
    assert_eq!(
        error(r#"s = "a\qb" ;"#),
        r#"1:7: bad escape `\q`: the escapes are \\ \" \' \n \r \t \xHH \u{H…}"#
    );
    assert!(error(r#"s = "\x4" ;"#).starts_with("1:6: bad escape: `\\x` must be followed by exactly two hex digits"));
    assert!(error(r#"s = "\u{D800}" ;"#).starts_with("1:6: bad escape `\\u{D800}`: not a Unicode scalar value"));
    assert!(error(r#"s = "\u41" ;"#).starts_with("1:6: bad escape: `\\u` must be written"));
    assert!(error(r#"s = [\d] ;"#).starts_with("1:6: bad escape `\\d`"));
}

#[test]
fn error_unclosed_literal_and_class() {
    assert_eq!(
        error("s = \"abc ;\nt = \"x\" ;"),
        "1:5: unclosed literal: expected a closing quote on the same line (write \\n for a newline)"
    );
    assert_eq!(
        error("s = [a-z ;"),
        "1:5: unclosed character class: expected `]` on the same line"
    );
    assert_eq!(
        error("s = 'abc"),
        "1:5: unclosed literal: expected a closing quote on the same line (write \\n for a newline)"
    );
}

#[test]
fn error_bad_classes() {
    assert_eq!(
        error("s = [z-a] ;"),
        "1:6: bad range in character class: `z` comes after `a`"
    );
    assert_eq!(error("s = [] ;"), "1:5: empty character class `[]` matches nothing");
    assert_eq!(
        error("s = [^\\x00-\\u{10FFFF}] ;"),
        "1:5: character class `[^\\x00-\\u{10FFFF}]` matches nothing"
    );
}

#[test]
fn error_syntax() {
    assert_eq!(
        error("s = \"a\"\nt = \"b\" ;"),
        "2:1: expected `;` before the start of rule `t`"
    );
    assert_eq!(error("s \"a\" ;"), "1:3: expected `=` after rule name `s`, found `\"`");
    assert_eq!(
        error("s = ( \"a\" ;"),
        "1:11: expected `)` to close the group, found `;`"
    );
    assert_eq!(
        error("s = \"a\""),
        "1:8: rule `s` is not terminated: expected `;` before the end of the file"
    );
    assert_eq!(
        error("s = * \"a\" ;"),
        "1:5: a repetition operator needs an item before it"
    );
    assert_eq!(
        error("s = \"a\"{3,1} ;"),
        "1:8: repetition bound `{3,1}` has its maximum below its minimum"
    );
    assert_eq!(
        error("s = \"a\"{2 ;"),
        "1:8: unclosed repetition bound: expected `{n}`, `{n,m}` or `{n,}`"
    );
    assert_eq!(
        error("s = \"a\" 40 ;"),
        "1:9: a weight like `40%` may only start an alternative"
    );
    assert_eq!(
        error("s = 150% \"a\" ;"),
        "1:5: bad weight `150%`: a weight is a percentage from 0 to 100"
    );
    assert_eq!(
        error("s = 60% \"a\" | 50% \"b\" ;"),
        "1:5: the weights of these alternatives add up to 110%, more than 100%"
    );
    assert_eq!(
        error("# only a comment\n"),
        "2:1: the grammar has no rules; write at least one `name = ... ;`"
    );
    assert!(error("s = \"a\"{99999999999} ;").contains("repetition bound too large"));
}

#[test]
fn errors_recover_at_semicolons_and_are_all_reported() {
    // Rules with syntax errors are dropped; their names must not cause follow-on errors.
    let e = Grammar::from_text("c = a b ;\na = \"\\q\" ;\nb = [z-a] ;", "t.grammar").unwrap_err();
    let lines: Vec<u32> = e.errors().map(|d| d.span.line).collect();
    assert_eq!(lines, [2, 3]);
    assert!(e.to_string().starts_with("t.grammar:2:6: error: bad escape"), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let text = format!("s = {}\"a\"{} ;", "(".repeat(100_000), ")".repeat(100_000));
    let msg = error(&text);
    assert!(msg.contains("groups nested more than 256 deep"), "{msg}");
}

#[test]
fn columns_count_characters() {
    // The undefined name starts after a two-byte character: column 9, byte 9.
    let e = Grammar::from_text("s = \"é\" nope ;", "t").unwrap_err();
    let d = e.errors().next().unwrap();
    assert_eq!((d.span.line, d.span.col, d.span.offset), (1, 9, 9));
}

#[test]
fn nullable_productive_reachable() {
    let g = load(r#"s = a b | c ; a = "x"? ; b = a* ; c = c "y" | "z" ; d = "w" ;"#);
    let id = |n: &str| g.symbol_by_name(n).unwrap();
    assert!(g.is_nullable(id("a")) && g.is_nullable(id("b")) && g.is_nullable(id("s")));
    assert!(!g.is_nullable(id("c")));
    assert!(g.analysis().productive.iter().all(|&p| p));
    assert!(!g.analysis().reachable[id("d").index()]);
}

#[test]
fn cheapest_derivation_prefers_fewest_bytes_then_height() {
    let g = load(r#"s = "long" | x ; x = y ; y = "ab" | "c" ; r = r "+" r | "(" r ")" | "1" ;"#);
    assert_eq!(g.cheapest_len(g.start()), 1);
    assert_eq!(crate::tree::Tree::cheapest(&g, g.start()).unwrap().unparse(), b"c");
    // Recursive alternatives are never chosen when a base case exists.
    let r = g.symbol_by_name("r").unwrap();
    assert_eq!(crate::tree::Tree::cheapest(&g, r).unwrap().unparse(), b"1");
}

#[test]
fn unit_chains_follow_single_item_alternatives() {
    let g = load(
        r#"expr = term | expr "+" term ; term = factor | term "*" factor ; factor = num | "(" expr ")" ; num = [0-9]+ ;"#,
    );
    let id = |n: &str| g.symbol_by_name(n).unwrap();
    assert!(g.unit_derives(id("expr"), id("term")));
    assert!(g.unit_derives(id("expr"), id("factor")));
    assert!(g.unit_derives(id("expr"), id("num")));
    assert!(!g.unit_derives(id("factor"), id("expr")));
    assert!(!g.unit_derives(id("num"), id("num")));
}

#[test]
fn builtin_grammars_load_cleanly() {
    for name in builtin::names() {
        let g = Grammar::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(g.warnings().is_empty(), "{name}: {:?}", g.warnings());
        assert!(!builtin::samples(name).is_empty(), "{name} has samples");
    }
    let e = Grammar::load("no-such-grammar").unwrap_err();
    assert!(e.to_string().contains("not a built-in grammar (built-ins: "), "{e}");
}
