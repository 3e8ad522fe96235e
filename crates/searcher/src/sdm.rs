//! Positional queries scored with BM25: the sequential dependence model
//! (Anserini's `-sdm`) and bags of words with exact phrases, document at a
//! time over postings with positions.
//!
//! ## The query
//!
//! A [`PositionalQuery`] is a disjunction of groups, each a disjunction of
//! clauses with a boost. A clause is a term, an ordered or unordered window
//! of two terms (Lucene's `SpanNearQuery` of two `SpanTermQuery`s), or an
//! exact phrase (Lucene's `PhraseQuery`).
//!
//! [`PositionalQuery::sdm`] builds what Anserini's `SdmQueryGenerator`
//! builds from the analysed query tokens `t_1 … t_n` (stop words removed,
//! duplicates kept): three groups, the terms boosted by 0.85, the ordered
//! windows `(t_i, t_i+1)` with slop 1 boosted by 0.1, the unordered windows
//! with slop 8 boosted by 0.05; a single token is one term clause with
//! boost 1. Equal clauses of a group are one clause whose boost is their
//! count, as Lucene's `BooleanQuery` rewrite merges duplicate `SHOULD`
//! clauses (so `a b a b` has the window `(a, b)` once, boosted by 2 · 0.1).
//!
//! ## Scores
//!
//! Every clause is scored with Lucene's `BM25Similarity` in `f32`:
//! `w − w / (1 + freq · inv[dl])`, `w = boost · idf`, `inv[dl] = 1 / (k1 ·
//! (1 − b + b · dl / avgdl))`, `avgdl` the `f64` quotient rounded to `f32`,
//! `dl` the document's quantised field length (tantivy's fieldnorm, Lucene's
//! norm byte). The frequency `freq` is
//!
//! * for a term, its frequency in the document, and its idf
//!   `ln(1 + (N − df + 0.5) / (df + 0.5))` (in `f64`, rounded to `f32`);
//! * for a window, the sloppy frequency of `SpanScorer`: over the matches
//!   the spans enumerate, `freq ← f32(f64(freq) + 1 / (1 + width))`
//!   ([`ordered_freq`], [`unordered_freq`] say which matches and widths);
//!   its idf is the `f64` sum of the idfs of its *distinct* terms rounded to
//!   `f32` (`SpanWeight` collects term statistics in a map keyed by term,
//!   so a window `(a, a)` has the idf of `a` once);
//! * for a phrase, the number of positions where it occurs exactly
//!   ([`phrase_freq`]); its idf is the `f64` sum of the idfs of all its
//!   terms (`PhraseWeight` keeps one statistic per phrase position).
//!
//! A group scores the `f64` sum of its matching clauses rounded to `f32`,
//! the query the `f64` sum of its groups' scores rounded to `f32`, as
//! Lucene's disjunction scorers sum. A document matching no clause is not
//! scored. Ranking and the cut at `k` are those of [`crate::bm25`].

use std::collections::HashMap;

use roaring::RoaringBitmap;
use sieve_format::schema::TextField;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, Term};

use crate::bm25::topk::{Candidate, Pool, SegmentNames, TopK, finish};
use crate::bm25::{BagOfWords, Bm25Params, Hit, Shard, Subset};
use crate::stats::CollectionStats;
use crate::{Error, Result};

/// The slop of SDM's ordered windows (Anserini's `SdmQueryGenerator`).
pub const ORDERED_SLOP: u32 = 1;
/// The slop of SDM's unordered windows.
pub const UNORDERED_SLOP: u32 = 8;

/// The boosts of SDM's three groups.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SdmWeights {
    /// The terms (Anserini's `-sdm.tw`).
    pub term: f32,
    /// The ordered windows (`-sdm.ow`).
    pub ordered: f32,
    /// The unordered windows (`-sdm.uw`).
    pub unordered: f32,
}

impl SdmWeights {
    /// Anserini's defaults: 0.85, 0.1, 0.05.
    pub const ANSERINI: SdmWeights = SdmWeights {
        term: 0.85,
        ordered: 0.1,
        unordered: 0.05,
    };
}

