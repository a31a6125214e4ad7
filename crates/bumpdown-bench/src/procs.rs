//! Re-running this binary as a child process.
//!
//! Children keep measurements apart: each speed-table run gets its own stack
//! placement, and each seed-004 contender its own heap and peak-RSS counter. The speed
//! and scope tables share one child ([`child_main`]) and one parent ([`Measured::measure`]).

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::cli::Options;
use crate::harness::{self, Clock, Plan, Sampler};
use crate::progress::{Phase, Run};

/// What a measuring child (speed or scope tables) prints for its parent, as JSON
/// (`serde_json::to_string`).
#[derive(Serialize, Deserialize)]
pub struct ChildSamples<K> {
    /// Where the child's measuring stack started in its page (the address modulo 4096).
    pub stack_offset: usize,
    /// The child's clock overhead (ns), taken off every sample.
    pub clock_overhead_ns: f64,
    /// Each cell's samples.
    pub cells: Vec<RawCell<K>>,
}

/// One child's samples of one cell.
#[derive(Serialize, Deserialize)]
pub struct RawCell<K> {
    /// The cell's row and column.
    pub key: K,
    /// Samples whose timed region called the heap.
    pub heap_events: usize,
    /// Every sample, ns per operation.
    pub samples: Vec<f64>,
}

/// The child side of a table (`child KIND I`): measures the `rows` that `options`
/// select, one after another, each row's `cells` (key and sampler) taking turns sample
/// by sample, and prints their [`ChildSamples`] for the parent.
///
/// The work runs on a fresh thread whose stack is shifted by [`stack_shift`]`(index)`
/// bytes (see [`on_shifted_stack`]), with [`this_block_offset`] set for `index`.
pub fn child_main<R: 'static, K: Serialize + 'static>(
    options: &Options,
    index: usize,
    rows: fn(&Options) -> Vec<R>,
    cells: fn(&R) -> Vec<(K, Sampler)>,
) -> Result<(), String> {
    let options = options.clone();
    BLOCK_OFFSET.store(block_offset(index), Ordering::Relaxed);
    let out = on_shifted_stack(index, move || measure_rows(&options, rows, cells))?;
    std::io::stdout().write_all(out.as_bytes()).map_err(|e| format!("writing samples: {e}"))
}

/// How far apart, in bytes, the stacks of consecutive measuring processes start.
///
/// Where a value's bytes sit against the block they are copied to decides how fast the
/// copy is, by up to 2x, for every allocator alike: measured on the 2-core AMD EPYC VM,
/// a fresh arena taking 100,000 copies of 1 KiB ran at 38–50 ns each, but at 82–109 ns
/// whenever the block started 0 to about 240 bytes past the source, modulo 1 KiB
/// (bumpdown and bump-scope both; the source slid across a page in 64-byte steps). The
/// values the speed tables copy are on the stack, so one stack placement for every
/// process would decide a row by where that placement falls for each contender's
/// blocks. `784` is 16 more than a multiple of 64, and its multiples spread over a 4 KiB
/// page: four consecutive processes cover the four 16-byte slots of a cache line (where
/// a stack-local arena's fields land), and of eight, at most three fall in any 256-byte
/// stretch of a 1 KiB period, so a row's median over the processes is the common
/// placement's, and its spread shows the rest.
pub const STACK_STEP: usize = 784;

/// The stack shift of measuring process `index`: `index * STACK_STEP` modulo 4 KiB.
pub const fn stack_shift(index: usize) -> usize {
    index * STACK_STEP % 4096
}

