//! `sieve-index`: build tantivy indexes from web crawls.
//!
//! A thin command line over `sieve_ingest` and `sieve_report`: each
//! subcommand turns its parsed arguments into one library call and prints
//! the result. The flags are declared in [`args`] and turned into the
//! library's build options in [`options`] (where flag names are added to
//! library errors); the handlers are in [`build`] (build, build-shard,
//! merge, reorder, extract), [`inspect`] (report, docids, near-duplicates, scan,
//! verify, bounds) and [`show`]; [`progress`] is the build's progress.

mod args;
mod build;
mod inspect;
mod options;
mod progress;
mod show;

use std::path::Path;
use std::process::ExitCode;

use clap::Parser;
use sieve_cli::exit::ExitStatus;

use args::{Cli, Command};

/// Runs the command line; errors are printed once, as one line without a
/// backtrace, and exit with code 1; a closed stdout (`| head`) ends it
/// quietly with code 0 (see `sieve_cli::exit`).
fn main() -> ExitCode {
    sieve_cli::exit::run_guarded("sieve-index", || {
        run().unwrap_or_else(|e| sieve_cli::exit::report_error("sieve-index", e.as_ref()))
    })
}

/// Parses the command line and runs the subcommand.
fn run() -> anyhow::Result<ExitCode> {
    let args = sieve_cli::argv::normalize(std::env::args_os(), &[], "ihV");
    let args = args.unwrap_or_else(|e| {
        clap::Error::raw(clap::error::ErrorKind::UnknownArgument, format!("{e}\n")).exit()
    });
    match Cli::parse_from(args).command {
        Command::Build(a) => build::run_build(a),
        Command::BuildShard(a) => build::run_build_shard(a),
        Command::Extract(a) => build::run_extract(a),
        Command::Merge(a) => build::run_merge(&a),
        Command::Reorder(a) => build::run_reorder(&a),
        Command::NearDuplicates(a) => inspect::run_near_duplicates(a),
        Command::Scan(a) => inspect::run_scan(&a),
        Command::Report(a) => inspect::run_report(a),
        Command::Docids(a) => inspect::run_docids(&a),
        Command::Bounds(a) => inspect::run_bounds(&a.index),
        Command::Verify(a) => inspect::run_verify(&a.index),
        Command::Show(a) => show::run_show(a),
    }
}

/// The process exit code of `status`.
fn exit(status: ExitStatus) -> ExitCode {
    ExitCode::from(status.code())
}

/// Warns, on every run, when `--allow-unfinished` lets the unfinished
/// index `index` be read.
fn warn_unfinished(index: &Path) {
    if let Some(w) = sieve_format::index::unfinished_warning(index) {
        eprintln!("sieve-index: warning: {w}");
    }
}
