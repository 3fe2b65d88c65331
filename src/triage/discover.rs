//! Finding crash files: libFuzzer artifacts (`crash-*`, `oom-*`, `timeout-*`, `leak-*`,
//! `slow-unit-*`, `minimized-*`) and AFL findings (`crashes/id:*`, `hangs/id:*`) at any depth.
//!
//! Map: [`discover`] walks folders (sorted, symlinked folders not followed) into [`CrashFile`]s;
//! [`classify_name`] decides from a file's name and folder whether it is a crash file;
//! [`continue_hits`] reads continue mode's summaries beside them.

use super::error::TriageError;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::harness::{CrashSummary, SIDECAR_DIR, SUMMARY_FILE};

/// Which fuzzer left a crash file, and what its name says about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// libFuzzer `crash-*` (also `leak-*`).
    LibFuzzerCrash,
    /// libFuzzer `oom-*`.
    LibFuzzerOom,
    /// libFuzzer `timeout-*` or `slow-unit-*`.
    LibFuzzerTimeout,
    /// `minimized-*`, written by hellfuzz's fuzz-target wrapper.
    Minimized,
    /// AFL `crashes/id:*`.
    AflCrash,
    /// AFL `hangs/id:*`.
    AflHang,
}

/// A crash file found by [`discover`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[non_exhaustive]
pub struct CrashFile {
    /// Its path as found (below one of the folders given).
    #[serde(serialize_with = "crate::files::path_lossy")]
    pub path: PathBuf,
    /// What left it there.
    pub origin: Origin,
}

/// Whether `name`, in a folder named `parent`, is a crash file, and whose. `README.txt` in AFL's
/// folders, libFuzzer's other files and our own JSON records (`minimized-*.json`, in the
/// `.hellfuzz/` subfolder that [`discover`] does not enter, or beside the inputs in campaigns
/// from before it) are not.
pub fn classify_name(name: &str, parent: &str) -> Option<Origin> {
    let is_afl_id = name.starts_with("id:") || name.starts_with("id_");
    match parent {
        "crashes" if is_afl_id => return Some(Origin::AflCrash),
        "hangs" if is_afl_id => return Some(Origin::AflHang),
        _ => {}
    }
    if name.starts_with("crash-") || name.starts_with("leak-") {
        Some(Origin::LibFuzzerCrash)
    } else if name.starts_with("oom-") {
        Some(Origin::LibFuzzerOom)
    } else if name.starts_with("timeout-") || name.starts_with("slow-unit-") {
        Some(Origin::LibFuzzerTimeout)
    } else if name.starts_with("minimized-") && !name.ends_with(".json") {
        Some(Origin::Minimized)
    } else {
        None
    }
}

/// What [`discover`] found: crash files sorted by path (each once, even if folders overlap), and
/// folders or entries it could not read (reported, not fatal).
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Discovery {
    /// The crash files, sorted by path.
    pub files: Vec<CrashFile>,
    /// `path: reason` for every folder or entry that could not be read.
    pub problems: Vec<String>,
    /// For each root, in order: how many crash files are below it (a file that is below two
    /// roots counts for both, though [`Discovery::files`] holds it once). A 0 is worth a warning:
    /// a mistyped or wrong folder.
    pub per_root: Vec<usize>,
}

/// Walks `roots` (folders, or crash files given directly) at any depth. Folders reached through
/// symbolic links are not entered (no loops); `skip` (e.g. the output folder) is not entered
/// either. Errors only when a root does not exist or is unreadable.
pub fn discover(roots: &[PathBuf], skip: Option<&Path>) -> Result<Discovery, TriageError> {
    let skip = skip.and_then(|s| s.canonicalize().ok());
    let mut found = Discovery::default();
    let mut seen = BTreeSet::new();
    for root in roots {
        let meta = std::fs::metadata(root).map_err(|source| TriageError::Read {
            path: root.clone(),
            source,
        })?;
        if meta.is_file() {
            found.per_root.push(1);
            // Given by name: taken whatever it is called.
            if seen.insert(root.canonicalize().unwrap_or_else(|_| root.clone())) {
                let parent = parent_name(root);
                let name = root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let origin = classify_name(&name, &parent).unwrap_or(Origin::LibFuzzerCrash);
                found.files.push(CrashFile {
                    path: root.clone(),
                    origin,
                });
            }
            continue;
        }
        std::fs::read_dir(root).map_err(|source| TriageError::ReadFolder {
            path: root.clone(),
            source,
        })?;
        let mut below = 0;
        walk(root, skip.as_deref(), &mut seen, &mut found, &mut below);
        found.per_root.push(below);
    }
    found.files.sort();
    Ok(found)
}

