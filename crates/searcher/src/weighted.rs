//! Weighted-term queries: any set of analysed terms, each with a weight,
//! scored by a per-term retrieval model (BM25, or query likelihood with
//! Dirichlet smoothing), exhaustively document at a time.
//!
//! This is the scorer of every model other than plain BM25 (which keeps the
//! block-max path of [`crate::bm25`]), and the one query expansion reuses:
//! an expanded query is a [`WeightedQuery`] whose weights are Lucene
//! `BoostQuery` boosts.
//!
//! ## The formulas
//!
//! A document matching at least one term scores the sum, over the terms it
//! contains, of the term's score; a document matching none is not scored
//! (Lucene's disjunction of `SHOULD` clauses). Each term score is computed
//! as Lucene computes it and rounded to `f32`; for QLD the sum is taken in
//! `f64` and rounded to `f32`, as Lucene's disjunction scorers do; for BM25
//! in `f32` in query order, as [`crate::bm25`] sums (so the two BM25 paths
//! give equal scores).
//!
//! * **BM25** ([`Bm25Params`]): `w · idf(t) · tf / (tf + k1 · (1 − b + b ·
//!   dl / avgdl))` in `f32`, as [`crate::bm25`] computes it (with `w` the
//!   query frequency the two paths give equal scores).
//! * **QLD** ([`QldParams`], Lucene's `LMDirichletSimilarity`, Anserini's
//!   `-qld`): `max(0, w · (ln(1 + tf / (mu · P(t|C))) + ln(mu / (dl + mu))))`
//!   in `f64`, with `P(t|C) = (ttf(t) + 1) / (T + 1)` (Lucene's
//!   `DefaultCollectionModel`; `ttf` the term's total frequency, `T` the
//!   field's total token count, both from [`CollectionStats`]), `mu` an
//!   `f32` widened.
//!
//! `dl` is the document's field length as tantivy's fieldnorm quantises it
//! (Lucene's `SmallFloat.intToByte4`, so Lucene's `LENGTH_TABLE`).
//!
//! ## Ranking
//!
//! As [`crate::bm25`]: score descending, then docid descending (byte
//! order), the cut at `k` after that order, through the same top-k pools.

use roaring::RoaringBitmap;
use sieve_format::schema::TextField;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, Term};

use crate::bm25::topk::{Candidate, Pool, SegmentNames, TopK, finish};
use crate::bm25::{BagOfWords, Bm25Params, Hit, Shard, Subset, idf};
use crate::stats::CollectionStats;
use crate::{Error, Result};

/// Anserini's default Dirichlet prior (`-qld.mu`).
pub const DEFAULT_MU: f32 = 1000.0;

/// Query likelihood with Dirichlet smoothing: the prior `mu`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QldParams {
    /// The Dirichlet prior, `mu > 0`.
    pub mu: f32,
}

impl QldParams {
    /// Checks the range, so that no run is produced from nonsense values.
    pub fn validate(self) -> Result<Self> {
        if !(self.mu.is_finite() && self.mu > 0.0) {
            return Err(Error::InvalidParameter {
                name: "mu",
                expected: "a finite number > 0",
                got: self.mu.to_string(),
            });
        }
        Ok(self)
    }
}

/// The retrieval model that scores each term of a query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Model {
    /// BM25 (Lucene's, as [`crate::bm25`]).
    Bm25(Bm25Params),
    /// Query likelihood with Dirichlet smoothing (Lucene's
    /// `LMDirichletSimilarity`).
    Qld(QldParams),
    /// BM25 with every idf 1: `w · tf / (tf + k1 · (1 − b + b · dl /
    /// avgdl))`, the second search of BM25-PRF ([`crate::feedback`]).
    Bm25UnitIdf(Bm25Params),
}

impl Model {
    /// Checks the model's parameters.
    pub fn validate(self) -> Result<Self> {
        match self {
            Model::Bm25(p) => p.validate().map(Model::Bm25),
            Model::Qld(p) => p.validate().map(Model::Qld),
            Model::Bm25UnitIdf(p) => p.validate().map(Model::Bm25UnitIdf),
        }
    }
}

/// One analysed term of a weighted query.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedTerm {
    /// The analysed term.
    pub text: String,
    /// Its weight (a Lucene `BoostQuery` boost): the query frequency for a
    /// bag of words, the expansion weight for a feedback query.
    pub weight: f32,
}

/// A query of distinct analysed terms with weights.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WeightedQuery {
    /// The terms, in query order (the order does not change scores).
    pub terms: Vec<WeightedTerm>,
}

impl WeightedQuery {
    /// Anserini's bag-of-words query: each distinct term weighted by its
    /// query frequency.
    pub fn from_bag(bag: &BagOfWords) -> WeightedQuery {
        WeightedQuery {
            terms: bag
                .terms
                .iter()
                .map(|(t, qtf)| WeightedTerm {
                    text: t.clone(),
                    weight: *qtf as f32,
                })
                .collect(),
        }
    }
}

