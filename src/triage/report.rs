//! The reports of a triage run: `report.md` for a person in the morning, `report.json` for
//! machines, `report.sarif` (SARIF 2.1.0) for code-scanning tools.
//!
//! Map: [`write_reports`] writes all three atomically · [`markdown`] (a table of groups with
//! their severity, then each group's crash line, source and frames) · [`sarif`] (one rule and one
//! result per group, located at the panic site or crash line, with the user's frames as `stacks`
//! and `codeFlows`).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};

use super::group::{Group, Label};
use super::rerun::Status;
use super::Triage;

/// What a crash file is called, for messages about folders without any.
pub const CRASH_FILE_NAMES: &str = "crash files are libFuzzer's crash-*, oom-*, timeout-*, leak-*, slow-unit-*, \
     minimized-* and AFL's crashes/id:*, hangs/id:*, at any depth";

/// At most this many files are listed per section of `report.md` (all are in `report.json`).
const LISTED: usize = 50;

/// Writes `report.md`, `report.json` and `report.sarif` into `out`, each atomically.
pub fn write_reports(out: &Path, triage: &Triage) -> std::io::Result<()> {
    let write = |name: &str, text: String| crate::files::write_atomically(&out.join(name), text.as_bytes());
    write("report.md", markdown(triage))?;
    let json = serde_json::to_string_pretty(triage).map_err(std::io::Error::other)?;
    write("report.json", format!("{json}\n"))?;
    let sarif = serde_json::to_string_pretty(&sarif(triage)).map_err(std::io::Error::other)?;
    write("report.sarif", format!("{sarif}\n"))
}

/// One table cell's text: no `|`, no line breaks, at most `max` characters.
fn cell(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| match c {
            '\n' | '\r' => ' ',
            '|' => '/',
            c => c,
        })
        .collect();
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max - 1).collect::<String>())
    } else {
        flat
    }
}

fn what(group: &Group) -> String {
    let sig = &group.signature;
    let mut s = sig.location.clone().unwrap_or_default();
    if !sig.message.is_empty() {
        if !s.is_empty() {
            s.push_str(": ");
        }
        s.push_str(&sig.message);
    }
    if s.is_empty() {
        s = group
            .frames
            .first()
            .cloned()
            .unwrap_or_else(|| "(no location)".to_string());
    }
    s
}

