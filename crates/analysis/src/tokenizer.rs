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
///
/// The text is cut into chunks at points that are word boundaries whatever
/// surrounds them, and across which no UAX#29 rule looks: after a `\n`
/// (rule WB3a), and after a space followed by an ASCII byte other than a
/// space (WB3d joins only spaces; WB4 attaches only Extend, Format and ZWJ,
/// which are not ASCII; no rule of WB5–WB16 has a space on either side of
/// the letters, digits, quotes or RI pairs it looks at). A chunk of ASCII
/// bytes only is segmented by a table of the UAX#29 word-break classes of
/// ASCII ([`ascii_next`]); any other chunk by `unicode-segmentation`. So the
/// segments are those of `unicode-segmentation` over the whole text (tested
/// against it: `tests::chunked_segments_equal_whole_text_segments`), and
/// English text rarely leaves the ASCII path.
///
/// Chinese and Japanese text get a path of their own ([`Chunk::Cjk`]): a
/// run of common CJK characters each followed by one that cannot attach to
/// it ([`attaches_to_nothing`]: not Extend, Format or ZWJ), whose segments
/// are known without the general rules: every ideograph (U+4E00–U+9FFF)
/// and Hiragana letter (word-break class Other) is a word of its own, a run
/// of Katakana is one word (WB13), and the common CJK and fullwidth
/// punctuation between them is no word. The point before an ideograph or
/// Hiragana letter, or before punctuation of class Other, is a cut too: no
/// rule joins anything to an Other on its left, and every rule that looks
/// ahead across it is satisfied neither by an Other nor by the end of a
/// text. Tested like the rest: `tests::cjk_runs_segment_as_the_whole_text`.
pub(crate) struct Segments<'a> {
    text: &'a str,
    /// Start of the text not yet cut into chunks.
    done: usize,
    chunk: Chunk<'a>,
    /// Remaining byte range of a token longer than [`MAX_TOKEN_UTF16`].
    long: Option<(usize, usize)>,
    position: usize,
}

/// The chunk being segmented.
enum Chunk<'a> {
    /// ASCII bytes from `at` to `end`.
    Ascii { at: usize, end: usize },
    /// CJK characters from `at` to `end` (see [`cjk_run`]).
    Cjk { at: usize, end: usize },
    /// `unicode-segmentation` over `text[base..]`.
    Unicode {
        base: usize,
        bounds: UWordBoundIndices<'a>,
        /// A segment read ahead while merging South-East Asian runs
        /// (offset relative to `base`).
        peeked: Option<(usize, &'a str)>,
    },
    /// Nothing left in this chunk.
    Done,
}

