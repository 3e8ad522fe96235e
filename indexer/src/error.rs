//! The one error type of `sieve-indexer`.

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

/// Everything that can go wrong while reading crawls or building an index.
/// Variants carry the evidence: the path, the byte offset, what was expected
/// and what was found.
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
    /// An index already exists where a new build was asked for (and the
    /// build was not told to resume it).
    #[error("{path}: an index already exists here; resume it, or choose a new directory")]
    IndexExists {
        /// The index directory.
        path: PathBuf,
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
    /// A worker-thread count below 1.
    #[error("the number of threads must be at least 1, got {got}")]
    Threads {
        /// The count given.
        got: usize,
    },
    /// An error from tantivy.
    #[error("tantivy: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// A read error on a crawl file at a known decompressed byte offset.
    #[error("{path}: read error at byte {offset}: {source}")]
    ReadAt {
        /// The crawl file.
        path: PathBuf,
        /// Byte offset (in the decompressed stream) where the read failed.
        offset: u64,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A gzip stream ended in the middle of a member, and no intact member
    /// follows (a damaged member with a later intact one is skipped and
    /// counted instead: see [`crate::crawl::AnomalyKind::GzipMember`]).
    #[error(
        "{path}: unexpected end of gzip stream at compressed offset {compressed_offset}, \
         decompressed offset {decompressed_offset}, in the gzip member starting at \
         compressed offset {member_offset}; {detail}"
    )]
    TruncatedGzip {
        /// The crawl file.
        path: PathBuf,
        /// Compressed offset where decoding stopped.
        compressed_offset: u64,
        /// Decompressed bytes produced before the stream ended.
        decompressed_offset: u64,
        /// Compressed offset of the start of the damaged member.
        member_offset: u64,
        /// What cannot be recovered (e.g. "one-stream gzip ...").
        detail: String,
    },
    /// A gzip stream is corrupt (bad header, bad CRC, bad deflate data), and
    /// no intact member follows the damaged one.
    #[error(
        "{path}: corrupt gzip stream at compressed offset {compressed_offset}, \
         decompressed offset {decompressed_offset}, in the gzip member starting at \
         compressed offset {member_offset}: {source}; {detail}"
    )]
    Gzip {
        /// The crawl file.
        path: PathBuf,
        /// Compressed offset where decoding stopped.
        compressed_offset: u64,
        /// Decompressed bytes produced before the error.
        decompressed_offset: u64,
        /// Compressed offset of the start of the damaged member.
        member_offset: u64,
        /// What cannot be recovered (e.g. "one-stream gzip ...").
        detail: String,
        /// The decoder's error.
        source: std::io::Error,
    },
    /// A gzip stream decompresses to far more than its compressed size (a "zip bomb").
    #[error(
        "{path}: gzip bomb: {decompressed_offset} bytes out of {compressed_offset} compressed \
         exceeds ratio {max_ratio}"
    )]
    GzipBomb {
        /// The crawl file.
        path: PathBuf,
        /// Compressed bytes consumed so far.
        compressed_offset: u64,
        /// Decompressed bytes produced so far.
        decompressed_offset: u64,
        /// The configured maximum ratio (decompressed / compressed).
        max_ratio: u64,
    },
    /// A crawl file is neither WARC, TREC SGML, SMART, JSON lines nor TSV.
    #[error(
        "{path}: unknown crawl format: expected a line starting \"WARC/\", \"<DOC>\", \".I <id>\" or \"{{\", or an id and a tab, got {got:?}"
    )]
    UnknownCrawlFormat {
        /// The crawl file.
        path: PathBuf,
        /// The first bytes of the (decompressed) file, lossily decoded.
        got: String,
    },
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
    /// A near-duplicate file (a per-segment cluster column, an extract's
    /// band keys or its duplicates list, see [`crate::dedup`]) that does
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
    /// Writing or reading a Parquet file failed (an extract's output).
    #[error("{path}: parquet: {source}")]
    Parquet {
        /// The Parquet file.
        path: PathBuf,
        /// What the parquet crate reported.
        source: parquet::errors::ParquetError,
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
    /// A command-line word with one dash and several letters that is
    /// neither a known spelling (see [`crate::argv`]) nor a cluster of the
    /// command's one-letter options: one dash is for one-letter options.
    #[error("`{arg}` is not an option: long options take two dashes (did you mean `-{arg}`?)")]
    SingleDashLong {
        /// The word as given.
        arg: String,
    },
}
