//! One progress line for the whole report run, on stderr. (Which sections a run
//! measures, and so what it expects, is `plan.rs`: it asks the sections, which report
//! their progress here.)
//!
//! Every section has an expected duration ([`Phase::expected_secs`]), measured on the
//! two-core VM the README's figures come from and kept here. The bar counts in those
//! expected seconds: each section and step moves it to the expected time of the work
//! done so far, and indicatif's own estimate of the rate gives the time left (a busy
//! machine makes every section slower alike, and the estimate follows).
//!
//! On a terminal the line is redrawn twice a second, also while a child process or an
//! external program runs. In a log (stderr not a terminal) each section writes one line,
//! so a CI log gets a dozen lines for the whole run.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::cli::Effort;

/// A part of the report that the progress line names and estimates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The speed table (`--processes` child processes).
    Speed,
    /// The scope tables (child processes).
    Scopes,
    /// What each reset keeps.
    Resets,
    /// Stumpalo's method, a new arena per sample (child processes).
    Fresh,
    /// One reset after fills of 1 to 1,000 chunks.
    ResetCost,
    /// SyncArena and peers on one and two threads.
    Threads,
    /// Ten million allocations, one child process per contender and round.
    Seed004,
    /// Instruction counts from the disassembly (runs objdump).
    FastPath,
    /// Parse, evaluate and drop a generated program.
    RealUse,
    /// FileCheck (every program with `--full`) under `LD_PRELOAD` allocators (an external script).
    Preload,
    /// serde_json under `BumpGlobal` (an external script).
    Json,
}

impl Phase {
    /// What the progress line calls the section, and the seconds it takes quick and full
    /// with every row selected, the default process counts and the programs already
    /// built: the wall time of each section in `nice -n 10` runs on the README's 2-core
    /// AMD EPYC VM, 2026-11-26 (quick: 2:20 in all; full: 5:52), and the full real
    /// programs since they are ten (4:00).
    fn info(self) -> (&'static str, f64, f64) {
        match self {
            Phase::Speed => ("speed table", 34.0, 125.0),
            Phase::Scopes => ("scopes", 5.0, 14.0),
            Phase::Resets => ("resets", 0.5, 0.5),
            Phase::Fresh => ("fresh arenas", 15.0, 45.0),
            Phase::ResetCost => ("reset cost", 1.0, 2.0),
            Phase::Threads => ("threads", 2.0, 4.0),
            Phase::Seed004 => ("seed004", 27.0, 45.0),
            Phase::FastPath => ("fast path", 1.5, 2.0),
            Phase::RealUse => ("real use", 2.5, 6.0),
            Phase::Preload => ("real programs (LD_PRELOAD)", 50.0, 240.0),
            Phase::Json => ("real programs (serde_json)", 18.0, 30.0),
        }
    }

    /// What the progress line calls the section.
    pub fn name(self) -> &'static str {
        self.info().0
    }

    /// Seconds the whole section is expected to take at `effort` (measured as `info` says).
    pub fn expected_secs(self, effort: Effort) -> f64 {
        let (_, quick, full) = self.info();
        effort.pick(quick, full)
    }
}

/// A section the run will measure, and the seconds it is expected to take.
#[derive(Clone, Copy, Debug)]
pub struct Planned {
    pub section: Phase,
    /// Expected seconds for the share of it that the options select.
    pub secs: f64,
}

/// Seconds the whole plan is expected to take.
pub fn total_secs(plan: &[Planned]) -> f64 {
    plan.iter().map(|p| p.secs).sum()
}

/// "2 min 30 s": `secs` to the nearest ten seconds.
pub fn minutes(secs: f64) -> String {
    let tens = (secs / 10.0).round() as u64 * 10;
    match (tens / 60, tens % 60) {
        (0, s) => format!("{s} s"),
        (m, 0) => format!("{m} min"),
        (m, s) => format!("{m} min {s} s"),
    }
}

