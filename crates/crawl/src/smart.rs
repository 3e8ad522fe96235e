//! Streaming SMART reader: the `.I`/`.T`/`.W` document files of the classic
//! test collections as shipped (Cranfield's `cran.all.1400`; CACM's
//! `cacm.all`, CISI's `CISI.ALL` and MED's `MED.ALL` use the same form).
//!
//! # Records
//!
//! A record starts at a line `.I <id>` and runs to the next such line (or the
//! end of the input). Inside it, a line that is `.` + an upper-case ASCII
//! letter, alone or followed by whitespace, starts a field; the lines up to
//! the next marker belong to it (text after the marker on its own line
//! does too). What is kept follows ir_datasets' Cranfield reader
//! (allenai/ir_datasets @ 0e0a8895885c, `ir_datasets/datasets/cranfield.py`
//! lines 33-40 `prefix_sentinel_splitter` on `'.I '` and lines 52-70
//! `CranfieldDocs.docs_iter`: the
//! `.I` value is `doc_id`, `.T` lines are `title`, `.W` lines are `text`,
//! `.A` and `.B` go to `author` and `bib`, not to the text; each field is its
//! lines concatenated, then stripped; a field seen twice, as `.W` is in two
//! Cranfield records, is appended to):
//!
//! * **docid**: the `.I` value as written, trimmed (`.I 001` is `001`);
//! * **title**: the `.T` lines, each line end read as a space, stripped;
//! * **text**: the `.W` lines, as they are, stripped;
//! * `.A` (authors), `.B` (bibliographic data), `.X` (cross references),
//!   `.K` (keywords), `.C` (CACM's CR categories) and `.N` (entry date),
//!   the other fields of CACM, CISI and MED, are read and not indexed, as ir_datasets keeps authors and
//!   bibliography out of the text. ir_datasets has no reader for CACM, CISI
//!   or MED in SMART form, so the same rule is applied to them.
//!
//! The [`RawDoc`] body is the title, one `\n`, then the text, marked
//! [`Markup::Text`]: the pipeline reads its first line as the title and
//! indexes title then text, through the same charset decoding and UTF-8
//! cleaner as every body.
//!
//! # Losses (never a panic)
//!
//! * A record whose `.I` line has no value (or is longer than 64 KiB):
//!   [`SkipReason::NoDocid`]; one whose value holds whitespace or a
//!   control character: [`SkipReason::BadDocid`]. A record with neither
//!   title nor text: [`SkipReason::EmptyBody`].
//! * A field under a marker sieve does not know (`.Q`), and non-blank text
//!   between the `.I` line and the first marker: dropped, one
//!   [`AnomalyKind::UnknownField`] per span (`bytes` = its length), after
//!   the record's own event. The record itself is still indexed.
//! * Bytes before the first `.I` line (a UTF-8 BOM included):
//!   [`AnomalyKind::Resync`] when they are not all whitespace.
//! * A record whose title and text exceed `max_record_bytes`: the body is
//!   cut there and flagged `capped` (the per-record cap); the rest is read by
//!   streaming, never buffered. Memory per record is bounded by the cap, a
//!   64 KiB line piece and, with `keep_skipped`, the keep limit.
//!
//! Offsets are those of the `.I` line (records) and of the first dropped
//! byte (anomalies). `original_len` is the record's length in the input.

use std::collections::VecDeque;

use crate::event::{
    Anomaly, AnomalyKind, CrawlEvent, Markup, RawBytes, RawDoc, Skip, SkipReason, Span, bad_docid,
    resync,
};
use crate::input::Source;
use crate::options::CrawlOptions;

/// Longest piece of a line handled at once; a longer line is read in pieces
/// (markers are only recognised at the start of a line).
const LINE_CHUNK: usize = 64 * 1024;
/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// If `line` (at the start of a line) is a field marker, its letter.
fn marker(line: &[u8]) -> Option<u8> {
    let ok = line.len() >= 2
        && line[0] == b'.'
        && line[1].is_ascii_uppercase()
        && line.get(2).is_none_or(u8::is_ascii_whitespace);
    ok.then(|| line[1])
}

/// The next piece of a line at the current position: its length and
/// whether it ends the line (with its `\n`, or at the end of the input).
/// `None` at the end of the input.
fn piece(src: &mut Source) -> Option<(usize, bool)> {
    match src.find_newline(0, LINE_CHUNK) {
        Some(nl) => Some((nl + 1, true)),
        None => {
            let have = src.ensure(LINE_CHUNK).min(LINE_CHUNK);
            (have > 0).then_some((have, have < LINE_CHUNK))
        }
    }
}

