//! The near-duplicate cluster column of an index (`dups/`): one gzipped
//! file per segment, a line per document naming its cluster's
//! representative (or nothing), with a header binding it to its segment
//! and to the MinHash parameters. Written by the build's clustering
//! (`sieve-ingest`), read by filters, the searcher and the report.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use sieve_filters::minhash::MinHashParams;
use tantivy::index::SegmentId;
use tantivy::{Segment, SegmentReader};

use crate::index::{GzFile, commit_gz, create_gz, io_err};
use crate::{Error, Result};

/// The MinHash parameters of every band key sieve stores: 5-word
/// shingles, 16 bands of 8 rows (similarity threshold about 0.71).
pub const PARAMS: MinHashParams = MinHashParams {
    shingle_words: 5,
    bands: 16,
    rows: 8,
    seed: MinHashParams::DEFAULT_SEED,
};

/// Folder of the cluster columns in an index directory.
pub const DUPS_DIR: &str = "dups";

/// The format version of the cluster columns.
const VERSION: u32 = 1;

/// The cluster-column file of a segment.
pub fn dups_path(dir: &Path, segment: &SegmentReader) -> PathBuf {
    segment_dups_path(dir, segment.segment_id())
}

/// The cluster-column file of the segment with id `id`.
pub fn segment_dups_path(dir: &Path, id: SegmentId) -> PathBuf {
    dir.join(DUPS_DIR)
        .join(format!("{}.dup.gz", id.uuid_string()))
}

fn header(segment: &SegmentReader) -> String {
    header_of(segment.segment_id(), segment.max_doc())
}

fn header_of(id: SegmentId, max_doc: u32) -> String {
    format!(
        "sieve-near-duplicates {VERSION} segment={} docs={} params={}w/{}x{}/{:016x}",
        id.uuid_string(),
        max_doc,
        PARAMS.shingle_words,
        PARAMS.bands,
        PARAMS.rows,
        PARAMS.seed
    )
}

/// One segment's cluster-column writer.
pub struct ColumnWriter {
    path: PathBuf,
    tmp: PathBuf,
    w: GzFile,
    next: u32,
    max_doc: u32,
}

impl ColumnWriter {
    /// Starts the column of `segment` (at a temporary name).
    pub fn create(dir: &Path, segment: &Segment) -> Result<Self> {
        let path = segment_dups_path(dir, segment.id());
        let tmp = path.with_extension("gz.tmp");
        let mut w = create_gz(&tmp)?;
        let max_doc = segment.meta().max_doc();
        writeln!(w, "{}", header_of(segment.id(), max_doc)).map_err(io_err(&tmp))?;
        Ok(ColumnWriter {
            path,
            tmp,
            w,
            next: 0,
            max_doc,
        })
    }

    /// Writes empty lines up to `doc` (excluded).
    fn skip_to(&mut self, doc: u32) -> Result<()> {
        while self.next < doc.min(self.max_doc) {
            self.w.write_all(b"\n").map_err(io_err(&self.tmp))?;
            self.next += 1;
        }
        Ok(())
    }

    /// Writes document `doc`'s line (documents in increasing order).
    pub fn line(&mut self, doc: u32, text: &str) -> Result<()> {
        self.skip_to(doc)?;
        writeln!(self.w, "{text}").map_err(io_err(&self.tmp))?;
        self.next += 1;
        Ok(())
    }

    /// Writes the lines of the documents left and renames the file into place.
    pub fn finish(mut self) -> Result<()> {
        self.skip_to(self.max_doc)?;
        commit_gz(self.w, &self.tmp, &self.path)
    }
}

/// A document's place in its near-duplicate cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role<'a> {
    /// Alone in its cluster (or without text).
    Alone,
    /// The representative (smallest docid) of a cluster of several.
    Representative,
    /// A near-duplicate of the representative named.
    DuplicateOf(&'a str),
}

