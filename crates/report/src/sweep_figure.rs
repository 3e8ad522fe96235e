//! `sweep.svg`: each measure against the threshold, written by hand with
//! the shared conventions of [`crate::svg`] (Okabe–Ito colours,
//! a dash pattern and a marker shape per series, escaped text).
//!
//! What the figure shows (each is tested):
//! * one panel per measure that is not a count (and, for a sweep of several
//!   rules not crossed, per rule: each rule has its own x axis); panels in
//!   two columns;
//! * the x axis is the rule's threshold: in proportion for spam
//!   percentiles, evenly spaced in value order for per-KB rates
//!   ([`super::Scale`]); in a crossed sweep, the first rule's threshold,
//!   the other rules' values telling the series apart;
//! * one series per BM25 setting (and, crossed, per combination of the
//!   other rules): a line through the setting's mean at each threshold;
//! * a band (and an error bar at each point) for the 95% confidence
//!   interval of the mean difference from the unfiltered run, drawn around
//!   the unfiltered mean, so the band holds the point and crosses the
//!   baseline exactly when the interval holds 0;
//! * a filled marker where the difference is significant (Holm-corrected
//!   p < 0.05), a hollow one elsewhere;
//! * the unfiltered run as a dashed horizontal line labelled `unfiltered`;
//! * a `<title>` on every point (the setting, its mean, difference,
//!   interval and p-values), which a browser shows on hover without any
//!   script.

use std::fmt::Write as _;

use crate::svg::{self, Ticks, escape};

use sieve_searcher::sweep::{Outcome, Rule, Scale, Table};
use sieve_searcher::eval::Measure;
use sieve_searcher::paired::ALPHA;

/// Figure width.
pub const WIDTH: f64 = 1000.0;
const PANEL_W: f64 = 500.0;
const PANEL_H: f64 = 300.0;
const TOP: f64 = 70.0;
/// Plot area inside a panel.
const PL: f64 = 70.0;
const PR: f64 = 24.0;
const PT: f64 = 34.0;
const PB: f64 = 62.0;

/// One line of a panel.
#[derive(Debug, Clone, PartialEq)]
struct Series {
    /// Legend label.
    label: String,
    /// The baseline setting.
    baseline: usize,
    /// `(threshold, setting)`, by threshold.
    points: Vec<(f64, usize)>,
}

/// The rules that get their own x axis.
fn x_rules(outcome: &Outcome, cross: bool) -> Vec<Rule> {
    if cross {
        outcome.rules.first().copied().into_iter().collect()
    } else {
        outcome.rules.clone()
    }
}

/// Whether the sweep was crossed (some setting has several conditions).
fn crossed(outcome: &Outcome) -> bool {
    outcome.settings.iter().any(|s| s.conditions.len() > 1)
}

