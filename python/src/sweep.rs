//! `sieve.sweep`: a threshold sweep of an opened index, as `sieve-search
//! sweep` runs it (the same library calls: [`sieve_searcher::sweep`]),
//! returned as the text of `sweep.tsv` (every column), the terminal
//! summary, and the judged loss per setting and topic.

use pyo3::prelude::*;
use sieve_analysis::EnglishAnalyzer;
use sieve_searcher::eval::Measure;
use sieve_searcher::runspec::ModelName;
use sieve_searcher::sweep::{self, Axis, SweepSpec, Table, Test, table};

use crate::errors::{IntoPy, catch_panic, panicked, parameter};
use crate::files::{QrelsArg, qrels_of};
use crate::search::{NativeIndex, TopicSource, parse_field, parse_search_field};

/// The keywords of `sieve.sweep`, as a dict the Python side fills in
/// completely (its defaults are the command line's).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct SweepOptions {
    /// The axes in the order of the command line's flags, each
    /// `RULE=X,Y,...` ([`Axis::parse`]).
    rules: Vec<String>,
    cross: bool,
    unscored: String,
    model: Vec<String>,
    k1: Vec<f32>,
    b: Vec<f32>,
    mu: Vec<f32>,
    collection_stats: String,
    hits: i64,
    max_query_terms: i64,
    measures: Vec<String>,
    complete: bool,
    tag: String,
    field: String,
    search_field: String,
    judged_only: bool,
}

/// `(sweep.tsv, summary text, judged loss rows)` of a sweep; each judged
/// loss row is `(setting, qid, relevant removed, non-relevant removed,
/// relevant of the unfiltered top 10 removed, of the top depth)`.
type Swept = (String, String, Vec<(String, String, u64, u64, u64, u64)>);

/// Sweeps `index` over `topics` against `qrels` (see [`SweepOptions`]).
/// The GIL is released while searching.
#[pyfunction]
pub fn sweep_index(
    py: Python<'_>,
    index: &NativeIndex,
    topics: (Option<std::path::PathBuf>, Vec<String>, Vec<String>),
    qrels: QrelsArg,
    options: SweepOptions,
) -> PyResult<Swept> {
    let spec = spec(&options)?;
    let plan = spec.plan().py_err()?;
    let measures = measures(&options.measures)?;
    let qrels = qrels_of(&qrels)?;
    let (path, qids, queries) = topics;
    let source = TopicSource {
        path,
        qids,
        queries,
    };
    source.check_lengths()?;
    let topics = source.topics().py_err()?;
    let topic_field = parse_field(&options.field)?;
    let field = parse_search_field(&options.search_field)?;
    let run = || {
        let analyzer = EnglishAnalyzer::new(index.config);
        let inputs = sweep::Inputs {
            shards: &index.shards,
            analyzer: &analyzer,
            topics: &topics,
            topic_field,
            field,
            qrels: &qrels,
            complete: options.complete,
            judged_only: options.judged_only,
        };
        sweep::run(
            &spec,
            plan,
            &inputs,
            &sweep::RunFiles::default(),
            &mut |_| {},
        )
    };
    let outcome = py
        .detach(|| catch_panic(run))
        .map_err(|m| panicked("sweeping", m, false))?
        .py_err()?;
    let tbl = Table::new(&outcome, &measures);
    let first = tbl.measures.iter().position(|m| !m.is_count()).unwrap_or(0);
    let text = format!(
        "{}\n{}",
        table::to_text(&outcome, &tbl, first, Test::T),
        table::judged_text(&outcome)
    );
    Ok((table::to_tsv(&outcome, &tbl), text, judged_rows(&outcome)))
}

/// The sweep the options ask for; the first bad keyword raises.
fn spec(o: &SweepOptions) -> PyResult<SweepSpec> {
    let bad = crate::errors::from_searcher;
    let axes = o
        .rules
        .iter()
        .map(|r| Axis::parse(r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad)?;
    let models = o
        .model
        .iter()
        .map(|m| ModelName::parse(m))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad)?;
    let count = |name: &str, v: i64| {
        usize::try_from(v)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| parameter(name, "at least 1", v))
    };
    Ok(SweepSpec {
        tag: o.tag.clone(),
        axes,
        cross: o.cross,
        unscored: match o.unscored.as_str() {
            "keep" => sieve_filters::docfilter::Unscored::Keep,
            "drop" => sieve_filters::docfilter::Unscored::Drop,
            u => return Err(parameter("unscored", "keep or drop", format!("{u:?}"))),
        },
        models,
        mu: o.mu.clone(),
        k1: o.k1.clone(),
        b: o.b.clone(),
        stats: match o.collection_stats.as_str() {
            "full" => sieve_searcher::batch::StatsMode::Full,
            "filtered" => sieve_searcher::batch::StatsMode::Filtered,
            s => {
                return Err(parameter(
                    "collection_stats",
                    "full or filtered",
                    format!("{s:?}"),
                ));
            }
        },
        hits: count("num_results", o.hits)?,
        max_query_terms: count("max_query_terms", o.max_query_terms)?,
        feedback: Vec::new(),
        rerank_cutoff: 50,
    })
}

/// The measures asked for (a sweep's default measures when none).
fn measures(names: &[String]) -> PyResult<Vec<Measure>> {
    if names.is_empty() {
        return Ok(Measure::SWEEP_DEFAULT.to_vec());
    }
    names
        .iter()
        .map(|n| n.parse::<Measure>().map_err(crate::errors::from_searcher))
        .collect()
}

/// The judged loss of every filtered setting, per topic with a removed
/// judgement.
fn judged_rows(outcome: &sweep::Outcome) -> Vec<(String, String, u64, u64, u64, u64)> {
    let mut rows = Vec::new();
    for (setting, loss) in outcome.settings.iter().zip(&outcome.losses) {
        let Some(l) = loss else { continue };
        for (qid, t) in &l.per_topic {
            rows.push((
                setting.tag.clone(),
                qid.clone(),
                t.removed.relevant(),
                t.removed.nonrelevant(),
                t.top10,
                t.top_depth,
            ));
        }
    }
    rows
}
