//! Flag groups shared by the binaries' subcommands, flattened with
//! `#[command(flatten)]` (feature `args`).

use sieve_format::index::Unfinished;

/// `--allow-unfinished`, of every subcommand that reads an index.
#[derive(Debug, clap::Args)]
pub struct AllowUnfinished {
    /// Read an index whose build did not finish (killed, or being
    /// resumed): only its committed documents, with a warning on stderr.
    #[arg(long)]
    pub allow_unfinished: bool,
}

impl AllowUnfinished {
    /// What opening an index does when its build did not finish.
    pub fn mode(&self) -> Unfinished {
        Unfinished::allow_if(self.allow_unfinished)
    }
}