/// One clause of a positional query; terms are indexes into
/// [`PositionalQuery::terms`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Clause {
    /// A term.
    Term(usize),
    /// `first` then `second` within `slop` positions ([`ordered_freq`]).
    Ordered {
        /// The first term.
        first: usize,
        /// The second term.
        second: usize,
        /// The allowed slop.
        slop: u32,
    },
    /// Both terms within `slop` positions, in any order
    /// ([`unordered_freq`]).
    Unordered {
        /// The first sub-span (it wins ties in Lucene's queue).
        first: usize,
        /// The second.
        second: usize,
        /// The allowed slop.
        slop: u32,
    },
    /// An exact phrase: each term at its offset from the phrase's start
    /// ([`phrase_freq`]).
    Phrase(Vec<(usize, u32)>),
}

/// A disjunction of clauses, each with its boost.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Group {
    /// `(clause, boost)`, no clause twice.
    pub clauses: Vec<(Clause, f32)>,
}

impl Group {
    /// Adds `clause` with `boost`, or, if the group has it, adds to its
    /// count (Lucene's merge of duplicate `SHOULD` clauses).
    fn add(&mut self, clause: Clause, counts: &mut HashMap<Clause, usize>) {
        match counts.get(&clause) {
            Some(&i) => self.clauses[i].1 += 1.0,
            None => {
                counts.insert(clause.clone(), self.clauses.len());
                self.clauses.push((clause, 1.0));
            }
        }
    }

    /// Multiplies every clause's count by `boost` (`f32`, as Lucene
    /// multiplies nested boosts); a boost of 1 leaves the counts alone.
    fn boosted(mut self, boost: f32) -> Group {
        for (_, b) in &mut self.clauses {
            *b *= boost;
        }
        self
    }
}

/// A disjunction of groups of clauses over distinct terms (see the module
/// documentation).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PositionalQuery {
    /// The distinct terms, in first-occurrence order.
    pub terms: Vec<String>,
    /// The groups.
    pub groups: Vec<Group>,
}

impl PositionalQuery {
    /// The index of `term`, added if new.
    fn term(&mut self, term: &str) -> usize {
        match self.terms.iter().position(|t| t == term) {
            Some(i) => i,
            None => {
                self.terms.push(term.to_string());
                self.terms.len() - 1
            }
        }
    }

    /// Anserini's sequential dependence query of the analysed `tokens`
    /// (in query order, duplicates kept) with boosts `w`.
    pub fn sdm(tokens: &[String], w: SdmWeights) -> PositionalQuery {
        let mut q = PositionalQuery::default();
        let ids: Vec<usize> = tokens.iter().map(|t| q.term(t)).collect();
        if ids.len() == 1 {
            q.groups.push(Group {
                clauses: vec![(Clause::Term(ids[0]), 1.0)],
            });
            return q;
        }
        if ids.is_empty() {
            return q;
        }
        let (mut terms, mut ordered, mut unordered) = Default::default();
        let (mut tc, mut oc, mut uc) = Default::default();
        for &t in &ids {
            Group::add(&mut terms, Clause::Term(t), &mut tc);
        }
        for pair in ids.windows(2) {
            let (first, second) = (pair[0], pair[1]);
            let o = Clause::Ordered {
                first,
                second,
                slop: ORDERED_SLOP,
            };
            let u = Clause::Unordered {
                first,
                second,
                slop: UNORDERED_SLOP,
            };
            Group::add(&mut ordered, o, &mut oc);
            Group::add(&mut unordered, u, &mut uc);
        }
        q.groups = vec![
            terms.boosted(w.term),
            ordered.boosted(w.ordered),
            unordered.boosted(w.unordered),
        ];
        q
    }

