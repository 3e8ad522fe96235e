//! Threshold sweeps: one index, one topic file, one qrels file, many filter
//! thresholds (and model and feedback settings), searched in one pass over
//! the postings, every run evaluated and compared with the unfiltered run
//! of the same model and feedback setting.
//!
//! # Settings
//!
//! A sweep varies one or more [`rules`] ([`Axis`]: a rule and its
//! thresholds). Without [`SweepSpec::cross`], each threshold of each axis
//! is one filter (the comma lists of `sieve-search run`); with it, each
//! combination of one threshold per axis is one filter (every rule of the
//! combination must keep a document). Each filter is crossed with every
//! model setting (each BM25 `(k1, b)`, each QLD `mu`, in the order of
//! [`crate::runspec::model_settings`]) and, with
//! [`SweepSpec::feedback`], with every feedback setting (in the order of
//! [`crate::feedback::FeedbackSpec::settings`]); each model setting (each
//! model and feedback setting) also gets its **baseline**, the unfiltered
//! run with that model (and feedback). Settings come in the order of the
//! model settings, then the feedback settings, then the baseline and the
//! filters (the first axis varying slowest).
//!
//! Tags: `TAG[_MODEL][_FILTER][_FEEDBACK]`: `MODEL` (`k1-0.9_b-0.4`,
//! `qld_mu-1000`, as `sieve-search run` names runs) when the sweep has
//! more than one model setting, and always for QLD; `FILTER` is the rule
//! labels of [`Rule::label`] joined by `_` (`spam70`, `spam70_i456le0.5`);
//! `FEEDBACK` is the feedback setting's [`Feedback::label`]
//! (`rm3_t10_d10_w0.5`). A setting with one filter rule is tagged as
//! `sieve-search run` (with the same `--feedback`) tags the same
//! selection, so its run file is the same.
//!
//! # Feedback
//!
//! A feedback setting searches each topic twice, as `sieve-search run
//! --feedback` does ([`crate::feedback::run`]): the first stage (the
//! setting's model, in its filter's selection, with its statistics,
//! [`SweepSpec::rerank_cutoff`] deep) gives the feedback documents, so
//! **under a filter the feedback documents come from the filtered
//! ranking**; the feedback query is then searched in the same selection,
//! [`SweepSpec::hits`] deep. The first stage of one model setting and
//! filter is shared by every feedback setting: it is searched once per
//! topic (every model setting and filter in one pass, as without
//! feedback) and its feedback documents are read once.
//!
//! # Evaluation and statistics
//!
//! Every setting is evaluated over the same topics: without
//! `complete`, the topics of the topic file that have judgements; with it
//! (trec_eval `-c`), every topic of the qrels. A topic for which a setting
//! retrieves nothing counts 0 (as trec_eval `-c` counts a missing topic),
//! so a filter that empties a topic's results is not rewarded by dropping
//! the topic from its average. When every judged topic of the topic file
//! retrieves something, the means are exactly what `sieve-search eval`
//! prints for the setting's run file (tested).
//!
//! For each measure, each filtered setting is compared with its baseline
//! over those topics ([`crate::compare::pairs`]): the mean difference, its
//! 95% confidence interval and the paired two-sided t-test
//! ([`crate::paired`]), and wins/losses/ties. The p-values of one measure
//! over all filtered settings of the sweep are one family, corrected with
//! Holm's method ([`crate::paired::holm`]).
//!
//! # Memory and output
//!
//! Topics are searched in groups (in parallel within a group); each
//! group's hits are written to the run files (when asked for), evaluated
//! (as `eval` reads the run file: [`crate::run::Run::from_ranked`]) and dropped, so memory holds one group's hits, not the whole sweep's:
//! what stays is, per setting and topic, the evaluation and the first ten
//! docids (for the HTML page).

mod groups;
pub mod rules;
pub mod table;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sieve_analysis::EnglishAnalyzer;
use sieve_filters::docfilter::Unscored;
use sieve_format::schema::TextField;

