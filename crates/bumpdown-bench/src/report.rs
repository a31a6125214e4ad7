//! Turns the results of a run into the markdown report, the README snippet and the
//! charts, and finds where to save them.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::charts::{self, Chart};
use crate::cli::Effort;
use crate::contenders;
use crate::fastpath::{self, FastPath};
use crate::kernels::Form;
use crate::realuse::{self, RealUse};
use crate::resets::{self, ResetCosts};
use crate::results::Results;
use crate::scope_kernels;
use crate::scopes::{self, ScopeResults, Table};
use crate::seed004::{self, Seed004Result};
use crate::speed::SpeedResults;
use crate::table::{colour, geometric_means, grid, legend, timed_row, timed_table, what_each_row, Timed};
use crate::text::{ns, thousands};
use crate::threads::{self, ThreadCell};

/// Where the README snippet expects the charts, relative to the repository root.
pub const README_IMAGES: &str = "docs/bench/";
/// The stored run the README's section is rendered from, under [`README_IMAGES`].
pub const STORED_RUN: &str = "results.json";
/// The line that ends the README's generated section.
pub const README_END: &str = "<!-- End of the section generated from docs/bench/results.json. -->";

/// The fresh-arena table: one row per operation, one column per contender, each cell
/// the ratio to the row's fastest and the time per operation.
fn fresh_section(md: &mut String, fresh: &crate::fresh::FreshResults) {
    use crate::fresh::{OPS, ROWS};
    let _ = writeln!(md, "## A new arena per sample (stumpalo's method)\n");
    let _ = writeln!(
        md,
        "Each sample makes a new arena, performs {} operations of the row's kind and drops the \
         arena, all timed (chunk growth, first touches of fresh memory and freeing included), \
         with mimalloc as the global allocator, as stumpalo's own `benches/comparison.rs` does. \
         `clear`: one `reset` of a new arena holding {} `u64`s. Median of {} processes' medians \
         of {} samples; ns per operation.\n",
        thousands(OPS),
        thousands(OPS),
        fresh.processes,
        fresh.samples
    );
    let names = crate::contenders::names();
    let rows = ROWS.iter().filter_map(|row| {
        let cells: Vec<Option<f64>> = names.iter().map(|name| fresh.cell(row, name).map(|c| c.ns_per_op)).collect();
        let best = cells.iter().flatten().copied().reduce(f64::min)?.max(f64::MIN_POSITIVE);
        Some((row.to_string(), cells.iter().map(|c| c.map(|t| format!("{:.2}x ({} ns)", t / best, ns(t)))).collect()))
    });
    grid(md, "case", &names, rows);
}

/// The reset-cost table: one row per fill, one column per contender.
fn reset_cost_section(md: &mut String, costs: &ResetCosts) {
    let _ = writeln!(md, "## What one `reset` costs as the arena holds more chunks\n");
    let _ = writeln!(
        md,
        "Each arena is filled with {}-byte `alloc_slice_copy`s, then reset; the median time of the \
         `reset` call alone, in ns, with the heap blocks the arena held after the fill in brackets. \
         The first column is `bumpdown`'s `Arena` with chunks capped at {} KiB \
         (`with_max_chunk_size`), so that it holds the row's number of chunks; the others are \
         made as in every other table. Every figure includes reading the clock twice: {} ns \
         with nothing between.\n",
        resets::COST_PIECE,
        resets::SMALL_CHUNK >> 10,
        ns(costs.clock_ns)
    );
    let names: Vec<&str> = costs.columns.iter().map(|c| c.name.as_str()).collect();
    let rows = resets::CHUNK_COUNTS.iter().enumerate().map(|(i, &chunks)| {
        let label = format!("{:.1} KiB ({chunks} small chunks)", resets::fill_bytes(chunks) as f64 / 1024.0);
        (label, costs.columns.iter().map(|c| Some(format!("{} ({})", ns(c.rows[i].1), c.rows[i].0))).collect())
    });
    grid(md, "fill", &names, rows);
}

fn mib(bytes: usize) -> String {
    format!("{:.1}", bytes as f64 / (1 << 20) as f64)
}

fn form_title(form: Form) -> &'static str {
    match form {
        Form::Local => "Stack-local arena (owned by the benchmark function, loop inlined)",
        Form::Ref => "Arena reached through `&Arena` in an `#[inline(never)]` function",
    }
}

impl Results {
    /// The charts the results allow (written next to `report.md`).
    pub fn charts(&self) -> Vec<Chart> {
        charts::all(charts::Sources {
            speed: self.speed.as_ref(),
            scopes: self.scopes.as_ref(),
            real_use: self.real_use.as_ref(),
            seed004: self.seed004.as_deref(),
        })
    }

    /// The report as markdown; `charts` are linked by file name.
    pub fn markdown(&self, charts: &[Chart]) -> String {
        let mut md = String::from("# bumpdown benchmark report\n\n");
        how_to_read(&mut md, charts.iter().map(|c| c.file), "");
        self.header(&mut md);
        if let Some(speed) = &self.speed {
            summary_section(&mut md, speed);
        }
        if !self.failed.is_empty() {
            let _ = writeln!(md, "## Sections that failed\n");
            for (section, message) in &self.failed {
                let _ = writeln!(md, "- **{section}**: {message}");
            }
            md.push('\n');
        }
        if !charts.is_empty() {
            let _ = writeln!(md, "## Charts\n");
            for chart in charts {
                let _ = writeln!(md, "- [{}]({})", chart.title, chart.file);
            }
            md.push('\n');
            if let Some(summary) = charts.iter().find(|c| c.file == "speed-summary.svg") {
                let _ = writeln!(md, "![{}]({})\n", summary.title, summary.file);
            }
        }
        if let Some(speed) = &self.speed {
            self.speed_section(&mut md, speed);
        }
        if let Some(fast_path) = &self.fast_path {
            fast_path_section(&mut md, fast_path, &self.machine.c_probes, true);
        }
        if let Some(scopes) = &self.scopes {
            scope_section(&mut md, scopes);
        }
        if !self.resets.is_empty() {
            self.reset_section(&mut md);
        }
        if let Some(fresh) = &self.fresh {
            fresh_section(&mut md, fresh);
        }
        if let Some(costs) = &self.reset_costs {
            reset_cost_section(&mut md, costs);
        }
        self.last_sections(&mut md);
        md
    }

