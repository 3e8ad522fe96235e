//! Index order: the documents of a built index lie in input order (file by
//! file as given, record by record), whatever the thread count and however
//! merges are scheduled.
//!
//! tantivy keeps its committed segments in a hash map and writes them to
//! `meta.json` in that map's (randomly seeded) order, and its default merge
//! policy merges segments of similar size wherever they lie. Either alone
//! makes the order of documents (what `docids --stats` lists, and the
//! address order BM25 ties fall back to) change from run to run. So a build
//! disables tantivy's merge policy and uses [`SegmentOrder`] instead:
//!
//! * every segment is a contiguous run of the input: writes are
//!   single-threaded, and [`SegmentOrder::after_commit`] merges only runs
//!   of neighbouring segments, passed to tantivy in input order (a merge
//!   stacks its segments in the order given);
//! * a segment's place is the key of its first document: (position of its
//!   `source` among the inputs, its `offset`), read from the document store
//!   once per segment;
//! * [`seal_order`] rewrites `meta.json` at the end with the segments in
//!   that order.
//!
//! The merge rule mirrors a log merge policy on the tail of the segment
//! list: a segment of `n` documents is on level 0 below 10,000 documents
//! and one level up per factor of 8; the longest run at the tail of
//! segments on level `L` or below, not in a running merge, whose documents
//! add up to at most the merge cap ([`MAX_MERGE_DOCS`] by default), is
//! merged once it holds [`MERGE_FACTOR`] segments (trying `L` = 0, 1, ...).
//! So **no merge makes a segment of more than the cap**: what a merge reads
//! and writes, the memory it takes, and how often a document is merged
//! (about log8(cap / segment size) times) do not grow with the collection;
//! a collection of N documents ends with about N / cap segments or more.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use sieve_format::document::SieveDocument;
use sieve_format::index::{stored_str, stored_u64};
use sieve_format::schema::{OFFSET, SOURCE};
use tantivy::index::{SegmentId, SegmentMeta};
use tantivy::{Directory, Index, IndexMeta, IndexWriter, SegmentReader, TantivyDocument};

use crate::{Error, Result};

/// Segments merged at once.
pub const MERGE_FACTOR: usize = 8;
/// No merge makes a segment of more documents (the merge cap).
pub const MAX_MERGE_DOCS: u32 = 500_000;
/// Documents of a level-0 segment (below).
const LEVEL0_DOCS: u32 = 10_000;

/// Where a segment lies in the input: (input position, record offset) of
/// its first document.
type Key = (usize, u64);

/// Tracks the input position of every committed segment and schedules
/// order-preserving merges.
pub struct SegmentOrder {
    max_docs: u32,
    inputs: HashMap<String, usize>,
    keys: HashMap<SegmentId, Key>,
    merging: Vec<Vec<SegmentId>>,
}

impl SegmentOrder {
    /// An order over `inputs` (as given; each document's `source` field is
    /// one of them); no merge makes a segment of more than `max_docs`
    /// documents ([`MAX_MERGE_DOCS`] by default).
    pub fn new(inputs: &[std::path::PathBuf], max_docs: u32) -> Self {
        SegmentOrder {
            max_docs,
            inputs: inputs
                .iter()
                .enumerate()
                .map(|(i, p)| (p.to_string_lossy().into_owned(), i))
                .collect(),
            keys: HashMap::new(),
            merging: Vec::new(),
        }
    }

    /// The committed segments of `index`, in input order.
    fn ordered(&mut self, index: &Index) -> Result<Vec<SegmentMeta>> {
        let mut metas = index.searchable_segment_metas()?;
        let mut keyed = Vec::with_capacity(metas.len());
        for meta in metas.drain(..) {
            let key = match self.keys.get(&meta.id()) {
                Some(k) => *k,
                None => {
                    let k = first_key(index, &meta, &self.inputs)?;
                    self.keys.insert(meta.id(), k);
                    k
                }
            };
            keyed.push((key, meta));
        }
        keyed.sort_by_key(|(k, m)| (*k, m.id()));
        Ok(keyed.into_iter().map(|(_, m)| m).collect())
    }

    /// The committed segments of `index` in input order, up to the first
    /// one in a merge this order started that may still be running: the
    /// first segments of the finished index, unless a later merge takes
    /// them in.
    pub fn settled(&mut self, index: &Index) -> Result<Vec<SegmentMeta>> {
        let busy: HashSet<SegmentId> = self.merging.iter().flatten().copied().collect();
        let mut segments = self.ordered(index)?;
        let first_busy = segments
            .iter()
            .position(|m| busy.contains(&m.id()))
            .unwrap_or(segments.len());
        segments.truncate(first_busy);
        Ok(segments)
    }

    /// Called after each commit: starts at most one merge of neighbouring
    /// segments (see the module docs). The merge runs in tantivy's merge
    /// threads; [`IndexWriter::wait_merging_threads`] waits for it.
    pub fn after_commit(
        &mut self,
        index: &Index,
        writer: &mut IndexWriter<SieveDocument>,
    ) -> Result<()> {
        let segments = self.ordered(index)?;
        let live: HashSet<SegmentId> = segments.iter().map(SegmentMeta::id).collect();
        // A merge is over once its segments are gone from the index.
        self.merging
            .retain(|ids| ids.iter().any(|id| live.contains(id)));
        self.keys.retain(|id, _| live.contains(id));
        let busy: HashSet<SegmentId> = self.merging.iter().flatten().copied().collect();
        if let Some(run) = merge_candidate(&segments, &busy, self.max_docs) {
            // The future is not awaited: the merge goes on without it and
            // its result shows in the index's segment list.
            drop(writer.merge(&run));
            self.merging.push(run);
        }
        Ok(())
    }
}

