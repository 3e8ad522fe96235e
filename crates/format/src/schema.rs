//! The index schema: the one module that names index fields.
//!
//! Every other module, in this crate, in `sieve-searcher` and in
//! `sieve-filter`, refers to fields through the constants and the
//! [`Fields`] handles here, never through string literals.
//!
//! | field | type | options | meaning |
//! |---|---|---|---|
//! | `docid` | text | raw (exact), fast (stored up to schema version 4) | the WARC docid header (WARC-TREC-ID, ClueWeb22-ID, WARC-Record-ID, or the one chosen), TREC DOCNO, SMART `.I`, the JSON or TSV id |
//! | `record_id` | text | stored | the WARC-Record-ID, when the docid is another header |
//! | `url` | text | stored | WARC-Target-URI, or the URL line of a TREC `<DOCHDR>`, or the JSON/TSV URL field |
//! | `language` | text | raw, stored, fast | the collection's language label (ClueWeb22's `Language`; a JSON/TSV field), absent if none |
//! | `title` | text | [`ANALYZER_NAME`], freqs, stored | the first `<title>` |
//! | `body` | text | [`ANALYZER_NAME`], freqs | the title, then the visible text, in paragraphs |
//! | `source` | text | raw, stored, fast | the input file the record came from, as given on the command line |
//! | `offset` | u64 | stored | byte offset of the record in the (decompressed) input |
//! | `record_len` | u64 | stored | length of the record in the (decompressed) input (`sieve_crawl::Span::len`) |
//! | `gz_member` | u64 | stored | gzip input: compressed offset of the member the record starts in (absent for plain input) |
//! | `gz_member_start` | u64 | stored | gzip input: decompressed offset where that member's output starts |
//! | `record_crc` | u64 | stored | CRC-32 of the record's decompressed bytes (`sieve_crawl::Span::crc`), which `show` checks before it trusts the source file; absent in indexes of schema version 3 |
//! | `bytes` | u64 | fast | length of the HTTP body (or TREC document) in bytes, before truncation |
//! | `err_*` | u64 | fast | the seven UTF-8 error counts of [`sieve_filters::utf8::ErrorClass`] |
//! | `charset` | text | raw, stored, fast | the WHATWG name of the encoding the body was decoded with |
//! | `charset_source` | u64 | fast | which source decided it (`sieve_text::charset::CharsetSource::code`) |
//! | `charset_disagree` | bool | fast | the declared charsets (HTTP, BOM, meta) disagreed |
//! | `truncated` | bool | fast | the record was longer than the per-record cap and was truncated |
//! | `spam` | u64 | fast | Waterloo spam percentile 0–99 (0 spammiest), or [`NO_SPAM_SCORE`] |
//! | `atire_extra` | u64 | fast | leftover over-long bytes that ATIRE-compatible counting adds to `err_unexpected_continuation` |
//! | `body_tokens` | u64 | fast | exact number of tokens indexed in `body` |
//! | `title_tokens` | u64 | fast | exact number of tokens indexed in `title` |
//! | `minhash` | u64, several per document | fast | the near-duplicate band keys of the text ([`sieve_filters::minhash`], [`crate::dups`]); none for a text without words |
//! | `body_vector` | bytes | stored; only in an index built with `--docvectors` | the document's analysed `body` terms with their frequencies ([`crate::docvector`]) |
//!
//! `body` repeats the title so that a single-field BM25 run sees the whole
//! page, as Anserini's `contents` field does; `title` is indexed on its own
//! for title-only runs.
//!
//! Both text fields are indexed with term frequencies, and with positions
//! only when the build asks for them ([`IndexContents::positions`],
//! `sieve-index build --positions`): bags of words (BM25, query
//! likelihood, feedback) need none, and positions roughly double the
//! postings; proximity (sequential dependence) and phrases need them.
//! [`IndexContents::of_schema`] reads back what an index holds.
//!
//! `body_vector` exists only when the build asks for it
//! ([`IndexContents::docvectors`], `sieve-index build --docvectors`): the
//! terms and frequencies the postings of `body` hold for the document,
//! stored so that pseudo-relevance feedback reads a document's terms in
//! one document-store lookup instead of a pass over the term dictionary.
//!
//! `source`, `offset`, `record_len` and the `gz_member` pair locate the
//! record's bytes in its input (`sieve-index show --raw` reads them back
//! with `sieve_crawl::read_span`). They are stored per document, not
//! numbered against the build's input list, so they stay right when
//! shards with different inputs are merged; the merged manifest lists
//! every shard's inputs with their size and modification time.
//!
//! The exact (raw) text fields, `docid`, `source`, `charset` and
//! `language`, are indexed without fieldnorms (every value is one token;
//! nothing scores them): a byte per document and field saved. `docid` is
//! not stored: its fast field holds it, read by ordinal
//! ([`crate::index::docid_column`]), and the block-max sidecar holds a
//! copy for the searcher; the store's copy cost about 9% of the store.
//!
//! `body_tokens` and `title_tokens` hold the exact field lengths (tantivy's
//! fieldnorms are quantised). They let query-time filtering recompute the
//! total token count over the kept documents exactly, so a filtered run
//! equals a run on an index built without the filtered documents.

