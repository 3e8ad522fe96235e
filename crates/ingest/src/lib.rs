//! # sieve-ingest
//!
//! Crawl files in, a tantivy index (or a document corpus) out: the build
//! and extract pipelines, shards and their merge, one document per docid,
//! near-duplicate clustering, the quarantine of what is not indexed,
//! Parquet output, and the spam and filter files a build consults.
//!
//! The modules, from the bottom up (each uses only modules above it in
//! this list, besides [`error`]):
//!
//! * [`options`]: [`options::BuildOptions`], caps, the time-budget mode,
//!   the thread check and progress callbacks.
//! * [`manifest`]: the manifest of `sieve-format` and the record of a
//!   build's options in it.
//! * [`spamfile`]: Waterloo spam rankings to an in-memory FST map.
//! * [`filterbuild`]: building docid filter files (and loading one into
//!   [`options::BuildOptions`]).
//! * [`order`]: input-order segments: order-preserving merges and the
//!   final segment list of a build.
//! * [`quarantine`]: the bytes of everything not indexed.
//! * `losses`, `pipeline` and `readahead` (private): the losses log, the
//!   per-document work of a build and the writer's per-file sink, and the
//!   reader threads that read and process files ahead of the writer.
//! * [`dedup`]: near-duplicate band keys and clustering by external sorts
//!   (the column itself is `sieve_format::dups`).
//! * [`unique`]: later copies of a docid removed after a build or merge.
//! * [`parquetfile`]: one input's documents as a Parquet file.
//! * [`build`]: the build driver (open or resume, a commit per group of files).
//! * [`extract`]: the same pipeline writing a document corpus instead of an index.
//! * [`shard`]: one shard of a distributed build, and merging shards.
//! * [`summary`]: the human summary of build statistics.
//!
//! Every fallible function returns [`Error`], whose variants carry the
//! evidence; errors of the crawl readers and of the index files keep their
//! own types inside it.
//!
//! ```no_run
//! use sieve_ingest::options::{BuildOptions, NoProgress};
//! let opts = BuildOptions::new(vec!["crawl.warc.gz".into()], "index".into());
//! let stats = sieve_ingest::build::build(&opts, &NoProgress).unwrap();
//! println!("{} documents", stats.totals.indexed);
//! ```

// The layers below, under the names this crate's modules use.
use sieve_analysis as analysis;
use sieve_crawl as crawl;
use sieve_crawl::inputs;
use sieve_format::{bounds, document, extsort, index, jsonfile, lock, outfile, schema, stats};
use sieve_text::{charset, html};

pub mod build;
pub mod dedup;
pub mod error;
pub mod extract;
pub mod filterbuild;
mod losses;
pub mod manifest;
pub mod options;
pub mod order;
pub mod parquetfile;
mod pipeline;
pub mod quarantine;
mod readahead;
pub mod shard;
pub mod spamfile;
pub mod summary;
pub mod unique;

pub use error::Error;
pub use error::RuleInput;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
