//! The report's charts, as SVG files next to `report.md`.
//!
//! * `speed-local.svg`, `speed-ref.svg`: every row of the speed table, one group
//!   of bars per row, one bar per contender, as the ratio to the row's fastest.
//! * `speed-summary.svg`: the same for a handful of rows, with larger labels.
//! * `size-struct.svg`, `size-str.svg`: ns per allocation against its size.
//! * `scopes.svg`: the scope tables, each way's ratio to the row's fastest way.
//! * `real-use.svg`: parse, evaluate and drop times of the real-use workload.
//! * `seed004.svg`: cold and warm ns per allocation of the seed-004 workload.
//!
//! The programs section has no chart: it keeps the tables its scripts print as
//! text and parses no numbers.

use crate::contenders::{self, Column};
use crate::kernels::Form;
use crate::realuse::RealUse;
use crate::scopes::{ScopeResults, Table};
use crate::seed004::{self, Seed004Result};
use crate::speed::SpeedResults;
use crate::svg::{ticks, Anchor, Svg};
use crate::table::geometric_means;

/// One colour per column of the speed table, in [`contenders::column_names`]
/// order: bumpdown's `Arena`, its scope handle and `VmArena` in blues, the peers in
/// clearly different hues.
const PALETTE: [&str; 8] = ["#1d4ed8", "#0891b2", "#60a5fa", "#1e3a8a", "#f59e0b", "#dc2626", "#16a34a", "#9333ea"];
/// Colour of reference points that are not arenas (seed-004's floor and `malloc`).
const REFERENCE: &str = "#6b7280";
const INK: &str = "#1f2937";
const MUTED: &str = "#6b7280";
const GRID: &str = "#e5e7eb";
const STRIPE: &str = "#f8fafc";

/// The colour of column (or contender) `name`.
pub fn colour_of(name: &str) -> &'static str {
    contenders::column_names().iter().position(|n| *n == name).map_or(REFERENCE, |i| PALETTE[i % PALETTE.len()])
}

/// Rows of the summary chart (the README's), when measured.
pub const SUMMARY_ROWS: [&str; 10] = [
    "alloc_u8",
    "alloc_u64",
    "alloc_u128",
    "alloc_multiple_u64",
    "alloc_struct_64",
    "alloc_slice_u8_32",
    "alloc_str_16",
    "alloc_str_lit_16",
    "clear",
    "clear_and_reuse",
];

/// A chart to write: file name, title (for the markdown link) and the SVG.
pub struct Chart {
    /// File name, next to `report.md`.
    pub file: &'static str,
    /// What it shows, for the link text.
    pub title: String,
    /// The document.
    pub svg: String,
}

/// The results the charts are drawn from (each `None` when not measured).
#[derive(Clone, Copy, Default)]
pub struct Sources<'a> {
    /// The speed table.
    pub speed: Option<&'a SpeedResults>,
    /// The scope tables.
    pub scopes: Option<&'a ScopeResults>,
    /// The real-use workload.
    pub real_use: Option<&'a RealUse>,
    /// The seed-004 workload.
    pub seed004: Option<&'a [Seed004Result]>,
}

/// File of the scope tables' chart, linked from their section.
pub const SCOPES_FILE: &str = "scopes.svg";
/// File of the real-use chart, linked from its section.
pub const REAL_USE_FILE: &str = "real-use.svg";

/// Every chart the results allow.
pub fn all(sources: Sources<'_>) -> Vec<Chart> {
    let mut charts = Vec::new();
    if let Some(speed) = sources.speed {
        speed_charts(&mut charts, speed);
    }
    if let Some(svg) = sources.scopes.and_then(scopes_chart) {
        charts.push(Chart {
            file: SCOPES_FILE,
            title: "Scopes and temporary memory: ratio to the fastest way".to_owned(),
            svg,
        });
    }
    if let Some(real_use) = sources.real_use.filter(|r| !r.ways.is_empty()) {
        charts.push(Chart {
            file: REAL_USE_FILE,
            title: "Real use: parse, evaluate and drop a syntax tree".to_owned(),
            svg: real_use_chart(real_use),
        });
    }
    if let Some(results) = sources.seed004 {
        if !results.is_empty() {
            charts.push(Chart {
                file: "seed004.svg",
                title: "Seed-004: ten million 64-byte allocations, cold and warm".to_owned(),
                svg: seed004_chart(results),
            });
        }
    }
    charts
}

