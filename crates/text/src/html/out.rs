//! Where extracted text goes: [`Out`] collapses whitespace into words and
//! breaks and applies the byte cap; [`Sink`] is what the scanner feeds,
//! [`Out`] itself or the main-content block collector.

use super::entities;

/// Break levels between two pieces of text, in increasing strength: a
/// space.
pub(super) const SPACE: u8 = 1;
/// A line break.
pub(super) const LINE: u8 = 2;
/// A paragraph break (one blank line).
pub(super) const PARA: u8 = 3;

/// A text sink that collapses whitespace and applies the byte cap.
pub(super) struct Out {
    /// The text so far.
    pub(super) buf: String,
    /// The strongest break asked for since the last word.
    pub(super) pending: u8,
    /// Strongest break this sink may emit (`SPACE` for the title).
    max_break: u8,
    /// Longest text kept, in bytes.
    cap: usize,
    /// The cap was hit: the text was cut.
    pub(super) truncated: bool,
    /// Words appended so far (for [`main_content`](super::main_content)).
    pub(super) words: usize,
}

impl Out {
    /// An empty sink with the byte cap `cap` and the strongest break
    /// `max_break`.
    pub(super) fn new(cap: usize, max_break: u8) -> Self {
        Out {
            buf: String::new(),
            pending: 0,
            max_break,
            cap,
            truncated: false,
            words: 0,
        }
    }

    /// Asks for a break of at least `level` before the next word.
    pub(super) fn brk(&mut self, level: u8) {
        self.pending = self.pending.max(level.min(self.max_break));
    }

    /// The separator the next word gets.
    fn sep(&self) -> &'static str {
        if self.buf.is_empty() {
            ""
        } else {
            match self.pending {
                0 => "",
                SPACE => " ",
                LINE => "\n",
                _ => "\n\n",
            }
        }
    }

    /// Appends `n` words joined by single spaces (`span`), as `n` calls of
    /// [`Out::word`] with a [`SPACE`] break between them would, in one
    /// copy when it fits under the cap.
    pub(super) fn words(&mut self, span: &str, n: usize) {
        let sep = self.sep();
        if n > 1 && !self.truncated && self.buf.len() + sep.len() + span.len() <= self.cap {
            self.pending = 0;
            self.words += n;
            self.buf.push_str(sep);
            self.buf.push_str(span);
            return;
        }
        for (k, w) in span.split(' ').enumerate() {
            if self.truncated {
                return;
            }
            if k > 0 {
                self.brk(SPACE);
            }
            self.word(w);
        }
    }

    /// Appends `s`, which contains no whitespace that should collapse.
    pub(super) fn word(&mut self, s: &str) {
        if self.truncated || s.is_empty() {
            return;
        }
        let sep = self.sep();
        self.pending = 0;
        self.words += 1;
        if self.buf.len() + sep.len() + s.len() <= self.cap {
            self.buf.push_str(sep);
            self.buf.push_str(s);
            return;
        }
        self.truncated = true;
        let room = self.cap.saturating_sub(self.buf.len() + sep.len());
        let mut cut = room.min(s.len());
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        if cut > 0 {
            self.buf.push_str(sep);
            self.buf.push_str(&s[..cut]);
        }
    }

    /// Appends text that may contain whitespace; `pre` keeps line breaks.
    pub(super) fn text(&mut self, s: &str, pre: bool) {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && !self.truncated {
            let c = b[i];
            if is_ws(c) {
                let start = i;
                while i < b.len() && is_ws(b[i]) {
                    i += 1;
                }
                let nl = pre && b[start..i].iter().any(|&c| c == b'\n' || c == b'\r');
                self.brk(if nl { LINE } else { SPACE });
            } else if is_nbsp(b, i) {
                self.brk(SPACE);
                i += 2;
            } else {
                let start = i;
                i = word_end(b, i);
                // Words joined by single spaces go in as one span.
                let mut n = 1;
                while i + 1 < b.len() && b[i] == b' ' && !is_ws(b[i + 1]) && !is_nbsp(b, i + 1) {
                    i = word_end(b, i + 1);
                    n += 1;
                }
                // Splits only at ASCII bytes or before U+00A0: char boundaries.
                self.words(&s[start..i], n);
            }
        }
    }

    /// Appends one decoded character reference.
    pub(super) fn reference(&mut self, r: entities::Ref, pre: bool) {
        let mut tmp = [0u8; 4];
        let s: &str = match r {
            entities::Ref::Str(s) => s,
            entities::Ref::Char(c) => c.encode_utf8(&mut tmp),
        };
        if s.chars().all(char::is_whitespace) {
            let nl = pre && s.contains(['\n', '\r']);
            self.brk(if nl { LINE } else { SPACE });
        } else {
            self.text(s, pre);
        }
    }
}

/// ASCII whitespace as HTML reads it.
#[inline]
pub(super) const fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0C)
}

/// U+00A0 (no-break space) starts at `b[i]`.
#[inline]
fn is_nbsp(b: &[u8], i: usize) -> bool {
    b[i] == 0xC2 && b.get(i + 1) == Some(&0xA0)
}

/// The end of the word starting at `b[i]`: the next whitespace byte or
/// U+00A0, or the end. One table lookup per byte ([`STOPS`]); only a 0xC2
/// byte looks at the next.
#[inline]
fn word_end(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if STOPS[usize::from(c)] && (c != 0xC2 || b.get(i + 1) == Some(&0xA0)) {
            break;
        }
        i += 1;
    }
    i
}

/// The bytes that may end a word ([`word_end`]): whitespace ([`is_ws`]),
/// and 0xC2, the first byte of U+00A0.
const STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = is_ws(c as u8) || c == 0xC2;
        c += 1;
    }
    t
};

/// Where the scanner sends the body text: [`Out`] for all text, the
/// block collector of [`main_content`](super::main_content) for main content.
pub(super) trait Sink {
    /// Appends text that may contain whitespace; `pre` keeps line breaks.
    fn text(&mut self, s: &str, pre: bool);
    /// Appends one decoded character reference.
    fn reference(&mut self, r: entities::Ref, pre: bool);
    /// Asks for a break of at least `level` before the next word.
    fn brk(&mut self, level: u8);
    /// The text cap was hit: the scan stops.
    fn full(&self) -> bool;
    /// A visible start or end tag other than a raw-text element, `title`,
    /// `textarea` or `template` (`attrs`: the bytes from the end of the
    /// name to the closing `>`).
    #[inline]
    fn tag(&mut self, _name: &[u8], _attrs: &[u8], _end: bool) {}
}

impl Sink for Out {
    #[inline]
    fn text(&mut self, s: &str, pre: bool) {
        Out::text(self, s, pre);
    }
    #[inline]
    fn reference(&mut self, r: entities::Ref, pre: bool) {
        Out::reference(self, r, pre);
    }
    #[inline]
    fn brk(&mut self, level: u8) {
        Out::brk(self, level);
    }
    #[inline]
    fn full(&self) -> bool {
        self.truncated
    }
}
