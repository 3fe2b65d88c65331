//! Tests of contexts (parameters, guards, arguments) and exclusions: expansion, the languages the
//! expanded rules accept, and every error with its location.

use proptest::prelude::*;

use super::tests::{error, load};
use super::*;
use crate::parse::Parser;
use std::collections::HashSet;

fn accepts(g: &Grammar, input: &str) -> bool {
    Parser::new(g).parse(input.as_bytes()).is_ok()
}

const LOOPS: &str = r#"
program = stmt* ;
stmt[loop, ret] = [+ret] "return;"
                | [+loop] "break;"
                | "while(){" stmt[+loop, ?ret]* "}"
                | "function(){" stmt[+ret]* "}"
                | "x;" ;
"#;

#[test]
fn parameters_expand_into_the_instances_reached() {
    let g = load(LOOPS);
    let names: Vec<&str> = g
        .symbols()
        .iter()
        .filter(|s| !s.synthetic)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["program", "stmt", "stmt[loop]", "stmt[ret]", "stmt[loop,ret]"]);
    assert_eq!(
        g.contexts(),
        [Expansion {
            rule: "stmt".into(),
            params: vec!["loop".into(), "ret".into()],
            instances: vec![
                "stmt".into(),
                "stmt[loop]".into(),
                "stmt[ret]".into(),
                "stmt[loop,ret]".into()
            ],
        }]
    );
    // Guards keep only the alternatives whose parameters hold.
    let alts = |name: &str| g.symbol(g.symbol_by_name(name).unwrap()).alternatives().len();
    assert_eq!(
        (
            alts("stmt"),
            alts("stmt[loop]"),
            alts("stmt[ret]"),
            alts("stmt[loop,ret]")
        ),
        (3, 4, 4, 5)
    );
}

#[test]
fn guarded_alternatives_are_only_accepted_in_their_context() {
    let g = load(LOOPS);
    assert!(accepts(&g, "x;while(){break;x;}"));
    assert!(accepts(&g, "function(){return;while(){return;break;}}"));
    assert!(!accepts(&g, "break;"), "break outside a loop");
    assert!(!accepts(&g, "return;"), "return outside a function");
    assert!(!accepts(&g, "while(){return;}"), "?ret passes off");
    // A function resets `loop`: no break inside a function inside a loop.
    assert!(!accepts(&g, "while(){function(){break;}}"));
}

#[test]
fn off_arguments_and_guards_on_off_parameters() {
    let g = load(
        r#"
        e = x[+in] ";" x ;
        x[in] = [+in] "a in b" | [~in] "a" | "(" x[~in] ")" ;
        "#,
    );
    assert!(accepts(&g, "a in b;a"));
    assert!(accepts(&g, "(a);(a)"));
    assert!(!accepts(&g, "a;a in b"), "the second x has in off");
    assert!(!accepts(&g, "(a in b);a"), "~in inside the parentheses");
}

