//! Run fusion, byte for byte as Anserini 1.7.1's `FuseRuns`: reciprocal
//! rank fusion, interpolation of two runs, averaging and weighted sums, with
//! optional min-max normalisation.
//!
//! # What a fused run is
//!
//! Each input run ([`read::read_fusion_run`]: the first `depth` lines of
//! each topic, in file order) gives each of its documents a contribution:
//!
//! * `rrf`: `1 / (k + rank)`, computed in `f64` from the file's rank column
//!   (not the line's position) and rounded to `f32`;
//! * `interpolation` (exactly two runs): the first run's scores × α, the
//!   second's × (1 − α);
//! * `average`: every run's scores × 1/N;
//! * `weighted`: run i's scores × its weight.
//!
//! Scores are `f32`; each is scaled in `f64` and rounded back to `f32`.
//! With min-max normalisation (not for `rrf`, whose contributions do not
//! read the scores) each run's scores of a topic first become
//! `(s − min) / (max − min)` in `f32`, or 1 when all are equal. A
//! document's fused score is the `f32` sum of its contributions in run
//! order; a topic missing from a run, or a document missing from a run's
//! topic, contributes nothing. Each topic's documents are then ordered by
//! fused score, descending, ties in the iteration order of the Java
//! `HashMap` Anserini fills ([`javamap`]), cut at `hits` and ranked from 1;
//! topics are written in Java's `String` order (UTF-16 code units), scores
//! as Java's `%.6f` prints them ([`javafmt`]).
//!
//! # Where sieve differs from Anserini
//!
//! Anserini applies `depth` as a cap on how many contributions a document
//! accumulates, although its documentation calls it the number of results
//! of each run to consider; sieve does what the documentation says. The
//! two agree whenever `depth` is at least the number of runs and at least
//! every run's line count per topic (the defaults, for runs of up to 1000
//! lines per topic). sieve refuses what Anserini accepts silently: a run
//! with a document twice in a topic (Anserini adds both copies), non-finite
//! scores, weights or α, and scores that overflow to infinity.

pub mod javafmt;
pub mod javamap;
pub mod read;

use std::cmp::Ordering;
use std::io::Write;

use crate::{Error, Result};
use javamap::JavaHashMap;
pub use read::{FusionHit, FusionRun, parse_fusion_run, read_fusion_run};

/// A fusion method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009).
    Rrf,
    /// `α × first + (1 − α) × second`, exactly two runs.
    Interpolation,
    /// Every run's scores × 1/N, summed.
    Average,
    /// Run i's scores × weight i, summed.
    Weighted,
}

impl Method {
    /// The method's name on the command line (and in Anserini's `-method`).
    pub fn name(self) -> &'static str {
        match self {
            Method::Rrf => "rrf",
            Method::Interpolation => "interpolation",
            Method::Average => "average",
            Method::Weighted => "weighted",
        }
    }
}

/// The settings of a fusion.
#[derive(Debug, Clone, PartialEq)]
pub struct FuseParams {
    /// The method.
    pub method: Method,
    /// RRF's k (Anserini's `-rrf_k`, default 60).
    pub rrf_k: u32,
    /// Interpolation's α (default 0.5).
    pub alpha: f64,
    /// One weight per run (`weighted` only).
    pub weights: Vec<f64>,
    /// Min-max normalise each run's scores per topic first.
    pub min_max: bool,
    /// Hits per topic in the fused run.
    pub hits: usize,
}

impl Default for FuseParams {
    fn default() -> Self {
        FuseParams {
            method: Method::Rrf,
            rrf_k: 60,
            alpha: 0.5,
            weights: Vec::new(),
            min_max: false,
            hits: 1000,
        }
    }
}

