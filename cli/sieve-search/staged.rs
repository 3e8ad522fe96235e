//! Feedback over shards searched apart (the staged protocol of
//! `sieve_searcher::feedback::staged`, scale/README.md): `feedback-vectors`
//! (per shard), `merge-vectors` and `expand-queries` (driver), and the
//! second stage, `run --weighted-queries`. (`global-stats --vocabulary` is
//! in [`crate::twostage`].)

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_searcher::batch::RunVariant;
use sieve_searcher::bm25::Shard;
use sieve_searcher::feedback::index::has_stored_vectors;
use sieve_searcher::feedback::staged::{
    self, ExpandInputs, SearchKey, VectorsFile, WeightedQueriesFile, read_first_stage,
};
use sieve_searcher::queries::{Phrases, TopicQueries, analyse_topics};
use sieve_searcher::runspec::{PlannedRun, RunSpec, model_settings};
use sieve_searcher::twostage::{GlobalStatsFile, ShardStats, StatsHeader};

use crate::args::{
    ExpandQueriesArgs, FeedbackArgs, FeedbackVectorsArgs, MergeVectorsArgs, RunArgs,
};
use crate::output::{refuse_inputs, sink};
use crate::run::{refuse_run_inputs, write_runs};
use crate::setup::{open_shards, read_queries};

/// The feedback settings of a staged step, at least one (no
/// `--feedback-queries` here: that is a flag of `run`; the queries of a
/// staged step are in its output).
fn staged_settings(
    f: &FeedbackArgs,
    step: &str,
) -> Result<Vec<sieve_searcher::feedback::Feedback>> {
    let settings = f.settings()?;
    anyhow::ensure!(
        !settings.is_empty(),
        "{step} needs the feedback setting: --feedback rm3|bm25prf|rocchio and its flags, as given to `run`"
    );
    Ok(settings)
}

/// The statistics header of the topics of `q`, analysed with `config`,
/// and the analysed queries.
fn topic_header(
    config: AnalyzerConfig,
    q: &crate::args::QueryArgs,
) -> Result<(StatsHeader, Vec<(String, sieve_searcher::bm25::BagOfWords)>)> {
    let analyzer = EnglishAnalyzer::new(config);
    let topics = read_queries(&analyzer, q)?;
    let analysed = analyse_topics(&analyzer, &topics, q.field, q.max_query_terms);
    let header = StatsHeader::new(config, q.search_field.text_field(), q.field, &analysed);
    Ok((header, analysed))
}

/// `sieve-search feedback-vectors`.
pub fn cmd_feedback_vectors(a: FeedbackVectorsArgs) -> Result<()> {
    let settings = staged_settings(&a.feedback, "feedback-vectors")?;
    let mut inputs: Vec<&Path> = a.index.iter().map(|p| p.as_path()).collect();
    inputs.push(&a.query.topics);
    inputs.push(&a.run);
    refuse_inputs(a.output.output.as_deref(), &inputs)?;
    let (shards, config) = open_shards(&a.index, &a.unfinished)?;
    let field = a.query.search_field.text_field();
    let (header, analysed) = topic_header(config, &a.query)?;
    let ids: Vec<String> = analysed.iter().map(|(id, _)| id.clone()).collect();
    let cutoff = a.feedback.rerank_cutoff;
    let first = read_first_stage(&a.run, &ids, cutoff)?;
    if !has_stored_vectors(&shards, field) {
        eprintln!(
            "feedback-vectors: no stored document vectors, so the feedback documents are read from the postings (slow: a pass over the term dictionary); build the index with `sieve-index build --docvectors` to store them"
        );
    }
    let read = staged::documents_read(&settings);
    let vectors = VectorsFile::gather(
        &shards,
        field,
        SearchKey::of(&header),
        (&first, cutoff),
        read,
    )?;
    let mut out = sink(a.output.output.as_deref())?;
    out.write_all(vectors.to_jsonl().as_bytes())?;
    out.finish()?;
    eprintln!(
        "feedback-vectors: {} feedback documents of {} topics found in {} index(es)",
        vectors.docs.len(),
        first.topics.iter().filter(|(_, h)| !h.is_empty()).count(),
        shards.len()
    );
    Ok(())
}

/// `sieve-search merge-vectors`.
pub fn cmd_merge_vectors(a: MergeVectorsArgs) -> Result<()> {
    let inputs: Vec<&Path> = a.files.iter().map(|p| p.as_path()).collect();
    refuse_inputs(a.output.output.as_deref(), &inputs)?;
    let parts = a
        .files
        .iter()
        .map(|p| Ok((p.clone(), VectorsFile::read(p)?)))
        .collect::<Result<Vec<_>>>()?;
    let merged = VectorsFile::merge(&parts)?;
    let mut out = sink(a.output.output.as_deref())?;
    out.write_all(merged.to_jsonl().as_bytes())?;
    out.finish()?;
    Ok(())
}

