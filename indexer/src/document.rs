//! One document as sieve indexes it, and its conversion to a tantivy
//! document under the [`crate::schema`].

use sieve_filters::utf8::{ErrorClass, Utf8Counts};
use tantivy::TantivyDocument;
use tantivy::tokenizer::{PreTokenizedString, Token};

use crate::analysis::EnglishAnalyzer;
use crate::schema::{Fields, NO_SPAM_SCORE};

/// Everything sieve stores about one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexDoc {
    /// Exact document id (WARC-TREC-ID, WARC-Record-ID or DOCNO).
    pub docid: String,
    /// Target URL, if known.
    pub url: Option<String>,
    /// Title text.
    pub title: String,
    /// Visible text, in paragraphs (without the title; [`IndexDoc::into_document`]
    /// indexes the title at the start of the `body` field).
    pub body: String,
    /// The input file, as given on the command line.
    pub source: String,
    /// Byte offset of the record in the (decompressed) input.
    pub offset: u64,
    /// Body length in bytes before truncation.
    pub bytes: u64,
    /// UTF-8 error counts of the body.
    pub counts: Utf8Counts,
    /// WHATWG name of the encoding the body was decoded with.
    pub charset: String,
    /// Code of the source that decided the charset.
    pub charset_source: u64,
    /// The declared charsets disagreed.
    pub charset_disagree: bool,
    /// The record was truncated at the per-record cap.
    pub truncated: bool,
    /// Spam percentile 0–99, if the document has a score.
    pub spam: Option<u8>,
    /// Extra unexpected-continuation counts under ATIRE counting (the
    /// leftover bytes of over-long forms).
    pub atire_extra: u64,
}

impl IndexDoc {
    /// Analyses the title and body with `analyzer` and builds the tantivy
    /// document. The text fields are given to tantivy pre-tokenised, so the
    /// token counts stored in `body_tokens` / `title_tokens` are exactly the
    /// field lengths tantivy records.
    pub fn into_document(self, fields: &Fields, analyzer: &EnglishAnalyzer) -> TantivyDocument {
        let mut doc = TantivyDocument::default();
        doc.add_text(fields.docid, &self.docid);
        if let Some(url) = &self.url {
            doc.add_text(fields.url, url);
        }
        let mut title_tokens: Vec<Token> = Vec::new();
        let n_title = analyzer.analyze_into(&self.title, &mut title_tokens);
        // The body field starts with the title's tokens, then the body's.
        let mut body_tokens = title_tokens.clone();
        let n_body = n_title + analyzer.analyze_into(&self.body, &mut body_tokens);
        doc.add_pre_tokenized_text(
            fields.title,
            PreTokenizedString {
                text: self.title,
                tokens: title_tokens,
            },
        );
        doc.add_pre_tokenized_text(
            fields.body,
            PreTokenizedString {
                text: String::new(),
                tokens: body_tokens,
            },
        );
        doc.add_text(fields.source, &self.source);
        doc.add_u64(fields.offset, self.offset);
        doc.add_u64(fields.bytes, self.bytes);
        for (field, class) in fields.errors.iter().zip(ErrorClass::ALL) {
            doc.add_u64(*field, self.counts.get(class));
        }
        doc.add_text(fields.charset, &self.charset);
        doc.add_u64(fields.charset_source, self.charset_source);
        doc.add_bool(fields.charset_disagree, self.charset_disagree);
        doc.add_bool(fields.truncated, self.truncated);
        doc.add_u64(fields.spam, self.spam.map_or(NO_SPAM_SCORE, u64::from));
        doc.add_u64(fields.atire_extra, self.atire_extra);
        doc.add_u64(fields.body_tokens, n_body as u64);
        doc.add_u64(fields.title_tokens, n_title as u64);
        doc
    }
}
