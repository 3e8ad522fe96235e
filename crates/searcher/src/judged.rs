//! Judged loss: what a document filter removed that was judged.
//!
//! A filter that raises MAP may still remove relevant documents; a reviewer
//! asks how many. For a filter (a [`Subset`] of an index) and the judgements
//! of the evaluated topics, this module counts:
//!
//! * **removed**: judgements whose document the index holds (a live
//!   document with that `docid`, found as [`crate::docinfo`] finds one) and
//!   the filter drops, per grade ([`Tally`]); grade `>= 1` is relevant,
//!   grade `<= 0` (0, and negative grades such as the Web Track's `-2`
//!   junk) non-relevant, as [`crate::eval`] counts them.
//! * **the share** of the judged relevant documents the index holds that
//!   the filter removes ([`Loss::relevant_share`]).
//! * **from the unfiltered top k**: relevant documents among the first 10
//!   and the first `depth` lines of the unfiltered run's ranking for the
//!   topic (its run-file order; `depth` the run's hits per topic) that the
//!   filter removes ([`Loss::top10`], [`Loss::top_depth`]).
//! * **absent**: judgements whose document the index does not hold
//!   ([`Judgements::absent`]). No filter can remove them, so they are not
//!   counted as removed (and not in the share's denominator): they are the
//!   same for every setting and are reported once, beside the losses.
//!
//! Counts are of judgements, `(topic, document)` pairs: a document judged
//! for three topics and removed counts three times. A filtered run's own
//! hits do not enter: the loss is a property of the filter and the
//! judgements (and, for the top k, of the unfiltered run).
//!
//! Cost: one term lookup per judged docid and segment ([`Judgements::locate`],
//! once per sweep), then one bitmap probe per judgement and filter.

use std::collections::BTreeMap;

use serde::Serialize;
use tantivy::DocId;

use crate::Result;
use crate::batch::{DocSelection, select};
use crate::bm25::{Shard, Subset};
use crate::docinfo::first_live;
use crate::qrels::Qrels;
use crate::run::Run;

/// The ranks at which the unfiltered run's relevant documents are counted
/// besides its depth.
pub const TOP_K: usize = 10;

/// Judgements counted by grade.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Grade to number of judgements.
    pub by_grade: BTreeMap<i64, u64>,
}

impl Tally {
    fn add(&mut self, grade: i64) {
        *self.by_grade.entry(grade).or_default() += 1;
    }

    /// Judgements of grade `>= 1`.
    pub fn relevant(&self) -> u64 {
        self.by_grade.range(1..).map(|(_, n)| n).sum()
    }

    /// Judgements of grade `<= 0`.
    pub fn nonrelevant(&self) -> u64 {
        self.by_grade.range(..1).map(|(_, n)| n).sum()
    }

    /// Every judgement counted.
    pub fn total(&self) -> u64 {
        self.by_grade.values().sum()
    }

    fn absorb(&mut self, other: &Tally) {
        for (&g, &n) in &other.by_grade {
            *self.by_grade.entry(g).or_default() += n;
        }
    }
}

/// Where a judged document is: shard, segment, document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Address {
    shard: usize,
    segment: usize,
    doc: DocId,
}

/// One judgement whose document the index holds.
#[derive(Debug, Clone)]
struct Located {
    topic: usize,
    docid: String,
    grade: i64,
    at: Address,
}

/// The judgements of a set of topics, located in an index.
#[derive(Debug, Clone, Default)]
pub struct Judgements {
    /// Topic ids, sorted.
    topics: Vec<String>,
    /// The judgements whose document the index holds, by topic then docid.
    located: Vec<Located>,
    /// Judgements whose document the index does not hold.
    pub absent: Tally,
    /// Per topic, the judgements whose document the index does not hold.
    pub absent_per_topic: BTreeMap<String, Tally>,
    /// Judgements whose document the index holds.
    pub present: Tally,
}

impl Judgements {
    /// Every judgement of `qrels`, looked up in `shards`.
    pub fn locate(shards: &[Shard], qrels: &Qrels) -> Result<Judgements> {
        let where_is = addresses(shards, qrels)?;
        let mut out = Judgements {
            topics: qrels.topic_ids().map(str::to_string).collect(),
            ..Judgements::default()
        };
        for (t, qid) in qrels.topic_ids().enumerate() {
            let Some(judged) = qrels.topic(qid) else {
                continue;
            };
            for (docid, grade) in judged.sorted() {
                match where_is.get(docid) {
                    Some(&at) => {
                        out.present.add(grade);
                        out.located.push(Located {
                            topic: t,
                            docid: docid.to_string(),
                            grade,
                            at,
                        });
                    }
                    None => {
                        out.absent.add(grade);
                        out.absent_per_topic
                            .entry(qid.to_string())
                            .or_default()
                            .add(grade);
                    }
                }
            }
        }
        Ok(out)
    }