    /// A bag of words (each term boosted by its query frequency) with exact
    /// phrases beside it, all in one group; each phrase is its terms with
    /// their query positions (a removed stop word leaves a gap). A phrase
    /// of fewer than two terms adds nothing (its term is in the bag).
    pub fn bag_with_phrases(bag: &BagOfWords, phrases: &[Vec<(String, u32)>]) -> PositionalQuery {
        let mut q = PositionalQuery::default();
        let mut group = Group::default();
        for (t, qtf) in &bag.terms {
            let i = q.term(t);
            group.clauses.push((Clause::Term(i), *qtf as f32));
        }
        let mut counts = HashMap::new();
        let mut phrases_group = Group::default();
        for phrase in phrases.iter().filter(|p| p.len() >= 2) {
            let start = phrase.iter().map(|(_, p)| *p).min().unwrap_or(0);
            let parts = phrase.iter().map(|(t, p)| (q.term(t), p - start)).collect();
            Group::add(&mut phrases_group, Clause::Phrase(parts), &mut counts);
        }
        group.clauses.extend(phrases_group.clauses);
        q.groups.push(group);
        q
    }

    /// True when the query has no clause.
    pub fn is_empty(&self) -> bool {
        self.groups.iter().all(|g| g.clauses.is_empty())
    }
}

/// Adds `1 / (1 + width)` to a sloppy frequency as `SpanScorer` does: in
/// `f64`, the sum rounded to `f32`.
#[inline]
fn add_match(freq: f32, width: u32) -> f32 {
    (f64::from(freq) + 1.0 / (1.0 + f64::from(width))) as f32
}

/// The sloppy frequency of Lucene's ordered `SpanNearQuery([a, b], slop,
/// true)` in a document where `a` and `b` occur at the sorted positions
/// `pa` and `pb`; `None` when it does not match.
///
/// `NearSpansOrdered`: for each position `p` of `a` in turn, `b`'s cursor
/// moves forward (never back) to its first position `q ≥ p + 1`; the match
/// has width `q − (p + 1)` and counts when the width is at most `slop`;
/// once `b` has no such position the document is done. Each position of
/// `a` starts at most one match; matches may share `b`'s position, and
/// with `a = b` a position pairs with the next occurrence.
pub fn ordered_freq(pa: &[u32], pb: &[u32], slop: u32) -> Option<f32> {
    let mut freq = 0.0f32;
    let mut matched = false;
    let mut j = 0;
    for &p in pa {
        let end = p + 1;
        while j < pb.len() && pb[j] < end {
            j += 1;
        }
        let Some(&q) = pb.get(j) else { break };
        let width = q - end;
        if width <= slop {
            freq = add_match(freq, width);
            matched = true;
        }
    }
    matched.then_some(freq)
}

/// The sloppy frequency of Lucene's unordered `SpanNearQuery([a, b], slop,
/// false)`; `None` when it does not match.
///
/// `NearSpansUnordered` keeps one current position of each term in a
/// priority queue ordered by position (on a tie the current top stays, and
/// `b` goes on top at the start only if it is strictly before `a`). A state
/// is a match when `maxEnd − top − 2 ≤ slop`, `maxEnd` the greatest end
/// position (position + 1) seen and `top` the queue's least position; its
/// width is `maxEnd − top` (so two adjacent terms have width 2, and `a, a`
/// at one position width 1). After each state the top term moves to its
/// next position; the document is done when it has none.
pub fn unordered_freq(pa: &[u32], pb: &[u32], slop: u32) -> Option<f32> {
    let (Some(&a0), Some(&b0)) = (pa.first(), pb.first()) else {
        return None;
    };
    let (mut i, mut j) = (0usize, 0usize);
    let mut top_is_a = b0 >= a0;
    let mut max_end = a0.max(b0) + 1;
    let mut freq = 0.0f32;
    let mut matched = false;
    loop {
        let top = if top_is_a { pa[i] } else { pb[j] };
        if i64::from(max_end) - i64::from(top) - 2 <= i64::from(slop) {
            freq = add_match(freq, max_end - top);
            matched = true;
        }
        if top_is_a {
            i += 1;
            let Some(&p) = pa.get(i) else { break };
            max_end = max_end.max(p + 1);
            top_is_a = pb[j] >= p;
        } else {
            j += 1;
            let Some(&q) = pb.get(j) else { break };
            max_end = max_end.max(q + 1);
            top_is_a = pa[i] < q;
        }
    }
    matched.then_some(freq)
}

