//! Tallying an index for the report: every live document's error counts,
//! spam percentile and charset source, read from the fast fields a block
//! at a time, into counters that merge across segments.

use std::collections::BTreeMap;
use std::sync::Arc;

use sieve_filters::spam::SpamMap;
use sieve_filters::utf8::ErrorClass;
use sieve_format::dups::SegmentDups;
use sieve_format::schema::{
    ATIRE_EXTRA, BYTES, CHARSET_DISAGREE, CHARSET_SOURCE, DOCID, NO_SPAM_SCORE, SPAM,
    error_field_name,
};
use tantivy::SegmentReader;
use tantivy::columnar::{Column, ColumnIndex, ColumnValues};

use crate::{Error, Result};

/// Documents read from each fast field at a time.
pub const BLOCK_DOCS: usize = 4096;

/// Number of spam percentiles (0–99).
pub(super) const PERCENTILES: usize = 100;
/// Number of error classes.
pub(super) const CLASSES: usize = ErrorClass::ALL.len();
/// Charset-source codes counted in a fixed array (others go to a map).
const SMALL_CODES: usize = 16;

/// Counters accumulated over documents. Merging two tallies gives the
/// tally of the union, whatever the order.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Tally {
    pub(super) docs: u64,
    pub(super) bytes: u64,
    pub(super) occurrences: [u64; CLASSES],
    pub(super) docs_with: [u64; CLASSES],
    pub(super) docs_any: u64,
    pub(super) atire_extra: u64,
    pub(super) atire_docs_uc: u64,
    pub(super) atire_docs_any: u64,
    pub(super) unscored: u64,
    /// Scored documents per percentile.
    pub(super) scored: [u64; PERCENTILES],
    /// Scored documents containing each class, per percentile.
    pub(super) scored_with: [[u64; PERCENTILES]; CLASSES],
    /// Occurrences of each class in scored documents, per percentile.
    pub(super) scored_occurrences: [[u64; PERCENTILES]; CLASSES],
    /// `[docs, disagreeing]` per charset-source code below [`SMALL_CODES`].
    pub(super) charset_small: [[u64; 2]; SMALL_CODES],
    /// The same for larger codes.
    pub(super) charset_other: BTreeMap<u64, [u64; 2]>,
    /// Scored near-duplicates (not their cluster's representative) per
    /// percentile; `None` for an index without cluster columns.
    pub(super) near_duplicates: Option<[u64; PERCENTILES]>,
    /// Near-duplicates without a spam score (0 without cluster columns).
    pub(super) near_duplicates_unscored: u64,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            docs: 0,
            bytes: 0,
            occurrences: [0; CLASSES],
            docs_with: [0; CLASSES],
            docs_any: 0,
            atire_extra: 0,
            atire_docs_uc: 0,
            atire_docs_any: 0,
            unscored: 0,
            scored: [0; PERCENTILES],
            scored_with: [[0; PERCENTILES]; CLASSES],
            scored_occurrences: [[0; PERCENTILES]; CLASSES],
            charset_small: [[0; 2]; SMALL_CODES],
            charset_other: BTreeMap::new(),
            near_duplicates: None,
            near_duplicates_unscored: 0,
        }
    }
}

impl Tally {
    /// The tally of the union of `self` and `o`.
    pub(super) fn merge(mut self, o: Tally) -> Tally {
        self.near_duplicates = match (self.near_duplicates, o.near_duplicates) {
            (Some(mut a), Some(b)) => {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                Some(a)
            }
            (a, b) => a.or(b),
        };
        self.near_duplicates_unscored += o.near_duplicates_unscored;
        self.docs += o.docs;
        self.bytes += o.bytes;
        for c in 0..CLASSES {
            self.occurrences[c] += o.occurrences[c];
            self.docs_with[c] += o.docs_with[c];
            for p in 0..PERCENTILES {
                self.scored_with[c][p] += o.scored_with[c][p];
                self.scored_occurrences[c][p] += o.scored_occurrences[c][p];
            }
        }
        self.docs_any += o.docs_any;
        self.atire_extra += o.atire_extra;
        self.atire_docs_uc += o.atire_docs_uc;
        self.atire_docs_any += o.atire_docs_any;
        self.unscored += o.unscored;
        for p in 0..PERCENTILES {
            self.scored[p] += o.scored[p];
        }
        for (a, b) in self.charset_small.iter_mut().zip(o.charset_small) {
            a[0] += b[0];
            a[1] += b[1];
        }
        for (k, v) in o.charset_other {
            let e = self.charset_other.entry(k).or_default();
            e[0] += v[0];
            e[1] += v[1];
        }
        self
    }

