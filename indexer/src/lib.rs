//! # sieve-indexer
//!
//! Reads web crawls and builds tantivy indexes.
//!
//! The modules, from the bottom up (each uses only modules above it in
//! this list, besides [`error`]):
//!
//! * [`svg`]: hand-written SVG shared by every figure (Okabe–Ito
//!   colours, dashes, markers, escaping, round ticks); it uses nothing
//!   else of the crate, so the searcher's sweep figure uses it too.
//! * [`outfile`]: output files written at a temporary name and renamed
//!   into place (complete or absent), and the refusal of an output that
//!   is one of the inputs; every file a user names goes through it.
//! * [`analysis`]: the English analyser (tokenizer, stopwords, Porter).
//! * [`schema`]: the one place that names index fields and registers the
//!   analyser; the searcher and the filter tools use it too.
//! * [`document`]: one analysed document as tantivy stores it.
//! * [`charset`]: charset detection (HTTP, BOM, meta, XML, detector) and
//!   decoding of HTTP bodies to UTF-8 text.
//! * [`html`]: HTML to text (title and visible body text).
//! * [`crawl`]: lenient WARC, TREC, SMART, JSON lines and TSV reading
//!   (records, skips, anomalies), and reading a record's bytes back.
//! * [`inputs`]: paths, directories and globs to the sorted input list.
//! * [`options`]: [`options::BuildOptions`], caps, the time-budget mode,
//!   the thread check and progress callbacks.
//! * [`lock`]: the exclusive lock on an output directory, creating only
//!   its last component, and listing what else it holds.
//! * [`jsonfile`]: sealed JSON files (`sieve.json`, `stats.json`).
//! * [`stats`]: per-file and total build statistics (`stats.json`).
//! * [`manifest`]: the manifest (`sieve.json`), the commit checkpoint and
//!   the resume checks.
//! * [`index`]: index access, below everything that opens an index: file
//!   names, [`index::open_index`], the docid column, docid listing, and
//!   the file helpers (private directories, atomic JSON, I/O errors).
//! * `extsort` (private): external sorting of docid lines.
//! * [`dedup`]: near-duplicate band keys, clustering by external sorts,
//!   and the per-segment cluster column.
//! * [`spamfile`]: Waterloo spam rankings to an in-memory FST map (and
//!   into [`options::BuildOptions`]).
//! * [`order`]: input-order segments: order-preserving merges and the
//!   final segment list of a build.
//! * [`filterbuild`]: building and loading docid filter files (and loading
//!   one into [`options::BuildOptions`]).
//! * [`quarantine`]: the bytes of everything not indexed.
//! * `losses`, `pipeline` and `readahead` (private): the losses log, the
//!   per-document work of a build and the writer's per-file sink, and the
//!   reader threads that read and process files ahead of the writer.
//! * [`parquetfile`]: one input's documents as a Parquet file (row groups
//!   of bounded size, a checksum in the footer).
//! * [`build`]: the build driver (open or resume, a commit per group of files).
//! * [`extract`]: the same pipeline writing a document corpus (JSON lines
//!   per input) instead of an index.
//! * [`shard`]: one shard of a distributed build, and merging shards.
//! * [`show`]: documents back out of an index: where each record is, what
//!   the index holds, its text extracted again, its original bytes.
//! * [`summary`]: the human summary of build statistics.
//! * [`report`]: the encoding-error report (tally, tests, tables, figure).
//! * [`scan`]: reading crawls without indexing.
//! * [`utf8stream`]: streaming bytes through the UTF-8 cleaner.
//! * [`verify`]: every file of an index checked against its checksum.
//! * [`exit`]: the one exit-status scheme of the three binaries, and the
//!   guard that turns a panic into an error line.
//! * [`testdata`]: where tests, benches and examples find the committed
//!   fixtures and the shared data directory.
//!
//! Every fallible function returns [`Error`], whose variants carry the
//! evidence (path, byte offset, expected and found values). No error
//! names a command-line flag: the binaries add those.

pub mod analysis;
pub mod argv;
pub mod bounds;
pub mod build;
pub mod charset;
pub mod crawl;
pub mod dedup;
pub mod document;
pub mod error;
pub mod exit;
pub mod extract;
mod extsort;
pub mod filterbuild;
pub mod html;
pub mod index;
pub mod inputs;
pub mod jsonfile;
pub mod lock;
mod losses;
pub mod manifest;
pub mod options;
pub mod order;
pub mod outfile;
pub mod parquetfile;
mod pipeline;
pub mod quarantine;
mod readahead;
pub mod report;
pub mod scan;
pub mod schema;
pub mod shard;
pub mod show;
pub mod spamfile;
pub mod stats;
pub mod summary;
pub mod svg;
pub mod testdata;
pub mod unique;
pub mod utf8stream;
pub mod verify;

pub use error::{Error, RuleInput};

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
