//! Pseudo-relevance feedback: a topic's first-stage ranking turned into a
//! weighted query, searched again, as Anserini 1.7.1 does it with RM3,
//! BM25-PRF and Rocchio.
//!
//! # What a model reads and gives
//!
//! A model reads a [`FeedbackInput`]: the first-stage hits in rank order
//! with their scores, the analysed terms of a hit with their frequencies
//! (the document's term vector, stored at build time), and collection
//! statistics (document count, document frequency). It gives an
//! [`Expansion`]: terms with `f32` weights, and how the second search
//! scores them ([`Rescoring`]). The second search is over the whole
//! collection (or the run's selection), as deep as the run, with the
//! weights as Lucene `BoostQuery` boosts: each term's score times its
//! weight.
//!
//! * [`rm3`]: the relevance model of the top `fb_docs` documents (each
//!   document's `fb_terms` most frequent feedback terms, L1-normalised,
//!   weighted by its first-stage score), cut to `fb_terms` terms,
//!   L1-normalised, and interpolated with the query's L1-normalised term
//!   counts (`original_query_weight` on the query). Rescored with the
//!   first stage's model (BM25 or query likelihood).
//! * [`bm25prf`]: Robertson–Sparck Jones weights of the terms of the top
//!   `fb_docs` documents found in at least two of them, the `fb_terms`
//!   best by offer weight (weight times `ln` of that count), scaled by
//!   `new_term_weight`, and the query's own terms at weight 1. Rescored by
//!   BM25 with `k1`, `b` of its own and an idf of 1.
//! * [`rocchio`]: `alpha` times the L2-normalised query, plus `beta` times
//!   the mean of the top `top_fb_docs` documents' L2-normalised vectors
//!   (cut to `top_fb_terms`, L2-normalised), minus `gamma` times that of
//!   the bottom `bottom_fb_docs` documents of the first stage when
//!   `use_negative`; terms of weight `<= 0` dropped. Rescored with the
//!   first stage's model.
//!
//! # Rules sieve states
//!
//! * Feedback documents are the first stage's top hits in Anserini's
//!   order: score descending, then docid ascending ([`anserini_order`]),
//!   from a first stage [`DEFAULT_RERANK_CUTOFF`] deep (Anserini's
//!   `-rerankCutoff`; Rocchio's bottom documents are the last of those).
//!   With a document selection (a filter), the first stage is the
//!   filtered ranking, so feedback documents are kept documents.
//! * A topic whose first stage finds no document gets the model's query
//!   built from no document (RM3: the query terms at `original_query_weight`
//!   times their share; BM25-PRF: the query terms; Rocchio: `alpha` times
//!   the query vector). Its second search scores the same terms over the
//!   same documents, so it finds nothing either: the topic has no line in
//!   the run, like a topic without a searchable term.
//! * Feedback terms pass Anserini's filters: 2 to 20 UTF-16 code units,
//!   in at most 10% of the documents ([`vector::MAX_DF_RATIO`]); RM3 also
//!   `[a-z0-9]+` unless the filter is off; BM25-PRF `[a-z0-9]+`, not all
//!   digits, not a query term.
//! * Arithmetic is Anserini's: `f32` where its Java uses `float`, `f64`
//!   where it uses `double`, in the same order (documents in rank order).
//!   Where Java's result depends on a `HashMap`'s iteration order (the
//!   stable sort that breaks BM25-PRF's ties), that order is computed
//!   ([`vector::java_hash_order`]); elsewhere ties break by term text, as
//!   in Anserini. The result depends on nothing else: not the thread
//!   count, not the order of a term vector given.
//! * A relevance model whose weights sum to zero (every feedback score 0)
//!   adds no term; Anserini would divide by zero.

use std::fmt;

use crate::bm25::{Bm25Params, Hit};
use crate::{Error, Result};

pub mod bm25prf;
pub mod index;
pub mod rewrite;
pub mod rm3;
pub mod rocchio;
pub mod run;
pub mod spec;
pub mod staged;
pub mod vector;

#[cfg(test)]
mod tests;

pub use bm25prf::Bm25PrfParams;
pub use rm3::Rm3Params;
pub use rocchio::RocchioParams;
pub use spec::{FeedbackSpec, Method, PARAMETERS};

/// Anserini's `-rerankCutoff`: first-stage hits feedback may read.
pub const DEFAULT_RERANK_CUTOFF: usize = 50;

/// What a feedback model reads about one topic.
pub trait FeedbackInput {
    /// First-stage hits, in [`anserini_order`].
    fn hits(&self) -> usize;
    /// The first-stage score of the hit at `rank` (0-based).
    fn score(&self, rank: usize) -> f32;
    /// The analysed terms of the hit at `rank` with their frequencies, in
    /// any order.
    fn vector(&self, rank: usize) -> Result<Vec<(String, u32)>>;
    /// Documents in the collection the statistics describe.
    fn num_docs(&self) -> u64;
    /// Documents containing `term`.
    fn doc_freq(&self, term: &str) -> Result<u64>;
}

/// How the second search scores an [`Expansion`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rescoring {
    /// With the first stage's model and parameters.
    FirstStage,
    /// With BM25 of these parameters and an idf of 1 (BM25-PRF).
    Bm25UnitIdf(Bm25Params),
}

/// A feedback query: weighted terms (in byte order of the term, each
/// once) and how to score them.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion {
    /// `(term, weight)`.
    pub terms: Vec<(String, f32)>,
    /// The second search's scoring.
    pub rescoring: Rescoring,
}

