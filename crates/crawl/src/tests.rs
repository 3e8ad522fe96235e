//! Unit tests for the crawl readers. The synthetic fixtures are built here
//! from our own bytes (no third-party content); the real small fixtures are in
//! `tests/data/warc/` and `tests/data/trec/` (provenance in `tests/data/SOURCES.md`).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use proptest::prelude::*;

use super::*;
use crate::Error;
use crate::http::{dechunk, parse_head, sniff_html};

mod clueweb22;
mod gzip;
mod lines;
mod smart;

// ------------------------------------------------------------------ helpers

fn read_all(bytes: Vec<u8>, opts: &CrawlOptions) -> (Vec<CrawlEvent>, Option<Error>) {
    let r = from_reader("test", std::io::Cursor::new(bytes), opts).expect("open");
    collect(r)
}

fn collect(r: CrawlReader) -> (Vec<CrawlEvent>, Option<Error>) {
    let mut evs = Vec::new();
    let mut err = None;
    for e in r {
        match e {
            Ok(ev) => {
                assert!(err.is_none(), "event after an error");
                evs.push(ev)
            }
            Err(e) => {
                assert!(err.is_none(), "two errors");
                err = Some(e)
            }
        }
    }
    (evs, err)
}

fn events(bytes: &[u8]) -> Vec<CrawlEvent> {
    let (evs, err) = read_all(bytes.to_vec(), &CrawlOptions::default());
    assert!(err.is_none(), "unexpected error {err:?}");
    evs
}

/// The events with the gzip member of each document's span cleared: what
/// plain and gzip forms of the same bytes must agree on.
fn unmember(mut evs: Vec<CrawlEvent>) -> Vec<CrawlEvent> {
    for e in &mut evs {
        if let CrawlEvent::Doc(d) = e {
            d.span.member = None;
        }
    }
    evs
}

fn docs(evs: &[CrawlEvent]) -> Vec<&RawDoc> {
    evs.iter()
        .filter_map(|e| match e {
            CrawlEvent::Doc(d) => Some(d),
            _ => None,
        })
        .collect()
}

fn skips(evs: &[CrawlEvent]) -> Vec<String> {
    evs.iter()
        .filter_map(|e| match e {
            CrawlEvent::Skip(s) => Some(s.reason.key()),
            _ => None,
        })
        .collect()
}

fn anomalies(evs: &[CrawlEvent]) -> Vec<(AnomalyKind, u64)> {
    evs.iter()
        .filter_map(|e| match e {
            CrawlEvent::Anomaly(a) => Some((a.kind, a.bytes)),
            _ => None,
        })
        .collect()
}

/// A WARC record with the given version, line end, type, id and block. The
/// Content-Length is `block.len() + cl_delta`; `trailer` follows the block.
fn warc_rec(
    version: &str,
    eol: &str,
    wtype: &str,
    id: &str,
    block: &[u8],
    cl_delta: i64,
    trailer: &str,
) -> Vec<u8> {
    let cl = block.len() as i64 + cl_delta;
    let mut v = Vec::new();
    write!(
        v,
        "WARC/{version}{eol}WARC-Type: {wtype}{eol}WARC-Date: 2009-03-65T08:43:19-0800{eol}\
         WARC-TREC-ID: {id}{eol}WARC-Target-URI: http://example.org/{id}{eol}\
         Content-Type: application/http;msgtype=response{eol}Content-Length: {cl}{eol}{eol}"
    )
    .unwrap();
    v.extend_from_slice(block);
    v.extend_from_slice(trailer.as_bytes());
    v
}

fn http_block(head: &str, body: &[u8]) -> Vec<u8> {
    let mut v = head.as_bytes().to_vec();
    v.extend_from_slice(body);
    v
}

fn resp(id: &str, body: &str) -> Vec<u8> {
    warc_rec(
        "1.0",
        "\r\n",
        "response",
        id,
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=\"UTF-8\"\r\n\r\n",
            body.as_bytes(),
        ),
        0,
        "\r\n\r\n",
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(rel)
}

/// A reader that returns at most `sizes[i % len]` bytes per call.
struct Dribble {
    data: Vec<u8>,
    pos: usize,
    sizes: Vec<usize>,
    call: usize,
}