/// How one run of a weighted search is scored.
pub struct ModelVariant<'a> {
    /// The model.
    pub model: Model,
    /// Collection statistics.
    pub stats: &'a dyn CollectionStats,
    /// Which documents may be returned, `[shard][segment]`; `None` keeps
    /// every live document.
    pub subset: Option<&'a Subset>,
}

/// One term's scorer for one variant: `score(tf, fieldnorm id)`.
enum TermScorer {
    /// The term occurs nowhere in the statistics: it scores nothing.
    Absent,
    /// `weight · tf / (tf + norm[id])`, in `f32`.
    Bm25 {
        weight: Score,
        norm: Box<[Score; 256]>,
    },
    /// `max(0, boost · (ln(1 + tf / mu_p) + len[id]))` in `f64`.
    Qld {
        boost: f64,
        mu_p: f64,
        len: Box<[f64; 256]>,
    },
}

impl TermScorer {
    #[inline]
    fn score(&self, tf: u32, id: u8) -> Score {
        match self {
            TermScorer::Absent => 0.0,
            TermScorer::Bm25 { weight, norm } => {
                let tf = tf as Score;
                weight * (tf / (tf + norm[id as usize]))
            }
            TermScorer::Qld { boost, mu_p, len } => {
                let s = boost * ((1.0 + f64::from(tf) / mu_p).ln() + len[id as usize]);
                if s > 0.0 { s as Score } else { 0.0 }
            }
        }
    }
}

/// BM25's length normalisation `k1 · (1 − b + b · dl / avgdl)` for every
/// fieldnorm id, in `f32`.
fn bm25_norm(Bm25Params { k1, b }: Bm25Params, n: u64, total_tokens: u64) -> Box<[Score; 256]> {
    let avgdl = if n > 0 {
        total_tokens as Score / n as Score
    } else {
        0.0
    };
    let mut norm = Box::new([0.0; 256]);
    for (id, slot) in norm.iter_mut().enumerate() {
        let dl = FieldNormReader::id_to_fieldnorm(id as u8) as Score;
        let ratio = if avgdl > 0.0 { dl / avgdl } else { 0.0 };
        *slot = k1 * (1.0 - b + b * ratio);
    }
    norm
}

/// The scorers of every term of `terms` for `variant`.
fn term_scorers(
    variant: &ModelVariant<'_>,
    field: Field,
    terms: &[(Term, f32)],
) -> Result<Vec<TermScorer>> {
    let stats = variant.stats;
    let n = stats.total_num_docs()?;
    let total_tokens = stats.total_num_tokens(field)?;
    let mut out = Vec::with_capacity(terms.len());
    match variant.model {
        Model::Bm25(params) => {
            let norm = bm25_norm(params, n, total_tokens);
            for (term, w) in terms {
                let df = stats.doc_freq(term)?;
                out.push(if df == 0 || n == 0 {
                    TermScorer::Absent
                } else {
                    TermScorer::Bm25 {
                        weight: w * idf(df, n),
                        norm: norm.clone(),
                    }
                });
            }
        }
        Model::Bm25UnitIdf(params) => {
            let norm = bm25_norm(params, n, total_tokens);
            for (term, w) in terms {
                let df = stats.doc_freq(term)?;
                out.push(if df == 0 || n == 0 {
                    TermScorer::Absent
                } else {
                    TermScorer::Bm25 {
                        weight: *w,
                        norm: norm.clone(),
                    }
                });
            }
        }
        Model::Qld(QldParams { mu }) => {
            let mu = f64::from(mu);
            let mut len = Box::new([0.0f64; 256]);
            for (id, slot) in len.iter_mut().enumerate() {
                let dl = f64::from(FieldNormReader::id_to_fieldnorm(id as u8));
                *slot = (mu / (dl + mu)).ln();
            }
            for (term, w) in terms {
                let ttf = stats.total_term_freq(term)?;
                out.push(if ttf == 0 {
                    TermScorer::Absent
                } else {
                    let p = (ttf as f64 + 1.0) / (total_tokens as f64 + 1.0);
                    TermScorer::Qld {
                        boost: f64::from(*w),
                        mu_p: mu * p,
                        len: len.clone(),
                    }
                });
            }
        }
    }
    Ok(out)
}