use sieve_analysis::{ANALYZER_NAME, AnalyzerConfig, text_analyzer};
use sieve_filters::utf8::{ErrorClass, Utf8Counts};
use tantivy::columnar::Column;
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::store::{Compressor, ZstdCompressor};
use tantivy::{Index, IndexSettings, SegmentReader};

/// Version of this schema, recorded in every index; bump it when a field
/// is added, removed or changes meaning, or when the on-disk encoding
/// changes. 2: fast-field dictionaries are no longer zstd-compressed
/// (sieve builds tantivy without `columnar-zstd-compression`; version-1
/// indexes may hold zstd blocks this build cannot read). 3: `record_id`,
/// `language`, `record_len`, `gz_member`, `gz_member_start`; the `minhash`
/// band keys (near-duplicates). 4: `record_crc`. 5: `docid` no longer
/// stored (read from its fast field), and the exact text fields without
/// fieldnorms. 6: the document store compressed with zstd
/// ([`index_settings`]) instead of LZ4.
pub const SCHEMA_VERSION: u32 = 6;

/// The oldest schema version this sieve still opens: a version-3 index has
/// every field but `record_crc` ([`Fields::record_crc`] is `None`), so
/// `show` can only check its sources' size and modification time; an
/// index of version 3 or 4 also stores `docid` and keeps fieldnorms of the
/// exact text fields, which nothing reads (the docid comes from its fast
/// field in every version).
pub const OLDEST_SCHEMA_VERSION: u32 = 3;

/// The settings of a new index: the document store in blocks of 16 KiB,
/// each compressed with zstd at its default level (3). On the documents'
/// stored fields (title, URL, record id, source, offsets) it takes about
/// 0.7 of LZ4's bytes. The store is compressed on tantivy's own thread as
/// the segment is written; it is read by `show` (and the service's
/// document view), `unique`, `reorder` and a resumed build's segment
/// order, never by scoring. Indexes of schema version
/// 5 and older have LZ4 stores, which this sieve reads as well (the
/// compressor is recorded in `meta.json`).
pub fn index_settings() -> IndexSettings {
    IndexSettings {
        docstore_compression: Compressor::Zstd(ZstdCompressor::default()),
        ..IndexSettings::default()
    }
}

