//! Top-k selection: a buffer per segment, and a pool per variant that
//! carries the best scores across segments and shards.
//!
//! Hits are ranked by score, then by docid (descending). Within a segment
//! docids compare as their ordinals in the segment's sorted docid
//! dictionary, so the per-segment top k never needs a docid string. Across
//! segments only scores are compared until the very end:
//!
//! * **Buffer, not heap.** A segment's candidates are packed into one
//!   `u64` each (score in its total order, then ordinal: a greater key is a
//!   better hit) and appended to a buffer of up to `k + k/8` (at least
//!   `k + 8`); when it is full, `select_nth_unstable` keeps the best `k`
//!   and their worst score becomes the threshold (tantivy's `TopNComputer`
//!   does the same with `2k`). That is a constant cost per candidate,
//!   amortised (a selection over `k + k/8` elements every `k/8`
//!   candidates), against a heap's `log k` sift per replacement; the
//!   threshold is refreshed every `k/8` candidates, which prunes a little
//!   later than a heap would but never wrongly (it is always the score of
//!   the `k`-th best of some candidates already seen).
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

use sieve_format::bounds::SegmentBounds;
use tantivy::Score;
use tantivy::columnar::StrColumn;

use super::Hit;
use crate::{Error, Result};

/// A document offered to a per-segment top k.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate {
    pub(crate) score: Score,
    /// Docid ordinal in the segment's sorted docid dictionary: comparing
    /// ordinals within a segment compares docids. Ordinals are below the
    /// segment's document count, a `u32`.
    pub(crate) ord: u32,
}

/// `f32::total_cmp` as an unsigned key: `a.total_cmp(&b)` is
/// `key(a).cmp(&key(b))`.
#[inline]
fn key(s: Score) -> u32 {
    let b = s.to_bits() as i32;
    ((b ^ ((((b >> 31) as u32) >> 1) as i32)) as u32) ^ 0x8000_0000
}

#[inline]
fn unkey(k: u32) -> Score {
    let k = (k ^ 0x8000_0000) as i32;
    Score::from_bits((k ^ ((((k >> 31) as u32) >> 1) as i32)) as u32)
}

/// A candidate as one integer: greater is better (higher score, then
/// greater ordinal, i.e. greater docid).
#[inline]
fn pack(c: Candidate) -> u64 {
    (u64::from(key(c.score)) << 32) | u64::from(c.ord)
}

#[inline]
fn unpack(p: u64) -> Candidate {
    Candidate {
        score: unkey((p >> 32) as u32),
        ord: p as u32,
    }
}

/// The buffer's length at which a top `k` that has been cut once is cut
/// again: `k/8` (at least 8) candidates later.
fn refill_limit(k: usize) -> usize {
    k.saturating_add((k / 8).max(8))
}

/// Keeps the `k` greatest of `buf` (in no order); `k >= 1`.
fn keep_best(buf: &mut Vec<u64>, k: usize) {
    if buf.len() > k {
        buf.select_nth_unstable_by(k - 1, |a, b| b.cmp(a));
        buf.truncate(k);
    }
}

/// The best `k` documents of one segment for one variant, at or above a
/// floor carried from the segments before.
pub(crate) struct TopK {
    k: usize,
    /// Packed candidates, at most `limit`, none below `own`.
    buf: Vec<u64>,
    /// The buffer's length at which it is cut back to the best `k`: `k`
    /// until the first cut, [`refill_limit`] after.
    limit: usize,
    /// The `k`-th best score of the candidates seen, once there were `k`.
    own: Option<Score>,
    floor: Option<Score>,
}

impl TopK {
    pub(crate) fn new(k: usize, floor: Option<Score>) -> TopK {
        TopK {
            k,
            buf: Vec::with_capacity(refill_limit(k.min(1 << 15))),
            limit: k,
            own: None,
            floor,
        }
    }

