//! Embeds the shipped grammars (grammars/NAME.grammar) and their samples (seeds/NAME/*) in the
//! library, so `hellfuzz gen json` works from any directory after `cargo install`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    sanitizer_cfg();
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let grammars_dir = root.join("grammars");
    let seeds_dir = root.join("seeds");
    println!("cargo:rerun-if-changed={}", grammars_dir.display());
    println!("cargo:rerun-if-changed={}", seeds_dir.display());

    let mut out = String::new();
    out.push_str("/// (name, grammar text) of every shipped grammar, sorted by name.\n");
    out.push_str("pub(crate) static GRAMMARS: &[(&str, &str)] = &[\n");
    let names = sorted_files(&grammars_dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "grammar"))
        .map(|p| {
            println!("cargo:rerun-if-changed={}", p.display());
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            writeln!(out, "    ({name:?}, include_str!({:?})),", p.display().to_string()).unwrap();
            name
        })
        .collect::<Vec<_>>();
    out.push_str("];\n\n");

    out.push_str("/// (file name, bytes) of one sample.\npub(crate) type Sample = (&'static str, &'static [u8]);\n\n");
    out.push_str("/// (grammar name, samples) of the shipped samples, sorted by name.\n");
    out.push_str("pub(crate) static SAMPLES: &[(&str, &[Sample])] = &[\n");
    for name in &names {
        let dir = seeds_dir.join(name);
        println!("cargo:rerun-if-changed={}", dir.display());
        writeln!(out, "    ({name:?}, &[").unwrap();
        for file in sorted_files(&dir) {
            println!("cargo:rerun-if-changed={}", file.display());
            let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
            writeln!(
                out,
                "        ({file_name:?}, include_bytes!({:?})),",
                file.display().to_string()
            )
            .unwrap();
        }
        out.push_str("    ]),\n");
    }
    out.push_str("];\n");

    let dest = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("builtin.rs");
    fs::write(dest, out).expect("write builtin.rs");
}

fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// `cfg(hellfuzz_sanitizer)` when the crate is built with a sanitizer (`-Zsanitizer=` or
/// `-Csanitizer=` among the flags, as `cargo fuzz build` passes them): the deadly-signal handler
/// then leaves the stack to the sanitizer. Looking its runtime up at run time (`dlsym`) finds
/// nothing in an executable, which does not export the runtime's symbols.
fn sanitizer_cfg() {
    println!("cargo:rustc-check-cfg=cfg(hellfuzz_sanitizer)");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let mut previous = "";
    for flag in flags.split('\x1f') {
        // `-Zsanitizer=address`, or `-Z` then `sanitizer=address`.
        let value = flag
            .strip_prefix("-Z")
            .or_else(|| flag.strip_prefix("-C"))
            .or(["-Z", "-C"].contains(&previous).then_some(flag));
        if value.is_some_and(|v| v.starts_with("sanitizer=") && v != "sanitizer=") {
            println!("cargo:rustc-cfg=hellfuzz_sanitizer");
            return;
        }
        previous = flag;
    }
}