/// Exact document identifier (indexed, fast; stored up to schema version 4).
pub const DOCID: &str = "docid";
/// Target URL (stored).
pub const URL: &str = "url";
/// Title text (analysed, stored).
pub const TITLE: &str = "title";
/// Whole-page text (analysed).
pub const BODY: &str = "body";
/// Input file of the record (stored, fast).
pub const SOURCE: &str = "source";
/// Byte offset of the record in its input (stored).
pub const OFFSET: &str = "offset";
/// Body length in bytes before truncation (fast).
pub const BYTES: &str = "bytes";
/// The WARC-Record-ID when the docid is another header (stored).
pub const RECORD_ID: &str = "record_id";
/// The collection's language label (stored, fast).
pub const LANGUAGE: &str = "language";
/// Length of the record in its decompressed input (stored).
pub const RECORD_LEN: &str = "record_len";
/// Compressed offset of the gzip member the record starts in (stored).
pub const GZ_MEMBER: &str = "gz_member";
/// Decompressed offset where that gzip member's output starts (stored).
pub const GZ_MEMBER_START: &str = "gz_member_start";
/// CRC-32 of the record's bytes (stored).
pub const RECORD_CRC: &str = "record_crc";
/// Encoding name (stored, fast).
pub const CHARSET: &str = "charset";
/// Code of the source that decided the charset (fast).
pub const CHARSET_SOURCE: &str = "charset_source";
/// Whether declared charsets disagreed (fast).
pub const CHARSET_DISAGREE: &str = "charset_disagree";
/// Whether the record was truncated at the per-record cap (fast).
pub const TRUNCATED: &str = "truncated";
/// Spam percentile, or [`NO_SPAM_SCORE`] (fast).
pub const SPAM: &str = "spam";
/// Extra unexpected-continuation count under ATIRE counting (fast).
pub const ATIRE_EXTRA: &str = "atire_extra";
/// Exact token count of `body` (fast).
pub const BODY_TOKENS: &str = "body_tokens";
/// Exact token count of `title` (fast).
pub const TITLE_TOKENS: &str = "title_tokens";
/// Near-duplicate band keys (fast, several values per document).
pub const MINHASH: &str = "minhash";
/// The analysed `body` terms with frequencies (stored bytes, only with
/// `--docvectors`; [`crate::docvector`]).
pub const BODY_VECTOR: &str = "body_vector";

// `extract` records (JSON lines and Parquet columns) name the fields they
// share with the index as above ([`DOCID`], [`URL`], [`SOURCE`],
// [`OFFSET`], [`CHARSET`], [`CHARSET_SOURCE`], [`SPAM`], [`TITLE`]), and
// the rest as below.

/// `extract`: the page's paragraphs, separated by one blank line.
pub const TEXT: &str = "text";
/// `extract`: the seven UTF-8 error counts (an object, or a Parquet group),
/// named by [`ErrorClass::key`].
pub const ERRORS: &str = "errors";
/// `extract --full`: the record's WARC head.
pub const WARC_HEADERS: &str = "warc_headers";
/// `extract --full`: the record's HTTP head.
pub const HTTP_HEADERS: &str = "http_headers";
/// `extract --full`: the page decoded to UTF-8.
pub const HTML: &str = "html";

/// The `spam` value of a document that has no spam score. It is outside
/// 0–99, so a filter must decide explicitly what to do with such documents.
pub const NO_SPAM_SCORE: u64 = 255;

/// Name of the fast field holding the count of one UTF-8 error class:
/// `err_` followed by [`ErrorClass::key`], e.g. `err_invalid_4_5_6`.
pub fn error_field_name(class: ErrorClass) -> &'static str {
    match class {
        ErrorClass::UnexpectedContinuation => "err_unexpected_continuation",
        ErrorClass::MissingContinuation => "err_missing_continuation",
        ErrorClass::Surrogate => "err_surrogate",
        ErrorClass::Invalid456 => "err_invalid_4_5_6",
        ErrorClass::OverlongNul => "err_overlong_nul",
        ErrorClass::OverlongAscii => "err_overlong_ascii",
        ErrorClass::OverlongNonAscii => "err_overlong_non_ascii",
    }
}

/// Which analysed field a query runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TextField {
    /// The whole page (title and visible text).
    #[default]
    Body,
    /// The title only.
    Title,
}

impl TextField {
    /// The field name.
    pub fn name(self) -> &'static str {
        match self {
            TextField::Body => BODY,
            TextField::Title => TITLE,
        }
    }

    /// The fast field holding this field's exact per-document token count.
    pub fn tokens_field(self) -> &'static str {
        match self {
            TextField::Body => BODY_TOKENS,
            TextField::Title => TITLE_TOKENS,
        }
    }
}

