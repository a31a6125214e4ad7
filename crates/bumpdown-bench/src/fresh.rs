//! The fresh-arena table: stumpalo's own benchmark method (its `benches/comparison.rs`),
//! measured here for every contender.
//!
//! Each sample makes a new arena, performs [`OPS`] operations of one kind and drops
//! the arena, all timed: chunk growth, first touches of fresh memory and freeing are
//! part of what a user of a short-lived arena pays, and what the warm-arena tables
//! leave out. As in stumpalo's benchmark, mimalloc is the global allocator: the
//! children that measure run with [`heap::HEAP_VAR`] set. The `clear` row fills
//! [`CLEAR_BATCH`] new arenas with [`OPS`] `u64`s each (untimed) and times their `reset`s.
//!
//! Several child processes each take every sample; the table shows the median of
//! their medians.

use std::hint::black_box;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::cli::Options;
use crate::contenders::{self, Contender, Visitor};
use crate::harness::median;
use crate::harness::relative_spread;
use crate::heap;
use crate::kernels::{Alloc, Slice, Str, Work};
use crate::procs;
use crate::progress::{Phase, Run};
use crate::rows::Words;
use crate::section::{self, prose, Context, Figure, Figures};
use crate::sources;
use crate::table::grid;
use crate::text::{ns, thousands};

/// Operations per sample, as in stumpalo's benchmark.
pub const OPS: usize = 100_000;
/// Untimed rounds per cell before its samples.
const WARMUP: usize = 2;

/// The rows, in table order: stumpalo's names.
pub const ROWS: [&str; 13] = [
    "alloc_u8",
    "alloc_u32",
    "alloc_u64",
    "alloc_u128",
    "alloc_struct_64",
    "alloc_struct_512",
    "alloc_struct_1k",
    "alloc_slice_u32_128",
    "alloc_slice_u64_64",
    "alloc_slice_u128_32",
    "alloc_str_16",
    "alloc_str_128",
    "clear",
];

/// One cell: the median over processes of each process's median time per operation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FreshCell {
    /// Row name (one of [`ROWS`]).
    pub row: String,
    pub contender: String,
    /// Nanoseconds per operation (per `reset` for `clear`).
    pub ns_per_op: f64,
    /// Each process's median, in the order they ran (what `compare` takes the spread of;
    /// empty in a child's own output).
    #[serde(default)]
    pub process_values: Vec<f64>,
}

/// The whole table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FreshResults {
    /// Every (row, contender) cell of the selected rows.
    pub cells: Vec<FreshCell>,
    /// Processes that measured.
    pub processes: usize,
    /// Samples per cell and process.
    pub samples: usize,
    /// Arenas whose `reset`s one `clear` sample times back to back ([`CLEAR_BATCH`]; 1 in
    /// results files from before it, which timed one `reset` per sample).
    #[serde(default = "one")]
    pub clear_batch: usize,
}

fn one() -> usize {
    1
}

impl FreshResults {
    /// The cell of `row` and `contender`.
    pub fn cell(&self, row: &str, contender: &str) -> Option<&FreshCell> {
        self.cells.iter().find(|c| c.row == row && c.contender == contender)
    }
}

/// How many rows of the table `options` select.
pub fn selected_rows(options: &Options) -> usize {
    ROWS.iter().filter(|row| options.selects(&format!("fresh_{row}"))).count()
}

/// Runs the child processes and gathers the table.
pub fn measure(options: &Options, run: &Run) -> Result<FreshResults, String> {
    let (processes, samples) = (options.effort.fresh_processes(), options.effort.fresh_samples());
    let mut raw = Vec::new();
    run.section(Phase::Fresh, processes);
    for index in 0..processes {
        run.step("processes on a mimalloc heap");
        let env = [(heap::HEAP_VAR, heap::MIMALLOC)];
        let cells: Vec<FreshCell> = procs::run_child(options, &["fresh", &index.to_string()], &env, run)?;
        raw.push(cells.into_iter().map(|c| ((c.row, c.contender), 0, vec![c.ns_per_op])).collect());
    }
    // One value per process and cell: the pooled median is the median of the processes'.
    let cells = procs::pool(raw, |a, b| a.0 == b.0)
        .into_iter()
        .map(|((row, contender), p)| FreshCell {
            row,
            contender,
            ns_per_op: p.median_ns,
            process_values: p.process_medians,
        })
        .collect();
    Ok(FreshResults { cells, processes, samples, clear_batch: CLEAR_BATCH })
}

/// `child fresh I`: measures every selected cell once and prints the cells (JSON), each
/// with its median ns per operation. Measures on a stack shifted as the speed table's
/// process `I` is ([`procs::on_shifted_stack`]): the struct rows copy their value from it.
pub fn child_main(options: &Options, index: usize) -> Result<(), String> {
    if !heap::on_mimalloc() {
        return Err(format!("the fresh-arena child needs {}={}", heap::HEAP_VAR, heap::MIMALLOC));
    }
    struct Child<'o> {
        samples: usize,
        options: &'o Options,
        cells: Vec<FreshCell>,
    }
    impl Visitor for Child<'_> {
        fn visit<A: Contender>(&mut self) {
            for row in ROWS {
                if !self.options.selects(&format!("fresh_{row}")) {
                    continue;
                }
                let ns = cell::<A>(row, self.samples);
                let (row, contender) = (row.to_owned(), A::NAME.to_owned());
                let ns_per_op = procs::four_decimals(ns);
                self.cells.push(FreshCell { row, contender, ns_per_op, process_values: Vec::new() });
            }
        }
    }
    let options = options.clone();
    let out = procs::on_shifted_stack(index, move || {
        let mut child = Child { samples: options.effort.fresh_samples(), options: &options, cells: Vec::new() };
        contenders::visit_all(&mut child);
        serde_json::to_string(&child.cells).expect("cells serialize")
    })?;
    println!("{out}");
    Ok(())
}

