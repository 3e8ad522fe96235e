//! Feedback settings as `sieve-search run` takes them (a list of methods,
//! a list of values per parameter) → the [`Feedback`] of each run, in
//! order: methods in the order given, then every combination of their
//! parameters, nested in Anserini's order (RM3: terms, documents, weight;
//! BM25-PRF: terms, documents, k1, b, new-term weight; Rocchio: top terms,
//! top documents, bottom terms, bottom documents, alpha, beta, gamma).
//! Without negative feedback Rocchio's bottom parameters and gamma are
//! not used, and only their first values count (no duplicate runs).

use super::{Bm25PrfParams, Feedback, Rm3Params, RocchioParams};
use crate::{Error, Result};

/// A feedback model, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// RM3.
    Rm3,
    /// BM25-PRF.
    Bm25Prf,
    /// Rocchio.
    Rocchio,
}

impl Method {
    /// The names [`Method::parse`] takes.
    pub const NAMES: &'static str = "rm3, bm25prf, rocchio";

    /// `rm3`, `bm25prf` or `rocchio`.
    pub fn parse(s: &str) -> Result<Method> {
        match s {
            "rm3" => Ok(Method::Rm3),
            "bm25prf" => Ok(Method::Bm25Prf),
            "rocchio" => Ok(Method::Rocchio),
            _ => Err(Error::InvalidParameter {
                name: "feedback model",
                expected: "rm3, bm25prf or rocchio",
                got: s.to_string(),
            }),
        }
    }
}

/// Lists of values per parameter ([`FeedbackSpec::default`]: Anserini's
/// defaults, one value each, no model).
#[derive(Debug, Clone, PartialEq)]
pub struct FeedbackSpec {
    /// The methods, in run order.
    pub methods: Vec<Method>,
    /// RM3 feedback terms.
    pub rm3_fb_terms: Vec<usize>,
    /// RM3 feedback documents.
    pub rm3_fb_docs: Vec<usize>,
    /// RM3 original query weight.
    pub rm3_original_query_weight: Vec<f32>,
    /// RM3's `[a-z0-9]+` filter.
    pub rm3_term_filter: bool,
    /// BM25-PRF feedback terms.
    pub bm25prf_fb_terms: Vec<usize>,
    /// BM25-PRF feedback documents.
    pub bm25prf_fb_docs: Vec<usize>,
    /// BM25-PRF k1.
    pub bm25prf_k1: Vec<f32>,
    /// BM25-PRF b.
    pub bm25prf_b: Vec<f32>,
    /// BM25-PRF new term weight.
    pub bm25prf_new_term_weight: Vec<f32>,
    /// Rocchio top feedback terms.
    pub rocchio_top_fb_terms: Vec<usize>,
    /// Rocchio top feedback documents.
    pub rocchio_top_fb_docs: Vec<usize>,
    /// Rocchio bottom feedback terms.
    pub rocchio_bottom_fb_terms: Vec<usize>,
    /// Rocchio bottom feedback documents.
    pub rocchio_bottom_fb_docs: Vec<usize>,
    /// Rocchio alpha.
    pub rocchio_alpha: Vec<f32>,
    /// Rocchio beta.
    pub rocchio_beta: Vec<f32>,
    /// Rocchio gamma.
    pub rocchio_gamma: Vec<f32>,
    /// Rocchio negative feedback.
    pub rocchio_use_negative: bool,
}

impl Default for FeedbackSpec {
    fn default() -> FeedbackSpec {
        let (r, p, c) = (
            Rm3Params::ANSERINI,
            Bm25PrfParams::ANSERINI,
            RocchioParams::ANSERINI,
        );
        FeedbackSpec {
            methods: Vec::new(),
            rm3_fb_terms: vec![r.fb_terms],
            rm3_fb_docs: vec![r.fb_docs],
            rm3_original_query_weight: vec![r.original_query_weight],
            rm3_term_filter: r.term_filter,
            bm25prf_fb_terms: vec![p.fb_terms],
            bm25prf_fb_docs: vec![p.fb_docs],
            bm25prf_k1: vec![p.k1],
            bm25prf_b: vec![p.b],
            bm25prf_new_term_weight: vec![p.new_term_weight],
            rocchio_top_fb_terms: vec![c.top_fb_terms],
            rocchio_top_fb_docs: vec![c.top_fb_docs],
            rocchio_bottom_fb_terms: vec![c.bottom_fb_terms],
            rocchio_bottom_fb_docs: vec![c.bottom_fb_docs],
            rocchio_alpha: vec![c.alpha],
            rocchio_beta: vec![c.beta],
            rocchio_gamma: vec![c.gamma],
            rocchio_use_negative: c.use_negative,
        }
    }
}

