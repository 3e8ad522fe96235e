//! The one error type of `sieve-indexer`.

use std::path::PathBuf;

/// Everything that can go wrong while reading crawls or building an index.
/// Variants carry the evidence: the path, the byte offset, what was expected
/// and what was found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
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
    /// An index does not have the schema this version of sieve expects.
    #[error("index schema: expected {expected}: {detail}")]
    Schema {
        /// What was expected (a field name, a schema version).
        expected: &'static str,
        /// What was found instead.
        detail: String,
    },
    /// An error from tantivy.
    #[error("tantivy: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
}
