//! `extract --format parquet`: the documents of one input as a Parquet
//! file, written through the `parquet` crate's low-level column writer
//! (no arrow), with snappy-compressed pages.
//!
//! # Columns
//!
//! The fields of the JSON records, in the same order and with the same
//! names (from [`sieve_format::schema`]): `docid` (string), `url` (string, null
//! when the record has none), `source` (string), `offset` (uint64),
//! `charset` (string), `charset_source` (string), `errors` (a group of the
//! seven uint64 UTF-8 error counts, named by
//! [`sieve_filters::utf8::ErrorClass::key`]), `spam` (uint8, null when
//! no spam score was given), `title` and `text` (strings). With `full`,
//! also `warc_headers`, `http_headers` (strings, null for records without
//! them: TREC and other non-WARC inputs) and `html` (string). A JSON record
//! omits `spam`, `warc_headers`, `http_headers` and `html` when they are
//! absent; the Parquet file has the column and a null.
//!
//! # Bounded memory
//!
//! Documents are buffered column by column and written as a row group as
//! soon as the buffer holds [`ROW_GROUP_DOCS`] documents or
//! [`ROW_GROUP_BYTES`] bytes of values (whichever comes first, checked
//! after each document): the buffer never holds more than that plus one
//! document, whose size the build's caps bound. Each column of a row group
//! is written in pages of about [`PAGE_BYTES`] (one value at least).
//!
//! # Integrity
//!
//! The footer's key-value metadata holds [`VERSION_KEY`] (the layout
//! version, [`FORMAT_VERSION`]) and [`CRC_KEY`]: the CRC-32 of every byte
//! before the page indexes and the footer (the magic and all row groups)
//! and that byte count, as `crc32-hex length`; [`check`] verifies both.
//! The parquet format's own page checksums are not written by the crate.
//! The output depends only on the documents in order: the same documents
//! give the same bytes whatever the thread count.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::column::writer::ColumnWriterImpl;
use parquet::data_type::{ByteArray, ByteArrayType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter};
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use sieve_filters::utf8::{ErrorClass, Utf8Counts};
use sieve_format::schema::{
    CHARSET, CHARSET_SOURCE, DOCID, ERRORS, HTML, HTTP_HEADERS, OFFSET, SOURCE, SPAM, TEXT, TITLE,
    URL, WARC_HEADERS,
};

use crate::error::io_err;
use crate::{Error, Result};

/// A row group is written once it holds this many documents.
pub const ROW_GROUP_DOCS: usize = 10_000;
/// ... or this many bytes of values (64 MiB).
pub const ROW_GROUP_BYTES: usize = 64 << 20;
/// The target size of a data page of a string column, before compression.
pub const PAGE_BYTES: usize = 1 << 20;
/// Footer key naming the layout of the file.
pub const VERSION_KEY: &str = "sieve.extract.parquet";
/// The layout version (bump it when a column is added, removed or changes).
pub const FORMAT_VERSION: &str = "1";
/// Footer key of the checksum of the row groups.
pub const CRC_KEY: &str = "sieve.crc32";

/// One document as `extract` writes it (the fields of its JSON record).
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    /// The docid.
    pub docid: &'a str,
    /// The URL, if any.
    pub url: Option<&'a str>,
    /// The input as given.
    pub source: &'a str,
    /// Offset of the record in the decompressed input.
    pub offset: u64,
    /// The WHATWG name of the charset.
    pub charset: &'a str,
    /// The evidence that decided it.
    pub charset_source: &'a str,
    /// The seven UTF-8 error counts.
    pub errors: Utf8Counts,
    /// The spam percentile, if given.
    pub spam: Option<u8>,
    /// The title.
    pub title: &'a str,
    /// The paragraphs.
    pub text: &'a str,
    /// `full`: the WARC head.
    pub warc_headers: Option<&'a str>,
    /// `full`: the HTTP head.
    pub http_headers: Option<&'a str>,
    /// `full`: the decoded page.
    pub html: Option<&'a str>,
}

/// When a row group is written.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Documents per row group, at most.
    pub docs: usize,
    /// Bytes of values after which the row group is written.
    pub bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            docs: ROW_GROUP_DOCS,
            bytes: ROW_GROUP_BYTES,
        }
    }
}

