//! What a reader hands out: [`CrawlEvent`]s (a document, a skipped record,
//! or an anomaly), with the types they carry, and the one docid check
//! every reader applies.

use sieve_filters::docid::{IdFault, check_id};
use sieve_types::{GzipSpan, MemberPos};

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
    /// WARC: the first of
    /// [`DEFAULT_DOCID_HEADERS`](crate::DEFAULT_DOCID_HEADERS) present (or the
    /// header chosen in
    /// [`CrawlOptions::docid_header`](crate::CrawlOptions::docid_header)),
    /// angle brackets stripped, trimmed, lossy UTF-8. TREC: the `DOCNO`,
    /// trimmed. SMART: the `.I` value, trimmed. JSON and TSV: the id field,
    /// trimmed.
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
    /// [`CrawlOptions::keep_heads`](crate::CrawlOptions::keep_heads) (WARC
    /// records only).
    pub heads: Option<Box<Heads>>,
}

/// Where a record's bytes are in its input file, to read them back with
/// [`read_span`](crate::read_span).
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
    /// CRC-32 of the record's `len` decompressed bytes, as
    /// [`read_span`](crate::read_span) gives them back (`None` if the reader
    /// could not tell: bytes before the record were consumed with it).
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
/// [`CrawlOptions::keep_skipped`](crate::CrawlOptions::keep_skipped) is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBytes {
    /// The bytes as they are in the (decompressed) input, from the offset of
    /// the event: for a skipped WARC record its header and block, for a TREC
    /// document from `<DOC>` on, for a SMART record from its `.I` line on, for
    /// skipped garbage (or a dropped SMART field) the garbage. At most
    /// [`CrawlOptions::keep_limit`](crate::CrawlOptions::keep_limit) bytes of a
    /// block.
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
    /// The record's bytes, if
    /// [`CrawlOptions::keep_skipped`](crate::CrawlOptions::keep_skipped).
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
    /// The bytes dropped, if
    /// [`CrawlOptions::keep_skipped`](crate::CrawlOptions::keep_skipped) and
    /// the anomaly dropped bytes that belong to no record
    /// ([`AnomalyKind::Resync`], and [`AnomalyKind::TruncatedRecord`] inside a
    /// WARC header). For [`AnomalyKind::GzipMember`]: the first *compressed*
    /// bytes of the skipped span, from the start of the damaged member.
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
pub(crate) fn anomaly(
    kind: AnomalyKind,
    offset: u64,
    bytes: u64,
    record_id: Option<String>,
) -> CrawlEvent {
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
pub(crate) fn resync(offset: u64, skipped: u64, kept: Vec<u8>, keep: bool) -> CrawlEvent {
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
/// The skip reason of a record whose docid the run-file id rule refuses,
/// or `None` for a good docid. The readers call it where they decide a
/// record's fate, so the skip keeps the record's bytes.
pub(crate) fn bad_docid(docid: &str) -> Option<SkipReason> {
    check_id(docid).err().map(SkipReason::BadDocid)
}
