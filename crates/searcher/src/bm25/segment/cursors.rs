//! The cursors of one segment's scoring: one per query term with
//! postings there, with the term's bounds (over the query's groups of
//! weights, from its weights alone or from the segment's block-max
//! frontiers) and the bound of any window of doc ids; MaxScore's lookup of
//! a non-essential term.

use sieve_format::bounds::{BLOCK_DOCS, Point, TermBounds};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, Score, TERMINATED, Term};

use super::{BOUND_SLACK, SegmentInput};
use crate::bm25::Weights;
use crate::bm25::postings::BlockPostings;
use crate::{Error, Result};

/// One term's postings cursor in a segment.
pub(super) struct Cursor {
    pub(super) term_idx: usize,
    pub(super) postings: BlockPostings,
    /// The largest contribution the term can make to any variant's score.
    pub(super) bound: Score,
    /// The last grid block of each block-max entry (see
    /// [`sieve_format::bounds::TermBounds`]); empty without bounds.
    pub(super) lasts: Vec<u32>,
    /// Each entry's bound, over the variants of this query.
    pub(super) entry_bounds: Vec<Score>,
    /// The first entry not before the current window.
    pub(super) next_entry: usize,
    /// With several groups: the term's bound for each group alone
    /// (`bound` is at least their largest).
    pub(super) group_bound: Vec<Score>,
    /// With several groups and block-max bounds: each entry's bound for
    /// each group alone, entry-major (`entry_bounds` is at least their
    /// largest).
    pub(super) group_entry_bounds: Vec<Score>,
}

/// The largest score contribution of term `term_idx` over the groups'
/// weights and `points`, inflated by `BOUND_SLACK` and never above `cap`
/// (itself a bound).
fn frontier_bound(points: &[Point], term_idx: usize, groups: &[Weights], cap: Score) -> Score {
    let mut m: Score = 0.0;
    for w in groups {
        let tw = w.term_weight[term_idx];
        for p in points {
            let tf = p.tf as Score;
            m = m.max(tw * (tf / (tf + w.norm[p.fid as usize])));
        }
    }
    (m * (1.0 + BOUND_SLACK)).min(cap)
}

impl Cursor {
    /// A bound of the term's contribution to the documents `base..end`
    /// (windows must come in increasing order).
    #[inline]
    pub(super) fn window_bound(&mut self, base: DocId, end: DocId) -> Score {
        if self.postings.doc() >= end {
            return 0.0;
        }
        if self.lasts.is_empty() {
            return self.bound;
        }
        let (first, last) = (base / BLOCK_DOCS, (end - 1) / BLOCK_DOCS);
        while self.next_entry < self.lasts.len() && self.lasts[self.next_entry] < first {
            self.next_entry += 1;
        }
        let mut m: Score = 0.0;
        let mut i = self.next_entry;
        while i < self.lasts.len() {
            m = m.max(self.entry_bounds[i]);
            if self.lasts[i] >= last {
                break;
            }
            i += 1;
        }
        m
    }

    /// [`Cursor::window_bound`] for each group alone, into `out` (one per
    /// group); returns their largest.
    #[inline]
    pub(super) fn window_group_bounds(
        &mut self,
        base: DocId,
        end: DocId,
        out: &mut [Score],
    ) -> Score {
        if self.postings.doc() >= end {
            out.fill(0.0);
            return 0.0;
        }
        if self.lasts.is_empty() {
            out.copy_from_slice(&self.group_bound);
            return out.iter().copied().fold(0.0, Score::max);
        }
        let (first, last) = (base / BLOCK_DOCS, (end - 1) / BLOCK_DOCS);
        while self.next_entry < self.lasts.len() && self.lasts[self.next_entry] < first {
            self.next_entry += 1;
        }
        let ng = out.len();
        out.fill(0.0);
        let mut i = self.next_entry;
        while i < self.lasts.len() {
            for (m, &b) in out
                .iter_mut()
                .zip(&self.group_entry_bounds[i * ng..(i + 1) * ng])
            {
                *m = m.max(b);
            }
            if self.lasts[i] >= last {
                break;
            }
            i += 1;
        }
        out.iter().copied().fold(0.0, Score::max)
    }
}

