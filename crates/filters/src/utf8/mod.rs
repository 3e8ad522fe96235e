//! The UTF-8 cleaner: repairs malformed UTF-8 in place and counts the seven
//! error classes of Crane, Trotman and O'Keefe, "Malformed UTF-8 and Spam"
//! (ADCS 2013).
//!
//! # Guarantees
//!
//! * The output has **the same length** as the input (byte offsets into a
//!   document stay valid).
//! * The output is **always valid UTF-8** (`std::str::from_utf8` accepts it).
//! * Valid UTF-8 input is left **byte-identical**, with all counts zero.
//!   "Valid" means exactly what `std::str::from_utf8` accepts.
//! * Cleaning is idempotent: cleaning cleaned output changes nothing and
//!   counts nothing.
//! * Each malformed sequence is counted **exactly once**, in one class,
//!   except under [`Counting::Atire`] (below).
//!
//! # Exact semantics
//!
//! The input is cut into sequences from left to right. At the start of a
//! sequence, look at the byte `b` there:
//!
//! | `b`     | meaning                                                        |
//! |---------|----------------------------------------------------------------|
//! | 00–7F   | ASCII: a one-byte sequence, passed unchanged                   |
//! | 80–BF   | a continuation byte with no lead before it: **unexpected continuation**; it becomes a space |
//! | C0–DF   | lead of a 2-byte form (declares 1 continuation byte)           |
//! | E0–EF   | lead of a 3-byte form (declares 2)                             |
//! | F0–F7   | lead of a 4-byte form (declares 3)                             |
//! | F8–FB   | lead of a 5-byte form (declares 4)                             |
//! | FC–FD   | lead of a 6-byte form (declares 5)                             |
//! | FE, FF  | never valid: **invalid 4/5/6-byte**; it becomes one space      |
//!
//! After a lead byte that declares `d` continuation bytes, take the run of
//! continuation bytes (80–BF) directly after it, stopping after `d` of them,
//! at the first byte that is not 80–BF, or at the end of the input.
//!
//! * If the run is shorter than `d`, that is **not enough continuation
//!   bytes** (one count). The lead and the continuation bytes found become
//!   spaces, and the byte that stopped the run (if any) starts the next
//!   sequence and is processed afresh: `E2 82 41` is two spaces then `A`, and
//!   `E2 82 C3 A9` is two spaces then `é`.
//! * Otherwise the span is the lead plus its `d` continuation bytes. Decode
//!   the value `v` from it (the lead's payload bits, then 6 bits per
//!   continuation byte) and check, **in this order**:
//!   1. A 5- or 6-byte form, or `v > 10FFFF`: **invalid 4/5/6-byte**. The
//!      whole span becomes spaces.
//!   2. `v` in D800–DFFF (a UTF-16 surrogate half), at any length, including
//!      over-long 4-byte forms: **invalid surrogate half**. The whole span
//!      becomes spaces.
//!   3. The span is longer than the shortest encoding of `v` (over-long):
//!      * `v = 0`: **over-long NUL**; the whole span becomes spaces.
//!      * `v < 80`: **over-long ASCII**;
//!      * otherwise: **non-ASCII over-long**. For these two the shortest
//!        encoding of `v` is written at the start of the span and the rest of
//!        the span becomes spaces. The leftover bytes are **not** counted
//!        again, so the sequence counts once.
//!   4. Otherwise the sequence is valid and is left unchanged.
//!
//! Each count is one malformed sequence, except that each unexpected
//! continuation byte and each FE/FF byte counts on its own. "Space" is 20.
//!
//! Worked examples (input → output, class):
//!
//! | input          | output         | class                          |
//! |----------------|----------------|--------------------------------|
//! | `C0 80`        | `20 20`        | over-long NUL                  |
//! | `C1 81`        | `41 20`        | over-long ASCII                |
//! | `F0 82 82 AC`  | `E2 82 AC 20`  | non-ASCII over-long            |
//! | `ED A0 80`     | `20 20 20`     | invalid surrogate half         |
//! | `F4 90 80 80`  | `20 20 20 20`  | invalid 4/5/6-byte (> 10FFFF)  |
//! | `F8 88 80 80 80` | five `20`    | invalid 4/5/6-byte (5-byte form) |
//! | `FE`           | `20`           | invalid 4/5/6-byte             |
//! | `80 BF`        | `20 20`        | unexpected continuation (×2)   |
//! | `E2 82` at end | `20 20`        | not enough continuation bytes  |
//! | `D8 A7` (Arabic ا) | unchanged  | valid                          |
//!
//! ```
//! use sieve_filters::utf8::{clean_in_place, Utf8Counts};
//!
//! let mut doc = b"\xC1\x81 \xF0\x82\x82\xAC \xED\xA0\x80 \xD8\xA7".to_vec();
//! let counts = clean_in_place(&mut doc);
//! assert_eq!(doc, b"A  \xE2\x82\xAC      \xD8\xA7");
//! assert_eq!(
//!     counts,
//!     Utf8Counts { overlong_ascii: 1, overlong_non_ascii: 1, surrogate: 1, ..Default::default() }
//! );
//! ```
//!
//! # ATIRE-compatible counting
//!
//! [`Counting::Atire`] changes **only the counts**, never the output bytes.
//! For each over-long sequence (all three over-long classes), the bytes of
//! the span after the shortest encoding are additionally counted as
//! unexpected continuation bytes, one per byte: `C1 81` counts over-long
//! ASCII 1 and unexpected continuation 1; `F0 82 82 AC` counts non-ASCII
//! over-long 1 and unexpected continuation 1; `E0 80 80` counts over-long NUL
//! 1 and unexpected continuation 2 (the shortest form of NUL is one byte).
//! Every other class counts exactly as under [`Counting::Exact`].
//!
//! Why: ATIRE's scrubber (`ANT_directory_iterator_scrub::scrub` in
//! `source/directory_iterator_scrub.c` of andrewtrotman/ATIRE, as stored at
//! commit e1d7a9ec) handles an over-long form by rewriting its first byte(s)
//! and then meeting the leftover continuation bytes with no lead before them,
//! so a tally taken that way sees them as unexpected continuation bytes. This
//! mode lets our counts be set beside Table 1 of the paper. The scrubber
//! differs from this module in other ways that we deliberately do **not**
//! copy:
//!
//! * it blanks every lead byte D8–DF as a "surrogate half", which destroys
//!   valid text in U+0600–U+07FF (Arabic, Syriac, Thaana, N'Ko, e.g. `D8 A7`);
//!   real surrogates (`ED A0`–`ED BF` …) pass through it unchanged;
//! * for a lead above F4, or F4 with a value above 10FFFF, it blanks only the
//!   lead and leaves the continuation bytes to the unexpected-continuation
//!   rule;
//! * it decides "over-long" from the first two bytes only (C0/C1, or E0, F0,
//!   F8, FC followed by too small a second byte), and an over-long 5- or
//!   6-byte form is re-encoded rather than rejected;
//! * the scrubber itself counts nothing.
//!
//! # Speed
//!
//! Valid input is checked with `simdutf8` and never touched. At the first
//! error a `#[cold]` exact path takes over and hands back to `simdutf8`
//! after 256 error-free bytes, so only the neighbourhood of each error is
//! examined closely. The exact path takes no branch on a byte's class or on
//! the length of a sequence, because on random bytes (a malformed sequence
//! every third byte) such branches are mispredicted about half the time. It
//! rests on one fact of the definition above: every byte that is not a
//! continuation byte starts a sequence, so the cut into sequences is local
//! and a block of 64 bytes can be decided from bit masks (which bytes are
//! continuation bytes, which are leads), one branch-free step per lead that
//! has a continuation byte after it, and a masked word-at-a-time merge of the
//! replacements. Only complete over-long forms, surrogates and invalid
//! 4/5/6-byte forms, and FE/FF before a continuation byte (rare even in
//! random bytes), take a branch to the full decision. [`clean_in_place_scalar`] runs the
//! exact path alone; its output and counts are the same.