/// Handles to every field of the schema.
#[derive(Debug, Clone)]
pub struct Fields {
    /// See [`DOCID`].
    pub docid: Field,
    /// See [`URL`].
    pub url: Field,
    /// See [`TITLE`].
    pub title: Field,
    /// See [`BODY`].
    pub body: Field,
    /// See [`SOURCE`].
    pub source: Field,
    /// See [`OFFSET`].
    pub offset: Field,
    /// See [`BYTES`].
    pub bytes: Field,
    /// See [`RECORD_ID`].
    pub record_id: Field,
    /// See [`LANGUAGE`].
    pub language: Field,
    /// See [`RECORD_LEN`].
    pub record_len: Field,
    /// See [`GZ_MEMBER`].
    pub gz_member: Field,
    /// See [`GZ_MEMBER_START`].
    pub gz_member_start: Field,
    /// See [`RECORD_CRC`]; `None` in an index of schema version 3.
    pub record_crc: Option<Field>,
    /// The seven error-count fields, in [`ErrorClass::ALL`] order.
    pub errors: [Field; 7],
    /// See [`CHARSET`].
    pub charset: Field,
    /// See [`CHARSET_SOURCE`].
    pub charset_source: Field,
    /// See [`CHARSET_DISAGREE`].
    pub charset_disagree: Field,
    /// See [`TRUNCATED`].
    pub truncated: Field,
    /// See [`SPAM`].
    pub spam: Field,
    /// [`ATIRE_EXTRA`].
    pub atire_extra: Field,
    /// See [`BODY_TOKENS`].
    pub body_tokens: Field,
    /// See [`TITLE_TOKENS`].
    pub title_tokens: Field,
    /// See [`MINHASH`].
    pub minhash: Field,
    /// See [`BODY_VECTOR`]; `None` in an index built without
    /// `--docvectors`.
    pub body_vector: Option<Field>,
}

impl Fields {
    /// The field handle of an analysed text field.
    pub fn text(&self, field: TextField) -> Field {
        match field {
            TextField::Body => self.body,
            TextField::Title => self.title,
        }
    }

    /// Looks every field up in `schema`. Fails with
    /// [`crate::Error::Schema`] naming the first field that is missing,
    /// which means the index was not built by this version of sieve
    /// ([`RECORD_CRC`] alone may be missing: an index of schema version 3).
    pub fn from_schema(schema: &Schema) -> crate::Result<Fields> {
        let get = |name: &'static str| {
            schema.get_field(name).map_err(|_| crate::Error::Schema {
                expected: name,
                detail: "field missing: not an index built by this version of sieve-index".into(),
            })
        };
        let mut errors = [Field::from_field_id(0); 7];
        for (slot, class) in errors.iter_mut().zip(ErrorClass::ALL) {
            *slot = get(error_field_name(class))?;
        }
        Ok(Fields {
            docid: get(DOCID)?,
            url: get(URL)?,
            title: get(TITLE)?,
            body: get(BODY)?,
            source: get(SOURCE)?,
            offset: get(OFFSET)?,
            bytes: get(BYTES)?,
            record_id: get(RECORD_ID)?,
            language: get(LANGUAGE)?,
            record_len: get(RECORD_LEN)?,
            gz_member: get(GZ_MEMBER)?,
            gz_member_start: get(GZ_MEMBER_START)?,
            record_crc: schema.get_field(RECORD_CRC).ok(),
            errors,
            charset: get(CHARSET)?,
            charset_source: get(CHARSET_SOURCE)?,
            charset_disagree: get(CHARSET_DISAGREE)?,
            truncated: get(TRUNCATED)?,
            spam: get(SPAM)?,
            atire_extra: get(ATIRE_EXTRA)?,
            body_tokens: get(BODY_TOKENS)?,
            title_tokens: get(TITLE_TOKENS)?,
            minhash: get(MINHASH)?,
            body_vector: schema.get_field(BODY_VECTOR).ok(),
        })
    }
}

