//! Several settings of one group with membership words (a sweep with full
//! statistics: every setting scores a document alike): a document's
//! membership word gives, through a small cache, the lowest threshold of
//! the live variants that may return it. The direct paths of `plain` ask
//! it only of a document that reaches the lowest threshold of them all,
//! and a document scoring below its own is dropped without looking at
//! the variants.

use tantivy::Score;

use super::SegmentScan;

impl SegmentScan<'_> {
    /// The lowest threshold of the live variants whose subsets hold a
    /// document with membership word `bits` (infinity when none may return
    /// it; negative infinity when one has no threshold yet). Cached per
    /// word until a threshold or the window changes: a sweep of nested
    /// thresholds has only a few distinct words.
    #[inline]
    pub(super) fn effective(&mut self, bits: u64) -> Score {
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

    /// Whether active variant `i`'s subset holds the document whose
    /// membership word is `doc_bits`.
    #[inline(always)]
    pub(super) fn holds(&self, i: usize) -> bool {
        let need = self.masks.map_or(&[][..], |(_, need)| need);
        let v = self.active[i].0;
        self.doc_bits & need[v] == need[v]
    }
}