mod engine;
#[cfg(test)]
mod old_scalar;
pub mod reference;
mod stream;

pub use stream::StreamCleaner;

use engine::{InPlace, ReadOnly};
use serde::{Deserialize, Serialize};

/// One of the seven classes of malformed UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorClass {
    /// A continuation byte (80–BF) with no lead byte before it. Key
    /// `unexpected_continuation`.
    UnexpectedContinuation,
    /// A lead byte followed by fewer continuation bytes than it declares
    /// (the end of input counts). Key `missing_continuation`.
    MissingContinuation,
    /// A complete sequence whose value is in D800–DFFF. Key `surrogate`.
    Surrogate,
    /// FE or FF, a complete 5- or 6-byte form, or a value above 10FFFF.
    /// Key `invalid_4_5_6`.
    Invalid456,
    /// An over-long form of U+0000. Key `overlong_nul`.
    OverlongNul,
    /// An over-long form of U+0001–U+007F. Key `overlong_ascii`.
    OverlongAscii,
    /// An over-long form of a value of U+0080 or above. Key
    /// `overlong_non_ascii`.
    OverlongNonAscii,
}

impl ErrorClass {
    /// All seven classes, in the order of the fields of [`Utf8Counts`].
    pub const ALL: [ErrorClass; 7] = [
        ErrorClass::UnexpectedContinuation,
        ErrorClass::MissingContinuation,
        ErrorClass::Surrogate,
        ErrorClass::Invalid456,
        ErrorClass::OverlongNul,
        ErrorClass::OverlongAscii,
        ErrorClass::OverlongNonAscii,
    ];

