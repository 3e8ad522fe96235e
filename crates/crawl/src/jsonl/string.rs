//! JSON strings: decoded in one pass over the bytes in view (escapes
//! inline), an escape cut by the end of the buffer or a bad one read on
//! its own, the decoded bytes sent where the value goes.

use super::{Bad, JsonParser, MAX_KEY, Role};
use crate::input::Source;

/// Where decoded string bytes go.
pub(super) enum Sink {
    /// Nowhere (a skipped value).
    Drop,
    /// The key buffer.
    Key,
    /// The docid, URL or language buffer.
    Small(Role),
    /// The title or the text (the cap applies).
    Big(Role),
}

/// The value of the four hex digits at the start of `b`, if they are.
#[inline]
fn hex4(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// Appends the UTF-8 form of `c` (a surrogate gets its three-byte form,
/// which is invalid UTF-8 and counted by the cleaner).
#[inline]
fn push_code(out: &mut Vec<u8>, c: u32) {
    match char::from_u32(c) {
        Some(ch) => {
            let mut b = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
        }
        None => out.extend_from_slice(&[
            0xE0 | (c >> 12) as u8,
            0x80 | ((c >> 6) & 0x3F) as u8,
            0x80 | (c & 0x3F) as u8,
        ]),
    }
}

/// The escape at the start of `a` (a `\\`), decoded, if it is whole in `a`
/// and valid: its length and code point (a lone surrogate as itself).
/// `None` sends it to [`JsonParser::escape`], which reads on and reports a
/// bad one. A high surrogate is decided only with 12 bytes in view.
#[inline]
fn inline_escape(a: &[u8]) -> Option<(usize, u32)> {
    let simple = match *a.get(1)? {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 8,
        b'f' => 12,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'u' => {
            let hi = hex4(a.get(2..6)?)?;
            if !(0xD800..0xDC00).contains(&hi) {
                return Some((6, hi));
            }
            let next = a.get(6..12)?;
            if next[0] == b'\\'
                && next[1] == b'u'
                && let Some(lo) = hex4(&next[2..]).filter(|lo| (0xDC00..0xE000).contains(lo))
            {
                return Some((12, 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)));
            }
            return Some((6, hi));
        }
        _ => return None,
    };
    Some((2, u32::from(simple)))
}

impl JsonParser {
    /// Sends decoded string bytes where `sink` says.
    #[inline]
    fn sink(&mut self, sink: &Sink, bytes: &[u8]) {
        match sink {
            Sink::Drop => {}
            Sink::Key => {
                let k = bytes
                    .len()
                    .min(MAX_KEY + 1 - self.key.len().min(MAX_KEY + 1));
                self.key.extend_from_slice(&bytes[..k]);
            }
            Sink::Small(r) | Sink::Big(r) => self.put(*r, bytes),
        }
    }

    /// A string, after its opening quote, decoded into `sink`. The bytes
    /// in the buffer are decoded in one pass (escapes inline); an escape
    /// cut by the end of the buffer, or a bad one, takes [`Self::escape`].
    pub(super) fn string(&mut self, src: &mut Source, sink: Sink) -> Result<(), Bad> {
        let mut dec = std::mem::take(&mut self.decoded);
        let result = loop {
            let n = src.ensure(1);
            if n == 0 {
                break Err(self.bad(src, "the input ends inside a string".into()));
            }
            let a = src.avail();
            dec.clear();
            let (mut i, mut run) = (0, 0);
            let mut stop = None;
            while let Some(k) = memchr::memchr3(b'"', b'\\', b'\n', &a[i..]) {
                let p = i + k;
                if a[p] != b'\\' {
                    stop = Some((p, a[p]));
                    break;
                }
                match inline_escape(&a[p..]) {
                    Some((used, code)) => {
                        dec.extend_from_slice(&a[run..p]);
                        push_code(&mut dec, code);
                        i = p + used;
                        run = i;
                    }
                    None => {
                        stop = Some((p, b'\\'));
                        break;
                    }
                }
            }
            let end = stop.map_or(a.len(), |(p, _)| p);
            dec.extend_from_slice(&a[run..end]);
            self.sink(&sink, &dec);
            self.take(src, end);
            match stop {
                None => {}
                Some((_, b'"')) => {
                    self.take(src, 1);
                    break Ok(());
                }
                Some((_, b'\n')) => {
                    break Err(self.bad(src, "the line ends inside a string".into()));
                }
                Some(_) => {
                    if let Err(e) = self.escape(src, &sink) {
                        break Err(e);
                    }
                }
            }
        };
        self.decoded = dec;
        result
    }

    /// An escape sequence at the current `\`.
    fn escape(&mut self, src: &mut Source, sink: &Sink) -> Result<(), Bad> {
        let have = src.ensure(12);
        let a = src.avail();
        let Some(&e) = a.get(1) else {
            return Err(self.bad(src, "the input ends inside an escape".into()));
        };
        let simple = match e {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            _ => None,
        };
        if let Some(c) = simple {
            self.sink(sink, &[c]);
            self.take(src, 2);
            return Ok(());
        }
        if e != b'u' {
            return Err(self.bad(src, format!("bad escape `\\{}`", e.escape_ascii())));
        }
        let Some(hi) = hex4(&a[2..have.min(6)]) else {
            return Err(self.bad(src, "bad `\\u` escape (four hex digits expected)".into()));
        };
        let mut used = 6;
        let mut code = hi;
        if (0xD800..0xDC00).contains(&hi)
            && have >= 12
            && a[6] == b'\\'
            && a[7] == b'u'
            && let Some(lo) = hex4(&a[8..12]).filter(|lo| (0xDC00..0xE000).contains(lo))
        {
            code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
            used = 12;
        }
        let mut buf = Vec::with_capacity(4);
        push_code(&mut buf, code);
        self.sink(sink, &buf);
        self.take(src, used);
        Ok(())
    }
}