    /// A snippet for the workspace README: the how-to-read paragraph, the charts
    /// (linked under [`README_IMAGES`]) and the main tables, the long ones folded.
    pub fn readme(&self, charts: &[Chart]) -> String {
        let m = &self.machine;
        let mut md = String::new();
        let _ = writeln!(
            md,
            "<!-- Generated from the stored run {README_IMAGES}{STORED_RUN} by `cargo run --release -p \
             bumpdown-bench -- render --readme {README_IMAGES}{STORED_RUN}`. That file and the SVGs \
             beside it come from bumpdown-report/ in cargo's target directory after `cargo run \
             --release -p bumpdown-bench -- {}`; crates/bumpdown-bench/tests/readme.rs checks that \
             this section is that file's. -->\n",
            self.effort.flag()
        );
        let _ = writeln!(
            md,
            "Measured on {} on {} ({} cores, Linux {}) with {}, `{}`. Run it yourself: \
             `cargo run --release -p bumpdown-bench` (about {} on two cores, and a minute and \
             a half more for the first build).\n",
            m.date,
            m.cpu,
            m.cores,
            m.kernel,
            m.rustc,
            self.effort.flag(),
            crate::progress::minutes(crate::plan::expected_run_secs(Effort::Quick).0)
        );
        how_to_read(&mut md, charts.iter().map(|c| c.file), README_IMAGES);
        let image = |md: &mut String, file: &str| {
            if let Some(chart) = charts.iter().find(|c| c.file == file) {
                let _ = writeln!(md, "![{}]({README_IMAGES}{})\n", chart.title, chart.file);
            }
        };
        image(&mut md, "speed-summary.svg");
        if let Some(speed) = &self.speed {
            for form in Form::ALL {
                let _ = writeln!(md, "<details><summary>{}: every row</summary>\n", form_title(form));
                let mut table = String::new();
                speed_table(&mut table, speed, form);
                // The table's own heading is the summary line.
                md.push_str(table.split_once("\n\n").map_or(table.as_str(), |(_, rest)| rest));
                let _ = writeln!(md, "</details>\n");
            }
        }
        image(&mut md, "size-struct.svg");
        if let Some(fresh) = &self.fresh {
            fresh_section(&mut md, fresh);
        }
        if let Some(costs) = &self.reset_costs {
            reset_cost_section(&mut md, costs);
        }
        if let Some(fast_path) = &self.fast_path {
            fast_path_section(&mut md, fast_path, &self.machine.c_probes, false);
        }
        if let Some(scopes) = &self.scopes {
            scope_section(&mut md, scopes);
        }
        self.last_sections(&mut md);
        // The sections link their charts by bare file name; point them at the README's copies.
        for file in [charts::REAL_USE_FILE, charts::SCOPES_FILE, "seed004.svg"] {
            md = md.replace(&format!("]({file})"), &format!("]({README_IMAGES}{file})"));
        }
        // One level below the snippet's own heading.
        format!("## Benchmarks\n\n{}{README_END}\n", md.replace("\n## ", "\n### "))
    }

    /// The sections the report and the README snippet end with, in the same order.
    fn last_sections(&self, md: &mut String) {
        if !self.threads.is_empty() {
            threads_section(md, &self.threads);
        }
        if let Some(real_use) = &self.real_use {
            real_use_section(md, real_use);
        }
        if let Some(programs) = &self.programs {
            programs_section(md, programs);
        }
        if let Some(seed004) = &self.seed004 {
            seed004_section(md, seed004, crate::seed004::rounds(self.effort));
        }
    }

    fn header(&self, md: &mut String) {
        let m = &self.machine;
        let crates = m.crates.iter().map(|(name, version)| format!("{name} {version}")).collect::<Vec<_>>().join(", ");
        let effort = match self.effort {
            crate::cli::Effort::Quick => "quick (default)",
            crate::cli::Effort::Full => "full",
        };
        let _ = writeln!(md, "| machine | |\n|---|---|");
        let _ = writeln!(md, "| CPU | {} |", m.cpu);
        let _ = writeln!(md, "| cores | {} |", m.cores);
        let _ = writeln!(md, "| kernel | {} |", m.kernel);
        let _ = writeln!(md, "| rustc | {} |", m.rustc);
        let _ = writeln!(md, "| crates | {crates} |");
        let _ = writeln!(md, "| effort | {effort} |");
        if let Some(filter) = &self.filter {
            let _ = writeln!(md, "| filter | `{filter}` |");
        }
        md.push('\n');
    }

