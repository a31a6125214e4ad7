//! Re-running this binary as a child process.
//!
//! Children keep measurements apart: each speed-table run gets its own stack
//! placement, and each seed-004 contender its own heap and peak-RSS counter.

use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::progress::Run;

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
