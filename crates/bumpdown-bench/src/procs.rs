//! Re-running this binary as a child process.
//!
//! Children keep measurements apart: each speed-table run gets its own stack
//! placement, and each seed-004 contender its own heap and peak-RSS counter.

use std::process::{Command, Stdio};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::cli::Options;
use crate::harness::{self, Clock, Plan};
use crate::progress::{Run, Section};

/// What a measuring child (speed or scope tables) prints for its parent, as JSON
/// (`serde_json::to_string`).
#[derive(Serialize, Deserialize)]
pub struct ChildSamples<C> {
    /// Where the child's measuring stack started, modulo 64.
    pub stack_offset: usize,
    /// The child's clock overhead (ns), taken off every sample.
    pub clock_overhead_ns: f64,
    /// Each cell's samples.
    pub cells: Vec<C>,
}

/// The parent side of a table measured in child processes (the speed and scope tables):
/// runs `--child KIND I` for every process `I` of `options`, one after another, and
/// returns what each printed. `rows` is only for the progress line.
pub fn run_children<C: DeserializeOwned>(
    kind: &str,
    section: Section,
    rows: usize,
    options: &Options,
    run: &Run,
) -> Result<Vec<ChildSamples<C>>, String> {
    let processes = options.processes();
    run.section(section, processes);
    (0..processes)
        .map(|index| {
            run.step(&format!("processes of {rows} rows"));
            let mut args = vec!["--child".to_owned(), kind.to_owned(), index.to_string()];
            args.extend([options.effort.flag().to_owned(), "--processes".to_owned(), processes.to_string()]);
            if let Some(filter) = &options.filter {
                args.extend(["--filter".to_owned(), filter.clone()]);
            }
            let output = run_self(&args, run)?;
            serde_json::from_str(&output).map_err(|e| format!("{kind} child {index}: cannot read its samples: {e}"))
        })
        .collect()
}

/// The child side: notes where the stack starts, spins the clock up, calibrates it,
/// lets `measure` take every cell's samples with the effort's plan, and returns the
/// [`ChildSamples`] as JSON for the parent.
pub fn child_samples<C: Serialize>(options: &Options, measure: impl FnOnce(&Clock, Plan) -> Vec<C>) -> String {
    let plan = Plan { warmup: options.effort.warmup(), samples: options.effort.samples() };
    let marker = 0u8;
    let stack_offset = std::hint::black_box(&marker) as *const u8 as usize % 64;
    harness::spin(std::time::Duration::from_millis(300));
    let clock = Clock::calibrate();
    let cells = measure(&clock, plan);
    let samples = ChildSamples { stack_offset, clock_overhead_ns: clock.overhead_ns(), cells };
    serde_json::to_string(&samples).expect("samples serialize")
}

/// A sample as the children have always sent it: rounded to 0.1 ps.
pub fn four_decimals(ns: f64) -> f64 {
    format!("{ns:.4}").parse().expect("a formatted f64 parses")
}

/// Runs this executable with `args` and returns what it printed on stdout. What it
/// printed on stderr goes above the progress line, or into the error if it failed.
pub fn run_self(args: &[String], run: &Run) -> Result<String, String> {
    run_self_with_env(args, &[], run)
}

/// [`run_self`], with `env` added to the child's environment.
pub fn run_self_with_env(args: &[String], env: &[(&str, &str)], run: &Run) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let output = Command::new(&exe)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("child {args:?} failed: {}: {}", output.status, stderr.trim()));
    }
    run.println(&stderr);
    String::from_utf8(output.stdout).map_err(|_| format!("child {args:?} printed non-UTF-8"))
}