    fn speed_section(&self, md: &mut String, speed: &SpeedResults) {
        let processes = speed.process_count();
        let _ = writeln!(md, "## Speed\n");
        let _ = writeln!(
            md,
            "- Each cell: median time per operation over {} samples ({processes} processes × {}), and \
             the ratio to the fastest contender of the row (1.00x = fastest).\n\
             - A sample is one timed batch of 1,000–10,000 allocations (fewer for large sizes: a batch \
             spans about 256 KiB) into an arena that was sized and filled beforehand and reset, untimed, \
             before the batch, so no timed batch allocates a chunk (checked at the global allocator: ⚠ \
             marks a cell where one did). Clock overhead ({} ns per timed region) is subtracted.\n\
             - All cells of a row take turns sample by sample, starting with a different one each round.\n\
             - Each contender uses its ordinary calls: `alloc`, `alloc_slice_copy`, `alloc_str`, `reset` \
             (blink-alloc: `put`, `copy_slice`, `copy_str`); in the `_lit` rows stumpalo uses its own \
             `alloc_slice_lit_copy` / `alloc_str_lit`. Copy sources start a 4 KiB page.\n\
             - *bumpdown Scope* is bumpdown's scope handle: each batch runs in one \
             `arena.scope(|s| ...)` on a `bumpdown::Arena` and allocates through `s` (in the \
             second table the `#[inline(never)]` function gets `&Scope`). The clock starts inside \
             the scope and stops before leaving it, and leaving it frees the batch, so it needs no \
             `reset`. Entering and leaving are timed in the `clear` rows: there its operation is \
             entering and leaving a scope (a scope user's reset), in `clear_and_reuse` a scope \
             holding the allocations.\n\
             - The processes measure on a thread whose stack is shifted by 16 bytes per process, so \
             stack-local arenas land in every 16-byte slot of a cache line (stack offsets mod 64: {:?}). \
             *spread*: for the cell of the row where it is widest, the range of the per-process medians \
             (a whole process running faster or slower moves all of its cells alike) and the range of \
             the per-process ratios to the row's fastest (what placement does to the comparison).\n\
             - Measuring took {:.0} s.\n",
            processes * speed.samples_per_process,
            speed.samples_per_process,
            ns(speed.clock_overheads.iter().copied().fold(0.0, f64::max)),
            speed.stack_offsets,
            speed.elapsed.as_secs_f64(),
        );
        for form in Form::ALL {
            speed_table(md, speed, form);
            let file = if form == Form::Local { "speed-local.svg" } else { "speed-ref.svg" };
            let _ = writeln!(md, "Chart: [{file}]({file}).\n");
        }
        let rows = speed.rows.iter().map(|row| (row.name.as_str(), row.what.as_str(), row.unit.describe()));
        what_each_row(md, "What each row allocates", rows);
    }

    fn reset_section(&self, md: &mut String) {
        let _ = writeln!(md, "## What `reset` keeps\n");
        let _ = writeln!(
            md,
            "Each arena starts empty, receives {} MiB in 1 KiB `alloc_slice_copy`s, is reset, \
             then receives the same again. Counted at the global allocator.\n",
            resets::FILL_BYTES >> 20
        );
        let columns = ["chunks (MiB) after the fill", "kept by `reset`", "chunk allocations for the refill"];
        let lines = self.resets.iter().map(|r| {
            let cells = [format!("{} ({})", r.filled.0, mib(r.filled.1)), format!("{} ({})", r.kept.0, mib(r.kept.1))];
            (r.name.clone(), cells.into_iter().chain([r.refill_calls.to_string()]).map(Some).collect())
        });
        grid(md, "contender", &columns, lines);
    }
}

/// One speed table: a row per case, a column per contender, and each contender's
/// geometric mean of ratios over the rows every contender has.
fn speed_table(md: &mut String, speed: &SpeedResults, form: Form) {
    let names = contenders::column_names();
    let _ = writeln!(md, "### {}\n", form_title(form));
    let (mut lines, ratios): (Vec<_>, Vec<_>) = speed
        .rows
        .iter()
        .map(|row| {
            let cells: Vec<_> =
                names.iter().map(|name| speed.cell(&row.name, form, name).map(|c| Timed(&c.contender, c))).collect();
            timed_row(&row.name, &cells, speed.process_count())
        })
        .unzip();
    let (means, complete_rows) = geometric_means(ratios, names.len());
    if complete_rows > 0 {
        let cells = means.iter().map(|mean| Some(format!("{} **{mean:.2}x**", colour(*mean))));
        lines.push(("**geometric mean of ratios**".to_owned(), cells.chain([Some(String::new())]).collect()));
    }
    timed_table(md, &names, lines);
}

fn scope_section(md: &mut String, scopes: &ScopeResults) {
    let processes = scopes.stack_offsets.len();
    let _ = writeln!(md, "## Scopes and temporary memory\n");
    let _ = writeln!(
        md,
        "- Each cell: median time per operation over {} samples ({processes} processes × {}), and the \
         ratio to the fastest way of the row (1.00x = fastest). Measured as the speed table is: all \
         cells of a row interleaved sample by sample after a warm-up, clock overhead subtracted, the \
         stack shifted 16 bytes per process (offsets mod 64: {:?}). Measuring took {:.0} s.\n\
         - Arenas are sized and warmed beforehand and scopes rewind on exit, so no timed batch \
         allocates a chunk (⚠ marks a cell where one did). Every allocation goes to `black_box`.\n\
         - In the scope columns the arena lives on the heap and reaches an `#[inline(never)]` \
         function as `&mut`; that function opens the scope, with the crate's own call, and runs the \
         loop. `scratch` needs no arena: it uses the thread's own.\n\
         - *Allocation loop*: one scope per sample, {} allocations in it. The `&Arena` and local \
         `Arena` columns are the speed table's two forms of bumpdown: the same loop without a scope.\n\
         - *Enter / allocate / exit*: one operation is: enter a scope, {} × `alloc(u64)`, leave; {} \
         per sample.\n\
         - *Bumper.jl*: `f(x)` takes a temporary of `x.len()` = {} `i64`, fills it with `x[i] + 1` \
         and returns its sum, as in Bumper.jl's README. `f` is `#[inline(never)]`; input and result \
         pass through `black_box`, and so does the filled temporary before the sum, so it is really \
         allocated, written and read back. The `Vec` is `collect`ed and runs with the bench's heap \
         counters paused (their atomic adds are not part of `malloc`); `arena.scope` gets the arena \
         as `&mut Arena`; the stack array is zeroed (safe Rust) and sliced to the input's length. \
         *The work alone* is the same function on an uninitialized stack array: no allocation, \
         no zeroing; each column's distance from it is what its memory costs. {} calls per sample.\n",
        processes * scopes.samples_per_process,
        scopes.samples_per_process,
        scopes.stack_offsets,
        scopes.elapsed.as_secs_f64(),
        thousands(scopes::LOOP_ITERS),
        scope_kernels::PER_SCOPE,
        thousands(scopes::ENTER_ITERS),
        crate::bumper::LEN,
        thousands(scopes::BUMPER_ITERS),
    );
    if scopes.rows.iter().any(|row| row.table == Table::Collections) {
        let _ = writeln!(
            md,
            "- *Collections*: one operation builds a string (`push_str` of 1 to 16-byte pieces, {} bytes) \
             or a vector ({} `push` of `u64`) from empty, then resets the arena; {} per sample. The \
             `allocator_api2` columns use `Vec<_, &Bump>` / `Vec<_, &Arena>` with `extend_from_slice` / \
             `push`.\n",
            thousands(crate::collection_kernels::STRING_BYTES),
            thousands(crate::collection_kernels::VEC_LEN),
            thousands(scopes::COLLECTION_ITERS),
        );
    }
    for table in Table::ALL {
        scope_table(md, scopes, table);
    }
    let _ = writeln!(md, "![scopes: each way's ratio to the row's fastest]({})\n", charts::SCOPES_FILE);
    let rows = scopes.rows.iter().map(|row| (row.name.as_str(), row.what.as_str(), row.table.unit()));
    what_each_row(md, "What each row does", rows);
}

