//! # sieve-crawl
//!
//! Streaming crawl readers: WARC (0.17, 0.18 incl. ClueWeb09 quirks, 1.0,
//! 1.1, and ClueWeb22's `html` part), TREC SGML, SMART (the `.I`/`.T`/`.W`
//! documents of Cranfield, CACM, CISI and MED as shipped), JSON lines
//! (Anserini's `JsonCollection`, BEIR's `corpus.jsonl`, ClueWeb22's `txt`
//! part, see `jsonl.rs`) and tab-separated `id<TAB>text` lines (MS MARCO
//! style, see `tsv.rs`), plain or gzipped (per-record members or one
//! stream).
//!
//! [`open`] / [`from_reader`] detect gzip by its magic bytes (`1f 8b`) and the
//! format by content, never by file name: after a UTF-8 BOM and blanks, the
//! input starts `WARC/` → WARC; `<DOC>` → TREC; `.I` and whitespace at a
//! line start → SMART; `{` → JSON lines; a first line of exactly ten digits
//! → a ClueWeb22 offset file (`.warc.offset`, `.offset`: an index of the
//! file beside it, not a crawl; reported as one [`SkipReason::OffsetIndex`]
//! and not read); a first line holding a tab after a blank-free first
//! column → TSV. The returned [`CrawlReader`] is an
//! iterator of [`CrawlEvent`]s:
//!
//! * [`CrawlEvent::Doc`]: an HTML document to index ([`RawDoc`]);
//! * [`CrawlEvent::Skip`]: a record that is not indexed, with the reason;
//! * [`CrawlEvent::Anomaly`]: a recoverable framing problem (bytes skipped
//!   to resynchronise, wrong Content-Length, stray bytes, ...). Every byte
//!   the reader skips is counted in an anomaly.
//!
//! **Docids** are checked once, by one rule
//! ([`sieve_filters::docid::check_id`]): a record whose docid is empty or
//! holds whitespace (C `isspace` or Unicode: U+00A0, U+3000, ...) or a
//! control character is never a [`CrawlEvent::Doc`] but a
//! [`CrawlEvent::Skip`] with [`SkipReason::BadDocid`] and the docid escaped
//! in [`Skip::record_id`]: such an id would break the columns of a run
//! file. Every reader checks it where it knows the record's bytes (so
//! `keep_skipped` keeps them), and [`CrawlReader`] checks every document
//! again before handing it out; `build`, `build-shard`, `extract` and
//! `scan` all read through it, so they agree.
//!
//! A damaged gzip member (per-record `.warc.gz`) followed by an intact one is
//! skipped: [`AnomalyKind::GzipMember`], with the compressed span in
//! [`Anomaly::gzip`]; the records of later members read as if the damaged
//! member had been removed from the file.
//!
//! An unrecoverable problem (truncated or corrupt gzip with no intact member
//! after the damage, gzip bomb, read error)
//! is yielded as `Err` *after* every event recovered before it (e.g. the
//! partial last record, flagged `truncated`); after an `Err` the iterator ends.
//!
//! Memory per record is bounded by about `max_record_bytes` plus 64 KiB of
//! HTTP head: longer blocks are truncated and the rest is skipped by
//! streaming, never buffered.
//!
//! **Offsets** (`RawDoc::offset`, `Skip::offset`, `Anomaly::offset`) are byte
//! offsets in the *decompressed* stream (for a plain file: the file offset).
//! For a WARC record it is the offset of its `WARC/x.y` version line; for a
//! TREC document the offset of its `<DOC>` tag; for a SMART record the
//! offset of its `.I` line; for a JSON or TSV line the offset of its first
//! byte.
//!
//! **Reading a record back**: every [`RawDoc`] carries its [`Span`], where
//! its bytes are in the file: the decompressed offset and length, and for
//! gzip input the compressed offset of the member its first byte is in
//! (with that member's decompressed start). [`read_span`] reads exactly
//! those bytes again: for a per-record gzip member it seeks to the member
//! and decompresses only it; for a one-stream gzip file the member is the
//! whole file, so it decompresses from the start of the file up to the
//! record ([`SpanRead::skipped`] says how many bytes that was).