#[test]
fn guards_work_inside_groups_and_the_expansion_prints_as_a_grammar() {
    let g = load(r#"s = t[+p] t ; t[p] = "<" ( [+p] "on" | [~p] "off" | "any" ) ">" ;"#);
    assert!(accepts(&g, "<on><off>"));
    assert!(accepts(&g, "<any><any>"));
    assert!(!accepts(&g, "<off><on>"));
    let text = g.to_text();
    assert!(text.contains("`t[p]` = "), "{text}");
    let again = load(&text);
    assert_eq!(again.fingerprint(), g.fingerprint());
    assert!(accepts(&again, "<on><off>") && !accepts(&again, "<off><on>"));
}

#[test]
fn a_rule_with_parameters_that_nothing_reaches_is_reported_unreachable() {
    let g = load(r#"s = "a" ; t[p] = [+p] "b" | "c" ;"#);
    assert!(g.unused_rules().iter().any(|&u| g.symbol(u).name == "t"));
    assert!(
        g.warnings().iter().any(|w| w.message.contains("`t` is unreachable")),
        "{:?}",
        g.warnings()
    );
}

#[test]
fn context_errors_are_located_and_say_what_to_do() {
    assert_eq!(
        error("s = [+p] \"a\" | \"b\" ;"),
        "1:7: the guard `[+p]` names a parameter that rule `s` does not declare; declare it: `s[p] = ... ;`"
    );
    assert_eq!(
        error("s = t[+q] ;\nt[p] = \"a\" ;"),
        "1:8: rule `t` has no parameter `q` (its parameters: p)"
    );
    assert_eq!(
        error("s = t[+q] ;\nt = \"a\" ;"),
        "1:8: rule `t` has no parameter `q` (it has no parameters)"
    );
    assert!(error("s = t[?p] ;\nt[p] = \"a\" ;")
        .starts_with("1:8: `?p` passes on parameter `p` of the rule it is in, but rule `s` has no parameter `p`"));
    assert_eq!(
        error("s[p, p] = \"a\" ;"),
        "1:6: parameter `p` is declared twice in `s[...]`"
    );
    assert_eq!(
        error("s = t[+p, ~p] ;\nt[p] = \"a\" ;"),
        "1:12: parameter `p` is set twice in `t[...]`"
    );
    assert!(error("s = t[+p] ;\nt[p] = [~p] \"a\" ;")
        .starts_with("2:1: every alternative of `t` is guarded out in `t[p]` (used at line 1, column 5)"));
    assert!(error("s = t[+p] ;\nt[p] = \"<\" ( [~p] \"a\" ) \">\" ;")
        .starts_with("2:12: every alternative of this group is guarded out in `t[p]`"));
    assert!(error("s = u[+p] ;\n").contains("undefined symbol `u`"));
}

#[test]
fn classes_after_names_stay_classes() {
    // `[+\-]` and ` [a-z]` are classes, not arguments or guards.
    let g = load(r#"s = n[+\-] [a-z] ; n = "1" ;"#);
    assert!(accepts(&g, "1-x") && accepts(&g, "1+y"));
    assert!(g.contexts().is_empty());
}

const IDENT: &str = r#"
s = ident ;
ident = name - kw ;
name = [a-z] [a-z0-9]* ;
kw = "if" | "in" | "int" | "do" | "done" ;
"#;

const KEYWORDS: [&str; 5] = ["if", "in", "int", "do", "done"];

#[test]
fn exclusion_removes_exactly_the_words() {
    let g = load(IDENT);
    for kw in KEYWORDS {
        assert!(!accepts(&g, kw), "{kw} is excluded");
    }
    for ok in [
        "i", "d", "dn", "don", "doner", "ifx", "inta", "int0", "x", "a1", "ix", "dont",
    ] {
        assert!(accepts(&g, ok), "{ok} is a name");
    }
    assert!(!accepts(&g, "1a"), "the left side still applies");
    assert_eq!(g.exclusions()[0].words, 5);
    assert!(
        g.warnings().is_empty(),
        "rules used by the exclusion are used: {:?}",
        g.warnings()
    );
}

proptest! {
    /// On any string over a small alphabet, the expanded rule accepts exactly what the left side
    /// accepts minus the words.
    #[test]
    fn exclusion_is_the_set_difference(input in "[a-z0-9]{0,6}|(if|in|int|do|done|n|o|t|e)+") {
        let g = load(IDENT);
        let name = !input.is_empty()
            && input.as_bytes()[0].is_ascii_lowercase()
            && input.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        let expected = name && !KEYWORDS.contains(&input.as_str());
        prop_assert_eq!(accepts(&g, &input), expected, "{:?}", input);
    }

    /// Generated identifiers are never keywords.
    #[test]
    fn generated_names_avoid_the_words(seed in 0u64..1000) {
        let g = load(IDENT);
        let probs = crate::mine::Probabilities::new(&g, None, crate::mine::ProbabilityMode::Uniform);
        let out = crate::generate::Generator::new(&g, &probs, crate::generate::Limits::up_to(12), seed).input();
        let text = String::from_utf8(out).unwrap();
        prop_assert!(!KEYWORDS.contains(&text.as_str()), "{}", text);
        prop_assert!(accepts(&g, &text));
    }
}

#[test]
fn exclusion_over_a_bounded_left_side_and_repeated_words() {
    // Two-letter codes except `ab` and `ba`: a finite left side, words from a repetition.
    let g = load(r#"s = code ; code = [ab]{2} - ( "a" "b" | "b" "a" ) ;"#);
    let accepted: Vec<&str> = ["aa", "ab", "ba", "bb", "a", "aab"]
        .into_iter()
        .filter(|w| accepts(&g, w))
        .collect();
    assert_eq!(accepted, ["aa", "bb"]);
}

#[test]
fn exclusion_errors_are_located() {
    assert_eq!(
        error("s = n - k ;\nn = \"a\" n | \"a\" ;\nk = \"a\" ;"),
        "1:7: an exclusion needs a regular left side and a finite right side, but `n` is recursive"
    );
    assert_eq!(
        error("s = [a-z]+ - [a-c] ;"),
        "1:12: the words after `-` must be a finite set of strings; write the characters of `[a-c]` as literals"
    );
    assert_eq!(
        error("s = [a-z]+ - \"a\"+ ;"),
        "1:12: the words after `-` must be a finite set: remove `*`, `+` or `{n,}`"
    );
    assert_eq!(
        error("s = \"a\" - \"a\" ;"),
        "1:9: this exclusion matches nothing: every string of the left side is excluded"
    );
    assert_eq!(
        error("s = \"a\" - \"b\" - \"c\" ;"),
        "1:15: `a - b - c` is ambiguous: write `a - ( b | c )`"
    );
    assert_eq!(
        error("s = \"a\" - ;"),
        "1:11: expected the words to exclude after `-` (a rule name, a literal or a group), found `;`"
    );
    assert_eq!(
        error("s = [a-z]+ - k ;"),
        "1:12: `k` in an exclusion is not a defined rule"
    );
}

fn generated(g: &Grammar, seed: u64) -> String {
    let probs = crate::mine::Probabilities::new(g, None, crate::mine::ProbabilityMode::Uniform);
    let out = crate::generate::Generator::new(g, &probs, crate::generate::Limits::up_to(200), seed).input();
    String::from_utf8(out).unwrap()
}

#[test]
fn distinct_names_differ_within_their_scope_only() {
    // Parameters of one function differ; two functions may reuse a name.
    let g = load(
        r#"
        p = f f ;
        f = "f(" name ( "," name ){3} "){}" ;
        name = [a-f] ;
        %distinct name f ;
        "#,
    );
    let mut reused = false;
    for seed in 0..200 {
        let text = generated(&g, seed);
        let mut funcs = text.split("){}").filter(|s| !s.is_empty());
        let (one, two) = (funcs.next().unwrap(), funcs.next().unwrap());
        let names = |f: &str| {
            f.trim_start_matches("f(")
                .split(',')
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        for f in [one, two] {
            let n = names(f);
            let mut unique = n.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), n.len(), "seed {seed}: {text}");
        }
        reused |= names(one).iter().any(|n| names(two).contains(n));
    }
    assert!(reused, "names may repeat across scopes");
}

#[test]
fn hoisted_names_differ_from_every_scope_up_to_their_stop() {
    // `v` (a var) belongs to its block and every block up to the function; `l` (a let) to its
    // block only.
    let g = load(
        r#"
        fn = "fn{" item* "}" ;
        block = "{" item* "}" ;
        item = "v " var_name ";" | "l " name ";" | block ;
        var_name = name ;
        name = [a-z] [a-z] ;
        %distinct name block fn ;
        %hoist var_name fn ;
        "#,
    );
    let parser = Parser::new(&g);
    for seed in 0..300 {
        let text = generated(&g, seed);
        let tree = parser.parse(text.as_bytes()).unwrap();
        // Check: every var differs from the lets of the blocks around it and from other vars.
        let mut stack: Vec<Vec<(bool, String)>> = vec![Vec::new()];
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'{' => stack.push(Vec::new()),
                b'}' => {
                    let inner = stack.pop().unwrap();
                    // vars hoist into the enclosing scope
                    if let Some(outer) = stack.last_mut() {
                        outer.extend(inner.into_iter().filter(|(var, _)| *var));
                    }
                }
                b'v' | b'l' if bytes.get(i + 1) == Some(&b' ') => {
                    let name = text[i + 2..i + 4].to_string();
                    let var = bytes[i] == b'v';
                    let top = stack.last().unwrap();
                    assert!(
                        !top.iter().any(|(_, n)| *n == name),
                        "seed {seed}: {name} declared twice in one scope: {text}"
                    );
                    stack.last_mut().unwrap().push((var, name));
                    i += 4;
                }
                _ => {}
            }
            i += 1;
        }
        let _ = tree;
    }
}

#[test]
fn references_name_the_definition_around_them() {
    let g = load(
        r#"
        s = stmt* ;
        stmt = label ":{" ( stmt | "break " ref ";" )* "}" | "x;" ;
        label = [a-z] [a-z] ;
        ref = [a-z] [a-z] ;
        %refer ref label ;
        "#,
    );
    for seed in 0..200 {
        let text = generated(&g, seed);
        // Every `break X;` names a label around it, and no label is nested in one of its name.
        let mut open: Vec<&str> = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let rest = &text[i..];
            if rest.len() > 3 && rest.as_bytes()[2] == b':' && rest.as_bytes()[0].is_ascii_lowercase() {
                assert!(
                    !open.contains(&&rest[..2]),
                    "seed {seed}: nested label {}: {text}",
                    &rest[..2]
                );
                open.push(&rest[..2]);
                i += 4;
            } else if let Some(name) = rest.strip_prefix("break ") {
                assert!(
                    open.contains(&&name[..2]),
                    "seed {seed}: break {} outside its label: {text}",
                    &name[..2]
                );
                i += 9;
            } else {
                if rest.starts_with('}') {
                    open.pop();
                }
                i += 1;
            }
        }
    }
}

