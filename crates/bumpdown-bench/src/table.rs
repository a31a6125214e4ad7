//! How the report draws a table, whatever section it belongs to: a markdown grid of
//! labelled rows, the timed cells of the speed and scope tables (colour band, ratio to
//! the row's fastest, time, ⚠) with their spread column, the geometric mean of ratios
//! (which the speed charts draw too), and the folded "what each row does" table.

use std::fmt::Write;

use crate::harness::{range, relative_spread};
use crate::procs::Pooled;
use crate::text::ns;

/// One line of a [`grid`]: its label and its cells (`None` is drawn `—`, an empty cell
/// as nothing).
pub type Line = (String, Vec<Option<String>>);

/// Colour bands for a ratio to the fastest, as in stumpalo's README.
const BANDS: [(f64, &str); 5] = [(1.05, "✅"), (1.15, "🟢"), (1.35, "🟡"), (1.60, "🟠"), (2.50, "🔴")];
const BEYOND: &str = "🟥";

/// The colour band of a ratio to the fastest.
pub fn colour(ratio: f64) -> &'static str {
    BANDS.iter().find(|(limit, _)| ratio <= *limit).map_or(BEYOND, |(_, mark)| mark)
}

/// The bands' legend, one line.
pub fn legend() -> String {
    let mut legend = String::new();
    for (limit, mark) in BANDS {
        let _ = write!(legend, "{mark} ≤{limit:.2}x  ");
    }
    let _ = write!(legend, "{BEYOND} >{:.2}x", BANDS[BANDS.len() - 1].0);
    legend
}

/// A markdown table: the `head` columns (`case`, or `threads | access`), then one per
/// `columns`; a line per row, its label and its cells; and a blank line.
pub fn grid(md: &mut String, head: &str, columns: &[impl AsRef<str>], rows: impl IntoIterator<Item = Line>) {
    let names: Vec<&str> = columns.iter().map(AsRef::as_ref).collect();
    let _ = writeln!(md, "| {head} | {} |", names.join(" | "));
    let _ = writeln!(md, "|{}", "---|".repeat(head.split(" | ").count() + names.len()));
    for (label, cells) in rows {
        let _ = write!(md, "| {label} |");
        for cell in cells {
            match cell.as_deref() {
                Some("") => md.push_str(" |"),
                cell => {
                    let _ = write!(md, " {} |", cell.unwrap_or("—"));
                }
            }
        }
        md.push('\n');
    }
    md.push('\n');
}

/// The folded table of what each row does: `(name, what, unit)` per row.
pub fn what_each_row<'a>(md: &mut String, summary: &str, rows: impl Iterator<Item = (&'a str, &'a str, &'a str)>) {
    let _ = writeln!(md, "<details><summary>{summary}</summary>\n");
    let lines = rows.map(|(name, what, unit)| (name.to_owned(), vec![Some(what.to_owned()), Some(unit.to_owned())]));
    grid(md, "case", &["what", "unit"], lines);
    let _ = writeln!(md, "</details>\n");
}

/// One cell of a timed table (speed, scopes): its column's name and its figures.
pub struct Timed<'a>(pub &'a str, pub &'a Pooled);

/// A timed table: `case`, a column per title, `spread`; its `lines` (each row's
/// [`timed_row`], and any line a section adds), then the colour bands' legend.
pub fn timed_table(md: &mut String, titles: &[&str], lines: Vec<Line>) {
    let columns: Vec<&str> = titles.iter().copied().chain(["spread"]).collect();
    grid(md, "case", &columns, lines);
    let _ = writeln!(md, "{}\n", legend());
}

/// One row of a timed table: `label`; each column's colour band, ratio to the row's
/// fastest and time (⚠ where a timed batch called the heap); and the [`spread_cell`]
/// where more than one process measured. Returns the line and each column's ratio.
pub fn timed_row(label: &str, cells: &[Option<Timed>], processes: usize) -> (Line, Vec<Option<f64>>) {
    let fastest = cells.iter().flatten().map(|c| c.1.median_ns).fold(f64::INFINITY, f64::min);
    let (mut texts, ratios): (Vec<_>, Vec<_>) = cells
        .iter()
        .map(|cell| match cell {
            Some(Timed(_, c)) if fastest > 0.0 => {
                let ratio = c.median_ns / fastest;
                let warn = if c.heap_events > 0 { " ⚠" } else { "" };
                (Some(format!("{} {ratio:.2}x ({} ns){warn}", colour(ratio), ns(c.median_ns))), Some(ratio))
            }
            Some(Timed(_, c)) => (Some(format!("({} ns)", ns(c.median_ns))), None),
            None => (None, None),
        })
        .unzip();
    texts.push((processes > 1).then(|| spread_cell(&cells.iter().flatten().collect::<Vec<_>>())));
    ((label.to_owned(), texts), ratios)
}

/// The spread column: the widest range of per-process medians and of
/// per-process ratios among a row's cells.
fn spread_cell(cells: &[&Timed]) -> String {
    let widest = |values: fn(&Pooled) -> &[f64]| {
        cells
            .iter()
            .max_by(|a, b| relative_spread(values(a.1)).total_cmp(&relative_spread(values(b.1))))
            .map(|Timed(name, cell)| (*name, range(values(cell))))
    };
    match (widest(|c| &c.process_medians), widest(|c| &c.process_ratios)) {
        (Some((m_name, (m_lo, m_hi))), Some((r_name, (r_lo, r_hi)))) => {
            format!("{}–{} ns ({m_name}); {r_lo:.2}–{r_hi:.2}x ({r_name})", ns(m_lo), ns(m_hi))
        }
        _ => "—".to_owned(),
    }
}

/// `items` without repeats, in the order they first come (a table's rows or columns,
/// from its cells).
pub fn distinct<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// Each column's geometric mean of its ratios (the fair average of ratios) over the
/// rows where every column has one, and how many rows that is.
pub fn geometric_means(rows: impl IntoIterator<Item = Vec<Option<f64>>>, columns: usize) -> (Vec<f64>, usize) {
    let mut sums = vec![0.0; columns];
    let mut count = 0usize;
    for ratios in rows {
        if ratios.iter().all(Option::is_some) {
            count += 1;
            for (sum, ratio) in sums.iter_mut().zip(ratios.into_iter().flatten()) {
                *sum += ratio.ln();
            }
        }
    }
    (sums.into_iter().map(|s: f64| (s / count as f64).exp()).collect(), count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_bands_match_the_legend() {
        assert_eq!(colour(1.0), "✅");
        assert_eq!(colour(1.05), "✅");
        assert_eq!(colour(1.10), "🟢");
        assert_eq!(colour(1.30), "🟡");
        assert_eq!(colour(1.50), "🟠");
        assert_eq!(colour(2.50), "🔴");
        assert_eq!(colour(2.51), "🟥");
        assert!(legend().starts_with("✅ ≤1.05x"));
    }

    #[test]
    fn a_grid_draws_missing_cells_as_dashes_and_empty_ones_as_nothing() {
        let mut md = String::new();
        let line = ("r".to_owned(), vec![Some("1".to_owned()), None, Some(String::new())]);
        grid(&mut md, "case", &["a", "b", "c"], [line]);
        assert_eq!(md, "| case | a | b | c |\n|---|---|---|---|\n| r | 1 | — | |\n\n");
    }
}
