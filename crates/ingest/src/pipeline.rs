//! The per-document and per-file work of a build: the worker pool decodes,
//! cleans, extracts and analyses each document ([`process`], started by the
//! readers of [`crate::readahead`]), and the one writer thread adds the
//! results in record order while counting and logging everything not
//! indexed ([`FileSink`]). See [`crate::build`] for the guarantees.

use std::time::Instant;

use sieve_analysis::EnglishAnalyzer;
use sieve_crawl::Error as CrawlError;
use sieve_crawl::{Anomaly, AnomalyKind, CrawlEvent, Markup, RawDoc, Skip, SkipReason};
use sieve_filters::utf8::{Counting, ErrorClass, Utf8Counts};
use sieve_format::document::{IndexDoc, SieveDocument};
use sieve_format::schema::Fields;
use sieve_format::stats::FileStats;
use sieve_text::charset::{CharsetMode, Decoded, decode, decode_utf8};
use sieve_text::html::{Extracted, extract_text, plain_text};
use tantivy::IndexWriter;

use crate::losses::{LossLine, file_error, log_loss};
use crate::options::{BuildOptions, Cap, CapHits, DocTimeout, Progress};
use crate::quarantine::{Content, Item, Quarantine};
use crate::record::{Record, RecordSpec};
use crate::{Error, Result};

