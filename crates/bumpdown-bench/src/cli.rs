//! Command-line options.

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};
use serde::{Deserialize, Serialize};

/// How much measuring to do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effort {
    /// Default: the whole report in a few minutes (`--help` says how long).
    #[default]
    Quick,
    /// More samples and processes, for numbers worth publishing.
    Full,
}

impl Effort {
    /// Processes the speed table is measured in.
    pub fn processes(self) -> usize {
        self.pick(8, 12)
    }

    /// Recorded samples per cell and process.
    pub fn samples(self) -> usize {
        self.pick(151, 401)
    }

    /// Samples per cell and process taken before recording.
    pub fn warmup(self) -> usize {
        self.pick(10, 30)
    }

    /// Recorded samples per cell of the threads section (each a whole multi-thread run).
    pub fn thread_samples(self) -> usize {
        self.pick(101, 201)
    }

    /// Samples per cell of the reset-cost table (each one fill, then the timed reset).
    pub fn reset_samples(self) -> usize {
        self.pick(41, 101)
    }

    /// Processes that measure the fresh-arena table. Each has its own stack placement
    /// (`procs::stack_shift`), and in its 1 KiB row a contender's copies run at half speed
    /// in up to 3 of 5 placements: 9 keep that row's median at the common placement.
    pub fn fresh_processes(self) -> usize {
        self.pick(5, 9)
    }

    /// Samples per cell and process of the fresh-arena table (each a whole arena's life).
    pub fn fresh_samples(self) -> usize {
        self.pick(11, 21)
    }

    /// Runs per way of the real-use section.
    pub fn real_use_runs(self) -> usize {
        self.pick(3, 9)
    }

    /// `quick` or `full`, as this effort is.
    pub fn pick<T>(self, quick: T, full: T) -> T {
        match self {
            Effort::Quick => quick,
            Effort::Full => full,
        }
    }

    /// The flag that selects this effort (passed on to child processes).
    pub fn flag(self) -> &'static str {
        match self {
            Effort::Quick => "--quick",
            Effort::Full => "--full",
        }
    }
}

impl Options {
    /// Processes to measure the speed table in.
    pub fn processes(&self) -> usize {
        self.processes.unwrap_or(self.effort.processes()).max(1)
    }

    /// Whether row `name` is selected by `--filter`.
    pub fn selects(&self, name: &str) -> bool {
        self.filter.as_deref().is_none_or(|f| name.contains(f))
    }

    /// The arguments of child process `child` (such as `["speed", "3"]`): this run's
    /// effort, process count and filter, then `child` and the child's own.
    pub fn child_args(&self, child: &[&str]) -> Vec<String> {
        let mut args = vec![self.effort.flag().to_owned(), "--processes".to_owned(), self.processes().to_string()];
        args.extend(self.filter.iter().flat_map(|filter| ["--filter".to_owned(), filter.clone()]));
        args.extend(["child"].iter().chain(child).map(|arg| (*arg).to_owned()));
        args
    }
}

/// The command line, as clap reads it ([`parse`]).
#[derive(Parser, Clone, Debug)]
#[command(
    name = "bumpdown-bench",
    about = ABOUT,
    after_help = SECTIONS,
    // `--help` is ours: its text carries durations that `app.rs` computes.
    disable_help_flag = true,
    disable_help_subcommand = true,
    // `--full --full` is harmless, as `--filter a --filter b` keeps the last.
    args_override_self = true
)]
pub struct Options {
    /// Filled in by [`usage`]: the duration of a quick run.
    #[arg(long, conflicts_with = "full")]
    quick: bool,
    /// Filled in by [`usage`]: the duration of a full run.
    #[arg(long)]
    full: bool,
    /// `--full` or not (set by [`parse`]).
    #[arg(skip)]
    pub effort: Effort,
    /// Only rows whose name contains SUBSTR; a filter that matches nothing is an
    /// error and leaves the previous report files
    #[arg(long, value_name = "SUBSTR")]
    pub filter: Option<String>,
    /// Measure the speed table in N processes
    #[arg(long, value_name = "N")]
    pub processes: Option<usize>,
    /// Run the real programs in N interleaved rounds (default 2, and 3 with --full)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub rounds: Option<u16>,
    /// Print the JSON results on stdout instead of markdown
    #[arg(long, conflicts_with = "readme")]
    pub json: bool,
    /// Print the README snippet on stdout instead (charts and tables, image links
    /// pointing at docs/bench/, where to copy the SVGs)
    #[arg(long)]
    pub readme: bool,
    /// Print the row names and exit
    #[arg(long)]
    pub list: bool,
    /// Print this help
    #[arg(short, long)]
    pub help: bool,
    /// `cargo bench` passes `--bench`; accepted so that works too.
    #[arg(long, hide = true)]
    bench: bool,
    /// None: measure everything and print the report.
    #[command(subcommand)]
    pub command: Option<Subcommands>,
}