/// A fused run: topics in Java's `String` order, each topic's documents
/// with their fused scores in rank order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fused {
    /// (topic id, [(docid, score)]).
    pub topics: Vec<(String, Vec<(String, f32)>)>,
    /// Topics in which Java's `HashMap` would have made a bucket a tree:
    /// there, tied documents may be in another order than Anserini's.
    pub uncertain_ties: Vec<String>,
}

/// How many of the union's topics each run lacks, in run order.
pub fn missing_topics(runs: &[FusionRun]) -> (usize, Vec<usize>) {
    let all: std::collections::BTreeSet<&str> = runs
        .iter()
        .flat_map(|r| r.topics.keys().map(String::as_str))
        .collect();
    let lacking = runs.iter().map(|r| all.len() - r.topics.len()).collect();
    (all.len(), lacking)
}

/// Checks `p` against the runs: at least two, exactly two for
/// interpolation, one finite weight per run for `weighted`, a finite α,
/// at least one hit.
pub fn check_params(p: &FuseParams, runs: usize) -> Result<()> {
    let bad = |name, expected, got: String| {
        Err(Error::InvalidParameter {
            name,
            expected,
            got,
        })
    };
    if runs < 2 {
        return bad("runs", "at least 2 runs to fuse", runs.to_string());
    }
    if p.hits == 0 {
        return bad("hits", "at least 1", "0".into());
    }
    match p.method {
        Method::Interpolation if runs != 2 => {
            return bad("runs", "exactly 2 runs for interpolation", runs.to_string());
        }
        Method::Interpolation if !p.alpha.is_finite() => {
            return bad("alpha", "a finite number", p.alpha.to_string());
        }
        Method::Weighted if p.weights.len() != runs => {
            let got = format!("{} weights for {runs} runs", p.weights.len());
            return bad("weights", "one weight per run", got);
        }
        Method::Weighted => {
            if let Some(w) = p.weights.iter().find(|w| !w.is_finite()) {
                return bad("weights", "finite numbers", w.to_string());
            }
        }
        _ => {}
    }
    if p.rrf_k > i32::MAX as u32 {
        return bad("rrf_k", "at most 2147483647", p.rrf_k.to_string());
    }
    Ok(())
}

/// Fuses `runs` (each read with the same depth) by `p`.
pub fn fuse(runs: &[FusionRun], p: &FuseParams) -> Result<Fused> {
    check_params(p, runs.len())?;
    let contributions = runs
        .iter()
        .enumerate()
        .map(|(i, run)| contributions(run, i, runs.len(), p))
        .collect::<Result<Vec<_>>>()?;
    let mut maps: std::collections::BTreeMap<&str, JavaHashMap> = Default::default();
    for run in &contributions {
        for (qid, hits) in run {
            let map = maps.entry(qid.as_str()).or_default();
            for &(docid, score) in hits {
                map.merge(docid, score, |a, b| a + b);
            }
        }
    }
    let mut fused = Fused::default();
    for (qid, map) in maps {
        if map.treeified() {
            fused.uncertain_ties.push(qid.to_string());
        }
        let mut docs: Vec<(&str, f32)> = map.iter().collect();
        if let Some(&(docid, value)) = docs.iter().find(|(_, s)| !s.is_finite()) {
            return Err(not_finite(
                "the sum of the runs' contributions",
                qid,
                docid,
                value,
            ));
        }
        // Java's Float.compare, reversed; a stable sort keeps ties in map order.
        docs.sort_by(|a, b| b.1.total_cmp(&a.1));
        docs.truncate(p.hits);
        let hits = docs.into_iter().map(|(d, s)| (d.to_string(), s)).collect();
        fused.topics.push((qid.to_string(), hits));
    }
    fused.topics.sort_by(|a, b| java_string_cmp(&a.0, &b.0));
    Ok(fused)
}