/// Scores `query` against every shard for every variant, exhaustively
/// (every posting of every query term), and returns each variant's top
/// `k` in trec_eval order.
pub fn search_weighted(
    shards: &[Shard],
    field: TextField,
    query: &WeightedQuery,
    variants: &[ModelVariant<'_>],
    k: usize,
) -> Result<Vec<Vec<Hit>>> {
    if query.terms.is_empty() || shards.is_empty() || k == 0 {
        return Ok(vec![Vec::new(); variants.len()]);
    }
    for v in variants {
        v.model.validate()?;
    }
    let handle = shards[0].fields.text(field);
    let terms: Vec<(Term, f32)> = query
        .terms
        .iter()
        .map(|t| (Term::from_field_text(handle, &t.text), t.weight))
        .collect();
    let scorers: Vec<Vec<TermScorer>> = variants
        .iter()
        .map(|v| term_scorers(v, handle, &terms))
        .collect::<Result<_>>()?;
    let f32_sums: Vec<bool> = variants
        .iter()
        .map(|v| matches!(v.model, Model::Bm25(_) | Model::Bm25UnitIdf(_)))
        .collect();
    let mut pools: Vec<Pool> = variants.iter().map(|_| Pool::new(k)).collect();
    let mut segments: Vec<SegmentNames<'_>> = Vec::new();
    for (shard_idx, shard) in shards.iter().enumerate() {
        for (seg_idx, segment) in shard.searcher.segment_readers().iter().enumerate() {
            let subsets: Vec<Option<&RoaringBitmap>> = variants
                .iter()
                .map(|v| v.subset.and_then(|s| s[shard_idx][seg_idx].as_ref()))
                .collect();
            let mut heaps: Vec<TopK> = pools.iter().map(|p| TopK::new(k, p.floor())).collect();
            let docids = shard.docid_columns()?[seg_idx].clone();
            let input = SegmentScoring {
                shard,
                segment,
                field: shard.fields.text(field),
                terms: &terms,
                scorers: &scorers,
                subsets: &subsets,
                f32_sums: &f32_sums,
                docids: &docids,
            };
            input.score(&mut heaps)?;
            let number = segments.len() as u32;
            for (pool, heap) in pools.iter_mut().zip(heaps) {
                pool.add(number, heap);
            }
            segments.push(SegmentNames {
                index: &shard.name,
                column: docids,
                table: shard.bounds.get(seg_idx).and_then(|b| b.as_deref()),
            });
        }
    }
    finish(pools, &segments)
}

/// What scoring one segment reads.
struct SegmentScoring<'s> {
    shard: &'s Shard,
    segment: &'s SegmentReader,
    field: Field,
    terms: &'s [(Term, f32)],
    /// `[variant][term]`.
    scorers: &'s [Vec<TermScorer>],
    /// Per variant, the segment's kept documents (`None`: all).
    subsets: &'s [Option<&'s RoaringBitmap>],
    /// Per variant, whether its term scores are summed in `f32` in query
    /// order (BM25, as [`crate::bm25`] sums them) rather than in `f64`.
    f32_sums: &'s [bool],
    docids: &'s tantivy::columnar::StrColumn,
}

impl SegmentScoring<'_> {
    /// Document at a time over the terms' postings: every document in some
    /// posting list is scored for every variant that may return it.
    fn score(&self, heaps: &mut [TopK]) -> Result<()> {
        let index_err = |detail: String| Error::Index {
            index: self.shard.name.clone(),
            detail,
        };
        let inverted = self.segment.inverted_index(self.field)?;
        let mut cursors: Vec<(usize, SegmentPostings)> = Vec::with_capacity(self.terms.len());
        for (i, (term, _)) in self.terms.iter().enumerate() {
            let postings = inverted
                .read_postings(term, IndexRecordOption::WithFreqs)
                .map_err(|e| index_err(format!("postings of {term:?}: {e}")))?;
            if let Some(p) = postings {
                cursors.push((i, p));
            }
        }
        let fieldnorms = self
            .segment
            .get_fieldnorms_reader(self.field)
            .map_err(|e| index_err(format!("fieldnorms: {e}")))?;
        let alive = self.segment.alive_bitset();
        let mut matched: Vec<(usize, u32)> = Vec::with_capacity(cursors.len());
        loop {
            let doc: DocId = cursors
                .iter()
                .map(|(_, p)| p.doc())
                .min()
                .unwrap_or(TERMINATED);
            if doc == TERMINATED {
                return Ok(());
            }
            matched.clear();
            for (i, p) in cursors.iter_mut() {
                if p.doc() == doc {
                    matched.push((*i, p.term_freq()));
                    p.advance();
                }
            }
            if alive.is_some_and(|a| !a.is_alive(doc)) {
                continue;
            }
            let id = fieldnorms.fieldnorm_id(doc);
            let mut ord: Option<u32> = None;
            for (v, heap) in heaps.iter_mut().enumerate() {
                if self.subsets[v].is_some_and(|b| !b.contains(doc)) {
                    continue;
                }
                let scorers = &self.scorers[v];
                let score = if self.f32_sums[v] {
                    matched
                        .iter()
                        .map(|&(t, tf)| scorers[t].score(tf, id))
                        .sum()
                } else {
                    let sum: f64 = matched
                        .iter()
                        .map(|&(t, tf)| f64::from(scorers[t].score(tf, id)))
                        .sum();
                    sum as Score
                };
                if heap.threshold().is_some_and(|t| score < t) {
                    continue;
                }
                let ord = *ord
                    .get_or_insert_with(|| self.docids.term_ords(doc).next().unwrap_or(0) as u32);
                heap.push(Candidate { score, ord });
            }
        }
    }
}

#[cfg(test)]
mod tests;
