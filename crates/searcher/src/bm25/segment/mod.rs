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
//! ([`SegmentScan::doc_threshold`]), and one the filter refuses is neither
//! looked up nor offered, as the general path, which tests every touched
//! document first, would have dropped it.
//!
//! **Several settings of one group with membership words** (a sweep of
//! filters with full statistics) take the direct paths too: a document
//! is first tested against the lowest threshold of the live variants, and
//! only one that reaches it has its membership word read, which gives the
//! lowest threshold of the live variants whose subsets hold it
//! ([`SegmentScan::doc_threshold`]): MaxScore's lookups and the score are
//! tested against that one, and the document is offered to the variants
//! that hold it and whose thresholds it reaches.
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
//! [`crate::bm25::Membership`]), else asked of each subset's bitmap. With one
//! group and membership words, the lowest threshold of the live variants
//! that may return a document is cached per word, and a document whose
//! score is below it is dropped before any variant is looked at.
//!
//! **Variants a window lacks.** With membership words, the words' block
//! summaries say which subsets may hold a document of the window (and of
//! the rest of the segment): a variant whose subset holds none takes
//! nothing there, so it is not live, and the thresholds the window and
//! MaxScore prune with are the lowest of the variants present. In an
//! index ordered by spam percentile a strict threshold's documents are a
//! prefix of each segment, and past it the lax variants prune alone.
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
//!
//! The modules: `cursors` (a cursor per query term, its bounds and
//! lookups), `maxscore` (the essential terms), `window` (a window's
//! cursors and live variants, the choice of path, the general path),
//! `plain` (the direct paths of one group), `one_group` (a document's
//! threshold from its membership word), `lanes` (several groups side by
//! side).

mod cursors;
mod lanes;
mod maxscore;
mod one_group;
mod plain;
mod window;

use roaring::RoaringBitmap;
use sieve_format::bounds::{BLOCK_DOCS, SegmentBounds};
use std::sync::Arc;

use tantivy::columnar::{ColumnIndex, ColumnValues, StrColumn};
use tantivy::schema::Field;
use tantivy::{DocId, Score, SegmentReader, TERMINATED, Term};

use super::membership::Masks;
use super::topk::TopK;
use super::{Groups, Weights};
use crate::Result;
use cursors::{Cursor, open_cursors};
use maxscore::{non_essential, non_essential_groups};

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

/// One segment to score, with what each variant may return there.
pub(super) struct SegmentInput<'a> {
    pub(super) segment: &'a SegmentReader,
    pub(super) field: Field,
    pub(super) field_name: &'static str,
    pub(super) bounds: Option<&'a SegmentBounds>,
    /// The index's name, for errors.
    pub(super) index: &'a str,
    /// The segment's `docid` column.
    pub(super) docids: &'a StrColumn,
    /// Per variant, the bitmap of the documents it may return (`None`:
    /// every live one).
    pub(super) subsets: &'a [Option<&'a RoaringBitmap>],
    /// The segment's membership words and, per variant, the bit its
    /// subset has there (0: none); when present they replace `subsets`.
    pub(super) masks: Option<(&'a Masks, &'a [u64])>,
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
    /// [`SegmentScan::doc_threshold`] (something filtered, or membership
    /// words).
    admitting: bool,
    /// True with one group, several variants and membership words (a
    /// sweep with full statistics): the direct paths then take each
    /// document's threshold from its membership word
    /// ([`SegmentScan::doc_threshold`]).
    members: bool,
    /// With `members`: the membership word of the document the direct
    /// path is at (set by [`SegmentScan::doc_threshold`]).
    doc_bits: u64,
    /// A superset of the selections that hold some document of the doc ids
    /// being scored (the rest of the segment, then the window): from the
    /// membership words' block summaries, all ones without them. A variant
    /// whose subset none of them hold takes nothing there, so its
    /// threshold does not count ([`SegmentScan::present`]).
    present: u64,
    /// Scratch, per document when `filtering`: whether each active variant
    /// may return it.
    accepts: Vec<bool>,
}

