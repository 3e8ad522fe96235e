//! Block-max bounds that hold for every BM25 setting: one sealed sidecar
//! file per segment, `IDX/bounds/<segment id>.bmx`.
//!
//! BM25's contribution of a term to a document,
//! `w · tf / (tf + k1 · (1 − b + b · dl / avgdl))`, rises with `tf` and falls with the field length
//! `dl` for every `k1 >= 0`, `0 <= b <= 1`, `avgdl > 0` and term weight
//! `w >= 0`. So for a set of postings, the Pareto frontier of its (tf,
//! fieldnorm id) points (no point has both a larger tf and a smaller
//! fieldnorm id) bounds the contribution of every posting in the set for
//! every parameter setting and every collection statistics (one index,
//! global over shards, filtered): the bound is the maximum of the formula
//! over the frontier points. Frontiers are cut to a few points by merging
//! two neighbours into (larger tf, smaller fieldnorm id), which dominates
//! both, so a cut frontier is still a bound.
//!
//! For each indexed text field, each term with at least [`MIN_DOC_FREQ`]
//! postings gets a frontier over all its postings (at most [`TERM_POINTS`]
//! points) and frontiers over runs of its postings. Doc ids are cut into
//! grid blocks of [`BLOCK_DOCS`] (block `i` holds doc ids
//! `i·BLOCK_DOCS .. (i+1)·BLOCK_DOCS`); a term's postings are grouped, in
//! doc id order, into **entries** of whole consecutive grid blocks, each
//! closed at the first grid-block boundary after it holds at least
//! [`ENTRY_POSTINGS`] postings, and each entry gets the frontier of its
//! postings (at most [`BLOCK_POINTS`] points). A frequent term so has an
//! entry per grid block, a rarer one an entry per few hundred postings:
//! the file stays small next to the postings whatever the term's
//! frequency, and a grid block's bound for a term is its entry's frontier.
//! Rarer terms have no entry: their postings are short enough to score
//! without bounds. Deleted documents keep their postings, so the bounds
//! cover them too (a bound may only be too high).
//!
//! The file also holds the segment's **docid table**: the docids of its
//! `docid` fast field in dictionary (ordinal) order, prefix-compressed
//! with a restart every [`DOCID_RESTART`] docids, so that a search reads
//! the docid of any ordinal by decoding at most that many entries
//! (tantivy's own dictionary decodes up to a whole 4 KB block per
//! lookup, which dominated the cost of a top-1000 search).
//!
//! # File format
//!
//! A sealed binary file ([`sieve_filters::sealed`], kind `SIEVE-BLOCKMAX`,
//! version [`VERSION`]) whose payload is, integers little-endian:
//!
//! ```text
//! segment id (32 ASCII hex digits), max_doc u32, BLOCK_DOCS u32, field count u32
//! per field: name length u32, name, term count u64, total tokens u64,
//!            stored terms n u64, term ordinals n × u64 (ascending),
//!            offsets (n + 1) × u64 into the data, data length u64, data
//! per stored term (data): global frontier, entry count (varint),
//!            per entry: last grid block delta (varint; the first is
//!            absolute, then the difference to the previous entry's last
//!            block, >= 1), frontier
//! frontier: point count u8, per point tf (varint) and fieldnorm id u8,
//!            fieldnorm ids ascending, tfs ascending
//! docid table: docid count u64, restart interval u32,
//!            restart offsets ceil(count / interval) × u64 into the data,
//!            data length u64, data
//! docid table data, per docid: at a restart, length (varint) and bytes;
//!            otherwise bytes shared with the previous docid (varint),
//!            suffix length (varint) and suffix bytes
//! ```
//!
//! The segment id, `max_doc`, each field's term count and total token
//! count and the docid count are the segment's fingerprint: a file from
//! another segment, or from an older state of this one, is refused
//! ([`Error::Bounds`]).

use std::path::{Path, PathBuf};

use sieve_filters::sealed;
use tantivy::postings::Postings;
use tantivy::schema::{Field, IndexRecordOption, Schema};
use tantivy::{Index, SegmentReader, TERMINATED};

use crate::index::{create_private_dir, io_err};
use crate::schema::{BODY, DOCID, TITLE};
use crate::{Error, Result};

