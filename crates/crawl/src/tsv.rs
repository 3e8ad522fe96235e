//! Streaming reader of tab-separated documents, one per line: MS MARCO's
//! `collection.tsv` (`pid<TAB>passage`) by default, or any columns chosen
//! with [`TsvColumn`]s (MS MARCO's `msmarco-docs.tsv` is `id`, `url`,
//! `title`, `text`).
//!
//! # Lines
//!
//! A line is split at tabs into the chosen columns; the last column takes
//! the rest of the line, tabs included, without its line end (`\n` or
//! `\r\n`). Several `text` columns are joined by a blank line; `-` columns
//! are ignored. No quoting or escaping: a tab or a line end cannot be part
//! of a field but the last's (tabs) or of none (line ends). The document
//! body is the title, `\n`, then the text ([`Markup::Text`]), through the
//! charset decoder and the UTF-8 cleaner like every body.
//!
//! # Losses (never a panic, never fatal)
//!
//! * A line with fewer columns than chosen: [`SkipReason::MalformedLine`].
//! * An empty docid (or one over 64 KiB): [`SkipReason::NoDocid`]; one
//!   holding whitespace or a control character: [`SkipReason::BadDocid`];
//!   no title and no text: [`SkipReason::EmptyBody`].
//! * Blank lines, and a byte order mark at the start of any line (as in
//!   concatenated files):
//!   [`AnomalyKind::StrayBytes`](crate::AnomalyKind::StrayBytes).
//! * Title and text over `max_record_bytes` together (with the `\n` between
//!   them): cut there, flagged
//!   `capped`, the rest streamed past. Memory per line is bounded by the
//!   cap plus 64 KiB for each other column (and the keep limit with
//!   `keep_skipped`).
//!
//! The format is detected when the first line holds a tab after a first
//! column of 1 to 1,024 bytes without blanks or control bytes (and does
//! not start with `<`); see [`looks_like_tsv`].

pub use sieve_types::TsvColumn;
use std::collections::VecDeque;

use crate::event::{CrawlEvent, Markup, RawBytes, RawDoc, Skip, SkipReason, Span, bad_docid};
use crate::input::Source;
use crate::lines::{lossy_trim, skip_between_lines, text_body};
use crate::options::CrawlOptions;

/// Longest docid, URL or language kept.
const MAX_SMALL: usize = 64 * 1024;
/// Bytes looked at per step.
const CHUNK: usize = 64 * 1024;

/// Parses a comma-separated column list (`id,text`, `id,url,title,text`,
/// `-` for a column not read). The list must name `id` once and `text` at
/// least once; `title`, `url` and `language` at most once. The error says
/// what is wrong.
pub fn parse_tsv_columns(list: &str) -> std::result::Result<Vec<TsvColumn>, String> {
    let mut cols = Vec::new();
    for name in list.split(',') {
        let c = match name.trim() {
            "id" => TsvColumn::Id,
            "title" => TsvColumn::Title,
            "text" => TsvColumn::Text,
            "url" => TsvColumn::Url,
            "language" => TsvColumn::Language,
            "-" => TsvColumn::Ignore,
            other => {
                return Err(format!(
                    "unknown column `{other}` (expected id, title, text, url, language or -)"
                ));
            }
        };
        cols.push(c);
    }
    let count = |c: TsvColumn| cols.iter().filter(|&&x| x == c).count();
    if count(TsvColumn::Id) != 1 {
        return Err("the columns must name `id` exactly once".into());
    }
    if count(TsvColumn::Text) == 0 {
        return Err("the columns must name `text` at least once".into());
    }
    for c in [TsvColumn::Title, TsvColumn::Url, TsvColumn::Language] {
        if count(c) > 1 {
            return Err(format!("`{}` is named more than once", c.name()));
        }
    }
    Ok(cols)
}

/// True if `b` (the start of an input, after a BOM) starts like a TSV line.
pub(crate) fn looks_like_tsv(b: &[u8]) -> bool {
    let line = &b[..memchr::memchr(b'\n', b).unwrap_or(b.len())];
    match memchr::memchr(b'\t', line) {
        Some(p) => {
            p > 0
                && p <= 1024
                && line[0] != b'<'
                && line[..p].iter().all(|&c| c > b' ' && c != 0x7f)
        }
        None => false,
    }
}

pub(crate) struct TsvParser {
    opts: CrawlOptions,
    cap: usize,
    keep_limit: usize,
}

/// One line being read.
#[derive(Default)]
struct Line {
    /// The column being read (at the end: the last column read).
    col: usize,
    id: Vec<u8>,
    id_too_long: bool,
    title: Vec<u8>,
    text: Vec<u8>,
    texts: usize,
    url: Vec<u8>,
    language: Vec<u8>,
    total: u64,
    capped: bool,
    raw: Vec<u8>,
    raw_total: u64,
}

impl TsvParser {
    pub(crate) fn new(mut opts: CrawlOptions) -> Self {
        if opts.tsv_columns.is_empty() {
            // Not a list `parse_tsv_columns` accepts: the default.
            opts.tsv_columns = vec![TsvColumn::Id, TsvColumn::Text];
        }
        let cap = usize::try_from(opts.max_record_bytes).unwrap_or(usize::MAX);
        let keep_limit = opts.keep_limit();
        TsvParser {
            opts,
            cap,
            keep_limit,
        }
    }

