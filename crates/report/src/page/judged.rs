//! The pages' judged-loss parts ([`sieve_searcher::judged`]): the sweep
//! page's table of what each filter removed that was judged, and, in a
//! filtered setting's (or a filtered comparison's) section, the same per
//! topic. Every number is a count from the index and the qrels; nothing
//! here comes from a document, so nothing needs escaping but the tags and
//! topic ids, which are escaped.

use std::fmt::Write as _;

use sieve_searcher::judged::{Judgements, Loss, TOP_K, Tally};
use sieve_searcher::sweep::Outcome;

use crate::svg::escape;

/// `n` of `of` as a percentage with two decimals (`-` when `of` is 0).
fn share(n: u64, of: u64) -> String {
    if of == 0 {
        return "-".into();
    }
    format!("{:.2}%", 100.0 * n as f64 / of as f64)
}

/// The grades of `tally`'s judgements as `g:n` pairs (`-` when none).
fn by_grade(tally: &Tally) -> String {
    if tally.by_grade.is_empty() {
        return "-".into();
    }
    let parts: Vec<String> = tally
        .by_grade
        .iter()
        .map(|(g, n)| format!("{g}: {n}"))
        .collect();
    parts.join(", ")
}

/// The sentence about judgements whose document the index does not hold.
pub fn absent_note(j: &Judgements) -> String {
    format!(
        "{} judgements of the evaluated topics ({} of them relevant) name documents the index \
         does not hold: no filter removes them, so they are not counted above.",
        j.absent.total(),
        j.absent.relevant()
    )
}

/// The sweep page's table: per filtered setting, the judged documents its
/// filter removes.
pub(super) fn sweep_table(s: &mut String, outcome: &Outcome) {
    let j = &outcome.judgements;
    let depth = outcome.depth;
    let _ = writeln!(
        s,
        "<div class=\"wide\">\n<table class=\"judged-loss\">\n<tr><th>setting</th><th>filter</th>\
         <th>documents removed</th><th>judged relevant removed</th><th>by grade</th>\
         <th>judged non-relevant removed</th><th>relevant of the unfiltered top {TOP_K} removed</th>\
         <th>relevant of the unfiltered top {depth} removed</th></tr>"
    );
    for (i, setting) in outcome.settings.iter().enumerate() {
        let Some(l) = &outcome.losses[i] else {
            continue;
        };
        let removed_docs = outcome.total_docs.saturating_sub(outcome.kept[i]);
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{removed_docs} ({})</td>\
             <td class=\"n\">{} ({})</td><td>{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&setting.tag),
            escape(&setting.describe()),
            share(removed_docs, outcome.total_docs),
            l.removed.relevant(),
            share(l.removed.relevant(), l.relevant_in_index),
            by_grade(&l.removed),
            l.removed.nonrelevant(),
            l.top10,
            l.top_depth,
        );
    }
    let _ = writeln!(
        s,
        "</table>\n</div>\n<p class=\"note\">Counts are of judgements (a document judged for two \
         topics counts twice) of the evaluated topics, whose document the index holds: {} judged \
         relevant documents. Grade &gt;= 1 is relevant, grade &lt;= 0 non-relevant. The \
         unfiltered top k: the first k documents of the unfiltered run of the same setting. {}</p>",
        j.present.relevant(),
        escape(&absent_note(j))
    );
}

/// A section's per-topic table of `loss` (topics with a removed
/// judgement, by topic id).
pub(super) fn topic_table(s: &mut String, loss: &Loss) {
    let _ = writeln!(s, "<h3>Judged documents the filter removed, per topic</h3>");
    if loss.per_topic.is_empty() {
        s.push_str("<p class=\"note\">The filter removed no judged document.</p>\n");
        return;
    }
    let _ = writeln!(
        s,
        "<div class=\"wide\">\n<table class=\"judged-topics\">\n<tr><th>topic</th>\
         <th>relevant removed</th><th>by grade</th><th>non-relevant removed</th>\
         <th>of the unfiltered top {TOP_K}</th><th>of the unfiltered top {}</th></tr>",
        loss.depth
    );
    for (qid, t) in &loss.per_topic {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(qid),
            t.removed.relevant(),
            by_grade(&t.removed),
            t.removed.nonrelevant(),
            t.top10,
            t.top_depth
        );
    }
    s.push_str("</table>\n</div>\n");
}