/// One scope table: a row per case, a column per way; the Bumper table adds each
/// row's ratios to the stack array.
fn scope_table(md: &mut String, scopes: &ScopeResults, table: Table) {
    let rows: Vec<_> = scopes.rows.iter().filter(|row| row.table == table).collect();
    if rows.is_empty() {
        return;
    }
    let ways = table.ways();
    let _ = writeln!(md, "### {} ({})\n", table.title(), table.unit());
    let mut lines = Vec::new();
    for row in &rows {
        let cells: Vec<_> = ways.iter().map(|w| scopes.cell(&row.name, w.key).map(|c| Timed(&c.way, c))).collect();
        lines.push(timed_row(&row.name, &cells, scopes.stack_offsets.len()).0);
        if table == Table::Bumper {
            let stack = scopes.cell(&row.name, scopes::STACK_ARRAY).map(|c| c.median_ns).filter(|s| *s > 0.0);
            let ratio = |cell: &Option<Timed>| Some(format!("{:.2}x", cell.as_ref()?.1.median_ns / stack?));
            let ratios = cells.iter().map(ratio).chain([Some(String::new())]).collect();
            lines.push(("ratio to the stack array".to_owned(), ratios));
        }
    }
    let titles: Vec<&str> = ways.iter().map(|w| w.title).collect();
    timed_table(md, &titles, lines);
}

fn threads_section(md: &mut String, cells: &[ThreadCell]) {
    let _ = writeln!(
        md,
        "## Arenas shared between threads
"
    );
    let _ = writeln!(
        md,
        "Each thread allocates {} `u64`s (written, `black_box`ed) as fast as it can; the threads \
         start together at a barrier. A cell is the slowest thread's ns per allocation (median \
         over samples, fastest–slowest sample in brackets) and its ratio to the fastest in the row. \
         \"shared\" allocates through the shared arena (`&SyncArena`, `&SyncBlinkAlloc`, a \
         `Mutex<bumpalo::Bump>` locked per allocation); \"per-thread handle\" through \
         `SyncArena::local` / `SyncBlinkAlloc::local`.\n",
        thousands(threads::PER_THREAD)
    );
    let mut names: Vec<&str> = Vec::new();
    for c in cells {
        if !names.contains(&c.contender.as_str()) {
            names.push(&c.contender);
        }
    }
    let header: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let mut rows: Vec<(usize, threads::Mode)> = Vec::new();
    for c in cells {
        if !rows.contains(&(c.threads, c.mode)) {
            rows.push((c.threads, c.mode));
        }
    }
    let rows = rows.into_iter().map(|(t, mode)| {
        let row: Vec<&ThreadCell> = cells.iter().filter(|c| c.threads == t && c.mode == mode).collect();
        let fastest = row.iter().map(|c| c.median_ns).fold(f64::INFINITY, f64::min);
        let cell = |c: &&ThreadCell| {
            let (ratio, (lo, hi)) = (c.median_ns / fastest, c.range);
            format!("{} {ratio:.2}x ({} ns [{}–{}])", colour(ratio), ns(c.median_ns), ns(lo), ns(hi))
        };
        (
            format!("{t} | {}", mode.key()),
            names.iter().map(|n| row.iter().find(|c| c.contender == *n).map(cell)).collect(),
        )
    });
    grid(md, "threads | access", &header, rows);
}

/// Within this much of the fastest, a cell counts as a tie in the summary (the speed
/// issue's bar; the per-process spread in the tables says how much noise there was).
const TIE: f64 = 1.03;

/// The other projects' arenas; every other column is one of bumpdown's faces.
const PEERS: [&str; 4] = ["stumpalo", "bumpalo", "bump-scope", "blink-alloc"];

/// Where bumpdown stands against the other arenas, per form: its best face against the
/// best peer, row by row (ahead, within [`TIE`], behind, and who is ahead there), then
/// the same count for the default `Arena` alone.
fn summary_section(md: &mut String, speed: &SpeedResults) {
    let _ = writeln!(md, "## Summary\n");
    for form in crate::kernels::Form::ALL {
        // (ahead, tie, behind) for the best face and for `Arena`; the rows behind.
        let (mut best, mut arena, mut behind) = ([0; 3], [0; 3], Vec::new());
        let tally =
            |counts: &mut [usize; 3], ratio: f64| counts[usize::from(ratio > 1.0) + usize::from(ratio > TIE)] += 1;
        for row in &speed.rows {
            let cells: Vec<_> = speed.cells.iter().filter(|c| c.row == row.name && c.form == form).collect();
            let fastest = |peer: bool| {
                cells
                    .iter()
                    .filter(|c| PEERS.contains(&c.contender.as_str()) == peer)
                    .min_by(|a, b| a.median_ns.total_cmp(&b.median_ns))
            };
            let (Some(ours), Some(peer)) = (fastest(false), fastest(true)) else { continue };
            let ratio = ours.median_ns / peer.median_ns;
            tally(&mut best, ratio);
            if ratio > TIE {
                behind.push(format!("{} ({ratio:.2}x; {} ahead)", row.name, peer.contender));
            }
            if let Some(plain) = cells.iter().find(|c| c.contender == "bumpdown") {
                tally(&mut arena, plain.median_ns / peer.median_ns);
            }
        }
        let total: usize = best.iter().sum();
        if total == 0 {
            continue;
        }
        let form_name = match form {
            crate::kernels::Form::Local => "stack-local arena",
            crate::kernels::Form::Ref => "through a reference",
        };
        let tie = (TIE - 1.0) * 100.0;
        let _ = write!(
            md,
            "- Speed, {form_name}, against the best of {peers} in each row: bumpdown's fastest face \
             is ahead on {} of {total} rows, within {tie:.0}% on {}, behind on {}",
            best[0],
            best[1],
            best[2],
            peers = PEERS.join(", "),
        );
        if behind.is_empty() {
            md.push_str(". ");
        } else {
            let _ = write!(md, " ({}). ", behind.join(", "));
        }
        let _ = writeln!(
            md,
            "The default `Arena` alone: ahead on {}, within {tie:.0}% on {}, behind on {}.",
            arena[0], arena[1], arena[2]
        );
    }
    md.push('\n');
}

