//! The HTML page of a comparison (`sieve-search compare --html`) or a sweep
//! (`sieve-search sweep --html`): one self-contained file a researcher
//! opens offline to decide whether a threshold removes spam or good pages.
//!
//! What a page holds:
//! * a summary table (per measure: means, difference, 95% confidence
//!   interval, wins/losses/ties, p-values; for a sweep, per setting);
//! * for a sweep, its figure ([`crate::sweep_figure`]);
//! * per comparison, a chart of the per-topic differences, topics sorted
//!   by difference (gains blue, losses vermillion, each bar with its topic
//!   in a hover `<title>`);
//! * for the topics that changed most, the documents that entered or left
//!   the top 10, each with its relevance grade, docid, URL, title, spam
//!   percentile, charset, length and encoding-error counts (from the
//!   index, `sieve_searcher::docinfo`; without an index the page says so and
//!   lists docids and grades only).
//!
//! Guarantees (tested):
//! * **self-contained and offline**: inline CSS and SVG only; no script,
//!   no external font, image, style sheet or link (URLs are shown as text,
//!   never as links; the only `http` in the page is the SVG namespace);
//! * **hostile text is inert**: every string that comes from documents,
//!   runs, qrels or topics (titles and URLs above all) is escaped
//!   ([`crate::svg::escape`]: `& < > "`, attributes being
//!   double-quoted; control characters
//!   replaced), isolated against bidirectional overrides (`<bdi>`), and
//!   cut to [`MAX_TEXT`] characters;
//! * the markup is well-formed XML (XHTML syntax: every element closed,
//!   every attribute quoted), so the page and its SVG parse as XML.

mod judged;
mod robust;

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use crate::svg::{self, EdgeDigits, Plot, Ticks, escape};
use sieve_filters::utf8::ErrorClass;

use sieve_searcher::compare::{MeasureComparison, TopicChange};
use sieve_searcher::docinfo::DocInfo;
use sieve_searcher::eval::Measure;
use sieve_searcher::qrels::Qrels;
use sieve_searcher::sweep::table::p_text;
use sieve_searcher::sweep::{Outcome, Table};

/// Longest text shown from a document (title, URL), in characters.
pub const MAX_TEXT: usize = 300;

