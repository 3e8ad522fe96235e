//! The one error type of `sieve-text`.

use std::path::PathBuf;

/// What can go wrong in `sieve-text`: decoding and HTML extraction never
/// fail (they count what they repair); only streaming a file through the
/// UTF-8 cleaner reads and writes files.
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
