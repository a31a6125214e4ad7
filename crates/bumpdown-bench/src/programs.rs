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

use std::fmt::Write;
use std::path::PathBuf;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::cli::{Effort, Options};
use crate::harness::relative_spread;
use crate::progress::{Phase, Run};
use crate::section::{self, prose, Context, Figure, Figures};

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
/// and three rounds with `--full` (about five minutes); `--rounds` sets the rounds.
pub fn measure(options: &Options, run: &Run) -> Result<Programs, String> {
    let (rounds, preload_programs, rust_programs) = match options.effort {
        Effort::Quick => (2, "FileCheck", "json"),
        Effort::Full => (3, "FileCheck clang gcc jq python sort git xz sqlite sqlite-file", "json syn"),
    };
    let rounds = options.rounds.map_or(rounds, usize::from);
    run.section(Phase::Preload, 1);
    run.step(&format!("{preload_programs}, {rounds} rounds (crates/bumpdown-malloc/bench/preload.sh)"));
    let mut output = run_script("crates/bumpdown-malloc/bench/preload.sh", rounds, preload_programs)?;
    run.section(Phase::Json, 1);
    run.step(&format!("{rust_programs}, {rounds} rounds (crates/bumpdown-global/json-bench/bench.sh)"));
    output.push('\n');
    output.push_str(&run_script("crates/bumpdown-global/json-bench/bench.sh", rounds, rust_programs)?);
    Ok(Programs { rounds, preload_programs: preload_programs.to_owned(), output })
}

impl section::Section for Programs {
    fn markdown(&self, md: &mut String, _: &Context) {
        md.push_str(&prose("programs", &[("rounds", &self.rounds), ("programs", &self.preload_programs)]));
        for line in self.output.lines() {
            let _ = writeln!(md, "{line}");
        }
        md.push('\n');
    }

    fn figures(&self, figures: &mut Figures) {
        for p in program_rows(&self.output) {
            let spread = relative_spread(&[p.wall_min, p.wall_max]);
            figures.push((
                format!("programs: {}, {}, wall s", p.program, p.allocator),
                Figure { median: p.wall_s, spread },
            ));
            let rss = Figure { median: p.rss_mib, spread: 0.0 };
            figures.push((format!("programs: {}, {}, peak RSS MiB", p.program, p.allocator), rss));
        }
    }
}

/// One measured row of the real programs' tables (`crates/bumpdown-malloc/bench/run.py`'s
/// columns: program, allocator, wall median s, wall spread `min..max` s, CPU median s,
/// CPU spread s, peak RSS MiB, ...). Only the median peak RSS is stored, so `compare`
/// gives it no spread of its own: `compare`'s floor alone.
#[derive(Clone, Debug, PartialEq)]
struct ProgramRow {
    program: String,
    allocator: String,
    wall_s: f64,
    wall_min: f64,
    wall_max: f64,
    rss_mib: f64,
}

/// The measured rows of the tables in `output` (header, rule and skipped rows are not).
fn program_rows(output: &str) -> Vec<ProgramRow> {
    output
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.strip_prefix('|')?.split('|').map(str::trim).collect();
            let (min, max) = cells.get(3)?.split_once("..")?;
            Some(ProgramRow {
                program: cells[0].to_owned(),
                allocator: cells[1].to_owned(),
                wall_s: cells[2].parse().ok()?,
                wall_min: min.parse().ok()?,
                wall_max: max.parse().ok()?,
                rss_mib: cells.get(6)?.parse().ok()?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "\
| FileCheck | allocator | wall median s | wall spread s | CPU median s | CPU spread s | peak RSS MiB | x |
|---|---|---|---|---|---|---|---|
| FileCheck | bumpdown | 1.500 | 1.500..1.650 | 1.0 | 1.0..1.0 | 40.0 | 1.000x |
| FileCheck | mimalloc | skipped: not installed | — | — | — | — | — |
";

    #[test]
    fn program_tables_are_read_from_the_stored_output() {
        let rows = program_rows(OUTPUT);
        assert_eq!(
            rows,
            [ProgramRow {
                program: "FileCheck".to_owned(),
                allocator: "bumpdown".to_owned(),
                wall_s: 1.5,
                wall_min: 1.5,
                wall_max: 1.65,
                rss_mib: 40.0,
            }]
        );
    }
}
