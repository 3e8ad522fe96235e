//! Feedback vectors files (`sieve_searcher::feedback::staged`, JSON lines
//! from `sieve-search feedback-vectors`): `VectorsFile::parse` never panics
//! on arbitrary bytes; what it accepts has as many documents as its header
//! counts, and written back (`to_jsonl`) parses to the same file; merged
//! with itself it is refused (every document claimed twice) unless empty.
#![cfg_attr(fuzzing, no_main)]
use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use sieve_searcher::feedback::staged::VectorsFile;

fuzz_target!(|data: &[u8]| {
    let Ok(v) = VectorsFile::parse(Path::new("fuzz"), data) else {
        return;
    };
    assert_eq!(v.docs.len(), v.header.documents);
    let text = v.to_jsonl();
    let back = VectorsFile::parse(Path::new("fuzz"), text.as_bytes()).expect("written back");
    assert_eq!(back, v);
    let twice = VectorsFile::merge(&[
        (PathBuf::from("a"), v.clone()),
        (PathBuf::from("b"), v.clone()),
    ]);
    assert_eq!(twice.is_ok(), v.docs.is_empty());
});

sieve_fuzz::replay_main!();
