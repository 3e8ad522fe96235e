//! Hand-written SVG, shared by every figure sieve draws: Figure 5 of the
//! encoding-error report ([`crate::encoding`]), the threshold-sweep figure
//! ([`crate::sweep_figure`]) and the per-topic charts of the HTML pages;
//! it uses nothing else of the crate. [`Plot`] is the plot area with a
//! linear y axis the sweep figure's panels and the pages' charts share.
//!
//! Conventions every figure keeps:
//! * colours from the colour-blind-safe Okabe–Ito palette ([`PALETTE`]; its
//!   yellow is left out, too pale on white), and, because colour alone is
//!   not enough, a dash pattern ([`DASHES`]) and a marker shape
//!   ([`MARKERS`]) per series;
//! * every string from outside (titles, labels, document text) goes
//!   through [`escape`], which makes it safe in element text **and** in a
//!   quoted attribute;
//! * no script, no external font, image or link: text uses the generic
//!   `sans-serif` family.

use std::fmt::Write as _;

/// Series colours: the Okabe–Ito palette (blue, vermillion, bluish green,
/// reddish purple, orange, sky blue, black) without its yellow.
pub const PALETTE: [(u8, u8, u8); 7] = [
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (204, 121, 167),
    (230, 159, 0),
    (86, 180, 233),
    (0, 0, 0),
];

/// SVG `stroke-dasharray` per series, in [`PALETTE`] order (`None`: solid).
pub const DASHES: [Option<&str>; 7] = [
    None,
    Some("10 4"),
    Some("3 3"),
    Some("12 4 2 4"),
    Some("6 3"),
    Some("12 3 2 3 2 3"),
    Some("1 4"),
];

/// Marker shape per series, in [`PALETTE`] order.
pub const MARKERS: [&str; 7] = [
    "circle",
    "square",
    "triangle",
    "diamond",
    "triangle-down",
    "plus",
    "cross",
];

/// `#RRGGBB` of a colour.
pub fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// The colour of series `i` (the palette repeats after seven series).
pub fn colour(i: usize) -> String {
    hex(PALETTE[i % PALETTE.len()])
}

/// `s` with `&`, `<`, `>` and `"` replaced by character references, so it
/// is inert in SVG/HTML element text and in a double-quoted attribute
/// (every attribute sieve writes is double-quoted; `'` is left as it is,
/// so that titles such as "each class's" read the same in the file);
/// C0 and C1 control characters other than tab and newline, which XML
/// forbids or HTML reports as errors, become U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The path (centred on 0,0, about 10 units across) and extra rotation
/// of a [`MARKERS`] shape.
fn marker_shape(shape: &str) -> (&'static str, &'static str) {
    let d = match shape {
        "circle" => "M-4.5,0 A4.5,4.5 0 1,0 4.5,0 A4.5,4.5 0 1,0 -4.5,0 Z",
        "square" => "M-4,-4 h8 v8 h-8 Z",
        "triangle" => "M0,-5.5 L5,3.5 L-5,3.5 Z",
        "diamond" => "M0,-5.5 L5.5,0 L0,5.5 L-5.5,0 Z",
        "triangle-down" => "M0,5.5 L5,-3.5 L-5,-3.5 Z",
        _ => "M-1.5,-5.5 h3 v4 h4 v3 h-4 v4 h-3 v-4 h-4 v-3 h4 Z",
    };
    let rotate = if shape == "cross" { " rotate(45)" } else { "" };
    (d, rotate)
}

/// One marker of series `i` ([`MARKERS`], [`colour`]) centred on `(x, y)`
/// at `scale` (1 is about 10 pixels across), with CSS `class`; a hollow
/// marker is white inside.
pub fn marker(s: &mut String, i: usize, (x, y): (f64, f64), scale: f64, hollow: bool, class: &str) {
    let col = colour(i);
    let fill = if hollow { "#FFFFFF" } else { col.as_str() };
    let (d, rotate) = marker_shape(MARKERS[i % MARKERS.len()]);
    let _ = writeln!(
        s,
        "<path class=\"{}\" fill=\"{fill}\" stroke=\"{col}\" stroke-width=\"1.5\" \
         transform=\"translate({x:.1},{y:.1}) scale({scale}){rotate}\" d=\"{d}\"/>",
        escape(class)
    );
}

