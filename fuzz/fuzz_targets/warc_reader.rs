//! Checks that the WARC reader never panics on arbitrary bytes (plain, and
//! behind a "WARC/1.0" prefix so the WARC parser is reached), that record
//! offsets never go backwards, that bodies never exceed `max_record_bytes`,
//! and that reading with 1..=7-byte reads gives the same events as one read
//! (for non-gzip input only: flate2 reports a corrupt deflate stream at a
//! point that depends on how its input arrives, so the events before a gzip
//! error may differ; see `regression_fuzz_corrupt_gzip_cw12`). The
//! dribbled read also keeps skipped bytes (`keep_skipped`): that must not
//! change any event, and every kept byte string must be the input at its
//! offset, at most the keep limit long. A third input splits the bytes
//! into three gzip members (a per-record `.warc.gz`) and damages one byte
//! of them, so the member resynchronisation is exercised too.
#![cfg_attr(fuzzing, no_main)]
use std::io::Write;

use libfuzzer_sys::fuzz_target;

#[path = "common/crawl.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let mut prefixed = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <x>\r\n".to_vec();
    prefixed.extend_from_slice(data);
    let members = damaged_members(&prefixed, data);
    for input in [data.to_vec(), prefixed, members] {
        let step = 1 + input.get(2).map_or(0, |b| usize::from(b % 7));
        common::check(input, step, 64, 64 * 1024);
    }
});

/// `plain` as three gzip members, with the byte at a position taken from
/// `data` changed.
fn damaged_members(plain: &[u8], data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in plain.chunks(plain.len() / 3 + 1) {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let _ = e.write_all(part);
        out.extend(e.finish().unwrap_or_default());
    }
    let pick = data.iter().fold(0usize, |a, &b| {
        a.wrapping_mul(31).wrapping_add(usize::from(b))
    });
    if !out.is_empty() {
        let at = pick % out.len();
        out[at] ^= data.get(1).copied().unwrap_or(0x40) | 1;
    }
    out
}

sieve_fuzz::replay_main!();
