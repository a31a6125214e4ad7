//! The speed table, measured in several processes ([`procs`]: each on its own stack
//! placement and first-block offset). A cell's figure is the median of all samples of
//! all processes; the spread is the range of the per-process medians, and of each cell's
//! per-process *ratio* to the row's fastest: a process-wide change of machine speed moves
//! every cell of that process alike, so the ratios show what placement does to the
//! comparison itself.

use std::fmt::Write;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::charts::{chart, colour_of, x_grid, Chart, GRID, INK, MUTED, STRIPE};
use crate::cli::Options;
use crate::contenders;
use crate::harness::relative_spread;
use crate::kernels::Form;
use crate::procs::{self, Pooled};
use crate::progress::{Phase, Run};
use crate::rows::{self, Unit};
use crate::section::{self, prose, Context, Figure, Figures};
use crate::svg::{ticks, Anchor};
use crate::table::{colour, geometric_means, timed_row, timed_table, what_each_row, Timed};
use crate::text::ns;

/// A row, without its samplers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowInfo {
    pub name: String,
    /// What is allocated.
    pub what: String,
    /// What one operation is.
    pub unit: Unit,
}

/// Everything measured for one (row, form, contender) cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellResult {
    pub row: String,
    /// How the arena was reached.
    pub form: Form,
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

/// The speed table.
pub type SpeedResults = procs::Measured<RowInfo, CellResult>;

/// Hand-made results for the report's and the charts' unit tests: one process, one
/// sample per cell, every cell at its own median.
#[cfg(test)]
impl SpeedResults {
    pub(crate) fn for_tests(rows: &[&str], cells: &[(&str, Form, &str, f64)]) -> Self {
        SpeedResults::one_process(
            rows.iter().map(|r| RowInfo { name: (*r).to_owned(), what: "x".to_owned(), unit: Unit::Alloc }).collect(),
            cells
                .iter()
                .map(|&(row, form, contender, median_ns)| CellResult {
                    row: row.to_owned(),
                    form,
                    contender: contender.to_owned(),
                    pooled: Pooled::single(median_ns),
                })
                .collect(),
        )
    }
}

impl SpeedResults {
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
        ("speed", Phase::Speed),
        rows,
        (options, run),
        |a: &(String, Form, String), b| a.0 == b.0 && a.1 == b.1,
        |(row, form, contender), pooled| CellResult { row, form, contender, pooled },
    )
}

/// Child side: measures every selected row once and prints raw samples (see
/// [`procs::child_main`]).
pub fn child_main(options: &Options, index: usize) -> Result<(), String> {
    procs::child_main(
        options,
        index,
        |options| rows::selected(options.filter.as_deref()),
        |row| {
            row.cells().into_iter().map(|c| ((row.name.clone(), c.form, c.contender.to_owned()), c.sampler)).collect()
        },
    )
}

impl section::Section for SpeedResults {
    /// The README folds both tables under the summary chart, without their headings.
    fn markdown(&self, md: &mut String, cx: &Context) {
        if cx.readme {
            cx.image(md, "speed-summary.svg");
            for form in Form::ALL {
                let _ = writeln!(md, "<details><summary>{}: every row</summary>\n", form_title(form));
                let mut table = String::new();
                speed_table(&mut table, self, form);
                md.push_str(table.split_once("\n\n").map_or(table.as_str(), |(_, rest)| rest));
                let _ = writeln!(md, "</details>\n");
            }
            cx.image(md, "size-struct.svg");
            return;
        }
        let processes = self.process_count();
        md.push_str(&prose(
            "speed",
            &[
                ("samples", &(processes * self.samples_per_process)),
                ("processes", &processes),
                ("per_process", &self.samples_per_process),
                ("clock", &ns(self.clock_overheads.iter().copied().fold(0.0, f64::max))),
                ("offsets", &format!("{:?}", self.stack_offsets)),
                ("secs", &format!("{:.0}", self.elapsed.as_secs_f64())),
            ],
        ));
        for form in Form::ALL {
            speed_table(md, self, form);
            let file = if form == Form::Local { "speed-local.svg" } else { "speed-ref.svg" };
            let _ = writeln!(md, "Chart: [{file}]({file}).\n");
        }
        let rows = self.rows.iter().map(|row| (row.name.as_str(), row.what.as_str(), row.unit.describe()));
        what_each_row(md, "What each row allocates", rows);
    }

