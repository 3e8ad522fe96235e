//! Rocchio's feedback, as Anserini 1.7.1's `RocchioReranker` computes it:
//!
//! ```text
//! q_new = alpha · q / |q|₂  +  beta · mean(top docs)  −  gamma · mean(bottom docs)
//! ```
//!
//! * `q`: the query's term counts, divided by their L2 norm (`f64`, cast
//!   to `f32`).
//! * A mean over documents (the top `top_fb_docs` hits in rank order, or
//!   the last `bottom_fb_docs` first-stage hits, last first): each
//!   document's terms that pass the filters (2-20 UTF-16 units, in at most
//!   10% of documents; no letter rule) weighted by frequency; its norm the
//!   `f32` of its L2 norm; per term `Σ tf / norm` in `f32` (documents of
//!   norm `<= 0.001` skipped) divided by the number of documents; cut to
//!   the top `*_fb_terms` terms (ties by term) and L2-normalised.
//! * Combined per term in `f32`, `alpha·a + beta·b − gamma·c`, left to
//!   right; terms of weight `<= 0` dropped. The bottom documents count only
//!   with `use_negative` (otherwise `gamma` is 0, as in Anserini's tag).

use std::collections::HashMap;

use super::num_label;
use super::vector::{DfCache, Weighted, length_ok, prune, scale_l2, sorted_vector};
use super::{FeedbackInput, check_count, check_weight};
use crate::Result;

/// Rocchio's parameters (Anserini's defaults: [`RocchioParams::ANSERINI`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RocchioParams {
    /// Terms kept from the top documents' mean.
    pub top_fb_terms: usize,
    /// Top documents.
    pub top_fb_docs: usize,
    /// Terms kept from the bottom documents' mean.
    pub bottom_fb_terms: usize,
    /// Bottom documents (the last of the first stage).
    pub bottom_fb_docs: usize,
    /// The query's weight.
    pub alpha: f32,
    /// The top documents' weight.
    pub beta: f32,
    /// The bottom documents' weight (used only with `use_negative`).
    pub gamma: f32,
    /// Subtract the bottom documents.
    pub use_negative: bool,
}

impl RocchioParams {
    /// `-rocchio` with Anserini's defaults.
    pub const ANSERINI: RocchioParams = RocchioParams {
        top_fb_terms: 10,
        top_fb_docs: 10,
        bottom_fb_terms: 10,
        bottom_fb_docs: 10,
        alpha: 1.0,
        beta: 0.75,
        gamma: 0.15,
        use_negative: false,
    };

    /// Checks the ranges.
    pub fn validate(self) -> Result<Self> {
        check_count("Rocchio top feedback terms", self.top_fb_terms)?;
        check_count("Rocchio top feedback documents", self.top_fb_docs)?;
        check_count("Rocchio bottom feedback terms", self.bottom_fb_terms)?;
        check_count("Rocchio bottom feedback documents", self.bottom_fb_docs)?;
        check_weight("Rocchio alpha", self.alpha, false)?;
        check_weight("Rocchio beta", self.beta, false)?;
        check_weight("Rocchio gamma", self.gamma, false)?;
        Ok(self)
    }

    /// `rocchio_t{top terms}_d{top docs}_a{alpha}_b{beta}`, and
    /// `_neg_t{bottom terms}_d{bottom docs}_g{gamma}` with `use_negative`.
    pub fn label(&self) -> String {
        let mut s = format!(
            "rocchio_t{}_d{}_a{}_b{}",
            self.top_fb_terms,
            self.top_fb_docs,
            num_label(self.alpha),
            num_label(self.beta)
        );
        if self.use_negative {
            s.push_str(&format!(
                "_neg_t{}_d{}_g{}",
                self.bottom_fb_terms,
                self.bottom_fb_docs,
                num_label(self.gamma)
            ));
        }
        s
    }
}

/// The Rocchio feedback query of `query` (`(term, qtf)`) over `input`.
pub fn expand(
    p: &RocchioParams,
    query: &[(String, u32)],
    input: &dyn FeedbackInput,
) -> Result<Vec<Weighted>> {
    let mut dfs = DfCache::new(input);
    let n = input.hits();
    let top: Vec<usize> = (0..n.min(p.top_fb_docs)).collect();
    let relevant = mean_vector(input, &top, p.top_fb_terms, &mut dfs)?;
    let (gamma, nonrelevant) = if p.use_negative {
        let bottom: Vec<usize> = (0..n.min(p.bottom_fb_docs)).map(|i| n - 1 - i).collect();
        (
            p.gamma,
            mean_vector(input, &bottom, p.bottom_fb_terms, &mut dfs)?,
        )
    } else {
        (0.0, Vec::new())
    };
    let q = scale_l2(query.iter().map(|(t, n)| (t.clone(), *n as f32)).collect());
    Ok(combine(
        [(q.as_slice(), p.alpha), (relevant.as_slice(), p.beta)],
        (nonrelevant.as_slice(), gamma),
    ))
}

/// The normalised mean vector of the documents at `ranks`.
fn mean_vector(
    input: &dyn FeedbackInput,
    ranks: &[usize],
    fb_terms: usize,
    dfs: &mut DfCache<'_>,
) -> Result<Vec<Weighted>> {
    let mut vectors: Vec<(HashMap<String, f32>, f32)> = Vec::with_capacity(ranks.len());
    for &rank in ranks {
        let mut v = HashMap::new();
        for (term, tf) in sorted_vector(input.vector(rank)?) {
            if length_ok(&term) && !dfs.too_common(&term)? {
                v.insert(term, tf as f32);
            }
        }
        // Squares of whole frequencies: the sum is exact in any order.
        let norm = v
            .values()
            .map(|w| f64::from(*w) * f64::from(*w))
            .sum::<f64>()
            .sqrt() as f32;
        vectors.push((v, norm));
    }
    let mut vocab: Vec<&str> = vectors
        .iter()
        .flat_map(|(v, _)| v.keys().map(String::as_str))
        .collect();
    vocab.sort_unstable();
    vocab.dedup();
    let count = vectors.len() as f32;
    let mut mean = Vec::with_capacity(vocab.len());
    for term in vocab {
        let mut weight = 0.0f32;
        for (v, norm) in &vectors {
            if *norm > 0.001 {
                weight += v.get(term).copied().unwrap_or(0.0) / norm;
            }
        }
        mean.push((term.to_string(), weight / count));
    }
    Ok(scale_l2(prune(mean, fb_terms)))
}

/// `alpha·a + beta·b − gamma·c` per term of any, in `f32` left to right;
/// terms of weight `<= 0` dropped.
fn combine(plus: [(&[Weighted], f32); 2], minus: (&[Weighted], f32)) -> Vec<Weighted> {
    let map = |v: &[Weighted]| -> HashMap<String, f32> { v.iter().cloned().collect() };
    let (a, b, c) = (map(plus[0].0), map(plus[1].0), map(minus.0));
    let get = |m: &HashMap<String, f32>, t: &str| m.get(t).copied().unwrap_or(0.0);
    let mut vocab: Vec<&String> = a.keys().chain(b.keys()).chain(c.keys()).collect();
    vocab.sort_unstable();
    vocab.dedup();
    vocab
        .into_iter()
        .filter_map(|t| {
            let w = plus[0].1 * get(&a, t) + plus[1].1 * get(&b, t) - minus.1 * get(&c, t);
            (w > 0.0).then(|| (t.clone(), w))
        })
        .collect()
}
