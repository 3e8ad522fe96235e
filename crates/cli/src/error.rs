//! The one error type of `sieve-cli`.

/// What the command-line pre-pass refuses.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A command-line word with one dash and several letters that is
    /// neither a known spelling (see [`crate::argv`]) nor a cluster of the
    /// command's one-letter options: one dash is for one-letter options.
    #[error("`{arg}` is not an option: long options take two dashes (did you mean `-{arg}`?)")]
    SingleDashLong {
        /// The word as given.
        arg: String,
    },
}
