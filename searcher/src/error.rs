//! The one error type of `sieve-searcher`.

use std::path::PathBuf;

/// Everything that can go wrong while reading topics, qrels and runs, or
/// while searching. Variants carry the evidence.
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
    /// A parameter value outside its valid range.
    #[error("invalid {name}: expected {expected}, got {got}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// The valid range.
        expected: &'static str,
        /// The value given.
        got: String,
    },
    /// An index could not be read as a sieve index.
    #[error("index {index}: {detail}")]
    Index {
        /// The index (directory or shard name).
        index: String,
        /// What went wrong.
        detail: String,
    },
    /// An error from tantivy.
    #[error("tantivy: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// An error from the indexer library (schema, analyser).
    #[error(transparent)]
    Indexer(#[from] sieve_indexer::Error),
}