/// The subcommands: the stages, and the children that a report run starts.
#[derive(Subcommand, Clone, Debug, PartialEq, Eq)]
pub enum Subcommands {
    #[command(flatten)]
    Stage(Stage),
    /// A child process of the report run (after the parent's options)
    #[command(subcommand, hide = true)]
    Child(Child),
}

/// The child processes of a report run, each measuring one part in a process of its own.
#[derive(Subcommand, Clone, Debug, PartialEq, Eq)]
pub enum Child {
    /// Measure the speed table once and print raw samples
    Speed {
        /// Which of the processes this is (0-based): its stack shift and first-block offset
        index: usize,
    },
    /// Measure the scope tables once and print raw samples
    Scopes {
        /// Which of the processes this is (0-based)
        index: usize,
    },
    /// Measure the fresh-arena table once (on a mimalloc heap)
    Fresh {
        /// Which of the processes this is (0-based): its stack shift
        index: usize,
    },
    /// Run the seed-004 workload for one contender
    Seed004 {
        /// Contender name
        contender: String,
    },
}

/// The stages that work on stored results files instead of measuring.
#[derive(Subcommand, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Print the report of a stored results file (--readme: the README snippet)
    Render {
        /// A results file written by a report run (bumpdown-report/results.json)
        file: PathBuf,
        /// Also write report.md, readme-snippet.md, the charts and the listings into DIR
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Print the README snippet instead of the report
        #[arg(long)]
        readme: bool,
    },
    /// Compare two results files figure by figure: B's median over A's, flagged where
    /// the change exceeds both runs' spread and 3%. Exit status: 0 when no figure got
    /// slower, 1 when one did, 2 on a usage error or an unreadable file
    Compare {
        /// Run A, the baseline (a results.json)
        before: PathBuf,
        /// Run B, the one to judge (a results.json)
        after: PathBuf,
    },
}

const ABOUT: &str = "\
Prints a markdown report comparing bumpdown with other bump allocators on stdout
(one progress line with the time elapsed and left on stderr) and writes it to
<target dir>/bumpdown-report/: report.md, results.json, the charts (*.svg),
readme-snippet.md and fast-path-listings.md (the disassembly the fast-path table
counts).";

const SECTIONS: &str = "\
Sections, and the --filter word that selects each alone:
  speed table      one row per operation: alloc_u8, alloc_str_lit_8, ... (--list)
  scopes           scope (allocation loop, enter/exit), bumper (Bumper.jl workload)
  threads          SyncArena and peers on one and two threads
  fast_path        instructions and branches per allocation call (objdump)
  real_use         parse, evaluate and drop a generated program (AST)
  programs         FileCheck (with --full: clang, gcc, jq, python3, sort, git, xz,
                   sqlite3) under LD_PRELOAD allocators,
                   serde_json under BumpGlobal
  seed004          ten million 64-byte allocations, one process per contender
  resets           what each reset keeps (only without --filter)
  reset_cost       one reset after fills of 1 to 1,000 chunks' worth
  fresh            stumpalo's method: a new arena per sample, 100,000 operations,
                   dropped, mimalloc heap (rows fresh_alloc_u8, ..., fresh_clear)

Durations were measured on a two-core VM; the first run also builds (about 1.5 min).";

