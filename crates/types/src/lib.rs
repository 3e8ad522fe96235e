//! # sieve-types
//!
//! The vocabulary shared by the stages of sieve that must not depend on
//! one another: what the crawl readers produce and what an index's
//! manifest and statistics record about them. The crawl readers
//! (`sieve-crawl`) fill these values; the on-disk contract of an index
//! (`sieve-format`) stores them; the searcher reads an index without
//! compiling any crawl reader.
//!
//! ```
//! use sieve_types::{TsvColumn, DEFAULT_DOCID_HEADERS};
//! assert_eq!(TsvColumn::Ignore.name(), "-");
//! assert_eq!(DEFAULT_DOCID_HEADERS[0], "WARC-TREC-ID");
//! ```

/// The WARC headers tried for the docid, in order, when no header is
/// chosen: ClueWeb09/12's `WARC-TREC-ID`, ClueWeb22's `ClueWeb22-ID`, then
/// the `WARC-Record-ID` every WARC record has (angle brackets stripped).
pub const DEFAULT_DOCID_HEADERS: [&str; 3] = ["WARC-TREC-ID", "ClueWeb22-ID", "WARC-Record-ID"];

/// A gzip member's place in the compressed and decompressed streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemberPos {
    /// Compressed offset of the member's first byte (its `1f 8b`): for a
    /// ClueWeb22 `.warc.gz`, the value its `.warc.offset` file lists.
    pub compressed: u64,
    /// Decompressed offset where the member's output starts.
    pub decompressed: u64,
}

/// A damaged gzip member that was skipped ((an anomaly of kind `gzip_member`)).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GzipSpan {
    /// Compressed offset of the start of the damaged member.
    pub compressed_offset: u64,
    /// Compressed bytes skipped, up to the start of the next intact member.
    pub compressed_bytes: u64,
    /// What was wrong with it (e.g. `gzip member CRC mismatch`).
    pub reason: String,
}

/// Which JSON keys hold what (see the module docs for the defaults).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JsonFields {
    /// Keys of the docid.
    pub id: Vec<String>,
    /// Keys of the title.
    pub title: Vec<String>,
    /// Keys of the text (all that are present are joined).
    pub text: Vec<String>,
    /// Keys of the URL.
    pub url: Vec<String>,
    /// Keys of the language.
    pub language: Vec<String>,
}

impl Default for JsonFields {
    fn default() -> Self {
        let v = |keys: &[&str]| keys.iter().map(|k| (*k).to_string()).collect();
        JsonFields {
            id: v(&["id", "_id", "docid", "ClueWeb22-ID"]),
            title: v(&["title"]),
            text: v(&["contents", "text", "body", "Clean-Text"]),
            url: v(&["url", "URL"]),
            language: v(&["language", "Language"]),
        }
    }
}

/// What a column of a TSV line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TsvColumn {
    /// The docid.
    Id,
    /// The title.
    Title,
    /// Text (several are joined).
    Text,
    /// The URL.
    Url,
    /// The language.
    Language,
    /// Not read (`-`).
    #[serde(rename = "-")]
    Ignore,
}

impl TsvColumn {
    /// The name as written in a column list.
    pub fn name(self) -> &'static str {
        match self {
            TsvColumn::Id => "id",
            TsvColumn::Title => "title",
            TsvColumn::Text => "text",
            TsvColumn::Url => "url",
            TsvColumn::Language => "language",
            TsvColumn::Ignore => "-",
        }
    }
}

/// An input entry that is not read, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SkippedInput {
    /// The path, as reached.
    pub path: String,
    /// `symlink loop (back to <dir>)`, `duplicate of <path>`, `fifo`,
    /// `socket`, `block device`, `character device`, `broken symlink`,
    /// `still being written (name ends in .open)`, or `unreadable: <error>`.
    pub reason: String,
}
