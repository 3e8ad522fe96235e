//! # sieve-crawl
//!
//! Streaming crawl readers: WARC (0.17, 0.18 incl. ClueWeb09 quirks, 1.0,
//! 1.1, and ClueWeb22's `html` part), TREC SGML, SMART (the `.I`/`.T`/`.W`
//! documents of Cranfield, CACM, CISI and MED as shipped), JSON lines
//! (Anserini's `JsonCollection`, BEIR's `corpus.jsonl`, ClueWeb22's `txt`
//! part) and tab-separated `id<TAB>text` lines (MS MARCO style), plain or
//! gzipped (per-record members or one stream).
//!
//! The crate's roles, from the bottom up:
//!
//! * [`CrawlOptions`] say what a reader keeps: the per-record cap, the
//!   gzip-bomb limits, the docid header, the JSON keys and TSV columns,
//!   whether skipped bytes and record heads travel along.
//! * The events a reader hands out ([`CrawlEvent`]: a [`RawDoc`], a
//!   [`Skip`] or an [`Anomaly`]) and the one docid check every reader
//!   applies.
//! * The input underneath: plain bytes, or gzip decoded member by member
//!   (a damaged member skipped, a bomb stopped), inline or on a thread of
//!   its own ahead of the parsers; it knows the gzip member and CRC-32 of
//!   every record.
//! * One parser per format (private: `warc`, `trec`, `smart`, `jsonl`,
//!   `tsv`, the last two sharing their line helpers), each reading one
//!   record per call; [`http`] parses the HTTP head of a WARC response.
//! * The reader ([`open`], [`from_reader`], [`from_reader_as`]) detects
//!   the format and drives the parser into a [`CrawlReader`]; [`read_span`]
//!   and [`open_span`] read one record's bytes back from its file.
//! * [`inputs`] turns command-line paths, directories and globs into the
//!   ordered list of input files; [`scan`] is the read-only pass of
//!   `sieve-index scan`.
//!
//! ```
//! use sieve_crawl::{CrawlEvent, CrawlOptions, from_reader};
//!
//! let trec = "<DOC>\n<DOCNO> d1 </DOCNO>\n<p>Hello</p>\n</DOC>\n";
//! let input = std::io::Cursor::new(trec);
//! let reader = from_reader("example", input, &CrawlOptions::default())?;
//! let mut docids = Vec::new();
//! for event in reader {
//!     if let CrawlEvent::Doc(doc) = event? {
//!         docids.push(doc.docid);
//!     }
//! }
//! assert_eq!(docids, ["d1"]);
//! # Ok::<(), sieve_crawl::Error>(())
//! ```
//!
//! # Detection and events
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
mod event;
mod gunzip;
mod gzmember;
pub mod http;
mod input;
mod jsonl;
mod lines;
mod options;
mod reader;
mod smart;
mod span;
mod trec;
mod tsv;
mod warc;

pub mod inputs;
pub mod scan;

#[cfg(test)]
mod tests;

pub use error::Error;
pub use event::{
    Anomaly, AnomalyKind, CrawlEvent, Heads, Markup, RawBytes, RawDoc, Skip, SkipReason, Span,
};
pub use jsonl::JsonFields;
pub use options::CrawlOptions;
pub use reader::{CrawlFormat, CrawlReader, from_reader, from_reader_as, open};
pub use sieve_types::{DEFAULT_DOCID_HEADERS, GzipSpan, MemberPos};
pub use span::{SpanRead, SpanReader, open_span, read_span};
pub use tsv::{TsvColumn, parse_tsv_columns};

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
