//! The tokenizer stage: UAX#29 word segments, filtered and cut like Lucene's
//! `StandardTokenizer` (see the [parent module](super) for the differences).

use unicode_segmentation::{UWordBoundIndices, UnicodeSegmentation};

/// Lucene's default `StandardTokenizer` maximum token length, in UTF-16 units.
pub const MAX_TOKEN_UTF16: usize = 255;

/// One raw token: byte offsets into the text and its position, counting
/// every raw token (including those later removed as stop words) from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Raw {
    pub(crate) from: usize,
    pub(crate) to: usize,
    pub(crate) position: usize,
}

/// Iterator over the raw tokens of a text.
pub(crate) struct Segments<'a> {
    text: &'a str,
    bounds: UWordBoundIndices<'a>,
    /// A segment read ahead while merging South-East Asian runs.
    peeked: Option<(usize, &'a str)>,
    /// Remaining byte range of a token longer than [`MAX_TOKEN_UTF16`].
    long: Option<(usize, usize)>,
    position: usize,
}

impl<'a> Segments<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Segments {
            text,
            bounds: text.split_word_bound_indices(),
            peeked: None,
            long: None,
            position: 0,
        }
    }

    fn next_segment(&mut self) -> Option<(usize, &'a str)> {
        self.peeked.take().or_else(|| self.bounds.next())
    }

    /// The next raw token, or `None` at the end of the text.
    pub(crate) fn next_raw(&mut self) -> Option<Raw> {
        loop {
            if let Some((from, to)) = self.long {
                let end = cut_utf16(&self.text[from..to], MAX_TOKEN_UTF16) + from;
                self.long = if end < to { Some((end, to)) } else { None };
                if has_word_char(&self.text[from..end]) {
                    return Some(self.emit(from, end));
                }
                continue;
            }
            let (from, seg) = self.next_segment()?;
            let mut to = from + seg.len();
            if !has_word_char(seg) {
                continue;
            }
            if seg.chars().all(is_complex_context) {
                // Lucene: {ComplexContextEx}+ is one SOUTHEAST_ASIAN token.
                for (next_from, next) in self.bounds.by_ref() {
                    if next_from == to && next.chars().all(is_complex_context) {
                        to += next.len();
                    } else {
                        self.peeked = Some((next_from, next));
                        break;
                    }
                }
            }
            let piece = &self.text[from..to];
            // A UTF-16 length above 255 needs more than 255 bytes... or fewer
            // bytes for non-ASCII text; the byte length bounds it from above.
            if piece.len() > MAX_TOKEN_UTF16 && utf16_len(piece) > MAX_TOKEN_UTF16 {
                self.long = Some((from, to));
                continue;
            }
            return Some(self.emit(from, to));
        }
    }

    fn emit(&mut self, from: usize, to: usize) -> Raw {
        let raw = Raw {
            from,
            to,
            position: self.position,
        };
        self.position += 1;
        raw
    }
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Byte length of the longest prefix of `s` of at most `max` UTF-16 units
/// (never splits a character; at least one character when `s` is not empty).
fn cut_utf16(s: &str, max: usize) -> usize {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > max {
            return if i == 0 { c.len_utf8() } else { i };
        }
    }
    s.len()
}

/// True when `s` has a letter or digit (a segment Lucene would keep).
#[inline]
fn has_word_char(s: &str) -> bool {
    if s.is_ascii() {
        s.bytes().any(|b| b.is_ascii_alphanumeric())
    } else {
        s.chars().any(char::is_alphanumeric)
    }
}

/// Characters with Line_Break = Complex_Context (SA): the Thai, Lao, Myanmar,
/// Khmer, Tai Le, New Tai Lue, Tai Tham and Tai Viet blocks (block ranges,
/// an approximation of the exact property).
fn is_complex_context(c: char) -> bool {
    matches!(c,
        '\u{0E01}'..='\u{0E3A}' | '\u{0E40}'..='\u{0E4E}' // Thai
        | '\u{0E81}'..='\u{0EDF}' // Lao
        | '\u{1000}'..='\u{103F}' | '\u{1050}'..='\u{108F}' | '\u{109A}'..='\u{109F}' // Myanmar
        | '\u{1780}'..='\u{17D3}' | '\u{17D7}' | '\u{17DC}'..='\u{17DD}' // Khmer
        | '\u{1950}'..='\u{19DF}' // Tai Le, New Tai Lue
        | '\u{1A20}'..='\u{1AAD}' // Tai Tham
        | '\u{A9E0}'..='\u{A9EF}' | '\u{A9FA}'..='\u{A9FE}' // Myanmar Ext-B
        | '\u{AA60}'..='\u{AADF}' // Myanmar Ext-A, Tai Viet
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_texts(text: &str) -> Vec<&str> {
        let mut s = Segments::new(text);
        let mut v = Vec::new();
        while let Some(r) = s.next_raw() {
            v.push(&text[r.from..r.to]);
        }
        v
    }

    #[test]
    fn cut_never_splits_chars() {
        assert_eq!(cut_utf16("abc", 2), 2);
        assert_eq!(cut_utf16("é𝐚b", 2), 2);
        assert_eq!(cut_utf16("𝐚𝐚", 3), 4);
        assert_eq!(cut_utf16("𝐚", 1), 4);
        assert_eq!(cut_utf16("", 1), 0);
    }

    #[test]
    fn long_tokens_are_cut_at_255_utf16_units() {
        let word = "x".repeat(600);
        let got = raw_texts(&word);
        assert_eq!(
            got.iter().map(|s| s.len()).collect::<Vec<_>>(),
            [255, 255, 90]
        );
        let wide = "\u{1D41A}".repeat(200); // 2 UTF-16 units each
        let got = raw_texts(&wide);
        assert_eq!(
            got.iter().map(|s| utf16_len(s)).collect::<Vec<_>>(),
            [254, 146]
        );
        let exact = "y".repeat(255);
        assert_eq!(raw_texts(&exact), [exact.as_str()]);
    }

    #[test]
    fn thai_run_is_one_token() {
        assert_eq!(raw_texts("ภาษาไทย ok"), ["ภาษาไทย", "ok"]);
    }
}
