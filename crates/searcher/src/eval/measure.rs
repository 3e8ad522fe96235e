//! Evaluation measures: their names and the measure-name grammar of
//! trec_eval's `-m` option.
//!
//! [`Measure`] is one printed value (`P_10`, `ndcg_cut_20`, `ndcg@20`, ...).
//! [`MeasureSpec::parse`] reads one `-m` argument as trec_eval 9 does: a
//! measure name (`map`), a family with trec_eval's default cutoffs (`P`,
//! `ndcg_cut`, `recall`, `success`), a family with explicit cutoffs
//! (`P.5,10`, `ndcg_cut.20`), or a nickname (`official`, `all_trec`), plus
//! the gdeval measures (`ndcg@20`, `err@20`, nickname `gdeval`) and
//! ir_measures' judged share `Judged@k` (`judged_10`, family `judged`).

use serde::Serialize;

use crate::{Error, Result};

/// trec_eval's default cutoffs for `P`, `recall` and `ndcg_cut`.
pub const DEFAULT_CUTOFFS: [u32; 9] = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
/// trec_eval's default cutoffs for `success`.
pub const SUCCESS_CUTOFFS: [u32; 3] = [1, 5, 10];
/// The default cutoffs of the judged share (`judged_10`, `judged_20`).
pub const JUDGED_CUTOFFS: [u32; 2] = [10, 20];

/// One evaluation measure. The derived order is the output order, which is
/// trec_eval's (counts, `map`, `Rprec`, `bpref`, `recip_rank`, `P`, `recall`,
/// `infAP`, `ndcg_cut`, `success`, each family by cutoff), then the judged
/// share by cutoff, `sample_eval.pl`'s `xinfAP`, then gdeval's two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Measure {
    /// trec_eval `num_ret`: documents retrieved (after `-M`); summed in the
    /// mean row.
    NumRet,
    /// trec_eval `num_rel`: judged documents with grade `>= 1`; summed in the
    /// mean row (with `-c` over every qrels topic).
    NumRel,
    /// trec_eval `num_rel_ret`: relevant documents retrieved; summed in the
    /// mean row.
    NumRelRet,
    /// trec_eval `map`: average precision.
    Map,
    /// trec_eval `Rprec`: precision after `num_rel` documents.
    Rprec,
    /// trec_eval `bpref` (judged documents only; see the module docs of
    /// [`crate::eval`]).
    Bpref,
    /// trec_eval `recip_rank`: 1 / rank of the first relevant document.
    RecipRank,
    /// trec_eval `P_k`: relevant documents in the first `k`, divided by `k`.
    P(u32),
    /// trec_eval `recall_k`: relevant documents in the first `k`, divided by
    /// `num_rel`.
    Recall(u32),
    /// trec_eval `infAP`: inferred average precision (qrels grades below 0
    /// are "in the pool, not sampled"; see the module docs of
    /// [`crate::eval`]).
    InfAP,
    /// trec_eval `ndcg_cut_k`: gain = grade, discount `log2(rank + 1)`.
    NdcgCut(u32),
    /// trec_eval `success_k`: 1 if a relevant document is in the first `k`.
    Success(u32),
    /// ir_measures' `Judged@k` (`judged_k`): the share of the first `k`
    /// retrieved documents that have a judgement of any grade, over
    /// `min(k, num_ret)`.
    Judged(u32),
    /// `sample_eval.pl`'s inferred AP over the strata of sample qrels
    /// (`xinfAP`; the script prints it as `infAP`).
    XinfAP,
    /// gdeval nDCG@20.
    Ndcg20,
    /// gdeval ERR@20.
    Err20,
}

impl Measure {
    /// trec_eval `P_5`.
    pub const P5: Measure = Measure::P(5);
    /// trec_eval `P_10`.
    pub const P10: Measure = Measure::P(10);
    /// trec_eval `P_20`.
    pub const P20: Measure = Measure::P(20);
    /// trec_eval `P_30`.
    pub const P30: Measure = Measure::P(30);
    /// trec_eval `recall_1000`.
    pub const RECALL1000: Measure = Measure::Recall(1000);

    /// The default measures (printed without `-m`), in output order.
    pub const ALL: [Measure; 11] = [
        Measure::NumRet,
        Measure::NumRel,
        Measure::NumRelRet,
        Measure::Map,
        Measure::P(5),
        Measure::P(10),
        Measure::P(20),
        Measure::P(30),
        Measure::Recall(1000),
        Measure::Ndcg20,
        Measure::Err20,
    ];

    /// The default measures of a sweep: [`Measure::ALL`] and the judged
    /// share of the first 10 and 20 documents, in output order.
    pub const SWEEP_DEFAULT: [Measure; 13] = [
        Measure::NumRet,
        Measure::NumRel,
        Measure::NumRelRet,
        Measure::Map,
        Measure::P(5),
        Measure::P(10),
        Measure::P(20),
        Measure::P(30),
        Measure::Recall(1000),
        Measure::Judged(10),
        Measure::Judged(20),
        Measure::Ndcg20,
        Measure::Err20,
    ];