/// The morning report: a summary line, a table with a line per group (NEW first, then KNOWN,
/// then FIXED), then the files that did not reproduce or could not be tested.
pub fn markdown(t: &Triage) -> String {
    let mut md = String::new();
    let c = &t.counts;
    let _ = writeln!(md, "# hellfuzz triage, {}\n", t.generated_at);
    if t.interrupted && c.interrupted > 0 {
        let _ = writeln!(
            md,
            "**Interrupted: partial report.** {} files were not tested; nothing was marked fixed.\n",
            c.interrupted
        );
    } else if t.interrupted {
        md.push_str("**Interrupted: partial report.** Every file was tested; some groups were not minimized.\n\n");
    }
    let _ = writeln!(
        md,
        "Harness `{}`: {} crash files; {} reproduce, {} flaky, {} do not reproduce, {} could not be tested.\n",
        t.harness.display(),
        c.files,
        c.reproduced,
        c.flaky,
        c.does_not_reproduce,
        c.errors
    );
    if !t.empty_roots.is_empty() {
        let folders: Vec<String> = t.empty_roots.iter().map(|r| format!("`{}`", r.display())).collect();
        let _ = writeln!(
            md,
            "**No crash files found under {}**: is the folder right? ({})\n",
            folders.join(", "),
            CRASH_FILE_NAMES.replace('*', "\\*")
        );
    }
    let _ = writeln!(
        md,
        "**{} new**, {} known, {} fixed ({} groups tonight).\n",
        c.new,
        c.known + c.unseen,
        c.fixed,
        c.groups
    );
    md.push_str("| | kind | severity | where | files | smallest | minimized | first seen | folder |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|\n");
    let mut groups: Vec<&Group> = t.groups.iter().collect();
    groups.sort_by(|a, b| (a.label, &a.id).cmp(&(b.label, &b.id)));
    for &g in &groups {
        let mut files = if g.flaky_files > 0 {
            format!("{} ({} flaky)", g.files.len(), g.flaky_files)
        } else {
            g.files.len().to_string()
        };
        if let Some(hits) = g.hits {
            // Continue mode saved one file per signature and counted the rest.
            files.push_str(&format!(", {hits} hits"));
        }
        let minimized = match &g.minimized {
            Some(m) if m.stats.as_ref().is_some_and(|s| s.budget_exhausted) => format!("{} B (budget out)", m.size),
            Some(m) => format!("{} B", m.size),
            // Why not, in a few words (the whole reason is in group.json): a file over the size
            // limit showed only "—", and looked like a failure.
            None => match &g.not_minimized {
                Some(why) => format!("— ({})", cell(why, 40)),
                None => "—".to_string(),
            },
        };
        let label = match g.label {
            Label::New => "NEW",
            Label::Known => "KNOWN",
            Label::Fixed => "FIXED",
        };
        let _ = writeln!(
            md,
            "| {label} | {} | {} ({}) | {} | {files} | {} B | {minimized} | {} | groups/{} |",
            g.class.name(),
            g.severity.class.name(),
            cell(&g.severity.kind, 40),
            cell(&what(g), 100),
            g.smallest_size,
            g.first_seen,
            g.id
        );
    }
    for f in &t.unseen {
        let _ = writeln!(
            md,
            "| KNOWN | {} | — | {} | 0 (kept reproducer still crashes) | — | — | {} | groups/{} |",
            f.entry.class,
            cell(&f.entry.summary, 100),
            f.entry.first_seen,
            f.entry.id
        );
    }
    for f in &t.fixed {
        let _ = writeln!(
            md,
            "| FIXED | {} | — | {} | — | — | — | {} | (last seen {}) |",
            f.entry.class,
            cell(&f.entry.summary, 100),
            f.entry.first_seen,
            f.entry.last_seen
        );
    }
    crash_lines(&mut md, &groups);
    let section = |md: &mut String, title: &str, status: Status| {
        let files: Vec<_> = t.files.iter().filter(|f| f.status == status).collect();
        if files.is_empty() {
            return;
        }
        let _ = writeln!(md, "\n## {title} ({})\n", files.len());
        for f in files.iter().take(LISTED) {
            match &f.note {
                Some(note) => _ = writeln!(md, "- `{}`: {}", f.file.path.display(), cell(note, 200)),
                None => _ = writeln!(md, "- `{}`", f.file.path.display()),
            }
        }
        if files.len() > LISTED {
            let _ = writeln!(md, "- … and {} more (see report.json)", files.len() - LISTED);
        }
    };
    section(&mut md, "Flaky", Status::Flaky);
    section(&mut md, "Did not reproduce", Status::DoesNotReproduce);
    section(&mut md, "Could not be tested", Status::Error);
    section(&mut md, "Not tested (interrupted)", Status::Interrupted);
    if !t.problems.is_empty() {
        let _ = writeln!(md, "\n## Unreadable folders\n");
        for p in &t.problems {
            let _ = writeln!(md, "- {p}");
        }
    }
    md
}

/// Frames listed per group in `report.md` (all are in `report.json` and `group.json`).
const FRAMES_LISTED: usize = 8;

/// Per group (at most [`LISTED`]): where it crashed, the source around it, the user's frames.
fn crash_lines(md: &mut String, groups: &[&Group]) {
    let located: Vec<&&Group> = groups.iter().filter(|g| !g.stack.is_empty()).collect();
    if located.is_empty() {
        return;
    }
    let _ = writeln!(md, "\n## Where they crash\n");
    for g in located.iter().take(LISTED) {
        let _ = write!(md, "### groups/{}: {}", g.id, g.class.name());
        if let Some(c) = &g.crash_line {
            let _ = write!(md, " at `{}`", c.frame.describe());
        }
        let _ = writeln!(md, " ({}, {})\n", g.severity.class.name(), g.severity.kind);
        if let Some(c) = g.crash_line.as_ref().filter(|c| !c.source.is_empty()) {
            let width = c.source.last().map_or(1, |l| l.number.to_string().len());
            md.push_str("```rust\n");
            for l in &c.source {
                let mark = if Some(l.number) == c.frame.line { ">" } else { " " };
                let _ = writeln!(md, "{mark}{:>width$} | {}", l.number, l.text.replace("```", "ˋˋˋ"));
            }
            md.push_str("```\n\n");
        }
        for (n, f) in g.stack.iter().take(FRAMES_LISTED).enumerate() {
            let _ = writeln!(md, "{n}. `{}`", f.describe());
        }
        if g.stack.len() > FRAMES_LISTED {
            let _ = writeln!(md, "- … {} more frames (see group.json)", g.stack.len() - FRAMES_LISTED);
        }
        md.push('\n');
    }
    if located.len() > LISTED {
        let _ = writeln!(md, "… and {} more groups (see report.json)\n", located.len() - LISTED);
    }
}