#[test]
fn generation_directives_name_rules() {
    assert_eq!(
        error("s = \"a\" ;\n%distinct n s ;"),
        "2:11: `%distinct` names `n`, which is not a rule; define `n = ... ;`"
    );
    assert!(error("s = \"a\" ;\n%refer s ;")
        .starts_with("2:1: `%refer` takes a reference rule and at least one definition rule"));
    assert!(error("s = \"a\" ;\n%hoist s ;").starts_with("2:1: `%hoist` takes a name rule and at least one scope rule"));
}

#[test]
fn a_deeply_nested_exclusion_is_an_error_not_a_stack_overflow() {
    // 150 rules, each a group around the next: inlined, the left side nests 300 deep.
    let mut text = String::from("s = r0 - \"a\" ;\n");
    for i in 0..150 {
        text += &format!("r{i} = ( ( r{} ) | \"b\" ) ;\n", i + 1);
    }
    text += "r150 = \"c\" ;\n";
    let e = Grammar::from_text(&text, "t.grammar").expect_err("too deep");
    assert!(
        e.to_string().contains("nests more than 200 groups deep")
            || e.to_string().contains("rules nest more than 64 deep"),
        "{e}"
    );
}

#[test]
fn values_draw_a_rules_text_from_its_words_and_leave_parsing_alone() {
    // `unit` is any word to the parser, but generation draws it from `units`; a word that is
    // no text of `unit` (`"9"`) leaves the node as it was drawn.
    let g = load(
        r#"
        list = item ( "," item )* ;
        item = [0-9] unit ;
        unit = [a-z] [a-z] ;
        units = "px" | "em" | "9" ;
        %values unit units ;
        "#,
    );
    assert!(accepts(&g, "1zz,2qq"), "parsing does not look at %values");
    assert!(g.unused_rules().is_empty(), "the words rule counts as used");
    let mut words = std::collections::HashSet::new();
    for seed in 0..100 {
        let text = generated(&g, seed);
        for item in text.split(',') {
            let unit = &item[1..];
            assert!(unit.len() == 2, "seed {seed}: {text}");
            words.insert(unit.to_string());
        }
    }
    assert!(words.contains("px") && words.contains("em"), "{words:?}");
    // Another word is only the `9` case: drawn as the rule draws it.
    assert!(words.len() > 2, "{words:?}");
    // Printed with the grammar and loaded again.
    let text = g.to_file_text();
    assert!(text.contains("%values unit units ;"), "{text}");
    assert_eq!(load(&text).values().len(), 1);
    // Errors name what is wrong.
    let e = error("a = b ; b = \"x\" ; %values b ;");
    assert!(
        e.contains("`%values` takes a rule, the rule its texts are drawn from"),
        "{e}"
    );
    let e = error("a = b ; b = \"x\" ; %values b nowhere ;");
    assert!(e.contains("draws from `nowhere`, which is not a rule"), "{e}");
    let e = error("a = b ; b = \"x\" ; %values c b ;");
    assert!(e.contains("`%values` names `c`, which is not a rule"), "{e}");
}

