//! Streaming TREC SGML reader: `<DOC>` ... `</DOC>` documents with a
//! `<DOCNO>` and, WT10g style, an optional `<DOCHDR>` (URL line, then HTTP
//! headers). Tags are ASCII case-insensitive and may have blanks before `>`.

use std::collections::VecDeque;

use crate::event::{
    AnomalyKind, CrawlEvent, Markup, RawBytes, RawDoc, Skip, SkipReason, Span, anomaly, bad_docid,
    resync,
};
use crate::http;
use crate::input::Source;
use crate::options::CrawlOptions;

const SCAN_CHUNK: usize = 64 * 1024;
/// Longest tag we try to match (`</DOCHDR   >` etc.).
const TAG_LOOKAHEAD: usize = 32;
/// `<DOCHDR>` must start within this many bytes after `</DOCNO>`.
const DOCHDR_WINDOW: usize = 1024;

/// If `b` starts with `<name>` or `</name>` (per `close`), name ASCII
/// case-insensitive, blanks allowed before `>`, returns the tag length.
fn match_tag(b: &[u8], name: &[u8], close: bool) -> Option<usize> {
    let mut p = 1;
    if b.first() != Some(&b'<') {
        return None;
    }
    if close {
        if b.get(1) != Some(&b'/') {
            return None;
        }
        p = 2;
    }
    if b.len() < p + name.len() || !b[p..p + name.len()].eq_ignore_ascii_case(name) {
        return None;
    }
    p += name.len();
    while p < b.len() && b[p].is_ascii_whitespace() {
        p += 1;
    }
    (b.get(p) == Some(&b'>')).then_some(p + 1)
}

/// Finds the first `<name>` / `</name>` tag in `hay`; returns (start, len).
fn find_tag(hay: &[u8], name: &[u8], close: bool) -> Option<(usize, usize)> {
    memchr::memchr_iter(b'<', hay).find_map(|i| match_tag(&hay[i..], name, close).map(|l| (i, l)))
}

/// The TREC reader (stateless between documents apart from options).
pub(crate) struct TrecParser {
    opts: CrawlOptions,
    keep_limit: usize,
}

/// One document's bytes as read, from its `<DOC>` tag to its `</DOC>` (or
/// to where it was cut).
struct Doc {
    /// Offset of its `<DOC>` tag.
    offset: u64,
    /// The `<DOC>` tag's bytes (with `keep_skipped`).
    open_tag: Option<Vec<u8>>,
    /// The content's first bytes, up to the keep limit.
    kept: Vec<u8>,
    /// The content's length in the input.
    total: u64,
    /// The document ended with `</DOC>` (not a new `<DOC>` or the end of
    /// the input).
    closed: bool,
}

/// What the tags at the start of a document's content say.
struct Fields {
    /// The `DOCNO`, trimmed (`None` if absent or empty).
    docid: Option<String>,
    /// Where the body starts in the content: after `</DOCNO>`, and after
    /// `</DOCHDR>` if there is one.
    body_start: usize,
    /// The `DOCHDR` first line's first token, if it looks like a URL.
    url: Option<String>,
    /// The HTTP head in the `DOCHDR` (empty without one).
    head: http::HttpHead,
}

impl TrecParser {
    pub(crate) fn new(opts: CrawlOptions) -> Self {
        let keep_limit = opts.keep_limit();
        Self { opts, keep_limit }
    }

    /// Reads the next document, pushing its events. Returns false at end of input.
    pub(crate) fn next_doc(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) -> bool {
        let Some(open_len) = self.find_open(src, out) else {
            return false;
        };
        let doc = self.read_doc(src, open_len);
        let fields = fields(&doc.kept);
        if !doc.closed {
            // `</DOC>` missing (end of input, or a new `<DOC>` began)
            out.push_back(anomaly(
                AnomalyKind::TruncatedRecord,
                src.offset(),
                0,
                fields.docid.clone(),
            ));
        }
        out.push_back(self.event(doc, fields));
        true
    }

    /// Consumes the bytes up to the next `<DOC>` tag (a [`resync`] if any
    /// of them is not whitespace) and returns the tag's length, or `None`
    /// at the end of the input.
    fn find_open(&self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) -> Option<usize> {
        let skip_off = src.offset();
        let mut skipped = 0u64;
        let mut garbage = false;
        let garbage_limit = if self.opts.keep_skipped {
            self.keep_limit
        } else {
            0
        };
        let mut garbage_bytes = Vec::new();
        let open_len = loop {
            let have = src.ensure(SCAN_CHUNK + TAG_LOOKAHEAD);
            if have == 0 {
                break None;
            }
            let at_eof = have < SCAN_CHUNK + TAG_LOOKAHEAD;
            let a = src.avail();
            let lim = if at_eof { have } else { have - TAG_LOOKAHEAD };
            let hit = memchr::memchr_iter(b'<', &a[..lim])
                .find_map(|i| match_tag(&a[i..], b"doc", false).map(|l| (i, l)));
            let take = hit.map_or(lim, |(i, _)| i);
            garbage |= a[..take].iter().any(|b| !b.is_ascii_whitespace());
            let k = take.min(garbage_limit - garbage_bytes.len());
            garbage_bytes.extend_from_slice(&a[..k]);
            src.consume(take);
            skipped += take as u64;
            if let Some((_, l)) = hit {
                break Some(l);
            }
            if at_eof && take == have {
                break None;
            }
        };
        if garbage {
            out.push_back(resync(
                skip_off,
                skipped,
                garbage_bytes,
                self.opts.keep_skipped,
            ));
        }
        open_len
    }

