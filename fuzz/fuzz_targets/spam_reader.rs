//! Spam-score reader: `spam::parse_line` never panics on arbitrary bytes
//! (the input is split into lines as `spamfile` does, at `\n`); an accepted
//! line has a percentile 0-99 and a non-empty docid without ASCII
//! whitespace, and `PERCENTILE DOCID` written back parses to the same pair.
//! The accepted entries, fed in input order to `SpamMapBuilder` (the
//! streaming path for sorted files), are accepted exactly while docids
//! strictly increase (an equal docid with the same percentile is ignored,
//! with another percentile is a conflict); fed sorted and de-duplicated
//! (the external-sort path), they build a map that answers every docid with
//! its percentile, like a `BTreeMap`.
#![cfg_attr(fuzzing, no_main)]
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use sieve_filters::Error;
use sieve_filters::spam::{SpamMap, SpamMapBuilder, parse_line};

fuzz_target!(|data: &[u8]| {
    let mut entries: Vec<(u8, String)> = Vec::new();
    for (i, line) in data.split_inclusive(|&b| b == b'\n').enumerate() {
        let Ok(Some((p, docid))) = parse_line(line, i as u64 + 1) else {
            continue;
        };
        assert!(p <= 99, "percentile {p} accepted");
        assert!(!docid.is_empty(), "empty docid accepted");
        assert!(
            !docid.bytes().any(|b| b.is_ascii_whitespace()),
            "docid with whitespace accepted: {docid:?}"
        );
        let again = format!("{p} {docid}\n");
        assert_eq!(
            parse_line(again.as_bytes(), 1).expect("re-parse"),
            Some((p, docid)),
            "written line does not parse back"
        );
        entries.push((p, docid.to_string()));
    }

    // Streaming, in input order.
    let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
    let mut last: Option<(&str, u8)> = None;
    for (p, docid) in &entries {
        let res = b.insert(docid, *p);
        match last {
            Some((l, lp)) if docid.as_str() == l && *p == lp => assert!(res.is_ok()),
            Some((l, _)) if docid.as_str() == l => {
                assert!(matches!(res, Err(Error::SpamConflict { .. })), "{res:?}");
                break;
            }
            Some((l, _)) if docid.as_str() < l => {
                assert!(matches!(res, Err(Error::Unsorted { .. })), "{res:?}");
                break;
            }
            _ => assert!(res.is_ok(), "{res:?}"),
        }
        last = Some((docid, *p));
    }

    // Sorted: the first percentile of each docid wins unless another
    // conflicts, which the builder must report.
    let mut sorted = entries.clone();
    sorted.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    sorted.dedup();
    let mut want: BTreeMap<&str, u8> = BTreeMap::new();
    let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
    let mut conflict = false;
    for (p, docid) in &sorted {
        match b.insert(docid, *p) {
            Ok(()) => {
                want.insert(docid, *p);
            }
            Err(Error::SpamConflict { .. }) => {
                assert!(
                    want.contains_key(docid.as_str()),
                    "conflict without a first"
                );
                conflict = true;
                break;
            }
            Err(e) => panic!("sorted insert failed: {e}"),
        }
    }
    if !conflict {
        assert_eq!(b.len(), want.len() as u64);
        let map = SpamMap::new(b.finish().expect("finish")).expect("map");
        assert_eq!(map.len(), want.len());
        for (docid, p) in &want {
            assert_eq!(map.get(docid), Some(*p), "{docid}");
        }
    }
});

sieve_fuzz::replay_main!();
