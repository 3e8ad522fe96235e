//! Lenient streaming WARC record reader.
//!
//! Framing rules:
//! * A record starts at a *plausible header*: a line `WARC/<digits>.<digits>`
//!   followed by `Name: value` lines among which (before the blank line, within
//!   4 KiB) one is named `WARC-*`.
//! * The header ends at the first empty line (LF or CRLF).
//! * The block is `Content-Length` bytes, except that if a plausible header
//!   starts at a line start *inside* the declared block, and the declared end
//!   is not itself followed by a plausible header (or the end of input), the
//!   block is cut there ([`AnomalyKind::ContentLengthTooLong`]; the damaged
//!   Luc4TREC ClueWeb09 copy). Declared ends over 1 MiB past such a header
//!   are not verified: the block is cut.
//! * After the block up to 4 CR/LF bytes are the trailer (`\r\n\r\n` in
//!   WARC/1.x; none or one `\n` in raw ClueWeb09 WARC/0.18).
//! * If the block is followed directly (no CR/LF) by something that is not a
//!   plausible header, the Content-Length was too short: the bytes up to the
//!   next plausible header are appended to the block
//!   ([`AnomalyKind::ContentLengthTooShort`]).
//! * Otherwise whitespace between records is [`AnomalyKind::StrayBytes`] and
//!   other bytes before the next plausible header are [`AnomalyKind::Resync`].

use std::collections::VecDeque;

use memchr::memmem;

use super::http;
use super::input::Source;
use super::{
    AnomalyKind, CrawlEvent, CrawlOptions, RawBytes, RawDoc, Skip, SkipReason, anomaly, resync,
};

/// Longest WARC header block accepted.
const MAX_WARC_HEAD: usize = 64 * 1024;
/// Bytes scanned per step of the block / resync loops.
const SCAN_CHUNK: usize = 64 * 1024;
/// Look-ahead used to judge whether a `WARC/` line starts a real header.
const PLAUSIBLE_LOOKAHEAD: usize = 4096;

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// True if `line` (without line end) is `WARC/<digits>.<digits>` plus optional blanks.
fn is_version_line(line: &[u8]) -> bool {
    let Some(v) = line.strip_prefix(b"WARC/") else {
        return false;
    };
    let v = v.trim_ascii_end();
    let Some(dot) = memchr::memchr(b'.', v) else {
        return false;
    };
    let (a, b) = (&v[..dot], &v[dot + 1..]);
    !a.is_empty()
        && !b.is_empty()
        && a.len() <= 3
        && b.len() <= 3
        && a.iter().all(u8::is_ascii_digit)
        && b.iter().all(u8::is_ascii_digit)
}

/// Whether a plausible WARC header starts at `rel` bytes past the current position.
pub(crate) fn plausible_header_at(src: &mut Source, rel: usize) -> bool {
    let have = src.ensure(rel + PLAUSIBLE_LOOKAHEAD);
    if have <= rel {
        return false;
    }
    let b = &src.avail()[rel..have.min(rel + PLAUSIBLE_LOOKAHEAD)];
    if !b.starts_with(b"WARC/") {
        return false;
    }
    let Some(nl) = memchr::memchr(b'\n', b) else {
        return false;
    };
    if !is_version_line(strip_cr(&b[..nl])) {
        return false;
    }
    let mut p = nl + 1;
    while p < b.len() {
        let Some(e) = memchr::memchr(b'\n', &b[p..]) else {
            return false;
        };
        let line = strip_cr(&b[p..p + e]);
        if line.is_empty() {
            return false;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            return false;
        };
        let name = line[..colon].trim_ascii();
        if name.len() >= 5 && name[..5].eq_ignore_ascii_case(b"WARC-") {
            return true;
        }
        p += e + 1;
    }
    false
}

/// Furthest declared block end we look ahead to when a header appears inside a block.
const VERIFY_WINDOW: u64 = 1024 * 1024;