pub use crate::robust::{Resampling, Robust};
use groups::{Absorbed, Absorber, RunFileSet, search_in_groups};
pub use rules::{Axis, Rule, Scale};

use crate::batch::{
    DocSelection, Prepared, QueryPlan, RunVariant, StatsMode, count_kept, select_all,
};
use crate::bm25::{BagOfWords, Bm25Params, Hit, Shard, Subset};
use crate::compare::pairs;
use crate::eval::{Evaluation, Measure};
use crate::feedback::Feedback;
use crate::feedback::run::FeedbackSearch;
use crate::judged::{Judgements, Loss};
use crate::paired::{Paired, holm, paired};
use crate::qrels::Qrels;
use crate::queries::TopicQueries;
use crate::risk::{ALPHAS, georisk as georisk_of};
use crate::runspec::{ModelName, ModelSetting, model_settings};
use crate::topics::{Topic, TopicField};
use crate::weighted::QldParams;
use crate::{Error, Result};

/// The most settings one sweep may have (each holds a run file open and a
/// series in the figure): split larger sweeps.
pub const MAX_SETTINGS: usize = 500;

/// Hits kept per setting and topic for the HTML page.
pub const TOP_DOCS: usize = 10;

/// What to sweep.
#[derive(Debug, Clone)]
pub struct SweepSpec {
    /// The base run tag.
    pub tag: String,
    /// The rules and their thresholds.
    pub axes: Vec<Axis>,
    /// Every combination of one threshold per axis (else each threshold
    /// alone).
    pub cross: bool,
    /// Documents without a spam score, under a spam rule.
    pub unscored: Unscored,
    /// The models (BM25 alone when empty): one more axis, crossed with
    /// the filters (module docs).
    pub models: Vec<ModelName>,
    /// Dirichlet priors of the QLD settings.
    pub mu: Vec<f32>,
    /// BM25 k1 values.
    pub k1: Vec<f32>,
    /// BM25 b values.
    pub b: Vec<f32>,
    /// Collection statistics of the filtered runs.
    pub stats: StatsMode,
    /// Hits per topic.
    pub hits: usize,
    /// Unique analysed terms per topic ([`crate::queries`]).
    pub max_query_terms: usize,
    /// Feedback settings (module docs): none, no feedback; else every
    /// model setting and filter is searched once per setting, and there
    /// is no setting without feedback.
    pub feedback: Vec<Feedback>,
    /// With feedback, the first stage's depth (Anserini's
    /// `-rerankCutoff`, at least 1).
    pub rerank_cutoff: usize,
}

/// One setting of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// The run tag (module docs).
    pub tag: String,
    /// BM25 parameters (unused when `qld` is given).
    pub params: Bm25Params,
    /// `Some` for a query-likelihood setting.
    pub qld: Option<QldParams>,
    /// The feedback setting (`None`: no feedback).
    pub feedback: Option<Feedback>,
    /// The filter: one `(rule, threshold)` per rule it applies, in axis
    /// order; empty for a baseline.
    pub conditions: Vec<(Rule, f64)>,
    /// The index of the filter's selection in [`Plan::selections`] (`None`
    /// for a baseline).
    pub selection: Option<usize>,
    /// The index of this setting's baseline in [`Plan::settings`] (itself
    /// for a baseline).
    pub baseline: usize,
}

impl Setting {
    /// True for an unfiltered baseline.
    pub fn is_baseline(&self) -> bool {
        self.selection.is_none()
    }

    /// The filter in words (`spam >= 70 and invalid_4_5_6 <= 0.5/KB`), or
    /// `unfiltered`.
    pub fn describe(&self) -> String {
        if self.conditions.is_empty() {
            return "unfiltered".into();
        }
        let parts: Vec<String> = self
            .conditions
            .iter()
            .map(|(r, x)| r.describe(*x))
            .collect();
        parts.join(" and ")
    }
}

