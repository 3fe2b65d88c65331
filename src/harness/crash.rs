//! Reduce-on-crash: what a wrapper does between catching a panic and aborting, and the files it
//! leaves in the artifacts folder.
//!
//! Map: [`CrashHandler`] (save the original, skip known signatures, reduce, write artifacts) ·
//! [`ArtifactRecord`] (the `minimized-<hash>.json` record, in the `.hellfuzz/` subfolder) ·
//! `minimize` (shared with reduce mode).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::corpus::RunFn;
use super::sidecar::{create_folder_of, legacy_path, record_path, sidecar_path};
use super::target::{Settings, Target};
use crate::files::write_atomically;
use crate::oracle::{InProcess, Oracle, Outcome, Signature};
use crate::reduce::{reduce, ReduceOptions, Reduction, ReductionStats};

/// The JSON record of each minimized input: `<artifacts>/.hellfuzz/minimized-<hash>.json` (see
/// [`SIDECAR_DIR`](crate::harness::SIDECAR_DIR); campaigns from before kept it beside the input).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ArtifactRecord {
    /// The crash: panic location and message.
    pub signature: Signature,
    /// A stable short hash of the normalized signature; one minimized file per hash.
    pub signature_hash: String,
    /// File name of the original crash (libFuzzer's `crash-<sha1>`; the reduce mode's input).
    pub original: String,
    /// Bytes in the original.
    pub original_size: usize,
    /// File name of the minimized input.
    pub minimized: String,
    /// Bytes in the minimized input.
    pub minimized_size: usize,
    /// The grammar, if one was used.
    pub grammar: Option<String>,
    /// What ran and what it cost (`oracle_calls`: real runs of the target closure), with the
    /// reducer's notes (fallbacks, flakiness).
    #[serde(flatten)]
    pub stats: ReductionStats,
    /// For a typed (`arbitrary`) target: the `Debug` of the value the minimized bytes build, as
    /// `cargo fuzz fmt` prints it. The minimized file itself holds the bytes the fuzzer reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimized_value: Option<String>,
    /// How the minimized input was checked to crash outside the reduction (absent in records of
    /// crashes reduced in-process, and of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduced: Option<Reproduced>,
}

/// What was checked of a minimized input that kills the process (a stack overflow, an abort):
/// that it crashes alike when run alone by a fresh process of the fuzz target, on the stack the
/// crash had, and for a stack overflow how it was deepened so that builds with smaller frames
/// (without the fuzzer's instrumentation) overflow too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Reproduced {
    /// The checks made and their results, in words.
    pub checked: String,
    /// The written input crashed alike in a fresh process.
    pub alone: bool,
    /// The main stack's size in bytes in that process (`ulimit -s`); `None`: unlimited.
    pub stack_bytes: Option<u64>,
    /// Bytes of the reducer's result, when what was written is that result deepened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deepened_from: Option<usize>,
    /// How it was deepened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deepened: Option<String>,
}

/// A short hash naming a signature: the first 16 hex digits of the SHA-1 of its normalized form.
pub fn signature_hash(signature: &Signature) -> String {
    let n = signature.normalized();
    let key = format!("{:?}\n{}\n{}", n.kind, n.location.unwrap_or_default(), n.message);
    crate::files::sha1_hex(key.as_bytes())[..16].to_string()
}

/// Signatures this process has already reduced (or is reducing): each is reduced once.
static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Handles a caught panic for a wrapper: keeps the original safe, reduces it in-process, writes
/// `minimized-<sha1>` where the fuzzer writes artifacts, and its record in their `.hellfuzz/`.
pub struct CrashHandler<'t> {
    target: &'t Target,
    /// libFuzzer's `-artifact_prefix` semantics: prepended to file names (`"dir/"`, `"dir/x-"`).
    prefix: String,
    /// Write `crash-<sha1>` ourselves before reducing (libFuzzer's name for it), so that a
    /// reduction that hangs or dies cannot lose it.
    save_original: bool,
    settings: Settings,
}

