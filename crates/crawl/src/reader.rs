//! The reader of one crawl file: gzip detected by its magic bytes, the
//! format by content ([`CrawlFormat`]), then the format's parser driven
//! record by record into [`CrawlEvent`]s, each document given its
//! [`Span`] and its docid checked once more on the way out.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use sieve_filters::docid::escaped;
use sieve_types::GzipSpan;

use crate::event::{Anomaly, AnomalyKind, CrawlEvent, RawBytes, Skip, SkipReason, Span, bad_docid};
use crate::gunzip::Gunzip;
use crate::input::{self, GzState, Inner, Source};
use crate::options::CrawlOptions;
use crate::{Error, Result, jsonl, smart, trec, tsv, warc};

/// A [`AnomalyKind::GzipMember`] event for a skipped member.
fn gzip_member(s: input::SkippedMember) -> CrawlEvent {
    let g = s.gap;
    CrawlEvent::Anomaly(Anomaly {
        kind: AnomalyKind::GzipMember,
        offset: s.offset,
        bytes: g.skipped,
        record_id: None,
        raw: g.kept.map(|bytes| RawBytes {
            bytes,
            truncated: g.kept_truncated,
        }),
        gzip: Some(GzipSpan {
            compressed_offset: g.member_offset,
            compressed_bytes: g.skipped,
            reason: g.reason,
        }),
    })
}

/// The format of a crawl file, detected by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrawlFormat {
    /// WARC (any version).
    Warc,
    /// TREC SGML (`<DOC>` ... `</DOC>`).
    Trec,
    /// SMART records (`.I <id>`, `.T`, `.W`, ...).
    Smart,
    /// JSON lines (one object per line).
    JsonLines,
    /// Tab-separated lines (`id<TAB>text`, or the columns chosen).
    Tsv,
    /// A ClueWeb22 offset file (not a crawl).
    OffsetIndex,
    /// An empty (or whitespace-only) input.
    Empty,
}

impl CrawlFormat {
    /// A short name: `warc`, `trec`, `smart`, `jsonl`, `tsv`,
    /// `offset_index`, `empty`.
    pub fn key(self) -> &'static str {
        match self {
            CrawlFormat::Warc => "warc",
            CrawlFormat::Trec => "trec",
            CrawlFormat::Smart => "smart",
            CrawlFormat::JsonLines => "jsonl",
            CrawlFormat::Tsv => "tsv",
            CrawlFormat::OffsetIndex => "offset_index",
            CrawlFormat::Empty => "empty",
        }
    }
}

/// The parser of the detected format, with what it keeps between records.
enum Parser {
    Warc(warc::WarcParser),
    Trec(trec::TrecParser),
    Smart(smart::SmartParser),
    Json(Box<jsonl::JsonParser>),
    Tsv(tsv::TsvParser),
    /// An offset file: one skip, then nothing.
    Offsets(bool),
    Empty,
}

impl Parser {
    /// The parser of `format`.
    fn new(format: CrawlFormat, opts: &CrawlOptions) -> Self {
        match format {
            CrawlFormat::Warc => Parser::Warc(warc::WarcParser::new(opts.clone())),
            CrawlFormat::Trec => Parser::Trec(trec::TrecParser::new(opts.clone())),
            CrawlFormat::Smart => Parser::Smart(smart::SmartParser::new(opts.clone())),
            CrawlFormat::JsonLines => Parser::Json(Box::new(jsonl::JsonParser::new(opts.clone()))),
            CrawlFormat::Tsv => Parser::Tsv(tsv::TsvParser::new(opts.clone())),
            CrawlFormat::OffsetIndex => Parser::Offsets(false),
            CrawlFormat::Empty => Parser::Empty,
        }
    }

    /// Reads the next record into `out`. Returns false at end of input.
    fn read(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) -> bool {
        match self {
            Parser::Warc(p) => p.next_record(src, out),
            Parser::Trec(p) => p.next_doc(src, out),
            Parser::Smart(p) => p.next_doc(src, out),
            Parser::Json(p) => p.next_line(src, out),
            Parser::Tsv(p) => p.next_line(src, out),
            Parser::Offsets(done) => {
                if !*done {
                    *done = true;
                    out.push_back(CrawlEvent::Skip(Skip {
                        reason: SkipReason::OffsetIndex,
                        offset: 0,
                        record_id: None,
                        raw: None,
                    }));
                }
                false
            }
            Parser::Empty => false,
        }
    }
}

