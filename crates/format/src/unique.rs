//! Unique docids: an index holds each docid once.
//!
//! # The rule
//!
//! The first record with a docid, in index order (which is input order:
//! the expanded, sorted input list, file by file, record by record; see
//! `sieve_ingest::order`), is the one indexed. Every later record with the same
//! docid is removed from the index and counted as a loss: skip reason
//! `duplicate_docid` in its file's statistics (`indexed` one less), and a
//! line in `losses.jsonl` naming both places:
//! `{"file":..,"offset":..,"record_id":<docid>,"reason":"duplicate_docid","kept_file":..,"kept_offset":..}`.
//! This holds within a file, across files, across `--resume` (the check
//! runs over the whole index at the end of every build) and across shards
//! merged by `sieve-index merge` (the check runs over the merged index).
//!
//! # Why after the build, not while writing
//!
//! A check while writing would need, for every document, either a set of
//! every docid seen so far (500 million at ClueWeb scale) or a lookup in the
//! committed index (not possible for the uncommitted segment). Instead
//! `sieve_ingest`'s `remove_duplicates` runs once over the finished index, after the last
//! commit and before the block-max bounds and near-duplicate sidecars:
//!
//! 1. every live document's docid (the docid field's terms, streamed per
//!    segment with their postings) is hashed to 128 bits and written with
//!    its place in index order (segment ordinal, document) as a record of
//!    three integers to sorted runs ([`crate::extsort`]);
//! 2. the runs are merged: records with one hash are adjacent, in index
//!    order ([`DupFinder`]). The docids of such a group are read from the
//!    document store and compared as strings, so a hash collision removes
//!    nothing: the check is exact;
//! 3. the later copies are logged, deleted with a query over their exact
//!    segment doc ids, committed (in a build, with the corrected statistics
//!    and losses length as the resume checkpoint), and every segment with
//!    deleted documents is merged by itself, so no deleted document is left
//!    anywhere: tantivy counts deleted documents in `doc_freq`, the
//!    document count and the field norms until a merge drops them, and BM25
//!    statistics must equal those of an index built without the copies.
//!    One figure the merge does not make exact: tantivy recomputes the
//!    token total of a merged segment that had deleted documents from the
//!    quantised field norms. So a search of an index from which copies
//!    were removed (its `stats.json` counts `duplicate_docid` skips) sums
//!    the exact per-document token counts instead ([`check_unique`],
//!    [`exact_token_totals`]): one pass over two fast fields, only for
//!    such an index.
//!
//! # Memory
//!
//! At most [`RUN_RECORDS`] records (24 bytes each: 96 MiB) are held, plus
//! a read buffer (8 KiB) per run file when they are merged (about 60 files
//! per billion documents), one group of equal hashes, and 4 bytes per later
//! copy until the deletion is committed. Nothing grows with the number of
//! distinct docids. The run files (24 bytes per document) go to a temporary
//! directory inside the index directory.

use std::hash::{Hash, Hasher};
use std::path::Path;

use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, DocSet, Index, Searcher, TERMINATED, TantivyDocument};

use crate::extsort::RecordRuns;
use crate::index::{docid_of, stored_str, stored_u64};
use crate::schema::{DOCID, OFFSET, SOURCE};
use crate::{Error, Result};

/// Records held in memory before a sorted run is written (24 bytes each).
pub const RUN_RECORDS: usize = 1 << 22;

/// The skip reason of a later copy.
pub const DUPLICATE_DOCID: &str = "duplicate_docid";

/// The 128-bit hash of a docid (two SipHash-1-3 values with fixed keys).
pub fn hash128(docid: &[u8]) -> [u64; 2] {
    let mut out = [0u64; 2];
    for (k, o) in out.iter_mut().enumerate() {
        let mut h = std::hash::DefaultHasher::new();
        (k as u8).hash(&mut h);
        h.write(docid);
        *o = h.finish();
    }
    out
}

