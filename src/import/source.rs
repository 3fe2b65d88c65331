//! Where a tree-sitter grammar comes from: a path, or a crate in cargo's registry sources.
//!
//! [`find`] resolves `SOURCE` (a `grammar.json`, a crate folder, or a crate name such as
//! `tree-sitter-toml-ng`) and reads the crate's name, version and licence from its Cargo.toml.

use std::path::{Path, PathBuf};

use super::ImportError;

/// A tree-sitter grammar.json and what is known of the crate that ships it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Source {
    /// The grammar.json file.
    pub path: PathBuf,
    /// Its text.
    pub json: String,
    /// The crate's name, version and licence (from the Cargo.toml beside `src/`, or above the
    /// grammar's folder), if found.
    pub krate: Option<CrateInfo>,
    /// For a crate that ships its grammars in subfolders (`xml/src/grammar.json`): the one taken
    /// (`xml`), and every one it ships, in order.
    pub subfolder: Option<String>,
    /// The crate's grammar subfolders (empty when it ships `src/grammar.json`).
    pub subfolders: Vec<String>,
}

impl Source {
    /// A grammar.json's text read from elsewhere (`path` names it in messages), of no known crate.
    pub fn new(path: impl Into<PathBuf>, json: impl Into<String>) -> Source {
        Source {
            path: path.into(),
            json: json.into(),
            krate: None,
            subfolder: None,
            subfolders: Vec::new(),
        }
    }
}

/// A crate's identity, as its Cargo.toml states it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CrateInfo {
    /// `name = "..."`.
    pub name: String,
    /// `version = "..."`.
    pub version: String,
    /// `license = "..."` (or `license-file`), if stated.
    pub license: Option<String>,
}

/// Resolves `source`: an existing file is the grammar.json; an existing folder holds
/// `src/grammar.json` (a crate) or `grammar.json`, or grammars in subfolders
/// (`xml/src/grammar.json`, as tree-sitter-xml ships them); anything else is a crate name looked
/// up in `$CARGO_HOME/registry/src/*/<name>-<version>/` (the newest version), optionally followed
/// by `/SUBFOLDER` to pick one of its grammars (`tree-sitter-xml/dtd`). Of several grammars in
/// subfolders, the one named like the crate (`xml` for tree-sitter-xml) is taken, or the only
/// one; otherwise the error lists them and how to pick one.
pub fn find(source: &str) -> Result<Source, ImportError> {
    find_in(source, cargo_home().as_deref())
}

/// [`find`] with an explicit cargo home (whose `registry/src/*` holds crate sources) instead of
/// `$CARGO_HOME` or `~/.cargo`.
pub fn find_in(source: &str, cargo_home: Option<&Path>) -> Result<Source, ImportError> {
    let p = Path::new(source);
    let (path, subfolder, subfolders) = if p.is_file() {
        (p.to_path_buf(), None, Vec::new())
    } else if p.is_dir() {
        in_folder(p, source, None)?
    } else {
        // A crate name, or `name/SUBFOLDER`.
        let (name, sub) = match source.split_once('/') {
            Some((n, s)) if !n.is_empty() && !s.is_empty() && !s.contains(['/', '.']) && !n.contains('.') => {
                (n, Some(s))
            }
            _ => (source, None),
        };
        if name.contains('/') || name.ends_with(".json") || (sub.is_none() && source.contains('/')) {
            return Err(ImportError::Io {
                path: p.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            });
        }
        let dir = registry_crate(name, cargo_home)?;
        in_folder(&dir, name, sub)?
    };
    let json = std::fs::read_to_string(&path).map_err(|e| ImportError::Io {
        path: path.clone(),
        source: e,
    })?;
    // The Cargo.toml of the crate: beside `src/`, or up to two folders above it.
    let grammar_dir = path
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "src"))
        .and_then(Path::parent);
    let manifest = grammar_dir.and_then(|root| {
        root.ancestors()
            .take(3)
            .find_map(|dir| Some((dir, std::fs::read_to_string(dir.join("Cargo.toml")).ok()?)))
    });
    let krate = manifest.as_ref().and_then(|(_, text)| crate_info(text));
    // A grammar in a subfolder of its crate, given by path: name the subfolder all the same.
    let subfolder = match (subfolder, grammar_dir, &manifest) {
        (None, Some(g), Some((root, _))) if g != *root => g.file_name().map(|n| n.to_string_lossy().into_owned()),
        (s, _, _) => s,
    };
    Ok(Source {
        path,
        json,
        krate,
        subfolder,
        subfolders,
    })
}

