//! Checks that the JSON lines reader never panics on arbitrary bytes behind
//! a `{` (so the input is read as JSON lines), that document and skip
//! offsets never go backwards, that bodies never exceed `max_record_bytes`,
//! that 1..=7-byte reads give the same events (and keeping skipped bytes
//! changes none, each kept string being the input at its offset), and that
//! every document's span is a piece of the input that, read alone, gives
//! the same document (what `sieve-index show` does). A second input maps
//! the keys to the ones in the data, so mapped values of every type are
//! reached.
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_crawl::{CrawlOptions, JsonFields};

#[path = "common/crawl.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let mut input = b"{".to_vec();
    input.extend_from_slice(data);
    let step = 1 + data.first().map_or(0, |b| usize::from(b % 7));
    common::check(input.clone(), step, 64, 64);
    common::check_spans(
        &input,
        &CrawlOptions {
            max_record_bytes: 64,
            ..CrawlOptions::default()
        },
    );
    let short = |k: &str| vec![k.to_string()];
    let opts = CrawlOptions {
        max_record_bytes: 64,
        json_fields: JsonFields {
            id: short("a"),
            title: short("b"),
            text: vec!["c".into(), "d".into()],
            url: short("e"),
            language: short(""),
        },
        ..CrawlOptions::default()
    };
    common::check_spans(&input, &opts);
});

sieve_fuzz::replay_main!();
