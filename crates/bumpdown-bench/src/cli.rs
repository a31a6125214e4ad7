//! Command-line options.

/// How much measuring to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    /// Default: the whole report in a few minutes (`--help` says how long).
    Quick,
    /// More samples and processes, for numbers worth publishing.
    Full,
}

impl Effort {
    /// Processes the speed table is measured in.
    pub fn processes(self) -> usize {
        match self {
            Effort::Quick => 8,
            Effort::Full => 12,
        }
    }

    /// Recorded samples per cell and process.
    pub fn samples(self) -> usize {
        match self {
            Effort::Quick => 151,
            Effort::Full => 401,
        }
    }

    /// Samples per cell and process taken before recording.
    pub fn warmup(self) -> usize {
        match self {
            Effort::Quick => 10,
            Effort::Full => 30,
        }
    }

    /// Recorded samples per cell of the threads section (each a whole multi-thread run).
    pub fn thread_samples(self) -> usize {
        match self {
            Effort::Quick => 15,
            Effort::Full => 41,
        }
    }

    /// Samples per cell of the reset-cost table (each one fill, then the timed reset).
    pub fn reset_samples(self) -> usize {
        match self {
            Effort::Quick => 41,
            Effort::Full => 101,
        }
    }

    /// Processes that measure the fresh-arena table.
    pub fn fresh_processes(self) -> usize {
        match self {
            Effort::Quick => 3,
            Effort::Full => 5,
        }
    }

    /// Samples per cell and process of the fresh-arena table (each a whole arena's life).
    pub fn fresh_samples(self) -> usize {
        match self {
            Effort::Quick => 11,
            Effort::Full => 21,
        }
    }