/// Iterator over the [`CrawlEvent`]s of one crawl file. See the [crate
/// docs](crate).
pub struct CrawlReader {
    src: Source,
    parser: Parser,
    format: CrawlFormat,
    queue: VecDeque<CrawlEvent>,
    done: bool,
    deferred: Option<Error>,
}

impl CrawlReader {
    /// The detected format.
    pub fn format(&self) -> CrawlFormat {
        self.format
    }

    /// The path (or name) this reader was opened with.
    pub fn path(&self) -> &Path {
        self.src.path()
    }

    /// Gives each document queued from `queued` on its [`Span`] (a parser
    /// call reads at most one record: it ends where the call stopped), and
    /// checks every docid once more.
    fn seal(&mut self, queued: usize) {
        let end = self.src.offset();
        for ev in self.queue.range_mut(queued..) {
            if let CrawlEvent::Doc(d) = ev {
                d.span = Span {
                    offset: d.offset,
                    len: end.saturating_sub(d.offset),
                    member: self.src.member_of(d.offset),
                    crc: self.src.record_crc(d.offset),
                };
            }
            refuse_bad_docid(ev);
        }
    }
}

impl Iterator for CrawlReader {
    type Item = Result<CrawlEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(ev) = self.queue.pop_front() {
                return Some(Ok(ev));
            }
            if self.done {
                if let Some(s) = self.src.take_skipped(true) {
                    self.queue.push_back(gzip_member(s));
                    continue;
                }
                return self.deferred.take().map(Err);
            }
            // A skipped gzip member is reported where the next member's
            // output starts, before the records read from there.
            self.src.ensure(1);
            if let Some(s) = self.src.take_skipped(false) {
                self.queue.push_back(gzip_member(s));
                continue;
            }
            // Records start at or after here: the gzip member of every
            // record read by this call is still known.
            self.src.pin();
            let queued = self.queue.len();
            let more = self.parser.read(&mut self.src, &mut self.queue);
            self.seal(queued);
            if !more {
                self.done = true;
                self.deferred = self.src.take_error();
            }
        }
    }
}

/// The last check before an event leaves the reader: a document whose
/// docid the rule refuses becomes a [`SkipReason::BadDocid`] skip (without
/// kept bytes: every reader refuses such docids itself, with them), and a
/// bad-docid skip names its docid escaped.
fn refuse_bad_docid(ev: &mut CrawlEvent) {
    match ev {
        CrawlEvent::Doc(d) => {
            if let Some(reason) = bad_docid(&d.docid) {
                *ev = CrawlEvent::Skip(Skip {
                    reason,
                    offset: d.offset,
                    record_id: Some(escaped(&d.docid)),
                    raw: None,
                });
            }
        }
        CrawlEvent::Skip(s) if matches!(s.reason, SkipReason::BadDocid(_)) => {
            s.record_id = s.record_id.as_deref().map(escaped);
        }
        _ => {}
    }
}

/// Opens a crawl file (see the [crate docs](crate) for detection rules).
pub fn open(path: &Path, opts: &CrawlOptions) -> Result<CrawlReader> {
    let file = File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    build(path.to_path_buf(), file, opts, None)
}

/// Reads a crawl from any reader (tests, fuzzing, stdin). `name` is used as
/// the path in errors.
pub fn from_reader(
    name: &str,
    reader: impl Read + Send + 'static,
    opts: &CrawlOptions,
) -> Result<CrawlReader> {
    build(PathBuf::from(name), reader, opts, None)
}

/// Reads `reader`, plain (decompressed) bytes, as `format`, without detecting
/// it or gunzipping: one record cut from a file (a [`Span`], as
/// [`open_span`](crate::open_span) returns it) is read as the file was, even
/// when it alone would not be detected so (a TSV line whose first column holds
/// a blank, a line that starts with the gzip magic bytes).
pub fn from_reader_as(
    name: &str,
    reader: impl Read + Send + 'static,
    opts: &CrawlOptions,
    format: CrawlFormat,
) -> Result<CrawlReader> {
    build(PathBuf::from(name), reader, opts, Some(format))
}