/// `m:ss` for a number of seconds.
pub fn clock(secs: f64) -> String {
    let secs = secs.max(0.0).round() as u64;
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// The progress of the whole run. Sections call [`Run::section`] when they start and
/// [`Run::step`] before each step; the line and the log are drawn from that.
pub struct Run {
    plan: Vec<Planned>,
    /// Where the run is: the section under way and its steps.
    at: Mutex<At>,
    /// Counts expected milliseconds: its length is the plan's, its position the
    /// expected time of the work done.
    bar: ProgressBar,
    /// Writes nothing at all, not even to a log (a run made for tests).
    quiet: bool,
}

/// The section under way and its steps.
#[derive(Clone, Copy, Debug)]
struct At {
    phase: Phase,
    /// Its index in the plan, if it is planned (a section that is not shows under its
    /// name and moves nothing).
    index: Option<usize>,
    /// Where in the plan the next section is looked for: after the last planned one.
    next: usize,
    steps: usize,
    steps_started: usize,
}

impl Run {
    /// Starts the line for `plan`, the sections in the order they will run.
    pub fn start(plan: Vec<Planned>) -> Self {
        Self::with_target(plan, ProgressDrawTarget::stderr(), false)
    }

    /// A run that shows nothing, not even in a log (for tests).
    #[cfg(test)]
    pub fn hidden(plan: Vec<Planned>) -> Self {
        Self::with_target(plan, ProgressDrawTarget::hidden(), true)
    }

    fn with_target(plan: Vec<Planned>, target: ProgressDrawTarget, quiet: bool) -> Self {
        let bar = ProgressBar::with_draw_target(Some(millis(total_secs(&plan))), target);
        let template = "[{bar:20}] {percent:>3}% {times}  {wide_msg}";
        let style = ProgressStyle::with_template(template).expect("the template is valid").progress_chars("#>-");
        bar.set_style(style.with_key("times", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = w.write_str(&times_text(state.elapsed(), state.pos(), state.len(), state.eta()));
        }));
        if !bar.is_hidden() {
            bar.enable_steady_tick(Duration::from_millis(500));
        }
        let at = At { phase: Phase::Speed, index: None, next: 0, steps: 1, steps_started: 0 };
        Run { plan, at: Mutex::new(at), bar, quiet }
    }

    fn at(&self) -> std::sync::MutexGuard<'_, At> {
        // A panic while holding the lock leaves only counters behind: keep using them.
        self.at.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Expected seconds of the sections before `index` and of `steps_done` steps of it.
    fn expected_done(&self, index: usize, steps_done: usize, steps: usize) -> f64 {
        let before = total_secs(&self.plan[..index]);
        before + self.plan[index].secs * steps_done as f64 / steps.max(1) as f64
    }

    /// Starts `section`, made of `steps` steps of about equal length (the previous
    /// section, if any, is over). In a log, writes one line.
    pub fn section(&self, section: Phase, steps: usize) {
        let index = {
            let mut at = self.at();
            let index = self.plan[at.next..].iter().position(|p| p.section == section).map(|offset| at.next + offset);
            let next = index.map_or(at.next, |i| i + 1);
            *at = At { phase: section, index, next, steps: steps.max(1), steps_started: 0 };
            index
        };
        if let Some(index) = index {
            self.bar.set_position(millis(self.expected_done(index, 0, 1)));
        }
        self.bar.set_message(section.name());
        if self.bar.is_hidden() && !self.quiet {
            eprintln!("[{}] {}", self.times_text(), section.name());
        }
    }

    /// Starts the next step of the current section (the one before it is done).
    pub fn step(&self, what: &str) {
        let at = {
            let mut at = self.at();
            at.steps_started += 1;
            *at
        };
        let done = at.steps_started.saturating_sub(1).min(at.steps);
        if let Some(index) = at.index {
            self.bar.set_position(millis(self.expected_done(index, done, at.steps)));
        }
        let name = at.phase.name();
        self.bar.set_message(match at.steps {
            1 => format!("{name}: {what}"),
            steps => format!("{name}: {}/{steps} {what}", done + 1),
        });
    }

    /// Prints `text` above the line (or in the log).
    pub fn println(&self, text: &str) {
        let text = text.trim_end();
        if text.is_empty() {
            return;
        }
        if self.bar.is_hidden() {
            if !self.quiet {
                eprintln!("{text}");
            }
        } else {
            self.bar.println(text);
        }
    }

    /// Ends the run: clears the line and says how long it took against the estimate
    /// made at its start.
    pub fn finish(&self) {
        self.bar.set_position(millis(total_secs(&self.plan)));
        self.bar.finish_and_clear();
        if !self.quiet {
            let (took, expected) = (self.bar.elapsed().as_secs_f64(), total_secs(&self.plan));
            eprintln!("measured in {} (expected: about {} on an idle two-core VM)", clock(took), clock(expected));
        }
    }

    fn times_text(&self) -> String {
        times_text(self.bar.elapsed(), self.bar.position(), self.bar.length(), self.bar.eta())
    }
}