/// The settings of a sweep and the document selections they use.
#[derive(Debug)]
pub struct Plan {
    /// Every setting, baselines included, in the module docs' order.
    pub settings: Vec<Setting>,
    /// One selection per filter.
    pub selections: Vec<DocSelection>,
    /// The rules of the sweep, in axis order.
    pub rules: Vec<Rule>,
    /// True when the sweep has more than one model setting.
    pub several_params: bool,
    /// With feedback, how its settings are searched (`None`: without).
    pub feedback: Option<FeedbackPlan>,
}

/// How the settings of a sweep with feedback are searched: a feedback
/// batch ([`FeedbackSearch`]) whose runs are `first_stage` ×
/// `settings` (settings varying fastest).
#[derive(Debug, Clone)]
pub struct FeedbackPlan {
    /// The feedback settings, in order.
    pub settings: Vec<Feedback>,
    /// The first stage: one run per model setting and filter (the
    /// unfiltered run first), model settings varying slowest, each tagged
    /// as the sweep without feedback tags it.
    pub first_stage: Vec<RunVariant>,
    /// Per setting of the sweep ([`Plan::settings`]), its run in the
    /// feedback batch.
    pub source: Vec<usize>,
}

impl SweepSpec {
    /// The settings and selections (see the module docs). Refused: no axis,
    /// the same rule on two axes, an empty k1 or b list, invalid BM25 or
    /// feedback parameters, more than [`MAX_SETTINGS`] settings.
    pub fn plan(&self) -> Result<Plan> {
        let rules = self.rules()?;
        let filters = self.filters();
        let models = self.models()?;
        let feedback: Vec<Feedback> = self
            .feedback
            .iter()
            .map(|f| f.validate())
            .collect::<Result<_>>()?;
        if !feedback.is_empty() && self.rerank_cutoff == 0 {
            return Err(Error::InvalidParameter {
                name: "rerank cutoff",
                expected: "an integer >= 1",
                got: "0".into(),
            });
        }
        let per_model = feedback.len().max(1) * (filters.len() + 1);
        let total = models.len() * per_model;
        if total > MAX_SETTINGS {
            return Err(Error::InvalidParameter {
                name: "thresholds",
                expected: "at most 500 settings (filters plus the baseline, times the model settings, times the feedback settings): split the sweep",
                got: format!("{total} settings"),
            });
        }
        let selections: Vec<DocSelection> =
            filters.iter().map(|conds| self.selection(conds)).collect();
        let several_params = models.len() > 1;
        let mut settings = Vec::with_capacity(total);
        let mut first_stage = Vec::new();
        for m in &models {
            if feedback.is_empty() {
                self.push_settings(
                    m,
                    several_params,
                    None,
                    &filters,
                    &selections,
                    &mut settings,
                );
                continue;
            }
            let mut plain = Vec::with_capacity(filters.len() + 1);
            self.push_settings(m, several_params, None, &filters, &selections, &mut plain);
            first_stage.extend(plain.iter().map(Setting::variant));
            for f in &feedback {
                self.push_settings(
                    m,
                    several_params,
                    Some(f),
                    &filters,
                    &selections,
                    &mut settings,
                );
            }
        }
        let feedback = (!feedback.is_empty()).then(|| FeedbackPlan {
            source: feedback_sources(models.len(), feedback.len(), filters.len() + 1),
            settings: feedback,
            first_stage,
        });
        Ok(Plan {
            settings,
            selections,
            rules,
            several_params,
            feedback,
        })
    }

    /// The rules of the axes, in axis order; refused when there is no
    /// axis or a rule is on two.
    fn rules(&self) -> Result<Vec<Rule>> {
        if self.axes.is_empty() {
            return Err(Error::InvalidParameter {
                name: "thresholds",
                expected: "at least one rule with thresholds to sweep",
                got: "none".into(),
            });
        }
        let rules: Vec<Rule> = self.axes.iter().map(|a| a.rule).collect();
        for (i, r) in rules.iter().enumerate() {
            if rules[..i].contains(r) {
                return Err(Error::InvalidParameter {
                    name: "thresholds",
                    expected: "each rule once",
                    got: format!("{} given twice", r.key()),
                });
            }
        }
        Ok(rules)
    }