/// The grammar.json of a crate folder: `src/grammar.json`, `grammar.json`, or one of the
/// grammars in its subfolders (`SUB/src/grammar.json`, `grammars/SUB/src/grammar.json`): `pick`,
/// else the only one, else the one named like the crate. `shown` names the folder in messages
/// (the crate name, or the path given).
fn in_folder(
    dir: &Path,
    shown: &str,
    pick: Option<&str>,
) -> Result<(PathBuf, Option<String>, Vec<String>), ImportError> {
    let not_found = |path: PathBuf, message: String| ImportError::Io {
        path,
        source: std::io::Error::new(std::io::ErrorKind::NotFound, message),
    };
    if pick.is_none() {
        for c in [dir.join("src/grammar.json"), dir.join("grammar.json")] {
            if c.is_file() {
                return Ok((c, None, Vec::new()));
            }
        }
    }
    let subs = grammar_subfolders(dir);
    let label = |sub: &str| format!("{shown}/{sub}");
    if let Some(want) = pick {
        return match subs.iter().find(|(name, _)| name == want) {
            Some((name, path)) => Ok((
                path.clone(),
                Some(name.clone()),
                subs.iter().map(|s| s.0.clone()).collect(),
            )),
            None => Err(not_found(
                dir.join(want).join("src/grammar.json"),
                if subs.is_empty() {
                    format!("`{shown}` has no grammar in a subfolder `{want}` (nor in any other)")
                } else {
                    format!(
                        "`{shown}` has no grammar in a subfolder `{want}`; its grammars are {}",
                        subs.iter()
                            .map(|s| format!("`{}`", label(&s.0)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
            )),
        };
    }
    let names: Vec<String> = subs.iter().map(|s| s.0.clone()).collect();
    let crate_like = |sub: &str| {
        let base = Path::new(shown)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // `tree-sitter-xml-0.7.0` (a folder) or `tree-sitter-xml` (a crate name) → `xml`.
        let base = base.strip_prefix("tree-sitter-").unwrap_or(&base).to_string();
        let unversioned = match base.rsplit_once('-') {
            Some((b, v)) if version_key(v).is_some() => b.to_string(),
            _ => base,
        };
        sub.replace('_', "-") == unversioned.replace('_', "-")
    };
    match subs.as_slice() {
        [] => Err(not_found(
            dir.join("src/grammar.json"),
            "no src/grammar.json here nor in a subfolder (SUB/src/grammar.json): is it a tree-sitter grammar crate?"
                .to_string(),
        )),
        [(name, path)] => Ok((path.clone(), Some(name.clone()), names)),
        _ => match subs.iter().find(|(name, _)| crate_like(name)) {
            Some((name, path)) => Ok((path.clone(), Some(name.clone()), names)),
            None => Err(not_found(
                dir.join("src/grammar.json"),
                format!(
                    "no src/grammar.json, but {} grammars in subfolders: {}; pick one, e.g. `hellfuzz import {}`",
                    subs.len(),
                    subs.iter()
                        .map(|(_, p)| p.strip_prefix(dir).unwrap_or(p).display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    label(&subs[0].0)
                ),
            )),
        },
    }
}

/// `SUB/src/grammar.json` and `grammars/SUB/src/grammar.json` below `dir`: (SUB, path), sorted.
fn grammar_subfolders(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for base in [dir.to_path_buf(), dir.join("grammars")] {
        let Ok(entries) = std::fs::read_dir(&base) else {
            continue;
        };
        for e in entries.filter_map(|e| e.ok()) {
            let path = e.path().join("src/grammar.json");
            if path.is_file() {
                out.push((e.file_name().to_string_lossy().into_owned(), path));
            }
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// `$CARGO_HOME`, defaulting to `~/.cargo`.
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

/// The registry source folders: `<cargo home>/registry/src/*`.
fn registry_dirs(home: Option<&Path>) -> Vec<PathBuf> {
    let Some(home) = home else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(home.join("registry/src"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// The folder of the newest version of crate `name` in the registry sources.
fn registry_crate(name: &str, home: Option<&Path>) -> Result<PathBuf, ImportError> {
    let dirs = registry_dirs(home);
    let mut best: Option<(Vec<u64>, bool, PathBuf)> = None;
    for dir in &dirs {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for e in entries.filter_map(|e| e.ok()) {
            let file_name = e.file_name();
            let Some(version) = file_name.to_str().and_then(|f| f.strip_prefix(name)?.strip_prefix('-')) else {
                continue;
            };
            let Some(key) = version_key(version) else { continue };
            if best.as_ref().is_none_or(|(v, pre, _)| (&key.0, !key.1) > (v, !*pre)) {
                best = Some((key.0, key.1, e.path()));
            }
        }
    }
    match best {
        Some((_, _, dir)) => Ok(dir),
        None => Err(ImportError::CrateNotFound {
            name: name.to_string(),
            searched: dirs,
        }),
    }
}

/// `1.2.3` → ([1, 2, 3], false); `1.0.0-rc.1` → ([1, 0, 0], true). `None` if it does not start
/// with a number (then `tree-sitter-css-extra-1.0` is not a version of `tree-sitter-css`).
fn version_key(v: &str) -> Option<(Vec<u64>, bool)> {
    let (core, pre) = match v.split_once('-') {
        Some((c, _)) => (c, true),
        None => (v.split('+').next().unwrap_or(v), false),
    };
    let nums = core
        .split('.')
        .map(|p| p.parse::<u64>().ok())
        .collect::<Option<Vec<_>>>()?;
    (!nums.is_empty()).then_some((nums, pre))
}

/// Name, version and licence from the `[package]` table of a Cargo.toml (a line scan: the keys
/// cargo writes into published manifests are plain `key = "value"` lines).
fn crate_info(manifest: &str) -> Option<CrateInfo> {
    let mut in_package = false;
    let (mut name, mut version, mut license) = (None, None, None);
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches('"').to_string();
        match key.trim() {
            "name" => name = Some(value),
            "version" => version = Some(value),
            "license" => license = Some(value),
            "license-file" if license.is_none() => license = Some(format!("see {value}")),
            _ => {}
        }
    }
    Some(CrateInfo {
        name: name?,
        version: version?,
        license,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_numerically_and_releases_after_prereleases() {
        assert!(version_key("0.10.0").unwrap().0 > version_key("0.9.9").unwrap().0);
        assert_eq!(version_key("1.0.0-rc.1"), Some((vec![1, 0, 0], true)));
        assert_eq!(version_key("extra-1.0"), None);
    }

    #[test]
    fn crate_info_reads_the_package_table_only() {
        let m = "[package]\nname = \"tree-sitter-x\"\nversion = \"0.2.0\"\nlicense = \"MIT\"\n[dependencies]\nname = \"no\"\n";
        assert_eq!(
            crate_info(m),
            Some(CrateInfo {
                name: "tree-sitter-x".into(),
                version: "0.2.0".into(),
                license: Some("MIT".into())
            })
        );
    }
}
