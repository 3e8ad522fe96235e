//! BM25 with any k1 and b, over one or many tantivy indexes.
//!
//! tantivy's own BM25 hard-codes k1 = 1.2 and b = 0.75. This module scores
//! postings itself, so any parameters work, several parameter settings and
//! document subsets can be scored in **one pass** over the postings, and the
//! collection statistics can come from anywhere that implements tantivy's
//! [`Bm25StatisticsProvider`]: one index, the sum over many shards (global
//! statistics), or only the documents a filter keeps.
//!
//! ## The exact formula
//!
//! For a query with unique analysed terms `t` occurring `qtf(t)` times in
//! the query, a document `d` scores
//!
//! ```text
//! score(d) = Σ_t  qtf(t) · idf(t) · tf(t,d) / (tf(t,d) + k1 · (1 − b + b · dl(d) / avgdl))
//! idf(t)   = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//! avgdl    = total_num_tokens / N
//! ```
//!
//! where `N`, `total_num_tokens` and `df` come from the statistics provider
//! and `dl(d)` is tantivy's fieldnorm of `d` (its field length, quantised to
//! one byte exactly as tantivy's own scorer sees it). Everything is computed
//! in `f32`, terms summed in query order.
//!
//! This is Lucene's BM25 (since Lucene 8, and so Anserini's): tantivy
//! multiplies every score by the constant `k1 + 1`, which never changes a
//! ranking. With `k1 = 1.2, b = 0.75` the ranking equals tantivy's own
//! (tested in `tests::same_ranking_as_tantivy`). Query-term repetition is
//! counted the way Anserini's bag-of-words query does it (`qtf` as a boost).
//!
//! ## Ranking
//!
//! Hits are ordered by score, descending, then by docid, **descending** by
//! byte comparison: the order in which `trec_eval` reads a run. The cut at
//! `k` happens after that order is applied, so which of several tied
//! documents survive the cut is deterministic, whatever the segment layout
//! or thread count.

use std::cmp::Ordering;

use std::sync::Arc;

use roaring::RoaringBitmap;
use sieve_format::bounds::SegmentBounds;
use sieve_format::schema::{Fields, TextField};
use tantivy::columnar::StrColumn;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::Field;
use tantivy::{Score, Searcher, SegmentReader, Term};

use crate::{Error, Result};

mod membership;
mod postings;
mod segment;
pub(crate) mod topk;
pub use membership::{MAX_SELECTIONS, Membership};
use segment::{SegmentInput, WindowArrays, score_segment};
use topk::{Pool, SegmentNames, TopK};

/// BM25 parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Params {
    /// Term-frequency saturation, `k1 >= 0`.
    pub k1: f32,
    /// Length normalisation, `0 <= b <= 1`.
    pub b: f32,
}

impl Bm25Params {
    /// Anserini's defaults (Trotman et al. 2012 recommend them too).
    pub const ANSERINI: Bm25Params = Bm25Params { k1: 0.9, b: 0.4 };

    /// Checks the ranges, so that no run is produced from nonsense values.
    pub fn validate(self) -> Result<Self> {
        if !(self.k1.is_finite() && self.k1 >= 0.0) {
            return Err(Error::InvalidParameter {
                name: "k1",
                expected: "a finite number >= 0",
                got: self.k1.to_string(),
            });
        }
        if !(self.b.is_finite() && (0.0..=1.0).contains(&self.b)) {
            return Err(Error::InvalidParameter {
                name: "b",
                expected: "a number in [0, 1]",
                got: self.b.to_string(),
            });
        }
        Ok(self)
    }
}

/// A query after analysis: unique terms in first-occurrence order, with
/// their query frequencies.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BagOfWords {
    /// `(term text, qtf)`.
    pub terms: Vec<(String, u32)>,
}

impl BagOfWords {
    /// Collapses analysed query terms (duplicates kept) into a bag.
    pub fn from_terms<I: IntoIterator<Item = String>>(terms: I) -> BagOfWords {
        Self::capped(terms, usize::MAX).0
    }

    /// Collapses analysed terms (duplicates kept) into a bag of at most
    /// `max_terms` unique terms, the first in query order, each with its
    /// full count; returns the bag and the number of unique terms dropped.
    /// Linear in the number of terms.
    pub fn capped<I: IntoIterator<Item = String>>(
        terms: I,
        max_terms: usize,
    ) -> (BagOfWords, usize) {
        let mut out: Vec<(String, u32)> = Vec::new();
        // Each term seen: its slot in `out`, or None when it was dropped.
        // foldhash: a topic may hold a million terms (SipHash was a third
        // of the time of such a topic).
        let mut slot: foldhash::HashMap<String, Option<usize>> = foldhash::HashMapExt::new();
        for t in terms {
            match slot.get(&t) {
                Some(Some(i)) => out[*i].1 += 1,
                Some(None) => {}
                None if out.len() < max_terms => {
                    slot.insert(t.clone(), Some(out.len()));
                    out.push((t, 1));
                }
                None => {
                    slot.insert(t, None);
                }
            }
        }
        let dropped = slot.len() - out.len();
        (BagOfWords { terms: out }, dropped)
    }