impl<'a> Segments<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Segments {
            text,
            done: 0,
            chunk: Chunk::Done,
            long: None,
            position: 0,
        }
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
            let (from, to) = self.next_word()?;
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

    /// The byte range of the next segment with a letter or digit (South-East
    /// Asian runs merged), or `None` at the end of the text.
    fn next_word(&mut self) -> Option<(usize, usize)> {
        loop {
            match &mut self.chunk {
                Chunk::Ascii { at, end } => {
                    if let Some(w) = ascii_next(self.text.as_bytes(), at, *end) {
                        return Some(w);
                    }
                }
                Chunk::Cjk { at, end } => {
                    if let Some(w) = cjk_next(self.text.as_bytes(), at, *end) {
                        return Some(w);
                    }
                }
                Chunk::Unicode {
                    base,
                    bounds,
                    peeked,
                } => {
                    let base = *base;
                    while let Some((from, seg)) = peeked.take().or_else(|| bounds.next()) {
                        if !has_word_char(seg) {
                            continue;
                        }
                        let mut to = from + seg.len();
                        if seg.chars().all(is_complex_context) {
                            // Lucene: {ComplexContextEx}+ is one SOUTHEAST_ASIAN token.
                            for (next_from, next) in bounds.by_ref() {
                                if next_from == to && next.chars().all(is_complex_context) {
                                    to += next.len();
                                } else {
                                    *peeked = Some((next_from, next));
                                    break;
                                }
                            }
                        }
                        return Some((base + from, base + to));
                    }
                }
                Chunk::Done => {}
            }
            if !self.next_chunk() {
                return None;
            }
        }
    }

    /// Cuts the next chunk off the text; false at its end.
    fn next_chunk(&mut self) -> bool {
        let b = self.text.as_bytes();
        let (a, n) = (self.done, b.len());
        if a >= n {
            self.chunk = Chunk::Done;
            return false;
        }
        let Some(q) = b[a..].iter().position(|&c| c >= 0x80).map(|k| a + k) else {
            self.chunk = Chunk::Ascii { at: a, end: n };
            self.done = n;
            return true;
        };
        // The ASCII bytes before the first non-ASCII one, up to the last
        // cut point before it, are a chunk of their own.
        if let Some(s) = (a + 1..=q).rev().find(|&p| is_cut(b, p)) {
            self.chunk = Chunk::Ascii { at: a, end: s };
            self.done = s;
            return true;
        }
        if q == a {
            let end = cjk_run(b, a);
            if end > a {
                self.chunk = Chunk::Cjk { at: a, end };
                self.done = end;
                return true;
            }
        }
        let e = (q + 1..n).find(|&p| is_cut(b, p)).unwrap_or(n);
        self.chunk = Chunk::Unicode {
            base: a,
            bounds: self.text[a..e].split_word_bound_indices(),
            peeked: None,
        };
        self.done = e;
        true
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

/// True when byte offset `p` (0 < `p` < `b.len()`, a character boundary)
/// is a chunk cut: a word boundary that no UAX#29 rule looks across (see
/// [`Segments`]).
#[inline]
fn is_cut(b: &[u8], p: usize) -> bool {
    match b[p - 1] {
        b'\n' => true,
        b' ' if b[p] < 0x80 => b[p] != b' ',
        // Also after a space: the cut before these holds whatever precedes.
        _ => matches!(cjk_class(b, p), Cjk::Single | Cjk::Other),
    }
}

/// The characters of the CJK path, all three bytes long in UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cjk {
    /// A word of its own: a CJK Unified Ideograph (U+4E00–U+9FFF) or a
    /// Hiragana letter (U+3041–U+3096), word-break class Other.
    Single,
    /// Katakana (U+30A1–U+30FA, U+30FC–U+30FE): runs of them are one word.
    Katakana,
    /// Punctuation of word-break class Other that is not
    /// Extended_Pictographic: 、。〈〉《》「」『』【】！（）？
    Other,
    /// Punctuation that may join letters or digits on both sides (MidNum
    /// ，；, MidLetter ：, MidNumLet ．＇): no word next to a CJK
    /// character, but no cut before it. (Not the ideographic space: spaces
    /// join spaces, WB3d, and a mark after the last one makes them a word.)
    Mid,
    /// Anything else.
    No,
}

/// UTF-8 length of every character of [`Cjk`].
const CJK_BYTES: usize = 3;

/// The [`Cjk`] class of the character starting at byte `p` of the UTF-8
/// text `b` (`p` < `b.len()`, a character boundary).
#[inline(always)]
fn cjk_class(b: &[u8], p: usize) -> Cjk {
    let lead = b[p];
    // Ideographs first, from their bytes: U+4E00..=U+9FFF is E4 B8 80 to
    // E9 BF BF (E4 below B8 is U+4000..U+4DFF).
    if (0xE5..=0xE9).contains(&lead) {
        return Cjk::Single;
    }
    if !matches!(lead, 0xE3 | 0xE4 | 0xEF) || p + 2 >= b.len() {
        return Cjk::No;
    }
    let c = (u32::from(lead & 0x0F) << 12)
        | (u32::from(b[p + 1] & 0x3F) << 6)
        | u32::from(b[p + 2] & 0x3F);
    cjk_class_of(c)
}

