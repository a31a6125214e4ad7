//! `bumpdown-bench`: compares bumpdown with other bump allocators and prints a
//! markdown report. Run `cargo run --release -p bumpdown-bench -- --help`.
//!
//! The same binary is parent and child: the parent re-runs itself with
//! `--child ...` for every measurement that needs a process of its own.

mod bumper;
mod cli;
mod collection_kernels;
mod contenders;
mod harness;
mod heap;
mod json;
mod kernels;
mod machine;
mod procs;
mod report;
mod resets;
mod rows;
mod scope_kernels;
mod scopes;
mod seed004;
mod sources;
mod speed;
mod threads;

use std::io::Write;
use std::process::ExitCode;

use cli::{Command, Options};

fn main() -> ExitCode {
    let options = match cli::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let outcome = match &options.command {
        Command::List => list(&options),
        Command::Help => {
            println!("{}", cli::USAGE);
            Ok(())
        }
        Command::SpeedChild { index } => speed::child_main(&options, *index),
        Command::ScopesChild { index } => scopes::child_main(&options, *index),
        Command::Seed004Child { contender } => seed004::child_main(contender),
        Command::Report => run_report(options),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `--list`: the selectable row names. A closed pipe (`| head`) ends it quietly.
fn list(options: &Options) -> Result<(), String> {
    let mut text = String::new();
    for row in rows::selected(options.filter.as_deref()) {
        text.push_str(&format!("{:<24} {}\n", row.name, row.what));
    }
    for row in scopes::selected(options.filter.as_deref()) {
        text.push_str(&format!("{:<24} {} ({})\n", row.name, row.what, row.table.unit()));
    }
    if threads::selected(options) {
        text.push_str(&format!(
            "{:<24} {} `u64` allocations per thread, 1 and 2 threads, shared and per-thread handles\n",
            "threads",
            threads::PER_THREAD
        ));
    }
    if options.selects("seed004") {
        text.push_str(&format!(
            "{:<24} ten million 64-byte allocations, twice, one process per contender\n",
            "seed004"
        ));
    }
    let _ = std::io::stdout().write_all(text.as_bytes());
    Ok(())
}

/// Measures everything selected, prints the report and saves it.
fn run_report(options: Options) -> Result<(), String> {
    let speed = speed::measure(&options)?;
    let speed = (!speed.rows.is_empty()).then_some(speed);
    let scopes = scopes::measure(&options)?;
    let resets = if options.filter.is_none() { resets::measure() } else { Vec::new() };
    let threads = if threads::selected(&options) { threads::measure(&options) } else { Vec::new() };
    let seed004 = if options.selects("seed004") { Some(seed004::measure()?) } else { None };
    let report =
        report::Report { machine: machine::Machine::detect(), options, speed, scopes, resets, threads, seed004 };
    let markdown = report.markdown();
    // Saved below even if stdout is closed early (`| head`).
    let _ = std::io::stdout().write_all(markdown.as_bytes());
    let path = report::save(&markdown, &report.json())?;
    eprintln!("report saved to {}", path.display());
    Ok(())
}
