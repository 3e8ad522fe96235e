//! Streaming JSON lines reader: one JSON object per line, as in Anserini's
//! `JsonCollection` (`{"id": ..., "contents": ...}`), BEIR's `corpus.jsonl`
//! (`{"_id": ..., "title": ..., "text": ...}`) and ClueWeb22's `txt` part
//! (`{"ClueWeb22-ID": ..., "URL": ..., "URL-hash": ..., "Language": ...,
//! "Clean-Text": ...}`).
//!
//! # Fields
//!
//! Which keys are read is set by [`JsonFields`]; by default:
//!
//! | role | keys (exact, case-sensitive) |
//! |---|---|
//! | docid | `id`, `_id`, `docid`, `ClueWeb22-ID` |
//! | title | `title` |
//! | text | `contents`, `text`, `body`, `Clean-Text` |
//! | URL | `url`, `URL` |
//! | language | `language`, `Language` |
//!
//! The docid, title, URL and language are the first key of their role met
//! in the line; the text is every key of its role met, in line order,
//! joined by a blank line. A value may be a string (escapes decoded), a
//! number, `true` or `false` (taken as written); `null` counts as absent;
//! an array or object under a mapped key is dropped and counted
//! ([`AnomalyKind::UnknownField`]). Values of other keys are skipped,
//! checking only strings and the nesting of brackets.
//!
//! The document body is the title (line ends read as spaces), `\n`, then
//! the text ([`Markup::Text`]): it goes through the charset decoder and the
//! UTF-8 cleaner like every body, so invalid UTF-8 bytes inside strings are
//! counted, and so is a lone surrogate escape (`\ud800`), which is written
//! as its three-byte form (`ED A0 80`) and counted as a `surrogate` error.
//! A pair of surrogate escapes is one four-byte character.
//!
//! # Losses (never a panic, never fatal)
//!
//! * A line that is not one JSON object followed by blanks (bad syntax, an
//!   unterminated string, the line ends inside the object, anything after
//!   it, nesting deeper than 512): [`SkipReason::MalformedLine`], with
//!   what was wrong and where in the line; reading goes on at the next line.
//!   Raw control characters inside strings are accepted (a `\n` cannot
//!   be: it ends the line).
//! * No docid (or an empty one, or one over 64 KiB): [`SkipReason::NoDocid`];
//!   a docid holding whitespace or a control character (`"sp ace"`,
//!   `"nb\u00a0sp"`): [`SkipReason::BadDocid`]; neither title nor text:
//!   [`SkipReason::EmptyBody`].
//! * Blank lines, and a byte order mark at the start of any line (as in
//!   concatenated files): [`AnomalyKind::StrayBytes`].
//! * A title and text over `max_record_bytes` together (with the `\n`
//!   between them): cut there and
//!   flagged `capped`; the rest of the line is streamed past, never
//!   buffered. Memory per line is bounded by the cap plus 64 KiB for each
//!   of the docid, URL and language (and, with `keep_skipped`, the keep
//!   limit).

pub use sieve_types::JsonFields;
use std::collections::VecDeque;

use crate::event::{
    Anomaly, AnomalyKind, CrawlEvent, Markup, RawBytes, RawDoc, Skip, SkipReason, Span, bad_docid,
};
use crate::input::Source;
use crate::lines::{lossy_trim, skip_between_lines, text_body};
use crate::options::CrawlOptions;
use string::Sink;

mod string;

/// Longest docid, URL or language kept.
const MAX_SMALL: usize = 64 * 1024;
/// Longest key compared with the mapped keys (longer keys match none).
const MAX_KEY: usize = 256;
/// Deepest nesting accepted in a skipped value.
const MAX_DEPTH: usize = 512;
/// Bytes looked at per step when skipping to the end of a line.
const CHUNK: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Id,
    Title,
    Text,
    Url,
    Language,
}

/// A syntax error: what was wrong, at which byte of the line.
struct Bad(String);

/// One line being read.
#[derive(Default)]
struct Line {
    start: u64,
    id: Option<Vec<u8>>,
    id_too_long: bool,
    title: Option<Vec<u8>>,
    text: Vec<u8>,
    texts: usize,
    url: Option<Vec<u8>>,
    language: Option<Vec<u8>>,
    /// Decoded title and text bytes, including those past the cap.
    total: u64,
    capped: bool,
    dropped: Vec<(u64, u64)>,
    raw: Vec<u8>,
    raw_total: u64,
}