/// The speed table's charts.
fn speed_charts(charts: &mut Vec<Chart>, speed: &SpeedResults) {
    let summary: Vec<&str> = SUMMARY_ROWS.into_iter().filter(|row| speed.rows.iter().any(|r| r.name == *row)).collect();
    if !summary.is_empty() {
        charts.push(Chart {
            file: "speed-summary.svg",
            title: "Speed, selected rows (stack-local arena)".to_owned(),
            svg: ratio_chart(speed, Form::Local, &summary, "Speed: selected rows, stack-local arena", true),
        });
    }
    for (form, file, title) in [
        (Form::Local, "speed-local.svg", "Speed, every row, stack-local arena"),
        (Form::Ref, "speed-ref.svg", "Speed, every row, arena behind `&Arena`"),
    ] {
        let rows: Vec<&str> = speed.rows.iter().map(|r| r.name.as_str()).collect();
        let heading = match form {
            Form::Local => "Speed: stack-local arena (loop inlined)",
            Form::Ref => "Speed: arena reached through a reference (#[inline(never)] function)",
        };
        charts.push(Chart { file, title: title.to_owned(), svg: ratio_chart(speed, form, &rows, heading, false) });
    }
    for (prefix, file, title, x_label) in [
        ("alloc_struct_", "size-struct.svg", "`alloc` of a struct: ns per allocation by size", "struct size (bytes)"),
        ("alloc_str_", "size-str.svg", "`alloc_str`: ns per allocation by length", "string length (bytes)"),
    ] {
        if let Some(svg) = size_chart(speed, prefix, &title.replace('`', ""), x_label) {
            charts.push(Chart { file, title: title.to_owned(), svg });
        }
    }
}

/// Each contender's ratio to the fastest of `row` in `form` (`None` where not measured).
fn ratios(speed: &SpeedResults, row: &str, form: Form, names: &[&str]) -> Vec<Option<f64>> {
    let medians: Vec<Option<f64>> = names.iter().map(|name| speed.cell(row, form, name).map(|c| c.median_ns)).collect();
    let fastest = medians.iter().flatten().copied().fold(f64::INFINITY, f64::min);
    medians.into_iter().map(|m| m.filter(|_| fastest > 0.0 && fastest.is_finite()).map(|m| m / fastest)).collect()
}

/// A new chart of `width` × `height` with its heading, a muted line under it saying how
/// to read it, and a legend of `entries` (name, colour).
fn chart(width: f64, height: f64, heading: &str, how: &str, entries: &[(&str, &str)]) -> Svg {
    let mut svg = Svg::new(width, height);
    svg.bold((16.0, 26.0), 16.0, Anchor::Start, INK, heading);
    svg.text((16.0, 44.0), 11.0, Anchor::Start, MUTED, how);
    legend(&mut svg, (16.0, 64.0), entries, 11.0);
    svg
}

/// Legend: a swatch and a name per entry, in one line from `x`.
fn legend(svg: &mut Svg, (x, y): (f64, f64), entries: &[(&str, &str)], size: f64) {
    let mut x = x;
    for (name, colour) in entries {
        svg.rect(x, y - size * 0.8, size, size, colour);
        svg.text((x + size * 1.4, y), size, Anchor::Start, INK, name);
        // Wide enough for the longest name at this size, without measuring text.
        x += size * 1.4 + name.chars().count() as f64 * size * 0.62 + size * 1.6;
    }
}

