//! BM25 with any k1 and b, over one or many tantivy indexes.
//!
//! tantivy's own BM25 hard-codes k1 = 1.2 and b = 0.75. This module scores
//! postings itself, so any parameters work, several parameter settings and
//! document subsets can be scored in **one pass** over the postings, and the
//! collection statistics can come from anywhere that implements tantivy's
//! [`Bm25StatisticsProvider`]: one index, the sum over many shards (global
//! statistics), or only the documents a filter keeps.
//!
//! ## The exact formula
//!
//! For a query with unique analysed terms `t` occurring `qtf(t)` times in
//! the query, a document `d` scores
//!
//! ```text
//! score(d) = Σ_t  qtf(t) · idf(t) · tf(t,d) / (tf(t,d) + k1 · (1 − b + b · dl(d) / avgdl))
//! idf(t)   = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//! avgdl    = total_num_tokens / N
//! ```
//!
//! where `N`, `total_num_tokens` and `df` come from the statistics provider
//! and `dl(d)` is tantivy's fieldnorm of `d` (its field length, quantised to
//! one byte exactly as tantivy's own scorer sees it). Everything is computed
//! in `f32`, terms summed in query order.
//!
//! This is Lucene's BM25 (since Lucene 8, and so Anserini's): tantivy
//! multiplies every score by the constant `k1 + 1`, which never changes a
//! ranking. With `k1 = 1.2, b = 0.75` the ranking equals tantivy's own
//! (tested in `tests::same_ranking_as_tantivy`). Query-term repetition is
//! counted the way Anserini's bag-of-words query does it (`qtf` as a boost).
//!
//! ## Ranking
//!
//! Hits are ordered by score, descending, then by docid, **descending** by
//! byte comparison: the order in which `trec_eval` reads a run. The cut at
//! `k` happens after that order is applied, so which of several tied
//! documents survive the cut is deterministic, whatever the segment layout
//! or thread count.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use std::sync::Arc;

use roaring::RoaringBitmap;
use sieve_indexer::bounds::{BLOCK_DOCS, Point, SegmentBounds, TermBounds};
use sieve_indexer::schema::{Fields, TextField};
use tantivy::columnar::StrColumn;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, Searcher, SegmentReader, TERMINATED, Term};

use crate::{Error, Result};

/// BM25 parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Params {
    /// Term-frequency saturation, `k1 >= 0`.
    pub k1: f32,
    /// Length normalisation, `0 <= b <= 1`.
    pub b: f32,
}

impl Bm25Params {
    /// Anserini's defaults (Trotman et al. 2012 recommend them too).
    pub const ANSERINI: Bm25Params = Bm25Params { k1: 0.9, b: 0.4 };

    /// Checks the ranges, so that no run is produced from nonsense values.
    pub fn validate(self) -> Result<Self> {
        if !(self.k1.is_finite() && self.k1 >= 0.0) {
            return Err(Error::InvalidParameter {
                name: "k1",
                expected: "a finite number >= 0",
                got: self.k1.to_string(),
            });
        }
        if !(self.b.is_finite() && (0.0..=1.0).contains(&self.b)) {
            return Err(Error::InvalidParameter {
                name: "b",
                expected: "a number in [0, 1]",
                got: self.b.to_string(),
            });
        }
        Ok(self)
    }
}

/// A query after analysis: unique terms in first-occurrence order, with
/// their query frequencies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BagOfWords {
    /// `(term text, qtf)`.
    pub terms: Vec<(String, u32)>,
}

impl BagOfWords {
    /// Collapses analysed query terms (duplicates kept) into a bag.
    pub fn from_terms<I: IntoIterator<Item = String>>(terms: I) -> BagOfWords {
        Self::capped(terms, usize::MAX).0
    }

    /// Collapses analysed terms (duplicates kept) into a bag of at most
    /// `max_terms` unique terms, the first in query order, each with its
    /// full count; returns the bag and the number of unique terms dropped.
    /// Linear in the number of terms.
    pub fn capped<I: IntoIterator<Item = String>>(
        terms: I,
        max_terms: usize,
    ) -> (BagOfWords, usize) {
        let mut out: Vec<(String, u32)> = Vec::new();
        // Each term seen: its slot in `out`, or None when it was dropped.
        let mut slot: HashMap<String, Option<usize>> = HashMap::new();
        for t in terms {
            match slot.get(&t) {
                Some(Some(i)) => out[*i].1 += 1,
                Some(None) => {}
                None if out.len() < max_terms => {
                    slot.insert(t.clone(), Some(out.len()));
                    out.push((t, 1));
                }
                None => {
                    slot.insert(t, None);
                }
            }
        }
        let dropped = slot.len() - out.len();
        (BagOfWords { terms: out }, dropped)
    }

