//! The one error type of `sieve-filters`.

/// Everything that can go wrong in this crate. Each variant carries the
/// evidence needed to find the problem in the input: where (line or byte
/// offset), what was expected and what was found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A spam-ranking line that is not `PERCENTILE DOCID`.
    #[error("spam scores, line {line}: expected {expected}, got {got:?}")]
    SpamLine {
        /// 1-based line number.
        line: u64,
        /// What the line should look like.
        expected: &'static str,
        /// The line (at most 120 bytes, lossy UTF-8).
        got: String,
    },
    /// A per-document stats TSV line (or header) that does not parse.
    #[error("stats TSV, line {line}: expected {expected}, got {got:?}")]
    StatsLine {
        /// 1-based line number (1 = the header).
        line: u64,
        /// What the line or field should look like.
        expected: &'static str,
        /// The offending text (at most 120 bytes, lossy UTF-8).
        got: String,
    },
    /// A percentile outside 0–99.
    #[error("spam score for {docid}: expected a percentile 0-99, got {got}")]
    SpamValue {
        /// The docid.
        docid: String,
        /// The value.
        got: u8,
    },
    /// The same docid with two different percentiles.
    #[error("spam scores: docid {docid} has two percentiles, {first} and {second}")]
    SpamConflict {
        /// The docid.
        docid: String,
        /// The first percentile seen.
        first: u8,
        /// The second.
        second: u8,
    },
    /// Keys that must be sorted arrived out of order.
    #[error("keys out of order: {got:?} after {previous:?} (expected increasing byte order)")]
    Unsorted {
        /// The previous key.
        previous: String,
        /// The key that sorts before it.
        got: String,
    },
    /// A bad threshold value.
    #[error("threshold {name}: expected {expected}, got {got}")]
    Threshold {
        /// The threshold.
        name: String,
        /// What is allowed.
        expected: &'static str,
        /// The value given.
        got: String,
    },
    /// A filter file whose magic line or header is wrong.
    #[error("filter file header at byte offset {offset}: {detail}")]
    Header {
        /// Byte offset in the file.
        offset: u64,
        /// What was wrong.
        detail: String,
    },
    /// An FST could not be built or read.
    #[error("FST: {0}")]
    Fst(String),
}

impl Error {
    pub(crate) fn from_fst(e: fst::Error) -> Error {
        match e {
            fst::Error::Fst(fst::raw::Error::OutOfOrder { previous, got }) => Error::Unsorted {
                previous: String::from_utf8_lossy(&previous).into_owned(),
                got: String::from_utf8_lossy(&got).into_owned(),
            },
            fst::Error::Fst(fst::raw::Error::DuplicateKey { got }) => Error::Unsorted {
                previous: String::from_utf8_lossy(&got).into_owned(),
                got: String::from_utf8_lossy(&got).into_owned(),
            },
            other => Error::Fst(other.to_string()),
        }
    }
}