/// The page's style sheet (no `url(`, no `@import`).
const CSS: &str = "body{font-family:sans-serif;margin:1.5em auto;max-width:1150px;color:#111;line-height:1.35}\
h1{font-size:1.5em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccc}\
h3{font-size:1.05em;margin-bottom:.3em}\
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}\
th,td{border:1px solid #ccc;padding:.2em .45em;vertical-align:top}\
th{background:#f2f2f2;text-align:left}\
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
td.t{max-width:26em;overflow-wrap:anywhere}\
.pos{color:#0072B2}.neg{color:#D55E00}.sig{font-weight:bold}\
.meta,.note{color:#444;font-size:.9em}\
details{margin:.6em 0;border:1px solid #ddd;padding:.3em .6em}\
summary{font-weight:bold}\
figure{margin:.8em 0}figcaption{color:#444;font-size:.85em}\
tr.base td{background:#fafafa}.wide{overflow-x:auto}.none{color:#888}";

/// `s` cut to [`MAX_TEXT`] characters (with `…` when cut), escaped and
/// isolated in a `<bdi>` element; an empty `s` is a grey `none`.
pub fn doc_text(s: &str) -> String {
    if s.is_empty() {
        return "<span class=\"none\">none</span>".into();
    }
    let cut: String = s.chars().take(MAX_TEXT).collect();
    let ell = if s.chars().count() > MAX_TEXT {
        "\u{2026}"
    } else {
        ""
    };
    format!("<bdi>{}{ell}</bdi>", escape(&cut))
}

/// The documents of A's top 10 missing from B's (`left`, in A's order) and
/// of B's missing from A's (`entered`, in B's order).
pub fn top_changes(a: &[String], b: &[String]) -> (Vec<String>, Vec<String>) {
    let sa: HashSet<&str> = a.iter().map(String::as_str).collect();
    let sb: HashSet<&str> = b.iter().map(String::as_str).collect();
    (
        a.iter()
            .filter(|d| !sb.contains(d.as_str()))
            .cloned()
            .collect(),
        b.iter()
            .filter(|d| !sa.contains(d.as_str()))
            .cloned()
            .collect(),
    )
}

/// One topic whose top 10 changed.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicDocs {
    /// The topic and its measure values under A and B.
    pub change: TopicChange,
    /// In A's top 10, not in B's, in A's rank order, with A's rank.
    pub left: Vec<(usize, String)>,
    /// In B's top 10, not in A's, in B's rank order, with B's rank.
    pub entered: Vec<(usize, String)>,
}

/// A's and B's top documents per topic, and the topics to show.
pub fn topic_docs(
    most_changed: &[TopicChange],
    a_top: &BTreeMap<String, Vec<String>>,
    b_top: &BTreeMap<String, Vec<String>>,
) -> Vec<TopicDocs> {
    let empty = Vec::new();
    most_changed
        .iter()
        .map(|c| {
            let a = a_top.get(&c.qid).unwrap_or(&empty);
            let b = b_top.get(&c.qid).unwrap_or(&empty);
            let (left, entered) = top_changes(a, b);
            let rank =
                |list: &[String], d: &String| list.iter().position(|x| x == d).unwrap_or(0) + 1;
            TopicDocs {
                change: c.clone(),
                left: left.iter().map(|d| (rank(a, d), d.clone())).collect(),
                entered: entered.iter().map(|d| (rank(b, d), d.clone())).collect(),
            }
        })
        .collect()
}

/// What the page knows of documents.
pub struct Docs<'a> {
    /// The documents looked up in the index, or `None` when no index was
    /// given (`why`, said in the page).
    pub info: Option<&'a BTreeMap<String, DocInfo>>,
    /// Why there are no document details, when there are none.
    pub why: &'a str,
    /// The judgements (for each document's grade).
    pub qrels: &'a Qrels,
}

/// One A-versus-B section: its comparison and what changed per topic.
pub struct Section<'a> {
    /// A heading (empty for the compare page).
    pub heading: String,
    /// Names of A and B.
    pub a: String,
    /// Names of A and B.
    pub b: String,
    /// The comparison, per measure.
    pub cmp: &'a [MeasureComparison],
    /// All paired topics of each measure of `cmp`.
    pub pairs: Vec<Vec<TopicChange>>,
    /// The topics that changed most on `cmp[0]`'s measure, with their top-10
    /// changes.
    pub topics: Vec<TopicDocs>,
    /// What B's filter removed that was judged, when B is A filtered
    /// ([`sieve_searcher::judged`]).
    pub loss: Option<&'a sieve_searcher::judged::Loss>,
}

fn head(s: &mut String, title: &str) {
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n\
         <meta charset=\"utf-8\"/>\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <h1>{}</h1>\n",
        escape(title),
        escape(title)
    );
}

fn foot(s: &mut String) {
    s.push_str(
        "<p class=\"note\">Written by sieve-search. Self-contained: no script, no external \
         resource; document text is shown as stored in the index, escaped.</p>\n</body>\n</html>\n",
    );
}

fn signed_class(x: f64) -> &'static str {
    if x > 0.0 {
        "n pos"
    } else if x < 0.0 {
        "n neg"
    } else {
        "n"
    }
}

fn opt4(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.4}"))
}

