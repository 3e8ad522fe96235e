//! The configuration of the analyser: which stemmer, which stop words,
//! and the name it is registered under with tantivy.

/// The name under which [`text_analyzer`](crate::text_analyzer) is registered with tantivy.
pub const ANALYZER_NAME: &str = "sieve_en";

/// Which stemmer the analyser applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stemmer {
    /// Lucene's `PorterStemmer` (Porter's reference algorithm), as in Anserini.
    #[default]
    Porter,
    /// No stemming.
    None,
}

/// Which stop words the analyser removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stopwords {
    /// Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET` (33 words).
    #[default]
    Lucene,
    /// Keep every token.
    None,
}

/// Configuration of an [`EnglishAnalyzer`](crate::EnglishAnalyzer). The default (Porter, Lucene stop
/// words) is Anserini's `DefaultEnglishAnalyzer.newDefaultInstance()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AnalyzerConfig {
    /// The stemmer.
    pub stemmer: Stemmer,
    /// The stop words.
    pub stopwords: Stopwords,
}