/// The directory, inside an index directory, of the bounds files.
pub const BOUNDS_DIR: &str = "bounds";
/// Doc ids per block.
pub const BLOCK_DOCS: u32 = 1024;
/// Terms with fewer postings in a segment get no bounds.
pub const MIN_DOC_FREQ: u32 = 256;
/// Postings an entry holds at least (but its last) before it is closed at
/// the next grid-block boundary.
pub const ENTRY_POSTINGS: u32 = 128;
/// Most frontier points kept per entry.
pub const BLOCK_POINTS: usize = 4;
/// Most frontier points kept per term.
pub const TERM_POINTS: usize = 8;
/// Docids between two restarts of the docid table's prefix compression.
pub const DOCID_RESTART: u32 = 16;
/// The file format's version.
pub const VERSION: u32 = 2;
const MAGIC: &str = "SIEVE-BLOCKMAX";
/// The text fields that get bounds.
const FIELDS: [&str; 2] = [BODY, TITLE];

/// One frontier point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    /// A term frequency.
    pub tf: u32,
    /// A fieldnorm id (tantivy's one-byte quantised field length).
    pub fid: u8,
}

/// Replaces `points` by their Pareto frontier (a point is dropped when
/// another has a tf at least as large and a fieldnorm id at least as
/// small), fieldnorm ids ascending (so tfs strictly ascending), cut to at
/// most `max` (>= 1) points by merging neighbours into (larger tf, smaller
/// fieldnorm id). Every input point is dominated by an output point.
pub fn frontier(points: &mut Vec<Point>, max: usize) {
    points.sort_unstable_by(|a, b| a.fid.cmp(&b.fid).then(b.tf.cmp(&a.tf)));
    let mut best = 0;
    points.retain(|p| {
        let keep = p.tf > best;
        best = best.max(p.tf);
        keep
    });
    while points.len() > max.max(1) {
        // Merge the neighbours whose merged point overstates least.
        let cost = |i: usize| {
            let (a, b) = (points[i], points[i + 1]);
            (b.tf - a.tf) as f32 / b.tf as f32 + f32::from(b.fid - a.fid) / 256.0
        };
        let i = (0..points.len() - 1)
            .min_by(|&x, &y| cost(x).total_cmp(&cost(y)))
            .unwrap_or(0);
        points[i].tf = points[i + 1].tf;
        points.remove(i + 1);
    }
}

/// The bounds of one term in one segment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermBounds {
    /// Frontier over all the term's postings.
    pub global: Vec<Point>,
    /// The last grid block of each entry, strictly ascending: entry `i`
    /// covers the grid blocks `lasts[i - 1] + 1 ..= lasts[i]` (from block
    /// 0 for the first), and every posting of the term in them.
    pub lasts: Vec<u32>,
    /// `starts[i]..starts[i + 1]` are entry `i`'s points.
    pub starts: Vec<u32>,
    /// Every entry's frontier points, entry after entry.
    pub points: Vec<Point>,
}