/// The parameter names [`FeedbackSpec::set`] takes: the fields of
/// [`FeedbackSpec`] (and `sieve-search run`'s flags with `_` for `-`).
pub const PARAMETERS: &[&str] = &[
    "rm3_fb_terms",
    "rm3_fb_docs",
    "rm3_original_query_weight",
    "rm3_no_term_filter",
    "bm25prf_fb_terms",
    "bm25prf_fb_docs",
    "bm25prf_k1",
    "bm25prf_b",
    "bm25prf_new_term_weight",
    "rocchio_top_fb_terms",
    "rocchio_top_fb_docs",
    "rocchio_bottom_fb_terms",
    "rocchio_bottom_fb_docs",
    "rocchio_alpha",
    "rocchio_beta",
    "rocchio_gamma",
    "rocchio_use_negative",
];

/// `values` as counts (whole numbers >= 0), for parameter `name`.
fn counts(name: &str, values: &[f64]) -> Result<Vec<usize>> {
    values
        .iter()
        .map(|&v| {
            if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64 {
                Ok(v as usize)
            } else {
                Err(Error::InvalidParameter {
                    name: "feedback parameter",
                    expected: "whole numbers >= 0",
                    got: format!("{name} = {v}"),
                })
            }
        })
        .collect()
}

/// `values` as one switch (one value, 0 or 1), for parameter `name`.
fn switch(name: &str, values: &[f64]) -> Result<bool> {
    match values {
        [v] if *v == 0.0 || *v == 1.0 => Ok(*v == 1.0),
        _ => Err(Error::InvalidParameter {
            name: "feedback parameter",
            expected: "one value, true or false",
            got: format!("{name} = {values:?}"),
        }),
    }
}