impl Read for Dribble {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.sizes[self.call % self.sizes.len()].max(1);
        self.call += 1;
        let n = k.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn dribble_events(data: &[u8], sizes: Vec<usize>) -> (Vec<CrawlEvent>, Option<String>) {
    let r = from_reader(
        "dribble",
        Dribble {
            data: data.to_vec(),
            pos: 0,
            sizes,
            call: 0,
        },
        &CrawlOptions::default(),
    )
    .unwrap();
    let (e, err) = collect(r);
    (e, err.map(|e| e.to_string()))
}

/// One file with every WARC quirk we handle, for the sweep and the fuzz seeds.
fn quirk_mix() -> Vec<u8> {
    let mut f = Vec::new();
    f.extend(warc_rec(
        "0.18",
        "\n",
        "warcinfo",
        "info",
        b"software: x\n",
        0,
        "",
    ));
    f.extend(warc_rec(
        "0.18",
        "\n",
        "response",
        "cw-1",
        &http_block(
            "HTTP/1.1 200 OK\nServer : Live 5\nContent-Type: text/html\n\n",
            b"<html>a</html>\n",
        ),
        0,
        "",
    ));
    f.extend(warc_rec(
        "0.18",
        "\n",
        "response",
        "cw-2",
        &http_block("Content-Type: text/html\n\n", b"<html>lost status</html>\n"),
        16,
        "",
    ));
    f.extend(resp("cw-3", "<html>three</html>"));
    f.extend(b"garbage between records\n");
    f.extend(warc_rec(
        "1.0",
        "\r\n",
        "response",
        "cw-4",
        &http_block("HTTP/1.1 200 OK\r\n<html>no blank line</html>", b""),
        -5,
        "",
    ));
    f.extend(b"\r\n\r\n\r\n");
    f.extend(warc_rec(
        "1.0",
        "\r\n",
        "response",
        "cw-5",
        &http_block(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/html\r\n\r\n",
            b"5\r\n<html\r\n3\r\n>x<\r\n0\r\n\r\n",
        ),
        0,
        "\r\n\r\n\n\n\n",
    ));
    f.extend(warc_rec(
        "1.0",
        "\r\n",
        "response",
        "img",
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n",
            &[0x89, b'P', 0, 0xff, 0xfe, b'\n', 0],
        ),
        0,
        "\r\n\r\n",
    ));
    let last = resp("cw-6", "<html>last, cut short</html>");
    f.extend(&last[..last.len() - 10]);
    f
}

// ------------------------------------------------------------------ HTTP head

#[test]
fn regression_server_space_colon() {
    let h = parse_head(b"HTTP/1.1 200 OK\r\nServer : Live 5\r\nContent-Type : text/HTML ; charset = 'gb2312'\r\n\r\nbody");
    assert_eq!(h.status, Some(200));
    assert_eq!(h.header("server"), Some(&b"Live 5"[..]));
    assert_eq!(h.mime().as_deref(), Some("text/html"));
    assert_eq!(h.charset().as_deref(), Some("gb2312"));
    assert_eq!(&b"HTTP/1.1 200 OK\r\nServer : Live 5\r\nContent-Type : text/HTML ; charset = 'gb2312'\r\n\r\nbody"[h.body_offset..], b"body");
}

#[test]
fn regression_html_where_header_expected() {
    let input = b"HTTP/1.0 200 OK\nContent-Type: text/html\n  <html><body>x</body></html>";
    let h = parse_head(input);
    // a folded line starting with '<' after blanks is the body, not a continuation
    assert_eq!(&input[h.body_offset..], b"  <html><body>x</body></html>");
    assert_eq!(h.header("content-type"), Some(&b"text/html"[..]));
}

#[test]
fn http_head_lenient_forms() {
    // missing status line, folded header, no-colon line, LF only, EOF without blank line
    let h = parse_head(b"Content-Type: text/html;\n charset=utf-8\nGARBAGE LINE\nX-A: 1");
    assert_eq!(h.status, None);
    assert_eq!(h.charset().as_deref(), Some("utf-8"));
    assert_eq!(h.bad_lines, 1);
    assert_eq!(h.body_offset, 59);
    let h = parse_head(b"HTTP/1.1 404 Not Found\r\n\r\n");
    assert_eq!(h.status, Some(404));
    let h = parse_head(b"");
    assert_eq!((h.status, h.body_offset), (None, 0));
    let h = parse_head(b"HTTP/1.1 2OO OK\r\nA: b\r\n\r\nx");
    assert_eq!(h.status, None);
    assert_eq!(h.header("a"), Some(&b"b"[..]));
}

#[test]
fn sniffing() {
    assert!(sniff_html(b"\xEF\xBB\xBF  \n<!DOCTYPE HTML PUBLIC"));
    assert!(sniff_html(b"<HTML>"));
    assert!(sniff_html(b"<?xml version='1.0'?>\n<html xmlns=x>"));
    assert!(!sniff_html(b"<?xml version='1.0'?><rss>"));
    assert!(!sniff_html(b"\x89PNG\r\n"));
    assert!(!sniff_html(b"plain text"));
}

