//! The "Scopes and temporary memory" section: three small tables whose columns are
//! ways of doing the same work (a scope handle, an arena used directly, a peer's
//! scope, a heap `Vec`, a stack array) rather than the speed table's contenders.
//!
//! Measured like the speed table: the parent re-runs this binary as `--child scopes I`
//! for each process, one after another, each on a stack shifted by `16 * (I % 4)`
//! bytes; every cell of a row takes its samples in rotating rounds after a warm-up;
//! the figure is the median of all samples of all processes.

use std::hint::black_box;
use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::bumper;
use crate::cli::Options;
use crate::collection_kernels as ck;
use crate::harness::{self, Sampler};
use crate::kernels::{self, Alloc, Form};
use crate::procs::{self, Pooled};
use crate::progress::{Run, Section};
use crate::scope_kernels::{self as sk, boxed, timed};
use crate::speed;
use crate::text::thousands;

/// Allocations per sample in the loop rows (as in the speed table's small rows).
pub const LOOP_ITERS: usize = 10_000;
/// Scopes entered per sample in the enter / exit row.
pub const ENTER_ITERS: usize = 1_000;
/// Calls per sample in the Bumper row.
pub const BUMPER_ITERS: usize = 1_000;

/// The tables of the section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Table {
    /// One scope, a loop of allocations in it.
    Loop,
    /// Enter a scope, allocate a few values, leave.
    EnterExit,
    /// Bumper.jl's temporary-array function.
    Bumper,
    /// Build a string or a vector in an arena, then reset it.
    Collections,
}

/// One column of a table.
#[derive(Clone, Copy, Debug)]
pub struct Way {
    /// Name in the child protocol and the JSON.
    pub key: &'static str,
    /// Column title in the report.
    pub title: &'static str,
}

const fn way(key: &'static str, title: &'static str) -> Way {
    Way { key, title }
}

const LOOP_WAYS: [Way; 7] = [
    way("bumpdown_scope", "bumpdown `Scope`"),
    way("bumpdown_arena_ref", "bumpdown `&Arena`"),
    way("bumpdown_arena_local", "bumpdown local `Arena`"),
    way("stumpalo_with_scope", "stumpalo `with_scope`"),
    way("bump_scope_scoped", "bump-scope `scoped`"),
    // The two crates that can keep the bump pointer aligned, so that an 8-byte
    // allocation needs no rounding step (stumpalo has no such setting).
    way("bumpdown_scope_align8", "bumpdown `Scope`, `Arena<8>`"),
    way("bump_scope_scoped_align8", "bump-scope `scoped`, `MIN_ALIGN` 8"),
];

const ENTER_WAYS: [Way; 5] = [
    way("bumpdown_scope", "bumpdown `scope`"),
    way("bumpdown_scope_guard", "bumpdown `scope_guard`"),
    way("bumpdown_scratch", "bumpdown `scratch`"),
    way("stumpalo_with_scope", "stumpalo `with_scope`"),
    way("bump_scope_scoped", "bump-scope `scoped`"),
];

/// The Bumper table's reference column: ratios to it are shown as well.
pub const STACK_ARRAY: &str = "stack_array";

const COLLECTION_WAYS: [Way; 4] = [
    way("bumpdown_collections", "bumpdown `collections`"),
    way("bumpalo_collections", "bumpalo `collections`"),
    way("api2_bumpalo", "`allocator_api2` `Vec` on `&bumpalo::Bump`"),
    way("api2_bumpdown", "`allocator_api2` `Vec` on `&bumpdown::Arena`"),
];

const BUMPER_WAYS: [Way; 5] = [
    way("vec", "heap `Vec`"),
    way("bumpdown_scratch", "bumpdown `scratch`"),
    way("bumpdown_arena_scope", "bumpdown `arena.scope`"),
    way(STACK_ARRAY, "stack `[i64; 30]`"),
    // The floor: what the computation costs with memory that costs nothing.
    way("work_alone", "the work alone (uninitialized stack)"),
];

