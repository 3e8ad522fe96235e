//! Scoring one segment: windows of doc ids, MaxScore, block-max bounds.
//!
//! Documents are scored together, window by window. Per window of doc ids,
//! the term frequencies of every *essential* query term's postings in the
//! window are gathered into dense arrays (term at a time; Lucene's
//! `BooleanScorer` uses 2048-doc windows), the other terms' frequencies are
//! looked up only for the documents that may still reach a top k (by
//! `seek`), and each such document is scored from its frequencies **in
//! query-term order**, so its sum has exactly the terms and the order of a
//! document-at-a-time evaluation (scores are bit-identical).
//!
//! **MaxScore** (Turtle and Flood 1995). Once a threshold is known (every
//! heap full, or a floor carried from earlier segments, see `topk`), the
//! terms with the smallest upper bounds whose bounds sum to less than
//! every variant's threshold cannot bring a document into any top k on
//! their own: they are *non-essential*, their postings are not scanned,
//! only looked up. A term's bound is its largest weight over the variants
//! (`tf / (tf + norm) <= 1`), or, when the segment has block-max bounds for
//! the term, the largest score over the variants of the points of its
//! frontier (see [`sieve_format::bounds`]), inflated by [`BOUND_SLACK`].
//! When no term is essential the segment is done. Before the
//! non-essential terms are looked up for a document, the document's
//! score from the essential terms plus the non-essential terms' bounds
//! must reach the threshold. With one group and nothing filtered, that
//! test is made before the document is gathered when a single term is
//! essential ([`SegmentScan::documents_one_essential`]), and with several
//! essential terms their sum is accumulated per document while their
//! postings are gathered ([`SegmentScan::documents_summed`]); either way
//! it is the same sum, in the same order, as the test's.
//!
//! **One setting with a filter** (one variant with a subset, from a bitmap
//! or the membership words of a prepared batch, or deleted documents)
//! takes the same direct paths as a plain query: only a document that
//! reaches the threshold is tested against the filter
//! ([`SegmentScan::admits`]), and one the filter refuses is neither
//! looked up nor offered, as the general path, which tests every touched
//! document first, would have dropped it.
//!
//! **Every term essential.** With one group and nothing filtered, a window
//! in which no term is looked up (no threshold yet, or every term's bound
//! needed) writes no frequency array: with one cursor its postings are
//! scored as they are walked ([`SegmentScan::documents_single`]), with
//! several each posting's term score is added to its document's sum while
//! the postings are gathered, term at a time in query-term order
//! ([`SegmentScan::documents_complete`]). Either way a document's score is
//! the f32 sum, from 0, of its terms' scores in query-term order, bit for
//! bit the score computed from the arrays, and a document reaching the
//! lowest threshold of the live variants is offered in doc id order.
//!
//! **Block-max.** When the segment has block-max bounds, windows are one
//! grid block (`BLOCK_DOCS` doc ids), and each window gets its own bounds:
//! per term, the largest score of the frontier of the entry covering the
//! block (0 when the term has no posting in the window), computed once per
//! query and segment for every entry. When those bounds sum below every
//! threshold, no document of the window can enter any top k, and the
//! window is skipped; otherwise MaxScore's rule is applied again with the
//! window's bounds, so fewer terms are scanned.
//!
//! **Several variants.** Variants with bit-identical weights form a group
//! (see [`Groups`]): a document's score, MaxScore's partial sums and every
//! bound are computed once per group, and a group's partial score is
//! compared with the lowest threshold among its variants that may return
//! the document (the variants' own thresholds, heaps and subsets are kept
//! apart). Per window, a variant whose threshold the sum of the window's
//! bounds cannot reach is not *live*: it takes no document of the window
//! and is not looked at there. Which subsets hold a document is read from
//! the batch's membership words when the search has them (see
//! [`super::Membership`]), else asked of each subset's bitmap. With one
//! group and membership words, the lowest threshold of the live variants
//! that may return a document is cached per word, and a document whose
//! score is below it is dropped before any variant is looked at.
//!
//! **Several groups.** Each group also has its own bounds (per term and per
//! block-max entry) and its own threshold (the lowest of its variants'): a
//! term is non-essential only when it is for every group (so the skipped
//! terms' bounds sum, for every group, below its threshold), a window is
//! skipped when no group's bounds reach its threshold, and a variant is
//! live when its group's bounds reach its threshold. With 2 to [`LANES`]
//! groups and nothing filtered (several k1/b settings of one query), the
//! groups' scores are computed side by side, one lane of a fixed-size
//! array per group, by the same f32 operations in the same order as one
//! group's score (see [`SegmentScan::documents_lanes`]).
//!
//! Every comparison of a bound with a threshold drops a document only when
//! the bound is *strictly* below, with a relative margin ([`margin`]) that
//! covers the rounding of any f32 summation order, so ties (broken by
//! docid) are never lost, and bounds hold for every document, filtered out
//! or not. Memory is `WINDOW` frequencies per query term, whatever the
//! segment size.