impl TermBounds {
    /// The frontier of entry `i`.
    pub fn entry(&self, i: usize) -> &[Point] {
        &self.points[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// The bounds of one segment, read from its sidecar file.
#[derive(Debug)]
pub struct SegmentBounds {
    path: PathBuf,
    fields: Vec<FieldBounds>,
    docids: DocidTable,
}

/// The docid table (see the module docs).
#[derive(Debug, Default)]
struct DocidTable {
    count: u64,
    interval: u32,
    restarts: Vec<u64>,
    data: Vec<u8>,
}

#[derive(Debug)]
struct FieldBounds {
    name: String,
    term_ords: Vec<u64>,
    offsets: Vec<u64>,
    data: Vec<u8>,
}

/// The sidecar file of `segment` in the index directory `dir`.
pub fn bounds_path(dir: &Path, segment: &SegmentReader) -> PathBuf {
    dir.join(BOUNDS_DIR)
        .join(format!("{}.bmx", segment.segment_id().uuid_string()))
}

fn field_handles(schema: &Schema) -> Vec<(&'static str, Field)> {
    FIELDS
        .iter()
        .filter_map(|n| schema.get_field(n).ok().map(|f| (*n, f)))
        .collect()
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_frontier(out: &mut Vec<u8>, points: &[Point]) {
    out.push(points.len() as u8);
    for p in points {
        put_varint(out, u64::from(p.tf));
        out.push(p.fid);
    }
}

/// The bounds of one term's postings (`None` below [`MIN_DOC_FREQ`]),
/// encoded as in the module docs.
fn term_data(
    postings: &mut dyn Postings,
    fieldnorms: &tantivy::fieldnorm::FieldNormReader,
    doc_freq: u32,
) -> Option<Vec<u8>> {
    if doc_freq < MIN_DOC_FREQ {
        return None;
    }
    let mut global: Vec<Point> = Vec::new();
    let mut entry: Vec<Point> = Vec::new();
    let mut entries = Vec::new();
    let mut count = 0u64;
    let mut prev_last: Option<u32> = None;
    let mut flush = |last: u32, entry: &mut Vec<Point>, global: &mut Vec<Point>| {
        frontier(entry, BLOCK_POINTS);
        put_varint(&mut entries, u64::from(last - prev_last.map_or(0, |p| p)));
        put_frontier(&mut entries, entry);
        global.extend_from_slice(entry);
        frontier(global, TERM_POINTS);
        prev_last = Some(last);
        entry.clear();
    };
    // The grid block of the last posting read, and the postings of the
    // pending entry.
    let mut current: Option<u32> = None;
    let mut pending = 0u32;
    let mut doc = postings.doc();
    while doc != TERMINATED {
        let idx = doc / BLOCK_DOCS;
        if let Some(c) = current
            && idx != c
            && pending >= ENTRY_POSTINGS
        {
            flush(c, &mut entry, &mut global);
            count += 1;
            pending = 0;
        }
        current = Some(idx);
        pending += 1;
        entry.push(Point {
            tf: postings.term_freq().max(1),
            fid: fieldnorms.fieldnorm_id(doc),
        });
        // Keep the pending points few: their frontier bounds them all.
        if entry.len() >= 4 * ENTRY_POSTINGS as usize {
            let n = entry.len();
            frontier(&mut entry, n);
        }
        doc = postings.advance();
    }
    if let Some(c) = current {
        flush(c, &mut entry, &mut global);
        count += 1;
    }
    let mut out = Vec::with_capacity(entries.len() + 24);
    put_frontier(&mut out, &global);
    put_varint(&mut out, count);
    out.extend_from_slice(&entries);
    Some(out)
}

/// The docid table of `segment` (see the module docs): its docid
/// dictionary in ordinal order.
fn docid_table(segment: &SegmentReader, out: &mut Vec<u8>) -> Result<()> {
    let mut data = Vec::new();
    let mut restarts = Vec::new();
    let mut count = 0u64;
    if let Some(column) = segment.fast_fields().str(DOCID)? {
        let mut stream = column
            .dictionary()
            .stream()
            .map_err(tantivy::TantivyError::from)?;
        let mut prev: Vec<u8> = Vec::new();
        while stream.advance() {
            let key = stream.key();
            if count.is_multiple_of(u64::from(DOCID_RESTART)) {
                restarts.push(data.len() as u64);
                put_varint(&mut data, key.len() as u64);
                data.extend_from_slice(key);
            } else {
                let shared = prev.iter().zip(key).take_while(|(a, b)| a == b).count();
                put_varint(&mut data, shared as u64);
                put_varint(&mut data, (key.len() - shared) as u64);
                data.extend_from_slice(&key[shared..]);
            }
            prev.clear();
            prev.extend_from_slice(key);
            count += 1;
        }
    }
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&DOCID_RESTART.to_le_bytes());
    for r in &restarts {
        out.extend_from_slice(&r.to_le_bytes());
    }
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    out.extend_from_slice(&data);
    Ok(())
}

/// The number of docids in `segment`'s docid dictionary.
fn docid_count(segment: &SegmentReader) -> Result<u64> {
    Ok(segment
        .fast_fields()
        .str(DOCID)?
        .map_or(0, |c| c.dictionary().num_terms() as u64))
}

/// The sidecar payload of `segment` (see the module docs).
pub fn segment_payload(segment: &SegmentReader, schema: &Schema) -> Result<Vec<u8>> {
    let fields = field_handles(schema);
    let mut out = segment.segment_id().uuid_string().into_bytes();
    out.extend_from_slice(&segment.max_doc().to_le_bytes());
    out.extend_from_slice(&BLOCK_DOCS.to_le_bytes());
    out.extend_from_slice(&(fields.len() as u32).to_le_bytes());
    for (name, field) in fields {
        let inverted = segment.inverted_index(field)?;
        let fieldnorms = segment.get_fieldnorms_reader(field)?;
        let (mut ords, mut offsets, mut data) = (Vec::new(), vec![0u64], Vec::new());
        let mut stream = inverted
            .terms()
            .stream()
            .map_err(tantivy::TantivyError::from)?;
        while stream.advance() {
            let info = stream.value().clone();
            if info.doc_freq < MIN_DOC_FREQ {
                continue;
            }
            let mut postings = inverted
                .read_postings_from_terminfo(&info, IndexRecordOption::WithFreqs)
                .map_err(tantivy::TantivyError::from)?;
            if let Some(d) = term_data(&mut postings, &fieldnorms, info.doc_freq) {
                ords.push(stream.term_ord());
                data.extend_from_slice(&d);
                offsets.push(data.len() as u64);
            }
        }
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&(inverted.terms().num_terms() as u64).to_le_bytes());
        out.extend_from_slice(&inverted.total_num_tokens().to_le_bytes());
        out.extend_from_slice(&(ords.len() as u64).to_le_bytes());
        for v in ords.iter().chain(&offsets) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&data);
    }
    docid_table(segment, &mut out)?;
    Ok(out)
}

/// What [`write_index_bounds`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BoundsSummary {
    /// Segments in the index.
    pub segments: usize,
    /// Files written (the others were already valid).
    pub written: usize,
    /// Stale files removed (of segments no longer in the index).
    pub removed: usize,
    /// Total size of the bounds files, in bytes.
    pub bytes: u64,
}

