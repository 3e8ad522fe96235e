//! The measures of one topic, computed from the grades of its ranked hits
//! exactly as trec_eval 9's `m_*.c` files and gdeval.pl compute them (see
//! the module docs of [`crate::eval`] for the rules).

use serde::Serialize;

use super::measure::Measure;
use super::{GDEVAL_K, GDEVAL_MAX_JUDGMENT};

/// The evaluation of one topic; [`TopicEval::get`] computes any measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicEval {
    /// The topic id.
    pub qid: String,
    /// The grade of each retrieved document in trec_eval's order, after
    /// `-M`; `None` = not judged.
    ret: Vec<Option<i64>>,
    /// Every judged grade of the topic, descending.
    judged: Vec<i64>,
    /// gdeval's (nDCG@20, ERR@20), if gdeval evaluates the topic.
    gdeval: Option<(f64, f64)>,
    /// `sample_eval.pl`'s inferred AP, when the qrels are sample qrels.
    xinfap: Option<f64>,
}

impl TopicEval {
    /// A topic from the grades of its retrieved documents in trec_eval's
    /// order (`ret`, `None` = not judged), all its judged grades, and the
    /// grades in gdeval's order (`None` when gdeval does not evaluate it),
    /// and `xinfAP` (`None` without sample qrels).
    pub(crate) fn new(
        qid: &str,
        ret: Vec<Option<i64>>,
        mut judged: Vec<i64>,
        gdeval_ranked: Option<Vec<Option<i64>>>,
        xinfap: Option<f64>,
    ) -> TopicEval {
        judged.sort_unstable_by(|a, b| b.cmp(a));
        let gdeval = gdeval_ranked
            .filter(|_| judged.first().is_some_and(|&g| g > 0))
            .map(|g| gdeval_measures(&g, &judged));
        TopicEval {
            qid: qid.to_string(),
            ret,
            judged,
            gdeval,
            xinfap,
        }
    }

    /// The value of `m`; `None` only for the gdeval measures of a topic gdeval
    /// does not evaluate (no document of grade `> 0`, or gdeval refused),
    /// and for `xinfAP` without sample qrels.
    pub fn get(&self, m: Measure) -> Option<f64> {
        let num_rel = self.num_rel();
        let ratio = |n: usize, d: usize| if d == 0 { 0.0 } else { n as f64 / d as f64 };
        let v = match m {
            Measure::NumRet => self.ret.len() as f64,
            Measure::NumRel => num_rel as f64,
            Measure::NumRelRet => self.rel_in(usize::MAX) as f64,
            Measure::Map => self.ap(),
            Measure::Rprec => ratio(self.rel_in(num_rel), num_rel),
            Measure::Bpref => self.bpref(),
            Measure::RecipRank => self
                .ret
                .iter()
                .position(is_rel)
                .map_or(0.0, |i| 1.0 / (i + 1) as f64),
            Measure::P(k) => self.rel_in(k as usize) as f64 / f64::from(k),
            Measure::Recall(k) => ratio(self.rel_in(k as usize), num_rel),
            Measure::NdcgCut(k) => self.ndcg_cut(k as usize),
            Measure::Success(k) => f64::from(u8::from(self.rel_in(k as usize) > 0)),
            Measure::InfAP => self.inf_ap(),
            Measure::Judged(k) => self.judged_share(k as usize),
            Measure::Ndcg20 => return self.gdeval.map(|g| g.0),
            Measure::Err20 => return self.gdeval.map(|g| g.1),
            Measure::XinfAP => return self.xinfap,
        };
        Some(v)
    }

    /// trec_eval's `num_rel`: judged documents with grade `>= 1`.
    pub fn num_rel(&self) -> usize {
        self.judged.iter().filter(|&&g| g >= 1).count()
    }

    fn rel_in(&self, k: usize) -> usize {
        self.ret.iter().take(k).filter(|g| is_rel(g)).count()
    }

    /// `m_map.c`: precision at each relevant retrieved document, summed,
    /// divided by `num_rel`.
    fn ap(&self) -> f64 {
        let (mut rel, mut sum) = (0usize, 0.0f64);
        for (i, g) in self.ret.iter().enumerate() {
            if is_rel(g) {
                rel += 1;
                sum += rel as f64 / (i + 1) as f64;
            }
        }
        let num_rel = self.num_rel();
        if num_rel == 0 {
            0.0
        } else {
            sum / num_rel as f64
        }
    }

