//! Just enough SVG to draw the report's charts (no dependency needed: it is text).
//!
//! A [`Svg`] collects elements in drawing order; coordinates are pixels from the
//! top left. Text is escaped, numbers are written with one decimal.

use std::fmt::Write;

/// Font for every label; `sans-serif` renders everywhere (browsers, GitHub, rsvg).
const FONT: &str = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"";

/// Text anchor (horizontal alignment of a label at its point).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The point is the start of the text.
    Start,
    /// The point is the middle of the text.
    Middle,
    /// The point is the end of the text.
    End,
}

impl Anchor {
    fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// An SVG document under construction.
pub struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    /// An empty white picture of `width` × `height` pixels.
    pub fn new(width: f64, height: f64) -> Self {
        let mut svg = Self { width, height, body: String::new() };
        svg.rect(0.0, 0.0, width, height, "#ffffff");
        svg
    }

    /// A filled rectangle.
    pub fn rect(&mut self, x: f64, y: f64, width: f64, height: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}"/>"#,
            width.max(0.0),
            height.max(0.0)
        );
    }

    /// A filled rectangle with a tooltip (`<title>`, shown on hover in browsers).
    pub fn rect_titled(&mut self, x: f64, y: f64, width: f64, height: f64, fill: &str, title: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}"><title>{}</title></rect>"#,
            width.max(0.0),
            height.max(0.0),
            escape(title)
        );
    }

    /// A straight line; `dash` is an SVG dash pattern such as `"4 3"`, or empty.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, width: f64, dash: &str) {
        let dash = if dash.is_empty() { String::new() } else { format!(r#" stroke-dasharray="{dash}""#) };
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width:.1}"{dash}/>"#
        );
    }

    /// A line through `points`.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, width: f64) {
        let mut list = String::new();
        for (x, y) in points {
            let _ = write!(list, "{x:.1},{y:.1} ");
        }
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="{width:.1}" stroke-linejoin="round"/>"#,
            list.trim_end()
        );
    }

    /// A filled circle with a tooltip.
    pub fn circle(&mut self, (x, y): (f64, f64), radius: f64, fill: &str, title: &str) {
        let _ = writeln!(
            self.body,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="{radius:.1}" fill="{fill}" stroke="#ffffff" stroke-width="1"><title>{}</title></circle>"##,
            escape(title)
        );
    }

    /// A label whose baseline passes through `(x, y)`.
    pub fn text(&mut self, (x, y): (f64, f64), size: f64, anchor: Anchor, fill: &str, text: &str) {
        self.styled_text((x, y), size, anchor, fill, "", text);
    }

    /// A bold label.
    pub fn bold(&mut self, (x, y): (f64, f64), size: f64, anchor: Anchor, fill: &str, text: &str) {
        self.styled_text((x, y), size, anchor, fill, r#" font-weight="bold""#, text);
    }

    fn styled_text(&mut self, (x, y): (f64, f64), size: f64, anchor: Anchor, fill: &str, style: &str, text: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" {FONT} font-size="{size:.1}" text-anchor="{}" fill="{fill}"{style}>{}</text>"#,
            anchor.attr(),
            escape(text)
        );
    }

    /// The finished document.
    pub fn finish(self) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\">\n{}</svg>\n",
            self.body,
            w = self.width,
            h = self.height
        )
    }
}

/// `text` with the characters XML gives meaning to replaced by entities.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Round tick values from 0 covering `max`: about `count` of them, spaced 1, 2 or
/// 5 times a power of ten.
pub fn ticks(max: f64, count: usize) -> Vec<f64> {
    if max.is_nan() || max <= 0.0 || max.is_infinite() {
        return vec![0.0, 1.0];
    }
    let rough = max / count.max(1) as f64;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= rough).unwrap_or(10.0 * power);
    let steps = (max / step).ceil() as usize;
    (0..=steps).map(|i| i as f64 * step).collect()
}

/// For the tests: the number of elements of `doc`, or why it is not well-formed XML.
#[cfg(test)]
pub fn check_well_formed(doc: &str) -> Result<usize, String> {
    let doc = roxmltree::Document::parse(doc).map_err(|e| e.to_string())?;
    Ok(doc.descendants().filter(roxmltree::Node::is_element).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_picture_is_well_formed_and_escaped() {
        let mut svg = Svg::new(100.0, 50.0);
        svg.rect_titled(1.0, 2.0, 3.0, 4.0, "#123456", "a < b & \"c\"");
        svg.text((5.0, 6.0), 12.0, Anchor::End, "#000", "Vec<Box<T>> & co");
        svg.polyline(&[(0.0, 0.0), (10.0, 5.0)], "#f00", 2.0);
        svg.circle((3.0, 3.0), 2.0, "#0f0", "x");
        svg.line((0.0, 0.0), (1.0, 1.0), "#000", 1.0, "4 3");
        let doc = svg.finish();
        assert_eq!(check_well_formed(&doc), Ok(9));
        assert!(doc.contains("Vec&lt;Box&lt;T&gt;&gt; &amp; co"));
        assert!(doc.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    }

    #[test]
    fn ticks_are_round_and_cover_the_maximum() {
        assert_eq!(ticks(4.3, 5), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(ticks(17.0, 4), [0.0, 5.0, 10.0, 15.0, 20.0]);
        assert_eq!(ticks(0.0, 4), [0.0, 1.0]);
    }
}
