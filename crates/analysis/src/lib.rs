//! # sieve-analysis
//!
//! The English analyser used for indexing and for queries: a Rust
//! re-creation of Anserini's `DefaultEnglishAnalyzer` (Lucene).
//!
//! Pipeline, in Lucene's order:
//!
//! 1. **Tokenizer** (`tokenizer`): Unicode UAX#29 word boundaries
//!    (`unicode-segmentation`), keeping the segments that contain a letter or a
//!    digit, like Lucene's `StandardTokenizer` (types ALPHANUM, NUM, IDEOGRAPHIC,
//!    HIRAGANA, KATAKANA, HANGUL, SOUTHEAST_ASIAN). Runs of South-East Asian
//!    (Line_Break = Complex_Context) characters are one token, as in Lucene.
//!    Tokens longer than 255 UTF-16 units are cut into pieces of at most 255
//!    units (Lucene's default `maxTokenLength`, enforced by its scanner buffer).
//! 2. **EnglishPossessiveFilter**: a trailing `'s`, `’s` or `＇s` (also with
//!    `S`) is removed.
//! 3. **LowerCaseFilter**: per code point simple lowercase mapping (as Java's
//!    `Character.toLowerCase`; `İ` U+0130 becomes `i`).
//! 4. **StopFilter** with [`LUCENE_ENGLISH_STOPWORDS`] (33 words), when
//!    [`Stopwords::Lucene`]. A removed stop word still uses up a position, as
//!    in Lucene (position increments), so phrase positions keep their gaps.
//! 5. **PorterStemFilter** (`porter`), when [`Stemmer::Porter`].
//!
//! Offsets are byte offsets of the tokenizer's token in the input (the
//! possessive suffix stays inside the offsets, as in Lucene).
//!
//! Known differences from Lucene (documented, not emulated):
//! * Lucene 9's grammar uses Unicode 9 word-break data; `unicode-segmentation`
//!   uses a newer Unicode version, so rare characters may segment differently.
//! * Emoji sequences (Lucene token type EMOJI) are dropped here, because they
//!   contain no letter or digit.
//! * A segment is kept when any of its characters is alphabetic or numeric in
//!   Rust's sense (`char::is_alphanumeric`); a lone non-decimal number such as
//!   `²` is kept here but dropped by Lucene.
//! * Where a token longer than 255 UTF-16 units is cut, Lucene's scanner
//!   re-matches its rules inside the 255-unit buffer and may cut a few
//!   characters earlier (for example before a trailing `.` or `'`).
//!
//! # Roles
//!
//! From the bottom up (each module uses only those above it):
//! `config` ([`AnalyzerConfig`]: stemmer and stop words),
//! `stopwords` (Lucene's list), `porter` (Porter's stemmer on UTF-8 or
//! UTF-16 units), `tokenizer` (the UAX#29 segments with Lucene's cuts),
//! `preanalysed` ([`AnalysedText`]: a document's terms as one string that
//! tantivy's indexing thread splits), `cache` (the per-thread term cache)
//! and `analyzer` ([`EnglishAnalyzer`], its tantivy token stream and
//! [`text_analyzer`]).
//!
//! ```
//! use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
//! let analyzer = EnglishAnalyzer::new(AnalyzerConfig::default());
//! assert_eq!(analyzer.terms("The Runner's shoes"), ["runner", "shoe"]);
//! ```

mod analyzer;
mod cache;
mod config;
mod porter;
mod preanalysed;
mod stopwords;
mod tokenizer;

pub use analyzer::{EnglishAnalyzer, EnglishTokenStream, text_analyzer};
pub use config::{ANALYZER_NAME, AnalyzerConfig, Stemmer, Stopwords};
pub use preanalysed::AnalysedText;
pub use stopwords::{LUCENE_ENGLISH_STOPWORDS, is_lucene_stopword};

#[cfg(test)]
mod tests;