/// Writes the sidecar file of every segment of the index in `dir` that
/// lacks a valid one (each through a temporary file renamed into place),
/// and removes the files of segments no longer in the index.
///
/// Segments are done in parallel on the caller's rayon pool, each opened on
/// its own and closed (its files unmapped) once its sidecar is written: the
/// index files mapped are at most one segment's per pool thread, however
/// many segments the index has.
pub fn write_index_bounds(dir: &Path, index: &Index) -> Result<BoundsSummary> {
    use rayon::prelude::*;
    let segments = index.searchable_segments()?;
    let bdir = dir.join(BOUNDS_DIR);
    create_private_dir(&bdir)?;
    let schema = index.schema();
    let done: Vec<(PathBuf, bool, u64)> = segments
        .par_iter()
        .map(|segment| write_segment_bounds(dir, &SegmentReader::open(segment)?, &schema))
        .collect::<Result<_>>()?;
    let mut summary = BoundsSummary {
        segments: segments.len(),
        ..Default::default()
    };
    let mut keep = std::collections::HashSet::new();
    for (path, written, bytes) in done {
        summary.written += usize::from(written);
        summary.bytes += bytes;
        keep.insert(path);
    }
    for entry in std::fs::read_dir(&bdir).map_err(io_err(&bdir))? {
        let path = entry.map_err(io_err(&bdir))?.path();
        if !keep.contains(&path) {
            std::fs::remove_file(&path).map_err(io_err(&path))?;
            summary.removed += 1;
        }
    }
    Ok(summary)
}

/// Writes the sidecar file of every committed segment of the index in
/// `dir` that has none yet, one segment at a time on the calling thread,
/// and removes nothing: for a build to write the sidecars of the segments
/// it has committed while it goes on indexing, so that its final
/// [`write_index_bounds`] has only the last segments (and those merges
/// made) left to do. A segment merged away meanwhile may fail to open (it
/// is skipped) or leave a sidecar that the final pass removes. Returns the
/// number of files written.
pub fn write_committed_bounds(dir: &Path, index: &Index) -> Result<usize> {
    let bdir = dir.join(BOUNDS_DIR);
    create_private_dir(&bdir)?;
    let schema = index.schema();
    let mut written = 0;
    for segment in index.searchable_segments()? {
        let path = dir
            .join(BOUNDS_DIR)
            .join(format!("{}.bmx", segment.id().uuid_string()));
        if path.exists() {
            continue;
        }
        // Gone since the list was read: merged away.
        let Ok(reader) = SegmentReader::open(&segment) else {
            continue;
        };
        written += usize::from(write_segment_bounds(dir, &reader, &schema)?.1);
    }
    Ok(written)
}

/// Writes the sidecar file of `segment` (of the index in `dir`, whose
/// `bounds` directory exists) unless a valid one is there; returns its
/// path, whether it was written, and its size.
pub fn write_segment_bounds(
    dir: &Path,
    segment: &SegmentReader,
    schema: &Schema,
) -> Result<(PathBuf, bool, u64)> {
    let path = bounds_path(dir, segment);
    let mut written = false;
    if !matches!(SegmentBounds::open(dir, segment, schema), Ok(Some(_))) {
        let payload = segment_payload(segment, schema)?;
        let bytes = sealed::seal_binary(MAGIC, VERSION, &payload);
        drop(payload);
        // A unique temporary name: `sieve-index bounds` takes no lock, so
        // two of them on one index must not share one.
        crate::outfile::write_atomic(&path, &bytes)?;
        written = true;
    }
    let bytes = std::fs::metadata(&path).map_err(io_err(&path))?.len();
    Ok((path, written, bytes))
}

