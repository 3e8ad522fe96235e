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
    /// A sealed file ([`crate::sealed`]) of another kind or version, or
    /// damaged: truncated, extended, or with a byte changed.
    #[error("{part} at byte offset {offset}: expected {expected}, found {found}")]
    Sealed {
        /// What did not match: `magic line`, `seal line`, `payload length`,
        /// `CRC-32 ...`, `seal member`, `file length`.
        part: &'static str,
        /// Byte offset in the file where that part starts.
        offset: u64,
        /// What the seal (or the format) says.
        expected: String,
        /// What the file holds.
        found: String,
    },
    /// A filter over a universe that does not hold every document (spam
    /// rankings alone) asked to store the list that would contradict the
    /// rule for the documents outside it.
    #[error(
        "a filter built from {universe} alone must store the {required} list, not the {requested} list: the rule says {policy} unscored documents, and a document not in {universe} is unscored and unlisted"
    )]
    ListConflict {
        /// What the universe is.
        universe: &'static str,
        /// The list asked for: `keep` or `exclude`.
        requested: &'static str,
        /// The only list that honours the rule.
        required: &'static str,
        /// The rule for unscored documents: `keep` or `drop`.
        policy: &'static str,
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