impl Expansion {
    fn new(mut terms: Vec<(String, f32)>, rescoring: Rescoring) -> Expansion {
        terms.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        Expansion { terms, rescoring }
    }
}

impl fmt::Display for Expansion {
    /// `term^weight` pairs, weight descending then term: the form of
    /// Anserini's printed feedback query.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut v = self.terms.clone();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        for (i, (t, w)) in v.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{t}^{w}")?;
        }
        Ok(())
    }
}

/// One feedback model with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Feedback {
    /// RM3.
    Rm3(Rm3Params),
    /// BM25-PRF.
    Bm25Prf(Bm25PrfParams),
    /// Rocchio.
    Rocchio(RocchioParams),
}

impl Feedback {
    /// Checks the parameters (counts at least 1, weights finite and not
    /// negative, each in its range).
    pub fn validate(self) -> Result<Self> {
        match self {
            Feedback::Rm3(p) => p.validate().map(Feedback::Rm3),
            Feedback::Bm25Prf(p) => p.validate().map(Feedback::Bm25Prf),
            Feedback::Rocchio(p) => p.validate().map(Feedback::Rocchio),
        }
    }

    /// The model's part of a run tag, safe in a file name, naming every
    /// parameter (e.g. `rm3_t10_d10_w0.5`).
    pub fn label(&self) -> String {
        match self {
            Feedback::Rm3(p) => p.label(),
            Feedback::Bm25Prf(p) => p.label(),
            Feedback::Rocchio(p) => p.label(),
        }
    }

    /// How many of the first stage's top and bottom documents it reads.
    pub fn documents_read(&self) -> (usize, usize) {
        match self {
            Feedback::Rm3(p) => (p.fb_docs, 0),
            Feedback::Bm25Prf(p) => (p.fb_docs, 0),
            Feedback::Rocchio(p) => (
                p.top_fb_docs,
                if p.use_negative { p.bottom_fb_docs } else { 0 },
            ),
        }
    }

    /// The feedback query of a topic whose analysed query is `query`
    /// (`(term, qtf)`, as [`crate::bm25::BagOfWords`] holds it) and whose
    /// first stage `input` describes.
    pub fn expand(&self, query: &[(String, u32)], input: &dyn FeedbackInput) -> Result<Expansion> {
        match self {
            Feedback::Rm3(p) => Ok(Expansion::new(
                rm3::expand(p, query, input)?,
                Rescoring::FirstStage,
            )),
            Feedback::Bm25Prf(p) => Ok(Expansion::new(
                bm25prf::expand(p, query, input)?,
                Rescoring::Bm25UnitIdf(Bm25Params { k1: p.k1, b: p.b }),
            )),
            Feedback::Rocchio(p) => Ok(Expansion::new(
                rocchio::expand(p, query, input)?,
                Rescoring::FirstStage,
            )),
        }
    }
}

/// Sorts first-stage hits in Anserini's order: score descending, then
/// docid ascending by bytes (Lucene's sort on the id field). sieve's runs
/// break ties the other way (trec_eval's order); feedback documents are
/// chosen in this one.
pub fn anserini_order(hits: &mut [Hit]) {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.docid.as_bytes().cmp(b.docid.as_bytes()))
    });
}

/// A number in a label: its shortest round-trip form, `-` as `m` (as
/// [`crate::batch::num_label`], which this module does not depend on).
pub(crate) fn num_label(x: f32) -> String {
    x.to_string().replace('-', "m")
}

/// A count parameter: at least 1.
pub(crate) fn check_count(name: &'static str, n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::InvalidParameter {
            name,
            expected: "an integer >= 1",
            got: n.to_string(),
        });
    }
    Ok(())
}

/// A weight: finite and `>= 0` (and `<= 1` when `unit`).
pub(crate) fn check_weight(name: &'static str, x: f32, unit: bool) -> Result<()> {
    let ok = x.is_finite() && x >= 0.0 && (!unit || x <= 1.0);
    if !ok {
        return Err(Error::InvalidParameter {
            name,
            expected: if unit {
                "a number in [0, 1]"
            } else {
                "a finite number >= 0"
            },
            got: x.to_string(),
        });
    }
    Ok(())
}

/// A [`FeedbackInput`] held in memory: first-stage hits with their scores
/// and term vectors, and the collection's statistics.
#[derive(Debug, Clone, Default)]
pub struct InMemory {
    /// `(score, term vector)` per hit, in rank order.
    pub hits: Vec<(f32, Vec<(String, u32)>)>,
    /// Documents in the collection.
    pub num_docs: u64,
    /// Document frequencies (absent: 0).
    pub df: std::collections::HashMap<String, u64>,
}

impl FeedbackInput for InMemory {
    fn hits(&self) -> usize {
        self.hits.len()
    }
    fn score(&self, rank: usize) -> f32 {
        self.hits.get(rank).map_or(0.0, |h| h.0)
    }
    fn vector(&self, rank: usize) -> Result<Vec<(String, u32)>> {
        Ok(self.hits.get(rank).map(|h| h.1.clone()).unwrap_or_default())
    }
    fn num_docs(&self) -> u64 {
        self.num_docs
    }
    fn doc_freq(&self, term: &str) -> Result<u64> {
        Ok(self.df.get(term).copied().unwrap_or(0))
    }
}
