//! Turns the results of a run into the markdown report, the README snippet and the
//! charts, and finds where to save them.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::charts::Chart;
use crate::cli::Effort;
use crate::fastpath;
use crate::results::Results;
use crate::section::{prose, Context};
use crate::speed;
use crate::table::legend;

/// Where the README snippet expects the charts, relative to the repository root.
pub const README_IMAGES: &str = "docs/bench/";
/// The stored run the README's section is rendered from, under [`README_IMAGES`].
pub const STORED_RUN: &str = "results.json";
/// The line that ends the README's generated section.
pub const README_END: &str = "<!-- End of the section generated from docs/bench/results.json. -->";

impl Results {
    /// The charts the results allow (written next to `report.md`).
    pub fn charts(&self) -> Vec<Chart> {
        let mut charts = Vec::new();
        for (_, section) in self.sections() {
            section.charts(&mut charts);
        }
        charts
    }

    /// How the sections are drawn: in the report (`images` empty) or the README.
    fn context<'a>(&'a self, charts: &'a [Chart], images: &'a str) -> Context<'a> {
        let c_probes = &self.machine.c_probes;
        Context { readme: !images.is_empty(), images, charts, effort: self.effort, c_probes }
    }

    /// The report as markdown; `charts` are linked by file name.
    pub fn markdown(&self, charts: &[Chart]) -> String {
        let mut md = String::from("# bumpdown benchmark report\n\n");
        how_to_read(&mut md, charts.iter().map(|c| c.file), "");
        self.header(&mut md);
        if let Some(speed) = &self.speed {
            speed::summary(&mut md, speed);
        }
        if !self.failed.is_empty() {
            let _ = writeln!(md, "## Sections that failed\n");
            for (section, message) in &self.failed {
                let _ = writeln!(md, "- **{section}**: {message}");
            }
            md.push('\n');
        }
        if !charts.is_empty() {
            let _ = writeln!(md, "## Charts\n");
            for chart in charts {
                let _ = writeln!(md, "- [{}]({})", chart.title, chart.file);
            }
            md.push('\n');
            if let Some(summary) = charts.iter().find(|c| c.file == "speed-summary.svg") {
                let _ = writeln!(md, "![{}]({})\n", summary.title, summary.file);
            }
        }
        let cx = self.context(charts, "");
        for (_, section) in self.sections() {
            section.markdown(&mut md, &cx);
        }
        md
    }

    /// A snippet for the workspace README: the how-to-read paragraph, the charts
    /// (linked under [`README_IMAGES`]) and the main tables, the long ones folded.
    pub fn readme(&self, charts: &[Chart]) -> String {
        let m = &self.machine;
        let mut md = String::new();
        md.push_str(&prose(
            "readme_comment",
            &[("images", &README_IMAGES), ("stored_run", &STORED_RUN), ("effort", &self.effort.flag())],
        ));
        md.push_str(&prose(
            "readme_machine",
            &[
                ("date", &m.date),
                ("cpu", &m.cpu),
                ("cores", &m.cores),
                ("kernel", &m.kernel),
                ("rustc", &m.rustc),
                ("effort", &self.effort.flag()),
                ("minutes", &crate::progress::minutes(crate::plan::expected_run_secs(Effort::Quick).0)),
            ],
        ));
        how_to_read(&mut md, charts.iter().map(|c| c.file), README_IMAGES);
        let cx = self.context(charts, README_IMAGES);
        let sections = self.sections();
        for name in README_SECTIONS {
            if let Some((_, section)) = sections.iter().find(|(n, _)| *n == name) {
                section.markdown(&mut md, &cx);
            }
        }
        // One level below the snippet's own heading.
        format!("## Benchmarks\n\n{}{README_END}\n", md.replace("\n## ", "\n### "))
    }

    fn header(&self, md: &mut String) {
        let m = &self.machine;
        let crates = m.crates.iter().map(|(name, version)| format!("{name} {version}")).collect::<Vec<_>>().join(", ");
        let effort = match self.effort {
            crate::cli::Effort::Quick => "quick (default)",
            crate::cli::Effort::Full => "full",
        };
        let filter = self.filter.as_ref().map(|filter| ("filter", format!("`{filter}`")));
        let facts = [("CPU", m.cpu.clone()), ("cores", m.cores.to_string()), ("kernel", m.kernel.clone())];
        let build = [("rustc", m.rustc.clone()), ("crates", crates), ("effort", effort.to_owned())];
        md.push_str("| machine | |\n|---|---|\n");
        for (what, value) in facts.into_iter().chain(build).chain(filter) {
            let _ = writeln!(md, "| {what} | {value} |");
        }
        md.push('\n');
    }
}

/// The README's sections, in its order (the speed tables first, then the sections a
/// reader of the README asks about); the report has every section, in [`Results::sections`]' order.
const README_SECTIONS: [&str; 9] =
    ["speed", "fresh", "reset_cost", "fast_path", "scopes", "threads", "real_use", "programs", "seed004"];

