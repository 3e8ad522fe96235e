//! Evaluation of a run against qrels, with the numbers trec_eval and gdeval
//! print.
//!
//! # trec_eval measures (`map`, `P_5` .. `P_30`, `recall_1000`, counts)
//!
//! As trec_eval 9 with its default options (`-l 1`, no `-J`, no `-M`):
//! - Each topic's hits are put in trec_eval order: score descending, ties
//!   broken by docno descending (byte-wise `strcmp`); the run's rank column is
//!   ignored ([`Run::ranked`]). Runs with duplicate documents are refused when
//!   read (trec_eval's "duplicate docs"), unless de-duplicated on reading.
//! - A document is relevant if its grade is `>= 1`; negative grades (Web Track
//!   `-2` junk) and `0` are non-relevant. `num_rel` counts judged documents
//!   with grade `>= 1`.
//! - Only topics both in the run and in the qrels are evaluated; topics only
//!   in the run are ignored. A topic with no relevant document scores 0.
//! - `map`: sum over relevant retrieved documents of the precision at their
//!   rank, divided by `num_rel`. `P_k`: relevant documents in the first `k`,
//!   divided by `k` (fewer than `k` retrieved counts the rest as
//!   non-relevant). `recall_1000`: relevant documents in the first 1000
//!   divided by `num_rel`.
//! - Mean (`all`) rows: the arithmetic mean over evaluated topics; with
//!   `complete` (trec_eval `-c`) the divisor is the number of topics in the
//!   qrels instead, so topics missing from the run count as 0. `num_ret`,
//!   `num_rel`, `num_rel_ret` are summed over the evaluated topics.
//!
//! # gdeval measures (`ndcg@20`, `err@20`)
//!
//! As the TREC Web Track's `gdeval.pl` (`$K = 20`, `$MAX_JUDGMENT = 4`):
//! - The run is sorted the same way (score descending, docno descending).
//! - The gain of a retrieved document is its grade if `> 0`, else 0 (so
//!   `-2` junk gains nothing). nDCG@20 = DCG@20 / ideal DCG@20 with
//!   DCG = sum of `(2^g - 1) / ln(rank + 1)`; the ideal ranking is all
//!   positive judgments sorted by grade descending.
//! - ERR@20 = sum over ranks `r` of `R_r / r * prod_{i<r} (1 - R_i)` with
//!   `R = (2^g - 1) / 2^4`.
//! - A topic with no document of grade `> 0` is not evaluated by gdeval (no
//!   row, not in the mean): its value here is `None`. The mean is over the
//!   evaluated topics that have a relevant document; with `complete`, by
//!   analogy with trec_eval `-c`, over all qrels topics with a relevant
//!   document (missing ones count as 0).
//! - gdeval dies on grades above 4; so does [`evaluate`]
//!   ([`Error::GradeAboveMax`]).

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde::Serialize;

use crate::qrels::{Qrels, TopicQrels};
use crate::run::Run;
use crate::{Error, Result};

/// gdeval's reporting depth `$K`.
pub const GDEVAL_K: usize = 20;
/// gdeval's `$MAX_JUDGMENT`.
pub const GDEVAL_MAX_JUDGMENT: i64 = 4;

/// One evaluation measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Measure {
    /// trec_eval `map`.
    Map,
    /// trec_eval `P_5`.
    P5,
    /// trec_eval `P_10`.
    P10,
    /// trec_eval `P_20`.
    P20,
    /// trec_eval `P_30`.
    P30,
    /// gdeval nDCG@20.
    Ndcg20,
    /// gdeval ERR@20.
    Err20,
    /// trec_eval `recall_1000`.
    Recall1000,
    /// trec_eval `num_ret` (summed in the mean row).
    NumRet,
    /// trec_eval `num_rel` (summed in the mean row).
    NumRel,
    /// trec_eval `num_rel_ret` (summed in the mean row).
    NumRelRet,
}

impl Measure {
    /// All measures, in output order.
    pub const ALL: [Measure; 11] = [
        Measure::NumRet,
        Measure::NumRel,
        Measure::NumRelRet,
        Measure::Map,
        Measure::P5,
        Measure::P10,
        Measure::P20,
        Measure::P30,
        Measure::Recall1000,
        Measure::Ndcg20,
        Measure::Err20,
    ];