/// A polyline of series `i` ([`colour`], [`DASHES`]) through `points`,
/// with CSS `class`.
pub fn polyline(s: &mut String, i: usize, points: &[(f64, f64)], class: &str) {
    let pts: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    let dash =
        DASHES[i % DASHES.len()].map_or(String::new(), |d| format!(" stroke-dasharray=\"{d}\""));
    let _ = writeln!(
        s,
        "<polyline class=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{dash} \
         points=\"{}\"/>",
        escape(class),
        colour(i),
        pts.join(" ")
    );
}

/// `<text>` at `(x, y)` with `size` and `anchor` (`start`, `middle`,
/// `end`), its content escaped; `extra` is added to the element's
/// attributes as is (callers pass constants only).
pub fn text(s: &mut String, (x, y): (f64, f64), size: f64, anchor: &str, extra: &str, body: &str) {
    let _ = writeln!(
        s,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\" text-anchor=\"{anchor}\"{}{extra}>{}</text>",
        if extra.is_empty() { "" } else { " " },
        escape(body)
    );
}

/// The opening `<svg>` element of a `width` x `height` figure with a white
/// background.
pub fn open(s: &mut String, width: f64, height: f64, class: &str) {
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{}\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\">",
        escape(class)
    );
    let _ = writeln!(
        s,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"#FFFFFF\"/>"
    );
}

/// `text` split at spaces into lines of at most `width` characters (a
/// longer word stays whole).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A linear axis with round ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ticks {
    /// The axis's lowest value (a multiple of `step`, `<=` the data).
    pub lo: f64,
    /// The axis's highest value (a multiple of `step`, `>=` the data).
    pub hi: f64,
    /// Distance between ticks: 1, 2 or 5 times a power of ten.
    pub step: f64,
}

impl Ticks {
    /// Round ticks covering `[min, max]` with about `target` intervals
    /// (at least one). Non-finite bounds are ignored; an empty or
    /// zero-width range gets a unit-wide axis around its value.
    pub fn new(min: f64, max: f64, target: usize) -> Ticks {
        let (mut min, mut max) = match (min.is_finite(), max.is_finite()) {
            (true, true) => (min.min(max), min.max(max)),
            (true, false) => (min, min),
            (false, true) => (max, max),
            (false, false) => (0.0, 1.0),
        };
        if max - min <= f64::EPSILON * max.abs().max(1.0) {
            let c = min;
            let half = if c == 0.0 { 0.5 } else { c.abs() * 0.1 };
            min = c - half;
            max = c + half;
        }
        let raw = (max - min) / target.max(1) as f64;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * mag)
            .find(|&s| s >= raw * (1.0 - 1e-9))
            .unwrap_or(10.0 * mag);
        // A bound within rounding of a multiple of the step is that multiple.
        let snap = |x: f64, out: fn(f64) -> f64| {
            let k = (x / step).round();
            if (x - k * step).abs() <= 1e-9 * step {
                k * step
            } else {
                out(x / step) * step
            }
        };
        let lo = snap(min, f64::floor);
        let hi = snap(max, f64::ceil);
        Ticks { lo, hi, step }
    }

    /// Every tick value, from `lo` to `hi`.
    pub fn values(&self) -> Vec<f64> {
        let n = ((self.hi - self.lo) / self.step).round() as i64;
        (0..=n).map(|i| self.lo + i as f64 * self.step).collect()
    }

    /// `v` with as many decimals as the step needs (`-0` printed as `0`).
    pub fn label(&self, v: f64) -> String {
        let decimals = (-self.step.log10().floor()).max(0.0) as usize;
        let s = format!("{v:.decimals$}");
        if s.trim_start_matches('-')
            .chars()
            .all(|c| c == '0' || c == '.')
        {
            s.trim_start_matches('-').to_string()
        } else {
            s
        }
    }
}

/// How a [`Plot`] writes the page coordinates of its edges: in Rust's
/// shortest form (`70`) or with one decimal (`70.0`). Each figure keeps
/// the form it has always had, so that its file stays the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeDigits {
    /// `{}`: `70`, `880`.
    Shortest,
    /// `{:.1}`: `70.0`, `880.0`.
    One,
}

