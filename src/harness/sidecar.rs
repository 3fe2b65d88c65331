//! Where hellfuzz keeps its own files beside a campaign's artifacts: the `minimized-*.json`
//! records and continue mode's summary go in a `.hellfuzz/` subfolder of the artifacts folder.
//!
//! Why a subfolder: when a run ends with a crash, cargo-fuzz 0.13 offers every regular file at
//! the top of the artifacts folder that changed during the run as a "Failing input"
//! (`get_artifacts_since`: one `read_dir`, folders skipped), with a `cargo fuzz run` line to
//! reproduce it. A JSON record there was offered as an input; inside a folder it is not, so only
//! `crash-*` and `minimized-*` inputs are. Campaigns from before kept the records and the summary
//! at the top: readers look there too ([`legacy_path`]); crash files are never moved.

use std::path::{Path, PathBuf};

/// The subfolder of the artifacts folder holding hellfuzz's records and summary.
pub const SIDECAR_DIR: &str = ".hellfuzz";

/// The folder and file name of `path` (`./` for a bare name).
fn split(path: &Path) -> (PathBuf, std::ffi::OsString) {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    (dir, path.file_name().unwrap_or_default().to_os_string())
}

/// Where hellfuzz's own file for `path`, a path in the artifacts folder, goes: the same name in
/// the `.hellfuzz/` subfolder (`art/x-hellfuzz-crashes.json` → `art/.hellfuzz/x-hellfuzz-crashes.json`).
pub fn sidecar_path(path: &Path) -> PathBuf {
    let (dir, name) = split(path);
    dir.join(SIDECAR_DIR).join(name)
}

/// Where campaigns before the subfolder kept the file that [`sidecar_path`] places, when `path`
/// is one of its results: the same name one folder up. `None` for any other path.
pub fn legacy_path(path: &Path) -> Option<PathBuf> {
    let (dir, name) = split(path);
    (dir.file_name()? == SIDECAR_DIR).then(|| split(&dir).0.join(name))
}

/// The record of the minimized input at `minimized` (`art/minimized-<sha1>`), in the artifacts
/// folder's subfolder: `art/.hellfuzz/minimized-<sha1>.json`.
pub fn record_path(minimized: &Path) -> PathBuf {
    sidecar_path(&beside(minimized, ".json"))
}

/// `path` with `suffix` appended to its file name (`out` → `out.json`).
pub fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// The artifact prefix (`-artifact_prefix` semantics: `"dir/"`, `"dir/x-"`) whose sidecar holds
/// `file`: its folder, one up when that is the `.hellfuzz/` subfolder.
#[cfg(any(feature = "afl", test))]
pub fn owner_prefix(file: &Path) -> String {
    let (dir, _) = split(file);
    let owner = match dir.file_name() {
        Some(name) if name == SIDECAR_DIR => split(&dir).0,
        _ => dir,
    };
    format!("{}/", owner.display())
}

/// Creates the folder that will hold `file` (a sidecar path) if it is missing. Folder creation is
/// atomic, and one that a parallel process (libFuzzer `-fork` children) created first is fine.
pub fn create_folder_of(file: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(split(file).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_paths_and_their_legacy_places() {
        let record = record_path(Path::new("art/x-minimized-ab"));
        assert_eq!(record, Path::new("art/.hellfuzz/x-minimized-ab.json"));
        assert_eq!(legacy_path(&record).unwrap(), Path::new("art/x-minimized-ab.json"));
        assert_eq!(owner_prefix(&record), "art/");
        let bare = sidecar_path(Path::new("hellfuzz-crashes.json"));
        assert_eq!(bare, Path::new("./.hellfuzz/hellfuzz-crashes.json"));
        assert_eq!(legacy_path(&bare).unwrap(), Path::new("./hellfuzz-crashes.json"));
        assert_eq!(owner_prefix(Path::new("/tmp/summary.json")), "/tmp/");
        assert_eq!(legacy_path(Path::new("/tmp/summary.json")), None);
    }
}
