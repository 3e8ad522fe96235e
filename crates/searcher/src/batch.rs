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
use sieve_analysis::AnalyzerConfig;
use sieve_filters::docfilter::{DocFilter, Thresholds};
use sieve_filters::utf8::Utf8Counts;
use sieve_format::bounds::SegmentBounds;
use sieve_format::index::{Unfinished, open_index_with};
use sieve_format::manifest::analyzer_config;
use sieve_format::schema::{Fields, RuleColumns, TextField};
use tantivy::columnar::StrColumn;
use tantivy::{DocId, SegmentReader};

use crate::bm25::{BagOfWords, Bm25Params, Hit, Membership, Shard, Subset, Variant, search_with};
use crate::queries::{AnalysedQuery, Phrases, TopicQueries};
use crate::sdm::{PositionalQuery, PositionalVariant, SdmWeights, search_positional};
use crate::stats::{CollectionStats, FamilyMember, GlobalStats, SubsetFamily};
use crate::weighted::{Model, ModelVariant, QldParams, WeightedQuery, search_weighted};
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
/// a run. An index whose build did not finish is refused
/// ([`sieve_format::Error::Unfinished`]); see [`open_shards_with`].
pub fn open_shards(dirs: &[PathBuf]) -> Result<(Vec<Shard>, AnalyzerConfig)> {
    open_shards_with(dirs, Unfinished::Refuse)
}

/// [`open_shards`], with an index whose build did not finish refused or
/// read (its committed documents) as `unfinished` says; the caller warns
/// about one read ([`sieve_format::index::unfinished_warning`]).
pub fn open_shards_with(
    dirs: &[PathBuf],
    unfinished: Unfinished,
) -> Result<(Vec<Shard>, AnalyzerConfig)> {
    let mut shards = Vec::with_capacity(dirs.len());
    let mut config: Option<AnalyzerConfig> = None;
    let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let (index, manifest) = open_index_with(dir, unfinished)?;
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
        // An index built before later copies of a docid were removed is
        // refused if it holds one (a run would list it twice).
        let removed = sieve_format::unique::check_unique(dir, &index)?;
        let reader = index.reader()?;
        let searcher = reader.searcher();
        // After later copies were removed, tantivy's token totals are
        // estimates: BM25 uses the exact per-document counts.
        let token_totals = if removed {
            Some(sieve_format::unique::exact_token_totals(&searcher)?)
        } else {
            None
        };
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
            docid_columns: Default::default(),
            token_totals,
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
    Ok(select_all(shards, std::slice::from_ref(sel))?
        .pop()
        .unwrap_or_default())
}

/// The per-segment bitmaps of the documents each of `sels` keeps, in the
/// order of `sels`: one read of each document's fast fields for all the
/// selections (a sweep's ten thresholds cost one pass, not ten).
pub fn select_all(shards: &[Shard], sels: &[DocSelection]) -> Result<Vec<Subset>> {
    let mut subsets: Vec<Subset> = sels
        .iter()
        .map(|_| Vec::with_capacity(shards.len()))
        .collect();
    if sels.is_empty() {
        return Ok(subsets);
    }
    let reads = ColumnReads::of(sels);
    for shard in shards {
        let segments = shard.searcher.segment_readers();
        if reads.dups && !segments.is_empty() {
            no_clusters(shard)?;
        }
        let mut per_sel: Vec<Vec<Option<RoaringBitmap>>> = sels
            .iter()
            .map(|_| Vec::with_capacity(segments.len()))
            .collect();
        // Segments in parallel, each read once for every selection.
        let per_seg: Vec<Vec<RoaringBitmap>> = segments
            .par_iter()
            .map(|seg| select_segment(shard, seg, sels, reads))
            .collect::<Result<_>>()?;
        for bitmaps in per_seg {
            for (slot, bitmap) in per_sel.iter_mut().zip(bitmaps) {
                slot.push(Some(bitmap));
            }
        }
        for (subset, segs) in subsets.iter_mut().zip(per_sel) {
            subset.push(segs);
        }
    }
    Ok(subsets)
}

