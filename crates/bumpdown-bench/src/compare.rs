//! `compare A B`: what changed between two stored runs. Every figure measured in
//! several processes or samples (the speed and scope tables, the threads table) is set
//! side by side: the ratio of B's median to A's, and how far each run's figure moved
//! between its processes. A change counts only where it is larger than both runs'
//! noise together, and than [`FLOOR`]: two runs of one commit should flag nothing.

use std::fmt::Write;

use crate::results::Results;
use crate::speed::relative_spread;

/// Below this relative change a figure is never flagged, however quiet both runs were.
pub const FLOOR: f64 = 0.03;

/// One figure of one run: its median and its relative spread (`max / min - 1` of the
/// per-process medians, or of the samples where there is one process).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    /// Median time, ns.
    pub median_ns: f64,
    /// Relative spread, 0 when every process agreed.
    pub spread: f64,
}

/// What became of a figure from run A to run B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within the noise of the two runs.
    Same,
    /// B takes longer, beyond the noise.
    Slower,
    /// B takes less time, beyond the noise.
    Faster,
}

/// Judges a change: flagged only when `|B / A - 1|` exceeds the sum of both runs'
/// spreads and [`FLOOR`].
pub fn verdict(a: Figure, b: Figure) -> Verdict {
    let change = b.median_ns / a.median_ns - 1.0;
    if change.abs() <= (a.spread + b.spread).max(FLOOR) {
        Verdict::Same
    } else if change > 0.0 {
        Verdict::Slower
    } else {
        Verdict::Faster
    }
}

/// Every comparable figure of a run, named `section: row, column`.
fn figures(results: &Results) -> Vec<(String, Figure)> {
    let mut figures = Vec::new();
    if let Some(speed) = &results.speed {
        for c in &speed.cells {
            let figure = Figure { median_ns: c.median_ns, spread: relative_spread(&c.process_medians) };
            figures.push((format!("speed: {} ({}), {}", c.row, c.form.key(), c.contender), figure));
        }
    }
    if let Some(scopes) = &results.scopes {
        for c in &scopes.cells {
            let figure = Figure { median_ns: c.median_ns, spread: relative_spread(&c.process_medians) };
            figures.push((format!("scopes: {}, {}", c.row, c.way), figure));
        }
    }
    for c in &results.threads {
        let figure = Figure { median_ns: c.median_ns, spread: relative_spread(&[c.range.0, c.range.1]) };
        figures.push((format!("threads: {} ({}), {}", c.threads, c.mode.key(), c.contender), figure));
    }
    figures
}

/// One figure present in both runs.
#[derive(Clone, Debug)]
pub struct Change {
    /// `section: row, column`.
    pub name: String,
    /// Run A's figure.
    pub a: Figure,
    /// Run B's figure.
    pub b: Figure,
    /// What became of it.
    pub verdict: Verdict,
}

/// The figures present in both runs, in B's order (figures with no positive median in A
/// have no ratio and are left out), and how many figures only one run has.
pub fn changes(a: &Results, b: &Results) -> (Vec<Change>, usize) {
    let before = figures(a);
    let after = figures(b);
    let mut changes = Vec::new();
    for (name, b) in &after {
        let Some((_, a)) = before.iter().find(|(n, _)| n == name) else { continue };
        if a.median_ns > 0.0 && b.median_ns.is_finite() {
            changes.push(Change { name: name.clone(), a: *a, b: *b, verdict: verdict(*a, *b) });
        }
    }
    let unmatched = before.len() + after.len() - 2 * changes.len();
    (changes, unmatched)
}

