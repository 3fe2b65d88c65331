//! Feature profile of generated inputs beside the samples they were mined from (for
//! `scripts/eval-profile`): the share of inputs that have each feature.
//!
//! ```text
//! $(scripts/bench-bin profile) GRAMMAR SAMPLES LABEL=DIR...
//! ```
//!
//! GRAMMAR is a built-in grammar name or a grammar file; SAMPLES a folder of samples (e.g.
//! `seeds/json`); each `LABEL=DIR` a folder of generated inputs (e.g. `default=/tmp/out`). Every
//! input is parsed with the grammar and its features are read from the derivation tree:
//!
//! - json: the features of the JSON validity report (escapes, `\u` escapes, surrogate pairs,
//!   exponents, negative numbers, fractions, integers beyond 2^53, numbers beyond f64, nesting
//!   depth ≥ 10, empty containers, raw non-ASCII, tab/CR/LF, a top-level scalar);
//! - any other grammar: the 15 named rules whose use varies most among the samples (a rule used by
//!   a share p of the samples varies by p(1 − p)), nesting depth ≥ 10 and non-ASCII text;
//! - for all: size buckets.
//!
//! Nesting depth counts the bracket tokens `(` `[` `{` open at once (literal terminals only, so
//! brackets inside strings and comments do not count). Per feature it prints the share (%) in the
//! samples and in each folder; a `*` marks a share of the first folder more than 10 points from
//! the samples'. Then, per folder, the largest deviation among the rows and the constructs that
//! are most commoner and rarer than in the samples (the rows, and for grammars other than json
//! every named rule). The last line is
//! `summary GRAMMAR: LABEL max deviation D points (FEATURE), ...`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hellfuzz::grammar::{Grammar, SymbolId, Terminal};
use hellfuzz::mine::samples;
use hellfuzz::parse::Parser;
use hellfuzz::tree::{NodeKind, Tree};

/// Points by which a share of the first folder may differ from the samples' before it is marked.
const TOLERANCE: f64 = 10.0;

/// How many named rules the generic profile shows.
const RULES_SHOWN: usize = 15;

/// How many constructs each "commoner"/"rarer" line names.
const CONSTRUCTS_SHOWN: usize = 6;

/// Nesting depth from which an input counts as deeply nested.
const DEEP: usize = 10;

/// Size buckets: (label, lower bound inclusive, upper bound exclusive).
const SIZE_BUCKETS: [(&str, usize, usize); 4] = [
    ("size < 16", 0, 16),
    ("size 16-127", 16, 128),
    ("size 128-511", 128, 512),
    ("size >= 512", 512, usize::MAX),
];

/// What one input has: named features and the named rules its derivation uses.
struct Features {
    has: BTreeSet<&'static str>,
    rules: BTreeSet<SymbolId>,
    size: usize,
}

/// A set of inputs and their features.
struct Set {
    label: String,
    inputs: Vec<Features>,
    unparsed: usize,
}

impl Set {
    /// The share (%) of inputs having `f`.
    fn share(&self, f: impl Fn(&Features) -> bool) -> f64 {
        if self.inputs.is_empty() {
            return 0.0;
        }
        100.0 * self.inputs.iter().filter(|i| f(i)).count() as f64 / self.inputs.len() as f64
    }
}

/// A row of the table: how to tell whether an input has the feature.
enum Feature {
    Named(&'static str),
    Rule(SymbolId),
    Size(usize, usize),
}

impl Feature {
    fn holds(&self, i: &Features) -> bool {
        match *self {
            Feature::Named(n) => i.has.contains(n),
            Feature::Rule(s) => i.rules.contains(&s),
            Feature::Size(lo, hi) => (lo..hi).contains(&i.size),
        }
    }

