//! The sweep figure's judged-loss panel (one per rule with its own x
//! axis): for each series, the share of the judged relevant documents the
//! index holds that each threshold's filter removes (solid line, markers),
//! beside the share of all documents it removes (thin dotted line of the
//! same colour). A filter that removes relevant documents no more often
//! than documents at large draws the two lines together; a filter that
//! spares relevant documents draws the solid line below the dotted one.
//! Each marker's `<title>` gives the counts ([`sieve_searcher::judged`]).

use std::fmt::Write as _;

use sieve_searcher::sweep::{Outcome, Rule};

use super::{Series, XAxis, draw_axes, plot_area, series};
use crate::svg::{self, Plot, Ticks, escape};

/// Draws the judged-loss panel over `rule` with its top-left corner at
/// `(x0, y0)`.
pub(super) fn draw(s: &mut String, outcome: &Outcome, rule: Rule, (x0, y0): (f64, f64)) {
    let series = series(outcome, rule);
    let ticks = Ticks::new(0.0, max_share(outcome, &series).max(1.0), 4);
    let (xa, plot) = plot_area(rule, &series, (x0, y0), ticks);
    let (left, right) = (plot.left, plot.right);
    let _ = writeln!(
        s,
        "<g class=\"panel judged-loss\" data-rule=\"{}\">",
        escape(rule.key())
    );
    svg::text(
        s,
        ((left + right) / 2.0, y0 + 22.0),
        15.0,
        "middle",
        "font-weight=\"bold\"",
        "judged relevant documents removed",
    );
    draw_axes(s, (&plot, &xa), rule, x0, "% removed");
    for (k, se) in series.iter().enumerate() {
        draw_series(s, outcome, (&plot, &xa), k, se);
    }
    let _ = writeln!(s, "</g>");
}

/// Setting `i`'s shares, in percent: judged relevant documents removed
/// (`None` without a judged relevant document in the index) and documents
/// removed.
fn shares(outcome: &Outcome, i: usize) -> (Option<f64>, f64) {
    let rel = outcome.losses[i]
        .as_ref()
        .map(|l| 100.0 * l.relevant_share())
        .filter(|v| v.is_finite());
    let docs = if outcome.total_docs == 0 {
        0.0
    } else {
        100.0 * (1.0 - outcome.kept[i] as f64 / outcome.total_docs as f64)
    };
    (rel, docs)
}

/// The largest share drawn, with headroom.
fn max_share(outcome: &Outcome, series: &[Series]) -> f64 {
    let mut hi: f64 = 0.0;
    for &(_, i) in series.iter().flat_map(|se| &se.points) {
        let (rel, docs) = shares(outcome, i);
        hi = hi.max(rel.unwrap_or(0.0)).max(docs);
    }
    hi * 1.08
}

/// Series `k`: the dotted line of documents removed, then the line and
/// markers of judged relevant documents removed.
fn draw_series(s: &mut String, outcome: &Outcome, (p, xa): (&Plot, &XAxis), k: usize, se: &Series) {
    let colour = svg::colour(k);
    let docs: Vec<String> = se
        .points
        .iter()
        .map(|&(x, i)| format!("{:.1},{:.1}", xa.x(x), p.y(shares(outcome, i).1)))
        .collect();
    if docs.len() >= 2 {
        let _ = writeln!(
            s,
            "<polyline class=\"documents-removed\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1\" stroke-dasharray=\"2 3\" points=\"{}\"/>",
            docs.join(" ")
        );
    }
    let pts: Vec<(f64, f64, usize, f64)> = se
        .points
        .iter()
        .filter_map(|&(x, i)| shares(outcome, i).0.map(|v| (xa.x(x), p.y(v), i, x)))
        .collect();
    let line: Vec<(f64, f64)> = pts.iter().map(|&(x, y, _, _)| (x, y)).collect();
    if line.len() >= 2 {
        svg::polyline(s, k, &line, "series relevant-removed");
    }
    for &(px, py, i, x) in &pts {
        let _ = writeln!(
            s,
            "<g class=\"point\"><title>{}</title>",
            escape(&tip(outcome, i, x))
        );
        svg::marker(s, k, (px, py), 0.85, false, "marker");
        let _ = writeln!(s, "</g>");
    }
}

/// The hover text of setting `i`'s point at threshold `x`.
fn tip(outcome: &Outcome, i: usize, x: f64) -> String {
    let Some(l) = &outcome.losses[i] else {
        return format!("threshold {x}");
    };
    let (rel, docs) = shares(outcome, i);
    format!(
        "threshold {x}: {} of {} judged relevant documents removed ({:.2}%; {:.2}% of all documents); \
         {} judged non-relevant removed; {} relevant of the unfiltered top 10 and {} of its top {} removed",
        l.removed.relevant(),
        l.relevant_in_index,
        rel.unwrap_or(f64::NAN),
        docs,
        l.removed.nonrelevant(),
        l.top10,
        l.top_depth,
        l.depth
    )
}
