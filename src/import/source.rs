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
    /// The crate's name, version and licence (from the Cargo.toml beside `src/`), if found.
    pub krate: Option<CrateInfo>,
}

impl Source {
    /// A grammar.json's text read from elsewhere (`path` names it in messages), of no known crate.
    pub fn new(path: impl Into<PathBuf>, json: impl Into<String>) -> Source {
        Source {
            path: path.into(),
            json: json.into(),
            krate: None,
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
/// `src/grammar.json` (a crate) or `grammar.json`; anything else is a crate name looked up in
/// `$CARGO_HOME/registry/src/*/<name>-<version>/` (the newest version).
pub fn find(source: &str) -> Result<Source, ImportError> {
    find_in(source, cargo_home().as_deref())
}

/// [`find`] with an explicit cargo home (whose `registry/src/*` holds crate sources) instead of
/// `$CARGO_HOME` or `~/.cargo`.
pub fn find_in(source: &str, cargo_home: Option<&Path>) -> Result<Source, ImportError> {
    let p = Path::new(source);
    let path = if p.is_file() {
        p.to_path_buf()
    } else if p.is_dir() {
        let candidates = [p.join("src/grammar.json"), p.join("grammar.json")];
        match candidates.iter().find(|c| c.is_file()) {
            Some(c) => c.clone(),
            None => {
                return Err(ImportError::Io {
                    path: candidates[0].clone(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "the folder has neither src/grammar.json nor grammar.json",
                    ),
                })
            }
        }
    } else if source.contains('/') || source.ends_with(".json") {
        return Err(ImportError::Io {
            path: p.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    } else {
        registry_grammar(source, cargo_home)?
    };
    let json = std::fs::read_to_string(&path).map_err(|e| ImportError::Io {
        path: path.clone(),
        source: e,
    })?;
    let krate = path
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "src"))
        .and_then(Path::parent)
        .and_then(|root| std::fs::read_to_string(root.join("Cargo.toml")).ok())
        .and_then(|text| crate_info(&text));
    Ok(Source { path, json, krate })
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

fn registry_grammar(name: &str, home: Option<&Path>) -> Result<PathBuf, ImportError> {
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
        Some((_, _, dir)) => {
            let path = dir.join("src/grammar.json");
            if path.is_file() {
                Ok(path)
            } else {
                Err(ImportError::Io {
                    path,
                    source: std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "the crate ships no src/grammar.json: is it a tree-sitter grammar crate?",
                    ),
                })
            }
        }
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