/// Appends `bytes` to `v`, keeping `v` at most `limit` long.
fn keep(v: &mut Vec<u8>, bytes: &[u8], limit: usize) {
    let k = bytes.len().min(limit.saturating_sub(v.len()));
    v.extend_from_slice(&bytes[..k]);
}

/// Where the lines of a record go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Title,
    Text,
    /// A known field that is not indexed (`.A .B .X .K .C .N`).
    Ignored,
    /// Text before the first marker, or under an unknown marker.
    Lost,
}

impl Field {
    fn of(letter: u8) -> Field {
        match letter {
            b'T' => Field::Title,
            b'W' => Field::Text,
            b'A' | b'B' | b'X' | b'K' | b'C' | b'N' => Field::Ignored,
            _ => Field::Lost,
        }
    }
}

/// A span of dropped bytes ([`AnomalyKind::UnknownField`]) being read.
struct LostSpan {
    offset: u64,
    bytes: u64,
    kept: Vec<u8>,
    /// It holds something other than whitespace (always, after a marker).
    dirty: bool,
}

/// A record being read.
struct Record {
    offset: u64,
    docid: Option<String>,
    title: Vec<u8>,
    text: Vec<u8>,
    /// Title or text bytes beyond the cap.
    over: bool,
    /// Bytes of the record in the input.
    total: u64,
    /// The record's bytes, with `keep_skipped`.
    raw: Vec<u8>,
    lost: Option<LostSpan>,
    anomalies: Vec<CrawlEvent>,
    /// The record ran to the end of the input.
    at_end: bool,
}

pub(crate) struct SmartParser {
    opts: CrawlOptions,
    keep_limit: usize,
    cap: usize,
    /// The next byte starts a line.
    at_line_start: bool,
}

impl SmartParser {
    pub(crate) fn new(opts: CrawlOptions) -> Self {
        let keep_limit = opts.keep_limit();
        let cap = usize::try_from(opts.max_record_bytes).unwrap_or(usize::MAX);
        Self {
            opts,
            keep_limit,
            cap,
            at_line_start: true,
        }
    }

    /// Bytes of skipped material kept in memory (0 without `keep_skipped`).
    fn raw_limit(&self) -> usize {
        if self.opts.keep_skipped {
            self.keep_limit
        } else {
            0
        }
    }

    /// Reads the next record, pushing its events. Returns false at end of input.
    pub(crate) fn next_doc(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) -> bool {
        if !self.seek_record(src, out) {
            return false;
        }
        let rec = self.read_record(src);
        let cut = rec.at_end && src.failed();
        self.finish(rec, cut, out);
        true
    }

    /// Skips to the next `.I` line (only the start of the input can hold
    /// anything else). Returns false if there is none.
    fn seek_record(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) -> bool {
        let offset = src.offset();
        let limit = self.raw_limit();
        let mut skipped = 0u64;
        let mut garbage = false;
        let mut kept = Vec::new();
        if offset == 0 && src.ensure(BOM.len()) >= BOM.len() && src.avail().starts_with(BOM) {
            keep(&mut kept, BOM, limit);
            src.consume(BOM.len());
            skipped += BOM.len() as u64;
            garbage = true;
        }
        let found = loop {
            let Some((n, ends)) = piece(src) else {
                break false;
            };
            let line = &src.avail()[..n];
            if self.at_line_start && marker(line) == Some(b'I') {
                break true;
            }
            garbage |= line.iter().any(|b| !b.is_ascii_whitespace());
            keep(&mut kept, line, limit);
            src.consume(n);
            skipped += n as u64;
            self.at_line_start = ends;
        };
        if garbage {
            out.push_back(resync(offset, skipped, kept, self.opts.keep_skipped));
        }
        found
    }

    /// Reads one record from its `.I` line (at the current position) to
    /// the next `.I` line or the end of the input.
    fn read_record(&mut self, src: &mut Source) -> Record {
        src.start_record();
        let mut rec = Record {
            offset: src.offset(),
            docid: None,
            title: Vec::new(),
            text: Vec::new(),
            over: false,
            total: 0,
            raw: Vec::new(),
            lost: None,
            anomalies: Vec::new(),
            at_end: false,
        };
        // The `.I` line, in pieces if it is overlong (then there is no docid).
        let mut first = true;
        while first || !self.at_line_start {
            let Some((n, ends)) = piece(src) else { break };
            let line = &src.avail()[..n];
            if first && ends {
                let id = String::from_utf8_lossy(line[2..].trim_ascii()).into_owned();
                rec.docid = Some(id).filter(|s| !s.is_empty());
            }
            self.take(&mut rec, src, n, ends);
            first = false;
        }
        let mut field = Field::Lost;
        self.open_lost(&mut rec, src.offset(), false);
        while let Some((n, ends)) = piece(src) {
            let mark = if self.at_line_start {
                marker(&src.avail()[..n])
            } else {
                None
            };
            if mark == Some(b'I') {
                break;
            }
            let from = match mark {
                Some(letter) => {
                    self.close_lost(&mut rec);
                    field = Field::of(letter);
                    if field == Field::Lost {
                        self.open_lost(&mut rec, src.offset(), true);
                    }
                    if field == Field::Title && !rec.title.is_empty() {
                        self.push(&mut rec, Field::Title, b" ");
                    }
                    2
                }
                None => 0,
            };
            self.push(&mut rec, field, &src.avail()[from..n]);
            self.take(&mut rec, src, n, ends);
        }
        rec.at_end = src.at_eof();
        self.close_lost(&mut rec);
        rec
    }