    /// The name printed: trec_eval's (`map`, `P_10`, `recall_1000`,
    /// `ndcg_cut_20`, `Rprec`, ...) or gdeval's (`ndcg@20`, `err@20`).
    pub fn name(self) -> String {
        match self {
            Measure::NumRet => "num_ret".into(),
            Measure::NumRel => "num_rel".into(),
            Measure::NumRelRet => "num_rel_ret".into(),
            Measure::Map => "map".into(),
            Measure::Rprec => "Rprec".into(),
            Measure::Bpref => "bpref".into(),
            Measure::RecipRank => "recip_rank".into(),
            Measure::P(k) => format!("P_{k}"),
            Measure::Recall(k) => format!("recall_{k}"),
            Measure::NdcgCut(k) => format!("ndcg_cut_{k}"),
            Measure::Success(k) => format!("success_{k}"),
            Measure::InfAP => "infAP".into(),
            Measure::Judged(k) => format!("judged_{k}"),
            Measure::XinfAP => "xinfAP".into(),
            Measure::Ndcg20 => "ndcg@20".into(),
            Measure::Err20 => "err@20".into(),
        }
    }

    /// True for the counts, which are integers summed in the mean row.
    pub fn is_count(self) -> bool {
        matches!(self, Measure::NumRet | Measure::NumRel | Measure::NumRelRet)
    }

    /// True for gdeval's measures (`ndcg@20`, `err@20`).
    pub fn is_gdeval(self) -> bool {
        matches!(self, Measure::Ndcg20 | Measure::Err20)
    }

    /// True for the judged share (`judged_k`).
    pub fn is_judged_share(self) -> bool {
        matches!(self, Measure::Judged(_))
    }
}

impl std::fmt::Display for Measure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::str::FromStr for Measure {
    type Err = Error;
    /// Accepts one measure at the cutoffs trec_eval prints by default,
    /// case-insensitively, by its printed name or a common alias: `map`,
    /// `P@10` / `P_10` / `P.10`, `recall@1000`, `ndcg_cut_20`, `success_5`,
    /// `Rprec`, `bpref`, `recip_rank` / `MRR`, `infAP`, `xinfAP`, `nDCG@20` / `ERR@20`
    /// (gdeval), `judged_10` / `Judged@10` / `judged_20`, `num_ret`,
    /// `num_rel`, `num_rel_ret`. Other cutoffs (`P@7`) are only accepted
    /// through [`MeasureSpec::parse`].
    fn from_str(s: &str) -> Result<Measure> {
        let l = s.to_ascii_lowercase().replace(['_', '.'], "@");
        let cut = |rest: &str, allowed: &[u32]| -> Option<u32> {
            rest.parse().ok().filter(|k| allowed.contains(k))
        };
        let m = match l.as_str() {
            "map" | "ap" => Some(Measure::Map),
            "rprec" => Some(Measure::Rprec),
            "bpref" => Some(Measure::Bpref),
            "infap" => Some(Measure::InfAP),
            "xinfap" => Some(Measure::XinfAP),
            "recip@rank" | "mrr" | "rr" => Some(Measure::RecipRank),
            "ndcg@20" => Some(Measure::Ndcg20),
            "err@20" => Some(Measure::Err20),
            "r@1000" => Some(Measure::Recall(1000)),
            "num@ret" => Some(Measure::NumRet),
            "num@rel" => Some(Measure::NumRel),
            "num@rel@ret" => Some(Measure::NumRelRet),
            _ => None,
        }
        .or_else(|| {
            let (family, rest) = l.rsplit_once('@')?;
            match family {
                "p" => cut(rest, &DEFAULT_CUTOFFS).map(Measure::P),
                "recall" => cut(rest, &DEFAULT_CUTOFFS).map(Measure::Recall),
                "ndcg@cut" => cut(rest, &DEFAULT_CUTOFFS).map(Measure::NdcgCut),
                "success" => cut(rest, &SUCCESS_CUTOFFS).map(Measure::Success),
                "judged" => cut(rest, &JUDGED_CUTOFFS).map(Measure::Judged),
                _ => None,
            }
        });
        m.ok_or_else(|| Error::UnknownMeasure {
            name: s.to_string(),
            known: Measure::ALL.map(Measure::name).join(", ")
                + ", Rprec, bpref, recip_rank, infAP, xinfAP, recall_k, ndcg_cut_k, success_k, \
                   judged_10, judged_20",
        })
    }
}

/// trec_eval's measure-name grammar (one `-m` argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeasureSpec;