/// Grouped horizontal bars of the ratio to the fastest, one group per row.
/// `large` draws bigger bars with their value at the end of every bar.
fn ratio_chart(speed: &SpeedResults, form: Form, rows: &[&str], heading: &str, large: bool) -> String {
    let names = contenders::column_names();
    let bar = if large { 13.0 } else { 8.0 };
    let gap = if large { 14.0 } else { 9.0 };
    let label_width = 190.0;
    let plot_width = 620.0;
    let value_room = 60.0;
    let top = 100.0;
    let mut groups: Vec<(String, Vec<Option<f64>>, bool)> = Vec::new();
    let (means, count) = geometric_means(rows.iter().map(|row| ratios(speed, row, form, &names)), names.len());
    if count > 1 {
        let label = if large { "geo. mean (these rows)" } else { "geometric mean" };
        groups.push((label.to_owned(), means.into_iter().map(Some).collect(), true));
    }
    for row in rows {
        groups.push(((*row).to_owned(), ratios(speed, row, form, &names), false));
    }
    let group_height = bar * names.len() as f64 + gap;
    let height = top + group_height * groups.len() as f64 + 46.0;
    let width = label_width + plot_width + value_room + 20.0;

    // Scale: up to the largest ratio, but at most 2.5x (summary) or 3x; longer bars
    // are cut and labelled, so one slow outlier does not squash every other row.
    let largest = groups.iter().flat_map(|g| g.1.iter().flatten()).copied().fold(1.0, f64::max);
    let cap = largest.clamp(1.5, if large { 2.5 } else { 3.0 });
    let axis = ticks(cap, 6);
    let max = *axis.last().unwrap_or(&cap);
    let x_of = |ratio: f64| label_width + plot_width * ratio.min(max) / max;

    let entries: Vec<(&str, &str)> = names.iter().map(|n| (*n, colour_of(n))).collect();
    let how = "time per operation ÷ the row's fastest: 1.00x is the fastest, shorter is better";
    let mut svg = chart(width, height, heading, how, &entries);

    let plot_bottom = top + group_height * groups.len() as f64;
    for (i, _) in groups.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
        svg.rect(0.0, top + group_height * i as f64, width, group_height, STRIPE);
    }
    for tick in &axis {
        let x = x_of(*tick);
        svg.line((x, top - 4.0), (x, plot_bottom), GRID, 1.0, "");
        svg.text((x, plot_bottom + 16.0), 11.0, Anchor::Middle, MUTED, &format!("{tick:.1}x"));
    }
    for (i, (name, ratios, emphasis)) in groups.iter().enumerate() {
        let y0 = top + group_height * i as f64 + gap / 2.0;
        let label_y = y0 + bar * names.len() as f64 / 2.0 + 4.0;
        if *emphasis {
            svg.bold((label_width - 10.0, label_y), 12.0, Anchor::End, INK, name);
        } else {
            svg.text((label_width - 10.0, label_y), 12.0, Anchor::End, INK, name);
        }
        for (j, ratio) in ratios.iter().enumerate() {
            let Some(ratio) = *ratio else { continue };
            let y = y0 + bar * j as f64;
            let title = format!("{name}, {}: {ratio:.2}x", names[j]);
            svg.rect_titled(label_width, y + 0.5, x_of(ratio) - label_width, bar - 1.0, colour_of(names[j]), &title);
            let cut = ratio > max;
            if large || cut || *emphasis {
                let text = if cut { format!("{ratio:.1}x ▸") } else { format!("{ratio:.2}x") };
                let size = (bar - 1.0).clamp(8.0, 11.0);
                svg.text((x_of(ratio) + 4.0, y + bar * 0.5 + size * 0.35), size, Anchor::Start, INK, &text);
            }
        }
    }
    let one = x_of(1.0);
    svg.line((one, top - 10.0), (one, plot_bottom), INK, 1.5, "5 3");
    svg.text((one, top - 13.0), 10.0, Anchor::Middle, INK, "1.00x = fastest");
    svg.text(
        (label_width + plot_width / 2.0, plot_bottom + 36.0),
        11.0,
        Anchor::Middle,
        MUTED,
        &format!("ratio to the fastest (bars beyond {max:.1}x are cut, their value is written)"),
    );
    svg.finish()
}