#[test]
fn dechunk_cases() {
    assert_eq!(
        dechunk(b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n", 100).unwrap(),
        b"hello world"
    );
    assert_eq!(dechunk(b"<html>", 100), None);
    assert_eq!(dechunk(b"5\nhel", 100).unwrap(), b"hel");
    assert_eq!(dechunk(b"5\r\nhello\r\n0\r\n", 3).unwrap(), b"hel");
}

proptest! {
    #[test]
    fn prop_parse_head_never_panics(input in proptest::collection::vec(any::<u8>(), 0..400)) {
        let h = parse_head(&input);
        prop_assert!(h.body_offset <= input.len());
        let _ = dechunk(&input, 64);
        let _ = sniff_html(&input);
    }

    #[test]
    fn prop_chunking_independent(sizes in proptest::collection::vec(1usize..300, 1..8)) {
        let data = quirk_mix();
        let one = dribble_events(&data, vec![usize::MAX]);
        prop_assert_eq!(dribble_events(&data, sizes), one);
    }
}

// ------------------------------------------------------------------ WARC framing

#[test]
fn clueweb09_lf_framing_no_trailer() {
    // Content-Length runs exactly to the next `WARC/0.18` line; LF only; bad date; raw bytes in URI.
    let mut f = warc_rec("0.18", "\n", "warcinfo", "x", b"software: Nutch\n", 0, "");
    let mut r = warc_rec(
        "0.18",
        "\n",
        "response",
        "clueweb09-en0000-00-00000",
        &http_block(
            "HTTP/1.1 200 OK\nContent-Type: text/html\n\n",
            b"<html>\xff\xfe caf\xe9</html>\n",
        ),
        0,
        "",
    );
    let pos = memchr::memmem::find(&r, b"http://example.org/").unwrap();
    r.splice(pos + 7..pos + 7, b"\xe9".iter().copied());
    f.extend(&r);
    let r3 = warc_rec(
        "0.18",
        "\n",
        "response",
        "clueweb09-en0000-00-00001",
        &http_block(
            "HTTP/1.1 200 OK\nContent-Type: text/html\n\n",
            b"<html>2</html>\n",
        ),
        0,
        "\n",
    );
    f.extend(&r3);
    let evs = events(&f);
    assert_eq!(anomalies(&evs), vec![]);
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].docid, "clueweb09-en0000-00-00000");
    assert_eq!(
        d[0].url.as_deref(),
        Some("http://\u{FFFD}example.org/clueweb09-en0000-00-00000")
    );
    assert_eq!(d[0].body, b"<html>\xff\xfe caf\xe9</html>\n");
    assert_eq!(d[1].offset, (f.len() - r3.len()) as u64);
    assert_eq!(skips(&evs), vec!["not_response:warcinfo"]);
}

#[test]
fn regression_luc4trec_content_length_too_long() {
    // Status line lost: every declared length is 16 bytes too long (warcinfo 48).
    let mut f = warc_rec(
        "0.18",
        "\n",
        "warcinfo",
        "info",
        b"isPartOf: clueweb09-\n",
        48,
        "",
    );
    for i in 0..3 {
        f.extend(warc_rec(
            "0.18",
            "\n",
            "response",
            &format!("clueweb09-en0039-05-0000{i}"),
            &http_block(
                "Content-Type: text/html\n\n",
                format!("<html>{i}</html>\n").as_bytes(),
            ),
            16,
            "",
        ));
    }
    let evs = events(&f);
    let d = docs(&evs);
    assert_eq!(d.len(), 3, "{evs:?}");
    for (i, doc) in d.iter().enumerate() {
        assert_eq!(doc.http_status, None);
        assert_eq!(doc.body, format!("<html>{i}</html>\n").as_bytes());
    }
    // the last record overshoots EOF, not a header: it is a truncated record
    assert_eq!(
        anomalies(&evs),
        vec![
            (AnomalyKind::ContentLengthTooLong, 48),
            (AnomalyKind::ContentLengthTooLong, 16),
            (AnomalyKind::ContentLengthTooLong, 16),
            (AnomalyKind::TruncatedRecord, 16),
        ]
    );
    assert!(d[2].truncated && !d[0].truncated);
}

#[test]
fn regression_embedded_warc_header_in_body_not_cut() {
    // A page that shows a WARC record: the Content-Length is right, so the
    // header-like text inside the body must not cut the block.
    let body = "<html><pre>\nWARC/1.0\r\nWARC-Type: response\r\nContent-Length: 5\r\n\r\nhello</pre></html>";
    let mut f = resp("a", body);
    f.extend(resp("b", "<html>b</html>"));
    let evs = events(&f);
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].body, body.as_bytes());
    assert_eq!(anomalies(&evs), vec![]);
    // ... also when it is the last record
    let evs = events(&resp("a", body));
    assert_eq!(docs(&evs)[0].body, body.as_bytes());
}

#[test]
fn content_length_too_short_appends_to_body() {
    let mut f = warc_rec(
        "1.0",
        "\r\n",
        "response",
        "a",
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
            b"<html>full body</html>",
        ),
        -7,
        "\r\n\r\n",
    );
    f.extend(resp("b", "<html>b</html>"));
    let evs = events(&f);
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].body, b"<html>full body</html>\r\n\r\n");
    assert_eq!(
        anomalies(&evs),
        vec![(AnomalyKind::ContentLengthTooShort, 11)]
    );
}

