//! The header fields of a WARC record that sieve reads: its type, the ids
//! a docid may come from, language, target URI, Content-Type and
//! Content-Length; lines it cannot read are counted.

use super::strip_cr;

/// The fields of a WARC head sieve reads (values trimmed).
#[derive(Default)]
pub(super) struct WarcHead {
    /// `WARC-Type`, lower-cased.
    pub(super) wtype: Option<String>,
    /// `WARC-Record-ID`, angle brackets stripped.
    pub(super) record_id: Option<String>,
    /// `WARC-TREC-ID` (ClueWeb09/12's docid).
    pub(super) trec_id: Option<String>,
    /// ClueWeb22's docid header.
    pub(super) cw22_id: Option<String>,
    /// The header chosen as docid
    /// ([`CrawlOptions::docid_header`](crate::CrawlOptions::docid_header)).
    pub(super) chosen: Option<String>,
    /// ClueWeb22's `Language` header.
    pub(super) language: Option<String>,
    /// `WARC-Target-URI`, angle brackets stripped.
    pub(super) target_uri: Option<String>,
    /// The WARC `Content-Type`, as written.
    pub(super) content_type: Option<Vec<u8>>,
    /// `Content-Length`, if it parses.
    pub(super) content_length: Option<u64>,
    /// Bytes of the lines that could not be read (no colon, or a
    /// Content-Length that does not parse), line ends included.
    pub(super) bad_bytes: u64,
}

/// A header value as text: lossy UTF-8, trimmed, one pair of angle
/// brackets stripped; `None` when nothing is left.
fn lossy_trim(v: &[u8]) -> Option<String> {
    let s = String::from_utf8_lossy(v.trim_ascii());
    let s = s.trim();
    let s = s
        .strip_prefix('<')
        .and_then(|x| x.strip_suffix('>'))
        .unwrap_or(s)
        .trim();
    if s.is_empty() {
        None
    } else {
        Some(s.to_string())
    }
}

/// Parses a WARC head (version line first); `chosen` is the header
/// chosen as docid, if any.
pub(super) fn parse_warc_head(head: &[u8], chosen: Option<&str>) -> WarcHead {
    let mut h = WarcHead::default();
    let mut lines = head.split(|&b| b == b'\n');
    lines.next(); // version line
    for line in lines {
        let line = strip_cr(line);
        if line.is_empty() {
            continue;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            h.bad_bytes += line.len() as u64 + 1;
            continue;
        };
        let name = line[..colon].trim_ascii();
        let value = line[colon + 1..].trim_ascii();
        let is = |n: &str| name.eq_ignore_ascii_case(n.as_bytes());
        if h.chosen.is_none() && chosen.is_some_and(is) {
            h.chosen = lossy_trim(value);
        }
        if is("WARC-Type") {
            h.wtype = Some(String::from_utf8_lossy(value).to_ascii_lowercase());
        } else if is("WARC-Record-ID") {
            h.record_id = lossy_trim(value);
        } else if is("WARC-TREC-ID") {
            h.trec_id = lossy_trim(value);
        } else if is("ClueWeb22-ID") {
            h.cw22_id = lossy_trim(value);
        } else if is("Language") {
            h.language = lossy_trim(value);
        } else if is("WARC-Target-URI") {
            h.target_uri = lossy_trim(value);
        } else if is("Content-Type") {
            h.content_type = Some(value.to_vec());
        } else if is("Content-Length") {
            match std::str::from_utf8(value)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
            {
                Some(n) => h.content_length = Some(n),
                None => h.bad_bytes += line.len() as u64 + 1,
            }
        }
    }
    h
}
