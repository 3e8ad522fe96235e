//! HTML character references ("entities"): named, decimal and hexadecimal,
//! decoded as the HTML5 tokenizer does in text content.
//!
//! * Named references use the WHATWG table (2,125 names that end in `;`,
//!   `html_escape::NAMED_ENTITIES`, generated from
//!   <https://html.spec.whatwg.org/entities.json>) plus the 106 legacy names
//!   that browsers also accept without the semicolon (`&amp`, `&copy`,
//!   `&eacute`, ...). As in browsers, a legacy name matches as the longest
//!   prefix of the alphanumeric run: `&notit;` is `¬it;`, `&copy2020` is
//!   `©2020`.
//! * Numeric references: `&#65;`, `&#x41;`, `&#X41;`, with or without the
//!   final `;`. Zero, surrogates and values above U+10FFFF (including
//!   overflow) become U+FFFD; 0x80-0x9F are remapped through windows-1252
//!   (`&#150;` is `–`), as the HTML5 spec requires.
//! * Anything else (`&`, `&;`, `&#;`, `&unknown;`) is not a reference: the
//!   `&` is literal text.

use html_escape::NAMED_ENTITIES;

/// The value of one decoded character reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ref {
    /// A named reference (one or two code points).
    Str(&'static str),
    /// A numeric reference.
    Char(char),
}

/// The legacy named references that browsers accept without `;` (the
/// `entities.json` names without a trailing semicolon), sorted by name.
pub(crate) static LEGACY: [(&[u8], &str); 106] = [
    (b"AElig", "\u{00C6}"),
    (b"AMP", "\u{0026}"),
    (b"Aacute", "\u{00C1}"),
    (b"Acirc", "\u{00C2}"),
    (b"Agrave", "\u{00C0}"),
    (b"Aring", "\u{00C5}"),
    (b"Atilde", "\u{00C3}"),
    (b"Auml", "\u{00C4}"),
    (b"COPY", "\u{00A9}"),
    (b"Ccedil", "\u{00C7}"),
    (b"ETH", "\u{00D0}"),
    (b"Eacute", "\u{00C9}"),
    (b"Ecirc", "\u{00CA}"),
    (b"Egrave", "\u{00C8}"),
    (b"Euml", "\u{00CB}"),
    (b"GT", "\u{003E}"),
    (b"Iacute", "\u{00CD}"),
    (b"Icirc", "\u{00CE}"),
    (b"Igrave", "\u{00CC}"),
    (b"Iuml", "\u{00CF}"),
    (b"LT", "\u{003C}"),
    (b"Ntilde", "\u{00D1}"),
    (b"Oacute", "\u{00D3}"),
    (b"Ocirc", "\u{00D4}"),
    (b"Ograve", "\u{00D2}"),
    (b"Oslash", "\u{00D8}"),
    (b"Otilde", "\u{00D5}"),
    (b"Ouml", "\u{00D6}"),
    (b"QUOT", "\u{0022}"),
    (b"REG", "\u{00AE}"),
    (b"THORN", "\u{00DE}"),
    (b"Uacute", "\u{00DA}"),
    (b"Ucirc", "\u{00DB}"),
    (b"Ugrave", "\u{00D9}"),
    (b"Uuml", "\u{00DC}"),
    (b"Yacute", "\u{00DD}"),
    (b"aacute", "\u{00E1}"),
    (b"acirc", "\u{00E2}"),
    (b"acute", "\u{00B4}"),
    (b"aelig", "\u{00E6}"),
    (b"agrave", "\u{00E0}"),
    (b"amp", "\u{0026}"),
    (b"aring", "\u{00E5}"),
    (b"atilde", "\u{00E3}"),
    (b"auml", "\u{00E4}"),
    (b"brvbar", "\u{00A6}"),
    (b"ccedil", "\u{00E7}"),
    (b"cedil", "\u{00B8}"),
    (b"cent", "\u{00A2}"),
    (b"copy", "\u{00A9}"),
    (b"curren", "\u{00A4}"),
    (b"deg", "\u{00B0}"),
    (b"divide", "\u{00F7}"),
    (b"eacute", "\u{00E9}"),
    (b"ecirc", "\u{00EA}"),
    (b"egrave", "\u{00E8}"),
    (b"eth", "\u{00F0}"),
    (b"euml", "\u{00EB}"),
    (b"frac12", "\u{00BD}"),
    (b"frac14", "\u{00BC}"),
    (b"frac34", "\u{00BE}"),
    (b"gt", "\u{003E}"),
    (b"iacute", "\u{00ED}"),
    (b"icirc", "\u{00EE}"),
    (b"iexcl", "\u{00A1}"),
    (b"igrave", "\u{00EC}"),
    (b"iquest", "\u{00BF}"),
    (b"iuml", "\u{00EF}"),
    (b"laquo", "\u{00AB}"),
    (b"lt", "\u{003C}"),
    (b"macr", "\u{00AF}"),
    (b"micro", "\u{00B5}"),
    (b"middot", "\u{00B7}"),
    (b"nbsp", "\u{00A0}"),
    (b"not", "\u{00AC}"),
    (b"ntilde", "\u{00F1}"),
    (b"oacute", "\u{00F3}"),
    (b"ocirc", "\u{00F4}"),
    (b"ograve", "\u{00F2}"),
    (b"ordf", "\u{00AA}"),
    (b"ordm", "\u{00BA}"),
    (b"oslash", "\u{00F8}"),
    (b"otilde", "\u{00F5}"),
    (b"ouml", "\u{00F6}"),
    (b"para", "\u{00B6}"),
    (b"plusmn", "\u{00B1}"),
    (b"pound", "\u{00A3}"),
    (b"quot", "\u{0022}"),
    (b"raquo", "\u{00BB}"),
    (b"reg", "\u{00AE}"),
    (b"sect", "\u{00A7}"),
    (b"shy", "\u{00AD}"),
    (b"sup1", "\u{00B9}"),
    (b"sup2", "\u{00B2}"),
    (b"sup3", "\u{00B3}"),
    (b"szlig", "\u{00DF}"),
    (b"thorn", "\u{00FE}"),
    (b"times", "\u{00D7}"),
    (b"uacute", "\u{00FA}"),
    (b"ucirc", "\u{00FB}"),
    (b"ugrave", "\u{00F9}"),
    (b"uml", "\u{00A8}"),
    (b"uuml", "\u{00FC}"),
    (b"yacute", "\u{00FD}"),
    (b"yen", "\u{00A5}"),
    (b"yuml", "\u{00FF}"),
];

