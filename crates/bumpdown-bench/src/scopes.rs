//! The "Scopes and temporary memory" section: small tables whose columns are ways of
//! doing the same work (a scope handle, an arena used directly, a peer's scope, a heap
//! `Vec`, a stack array) rather than the speed table's contenders. Measured as the speed
//! table is ([`procs`]), in `child scopes I` processes.

use std::fmt::Write;
use std::hint::black_box;

use serde::{Deserialize, Serialize};

use crate::bumper;
use crate::charts::{chart, colour_of, Chart, GRID, INK, MUTED, REFERENCE, STRIPE};
use crate::cli::Options;
use crate::collection_kernels as ck;
use crate::contenders::{self, Column, Contender};
use crate::harness::relative_spread;
use crate::harness::Sampler;
use crate::kernels::{self, Alloc, Form};
use crate::procs::{self, Pooled};
use crate::progress::{Phase, Run};
use crate::scope_kernels::{self as sk, boxed, timed};
use crate::section::{self, prose, Context, Figure, Figures};
use crate::svg::{ticks, Anchor};
use crate::table::{timed_row, timed_table, what_each_row, Timed};
use crate::text::ns;
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

const COLLECTION_WAYS: [Way; 5] = [
    way("bumpdown_collections", "bumpdown `collections`"),
    way("bumpalo_collections", "bumpalo `collections`"),
    way("api2_bumpalo", "`allocator_api2` `Vec` on `&bumpalo::Bump`"),
    way("api2_bumpdown", "`allocator_api2` `Vec` on `&bumpdown::Arena`"),
    // The `allocator_api2` code alone: its `extend_from_slice` pushes byte by byte.
    way("api2_heap", "`allocator_api2` `Vec` on the global heap"),
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

    /// Its heading in the report, its columns in order, and what one operation is.
    fn info(self) -> (&'static str, &'static [Way], &'static str) {
        match self {
            Table::Loop => ("Allocation loop through a scope handle", &LOOP_WAYS, "ns per allocation"),
            Table::EnterExit => ("Scope enter / allocate / exit", &ENTER_WAYS, "ns per scope"),
            Table::Bumper => ("The Bumper.jl workload: a temporary array of 30 `i64`", &BUMPER_WAYS, "ns per call"),
            Table::Collections => {
                ("Collections in an arena: build, then reset", &COLLECTION_WAYS, "ns per build + reset")
            }
        }
    }

    /// The heading and the unit: `title (unit)`.
    fn heading(self) -> String {
        format!("{} ({})", self.info().0, self.unit())
    }

    /// The columns, in order.
    pub fn ways(self) -> &'static [Way] {
        self.info().1
    }

    /// What one operation is.
    pub fn unit(self) -> &'static str {
        self.info().2
    }
}

/// One row: a name for `--list` / `--filter`, and how to build its samplers.
pub struct Row {
    pub name: &'static str,
    /// What one operation does, in words.
    pub what: String,
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
    let pieces = ck::pieces();
    let heap = pieces.clone();
    vec![
        ("bumpdown_collections", in_arena(of_pieces(&pieces, ck::string_bumpdown))),
        ("bumpalo_collections", in_arena(of_pieces(&pieces, ck::string_bumpalo))),
        ("api2_bumpalo", in_arena(of_pieces(&pieces, ck::string_api2_bumpalo))),
        ("api2_bumpdown", in_arena(of_pieces(&pieces, ck::string_api2_bumpdown))),
        ("api2_heap", on_heap(move || ck::string_api2_heap(&heap))),
    ]
}

/// `build` with its own copy of `pieces`, for [`in_arena`].
fn of_pieces<A>(pieces: &[&'static str], build: impl Fn(&mut A, &[&str]) + 'static) -> impl FnMut(&mut A) + 'static {
    let pieces = pieces.to_vec();
    move |arena| build(arena, &pieces)
}