fn fast_path_section(md: &mut String, fast_path: &FastPath, c_probes: &(bool, String), listings: bool) {
    let _ = writeln!(md, "## Fast path: instructions per allocation\n");
    let probes = match fast_path {
        FastPath::Counted(probes) => probes,
        FastPath::Unavailable(why) => {
            let _ = writeln!(md, "Not measured: {why}.\n");
            return;
        }
    };
    let _ = writeln!(
        md,
        "Counted in this benchmark's own machine code (`objdump -d` of the running executable). Each \
         call is made by an `#[inline(never)]` probe function through the same glue the speed table \
         uses, with the arena as `&Arena`; *{scope}* makes it through bumpdown's scope handle \
         (`&Scope` inside `arena.scope(..)`), whose slow path takes the scope's pointer by value, \
         so that its fast path keeps the old pointer in a register for that call; *{facade}* through \
         `bumpdown-bumpalo`'s `Bump` (bumpalo's API over `bumpdown::Arena`), which must compile to \
         the same instructions as *bumpdown*. A cell is \
         *instructions / conditional branches* from the probe's entry to its first `ret` \
         (included): the path of an allocation that fits the current chunk, as laid out by the \
         compiler; \"+ `memcpy`\" names a call on that path. \"(+n)\" counts apart the instructions \
         on that path that only serve a call (push and pop, parking a value in a callee-saved \
         register, aligning the stack): gcc keeps those of the slow path's call in the prologue, \
         where LLVM moves them into the slow block when it can. Fewer instructions are not always \
         faster (the speed table decides), but these are paid on every allocation.\n",
        scope = fastpath::SCOPE,
        facade = <bumpdown_bumpalo::Bump as crate::contenders::Contender>::NAME,
    );
    c_columns_note(md, c_probes);
    let names = fastpath::columns(probes);
    let cell = |p: &fastpath::Probe| {
        let calls: String = p.callees.iter().map(|c| format!(" + `{c}`")).collect();
        let saves = if p.register_saves > 0 { format!(" (+{})", p.register_saves) } else { String::new() };
        format!("{} / {}{calls}{saves}", p.instructions, p.branches)
    };
    let rows = fastpath::CALLS.map(|call| {
        let probe = |name: &&str| probes.iter().find(|p| p.call == call && p.contender == *name && p.instructions > 0);
        (format!("`{call}`"), names.iter().map(|name| probe(name).map(cell)).collect())
    });
    grid(md, "call", &names, rows);
    if listings {
        let _ = writeln!(md, "The instructions of every probe are in `{LISTINGS_FILE}`, beside this report.\n");
    }
}

/// The file beside the report that holds the fast-path probes' disassembly: hundreds of
/// lines that no reader of the tables wants on the terminal.
pub const LISTINGS_FILE: &str = "fast-path-listings.md";

/// The disassembly of every fast-path probe, as markdown, or `None` when the section was
/// not measured.
fn fast_path_listings(fast_path: Option<&FastPath>) -> Option<String> {
    let Some(FastPath::Counted(probes)) = fast_path else { return None };
    let mut md = String::from("# Fast-path probes: the instructions counted\n\n");
    for p in probes {
        let _ = writeln!(md, "{} `{}`:\n\n```asm\n{}\n```\n", p.contender, p.call, p.listing.join("\n"));
    }
    Some(md)
}

/// What the fast-path table's C columns hold, or why they are empty (`c_probes`: were
/// they built, and by which compiler or why not).
fn c_columns_note(md: &mut String, (built, build): &(bool, String)) {
    if *built {
        let _ = writeln!(
            md,
            "The C columns are the inline fast path of the C API's header (`bumpdown.h`), built into \
             this benchmark by {compiler}: `{alloc}` is `bd_alloc(arena, size, align)` with the size \
             and alignment of each type (the value stored, as the Rust calls do), and for the slice \
             copy a run-time size with alignment 1 and then `memcpy`. The default header checks for a \
             NULL arena first: a `test` and a conditional jump (2 instructions, one branch) per call, \
             which gcc keeps out of a loop's cycle (see the comment above `bd_alloc`). `{nonnull}` is \
             the same call with `BD_NO_NULL_CHECK` defined before the header: the bump alone, which \
             is the Rust fast path. `{vm}` is the virtual-memory arena's `bd_vm_alloc`, default \
             header, which bumps upwards like `VmArena`. C has no inline `alloc_str` (`bd_strdup` \
             is a call into the library).\n",
            compiler = build,
            alloc = fastpath::C_ALLOC,
            nonnull = fastpath::C_ALLOC_NONNULL,
            vm = fastpath::C_VM_ALLOC,
        );
    } else {
        let _ = writeln!(md, "The C columns are empty: {build}.\n");
    }
}

