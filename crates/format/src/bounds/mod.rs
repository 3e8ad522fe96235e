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
//! ([`Error::Bounds`](crate::Error::Bounds)).

mod read;
mod write;

use std::path::{Path, PathBuf};

use tantivy::SegmentReader;
use tantivy::schema::{Field, Schema};

use crate::schema::{BODY, TITLE};

pub use write::{
    BoundsSummary, frontier, segment_payload, write_committed_bounds, write_index_bounds,
    write_segment_bounds,
};

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

#[cfg(test)]
mod tests;
