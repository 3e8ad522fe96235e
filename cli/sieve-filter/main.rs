//! `sieve-filter`: UTF-8 error counts and docid filter files.
//!
//! A thin command line over `sieve_filters` (pure decisions) and
//! `sieve_ingest` and `sieve_text` (file reading). Each subcommand lives in its own module.

mod filter;
mod utf8;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sieve_cli::exit::ExitStatus;

/// UTF-8 error counts (Crane, Trotman & O'Keefe, ADCS 2013) and docid filters.
#[derive(Debug, Parser)]
#[command(name = "sieve-filter", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the seven UTF-8 error classes in files (one JSON object per file
    /// per line) and optionally write the cleaned bytes.
    Utf8(utf8::Args),
    /// Build a docid filter file from spam rankings and/or an index's
    /// per-document error rates.
    Build(filter::BuildArgs),
    /// Verify a filter file's checksum and print its header (list kind,
    /// thresholds, counts) and what it does with docids it never saw.
    Inspect(FilterFile),
    /// Does the filter keep these docids? Prints keep/drop per docid; exit
    /// code 4 (done, not found) if any is dropped.
    Contains {
        #[command(flatten)]
        input: FilterFile,
        /// Docids to look up.
        #[arg(required = true)]
        docids: Vec<String>,
    },
}

/// The filter file `inspect` and `contains` read.
#[derive(Debug, clap::Args)]
struct FilterFile {
    /// The filter file.
    file: PathBuf,
}

/// Runs the command line; errors are printed once, as one line without a
/// backtrace, and exit with code 1; a closed stdout (`| head`) ends it
/// quietly with code 0 (see `sieve_cli::exit`).
fn main() -> ExitCode {
    sieve_cli::exit::run_guarded("sieve-filter", || {
        run().unwrap_or_else(|e| sieve_cli::exit::report_error("sieve-filter", e.as_ref()))
    })
}

/// Parses the command line and runs the subcommand.
fn run() -> anyhow::Result<ExitCode> {
    let args = sieve_cli::argv::normalize(std::env::args_os(), &[], "hV");
    let args = args.unwrap_or_else(|e| {
        clap::Error::raw(clap::error::ErrorKind::UnknownArgument, format!("{e}\n")).exit()
    });
    let cli = Cli::parse_from(args);
    match cli.command {
        Command::Utf8(args) => utf8::run(&args)?,
        Command::Build(args) => filter::build(&args)?,
        Command::Inspect(f) => filter::inspect(&f.file)?,
        Command::Contains { input, docids } => {
            if !filter::contains(&input.file, &docids)? {
                // Done, but not every docid was found kept.
                return Ok(ExitCode::from(ExitStatus::Empty.code()));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
