//! Checks that the TREC SGML reader never panics on arbitrary bytes behind a
//! `<DOC>` prefix, that document offsets never go backwards, that bodies never
//! exceed `max_record_bytes`, and that 1..=7-byte reads give the same events.
//! The dribbled read also keeps skipped bytes (`keep_skipped`): that must not
//! change any event, and every kept byte string must be the input (gzip
//! aside) at its offset, at most the keep limit long.
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

fn check_raw(input: &[u8], offset: u64, raw: Option<crawl::RawBytes>, opts: &CrawlOptions) {
    let Some(raw) = raw else { return };
    assert!(opts.keep_skipped, "raw bytes without keep_skipped");
    assert!(raw.bytes.len() <= opts.keep_limit() + 64, "raw over limit");
    let at = offset as usize;
    assert_eq!(
        &input[at..at + raw.bytes.len()],
        raw.bytes.as_slice(),
        "raw bytes are not the input at their offset"
    );
}

fn run(data: Vec<u8>, step: usize, opts: &CrawlOptions) -> Vec<String> {
    let input = data.clone();
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
                assert_eq!(s.raw.is_some(), opts.keep_skipped);
                check_raw(&input, s.offset, s.raw.take(), opts);
                out.push(format!("{s:?}"));
            }
            Ok(CrawlEvent::Anomaly(mut a)) => {
                check_raw(&input, a.offset, a.raw.take(), opts);
                out.push(format!("{:?}", CrawlEvent::Anomaly(a)));
            }
            Err(e) => out.push(format!("error {e}")),
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let opts = CrawlOptions {
        max_record_bytes: 64,
        ..CrawlOptions::default()
    };
    let mut input = b"<DOC>".to_vec();
    input.extend_from_slice(data);
    let whole = run(input.clone(), usize::MAX, &opts);
    let step = 1 + data.first().map_or(0, |b| usize::from(b % 7));
    let keep = CrawlOptions {
        keep_skipped: true,
        ..opts.clone()
    };
    assert_eq!(
        run(input, step, &keep),
        whole,
        "chunking changed the events"
    );
});
