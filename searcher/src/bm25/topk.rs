//! Top-k selection: a heap per segment, and a pool per variant that
//! carries the best scores across segments and shards.
//!
//! Hits are ranked by score, then by docid (descending). Within a segment
//! docids compare as their ordinals in the segment's sorted docid
//! dictionary, so the per-segment heap never needs a docid string. Across
//! segments only scores are compared until the very end:
//!
//! * **Floor.** Once `k` hits from earlier segments are known, the `k`-th
//!   best of their scores is a floor: a document scoring *strictly* less
//!   has `k` better documents and cannot be returned, whatever its docid.
//!   Each segment starts with the floor as its threshold (a document tied
//!   with it is kept, since the docid may break the tie in its favour).
//! * **Names last.** At the end the pooled candidates are cut at the
//!   `k`-th best score; only those scoring at least that are given their
//!   docid strings (one sorted walk of each segment's docid dictionary,
//!   once for all the variants of the search: see [`finish`]), which
//!   settles the ties at the cut.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use sieve_indexer::bounds::SegmentBounds;
use tantivy::Score;
use tantivy::columnar::StrColumn;

use super::Hit;
use crate::{Error, Result};

/// An entry of a per-segment top-k heap. `Ord` puts the *worst* hit on top
/// of the max-heap, so the heap keeps the best `k`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Candidate {
    pub(super) score: Score,
    /// Docid ordinal in the segment's sorted docid dictionary: comparing
    /// ordinals within a segment compares docids.
    pub(super) ord: u64,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    /// "Greater" means "worse": lower score, then smaller docid.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| other.ord.cmp(&self.ord))
    }
}

/// The best `k` documents of one segment for one variant, at or above a
/// floor carried from the segments before.
pub(super) struct TopK {
    k: usize,
    heap: BinaryHeap<Candidate>,
    floor: Option<Score>,
}

impl TopK {
    pub(super) fn new(k: usize, floor: Option<Score>) -> TopK {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k.min(1 << 16) + 1),
            floor,
        }
    }

    /// A score below which (strictly) a document cannot be returned: the
    /// worst score in the heap once it is full, or the floor if higher.
    #[inline]
    pub(super) fn threshold(&self) -> Option<Score> {
        let own =
            (self.heap.len() >= self.k).then(|| self.heap.peek().map_or(Score::MIN, |c| c.score));
        match (own, self.floor) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    #[inline]
    pub(super) fn push(&mut self, c: Candidate) {
        if self.k == 0 {
            return;
        }
        if self.heap.len() < self.k {
            self.heap.push(c);
        } else if let Some(mut worst) = self.heap.peek_mut()
            && c < *worst
        {
            *worst = c;
        }
    }
}

/// Where the docids of one searched segment are read.
pub(super) struct SegmentNames<'a> {
    /// The index, for errors.
    pub(super) index: &'a str,
    /// The `docid` fast field.
    pub(super) column: StrColumn,
    /// The segment's sidecar, whose docid table reads any docid by
    /// decoding a few entries.
    pub(super) table: Option<&'a SegmentBounds>,
}

impl SegmentNames<'_> {
    /// The docids of the sorted, distinct ordinals `ords`.
    fn names(&self, ords: &[u64]) -> Result<Vec<String>> {
        let mut names: Vec<String> = Vec::with_capacity(ords.len());
        if let Some(t) = self.table.filter(|t| t.has_docids()) {
            let mut buf = Vec::new();
            for &ord in ords {
                t.docid(ord, &mut buf)?;
                names.push(match std::str::from_utf8(&buf) {
                    Ok(s) => s.to_owned(),
                    Err(_) => String::from_utf8_lossy(&buf).into_owned(),
                });
            }
            return Ok(names);
        }
        // One sorted walk of the dictionary (a lookup per hit would decode
        // a dictionary block each time).
        let err = |detail: String| Error::Index {
            index: self.index.to_string(),
            detail,
        };
        let all_found = self
            .column
            .dictionary()
            .sorted_ords_to_term_cb(ords, |bytes| {
                names.push(String::from_utf8_lossy(bytes).into_owned())
            })
            .map_err(|e| err(format!("docid dictionary: {e}")))?;
        if !all_found || names.len() != ords.len() {
            return Err(err("docid ordinal missing from the docid dictionary".into()));
        }
        Ok(names)
    }
}

/// A candidate kept across segments: score, segment (its position in the
/// search's list of segments) and docid ordinal there.
#[derive(Debug, Clone, Copy)]
struct Pooled {
    score: Score,
    segment: u32,
    ord: u64,
}

/// One variant's candidates over all segments searched so far.
pub(super) struct Pool {
    k: usize,
    candidates: Vec<Pooled>,
    /// The best `k` scores so far (a min-heap through `Reverse` of the
    /// scores' total-order keys).
    best: BinaryHeap<std::cmp::Reverse<i32>>,
}

