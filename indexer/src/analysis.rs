//! TEMPORARY stand-in on main until the real analyser lands from branch `analysis`.
#![allow(missing_docs)]
use tantivy::tokenizer::{LowerCaser, SimpleTokenizer, TextAnalyzer, Token, TokenStream};
pub const ANALYZER_NAME: &str = "sieve_en";
#[derive(Debug, Clone, Copy, Default)]
pub struct AnalyzerConfig {
    _private: (),
}
pub fn text_analyzer(_c: AnalyzerConfig) -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .build()
}
#[derive(Clone)]
pub struct EnglishAnalyzer(TextAnalyzer);
impl EnglishAnalyzer {
    pub fn new(c: AnalyzerConfig) -> Self {
        EnglishAnalyzer(text_analyzer(c))
    }
    pub fn analyze_into(&self, text: &str, out: &mut Vec<Token>) -> usize {
        let mut a = self.0.clone();
        let mut s = a.token_stream(text);
        let base = out.last().map(|t| t.position + 1).unwrap_or(0);
        let mut n = 0;
        while s.advance() {
            let mut t = s.token().clone();
            t.position += base;
            out.push(t);
            n += 1;
        }
        n
    }
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut v = Vec::new();
        self.analyze_into(text, &mut v);
        v.into_iter().map(|t| t.text).collect()
    }
}