/// Called when a plausible header appears inside a declared block whose end is
/// `remaining` bytes past the current position: true if the Content-Length
/// looks right after all (the input ends exactly there, or up to 4 CR/LF
/// bytes and then a plausible header follow), so the header-like text is part
/// of the body. Declared ends more than [`VERIFY_WINDOW`] away are not
/// checked (false: the block is cut rather than risk swallowing records).
fn declared_end_is_sound(src: &mut Source, remaining: u64) -> bool {
    if remaining > VERIFY_WINDOW {
        return false;
    }
    let end = remaining as usize;
    let have = src.ensure(end + 4 + PLAUSIBLE_LOOKAHEAD);
    if have < end {
        return false;
    }
    let t = src.avail()[end..have.min(end + 4)]
        .iter()
        .take_while(|&&b| b == b'\r' || b == b'\n')
        .count();
    have == end + t || plausible_header_at(src, end + t)
}

/// Consumes whitespace; returns how many bytes.
fn skip_ws(src: &mut Source) -> u64 {
    let mut n = 0u64;
    loop {
        if src.ensure(1) == 0 {
            return n;
        }
        let a = src.avail();
        let len = a.len();
        let k = a.iter().take_while(|&&b| is_ws(b)).count();
        src.consume(k);
        n += k as u64;
        if k < len {
            return n;
        }
    }
}

/// Consumes bytes until a plausible header starts (or EOF), passing them to
/// `sink`. Position 0 is taken to be a line start. Returns the count.
fn scan_to_header(src: &mut Source, mut sink: impl FnMut(&[u8])) -> u64 {
    let finder = memmem::Finder::new(b"\nWARC/");
    let mut skipped = 0u64;
    let mut at_line_start = true;
    loop {
        let have = src.ensure(SCAN_CHUNK + 8);
        if have == 0 {
            return skipped;
        }
        if at_line_start && plausible_header_at(src, 0) {
            return skipped;
        }
        let mut from = 0usize;
        let mut found = None;
        loop {
            let a = src.avail();
            match finder.find(&a[from..]) {
                Some(i) => {
                    let c = from + i + 1;
                    if plausible_header_at(src, c) {
                        found = Some(c);
                        break;
                    }
                    from = c;
                }
                None => break,
            }
        }
        let have = src.avail().len();
        let take = match found {
            Some(c) => c,
            None if have <= 5 => have,
            None => have - 5,
        };
        sink(&src.avail()[..take]);
        at_line_start = take > 0 && src.avail()[take - 1] == b'\n';
        src.consume(take);
        skipped += take as u64;
        if found.is_some() {
            return skipped;
        }
    }
}

#[derive(Default)]
struct WarcHead {
    wtype: Option<String>,
    record_id: Option<String>,
    trec_id: Option<String>,
    /// ClueWeb22's docid header.
    cw22_id: Option<String>,
    /// The header chosen as docid ([`CrawlOptions::docid_header`]).
    chosen: Option<String>,
    /// ClueWeb22's `Language` header.
    language: Option<String>,
    target_uri: Option<String>,
    content_type: Option<Vec<u8>>,
    content_length: Option<u64>,
    bad_bytes: u64,
}

fn lossy_trim(v: &[u8]) -> Option<String> {
    let s = String::from_utf8_lossy(v.trim_ascii());
    let s = s.trim();
    let s = s
        .strip_prefix('<')
        .and_then(|x| x.strip_suffix('>'))
        .unwrap_or(s)
        .trim();
    if s.is_empty() {
        None
    } else {
        Some(s.to_string())
    }
}

fn parse_warc_head(head: &[u8], chosen: Option<&str>) -> WarcHead {
    let mut h = WarcHead::default();
    let mut lines = head.split(|&b| b == b'\n');
    lines.next(); // version line
    for line in lines {
        let line = strip_cr(line);
        if line.is_empty() {
            continue;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            h.bad_bytes += line.len() as u64 + 1;
            continue;
        };
        let name = line[..colon].trim_ascii();
        let value = line[colon + 1..].trim_ascii();
        let is = |n: &str| name.eq_ignore_ascii_case(n.as_bytes());
        if h.chosen.is_none() && chosen.is_some_and(is) {
            h.chosen = lossy_trim(value);
        }
        if is("WARC-Type") {
            h.wtype = Some(String::from_utf8_lossy(value).to_ascii_lowercase());
        } else if is("WARC-Record-ID") {
            h.record_id = lossy_trim(value);
        } else if is("WARC-TREC-ID") {
            h.trec_id = lossy_trim(value);
        } else if is("ClueWeb22-ID") {
            h.cw22_id = lossy_trim(value);
        } else if is("Language") {
            h.language = lossy_trim(value);
        } else if is("WARC-Target-URI") {
            h.target_uri = lossy_trim(value);
        } else if is("Content-Type") {
            h.content_type = Some(value.to_vec());
        } else if is("Content-Length") {
            match std::str::from_utf8(value)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
            {
                Some(n) => h.content_length = Some(n),
                None => h.bad_bytes += line.len() as u64 + 1,
            }
        }
    }
    h
}

