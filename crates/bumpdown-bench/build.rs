//! Records facts about the build that the report prints in its header: the
//! compiler that built the benchmark and the versions of the peer crates it was
//! linked against (read from the workspace's `Cargo.lock`, which cargo has
//! written before any build script runs).

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
