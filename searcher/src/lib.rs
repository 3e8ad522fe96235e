//! # sieve-searcher
//!
//! Runs TREC topic files over sieve indexes with tunable BM25, writes TREC run
//! files, evaluates them as trec_eval and gdeval do, and compares two runs.
//!
//! Every fallible function returns [`Error`], whose variants carry the
//! evidence (path, line, expected and found values).

pub mod batch;
pub mod bm25;
pub mod compare;
pub mod error;
pub mod eval;
pub mod qrels;
pub mod run;
pub mod runspec;

pub mod stats;
mod text;
pub mod topics;
pub mod twostage;

pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
