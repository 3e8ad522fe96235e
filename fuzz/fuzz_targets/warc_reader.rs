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
use libfuzzer_sys::fuzz_target;

#[path = "common/crawl.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let mut prefixed = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <x>\r\n".to_vec();
    prefixed.extend_from_slice(data);
    for input in [data.to_vec(), prefixed] {
        let step = 1 + input.get(2).map_or(0, |b| usize::from(b % 7));
        common::check(input, step, 64, 64 * 1024);
    }
});