    /// True when analysis left no terms (e.g. a query of stopwords only).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// One searchable index (a shard, or the whole collection).
#[derive(Clone)]
pub struct Shard {
    /// Name for messages (usually the index directory).
    pub name: String,
    /// The index directory (for its sidecar files; empty for an index in
    /// memory).
    pub dir: std::path::PathBuf,
    /// A searcher over the index.
    pub searcher: Searcher,
    /// The index's field handles.
    pub fields: Fields,
    /// Block-max bounds per segment (in `searcher.segment_readers()`
    /// order; see [`sieve_format::bounds`]): `None` for a segment without
    /// them, which is scored without block-max pruning. Bounds never change
    /// results, only how many postings are read; an empty vector turns
    /// block-max pruning off for the whole shard.
    pub bounds: Vec<Option<Arc<SegmentBounds>>>,
    /// The `docid` fast field of each segment, opened by the first search
    /// and kept for the next ones (opening one reads its dictionary's
    /// index: about 0.1 ms per segment of 200k documents, per query).
    /// Start with `Default::default()`.
    pub docid_columns: DocidColumns,
    /// The exact token totals of `body` and `title` when tantivy's are
    /// not exact (an index some later copies of a docid were removed from:
    /// see [`sieve_format::unique::check_unique`]); `None` otherwise.
    pub token_totals: Option<[u64; 2]>,
}

/// Refuses `shards` unless every one has term positions, naming the
/// first without them, the build flag, and `needed_by` (what asked).
pub fn require_positions(shards: &[Shard], needed_by: &str) -> crate::Result<()> {
    match shards.iter().find(|s| !s.contents().positions) {
        Some(s) => Err(crate::Error::IndexLacks {
            index: s.name.clone(),
            what: "term positions",
            needed_by: needed_by.to_string(),
            flag: "--positions",
        }),
        None => Ok(()),
    }
}

/// The `docid` columns of a shard's segments, opened once (see
/// [`Shard::docid_columns`]).
#[derive(Clone, Default)]
pub struct DocidColumns(std::sync::OnceLock<Vec<StrColumn>>);

impl Shard {
    /// What the index holds beyond a bag of words (read from its schema).
    pub fn contents(&self) -> sieve_format::schema::IndexContents {
        sieve_format::schema::IndexContents::of_schema(self.searcher.schema())
    }

    /// How many of this shard's segments have no block-max bounds.
    pub fn segments_without_bounds(&self) -> usize {
        let n = self.searcher.segment_readers().len();
        n - self.bounds.iter().take(n).filter(|b| b.is_some()).count()
    }

    /// The `docid` fast field of every segment, in
    /// `searcher.segment_readers()` order: opened on the first call and
    /// kept.
    pub fn docid_columns(&self) -> Result<&[StrColumn]> {
        if let Some(c) = self.docid_columns.0.get() {
            return Ok(c);
        }
        let columns = self
            .searcher
            .segment_readers()
            .iter()
            .map(|seg| self.docid_column(seg))
            .collect::<Result<Vec<_>>>()?;
        Ok(self.docid_columns.0.get_or_init(|| columns))
    }

    /// The `docid` fast field of one of this shard's segments.
    pub fn docid_column(&self, segment: &SegmentReader) -> Result<StrColumn> {
        segment
            .fast_fields()
            .str(sieve_format::schema::DOCID)?
            .ok_or_else(|| Error::Index {
                index: self.name.clone(),
                detail: "docid is not a fast field".into(),
            })
    }
}

/// The documents a variant may return, per shard and per segment: `None`
/// keeps every live document; `Some(bitmap)` keeps the live documents
/// whose ids are in the bitmap.
pub type Subset = Vec<Vec<Option<RoaringBitmap>>>;

/// How one variant is scored: parameters, collection statistics, and which
/// documents it may return.
pub struct Variant<'a> {
    /// BM25 parameters.
    pub params: Bm25Params,
    /// Collection statistics (`N`, total tokens, `df`).
    pub stats: &'a dyn Bm25StatisticsProvider,
    /// Which documents may be returned, indexed `[shard][segment]`; `None`
    /// keeps every live document of every shard.
    pub subset: Option<&'a Subset>,
}

