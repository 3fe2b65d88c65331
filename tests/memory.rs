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