    /// True when analysis left no terms (e.g. a query of stopwords only).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// One searchable index (a shard, or the whole collection).
#[derive(Clone)]
pub struct Shard {
    /// Name for messages (usually the index directory).
    pub name: String,
    /// The index directory (for its sidecar files; empty for an index in
    /// memory).
    pub dir: std::path::PathBuf,
    /// A searcher over the index.
    pub searcher: Searcher,
    /// The index's field handles.
    pub fields: Fields,
    /// Block-max bounds per segment (in `searcher.segment_readers()`
    /// order; see [`sieve_indexer::bounds`]): `None` for a segment without
    /// them, which is scored without block-max pruning. Bounds never change
    /// results, only how many postings are read; an empty vector turns
    /// block-max pruning off for the whole shard.
    pub bounds: Vec<Option<Arc<SegmentBounds>>>,
}

impl Shard {
    /// How many of this shard's segments have no block-max bounds.
    pub fn segments_without_bounds(&self) -> usize {
        let n = self.searcher.segment_readers().len();
        n - self.bounds.iter().take(n).filter(|b| b.is_some()).count()
    }

    /// The `docid` fast field of one of this shard's segments.
    pub fn docid_column(&self, segment: &SegmentReader) -> Result<StrColumn> {
        segment
            .fast_fields()
            .str(sieve_indexer::schema::DOCID)?
            .ok_or_else(|| Error::Index {
                index: self.name.clone(),
                detail: "docid is not a fast field".into(),
            })
    }
}

/// The documents a variant may return, per shard and per segment: `None`
/// keeps every live document; `Some(bitmap)` keeps the live documents
/// whose ids are in the bitmap.
pub type Subset = Vec<Vec<Option<RoaringBitmap>>>;

/// How one variant is scored: parameters, collection statistics, and which
/// documents it may return.
pub struct Variant<'a> {
    /// BM25 parameters.
    pub params: Bm25Params,
    /// Collection statistics (`N`, total tokens, `df`).
    pub stats: &'a dyn Bm25StatisticsProvider,
    /// Which documents may be returned, indexed `[shard][segment]`; `None`
    /// keeps every live document of every shard.
    pub subset: Option<&'a Subset>,
}

/// One ranked result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The document's `docid` field.
    pub docid: String,
    /// Its BM25 score.
    pub score: Score,
}

/// The trec_eval order: score descending, then docid descending.
pub fn trec_order(a: &Hit, b: &Hit) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| b.docid.as_bytes().cmp(a.docid.as_bytes()))
}

/// Per-variant weights for one query.
struct Weights {
    /// `qtf · idf` per query term (0 where the term is absent everywhere).
    term_weight: Vec<Score>,
    /// `k1 · (1 − b + b · dl / avgdl)` per fieldnorm id.
    norm: [Score; 256],
}

impl Weights {
    fn new(variant: &Variant<'_>, field: Field, terms: &[(Term, u32)]) -> Result<Option<Weights>> {
        let n = variant.stats.total_num_docs()?;
        if n == 0 {
            return Ok(None);
        }
        let total_tokens = variant.stats.total_num_tokens(field)?;
        let avgdl = total_tokens as Score / n as Score;
        let Bm25Params { k1, b } = variant.params;
        let mut norm = [0.0; 256];
        for (id, slot) in norm.iter_mut().enumerate() {
            let dl = FieldNormReader::id_to_fieldnorm(id as u8) as Score;
            // An empty collection field (avgdl = 0) only has dl = 0 documents.
            let ratio = if avgdl > 0.0 { dl / avgdl } else { 0.0 };
            *slot = k1 * (1.0 - b + b * ratio);
        }
        let mut term_weight = Vec::with_capacity(terms.len());
        for (term, qtf) in terms {
            let df = variant.stats.doc_freq(term)?;
            term_weight.push(if df == 0 {
                0.0
            } else {
                *qtf as Score * idf(df, n)
            });
        }
        Ok(Some(Weights { term_weight, norm }))
    }
}

