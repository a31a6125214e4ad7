//! What every section of the report is to the renderer: its part of the markdown, its
//! charts and the figures `compare` sets beside another run's. Each section's results
//! type implements [`Section`] in the section's own module, so adding a row, a column
//! or a contender changes that module alone; the report only lists the sections in order.

use std::fmt::Display;

use crate::charts::Chart;
use crate::cli::Effort;

/// The report's words: a part per `<!-- name -->` marker, each a section's heading and
/// what it measured and how, with `{key}` where a figure goes. Kept as markdown so that
/// it reads (and is edited) as the report does.
const PROSE: &str = include_str!("prose.md");

/// Part `name` of [`PROSE`], each `{key}` replaced by its value, ending in a blank line.
///
/// # Panics
/// If there is no such part, or a key is not in it (a misspelt name fails the first
/// render of the section, in the tests).
pub fn prose(name: &str, values: &[(&str, &dyn Display)]) -> String {
    let marker = format!("<!-- {name} -->\n");
    let start = PROSE.find(&marker).unwrap_or_else(|| panic!("prose.md has no part {name}")) + marker.len();
    let part = &PROSE[start..];
    let mut text = part[..part.find("\n<!-- ").unwrap_or(part.len())].trim_end().to_owned();
    for (key, value) in values {
        let key = format!("{{{key}}}");
        assert!(text.contains(&key), "prose.md's part {name} has no {key}");
        text = text.replace(&key, &value.to_string());
    }
    text + "\n\n"
}

/// One figure of one run: its median and its relative spread (`max / min - 1` of the
/// per-process medians, rounds or runs; of the samples' quartiles where one process took
/// them all).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    /// Median, in the unit the figure's name gives (ns where it gives none).
    pub median: f64,
    /// Relative spread, 0 when every process agreed.
    pub spread: f64,
}

/// Every figure of a section, named `section: row, column` (and a unit where it is not ns).
pub type Figures = Vec<(String, Figure)>;

/// Where a section is being drawn, and what of the run it may need besides its own results.
pub struct Context<'a> {
    /// The README's section rather than the report: the speed tables folded, no pointer
    /// to the fast-path listings.
    pub readme: bool,
    /// Prefix of the charts' files in links (empty in the report, beside the charts).
    pub images: &'a str,
    /// The charts of the whole run.
    pub charts: &'a [Chart],
    pub effort: Effort,
    /// Whether the fast-path section's C probes were built, and by which compiler or why not.
    pub c_probes: &'a (bool, String),
}

impl Context<'_> {
    /// The markdown image of chart `file`, if the run drew it.
    pub fn image(&self, md: &mut String, file: &str) {
        if let Some(chart) = self.charts.iter().find(|c| c.file == file) {
            md.push_str(&format!("![{}]({}{})\n\n", chart.title, self.images, chart.file));
        }
    }
}

/// A section's results, as the renderer and `compare` see them.
pub trait Section {
    /// Writes the section: its heading, what it measured and how, and its tables.
    fn markdown(&self, md: &mut String, cx: &Context);

    /// Adds the charts drawn from the section.
    fn charts(&self, _charts: &mut Vec<Chart>) {}

    /// Adds every figure of the section that `compare` can set beside another run's.
    fn figures(&self, _figures: &mut Figures) {}
}

#[cfg(test)]
impl Context<'static> {
    /// The report's context of a quick run with no charts and no C probes.
    pub(crate) fn for_tests() -> Self {
        static NO_PROBES: (bool, String) = (false, String::new());
        Context { readme: false, images: "", charts: &[], effort: Effort::Quick, c_probes: &NO_PROBES }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_filled_in_and_ends_in_a_blank_line() {
        let text = prose("threads", &[("per_thread", &"200,000")]);
        assert!(text.starts_with("## Arenas shared between threads\n\nEach thread allocates 200,000 `u64`s"), "{text}");
        assert!(text.ends_with(".\n\n") && !text.contains("<!--"), "{text}");
        // The README's header is itself an HTML comment: the part is all of it.
        let comment = prose("readme_comment", &[("images", &"d/"), ("stored_run", &"r.json"), ("effort", &"--full")]);
        assert!(comment.starts_with("<!-- Generated from the stored run d/r.json") && comment.ends_with("-->\n\n"));
    }

    #[test]
    #[should_panic(expected = "has no {per_threads}")]
    fn a_misspelt_key_fails() {
        prose("threads", &[("per_threads", &1)]);
    }
}