/// MaxScore's lookup of a non-essential cursor: moves `postings` to `doc`
/// and, if `doc` holds the term, records its frequency in `tf_slot` (the
/// window's frequency array) and returns it.
#[inline(always)]
pub(super) fn look_up_tf(
    postings: &mut BlockPostings,
    doc: DocId,
    tf_slot: &mut u32,
) -> Option<Score> {
    postings.seek_near(doc);
    (postings.doc() == doc).then(|| {
        let tf = postings.term_freq();
        *tf_slot = tf;
        tf as Score
    })
}

/// A cursor per query term with postings in the segment and a weight in
/// some group, with its bounds (over the groups' distinct weights).
pub(super) fn open_cursors(
    seg: &SegmentInput<'_>,
    terms: &[(Term, Score)],
    groups: &[Weights],
) -> Result<Vec<Cursor>> {
    let inverted = seg.segment.inverted_index(seg.field)?;
    let index_err = |e: std::io::Error| Error::Index {
        index: seg.index.to_string(),
        detail: e.to_string(),
    };
    let mut cursors = Vec::with_capacity(terms.len());
    for (term_idx, (term, _)) in terms.iter().enumerate() {
        let bound = groups
            .iter()
            .map(|w| w.term_weight[term_idx])
            .fold(0.0 as Score, Score::max);
        if bound == 0.0 {
            continue;
        }
        let Some(info) = inverted.get_term_info(term).map_err(index_err)? else {
            continue;
        };
        let postings = BlockPostings::new(
            inverted
                .read_block_postings_from_terminfo(&info, IndexRecordOption::WithFreqs)
                .map_err(index_err)?,
        );
        if postings.doc() == TERMINATED {
            continue;
        }
        let mut cursor = Cursor::new(term_idx, postings, bound, groups);
        if let Some(b) = seg.bounds
            && info.doc_freq >= sieve_format::bounds::MIN_DOC_FREQ
        {
            let ord = inverted
                .terms()
                .term_ord(term.serialized_value_bytes())
                .map_err(index_err)?;
            if let Some(tb) = ord
                .map(|o| b.term(seg.field_name, o))
                .transpose()?
                .flatten()
            {
                cursor.bound_by_frontiers(tb, groups);
            }
        }
        cursors.push(cursor);
    }
    Ok(cursors)
}

impl Cursor {
    /// The cursor of term `term_idx` over `postings`, bounded by `bound`
    /// (its largest weight over the groups) and, with several groups, by
    /// each group's weight; no block-max entries.
    fn new(term_idx: usize, postings: BlockPostings, bound: Score, groups: &[Weights]) -> Cursor {
        let group_bound: Vec<Score> = if groups.len() > 1 {
            groups.iter().map(|w| w.term_weight[term_idx]).collect()
        } else {
            Vec::new()
        };
        Cursor {
            term_idx,
            postings,
            bound,
            lasts: Vec::new(),
            entry_bounds: Vec::new(),
            next_entry: 0,
            group_bound,
            group_entry_bounds: Vec::new(),
        }
    }

    /// Tightens the cursor's bounds with the term's block-max frontiers
    /// `tb` (over all its postings, and per entry), for all the groups and,
    /// with several, for each group alone.
    fn bound_by_frontiers(&mut self, tb: TermBounds, groups: &[Weights]) {
        let term_idx = self.term_idx;
        let bound = frontier_bound(&tb.global, term_idx, groups, self.bound);
        self.bound = bound;
        self.entry_bounds = (0..tb.lasts.len())
            .map(|i| frontier_bound(tb.entry(i), term_idx, groups, bound))
            .collect();
        if groups.len() > 1 {
            let group_bound = &mut self.group_bound;
            for (g, b) in group_bound.iter_mut().enumerate() {
                *b = frontier_bound(&tb.global, term_idx, &groups[g..=g], *b);
            }
            self.group_entry_bounds = (0..tb.lasts.len())
                .flat_map(|i| {
                    let points = tb.entry(i);
                    (0..groups.len()).map(move |g| (points, g))
                })
                .map(|(points, g)| frontier_bound(points, term_idx, &groups[g..=g], group_bound[g]))
                .collect();
        }
        self.lasts = tb.lasts;
    }
}
