//! Documents back out of an index (`sieve-index show`): for a docid, where
//! its record is (source file, offsets, gzip member), what the index holds
//! about it (record id, URL, language, charset and the source that decided
//! it, the seven UTF-8 error counts, spam percentile), and its title and
//! text, extracted again from the original record; or the record's bytes
//! exactly as they are in the source file.
//!
//! # Where the bytes come from
//!
//! Each document stores its input file (`source`, the path as the build
//! was given it), its decompressed offset and length, and for gzip input
//! the gzip member it starts in (see [`sieve_format::schema`]). The file is looked
//! up in the manifest's input list (a merged index lists every shard's
//! inputs), found at its canonical path or at the path as given, and
//! refused unless its size and modification time are those the manifest
//! recorded ([`Error::SourceChanged`]; [`Error::SourceMissing`] when it is
//! gone). The record is then read with [`sieve_crawl::open_span`] and its
//! CRC-32 compared with the one the build stored (`record_crc`): a file
//! rewritten with the same size and its modification time put back is
//! refused ([`Error::RecordChanged`]) rather than shown as the record. An
//! index of schema version 3 has no checksum: [`Shown::checked`] says that
//! only the size and time were checked. A
//! per-record gzip member (ClueWeb's layout) is decompressed alone; a
//! one-stream gzip file is decompressed from its start up to the record,
//! which costs time in proportion to the record's offset
//! ([`Shown::decompressed_before`] says how many bytes).
//!
//! # The text
//!
//! The body text is not stored in the index. It is extracted again from the
//! record with the options the manifest recorded (docid header, JSON keys,
//! TSV columns, record cap, charset mode, HTML caps), through the same
//! reader, charset decoder, UTF-8 cleaner and HTML extraction as the
//! build; the tests check that the title and the token count agree with
//! what was indexed. The per-document time budget is not applied.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sieve_analysis::EnglishAnalyzer;
use sieve_crawl::{
    CrawlEvent, CrawlOptions, Markup, MemberPos, RawDoc, Span, SpanRead, SpanReader,
};
use sieve_filters::utf8::{Counting, ErrorClass};
use sieve_format::index::{Unfinished, open_index_with};
use sieve_format::manifest::{MANIFEST, Manifest, ManifestOptions, analyzer_config};
use sieve_format::schema::{Fields, error_field_name};
use sieve_text::charset::{CharsetMode, CharsetSource, Decoded, decode, decode_utf8};
use sieve_text::html::{Extracted, HtmlOptions, extract, plain_text};
use tantivy::collector::DocSetCollector;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, IndexReader, TantivyDocument, Term};

pub use crate::pieces::pieces;
use crate::{Error, Result};

/// One document as `show` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// The docid.
    pub docid: String,
    /// The input file, as the build was given it.
    pub source: String,
    /// The file read now (the canonical path, or the path as given).
    pub file: String,
    /// Decompressed offset of the record in the file.
    pub offset: u64,
    /// Length of the record (decompressed bytes).
    pub record_len: u64,
    /// Compressed offset of the gzip member the record starts in.
    pub gz_member: Option<u64>,
    /// Decompressed bytes decoded and dropped to reach the record (0 for a
    /// per-record gzip member or a plain file; the record's offset for a
    /// one-stream gzip file).
    pub decompressed_before: u64,
    /// The WARC-Record-ID, when the docid is another header.
    pub record_id: Option<String>,
    /// The URL.
    pub url: Option<String>,
    /// The collection's language label.
    pub language: Option<String>,
    /// The encoding the body was decoded with.
    pub charset: String,
    /// The source that decided it (`http_header`, `bom`, `meta`, ...).
    pub charset_source: String,
    /// The declared charsets disagreed.
    pub charset_disagree: bool,
    /// The seven UTF-8 error counts, by class key.
    pub utf8_errors: Vec<(String, u64)>,
    /// Spam percentile (0 spammiest), if the document has one.
    pub spam: Option<u64>,
    /// The title, extracted again from the record.
    pub title: String,
    /// The text, extracted again from the record (paragraphs on lines).
    pub text: String,
    /// Tokens of the title and text as analysed again (the index holds
    /// `body_tokens`: equal unless the build hit its time budget).
    pub tokens: u64,
    /// `body_tokens` as stored in the index.
    pub indexed_tokens: u64,
    /// What was checked before the record was trusted ([`Checked::text`]).
    pub checked: String,
}

