//! Qrels reader: `parse_qrels` never panics on arbitrary bytes; accepted qrels
//! written back with `Qrels::write` parse to an equal value (topic ids, docnos
//! and grades round-trip).
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_searcher::qrels::parse_qrels;

fuzz_target!(|data: &[u8]| {
    if let Ok(q) = parse_qrels(data) {
        let mut out = Vec::new();
        q.write(&mut out).expect("write to Vec");
        let back = parse_qrels(&out).expect("re-parse written qrels");
        assert_eq!(back, q);
    }
});

sieve_fuzz::replay_main!();
