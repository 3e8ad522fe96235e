//! Figure 5 of the report as SVG, written by hand (no plotting library):
//! per error class, either the proportion of documents containing it or
//! the cumulative percentage of its occurrences, by spam percentile or
//! decile, on a linear or logarithmic y axis.
//!
//! What a reader can rely on (each is tested in `tests.rs`):
//! * every data point has a marker, a shape per class ([`MARKERS`]);
//! * lines join only neighbouring bins that both hold documents: no
//!   segment crosses a bin without documents (nor, on a log axis, a zero);
//! * each class has an Okabe–Ito colour ([`COLOURS`]) and its own dash
//!   pattern ([`DASHES`]), so series that overlap stay distinguishable, and
//!   the legend says when classes coincide (identical values in every bin,
//!   e.g. zero everywhere) or have nothing to draw;
//! * on a log axis a zero cannot be placed: zeros are drawn as hollow
//!   markers on a separate baseline labelled `0` below the axis, and are
//!   not joined to the curve;
//! * title, axis labels and file name follow the mode ([`figure_title`],
//!   [`figure_name`]);
//! * an empty figure carries its warning ([`super::figure_warning`]) in
//!   the plot area.

use std::fmt::Write as _;

use sieve_filters::utf8::ErrorClass;

use super::axis::{Axis, Frame, HEIGHT, LEGEND_X, WIDTH};
use super::tables::{Bin, cumulative_percent};
use super::tally::CLASSES;
use crate::svg;

/// Title of Figure 5 in its default form (proportions by percentile).
pub const FIGURE5_TITLE: &str =
    "Proportion of documents with each UTF-8 error class by spam percentile";

/// Series colours, dashes and marker shapes, in [`ErrorClass::ALL`]
/// order: the shared Okabe–Ito conventions of [`crate::svg`] (named here
/// for the tests).
#[cfg(test)]
pub(super) const COLOURS: [(u8, u8, u8); CLASSES] = svg::PALETTE;
#[cfg(test)]
pub(super) const DASHES: [Option<&str>; CLASSES] = svg::DASHES;
#[cfg(test)]
pub(super) const MARKERS: [&str; CLASSES] = svg::MARKERS;

/// How Figure 5 is drawn.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct FigureOptions {
    /// Bins are deciles (else percentiles).
    pub(super) deciles: bool,
    /// Cumulative percentages of occurrences (else proportions of
    /// documents).
    pub(super) cumulative: bool,
    /// Logarithmic y axis.
    pub(super) log_y: bool,
}

/// The figure's file name for `o`.
pub(super) fn figure_name(o: FigureOptions) -> &'static str {
    match (o.cumulative, o.deciles) {
        (false, false) => "figure5.svg",
        (false, true) => "figure5-deciles.svg",
        (true, false) => "figure5-cumulative.svg",
        (true, true) => "figure5-cumulative-deciles.svg",
    }
}

/// The figure's title for `o`.
pub fn figure_title(deciles: bool, cumulative: bool) -> String {
    let by = if deciles { "decile" } else { "percentile" };
    if cumulative {
        format!("Cumulative percentage of each UTF-8 error class's occurrences by spam {by}")
    } else {
        format!("Proportion of documents with each UTF-8 error class by spam {by}")
    }
}

fn x_label(deciles: bool) -> &'static str {
    if deciles {
        "Spam decile (0 = percentiles 0\u{2013}9, spammiest; 9 = percentiles 90\u{2013}99)"
    } else {
        "Spam percentile (0 = spammiest, 99 = least spammy)"
    }
}

fn y_label(o: FigureOptions) -> String {
    let base = if o.cumulative {
        "% of the class's occurrences at or below this bin"
    } else {
        "Proportion of documents containing the error"
    };
    if o.log_y {
        format!("{base} (log scale)")
    } else {
        base.to_string()
    }
}

/// The values drawn per class and bin: `None` where nothing is drawn (a
/// bin without documents; in cumulative form, also a class without
/// occurrences).
pub(super) fn series(bins: &[Bin], cumulative: bool) -> Vec<Vec<Option<f64>>> {
    (0..CLASSES)
        .map(|c| {
            let cum = cumulative.then(|| cumulative_percent(bins, c));
            bins.iter()
                .enumerate()
                .map(|(b, bin)| match &cum {
                    _ if bin.docs == 0 => None,
                    Some(cum) => cum[b],
                    None => Some(bin.with[c] as f64 / bin.docs as f64),
                })
                .collect()
        })
        .collect()
}

