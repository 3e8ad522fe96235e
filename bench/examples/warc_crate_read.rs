//! The `warc` crate (0.4) as a WARC-reading peer for `bench/peers/warc_read.py`:
//! reads every record of each file given (gunzipping `.gz` input as a
//! multi-member stream, as the crate expects plain WARC from a `BufRead`),
//! reads each whole body, and prints one JSON line per file with the same
//! keys as the Python readers: records, responses, payload_bytes, error,
//! seconds (in-process, from opening the file to the last record).
//!
//! `cargo run --release -p sieve-bench --example warc_crate_read -- FILE...`
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::time::Instant;

use flate2::read::MultiGzDecoder;
use warc::{WarcHeader, WarcReader};

fn read(path: &str) -> (u64, u64, u64, Option<String>) {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => return (0, 0, 0, Some(e.to_string())),
    };
    let mut buf = BufReader::with_capacity(1 << 20, file);
    let gz = buf
        .fill_buf()
        .map(|b| b.starts_with(&[0x1f, 0x8b]))
        .unwrap_or(false);
    let input: Box<dyn BufRead> = if gz {
        Box::new(BufReader::with_capacity(1 << 20, MultiGzDecoder::new(buf)))
    } else {
        Box::new(buf)
    };
    let (mut records, mut responses, mut payload) = (0u64, 0u64, 0u64);
    for rec in WarcReader::new(input).iter_records() {
        match rec {
            Ok(r) => {
                records += 1;
                if r.header(WarcHeader::WarcType)
                    .is_some_and(|t| t == "response")
                {
                    responses += 1;
                }
                payload += r.body().len() as u64;
            }
            Err(e) => return (records, responses, payload, Some(e.to_string())),
        }
    }
    (records, responses, payload, None)
}

fn main() {
    for path in std::env::args().skip(1) {
        let t = Instant::now();
        let (records, responses, payload, error) = read(&path);
        let secs = t.elapsed().as_secs_f64();
        let error = match error {
            Some(e) => format!("\"{}\"", e.replace(['"', '\\'], "'").replace('\n', " ")),
            None => "null".into(),
        };
        println!(
            "{{\"file\": \"{}\", \"records\": {records}, \"responses\": {responses}, \"payload_bytes\": {payload}, \"error\": {error}, \"seconds\": {secs}}}",
            path.replace(['"', '\\'], "_")
        );
    }
}