/// "How to read this report", with chart links prefixed by `image_dir`.
fn how_to_read<'a>(md: &mut String, charts: impl Iterator<Item = &'a str>, image_dir: &str) {
    let charts: Vec<String> = charts.map(|file| format!("[{file}]({image_dir}{file})")).collect();
    let charts = if charts.is_empty() {
        String::new()
    } else {
        format!(" The charts ({}) are SVG files; in each, one colour is one contender.", charts.join(", "))
    };
    md.push_str(&prose("how_to_read", &[("legend", &legend()), ("charts", &charts)]));
}

/// The cargo target directory: `CARGO_TARGET_DIR` if set, else the nearest
/// ancestor of this executable that cargo marked with `CACHEDIR.TAG`. A copy of the
/// executable outside any target directory (two builds kept side by side for an A/B
/// run) writes beside itself.
pub fn target_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    let parent = exe.parent()?;
    Some(parent.ancestors().find(|dir| dir.join("CACHEDIR.TAG").is_file()).unwrap_or(parent).to_path_buf())
}

/// What a report run writes: the report and everything beside it.
pub struct Rendered {
    /// `report.md`.
    pub markdown: String,
    /// `readme-snippet.md`.
    pub readme: String,
    pub charts: Vec<Chart>,
    /// `fast-path-listings.md`, when the fast-path section ran.
    pub listings: Option<String>,
}

/// The report, README snippet, charts and listings that `results` make. The report run
/// and `render` both come here, so a stored results file renders the same report.
pub fn render(results: &Results) -> Rendered {
    let charts = results.charts();
    Rendered {
        markdown: results.markdown(&charts),
        readme: results.readme(&charts),
        listings: fastpath::listings(results.fast_path.as_ref()),
        charts,
    }
}

/// The results file's name beside the report.
pub const RESULTS_FILE: &str = "results.json";

/// Writes `report.md`, the results file, `readme-snippet.md`, the charts and the
/// fast-path listings under `<target>/bumpdown-report/`, and returns that directory.
pub fn save(rendered: &Rendered, results_json: &str) -> Result<PathBuf, String> {
    let dir = target_dir().ok_or("cannot find the target directory")?.join("bumpdown-report");
    write_files(&dir, rendered, Some(results_json))?;
    Ok(dir)
}