/// trec_eval measures of the `official` nickname that are implemented (trec_eval
/// also lists `gm_map` and `iprec_at_recall`, which are not).
fn official() -> Vec<Measure> {
    let mut v = vec![
        Measure::NumRet,
        Measure::NumRel,
        Measure::NumRelRet,
        Measure::Map,
        Measure::Rprec,
        Measure::Bpref,
        Measure::RecipRank,
    ];
    v.extend(DEFAULT_CUTOFFS.map(Measure::P));
    v
}

impl MeasureSpec {
    /// Parses one trec_eval `-m` argument into the measures it selects, in
    /// output order without duplicates:
    /// - `num_ret`, `num_rel`, `num_rel_ret`, `map`, `Rprec`, `bpref`,
    ///   `recip_rank`: that measure;
    /// - `P`, `recall`, `ndcg_cut`: trec_eval's default cutoffs
    ///   ([`DEFAULT_CUTOFFS`]); `success`: [`SUCCESS_CUTOFFS`];
    /// - `FAMILY.k1,k2,...` (`P.5,10`, `ndcg_cut.20`): those cutoffs, each a
    ///   positive integer; `judged` alone: [`JUDGED_CUTOFFS`], `judged.k,...`
    ///   those cutoffs;
    /// - `infAP`: trec_eval's inferred AP; `xinfAP`: `sample_eval.pl`'s
    ///   (sample qrels only);
    /// - `official`: trec_eval's official set, without its `gm_map` and
    ///   `iprec_at_recall` (not implemented): counts, `map`, `Rprec`, `bpref`,
    ///   `recip_rank`, `P` at the default cutoffs;
    /// - `all_trec`: every trec_eval measure implemented here (`infAP`
    ///   included), at the default cutoffs; not the judged share, which is
    ///   not trec_eval's;
    /// - `gdeval`: `ndcg@20` and `err@20`; `runid`, `num_q`: nothing (always
    ///   printed in the summary);
    /// - anything [`Measure`]'s `FromStr` accepts (`P_10`, `ndcg@20`).
    ///
    /// Names are case-sensitive as in trec_eval (`Rprec`, `P`), except for
    /// the aliases of `FromStr`. Anything else is [`Error::UnknownMeasure`].
    pub fn parse(spec: &str) -> Result<Vec<Measure>> {
        let unknown = || Error::UnknownMeasure {
            name: spec.to_string(),
            known: "num_ret, num_rel, num_rel_ret, map, Rprec, bpref, recip_rank, infAP, xinfAP, \
                    P[.k,...], recall[.k,...], ndcg_cut[.k,...], success[.k,...], \
                    judged[.k,...], official, all_trec, gdeval, ndcg@20, err@20"
                .into(),
        };
        let (name, params) = match spec.split_once('.') {
            Some((n, p)) if matches!(n, "P" | "recall" | "ndcg_cut" | "success" | "judged") => {
                (n, Some(p))
            }
            _ => (spec, None),
        };
        let family: Option<fn(u32) -> Measure> = match name {
            "P" => Some(Measure::P),
            "recall" => Some(Measure::Recall),
            "ndcg_cut" => Some(Measure::NdcgCut),
            "success" => Some(Measure::Success),
            "judged" => Some(Measure::Judged),
            _ => None,
        };
        let mut v = match (family, params) {
            (Some(f), Some(p)) => {
                let cuts: Option<Vec<u32>> = p
                    .split(',')
                    .map(|k| k.parse::<u32>().ok().filter(|&k| k > 0))
                    .collect();
                cuts.ok_or_else(unknown)?.into_iter().map(f).collect()
            }
            (Some(f), None) if name == "success" => SUCCESS_CUTOFFS.map(f).to_vec(),
            (Some(f), None) if name == "judged" => JUDGED_CUTOFFS.map(f).to_vec(),
            (Some(f), None) => DEFAULT_CUTOFFS.map(f).to_vec(),
            (None, _) => match name {
                "official" => official(),
                "all_trec" => {
                    let mut v = official();
                    v.extend(DEFAULT_CUTOFFS.map(Measure::Recall));
                    v.push(Measure::InfAP);
                    v.extend(DEFAULT_CUTOFFS.map(Measure::NdcgCut));
                    v.extend(SUCCESS_CUTOFFS.map(Measure::Success));
                    v
                }
                "gdeval" => vec![Measure::Ndcg20, Measure::Err20],
                "runid" | "num_q" => Vec::new(),
                _ => vec![spec.parse::<Measure>().map_err(|_| unknown())?],
            },
        };
        v.sort_unstable();
        v.dedup();
        Ok(v)
    }

    /// Parses several `-m` arguments; the union in output order. An empty
    /// list selects [`Measure::ALL`].
    pub fn parse_all<S: AsRef<str>>(specs: &[S]) -> Result<Vec<Measure>> {
        if specs.is_empty() {
            return Ok(Measure::ALL.to_vec());
        }
        let mut v = Vec::new();
        for s in specs {
            v.extend(MeasureSpec::parse(s.as_ref())?);
        }
        v.sort_unstable();
        v.dedup();
        Ok(v)
    }
}
