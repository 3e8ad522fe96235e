//! BM25-PRF (Robertson and Sparck Jones relevance weights over the top
//! documents; Sakai and Robertson's offer weight), as Anserini 1.7.1's
//! `BM25PrfReranker` computes it.
//!
//! With `N` documents, `R` feedback documents (the top `fb_docs` hits),
//! `df` a term's document frequency and `r` the number of feedback
//! documents containing it, in `f64`:
//!
//! ```text
//! rw(t)    = max(ln((r + 0.5)(N − df − R + r + 0.5) / ((df − r + 0.5)(R − r + 0.5))) · weight, 1e-6)
//! offer(t) = rw(t) · ln(max(r, 1e-6))
//! ```
//!
//! New terms (in some feedback document, not in the query, 2-20 UTF-16
//! units, `[a-z0-9]+`, not all digits, `r >= 2`) get `weight =
//! new_term_weight`; the `fb_terms` of highest offer weight (as `f32`) are
//! kept. Anserini sorts them with Java's stable sort starting from a
//! `HashMap`'s iteration order, so equal offer weights keep that order:
//! it is reproduced here ([`super::vector::java_hash_order`]), from the
//! order Anserini fills its sets (each document's terms in byte order into
//! a `HashSet`, those sets in rank order into the vocabulary). The query's
//! own terms are added with `weight = 1`. Each term's boost is `(float)
//! rw(t)`; the second search is BM25 with this model's `k1` and `b` and
//! an idf of 1. A logarithm of a negative number (possible only when
//! statistics do not count the feedback documents) gives the floor `1e-6`
//! where Java would give NaN.

use std::collections::HashSet;

use super::num_label;
use super::vector::{
    DfCache, Weighted, is_ascii_digits, is_ascii_lower_alnum, java_hash_order, length_ok,
    sorted_vector,
};
use super::{FeedbackInput, check_count, check_weight};
use crate::Result;
use crate::bm25::Bm25Params;

/// BM25-PRF's parameters (Anserini's defaults: [`Bm25PrfParams::ANSERINI`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25PrfParams {
    /// New terms kept.
    pub fb_terms: usize,
    /// Feedback documents.
    pub fb_docs: usize,
    /// BM25 `k1` of the second search.
    pub k1: f32,
    /// BM25 `b` of the second search.
    pub b: f32,
    /// The weight of new terms' relevance weights.
    pub new_term_weight: f32,
}

impl Bm25PrfParams {
    /// `-bm25prf` with Anserini's defaults.
    pub const ANSERINI: Bm25PrfParams = Bm25PrfParams {
        fb_terms: 20,
        fb_docs: 10,
        k1: 0.9,
        b: 0.4,
        new_term_weight: 0.2,
    };

    /// Checks the ranges.
    pub fn validate(self) -> Result<Self> {
        check_count("BM25-PRF feedback terms", self.fb_terms)?;
        check_count("BM25-PRF feedback documents", self.fb_docs)?;
        Bm25Params {
            k1: self.k1,
            b: self.b,
        }
        .validate()?;
        check_weight("BM25-PRF new term weight", self.new_term_weight, false)?;
        Ok(self)
    }

    /// `bm25prf_t{fb_terms}_d{fb_docs}_k1-{k1}_b-{b}_w{new_term_weight}`.
    pub fn label(&self) -> String {
        format!(
            "bm25prf_t{}_d{}_k1-{}_b-{}_w{}",
            self.fb_terms,
            self.fb_docs,
            num_label(self.k1),
            num_label(self.b),
            num_label(self.new_term_weight)
        )
    }
}

/// The counts of one term's relevance weight.
#[derive(Debug, Clone, Copy)]
pub struct Counts {
    /// Documents containing the term (`df`).
    pub df: u64,
    /// Feedback documents containing it (`r`).
    pub rel_df: u64,
    /// Documents (`N`).
    pub docs: u64,
    /// Feedback documents (`R`).
    pub rel_docs: u64,
}