/// Writes `report.md`, `readme-snippet.md`, the charts, the listings and, when given,
/// the results file into `dir`, making it if needed.
pub fn write_files(dir: &Path, rendered: &Rendered, results_json: Option<&str>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))
    };
    write("report.md", &rendered.markdown)?;
    if let Some(json) = results_json {
        write(RESULTS_FILE, json)?;
    }
    write("readme-snippet.md", &rendered.readme)?;
    if let Some(listings) = &rendered.listings {
        write(fastpath::LISTINGS_FILE, listings)?;
    }
    for chart in &rendered.charts {
        write(chart.file, &chart.svg)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contenders;
    use crate::fastpath::FastPath;
    use crate::kernels::Form;
    use crate::resets::ResetResult;
    use crate::scopes::{ScopeResults, Table};
    use crate::seed004::{self, Seed004Result};
    use crate::speed::SpeedResults;
    use crate::svg::check_well_formed;
    use crate::threads::{self, ThreadCell};

    /// Issue 22: a stored results file renders the report the run printed, byte for byte
    /// (every `f64` read back exactly, every section holding data).
    #[test]
    fn a_stored_run_renders_the_same_report() {
        use crate::kernels::Form::{Local, Ref};
        let speed = SpeedResults::for_tests(
            &["alloc_u8", "clear"],
            &[
                ("alloc_u8", Local, "bumpdown", 0.1 + 0.2),
                ("alloc_u8", Local, "bumpalo", 1.0 / 3.0),
                ("alloc_u8", Ref, "bumpdown", 12_345.678_9),
                ("clear", Local, "stumpalo", 1e-7),
            ],
        );
        let pass = |ns: f64| seed004::Pass { ns, faults: 12, cpu_ns: ns * 1.1 };
        let results = Results {
            format_version: crate::results::FORMAT_VERSION,
            filter: Some("a\"quoted\" filter".to_owned()),
            speed: Some(speed),
            resets: vec![ResetResult {
                name: "bumpalo".to_owned(),
                filled: (3, 7 << 20),
                kept: (1, 4 << 20),
                refill_calls: 2,
            }],
            threads: vec![ThreadCell {
                threads: 2,
                mode: threads::Mode::Shared,
                contender: "SyncArena".to_owned(),
                median_ns: 2.0 / 7.0,
                range: (0.2, 0.9),
                scaling: Some(1.0 / 3.0 + 1.5),
            }],
            seed004: Some(vec![Seed004Result {
                name: "VmArena".to_owned(),
                cold: pass(3.3),
                warm: pass(1.7),
                release_ms: 0.25,
                peak_rss: 700_000_000,
                spread: seed004::Seed004Spread { cold_ns: 0.1, warm_ns: 0.05, release_ms: 0.5, peak_rss: 0.01 },
            }]),
            scopes: Some(tiny_scopes()),
            fast_path: Some(FastPath::Unavailable("no objdump".to_owned())),
            failed: vec![("programs".to_owned(), "exit status: 2".to_owned())],
            // Fresh arenas, reset costs, real use and programs.
            ..Results::for_tests(1.0 / 3.0, 0.1)
        };
        let stored = Results::from_json(&results.to_json()).unwrap();
        let (before, after) = (render(&results), render(&stored));
        assert_eq!(before.markdown, after.markdown);
        assert_eq!(before.readme, after.readme);
        assert_eq!(before.listings, after.listings);
        let svgs = |r: &Rendered| r.charts.iter().map(|c| (c.file, c.svg.clone())).collect::<Vec<_>>();
        assert_eq!(svgs(&before), svgs(&after));
        assert_eq!(stored.to_json(), results.to_json());
    }

    #[test]
    fn another_format_version_is_refused() {
        let text = Results { format_version: crate::results::FORMAT_VERSION + 1, ..Results::default() }.to_json();
        let err = Results::from_json(&text).unwrap_err();
        assert!(err.contains("format version"), "{err}");
        assert!(Results::from_json("{}").is_err());
    }

    /// Issue 21: one failing section used to discard the whole report. Now the report
    /// opens with its summary, names the failed section, and keeps every other one.
    #[test]
    fn a_failed_section_is_named_and_the_others_are_kept() {
        use crate::kernels::Form::Local;
        let speed = SpeedResults::for_tests(
            &["alloc_u8"],
            &[("alloc_u8", Local, "bumpdown", 1.0), ("alloc_u8", Local, "bumpalo", 2.0)],
        );
        let report = Results {
            speed: Some(speed),
            failed: vec![("programs".to_owned(), "preload.sh failed (exit status: 2)".to_owned())],
            ..Results::default()
        };
        let md = report.markdown(&report.charts());
        let at = |text: &str| md.find(text).unwrap_or_else(|| panic!("no {text:?} in {md}"));
        assert!(at("## Summary") < at("## Sections that failed"), "{md}");
        assert!(md.contains("- **programs**: preload.sh failed (exit status: 2)"), "{md}");
        assert!(at("## Sections that failed") < at("| alloc_u8 |"), "the speed table is kept: {md}");
        assert!(report.to_json().contains("preload.sh failed"));
    }

    fn tiny_speed() -> SpeedResults {
        let rows = ["alloc_u8", "alloc_str_8", "alloc_str_16", "alloc_str_32"];
        let mut cells = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, name) in contenders::column_names().into_iter().enumerate() {
                for form in Form::ALL {
                    cells.push((*row, form, name, 1.0 + r as f64 + c as f64 * 0.7));
                }
            }
        }
        SpeedResults::for_tests(&rows, &cells)
    }

    fn tiny_scopes() -> ScopeResults {
        use crate::scopes::{CellResult, RowInfo};
        let rows =
            [("scope_loop_u64", Table::Loop), ("scope_enter_exit", Table::EnterExit), ("bumper_30_i64", Table::Bumper)];
        let mut cells = Vec::new();
        for (row, table) in rows {
            for (k, way) in table.ways().iter().enumerate() {
                let pooled = crate::procs::Pooled::single(2.0 + k as f64 * 1.5);
                cells.push(CellResult { row: row.to_owned(), way: way.key.to_owned(), pooled });
            }
        }
        let rows = rows.map(|(name, table)| RowInfo { name: name.to_owned(), what: "x".to_owned(), table });
        ScopeResults::one_process(rows.into(), cells)
    }

    #[test]
    fn every_chart_of_a_tiny_report_is_well_formed() {
        let (speed, scopes, Results { real_use, seed004, .. }) =
            (tiny_speed(), tiny_scopes(), Results::for_tests(1.0, 0.0));
        let results =
            Results { speed: Some(speed), scopes: Some(scopes.clone()), real_use, seed004, ..Results::default() };
        let charts = results.charts();
        let files: Vec<&str> = charts.iter().map(|c| c.file).collect();
        assert_eq!(
            files,
            [
                "speed-summary.svg",
                "speed-local.svg",
                "speed-ref.svg",
                "size-str.svg",
                "scopes.svg",
                "real-use.svg",
                "seed004.svg"
            ]
        );
        for chart in &charts {
            let elements = check_well_formed(&chart.svg).unwrap_or_else(|e| panic!("{}: {e}", chart.file));
            assert!(elements > 20, "{} has only {elements} elements", chart.file);
        }
        // Every column of every row has a bar: 7 columns × (4 rows + the mean).
        let bars = charts[1].svg.matches("<title>").count();
        assert_eq!(bars, contenders::column_names().len() * 5);
        // One bar per measured scope cell, one segment per real-use way and phase.
        assert_eq!(charts[4].svg.matches("<title>").count(), scopes.cells.len());
        assert_eq!(charts[5].svg.matches("<title>").count(), 3);
    }

    #[test]
    fn sections_without_results_have_no_chart() {
        assert!(Results::default().charts().is_empty());
        let mut scopes = tiny_scopes();
        scopes.cells.clear();
        assert!(Results { scopes: Some(scopes), ..Results::default() }.charts().is_empty());
    }
}