use roaring::RoaringBitmap;
use sieve_format::bounds::{BLOCK_DOCS, Point, SegmentBounds};
use std::sync::Arc;

use tantivy::columnar::{ColumnIndex, ColumnValues, StrColumn};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, Score, SegmentReader, TERMINATED, Term};

use super::membership::Masks;
use super::postings::BlockPostings;
use super::topk::{Candidate, TopK};
use super::{Groups, Shard, Weights};
use crate::{Error, Result};

/// Doc ids per window when the segment has no block-max bounds.
const WINDOW: u32 = 4096;

/// The most groups whose scores [`SegmentScan::documents_lanes`] computes
/// side by side (as the lanes of a fixed-size array).
const LANES: usize = 8;

/// Relative inflation of a bound computed from frontier points. The real
/// BM25 term score is monotonic in tf and fieldnorm; its f32 evaluation is
/// exactly monotonic in the fieldnorm (every operation is) but only to a
/// few ulps in tf (the denominator is rounded), far below this slack
/// (about 17 ulps).
const BOUND_SLACK: Score = 1e-6;

/// The relative margin by which a sum of `n` bounds must fall below a
/// threshold before anything is dropped: f32 sums of `n` non-negative
/// terms, in any order, differ from the exact sum by less than
/// `(n - 1) · 2^-24` of it; this is 1e-5 plus four times that.
fn margin(n: usize) -> Score {
    1e-5 + n as Score * 2.4e-7
}

/// True when a sum `sum` of `n` bounds may reach `threshold`.
#[inline]
fn may_reach(sum: Score, n: usize, threshold: Score) -> bool {
    sum * (1.0 + margin(n)) >= threshold
}