/// What `show` checked of a record before trusting it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    /// The file's size and modification time, and the record's CRC-32.
    Crc(u32),
    /// The file's size and modification time only (the index stores no
    /// checksum for the record: schema version 3).
    SizeAndTime,
}

impl Checked {
    /// How `show` says it.
    pub fn text(self) -> String {
        match self {
            Checked::Crc(c) => {
                format!("source size and modification time, and the record's CRC-32 {c:08x}")
            }
            Checked::SizeAndTime => "only the source's size and modification time \
                 (the index stores no checksum of the record: built before sieve stored one)"
                .to_string(),
        }
    }
}

/// One record read back: its bytes (checked), where they came from, and
/// what was checked.
struct Record {
    doc: TantivyDocument,
    bytes: Vec<u8>,
    info: SpanRead,
    file: PathBuf,
    source: String,
    checked: Checked,
}

/// An index opened for `show`.
pub struct ShowIndex {
    dir: PathBuf,
    manifest: Manifest,
    reader: IndexReader,
    fields: Fields,
    analyzer: EnglishAnalyzer,
}

fn u64_of(doc: &TantivyDocument, f: tantivy::schema::Field) -> Option<u64> {
    doc.get_first(f).and_then(|v| v.as_u64())
}

fn str_of(doc: &TantivyDocument, f: tantivy::schema::Field) -> Option<String> {
    doc.get_first(f)
        .and_then(|v| v.as_str())
        .map(str::to_string)
}

impl ShowIndex {
    /// Opens the index in `dir` (one whose build did not finish as
    /// `unfinished` says).
    pub fn open(dir: &Path, unfinished: Unfinished) -> Result<ShowIndex> {
        let (index, manifest) = open_index_with(dir, unfinished)?;
        let fields = Fields::from_schema(&index.schema())?;
        let reader = index.reader()?;
        let analyzer = EnglishAnalyzer::new(analyzer_config(&manifest));
        Ok(ShowIndex {
            dir: dir.to_path_buf(),
            manifest,
            reader,
            fields,
            analyzer,
        })
    }

    /// The manifest of the index.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The analyser of the index.
    pub fn analyzer(&self) -> &EnglishAnalyzer {
        &self.analyzer
    }

    /// The analysed terms of `query`, as the index analyses text.
    pub fn query_terms(&self, query: &str) -> HashSet<String> {
        self.analyzer.terms(query).into_iter().collect()
    }

    /// The documents with `docid`, in index order ([`Error::NoSuchDocid`]
    /// if none).
    fn find(&self, docid: &str) -> Result<Vec<DocAddress>> {
        let searcher = self.reader.searcher();
        let q = TermQuery::new(
            Term::from_field_text(self.fields.docid, docid),
            IndexRecordOption::Basic,
        );
        let mut found: Vec<DocAddress> =
            searcher.search(&q, &DocSetCollector)?.into_iter().collect();
        found.sort();
        if found.is_empty() {
            return Err(Error::NoSuchDocid {
                index: self.dir.clone(),
                docid: docid.to_string(),
            });
        }
        Ok(found)
    }