pub(crate) struct JsonParser {
    opts: CrawlOptions,
    keys: Vec<(Vec<u8>, Role)>,
    cap: usize,
    keep_limit: usize,
    line: Line,
    key: Vec<u8>,
    scratch: Vec<u8>,
    /// Decoded bytes of the string being read (reused).
    decoded: Vec<u8>,
}

fn show(b: Option<u8>) -> String {
    match b {
        None => "the end of the input".into(),
        Some(b'\n') => "the end of the line".into(),
        Some(b) if b.is_ascii_graphic() => format!("`{}`", b as char),
        Some(b) => format!("byte 0x{b:02x}"),
    }
}

impl JsonParser {
    pub(crate) fn new(opts: CrawlOptions) -> Self {
        let mut keys = Vec::new();
        let f = &opts.json_fields;
        for (names, role) in [
            (&f.id, Role::Id),
            (&f.title, Role::Title),
            (&f.text, Role::Text),
            (&f.url, Role::Url),
            (&f.language, Role::Language),
        ] {
            for n in names {
                keys.push((n.as_bytes().to_vec(), role));
            }
        }
        let cap = usize::try_from(opts.max_record_bytes).unwrap_or(usize::MAX);
        let keep_limit = opts.keep_limit();
        JsonParser {
            opts,
            keys,
            cap,
            keep_limit,
            line: Line::default(),
            key: Vec::new(),
            scratch: Vec::new(),
            decoded: Vec::new(),
        }
    }

    /// Reads the next line, pushing its events. Returns false at end of input.
    pub(crate) fn next_line(&mut self, src: &mut Source, out: &mut VecDeque<CrawlEvent>) -> bool {
        // Blank lines (and byte order marks) between records.
        if !skip_between_lines(src, out, |b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
            return false;
        }
        src.start_record();
        self.line = Line {
            start: src.offset(),
            ..Line::default()
        };
        let result = self.object(src);
        let result = result.and_then(|()| {
            self.blanks(src);
            match self.peek(src) {
                None => Ok(()),
                Some(b'\n') => {
                    self.take(src, 1);
                    Ok(())
                }
                Some(b) => Err(self.bad(src, format!("{} after the object", show(Some(b))))),
            }
        });
        if let Err(Bad(why)) = result {
            self.skip_line(src);
            let id = self.line.id.as_deref().and_then(lossy_trim);
            out.push_back(self.skip(SkipReason::MalformedLine(why), id));
            return true;
        }
        self.finish(out);
        true
    }

    /// Where the current position is in the line, for messages.
    fn bad(&self, src: &Source, what: String) -> Bad {
        Bad(format!(
            "byte {} of the line: {what}",
            src.offset() - self.line.start
        ))
    }

    /// The byte at the current position, or `None` at the end of the input.
    #[inline]
    fn peek(&self, src: &mut Source) -> Option<u8> {
        (src.ensure(1) > 0).then(|| src.avail()[0])
    }

    /// Consumes `n` available bytes, keeping them for the quarantine.
    #[inline]
    fn take(&mut self, src: &mut Source, n: usize) {
        if self.opts.keep_skipped {
            let room = self.keep_limit.saturating_sub(self.line.raw.len());
            let k = n.min(room);
            self.line.raw.extend_from_slice(&src.avail()[..k]);
        }
        self.line.raw_total += n as u64;
        src.consume(n);
    }

    fn blanks(&mut self, src: &mut Source) {
        while let Some(b' ' | b'\t' | b'\r') = self.peek(src) {
            self.take(src, 1);
        }
    }

    fn expect(&mut self, src: &mut Source, want: u8, what: &str) -> Result<(), Bad> {
        self.blanks(src);
        match self.peek(src) {
            Some(b) if b == want => {
                self.take(src, 1);
                Ok(())
            }
            b => Err(self.bad(src, format!("expected {what}, found {}", show(b)))),
        }
    }

    /// The top-level object.
    fn object(&mut self, src: &mut Source) -> Result<(), Bad> {
        self.expect(src, b'{', "`{`")?;
        self.blanks(src);
        if self.peek(src) == Some(b'}') {
            self.take(src, 1);
            return Ok(());
        }
        loop {
            self.expect(src, b'"', "a key")?;
            self.key.clear();
            self.string(src, Sink::Key)?;
            let role = self
                .keys
                .iter()
                .find(|(k, _)| *k == self.key)
                .map(|(_, r)| *r);
            self.expect(src, b':', "`:`")?;
            self.blanks(src);
            self.value(src, role)?;
            self.blanks(src);
            match self.peek(src) {
                Some(b',') => self.take(src, 1),
                Some(b'}') => {
                    self.take(src, 1);
                    return Ok(());
                }
                b => return Err(self.bad(src, format!("expected `,` or `}}`, found {}", show(b)))),
            }
        }
    }