    /// `(code, [docs, disagreeing])` for every code seen, in code order.
    pub(super) fn charsets(&self) -> Vec<(u64, [u64; 2])> {
        let mut out: Vec<(u64, [u64; 2])> = self
            .charset_small
            .iter()
            .enumerate()
            .filter(|(_, v)| v[0] > 0)
            .map(|(code, v)| (code as u64, *v))
            .collect();
        out.extend(self.charset_other.iter().map(|(k, v)| (*k, *v)));
        out
    }
}

/// A fast field as dense per-document values (`default` where a document
/// has none).
fn dense<T>(col: Column<T>, default: T) -> Arc<dyn ColumnValues<T>>
where
    T: PartialOrd + Copy + std::fmt::Debug + Send + Sync + 'static,
{
    if matches!(col.index, ColumnIndex::Full) {
        col.values
    } else {
        col.first_or_default_col(default)
    }
}

/// For a spam override: the percentile of every docid term ordinal of the
/// segment (`NO_SPAM_SCORE` if absent or above 99), and the per-document
/// ordinal column.
fn spam_by_ord(
    segment: &SegmentReader,
    spam: &SpamMap<Vec<u8>>,
) -> Result<(Vec<u8>, Arc<dyn ColumnValues<u64>>)> {
    let docids = segment.fast_fields().str(DOCID)?.ok_or_else(|| {
        Error::Format(sieve_format::Error::Schema {
            expected: DOCID,
            detail: "docid is not a fast field".into(),
        })
    })?;
    let dict = docids.dictionary();
    let mut table = vec![NO_SPAM_SCORE as u8; dict.num_terms()];
    let mut stream = dict.stream().map_err(tantivy::TantivyError::from)?;
    while stream.advance() {
        let ord = stream.term_ord() as usize;
        if let Ok(key) = std::str::from_utf8(stream.key())
            && let Some(p) = spam.get(key)
            && usize::from(p) < PERCENTILES
            && let Some(slot) = table.get_mut(ord)
        {
            *slot = p;
        }
    }
    // An ordinal past the table (no docid) reads as unscored.
    let ords = dense(docids.ords().clone(), u64::MAX);
    Ok((table, ords))
}

/// One live document's figures, as read from the fast fields.
struct DocRow {
    bytes: u64,
    /// Spam percentile; [`PERCENTILES`] or more for unscored.
    percentile: usize,
    /// Occurrences per error class, in [`ErrorClass::ALL`] order.
    errs: [u64; CLASSES],
    atire_extra: u64,
    /// Charset-source code.
    source: u64,
    disagree: bool,
}

impl Tally {
    /// Counts one document.
    fn add(&mut self, d: &DocRow) {
        let t = self;
        let percentile = d.percentile;
        t.docs += 1;
        t.bytes += d.bytes;
        let scored = percentile < PERCENTILES;
        if scored {
            t.scored[percentile] += 1;
        } else {
            t.unscored += 1;
        }
        let mut any = false;
        for (c, &n) in d.errs.iter().enumerate() {
            if n > 0 {
                any = true;
                t.occurrences[c] += n;
                t.docs_with[c] += 1;
                if scored {
                    t.scored_with[c][percentile] += 1;
                    t.scored_occurrences[c][percentile] += n;
                }
            }
        }
        if any {
            t.docs_any += 1;
        }
        let extra = d.atire_extra;
        t.atire_extra += extra;
        if extra > 0 || d.errs[0] > 0 {
            t.atire_docs_uc += 1;
        }
        if extra > 0 || any {
            t.atire_docs_any += 1;
        }
        let code = d.source;
        let slot = match usize::try_from(code) {
            Ok(small) if small < SMALL_CODES => &mut t.charset_small[small],
            _ => t.charset_other.entry(code).or_default(),
        };
        slot[0] += 1;
        slot[1] += u64::from(d.disagree);
    }
}

/// Reads one segment's fast fields into a [`Tally`], a block of
/// [`BLOCK_DOCS`] documents at a time.
pub(super) fn scan_segment(
    segment: &SegmentReader,
    spam: Option<&SpamMap<Vec<u8>>>,
    dups: Option<&SegmentDups>,
) -> Result<Tally> {
    let cols = Columns::open(segment, spam)?;
    let alive = segment.alive_bitset();
    let mut t = Tally::default();
    let mut near = dups.map(|_| [0u64; PERCENTILES]);
    let max_doc = segment.max_doc() as usize;
    let mut block = Block::new();
    let mut start = 0usize;
    while start < max_doc {
        let len = BLOCK_DOCS.min(max_doc - start);
        block.read(&cols, start, len);
        for i in 0..len {
            if let Some(a) = alive
                && !a.is_alive((start + i) as u32)
            {
                continue;
            }
            let percentile = cols.percentile(block.spam[i]);
            if let (Some(n), Some(d)) = (near.as_mut(), dups)
                && d.is_duplicate((start + i) as u32)
            {
                match n.get_mut(percentile) {
                    Some(x) => *x += 1,
                    None => t.near_duplicates_unscored += 1,
                }
            }
            t.add(&block.row(i, percentile));
        }
        start += len;
    }
    t.near_duplicates = near;
    Ok(t)
}