    /// The stored document and the span of its record.
    fn stored(&self, addr: DocAddress) -> Result<(TantivyDocument, Span, String)> {
        let doc: TantivyDocument = self.reader.searcher().doc(addr)?;
        let source = str_of(&doc, self.fields.source).unwrap_or_default();
        let member = u64_of(&doc, self.fields.gz_member).map(|compressed| MemberPos {
            compressed,
            decompressed: u64_of(&doc, self.fields.gz_member_start).unwrap_or(0),
        });
        let span = Span {
            offset: u64_of(&doc, self.fields.offset).unwrap_or(0),
            len: u64_of(&doc, self.fields.record_len).unwrap_or(0),
            member,
            crc: self
                .fields
                .record_crc
                .and_then(|f| u64_of(&doc, f))
                .and_then(|c| u32::try_from(c).ok()),
        };
        Ok((doc, span, source))
    }

    /// The file `source` (as the build named it) is now, if it is
    /// unchanged; the error names what moved or changed.
    pub fn locate(&self, docid: &str, source: &str) -> Result<PathBuf> {
        let infos: Vec<_> = self
            .manifest
            .inputs
            .iter()
            .filter(|i| i.path == source)
            .collect();
        if infos.is_empty() {
            return Err(Error::Input {
                path: self.dir.join(MANIFEST),
                detail: format!("lists no input {source} (document {docid})"),
            });
        }
        let mut tried = Vec::new();
        let mut changed = None;
        for info in infos {
            let mut candidates = Vec::new();
            if let Some(c) = &info.canonical {
                candidates.push(c.clone());
            }
            if !candidates.contains(&info.path) {
                candidates.push(info.path.clone());
            }
            for c in candidates {
                let p = PathBuf::from(&c);
                match sieve_format::manifest::input_info(&p) {
                    Ok(now) if now.size == info.size && now.mtime == info.mtime => return Ok(p),
                    Ok(now) => {
                        changed.get_or_insert(Error::SourceChanged {
                            docid: docid.to_string(),
                            path: c.clone(),
                            expected_size: info.size,
                            expected_mtime: info.mtime,
                            found_size: now.size,
                            found_mtime: now.mtime,
                        });
                    }
                    Err(_) => {}
                }
                if !tried.contains(&c) {
                    tried.push(c);
                }
            }
        }
        Err(changed.unwrap_or(Error::SourceMissing {
            docid: docid.to_string(),
            path: source.to_string(),
            tried,
        }))
    }

    /// Reads the record of the document at `addr` and checks it against
    /// the CRC-32 the build stored ([`Error::RecordChanged`] if it differs).
    fn read_record(&self, docid: &str, addr: DocAddress) -> Result<Record> {
        let (doc, span, source) = self.stored(addr)?;
        let file = self.locate(docid, &source)?;
        let mut reader: SpanReader = sieve_crawl::open_span(&file, &span)?;
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(|source| Error::Io {
            path: file.clone(),
            source,
        })?;
        let checked = match span.crc {
            None => Checked::SizeAndTime,
            Some(expected) => {
                let found = crc32fast::hash(&bytes);
                if found != expected {
                    return Err(Error::RecordChanged {
                        docid: docid.to_string(),
                        path: file,
                        offset: span.offset,
                        len: span.len,
                        expected,
                        found,
                    });
                }
                Checked::Crc(expected)
            }
        };
        Ok(Record {
            doc,
            bytes,
            info: reader.info(),
            file,
            source,
            checked,
        })
    }

    /// Writes the original bytes of every record with `docid` to `out`, in
    /// index order, each checked before any is written; returns what
    /// reading each cost and what was checked.
    pub fn raw(&self, docid: &str, out: &mut dyn Write) -> Result<Vec<(SpanRead, Checked)>> {
        let records = self
            .find(docid)?
            .into_iter()
            .map(|addr| self.read_record(docid, addr))
            .collect::<Result<Vec<_>>>()?;
        let mut reads = Vec::new();
        for r in records {
            out.write_all(&r.bytes).map_err(|source| Error::Io {
                path: r.file.clone(),
                source,
            })?;
            reads.push((r.info, r.checked));
        }
        Ok(reads)
    }

