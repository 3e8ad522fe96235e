//! A WARC response's fate: skipped (not a response, no docid or a bad one,
//! an HTTP status that is not 2xx, not HTML, an empty body) or a document,
//! with its body de-chunked and gunzipped as its HTTP head says.

use std::collections::VecDeque;

use super::{Block, Head, WarcParser};
use crate::event::{
    AnomalyKind, CrawlEvent, Heads, Markup, RawDoc, SkipReason, Span, anomaly, bad_docid,
};
use crate::http;

impl WarcParser {
    /// Pushes the record's skip or document: not a response, no docid or
    /// a bad one, an HTTP status that is not 2xx, not HTML, or an empty
    /// body is a skip.
    pub(super) fn decide(&self, head: &Head, mut block: Block, out: &mut VecDeque<CrawlEvent>) {
        if !head.is_response {
            let t = head
                .fields
                .wtype
                .clone()
                .unwrap_or_else(|| "unknown".to_string());
            out.push_back(head.skip(SkipReason::NotResponse(t), &block));
            return;
        }
        let Some(docid) = head.docid.clone() else {
            out.push_back(head.skip(SkipReason::NoDocid, &block));
            return;
        };
        if let Some(reason) = bad_docid(&docid) {
            out.push_back(head.skip(reason, &block));
            return;
        }
        let Some(payload) = self.payload(head, &block, &docid, out) else {
            return;
        };
        let heads = match (&head.bytes, self.opts.keep_heads) {
            (Some(w), true) => Some(Box::new(Heads {
                warc: w.clone(),
                http: block.kept[..payload.body_offset().min(block.kept.len())].to_vec(),
            })),
            _ => None,
        };
        let body = self.body(&mut block, &payload, &docid, out);
        if body.bytes.is_empty() && !body.truncated {
            out.push_back(head.skip(SkipReason::EmptyBody, &block));
            return;
        }
        let record_id = head.fields.record_id.clone().filter(|r| *r != docid);
        out.push_back(CrawlEvent::Doc(RawDoc {
            docid,
            record_id,
            language: head.fields.language.clone(),
            span: Span::default(),
            url: head.fields.target_uri.clone(),
            offset: head.offset,
            http_status: payload.http.status,
            content_type: payload.mime,
            http_charset: match &payload.bare {
                Some(_) => head
                    .fields
                    .content_type
                    .as_deref()
                    .and_then(http::charset_of),
                None => payload.http.charset(),
            },
            body: body.bytes,
            truncated: body.truncated,
            original_len: body.original_len,
            capped: body.capped,
            markup: Markup::Html,
            utf8: false,
            heads,
        }));
    }

    /// What the block of a response holds: an HTTP message or a bare
    /// payload, its status and MIME type. `None` when the record is
    /// skipped for them (the skip pushed).
    fn payload(
        &self,
        head: &Head,
        block: &Block,
        docid: &str,
        out: &mut VecDeque<CrawlEvent>,
    ) -> Option<Payload> {
        let kept = &block.kept;
        // A block that is not an HTTP message (the WARC Content-Type is not
        // `application/http`, and it does not start with a status line) is
        // the payload itself, as in ClueWeb22's `html` part: it is indexed
        // if the WARC says HTML or it sniffs as HTML.
        let bare = head.fields.content_type.as_ref().and_then(|ct| {
            let lower = String::from_utf8_lossy(ct).to_ascii_lowercase();
            let status_line = kept.len() >= 5 && kept[..5].eq_ignore_ascii_case(b"HTTP/");
            (!lower.contains("http") && !status_line)
                .then(|| http::mime_of(ct).unwrap_or_else(|| "unknown".to_string()))
        });
        let http = match &bare {
            Some(_) => http::HttpHead::default(),
            None => http::parse_head(kept),
        };
        if http.bad_lines > 0 {
            out.push_back(anomaly(
                AnomalyKind::BadHeaderLine,
                block.offset,
                u64::from(http.bad_lines),
                Some(docid.to_string()),
            ));
        }
        if let Some(s) = http.status
            && !(200..300).contains(&s)
        {
            out.push_back(head.skip(SkipReason::HttpStatus(s), block));
            return None;
        }
        let bo = http.body_offset;
        let body_total = block.len.saturating_sub(bo as u64);
        if body_total == 0 && block.eof_short == 0 {
            out.push_back(head.skip(SkipReason::EmptyBody, block));
            return None;
        }
        let raw_end = kept.len().min(bo.saturating_add(self.cap()));
        let raw = &kept[bo.min(raw_end)..raw_end];
        let mime = match &bare {
            Some(m) if http::is_html_mime(m) || http::sniff_html(raw) => Some(m.clone()),
            Some(m) => {
                out.push_back(head.skip(SkipReason::NotHtml(m.clone()), block));
                return None;
            }
            None => http.mime(),
        };
        match &mime {
            Some(m) if bare.is_none() && !http::is_html_mime(m) => {
                out.push_back(head.skip(SkipReason::NotHtml(m.clone()), block));
                return None;
            }
            None if !http::sniff_html(raw) => {
                out.push_back(head.skip(SkipReason::NotHtml("unknown".to_string()), block));
                return None;
            }
            _ => {}
        }
        Some(Payload { bare, http, mime })
    }