/// `f32::total_cmp` as an integer key (the standard library's trick).
fn key(s: Score) -> i32 {
    let b = s.to_bits() as i32;
    b ^ ((((b >> 31) as u32) >> 1) as i32)
}

fn unkey(k: i32) -> Score {
    Score::from_bits((k ^ ((((k >> 31) as u32) >> 1) as i32)) as u32)
}

impl Pool {
    pub(super) fn new(k: usize) -> Pool {
        Pool {
            k,
            candidates: Vec::new(),
            best: BinaryHeap::with_capacity(k.min(1 << 16) + 1),
        }
    }

    /// The floor for the next segment (see the module docs).
    pub(super) fn floor(&self) -> Option<Score> {
        (self.k > 0 && self.best.len() >= self.k)
            .then(|| unkey(self.best.peek().map_or(i32::MIN, |r| r.0)))
    }

    /// Takes a segment's heap.
    pub(super) fn add(&mut self, segment: u32, top: TopK) {
        for c in top.heap.into_vec() {
            let kc = key(c.score);
            if self.best.len() < self.k {
                self.best.push(std::cmp::Reverse(kc));
            } else if let Some(mut low) = self.best.peek_mut()
                && kc > low.0
            {
                low.0 = kc;
            }
            self.candidates.push(Pooled {
                score: c.score,
                segment,
                ord: c.ord,
            });
        }
    }

    /// The candidates that may be in the best `k`: those scoring at least
    /// the `k`-th best score (all of them when there are fewer than `k`).
    fn cut(mut self) -> Vec<Pooled> {
        if let Some(cut) = self.floor() {
            self.candidates.retain(|c| c.score >= cut);
        }
        self.candidates
    }
}

/// Every pool's best `k` in trec_eval order, with their docids read from
/// `segments` (by the segment numbers given to [`Pool::add`]).
///
/// The docids are read **once per (segment, ordinal) for all the pools
/// together**, one sorted walk per segment: the variants of one search (a
/// threshold sweep's settings, several k1/b) mostly return the same
/// documents. Each pool is then ordered by score, then docid (descending):
/// two candidates of the same segment compare by ordinal (the dictionary's
/// order is the docids' byte order), others by their docid strings, and
/// candidates equal in both (one docid in several segments) by segment
/// and ordinal, so the order is a total one and the same for any layout
/// of the work.
pub(super) fn finish(pools: Vec<Pool>, segments: &[SegmentNames<'_>]) -> Result<Vec<Vec<Hit>>> {
    let ks: Vec<usize> = pools.iter().map(|p| p.k).collect();
    let pools: Vec<Vec<Pooled>> = pools.into_iter().map(Pool::cut).collect();
    // The distinct (segment, ordinal) pairs of all pools, sorted.
    let mut wanted: Vec<(u32, u64)> = pools.iter().flatten().map(|c| (c.segment, c.ord)).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut names: Vec<String> = Vec::with_capacity(wanted.len());
    let mut ords: Vec<u64> = Vec::new();
    let mut start = 0;
    while start < wanted.len() {
        let segment = wanted[start].0;
        ords.clear();
        ords.extend(
            wanted[start..]
                .iter()
                .take_while(|w| w.0 == segment)
                .map(|w| w.1),
        );
        names.extend(segments[segment as usize].names(&ords)?);
        start += ords.len();
    }
    // Per pool, (candidate, index of its name), ordered and cut at k.
    let mut ranked: Vec<Vec<(Pooled, usize)>> = Vec::with_capacity(pools.len());
    // How many ranked hits use each name: the last one takes the string.
    let mut uses: Vec<u32> = vec![0; names.len()];
    for (candidates, k) in pools.into_iter().zip(ks) {
        let mut r: Vec<(Pooled, usize)> = candidates
            .into_iter()
            .map(|c| {
                let i = wanted
                    .binary_search(&(c.segment, c.ord))
                    .expect("every candidate's docid was read");
                (c, i)
            })
            .collect();
        r.sort_unstable_by(|(a, ia), (b, ib)| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| {
                    if a.segment == b.segment {
                        b.ord.cmp(&a.ord)
                    } else {
                        names[*ib].as_bytes().cmp(names[*ia].as_bytes())
                    }
                })
                .then(a.segment.cmp(&b.segment))
                .then(a.ord.cmp(&b.ord))
        });
        r.truncate(k);
        for (_, i) in &r {
            uses[*i] += 1;
        }
        ranked.push(r);
    }
    Ok(ranked
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|(c, i)| {
                    uses[i] -= 1;
                    let docid = if uses[i] == 0 {
                        std::mem::take(&mut names[i])
                    } else {
                        names[i].clone()
                    };
                    Hit {
                        docid,
                        score: c.score,
                    }
                })
                .collect()
        })
        .collect())
}