/// The summary table of a comparison.
fn summary_table(s: &mut String, cmp: &[MeasureComparison]) {
    s.push_str(
        "<table class=\"summary\">\n<tr><th>measure</th><th>topics</th><th>A</th><th>B</th>\
         <th>B\u{2212}A</th><th>95% CI of B\u{2212}A</th><th>win</th><th>loss</th><th>tie</th>\
         <th>t</th><th>p</th></tr>\n",
    );
    for c in cmp {
        if let Some(why) = &c.not_computed {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td colspan=\"10\">not computed (<bdi>{}</bdi>)</td></tr>",
                escape(&c.measure.name()),
                escape(why)
            );
            continue;
        }
        let d = c.diff();
        let ci =
            c.ci.map_or_else(|| "-".into(), |(lo, hi)| format!("[{lo:+.4}, {hi:+.4}]"));
        let sig = if c.p_value.is_some_and(|p| p < sieve_searcher::paired::ALPHA) {
            " sig"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.4}</td><td class=\"n\">{:.4}</td>\
             <td class=\"{}{sig}\">{d:+.4}</td><td class=\"n\">{ci}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n{sig}\">{}</td></tr>",
            escape(&c.measure.name()),
            c.n,
            c.mean_a,
            c.mean_b,
            signed_class(d),
            c.wins,
            c.losses,
            c.ties,
            opt4(c.t),
            p_text(c.p_value)
        );
    }
    s.push_str(
        "</table>\n<p class=\"note\">Topics: paired topics; B\u{2212}A: mean per-topic difference; \
         95% CI from the paired differences; t, p: paired two-sided t-test (bold: p &lt; 0.05); \
         - where undefined (fewer than two topics, or no difference at all).</p>\n",
    );
}

/// The per-topic difference chart of one measure: topics sorted by B − A.
pub fn diff_chart(pairs: &[TopicChange], measure: Measure) -> String {
    let mut d: Vec<&TopicChange> = pairs.iter().collect();
    d.sort_by(|x, y| {
        x.diff()
            .total_cmp(&y.diff())
            .then_with(|| sieve_searcher::eval::qid_order(&x.qid, &y.qid))
    });
    let (w, h) = (900.0, 280.0);
    let lo = d.iter().map(|p| p.diff()).fold(0.0f64, f64::min);
    let hi = d.iter().map(|p| p.diff()).fold(0.0f64, f64::max);
    let plot = Plot {
        left: 70.0,
        right: w - 20.0,
        top: 36.0,
        bottom: h - 50.0,
        ticks: Ticks::new(lo, hi, 5),
        digits: EdgeDigits::Shortest,
    };
    let mut s = String::new();
    svg::open(&mut s, w, h, "diffchart");
    svg::text(
        &mut s,
        (w / 2.0, 22.0),
        14.0,
        "middle",
        "",
        &format!(
            "{}: B \u{2212} A per topic, sorted ({} topics)",
            measure.name(),
            d.len()
        ),
    );
    plot.grid(&mut s);
    diff_bars(&mut s, &plot, &d);
    plot.hline(&mut s, plot.y(0.0), "#000000");
    topic_labels(&mut s, &plot, &d);
    plot.frame(&mut s);
    s.push_str("</svg>\n");
    s
}

/// The width of each topic's slot on the x axis of a chart of `n` topics.
fn topic_slot(plot: &Plot, n: usize) -> f64 {
    (plot.right - plot.left) / n.max(1) as f64
}

/// One bar per topic from 0 to its difference (gains blue, losses
/// vermillion, no change a grey hairline), its values in a hover `<title>`.
fn diff_bars(s: &mut String, plot: &Plot, d: &[&TopicChange]) {
    let slot = topic_slot(plot, d.len());
    let bar = (slot * 0.8).max(0.5);
    let zero = plot.y(0.0);
    for (i, p) in d.iter().enumerate() {
        let v = p.diff();
        let x = plot.left + slot * i as f64 + (slot - bar) / 2.0;
        let (y1, y2) = if v >= 0.0 {
            (plot.y(v), zero)
        } else {
            (zero, plot.y(v))
        };
        let colour = if v > 0.0 {
            svg::hex(svg::PALETTE[0])
        } else if v < 0.0 {
            svg::hex(svg::PALETTE[1])
        } else {
            "#999999".into()
        };
        let height = (y2 - y1).max(if v == 0.0 { 1.0 } else { 0.0 });
        let _ = writeln!(
            s,
            "<rect class=\"bar\" x=\"{x:.2}\" y=\"{:.2}\" width=\"{bar:.2}\" height=\"{height:.2}\" fill=\"{colour}\">\
             <title>{}</title></rect>",
            if v == 0.0 { zero - 0.5 } else { y1 },
            escape(&format!(
                "topic {}: A {:.4}, B {:.4}, B\u{2212}A {v:+.4}",
                p.qid, p.a, p.b
            ))
        );
    }
}