/// Usage text for `--help`, with the expected duration of a quick and a full run and
/// of the full run's real programs (`plan::expected_run_secs` computes them: the caller
/// passes them in, so that this module, which `plan` builds its plans from, does not
/// depend on it).
pub fn usage(quick: &str, full: &str, programs: &str) -> String {
    Options::command()
        .mut_arg("quick", |arg| arg.help(format!("Default: about {quick}")))
        .mut_arg("full", |arg| {
            arg.help(format!(
                "More samples and processes, every real program: about {full}, {programs} of them the real programs"
            ))
        })
        .render_help()
        .to_string()
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, clap::Error> {
    let mut options = Options::try_parse_from(std::iter::once("bumpdown-bench".to_owned()).chain(args))?;
    options.effort = if options.full { Effort::Full } else { Effort::Quick };
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(line: &str) -> Result<Options, String> {
        parse(line.split_whitespace().map(str::to_owned)).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_every_option() {
        let options = parse_str("").unwrap();
        assert_eq!(
            (&options.command, options.effort, options.json, options.readme),
            (&None, Effort::Quick, false, false)
        );
        assert!(options.selects("anything"));
        let options = parse_str("--full --filter str_lit --processes 2").unwrap();
        assert_eq!(options.effort, Effort::Full);
        assert_eq!(options.processes(), 2);
        assert!(options.selects("alloc_str_lit_8"));
        assert!(!options.selects("alloc_u8"));
        assert!(parse_str("--list").unwrap().list);
        assert!(parse_str("--json").unwrap().json);
        assert!(parse_str("--readme --quick").unwrap().readme);
        assert!(parse_str("--help").unwrap().help);
        let child = |line| parse_str(line).unwrap().command.unwrap();
        assert_eq!(
            child("child seed004 bumpalo"),
            Subcommands::Child(Child::Seed004 { contender: "bumpalo".to_owned() })
        );
        assert_eq!(child("child speed 2"), Subcommands::Child(Child::Speed { index: 2 }));
        assert_eq!(child("child scopes 3"), Subcommands::Child(Child::Scopes { index: 3 }));
        let (file, out) = ("results.json".into(), Some("docs/bench".into()));
        let render = Subcommands::Stage(Stage::Render { file, out, readme: true });
        assert_eq!(child("render --readme --out docs/bench results.json"), render);
        let (before, after) = ("a.json".into(), "b.json".into());
        assert_eq!(child("compare a.json b.json"), Subcommands::Stage(Stage::Compare { before, after }));
    }

    #[test]
    fn rejects_nonsense() {
        assert!(parse_str("--filter").is_err());
        assert!(parse_str("--frobnicate").is_err());
        assert!(parse_str("child speed x").is_err());
        assert!(parse_str("child speed").is_err());
        assert!(parse_str("child fresh").is_err());
        assert!(parse_str("child other").is_err());
        assert!(parse_str("render").is_err());
        assert!(parse_str("compare a.json").is_err());
        // What `cargo bench` passes is accepted.
        assert_eq!(parse_str("--bench").unwrap().command, None);
    }

    #[test]
    fn children_take_the_parents_options() {
        let parent = parse_str("--full --filter alloc --processes 3").unwrap();
        let options = parse(parent.child_args(&["fresh", "0"])).unwrap();
        assert_eq!(options.command, Some(Subcommands::Child(Child::Fresh { index: 0 })));
        assert_eq!((options.effort, options.processes()), (Effort::Full, 3));
        assert_eq!(options.filter.as_deref(), Some("alloc"));
        assert_eq!(parse(parse_str("").unwrap().child_args(&["speed", "1"])).unwrap().filter, None);
    }

    #[test]
    fn the_help_shows_the_durations() {
        let help = usage("3 min", "20 min", "9 min");
        assert!(help.contains("--quick") && help.contains("Default: about 3 min"), "{help}");
        assert!(help.contains("about 20 min, 9 min of them the real programs"), "{help}");
        assert!(!help.contains("child") && !help.contains("seed004 CONTENDER"), "{help}");
    }

    /// `tests/cli.rs` has `--quick --full` and `--json --readme`.
    #[test]
    fn rejects_contradictory_flags() {
        assert!(parse_str("--full --filter x --quick").is_err());
        // Repeating the same flag is harmless.
        assert_eq!(parse_str("--full --full").unwrap().effort, Effort::Full);
    }
}