impl Table {
    /// Every table, in report order.
    pub const ALL: [Table; 4] = [Table::Loop, Table::EnterExit, Table::Bumper, Table::Collections];

    /// Heading in the report.
    pub fn title(self) -> &'static str {
        match self {
            Table::Loop => "Allocation loop through a scope handle",
            Table::EnterExit => "Scope enter / allocate / exit",
            Table::Bumper => "The Bumper.jl workload: a temporary array of 30 `i64`",
            Table::Collections => "Collections in an arena: build, then reset",
        }
    }

    /// The columns, in order.
    pub fn ways(self) -> &'static [Way] {
        match self {
            Table::Loop => &LOOP_WAYS,
            Table::EnterExit => &ENTER_WAYS,
            Table::Bumper => &BUMPER_WAYS,
            Table::Collections => &COLLECTION_WAYS,
        }
    }

    /// What one operation is.
    pub fn unit(self) -> &'static str {
        match self {
            Table::Loop => "ns per allocation",
            Table::EnterExit => "ns per scope",
            Table::Bumper => "ns per call",
            Table::Collections => "ns per build + reset",
        }
    }
}

/// One row: a name for `--list` / `--filter`, and how to build its samplers.
pub struct Row {
    /// Name.
    pub name: &'static str,
    /// What one operation does, in words.
    pub what: String,
    /// The table it belongs to.
    pub table: Table,
    build: fn() -> Vec<(&'static str, Sampler)>,
}

/// Every row, in report order.
pub fn all() -> Vec<Row> {
    vec![
        Row {
            name: "scope_loop_u64",
            what: format!("{} `alloc` of `u64` in one scope", thousands(LOOP_ITERS)),
            table: Table::Loop,
            build: || loop_cells(0x5a5a_5a5a_5a5a_5a5au64),
        },
        Row {
            name: "scope_loop_u8",
            what: format!("{} `alloc` of `u8` in one scope", thousands(LOOP_ITERS)),
            table: Table::Loop,
            build: || loop_cells(0x5au8),
        },
        Row {
            name: "scope_loop_u64_checksum",
            what: format!(
                "{} `alloc` of `u64` in one scope, addresses summed instead of `black_box`ed",
                thousands(LOOP_ITERS)
            ),
            table: Table::Loop,
            build: checksum_loop_cells,
        },
        Row {
            name: "scope_enter_exit",
            what: format!("enter a scope, {} `alloc` of `u64`, exit", sk::PER_SCOPE),
            table: Table::EnterExit,
            build: enter_exit_cells,
        },
        Row {
            name: "bumper_30_i64",
            what: format!("temporary of {} `i64` = input + 1, then its sum", bumper::LEN),
            table: Table::Bumper,
            build: bumper_cells,
        },
        Row {
            name: "string_build",
            what: format!(
                "`String::new_in`, `push_str` of 1 to 16-byte pieces up to {} bytes, `reset`",
                thousands(ck::STRING_BYTES)
            ),
            table: Table::Collections,
            build: string_build_cells,
        },
        Row {
            name: "vec_push",
            what: format!("`Vec::new_in`, {} `push` of `u64`, `reset`", thousands(ck::VEC_LEN)),
            table: Table::Collections,
            build: vec_push_cells,
        },
    ]
}

/// The rows whose name contains `filter` (all rows without one).
pub fn selected(filter: Option<&str>) -> Vec<Row> {
    all().into_iter().filter(|row| filter.is_none_or(|f| row.name.contains(f))).collect()
}

/// The loop row for `value`'s type. The two direct-arena columns are the speed
/// table's `Ref` and `Local` cells of bumpdown: the same loop without a scope.
fn loop_cells<T: Copy + 'static>(value: T) -> Vec<(&'static str, Sampler)> {
    let work = Alloc::<T, 1>(value);
    let bytes = kernels::capacity_for(&work, LOOP_ITERS);
    let n = LOOP_ITERS;
    let mut cells = scope_loop_cells::<T, false>(value, bytes);
    cells.insert(1, ("bumpdown_arena_ref", kernels::sampler::<bumpdown::Arena, _>(Form::Ref, work, n)));
    cells.insert(2, ("bumpdown_arena_local", kernels::sampler::<bumpdown::Arena, _>(Form::Local, work, n)));
    cells
}

