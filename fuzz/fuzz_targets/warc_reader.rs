//! Checks that the WARC reader never panics on arbitrary bytes (plain, and
//! behind a "WARC/1.0" prefix so the WARC parser is reached), that record
//! offsets never go backwards, that bodies never exceed `max_record_bytes`,
//! and that reading with 1..=7-byte reads gives the same events as one read
//! (for non-gzip input only: flate2 reports a corrupt deflate stream at a
//! point that depends on how its input arrives, so the events before a gzip
//! error may differ; see `regression_fuzz_corrupt_gzip_cw12`). The
//! dribbled read also keeps skipped bytes (`keep_skipped`): that must not
//! change any event, and every kept byte string must be the input at its
//! offset, at most the keep limit long.
#![no_main]
use std::io::Read;

use libfuzzer_sys::fuzz_target;
use sieve_indexer::crawl::{self, CrawlEvent, CrawlOptions};

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

fn run(data: Vec<u8>, step: usize, opts: &CrawlOptions) -> Vec<String> {
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
                out.push(format!("{d:?}"));
            }
            Ok(CrawlEvent::Skip(mut s)) => {
                assert!(s.offset >= last, "skip offset went backwards");
                last = s.offset;
                assert_eq!(s.raw.is_some(), opts.keep_skipped);
                check_raw(&input, gz, s.offset, s.raw.take(), opts);
                out.push(format!("{s:?}"));
            }
            Ok(CrawlEvent::Anomaly(mut a)) => {
                check_raw(&input, gz, a.offset, a.raw.take(), opts);
                out.push(format!("{:?}", CrawlEvent::Anomaly(a)));
            }
            Err(e) => out.push(format!("error {e}")),
        }
    }
    out
}

fn check_raw(
    input: &[u8],
    gz: bool,
    offset: u64,
    raw: Option<crawl::RawBytes>,
    opts: &CrawlOptions,
) {
    let Some(raw) = raw else { return };
    assert!(opts.keep_skipped, "raw bytes without keep_skipped");
    assert!(
        raw.bytes.len() <= opts.keep_limit() + 64 * 1024,
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

fuzz_target!(|data: &[u8]| {
    let opts = CrawlOptions {
        max_record_bytes: 64,
        ..CrawlOptions::default()
    };
    let mut prefixed = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <x>\r\n".to_vec();
    prefixed.extend_from_slice(data);
    for input in [data.to_vec(), prefixed] {
        let gz = input.starts_with(&[0x1f, 0x8b]);
        let whole = run(input.clone(), usize::MAX, &opts);
        let step = 1 + input.get(2).map_or(0, |b| usize::from(b % 7));
        let keep = CrawlOptions {
            keep_skipped: true,
            ..opts.clone()
        };
        let dribbled = run(input, step, &keep);
        if !gz {
            assert_eq!(dribbled, whole, "chunking changed the events");
        }
    }
});