impl<'t> CrashHandler<'t> {
    /// A handler writing to `prefix` (`"./"` is libFuzzer's default).
    pub fn new(target: &'t Target, prefix: impl Into<String>, save_original: bool, settings: Settings) -> Self {
        CrashHandler {
            target,
            prefix: prefix.into(),
            save_original,
            settings,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("{}{name}", self.prefix))
    }

    /// Handles one crash of `input` with `signature`; `run` is the target closure. Returns the
    /// record when a minimized file was written. Never panics; problems are reported on stderr.
    pub fn handle(&self, input: &[u8], signature: &Signature, run: RunFn) -> Option<ArtifactRecord> {
        let original = format!("crash-{}", crate::files::sha1_hex(input));
        if self.save_original && !self.path(&original).exists() {
            if let Err(e) = write_atomically(&self.path(&original), input) {
                eprintln!("hellfuzz: cannot save {}: {e}", self.path(&original).display());
            }
        }
        if !self.settings.enabled {
            return None;
        }
        let hash = signature_hash(signature);
        {
            let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
            if seen.contains(&hash) {
                return None;
            }
            seen.push(hash.clone());
        }
        if let Some(known) = find_record(&self.prefix, &hash) {
            eprintln!("hellfuzz: {signature} was minimized before: {}", known.display());
            return None;
        }
        eprintln!(
            "hellfuzz: minimizing the crash ({} bytes, {signature}) for at most {:.0} s",
            input.len(),
            self.settings.options.budget.max_time.unwrap_or_default().as_secs_f64()
        );
        let partial = self.path(&format!("minimized-partial-{hash}"));
        let result = minimize(self.target, input, signature, run, &self.settings.options, &partial);
        match result {
            Ok(reduction) => {
                let minimized = format!("minimized-{}", crate::files::sha1_hex(&reduction.input));
                let record = make_record(self.target, signature, &original, &minimized, &reduction);
                let path = self.path(&minimized);
                match write_artifacts(&path, &record_path(&path), &reduction.input, &record) {
                    Ok(()) => {
                        let _ = std::fs::remove_file(&partial);
                        eprintln!(
                            "hellfuzz: minimized {} → {} bytes ({} runs, {:.1} s): {}",
                            record.original_size,
                            record.minimized_size,
                            record.stats.oracle_calls,
                            record.stats.time.as_secs_f64(),
                            self.path(&minimized).display()
                        );
                        Some(record)
                    }
                    Err(e) => {
                        eprintln!("hellfuzz: {e}");
                        None
                    }
                }
            }
            Err(e) => {
                eprintln!("hellfuzz: not minimized: {e}");
                None
            }
        }
    }
}

/// Handles a crash from inside the panic hook of the fuzzed input's panic ([`catch_panic_fatal`]),
/// which then aborts: [`CrashHandler::handle`] runs on a thread of its own, because a candidate
/// that panics on the panicking thread, inside the hook, would abort the process at once. Waits
/// for it at most twice the reduction's time plus 5 s: a candidate that hangs, or that waits for
/// a lock the crashing input still holds (its frames have not unwound), must not keep the
/// process from dying; the original is saved first and the best candidate so far is in
/// `minimized-partial-<hash>`.
///
/// [`catch_panic_fatal`]: crate::oracle::catch_panic_fatal
#[cfg(feature = "libfuzzer")]
pub(super) fn handle_in_hook(
    target: &'static Target,
    prefix: &str,
    settings: Settings,
    input: &[u8],
    signature: &Signature,
    run: RunFn,
) {
    let limit = settings
        .options
        .budget
        .max_time
        .map(|t| t.saturating_mul(2).saturating_add(Duration::from_secs(5)));
    let (done, finished) = std::sync::mpsc::channel();
    let (owned_input, owned_signature, owned_prefix) = (input.to_vec(), signature.clone(), prefix.to_string());
    let owned_settings = settings.clone();
    let worker = std::thread::Builder::new()
        .name("hellfuzz-reduce".to_string())
        .stack_size(main_stack_size())
        .spawn(move || {
            #[cfg(all(unix, feature = "libfuzzer"))]
            super::deadly::prepare_thread();
            CrashHandler::new(target, owned_prefix, true, owned_settings).handle(&owned_input, &owned_signature, run);
            let _ = done.send(());
        });
    if let Err(e) = worker {
        eprintln!("hellfuzz: cannot start a thread to minimize the crash: {e}");
        let save_only = Settings {
            enabled: false,
            ..settings
        };
        CrashHandler::new(target, prefix, true, save_only).handle(input, signature, run);
        return;
    }
    let waited = match limit {
        Some(limit) => finished.recv_timeout(limit).map_err(|e| e.to_string()),
        None => finished.recv().map_err(|e| e.to_string()),
    };
    match waited {
        Ok(()) => {}
        Err(_) if limit.is_none() => eprintln!("hellfuzz: the minimizing thread failed"),
        Err(_) => eprintln!(
            "hellfuzz: minimizing did not finish in {:.0} s (a candidate hangs, or waits for a lock held by the crashing input); the best so far is in {}minimized-partial-{}",
            limit.unwrap_or_default().as_secs_f64(),
            prefix,
            signature_hash(signature)
        ),
    }
}

