//! The results file: everything a report run measured, as JSON. The report run writes
//! it beside the report; `render` turns it back into the report and `compare` sets two
//! of them side by side, so a run is measured once and read anywhere.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::cli::Effort;
use crate::fastpath::FastPath;
use crate::fresh::FreshResults;
use crate::machine::Machine;
use crate::programs::Programs;
use crate::realuse::RealUse;
use crate::resets::{ResetCosts, ResetResult};
use crate::scopes::ScopeResults;
use crate::section::Section;
use crate::seed004::Seed004Result;
use crate::speed::SpeedResults;
use crate::threads::ThreadCell;

/// The version of the file's layout. Raise it when a field is renamed, removed or
/// changes meaning; readers refuse a file of another version instead of misreading it.
/// Version 2 stores the spread of every timed figure `compare` reads (fresh-arena cells,
/// reset costs, seed-004, real use).
pub const FORMAT_VERSION: u32 = 2;

/// Everything the report shows: the machine and toolchain, how the run was asked to
/// go, and each section's measurements (a section not selected is `None` or empty).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Results {
    /// [`FORMAT_VERSION`] of the program that wrote the file.
    pub format_version: u32,
    /// Where it ran, with which compiler and crate versions, and when.
    pub machine: Machine,
    pub effort: Effort,
    /// The `--filter` the run was given.
    pub filter: Option<String>,
    /// The speed table, if any row was selected.
    pub speed: Option<SpeedResults>,
    /// The scope tables, if any of their rows was selected.
    pub scopes: Option<ScopeResults>,
    /// What each reset keeps.
    pub resets: Vec<ResetResult>,
    /// What one reset costs as the arena holds more chunks (empty if not selected).
    pub reset_costs: Option<ResetCosts>,
    /// The fresh-arena table (stumpalo's method), if any of its rows was selected.
    pub fresh: Option<FreshResults>,
    /// Arenas shared between threads (empty if not selected).
    pub threads: Vec<ThreadCell>,
    /// The seed-004 workload, if selected.
    pub seed004: Option<Vec<Seed004Result>>,
    /// Instruction counts of the fast paths, if selected.
    pub fast_path: Option<FastPath>,
    /// The parse-evaluate-drop workload, if selected.
    pub real_use: Option<RealUse>,
    /// Real programs under other allocators, if selected.
    pub programs: Option<Programs>,
    /// Sections that failed to measure: (section, error). The report names them.
    pub failed: Vec<(String, String)>,
}

impl Results {
    /// The results file's text: pretty JSON, one field a line, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("results serialize");
        text.push('\n');
        text
    }

    /// Reads back what [`to_json`](Self::to_json) wrote, refusing another format version.
    pub fn from_json(text: &str) -> Result<Self, String> {
        #[derive(Deserialize)]
        struct Version {
            format_version: u32,
        }
        let version = serde_json::from_str::<Version>(text).map_err(|e| format!("not a results file: {e}"))?;
        if version.format_version != FORMAT_VERSION {
            return Err(format!(
                "results format version {} (this program reads version {FORMAT_VERSION})",
                version.format_version
            ));
        }
        serde_json::from_str(text).map_err(|e| format!("not a results file: {e}"))
    }

    /// The sections that hold results, in the report's order, each with the name
    /// `--filter` and the failed-sections list know it by.
    pub fn sections(&self) -> Vec<(&'static str, &dyn Section)> {
        fn listed<T: Section>(results: Option<&T>) -> Option<&dyn Section> {
            results.map(|r| r as &dyn Section)
        }
        [
            ("speed", listed(self.speed.as_ref())),
            ("fast_path", listed(self.fast_path.as_ref())),
            ("scopes", listed(self.scopes.as_ref())),
            ("resets", listed(Some(&self.resets).filter(|r| !r.is_empty()))),
            ("fresh", listed(self.fresh.as_ref())),
            ("reset_cost", listed(self.reset_costs.as_ref())),
            ("threads", listed(Some(&self.threads).filter(|t| !t.is_empty()))),
            ("real_use", listed(self.real_use.as_ref())),
            ("programs", listed(self.programs.as_ref())),
            ("seed004", listed(self.seed004.as_ref())),
        ]
        .into_iter()
        .filter_map(|(name, section)| Some((name, section?)))
        .collect()
    }

    /// Reads the results file at `path`.
    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        Self::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[cfg(test)]
impl Results {
    /// A run of the fresh-arena, reset-cost, seed-004, real-use and programs sections, one
    /// figure each (for `compare`'s tests; the report's add the others): `slow` multiplies every
    /// figure, and each run moved by `spread` between its processes or rounds.
    pub(crate) fn for_tests(slow: f64, spread: f64) -> Results {
        use crate::fresh::{FreshCell, FreshResults};
        use crate::programs::Programs;
        use crate::realuse::{RealUse, WayResult};
        use crate::resets::{ResetCost, ResetCosts};
        use crate::seed004::{Pass, Seed004Result, Seed004Spread};
        let pass = |ns: f64| Pass { ns, faults: 0, cpu_ns: ns };
        let fresh = FreshCell {
            row: "alloc_u8".to_owned(),
            contender: "bumpdown".to_owned(),
            ns_per_op: 2.0 * slow,
            process_values: vec![2.0 * slow, 2.0 * slow * (1.0 + spread)],
        };
        let reset = ResetCost { name: "bumpdown".to_owned(), rows: vec![(1, 10.0 * slow)], spreads: vec![spread] };
        let seed = Seed004Result {
            name: "bumpdown".to_owned(),
            cold: pass(3.0 * slow),
            warm: pass(1.0 * slow),
            release_ms: 0.5 * slow,
            peak_rss: (700.0 * (1 << 20) as f64 * slow) as u64,
            spread: Seed004Spread { cold_ns: spread, warm_ns: spread, release_ms: spread, peak_rss: spread },
        };
        let way = WayResult {
            name: "bumpdown::Arena".to_owned(),
            parse_ms: 30.0 * slow,
            eval_ms: 20.0 * slow,
            drop_ms: 0.5 * slow,
            heap_bytes: 1,
            heap_blocks: 1,
            arena_bytes: None,
            checksum: 7,
            spread: [spread; 3],
        };
        let (wall, rss) = (1.5 * slow, 40.0 * slow);
        let output = format!(
            "| FileCheck | allocator | wall median s | wall spread s | CPU median s | CPU spread s | peak RSS MiB | x |\n\
             |---|---|---|---|---|---|---|---|\n\
             | FileCheck | bumpdown | {wall:.3} | {wall:.3}..{:.3} | 1.0 | 1.0..1.0 | {rss:.1} | 1.000x |\n\
             | FileCheck | mimalloc | skipped: not installed | — | — | — | — | — |\n",
            wall * (1.0 + spread)
        );
        Results {
            fresh: Some(FreshResults { cells: vec![fresh], processes: 2, samples: 5, clear_batch: 1 }),
            reset_costs: Some(ResetCosts { columns: vec![reset], clock_ns: 20.0 }),
            seed004: Some(vec![seed]),
            real_use: Some(RealUse { source_bytes: 1, statements: 1, nodes: 1, runs: 3, ways: vec![way] }),
            programs: Some(Programs { rounds: 2, preload_programs: "FileCheck".to_owned(), output }),
            ..Results::default()
        }
    }
}