/// Each topic's id under its bar, slanted; with more than 60 topics, one
/// line saying they are sorted instead.
fn topic_labels(s: &mut String, plot: &Plot, d: &[&TopicChange]) {
    if d.len() > 60 {
        svg::text(
            s,
            ((plot.left + plot.right) / 2.0, plot.bottom + 20.0),
            11.0,
            "middle",
            "",
            "topics, sorted by difference (hover a bar for its topic)",
        );
        return;
    }
    let slot = topic_slot(plot, d.len());
    for (i, p) in d.iter().enumerate() {
        let x = plot.left + slot * (i as f64 + 0.5);
        let _ = writeln!(
            s,
            "<text font-size=\"9\" text-anchor=\"end\" transform=\"translate({x:.1},{:.1}) rotate(-60)\">{}</text>",
            plot.bottom + 8.0,
            escape(&p.qid)
        );
    }
}

/// The errors of `info` in words: `surrogate 3, invalid_4_5_6 1`, or `none`.
fn errors_text(info: &DocInfo) -> String {
    let parts: Vec<String> = ErrorClass::ALL
        .iter()
        .filter(|&&c| info.counts.get(c) > 0)
        .map(|&c| format!("{} {}", c.key(), info.counts.get(c)))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

fn doc_table(s: &mut String, caption: &str, qid: &str, list: &[(usize, String)], docs: &Docs<'_>) {
    let _ = writeln!(s, "<p><b>{}</b> ({})</p>", escape(caption), list.len());
    if list.is_empty() {
        return;
    }
    s.push_str("<table class=\"docs\">\n<tr><th>rank</th><th>grade</th><th>docid</th>");
    if docs.info.is_some() {
        s.push_str(
            "<th>URL</th><th>title</th><th>spam</th><th>charset</th><th>bytes</th>\
             <th>encoding errors</th>",
        );
    }
    s.push_str("</tr>\n");
    for (rank, docid) in list {
        let grade = docs
            .qrels
            .topic(qid)
            .and_then(|t| t.get(docid))
            .map_or_else(|| "unjudged".to_string(), |g| g.to_string());
        let _ = write!(
            s,
            "<tr><td class=\"n\">{rank}</td><td class=\"n\">{}</td><td class=\"t\">{}</td>",
            escape(&grade),
            doc_text(docid)
        );
        if let Some(info) = docs.info {
            match info.get(docid) {
                Some(i) => {
                    let _ = write!(
                        s,
                        "<td class=\"t\">{}</td><td class=\"t\">{}</td><td class=\"n\">{}</td>\
                         <td>{}</td><td class=\"n\">{}</td><td>{}</td>",
                        doc_text(&i.url),
                        doc_text(&i.title),
                        i.spam.map_or_else(|| "none".into(), |p| p.to_string()),
                        doc_text(&i.charset),
                        i.bytes,
                        escape(&errors_text(i))
                    );
                }
                None => s.push_str("<td colspan=\"6\">not in the index</td>"),
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
}

/// The charts and document lists of one section.
fn section_body(s: &mut String, sec: &Section<'_>, docs: &Docs<'_>) {
    for (c, pairs) in sec.cmp.iter().zip(&sec.pairs) {
        let _ = writeln!(
            s,
            "<figure>\n{}<figcaption>Per-topic difference in {}, B = {} minus A = {}.</figcaption>\n</figure>",
            diff_chart(pairs, c.measure),
            escape(&c.measure.name()),
            escape(&sec.b),
            escape(&sec.a)
        );
    }
    if let Some(loss) = sec.loss {
        judged::topic_table(s, loss);
    }
    let Some(first) = sec.cmp.first() else {
        return;
    };
    let _ = writeln!(
        s,
        "<h3>Documents that entered or left the top 10, for the {} topics whose {} changed most</h3>",
        sec.topics.len(),
        escape(&first.measure.name())
    );
    if docs.info.is_none() {
        let _ = writeln!(
            s,
            "<p class=\"note\">No document details (URL, title, spam percentile, charset, \
             encoding errors): {}</p>",
            escape(docs.why)
        );
    }
    if sec.topics.is_empty() {
        s.push_str("<p>No topic changed.</p>\n");
    }
    for t in &sec.topics {
        let c = &t.change;
        let same = t.left.is_empty() && t.entered.is_empty();
        let _ = writeln!(
            s,
            "<h3>Topic {}: {} {:.4} \u{2192} {:.4} (<span class=\"{}\">{:+.4}</span>)</h3>",
            escape(&c.qid),
            escape(&first.measure.name()),
            c.a,
            c.b,
            signed_class(c.diff()),
            c.diff()
        );
        if same {
            s.push_str(
                "<p>The same documents are in both top 10s (reordered, or the change is \
                 further down the ranking).</p>\n",
            );
            continue;
        }
        doc_table(
            s,
            "Left the top 10 (in A's, not in B's)",
            &c.qid,
            &t.left,
            docs,
        );
        doc_table(
            s,
            "Entered the top 10 (in B's, not in A's)",
            &c.qid,
            &t.entered,
            docs,
        );
    }
}

/// The page of `sieve-search compare --html`.
pub fn compare_page(sec: &Section<'_>, docs: &Docs<'_>) -> String {
    let mut s = String::new();
    head(&mut s, "sieve: A/B comparison");
    let _ = writeln!(
        s,
        "<p class=\"meta\">A = <bdi>{}</bdi><br/>B = <bdi>{}</bdi></p>\n<h2>Summary</h2>",
        escape(&sec.a),
        escape(&sec.b)
    );
    summary_table(&mut s, sec.cmp);
    s.push_str("<h2>Per topic</h2>\n");
    section_body(&mut s, sec, docs);
    foot(&mut s);
    s
}

/// The page of `sieve-search sweep --html`: `meta` lines under the title,
/// the figure, the table of every setting, then one collapsible section
/// per filtered setting.
pub fn sweep_page(
    meta: &[String],
    figure: &str,
    outcome: &Outcome,
    table: &Table,
    sections: &[Section<'_>],
    docs: &Docs<'_>,
) -> String {
    let mut s = String::new();
    head(&mut s, "sieve: threshold sweep");
    s.push_str("<p class=\"meta\">");
    for (i, line) in meta.iter().enumerate() {
        if i > 0 {
            s.push_str("<br/>");
        }
        s.push_str(&escape(line));
    }
    s.push_str("</p>\n<h2>Figure</h2>\n<figure>\n");
    s.push_str(figure);
    s.push_str("</figure>\n<h2>Every setting</h2>\n");
    sweep_table(&mut s, outcome, table);
    robust::sweep_table(&mut s, outcome, table);
    s.push_str("<h2>What each filter removed that was judged</h2>\n");
    judged::sweep_table(&mut s, outcome);
    s.push_str("<h2>Each filtered setting against its unfiltered run</h2>\n");
    for (i, sec) in sections.iter().enumerate() {
        // The first is open, so that the page shows one in full.
        let _ = writeln!(
            s,
            "<details{}>\n<summary>{}</summary>",
            if i == 0 { " open=\"open\"" } else { "" },
            escape(&sec.heading)
        );
        section_body(&mut s, sec, docs);
        s.push_str("</details>\n");
    }
    foot(&mut s);
    s
}

fn sweep_table(s: &mut String, outcome: &Outcome, table: &Table) {
    let feedback = outcome.has_feedback();
    s.push_str("<div class=\"wide\">\n<table class=\"sweep\">\n<tr><th>setting</th>");
    if feedback {
        s.push_str("<th>feedback</th>");
    }
    s.push_str("<th>filter</th><th>kept</th>");
    let stats: Vec<(usize, Measure)> = table
        .measures
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, m)| !m.is_count())
        .collect();
    for (_, m) in &stats {
        let _ = write!(
            s,
            "<th>{}</th><th>diff [95% CI]</th><th>p (Holm)</th>",
            escape(&m.name())
        );
    }
    s.push_str("</tr>\n");
    for (i, setting) in outcome.settings.iter().enumerate() {
        let kept = if outcome.total_docs == 0 {
            0.0
        } else {
            100.0 * outcome.kept[i] as f64 / outcome.total_docs as f64
        };
        let _ = write!(
            s,
            "<tr class=\"{}\"><td>{}</td>",
            if setting.is_baseline() {
                "base"
            } else {
                "setting"
            },
            escape(&setting.tag),
        );
        if feedback {
            let label = setting
                .feedback
                .as_ref()
                .map_or_else(|| "none".to_string(), |f| f.label());
            let _ = write!(s, "<td>{}</td>", escape(&label));
        }
        let _ = write!(
            s,
            "<td>{}</td><td class=\"n\">{} ({kept:.1}%)</td>",
            escape(&setting.describe()),
            outcome.kept[i]
        );
        measure_cells(s, table, i, &stats);
        s.push_str("</tr>\n");
    }
    s.push_str(if feedback {
        "</table>\n</div>\n<p class=\"note\">kept: documents the filter keeps (share of the index); diff: mean \
         per-topic difference from the unfiltered run of the same model and feedback setting, with its 95% confidence \
         interval; p: paired two-sided t-test, Holm-corrected over the sweep (bold: &lt; 0.05); \
         feedback: the setting's feedback model and parameters, its feedback documents taken from the \
         setting's own (filtered) first-stage ranking; sweep.tsv has every number at full precision.</p>\n"
    } else {
        "</table>\n</div>\n<p class=\"note\">kept: documents the filter keeps (share of the index); diff: mean \
         per-topic difference from the unfiltered run of the same k1/b, with its 95% confidence \
         interval; p: paired two-sided t-test, Holm-corrected over the sweep (bold: &lt; 0.05); \
         sweep.tsv has every number at full precision.</p>\n"
    });
}

/// Setting `i`'s cells of each measure of `stats`: its mean, the
/// difference from its baseline with the interval, and Holm's p.
fn measure_cells(s: &mut String, table: &Table, i: usize, stats: &[(usize, Measure)]) {
    for &(j, _) in stats {
        let mean = table.means[i][j];
        match &table.versus[i][j] {
            None => {
                let _ = write!(
                    s,
                    "<td class=\"n\">{mean:.4}</td><td>baseline</td><td></td>"
                );
            }
            Some(v) => {
                let sig = v.p_holm.is_some_and(|p| p < sieve_searcher::paired::ALPHA);
                let ci = v
                    .paired
                    .ci
                    .map_or_else(String::new, |(lo, hi)| format!(" [{lo:+.4}, {hi:+.4}]"));
                let _ = write!(
                    s,
                    "<td class=\"n\">{mean:.4}</td><td class=\"{}\">{:+.4}{ci}</td><td class=\"n{}\">{}</td>",
                    signed_class(v.paired.mean),
                    v.paired.mean,
                    if sig { " sig" } else { "" },
                    p_text(v.p_holm)
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_document_text_is_inert() {
        let t = doc_text("<script>alert(1)</script>\u{202E}evil\"'&\u{0}");
        assert_eq!(
            t,
            "<bdi>&lt;script&gt;alert(1)&lt;/script&gt;\u{202E}evil&quot;'&amp;\u{FFFD}</bdi>"
        );
        let long = "x".repeat(MAX_TEXT + 5);
        let t = doc_text(&long);
        assert_eq!(t.chars().filter(|&c| c == 'x').count(), MAX_TEXT);
        assert!(t.contains('\u{2026}'));
    }

    #[test]
    fn top_changes_in_rank_order() {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (left, entered) = top_changes(&v(&["a", "b", "c", "d"]), &v(&["c", "e", "a", "f"]));
        assert_eq!(left, ["b", "d"]);
        assert_eq!(entered, ["e", "f"]);
        let (l, e) = top_changes(&v(&["a"]), &v(&["a"]));
        assert!(l.is_empty() && e.is_empty());
    }
}
