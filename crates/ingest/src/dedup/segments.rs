//! The clusters of an index: the band keys read from its segments' `minhash`
//! columns, the docids of the clustered documents read from the segments'
//! docid dictionaries (one pass each, in order), and each segment's
//! cluster column (`IDX/dups/<segment>.dup.gz`) written.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use sieve_format::dups::{ColumnWriter, DUPS_DIR, Role, read_segment_dups, segment_dups_path};
use sieve_format::index::{create_private_dir, docid_column};
use sieve_format::schema::MINHASH;
use sieve_format::stats::ClusterSummary;
use tantivy::index::SegmentId;
use tantivy::{Index, Segment, SegmentReader};

use super::{Clusterer, DocRef, doc_ref};
use crate::error::io_err;
use crate::{Error, Result};

/// The ordinal standing for "no docid" in [`DocidLookup`] keys (a
/// segment's ordinals are below its `max_doc`, itself below 2^31).
const NO_DOCID: u64 = 0xFFFF_FFFF;

/// The dictionary ordinals of the docids in `ids` that hold a control
/// character, as a bit set over ordinals; `None` (nothing allocated) when
/// there is none. One pass over the dictionary.
fn control_ords(ids: &tantivy::columnar::StrColumn, dir: &Path) -> Result<Option<Vec<u64>>> {
    let dict = ids.dictionary();
    let mut stream = dict.stream().map_err(io_err(dir))?;
    let mut bits: Option<Vec<u64>> = None;
    while stream.advance() {
        if stream.key().iter().any(|&b| b < 0x20) {
            let ord = stream.term_ord();
            let bits = bits.get_or_insert_with(|| vec![0; dict.num_terms().div_ceil(64)]);
            bits[(ord / 64) as usize] |= 1 << (ord % 64);
        }
    }
    Ok(bits)
}

/// Keys of [`DocidLookup`] batched per message from its dictionary thread.
const DOCID_BATCH: usize = 4096;

/// Docids of an index's documents by (segment << 32 | dictionary ordinal)
/// keys asked in increasing order: one pass over each segment's docid
/// dictionary instead of a dictionary block decoded per lookup. One
/// segment's dictionary is open at a time: a thread streams it in order
/// (a stream borrows its dictionary, so the two live on that thread) and
/// hands its docids over in batches of [`DOCID_BATCH`]; the segment is
/// closed, and its file unmapped, when the keys move to the next one.
struct DocidLookup<'a> {
    dir: &'a Path,
    segments: &'a [Segment],
    /// The segment streamed, the batches of its docids in ordinal order,
    /// the batch being read, the ordinal of its first docid and the
    /// thread (which ends when the receiver is dropped).
    at: Option<DictFeed>,
}

