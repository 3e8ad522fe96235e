//! The statistics of a build (`stats.json`): per input file and in total.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sieve_filters::utf8::Utf8Counts;
use sieve_types::GzipSpan;
use sieve_types::SkippedInput;

/// The caps a document or file can hit (the build options name them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// `max_record_bytes`.
    RecordBytes,
    /// `max_decompression_ratio` (a gzip bomb; file level).
    DecompressionRatio,
    /// `max_html_depth`.
    HtmlDepth,
    /// `max_text_bytes`.
    TextBytes,
    /// `max_doc_time`.
    TimeBudget,
}

impl Cap {
    /// Every cap.
    pub const ALL: [Cap; 5] = [
        Cap::RecordBytes,
        Cap::DecompressionRatio,
        Cap::HtmlDepth,
        Cap::TextBytes,
        Cap::TimeBudget,
    ];

    /// Key in [`FileStats::caps`] and `losses.jsonl`.
    pub fn key(self) -> &'static str {
        match self {
            Cap::RecordBytes => "record_bytes",
            Cap::DecompressionRatio => "decompression_ratio",
            Cap::HtmlDepth => "html_depth",
            Cap::TextBytes => "text_bytes",
            Cap::TimeBudget => "time_budget",
        }
    }

    /// The cap's bit in a set of caps.
    pub fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// Statistics of one input file (all counts are records or documents).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileStats {
    /// The file, as given.
    pub path: String,
    /// Records read (WARC records of any type, or TREC or SMART documents).
    pub records: u64,
    /// Records that are HTTP responses (TREC and SMART documents count as responses).
    pub responses: u64,
    /// Responses kept as HTML (TREC and SMART documents: all non-empty ones;
    /// SMART text is read as plain text, not HTML).
    pub html: u64,
    /// Documents indexed.
    pub indexed: u64,
    /// Records not indexed, by reason (`not_response:request`, `not_html`,
    /// `http_status:4xx`, `empty_body`, `filtered`, `empty_text`, ...).
    pub skipped: BTreeMap<String, u64>,
    /// Framing anomalies by kind.
    pub anomalies: BTreeMap<String, u64>,
    /// Bytes affected by anomalies.
    pub anomaly_bytes: u64,
    /// Documents truncated at the per-record cap.
    pub truncated: u64,
    /// Documents whose HTML nesting or text hit a cap.
    pub html_capped: u64,
    /// Cap hits by [`Cap::key`] (documents, or for `decompression_ratio`
    /// files); each hit is in `losses.jsonl` with its offset.
    #[serde(default)]
    pub caps: BTreeMap<String, u64>,
    /// Items written to the quarantine (0 without `--quarantine`).
    #[serde(default)]
    pub quarantined: u64,
    /// Total occurrences of each UTF-8 error class over indexed documents.
    pub utf8_errors: Utf8Counts,
    /// Indexed documents containing each class at least once.
    pub utf8_docs: Utf8Counts,
    /// Extra unexpected-continuation counts under ATIRE counting.
    pub atire_extra: u64,
    /// Indexed documents by the source that decided their charset.
    pub charset_sources: BTreeMap<String, u64>,
    /// Indexed documents whose declared charsets disagreed.
    pub charset_disagree: u64,
    /// Indexed documents by encoding name.
    pub encodings: BTreeMap<String, u64>,
    /// Indexed documents with a spam score.
    pub spam_scored: u64,
    /// Damaged gzip members skipped (compressed spans), also counted in
    /// `anomalies` as `gzip_member`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gzip_members: Vec<GzipSpan>,
    /// `extract` with template removal: paragraphs dropped because they
    /// occur in more documents of the file than allowed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub template_paragraphs: u64,
    /// `extract`: documents written whose docid an earlier document
    /// written already had (each in `losses.jsonl` as `duplicate_docid`;
    /// they stay in the output, see [`crate::unique`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub duplicate_docids: u64,
    /// Set if the file could not be read to its end: what went wrong.
    pub error: Option<String>,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

impl FileStats {
    /// The line naming this file's failure, if it was not read to its end:
    /// the error, which names the file once (the path is added only to an
    /// error that does not already begin with it).
    pub fn failure(&self) -> Option<String> {
        let e = self.error.as_ref()?;
        Some(if e.starts_with(&self.path) {
            e.clone()
        } else {
            format!("{}: {e}", self.path)
        })
    }

    /// Adds `other`'s counts into `self` (not `path` or `error`).
    pub fn add(&mut self, o: &FileStats) {
        self.records += o.records;
        self.responses += o.responses;
        self.html += o.html;
        self.indexed += o.indexed;
        for (k, v) in &o.skipped {
            *self.skipped.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.anomalies {
            *self.anomalies.entry(k.clone()).or_default() += v;
        }
        self.anomaly_bytes += o.anomaly_bytes;
        self.truncated += o.truncated;
        self.html_capped += o.html_capped;
        for (k, v) in &o.caps {
            *self.caps.entry(k.clone()).or_default() += v;
        }
        self.quarantined += o.quarantined;
        self.utf8_errors += o.utf8_errors;
        self.utf8_docs += o.utf8_docs;
        self.atire_extra += o.atire_extra;
        for (k, v) in &o.charset_sources {
            *self.charset_sources.entry(k.clone()).or_default() += v;
        }
        self.charset_disagree += o.charset_disagree;
        for (k, v) in &o.encodings {
            *self.encodings.entry(k.clone()).or_default() += v;
        }
        self.spam_scored += o.spam_scored;
        self.template_paragraphs += o.template_paragraphs;
        self.duplicate_docids += o.duplicate_docids;
    }

    /// Counts one record not indexed for `reason`.
    pub fn skip(&mut self, reason: &str) {
        *self.skipped.entry(reason.to_string()).or_default() += 1;
    }

    /// Counts one hit of `cap`.
    pub fn cap(&mut self, cap: Cap) {
        *self.caps.entry(cap.key().to_string()).or_default() += 1;
    }
}

/// What clustering found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterSummary {
    /// Documents given with at least one band key.
    pub documents: u64,
    /// Documents in clusters of two or more.
    pub clustered: u64,
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Near-duplicates: clustered documents that are not their cluster's
    /// representative (`clustered - clusters`).
    pub duplicates: u64,
    /// Label-propagation rounds (0: the documents were few enough to be
    /// clustered in memory).
    pub rounds: u32,
    /// Documents whose docid holds a control character (never clustered).
    pub unclusterable: u64,
}

/// Name of the statistics file ([`BuildStats`]) in the index directory.
pub const STATS: &str = "stats.json";

/// The contents of `stats.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildStats {
    /// Sums over all files.
    pub totals: FileStats,
    /// Per file, in processing order.
    pub files: Vec<FileStats>,
    /// Files that could not be read to their end (named with the reason).
    pub failed_files: Vec<String>,
    /// Input entries not read (symlink loops, duplicates, FIFOs, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_inputs: Vec<SkippedInput>,
    /// Spam coverage, when spam scores were given: scores with no indexed
    /// document (`spam_docids - totals.spam_scored`, docids being unique).
    pub spam_without_doc: Option<u64>,
    /// Near-duplicate clusters found over the whole index (`None` for an
    /// index written before they existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near_duplicates: Option<ClusterSummary>,
    /// Whether every later copy of a docid was removed from the index
    /// ([`crate::unique`]); false in an index written before that rule.
    #[serde(default)]
    pub unique_docids: bool,
    /// Wall-clock seconds of this run (not deterministic; everything else is).
    pub seconds: f64,
}