fn programs_section(md: &mut String, p: &crate::programs::Programs) {
    let _ = writeln!(md, "## Real programs under other allocators\n");
    let _ = writeln!(
        md,
        "Programs no one here wrote, each run under every allocator in turn ({} interleaved \
         round(s); `--full` runs three rounds and every program). Under `LD_PRELOAD`: glibc \
         (nothing preloaded), mimalloc, jemalloc and `libbumpdown_malloc.so` (default mode, and \
         pure bump for FileCheck); FileCheck runs seed 001's torture input (500,000 random \
         lines, one `CHECK: {{{{.+}}}}` per line); the other inputs are generated with fixed \
         seeds (`crates/bumpdown-malloc/bench/gen_inputs.py`), and each program's output must \
         be the same under every allocator. The Rust programs (serde_json: parse ~100 MB of JSON \
         into a `Value`, walk it, exit; with `--full` also `syn`: parse ~4 MB of generated Rust, \
         walk the tree, exit) are built three times: system allocator, mimalloc, `BumpGlobal`. \
         Wall and CPU times are medians; ratios are to glibc, of the medians and *paired* (each \
         run against glibc's run of the same round: median and range). Programs run here: {}.\n",
        p.rounds, p.preload_programs
    );
    for line in p.output.lines() {
        let _ = writeln!(md, "{line}");
    }
    md.push('\n');
}

fn real_use_section(md: &mut String, r: &RealUse) {
    let _ = writeln!(md, "## Real use: parse, evaluate, drop a syntax tree\n");
    let _ = writeln!(
        md,
        "A generated program ({} MiB, {} statements such as `x12 = (x3 + 41) * max(x7, -x1, 9);`, \
         {} nodes, fixed seed) is parsed by one recursive-descent parser into a tree held three \
         ways: in a `bumpdown::Arena` (children `&'a Expr<'a>` by `alloc`, call arguments by \
         `alloc_slice_copy`, names by `alloc_str`, the statement list by `alloc_iter`), in a \
         `bumpalo::Bump` (the same calls), and on the heap (`Box` children, `Vec` arguments, \
         `Box<str>` names). Then the program is evaluated (a walk of the whole tree) and the tree \
         dropped. Arenas start empty (`new()`), so parsing includes their chunk growth. Median of {} \
         runs per way, the ways taking turns; all agree on the result. *Held* is what the tree holds \
         from the global allocator once parsed (requested bytes, so `malloc`'s per-block overhead \
         comes on top for each block); for arenas `allocated_bytes()` is their chunks' capacity.\n",
        r.source_bytes >> 20,
        thousands(r.statements),
        thousands(r.nodes),
        r.runs
    );
    let fastest = r.ways.iter().map(|w| w.parse_ms + w.eval_ms + w.drop_ms).fold(f64::INFINITY, f64::min);
    let columns = ["parse ms", "evaluate ms", "drop ms", "total", "held (MiB)", "heap blocks"];
    let lines = r.ways.iter().map(|w| {
        let total = w.parse_ms + w.eval_ms + w.drop_ms;
        let ratio = total / fastest;
        let cells = [
            format!("{:.1}", w.parse_ms),
            format!("{:.1}", w.eval_ms),
            format!("{:.2}", w.drop_ms),
            format!("{} {ratio:.2}x ({total:.1} ms)", colour(ratio)),
            mib(w.heap_bytes),
            thousands(w.heap_blocks),
        ];
        (w.name.clone(), cells.into_iter().map(Some).chain([w.arena_bytes.map(mib)]).collect())
    });
    grid(md, "tree in", &columns.into_iter().chain(["`allocated_bytes()` (MiB)"]).collect::<Vec<_>>(), lines);
    let _ = writeln!(
        md,
        "The generator, the parser and both tree types are in `crates/bumpdown-bench/src/realuse.rs` \
         ({} bytes of source asked for).\n",
        thousands(realuse::SOURCE_BYTES)
    );
    let _ = writeln!(md, "![real use: parse, evaluate and drop ms per way]({})\n", charts::REAL_USE_FILE);
}

fn seed004_section(md: &mut String, results: &[Seed004Result], rounds: usize) {
    let _ = writeln!(md, "## Seed-004: ten million 64-byte allocations\n");
    let _ = writeln!(
        md,
        "- Each contender runs in its own process: {} allocations of {} bytes, each written in \
         full; then everything is freed at once (arena `reset`, or the `free`s); then all {} again \
         (pass 2, warm). The whole list runs {} times, interleaved; each figure is the median.\n\
         - Arenas start empty (`new()`), so pass 1 includes chunk growth and page faults; a page \
         fault maps one fresh 4 KiB page, so a warm pass without faults reused all of its memory.\n\
         - `bare-bump` moves a pointer through a buffer written in full beforehand: the floor. \
         `bare-bump (fresh pages)` does the same over a buffer never touched: its pass 1 is the \
         first-touch floor (one fault per 4 KiB page) that an arena growing on fresh memory \
         pays unless it populates pages ahead; *cold vs first touch* compares pass 1 with it.\n\
         - *Pass 1 CPU* is the process's user and system time per allocation, every thread \
         counted: above the wall time when a thread of the allocator's works alongside.\n\
         - Peak RSS is the child's `getrusage` `ru_maxrss`, compared with the {} MB payload.\n",
        thousands(seed004::COUNT),
        seed004::SIZE,
        thousands(seed004::COUNT),
        rounds,
        seed004::PAYLOAD / 1_000_000
    );
    let warm = |name: &str| results.iter().find(|r| r.name == name).map(|r| r.warm.ns).filter(|ns| *ns > 0.0);
    let floor = warm(seed004::BARE_BUMP);
    let first_touch = results.iter().find(|r| r.name == seed004::FIRST_TOUCH).map(|r| r.cold.ns);
    let ratio = |x: f64, base: Option<f64>| base.filter(|b| *b > 0.0).map(|b| format!("{:.2}x", x / b));
    let columns = [
        "pass 1 (cold) ns/alloc",
        "cold vs first touch",
        "pass 1 CPU ns/alloc",
        "pass 2 (warm) ns/alloc",
        "warm vs bare bump",
        "page faults pass 1 / 2",
        "free between passes",
        "peak RSS",
        "peak RSS / payload",
    ];
    let lines = results.iter().map(|r| {
        let cells = vec![
            Some(ns(r.cold.ns)),
            ratio(r.cold.ns, first_touch),
            Some(ns(r.cold.cpu_ns)),
            Some(ns(r.warm.ns)),
            ratio(r.warm.ns, floor),
            Some(format!("{} / {}", r.cold.faults, r.warm.faults)),
            (r.release_ms > 0.0).then(|| format!("{:.1} ms", r.release_ms)),
            Some(format!("{:.0} MB", r.peak_rss as f64 / 1e6)),
            Some(format!("{:.2}x", r.peak_rss as f64 / seed004::PAYLOAD as f64)),
        ];
        (r.name.clone(), cells)
    });
    grid(md, "contender", &columns, lines);
    let _ = writeln!(
        md,
        "`malloc-free-each` frees each block at once, so it never holds the payload; \
         `malloc-all-free-all`'s RSS includes its 80 MB pointer array.\n"
    );
    if let (Some(vm), Some(glibc)) =
        (warm(<bumpdown::VmArena as crate::contenders::Contender>::NAME), warm(seed004::MALLOC_EACH))
    {
        let _ = writeln!(
            md,
            "Warm, `VmArena` takes {} ns per allocation and glibc `malloc`+`free` {} ns: **{:.2}x \
             faster**. `malloc-free-each` gets the same block back every time, so it writes one \
             cache line that never leaves L1; an arena writes {} MB of lines last touched a whole \
             pass ago, and each is a cache miss. `VmArena` asks the CPU for the line {} KiB above its \
             bump pointer on every allocation, so those misses are under way before the program's \
             stores arrive; the chunked arenas, and `bare-bump`, wait for the hardware prefetcher.\n",
            ns(vm),
            ns(glibc),
            glibc / vm,
            seed004::PAYLOAD / 1_000_000,
            bumpdown::bumping::PREFETCH_AHEAD / 1024
        );
    }
    let _ = writeln!(md, "![seed-004: cold and warm ns per allocation](seed004.svg)\n");
}

