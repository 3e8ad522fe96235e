//! One document as `sieve-index extract` writes it ([`crate::extract`]):
//! what goes into a record ([`RecordSpec`], [`Format`]), and the record a
//! worker makes of a document ([`Record`]: its JSON line, or its Parquet
//! row), with the paragraph hashes of template removal.

use std::borrow::Cow;

use serde::Serialize;
use sieve_crawl::Heads;
use sieve_filters::utf8::Utf8Counts;
use sieve_format::document::IndexDoc;

use crate::parquetfile::Row;

/// The format of `extract`'s output files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    /// Gzipped JSON lines (`.jsonl.gz`).
    #[default]
    Jsonl,
    /// Parquet (`.parquet`, see [`crate::parquetfile`]).
    Parquet,
}

impl Format {
    /// Its name in the manifest (and on the command line).
    pub fn key(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Parquet => "parquet",
        }
    }

    /// The extension of its output files.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl.gz",
            Format::Parquet => "parquet",
        }
    }
}

/// What `extract` writes per document besides the text.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordSpec {
    /// The output format.
    pub format: Format,
    /// Add the WARC and HTTP heads and the decoded HTML.
    pub full: bool,
    /// Template removal: drop every paragraph found in more than this many
    /// documents of the same input file (then every document left without
    /// text, skip reason `template_only`).
    pub max_paragraph_docs: Option<u32>,
}

/// One document as `extract` writes it: its JSON line, made by a worker.
pub(crate) struct Record {
    /// The docid.
    pub(crate) docid: String,
    /// The record's offset in its (decompressed) input.
    pub(crate) offset: u64,
    /// Its band keys.
    pub(crate) keys: Vec<u64>,
    /// The JSON line, without its newline (empty when `row` is given).
    pub(crate) line: Vec<u8>,
    /// The record itself, for a Parquet output written directly (without
    /// template removal, which goes through JSON lines first).
    pub(crate) row: Option<Box<JsonOwned>>,
    /// The distinct hashes of its paragraphs (template removal only).
    pub(crate) paragraphs: Vec<u64>,
}

/// A paragraph's hash for template removal: FNV-1a of its bytes, mixed.
pub(crate) fn paragraph_hash(p: &str) -> u64 {
    sieve_filters::minhash::cluster_id(p)
}

#[derive(Serialize)]
struct Json<'a> {
    docid: &'a str,
    url: Option<&'a str>,
    source: &'a str,
    offset: u64,
    charset: &'a str,
    charset_source: &'a str,
    errors: Utf8Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    spam: Option<u8>,
    title: &'a str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    warc_headers: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    http_headers: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<&'a str>,
}

/// [`Json`] owned: read back (template removal rewrites the file), or
/// made for a Parquet output.
#[derive(Serialize, serde::Deserialize)]
pub(crate) struct JsonOwned {
    pub(crate) docid: String,
    pub(crate) url: Option<String>,
    pub(crate) source: String,
    pub(crate) offset: u64,
    pub(crate) charset: String,
    pub(crate) charset_source: String,
    pub(crate) errors: Utf8Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) spam: Option<u8>,
    pub(crate) title: String,
    pub(crate) text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) warc_headers: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) http_headers: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) html: Option<String>,
}

impl JsonOwned {
    /// Its Parquet row.
    pub(crate) fn as_row(&self) -> Row<'_> {
        Row {
            docid: &self.docid,
            url: self.url.as_deref(),
            source: &self.source,
            offset: self.offset,
            charset: &self.charset,
            charset_source: &self.charset_source,
            errors: self.errors,
            spam: self.spam,
            title: &self.title,
            text: &self.text,
            warc_headers: self.warc_headers.as_deref(),
            http_headers: self.http_headers.as_deref(),
            html: self.html.as_deref(),
        }
    }
}

impl Record {
    /// The record of `doc` (`charset_source`: the deciding source's key).
    pub(crate) fn new(
        mut doc: IndexDoc,
        charset_source: &str,
        spec: &RecordSpec,
        heads: Option<Box<Heads>>,
        html: Option<String>,
    ) -> Record {
        let full = spec.full;
        let text = sieve_text::html::clean_paragraphs(&doc.body);
        let mut paragraphs = Vec::new();
        if spec.max_paragraph_docs.is_some() {
            paragraphs.extend(sieve_text::html::paragraphs(&text).map(paragraph_hash));
            paragraphs.sort_unstable();
            paragraphs.dedup();
        }
        let keys = std::mem::take(&mut doc.minhash);
        let offset = doc.offset;
        if spec.format == Format::Parquet && spec.max_paragraph_docs.is_none() {
            let heads = heads.filter(|_| full);
            let row = JsonOwned {
                docid: doc.docid.clone(),
                url: doc.url,
                source: doc.source,
                offset: doc.offset,
                charset: doc.charset,
                charset_source: charset_source.to_string(),
                errors: doc.counts,
                spam: doc.spam,
                title: doc.title,
                text,
                warc_headers: heads
                    .as_ref()
                    .map(|h| String::from_utf8_lossy(&h.warc).into_owned()),
                http_headers: heads
                    .as_ref()
                    .map(|h| String::from_utf8_lossy(&h.http).into_owned()),
                html: html.filter(|_| full),
            };
            return Record {
                keys,
                offset,
                docid: doc.docid,
                line: Vec::new(),
                row: Some(Box::new(row)),
                paragraphs,
            };
        }
        let json = Json {
            docid: &doc.docid,
            url: doc.url.as_deref(),
            source: &doc.source,
            offset: doc.offset,
            charset: &doc.charset,
            charset_source,
            errors: doc.counts,
            spam: doc.spam,
            title: &doc.title,
            text: &text,
            warc_headers: heads
                .as_ref()
                .filter(|_| full)
                .map(|h| String::from_utf8_lossy(&h.warc)),
            http_headers: heads
                .as_ref()
                .filter(|_| full)
                .map(|h| String::from_utf8_lossy(&h.http)),
            html: html.as_deref().filter(|_| full),
        };
        let line = serde_json::to_vec(&json).unwrap_or_default();
        Record {
            keys,
            offset,
            docid: doc.docid,
            line,
            row: None,
            paragraphs,
        }
    }
}
