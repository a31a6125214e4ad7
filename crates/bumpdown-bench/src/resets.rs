//! What each contender's `reset` keeps, observed through the counting heap, and what
//! a `reset` costs as the arena holds more chunks.
//!
//! The crates differ here, and it matters for any workload that fills an arena,
//! resets it and fills it again: an arena that frees chunks on reset has to
//! allocate (and page-fault) them again on the next fill; an arena whose reset walks
//! its chunks pays for each one, every time.

use std::hint::black_box;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::contenders::{self, Contender, Visitor};
use crate::harness::median;
use crate::heap::Snapshot;
use crate::section::{self, prose, Context, Figure, Figures};
use crate::table::grid;
use crate::text::{mib, ns};

/// Bytes put into each arena before the reset.
pub const FILL_BYTES: usize = 8 << 20;
/// Size of each allocation of the fill.
const PIECE: usize = 1024;

/// What one contender's reset kept.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ResetResult {
    pub name: String,
    /// Heap blocks (chunks) and bytes held after the first fill.
    pub filled: (usize, usize),
    /// Heap blocks and bytes held right after `reset`.
    pub kept: (usize, usize),
    /// Heap allocations the second, identical fill needed.
    pub refill_calls: usize,
}

/// Fills, resets and refills every contender.
pub fn measure() -> Vec<ResetResult> {
    struct Probe(Vec<ResetResult>);
    impl Visitor for Probe {
        fn visit<A: Contender>(&mut self) {
            self.0.push(probe::<A>());
        }
    }
    let mut probe = Probe(Vec::new());
    contenders::visit_all(&mut probe);
    probe.0
}

fn probe<A: Contender>() -> ResetResult {
    let piece = [0u8; PIECE];
    let fill = |arena: &A| {
        for _ in 0..FILL_BYTES / PIECE {
            std::hint::black_box(arena.alloc_slice_copy(&piece));
        }
    };
    let held = |base: Snapshot| {
        let now = Snapshot::now();
        (now.live_blocks.saturating_sub(base.live_blocks), now.live_bytes.saturating_sub(base.live_bytes))
    };

    let base = Snapshot::now();
    let mut arena = A::new();
    fill(&arena);
    let filled = held(base);
    arena.reset();
    let kept = held(base);
    let before_refill = Snapshot::now();
    fill(&arena);
    let refill_calls = before_refill.calls_since();
    drop(arena);
    ResetResult { name: A::NAME.to_owned(), filled, kept, refill_calls }
}

/// Chunk counts of the reset-cost table: a `bumpdown` arena whose chunks are capped at
/// [`SMALL_CHUNK`] bytes holds about this many chunks after the row's fill.
pub const CHUNK_COUNTS: [usize; 4] = [1, 10, 100, 1000];
/// The chunk-size cap of the table's own `bumpdown` column.
pub const SMALL_CHUNK: usize = 4096;
/// Size of each allocation of the reset-cost fills: small enough to stay in regular
/// chunks of the capped arena (an eighth of the cap and more goes out of band).
pub const COST_PIECE: usize = 256;
/// Pieces per row and chunk: a 4 KiB chunk, header included, holds fifteen.
const PIECES_PER_CHUNK: usize = 15;

/// One contender's `reset` times across the fills of the reset-cost table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ResetCost {
    pub name: String,
    /// Per row of [`CHUNK_COUNTS`]: heap blocks the arena held after the fill, and the
    /// median time of one `reset`, in nanoseconds.
    pub rows: Vec<(usize, f64)>,
    /// Per row, the relative spread of its reset times (the quartiles': see
    /// [`quartile_spread`](crate::harness::quartile_spread)).
    pub spreads: Vec<f64>,
}

impl ResetCost {
    /// A column from its rows' (blocks, median ns, spread).
    fn new(name: &str, rows: Vec<(usize, f64, f64)>) -> Self {
        let spreads = rows.iter().map(|r| r.2).collect();
        Self { name: name.to_owned(), rows: rows.into_iter().map(|(blocks, ns, _)| (blocks, ns)).collect(), spreads }
    }
}

/// The reset-cost table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ResetCosts {
    /// One entry per column.
    pub columns: Vec<ResetCost>,
    /// Median time of reading the clock twice with nothing between, in nanoseconds:
    /// included in every figure of the table.
    pub clock_ns: f64,
}