    /// Every document with `docid`, in index order, with its text
    /// extracted again from its record.
    pub fn show(&self, docid: &str) -> Result<Vec<Shown>> {
        let mut shown = Vec::new();
        for addr in self.find(docid)? {
            shown.push(self.show_one(docid, addr)?);
        }
        Ok(shown)
    }

    /// The document at `addr` (with `docid`): its record read again,
    /// checked, its text extracted again, and what the index holds.
    fn show_one(&self, docid: &str, addr: DocAddress) -> Result<Shown> {
        let mut record = self.read_record(docid, addr)?;
        let raw = self.reread(docid, &mut record)?;
        let text = self.extract_again(raw);
        let mut scratch = Vec::new();
        let tokens = self.analyzer.analyze_into(&text.title, &mut scratch)
            + self.analyzer.analyze_into(&text.body, &mut scratch);
        let fast = self.fast_facts(addr);
        let Record {
            doc,
            info,
            file,
            source,
            checked,
            ..
        } = record;
        Ok(Shown {
            docid: docid.to_string(),
            source,
            file: file.to_string_lossy().into_owned(),
            offset: info_offset(&doc, &self.fields),
            record_len: info.len,
            gz_member: info.member.map(|m| m.compressed).or(info.compressed_from),
            decompressed_before: info.skipped,
            record_id: str_of(&doc, self.fields.record_id),
            url: str_of(&doc, self.fields.url),
            language: str_of(&doc, self.fields.language),
            charset: str_of(&doc, self.fields.charset).unwrap_or_default(),
            charset_source: fast.charset_source,
            charset_disagree: fast.charset_disagree,
            utf8_errors: fast.utf8_errors,
            spam: fast.spam,
            title: text.title,
            text: text.body,
            tokens: tokens as u64,
            indexed_tokens: fast.indexed_tokens,
            checked: checked.text(),
        })
    }

    /// The document `docid` of `record`, read again from its bytes (taken
    /// out of it) as its file is read (the format detected from the
    /// file's start), with the build's reading options.
    fn reread(&self, docid: &str, record: &mut Record) -> Result<RawDoc> {
        let opts = crawl_options(&self.manifest.options);
        let format = sieve_crawl::open(&record.file, &opts)?.format();
        let events = sieve_crawl::from_reader_as(
            &record.file.to_string_lossy(),
            std::io::Cursor::new(std::mem::take(&mut record.bytes)),
            &opts,
            format,
        )?;
        for ev in events {
            match ev? {
                CrawlEvent::Doc(d) if d.docid == docid => return Ok(d),
                _ => {}
            }
        }
        Err(Error::Input {
            path: record.file.clone(),
            detail: format!(
                "the record at offset {} ({} bytes) no longer reads as document {docid}",
                info_offset(&record.doc, &self.fields),
                record.info.len
            ),
        })
    }

    /// The title and text of `raw`, decoded and extracted again with the
    /// build's charset mode and HTML caps (no time budget).
    fn extract_again(&self, raw: RawDoc) -> Extracted {
        let o = &self.manifest.options;
        let mode = if o.charset == "utf8" {
            CharsetMode::ForceUtf8
        } else {
            CharsetMode::Auto
        };
        let decoded: Decoded = if raw.utf8 {
            decode_utf8(raw.body, mode, Counting::Exact)
        } else {
            decode(
                raw.body,
                raw.http_charset.as_deref(),
                raw.url.as_deref(),
                mode,
                Counting::Exact,
            )
        };
        let html = HtmlOptions {
            max_depth: o.max_html_depth,
            max_text_bytes: o.max_text_bytes,
        };
        match raw.markup {
            Markup::Html => extract(&decoded.text, &html),
            Markup::Text => plain_text(&decoded.text, &html),
        }
    }