    /// The stable snake_case key, used in JSON and on command lines; equal to
    /// the name of the matching [`Utf8Counts`] field.
    pub fn key(self) -> &'static str {
        match self {
            ErrorClass::UnexpectedContinuation => "unexpected_continuation",
            ErrorClass::MissingContinuation => "missing_continuation",
            ErrorClass::Surrogate => "surrogate",
            ErrorClass::Invalid456 => "invalid_4_5_6",
            ErrorClass::OverlongNul => "overlong_nul",
            ErrorClass::OverlongAscii => "overlong_ascii",
            ErrorClass::OverlongNonAscii => "overlong_non_ascii",
        }
    }

    /// The class whose [`key`](Self::key) is exactly `key` (case-sensitive),
    /// or `None`.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.key() == key)
    }

    /// A human-readable name, for reports and tables.
    pub fn label(self) -> &'static str {
        match self {
            ErrorClass::UnexpectedContinuation => "Unexpected continuation bytes",
            ErrorClass::MissingContinuation => "Not enough continuation bytes",
            ErrorClass::Surrogate => "Invalid surrogate halves",
            ErrorClass::Invalid456 => "Invalid 4/5/6-byte sequences",
            ErrorClass::OverlongNul => "Over-long NUL",
            ErrorClass::OverlongAscii => "Over-long ASCII",
            ErrorClass::OverlongNonAscii => "Non-ASCII over-long",
        }
    }
}

impl std::fmt::Display for ErrorClass {
    /// Writes the [`label`](Self::label).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// How many malformed sequences of each class a cleaning found.
///
/// Serialises (serde) as an object with the seven snake_case keys of
/// [`ErrorClass::key`], in the order of [`ErrorClass::ALL`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Utf8Counts {
    /// [`ErrorClass::UnexpectedContinuation`]: one per byte.
    pub unexpected_continuation: u64,
    /// [`ErrorClass::MissingContinuation`]: one per truncated sequence.
    pub missing_continuation: u64,
    /// [`ErrorClass::Surrogate`]: one per sequence.
    pub surrogate: u64,
    /// [`ErrorClass::Invalid456`]: one per sequence, and one per FE/FF byte.
    pub invalid_4_5_6: u64,
    /// [`ErrorClass::OverlongNul`]: one per sequence.
    pub overlong_nul: u64,
    /// [`ErrorClass::OverlongAscii`]: one per sequence.
    pub overlong_ascii: u64,
    /// [`ErrorClass::OverlongNonAscii`]: one per sequence.
    pub overlong_non_ascii: u64,
}

impl Utf8Counts {
    /// The count for `class`.
    pub fn get(&self, class: ErrorClass) -> u64 {
        match class {
            ErrorClass::UnexpectedContinuation => self.unexpected_continuation,
            ErrorClass::MissingContinuation => self.missing_continuation,
            ErrorClass::Surrogate => self.surrogate,
            ErrorClass::Invalid456 => self.invalid_4_5_6,
            ErrorClass::OverlongNul => self.overlong_nul,
            ErrorClass::OverlongAscii => self.overlong_ascii,
            ErrorClass::OverlongNonAscii => self.overlong_non_ascii,
        }
    }

    /// A mutable reference to the count for `class`.
    pub fn get_mut(&mut self, class: ErrorClass) -> &mut u64 {
        match class {
            ErrorClass::UnexpectedContinuation => &mut self.unexpected_continuation,
            ErrorClass::MissingContinuation => &mut self.missing_continuation,
            ErrorClass::Surrogate => &mut self.surrogate,
            ErrorClass::Invalid456 => &mut self.invalid_4_5_6,
            ErrorClass::OverlongNul => &mut self.overlong_nul,
            ErrorClass::OverlongAscii => &mut self.overlong_ascii,
            ErrorClass::OverlongNonAscii => &mut self.overlong_non_ascii,
        }
    }

    /// The sum of the seven counts (saturating at `u64::MAX`).
    pub fn total(&self) -> u64 {
        ErrorClass::ALL
            .into_iter()
            .fold(0u64, |acc, c| acc.saturating_add(self.get(c)))
    }