mod error;
mod gunzip;
mod gzmember;
mod http;
mod input;
mod jsonl;
mod smart;
mod span;
mod trec;
mod tsv;
mod warc;

pub mod inputs;
pub mod scan;

#[cfg(test)]
mod tests;

pub use jsonl::JsonFields;
pub use span::{SpanRead, SpanReader, open_span, read_span};
pub use tsv::{TsvColumn, parse_tsv_columns};

pub use http::{
    HttpHead, MAX_HEAD_BYTES, charset_of, dechunk, gunzip_if_gzip, is_html_mime, mime_of,
    parse_head, sniff_html,
};

pub use sieve_types::{DEFAULT_DOCID_HEADERS, GzipSpan, MemberPos};
pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

use gunzip::Gunzip;
use input::{GzState, Inner, Source};
use sieve_filters::docid::{IdFault, check_id, escaped};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

/// Options for reading crawls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlOptions {
    /// Largest entity body kept per record, in bytes (default 10 MiB,
    /// ClueWeb's cap). Longer bodies are truncated to this length and flagged
    /// [`RawDoc::truncated`]; the rest of the record is skipped by streaming.
    pub max_record_bytes: u64,
    /// Largest allowed ratio decompressed / compressed bytes of a gzip input
    /// (default 200), checked once more than `bomb_min_output` bytes have
    /// been decompressed. Exceeding it stops the file with
    /// [`Error::GzipBomb`].
    pub max_decompression_ratio: u64,
    /// Decompressed bytes before the ratio check applies (default 64 MiB).
    pub bomb_min_output: u64,
    /// Keep the bytes of records that are not indexed, and of bytes skipped
    /// to resynchronise, in [`Skip::raw`] and [`Anomaly::raw`] (at most
    /// [`MAX_HEAD_BYTES`] plus `max_record_bytes` each; the rest is still
    /// streamed, never buffered). Off by default: it is only needed to
    /// quarantine what was not indexed, and costs up to that much memory per
    /// skipped record in flight.
    pub keep_skipped: bool,
    /// Which WARC header is the docid: `None` for the default chain
    /// [`DEFAULT_DOCID_HEADERS`] (the first present wins), or one header
    /// name (ASCII case-insensitive; a record without it is skipped as
    /// [`SkipReason::NoDocid`]). TREC, SMART, JSON and TSV documents have
    /// their own ids and ignore it.
    pub docid_header: Option<String>,
    /// Which JSON keys hold the id, title, text, URL and language of a JSON
    /// line (see [`JsonFields`]).
    pub json_fields: JsonFields,
    /// What the tab-separated columns of a TSV line are (default `id`,
    /// `text`; the last column takes the rest of the line).
    pub tsv_columns: Vec<TsvColumn>,
    /// Keep the WARC and HTTP heads of every document in [`RawDoc::heads`]
    /// (`extract --full`). Off by default.
    pub keep_heads: bool,
    /// Inflate gzip input on a thread of its own, ahead of the parsers
    /// (`sieve-index scan` does): the same events as inline, in less wall
    /// time when a core is free, for some more CPU (the chunks are handed
    /// over). Off by default: a build already reads several files at once.
    pub inflate_ahead: bool,
}

impl CrawlOptions {
    /// The docid rule as recorded in a manifest: the chosen header, or the
    /// default chain joined by commas.
    pub fn docid_rule(&self) -> String {
        match &self.docid_header {
            Some(h) => h.clone(),
            None => DEFAULT_DOCID_HEADERS.join(","),
        }
    }

    /// Bytes of a record kept in memory: the body cap plus room for the
    /// HTTP head in front of it.
    pub fn keep_limit(&self) -> usize {
        usize::try_from(self.max_record_bytes)
            .unwrap_or(usize::MAX)
            .saturating_add(MAX_HEAD_BYTES)
    }
}

impl Default for CrawlOptions {
    fn default() -> Self {
        Self {
            max_record_bytes: 10 * 1024 * 1024,
            max_decompression_ratio: 200,
            bomb_min_output: 64 * 1024 * 1024,
            keep_skipped: false,
            docid_header: None,
            json_fields: JsonFields::default(),
            tsv_columns: vec![TsvColumn::Id, TsvColumn::Text],
            keep_heads: false,
            inflate_ahead: false,
        }
    }
}

