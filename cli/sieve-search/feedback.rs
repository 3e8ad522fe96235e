//! `sieve-search run --feedback`: the runs of the spec, each once per
//! feedback setting (tag `TAG[_k1-.._b-..][_SELECTION]_MODEL_PARAMS`),
//! searched with the library's feedback batch, checked, then written; and
//! the feedback queries, when asked for.

use std::io::Write;

use anyhow::{Context, Result};
use sieve_searcher::bm25::Shard;
use sieve_searcher::feedback::Feedback;
use sieve_searcher::feedback::index::has_stored_vectors;
use sieve_searcher::queries::TopicQueries;
use sieve_searcher::runspec::RunSpec;
use sieve_searcher::twostage::GlobalStatsFile;

use crate::args::RunArgs;
use crate::run::{refuse_run_inputs, write_runs};

/// Says on stderr when feedback reads the feedback documents' terms from
/// the postings (slow) because `shards` store no document vectors of
/// `field`.
pub fn warn_without_vectors(shards: &[Shard], field: sieve_format::schema::TextField) {
    if !has_stored_vectors(shards, field) {
        eprintln!(
            "feedback: no stored document vectors, so each topic's feedback documents are read from the postings (slow: a pass over the term dictionary); build the index with `sieve-index build --docvectors` to store them"
        );
    }
}

/// Every run of `spec` with every feedback setting of `settings`.
pub fn cmd_run_feedback(
    a: &RunArgs,
    spec: &RunSpec,
    shards: &[Shard],
    global: Option<&GlobalStatsFile>,
    queries: &TopicQueries<'_>,
    settings: &[Feedback],
) -> Result<()> {
    let runs = spec.feedback_runs(settings)?;
    if runs.len() > 1 && spec.output_dir.is_none() {
        anyhow::bail!(
            "{} runs requested (k1 x b x filters x feedback settings): give --output-dir DIR for their files",
            runs.len()
        );
    }
    refuse_run_inputs(a, &runs)?;
    warn_without_vectors(shards, a.query.search_field.text_field());
    let started = std::time::Instant::now();
    let results = spec.search_feedback(
        (settings, a.feedback.rerank_cutoff),
        shards,
        a.query.search_field.text_field(),
        global.map(|g| g as _),
        queries,
    )?;
    let elapsed = started.elapsed().as_secs_f64();
    write_runs(spec, &runs, &results.runs)?;
    if let Some(path) = &a.feedback_queries {
        let mut out = sieve_format::outfile::OutFile::create(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        for (run, qs) in runs.iter().zip(&results.queries) {
            for (topic, e) in qs {
                writeln!(out, "{}\t{topic}\t{e}", run.variant.tag)?;
            }
        }
        out.commit()?;
    }
    eprintln!(
        "searched {} topics for each of {} feedback run{} in {:.3}s ({:.2} ms per topic, all runs)",
        queries.topics.len(),
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        elapsed,
        elapsed * 1e3 / queries.topics.len().max(1) as f64
    );
    Ok(())
}