/// The loop row with one store per allocation (see `scope_kernels`); the direct-arena
/// columns have no such variant.
fn checksum_loop_cells() -> Vec<(&'static str, Sampler)> {
    let value = 0x5a5a_5a5a_5a5a_5a5au64;
    let bytes = kernels::capacity_for(&Alloc::<u64, 1>(value), LOOP_ITERS);
    scope_loop_cells::<u64, true>(value, bytes)
}

/// The scope columns of a loop row: each crate's scope over an arena of `bytes`.
fn scope_loop_cells<T: Copy + 'static, const CHECKSUM: bool>(value: T, bytes: usize) -> Vec<(&'static str, Sampler)> {
    let n = LOOP_ITERS;
    let mut bumpdown = boxed::<bumpdown::Arena>(bytes);
    let mut stumpalo = boxed::<stumpalo::Arena>(bytes);
    let mut bump_scope = boxed::<bump_scope::Bump>(bytes);
    // With the pointer kept 8-aligned, every allocation takes at least 8 bytes.
    let bytes8 = bytes.max(8 * n + 4096);
    let mut bumpdown8 = Box::new(bumpdown::Arena::<8>::with_capacity_in(bytes8, bumpdown::Global));
    let layout = std::alloc::Layout::from_size_align(bytes8, 16).expect("small capacity");
    let mut bump_scope8 = Box::new(sk::BumpScopeAligned::<8>::with_capacity(layout));
    vec![
        (
            "bumpdown_scope",
            timed(n, n, move |n| sk::loop_bumpdown_scope::<_, CHECKSUM, 1>(&mut bumpdown, n, black_box(value))),
        ),
        (
            "stumpalo_with_scope",
            timed(n, n, move |n| sk::loop_stumpalo_scope::<_, CHECKSUM>(&mut stumpalo, n, black_box(value))),
        ),
        (
            "bump_scope_scoped",
            timed(n, n, move |n| sk::loop_bump_scope_scoped::<_, CHECKSUM, 1>(&mut bump_scope, n, black_box(value))),
        ),
        (
            "bumpdown_scope_align8",
            timed(n, n, move |n| sk::loop_bumpdown_scope::<_, CHECKSUM, 8>(&mut bumpdown8, n, black_box(value))),
        ),
        (
            "bump_scope_scoped_align8",
            timed(n, n, move |n| sk::loop_bump_scope_scoped::<_, CHECKSUM, 8>(&mut bump_scope8, n, black_box(value))),
        ),
    ]
}

fn enter_exit_cells() -> Vec<(&'static str, Sampler)> {
    let n = ENTER_ITERS;
    let value = 0x5a5a_5a5a_5a5a_5a5au64;
    let mut scope = boxed::<bumpdown::Arena>(4096);
    let mut guard = boxed::<bumpdown::Arena>(4096);
    let mut stumpalo = boxed::<stumpalo::Arena>(4096);
    let mut bump_scope = boxed::<bump_scope::Bump>(4096);
    vec![
        ("bumpdown_scope", timed(n, n, move |n| sk::enter_bumpdown_scope(&mut scope, n, black_box(value)))),
        ("bumpdown_scope_guard", timed(n, n, move |n| sk::enter_bumpdown_guard(&mut guard, n, black_box(value)))),
        ("bumpdown_scratch", timed(n, n, move |n| sk::enter_bumpdown_scratch(n, black_box(value)))),
        ("stumpalo_with_scope", timed(n, n, move |n| sk::enter_stumpalo_scope(&mut stumpalo, n, black_box(value)))),
        ("bump_scope_scoped", timed(n, n, move |n| sk::enter_bump_scope_scoped(&mut bump_scope, n, black_box(value)))),
    ]
}

