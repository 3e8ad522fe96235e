//! Lucene's English stop set, `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`.

/// The 33 words of Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET` (the
/// default stop set of Anserini's `DefaultEnglishAnalyzer`), sorted.
/// Matching is exact and case-sensitive; the analyser lowercases first.
pub const LUCENE_ENGLISH_STOPWORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// True when `word` is one of [`LUCENE_ENGLISH_STOPWORDS`].
#[inline]
pub fn is_lucene_stopword(word: &str) -> bool {
    if word.is_empty() || word.len() > 5 {
        return false;
    }
    LUCENE_ENGLISH_STOPWORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_unique_and_33() {
        assert_eq!(LUCENE_ENGLISH_STOPWORDS.len(), 33);
        assert!(LUCENE_ENGLISH_STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(LUCENE_ENGLISH_STOPWORDS.iter().all(|w| w.len() <= 5));
    }

    #[test]
    fn membership() {
        for w in LUCENE_ENGLISH_STOPWORDS {
            assert!(is_lucene_stopword(w), "{w}");
        }
        for w in [
            "", "The", "he", "she", "was ", "thes", "an d", "with1", "would",
        ] {
            assert!(!is_lucene_stopword(w), "{w}");
        }
    }
}
