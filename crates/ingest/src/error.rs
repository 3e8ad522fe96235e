//! The one error type of `sieve-ingest`.

use std::path::PathBuf;

/// What a filter rule needs and was not given (see [`Error::RuleNeeds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleInput {
    /// Per-document error counts (an index), for error-rate thresholds.
    Counts,
    /// Spam percentiles (a spam ranking or a spam column).
    Spam,
    /// Near-duplicate clusters (an index).
    NearDuplicates,
}

impl std::fmt::Display for RuleInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RuleInput::Counts => "per-document error counts (an index) for error-rate thresholds",
            RuleInput::Spam => "spam percentiles (a spam ranking or a spam column)",
            RuleInput::NearDuplicates => "near-duplicate clusters (an index)",
        })
    }
}

/// Everything that can go wrong while building an index or extracting a
/// corpus. Variants carry the evidence: the path, the byte offset, what
/// was expected and what was found. Errors of the crawl readers and of the
/// index's files keep their own types ([`Error::Crawl`], [`Error::Format`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error reading a crawl file.
    #[error(transparent)]
    Crawl(#[from] sieve_crawl::Error),
    /// An error reading or writing a file of the index.
    #[error(transparent)]
    Format(#[from] sieve_format::Error),
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
    /// A resume names another quarantine directory than the interrupted
    /// build had.
    #[error(
        "{path}: cannot resume with a different quarantine directory: the interrupted build had {had}, this run has {has}"
    )]
    ResumeQuarantine {
        /// The index directory.
        path: PathBuf,
        /// The interrupted build's quarantine (`none` for none).
        had: String,
        /// This run's quarantine (`none` for none).
        has: String,
    },
    /// A worker-thread count below 1.
    #[error("the number of threads must be at least 1, got {got}")]
    Threads {
        /// The count given.
        got: usize,
    },
    /// A docid given two different percentiles in the spam rankings.
    #[error(
        "{path}: line {line}: docid {docid:?} has spam percentile {second}, but line {first_line} \
         of {first_path} gave it {first}: a docid must have one percentile",
        path = path.display(),
        first_path = first_path.display()
    )]
    SpamDuplicate {
        /// The docid.
        docid: String,
        /// The file of its first line.
        first_path: PathBuf,
        /// Its first line there (from 1).
        first_line: u64,
        /// The percentile given there.
        first: u8,
        /// The file of the line that gives another percentile.
        path: PathBuf,
        /// That line (from 1).
        line: u64,
        /// The percentile given there.
        second: u8,
    },
    /// Writing or reading a Parquet file failed (an extract's output).
    #[error("{path}: parquet: {source}")]
    Parquet {
        /// The Parquet file.
        path: PathBuf,
        /// What the parquet crate reported.
        source: parquet::errors::ParquetError,
    },
    /// A filter rule needs an input that was not given: per-document
    /// counts (an index or stats file) for error-rate thresholds, or spam
    /// percentiles for a spam threshold.
    #[error("{path}: the rule needs {needs}")]
    RuleNeeds {
        /// The filter being built, or the stats file read.
        path: PathBuf,
        /// What is missing.
        needs: RuleInput,
    },
    /// An index already exists where a new build was asked for (and the
    /// build was not told to resume it).
    #[error("{path}: an index already exists here; resume it, or choose a new directory")]
    IndexExists {
        /// The index directory.
        path: PathBuf,
    },
    /// An extract's Parquet file that is not of this layout version, or
    /// whose checksum does not match (see [`crate::parquetfile::check`]).
    #[error("{path}: extract Parquet file: {what}: expected {expected}, found {found}")]
    ParquetFile {
        /// The Parquet file.
        path: PathBuf,
        /// What was checked (the version, the checksum).
        what: &'static str,
        /// What the layout requires.
        expected: String,
        /// What the file holds.
        found: String,
    },
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        Error::Format(sieve_format::Error::Tantivy(e))
    }
}

/// Maps an I/O error to [`Error::Io`] naming `path`.
pub fn io_err(path: &std::path::Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}