/// The longest legacy name (`frac12`, `Oslash`, ...).
const LEGACY_MAX: usize = 6;
/// Longer than the longest WHATWG name (`CounterClockwiseContourIntegral`,
/// 31 bytes); alphanumeric runs are not scanned further than this.
const RUN_MAX: usize = 40;

/// windows-1252 values of the numeric references 0x80-0x9F (HTML5
/// "numeric character reference end state" table); the five positions that
/// windows-1252 leaves undefined keep their C1 value.
const C1: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

fn lookup(table: &'static [(&'static [u8], &'static str)], name: &[u8]) -> Option<&'static str> {
    table
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .map(|i| table[i].1)
}

/// Maps a numeric reference's value to the character the HTML5 tokenizer
/// produces for it.
pub(crate) fn numeric_char(v: u32) -> char {
    match v {
        0 => '\u{FFFD}',
        0x80..=0x9F => C1[(v - 0x80) as usize],
        _ => char::from_u32(v).unwrap_or('\u{FFFD}'),
    }
}

/// Decodes the character reference that starts at `b[p] == b'&'`.
/// Returns the value and the index just after the reference, or `None`
/// when the `&` does not start a reference (it is then literal text).
pub(crate) fn decode_ref(b: &[u8], p: usize) -> Option<(Ref, usize)> {
    debug_assert_eq!(b.get(p), Some(&b'&'));
    let start = p + 1;
    match b.get(start)? {
        b'#' => decode_numeric(b, start + 1),
        c if c.is_ascii_alphanumeric() => decode_named(b, start),
        _ => None,
    }
}

fn decode_numeric(b: &[u8], mut i: usize) -> Option<(Ref, usize)> {
    let hex = matches!(b.get(i), Some(b'x' | b'X'));
    if hex {
        i += 1;
    }
    let digits_start = i;
    let mut v: u32 = 0;
    while let Some(&c) = b.get(i) {
        let d = if hex {
            match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            }
        } else if c.is_ascii_digit() {
            c - b'0'
        } else {
            break;
        };
        // Saturate just above the Unicode range: overflow is U+FFFD.
        v = (v.saturating_mul(if hex { 16 } else { 10 }) + u32::from(d)).min(0x11_0000);
        i += 1;
    }
    if i == digits_start {
        return None;
    }
    if b.get(i) == Some(&b';') {
        i += 1;
    }
    Some((Ref::Char(numeric_char(v)), i))
}

fn decode_named(b: &[u8], start: usize) -> Option<(Ref, usize)> {
    let mut end = start;
    while end < b.len() && end - start < RUN_MAX && b[end].is_ascii_alphanumeric() {
        end += 1;
    }
    let run = &b[start..end];
    if end - start < RUN_MAX
        && b.get(end) == Some(&b';')
        && let Some(v) = lookup(&NAMED_ENTITIES, run)
    {
        return Some((Ref::Str(v), end + 1));
    }
    for k in (2..=LEGACY_MAX.min(run.len())).rev() {
        if let Some(v) = lookup(&LEGACY, &run[..k]) {
            return Some((Ref::Str(v), start + k));
        }
    }
    None
}
