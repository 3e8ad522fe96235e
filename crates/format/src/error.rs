//! The one error type of `sieve-format`.

use std::path::PathBuf;

/// Everything that can go wrong while reading or writing the files of an
/// index. Variants carry the evidence: the path, the byte offset, what was
/// expected and what was found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A block-max bounds file (see [`crate::bounds`]) that does not
    /// belong to its segment or cannot be read.
    #[error("{path}: block-max bounds: {what}: expected {expected}, found {found}")]
    Bounds {
        /// The bounds file.
        path: PathBuf,
        /// What was checked (the segment id, a count, a part of the file).
        what: &'static str,
        /// What the segment (or the format) requires.
        expected: String,
        /// What the file holds.
        found: String,
    },
    /// A block-max bounds file whose seal does not verify (damaged,
    /// truncated, of another kind or version).
    #[error("{path}: block-max bounds: {source}")]
    BoundsSeal {
        /// The bounds file.
        path: PathBuf,
        /// What the seal check found.
        source: sieve_filters::Error,
    },
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file being read or written.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An output that is the same file as one of the command's inputs
    /// (same device and inode, through any path); refused before anything
    /// was opened for writing, so the input is unchanged.
    #[error("{output}: the output is the input {input} (the same file); nothing was written")]
    SameFile {
        /// The output path given.
        output: PathBuf,
        /// The input path it is the same file as.
        input: PathBuf,
    },
    /// A named input (file, directory, pattern) that cannot be used.
    #[error("{path}: {detail}")]
    Input {
        /// The input.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// A path given as an index is not one: missing, a file, or a directory
    /// without `sieve.json` (`why` says which).
    #[error("{path} is not a sieve index ({why})")]
    NotAnIndex {
        /// The path given as an index.
        path: PathBuf,
        /// What was found: `no such directory`, `a file, not a directory`,
        /// `no sieve.json`.
        why: &'static str,
    },
    /// An index whose build did not finish (killed, failed, or being
    /// resumed; see [`crate::manifest::BuildState`]), refused by a reader:
    /// it holds only the documents committed so far.
    #[error(
        "{}: unfinished index: its build did not finish{}; finish it with `sieve-index build --resume --index {}` (same inputs and options){}",
        .path.display(),
        .committed.map(|n| format!(" ({n} documents committed)")).unwrap_or_default(),
        .path.display(),
        if *.flag { ", or pass --allow-unfinished (Python: allow_unfinished=True) to read what is committed" } else { "" }
    )]
    Unfinished {
        /// The index directory.
        path: PathBuf,
        /// The documents committed so far, when they could be counted.
        committed: Option<u64>,
        /// Whether the reader offers `--allow-unfinished` as a way out.
        flag: bool,
    },
    /// An index does not have the schema this version of sieve expects.
    #[error("index schema: expected {expected}: {detail}")]
    Schema {
        /// What was expected (a field name, a schema version).
        expected: &'static str,
        /// What was found instead.
        detail: String,
    },
    /// Another process holds the lock of an output directory (see
    /// [`crate::lock`]); nothing was written.
    #[error("{path}: in use by another build ({holder}); nothing was changed")]
    Locked {
        /// The locked directory.
        path: PathBuf,
        /// The holder line of its lock file (`pid=... host=... started=...`).
        holder: String,
    },
    /// A non-empty output directory that sieve did not create (an index
    /// directory without a valid `sieve.json`, a quarantine directory
    /// without `quarantine.jsonl`), or a file sieve would write that is
    /// already there; nothing was written.
    #[error("{path}: not a directory of sieve's, it already holds {}; choose a new or empty directory", .found.join(", "))]
    Foreign {
        /// The directory (or the file) refused.
        path: PathBuf,
        /// The names found in it.
        found: Vec<String>,
    },
    /// An error from tantivy.
    #[error("tantivy: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// An index that holds a docid twice (built before later copies were
    /// removed, see [`crate::unique`]): searching it would list the docid
    /// twice in a topic.
    #[error(
        "{index}: holds docid {docid:?} twice ({kept_file} at offset {kept_offset}, and \
         {file} at offset {offset}): it was built before sieve removed duplicate docids; \
         rebuild it (a new build keeps the first copy and logs the others as losses)"
    )]
    DuplicateDocid {
        /// The index directory.
        index: PathBuf,
        /// The docid.
        docid: String,
        /// The input file of the first copy.
        kept_file: String,
        /// Its offset.
        kept_offset: u64,
        /// The input file of the later copy.
        file: String,
        /// Its offset.
        offset: u64,
    },
    /// A near-duplicate file (a per-segment cluster column, an extract's
    /// band keys or its duplicates list, see [`crate::dups`]) that does
    /// not belong where it is, is damaged or cannot be read.
    #[error("{path}: near-duplicates: {what}: expected {expected}, found {found}")]
    NearDuplicates {
        /// The file.
        path: PathBuf,
        /// What was checked (the header, a count, a line).
        what: &'static str,
        /// What the format or the segment requires.
        expected: String,
        /// What the file holds.
        found: String,
    },
}