#[test]
fn garbage_between_records_is_counted() {
    let mut f = resp("a", "<html>a</html>");
    f.extend(b"JUNK JUNK\nWARC/1.0 not really\n");
    f.extend(b"\n\n");
    f.extend(resp("b", "<html>b</html>"));
    let evs = events(&f);
    assert_eq!(docs(&evs).len(), 2);
    assert_eq!(anomalies(&evs), vec![(AnomalyKind::Resync, 32)]);
}

#[test]
fn stray_blank_lines_counted() {
    let mut f = b"\r\n".to_vec();
    f.extend(resp("a", "<html>a</html>"));
    f.extend(b"\n\n\n");
    f.extend(resp("b", "<html>b</html>"));
    let evs = events(&f);
    assert_eq!(docs(&evs).len(), 2);
    assert_eq!(
        anomalies(&evs),
        vec![(AnomalyKind::StrayBytes, 2), (AnomalyKind::StrayBytes, 3)]
    );
}

#[test]
fn truncated_record_plain() {
    let mut f = resp("a", "<html>a</html>");
    let b = resp("b", "<html>bbbbbbbbbbbbbbbbbbbbbbbbbb</html>");
    f.extend(&b[..b.len() - 20]);
    let evs = events(&f);
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    assert!(d[1].truncated);
    assert_eq!(anomalies(&evs), vec![(AnomalyKind::TruncatedRecord, 16)]);
    // truncated inside the header
    let mut f = resp("a", "<html>a</html>");
    f.extend(b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Rec");
    let evs = events(&f);
    assert_eq!(docs(&evs).len(), 1);
    assert_eq!(anomalies(&evs), vec![(AnomalyKind::TruncatedRecord, 39)]);
}

#[test]
fn truncated_gzip_yields_partial_then_error() {
    let mut plain = resp("a", "<html>a</html>");
    plain.extend(resp("b", &"<html>b".repeat(2000)));
    let gz = gzip(&plain);
    let (evs, err) = read_all(gz[..gz.len() - 30].to_vec(), &CrawlOptions::default());
    let d = docs(&evs);
    assert_eq!(d.len(), 2, "{evs:?}");
    assert!(d[1].truncated && !d[0].truncated);
    match err {
        Some(Error::TruncatedGzip {
            compressed_offset,
            decompressed_offset,
            ..
        }) => {
            assert!(compressed_offset <= gz.len() as u64);
            assert!(decompressed_offset < plain.len() as u64);
        }
        other => panic!("expected TruncatedGzip, got {other:?}"),
    }
}

#[test]
fn gzip_forms_give_same_events() {
    let mut plain = Vec::new();
    let mut per_record = Vec::new();
    for i in 0..5 {
        let r = resp(&format!("d{i}"), &format!("<html>{i}</html>"));
        per_record.extend(gzip(&r));
        plain.extend(r);
    }
    let single = gzip(&plain);
    let a = events(&plain);
    assert_eq!(docs(&a).len(), 5);
    let per = events(&per_record);
    assert_eq!(unmember(per.clone()), a);
    let one = events(&single);
    assert_eq!(unmember(one.clone()), a);
    // Each record starts its own member in the per-record form, and the
    // one member of the single stream holds them all.
    let mut at = 0u64;
    for (d, i) in docs(&per).into_iter().zip(0..) {
        let m = d.span.member.expect("member");
        assert_eq!(m.decompressed, d.offset, "record {i}");
        assert_eq!(m.compressed, at, "record {i}");
        at += gzip(&resp(&format!("d{i}"), &format!("<html>{i}</html>"))).len() as u64;
    }
    for d in docs(&one) {
        assert_eq!(d.span.member, Some(MemberPos::default()));
    }
    assert!(docs(&a).iter().all(|d| d.span.member.is_none()));
}

#[test]
fn binary_bodies_are_skipped_not_fatal() {
    let mut f = warc_rec(
        "1.0",
        "\r\n",
        "response",
        "img",
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n\r\n",
            &[0xff, 0xd8, 0, 1, 2, b'\n', 0xff],
        ),
        0,
        "\r\n\r\n",
    );
    f.extend(warc_rec(
        "1.0",
        "\r\n",
        "response",
        "bin",
        &http_block("HTTP/1.1 200 OK\r\n\r\n", &[0u8, 1, 2, 3, 0xff, b'W', b'A']),
        0,
        "\r\n\r\n",
    ));
    f.extend(resp("ok", "<html>ok</html>"));
    let evs = events(&f);
    assert_eq!(skips(&evs), vec!["not_html", "not_html"]);
    assert_eq!(docs(&evs).len(), 1);
}