/// [`cjk_class`] of the code point `c` (U+3000..=U+4FFF or U+F000..=U+FFFF).
#[inline]
fn cjk_class_of(c: u32) -> Cjk {
    match c {
        0x4E00..=0x9FFF | 0x3041..=0x3096 => Cjk::Single,
        0x30A1..=0x30FA | 0x30FC..=0x30FE => Cjk::Katakana,
        0x3001 | 0x3002 | 0x3008..=0x3011 | 0xFF01 | 0xFF08 | 0xFF09 | 0xFF1F => Cjk::Other,
        0xFF07 | 0xFF0C | 0xFF0E | 0xFF1A | 0xFF1B => Cjk::Mid,
        _ => Cjk::No,
    }
}

/// True when the character starting at byte `p` of the UTF-8 text `b`
/// (`p` < `b.len()`) is certainly not Extend, Format or ZWJ, the word-break
/// classes that attach to the character before them (WB4): ASCII, a
/// character of the CJK path, CJK symbols and punctuation U+3000–U+3029
/// (U+302A–U+302F are Extend) or a fullwidth form U+FF01–U+FF5E. Other
/// characters answer false (the general path is taken, never a wrong cut).
#[inline]
fn attaches_to_nothing(b: &[u8], p: usize) -> bool {
    let c = b[p];
    if c < 0x80 || cjk_class(b, p) != Cjk::No {
        return true;
    }
    match (c, b.get(p + 1), b.get(p + 2)) {
        // U+3000..=U+3029: E3 80 80 to E3 80 A9.
        (0xE3, Some(0x80), Some(&t)) => t <= 0xA9,
        // U+FF01..=U+FF3F: EF BC 81 to EF BC BF; U+FF40..=U+FF5E: EF BD 80 to EF BD 9E.
        (0xEF, Some(0xBC), Some(&t)) => t >= 0x81,
        (0xEF, Some(0xBD), Some(&t)) => t <= 0x9E,
        _ => false,
    }
}

/// True when a run of Katakana may end before byte `p` of `b`: the end
/// of the text, or a character that attaches to nothing and joins no
/// Katakana (no Katakana, no ExtendNumLet `_` or `＿`).
#[inline]
fn katakana_may_end(b: &[u8], p: usize) -> bool {
    p == b.len()
        || (attaches_to_nothing(b, p)
            && b[p] != b'_'
            && cjk_class(b, p) != Cjk::Katakana
            && !b[p..].starts_with("\u{FF3F}".as_bytes()))
}

/// End of the longest run from byte `a` of `b` (a chunk start, so a cut)
/// whose segments [`cjk_next`] knows: characters of [`Cjk`] classes
/// Single, Katakana and Other, and Mid after one of them, each (a Katakana
/// run as a whole) followed by the end of the text or by a character that
/// cannot join it. `a` itself when there is none.
#[inline]
fn cjk_run(b: &[u8], a: usize) -> usize {
    let mut p = a;
    while p < b.len() {
        let next = match cjk_class(b, p) {
            Cjk::No => break,
            Cjk::Mid if p == a => break,
            Cjk::Katakana => {
                let mut q = p + CJK_BYTES;
                while q < b.len() && cjk_class(b, q) == Cjk::Katakana {
                    q += CJK_BYTES;
                }
                if !katakana_may_end(b, q) {
                    break;
                }
                q
            }
            _ => {
                let q = p + CJK_BYTES;
                if q < b.len() && !attaches_to_nothing(b, q) {
                    break;
                }
                q
            }
        };
        p = next;
    }
    p
}

/// The next word of the CJK run `b[*at..end]` ([`cjk_run`]): an ideograph
/// or Hiragana letter, or a run of Katakana; punctuation is skipped.
#[inline]
fn cjk_next(b: &[u8], at: &mut usize, end: usize) -> Option<(usize, usize)> {
    while *at < end {
        let from = *at;
        match cjk_class(b, from) {
            Cjk::Single => {
                *at += CJK_BYTES;
                return Some((from, *at));
            }
            Cjk::Katakana => {
                while *at < end && cjk_class(b, *at) == Cjk::Katakana {
                    *at += CJK_BYTES;
                }
                return Some((from, *at));
            }
            _ => *at += CJK_BYTES,
        }
    }
    None
}