fn vec_push_cells() -> Vec<(&'static str, Sampler)> {
    let first = 0x5a5a_5a5au64;
    vec![
        ("bumpdown_collections", in_arena(move |a| ck::vec_bumpdown(a, black_box(first)))),
        ("bumpalo_collections", in_arena(move |a| ck::vec_bumpalo(a, black_box(first)))),
        ("api2_bumpalo", in_arena(move |a| ck::vec_api2_bumpalo(a, black_box(first)))),
        ("api2_bumpdown", in_arena(move |a| ck::vec_api2_bumpdown(a, black_box(first)))),
        ("api2_heap", on_heap(move || ck::vec_api2_heap(black_box(first)))),
    ]
}

/// A collections cell on an arena of its own: [`COLLECTION_ITERS`] builds per sample.
fn in_arena<A: Contender>(mut build: impl FnMut(&mut A) + 'static) -> Sampler {
    let mut arena = boxed::<A>(ck::ARENA_BYTES);
    timed(COLLECTION_ITERS, COLLECTION_ITERS, move |n| (0..n).for_each(|_| build(&mut arena)))
}

/// A collections cell on the global heap: [`COLLECTION_ITERS`] builds per sample with the
/// heap counters paused (as the Bumper table's heap `Vec`: their atomic adds are not the
/// heap's).
fn on_heap(build: impl Fn() + 'static) -> Sampler {
    timed(COLLECTION_ITERS, COLLECTION_ITERS, move |n| crate::heap::uncounted(|| (0..n).for_each(|_| build())))
}

// ----- Results ---------------------------------------------------------------------

/// A row, without its samplers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowInfo {
    pub name: String,
    /// What one operation does.
    pub what: String,
    pub table: Table,
}

/// Everything measured for one (row, way) cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellResult {
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

/// Runs the child processes.
pub fn measure(options: &Options, run: &Run) -> Result<ScopeResults, String> {
    let rows: Vec<RowInfo> = selected(options.filter.as_deref())
        .into_iter()
        .map(|row| RowInfo { name: row.name.to_owned(), what: row.what, table: row.table })
        .collect();
    ScopeResults::measure(
        ("scopes", Phase::Scopes),
        rows,
        (options, run),
        |a: &(String, String), b| a.0 == b.0,
        |(row, way), pooled| CellResult { row, way, pooled },
    )
}

// ----- Child -----------------------------------------------------------------------

/// Child side: measures the selected rows on a shifted stack and prints raw samples.
pub fn child_main(options: &Options, index: usize) -> Result<(), String> {
    procs::child_main(
        options,
        index,
        |options| selected(options.filter.as_deref()),
        |row| {
            (row.build)().into_iter().map(|(way, sampler)| ((row.name.to_owned(), way.to_owned()), sampler)).collect()
        },
    )
}

impl section::Section for ScopeResults {
    fn markdown(&self, md: &mut String, cx: &Context) {
        let processes = self.process_count();
        md.push_str(&prose(
            "scopes",
            &[
                ("samples", &(processes * self.samples_per_process)),
                ("processes", &processes),
                ("per_process", &self.samples_per_process),
                ("offsets", &format!("{:?}", self.stack_offsets)),
                ("secs", &format!("{:.0}", self.elapsed.as_secs_f64())),
                ("loop_iters", &thousands(LOOP_ITERS)),
                ("per_scope", &sk::PER_SCOPE),
                ("enter_iters", &thousands(ENTER_ITERS)),
                ("bumper_len", &bumper::LEN),
                ("bumper_iters", &thousands(BUMPER_ITERS)),
            ],
        ));
        if self.rows.iter().any(|row| row.table == Table::Collections) {
            md.push_str(&prose(
                "scopes_collections",
                &[
                    ("string_bytes", &thousands(ck::STRING_BYTES)),
                    ("vec_len", &thousands(ck::VEC_LEN)),
                    ("iters", &thousands(COLLECTION_ITERS)),
                ],
            ));
        }
        for table in Table::ALL {
            scope_table(md, self, table);
        }
        let _ = writeln!(md, "![scopes: each way's ratio to the row's fastest]({}scopes.svg)\n", cx.images);
        let rows = self.rows.iter().map(|row| (row.name.as_str(), row.what.as_str(), row.table.unit()));
        what_each_row(md, "What each row does", rows);
    }

    fn charts(&self, charts: &mut Vec<Chart>) {
        if let Some(svg) = scopes_chart(self) {
            let title = "Scopes and temporary memory: ratio to the fastest way".to_owned();
            charts.push(Chart { file: "scopes.svg", title, svg });
        }
    }