/// One event from a crawl file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrawlEvent {
    /// A document to index.
    Doc(RawDoc),
    /// A record that is not indexed.
    Skip(Skip),
    /// A recoverable framing problem.
    Anomaly(Anomaly),
}

/// A document read from a crawl, before charset decoding and HTML extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawDoc {
    /// WARC: the first of [`DEFAULT_DOCID_HEADERS`] present (or the header
    /// chosen in [`CrawlOptions::docid_header`]), angle brackets stripped,
    /// trimmed, lossy UTF-8. TREC: the `DOCNO`, trimmed. SMART: the `.I`
    /// value, trimmed. JSON and TSV: the id field, trimmed.
    pub docid: String,
    /// WARC: the `WARC-Record-ID` (angle brackets stripped), when the docid
    /// is another header. Otherwise `None`.
    pub record_id: Option<String>,
    /// The page's language as the collection labels it: ClueWeb22's
    /// `Language` (WARC header, or JSON field), or a mapped JSON or TSV
    /// field. `None` when the record says nothing.
    pub language: Option<String>,
    /// Where the record's bytes are in its file (filled in by the reader).
    pub span: Span,
    /// WARC: `WARC-Target-URI` (lossy UTF-8, trimmed, `<...>` stripped).
    /// TREC: the first token of the `DOCHDR` first line if it looks like a
    /// URL (contains `://` or starts with `www.`).
    pub url: Option<String>,
    /// Offset of the record start in the decompressed stream (see module docs).
    pub offset: u64,
    /// HTTP status code, if there was a status line.
    pub http_status: Option<u16>,
    /// Lower-cased MIME type of the HTTP `Content-Type`, without parameters.
    pub content_type: Option<String>,
    /// The `charset=` parameter of the HTTP `Content-Type`, trimmed and unquoted.
    pub http_charset: Option<String>,
    /// The entity body: de-chunked if `Transfer-Encoding: chunked` and it
    /// really is chunked; gunzipped if `Content-Encoding: gzip` (or
    /// `x-gzip`) and it really starts with `1f 8b`. At most
    /// `max_record_bytes` long. TREC: the bytes after `</DOCNO>` (and after
    /// `</DOCHDR>` if present) up to `</DOC>`. SMART: the title, `\n`, the
    /// text ([`Markup::Text`]).
    pub body: Vec<u8>,
    /// True if the body is incomplete: it hit `max_record_bytes`, or the input
    /// ended inside the record (SMART: reading failed inside it).
    pub truncated: bool,
    /// Length of the entity body as stored in the record (before de-chunking,
    /// gunzipping and truncation); for a record cut short by the end of input,
    /// the length its header declared. SMART: the record's length in the
    /// input, from its `.I` line to the next.
    pub original_len: u64,
    /// True if the body hit `max_record_bytes` (stored, de-chunked or
    /// gunzipped): the per-record cap fired. Implies `truncated`.
    pub capped: bool,
    /// How the body is read: HTML (WARC, TREC) or plain text (SMART,
    /// JSON, TSV).
    pub markup: Markup,
    /// The format fixes the encoding as UTF-8 (JSON lines): the body is
    /// cleaned as UTF-8 with no charset detection
    /// (`sieve_text::charset::decode_utf8`).
    pub utf8: bool,
    /// The record's WARC head and HTTP head as read, with
    /// [`CrawlOptions::keep_heads`] (WARC records only).
    pub heads: Option<Box<Heads>>,
}

/// Where a record's bytes are in its input file, to read them back with
/// [`read_span`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// Decompressed offset of the record's first byte (as
    /// [`RawDoc::offset`]).
    pub offset: u64,
    /// Length of the record in the decompressed stream: WARC from the
    /// version line through the block and its trailer (up to four CR/LF
    /// bytes); TREC from `<DOC>` through `</DOC>`; SMART from the `.I` line
    /// to the next; a JSON or TSV line with its `\n`. Records read one after
    /// another cover the input apart from what lies between records
    /// (reported as anomalies).
    pub len: u64,
    /// For gzip input: the gzip member the first byte is in. `None` for
    /// plain input, or when the member is no longer known (more than
    /// 65,536 members inside one record or garbage span), in which case
    /// the record is read back by decompressing from the start of the file.
    pub member: Option<MemberPos>,
    /// CRC-32 of the record's `len` decompressed bytes, as [`read_span`]
    /// gives them back (`None` if the reader could not tell: bytes before
    /// the record were consumed with it).
    pub crc: Option<u32>,
}

