//! Memory bounds, checked on the real binary under an address-space limit (`setrlimit` in the
//! child): grammar bombs are refused by name, and large inputs parse in memory proportional to them.
#![cfg(unix)]

use std::os::unix::process::CommandExt;
use std::process::{Command, Output};

/// Runs `hellfuzz args` with at most `limit_mb` MiB of address space: a run that needs more
/// fails to allocate (and aborts) instead of taking the machine's memory.
fn hellfuzz_limited(args: &[&str], limit_mb: u64) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hellfuzz"));
    cmd.args(args);
    let bytes = limit_mb << 20;
    // SAFETY: setrlimit is async-signal-safe and touches only the child's own limits.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

/// Nested repetition bounds multiply: each of these grammars is a few dozen bytes, and asked
/// for 10^8 to 2·10^12 bytes (or 10^8 tree nodes) before the bound existed. `check` and `gen`
/// refuse them with the symbol where the product crosses the limit, within 512 MiB.
#[test]
fn grammar_bombs_are_refused_by_name_within_a_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "product",
            "start = (\"a\"{10000}){10000} ;\n",
            "rule `start`",
            "100000000 bytes",
        ),
        (
            "product3",
            "start = ((\"ab\"{10000}){10000}){10000} ;\n",
            "`start.2`",
            "200000000 bytes",
        ),
        (
            "nodes",
            "start = x? \"b\" ;\nx = ((\"\" | \"a\"){10000}){10000} ;\n",
            "rule `x`",
            "tree nodes",
        ),
    ];
    for (name, text, culprit, size) in cases {
        let path = dir.path().join(format!("{name}.grammar"));
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        for args in [
            vec!["check", path],
            vec!["gen", path, "--count", "1", "--max-size", "10"],
        ] {
            let out = hellfuzz_limited(&args, 512);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(stderr.contains(culprit) && stderr.contains(size), "{args:?}: {stderr}");
            assert!(stderr.contains("more than the limit of 1048576"), "{stderr}");
            assert!(out.stdout.is_empty(), "{args:?} wrote output");
        }
    }
    // The same products below the limit load and generate.
    let fine = dir.path().join("fine.grammar");
    std::fs::write(&fine, "start = (\"a\"{100}){100} ;\n").unwrap();
    let out = hellfuzz_limited(&["check", fine.to_str().unwrap()], 512);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A JSON document of about `size` bytes: an array of small objects with numbers and strings.
fn json_document(size: usize) -> Vec<u8> {
    let mut doc = b"[".to_vec();
    let mut i = 0u64;
    while doc.len() < size {
        if i > 0 {
            doc.extend_from_slice(b", ");
        }
        let item = format!(
            "{{\"id\": {i}, \"name\": \"item{i}\", \"vals\": [0.{:016}, -{}e-3], \"ok\": true, \"n\": null}}",
            i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 10_000_000_000_000_000,
            i % 977
        );
        doc.extend_from_slice(item.as_bytes());
        i += 1;
    }
    doc.push(b']');
    doc
}

/// Parsing takes memory proportional to the input: a 3 MB JSON document is mined (a tree is
/// built) within 768 MiB of address space, and a 6 MB one validated (`parse --quiet`: the
/// chart only) within 768 MiB. Before the chart was collected and nodes packed, parsing took
/// about 250 bytes per input byte, and both died.
#[test]
fn a_large_json_document_parses_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    std::fs::write(&path, json_document(3_000_000)).unwrap();
    let model = dir.path().join("m.model");
    let out = hellfuzz_limited(
        &["mine", "json", path.to_str().unwrap(), "-o", model.to_str().unwrap()],
        768,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains("mined 1 of 1 samples"),
        "{stderr}"
    );
    std::fs::write(&path, json_document(6_000_000)).unwrap();
    let out = hellfuzz_limited(&["parse", "json", path.to_str().unwrap(), "--quiet"], 768);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // And a real error is still found and located.
    let mut broken = json_document(2_000_000);
    let at = broken.len() / 2;
    broken[at] = b'#';
    std::fs::write(&path, &broken).unwrap();
    let out = hellfuzz_limited(&["parse", "json", path.to_str().unwrap(), "--quiet"], 768);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("(byte {at})")), "{stderr}");
}

/// `mine` skips a sample too large to parse comfortably, says why, and mines the others: one
/// big file in a samples folder no longer takes the whole run down.
#[test]
fn mine_skips_a_sample_that_is_too_large_and_mines_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let samples = dir.path().join("samples");
    std::fs::create_dir(&samples).unwrap();
    std::fs::write(samples.join("big.json"), json_document(9 << 20)).unwrap();
    std::fs::write(samples.join("small.json"), b"{\"a\": [1, 2.5, \"x\"]}").unwrap();
    let model = dir.path().join("m.model");
    let out = hellfuzz_limited(
        &["mine", "json", samples.to_str().unwrap(), "-o", model.to_str().unwrap()],
        512,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("big.json") && stderr.contains("more than the limit of 8388608 for a sample"),
        "{stderr}"
    );
    assert!(stderr.contains("mined 1 of 2 samples (1 skipped)"), "{stderr}");
    assert!(model.exists());
}
