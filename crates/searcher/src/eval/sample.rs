//! `xinfAP`: the inferred average precision of NIST's `sample_eval.pl`
//! (Yilmaz, Kanoulas and Aslam, SIGIR 2008) over the strata of sample
//! qrels ([`crate::qrels`]), computed exactly as the script computes its
//! `infAP` (see the module docs of [`crate::eval`] for the rules).

use crate::qrels::TopicQrels;

/// `sample_eval.pl`'s `$maxResultSize`: the documents of a topic it reads.
pub const SAMPLE_EVAL_MAX_RESULTS: usize = 1000;

/// Per stratum of one topic, counted over its qrels.
#[derive(Debug, Clone, Copy, Default)]
struct Stratum {
    /// Documents of the stratum (`$docs_per_category`).
    docs: f64,
    /// Of them, judged `>= 0` (`$sampled_docs`).
    sampled: f64,
    /// Of them, judged `> 0` (`$sampled_rel`).
    rel: f64,
}

/// Per stratum, down the ranking so far.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    /// Retrieved documents of the stratum (`$num_docs`).
    docs: f64,
    /// Of them, judged `>= 0` (`$num_sampled`).
    sampled: f64,
    /// Of them, judged `> 0` (`$num_relevant`).
    rel: f64,
    /// Estimated precision summed at its relevant documents (`$SAP_category`).
    sap: f64,
}

/// The strata of `tq` in Perl's `sort keys` order (byte order of the
/// names), each with its counts.
fn strata(tq: &TopicQrels) -> (Vec<u32>, Vec<Stratum>) {
    let names = tq.strata();
    let mut order: Vec<u32> = (0..names.len() as u32).collect();
    order.sort_by(|&a, &b| {
        names[a as usize]
            .as_bytes()
            .cmp(names[b as usize].as_bytes())
    });
    let mut counts = vec![Stratum::default(); names.len()];
    for (docno, rel) in tq.iter() {
        let Some(s) = tq.stratum(docno) else { continue };
        let c = &mut counts[s as usize];
        c.docs += 1.0;
        if rel >= 0 {
            c.sampled += 1.0;
        }
        if rel > 0 {
            c.rel += 1.0;
        }
    }
    (order, counts)
}

/// `xinfAP` of a topic whose judgments `tq` are sample qrels, from the
/// grades and strata of its retrieved documents in `sample_eval.pl`'s
/// order (`ranked`: `None` = not in the qrels), of which it reads the
/// first [`SAMPLE_EVAL_MAX_RESULTS`].
pub(crate) fn xinf_ap(tq: &TopicQrels, ranked: &[Option<(i64, u32)>]) -> f64 {
    let (order, counts) = strata(tq);
    let mut seen = vec![Seen::default(); counts.len()];
    let mut depth = 0.0f64;
    for (i, doc) in ranked.iter().take(SAMPLE_EVAL_MAX_RESULTS).enumerate() {
        let rank = (i + 1) as f64;
        let Some((rel, s)) = *doc else { continue };
        let s = s as usize;
        if rel > 0 {
            let mut above = 0.0f64;
            if depth != 0.0 {
                for &c in &order {
                    let c = seen[c as usize];
                    let prob = c.docs / depth;
                    if prob != 0.0 {
                        above += prob * (c.rel + 0.00001) / (c.sampled + 0.00003);
                    }
                }
            }
            seen[s].sap += 1.0 / rank + (depth / rank) * above;
            seen[s].rel += 1.0;
        }
        depth += 1.0;
        seen[s].docs += 1.0;
        if rel >= 0 {
            seen[s].sampled += 1.0;
        }
    }
    let num_rel: f64 = order
        .iter()
        .map(|&c| counts[c as usize])
        .filter(|c| c.sampled != 0.0)
        .fold(0.0, |sum, c| sum + c.rel * c.docs / c.sampled);
    let mut ap = 0.0f64;
    for &c in &order {
        let k = counts[c as usize];
        if k.sampled == 0.0 || num_rel == 0.0 {
            continue;
        }
        let prob = (k.rel * k.docs / k.sampled) / num_rel;
        let within = if k.rel != 0.0 {
            seen[c as usize].sap / k.rel
        } else {
            0.0
        };
        ap += prob * within;
    }
    ap
}
