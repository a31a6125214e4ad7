//! The speed table, measured in several processes.
//!
//! How fast a stack-local arena is can depend on where it lands relative to a
//! 64-byte cache line. So the parent re-runs this binary as `--child speed I`
//! several times, one after another (never two at once on a two-core machine),
//! and child `I` measures on a thread whose stack is shifted by `16 * (I % 4)`
//! bytes: four processes cover every 16-byte slot. Each child prints its raw
//! samples on stdout. The report's figure for a cell is the median of all
//! samples of all processes; the spread is the range of the per-process medians.
//! A process-wide change of machine speed (frequency, neighbours on a shared
//! host) moves every cell of that process alike, so the range of each cell's
//! per-process *ratio* to the row's fastest is kept too: it shows what placement
//! does to the comparison itself.

use std::io::Write;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::cli::Options;
use crate::harness;
use crate::kernels::Form;
use crate::procs::{self, Pooled};
use crate::progress::{Run, Section};
use crate::rows::{self, Unit};

/// A row, without its samplers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowInfo {
    /// Row name.
    pub name: String,
    /// What is allocated.
    pub what: String,
    /// What one operation is.
    pub unit: Unit,
}

/// Everything measured for one (row, form, contender) cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellResult {
    /// Row name.
    pub row: String,
    /// How the arena was reached.
    pub form: Form,
    /// Contender name.
    pub contender: String,
    /// Its figures (ratios to the fastest contender of the same row, form and process).
    #[serde(flatten)]
    pub pooled: Pooled,
}

impl Deref for CellResult {
    type Target = Pooled;

    fn deref(&self) -> &Pooled {
        &self.pooled
    }
}

/// `(min, max)` of `values`.
pub fn range(values: &[f64]) -> (f64, f64) {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

/// `max / min - 1` of `values`: 0 when they all agree.
pub fn relative_spread(values: &[f64]) -> f64 {
    let (min, max) = range(values);
    if min > 0.0 {
        max / min - 1.0
    } else {
        0.0
    }
}

/// The speed table.
pub type SpeedResults = procs::Measured<RowInfo, CellResult>;

/// Hand-made results for the report's and the charts' unit tests: one process, one
/// sample per cell, every cell at its own median.
#[cfg(test)]
impl SpeedResults {
    pub(crate) fn for_tests(rows: &[&str], cells: &[(&str, Form, &str, f64)]) -> Self {
        SpeedResults {
            rows: rows
                .iter()
                .map(|r| RowInfo { name: (*r).to_owned(), what: "x".to_owned(), unit: crate::rows::Unit::Alloc })
                .collect(),
            cells: cells
                .iter()
                .map(|&(row, form, contender, median_ns)| CellResult {
                    row: row.to_owned(),
                    form,
                    contender: contender.to_owned(),
                    pooled: Pooled::single(median_ns),
                })
                .collect(),
            stack_offsets: vec![0],
            clock_overheads: vec![20.0],
            samples_per_process: 1,
            elapsed: std::time::Duration::ZERO,
        }
    }
}

impl SpeedResults {
    /// Processes the table was measured in.
    pub fn process_count(&self) -> usize {
        self.stack_offsets.len()
    }

    /// The cell for `row`, `form`, `contender`.
    pub fn cell(&self, row: &str, form: Form, contender: &str) -> Option<&CellResult> {
        self.cells.iter().find(|c| c.row == row && c.form == form && c.contender == contender)
    }
}

/// Parent side: runs the children and gathers their samples.
pub fn measure(options: &Options, run: &Run) -> Result<SpeedResults, String> {
    let rows: Vec<RowInfo> = rows::selected(options.filter.as_deref())
        .into_iter()
        .map(|row| RowInfo { name: row.name, what: row.what, unit: row.unit })
        .collect();
    SpeedResults::measure(
        ("speed", Section::Speed),
        rows,
        (options, run),
        |c: RawCell| ((c.row, c.form, c.contender), c.heap_events, c.samples),
        |a, b| a.0 == b.0 && a.1 == b.1,
        |(row, form, contender), pooled| CellResult { row, form, contender, pooled },
    )
}

/// One child's samples of one cell.
#[derive(Serialize, Deserialize)]
struct RawCell {
    row: String,
    form: Form,
    contender: String,
    heap_events: usize,
    samples: Vec<f64>,
}

/// Child side: measures every selected row once and prints raw samples.
///
/// The work runs on a fresh thread whose stack is shifted by `16 * (index % 4)`
/// bytes. A thread's stack starts at the same offset within a page in every
/// process (unlike the main thread's, which the kernel randomises), so with four
/// or more processes every 16-byte slot of a cache line is measured once.
pub fn child_main(options: &Options, index: usize) -> Result<(), String> {
    let options = options.clone();
    let out = on_shifted_stack(index, move || measure_rows(&options))?;
    std::io::stdout().write_all(out.as_bytes()).map_err(|e| format!("writing samples: {e}"))
}

/// Runs `measure` on a fresh thread whose stack is shifted by `16 * (index % 4)`
/// bytes (see [`child_main`]) and returns what it returned.
pub fn on_shifted_stack(index: usize, measure: impl FnOnce() -> String + Send + 'static) -> Result<String, String> {
    let worker = std::thread::Builder::new()
        .name("measure".to_owned())
        .spawn(move || match index % 4 {
            0 => with_stack_shift::<0>(measure),
            1 => with_stack_shift::<16>(measure),
            2 => with_stack_shift::<32>(measure),
            _ => with_stack_shift::<48>(measure),
        })
        .map_err(|e| format!("cannot start the measuring thread: {e}"))?;
    worker.join().map_err(|_| "the measuring thread panicked".to_owned())
}

/// Runs `f` with `PAD` more bytes of this frame on the stack below the caller.
#[inline(never)]
fn with_stack_shift<const PAD: usize>(f: impl FnOnce() -> String) -> String {
    let pad = [0u8; PAD];
    std::hint::black_box(&pad);
    let out = f();
    // Keeps `pad` live across the call, so its space cannot be reused.
    std::hint::black_box(&pad);
    out
}

/// Measures every selected row and returns the lines for the parent.
#[inline(never)]
fn measure_rows(options: &Options) -> String {
    let rows = rows::selected(options.filter.as_deref());
    procs::child_samples(options, |clock, plan| {
        let mut cells = Vec::new();
        for row in &rows {
            let (labels, mut samplers): (Vec<_>, Vec<_>) =
                row.cells().into_iter().map(|cell| ((cell.contender, cell.form), cell.sampler)).unzip();
            let results = harness::run_interleaved(&mut samplers, clock, plan);
            for ((contender, form), samples) in labels.into_iter().zip(results) {
                cells.push(RawCell {
                    row: row.name.clone(),
                    form,
                    contender: contender.to_owned(),
                    heap_events: samples.iter().filter(|s| s.heap_calls != 0).count(),
                    samples: samples.iter().map(|s| procs::four_decimals(s.ns_per_op)).collect(),
                });
            }
        }
        cells
    })
}