    /// The filters, each a list of `(rule, threshold)`: every combination
    /// of one threshold per axis with [`SweepSpec::cross`] (the first axis
    /// varying slowest), else each threshold alone.
    fn filters(&self) -> Vec<Vec<(Rule, f64)>> {
        if !self.cross {
            return self
                .axes
                .iter()
                .flat_map(|a| a.values.iter().map(move |&x| vec![(a.rule, x)]))
                .collect();
        }
        let mut combos: Vec<Vec<(Rule, f64)>> = vec![Vec::new()];
        for axis in &self.axes {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    axis.values.iter().map(move |&x| {
                        let mut c = c.clone();
                        c.push((axis.rule, x));
                        c
                    })
                })
                .collect();
        }
        combos
    }

    /// Every model setting ([`model_settings`]), checked; refused when
    /// empty.
    fn models(&self) -> Result<Vec<ModelSetting>> {
        let settings = model_settings(&self.models, &self.k1, &self.b, &self.mu)?;
        if let Some(m) = settings.iter().find(|m| m.sdm) {
            return Err(Error::InvalidParameter {
                name: "model",
                expected: "bm25 or qld (a sweep does not search sdm: use `run --model sdm`)",
                got: m.label.clone(),
            });
        }
        if settings.is_empty() {
            return Err(Error::InvalidParameter {
                name: "k1/b/mu",
                expected: "at least one k1 and one b (BM25), or one mu (QLD)",
                got: "an empty list".into(),
            });
        }
        Ok(settings)
    }

    /// The selection of one filter, named by [`filter_label`].
    fn selection(&self, conds: &[(Rule, f64)]) -> DocSelection {
        let mut sel = DocSelection {
            name: filter_label(conds),
            ..DocSelection::default()
        };
        for &(rule, x) in conds {
            rule.apply(x, self.unscored, &mut sel);
        }
        sel
    }

    /// Pushes onto `settings` the baseline of model setting `m` with
    /// feedback setting `feedback` and then one setting per filter, tagged
    /// as the module docs say.
    fn push_settings(
        &self,
        m: &ModelSetting,
        several_params: bool,
        feedback: Option<&Feedback>,
        filters: &[Vec<(Rule, f64)>],
        selections: &[DocSelection],
        settings: &mut Vec<Setting>,
    ) {
        let base_tag = if several_params || m.qld.is_some() {
            format!("{}_{}", self.tag, m.label)
        } else {
            self.tag.clone()
        };
        let with_feedback = |tag: String| match feedback {
            Some(f) => format!("{tag}_{}", f.label()),
            None => tag,
        };
        let baseline = settings.len();
        settings.push(Setting {
            tag: with_feedback(base_tag.clone()),
            params: m.params,
            qld: m.qld,
            feedback: feedback.copied(),
            conditions: Vec::new(),
            selection: None,
            baseline,
        });
        for (i, conds) in filters.iter().enumerate() {
            settings.push(Setting {
                tag: with_feedback(format!("{base_tag}_{}", selections[i].name)),
                params: m.params,
                qld: m.qld,
                feedback: feedback.copied(),
                conditions: conds.clone(),
                selection: Some(i),
                baseline,
            });
        }
    }
}

impl Setting {
    /// The run a batch searches for this setting without its feedback.
    fn variant(&self) -> RunVariant {
        RunVariant {
            params: self.params,
            qld: self.qld,
            sdm: false,
            selection: self.selection,
            tag: self.tag.clone(),
        }
    }
}

