//! Input repair on corrupted JSON: lexical vs. syntactic ddmax. Run through `scripts/eval-repair`.
//!
//! Every valid file under seeds/json is corrupted deterministically (ChaCha8, seed 7) the ways the
//! ddmax paper's evaluation does: one byte inserted, one deleted, one bit flipped (single), and
//! three of these at once (multiple). Each corrupted file is repaired by both ddmax variants
//! against a subject (the `json_subject` example as a subprocess with `--subject PATH`, else
//! serde_json in-process), within a per-file budget. Prints `name: value unit` lines and a summary.
//!
//! Bytes recovered: the longest common subsequence of the repair and the ORIGINAL (uncorrupted)
//! file, as a share of the original, averaged over files (an unrepaired file counts 0). A repair
//! may insert what the grammar expects; inserted bytes count only where they are the original's.
//! `kept_of_corrupted` is the older figure: the repair's length over the corrupted input's.

use std::time::{Duration, Instant};

use hellfuzz::grammar::Grammar;
use hellfuzz::oracle::{Oracle, Outcome, Processed, Subprocess};
use hellfuzz::reduce::repair::{repair, RepairMode, RepairOptions};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn valid(data: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(data).is_ok()
}

/// One random corruption of `data`: 0 inserts a byte, 1 deletes one, 2 flips a bit.
fn corrupt_once(rng: &mut ChaCha8Rng, data: &mut Vec<u8>, kind: u32) {
    match kind {
        0 => {
            let at = rng.random_range(0..=data.len());
            data.insert(at, rng.random::<u8>());
        }
        1 if !data.is_empty() => {
            data.remove(rng.random_range(0..data.len()));
        }
        _ if !data.is_empty() => {
            let at = rng.random_range(0..data.len());
            data[at] ^= 1 << rng.random_range(0..8);
        }
        _ => {}
    }
}

/// A corrupted copy that is no longer valid JSON (tries a few draws), or `None`.
fn corrupt(rng: &mut ChaCha8Rng, original: &[u8], kinds: &[u32]) -> Option<Vec<u8>> {
    (0..20).find_map(|_| {
        let mut data = original.to_vec();
        for &k in kinds {
            corrupt_once(rng, &mut data, k);
        }
        (!valid(&data)).then_some(data)
    })
}