/// The heads of a WARC response record, as bytes read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heads {
    /// The WARC version line and header lines, up to the blank line.
    pub warc: Vec<u8>,
    /// The HTTP status line and header lines, up to the blank line.
    pub http: Vec<u8>,
}

/// What the body of a [`RawDoc`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Markup {
    /// HTML: the title and the visible text are extracted from the markup
    /// (WARC responses, TREC documents).
    #[default]
    Html,
    /// Plain text, nothing in it is markup: the first line is the title,
    /// the rest the text (SMART records: `.T`, then `.W`; JSON and TSV
    /// lines: the title field, then the text fields).
    Text,
}

/// The bytes of something that was not indexed, kept for inspection when
/// [`CrawlOptions::keep_skipped`] is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBytes {
    /// The bytes as they are in the (decompressed) input, from the offset of
    /// the event: for a skipped WARC record its header and block, for a TREC
    /// document from `<DOC>` on, for a SMART record from its `.I` line on, for
    /// skipped garbage (or a dropped SMART field) the garbage. At most
    /// [`CrawlOptions::keep_limit`] bytes of a block.
    pub bytes: Vec<u8>,
    /// True if the input held more than `bytes` (the rest was streamed past).
    pub truncated: bool,
}

/// A record that is not indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    /// Why it was skipped.
    pub reason: SkipReason,
    /// Offset of the record start in the decompressed stream.
    pub offset: u64,
    /// The record's docid / record id, if it had one.
    pub record_id: Option<String>,
    /// The record's bytes, if [`CrawlOptions::keep_skipped`].
    pub raw: Option<RawBytes>,
}

/// Why a record was not indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// A WARC record that is not a `response` (the `WARC-Type`, lower-cased:
    /// warcinfo, request, metadata, resource, revisit, conversion, ...).
    NotResponse(String),
    /// A response whose content is not HTML (the MIME type, or `unknown`).
    NotHtml(String),
    /// A response whose HTTP status is not 2xx.
    HttpStatus(u16),
    /// A response or document with an empty body.
    EmptyBody,
    /// A record with no usable identifier.
    NoDocid,
    /// A JSON or TSV line that cannot be read (the detail says what was
    /// wrong and where in the line).
    MalformedLine(String),
    /// The file is a ClueWeb22 offset file (lines of ten digits: the
    /// compressed offsets of the records of the file beside it), not a
    /// crawl; nothing in it is read.
    OffsetIndex,
    /// A record whose docid the run-file id rule refuses
    /// ([`sieve_filters::docid::check_id`]: whitespace, C `isspace` or
    /// Unicode, or a control character): it would break the columns of a
    /// run file. [`Skip::record_id`] holds the docid escaped
    /// ([`sieve_filters::docid::escaped`]).
    BadDocid(IdFault),
}

impl SkipReason {
    /// True if the skipped record was an HTTP response (or a TREC document):
    /// everything but [`SkipReason::NotResponse`]. `stats.json` and
    /// `sieve-index scan` count responses with it.
    pub fn is_response(&self) -> bool {
        !matches!(self, SkipReason::NotResponse(_) | SkipReason::OffsetIndex)
    }

    /// Stable, low-cardinality statistics key: `not_response:<type>` (for the
    /// standard WARC types, else `not_response:other`), `not_html`,
    /// `http_status:1xx`..`http_status:5xx` (`http_status:other`),
    /// `empty_body`, `no_docid`, `malformed_line`, `offset_index`,
    /// `bad_docid`.
    pub fn key(&self) -> String {
        match self {
            SkipReason::NotResponse(t) => {
                const KNOWN: &[&str] = &[
                    "warcinfo",
                    "request",
                    "metadata",
                    "resource",
                    "revisit",
                    "conversion",
                    "continuation",
                ];
                if KNOWN.contains(&t.as_str()) {
                    format!("not_response:{t}")
                } else {
                    "not_response:other".to_string()
                }
            }
            SkipReason::NotHtml(_) => "not_html".to_string(),
            SkipReason::HttpStatus(s) => match s / 100 {
                1..=5 => format!("http_status:{}xx", s / 100),
                _ => "http_status:other".to_string(),
            },
            SkipReason::EmptyBody => "empty_body".to_string(),
            SkipReason::NoDocid => "no_docid".to_string(),
            SkipReason::MalformedLine(_) => "malformed_line".to_string(),
            SkipReason::OffsetIndex => "offset_index".to_string(),
            SkipReason::BadDocid(_) => "bad_docid".to_string(),
        }
    }
}