#[test]
fn keyed_values_draw_a_rules_text_from_the_words_whose_key_has_the_same_text() {
    // A call of `var` is drawn from the calls of `var` in the table, one of `rgb` from those
    // of `rgb`; a name no word has (`max`) keeps the call as it was drawn. Parsing takes any
    // argument after any name.
    let g = load(
        r#"
        list = call ( ";" call )* ;
        call = name "(" arg ")" ;
        name = "var" | "rgb" | "max" ;
        arg = [a-z0-9-]+ ;
        calls = "var(--a)" | "var(--b)" | "rgb(1)" | "max" ;
        %values call calls name ;
        "#,
    );
    assert!(accepts(&g, "var(0);rgb(x)"), "parsing does not look at %values");
    assert!(g.unused_rules().is_empty(), "the words rule counts as used");
    let (mut vars, mut rgbs, mut maxes) = (HashSet::new(), HashSet::new(), HashSet::new());
    for seed in 0..100 {
        let text = generated(&g, seed);
        for call in text.split(';') {
            match &call[..3] {
                "var" => vars.insert(call.to_string()),
                "rgb" => rgbs.insert(call.to_string()),
                _ => maxes.insert(call.to_string()),
            };
        }
    }
    let want: HashSet<String> = ["var(--a)", "var(--b)"].iter().map(|s| s.to_string()).collect();
    assert_eq!(vars, want);
    assert_eq!(rgbs, HashSet::from(["rgb(1)".to_string()]));
    // `max` (a word that is no call) matches no key: drawn as the rules draw it.
    assert!(maxes.len() > 3, "{maxes:?}");
    // Printed with the grammar and loaded again, key and all.
    let text = g.to_file_text();
    assert!(text.contains("%values call calls name ;"), "{text}");
    assert_eq!(load(&text).values()[0].key.len(), 1);
    let e = error("a = b ; b = \"x\" ; c = \"x\" ; %values b c nokey ;");
    assert!(e.contains("keys on `nokey`, which is not a rule"), "{e}");
    let e = error("a = b ; b = \"x\" ; c = \"x\" ; %values b c b c ;");
    assert!(e.contains("optionally a key rule"), "{e}");
}

