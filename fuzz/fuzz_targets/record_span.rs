//! Checks the record spans every reader reports (what `sieve-index show
//! --raw` reads back): on arbitrary plain input behind a prefix that picks
//! the format from the first byte (WARC with a ClueWeb22-ID, TREC, SMART,
//! JSON lines, TSV), each document's span starts at its offset, lies in the
//! input, follows the previous one without overlap, and read alone gives a
//! document with the same docid and body. The same bytes as one gzip stream
//! and split into gzip members must give the same spans, with members that
//! hold the span's first byte.
#![cfg_attr(fuzzing, no_main)]
use std::io::Write;

use libfuzzer_sys::fuzz_target;
use sieve_crawl::CrawlOptions;

#[path = "common/crawl.rs"]
#[allow(dead_code)]
mod common;

fuzz_target!(|data: &[u8]| {
    let prefix: &[u8] = match data.first().map_or(0, |b| b % 5) {
        0 => {
            b"WARC/1.0\r\nWARC-Type: response\r\nClueWeb22-ID: cw22\r\nContent-Type: text/html\r\n"
        }
        1 => b"<DOC>\n<DOCNO>d</DOCNO>\n",
        2 => b".I 1\n.W\n",
        3 => b"{\"id\":\"j\",\"contents\":\"",
        _ => b"t\t",
    };
    let mut input = prefix.to_vec();
    input.extend_from_slice(data.get(1..).unwrap_or_default());
    let opts = CrawlOptions {
        max_record_bytes: 256,
        ..CrawlOptions::default()
    };
    let plain = common::check_spans(&input, &opts);
    let mut one = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = one.write_all(&input);
    let one = one.finish().unwrap_or_default();
    let mut members = Vec::new();
    for part in input.chunks(input.len() / 3 + 1) {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let _ = e.write_all(part);
        members.extend(e.finish().unwrap_or_default());
    }
    for gz in [one, members] {
        let spans = common::gzip_spans(&gz, &opts);
        assert_eq!(spans.len(), plain.len(), "gzip changed the documents");
        for (s, p) in spans.iter().zip(&plain) {
            assert_eq!((s.offset, s.len), (p.offset, p.len), "gzip changed a span");
            let m = s.member.expect("a gzip record has a member");
            assert!(m.decompressed <= s.offset, "member after the record");
        }
    }
});

sieve_fuzz::replay_main!();