    /// A value under a key of `role` (or of none).
    fn value(&mut self, src: &mut Source, role: Option<Role>) -> Result<(), Bad> {
        let at = src.offset();
        let first = self.peek(src);
        let taken = match role {
            Some(Role::Id) => self.line.id.is_none(),
            Some(Role::Title) => self.line.title.is_none(),
            Some(Role::Url) => self.line.url.is_none(),
            Some(Role::Language) => self.line.language.is_none(),
            Some(Role::Text) => true,
            None => false,
        };
        let role = role.filter(|_| taken);
        match (first, role) {
            (Some(b'"'), Some(r)) => {
                self.take(src, 1);
                self.open(r);
                let sink = match r {
                    Role::Title | Role::Text => Sink::Big(r),
                    _ => Sink::Small(r),
                };
                self.string(src, sink)
            }
            (Some(b'{' | b'['), Some(_)) => {
                self.skip_value(src)?;
                self.line.dropped.push((at, src.offset() - at));
                Ok(())
            }
            (Some(b'{' | b'[' | b'"'), None) => self.skip_value(src),
            (_, r) => {
                // A number or a literal: taken as written.
                self.scratch.clear();
                loop {
                    match self.peek(src) {
                        Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.') => {
                            if self.scratch.len() < 64 {
                                self.scratch.push(b);
                            }
                            self.take(src, 1);
                        }
                        _ => break,
                    }
                }
                let tok = std::mem::take(&mut self.scratch);
                let ok = tok == b"true"
                    || tok == b"false"
                    || tok == b"null"
                    || (!tok.is_empty()
                        && tok.len() < 64
                        && (tok[0] == b'-' || tok[0].is_ascii_digit())
                        && tok.iter().all(|b| {
                            b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')
                        }));
                if !ok {
                    self.scratch = tok;
                    return Err(self.bad(src, format!("expected a value, found {}", show(first))));
                }
                if let Some(r) = r
                    && tok != b"null"
                {
                    self.open(r);
                    self.put(r, &tok);
                }
                self.scratch = tok;
                Ok(())
            }
        }
    }

    /// Starts a value of role `r` (a second text field is separated by a
    /// blank line).
    fn open(&mut self, r: Role) {
        let l = &mut self.line;
        match r {
            Role::Id => l.id = Some(Vec::new()),
            Role::Title => l.title = Some(Vec::new()),
            Role::Url => l.url = Some(Vec::new()),
            Role::Language => l.language = Some(Vec::new()),
            Role::Text => {
                if l.texts > 0 {
                    self.put(Role::Text, b"\n\n");
                }
                self.line.texts += 1;
            }
        }
    }

    /// Appends decoded bytes to the value of role `r`, within its limit.
    #[inline]
    fn put(&mut self, r: Role, bytes: &[u8]) {
        let l = &mut self.line;
        let small = |v: &mut Option<Vec<u8>>, too_long: &mut bool| {
            if let Some(v) = v {
                let k = bytes.len().min(MAX_SMALL - v.len().min(MAX_SMALL));
                v.extend_from_slice(&bytes[..k]);
                *too_long |= k < bytes.len();
            }
        };
        let mut ignore = false;
        match r {
            Role::Id => small(&mut l.id, &mut l.id_too_long),
            Role::Url => small(&mut l.url, &mut ignore),
            Role::Language => small(&mut l.language, &mut ignore),
            Role::Title | Role::Text => {
                l.total += bytes.len() as u64;
                // The body is title, `\n`, text: all three within the cap.
                let used = l.title.as_ref().map_or(0, Vec::len) + l.text.len() + 1;
                let k = bytes.len().min(self.cap.saturating_sub(used));
                l.capped |= k < bytes.len();
                let dst = match r {
                    Role::Title => l.title.get_or_insert_with(Vec::new),
                    _ => &mut l.text,
                };
                dst.extend_from_slice(&bytes[..k]);
            }
        }
    }

    /// Skips one value (string, number, literal, array or object),
    /// checking strings and bracket nesting only.
    fn skip_value(&mut self, src: &mut Source) -> Result<(), Bad> {
        let mut stack: Vec<u8> = Vec::new();
        loop {
            match self.peek(src) {
                None | Some(b'\n') => {
                    let b = self.peek(src);
                    return Err(self.bad(src, format!("unexpected {} inside a value", show(b))));
                }
                Some(b'"') => {
                    self.take(src, 1);
                    self.string(src, Sink::Drop)?;
                }
                Some(c @ (b'{' | b'[')) => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(self.bad(src, format!("nested deeper than {MAX_DEPTH}")));
                    }
                    stack.push(if c == b'{' { b'}' } else { b']' });
                    self.take(src, 1);
                }
                Some(c @ (b'}' | b']')) => {
                    if stack.pop() != Some(c) {
                        return Err(self.bad(src, format!("unbalanced `{}`", c as char)));
                    }
                    self.take(src, 1);
                }
                Some(_) => {
                    // Scalars, commas, colons and blanks inside the value.
                    let a = src.avail();
                    let k = a
                        .iter()
                        .take_while(|&&b| !matches!(b, b'"' | b'{' | b'[' | b'}' | b']' | b'\n'))
                        .take_while(|&&b| {
                            !(stack.is_empty() && matches!(b, b',' | b' ' | b'\t' | b'\r'))
                        })
                        .count();
                    if k == 0 {
                        // A separator at the top level: the value is over.
                        return Ok(());
                    }
                    self.take(src, k);
                }
            }
            if stack.is_empty() {
                return Ok(());
            }
        }
    }

    /// Consumes the rest of the line, its `\n` included.
    fn skip_line(&mut self, src: &mut Source) {
        loop {
            let n = src.ensure(CHUNK);
            if n == 0 {
                return;
            }
            match memchr::memchr(b'\n', src.avail()) {
                Some(i) => {
                    self.take(src, i + 1);
                    return;
                }
                None => self.take(src, n),
            }
        }
    }

    fn skip(&mut self, reason: SkipReason, record_id: Option<String>) -> CrawlEvent {
        let raw = self.opts.keep_skipped.then(|| RawBytes {
            truncated: (self.line.raw.len() as u64) < self.line.raw_total,
            bytes: std::mem::take(&mut self.line.raw),
        });
        CrawlEvent::Skip(Skip {
            reason,
            offset: self.line.start,
            record_id,
            raw,
        })
    }

    /// Pushes the line's document (or skip), then its anomalies.
    fn finish(&mut self, out: &mut VecDeque<CrawlEvent>) {
        let l = &mut self.line;
        let docid = if l.id_too_long {
            None
        } else {
            l.id.as_deref().and_then(lossy_trim)
        };
        let title = l.title.take().unwrap_or_default();
        let text = std::mem::take(&mut l.text);
        let dropped = std::mem::take(&mut l.dropped);
        let blank = title.trim_ascii().is_empty() && text.trim_ascii().is_empty();
        let bad = docid.as_deref().and_then(bad_docid);
        match (docid, bad) {
            (None, _) => {
                let ev = self.skip(SkipReason::NoDocid, None);
                out.push_back(ev);
            }
            (Some(id), Some(reason)) => {
                let ev = self.skip(reason, Some(id));
                out.push_back(ev);
            }
            (Some(id), None) if blank => {
                let ev = self.skip(SkipReason::EmptyBody, Some(id));
                out.push_back(ev);
            }
            (Some(docid), None) => {
                let l = &self.line;
                out.push_back(CrawlEvent::Doc(RawDoc {
                    docid,
                    record_id: None,
                    language: l.language.as_deref().and_then(lossy_trim),
                    span: Span::default(),
                    url: l.url.as_deref().and_then(lossy_trim),
                    offset: l.start,
                    http_status: None,
                    content_type: None,
                    http_charset: None,
                    body: text_body(&title, &text),
                    truncated: l.capped,
                    original_len: l.total,
                    capped: l.capped,
                    markup: Markup::Text,
                    utf8: true,
                    heads: None,
                }));
            }
        }
        let record_id = match out.back() {
            Some(CrawlEvent::Doc(d)) => Some(d.docid.clone()),
            Some(CrawlEvent::Skip(s)) => s.record_id.clone(),
            _ => None,
        };
        for (offset, bytes) in dropped {
            out.push_back(CrawlEvent::Anomaly(Anomaly {
                kind: AnomalyKind::UnknownField,
                offset,
                bytes,
                record_id: record_id.clone(),
                raw: None,
                gzip: None,
            }));
        }
    }
}