#[test]
fn separate_keeps_two_tokens_apart_in_generation_and_leaves_parsing_alone() {
    // The layout between `and` and `(` is mostly empty; `%separate` puts a space there
    // wherever it comes out empty, and nowhere else.
    let text = r#"
        %layout _ ;
        list = q ( _ "and" q )* ;
        q = _ "(" _ "a" _ ")" ;
        _ = " "* ;
        %separate "and" "(" ;
        "#;
    let g = load(text);
    assert!(accepts(&g, "(a)and(a)"), "parsing does not look at %separate");
    let (mut ands, mut touching) = (0, 0);
    for seed in 0..200 {
        let text = generated(&g, seed);
        ands += text.matches("and").count();
        touching += text.matches("and(").count();
        assert!(accepts(&g, &text), "seed {seed}: {text}");
    }
    assert!(ands > 20, "{ands} `and`s in 200 inputs");
    assert_eq!(touching, 0, "`and` touched `(`");
    // Without it, they touch.
    let plain = load(&text.replace("%separate \"and\" \"(\" ;", ""));
    assert!((0..200).any(|seed| generated(&plain, seed).contains("and(")));
    // Printed with the grammar and loaded again.
    let printed = g.to_file_text();
    assert!(printed.contains("%separate \"and\" \"(\" ;"), "{printed}");
    assert_eq!(load(&printed).separate(), g.separate());
    // Errors name what is wrong.
    let e = error("a = \"x\" ; %separate \"x\" ;");
    assert!(e.contains("`%separate` takes two literals"), "{e}");
    let e = error("a = \"x\" ; %separate a \"x\" ;");
    assert!(e.contains("expected a quoted literal or `;` in `%separate`"), "{e}");
    let e = error("a = \"x\" ; %separate \"\" \"x\" ;");
    assert!(e.contains("`%separate` names an empty token"), "{e}");
    let warned = load("a = \"x\" ; %separate \"x\" \"y\" ;");
    assert!(
        warned
            .warnings()
            .iter()
            .any(|w| w.message.contains("does nothing without a `%layout`")),
        "{:?}",
        warned.warnings()
    );
}