/// `ln(1 + (N − df + 0.5) / (df + 0.5))`, as tantivy and Lucene compute it.
pub fn idf(doc_freq: u64, num_docs: u64) -> Score {
    let df = doc_freq.min(num_docs);
    let x = ((num_docs - df) as Score + 0.5) / (df as Score + 0.5);
    (1.0 + x).ln()
}

/// An entry of a per-segment top-k heap. `Ord` puts the *worst* hit on top
/// of the max-heap, so the heap keeps the best `k`.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    score: Score,
    /// Docid ordinal in the segment's sorted docid dictionary: comparing
    /// ordinals within a segment compares docids.
    ord: u64,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    /// "Greater" means "worse": lower score, then smaller docid.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| other.ord.cmp(&self.ord))
    }
}

struct TopK {
    k: usize,
    heap: BinaryHeap<Candidate>,
}

impl TopK {
    fn new(k: usize) -> TopK {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k.min(1 << 16) + 1),
        }
    }

    /// The score a new hit must reach to be considered, if the heap is full.
    fn threshold(&self) -> Option<Score> {
        (self.heap.len() >= self.k).then(|| self.heap.peek().map_or(Score::MIN, |c| c.score))
    }

    fn push(&mut self, c: Candidate) {
        if self.k == 0 {
            return;
        }
        if self.heap.len() < self.k {
            self.heap.push(c);
        } else if let Some(mut worst) = self.heap.peek_mut()
            && c < *worst
        {
            *worst = c;
        }
    }
}

