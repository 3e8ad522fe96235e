//! Evaluation of a run against qrels, with the numbers trec_eval 9.0.8 and
//! gdeval.pl print, on any input.
//!
//! # trec_eval measures
//!
//! As trec_eval 9 with `-l 1`, and optionally `-c`, `-M` and `-J`
//! ([`EvalOptions`]); [`Measure`] lists them, [`MeasureSpec`] parses `-m`.
//! - Ranking ([`Run::trec_eval_ranked`]): each score is rounded to a C
//!   `float` (`f32`) as trec_eval stores it, so scores equal as `f32` tie;
//!   order is score descending, ties by docno descending (`strcmp`), as
//!   glibc's `qsort` leaves it, which also fixes where a NaN score lands
//!   (NaN compares neither greater nor less, so it "ties" with everything).
//!   The rank column is ignored. With `-M n` only the first `n` documents of
//!   that order are evaluated. Runs with duplicate documents are refused when
//!   read (trec_eval's "duplicate docs"), unless de-duplicated on reading.
//! - `-J` (judged documents only, `form_res_rels.c`): after `-M`, every
//!   retrieved document that is not in the topic's qrels **or is judged
//!   below 0** (trec_eval reads a negative grade as "in the pool but
//!   unjudged") is removed; the others keep their order and move up. Every
//!   measure is then computed on that ranking: `num_ret` counts the judged
//!   documents kept, `P_k` divides by `k` still, `num_rel` is unchanged.
//!   So `-J -M 10` evaluates the judged documents among the first 10, not
//!   the first 10 judged ones.
//! - A document is relevant if its grade is `>= 1`; `num_rel` counts judged
//!   documents with grade `>= 1`. Grade `0` is judged non-relevant; negative
//!   grades (Web Track `-2` junk) are non-relevant and, for `bpref`, "in the
//!   pool but unjudged" (skipped, as unjudged documents are).
//! - Only topics both in the run and in the qrels are evaluated; topics only
//!   in the run are ignored. A topic with no relevant document scores 0.
//! - `map`: sum over relevant retrieved documents of the precision at their
//!   rank, over `num_rel`. `P_k`: relevant in the first `k` over `k`.
//!   `recall_k`: relevant in the first `k` over `num_rel`. `Rprec`: relevant
//!   in the first `num_rel` over `num_rel`. `recip_rank`: 1 / rank of the
//!   first relevant document (0 if none). `success_k`: 1 if a relevant
//!   document is in the first `k`. `bpref`: over relevant retrieved documents
//!   `r`, `1 - min(n_r, R) / min(N, R)` (1 when `n_r = 0`), summed over `R`,
//!   where `n_r` = judged non-relevant (grade 0) documents above `r`, `R` =
//!   `num_rel`, `N` = documents judged 0. `ndcg_cut_k`: DCG of the first `k`
//!   (gain = grade, discount `log2(rank + 1)`) over the DCG of the first `k`
//!   of the ideal ranking (grades `>= 1` descending).
//! - `infAP` (`m_infap.c`, Yilmaz and Aslam's inferred AP over a sampled
//!   pool): a qrels grade below 0 means "in the pool, not sampled", a
//!   document not in the qrels is outside the pool. Over each relevant
//!   retrieved document at 0-based rank index `j`: 1 if `j = 0`, else
//!   `1/(j+1) + j/(j+1) * ((r-1+n+u)/j) * ((r-1+ε)/(r-1+n+2ε))`, where `r`
//!   counts the relevant documents down to it (it included), `n` those
//!   judged 0 above it, `u` those judged below 0 above it, `ε = 1e-5`;
//!   the sum over `num_rel`. With every retrieved document judged it is
//!   `map` up to the `ε` terms.
//!
//! # `xinfAP` (sample qrels)
//!
//! NIST's `sample_eval.pl` (the version of 10 Oct 2011) estimates AP from
//! stratified samples of the pool; its qrels name each judged document's
//! stratum ([`crate::qrels`], [`crate::qrels::QrelsFormat::Sample`]).
//! `xinfAP` is what it prints as `infAP`, computed as it computes it, and
//! only for sample qrels (otherwise not computed and not printed):
//! - Ranking: score descending as `f64` (Perl numbers), ties by docno
//!   descending (gdeval's order, [`Run::ranked`]), the first 1000
//!   documents; `-M` and `-J` do not apply (the script has neither).
//! - Per stratum `c` of the topic's qrels: `D_c` documents, `S_c` of them
//!   judged `>= 0` (sampled), `R_c` judged `> 0` (relevant). The estimated
//!   number of relevant documents is `R = sum over c with S_c > 0 of
//!   R_c * D_c / S_c`.
//! - Down the ranking, for each retrieved document judged `> 0` at rank
//!   `k` (1-based) in stratum `s`: with `d` the retrieved documents above
//!   it that are in the qrels, and per stratum `c` the counts above it of
//!   those documents (`d_c`), of the sampled ones (`s_c`) and of the
//!   relevant ones (`r_c`), its estimated precision is `1/k + (d/k) * sum
//!   over c of (d_c/d) * (r_c + 1e-5) / (s_c + 3e-5)` (the sum is 0 when
//!   `d = 0`, and a stratum with `d_c = 0` adds nothing); it is added to
//!   the sum `P_s` of its stratum.
//! - `xinfAP = sum over c with S_c > 0 of (R_c * D_c / S_c) / R * (P_c /
//!   R_c)` (a stratum with `R_c = 0` adds 0; 0 when `R = 0`). Sums over
//!   strata run in byte order of their names, as Perl's `sort keys`.
//! - The mean is over the evaluated topics as for trec_eval's measures
//!   (`sample_eval.pl` averages over the run's topics that are in the
//!   qrels, which is sieve's `num_q` without `-c`). `sample_eval.pl`
//!   strips leading zeros from the run's topic ids (not the qrels'); sieve
//!   matches topic ids exactly, as everywhere.
//!
//! # The judged share (`judged_k`)
//!
//! ir_measures' `Judged@k` (not a trec_eval measure): of the first `k`
//! documents of the ranking the trec_eval measures see (trec_eval's order,
//! after `-M` and `-J`), the share that have a qrels line for the topic,
//! of any grade (negative ones too). The divisor is `min(k, num_ret)`, as
//! ir_measures divides (not `k`); 0 when nothing is retrieved. The mean is
//! taken as trec_eval's are (over `num_q`). ir_measures itself ranks ties
//! by docno ascending and at `f64`: on a run whose top `k` is not cut
//! inside a tie the two agree. Under `-J` the share is 1 (every document
//! kept is judged) unless nothing is retrieved.
//! - Mean (`all`) rows: the arithmetic mean over evaluated topics; with
//!   `complete` (trec_eval `-c`) the divisor is the number of topics in the
//!   qrels instead, so topics missing from the run count as 0 (they get no
//!   per-topic row). `num_ret` and `num_rel_ret` are summed over the
//!   evaluated topics; `num_rel` too, except with `complete`, where it counts
//!   every judgment of grade `>= 1` in the qrels.
//!
//! # gdeval measures (`ndcg@20`, `err@20`)
//!
//! As the TREC Web Track's `gdeval.pl` (`$K = 20`, `$MAX_JUDGMENT = 4`):
//! - The run is sorted by score descending compared as `f64` (Perl numbers,
//!   not `f32`), ties by docno descending ([`Run::ranked`]); `-M` does not
//!   apply (gdeval has no such option).
//! - The gain of a retrieved document is its grade if `> 0`, else 0. nDCG@20
//!   = DCG@20 / ideal DCG@20 with DCG = sum of `(2^g - 1) / ln(rank + 1)`;
//!   the ideal ranking is all positive judgments sorted by grade descending.
//! - ERR@20 = sum over ranks `r` of `R_r / r * prod_{i<r} (1 - R_i)` with
//!   `R = (2^g - 1) / 2^4`.
//! - A topic with no document of grade `> 0` is not evaluated by gdeval (no
//!   row, not in the mean): its value here is `None`. The mean is over the
//!   evaluated topics that have a relevant document; with `complete`, by
//!   analogy with trec_eval `-c`, over all qrels topics with a relevant
//!   document (missing ones count as 0).
//! - gdeval dies on grades above 4, and its Perl sort places NaN scores
//!   inconsistently: on such input the trec_eval measures are still computed
//!   but the gdeval ones are refused ([`Evaluation::gdeval_refused`] says
//!   why; every gdeval value is `None` and no gdeval row is printed).
//! - gdeval has no `-J`. With `judged_only`, sieve applies the same
//!   condensation to gdeval's order (documents not judged `>= 0` removed,
//!   the rest moved up) before computing nDCG@20 and ERR@20: this is
//!   sieve's extension, equal to gdeval.pl run on the condensed run file.

