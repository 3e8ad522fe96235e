//! A/B comparison of two evaluated runs: per-measure means, difference,
//! wins/losses/ties per topic, paired two-sided t-test, and the topics that
//! changed most.
//!
//! Topics are paired as follows: without `complete` (trec_eval `-c`), the
//! topics evaluated in both runs; with it, every topic of the qrels, a topic
//! missing from a run scoring 0. For the gdeval measures, topics without a
//! relevant document (value `None`) are left out of the pairing for that
//! measure. Means here are over the paired topics, so they equal the
//! [`Evaluation::mean`] of each run when both runs cover the same topics.
//! When either evaluation refused the gdeval measures (a NaN score, a grade
//! above gdeval's maximum: [`Evaluation::gdeval_refused`]), they are not
//! compared: [`MeasureComparison::not_computed`] says why, as `eval`
//! does, and the text and JSON show no number for them.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::Serialize;

use crate::robust::{Resampling, Robust};

use crate::eval::{Evaluation, Measure, qid_order};

/// One topic's values under A and B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicChange {
    /// The topic id.
    pub qid: String,
    /// The value for run A.
    pub a: f64,
    /// The value for run B.
    pub b: f64,
}

impl TopicChange {
    /// `b - a`.
    pub fn diff(&self) -> f64 {
        self.b - self.a
    }
}

/// The comparison of A and B on one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasureComparison {
    /// The measure.
    pub measure: Measure,
    /// Number of paired topics.
    pub n: usize,
    /// Mean of A over the paired topics.
    pub mean_a: f64,
    /// Mean of B over the paired topics.
    pub mean_b: f64,
    /// Topics where B > A.
    pub wins: usize,
    /// Topics where B < A.
    pub losses: usize,
    /// Topics where B == A.
    pub ties: usize,
    /// The 95% confidence interval of the mean difference B - A, from the
    /// paired differences (`None` if n < 2; see [`crate::paired`]).
    pub ci: Option<(f64, f64)>,
    /// Paired two-sided Student t statistic of B - A (`None` if n < 2 or
    /// every difference is 0, where the test is undefined and scipy gives
    /// NaN; infinite when every difference is the same non-zero value).
    pub t: Option<f64>,
    /// Its two-sided p-value.
    pub p_value: Option<f64>,
    /// The `top` topics with the largest |B - A|, ties by topic id
    /// ([`qid_order`]); topics with no change are not listed.
    pub most_changed: Vec<TopicChange>,
    /// Why the measure was not computed (a gdeval measure that either
    /// run's evaluation refused: `A: ...` or `B: ...`); every number above
    /// is then empty.
    pub not_computed: Option<String>,
    /// The randomisation and Wilcoxon tests, the bootstrap interval and
    /// the risk measures of B against A ([`crate::robust`]; in the JSON
    /// as flat keys, [`to_json`]).
    #[serde(skip)]
    pub robust: Robust,
}

impl MeasureComparison {
    /// `mean_b - mean_a`.
    pub fn diff(&self) -> f64 {
        self.mean_b - self.mean_a
    }
}

pub use crate::paired::paired_t_test;

/// The topics A and B are paired on for measure `m` (see the module docs),
/// in [`qid_order`], with their values.
pub fn pairs(a: &Evaluation, b: &Evaluation, m: Measure) -> Vec<TopicChange> {
    let complete = a.options.complete || b.options.complete;
    let ids: BTreeSet<&str> = a.topics.iter().map(|t| t.qid.as_str()).collect();
    let ids_b: BTreeSet<&str> = b.topics.iter().map(|t| t.qid.as_str()).collect();
    let mut qids: Vec<&str> = if complete {
        let missing = a
            .missing_topics
            .iter()
            .chain(&b.missing_topics)
            .map(|(q, _)| q.as_str());
        ids.union(&ids_b)
            .copied()
            .chain(missing)
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .collect()
    } else {
        ids.intersection(&ids_b).copied().collect()
    };
    qids.sort_by(|x, y| qid_order(x, y));
    let value = |e: &Evaluation, q: &str| -> Option<f64> {
        match e.topic(q) {
            Some(t) => t.get(m),
            // missing from this run (complete only): 0, except for
            // the gdeval measures of a topic with no relevant document
            None => {
                let has_rel = e.missing_topics.iter().any(|(id, r)| id == q && *r);
                (has_rel || !m.is_gdeval()).then_some(0.0)
            }
        }
    };
    qids.into_iter()
        .filter_map(|q| {
            Some(TopicChange {
                qid: q.to_string(),
                a: value(a, q)?,
                b: value(b, q)?,
            })
        })
        .collect()
}