/// One term's postings cursor in a segment.
struct Cursor {
    term_idx: usize,
    postings: BlockPostings,
    /// The largest contribution the term can make to any variant's score.
    bound: Score,
    /// The last grid block of each block-max entry (see
    /// [`sieve_format::bounds::TermBounds`]); empty without bounds.
    lasts: Vec<u32>,
    /// Each entry's bound, over the variants of this query.
    entry_bounds: Vec<Score>,
    /// The first entry not before the current window.
    next_entry: usize,
    /// With several groups: the term's bound for each group alone
    /// (`bound` is at least their largest).
    group_bound: Vec<Score>,
    /// With several groups and block-max bounds: each entry's bound for
    /// each group alone, entry-major (`entry_bounds` is at least their
    /// largest).
    group_entry_bounds: Vec<Score>,
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
    fn window_bound(&mut self, base: DocId, end: DocId) -> Score {
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
    fn window_group_bounds(&mut self, base: DocId, end: DocId, out: &mut [Score]) -> Score {
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

/// Marks in `skip` the cursors that are not essential for any group: a
/// cursor is skipped only when [`non_essential`] marks it for every group,
/// given the group's own bounds (`bounds`, cursor-major, `thresholds.len()`
/// per cursor) and threshold (negative infinity: none yet). The skipped
/// cursors' bounds sum, for every group, below the group's threshold, so a
/// document with only those terms enters no top k. `order`, `column` and
/// `group_skip` are scratch space.
fn non_essential_groups(
    bounds: &[Score],
    thresholds: &[Score],
    order: &mut Vec<usize>,
    column: &mut Vec<Score>,
    group_skip: &mut [bool],
    skip: &mut [bool],
) {
    let ng = thresholds.len();
    skip.fill(true);
    for (g, &t) in thresholds.iter().enumerate() {
        if t == Score::NEG_INFINITY {
            skip.fill(false);
            return;
        }
        column.clear();
        column.extend(bounds.chunks_exact(ng).map(|b| b[g]));
        non_essential(column, t, order, group_skip);
        let mut any = false;
        for (s, &gs) in skip.iter_mut().zip(group_skip.iter()) {
            *s &= gs;
            any |= *s;
        }
        if !any {
            // Every cursor is essential for some group already.
            return;
        }
    }
}

/// Each group's lowest threshold over the variants picked (`active[i]`
/// is variant i's (variant, group), `thresholds[i]` its threshold,
/// `picked[i]` whether it counts), into `out` (infinity: none picked).
#[inline]
fn lowest_per_group(
    out: &mut [Score],
    active: &[(usize, usize)],
    thresholds: &[Score],
    picked: &[bool],
) {
    out.fill(Score::INFINITY);
    for ((&(_, g), &t), &p) in active.iter().zip(thresholds).zip(picked) {
        if p {
            out[g] = out[g].min(t);
        }
    }
}

/// MaxScore's lookup of a non-essential cursor: moves `postings` to `doc`
/// and, if `doc` holds the term, records its frequency in `tf_slot` (the
/// window's frequency array) and returns it.
#[inline(always)]
fn look_up_tf(postings: &mut BlockPostings, doc: DocId, tf_slot: &mut u32) -> Option<Score> {
    postings.seek_near(doc);
    (postings.doc() == doc).then(|| {
        let tf = postings.term_freq();
        *tf_slot = tf;
        tf as Score
    })
}

/// Marks in `skip` the cursors that are not essential: the longest run of
/// the smallest `bounds` (one per cursor) whose sum stays below
/// `threshold`. `order` is scratch space.
fn non_essential(bounds: &[Score], threshold: Score, order: &mut Vec<usize>, skip: &mut [bool]) {
    order.clear();
    order.extend(0..bounds.len());
    order.sort_unstable_by(|&a, &b| bounds[a].total_cmp(&bounds[b]).then(a.cmp(&b)));
    skip.fill(false);
    let mut sum: Score = 0.0;
    for (n, &c) in order.iter().enumerate() {
        sum += bounds[c];
        if may_reach(sum, n + 1, threshold) {
            break;
        }
        skip[c] = true;
    }
}

/// One segment to score.
pub(super) struct SegmentInput<'a> {
    pub(super) segment: &'a SegmentReader,
    pub(super) field: Field,
    pub(super) field_name: &'static str,
    pub(super) bounds: Option<&'a SegmentBounds>,
}

/// A cursor per query term with postings in the segment and a weight in
/// some group, with its bounds (over the groups' distinct weights).
fn open_cursors(
    seg: &SegmentInput<'_>,
    terms: &[(Term, u32)],
    groups: &[Weights],
    shard: &Shard,
) -> Result<Vec<Cursor>> {
    let inverted = seg.segment.inverted_index(seg.field)?;
    let index_err = |e: std::io::Error| Error::Index {
        index: shard.name.clone(),
        detail: e.to_string(),
    };
    let mut cursors = Vec::with_capacity(terms.len());
    for (term_idx, (term, _)) in terms.iter().enumerate() {
        let mut bound = groups
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
        let (mut lasts, mut entry_bounds) = (Vec::new(), Vec::new());
        let mut group_bound: Vec<Score> = if groups.len() > 1 {
            groups.iter().map(|w| w.term_weight[term_idx]).collect()
        } else {
            Vec::new()
        };
        let mut group_entry_bounds = Vec::new();
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
                bound = frontier_bound(&tb.global, term_idx, groups, bound);
                entry_bounds = (0..tb.lasts.len())
                    .map(|i| frontier_bound(tb.entry(i), term_idx, groups, bound))
                    .collect();
                if groups.len() > 1 {
                    for (g, b) in group_bound.iter_mut().enumerate() {
                        *b = frontier_bound(&tb.global, term_idx, &groups[g..=g], *b);
                    }
                    group_entry_bounds = (0..tb.lasts.len())
                        .flat_map(|i| {
                            let points = tb.entry(i);
                            (0..groups.len()).map(move |g| (points, g))
                        })
                        .map(|(points, g)| {
                            frontier_bound(points, term_idx, &groups[g..=g], group_bound[g])
                        })
                        .collect();
                }
                lasts = tb.lasts;
            }
        }
        cursors.push(Cursor {
            term_idx,
            postings,
            bound,
            lasts,
            entry_bounds,
            next_entry: 0,
            group_bound,
            group_entry_bounds,
        });
    }
    Ok(cursors)
}