mod coverage;
mod files;
mod measure;
mod sample;
mod topic;

use std::cmp::Ordering;
use std::fmt::Write as _;

pub use files::{
    check_judgements, evaluate_run, evaluate_run_file, read_judgements, read_judgements_as,
};
pub use measure::{DEFAULT_CUTOFFS, JUDGED_CUTOFFS, Measure, MeasureSpec, SUCCESS_CUTOFFS};
pub use topic::TopicEval;

use crate::qrels::{Qrels, TopicQrels};
use crate::run::Run;
use crate::{Error, Result};

/// gdeval's reporting depth `$K`.
pub const GDEVAL_K: usize = 20;
/// gdeval's `$MAX_JUDGMENT`.
pub const GDEVAL_MAX_JUDGMENT: i64 = 4;

/// Evaluation options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EvalOptions {
    /// trec_eval `-c`: average over all topics in the qrels (missing ones
    /// score 0) instead of the topics in both run and qrels.
    pub complete: bool,
    /// trec_eval `-M`: evaluate only the first `n` documents of each topic
    /// (trec_eval measures only). `None`: all.
    pub max_docs: Option<usize>,
    /// trec_eval `-J`: before evaluating, drop from each topic's ranking
    /// every document without a judgement of grade `>= 0` (module docs).
    pub judged_only: bool,
}

