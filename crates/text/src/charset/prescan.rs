//! The encoding declarations inside a body: the WHATWG prescan for
//! `<meta>` and the XML declaration at byte 0.

use encoding_rs::Encoding;

/// HTML's ASCII whitespace.
fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0C | b'\r' | b' ')
}

/// Finds `needle` (ASCII, lower case) in `hay` starting at `from`,
/// ignoring ASCII case.
fn find_ci(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from > hay.len() || needle.len() > hay.len() - from {
        return None;
    }
    (from..=hay.len() - needle.len())
        .find(|&i| hay[i..i + needle.len()].eq_ignore_ascii_case(needle))
}

/// The WHATWG "prescan a byte stream to determine its encoding" over `head`
/// (the caller passes at most [`PRESCAN_BYTES`](super::PRESCAN_BYTES)); returns
/// the encoding of the first complete, effective `<meta>` declaration whose
/// label resolves (as resolved, before the UTF-16-means-UTF-8 rule). A label
/// that does not resolve sets `*unknown` and the scan goes on, as in WHATWG. A
/// tag cut off by the end of `head` ends the scan.
pub(super) fn prescan_meta(head: &[u8], unknown: &mut bool) -> Option<&'static Encoding> {
    let b = head;
    let mut pos = 0;
    while pos < b.len() {
        let rest = &b[pos..];
        if rest.starts_with(b"<!--") {
            // First '>' preceded by "--", the dashes may be those of "<!--".
            let end = memchr::memmem::find(&b[pos + 2..], b"-->")?;
            pos = pos + 2 + end + 3;
        } else if rest.len() >= 6
            && rest[..5].eq_ignore_ascii_case(b"<meta")
            && (is_space(rest[5]) || rest[5] == b'/')
        {
            let (label, next) = meta_label(b, pos + 5)?;
            pos = next;
            let Some(label) = label else {
                continue;
            };
            match Encoding::for_label(&label) {
                Some(e) => return Some(e),
                None => *unknown = true,
            }
        } else if rest.len() >= 2
            && rest[0] == b'<'
            && (rest[1].is_ascii_alphabetic()
                || (rest[1] == b'/' && rest.len() >= 3 && rest[2].is_ascii_alphabetic()))
        {
            pos = skip_tag(b, pos + if rest[1] == b'/' { 2 } else { 1 })?;
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            pos += memchr::memchr(b'>', &rest[1..])? + 2;
        } else {
            pos += 1;
        }
    }
    None
}

/// The attributes of a `<meta` tag from `pos` (just after `<meta`) to its
/// `>`: the charset label it declares, if its attributes make the
/// declaration effective, and the position after the tag. `None` if the
/// input ends inside the tag.
fn meta_label(b: &[u8], mut pos: usize) -> Option<(Option<Vec<u8>>, usize)> {
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<Vec<u8>> = None;
    loop {
        let (name, value, next) = match get_attribute(b, pos) {
            Attr::Some(n, v, next) => (n, v, next),
            Attr::End(next) => {
                pos = next;
                break;
            }
            Attr::Eof => return None,
        };
        pos = next;
        if names.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" if value == b"content-type" => got_pragma = true,
            b"content" if charset.is_none() => {
                if let Some(c) = charset_from_content(&value) {
                    charset = Some(c);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Some(value.clone());
                need_pragma = Some(false);
            }
            _ => {}
        }
        names.push(name);
    }
    let label = match (need_pragma, charset) {
        (Some(true), Some(c)) if got_pragma => Some(c),
        (Some(false), Some(c)) => Some(c),
        _ => None,
    };
    Some((label, pos))
}

/// Skips the name of a tag starting at `pos` (just after `<` or `</`) and
/// its attributes: the position after its `>`, or `None` if the input
/// ends first.
fn skip_tag(b: &[u8], mut pos: usize) -> Option<usize> {
    while pos < b.len() && !is_space(b[pos]) && b[pos] != b'>' {
        pos += 1;
    }
    loop {
        match get_attribute(b, pos) {
            Attr::Some(_, _, next) => pos = next,
            Attr::End(next) => return Some(next),
            Attr::Eof => return None,
        }
    }
}

/// What [`get_attribute`] found.
enum Attr {
    /// Name (lower-cased), value (lower-cased), position after it.
    Some(Vec<u8>, Vec<u8>, usize),
    /// No more attributes: position after the tag's `>`.
    End(usize),
    /// Ran out of input.
    Eof,
}

