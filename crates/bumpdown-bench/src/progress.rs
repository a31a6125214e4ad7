//! One progress line for the whole report run, on stderr. (Which sections a run
//! measures, and so what it expects, is `plan.rs`: it asks the sections, which report
//! their progress here.)
//!
//! Every section has an expected duration ([`Phase::expected_secs`]), measured on the
//! two-core VM the README's figures come from and kept here. The line shows the time
//! elapsed and an estimate of the time left for the whole run: the expected time of the
//! work not yet done, scaled by how the run has kept to its expectations so far (a busy
//! machine makes every section slower alike). Within a step (a child process, a
//! contender, an external script) the estimate counts down with the clock up to 90% of
//! the step's expected time, so a step that runs long makes the estimate wait instead of
//! grow.
//!
//! On a terminal the line is redrawn twice a second, also while a child process or an
//! external program runs. In a log (stderr not a terminal) each section writes one line,
//! so a CI log gets a dozen lines for the whole run.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

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
            Phase::Threads => ("threads", 0.5, 1.5),
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
    state: Arc<Mutex<Estimate>>,
    started: Instant,
    bar: ProgressBar,
    /// Writes nothing at all, not even to a log (a run made for tests).
    quiet: bool,
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
        let started = Instant::now();
        let state = Arc::new(Mutex::new(Estimate::new(plan)));
        let bar = ProgressBar::with_draw_target(None, target);
        let (gauge, times) = (Arc::clone(&state), Arc::clone(&state));
        let style = ProgressStyle::with_template("{gauge} {times}  {wide_msg}")
            .expect("the template is valid")
            .with_key("gauge", move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let now = started.elapsed().as_secs_f64();
                let fraction = lock(&gauge).at(now).fraction;
                let filled = (fraction * 20.0).round() as usize;
                let _ = write!(w, "[{}{}] {:>3.0}%", "#".repeat(filled), "-".repeat(20 - filled), fraction * 100.0);
            })
            .with_key("times", move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let now = started.elapsed().as_secs_f64();
                let _ = w.write_str(&times_text(now, lock(&times).at(now).left));
            });
        bar.set_style(style);
        if !bar.is_hidden() {
            bar.enable_steady_tick(Duration::from_millis(500));
        }
        Run { state, started, bar, quiet }
    }

    fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn estimate(&self) -> MutexGuard<'_, Estimate> {
        lock(&self.state)
    }

    /// Starts `section`, made of `steps` steps of about equal length (the previous
    /// section, if any, is over). In a log, writes one line.
    pub fn section(&self, section: Phase, steps: usize) {
        let now = self.now();
        let at = {
            let mut estimate = self.estimate();
            estimate.begin_section(section, steps, now);
            estimate.at(now)
        };
        self.bar.set_message(section.name());
        if self.bar.is_hidden() && !self.quiet {
            eprintln!("[{}] {}", times_text(now, at.left), section.name());
        }
    }

    /// Starts the next step of the current section (the one before it is done).
    pub fn step(&self, what: &str) {
        let now = self.now();
        let message = {
            let mut estimate = self.estimate();
            estimate.begin_step(now);
            match estimate.current_step() {
                (section, _, 1) => format!("{}: {what}", section.name()),
                (section, done, steps) => format!("{}: {done}/{steps} {what}", section.name()),
            }
        };
        self.bar.set_message(message);
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
        let now = self.now();
        let expected = {
            let mut estimate = self.estimate();
            estimate.finish(now);
            total_secs(&estimate.plan)
        };
        self.bar.finish_and_clear();
        if !self.quiet {
            eprintln!("measured in {} (expected: about {} on an idle two-core VM)", clock(now), clock(expected));
        }
    }
}

/// "1:23 elapsed, about 2:05 left"
fn times_text(now: f64, left: f64) -> String {
    format!("{} elapsed, about {} left", clock(now), clock(left))
}

fn lock(state: &Mutex<Estimate>) -> MutexGuard<'_, Estimate> {
    // A panic while holding the lock leaves only numbers behind: keep using them.
    state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What the line shows at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Snapshot {
    /// Share of the expected work done, 0 to 1.
    pub fraction: f64,
    /// Seconds left for the whole run, estimated.
    pub left: f64,
}

/// The arithmetic of the estimate, apart from clocks and drawing: every time is seconds
/// since the run started.
#[derive(Debug)]
pub struct Estimate {
    plan: Vec<Planned>,
    /// Index in `plan` of the section under way (`None` before the first).
    current: Option<usize>,
    steps: usize,
    steps_started: usize,
    section_start: f64,
    step_start: f64,
    /// Wall time and expected time of the sections that are over.
    actual_done: f64,
    expected_done: f64,
    finished: bool,
}

/// Most of a step's expected time that the clock alone may count as done.
const STEP_CAP: f64 = 0.9;

/// Seconds of work the pace starts with, done on schedule.
const PRIOR_SECS: f64 = 30.0;

impl Estimate {
    /// An estimate for `plan`, nothing started.
    pub fn new(plan: Vec<Planned>) -> Self {
        Estimate {
            plan,
            current: None,
            steps: 1,
            steps_started: 0,
            section_start: 0.0,
            step_start: 0.0,
            actual_done: 0.0,
            expected_done: 0.0,
            finished: false,
        }
    }

    fn close_section(&mut self, now: f64) {
        if let Some(index) = self.current {
            self.actual_done += now - self.section_start;
            self.expected_done += self.plan[index].secs;
        }
    }