/// The number of exact occurrences of a phrase (Lucene's
/// `ExactPhraseMatcher`): the start positions `s` such that every part
/// `(positions, offset)` has a position `s + offset`. Overlapping
/// occurrences all count (`a a` occurs twice in `a a a`).
pub fn phrase_freq(parts: &[(&[u32], u32)]) -> u32 {
    let Some(&(lead, lead_offset)) = parts.first() else {
        return 0;
    };
    let mut cursors = vec![0usize; parts.len()];
    let mut count = 0;
    'lead: for &p in lead {
        let Some(start) = p.checked_sub(lead_offset) else {
            continue;
        };
        for (k, &(positions, offset)) in parts.iter().enumerate().skip(1) {
            let want = start + offset;
            let c = &mut cursors[k];
            while *c < positions.len() && positions[*c] < want {
                *c += 1;
            }
            match positions.get(*c) {
                None => break 'lead,
                Some(&q) if q != want => continue 'lead,
                Some(_) => {}
            }
        }
        count += 1;
    }
    count
}

/// Lucene's BM25 idf of one term, in `f64` rounded to `f32`.
fn lucene_idf(df: u64, n: u64) -> f64 {
    let df = df.min(n) as f64;
    f64::from((1.0 + (n as f64 - df + 0.5) / (df + 0.5)).ln() as f32)
}

/// One run of a positional search: BM25 parameters, statistics, and the
/// documents it may return (`None`: every live document).
pub struct PositionalVariant<'a> {
    /// BM25's k1 and b.
    pub params: Bm25Params,
    /// Collection statistics.
    pub stats: &'a dyn CollectionStats,
    /// `[shard][segment]` bitmaps of the documents kept.
    pub subset: Option<&'a Subset>,
}

/// A variant's scorer: `inv[id]` per fieldnorm id, and per group and clause
/// the weight `boost · idf` (`None`: the clause can match nothing).
struct VariantScorer {
    inv: Box<[f32; 256]>,
    weights: Vec<Vec<Option<f32>>>,
}

impl VariantScorer {
    fn new(
        v: &PositionalVariant<'_>,
        field: Field,
        q: &PositionalQuery,
        terms: &[Term],
    ) -> Result<Self> {
        v.params.validate()?;
        let n = v.stats.total_num_docs()?;
        let tokens = v.stats.total_num_tokens(field)?;
        let avgdl = if n > 0 {
            (tokens as f64 / n as f64) as f32
        } else {
            0.0
        };
        let Bm25Params { k1, b } = v.params;
        let mut inv = Box::new([0.0f32; 256]);
        for (id, slot) in inv.iter_mut().enumerate() {
            let dl = FieldNormReader::id_to_fieldnorm(id as u8) as f32;
            let ratio = if avgdl > 0.0 { b * dl / avgdl } else { 0.0 };
            *slot = 1.0 / (k1 * ((1.0 - b) + ratio));
        }
        let mut idfs = Vec::with_capacity(terms.len());
        for t in terms {
            let df = v.stats.doc_freq(t)?;
            idfs.push((df > 0 && n > 0).then(|| lucene_idf(df, n)));
        }
        let idf_of = |ids: &mut dyn Iterator<Item = usize>| -> Option<f32> {
            let mut sum = 0.0f64;
            for i in ids {
                sum += idfs[i]?;
            }
            Some(sum as f32)
        };
        let weights = q
            .groups
            .iter()
            .map(|g| {
                g.clauses
                    .iter()
                    .map(|(c, boost)| {
                        let idf = match c {
                            Clause::Term(t) => idf_of(&mut std::iter::once(*t)),
                            Clause::Ordered { first, second, .. }
                            | Clause::Unordered { first, second, .. } => {
                                let distinct = if first == second { 1 } else { 2 };
                                idf_of(&mut [*first, *second].into_iter().take(distinct))
                            }
                            Clause::Phrase(parts) => idf_of(&mut parts.iter().map(|(t, _)| *t)),
                        };
                        idf.map(|idf| boost * idf)
                    })
                    .collect()
            })
            .collect();
        Ok(VariantScorer { inv, weights })
    }

