//! # sieve-filters
//!
//! Pure bytes-to-decision code for the sieve indexer. Nothing in this crate
//! opens a file, a socket or a clock: every function takes bytes (or values
//! parsed from bytes) and returns a decision or a count. The binaries in
//! `sieve-ingest`, `sieve-searcher` and `sieve-filter` do the I/O.
//!
//! * [`utf8`]: the in-place UTF-8 cleaner that counts the seven error classes
//!   of Crane, Trotman and O'Keefe, "Malformed UTF-8 and Spam" (ADCS 2013).
//! * [`spam`]: Waterloo spam-ranking lines and the docid → percentile FST map.
//! * [`docfilter`]: the keep/drop rule over spam percentiles and error rates,
//!   and the filter file (an FST set of the smaller of the keep/exclude lists).
//! * [`sealed`]: the version line and CRC-32 seal of every binary or JSON
//!   file sieve writes and reads back (filter files, BM25 statistics files).
//! * [`minhash`]: MinHash signatures over word shingles and LSH band keys
//!   (near-duplicate detection), with the in-memory reference clustering.
//! * [`docid`]: the one rule for ids in run files (docids and topic ids):
//!   non-empty, no whitespace (C `isspace` or Unicode), no control
//!   character; and their escaped rendering for messages.
//! * [`docstats`]: per-document lengths, error counts and spam percentiles
//!   as TSV (a filter's input when there is no index).
//!
//! Every fallible function returns [`Error`], whose variants carry the
//! evidence (offsets, expected and found values).
//!
//! ```
//! use sieve_filters::docid::check_id;
//! use sieve_filters::utf8::{Counting, clean_in_place_with};
//!
//! // An over-long `/` (C0 AF) and a lone continuation byte (80).
//! let mut page = b"a\xC0\xAFb\x80c".to_vec();
//! let counts = clean_in_place_with(&mut page, Counting::Exact);
//! assert_eq!(page, b"a/ b c");
//! assert_eq!((counts.overlong_ascii, counts.unexpected_continuation), (1, 1));
//! assert!(check_id("clueweb09-en0000-00-00000").is_ok());
//! assert!(check_id("two words").is_err());
//! ```

pub mod docfilter;
pub mod docid;
pub mod docstats;
mod error;
pub mod minhash;
pub mod sealed;
pub mod spam;
pub mod utf8;

pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