/// The fast-field columns of one segment that a keep/drop rule
/// ([`sieve_filters::docfilter::Thresholds`]) reads: spam percentile, body
/// length and the seven error counts. Query-time selection and filter-file
/// building both decide documents through it.
pub struct RuleColumns {
    spam: Column<u64>,
    bytes: Column<u64>,
    errors: Vec<Column<u64>>,
}

impl RuleColumns {
    /// Opens the columns of `segment`.
    pub fn open(segment: &SegmentReader) -> tantivy::Result<RuleColumns> {
        let ff = segment.fast_fields();
        Ok(RuleColumns {
            spam: ff.u64(SPAM)?,
            bytes: ff.u64(BYTES)?,
            errors: ErrorClass::ALL
                .iter()
                .map(|c| ff.u64(error_field_name(*c)))
                .collect::<tantivy::Result<_>>()?,
        })
    }

    /// The stored spam percentile of `doc`, `None` if it has none
    /// ([`NO_SPAM_SCORE`]).
    pub fn spam(&self, doc: u32) -> Option<u8> {
        let p = self.spam.first(doc).unwrap_or(NO_SPAM_SCORE);
        (p != NO_SPAM_SCORE).then_some(p as u8)
    }

    /// The body length of `doc` in bytes.
    pub fn bytes(&self, doc: u32) -> u64 {
        self.bytes.first(doc).unwrap_or(0)
    }

    /// The seven error counts of `doc`.
    pub fn counts(&self, doc: u32) -> Utf8Counts {
        let mut counts = Utf8Counts::default();
        for (col, class) in self.errors.iter().zip(ErrorClass::ALL) {
            *counts.get_mut(class) = col.first(doc).unwrap_or(0);
        }
        counts
    }
}

/// What an index keeps beyond what a bag-of-words model needs, chosen at
/// build time and recorded in the manifest (`sieve.json`) and the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexContents {
    /// Term positions in the postings of `title` and `body`, for proximity
    /// models and phrases.
    pub positions: bool,
    /// Each document's analysed `body` terms with their frequencies, in
    /// the stored field [`BODY_VECTOR`], for feedback.
    pub docvectors: bool,
}

impl IndexContents {
    /// What the index of `schema` holds (its text fields' indexing).
    pub fn of_schema(schema: &Schema) -> IndexContents {
        let positions = schema
            .get_field(BODY)
            .ok()
            .and_then(|f| match schema.get_field_entry(f).field_type() {
                tantivy::schema::FieldType::Str(o) => {
                    o.get_indexing_options().map(|i| i.index_option())
                }
                _ => None,
            })
            .is_some_and(|o| o.has_positions());
        IndexContents {
            positions,
            docvectors: schema.get_field(BODY_VECTOR).is_ok(),
        }
    }
}

/// Builds the schema described in the module docs, with every optional
/// part left out (an index as `sieve-index build` makes by default).
pub fn build_schema() -> Schema {
    build_schema_with(IndexContents::default())
}

