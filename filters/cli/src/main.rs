//! `sieve-filter`: UTF-8 error counts and docid filter files.
//!
//! A thin command line over `sieve_filters` (pure decisions) and
//! `sieve_indexer` (file reading). Each subcommand lives in its own module.

mod utf8;

use clap::{Parser, Subcommand};

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
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Utf8(args) => utf8::run(&args),
    }
}