/// A string column: the values present and, for a nullable column, one
/// definition level per row (1 present, 0 null).
#[derive(Default)]
struct Strings {
    values: Vec<ByteArray>,
    def: Option<Vec<i16>>,
}

impl Strings {
    fn nullable() -> Self {
        Strings {
            values: Vec::new(),
            def: Some(Vec::new()),
        }
    }

    fn push(&mut self, v: Option<&str>) -> usize {
        if let Some(def) = &mut self.def {
            def.push(i16::from(v.is_some()));
        }
        match v {
            Some(s) => {
                self.values.push(ByteArray::from(s.as_bytes().to_vec()));
                s.len()
            }
            None => 0,
        }
    }

    fn clear(&mut self) {
        self.values.clear();
        if let Some(d) = &mut self.def {
            d.clear();
        }
    }
}

/// The buffered row group.
struct Columns {
    rows: usize,
    bytes: usize,
    docid: Strings,
    url: Strings,
    source: Strings,
    offset: Vec<i64>,
    charset: Strings,
    charset_source: Strings,
    errors: [Vec<i64>; 7],
    spam: Vec<i32>,
    spam_def: Vec<i16>,
    title: Strings,
    text: Strings,
    warc_headers: Strings,
    http_headers: Strings,
    html: Strings,
}

impl Columns {
    fn new() -> Self {
        Columns {
            rows: 0,
            bytes: 0,
            docid: Strings::default(),
            url: Strings::nullable(),
            source: Strings::default(),
            offset: Vec::new(),
            charset: Strings::default(),
            charset_source: Strings::default(),
            errors: Default::default(),
            spam: Vec::new(),
            spam_def: Vec::new(),
            title: Strings::default(),
            text: Strings::default(),
            warc_headers: Strings::nullable(),
            http_headers: Strings::nullable(),
            html: Strings::nullable(),
        }
    }

    fn push(&mut self, r: &Row<'_>, full: bool) {
        let mut bytes = 8 * 9 + 1;
        bytes += self.docid.push(Some(r.docid));
        bytes += self.url.push(r.url);
        bytes += self.source.push(Some(r.source));
        self.offset.push(r.offset as i64);
        bytes += self.charset.push(Some(r.charset));
        bytes += self.charset_source.push(Some(r.charset_source));
        for (col, class) in self.errors.iter_mut().zip(ErrorClass::ALL) {
            col.push(r.errors.get(class) as i64);
        }
        self.spam_def.push(i16::from(r.spam.is_some()));
        self.spam.extend(r.spam.map(i32::from));
        bytes += self.title.push(Some(r.title));
        bytes += self.text.push(Some(r.text));
        if full {
            bytes += self.warc_headers.push(r.warc_headers);
            bytes += self.http_headers.push(r.http_headers);
            bytes += self.html.push(r.html);
        }
        self.rows += 1;
        self.bytes += bytes;
    }

    fn clear(&mut self) {
        let Columns {
            rows,
            bytes,
            docid,
            url,
            source,
            offset,
            charset,
            charset_source,
            errors,
            spam,
            spam_def,
            title,
            text,
            warc_headers,
            http_headers,
            html,
        } = self;
        *rows = 0;
        *bytes = 0;
        for s in [
            docid,
            url,
            source,
            charset,
            charset_source,
            title,
            text,
            warc_headers,
            http_headers,
            html,
        ] {
            s.clear();
        }
        offset.clear();
        for e in errors {
            e.clear();
        }
        spam.clear();
        spam_def.clear();
    }
}

/// The Parquet schema of an extract (`full`: with the heads and the HTML).
pub fn message_type(full: bool) -> String {
    let string = |rep: &str, name: &str| format!("  {rep} binary {name} (STRING);\n");
    let mut m = String::from("message sieve_extract {\n");
    m += &string("required", DOCID);
    m += &string("optional", URL);
    m += &string("required", SOURCE);
    m += &format!("  required int64 {OFFSET} (INTEGER(64,false));\n");
    m += &string("required", CHARSET);
    m += &string("required", CHARSET_SOURCE);
    m += &format!("  required group {ERRORS} {{\n");
    for class in ErrorClass::ALL {
        m += &format!("    required int64 {} (INTEGER(64,false));\n", class.key());
    }
    m += "  }\n";
    m += &format!("  optional int32 {SPAM} (INTEGER(8,false));\n");
    m += &string("required", TITLE);
    m += &string("required", TEXT);
    if full {
        m += &string("optional", WARC_HEADERS);
        m += &string("optional", HTTP_HEADERS);
        m += &string("optional", HTML);
    }
    m += "}\n";
    m
}

