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
//! segments on level `L` or below, not in a running merge, is merged once it
//! holds [`MERGE_FACTOR`] segments (trying `L` = 0, 1, ...). Segments of
//! [`MAX_MERGE_DOCS`] documents or more are never merged. Each document is
//! merged about log8(N / 10,000) times, as with tantivy's default.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use tantivy::index::{SegmentId, SegmentMeta};
use tantivy::schema::Value;
use tantivy::{Directory, Index, IndexWriter, SegmentReader, TantivyDocument};

use crate::document::SieveDocument;
use crate::schema::{OFFSET, SOURCE};
use crate::{Error, Result};

/// Segments merged at once.
pub const MERGE_FACTOR: usize = 8;
/// Segments with this many documents or more are not merged further.
pub const MAX_MERGE_DOCS: u32 = 10_000_000;
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
    /// one of them); segments of `max_docs` documents or more are not merged
    /// further ([`MAX_MERGE_DOCS`] by default).
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
    while docs >= bound {
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
    let top = level(max_docs);
    for lvl in 0..=top {
        let run: Vec<SegmentId> = segments
            .iter()
            .rev()
            .take_while(|m| {
                !busy.contains(&m.id()) && m.max_doc() < max_docs && level(m.max_doc()) <= lvl
            })
            .map(SegmentMeta::id)
            .collect();
        if run.len() >= MERGE_FACTOR {
            return Some(run.into_iter().rev().collect());
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
    let source = schema
        .get_field(SOURCE)
        .ok()
        .and_then(|f| doc.get_first(f))
        .and_then(|v| v.as_str().map(str::to_string));
    let offset = schema
        .get_field(OFFSET)
        .ok()
        .and_then(|f| doc.get_first(f))
        .and_then(|v| v.as_u64())
        .unwrap_or(0);
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
    let mut bytes = serde_json::to_vec_pretty(&meta).map_err(|e| Error::Input {
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
        })?;
    Ok(())
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
    }
}