impl FeedbackSpec {
    /// Sets parameter `name` (one of [`PARAMETERS`]) to the list
    /// `values` (a switch takes one value, 0 or 1); an unknown name is an
    /// error listing the known ones.
    pub fn set(&mut self, name: &str, values: &[f64]) -> Result<()> {
        let floats = || values.iter().map(|&v| v as f32).collect::<Vec<f32>>();
        match name {
            "rm3_fb_terms" => self.rm3_fb_terms = counts(name, values)?,
            "rm3_fb_docs" => self.rm3_fb_docs = counts(name, values)?,
            "rm3_original_query_weight" => self.rm3_original_query_weight = floats(),
            "rm3_no_term_filter" => self.rm3_term_filter = !switch(name, values)?,
            "bm25prf_fb_terms" => self.bm25prf_fb_terms = counts(name, values)?,
            "bm25prf_fb_docs" => self.bm25prf_fb_docs = counts(name, values)?,
            "bm25prf_k1" => self.bm25prf_k1 = floats(),
            "bm25prf_b" => self.bm25prf_b = floats(),
            "bm25prf_new_term_weight" => self.bm25prf_new_term_weight = floats(),
            "rocchio_top_fb_terms" => self.rocchio_top_fb_terms = counts(name, values)?,
            "rocchio_top_fb_docs" => self.rocchio_top_fb_docs = counts(name, values)?,
            "rocchio_bottom_fb_terms" => self.rocchio_bottom_fb_terms = counts(name, values)?,
            "rocchio_bottom_fb_docs" => self.rocchio_bottom_fb_docs = counts(name, values)?,
            "rocchio_alpha" => self.rocchio_alpha = floats(),
            "rocchio_beta" => self.rocchio_beta = floats(),
            "rocchio_gamma" => self.rocchio_gamma = floats(),
            "rocchio_use_negative" => self.rocchio_use_negative = switch(name, values)?,
            other => {
                return Err(Error::InvalidParameter {
                    name: "feedback parameter",
                    expected: "one of rm3_*, bm25prf_*, rocchio_* (see sieve-search run --help)",
                    got: other.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Every setting, in the order of the module documentation, each
    /// checked ([`Feedback::validate`]). No model: no setting. A model
    /// given twice, or an empty list, is an error.
    pub fn settings(&self) -> Result<Vec<Feedback>> {
        let mut out = Vec::new();
        for (i, m) in self.methods.iter().enumerate() {
            if self.methods[..i].contains(m) {
                return Err(Error::InvalidParameter {
                    name: "feedback model",
                    expected: "each model once",
                    got: format!("{m:?} twice"),
                });
            }
            match m {
                Method::Rm3 => self.rm3(&mut out),
                Method::Bm25Prf => self.bm25prf(&mut out),
                Method::Rocchio => self.rocchio(&mut out),
            }
        }
        if out.is_empty() && !self.methods.is_empty() {
            return Err(Error::InvalidParameter {
                name: "feedback parameter list",
                expected: "at least one value per parameter",
                got: "an empty list".into(),
            });
        }
        out.into_iter().map(Feedback::validate).collect()
    }

    fn rm3(&self, out: &mut Vec<Feedback>) {
        for &fb_terms in &self.rm3_fb_terms {
            for &fb_docs in &self.rm3_fb_docs {
                for &w in &self.rm3_original_query_weight {
                    out.push(Feedback::Rm3(Rm3Params {
                        fb_terms,
                        fb_docs,
                        original_query_weight: w,
                        term_filter: self.rm3_term_filter,
                    }));
                }
            }
        }
    }

    fn bm25prf(&self, out: &mut Vec<Feedback>) {
        for &fb_terms in &self.bm25prf_fb_terms {
            for &fb_docs in &self.bm25prf_fb_docs {
                for &k1 in &self.bm25prf_k1 {
                    for &b in &self.bm25prf_b {
                        for &w in &self.bm25prf_new_term_weight {
                            out.push(Feedback::Bm25Prf(Bm25PrfParams {
                                fb_terms,
                                fb_docs,
                                k1,
                                b,
                                new_term_weight: w,
                            }));
                        }
                    }
                }
            }
        }
    }

    fn rocchio(&self, out: &mut Vec<Feedback>) {
        let neg = self.rocchio_use_negative;
        // Without negative feedback the bottom settings and gamma are
        // unused: their first value only (none: Anserini's).
        let first = |v: &[usize], d: usize| -> Vec<usize> {
            if neg {
                v.to_vec()
            } else {
                v.first().map_or(vec![d], |x| vec![*x])
            }
        };
        let d = RocchioParams::ANSERINI;
        let bottom_terms = first(&self.rocchio_bottom_fb_terms, d.bottom_fb_terms);
        let bottom_docs = first(&self.rocchio_bottom_fb_docs, d.bottom_fb_docs);
        let gammas: Vec<f32> = if neg {
            self.rocchio_gamma.clone()
        } else {
            vec![self.rocchio_gamma.first().copied().unwrap_or(d.gamma)]
        };
        for &top_fb_terms in &self.rocchio_top_fb_terms {
            for &top_fb_docs in &self.rocchio_top_fb_docs {
                for &bottom_fb_terms in &bottom_terms {
                    for &bottom_fb_docs in &bottom_docs {
                        for &alpha in &self.rocchio_alpha {
                            for &beta in &self.rocchio_beta {
                                for &gamma in &gammas {
                                    out.push(Feedback::Rocchio(RocchioParams {
                                        top_fb_terms,
                                        top_fb_docs,
                                        bottom_fb_terms,
                                        bottom_fb_docs,
                                        alpha,
                                        beta,
                                        gamma,
                                        use_negative: neg,
                                    }));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(s: &FeedbackSpec) -> Vec<String> {
        s.settings().unwrap().iter().map(Feedback::label).collect()
    }

    #[test]
    fn one_setting_per_combination_in_order() {
        let s = FeedbackSpec {
            methods: vec![Method::Rocchio, Method::Rm3],
            rm3_fb_terms: vec![10, 20],
            rm3_original_query_weight: vec![0.5, 0.3],
            rocchio_gamma: vec![0.1, 0.2],
            ..Default::default()
        };
        assert_eq!(
            labels(&s),
            [
                "rocchio_t10_d10_a1_b0.75",
                "rm3_t10_d10_w0.5",
                "rm3_t10_d10_w0.3",
                "rm3_t20_d10_w0.5",
                "rm3_t20_d10_w0.3",
            ],
            "gamma is not used without negative feedback: one Rocchio run"
        );
        let neg = FeedbackSpec {
            methods: vec![Method::Rocchio],
            rocchio_gamma: vec![0.1, 0.2],
            rocchio_use_negative: true,
            ..Default::default()
        };
        assert_eq!(
            labels(&neg),
            [
                "rocchio_t10_d10_a1_b0.75_neg_t10_d10_g0.1",
                "rocchio_t10_d10_a1_b0.75_neg_t10_d10_g0.2"
            ]
        );
    }

    #[test]
    fn no_model_no_setting_and_bad_values_refused() {
        assert!(FeedbackSpec::default().settings().unwrap().is_empty());
        let twice = FeedbackSpec {
            methods: vec![Method::Rm3, Method::Rm3],
            ..Default::default()
        };
        assert!(twice.settings().is_err());
        let nan = FeedbackSpec {
            methods: vec![Method::Bm25Prf],
            bm25prf_k1: vec![0.9, f32::NAN],
            ..Default::default()
        };
        let e = nan.settings().unwrap_err().to_string();
        assert!(e.contains("k1") && e.contains("NaN"), "{e}");
        let empty = FeedbackSpec {
            methods: vec![Method::Rm3],
            rm3_fb_docs: vec![],
            ..Default::default()
        };
        assert!(empty.settings().is_err());
        assert!(Method::parse("rm4").is_err());
        assert_eq!(Method::parse("bm25prf").unwrap(), Method::Bm25Prf);
    }

    #[test]
    fn every_named_parameter_can_be_set_and_others_are_refused() {
        for name in PARAMETERS {
            let mut spec = FeedbackSpec::default();
            // A switch takes 0 or 1; every other parameter takes 3.
            spec.set(name, &[3.0])
                .or_else(|_| spec.set(name, &[1.0]))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_ne!(spec, FeedbackSpec::default(), "{name} changed nothing");
        }
        let mut spec = FeedbackSpec::default();
        assert!(spec.set("rm3_fb_term", &[1.0]).is_err());
        assert!(spec.set("rm3_fb_terms", &[1.5]).is_err());
        assert!(spec.set("rocchio_use_negative", &[1.0, 0.0]).is_err());
        spec.set("rm3_fb_terms", &[5.0, 20.0]).unwrap();
        assert_eq!(spec.rm3_fb_terms, [5, 20]);
    }
}
