//! Reading the sidecar: the payload parser, the docid table and the
//! bounds of one term.

use std::path::Path;

use sieve_filters::sealed;
use tantivy::SegmentReader;
use tantivy::schema::Schema;

use super::{
    BLOCK_DOCS, DOCID_RESTART, DocidTable, FieldBounds, MAGIC, Point, SegmentBounds, TermBounds,
    VERSION, bounds_path, field_handles,
};
use crate::index::io_err;
use crate::schema::DOCID;
use crate::{Error, Result};

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

/// The number of docids in `segment`'s docid dictionary.
fn docid_count(segment: &SegmentReader) -> Result<u64> {
    Ok(segment
        .fast_fields()
        .str(DOCID)?
        .map_or(0, |c| c.dictionary().num_terms() as u64))
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

    /// Parses a payload made by [`segment_payload`](super::segment_payload) (for in-memory
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
    /// [`MIN_DOC_FREQ`](super::MIN_DOC_FREQ) postings, or not in the segment).
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
