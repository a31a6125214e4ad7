//! The rows of the speed table: a name, a description, and how to build the
//! samplers of every (contender, form) cell of the row.

use serde::{Deserialize, Serialize};

use crate::contenders::{self, Column, ColumnVisitor};
use crate::harness::Sampler;
use crate::kernels::{self, Alloc, Form, Slice, SliceLit, Str, StrLit, Work};
use crate::sources;

/// Allocations per sample for small sizes; large sizes get fewer (see [`iters_for`]).
const MAX_BATCH: usize = 10_000;
/// The fewest allocations per sample, however large each one is.
const MIN_BATCH: usize = 1_000;
/// Bytes a batch may span before it is cut towards [`MIN_BATCH`], so batches
/// stay cache-sized and time the allocator rather than memory bandwidth.
const BATCH_BYTES: usize = 256 * 1024;
/// Allocations per step in the `alloc_multiple_*` rows.
const MULTIPLE: usize = 4;
/// Steps per sample in `clear_and_reuse`.
const REUSE_ITERS: usize = 1_000;

/// What one operation of a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// One allocation.
    Alloc,
    /// One `reset` of an arena holding a few allocations.
    Reset,
    /// One `reset` and the same allocations again.
    ResetRefill,
}

impl Unit {
    /// How the report names the unit.
    pub fn describe(self) -> &'static str {
        match self {
            Unit::Alloc => "ns per allocation",
            Unit::Reset => "ns per reset",
            Unit::ResetRefill => "ns per reset + refill",
        }
    }
}

/// One measured cell's sampler.
pub struct Cell {
    /// Column name (a contender, or bumpdown's scope handle).
    pub contender: &'static str,
    /// How the arena is reached.
    pub form: Form,
    /// Takes one sample.
    pub sampler: Sampler,
    /// Operations one sample performs (its time is this many times `ns_per_op`).
    pub ops: usize,
}

/// One row of the table.
pub struct Row {
    /// Name, as in stumpalo's table.
    pub name: String,
    /// What is allocated, in words.
    pub what: String,
    /// What one operation is.
    pub unit: Unit,
    build: Box<dyn Fn() -> Vec<Cell>>,
}

impl Row {
    /// Builds (and prepares the arenas of) every cell of the row.
    pub fn cells(&self) -> Vec<Cell> {
        (self.build)()
    }
}

/// Steps per sample for `work`: about [`BATCH_BYTES`] of allocations, clamped to
/// [`MIN_BATCH`]..=[`MAX_BATCH`] allocations.
fn iters_for<W: Work>(work: &W) -> usize {
    let per_alloc = (work.bytes() / W::ALLOCS).max(1);
    (BATCH_BYTES / per_alloc).clamp(MIN_BATCH, MAX_BATCH) / W::ALLOCS
}

/// Builds one cell per column and form for `work`.
struct WorkCells<W> {
    work: W,
    iters: usize,
    cells: Vec<Cell>,
}

impl<W: Work> ColumnVisitor for WorkCells<W> {
    fn visit<C: Column>(&mut self) {
        for form in Form::ALL {
            self.cells.push(Cell {
                contender: C::NAME,
                form,
                sampler: kernels::sampler::<C, W>(form, self.work, self.iters),
                ops: self.iters * W::ALLOCS,
            });
        }
    }
}

fn work_row<W: Work>(name: &str, what: String, work: W) -> Row {
    Row {
        name: name.to_owned(),
        what,
        unit: Unit::Alloc,
        build: Box::new(move || {
            let mut cells = WorkCells { work, iters: iters_for(&work), cells: Vec::new() };
            contenders::visit_columns(&mut cells);
            cells.cells
        }),
    }
}

/// Builds the cells of the `clear` rows.
struct ClearCells {
    refill: bool,
    cells: Vec<Cell>,
}