impl<'a> Role<'a> {
    /// The role's line in a cluster column (without its newline): empty
    /// alone, `=` for a representative, else the representative's docid;
    /// [`read_segment_dups`] reads it back.
    pub fn line(self) -> &'a str {
        match self {
            Role::Alone => "",
            Role::Representative => "=",
            Role::DuplicateOf(rep) => rep,
        }
    }
}

/// Reads the cluster column of `segment` of the index in `dir`, calling
/// `f(doc, role)` for every document in order. Refuses a column that is
/// missing, damaged (gzip CRC or length), of another segment or format, or
/// with another number of lines than the segment has documents.
pub fn read_segment_dups(
    dir: &Path,
    segment: &SegmentReader,
    f: impl FnMut(u32, Role<'_>),
) -> Result<()> {
    let path = dups_path(dir, segment);
    let bad = |what: &'static str, expected: String, found: String| Error::NearDuplicates {
        path: path.clone(),
        what,
        expected,
        found,
    };
    let file = File::open(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            bad(
                "cluster column",
                "a file written by build or merge (an index built without near-duplicates, or by an older sieve, has none: rebuild it)"
                    .into(),
                "none".into(),
            )
        } else {
            io_err(&path)(e)
        }
    })?;
    let r = BufReader::new(flate2::read::GzDecoder::new(file));
    read_column(r, &path, &header(segment), segment.max_doc(), f)
}

/// Parses a cluster column (already gunzipped) from `r`: the header line
/// must be `header`, then exactly `max_doc` lines follow; calls `f(doc,
/// role)` for each. `path` names the file in errors. The parser of
/// [`read_segment_dups`], public for fuzzing.
pub fn read_column(
    mut r: impl BufRead,
    path: &Path,
    header: &str,
    max_doc: u32,
    mut f: impl FnMut(u32, Role<'_>),
) -> Result<()> {
    let bad = |what: &'static str, expected: String, found: String| Error::NearDuplicates {
        path: path.to_path_buf(),
        what,
        expected,
        found,
    };
    let mut line = String::new();
    let mut read = |line: &mut String| -> Result<usize> {
        line.clear();
        r.read_line(line).map_err(io_err(path))
    };
    read(&mut line)?;
    if line.trim_end_matches('\n') != header {
        return Err(bad(
            "header",
            header.to_string(),
            line.trim_end().chars().take(200).collect(),
        ));
    }
    let mut doc = 0u32;
    loop {
        if read(&mut line)? == 0 {
            break;
        }
        if !line.ends_with('\n') {
            return Err(bad(
                "line",
                "a line ending in a newline".into(),
                "the end of the file".into(),
            ));
        }
        if doc >= max_doc {
            return Err(bad(
                "document count",
                max_doc.to_string(),
                "more lines".into(),
            ));
        }
        let role = match line.trim_end_matches('\n') {
            "" => Role::Alone,
            "=" => Role::Representative,
            rep => Role::DuplicateOf(rep),
        };
        f(doc, role);
        doc += 1;
    }
    if doc != max_doc {
        return Err(bad("document count", max_doc.to_string(), doc.to_string()));
    }
    Ok(())
}

/// The near-duplicates of one segment as a bit set: `is_duplicate(doc)`
/// is true for every member of a cluster of several except its
/// representative. Memory: one bit per document.
pub struct SegmentDups {
    bits: Vec<u64>,
}

impl SegmentDups {
    /// Reads the cluster column of `segment` ([`read_segment_dups`]).
    pub fn open(dir: &Path, segment: &SegmentReader) -> Result<Self> {
        let mut bits = vec![0u64; (segment.max_doc() as usize).div_ceil(64)];
        read_segment_dups(dir, segment, |doc, role| {
            if matches!(role, Role::DuplicateOf(_)) {
                bits[doc as usize / 64] |= 1 << (doc % 64);
            }
        })?;
        Ok(SegmentDups { bits })
    }

    /// Whether `doc` is a near-duplicate of another document (not its
    /// cluster's representative).
    pub fn is_duplicate(&self, doc: u32) -> bool {
        self.bits
            .get(doc as usize / 64)
            .is_some_and(|w| w & (1 << (doc % 64)) != 0)
    }
}
