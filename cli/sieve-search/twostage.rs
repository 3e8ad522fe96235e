//! The two-stage search over shards searched apart: `global-stats` (stage
//! 1: the statistics of some shards; with `--vocabulary`, of the feedback
//! terms too), `sum-stats` (summed over all) and `merge-runs` (the shards'
//! runs merged into one).

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use sieve_analysis::EnglishAnalyzer;
use sieve_searcher::feedback::staged::{VectorsFile, gather_vocabulary_stats};
use sieve_searcher::queries::analyse_topics;
use sieve_searcher::topics::read_topics;
use sieve_searcher::twostage;

use crate::args::{MergeRunsArgs, StatsArgs, SumStatsArgs};
use crate::output::{refuse_inputs, sink};
use crate::setup::{open_shards, read_queries};

/// `sieve-search global-stats`.
pub fn cmd_stats(a: StatsArgs) -> Result<()> {
    let mut inputs: Vec<&Path> = a.index.iter().map(|p| p.as_path()).collect();
    inputs.push(&a.query.topics);
    inputs.extend(a.vocabulary.as_deref());
    refuse_inputs(a.output.output.as_deref(), &inputs)?;
    let (shards, config) = open_shards(&a.index, &a.unfinished)?;
    let analyzer = EnglishAnalyzer::new(config);
    let topics = read_queries(&analyzer, &a.query)?;
    let field = a.query.search_field.text_field();
    let stats = match &a.vocabulary {
        None => twostage::gather_stats(
            &shards,
            config,
            &topics,
            a.query.field,
            field,
            a.query.max_query_terms,
        )?,
        Some(path) => {
            let vectors = VectorsFile::read(path)?;
            let queries =
                analyse_topics(&analyzer, &topics, a.query.field, a.query.max_query_terms);
            let header = twostage::StatsHeader::new(config, field, a.query.field, &queries);
            gather_vocabulary_stats(&shards, header, field, &queries, (path, &vectors))?
        }
    };
    let mut out = sink(a.output.output.as_deref())?;
    out.write_all(stats.to_json().as_bytes())?;
    out.finish()?;
    Ok(())
}

/// `sieve-search sum-stats`.
pub fn cmd_sum_stats(a: SumStatsArgs) -> Result<()> {
    let inputs: Vec<&Path> = a.files.iter().map(|p| p.as_path()).collect();
    refuse_inputs(a.output.output.as_deref(), &inputs)?;
    let parts = a
        .files
        .iter()
        .map(|p| Ok((p.clone(), twostage::ShardStats::read(p)?)))
        .collect::<Result<Vec<_>>>()?;
    let total = twostage::ShardStats::sum(&parts)?;
    let mut out = sink(a.output.output.as_deref())?;
    out.write_all(total.to_json().as_bytes())?;
    out.finish()?;
    Ok(())
}

/// `sieve-search merge-runs`.
pub fn cmd_merge_runs(a: MergeRunsArgs) -> Result<()> {
    anyhow::ensure!(a.hits >= 1, "--hits must be at least 1");
    let mut inputs: Vec<&Path> = a.runs.iter().map(|p| p.as_path()).collect();
    inputs.extend(a.topics.as_deref());
    refuse_inputs(a.output.as_deref(), &inputs)?;
    let order = match &a.topics {
        Some(p) => Some(
            read_topics(p)?
                .1
                .into_iter()
                .map(|t| t.id)
                .collect::<Vec<_>>(),
        ),
        None => None,
    };
    let merged = twostage::merge_runs(&a.runs, a.hits, order.as_deref())?;
    // Checked before the output file is created: a refused run leaves none.
    sieve_searcher::runspec::check_run(&a.tag, &merged)?;
    sieve_searcher::runspec::write_run(sink(a.output.as_deref())?, &a.tag, &merged)?.finish()?;
    Ok(())
}