/// Which columns some selection of a batch reads (a spam sweep reads one).
#[derive(Debug, Clone, Copy)]
struct ColumnReads {
    /// The docid column (a filter file).
    docids: bool,
    /// The spam percentile.
    spam: bool,
    /// The error counts and the byte length (a rate rule).
    rates: bool,
    /// The near-duplicate cluster column.
    dups: bool,
}

impl ColumnReads {
    /// The columns the rules of `sels` read.
    fn of(sels: &[DocSelection]) -> ColumnReads {
        ColumnReads {
            docids: sels.iter().any(|s| s.filter.is_some()),
            spam: sels
                .iter()
                .any(|s| s.thresholds.min_spam_percentile.is_some()),
            rates: sels
                .iter()
                .any(|s| !s.thresholds.max_rate_per_kb.is_empty()),
            dups: sels.iter().any(|s| s.thresholds.drop_near_duplicates),
        }
    }
}

/// The bitmaps of one segment's documents that each of `sels` keeps, the
/// segment's columns read once for all of them.
fn select_segment(
    shard: &Shard,
    seg: &SegmentReader,
    sels: &[DocSelection],
    reads: ColumnReads,
) -> Result<Vec<RoaringBitmap>> {
    let cols = RuleColumns::open(seg)?;
    let dups = if reads.dups {
        Some(sieve_format::dups::SegmentDups::open(&shard.dir, seg)?)
    } else {
        None
    };
    let docids = if reads.docids {
        Some(shard.docid_column(seg)?)
    } else {
        None
    };
    // Plain bit sets while reading (one bit per document), made roaring
    // bitmaps (bit sets or arrays per 2^16 ids, whichever is smaller) at
    // the end.
    let bytes = (seg.max_doc() as usize).div_ceil(8);
    let mut bitsets: Vec<Vec<u8>> = sels.iter().map(|_| vec![0u8; bytes]).collect();
    let mut buf = String::new();
    for doc in 0..seg.max_doc() {
        // Only the columns some rule reads.
        let spam = if reads.spam { cols.spam(doc) } else { None };
        let (counts, bytes) = if reads.rates {
            (cols.counts(doc), cols.bytes(doc))
        } else {
            (Utf8Counts::default(), 0)
        };
        let dup = dups.as_ref().is_some_and(|d| d.is_duplicate(doc));
        let mut docid_read = false;
        for (sel, bitset) in sels.iter().zip(bitsets.iter_mut()) {
            let mut keep = sel.thresholds.keeps_doc(spam, &counts, bytes, dup);
            if keep && let (Some(f), Some(ids)) = (&sel.filter, &docids) {
                if !docid_read {
                    read_docid(shard, ids, doc, &mut buf)?;
                    docid_read = true;
                }
                keep = f.keeps(&buf);
            }
            if keep {
                bitset[doc as usize / 8] |= 1 << (doc % 8);
            }
        }
    }
    Ok(bitsets
        .iter()
        .map(|b| RoaringBitmap::from_lsb0_bytes(0, b))
        .collect())
}

/// The docid of `doc` from the segment's docid column, into `buf` (left
/// empty for a document without one).
fn read_docid(shard: &Shard, ids: &StrColumn, doc: DocId, buf: &mut String) -> Result<()> {
    sieve_format::index::read_docid(ids, doc, buf).map_err(|e| Error::Index {
        index: shard.name.clone(),
        detail: format!("docid of document {doc}: {e}"),
    })
}

/// Refuses, naming the index, a shard without near-duplicate cluster
/// columns (`IDX/dups`): built with near-duplicate detection off, or by a
/// sieve older than index schema 3. (A damaged or missing column of one
/// segment is refused by [`sieve_format::dups::SegmentDups::open`],
/// naming the file.)
fn no_clusters(shard: &Shard) -> Result<()> {
    let dir = shard.dir.join(sieve_format::dups::DUPS_DIR);
    if dir.is_dir() {
        return Ok(());
    }
    Err(Error::Index {
        index: shard.name.clone(),
        detail: format!(
            "has no near-duplicate clusters ({} is missing): it was built with near-duplicate \
             detection off, or by an older sieve; rebuild it with near-duplicate detection to \
             drop near-duplicates",
            dir.display()
        ),
    })
}

