//! # sieve-indexer
//!
//! Reads web crawls and builds tantivy indexes.
//!
//! * [`schema`]: the one place that names index fields and registers the
//!   analyser; the searcher and the filter tools use it too.
//! * [`charset`]: charset detection (HTTP, BOM, meta, XML, detector) and
//!   decoding of HTTP bodies to UTF-8 text.
//! * [`html`]: HTML to text (title and visible body text).
//! * [`testdata`]: where tests, benches and examples find the committed
//!   fixtures and the shared data directory.
//!
//! Every fallible function returns [`Error`], whose variants carry the
//! evidence (path, byte offset, expected and found values).

pub mod analysis;
pub mod build;
pub mod charset;
pub mod crawl;
pub mod document;
pub mod error;
mod extsort;
pub mod filterbuild;
pub mod html;
pub mod quarantine;
pub mod report;
pub mod scan;
pub mod schema;
pub mod shard;
pub mod spamfile;
pub mod testdata;

pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