    /// The entity body of a response: cut at the cap, de-chunked and
    /// gunzipped as its HTTP head says. Without `keep_skipped` the block's
    /// buffer becomes the body (`block.kept` is left empty).
    fn body(
        &self,
        block: &mut Block,
        payload: &Payload,
        docid: &str,
        out: &mut VecDeque<CrawlEvent>,
    ) -> Body {
        let cap = self.cap();
        let bo = payload.body_offset();
        let kept = &mut block.kept;
        let raw_end = kept.len().min(bo.saturating_add(cap));
        let body_total = block.len.saturating_sub(bo as u64);
        let mut capped = body_total > cap as u64;
        let mut truncated = capped || block.eof_short > 0;
        let original_len = body_total + block.eof_short;
        let body_at = bo.min(raw_end);
        let mut body: Vec<u8> = if self.opts.keep_skipped {
            kept[body_at..raw_end].to_vec()
        } else {
            // The record is kept only to quarantine it: its buffer becomes
            // the body (the HTTP head and anything past the cap dropped).
            let mut b = std::mem::take(kept);
            b.truncate(raw_end);
            b.drain(..body_at);
            // Room reserved for a declared length the block did not have
            // is given back: a body holds about its own length.
            if b.capacity() > 2 * b.len() + 4096 {
                b.shrink_to_fit();
            }
            b
        };
        let head = &payload.http;
        if head.header("transfer-encoding").is_some_and(|v| {
            String::from_utf8_lossy(v)
                .to_ascii_lowercase()
                .contains("chunked")
        }) && let Some(d) = http::dechunk(&body, cap)
        {
            body = d;
        }
        if head.header("content-encoding").is_some_and(|v| {
            let v = v.trim_ascii();
            v.eq_ignore_ascii_case(b"gzip") || v.eq_ignore_ascii_case(b"x-gzip")
        }) && let Some((mut d, failed)) = http::gunzip_if_gzip(&body, cap)
        {
            if failed && !truncated {
                out.push_back(anomaly(
                    AnomalyKind::BadContentEncoding,
                    block.offset + bo as u64,
                    body.len() as u64,
                    Some(docid.to_string()),
                ));
            }
            if !d.is_empty() || !failed {
                if d.len() > cap {
                    d.truncate(cap);
                    truncated = true;
                    capped = true;
                }
                body = d;
            }
        }
        Body {
            bytes: body,
            truncated,
            capped,
            original_len,
        }
    }

    /// The per-record cap on the body, in bytes.
    fn cap(&self) -> usize {
        usize::try_from(self.opts.max_record_bytes).unwrap_or(usize::MAX)
    }
}

/// What a response's block holds besides the body.
struct Payload {
    /// For a bare payload (no HTTP message): its MIME type from the WARC
    /// `Content-Type`.
    bare: Option<String>,
    /// The HTTP head (empty for a bare payload).
    http: http::HttpHead,
    /// The body's MIME type.
    mime: Option<String>,
}

impl Payload {
    /// Where the entity body starts in the block.
    fn body_offset(&self) -> usize {
        self.http.body_offset
    }
}

/// A response's entity body, decoded, with its flags.
struct Body {
    bytes: Vec<u8>,
    truncated: bool,
    capped: bool,
    original_len: u64,
}