/// The series of a panel over rule `rule`, in setting order.
fn series(outcome: &Outcome, rule: Rule) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for (i, s) in outcome.settings.iter().enumerate() {
        let Some(&(first, x)) = s.conditions.first() else {
            continue;
        };
        // Not crossed: the settings of this rule (one condition each);
        // crossed: every filtered setting (its first condition is the
        // first rule's).
        if first != rule {
            continue;
        }
        let mut parts: Vec<String> = Vec::new();
        if outcome.several_params {
            parts.push(format!("k1={} b={}", s.params.k1, s.params.b));
        }
        parts.extend(s.conditions[1..].iter().map(|(r, v)| r.describe(*v)));
        let label = if parts.is_empty() {
            "filtered".to_string()
        } else {
            parts.join(", ")
        };
        match out
            .iter_mut()
            .find(|x| x.baseline == s.baseline && x.label == label)
        {
            Some(series) => series.points.push((x, i)),
            None => out.push(Series {
                label,
                baseline: s.baseline,
                points: vec![(x, i)],
            }),
        }
    }
    for s in &mut out {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The x positions of a panel: page x of each threshold.
struct XAxis {
    scale: Scale,
    values: Vec<f64>,
    ticks: Option<Ticks>,
    left: f64,
    width: f64,
}

impl XAxis {
    fn new(rule: Rule, series: &[Series], left: f64, width: f64) -> XAxis {
        let mut values: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let scale = rule.scale();
        let ticks = match scale {
            Scale::Linear => Some(Ticks::new(
                values.first().copied().unwrap_or(0.0),
                values.last().copied().unwrap_or(1.0),
                6,
            )),
            Scale::Ordinal => None,
        };
        XAxis {
            scale,
            values,
            ticks,
            left,
            width,
        }
    }

    fn x(&self, v: f64) -> f64 {
        match (self.scale, &self.ticks) {
            (Scale::Linear, Some(t)) => {
                // a margin of 4% each side keeps end markers off the frame
                let f = (v - t.lo) / (t.hi - t.lo);
                self.left + self.width * (0.04 + 0.92 * f)
            }
            _ => {
                let i = self.values.iter().position(|&x| x == v).unwrap_or(0);
                self.left + self.width * (i as f64 + 0.5) / self.values.len().max(1) as f64
            }
        }
    }

    /// `(page x, label)` of each tick.
    fn ticks(&self, rule: Rule) -> Vec<(f64, String)> {
        match &self.ticks {
            Some(t) => t
                .values()
                .into_iter()
                .map(|v| (self.x(v), t.label(v)))
                .collect(),
            None => self
                .values
                .iter()
                .map(|&v| (self.x(v), rule.value_text(v)))
                .collect(),
        }
    }
}

/// `sweep.svg` of `outcome` (see the module docs); `subtitle` is written
/// under the title (topics, statistics mode).
pub fn sweep_svg(outcome: &Outcome, table: &Table, subtitle: &str) -> String {
    let cross = crossed(outcome);
    let rules = x_rules(outcome, cross);
    let measures: Vec<(usize, Measure)> = table
        .measures
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, m)| !m.is_count())
        .collect();
    let panels: Vec<(usize, Measure, Rule)> = measures
        .iter()
        .flat_map(|&(j, m)| rules.iter().map(move |&r| (j, m, r)))
        .collect();
    let cols = if panels.len() == 1 { 1 } else { 2 };
    let rows = panels.len().div_ceil(cols).max(1);
    let legend_series = rules
        .first()
        .map(|&r| series(outcome, r))
        .unwrap_or_default();
    let width = if cols == 1 { PANEL_W + 40.0 } else { WIDTH };
    let notes = legend_notes(width);
    let legend_h = 30.0 + 20.0 * legend_series.len() as f64 + 15.0 * notes.len() as f64;
    let height = TOP + rows as f64 * PANEL_H + legend_h;
    let mut s = String::new();
    svg::open(&mut s, width, height, "sieve-sweep");
    svg::text(
        &mut s,
        (width / 2.0, 28.0),
        18.0,
        "middle",
        "",
        "Retrieval effectiveness against the filter threshold",
    );
    svg::text(
        &mut s,
        (width / 2.0, 50.0),
        13.0,
        "middle",
        "fill=\"#444444\"",
        subtitle,
    );
    if panels.is_empty() {
        svg::text(
            &mut s,
            (width / 2.0, TOP + 40.0),
            14.0,
            "middle",
            "class=\"warning\"",
            "No measure to draw: every measure asked for is a count.",
        );
    }
    for (k, &(j, m, rule)) in panels.iter().enumerate() {
        let (c, r) = (k % cols, k / cols);
        let x0 = if cols == 1 { 20.0 } else { c as f64 * PANEL_W };
        let y0 = TOP + r as f64 * PANEL_H;
        draw_panel(
            &mut s,
            outcome,
            table,
            (j, m),
            rule,
            rules.len() > 1,
            (x0, y0),
        );
    }
    draw_legend(
        &mut s,
        &legend_series,
        &notes,
        TOP + rows as f64 * PANEL_H + 10.0,
    );
    s.push_str("</svg>\n");
    s
}