/// The stack size for the thread that runs candidates: the main thread's (`ulimit -s`, 8 MiB
/// when unlimited or unknown), where libFuzzer ran the crash, so that a candidate recursing as
/// deep as the crash did does not overflow a smaller thread stack instead.
#[cfg(feature = "libfuzzer")]
fn main_stack_size() -> usize {
    const DEFAULT: usize = 8 << 20;
    stack_limit().filter(|&limit| limit > 0).map_or(DEFAULT, |limit| {
        usize::try_from(limit).unwrap_or(DEFAULT).clamp(DEFAULT, 1 << 30)
    })
}

/// The main thread's stack limit (`ulimit -s`, the soft `RLIMIT_STACK`) in bytes: what a
/// process started now gets; `None` when unlimited or unknown.
pub(super) fn stack_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: getrlimit writes into the struct we pass.
        let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } == 0 && limit.rlim_cur != libc::RLIM_INFINITY {
            return Some(limit.rlim_cur as u64);
        }
    }
    None
}

/// Reduces `input` in-process with `run` as the oracle (Fail = a panic matching `signature`; a
/// run that returns, `Corpus::Reject` included, passes). For a typed target the candidates are
/// bytes, and `run` builds each one's value as the fuzzer's input was built. The smallest failing candidate so far is written to `partial` as it improves (at most every
/// half second), so a reduction killed by a hanging or crashing candidate leaves its best.
pub(super) fn minimize(
    target: &Target,
    input: &[u8],
    signature: &Signature,
    run: RunFn,
    options: &ReduceOptions,
    partial: &Path,
) -> Result<Reduction, String> {
    let oracle = KeepBest {
        inner: InProcess::with_signature(
            move |candidate: &[u8]| {
                let _verdict = run(candidate);
            },
            signature.clone(),
        ),
        best: Mutex::new((input.len(), None)),
        path: partial,
    };
    let reduction = reduce(input, target.grammar(), &oracle, options).map_err(|e| e.to_string())?;
    Ok(reduction)
}

/// The record for a finished reduction.
pub(super) fn make_record(
    target: &Target,
    signature: &Signature,
    original: &str,
    minimized: &str,
    reduction: &Reduction,
) -> ArtifactRecord {
    ArtifactRecord {
        signature: signature.clone(),
        signature_hash: signature_hash(signature),
        original: original.to_string(),
        original_size: reduction.original_size,
        minimized: minimized.to_string(),
        minimized_size: reduction.input.len(),
        grammar: target.source().name().map(str::to_string),
        stats: reduction.stats.clone(),
        minimized_value: target.show_input(&reduction.input),
        reproduced: None,
    }
}

/// Writes the minimized input at `path` and its record at `json_path` (its folder created if
/// missing), each atomically: the input first, so that a record never names a missing file.
pub(super) fn write_artifacts(
    path: &Path,
    json_path: &Path,
    input: &[u8],
    record: &ArtifactRecord,
) -> Result<(), String> {
    write_atomically(path, input).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let json = serde_json::to_vec_pretty(record).expect("records serialize");
    create_folder_of(json_path)
        .and_then(|()| write_atomically(json_path, &json))
        .map_err(|e| format!("cannot write {}: {e}", json_path.display()))
}