/// Why the gdeval measures were not computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GdevalRefusal {
    /// A judgment above [`GDEVAL_MAX_JUDGMENT`] (gdeval.pl dies on it).
    GradeAboveMax {
        /// The topic id.
        qid: String,
        /// The document id.
        docno: String,
        /// The grade.
        rel: i64,
    },
    /// A NaN score in the run (gdeval.pl's Perl sort has no defined place
    /// for it).
    NanScore {
        /// The topic id.
        qid: String,
        /// The document id.
        docno: String,
    },
}

impl std::fmt::Display for GdevalRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GdevalRefusal::GradeAboveMax { qid, docno, rel } => write!(
                f,
                "gdeval measures (ndcg@20, err@20) not computed: qrels topic {qid:?} document \
                 {docno:?} has grade {rel}, above gdeval's maximum {GDEVAL_MAX_JUDGMENT}"
            ),
            GdevalRefusal::NanScore { qid, docno } => write!(
                f,
                "gdeval measures (ndcg@20, err@20) not computed: run topic {qid:?} document \
                 {docno:?} has a NaN score, which gdeval's sort cannot place"
            ),
        }
    }
}

/// The evaluation of one run: per topic and mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The run's name (its tag or file name).
    pub run: String,
    /// Evaluated topics (in both run and qrels), in [`qid_order`].
    pub topics: Vec<TopicEval>,
    /// The options used.
    pub options: EvalOptions,
    /// Topics in the qrels.
    pub qrels_topics: usize,
    /// Topics in the qrels with at least one document of grade `>= 1`.
    pub qrels_topics_with_rel: usize,
    /// Judgments of grade `>= 1` in the whole qrels (`num_rel` with `-c`).
    pub qrels_num_rel: usize,
    /// Topics in the qrels but not in the run, in [`qid_order`], each with
    /// whether it has a relevant document (they score 0 under `complete`;
    /// gdeval measures only count those with a relevant document).
    pub missing_topics: Vec<(String, bool)>,
    /// Why the gdeval measures were refused, if they were.
    pub gdeval_refused: Option<GdevalRefusal>,
    /// Whether the qrels are sample qrels (with strata): `xinfAP` is
    /// computed (and printed) only then.
    pub sampled: bool,
}

impl Evaluation {
    /// Number of topics the trec_eval means are taken over (trec_eval's
    /// `num_q`): the evaluated topics, or all qrels topics with `complete`.
    pub fn num_q(&self) -> usize {
        if self.options.complete {
            self.qrels_topics
        } else {
            self.topics.len()
        }
    }

    /// The `all` value of `m`: a sum for counts, else the mean as described
    /// in the module docs (0 when there is nothing to average).
    pub fn mean(&self, m: Measure) -> f64 {
        if m == Measure::NumRel && self.options.complete {
            return self.qrels_num_rel as f64;
        }
        let vals = self.topics.iter().filter_map(|t| t.get(m));
        if m.is_count() {
            return vals.sum();
        }
        let (sum, n) = vals.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
        let denom = match (m.is_gdeval(), self.options.complete) {
            (true, true) => self.qrels_topics_with_rel,
            (true, false) => n,
            (false, _) => self.num_q(),
        };
        if denom == 0 { 0.0 } else { sum / denom as f64 }
    }

