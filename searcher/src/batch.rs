//! Batch TREC runs: many topics, many BM25 settings and filters, one pass.
//!
//! A batch is the cartesian product of BM25 parameter settings and
//! document filters. Every topic is scored once over the postings for all
//! of them ([`crate::bm25::search`]); topics run in parallel and the output
//! is in topic-file order, so it is the same for any thread count.
//!
//! # Filters at query time
//!
//! A [`DocSelection`] keeps documents by the rule of
//! [`sieve_filters::docfilter::Thresholds`] over the index's fast fields
//! (`spam`, the seven `err_*` counts, `bytes`) and, optionally, a filter
//! file's docids. It becomes one roaring bitmap per segment.
//!
//! With [`StatsMode::Full`] the BM25 statistics are those of the whole
//! collection (ChatNoir's choice); with [`StatsMode::Filtered`] `N`, `df`
//! and the average length are recomputed over the kept documents
//! ([`crate::stats::SubsetStats`]), which makes the run equal to a run over
//! an index built from the kept documents only.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use roaring::RoaringBitmap;
use sieve_filters::docfilter::{DocFilter, Thresholds};
use sieve_indexer::analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_indexer::bounds::SegmentBounds;
use sieve_indexer::index::open_index;
use sieve_indexer::manifest::analyzer_config;
use sieve_indexer::schema::{Fields, RuleColumns, TextField};
use tantivy::query::Bm25StatisticsProvider;

use crate::bm25::{Bm25Params, Hit, Shard, Subset, Variant, search};
use crate::queries::analyse_topics;
use crate::stats::{GlobalStats, SubsetStats};
use crate::topics::{Topic, TopicField};
use crate::{Error, Result};

/// Which collection statistics a filtered run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatsMode {
    /// Statistics of every indexed document.
    #[default]
    Full,
    /// Statistics of the kept documents only.
    Filtered,
}

/// A document selection: thresholds over fast fields, and/or a filter file.
#[derive(Debug, Default)]
pub struct DocSelection {
    /// A short name used in run tags and file names (e.g. `spam70`).
    pub name: String,
    /// The rule over fast fields.
    pub thresholds: Thresholds,
    /// A filter file.
    pub filter: Option<DocFilter>,
}

impl DocSelection {
    /// True when the selection keeps everything.
    pub fn is_all(&self) -> bool {
        self.thresholds.is_empty() && self.filter.is_none()
    }
}

/// Opens the given index directories as shards and checks that they were
/// built with the same analyser. The same directory given twice (under any
/// spelling: the paths are compared after `canonicalize`) is refused: its
/// documents would be counted twice in the statistics and listed twice in
/// a run.
pub fn open_shards(dirs: &[PathBuf]) -> Result<(Vec<Shard>, AnalyzerConfig)> {
    let mut shards = Vec::with_capacity(dirs.len());
    let mut config: Option<AnalyzerConfig> = None;
    let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let (index, manifest) = open_index(dir)?;
        if let Ok(real) = dir.canonicalize() {
            if let Some((_, first)) = seen.iter().find(|(r, _)| *r == real) {
                return Err(Error::Index {
                    index: dir.display().to_string(),
                    detail: format!(
                        "the same index as {} given before it: each index may be given once",
                        first.display()
                    ),
                });
            }
            seen.push((real, dir));
        }
        let c = analyzer_config(&manifest);
        if config.is_some_and(|first| first != c) {
            return Err(Error::Index {
                index: dir.display().to_string(),
                detail: "built with a different analyser from the first index".into(),
            });
        }
        config = Some(c);
        let reader = index.reader()?;
        let searcher = reader.searcher();
        let schema = index.schema();
        // A missing bounds file leaves its segment without block-max
        // pruning (see `Shard::segments_without_bounds`); a stale or
        // damaged one is refused.
        let bounds = searcher
            .segment_readers()
            .iter()
            .map(|seg| Ok(SegmentBounds::open(dir, seg, &schema)?.map(Arc::new)))
            .collect::<Result<_>>()?;
        shards.push(Shard {
            name: dir.display().to_string(),
            dir: dir.clone(),
            searcher,
            fields: Fields::from_schema(&schema)?,
            bounds,
        });
    }
    config
        .map(|c| (shards, c))
        .ok_or_else(|| Error::InvalidParameter {
            name: "index",
            expected: "at least one index directory",
            got: "none".into(),
        })
}