/// Reads the payload of a sidecar file, refusing anything out of place.
struct Reader<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err(&self, what: &'static str, expected: String, found: String) -> Error {
        Error::Bounds {
            path: self.path.to_path_buf(),
            what,
            expected,
            found,
        }
    }

    #[inline]
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.short(n, what));
        };
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    #[cold]
    fn short(&self, n: usize, what: &'static str) -> Error {
        self.err(
            what,
            format!("{n} bytes at payload offset {}", self.pos),
            format!("{} bytes left", self.bytes.len() - self.pos),
        )
    }

    fn u32(&mut self, what: &'static str) -> Result<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    #[inline]
    fn varint(&mut self, what: &'static str) -> Result<u64> {
        // One byte: the common case.
        if let Some(&b) = self.bytes.get(self.pos)
            && b < 0x80
        {
            self.pos += 1;
            return Ok(u64::from(b));
        }
        self.varint_long(what)
    }

    #[cold]
    fn varint_long(&mut self, what: &'static str) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1, what)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.err(what, "a varint of at most 10 bytes".into(), "longer".into()))
    }

    fn frontier(&mut self, out: &mut Vec<Point>) -> Result<()> {
        let n = self.take(1, "frontier length")?[0];
        for _ in 0..n {
            let tf = u32::try_from(self.varint("term frequency")?).unwrap_or(u32::MAX);
            let fid = self.take(1, "fieldnorm id")?[0];
            out.push(Point { tf, fid });
        }
        Ok(())
    }

    /// Checks that the next value read with `read` equals `expected`.
    fn expect<T: PartialEq + std::fmt::Display>(
        &mut self,
        what: &'static str,
        expected: T,
        read: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<()> {
        let found = read(self)?;
        if found != expected {
            return Err(self.err(what, expected.to_string(), found.to_string()));
        }
        Ok(())
    }
}

impl DocidTable {
    /// Reads the table, which must hold `count` docids.
    fn read(r: &mut Reader<'_>, count: u64) -> Result<DocidTable> {
        r.expect("docid count", count, |r| r.u64("docid count"))?;
        r.expect("docid restart interval", DOCID_RESTART, |r| {
            r.u32("docid restart interval")
        })?;
        let groups = count.div_ceil(u64::from(DOCID_RESTART));
        // Each restart takes 8 bytes: refuse a count the payload cannot hold
        // before allocating for it.
        if groups.saturating_mul(8) > (r.bytes.len() - r.pos) as u64 {
            return Err(r.err(
                "docid restarts",
                format!("{groups} offsets"),
                format!("{} bytes left", r.bytes.len() - r.pos),
            ));
        }
        let restarts: Vec<u64> = (0..groups)
            .map(|_| r.u64("docid restart"))
            .collect::<Result<_>>()?;
        let len = r.u64("docid data length")?;
        if restarts.windows(2).any(|w| w[0] >= w[1])
            || restarts.first().is_some_and(|f| *f != 0)
            || restarts.last().is_some_and(|l| *l >= len)
        {
            return Err(r.err(
                "docid restarts",
                format!("strictly ascending from 0, below {len}"),
                "not".into(),
            ));
        }
        let data = r.take(len as usize, "docid data")?.to_vec();
        Ok(DocidTable {
            count,
            interval: DOCID_RESTART,
            restarts,
            data,
        })
    }
}

impl SegmentBounds {
    /// The size of the docid table in the file, in bytes (the rest of the
    /// file is the block-max bounds).
    pub fn docid_table_bytes(&self) -> u64 {
        let t = &self.docids;
        20 + 8 * t.restarts.len() as u64 + t.data.len() as u64
    }

    /// True when the file has a docid table (the segment has docids).
    pub fn has_docids(&self) -> bool {
        self.docids.count > 0
    }

    /// Writes the docid of dictionary ordinal `ord` into `out` (cleared
    /// first), decoding at most [`DOCID_RESTART`] entries of the docid
    /// table. An ordinal out of range, or a damaged entry, is an error.
    pub fn docid(&self, ord: u64, out: &mut Vec<u8>) -> Result<()> {
        let t = &self.docids;
        out.clear();
        let err = |what: &'static str, expected: String, found: String| Error::Bounds {
            path: self.path.clone(),
            what,
            expected,
            found,
        };
        if ord >= t.count {
            return Err(err(
                "docid ordinal",
                format!("below {}", t.count),
                ord.to_string(),
            ));
        }
        let group = (ord / u64::from(t.interval)) as usize;
        let mut r = Reader {
            path: &self.path,
            bytes: &t.data,
            pos: t.restarts[group] as usize,
        };
        let len = r.varint("docid length")?;
        out.extend_from_slice(r.take(usize::try_from(len).unwrap_or(usize::MAX), "docid")?);
        for _ in 0..ord % u64::from(t.interval) {
            let shared = r.varint("docid shared prefix")?;
            if shared > out.len() as u64 {
                return Err(err(
                    "docid shared prefix",
                    format!("at most {}", out.len()),
                    shared.to_string(),
                ));
            }
            out.truncate(shared as usize);
            let suffix = r.varint("docid suffix length")?;
            let suffix = r.take(
                usize::try_from(suffix).unwrap_or(usize::MAX),
                "docid suffix",
            )?;
            // Suffixes of neighbouring docids are a few bytes: a byte loop
            // is cheaper there than a call to memcpy.
            if suffix.len() <= 8 {
                for &b in suffix {
                    out.push(b);
                }
            } else {
                out.extend_from_slice(suffix);
            }
        }
        Ok(())
    }

    /// Reads the first bytes that [`SegmentBounds::docid`] decodes for each
    /// ordinal of `ords` (its restart offset, and the entries' first two
    /// cache lines), and nothing else. A lookup's reads depend on one
    /// another (the offset, then the entries), but different lookups' do
    /// not: touched in one short loop, a batch's cache misses overlap
    /// instead of coming one after another, and the lookups that follow
    /// find their bytes in cache (a top-1000 search spent about a tenth of
    /// its time waiting for them). Ordinals out of range are skipped
    /// ([`SegmentBounds::docid`] reports them); returns a value of the
    /// bytes read, for no purpose but to keep the reads.
    pub fn touch_docids(&self, ords: &[u64]) -> u8 {
        let t = &self.docids;
        let interval = u64::from(t.interval.max(1));
        let mut acc = 0u8;
        for &ord in ords {
            let Some(&start) = t.restarts.get((ord / interval) as usize) else {
                continue;
            };
            let start = start as usize;
            acc ^= t.data.get(start).copied().unwrap_or(0);
            acc ^= t.data.get(start.saturating_add(64)).copied().unwrap_or(0);
        }
        acc
    }

    /// Reads and checks the sidecar file of `segment` in the index
    /// directory `dir`; `Ok(None)` when there is none. A damaged file, one
    /// of another version, or one whose fingerprint (segment id, max_doc,
    /// per-field term and token counts) differs from `segment` is an error.
    pub fn open(dir: &Path, segment: &SegmentReader, schema: &Schema) -> Result<Option<Self>> {
        let path = bounds_path(dir, segment);
        let file = match std::fs::read(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(&path)(e)),
        };
        let start = sealed::open_binary(MAGIC, VERSION, &file, "an older bounds file: rebuild it")
            .map_err(|source| Error::BoundsSeal {
                path: path.clone(),
                source,
            })?;
        Self::from_payload(&path, &file[start..], segment, schema).map(Some)
    }

    /// Parses a payload made by [`segment_payload`] (for in-memory
    /// indexes; `path` only names it in errors), checking it against
    /// `segment` as [`SegmentBounds::open`] does.
    pub fn from_payload(
        path: &Path,
        payload: &[u8],
        segment: &SegmentReader,
        schema: &Schema,
    ) -> Result<Self> {
        let mut r = Reader {
            path,
            bytes: payload,
            pos: 0,
        };
        let id = segment.segment_id().uuid_string();
        r.expect("segment id", id.clone(), |r| {
            Ok(String::from_utf8_lossy(r.take(id.len(), "segment id")?).into_owned())
        })?;
        r.expect("max_doc", segment.max_doc(), |r| r.u32("max_doc"))?;
        r.expect("block size", BLOCK_DOCS, |r| r.u32("block size"))?;
        let handles = field_handles(schema);
        r.expect("field count", handles.len() as u32, |r| {
            r.u32("field count")
        })?;
        let mut fields = Vec::with_capacity(handles.len());
        for (name, field) in handles {
            let inverted = segment.inverted_index(field)?;
            r.expect("field name", name.to_string(), |r| {
                let n = r.u32("field name length")? as usize;
                Ok(String::from_utf8_lossy(r.take(n, "field name")?).into_owned())
            })?;
            let terms = inverted.terms().num_terms() as u64;
            r.expect("term count", terms, |r| r.u64("term count"))?;
            let tokens = inverted.total_num_tokens();
            r.expect("total tokens", tokens, |r| r.u64("total tokens"))?;
            let n = r.u64("stored terms")?;
            if n > terms {
                return Err(r.err("stored terms", format!("<= {terms}"), n.to_string()));
            }
            let term_ords = (0..n)
                .map(|_| r.u64("term ordinal"))
                .collect::<Result<_>>()?;
            let offsets: Vec<u64> = (0..=n).map(|_| r.u64("offset")).collect::<Result<_>>()?;
            let len = r.u64("data length")?;
            if offsets.windows(2).any(|w| w[0] > w[1]) || offsets.last() != Some(&len) {
                return Err(r.err("offsets", format!("ascending to {len}"), "not".into()));
            }
            let data = r.take(len as usize, "term data")?.to_vec();
            fields.push(FieldBounds {
                name: name.to_string(),
                term_ords,
                offsets,
                data,
            });
        }
        let docids = DocidTable::read(&mut r, docid_count(segment)?)?;
        let left = payload.len() - r.pos;
        if left != 0 {
            return Err(r.err(
                "end",
                "the end of the payload".into(),
                format!("{left} bytes"),
            ));
        }
        Ok(SegmentBounds {
            path: path.to_path_buf(),
            fields,
            docids,
        })
    }

    /// The bounds of the term with ordinal `term_ord` in `field`'s term
    /// dictionary; `None` for a term without bounds (one with fewer than
    /// [`MIN_DOC_FREQ`] postings, or not in the segment).
    pub fn term(&self, field: &str, term_ord: u64) -> Result<Option<TermBounds>> {
        let Some(f) = self.fields.iter().find(|f| f.name == field) else {
            return Ok(None);
        };
        let Ok(i) = f.term_ords.binary_search(&term_ord) else {
            return Ok(None);
        };
        let (start, end) = (f.offsets[i] as usize, f.offsets[i + 1] as usize);
        let mut r = Reader {
            path: &self.path,
            bytes: &f.data[start..end],
            pos: 0,
        };
        let mut t = TermBounds::default();
        r.frontier(&mut t.global)?;
        let n = r.varint("entry count")?;
        let mut last: Option<u32> = None;
        t.starts.push(0);
        for _ in 0..n {
            let delta = u32::try_from(r.varint("entry's last block")?).ok();
            let next = match (last, delta) {
                (None, Some(d)) => Some(d),
                (Some(l), Some(d)) if d >= 1 => l.checked_add(d),
                _ => None,
            };
            let Some(next) = next else {
                return Err(r.err(
                    "entry's last block",
                    "ascending, below 2^32".into(),
                    "not".into(),
                ));
            };
            last = Some(next);
            t.lasts.push(next);
            r.frontier(&mut t.points)?;
            t.starts.push(t.points.len() as u32);
        }
        Ok(Some(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
    use crate::document::{IndexDoc, SieveDocument};
    use crate::schema::{Fields, build_schema, register_analyzers};
    use proptest::prelude::*;
    use tantivy::indexer::NoMergePolicy;
    use tantivy::{DocSet, IndexWriter};

    const WORDS: &[&str] = &["alpha", "beta", "gamma", "delta", "omega"];

    /// An in-RAM index of `n` made-up documents (skewed words and lengths,
    /// docids not in insertion order), committed in `segments` segments.
    fn index(seed: u64, n: usize, segments: usize) -> Index {
        let index = Index::create_in_ram(build_schema());
        register_analyzers(&index, AnalyzerConfig::default());
        let fields = Fields::from_schema(&index.schema()).unwrap();
        let analyzer = EnglishAnalyzer::new(AnalyzerConfig::default());
        let mut w: IndexWriter<SieveDocument> =
            index.writer_with_num_threads(1, 15_000_000).unwrap();
        w.set_merge_policy(Box::new(NoMergePolicy));
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let per = n.div_ceil(segments.max(1));
        for i in 0..n {
            let len = 1 + next() % if next() % 3 == 0 { 4 } else { 120 };
            let body: Vec<&str> = (0..len)
                .map(|_| WORDS[((next() | 16).trailing_zeros() as usize).min(WORDS.len() - 1)])
                .collect();
            let doc = IndexDoc {
                docid: format!("d-{:07}", (i * 7919) % 1_000_003),
                url: None,
                title: String::new(),
                body: body.join(" "),
                source: "made up".into(),
                offset: 0,
                record_id: None,
                language: None,
                record_len: 0,
                gz_member: None,
                record_crc: None,
                bytes: 0,
                counts: Default::default(),
                charset: "UTF-8".into(),
                charset_source: 0,
                charset_disagree: false,
                truncated: false,
                spam: None,
                atire_extra: 0,
                minhash: Vec::new(),
            };
            w.add_document(doc.into_document(&fields, &analyzer))
                .unwrap();
            if (i + 1) % per == 0 {
                w.commit().unwrap();
            }
        }
        w.commit().unwrap();
        index
    }

    fn open(index: &Index) -> Vec<(SegmentReader, SegmentBounds)> {
        let schema = index.schema();
        index
            .reader()
            .unwrap()
            .searcher()
            .segment_readers()
            .iter()
            .map(|seg| {
                let payload = segment_payload(seg, &schema).unwrap();
                let b = SegmentBounds::from_payload(Path::new("t.bmx"), &payload, seg, &schema)
                    .unwrap();
                (seg.clone(), b)
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Every posting is dominated by a point of its entry's frontier
        /// and of the term's global frontier; entries are whole grid
        /// blocks, ascending, and hold at least ENTRY_POSTINGS postings
        /// each (but the last); terms below MIN_DOC_FREQ have no entry.
        #[test]
        fn entries_bound_every_posting(seed in any::<u64>(), n in 300usize..5000, segments in 1usize..3) {
            let index = index(seed, n, segments);
            let field = index.schema().get_field(BODY).unwrap();
            for (seg, b) in open(&index) {
                let inverted = seg.inverted_index(field).unwrap();
                let norms = seg.get_fieldnorms_reader(field).unwrap();
                let mut stream = inverted.terms().stream().unwrap();
                while stream.advance() {
                    let info = stream.value().clone();
                    let tb = b.term(BODY, stream.term_ord()).unwrap();
                    let Some(tb) = tb else {
                        prop_assert!(info.doc_freq < MIN_DOC_FREQ);
                        continue;
                    };
                    prop_assert!(info.doc_freq >= MIN_DOC_FREQ);
                    prop_assert!(tb.lasts.windows(2).all(|w| w[0] < w[1]));
                    prop_assert!(tb.global.len() <= TERM_POINTS);
                    let mut per_entry = vec![0u32; tb.lasts.len()];
                    let mut p = inverted
                        .read_postings_from_terminfo(&info, IndexRecordOption::WithFreqs)
                        .unwrap();
                    let mut e = 0;
                    while p.doc() != TERMINATED {
                        let (doc, tf) = (p.doc(), p.term_freq());
                        let fid = norms.fieldnorm_id(doc);
                        while tb.lasts[e] < doc / BLOCK_DOCS {
                            e += 1;
                        }
                        per_entry[e] += 1;
                        let covers = |pts: &[Point]| pts.iter().any(|q| q.tf >= tf && q.fid <= fid);
                        prop_assert!(tb.entry(e).len() <= BLOCK_POINTS);
                        prop_assert!(covers(tb.entry(e)), "entry {e} misses doc {doc} tf {tf} fid {fid}");
                        prop_assert!(covers(&tb.global), "global misses doc {doc}");
                        p.advance();
                    }
                    let (last, rest) = per_entry.split_last().unwrap();
                    prop_assert!(*last > 0);
                    prop_assert!(rest.iter().all(|c| *c >= ENTRY_POSTINGS), "{per_entry:?}");
                }
            }
        }

        /// The docid table gives every ordinal's docid as tantivy's
        /// dictionary does, also after `touch_docids` (which skips
        /// ordinals past the end); an ordinal past the end is an error.
        #[test]
        fn docid_table_equals_the_docid_dictionary(seed in any::<u64>(), n in 1usize..2000) {
            let index = index(seed, n, 1);
            for (seg, b) in open(&index) {
                let column = seg.fast_fields().str(DOCID).unwrap().unwrap();
                let dict = column.dictionary();
                prop_assert!(b.has_docids());
                let mut ours = Vec::new();
                let mut theirs = Vec::new();
                let all: Vec<u64> = (0..dict.num_terms() as u64 + 40).collect();
                std::hint::black_box(b.touch_docids(&all));
                for ord in 0..dict.num_terms() as u64 {
                    b.docid(ord, &mut ours).unwrap();
                    prop_assert!(dict.ord_to_term(ord, &mut theirs).unwrap());
                    prop_assert_eq!(&ours, &theirs);
                }
                let past = b.docid(dict.num_terms() as u64, &mut ours);
                prop_assert!(matches!(past, Err(Error::Bounds { .. })), "{past:?}");
            }
        }
    }

    /// A payload whose docid table was damaged (a restart offset pointing
    /// past the data, a shared prefix longer than the docid before it) is
    /// refused or read as an error, never a panic. (A damaged file on disk
    /// is refused by its CRC-32 seal before this parser sees it.)
    #[test]
    fn damaged_docid_table_is_an_error() {
        let index = index(7, 600, 1);
        let schema = index.schema();
        let searcher = index.reader().unwrap().searcher();
        let seg = &searcher.segment_readers()[0];
        let payload = segment_payload(seg, &schema).unwrap();
        let path = Path::new("t.bmx");
        // Every single-byte change in the docid table's last 300 bytes.
        let from = payload.len().saturating_sub(300);
        let mut refused = 0;
        for at in from..payload.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut bad = payload.clone();
                bad[at] ^= mask;
                match SegmentBounds::from_payload(path, &bad, seg, &schema) {
                    Err(_) => refused += 1,
                    Ok(b) => {
                        // Touching reads only what is there (ordinals past
                        // the end included): no panic.
                        let ords: Vec<u64> = (0..700).collect();
                        std::hint::black_box(b.touch_docids(&ords));
                        let mut out = Vec::new();
                        for ord in 0..600 {
                            if b.docid(ord, &mut out).is_err() {
                                refused += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(refused > 0, "no damage was noticed");
    }
}