/// One ranked result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The document's `docid` field.
    pub docid: String,
    /// Its BM25 score.
    pub score: Score,
}

/// The trec_eval order: score descending, then docid descending.
pub fn trec_order(a: &Hit, b: &Hit) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| b.docid.as_bytes().cmp(a.docid.as_bytes()))
}

/// Per-variant weights for one query.
struct Weights {
    /// `boost · idf` per query term (the boost of a bag of words is the
    /// query frequency `qtf`; `boost` alone with [`Idf::Unit`]; 0 where
    /// the term is absent everywhere).
    term_weight: Vec<Score>,
    /// `k1 · (1 − b + b · dl / avgdl)` per fieldnorm id.
    norm: [Score; 256],
}

impl Weights {
    fn new(
        variant: &Variant<'_>,
        field: Field,
        terms: &[(Term, Score)],
        idf_of: Idf,
    ) -> Result<Option<Weights>> {
        let n = variant.stats.total_num_docs()?;
        if n == 0 {
            return Ok(None);
        }
        let total_tokens = variant.stats.total_num_tokens(field)?;
        let avgdl = total_tokens as Score / n as Score;
        let Bm25Params { k1, b } = variant.params;
        let mut norm = [0.0; 256];
        for (id, slot) in norm.iter_mut().enumerate() {
            let dl = FieldNormReader::id_to_fieldnorm(id as u8) as Score;
            // An empty collection field (avgdl = 0) only has dl = 0 documents.
            let ratio = if avgdl > 0.0 { dl / avgdl } else { 0.0 };
            *slot = k1 * (1.0 - b + b * ratio);
        }
        let mut term_weight = Vec::with_capacity(terms.len());
        for (term, boost) in terms {
            let df = variant.stats.doc_freq(term)?;
            term_weight.push(match (df, idf_of) {
                (0, _) => 0.0,
                (_, Idf::Lucene) => *boost * idf(df, n),
                (_, Idf::Unit) => *boost,
            });
        }
        Ok(Some(Weights { term_weight, norm }))
    }
}

impl Weights {
    /// True when `self` and `other` are equal bit for bit, so that they
    /// give every document the same score, computed the same way.
    fn same(&self, other: &Weights) -> bool {
        let bits = |a: &[Score], b: &[Score]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        };
        bits(&self.term_weight, &other.term_weight) && bits(&self.norm, &other.norm)
    }
}

/// The variants of one query grouped by their weights.
///
/// Variants whose [`Weights`] are equal bit for bit (same `k1` and `b`, and
/// statistics that give the same `N`, average length and `df` of every
/// query term: every setting of a threshold sweep with full statistics,
/// whatever its subset) give every document exactly the same score. The
/// scorer computes that score once per group and document, and the
/// bounds (term, block-max, MaxScore's partial sums) over the groups'
/// weights only; which documents a variant may return, its threshold and
/// its heap stay its own.
struct Groups {
    /// The distinct weights, in the order of their first variant.
    weights: Vec<Weights>,
    /// Per variant, its group; `None` for a variant that scores nothing
    /// (its statistics count no document).
    of: Vec<Option<usize>>,
}

impl Groups {
    fn new(weights: Vec<Option<Weights>>) -> Groups {
        let mut groups = Groups {
            weights: Vec::new(),
            of: Vec::with_capacity(weights.len()),
        };
        for w in weights {
            let g = w.map(|w| match groups.weights.iter().position(|x| x.same(&w)) {
                Some(g) => g,
                None => {
                    groups.weights.push(w);
                    groups.weights.len() - 1
                }
            });
            groups.of.push(g);
        }
        groups
    }
}

/// The idf factor of each term's weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Idf {
    /// [`idf`] (BM25).
    Lucene,
    /// 1 (BM25-PRF's second search, [`crate::weighted::Model::Bm25UnitIdf`]).
    Unit,
}

/// `ln(1 + (N − df + 0.5) / (df + 0.5))`, as tantivy and Lucene compute it.
pub fn idf(doc_freq: u64, num_docs: u64) -> Score {
    let df = doc_freq.min(num_docs);
    let x = ((num_docs - df) as Score + 0.5) / (df as Score + 0.5);
    (1.0 + x).ln()
}