/// One topic of one run: its id and each (docid, contribution), in file
/// order.
type TopicContributions<'a> = (&'a String, Vec<(&'a str, f32)>);

/// Each topic's (docid, contribution) of run `i` of `n`, in file order.
fn contributions<'a>(
    run: &'a FusionRun,
    i: usize,
    n: usize,
    p: &FuseParams,
) -> Result<Vec<TopicContributions<'a>>> {
    let scale = match p.method {
        Method::Rrf => None,
        Method::Interpolation if i == 0 => Some(p.alpha),
        Method::Interpolation => Some(1.0 - p.alpha),
        Method::Average => Some(1.0 / n as f64),
        Method::Weighted => Some(p.weights[i]),
    };
    let mut out = Vec::with_capacity(run.topics.len());
    for (qid, hits) in &run.topics {
        let mut scores: Vec<f32> = match scale {
            None => hits.iter().map(|h| rrf(p.rrf_k, h.rank)).collect(),
            Some(_) => hits.iter().map(|h| h.score).collect(),
        };
        if let (Some(_), true) = (scale, p.min_max) {
            min_max(&mut scores);
        }
        if let Some(scale) = scale {
            for s in &mut scores {
                *s = (f64::from(*s) * scale) as f32;
            }
        }
        let stage = || format!("{} of run {}", p.method.name(), i + 1);
        let docs: Vec<(&str, f32)> = hits.iter().map(|h| h.docid.as_str()).zip(scores).collect();
        if let Some(&(docid, value)) = docs.iter().find(|(_, s)| !s.is_finite()) {
            return Err(not_finite(&stage(), qid, docid, value));
        }
        out.push((qid, docs));
    }
    Ok(out)
}

/// RRF's contribution of a line ranked `rank`: `1 / (k + rank)` in `f64`,
/// as `f32` (infinite or negative when `k + rank` ≤ 0: refused later).
fn rrf(k: u32, rank: i32) -> f32 {
    let denominator = i64::from(k) + i64::from(rank);
    if denominator <= 0 {
        return f32::INFINITY;
    }
    (1.0 / denominator as f64) as f32
}

/// Min-max normalisation of one topic's scores, in `f32`, with Java's
/// `Float.min`/`Float.max` (−0 below +0); all equal → all 1.
fn min_max(scores: &mut [f32]) {
    let Some(&first) = scores.first() else {
        return;
    };
    let (mut lo, mut hi) = (first, first);
    for &s in scores.iter() {
        lo = java_min(lo, s);
        hi = java_max(hi, s);
    }
    for s in scores.iter_mut() {
        *s = if hi == lo { 1.0 } else { (*s - lo) / (hi - lo) };
    }
}

fn java_min(a: f32, b: f32) -> f32 {
    if a.total_cmp(&b) == Ordering::Greater {
        b
    } else {
        a
    }
}

fn java_max(a: f32, b: f32) -> f32 {
    if a.total_cmp(&b) == Ordering::Less {
        b
    } else {
        a
    }
}

/// Java's `String.compareTo`: UTF-16 code units compared in order.
pub fn java_string_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn not_finite(stage: &str, qid: &str, docid: &str, value: f32) -> Error {
    Error::FusionNotFinite {
        stage: stage.to_string(),
        qid: qid.to_string(),
        docid: docid.to_string(),
        value,
    }
}

/// Writes a fused run as Anserini does: `qid Q0 docid rank score tag`
/// with the score as Java's `%.6f`. The tag is checked by the run-file id
/// rule first.
pub fn write_fused<W: Write>(mut w: W, tag: &str, fused: &Fused) -> Result<W> {
    crate::run::check_field("tag", tag)?;
    let io = |source: std::io::Error| Error::Write { source };
    for (qid, hits) in &fused.topics {
        for (i, (docid, score)) in hits.iter().enumerate() {
            let score = javafmt::java_fixed6(*score);
            writeln!(w, "{qid} Q0 {docid} {} {score} {tag}", i + 1).map_err(io)?;
        }
    }
    w.flush().map_err(io)?;
    Ok(w)
}

#[cfg(test)]
mod tests;