/// A writer that checksums what passes through it.
struct Crc<W> {
    inner: W,
    hasher: crc32fast::Hasher,
    bytes: u64,
}

impl<W: Write> Write for Crc<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// One Parquet output file being written.
pub struct ParquetWriter {
    path: PathBuf,
    w: SerializedFileWriter<Crc<BufWriter<File>>>,
    full: bool,
    limits: Limits,
    cols: Columns,
    row_groups: usize,
}

fn pq_err(path: &Path) -> impl Fn(ParquetError) -> Error + '_ {
    move |source| Error::Parquet {
        path: path.to_path_buf(),
        source,
    }
}

impl ParquetWriter {
    /// Creates `path` (truncating it) for documents with or without the
    /// `full` columns, with the row-group `limits`.
    pub fn create(path: &Path, full: bool, limits: Limits) -> Result<Self> {
        let err = pq_err(path);
        let schema = Arc::new(parse_message_type(&message_type(full)).map_err(&err)?);
        let mut props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_max_row_group_row_count(Some(limits.docs.max(1)))
            .set_data_page_size_limit(PAGE_BYTES)
            .set_key_value_metadata(Some(vec![KeyValue::new(
                VERSION_KEY.to_string(),
                FORMAT_VERSION.to_string(),
            )]));
        // Few distinct values: dictionary-encoded.
        for c in [SOURCE, CHARSET, CHARSET_SOURCE] {
            props = props.set_column_dictionary_enabled(ColumnPath::from(c), true);
        }
        // Long text: min/max statistics would only cost time.
        for c in [TITLE, TEXT, WARC_HEADERS, HTTP_HEADERS, HTML, URL] {
            props =
                props.set_column_statistics_enabled(ColumnPath::from(c), EnabledStatistics::None);
        }
        let file = File::create(path).map_err(io_err(path))?;
        let sink = Crc {
            inner: BufWriter::with_capacity(1 << 16, file),
            hasher: crc32fast::Hasher::new(),
            bytes: 0,
        };
        let w = SerializedFileWriter::new(sink, schema, Arc::new(props.build())).map_err(&err)?;
        Ok(ParquetWriter {
            path: path.to_path_buf(),
            w,
            full,
            limits,
            cols: Columns::new(),
            row_groups: 0,
        })
    }

    /// Adds one document; writes the row group when it is full.
    pub fn push(&mut self, row: &Row<'_>) -> Result<()> {
        self.cols.push(row, self.full);
        if self.cols.rows >= self.limits.docs || self.cols.bytes >= self.limits.bytes {
            self.flush()?;
        }
        Ok(())
    }

    /// Row groups written so far.
    pub fn row_groups(&self) -> usize {
        self.row_groups
    }

    fn flush(&mut self) -> Result<()> {
        if self.cols.rows == 0 {
            return Ok(());
        }
        let err = pq_err(&self.path);
        let mut rg = self.w.next_row_group().map_err(&err)?;
        write_row_group(&mut rg, &self.cols, self.full).map_err(&err)?;
        rg.close().map_err(&err)?;
        self.cols.clear();
        self.row_groups += 1;
        Ok(())
    }

    /// Writes the last row group and the footer, syncs the file and
    /// returns the number of row groups.
    pub fn finish(mut self) -> Result<usize> {
        self.flush()?;
        let err = pq_err(&self.path);
        let crc = self.w.inner();
        let kv = format!("{:08x} {}", crc.hasher.clone().finalize(), crc.bytes);
        self.w
            .append_key_value_metadata(KeyValue::new(CRC_KEY.to_string(), kv));
        let sink = self.w.into_inner().map_err(&err)?;
        let file = sink
            .inner
            .into_inner()
            .map_err(|e| io_err(&self.path)(e.into_error()))?;
        file.sync_all().map_err(io_err(&self.path))?;
        Ok(self.row_groups)
    }
}

