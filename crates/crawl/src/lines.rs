//! What the two line formats, JSON lines ([`crate::jsonl`]) and TSV
//! ([`crate::tsv`]), do alike: the blank lines and byte order marks between
//! records, the trimmed small fields, and the body of title and text.

use std::collections::VecDeque;

use crate::event::{AnomalyKind, CrawlEvent, anomaly};
use crate::input::Source;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Consumes the bytes between two records: runs of `blank` bytes, and byte
/// order marks at the start of a line (the file's, or one of several files
/// concatenated: not part of the record). What it consumed is one
/// [`AnomalyKind::StrayBytes`] at the offset it started from. Returns false
/// at the end of the input.
#[inline]
pub(crate) fn skip_between_lines(
    src: &mut Source,
    out: &mut VecDeque<CrawlEvent>,
    blank: impl Fn(u8) -> bool,
) -> bool {
    let ws_off = src.offset();
    let mut ws = 0u64;
    loop {
        if src.ensure(3) >= 3 && src.avail().starts_with(BOM) {
            src.consume(3);
            ws += 3;
            continue;
        }
        if src.ensure(1) == 0 {
            break;
        }
        let a = src.avail();
        let k = a.iter().take_while(|&&b| blank(b)).count();
        src.consume(k);
        ws += k as u64;
        if k == 0 {
            break;
        }
    }
    if ws > 0 {
        out.push_back(anomaly(AnomalyKind::StrayBytes, ws_off, ws, None));
    }
    !src.at_eof()
}

/// A small field (docid, URL, language) as text: lossy UTF-8, trimmed;
/// `None` when nothing is left.
#[inline]
pub(crate) fn lossy_trim(v: &[u8]) -> Option<String> {
    let s = String::from_utf8_lossy(v.trim_ascii());
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// The body of a line's document: the title with its line ends read as
/// spaces, `\n`, then the text.
#[inline]
pub(crate) fn text_body(title: &[u8], text: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(title.len() + 1 + text.len());
    body.extend(
        title
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b }),
    );
    body.push(b'\n');
    body.extend_from_slice(text);
    body
}
