//! The one end-to-end test binary: drives the sieve binaries on fixtures.
//! Each area has its own module; tests are declared with `sieve_test!`.

#[macro_use]
mod util;

mod bounds;
mod classic;
mod collections;
mod contents;
mod conventions;
mod determinism;
mod eval_cli;
mod extract_parquet;
mod feedback;
mod fusion;
mod hostile;
mod integrity;
mod integrity_build;
mod integrity_crawl;
mod integrity_docids;
mod integrity_dups;
mod integrity_outputs;
mod integrity_small;
mod integrity_unfinished;
mod judged_loss;
mod models;
mod near_duplicates;
mod pipeline;
mod queries;
mod reorder;
mod repo;
mod report;
mod serve;
mod sweep;
mod utf8;
