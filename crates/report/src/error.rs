//! The one error type of `sieve-report`.

use std::path::PathBuf;

/// Everything that can go wrong while writing a report or showing a
/// document back out of an index. Variants carry the evidence.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error reading a crawl file.
    #[error(transparent)]
    Crawl(#[from] sieve_crawl::Error),
    /// An error reading a file of the index.
    #[error(transparent)]
    Format(#[from] sieve_format::Error),
    /// An error of the searcher (documents looked up in an index).
    #[error(transparent)]
    Searcher(#[from] sieve_searcher::Error),
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file being read or written.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A named input (file, directory, pattern) that cannot be used.
    #[error("{path}: {detail}")]
    Input {
        /// The input.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// A docid that is not in the index.
    #[error("{index}: no document with docid {docid:?}")]
    NoSuchDocid {
        /// The index directory.
        index: PathBuf,
        /// The docid looked up.
        docid: String,
    },
    /// The input file a document was read from is no longer where the
    /// build read it: moved or deleted.
    #[error(
        "document {docid}: its source file {path} is gone (looked for {}): moved or deleted since the build",
        .tried.join(", ")
    )]
    SourceMissing {
        /// The document.
        docid: String,
        /// The input as the build named it.
        path: String,
        /// The paths looked at.
        tried: Vec<String>,
    },
    /// The input file a document was read from has changed since the build
    /// (its size or modification time differs from the manifest's).
    #[error(
        "document {docid}: its source file {path} changed since the build: size {expected_size} \
         bytes and modification time {expected_mtime} then, {found_size} bytes and {found_mtime} now"
    )]
    SourceChanged {
        /// The document.
        docid: String,
        /// The file found.
        path: String,
        /// Size recorded in the manifest.
        expected_size: u64,
        /// Modification time recorded in the manifest (seconds since the epoch).
        expected_mtime: u64,
        /// Size now.
        found_size: u64,
        /// Modification time now.
        found_mtime: u64,
    },
    /// The bytes of a document's record are not those the build read: the
    /// source file was rewritten (its size and modification time may be
    /// the same).
    #[error(
        "document {docid}: the record at offset {offset} ({len} bytes) of {path} changed since \
         the build: CRC-32 {expected:08x} then, {found:08x} now",
        path = path.display()
    )]
    RecordChanged {
        /// The document.
        docid: String,
        /// The file read.
        path: PathBuf,
        /// Decompressed offset of the record.
        offset: u64,
        /// Length of the record.
        len: u64,
        /// The CRC-32 the build stored.
        expected: u32,
        /// The CRC-32 of the bytes read now.
        found: u32,
    },
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        Error::Format(sieve_format::Error::Tantivy(e))
    }
}
