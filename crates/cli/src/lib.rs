//! # sieve-cli
//!
//! What the three binaries (`sieve-index`, `sieve-search`, `sieve-filter`)
//! and the Python extension share about being a command line:
//!
//! * [`argv`]: the pre-pass over the words of a command line (other
//!   tools' spellings, single-dash long words refused) before clap.
//! * [`exit`]: the one exit-status scheme, error printing (a closed pipe
//!   is not an error) and the guard that turns a panic into an error line.
//! * `args` (feature `args`, for the binaries): clap flag groups more than
//!   one binary flattens into its subcommands.
//!
//! ```
//! use sieve_cli::exit::ExitStatus;
//! assert_eq!(ExitStatus::PartialInput.code(), 3);
//! ```

#[cfg(feature = "args")]
pub mod args;
pub mod argv;
pub mod error;
pub mod exit;

pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