/// ns per allocation against size for the rows `prefix<size>` (local form), one
/// line per contender; `None` if fewer than two such rows were measured.
fn size_chart(speed: &SpeedResults, prefix: &str, title: &str, x_label: &str) -> Option<String> {
    let names = contenders::column_names();
    let mut sizes: Vec<(usize, &str)> = speed
        .rows
        .iter()
        .filter_map(|r| {
            let size = r.name.strip_prefix(prefix)?;
            let bytes = match size.strip_suffix('k') {
                Some(k) => k.parse::<usize>().ok()? * 1024,
                None => size.parse().ok()?,
            };
            Some((bytes, r.name.as_str()))
        })
        .collect();
    sizes.sort_unstable();
    if sizes.len() < 2 {
        return None;
    }
    let series: Vec<(&str, Vec<(usize, f64)>)> = names
        .iter()
        .map(|name| {
            let points = sizes
                .iter()
                .filter_map(|(bytes, row)| speed.cell(row, Form::Local, name).map(|c| (*bytes, c.median_ns)))
                .collect();
            (*name, points)
        })
        .collect();
    let values = || series.iter().flat_map(|s| s.1.iter().map(|p| p.1)).filter(|ns| *ns > 0.0);
    let y_axis = log_ticks(values().fold(f64::INFINITY, f64::min), values().fold(0.0, f64::max))?;
    let (y_lo, y_hi) = (y_axis[0].log10(), y_axis[y_axis.len() - 1].log10());

    let (left, top, plot_w, plot_h) = (70.0, 96.0, 640.0, 340.0);
    let (width, height) = (left + plot_w + 40.0, top + plot_h + 60.0);
    let (lo, hi) = ((sizes[0].0 as f64).log2(), (sizes[sizes.len() - 1].0 as f64).log2());
    let x_of = |bytes: usize| left + plot_w * ((bytes as f64).log2() - lo) / (hi - lo).max(1e-9);
    let y_of = |ns: f64| top + plot_h * (1.0 - (ns.max(1e-3).log10() - y_lo) / (y_hi - y_lo));

    let entries: Vec<(&str, &str)> = names.iter().map(|n| (*n, colour_of(n))).collect();
    let how = "median ns per allocation, stack-local arena, lower is better; both axes on a log scale";
    let mut svg = chart(width, height, title, how, &entries);
    for tick in &y_axis {
        let y = y_of(*tick);
        svg.line((left, y), (left + plot_w, y), GRID, 1.0, "");
        svg.text((left - 8.0, y + 4.0), 11.0, Anchor::End, MUTED, &format!("{tick}"));
    }
    let mut last_label = f64::NEG_INFINITY;
    for (bytes, _) in &sizes {
        let x = x_of(*bytes);
        svg.line((x, top), (x, top + plot_h), GRID, 1.0, "");
        // Sizes close together (24, 26, 30, 32) would print over each other.
        if x - last_label >= 26.0 {
            svg.text((x, top + plot_h + 16.0), 11.0, Anchor::Middle, MUTED, &bytes.to_string());
            last_label = x;
        }
    }
    svg.line((left, top + plot_h), (left + plot_w, top + plot_h), INK, 1.0, "");
    svg.line((left, top), (left, top + plot_h), INK, 1.0, "");
    svg.text((left + plot_w / 2.0, top + plot_h + 38.0), 12.0, Anchor::Middle, INK, x_label);
    svg.text((left - 8.0, top - 10.0), 11.0, Anchor::End, INK, "ns");
    for (name, points) in &series {
        let xy: Vec<(f64, f64)> = points.iter().map(|(b, ns)| (x_of(*b), y_of(*ns))).collect();
        svg.polyline(&xy, colour_of(name), 2.0);
        for ((bytes, ns), at) in points.iter().zip(&xy) {
            svg.circle(*at, 3.5, colour_of(name), &format!("{name}, {bytes} bytes: {ns:.2} ns"));
        }
    }
    Some(svg.finish())
}

/// Ticks 1, 2, 5 times a power of ten, from the largest at or below `lo` to the
/// smallest at or above `hi` (for a log scale); `None` without positive values.
fn log_ticks(lo: f64, hi: f64) -> Option<Vec<f64>> {
    let usable = lo > 0.0 && hi >= lo && hi.is_finite();
    if !usable {
        return None;
    }
    let mut all = Vec::new();
    for exponent in (lo.log10().floor() as i32)..=(hi.log10().ceil() as i32) {
        for mantissa in [1.0, 2.0, 5.0] {
            all.push(mantissa * 10f64.powi(exponent));
        }
    }
    let first = all.iter().rposition(|t| *t <= lo * 1.000_001).unwrap_or(0);
    let last = all.iter().position(|t| *t >= hi / 1.000_001).unwrap_or(all.len() - 1);
    let mut ticks = all[first..=last].to_vec();
    if ticks.len() < 2 {
        ticks.push(ticks[0] * 2.0);
    }
    Some(ticks)
}