    /// The name printed: trec_eval's (`map`, `P_10`, `recall_1000`,
    /// `num_ret`, ...) or gdeval's (`ndcg@20`, `err@20`).
    pub fn name(self) -> &'static str {
        match self {
            Measure::Map => "map",
            Measure::P5 => "P_5",
            Measure::P10 => "P_10",
            Measure::P20 => "P_20",
            Measure::P30 => "P_30",
            Measure::Ndcg20 => "ndcg@20",
            Measure::Err20 => "err@20",
            Measure::Recall1000 => "recall_1000",
            Measure::NumRet => "num_ret",
            Measure::NumRel => "num_rel",
            Measure::NumRelRet => "num_rel_ret",
        }
    }

    /// True for the counts, which are integers summed in the mean row.
    pub fn is_count(self) -> bool {
        matches!(self, Measure::NumRet | Measure::NumRel | Measure::NumRelRet)
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for Measure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Measure {
    type Err = Error;
    /// Accepts the printed names and common aliases, case-insensitively:
    /// `map`, `P@10` / `P_10` / `P.10`, `nDCG@20` / `ndcg_cut_20`, `ERR@20`,
    /// `recall@1000` / `R@1000`, `num_ret`, `num_rel`, `num_rel_ret`.
    fn from_str(s: &str) -> Result<Measure> {
        let l = s.to_ascii_lowercase().replace(['_', '.'], "@");
        let m = match l.as_str() {
            "map" | "ap" => Measure::Map,
            "p@5" => Measure::P5,
            "p@10" => Measure::P10,
            "p@20" => Measure::P20,
            "p@30" => Measure::P30,
            "ndcg@20" | "ndcg@cut@20" => Measure::Ndcg20,
            "err@20" => Measure::Err20,
            "recall@1000" | "r@1000" => Measure::Recall1000,
            "num@ret" => Measure::NumRet,
            "num@rel" => Measure::NumRel,
            "num@rel@ret" => Measure::NumRelRet,
            _ => {
                return Err(Error::UnknownMeasure {
                    name: s.to_string(),
                    known: Measure::ALL.map(Measure::name).join(", "),
                });
            }
        };
        Ok(m)
    }
}

/// Evaluation options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EvalOptions {
    /// trec_eval `-c`: average over all topics in the qrels (missing ones
    /// score 0) instead of the topics in both run and qrels.
    pub complete: bool,
}

/// The measures of one topic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicEval {
    /// The topic id.
    pub qid: String,
    values: [Option<f64>; 11],
}

impl TopicEval {
    /// The value of `m`; `None` only for the gdeval measures of a topic with
    /// no relevant document (gdeval skips such topics).
    pub fn get(&self, m: Measure) -> Option<f64> {
        self.values[m.index()]
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
    /// Topics in the qrels but not in the run, in [`qid_order`], each with
    /// whether it has a relevant document (they score 0 under `complete`;
    /// gdeval measures only count those with a relevant document).
    pub missing_topics: Vec<(String, bool)>,
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
        let vals = self.topics.iter().filter_map(|t| t.get(m));
        if m.is_count() {
            return vals.sum();
        }
        let (sum, n) = vals.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
        let denom = match (m, self.options.complete) {
            (Measure::Ndcg20 | Measure::Err20, true) => self.qrels_topics_with_rel,
            (Measure::Ndcg20 | Measure::Err20, false) => n,
            (_, _) => self.num_q(),
        };
        if denom == 0 { 0.0 } else { sum / denom as f64 }
    }

    /// The topic `qid`, if evaluated.
    pub fn topic(&self, qid: &str) -> Option<&TopicEval> {
        self.topics.iter().find(|t| t.qid == qid)
    }