/// Opens `reader` as a crawl: gunzipped when it starts with the gzip magic
/// bytes (unless `format` is forced), its format detected unless forced.
fn build(
    path: PathBuf,
    reader: impl Read + Send + 'static,
    opts: &CrawlOptions,
    format: Option<CrawlFormat>,
) -> Result<CrawlReader> {
    let mut src = source(path, reader, opts, format.is_none())?;
    let format = match format {
        Some(f) => f,
        None => detect(&mut src)?,
    };
    Ok(CrawlReader {
        src,
        parser: Parser::new(format, opts),
        format,
        queue: VecDeque::new(),
        done: false,
        deferred: None,
    })
}

/// The decompressed bytes of `reader`: a gzip decoder over it when
/// `may_gunzip` and its first two bytes are the gzip magic, else the bytes
/// as they are.
fn source(
    path: PathBuf,
    mut reader: impl Read + Send + 'static,
    opts: &CrawlOptions,
    may_gunzip: bool,
) -> Result<Source> {
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match reader.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(Error::ReadAt {
                    path,
                    offset: 0,
                    source,
                });
            }
        }
    }
    let head = Cursor::new(magic[..got].to_vec());
    let chained = head.chain(reader);
    // A forced format reads decompressed bytes: never gunzipped again.
    if !(may_gunzip && got == 2 && magic == [0x1f, 0x8b]) {
        return Ok(Source::new(path, Inner::Plain(Box::new(chained)), None));
    }
    let keep = if opts.keep_skipped {
        opts.keep_limit()
    } else {
        0
    };
    let chained: Box<dyn Read + Send> = Box::new(chained);
    // Inflating on a thread of its own, ahead of the parsers, reads
    // the same events as inline (see `gunzip`).
    let dec = if opts.inflate_ahead {
        Gunzip::ahead(chained, keep, input::READ_CHUNK).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?
    } else {
        Gunzip::inline(chained, keep)
    };
    Ok(Source::new(
        path,
        Inner::Gz(dec),
        Some(GzState {
            max_ratio: opts.max_decompression_ratio,
            min_output: opts.bomb_min_output,
        }),
    ))
}

/// The format of the input by its first bytes (see the [crate docs](crate)):
/// a UTF-8 BOM and blanks are looked past, up to 1 MiB of them.
fn detect(src: &mut Source) -> Result<CrawlFormat> {
    let mut look = 4096;
    loop {
        let n = src.ensure(look);
        let b = src.avail();
        let b = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b);
        let t = b.trim_ascii_start();
        if t.is_empty() {
            if n < look {
                if let Some(e) = src.take_error() {
                    return Err(e);
                }
                return Ok(CrawlFormat::Empty);
            }
            look *= 2;
            if look > 1 << 20 {
                break;
            }
            continue;
        }
        if t.len() < 5 && n == look {
            look *= 2;
            continue;
        }
        if t.starts_with(b"WARC/") {
            return Ok(CrawlFormat::Warc);
        }
        if t.len() >= 4 && t[..4].eq_ignore_ascii_case(b"<doc") {
            let after = &t[4..];
            let after = after.trim_ascii_start();
            if after.first() == Some(&b'>') {
                return Ok(CrawlFormat::Trec);
            }
        }
        // `.I` + whitespace at the start of a line (the parser recognises
        // records only there).
        let line_start = t.len() == b.len() || b[b.len() - t.len() - 1] == b'\n';
        if line_start && t.starts_with(b".I") && t.get(2).is_some_and(u8::is_ascii_whitespace) {
            return Ok(CrawlFormat::Smart);
        }
        if t.starts_with(b"{") {
            return Ok(CrawlFormat::JsonLines);
        }
        if b.len() >= 11 && b[..10].iter().all(u8::is_ascii_digit) && b[10] == b'\n' {
            return Ok(CrawlFormat::OffsetIndex);
        }
        if tsv::looks_like_tsv(b) {
            return Ok(CrawlFormat::Tsv);
        }
        let got = String::from_utf8_lossy(&t[..t.len().min(32)]).into_owned();
        if let Some(e) = src.take_error() {
            return Err(e);
        }
        return Err(Error::UnknownCrawlFormat {
            path: src.path().clone(),
            got,
        });
    }
    Err(Error::UnknownCrawlFormat {
        path: src.path().clone(),
        got: "(over 1 MiB of whitespace)".to_string(),
    })
}