#[test]
fn status_and_empty_and_sniffed() {
    let mut f = warc_rec(
        "1.0",
        "\r\n",
        "response",
        "r",
        b"HTTP/1.1 301 Moved\r\nLocation: x\r\n\r\n",
        0,
        "\r\n\r\n",
    );
    f.extend(warc_rec(
        "1.0",
        "\r\n",
        "response",
        "e",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
        0,
        "\r\n\r\n",
    ));
    f.extend(warc_rec(
        "1.0",
        "\r\n",
        "response",
        "s",
        b"HTTP/1.1 200 OK\r\n\r\n <!doctype html><p>x",
        0,
        "\r\n\r\n",
    ));
    f.extend(warc_rec(
        "1.0",
        "\r\n",
        "request",
        "q",
        b"GET / HTTP/1.1\r\n\r\n",
        0,
        "\r\n\r\n",
    ));
    let evs = events(&f);
    assert_eq!(
        skips(&evs),
        vec!["http_status:3xx", "empty_body", "not_response:request"]
    );
    let d = docs(&evs);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].content_type, None);
    assert_eq!(d[0].body, b" <!doctype html><p>x");
}

#[test]
fn chunked_and_content_encoding() {
    let gz_body = gzip(b"<html>zipped</html>");
    let mut f = warc_rec(
        "1.0",
        "\r\n",
        "response",
        "gz",
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n",
            &gz_body,
        ),
        0,
        "\r\n\r\n",
    );
    // ClueWeb09 ja quirk: header says gzip, body is plain
    f.extend(warc_rec(
        "0.18",
        "\r\n",
        "response",
        "ja",
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=EUC-JP\r\nContent-Encoding: gzip\r\n\r\n",
            b"<html>\xa4\xb3</html>",
        ),
        0,
        "\r\n\r\n",
    ));
    f.extend(warc_rec(
        "1.0",
        "\r\n",
        "response",
        "ch",
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"6\r\n<html>\r\n7\r\n</html>\r\n0\r\n\r\n",
        ),
        0,
        "\r\n\r\n",
    ));
    // says chunked, is not
    f.extend(warc_rec(
        "1.0",
        "\r\n",
        "response",
        "nc",
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"<html>plain</html>",
        ),
        0,
        "\r\n\r\n",
    ));
    let evs = events(&f);
    let d = docs(&evs);
    assert_eq!(d.len(), 4);
    assert_eq!(d[0].body, b"<html>zipped</html>");
    assert_eq!(d[0].original_len, gz_body.len() as u64);
    assert_eq!(d[1].body, b"<html>\xa4\xb3</html>");
    assert_eq!(d[1].http_charset.as_deref(), Some("EUC-JP"));
    assert_eq!(d[2].body, b"<html></html>");
    assert_eq!(d[3].body, b"<html>plain</html>");
    assert_eq!(anomalies(&evs), vec![]);
}

#[test]
fn big_record_is_capped_and_streamed() {
    let big = vec![b'x'; 50 * 1024 * 1024];
    let mut f = warc_rec(
        "1.0",
        "\r\n",
        "response",
        "big",
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>",
            &big,
        ),
        0,
        "\r\n\r\n",
    );
    drop(big);
    f.extend(resp("next", "<html>n</html>"));
    let opts = CrawlOptions::default();
    let (evs, err) = read_all(f, &opts);
    assert!(err.is_none());
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].body.len() as u64, opts.max_record_bytes);
    assert!(d[0].truncated);
    assert_eq!(d[0].original_len, 50 * 1024 * 1024 + 6);
    assert_eq!(d[1].docid, "next");
    assert!(!d[1].truncated);
}

#[test]
fn regression_body_capacity_follows_its_length_not_the_declared_one() {
    // The record's buffer is sized from Content-Length up front; a block
    // cut far short of it (the next record inside the declared length)
    // must not leave a body holding megabytes of unused room.
    let mut f = warc_rec(
        "1.0",
        "\r\n",
        "response",
        "liar",
        &http_block(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
            b"<html>x</html>\n",
        ),
        5_000_000,
        "\r\n\r\n",
    );
    f.extend(resp("next", "<html>n</html>"));
    let (evs, err) = read_all(f, &CrawlOptions::default());
    assert!(err.is_none(), "{err:?}");
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].docid, "liar");
    assert!(
        d[0].body.capacity() <= 2 * d[0].body.len() + 4096,
        "{} bytes of room for {}",
        d[0].body.capacity(),
        d[0].body.len()
    );
}

#[test]
fn gzip_bomb_is_an_error() {
    let mut f = resp("a", "<html>a</html>");
    f.extend(resp("zeros", &" ".repeat(8 * 1024 * 1024)));
    let gz = gzip(&f);
    let opts = CrawlOptions {
        max_decompression_ratio: 50,
        bomb_min_output: 1024 * 1024,
        ..CrawlOptions::default()
    };
    let (evs, err) = read_all(gz, &opts);
    assert_eq!(docs(&evs)[0].docid, "a");
    assert!(
        matches!(err, Some(Error::GzipBomb { max_ratio: 50, .. })),
        "{err:?}"
    );
}