    fn label(&self, g: &Grammar) -> String {
        match *self {
            Feature::Named(n) => n.to_string(),
            Feature::Rule(s) => format!("rule {}", g.symbol(s).name),
            Feature::Size(lo, hi) => SIZE_BUCKETS
                .iter()
                .find(|b| b.1 == lo && b.2 == hi)
                .map_or_else(|| format!("size {lo}-{hi}"), |b| b.0.to_string()),
        }
    }
}

/// The json grammar's features, in the order of the validity report.
const JSON_FEATURES: [&str; 13] = [
    "escape",
    "u_escape",
    "surrogate_pair",
    "exponent",
    "negative",
    "fraction",
    "big_int_gt_2^53",
    "float_overflow",
    "depth_ge_10",
    "empty_container",
    "non_ascii",
    "ws_tab_cr_lf",
    "top_scalar",
];

/// The generic features every grammar gets besides its rules.
const GENERIC_FEATURES: [&str; 2] = ["depth_ge_10", "non_ascii"];

/// Reads the features of one parsed input.
fn features(g: &Grammar, json: bool, tree: &Tree, bytes: &[u8]) -> Features {
    let mut has = BTreeSet::new();
    let mut rules = BTreeSet::new();
    // Nesting depth over the bracket tokens, in input order.
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut top_value_seen = false;
    tree.pre_order(tree.root(), |node| match tree.kind(node) {
        NodeKind::Leaf { terminal } => {
            if let Terminal::Literal(lit) = g.terminal(terminal) {
                match lit.as_slice() {
                    b"(" | b"[" | b"{" => {
                        depth += 1;
                        deepest = deepest.max(depth);
                    }
                    b")" | b"]" | b"}" => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        kind => {
            let sym = kind.symbol().expect("inner nodes have symbols");
            let s = g.symbol(sym);
            if !s.synthetic {
                // A rule with contexts counts once, whatever its instance (`stmt[ret]` is `stmt`).
                let rule = if s.name.contains('[') {
                    g.symbol_by_name(&hellfuzz::grammar::base_name(&s.name)).unwrap_or(sym)
                } else {
                    sym
                };
                rules.insert(rule);
            }
            if !json {
                return;
            }
            match (s.name.as_str(), kind) {
                ("escape", _) => {
                    has.insert("escape");
                }
                ("unit", NodeKind::Rule { alt, .. }) => {
                    has.insert("u_escape");
                    if alt == 3 {
                        has.insert("surrogate_pair");
                    }
                }
                ("exp", _) => {
                    has.insert("exponent");
                }
                ("frac", _) => {
                    has.insert("fraction");
                }
                ("number", _) => {
                    let text = String::from_utf8_lossy(&tree.unparse_node(node)).into_owned();
                    if text.starts_with('-') {
                        has.insert("negative");
                    }
                    if !text.contains(['.', 'e', 'E']) {
                        let digits = text.trim_start_matches('-');
                        if digits.len() > 16 || digits.parse::<u64>().is_ok_and(|v| v > 1 << 53) {
                            has.insert("big_int_gt_2^53");
                        }
                    }
                    if text.parse::<f64>().is_ok_and(|v| v.is_infinite()) {
                        has.insert("float_overflow");
                    }
                }
                ("object" | "array", _) => {
                    // The members or elements are the one optional child; absent means `{}`/`[]`.
                    let empty = tree
                        .children(node)
                        .any(|c| matches!(tree.kind(c), NodeKind::Optional { .. }) && tree.child_count(c) == 0);
                    if empty {
                        has.insert("empty_container");
                    }
                }
                ("value", NodeKind::Rule { alt, .. }) if !top_value_seen => {
                    // Pre-order: the first value is the document's.
                    top_value_seen = true;
                    if alt > 1 {
                        has.insert("top_scalar");
                    }
                }
                _ => {}
            }
        }
    });
    if deepest >= DEEP {
        has.insert("depth_ge_10");
    }
    if bytes.iter().any(|&b| b >= 0x80) {
        has.insert("non_ascii");
    }
    if json && bytes.iter().any(|&b| matches!(b, b'\t' | b'\r' | b'\n')) {
        has.insert("ws_tab_cr_lf");
    }
    Features {
        has,
        rules,
        size: bytes.len(),
    }
}

/// Parses every file of `dirs` and reads its features.
fn read_set(g: &Grammar, json: bool, label: &str, dirs: &[String]) -> Result<Set, String> {
    let files: Vec<PathBuf> = samples::collect(dirs).map_err(|e| e.to_string())?;
    let parser = Parser::new(g);
    let mut set = Set {
        label: label.to_string(),
        inputs: Vec::new(),
        unparsed: 0,
    };
    for f in files {
        let bytes = std::fs::read(&f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        match parser.parse(&bytes) {
            Ok(tree) => set.inputs.push(features(g, json, &tree, &bytes)),
            Err(_) => set.unparsed += 1,
        }
    }
    Ok(set)
}

/// The rows: json's features or the most varying named rules and the generic features; then
/// the size buckets.
fn rows(g: &Grammar, json: bool, samples: &Set) -> Vec<Feature> {
    let mut rows: Vec<Feature> = Vec::new();
    if json {
        rows.extend(JSON_FEATURES.iter().map(|&f| Feature::Named(f)));
    } else {
        let mut named: Vec<(f64, SymbolId)> = (0..g.symbols().len())
            .map(|i| SymbolId(i as u32))
            .filter(|&s| !g.symbol(s).synthetic)
            .map(|s| {
                let p = samples.share(|i| i.rules.contains(&s)) / 100.0;
                (p * (1.0 - p), s)
            })
            .filter(|&(v, _)| v > 0.0)
            .collect();
        named.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| g.symbol(a.1).name.cmp(&g.symbol(b.1).name))
        });
        rows.extend(named.iter().take(RULES_SHOWN).map(|&(_, s)| Feature::Rule(s)));
        rows.extend(GENERIC_FEATURES.iter().map(|&f| Feature::Named(f)));
    }
    rows.extend(SIZE_BUCKETS.iter().map(|&(_, lo, hi)| Feature::Size(lo, hi)));
    rows
}

/// p10/median/p90 of the sizes.
fn size_quantiles(set: &Set) -> String {
    let mut sizes: Vec<usize> = set.inputs.iter().map(|i| i.size).collect();
    if sizes.is_empty() {
        return "-".to_string();
    }
    sizes.sort_unstable();
    let q = |f: f64| sizes[((sizes.len() - 1) as f64 * f).round() as usize];
    format!("{}/{}/{}", q(0.1), q(0.5), q(0.9))
}

fn run(args: &[String]) -> Result<(), String> {
    let [grammar, samples_dir, sets @ ..] = args else {
        return Err("usage: profile GRAMMAR SAMPLES LABEL=DIR...".to_string());
    };
    let g = Grammar::load(grammar).map_err(|e| e.to_string())?;
    let json = Path::new(grammar).file_stem().is_some_and(|s| s == "json")
        && ["value", "escape", "unit", "number", "object", "array"]
            .iter()
            .all(|n| g.symbol_by_name(n).is_some());
    let samples = read_set(&g, json, "samples", std::slice::from_ref(samples_dir))?;
    let mut generated = Vec::new();
    for s in sets {
        let (label, dir) = s.split_once('=').ok_or_else(|| format!("`{s}`: expected LABEL=DIR"))?;
        generated.push(read_set(&g, json, label, &[dir.to_string()])?);
    }
    let name = Path::new(grammar)
        .file_stem()
        .map_or(grammar.clone(), |s| s.to_string_lossy().into_owned());

    let counts: Vec<String> = std::iter::once(&samples)
        .chain(&generated)
        .map(|s| {
            let unparsed = if s.unparsed > 0 {
                format!(", {} unparsed", s.unparsed)
            } else {
                String::new()
            };
            format!("{} {}{unparsed}", s.label, s.inputs.len())
        })
        .collect();
    println!("profile {name}: % of inputs with each feature ({})", counts.join(", "));
    let rows = rows(&g, json, &samples);
    let width = rows.iter().map(|r| r.label(&g).len()).max().unwrap_or(8).max(8);
    print!("  {:<width$} {:>8}", "feature", "samples");
    for s in &generated {
        print!(" {:>9}", s.label);
    }
    println!();
    for row in &rows {
        let base = samples.share(|i| row.holds(i));
        print!("  {:<width$} {base:>8.1}", row.label(&g));
        for (k, s) in generated.iter().enumerate() {
            let p = s.share(|i| row.holds(i));
            let mark = if k == 0 && (p - base).abs() > TOLERANCE {
                "*"
            } else {
                " "
            };
            print!(" {p:>8.1}{mark}");
        }
        println!();
    }
    print!("  {:<width$} {:>8}", "size p10/median/p90", size_quantiles(&samples));
    for s in &generated {
        print!(" {:>9}", size_quantiles(s));
    }
    println!();

    // Every construct: the table's features (the first `table`) and every named rule.
    let table = rows.len();
    let mut constructs: Vec<Feature> = rows;
    let shown: BTreeSet<SymbolId> = constructs
        .iter()
        .filter_map(|r| match r {
            Feature::Rule(s) => Some(*s),
            _ => None,
        })
        .collect();
    if !json {
        constructs.extend(
            (0..g.symbols().len())
                .map(|i| SymbolId(i as u32))
                .filter(|s| !g.symbol(*s).synthetic && !shown.contains(s))
                .map(Feature::Rule),
        );
    }
    let mut summary = Vec::new();
    for s in &generated {
        let mut diffs: Vec<(f64, String)> = constructs
            .iter()
            .map(|c| (s.share(|i| c.holds(i)) - samples.share(|i| c.holds(i)), c.label(&g)))
            .collect();
        let (worst, worst_label) = diffs[..table]
            .iter()
            .map(|(d, l)| (d.abs(), l.clone()))
            .fold((0.0, String::from("-")), |a, b| if b.0 > a.0 { b } else { a });
        let over = diffs[..table].iter().filter(|(d, _)| d.abs() > TOLERANCE).count();
        // Beyond the table: every named rule (the table picks those that vary most).
        let (all_worst, all_label) = diffs
            .iter()
            .map(|(d, l)| (d.abs(), l.clone()))
            .fold((0.0, String::from("-")), |a, b| if b.0 > a.0 { b } else { a });
        let all_over = diffs.iter().filter(|(d, _)| d.abs() > TOLERANCE).count();
        println!(
            "  {}: max deviation from the samples {worst:.1} points ({worst_label}); {over} of {table} features more than {TOLERANCE} points off; over all {} constructs: {all_worst:.1} ({all_label}), {all_over} off",
            s.label,
            diffs.len()
        );
        diffs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let list = |it: &mut dyn Iterator<Item = &(f64, String)>, sign: f64| {
            it.filter(|(d, _)| d * sign >= 1.0)
                .take(CONSTRUCTS_SHOWN)
                .map(|(d, l)| format!("{l} {d:+.0}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!("    commoner than in the samples: {}", list(&mut diffs.iter(), 1.0));
        println!("    rarer than in the samples: {}", list(&mut diffs.iter().rev(), -1.0));
        summary.push(format!("{} max deviation {worst:.1} points ({worst_label})", s.label));
    }
    println!("summary {name}: {}", summary.join(", "));
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("profile: {e}");
            ExitCode::from(2)
        }
    }
}
