//! Records facts about the build that the report prints in its header: the
//! compiler that built the benchmark and the versions of the peer crates it was
//! linked against (read from the workspace's `Cargo.lock`, which cargo has
//! written before any build script runs).
//!
//! And compiles the C API's fast-path probes (`bumpdown-c`'s
//! `tests/c/probe_fast_path.c`) into the benchmark, twice (as is, and with
//! `BD_NO_NULL_CHECK`), for the report's fast-path section. Without a C compiler the
//! build still succeeds: the `bumpdown_bench_c_probes` cfg is then not set and
//! `BUMPDOWN_BENCH_C_PROBES` says why, where it otherwise names the compiler.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Crates whose resolved version the report names.
const PEERS: [&str; 5] = ["bumpdown", "stumpalo", "bumpalo", "bump-scope", "blink-alloc"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");

    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=BUMPDOWN_BENCH_RUSTC={version}");

    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let versions = match find_lock_file(&manifest_dir) {
        Some(lock) => {
            println!("cargo:rerun-if-changed={}", lock.display());
            let text = std::fs::read_to_string(&lock).unwrap_or_default();
            PEERS
                .iter()
                .map(|name| format!("{name}={}", locked_version(&text, name).unwrap_or("?")))
                .collect::<Vec<_>>()
                .join(";")
        }
        None => String::new(),
    };
    println!("cargo:rustc-env=BUMPDOWN_BENCH_VERSIONS={versions}");

    println!("cargo::rustc-check-cfg=cfg(bumpdown_bench_c_probes)");
    let c_probes = match compile_c_probes(&manifest_dir) {
        Ok(compiler) => {
            println!("cargo:rustc-cfg=bumpdown_bench_c_probes");
            compiler
        }
        Err(why) => {
            println!("cargo:warning=the report's C fast-path columns will be empty: {why}");
            why
        }
    };
    println!("cargo:rustc-env=BUMPDOWN_BENCH_C_PROBES={c_probes}");
}

/// Compiles the C probes into two static libraries linked into the benchmark, and
/// returns the compiler's name and version; or why not.
fn compile_c_probes(manifest_dir: &Path) -> Result<String, String> {
    // The same targets as the counting (fastpath.rs) and the `bumpdown-c` dependency.
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if arch != "x86_64" || os != "linux" {
        return Err("the C probes are built on x86-64 Linux only".to_owned());
    }
    let c_dir = manifest_dir.join("../bumpdown-c");
    let source = c_dir.join("tests/c/probe_fast_path.c");
    let include = c_dir.join("include");
    println!("cargo:rerun-if-changed={}", source.display());
    println!("cargo:rerun-if-changed={}", include.join("bumpdown.h").display());
    let mut build = cc::Build::new();
    // -O2 whatever the profile, as a C program would be built; no frame pointer, which
    // would add two instructions the Rust probes do not have.
    build.file(&source).include(&include).std("c99").opt_level(2).debug(false).force_frame_pointer(false);
    let compiler = build.try_get_compiler().map_err(|e| format!("no C compiler ({e})"))?;
    build.try_compile("bumpdown_bench_c_probes").map_err(|e| format!("the C probes did not compile ({e})"))?;
    build
        .define("BD_NO_NULL_CHECK", None)
        .try_compile("bumpdown_bench_c_probes_nonnull")
        .map_err(|e| format!("the C probes did not compile with BD_NO_NULL_CHECK ({e})"))?;
    let version = compiler
        .to_command()
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_owned))
        .unwrap_or_else(|| compiler.path().display().to_string());
    Ok(format!("{version}, -O2"))
}

/// The nearest `Cargo.lock` at or above the crate: the workspace root's.
fn find_lock_file(start: &Path) -> Option<PathBuf> {
    start.ancestors().map(|dir| dir.join("Cargo.lock")).find(|candidate| candidate.is_file())
}

/// The version of `name` in a `Cargo.lock`: the `version` line that follows its
/// `name` line inside a `[[package]]` block.
fn locked_version<'a>(lock: &'a str, name: &str) -> Option<&'a str> {
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted {
            let version = lines.next()?.trim().strip_prefix("version = \"")?;
            return version.strip_suffix('"');
        }
    }
    None
}