#[test]
fn detection_by_content() {
    let (evs, err) = read_all(Vec::new(), &CrawlOptions::default());
    assert!(evs.is_empty() && err.is_none());
    let r = from_reader(
        "x",
        std::io::Cursor::new(b"\n\n  hello".to_vec()),
        &CrawlOptions::default(),
    );
    assert!(matches!(r, Err(Error::UnknownCrawlFormat { .. })));
    let r = from_reader(
        "x",
        std::io::Cursor::new(gzip(b"<doc >\n<DOCNO>1</DOCNO>x</doc>")),
        &CrawlOptions::default(),
    )
    .unwrap();
    assert_eq!(r.format(), CrawlFormat::Trec);
}

#[test]
fn chunk_boundary_sweep() {
    let data = quirk_mix();
    let one = dribble_events(&data, vec![usize::MAX]);
    // sanity: the mix exercises what it claims to
    let kinds: Vec<_> = anomalies(&one.0).iter().map(|a| a.0).collect();
    for k in [
        AnomalyKind::ContentLengthTooLong,
        AnomalyKind::Resync,
        AnomalyKind::ContentLengthTooShort,
        AnomalyKind::StrayBytes,
        AnomalyKind::TruncatedRecord,
    ] {
        assert!(kinds.contains(&k), "{k:?} missing from {kinds:?}");
    }
    assert_eq!(docs(&one.0).len(), 6, "{:?}", one.0);
    for n in 1..=64 {
        assert_eq!(dribble_events(&data, vec![n]), one, "read size {n}");
    }
    let gz = gzip(&data);
    for n in [1, 2, 3, 7, 100, 4096] {
        let (evs, err) = dribble_events(&gz, vec![n]);
        assert_eq!((unmember(evs), err), one, "gz read size {n}");
    }
}

#[test]
fn skip_reason_keys() {
    assert_eq!(
        SkipReason::NotResponse("request".into()).key(),
        "not_response:request"
    );
    assert_eq!(
        SkipReason::NotResponse("weird\u{0}".into()).key(),
        "not_response:other"
    );
    assert_eq!(SkipReason::HttpStatus(404).key(), "http_status:4xx");
    assert_eq!(SkipReason::HttpStatus(999).key(), "http_status:other");
    assert_eq!(SkipReason::NotHtml("image/png".into()).key(), "not_html");
    assert_eq!(
        AnomalyKind::ContentLengthTooLong.key(),
        "content_length_too_long"
    );
}

// ------------------------------------------------------------------ TREC

#[test]
fn trec_basic_and_dochdr() {
    let f = b"<DOC>\n<DOCNO> d1 </DOCNO>\n<TEXT>hello</TEXT>\n</DOC>\n\
<doc><docno>d2</docno><DOCOLDNO>x</DOCOLDNO>\n<DOCHDR>\nhttp://www.a.org:80/x.html 1.2.3.4 19970216 text/html 12\n\
HTTP/1.0 200 OK\nServer : NCSA\nContent-type: text/html; charset=iso-8859-1\n</DOCHDR>\n<html>b</html>\n</doc >\n\
junk\n<DOC><DOCNO>d3</DOCNO>   \n</DOC>\n<DOC><DOCNO>d4</DOCNO>no end";
    let evs = events(f);
    let d = docs(&evs);
    assert_eq!(d.len(), 3, "{evs:?}");
    assert_eq!(d[0].docid, "d1");
    assert_eq!(d[0].body, b"\n<TEXT>hello</TEXT>\n");
    assert_eq!(d[0].offset, 0);
    assert_eq!(d[1].docid, "d2");
    assert_eq!(d[1].url.as_deref(), Some("http://www.a.org:80/x.html"));
    assert_eq!(d[1].http_status, Some(200));
    assert_eq!(d[1].http_charset.as_deref(), Some("iso-8859-1"));
    assert_eq!(d[1].content_type.as_deref(), Some("text/html"));
    assert_eq!(d[1].body, b"\n<html>b</html>\n");
    assert_eq!(d[2].docid, "d4");
    assert!(d[2].truncated);
    assert_eq!(skips(&evs), vec!["empty_body"]);
    assert_eq!(
        anomalies(&evs),
        vec![(AnomalyKind::Resync, 6), (AnomalyKind::TruncatedRecord, 0)]
    );
}

#[test]
fn trec_sweep() {
    let data = std::fs::read(fixture("trec/cacm-first5.trec")).unwrap();
    let one = dribble_events(&data, vec![usize::MAX]);
    assert_eq!(docs(&one.0).len(), 5);
    for n in [1, 2, 3, 5, 8, 13, 100] {
        assert_eq!(dribble_events(&data, vec![n]), one);
    }
}

// ------------------------------------------------------------------ committed real fixtures

