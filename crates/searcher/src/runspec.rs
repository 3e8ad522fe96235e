//! Run settings → the runs of a batch: document selections named after
//! their thresholds or filter file, one run per BM25 setting and selection
//! with its tag and output file, and the writing of their results.
//!
//! Tags: every query-likelihood tag is `TAG_qld_mu-MU[_SELECTION]`, every
//! sequential-dependence tag `TAG_sdm_k1-K1_b-B[_SELECTION]`; a
//! BM25 run alone is tagged with the base tag, plus `_SELECTION` when a
//! selection is given, and with several runs `TAG_k1-K1_b-B[_SELECTION]`;
//! numbers are written by [`num_label`]. Runs come
//! in the order model, then k1 and b (BM25) or mu (QLD), then selection
//! (each in the order given).

use std::io::Write;
use std::path::{Path, PathBuf};

use sieve_filters::docfilter::{DocFilter, Thresholds, Unscored};
use sieve_format::schema::TextField;

use crate::Result;
use crate::batch::{
    DocSelection, Prepared, QueryPlan, RunResults, RunVariant, StatsMode, num_label,
    run_batch_phrases, run_path, select_all,
};
use crate::bm25::{Bm25Params, Hit, Shard};
use crate::feedback::Feedback;
use crate::feedback::run::{FeedbackResults, run_feedback};
use crate::queries::{Phrases, TopicQueries};
use crate::run::RunWriter;
use crate::stats::CollectionStats;
use crate::weighted::{Model, ModelVariant, QldParams, WeightedQuery, search_weighted};
use rayon::prelude::*;

/// The selection keeping documents with spam percentile `>= min_percentile`
/// (`unscored`: what happens to documents without a score), named
/// `spam{min_percentile}`. The percentile is not checked here (see
/// [`Thresholds::validate`], which [`crate::batch::run_batch`] does not call).
pub fn spam_selection(min_percentile: u8, unscored: Unscored) -> DocSelection {
    DocSelection {
        name: format!("spam{min_percentile}"),
        thresholds: Thresholds {
            min_spam_percentile: Some(min_percentile),
            unscored,
            ..Default::default()
        },
        filter: None,
    }
}

/// The selection dropping documents with more than `max_per_kb` invalid
/// 4/5/6-byte sequences per KB, named `i456le{max_per_kb}` ([`num_label`]).
/// A negative or non-finite rate is an error.
pub fn invalid_456_selection(max_per_kb: f64) -> Result<DocSelection> {
    let thresholds = Thresholds {
        max_rate_per_kb: [("invalid_4_5_6".to_string(), max_per_kb)].into(),
        ..Default::default()
    };
    thresholds.validate()?;
    Ok(DocSelection {
        name: format!("i456le{}", num_label(max_per_kb)),
        thresholds,
        filter: None,
    })
}

/// The selection keeping the documents of a filter file read from `path`,
/// named `f_{stem}`: the file stem with every character other than an ASCII
/// letter or digit replaced by `_` (`f_filter` when the path has no stem).
pub fn filter_selection(path: &Path, filter: DocFilter) -> DocSelection {
    let stem = path
        .file_stem()
        .map(|s| {
            s.to_string_lossy()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        })
        .unwrap_or_else(|| "filter".into());
    DocSelection {
        name: format!("f_{stem}"),
        thresholds: Thresholds::default(),
        filter: Some(filter),
    }
}

/// `sel` that also drops near-duplicates (every member of a
/// near-duplicate cluster but its representative, read from the index's
/// cluster columns, [`sieve_format::dups`]), named `{name}_nodup`; with
/// `None`, the selection that only drops near-duplicates, named `nodup`.
pub fn drop_near_duplicates(sel: Option<DocSelection>) -> DocSelection {
    let mut sel = sel.unwrap_or_else(|| DocSelection {
        name: String::new(),
        thresholds: Thresholds::default(),
        filter: None,
    });
    sel.thresholds.drop_near_duplicates = true;
    sel.name = if sel.name.is_empty() {
        "nodup".into()
    } else {
        format!("{}_nodup", sel.name)
    };
    sel
}