/// UAX#29 word-break classes of the ASCII bytes that can be part of a word:
/// ALetter, Numeric, ExtendNumLet (`_`), MidLetter (`:`), MidNumLet and
/// Single_Quote (`.` and `'`, which act alike without Hebrew letters),
/// MidNum (`,` and `;`). Every other ASCII byte is a segment of its own (or
/// of a run of spaces, or CR LF) without a letter or digit.
const OTHER: u8 = 0;
const LETTER: u8 = 1;
const DIGIT: u8 = 2;
const EXTEND_NUM_LET: u8 = 3;
const MID_LETTER: u8 = 4;
const MID_NUM_LET: u8 = 5;
const MID_NUM: u8 = 6;

static ASCII_CLASS: [u8; 128] = {
    let mut t = [OTHER; 128];
    let mut c = 0;
    while c < 128 {
        t[c] = match c as u8 {
            b'A'..=b'Z' | b'a'..=b'z' => LETTER,
            b'0'..=b'9' => DIGIT,
            b'_' => EXTEND_NUM_LET,
            b':' => MID_LETTER,
            b'.' | b'\'' => MID_NUM_LET,
            b',' | b';' => MID_NUM,
            _ => OTHER,
        };
        c += 1;
    }
    t
};

/// The next UAX#29 word segment with a letter or digit in the ASCII bytes
/// `b[*at..end]`, as a byte range; advances `at` past it. Within a word:
/// letters, digits and `_` join (WB5, WB8–WB10, WB13a/b); a MidLetter or
/// MidNumLet between two letters joins (WB6/7), a MidNum or MidNumLet
/// between two digits joins (WB11/12); everything else breaks.
#[inline]
fn ascii_next(b: &[u8], at: &mut usize, end: usize) -> Option<(usize, usize)> {
    let mut i = *at;
    while i < end {
        let c = ASCII_CLASS[usize::from(b[i])];
        if !matches!(c, LETTER | DIGIT | EXTEND_NUM_LET) {
            i += 1;
            continue;
        }
        let start = i;
        let mut word = c != EXTEND_NUM_LET;
        i += 1;
        while i < end {
            let c = ASCII_CLASS[usize::from(b[i])];
            match c {
                LETTER | DIGIT | EXTEND_NUM_LET => {
                    word |= c != EXTEND_NUM_LET;
                    i += 1;
                }
                MID_LETTER | MID_NUM_LET | MID_NUM if i + 1 < end => {
                    let before = ASCII_CLASS[usize::from(b[i - 1])];
                    let after = ASCII_CLASS[usize::from(b[i + 1])];
                    let letters = before == LETTER && after == LETTER && c != MID_NUM;
                    let digits = before == DIGIT && after == DIGIT && c != MID_LETTER;
                    if letters || digits {
                        i += 2;
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        if word {
            *at = i;
            return Some((start, i));
        }
    }
    *at = end;
    None
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
        s.chars()
            .any(|c| is_common_letter(c) || c.is_alphanumeric())
    }
}

/// Blocks of letters only (every character Alphabetic; tested against
/// `char::is_alphabetic`), answered without the Unicode table search: CJK
/// ideographs, Hiragana, Katakana and Hangul syllables, most of the
/// non-Latin text of a web crawl, where every character is its own segment.
#[inline]
fn is_common_letter(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}' | '\u{AC00}'..='\u{D7A3}')
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

    /// The segmentation before the chunked fast path: `unicode-segmentation`
    /// over the whole text, the same filtering, merging and cutting.
    fn whole_text_raw(text: &str) -> Vec<Raw> {
        let mut bounds = text.split_word_bound_indices();
        let mut peeked: Option<(usize, &str)> = None;
        let mut out = Vec::new();
        let mut position = 0;
        let mut push = |from: usize, to: usize, out: &mut Vec<Raw>| {
            out.push(Raw { from, to, position });
            position += 1;
        };
        while let Some((from, seg)) = peeked.take().or_else(|| bounds.next()) {
            if !has_word_char(seg) {
                continue;
            }
            let mut to = from + seg.len();
            if seg.chars().all(is_complex_context) {
                for (next_from, next) in bounds.by_ref() {
                    if next_from == to && next.chars().all(is_complex_context) {
                        to += next.len();
                    } else {
                        peeked = Some((next_from, next));
                        break;
                    }
                }
            }
            let piece = &text[from..to];
            if piece.len() > MAX_TOKEN_UTF16 && utf16_len(piece) > MAX_TOKEN_UTF16 {
                let mut f = from;
                while f < to {
                    let end = cut_utf16(&text[f..to], MAX_TOKEN_UTF16) + f;
                    if has_word_char(&text[f..end]) {
                        push(f, end, &mut out);
                    }
                    f = end;
                }
                continue;
            }
            push(from, to, &mut out);
        }
        out
    }

    fn chunked_raw(text: &str) -> Vec<Raw> {
        let mut s = Segments::new(text);
        let mut v = Vec::new();
        while let Some(r) = s.next_raw() {
            v.push(r);
        }
        v
    }

    /// Characters that exercise every ASCII word-break class and the
    /// non-ASCII neighbours that interact with them (Extend, Format, ZWJ,
    /// Hebrew letters with quotes, Katakana, regional indicators, complex
    /// context, ideographs, no-break and other spaces, newlines).
    const ALPHABET: &[char] = &[
        'a',
        'Z',
        'q',
        '0',
        '7',
        '_',
        ':',
        '.',
        '\'',
        ',',
        ';',
        '"',
        ' ',
        ' ',
        ' ',
        '\n',
        '\r',
        '\t',
        '-',
        '/',
        '&',
        '@',
        '\u{0B}',
        '\u{0C}',
        '\u{85}',
        '\u{A0}',
        '\u{2028}',
        '\u{3000}',
        '\u{200D}',
        '\u{200B}',
        '\u{AD}',
        '\u{301}',
        '\u{93E}',
        '\u{5D0}',
        '\u{5D1}',
        '\u{30A2}',
        '\u{30FC}',
        '\u{4E2D}',
        '\u{4E00}',
        '\u{9FFF}',
        '\u{3400}',
        '\u{3001}',
        '\u{3029}',
        '\u{302A}',
        '\u{3005}',
        '\u{3041}',
        '\u{FF0C}',
        '\u{FF5E}',
        '\u{FF9E}',
        '\u{FE0F}',
        '\u{1F3FB}',
        '\u{E01}',
        '\u{E34}',
        '\u{1F1E6}',
        '\u{1F1E8}',
        '\u{1F600}',
        '\u{2019}',
        '\u{FF07}',
        '\u{B7}',
        '\u{387}',
        '\u{2024}',
        '\u{FE13}',
        '\u{E9}',
        '\u{130}',
        '\u{FF10}',
        '\u{2070}',
        '\u{B2}',
        '\u{1D41A}',
    ];

    /// Ideographs (weighted), their neighbours in Chinese text and every
    /// kind of mark that attaches to the character before it.
    const CJK: &[char] = &[
        '\u{4E2D}',
        '\u{6587}',
        '\u{4E00}',
        '\u{9FFF}',
        '\u{4E2D}',
        '\u{6587}',
        '\u{3041}',
        '\u{3042}',
        '\u{3096}',
        '\u{3097}',
        '\u{3099}',
        '\u{309B}',
        '\u{30A0}',
        '\u{30A1}',
        '\u{30AB}',
        '\u{30AB}',
        '\u{30FA}',
        '\u{30FB}',
        '\u{30FC}',
        '\u{30FE}',
        '\u{30FF}',
        '\u{3031}',
        '\u{FF66}',
        '\u{3000}',
        '\u{3001}',
        '\u{3002}',
        '\u{3008}',
        '\u{3011}',
        '\u{3012}',
        '\u{3029}',
        '\u{302A}',
        '\u{302F}',
        '\u{3030}',
        '\u{303D}',
        '\u{FF01}',
        '\u{FF07}',
        '\u{FF08}',
        '\u{FF0C}',
        '\u{FF0E}',
        '\u{FF10}',
        '\u{FF1A}',
        '\u{FF1B}',
        '\u{FF1F}',
        '\u{FF21}',
        '\u{FF3F}',
        '\u{FF41}',
        '\u{FF5E}',
        '\u{FF5F}',
        '\u{FF9E}',
        '\u{3400}',
        '\u{4DBF}',
        '\u{AC00}',
        '\u{301}',
        '\u{AD}',
        '\u{200D}',
        '\u{200B}',
        '\u{FE0F}',
        '\u{E0100}',
        '\u{1F3FB}',
        '\u{1F600}',
        '\u{5D0}',
        'a',
        '1',
        '_',
        ' ',
        '\n',
        '.',
        ':',
        ',',
        '\'',
        '"',
    ];

    /// Regression (found by `cjk_runs_segment_as_the_whole_text` while the
    /// CJK path was written): ideographic spaces join (WB3d) and a spacing
    /// mark after the last one attaches to them, making the spaces part of a
    /// word, so the CJK path must not cut between two of them.
    #[test]
    fn ideographic_spaces_before_a_mark_stay_one_segment() {
        for text in [
            "中\u{3000}\u{3000}\u{FF9E}",
            "中\u{3000}\u{3000}\u{3000}\u{FF9E}中",
        ] {
            assert_eq!(chunked_raw(text), whole_text_raw(text), "{text:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 2000, ..proptest::prelude::ProptestConfig::default()
        })]

        #[test]
        fn chunked_segments_equal_whole_text_segments(
            picks in proptest::collection::vec(0..ALPHABET.len(), 0..80),
            any in "\\PC{0,40}",
        ) {
            let text: String = picks.iter().map(|&i| ALPHABET[i]).collect();
            proptest::prop_assert_eq!(chunked_raw(&text), whole_text_raw(&text));
            proptest::prop_assert_eq!(chunked_raw(&any), whole_text_raw(&any));
            let mixed = format!("{text}{any}{text}");
            proptest::prop_assert_eq!(chunked_raw(&mixed), whole_text_raw(&mixed));
        }

        /// Chinese-like text: runs of ideographs between CJK punctuation,
        /// ASCII, and the marks that attach to an ideograph (Extend,
        /// Format, ZWJ), which must keep it off the ideograph path.
        #[test]
        fn cjk_runs_segment_as_the_whole_text(
            picks in proptest::collection::vec(0..CJK.len(), 0..120),
        ) {
            let text: String = picks.iter().map(|&i| CJK[i]).collect();
            proptest::prop_assert_eq!(chunked_raw(&text), whole_text_raw(&text));
        }

        #[test]
        fn ascii_segments_equal_whole_text_segments(text in "[a-c0-2_:.',; \n\r\t\"&-]{0,120}") {
            proptest::prop_assert_eq!(chunked_raw(&text), whole_text_raw(&text));
        }
    }

    /// Every text of the shared HTML corpus and WARC samples (when present)
    /// and the committed fixtures segment as before.
    #[test]
    fn chunked_segments_equal_whole_text_segments_on_real_text() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");
        let mut files = Vec::new();
        let mut stack = vec![std::path::PathBuf::from(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    files.push(p);
                }
            }
        }
        assert!(files.len() > 10, "fixtures under {dir}");
        let mut bytes = 0;
        for f in files {
            let Ok(raw) = std::fs::read(&f) else { continue };
            let text = String::from_utf8_lossy(&raw);
            bytes += text.len();
            assert!(
                chunked_raw(&text) == whole_text_raw(&text),
                "{}",
                f.display()
            );
        }
        assert!(bytes > 1 << 20);
    }

    #[test]
    fn common_letters_are_alphabetic() {
        for c in ('\u{0}'..=char::MAX).filter(|&c| is_common_letter(c)) {
            assert!(c.is_alphabetic(), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn thai_run_is_one_token() {
        assert_eq!(raw_texts("ภาษาไทย ok"), ["ภาษาไทย", "ok"]);
    }
}
