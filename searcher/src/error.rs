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
}