#[test]
fn never_keeps_a_token_from_coming_right_after_another_whatever_the_layout() {
    // `*` then `except` (in any case, with or without spaces) is what the real parser reads
    // another way; each is fine beside other tokens.
    let text = r#"
        %layout _ ;
        query = _ select ( _ op _ select )* _ ;
        select = "select" _ item ( _ "," _ item )* ;
        item = "*" | "a" | "b" ;
        op = [Uu] "nion" | [Ee] "xcept" ;
        _ = " "* ;
        %never "*" "except" ;
        "#;
    let g = load(text);
    assert!(
        accepts(&g, "select * except select a"),
        "parsing does not look at %never"
    );
    let pair = ::regex::bytes::Regex::new(r"(?i)\*\s*except").unwrap();
    let union = ::regex::Regex::new(r"(?i)\*\s*union").unwrap();
    let (mut stars, mut excepts, mut star_union) = (0, 0, 0);
    for seed in 0..300 {
        let text = generated(&g, seed);
        assert!(!pair.is_match(text.as_bytes()), "seed {seed}: {text}");
        assert!(accepts(&g, &text), "seed {seed}: {text}");
        stars += text.matches('*').count();
        excepts += text.to_ascii_lowercase().matches("except").count();
        star_union += union.find_iter(&text).count();
    }
    // Each token and the other pairs are still drawn.
    assert!(
        stars > 30 && excepts > 30 && star_union > 5,
        "{stars} {excepts} {star_union}"
    );
    // Without it, the two meet.
    let plain = load(&text.replace("%never \"*\" \"except\" ;", ""));
    assert!((0..300).any(|seed| pair.is_match(generated(&plain, seed).as_bytes())));
    // Printed with the grammar and loaded again; `%separate` is another thing.
    let printed = g.to_file_text();
    assert!(printed.contains("%never \"*\" \"except\" ;"), "{printed}");
    assert_eq!(load(&printed).separate(), g.separate());
    assert!(g.separate()[0].never && g.separate()[0].forbids(b"*", b"ExCePt"));
    // Errors name what is wrong.
    let e = error("a = \"x\" ; %never \"x\" ;");
    assert!(e.contains("`%never` takes two literals"), "{e}");
    let e = error("a = \"x\" ; %never a \"x\" ;");
    assert!(e.contains("expected a quoted literal or `;` in `%never`"), "{e}");
    let e = error("a = \"x\" ; %never \"\" \"x\" ;");
    assert!(e.contains("`%never` names an empty token"), "{e}");
    // Without a layout rule, each terminal is a token.
    let bare = load("s = ( \"a\" | \"b\" | \"c\" )* ; %never \"a\" \"b\" ;");
    let texts: Vec<String> = (0..300).map(|seed| generated(&bare, seed)).collect();
    assert!(texts.iter().all(|t| !t.contains("ab")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("ba")) && texts.iter().any(|t| t.contains('a')));
}