    /// Runs per way of the real-use section.
    pub fn real_use_runs(self) -> usize {
        match self {
            Effort::Quick => 3,
            Effort::Full => 9,
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

/// What this process was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Measure everything and print the report.
    Report,
    /// Print the row names.
    List,
    /// Print the usage text.
    Help,
    /// Child: measure the speed table once and print raw samples.
    SpeedChild {
        /// Which of the processes this is (0-based), for progress messages.
        index: usize,
    },
    /// Child: measure the scope tables once and print raw samples.
    ScopesChild {
        /// Which of the processes this is (0-based).
        index: usize,
    },
    /// Child: measure the fresh-arena table once (on a mimalloc heap).
    FreshChild,
    /// Child: run the seed-004 workload for one contender.
    Seed004Child {
        /// Contender name.
        contender: String,
    },
}

/// Parsed options.
#[derive(Clone, Debug)]
pub struct Options {
    /// What to do.
    pub command: Command,
    /// How much measuring to do.
    pub effort: Effort,
    /// Only rows whose name contains this.
    pub filter: Option<String>,
    /// Overrides [`Effort::processes`].
    pub processes: Option<usize>,
    /// What the report prints on stdout (the files are written either way).
    pub output: Output,
}

/// What the report prints on stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// The markdown report (default).
    Markdown,
    /// The JSON report (`--json`).
    Json,
    /// A snippet for the workspace README (`--readme`): the speed charts and
    /// tables, with image paths relative to the repository root.
    Readme,
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
}

/// Usage text for `--help`, with the expected duration of a quick and a full run and
/// of the full run's real programs (`plan::expected_run_secs` computes them: the caller
/// passes them in, so that this module, which `plan` builds its plans from, does not
/// depend on it).
pub fn usage(quick: &str, full: &str, programs: &str) -> String {
    format!(
        "\
usage: bumpdown-bench [--quick | --full] [--filter SUBSTR] [--processes N]
                      [--json | --readme] [--list]

Prints a markdown report comparing bumpdown with other bump allocators on stdout
(one progress line with the time elapsed and left on stderr) and writes it to
<target dir>/bumpdown-report/: report.md, report.json, the charts (*.svg),
readme-snippet.md and fast-path-listings.md (the disassembly the fast-path table
counts).

Sections, and the --filter word that selects each alone:
  speed table      one row per operation: alloc_u8, alloc_str_lit_8, ... (--list)
  scopes           scope (allocation loop, enter/exit), bumper (Bumper.jl workload)
  threads          SyncArena and peers on one and two threads
  fast_path        instructions and branches per allocation call (objdump)
  real_use         parse, evaluate and drop a generated program (AST)
  programs         FileCheck (clang, jq with --full) under LD_PRELOAD allocators,
                   serde_json under BumpGlobal
  seed004          ten million 64-byte allocations, one process per contender
  resets           what each reset keeps (only without --filter)
  reset_cost       one reset after fills of 1 to 1,000 chunks' worth
  fresh            stumpalo's method: a new arena per sample, 100,000 operations,
                   dropped, mimalloc heap (rows fresh_alloc_u8, ..., fresh_clear)

Durations were measured on a two-core VM; the first run also builds (about 1.5 min).
  --quick          default: about {quick}
  --full           more samples and processes, every real program: about {full},
                   {programs} of them the real programs
  --filter SUBSTR  only rows whose name contains SUBSTR; a filter that matches
                   nothing is an error and leaves the previous report files
  --processes N    measure the speed table in N processes
  --json           print the JSON report on stdout instead of markdown
  --readme         print the README snippet on stdout instead (charts and tables,
                   image links pointing at docs/bench/, where to copy the SVGs)
  --list           print the row names and exit"
    )
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        command: Command::Report,
        effort: Effort::Quick,
        filter: None,
        processes: None,
        output: Output::Markdown,
    };
    let mut args = args.into_iter();
    // The flag that set the effort, and the one that set the output, to reject a second
    // one that contradicts it.
    let (mut effort_flag, mut output_flag): (Option<String>, Option<String>) = (None, None);
    let once = |seen: &mut Option<String>, arg: &str| match seen.replace(arg.to_owned()) {
        Some(before) if before != arg => Err(format!("{before} and {arg} cannot be used together")),
        _ => Ok(()),
    };
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--quick" => {
                once(&mut effort_flag, &arg)?;
                options.effort = Effort::Quick;
            }
            "--full" => {
                once(&mut effort_flag, &arg)?;
                options.effort = Effort::Full;
            }
            "--list" => options.command = Command::List,
            "--json" => {
                once(&mut output_flag, &arg)?;
                options.output = Output::Json;
            }
            "--readme" => {
                once(&mut output_flag, &arg)?;
                options.output = Output::Readme;
            }
            "--filter" => options.filter = Some(value("--filter")?),
            "--processes" => {
                let n = value("--processes")?;
                options.processes = Some(n.parse().map_err(|_| format!("bad process count {n:?}"))?);
            }
            "--child" => {
                options.command = match value("--child")?.as_str() {
                    "speed" => {
                        let n = value("--child speed")?;
                        Command::SpeedChild { index: n.parse().map_err(|_| format!("bad child index {n:?}"))? }
                    }
                    "scopes" => {
                        let n = value("--child scopes")?;
                        Command::ScopesChild { index: n.parse().map_err(|_| format!("bad child index {n:?}"))? }
                    }
                    "seed004" => Command::Seed004Child { contender: value("--child seed004")? },
                    "fresh" => Command::FreshChild,
                    other => return Err(format!("unknown child kind {other:?}")),
                }
            }
            "-h" | "--help" => options.command = Command::Help,
            // `cargo bench` passes `--bench`; accept it so that works too.
            "--bench" => {}
            other => return Err(format!("unknown argument {other:?} (--help lists the arguments)")),
        }
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(line: &str) -> Result<Options, String> {
        parse(line.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn defaults_to_a_quick_report() {
        let options = parse_str("").unwrap();
        assert_eq!(options.command, Command::Report);
        assert_eq!(options.effort, Effort::Quick);
        assert!(options.selects("anything"));
    }

    #[test]
    fn reads_every_option() {
        let options = parse_str("--full --filter str_lit --processes 2").unwrap();
        assert_eq!(options.effort, Effort::Full);
        assert_eq!(options.processes(), 2);
        assert!(options.selects("alloc_str_lit_8"));
        assert!(!options.selects("alloc_u8"));
        assert_eq!(parse_str("--list").unwrap().command, Command::List);
        assert_eq!(parse_str("").unwrap().output, Output::Markdown);
        assert_eq!(parse_str("--json").unwrap().output, Output::Json);
        assert_eq!(parse_str("--readme --quick").unwrap().output, Output::Readme);
        assert_eq!(parse_str("--help").unwrap().command, Command::Help);
        assert_eq!(
            parse_str("--child seed004 bumpalo").unwrap().command,
            Command::Seed004Child { contender: "bumpalo".to_owned() }
        );
        assert_eq!(parse_str("--child speed 2").unwrap().command, Command::SpeedChild { index: 2 });
        assert_eq!(parse_str("--child scopes 3").unwrap().command, Command::ScopesChild { index: 3 });
    }

    #[test]
    fn rejects_nonsense() {
        assert!(parse_str("--filter").is_err());
        assert!(parse_str("--frobnicate").is_err());
        assert!(parse_str("--child speed x").is_err());
    }

    #[test]
    fn rejects_contradictory_flags() {
        let err = parse_str("--quick --full").unwrap_err();
        assert_eq!(err, "--quick and --full cannot be used together");
        assert!(parse_str("--full --filter x --quick").is_err());
        assert!(parse_str("--json --readme").is_err());
        // Repeating the same flag is harmless.
        assert_eq!(parse_str("--full --full").unwrap().effort, Effort::Full);
    }
}