    /// What the fast fields hold about the document at `addr`.
    fn fast_facts(&self, addr: DocAddress) -> FastFacts {
        let ff = self
            .reader
            .searcher()
            .segment_reader(addr.segment_ord)
            .fast_fields()
            .clone();
        let fast = |name: &str| -> Option<u64> { ff.u64(name).ok()?.first(addr.doc_id) };
        let code = fast(sieve_format::schema::CHARSET_SOURCE).unwrap_or(0);
        let charset_disagree = ff
            .bool(sieve_format::schema::CHARSET_DISAGREE)
            .ok()
            .and_then(|c| c.first(addr.doc_id))
            .unwrap_or(false);
        let spam =
            fast(sieve_format::schema::SPAM).filter(|&s| s != sieve_format::schema::NO_SPAM_SCORE);
        let utf8_errors = ErrorClass::ALL
            .iter()
            .map(|c| (c.key().to_string(), fast(error_field_name(*c)).unwrap_or(0)))
            .collect();
        FastFacts {
            charset_source: CharsetSource::from_code(code)
                .map_or_else(|| format!("unknown ({code})"), |s| s.key().to_string()),
            charset_disagree,
            spam,
            utf8_errors,
            indexed_tokens: fast(sieve_format::schema::BODY_TOKENS).unwrap_or(0),
        }
    }
}

/// What the fast fields of a document hold, as [`Shown`] says it.
struct FastFacts {
    charset_source: String,
    charset_disagree: bool,
    spam: Option<u64>,
    utf8_errors: Vec<(String, u64)>,
    indexed_tokens: u64,
}

fn info_offset(doc: &TantivyDocument, fields: &Fields) -> u64 {
    u64_of(doc, fields.offset).unwrap_or(0)
}