fn count(path: &Path) -> (usize, usize, Vec<String>, Option<String>) {
    let r = open(path, &CrawlOptions::default()).unwrap();
    let (evs, err) = collect(r);
    let d = docs(&evs);
    let recs = d.len() + skips(&evs).len();
    let ids = d.iter().map(|d| d.docid.clone()).collect();
    (recs, d.len(), ids, err.map(|e| e.to_string()))
}

#[test]
fn real_fixtures() {
    let (recs, n, ids, err) = count(&fixture("warc/copycat__cw09-en0000-00.warc.gz"));
    assert_eq!((recs, n, err), (24, 23, None));
    assert_eq!(ids[0], "clueweb09-en0000-00-00000");
    assert_eq!(ids[22], "clueweb09-en0000-00-00022");
    let (recs, n, ids, err) = count(&fixture("warc/copycat__cw12-0000tw-00.warc.gz"));
    assert_eq!((recs, n, err), (4, 3, None));
    assert_eq!(ids[2], "clueweb12-0000tw-00-00002");
    let (recs, n, _, err) = count(&fixture("warc/resiliparse__warcfile.warc.gz"));
    assert_eq!((recs, n, err), (50, 16, None));
    let (recs, n, _, err) = count(&fixture("warc/jwarc__cc.warc.gz"));
    assert_eq!((recs, n, err), (1, 1, None));
    let (recs, n, _, err) = count(&fixture("warc/resiliparse__clipped.warc.gz"));
    assert_eq!((recs, n), (1, 1));
    assert!(err.unwrap().contains("unexpected end of gzip stream"));
    let (recs, n, ids, err) = count(&fixture("trec/cacm-first5.trec"));
    assert_eq!((recs, n, err), (5, 5, None));
    assert_eq!(
        ids,
        [
            "CACM-0001",
            "CACM-0002",
            "CACM-0003",
            "CACM-0004",
            "CACM-0005"
        ]
    );
}

#[test]
fn real_fixture_sweep_cw09() {
    let data = std::fs::read(fixture("warc/copycat__cw09-en0000-00.warc.gz")).unwrap();
    let one = dribble_events(&data, vec![usize::MAX]);
    for sizes in [vec![1, 7, 3], vec![13], vec![4096, 1]] {
        assert_eq!(dribble_events(&data, sizes), one);
    }
}

#[test]
fn regression_wt10g_doubled_end_doc() {
    // wt10g-sample-B01 has `</DOC>\n\n\n</DOC>` twice: the extra tag is counted, not lost.
    let f = b"<DOC><DOCNO>a</DOCNO>x</DOC>\n\n\n</DOC>\n\n<DOC><DOCNO>b</DOCNO>y</DOC>\n";
    let evs = events(f);
    assert_eq!(docs(&evs).len(), 2);
    assert_eq!(anomalies(&evs), vec![(AnomalyKind::Resync, 11)]);
}

#[test]
fn regression_cw12_extra_newline_after_trailer() {
    // copycat__cw12-0000tw-00.warc.gz ends with CRLFCRLF plus one more LF.
    let mut f = resp("a", "<html>a</html>");
    f.push(b'\n');
    let evs = events(&f);
    assert_eq!(docs(&evs).len(), 1);
    assert_eq!(anomalies(&evs), vec![(AnomalyKind::StrayBytes, 1)]);
}

#[test]
fn regression_fuzz_corrupt_gzip_cw12() {
    // Found by the warc_reader fuzz target: a mutated copy of the ClueWeb12
    // fixture (one gzip member) with a corrupt deflate stream. With
    // flate2's MultiGzDecoder one big read failed before returning any
    // output (so `from_reader` itself failed) while 4-byte reads first
    // yielded 20037 bytes. Decoding member by member, every read size now
    // yields those bytes and then the same error, naming the offset where
    // decoding stopped, the start of the damaged member (0) and that a
    // one-stream file cannot be resynchronised: never a panic or a silent end.
    let data = std::fs::read(fixture("warc/fuzz-corrupt-gzip-cw12.bin")).unwrap();
    let one = dribble_events(&data, vec![usize::MAX]);
    assert_eq!(dribble_events(&data, vec![4]), one);
    assert_eq!(dribble_events(&data, vec![1, 7, 3]), one);
    let (evs, err) = &one;
    let err = err.as_deref().expect("an error");
    assert!(
        err.contains("corrupt gzip stream at compressed offset 5327, decompressed offset 20037"),
        "{err}"
    );
    assert!(
        err.contains("member starting at compressed offset 0"),
        "{err}"
    );
    assert!(err.contains("one-stream gzip"), "{err}");
    assert_eq!(docs(evs).len(), 1);
    assert!(docs(evs)[0].truncated);
}