/// Builds the schema described in the module docs, with the optional
/// parts `contents` asks for.
pub fn build_schema_with(contents: IndexContents) -> Schema {
    let mut b = Schema::builder();
    let option = if contents.positions {
        IndexRecordOption::WithFreqsAndPositions
    } else {
        IndexRecordOption::WithFreqs
    };
    let analysed = |stored: bool| {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(ANALYZER_NAME)
            .set_index_option(option);
        let options = TextOptions::default().set_indexing_options(indexing);
        if stored {
            options.set_stored()
        } else {
            options
        }
    };
    b.add_text_field(DOCID, exact() | FAST);
    b.add_text_field(URL, STORED);
    b.add_text_field(TITLE, analysed(true));
    b.add_text_field(BODY, analysed(false));
    b.add_text_field(SOURCE, exact() | STORED | FAST);
    b.add_u64_field(OFFSET, STORED);
    b.add_u64_field(BYTES, FAST);
    for class in ErrorClass::ALL {
        b.add_u64_field(error_field_name(class), FAST);
    }
    b.add_text_field(CHARSET, exact() | STORED | FAST);
    b.add_u64_field(CHARSET_SOURCE, FAST);
    b.add_bool_field(CHARSET_DISAGREE, FAST);
    b.add_bool_field(TRUNCATED, FAST);
    b.add_u64_field(SPAM, FAST);
    b.add_u64_field(ATIRE_EXTRA, FAST);
    b.add_u64_field(BODY_TOKENS, FAST);
    b.add_u64_field(TITLE_TOKENS, FAST);
    b.add_text_field(RECORD_ID, STORED);
    b.add_text_field(LANGUAGE, exact() | STORED | FAST);
    b.add_u64_field(RECORD_LEN, STORED);
    b.add_u64_field(GZ_MEMBER, STORED);
    b.add_u64_field(GZ_MEMBER_START, STORED);
    b.add_u64_field(MINHASH, FAST);
    b.add_u64_field(RECORD_CRC, STORED);
    if contents.docvectors {
        b.add_bytes_field(BODY_VECTOR, STORED);
    }
    b.build()
}

/// An exact text field: one raw token per value, indexed without term
/// frequencies or fieldnorms (tantivy's `STRING` keeps fieldnorms).
fn exact() -> TextOptions {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer("raw")
        .set_index_option(IndexRecordOption::Basic)
        .set_fieldnorms(false);
    TextOptions::default().set_indexing_options(indexing)
}

/// Registers the analyser named by the text fields on `index`, configured
/// as the index was built. Call it on every index sieve creates or opens,
/// before indexing or parsing queries.
pub fn register_analyzers(index: &Index, config: AnalyzerConfig) {
    index
        .tokenizers()
        .register(ANALYZER_NAME, text_analyzer(config));
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::schema::STRING;

    #[test]
    fn every_field_resolves_and_names_are_unique() {
        let schema = build_schema();
        let fields = Fields::from_schema(&schema).expect("fields");
        let mut names: Vec<&str> = schema.fields().map(|(_, entry)| entry.name()).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate field names");
        assert_eq!(schema.get_field_name(fields.docid), DOCID);
        assert_eq!(schema.get_field_name(fields.errors[3]), "err_invalid_4_5_6");
    }

    #[test]
    fn exact_fields_keep_no_fieldnorms_and_the_docid_is_not_stored() {
        use tantivy::schema::FieldType;
        let schema = build_schema();
        for name in [DOCID, SOURCE, CHARSET, LANGUAGE] {
            let entry = schema.get_field_entry(schema.get_field(name).unwrap());
            let FieldType::Str(o) = entry.field_type() else {
                panic!("{name} is not text");
            };
            let indexing = o.get_indexing_options().expect("indexed");
            assert!(!indexing.fieldnorms(), "{name} keeps fieldnorms");
            assert!(o.is_fast(), "{name} is not fast");
            assert_eq!(entry.is_stored(), name != DOCID, "{name} stored");
            // Apart from fieldnorms and storing, what STRING | FAST is.
            let string = STRING | FAST;
            let want = string.get_indexing_options().unwrap();
            assert_eq!(indexing.tokenizer(), want.tokenizer(), "{name}");
            assert_eq!(indexing.index_option(), want.index_option(), "{name}");
            assert_eq!(
                o.get_fast_field_tokenizer_name(),
                string.get_fast_field_tokenizer_name()
            );
        }
    }

    #[test]
    fn error_field_names_follow_class_keys() {
        for class in ErrorClass::ALL {
            assert_eq!(error_field_name(class), format!("err_{}", class.key()));
        }
    }

    #[test]
    fn missing_field_is_reported_by_name() {
        let mut b = Schema::builder();
        b.add_text_field(DOCID, STRING);
        let err = Fields::from_schema(&b.build()).unwrap_err();
        assert!(
            err.to_string().contains("err_unexpected_continuation"),
            "{err}"
        );
    }
}