    /// What `subset` removes of these judgements (module docs);
    /// `unfiltered` gives, per topic id, the relevant documents of the
    /// unfiltered run with their 0-based rank, `depth` that run's hits per
    /// topic.
    pub fn loss(&self, subset: &Subset, unfiltered: &RelevantRanks, depth: usize) -> Loss {
        let mut loss = Loss {
            relevant_in_index: self.present.relevant(),
            depth,
            ..Loss::default()
        };
        for j in self.located.iter().filter(|j| !kept(subset, j.at)) {
            let qid = &self.topics[j.topic];
            let topic = loss.per_topic.entry(qid.clone()).or_default();
            topic.removed.add(j.grade);
            if j.grade >= 1 {
                let rank = unfiltered.get(qid).and_then(|r| r.get(&j.docid)).copied();
                if let Some(rank) = rank {
                    topic.top10 += u64::from(rank < TOP_K);
                    topic.top_depth += u64::from(rank < depth);
                }
            }
        }
        for t in loss.per_topic.values() {
            loss.removed.absorb(&t.removed);
            loss.top10 += t.top10;
            loss.top_depth += t.top_depth;
        }
        loss
    }
}

/// What `selection` removes of the judgements of `qrels` (every topic of
/// it), with the run `unfiltered` as the unfiltered ranking (in trec_eval's
/// order, [`Run::trec_eval_ranked`]; its depth the most hits of a topic):
/// the judgements located, and the loss. `sieve-search compare` uses it
/// when run B is run A under a filter.
pub fn run_loss(
    shards: &[Shard],
    qrels: &Qrels,
    unfiltered: &Run,
    selection: &DocSelection,
) -> Result<(Judgements, Loss)> {
    let subset = select(shards, selection)?;
    let judgements = Judgements::locate(shards, qrels)?;
    let mut ranks = RelevantRanks::new();
    let mut depth = 0;
    for qid in unfiltered.topic_ids() {
        let ranked = unfiltered.trec_eval_ranked(qid);
        depth = depth.max(ranked.len());
        let r = relevant_ranks(qrels, qid, ranked.iter().map(|h| h.docno.as_str()));
        if !r.is_empty() {
            ranks.insert(qid.to_string(), r);
        }
    }
    let loss = judgements.loss(&subset, &ranks, depth);
    Ok((judgements, loss))
}

/// Per topic id, the relevant documents an unfiltered run retrieved, by
/// docid, with their 0-based rank in the run's order.
pub type RelevantRanks = BTreeMap<String, BTreeMap<String, usize>>;

/// The relevant documents (grade `>= 1` in `qrels`) among `ranked`, the
/// docids of one topic's run in rank order, with their 0-based ranks.
pub fn relevant_ranks<'a>(
    qrels: &Qrels,
    qid: &str,
    ranked: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<String, usize> {
    let Some(judged) = qrels.topic(qid) else {
        return BTreeMap::new();
    };
    ranked
        .into_iter()
        .enumerate()
        .filter(|(_, d)| judged.get(d).is_some_and(|g| g >= 1))
        .map(|(rank, d)| (d.to_string(), rank))
        .collect()
}

/// What one filter removed of the judgements (module docs).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Loss {
    /// Judgements removed, by grade.
    pub removed: Tally,
    /// Judged relevant documents the index holds (the share's
    /// denominator).
    pub relevant_in_index: u64,
    /// Relevant documents of the unfiltered run's first [`TOP_K`] removed.
    pub top10: u64,
    /// Relevant documents of the unfiltered run's first `depth` removed.
    pub top_depth: u64,
    /// The unfiltered run's depth (hits per topic).
    pub depth: usize,
    /// Per topic id with a removed judgement, its losses.
    pub per_topic: BTreeMap<String, TopicLoss>,
}

impl Loss {
    /// The share of the judged relevant documents the index holds that
    /// the filter removes (`NaN` when the index holds none).
    pub fn relevant_share(&self) -> f64 {
        if self.relevant_in_index == 0 {
            return f64::NAN;
        }
        self.removed.relevant() as f64 / self.relevant_in_index as f64
    }
}