/// Adds the crash files below `dir` to `found` (each once over the whole discovery) and counts
/// them all in `below`, those found before too.
fn walk(dir: &Path, skip: Option<&Path>, seen: &mut BTreeSet<PathBuf>, found: &mut Discovery, below: &mut usize) {
    if skip.is_some() && dir.canonicalize().ok().as_deref() == skip {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            found.problems.push(format!("{}: {e}", dir.display()));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => paths.push(entry.path()),
            Err(e) => found.problems.push(format!("{}: {e}", dir.display())),
        }
    }
    paths.sort();
    let parent = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for path in paths {
        let Ok(link_meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if link_meta.is_dir() {
            // hellfuzz's records and summaries: no crash file in there.
            if path.file_name() != Some(std::ffi::OsStr::new(SIDECAR_DIR)) {
                walk(&path, skip, seen, found, below);
            }
            continue;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(origin) = classify_name(&name, &parent) else {
            continue;
        };
        // Regular files only (a FIFO or a device would block the rerun that reads it); a
        // symbolic link to a file counts as that file, one to a folder is not entered.
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        *below += 1;
        if seen.insert(path.canonicalize().unwrap_or_else(|_| path.clone())) {
            found.files.push(CrashFile { path, origin });
        }
    }
}

fn parent_name(path: &Path) -> String {
    path.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Continue mode's hit counts by crash file: every `hellfuzz-crashes.json` (also after a
/// libFuzzer `-artifact_prefix` such as `x-`) of the folders of `files`, each entry's hits under
/// the path of the original it saved. A summary is in the folder's `.hellfuzz/` subfolder, or
/// beside the files in campaigns from before it (read only when the subfolder has none for that
/// prefix: a campaign that went on moved it there). Unreadable summaries are skipped: counts are
/// a bonus.
pub fn continue_hits(files: &[CrashFile]) -> BTreeMap<PathBuf, u64> {
    let folders: BTreeSet<&Path> = files.iter().filter_map(|f| f.path.parent()).collect();
    let mut hits = BTreeMap::new();
    for folder in folders {
        // By prefix: the subfolder's summary first, then the old place's if the prefix has none.
        let mut summaries: BTreeMap<String, PathBuf> = BTreeMap::new();
        for dir in [folder.join(SIDECAR_DIR), folder.to_path_buf()] {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                if let Some(prefix) = name.to_str().and_then(|n| n.strip_suffix(SUMMARY_FILE)) {
                    summaries.entry(prefix.to_string()).or_insert_with(|| entry.path());
                }
            }
        }
        for (prefix, path) in summaries {
            let Ok(summary) = CrashSummary::load(&path) else {
                continue;
            };
            for e in summary.signatures {
                if let Some(crash) = e.crash {
                    *hits.entry(folder.join(format!("{prefix}{crash}"))).or_insert(0) += e.hits;
                }
            }
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(classify_name("crash-0a1b", "t"), Some(Origin::LibFuzzerCrash));
        assert_eq!(classify_name("leak-0a1b", "t"), Some(Origin::LibFuzzerCrash));
        assert_eq!(classify_name("oom-0a1b", "t"), Some(Origin::LibFuzzerOom));
        assert_eq!(classify_name("timeout-0a1b", "t"), Some(Origin::LibFuzzerTimeout));
        assert_eq!(classify_name("slow-unit-0a1b", "t"), Some(Origin::LibFuzzerTimeout));
        assert_eq!(classify_name("minimized-0a1b", "t"), Some(Origin::Minimized));
        assert_eq!(classify_name("minimized-0a1b.json", "t"), None);
        let afl = "id:000000,sig:06,src:000000,time:1,execs:2,op:havoc,rep:4";
        assert_eq!(classify_name(afl, "crashes"), Some(Origin::AflCrash));
        assert_eq!(classify_name(afl, "hangs"), Some(Origin::AflHang));
        assert_eq!(classify_name(afl, "queue"), None);
        assert_eq!(classify_name("README.txt", "crashes"), None);
        assert_eq!(classify_name("seed", "corpus"), None);
    }

    #[test]
    fn walks_nested_folders_sorted_and_skips_output_and_loops() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let make = |rel: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, b"x").unwrap();
        };
        make("night/artifacts/json/crash-b");
        make("night/artifacts/json/crash-a");
        make("night/artifacts/json/notes.txt");
        make("night/afl/out/default/crashes/id:000001,sig:06");
        make("night/afl/out/default/crashes/README.txt");
        make("night/afl/out/default/hangs/id:000000");
        make("night/afl/out/default/queue/id:000000");
        make("night/triage/groups/x/crash-copy");
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("night"), root.join("night/afl/loop")).unwrap();
        let roots = [root.join("night"), root.join("night/artifacts")];
        let found = discover(&roots, Some(&root.join("night/triage"))).unwrap();
        let rel: Vec<String> = found
            .files
            .iter()
            .map(|f| f.path.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            rel,
            [
                "night/afl/out/default/crashes/id:000001,sig:06",
                "night/afl/out/default/hangs/id:000000",
                "night/artifacts/json/crash-a",
                "night/artifacts/json/crash-b",
            ]
        );
        assert_eq!(found.files[1].origin, Origin::AflHang);
        // night/artifacts holds two of them, also found under night: counted for both.
        assert_eq!(found.per_root, [4, 2]);
        std::fs::create_dir(root.join("empty")).unwrap();
        let with_empty = discover(&[root.join("night/artifacts"), root.join("empty")], None).unwrap();
        assert_eq!(with_empty.per_root, [2, 0]);
        let e = discover(&[root.join("missing")], None).unwrap_err();
        assert!(
            matches!(&e, TriageError::Read { path, source } if path.ends_with("missing") && source.kind() == std::io::ErrorKind::NotFound),
            "{e:?}"
        );
        assert!(e.to_string().contains("missing"), "{e}");
        // A file given directly is taken whatever its name.
        let direct = discover(&[root.join("night/artifacts/json/notes.txt")], None).unwrap();
        assert_eq!(direct.files.len(), 1);
    }

    #[test]
    fn continue_hits_are_read_from_summaries_in_both_layouts() {
        let dir = tempfile::tempdir().unwrap();
        let art = dir.path().join("artifacts");
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(art.join("crash-aa"), "a").unwrap();
        std::fs::write(art.join("crash-bb"), "b").unwrap();
        let summary = r#"{"version": 1, "signatures": [
            {"signature_hash": "1", "signature": {"kind": "Panic", "location": "a.rs:1:1", "message": "a"},
             "first_seen": "2026-11-25T00:00:00Z", "first_seen_secs": 0.5, "first_seen_execs": 10,
             "last_seen": "2026-11-25T00:00:01Z", "hits": 1234, "crash": "crash-aa", "minimized": "minimized-cc"},
            {"signature_hash": "2", "signature": {"kind": "Panic", "location": null, "message": "b"},
             "first_seen": "2026-11-25T00:00:00Z", "first_seen_secs": 0.5, "first_seen_execs": 10,
             "last_seen": "2026-11-25T00:00:01Z", "hits": 7}]}"#;
        std::fs::write(art.join(SUMMARY_FILE), summary).unwrap();
        let found = discover(&[dir.path().to_path_buf()], None).unwrap();
        assert_eq!(found.files.len(), 2, "the summary is not a crash file");
        let hits = continue_hits(&found.files);
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits.get(&art.join("crash-aa")), Some(&1234));
        // A summary that does not parse is skipped.
        std::fs::write(art.join(format!("other-{SUMMARY_FILE}")), "{").unwrap();
        assert_eq!(continue_hits(&found.files).len(), 1);

        // Today's layout: the summary and records in `.hellfuzz/`. Its summary wins over the old
        // one of the same prefix (a campaign that went on carried the old counts over); an old
        // one of another prefix still counts. Nothing in the subfolder is a crash file.
        let sidecar = art.join(SIDECAR_DIR);
        std::fs::create_dir_all(&sidecar).unwrap();
        std::fs::write(sidecar.join(SUMMARY_FILE), summary.replace("1234", "2000")).unwrap();
        std::fs::write(sidecar.join("minimized-cc.json"), "{}").unwrap();
        std::fs::write(sidecar.join("crash-not-an-input"), "x").unwrap();
        std::fs::write(art.join("x-crash-aa"), "a").unwrap();
        std::fs::write(art.join(format!("x-{SUMMARY_FILE}")), summary).unwrap();
        let mut found = discover(&[dir.path().to_path_buf()], None).unwrap();
        assert_eq!(found.files.len(), 2, "{:?}", found.files);
        assert!(found.files.iter().all(|f| f.path.parent() == Some(art.as_path())));
        // (A prefixed crash file is triaged when given by name.)
        found
            .files
            .extend(discover(&[art.join("x-crash-aa")], None).unwrap().files);
        let hits = continue_hits(&found.files);
        assert_eq!(hits.get(&art.join("crash-aa")), Some(&2000), "{hits:?}");
        assert_eq!(hits.get(&art.join("x-crash-aa")), Some(&1234), "{hits:?}");
        assert_eq!(hits.len(), 2, "{hits:?}");
    }
}