/// Compares A and B on each of `measures`, listing the `top` most changed
/// topics per measure. Both evaluations should come from the same qrels and
/// options.
pub fn compare(
    a: &Evaluation,
    b: &Evaluation,
    measures: &[Measure],
    top: usize,
) -> Vec<MeasureComparison> {
    compare_with(a, b, measures, top, Resampling::default())
}

/// [`compare`], the resampling statistics drawn as `draws` says.
pub fn compare_with(
    a: &Evaluation,
    b: &Evaluation,
    measures: &[Measure],
    top: usize,
    draws: Resampling,
) -> Vec<MeasureComparison> {
    measures
        .iter()
        .map(|&m| match gdeval_refused(a, b, m) {
            Some(why) => not_computed(m, why),
            None => compare_one(a, b, m, (top, draws)),
        })
        .collect()
}

/// Why measure `m` cannot be compared: the gdeval refusal of A or B.
fn gdeval_refused(a: &Evaluation, b: &Evaluation, m: Measure) -> Option<String> {
    if !m.is_gdeval() {
        return None;
    }
    [("A", a), ("B", b)].into_iter().find_map(|(label, e)| {
        e.gdeval_refused
            .as_ref()
            .map(|why| format!("{label}: {why}"))
    })
}

/// The comparison of a measure that was not computed.
fn not_computed(measure: Measure, why: String) -> MeasureComparison {
    MeasureComparison {
        measure,
        n: 0,
        mean_a: f64::NAN,
        mean_b: f64::NAN,
        wins: 0,
        losses: 0,
        ties: 0,
        ci: None,
        t: None,
        p_value: None,
        most_changed: Vec::new(),
        not_computed: Some(why),
        robust: Robust::default(),
    }
}

/// Compares A and B on measure `m` (see [`compare`]).
fn compare_one(
    a: &Evaluation,
    b: &Evaluation,
    m: Measure,
    (top, draws): (usize, Resampling),
) -> MeasureComparison {
    let pairs = pairs(a, b, m);
    let n = pairs.len();
    let mean = |f: fn(&TopicChange) -> f64| {
        if n == 0 {
            0.0
        } else {
            pairs.iter().map(f).sum::<f64>() / n as f64
        }
    };
    let (mean_a, mean_b) = (mean(|p| p.a), mean(|p| p.b));
    let wins = pairs.iter().filter(|p| p.b > p.a).count();
    let losses = pairs.iter().filter(|p| p.b < p.a).count();
    let diffs: Vec<f64> = pairs.iter().map(TopicChange::diff).collect();
    let stats = crate::paired::paired(&diffs);
    let robust = Robust::of(&diffs, draws);
    let mut changed: Vec<TopicChange> = pairs.into_iter().filter(|p| p.a != p.b).collect();
    changed.sort_by(|x, y| {
        y.diff()
            .abs()
            .total_cmp(&x.diff().abs())
            .then_with(|| qid_order(&x.qid, &y.qid))
    });
    changed.truncate(top);
    MeasureComparison {
        measure: m,
        n,
        mean_a,
        mean_b,
        wins,
        losses,
        ties: n - wins - losses,
        ci: stats.ci,
        t: stats.t,
        p_value: stats.p,
        most_changed: changed,
        not_computed: None,
        robust,
    }
}

/// 4 decimals, or scientific notation below 1e-4 (small p-values); `-` for None.
fn fmt_opt(v: Option<f64>) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if v != 0.0 && v.abs() < 1e-4 => format!("{v:.2e}"),
        Some(v) => format!("{v:.4}"),
    }
}

/// Aligned text: a summary table (measure, A, B, B-A, W/L/T, p), then per
/// measure the most changed topics (qid, A, B, B-A). `name_a`/`name_b` label
/// the columns.
pub fn to_text(cmp: &[MeasureComparison], name_a: &str, name_b: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "A = {name_a}\nB = {name_b}\n");
    let _ = writeln!(
        s,
        "{:<12} {:>5} {:>8} {:>8} {:>8} {:>5} {:>5} {:>5} {:>8} {:>8}",
        "measure", "n", "A", "B", "B-A", "win", "loss", "tie", "t", "p"
    );
    for c in cmp {
        if let Some(why) = &c.not_computed {
            let _ = writeln!(
                s,
                "{:<12} {:>5} not computed ({why})",
                c.measure.name(),
                "-"
            );
            continue;
        }
        let _ = writeln!(
            s,
            "{:<12} {:>5} {:>8.4} {:>8.4} {:>+8.4} {:>5} {:>5} {:>5} {:>8} {:>8}",
            c.measure.name(),
            c.n,
            c.mean_a,
            c.mean_b,
            c.diff(),
            c.wins,
            c.losses,
            c.ties,
            fmt_opt(c.t),
            fmt_opt(c.p_value)
        );
    }
    let _ = writeln!(
        s,
        "(n: topics compared; B-A: mean of B minus mean of A; win/loss/tie: topics where B scores\n \
         higher/lower/the same; t, p: paired two-sided t-test, p < 0.05 means the difference is\n \
         unlikely to be chance; - when it cannot be computed)"
    );
    robust_text(&mut s, cmp);
    for c in cmp {
        if c.most_changed.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\nmost changed topics, {}:", c.measure.name());
        let _ = writeln!(s, "{:<12} {:>8} {:>8} {:>8}", "topic", "A", "B", "B-A");
        for t in &c.most_changed {
            let _ = writeln!(
                s,
                "{:<12} {:>8.4} {:>8.4} {:>+8.4}",
                t.qid,
                t.a,
                t.b,
                t.diff()
            );
        }
    }
    s
}