/// A document's place in index order: segment ordinal, then doc id.
pub fn place(segment: usize, doc: DocId) -> u64 {
    ((segment as u64) << 32) | u64::from(doc)
}

/// The (segment ordinal, doc id) of a [`place`].
pub fn address(place: u64) -> DocAddress {
    DocAddress::new((place >> 32) as u32, place as u32)
}

/// Finds the docids given more than once among a stream of (docid, place),
/// in bounded memory (see the module docs): an external sort of (hash,
/// place) records.
pub struct DupFinder {
    runs: RecordRuns<3>,
}

impl DupFinder {
    /// A finder writing its runs of at most `run_records` records to `dir`.
    pub fn new(dir: &Path, run_records: usize) -> Self {
        DupFinder {
            runs: RecordRuns::new(dir, "docids", run_records),
        }
    }

    /// Adds one docid at `place`.
    pub fn push(&mut self, docid: &[u8], place: u64) -> Result<()> {
        self.push_hash(hash128(docid), place)
    }

    fn push_hash(&mut self, h: [u64; 2], place: u64) -> Result<()> {
        self.runs.push([h[0], h[1], place])
    }

    /// Calls `f` on every group of two or more places whose docids share a
    /// hash (in increasing place order; the caller compares the docids),
    /// and returns the number of docids pushed.
    pub fn finish<E: From<Error>>(
        self,
        mut f: impl FnMut(&[u64]) -> Result<(), E>,
    ) -> Result<u64, E> {
        let records = self.runs.finish()?;
        let n = records.len() as u64;
        let mut group: Vec<u64> = Vec::new();
        let mut hash = [0u64; 2];
        records.merge::<E>(|[a, b, p]| {
            if group.is_empty() || hash != [a, b] {
                if group.len() > 1 {
                    f(&group)?;
                }
                group.clear();
                hash = [a, b];
            }
            group.push(p);
            Ok(())
        })?;
        if group.len() > 1 {
            f(&group)?;
        }
        Ok(n)
    }
}

/// Where a record lies in its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The input file, as given to the build.
    pub file: String,
    /// The record's byte offset in the (decompressed) file.
    pub offset: u64,
}

/// A later copy of a docid, and the copy kept.
#[derive(Debug, Clone)]
pub struct Duplicate {
    /// The docid.
    pub docid: String,
    /// The first copy, kept.
    pub kept: Place,
    /// This copy, removed.
    pub skipped: Place,
    /// Its place in index order ([`place`]).
    pub at: u64,
}

/// The docid (from its fast field) and place (stored) of the document at
/// `at`.
fn stored(searcher: &Searcher, at: u64) -> Result<(String, Place)> {
    let addr = address(at);
    let doc: TantivyDocument = searcher.doc(addr)?;
    let schema = searcher.schema();
    let text = |name: &str| stored_str(schema, &doc, name).unwrap_or_default();
    let offset = stored_u64(schema, &doc, OFFSET).unwrap_or(0);
    let seg = searcher.segment_reader(addr.segment_ord);
    let segment = seg.segment_id().uuid_string();
    Ok((
        docid_of(seg, addr.doc_id, Path::new(&segment))?,
        Place {
            file: text(SOURCE),
            offset,
        },
    ))
}

/// Streams the docid and place of every live document of `searcher` into
/// `finder`: the docid terms of each segment with their postings.
fn scan(searcher: &Searcher, finder: &mut DupFinder) -> Result<()> {
    let field = searcher.schema().get_field(DOCID)?;
    for (ord, seg) in searcher.segment_readers().iter().enumerate() {
        let inverted = seg.inverted_index(field)?;
        let alive = seg.alive_bitset();
        let io = |source| Error::Io {
            path: seg.segment_id().uuid_string().into(),
            source,
        };
        let mut terms = inverted.terms().stream().map_err(io)?;
        while terms.advance() {
            let h = hash128(terms.key());
            let mut postings = inverted
                .read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)
                .map_err(io)?;
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    finder.push_hash(h, place(ord, doc))?;
                }
                doc = postings.advance();
            }
        }
    }
    Ok(())
}

