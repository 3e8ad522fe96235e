//! The English analyser: the tokenizer's segments normalised (possessive,
//! lower case, stop words, Porter) into terms, with a per-thread cache of
//! terms; as a list of tokens, as terms, or as tantivy's token stream.

use tantivy::tokenizer::{MAX_TOKEN_LEN, TextAnalyzer, Token, TokenStream};

use crate::cache;
use crate::config::{AnalyzerConfig, Stemmer, Stopwords};
use crate::porter;
use crate::preanalysed::{AnalysedText, SplitStream};
use crate::stopwords::is_lucene_stopword;
use crate::tokenizer::{Raw, Segments};

/// The English analyser (see the [crate docs](crate) for the exact pipeline).
///
/// Cheap to clone; holds no buffers.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnglishAnalyzer {
    config: AnalyzerConfig,
}

/// Per-stream scratch space, reused across tokens.
#[derive(Default)]
struct Scratch {
    ascii: Vec<u8>,
    utf16: Vec<u16>,
}

impl EnglishAnalyzer {
    /// An analyser with the given configuration.
    pub fn new(config: AnalyzerConfig) -> Self {
        EnglishAnalyzer { config }
    }

    /// The configuration.
    pub fn config(&self) -> AnalyzerConfig {
        self.config
    }

    /// Appends the tokens of `text` to `out` and returns how many it appended.
    ///
    /// Positions continue from `out`'s last position + 1 (from 0 when `out`
    /// is empty); a removed stop word leaves a gap of one position. Offsets
    /// are byte offsets into `text`. Tokens longer than tantivy's
    /// [`MAX_TOKEN_LEN`] (65530 bytes) are never emitted (with 255-unit
    /// tokens none can be). The returned count is the exact field length
    /// (fieldnorm contribution) tantivy will see for this text.
    pub fn analyze_into(&self, text: &str, out: &mut Vec<Token>) -> usize {
        let base = out.last().map_or(0, |t| t.position + 1);
        let before = out.len();
        self.for_each_term(text, |raw, term| {
            out.push(Token {
                offset_from: raw.from,
                offset_to: raw.to,
                position: base + raw.position,
                text: term.to_string(),
                position_length: 1,
            });
        });
        out.len() - before
    }

    /// Appends the terms of `text` to `out`, with the positions
    /// [`analyze_into`](Self::analyze_into) gives them (continuing from
    /// `out`'s [`next_position`](AnalysedText::next_position)), and returns
    /// how many it appended. No allocation per token.
    pub fn analyze_joined(&self, text: &str, out: &mut AnalysedText) -> usize {
        let base = out.next_position();
        let before = out.tokens();
        self.for_each_term(text, |raw, term| out.push(base + raw.position, term));
        out.tokens() - before
    }

    /// The analysed terms of a query string, in order (duplicates kept).
    /// Equal to the texts of the tokens [`EnglishAnalyzer::analyze_into`]
    /// produces for `text`.
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut terms = Vec::new();
        self.for_each_term(text, |_, term| terms.push(term.to_string()));
        terms
    }

    /// Calls `emit` with each raw token of `text` that is kept and its term,
    /// in order. Terms of short tokens come from this thread's cache
    /// ([`cache`]) once computed.
    fn for_each_term(&self, text: &str, mut emit: impl FnMut(Raw, &str)) {
        let mut segments = Segments::new(text);
        let mut scratch = Scratch::default();
        let mut term = String::new();
        cache::with_cache(self.config, |cache| {
            while let Some(raw) = segments.next_raw() {
                let token = &text[raw.from..raw.to];
                if let Some(cached) = cache.get(token) {
                    if !cached.is_empty() {
                        emit(raw, cached);
                    }
                    continue;
                }
                let keep = self.normalize(token, &mut term, &mut scratch);
                cache.insert(token, if keep { &term } else { "" });
                if keep {
                    emit(raw, &term);
                }
            }
        });
    }

    /// Possessive, lowercase, stop, stem `raw` into `term` (cleared first).
    /// Returns false when the token is dropped.
    fn normalize(&self, raw: &str, term: &mut String, scratch: &mut Scratch) -> bool {
        term.clear();
        let raw = strip_possessive(raw);
        lowercase_into(raw, term);
        if term.is_empty() || term.len() > MAX_TOKEN_LEN {
            return false;
        }
        if self.config.stopwords == Stopwords::Lucene && is_lucene_stopword(term) {
            return false;
        }
        if self.config.stemmer == Stemmer::Porter {
            stem_in_place(term, scratch);
        }
        !term.is_empty()
    }
}