/// The robust tests and risk of each measure, and their legend.
fn robust_text(s: &mut String, cmp: &[MeasureComparison]) {
    let _ = writeln!(
        s,
        "\n{:<12} {:>8} {:>9} {:>19} {:>8} {:>8} {:>8} {:>8}",
        "measure",
        "p(rand)",
        "p(Wilcox)",
        "bootstrap 95% CI",
        "URisk1",
        "URisk5",
        "TRisk1",
        "TRisk5"
    );
    for c in cmp.iter().filter(|c| c.not_computed.is_none()) {
        let r = &c.robust;
        let ci = r.boot_ci.map_or_else(
            || "-".to_string(),
            |(lo, hi)| format!("[{lo:+.4}, {hi:+.4}]"),
        );
        let _ = writeln!(
            s,
            "{:<12} {:>8} {:>9} {:>19} {:>8} {:>8} {:>8} {:>8}",
            c.measure.name(),
            fmt_opt(r.p_rand),
            fmt_opt(r.p_wilcoxon),
            ci,
            fmt_opt(r.urisk[0]),
            fmt_opt(r.urisk[1]),
            fmt_opt(r.trisk[0]),
            fmt_opt(r.trisk[1])
        );
    }
    let _ = writeln!(
        s,
        "(p(rand): paired randomisation test; p(Wilcox): Wilcoxon signed-rank test; bootstrap: 95%\n \
         percentile interval of B-A; URisk/TRisk at alpha 1 and 5: B's risk against A, losses\n \
         weighted 1+alpha, TRisk < -2 a significant risk; docs/evaluation.md has the definitions)"
    );
}