/// What the scoring of one segment reads and fills, besides the cursors.
struct SegmentScan<'a> {
    /// (variant, group) of each variant that scores this query.
    active: Vec<(usize, usize)>,
    /// The groups' weights (see [`Groups`]).
    groups: &'a [Weights],
    subsets: &'a [Option<&'a RoaringBitmap>],
    /// The segment's membership words and, per variant, the bit its
    /// subset has there (0: none); when present they replace `subsets`.
    masks: Option<(&'a Masks, &'a [u64])>,
    heaps: &'a mut [TopK],
    fieldnorms: tantivy::fieldnorm::FieldNormReader,
    alive: Option<&'a tantivy::fastfield::AliveBitSet>,
    docids: &'a StrColumn,
    /// The docid ordinal of each document, read directly when every
    /// document has one (the `docid` column is full): `term_ords` would
    /// first map the document to its value rows.
    ords: Option<Arc<dyn ColumnValues<u64>>>,
    tfs: Vec<Vec<u32>>,
    /// Per window of [`SegmentScan::documents_summed`]: each document's
    /// essential sum (all zero between windows).
    sums: Vec<Score>,
    touched: [u64; WINDOW as usize / 64],
    /// The words of `touched` the current window uses (a block-max window
    /// is shorter than [`WINDOW`]).
    touched_words: usize,
    /// Scratch, per window: the essential cursors, the non-essential ones
    /// in lookup order, and the sums of the latter's bounds from each on.
    essential: Vec<usize>,
    /// With one group: each essential cursor with its term's weight.
    essential_weights: Vec<(usize, Score)>,
    lookups: Vec<usize>,
    rest: Vec<Score>,
    /// Scratch, per document: each group's score so far (negative
    /// infinity for a group none of whose variants may return it).
    partial: Vec<Score>,
    /// Scratch, per group: the lowest threshold of its variants that may
    /// return the document (per window when nothing is filtered; infinity
    /// when none may).
    group_thresholds: Vec<Score>,
    /// Scratch: each group's full score of the document `group_docs`
    /// names (computed at most once per group and document).
    group_scores: Vec<Score>,
    group_docs: Vec<DocId>,
    /// Scratch, per document: its (term index, tf) in query-term order.
    doc_terms: Vec<(usize, Score)>,
    /// Each active variant's threshold (negative infinity when it has
    /// none yet): read at every window, updated after every push.
    thresholds: Vec<Score>,
    /// (membership word, [`SegmentScan::effective`] of it) in one of 32
    /// slots chosen by a hash of the word; emptied when a threshold or
    /// the window changes.
    effective_cache: Vec<Option<(u64, Score)>>,
    /// Scratch, per window: whether each active variant may take any of
    /// its documents (the window's bounds reach its threshold).
    live: Vec<bool>,
    /// With several groups, per window: each cursor's bound for each
    /// group alone, cursor-major (`groups.len()` per cursor).
    group_bounds: Vec<Score>,
    /// Scratch, per window with several groups: the sum of each group's
    /// bounds.
    group_sums: Vec<Score>,
    /// With 2 to [`LANES`] groups and nothing filtered (see
    /// [`SegmentScan::documents_lanes`]): per fieldnorm id, each group's
    /// `norm` (1 in the unused lanes).
    lane_norms: Vec<[Score; LANES]>,
    /// Per cursor (in query-term order), each group's weight of its term
    /// (0 in the unused lanes).
    lane_weights: Vec<[Score; LANES]>,
    /// Per window: the essential cursors with their weights per group.
    lane_essential: Vec<(usize, [Score; LANES])>,
    /// Per window: the non-essential cursors in lookup order, with their
    /// weights per group and the sums, per group, of the bounds of the
    /// cursors from each on.
    lane_lookups: Vec<(usize, [Score; LANES], [Score; LANES])>,
    /// Each group's lowest threshold over its live variants (infinity in
    /// the unused lanes), refreshed after every offer that changes one.
    lane_thresholds: [Score; LANES],
    /// True when some document may be refused by a variant (deleted
    /// documents, or a variant with a subset).
    filtering: bool,
    /// True when the direct paths of [`SegmentScan::window`] must ask
    /// [`SegmentScan::admits`] (something filtered, or membership words).
    admitting: bool,
    /// Scratch, per document when `filtering`: whether each active variant
    /// may return it.
    accepts: Vec<bool>,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn score_segment(
    seg: &SegmentInput<'_>,
    terms: &[(Term, u32)],
    groups: &Groups,
    subsets: &[Option<&RoaringBitmap>],
    masks: Option<(&Masks, &[u64])>,
    heaps: &mut [TopK],
    shard: &Shard,
    docids: &StrColumn,
) -> Result<()> {
    // (variant, group) of the variants that score this query.
    let active: Vec<(usize, usize)> = groups
        .of
        .iter()
        .enumerate()
        .filter_map(|(v, g)| g.map(|g| (v, g)))
        .collect();
    let mut cursors = open_cursors(seg, terms, &groups.weights, shard)?;
    if cursors.is_empty() {
        return Ok(());
    }
    let blockmax = cursors.iter().any(|c| !c.lasts.is_empty());
    let window = if blockmax { BLOCK_DOCS } else { WINDOW };
    let global: Vec<Score> = cursors.iter().map(|c| c.bound).collect();
    let mut scan = SegmentScan {
        active,
        groups: &groups.weights,
        subsets,
        masks,
        heaps,
        fieldnorms: seg.segment.get_fieldnorms_reader(seg.field)?,
        alive: seg.segment.alive_bitset(),
        docids,
        ords: match docids.ords().index {
            ColumnIndex::Full => Some(docids.ords().values.clone()),
            _ => None,
        },
        tfs: vec![vec![0; WINDOW as usize]; cursors.len()],
        sums: vec![0.0; WINDOW as usize],
        touched: [0u64; WINDOW as usize / 64],
        touched_words: 0,
        essential: Vec::with_capacity(cursors.len()),
        essential_weights: Vec::with_capacity(cursors.len()),
        lookups: Vec::with_capacity(cursors.len()),
        rest: Vec::with_capacity(cursors.len() + 1),
        partial: vec![0.0; groups.weights.len()],
        group_thresholds: vec![Score::INFINITY; groups.weights.len()],
        group_scores: vec![0.0; groups.weights.len()],
        group_docs: vec![TERMINATED; groups.weights.len()],
        thresholds: Vec::new(),
        doc_terms: Vec::with_capacity(cursors.len()),
        group_bounds: if groups.weights.len() > 1 {
            vec![0.0; cursors.len() * groups.weights.len()]
        } else {
            Vec::new()
        },
        group_sums: Vec::with_capacity(groups.weights.len()),
        lane_norms: Vec::new(),
        lane_weights: Vec::new(),
        lane_essential: Vec::with_capacity(cursors.len()),
        lane_lookups: Vec::with_capacity(cursors.len()),
        lane_thresholds: [Score::INFINITY; LANES],
        filtering: false,
        admitting: false,
        live: Vec::new(),
        effective_cache: vec![None; 32],
        accepts: Vec::new(),
    };
    scan.accepts = vec![true; scan.active.len()];
    scan.filtering =
        scan.alive.is_some() || scan.active.iter().any(|(v, _)| scan.subsets[*v].is_some());
    scan.admitting = scan.filtering || scan.masks.is_some();
    if scan.lanes() {
        let ws = &groups.weights;
        scan.lane_norms = (0..256)
            .map(|fid| std::array::from_fn(|g| ws.get(g).map_or(1.0, |w| w.norm[fid])))
            .collect();
        scan.lane_weights = cursors
            .iter()
            .map(|c| std::array::from_fn(|g| ws.get(g).map_or(0.0, |w| w.term_weight[c.term_idx])))
            .collect();
    }
    let mut order = Vec::with_capacity(cursors.len());
    let mut skip = vec![false; cursors.len()];
    let mut window_skip = vec![false; cursors.len()];
    let mut window_bounds = vec![0.0 as Score; cursors.len()];
    let mut last_threshold: Option<Score> = None;
    // With several groups, each group's own bounds and threshold decide
    // which cursors are essential (see `non_essential_groups`).
    let ng = groups.weights.len();
    let multi = ng > 1;
    let global_groups: Vec<Score> = cursors
        .iter()
        .flat_map(|c| c.group_bound.iter().copied())
        .collect();
    let mut group_t = vec![Score::NEG_INFINITY; ng];
    let mut last_group_t = vec![Score::NAN; ng];
    let mut column = Vec::with_capacity(cursors.len());
    let mut group_skip = vec![false; cursors.len()];
    loop {
        // The lowest threshold over the variants, once each has one.
        let threshold = scan.threshold();
        if multi {
            scan.group_threshold_floors(&mut group_t);
            let changed = group_t
                .iter()
                .zip(&last_group_t)
                .any(|(a, b)| a.to_bits() != b.to_bits());
            if changed {
                non_essential_groups(
                    &global_groups,
                    &group_t,
                    &mut order,
                    &mut column,
                    &mut group_skip,
                    &mut skip,
                );
                #[cfg(test)]
                if skip.iter().any(|s| *s) {
                    super::tests::PRUNED_WINDOWS.with(|n| n.set(n.get() + 1));
                }
                last_group_t.copy_from_slice(&group_t);
            }
        } else if threshold != last_threshold {
            if let Some(t) = threshold {
                non_essential(&global, t, &mut order, &mut skip);
                #[cfg(test)]
                if skip.iter().any(|s| *s) {
                    super::tests::PRUNED_WINDOWS.with(|n| n.set(n.get() + 1));
                }
            }
            last_threshold = threshold;
        }
        let first = cursors
            .iter()
            .zip(&skip)
            .filter(|(_, s)| !**s)
            .map(|(c, _)| c.postings.doc())
            .min()
            .unwrap_or(TERMINATED);
        if first == TERMINATED {
            break;
        }
        let base = first - first % window;
        let end = base.saturating_add(window);
        match threshold {
            Some(t) if blockmax => {
                if multi {
                    for ((b, c), out) in window_bounds
                        .iter_mut()
                        .zip(cursors.iter_mut())
                        .zip(scan.group_bounds.chunks_exact_mut(ng))
                    {
                        *b = c.window_group_bounds(base, end, out);
                    }
                    non_essential_groups(
                        &scan.group_bounds,
                        &group_t,
                        &mut order,
                        &mut column,
                        &mut group_skip,
                        &mut window_skip,
                    );
                } else {
                    for (b, c) in window_bounds.iter_mut().zip(cursors.iter_mut()) {
                        *b = c.window_bound(base, end);
                    }
                    non_essential(&window_bounds, t, &mut order, &mut window_skip);
                }
                if window_skip.iter().any(|s| !*s) {
                    scan.window(
                        &mut cursors,
                        &window_skip,
                        &window_bounds,
                        Some(t),
                        base,
                        end,
                    );
                } else {
                    #[cfg(test)]
                    super::tests::BLOCK_PRUNED_WINDOWS.with(|n| n.set(n.get() + 1));
                }
            }
            _ => {
                if multi {
                    scan.group_bounds.copy_from_slice(&global_groups);
                }
                scan.window(&mut cursors, &skip, &global, threshold, base, end)
            }
        }
        // The essential cursors this window did not scan: past it.
        for (c, s) in cursors.iter_mut().zip(&skip) {
            if !*s && c.postings.doc() < end {
                c.postings.seek(end);
            }
        }
    }
    Ok(())
}

