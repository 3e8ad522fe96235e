//! Checks that the TSV reader never panics on arbitrary bytes behind an
//! `id<TAB>` first column (so the input is read as TSV), with the default
//! columns and with four (`id,url,title,text`): offsets never go backwards,
//! bodies never exceed `max_record_bytes`, 1..=7-byte reads give the same
//! events, kept bytes are the input at their offset, and every document's
//! span, read alone, gives the same document.
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_crawl::{CrawlOptions, parse_tsv_columns};

#[path = "common/crawl.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let mut input = b"id\t".to_vec();
    input.extend_from_slice(data);
    let step = 1 + data.first().map_or(0, |b| usize::from(b % 7));
    common::check(input.clone(), step, 64, 64);
    let mut opts = CrawlOptions {
        max_record_bytes: 64,
        ..CrawlOptions::default()
    };
    common::check_spans(&input, &opts);
    opts.tsv_columns = parse_tsv_columns("id,url,title,text").expect("columns");
    common::check_spans(&input, &opts);
});

sieve_fuzz::replay_main!();