/// A record with signature hash `hash` among the `minimized-*.json` files of the artifacts after
/// `prefix`, in their `.hellfuzz/` subfolder or, from campaigns before it, beside them: a crash
/// minimized by an earlier process of the same campaign (libFuzzer `-fork`, restarts).
pub(super) fn find_record(prefix: &str, hash: &str) -> Option<PathBuf> {
    let probe = PathBuf::from(format!("{prefix}x"));
    let file_prefix = format!("{}minimized-", probe.file_name()?.to_str()?.strip_suffix('x')?);
    let sidecar = sidecar_path(&probe);
    let folders = [
        sidecar.parent()?.to_path_buf(),
        legacy_path(&sidecar)?.parent()?.to_path_buf(),
    ];
    folders.iter().find_map(|dir| {
        std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).find(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with(&file_prefix)
                && name.ends_with(".json")
                && std::fs::read(p)
                    .ok()
                    .and_then(|b| serde_json::from_slice::<ArtifactRecord>(&b).ok())
                    .is_some_and(|r| r.signature_hash == hash)
        })
    })
}

/// An oracle that remembers (and writes out) the smallest failing input it has seen.
struct KeepBest<'p, O> {
    inner: O,
    best: Mutex<(usize, Option<Instant>)>,
    path: &'p Path,
}

