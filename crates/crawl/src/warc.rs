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

use crate::event::{AnomalyKind, CrawlEvent, RawBytes, Skip, SkipReason, anomaly, resync};
use crate::input::Source;
use crate::options::CrawlOptions;
use head::{WarcHead, parse_warc_head};

mod head;
mod response;

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

    /// Reads the record whose version line is at the current position:
    /// its head, its block (with the framing anomalies), then the decision.
    fn read_record(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) {
        src.start_record();
        let rec_off = src.offset();
        let Some(head_len) = find_head_end(src) else {
            self.refuse_head(src, rec_off, out);
            return;
        };
        let head = self.take_head(src, rec_off, head_len);
        if head.fields.bad_bytes > 0 {
            out.push_back(anomaly(
                AnomalyKind::BadHeaderLine,
                rec_off,
                head.fields.bad_bytes,
                head.id.clone(),
            ));
        }
        let want_keep = if head.is_response || self.opts.keep_skipped {
            self.keep_limit
        } else {
            0
        };
        let mut block = read_block(src, head.fields.content_length, want_keep);
        end_block(src, &head, &mut block, want_keep, out);
        self.decide(&head, block, out);
    }

    /// The record's head could not be read (the input ended inside it, or
    /// it runs past [`MAX_WARC_HEAD`]): the anomaly, with what it consumed.
    fn refuse_head(&self, src: &mut Source, rec_off: u64, out: &mut VecDeque<CrawlEvent>) {
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
    }

    /// Parses and consumes the record's head (`head_len` bytes) and names
    /// the record.
    fn take_head(&self, src: &mut Source, rec_off: u64, head_len: usize) -> Head {
        let fields = parse_warc_head(&src.avail()[..head_len], self.opts.docid_header.as_deref());
        let bytes = (self.opts.keep_skipped || self.opts.keep_heads)
            .then(|| src.avail()[..head_len].to_vec());
        src.consume(head_len);
        // The docid: the chosen header, or the default chain.
        let docid = match &self.opts.docid_header {
            Some(_) => fields.chosen.clone(),
            None => fields
                .trec_id
                .clone()
                .or_else(|| fields.cw22_id.clone())
                .or_else(|| fields.record_id.clone()),
        };
        // What names the record in logs: its docid, else its record id.
        let id = docid.clone().or_else(|| fields.record_id.clone());
        let is_response = fields.wtype.as_deref() == Some("response");
        Head {
            offset: rec_off,
            fields,
            bytes,
            docid,
            id,
            is_response,
        }
    }
}

/// A record's WARC head, parsed, and what names the record.
struct Head {
    /// Offset of the record's version line.
    offset: u64,
    /// The header fields.
    fields: WarcHead,
    /// The head's bytes (with `keep_skipped` or `keep_heads`).
    bytes: Option<Vec<u8>>,
    /// The docid: the chosen header, or the first of the default chain.
    docid: Option<String>,
    /// What names the record in logs: its docid, else its record id.
    id: Option<String>,
    /// The record is a `response`.
    is_response: bool,
}

impl Head {
    /// The record's skip event, with its head and the block's kept bytes
    /// when the head was kept.
    fn skip(&self, reason: SkipReason, block: &Block) -> CrawlEvent {
        let kept = &block.kept;
        CrawlEvent::Skip(Skip {
            reason,
            offset: self.offset,
            record_id: self.id.clone(),
            raw: self.bytes.as_ref().map(|head| {
                let mut bytes = Vec::with_capacity(head.len() + kept.len());
                bytes.extend_from_slice(head);
                bytes.extend_from_slice(kept);
                RawBytes {
                    bytes,
                    truncated: (kept.len() as u64) < block.len || block.eof_short > 0,
                }
            }),
        })
    }
}

/// A record's block as read.
struct Block {
    /// Offset of the block's first byte.
    offset: u64,
    /// The block's first bytes, up to the keep limit (and the bytes
    /// appended for a too-short Content-Length).
    kept: Vec<u8>,
    /// The block's length in the input, as framing decided.
    len: u64,
    /// Where the block was cut at a record header inside the declared
    /// length (the offset after the cut).
    cut_at: Option<u64>,
    /// Bytes of the declared length missing when the input ended.
    eof_short: u64,
}

