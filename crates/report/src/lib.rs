//! # sieve-report
//!
//! What sieve shows people: figures, tables and pages. Nothing here
//! changes an index or a run.
//!
//! From the bottom up (each module uses only those above it, besides
//! `error`):
//!
//! * [`svg`]: hand-written SVG shared by every figure (Okabe–Ito colours,
//!   dashes, markers, escaping, round ticks).
//! * [`encoding`]: the encoding-error report of "Malformed UTF-8 and Spam"
//!   over an index (tally, significance tests, tables, the figure).
//! * [`sweep_figure`]: the figure of a threshold sweep.
//! * [`page`]: the offline HTML pages of `compare --html` and `sweep --html`.
//! * [`show`]: documents back out of an index: where each record is, what
//!   the index holds, its text extracted again, its original bytes.
//!
//! Every fallible function returns [`Error`]; errors of the crawl readers
//! and of the index files keep their own types inside it.
//!
//! ```
//! let mut s = String::new();
//! sieve_report::svg::open(&mut s, 100.0, 50.0, "demo");
//! assert!(s.starts_with("<svg"));
//! ```

pub mod encoding;
mod error;
pub mod page;
pub mod show;
pub mod svg;
pub mod sweep_figure;

pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