    /// A score below which (strictly) a document cannot be returned: the
    /// `k`-th best score seen so far (refreshed every `k/8` candidates), or
    /// the floor if higher.
    #[inline]
    pub(crate) fn threshold(&self) -> Option<Score> {
        match (self.own, self.floor) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// Adds a candidate; true when the buffer was cut, the only time the
    /// [`TopK::threshold`] can change.
    #[inline]
    pub(crate) fn push(&mut self, c: Candidate) -> bool {
        if self.k == 0 || self.own.is_some_and(|t| c.score < t) {
            return false;
        }
        self.buf.push(pack(c));
        if self.buf.len() >= self.limit {
            self.cut();
            return true;
        }
        false
    }

    /// Cuts the buffer to its best `k` and refreshes the threshold.
    #[cold]
    fn cut(&mut self) {
        keep_best(&mut self.buf, self.k);
        let worst = self.buf.iter().copied().min().map(unpack);
        self.own = worst.map(|c| c.score);
        self.limit = refill_limit(self.k);
    }

    /// The best `k` candidates, in no order.
    fn into_best(mut self) -> impl Iterator<Item = Candidate> {
        if self.k > 0 {
            keep_best(&mut self.buf, self.k);
        }
        self.buf.into_iter().map(unpack)
    }
}

/// Where the docids of one searched segment are read.
pub(crate) struct SegmentNames<'a> {
    /// The index, for errors.
    pub(crate) index: &'a str,
    /// The `docid` fast field.
    pub(crate) column: StrColumn,
    /// The segment's sidecar, whose docid table reads any docid by
    /// decoding a few entries.
    pub(crate) table: Option<&'a SegmentBounds>,
}

impl SegmentNames<'_> {
    /// The docids of the sorted, distinct ordinals `ords`.
    fn names(&self, ords: &[u64]) -> Result<Vec<String>> {
        let mut names: Vec<String> = Vec::with_capacity(ords.len());
        if let Some(t) = self.table.filter(|t| t.has_docids()) {
            // The table's bytes of every hit first, so that their cache
            // misses overlap (see `SegmentBounds::touch_docids`).
            std::hint::black_box(t.touch_docids(ords));
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

/// A candidate kept across segments: its packed score and ordinal (see
/// [`pack`]) and its segment (its position in the search's list of
/// segments).
#[derive(Debug, Clone, Copy)]
struct Pooled {
    key: u64,
    segment: u32,
}

impl Pooled {
    #[inline]
    fn score_key(&self) -> u32 {
        (self.key >> 32) as u32
    }

    /// Segment and ordinal as one integer, ordered as the pair.
    #[inline]
    fn place(&self) -> u64 {
        (u64::from(self.segment) << 32) | (self.key & 0xffff_ffff)
    }
}

/// One variant's candidates over all segments searched so far.
pub(crate) struct Pool {
    k: usize,
    /// None below `floor`.
    candidates: Vec<Pooled>,
    /// The `k`-th best score of the candidates so far, once there were `k`.
    floor: Option<Score>,
    scratch: Vec<u32>,
}

impl Pool {
    pub(crate) fn new(k: usize) -> Pool {
        Pool {
            k,
            candidates: Vec::new(),
            floor: None,
            scratch: Vec::new(),
        }
    }

    /// The floor for the next segment (see the module docs).
    pub(crate) fn floor(&self) -> Option<Score> {
        self.floor
    }

    /// Takes a segment's top k, refreshes the floor, and drops the
    /// candidates below it (they have `k` better ones).
    pub(crate) fn add(&mut self, segment: u32, top: TopK) {
        self.candidates.extend(top.into_best().map(|c| Pooled {
            key: pack(c),
            segment,
        }));
        let k = self.k;
        if k == 0 || self.candidates.len() < k {
            return;
        }
        self.scratch.clear();
        self.scratch
            .extend(self.candidates.iter().map(Pooled::score_key));
        let (_, kth, _) = self.scratch.select_nth_unstable_by(k - 1, |a, b| b.cmp(a));
        let kth = *kth;
        self.floor = Some(unkey(kth));
        self.candidates.retain(|c| c.score_key() >= kth);
    }
}

/// Every pool's best `k` in trec_eval order, with their docids read from
/// `segments` (by the segment numbers given to [`Pool::add`]).
///
/// The docids are read **once per (segment, ordinal) for all the pools
/// together**, one sorted walk per segment: the variants of one search (a
/// threshold sweep's settings, several k1/b) mostly return the same
/// documents. The names are then ranked once in byte order (each
/// segment's names are already in that order, so a stable sort only
/// merges the segments' runs; one docid in several segments gets a rank
/// per segment, in segment order), and each pool is ordered by score, then
/// rank (descending), each candidate packed into one `u64`: a total order,
/// the same for any layout of the work.
pub(crate) fn finish(pools: Vec<Pool>, segments: &[SegmentNames<'_>]) -> Result<Vec<Vec<Hit>>> {
    let ks: Vec<usize> = pools.iter().map(|p| p.k).collect();
    let pools: Vec<Vec<Pooled>> = pools.into_iter().map(|p| p.candidates).collect();
    let (wanted, name_of) = distinct_places(&pools);
    let mut names = read_names(&wanted, segments)?;
    let (rank, by_rank) = byte_ranks(&names);
    // Per pool, its candidates as one integer each, greater first: score,
    // then the rank of the name; ordered and cut at k.
    let mut ranked: Vec<Vec<u64>> = Vec::with_capacity(pools.len());
    // How many ranked hits use each name: the last one takes the string.
    let mut uses: Vec<u32> = vec![0; names.len()];
    for ((candidates, k), name_of) in pools.into_iter().zip(ks).zip(name_of) {
        let r = rank_pool(&candidates, &name_of, &rank, k);
        for e in &r {
            uses[by_rank[*e as u32 as usize] as usize] += 1;
        }
        ranked.push(r);
    }
    Ok(ranked
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|e| {
                    let i = by_rank[e as u32 as usize] as usize;
                    uses[i] -= 1;
                    let docid = if uses[i] == 0 {
                        std::mem::take(&mut names[i])
                    } else {
                        names[i].clone()
                    };
                    Hit {
                        docid,
                        score: unkey((e >> 32) as u32),
                    }
                })
                .collect()
        })
        .collect())
}

