//! Shared by the crawl reader targets (`warc_reader`, `trec_reader`,
//! `smart_reader`, `jsonl_reader`, `tsv_reader`, `record_span`): read a
//! crawl in one go and again in small reads with skipped bytes kept, and
//! check the reader's invariants on every event, among them that every
//! document's docid passes the run-file id rule
//! (`sieve_filters::docid::check_id`).
use std::io::Read;

use sieve_crawl::{self as crawl, CrawlEvent, CrawlOptions};

/// A reader that hands out at most `step` bytes per `read`.
struct Dribble {
    data: Vec<u8>,
    pos: usize,
    step: usize,
}

impl Read for Dribble {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A docid a reader hands out as a document: never empty, never holding
/// whitespace or a control character (it would break a run file's
/// columns).
fn assert_docid(docid: &str) {
    if let Err(f) = sieve_filters::docid::check_id(docid) {
        panic!("document with a refused docid {docid:?}: {f}");
    }
}

/// Kept bytes: only with `keep_skipped`, at most the keep limit plus
/// `raw_slack`, and (for plain input) the input at their offset.
fn check_raw(
    input: &[u8],
    gz: bool,
    offset: u64,
    raw: Option<crawl::RawBytes>,
    opts: &CrawlOptions,
    raw_slack: usize,
) {
    let Some(raw) = raw else { return };
    assert!(opts.keep_skipped, "raw bytes without keep_skipped");
    assert!(
        raw.bytes.len() <= opts.keep_limit() + raw_slack,
        "raw over limit"
    );
    if !gz {
        let at = offset as usize;
        assert_eq!(
            &input[at..at + raw.bytes.len()],
            raw.bytes.as_slice(),
            "raw bytes are not the input at their offset"
        );
    }
}

/// Reads `data` in reads of `step` bytes; returns the events as text.
/// Checks that offsets of documents and skips never go backwards, that
/// bodies stay within `max_record_bytes` and that kept bytes are right.
fn run(data: Vec<u8>, step: usize, opts: &CrawlOptions, raw_slack: usize) -> Vec<String> {
    let input = data.clone();
    let gz = data.starts_with(&[0x1f, 0x8b]);
    let Ok(r) = crawl::from_reader("fuzz", Dribble { data, pos: 0, step }, opts) else {
        return vec!["open error".to_string()];
    };
    let mut out = Vec::new();
    let mut last = 0u64;
    for ev in r {
        match ev {
            Ok(CrawlEvent::Doc(d)) => {
                assert!(d.offset >= last, "doc offset went backwards");
                last = d.offset;
                assert!(
                    d.body.len() as u64 <= opts.max_record_bytes,
                    "body over cap"
                );
                assert_docid(&d.docid);
                out.push(format!("{d:?}"));
            }
            Ok(CrawlEvent::Skip(mut s)) => {
                assert!(s.offset >= last, "skip offset went backwards");
                last = s.offset;
                assert_eq!(s.raw.is_some(), opts.keep_skipped);
                check_raw(&input, gz, s.offset, s.raw.take(), opts, raw_slack);
                out.push(format!("{s:?}"));
            }
            Ok(CrawlEvent::Anomaly(mut a)) => {
                check_raw(&input, gz, a.offset, a.raw.take(), opts, raw_slack);
                out.push(format!("{:?}", CrawlEvent::Anomaly(a)));
            }
            Err(e) => out.push(format!("error {e}")),
        }
    }
    out
}

/// Reads `input` whole without kept bytes, then in `step`-byte reads with
/// kept bytes, and (for plain input: flate2 reports a corrupt deflate stream
/// at a point that depends on how its input arrives) asserts the events are
/// the same. Gzip input is also read whole with the decoder on its own
/// thread (`inflate_ahead`), which must give the same events.
pub fn check(input: Vec<u8>, step: usize, max_record_bytes: u64, raw_slack: usize) {
    let opts = CrawlOptions {
        max_record_bytes,
        ..CrawlOptions::default()
    };
    let gz = input.starts_with(&[0x1f, 0x8b]);
    let whole = run(input.clone(), usize::MAX, &opts, raw_slack);
    if gz {
        let ahead = CrawlOptions {
            inflate_ahead: true,
            ..opts.clone()
        };
        let again = run(input.clone(), usize::MAX, &ahead, raw_slack);
        assert_eq!(again, whole, "inflating ahead changed the events");
    }
    let keep = CrawlOptions {
        keep_skipped: true,
        ..opts.clone()
    };
    let dribbled = run(input, step, &keep, raw_slack);
    if !gz {
        assert_eq!(dribbled, whole, "chunking changed the events");
    }
}

/// The documents of `input` (plain) read with `opts`: checks that each
/// span starts at the document's offset, lies in the input after the
/// previous span, has no gzip member, and that the span's bytes read alone
/// (as the input's format, as `sieve-index show` reads them) give a
/// document with the same docid and body. Returns the spans.
#[allow(dead_code)]
pub fn check_spans(input: &[u8], opts: &CrawlOptions) -> Vec<crawl::Span> {
    let Ok(r) = crawl::from_reader("fuzz", std::io::Cursor::new(input.to_vec()), opts) else {
        return Vec::new();
    };
    let format = r.format();
    let mut spans = Vec::new();
    let mut end = 0u64;
    for ev in r {
        let Ok(CrawlEvent::Doc(d)) = ev else { continue };
        assert_docid(&d.docid);
        let s = d.span;
        assert_eq!(s.offset, d.offset, "span does not start at the record");
        assert!(s.offset >= end, "spans overlap");
        assert!(s.len > 0, "empty span");
        end = s.offset + s.len;
        assert!(end <= input.len() as u64, "span past the input");
        assert_eq!(s.member, None, "plain input with a gzip member");
        let alone = input[s.offset as usize..end as usize].to_vec();
        let again: Vec<_> =
            crawl::from_reader_as("alone", std::io::Cursor::new(alone), opts, format)
                .map(|r| {
                    r.filter_map(|e| match e {
                        Ok(CrawlEvent::Doc(d)) => Some(d),
                        _ => None,
                    })
                    .collect()
                })
                .unwrap_or_default();
        assert_eq!(again.len(), 1, "the span alone is not one document: {d:?}");
        assert_eq!(again[0].docid, d.docid, "the span alone has another docid");
        assert_eq!(again[0].body, d.body, "the span alone has another body");
        spans.push(s);
    }
    spans
}

/// The document spans of gzip `input` read with `opts`.
#[allow(dead_code)]
pub fn gzip_spans(input: &[u8], opts: &CrawlOptions) -> Vec<crawl::Span> {
    let Ok(r) = crawl::from_reader("fuzz", std::io::Cursor::new(input.to_vec()), opts) else {
        return Vec::new();
    };
    r.filter_map(|e| match e {
        Ok(CrawlEvent::Doc(d)) => Some(d.span),
        _ => None,
    })
    .collect()
}