impl ColumnVisitor for ClearCells {
    fn visit<C: Column>(&mut self) {
        for form in Form::ALL {
            let (sampler, ops) = if self.refill {
                (kernels::clear_and_reuse_sampler::<C>(form, REUSE_ITERS), REUSE_ITERS)
            } else {
                (kernels::clear_sampler::<C>(form), kernels::CLEAR_ARENAS)
            };
            self.cells.push(Cell { contender: C::NAME, form, sampler, ops });
        }
    }
}

fn clear_row(name: &str, refill: bool) -> Row {
    let (what, unit) = if refill {
        (
            format!(
                "reset, then {} `u64` allocations again (`bumpdown Scope`: enter a scope, the {0} \
                 allocations, leave it)",
                kernels::CLEAR_FILL
            ),
            Unit::ResetRefill,
        )
    } else {
        (
            format!(
                "reset of an arena holding {} `u64`s (`bumpdown Scope`: enter and leave a scope, \
                 which is how a scope user frees; the allocations were in an earlier scope)",
                kernels::CLEAR_FILL
            ),
            Unit::Reset,
        )
    };
    Row {
        name: name.to_owned(),
        what,
        unit,
        build: Box::new(move || {
            let mut cells = ClearCells { refill, cells: Vec::new() };
            contenders::visit_columns(&mut cells);
            cells.cells
        }),
    }
}

/// A `#[repr(C)]` struct of `N` bytes, alignment 1.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Bytes<const N: usize>([u8; N]);

/// A `#[repr(C)]` struct of `N` `u16`s: alignment 2.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Halves<const N: usize>([u16; N]);

/// A `#[repr(C)]` struct of `N` `u64`s: alignment 8.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Words<const N: usize>(pub [u64; N]);

fn slice_rows<T: Copy + 'static>(rows: &mut Vec<Row>, type_name: &str, source: &'static [T]) {
    for len in [8, 32, 64, 128] {
        rows.push(work_row(
            &format!("alloc_slice_{type_name}_{len}"),
            format!("`alloc_slice_copy` of {len} `{type_name}`"),
            Slice(&source[..len]),
        ));
    }
}

