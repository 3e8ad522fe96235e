//! Checks that the TREC SGML reader never panics on arbitrary bytes behind a
//! `<DOC>` prefix, that document and skip offsets never go backwards, that bodies never
//! exceed `max_record_bytes`, and that 1..=7-byte reads give the same events.
//! The dribbled read also keeps skipped bytes (`keep_skipped`): that must not
//! change any event, and every kept byte string must be the input (gzip
//! aside) at its offset, at most the keep limit long.
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;

#[path = "common/crawl.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let mut input = b"<DOC>".to_vec();
    input.extend_from_slice(data);
    let step = 1 + data.first().map_or(0, |b| usize::from(b % 7));
    // Behind "<DOC>" the input is never gzip, so the events must always match.
    common::check(input, step, 64, 64);
});

sieve_fuzz::replay_main!();