/// Where each setting of a sweep with feedback comes from in its feedback
/// batch ([`FeedbackPlan::source`]): the sweep's settings are `models` ×
/// `feedback` × `per_filter` (the baseline and each filter), the batch's
/// runs `models` × `per_filter` (the first stage) × `feedback`.
fn feedback_sources(models: usize, feedback: usize, per_filter: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(models * feedback * per_filter);
    for m in 0..models {
        for f in 0..feedback {
            for j in 0..per_filter {
                out.push((m * per_filter + j) * feedback + f);
            }
        }
    }
    out
}

/// The tag part of a filter: its rule labels joined by `_`.
fn filter_label(conds: &[(Rule, f64)]) -> String {
    let parts: Vec<String> = conds.iter().map(|(r, x)| r.label(*x)).collect();
    parts.join("_")
}

/// Where the run files of a sweep go, if anywhere.
#[derive(Debug, Clone, Default)]
pub struct RunFiles {
    /// The directory (created if missing); `None`: no run files.
    pub dir: Option<PathBuf>,
}

/// A sweep, searched and evaluated.
#[derive(Debug)]
pub struct Outcome {
    /// The settings ([`Plan::settings`]).
    pub settings: Vec<Setting>,
    /// The rules, in axis order.
    pub rules: Vec<Rule>,
    /// Whether the sweep has more than one model setting.
    pub several_params: bool,
    /// Live documents kept by each setting (every one for a baseline).
    pub kept: Vec<u64>,
    /// Live documents of the index.
    pub total_docs: u64,
    /// Each setting's evaluation (module docs: the topics it is over).
    pub evals: Vec<Evaluation>,
    /// With [`Inputs::judged_only`]: each setting's evaluation with
    /// trec_eval `-J` (over the same topics).
    pub judged_evals: Option<Vec<Evaluation>>,
    /// Per setting, per topic id: the first [`TOP_DOCS`] docids in rank
    /// order.
    pub top_docs: Vec<BTreeMap<String, Vec<String>>>,
    /// The run files written, per setting.
    pub run_files: Vec<PathBuf>,
    /// The evaluated topics' judgements, located in the index (how many
    /// name a document it holds, how many one it does not).
    pub judgements: Judgements,
    /// Per setting, what its filter removed that was judged
    /// ([`crate::judged`]; `None` for a baseline).
    pub losses: Vec<Option<Loss>>,
    /// The run depth (hits per topic).
    pub depth: usize,
    /// Seconds spent selecting documents (the bitmaps of every filter).
    pub select_seconds: f64,
    /// Seconds spent searching, evaluating and writing, all settings.
    pub search_seconds: f64,
}

impl Outcome {
    /// True when the sweep's settings have feedback.
    pub fn has_feedback(&self) -> bool {
        self.settings.iter().any(|s| s.feedback.is_some())
    }

    /// The number of baselines (unfiltered settings): one per model
    /// setting and feedback setting.
    pub fn baselines(&self) -> usize {
        self.settings.iter().filter(|s| s.is_baseline()).count()
    }
}

/// The qrels a sweep evaluates against (module docs): `qrels` itself with
/// `complete`, else its topics that are in `topics`.
pub fn judged_topics(qrels: &Qrels, topics: &[Topic], complete: bool) -> Qrels {
    if complete {
        return qrels.clone();
    }
    let ids: std::collections::HashSet<&str> = topics.iter().map(|t| t.id.as_str()).collect();
    qrels.only(|q| ids.contains(q))
}

/// The inputs of [`run`] besides the plan.
pub struct Inputs<'a> {
    /// The index, as shards.
    pub shards: &'a [Shard],
    /// The index's analyser.
    pub analyzer: &'a EnglishAnalyzer,
    /// The topics.
    pub topics: &'a [Topic],
    /// Which topic text is the query.
    pub topic_field: TopicField,
    /// Which index field is searched.
    pub field: TextField,
    /// The judgements.
    pub qrels: &'a Qrels,
    /// trec_eval `-c`.
    pub complete: bool,
    /// Also evaluate every setting with trec_eval `-J` (judged documents
    /// only): [`Outcome::judged_evals`].
    pub judged_only: bool,
}