fn next_col<'a, W: Write + Send>(
    rg: &'a mut SerializedRowGroupWriter<'_, W>,
) -> parquet::errors::Result<parquet::file::writer::SerializedColumnWriter<'a>> {
    rg.next_column()?
        .ok_or_else(|| ParquetError::General("internal: fewer columns than values".into()))
}

/// Writes a string column in batches of about [`PAGE_BYTES`], so that a
/// page is closed before it grows much past that.
fn write_strings(
    w: &mut ColumnWriterImpl<'_, ByteArrayType>,
    s: &Strings,
) -> parquet::errors::Result<()> {
    let rows = s.def.as_ref().map_or(s.values.len(), Vec::len);
    let (mut r0, mut v0, mut v, mut bytes) = (0, 0, 0, 0);
    for r in 0..rows {
        let present = s.def.as_ref().is_none_or(|d| d[r] == 1);
        if present {
            bytes += s.values[v].len();
            v += 1;
        }
        if bytes >= PAGE_BYTES || r + 1 == rows {
            let def = s.def.as_ref().map(|d| &d[r0..=r]);
            w.write_batch(&s.values[v0..v], def, None)?;
            (r0, v0, bytes) = (r + 1, v, 0);
        }
    }
    Ok(())
}

fn write_row_group<W: Write + Send>(
    rg: &mut SerializedRowGroupWriter<'_, W>,
    c: &Columns,
    full: bool,
) -> parquet::errors::Result<()> {
    let strings = |rg: &mut SerializedRowGroupWriter<'_, W>, s: &Strings| {
        let mut col = next_col(rg)?;
        write_strings(col.typed::<ByteArrayType>(), s)?;
        col.close()
    };
    let int64 = |rg: &mut SerializedRowGroupWriter<'_, W>, v: &[i64]| {
        let mut col = next_col(rg)?;
        col.typed::<Int64Type>().write_batch(v, None, None)?;
        col.close()
    };
    strings(rg, &c.docid)?;
    strings(rg, &c.url)?;
    strings(rg, &c.source)?;
    int64(rg, &c.offset)?;
    strings(rg, &c.charset)?;
    strings(rg, &c.charset_source)?;
    for e in &c.errors {
        int64(rg, e)?;
    }
    let mut col = next_col(rg)?;
    col.typed::<Int32Type>()
        .write_batch(&c.spam, Some(&c.spam_def), None)?;
    col.close()?;
    strings(rg, &c.title)?;
    strings(rg, &c.text)?;
    if full {
        strings(rg, &c.warc_headers)?;
        strings(rg, &c.http_headers)?;
        strings(rg, &c.html)?;
    }
    Ok(())
}