impl SegmentScan<'_> {
    /// The lowest threshold over the active variants, if every one has one.
    #[inline]
    fn threshold(&self) -> Option<Score> {
        self.active
            .iter()
            .map(|&(v, _)| self.heaps[v].threshold())
            .try_fold(Score::INFINITY, |m, t| t.map(|t| m.min(t)))
    }

    /// Each group's lowest threshold over its variants, into `out`
    /// (negative infinity when one of them has none yet).
    fn group_threshold_floors(&self, out: &mut [Score]) {
        out.fill(Score::INFINITY);
        for &(v, g) in &self.active {
            let t = self.heaps[v].threshold().unwrap_or(Score::NEG_INFINITY);
            out[g] = out[g].min(t);
        }
    }

    /// Scores the documents `base..end` that the cursors not in `skip`
    /// have postings for. The skipped (non-essential) cursors are looked up
    /// for such a document one at a time, largest `bounds` first, only
    /// while the document's best score so far over the variants plus the
    /// bounds of the cursors not yet looked up may still reach
    /// `threshold` (MaxScore's document-level test).
    fn window(
        &mut self,
        cursors: &mut [Cursor],
        skip: &[bool],
        bounds: &[Score],
        threshold: Option<Score>,
        base: DocId,
        end: DocId,
    ) {
        // The non-essential cursors, largest bound first, and the sums of
        // the bounds from each on.
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
        let threshold = threshold.filter(|_| !self.lookups.is_empty());
        let n = cursors.len();
        // Each variant's threshold now (they only rise: a value read
        // earlier stays safe to prune with).
        self.thresholds.clear();
        for &(v, _) in &self.active {
            let t = self.heaps[v].threshold().unwrap_or(Score::NEG_INFINITY);
            self.thresholds.push(t);
        }
        // Which variants may take any document of the window at all: no
        // document scores more than the sum of the window's bounds, so a
        // variant whose threshold that sum cannot reach takes none (in a
        // sweep, the lax thresholds are high: most windows are then only
        // for the documents of the strict subsets, and the others are not
        // scored).
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
            for (&(_, g), &t) in self.active.iter().zip(&self.thresholds) {
                self.live.push(may_reach(self.group_sums[g], n, t));
            }
        } else {
            let bound_sum: Score = bounds.iter().sum();
            for &t in &self.thresholds {
                self.live.push(may_reach(bound_sum, n, t));
            }
        }
        if self.masks.is_some() {
            self.effective_cache.fill(None);
        }
        self.touched_words = ((end - base) as usize).div_ceil(64);
        // A plain query (one group, nothing filtered, no membership words)
        // or one setting with a filter: the direct paths, which test
        // `admits` on a document that reaches the threshold.
        let direct = self.groups.len() == 1 && (!self.admitting || self.active.len() == 1);
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
            match (threshold.is_some(), self.essential.len()) {
                (true, 1) => self.documents_one_essential(cursors, base, end, n),
                (true, _) => self.documents_summed(cursors, base, end, n),
                (false, 1) => self.documents_single(cursors, base, end),
                (false, _) => self.documents_complete(cursors, base, end),
            }
            return;
        }
        self.gather(cursors, skip, base, end);
        if self.lanes() {
            self.prepare_lanes();
            if ng <= 4 {
                self.documents_lanes::<4>(cursors, base, n);
            } else {
                self.documents_lanes::<LANES>(cursors, base, n);
            }
            return;
        }
        self.for_each_touched(base, |s, doc, local| {
            if let Some((masks, _)) = s.masks
                && s.groups.len() == 1
            {
                // One group (a sweep with full statistics): the
                // document's membership word gives, through a small
                // cache, the lowest threshold of the live variants
                // that may return it, and a document scoring below it
                // is dropped without looking at the variants.
                if s.alive.is_none_or(|a| a.is_alive(doc)) {
                    let bits = masks.get(doc);
                    let eff = s.effective(bits);
                    if eff != Score::INFINITY {
                        let fid = s.fieldnorms.fieldnorm_id(doc) as usize;
                        s.group_thresholds[0] = eff;
                        if threshold.is_none() || s.lookup(cursors, doc, local, fid, n) {
                            let score = s.one_group_score(cursors, local, fid);
                            s.score_doc_one_group(doc, score, bits);
                        }
                    }
                }
                return;
            }
            let fid = s.fieldnorms.fieldnorm_id(doc) as usize;
            // Which variants may return the document (deleted, or
            // filtered out): none, and it is not looked at further.
            let wanted = !s.filtering || {
                let alive = s.alive.is_none_or(|a| a.is_alive(doc));
                let accepts = s.accepts.iter_mut().zip(&s.active).zip(&s.live);
                if let Some((masks, need)) = s.masks {
                    let bits = masks.get(doc);
                    for ((a, &(v, _)), &live) in accepts {
                        *a = alive && live && bits & need[v] == need[v];
                    }
                } else {
                    for ((a, &(v, _)), &live) in accepts {
                        *a = alive && live && s.subsets[v].is_none_or(|set| set.contains(doc));
                    }
                }
                s.accepts.iter().any(|a| *a)
            };
            if wanted {
                if threshold.is_none() {
                    s.score_doc(cursors, doc, local, fid, false);
                } else {
                    if s.filtering {
                        s.accepting_group_thresholds();
                    }
                    if s.lookup(cursors, doc, local, fid, n) {
                        s.score_doc(cursors, doc, local, fid, true);
                    }
                }
            }
        });
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

    /// A plain query's window (one group; nothing filtered and no
    /// membership words, or one variant and [`SegmentScan::admits`]) with
    /// MaxScore's lookups and a single essential cursor (the
    /// window of a dense term whose partners are all non-essential): its
    /// postings are walked directly, in doc id order, and MaxScore's first
    /// test of [`SegmentScan::lookup_one`] (the essential term's score
    /// plus every lookup's bound against the threshold) is made on the
    /// posting, with the same f32 operations, so a document that fails it
    /// (most of them) is never written to the frequency arrays. A document
    /// that passes goes through [`SegmentScan::look_up_from`] (the rest of
    /// `lookup_one`) and [`SegmentScan::score_doc_unfiltered`], and its
    /// frequencies are cleared after.
    fn documents_one_essential(
        &mut self,
        cursors: &mut [Cursor],
        base: DocId,
        end: DocId,
        n: usize,
    ) {
        #[cfg(test)]
        super::tests::ONE_ESSENTIAL_WINDOWS.with(|c| c.set(c.get() + 1));
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
            if !may_reach(score + rest, n, self.group_thresholds[0])
                || (self.admitting && !self.admits(doc))
            {
                continue;
            }
            let local = (doc - base) as usize & (WINDOW as usize - 1);
            self.tfs[e][local] = tf;
            // The essential score is `lookup_one`'s, and the threshold
            // finite (it is reached).
            if self.look_up_from(cursors, doc, local, fid, n, score) {
                self.score_doc_unfiltered(cursors, doc, local, fid);
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
    /// [`SegmentScan::score_doc_unfiltered`]. Only
    /// the frequencies that were written are cleared (the essential ones,
    /// and the lookups' for a document that was looked up).
    fn documents_summed(&mut self, cursors: &mut [Cursor], base: DocId, end: DocId, n: usize) {
        #[cfg(test)]
        super::tests::SUMMED_WINDOWS.with(|c| c.set(c.get() + 1));
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
                    && (!self.admitting || self.admits(doc))
                {
                    let fid = self.fieldnorms.fieldnorm_id(doc) as usize;
                    // The essential score is `lookup_one`'s, and the
                    // threshold finite (it is reached).
                    if self.look_up_from(cursors, doc, local, fid, n, score) {
                        self.score_doc_unfiltered(cursors, doc, local, fid);
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
    /// membership words, or one variant and [`SegmentScan::admits`]) whose
    /// only cursor is essential and none is looked up (a
    /// one-term query, or a segment with one of its terms): its postings
    /// are walked directly, each document's score is computed on its
    /// posting by the f32 operations of [`SegmentScan::one_group_score`]
    /// (from 0, the one term), and a document reaching the lowest threshold
    /// of the live variants is offered as [`SegmentScan::score_doc_unfiltered`]
    /// offers it. Nothing is written to the window's arrays.
    fn documents_single(&mut self, cursors: &mut [Cursor], base: DocId, end: DocId) {
        #[cfg(test)]
        super::tests::SINGLE_WINDOWS.with(|c| c.set(c.get() + 1));
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
            if score >= self.group_thresholds[0] && (!self.admitting || self.admits(doc)) {
                self.offer_unfiltered(doc, score);
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
    /// variants is offered as [`SegmentScan::score_doc_unfiltered`] offers
    /// it. The frequency arrays are not written.
    fn documents_complete(&mut self, cursors: &mut [Cursor], base: DocId, end: DocId) {
        #[cfg(test)]
        super::tests::COMPLETE_WINDOWS.with(|c| c.set(c.get() + 1));
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
                if score >= self.group_thresholds[0] && (!self.admitting || self.admits(doc)) {
                    self.offer_unfiltered(doc, score);
                }
            }
        }
    }

    /// Calls `f(self, doc, local)` for every document of the window at
    /// `base` that a cursor touched, in doc id order, clearing the touched
    /// bits, and then clears the document's term frequencies (so the
    /// window's arrays are all zero again at the end).
    #[inline(always)]
    fn for_each_touched(&mut self, base: DocId, mut f: impl FnMut(&mut Self, DocId, usize)) {
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

    /// True when the documents are scored by
    /// [`SegmentScan::documents_lanes`]: 2 to [`LANES`] groups, nothing
    /// filtered, no membership words.
    fn lanes(&self) -> bool {
        !self.filtering && self.masks.is_none() && (2..=LANES).contains(&self.groups.len())
    }

    /// The window's lane scratch for [`SegmentScan::documents_lanes`]:
    /// the essential cursors' weights, the lookups' weights and bounds per
    /// group, and the groups' thresholds.
    fn prepare_lanes(&mut self) {
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
    fn documents_lanes<const L: usize>(&mut self, cursors: &mut [Cursor], base: DocId, n: usize) {
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
    fn lookup(
        &mut self,
        cursors: &mut [Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
        n: usize,
    ) -> bool {
        if self.groups.len() == 1 {
            return self.lookup_one(cursors, doc, local, fid, n);
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

    /// [`SegmentScan::lookup`] with one group: the same sums and tests,
    /// with the essential terms' weights read from `essential_weights`;
    /// false also when the document's whole score (summed in another
    /// order) cannot reach the threshold.
    #[inline(always)]
    fn lookup_one(
        &mut self,
        cursors: &mut [Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
        n: usize,
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
        self.look_up_from(cursors, doc, local, fid, n, score)
    }

    /// The lookups of [`SegmentScan::lookup_one`] given the essential
    /// terms' `score` (summed as `lookup_one` sums it; the threshold is not
    /// infinite).
    #[inline(always)]
    fn look_up_from(
        &mut self,
        cursors: &mut [Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
        n: usize,
        mut score: Score,
    ) -> bool {
        let t = self.group_thresholds[0];
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

    /// Scores `doc` (at `local` in the frequency arrays, fieldnorm id
    /// `fid`) for every variant that may return it, and offers it to the
    /// variant's heap. The score is computed once per group (the first
    /// variant of the group that needs it) and shared by its variants.
    fn score_doc(
        &mut self,
        cursors: &[Cursor],
        doc: DocId,
        local: usize,
        fid: usize,
        complete: bool,
    ) {
        if !self.filtering && self.groups.len() == 1 {
            return self.score_doc_unfiltered(cursors, doc, local, fid);
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

    /// [`SegmentScan::score_doc`] with one group and nothing filtered: the
    /// score is summed as [`SegmentScan::group_score`] sums it (query-term
    /// order: cursors are in term order), and a document below
    /// `group_thresholds[0]` (the lowest threshold of the live variants,
    /// refreshed after every offer) is dropped before any variant is
    /// looked at.
    #[inline(always)]
    fn score_doc_unfiltered(&mut self, cursors: &[Cursor], doc: DocId, local: usize, fid: usize) {
        let score = self.one_group_score(cursors, local, fid);
        if score < self.group_thresholds[0] {
            return;
        }
        self.offer_unfiltered(doc, score);
    }

    /// With a single active variant: whether it may return `doc` (not
    /// deleted, and in its subset when it has one: from its membership
    /// word when there are membership words). The direct paths of
    /// [`SegmentScan::window`] ask it, when something is filtered, only of
    /// a document that reaches the threshold, where the general path asks
    /// it of every touched document first; a document it refuses is then
    /// not looked up or offered, so the offers are the same.
    #[inline(always)]
    fn admits(&self, doc: DocId) -> bool {
        let v = self.active[0].0;
        self.alive.is_none_or(|a| a.is_alive(doc))
            && match self.masks {
                Some((masks, need)) => masks.get(doc) & need[v] == need[v],
                None => self.subsets[v].is_none_or(|set| set.contains(doc)),
            }
    }

    /// [`SegmentScan::score_doc_unfiltered`]'s offer of `doc` with `score`
    /// (at least `group_thresholds[0]`) to every live variant whose
    /// threshold it reaches, then `group_thresholds[0]` refreshed if a
    /// threshold changed.
    #[inline(always)]
    fn offer_unfiltered(&mut self, doc: DocId, score: Score) {
        let mut ord: Option<u32> = None;
        let mut changed = false;
        for i in 0..self.active.len() {
            if self.live[i] && score >= self.thresholds[i] {
                changed |= self.offer(i, doc, score, &mut ord);
            }
        }
        if changed {
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
    fn one_group_score(&self, cursors: &[Cursor], local: usize, fid: usize) -> Score {
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
    fn offer(&mut self, i: usize, doc: DocId, score: Score, ord: &mut Option<u32>) -> bool {
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