/// What the workers made of one document.
enum Outcome {
    Doc(Made, DocFacts),
    Lost(&'static str),
}

/// A document ready for its destination: analysed for the index
/// (`build`), or as an output record (`extract`).
pub(crate) enum Made {
    /// An analysed tantivy document.
    Index(Box<SieveDocument>),
    /// An `extract` record.
    Record(Box<Record>),
}

/// Where the documents of a file go: the index writer, or the output file
/// of `extract`.
pub(crate) trait DocWriter {
    /// Adds one document, in record order.
    fn add(&mut self, made: Made) -> Result<()>;
}

impl DocWriter for IndexWriter<SieveDocument> {
    fn add(&mut self, made: Made) -> Result<()> {
        match made {
            Made::Index(doc) => {
                self.add_document(*doc)?;
                Ok(())
            }
            Made::Record(r) => Err(Error::Input {
                path: r.docid.clone().into(),
                detail: "internal: an extract record sent to an index".into(),
            }),
        }
    }
}

/// A processed document: the outcome, the caps it hit, and (with a
/// quarantine, if it was lost or capped) its body.
pub(crate) struct Processed {
    outcome: Outcome,
    caps: CapHits,
    body: Option<Vec<u8>>,
    /// The body is incomplete (the record was cut, or the input ended).
    body_truncated: bool,
}

/// Per-document figures for the statistics (and the index).
struct DocFacts {
    counts: Utf8Counts,
    atire_extra: u64,
    /// The key of the source that decided the charset.
    source: &'static str,
    /// Its code, as the index stores it.
    source_code: u64,
    encoding: &'static str,
    disagree: bool,
    truncated: bool,
    html_capped: bool,
    spam: Option<u8>,
}

/// Processes one document (in a worker).
pub(crate) fn process(raw: RawDoc, source: &str, p: &Pipeline<'_>) -> Processed {
    let opts = p.opts;
    let deadline = opts.max_doc_time.map(|d| Instant::now() + d);
    let mut caps = CapHits::default();
    caps.set(Cap::RecordBytes, raw.capped);
    let body_truncated = raw.truncated;
    // With a quarantine, keep the body for it until we know the document
    // is indexed without hitting a cap.
    let mut body = opts.quarantine.as_ref().map(|_| raw.body.clone());
    let outcome = process_doc(raw, source, p, deadline, &mut caps);
    if matches!(outcome, Outcome::Doc(..)) && !caps.any() {
        body = None;
    }
    Processed {
        outcome,
        caps,
        body,
        body_truncated,
    }
}

/// Decodes, extracts and (for an index) analyses one document, or says
/// why it is lost, recording the caps it hits in `caps`: the build's hot
/// path, its steps and their allocations in this order.
fn process_doc(
    mut raw: RawDoc,
    source: &str,
    p: &Pipeline<'_>,
    deadline: Option<Instant>,
    caps: &mut CapHits,
) -> Outcome {
    let opts = p.opts;
    if let Some(f) = &opts.filter
        && !f.keeps(&raw.docid)
    {
        return Outcome::Lost("filtered");
    }
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    let decoded = decode_body(&mut raw, opts.charset);
    if opts.doc_timeout == DocTimeout::Skip && late() {
        caps.set(Cap::TimeBudget, true);
        return Outcome::Lost("time_budget");
    }
    let counts = decoded.utf8_counts;
    // ATIRE counting differs only in extra unexpected-continuation counts,
    // measured by the cleaner in the same pass (one UTF-8 pass per document).
    let atire_extra = if counts.is_clean() {
        0
    } else {
        decoded.atire_extra
    };
    let text = match raw.markup {
        Markup::Html => extract_text(&decoded.text, &opts.html, opts.text, deadline),
        Markup::Text => plain_text(&decoded.text, &opts.html),
    };
    // `extract --full` keeps the decoded page; nothing else needs it now.
    let html = match p.extract {
        Some(x) if x.full => Some(decoded.text),
        _ => {
            drop(decoded.text);
            None
        }
    };
    if let Some(reason) = text_caps(&text, opts.doc_timeout, caps) {
        return Outcome::Lost(reason);
    }
    let spam = opts.spam.as_ref().and_then(|m| m.get(&raw.docid));
    let minhash = if opts.near_duplicates {
        crate::dedup::band_keys(&text.title, &text.body)
    } else {
        Vec::new()
    };
    let facts = DocFacts {
        counts,
        atire_extra,
        source: decoded.source.key(),
        source_code: decoded.source.code(),
        encoding: decoded.encoding.name(),
        disagree: decoded.disagree,
        truncated: raw.truncated,
        html_capped: text.depth_capped || text.text_truncated,
        spam,
    };
    let timed_out = text.timed_out;
    let heads = raw.heads.take();
    let doc = index_doc(raw, source, text, &facts, minhash);
    let made = match p.extract {
        Some(x) => Made::Record(Box::new(Record::new(doc, facts.source, x, heads, html))),
        None => Made::Index(Box::new(doc.into_document(p.fields, p.analyzer))),
    };
    if opts.doc_timeout == DocTimeout::Skip && !timed_out && late() {
        caps.set(Cap::TimeBudget, true);
        return Outcome::Lost("time_budget");
    }
    Outcome::Doc(made, facts)
}

/// Decodes the body of `raw` (taken out of it) to text: a UTF-8 record
/// (JSON lines) with the cleaner alone, any other through charset
/// detection; UTF-8 errors counted exactly.
fn decode_body(raw: &mut RawDoc, mode: CharsetMode) -> Decoded {
    let body = std::mem::take(&mut raw.body);
    if raw.utf8 {
        decode_utf8(body, mode, Counting::Exact)
    } else {
        decode(
            body,
            raw.http_charset.as_deref(),
            raw.url.as_deref(),
            mode,
            Counting::Exact,
        )
    }
}

/// Records in `caps` the caps the extraction of `text` hit; returns why
/// the document is lost, if it is: timed out (with `timeout` skipping),
/// or no title and no text.
fn text_caps(text: &Extracted, timeout: DocTimeout, caps: &mut CapHits) -> Option<&'static str> {
    caps.set(Cap::HtmlDepth, text.depth_capped);
    caps.set(Cap::TextBytes, text.text_truncated);
    caps.set(Cap::TimeBudget, text.timed_out);
    if text.timed_out && timeout == DocTimeout::Skip {
        return Some("time_budget");
    }
    if text.title.trim().is_empty() && text.body.trim().is_empty() {
        return Some("empty_text");
    }
    None
}

/// The document `raw` (from the input `source`) with its extracted `text`,
/// the figures of its decoding and its band keys.
fn index_doc(
    raw: RawDoc,
    source: &str,
    text: Extracted,
    facts: &DocFacts,
    minhash: Vec<u64>,
) -> IndexDoc {
    IndexDoc {
        docid: raw.docid,
        url: raw.url,
        title: text.title,
        body: text.body,
        source: source.to_string(),
        offset: raw.offset,
        record_id: raw.record_id,
        language: raw.language,
        record_len: raw.span.len,
        gz_member: raw.span.member,
        record_crc: raw.span.crc,
        bytes: raw.original_len,
        counts: facts.counts,
        atire_extra: facts.atire_extra,
        charset: facts.encoding.to_string(),
        charset_source: facts.source_code,
        charset_disagree: facts.disagree,
        truncated: raw.truncated,
        spam: facts.spam,
        minhash,
    }
}

