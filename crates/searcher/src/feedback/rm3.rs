//! RM3 (Lavrenko and Croft's relevance model, interpolated with the
//! query), as Anserini 1.7.1's `Rm3Reranker` computes it.
//!
//! 1. The query vector: each query term's count over the number of query
//!    tokens (`f64` division cast to `f32`).
//! 2. For each of the top `fb_docs` hits in rank order: its terms that pass
//!    the filters (2-20 UTF-16 units; `[a-z0-9]+` unless `term_filter` is
//!    off; in at most 10% of documents), weighted by frequency, cut to the
//!    `fb_terms` most frequent (ties by term), and its norm: the sum of the
//!    kept frequencies.
//! 3. Each term of any kept vector: `Σ_docs (tf / norm) · score` in `f32`,
//!    documents in rank order (a document of norm `<= 0.001` skipped).
//! 4. Those cut to `fb_terms` (ties by term) and L1-normalised.
//! 5. Interpolated: `(float)(w·q + (1 − w)·rm)`, with `w·q` a `float`
//!    product and the rest in `double`, for every term of either.

use std::collections::HashMap;

use super::num_label;
use super::vector::{
    DfCache, Weighted, is_ascii_lower_alnum, length_ok, prune, prune_cmp, scale_l1, sorted_vector,
};
use super::{FeedbackInput, check_count, check_weight};
use crate::Result;

/// RM3's parameters (Anserini's defaults: [`Rm3Params::ANSERINI`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rm3Params {
    /// Feedback terms kept, per document and in the model.
    pub fb_terms: usize,
    /// Feedback documents.
    pub fb_docs: usize,
    /// The original query's share, in `[0, 1]`.
    pub original_query_weight: f32,
    /// Keep only `[a-z0-9]+` terms (Anserini's default; off is
    /// `-rm3.noTermFilter`).
    pub term_filter: bool,
}

impl Rm3Params {
    /// `-rm3` with Anserini's defaults.
    pub const ANSERINI: Rm3Params = Rm3Params {
        fb_terms: 10,
        fb_docs: 10,
        original_query_weight: 0.5,
        term_filter: true,
    };

    /// Checks the ranges.
    pub fn validate(self) -> Result<Self> {
        check_count("RM3 feedback terms", self.fb_terms)?;
        check_count("RM3 feedback documents", self.fb_docs)?;
        check_weight(
            "RM3 original query weight",
            self.original_query_weight,
            true,
        )?;
        Ok(self)
    }

    /// `rm3_t{fb_terms}_d{fb_docs}_w{weight}`, `_nofilter` when the term
    /// filter is off.
    pub fn label(&self) -> String {
        let mut s = format!(
            "rm3_t{}_d{}_w{}",
            self.fb_terms,
            self.fb_docs,
            num_label(self.original_query_weight)
        );
        if !self.term_filter {
            s.push_str("_nofilter");
        }
        s
    }
}

/// The RM3 feedback query of `query` (`(term, qtf)`) over `input`.
pub fn expand(
    p: &Rm3Params,
    query: &[(String, u32)],
    input: &dyn FeedbackInput,
) -> Result<Vec<Weighted>> {
    let rm = relevance_model(p, input)?;
    Ok(interpolate(
        &query_vector(query),
        &rm,
        p.original_query_weight,
    ))
}

/// The query's terms, each its count over the number of query tokens.
pub fn query_vector(query: &[(String, u32)]) -> Vec<Weighted> {
    let total: f64 = query.iter().map(|(_, n)| f64::from(*n)).sum();
    query
        .iter()
        .map(|(t, n)| (t.clone(), (f64::from(*n) / total) as f32))
        .collect()
}