/// The WARC state machine (stateless between records apart from options).
pub(crate) struct WarcParser {
    opts: CrawlOptions,
    keep_limit: usize,
}

impl WarcParser {
    pub(crate) fn new(opts: CrawlOptions) -> Self {
        let keep_limit = opts.keep_limit();
        Self { opts, keep_limit }
    }

    /// Reads the next record, pushing its events. Returns false at end of input.
    pub(crate) fn next_record(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) -> bool {
        let ws_off = src.offset();
        let ws = skip_ws(src);
        if ws > 0 {
            out.push_back(anomaly(AnomalyKind::StrayBytes, ws_off, ws, None));
        }
        if src.at_eof() {
            return false;
        }
        if !plausible_header_at(src, 0) {
            let off = src.offset();
            let limit = if self.opts.keep_skipped {
                self.keep_limit
            } else {
                0
            };
            let mut garbage = Vec::new();
            let skipped = scan_to_header(src, |b| {
                let k = b.len().min(limit - garbage.len());
                garbage.extend_from_slice(&b[..k]);
            });
            out.push_back(resync(off, skipped, garbage, self.opts.keep_skipped));
            if src.at_eof() {
                return false;
            }
        }
        self.read_record(src, out);
        true
    }

    fn read_record(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) {
        src.start_record();
        let rec_off = src.offset();
        // ---- header
        let mut line_start = 0usize;
        let head_len = loop {
            match src.find_newline(line_start, MAX_WARC_HEAD) {
                Some(nl) => {
                    let line = strip_cr(&src.avail()[line_start..nl]);
                    if line.is_empty() && line_start > 0 {
                        break Some(nl + 1);
                    }
                    line_start = nl + 1;
                }
                None => break None,
            }
        };
        let Some(head_len) = head_len else {
            let have = src.avail().len();
            if have < MAX_WARC_HEAD {
                // input ended inside the header
                let raw = self.opts.keep_skipped.then(|| RawBytes {
                    bytes: src.avail().to_vec(),
                    truncated: false,
                });
                src.consume(have);
                let mut ev = anomaly(AnomalyKind::TruncatedRecord, rec_off, have as u64, None);
                if let CrawlEvent::Anomaly(a) = &mut ev {
                    a.raw = raw;
                }
                out.push_back(ev);
            } else {
                // skip the version line; the next call resynchronises
                let nl = memchr::memchr(b'\n', src.avail()).map_or(1, |i| i + 1);
                src.consume(nl);
                out.push_back(anomaly(
                    AnomalyKind::OversizedHeader,
                    rec_off,
                    nl as u64,
                    None,
                ));
            }
            return;
        };
        let h = parse_warc_head(&src.avail()[..head_len], self.opts.docid_header.as_deref());
        let head_bytes = (self.opts.keep_skipped || self.opts.keep_heads)
            .then(|| src.avail()[..head_len].to_vec());
        src.consume(head_len);
        // The docid: the chosen header, or the default chain.
        let docid = match &self.opts.docid_header {
            Some(_) => h.chosen.clone(),
            None => h
                .trec_id
                .clone()
                .or_else(|| h.cw22_id.clone())
                .or_else(|| h.record_id.clone()),
        };
        // What names the record in logs: its docid, else its record id.
        let id = docid.clone().or_else(|| h.record_id.clone());
        if h.bad_bytes > 0 {
            out.push_back(anomaly(
                AnomalyKind::BadHeaderLine,
                rec_off,
                h.bad_bytes,
                id.clone(),
            ));
        }
        let is_response = h.wtype.as_deref() == Some("response");

        // ---- block
        let want_keep = if is_response || self.opts.keep_skipped {
            self.keep_limit
        } else {
            0
        };
        // Room for the declared block up front (at most the keep limit):
        // no copies as it grows.
        let declared = h
            .content_length
            .map_or(0, |l| usize::try_from(l).unwrap_or(usize::MAX));
        let mut kept: Vec<u8> = Vec::with_capacity(declared.min(want_keep));
        let mut block_len = 0u64;
        let mut remaining = h.content_length.unwrap_or(u64::MAX);
        let mut prev_lf = true;
        let mut cut_at: Option<u64> = None;
        let mut eof_short = 0u64;
        let finder = memmem::Finder::new(b"\nWARC/");
        let block_off = src.offset();
        while remaining > 0 {
            let want = remaining.min(SCAN_CHUNK as u64) as usize;
            let have = src.ensure(want + 6);
            if have == 0 {
                if h.content_length.is_some() {
                    eof_short = remaining;
                }
                break;
            }
            let n = have.min(want);
            // look for a plausible header starting at a line start inside [0, n)
            let mut cut = None;
            if prev_lf
                && src.avail().starts_with(b"WARC/")
                && plausible_header_at(src, 0)
                && !declared_end_is_sound(src, remaining)
            {
                cut = Some(0);
            }
            let mut from = 0usize;
            while cut.is_none() {
                let lim = (n + 5).min(src.avail().len());
                match finder.find(&src.avail()[from..lim]) {
                    Some(i) => {
                        let c = from + i + 1;
                        if c >= n {
                            break;
                        }
                        if plausible_header_at(src, c) && !declared_end_is_sound(src, remaining) {
                            cut = Some(c);
                        }
                        from = c;
                    }
                    None => break,
                }
            }
            let take = cut.unwrap_or(n);
            if kept.len() < want_keep {
                let k = take.min(want_keep - kept.len());
                kept.extend_from_slice(&src.avail()[..k]);
            }
            if take > 0 {
                prev_lf = src.avail()[take - 1] == b'\n';
            }
            src.consume(take);
            block_len += take as u64;
            if cut.is_some() {
                cut_at = Some(src.offset());
                break;
            }
            remaining -= take as u64;
        }
        match (h.content_length, cut_at) {
            (None, _) => out.push_back(anomaly(
                AnomalyKind::MissingContentLength,
                block_off,
                block_len,
                id.clone(),
            )),
            (Some(declared), Some(at)) => out.push_back(anomaly(
                AnomalyKind::ContentLengthTooLong,
                at,
                declared - block_len,
                id.clone(),
            )),
            (Some(_), None) if eof_short > 0 => out.push_back(anomaly(
                AnomalyKind::TruncatedRecord,
                src.offset(),
                eof_short,
                id.clone(),
            )),
            (Some(_), None) => {
                // ---- trailer, or a too-short Content-Length
                let have = src.ensure(4);
                let t = src.avail()[..have.min(4)]
                    .iter()
                    .take_while(|&&b| b == b'\r' || b == b'\n')
                    .count();
                if t > 0 {
                    src.consume(t);
                } else if have > 0 && !plausible_header_at(src, 0) {
                    let off = src.offset();
                    let room = want_keep.saturating_sub(kept.len());
                    let mut room_left = room;
                    let extra = scan_to_header(src, |b| {
                        let k = b.len().min(room_left);
                        kept.extend_from_slice(&b[..k]);
                        room_left -= k;
                    });
                    block_len += extra;
                    out.push_back(anomaly(
                        AnomalyKind::ContentLengthTooShort,
                        off,
                        extra,
                        id.clone(),
                    ));
                }
            }
        }

        // ---- decide
        let skip = |reason: SkipReason, kept: &[u8]| {
            CrawlEvent::Skip(Skip {
                reason,
                offset: rec_off,
                record_id: id.clone(),
                raw: head_bytes.as_ref().map(|head| {
                    let mut bytes = Vec::with_capacity(head.len() + kept.len());
                    bytes.extend_from_slice(head);
                    bytes.extend_from_slice(kept);
                    RawBytes {
                        bytes,
                        truncated: (kept.len() as u64) < block_len || eof_short > 0,
                    }
                }),
            })
        };
        if !is_response {
            let t = h.wtype.clone().unwrap_or_else(|| "unknown".to_string());
            out.push_back(skip(SkipReason::NotResponse(t), &kept));
            return;
        }
        let Some(docid) = docid else {
            out.push_back(skip(SkipReason::NoDocid, &kept));
            return;
        };
        if let Some(reason) = super::bad_docid(&docid) {
            out.push_back(skip(reason, &kept));
            return;
        }
        // A block that is not an HTTP message (the WARC Content-Type is not
        // `application/http`, and it does not start with a status line) is
        // the payload itself, as in ClueWeb22's `html` part: it is indexed
        // if the WARC says HTML or it sniffs as HTML.
        let bare = h.content_type.as_ref().and_then(|ct| {
            let lower = String::from_utf8_lossy(ct).to_ascii_lowercase();
            let status_line = kept.len() >= 5 && kept[..5].eq_ignore_ascii_case(b"HTTP/");
            (!lower.contains("http") && !status_line)
                .then(|| http::mime_of(ct).unwrap_or_else(|| "unknown".to_string()))
        });
        let head = match &bare {
            Some(_) => http::HttpHead::default(),
            None => http::parse_head(&kept),
        };
        if head.bad_lines > 0 {
            out.push_back(anomaly(
                AnomalyKind::BadHeaderLine,
                block_off,
                u64::from(head.bad_lines),
                Some(docid.clone()),
            ));
        }
        if let Some(s) = head.status
            && !(200..300).contains(&s)
        {
            out.push_back(skip(SkipReason::HttpStatus(s), &kept));
            return;
        }
        let bo = head.body_offset;
        let body_total = block_len.saturating_sub(bo as u64);
        if body_total == 0 && eof_short == 0 {
            out.push_back(skip(SkipReason::EmptyBody, &kept));
            return;
        }
        let cap = usize::try_from(self.opts.max_record_bytes).unwrap_or(usize::MAX);
        let raw_end = kept.len().min(bo.saturating_add(cap));
        let raw = &kept[bo.min(raw_end)..raw_end];
        let mime = match &bare {
            Some(m) if http::is_html_mime(m) || http::sniff_html(raw) => Some(m.clone()),
            Some(m) => {
                out.push_back(skip(SkipReason::NotHtml(m.clone()), &kept));
                return;
            }
            None => head.mime(),
        };
        match &mime {
            Some(m) if bare.is_none() && !http::is_html_mime(m) => {
                out.push_back(skip(SkipReason::NotHtml(m.clone()), &kept));
                return;
            }
            None if !http::sniff_html(raw) => {
                out.push_back(skip(SkipReason::NotHtml("unknown".to_string()), &kept));
                return;
            }
            _ => {}
        }
        let mut capped = body_total > cap as u64;
        let mut truncated = capped || eof_short > 0;
        let original_len = body_total + eof_short;
        let body_at = bo.min(raw_end);
        let heads = match (&head_bytes, self.opts.keep_heads) {
            (Some(w), true) => Some(Box::new(super::Heads {
                warc: w.clone(),
                http: kept[..bo.min(kept.len())].to_vec(),
            })),
            _ => None,
        };
        let mut body: Vec<u8> = if self.opts.keep_skipped {
            kept[body_at..raw_end].to_vec()
        } else {
            // The record is kept only to quarantine it: its buffer becomes
            // the body (the HTTP head and anything past the cap dropped).
            let mut b = std::mem::take(&mut kept);
            b.truncate(raw_end);
            b.drain(..body_at);
            // Room reserved for a declared length the block did not have
            // is given back: a body holds about its own length.
            if b.capacity() > 2 * b.len() + 4096 {
                b.shrink_to_fit();
            }
            b
        };
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
                    block_off + bo as u64,
                    body.len() as u64,
                    Some(docid.clone()),
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
        if body.is_empty() && !truncated {
            out.push_back(skip(SkipReason::EmptyBody, &kept));
            return;
        }
        let record_id = h.record_id.clone().filter(|r| *r != docid);
        out.push_back(CrawlEvent::Doc(RawDoc {
            docid,
            record_id,
            language: h.language.clone(),
            span: super::Span::default(),
            url: h.target_uri.clone(),
            offset: rec_off,
            http_status: head.status,
            content_type: mime,
            http_charset: match &bare {
                Some(_) => h.content_type.as_deref().and_then(http::charset_of),
                None => head.charset(),
            },
            body,
            truncated,
            original_len,
            capped,
            markup: super::Markup::Html,
            utf8: false,
            heads,
        }));
    }
}