/// Searches every setting of `plan` in one pass over the postings per
/// topic, writes the run files (atomically: each is written under a
/// temporary name and renamed when complete), and evaluates every setting
/// (module docs). `progress` is called after each group of topics with the
/// number of topics done.
pub fn run(
    spec: &SweepSpec,
    plan: Plan,
    inputs: &Inputs<'_>,
    files: &RunFiles,
    progress: &mut dyn FnMut(usize),
) -> Result<Outcome> {
    let started = std::time::Instant::now();
    let subsets = select_all(inputs.shards, &plan.selections)?;
    let total_docs: u64 = inputs.shards.iter().map(|s| s.searcher.num_docs()).sum();
    let kept: Vec<u64> = plan
        .settings
        .iter()
        .map(|s| match s.selection {
            Some(i) => count_kept(inputs.shards, &subsets[i]),
            None => total_docs,
        })
        .collect();
    let select_seconds = started.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let variants: Vec<RunVariant> = match &plan.feedback {
        None => plan.settings.iter().map(Setting::variant).collect(),
        Some(f) => f.first_stage.clone(),
    };
    let query_plan = QueryPlan {
        shards: inputs.shards,
        field: inputs.field,
        variants: &variants,
        stats_mode: spec.stats,
        global: None,
        hits: spec.hits,
    };
    let search = Search::new(
        &query_plan,
        &subsets,
        plan.feedback.as_ref(),
        spec.rerank_cutoff,
    )?;
    let queries = TopicQueries {
        analyzer: inputs.analyzer,
        topics: inputs.topics,
        field: inputs.topic_field,
        max_terms: spec.max_query_terms,
    }
    .analyse();
    let qrels = judged_topics(inputs.qrels, inputs.topics, inputs.complete);
    if qrels.num_topics() == 0 {
        return Err(Error::NoJudgedTopics {
            topics: inputs.topics.len(),
        });
    }
    let mut absorber = Absorber::new(
        &plan.settings,
        &qrels,
        RunFileSet::create(files, &plan.settings)?,
        inputs.judged_only,
    );
    search_in_groups(&queries, &search, &mut absorber, progress)?;
    let absorbed = absorber.finish()?;
    let judgements = Judgements::locate(inputs.shards, &qrels)?;
    let losses = judged_losses(&plan.settings, &subsets, &judgements, &absorbed, spec.hits);
    Ok(Outcome {
        settings: plan.settings,
        rules: plan.rules,
        several_params: plan.several_params,
        kept,
        total_docs,
        evals: absorbed.evals,
        judged_evals: absorbed.judged_evals,
        top_docs: absorbed.top_docs,
        run_files: absorbed.run_files,
        judgements,
        losses,
        depth: spec.hits,
        select_seconds,
        search_seconds: started.elapsed().as_secs_f64(),
    })
}

/// Per setting, what its filter removed that was judged, against its
/// baseline's ranking (`None` for a baseline).
fn judged_losses(
    settings: &[Setting],
    subsets: &[Subset],
    judgements: &Judgements,
    absorbed: &Absorbed,
    depth: usize,
) -> Vec<Option<Loss>> {
    settings
        .iter()
        .map(|s| {
            let subset = &subsets[s.selection?];
            Some(judgements.loss(subset, &absorbed.relevant[s.baseline], depth))
        })
        .collect()
}

/// How a sweep searches one topic: every setting in one pass, or, with
/// feedback, the feedback batch of [`FeedbackPlan`].
enum Search<'a> {
    /// Every setting is a run of the batch, in setting order.
    Plain(Prepared<'a>),
    /// Every setting is the run of the feedback batch its `source` names.
    Feedback(FeedbackSearch<'a>, &'a [usize]),
}