    /// The topic `qid`, if evaluated.
    pub fn topic(&self, qid: &str) -> Option<&TopicEval> {
        self.topics.iter().find(|t| t.qid == qid)
    }

    /// Adds the topics of `part`, the evaluation (same qrels, same options)
    /// of a part of the same run holding other topics: after every part is
    /// absorbed, the result equals the evaluation of the whole run (tested),
    /// so a run can be evaluated topic group by topic group as it is
    /// searched. A part with a NaN score would refuse gdeval for its topics
    /// only (the whole run's evaluation refuses it for all): give parts of
    /// NaN-free runs, as sieve's own runs are.
    pub fn absorb(&mut self, part: Evaluation) {
        self.topics.extend(part.topics);
        self.topics.sort_by(|a, b| qid_order(&a.qid, &b.qid));
        // Missing from the whole run = missing from every part.
        let missing: std::collections::HashSet<&str> = part
            .missing_topics
            .iter()
            .map(|(q, _)| q.as_str())
            .collect();
        self.missing_topics
            .retain(|(q, _)| missing.contains(q.as_str()));
        if self.gdeval_refused.is_none() {
            self.gdeval_refused = part.gdeval_refused;
        }
    }

    /// `measures` without the gdeval ones when gdeval was refused, and
    /// without `xinfAP` when the qrels are not sample qrels.
    fn printable(&self, measures: &[Measure]) -> Vec<Measure> {
        let refused = self.gdeval_refused.is_some();
        measures
            .iter()
            .copied()
            .filter(|m| !(refused && m.is_gdeval()))
            .filter(|&m| self.sampled || m != Measure::XinfAP)
            .collect()
    }

    /// trec_eval-style text of [`Measure::ALL`]; see [`Evaluation::to_text_of`].
    pub fn to_text(&self, per_topic: bool, decimals: usize) -> String {
        self.to_text_of(&Measure::ALL, per_topic, decimals)
    }

    /// trec_eval-style text: with `per_topic`, `measure<TAB>qid<TAB>value`
    /// rows for every evaluated topic first; then `runid`, `num_q` and one
    /// `all` row per measure of `measures` (gdeval's omitted when refused).
    /// Counts are integers, other values have `decimals` digits (trec_eval
    /// prints 4).
    pub fn to_text_of(&self, measures: &[Measure], per_topic: bool, decimals: usize) -> String {
        let measures = self.printable(measures);
        let mut s = String::new();
        let fmt = |m: Measure, v: f64| {
            if m.is_count() {
                format!("{}", v as u64)
            } else {
                format!("{v:.decimals$}")
            }
        };
        if per_topic {
            for t in &self.topics {
                for &m in &measures {
                    if let Some(v) = t.get(m) {
                        let _ = writeln!(s, "{:<22}\t{}\t{}", m.name(), t.qid, fmt(m, v));
                    }
                }
            }
        }
        let _ = writeln!(s, "{:<22}\tall\t{}", "runid", self.run);
        let _ = writeln!(s, "{:<22}\tall\t{}", "num_q", self.num_q());
        for &m in &measures {
            let _ = writeln!(s, "{:<22}\tall\t{}", m.name(), fmt(m, self.mean(m)));
        }
        s
    }

    /// JSON of [`Measure::ALL`]; see [`Evaluation::to_json_of`].
    pub fn to_json(&self) -> serde_json::Value {
        self.to_json_of(&Measure::ALL)
    }

    /// Everything at full precision as JSON: `{"run", "complete",
    /// "judged_only", "num_q",
    /// "gdeval_refused": reason|null, "mean": {measure: value}, "topics":
    /// [{"qid", measure: value|null}]}` (gdeval measures omitted when refused).
    pub fn to_json_of(&self, measures: &[Measure]) -> serde_json::Value {
        let measures = self.printable(measures);
        let mut mean = serde_json::Map::new();
        for &m in &measures {
            mean.insert(m.name(), self.mean(m).into());
        }
        let topics: Vec<serde_json::Value> = self
            .topics
            .iter()
            .map(|t| {
                let mut o = serde_json::Map::new();
                o.insert("qid".into(), t.qid.clone().into());
                for &m in &measures {
                    o.insert(m.name(), t.get(m).into());
                }
                o.into()
            })
            .collect();
        serde_json::json!({
            "run": self.run,
            "complete": self.options.complete,
            "judged_only": self.options.judged_only,
            "num_q": self.num_q(),
            "gdeval_refused": self.gdeval_refused.as_ref().map(ToString::to_string),
            "mean": mean,
            "topics": topics,
        })
    }
}