/// The fast fields a tally reads, as dense per-document columns.
struct Columns {
    /// Occurrences per error class, in [`ErrorClass::ALL`] order.
    errs: Vec<Arc<dyn ColumnValues<u64>>>,
    atire: Arc<dyn ColumnValues<u64>>,
    bytes: Arc<dyn ColumnValues<u64>>,
    source: Arc<dyn ColumnValues<u64>>,
    disagree: Arc<dyn ColumnValues<bool>>,
    /// With a spam override: the percentile of each docid ordinal, and
    /// `spam` holds ordinals instead of percentiles.
    spam_table: Option<Vec<u8>>,
    spam: Arc<dyn ColumnValues<u64>>,
}

impl Columns {
    /// The columns of `segment`, spam percentiles from `spam` when given.
    fn open(segment: &SegmentReader, spam: Option<&SpamMap<Vec<u8>>>) -> Result<Columns> {
        let ff = segment.fast_fields();
        let u64_col = |name: &str, default: u64| -> Result<Arc<dyn ColumnValues<u64>>> {
            Ok(dense(ff.u64(name)?, default))
        };
        let mut errs = Vec::with_capacity(CLASSES);
        for class in ErrorClass::ALL {
            errs.push(u64_col(error_field_name(class), 0)?);
        }
        let atire = u64_col(ATIRE_EXTRA, 0)?;
        let bytes = u64_col(BYTES, 0)?;
        let source = u64_col(CHARSET_SOURCE, 0)?;
        let disagree = dense(ff.bool(CHARSET_DISAGREE)?, false);
        let (spam_table, spam) = match spam {
            Some(map) => {
                let (table, ords) = spam_by_ord(segment, map)?;
                (Some(table), ords)
            }
            None => (None, u64_col(SPAM, NO_SPAM_SCORE)?),
        };
        Ok(Columns {
            errs,
            atire,
            bytes,
            source,
            disagree,
            spam_table,
            spam,
        })
    }

    /// The spam percentile of a document whose `spam` column value is
    /// `value`; [`PERCENTILES`] or more for an unscored one.
    #[inline]
    fn percentile(&self, value: u64) -> usize {
        match &self.spam_table {
            Some(table) => usize::try_from(value)
                .ok()
                .and_then(|ord| table.get(ord))
                .map_or(NO_SPAM_SCORE as usize, |p| usize::from(*p)),
            None => usize::try_from(value).unwrap_or(usize::MAX),
        }
    }
}

/// One block of documents' values, as read from the [`Columns`].
struct Block {
    errs: Vec<[u64; BLOCK_DOCS]>,
    atire: [u64; BLOCK_DOCS],
    bytes: [u64; BLOCK_DOCS],
    source: [u64; BLOCK_DOCS],
    disagree: [bool; BLOCK_DOCS],
    spam: [u64; BLOCK_DOCS],
}

impl Block {
    /// An empty block.
    fn new() -> Block {
        Block {
            errs: vec![[0u64; BLOCK_DOCS]; CLASSES],
            atire: [0u64; BLOCK_DOCS],
            bytes: [0u64; BLOCK_DOCS],
            source: [0u64; BLOCK_DOCS],
            disagree: [false; BLOCK_DOCS],
            spam: [0u64; BLOCK_DOCS],
        }
    }

    /// Reads the values of the `len` documents from doc id `start`.
    #[inline]
    fn read(&mut self, cols: &Columns, start: usize, len: usize) {
        for (col, buf) in cols.errs.iter().zip(self.errs.iter_mut()) {
            col.get_range(start as u64, &mut buf[..len]);
        }
        cols.atire.get_range(start as u64, &mut self.atire[..len]);
        cols.bytes.get_range(start as u64, &mut self.bytes[..len]);
        cols.source.get_range(start as u64, &mut self.source[..len]);
        cols.disagree
            .get_range(start as u64, &mut self.disagree[..len]);
        cols.spam.get_range(start as u64, &mut self.spam[..len]);
    }

    /// The figures of the block's `i`-th document, of spam `percentile`.
    #[inline]
    fn row(&self, i: usize, percentile: usize) -> DocRow {
        DocRow {
            bytes: self.bytes[i],
            percentile,
            errs: std::array::from_fn(|c| self.errs[c][i]),
            atire_extra: self.atire[i],
            source: self.source[i],
            disagree: self.disagree[i],
        }
    }
}