/// What one filter removed of one topic's judgements.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TopicLoss {
    /// Judgements removed, by grade.
    pub removed: Tally,
    /// Relevant documents of the unfiltered run's first [`TOP_K`] removed.
    pub top10: u64,
    /// Relevant documents of the unfiltered run's first `depth` removed.
    pub top_depth: u64,
}

/// What `sieve-search compare` prints of B's filter: the judged documents
/// it removed and where they were in A's ranking.
pub fn to_text(j: &Judgements, l: &Loss) -> String {
    let share = l.relevant_share();
    let share = if share.is_nan() {
        "-".to_string()
    } else {
        format!("{:.2}%", 100.0 * share)
    };
    let grades: Vec<String> = l
        .removed
        .by_grade
        .iter()
        .map(|(g, n)| format!("grade {g}: {n}"))
        .collect();
    format!(
        "judged documents B's filter removes: {} relevant ({share} of the {} judged relevant documents \
         in the index), {} non-relevant{}; of A's ranking: {} relevant of its top {TOP_K}, {} of its top {}\n\
         ({} judgements, {} relevant, name documents the index does not hold: not counted as removed)\n",
        l.removed.relevant(),
        l.relevant_in_index,
        l.removed.nonrelevant(),
        if grades.is_empty() {
            String::new()
        } else {
            format!(" ({})", grades.join(", "))
        },
        l.top10,
        l.top_depth,
        l.depth,
        j.absent.total(),
        j.absent.relevant()
    )
}

/// The JSON of B's filter's loss for `sieve-search compare --json`: the
/// loss ([`Loss`], per topic included), the share, and the judgements of
/// documents the index holds and does not hold, by grade.
pub fn to_json(j: &Judgements, l: &Loss) -> serde_json::Value {
    let share = l.relevant_share();
    serde_json::json!({
        "relevant_removed": l.removed.relevant(),
        "nonrelevant_removed": l.removed.nonrelevant(),
        "relevant_removed_share": share.is_finite().then_some(share),
        "loss": l,
        "judged_in_index": j.present,
        "judged_not_in_index": j.absent,
    })
}

/// True when `subset` keeps the document at `at`.
fn kept(subset: &Subset, at: Address) -> bool {
    match subset.get(at.shard).and_then(|s| s.get(at.segment)) {
        Some(Some(bitmap)) => bitmap.contains(at.doc),
        Some(None) | None => true,
    }
}

/// Every docid judged in `qrels` that a shard holds, with its first live
/// document (shards, then segments, in order). Segments are searched in
/// parallel, each for every docid; the first segment in order that holds
/// a docid wins.
fn addresses(shards: &[Shard], qrels: &Qrels) -> Result<BTreeMap<String, Address>> {
    use rayon::prelude::*;
    let mut wanted: Vec<&str> = qrels
        .topic_ids()
        .filter_map(|q| qrels.topic(q))
        .flat_map(|t| t.iter().map(|(d, _)| d))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let segments: Vec<(usize, usize)> = shards
        .iter()
        .enumerate()
        .flat_map(|(s, shard)| (0..shard.searcher.segment_readers().len()).map(move |g| (s, g)))
        .collect();
    let found: Vec<Vec<(usize, DocId)>> = segments
        .par_iter()
        .map(|&(s, g)| segment_hits(&shards[s], g, &wanted))
        .collect::<Result<_>>()?;
    let mut out: BTreeMap<String, Address> = BTreeMap::new();
    for (&(shard, segment), hits) in segments.iter().zip(found) {
        for (i, doc) in hits {
            out.entry(wanted[i].to_string()).or_insert(Address {
                shard,
                segment,
                doc,
            });
        }
    }
    Ok(out)
}

/// The docids of `wanted` (by index) that segment `g` of `shard` holds,
/// with their first live document there.
fn segment_hits(shard: &Shard, g: usize, wanted: &[&str]) -> Result<Vec<(usize, DocId)>> {
    let seg = &shard.searcher.segment_readers()[g];
    let inverted = seg.inverted_index(shard.fields.docid)?;
    let alive = seg.alive_bitset();
    let mut hits = Vec::new();
    for (i, id) in wanted.iter().enumerate() {
        if let Some(doc) = first_live(shard, &inverted, alive, id)? {
            hits.push((i, doc));
        }
    }
    Ok(hits)
}

#[cfg(test)]
mod tests;
