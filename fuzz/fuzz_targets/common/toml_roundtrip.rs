//! The code under test of the toml target: toml_edit's parser and printer, as a round trip.

use toml_edit::{DocumentMut, Item, Table, Value};

/// toml_edit's parser and printer, as a round trip. toml_edit is format-preserving: its
/// documented promise is that an unmodified document prints as it was read ("preserving
/// comments, spaces *and relative order* of items"), less two documented limitations: the order
/// of dotted keys (they are printed grouped by their first key) and a missing trailing newline
/// (one is added after a last key/value pair). Line breaks are printed as `\n` (its maintainers:
/// CRLF is normalized to LF on purpose), except inside multi-line strings, which keep their raw
/// text. So a document that parses must:
/// - print to exactly its text, up to those three (CRLF read as LF, one added final newline,
///   dotted keys moved) and one known bug (toml-rs/toml#1214: prefix segments of keys respelled);
///   where those two may apply, the text must be the same up to moving lines, blanks and quotes;
/// - print to text that parses, to the same values (tables, arrays, strings, numbers, dates);
/// - print again to the same text (printing is idempotent).
///
/// Inputs that do not parse are answers, not bugs: only a panic there is a finding. The panic
/// messages leave the input and the printed text out (the wrapper minimizes a crash only while
/// the message stays the same, numbers aside; run the target on the `minimized-*` file to see
/// it fail), and so does not say where in the tree values differ.
pub fn toml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(first) = text.parse::<DocumentMut>() else {
        return;
    };
    let printed = first.to_string();

    // Line breaks compared as `\n` on both sides: a multi-line string keeps its CRLF as read, the
    // rest is printed with LF (so a CRLF in a string printed as LF would go unseen here).
    let expected = text.replace("\r\n", "\n");
    let lf = printed.replace("\r\n", "\n");
    let same_text = lf == expected || (!expected.ends_with('\n') && lf == format!("{expected}\n"));
    if !same_text {
        // Known and exempted so fuzzing goes on: dotted keys are reordered (documented), and the
        // prefix segments of a dotted key or table header are printed as the key's first
        // definition spelled them (toml-rs/toml#1214, open: `[a]` then `["a".b]` prints
        // `[a.b]`, `[a . b]` prints `[a. b]`). This target found the latter on its first seeds.
        assert!(
            has_long_keys(first.as_table()),
            "toml_edit does not print a document as it was read"
        );
        assert!(
            loose_lines(&expected) == loose_lines(&lf),
            "toml_edit prints a document with dotted keys otherwise than by moving and respelling keys"
        );
    }

    let second = match printed.parse::<DocumentMut>() {
        Ok(second) => second,
        Err(error) => panic!(
            "toml_edit's printed document does not parse: {}",
            shape(error.message())
        ),
    };
    same_table(first.as_table(), second.as_table());
    assert!(second.to_string() == printed, "toml_edit's printing is not idempotent");
}

/// Whether a document has a key of two segments or more: a dotted key (`a.b = 1`, inline tables
/// included) or a table header (`[a.b]`, `[[a.b]]`, or `[b]` inside `[[a]]`).
fn has_long_keys(root: &Table) -> bool {
    has_dotted_keys(root)
        || root.iter().any(|(_, item)| match item {
            Item::Table(t) => has_tables(t),
            Item::ArrayOfTables(a) => a.iter().any(has_tables),
            _ => false,
        })
}

fn has_tables(table: &Table) -> bool {
    table
        .iter()
        .any(|(_, item)| matches!(item, Item::Table(_) | Item::ArrayOfTables(_)))
}

/// The lines of a text, sorted, each without blanks and quotes, the last one ending in a line
/// break: what is left when keys move (as wholes, with their comments) and are respelled.
fn loose_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| line.chars().filter(|c| !matches!(c, ' ' | '\t' | '"' | '\'')).collect())
        .collect();
    lines.sort();
    lines
}

/// Whether a table holds a dotted key (`a.b = 1`) anywhere, inline tables included.
fn has_dotted_keys(table: &Table) -> bool {
    table.iter().any(|(_, item)| match item {
        Item::Table(t) => t.is_dotted() || has_dotted_keys(t),
        Item::ArrayOfTables(a) => a.iter().any(has_dotted_keys),
        Item::Value(v) => value_has_dotted_keys(v),
        Item::None => false,
    })
}

