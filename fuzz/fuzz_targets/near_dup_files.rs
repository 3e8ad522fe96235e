//! `near_dup_files`: the two near-duplicate files sieve writes and reads
//! back never panic the readers, damaged or not: a segment's cluster
//! column (`IDX/dups/<segment>.dup.gz`, `sieve_format::dups::read_column`)
//! and an extract's band-key file (`minhash/NNNNN.bands.gz`,
//! `sieve_ingest::extract::parse_bands`). Byte 0 picks the file and
//! whether the rest is read through gzip (as the real readers do) or as
//! the gunzipped text; for a column it also gives the segment's document
//! count. An accepted column calls back once per document, in order; an
//! accepted band file has increasing positions and 16-digit keys.
#![cfg_attr(fuzzing, no_main)]
use std::io::{BufReader, Cursor};
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use sieve_format::dups::read_column;
use sieve_ingest::extract::parse_bands;

const HEADER: &str = "sieve-near-duplicates 1 segment=0 docs=4 params=5w/16x8/51337e5eed000022";

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    let path = Path::new("fuzz");
    let gz = ctl & 1 == 1;
    let reader: Box<dyn std::io::BufRead> = if gz {
        Box::new(BufReader::new(flate2::read::GzDecoder::new(Cursor::new(
            rest.to_vec(),
        ))))
    } else {
        Box::new(Cursor::new(rest.to_vec()))
    };
    if ctl & 2 == 0 {
        let max_doc = u32::from(ctl >> 2) % 8;
        let mut next = 0u32;
        let r = read_column(reader, path, HEADER, max_doc, |doc, _| {
            assert_eq!(doc, next);
            next += 1;
        });
        if r.is_ok() {
            assert_eq!(next, max_doc);
        }
    } else {
        let mut last: Option<u32> = None;
        let _ = parse_bands(reader, path, |pos, _, keys| {
            assert!(last.is_none_or(|l| pos > l));
            last = Some(pos);
            assert!(!keys.is_empty());
            Ok(())
        });
    }
});

sieve_fuzz::replay_main!();