/// The live documents of `subset` (deleted documents are not counted).
pub fn count_kept(shards: &[Shard], subset: &Subset) -> u64 {
    let mut n = 0;
    for (shard, segs) in shards.iter().zip(subset) {
        for (seg, bitmap) in shard.searcher.segment_readers().iter().zip(segs) {
            let alive = seg.alive_bitset();
            n += match (bitmap, alive) {
                (None, _) => u64::from(seg.num_docs()),
                (Some(b), None) => b.len(),
                (Some(b), Some(a)) => b.iter().filter(|&d| a.is_alive(d)).count() as u64,
            };
        }
    }
    n
}

/// One output run of a batch.
#[derive(Debug, Clone)]
pub struct RunVariant {
    /// BM25 parameters (unused when `qld` is given).
    pub params: Bm25Params,
    /// `Some`: the run scores with query likelihood with Dirichlet
    /// smoothing ([`crate::weighted`]) instead of BM25.
    pub qld: Option<QldParams>,
    /// The run scores Anserini's sequential dependence query with BM25
    /// `params` ([`crate::sdm`]; the index needs positions). Not with `qld`.
    pub sdm: bool,
    /// Index into the batch's selections (`None`: every document).
    pub selection: Option<usize>,
    /// The run tag.
    pub tag: String,
}

impl RunVariant {
    /// The run's retrieval model.
    pub fn model(&self) -> Model {
        match self.qld {
            Some(q) => Model::Qld(q),
            None => Model::Bm25(self.params),
        }
    }
}

/// The results of one variant: `(topic id, hits)` in topic order.
pub type RunResults = Vec<(String, Vec<Hit>)>;

/// A query plan: what a batch searches (the shards, the index field),
/// with which runs (BM25 setting, selection and tag of each), which
/// collection statistics, and how many hits per topic and run. The runs
/// name their selection by its index in the batch's selections, given
/// beside the plan as rules ([`run_batch`]) or as bitmaps
/// ([`run_batch_on`], [`Prepared::new`]). Topics run on rayon's current
/// thread pool: a caller that wants a number of threads installs a pool
/// of that size around the call.
#[derive(Clone, Copy)]
pub struct QueryPlan<'a> {
    /// The index, as shards searched as one collection.
    pub shards: &'a [Shard],
    /// The index field searched.
    pub field: TextField,
    /// The runs, in output order.
    pub variants: &'a [RunVariant],
    /// Which statistics a run with a selection uses.
    pub stats_mode: StatsMode,
    /// Collection statistics from elsewhere (e.g. a
    /// [`crate::twostage::GlobalStatsFile`] summed over shards searched
    /// elsewhere); `None`: the sum over `shards` ([`GlobalStats`]).
    /// Statistics recomputed over a selection ([`StatsMode::Filtered`])
    /// need every shard at hand, so they cannot be combined with it.
    pub global: Option<&'a dyn CollectionStats>,
    /// Hits per topic and run.
    pub hits: usize,
}

impl QueryPlan<'_> {
    /// Checks every run's BM25 parameters, and that statistics from
    /// elsewhere are not combined with filtered statistics when the batch
    /// has `selections` selections.
    fn check(&self, selections: usize) -> Result<()> {
        for v in self.variants {
            v.model().validate()?;
            if v.sdm && v.qld.is_some() {
                return Err(Error::InvalidParameter {
                    name: "model",
                    expected: "sdm with BM25 parameters, not with query likelihood",
                    got: format!("run {} with sdm and qld", v.tag),
                });
            }
        }
        if self.variants.iter().any(|v| v.sdm) {
            crate::bm25::require_positions(self.shards, "--sdm")?;
        }
        if self.global.is_some() && self.stats_mode == StatsMode::Filtered && selections > 0 {
            return Err(Error::InvalidParameter {
                name: "stats",
                expected: "full statistics with a global statistics file",
                got: "filtered".into(),
            });
        }
        Ok(())
    }
}