impl<O: Oracle> Oracle for KeepBest<'_, O> {
    fn test(&self, input: &[u8]) -> Outcome {
        let outcome = self.inner.test(input);
        if outcome == Outcome::Fail {
            let mut best = self.best.lock().unwrap_or_else(|p| p.into_inner());
            let due = best.1.is_none_or(|t| t.elapsed() >= Duration::from_millis(500));
            if input.len() < best.0 && due && write_atomically(self.path, input).is_ok() {
                *best = (input.len(), Some(Instant::now()));
            }
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::GrammarSource;
    use crate::oracle::catch_panic;
    use crate::Corpus;

    /// A JSON "consumer" with a bug: an object key `"boom"` holding an array of three or more
    /// elements makes it index past a fixed table.
    fn consume(data: &[u8]) -> Corpus {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
            return Corpus::Reject;
        };
        if let Some(items) = value.get("boom").and_then(|v| v.as_array()) {
            let table = [0u8; 2];
            let _ = table[items.len() - 1];
        }
        Corpus::Keep
    }

    static JSON: Target = Target::new(GrammarSource::Named("json"));

    fn settings() -> Settings {
        Settings::from_vars(None, |_| None)
    }

    #[test]
    fn a_crash_is_saved_minimized_and_recorded_once() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = format!("{}/", dir.path().display());
        let input = br#"{"name": "x", "list": [1, 2, {"deep": true}], "boom": [10, 20, 30, 40], "z": null}"#;
        let signature = catch_panic(|| consume(input)).unwrap_err();
        let handler = CrashHandler::new(&JSON, prefix.clone(), true, settings());
        let record = handler.handle(input, &signature, consume).expect("minimized");

        // The original is saved under libFuzzer's own name, byte for byte.
        let original = dir.path().join(&record.original);
        assert_eq!(std::fs::read(&original).unwrap(), input);
        assert_eq!(record.original, format!("crash-{}", crate::files::sha1_hex(&input[..])));
        // The minimized input is smaller, valid JSON with the grammar, and crashes the same way.
        let minimized = std::fs::read(dir.path().join(&record.minimized)).unwrap();
        assert!(minimized.len() <= 24, "{}", String::from_utf8_lossy(&minimized));
        crate::parse::Parser::new(JSON.grammar().unwrap())
            .parse(&minimized)
            .expect("still JSON");
        assert_eq!(record.minimized_size, minimized.len());
        assert!(catch_panic(|| consume(&minimized)).unwrap_err().matches(&signature));
        assert_eq!(record.stats.algorithm, crate::reduce::Algorithm::GtrStar);
        assert_eq!(record.grammar.as_deref(), Some("json"));
        let json: ArtifactRecord = serde_json::from_slice(
            &std::fs::read(dir.path().join(".hellfuzz").join(format!("{}.json", record.minimized))).unwrap(),
        )
        .unwrap();
        assert_eq!(json.signature_hash, record.signature_hash);
        assert!(!dir
            .path()
            .join(format!("minimized-partial-{}", record.signature_hash))
            .exists());

        // The same bug again, from another input: not reduced a second time.
        let again = br#"{"boom": [1, 2, 3]}"#;
        let sig2 = catch_panic(|| consume(again)).unwrap_err();
        assert!(handler.handle(again, &sig2, consume).is_none());
        // ... but its original is saved all the same.
        assert!(dir
            .path()
            .join(format!("crash-{}", crate::files::sha1_hex(&again[..])))
            .exists());
        // At the top of the artifacts folder, only inputs (what cargo-fuzz offers as failing
        // inputs); the record is in `.hellfuzz/`.
        let mut top: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        top.sort();
        let mut expected = vec![
            record.original.clone(),
            format!("crash-{}", crate::files::sha1_hex(&again[..])),
            record.minimized.clone(),
            ".hellfuzz".to_string(),
        ];
        expected.sort();
        assert_eq!(top, expected);
    }

    fn consume_other(data: &[u8]) -> Corpus {
        if data.windows(3).any(|w| w == b"bad") {
            panic!("bad input of {} bytes", data.len());
        }
        Corpus::Keep
    }

    #[test]
    fn another_process_minimized_it_already() {
        // A record from an earlier process (libFuzzer -fork children) in the same folder.
        let dir = tempfile::tempdir().unwrap();
        let prefix = format!("{}/nightly-", dir.path().display());
        let signature = catch_panic(|| consume_other(b"xxbadxx")).unwrap_err();
        let record = ArtifactRecord {
            signature: signature.clone(),
            signature_hash: signature_hash(&signature),
            original: "crash-0".into(),
            original_size: 7,
            minimized: "minimized-0".into(),
            minimized_size: 3,
            grammar: None,
            stats: ReductionStats {
                oracle_calls: 1,
                ..ReductionStats::new(crate::reduce::Algorithm::Ddmin)
            },
            minimized_value: None,
            reproduced: None,
        };
        let minimized = dir.path().join("nightly-minimized-0");
        write_artifacts(&minimized, &record_path(&minimized), b"bad", &record).unwrap();
        let target = Target::new(GrammarSource::None);
        let handler = CrashHandler::new(&target, prefix.clone(), true, settings());
        assert!(handler
            .handle(b"a longer bad input", &signature, consume_other)
            .is_none());
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}"); // `.hellfuzz/`, the old input, and the new original
        assert!(names.iter().any(|n| n.starts_with("nightly-crash-")));
        assert!(find_record(&prefix, &record.signature_hash).is_some());

        // A campaign from before `.hellfuzz/`: its record beside the input is found too.
        let old = tempfile::tempdir().unwrap();
        let old_prefix = format!("{}/nightly-", old.path().display());
        let minimized = old.path().join("nightly-minimized-0");
        write_artifacts(
            &minimized,
            &PathBuf::from(format!("{}.json", minimized.display())),
            b"bad",
            &record,
        )
        .unwrap();
        assert!(find_record(&old_prefix, &record.signature_hash).is_some());
        assert!(find_record(&old_prefix, "0000000000000000").is_none());
        assert!(find_record(&format!("{}/other-", old.path().display()), &record.signature_hash).is_none());
    }

    #[test]
    fn signature_hashes_ignore_varying_numbers() {
        let a = catch_panic(|| consume_other(b"bad")).unwrap_err();
        let b = catch_panic(|| consume_other(b"very bad")).unwrap_err();
        assert_ne!(a.message, b.message);
        assert_eq!(signature_hash(&a), signature_hash(&b));
    }
}
