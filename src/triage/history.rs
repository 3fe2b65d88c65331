//! The history of triage runs: every group ever seen, keyed by coarse hash, with when it was first
//! and last seen and since when it no longer crashes; it decides tonight's NEW / KNOWN / FIXED.
//!
//! Map: [`History`] (load, [`History::update`] with tonight's groups, save).

use super::error::TriageError;
use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::group::{Group, Label};

/// The current format of the history file.
const VERSION: u32 = 1;

/// One group as remembered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Entry {
    /// The group's short id.
    pub id: String,
    /// Its kind (`panic`, `timeout`, …).
    pub class: String,
    /// Its signature as text (kind, location, message).
    pub summary: String,
    /// First run that saw it (RFC 3339, UTC).
    pub first_seen: String,
    /// Last run that saw it.
    pub last_seen: String,
    /// The first run that no longer saw it, while it has not come back.
    pub fixed_since: Option<String>,
    /// Files in the group when last seen.
    pub files: usize,
}

/// A group of the history that is not among tonight's groups: stopped crashing (FIXED), or not in
/// tonight's folders while its kept reproducer still crashes.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct FixedGroup {
    /// Its coarse hash.
    pub coarse: String,
    /// What is remembered of it.
    #[serde(flatten)]
    pub entry: Entry,
}

/// Every group seen by earlier runs, by coarse hash.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct History {
    /// The file format's version.
    pub version: u32,
    /// Groups by coarse hash.
    pub groups: BTreeMap<String, Entry>,
}

impl History {
    /// Reads the history at `path`; a missing file is an empty history. A file that is not a
    /// history is an error (it is not overwritten: the user decides).
    pub fn load(path: &Path) -> Result<History, TriageError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(History {
                    version: VERSION,
                    groups: BTreeMap::new(),
                })
            }
            Err(source) => {
                return Err(TriageError::HistoryRead {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        let history: History = serde_json::from_str(&text).map_err(|source| TriageError::HistoryFormat {
            path: path.to_path_buf(),
            source,
        })?;
        if history.version != VERSION {
            return Err(TriageError::HistoryVersion {
                path: path.to_path_buf(),
                found: history.version,
                expected: VERSION,
            });
        }
        Ok(history)
    }

    /// Writes the history atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        crate::files::write_atomically(path, format!("{json}\n").as_bytes())
    }

    /// Labels tonight's `groups` (NEW, KNOWN; a group back after being fixed is NEW again), sets
    /// their `first_seen`, and records them as seen at `now`. When the run was `complete` (not
    /// interrupted), each open group of the history not seen tonight is asked about:
    /// `still_crashes(coarse, entry)` (its kept reproducer, rerun) true leaves it open and returns
    /// it in the second list, false marks it fixed and returns it in the first.
    pub fn update(
        &mut self,
        groups: &mut [Group],
        now: &str,
        complete: bool,
        still_crashes: &mut dyn FnMut(&str, &Entry) -> bool,
    ) -> (Vec<FixedGroup>, Vec<FixedGroup>) {
        for g in groups.iter_mut() {
            let summary = g.signature.to_string();
            // Groups joined into this one tonight (`--join-stacks`) are seen, not fixed; one of
            // them known and open makes the joined group known, whichever member kept the id.
            let mut joined_known: Option<String> = None;
            for coarse in &g.joined {
                if let Some(e) = self.groups.get_mut(coarse) {
                    if e.fixed_since.is_none() && joined_known.as_ref().is_none_or(|f| e.first_seen < *f) {
                        joined_known = Some(e.first_seen.clone());
                    }
                    e.last_seen = now.to_string();
                    e.fixed_since = None;
                }
            }
            if let (Some(first_seen), false) = (&joined_known, self.groups.contains_key(&g.coarse)) {
                g.label = Label::Known;
                g.first_seen = first_seen.clone();
                let entry = Entry {
                    id: g.id.clone(),
                    class: g.class.name().to_string(),
                    summary,
                    first_seen: first_seen.clone(),
                    last_seen: now.to_string(),
                    fixed_since: None,
                    files: g.files.len(),
                };
                self.groups.insert(g.coarse.clone(), entry);
                continue;
            }
            match self.groups.get_mut(&g.coarse) {
                Some(e) => {
                    g.label = match &e.fixed_since {
                        Some(since) => {
                            g.notes.push(format!("back: it had stopped crashing on {since}"));
                            Label::New
                        }
                        None => Label::Known,
                    };
                    g.first_seen = e.first_seen.clone();
                    e.last_seen = now.to_string();
                    e.fixed_since = None;
                    e.files = g.files.len();
                    e.summary = summary;
                }
                None => {
                    g.label = Label::New;
                    g.first_seen = now.to_string();
                    let entry = Entry {
                        id: g.id.clone(),
                        class: g.class.name().to_string(),
                        summary,
                        first_seen: now.to_string(),
                        last_seen: now.to_string(),
                        fixed_since: None,
                        files: g.files.len(),
                    };
                    self.groups.insert(g.coarse.clone(), entry);
                }
            }
        }
        let (mut fixed, mut unseen) = (Vec::new(), Vec::new());
        if !complete {
            return (fixed, unseen);
        }
        for (coarse, e) in self.groups.iter_mut() {
            if e.fixed_since.is_some() || groups.iter().any(|g| &g.coarse == coarse || g.joined.contains(coarse)) {
                continue;
            }
            if still_crashes(coarse, e) {
                unseen.push(FixedGroup {
                    coarse: coarse.clone(),
                    entry: e.clone(),
                });
            } else {
                e.fixed_since = Some(now.to_string());
                fixed.push(FixedGroup {
                    coarse: coarse.clone(),
                    entry: e.clone(),
                });
            }
        }
        (fixed, unseen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_and_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.json");
        assert!(History::load(&path).unwrap().groups.is_empty());
        std::fs::write(&path, "{not json").unwrap();
        let e = History::load(&path).unwrap_err();
        assert!(
            matches!(&e, TriageError::HistoryFormat { path: p, .. } if *p == path),
            "{e:?}"
        );
        assert!(e.to_string().contains("move it away"), "{e}");
        assert!(std::error::Error::source(&e).is_some(), "the serde_json error is kept");
        let mut h = History::load(&dir.path().join("none")).unwrap();
        h.groups.insert(
            "ab".into(),
            Entry {
                id: "ab".into(),
                class: "panic".into(),
                summary: "panic at a.rs:1:1: x".into(),
                first_seen: "t0".into(),
                last_seen: "t1".into(),
                fixed_since: None,
                files: 2,
            },
        );
        h.save(&path).unwrap();
        assert_eq!(History::load(&path).unwrap(), h);
    }
}
