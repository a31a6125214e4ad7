//! The program: parses the command line and runs the report or a child.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::cli::{self, Command, Options, Output, Stage};
use crate::progress::{self, Phase, Run};
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
    let outcome = match &options.command {
        Command::List => list(&options),
        Command::Help => {
            let (quick, _) = plan::expected_run_secs(cli::Effort::Quick);
            let (full, programs) = plan::expected_run_secs(cli::Effort::Full);
            let minutes = progress::minutes;
            println!("{}", cli::usage(&minutes(quick), &minutes(full), &minutes(programs)));
            Ok(())
        }
        Command::SpeedChild { index } => speed::child_main(&options, *index),
        Command::ScopesChild { index } => scopes::child_main(&options, *index),
        Command::Seed004Child { contender } => seed004::child_main(contender),
        Command::FreshChild => fresh::child_main(&options),
        Command::Report => run_report(options),
        Command::Stage(Stage::Render { file, out, readme }) => render(file, out.as_deref(), *readme),
        Command::Stage(Stage::Compare { before, after }) => return compare(before, after),
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

/// `--list`: the selectable row names. A closed pipe (`| head`) ends it quietly.
fn list(options: &Options) -> Result<(), String> {
    let _ = std::io::stdout().write_all(selected_rows(options).as_bytes());
    Ok(())
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
    let planned = |section: Phase| plan.iter().any(|p| p.section == section);
    let run = Run::start(plan.clone());
    let mut failed = Failed { run: &run, sections: Vec::new() };
    let speed = if planned(Phase::Speed) { failed.keep("speed", speed::measure(&options, &run)) } else { None };
    let scopes =
        if planned(Phase::Scopes) { failed.keep("scopes", scopes::measure(&options, &run)).flatten() } else { None };
    let resets = if planned(Phase::Resets) {
        run.section(Phase::Resets, 1);
        resets::measure()
    } else {
        Vec::new()
    };
    let fresh = if planned(Phase::Fresh) { failed.keep("fresh", fresh::measure(&options, &run)) } else { None };
    let reset_costs = planned(Phase::ResetCost).then(|| {
        run.section(Phase::ResetCost, 1);
        resets::measure_cost(options.effort.reset_samples())
    });
    let threads = if planned(Phase::Threads) { threads::measure(&options, &run) } else { Vec::new() };
    let seed004 = if planned(Phase::Seed004) { failed.keep("seed004", seed004::measure(&options, &run)) } else { None };
    let fast_path = planned(Phase::FastPath).then(|| fastpath::measure(&run));
    let real_use = if planned(Phase::RealUse) {
        failed.keep("real_use", realuse::measure(options.effort.real_use_runs(), &run))
    } else {
        None
    };
    let programs =
        if planned(Phase::Preload) { failed.keep("programs", programs::measure(&options, &run)) } else { None };
    let failed = failed.sections;
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
    let stdout = match options.output {
        Output::Markdown => &rendered.markdown,
        Output::Json => &json,
        Output::Readme => &rendered.readme,
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

/// The sections that failed to measure: (section, error).
struct Failed<'r> {
    run: &'r Run,
    sections: Vec<(String, String)>,
}

impl Failed<'_> {
    /// A section's results, or `None` after saying (and noting) why it failed.
    fn keep<T>(&mut self, section: &str, result: Result<T, String>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(message) => {
                self.run.println(&format!("error: the {section} section failed: {message}"));
                self.sections.push((section.to_owned(), message));
                None
            }
        }
    }
}
