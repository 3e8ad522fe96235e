//! The sealed JSON files of an index (`sieve.json`, `stats.json`, read by
//! `sieve_indexer::jsonfile::read_json`): arbitrary bytes that pass the
//! seal check are parsed as a `Manifest` and as `BuildStats` without
//! panicking.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sieve_filters::sealed::open_json;
use sieve_indexer::manifest::Manifest;
use sieve_indexer::stats::BuildStats;

fuzz_target!(|data: &[u8]| {
    if let Ok(object) = open_json(data) {
        let _ = serde_json::from_slice::<Manifest>(&object);
        let _ = serde_json::from_slice::<BuildStats>(&object);
    }
});