/// The median time per operation of one cell.
fn cell<A: Contender>(row: &str, samples: usize) -> f64 {
    match row {
        "alloc_u8" => fresh::<A, _>(Alloc::<u8, 1>(0x5a), samples),
        "alloc_u32" => fresh::<A, _>(Alloc::<u32, 1>(0x5a), samples),
        "alloc_u64" => fresh::<A, _>(Alloc::<u64, 1>(0x5a), samples),
        "alloc_u128" => fresh::<A, _>(Alloc::<u128, 1>(0x5a), samples),
        "alloc_struct_64" => fresh::<A, _>(Alloc::<Words<8>, 1>(Words([0x5a; 8])), samples),
        "alloc_struct_512" => fresh::<A, _>(Alloc::<Words<64>, 1>(Words([0x5a; 64])), samples),
        "alloc_struct_1k" => fresh::<A, _>(Alloc::<Words<128>, 1>(Words([0x5a; 128])), samples),
        "alloc_slice_u32_128" => fresh::<A, _>(Slice(&sources::U32.0[..128]), samples),
        "alloc_slice_u64_64" => fresh::<A, _>(Slice(&sources::U64.0[..64]), samples),
        "alloc_slice_u128_32" => fresh::<A, _>(Slice(&sources::U128.0[..32]), samples),
        "alloc_str_16" => fresh::<A, _>(Str(sources::text(16)), samples),
        "alloc_str_128" => fresh::<A, _>(Str(sources::text(128)), samples),
        "clear" => clear::<A>(samples),
        other => unreachable!("no fresh row {other}"),
    }
}

/// New arena, [`OPS`] steps of `work`, drop: all timed.
#[inline(never)]
fn fresh<A: Contender, W: Work>(work: W, samples: usize) -> f64 {
    let mut times = Vec::with_capacity(samples);
    for round in 0..WARMUP + samples {
        let work = black_box(work);
        let start = Instant::now();
        let arena = A::new();
        for _ in 0..OPS / W::ALLOCS {
            work.step(&arena);
        }
        // Dropped as stumpalo's own benchmark drops it, at the end of its scope. Not
        // through `black_box`: that needs the whole handle in memory at the end, so the
        // compiler keeps every field of it live through the loop, which cost `Arena`
        // (whose handle mirrors its chunk's bounds) 0.4-0.7 ns per `alloc_str` of 128
        // bytes, spilled and reloaded around each `memcpy` call, and cost the peers
        // (whose handles are a pointer or two) nothing.
        drop(arena);
        let ns = start.elapsed().as_nanos() as f64;
        if round >= WARMUP {
            times.push(ns / OPS as f64);
        }
    }
    median(&mut times)
}

/// Arenas a `clear` sample resets, one after the other, under one reading of the clock:
/// a single `reset` takes a few tens of nanoseconds, about the clock's own step on the
/// development VM (one-reset samples came out as 30, 40 or 50 ns and nothing between).
pub const CLEAR_BATCH: usize = 16;

/// [`CLEAR_BATCH`] new arenas, each filled with [`OPS`] `u64`s (untimed), then their
/// `reset`s timed together; nanoseconds per `reset`.
#[inline(never)]
fn clear<A: Contender>(samples: usize) -> f64 {
    let mut times = Vec::with_capacity(samples);
    for round in 0..WARMUP + samples {
        let mut arenas: Vec<A> = (0..CLEAR_BATCH).map(|_| A::new()).collect();
        for arena in &arenas {
            for i in 0..OPS as u64 {
                black_box(arena.alloc(i));
            }
        }
        let start = Instant::now();
        for arena in &mut arenas {
            black_box(arena).reset();
        }
        let ns = start.elapsed().as_nanos() as f64;
        drop(arenas);
        if round >= WARMUP {
            times.push(ns / CLEAR_BATCH as f64);
        }
    }
    median(&mut times)
}

/// What a `clear` sample timed, for the table's description.
fn clear_what(batch: usize) -> String {
    if batch == 1 {
        format!("one `reset` of a new arena holding {} `u64`s", thousands(OPS))
    } else {
        format!(
            "the `reset`s of {batch} new arenas, each holding {} `u64`s, one after the other under one \
             reading of the clock (a single `reset` is about the clock's step); ns per `reset`",
            thousands(OPS)
        )
    }
}

impl section::Section for FreshResults {
    fn markdown(&self, md: &mut String, _: &Context) {
        md.push_str(&prose(
            "fresh",
            &[
                ("ops", &thousands(OPS)),
                ("clear", &clear_what(self.clear_batch)),
                ("processes", &self.processes),
                ("samples", &self.samples),
            ],
        ));
        let names = contenders::names();
        let rows = ROWS.iter().filter_map(|row| {
            let cells: Vec<Option<f64>> = names.iter().map(|name| self.cell(row, name).map(|c| c.ns_per_op)).collect();
            let best = cells.iter().flatten().copied().reduce(f64::min)?.max(f64::MIN_POSITIVE);
            Some((
                row.to_string(),
                cells.iter().map(|c| c.map(|t| format!("{:.2}x ({} ns)", t / best, ns(t)))).collect(),
            ))
        });
        grid(md, "case", &names, rows);
    }

    fn figures(&self, figures: &mut Figures) {
        for c in &self.cells {
            let spread = relative_spread(&c.process_values);
            figures.push((format!("fresh: {}, {}", c.row, c.contender), Figure { median: c.ns_per_op, spread }));
        }
    }
}