/// The plot area of a chart with a linear y axis: its edges on the page
/// and the round ticks of its y axis. The per-topic difference chart of
/// the HTML pages and each panel of the sweep figure draw with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plot {
    /// Page x of the area's left edge.
    pub left: f64,
    /// Page x of its right edge.
    pub right: f64,
    /// Page y of its top edge.
    pub top: f64,
    /// Page y of its bottom edge.
    pub bottom: f64,
    /// The y axis.
    pub ticks: Ticks,
    /// How the edges are written.
    pub digits: EdgeDigits,
}

impl Plot {
    /// The page y of the value `v` (`ticks.lo` at the bottom, `ticks.hi`
    /// at the top).
    pub fn y(&self, v: f64) -> f64 {
        let t = &self.ticks;
        self.bottom - (v - t.lo) / (t.hi - t.lo) * (self.bottom - self.top)
    }

    /// A horizontal line across the area at page y `y`, in colour `stroke`.
    pub fn hline(&self, s: &mut String, y: f64, stroke: &str) {
        let (x1, x2) = (self.edge(self.left), self.edge(self.right));
        let _ = writeln!(
            s,
            "<line x1=\"{x1}\" y1=\"{y:.1}\" x2=\"{x2}\" y2=\"{y:.1}\" stroke=\"{stroke}\"/>"
        );
    }

    /// The y axis: a light grid line at each tick, its label left of the
    /// area.
    pub fn grid(&self, s: &mut String) {
        for v in self.ticks.values() {
            let y = self.y(v);
            self.hline(s, y, "#E4E4E4");
            text(
                s,
                (self.left - 6.0, y + 4.0),
                11.0,
                "end",
                "",
                &self.ticks.label(v),
            );
        }
    }

    /// The black frame around the area.
    pub fn frame(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#000000\"/>",
            self.edge(self.left),
            self.edge(self.top),
            self.right - self.left,
            self.bottom - self.top
        );
    }

    /// The page coordinate `v` of an edge, written as [`Plot::digits`] says.
    fn edge(&self, v: f64) -> String {
        match self.digits {
            EdgeDigits::Shortest => format!("{v}"),
            EdgeDigits::One => format!("{v:.1}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_makes_text_and_attributes_inert() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert('x')&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(
            escape("a\u{0}b\u{1b}c\u{85}d\te"),
            "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\te"
        );
        assert_eq!(escape("Ünïcödé ☃"), "Ünïcödé ☃");
    }

    #[test]
    fn ticks_are_round_and_cover_the_data() {
        let t = Ticks::new(0.0, 0.37, 5);
        assert_eq!((t.lo, t.step), (0.0, 0.1));
        assert!((t.hi - 0.4).abs() < 1e-12);
        assert_eq!(t.values().len(), 5);
        assert_eq!(t.label(0.2), "0.2");
        let t = Ticks::new(-0.031, 0.012, 4);
        assert!(t.lo <= -0.031 && t.hi >= 0.012, "{t:?}");
        assert_eq!(t.step, 0.02);
        assert_eq!(t.label(-0.0), "0.00");
        for (lo, hi) in [
            (0.25, 0.25),
            (0.0, 0.0),
            (f64::NAN, f64::NAN),
            (-3.0, f64::INFINITY),
        ] {
            let t = Ticks::new(lo, hi, 5);
            assert!(t.lo < t.hi && t.step > 0.0, "{lo} {hi}: {t:?}");
            assert!(t.values().len() >= 2);
        }
        // Random ranges: ticks always cover the data, 2..=13 of them.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = (x % 10_000) as f64 / 997.0 - 5.0;
            let b = a + ((x >> 20) % 10_000) as f64 / 10f64.powi((x >> 40) as i32 % 6);
            let t = Ticks::new(a, b, 5);
            assert!(t.lo <= a + 1e-12 && t.hi >= b - 1e-12, "{a} {b}: {t:?}");
            assert!((2..=13).contains(&t.values().len()), "{a} {b}: {t:?}");
        }
    }

    #[test]
    fn wrap_keeps_words_whole() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(
            wrap("averyveryverylongword x", 5),
            ["averyveryverylongword", "x"]
        );
    }
}