fn bumper_cells() -> Vec<(&'static str, Sampler)> {
    let n = BUMPER_ITERS;
    let mut arena = boxed::<bumpdown::Arena>(4096);
    vec![
        ("vec", bumper::sampler(n, true, bumper::with_vec)),
        ("bumpdown_scratch", bumper::sampler(n, false, bumper::with_scratch)),
        ("bumpdown_arena_scope", bumper::sampler(n, false, move |x| bumper::with_arena_scope(&mut arena, x))),
        (STACK_ARRAY, bumper::sampler(n, false, bumper::with_stack_array)),
        ("work_alone", bumper::sampler(n, false, bumper::with_uninit_stack_array)),
    ]
}

/// Builds per sample in the collections rows.
pub const COLLECTION_ITERS: usize = 100;

fn string_build_cells() -> Vec<(&'static str, Sampler)> {
    let n = COLLECTION_ITERS;
    let pieces = ck::pieces();
    let mut cells: Vec<(&'static str, Sampler)> = Vec::new();
    let mut ours = boxed::<bumpdown::Arena>(ck::ARENA_BYTES);
    let p = pieces.clone();
    cells.push(("bumpdown_collections", timed(n, n, move |n| (0..n).for_each(|_| ck::string_bumpdown(&mut ours, &p)))));
    let mut theirs = boxed::<bumpalo::Bump>(ck::ARENA_BYTES);
    let p = pieces.clone();
    cells.push(("bumpalo_collections", timed(n, n, move |n| (0..n).for_each(|_| ck::string_bumpalo(&mut theirs, &p)))));
    let mut theirs = boxed::<bumpalo::Bump>(ck::ARENA_BYTES);
    let p = pieces.clone();
    cells.push(("api2_bumpalo", timed(n, n, move |n| (0..n).for_each(|_| ck::string_api2_bumpalo(&mut theirs, &p)))));
    let mut ours = boxed::<bumpdown::Arena>(ck::ARENA_BYTES);
    cells.push((
        "api2_bumpdown",
        timed(n, n, move |n| (0..n).for_each(|_| ck::string_api2_bumpdown(&mut ours, &pieces))),
    ));
    cells
}

fn vec_push_cells() -> Vec<(&'static str, Sampler)> {
    let n = COLLECTION_ITERS;
    let first = 0x5a5a_5a5au64;
    let mut ours = boxed::<bumpdown::Arena>(ck::ARENA_BYTES);
    let mut theirs = boxed::<bumpalo::Bump>(ck::ARENA_BYTES);
    let mut theirs2 = boxed::<bumpalo::Bump>(ck::ARENA_BYTES);
    let mut ours2 = boxed::<bumpdown::Arena>(ck::ARENA_BYTES);
    vec![
        (
            "bumpdown_collections",
            timed(n, n, move |n| (0..n).for_each(|_| ck::vec_bumpdown(&mut ours, black_box(first)))),
        ),
        (
            "bumpalo_collections",
            timed(n, n, move |n| (0..n).for_each(|_| ck::vec_bumpalo(&mut theirs, black_box(first)))),
        ),
        (
            "api2_bumpalo",
            timed(n, n, move |n| (0..n).for_each(|_| ck::vec_api2_bumpalo(&mut theirs2, black_box(first)))),
        ),
        (
            "api2_bumpdown",
            timed(n, n, move |n| (0..n).for_each(|_| ck::vec_api2_bumpdown(&mut ours2, black_box(first)))),
        ),
    ]
}

// ----- Results ---------------------------------------------------------------------

/// A row, without its samplers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowInfo {
    /// Row name.
    pub name: String,
    /// What one operation does.
    pub what: String,
    /// Its table.
    pub table: Table,
}

/// Everything measured for one (row, way) cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellResult {
    /// Row name.
    pub row: String,
    /// [`Way::key`].
    pub way: String,
    /// Its figures (ratios to the fastest way of the same row and process).
    #[serde(flatten)]
    pub pooled: Pooled,
}

impl std::ops::Deref for CellResult {
    type Target = Pooled;

    fn deref(&self) -> &Pooled {
        &self.pooled
    }
}

/// The section's measurements.
pub type ScopeResults = procs::Measured<RowInfo, CellResult>;