/// How many bytes the speed table's timed batches of measuring process `index` allocate
/// (untimed) before their first block: 0, 16, 32 or 48, each for a quarter of the
/// processes, in another order than the stack's 16-byte slots.
///
/// Where a block starts in its cache line changes how fast a run of same-sized values
/// is stored, by up to 1.4x, and differently for each size: on the 2-core AMD EPYC VM,
/// 64-byte values through `&Arena` took 1.57 ns at offsets 0 and 32 and 1.40 ns at 16
/// and 48; 256-byte values 3.40 ns at 0 and 4.83 ns at 16 (128-byte ones: the same at
/// every offset). A run of one size keeps the offset its first block had, and after a
/// reset that is fixed by the arena's own header, so without this a contender's rows
/// for such sizes would be decided by its header size. Real programs mix sizes, and
/// their blocks land at every offset.
pub const fn block_offset(index: usize) -> usize {
    16 * ((index + index / 4) % 4)
}

/// [`block_offset`] of this process (0 outside a speed or scope child).
pub fn this_block_offset() -> usize {
    BLOCK_OFFSET.load(Ordering::Relaxed)
}

/// Set once by [`child_main`], before the measuring starts.
static BLOCK_OFFSET: AtomicUsize = AtomicUsize::new(0);

/// Runs `f` on a new thread, `stack_shift(index)` bytes further down its stack than
/// where the thread starts, and returns what `f` returns. A new thread's stack starts at
/// the same offset within a page in every process (unlike the main thread's, which the
/// kernel randomises), so the shift alone decides where the work's stack lies in its
/// page: the same place in every run for the same index. Indices 16 apart share a shift.
pub fn on_shifted_stack(index: usize, f: impl FnOnce() -> String + Send + 'static) -> Result<String, String> {
    macro_rules! shifted {
        ($($i:literal)*) => {
            match index % 16 {
                $($i => with_stack_shift::<{ stack_shift($i) }>(f),)*
                _ => unreachable!("an index modulo 16"),
            }
        };
    }
    std::thread::Builder::new()
        .name("measure".to_owned())
        .spawn(move || shifted!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15))
        .map_err(|e| format!("cannot start the measuring thread: {e}"))?
        .join()
        .map_err(|_| "the measuring thread panicked".to_owned())
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

/// The measuring of [`child_main`]: notes where the stack starts, spins the clock up,
/// calibrates it, takes every cell's samples with the effort's plan and returns the
/// [`ChildSamples`] as JSON.
#[inline(never)]
fn measure_rows<R, K: Serialize>(
    options: &Options,
    rows: fn(&Options) -> Vec<R>,
    cells: fn(&R) -> Vec<(K, Sampler)>,
) -> String {
    let plan = Plan { warmup: options.effort.warmup(), samples: options.effort.samples() };
    let marker = 0u8;
    let stack_offset = std::hint::black_box(&marker) as *const u8 as usize % 4096;
    harness::spin(Duration::from_millis(300));
    let clock = Clock::calibrate();
    let mut raw = Vec::new();
    for row in rows(options) {
        let (keys, mut samplers): (Vec<K>, Vec<Sampler>) = cells(&row).into_iter().unzip();
        for (key, samples) in keys.into_iter().zip(harness::run_interleaved(&mut samplers, &clock, plan)) {
            let heap_events = samples.iter().filter(|s| s.heap_calls != 0).count();
            raw.push(RawCell {
                key,
                heap_events,
                samples: samples.iter().map(|s| four_decimals(s.ns_per_op)).collect(),
            });
        }
    }
    let samples = ChildSamples { stack_offset, clock_overhead_ns: clock.overhead_ns(), cells: raw };
    serde_json::to_string(&samples).expect("samples serialize")
}

/// A table measured in child processes (the speed table, the scope tables): its rows,
/// its cells pooled over the processes, and how the processes ran.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measured<R, C> {
    /// Measured rows, in order.
    pub rows: Vec<R>,
    pub cells: Vec<C>,
    /// Each process's stack address modulo 4096 (its offset in a page) at the start of
    /// measuring.
    pub stack_offsets: Vec<usize>,
    /// Each process's measured clock overhead (ns), taken off every sample.
    pub clock_overheads: Vec<f64>,
    /// Recorded samples per cell and process.
    pub samples_per_process: usize,
    /// Wall time of the whole table.
    pub elapsed: Duration,
}