    /// The document's score from the clauses' frequencies `[group][clause]`
    /// (`None`: no match); `None` when no clause matched.
    fn score(&self, freqs: &[Vec<Option<f32>>], id: u8) -> Option<Score> {
        let inv = self.inv[id as usize];
        let mut total = 0.0f64;
        let mut any = false;
        for (g, ws) in freqs.iter().zip(&self.weights) {
            let mut sum = 0.0f64;
            for (f, w) in g.iter().zip(ws) {
                if let (Some(f), Some(w)) = (f, w) {
                    sum += f64::from(w - w / (1.0 + f * inv));
                    any = true;
                }
            }
            total += f64::from(sum as f32);
        }
        any.then_some(total as Score)
    }
}

/// Scores `query` against every shard for every variant (every posting of
/// every query term, positions read where a window or phrase needs them)
/// and returns each variant's top `k` in trec_eval order. The shards must
/// have positions ([`crate::bm25::require_positions`]).
pub fn search_positional(
    shards: &[Shard],
    field: TextField,
    query: &PositionalQuery,
    variants: &[PositionalVariant<'_>],
    k: usize,
) -> Result<Vec<Vec<Hit>>> {
    if query.is_empty() || shards.is_empty() || k == 0 {
        return Ok(vec![Vec::new(); variants.len()]);
    }
    let handle = shards[0].fields.text(field);
    let terms: Vec<Term> = query
        .terms
        .iter()
        .map(|t| Term::from_field_text(handle, t))
        .collect();
    let scorers: Vec<VariantScorer> = variants
        .iter()
        .map(|v| VariantScorer::new(v, handle, query, &terms))
        .collect::<Result<_>>()?;
    let mut pools: Vec<Pool> = variants.iter().map(|_| Pool::new(k)).collect();
    let mut segments: Vec<SegmentNames<'_>> = Vec::new();
    for (shard_idx, shard) in shards.iter().enumerate() {
        for (seg_idx, segment) in shard.searcher.segment_readers().iter().enumerate() {
            let subsets: Vec<Option<&RoaringBitmap>> = variants
                .iter()
                .map(|v| v.subset.and_then(|s| s[shard_idx][seg_idx].as_ref()))
                .collect();
            let mut heaps: Vec<TopK> = pools.iter().map(|p| TopK::new(k, p.floor())).collect();
            let docids = shard.docid_columns()?[seg_idx].clone();
            let input = SegmentScoring {
                shard,
                segment,
                field: shard.fields.text(field),
                query,
                terms: &terms,
                scorers: &scorers,
                subsets: &subsets,
                docids: &docids,
            };
            input.score(&mut heaps)?;
            let number = segments.len() as u32;
            for (pool, heap) in pools.iter_mut().zip(heaps) {
                pool.add(number, heap);
            }
            segments.push(SegmentNames {
                index: &shard.name,
                column: docids,
                table: shard.bounds.get(seg_idx).and_then(|b| b.as_deref()),
            });
        }
    }
    finish(pools, &segments)
}

/// What scoring one segment reads.
struct SegmentScoring<'s> {
    shard: &'s Shard,
    segment: &'s SegmentReader,
    field: Field,
    query: &'s PositionalQuery,
    terms: &'s [Term],
    scorers: &'s [VariantScorer],
    subsets: &'s [Option<&'s RoaringBitmap>],
    docids: &'s tantivy::columnar::StrColumn,
}

/// One document's terms: frequency (0: absent) and positions (read for
/// every term the document has).
struct DocTerms {
    tf: Vec<u32>,
    positions: Vec<Vec<u32>>,
    read: Vec<bool>,
}

impl DocTerms {
    /// The positions of term `t` in the document (none when absent).
    fn positions(&self, t: usize) -> &[u32] {
        if self.read[t] {
            &self.positions[t]
        } else {
            &[]
        }
    }
}