/// Cold and warm ns per allocation of every seed-004 contender.
fn seed004_chart(results: &[Seed004Result]) -> String {
    let (label_width, plot_w, bar, gap, top) = (170.0, 560.0, 12.0, 12.0, 80.0);
    let group = bar * 2.0 + gap;
    let height = top + group * results.len() as f64 + 50.0;
    let width = label_width + plot_w + 90.0;
    let largest = results.iter().flat_map(|r| [r.cold.ns, r.warm.ns]).fold(0.0, f64::max);
    let axis = ticks(largest, 6);
    let max = *axis.last().unwrap_or(&1.0);
    let x_of = |ns: f64| label_width + plot_w * ns / max;

    let heading =
        format!("Seed-004: {} allocations of {} bytes", crate::text::thousands(seed004::COUNT), seed004::SIZE);
    let how =
        "ns per allocation; pass 1 (cold, pale) grows the arena and faults pages in, pass 2 (warm, solid) reuses them";
    let mut svg = chart(width, height, &heading, how, &[("pass 1: cold", "#cbd5e1"), ("pass 2: warm", "#475569")]);
    let bottom = top + group * results.len() as f64;
    for tick in &axis {
        let x = x_of(*tick);
        svg.line((x, top - 4.0), (x, bottom), GRID, 1.0, "");
        svg.text((x, bottom + 16.0), 11.0, Anchor::Middle, MUTED, &format!("{tick}"));
    }
    svg.text((label_width + plot_w / 2.0, bottom + 36.0), 11.0, Anchor::Middle, MUTED, "ns per allocation");
    for (i, r) in results.iter().enumerate() {
        let y0 = top + group * i as f64 + gap / 2.0;
        svg.text((label_width - 10.0, y0 + bar + 4.0), 12.0, Anchor::End, INK, &r.name);
        let colour = colour_of(&r.name);
        for (k, (pass, ns)) in [("cold", r.cold.ns), ("warm", r.warm.ns)].into_iter().enumerate() {
            let y = y0 + bar * k as f64;
            let fill = if k == 0 { pale(colour) } else { colour.to_owned() };
            svg.rect_titled(
                label_width,
                y + 0.5,
                x_of(ns) - label_width,
                bar - 1.0,
                &fill,
                &format!("{}, {pass}", r.name),
            );
            svg.text((x_of(ns) + 4.0, y + bar - 2.5), 10.0, Anchor::Start, INK, &format!("{ns:.2} ns"));
        }
    }
    svg.finish()
}

/// The colour of a scope-table way: its crate's column colour (bumpdown's scope
/// handle its own), grey for the heap and the stack.
fn way_colour(key: &str) -> &'static str {
    let column = if key == "bumpdown_scope" {
        contenders::InScope::NAME
    } else if key.contains("bumpdown") {
        "bumpdown"
    } else if key.contains("stumpalo") {
        "stumpalo"
    } else if key.starts_with("bump_scope") {
        "bump-scope"
    } else if key.contains("bumpalo") {
        "bumpalo"
    } else {
        ""
    };
    colour_of(column)
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
        let mut heading = Some(format!("{} ({})", table.title(), table.unit()).replace('`', ""));
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
            let text = format!("{:.2}x ({} ns){cut}", b.ratio, crate::text::ns(b.ns));
            svg.text((x_of(b.ratio) + 4.0, bar_y + bar - 3.0), 10.0, Anchor::Start, INK, &text);
        }
        let one = x_of(1.0);
        svg.line((one, y + 2.0), (one, bars_bottom), INK, 1.2, "5 3");
        y = bars_bottom + gap;
    }
    for tick in &axis {
        svg.text((x_of(*tick), plot_bottom + 14.0), 11.0, Anchor::Middle, MUTED, &format!("{tick:.1}x"));
    }
    svg.text(
        (label_width + plot_width / 2.0, plot_bottom + 34.0),
        11.0,
        Anchor::Middle,
        MUTED,
        &format!("ratio to the row's fastest way (bars beyond {max:.1}x are cut: ▸)"),
    );
    Some(svg.finish())
}

/// The colour of a real-use way: its crate's, grey for the heap.
fn real_use_colour(way: &str) -> &'static str {
    if way.starts_with("bumpdown") {
        colour_of("bumpdown")
    } else if way.starts_with("bumpalo") {
        colour_of("bumpalo")
    } else {
        REFERENCE
    }
}