/// The document selections of a batch (`sieve-search run`'s filters), in
/// run order: one per minimum spam percentile, then one per maximum rate
/// of invalid 4/5/6-byte sequences per KB, then one per filter file, each
/// in the order given.
#[derive(Debug, Clone, Copy, Default)]
pub struct SelectionSpec<'a> {
    /// Keep documents with spam percentile `>=` each (0-100).
    pub min_spam_percentile: &'a [u8],
    /// What a spam selection does with documents without a score.
    pub unscored: Unscored,
    /// Drop documents with more than each rate (finite, `>= 0`).
    pub max_invalid_456_per_kb: &'a [f64],
    /// Filter files (from `sieve-filter build`), loaded here.
    pub filters: &'a [PathBuf],
    /// Also drop near-duplicates in every selection (alone: one selection
    /// that drops only them; see [`drop_near_duplicates`]).
    pub drop_near_duplicates: bool,
}

impl SelectionSpec<'_> {
    /// The selections ([`spam_selection`], [`invalid_456_selection`],
    /// [`filter_selection`]). A percentile above 100 is an
    /// [`crate::Error::InvalidParameter`] named `minimum spam percentile`;
    /// a bad rate or filter file is refused as those functions refuse it.
    pub fn selections(&self) -> Result<Vec<DocSelection>> {
        let mut selections = Vec::new();
        for &p in self.min_spam_percentile {
            if p > 100 {
                return Err(crate::Error::InvalidParameter {
                    name: MIN_SPAM_PERCENTILE,
                    expected: "0-100",
                    got: p.to_string(),
                });
            }
            selections.push(spam_selection(p, self.unscored));
        }
        for &x in self.max_invalid_456_per_kb {
            selections.push(invalid_456_selection(x)?);
        }
        for f in self.filters {
            selections.push(filter_selection(
                f,
                sieve_format::filterfile::load_filter(f)?,
            ));
        }
        if self.drop_near_duplicates {
            if selections.is_empty() {
                selections.push(drop_near_duplicates(None));
            } else {
                selections = selections
                    .into_iter()
                    .map(|s| drop_near_duplicates(Some(s)))
                    .collect();
            }
        }
        Ok(selections)
    }
}

/// The parameter name of a percentile refused by
/// [`SelectionSpec::selections`].
pub const MIN_SPAM_PERCENTILE: &str = "minimum spam percentile";

/// A retrieval model of `sieve-search run --model`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelName {
    /// BM25 (one run per k1 and b).
    Bm25,
    /// Query likelihood with Dirichlet smoothing (one run per mu).
    Qld,
    /// Anserini's sequential dependence model with BM25 (one run per k1
    /// and b; [`crate::sdm`]).
    Sdm,
}

impl ModelName {
    /// The model named `name` (`bm25`, `qld` or `sdm`).
    pub fn parse(name: &str) -> Result<ModelName> {
        match name {
            "bm25" => Ok(ModelName::Bm25),
            "qld" => Ok(ModelName::Qld),
            "sdm" => Ok(ModelName::Sdm),
            other => Err(crate::Error::InvalidParameter {
                name: "model",
                expected: "bm25, qld or sdm",
                got: other.to_string(),
            }),
        }
    }
}

/// One model setting of a batch (a run before its selection): BM25
/// parameters (used unless `qld` is given), the Dirichlet prior of a QLD
/// run, and the part of a tag that names it (`k1-0.9_b-0.4`,
/// `qld_mu-1000`, `sdm_k1-0.9_b-0.4`).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSetting {
    /// BM25 parameters.
    pub params: Bm25Params,
    /// `Some` for query likelihood.
    pub qld: Option<QldParams>,
    /// The sequential dependence model with `params`.
    pub sdm: bool,
    /// The tag part.
    pub label: String,
}

