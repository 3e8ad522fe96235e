//! # sieve-text
//!
//! From the bytes of an HTTP body to the text sieve indexes:
//!
//! * [`charset`] decides a body's encoding from its evidence (HTTP header,
//!   BOM, `<meta>` found by the WHATWG prescan, XML declaration, then a
//!   detector), records which source decided, and decodes it to UTF-8,
//!   counting the malformed sequences.
//! * [`html`] turns HTML into a title, visible text, paragraphs, and (by
//!   choice) the main content only, in bounded time and memory whatever
//!   the nesting: one forward scanner over the markup feeds a text sink,
//!   either the whitespace-collapsing output of all text or the block
//!   collector that keeps the main content.
//! * [`utf8stream`] streams a file of any size through the UTF-8 cleaner
//!   of `sieve-filters`.
//!
//! Decoding and extraction never fail: what they repair is counted. Only
//! [`utf8stream`] touches files, and its errors are [`Error`].
//!
//! ```
//! use sieve_text::html::{HtmlOptions, extract};
//! let page = extract("<title>T</title><p>Hello <b>world</b></p>", &HtmlOptions::default());
//! assert_eq!(page.title, "T");
//! ```

pub mod charset;
mod error;
pub mod html;
pub mod utf8stream;

pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