/// A recoverable problem in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anomaly {
    /// What went wrong.
    pub kind: AnomalyKind,
    /// Offset (decompressed stream) where the affected bytes start.
    pub offset: u64,
    /// Number of bytes affected (skipped, cut or missing; see [`AnomalyKind`]).
    pub bytes: u64,
    /// The record concerned, if known.
    pub record_id: Option<String>,
    /// The bytes dropped, if [`CrawlOptions::keep_skipped`] and the anomaly
    /// dropped bytes that belong to no record ([`AnomalyKind::Resync`], and
    /// [`AnomalyKind::TruncatedRecord`] inside a WARC header). For
    /// [`AnomalyKind::GzipMember`]: the first *compressed* bytes of the
    /// skipped span, from the start of the damaged member.
    pub raw: Option<RawBytes>,
    /// For [`AnomalyKind::GzipMember`]: the skipped compressed span.
    pub gzip: Option<GzipSpan>,
}

/// Kinds of [`Anomaly`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnomalyKind {
    /// Bytes skipped to find the next record header (`bytes` = skipped).
    Resync,
    /// The declared Content-Length ran into the next record header; the block
    /// was cut there (`bytes` = declared minus actual length).
    ContentLengthTooLong,
    /// The block ended before the next record header; the bytes up to it were
    /// appended to the block (`bytes` = appended).
    ContentLengthTooShort,
    /// Blank or whitespace bytes between records beyond the normal trailer
    /// (`bytes` = skipped).
    StrayBytes,
    /// The input ended inside a record (`bytes` = missing bytes of the declared length).
    TruncatedRecord,
    /// A header line that could not be parsed (`bytes` = its length), or an
    /// HTTP head line without a colon (`bytes` = number of such lines).
    BadHeaderLine,
    /// A WARC record without a parsable Content-Length; the block runs to the
    /// next record header (`bytes` = block length).
    MissingContentLength,
    /// SMART: a field under a marker sieve does not know (e.g. `.Q`), or
    /// non-blank text between a record's `.I` line and its first marker,
    /// was dropped (`bytes` = its length); the record is still read. JSON
    /// lines: a mapped key whose value is an array or an object (not
    /// text) was dropped (`bytes` = the value's length).
    UnknownField,
    /// `Content-Encoding: gzip` body that starts like gzip but fails to
    /// decode (`bytes` = encoded length); the decoded prefix is kept if any,
    /// else the raw bytes.
    BadContentEncoding,
    /// A WARC header block too long to be real (`bytes` = skipped).
    OversizedHeader,
    /// A damaged gzip member was skipped up to the next intact member
    /// (`bytes` = *compressed* bytes skipped; `offset` = the decompressed
    /// offset where the next member's output starts; the compressed span
    /// is in [`Anomaly::gzip`]). Output of the damaged member is dropped
    /// unless it passed 8 MiB before the damage showed.
    GzipMember,
}

impl AnomalyKind {
    /// Stable statistics key (snake case), e.g. `resync`, `content_length_too_long`.
    pub fn key(&self) -> &'static str {
        match self {
            AnomalyKind::Resync => "resync",
            AnomalyKind::ContentLengthTooLong => "content_length_too_long",
            AnomalyKind::ContentLengthTooShort => "content_length_too_short",
            AnomalyKind::StrayBytes => "stray_bytes",
            AnomalyKind::TruncatedRecord => "truncated_record",
            AnomalyKind::BadHeaderLine => "bad_header_line",
            AnomalyKind::MissingContentLength => "missing_content_length",
            AnomalyKind::UnknownField => "unknown_field",
            AnomalyKind::BadContentEncoding => "bad_content_encoding",
            AnomalyKind::OversizedHeader => "oversized_header",
            AnomalyKind::GzipMember => "gzip_member",
        }
    }
}