impl<R, C> Measured<R, C> {
    /// Processes the table was measured in.
    pub fn process_count(&self) -> usize {
        self.stack_offsets.len()
    }

    /// Runs `child KIND I` for every process `I` of `options`, one after another, and
    /// [`pool`]s their samples; `cell` makes the table's cell of a key and its figures.
    pub fn measure<K: DeserializeOwned + PartialEq>(
        (kind, section): (&str, Phase),
        rows: Vec<R>,
        (options, run): (&Options, &Run),
        same_row: impl Fn(&K, &K) -> bool,
        cell: impl Fn(K, Pooled) -> C,
    ) -> Result<Self, String> {
        let started = Instant::now();
        let processes = options.processes();
        run.section(section, processes);
        let children = (0..processes)
            .map(|index| {
                run.step(&format!("processes of {} rows", rows.len()));
                run_child::<ChildSamples<K>>(options, &[kind, &index.to_string()], &[], run)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let stack_offsets = children.iter().map(|c| c.stack_offset).collect();
        let clock_overheads = children.iter().map(|c| c.clock_overhead_ns).collect();
        let raw = children
            .into_iter()
            .map(|child| child.cells.into_iter().map(|c| (c.key, c.heap_events, c.samples)).collect())
            .collect();
        let cells = pool(raw, same_row).into_iter().map(|(k, pooled)| cell(k, pooled)).collect();
        let samples_per_process = options.effort.samples();
        Ok(Self { rows, cells, stack_offsets, clock_overheads, samples_per_process, elapsed: started.elapsed() })
    }
}

/// Hand-made results for unit tests: one process, one sample per cell.
#[cfg(test)]
impl<R, C> Measured<R, C> {
    pub(crate) fn one_process(rows: Vec<R>, cells: Vec<C>) -> Self {
        let (stack_offsets, clock_overheads) = (vec![0], vec![20.0]);
        Self { rows, cells, stack_offsets, clock_overheads, samples_per_process: 1, elapsed: Duration::ZERO }
    }
}

/// One cell's samples pooled over the processes: the figures of every cell of the speed
/// and scope tables (stored in the results file beside the cell's row and column).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Pooled {
    /// Median over the samples of all processes, ns per operation.
    pub median_ns: f64,
    /// Median of each process's samples.
    pub process_medians: Vec<f64>,
    /// Each process's median over the fastest of its row's in the same process.
    pub process_ratios: Vec<f64>,
    /// Samples (over all processes) whose timed region called the heap.
    pub heap_events: usize,
    /// Samples over all processes.
    pub samples: usize,
}

#[cfg(test)]
impl Pooled {
    /// One process, one sample at `median_ns`.
    pub(crate) fn single(median_ns: f64) -> Self {
        Pooled { median_ns, process_medians: vec![median_ns], process_ratios: vec![1.0], heap_events: 0, samples: 1 }
    }
}

/// Pools the cells of every process (`raw[process]`, each cell as its key, its heap
/// events and its samples; every process measures the same cells): one entry per key, in
/// first-seen order. A cell's ratios are to the fastest cell that `same_row` groups with it.
pub fn pool<K: PartialEq>(raw: Vec<Vec<(K, usize, Vec<f64>)>>, same_row: impl Fn(&K, &K) -> bool) -> Vec<(K, Pooled)> {
    let mut cells: Vec<(K, Pooled, Vec<f64>)> = Vec::new();
    for (key, heap_events, mut samples) in raw.into_iter().flatten() {
        let median = harness::median(&mut samples);
        let index = match cells.iter().position(|(k, ..)| *k == key) {
            Some(index) => index,
            None => {
                cells.push((key, Pooled::default(), Vec::new()));
                cells.len() - 1
            }
        };
        let (_, pooled, all) = &mut cells[index];
        pooled.process_medians.push(median);
        pooled.heap_events += heap_events;
        all.extend_from_slice(&samples);
    }
    let mut cells: Vec<(K, Pooled)> = cells
        .into_iter()
        .map(|(key, mut pooled, mut all)| {
            pooled.samples = all.len();
            pooled.median_ns = harness::median(&mut all);
            (key, pooled)
        })
        .collect();
    for i in 0..cells.len() {
        let ratios = (0..cells[i].1.process_medians.len())
            .map(|p| {
                let fastest = (cells.iter().filter(|(k, _)| same_row(k, &cells[i].0)))
                    .filter_map(|(_, c)| c.process_medians.get(p))
                    .copied()
                    .fold(f64::INFINITY, f64::min);
                cells[i].1.process_medians[p] / fastest
            })
            .collect();
        cells[i].1.process_ratios = ratios;
    }
    cells
}

/// A sample as the children have always sent it: rounded to 0.1 ps.
pub fn four_decimals(ns: f64) -> f64 {
    format!("{ns:.4}").parse().expect("a formatted f64 parses")
}

/// Runs this executable as child `child` of this run ([`Options::child_args`]), `env`
/// added to its environment, and reads the JSON it printed on stdout. What it printed on
/// stderr goes above the progress line, or into the error if it failed.
pub fn run_child<T: DeserializeOwned>(
    options: &Options,
    child: &[&str],
    env: &[(&str, &str)],
    run: &Run,
) -> Result<T, String> {
    let args = options.child_args(child);
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let output = Command::new(&exe)
        .args(&args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("child {args:?} failed: {}: {}", output.status, stderr.trim()));
    }
    run.println(&stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&stdout).map_err(|e| format!("child {child:?}: cannot read its output: {e}: {stdout:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_shifts_cover_a_cache_line_and_spread_over_a_kilobyte() {
        let slots: Vec<usize> = (0..4).map(|i| stack_shift(i) % 64).collect();
        assert_eq!(slots, [0, 16, 32, 48]);
        // Of eight processes, at most three in any 256-byte stretch of a 1 KiB period.
        let phases: Vec<usize> = (0..8).map(|i| stack_shift(i) % 1024).collect();
        for start in (0..1024).step_by(16) {
            let inside = phases.iter().filter(|&&p| (p + 1024 - start) % 1024 < 256).count();
            assert!(inside <= 3, "{inside} of {phases:?} within 256 bytes from {start}");
        }
        assert!((0..16).all(|i| stack_shift(i) < 4096 && stack_shift(i).is_multiple_of(16)));
    }

    #[test]
    fn block_offsets_take_each_slot_of_a_line_in_every_four_processes() {
        for first in [0, 4, 8] {
            let mut offsets: Vec<usize> = (first..first + 4).map(block_offset).collect();
            offsets.sort_unstable();
            assert_eq!(offsets, [0, 16, 32, 48], "processes {first}..{}", first + 4);
        }
        // Not in step with the stack's slots: eight processes pair them differently.
        let pairs: std::collections::BTreeSet<_> = (0..8).map(|i| (stack_shift(i) % 64, block_offset(i))).collect();
        assert_eq!(pairs.len(), 8);
    }

    #[test]
    fn pools_processes_and_finds_ratios() {
        let cell = |row: &'static str, way: &'static str, x: f64| ((row, way), 0, vec![x, x, x]);
        let first = vec![cell("r", "a", 1.0), cell("r", "b", 2.0), cell("s", "a", 8.0)];
        let second = vec![cell("r", "a", 3.0), cell("r", "b", 3.0), cell("s", "a", 9.0)];
        let cells = pool(vec![first, second], |x, y| x.0 == y.0);
        assert_eq!(cells.len(), 3);
        assert_eq!(cells[0].1.process_medians, [1.0, 3.0]);
        assert_eq!(cells[1].1.process_ratios, [2.0, 1.0]);
        assert_eq!(cells[1].1.samples, 6);
        assert_eq!(cells[0].1.median_ns, 2.0);
        // Alone in its row: its own fastest.
        assert_eq!(cells[2].1.process_ratios, [1.0, 1.0]);
    }
}