/// Runs the topics of `queries` for every run of `plan`, with the runs'
/// selections taken from `selections`. Returns one result list per run,
/// in the order of `plan.variants`. Each topic is searched with at most
/// `queries.max_terms` unique analysed terms ([`crate::queries`]).
pub fn run_batch(
    plan: &QueryPlan<'_>,
    queries: &TopicQueries<'_>,
    selections: &[DocSelection],
) -> Result<Vec<RunResults>> {
    run_batch_phrases(plan, queries, selections, Phrases::Ignore)
}

/// [`run_batch`], with the topics' quoted phrases searched as `phrases`
/// says. With [`Phrases::Exact`], a topic with a quoted phrase of two or
/// more terms needs an index with positions ([`crate::Error::IndexLacks`],
/// naming the topic and the phrase, otherwise).
pub fn run_batch_phrases(
    plan: &QueryPlan<'_>,
    queries: &TopicQueries<'_>,
    selections: &[DocSelection],
    phrases: Phrases,
) -> Result<Vec<RunResults>> {
    plan.check(selections.len())?;
    let analysed = queries.analyse_full();
    if phrases == Phrases::Exact {
        check_phrases(plan.shards, &analysed)?;
    }
    let subsets = select_all(plan.shards, selections)?;
    search_analysed(plan, &analysed, &subsets, phrases)
}

/// Refuses quoted phrases (the first, with its topic) when some shard has
/// no positions.
fn check_phrases(shards: &[Shard], analysed: &[(String, AnalysedQuery)]) -> Result<()> {
    let Some((id, q)) = analysed.iter().find(|(_, q)| !q.phrases.is_empty()) else {
        return Ok(());
    };
    let words: Vec<&str> = q.phrases[0].iter().map(|(t, _)| t.as_str()).collect();
    let needed_by = format!(
        "the quoted phrase [{}] of topic {id} (give --phrases ignore to search quotes as plain words)",
        words.join(" ")
    );
    crate::bm25::require_positions(shards, &needed_by)
}

/// [`run_batch`] with the selections already turned into bitmaps
/// ([`select_all`]): the runs of `plan` name their selection by its index
/// in `subsets`.
pub fn run_batch_on(
    plan: &QueryPlan<'_>,
    queries: &TopicQueries<'_>,
    subsets: &[Subset],
) -> Result<Vec<RunResults>> {
    search_analysed(plan, &queries.analyse_full(), subsets, Phrases::Ignore)
}

/// Every analysed topic searched for every run of `plan`, topics in
/// parallel, the results in topic order.
fn search_analysed(
    plan: &QueryPlan<'_>,
    analysed: &[(String, AnalysedQuery)],
    subsets: &[Subset],
    phrases: Phrases,
) -> Result<Vec<RunResults>> {
    let prepared = Prepared::new(*plan, subsets)?;
    let per_topic: Vec<Vec<Vec<Hit>>> = analysed
        .par_iter()
        .map(|(_, query)| prepared.search_query(query, phrases))
        .collect::<Result<_>>()?;
    let mut out: Vec<RunResults> = vec![Vec::with_capacity(analysed.len()); plan.variants.len()];
    for ((id, _), results) in analysed.iter().zip(per_topic) {
        for (slot, hits) in out.iter_mut().zip(results) {
            slot.push((id.clone(), hits));
        }
    }
    Ok(out)
}

/// A batch ready to search topic by topic: its bitmaps, its statistics
/// (global, or per selection), its runs. [`run_batch_on`] searches every
/// topic with it; a caller that consumes results as they come (a sweep,
/// evaluating and writing each topic's results at once) calls
/// [`Prepared::search`] per topic.
pub struct Prepared<'a> {
    plan: QueryPlan<'a>,
    subsets: &'a [Subset],
    summed: GlobalStats<'a>,
    filtered: Option<SubsetFamily<'a>>,
    /// Which selections each document is in (when some run has one).
    membership: Option<Membership>,
}