/// The per-segment bitmaps of the documents `sel` keeps.
pub fn select(shards: &[Shard], sel: &DocSelection) -> Result<Subset> {
    let mut subset = Vec::with_capacity(shards.len());
    for shard in shards {
        let mut per_segment = Vec::new();
        for seg in shard.searcher.segment_readers() {
            let cols = RuleColumns::open(seg)?;
            let dups = if sel.thresholds.drop_near_duplicates {
                Some(sieve_indexer::dedup::SegmentDups::open(&shard.dir, seg)?)
            } else {
                None
            };
            let docids = match &sel.filter {
                Some(_) => Some(shard.docid_column(seg)?),
                None => None,
            };
            let mut bitmap = RoaringBitmap::new();
            let mut buf = String::new();
            for doc in 0..seg.max_doc() {
                let dup = dups.as_ref().is_some_and(|d| d.is_duplicate(doc));
                let mut keep = sel.thresholds.keeps_doc(
                    cols.spam(doc),
                    &cols.counts(doc),
                    cols.bytes(doc),
                    dup,
                );
                if keep && let (Some(f), Some(ids)) = (&sel.filter, &docids) {
                    buf.clear();
                    if let Some(ord) = ids.term_ords(doc).next() {
                        ids.ord_to_str(ord, &mut buf).map_err(|e| Error::Index {
                            index: shard.name.clone(),
                            detail: format!("docid of document {doc}: {e}"),
                        })?;
                    }
                    keep = f.keeps(&buf);
                }
                if keep {
                    bitmap.insert(doc);
                }
            }
            per_segment.push(Some(bitmap));
        }
        subset.push(per_segment);
    }
    Ok(subset)
}

/// One output run of a batch.
#[derive(Debug, Clone)]
pub struct RunVariant {
    /// BM25 parameters.
    pub params: Bm25Params,
    /// Index into the batch's selections (`None`: every document).
    pub selection: Option<usize>,
    /// The run tag.
    pub tag: String,
}

/// The results of one variant: `(topic id, hits)` in topic order.
pub type RunResults = Vec<(String, Vec<Hit>)>;

/// Runs `topics` for every variant. Returns one result list per variant,
/// in the order of `variants`. Each topic is searched with at most
/// `max_terms` unique analysed terms ([`crate::queries`]).
///
/// The collection statistics are `global` when given (e.g. a
/// [`crate::twostage::GlobalStatsFile`] summed over shards searched
/// elsewhere), else the sum over `shards` ([`GlobalStats`]). Statistics
/// recomputed over a selection ([`StatsMode::Filtered`]) need every shard
/// at hand, so they cannot be combined with `global`.
#[allow(clippy::too_many_arguments)]
pub fn run_batch(
    shards: &[Shard],
    analyzer: &EnglishAnalyzer,
    topics: &[Topic],
    topic_field: TopicField,
    max_terms: usize,
    field: TextField,
    selections: &[DocSelection],
    stats_mode: StatsMode,
    global: Option<&(dyn Bm25StatisticsProvider + Sync)>,
    variants: &[RunVariant],
    hits: usize,
) -> Result<Vec<RunResults>> {
    for v in variants {
        v.params.validate()?;
    }
    if global.is_some() && stats_mode == StatsMode::Filtered && !selections.is_empty() {
        return Err(Error::InvalidParameter {
            name: "stats",
            expected: "full statistics with a global statistics file",
            got: "filtered".into(),
        });
    }
    let subsets: Vec<Subset> = selections
        .iter()
        .map(|s| select(shards, s))
        .collect::<Result<_>>()?;
    let summed = GlobalStats::new(shards);
    let global: &(dyn Bm25StatisticsProvider + Sync) = global.unwrap_or(&summed);
    let filtered: Vec<SubsetStats<'_>> = match stats_mode {
        StatsMode::Full => Vec::new(),
        StatsMode::Filtered => subsets
            .iter()
            .map(|s| SubsetStats::new(shards, s))
            .collect::<Result<_>>()?,
    };
    let queries = analyse_topics(analyzer, topics, topic_field, max_terms);
    let per_topic: Vec<Vec<Vec<Hit>>> = queries
        .par_iter()
        .map(|(_, query)| {
            let vs: Vec<Variant<'_>> = variants
                .iter()
                .map(|v| {
                    let stats: &dyn Bm25StatisticsProvider = match (v.selection, stats_mode) {
                        (Some(i), StatsMode::Filtered) => &filtered[i],
                        _ => global,
                    };
                    Variant {
                        params: v.params,
                        stats,
                        subset: v.selection.map(|i| &subsets[i]),
                    }
                })
                .collect();
            search(shards, field, query, &vs, hits)
        })
        .collect::<Result<_>>()?;
    let mut out: Vec<RunResults> = vec![Vec::with_capacity(topics.len()); variants.len()];
    for (topic, results) in topics.iter().zip(per_topic) {
        for (slot, hits) in out.iter_mut().zip(results) {
            slot.push((topic.id.clone(), hits));
        }
    }
    Ok(out)
}

/// A file-name-safe rendering of a number in its shortest round-trip form
/// (`0.9f32` → `0.9`, `70` → `70`, `-1` → `m1`).
pub fn num_label(x: impl std::fmt::Display) -> String {
    x.to_string().replace('-', "m")
}

/// The run file for `tag` in `dir`.
pub fn run_path(dir: &Path, tag: &str) -> PathBuf {
    dir.join(format!("{tag}.run"))
}