/// "1:23 elapsed, about 2:05 left": indicatif's estimate `eta` once the bar has moved
/// (`position` of `length` expected milliseconds), the plan's own before.
fn times_text(elapsed: Duration, position: u64, length: Option<u64>, eta: Duration) -> String {
    let left = if position == 0 { length.unwrap_or(0) as f64 / 1e3 } else { eta.as_secs_f64() };
    format!("{} elapsed, about {} left", clock(elapsed.as_secs_f64()), clock(left))
}

/// Seconds as the bar's unit, milliseconds.
fn millis(secs: f64) -> u64 {
    (secs * 1e3).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_plan() -> Vec<Planned> {
        vec![
            Planned { section: Phase::Speed, secs: 40.0 },
            Planned { section: Phase::Seed004, secs: 20.0 },
            Planned { section: Phase::Preload, secs: 40.0 },
        ]
    }

    #[test]
    fn the_bar_counts_the_expected_time_of_the_work_done() {
        let run = Run::hidden(sample_plan());
        assert_eq!(run.bar.length(), Some(100_000));
        run.section(Phase::Speed, 4);
        run.step("alloc_u8");
        assert_eq!(run.bar.position(), 0);
        run.step("alloc_u16");
        run.step("alloc_u32");
        assert_eq!(run.bar.position(), 20_000);
        // Seed004 failed or was left out: the run goes on with the real programs.
        run.section(Phase::Preload, 2);
        assert_eq!(run.bar.position(), 60_000);
        run.step("FileCheck");
        run.step("jq");
        assert_eq!(run.bar.position(), 80_000);
        run.println("a child's stderr");
        run.finish();
        assert_eq!(run.bar.position(), 100_000);
    }

    #[test]
    fn a_section_not_in_the_plan_moves_nothing() {
        let run = Run::hidden(sample_plan());
        run.section(Phase::Seed004, 1);
        assert_eq!(run.bar.position(), 40_000);
        run.section(Phase::Threads, 3);
        run.step("one thread");
        assert_eq!(run.bar.position(), 40_000);
        assert_eq!(run.bar.message(), "threads: 1/3 one thread");
    }

    #[test]
    fn before_the_bar_moves_the_plan_says_what_is_left() {
        let (second, eta) = (Duration::from_secs(1), Duration::from_secs(30));
        assert_eq!(times_text(second, 0, Some(100_000), Duration::ZERO), "0:01 elapsed, about 1:40 left");
        assert_eq!(times_text(second, 5_000, Some(100_000), eta), "0:01 elapsed, about 0:30 left");
    }

    #[test]
    fn minutes_round_to_ten_seconds() {
        assert_eq!(minutes(44.0), "40 s");
        assert_eq!(minutes(146.0), "2 min 30 s");
        assert_eq!(minutes(358.0), "6 min");
    }

    #[test]
    fn clock_reads_minutes_and_seconds() {
        assert_eq!(clock(0.0), "0:00");
        assert_eq!(clock(59.6), "1:00");
        assert_eq!(clock(148.0), "2:28");
    }
}