/// Scores `query` against every shard for every variant in one pass over
/// the postings, and returns each variant's top `k` in trec_eval order.
pub fn search(
    shards: &[Shard],
    field: TextField,
    query: &BagOfWords,
    variants: &[Variant<'_>],
    k: usize,
) -> Result<Vec<Vec<Hit>>> {
    let mut results: Vec<Vec<Hit>> = vec![Vec::new(); variants.len()];
    if query.is_empty() || shards.is_empty() || k == 0 {
        return Ok(results);
    }
    // Terms are built from the first shard's field handle; every shard has
    // the same schema (checked when the shards are opened).
    let field_handle = shards[0].fields.text(field);
    let terms: Vec<(Term, u32)> = query
        .terms
        .iter()
        .map(|(t, qtf)| (Term::from_field_text(field_handle, t), *qtf))
        .collect();
    let weights: Vec<Option<Weights>> = variants
        .iter()
        .map(|v| Weights::new(v, field_handle, &terms))
        .collect::<Result<_>>()?;

    for (shard_idx, shard) in shards.iter().enumerate() {
        let field_handle = shard.fields.text(field);
        for (seg_idx, segment) in shard.searcher.segment_readers().iter().enumerate() {
            let subsets: Vec<Option<&RoaringBitmap>> = variants
                .iter()
                .map(|v| v.subset.and_then(|s| s[shard_idx][seg_idx].as_ref()))
                .collect();
            let mut heaps: Vec<TopK> = variants.iter().map(|_| TopK::new(k)).collect();
            let docids = shard.docid_column(segment)?;
            let seg = SegmentInput {
                segment,
                field: field_handle,
                field_name: field.name(),
                bounds: shard.bounds.get(seg_idx).and_then(|b| b.as_deref()),
            };
            score_segment(&seg, &terms, &weights, &subsets, &mut heaps, shard, &docids)?;
            for (out, heap) in results.iter_mut().zip(heaps) {
                // One sorted walk of the docid dictionary for all hits (a
                // lookup per hit would decode a dictionary block each time).
                let mut hits = heap.heap.into_vec();
                hits.sort_unstable_by_key(|c| c.ord);
                let mut ords: Vec<u64> = hits.iter().map(|c| c.ord).collect();
                // Two documents with the same docid share an ordinal.
                ords.dedup();
                let mut names: Vec<String> = Vec::with_capacity(ords.len());
                let all_found = docids
                    .dictionary()
                    .sorted_ords_to_term_cb(&ords, |bytes| {
                        names.push(String::from_utf8_lossy(bytes).into_owned())
                    })
                    .map_err(|e| Error::Index {
                        index: shard.name.clone(),
                        detail: format!("docid dictionary: {e}"),
                    })?;
                if !all_found || names.len() != ords.len() {
                    return Err(Error::Index {
                        index: shard.name.clone(),
                        detail: "docid ordinal missing from the docid dictionary".into(),
                    });
                }
                let mut name = 0;
                for c in &hits {
                    while ords[name] != c.ord {
                        name += 1;
                    }
                    out.push(Hit {
                        docid: names[name].clone(),
                        score: c.score,
                    });
                }
            }
        }
    }
    for hits in &mut results {
        hits.sort_by(trec_order);
        hits.truncate(k);
    }
    Ok(results)
}

/// Documents scored together. Per window of `WINDOW` doc ids, the term
/// frequencies of every *essential* query term's postings in the window are
/// gathered into dense arrays (term at a time; Lucene's `BooleanScorer`
/// uses 2048-doc windows), the other terms' frequencies are looked up only
/// for the documents the essential terms touched (by `seek`), and each
/// touched document is scored from its frequencies **in query-term order**,
/// so its sum has exactly the terms and the order of a
/// document-at-a-time evaluation (scores are bit-identical).
///
/// Which terms are essential is MaxScore's rule (Turtle and Flood 1995):
/// once every heap is full, the terms with the smallest upper bounds whose
/// bounds sum (in f32, in term order, which bounds the f32 score of any
/// document matching only them, rounding being monotonic) to less than
/// every heap's threshold cannot bring a document into any top k on their
/// own, so their postings are skipped, not scanned. A term's bound is its
/// largest weight over the variants (`tf / (tf + norm) <= 1`), or, when
/// the segment has block-max bounds for the term, the largest score over
/// the variants of the points of its frontier (see
/// [`sieve_indexer::bounds`]), inflated by `BOUND_SLACK`. When no term is
/// essential the segment is done. Memory is `WINDOW` frequencies per query
/// term, whatever the segment size.
///
/// **Block-max.** When the segment has block-max bounds, windows are
/// `BLOCK_DOCS` doc ids (one block), and each window gets its own bounds:
/// per term, the largest score of its block's frontier points (0 when the
/// term has no posting in the window). When those bounds sum (with the
/// same margin) below every threshold, no document of the window can
/// enter any top k, and the window is skipped; otherwise MaxScore's rule
/// is applied again with the window's bounds, so fewer terms are scanned.
/// A document is only ever dropped when its bound is *strictly* below a
/// threshold, so ties (broken by docid) are never lost; a filtered-out
/// document only lowers nothing (bounds hold for every document).
const WINDOW: u32 = 4096;

/// Relative inflation of a bound computed from frontier points. The real
/// BM25 term score is monotonic in tf and fieldnorm; its f32 evaluation is
/// exactly monotonic in the fieldnorm (every operation is) but only to a
/// few ulps in tf (the denominator is rounded), far below this slack
/// (about 17 ulps).
const BOUND_SLACK: Score = 1e-6;

/// One term's postings cursor in a segment.
struct Cursor {
    term_idx: usize,
    postings: SegmentPostings,
    /// The largest contribution the term can make to any variant's score.
    bound: Score,
    /// The term's block bounds in this segment, if it has any.
    blocks: Option<TermBounds>,
    /// The first stored block not before the current window.
    next_block: usize,
}

/// The largest score contribution of term `term_idx` over the variants and
/// `points`, inflated by `BOUND_SLACK` and never above `cap` (itself a
/// bound).
fn frontier_bound(
    points: &[Point],
    term_idx: usize,
    active: &[(usize, &Weights)],
    cap: Score,
) -> Score {
    let mut m: Score = 0.0;
    for (_, w) in active {
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
    fn window_bound(&mut self, base: DocId, end: DocId, active: &[(usize, &Weights)]) -> Score {
        if self.postings.doc() >= end {
            return 0.0;
        }
        let Some(tb) = &self.blocks else {
            return self.bound;
        };
        let (first, last) = (base / BLOCK_DOCS, (end - 1) / BLOCK_DOCS);
        while self.next_block < tb.blocks.len() && tb.blocks[self.next_block] < first {
            self.next_block += 1;
        }
        let mut m: Score = 0.0;
        let mut i = self.next_block;
        while i < tb.blocks.len() && tb.blocks[i] <= last {
            m = m.max(frontier_bound(
                tb.block(i),
                self.term_idx,
                active,
                self.bound,
            ));
            i += 1;
        }
        m
    }
}

/// The cursors (by index) that are not essential: the longest run of the
/// smallest `bounds` (one per cursor) whose f32 sum in term order stays
/// below `threshold`.
fn non_essential(bounds: &[Score], threshold: Score) -> Vec<bool> {
    let mut order: Vec<usize> = (0..bounds.len()).collect();
    order.sort_by(|&a, &b| bounds[a].total_cmp(&bounds[b]));
    let mut skip = vec![false; bounds.len()];
    for &c in &order {
        skip[c] = true;
        // Sum in term (cursor) order, as scores are summed.
        let sum = bounds
            .iter()
            .zip(&skip)
            .filter(|(_, s)| **s)
            .fold(0.0 as Score, |acc, (b, _)| acc + b);
        // A relative margin keeps the rule safe whatever the summation
        // order of the bounds.
        if sum * (1.0 + 1e-5) >= threshold {
            skip[c] = false;
            break;
        }
    }
    skip
}

/// One segment to score.
struct SegmentInput<'a> {
    segment: &'a SegmentReader,
    field: Field,
    field_name: &'static str,
    bounds: Option<&'a SegmentBounds>,
}

/// A cursor per query term with postings in the segment and a weight in
/// some variant, with its bound.
fn open_cursors(
    seg: &SegmentInput<'_>,
    terms: &[(Term, u32)],
    weights: &[Option<Weights>],
    active: &[(usize, &Weights)],
    shard: &Shard,
) -> Result<Vec<Cursor>> {
    let inverted = seg.segment.inverted_index(seg.field)?;
    let index_err = |e: std::io::Error| Error::Index {
        index: shard.name.clone(),
        detail: e.to_string(),
    };
    let mut cursors = Vec::with_capacity(terms.len());
    for (term_idx, (term, _)) in terms.iter().enumerate() {
        let mut bound = weights
            .iter()
            .flatten()
            .map(|w| w.term_weight[term_idx])
            .fold(0.0 as Score, Score::max);
        if bound == 0.0 {
            continue;
        }
        let Some(postings) = inverted
            .read_postings(term, IndexRecordOption::WithFreqs)
            .map_err(index_err)?
            .filter(|p| p.doc() != TERMINATED)
        else {
            continue;
        };
        let mut blocks = None;
        if let Some(b) = seg.bounds {
            let ord = inverted
                .terms()
                .term_ord(term.serialized_value_bytes())
                .map_err(index_err)?;
            if let Some(tb) = ord
                .map(|o| b.term(seg.field_name, o))
                .transpose()?
                .flatten()
            {
                bound = frontier_bound(&tb.global, term_idx, active, bound);
                blocks = Some(tb);
            }
        }
        cursors.push(Cursor {
            term_idx,
            postings,
            bound,
            blocks,
            next_block: 0,
        });
    }
    Ok(cursors)
}

/// What the scoring of one segment reads and fills, besides the cursors.
struct SegmentScan<'a> {
    active: Vec<(usize, &'a Weights)>,
    subsets: &'a [Option<&'a RoaringBitmap>],
    heaps: &'a mut [TopK],
    fieldnorms: tantivy::fieldnorm::FieldNormReader,
    alive: Option<&'a tantivy::fastfield::AliveBitSet>,
    docids: &'a StrColumn,
    tfs: Vec<Vec<u32>>,
    touched: [u64; WINDOW as usize / 64],
}