/// The real-use workload: one stacked bar per way, parse, evaluate and drop.
fn real_use_chart(r: &RealUse) -> String {
    let (label_width, plot_w, bar, gap, top) = (150.0, 560.0, 22.0, 14.0, 84.0);
    let group = bar + gap;
    let bottom = top + group * r.ways.len() as f64;
    let (width, height) = (label_width + plot_w + 200.0, bottom + 50.0);
    let total = |w: &crate::realuse::WayResult| w.parse_ms + w.eval_ms + w.drop_ms;
    let largest = r.ways.iter().map(total).fold(0.0, f64::max);
    let axis = ticks(largest, 6);
    let max = *axis.last().unwrap_or(&1.0);
    let x_of = |ms: f64| label_width + plot_w * ms / max;

    let how = format!(
        "median ms of {} runs, {} nodes; each bar is parse (solid), evaluate (pale) and drop (palest); shorter is better",
        r.runs,
        crate::text::thousands(r.nodes)
    );
    let grey = REFERENCE;
    let phases = [("parse", grey.to_owned()), ("evaluate", pale(grey)), ("drop", pale(&pale(grey)))];
    let entries: Vec<(&str, &str)> = phases.iter().map(|(name, colour)| (*name, colour.as_str())).collect();
    let mut svg = chart(width, height, "Real use: parse, evaluate, drop a syntax tree", &how, &entries);
    for tick in &axis {
        let x = x_of(*tick);
        svg.line((x, top - 4.0), (x, bottom), GRID, 1.0, "");
        svg.text((x, bottom + 16.0), 11.0, Anchor::Middle, MUTED, &format!("{tick}"));
    }
    svg.text((label_width + plot_w / 2.0, bottom + 36.0), 11.0, Anchor::Middle, MUTED, "ms per run");
    for (i, w) in r.ways.iter().enumerate() {
        let y = top + group * i as f64 + gap / 2.0;
        svg.text((label_width - 10.0, y + bar / 2.0 + 4.0), 12.0, Anchor::End, INK, &w.name);
        let colour = real_use_colour(&w.name);
        let shades = [colour.to_owned(), pale(colour), pale(&pale(colour))];
        let mut start = 0.0;
        for ((phase, ms), shade) in
            [("parse", w.parse_ms), ("evaluate", w.eval_ms), ("drop", w.drop_ms)].into_iter().zip(&shades)
        {
            let tip = format!("{}, {phase}: {ms:.2} ms", w.name);
            svg.rect_titled(x_of(start), y, x_of(start + ms) - x_of(start), bar, shade, &tip);
            start += ms;
        }
        let text = format!("{:.1} ms ({:.1} + {:.1} + {:.2})", total(w), w.parse_ms, w.eval_ms, w.drop_ms);
        svg.text((x_of(start) + 6.0, y + bar / 2.0 + 4.0), 11.0, Anchor::Start, INK, &text);
    }
    svg.finish()
}

