//! The near-duplicate cluster columns of a reordered index, carried over.
//!
//! A document's line in its segment's column names its cluster's
//! representative (the smallest docid: nothing about the order), so a
//! reordered segment's column is the input segment's column with its
//! lines permuted: no clustering again, and no band keys needed (which
//! lets `--drop-band-keys` leave them out of the new segments).

use std::path::Path;

use sieve_format::dups::{ColumnWriter, DUPS_DIR, read_segment_dups};
use sieve_format::index::create_private_dir;
use tantivy::SegmentReader;
use tantivy::index::Segment;

use crate::Result;

/// Writes the cluster column of `new` (in the index directory `out_dir`):
/// line `i` is line `order[i]` of the column of `old` (in the input index
/// `in_dir`). Memory: one line per document of the segment.
pub fn permute_column(
    in_dir: &Path,
    old: &SegmentReader,
    out_dir: &Path,
    new: &Segment,
    order: &[u32],
) -> Result<()> {
    let mut lines = vec![String::new(); old.max_doc() as usize];
    read_segment_dups(in_dir, old, |doc, role| {
        lines[doc as usize] = role.line().to_string();
    })?;
    create_private_dir(&out_dir.join(DUPS_DIR))?;
    let mut w = ColumnWriter::create(out_dir, new)?;
    for (doc, &from) in (0u32..).zip(order) {
        w.line(doc, &lines[from as usize])?;
    }
    Ok(w.finish()?)
}
