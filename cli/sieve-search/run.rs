//! `sieve-search run` (topics searched into TREC run files) and `topics`
//! (what a topic file holds).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use sieve_analysis::EnglishAnalyzer;
use sieve_filters::docfilter::Unscored;
use sieve_searcher::batch::{DocSelection, RunResults};
use sieve_searcher::queries::{Phrases, TopicQueries};
use sieve_searcher::runspec::{MIN_SPAM_PERCENTILE, PlannedRun, RunSpec, SelectionSpec};
use sieve_searcher::topics::read_topics;
use sieve_searcher::twostage;

use crate::args::{RunArgs, TopicsArgs, UnscoredArg};
use crate::feedback;
use crate::output::{refuse_inputs, sink};
use crate::setup::{open_shards, read_queries, set_threads};
use crate::staged;

/// `sieve-search run`: every run of the spec searched in one pass, checked,
/// then written.
pub fn cmd_run(a: RunArgs) -> Result<()> {
    set_threads(a.threads.threads)?;
    let hits = a.hits.checked()?;
    let (shards, config) = open_shards(&a.index, &a.unfinished)?;
    let analyzer = EnglishAnalyzer::new(config);
    let topics = read_queries(&analyzer, &a.query)?;
    let field = a.query.search_field.text_field();
    let queries = TopicQueries {
        analyzer: &analyzer,
        topics: &topics,
        field: a.query.field,
        max_terms: a.query.max_query_terms,
    };
    let spec = run_spec(&a, hits)?;
    if let Some(w) = &a.weighted_queries {
        return staged::cmd_run_weighted(&a, &spec, (&shards, config), &queries, w);
    }
    let global = match &a.global_stats {
        Some(p) => Some(twostage::open_global_stats(p, &shards, field, &queries)?),
        None => None,
    };
    let settings = a.feedback.settings()?;
    if !settings.is_empty() && spec.phrases == Phrases::Exact {
        anyhow::bail!("--phrases exact is not searched with feedback: give --phrases ignore");
    }
    if !settings.is_empty() {
        return feedback::cmd_run_feedback(
            &a,
            &spec,
            &shards,
            global.as_ref(),
            &queries,
            &settings,
        );
    }
    let runs = spec.runs()?;
    if runs.len() > 1 && spec.output_dir.is_none() {
        anyhow::bail!(
            "{} runs requested (models' settings x filters): give --output-dir DIR for their files",
            runs.len()
        );
    }
    refuse_run_inputs(&a, &runs)?;
    let started = std::time::Instant::now();
    let global = global.as_ref().map(|g| g as _);
    let results = spec.search(&runs, &shards, field, global, &queries)?;
    let elapsed = started.elapsed().as_secs_f64();
    write_runs(&spec, &runs, &results)?;
    eprintln!(
        "searched {} topics for each of {} run{} (one per model setting and filter) in {:.3}s ({:.2} ms per topic, all runs)",
        topics.len(),
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        elapsed,
        elapsed * 1e3 / topics.len().max(1) as f64
    );
    Ok(())
}

/// The runs `a` asks for: model settings times document selections.
fn run_spec(a: &RunArgs, hits: usize) -> Result<RunSpec> {
    Ok(RunSpec {
        selections: selections(a)?,
        tag: a.tag.clone(),
        models: a.models.names()?,
        mu: a.models.mu.clone(),
        k1: a.models.k1.clone(),
        b: a.models.b.clone(),
        stats: a.stats.mode(),
        phrases: a.phrases.mode(),
        hits,
        output: a.output.clone(),
        output_dir: a.output_dir.clone(),
    })
}

/// Refuses a run file that is one of the inputs (an index, the topics,
/// the global statistics, the weighted queries, a filter file), before
/// anything is written.
pub(crate) fn refuse_run_inputs(a: &RunArgs, runs: &[PlannedRun]) -> Result<()> {
    let mut inputs: Vec<&Path> = a.index.iter().map(|p| p.as_path()).collect();
    inputs.push(&a.query.topics);
    inputs.extend(a.global_stats.as_deref());
    inputs.extend(a.weighted_queries.as_deref());
    inputs.extend(a.filter.iter().map(|p| p.as_path()));
    for run in runs {
        refuse_inputs(run.output.as_deref(), &inputs)?;
    }
    Ok(())
}

/// Writes each run's file (or stdout), once every run has been checked.
pub(crate) fn write_runs(
    spec: &RunSpec,
    runs: &[PlannedRun],
    results: &[RunResults],
) -> Result<()> {
    // Every run is checked before the first file is created: a docid that
    // would break a run file's columns (from an index built before docids
    // were checked) leaves no partial run behind.
    for (run, res) in runs.iter().zip(results) {
        sieve_searcher::runspec::check_run(&run.variant.tag, res)?;
    }
    if let Some(dir) = &spec.output_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    for (run, res) in runs.iter().zip(results) {
        sieve_searcher::runspec::write_run(sink(run.output.as_deref())?, &run.variant.tag, res)?
            .finish()?;
    }
    Ok(())
}

/// The document selections of `run`: one per spam percentile, per invalid
/// 4/5/6-byte rate and per filter file, in that order.
fn selections(a: &RunArgs) -> Result<Vec<DocSelection>> {
    let unscored = match (a.unscored, a.drop_unscored) {
        (UnscoredArg::Drop, _) | (_, true) => Unscored::Drop,
        (UnscoredArg::Keep, false) => Unscored::Keep,
    };
    let spec = SelectionSpec {
        min_spam_percentile: &a.min_spam_percentile,
        unscored,
        max_invalid_456_per_kb: &a.max_invalid_456_per_kb,
        filters: &a.filter,
        drop_near_duplicates: a.drop_near_duplicates,
    };
    spec.selections().map_err(|e| match e {
        sieve_searcher::Error::InvalidParameter { name, got, .. }
            if name == MIN_SPAM_PERCENTILE =>
        {
            anyhow::anyhow!("--min-spam-percentile {got}: expected 0-100")
        }
        e => e.into(),
    })
}

/// `sieve-search topics`: the format, the count, then each topic's query
/// (or everything as JSON).
pub fn cmd_topics(a: TopicsArgs) -> Result<()> {
    let (format, topics) = read_topics(&a.file)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        let v =
            serde_json::json!({ "format": format.name(), "count": topics.len(), "topics": topics });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    writeln!(out, "format\t{}\ncount\t{}", format.name(), topics.len())?;
    for t in &topics {
        writeln!(out, "{}\t{}", t.id, t.query(a.field))?;
    }
    Ok(())
}