#[allow(clippy::too_many_arguments)]
fn score_segment(
    seg: &SegmentInput<'_>,
    terms: &[(Term, u32)],
    weights: &[Option<Weights>],
    subsets: &[Option<&RoaringBitmap>],
    heaps: &mut [TopK],
    shard: &Shard,
    docids: &StrColumn,
) -> Result<()> {
    // (variant index, weights) of the variants that score this query.
    let active: Vec<(usize, &Weights)> = weights
        .iter()
        .enumerate()
        .filter_map(|(v, w)| w.as_ref().map(|w| (v, w)))
        .collect();
    let mut cursors = open_cursors(seg, terms, weights, &active, shard)?;
    if cursors.is_empty() {
        return Ok(());
    }
    let blockmax = cursors.iter().any(|c| c.blocks.is_some());
    let window = if blockmax { BLOCK_DOCS } else { WINDOW };
    let global: Vec<Score> = cursors.iter().map(|c| c.bound).collect();
    let mut scan = SegmentScan {
        active,
        subsets,
        heaps,
        fieldnorms: seg.segment.get_fieldnorms_reader(seg.field)?,
        alive: seg.segment.alive_bitset(),
        docids,
        tfs: vec![vec![0; WINDOW as usize]; cursors.len()],
        touched: [0u64; WINDOW as usize / 64],
    };
    let mut skip = vec![false; cursors.len()];
    let mut window_bounds = vec![0.0 as Score; cursors.len()];
    loop {
        // The lowest threshold over the variants, once every heap is full.
        let threshold = scan
            .active
            .iter()
            .map(|(v, _)| scan.heaps[*v].threshold())
            .try_fold(Score::INFINITY, |m, t| t.map(|t| m.min(t)));
        if let Some(t) = threshold {
            skip = non_essential(&global, t);
            #[cfg(test)]
            if skip.iter().any(|s| *s) {
                tests::PRUNED_WINDOWS.with(|n| n.set(n.get() + 1));
            }
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
        let window_skip = match threshold {
            Some(t) if blockmax => {
                for (b, c) in window_bounds.iter_mut().zip(cursors.iter_mut()) {
                    *b = c.window_bound(base, end, &scan.active);
                }
                let ws = non_essential(&window_bounds, t);
                #[cfg(test)]
                if ws.iter().all(|s| *s) {
                    tests::BLOCK_PRUNED_WINDOWS.with(|n| n.set(n.get() + 1));
                }
                ws
            }
            _ => skip.clone(),
        };
        if window_skip.iter().any(|s| !*s) {
            scan.window(&mut cursors, &window_skip, base, end);
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
    /// Scores the documents `base..end` that the cursors not in `skip`
    /// have postings for (the others are looked up for those documents).
    fn window(&mut self, cursors: &mut [Cursor], skip: &[bool], base: DocId, end: DocId) {
        for ((c, tf), _) in cursors
            .iter_mut()
            .zip(self.tfs.iter_mut())
            .zip(skip)
            .filter(|(_, s)| !**s)
        {
            if c.postings.doc() < base {
                c.postings.seek(base);
            }
            loop {
                let doc = c.postings.doc();
                if doc >= end {
                    break;
                }
                let local = (doc - base) as usize;
                self.touched[local / 64] |= 1 << (local % 64);
                tf[local] = c.postings.term_freq();
                c.postings.advance();
            }
        }
        for word_idx in 0..self.touched.len() {
            let mut bits = std::mem::take(&mut self.touched[word_idx]);
            while bits != 0 {
                let local = word_idx * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let doc = base + local as DocId;
                // Non-essential terms: only for the documents touched.
                for ((c, tf), _) in cursors
                    .iter_mut()
                    .zip(self.tfs.iter_mut())
                    .zip(skip)
                    .filter(|(_, s)| **s)
                {
                    if c.postings.doc() < doc {
                        c.postings.seek(doc);
                    }
                    if c.postings.doc() == doc {
                        tf[local] = c.postings.term_freq();
                    }
                }
                self.score_doc(cursors, doc, local);
                for tf in self.tfs.iter_mut() {
                    tf[local] = 0;
                }
            }
        }
    }

    /// Scores `doc` (at `local` in the frequency arrays) for every variant
    /// that may return it, and offers it to the variant's heap.
    fn score_doc(&mut self, cursors: &[Cursor], doc: DocId, local: usize) {
        let is_alive = self.alive.is_none_or(|a| a.is_alive(doc));
        let fid = self.fieldnorms.fieldnorm_id(doc) as usize;
        let mut ord: Option<u64> = None;
        for (v, w) in &self.active {
            if !is_alive || self.subsets[*v].is_some_and(|s| !s.contains(doc)) {
                continue;
            }
            let mut score: Score = 0.0;
            for (c, tf) in cursors.iter().zip(&self.tfs) {
                let tf = tf[local];
                if tf != 0 {
                    let tf = tf as Score;
                    score += w.term_weight[c.term_idx] * (tf / (tf + w.norm[fid]));
                }
            }
            let heap = &mut self.heaps[*v];
            if heap.threshold().is_some_and(|t| score < t) {
                continue;
            }
            let docids = self.docids;
            let ord = *ord.get_or_insert_with(|| docids.term_ords(doc).next().unwrap_or(0));
            heap.push(Candidate { score, ord });
        }
    }
}

#[cfg(test)]
mod blockmax_tests;
#[cfg(test)]
mod tests;