/// An anomaly event without kept bytes (the parsers attach them where
/// they keep any).
fn anomaly(kind: AnomalyKind, offset: u64, bytes: u64, record_id: Option<String>) -> CrawlEvent {
    CrawlEvent::Anomaly(Anomaly {
        kind,
        offset,
        bytes,
        record_id,
        raw: None,
        gzip: None,
    })
}

/// A [`AnomalyKind::Resync`] event: `skipped` bytes at `offset` belonged to
/// no record. With `keep` (`CrawlOptions::keep_skipped`), `kept`, the first
/// of those bytes up to the keep limit, travels along.
fn resync(offset: u64, skipped: u64, kept: Vec<u8>, keep: bool) -> CrawlEvent {
    CrawlEvent::Anomaly(Anomaly {
        kind: AnomalyKind::Resync,
        offset,
        bytes: skipped,
        record_id: None,
        raw: keep.then_some(RawBytes {
            truncated: (kept.len() as u64) < skipped,
            bytes: kept,
        }),
        gzip: None,
    })
}

/// A [`AnomalyKind::GzipMember`] event for a skipped member.
fn gzip_member(s: input::SkippedMember) -> CrawlEvent {
    let g = s.gap;
    CrawlEvent::Anomaly(Anomaly {
        kind: AnomalyKind::GzipMember,
        offset: s.offset,
        bytes: g.skipped,
        record_id: None,
        raw: g.kept.map(|bytes| RawBytes {
            bytes,
            truncated: g.kept_truncated,
        }),
        gzip: Some(GzipSpan {
            compressed_offset: g.member_offset,
            compressed_bytes: g.skipped,
            reason: g.reason,
        }),
    })
}

/// The format of a crawl file, detected by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrawlFormat {
    /// WARC (any version).
    Warc,
    /// TREC SGML (`<DOC>` ... `</DOC>`).
    Trec,
    /// SMART records (`.I <id>`, `.T`, `.W`, ...).
    Smart,
    /// JSON lines (one object per line).
    JsonLines,
    /// Tab-separated lines (`id<TAB>text`, or the columns chosen).
    Tsv,
    /// A ClueWeb22 offset file (not a crawl).
    OffsetIndex,
    /// An empty (or whitespace-only) input.
    Empty,
}

impl CrawlFormat {
    /// A short name: `warc`, `trec`, `smart`, `jsonl`, `tsv`,
    /// `offset_index`, `empty`.
    pub fn key(self) -> &'static str {
        match self {
            CrawlFormat::Warc => "warc",
            CrawlFormat::Trec => "trec",
            CrawlFormat::Smart => "smart",
            CrawlFormat::JsonLines => "jsonl",
            CrawlFormat::Tsv => "tsv",
            CrawlFormat::OffsetIndex => "offset_index",
            CrawlFormat::Empty => "empty",
        }
    }
}

enum Parser {
    Warc(warc::WarcParser),
    Trec(trec::TrecParser),
    Smart(smart::SmartParser),
    Json(Box<jsonl::JsonParser>),
    Tsv(tsv::TsvParser),
    /// An offset file: one skip, then nothing.
    Offsets(bool),
    Empty,
}

/// Iterator over the [`CrawlEvent`]s of one crawl file. See the module docs.
pub struct CrawlReader {
    src: Source,
    parser: Parser,
    format: CrawlFormat,
    queue: VecDeque<CrawlEvent>,
    done: bool,
    deferred: Option<Error>,
}

impl CrawlReader {
    /// The detected format.
    pub fn format(&self) -> CrawlFormat {
        self.format
    }

    /// The path (or name) this reader was opened with.
    pub fn path(&self) -> &Path {
        self.src.path()
    }
}

