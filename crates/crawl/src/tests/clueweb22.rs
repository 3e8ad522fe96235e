//! ClueWeb22's `html` part (hand-made fixture `tests/data/clueweb22/html`),
//! bare-HTML WARC blocks, and the docid header.

use super::*;

/// A WARC/1.0 response whose block is bare HTML, with the headers of
/// ClueWeb22's `html` part (WARC Content-Type `text/html`, no HTTP head).
fn bare(docid: &str, content_type: &str, html: &[u8]) -> Vec<u8> {
    let mut v = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nClueWeb22-ID: {docid}\r\n\
         WARC-Target-URI: https://sieve.example/{docid}\r\nURL-Hash: 00\r\nLanguage: en\r\n\
         WARC-Date: 2022-08-24T01:39:58.761009Z\r\nWARC-Record-ID: <urn:uuid:{docid}>\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        html.len()
    )
    .into_bytes();
    v.extend_from_slice(html);
    v.extend_from_slice(b"\r\n\r\n");
    v
}

/// The bug: a `response` whose WARC Content-Type is `text/html` and whose
/// block is bare HTML was skipped as `not_html` (two such records indexed
/// no document).
#[test]
fn regression_bare_html_response_block_was_skipped_as_not_html() {
    let mut f = bare(
        "clueweb22-en0000-00-00000",
        "text/html",
        b"<html><title>a</title>one</html>",
    );
    let first = f.len() as u64;
    f.extend(bare(
        "clueweb22-en0000-00-00001",
        "text/html",
        b"<html><p>two</p></html>",
    ));
    let evs = events(&f);
    assert_eq!(skips(&evs), Vec::<String>::new());
    let d = docs(&evs);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].docid, "clueweb22-en0000-00-00000");
    assert_eq!(d[0].body, b"<html><title>a</title>one</html>");
    assert_eq!(d[0].http_status, None);
    assert_eq!(
        d[0].record_id.as_deref(),
        Some("urn:uuid:clueweb22-en0000-00-00000")
    );
    assert_eq!(d[0].language.as_deref(), Some("en"));
    // The span is the whole record, trailer included.
    assert_eq!(d[0].span.len, first);
    assert_eq!(d[1].offset, d[0].span.len);
}

#[test]
fn bare_blocks_are_documents_when_they_are_html_whatever_the_warc_says() {
    let mut f = bare("a", "text/html; charset=windows-1252", b"<p>caf\xe9</p>");
    f.extend(bare(
        "b",
        "application/octet-stream",
        b"<!DOCTYPE html><p>sniffed</p>",
    ));
    f.extend(bare("c", "image/png", b"\x89PNG\r\n\x1a\n"));
    f.extend(bare(
        "d",
        "text/html",
        b"HTTP/1.1 404 Not Found\r\n\r\n<p>gone</p>",
    ));
    let evs = events(&f);
    let d = docs(&evs);
    let ids: Vec<&str> = d.iter().map(|d| d.docid.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
    // The WARC Content-Type's charset is the declared charset of a bare block.
    assert_eq!(d[0].http_charset.as_deref(), Some("windows-1252"));
    // An HTTP message under a wrong WARC Content-Type is still read as one.
    assert_eq!(skips(&evs), ["not_html", "http_status:4xx"]);
}

#[test]
fn clueweb22_html_fixture_docids_and_members() {
    let r = open(
        &fixture("clueweb22/html/en0000-00.warc.gz"),
        &CrawlOptions::default(),
    )
    .expect("open");
    let (evs, err) = collect(r);
    assert!(err.is_none());
    assert!(skips(&evs).is_empty(), "{evs:?}");
    let d = docs(&evs);
    let ids: Vec<&str> = d.iter().map(|d| d.docid.as_str()).collect();
    assert_eq!(
        ids,
        [
            "clueweb22-en0000-00-00000",
            "clueweb22-en0000-00-00001",
            "clueweb22-en0000-00-00002"
        ]
    );
    assert_eq!(d[2].language.as_deref(), Some("fr"));
    assert_eq!(
        d[1].url.as_deref(),
        Some("https://sieve.example/fixtures/second,with-comma")
    );
    // Each record's gzip member is where the .warc.offset file says, and the
    // spans tile the decompressed file.
    let offsets = std::fs::read_to_string(fixture("clueweb22/html/en0000-00.warc.offset")).unwrap();
    let offsets: Vec<u64> = offsets.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(offsets.len(), 4);
    let mut at = 0;
    for (d, want) in d.iter().zip(&offsets) {
        let m = d.span.member.expect("member");
        assert_eq!(m.compressed, *want, "{}", d.docid);
        assert_eq!((m.decompressed, d.span.offset), (at, at));
        at += d.span.len;
    }
    let mut all = Vec::new();
    flate2::read::MultiGzDecoder::new(
        std::fs::File::open(fixture("clueweb22/html/en0000-00.warc.gz")).unwrap(),
    )
    .read_to_end(&mut all)
    .unwrap();
    assert_eq!(at, all.len() as u64);
}

#[test]
fn docid_header_chooses_the_header_or_skips() {
    let mut f = bare("cw22-a", "text/html", b"<p>a</p>");
    // A ClueWeb09-style record: WARC-TREC-ID comes first in the chain.
    f.extend(resp("clueweb09-en0000-00-00001", "<p>b</p>"));
    let ids = |o: &CrawlOptions| -> (Vec<String>, Vec<String>) {
        let (evs, _) = read_all(f.clone(), o);
        (
            docs(&evs).iter().map(|d| d.docid.clone()).collect(),
            skips(&evs),
        )
    };
    assert_eq!(
        ids(&CrawlOptions::default()).0,
        ["cw22-a", "clueweb09-en0000-00-00001"]
    );
    let with = |h: &str| CrawlOptions {
        docid_header: Some(h.to_string()),
        ..CrawlOptions::default()
    };
    assert_eq!(ids(&with("warc-record-id")).0, ["urn:uuid:cw22-a"]);
    assert_eq!(
        ids(&with("ClueWeb22-ID")),
        (vec!["cw22-a".to_string()], vec!["no_docid".to_string()])
    );
    assert_eq!(ids(&with("X-None")).1, ["no_docid", "no_docid"]);
    assert_eq!(
        CrawlOptions::default().docid_rule(),
        "WARC-TREC-ID,ClueWeb22-ID,WARC-Record-ID"
    );
}

#[test]
fn spans_of_plain_warc_tile_the_records() {
    let mut f = Vec::new();
    for i in 0..4 {
        f.extend(resp(&format!("d{i}"), &format!("<html>{i}</html>")));
    }
    let evs = events(&f);
    let d = docs(&evs);
    let mut at = 0;
    for d in &d {
        assert_eq!(d.span.offset, at);
        assert!(f[at as usize..].starts_with(b"WARC/1.0"));
        at += d.span.len;
    }
    assert_eq!(at, f.len() as u64);
}
