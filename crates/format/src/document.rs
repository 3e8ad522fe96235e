//! One document as sieve indexes it, and its conversion to a tantivy
//! document under the [`crate::schema`].

use std::collections::BTreeMap;

use sieve_analysis::{AnalysedText, EnglishAnalyzer};
use sieve_filters::utf8::{ErrorClass, Utf8Counts};
use tantivy::schema::{Field, OwnedValue};
use tantivy::tokenizer::{PreTokenizedString, Token};

use crate::schema::{Fields, NO_SPAM_SCORE};

/// The document type sieve hands to tantivy: one value per field
/// (`IndexWriter<SieveDocument>`). tantivy's own `TantivyDocument` stores a
/// pre-tokenised text by serialising it to JSON when it is added and parses
/// that JSON again in the indexing thread (about 15% of a single-threaded
/// build, measured with `perf`); this type gives tantivy the tokens
/// directly. The body goes further: it is an
/// [`AnalysedText`](sieve_analysis::AnalysedText), one string that
/// tantivy's indexing thread only splits. Indexes are the same
/// either way.
pub type SieveDocument = BTreeMap<Field, OwnedValue>;

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
    /// The WARC-Record-ID, when the docid is another header.
    pub record_id: Option<String>,
    /// The collection's language label, if any.
    pub language: Option<String>,
    /// Length of the record in its (decompressed) input.
    pub record_len: u64,
    /// Gzip input: the member the record starts in.
    pub gz_member: Option<sieve_types::MemberPos>,
    /// CRC-32 of the record's bytes (`sieve_crawl::Span::crc`).
    pub record_crc: Option<u32>,
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
    /// Near-duplicate band keys of the text (`sieve_ingest::dedup::band_keys`);
    /// empty when the text has no word.
    pub minhash: Vec<u64>,
}

impl IndexDoc {
    /// Analyses the title and body with `analyzer` and builds the tantivy
    /// document. The text fields are given to tantivy pre-tokenised, so the
    /// token counts stored in `body_tokens` / `title_tokens` are exactly the
    /// field lengths tantivy records.
    pub fn into_document(self, fields: &Fields, analyzer: &EnglishAnalyzer) -> SieveDocument {
        let mut doc = SieveDocument::new();
        let mut put = |field: Field, value: OwnedValue| {
            doc.insert(field, value);
        };
        put(fields.docid, OwnedValue::Str(self.docid));
        if let Some(url) = self.url {
            put(fields.url, OwnedValue::Str(url));
        }
        let mut title_tokens: Vec<Token> = Vec::new();
        let n_title = analyzer.analyze_into(&self.title, &mut title_tokens);
        let (body, vector, n_body) =
            body_value(&title_tokens, n_title, &self.body, fields, analyzer);
        if let (Some(f), Some(v)) = (fields.body_vector, vector) {
            put(f, v);
        }
        put(
            fields.title,
            OwnedValue::PreTokStr(PreTokenizedString {
                text: self.title,
                tokens: title_tokens,
            }),
        );
        put(fields.body, body);
        put(fields.source, OwnedValue::Str(self.source));
        put(fields.offset, OwnedValue::U64(self.offset));
        if let Some(r) = self.record_id {
            put(fields.record_id, OwnedValue::Str(r));
        }
        if let Some(l) = self.language {
            put(fields.language, OwnedValue::Str(l));
        }
        put(fields.record_len, OwnedValue::U64(self.record_len));
        if let Some(m) = self.gz_member {
            put(fields.gz_member, OwnedValue::U64(m.compressed));
            put(fields.gz_member_start, OwnedValue::U64(m.decompressed));
        }
        if let (Some(f), Some(crc)) = (fields.record_crc, self.record_crc) {
            put(f, OwnedValue::U64(u64::from(crc)));
        }
        put(fields.bytes, OwnedValue::U64(self.bytes));
        for (field, class) in fields.errors.iter().zip(ErrorClass::ALL) {
            put(*field, OwnedValue::U64(self.counts.get(class)));
        }
        put(fields.charset, OwnedValue::Str(self.charset));
        put(fields.charset_source, OwnedValue::U64(self.charset_source));
        put(
            fields.charset_disagree,
            OwnedValue::Bool(self.charset_disagree),
        );
        put(fields.truncated, OwnedValue::Bool(self.truncated));
        put(
            fields.spam,
            OwnedValue::U64(self.spam.map_or(NO_SPAM_SCORE, u64::from)),
        );
        put(fields.atire_extra, OwnedValue::U64(self.atire_extra));
        put(fields.body_tokens, OwnedValue::U64(n_body as u64));
        put(fields.title_tokens, OwnedValue::U64(n_title as u64));
        if !self.minhash.is_empty() {
            put(
                fields.minhash,
                OwnedValue::Array(self.minhash.into_iter().map(OwnedValue::U64).collect()),
            );
        }
        doc
    }
}

/// The body field's value: the title's tokens then the body's, as one
/// pre-analysed string (see sieve_analysis::preanalysed); with it the
/// document's stored term vector when the schema has that field, and the
/// field's token count.
fn body_value(
    title_tokens: &[Token],
    n_title: usize,
    text: &str,
    fields: &Fields,
    analyzer: &EnglishAnalyzer,
) -> (OwnedValue, Option<OwnedValue>, usize) {
    let mut body = AnalysedText::new();
    for t in title_tokens {
        body.push(t.position, &t.text);
    }
    let n_body = n_title + analyzer.analyze_joined(text, &mut body);
    let wants_vector = fields.body_vector.is_some();
    if body.is_exact() {
        let vector =
            wants_vector.then(|| OwnedValue::Bytes(crate::docvector::encode_terms(body.terms())));
        return (OwnedValue::Str(body.into_string()), vector, n_body);
    }
    // Never seen: a term that the string form cannot carry.
    let mut tokens = title_tokens.to_vec();
    analyzer.analyze_into(text, &mut tokens);
    let vector = wants_vector.then(|| {
        let terms = tokens.iter().map(|t| t.text.as_str());
        OwnedValue::Bytes(crate::docvector::encode_terms(terms))
    });
    let value = OwnedValue::PreTokStr(PreTokenizedString {
        text: String::new(),
        tokens,
    });
    (value, vector, n_body)
}