    /// `m_bpref.c`. Unjudged documents and documents judged below 0 (in the
    /// pool but "unjudged" for trec_eval) are skipped; grade 0 is
    /// non-relevant.
    fn bpref(&self) -> f64 {
        let num_rel = self.num_rel();
        let num_nonrel = self.judged.iter().filter(|&&g| g == 0).count();
        let (mut nonrel_so_far, mut bpref) = (0usize, 0.0f64);
        for g in self.ret.iter().flatten() {
            match *g {
                g if g < 0 => {}
                0 => nonrel_so_far += 1,
                _ if nonrel_so_far > 0 => {
                    bpref +=
                        1.0 - nonrel_so_far.min(num_rel) as f64 / num_nonrel.min(num_rel) as f64;
                }
                _ => bpref += 1.0,
            }
        }
        if num_rel > 0 {
            bpref / num_rel as f64
        } else {
            bpref
        }
    }

    /// `m_infap.c`: over each relevant retrieved document at 0-based index
    /// `j`, 1 when `j = 0`, else `1/(j+1) + j/(j+1) * (r-1+n+u)/j *
    /// (r-1+eps)/(r-1+n+2eps)` with `r` the relevant documents up to it (it
    /// included), `n` the documents judged 0 above it, `u` those judged
    /// below 0 above it ("in the pool, not sampled"), `eps = 1e-5`;
    /// unjudged documents (not in the qrels) count only in `j`. The sum is
    /// divided by `num_rel`.
    fn inf_ap(&self) -> f64 {
        const EPS: f64 = 0.00001;
        let (mut rel, mut nonrel, mut unsampled) = (0u64, 0u64, 0u64);
        let mut sum = 0.0f64;
        for (j, g) in self.ret.iter().enumerate() {
            match *g {
                None => {}
                Some(g) if g < 0 => unsampled += 1,
                Some(0) => nonrel += 1,
                Some(_) => {
                    rel += 1;
                    if j == 0 {
                        sum += 1.0;
                        continue;
                    }
                    let fj = j as f64;
                    let (r1, n) = ((rel - 1) as f64, nonrel as f64);
                    sum += 1.0 / (fj + 1.0)
                        + (fj / (fj + 1.0))
                            * ((r1 + n + unsampled as f64) / fj)
                            * ((r1 + EPS) / (r1 + n + 2.0 * EPS));
                }
            }
        }
        let num_rel = self.num_rel();
        if num_rel == 0 {
            sum
        } else {
            sum / num_rel as f64
        }
    }

    /// ir_measures' `Judged@k`: judged documents (any grade) among the
    /// first `k` over `min(k, num_ret)`; 0 when nothing is retrieved.
    fn judged_share(&self, k: usize) -> f64 {
        let first = &self.ret[..k.min(self.ret.len())];
        if first.is_empty() {
            return 0.0;
        }
        first.iter().filter(|g| g.is_some()).count() as f64 / first.len() as f64
    }

    /// `m_ndcg_cut.c`: DCG of the first `k` (gain = grade when `> 0`,
    /// discount `log2(rank + 1)`) over the ideal DCG of the first `k` of the
    /// grades `>= 1` sorted descending; the DCG itself (0) when the ideal is 0.
    fn ndcg_cut(&self, k: usize) -> f64 {
        let dcg = |gains: &mut dyn Iterator<Item = i64>| -> f64 {
            gains
                .take(k)
                .enumerate()
                .filter(|&(_, g)| g > 0)
                .map(|(i, g)| g as f64 / ((i + 2) as f64).log2())
                // not `sum()`, whose empty sum is -0.0 (printed "-0.0000")
                .fold(0.0, |s, x| s + x)
        };
        let sum = dcg(&mut self.ret.iter().map(|g| g.unwrap_or(0)));
        let ideal = dcg(&mut self.judged.iter().copied().filter(|&g| g >= 1));
        if ideal > 0.0 { sum / ideal } else { sum }
    }
}

fn is_rel(g: &Option<i64>) -> bool {
    g.is_some_and(|g| g >= 1)
}

/// gdeval's nDCG@K and ERR@K of the grades in gdeval's order, `judged`
/// descending (at least one `> 0`).
fn gdeval_measures(ranked: &[Option<i64>], judged: &[i64]) -> (f64, f64) {
    let gains: Vec<i64> = ranked
        .iter()
        .take(GDEVAL_K)
        .map(|g| g.unwrap_or(0).max(0))
        .collect();
    let ideal: Vec<i64> = judged
        .iter()
        .copied()
        .filter(|&g| g > 0)
        .take(GDEVAL_K)
        .collect();
    (dcg(&gains) / dcg(&ideal), err(&gains))
}

fn gain(g: i64) -> f64 {
    // g is in 0..=GDEVAL_MAX_JUDGMENT here (else gdeval refuses): exact in f64.
    (2f64).powi(g as i32) - 1.0
}

/// gdeval's `dcg`: natural-log discount `ln(i + 2)` for 0-based position `i`.
fn dcg(gains: &[i64]) -> f64 {
    gains
        .iter()
        .enumerate()
        .map(|(i, &g)| gain(g) / ((i + 2) as f64).ln())
        // not `sum()`, whose empty sum is -0.0 (an empty ranking under -J)
        .fold(0.0, |s, x| s + x)
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