/// Every model setting of `models` (BM25 alone when empty), in order: one
/// per `(k1, b)` for BM25 (k1 varying slowest), one per mu for QLD; each
/// checked.
pub fn model_settings(
    models: &[ModelName],
    k1: &[f32],
    b: &[f32],
    mu: &[f32],
) -> Result<Vec<ModelSetting>> {
    let models: &[ModelName] = if models.is_empty() {
        &[ModelName::Bm25]
    } else {
        models
    };
    let mut settings = Vec::new();
    for model in models {
        match model {
            ModelName::Bm25 | ModelName::Sdm => {
                let sdm = *model == ModelName::Sdm;
                for &k1 in k1 {
                    for &b in b {
                        let label = format!("k1-{}_b-{}", num_label(k1), num_label(b));
                        settings.push(ModelSetting {
                            params: Bm25Params { k1, b }.validate()?,
                            qld: None,
                            sdm,
                            label: if sdm { format!("sdm_{label}") } else { label },
                        });
                    }
                }
            }
            ModelName::Qld => {
                for &mu in mu {
                    settings.push(ModelSetting {
                        params: Bm25Params::ANSERINI,
                        qld: Some(QldParams { mu }.validate()?),
                        sdm: false,
                        label: format!("qld_mu-{}", num_label(mu)),
                    });
                }
            }
        }
    }
    Ok(settings)
}

/// The settings of a batch of runs (`sieve-search run`).
#[derive(Debug, Default)]
pub struct RunSpec {
    /// The base run tag.
    pub tag: String,
    /// The models, in run order; empty means BM25 alone.
    pub models: Vec<ModelName>,
    /// Dirichlet priors: one QLD run per value (times selections).
    pub mu: Vec<f32>,
    /// BM25 k1 values: one run per value (times b, times selections).
    pub k1: Vec<f32>,
    /// BM25 b values.
    pub b: Vec<f32>,
    /// Document selections; none means one unfiltered run per setting.
    pub selections: Vec<DocSelection>,
    /// Collection statistics for filtered runs.
    pub stats: StatsMode,
    /// Hits per topic.
    pub hits: usize,
    /// How quoted phrases in topics are searched.
    pub phrases: Phrases,
    /// The one output file (wins over `output_dir`).
    pub output: Option<PathBuf>,
    /// The directory for run files named `TAG.run` ([`run_path`]).
    pub output_dir: Option<PathBuf>,
}

/// One run of a [`RunSpec`]: what to search and where its file goes.
#[derive(Debug, Clone)]
pub struct PlannedRun {
    /// BM25 parameters, selection and tag.
    pub variant: RunVariant,
    /// The run file: `output`, else `output_dir/TAG.run`, else `None`
    /// (standard output).
    pub output: Option<PathBuf>,
}

impl RunSpec {
    /// The runs, in the order of the module documentation, with their tags
    /// and output files. Invalid BM25 parameters are an error.
    pub fn runs(&self) -> Result<Vec<PlannedRun>> {
        let settings = model_settings(&self.models, &self.k1, &self.b, &self.mu)?;
        let several = settings.len() * self.selections.len().max(1) > 1;
        let sel_ids: Vec<Option<usize>> = if self.selections.is_empty() {
            vec![None]
        } else {
            (0..self.selections.len()).map(Some).collect()
        };
        let mut runs = Vec::new();
        for ModelSetting {
            params,
            qld,
            sdm,
            label,
        } in settings
        {
            for &selection in &sel_ids {
                let mut tag = self.tag.clone();
                if several || qld.is_some() || sdm {
                    tag = format!("{tag}_{label}");
                }
                if let Some(i) = selection {
                    tag = format!("{tag}_{}", self.selections[i].name);
                }
                let output = self.output_path(&tag);
                let variant = RunVariant {
                    params,
                    qld,
                    sdm,
                    selection,
                    tag,
                };
                runs.push(PlannedRun { variant, output });
            }
        }
        Ok(runs)
    }

    /// The run file for `tag`: see [`PlannedRun::output`].
    pub fn output_path(&self, tag: &str) -> Option<PathBuf> {
        match (&self.output, &self.output_dir) {
            (Some(p), _) => Some(p.clone()),
            (None, Some(dir)) => Some(run_path(dir, tag)),
            (None, None) => None,
        }
    }