#[allow(clippy::too_many_arguments)]
fn draw_panel(
    s: &mut String,
    outcome: &Outcome,
    table: &Table,
    (j, m): (usize, Measure),
    rule: Rule,
    name_rule: bool,
    (x0, y0): (f64, f64),
) {
    let series = series(outcome, rule);
    let (left, right) = (x0 + PL, x0 + PANEL_W - PR);
    let (top, bottom) = (y0 + PT, y0 + PANEL_H - PB);
    let xa = XAxis::new(rule, &series, left, right - left);
    // The y range: every mean, baseline and band edge drawn.
    let mut ys: Vec<f64> = Vec::new();
    for se in &series {
        let base = table.means[se.baseline][j];
        ys.push(base);
        for &(_, i) in &se.points {
            ys.push(table.means[i][j]);
            if let Some((lo, hi)) = table.versus[i][j].as_ref().and_then(|v| v.paired.ci) {
                ys.push(base + lo);
                ys.push(base + hi);
            }
        }
    }
    let ys: Vec<f64> = ys.into_iter().filter(|v| v.is_finite()).collect();
    let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // headroom above the highest value for the baseline's label
    let t = Ticks::new(lo, hi + 0.08 * (hi - lo).max(0.0), 4);
    let y = |v: f64| bottom - (v - t.lo) / (t.hi - t.lo) * (bottom - top);
    let _ = writeln!(
        s,
        "<g class=\"panel\" data-measure=\"{}\" data-rule=\"{}\">",
        escape(&m.name()),
        escape(rule.key())
    );
    let title = if name_rule {
        format!("{} by {}", m.name(), rule.key())
    } else {
        m.name()
    };
    svg::text(
        s,
        ((left + right) / 2.0, y0 + 22.0),
        15.0,
        "middle",
        "font-weight=\"bold\"",
        &title,
    );
    // grid and y ticks
    for v in t.values() {
        let yy = y(v);
        let _ = writeln!(
            s,
            "<line x1=\"{left:.1}\" y1=\"{yy:.1}\" x2=\"{right:.1}\" y2=\"{yy:.1}\" stroke=\"#E4E4E4\"/>"
        );
        svg::text(s, (left - 6.0, yy + 4.0), 11.0, "end", "", &t.label(v));
    }
    for (xx, label) in xa.ticks(rule) {
        let _ = writeln!(
            s,
            "<line x1=\"{xx:.1}\" y1=\"{bottom:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#000000\"/>",
            bottom + 5.0
        );
        svg::text(s, (xx, bottom + 18.0), 11.0, "middle", "", &label);
    }
    let _ = writeln!(
        s,
        "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#000000\"/>",
        right - left,
        bottom - top
    );
    svg::text(
        s,
        ((left + right) / 2.0, bottom + 38.0),
        11.5,
        "middle",
        "",
        &rule.axis_label(),
    );
    let _ = writeln!(
        s,
        "<text font-size=\"12\" text-anchor=\"middle\" transform=\"translate({:.1},{:.1}) rotate(-90)\">{}</text>",
        x0 + 18.0,
        (top + bottom) / 2.0,
        escape(&m.name())
    );
    // baselines, one per distinct baseline setting
    let mut drawn: Vec<usize> = Vec::new();
    for (k, se) in series.iter().enumerate() {
        if drawn.contains(&se.baseline) {
            continue;
        }
        drawn.push(se.baseline);
        let yy = y(table.means[se.baseline][j]);
        let colour = if outcome.several_params {
            svg::colour(k)
        } else {
            "#555555".to_string()
        };
        let _ = writeln!(
            s,
            "<line class=\"baseline\" x1=\"{left:.1}\" y1=\"{yy:.1}\" x2=\"{right:.1}\" y2=\"{yy:.1}\" \
             stroke=\"{colour}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>{}</title></line>",
            escape(&format!(
                "unfiltered ({}): {} = {:.4}",
                outcome.settings[se.baseline].tag,
                m.name(),
                table.means[se.baseline][j]
            ))
        );
        if drawn.len() == 1 {
            svg::text(
                s,
                (right - 4.0, yy - 5.0),
                10.0,
                "end",
                "fill=\"#555555\"",
                "unfiltered",
            );
        }
    }
    // Several series: each is shifted a few pixels sideways, so that
    // their error bars and markers do not hide each other.
    let n = series.len() as f64;
    for (k, se) in series.iter().enumerate() {
        let dodge = (k as f64 - (n - 1.0) / 2.0) * 4.0;
        draw_series(s, table, j, k, se, &xa, dodge, &y);
    }
    let _ = writeln!(s, "</g>");
}

