//! # sieve-ingest
//!
//! Crawl files in, a tantivy index (or a document corpus) out: the build
//! and extract pipelines, shards and their merge, one document per docid,
//! near-duplicate clustering, the quarantine of what is not indexed,
//! Parquet output, and the spam and filter files a build consults.
//!
//! # Roles
//!
//! One entry point per command of `sieve-index`: [`build::build`] (crawl
//! files to an index), [`extract::extract`] (the same pipeline writing a
//! document corpus), [`shard`] (one shard of a distributed build, and
//! merging shards), [`filterbuild`] and [`spamfile`] (the filter files and
//! spam maps a build or a search consults), [`dedup`] (near-duplicate
//! clusters of an index) and [`summary`] (what a build prints). Each takes
//! its options as plain values ([`options::BuildOptions`]) and reports
//! progress through [`options::Progress`].
//!
//! The modules, from the bottom up (each uses only modules above it in
//! this list, besides `error`; those without a link are private):
//!
//! * [`order`]: input-order segments: order-preserving merges and the
//!   final segment list of a build.
//! * [`options`]: [`options::BuildOptions`], caps, the time-budget mode,
//!   the thread check and progress callbacks.
//! * `manifest`: a build's options as the manifest records them
//!   ([`sieve_format::manifest`]).
//! * [`spamfile`]: Waterloo spam rankings to an FST map.
//! * [`filterbuild`]: building docid filter files (and loading one into
//!   [`options::BuildOptions`]).
//! * `quarantine`, `losses`: the bytes of everything not indexed; the
//!   losses log.
//! * [`parquetfile`]: one input's documents as a Parquet file.
//! * `record`: one document as `extract` writes it.
//! * [`dedup`]: near-duplicate band keys and their clustering by external
//!   sorts (the column itself is [`sieve_format::dups`]).
//! * `unique`: later copies of a docid removed after a build or merge.
//! * `pipeline`, `readahead`: the per-document work of a build and the
//!   writer's per-file sink; the reader threads that read and process
//!   files ahead of the writer.
//! * `run`: what `build` and `extract` share: the manifest of a run,
//!   claiming or resuming its directory, the worker pool, the losses log
//!   and the quarantine cut back to the last checkpoint, the final
//!   statistics.
//! * [`build`], [`extract`], [`shard`], [`reorder`], [`summary`]: the
//!   commands (`reorder`: an index written again in recursive-graph-
//!   bisection order).
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

pub mod build;
pub mod dedup;
mod error;
pub mod extract;
pub mod filterbuild;
mod losses;
mod manifest;
pub mod options;
pub mod order;
pub mod parquetfile;
mod pipeline;
mod quarantine;
mod readahead;
mod record;
pub mod reorder;
mod run;
pub mod shard;
pub mod spamfile;
pub mod summary;
mod unique;

pub use error::Error;
pub use error::RuleInput;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
