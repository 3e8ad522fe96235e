//! # sieve-searcher
//!
//! Runs TREC topic files over sieve indexes with tunable BM25, writes TREC run
//! files, evaluates them as trec_eval and gdeval do, and compares two runs.
//!
//! Every fallible function returns [`Error`], whose variants carry the
//! evidence (path, line, expected and found values).
//!
//! # Layout
//!
//! Inputs, each read from bytes into plain values:
//! - [`topics`]: topic files in five formats, detected from the content
//!   (`topics/mod.rs`: types, detection, shared checks; one file per format:
//!   `sgml.rs`, `webxml.rs` (quick-xml), `lines.rs` (`id:query`, TSV),
//!   `cacm.rs`; `scan.rs`, the lenient tag scanner of the SGML formats).
//! - [`qrels`]: relevance judgments (qrels and prels).
//! - [`run`]: TREC run files, read and written.
//! - `text` (crate-private): the UTF-8, snippet, whitespace and line-number
//!   helpers every reader above shares.
//!
//! Searching:
//! - [`bm25`]: BM25 over tantivy shards with any k1/b, several settings and
//!   document subsets scored in one pass.
//! - [`queries`]: topics to bounded queries (a cap on unique terms per
//!   topic) with a note per capped or term-less topic.
//! - [`stats`]: collection statistics summed over shards or recomputed over
//!   a subset.
//! - [`batch`]: many topics x settings x document selections, in parallel.
//! - [`runspec`]: run settings (k1, b, selections, tag, output) turned into
//!   the list of runs with their tags and files, searched and written.
//! - [`twostage`]: statistics files, their sums and the merging of shard
//!   runs for a search split over machines.
//!
//! Evaluating:
//! - [`eval`]: trec_eval and gdeval measures of a run against qrels.
//! - [`paired`]: paired statistics of per-topic differences (t-test,
//!   confidence interval, Holm's correction).
//! - [`compare`]: two runs compared per topic (paired t-test, wins/losses).
//! - [`sweep`]: filter thresholds (and BM25 settings) searched in one pass,
//!   evaluated and compared with the unfiltered run: `sweep.tsv`, `sweep.svg`
//!   (`sweep/rules.rs`: the rules a sweep can vary).
//! - [`docinfo`]: the stored and fast fields of documents, by docid.
//! - [`page`]: the self-contained HTML page of a comparison or a sweep.
//!
//! No module cycles: `text` <- `topics`, `qrels`, `run`; `bm25` <- `queries`
//! (also using `topics`) <- `stats` <- `twostage` <- `batch` <- `runspec` (also writing
//! through `run`); `bm25` <- `docinfo`; `paired`; `qrels`, `run` <- `eval` <- `compare`
//! (also `paired`) <- `sweep` (also `batch`) <- `page` (also `docinfo`).

pub mod batch;
pub mod bm25;
pub mod compare;
pub mod docinfo;
pub mod error;
pub mod eval;
pub mod paired;
pub mod qrels;
pub mod queries;
pub mod run;
pub mod runspec;
pub mod stats;
pub mod sweep;
mod text;
pub mod topics;
pub mod twostage;

pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