    /// trec_eval-style text: with `per_topic`, `measure<TAB>qid<TAB>value`
    /// rows for every topic first; then `runid`, `num_q` and one `all` row per
    /// measure. Counts are integers, other values have `decimals` digits
    /// (trec_eval prints 4).
    pub fn to_text(&self, per_topic: bool, decimals: usize) -> String {
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
                for m in Measure::ALL {
                    if let Some(v) = t.get(m) {
                        let _ = writeln!(s, "{:<22}\t{}\t{}", m.name(), t.qid, fmt(m, v));
                    }
                }
            }
        }
        let _ = writeln!(s, "{:<22}\tall\t{}", "runid", self.run);
        let _ = writeln!(s, "{:<22}\tall\t{}", "num_q", self.num_q());
        for m in Measure::ALL {
            let _ = writeln!(s, "{:<22}\tall\t{}", m.name(), fmt(m, self.mean(m)));
        }
        s
    }

    /// Everything at full precision as JSON: `{"run", "complete", "num_q",
    /// "mean": {measure: value}, "topics": [{"qid", measure: value|null}]}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut mean = serde_json::Map::new();
        for m in Measure::ALL {
            mean.insert(m.name().into(), self.mean(m).into());
        }
        let topics: Vec<serde_json::Value> = self
            .topics
            .iter()
            .map(|t| {
                let mut o = serde_json::Map::new();
                o.insert("qid".into(), t.qid.clone().into());
                for m in Measure::ALL {
                    o.insert(m.name().into(), t.get(m).into());
                }
                o.into()
            })
            .collect();
        serde_json::json!({
            "run": self.run,
            "complete": self.options.complete,
            "num_q": self.num_q(),
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

/// Evaluates `run` (named `name` in the output) against `qrels`; see the
/// module docs for the exact semantics.
pub fn evaluate(qrels: &Qrels, run: &Run, name: &str, options: EvalOptions) -> Result<Evaluation> {
    for qid in qrels.topic_ids() {
        let tq = qrels
            .topic(qid)
            .unwrap_or_else(|| unreachable!("listed topic"));
        if let Some((docno, rel)) = tq
            .sorted()
            .into_iter()
            .find(|&(_, r)| r > GDEVAL_MAX_JUDGMENT)
        {
            return Err(Error::GradeAboveMax {
                qid: qid.into(),
                docno: docno.into(),
                rel,
                max: GDEVAL_MAX_JUDGMENT,
            });
        }
    }
    let mut topics: Vec<TopicEval> = run
        .topic_ids()
        .filter_map(|qid| qrels.topic(qid).map(|tq| evaluate_topic(qid, tq, run)))
        .collect();
    if topics.is_empty() {
        return Err(Error::NoCommonTopics { run: name.into() });
    }
    topics.sort_by(|a, b| qid_order(&a.qid, &b.qid));
    let qrels_topics_with_rel = qrels
        .topic_ids()
        .filter(|q| qrels.topic(q).is_some_and(|t| t.num_rel(1) > 0))
        .count();
    let mut missing_topics: Vec<(String, bool)> = qrels
        .topic_ids()
        .filter(|q| run.hits(q).is_none())
        .map(|q| {
            (
                q.to_string(),
                qrels.topic(q).is_some_and(|t| t.num_rel(1) > 0),
            )
        })
        .collect();
    missing_topics.sort_by(|a, b| qid_order(&a.0, &b.0));
    Ok(Evaluation {
        run: name.into(),
        topics,
        options,
        qrels_topics: qrels.num_topics(),
        qrels_topics_with_rel,
        missing_topics,
    })
}

/// Measures of one topic; `grades` are the grades of the ranked hits
/// (`None` = not judged).
fn evaluate_topic(qid: &str, tq: &TopicQrels, run: &Run) -> TopicEval {
    let grades: Vec<Option<i64>> = run.ranked(qid).iter().map(|h| tq.get(&h.docno)).collect();
    topic_measures(qid, &grades, tq)
}

fn topic_measures(qid: &str, grades: &[Option<i64>], tq: &TopicQrels) -> TopicEval {
    let num_rel = tq.num_rel(1);
    let is_rel = |g: &Option<i64>| g.is_some_and(|g| g >= 1);
    let mut values = [None; 11];
    let mut rel_so_far = 0usize;
    let mut ap_sum = 0.0f64;
    let rel_at = |k: usize| grades.iter().take(k).filter(|g| is_rel(g)).count();
    for (i, g) in grades.iter().enumerate() {
        if is_rel(g) {
            rel_so_far += 1;
            ap_sum += rel_so_far as f64 / (i + 1) as f64;
        }
    }
    let ratio = |n: usize, d: usize| if d == 0 { 0.0 } else { n as f64 / d as f64 };
    values[Measure::NumRet.index()] = Some(grades.len() as f64);
    values[Measure::NumRel.index()] = Some(num_rel as f64);
    values[Measure::NumRelRet.index()] = Some(rel_so_far as f64);
    values[Measure::Map.index()] = Some(if num_rel == 0 {
        0.0
    } else {
        ap_sum / num_rel as f64
    });
    for (m, k) in [
        (Measure::P5, 5),
        (Measure::P10, 10),
        (Measure::P20, 20),
        (Measure::P30, 30),
    ] {
        values[m.index()] = Some(rel_at(k) as f64 / k as f64);
    }
    values[Measure::Recall1000.index()] = Some(ratio(rel_at(1000), num_rel));
    if num_rel > 0 {
        let gains: Vec<i64> = grades
            .iter()
            .take(GDEVAL_K)
            .map(|g| g.unwrap_or(0).max(0))
            .collect();
        let mut ideal: Vec<i64> = tq.iter().map(|(_, r)| r).filter(|&r| r > 0).collect();
        ideal.sort_unstable_by(|a, b| b.cmp(a));
        ideal.truncate(GDEVAL_K);
        values[Measure::Ndcg20.index()] = Some(dcg(&gains) / dcg(&ideal));
        values[Measure::Err20.index()] = Some(err(&gains));
    }
    TopicEval {
        qid: qid.to_string(),
        values,
    }
}

fn gain(g: i64) -> f64 {
    // g is in 0..=4 here: exact in f64.
    (2f64).powi(g as i32) - 1.0
}

/// gdeval's `dcg`: natural-log discount `ln(i + 2)` for 0-based position `i`.
fn dcg(gains: &[i64]) -> f64 {
    gains
        .iter()
        .enumerate()
        .map(|(i, &g)| gain(g) / ((i + 2) as f64).ln())
        .sum()
}

/// gdeval's `err`.
fn err(gains: &[i64]) -> f64 {
    let max = (2f64).powi(GDEVAL_MAX_JUDGMENT as i32);
    let (mut score, mut decay) = (0.0f64, 1.0f64);
    for (i, &g) in gains.iter().enumerate() {
        let r = gain(g) / max;
        score += r * decay / (i + 1) as f64;
        decay *= 1.0 - r;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qrels::parse_qrels;
    use crate::run::{Duplicates, parse_run};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// Qrels: topic 1 has relevant a(1), b(2), c(1), d(0), j(-2) => num_rel 3.
    /// Run order after re-sorting: b(5) j(4) x(3) a(3) z(1) — the tie
    /// between x and a goes to x (docno descending).
    fn hand() -> Evaluation {
        let q = parse_qrels(b"1 0 a 1\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 j -2\n2 0 a 0\n3 0 q 1\n")
            .unwrap();
        let r = parse_run(
            b"1 Q0 a 9 3 t\n1 Q0 b 1 5 t\n1 Q0 x 2 3 t\n1 Q0 j 3 4 t\n1 Q0 z 4 1 t\n2 Q0 a 1 1 t\n4 Q0 a 1 1 t\n",
            Duplicates::Error,
        )
        .unwrap();
        evaluate(&q, &r, "t", EvalOptions::default()).unwrap()
    }

    #[test]
    fn hand_computed_trec_eval_measures() {
        let e = hand();
        // topic 4 is not in the qrels: ignored; topic 3 not in the run.
        assert_eq!(
            e.topics.iter().map(|t| t.qid.as_str()).collect::<Vec<_>>(),
            ["1", "2"]
        );
        let t = e.topic("1").unwrap();
        // ranks: 1 b rel, 2 j junk, 3 x unjudged, 4 a rel, 5 z unjudged
        // AP = (1/1 + 2/4) / 3 = 0.5
        assert!(close(t.get(Measure::Map).unwrap(), 0.5));
        assert!(close(t.get(Measure::P5).unwrap(), 2.0 / 5.0));
        assert!(close(t.get(Measure::P10).unwrap(), 2.0 / 10.0));
        assert!(close(t.get(Measure::P30).unwrap(), 2.0 / 30.0));
        assert!(close(t.get(Measure::Recall1000).unwrap(), 2.0 / 3.0));
        assert_eq!(t.get(Measure::NumRet), Some(5.0));
        assert_eq!(t.get(Measure::NumRel), Some(3.0));
        assert_eq!(t.get(Measure::NumRelRet), Some(2.0));
        // gdeval: gains 2,0,0,1,0; ideal 2,1,1
        let dcg = 3.0 / 2f64.ln() + 1.0 / 5f64.ln();
        let idcg = 3.0 / 2f64.ln() + 1.0 / 3f64.ln() + 1.0 / 4f64.ln();
        assert!(close(t.get(Measure::Ndcg20).unwrap(), dcg / idcg));
        // ERR: R1 = 3/16 at rank 1, R4 = 1/16 at rank 4
        let err = 3.0 / 16.0 + (1.0 - 3.0 / 16.0) * (1.0 / 16.0) / 4.0;
        assert!(close(t.get(Measure::Err20).unwrap(), err));
        // topic 2: no relevant document: 0 for trec_eval, skipped by gdeval
        let t2 = e.topic("2").unwrap();
        assert_eq!(t2.get(Measure::Map), Some(0.0));
        assert_eq!(t2.get(Measure::Ndcg20), None);
        // means: trec_eval over 2 topics, gdeval over the 1 topic it evaluates
        assert!(close(e.mean(Measure::Map), 0.25));
        assert!(close(e.mean(Measure::Ndcg20), dcg / idcg));
        assert_eq!(e.mean(Measure::NumRel), 3.0);
        assert_eq!(e.num_q(), 2);
    }

    #[test]
    fn complete_flag_divides_by_qrels_topics() {
        let mut e = hand();
        e.options.complete = true;
        // qrels topics 1, 2, 3; topic 3 missing from the run scores 0.
        assert_eq!(e.num_q(), 3);
        assert!(close(e.mean(Measure::Map), 0.5 / 3.0));
        // gdeval measures over qrels topics with a relevant doc: 1 and 3.
        let nd = e.topic("1").unwrap().get(Measure::Ndcg20).unwrap();
        assert!(close(e.mean(Measure::Ndcg20), nd / 2.0));
        assert_eq!(e.mean(Measure::NumRet), 6.0);
    }

    #[test]
    fn text_output_like_trec_eval() {
        let s = hand().to_text(false, 4);
        assert!(s.contains("map                   \tall\t0.2500\n"), "{s}");
        assert!(s.contains("num_rel_ret           \tall\t2\n"), "{s}");
        assert!(s.contains("runid                 \tall\tt\n"), "{s}");
        let s = hand().to_text(true, 4);
        assert!(s.contains("P_5                   \t1\t0.4000\n"), "{s}");
        assert!(!s.contains("ndcg@20               \t2\t"), "{s}");
        let j = hand().to_json();
        assert_eq!(j["mean"]["map"], 0.25);
        assert!(j["topics"][1]["ndcg@20"].is_null());
    }

    #[test]
    fn errors() {
        let q = parse_qrels(b"1 0 a 5\n").unwrap();
        let r = parse_run(b"1 Q0 a 1 1 t\n", Duplicates::Error).unwrap();
        let e = evaluate(&q, &r, "t", EvalOptions::default()).unwrap_err();
        assert!(matches!(e, Error::GradeAboveMax { rel: 5, .. }), "{e}");
        let q = parse_qrels(b"2 0 a 1\n").unwrap();
        let e = evaluate(&q, &r, "t", EvalOptions::default()).unwrap_err();
        assert!(matches!(e, Error::NoCommonTopics { .. }), "{e}");
        assert!("P@7".parse::<Measure>().is_err());
        for m in Measure::ALL {
            assert_eq!(m.name().parse::<Measure>().unwrap(), m);
        }
        assert_eq!("nDCG@20".parse::<Measure>().unwrap(), Measure::Ndcg20);
        assert_eq!("P@10".parse::<Measure>().unwrap(), Measure::P10);
    }

    #[test]
    fn qid_order_numeric() {
        let mut v = vec!["10", "9", "wt09-1", "051", "100", "1"];
        v.sort_by(|a, b| qid_order(a, b));
        assert_eq!(v, ["1", "9", "10", "051", "100", "wt09-1"]);
    }
}