struct DictFeed {
    segment: usize,
    rx: std::sync::mpsc::Receiver<Result<Vec<Vec<u8>>>>,
    batch: Vec<Vec<u8>>,
    first: u64,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for DictFeed {
    fn drop(&mut self) {
        // Hang up first, so a thread blocked on a full channel ends.
        let (_, rx) = std::sync::mpsc::sync_channel(0);
        drop(std::mem::replace(&mut self.rx, rx));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl DictFeed {
    fn open(dir: &Path, segment: &Segment, s: usize) -> DictFeed {
        let (tx, rx) = std::sync::mpsc::sync_channel(2);
        let (segment, path) = (segment.clone(), dir.to_path_buf());
        let thread = std::thread::Builder::new()
            .name("sieve-docids".into())
            .spawn(move || {
                let stream_all = || -> Result<()> {
                    let ids = docid_column(&SegmentReader::open(&segment)?, &path)?;
                    let mut stream = ids.dictionary().stream().map_err(io_err(&path))?;
                    let mut batch = Vec::with_capacity(DOCID_BATCH);
                    while stream.advance() {
                        batch.push(stream.key().to_vec());
                        if batch.len() == DOCID_BATCH {
                            let full =
                                std::mem::replace(&mut batch, Vec::with_capacity(DOCID_BATCH));
                            if tx.send(Ok(full)).is_err() {
                                return Ok(());
                            }
                        }
                    }
                    if !batch.is_empty() {
                        let _ = tx.send(Ok(batch));
                    }
                    Ok(())
                };
                if let Err(e) = stream_all() {
                    let _ = tx.send(Err(e));
                }
            });
        let (thread, rx) = match thread {
            Ok(t) => (Some(t), rx),
            Err(e) => {
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                let _ = tx.send(Err(io_err(dir)(e)));
                (None, rx)
            }
        };
        DictFeed {
            segment: s,
            rx,
            batch: Vec::new(),
            first: 0,
            thread,
        }
    }
}

/// A docid ordinal that is not in its segment's dictionary.
fn bad_ord(dir: &Path, segment: usize, ord: u64) -> Error {
    Error::Format(sieve_format::Error::NearDuplicates {
        path: dir.to_path_buf(),
        what: "docid ordinal",
        expected: format!("an ordinal of the docid dictionary of segment {segment}"),
        found: ord.to_string(),
    })
}

impl DocidLookup<'_> {
    /// The docid of key `segment << 32 | ordinal` (empty for
    /// [`NO_DOCID`]); keys must not decrease.
    fn docid(&mut self, key: u64) -> Result<String> {
        let (s, ord) = ((key >> 32) as usize, key & NO_DOCID);
        if ord == NO_DOCID {
            return Ok(String::new());
        }
        if self.at.as_ref().is_none_or(|f| f.segment != s) {
            // Close the previous segment before opening the next.
            self.at = None;
            let segment = self
                .segments
                .get(s)
                .ok_or_else(|| bad_ord(self.dir, s, ord))?;
            self.at = Some(DictFeed::open(self.dir, segment, s));
        }
        let feed = self.at.as_mut().expect("set above");
        if ord < feed.first {
            return Err(bad_ord(self.dir, s, ord));
        }
        while ord >= feed.first + feed.batch.len() as u64 {
            feed.first += feed.batch.len() as u64;
            feed.batch = match feed.rx.recv() {
                Ok(b) => b?,
                Err(_) => return Err(bad_ord(self.dir, s, ord)),
            };
        }
        // Not taken: documents may share a docid, so an ordinal may be
        // asked twice.
        let key = feed.batch[(ord - feed.first) as usize].clone();
        String::from_utf8(key)
            .map_err(|e| io_err(self.dir)(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
    }
}

/// The docid column of the segment asked last, opened again when the
/// segment changes (so one segment's file is mapped at a time).
struct OrdLookup<'a> {
    dir: &'a Path,
    segments: &'a [Segment],
    at: Option<(usize, tantivy::columnar::StrColumn)>,
}

impl OrdLookup<'_> {
    /// The [`DocidLookup`] key of document `r` (segments must not decrease).
    fn key(&mut self, r: DocRef) -> Result<u64> {
        let (s, doc) = ((r >> 32) as usize, r as u32);
        if self.at.as_ref().is_none_or(|(at, _)| *at != s) {
            self.at = None;
            let segment = self
                .segments
                .get(s)
                .ok_or_else(|| bad_ord(self.dir, s, 0))?;
            let ids = docid_column(&SegmentReader::open(segment)?, self.dir)?;
            self.at = Some((s, ids));
        }
        let (_, ids) = self.at.as_ref().expect("set above");
        let ord = match ids.term_ords(doc).next() {
            None => NO_DOCID,
            Some(o) if o < NO_DOCID => o,
            Some(o) => return Err(bad_ord(self.dir, s, o)),
        };
        Ok(((s as u64) << 32) | ord)
    }
}

/// Clusters the documents of the index in `dir` by their `minhash` band
/// keys and writes every segment's cluster column (removing columns of
/// segments that are gone). `run_lines`: lines per sorted run.
///
/// Memory: one segment is open at a time (read for its band keys, then
/// again for the docids of its clustered documents, then its column
/// written), so the index files mapped are at most one segment's, however
/// many segments the index has; the sorts hold what [`Clusterer`] says.
pub fn write_index_dups(dir: &Path, index: &Index, run_lines: usize) -> Result<ClusterSummary> {
    write_index_dups_from(dir, index, run_lines, None)
}

/// The band keys of the first segments of an index, read while a build
/// goes on (see [`EarlyKeys::read`]), for [`write_index_dups_from`].
pub struct EarlyKeys {
    pub(super) clusterer: Clusterer,
    pub(super) segments: Vec<SegmentId>,
    pub(super) run_lines: usize,
}

impl EarlyKeys {
    /// Reads the band keys of `segments` (of the index in `dir`), which
    /// should be the first segments of the finished index, in its order,
    /// into a new clusterer with runs of `run_lines` records.
    pub fn read(
        dir: &Path,
        index: &Index,
        segments: &[tantivy::index::SegmentMeta],
        run_lines: usize,
    ) -> Result<EarlyKeys> {
        let mut clusterer = Clusterer::new(dir, run_lines)?;
        let mut keys = Vec::new();
        for (s, meta) in segments.iter().enumerate() {
            add_segment_keys(
                &mut clusterer,
                dir,
                &index.segment(meta.clone()),
                s,
                &mut keys,
            )?;
        }
        Ok(EarlyKeys {
            clusterer,
            segments: segments.iter().map(|m| m.id()).collect(),
            run_lines,
        })
    }
}

/// Adds the band keys of every document of `segment`, the index's `s`-th.
fn add_segment_keys(
    c: &mut Clusterer,
    dir: &Path,
    segment: &Segment,
    s: usize,
    keys: &mut Vec<u64>,
) -> Result<()> {
    let seg = SegmentReader::open(segment)?;
    let ids = docid_column(&seg, dir)?;
    let unclusterable = control_ords(&ids, dir)?;
    let col = seg.fast_fields().u64(MINHASH)?;
    for doc in 0..seg.max_doc() {
        keys.clear();
        keys.extend(col.values_for_doc(doc));
        if keys.is_empty() {
            continue;
        }
        let clusterable = unclusterable.as_ref().is_none_or(|bits| {
            ids.term_ords(doc)
                .next()
                .is_none_or(|ord| bits[(ord / 64) as usize] & (1 << (ord % 64)) == 0)
        });
        c.add_checked(doc_ref(s as u32, doc), clusterable, keys)?;
    }
    Ok(())
}

/// [`write_index_dups`], starting from the keys `early` read of the
/// index's first segments when they are still its first segments, in the
/// same order, with runs of `run_lines` records (else `early` is dropped
/// and every segment is read). The clusters are the same either way: the
/// documents are numbered, and their keys added, in the same order.
pub fn write_index_dups_from(
    dir: &Path,
    index: &Index,
    run_lines: usize,
    early: Option<EarlyKeys>,
) -> Result<ClusterSummary> {
    let segments = index.searchable_segments()?;
    let ddir = dir.join(DUPS_DIR);
    create_private_dir(&ddir)?;
    // Dropped before a new clusterer is made (which removes the
    // temporary directories of others).
    let early = early.filter(|e| e.still_first(&segments, run_lines));
    let (mut c, from) = match early {
        Some(e) => (e.clusterer, e.segments.len()),
        None => (Clusterer::new(dir, run_lines)?, 0),
    };
    let mut keys = Vec::new();
    for (s, segment) in segments.iter().enumerate().skip(from) {
        add_segment_keys(&mut c, dir, segment, s, &mut keys)?;
    }
    let mut columns = Columns {
        dir,
        segments: &segments,
        column: None,
        next: 0,
    };
    let mut ords = OrdLookup {
        dir,
        segments: &segments,
        at: None,
    };
    let mut lookup = DocidLookup {
        dir,
        segments: &segments,
        at: None,
    };
    let summary = c.finish(
        |r| ords.key(r),
        |key, _| lookup.docid(key),
        |r, own, rep| columns.line(r, if own == rep { "=" } else { rep }),
    )?;
    drop((ords, lookup));
    columns.finish()?;
    remove_stale_columns(&ddir, &segments, dir)?;
    Ok(summary)
}

impl EarlyKeys {
    /// Whether these keys are of the first of `segments`, in the same
    /// order, read with runs of `run_lines` records.
    fn still_first(&self, segments: &[Segment], run_lines: usize) -> bool {
        self.run_lines == run_lines
            && segments.len() >= self.segments.len()
            && segments
                .iter()
                .zip(&self.segments)
                .all(|(s, id)| s.id() == *id)
    }
}

/// The cluster columns of an index's segments, written segment after
/// segment (documents come in increasing [`DocRef`] order): one open at a
/// time.
struct Columns<'a> {
    dir: &'a Path,
    segments: &'a [Segment],
    /// The column being written, and its segment.
    column: Option<(usize, ColumnWriter)>,
    /// Segments before this one are written.
    next: usize,
}

impl Columns<'_> {
    /// Writes `line` for document `r` (in increasing order), finishing the
    /// columns of the segments before its own (those without a clustered
    /// document empty).
    fn line(&mut self, r: DocRef, line: &str) -> Result<()> {
        let (s, doc) = ((r >> 32) as usize, r as u32);
        if self.column.as_ref().is_none_or(|(at, _)| *at != s) {
            if let Some((_, w)) = self.column.take() {
                w.finish()?;
            }
            while self.next < s {
                ColumnWriter::create(self.dir, &self.segments[self.next])?.finish()?;
                self.next += 1;
            }
            let segment = (self.segments)
                .get(s)
                .ok_or_else(|| bad_ord(self.dir, s, u64::from(doc)))?;
            self.column = Some((s, ColumnWriter::create(self.dir, segment)?));
            self.next = s + 1;
        }
        let (_, w) = self.column.as_mut().expect("set above");
        Ok(w.line(doc, line)?)
    }