/// Steps 2 to 4: the L1-normalised relevance model of the top documents.
pub fn relevance_model(p: &Rm3Params, input: &dyn FeedbackInput) -> Result<Vec<Weighted>> {
    let mut dfs = DfCache::new(input);
    let docs = input.hits().min(p.fb_docs);
    let mut vectors: Vec<(HashMap<String, f32>, f32, f32)> = Vec::with_capacity(docs);
    for rank in 0..docs {
        let v = doc_vector(p, input.vector(rank)?, &mut dfs)?;
        // Whole frequencies: the sum is exact in any order.
        let norm = v.iter().map(|(_, w)| f64::from(*w)).sum::<f64>() as f32;
        vectors.push((v.into_iter().collect(), norm, input.score(rank)));
    }
    let mut vocab: Vec<&str> = vectors
        .iter()
        .flat_map(|(v, _, _)| v.keys().map(String::as_str))
        .collect();
    vocab.sort_unstable();
    vocab.dedup();
    let mut model: Vec<Weighted> = Vec::with_capacity(vocab.len());
    for term in vocab {
        let mut weight = 0.0f32;
        for (v, norm, score) in &vectors {
            if *norm > 0.001 {
                let tf = v.get(term).copied().unwrap_or(0.0);
                weight += (tf / norm) * score;
            }
        }
        model.push((term.to_string(), weight));
    }
    Ok(scale_l1(prune(model, p.fb_terms)))
}

/// One document's feedback terms with their frequencies, cut to
/// `fb_terms`: the first `fb_terms` in [`prune`]'s order of the terms that
/// pass the filters. The order is total (ties by term), so testing the
/// document frequency (too common?) only of terms in that order until
/// `fb_terms` pass keeps exactly the terms that testing every term first
/// would, with a few dictionary lookups instead of one per distinct term.
fn doc_vector(
    p: &Rm3Params,
    terms: Vec<(String, u32)>,
    dfs: &mut DfCache<'_>,
) -> Result<Vec<Weighted>> {
    let mut v = Vec::new();
    for (term, tf) in sorted_vector(terms) {
        if !length_ok(&term) || (p.term_filter && !is_ascii_lower_alnum(&term)) {
            continue;
        }
        v.push((term, tf as f32));
    }
    // In prune's order, a chunk at a time: the smallest of the rest
    // selected, then sorted (distinct terms: unstable sorts give prune's
    // order), most documents needing only the first chunk.
    let mut kept = Vec::with_capacity(p.fb_terms.min(v.len()));
    let (mut start, mut chunk) = (0, (2 * p.fb_terms).max(16));
    while kept.len() < p.fb_terms && start < v.len() {
        let end = start.saturating_add(chunk).min(v.len());
        if end < v.len() {
            v[start..].select_nth_unstable_by(end - start - 1, prune_cmp);
        }
        v[start..end].sort_unstable_by(prune_cmp);
        for (term, tf) in &v[start..end] {
            if kept.len() == p.fb_terms {
                break;
            }
            if !dfs.too_common(term)? {
                kept.push((term.clone(), *tf));
            }
        }
        start = end;
        chunk = chunk.saturating_mul(2);
    }
    Ok(kept)
}

/// `FeatureVector.interpolate(q, rm, w)`: every term of either, weighted
/// `(float)(w·q + (1.0 − w)·rm)`.
pub fn interpolate(q: &[Weighted], rm: &[Weighted], w: f32) -> Vec<Weighted> {
    let qm: HashMap<&str, f32> = q.iter().map(|(t, x)| (t.as_str(), *x)).collect();
    let rmm: HashMap<&str, f32> = rm.iter().map(|(t, x)| (t.as_str(), *x)).collect();
    let get = |m: &HashMap<&str, f32>, t: &str| m.get(t).copied().unwrap_or(0.0);
    let mut vocab: Vec<&str> = q.iter().chain(rm).map(|(t, _)| t.as_str()).collect();
    vocab.sort_unstable();
    vocab.dedup();
    vocab
        .into_iter()
        .map(|t| {
            let from_query = f64::from(w * get(&qm, t));
            let from_model = (1.0 - f64::from(w)) * f64::from(get(&rmm, t));
            (t.to_string(), (from_query + from_model) as f32)
        })
        .collect()
}