    /// Consumes `n` bytes of the record, counting and keeping them.
    fn take(&mut self, rec: &mut Record, src: &mut Source, n: usize, ends: bool) {
        let bytes = &src.avail()[..n];
        keep(&mut rec.raw, bytes, self.raw_limit());
        if let Some(l) = rec.lost.as_mut() {
            keep(&mut l.kept, bytes, self.raw_limit());
            l.bytes += n as u64;
        }
        rec.total += n as u64;
        src.consume(n);
        self.at_line_start = ends;
    }

    /// Adds field content to the record (title line ends become spaces;
    /// title and text together stay within the cap).
    fn push(&self, rec: &mut Record, field: Field, content: &[u8]) {
        let room = self.cap.saturating_sub(rec.title.len() + rec.text.len());
        let k = content.len().min(room);
        match field {
            Field::Title => rec.title.extend(
                content[..k]
                    .iter()
                    .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b }),
            ),
            Field::Text => rec.text.extend_from_slice(&content[..k]),
            Field::Ignored => return,
            Field::Lost => {
                if let Some(l) = rec.lost.as_mut() {
                    l.dirty |= content.iter().any(|b| !b.is_ascii_whitespace());
                }
                return;
            }
        }
        rec.over |= k < content.len();
    }

    fn open_lost(&self, rec: &mut Record, offset: u64, dirty: bool) {
        rec.lost = Some(LostSpan {
            offset,
            bytes: 0,
            kept: Vec::new(),
            dirty,
        });
    }

    /// Ends the dropped span in progress, reporting it if it held anything.
    fn close_lost(&self, rec: &mut Record) {
        let Some(l) = rec.lost.take() else { return };
        if !l.dirty {
            return;
        }
        rec.anomalies.push(CrawlEvent::Anomaly(Anomaly {
            kind: AnomalyKind::UnknownField,
            offset: l.offset,
            bytes: l.bytes,
            record_id: rec.docid.clone(),
            raw: self.opts.keep_skipped.then_some(RawBytes {
                truncated: (l.kept.len() as u64) < l.bytes,
                bytes: l.kept,
            }),
            gzip: None,
        }));
    }

    /// Pushes the record's document (or skip), then its anomalies. `cut`:
    /// the input failed inside the record.
    fn finish(&self, rec: Record, cut: bool, out: &mut VecDeque<CrawlEvent>) {
        let raw = self.opts.keep_skipped.then_some(RawBytes {
            truncated: (rec.raw.len() as u64) < rec.total,
            bytes: rec.raw,
        });
        let blank = rec.title.trim_ascii().is_empty() && rec.text.trim_ascii().is_empty();
        let skip = match (&rec.docid, blank) {
            (None, _) => Some(SkipReason::NoDocid),
            (Some(d), blank) => bad_docid(d).or(blank.then_some(SkipReason::EmptyBody)),
        };
        if let Some(reason) = skip {
            out.push_back(CrawlEvent::Skip(Skip {
                reason,
                offset: rec.offset,
                record_id: rec.docid,
                raw,
            }));
        } else if let Some(docid) = rec.docid {
            // Each field stripped, as ir_datasets strips them.
            let mut body = rec.title.trim_ascii().to_vec();
            body.push(b'\n');
            body.extend_from_slice(rec.text.trim_ascii());
            let capped = rec.over || body.len() > self.cap;
            body.truncate(self.cap);
            out.push_back(CrawlEvent::Doc(RawDoc {
                docid,
                record_id: None,
                language: None,
                span: Span::default(),
                url: None,
                offset: rec.offset,
                http_status: None,
                content_type: None,
                http_charset: None,
                body,
                truncated: capped || cut,
                original_len: rec.total,
                capped,
                markup: Markup::Text,
                utf8: false,
                heads: None,
            }));
        }
        out.extend(rec.anomalies);
    }
}
