//! The program: parses the command line and runs the report or a child.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::cli::{self, Child, Options, Stage, Subcommands};
use crate::progress::{self, Phase, Planned, Run};
use crate::results::{self, Results};
use crate::{fastpath, fresh, machine, plan, programs, realuse, report, resets, rows, scopes, seed004, speed, threads};

/// Runs `bumpdown-bench` with this process's arguments.
pub fn main() -> ExitCode {
    let options = match cli::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(error) => {
            // A usage error (clap's message and exit status 2), or a subcommand's `--help`.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    // `--help` before anything, then a child, `--list`, a stage or the report.
    let outcome = match &options.command {
        _ if options.help => {
            let (quick, _) = plan::expected_run_secs(cli::Effort::Quick);
            let (full, programs) = plan::expected_run_secs(cli::Effort::Full);
            let minutes = progress::minutes;
            println!("{}", cli::usage(&minutes(quick), &minutes(full), &minutes(programs)));
            Ok(())
        }
        Some(Subcommands::Child(Child::Speed { index })) => speed::child_main(&options, *index),
        Some(Subcommands::Child(Child::Scopes { index })) => scopes::child_main(&options, *index),
        Some(Subcommands::Child(Child::Seed004 { contender })) => seed004::child_main(contender),
        Some(Subcommands::Child(Child::Fresh { index })) => fresh::child_main(&options, *index),
        // `--list`: the selectable row names. A closed pipe (`| head`) ends it quietly.
        _ if options.list => {
            let _ = std::io::stdout().write_all(selected_rows(&options).as_bytes());
            Ok(())
        }
        Some(Subcommands::Stage(Stage::Render { file, out, readme })) => render(file, out.as_deref(), *readme),
        Some(Subcommands::Stage(Stage::Compare { before, after })) => return compare(before, after),
        None => run_report(options),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `render FILE`: prints the report of a stored results file (or its README snippet),
/// and with `--out DIR` writes it with its charts into `DIR`.
fn render(file: &Path, out: Option<&Path>, readme: bool) -> Result<(), String> {
    let rendered = report::render(&Results::read(file)?);
    let text = if readme { &rendered.readme } else { &rendered.markdown };
    let _ = std::io::stdout().write_all(text.as_bytes());
    if let Some(dir) = out {
        report::write_files(dir, &rendered, None)?;
    }
    Ok(())
}

/// `compare A B`: prints the table of what changed from run A to run B. Exits 0 when no
/// figure got slower beyond the noise, 1 when one did, 2 when a file cannot be read.
fn compare(before: &Path, after: &Path) -> ExitCode {
    let (a, b) = match (Results::read(before), Results::read(after)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(message), _) | (_, Err(message)) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let (table, changes) = crate::compare::table(&a, &b);
    let _ = std::io::stdout().write_all(table.as_bytes());
    let slower = changes.iter().any(|c| c.verdict == crate::compare::Verdict::Slower);
    ExitCode::from(u8::from(slower))
}

/// The rows the options select, one line each (empty when `--filter` matches nothing).
fn selected_rows(options: &Options) -> String {
    let mut text = String::new();
    for row in rows::selected(options.filter.as_deref()) {
        text.push_str(&format!("{:<24} {}\n", row.name, row.what));
    }
    for row in scopes::selected(options.filter.as_deref()) {
        text.push_str(&format!("{:<24} {} ({})\n", row.name, row.what, row.table.unit()));
    }
    let mut line = |name: &str, what: String| {
        if options.selects(name) {
            text.push_str(&format!("{name:<24} {what}\n"));
        }
    };
    let threads = threads::PER_THREAD;
    line("threads", format!("{threads} `u64` allocations per thread, 1 and 2 threads, shared and per-thread handles"));
    line("fast_path", "instructions and branches of each allocation call, from this binary's disassembly".into());
    let mib = realuse::SOURCE_BYTES >> 20;
    line("real_use", format!("parse an {mib} MiB program into a tree (bumpdown, bumpalo, Box), evaluate, drop"));
    line("programs", "FileCheck, clang, jq under LD_PRELOAD allocators; serde_json under BumpGlobal".into());
    for row in fresh::ROWS {
        let what = format!("{row}: a new arena per sample, {} operations, dropped (stumpalo's method)", fresh::OPS);
        line(&format!("fresh_{row}"), what);
    }
    line("reset_cost", "one `reset` after fills of 1 to 1,000 chunks' worth of 1 KiB slices".into());
    line("seed004", "ten million 64-byte allocations, twice, one process per contender".into());
    text
}

/// Measures everything selected, prints the report and saves it. A section that fails
/// is named in the report and on stderr, and the run exits non-zero, but every other
/// section's results are still printed and saved.
fn run_report(options: Options) -> Result<(), String> {
    if selected_rows(&options).is_empty() {
        let filter = options.filter.as_deref().unwrap_or_default();
        return Err(format!(
            "no rows matched --filter {filter:?} (see --list); nothing measured, the previous report files are kept"
        ));
    }
    let plan = plan::plan(&options);
    let run = Run::start(plan.clone());
    let mut m = Measuring { plan: &plan, run: &run, failed: Vec::new() };
    let (o, run) = (&options, &run);
    let speed = m.phase(Phase::Speed, "speed", || speed::measure(o, run));
    let scopes = m.phase(Phase::Scopes, "scopes", || scopes::measure(o, run));
    let resets = m.whole(Phase::Resets, "resets", || Ok(resets::measure())).unwrap_or_default();
    let fresh = m.phase(Phase::Fresh, "fresh", || fresh::measure(o, run));
    let reset_costs = m.whole(Phase::ResetCost, "reset_cost", || Ok(resets::measure_cost(o.effort.reset_samples())));
    let threads = m.phase(Phase::Threads, "threads", || Ok(threads::measure(o, run))).unwrap_or_default();
    let seed004 = m.phase(Phase::Seed004, "seed004", || seed004::measure(o, run));
    let fast_path = m.phase(Phase::FastPath, "fast_path", || Ok(fastpath::measure(run)));
    let real_use = m.phase(Phase::RealUse, "real_use", || realuse::measure(o.effort.real_use_runs(), run));
    let programs = m.phase(Phase::Preload, "programs", || programs::measure(o, run));
    let failed = m.failed;
    run.finish();
    let results = Results {
        format_version: results::FORMAT_VERSION,
        machine: machine::Machine::detect(),
        effort: options.effort,
        filter: options.filter.clone(),
        speed,
        scopes,
        resets,
        reset_costs,
        fresh,
        threads,
        seed004,
        fast_path,
        real_use,
        programs,
        failed,
    };
    let rendered = report::render(&results);
    let json = results.to_json();
    let stdout = match (options.json, options.readme) {
        (true, _) => &json,
        (_, true) => &rendered.readme,
        _ => &rendered.markdown,
    };
    // Saved below even if stdout is closed early (`| head`).
    let _ = std::io::stdout().write_all(stdout.as_bytes());
    let dir = report::save(&rendered, &json)?;
    eprintln!(
        "report saved in {}: report.md, {}, readme-snippet.md, {} charts{}",
        dir.display(),
        report::RESULTS_FILE,
        rendered.charts.len(),
        if rendered.listings.is_some() { format!(" and {}", fastpath::LISTINGS_FILE) } else { String::new() }
    );
    match results.failed.len() {
        0 => Ok(()),
        n => Err(format!("{n} section(s) failed and are missing from the report (see above)")),
    }
}

/// The measuring of a report run: what its plan holds, and the sections that failed
/// to measure, (section, error).
struct Measuring<'r> {
    plan: &'r [Planned],
    run: &'r Run,
    failed: Vec<(String, String)>,
}

impl Measuring<'_> {
    /// The results of `measure` if the plan holds `phase`; `None` when it does not, or
    /// after saying (and noting) why it failed.
    fn phase<T>(&mut self, phase: Phase, name: &str, measure: impl FnOnce() -> Result<T, String>) -> Option<T> {
        if !self.plan.iter().any(|p| p.section == phase) {
            return None;
        }
        match measure() {
            Ok(value) => Some(value),
            Err(message) => {
                self.run.println(&format!("error: the {name} section failed: {message}"));
                self.failed.push((name.to_owned(), message));
                None
            }
        }
    }

    /// [`phase`](Self::phase) for a phase measured in one step that does not report its
    /// own progress.
    fn whole<T>(&mut self, phase: Phase, name: &str, measure: impl FnOnce() -> Result<T, String>) -> Option<T> {
        let run = self.run;
        self.phase(phase, name, || {
            run.section(phase, 1);
            measure()
        })
    }
}