/// Scores every document of `seg` that some query term of `terms` is in,
/// for every variant of `groups`, into the variants' `heaps`.
pub(super) fn score_segment(
    seg: &SegmentInput<'_>,
    terms: &[(Term, Score)],
    groups: &Groups,
    heaps: &mut [TopK],
    arrays: &mut WindowArrays,
) -> Result<()> {
    let mut cursors = open_cursors(seg, terms, &groups.weights)?;
    if cursors.is_empty() {
        return Ok(());
    }
    let mut scan = SegmentScan::new(seg, groups, heaps, &cursors, arrays)?;
    let mut pruning = Pruning::new(&cursors, groups.weights.len());
    let window = if pruning.blockmax { BLOCK_DOCS } else { WINDOW };
    let mut next: DocId = 0;
    loop {
        // The lowest threshold over the variants that may take a document
        // from here on, once each has one.
        scan.enter(next, None);
        let threshold = scan.threshold();
        pruning.refresh(&scan, threshold);
        let first = pruning.first_doc(&cursors);
        if first == TERMINATED {
            break;
        }
        let base = first - first % window;
        let end = base.saturating_add(window);
        // The same over the variants that may take a document of the
        // window (as high or higher).
        scan.enter(base, Some(end));
        let threshold = scan.threshold();
        match threshold {
            Some(t) if pruning.blockmax => {
                pruning.blockmax_window(&mut scan, &mut cursors, t, base, end);
            }
            _ => {
                if pruning.multi() {
                    scan.group_bounds.copy_from_slice(&pruning.global_groups);
                }
                scan.window(
                    &mut cursors,
                    &pruning.skip,
                    &pruning.global,
                    threshold,
                    base,
                    end,
                );
            }
        }
        pruning.past(&mut cursors, end);
        next = end;
    }
    arrays.put_back(scan.tfs, scan.sums);
    Ok(())
}

/// A window's frequency arrays (one per query term) and essential sums,
/// kept from one segment's scoring to the next of the same search: a
/// segment's scoring leaves them all zero, as it found them, so the next
/// takes them without allocating or clearing 16 KiB per array again.
#[derive(Default)]
pub(super) struct WindowArrays {
    tfs: Vec<Vec<u32>>,
    sums: Vec<Score>,
}

impl WindowArrays {
    /// `n` frequency arrays and the sums, all zero.
    fn take(&mut self, n: usize) -> (Vec<Vec<u32>>, Vec<Score>) {
        if self.tfs.len() < n {
            self.tfs.resize_with(n, || vec![0; WINDOW as usize]);
        }
        let tfs = self.tfs.split_off(self.tfs.len() - n);
        let mut sums = std::mem::take(&mut self.sums);
        if sums.is_empty() {
            sums = vec![0.0; WINDOW as usize];
        }
        (tfs, sums)
    }

    /// Keeps the arrays of a finished segment (all zero again).
    fn put_back(&mut self, tfs: Vec<Vec<u32>>, sums: Vec<Score>) {
        debug_assert!(tfs.iter().flatten().all(|&tf| tf == 0));
        debug_assert!(sums.iter().all(|&s| s == 0.0));
        self.tfs.extend(tfs);
        self.sums = sums;
    }
}