    /// True when every count is zero, i.e. the input was valid UTF-8.
    pub fn is_clean(&self) -> bool {
        *self == Self::default()
    }

    /// `(class, count)` for the seven classes, in the order of
    /// [`ErrorClass::ALL`].
    pub fn iter(&self) -> impl Iterator<Item = (ErrorClass, u64)> + '_ {
        ErrorClass::ALL.into_iter().map(|c| (c, self.get(c)))
    }
}

impl std::ops::AddAssign for Utf8Counts {
    /// Adds field by field (wrapping is impossible in practice: 2^64 bytes).
    fn add_assign(&mut self, rhs: Self) {
        for c in ErrorClass::ALL {
            *self.get_mut(c) += rhs.get(c);
        }
    }
}

impl std::ops::Add for Utf8Counts {
    type Output = Self;
    /// Field-by-field sum.
    fn add(mut self, rhs: Self) -> Self {
        self += rhs;
        self
    }
}

impl std::iter::Sum for Utf8Counts {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |a, b| a + b)
    }
}

/// How over-long sequences are counted (the output bytes never change).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Counting {
    /// Each malformed sequence counts once, in its class (the default).
    #[default]
    Exact,
    /// As [`Counting::Exact`], plus the leftover bytes of every over-long
    /// sequence (the bytes after the shortest encoding) count as unexpected
    /// continuation bytes, one each, as ATIRE's scrubber would meet them. See
    /// the [module docs](self#atire-compatible-counting).
    Atire,
}

impl Counting {
    /// `counts` (exact) as this counting reports them, given the leftover
    /// bytes of over-long forms, `extra`.
    fn with_extra(self, mut counts: Utf8Counts, extra: u64) -> Utf8Counts {
        if self == Counting::Atire {
            counts.unexpected_continuation += extra;
        }
        counts
    }
}

/// Cleans `buf` in place with [`Counting::Exact`] and returns the counts.
///
/// See the [module docs](self) for the exact semantics.
///
/// ```
/// let mut doc = b"ok \xC0\x80 \xC1\x81".to_vec();
/// let counts = sieve_filters::utf8::clean_in_place(&mut doc);
/// assert_eq!(doc, b"ok    A ");
/// assert_eq!((counts.overlong_nul, counts.overlong_ascii, counts.total()), (1, 1, 2));
/// ```
pub fn clean_in_place(buf: &mut [u8]) -> Utf8Counts {
    clean_in_place_with(buf, Counting::Exact)
}

/// Cleans `buf` in place, counting as `counting` says.
pub fn clean_in_place_with(buf: &mut [u8], counting: Counting) -> Utf8Counts {
    let (counts, extra) = clean_in_place_atire_extra(buf);
    counting.with_extra(counts, extra)
}

/// Cleans `buf` in place, in one pass, and returns the [`Counting::Exact`]
/// counts and the ATIRE extra: what [`Counting::Atire`] would add to
/// `unexpected_continuation` (the leftover bytes of over-long forms). So
/// `clean_in_place_with(buf, Counting::Atire)` equals the exact counts with
/// the extra added to `unexpected_continuation`.
///
/// ```
/// let mut doc = b"\xC1\x81 \xE0\x80\x80 ok".to_vec();
/// let (counts, extra) = sieve_filters::utf8::clean_in_place_atire_extra(&mut doc);
/// assert_eq!((counts.overlong_ascii, counts.overlong_nul, extra), (1, 1, 3));
/// ```
pub fn clean_in_place_atire_extra(buf: &mut [u8]) -> (Utf8Counts, u64) {
    let mut counts = Utf8Counts::default();
    let mut extra = 0;
    engine::run(&mut InPlace(buf), true, &mut counts, &mut extra);
    (counts, extra)
}

/// The counts [`clean_in_place_with`] would return for `buf`, without
/// writing anything.
pub fn count(buf: &[u8], counting: Counting) -> Utf8Counts {
    let mut counts = Utf8Counts::default();
    let mut extra = 0;
    engine::run(&mut ReadOnly(buf), true, &mut counts, &mut extra);
    counting.with_extra(counts, extra)
}

/// [`clean_in_place_with`] on the exact scalar path alone, without the SIMD
/// validator: same output and counts, slower on valid text. For tests and
/// benchmarks that check the two paths agree.
pub fn clean_in_place_scalar(buf: &mut [u8], counting: Counting) -> Utf8Counts {
    let mut counts = Utf8Counts::default();
    let mut extra = 0;
    engine::run_scalar(&mut InPlace(buf), true, &mut counts, &mut extra);
    counting.with_extra(counts, extra)
}

#[cfg(test)]
mod tests;
