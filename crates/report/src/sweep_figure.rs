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
//!   ([`sieve_searcher::sweep::Scale`]); in a crossed sweep, the first rule's threshold,
//!   the other rules' values telling the series apart;
//! * one series per model setting (and feedback setting, and, crossed,
//!   per combination of the other rules): a line through the setting's
//!   mean at each threshold;
//! * a band (and an error bar at each point) for the 95% confidence
//!   interval of the mean difference from the unfiltered run, drawn around
//!   the unfiltered mean, so the band holds the point and crosses the
//!   baseline exactly when the interval holds 0;
//! * a filled marker where the difference is significant (Holm-corrected
//!   p < 0.05), a hollow one elsewhere;
//! * the unfiltered run as a dashed horizontal line labelled `unfiltered`;
//! * after the measures' panels, a judged-loss panel per rule (module
//!   `judged`): the share of the judged relevant documents each filter
//!   removes, beside the share of all documents it removes;
//! * a `<title>` on every point (the setting, its mean, difference,
//!   interval and p-values), which a browser shows on hover without any
//!   script.

mod judged;

use std::fmt::Write as _;

use crate::svg::{self, EdgeDigits, Plot, Ticks, escape};

use sieve_searcher::eval::Measure;
use sieve_searcher::paired::ALPHA;
use sieve_searcher::sweep::table::p_text;
use sieve_searcher::sweep::{Outcome, Rule, Scale, Table, Versus};

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
            parts.push(match s.qld {
                Some(q) => format!("qld mu={}", q.mu),
                None => format!("k1={} b={}", s.params.k1, s.params.b),
            });
        }
        if let Some(f) = &s.feedback {
            parts.push(f.label());
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
    // One judged-loss panel per rule with its own x axis, after the
    // measures' panels.
    let loss_rules: Vec<Rule> = if outcome.losses.iter().any(Option::is_some) {
        rules.clone()
    } else {
        Vec::new()
    };
    let n_panels = panels.len() + loss_rules.len();
    let cols = if n_panels == 1 { 1 } else { 2 };
    let rows = n_panels.div_ceil(cols).max(1);
    let legend_series = rules
        .first()
        .map(|&r| series(outcome, r))
        .unwrap_or_default();
    let width = if cols == 1 { PANEL_W + 40.0 } else { WIDTH };
    let notes = legend_notes(width, outcome.has_feedback(), !loss_rules.is_empty());
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
    if n_panels == 0 {
        svg::text(
            &mut s,
            (width / 2.0, TOP + 40.0),
            14.0,
            "middle",
            "class=\"warning\"",
            "No measure to draw: every measure asked for is a count.",
        );
    }
    let corner = |k: usize| {
        let (c, r) = (k % cols, k / cols);
        let x0 = if cols == 1 { 20.0 } else { c as f64 * PANEL_W };
        (x0, TOP + r as f64 * PANEL_H)
    };
    for (k, &(j, m, rule)) in panels.iter().enumerate() {
        Panel::new(outcome, table, (j, m), rule, corner(k)).draw(&mut s, rules.len() > 1);
    }
    for (k, &rule) in loss_rules.iter().enumerate() {
        judged::draw(&mut s, outcome, rule, corner(panels.len() + k));
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

/// One panel of the figure: a measure against one rule's threshold, with
/// its series, x axis and plot area.
struct Panel<'a> {
    outcome: &'a Outcome,
    table: &'a Table,
    /// The measure's column in `table`, and the measure.
    j: usize,
    m: Measure,
    rule: Rule,
    series: Vec<Series>,
    xa: XAxis,
    plot: Plot,
    /// The panel's top-left corner on the page.
    x0: f64,
    y0: f64,
}

impl<'a> Panel<'a> {
    /// The panel of measure `m` (column `j`) over `rule`, its top-left
    /// corner at `(x0, y0)`.
    fn new(
        outcome: &'a Outcome,
        table: &'a Table,
        (j, m): (usize, Measure),
        rule: Rule,
        (x0, y0): (f64, f64),
    ) -> Panel<'a> {
        let series = series(outcome, rule);
        let (xa, plot) = plot_area(rule, &series, (x0, y0), y_ticks(table, j, &series));
        Panel {
            outcome,
            table,
            j,
            m,
            rule,
            series,
            xa,
            plot,
            x0,
            y0,
        }
    }

    /// Draws the panel, named by measure and also by rule when
    /// `name_rule` (several rules, each with its own panels).
    fn draw(&self, s: &mut String, name_rule: bool) {
        let _ = writeln!(
            s,
            "<g class=\"panel\" data-measure=\"{}\" data-rule=\"{}\">",
            escape(&self.m.name()),
            escape(self.rule.key())
        );
        let title = if name_rule {
            format!("{} by {}", self.m.name(), self.rule.key())
        } else {
            self.m.name()
        };
        let p = &self.plot;
        svg::text(
            s,
            ((p.left + p.right) / 2.0, self.y0 + 22.0),
            15.0,
            "middle",
            "font-weight=\"bold\"",
            &title,
        );
        self.draw_axes(s);
        self.draw_baselines(s);
        // Several series: each is shifted a few pixels sideways, so that
        // their error bars and markers do not hide each other.
        let n = self.series.len() as f64;
        for (k, se) in self.series.iter().enumerate() {
            let dodge = (k as f64 - (n - 1.0) / 2.0) * 4.0;
            self.draw_series(s, k, se, dodge);
        }
        let _ = writeln!(s, "</g>");
    }

    /// The grid and y ticks, the x ticks, the frame and both axis labels.
    fn draw_axes(&self, s: &mut String) {
        draw_axes(
            s,
            (&self.plot, &self.xa),
            self.rule,
            self.x0,
            &self.m.name(),
        );
    }

    /// The unfiltered runs as dashed lines, one per distinct baseline
    /// setting, the first labelled `unfiltered`.
    fn draw_baselines(&self, s: &mut String) {
        let (p, j) = (&self.plot, self.j);
        let mut drawn: Vec<usize> = Vec::new();
        for (k, se) in self.series.iter().enumerate() {
            if drawn.contains(&se.baseline) {
                continue;
            }
            drawn.push(se.baseline);
            let mean = self.table.means[se.baseline][j];
            let yy = p.y(mean);
            let colour = if self.outcome.baselines() > 1 {
                svg::colour(k)
            } else {
                "#555555".to_string()
            };
            let _ = writeln!(
                s,
                "<line class=\"baseline\" x1=\"{:.1}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" \
                 stroke=\"{colour}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>{}</title></line>",
                p.left,
                p.right,
                escape(&format!(
                    "unfiltered ({}): {} = {mean:.4}",
                    self.outcome.settings[se.baseline].tag,
                    self.m.name(),
                ))
            );
            if drawn.len() == 1 {
                svg::text(
                    s,
                    (p.right - 4.0, yy - 5.0),
                    10.0,
                    "end",
                    "fill=\"#555555\"",
                    "unfiltered",
                );
            }
        }
    }

    /// Series `k`: its confidence band, its line, and a marker (with error
    /// bar and hover text) at each threshold; shifted `dodge` pixels
    /// sideways.
    fn draw_series(&self, s: &mut String, k: usize, se: &Series, dodge: f64) {
        self.draw_band(s, k, se, dodge);
        let pts: Vec<(f64, f64)> = se
            .points
            .iter()
            .map(|&(x, i)| {
                (
                    self.xa.x(x) + dodge,
                    self.plot.y(self.table.means[i][self.j]),
                )
            })
            .collect();
        if pts.len() >= 2 {
            svg::polyline(s, k, &pts, "series");
        }
        for (&(x, i), &at) in se.points.iter().zip(&pts) {
            self.draw_point(s, k, se, (x, i), at);
        }
    }

    /// The band of series `k` around its baseline's mean, over each run of
    /// consecutive points that have a confidence interval.
    fn draw_band(&self, s: &mut String, k: usize, se: &Series, dodge: f64) {
        let (j, y) = (self.j, |v: f64| self.plot.y(v));
        let base = self.table.means[se.baseline][j];
        let colour = svg::colour(k);
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
            match self.table.versus[i][j].as_ref().and_then(|v| v.paired.ci) {
                Some((lo, hi)) => run.push((self.xa.x(x) + dodge, y(base + lo), y(base + hi))),
                None => flush(&mut run, s),
            }
        }
        flush(&mut run, s);
    }

    /// The point of setting `i` (threshold `x`) of series `k`, at page
    /// `(px, py)`: its error bar, and its marker (filled when significant)
    /// in a group whose `<title>` gives its numbers.
    fn draw_point(
        &self,
        s: &mut String,
        k: usize,
        se: &Series,
        (x, i): (f64, usize),
        (px, py): (f64, f64),
    ) {
        let v = self.table.versus[i][self.j].as_ref();
        if let Some((lo, hi)) = v.and_then(|v| v.paired.ci) {
            let base = self.table.means[se.baseline][self.j];
            let _ = writeln!(
                s,
                "<line class=\"errorbar\" x1=\"{px:.1}\" y1=\"{:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"1\"/>",
                self.plot.y(base + lo),
                self.plot.y(base + hi),
                svg::colour(k)
            );
        }
        let significant = v.and_then(|v| v.p_holm).is_some_and(|p| p < ALPHA);
        let tip = point_tip(x, self.table.means[i][self.j], v);
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

/// The x axis over `rule` and the plot area of a panel whose top-left
/// corner is `(x0, y0)`, its y axis `ticks`.
fn plot_area(rule: Rule, series: &[Series], (x0, y0): (f64, f64), ticks: Ticks) -> (XAxis, Plot) {
    let (left, right) = (x0 + PL, x0 + PANEL_W - PR);
    let xa = XAxis::new(rule, series, left, right - left);
    let plot = Plot {
        left,
        right,
        top: y0 + PT,
        bottom: y0 + PANEL_H - PB,
        ticks,
        digits: EdgeDigits::One,
    };
    (xa, plot)
}

/// A panel's grid and y ticks, the x ticks of `xa` over `rule`, the frame
/// and both axis labels (`y_label` rotated left of the plot, whose panel
/// starts at page x `x0`).
fn draw_axes(s: &mut String, (p, xa): (&Plot, &XAxis), rule: Rule, x0: f64, y_label: &str) {
    let bottom = p.bottom;
    p.grid(s);
    for (xx, label) in xa.ticks(rule) {
        let _ = writeln!(
            s,
            "<line x1=\"{xx:.1}\" y1=\"{bottom:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#000000\"/>",
            bottom + 5.0
        );
        svg::text(s, (xx, bottom + 18.0), 11.0, "middle", "", &label);
    }
    p.frame(s);
    svg::text(
        s,
        ((p.left + p.right) / 2.0, bottom + 38.0),
        11.5,
        "middle",
        "",
        &rule.axis_label(),
    );
    let _ = writeln!(
        s,
        "<text font-size=\"12\" text-anchor=\"middle\" transform=\"translate({:.1},{:.1}) rotate(-90)\">{}</text>",
        x0 + 18.0,
        (p.top + bottom) / 2.0,
        escape(y_label)
    );
}

/// The y axis of a panel: round ticks over every mean, baseline and band
/// edge drawn in column `j`, with headroom above the highest value for
/// the baseline's label.
fn y_ticks(table: &Table, j: usize, series: &[Series]) -> Ticks {
    let mut ys: Vec<f64> = Vec::new();
    for se in series {
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
    Ticks::new(lo, hi + 0.08 * (hi - lo).max(0.0), 4)
}

/// The hover text of a point at threshold `x` with `mean`: with its
/// comparison `v` to the unfiltered run, the difference, interval and
/// p-values.
fn point_tip(x: f64, mean: f64, v: Option<&Versus>) -> String {
    match v {
        Some(v) => format!(
            "threshold {x}: mean {mean:.4}; difference {:+.4}{}; p {}; Holm p {}",
            v.paired.mean,
            v.paired.ci.map_or(String::new(), |(lo, hi)| format!(
                " (95% CI {lo:+.4} to {hi:+.4})"
            )),
            p_text(v.paired.p),
            p_text(v.p_holm)
        ),
        None => format!("threshold {x}: mean {mean:.4}"),
    }
}

/// The legend's explanation, wrapped to the figure's width (`feedback`:
/// the sweep's settings have feedback; `judged`: the figure has a
/// judged-loss panel).
fn legend_notes(width: f64, feedback: bool, judged: bool) -> Vec<String> {
    let mut notes = vec![
        "Filled marker: the difference from the unfiltered run is significant (paired two-sided t-test over topics, Holm-corrected over the sweep, p < 0.05); hollow: not significant.",
        "Band and bars: 95% confidence interval of the mean per-topic difference, drawn around the unfiltered mean.",
        if feedback {
            "Dashed line: the unfiltered run (same model and feedback setting; under a filter, feedback documents come from the filtered ranking)."
        } else {
            "Dashed line: the unfiltered run (same k1 and b)."
        },
    ];
    if judged {
        notes.push("Judged relevant documents removed: solid, the share of the evaluated topics' judged relevant documents in the index that the filter removes; dotted, the share of all documents it removes.");
    }
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
