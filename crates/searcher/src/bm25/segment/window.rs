//! One window of doc ids: MaxScore's essential and looked-up cursors and
//! the live variants of the window, the choice of path (the direct paths
//! of `plain`, the lanes of `lanes`, the membership words of `one_group`),
//! and the general path: the essential postings gathered into frequency
//! arrays, then every touched document tested against the variants that
//! may return it, looked up and scored once per group.

use tantivy::{DocId, Score};

use super::cursors::{Cursor, look_up_tf};
use super::maxscore::lowest_per_group;
use super::{LANES, SegmentScan, WINDOW, may_reach};
use crate::bm25::topk::Candidate;

impl SegmentScan<'_> {
    /// Scores the documents `base..end` that the cursors not in `skip`
    /// have postings for. The skipped (non-essential) cursors are looked up
    /// for such a document one at a time, largest `bounds` first, only
    /// while the document's best score so far over the variants plus the
    /// bounds of the cursors not yet looked up may still reach
    /// `threshold` (MaxScore's document-level test).
    pub(super) fn window(
        &mut self,
        cursors: &mut [Cursor],
        skip: &[bool],
        bounds: &[Score],
        threshold: Option<Score>,
        base: DocId,
        end: DocId,
    ) {
        self.split_cursors(cursors, skip, bounds);
        let threshold = threshold.filter(|_| !self.lookups.is_empty());
        let n = cursors.len();
        self.live_variants(bounds, n);
        if self.masks.is_some() {
            self.effective_cache.fill(None);
        }
        self.touched_words = ((end - base) as usize).div_ceil(64);
        // A plain query (one group, nothing filtered, no membership words),
        // one setting with a filter, or several settings of one group with
        // membership words: the direct paths, which ask `doc_threshold` of
        // a document that reaches the lowest threshold.
        let direct =
            self.groups.len() == 1 && (!self.admitting || self.active.len() == 1 || self.members);
        if !self.filtering || direct {
            // Every variant may return every document (or, with one
            // variant, the documents it admits): each group's threshold is
            // its live variants' lowest, for the whole window.
            lowest_per_group(
                &mut self.group_thresholds,
                &self.active,
                &self.thresholds,
                &self.live,
            );
        }
        if direct {
            // Without a threshold no term is non-essential, so `threshold`
            // (kept only with lookups) is `None` exactly when every term is
            // essential.
            if self.members {
                self.direct::<true>(cursors, threshold.is_some(), base, end, n);
            } else {
                self.direct::<false>(cursors, threshold.is_some(), base, end, n);
            }
            return;
        }
        self.gather(cursors, skip, base, end);
        if self.lanes() {
            self.prepare_lanes();
            if self.groups.len() <= 4 {
                self.documents_lanes::<4>(cursors, base, n);
            } else {
                self.documents_lanes::<LANES>(cursors, base, n);
            }
            return;
        }
        self.for_each_touched(base, |s, doc, local| {
            s.general_document(cursors, doc, local, threshold, n);
        });
    }

    /// The direct paths of `plain` (`M`: several variants of one group
    /// with membership words): one of four, by whether some term is looked
    /// up (`lookups`) and how many are essential.
    #[inline(always)]
    fn direct<const M: bool>(
        &mut self,
        cursors: &mut [Cursor],
        lookups: bool,
        base: DocId,
        end: DocId,
        n: usize,
    ) {
        match (lookups, self.essential.len()) {
            (true, 1) => self.documents_one_essential::<M>(cursors, base, end, n),
            (true, _) => self.documents_summed::<M>(cursors, base, end, n),
            (false, 1) => self.documents_single::<M>(cursors, base, end),
            (false, _) => self.documents_complete::<M>(cursors, base, end),
        }
    }

    /// The window's essential cursors (not in `skip`, with their weights
    /// when there is one group), its non-essential ones in lookup order
    /// (largest of `bounds` first), and the sums of the latter's bounds
    /// from each on.
    #[inline]
    fn split_cursors(&mut self, cursors: &[Cursor], skip: &[bool], bounds: &[Score]) {
        self.essential.clear();
        self.essential
            .extend((0..cursors.len()).filter(|&c| !skip[c]));
        self.essential_weights.clear();
        if let [w] = self.groups {
            self.essential_weights.extend(
                self.essential
                    .iter()
                    .map(|&c| (c, w.term_weight[cursors[c].term_idx])),
            );
        }
        self.lookups.clear();
        self.lookups.extend((0..cursors.len()).filter(|&c| skip[c]));
        self.lookups
            .sort_unstable_by(|&a, &b| bounds[b].total_cmp(&bounds[a]).then(a.cmp(&b)));
        self.rest.clear();
        self.rest.resize(self.lookups.len() + 1, 0.0);
        for i in (0..self.lookups.len()).rev() {
            self.rest[i] = self.rest[i + 1] + bounds[self.lookups[i]];
        }
    }

    /// Each active variant's threshold now (they only rise: a value read
    /// earlier stays safe to prune with), and whether it is live: whether
    /// it may take any document of the window at all. A variant whose
    /// subset holds none of the window's documents (by the membership
    /// words' block summaries) takes none. No document scores
    /// more than the sum of the window's bounds (`bounds`, over `n`
    /// cursors; each group's own, `group_bounds`, with several groups), so
    /// a variant whose threshold that sum cannot reach takes none (in a
    /// sweep, the lax thresholds are high: most windows are then only for
    /// the documents of the strict subsets, and the others are not
    /// scored).
    #[inline]
    fn live_variants(&mut self, bounds: &[Score], n: usize) {
        self.thresholds.clear();
        for &(v, _) in &self.active {
            let t = self.heaps[v].threshold().unwrap_or(Score::NEG_INFINITY);
            self.thresholds.push(t);
        }
        self.live.clear();
        let ng = self.groups.len();
        if ng > 1 {
            // Each group's own bounds (`group_bounds`): a variant is live
            // when its group's sum may reach its threshold.
            self.group_sums.clear();
            self.group_sums.resize(ng, 0.0);
            for b in self.group_bounds.chunks_exact(ng) {
                for (s, &b) in self.group_sums.iter_mut().zip(b) {
                    *s += b;
                }
            }
            for (i, (&(_, g), &t)) in self.active.iter().zip(&self.thresholds).enumerate() {
                self.live
                    .push(self.present(i) && may_reach(self.group_sums[g], n, t));
            }
        } else {
            let bound_sum: Score = bounds.iter().sum();
            for (i, &t) in self.thresholds.iter().enumerate() {
                self.live
                    .push(self.present(i) && may_reach(bound_sum, n, t));
            }
        }
        #[cfg(test)]
        if (0..self.active.len()).any(|i| !self.present(i)) {
            crate::bm25::tests::ABSENT_WINDOWS.with(|n| n.set(n.get() + 1));
        }
    }

    /// The general path's step for one touched document `doc` (at `local`
    /// in the frequency arrays): which variants may return it (deleted, or
    /// filtered out: none, and it is not looked at further), then
    /// MaxScore's lookups (with a `threshold`) and its score per group.
    #[inline(always)]
    fn general_document(
        &mut self,
        cursors: &mut [Cursor],
        doc: DocId,
        local: usize,
        threshold: Option<Score>,
        n: usize,
    ) {
        let fid = self.fieldnorms.fieldnorm_id(doc) as usize;
        if !self.filtering || self.accepting(doc) {
            if threshold.is_none() {
                self.score_doc(cursors, doc, local, fid, false);
            } else {
                if self.filtering {
                    self.accepting_group_thresholds();
                }
                if self.lookup(cursors, doc, local, fid, n) {
                    self.score_doc(cursors, doc, local, fid, true);
                }
            }
        }
    }

    /// Which active variants may return `doc`, into `accepts` (alive, live
    /// in the window, and in the variant's subset: from the membership
    /// words when there are some); true when some variant may.
    #[inline(always)]
    fn accepting(&mut self, doc: DocId) -> bool {
        let alive = self.alive.is_none_or(|a| a.is_alive(doc));
        let accepts = self.accepts.iter_mut().zip(&self.active).zip(&self.live);
        if let Some((masks, need)) = self.masks {
            let bits = masks.get(doc);
            for ((a, &(v, _)), &live) in accepts {
                *a = alive && live && bits & need[v] == need[v];
            }
        } else {
            for ((a, &(v, _)), &live) in accepts {
                *a = alive && live && self.subsets[v].is_none_or(|set| set.contains(doc));
            }
        }
        self.accepts.iter().any(|a| *a)
    }

    /// Gathers the term frequencies of the essential cursors' (those not
    /// in `skip`) postings in `base..end` into the frequency arrays and
    /// marks their documents in `touched`.
    fn gather(&mut self, cursors: &mut [Cursor], skip: &[bool], base: DocId, end: DocId) {
        for ((c, tf), _) in cursors
            .iter_mut()
            .zip(self.tfs.iter_mut())
            .zip(skip)
            .filter(|(_, s)| !**s)
        {
            if c.postings.doc() < base {
                c.postings.seek(base);
            }
            // `local` is below `end - base <= WINDOW`: the masks only spare
            // the bounds checks.
            let tf: &mut [u32; WINDOW as usize] = tf
                .as_mut_slice()
                .try_into()
                .expect("a window's frequency array holds WINDOW entries");
            let touched = &mut self.touched;
            c.postings.for_each_before(end, |doc, f| {
                let local = (doc - base) as usize & (WINDOW as usize - 1);
                touched[local / 64] |= 1 << (local % 64);
                tf[local] = f;
            });
        }
    }

    /// Calls `f(self, doc, local)` for every document of the window at
    /// `base` that a cursor touched, in doc id order, clearing the touched
    /// bits, and then clears the document's term frequencies (so the
    /// window's arrays are all zero again at the end).
    #[inline(always)]
    pub(super) fn for_each_touched(
        &mut self,
        base: DocId,
        mut f: impl FnMut(&mut Self, DocId, usize),
    ) {
        for word_idx in 0..self.touched_words {
            let mut bits = std::mem::take(&mut self.touched[word_idx]);
            while bits != 0 {
                let local = word_idx * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                f(self, base + local as DocId, local);
                for tf in self.tfs.iter_mut() {
                    tf[local] = 0;
                }
            }
        }
    }

    /// Each group's lowest threshold over its live variants that accept
    /// the current document (`accepts`; infinity: none does), into
    /// `group_thresholds`.
    #[inline]
    fn accepting_group_thresholds(&mut self) {
        lowest_per_group(
            &mut self.group_thresholds,
            &self.active,
            &self.thresholds,
            &self.accepts,
        );
    }

    /// Looks the non-essential cursors up for `doc` while its score so far
    /// plus the bounds of the cursors not yet looked up may still reach its
    /// group's threshold in `group_thresholds` (see
    /// [`SegmentScan::window`]); false when it cannot.
    #[inline]
    pub(super) fn lookup(
        &mut self,
        cursors: &mut [Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
        n: usize,
    ) -> bool {
        if self.groups.len() == 1 {
            return self.lookup_one(cursors, doc, local, fid);
        }
        // The score so far of each group some variant of which may return
        // the document, from the essential terms (one score per group: its
        // variants' weights are identical).
        for ((slot, w), &t) in self
            .partial
            .iter_mut()
            .zip(self.groups)
            .zip(&self.group_thresholds)
        {
            if t == Score::INFINITY {
                *slot = Score::NEG_INFINITY;
                continue;
            }
            let mut score: Score = 0.0;
            for &c in &self.essential {
                let tf = self.tfs[c][local];
                if tf != 0 {
                    let tf = tf as Score;
                    score += w.term_weight[cursors[c].term_idx] * (tf / (tf + w.norm[fid]));
                }
            }
            *slot = score;
        }
        for (i, &c) in self.lookups.iter().enumerate() {
            // Some variant may still take the document: its score so far
            // plus the bounds of the terms not looked up reach its own
            // threshold (the variants' thresholds differ; a group's
            // variants share the score, so the lowest of their
            // thresholds decides).
            let rest = self.rest[i];
            if !self
                .partial
                .iter()
                .zip(&self.group_thresholds)
                .any(|(p, t)| *p != Score::NEG_INFINITY && may_reach(p + rest, n, *t))
            {
                return false;
            }
            let cursor = &mut cursors[c];
            if let Some(tf) = look_up_tf(&mut cursor.postings, doc, &mut self.tfs[c][local]) {
                for (slot, w) in self.partial.iter_mut().zip(self.groups) {
                    *slot += w.term_weight[cursor.term_idx] * (tf / (tf + w.norm[fid]));
                }
            }
        }
        true
    }

    /// Scores `doc` (at `local` in the frequency arrays, fieldnorm id
    /// `fid`) for every variant that may return it, and offers it to the
    /// variant's heap. The score is computed once per group (the first
    /// variant of the group that needs it) and shared by its variants.
    /// Inlined into the general path's loop, as it was when that loop was
    /// written inside [`SegmentScan::window`] (a call per document costs
    /// about 1.4% more instructions on several settings of one query).
    #[inline(always)]
    fn score_doc(
        &mut self,
        cursors: &[Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
        complete: bool,
    ) {
        if !self.filtering && self.groups.len() == 1 {
            let t = self.group_thresholds[0];
            return self.score_doc_direct::<false>(cursors, doc, local, fid, t);
        }
        let n = cursors.len();
        let mut ord: Option<u32> = None;
        self.gather_terms(cursors, local);
        for i in 0..self.active.len() {
            if !self.live[i] || (self.filtering && !self.accepts[i]) {
                continue;
            }
            let g = self.active[i].1;
            // The variant's threshold (negative infinity: none yet), kept
            // up to date after every push to it.
            let t = self.thresholds[i];
            // With every term looked up, `partial` holds the score summed
            // in another order: a variant it cannot bring in is not scored.
            if complete && !may_reach(self.partial[g], n, t) {
                continue;
            }
            if self.group_docs[g] != doc {
                self.group_scores[g] = self.group_score(g, fid);
                self.group_docs[g] = doc;
            }
            let score = self.group_scores[g];
            if score < t {
                continue;
            }
            self.offer(i, doc, score, &mut ord);
        }
    }

    /// The document's terms in query-term order (cursors are in term
    /// order), with their frequencies, into `doc_terms`: gathered once for
    /// every variant.
    #[inline]
    fn gather_terms(&mut self, cursors: &[Cursor], local: usize) {
        self.doc_terms.clear();
        for (c, tf) in cursors.iter().zip(&self.tfs) {
            let tf = tf[local];
            if tf != 0 {
                self.doc_terms.push((c.term_idx, tf as Score));
            }
        }
    }

    /// Group `g`'s score of the document whose terms are in `doc_terms`
    /// (fieldnorm id `fid`), summed in query-term order.
    #[inline]
    fn group_score(&self, g: usize, fid: usize) -> Score {
        let w = &self.groups[g];
        let norm = w.norm[fid];
        let mut score: Score = 0.0;
        for &(t, tf) in &self.doc_terms {
            score += w.term_weight[t] * (tf / (tf + norm));
        }
        score
    }

    /// Offers `doc` with `score` to active variant `i`'s heap (its docid
    /// ordinal read once per document, into `ord`) and refreshes the
    /// variant's threshold; true when the threshold changed.
    #[inline(always)]
    pub(super) fn offer(
        &mut self,
        i: usize,
        doc: DocId,
        score: Score,
        ord: &mut Option<u32>,
    ) -> bool {
        let docids = self.docids;
        // Ordinals are below the segment's document count (a `u32`).
        let ord = *ord.get_or_insert_with(|| match &self.ords {
            Some(ords) => ords.get_val(doc) as u32,
            None => docids.term_ords(doc).next().unwrap_or(0) as u32,
        });
        let heap = &mut self.heaps[self.active[i].0];
        // The heap's threshold only changes when it cuts its buffer.
        if !heap.push(Candidate { score, ord }) {
            return false;
        }
        let t = heap.threshold().unwrap_or(Score::NEG_INFINITY);
        let changed = t != self.thresholds[i];
        self.thresholds[i] = t;
        changed
    }
}
