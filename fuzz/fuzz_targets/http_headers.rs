//! Checks that the lenient HTTP head parser never panics, that the body
//! offset is within the input and at a line start or after the status line,
//! and that `dechunk` / `gunzip_if_gzip` / `sniff_html` never panic and
//! respect their output caps.
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_crawl::http::{MAX_HEAD_BYTES, dechunk, gunzip_if_gzip, parse_head, sniff_html};

fuzz_target!(|data: &[u8]| {
    let h = parse_head(data);
    assert!(h.body_offset <= data.len());
    if h.body_offset > 0 && h.body_offset < data.len() {
        // the body starts at a line start, or at a line whose first non-blank is '<'
        let prev = data[h.body_offset - 1];
        assert!(
            prev == b'\n'
                || data[h.body_offset..].trim_ascii_start().starts_with(b"<")
                || h.body_offset >= MAX_HEAD_BYTES
        );
    }
    let _ = h.mime();
    let _ = h.charset();
    if let Some(d) = dechunk(data, 100) {
        assert!(d.len() <= 100);
    }
    if let Some((d, _)) = gunzip_if_gzip(data, 1000) {
        assert!(d.len() <= 1001);
    }
    let _ = sniff_html(data);
});

sieve_fuzz::replay_main!();