    fn figures(&self, figures: &mut Figures) {
        for c in &self.cells {
            let spread = relative_spread(&c.process_medians);
            figures.push((format!("scopes: {}, {}", c.row, c.way), Figure { median: c.median_ns, spread }));
        }
    }
}

/// One scope table: a row per case, a column per way; the Bumper table adds each
/// row's ratios to the stack array.
fn scope_table(md: &mut String, scopes: &ScopeResults, table: Table) {
    let rows: Vec<_> = scopes.rows.iter().filter(|row| row.table == table).collect();
    if rows.is_empty() {
        return;
    }
    let ways = table.ways();
    let _ = writeln!(md, "### {}\n", table.heading());
    let mut lines = Vec::new();
    for row in &rows {
        let cells: Vec<_> = ways.iter().map(|w| scopes.cell(&row.name, w.key).map(|c| Timed(&c.way, c))).collect();
        lines.push(timed_row(&row.name, &cells, scopes.process_count()).0);
        if table == Table::Bumper {
            let stack = scopes.cell(&row.name, STACK_ARRAY).map(|c| c.median_ns).filter(|s| *s > 0.0);
            let ratio = |cell: &Option<Timed>| Some(format!("{:.2}x", cell.as_ref()?.1.median_ns / stack?));
            let ratios = cells.iter().map(ratio).chain([Some(String::new())]).collect();
            lines.push(("ratio to the stack array".to_owned(), ratios));
        }
    }
    let titles: Vec<&str> = ways.iter().map(|w| w.title).collect();
    timed_table(md, &titles, lines);
}

/// The colour of a scope-table way or a real-use way (`bumpalo::Bump`): its crate's
/// column colour (bumpdown's scope handle its own), grey for the heap and the stack.
pub fn way_colour(key: &str) -> &'static str {
    if key == "bumpdown_scope" {
        return colour_of(contenders::InScope::NAME);
    }
    let crates =
        [("bumpdown", "bumpdown"), ("stumpalo", "stumpalo"), ("bump_scope", "bump-scope"), ("bumpalo", "bumpalo")];
    colour_of(crates.into_iter().find(|(part, _)| key.contains(part)).map_or("", |(_, column)| column))
}

/// One bar of the scopes chart: a way of one row.
struct WayBar {
    title: String,
    colour: &'static str,
    ratio: f64,
    ns: f64,
}

/// One row of the scopes chart, under its table's heading when it is the first.
struct WayGroup {
    heading: Option<String>,
    row: String,
    bars: Vec<WayBar>,
}

/// The rows of the scope tables as chart groups, in report order.
fn way_groups(scopes: &ScopeResults) -> Vec<WayGroup> {
    let mut groups = Vec::new();
    for table in Table::ALL {
        let mut heading = Some(table.heading().replace('`', ""));
        for row in scopes.rows.iter().filter(|r| r.table == table) {
            let fastest = scopes.fastest(&row.name);
            let bars: Vec<WayBar> = table
                .ways()
                .iter()
                .filter_map(|way| {
                    let cell = scopes.cell(&row.name, way.key).filter(|_| fastest > 0.0 && fastest.is_finite())?;
                    Some(WayBar {
                        title: way.title.replace('`', ""),
                        colour: way_colour(way.key),
                        ratio: cell.median_ns / fastest,
                        ns: cell.median_ns,
                    })
                })
                .collect();
            if !bars.is_empty() {
                groups.push(WayGroup { heading: heading.take(), row: row.name.clone(), bars });
            }
        }
    }
    groups
}