/// Checks an extract's Parquet file: its footer names this layout version
/// and the checksum of its row groups matches. Returns the number of rows.
pub fn check(path: &Path) -> Result<i64> {
    let bad = |what: &'static str, expected: String, found: String| Error::ParquetFile {
        path: path.to_path_buf(),
        what,
        expected,
        found,
    };
    let file = File::open(path).map_err(io_err(path))?;
    let reader = SerializedFileReader::new(file).map_err(pq_err(path))?;
    let meta = reader.metadata().file_metadata();
    let kv = meta.key_value_metadata().cloned().unwrap_or_default();
    let get = |key: &str| {
        kv.iter()
            .find(|k| k.key == key)
            .and_then(|k| k.value.clone())
    };
    let version = get(VERSION_KEY).unwrap_or_default();
    if version != FORMAT_VERSION {
        return Err(bad(
            "version",
            format!("{VERSION_KEY} = {FORMAT_VERSION}"),
            version,
        ));
    }
    let seal = get(CRC_KEY).unwrap_or_default();
    let parsed = seal
        .split_once(' ')
        .and_then(|(c, n)| Some((u32::from_str_radix(c, 16).ok()?, n.parse::<u64>().ok()?)));
    let Some((want, n)) = parsed else {
        return Err(bad("checksum", "crc32-hex length".into(), seal));
    };
    let mut h = crc32fast::Hasher::new();
    let mut f = File::open(path).map_err(io_err(path))?.take(n);
    let mut buf = vec![0; 1 << 16];
    let mut read = 0u64;
    loop {
        let k = f.read(&mut buf).map_err(io_err(path))?;
        if k == 0 {
            break;
        }
        h.update(&buf[..k]);
        read += k as u64;
    }
    let got = h.finalize();
    if read != n || got != want {
        return Err(bad(
            "checksum",
            format!("{want:08x} over {n} bytes"),
            format!("{got:08x} over {read} bytes"),
        ));
    }
    Ok(meta.num_rows())
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::record::Field;

    fn row<'a>(docid: &'a str, text: &'a str) -> Row<'a> {
        Row {
            docid,
            url: docid
                .len()
                .is_multiple_of(2)
                .then_some("http://example.com/"),
            source: "in.warc",
            offset: 7,
            charset: "UTF-8",
            charset_source: "http",
            errors: Utf8Counts {
                surrogate: 3,
                ..Default::default()
            },
            spam: docid.ends_with('1').then_some(42),
            title: "t",
            text,
            warc_headers: None,
            http_headers: Some("HTTP/1.1 200 OK"),
            html: Some("<p>x"),
        }
    }

    fn write(dir: &Path, name: &str, n: usize, limits: Limits, text: &str) -> PathBuf {
        let path = dir.join(name);
        let mut w = ParquetWriter::create(&path, true, limits).unwrap();
        for i in 0..n {
            w.push(&row(&format!("d{i}"), text)).unwrap();
        }
        w.finish().unwrap();
        path
    }

    fn groups(path: &Path) -> Vec<i64> {
        let r = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
        r.metadata()
            .row_groups()
            .iter()
            .map(|g| g.num_rows())
            .collect()
    }

    #[test]
    fn row_groups_close_at_the_document_or_byte_bound() {
        let dir = tempfile::tempdir().unwrap();
        let by_docs = write(
            dir.path(),
            "a",
            25,
            Limits {
                docs: 10,
                bytes: usize::MAX,
            },
            "x",
        );
        assert_eq!(groups(&by_docs), [10, 10, 5]);
        // Each row holds 1000 bytes of text and some more: 3 rows pass 3000.
        let text = "y".repeat(1000);
        let by_bytes = write(
            dir.path(),
            "b",
            7,
            Limits {
                docs: 100,
                bytes: 3000,
            },
            &text,
        );
        assert_eq!(groups(&by_bytes), [3, 3, 1]);
        assert_eq!(check(&by_bytes).unwrap(), 7);
    }

    #[test]
    fn values_and_nulls_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let big = "z".repeat(PAGE_BYTES / 3);
        let path = write(
            dir.path(),
            "c",
            12,
            Limits {
                docs: 5,
                bytes: usize::MAX,
            },
            &big,
        );
        let r = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        let rows: Vec<_> = r.get_row_iter(None).unwrap().map(|r| r.unwrap()).collect();
        assert_eq!(rows.len(), 12);
        for (i, row) in rows.iter().enumerate() {
            let f: std::collections::HashMap<&str, &Field> = row
                .get_column_iter()
                .map(|(k, v)| (k.as_str(), v))
                .collect();
            assert_eq!(*f[DOCID], Field::Str(format!("d{i}")));
            let want_url = if format!("d{i}").len().is_multiple_of(2) {
                Field::Str("http://example.com/".into())
            } else {
                Field::Null
            };
            assert_eq!(*f[URL], want_url);
            assert_eq!(*f[OFFSET], Field::ULong(7));
            let want_spam = if i % 10 == 1 {
                Field::UByte(42)
            } else {
                Field::Null
            };
            assert_eq!(*f[SPAM], want_spam, "{i}");
            assert_eq!(*f[TEXT], Field::Str(big.clone()));
            assert_eq!(*f[WARC_HEADERS], Field::Null);
            let Field::Group(errors) = f[ERRORS] else {
                panic!("errors: {:?}", f[ERRORS]);
            };
            let e: Vec<_> = errors.get_column_iter().collect();
            assert_eq!(e.len(), 7);
            assert_eq!(e[2], (&"surrogate".to_string(), &Field::ULong(3)));
        }
    }

    #[test]
    fn a_damaged_file_fails_its_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "d", 30, Limits::default(), "some text here");
        check(&path).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        // A byte of the first page's data (after the magic and the header).
        bytes[40] ^= 0x55;
        std::fs::write(&path, &bytes).unwrap();
        let e = check(&path).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("checksum") || e.contains("parquet"), "{e}");
    }
}