/// The comparison as markdown: one line per shared figure, then a count of the flagged
/// ones.
pub fn table(a: &Results, b: &Results) -> (String, Vec<Change>) {
    let (changes, unmatched) = changes(a, b);
    let mut md = String::new();
    for (what, x, y) in [
        ("machine", &a.machine.cpu, &b.machine.cpu),
        ("rustc", &a.machine.rustc, &b.machine.rustc),
        ("date", &a.machine.date, &b.machine.date),
    ] {
        let _ = writeln!(md, "- {what}: A {x}; B {y}");
    }
    let (ae, be) = (a.effort.flag(), b.effort.flag());
    let _ = writeln!(md, "- effort: A {ae}; B {be}\n");
    let _ = writeln!(md, "| figure | A ns (spread) | B ns (spread) | B / A | |\n|---|---|---|---|---|");
    for c in &changes {
        let mark = match c.verdict {
            Verdict::Same => "",
            Verdict::Slower => "**slower**",
            Verdict::Faster => "faster",
        };
        let _ = writeln!(
            md,
            "| {} | {:.3} ({:.0}%) | {:.3} ({:.0}%) | {:.3}x | {mark} |",
            c.name,
            c.a.median_ns,
            c.a.spread * 100.0,
            c.b.median_ns,
            c.b.spread * 100.0,
            c.b.median_ns / c.a.median_ns
        );
    }
    let count = |v: Verdict| changes.iter().filter(|c| c.verdict == v).count();
    let _ = writeln!(
        md,
        "\n{} figures in both runs: {} slower, {} faster beyond both runs' spread and {:.0}%; \
         {unmatched} in one run only.",
        changes.len(),
        count(Verdict::Slower),
        count(Verdict::Faster),
        FLOOR * 100.0
    );
    (md, changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Form::Local;
    use crate::speed::SpeedResults;

    /// A run whose speed cells have the given medians, each measured in two processes
    /// `spread` apart.
    fn run(cells: &[(&str, f64)], spread: f64) -> Results {
        let rows: Vec<&str> = cells.iter().map(|(row, _)| *row).collect();
        let cells: Vec<_> = cells.iter().map(|&(row, ns)| (row, Local, "bumpdown", ns)).collect();
        let mut speed = SpeedResults::for_tests(&rows, &cells);
        for c in &mut speed.cells {
            c.process_medians = vec![c.median_ns, c.median_ns * (1.0 + spread)];
        }
        Results { speed: Some(speed), ..Results::default() }
    }

    fn verdicts(a: &Results, b: &Results) -> Vec<Verdict> {
        changes(a, b).0.iter().map(|c| c.verdict).collect()
    }

    #[test]
    fn the_same_figures_flag_nothing() {
        let a = run(&[("alloc_u8", 1.0), ("clear", 5.0)], 0.01);
        assert_eq!(verdicts(&a, &a.clone()), [Verdict::Same, Verdict::Same]);
    }

    #[test]
    fn a_row_slower_beyond_the_noise_is_flagged() {
        let a = run(&[("alloc_u8", 1.0), ("clear", 5.0)], 0.01);
        let b = run(&[("alloc_u8", 1.3), ("clear", 5.0)], 0.01);
        assert_eq!(verdicts(&a, &b), [Verdict::Slower, Verdict::Same]);
        let (md, _) = table(&a, &b);
        assert!(
            md.contains("| speed: alloc_u8 (local), bumpdown | 1.000 (1%) | 1.300 (1%) | 1.300x | **slower** |"),
            "{md}"
        );
        assert!(md.contains("2 figures in both runs: 1 slower, 0 faster"), "{md}");
        assert_eq!(verdicts(&b, &a), [Verdict::Faster, Verdict::Same]);
    }

    #[test]
    fn a_change_within_the_noise_is_not_flagged() {
        let a = run(&[("alloc_u8", 1.0)], 0.4);
        let b = run(&[("alloc_u8", 1.3)], 0.4);
        assert_eq!(verdicts(&a, &b), [Verdict::Same]);
        // Quiet runs still need more than the floor.
        let quiet = |ns: f64| Figure { median_ns: ns, spread: 0.0 };
        assert_eq!(verdict(quiet(1.0), quiet(1.02)), Verdict::Same);
        assert_eq!(verdict(quiet(1.0), quiet(1.04)), Verdict::Slower);
    }

    #[test]
    fn rows_in_one_run_only_are_counted_apart() {
        let a = run(&[("alloc_u8", 1.0), ("clear", 5.0)], 0.01);
        let b = run(&[("alloc_u8", 1.0), ("alloc_u16", 2.0)], 0.01);
        let (changes, unmatched) = changes(&a, &b);
        assert_eq!(changes.len(), 1);
        assert_eq!(unmatched, 2);
    }
}
