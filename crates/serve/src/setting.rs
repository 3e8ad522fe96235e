//! A search setting read from request parameters: the model (BM25, query
//! likelihood, sequential dependence) with its parameters, one document
//! selection (spam percentile, invalid 4/5/6-byte rate, near-duplicates,
//! combinable), which statistics a filtered search uses, and an optional
//! pseudo-relevance feedback model. A setting becomes a
//! [`RunSpec`] of one run, so its run tag, its selection's rule and its
//! results are those of `sieve-search run` given the same flags.

use serde_json::{Value, json};
use sieve_filters::docfilter::Unscored;
use sieve_searcher::batch::{DocSelection, StatsMode};
use sieve_searcher::bm25::Bm25Params;
use sieve_searcher::feedback::spec::{FeedbackSpec, Method, PARAMETERS};
use sieve_searcher::feedback::{DEFAULT_RERANK_CUTOFF, Feedback};
use sieve_searcher::runspec::{
    ModelName, RunSpec, drop_near_duplicates, invalid_456_selection, spam_selection,
};

use crate::error::ApiError;
use crate::params::Params;
use crate::search::f32_json;

/// The parameters of a setting (beside the feedback models' own,
/// [`PARAMETERS`]).
pub const SETTING_PARAMS: &[&str] = &[
    "model",
    "k1",
    "b",
    "mu",
    "min_spam_percentile",
    "unscored",
    "max_invalid_456_per_kb",
    "drop_near_duplicates",
    "collection_stats",
    "feedback",
    "rerank_cutoff",
];

/// Every parameter a setting takes.
pub fn setting_params() -> impl Iterator<Item = &'static str> {
    SETTING_PARAMS.iter().chain(PARAMETERS).copied()
}

/// One search setting.
#[derive(Debug)]
pub struct Setting {
    /// The model.
    pub model: ModelName,
    /// BM25 (and SDM) parameters.
    pub params: Bm25Params,
    /// QLD's Dirichlet prior.
    pub mu: f32,
    /// The document selection, if any.
    pub selection: Option<DocSelection>,
    /// Statistics of a filtered search.
    pub stats: StatsMode,
    /// Feedback, with its first stage's depth.
    pub feedback: Option<(Feedback, usize)>,
    /// The setting as JSON, echoed in answers.
    pub echo: Value,
}

impl Setting {
    /// Reads the setting's parameters from `p`.
    pub fn read(p: &Params) -> Result<Setting, ApiError> {
        let model = match p.choice("model", &["bm25", "qld", "sdm"])? {
            "qld" => ModelName::Qld,
            "sdm" => ModelName::Sdm,
            _ => ModelName::Bm25,
        };
        let d = Bm25Params::ANSERINI;
        let params = Bm25Params {
            k1: p.number("k1", d.k1, 0.0, 1000.0)?,
            b: p.number("b", d.b, 0.0, 1.0)?,
        };
        let mu = p.number("mu", 1000.0f32, f32::MIN_POSITIVE, 1e9)?;
        let stats = match p.choice("collection_stats", &["full", "filtered"])? {
            "filtered" => StatsMode::Filtered,
            _ => StatsMode::Full,
        };
        let (selection, sel_echo) = selection(p)?;
        let feedback = feedback(p)?;
        let echo = json!({
            "model": p.choice("model", &["bm25", "qld", "sdm"])?,
            "k1": f32_json(params.k1), "b": f32_json(params.b), "mu": f32_json(mu),
            "selection": sel_echo,
            "selection_name": selection.as_ref().map(|s| s.name.clone()),
            "collection_stats": p.choice("collection_stats", &["full", "filtered"])?,
            "feedback": feedback.as_ref().map(|(f, cut)| json!({"label": f.label(), "rerank_cutoff": cut})),
        });
        Ok(Setting {
            model,
            params,
            mu,
            selection,
            stats,
            feedback,
            echo,
        })
    }

    /// The run of `sieve-search run` with this setting's flags: one model
    /// setting, this selection, `hits` per topic, tagged from `tag`.
    pub fn spec(&self, tag: &str, hits: usize) -> RunSpec {
        RunSpec {
            tag: tag.to_string(),
            models: vec![self.model],
            mu: vec![self.mu],
            k1: vec![self.params.k1],
            b: vec![self.params.b],
            selections: self
                .selection
                .as_ref()
                .map(|s| vec![clone_selection(s)])
                .unwrap_or_default(),
            stats: self.stats,
            hits,
            ..Default::default()
        }
    }
}

/// A copy of a rule selection (selections here never hold a filter file).
fn clone_selection(s: &DocSelection) -> DocSelection {
    DocSelection {
        name: s.name.clone(),
        thresholds: s.thresholds.clone(),
        filter: None,
    }
}

/// The selection the parameters ask for: spam percentile, invalid
/// 4/5/6-byte rate and near-duplicates, each optional, combined (all must
/// keep a document); named as `sieve-search run` names each alone, joined
/// by `_` when combined.
fn selection(p: &Params) -> Result<(Option<DocSelection>, Value), ApiError> {
    let spam = p.optional::<u8>("min_spam_percentile", 0, 100)?;
    let unscored = match p.choice("unscored", &["keep", "drop"])? {
        "drop" => Unscored::Drop,
        _ => Unscored::Keep,
    };
    let rate = p.optional::<f64>("max_invalid_456_per_kb", 0.0, f64::MAX)?;
    let dups = p.flag("drop_near_duplicates", false)?;
    let echo = json!({
        "min_spam_percentile": spam,
        "unscored": if unscored == Unscored::Drop { "drop" } else { "keep" },
        "max_invalid_456_per_kb": rate,
        "drop_near_duplicates": dups,
    });
    let mut sel: Option<DocSelection> = spam.map(|s| spam_selection(s, unscored));
    if let Some(r) = rate {
        let rated = invalid_456_selection(r).map_err(ApiError::from_search)?;
        sel = Some(match sel {
            None => rated,
            Some(mut s) => {
                s.name = format!("{}_{}", s.name, rated.name);
                s.thresholds.max_rate_per_kb = rated.thresholds.max_rate_per_kb;
                s
            }
        });
    }
    if dups {
        sel = Some(drop_near_duplicates(sel));
    }
    Ok((sel, echo))
}

/// The feedback model the parameters ask for, with its parameters (each
/// one value) and the first stage's depth.
fn feedback(p: &Params) -> Result<Option<(Feedback, usize)>, ApiError> {
    let Some(name) = p.text("feedback") else {
        for &param in PARAMETERS {
            if p.text(param).is_some() {
                return Err(ApiError::bad_parameter(
                    param,
                    format!(
                        "{param} is a feedback parameter: give feedback=rm3, bm25prf or rocchio"
                    ),
                ));
            }
        }
        return Ok(None);
    };
    let method =
        Method::parse(name).map_err(|e| ApiError::bad_parameter("feedback", e.to_string()))?;
    let mut spec = FeedbackSpec {
        methods: vec![method],
        ..Default::default()
    };
    for &param in PARAMETERS {
        if let Some(v) = p.optional::<f64>(param, f64::MIN, f64::MAX)? {
            spec.set(param, &[v])
                .map_err(|e| ApiError::bad_parameter(param, e.to_string()))?;
        }
    }
    let settings = spec
        .settings()
        .map_err(|e| ApiError::bad_parameter("feedback", e.to_string()))?;
    let cutoff = p.number("rerank_cutoff", DEFAULT_RERANK_CUTOFF, 1, 10_000)?;
    Ok(settings.into_iter().next().map(|f| (f, cutoff)))
}