/// Orders topic ids numerically when both are decimal integers, else
/// byte-wise (numbers first).
pub fn qid_order(a: &str, b: &str) -> Ordering {
    let num = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    match (num(a), num(b)) {
        (true, true) => {
            let (ta, tb) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
            ta.len()
                .cmp(&tb.len())
                .then_with(|| ta.cmp(tb))
                .then_with(|| a.cmp(b))
        }
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => a.cmp(b),
    }
}

/// Why gdeval would refuse this input, if it would: the first grade above
/// [`GDEVAL_MAX_JUDGMENT`] (topics and documents in byte order), else the
/// first NaN score of the run.
fn gdeval_refusal(qrels: &Qrels, run: &Run) -> Option<GdevalRefusal> {
    let too_high = qrels.topic_ids().find_map(|qid| {
        let tq = qrels.topic(qid)?;
        let (docno, rel) = tq
            .sorted()
            .into_iter()
            .find(|&(_, r)| r > GDEVAL_MAX_JUDGMENT)?;
        Some(GdevalRefusal::GradeAboveMax {
            qid: qid.into(),
            docno: docno.into(),
            rel,
        })
    });
    too_high.or_else(|| {
        run.first_nan
            .as_ref()
            .map(|(qid, docno)| GdevalRefusal::NanScore {
                qid: qid.clone(),
                docno: docno.clone(),
            })
    })
}

/// Evaluates `run` (named `name` in the output) against `qrels`; see the
/// module docs for the exact semantics. Fails only when the run and the
/// qrels have no topic in common ([`Error::NoCommonTopics`]).
pub fn evaluate(qrels: &Qrels, run: &Run, name: &str, options: EvalOptions) -> Result<Evaluation> {
    let gdeval_refused = gdeval_refusal(qrels, run);
    let topics: Vec<TopicEval> = run
        .topic_ids()
        .filter_map(|qid| {
            let tq = qrels.topic(qid)?;
            let grades = Grades::of(qid, tq, run, options, gdeval_refused.is_none());
            let grades = if options.judged_only {
                grades.judged_only()
            } else {
                grades
            };
            Some(grades.evaluate(qid, tq))
        })
        .collect();
    if topics.is_empty() {
        return Err(Error::NoCommonTopics { run: name.into() });
    }
    Ok(assemble(qrels, run, name, options, topics, gdeval_refused))
}

/// Evaluates `run` twice in one pass, as [`evaluate`] does: with `options`
/// as given but `judged_only` off, and with `judged_only` on (trec_eval
/// `-J`); each topic is ranked once for both. Fails as [`evaluate`] does.
pub fn evaluate_with_judged_only(
    qrels: &Qrels,
    run: &Run,
    name: &str,
    options: EvalOptions,
) -> Result<(Evaluation, Evaluation)> {
    let gdeval_refused = gdeval_refusal(qrels, run);
    let (mut all, mut judged) = (Vec::new(), Vec::new());
    for qid in run.topic_ids() {
        let Some(tq) = qrels.topic(qid) else { continue };
        let grades = Grades::of(qid, tq, run, options, gdeval_refused.is_none());
        judged.push(grades.judged_only().evaluate(qid, tq));
        all.push(grades.evaluate(qid, tq));
    }
    if all.is_empty() {
        return Err(Error::NoCommonTopics { run: name.into() });
    }
    let plain = EvalOptions {
        judged_only: false,
        ..options
    };
    let j = EvalOptions {
        judged_only: true,
        ..options
    };
    Ok((
        assemble(qrels, run, name, plain, all, gdeval_refused.clone()),
        assemble(qrels, run, name, j, judged, gdeval_refused),
    ))
}