    /// `section` starts at `now` with `steps` steps.
    pub fn begin_section(&mut self, section: Phase, steps: usize, now: f64) {
        self.close_section(now);
        let from = self.current.map_or(0, |i| i + 1);
        let index = match self.plan[from..].iter().position(|p| p.section == section) {
            Some(offset) => from + offset,
            None => {
                // Not in the plan: it still shows, expected to take no time.
                debug_assert!(false, "section {section:?} was not planned");
                self.plan.insert(from, Planned { section, secs: 0.0 });
                from
            }
        };
        self.current = Some(index);
        self.steps = steps.max(1);
        self.steps_started = 0;
        self.section_start = now;
        self.step_start = now;
    }

    /// The next step of the current section starts at `now`.
    pub fn begin_step(&mut self, now: f64) {
        self.steps_started += 1;
        if self.steps_started > 1 {
            self.step_start = now;
        }
    }

    /// The current section, the number of its step under way (1-based) and its steps.
    fn current_step(&self) -> (Phase, usize, usize) {
        let section = self.current.map_or(Phase::Speed, |i| self.plan[i].section);
        (section, self.steps_started.clamp(1, self.steps), self.steps)
    }

    /// The run is over at `now`.
    pub fn finish(&mut self, now: f64) {
        self.close_section(now);
        self.current = None;
        self.finished = true;
    }

    /// How far the run is at `now`, and how long it has left.
    pub fn at(&self, now: f64) -> Snapshot {
        let total = total_secs(&self.plan);
        if self.finished || total <= 0.0 {
            return Snapshot { fraction: 1.0, left: 0.0 };
        }
        let Some(index) = self.current else {
            return Snapshot { fraction: 0.0, left: total };
        };
        let expected = self.plan[index].secs;
        let per_step = expected / self.steps as f64;
        let steps_done = self.steps_started.saturating_sub(1).min(self.steps);
        // Actual against expected time of everything done so far, the finished steps of
        // this section included, starting from PRIOR_SECS on schedule: one short step
        // that ran fast or slow moves the estimate a little, a minute of them fully.
        let actual = self.actual_done + (self.step_start - self.section_start);
        let planned = self.expected_done + per_step * steps_done as f64;
        let pace = ((actual + PRIOR_SECS) / (planned + PRIOR_SECS)).clamp(0.25, 4.0);
        let in_step = if per_step > 0.0 { ((now - self.step_start) / (per_step * pace)).min(STEP_CAP) } else { 0.0 };
        let later: f64 = self.plan[index + 1..].iter().map(|p| p.secs).sum();
        let remaining = later + per_step * (self.steps - steps_done) as f64 - per_step * in_step;
        Snapshot { fraction: (1.0 - remaining / total).clamp(0.0, 1.0), left: remaining * pace }
    }
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
    fn before_the_first_section_the_whole_plan_is_left() {
        let estimate = Estimate::new(sample_plan());
        assert_eq!(estimate.at(0.0), Snapshot { fraction: 0.0, left: 100.0 });
    }

    #[test]
    fn on_schedule_the_estimate_counts_down_with_the_clock() {
        let mut estimate = Estimate::new(sample_plan());
        estimate.begin_section(Phase::Speed, 4, 0.0);
        estimate.begin_step(0.0);
        let at = estimate.at(5.0);
        assert!((at.left - 95.0).abs() < 1e-9, "{at:?}");
        assert!((at.fraction - 0.05).abs() < 1e-9, "{at:?}");
        estimate.begin_step(10.0);
        estimate.begin_step(20.0);
        assert!((estimate.at(25.0).left - 75.0).abs() < 1e-9);
    }

    #[test]
    fn a_slow_run_scales_what_is_left() {
        let mut estimate = Estimate::new(sample_plan());
        estimate.begin_section(Phase::Speed, 1, 0.0);
        estimate.begin_step(0.0);
        // The 40 s section took 80 s: the other 60 s expected take longer at this pace,
        // (80 + 30) / (40 + 30) times the plan with the 30 s on schedule counted in.
        estimate.begin_section(Phase::Seed004, 1, 80.0);
        assert!((estimate.at(80.0).left - 60.0 * 110.0 / 70.0).abs() < 1e-9);
        assert!((estimate.at(80.0).fraction - 0.4).abs() < 1e-9);
    }

    #[test]
    fn a_step_that_runs_long_makes_the_estimate_wait_not_grow() {
        let mut estimate = Estimate::new(sample_plan());
        estimate.begin_section(Phase::Preload, 1, 0.0);
        estimate.begin_step(0.0);
        let mut before = estimate.at(0.0).left;
        for second in 1..200 {
            let left = estimate.at(f64::from(second)).left;
            assert!(left <= before, "{left} > {before} at {second} s");
            assert!(left > 0.0, "the step is not over yet at {second} s");
            before = left;
        }
    }

    #[test]
    fn skipped_sections_leave_the_plan_and_finishing_leaves_nothing() {
        let mut estimate = Estimate::new(sample_plan());
        estimate.begin_section(Phase::Speed, 1, 0.0);
        // Seed004 failed or was left out: the run goes on with the real programs.
        estimate.begin_section(Phase::Preload, 2, 40.0);
        assert!((estimate.at(40.0).left - 40.0).abs() < 1e-9);
        estimate.finish(70.0);
        assert_eq!(estimate.at(70.0), Snapshot { fraction: 1.0, left: 0.0 });
    }

    #[test]
    fn a_hidden_run_goes_through_every_call() {
        let run = Run::hidden(sample_plan());
        run.section(Phase::Speed, 2);
        run.step("alloc_u8");
        run.step("alloc_u16");
        run.println("a child's stderr");
        run.section(Phase::Preload, 1);
        run.finish();
        assert_eq!(lock(&run.state).at(0.0).left, 0.0);
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