/// `sieve-search expand-queries`.
pub fn cmd_expand_queries(a: ExpandQueriesArgs) -> Result<()> {
    let settings = staged_settings(&a.feedback, "expand-queries")?;
    anyhow::ensure!(
        settings.len() == 1,
        "expand-queries makes the queries of one feedback setting, got {}: run it once per setting",
        settings.len()
    );
    let models = model_settings(&a.models.names()?, &a.models.k1, &a.models.b, &a.models.mu)?;
    anyhow::ensure!(
        models.len() == 1 && !models[0].sdm,
        "expand-queries needs the first stage's one model setting (bm25 with one --k1 and --b, or qld with one --mu), got {}",
        models
            .iter()
            .map(|m| m.label.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let inputs: Vec<&Path> = vec![&a.query.topics, &a.run, &a.vectors, &a.global_stats];
    refuse_inputs(a.output.output.as_deref(), &inputs)?;
    let vectors = VectorsFile::read(&a.vectors)?;
    let config = vectors
        .header
        .search
        .analyzer()
        .map_err(|e| anyhow::anyhow!("{}: line 1: {e}", a.vectors.display()))?;
    let (header, analysed) = topic_header(config, &a.query)?;
    let ids: Vec<String> = analysed.iter().map(|(id, _)| id.clone()).collect();
    let cutoff = a.feedback.rerank_cutoff;
    let first = read_first_stage(&a.run, &ids, cutoff)?;
    let stats = ShardStats::read(&a.global_stats)?;
    let inputs = ExpandInputs {
        topics: (&header, &analysed),
        first: (&a.run, &first),
        rerank_cutoff: cutoff,
        vectors: (&a.vectors, &vectors),
        stats: (&a.global_stats, &stats),
    };
    let (file, _) = staged::expand_queries(&inputs, &settings[0], &models[0].label)?;
    let mut out = sink(a.output.output.as_deref())?;
    out.write_all(file.to_jsonl().as_bytes())?;
    out.finish()?;
    Ok(())
}

/// `sieve-search run --weighted-queries FILE`: the second stage, one run
/// (the first stage's model setting and filter), tagged as `run
/// --feedback` tags it.
pub fn cmd_run_weighted(
    a: &RunArgs,
    spec: &RunSpec,
    (shards, config): (&[Shard], AnalyzerConfig),
    queries: &TopicQueries<'_>,
    path: &Path,
) -> Result<()> {
    anyhow::ensure!(
        spec.phrases == Phrases::Ignore,
        "--phrases exact is not searched with --weighted-queries: give --phrases ignore"
    );
    let field = a.query.search_field.text_field();
    let w = WeightedQueriesFile::read(path)?;
    let analysed = queries.analyse();
    let header = StatsHeader::new(config, field, queries.field, &analysed);
    let ids: Vec<String> = analysed.iter().map(|(id, _)| id.clone()).collect();
    w.check_search(path, &SearchKey::of(&header), &ids)?;
    let models = model_settings(&spec.models, &spec.k1, &spec.b, &spec.mu)?;
    anyhow::ensure!(
        models.len() == 1 && spec.selections.len() <= 1 && !models[0].sdm,
        "--weighted-queries searches one run: the first stage's model setting (bm25 or qld, one value each) and at most one filter"
    );
    if models[0].label != w.header.model {
        anyhow::bail!(
            "{}: made for a first stage with model setting {}, this run's is {} (give the first stage's model flags)",
            path.display(),
            w.header.model,
            models[0].label
        );
    }
    let runs = spec.runs()?;
    let base = runs.into_iter().next().context("no run to search")?;
    let tag = format!("{}_{}", base.variant.tag, w.header.feedback);
    let planned = PlannedRun {
        output: spec.output_path(&tag),
        variant: RunVariant {
            tag,
            ..base.variant
        },
    };
    let planned = [planned];
    refuse_run_inputs(a, &planned)?;
    let global = match &a.global_stats {
        Some(p) => Some(GlobalStatsFile::open_vocabulary(
            p,
            shards,
            (&header, &w.header.vocabulary),
            field,
            &w.terms(),
        )?),
        None => None,
    };
    let started = std::time::Instant::now();
    let results = spec.search_weighted_queries_as(
        &w.weighted(),
        &|m| w.model(m),
        shards,
        field,
        global.as_ref().map(|g| g as _),
    )?;
    let elapsed = started.elapsed().as_secs_f64();
    write_runs(spec, &planned, &results)?;
    eprintln!(
        "searched {} weighted queries in {:.3}s",
        w.queries.len(),
        elapsed
    );
    Ok(())
}