/// Full-precision JSON: `{"a", "b", "measures": [{measure, n, mean_a, mean_b,
/// diff, wins, losses, ties, t, p_value, p_rand, p_wilcoxon, boot_ci_low,
/// boot_ci_high, urisk1, urisk5, trisk1, trisk5, most_changed: [{qid, a,
/// b}], not_computed}]}`; a measure not computed has `not_computed` (why) and
/// every number `null`.
pub fn to_json(cmp: &[MeasureComparison], name_a: &str, name_b: &str) -> serde_json::Value {
    let measures: Vec<serde_json::Value> = cmp
        .iter()
        .map(|c| {
            let mut v = serde_json::to_value(c).unwrap_or_default();
            v["measure"] = c.measure.name().into();
            v["diff"] = c.diff().into();
            let r = &c.robust;
            let ci = r.boot_ci.unzip();
            for (k, x) in [
                ("p_rand", r.p_rand),
                ("p_wilcoxon", r.p_wilcoxon),
                ("boot_ci_low", ci.0),
                ("boot_ci_high", ci.1),
                ("urisk1", r.urisk[0]),
                ("urisk5", r.urisk[1]),
                ("trisk1", r.trisk[0]),
                ("trisk5", r.trisk[1]),
            ] {
                v[k] = x.into();
            }
            if c.not_computed.is_some() {
                for k in ["n", "mean_a", "mean_b", "diff", "wins", "losses", "ties"] {
                    v[k] = serde_json::Value::Null;
                }
            }
            v
        })
        .collect();
    serde_json::json!({ "a": name_a, "b": name_b, "measures": measures })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{EvalOptions, evaluate};
    use crate::qrels::parse_qrels;
    use crate::run::{Duplicates, parse_run};

    #[test]
    fn t_test_matches_scipy() {
        // scipy.stats.ttest_rel([2,2,5,7], [1,2,3,4]) (scipy 1.17.1, .venv):
        // t = 2.32379000772445, p = 0.10272807885839899
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [2.0, 2.0, 5.0, 7.0];
        let d: Vec<f64> = a.iter().zip(&b).map(|(a, b)| b - a).collect();
        let (t, p) = paired_t_test(&d).unwrap();
        assert!((t - 2.32379000772445).abs() < 1e-12, "{t}");
        assert!((p - 0.10272807885839899).abs() < 1e-9, "{p}");
        // hand-computed: d = [1, -1, 1, -1, 2]: mean 0.4, var 1.8/... see below
        // mean 0.4, s^2 = (0.36+1.96+0.36+1.96+2.56)/4 = 1.8, t = 0.4/sqrt(0.36) = 0.6667
        let (t, _) = paired_t_test(&[1.0, -1.0, 1.0, -1.0, 2.0]).unwrap();
        assert!((t - 0.4 / 0.36f64.sqrt()).abs() < 1e-12);
        assert_eq!(paired_t_test(&[1.0]), None);
        // as scipy: all differences 0 is undefined, a constant non-zero one
        // has t = inf, p = 0
        assert_eq!(paired_t_test(&[0.0, 0.0, 0.0]), None);
        assert_eq!(paired_t_test(&[0.5, 0.5, 0.5]), Some((f64::INFINITY, 0.0)));
    }

    #[test]
    fn compare_counts_and_orders() {
        let q = parse_qrels(b"1 0 a 1\n2 0 a 1\n3 0 a 1\n4 0 b 1\n").unwrap();
        let ra = parse_run(
            b"1 Q0 a 1 1 A\n2 Q0 x 1 2 A\n2 Q0 a 2 1 A\n3 Q0 x 1 1 A\n4 Q0 b 1 1 A\n",
            Duplicates::Error,
        )
        .unwrap();
        let rb = parse_run(
            b"1 Q0 x 1 2 B\n1 Q0 a 2 1 B\n2 Q0 a 1 1 B\n3 Q0 a 1 1 B\n4 Q0 b 1 1 B\n",
            Duplicates::Error,
        )
        .unwrap();
        let ea = evaluate(&q, &ra, "A", EvalOptions::default()).unwrap();
        let eb = evaluate(&q, &rb, "B", EvalOptions::default()).unwrap();
        // AP A: 1, 0.5, 0, 1; B: 0.5, 1, 1, 1
        let c = &compare(&ea, &eb, &[Measure::Map], 2)[0];
        assert_eq!((c.n, c.wins, c.losses, c.ties), (4, 2, 1, 1));
        assert!((c.mean_a - 0.625).abs() < 1e-12 && (c.mean_b - 0.875).abs() < 1e-12);
        // |diff|: topic 3 = 1, topics 1 and 2 = 0.5 (tie broken by id: 1)
        let ids: Vec<&str> = c.most_changed.iter().map(|t| t.qid.as_str()).collect();
        assert_eq!(ids, ["3", "1"]);
        // d = [-0.5, 0.5, 1, 0]
        let (t, p) = paired_t_test(&[-0.5, 0.5, 1.0, 0.0]).unwrap();
        assert_eq!((c.t, c.p_value), (Some(t), Some(p)));
        let text = to_text(std::slice::from_ref(c), "A", "B");
        assert!(
            text.contains("map              4   0.6250   0.8750  +0.2500     2     1     1"),
            "{text}"
        );
        let j = to_json(std::slice::from_ref(c), "A", "B");
        assert_eq!(j["measures"][0]["wins"], 2);
        assert_eq!(j["measures"][0]["measure"], "map");
    }

    #[test]
    fn complete_pairs_missing_topics_as_zero() {
        let q = parse_qrels(b"1 0 a 1\n2 0 a 1\n3 0 a 1\n").unwrap();
        let ra = parse_run(b"1 Q0 a 1 1 A\n", Duplicates::Error).unwrap();
        let rb = parse_run(b"1 Q0 a 1 1 B\n2 Q0 a 1 1 B\n", Duplicates::Error).unwrap();
        let o = EvalOptions {
            complete: true,
            ..EvalOptions::default()
        };
        let c = &compare(
            &evaluate(&q, &ra, "A", o).unwrap(),
            &evaluate(&q, &rb, "B", o).unwrap(),
            &[Measure::P5],
            5,
        )[0];
        // topic 3 is in neither run: paired as 0 / 0
        assert_eq!((c.n, c.wins, c.ties), (3, 1, 2));
        assert!((c.mean_a - 0.2 / 3.0).abs() < 1e-12 && (c.mean_b - 0.4 / 3.0).abs() < 1e-12);
        let o = EvalOptions::default();
        let c = &compare(
            &evaluate(&q, &ra, "A", o).unwrap(),
            &evaluate(&q, &rb, "B", o).unwrap(),
            &[Measure::P5],
            5,
        )[0];
        assert_eq!((c.n, c.ties), (1, 1));
    }
}