#[test]
fn reader_and_events_are_send() {
    fn is_send<T: Send>(_: &T) -> bool {
        true
    }
    let r = from_reader(
        "x",
        std::io::Cursor::new(Vec::new()),
        &CrawlOptions::default(),
    )
    .unwrap();
    assert!(
        is_send(&r)
            && is_send(&CrawlEvent::Skip(Skip {
                reason: SkipReason::EmptyBody,
                offset: 0,
                record_id: None,
                raw: None,
            }))
    );
}

// ------------------------------------------------------- keep_skipped, capped

fn strip_raw(evs: &[CrawlEvent]) -> Vec<CrawlEvent> {
    evs.iter()
        .cloned()
        .map(|mut e| {
            match &mut e {
                CrawlEvent::Skip(s) => s.raw = None,
                CrawlEvent::Anomaly(a) => a.raw = None,
                CrawlEvent::Doc(_) => {}
            }
            e
        })
        .collect()
}

/// Checks that every kept byte string is the input at its offset, and
/// returns how many there were.
fn check_raw(input: &[u8], evs: &[CrawlEvent], limit: usize) -> usize {
    let mut n = 0;
    for e in evs {
        let (off, raw) = match e {
            CrawlEvent::Skip(s) => (s.offset, s.raw.as_ref().expect("skip without raw")),
            CrawlEvent::Anomaly(a) => match &a.raw {
                Some(r) => (a.offset, r),
                None => continue,
            },
            CrawlEvent::Doc(_) => continue,
        };
        let at = usize::try_from(off).unwrap();
        assert!(raw.bytes.len() <= limit, "{e:?}");
        let want = &input[at..(at + raw.bytes.len()).min(input.len())];
        // A skipped WARC record is its header plus a prefix of its block.
        assert_eq!(raw.bytes.as_slice(), want, "{e:?}");
        n += 1;
    }
    n
}

#[test]
fn keep_skipped_keeps_the_input_bytes_and_changes_nothing_else() {
    let mut input = warc_rec(
        "1.0",
        "\r\n",
        "request",
        "req",
        &[b'q'; 100_000],
        0,
        "\r\n\r\n",
    );
    input.extend_from_slice(b"junk that is no header\n");
    input.extend(resp("after", "<p>x</p>"));
    input.extend(quirk_mix());
    for max in [64u64, 10 << 20] {
        let plain = CrawlOptions {
            max_record_bytes: max,
            ..CrawlOptions::default()
        };
        let keep = CrawlOptions {
            keep_skipped: true,
            ..plain.clone()
        };
        let (a, ea) = read_all(input.clone(), &plain);
        let (b, eb) = read_all(input.clone(), &keep);
        assert_eq!(a, strip_raw(&b), "keep_skipped changed the events");
        assert_eq!(ea.map(|e| e.to_string()), eb.map(|e| e.to_string()));
        assert!(a.iter().all(|e| match e {
            CrawlEvent::Skip(s) => s.raw.is_none(),
            CrawlEvent::Anomaly(x) => x.raw.is_none(),
            _ => true,
        }));
        let n = check_raw(&input, &b, keep.keep_limit() + 4096);
        assert!(n >= 3, "{n}");
        let req = b
            .iter()
            .find_map(|e| match e {
                CrawlEvent::Skip(s) if s.record_id.as_deref() == Some("req") => s.raw.clone(),
                _ => None,
            })
            .unwrap();
        assert_eq!(req.truncated, max == 64, "{max}");
    }
}

#[test]
fn keep_skipped_trec() {
    let input = b"<DOC>\n<TEXT>no docno here</TEXT>\n</DOC>\nstray text\n<DOC><DOCNO> d1 </DOCNO>\n</DOC>\n<DOC><DOCNO>d2</DOCNO>hello</DOC>\n".to_vec();
    let keep = CrawlOptions {
        keep_skipped: true,
        ..CrawlOptions::default()
    };
    let (evs, err) = read_all(input.clone(), &keep);
    assert!(err.is_none());
    assert_eq!(
        check_raw(&input, &evs, keep.keep_limit() + 16),
        3,
        "{evs:?}"
    );
    let (plain, _) = read_all(input, &CrawlOptions::default());
    assert_eq!(plain, strip_raw(&evs));
}

#[test]
fn capped_means_the_record_cap_fired_not_the_end_of_input() {
    let opts = CrawlOptions {
        max_record_bytes: 64,
        ..CrawlOptions::default()
    };
    let mut input = resp("long", &"y".repeat(200));
    input.extend(resp("short", "<p>z</p>"));
    let mut cut = resp("eof", "<p>cut short by the end</p>");
    cut.truncate(cut.len() - 10);
    input.extend(cut);
    let (evs, _) = read_all(input, &opts);
    let d = docs(&evs);
    let flags: Vec<(&str, bool, bool)> = d
        .iter()
        .map(|d| (d.docid.as_str(), d.capped, d.truncated))
        .collect();
    assert_eq!(
        flags,
        [
            ("long", true, true),
            ("short", false, false),
            ("eof", false, true)
        ]
    );
}
