//! Feedback runs of a batch: for every run of a [`QueryPlan`] (a model
//! setting and a selection) and every feedback setting, each topic's
//! first stage ([`Prepared::search`], `rerank_cutoff` deep, in the run's
//! selection and with its statistics), its feedback query
//! ([`Feedback::expand`]), and the second search of that query
//! ([`search_weighted`], `plan.hits` deep, same selection and statistics,
//! scored by the run's model or by the one the feedback method names).
//! Topics run in parallel; the output is in topic order.

use rayon::prelude::*;

use super::rewrite::index_input;
use super::{Expansion, Feedback, Rescoring};
use crate::batch::{Prepared, QueryPlan, RunResults};
use crate::bm25::{BagOfWords, Hit, Subset};
use crate::queries::TopicQueries;
use crate::stats::CollectionStats;
use crate::weighted::{Model, ModelVariant, WeightedQuery, WeightedTerm, search_weighted};
use crate::{Error, Result};

/// The runs of a feedback batch, in the order `plan.variants` ×
/// `settings` (settings vary fastest), and each run's feedback query per
/// topic.
pub struct FeedbackResults {
    /// One result list per run.
    pub runs: Vec<RunResults>,
    /// Per run, `(topic id, feedback query)` in topic order.
    pub queries: Vec<Vec<(String, Expansion)>>,
}

/// Runs every feedback setting of `settings` for every run of `plan`.
/// `rerank_cutoff` (at least 1) is the first stage's depth. Refused with
/// statistics from elsewhere (`plan.global`): the expansion terms are
/// known only after the first stage.
pub fn run_feedback(
    plan: &QueryPlan<'_>,
    queries: &TopicQueries<'_>,
    subsets: &[Subset],
    settings: &[Feedback],
    rerank_cutoff: usize,
) -> Result<FeedbackResults> {
    let search = FeedbackSearch::new(plan, subsets, settings, rerank_cutoff)?;
    let analysed = queries.analyse();
    let per_topic: Vec<Vec<(Vec<Hit>, Expansion)>> = analysed
        .par_iter()
        .map(|(_, query)| search.topic(query))
        .collect::<Result<_>>()?;
    let runs = search.runs();
    let mut out = FeedbackResults {
        runs: vec![Vec::with_capacity(analysed.len()); runs],
        queries: vec![Vec::with_capacity(analysed.len()); runs],
    };
    for ((id, _), results) in analysed.iter().zip(per_topic) {
        for (r, (hits, e)) in results.into_iter().enumerate() {
            out.runs[r].push((id.clone(), hits));
            out.queries[r].push((id.clone(), e));
        }
    }
    Ok(out)
}

/// A feedback batch ready to search topic by topic ([`run_feedback`]
/// searches every topic with it; a sweep, which evaluates and writes each
/// group of topics as it comes, calls [`FeedbackSearch::topic`]). Its
/// runs are `plan.variants` × `settings` (settings vary fastest): the
/// first stage of every run of `plan` is searched once per topic, in one
/// pass, and its feedback documents read once for all the settings.
pub struct FeedbackSearch<'a> {
    plan: QueryPlan<'a>,
    /// The first stage, `rerank_cutoff` deep.
    prepared: Prepared<'a>,
    settings: Vec<Feedback>,
}

impl<'a> FeedbackSearch<'a> {
    /// Checks the batch (see [`run_feedback`]: `rerank_cutoff` at least 1,
    /// no statistics from elsewhere, at least one shard, every setting
    /// valid) and prepares its first stage.
    pub fn new(
        plan: &QueryPlan<'a>,
        subsets: &'a [Subset],
        settings: &[Feedback],
        rerank_cutoff: usize,
    ) -> Result<FeedbackSearch<'a>> {
        if rerank_cutoff == 0 {
            return Err(Error::InvalidParameter {
                name: "rerank cutoff",
                expected: "an integer >= 1",
                got: "0".into(),
            });
        }
        if plan.global.is_some() {
            // The expansion terms are known only after the first stage, so a
            // statistics file made for the topic terms cannot score them.
            return Err(Error::InvalidParameter {
                name: "global statistics",
                expected: "no statistics file with feedback: give every shard with --index (one process sums their statistics, feedback terms included), or run the staged protocol (feedback-vectors, global-stats --vocabulary, expand-queries, run --weighted-queries: scale/README.md)",
                got: "a statistics file".into(),
            });
        }
        if plan.shards.is_empty() {
            return Err(Error::InvalidParameter {
                name: "index",
                expected: "at least one index directory",
                got: "none".into(),
            });
        }
        let settings: Vec<Feedback> = settings
            .iter()
            .map(|f| f.validate())
            .collect::<Result<_>>()?;
        let first_plan = QueryPlan {
            hits: rerank_cutoff,
            ..*plan
        };
        Ok(FeedbackSearch {
            plan: *plan,
            prepared: Prepared::new(first_plan, subsets)?,
            settings,
        })
    }

    /// The number of runs: `plan.variants` × `settings`.
    pub fn runs(&self) -> usize {
        self.plan.variants.len() * self.settings.len()
    }

    /// One topic, whose analysed query is `query`: per run, in run order,
    /// the second search's hits (`plan.hits` deep) and the feedback query.
    pub fn topic(&self, query: &BagOfWords) -> Result<Vec<(Vec<Hit>, Expansion)>> {
        let first = self.prepared.search(query)?;
        let mut out = Vec::with_capacity(first.len() * self.settings.len());
        for (v, hits) in first.into_iter().enumerate() {
            let results = self
                .prepared
                .with_run(v, |stats, subset| self.run(v, query, hits, stats, subset))?;
            out.extend(results);
        }
        Ok(out)
    }

    /// Run `v` of one topic: every setting's feedback query from the first
    /// stage's `hits`, and its second search.
    fn run(
        &self,
        v: usize,
        query: &BagOfWords,
        hits: Vec<Hit>,
        stats: &dyn CollectionStats,
        subset: Option<&Subset>,
    ) -> Result<Vec<(Vec<Hit>, Expansion)>> {
        let read = super::staged::documents_read(&self.settings);
        let shards = self.plan.shards;
        let input = index_input(shards, self.plan.field, stats, hits, read)?;
        let first_model = self.plan.variants[v].model();
        let mut out = Vec::with_capacity(self.settings.len());
        for setting in &self.settings {
            let e = setting.expand(&query.terms, &input)?;
            let model = match e.rescoring {
                Rescoring::FirstStage => first_model,
                Rescoring::Bm25UnitIdf(p) => Model::Bm25UnitIdf(p),
            };
            let weighted = WeightedQuery {
                terms: e
                    .terms
                    .iter()
                    .map(|(t, w)| WeightedTerm {
                        text: t.clone(),
                        weight: *w,
                    })
                    .collect(),
            };
            let variant = ModelVariant {
                model,
                stats,
                subset,
            };
            let mut hits = search_weighted(
                shards,
                self.plan.field,
                &weighted,
                std::slice::from_ref(&variant),
                self.plan.hits,
            )?;
            out.push((hits.pop().unwrap_or_default(), e));
        }
        Ok(out)
    }
}