/// Length of the longest common subsequence of `a` and `b` (Myers' O((N+M)D) greedy forward
/// search after trimming the common prefix and suffix: repairs are close to the original).
fn lcs(a: &[u8], b: &[u8]) -> usize {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (n + m) as usize;
    let off = max as isize + 1;
    let mut v = vec![0isize; 2 * max + 3];
    for d in 0..=max as isize {
        let mut k = -d;
        while k <= d {
            let i = (k + off) as usize;
            let mut x = if k == -d || (k != d && v[i - 1] < v[i + 1]) {
                v[i + 1]
            } else {
                v[i - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[i] = x;
            if x >= n && y >= m {
                // d edits: (n - lcs) deletions plus (m - lcs) insertions.
                return pre + suf + ((n + m - d) / 2) as usize;
            }
            k += 2;
        }
    }
    pre + suf
}

#[derive(Default)]
struct Totals {
    inputs: usize,
    repaired: usize,
    exact: usize,
    /// Sum over files of the share of the original's bytes recovered.
    kept_share: f64,
    /// Sum over files of the repair's length over the corrupted input's.
    kept_of_corrupted: f64,
    runs: u64,
    time: Duration,
    exhausted: usize,
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let dir = arg("--seeds").unwrap_or_else(|| "seeds/json".into());
    let jobs: usize = arg("--jobs").map_or(2, |j| j.parse().expect("--jobs N"));
    let max_tests: u64 = arg("--max-tests").map_or(2000, |j| j.parse().expect("--max-tests N"));
    let subject = arg("--subject");
    // --verbose: one line per repair on standard error (file, corruption, mode, kept bytes).
    let verbose = std::env::args().any(|a| a == "--verbose");
    // --only TEXT: repair only files whose path contains TEXT (the corruptions stay the same).
    let only = arg("--only");
    // --dump DIR: write each corrupted input to DIR/<file>.<corruption>.
    let dump = arg("--dump");
    // --no-insert: the paper's repair (subsequences only), for comparison.
    let insert = !std::env::args().any(|a| a == "--no-insert");
    let oracle: Box<dyn Oracle> = match &subject {
        Some(path) => Box::new(Processed(
            Subprocess::new([path.as_str(), "@@"]).expect("subject command"),
        )),
        None => Box::new(|d: &[u8]| if valid(d) { Outcome::Pass } else { Outcome::Fail }),
    };
    let grammar = Grammar::load("json").expect("built-in json grammar");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {dir}: {e}"))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let corruptions: [(&str, &[u32]); 4] = [
        ("insert", &[0]),
        ("delete", &[1]),
        ("flip", &[2]),
        ("multiple", &[0, 1, 2]),
    ];
    let mut totals: [[Totals; 2]; 2] = Default::default(); // [single/multiple][lexical/syntactic]
    let started = Instant::now();
    let mut skipped = 0;
    for path in &files {
        let original = std::fs::read(path).expect("seed file");
        if !valid(&original) {
            skipped += 1;
            continue;
        }
        for (name, kinds) in corruptions {
            let mut kinds = kinds.to_vec();
            if name == "multiple" {
                // Three corruptions of random kinds.
                kinds = (0..3).map(|_| rng.random_range(0..3)).collect();
            }
            let Some(input) = corrupt(&mut rng, &original, &kinds) else {
                continue;
            };
            if only
                .as_ref()
                .is_some_and(|o| !path.to_string_lossy().contains(o.as_str()))
            {
                continue;
            }
            if let Some(dir) = &dump {
                let file = path.file_name().expect("file name").to_string_lossy();
                std::fs::write(format!("{dir}/{file}.{name}"), &input).expect("dump");
            }
            for (m, mode) in [RepairMode::Lexical, RepairMode::Syntactic].into_iter().enumerate() {
                let mut options = RepairOptions::default();
                options.mode = Some(mode);
                options.jobs = jobs;
                options.budget.max_tests = Some(max_tests);
                options.insert = insert;
                let r = repair(&input, Some(&grammar), oracle.as_ref(), &options);
                let t = &mut totals[usize::from(name == "multiple")][m];
                t.inputs += 1;
                let ok = r.repaired && valid(&r.input);
                let recovered = if ok { lcs(&r.input, &original) } else { 0 };
                if ok {
                    t.repaired += 1;
                    t.kept_share += recovered as f64 / original.len() as f64;
                    t.kept_of_corrupted += r.input.len() as f64 / input.len() as f64;
                }
                t.exact += usize::from(r.input == original);
                t.runs += r.oracle_calls;
                t.time += r.time;
                t.exhausted += usize::from(r.budget_exhausted);
                if verbose {
                    eprintln!(
                        "{}\t{name}\t{mode:?}\t{}\t{}/{}\t{recovered}/{} of original\t{} runs",
                        path.display(),
                        if ok { "repaired" } else { "NOT" },
                        if ok { r.input.len() } else { 0 },
                        input.len(),
                        original.len(),
                        r.oracle_calls
                    );
                }
            }
        }
    }
    println!(
        "oracle: {}",
        if subject.is_some() {
            "subprocess (json_subject @@)"
        } else {
            "in-process serde_json"
        }
    );
    println!(
        "files: {} valid seeds ({skipped} skipped as invalid)",
        files.len() - skipped
    );
    println!("budget: {max_tests} tests per repair, -j {jobs}");
    let mut summary = Vec::new();
    for (c, corruption) in ["single", "multiple"].iter().enumerate() {
        for (m, mode) in ["lexical", "syntactic"].iter().enumerate() {
            let t = &totals[c][m];
            let n = t.inputs.max(1) as f64;
            let repaired = 100.0 * t.repaired as f64 / n;
            let kept = 100.0 * t.kept_share / n;
            println!("{corruption}_{mode}_inputs: {} files", t.inputs);
            println!("{corruption}_{mode}_repaired: {repaired:.1} %");
            println!("{corruption}_{mode}_bytes_recovered: {kept:.1} % of the original");
            println!(
                "{corruption}_{mode}_kept_of_corrupted: {:.1} %",
                100.0 * t.kept_of_corrupted / n
            );
            println!(
                "{corruption}_{mode}_exact_original: {:.1} %",
                100.0 * t.exact as f64 / n
            );
            println!("{corruption}_{mode}_oracle_runs: {:.0} runs/file", t.runs as f64 / n);
            println!("{corruption}_{mode}_time: {:.3} s/file", t.time.as_secs_f64() / n);
            println!("{corruption}_{mode}_budget_exhausted: {} files", t.exhausted);
            summary.push(format!("{corruption}/{mode} {repaired:.0}% repaired, {kept:.0}% bytes"));
        }
    }
    println!("total_time: {:.1} s", started.elapsed().as_secs_f64());
    println!("summary: {}", summary.join("; "));
}