impl SegmentScoring<'_> {
    /// The terms' postings with positions in this segment (`None`: absent).
    fn postings(&self) -> Result<Vec<Option<SegmentPostings>>> {
        let inverted = self.segment.inverted_index(self.field)?;
        self.terms
            .iter()
            .map(|term| {
                inverted
                    .read_postings(term, IndexRecordOption::WithFreqsAndPositions)
                    .map_err(|e| Error::Index {
                        index: self.shard.name.clone(),
                        detail: format!("postings with positions of {term:?}: {e}"),
                    })
            })
            .collect()
    }

    /// Document at a time over the terms' postings.
    fn score(&self, heaps: &mut [TopK]) -> Result<()> {
        let mut cursors = self.postings()?;
        let fieldnorms = self
            .segment
            .get_fieldnorms_reader(self.field)
            .map_err(|e| Error::Index {
                index: self.shard.name.clone(),
                detail: format!("fieldnorms: {e}"),
            })?;
        let alive = self.segment.alive_bitset();
        let n = self.terms.len();
        let mut doc_terms = DocTerms {
            tf: vec![0; n],
            positions: vec![Vec::new(); n],
            read: vec![false; n],
        };
        let mut freqs: Vec<Vec<Option<f32>>> = self
            .query
            .groups
            .iter()
            .map(|g| vec![None; g.clauses.len()])
            .collect();
        loop {
            let doc: DocId = cursors
                .iter()
                .flatten()
                .map(|p| p.doc())
                .min()
                .unwrap_or(TERMINATED);
            if doc == TERMINATED {
                return Ok(());
            }
            let wanted = alive.is_none_or(|a| a.is_alive(doc))
                && self
                    .subsets
                    .iter()
                    .any(|s| s.is_none_or(|b| b.contains(doc)));
            for (i, c) in cursors.iter_mut().enumerate() {
                doc_terms.tf[i] = 0;
                doc_terms.read[i] = false;
                if let Some(p) = c
                    && p.doc() == doc
                {
                    if wanted {
                        doc_terms.tf[i] = p.term_freq();
                        p.positions(&mut doc_terms.positions[i]);
                        doc_terms.read[i] = true;
                    }
                    p.advance();
                }
            }
            if !wanted {
                continue;
            }
            self.clause_freqs(&doc_terms, &mut freqs);
            let id = fieldnorms.fieldnorm_id(doc);
            let mut ord: Option<u32> = None;
            for (v, heap) in heaps.iter_mut().enumerate() {
                if self.subsets[v].is_some_and(|b| !b.contains(doc)) {
                    continue;
                }
                let Some(score) = self.scorers[v].score(&freqs, id) else {
                    continue;
                };
                if heap.threshold().is_some_and(|t| score < t) {
                    continue;
                }
                let ord = *ord
                    .get_or_insert_with(|| self.docids.term_ords(doc).next().unwrap_or(0) as u32);
                heap.push(Candidate { score, ord });
            }
        }
    }

    /// Every clause's frequency in the document of `d`.
    fn clause_freqs(&self, d: &DocTerms, freqs: &mut [Vec<Option<f32>>]) {
        for (g, out) in self.query.groups.iter().zip(freqs.iter_mut()) {
            for ((clause, _), slot) in g.clauses.iter().zip(out.iter_mut()) {
                *slot = match clause {
                    Clause::Term(t) => (d.tf[*t] > 0).then_some(d.tf[*t] as f32),
                    Clause::Ordered {
                        first,
                        second,
                        slop,
                    } => ordered_freq(d.positions(*first), d.positions(*second), *slop),
                    Clause::Unordered {
                        first,
                        second,
                        slop,
                    } => unordered_freq(d.positions(*first), d.positions(*second), *slop),
                    Clause::Phrase(parts) => {
                        let parts: Vec<(&[u32], u32)> =
                            parts.iter().map(|(t, o)| (d.positions(*t), *o)).collect();
                        let f = phrase_freq(&parts);
                        (f > 0).then_some(f as f32)
                    }
                };
            }
        }
    }
}

#[cfg(test)]
mod tests;
