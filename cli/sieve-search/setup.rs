//! What the search commands do before searching: the worker pool, the
//! indexes opened as shards (with a warning for an unfinished one and for
//! segments without block-max bounds), and a warning for every query
//! capped or left without terms.

use std::path::PathBuf;

use anyhow::{Context, Result};
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_format::index::Unfinished;
use sieve_searcher::bm25::Shard;
use sieve_searcher::queries::{QueryNote, query_notes};
use sieve_searcher::topics::Topic;

use crate::args::{AllowUnfinished, QueryArgs};

/// Sets the worker pool's size (`--threads`), if given.
pub fn set_threads(threads: Option<usize>) -> Result<()> {
    if let Some(t) = threads {
        let t = sieve_ingest::options::check_threads(t)
            .map_err(|_| anyhow::anyhow!("--threads must be at least 1"))?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(t.get())
            .build_global()
            .context("thread pool")?;
    }
    Ok(())
}

/// Opens the indexes of `--index` as shards (see [`open_indexes`]) and
/// warns about those without block-max bounds.
pub fn open_shards(
    dirs: &[PathBuf],
    unfinished: &AllowUnfinished,
) -> Result<(Vec<Shard>, AnalyzerConfig)> {
    let opened = open_indexes(dirs, unfinished.mode())?;
    warn_missing_bounds(&opened.0);
    Ok(opened)
}

/// Opens the indexes `dirs` as shards: an unfinished one is refused
/// unless `unfinished` allows it (`--allow-unfinished`), and then warned
/// about, on every run.
pub fn open_indexes(
    dirs: &[PathBuf],
    unfinished: Unfinished,
) -> Result<(Vec<Shard>, AnalyzerConfig)> {
    let opened = sieve_searcher::batch::open_shards_with(dirs, unfinished)?;
    for dir in dirs {
        if let Some(w) = sieve_format::index::unfinished_warning(dir) {
            eprintln!("sieve-search: warning: {w}");
        }
    }
    Ok(opened)
}

/// Warns about index segments without block-max bounds: they are scored
/// without block-max pruning (same results, more postings read).
fn warn_missing_bounds(shards: &[Shard]) {
    for s in shards {
        let n = s.segments_without_bounds();
        if n > 0 {
            eprintln!(
                "sieve-search: warning: {}: {n} segment(s) without block-max bounds, scored without block-max pruning (same results, slower); `sieve-index bounds --index {}` builds them",
                s.name, s.name
            );
        }
    }
}

/// Reads the topics of `q` and warns about every topic whose query was
/// capped or has no searchable terms (`--max-query-terms`).
pub fn read_queries(analyzer: &EnglishAnalyzer, q: &QueryArgs) -> Result<Vec<Topic>> {
    let (_, topics) = sieve_searcher::topics::read_topics(&q.topics)?;
    for note in query_notes(analyzer, &topics, q.field, q.max_query_terms) {
        match note {
            QueryNote::Capped { .. } => eprintln!("warning: {note} (--max-query-terms)"),
            _ => eprintln!("warning: {note}"),
        }
    }
    Ok(topics)
}