impl<'a> Prepared<'a> {
    /// Checks the runs of `plan` (parameters, selection indexes into
    /// `subsets`, statistics mode) and computes the statistics; see
    /// [`QueryPlan::global`] and [`QueryPlan::stats_mode`].
    pub fn new(plan: QueryPlan<'a>, subsets: &'a [Subset]) -> Result<Prepared<'a>> {
        for v in plan.variants {
            v.model().validate()?;
            if let Some(i) = v.selection
                && i >= subsets.len()
            {
                return Err(Error::InvalidParameter {
                    name: "selection",
                    expected: "the index of a selection of the batch",
                    got: i.to_string(),
                });
            }
        }
        plan.check(subsets.len())?;
        let filtered = match plan.stats_mode {
            StatsMode::Full => None,
            StatsMode::Filtered => Some(SubsetFamily::new(plan.shards, subsets)?),
        };
        let membership = if plan.variants.iter().any(|v| v.selection.is_some()) {
            Membership::new(plan.shards, subsets)
        } else {
            None
        };
        Ok(Prepared {
            plan,
            subsets,
            summed: GlobalStats::new(plan.shards),
            filtered,
            membership,
        })
    }

    /// The statistics of every document: from elsewhere, or summed over
    /// the shards.
    fn global(&self) -> &dyn CollectionStats {
        match self.plan.global {
            Some(g) => g,
            None => &self.summed,
        }
    }

    /// Run `v`'s statistics recomputed over its selection, when the plan
    /// asks for filtered statistics and the run has a selection.
    fn member(&self, v: usize) -> Option<FamilyMember<'_, 'a>> {
        Some(
            self.filtered
                .as_ref()?
                .member(self.plan.variants[v].selection?),
        )
    }

    /// Calls `f` with run `v`'s statistics (see [`QueryPlan::stats_mode`])
    /// and its selection (`None`: every document).
    pub fn with_run<R>(
        &self,
        v: usize,
        f: impl FnOnce(&dyn CollectionStats, Option<&Subset>) -> R,
    ) -> R {
        let subset = self.plan.variants[v].selection.map(|s| &self.subsets[s]);
        match self.member(v) {
            Some(m) => f(&m, subset),
            None => f(self.global(), subset),
        }
    }

    /// The top hits of `query` for every run, in run order: the BM25 runs
    /// in one pass over the postings ([`crate::bm25::search`]), the other
    /// models in another ([`crate::weighted::search_weighted`]). A bag of
    /// words has no token order: a plan with an SDM run is refused (see
    /// [`Prepared::search_query`]).
    pub fn search(&self, query: &BagOfWords) -> Result<Vec<Vec<Hit>>> {
        if let Some(v) = self.plan.variants.iter().find(|v| v.sdm) {
            return Err(Error::InvalidParameter {
                name: "model",
                expected: "bm25 or qld runs for a search by bag of words (sdm needs the query's tokens in order)",
                got: format!("sdm run {}", v.tag),
            });
        }
        self.search_bag(query, &[])
    }

    /// The top hits of `query` for every run, in run order: SDM runs and,
    /// for a query with quoted phrases searched as phrases, BM25 runs by
    /// [`crate::sdm::search_positional`], the others as
    /// [`Prepared::search`]. A quoted phrase searched as a phrase in a QLD
    /// run is refused.
    pub fn search_query(&self, query: &AnalysedQuery, phrases: Phrases) -> Result<Vec<Vec<Hit>>> {
        let variants = self.plan.variants;
        let with_phrases = phrases == Phrases::Exact && !query.phrases.is_empty();
        if with_phrases && let Some(v) = variants.iter().find(|v| v.qld.is_some()) {
            return Err(Error::InvalidParameter {
                name: "phrases",
                expected: "BM25 or SDM runs for a topic with a quoted phrase (or --phrases ignore)",
                got: format!(
                    "query-likelihood run {} for the query {:?}",
                    v.tag, query.tokens
                ),
            });
        }
        let positional: Vec<usize> = (0..variants.len())
            .filter(|&i| variants[i].sdm || (with_phrases && variants[i].qld.is_none()))
            .collect();
        let mut out = self.search_bag(&query.bag, &positional)?;
        let members: Vec<Option<FamilyMember<'_, 'a>>> =
            (0..variants.len()).map(|v| self.member(v)).collect();
        let (sdm, bag): (Vec<usize>, Vec<usize>) =
            positional.into_iter().partition(|&i| variants[i].sdm);
        let sdm_query = PositionalQuery::sdm(&query.tokens, SdmWeights::ANSERINI);
        let bag_query = PositionalQuery::bag_with_phrases(&query.bag, &query.phrases);
        for (runs, q) in [(sdm, &sdm_query), (bag, &bag_query)] {
            if runs.is_empty() {
                continue;
            }
            let vs: Vec<PositionalVariant<'_>> = runs
                .iter()
                .map(|&i| PositionalVariant {
                    params: variants[i].params,
                    stats: match &members[i] {
                        Some(m) => m as &dyn CollectionStats,
                        None => self.global(),
                    },
                    subset: variants[i].selection.map(|s| &self.subsets[s]),
                })
                .collect();
            let hits =
                search_positional(self.plan.shards, self.plan.field, q, &vs, self.plan.hits)?;
            for (&i, h) in runs.iter().zip(hits) {
                out[i] = h;
            }
        }
        Ok(out)
    }

    /// [`Prepared::search`] without the SDM check, the runs of `skip` left
    /// empty (searched elsewhere).
    fn search_bag(&self, query: &BagOfWords, skip: &[usize]) -> Result<Vec<Vec<Hit>>> {
        let variants = self.plan.variants;
        let members: Vec<Option<FamilyMember<'_, 'a>>> =
            (0..variants.len()).map(|v| self.member(v)).collect();
        let stats_of: Vec<&dyn CollectionStats> = members
            .iter()
            .map(|m| match m {
                Some(m) => m as &dyn CollectionStats,
                None => self.global(),
            })
            .collect();
        let (bm25, other): (Vec<usize>, Vec<usize>) = (0..variants.len())
            .filter(|i| !skip.contains(i))
            .partition(|&i| variants[i].qld.is_none());
        let mut out: Vec<Vec<Hit>> = vec![Vec::new(); variants.len()];
        if !bm25.is_empty() {
            let vs: Vec<Variant<'_>> = bm25
                .iter()
                .map(|&i| Variant {
                    params: variants[i].params,
                    stats: stats_of[i],
                    subset: variants[i].selection.map(|s| &self.subsets[s]),
                })
                .collect();
            // Each variant's subset is `subsets[selection]`, from which the
            // membership was built: `search_with`'s condition holds.
            let selection_of: Vec<Option<usize>> =
                bm25.iter().map(|&i| variants[i].selection).collect();
            let selections = self
                .membership
                .as_ref()
                .map(|m| (m, selection_of.as_slice()));
            let hits = search_with(
                self.plan.shards,
                self.plan.field,
                query,
                &vs,
                self.plan.hits,
                selections,
            )?;
            for (&i, h) in bm25.iter().zip(hits) {
                out[i] = h;
            }
        }
        if !other.is_empty() {
            let vs: Vec<ModelVariant<'_>> = other
                .iter()
                .map(|&i| ModelVariant {
                    model: variants[i].model(),
                    stats: stats_of[i],
                    subset: variants[i].selection.map(|s| &self.subsets[s]),
                })
                .collect();
            let weighted = WeightedQuery::from_bag(query);
            let hits = search_weighted(
                self.plan.shards,
                self.plan.field,
                &weighted,
                &vs,
                self.plan.hits,
            )?;
            for (&i, h) in other.iter().zip(hits) {
                out[i] = h;
            }
        }
        Ok(out)
    }
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