/// The bytes each row of the reset-cost table puts into every arena.
pub fn fill_bytes(chunks: usize) -> usize {
    chunks * PIECES_PER_CHUNK * COST_PIECE
}

/// Times `reset` after fills of growing size, for every contender and for a
/// `bumpdown` arena with small chunks (which holds the row's number of chunks).
pub fn measure_cost(samples: usize) -> ResetCosts {
    struct Probe(Vec<ResetCost>, usize);
    impl Visitor for Probe {
        fn visit<A: Contender>(&mut self) {
            let rows = CHUNK_COUNTS.iter().map(|&n| time_reset(A::new(), n, self.1)).collect();
            self.0.push(ResetCost::new(A::NAME, rows));
        }
    }
    let small = ResetCost::new(
        "bumpdown, 4 KiB chunks",
        CHUNK_COUNTS
            .iter()
            .map(|&n| time_reset(bumpdown::Arena::new().with_max_chunk_size(SMALL_CHUNK), n, samples))
            .collect(),
    );
    let mut probe = Probe(vec![small], samples);
    contenders::visit_all(&mut probe);
    ResetCosts { columns: probe.0, clock_ns: crate::harness::Clock::calibrate().overhead_ns() }
}

/// Fills `arena` with the row's bytes and resets it, `samples` times after a warm-up
/// round; returns the heap blocks held after a fill, the median reset time and the
/// times' quartile spread.
fn time_reset<A: Contender>(mut arena: A, chunks: usize, samples: usize) -> (usize, f64, f64) {
    let piece = [0u8; COST_PIECE];
    let pieces = fill_bytes(chunks) / COST_PIECE;
    let mut blocks = 0;
    let mut times = Vec::with_capacity(samples);
    for round in 0..=samples {
        let base = Snapshot::now();
        for _ in 0..pieces {
            black_box(arena.alloc_slice_copy(&piece));
        }
        blocks = Snapshot::now().live_blocks.saturating_sub(base.live_blocks).max(blocks);
        let start = Instant::now();
        black_box(&mut arena).reset();
        let elapsed = start.elapsed();
        if round > 0 {
            times.push(elapsed.as_nanos() as f64);
        }
    }
    // The blocks counted are those the fill added; an arena that keeps its chunks
    // across resets added them on the warm-up round.
    (blocks, median(&mut times), crate::harness::quartile_spread(&times))
}

impl section::Section for Vec<ResetResult> {
    fn markdown(&self, md: &mut String, _: &Context) {
        md.push_str(&prose("resets", &[("mib", &(FILL_BYTES >> 20))]));
        let columns = ["chunks (MiB) after the fill", "kept by `reset`", "chunk allocations for the refill"];
        let lines = self.iter().map(|r| {
            let cells = [format!("{} ({})", r.filled.0, mib(r.filled.1)), format!("{} ({})", r.kept.0, mib(r.kept.1))];
            (r.name.clone(), cells.into_iter().chain([r.refill_calls.to_string()]).map(Some).collect())
        });
        grid(md, "contender", &columns, lines);
    }
}

impl section::Section for ResetCosts {
    fn markdown(&self, md: &mut String, _: &Context) {
        md.push_str(&prose(
            "reset_cost",
            &[("piece", &COST_PIECE), ("chunk_kib", &(SMALL_CHUNK >> 10)), ("clock", &ns(self.clock_ns))],
        ));
        let names: Vec<&str> = self.columns.iter().map(|c| c.name.as_str()).collect();
        let rows = CHUNK_COUNTS.iter().enumerate().map(|(i, &chunks)| {
            let label = format!("{:.1} KiB ({chunks} small chunks)", fill_bytes(chunks) as f64 / 1024.0);
            (
                label,
                self.columns
                    .iter()
                    .map(|c| c.rows.get(i).map(|(blocks, t)| format!("{} ({blocks})", ns(*t))))
                    .collect(),
            )
        });
        grid(md, "fill", &names, rows);
    }

    fn figures(&self, figures: &mut Figures) {
        for column in &self.columns {
            for (i, (&chunks, &(_, ns))) in CHUNK_COUNTS.iter().zip(&column.rows).enumerate() {
                let spread = column.spreads.get(i).copied().unwrap_or(0.0);
                figures.push((format!("reset_cost: {chunks} chunks, {}", column.name), Figure { median: ns, spread }));
            }
        }
    }
}