    /// Reads the document whose `<DOC>` tag (`open_len` bytes) is at the
    /// current position: its content up to `</DOC>` (consumed too), a new
    /// `<DOC>` or the end of the input.
    fn read_doc(&self, src: &mut Source, open_len: usize) -> Doc {
        src.start_record();
        let offset = src.offset();
        let open_tag = self
            .opts
            .keep_skipped
            .then(|| src.avail()[..open_len].to_vec());
        src.consume(open_len);
        let mut kept: Vec<u8> = Vec::new();
        let mut total = 0u64;
        let mut closed = false;
        loop {
            let have = src.ensure(SCAN_CHUNK + TAG_LOOKAHEAD);
            if have == 0 {
                break;
            }
            let at_eof = have < SCAN_CHUNK + TAG_LOOKAHEAD;
            let a = src.avail();
            let lim = if at_eof { have } else { have - TAG_LOOKAHEAD };
            let hit = memchr::memchr_iter(b'<', &a[..lim]).find_map(|i| {
                if let Some(l) = match_tag(&a[i..], b"doc", true) {
                    Some((i, l, true))
                } else {
                    match_tag(&a[i..], b"doc", false).map(|l| (i, l, false))
                }
            });
            let take = hit.map_or(lim, |(i, _, _)| i);
            if kept.len() < self.keep_limit {
                let k = take.min(self.keep_limit - kept.len());
                kept.extend_from_slice(&a[..k]);
            }
            src.consume(take);
            total += take as u64;
            match hit {
                Some((_, l, true)) => {
                    src.consume(l);
                    closed = true;
                    break;
                }
                // a new `<DOC>` before `</DOC>`: this document ends here
                Some((_, _, false)) => break,
                None if at_eof && take == have => break,
                None => {}
            }
        }
        Doc {
            offset,
            open_tag,
            kept,
            total,
            closed,
        }
    }

    /// The document's event: a skip (no docid, a bad one, or an empty
    /// body) or the document.
    fn event(&self, doc: Doc, f: Fields) -> CrawlEvent {
        let kept = &doc.kept;
        let doc_end = doc.total.min(kept.len() as u64) as usize;
        let body_start = f.body_start.min(doc_end);
        let cap = usize::try_from(self.opts.max_record_bytes).unwrap_or(usize::MAX);
        let body_total = doc.total - body_start as u64;
        let end = doc_end.min(body_start.saturating_add(cap));
        let body = kept[body_start..end].to_vec();
        let capped = body_total > cap as u64;
        let truncated = capped || !doc.closed;
        let skip = |reason: SkipReason, record_id: Option<String>| {
            CrawlEvent::Skip(Skip {
                reason,
                offset: doc.offset,
                record_id,
                raw: doc.open_tag.as_ref().map(|tag| RawBytes {
                    bytes: [tag.as_slice(), &kept[..doc_end]].concat(),
                    truncated: (doc_end as u64) < doc.total,
                }),
            })
        };
        let Some(docid) = f.docid else {
            return skip(SkipReason::NoDocid, None);
        };
        if let Some(reason) = bad_docid(&docid) {
            return skip(reason, Some(docid));
        }
        if body.trim_ascii().is_empty() {
            return skip(SkipReason::EmptyBody, Some(docid));
        }
        CrawlEvent::Doc(RawDoc {
            docid,
            record_id: None,
            language: None,
            span: Span::default(),
            url: f.url,
            offset: doc.offset,
            http_status: f.head.status,
            content_type: f.head.mime(),
            http_charset: f.head.charset(),
            body,
            truncated,
            original_len: body_total,
            capped,
            markup: Markup::Html,
            utf8: false,
            heads: None,
        })
    }
}

/// The fields of a document's content `kept`: the `DOCNO`, then a
/// `DOCHDR` starting within [`DOCHDR_WINDOW`] bytes after it.
fn fields(kept: &[u8]) -> Fields {
    let (docid, body_start) = match find_tag(kept, b"docno", false) {
        Some((s, l)) => {
            let rest = &kept[s + l..];
            match find_tag(rest, b"docno", true) {
                Some((e, el)) => {
                    let id = String::from_utf8_lossy(rest[..e].trim_ascii())
                        .trim()
                        .to_string();
                    (Some(id).filter(|s| !s.is_empty()), s + l + e + el)
                }
                None => (None, 0),
            }
        }
        None => (None, 0),
    };
    let mut f = Fields {
        docid,
        body_start,
        url: None,
        head: http::HttpHead::default(),
    };
    let win_end = kept.len().min(body_start + DOCHDR_WINDOW);
    if let Some((s, l)) = find_tag(&kept[body_start..win_end], b"dochdr", false) {
        let hs = body_start + s + l;
        if let Some((e, el)) = find_tag(&kept[hs..], b"dochdr", true) {
            let hdr = &kept[hs..hs + e];
            let hdr = hdr.trim_ascii_start();
            let nl = memchr::memchr(b'\n', hdr).map_or(hdr.len(), |i| i + 1);
            let first = hdr[..nl].trim_ascii();
            if let Some(tok) = first.split(|b| b.is_ascii_whitespace()).next() {
                let t = String::from_utf8_lossy(tok);
                if t.contains("://") || t.to_ascii_lowercase().starts_with("www.") {
                    f.url = Some(t.into_owned());
                }
            }
            f.head = http::parse_head(&hdr[nl..]);
            f.body_start = hs + e + el;
        }
    }
    f
}
