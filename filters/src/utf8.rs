//! The UTF-8 cleaner (see the crate docs).
//!
//! **STAND-IN, NOT THE REAL CLEANER.** This file exists only so that the
//! `text` branch (charset detection and HTML-to-text in `sieve-indexer`)
//! compiles before the real cleaner is merged. It has exactly the public
//! signatures of the real module, but a deliberately simple behaviour: every
//! byte that is not part of a valid UTF-8 sequence becomes an ASCII space and
//! is counted as `unexpected_continuation`; `Counting` is ignored. The lead
//! replaces this whole file with the real cleaner at merge time. Nothing in
//! the `text` branch tests these semantics.

use serde::{Deserialize, Serialize};

/// Counts of the seven classes of malformed UTF-8 (Crane, Trotman and
/// O'Keefe, ADCS 2013). The stand-in only ever fills
/// `unexpected_continuation`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Utf8Counts {
    /// Continuation bytes (0x80-0xBF) with no lead byte.
    pub unexpected_continuation: u64,
    /// Lead bytes not followed by enough continuation bytes.
    pub missing_continuation: u64,
    /// Encoded UTF-16 surrogates (U+D800-U+DFFF).
    pub surrogate: u64,
    /// Code points above U+10FFFF and 5- or 6-byte forms.
    pub invalid_4_5_6: u64,
    /// Over-long encodings of U+0000.
    pub overlong_nul: u64,
    /// Over-long encodings of other ASCII characters.
    pub overlong_ascii: u64,
    /// Over-long encodings of non-ASCII characters.
    pub overlong_non_ascii: u64,
}

/// How errors are counted: exactly, or as ATIRE counted them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    /// Count each malformed sequence once, by class.
    #[default]
    Exact,
    /// Reproduce ATIRE's counting.
    Atire,
}

/// Replaces every byte of `buf` that is not part of a valid UTF-8 sequence
/// with an ASCII space, in place (same length; afterwards `buf` is valid
/// UTF-8), and returns the counts. Stand-in: all errors are counted as
/// `unexpected_continuation`, one per replaced byte.
pub fn clean_in_place_with(buf: &mut [u8], counting: Counting) -> Utf8Counts {
    let _ = counting;
    let mut counts = Utf8Counts::default();
    let mut i = 0;
    while i < buf.len() {
        match std::str::from_utf8(&buf[i..]) {
            Ok(_) => break,
            Err(e) => {
                let bad = i + e.valid_up_to();
                let n = e.error_len().unwrap_or(buf.len() - bad);
                for b in &mut buf[bad..bad + n] {
                    *b = b' ';
                }
                counts.unexpected_continuation += n as u64;
                i = bad + n;
            }
        }
    }
    counts
}

/// [`clean_in_place_with`] with [`Counting::Exact`].
pub fn clean_in_place(buf: &mut [u8]) -> Utf8Counts {
    clean_in_place_with(buf, Counting::Exact)
}

/// Counts what [`clean_in_place_with`] would count, without writing.
pub fn count(buf: &[u8], counting: Counting) -> Utf8Counts {
    let _ = counting;
    let mut counts = Utf8Counts::default();
    let mut i = 0;
    while i < buf.len() {
        match std::str::from_utf8(&buf[i..]) {
            Ok(_) => break,
            Err(e) => {
                let bad = i + e.valid_up_to();
                let n = e.error_len().unwrap_or(buf.len() - bad);
                counts.unexpected_continuation += n as u64;
                i = bad + n;
            }
        }
    }
    counts
}