impl Iterator for CrawlReader {
    type Item = Result<CrawlEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(ev) = self.queue.pop_front() {
                return Some(Ok(ev));
            }
            if self.done {
                if let Some(s) = self.src.take_skipped(true) {
                    self.queue.push_back(gzip_member(s));
                    continue;
                }
                return self.deferred.take().map(Err);
            }
            // A skipped gzip member is reported where the next member's
            // output starts, before the records read from there.
            self.src.ensure(1);
            if let Some(s) = self.src.take_skipped(false) {
                self.queue.push_back(gzip_member(s));
                continue;
            }
            // Records start at or after here: the gzip member of every
            // record read by this call is still known.
            self.src.pin();
            let queued = self.queue.len();
            let more = match &mut self.parser {
                Parser::Warc(p) => p.next_record(&mut self.src, &mut self.queue),
                Parser::Trec(p) => p.next_doc(&mut self.src, &mut self.queue),
                Parser::Smart(p) => p.next_doc(&mut self.src, &mut self.queue),
                Parser::Json(p) => p.next_line(&mut self.src, &mut self.queue),
                Parser::Tsv(p) => p.next_line(&mut self.src, &mut self.queue),
                Parser::Offsets(done) => {
                    if !*done {
                        *done = true;
                        self.queue.push_back(CrawlEvent::Skip(Skip {
                            reason: SkipReason::OffsetIndex,
                            offset: 0,
                            record_id: None,
                            raw: None,
                        }));
                    }
                    false
                }
                Parser::Empty => false,
            };
            // Each call reads at most one record: it ends where the call
            // stopped.
            let end = self.src.offset();
            for ev in self.queue.range_mut(queued..) {
                if let CrawlEvent::Doc(d) = ev {
                    d.span = Span {
                        offset: d.offset,
                        len: end.saturating_sub(d.offset),
                        member: self.src.member_of(d.offset),
                        crc: self.src.record_crc(d.offset),
                    };
                }
                refuse_bad_docid(ev);
            }
            if !more {
                self.done = true;
                self.deferred = self.src.take_error();
            }
        }
    }
}

/// The skip reason of a record whose docid the run-file id rule refuses,
/// or `None` for a good docid. The readers call it where they decide a
/// record's fate, so the skip keeps the record's bytes.
fn bad_docid(docid: &str) -> Option<SkipReason> {
    check_id(docid).err().map(SkipReason::BadDocid)
}

/// The last check before an event leaves the reader: a document whose
/// docid the rule refuses becomes a [`SkipReason::BadDocid`] skip (without
/// kept bytes: every reader refuses such docids itself, with them), and a
/// bad-docid skip names its docid escaped.
fn refuse_bad_docid(ev: &mut CrawlEvent) {
    match ev {
        CrawlEvent::Doc(d) => {
            if let Some(reason) = bad_docid(&d.docid) {
                *ev = CrawlEvent::Skip(Skip {
                    reason,
                    offset: d.offset,
                    record_id: Some(escaped(&d.docid)),
                    raw: None,
                });
            }
        }
        CrawlEvent::Skip(s) if matches!(s.reason, SkipReason::BadDocid(_)) => {
            s.record_id = s.record_id.as_deref().map(escaped);
        }
        _ => {}
    }
}

/// Opens a crawl file (see the module docs for detection rules).
pub fn open(path: &Path, opts: &CrawlOptions) -> Result<CrawlReader> {
    let file = File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    build(path.to_path_buf(), file, opts, None)
}

/// Reads a crawl from any reader (tests, fuzzing, stdin). `name` is used as
/// the path in errors.
pub fn from_reader(
    name: &str,
    reader: impl Read + Send + 'static,
    opts: &CrawlOptions,
) -> Result<CrawlReader> {
    build(PathBuf::from(name), reader, opts, None)
}

/// Reads `reader`, plain (decompressed) bytes, as `format`, without
/// detecting it or gunzipping: one record cut from a file (a [`Span`], as
/// [`open_span`] returns it) is read as the file was, even when it alone
/// would not be detected so (a TSV line whose first column holds a blank,
/// a line that starts with the gzip magic bytes).
pub fn from_reader_as(
    name: &str,
    reader: impl Read + Send + 'static,
    opts: &CrawlOptions,
    format: CrawlFormat,
) -> Result<CrawlReader> {
    build(PathBuf::from(name), reader, opts, Some(format))
}