/// A SARIF location of a frame (`None` without a file and line).
fn frame_location(f: &super::stack::Frame) -> Option<Value> {
    let (file, line) = (f.file.as_ref()?, f.line?);
    let mut region = json!({ "startLine": line });
    if let Some(col) = f.column {
        region["startColumn"] = json!(col);
    }
    Some(json!({
        "physicalLocation": { "artifactLocation": { "uri": file }, "region": region },
        "logicalLocations": [{ "fullyQualifiedName": f.function, "kind": "function" }],
        "message": { "text": f.function },
    }))
}

/// `file:line:col` → (file, line, col).
fn split_location(location: &str) -> Option<(&str, u64, Option<u64>)> {
    let (rest, last) = location.rsplit_once(':')?;
    let last: u64 = last.parse().ok()?;
    match rest.rsplit_once(':') {
        Some((file, line)) if line.parse::<u64>().is_ok() => Some((file, line.parse().ok()?, Some(last))),
        _ => Some((rest, last, None)),
    }
}

/// SARIF 2.1.0: a rule per group (its id), a result per group tonight with the panic location (or
/// the smallest crash file) and a partial fingerprint from the coarse hash, so that code-scanning
/// tools track a group across nights.
pub fn sarif(t: &Triage) -> Value {
    let rules: Vec<Value> = t
        .groups
        .iter()
        .map(|g| {
            json!({
                "id": g.id,
                "name": format!("{}-{}", g.class.name(), g.id),
                "shortDescription": { "text": format!("{}: {}", g.class.name(), cell(&what(g), 200)) },
                "properties": { "tags": [g.class.name(), g.severity.class.name()] },
            })
        })
        .collect();
    let results: Vec<Value> = t
        .groups
        .iter()
        .map(|g| {
            let crash_line = g.crash_line.as_ref().and_then(|c| frame_location(&c.frame));
            let location = match g.signature.location.as_deref().and_then(split_location) {
                Some((file, line, col)) => {
                    let mut region = json!({ "startLine": line });
                    if let Some(col) = col {
                        region["startColumn"] = json!(col);
                    }
                    json!({ "physicalLocation": { "artifactLocation": { "uri": file }, "region": region } })
                }
                None => crash_line.clone().unwrap_or_else(|| json!({ "physicalLocation": { "artifactLocation": {
                    "uri": g.smallest.to_string_lossy() } } })),
            };
            // The user's frames: as a stack (innermost first), and as a code flow from the
            // outermost call down to the crash line, which code-scanning tools show as a path.
            let frames: Vec<Value> = g
                .stack
                .iter()
                .map(|f| match frame_location(f) {
                    Some(l) => json!({ "location": l }),
                    None => json!({ "location": {
                        "logicalLocations": [{ "fullyQualifiedName": f.function, "kind": "function" }],
                        "message": { "text": f.function } } }),
                })
                .collect();
            let flow: Vec<Value> = g
                .stack
                .iter()
                .rev()
                .filter_map(frame_location)
                .map(|l| json!({ "location": l }))
                .collect();
            let mut result = json!({
                "ruleId": g.id,
                "level": "error",
                "message": { "text": format!("{} ({} crash files, smallest {}): {}",
                    g.class.name(), g.files.len(), g.smallest.display(), cell(&what(g), 300)) },
                "locations": [location],
                "partialFingerprints": { "hellfuzzCoarse/v1": g.coarse },
                "properties": { "label": g.label, "files": g.files.len(), "firstSeen": g.first_seen,
                    "severity": g.severity.class, "severityType": g.severity.kind },
            });
            if !frames.is_empty() {
                result["stacks"] = json!([{ "message": { "text": "the crash's stack in the user's code, innermost first" },
                    "frames": frames }]);
            }
            if !flow.is_empty() {
                result["codeFlows"] = json!([{ "threadFlows": [{ "locations": flow }] }]);
            }
            result
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "hellfuzz",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            } },
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_and_cells() {
        assert_eq!(split_location("src/a.rs:10:5"), Some(("src/a.rs", 10, Some(5))));
        assert_eq!(split_location("src/a.rs:10"), Some(("src/a.rs", 10, None)));
        assert_eq!(split_location("C:/x.rs:1:2"), Some(("C:/x.rs", 1, Some(2))));
        assert_eq!(split_location("nowhere"), None);
        assert_eq!(cell("a|b\nc", 10), "a/b c");
        assert_eq!(cell("abcdef", 4), "abc…");
    }
}
