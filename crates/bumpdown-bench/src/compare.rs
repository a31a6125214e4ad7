//! `compare A B`: what changed between two stored runs. Every timed figure (the speed,
//! scope, threads and fresh-arena tables, reset costs, seed-004, real use, real programs)
//! and the stored peak RSS figures are set side by side: the ratio of B's median to A's,
//! and how far each run's figure moved between its processes, rounds or samples. A
//! change counts only where it is larger than both runs' noise together, and than
//! [`FLOOR`]: two runs of one commit should flag nothing.

use std::fmt::Write;

use crate::results::Results;
use crate::section::{Figure, Figures};

/// Below this relative change a figure is never flagged, however quiet both runs were.
pub const FLOOR: f64 = 0.03;

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
    let change = b.median / a.median - 1.0;
    if change.abs() <= (a.spread + b.spread).max(FLOOR) {
        Verdict::Same
    } else if change > 0.0 {
        Verdict::Slower
    } else {
        Verdict::Faster
    }
}

/// Every comparable figure of a run, section by section in the report's order.
fn figures(results: &Results) -> Figures {
    let mut figures = Vec::new();
    for (_, section) in results.sections() {
        section.figures(&mut figures);
    }
    figures
}

/// One figure present in both runs.
#[derive(Clone, Debug)]
pub struct Change {
    /// `section: row, column`.
    pub name: String,
    pub a: Figure,
    pub b: Figure,
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
        if a.median > 0.0 && b.median.is_finite() {
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
    let _ = writeln!(md, "| figure | A (spread) | B (spread) | B / A | |\n|---|---|---|---|---|");
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
            c.a.median,
            c.a.spread * 100.0,
            c.b.median,
            c.b.spread * 100.0,
            c.b.median / c.a.median
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
            c.pooled.process_medians = vec![c.median_ns, c.median_ns * (1.0 + spread)];
        }
        Results { speed: Some(speed), ..Results::default() }
    }

    fn verdicts(a: &Results, b: &Results) -> Vec<Verdict> {
        changes(a, b).0.iter().map(|c| c.verdict).collect()
    }

    /// The row left alone is the same-figures case.
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
        let quiet = |ns: f64| Figure { median: ns, spread: 0.0 };
        assert_eq!(verdict(quiet(1.0), quiet(1.02)), Verdict::Same);
        assert_eq!(verdict(quiet(1.0), quiet(1.04)), Verdict::Slower);
    }

    #[test]
    fn every_timed_section_has_its_figures() {
        let names: Vec<String> = changes(&Results::for_tests(1.0, 0.01), &Results::for_tests(1.0, 0.01))
            .0
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(
            names,
            [
                "fresh: alloc_u8, bumpdown",
                "reset_cost: 1 chunks, bumpdown",
                "real_use: bumpdown::Arena, parse ms",
                "real_use: bumpdown::Arena, eval ms",
                "real_use: bumpdown::Arena, drop ms",
                "programs: FileCheck, bumpdown, wall s",
                "programs: FileCheck, bumpdown, peak RSS MiB",
                "seed004: bumpdown, cold",
                "seed004: bumpdown, warm",
                "seed004: bumpdown, release ms",
                "seed004: bumpdown, peak RSS MiB",
            ]
        );
    }

    #[test]
    fn every_timed_section_flags_a_slowdown_beyond_its_own_spread() {
        let a = Results::for_tests(1.0, 0.01);
        assert!(verdicts(&a, &Results::for_tests(1.0, 0.01)).iter().all(|v| *v == Verdict::Same));
        assert!(verdicts(&a, &Results::for_tests(1.2, 0.01)).iter().all(|v| *v == Verdict::Slower));
        assert!(verdicts(&Results::for_tests(1.2, 0.01), &a).iter().all(|v| *v == Verdict::Faster));
        // Each figure's own spread is the noise: 20% slower within 15% + 15% is no change,
        // except for the programs' peak RSS, which stores no spread.
        for c in changes(&Results::for_tests(1.0, 0.15), &Results::for_tests(1.2, 0.15)).0 {
            let expected = if c.name.starts_with("programs") && c.name.ends_with("peak RSS MiB") {
                Verdict::Slower
            } else {
                Verdict::Same
            };
            assert_eq!(c.verdict, expected, "{}", c.name);
        }
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