/// `rw(t)` of the module documentation, in `f64`.
pub fn relevance_weight(c: Counts, weight: f32) -> f64 {
    // Java computes N − df − R + r in int; the value is the same.
    let (n, df, r, rr) = (
        c.docs as f64,
        c.df as f64,
        c.rel_df as f64,
        c.rel_docs as f64,
    );
    let odds = (r + 0.5) * (n - df - rr + r + 0.5) / ((df - r + 0.5) * (rr - r + 0.5));
    let rw = odds.ln() * f64::from(weight);
    rw.max(1e-6)
}

/// `offer(t)` of the module documentation, as the `f32` the sort compares.
pub fn offer_weight(c: Counts, weight: f32) -> f32 {
    (relevance_weight(c, weight) * (c.rel_df as f64).max(1e-6).ln()) as f32
}

/// The BM25-PRF feedback query of `query` (`(term, qtf)`) over `input`.
pub fn expand(
    p: &Bm25PrfParams,
    query: &[(String, u32)],
    input: &dyn FeedbackInput,
) -> Result<Vec<Weighted>> {
    let docs = input.hits().min(p.fb_docs);
    let mut sets: Vec<HashSet<String>> = Vec::with_capacity(docs);
    let mut vocab: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for rank in 0..docs {
        let terms: Vec<String> = sorted_vector(input.vector(rank)?)
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        // The document's HashSet, iterated into the vocabulary.
        for i in java_hash_order(&terms) {
            if seen.insert(terms[i].clone()) {
                vocab.push(terms[i].clone());
            }
        }
        sets.push(terms.into_iter().collect());
    }
    let counts = |term: &str, dfs: &mut DfCache<'_>| -> Result<Counts> {
        Ok(Counts {
            df: dfs.df(term)?,
            rel_df: sets.iter().filter(|s| s.contains(term)).count() as u64,
            docs: input.num_docs(),
            rel_docs: docs as u64,
        })
    };
    let original: HashSet<&str> = query.iter().map(|(t, _)| t.as_str()).collect();
    let mut dfs = DfCache::new(input);
    // New terms, in the vocabulary's iteration order.
    let mut new: Vec<(String, Counts)> = Vec::new();
    for i in java_hash_order(&vocab) {
        let term = &vocab[i];
        if original.contains(term.as_str()) || !new_term_shape(term) {
            continue;
        }
        let c = counts(term, &mut dfs)?;
        if c.rel_df >= 2 {
            new.push((term.clone(), c));
        }
    }
    let mut out = best_new_terms(new, p);
    for (term, _) in query {
        let c = counts(term, &mut dfs)?;
        out.push((term.clone(), relevance_weight(c, 1.0) as f32));
    }
    Ok(out)
}

/// The shape rule for a new term.
fn new_term_shape(term: &str) -> bool {
    length_ok(term) && is_ascii_lower_alnum(term) && !is_ascii_digits(term)
}

/// The `fb_terms` new terms of highest offer weight, ties in the order of
/// the features' `HashMap`, with their boosts.
fn best_new_terms(new: Vec<(String, Counts)>, p: &Bm25PrfParams) -> Vec<Weighted> {
    let names: Vec<&str> = new.iter().map(|(t, _)| t.as_str()).collect();
    let mut ordered: Vec<(usize, f32)> = java_hash_order(&names)
        .into_iter()
        .map(|i| (i, offer_weight(new[i].1, p.new_term_weight)))
        .collect();
    // Stable, as Java's Collections.sort: Double.compare(y, x).
    ordered.sort_by(|a, b| f64::from(b.1).total_cmp(&f64::from(a.1)));
    ordered
        .into_iter()
        .take(p.fb_terms)
        .map(|(i, _)| {
            let (term, c) = &new[i];
            (term.clone(), relevance_weight(*c, p.new_term_weight) as f32)
        })
        .collect()
}
