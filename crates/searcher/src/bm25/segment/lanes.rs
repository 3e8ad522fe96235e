//! Several groups side by side (2 to [`LANES`] groups, nothing filtered,
//! no membership words: several k1/b settings of one query): every
//! group's score of a document in one lane of a fixed-size array, by the
//! same f32 operations in the same order as one group's score.

use tantivy::{DocId, Score};

use super::cursors::{Cursor, look_up_tf};
use super::maxscore::lowest_per_group;
use super::{LANES, SegmentScan, margin};

impl SegmentScan<'_> {
    /// True when the documents are scored by
    /// [`SegmentScan::documents_lanes`]: 2 to [`LANES`] groups, nothing
    /// filtered, no membership words.
    pub(super) fn lanes(&self) -> bool {
        !self.filtering && self.masks.is_none() && (2..=LANES).contains(&self.groups.len())
    }

    /// The window's lane scratch for [`SegmentScan::documents_lanes`]:
    /// the essential cursors' weights, the lookups' weights and bounds per
    /// group, and the groups' thresholds.
    pub(super) fn prepare_lanes(&mut self) {
        let ng = self.groups.len();
        self.lane_essential.clear();
        for &c in &self.essential {
            self.lane_essential.push((c, self.lane_weights[c]));
        }
        self.lane_lookups.clear();
        let mut rest = [0.0 as Score; LANES];
        for &c in self.lookups.iter().rev() {
            for (r, &b) in rest
                .iter_mut()
                .zip(&self.group_bounds[c * ng..(c + 1) * ng])
            {
                *r += b;
            }
            self.lane_lookups.push((c, self.lane_weights[c], rest));
        }
        self.lane_lookups.reverse();
        self.refresh_lane_thresholds();
    }

    /// `lane_thresholds` from the live variants' thresholds.
    #[inline]
    fn refresh_lane_thresholds(&mut self) {
        lowest_per_group(
            &mut self.lane_thresholds,
            &self.active,
            &self.thresholds,
            &self.live,
        );
    }

    /// [`SegmentScan::window`]'s loop over the window's documents with 2
    /// to `L` groups, nothing filtered and no membership words (several
    /// k1/b settings of one query): every group's score is computed side
    /// by side, one lane per group, with the same operations in the same
    /// order as [`SegmentScan::group_score`] (so bit for bit the same).
    /// MaxScore's lookups go on while some group's score so far plus its
    /// own bounds of the terms not yet looked up may reach its threshold.
    pub(super) fn documents_lanes<const L: usize>(
        &mut self,
        cursors: &mut [Cursor],
        base: DocId,
        n: usize,
    ) {
        let m = 1.0 + margin(n);
        let mut t: [Score; L] = std::array::from_fn(|g| self.lane_thresholds[g]);
        self.for_each_touched(base, |s, doc, local| {
            let fid = s.fieldnorms.fieldnorm_id(doc) as usize;
            if let Some(score) = s.lanes_score::<L>(cursors, doc, local, fid, m, &t)
                && s.offer_lanes(doc, &score)
            {
                t = std::array::from_fn(|g| s.lane_thresholds[g]);
            }
        });
    }

    /// Every group's score of `doc` (at `local`, fieldnorm id `fid`),
    /// one lane per group, or `None` when no group's score may reach its
    /// threshold in `t` (`m`: one plus the margin).
    #[inline(always)]
    fn lanes_score<const L: usize>(
        &mut self,
        cursors: &mut [Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
        m: Score,
        t: &[Score; L],
    ) -> Option<[Score; L]> {
        let norm: [Score; L] = std::array::from_fn(|g| self.lane_norms[fid][g]);
        let mut p = [0.0 as Score; L];
        for (c, w) in &self.lane_essential {
            let tf = self.tfs[*c][local];
            if tf != 0 {
                let tf = tf as Score;
                for g in 0..L {
                    p[g] += w[g] * (tf / (tf + norm[g]));
                }
            }
        }
        if self.lane_lookups.is_empty() {
            // Every term scanned, in query-term order: `p` is the score.
            return (0..L).any(|g| p[g] >= t[g]).then_some(p);
        }
        let mut found = false;
        for (c, w, rest) in &self.lane_lookups {
            if !(0..L).any(|g| (p[g] + rest[g]) * m >= t[g]) {
                return None;
            }
            if let Some(tf) = look_up_tf(&mut cursors[*c].postings, doc, &mut self.tfs[*c][local]) {
                found = true;
                for g in 0..L {
                    p[g] += w[g] * (tf / (tf + norm[g]));
                }
            }
        }
        if !found {
            // No non-essential term in the document: `p` summed the
            // essential ones in query-term order, so it is the score.
            return (0..L).any(|g| p[g] >= t[g]).then_some(p);
        }
        // Summed in another order than the query's, which the margin
        // covers.
        if !(0..L).any(|g| p[g] * m >= t[g]) {
            return None;
        }
        let mut score = [0.0 as Score; L];
        for (w, tf) in self.lane_weights.iter().zip(&self.tfs) {
            let tf = tf[local];
            if tf != 0 {
                let tf = tf as Score;
                for g in 0..L {
                    score[g] += w[g] * (tf / (tf + norm[g]));
                }
            }
        }
        Some(score)
    }

    /// Offers `doc` with its groups' `score` to every live variant whose
    /// threshold its group's score reaches; true when a threshold changed
    /// (`lane_thresholds` is then refreshed).
    #[inline]
    fn offer_lanes<const L: usize>(&mut self, doc: DocId, score: &[Score; L]) -> bool {
        let mut ord: Option<u32> = None;
        let mut changed = false;
        for i in 0..self.active.len() {
            let g = self.active[i].1;
            if self.live[i] && score[g] >= self.thresholds[i] {
                changed |= self.offer(i, doc, score[g], &mut ord);
            }
        }
        if changed {
            self.refresh_lane_thresholds();
        }
        changed
    }
}