/// Bytes an event carries (for batching).
pub(crate) fn event_bytes(ev: &CrawlEvent) -> usize {
    match ev {
        CrawlEvent::Doc(d) => d.body.len(),
        CrawlEvent::Skip(s) => s.raw.as_ref().map_or(0, |r| r.bytes.len()),
        CrawlEvent::Anomaly(a) => a.raw.as_ref().map_or(0, |r| r.bytes.len()),
    }
}

/// What every file of a build shares.
pub(crate) struct Pipeline<'a> {
    /// The build's options.
    pub(crate) opts: &'a BuildOptions,
    /// The analyser.
    pub(crate) analyzer: &'a EnglishAnalyzer,
    /// The index fields.
    pub(crate) fields: &'a Fields,
    /// Progress callbacks.
    pub(crate) progress: &'a dyn Progress,
    /// `extract`: make output records instead of analysed documents.
    pub(crate) extract: Option<&'a RecordSpec>,
}

/// Where the results of one file go: the writer, the file's statistics,
/// its losses log lines and the quarantine.
pub(crate) struct FileSink<'w> {
    /// The file, as given.
    pub(crate) name: String,
    /// The index writer, or `extract`'s output file.
    pub(crate) writer: &'w mut dyn DocWriter,
    /// The file's statistics.
    pub(crate) fs: &'w mut FileStats,
    /// Its `losses.jsonl` lines, written after the file.
    pub(crate) log: &'w mut Vec<u8>,
    /// The quarantine, if any.
    pub(crate) quarantine: Option<&'w mut Quarantine>,
}