/// Lucene's `EnglishPossessiveFilter`: drops a final `'s`, `’s` or `＇s`
/// (`s` or `S`).
fn strip_possessive(s: &str) -> &str {
    let Some(rest) = s.strip_suffix(['s', 'S']) else {
        return s;
    };
    rest.strip_suffix(['\'', '\u{2019}', '\u{FF07}'])
        .unwrap_or(s)
}

/// Lucene's `LowerCaseFilter` (Java `Character.toLowerCase` per code point).
fn lowercase_into(s: &str, out: &mut String) {
    if s.is_ascii() {
        out.extend(s.bytes().map(|b| b.to_ascii_lowercase() as char));
        return;
    }
    for c in s.chars() {
        if c == '\u{130}' {
            // Java's simple mapping; Rust's full mapping gives "i\u{307}".
            out.push('i');
        } else {
            out.extend(c.to_lowercase());
        }
    }
}

/// Porter-stems `term` in place.
fn stem_in_place(term: &mut String, scratch: &mut Scratch) {
    if term.len() < 3 {
        return;
    }
    if term.is_ascii() {
        scratch.ascii.clear();
        scratch.ascii.extend_from_slice(term.as_bytes());
        let n = porter::stem_units(&mut scratch.ascii);
        // The stem is a prefix of the word followed by ASCII letters: keep
        // the common prefix and push the changed tail.
        let same = term
            .as_bytes()
            .iter()
            .zip(&scratch.ascii[..n])
            .take_while(|(a, b)| a == b)
            .count();
        term.truncate(same);
        term.extend(scratch.ascii[same..n].iter().map(|&b| b as char));
    } else {
        scratch.utf16.clear();
        scratch.utf16.extend(term.encode_utf16());
        let n = porter::stem_units(&mut scratch.utf16);
        term.clear();
        // The stemmer never splits a surrogate pair (see `porter` docs).
        term.extend(
            char::decode_utf16(scratch.utf16[..n].iter().copied())
                .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER)),
        );
    }
}

/// The token stream of [`EnglishAnalyzer`] as a tantivy [`Tokenizer`](tantivy::tokenizer::Tokenizer).
/// Produces exactly the tokens of [`EnglishAnalyzer::analyze_into`] on an
/// empty vector; a text that starts with the marker of an
/// [`AnalysedText`] is split, not analysed again.
pub struct EnglishTokenStream<'a> {
    inner: StreamKind<'a>,
}

enum StreamKind<'a> {
    Analyse {
        analyzer: EnglishAnalyzer,
        text: &'a str,
        segments: Segments<'a>,
        scratch: Scratch,
        token: Token,
    },
    Split(SplitStream<'a>),
}

impl TokenStream for EnglishTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let (analyzer, text, segments, scratch, token) = match &mut self.inner {
            StreamKind::Split(s) => return s.advance(),
            StreamKind::Analyse {
                analyzer,
                text,
                segments,
                scratch,
                token,
            } => (analyzer, text, segments, scratch, token),
        };
        while let Some(raw) = segments.next_raw() {
            let mut term = std::mem::take(&mut token.text);
            let keep = analyzer.normalize(&text[raw.from..raw.to], &mut term, scratch);
            token.text = term;
            if keep {
                token.offset_from = raw.from;
                token.offset_to = raw.to;
                token.position = raw.position;
                token.position_length = 1;
                return true;
            }
        }
        false
    }

    fn token(&self) -> &Token {
        match &self.inner {
            StreamKind::Analyse { token, .. } => token,
            StreamKind::Split(s) => s.token(),
        }
    }

    fn token_mut(&mut self) -> &mut Token {
        match &mut self.inner {
            StreamKind::Analyse { token, .. } => token,
            StreamKind::Split(s) => s.token_mut(),
        }
    }
}

impl tantivy::tokenizer::Tokenizer for EnglishAnalyzer {
    type TokenStream<'a> = EnglishTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> EnglishTokenStream<'a> {
        let inner = match SplitStream::new(text) {
            Some(split) => StreamKind::Split(split),
            None => StreamKind::Analyse {
                analyzer: *self,
                text,
                segments: Segments::new(text),
                scratch: Scratch::default(),
                token: Token::default(),
            },
        };
        EnglishTokenStream { inner }
    }
}

/// A tantivy [`TextAnalyzer`] running [`EnglishAnalyzer`] with `config`;
/// register it under [`ANALYZER_NAME`](crate::ANALYZER_NAME).
pub fn text_analyzer(config: AnalyzerConfig) -> TextAnalyzer {
    TextAnalyzer::from(EnglishAnalyzer::new(config))
}