/// WHATWG "get an attribute" starting at `pos`.
fn get_attribute(b: &[u8], mut pos: usize) -> Attr {
    while pos < b.len() && (is_space(b[pos]) || b[pos] == b'/') {
        pos += 1;
    }
    match b.get(pos) {
        None => return Attr::Eof,
        Some(b'>') => return Attr::End(pos + 1),
        _ => {}
    }
    let mut name = Vec::new();
    // Name.
    loop {
        let Some(&c) = b.get(pos) else {
            return Attr::Eof;
        };
        if c == b'=' && !name.is_empty() {
            pos += 1;
            break;
        } else if is_space(c) {
            while pos < b.len() && is_space(b[pos]) {
                pos += 1;
            }
            if b.get(pos) != Some(&b'=') {
                return Attr::Some(name, Vec::new(), pos);
            }
            pos += 1;
            break;
        } else if c == b'/' || c == b'>' {
            return Attr::Some(name, Vec::new(), pos);
        } else {
            name.push(c.to_ascii_lowercase());
            pos += 1;
        }
    }
    // Value.
    while pos < b.len() && is_space(b[pos]) {
        pos += 1;
    }
    let mut value = Vec::new();
    match b.get(pos) {
        None => Attr::Eof,
        Some(&q @ (b'"' | b'\'')) => {
            pos += 1;
            loop {
                match b.get(pos) {
                    None => return Attr::Eof,
                    Some(&c) if c == q => return Attr::Some(name, value, pos + 1),
                    Some(&c) => value.push(c.to_ascii_lowercase()),
                }
                pos += 1;
            }
        }
        Some(b'>') => Attr::Some(name, value, pos),
        Some(_) => {
            loop {
                match b.get(pos) {
                    None => return Attr::Eof,
                    Some(&c) if is_space(c) || c == b'>' => break,
                    Some(&c) => value.push(c.to_ascii_lowercase()),
                }
                pos += 1;
            }
            Attr::Some(name, value, pos)
        }
    }
}

/// WHATWG "algorithm for extracting a character encoding from a meta
/// element" over a `content` attribute value.
pub(super) fn charset_from_content(v: &[u8]) -> Option<Vec<u8>> {
    let mut pos = 0;
    loop {
        let at = find_ci(v, pos, b"charset")?;
        pos = at + 7;
        while pos < v.len() && is_space(v[pos]) {
            pos += 1;
        }
        if v.get(pos) != Some(&b'=') {
            continue;
        }
        pos += 1;
        while pos < v.len() && is_space(v[pos]) {
            pos += 1;
        }
        return match v.get(pos) {
            None => None,
            Some(&q @ (b'"' | b'\'')) => {
                let end = memchr::memchr(q, &v[pos + 1..])?;
                Some(v[pos + 1..pos + 1 + end].to_vec())
            }
            Some(_) => {
                let end = v[pos..]
                    .iter()
                    .position(|&c| is_space(c) || c == b';')
                    .map_or(v.len(), |e| pos + e);
                Some(v[pos..end].to_vec())
            }
        };
    }
}

/// The `encoding` pseudo-attribute of an XML declaration at byte 0 of
/// `head` (`<?xml version="1.0" encoding="..."?>`), if the declaration is
/// complete within `head`.
pub(super) fn xml_declaration(head: &[u8]) -> Option<Vec<u8>> {
    if !head.starts_with(b"<?xml") || !head.get(5).is_some_and(|&c| is_space(c)) {
        return None;
    }
    let end = memchr::memmem::find(head, b"?>")?;
    let decl = &head[..end];
    let mut pos = 5;
    loop {
        let at = memchr::memmem::find(&decl[pos..], b"encoding")? + pos;
        pos = at + 8;
        let mut p = pos;
        while p < decl.len() && is_space(decl[p]) {
            p += 1;
        }
        if decl.get(p) != Some(&b'=') {
            continue;
        }
        p += 1;
        while p < decl.len() && is_space(decl[p]) {
            p += 1;
        }
        let q = *decl.get(p)?;
        if q != b'"' && q != b'\'' {
            return None;
        }
        let len = memchr::memchr(q, &decl[p + 1..])?;
        return Some(decl[p + 1..p + 1 + len].to_vec());
    }
}
