//! A lenient HTTP response-head parser for crawled records.
//!
//! Real crawls contain status lines that are missing (damaged ClueWeb09
//! copies), header names with a space before the colon (`Server : Live 5`),
//! folded continuation lines, lines without a colon, raw non-UTF-8 bytes, LF
//! or CRLF line ends, HTML where a header should be, and heads that run to the
//! end of input without a blank line. [`parse_head`] accepts all of them and
//! never fails; it reports what it had to tolerate in [`HttpHead::bad_lines`].

use std::io::Read;

/// Longest head we look at; beyond it the body is taken to start.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The parsed head of an HTTP response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpHead {
    /// Status code from an `HTTP/x.y NNN ...` status line, if there is one.
    pub status: Option<u16>,
    /// Header fields in order: (name as written but trimmed, value trimmed,
    /// continuation lines joined with one space). Raw bytes are kept.
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// Offset in the input where the entity body starts (always `<= input.len()`).
    pub body_offset: usize,
    /// Number of lines in the head that were neither a header, a continuation
    /// nor the status line (e.g. no colon).
    pub bad_lines: u32,
}

impl HttpHead {
    /// The value of the first header named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| v.as_slice())
    }

    /// Lower-cased MIME type of `Content-Type` without parameters, if present and non-empty.
    pub fn mime(&self) -> Option<String> {
        self.header("content-type").and_then(mime_of)
    }

    /// The `charset=` parameter of `Content-Type`, trimmed and unquoted, if present and non-empty.
    pub fn charset(&self) -> Option<String> {
        self.header("content-type").and_then(charset_of)
    }
}

/// Lower-cased MIME type (the part before `;`, trimmed) of a Content-Type value.
pub fn mime_of(value: &[u8]) -> Option<String> {
    let v = value.split(|&b| b == b';').next().unwrap_or(b"");
    let v = v.trim_ascii();
    if v.is_empty() {
        None
    } else {
        Some(String::from_utf8_lossy(v).to_ascii_lowercase())
    }
}

