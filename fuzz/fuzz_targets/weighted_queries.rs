//! Weighted-queries files (`sieve_searcher::feedback::staged`, JSON lines
//! from `sieve-search expand-queries`): `WeightedQueriesFile::parse` never
//! panics on arbitrary bytes; what it accepts has one line per topic, finite
//! weights, and written back (`to_jsonl`) parses to the same queries, every
//! weight bit for bit.
#![cfg_attr(fuzzing, no_main)]
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use sieve_searcher::feedback::staged::WeightedQueriesFile;

fuzz_target!(|data: &[u8]| {
    let Ok(w) = WeightedQueriesFile::parse(Path::new("fuzz"), data) else {
        return;
    };
    assert_eq!(w.queries.len(), w.header.queries);
    assert_eq!(w.queries.len(), w.header.search.topics);
    let text = w.to_jsonl();
    let back =
        WeightedQueriesFile::parse(Path::new("fuzz"), text.as_bytes()).expect("written back");
    assert_eq!(back.header, w.header);
    assert_eq!(back.queries.len(), w.queries.len());
    for ((ta, qa), (tb, qb)) in back.queries.iter().zip(&w.queries) {
        assert_eq!(ta, tb);
        assert_eq!(qa.len(), qb.len());
        for ((a, wa), (b, wb)) in qa.iter().zip(qb) {
            assert!(wa.is_finite());
            assert_eq!((a, wa.to_bits()), (b, wb.to_bits()));
        }
    }
});

sieve_fuzz::replay_main!();
