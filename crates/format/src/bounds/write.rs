//! Writing the sidecar: frontiers, the per-term entries, the docid table
//! and the sealed file of each segment.

use std::path::{Path, PathBuf};

use sieve_filters::sealed;
use tantivy::postings::Postings;
use tantivy::schema::{IndexRecordOption, Schema};
use tantivy::{Index, SegmentReader, TERMINATED};

use super::{
    BLOCK_DOCS, BLOCK_POINTS, BOUNDS_DIR, DOCID_RESTART, ENTRY_POSTINGS, MAGIC, MIN_DOC_FREQ,
    Point, SegmentBounds, TERM_POINTS, VERSION, bounds_path, field_handles,
};
use crate::Result;
use crate::index::{create_private_dir, io_err};
use crate::schema::DOCID;

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
