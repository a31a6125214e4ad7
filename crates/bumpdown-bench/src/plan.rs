//! What a report run will measure: the sections its options select, each with the
//! time it is expected to take (`progress::Phase::expected_secs`, scaled by the share
//! of its rows and processes selected). The progress line's estimate and `--help`'s
//! durations start from here.

use crate::cli::{Effort, Options};
use crate::progress::{total_secs, Phase, Planned};
use crate::{fresh, rows, scopes};

/// The sections the options select, in the order the report (`app::run_report`)
/// measures them, each expected to take its whole time scaled by the share of its rows
/// (and of its processes, under `--processes`) that the options select.
pub fn plan(options: &Options) -> Vec<Planned> {
    let (effort, filter) = (options.effort, options.filter.as_deref());
    let share = |selected: usize, all: usize| selected as f64 / all.max(1) as f64;
    let processes = share(options.processes(), effort.processes());
    let whole = |selected: bool| if selected { 1.0 } else { 0.0 };
    let shares = [
        (Phase::Speed, share(rows::selected(filter).len(), rows::selected(None).len()) * processes),
        (Phase::Scopes, share(scopes::selected(filter).len(), scopes::selected(None).len()) * processes),
        (Phase::Resets, whole(filter.is_none())),
        (Phase::Fresh, share(fresh::selected_rows(options), fresh::ROWS.len())),
        (Phase::ResetCost, whole(options.selects("reset_cost"))),
        (Phase::Threads, whole(options.selects("threads"))),
        (Phase::Seed004, whole(options.selects("seed004"))),
        (Phase::FastPath, whole(options.selects("fast_path"))),
        (Phase::RealUse, whole(options.selects("real_use"))),
        (Phase::Preload, whole(options.selects("programs"))),
        (Phase::Json, whole(options.selects("programs"))),
    ];
    shares
        .into_iter()
        .filter(|&(_, share)| share > 0.0)
        .map(|(section, share)| Planned { section, secs: section.expected_secs(effort) * share })
        .collect()
}

/// Seconds a whole run with `effort` and no other option is expected to take, and how
/// many of them the real programs (the two external scripts) take.
pub fn expected_run_secs(effort: Effort) -> (f64, f64) {
    let options = crate::cli::parse([effort.flag().to_owned()]).expect("an effort flag parses");
    let plan = plan(&options);
    let programs = plan.iter().filter(|p| matches!(p.section, Phase::Preload | Phase::Json)).map(|p| p.secs);
    (total_secs(&plan), programs.sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_follows_the_options() {
        let parse = |line: &str| crate::cli::parse(line.split_whitespace().map(str::to_owned)).unwrap();
        let sections = |line: &str| plan(&parse(line)).iter().map(|p| p.section).collect::<Vec<_>>();
        assert_eq!(sections("").len(), 11);
        assert_eq!(sections("--filter seed004"), [Phase::Seed004]);
        assert_eq!(sections("--filter programs"), [Phase::Preload, Phase::Json]);
        // The row alloc_u8 is in the speed table and in the fresh-arena table.
        assert_eq!(sections("--filter alloc_u8"), [Phase::Speed, Phase::Fresh]);
        let (quick, full) = (expected_run_secs(Effort::Quick).0, expected_run_secs(Effort::Full).0);
        assert!(full > quick, "{full} <= {quick}");
        let half = total_secs(&plan(&parse("--processes 4")));
        let speed_and_scopes = Phase::Speed.expected_secs(Effort::Quick) + Phase::Scopes.expected_secs(Effort::Quick);
        assert!((quick - half - speed_and_scopes / 2.0).abs() < 1e-9);
    }
}