/// "How to read this report", with chart links prefixed by `image_dir`.
fn how_to_read<'a>(md: &mut String, charts: impl Iterator<Item = &'a str>, image_dir: &str) {
    let charts: Vec<String> = charts.map(|file| format!("[{file}]({image_dir}{file})")).collect();
    let _ = writeln!(
        md,
        "**How to read this report.** Each speed cell is the median time of one operation and its \
         ratio to the fastest contender of the same row: **1.00x is the fastest**, 1.50x takes half \
         as long again. The marks band the ratio: {}. Every table is measured twice: with a \
         *stack-local* arena, which the compiler may keep in registers across an inlined loop (the \
         best case), and *through a reference* (`&Arena` passed to an `#[inline(never)]` function, \
         as in code that hands an arena to helpers), where every allocation loads and stores the \
         bump pointer. Each table is measured in several processes with the stack shifted 16 bytes \
         each; the *spread* column shows how far a cell moved between them, so ratios closer \
         together than that spread are a tie. The numbers come from one shared machine: compare \
         ratios, not absolute nanoseconds.{}\n",
        legend(),
        if charts.is_empty() {
            String::new()
        } else {
            format!(" The charts ({}) are SVG files; in each, one colour is one contender.", charts.join(", "))
        }
    );
}

/// The cargo target directory: `CARGO_TARGET_DIR` if set, else the nearest
/// ancestor of this executable that cargo marked with `CACHEDIR.TAG`.
pub fn target_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    let parent = exe.parent()?;
    parent.ancestors().find(|dir| dir.join("CACHEDIR.TAG").is_file()).or_else(|| parent.parent()).map(Path::to_path_buf)
}

/// What a report run writes: the report and everything beside it.
pub struct Rendered {
    /// `report.md`.
    pub markdown: String,
    /// `readme-snippet.md`.
    pub readme: String,
    /// The SVG charts.
    pub charts: Vec<Chart>,
    /// `fast-path-listings.md`, when the fast-path section ran.
    pub listings: Option<String>,
}

/// The report, README snippet, charts and listings that `results` make. The report run
/// and `render` both come here, so a stored results file renders the same report.
pub fn render(results: &Results) -> Rendered {
    let charts = results.charts();
    Rendered {
        markdown: results.markdown(&charts),
        readme: results.readme(&charts),
        listings: fast_path_listings(results.fast_path.as_ref()),
        charts,
    }
}

/// The results file's name beside the report.
pub const RESULTS_FILE: &str = "results.json";

/// Writes `report.md`, the results file, `readme-snippet.md`, the charts and the
/// fast-path listings under `<target>/bumpdown-report/`, and returns that directory.
pub fn save(rendered: &Rendered, results_json: &str) -> Result<PathBuf, String> {
    let dir = target_dir().ok_or("cannot find the target directory")?.join("bumpdown-report");
    write_files(&dir, rendered, Some(results_json))?;
    Ok(dir)
}