#[allow(clippy::too_many_arguments)]
fn draw_series(
    s: &mut String,
    table: &Table,
    j: usize,
    k: usize,
    se: &Series,
    xa: &XAxis,
    dodge: f64,
    y: &dyn Fn(f64) -> f64,
) {
    let base = table.means[se.baseline][j];
    let colour = svg::colour(k);
    // the band, over runs of points with an interval
    let mut run: Vec<(f64, f64, f64)> = Vec::new();
    let flush = |run: &mut Vec<(f64, f64, f64)>, s: &mut String| {
        if run.len() >= 2 {
            let mut pts: Vec<String> = run
                .iter()
                .map(|(x, lo, _)| format!("{x:.1},{lo:.1}"))
                .collect();
            pts.extend(run.iter().rev().map(|(x, _, hi)| format!("{x:.1},{hi:.1}")));
            let _ = writeln!(
                s,
                "<polygon class=\"band\" fill=\"{colour}\" fill-opacity=\"0.15\" stroke=\"none\" points=\"{}\"/>",
                pts.join(" ")
            );
        }
        run.clear();
    };
    for &(x, i) in &se.points {
        match table.versus[i][j].as_ref().and_then(|v| v.paired.ci) {
            Some((lo, hi)) => run.push((xa.x(x) + dodge, y(base + lo), y(base + hi))),
            None => flush(&mut run, s),
        }
    }
    flush(&mut run, s);
    let pts: Vec<(f64, f64)> = se
        .points
        .iter()
        .map(|&(x, i)| (xa.x(x) + dodge, y(table.means[i][j])))
        .collect();
    if pts.len() >= 2 {
        svg::polyline(s, k, &pts, "series");
    }
    for (&(x, i), &(px, py)) in se.points.iter().zip(&pts) {
        let v = table.versus[i][j].as_ref();
        if let Some((lo, hi)) = v.and_then(|v| v.paired.ci) {
            let _ = writeln!(
                s,
                "<line class=\"errorbar\" x1=\"{px:.1}\" y1=\"{:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"1\"/>",
                y(base + lo),
                y(base + hi)
            );
        }
        let significant = v.and_then(|v| v.p_holm).is_some_and(|p| p < ALPHA);
        let tip = match v {
            Some(v) => format!(
                "threshold {x}: mean {:.4}; difference {:+.4}{}; p {}; Holm p {}",
                table.means[i][j],
                v.paired.mean,
                v.paired.ci.map_or(String::new(), |(lo, hi)| format!(
                    " (95% CI {lo:+.4} to {hi:+.4})"
                )),
                sieve_searcher::sweep::table::p_text(v.paired.p),
                sieve_searcher::sweep::table::p_text(v.p_holm)
            ),
            None => format!("threshold {x}: mean {:.4}", table.means[i][j]),
        };
        let _ = writeln!(s, "<g class=\"point\"><title>{}</title>", escape(&tip));
        svg::marker(
            s,
            k,
            (px, py),
            0.85,
            !significant,
            if significant {
                "marker significant"
            } else {
                "marker"
            },
        );
        let _ = writeln!(s, "</g>");
    }
}

/// The legend's explanation, wrapped to the figure's width.
fn legend_notes(width: f64) -> Vec<String> {
    let notes = [
        "Filled marker: the difference from the unfiltered run is significant (paired two-sided t-test over topics, Holm-corrected over the sweep, p < 0.05); hollow: not significant.",
        "Band and bars: 95% confidence interval of the mean per-topic difference, drawn around the unfiltered mean.",
        "Dashed line: the unfiltered run (same k1 and b).",
    ];
    notes
        .iter()
        .flat_map(|n| svg::wrap(n, ((width - 80.0) / 6.6) as usize))
        .collect()
}

fn draw_legend(s: &mut String, series: &[Series], notes: &[String], y0: f64) {
    let _ = writeln!(s, "<g class=\"legend\">");
    let x = 40.0;
    let mut y = y0 + 14.0;
    for (k, se) in series.iter().enumerate() {
        svg::polyline(s, k, &[(x, y), (x + 36.0, y)], "legend-line");
        svg::marker(s, k, (x + 18.0, y), 0.85, false, "legend-marker");
        svg::text(s, (x + 46.0, y + 4.5), 12.5, "start", "", &se.label);
        y += 20.0;
    }
    for line in notes {
        svg::text(s, (x, y + 4.0), 11.5, "start", "fill=\"#333333\"", line);
        y += 15.0;
    }
    let _ = writeln!(s, "</g>");
}