/// Calls `f` on every later copy of a docid among the live documents of
/// `searcher` (grouped by docid; in hash order between docids), sorting in
/// `tmp` with runs of `run_records` records. Returns the documents seen.
pub fn find_duplicates<E: From<Error>>(
    searcher: &Searcher,
    tmp: &Path,
    run_records: usize,
    mut f: impl FnMut(Duplicate) -> Result<(), E>,
) -> Result<u64, E> {
    let mut finder = DupFinder::new(tmp, run_records);
    scan(searcher, &mut finder)?;
    finder.finish(|group| {
        // Same hash: compare the docids themselves (first copy first).
        let mut firsts: Vec<(String, Place)> = Vec::new();
        for &at in group {
            let (docid, here) = stored(searcher, at)?;
            match firsts.iter().find(|(d, _)| *d == docid) {
                Some((_, kept)) => f(Duplicate {
                    docid,
                    kept: kept.clone(),
                    skipped: here,
                    at,
                })?,
                None => firsts.push((docid, here)),
            }
        }
        Ok(())
    })
}

/// The first later copy of a docid in the index in `dir`, if any (for an
/// index built before duplicates were removed; sorts in a temporary
/// directory of the system's).
pub fn first_duplicate(index: &Index) -> Result<Option<Duplicate>> {
    let searcher = index.reader()?.searcher();
    let tmp = tempfile::tempdir().map_err(crate::index::io_err(&std::env::temp_dir()))?;
    let mut first: Option<Duplicate> = None;
    find_duplicates::<Error>(&searcher, tmp.path(), RUN_RECORDS, |d| {
        if first.as_ref().is_none_or(|f| d.at < f.at) {
            first = Some(d);
        }
        Ok(())
    })?;
    Ok(first)
}

/// Checks that the index `index` in `dir` holds each docid once: at once
/// when its `stats.json` says the build removed later copies, otherwise
/// (an index built before that rule) by looking for one. Refuses the first
/// duplicate found with [`Error::DuplicateDocid`], naming both places.
///
/// Returns whether later copies were removed from this index (its
/// `stats.json` counts `duplicate_docid` skips): then the per-segment token
/// totals tantivy keeps are estimates (a merge of a segment with deleted
/// documents recomputes them from the quantised field norms), and a search
/// must use [`exact_token_totals`] instead.
pub fn check_unique(dir: &Path, index: &Index) -> Result<bool> {
    let stats: Option<crate::stats::BuildStats> =
        crate::index::read_json(&dir.join(crate::stats::STATS)).ok();
    if let Some(s) = stats.filter(|s| s.unique_docids) {
        return Ok(s
            .totals
            .skipped
            .get(DUPLICATE_DOCID)
            .is_some_and(|n| *n > 0));
    }
    match first_duplicate(index)? {
        None => Ok(false),
        Some(d) => Err(Error::DuplicateDocid {
            index: dir.to_path_buf(),
            docid: d.docid,
            kept_file: d.kept.file,
            kept_offset: d.kept.offset,
            file: d.skipped.file,
            offset: d.skipped.offset,
        }),
    }
}

/// The exact token totals of the `body` and `title` fields over the live
/// documents of `searcher`: the sums of the per-document counts
/// (`body_tokens`, `title_tokens`). One pass over two fast fields.
pub fn exact_token_totals(searcher: &Searcher) -> Result<[u64; 2]> {
    let mut totals = [0u64; 2];
    for seg in searcher.segment_readers() {
        let ff = seg.fast_fields();
        let cols = [
            ff.u64(crate::schema::BODY_TOKENS)?,
            ff.u64(crate::schema::TITLE_TOKENS)?,
        ];
        for doc in seg.doc_ids_alive() {
            for (t, c) in totals.iter_mut().zip(&cols) {
                *t += c.first(doc).unwrap_or(0);
            }
        }
    }
    Ok(totals)
}