impl<'a> Search<'a> {
    fn new(
        query_plan: &QueryPlan<'a>,
        subsets: &'a [Subset],
        feedback: Option<&'a FeedbackPlan>,
        rerank_cutoff: usize,
    ) -> Result<Search<'a>> {
        Ok(match feedback {
            None => Search::Plain(Prepared::new(*query_plan, subsets)?),
            Some(f) => Search::Feedback(
                FeedbackSearch::new(query_plan, subsets, &f.settings, rerank_cutoff)?,
                &f.source,
            ),
        })
    }

    /// The hits of `query` for every setting, in setting order.
    fn search(&self, query: &BagOfWords) -> Result<Vec<Vec<Hit>>> {
        match self {
            Search::Plain(p) => p.search(query),
            Search::Feedback(f, source) => {
                let mut runs: Vec<Option<Vec<Hit>>> =
                    f.topic(query)?.into_iter().map(|(h, _)| Some(h)).collect();
                Ok(source
                    .iter()
                    .map(|&i| runs[i].take().unwrap_or_default())
                    .collect())
            }
        }
    }
}

/// One measure of one filtered setting against its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Versus {
    /// The paired statistics of the per-topic differences (setting minus
    /// baseline).
    pub paired: Paired,
    /// The Holm-corrected p-value of the t-test over the sweep's settings.
    pub p_holm: Option<f64>,
    /// The tests with fewer assumptions and the risk measures.
    pub robust: Robust,
}

/// Which test's Holm-corrected p-value the terminal summary shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Test {
    /// The paired t-test.
    #[default]
    T,
    /// The paired randomisation test.
    Randomisation,
    /// The Wilcoxon signed-rank test.
    Wilcoxon,
}

impl Versus {
    /// The Holm-corrected p-value of `test`.
    pub fn p_holm_of(&self, test: Test) -> Option<f64> {
        match test {
            Test::T => self.p_holm,
            Test::Randomisation => self.robust.p_rand_holm,
            Test::Wilcoxon => self.robust.p_wilcoxon_holm,
        }
    }
}

/// The table of a sweep: per setting, per measure, the mean and (for a
/// filtered setting and a measure that is not a count) the comparison with
/// the baseline.
#[derive(Debug, Clone)]
pub struct Table {
    /// The measures, in column order.
    pub measures: Vec<Measure>,
    /// `means[setting][measure]`: [`Evaluation::mean`].
    pub means: Vec<Vec<f64>>,
    /// `versus[setting][measure]`: `None` for a baseline or a count.
    pub versus: Vec<Vec<Option<Versus>>>,
    /// `georisk[setting][measure]`: GeoRisk at each of
    /// [`crate::risk::ALPHAS`] among the settings that share the setting's
    /// baseline (the baseline included; `None` for a count).
    pub georisk: Vec<Vec<[Option<f64>; 2]>>,
    /// With [`Outcome::judged_evals`]: the same table of the evaluations
    /// with trec_eval `-J`, for the measures but the judged share (which
    /// `-J` makes 1 whenever `k` judged documents are retrieved).
    pub judged_only: Option<Box<Table>>,
}

/// One measure's column of a [`Table`]: per setting, its comparison and
/// its GeoRisk.
type Column = (Vec<Option<Versus>>, Vec<[Option<f64>; 2]>);

impl Table {
    /// Computes the table of `outcome` for `measures`, the resampling
    /// statistics drawn as [`Resampling::default`] says.
    pub fn new(outcome: &Outcome, measures: &[Measure]) -> Table {
        Table::with(outcome, measures, Resampling::default())
    }

    /// Computes the table of `outcome` for `measures` (and its
    /// [`Table::judged_only`] when the sweep evaluated with `-J`), the
    /// resampling statistics drawn as `draws` says.
    pub fn with(outcome: &Outcome, measures: &[Measure], draws: Resampling) -> Table {
        let mut t = Table::of(&outcome.settings, &outcome.evals, measures, draws);
        if let Some(evals) = &outcome.judged_evals {
            let j: Vec<Measure> = measures
                .iter()
                .copied()
                .filter(|m| !m.is_judged_share())
                .collect();
            t.judged_only = Some(Box::new(Table::of(&outcome.settings, evals, &j, draws)));
        }
        t
    }