/// `colour` (`#rrggbb`) mixed halfway with white.
fn pale(colour: &str) -> String {
    let channel = |i: usize| u8::from_str_radix(colour.get(i..i + 2).unwrap_or("80"), 16).unwrap_or(0x80);
    let mix = |c: u8| (u16::from(c) + 255).div_ceil(2);
    format!("#{:02x}{:02x}{:02x}", mix(channel(1)), mix(channel(3)), mix(channel(5)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed004::Pass;
    use crate::svg::check_well_formed;

    fn tiny_speed() -> SpeedResults {
        let rows = ["alloc_u8", "alloc_str_8", "alloc_str_16", "alloc_str_32"];
        let mut cells = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, name) in contenders::column_names().into_iter().enumerate() {
                for form in Form::ALL {
                    cells.push((*row, form, name, 1.0 + r as f64 + c as f64 * 0.7));
                }
            }
        }
        SpeedResults::for_tests(&rows, &cells)
    }

    fn tiny_scopes() -> ScopeResults {
        use crate::scopes::{CellResult, RowInfo};
        let rows =
            [("scope_loop_u64", Table::Loop), ("scope_enter_exit", Table::EnterExit), ("bumper_30_i64", Table::Bumper)];
        let mut cells = Vec::new();
        for (row, table) in rows {
            for (k, way) in table.ways().iter().enumerate() {
                let pooled = crate::procs::Pooled::single(2.0 + k as f64 * 1.5);
                cells.push(CellResult { row: row.to_owned(), way: way.key.to_owned(), pooled });
            }
        }
        ScopeResults {
            rows: rows
                .iter()
                .map(|(name, table)| RowInfo { name: (*name).to_owned(), what: "x".to_owned(), table: *table })
                .collect(),
            cells,
            stack_offsets: vec![0],
            clock_overheads: vec![20.0],
            samples_per_process: 1,
            elapsed: std::time::Duration::ZERO,
        }
    }

    fn tiny_real_use() -> RealUse {
        let way = |name: &str, parse_ms| crate::realuse::WayResult {
            name: name.to_owned(),
            parse_ms,
            eval_ms: 20.0,
            drop_ms: 0.5,
            heap_bytes: 1 << 20,
            heap_blocks: 3,
            arena_bytes: None,
            checksum: 7,
            spread: [0.0; 3],
        };
        RealUse {
            source_bytes: 1 << 20,
            statements: 100,
            nodes: 1000,
            runs: 3,
            ways: vec![way("bumpdown::Arena", 30.0), way("bumpalo::Bump", 35.0), way("Box / Vec", 60.0)],
        }
    }

    #[test]
    fn every_chart_of_a_tiny_report_is_well_formed() {
        let seed = vec![Seed004Result {
            name: "bumpdown".to_owned(),
            cold: Pass { ns: 3.0, faults: 10, cpu_ns: 3.0 },
            warm: Pass { ns: 1.0, faults: 0, cpu_ns: 1.0 },
            release_ms: 0.1,
            peak_rss: 1 << 20,
            spread: Default::default(),
        }];
        let (speed, scopes, real_use) = (tiny_speed(), tiny_scopes(), tiny_real_use());
        let charts = all(Sources {
            speed: Some(&speed),
            scopes: Some(&scopes),
            real_use: Some(&real_use),
            seed004: Some(&seed),
        });
        let files: Vec<&str> = charts.iter().map(|c| c.file).collect();
        assert_eq!(
            files,
            [
                "speed-summary.svg",
                "speed-local.svg",
                "speed-ref.svg",
                "size-str.svg",
                SCOPES_FILE,
                REAL_USE_FILE,
                "seed004.svg"
            ]
        );
        for chart in &charts {
            let elements = check_well_formed(&chart.svg).unwrap_or_else(|e| panic!("{}: {e}", chart.file));
            assert!(elements > 20, "{} has only {elements} elements", chart.file);
        }
        // Every column of every row has a bar: 7 columns × (4 rows + the mean).
        let bars = charts[1].svg.matches("<title>").count();
        assert_eq!(bars, contenders::column_names().len() * 5);
        // One bar per measured scope cell, one segment per real-use way and phase.
        assert_eq!(charts[4].svg.matches("<title>").count(), scopes.cells.len());
        assert_eq!(charts[5].svg.matches("<title>").count(), 3 * 3);
    }

    #[test]
    fn sections_without_results_have_no_chart() {
        assert!(all(Sources::default()).is_empty());
        let mut scopes = tiny_scopes();
        scopes.cells.clear();
        assert!(all(Sources { scopes: Some(&scopes), ..Sources::default() }).is_empty());
    }

    #[test]
    fn scope_ways_take_their_crates_colours() {
        assert_eq!(way_colour("bumpdown_scope"), colour_of(contenders::InScope::NAME));
        assert_eq!(way_colour("bumpdown_scope_guard"), colour_of("bumpdown"));
        assert_eq!(way_colour("api2_bumpalo"), colour_of("bumpalo"));
        assert_eq!(way_colour("bump_scope_scoped"), colour_of("bump-scope"));
        assert_eq!(way_colour("stack_array"), REFERENCE);
    }

    #[test]
    fn colours_are_distinct_and_pale_mixes_with_white() {
        let mut colours: Vec<&str> = contenders::column_names().into_iter().map(colour_of).collect();
        colours.sort_unstable();
        colours.dedup();
        assert_eq!(colours.len(), contenders::column_names().len());
        assert_eq!(pale("#000000"), "#808080");
        assert_eq!(pale("#ffffff"), "#ffffff");
    }

    #[test]
    fn log_ticks_enclose_the_values() {
        assert_eq!(log_ticks(3.0, 40.0), Some(vec![2.0, 5.0, 10.0, 20.0, 50.0]));
        assert_eq!(log_ticks(1.0, 1.0), Some(vec![1.0, 2.0]));
        assert_eq!(log_ticks(0.0, 1.0), None);
    }
}
