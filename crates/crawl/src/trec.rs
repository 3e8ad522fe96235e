//! Streaming TREC SGML reader: `<DOC>` ... `</DOC>` documents with a
//! `<DOCNO>` and, WT10g style, an optional `<DOCHDR>` (URL line, then HTTP
//! headers). Tags are ASCII case-insensitive and may have blanks before `>`.

use std::collections::VecDeque;

use super::http;
use super::input::Source;
use super::{
    AnomalyKind, CrawlEvent, CrawlOptions, RawBytes, RawDoc, Skip, SkipReason, anomaly, resync,
};

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

pub(crate) struct TrecParser {
    opts: CrawlOptions,
    keep_limit: usize,
}

impl TrecParser {
    pub(crate) fn new(opts: CrawlOptions) -> Self {
        let keep_limit = opts.keep_limit();
        Self { opts, keep_limit }
    }

    /// Reads the next document, pushing its events. Returns false at end of input.
    pub(crate) fn next_doc(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) -> bool {
        // ---- find <DOC>
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
        let Some(open_len) = open_len else {
            return false;
        };
        src.start_record();
        let doc_off = src.offset();
        let open_tag = self
            .opts
            .keep_skipped
            .then(|| src.avail()[..open_len].to_vec());
        src.consume(open_len);

        // ---- content up to </DOC> (or a new <DOC>, or EOF)
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

        // ---- fields
        let (docid, mut body_start) = match find_tag(&kept, b"docno", false) {
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
        let mut url = None;
        let mut head = http::HttpHead::default();
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
                        url = Some(t.into_owned());
                    }
                }
                head = http::parse_head(&hdr[nl..]);
                body_start = hs + e + el;
            }
        }

        let doc_end = total.min(kept.len() as u64) as usize;
        let body_start = body_start.min(doc_end);
        let cap = usize::try_from(self.opts.max_record_bytes).unwrap_or(usize::MAX);
        let body_total = total - body_start as u64;
        let end = doc_end.min(body_start.saturating_add(cap));
        let body = kept[body_start..end].to_vec();
        let capped = body_total > cap as u64;
        let truncated = capped || !closed;
        let raw = |kept: &[u8]| {
            open_tag.as_ref().map(|tag| RawBytes {
                bytes: [tag.as_slice(), &kept[..doc_end]].concat(),
                truncated: (doc_end as u64) < total,
            })
        };
        if !closed {
            // `</DOC>` missing (end of input, or a new `<DOC>` began)
            out.push_back(anomaly(
                AnomalyKind::TruncatedRecord,
                src.offset(),
                0,
                docid.clone(),
            ));
        }
        let Some(docid) = docid else {
            out.push_back(CrawlEvent::Skip(Skip {
                reason: SkipReason::NoDocid,
                offset: doc_off,
                record_id: None,
                raw: raw(&kept),
            }));
            return true;
        };
        if let Some(reason) = super::bad_docid(&docid) {
            out.push_back(CrawlEvent::Skip(Skip {
                reason,
                offset: doc_off,
                record_id: Some(docid),
                raw: raw(&kept),
            }));
            return true;
        }
        if body.trim_ascii().is_empty() {
            out.push_back(CrawlEvent::Skip(Skip {
                reason: SkipReason::EmptyBody,
                offset: doc_off,
                record_id: Some(docid),
                raw: raw(&kept),
            }));
            return true;
        }
        out.push_back(CrawlEvent::Doc(RawDoc {
            docid,
            record_id: None,
            language: None,
            span: super::Span::default(),
            url,
            offset: doc_off,
            http_status: head.status,
            content_type: head.mime(),
            http_charset: head.charset(),
            body,
            truncated,
            original_len: body_total,
            capped,
            markup: super::Markup::Html,
            utf8: false,
            heads: None,
        }));
        true
    }
}