/// The `charset` parameter of a Content-Type value (case-insensitive name;
/// value trimmed, quotes removed; case kept), if present and non-empty.
pub fn charset_of(value: &[u8]) -> Option<String> {
    for param in value.split(|&b| b == b';').skip(1) {
        let param = param.trim_ascii();
        let Some(eq) = memchr::memchr(b'=', param) else {
            continue;
        };
        if param[..eq].trim_ascii().eq_ignore_ascii_case(b"charset") {
            let v = param[eq + 1..].trim_ascii();
            let v = v.trim_ascii_start();
            let v = v.strip_prefix(b"\"").unwrap_or(v);
            let v = v.strip_suffix(b"\"").unwrap_or(v);
            let v = v.strip_prefix(b"'").unwrap_or(v);
            let v = v.strip_suffix(b"'").unwrap_or(v);
            let v = v.trim_ascii();
            if !v.is_empty() {
                return Some(String::from_utf8_lossy(v).into_owned());
            }
        }
    }
    None
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn parse_status(line: &[u8]) -> Option<Option<u16>> {
    // `HTTP/1.1 200 OK`, `HTTP/1.0 404`, tolerate lower case and missing reason.
    if line.len() < 5 || !line[..5].eq_ignore_ascii_case(b"HTTP/") {
        return None;
    }
    let rest = &line[5..];
    let sp = rest.iter().position(|b| b.is_ascii_whitespace());
    let code = sp.and_then(|sp| {
        let after = rest[sp..].trim_ascii_start();
        let digits: &[u8] = &after[..after.iter().take_while(|b| b.is_ascii_digit()).count()];
        if digits.len() == 3 {
            std::str::from_utf8(digits).ok()?.parse::<u16>().ok()
        } else {
            None
        }
    });
    Some(code)
}

/// Parses an HTTP response head leniently. Never fails.
///
/// Rules, in order, for each line (LF or CRLF ended):
/// * the first line, if it starts with `HTTP/`, is the status line;
/// * an empty line ends the head; the body starts after it;
/// * a line whose first non-blank byte is `<` ends the head; the body starts
///   at the beginning of that line (HTML where a header should be);
/// * a line starting with space or tab continues the previous header;
/// * a line with a colon is a header; name and value are trimmed, so
///   `Server : Live 5` is (`Server`, `Live 5`);
/// * any other line is counted in `bad_lines` and ignored.
///
/// If the input ends without a blank line the body is empty. If the head
/// exceeds [`MAX_HEAD_BYTES`] the body starts at the first line beyond it.
pub fn parse_head(input: &[u8]) -> HttpHead {
    let mut head = HttpHead::default();
    let mut pos = 0usize;
    let mut first = true;
    loop {
        if pos >= input.len() {
            head.body_offset = input.len();
            return head;
        }
        if pos >= MAX_HEAD_BYTES {
            head.body_offset = pos;
            return head;
        }
        let (line_end, next) = match memchr::memchr(b'\n', &input[pos..]) {
            Some(i) => (pos + i, pos + i + 1),
            None => (input.len(), input.len()),
        };
        let line = strip_cr(&input[pos..line_end]);
        if first {
            first = false;
            if let Some(code) = parse_status(line) {
                head.status = code;
                pos = next;
                continue;
            }
        }
        if line.is_empty() {
            head.body_offset = next;
            return head;
        }
        let trimmed = line.trim_ascii_start();
        if trimmed.first() == Some(&b'<') {
            head.body_offset = pos;
            return head;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            if let Some((_, v)) = head.headers.last_mut() {
                let t = line.trim_ascii();
                if !t.is_empty() {
                    if !v.is_empty() {
                        v.push(b' ');
                    }
                    v.extend_from_slice(t);
                }
            } else if trimmed.is_empty() {
                // A whitespace-only line before any header: treat as the blank line.
                head.body_offset = next;
                return head;
            } else {
                head.bad_lines += 1;
            }
        } else if let Some(c) = memchr::memchr(b':', line) {
            let name = line[..c].trim_ascii();
            let value = line[c + 1..].trim_ascii();
            if name.is_empty() {
                head.bad_lines += 1;
            } else {
                head.headers.push((name.to_vec(), value.to_vec()));
            }
        } else {
            head.bad_lines += 1;
        }
        pos = next;
    }
}

/// True if `body` sniffs as HTML: after a UTF-8 BOM and whitespace it starts
/// (ASCII case-insensitive) with `<!doctype html`, `<html`, `<head`, `<body`,
/// `<title`, `<meta`, `<script`, `<frameset`, `<table`, `<div`, `<p>`, `<a `,
/// `<br`, `<h1`, `<!--` or `<?xml` followed within 1 KiB by `<html`.
pub fn sniff_html(body: &[u8]) -> bool {
    let b = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let b = b.trim_ascii_start();
    const TAGS: &[&[u8]] = &[
        b"<!doctype html",
        b"<html",
        b"<head",
        b"<body",
        b"<title",
        b"<meta",
        b"<script",
        b"<frameset",
        b"<table",
        b"<div",
        b"<p>",
        b"<a ",
        b"<br",
        b"<h1",
        b"<!--",
    ];
    let starts = |t: &[u8]| b.len() >= t.len() && b[..t.len()].eq_ignore_ascii_case(t);
    if TAGS.iter().any(|t| starts(t)) {
        return true;
    }
    if starts(b"<?xml") {
        let win = &b[..b.len().min(1024)];
        return win.windows(5).any(|w| w.eq_ignore_ascii_case(b"<html"));
    }
    false
}

/// True for MIME types we index as HTML.
pub fn is_html_mime(mime: &str) -> bool {
    matches!(mime, "text/html" | "application/xhtml+xml")
}

/// De-chunks an HTTP/1.1 `Transfer-Encoding: chunked` body.
///
/// Returns `None` if `body` does not start with a valid chunk-size line (so
/// the header lied and the body is used as is). A body that ends early (e.g.
/// capped) yields the chunks decoded so far. Output is capped at `cap` bytes.
pub fn dechunk(body: &[u8], cap: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len().min(cap));
    let mut pos = 0usize;
    let mut first = true;
    loop {
        let nl = match memchr::memchr(b'\n', &body[pos..]) {
            Some(i) => pos + i,
            None => return if first { None } else { Some(out) },
        };
        let line = strip_cr(&body[pos..nl]);
        let size_part = line
            .split(|&b| b == b';')
            .next()
            .unwrap_or(b"")
            .trim_ascii();
        if size_part.is_empty()
            || size_part.len() > 15
            || !size_part.iter().all(|b| b.is_ascii_hexdigit())
        {
            return if first { None } else { Some(out) };
        }
        let size = usize::from_str_radix(std::str::from_utf8(size_part).ok()?, 16).ok()?;
        first = false;
        pos = nl + 1;
        if size == 0 {
            return Some(out);
        }
        let end = pos.saturating_add(size).min(body.len());
        let room = cap.saturating_sub(out.len());
        out.extend_from_slice(&body[pos..end.min(pos + room)]);
        if end == body.len() || out.len() >= cap {
            return Some(out);
        }
        pos = end;
        // chunk data is followed by CRLF (tolerate LF or nothing)
        if body[pos..].starts_with(b"\r\n") {
            pos += 2;
        } else if body[pos..].starts_with(b"\n") {
            pos += 1;
        }
    }
}

/// Gunzips `body` if it really starts with the gzip magic `1f 8b`.
///
/// Returns `None` if it does not (header says gzip, bytes are plain: a real
/// ClueWeb09 quirk). Otherwise returns the decoded bytes (at most `cap + 1`,
/// so callers can tell truncation) and whether decoding failed part-way.
pub fn gunzip_if_gzip(body: &[u8], cap: usize) -> Option<(Vec<u8>, bool)> {
    if !body.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    let mut out = Vec::new();
    let dec = flate2::read::MultiGzDecoder::new(body);
    let res = dec.take(cap as u64 + 1).read_to_end(&mut out);
    Some((out, res.is_err()))
}
