//! Which of a batch's selections each document is in: one small word per
//! document, built once for a batch of queries.
//!
//! A variant with a subset asks, for every document it scores, whether the
//! document is in the subset. With a roaring bitmap that is a search for
//! the container and one in it, per document and per subset: a sweep of
//! ten thresholds spent a sixth of its time there. A [`Membership`] turns
//! the batch's selections (at most 64) into one word per document whose
//! bit `i` says "in selection `i`", so each document costs one load
//! whatever the number of subsets.
//!
//! Memory: one byte per document for up to 8 selections, two for up to
//! 16, four for up to 32, eight for up to 64 (ClueWeb09 category B, 50
//! million documents, a sweep of 10 thresholds: 100 MB). A batch with
//! more selections has no membership and asks the bitmaps.
//!
//! **Block summaries.** Per block of [`BLOCK_DOCS`] doc ids (a block-max
//! window), the OR of its documents' words, and the OR from that block to
//! the segment's end. A selection whose bit is missing from a block's
//! summary holds no document of it, so its variant takes nothing there
//! and its threshold does not bound the pruning of that block (see
//! `segment`). In input order every block holds every selection; in an
//! index ordered by spam percentile (`sieve-index reorder --by-spam`) a
//! spam threshold's documents are a prefix of each segment, and a sweep's
//! strict variants drop out block by block.

use rayon::prelude::*;
use sieve_format::bounds::BLOCK_DOCS;
use tantivy::DocId;

use super::{Shard, Subset};

/// The most selections a [`Membership`] holds.
pub const MAX_SELECTIONS: usize = 64;

/// One segment's words, as narrow as the number of selections allows.
enum Words {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Words {
    #[inline]
    fn get(&self, d: usize) -> u64 {
        match self {
            Words::U8(v) => v.get(d).map_or(0, |&x| u64::from(x)),
            Words::U16(v) => v.get(d).map_or(0, |&x| u64::from(x)),
            Words::U32(v) => v.get(d).map_or(0, |&x| u64::from(x)),
            Words::U64(v) => v.get(d).copied().unwrap_or(0),
        }
    }

    fn len(&self) -> usize {
        match self {
            Words::U8(v) => v.len(),
            Words::U16(v) => v.len(),
            Words::U32(v) => v.len(),
            Words::U64(v) => v.len(),
        }
    }
}

/// One segment's words and block summaries (see the module docs).
pub(crate) struct Masks {
    words: Words,
    /// Per block of [`BLOCK_DOCS`] doc ids, the OR of its words.
    blocks: Vec<u64>,
    /// Per block, the OR of its words and of every later block's.
    rest: Vec<u64>,
}

impl Masks {
    fn new(words: Words) -> Masks {
        let n = words.len();
        let blocks: Vec<u64> = (0..n.div_ceil(BLOCK_DOCS as usize))
            .map(|b| {
                let start = b * BLOCK_DOCS as usize;
                (start..n.min(start + BLOCK_DOCS as usize)).fold(0, |m, d| m | words.get(d))
            })
            .collect();
        let mut rest = blocks.clone();
        for b in (0..rest.len().saturating_sub(1)).rev() {
            rest[b] |= rest[b + 1];
        }
        Masks {
            words,
            blocks,
            rest,
        }
    }

    /// The selections `doc` is in (bit `i`: selection `i`); 0 for a
    /// document id past the segment.
    #[inline]
    pub(crate) fn get(&self, doc: DocId) -> u64 {
        self.words.get(doc as usize)
    }

    /// A superset of the selections that hold some document of
    /// `base..end` (the OR of the summaries of the blocks it touches).
    #[inline]
    pub(crate) fn within(&self, base: DocId, end: DocId) -> u64 {
        let first = (base / BLOCK_DOCS) as usize;
        let last = (end.saturating_sub(1) / BLOCK_DOCS) as usize;
        self.blocks
            .get(first..=last.min(self.blocks.len().saturating_sub(1)))
            .map_or(0, |b| b.iter().fold(0, |m, x| m | x))
    }

    /// A superset of the selections that hold some document from `doc` on.
    #[inline]
    pub(crate) fn from(&self, doc: DocId) -> u64 {
        self.rest
            .get((doc / BLOCK_DOCS) as usize)
            .copied()
            .unwrap_or(0)
    }
}

/// Per shard and segment, the selections each document is in.
pub struct Membership {
    segments: Vec<Vec<Masks>>,
}

/// Sets bit `bit` of `words[d]` for every document `d` of one segment
/// that selection keeps.
fn fill<T>(words: &mut [T], subsets: &[&Subset], shard: usize, segment: usize)
where
    T: Copy + std::ops::BitOrAssign + From<u8> + std::ops::Shl<u32, Output = T>,
{
    for (bit, subset) in subsets.iter().enumerate() {
        let one = T::from(1u8) << bit as u32;
        match subset.get(shard).and_then(|s| s.get(segment)) {
            // `None`: the selection keeps every document of the segment.
            Some(None) | None => words.iter_mut().for_each(|w| *w |= one),
            Some(Some(bitmap)) => {
                for d in bitmap.iter() {
                    if let Some(w) = words.get_mut(d as usize) {
                        *w |= one;
                    }
                }
            }
        }
    }
}

impl Membership {
    /// The membership of every document of `shards` in each of `subsets`
    /// (bit `i`: `subsets[i]`), or `None` when there are no subsets or
    /// more than [`MAX_SELECTIONS`].
    pub fn new(shards: &[Shard], subsets: &[Subset]) -> Option<Membership> {
        if subsets.is_empty() || subsets.len() > MAX_SELECTIONS {
            return None;
        }
        let refs: Vec<&Subset> = subsets.iter().collect();
        let n = subsets.len();
        let segments = shards
            .iter()
            .enumerate()
            .map(|(shard_idx, shard)| {
                shard
                    .searcher
                    .segment_readers()
                    .par_iter()
                    .enumerate()
                    .map(|(seg_idx, segment)| {
                        let max = segment.max_doc() as usize;
                        macro_rules! build {
                            ($variant:ident, $t:ty) => {{
                                let mut w: Vec<$t> = vec![0; max];
                                fill(&mut w, &refs, shard_idx, seg_idx);
                                Masks::new(Words::$variant(w))
                            }};
                        }
                        match n {
                            0..=8 => build!(U8, u8),
                            9..=16 => build!(U16, u16),
                            17..=32 => build!(U32, u32),
                            _ => build!(U64, u64),
                        }
                    })
                    .collect()
            })
            .collect();
        Some(Membership { segments })
    }

    /// The words of segment `segment` of shard `shard`.
    pub(crate) fn masks(&self, shard: usize, segment: usize) -> Option<&Masks> {
        self.segments.get(shard)?.get(segment)
    }
}
