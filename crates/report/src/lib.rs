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
//! * [`compare_html`] and [`sweep_html`]: the offline HTML pages of
//!   `compare --html` and `sweep --html`, gathered from two evaluated runs
//!   ([`Comparison`]) or a sweep's outcome ([`SweepPage`]) and the index
//!   (module `comparison`), written as self-contained markup (module
//!   `page`).
//! * [`show`]: documents back out of an index: where each record is, what
//!   the index holds, its text extracted again, its original bytes.
//!
//! Every fallible function returns [`Error`]; errors of the crawl readers,
//! of the index files and of the searcher keep their own types inside it.
//!
//! ```
//! let mut s = String::new();
//! sieve_report::svg::open(&mut s, 100.0, 50.0, "demo");
//! assert!(s.starts_with("<svg"));
//! ```

mod comparison;
pub mod encoding;
mod error;
mod page;
mod pieces;
pub mod show;
pub mod svg;
pub mod sweep_figure;

pub use comparison::{Comparison, Side, SweepPage, compare_html, sweep_html};
pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