/// Every row, in table order.
pub fn all() -> Vec<Row> {
    let mut rows = Vec::new();

    macro_rules! scalar_rows {
        ($steps:expr, $prefix:literal, $($t:ident),*) => {$(
            rows.push(work_row(
                concat!($prefix, stringify!($t)),
                format!("{} `alloc` of `{}` per step", $steps, stringify!($t)),
                Alloc::<$t, { $steps }>(0x5a as $t),
            ));
        )*};
    }
    scalar_rows!(1, "alloc_", u8, u16, u32, u64, u128);
    scalar_rows!(MULTIPLE, "alloc_multiple_", u8, u16, u32, u64, u128);

    macro_rules! array_rows {
        ($($n:literal),*) => {$(
            rows.push(work_row(
                concat!("alloc_array_u8_", $n),
                format!("`alloc` of `[u8; {}]`", $n),
                Alloc::<[u8; $n], 1>([0x5a; $n]),
            ));
        )*};
    }
    array_rows!(8, 32, 64, 128);

    slice_rows(&mut rows, "u8", &sources::U8.0);
    slice_rows(&mut rows, "u16", &sources::U16.0);
    slice_rows(&mut rows, "u32", &sources::U32.0);
    slice_rows(&mut rows, "u64", &sources::U64.0);
    slice_rows(&mut rows, "u128", &sources::U128.0);

    macro_rules! struct_row {
        ($name:literal, $ty:ty, $value:expr) => {
            rows.push(work_row(
                concat!("alloc_struct_", $name),
                format!("`alloc` of `{}` ({} bytes, align {})", stringify!($ty), size_of::<$ty>(), align_of::<$ty>()),
                Alloc::<$ty, 1>($value),
            ))
        };
    }
    struct_row!("13", Bytes<13>, Bytes([0x5a; 13]));
    struct_row!("24", Words<3>, Words([0x5a; 3]));
    struct_row!("26", Halves<13>, Halves([0x5a; 13]));
    struct_row!("30", Halves<15>, Halves([0x5a; 15]));
    struct_row!("32", Words<4>, Words([0x5a; 4]));
    struct_row!("64", Words<8>, Words([0x5a; 8]));
    struct_row!("96", Words<12>, Words([0x5a; 12]));
    struct_row!("128", Words<16>, Words([0x5a; 16]));
    struct_row!("192", Words<24>, Words([0x5a; 24]));
    struct_row!("256", Words<32>, Words([0x5a; 32]));
    struct_row!("512", Words<64>, Words([0x5a; 64]));
    struct_row!("1k", Words<128>, Words([0x5a; 128]));

    const STR_LENS: [usize; 9] = [8, 16, 32, 40, 48, 64, 72, 80, 128];
    for len in STR_LENS {
        rows.push(work_row(
            &format!("alloc_str_{len}"),
            format!("`alloc_str` of {len} bytes"),
            Str(sources::text(len)),
        ));
    }

    macro_rules! slice_lit_rows {
        ($($n:literal),*) => {$(
            rows.push(work_row(
                concat!("alloc_slice_lit_u8_", $n),
                format!("copy of a `&'static [u8]` of {} bytes (length known at compile time)", $n),
                SliceLit::<$n>(sources::bytes_lit::<$n>()),
            ));
        )*};
    }
    slice_lit_rows!(8, 32, 64, 128);

    macro_rules! str_lit_rows {
        ($($n:literal),*) => {$(
            rows.push(work_row(
                concat!("alloc_str_lit_", $n),
                format!("copy of a `&'static str` of {} bytes (length known at compile time)", $n),
                StrLit::<$n>::new(sources::text_lit::<$n>()),
            ));
        )*};
    }
    str_lit_rows!(8, 16, 32, 40, 48, 64, 72, 80, 128);

    rows.push(clear_row("clear", false));
    rows.push(clear_row("clear_and_reuse", true));
    rows
}

/// The rows whose name contains `filter` (all rows without one).
pub fn selected(filter: Option<&str>) -> Vec<Row> {
    all().into_iter().filter(|row| filter.is_none_or(|f| row.name.contains(f))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_names_are_unique_and_complete() {
        let rows = all();
        let mut names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names.len(), 5 + 5 + 4 + 20 + 12 + 9 + 4 + 9 + 2);
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), rows.len());
    }

    #[test]
    fn struct_rows_have_the_size_in_their_name() {
        assert_eq!(size_of::<Bytes<13>>(), 13);
        assert_eq!(size_of::<Halves<13>>(), 26);
        assert_eq!(size_of::<Halves<15>>(), 30);
        assert_eq!(size_of::<Words<128>>(), 1024);
    }

    /// Every cell of every row can take a sample, and no batch reaches the
    /// heap: the arenas really were sized and warmed beforehand.
    #[test]
    fn every_cell_samples_without_touching_the_heap() {
        let clock = crate::harness::Clock::calibrate();
        for row in all() {
            for mut cell in row.cells() {
                for _ in 0..3 {
                    let sample = (cell.sampler)(&clock);
                    assert!(sample.ns_per_op.is_finite(), "{} {}", row.name, cell.contender);
                    assert_eq!(sample.heap_calls, 0, "{} {} {:?}", row.name, cell.contender, cell.form);
                }
            }
        }
    }

    #[test]
    fn batches_hold_between_min_and_max_allocations() {
        assert_eq!(iters_for(&Alloc::<u8, 1>(0)), MAX_BATCH);
        assert_eq!(iters_for(&Alloc::<u8, MULTIPLE>(0)) * MULTIPLE, MAX_BATCH);
        assert_eq!(iters_for(&Alloc::<Words<128>, 1>(Words([0; 128]))), MIN_BATCH);
    }
}