    /// The table of `settings` evaluated as `evals` (one per setting),
    /// measures in parallel.
    fn of(
        settings: &[Setting],
        evals: &[Evaluation],
        measures: &[Measure],
        draws: Resampling,
    ) -> Table {
        use rayon::prelude::*;
        let means = evals
            .iter()
            .map(|e| measures.iter().map(|&m| e.mean(m)).collect())
            .collect();
        let n = settings.len();
        let columns: Vec<Column> = measures
            .par_iter()
            .map(|&m| match m.is_count() {
                true => (vec![None; n], vec![[None; 2]; n]),
                false => column(settings, evals, m, draws),
            })
            .collect();
        let mut versus = vec![Vec::with_capacity(measures.len()); n];
        let mut georisk = vec![Vec::with_capacity(measures.len()); n];
        for (v, g) in columns {
            for (i, (v, g)) in v.into_iter().zip(g).enumerate() {
                versus[i].push(v);
                georisk[i].push(g);
            }
        }
        Table {
            measures: measures.to_vec(),
            means,
            versus,
            georisk,
            judged_only: None,
        }
    }
}

/// Measure `m`'s comparisons of every filtered setting with its baseline
/// (Holm over the sweep for each test) and every setting's GeoRisk.
fn column(settings: &[Setting], evals: &[Evaluation], m: Measure, draws: Resampling) -> Column {
    let values = |i: usize| -> Vec<crate::compare::TopicChange> {
        pairs(&evals[settings[i].baseline], &evals[i], m)
    };
    let mut versus: Vec<Option<Versus>> = vec![None; settings.len()];
    for i in (0..settings.len()).filter(|&i| !settings[i].is_baseline()) {
        let d: Vec<f64> = values(i).iter().map(|p| p.diff()).collect();
        versus[i] = Some(Versus {
            paired: paired(&d),
            p_holm: None,
            robust: Robust::of(&d, draws),
        });
    }
    holm_each(&mut versus);
    let mut georisk = vec![[None; 2]; settings.len()];
    for b in (0..settings.len()).filter(|&b| settings[b].is_baseline()) {
        let group: Vec<usize> = (0..settings.len())
            .filter(|&i| settings[i].baseline == b)
            .collect();
        let x: Vec<Vec<f64>> = group
            .iter()
            .map(|&i| values(i).iter().map(|p| p.b).collect())
            .collect();
        let g: Vec<Vec<Option<f64>>> = ALPHAS.iter().map(|&a| georisk_of(&x, a)).collect();
        for (k, &i) in group.iter().enumerate() {
            georisk[i] = [g[0][k], g[1][k]];
        }
    }
    (versus, georisk)
}

/// Holm's correction of each test's p-values over the settings of one
/// measure.
fn holm_each(versus: &mut [Option<Versus>]) {
    let of = |f: fn(&Versus) -> Option<f64>| -> Vec<Option<f64>> {
        versus.iter().map(|v| v.as_ref().and_then(f)).collect()
    };
    let t = holm(&of(|v| v.paired.p));
    let r = holm(&of(|v| v.robust.p_rand));
    let w = holm(&of(|v| v.robust.p_wilcoxon));
    for (i, v) in versus.iter_mut().enumerate() {
        if let Some(v) = v {
            v.p_holm = t[i];
            v.robust.p_rand_holm = r[i];
            v.robust.p_wilcoxon_holm = w[i];
        }
    }
}

/// `path` written atomically: `bytes` go to a unique temporary file
/// beside it, which is synced and renamed over `path` once complete
/// ([`sieve_format::outfile::write_atomic`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(sieve_format::outfile::write_atomic(path, bytes)?)
}

#[cfg(test)]
mod tests;