impl ScopeResults {
    /// The cell for `row` and way `key`.
    pub fn cell(&self, row: &str, key: &str) -> Option<&CellResult> {
        self.cells.iter().find(|c| c.row == row && c.way == key)
    }

    /// The fastest median of `row`.
    pub fn fastest(&self, row: &str) -> f64 {
        self.cells.iter().filter(|c| c.row == row).map(|c| c.median_ns).fold(f64::INFINITY, f64::min)
    }
}

// ----- Parent ----------------------------------------------------------------------

/// Runs the child processes; `None` when no row is selected.
pub fn measure(options: &Options, run: &Run) -> Result<Option<ScopeResults>, String> {
    let rows: Vec<RowInfo> = selected(options.filter.as_deref())
        .into_iter()
        .map(|row| RowInfo { name: row.name.to_owned(), what: row.what, table: row.table })
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    ScopeResults::measure(
        ("scopes", Section::Scopes),
        rows,
        (options, run),
        |c: RawCell| ((c.row, c.way), c.heap_events, c.samples),
        |a, b| a.0 == b.0,
        |(row, way), pooled| CellResult { row, way, pooled },
    )
    .map(Some)
}

/// One process's samples of one cell.
#[derive(Serialize, Deserialize)]
struct RawCell {
    row: String,
    way: String,
    heap_events: usize,
    samples: Vec<f64>,
}

// ----- Child -----------------------------------------------------------------------

/// Child side: measures the selected rows on a shifted stack and prints raw samples.
pub fn child_main(options: &Options, index: usize) -> Result<(), String> {
    let options = options.clone();
    let out = speed::on_shifted_stack(index, move || measure_rows(&options))?;
    std::io::stdout().write_all(out.as_bytes()).map_err(|e| format!("writing samples: {e}"))
}

#[inline(never)]
fn measure_rows(options: &Options) -> String {
    let rows = selected(options.filter.as_deref());
    procs::child_samples(options, |clock, plan| {
        let mut cells = Vec::new();
        for row in &rows {
            let (ways, mut samplers): (Vec<_>, Vec<_>) = (row.build)().into_iter().unzip();
            let results = harness::run_interleaved(&mut samplers, clock, plan);
            for (way, samples) in ways.into_iter().zip(results) {
                cells.push(RawCell {
                    row: row.name.to_owned(),
                    way: way.to_owned(),
                    heap_events: samples.iter().filter(|s| s.heap_calls != 0).count(),
                    samples: samples.iter().map(|s| procs::four_decimals(s.ns_per_op)).collect(),
                });
            }
        }
        cells
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_builds_its_tables_columns() {
        for row in all() {
            // A row fills its table's columns in order; it may leave some out.
            let keys: Vec<&str> = (row.build)().into_iter().map(|(key, _)| key).collect();
            let want: Vec<&str> = row.table.ways().iter().map(|w| w.key).filter(|k| keys.contains(k)).collect();
            assert_eq!(keys, want, "{}", row.name);
            assert!(keys.len() >= 3, "{}", row.name);
        }
        for table in Table::ALL {
            assert!(all().iter().any(|row| row.table == table));
        }
    }

    /// Every cell can take a sample, and no timed batch reaches the heap (the `Vec`
    /// cell runs with the counters paused, so it reports none either).
    #[test]
    fn every_cell_samples_without_touching_the_heap() {
        let clock = harness::Clock::calibrate();
        for row in all() {
            for (way, mut sampler) in (row.build)() {
                for _ in 0..3 {
                    let sample = sampler(&clock);
                    assert!(sample.ns_per_op.is_finite(), "{} {way}", row.name);
                    assert_eq!(sample.heap_calls, 0, "{} {way}", row.name);
                }
            }
        }
    }

    #[test]
    fn filters_pick_the_sections() {
        assert_eq!(selected(Some("scope")).len(), 4);
        assert_eq!(selected(Some("bumper")).len(), 1);
        assert!(selected(Some("alloc_u64")).is_empty(), "the CI smoke run stays on the speed table");
    }
}