/// Every scope-table row, one bar per way: the ratio to the row's fastest way;
/// `None` without a measured cell.
fn scopes_chart(scopes: &ScopeResults) -> Option<String> {
    let groups = way_groups(scopes);
    if groups.is_empty() {
        return None;
    }
    let (label_width, plot_width, value_room, top) = (300.0, 480.0, 130.0, 84.0);
    let (bar, heading_h, row_h, gap) = (13.0, 30.0, 18.0, 10.0);
    let group_height = |g: &WayGroup| {
        let heading = if g.heading.is_some() { heading_h } else { 0.0 };
        heading + row_h + bar * g.bars.len() as f64 + gap
    };
    let plot_bottom = top + groups.iter().map(group_height).sum::<f64>();
    let (width, height) = (label_width + plot_width + value_room, plot_bottom + 46.0);
    let largest = groups.iter().flat_map(|g| g.bars.iter().map(|b| b.ratio)).fold(1.0, f64::max);
    let axis = ticks(largest.clamp(1.5, 4.0), 6);
    let max = *axis.last().unwrap_or(&4.0);
    let x_of = |ratio: f64| label_width + plot_width * ratio.min(max) / max;

    let mut crates: Vec<(&str, &str)> = Vec::new();
    for (name, colour) in [
        ("bumpdown", colour_of("bumpdown")),
        ("bumpdown Scope", colour_of(contenders::InScope::NAME)),
        ("stumpalo", colour_of("stumpalo")),
        ("bump-scope", colour_of("bump-scope")),
        ("bumpalo", colour_of("bumpalo")),
        ("heap / stack", REFERENCE),
    ] {
        if groups.iter().any(|g| g.bars.iter().any(|b| b.colour == colour)) {
            crates.push((name, colour));
        }
    }
    let how = "time per operation ÷ the row's fastest way: 1.00x is the fastest, shorter is better; ns in brackets";
    let mut svg = chart(width, height, "Scopes and temporary memory", how, &crates);

    let mut y = top;
    for group in &groups {
        if let Some(heading) = &group.heading {
            svg.bold((16.0, y + 20.0), 13.0, Anchor::Start, INK, heading);
            y += heading_h;
        }
        let bars_top = y + row_h;
        let bars_bottom = bars_top + bar * group.bars.len() as f64;
        svg.rect(0.0, y, width, bars_bottom - y + gap / 2.0, STRIPE);
        svg.bold((label_width - 10.0, y + 13.0), 11.0, Anchor::End, INK, &group.row);
        for tick in &axis {
            svg.line((x_of(*tick), y + 2.0), (x_of(*tick), bars_bottom), GRID, 1.0, "");
        }
        for (k, b) in group.bars.iter().enumerate() {
            let bar_y = bars_top + bar * k as f64;
            svg.text((label_width - 10.0, bar_y + bar - 3.0), 10.0, Anchor::End, INK, &b.title);
            let tip = format!("{}, {}: {:.2}x ({:.2} ns)", group.row, b.title, b.ratio, b.ns);
            svg.rect_titled(label_width, bar_y + 0.5, x_of(b.ratio) - label_width, bar - 1.0, b.colour, &tip);
            let cut = if b.ratio > max { " ▸" } else { "" };
            let text = format!("{:.2}x ({} ns){cut}", b.ratio, ns(b.ns));
            svg.text((x_of(b.ratio) + 4.0, bar_y + bar - 3.0), 10.0, Anchor::Start, INK, &text);
        }
        let one = x_of(1.0);
        svg.line((one, y + 2.0), (one, bars_bottom), INK, 1.2, "5 3");
        y = bars_bottom + gap;
    }
    for tick in &axis {
        svg.text((x_of(*tick), plot_bottom + 14.0), 11.0, Anchor::Middle, MUTED, &format!("{tick:.1}x"));
    }
    let caption = format!("ratio to the row's fastest way (bars beyond {max:.1}x are cut: ▸)");
    svg.text((label_width + plot_width / 2.0, plot_bottom + 34.0), 11.0, Anchor::Middle, MUTED, &caption);
    Some(svg.finish())
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
        let clock = crate::harness::Clock::calibrate();
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

    #[test]
    fn scope_ways_take_their_crates_colours() {
        assert_eq!(way_colour("bumpdown_scope"), colour_of(contenders::InScope::NAME));
        assert_eq!(way_colour("bumpdown_scope_guard"), colour_of("bumpdown"));
        assert_eq!(way_colour("api2_bumpalo"), colour_of("bumpalo"));
        assert_eq!(way_colour("bump_scope_scoped"), colour_of("bump-scope"));
        assert_eq!(way_colour("stack_array"), REFERENCE);
    }
}