    /// Searches `runs` (from [`RunSpec::runs`]) over `shards` (field
    /// `field`, statistics `global` when given: see [`QueryPlan::global`])
    /// for the topics of `queries`, with [`crate::batch::run_batch`]: one result list
    /// per run, in order.
    pub fn search(
        &self,
        runs: &[PlannedRun],
        shards: &[Shard],
        field: TextField,
        global: Option<&dyn CollectionStats>,
        queries: &TopicQueries<'_>,
    ) -> Result<Vec<RunResults>> {
        let variants: Vec<RunVariant> = runs.iter().map(|r| r.variant.clone()).collect();
        let plan = self.plan(shards, field, &variants, global);
        run_batch_phrases(&plan, queries, &self.selections, self.phrases)
    }

    /// Searches weighted queries of analysed terms (`(topic id, query)`,
    /// e.g. feedback queries made elsewhere) for every run of
    /// [`RunSpec::runs`], each with its model, selection and statistics;
    /// results in run order, topics in the order given. The terms are
    /// searched as given, not analysed again.
    pub fn search_weighted_queries(
        &self,
        queries: &[(String, WeightedQuery)],
        shards: &[Shard],
        field: TextField,
        global: Option<&dyn CollectionStats>,
    ) -> Result<Vec<RunResults>> {
        self.search_weighted_queries_as(queries, &|m| m, shards, field, global)
    }

    /// [`RunSpec::search_weighted_queries`], each run scored with the
    /// model `model` gives for the run's own (a feedback query's
    /// rescoring: the second search of the staged feedback protocol,
    /// [`crate::feedback::staged`]).
    pub fn search_weighted_queries_as(
        &self,
        queries: &[(String, WeightedQuery)],
        model: &(dyn Fn(Model) -> Model + Sync),
        shards: &[Shard],
        field: TextField,
        global: Option<&dyn CollectionStats>,
    ) -> Result<Vec<RunResults>> {
        let subsets = select_all(shards, &self.selections)?;
        let variants: Vec<RunVariant> = self.runs()?.into_iter().map(|r| r.variant).collect();
        let plan = self.plan(shards, field, &variants, global);
        let prepared = Prepared::new(plan, &subsets)?;
        let per_topic: Vec<Vec<Vec<Hit>>> = queries
            .par_iter()
            .map(|(_, q)| {
                (0..variants.len())
                    .map(|v| {
                        prepared.with_run(v, |stats, subset| {
                            let run = ModelVariant {
                                model: model(variants[v].model()),
                                stats,
                                subset,
                            };
                            let mut hits = search_weighted(shards, field, q, &[run], self.hits)?;
                            Ok(hits.pop().unwrap_or_default())
                        })
                    })
                    .collect::<Result<_>>()
            })
            .collect::<Result<_>>()?;
        let mut out: Vec<RunResults> = vec![Vec::with_capacity(queries.len()); variants.len()];
        for ((id, _), runs) in queries.iter().zip(per_topic) {
            for (slot, hits) in out.iter_mut().zip(runs) {
                slot.push((id.clone(), hits));
            }
        }
        Ok(out)
    }

    /// The query plan of this spec's runs `variants` over `shards`.
    fn plan<'a>(
        &self,
        shards: &'a [Shard],
        field: TextField,
        variants: &'a [RunVariant],
        global: Option<&'a dyn CollectionStats>,
    ) -> QueryPlan<'a> {
        QueryPlan {
            shards,
            field,
            variants,
            stats_mode: self.stats,
            global,
            hits: self.hits,
        }
    }

    /// The feedback runs: every run of [`RunSpec::runs`] once per feedback
    /// setting, tagged `TAG[_MODEL][_SELECTION]_FEEDBACK` (the setting's
    /// [`Feedback::label`]), in the order runs × settings.
    pub fn feedback_runs(&self, settings: &[Feedback]) -> Result<Vec<PlannedRun>> {
        let base = self.runs()?;
        Ok(base
            .iter()
            .flat_map(|r| {
                settings.iter().map(move |s| {
                    let tag = format!("{}_{}", r.variant.tag, s.label());
                    PlannedRun {
                        output: self.output_path(&tag),
                        variant: RunVariant {
                            tag,
                            ..r.variant.clone()
                        },
                    }
                })
            })
            .collect())
    }

    /// Searches the runs of [`RunSpec::runs`] with every feedback setting
    /// ([`crate::feedback::run::run_feedback`]: the feedback documents
    /// come from each run's own, filtered, ranking, `rerank_cutoff`
    /// deep, for `feedback = (settings, rerank_cutoff)`); results in
    /// [`RunSpec::feedback_runs`] order. Statistics from elsewhere (`global`) are refused.
    pub fn search_feedback(
        &self,
        feedback: (&[Feedback], usize),
        shards: &[Shard],
        field: TextField,
        global: Option<&dyn CollectionStats>,
        queries: &TopicQueries<'_>,
    ) -> Result<FeedbackResults> {
        let (settings, rerank_cutoff) = feedback;
        let subsets = select_all(shards, &self.selections)?;
        let variants: Vec<RunVariant> = self.runs()?.into_iter().map(|r| r.variant).collect();
        let plan = self.plan(shards, field, &variants, global);
        run_feedback(&plan, queries, &subsets, settings, rerank_cutoff)
    }
}

