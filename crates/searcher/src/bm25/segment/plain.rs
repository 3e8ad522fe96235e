//! The direct paths of one group: a plain query (one setting, nothing
//! filtered, no membership words), one setting with a filter, or several
//! settings with membership words (a document's own threshold asked of
//! [`SegmentScan::doc_threshold`] only when it reaches the lowest one).
//! `M` is true in the last case.
//! Each window is scored by one of four paths, by whether some term is
//! looked up and how many are essential; lookups and the score inlined.

use tantivy::{DocId, Score};

use super::cursors::{Cursor, look_up_tf};
use super::{SegmentScan, WINDOW, may_reach};

impl SegmentScan<'_> {
    /// A plain query's window (one group; nothing filtered and no
    /// membership words, or [`SegmentScan::doc_threshold`]) with
    /// MaxScore's lookups and a single essential cursor (the
    /// window of a dense term whose partners are all non-essential): its
    /// postings are walked directly, in doc id order, and MaxScore's first
    /// test of [`SegmentScan::lookup_one`] (the essential term's score
    /// plus every lookup's bound against the threshold) is made on the
    /// posting, with the same f32 operations, so a document that fails it
    /// (most of them) is never written to the frequency arrays. A document
    /// that passes goes through [`SegmentScan::look_up_from`] (the rest of
    /// `lookup_one`) and [`SegmentScan::score_doc_direct`], and its
    /// frequencies are cleared after.
    pub(super) fn documents_one_essential<const M: bool>(
        &mut self,
        cursors: &mut [Cursor],
        base: DocId,
        end: DocId,
        n: usize,
    ) {
        #[cfg(test)]
        crate::bm25::tests::ONE_ESSENTIAL_WINDOWS.with(|c| c.set(c.get() + 1));
        let (e, tw) = self.essential_weights[0];
        let rest = self.rest[0];
        if cursors[e].postings.doc() < base {
            cursors[e].postings.seek(base);
        }
        loop {
            let postings = &mut cursors[e].postings;
            let doc = postings.doc();
            if doc >= end {
                break;
            }
            let tf = postings.term_freq();
            postings.advance();
            let fid = self.fieldnorms.fieldnorm_id(doc) as usize;
            // `lookup_one`'s essential sum with one term, and its first
            // test.
            let norm = self.groups[0].norm[fid];
            let mut score: Score = 0.0;
            let x = tf as Score;
            score += tw * (x / (x + norm));
            if !may_reach(score + rest, n, self.group_thresholds[0]) {
                continue;
            }
            let Some(t) = self.doc_threshold::<M>(doc) else {
                continue;
            };
            if M && !may_reach(score + rest, n, t) {
                continue;
            }
            let local = (doc - base) as usize & (WINDOW as usize - 1);
            self.tfs[e][local] = tf;
            // The essential score is `lookup_one`'s, and the threshold
            // finite (it is reached).
            if self.look_up_from(cursors, doc, local, fid, score, t) {
                self.score_doc_direct::<M>(cursors, doc, local, fid, t);
            }
            for tf in self.tfs.iter_mut() {
                tf[local] = 0;
            }
        }
    }

    /// A plain query's window with MaxScore's lookups and two or more
    /// essential cursors: while their postings are gathered (term at
    /// a time, in query-term order), each posting's term score is added to
    /// the document's slot in `sums`, so that a slot ends up holding
    /// exactly the essential sum of [`SegmentScan::lookup_one`] (the same
    /// f32 operations, from 0, in the same order). Then, in doc id order,
    /// MaxScore's first test (that sum plus every lookup's bound against
    /// the threshold) is one comparison per touched document; a document
    /// that passes goes through [`SegmentScan::look_up_from`] and
    /// [`SegmentScan::score_doc_direct`]. Only
    /// the frequencies that were written are cleared (the essential ones,
    /// and the lookups' for a document that was looked up).
    pub(super) fn documents_summed<const M: bool>(
        &mut self,
        cursors: &mut [Cursor],
        base: DocId,
        end: DocId,
        n: usize,
    ) {
        #[cfg(test)]
        crate::bm25::tests::SUMMED_WINDOWS.with(|c| c.set(c.get() + 1));
        // `local` is below `end - base <= WINDOW`: the mask only spares
        // the bounds checks.
        const MASK: usize = WINDOW as usize - 1;
        self.gather_sums::<true>(cursors, base, end);
        // The touched documents, to clear the essential frequencies after
        // (one array at a time); the lookups' frequencies (written only for
        // a document looked up) are cleared per document.
        let words = self.touched_words;
        let mut touched = [0u64; WINDOW as usize / 64];
        touched[..words].copy_from_slice(&self.touched[..words]);
        let rest = self.rest[0];
        for word_idx in 0..words {
            let mut bits = std::mem::take(&mut self.touched[word_idx]);
            while bits != 0 {
                let local = (word_idx * 64 + bits.trailing_zeros() as usize) & MASK;
                bits &= bits - 1;
                let score = std::mem::take(&mut self.sums[local]);
                let doc = base + local as DocId;
                if may_reach(score + rest, n, self.group_thresholds[0])
                    && let Some(t) = self.doc_threshold::<M>(doc)
                    && (!M || may_reach(score + rest, n, t))
                {
                    let fid = self.fieldnorms.fieldnorm_id(doc) as usize;
                    // The essential score is `lookup_one`'s, and the
                    // threshold finite (it is reached).
                    if self.look_up_from(cursors, doc, local, fid, score, t) {
                        self.score_doc_direct::<M>(cursors, doc, local, fid, t);
                    }
                    for &c in &self.lookups {
                        self.tfs[c][local] = 0;
                    }
                }
            }
        }
        for &(c, _) in &self.essential_weights {
            let tf: &mut [u32; WINDOW as usize] = self.tfs[c]
                .as_mut_slice()
                .try_into()
                .expect("a window's frequency array holds WINDOW entries");
            for (word_idx, &word) in touched[..words].iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    tf[(word_idx * 64 + bits.trailing_zeros() as usize) & MASK] = 0;
                    bits &= bits - 1;
                }
            }
        }
    }

    /// The essential cursors' postings in `base..end`, term at a time in
    /// query-term order: each document is marked in `touched` and the
    /// posting's term score added to the document's slot in `sums` (so a
    /// slot holds the f32 sum, from 0, of its essential terms' scores in
    /// query-term order); with `TFS` the frequency is also written to the
    /// cursor's array. One group.
    #[inline(always)]
    fn gather_sums<const TFS: bool>(&mut self, cursors: &mut [Cursor], base: DocId, end: DocId) {
        let norms = &self.groups[0].norm;
        // `local` is below `end - base <= WINDOW`: the mask and the
        // fixed-size arrays only spare the bounds checks.
        const MASK: usize = WINDOW as usize - 1;
        let sums: &mut [Score; WINDOW as usize] = self
            .sums
            .as_mut_slice()
            .try_into()
            .expect("the window's sums hold WINDOW entries");
        for &(c, tw) in &self.essential_weights {
            let postings = &mut cursors[c].postings;
            if postings.doc() < base {
                postings.seek(base);
            }
            let tf: &mut [u32; WINDOW as usize] = self.tfs[c]
                .as_mut_slice()
                .try_into()
                .expect("a window's frequency array holds WINDOW entries");
            let (touched, fieldnorms) = (&mut self.touched, &self.fieldnorms);
            postings.for_each_before(end, |doc, f| {
                let local = (doc - base) as usize & MASK;
                touched[local / 64] |= 1 << (local % 64);
                if TFS {
                    tf[local] = f;
                }
                let norm = norms[fieldnorms.fieldnorm_id(doc) as usize];
                let x = f as Score;
                sums[local] += tw * (x / (x + norm));
            });
        }
    }

    /// A plain query's window (one group; nothing filtered and no
    /// membership words, or [`SegmentScan::doc_threshold`]) whose
    /// only cursor is essential and none is looked up (a
    /// one-term query, or a segment with one of its terms): its postings
    /// are walked directly, each document's score is computed on its
    /// posting by the f32 operations of [`SegmentScan::one_group_score`]
    /// (from 0, the one term), and a document reaching the lowest threshold
    /// of the live variants is offered as [`SegmentScan::score_doc_direct`]
    /// offers it. Nothing is written to the window's arrays.
    pub(super) fn documents_single<const M: bool>(
        &mut self,
        cursors: &mut [Cursor],
        base: DocId,
        end: DocId,
    ) {
        #[cfg(test)]
        crate::bm25::tests::SINGLE_WINDOWS.with(|c| c.set(c.get() + 1));
        let (e, tw) = self.essential_weights[0];
        let postings = &mut cursors[e].postings;
        if postings.doc() < base {
            postings.seek(base);
        }
        postings.for_each_before(end, |doc, tf| {
            let norm = self.groups[0].norm[self.fieldnorms.fieldnorm_id(doc) as usize];
            let mut score: Score = 0.0;
            let x = tf as Score;
            score += tw * (x / (x + norm));
            if score >= self.group_thresholds[0]
                && let Some(t) = self.doc_threshold::<M>(doc)
                && score >= t
            {
                self.offer_direct::<M>(doc, score);
            }
        });
    }

    /// A plain query's window with two or more cursors, all essential
    /// (none looked up): while their postings are gathered (term at a
    /// time, in query-term order: the cursors are in term order), each
    /// posting's term score is added to its document's slot in `sums`, so
    /// that a slot ends up holding exactly the score
    /// [`SegmentScan::one_group_score`] computes (the same f32 operations,
    /// from 0, over the same terms in the same order). Then, in doc id
    /// order, a document reaching the lowest threshold of the live
    /// variants is offered as [`SegmentScan::score_doc_direct`] offers
    /// it. The frequency arrays are not written.
    pub(super) fn documents_complete<const M: bool>(
        &mut self,
        cursors: &mut [Cursor],
        base: DocId,
        end: DocId,
    ) {
        #[cfg(test)]
        crate::bm25::tests::COMPLETE_WINDOWS.with(|c| c.set(c.get() + 1));
        // `local` is below `end - base <= WINDOW`: the mask only spares
        // the bounds checks.
        const MASK: usize = WINDOW as usize - 1;
        self.gather_sums::<false>(cursors, base, end);
        for word_idx in 0..self.touched_words {
            let mut bits = std::mem::take(&mut self.touched[word_idx]);
            while bits != 0 {
                let local = (word_idx * 64 + bits.trailing_zeros() as usize) & MASK;
                bits &= bits - 1;
                let score = std::mem::take(&mut self.sums[local]);
                let doc = base + local as DocId;
                if score >= self.group_thresholds[0]
                    && let Some(t) = self.doc_threshold::<M>(doc)
                    && score >= t
                {
                    self.offer_direct::<M>(doc, score);
                }
            }
        }
    }

    /// [`SegmentScan::lookup`] with one group: the same sums and tests,
    /// with the essential terms' weights read from `essential_weights`;
    /// false also when the document's whole score (summed in another
    /// order) cannot reach the threshold.
    #[inline(always)]
    pub(super) fn lookup_one(
        &mut self,
        cursors: &mut [Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
    ) -> bool {
        let t = self.group_thresholds[0];
        if t == Score::INFINITY {
            self.partial[0] = Score::NEG_INFINITY;
            return self.lookups.is_empty();
        }
        let w = &self.groups[0];
        let norm = w.norm[fid];
        let mut score: Score = 0.0;
        for &(c, tw) in &self.essential_weights {
            let tf = self.tfs[c][local];
            if tf != 0 {
                let tf = tf as Score;
                score += tw * (tf / (tf + norm));
            }
        }
        self.look_up_from(cursors, doc, local, fid, score, t)
    }

    /// The lookups of [`SegmentScan::lookup_one`] given the essential
    /// terms' `score` (summed as `lookup_one` sums it) and the document's
    /// threshold `t` (not infinite).
    #[inline(always)]
    fn look_up_from(
        &mut self,
        cursors: &mut [Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
        mut score: Score,
        t: Score,
    ) -> bool {
        let n = cursors.len();
        let w = &self.groups[0];
        let norm = w.norm[fid];
        for (&c, &rest) in self.lookups.iter().zip(&self.rest) {
            if !may_reach(score + rest, n, t) {
                self.partial[0] = score;
                return false;
            }
            let cursor = &mut cursors[c];
            if let Some(tf) = look_up_tf(&mut cursor.postings, doc, &mut self.tfs[c][local]) {
                score += w.term_weight[cursor.term_idx] * (tf / (tf + norm));
            }
        }
        self.partial[0] = score;
        // Every term looked up: the score summed in another order than
        // the query's, which the margin covers.
        may_reach(score, n, t)
    }

    /// [`SegmentScan::score_doc`] with one group, for a document whose
    /// threshold is `t` (the lowest of the live variants that may return
    /// it, see [`SegmentScan::doc_threshold`]): the score is summed as
    /// [`SegmentScan::group_score`] sums it (query-term order: cursors are
    /// in term order), and a document below `t` is dropped before any
    /// variant is looked at.
    #[inline(always)]
    pub(super) fn score_doc_direct<const M: bool>(
        &mut self,
        cursors: &[Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
        t: Score,
    ) {
        let score = self.one_group_score(cursors, local, fid);
        if score < t {
            return;
        }
        self.offer_direct::<M>(doc, score);
    }

    /// The threshold a document of the direct paths must reach, asked only
    /// of one that reaches `group_thresholds[0]` (the lowest threshold of
    /// the live variants), or `None` when no variant may return it.
    /// Nothing filtered: `group_thresholds[0]`. One variant: the same, if
    /// the variant may return `doc` (not deleted, and in its subset: from
    /// its membership word when there are membership words). Several
    /// variants of one group with membership words: the lowest threshold
    /// of the live variants whose subsets hold `doc` (see
    /// [`SegmentScan::effective`]); its word is kept for
    /// [`SegmentScan::offer_direct`]. The general path asks the same of
    /// every touched document first; asked here only of the documents that
    /// reach the lowest threshold, the offers are the same.
    #[inline(always)]
    fn doc_threshold<const M: bool>(&mut self, doc: DocId) -> Option<Score> {
        if !self.admitting {
            return Some(self.group_thresholds[0]);
        }
        if !self.alive.is_none_or(|a| a.is_alive(doc)) {
            return None;
        }
        match self.masks {
            Some((masks, _)) if M => {
                self.doc_bits = masks.get(doc);
                let t = self.effective(self.doc_bits);
                (t != Score::INFINITY).then_some(t)
            }
            Some((masks, need)) => {
                let v = self.active[0].0;
                (masks.get(doc) & need[v] == need[v]).then_some(self.group_thresholds[0])
            }
            None => {
                let v = self.active[0].0;
                self.subsets[v]
                    .is_none_or(|set| set.contains(doc))
                    .then_some(self.group_thresholds[0])
            }
        }
    }

    /// [`SegmentScan::score_doc_direct`]'s offer of `doc` with `score`
    /// (at least its threshold) to every live variant whose threshold it
    /// reaches and, with several variants and membership words, whose
    /// subset holds it (`doc_bits`); then `group_thresholds[0]` refreshed
    /// (and the cache of [`SegmentScan::effective`] emptied) if a
    /// threshold changed.
    #[inline(always)]
    fn offer_direct<const M: bool>(&mut self, doc: DocId, score: Score) {
        let mut ord: Option<u32> = None;
        let mut changed = false;
        for i in 0..self.active.len() {
            if self.live[i] && score >= self.thresholds[i] && (!M || self.holds(i)) {
                changed |= self.offer(i, doc, score, &mut ord);
            }
        }
        if changed {
            if M {
                self.effective_cache.fill(None);
            }
            let mut t = Score::INFINITY;
            for (&live, &ti) in self.live.iter().zip(&self.thresholds) {
                if live {
                    t = t.min(ti);
                }
            }
            self.group_thresholds[0] = t;
        }
    }

    /// With one group: the score of the document at `local` (fieldnorm id
    /// `fid`) straight from the frequency arrays, summed in query-term
    /// order (cursors are in term order), as [`SegmentScan::group_score`]
    /// sums it, without gathering the terms first.
    #[inline(always)]
    pub(super) fn one_group_score(&self, cursors: &[Cursor], local: usize, fid: usize) -> Score {
        let w = &self.groups[0];
        let norm = w.norm[fid];
        let mut score: Score = 0.0;
        for (c, tf) in cursors.iter().zip(&self.tfs) {
            let tf = tf[local];
            if tf != 0 {
                let tf = tf as Score;
                score += w.term_weight[c.term_idx] * (tf / (tf + norm));
            }
        }
        score
    }
}