/// Writes `report.md`, `readme-snippet.md`, the charts, the listings and, when given,
/// the results file into `dir`, making it if needed.
pub fn write_files(dir: &Path, rendered: &Rendered, results_json: Option<&str>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))
    };
    write("report.md", &rendered.markdown)?;
    if let Some(json) = results_json {
        write(RESULTS_FILE, json)?;
    }
    write("readme-snippet.md", &rendered.readme)?;
    if let Some(listings) = &rendered.listings {
        write(LISTINGS_FILE, listings)?;
    }
    for chart in &rendered.charts {
        write(chart.file, &chart.svg)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::resets::ResetResult;

    /// Issue 22: a stored results file renders the report the run printed, byte for byte
    /// (every `f64` read back exactly, every section that holds data).
    #[test]
    fn a_stored_run_renders_the_same_report() {
        use crate::kernels::Form::{Local, Ref};
        let speed = SpeedResults::for_tests(
            &["alloc_u8", "clear"],
            &[
                ("alloc_u8", Local, "bumpdown", 0.1 + 0.2),
                ("alloc_u8", Local, "bumpalo", 1.0 / 3.0),
                ("alloc_u8", Ref, "bumpdown", 12_345.678_9),
                ("clear", Local, "stumpalo", 1e-7),
            ],
        );
        let pass = |ns: f64| seed004::Pass { ns, faults: 12, cpu_ns: ns * 1.1 };
        let results = Results {
            format_version: crate::results::FORMAT_VERSION,
            filter: Some("a\"quoted\" filter".to_owned()),
            speed: Some(speed),
            resets: vec![ResetResult {
                name: "bumpalo".to_owned(),
                filled: (3, 7 << 20),
                kept: (1, 4 << 20),
                refill_calls: 2,
            }],
            threads: vec![ThreadCell {
                threads: 2,
                mode: threads::Mode::Shared,
                contender: "SyncArena".to_owned(),
                median_ns: 2.0 / 7.0,
                range: (0.2, 0.9),
            }],
            seed004: Some(vec![Seed004Result {
                name: "VmArena".to_owned(),
                cold: pass(3.3),
                warm: pass(1.7),
                release_ms: 0.25,
                peak_rss: 700_000_000,
                spread: seed004::Seed004Spread { cold_ns: 0.1, warm_ns: 0.05, release_ms: 0.5, peak_rss: 0.01 },
            }]),
            fast_path: Some(FastPath::Unavailable("no objdump".to_owned())),
            failed: vec![("programs".to_owned(), "exit status: 2".to_owned())],
            ..Results::default()
        };
        let stored = Results::from_json(&results.to_json()).unwrap();
        let (before, after) = (render(&results), render(&stored));
        assert_eq!(before.markdown, after.markdown);
        assert_eq!(before.readme, after.readme);
        assert_eq!(before.listings, after.listings);
        let svgs = |r: &Rendered| r.charts.iter().map(|c| (c.file, c.svg.clone())).collect::<Vec<_>>();
        assert_eq!(svgs(&before), svgs(&after));
        assert_eq!(stored.to_json(), results.to_json());
    }

    #[test]
    fn another_format_version_is_refused() {
        let text = Results { format_version: crate::results::FORMAT_VERSION + 1, ..Results::default() }.to_json();
        let err = Results::from_json(&text).unwrap_err();
        assert!(err.contains("format version"), "{err}");
        assert!(Results::from_json("{}").is_err());
    }

    #[test]
    fn nanoseconds_keep_about_three_digits() {
        assert_eq!(ns(0.8412), "0.84");
        assert_eq!(ns(12.34), "12.3");
        assert_eq!(ns(1234.4), "1234");
        assert_eq!(thousands(10_000_000), "10,000,000");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn the_seed004_section_compares_vm_arenas_warm_pass_with_glibc() {
        let result = |name: &str, warm: f64| Seed004Result {
            name: name.to_owned(),
            cold: seed004::Pass { ns: 30.0, faults: 1, cpu_ns: 30.0 },
            warm: seed004::Pass { ns: warm, faults: 0, cpu_ns: warm },
            release_ms: 0.0,
            peak_rss: 1 << 20,
            spread: Default::default(),
        };
        let mut md = String::new();
        seed004_section(&mut md, &[result("VmArena", 7.5), result(seed004::MALLOC_EACH, 15.0)], 3);
        assert!(md.contains("glibc `malloc`+`free` 15.0 ns: **2.00x faster**"), "{md}");
        // Without glibc's row (a filtered run) there is nothing to compare with.
        let mut md = String::new();
        seed004_section(&mut md, &[result("VmArena", 7.5)], 3);
        assert!(!md.contains("faster**"), "{md}");
    }

    /// Issue 21: one failing section used to discard the whole report. Now the report
    /// opens with its summary, names the failed section, and keeps every other one.
    #[test]
    fn a_failed_section_is_named_and_the_others_are_kept() {
        use crate::kernels::Form::Local;
        let speed = SpeedResults::for_tests(
            &["alloc_u8"],
            &[("alloc_u8", Local, "bumpdown", 1.0), ("alloc_u8", Local, "bumpalo", 2.0)],
        );
        let report = Results {
            speed: Some(speed),
            failed: vec![("programs".to_owned(), "preload.sh failed (exit status: 2)".to_owned())],
            ..Results::default()
        };
        let md = report.markdown(&report.charts());
        let at = |text: &str| md.find(text).unwrap_or_else(|| panic!("no {text:?} in {md}"));
        assert!(at("## Summary") < at("## Sections that failed"), "{md}");
        assert!(md.contains("- **programs**: preload.sh failed (exit status: 2)"), "{md}");
        assert!(at("## Sections that failed") < at("| alloc_u8 |"), "the speed table is kept: {md}");
        assert!(report.to_json().contains("preload.sh failed"));
    }

    #[test]
    fn the_summary_counts_wins_ties_and_who_is_ahead() {
        use crate::kernels::Form::{Local, Ref};
        // a: Arena ahead. b: Arena behind, but the scope handle ahead. c: behind.
        let speed = SpeedResults::for_tests(
            &["a", "b", "c"],
            &[
                ("a", Local, "bumpdown", 1.0),
                ("a", Local, "bumpalo", 2.0),
                ("b", Local, "bumpdown", 1.2),
                ("b", Local, "bumpdown Scope", 0.9),
                ("b", Local, "bumpalo", 1.0),
                ("c", Local, "bumpdown", 1.5),
                ("c", Local, "bumpdown Scope", 1.02),
                ("c", Local, "stumpalo", 1.0),
                ("a", Ref, "bumpdown", 1.0),
                ("a", Ref, "bumpalo", 1.1),
            ],
        );
        let mut md = String::new();
        summary_section(&mut md, &speed);
        assert!(
            md.contains(
                "stack-local arena, against the best of stumpalo, bumpalo, bump-scope, blink-alloc in each \
                 row: bumpdown's fastest face is ahead on 2 of 3 rows, within 3% on 1, behind on 0. The \
                 default `Arena` alone: ahead on 1, within 3% on 0, behind on 2."
            ),
            "{md}"
        );
        assert!(md.contains("through a reference, against"), "{md}");
        // A row where every face of ours is behind names the peer ahead.
        let mut slow = speed.clone();
        slow.cells.retain(|c| c.contender != "bumpdown Scope");
        let mut md = String::new();
        summary_section(&mut md, &slow);
        assert!(md.contains("behind on 2 (b (1.20x; bumpalo ahead), c (1.50x; stumpalo ahead))"), "{md}");
    }
}
