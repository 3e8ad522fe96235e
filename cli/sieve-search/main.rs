//! `sieve-search`: run TREC topics, evaluate and compare runs.
//!
//! A thin command line over the `sieve_searcher` library: the flags are
//! declared in [`args`]; one handler per subcommand, in [`mod@run`] (run,
//! topics; [`feedback`] for the feedback runs of `run`), [`eval`] (eval,
//! compare), [`sweep`] and [`twostage`] (global-stats, sum-stats,
//! merge-runs), [`staged`] (feedback over shards searched apart:
//! feedback-vectors, merge-vectors, expand-queries, run
//! --weighted-queries), [`fuse`] and [`serve`]; [`setup`] opens what a search
//! reads and [`output`] is where results go.

mod anserini;
mod args;
mod eval;
mod feedback;
mod fuse;
mod output;
mod run;
mod serve;
mod setup;
mod staged;
mod sweep;
mod twostage;

use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use args::{Cli, Cmd};

/// mimalloc rather than the system allocator: a search allocates per
/// query (the hits' docids, the top-k buffers, per-segment state), and
/// with mimalloc a top-1000 search takes 0.78-0.86x the time it takes with
/// glibc's malloc, a threshold sweep 0.75-0.80x, a top-10 search about
/// the same (search bench, 1M documents; bench/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs the command line; errors are printed once, as one line without a
/// backtrace, and exit with code 1; a closed stdout (`| head`) ends it
/// quietly with code 0 (see `sieve_cli::exit`).
fn main() -> ExitCode {
    sieve_cli::exit::run_guarded("sieve-search", || match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => sieve_cli::exit::report_error("sieve-search", e.as_ref()),
    })
}

/// Parses the command line and runs the subcommand.
fn run() -> Result<()> {
    let args =
        sieve_cli::argv::normalize(std::env::args_os(), anserini::ANSERINI, anserini::SHORTS);
    let args = args.unwrap_or_else(|e| {
        clap::Error::raw(clap::error::ErrorKind::UnknownArgument, format!("{e}\n")).exit()
    });
    match Cli::parse_from(args).cmd {
        Cmd::Run(a) => run::cmd_run(*a),
        Cmd::Topics(a) => run::cmd_topics(a),
        Cmd::Eval(a) => eval::cmd_eval(a),
        Cmd::Compare(a) => eval::cmd_compare(a),
        Cmd::Sweep(a) => sweep::cmd_sweep(*a),
        Cmd::GlobalStats(a) => twostage::cmd_stats(a),
        Cmd::SumStats(a) => twostage::cmd_sum_stats(a),
        Cmd::MergeRuns(a) => twostage::cmd_merge_runs(a),
        Cmd::FeedbackVectors(a) => staged::cmd_feedback_vectors(*a),
        Cmd::MergeVectors(a) => staged::cmd_merge_vectors(a),
        Cmd::ExpandQueries(a) => staged::cmd_expand_queries(*a),
        Cmd::Fuse(a) => fuse::cmd_fuse(a),
        Cmd::Serve(a) => serve::cmd_serve(a),
    }
}
