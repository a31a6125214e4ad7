//! Real programs that no one here wrote, under other allocators: LLVM's FileCheck (seed
//! 001's torture run), clang, gcc, jq, python3, sort, git, xz and sqlite3 with
//! `LD_PRELOAD` of glibc (none), mimalloc, jemalloc and `libbumpdown_malloc.so`; and
//! Rust programs (serde_json, and with `--full` a `syn` parse) built with the system
//! allocator, mimalloc and `BumpGlobal`.
//!
//! The measuring is done by the repository's own scripts
//! (`crates/bumpdown-malloc/bench/preload.sh`, `crates/bumpdown-global/json-bench/bench.sh`),
//! which run the allocators interleaved and print markdown tables; this section runs them
//! and keeps their tables. A program that is not installed is reported as skipped.

use std::path::PathBuf;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::cli::{Effort, Options};
use crate::progress::{Run, Section};

/// What the scripts printed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Programs {
    /// Interleaved rounds per program.
    pub rounds: usize,
    /// The programs run under `LD_PRELOAD` (a subset in quick mode).
    pub preload_programs: String,
    /// The tables (and skip lines) the two scripts printed, in order.
    pub output: String,
}

/// Whether the options select this section.
pub fn selected(options: &Options) -> bool {
    options.selects("programs")
}

/// The repository root: this crate's manifest directory, two levels down.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs one script and returns its standard output. `programs` picks what it runs (the
/// preload script's `PRELOAD_PROGRAMS`, the Rust programs' `JSON_BENCH_WORKLOADS`).
fn run_script(script: &str, rounds: usize, programs: &str) -> Result<String, String> {
    let path = root().join(script);
    let output = Command::new("sh")
        .arg(&path)
        .arg(rounds.to_string())
        .env("PRELOAD_PROGRAMS", programs)
        .env("JSON_BENCH_WORKLOADS", programs)
        .output()
        .map_err(|err| format!("cannot run {}: {err}", path.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed ({}): {}",
            path.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Runs both scripts: FileCheck only and two interleaved rounds in quick mode (within the
/// three-minute budget; one round alone swung by 40% with the host's load), every program
/// and three rounds with `--full` (about five minutes).
pub fn measure(options: &Options, run: &Run) -> Result<Programs, String> {
    let (rounds, preload_programs, rust_programs) = match options.effort {
        Effort::Quick => (2, "FileCheck", "json"),
        Effort::Full => (3, "FileCheck clang gcc jq python sort git xz sqlite sqlite-file", "json syn"),
    };
    run.section(Section::Preload, 1);
    run.step(&format!("{preload_programs}, {rounds} rounds (crates/bumpdown-malloc/bench/preload.sh)"));
    let mut output = run_script("crates/bumpdown-malloc/bench/preload.sh", rounds, preload_programs)?;
    run.section(Section::Json, 1);
    run.step(&format!("{rust_programs}, {rounds} rounds (crates/bumpdown-global/json-bench/bench.sh)"));
    output.push('\n');
    output.push_str(&run_script("crates/bumpdown-global/json-bench/bench.sh", rounds, rust_programs)?);
    Ok(Programs { rounds, preload_programs: preload_programs.to_owned(), output })
}