/// Writes `s` as plain text: one `name  value` line per fact, then the
/// title and the text.
pub fn write_text(s: &Shown, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "docid        {}", s.docid)?;
    writeln!(out, "source       {}", s.source)?;
    if s.file != s.source {
        writeln!(out, "read from    {}", s.file)?;
    }
    let mut at = format!("offset {}, {} bytes", s.offset, s.record_len);
    if let Some(m) = s.gz_member {
        at.push_str(&format!(", gzip member at compressed offset {m}"));
        if s.decompressed_before > 0 {
            at.push_str(&format!(
                " ({} bytes decompressed before the record: one gzip stream is read from its start)",
                s.decompressed_before
            ));
        }
    }
    writeln!(out, "record       {at}")?;
    writeln!(out, "checked      {}", s.checked)?;
    if let Some(r) = &s.record_id {
        writeln!(out, "record id    {r}")?;
    }
    writeln!(out, "url          {}", s.url.as_deref().unwrap_or("-"))?;
    writeln!(out, "language     {}", s.language.as_deref().unwrap_or("-"))?;
    writeln!(
        out,
        "charset      {} (decided by {}){}",
        s.charset,
        s.charset_source,
        if s.charset_disagree {
            "; the declared charsets disagree"
        } else {
            ""
        }
    )?;
    let errors: Vec<String> = s
        .utf8_errors
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    writeln!(out, "utf8 errors  {}", errors.join(", "))?;
    match s.spam {
        Some(p) => writeln!(out, "spam         {p}")?,
        None => writeln!(out, "spam         none")?,
    }
    writeln!(out, "title        {}", s.title)?;
    writeln!(out, "text")?;
    for line in s.text.lines() {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// HTML-escapes `s` into `out`, as every page and figure sieve writes does
/// ([`crate::svg::escape`]: `&`, `<`, `>`, `"`; control characters
/// become U+FFFD).
fn escape(s: &str, out: &mut String) {
    out.push_str(&crate::svg::escape(s));
}

/// [`escape`]d `s` in a `<bdi>` element: text from the crawl (a docid, a
/// URL, a title, a file name) may hold bidirectional controls such as
/// U+202E RIGHT-TO-LEFT OVERRIDE, which must not reorder what follows it.
fn isolated(s: &str, out: &mut String) {
    out.push_str("<bdi>");
    escape(s, out);
    out.push_str("</bdi>");
}

/// `text`, escaped, with every token whose analysed term is in `terms`
/// wrapped in `<mark>`.
fn marked(text: &str, terms: &HashSet<String>, analyzer: &EnglishAnalyzer, out: &mut String) {
    for (piece, mark) in pieces(text, terms, analyzer) {
        if mark {
            out.push_str("<mark>");
            escape(piece, out);
            out.push_str("</mark>");
        } else {
            escape(piece, out);
        }
    }
}

impl ShowIndex {
    /// Writes `docs` as one self-contained HTML page (no external
    /// resources), the query terms marked with `<mark>` in titles and text.
    /// Every string from the crawl is isolated against bidirectional
    /// overrides: in a `<bdi>` element or one with `dir="auto"`, and in the
    /// page's `<title>` (text only) between U+2068 FIRST STRONG ISOLATE and
    /// U+2069 POP DIRECTIONAL ISOLATE.
    pub fn write_html(
        &self,
        docs: &[Shown],
        terms: &HashSet<String>,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        let mut h = String::new();
        h.push_str("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>");
        let ids: Vec<String> = docs
            .iter()
            .map(|d| format!("\u{2068}{}\u{2069}", d.docid))
            .collect();
        escape(&ids.join(" "), &mut h);
        h.push_str(
            "</title>\n<style>body{font-family:sans-serif;max-width:48em;margin:2em auto;\
             line-height:1.5;padding:0 1em}mark{background:#ffe066}dl{display:grid;\
             grid-template-columns:max-content auto;gap:0 1em;color:#444;font-size:90%}\
             dt{font-weight:bold}dd{margin:0;overflow-wrap:anywhere}article{border-top:1px solid #ccc;\
             margin-top:2em}</style>\n</head><body>\n",
        );
        for d in docs {
            h.push_str("<article>\n<h1 dir=\"auto\">");
            marked(&d.title, terms, &self.analyzer, &mut h);
            h.push_str("</h1>\n<dl>\n");
            let mut fact = |name: &str, value: &str| {
                h.push_str("<dt>");
                escape(name, &mut h);
                h.push_str("</dt><dd>");
                isolated(value, &mut h);
                h.push_str("</dd>\n");
            };
            fact("docid", &d.docid);
            fact("source", &d.source);
            fact("offset", &format!("{} ({} bytes)", d.offset, d.record_len));
            if let Some(m) = d.gz_member {
                fact("gzip member", &m.to_string());
            }
            if let Some(r) = &d.record_id {
                fact("record id", r);
            }
            fact("url", d.url.as_deref().unwrap_or("-"));
            fact("language", d.language.as_deref().unwrap_or("-"));
            fact(
                "charset",
                &format!("{} (decided by {})", d.charset, d.charset_source),
            );
            let errors: Vec<String> = d
                .utf8_errors
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            fact("UTF-8 errors", &errors.join(", "));
            fact("spam", &d.spam.map_or("none".into(), |p| p.to_string()));
            fact("checked", &d.checked);
            h.push_str("</dl>\n");
            for line in d.text.lines().filter(|l| !l.trim().is_empty()) {
                h.push_str("<p dir=\"auto\">");
                marked(line, terms, &self.analyzer, &mut h);
                h.push_str("</p>\n");
            }
            h.push_str("</article>\n");
        }
        h.push_str("</body></html>\n");
        out.write_all(h.as_bytes())
    }
}

/// The reading options a build with these options used: the docid
/// header, the JSON keys, the TSV columns and the record cap (what
/// re-reading one of its records needs).
fn crawl_options(o: &ManifestOptions) -> CrawlOptions {
    let chain = sieve_format::manifest::default_docid_header();
    CrawlOptions {
        max_record_bytes: o.max_record_bytes,
        max_decompression_ratio: o.max_decompression_ratio,
        docid_header: (o.docid_header != chain).then(|| o.docid_header.clone()),
        json_fields: o.json_fields.clone(),
        tsv_columns: o.tsv_columns.clone(),
        ..Default::default()
    }
}