/// The length of the head at the current position, through its blank
/// line, or `None` if there is none within [`MAX_WARC_HEAD`] bytes.
fn find_head_end(src: &mut Source) -> Option<usize> {
    let mut line_start = 0usize;
    loop {
        let nl = src.find_newline(line_start, MAX_WARC_HEAD)?;
        let line = strip_cr(&src.avail()[line_start..nl]);
        if line.is_empty() && line_start > 0 {
            return Some(nl + 1);
        }
        line_start = nl + 1;
    }
}

/// Reads the block at the current position: `content_length` bytes (to the
/// end of the input without one), cut at a plausible record header inside
/// them unless the declared end proves sound; the first `want_keep` bytes
/// are kept.
fn read_block(src: &mut Source, content_length: Option<u64>, want_keep: usize) -> Block {
    // Room for the declared block up front (at most the keep limit):
    // no copies as it grows.
    let declared = content_length.map_or(0, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let mut block = Block {
        offset: src.offset(),
        kept: Vec::with_capacity(declared.min(want_keep)),
        len: 0,
        cut_at: None,
        eof_short: 0,
    };
    let mut remaining = content_length.unwrap_or(u64::MAX);
    let mut prev_lf = true;
    let finder = memmem::Finder::new(b"\nWARC/");
    while remaining > 0 {
        let want = remaining.min(SCAN_CHUNK as u64) as usize;
        let have = src.ensure(want + 6);
        if have == 0 {
            if content_length.is_some() {
                block.eof_short = remaining;
            }
            break;
        }
        let n = have.min(want);
        let cut = find_cut(src, &finder, prev_lf, n, remaining);
        let take = cut.unwrap_or(n);
        let kept = &mut block.kept;
        if kept.len() < want_keep {
            let k = take.min(want_keep - kept.len());
            kept.extend_from_slice(&src.avail()[..k]);
        }
        if take > 0 {
            prev_lf = src.avail()[take - 1] == b'\n';
        }
        src.consume(take);
        block.len += take as u64;
        if cut.is_some() {
            block.cut_at = Some(src.offset());
            break;
        }
        remaining -= take as u64;
    }
    block
}

/// Where in the next `n` bytes of a block a plausible record header starts
/// at a line start (`prev_lf`: position 0 is one), when the declared end,
/// `remaining` bytes away, is not sound.
#[inline]
fn find_cut(
    src: &mut Source,
    finder: &memmem::Finder<'_>,
    prev_lf: bool,
    n: usize,
    remaining: u64,
) -> Option<usize> {
    if prev_lf
        && src.avail().starts_with(b"WARC/")
        && plausible_header_at(src, 0)
        && !declared_end_is_sound(src, remaining)
    {
        return Some(0);
    }
    let mut from = 0usize;
    loop {
        let lim = (n + 5).min(src.avail().len());
        let i = finder.find(&src.avail()[from..lim])?;
        let c = from + i + 1;
        if c >= n {
            return None;
        }
        if plausible_header_at(src, c) && !declared_end_is_sound(src, remaining) {
            return Some(c);
        }
        from = c;
    }
}

/// Pushes the framing anomaly of the block just read (no Content-Length,
/// cut short by a header, cut short by the end of input) or reads its
/// trailer; a block followed directly by other bytes than a header was
/// declared too short, and those bytes are appended to it.
fn end_block(
    src: &mut Source,
    head: &Head,
    block: &mut Block,
    want_keep: usize,
    out: &mut VecDeque<CrawlEvent>,
) {
    let id = &head.id;
    match (head.fields.content_length, block.cut_at) {
        (None, _) => out.push_back(anomaly(
            AnomalyKind::MissingContentLength,
            block.offset,
            block.len,
            id.clone(),
        )),
        (Some(declared), Some(at)) => out.push_back(anomaly(
            AnomalyKind::ContentLengthTooLong,
            at,
            declared - block.len,
            id.clone(),
        )),
        (Some(_), None) if block.eof_short > 0 => out.push_back(anomaly(
            AnomalyKind::TruncatedRecord,
            src.offset(),
            block.eof_short,
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
                let kept = &mut block.kept;
                let mut room_left = want_keep.saturating_sub(kept.len());
                let extra = scan_to_header(src, |b| {
                    let k = b.len().min(room_left);
                    kept.extend_from_slice(&b[..k]);
                    room_left -= k;
                });
                block.len += extra;
                out.push_back(anomaly(
                    AnomalyKind::ContentLengthTooShort,
                    off,
                    extra,
                    id.clone(),
                ));
            }
        }
    }
}
