//! What every chart of the report shares: its file, its heading and legend, the
//! colours of the contenders and the ink. Each section draws its own charts (its
//! [`Section::charts`](crate::section::Section::charts)), as SVG files next to `report.md`:
//!
//! * `speed-local.svg`, `speed-ref.svg`: every row of the speed table, one group
//!   of bars per row, one bar per contender, as the ratio to the row's fastest.
//! * `speed-summary.svg`: the same for a handful of rows, with larger labels.
//! * `size-struct.svg`, `size-str.svg`: ns per allocation against its size.
//! * `scopes.svg`: the scope tables, each way's ratio to the row's fastest way.
//! * `real-use.svg`: parse, evaluate and drop times of the real-use workload.
//! * `seed004.svg`: cold and warm ns per allocation of the seed-004 workload.
//!
//! The programs section has no chart: it keeps the tables its scripts print as
//! text and parses no numbers.

use crate::contenders;
use crate::svg::{Anchor, Svg};

/// One colour per column of the speed table, in [`contenders::column_names`]
/// order: bumpdown's `Arena`, its scope handle and `VmArena` in blues, the peers in
/// clearly different hues.
const PALETTE: [&str; 8] = ["#1d4ed8", "#0891b2", "#60a5fa", "#1e3a8a", "#f59e0b", "#dc2626", "#16a34a", "#9333ea"];
/// Colour of reference points that are not arenas (seed-004's floor and `malloc`).
pub const REFERENCE: &str = "#6b7280";
/// Text.
pub const INK: &str = "#1f2937";
/// Secondary text: how to read a chart, axis labels.
pub const MUTED: &str = "#6b7280";
/// Grid lines.
pub const GRID: &str = "#e5e7eb";
/// Every other group's background.
pub const STRIPE: &str = "#f8fafc";

/// The colour of column (or contender) `name`.
pub fn colour_of(name: &str) -> &'static str {
    contenders::column_names().iter().position(|n| *n == name).map_or(REFERENCE, |i| PALETTE[i % PALETTE.len()])
}

/// A chart to write: file name, title (for the markdown link) and the SVG.
pub struct Chart {
    /// File name, next to `report.md`.
    pub file: &'static str,
    /// What it shows, for the link text.
    pub title: String,
    /// The document.
    pub svg: String,
}

/// A new chart of `width` × `height` with its heading, a muted line under it saying how
/// to read it, and a legend of `entries` (name, colour).
pub fn chart(width: f64, height: f64, heading: &str, how: &str, entries: &[(&str, &str)]) -> Svg {
    let mut svg = Svg::new(width, height);
    svg.bold((16.0, 26.0), 16.0, Anchor::Start, INK, heading);
    svg.text((16.0, 44.0), 11.0, Anchor::Start, MUTED, how);
    legend(&mut svg, (16.0, 64.0), entries, 11.0);
    svg
}

/// Legend: a swatch and a name per entry, in one line from `x`.
fn legend(svg: &mut Svg, (x, y): (f64, f64), entries: &[(&str, &str)], size: f64) {
    let mut x = x;
    for (name, colour) in entries {
        svg.rect(x, y - size * 0.8, size, size, colour);
        svg.text((x + size * 1.4, y), size, Anchor::Start, INK, name);
        // Wide enough for the longest name at this size, without measuring text.
        x += size * 1.4 + name.chars().count() as f64 * size * 0.62 + size * 1.6;
    }
}

/// Vertical grid lines at the `axis` ticks, from just above `top` down to `bottom`, each
/// labelled `label(tick)` under the plot.
pub fn x_grid(
    svg: &mut Svg,
    axis: &[f64],
    x_of: impl Fn(f64) -> f64,
    (top, bottom): (f64, f64),
    label: fn(f64) -> String,
) {
    for &tick in axis {
        let x = x_of(tick);
        svg.line((x, top - 4.0), (x, bottom), GRID, 1.0, "");
        svg.text((x, bottom + 16.0), 11.0, Anchor::Middle, MUTED, &label(tick));
    }
}

/// `colour` (`#rrggbb`) mixed halfway with white.
pub fn pale(colour: &str) -> String {
    let channel = |i: usize| u8::from_str_radix(colour.get(i..i + 2).unwrap_or("80"), 16).unwrap_or(0x80);
    let mix = |c: u8| (u16::from(c) + 255).div_ceil(2);
    format!("#{:02x}{:02x}{:02x}", mix(channel(1)), mix(channel(3)), mix(channel(5)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct colours also mean distinct column names (a repeated name takes its first colour).
    #[test]
    fn colours_are_distinct_and_pale_mixes_with_white() {
        let mut colours: Vec<&str> = contenders::column_names().into_iter().map(colour_of).collect();
        colours.sort_unstable();
        colours.dedup();
        assert_eq!(colours.len(), contenders::column_names().len());
        assert_eq!(pale("#000000"), "#808080");
        assert_eq!(pale("#ffffff"), "#ffffff");
    }
}