/// The merge level of a segment of `docs` documents.
fn level(docs: u32) -> u32 {
    let mut level = 0;
    let mut bound = LEVEL0_DOCS;
    while docs >= bound && bound < u32::MAX {
        level += 1;
        bound = bound.saturating_mul(MERGE_FACTOR as u32);
    }
    level
}

/// The run of segments to merge next, in input order, if any.
fn merge_candidate(
    segments: &[SegmentMeta],
    busy: &HashSet<SegmentId>,
    max_docs: u32,
) -> Option<Vec<SegmentId>> {
    merge_run(
        &segments
            .iter()
            .map(|m| (m.max_doc(), busy.contains(&m.id())))
            .collect::<Vec<_>>(),
        max_docs,
    )
    .map(|run| run.map(|i| segments[i].id()).collect())
}

/// The positions of the run to merge next among segments of (documents,
/// in a running merge), in input order: the longest run at the tail of
/// segments on level `L` or below, not in a running merge, whose documents
/// add up to at most `max_docs`, once it holds [`MERGE_FACTOR`] segments,
/// trying `L` = 0, 1, ...
fn merge_run(segments: &[(u32, bool)], max_docs: u32) -> Option<std::ops::Range<usize>> {
    for lvl in 0..=level(max_docs) {
        let mut docs = 0u64;
        let len = segments
            .iter()
            .rev()
            .take_while(|&&(n, busy)| {
                docs += u64::from(n);
                !busy && docs <= u64::from(max_docs) && level(n) <= lvl
            })
            .count();
        if len >= MERGE_FACTOR {
            return Some(segments.len() - len..segments.len());
        }
    }
    None
}

/// The key of the first document of the segment `meta`.
fn first_key(index: &Index, meta: &SegmentMeta, inputs: &HashMap<String, usize>) -> Result<Key> {
    let reader = SegmentReader::open(&index.segment(meta.clone()))?;
    let schema = index.schema();
    let store = reader.get_store_reader(1).map_err(|source| Error::Io {
        path: Path::new(&meta.id().uuid_string()).to_path_buf(),
        source,
    })?;
    let doc: TantivyDocument = store.get(0)?;
    let source = stored_str(&schema, &doc, SOURCE);
    let offset = stored_u64(&schema, &doc, OFFSET).unwrap_or(0);
    let pos = source
        .and_then(|s| inputs.get(&s).copied())
        .unwrap_or(usize::MAX);
    Ok((pos, offset))
}

/// Rewrites `meta.json` of `index` (no writer open) with its segments in
/// input order, keeping everything else, so that every reader sees the
/// documents in input order.
pub fn seal_order(index: &Index, order: &mut SegmentOrder) -> Result<()> {
    let segments = order.ordered(index)?;
    let mut meta = index.load_metas()?;
    if meta
        .segments
        .iter()
        .map(SegmentMeta::id)
        .eq(segments.iter().map(SegmentMeta::id))
    {
        return Ok(());
    }
    meta.segments = segments;
    write_meta(index, &meta)
}

/// Writes `meta` as the `meta.json` of `index` (no writer open), at once.
pub(crate) fn write_meta(index: &Index, meta: &IndexMeta) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(meta).map_err(|e| Error::Input {
        path: "meta.json".into(),
        detail: e.to_string(),
    })?;
    bytes.push(b'\n');
    index
        .directory()
        .atomic_write(Path::new("meta.json"), &bytes)
        .map_err(|source| Error::Io {
            path: "meta.json".into(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_grow_by_the_merge_factor() {
        assert_eq!(level(0), 0);
        assert_eq!(level(9_999), 0);
        assert_eq!(level(10_000), 1);
        assert_eq!(level(79_999), 1);
        assert_eq!(level(80_000), 2);
        assert_eq!(level(u32::MAX), 7);
    }

    #[test]
    fn merges_take_the_tail_run_up_to_the_cap() {
        let free = |n: &[u32]| n.iter().map(|&d| (d, false)).collect::<Vec<_>>();
        // Seven level-0 segments: nothing; eight: all eight.
        assert_eq!(merge_run(&free(&[5_000; 7]), 500_000), None);
        assert_eq!(merge_run(&free(&[5_000; 8]), 500_000), Some(0..8));
        // A bigger segment before the tail joins a run on its level.
        let mut segs = free(&[60_000]);
        segs.extend(free(&[5_000; 7]));
        assert_eq!(merge_run(&segs, 500_000), Some(0..8));
        // ... unless the merged segment would exceed the cap.
        assert_eq!(merge_run(&segs, 90_000), None);
        // A segment in a running merge ends the run.
        let mut segs = free(&[5_000; 9]);
        segs[1].1 = true;
        assert_eq!(merge_run(&segs, 500_000), None);
        segs.push((5_000, false));
        assert_eq!(merge_run(&segs, 500_000), Some(2..10));
        // Whatever the segments, no merge exceeds the cap.
        for cap in [10_000u32, 100_000, 500_000] {
            let sizes: Vec<u32> = (0..200u32).map(|i| 1 + (i * 7919) % 60_000).collect();
            for end in 1..sizes.len() {
                if let Some(r) = merge_run(&free(&sizes[..end]), cap) {
                    let docs: u64 = sizes[r.clone()].iter().map(|&d| u64::from(d)).sum();
                    assert!(docs <= u64::from(cap) && r.len() >= MERGE_FACTOR);
                    assert_eq!(r.end, end);
                }
            }
        }
    }
}