/// Checks that `results` can be written as a run tagged `tag` (ids that
/// pass the run-file id rule, hits ranked, each topic once) without
/// writing anything: call it before creating the file, so a refused run
/// leaves no file behind (an index built before docids were checked may
/// hold a docid with whitespace in it).
pub fn check_run(tag: &str, results: &[(String, Vec<Hit>)]) -> Result<()> {
    let mut w = RunWriter::new(std::io::sink(), tag)?;
    for (qid, hits) in results {
        let pairs: Vec<(&str, f32)> = hits.iter().map(|h| (h.docid.as_str(), h.score)).collect();
        w.check_topic(qid, &pairs)?;
    }
    Ok(())
}

/// Writes `results` (topic id, hits in rank order) as a TREC run tagged
/// `tag` to `out`, flushed; returns `out`. The whole run is checked first
/// ([`check_run`]): on an error nothing was written to `out`.
pub fn write_run<W: Write>(out: W, tag: &str, results: &[(String, Vec<Hit>)]) -> Result<W> {
    crate::run::check_shared_docids(results.iter().map(|(qid, hits)| {
        (
            qid.as_str(),
            hits.iter().map(|h| h.docid.as_str()).collect(),
        )
    }))?;
    check_run(tag, results)?;
    let mut w = RunWriter::new(out, tag)?;
    for (qid, hits) in results {
        let pairs: Vec<(&str, f32)> = hits.iter().map(|h| (h.docid.as_str(), h.score)).collect();
        w.write_topic(qid, &pairs)?;
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(k1: &[f32], b: &[f32], selections: &[&str]) -> RunSpec {
        RunSpec {
            tag: "sieve".into(),
            k1: k1.to_vec(),
            b: b.to_vec(),
            selections: selections
                .iter()
                .map(|n| DocSelection {
                    name: n.to_string(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    fn tags(s: &RunSpec) -> Vec<String> {
        s.runs()
            .unwrap()
            .into_iter()
            .map(|r| r.variant.tag)
            .collect()
    }

    #[test]
    fn one_run_keeps_the_tag() {
        assert_eq!(tags(&spec(&[0.9], &[0.4], &[])), ["sieve"]);
        assert_eq!(tags(&spec(&[0.9], &[0.4], &["spam70"])), ["sieve_spam70"]);
    }

    #[test]
    fn several_runs_name_k1_b_and_selection_in_order() {
        assert_eq!(
            tags(&spec(&[0.9, 1.2], &[0.4], &["spam50", "f_x"])),
            [
                "sieve_k1-0.9_b-0.4_spam50",
                "sieve_k1-0.9_b-0.4_f_x",
                "sieve_k1-1.2_b-0.4_spam50",
                "sieve_k1-1.2_b-0.4_f_x",
            ]
        );
        assert_eq!(
            tags(&spec(&[0.9], &[0.4, 0.75], &[])),
            ["sieve_k1-0.9_b-0.4", "sieve_k1-0.9_b-0.75"]
        );
    }

    #[test]
    fn qld_runs_follow_bm25_runs_with_their_own_tags() {
        let mut s = spec(&[0.9], &[0.4], &[]);
        s.models = vec![ModelName::Bm25, ModelName::Qld];
        s.mu = vec![1000.0, 2500.0];
        assert_eq!(
            tags(&s),
            [
                "sieve_k1-0.9_b-0.4",
                "sieve_qld_mu-1000",
                "sieve_qld_mu-2500"
            ]
        );
        let runs = s.runs().unwrap();
        assert_eq!(runs[0].variant.qld, None);
        assert_eq!(runs[2].variant.qld, Some(QldParams { mu: 2500.0 }));
        // A QLD or SDM run names its model even alone (the module docs).
        s.models = vec![ModelName::Qld];
        s.mu = vec![1000.0];
        assert_eq!(tags(&s), ["sieve_qld_mu-1000"]);
        s.models = vec![ModelName::Sdm];
        assert_eq!(tags(&s), ["sieve_sdm_k1-0.9_b-0.4"]);
        assert!(s.runs().unwrap()[0].variant.sdm);
        s.models = vec![ModelName::Qld];
        s.mu = vec![0.0];
        assert!(s.runs().is_err());
        assert!(ModelName::parse("bm26").is_err());
        assert_eq!(ModelName::parse("qld").unwrap(), ModelName::Qld);
    }

    #[test]
    fn output_paths() {
        let mut s = spec(&[0.9, 1.0], &[0.4], &[]);
        assert!(s.runs().unwrap().iter().all(|r| r.output.is_none()));
        s.output_dir = Some(PathBuf::from("out"));
        let runs = s.runs().unwrap();
        assert_eq!(
            runs[1].output,
            Some(PathBuf::from("out/sieve_k1-1_b-0.4.run"))
        );
        s.output = Some(PathBuf::from("one.run"));
        assert_eq!(s.output_path("x"), Some(PathBuf::from("one.run")));
    }

    #[test]
    fn invalid_bm25_parameters_are_refused() {
        assert!(spec(&[-1.0], &[0.4], &[]).runs().is_err());
        assert!(spec(&[0.9], &[1.5], &[]).runs().is_err());
    }

    #[test]
    fn selection_spec_orders_spam_then_rates_then_filters_and_checks_percentiles() {
        let spec = SelectionSpec {
            min_spam_percentile: &[70, 50],
            max_invalid_456_per_kb: &[0.5],
            ..Default::default()
        };
        let names: Vec<String> = spec
            .selections()
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["spam70", "spam50", "i456le0.5"]);
        let nodup = SelectionSpec {
            min_spam_percentile: &[70],
            drop_near_duplicates: true,
            ..Default::default()
        };
        let sel = nodup.selections().unwrap();
        assert_eq!(sel[0].name, "spam70_nodup");
        assert!(sel[0].thresholds.drop_near_duplicates);
        let alone = SelectionSpec {
            drop_near_duplicates: true,
            ..Default::default()
        };
        assert_eq!(alone.selections().unwrap()[0].name, "nodup");
        let bad = SelectionSpec {
            min_spam_percentile: &[101],
            ..Default::default()
        };
        let e = bad.selections().unwrap_err();
        assert!(
            matches!(&e, crate::Error::InvalidParameter { name, got, .. } if *name == MIN_SPAM_PERCENTILE && got == "101"),
            "{e:?}"
        );
        let nan = SelectionSpec {
            max_invalid_456_per_kb: &[f64::NAN],
            ..Default::default()
        };
        assert!(nan.selections().is_err());
        let missing = [PathBuf::from("/nonexistent/sieve/f.filter")];
        let missing = SelectionSpec {
            filters: &missing,
            ..Default::default()
        };
        assert!(missing.selections().is_err());
    }

    #[test]
    fn selection_names() {
        assert_eq!(spam_selection(70, Unscored::Keep).name, "spam70");
        assert_eq!(invalid_456_selection(0.5).unwrap().name, "i456le0.5");
        assert!(invalid_456_selection(-1.0).is_err());
        assert!(invalid_456_selection(f64::NAN).is_err());
    }
}
