//! Feedback runs of a batch: for every run of a [`QueryPlan`] (a BM25
//! setting and a selection) and every feedback setting, each topic's
//! first stage ([`crate::batch::run_batch_on`], `rerank_cutoff` deep, in
//! the run's selection and with its statistics), its feedback query
//! ([`Feedback::expand`]), and the second search of that query
//! ([`weighted_search`], `plan.hits` deep, same selection and statistics).
//! Topics run in parallel; the output is in topic order.

use rayon::prelude::*;
use tantivy::query::Bm25StatisticsProvider;

use super::index::{Addresses, IndexInput, Rescore, term_vectors, weighted_search};
use super::{Expansion, Feedback, anserini_order};
use crate::batch::{QueryPlan, RunResults, StatsMode, run_batch_on};
use crate::bm25::{BagOfWords, Hit, Subset};
use crate::queries::TopicQueries;
use crate::stats::{GlobalStats, SubsetStats};
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

/// One run's statistics: from the plan, of every document, or of its
/// selection.
enum Stats<'a> {
    Given(&'a (dyn Bm25StatisticsProvider + Sync)),
    Global(GlobalStats<'a>),
    Subset(SubsetStats<'a>),
}

impl Stats<'_> {
    fn get(&self) -> &dyn Bm25StatisticsProvider {
        match self {
            Stats::Given(s) => *s,
            Stats::Global(s) => s,
            Stats::Subset(s) => s,
        }
    }
}

/// Runs every feedback setting of `settings` for every run of `plan`.
/// `rerank_cutoff` (at least 1) is the first stage's depth.
pub fn run_feedback(
    plan: &QueryPlan<'_>,
    queries: &TopicQueries<'_>,
    subsets: &[Subset],
    settings: &[Feedback],
    rerank_cutoff: usize,
) -> Result<FeedbackResults> {
    if rerank_cutoff == 0 {
        return Err(Error::InvalidParameter {
            name: "rerank cutoff",
            expected: "an integer >= 1",
            got: "0".into(),
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
    let first = run_batch_on(&first_plan, queries, subsets)?;
    let stats = plan
        .variants
        .iter()
        .map(|v| match (plan.global, plan.stats_mode, v.selection) {
            (Some(g), _, _) => Ok(Stats::Given(g)),
            (None, StatsMode::Filtered, Some(i)) => {
                Ok(Stats::Subset(SubsetStats::new(plan.shards, &subsets[i])?))
            }
            _ => Ok(Stats::Global(GlobalStats::new(plan.shards))),
        })
        .collect::<Result<Vec<_>>>()?;
    let addresses = Addresses::new(plan.shards)?;
    let analysed = queries.analyse();
    let ctx = Context {
        plan,
        subsets,
        settings: &settings,
        stats: &stats,
        addresses: &addresses,
    };
    let per_topic: Vec<Vec<(Vec<Hit>, Expansion)>> = analysed
        .par_iter()
        .enumerate()
        .map(|(t, (_, query))| ctx.topic(query, |v| first[v][t].1.clone()))
        .collect::<Result<_>>()?;
    let runs = plan.variants.len() * settings.len();
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

/// What every topic of a feedback batch shares.
struct Context<'a> {
    plan: &'a QueryPlan<'a>,
    subsets: &'a [Subset],
    settings: &'a [Feedback],
    stats: &'a [Stats<'a>],
    addresses: &'a Addresses,
}

impl Context<'_> {
    /// One topic: per run and setting, the second search's hits and the
    /// feedback query. `first(v)` is run `v`'s first-stage hits.
    fn topic(
        &self,
        query: &BagOfWords,
        first: impl Fn(usize) -> Vec<Hit>,
    ) -> Result<Vec<(Vec<Hit>, Expansion)>> {
        let (top, bottom) = self
            .settings
            .iter()
            .map(Feedback::documents_read)
            .fold((0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
        let field = self.plan.shards[0].fields.text(self.plan.field);
        let mut out = Vec::with_capacity(self.plan.variants.len() * self.settings.len());
        for (v, variant) in self.plan.variants.iter().enumerate() {
            let mut hits = first(v);
            anserini_order(&mut hits);
            let n = hits.len();
            let read: Vec<usize> = (0..n).filter(|&r| r < top || r + bottom >= n).collect();
            let places = read
                .iter()
                .map(|&r| self.addresses.get(&hits[r].docid))
                .collect::<Result<Vec<_>>>()?;
            let mut vectors = term_vectors(self.plan.shards, self.plan.field, &places)?.into_iter();
            let input = IndexInput {
                hits: hits
                    .into_iter()
                    .enumerate()
                    .map(|(r, h)| (h, read.binary_search(&r).ok().and_then(|_| vectors.next())))
                    .collect(),
                stats: self.stats[v].get(),
                field,
            };
            let rescore = Rescore {
                params: variant.params,
                stats: self.stats[v].get(),
                subset: variant.selection.map(|i| &self.subsets[i]),
            };
            for setting in self.settings {
                let e = setting.expand(&query.terms, &input)?;
                let hits = weighted_search(
                    self.plan.shards,
                    self.plan.field,
                    &e,
                    &rescore,
                    self.plan.hits,
                )?;
                out.push((hits, e));
            }
        }
        Ok(out)
    }
}