impl<'a> SegmentScan<'a> {
    /// The scan of `seg` with `cursors` for the variants of `groups`, into
    /// `heaps`: the variants that score the query, the segment's columns,
    /// the window's arrays and every scratch list sized for the cursors.
    fn new(
        seg: &SegmentInput<'a>,
        groups: &'a Groups,
        heaps: &'a mut [TopK],
        cursors: &[Cursor],
        arrays: &mut WindowArrays,
    ) -> Result<SegmentScan<'a>> {
        // (variant, group) of the variants that score this query.
        let active: Vec<(usize, usize)> = groups
            .of
            .iter()
            .enumerate()
            .filter_map(|(v, g)| g.map(|g| (v, g)))
            .collect();
        let ng = groups.weights.len();
        let docids = seg.docids;
        let (tfs, sums) = arrays.take(cursors.len());
        let mut scan = SegmentScan {
            active,
            groups: &groups.weights,
            subsets: seg.subsets,
            masks: seg.masks,
            heaps,
            fieldnorms: seg.segment.get_fieldnorms_reader(seg.field)?,
            alive: seg.segment.alive_bitset(),
            docids,
            ords: match docids.ords().index {
                ColumnIndex::Full => Some(docids.ords().values.clone()),
                _ => None,
            },
            tfs,
            sums,
            touched: [0u64; WINDOW as usize / 64],
            touched_words: 0,
            essential: Vec::with_capacity(cursors.len()),
            essential_weights: Vec::with_capacity(cursors.len()),
            lookups: Vec::with_capacity(cursors.len()),
            rest: Vec::with_capacity(cursors.len() + 1),
            partial: vec![0.0; ng],
            group_thresholds: vec![Score::INFINITY; ng],
            group_scores: vec![0.0; ng],
            group_docs: vec![TERMINATED; ng],
            thresholds: Vec::new(),
            doc_terms: Vec::with_capacity(cursors.len()),
            group_bounds: if ng > 1 {
                vec![0.0; cursors.len() * ng]
            } else {
                Vec::new()
            },
            group_sums: Vec::with_capacity(ng),
            lane_norms: Vec::new(),
            lane_weights: Vec::new(),
            lane_essential: Vec::with_capacity(cursors.len()),
            lane_lookups: Vec::with_capacity(cursors.len()),
            lane_thresholds: [Score::INFINITY; LANES],
            filtering: false,
            admitting: false,
            members: false,
            doc_bits: 0,
            present: u64::MAX,
            live: Vec::new(),
            effective_cache: vec![None; 32],
            accepts: Vec::new(),
        };
        scan.accepts = vec![true; scan.active.len()];
        scan.filtering =
            scan.alive.is_some() || scan.active.iter().any(|(v, _)| scan.subsets[*v].is_some());
        scan.admitting = scan.filtering || scan.masks.is_some();
        scan.members = groups.weights.len() == 1 && scan.active.len() > 1 && scan.masks.is_some();
        if scan.lanes() {
            scan.init_lanes(cursors);
        }
        Ok(scan)
    }

    /// Each group's `norm` per fieldnorm id and weight per cursor, side by
    /// side (see [`SegmentScan::lane_norms`]).
    fn init_lanes(&mut self, cursors: &[Cursor]) {
        let ws = self.groups;
        self.lane_norms = (0..256)
            .map(|fid| std::array::from_fn(|g| ws.get(g).map_or(1.0, |w| w.norm[fid])))
            .collect();
        self.lane_weights = cursors
            .iter()
            .map(|c| std::array::from_fn(|g| ws.get(g).map_or(0.0, |w| w.term_weight[c.term_idx])))
            .collect();
    }

    /// Narrows [`SegmentScan::present`] to the selections that hold some
    /// document of `base..end` (`end`: `None` for the rest of the segment).
    #[inline]
    fn enter(&mut self, base: DocId, end: Option<DocId>) {
        if let Some((masks, _)) = self.masks {
            self.present = match end {
                Some(end) => masks.within(base, end),
                None => masks.from(base),
            };
        }
    }

    /// Whether active variant `i` may take a document of the doc ids being
    /// scored: it keeps every document, or its subset's bit is present.
    #[inline]
    fn present(&self, i: usize) -> bool {
        match self.masks {
            Some((_, need)) => {
                let need = need[self.active[i].0];
                self.present & need == need
            }
            None => true,
        }
    }

    /// The lowest threshold over the present active variants, if every one
    /// has one (infinity when none is present).
    #[inline]
    fn threshold(&self) -> Option<Score> {
        (0..self.active.len())
            .filter(|&i| self.present(i))
            .map(|i| self.heaps[self.active[i].0].threshold())
            .try_fold(Score::INFINITY, |m, t| t.map(|t| m.min(t)))
    }

    /// Each group's lowest threshold over its present variants, into `out`
    /// (negative infinity when one of them has none yet; infinity when
    /// none is present).
    fn group_threshold_floors(&self, out: &mut [Score]) {
        out.fill(Score::INFINITY);
        for (i, &(v, g)) in self.active.iter().enumerate() {
            if self.present(i) {
                let t = self.heaps[v].threshold().unwrap_or(Score::NEG_INFINITY);
                out[g] = out[g].min(t);
            }
        }
    }
}

/// MaxScore's state over one segment: the cursors' bounds over the
/// segment, which cursors are essential at the current thresholds
/// (recomputed when a threshold changes), and the per-window bounds and
/// choice of a block-max window. With several groups, each group's own
/// bounds and threshold decide which cursors are essential (see
/// [`non_essential_groups`]).
struct Pruning {
    /// True when some cursor has block-max entries: windows are then one
    /// grid block each, with their own bounds.
    blockmax: bool,
    /// The number of groups.
    ng: usize,
    /// Each cursor's bound over the segment.
    global: Vec<Score>,
    /// With several groups: each cursor's bound for each group alone over
    /// the segment, cursor-major.
    global_groups: Vec<Score>,
    /// The cursors that are not essential at the current thresholds.
    skip: Vec<bool>,
    /// One group: the threshold `skip` was computed for.
    last_threshold: Option<Score>,
    /// Several groups: each group's threshold now, and when `skip` was
    /// computed.
    group_t: Vec<Score>,
    last_group_t: Vec<Score>,
    /// Several groups, per block-max window: each group's threshold over
    /// the variants present in the window.
    window_group_t: Vec<Score>,
    /// Per block-max window: each cursor's bound there, and the cursors
    /// not essential there.
    window_bounds: Vec<Score>,
    window_skip: Vec<bool>,
    /// Scratch of [`non_essential`] and [`non_essential_groups`].
    order: Vec<usize>,
    column: Vec<Score>,
    group_skip: Vec<bool>,
}