fn value_has_dotted_keys(value: &Value) -> bool {
    match value {
        // A dotted key inside an inline table is held as an inline table marked dotted.
        Value::InlineTable(t) => t
            .iter()
            .any(|(_, v)| matches!(v, Value::InlineTable(inner) if inner.is_dotted()) || value_has_dotted_keys(v)),
        Value::Array(a) => a.iter().any(value_has_dotted_keys),
        _ => false,
    }
}

/// A parse error's message without what it quotes (keys, tokens), first line only.
fn shape(message: &str) -> String {
    let line = message.lines().next().unwrap_or("");
    let mut out = String::new();
    let mut quoted = false;
    for c in line.chars() {
        if c == '`' {
            quoted = !quoted;
            if quoted {
                out.push_str("`…`");
            }
        } else if !quoted {
            out.push(c);
        }
    }
    out
}

/// Panics unless the two tables hold the same keys with the same values, in the same order
/// (toml_edit keeps the order of a table's keys as read, dotted keys included once read).
fn same_table(a: &Table, b: &Table) {
    let keys_a: Vec<&str> = a.iter().map(|(k, _)| k).collect();
    let keys_b: Vec<&str> = b.iter().map(|(k, _)| k).collect();
    assert!(
        keys_a == keys_b,
        "toml_edit's printed document has other keys in a table"
    );
    for ((_, x), (_, y)) in a.iter().zip(b.iter()) {
        same_item(x, y);
    }
}

fn same_item(a: &Item, b: &Item) {
    match (a, b) {
        (Item::None, Item::None) => {}
        (Item::Value(x), Item::Value(y)) => same_value(x, y),
        (Item::Table(x), Item::Table(y)) => {
            assert!(
                x.is_dotted() == y.is_dotted() && x.is_implicit() == y.is_implicit(),
                "toml_edit's printed document makes a table dotted or implicit otherwise"
            );
            same_table(x, y)
        }
        (Item::ArrayOfTables(x), Item::ArrayOfTables(y)) => {
            assert!(
                x.len() == y.len(),
                "toml_edit's printed document has another number of [[tables]]"
            );
            for (x, y) in x.iter().zip(y.iter()) {
                same_table(x, y);
            }
        }
        _ => panic!(
            "toml_edit's printed document has another kind of item: {} became {}",
            a.type_name(),
            b.type_name()
        ),
    }
}

fn same_value(a: &Value, b: &Value) {
    let same = match (a, b) {
        (Value::String(x), Value::String(y)) => x.value() == y.value(),
        (Value::Integer(x), Value::Integer(y)) => x.value() == y.value(),
        // Bit for bit: -0.0 is not 0.0, and a NaN keeps its sign (`-nan`).
        (Value::Float(x), Value::Float(y)) => x.value().to_bits() == y.value().to_bits(),
        (Value::Boolean(x), Value::Boolean(y)) => x.value() == y.value(),
        (Value::Datetime(x), Value::Datetime(y)) => x.value() == y.value(),
        (Value::Array(x), Value::Array(y)) => {
            assert!(
                x.len() == y.len(),
                "toml_edit's printed document has an array of another length"
            );
            for (x, y) in x.iter().zip(y.iter()) {
                same_value(x, y);
            }
            true
        }
        (Value::InlineTable(x), Value::InlineTable(y)) => {
            let keys_x: Vec<&str> = x.iter().map(|(k, _)| k).collect();
            let keys_y: Vec<&str> = y.iter().map(|(k, _)| k).collect();
            assert!(
                keys_x == keys_y && x.is_dotted() == y.is_dotted(),
                "toml_edit's printed document has other keys in an inline table"
            );
            for ((_, x), (_, y)) in x.iter().zip(y.iter()) {
                same_value(x, y);
            }
            true
        }
        _ => panic!(
            "toml_edit's printed document has a value of another type: {} became {}",
            a.type_name(),
            b.type_name()
        ),
    };
    assert!(same, "toml_edit's printed document has another {} value", a.type_name());
}