/// The legend's note for each class: nothing to draw (in cumulative form:
/// the class never occurs in a scored document; else: no bin holds
/// documents), zero everywhere, or the same values as other classes (so
/// their lines overlap).
pub(super) fn notes(series: &[Vec<Option<f64>>], cumulative: bool) -> Vec<Option<String>> {
    let label = |c: usize| ErrorClass::ALL[c].label();
    (0..series.len())
        .map(|c| {
            if series[c].iter().all(Option::is_none) {
                return Some(
                    if cumulative {
                        "no occurrence in a scored document: no curve"
                    } else {
                        "nothing to draw: no document has a spam score"
                    }
                    .to_string(),
                );
            }
            let same: Vec<usize> = (0..series.len())
                .filter(|&k| k != c && series[k] == series[c])
                .collect();
            let zero = series[c].iter().flatten().all(|&v| v == 0.0);
            match (zero, same.len()) {
                (true, 0) => Some("0 in every bin".to_string()),
                (true, n) => Some(format!(
                    "0 in every bin, as are {n} other class{}: lines overlap",
                    if n == 1 { "" } else { "es" }
                )),
                (false, 0) => None,
                (false, 1) => Some(format!("same values as {}", label(same[0]))),
                (false, n) => Some(format!(
                    "same values as {} and {} more",
                    label(same[0]),
                    n - 1
                )),
            }
        })
        .collect()
}

use crate::svg::escape;

/// One marker of class `c` centred on `(x, y)`, drawn at `scale` (1 is
/// about 10 pixels across); hollow ones are white inside.
pub(super) fn marker(s: &mut String, c: usize, p: (f64, f64), scale: f64, hollow: bool) {
    let key = ErrorClass::ALL[c].key();
    let zero = if hollow { " zero" } else { "" };
    svg::marker(s, c, p, scale, hollow, &format!("marker m-{key}{zero}"));
}

/// A polyline of class `c` through `points`.
pub(super) fn polyline(s: &mut String, c: usize, points: &[(f64, f64)], class: &str) {
    svg::polyline(s, c, points, class);
}

/// Figure 5 as SVG; `warning` (why the figure is empty) is written in the
/// plot area.
pub(super) fn figure5_svg(bins: &[Bin], o: FigureOptions, warning: Option<&str>) -> String {
    let series = series(bins, o.cumulative);
    let axis = Axis::new(&series, o.cumulative, o.log_y);
    let frame = Frame::new(bins.len(), axis);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\">"
    );
    let _ = writeln!(
        s,
        "<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#FFFFFF\"/>"
    );
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"30\" font-size=\"18\" text-anchor=\"middle\">{}</text>",
        f64::from(WIDTH) / 2.0,
        escape(&figure_title(o.deciles, o.cumulative))
    );
    frame.draw_axes(&mut s, o.deciles, x_label(o.deciles), &y_label(o));
    for (c, values) in series.iter().enumerate() {
        draw_series(&mut s, &frame, c, values);
    }
    draw_legend(&mut s, &notes(&series, o.cumulative), o.log_y);
    if let Some(w) = warning {
        frame.draw_message(&mut s, w);
    }
    s.push_str("</svg>\n");
    s
}

/// One class's lines (runs of neighbouring drawable bins) and markers.
fn draw_series(s: &mut String, frame: &Frame, c: usize, values: &[Option<f64>]) {
    let key = ErrorClass::ALL[c].key();
    let mut run: Vec<(f64, f64)> = Vec::new();
    let flush = |run: &mut Vec<(f64, f64)>, s: &mut String| {
        if run.len() >= 2 {
            polyline(s, c, run, &format!("series s-{key}"));
        }
        run.clear();
    };
    for (b, v) in values.iter().enumerate() {
        match v.and_then(|v| frame.point(b, v)) {
            Some(p) => run.push(p),
            None => flush(&mut run, s),
        }
    }
    flush(&mut run, s);
    // Smaller markers when there are many bins.
    let scale = if values.len() > 20 { 0.7 } else { 1.0 };
    for (b, v) in values.iter().enumerate() {
        if let Some(v) = *v {
            match frame.point(b, v) {
                Some(p) => marker(s, c, p, scale, false),
                None => marker(s, c, frame.zero_point(b), scale, true),
            }
        }
    }
}

/// The legend, right of the plot: per class a line sample with its dash
/// and marker, the label, and the class's note.
fn draw_legend(s: &mut String, notes: &[Option<String>], log_y: bool) {
    let x = f64::from(LEGEND_X);
    let mut y = 70.0;
    let _ = writeln!(s, "<g class=\"legend\">");
    for (c, class) in ErrorClass::ALL.into_iter().enumerate() {
        polyline(s, c, &[(x, y), (x + 36.0, y)], "legend-line");
        marker(s, c, (x + 18.0, y), 1.0, false);
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\">{}</text>",
            x + 44.0,
            y + 4.5,
            escape(class.label())
        );
        y += 17.0;
        if let Some(note) = &notes[c] {
            for line in wrap(note, 40) {
                let _ = writeln!(
                    s,
                    "<text class=\"note\" x=\"{:.1}\" y=\"{y:.1}\" font-size=\"11\" \
                     fill=\"#444444\">{}</text>",
                    x + 44.0,
                    escape(&line)
                );
                y += 13.0;
            }
        }
        y += 12.0;
    }
    if log_y {
        for line in wrap(
            "Log axis: zeros are hollow markers on the 0 line below the axis, not joined.",
            46,
        ) {
            let _ = writeln!(
                s,
                "<text class=\"note\" x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"11\" \
                 fill=\"#444444\">{}</text>",
                escape(&line)
            );
            y += 13.0;
        }
    }
    let _ = writeln!(s, "</g>");
}

pub(super) use crate::svg::wrap;