impl Pruning {
    /// Every cursor essential, no threshold seen yet.
    fn new(cursors: &[Cursor], ng: usize) -> Pruning {
        Pruning {
            blockmax: cursors.iter().any(|c| !c.lasts.is_empty()),
            ng,
            global: cursors.iter().map(|c| c.bound).collect(),
            global_groups: cursors
                .iter()
                .flat_map(|c| c.group_bound.iter().copied())
                .collect(),
            skip: vec![false; cursors.len()],
            last_threshold: None,
            group_t: vec![Score::NEG_INFINITY; ng],
            last_group_t: vec![Score::NAN; ng],
            window_group_t: vec![Score::NEG_INFINITY; ng],
            window_bounds: vec![0.0 as Score; cursors.len()],
            window_skip: vec![false; cursors.len()],
            order: Vec::with_capacity(cursors.len()),
            column: Vec::with_capacity(cursors.len()),
            group_skip: vec![false; cursors.len()],
        }
    }

    /// True with several groups.
    #[inline]
    fn multi(&self) -> bool {
        self.ng > 1
    }

    /// Recomputes which cursors are essential over the segment when the
    /// thresholds of `scan` (`threshold`: their lowest, once each variant
    /// has one) changed since the last time.
    #[inline]
    fn refresh(&mut self, scan: &SegmentScan<'_>, threshold: Option<Score>) {
        if self.multi() {
            scan.group_threshold_floors(&mut self.group_t);
            let changed = self
                .group_t
                .iter()
                .zip(&self.last_group_t)
                .any(|(a, b)| a.to_bits() != b.to_bits());
            if changed {
                non_essential_groups(
                    &self.global_groups,
                    &self.group_t,
                    &mut self.order,
                    &mut self.column,
                    &mut self.group_skip,
                    &mut self.skip,
                );
                #[cfg(test)]
                if self.skip.iter().any(|s| *s) {
                    crate::bm25::tests::PRUNED_WINDOWS.with(|n| n.set(n.get() + 1));
                }
                self.last_group_t.copy_from_slice(&self.group_t);
            }
        } else if threshold != self.last_threshold {
            if let Some(t) = threshold {
                non_essential(&self.global, t, &mut self.order, &mut self.skip);
                #[cfg(test)]
                if self.skip.iter().any(|s| *s) {
                    crate::bm25::tests::PRUNED_WINDOWS.with(|n| n.set(n.get() + 1));
                }
            }
            self.last_threshold = threshold;
        }
    }

    /// The first doc id of the essential cursors' postings
    /// (`TERMINATED`: the segment is done).
    #[inline]
    fn first_doc(&self, cursors: &[Cursor]) -> DocId {
        cursors
            .iter()
            .zip(&self.skip)
            .filter(|(_, s)| !**s)
            .map(|(c, _)| c.postings.doc())
            .min()
            .unwrap_or(TERMINATED)
    }

    /// A block-max window `base..end` once every variant has a threshold
    /// (their lowest: `t`): the cursors' bounds in the window decide which
    /// are essential there, and the window is scored by `scan` unless none
    /// is (no document of it can enter any top k).
    fn blockmax_window(
        &mut self,
        scan: &mut SegmentScan<'_>,
        cursors: &mut [Cursor],
        t: Score,
        base: DocId,
        end: DocId,
    ) {
        if self.multi() {
            scan.group_threshold_floors(&mut self.window_group_t);
            for ((b, c), out) in self
                .window_bounds
                .iter_mut()
                .zip(cursors.iter_mut())
                .zip(scan.group_bounds.chunks_exact_mut(self.ng))
            {
                *b = c.window_group_bounds(base, end, out);
            }
            non_essential_groups(
                &scan.group_bounds,
                &self.window_group_t,
                &mut self.order,
                &mut self.column,
                &mut self.group_skip,
                &mut self.window_skip,
            );
        } else {
            for (b, c) in self.window_bounds.iter_mut().zip(cursors.iter_mut()) {
                *b = c.window_bound(base, end);
            }
            non_essential(
                &self.window_bounds,
                t,
                &mut self.order,
                &mut self.window_skip,
            );
        }
        if self.window_skip.iter().any(|s| !*s) {
            scan.window(
                cursors,
                &self.window_skip,
                &self.window_bounds,
                Some(t),
                base,
                end,
            );
        } else {
            #[cfg(test)]
            crate::bm25::tests::BLOCK_PRUNED_WINDOWS.with(|n| n.set(n.get() + 1));
        }
    }

    /// Moves the essential cursors that the window ending at `end` did
    /// not scan past it.
    #[inline]
    fn past(&self, cursors: &mut [Cursor], end: DocId) {
        for (c, s) in cursors.iter_mut().zip(&self.skip) {
            if !*s && c.postings.doc() < end {
                c.postings.seek(end);
            }
        }
    }
}