    /// Reads the next line, pushing its events. Returns false at end of input.
    pub(crate) fn next_line(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) -> bool {
        if !skip_between_lines(src, out, |b| b == b'\n' || b == b'\r') {
            return false;
        }
        src.start_record();
        let start = src.offset();
        let mut line = self.read_line(src);
        let cols = &self.opts.tsv_columns;
        let short = line.col + 1 < cols.len();
        let docid = if line.id_too_long || (short && !cols[..line.col].contains(&TsvColumn::Id)) {
            None
        } else {
            lossy_trim(&line.id)
        };
        if let Some(reason) = self.skip_reason(&line, short, docid.as_deref()) {
            let raw = self.opts.keep_skipped.then(|| RawBytes {
                truncated: (line.raw.len() as u64) < line.raw_total,
                bytes: std::mem::take(&mut line.raw),
            });
            out.push_back(CrawlEvent::Skip(Skip {
                reason,
                offset: start,
                record_id: docid,
                raw,
            }));
            return true;
        }
        out.push_back(CrawlEvent::Doc(RawDoc {
            docid: docid.unwrap_or_default(),
            record_id: None,
            language: lossy_trim(&line.language),
            span: Span::default(),
            url: lossy_trim(&line.url),
            offset: start,
            http_status: None,
            content_type: None,
            http_charset: None,
            body: text_body(&line.title, &line.text),
            truncated: line.capped,
            original_len: line.total,
            capped: line.capped,
            markup: Markup::Text,
            utf8: false,
            heads: None,
        }));
        true
    }

    /// Reads the line at the current position into its columns, through
    /// its `\n` (or to the end of the input).
    #[inline]
    fn read_line(&self, src: &mut Source) -> Line {
        let mut line = Line::default();
        let cols = &self.opts.tsv_columns;
        let mut started = false;
        let mut ended = false;
        while !ended {
            let n = src.ensure(CHUNK);
            if n == 0 {
                break;
            }
            let a = src.avail();
            let last = line.col + 1 >= cols.len();
            let stop = if last {
                memchr::memchr(b'\n', a)
            } else {
                memchr::memchr2(b'\t', b'\n', a)
            };
            let (k, used) = match stop {
                Some(i) => (i, i + 1),
                None => (n, n),
            };
            let mut field = &a[..k];
            if stop.is_some_and(|i| a[i] == b'\n') {
                field = field.strip_suffix(b"\r").unwrap_or(field);
            }
            let c = cols[line.col.min(cols.len() - 1)];
            if !started && c == TsvColumn::Text {
                if line.texts > 0 {
                    self.put(&mut line, c, b"\n\n");
                }
                line.texts += 1;
            }
            started = true;
            self.put(&mut line, c, field);
            if self.opts.keep_skipped {
                let room = self.keep_limit.saturating_sub(line.raw.len());
                line.raw.extend_from_slice(&a[..used.min(room)]);
            }
            line.raw_total += used as u64;
            match stop.map(|i| a[i]) {
                Some(b'\n') => ended = true,
                Some(_) => {
                    line.col += 1;
                    started = false;
                }
                None => {}
            }
            src.consume(used);
        }
        line
    }

    /// Why the line read is not a document (`short`: it has fewer columns
    /// than chosen), or `None`.
    fn skip_reason(&self, line: &Line, short: bool, docid: Option<&str>) -> Option<SkipReason> {
        let cols = &self.opts.tsv_columns;
        if short {
            Some(SkipReason::MalformedLine(format!(
                "{} column(s), expected {} ({})",
                line.col + 1,
                cols.len(),
                cols.iter().map(|c| c.name()).collect::<Vec<_>>().join(",")
            )))
        } else if docid.is_none() {
            Some(SkipReason::NoDocid)
        } else if let Some(bad) = docid.and_then(bad_docid) {
            Some(bad)
        } else if line.title.trim_ascii().is_empty() && line.text.trim_ascii().is_empty() {
            Some(SkipReason::EmptyBody)
        } else {
            None
        }
    }

    /// Appends a piece of a column's value, within its limit; a new text
    /// column after the first is separated by a blank line.
    fn put(&self, line: &mut Line, col: TsvColumn, bytes: &[u8]) {
        let small = |v: &mut Vec<u8>| {
            let k = bytes.len().min(MAX_SMALL - v.len().min(MAX_SMALL));
            v.extend_from_slice(&bytes[..k]);
            k < bytes.len()
        };
        match col {
            TsvColumn::Id => line.id_too_long |= small(&mut line.id),
            TsvColumn::Url => {
                small(&mut line.url);
            }
            TsvColumn::Language => {
                small(&mut line.language);
            }
            TsvColumn::Ignore => {}
            TsvColumn::Title | TsvColumn::Text => {
                line.total += bytes.len() as u64;
                // The body is title, `\n`, text: all three within the cap.
                let used = line.title.len() + line.text.len() + 1;
                let k = bytes.len().min(self.cap.saturating_sub(used));
                line.capped |= k < bytes.len();
                let dst = if col == TsvColumn::Title {
                    &mut line.title
                } else {
                    &mut line.text
                };
                dst.extend_from_slice(&bytes[..k]);
            }
        }
    }
}
