//! The comparison pages gathered: from two evaluated runs
//! ([`compare_html`], the page of `sieve-search compare --html`) or from a
//! sweep's outcome ([`sweep_html`], the page of `sieve-search sweep
//! --html`), the A-versus-B sections of [`crate::page`] (per-topic pairs,
//! the topics that changed most and the documents that entered or left
//! their top 10) with each document's details looked up in the index.
//! [`crate::page`] writes the markup; the caller writes the file.

use std::collections::BTreeMap;

use sieve_searcher::bm25::Shard;
use sieve_searcher::compare::{self, MeasureComparison};
use sieve_searcher::docinfo;
use sieve_searcher::eval::{Evaluation, Measure};
use sieve_searcher::qrels::Qrels;
use sieve_searcher::run::Run;
use sieve_searcher::sweep::{self, Outcome, Setting, Table, table};

use crate::Result;
use crate::page::{self, Docs, Section};

/// One run of a comparison: its name on the page, its evaluation and the
/// run itself (for its top 10 per topic).
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// The run's name (its path, as the command line was given it).
    pub name: &'a str,
    /// The run evaluated against the qrels.
    pub eval: &'a Evaluation,
    /// The run.
    pub run: &'a Run,
}

/// What the page of `sieve-search compare --html` shows.
#[derive(Clone, Copy)]
pub struct Comparison<'a> {
    /// The comparison of B with A, per measure.
    pub cmp: &'a [MeasureComparison],
    /// Run A (the baseline).
    pub a: Side<'a>,
    /// Run B.
    pub b: Side<'a>,
    /// The judgements (for each document's grade).
    pub qrels: &'a Qrels,
    /// The index the runs were made from, for the documents' details; the
    /// page says how to add them when there is none.
    pub shards: Option<&'a [Shard]>,
    /// When B is A under a document filter: what the filter removed that
    /// was judged.
    pub loss: Option<&'a sieve_searcher::judged::Loss>,
}

/// What the page of `sieve-search sweep --html` shows.
#[derive(Clone, Copy)]
pub struct SweepPage<'a> {
    /// The sweep's settings, evaluations and top documents.
    pub outcome: &'a Outcome,
    /// Its table of means and comparisons with each unfiltered run.
    pub table: &'a Table,
    /// The judgements (for each document's grade).
    pub qrels: &'a Qrels,
    /// The index swept, for the documents' details.
    pub shards: &'a [Shard],
    /// Lines under the title (index, topics, qrels, statistics).
    pub meta: &'a [String],
    /// The sweep's figure (`sweep.svg`).
    pub figure: &'a str,
    /// How many of the most changed topics each setting's section details.
    pub top: usize,
}

/// The page of `compare --html`: one section, B against A.
pub fn compare_html(c: &Comparison<'_>) -> Result<String> {
    let pairs = c
        .cmp
        .iter()
        .map(|m| compare::pairs(c.a.eval, c.b.eval, m.measure))
        .collect();
    let topics = c
        .cmp
        .first()
        .map(|m| page::topic_docs(&m.most_changed, &top_docs(c.a.run), &top_docs(c.b.run)))
        .unwrap_or_default();
    let sec = Section {
        heading: String::new(),
        a: c.a.name.to_string(),
        b: c.b.name.to_string(),
        cmp: c.cmp,
        pairs,
        topics,
        loss: c.loss,
    };
    let info = match c.shards {
        Some(shards) => Some(docinfo::lookup(
            shards,
            changed_docids(std::slice::from_ref(&sec)),
        )?),
        None => None,
    };
    let docs = Docs {
        info: info.as_ref(),
        why: "no index was given (compare --index IDX adds them)",
        qrels: c.qrels,
    };
    Ok(page::compare_page(&sec, &docs))
}

/// The sweep's page: one section per filtered setting against its
/// baseline, on the first measure that is not a count.
pub fn sweep_html(p: &SweepPage<'_>) -> Result<String> {
    let m: Vec<Measure> = p
        .table
        .measures
        .iter()
        .copied()
        .filter(|m| !m.is_count())
        .take(1)
        .collect();
    let outcome = p.outcome;
    let cmps: Vec<(usize, Vec<MeasureComparison>)> = (outcome.settings.iter().enumerate())
        .filter(|(_, s)| !s.is_baseline())
        .map(|(i, s)| {
            let base = &outcome.evals[s.baseline];
            (i, compare::compare(base, &outcome.evals[i], &m, p.top))
        })
        .collect();
    let sections: Vec<Section<'_>> = cmps
        .iter()
        .map(|(i, c)| sweep_section(p, *i, c, &m))
        .collect();
    let info = docinfo::lookup(p.shards, changed_docids(&sections))?;
    let docs = Docs {
        info: Some(&info),
        why: "",
        qrels: p.qrels,
    };
    Ok(page::sweep_page(
        p.meta, p.figure, outcome, p.table, &sections, &docs,
    ))
}

/// The section of setting `i` of a sweep against its unfiltered run, on
/// the measures `m` its comparison `c` covers.
fn sweep_section<'c>(
    p: &SweepPage<'c>,
    i: usize,
    c: &'c [MeasureComparison],
    m: &[Measure],
) -> Section<'c> {
    let outcome = p.outcome;
    let s = &outcome.settings[i];
    let base = &outcome.settings[s.baseline];
    let pairs = m
        .iter()
        .map(|&mm| compare::pairs(&outcome.evals[s.baseline], &outcome.evals[i], mm))
        .collect();
    let topics = c
        .first()
        .map(|c| {
            page::topic_docs(
                &c.most_changed,
                &outcome.top_docs[s.baseline],
                &outcome.top_docs[i],
            )
        })
        .unwrap_or_default();
    Section {
        heading: sweep_heading(p.table, s, i, c.first()),
        a: format!("{} (unfiltered)", base.tag),
        b: format!("{} ({})", s.tag, s.describe()),
        cmp: c,
        pairs,
        topics,
        loss: outcome.losses[i].as_ref(),
    }
}

/// The heading of setting `i`'s section: its tag and filter, and on the
/// first measure `c` (if any) its mean against the unfiltered mean, the
/// difference and the Holm-corrected p.
fn sweep_heading(tbl: &Table, s: &Setting, i: usize, c: Option<&MeasureComparison>) -> String {
    let Some(c) = c else {
        return s.tag.clone();
    };
    let p_holm = tbl
        .measures
        .iter()
        .position(|x| *x == c.measure)
        .and_then(|j| tbl.versus[i][j].as_ref())
        .and_then(|v| v.p_holm);
    format!(
        "{} ({}): {} {:.4} vs {:.4} unfiltered, {:+.4}, p (Holm) {}",
        s.tag,
        s.describe(),
        c.measure.name(),
        c.mean_b,
        c.mean_a,
        c.diff(),
        table::p_text(p_holm)
    )
}

/// The docids that entered or left a top 10 in any of `sections` (the
/// documents whose details the page shows).
fn changed_docids<'s>(sections: &'s [Section<'_>]) -> Vec<&'s str> {
    sections
        .iter()
        .flat_map(|s| s.topics.iter())
        .flat_map(|t| t.left.iter().chain(&t.entered).map(|(_, d)| d.as_str()))
        .collect()
}

/// The top 10 docids per topic of `run`, in trec_eval's order.
fn top_docs(run: &Run) -> BTreeMap<String, Vec<String>> {
    run.topic_ids()
        .map(|q| {
            (
                q.to_string(),
                run.trec_eval_ranked(q)
                    .iter()
                    .take(sweep::TOP_DOCS)
                    .map(|h| h.docno.clone())
                    .collect(),
            )
        })
        .collect()
}