    /// Finishes the column being written and those of the segments after
    /// it.
    fn finish(mut self) -> Result<()> {
        if let Some((_, w)) = self.column.take() {
            w.finish()?;
        }
        for segment in &self.segments[self.next.min(self.segments.len())..] {
            ColumnWriter::create(self.dir, segment)?.finish()?;
        }
        Ok(())
    }
}

/// Removes the columns in `ddir` of segments no longer among `segments`
/// (of the index in `dir`).
fn remove_stale_columns(ddir: &Path, segments: &[Segment], dir: &Path) -> Result<()> {
    let keep: HashSet<PathBuf> = segments
        .iter()
        .map(|s| segment_dups_path(dir, s.id()))
        .collect();
    for entry in std::fs::read_dir(ddir).map_err(io_err(ddir))? {
        let path = entry.map_err(io_err(ddir))?.path();
        if !keep.contains(&path) {
            std::fs::remove_file(&path).map_err(io_err(&path))?;
        }
    }
    Ok(())
}

/// Calls `f(docid, representative)` for every document of the index in
/// `dir` that is in a near-duplicate cluster of two or more, in index
/// order (a representative names itself): the index's version of
/// `extract`'s `near-duplicates.tsv.gz`. Returns the number of documents
/// named.
pub fn for_each_clustered_doc(dir: &Path, mut f: impl FnMut(&str, &str)) -> Result<u64> {
    let (index, _) = sieve_format::index::open_index(dir)?;
    let searcher = index.reader()?.searcher();
    let mut n = 0;
    let mut docid = String::new();
    for seg in searcher.segment_readers() {
        let ids = docid_column(seg, dir)?;
        let mut err = None;
        read_segment_dups(dir, seg, |doc, role| {
            if role == Role::Alone || err.is_some() {
                return;
            }
            docid.clear();
            if let Some(ord) = ids.term_ords(doc).next()
                && let Err(e) = ids.ord_to_str(ord, &mut docid)
            {
                err = Some(e);
                return;
            }
            match role {
                Role::Representative => f(&docid, &docid),
                Role::DuplicateOf(rep) => f(&docid, rep),
                Role::Alone => {}
            }
            n += 1;
        })?;
        if let Some(e) = err {
            return Err(io_err(dir)(e));
        }
    }
    Ok(n)
}