impl FileSink<'_> {
    /// Quarantines `item`, if there is a quarantine.
    fn quarantine(quarantine: &mut Option<&mut Quarantine>, item: &Item<'_>) -> Result<()> {
        match quarantine.as_deref_mut() {
            Some(q) => q.add(item),
            None => Ok(()),
        }
    }

    /// The file could not be opened.
    pub(crate) fn open_error(&mut self, e: &Error) -> Result<()> {
        self.fs.error = Some(e.to_string());
        log_loss(self.log, &file_error(&self.name, 0, &e.to_string()));
        let item = Item {
            offset: 0,
            record_id: None,
            reason: "file_error",
            data: None,
            truncated: false,
            indexed: false,
            detail: self.fs.error.as_deref(),
        };
        Self::quarantine(&mut self.quarantine, &item)
    }

    /// Reading stopped part way with `e`.
    pub(crate) fn stream_error(&mut self, e: &Error) -> Result<()> {
        self.fs.error = Some(e.to_string());
        let (reason, offset) = match e {
            Error::Crawl(CrawlError::GzipBomb {
                decompressed_offset,
                ..
            }) => {
                self.fs.cap(Cap::DecompressionRatio);
                log_loss(
                    self.log,
                    &LossLine::cap(
                        &self.name,
                        *decompressed_offset,
                        None,
                        Cap::DecompressionRatio,
                        false,
                    ),
                );
                ("cap:decompression_ratio", *decompressed_offset)
            }
            Error::Crawl(
                CrawlError::TruncatedGzip {
                    decompressed_offset,
                    ..
                }
                | CrawlError::Gzip {
                    decompressed_offset,
                    ..
                },
            ) => ("file_error", *decompressed_offset),
            Error::Crawl(CrawlError::ReadAt { offset, .. }) => ("file_error", *offset),
            _ => ("file_error", 0),
        };
        if reason == "file_error" {
            log_loss(self.log, &file_error(&self.name, offset, &e.to_string()));
        }
        let item = Item {
            offset,
            record_id: None,
            reason,
            data: None,
            truncated: false,
            indexed: false,
            detail: self.fs.error.as_deref(),
        };
        Self::quarantine(&mut self.quarantine, &item)
    }

    /// A processed document; returns 1 if it was indexed.
    pub(crate) fn doc(&mut self, p: Processed, offset: u64, docid: &str) -> Result<u64> {
        let fs = &mut *self.fs;
        let name = self.name.as_str();
        fs.records += 1;
        fs.responses += 1;
        fs.html += 1;
        let is_doc = matches!(p.outcome, Outcome::Doc(..));
        for cap in p.caps.iter() {
            fs.cap(cap);
            log_loss(
                self.log,
                &LossLine::cap(name, offset, Some(docid), cap, is_doc),
            );
        }
        let mut indexed = 0;
        let reason = match p.outcome {
            Outcome::Lost(reason) => {
                fs.skip(reason);
                log_loss(self.log, &LossLine::new(name, offset, Some(docid), reason));
                reason.to_string()
            }
            Outcome::Doc(doc, facts) => {
                self.writer.add(doc)?;
                indexed = 1;
                count_doc(fs, &facts);
                let caps: Vec<&str> = p.caps.iter().map(Cap::key).collect();
                format!("cap:{}", caps.join(","))
            }
        };
        if let Some(body) = &p.body {
            let item = Item {
                offset,
                record_id: Some(docid),
                reason: &reason,
                data: Some((Content::Body, body)),
                truncated: p.body_truncated,
                indexed: is_doc,
                detail: None,
            };
            Self::quarantine(&mut self.quarantine, &item)?;
        }
        Ok(indexed)
    }

    /// A record the reader skipped.
    pub(crate) fn skip(&mut self, s: &Skip) -> Result<()> {
        self.fs.records += 1;
        let key = s.reason.key();
        if s.reason.is_response() {
            self.fs.responses += 1;
        }
        // What was wrong: the line's fault, or the docid rule broken
        // (`whitespace: U+00A0 at byte 2`).
        let detail = match &s.reason {
            SkipReason::MalformedLine(why) => Some(why.clone()),
            SkipReason::BadDocid(fault) => Some(fault.to_string()),
            _ => None,
        };
        log_loss(
            self.log,
            &LossLine {
                detail: detail.as_deref(),
                ..LossLine::new(&self.name, s.offset, s.record_id.as_deref(), &key)
            },
        );
        self.fs.skip(&key);
        let item = Item {
            offset: s.offset,
            record_id: s.record_id.as_deref(),
            reason: &key,
            data: s
                .raw
                .as_ref()
                .map(|r| (Content::Record, r.bytes.as_slice())),
            truncated: s.raw.as_ref().is_some_and(|r| r.truncated),
            indexed: false,
            detail: None,
        };
        Self::quarantine(&mut self.quarantine, &item)
    }

    /// A framing anomaly.
    pub(crate) fn anomaly(&mut self, a: &Anomaly) -> Result<()> {
        let key = a.kind.key();
        *self.fs.anomalies.entry(key.to_string()).or_default() += 1;
        self.fs.anomaly_bytes += a.bytes;
        let gz = a.gzip.as_ref();
        log_loss(
            self.log,
            &LossLine {
                bytes: Some(a.bytes),
                compressed_offset: gz.map(|g| g.compressed_offset),
                detail: gz.map(|g| g.reason.as_str()),
                ..LossLine::new(&self.name, a.offset, a.record_id.as_deref(), key)
            },
        );
        self.fs.gzip_members.extend(gz.cloned());
        let Some(raw) = &a.raw else {
            return Ok(());
        };
        let content = match a.kind {
            AnomalyKind::Resync => Content::Garbage,
            AnomalyKind::GzipMember => Content::Gzip,
            _ => Content::Record,
        };
        let detail = gz.map(|g| {
            format!(
                "damaged gzip member at compressed offset {}, {} compressed bytes skipped: {}",
                g.compressed_offset, g.compressed_bytes, g.reason
            )
        });
        let item = Item {
            offset: a.offset,
            record_id: a.record_id.as_deref(),
            reason: key,
            data: Some((content, &raw.bytes)),
            truncated: raw.truncated,
            indexed: false,
            detail: detail.as_deref(),
        };
        Self::quarantine(&mut self.quarantine, &item)
    }
}

fn count_doc(fs: &mut FileStats, f: &DocFacts) {
    fs.indexed += 1;
    fs.utf8_errors += f.counts;
    for class in ErrorClass::ALL {
        if f.counts.get(class) > 0 {
            *fs.utf8_docs.get_mut(class) += 1;
        }
    }
    fs.atire_extra += f.atire_extra;
    *fs.charset_sources.entry(f.source.to_string()).or_default() += 1;
    *fs.encodings.entry(f.encoding.to_string()).or_default() += 1;
    fs.charset_disagree += u64::from(f.disagree);
    fs.truncated += u64::from(f.truncated);
    fs.html_capped += u64::from(f.html_capped);
    fs.spam_scored += u64::from(f.spam.is_some());
}