fn build(
    path: PathBuf,
    mut reader: impl Read + Send + 'static,
    opts: &CrawlOptions,
    format: Option<CrawlFormat>,
) -> Result<CrawlReader> {
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match reader.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(Error::ReadAt {
                    path,
                    offset: 0,
                    source,
                });
            }
        }
    }
    let head = Cursor::new(magic[..got].to_vec());
    let chained = head.chain(reader);
    // A forced format reads decompressed bytes: never gunzipped again.
    let mut src = if format.is_none() && got == 2 && magic == [0x1f, 0x8b] {
        let keep = if opts.keep_skipped {
            opts.keep_limit()
        } else {
            0
        };
        let chained: Box<dyn Read + Send> = Box::new(chained);
        // Inflating on a thread of its own, ahead of the parsers, reads
        // the same events as inline (see `gunzip`).
        let dec = if opts.inflate_ahead {
            Gunzip::ahead(chained, keep, input::READ_CHUNK).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?
        } else {
            Gunzip::inline(chained, keep)
        };
        Source::new(
            path,
            Inner::Gz(dec),
            Some(GzState {
                max_ratio: opts.max_decompression_ratio,
                min_output: opts.bomb_min_output,
            }),
        )
    } else {
        Source::new(path, Inner::Plain(Box::new(chained)), None)
    };
    let format = match format {
        Some(f) => f,
        None => detect(&mut src)?,
    };
    let parser = match format {
        CrawlFormat::Warc => Parser::Warc(warc::WarcParser::new(opts.clone())),
        CrawlFormat::Trec => Parser::Trec(trec::TrecParser::new(opts.clone())),
        CrawlFormat::Smart => Parser::Smart(smart::SmartParser::new(opts.clone())),
        CrawlFormat::JsonLines => Parser::Json(Box::new(jsonl::JsonParser::new(opts.clone()))),
        CrawlFormat::Tsv => Parser::Tsv(tsv::TsvParser::new(opts.clone())),
        CrawlFormat::OffsetIndex => Parser::Offsets(false),
        CrawlFormat::Empty => Parser::Empty,
    };
    Ok(CrawlReader {
        src,
        parser,
        format,
        queue: VecDeque::new(),
        done: false,
        deferred: None,
    })
}

fn detect(src: &mut Source) -> Result<CrawlFormat> {
    let mut look = 4096;
    loop {
        let n = src.ensure(look);
        let b = src.avail();
        let b = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b);
        let t = b.trim_ascii_start();
        if t.is_empty() {
            if n < look {
                if let Some(e) = src.take_error() {
                    return Err(e);
                }
                return Ok(CrawlFormat::Empty);
            }
            look *= 2;
            if look > 1 << 20 {
                break;
            }
            continue;
        }
        if t.len() < 5 && n == look {
            look *= 2;
            continue;
        }
        if t.starts_with(b"WARC/") {
            return Ok(CrawlFormat::Warc);
        }
        if t.len() >= 4 && t[..4].eq_ignore_ascii_case(b"<doc") {
            let after = &t[4..];
            let after = after.trim_ascii_start();
            if after.first() == Some(&b'>') {
                return Ok(CrawlFormat::Trec);
            }
        }
        // `.I` + whitespace at the start of a line (the parser recognises
        // records only there).
        let line_start = t.len() == b.len() || b[b.len() - t.len() - 1] == b'\n';
        if line_start && t.starts_with(b".I") && t.get(2).is_some_and(u8::is_ascii_whitespace) {
            return Ok(CrawlFormat::Smart);
        }
        if t.starts_with(b"{") {
            return Ok(CrawlFormat::JsonLines);
        }
        if b.len() >= 11 && b[..10].iter().all(u8::is_ascii_digit) && b[10] == b'\n' {
            return Ok(CrawlFormat::OffsetIndex);
        }
        if tsv::looks_like_tsv(b) {
            return Ok(CrawlFormat::Tsv);
        }
        let got = String::from_utf8_lossy(&t[..t.len().min(32)]).into_owned();
        if let Some(e) = src.take_error() {
            return Err(e);
        }
        return Err(Error::UnknownCrawlFormat {
            path: src.path().clone(),
            got,
        });
    }
    Err(Error::UnknownCrawlFormat {
        path: src.path().clone(),
        got: "(over 1 MiB of whitespace)".to_string(),
    })
}
