//! # sieve-format
//!
//! The contract of a sieve index on disk: everything a reader of an index
//! (the searcher, the filter tools, the report) and its writer (the build
//! pipeline in `sieve-ingest`) must agree on, and nothing else. It compiles
//! no crawl reader, no HTML extractor and no Parquet.
//!
//! # Roles
//!
//! Files, from the bottom up (each module uses only those above it, besides
//! `error`):
//!
//! * [`outfile`]: files written at a temporary name and renamed into place
//!   (complete or absent), and the refusal of an output that is an input.
//! * [`jsonfile`]: sealed JSON files (`sieve.json`, `stats.json`).
//! * [`lock`]: the exclusive lock on an output directory.
//! * [`extsort`]: external sorting: one sorter ([`extsort::Runs`]) over
//!   lines and over fixed-size binary records.
//!
//! The index and what a build records of itself:
//!
//! * [`schema`]: the index fields and the analyser registration.
//! * [`document`]: one analysed document as tantivy stores it.
//! * [`stats`]: per-file and total build statistics (`stats.json`).
//! * [`manifest`]: the manifest (`sieve.json`): options, inputs, state.
//! * [`index`]: opening an index (finished or not), the docid column,
//!   docid listing, private directories and gzip files.
//!
//! What sits beside the segments, and the checks over all of it:
//!
//! * [`dups`]: the per-segment near-duplicate cluster column.
//! * [`unique`]: one document per docid, checked when an index is opened.
//! * [`bounds`]: the block-max bounds sidecar of each segment.
//! * [`filterfile`]: reading a docid filter file.
//! * [`verify`]: every file of an index checked against its checksum.
//!
//! A hidden `testing` module builds made-up indexes for the tests of this
//! crate and of those above it.
//!
//! Every fallible function returns [`Error`], whose variants carry the
//! evidence (path, byte offset, expected and found values).
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let e = sieve_format::index::open_index(dir.path()).unwrap_err();
//! assert!(e.to_string().contains("is not a sieve index"));
//! ```

pub mod bounds;
pub mod document;
pub mod docvector;
pub mod dups;
mod error;
pub mod extsort;
pub mod filterfile;
pub mod index;
pub mod jsonfile;
pub mod lock;
pub mod manifest;
pub mod outfile;
pub mod schema;
pub mod stats;
#[doc(hidden)]
pub mod testing;
pub mod unique;
pub mod verify;

pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