/// The distinct places (segment and ordinal, see [`Pooled::place`]) of
/// every candidate of every pool, sorted, and for each candidate the index
/// of its place among them.
fn distinct_places(pools: &[Vec<Pooled>]) -> (Vec<u64>, Vec<Vec<u32>>) {
    // Every candidate of every pool as (segment and ordinal, pool,
    // position), sorted: equal places are one docid to read, and each
    // candidate learns the index of its name without a search.
    let mut entries: Vec<u128> = Vec::with_capacity(pools.iter().map(Vec::len).sum());
    for (p, candidates) in pools.iter().enumerate() {
        for (pos, c) in candidates.iter().enumerate() {
            entries.push((u128::from(c.place()) << 64) | ((p as u128) << 32) | pos as u128);
        }
    }
    entries.sort_unstable();
    let mut name_of: Vec<Vec<u32>> = pools.iter().map(|c| vec![0; c.len()]).collect();
    let mut wanted: Vec<u64> = Vec::new();
    for e in &entries {
        let place = (e >> 64) as u64;
        if wanted.last() != Some(&place) {
            wanted.push(place);
        }
        name_of[(e >> 32) as u32 as usize][*e as u32 as usize] = (wanted.len() - 1) as u32;
    }
    (wanted, name_of)
}

/// The docids of the sorted places `wanted`, one sorted read per segment.
fn read_names(wanted: &[u64], segments: &[SegmentNames<'_>]) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::with_capacity(wanted.len());
    let mut ords: Vec<u64> = Vec::new();
    let mut start = 0;
    while start < wanted.len() {
        let segment = wanted[start] >> 32;
        ords.clear();
        ords.extend(
            wanted[start..]
                .iter()
                .take_while(|w| *w >> 32 == segment)
                .map(|w| *w & 0xffff_ffff),
        );
        names.extend(segments[segment as usize].names(&ords)?);
        start += ords.len();
    }
    Ok(names)
}

/// Each name's rank in byte order, and the name of each rank: equal
/// names (one docid in several segments) get consecutive ranks, the
/// greatest to the first of them (so that, greater first, they come in
/// segment order).
fn byte_ranks(names: &[String]) -> (Vec<u32>, Vec<u32>) {
    let mut by_rank: Vec<u32> = (0..names.len() as u32).collect();
    by_rank.sort_by(|&a, &b| {
        names[a as usize]
            .as_bytes()
            .cmp(names[b as usize].as_bytes())
            .then(b.cmp(&a))
    });
    let mut rank: Vec<u32> = vec![0; names.len()];
    for (r, &i) in by_rank.iter().enumerate() {
        rank[i as usize] = r as u32;
    }
    (rank, by_rank)
}

/// One pool's best `k` candidates, each as one integer (score, then the
/// rank of its name), greater first; `name_of` gives each candidate's
/// name index.
fn rank_pool(candidates: &[Pooled], name_of: &[u32], rank: &[u32], k: usize) -> Vec<u64> {
    let mut r: Vec<u64> = candidates
        .iter()
        .zip(name_of)
        .map(|(c, &i)| (u64::from(c.score_key()) << 32) | u64::from(rank[i as usize]))
        .collect();
    r.sort_unstable_by(|a, b| b.cmp(a));
    r.truncate(k);
    r
}

#[cfg(test)]
mod tests {
    use super::{Candidate, Pool, TopK, pack, unpack};
    use proptest::prelude::*;

    proptest! {
        /// Pooled over many segments, each with a few candidates, a
        /// variant's floor exists once `k` documents were offered and is
        /// the `k`-th best score offered so far; the pool holds exactly the
        /// candidates of the segments' own best `k` (ties there broken by
        /// ordinal) that score at least the `k`-th best: every tie at the
        /// cut between segments is kept, for the names to settle.
        #[test]
        fn the_pool_floor_is_the_kth_score_and_the_pool_keeps_every_tie(
            segments in proptest::collection::vec(
                proptest::collection::vec(0u8..8, 0..12), 1..40),
            k in 1usize..30,
        ) {
            let mut pool = Pool::new(k);
            let mut scores: Vec<u8> = Vec::new();
            // Each segment's best `k` (score, then ordinal), as scores.
            let mut bests: Vec<u8> = Vec::new();
            for (n, segment) in segments.iter().enumerate() {
                let mut top = TopK::new(k, pool.floor());
                for (ord, s) in segment.iter().enumerate() {
                    if !top.threshold().is_some_and(|t| (*s as f32) < t) {
                        top.push(Candidate { score: *s as f32, ord: ord as u32 });
                    }
                }
                pool.add(n as u32, top);
                let mut keys: Vec<u64> = segment
                    .iter()
                    .enumerate()
                    .map(|(ord, s)| pack(Candidate { score: *s as f32, ord: ord as u32 }))
                    .collect();
                keys.sort_unstable_by(|a, b| b.cmp(a));
                bests.extend(keys.iter().take(k).map(|&key| unpack(key).score as u8));
                scores.extend(segment);
                scores.sort_unstable_by(|a, b| b.cmp(a));
                let kth = scores.get(k - 1).map(|&s| s as f32);
                prop_assert_eq!(pool.floor(), kth);
            }
            let mut kept: Vec<u8> = pool.candidates.iter().map(|c| unpack(c.key).score as u8).collect();
            kept.sort_unstable_by(|a, b| b.cmp(a));
            let cut = scores.get(k - 1).copied().unwrap_or(0);
            let mut want: Vec<u8> = bests.into_iter().filter(|&s| s >= cut).collect();
            want.sort_unstable_by(|a, b| b.cmp(a));
            prop_assert_eq!(kept, want);
        }

        /// A segment's top k keeps exactly the best `k` of the candidates
        /// offered (by score, then ordinal: ties are frequent here); its
        /// threshold exists once `k` were offered (or with a floor), is
        /// never above the `k`-th best score offered so far (or the floor,
        /// if higher), so it never drops a document of the final top k,
        /// and every change of it is reported by `push`.
        #[test]
        fn the_top_k_keeps_the_best_k_and_its_threshold_never_passes_the_kth_score(
            scores in proptest::collection::vec(0u8..6, 0..300),
            k in 0usize..40,
            floor in proptest::option::of(0u8..6),
        ) {
            let floor = floor.map(|f| f as f32);
            let mut top = TopK::new(k, floor);
            let mut seen: Vec<u64> = Vec::new();
            let kth = |seen: &[u64]| (k > 0 && seen.len() >= k).then(|| unpack(seen[k - 1]).score);
            for (ord, s) in scores.iter().enumerate() {
                let c = Candidate { score: *s as f32, ord: ord as u32 };
                let old = top.threshold();
                // The scorer offers only what reaches the threshold.
                if old.is_some_and(|t| c.score < t) {
                    continue;
                }
                let changed = top.push(c);
                seen.push(pack(c));
                seen.sort_unstable_by(|a, b| b.cmp(a));
                let limit = match (kth(&seen), floor) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
                let t = top.threshold();
                prop_assert_eq!(t.is_some(), limit.is_some());
                if let (Some(t), Some(limit)) = (t, limit) {
                    prop_assert!(t <= limit, "threshold {} above {}", t, limit);
                }
                prop_assert!(changed || t == old);
            }
            let mut best: Vec<u64> = top.into_best().map(pack).collect();
            best.sort_unstable_by(|a, b| b.cmp(a));
            seen.truncate(k);
            prop_assert_eq!(best, seen);
        }
    }

    /// Names rank in byte order; of equal names (one docid in several
    /// segments) the first gets the greatest rank, so that, greater first,
    /// they come in segment order.
    #[test]
    fn equal_names_rank_in_segment_order() {
        let names: Vec<String> = ["b", "a", "b", "c", "a"].map(String::from).to_vec();
        let (rank, by_rank) = super::byte_ranks(&names);
        assert_eq!(by_rank, vec![4, 1, 2, 0, 3]);
        for (r, &i) in by_rank.iter().enumerate() {
            assert_eq!(rank[i as usize], r as u32);
        }
    }
}
