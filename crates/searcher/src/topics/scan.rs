//! A lenient tag scanner for the SGML-like topic formats (TREC SGML and
//! Anserini CACM).
//!
//! These files are not XML, so an XML reader cannot read them: TREC topic
//! files leave most tags unclosed (`<num> Number: 051` runs until the next
//! tag), use no character references (`AT&T` is literal text), and put bare
//! `<` and `>` in text (`<price> Price: >= 200 < 300`). A conforming XML
//! parser rejects all three; this scanner only splits the text into tags and
//! the text between them and leaves the structure to the readers.

/// A markup token: a tag or a run of text, with its byte offset.
#[derive(Debug)]
pub(super) enum Tok<'a> {
    /// `<name>` or `<name/>`, name as written.
    Open {
        /// The tag name as written.
        name: &'a str,
        /// Byte offset of the `<`.
        pos: usize,
    },
    /// `</name>`.
    Close {
        /// The tag name as written.
        name: &'a str,
        /// Byte offset of the `<`.
        pos: usize,
    },
    /// Text between tags.
    Text {
        /// The text, verbatim.
        text: &'a str,
        /// Byte offset of its first byte.
        pos: usize,
    },
}

/// Splits `text` into tags and text. A `<` starts a tag only when followed
/// by an optional `/` and an ASCII letter, then a name (letters, digits,
/// `_-.:`), optional whitespace or a `/` (an opening tag only), and a `>`
/// with no `<` before it; every other `<` (e.g. `< 5`, `>= 200`,
/// `<a href=x>`) is text. Never fails: any input is tags and text.
pub(super) fn scan(text: &str) -> Vec<Tok<'_>> {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    let mut text_start = 0;
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        let lt = i + off;
        match tag_at(text, lt) {
            Some((tok, next)) => {
                if text_start < lt {
                    toks.push(Tok::Text {
                        text: &text[text_start..lt],
                        pos: text_start,
                    });
                }
                toks.push(tok);
                i = next;
                text_start = next;
            }
            None => i = lt + 1,
        }
    }
    if text_start < text.len() {
        toks.push(Tok::Text {
            text: &text[text_start..],
            pos: text_start,
        });
    }
    toks
}

/// The tag starting at the `<` at byte `lt`, and the offset just after its
/// `>`; `None` when that `<` is text (see [`scan`]).
fn tag_at(text: &str, lt: usize) -> Option<(Tok<'_>, usize)> {
    let b = text.as_bytes();
    let mut j = lt + 1;
    let closing = b.get(j) == Some(&b'/');
    if closing {
        j += 1;
    }
    if !b.get(j).is_some_and(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let name_start = j;
    while b
        .get(j)
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':'))
    {
        j += 1;
    }
    let name = &text[name_start..j];
    let end = text[j..].find('>')?;
    let inner = &text[j..j + end];
    if inner.contains('<') {
        return None;
    }
    let (attrs, empty) = match inner.strip_suffix('/') {
        Some(a) => (a, true),
        None => (inner, false),
    };
    let attrs_ok = attrs.is_empty() || attrs.starts_with(|c: char| c.is_ascii_whitespace());
    if !attrs_ok || !attrs.trim().is_empty() || (closing && empty) {
        return None;
    }
    let tok = if closing {
        Tok::Close { name, pos: lt }
    } else {
        Tok::Open { name, pos: lt }
    };
    Some((tok, j + end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_angle_brackets_are_text() {
        let toks = scan("<price> >= 200 < 300 <a href=x></price>");
        let kinds: Vec<String> = toks
            .iter()
            .map(|t| match t {
                Tok::Open { name, pos } => format!("open {name} {pos}"),
                Tok::Close { name, pos } => format!("close {name} {pos}"),
                Tok::Text { text, pos } => format!("text {text:?} {pos}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "open price 0",
                "text \" >= 200 < 300 <a href=x>\" 7",
                "close price 31",
            ]
        );
    }
}
