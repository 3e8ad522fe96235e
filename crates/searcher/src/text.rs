//! Small text helpers that every line-oriented reader of the crate shares:
//! UTF-8 checking with a line number, message snippets, whitespace
//! collapsing and byte-offset-to-line conversion. Topics, qrels, runs and
//! statistics files all use these, so their errors look alike.

use crate::{Error, Result};

/// Checks that `bytes` is UTF-8, reporting the 1-based line and the byte
/// offset of the first invalid byte otherwise ([`Error::InvalidUtf8`]).
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        Error::InvalidUtf8 {
            line: 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count(),
            offset,
        }
    })
}

/// At most 60 characters of `s`, followed by `…` when cut, for error messages.
pub(crate) fn snippet(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// Collapses runs of ASCII whitespace to one space and trims.
pub(crate) fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_ascii_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// 1-based line number of byte offset `pos` in `text` (`pos` ≤ `text.len()`).
pub(crate) fn line_at(text: &str, pos: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..pos]).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_cuts_at_60_chars() {
        assert_eq!(snippet("abc"), "abc");
        let long = "é".repeat(61);
        assert_eq!(snippet(&long), format!("{}…", "é".repeat(60)));
    }

    #[test]
    fn collapse_and_line_at() {
        assert_eq!(collapse("  a \n\t b  "), "a b");
        assert_eq!(line_at("a\nb\nc", 0), 1);
        assert_eq!(line_at("a\nb\nc", 4), 3);
        assert_eq!(line_at("a\nb\nc", 5), 3);
    }
}
