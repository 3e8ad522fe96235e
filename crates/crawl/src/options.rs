//! What a reader is asked to do: [`CrawlOptions`], the per-record caps and
//! what is kept beside the documents.

use sieve_types::{DEFAULT_DOCID_HEADERS, JsonFields, TsvColumn};

use crate::http::MAX_HEAD_BYTES;

/// Options for reading crawls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlOptions {
    /// Largest entity body kept per record, in bytes (default 10 MiB, ClueWeb's
    /// cap). Longer bodies are truncated to this length and flagged
    /// [`RawDoc::truncated`](crate::RawDoc::truncated); the rest of the record
    /// is skipped by streaming.
    pub max_record_bytes: u64,
    /// Largest allowed ratio decompressed / compressed bytes of a gzip input
    /// (default 200), checked once more than `bomb_min_output` bytes have
    /// been decompressed. Exceeding it stops the file with
    /// [`Error::GzipBomb`](crate::Error::GzipBomb).
    pub max_decompression_ratio: u64,
    /// Decompressed bytes before the ratio check applies (default 64 MiB).
    pub bomb_min_output: u64,
    /// Keep the bytes of records that are not indexed, and of bytes skipped to
    /// resynchronise, in [`Skip::raw`](crate::Skip::raw) and
    /// [`Anomaly::raw`](crate::Anomaly::raw) (at most [`MAX_HEAD_BYTES`] plus
    /// `max_record_bytes` each; the rest is still streamed, never buffered).
    /// Off by default: it is only needed to quarantine what was not indexed,
    /// and costs up to that much memory per skipped record in flight.
    pub keep_skipped: bool,
    /// Which WARC header is the docid: `None` for the default chain
    /// [`DEFAULT_DOCID_HEADERS`] (the first present wins), or one header name
    /// (ASCII case-insensitive; a record without it is skipped as
    /// [`SkipReason::NoDocid`](crate::SkipReason::NoDocid)). TREC, SMART, JSON
    /// and TSV documents have their own ids and ignore it.
    pub docid_header: Option<String>,
    /// Which JSON keys hold the id, title, text, URL and language of a JSON
    /// line (see [`JsonFields`]).
    pub json_fields: JsonFields,
    /// What the tab-separated columns of a TSV line are (default `id`,
    /// `text`; the last column takes the rest of the line).
    pub tsv_columns: Vec<TsvColumn>,
    /// Keep the WARC and HTTP heads of every document in
    /// [`RawDoc::heads`](crate::RawDoc::heads) (`extract --full`). Off by
    /// default.
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