    fn charts(&self, charts: &mut Vec<Chart>) {
        let summary: Vec<&str> =
            SUMMARY_ROWS.into_iter().filter(|row| self.rows.iter().any(|r| r.name == *row)).collect();
        if !summary.is_empty() {
            charts.push(Chart {
                file: "speed-summary.svg",
                title: "Speed, selected rows (stack-local arena)".to_owned(),
                svg: ratio_chart(self, Form::Local, &summary, "Speed: selected rows, stack-local arena", true),
            });
        }
        for (form, file, title) in [
            (Form::Local, "speed-local.svg", "Speed, every row, stack-local arena"),
            (Form::Ref, "speed-ref.svg", "Speed, every row, arena behind `&Arena`"),
        ] {
            let rows: Vec<&str> = self.rows.iter().map(|r| r.name.as_str()).collect();
            let heading = match form {
                Form::Local => "Speed: stack-local arena (loop inlined)",
                Form::Ref => "Speed: arena reached through a reference (#[inline(never)] function)",
            };
            charts.push(Chart { file, title: title.to_owned(), svg: ratio_chart(self, form, &rows, heading, false) });
        }
        for (prefix, file, title, x_label) in [
            (
                "alloc_struct_",
                "size-struct.svg",
                "`alloc` of a struct: ns per allocation by size",
                "struct size (bytes)",
            ),
            ("alloc_str_", "size-str.svg", "`alloc_str`: ns per allocation by length", "string length (bytes)"),
        ] {
            if let Some(svg) = size_chart(self, prefix, &title.replace('`', ""), x_label) {
                charts.push(Chart { file, title: title.to_owned(), svg });
            }
        }
    }

    fn figures(&self, figures: &mut Figures) {
        for c in &self.cells {
            let name = format!("speed: {} ({}), {}", c.row, c.form.key(), c.contender);
            figures.push((name, Figure { median: c.median_ns, spread: relative_spread(&c.process_medians) }));
        }
    }
}

fn form_title(form: Form) -> &'static str {
    match form {
        Form::Local => "Stack-local arena (owned by the benchmark function, loop inlined)",
        Form::Ref => "Arena reached through `&Arena` in an `#[inline(never)]` function",
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

/// Within this much of the fastest, a cell counts as a tie in the summary (the speed
/// issue's bar; the per-process spread in the tables says how much noise there was).
const TIE: f64 = 1.03;

/// The other projects' arenas; every other column is one of bumpdown's faces.
const PEERS: [&str; 4] = ["stumpalo", "bumpalo", "bump-scope", "blink-alloc"];

/// Where bumpdown stands against the other arenas, per form: its best face against the
/// best peer, row by row (ahead, within [`TIE`], behind, and who is ahead there), then
/// the same count for the default `Arena` alone.
pub fn summary(md: &mut String, speed: &SpeedResults) {
    let _ = writeln!(md, "## Summary\n");
    for form in Form::ALL {
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
            Form::Local => "stack-local arena",
            Form::Ref => "through a reference",
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

/// Each contender's ratio to the fastest of `row` in `form` (`None` where not measured).
fn ratios(speed: &SpeedResults, row: &str, form: Form, names: &[&str]) -> Vec<Option<f64>> {
    let medians: Vec<Option<f64>> = names.iter().map(|name| speed.cell(row, form, name).map(|c| c.median_ns)).collect();
    let fastest = medians.iter().flatten().copied().fold(f64::INFINITY, f64::min);
    medians.into_iter().map(|m| m.filter(|_| fastest > 0.0 && fastest.is_finite()).map(|m| m / fastest)).collect()
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
    x_grid(&mut svg, &axis, x_of, (top, plot_bottom), |tick| format!("{tick:.1}x"));
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
    let caption = format!("ratio to the fastest (bars beyond {max:.1}x are cut, their value is written)");
    svg.text((label_width + plot_width / 2.0, plot_bottom + 36.0), 11.0, Anchor::Middle, MUTED, &caption);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_wins_ties_and_who_is_ahead() {
        use Form::{Local, Ref};
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
        summary(&mut md, &speed);
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
        summary(&mut md, &slow);
        assert!(md.contains("behind on 2 (b (1.20x; bumpalo ahead), c (1.50x; stumpalo ahead))"), "{md}");
    }

    #[test]
    fn log_ticks_enclose_the_values() {
        assert_eq!(log_ticks(3.0, 40.0), Some(vec![2.0, 5.0, 10.0, 20.0, 50.0]));
        assert_eq!(log_ticks(1.0, 1.0), Some(vec![1.0, 2.0]));
        assert_eq!(log_ticks(0.0, 1.0), None);
    }
}
