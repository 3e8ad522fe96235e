//! The one error type of `sieve-filters`.

/// Everything that can go wrong in this crate. Each variant carries the
/// evidence needed to find the problem in the input: where (line or byte
/// offset), what was expected and what was found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A placeholder until the first real variant lands; never constructed.
    #[error("internal error: {0}")]
    Internal(String),
}