/// Scores `query` against every shard for every variant in one pass over
/// the postings, and returns each variant's top `k` in trec_eval order.
pub fn search(
    shards: &[Shard],
    field: TextField,
    query: &BagOfWords,
    variants: &[Variant<'_>],
    k: usize,
) -> Result<Vec<Vec<Hit>>> {
    search_with(shards, field, query, variants, k, None)
}

/// A [`Membership`] of the selections of a batch, and each variant's
/// selection in it (`None`: the variant keeps every document).
pub(crate) type Selections<'a> = (&'a Membership, &'a [Option<usize>]);

/// [`search`], with the variants' subsets read from `selections` instead
/// of their bitmaps. The caller guarantees that variant `v` has
/// `subset: Some(&subsets[i])` exactly when `selections.1[v] == Some(i)`,
/// where `subsets` built `selections.0`.
pub(crate) fn search_with(
    shards: &[Shard],
    field: TextField,
    query: &BagOfWords,
    variants: &[Variant<'_>],
    k: usize,
    selections: Option<Selections<'_>>,
) -> Result<Vec<Vec<Hit>>> {
    let terms: Vec<(&str, Score)> = query
        .terms
        .iter()
        .map(|(t, qtf)| (t.as_str(), *qtf as Score))
        .collect();
    let query = BoostedTerms {
        terms: &terms,
        idf: Idf::Lucene,
    };
    search_boosted(shards, field, &query, variants, k, selections)
}

/// Distinct analysed terms, each with a boost (a finite weight > 0) that
/// multiplies its BM25 score, and the idf factor of their weights.
pub(crate) struct BoostedTerms<'a> {
    /// `(term text, boost)`, in query order.
    pub terms: &'a [(&'a str, Score)],
    /// The idf factor.
    pub idf: Idf,
}

/// [`search_with`] for any boosts ([`BoostedTerms`]): a bag of words
/// boosts each term by its query frequency; a feedback query
/// ([`crate::weighted::search_weighted`]) by its expansion weight. The
/// bounds of the block-max and MaxScore pruning hold for boosts >= 0.
pub(crate) fn search_boosted(
    shards: &[Shard],
    field: TextField,
    query: &BoostedTerms<'_>,
    variants: &[Variant<'_>],
    k: usize,
    selections: Option<Selections<'_>>,
) -> Result<Vec<Vec<Hit>>> {
    if query.terms.is_empty() || shards.is_empty() || k == 0 {
        return Ok(vec![Vec::new(); variants.len()]);
    }
    // Terms are built from the first shard's field handle; every shard has
    // the same schema (checked when the shards are opened).
    let field_handle = shards[0].fields.text(field);
    let terms: Vec<(Term, Score)> = query
        .terms
        .iter()
        .map(|(t, boost)| (Term::from_field_text(field_handle, t), *boost))
        .collect();
    let weights: Vec<Option<Weights>> = variants
        .iter()
        .map(|v| Weights::new(v, field_handle, &terms, query.idf))
        .collect::<Result<_>>()?;
    let groups = Groups::new(weights);

    let mut pools: Vec<Pool> = variants.iter().map(|_| Pool::new(k)).collect();
    // Per variant, the bit of its selection in the membership words (0: it
    // keeps every document).
    let need: Vec<u64> = selections.map_or_else(Vec::new, |(_, of)| {
        of.iter().map(|s| s.map_or(0, |i| 1u64 << i)).collect()
    });
    // Every segment searched, numbered in order, with where its docids are.
    let mut segments: Vec<SegmentNames<'_>> = Vec::new();
    let mut arrays = WindowArrays::default();
    for (shard_idx, shard) in shards.iter().enumerate() {
        let field_handle = shard.fields.text(field);
        for (seg_idx, segment) in shard.searcher.segment_readers().iter().enumerate() {
            let subsets: Vec<Option<&RoaringBitmap>> = variants
                .iter()
                .map(|v| v.subset.and_then(|s| s[shard_idx][seg_idx].as_ref()))
                .collect();
            let mut heaps: Vec<TopK> = pools.iter().map(|p| TopK::new(k, p.floor())).collect();
            let docids = shard.docid_columns()?[seg_idx].clone();
            let bounds = shard.bounds.get(seg_idx).and_then(|b| b.as_deref());
            let masks = selections
                .and_then(|(m, _)| m.masks(shard_idx, seg_idx))
                .map(|m| (m, need.as_slice()));
            let seg = SegmentInput {
                segment,
                field: field_handle,
                field_name: field.name(),
                bounds,
                index: &shard.name,
                docids: &docids,
                subsets: &subsets,
                masks,
            };
            score_segment(&seg, &terms, &groups, &mut heaps, &mut arrays)?;
            let number = segments.len() as u32;
            for (pool, heap) in pools.iter_mut().zip(heaps) {
                pool.add(number, heap);
            }
            segments.push(SegmentNames {
                index: &shard.name,
                column: docids,
                table: bounds,
            });
        }
    }
    topk::finish(pools, &segments)
}

#[cfg(test)]
mod blockmax_tests;
#[cfg(test)]
pub(crate) mod tests;