/// The evaluation of a run that retrieved nothing: no topic evaluated, every
/// qrels topic missing (with `complete`, each counts 0, as trec_eval `-c`
/// counts a topic missing from a run). [`evaluate`] refuses such a run
/// ([`Error::NoCommonTopics`]); a sweep whose filter removes every matching
/// document needs its zeros.
pub fn nothing_retrieved(qrels: &Qrels, name: &str, options: EvalOptions) -> Evaluation {
    let run = Run::default();
    let refused = gdeval_refusal(qrels, &run);
    assemble(qrels, &run, name, options, Vec::new(), refused)
}

/// An [`Evaluation`] of `topics` (evaluated), with the qrels' counts and the
/// qrels topics `run` lacks.
fn assemble(
    qrels: &Qrels,
    run: &Run,
    name: &str,
    options: EvalOptions,
    mut topics: Vec<TopicEval>,
    gdeval_refused: Option<GdevalRefusal>,
) -> Evaluation {
    topics.sort_by(|a, b| qid_order(&a.qid, &b.qid));
    let has_rel = |q: &str| qrels.topic(q).is_some_and(|t| t.num_rel(1) > 0);
    let mut missing_topics: Vec<(String, bool)> = qrels
        .topic_ids()
        .filter(|q| run.hits(q).is_none())
        .map(|q| (q.to_string(), has_rel(q)))
        .collect();
    missing_topics.sort_by(|a, b| qid_order(&a.0, &b.0));
    Evaluation {
        run: name.into(),
        topics,
        options,
        qrels_topics: qrels.num_topics(),
        qrels_topics_with_rel: qrels.topic_ids().filter(|q| has_rel(q)).count(),
        qrels_num_rel: qrels
            .topic_ids()
            .filter_map(|q| qrels.topic(q))
            .map(|t| t.num_rel(1))
            .sum(),
        missing_topics,
        gdeval_refused,
        sampled: qrels.is_sampled(),
    }
}

/// The grades of one topic's retrieved documents (`None`: not judged), in
/// trec_eval's order cut at `max_docs`, and, when gdeval evaluates the
/// run, in gdeval's order.
struct Grades {
    trec: Vec<Option<i64>>,
    gdeval: Option<Vec<Option<i64>>>,
    /// `xinfAP`, with sample qrels (`-M` and `-J` do not apply).
    xinfap: Option<f64>,
}

impl Grades {
    /// The grades of topic `qid` of `run` (judged by `tq`); in gdeval's
    /// order only `with_gdeval`.
    fn of(
        qid: &str,
        tq: &TopicQrels,
        run: &Run,
        options: EvalOptions,
        with_gdeval: bool,
    ) -> Grades {
        let mut trec = run.trec_eval_ranked(qid);
        trec.truncate(options.max_docs.unwrap_or(usize::MAX));
        let trec = trec.iter().map(|h| tq.get(&h.docno)).collect();
        let sampled = tq.is_sampled();
        let ranked = (with_gdeval || sampled).then(|| run.ranked(qid));
        let ranked = ranked.as_deref().unwrap_or_default();
        let gdeval = with_gdeval.then(|| ranked.iter().map(|h| tq.get(&h.docno)).collect());
        let xinfap = sampled.then(|| {
            let graded: Vec<Option<(i64, u32)>> = ranked
                .iter()
                .take(sample::SAMPLE_EVAL_MAX_RESULTS)
                .map(|h| Some((tq.get(&h.docno)?, tq.stratum(&h.docno)?)))
                .collect();
            sample::xinf_ap(tq, &graded)
        });
        Grades {
            trec,
            gdeval,
            xinfap,
        }
    }

    /// trec_eval `-J` (`form_res_rels.c`): only the documents judged `>= 0`,
    /// in the same order (after `-M`); the same condensation of gdeval's
    /// order, which is sieve's (gdeval has no `-J`).
    fn judged_only(&self) -> Grades {
        let keep = |v: &[Option<i64>]| -> Vec<Option<i64>> {
            v.iter()
                .copied()
                .filter(|g| g.is_some_and(|g| g >= 0))
                .collect()
        };
        Grades {
            trec: keep(&self.trec),
            gdeval: self.gdeval.as_deref().map(keep),
            xinfap: self.xinfap,
        }
    }

    /// The measures of topic `qid` (judged by `tq`) from these grades.
    fn evaluate(self, qid: &str, tq: &TopicQrels) -> TopicEval {
        let judged = tq.iter().map(|(_, r)| r).collect();
        TopicEval::new(qid, self.trec, judged, self.gdeval, self.xinfap)
    }
}

#[cfg(test)]
mod tests;
