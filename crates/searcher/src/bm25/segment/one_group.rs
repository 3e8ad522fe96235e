//! The one-group path with membership words (a sweep with full
//! statistics: every setting scores a document alike): a document's
//! membership word gives, through a small cache, the lowest threshold of
//! the live variants that may return it, and a document scoring below it
//! is dropped without looking at the variants.

use tantivy::{DocId, Score};

use super::SegmentScan;
use super::cursors::Cursor;
use crate::bm25::membership::Masks;

impl SegmentScan<'_> {
    /// The one-group path's step for one touched document `doc` (at
    /// `local` in the frequency arrays): if alive, its membership word in
    /// `masks` gives the lowest threshold that counts; MaxScore's lookups
    /// (with a `threshold`), then its score offered to the variants that
    /// may take it.
    #[inline(always)]
    pub(super) fn membership_document(
        &mut self,
        cursors: &mut [Cursor],
        doc: DocId,
        local: usize,
        masks: &Masks,
        threshold: Option<Score>,
        n: usize,
    ) {
        if self.alive.is_none_or(|a| a.is_alive(doc)) {
            let bits = masks.get(doc);
            let eff = self.effective(bits);
            if eff != Score::INFINITY {
                let fid = self.fieldnorms.fieldnorm_id(doc) as usize;
                self.group_thresholds[0] = eff;
                if threshold.is_none() || self.lookup(cursors, doc, local, fid, n) {
                    let score = self.one_group_score(cursors, local, fid);
                    self.score_doc_one_group(doc, score, bits);
                }
            }
        }
    }

    /// The lowest threshold of the live variants whose subsets hold a
    /// document with membership word `bits` (infinity when none may return
    /// it; negative infinity when one has no threshold yet). Cached per
    /// word until a threshold or the window changes: a sweep of nested
    /// thresholds has only a few distinct words.
    #[inline]
    fn effective(&mut self, bits: u64) -> Score {
        let slot = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59) as usize;
        if let Some(&Some((b, t))) = self.effective_cache.get(slot)
            && b == bits
        {
            return t;
        }
        let need = self.masks.map_or(&[][..], |(_, need)| need);
        let mut m = Score::INFINITY;
        for (i, &(v, _)) in self.active.iter().enumerate() {
            if self.live[i] && bits & need[v] == need[v] {
                m = m.min(self.thresholds[i]);
            }
        }
        self.effective_cache[slot] = Some((bits, m));
        m
    }

    /// [`SegmentScan::score_doc`]'s variant loop for the one-group path,
    /// given the document's `score` (computed once): when it is below the
    /// lowest threshold of the live variants that may return it
    /// (`group_thresholds[0]`), no variant is looked at.
    fn score_doc_one_group(&mut self, doc: DocId, score: Score, bits: u64) {
        if score < self.group_thresholds[0] {
            return;
        }
        let need = self.masks.map_or(&[][..], |(_, need)| need);
        let mut ord: Option<u32> = None;
        for i in 0..self.active.len() {
            let v = self.active[i].0;
            if !self.live[i] || bits & need[v] != need[v] || score < self.thresholds[i] {
                continue;
            }
            if self.offer(i, doc, score, &mut ord) {
                self.effective_cache.fill(None);
            }
        }
    }
}
