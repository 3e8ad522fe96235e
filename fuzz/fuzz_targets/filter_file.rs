//! Filter files (`sieve_filters::docfilter`): `DocFilter::from_bytes` never
//! panics, on arbitrary bytes nor on a valid filter file that was truncated
//! or had bytes changed, and neither do `keeps`, `contains` and `listed` on
//! whatever it accepts. The input makes a valid file (its first up to 64
//! bytes, split at `\n`, are the docids; its first byte picks the stored
//! list), which must open and answer like the rule; the rest of the input
//! is edits (3 bytes each: position, position, XOR mask) and a truncation.
//! A file with one byte changed or cut short must be refused (the seal);
//! the same damaged payload, sealed again with a correct CRC-32, must still
//! be an error or a filter that answers without panicking (fst's own
//! checksum is the second line of defence).
#![cfg_attr(fuzzing, no_main)]
use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use sieve_filters::docfilter::{
    DocFilter, FilterCounts, FilterHeader, FilterWriter, ListKind, MAGIC_NAME, Thresholds, VERSION,
};
use sieve_filters::sealed::{SEAL_LINE_LEN, seal_binary};

fn exercise(f: &DocFilter, probes: &BTreeSet<String>) {
    let _ = f.listed();
    let _ = f.header().unseen_rule();
    for d in probes
        .iter()
        .map(String::as_str)
        .chain(["", "zzz", "\u{0}"])
    {
        let _ = f.keeps(d);
        let _ = f.contains(d);
    }
}

fn valid_file(docids: &BTreeSet<String>, kind: ListKind) -> Vec<u8> {
    let n = docids.len() as u64;
    let counts = FilterCounts {
        considered: n,
        kept: if kind == ListKind::Keep { n } else { 0 },
        excluded: if kind == ListKind::Exclude { n } else { 0 },
        unscored: 0,
    };
    let t = Thresholds {
        min_spam_percentile: Some(70),
        ..Default::default()
    };
    let header = FilterHeader::new(t, counts, Some(kind), vec!["fuzz".into()]);
    let mut w = FilterWriter::new(Vec::new(), &header).expect("writer");
    for d in docids {
        w.insert(d.as_bytes()).expect("sorted docids");
    }
    w.finish().expect("finish").0
}

fuzz_target!(|data: &[u8]| {
    // Arbitrary bytes.
    if let Ok(f) = DocFilter::from_bytes(data.to_vec()) {
        exercise(&f, &BTreeSet::new());
    }
    let (seed, edits) = data.split_at(data.len().min(64));
    let docids: BTreeSet<String> = seed
        .split(|&b| b == b'\n')
        .map(|d| String::from_utf8_lossy(d).into_owned())
        .collect();
    let kind = if seed.first().is_some_and(|b| b & 1 == 1) {
        ListKind::Keep
    } else {
        ListKind::Exclude
    };
    let good = valid_file(&docids, kind);
    let f = DocFilter::from_bytes(good.clone()).expect("a valid file opens");
    assert_eq!(f.listed(), docids.len());
    for d in &docids {
        assert_eq!(f.keeps(d), kind == ListKind::Keep, "{d:?}");
    }
    // Damage: edits, then a truncation.
    let mut bad = good.clone();
    let mut changed = 0usize;
    for e in edits.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([e[0], e[1]])) % bad.len();
        if e[2] != 0 {
            bad[at] ^= e[2];
            changed += 1;
        }
    }
    let cut = edits.len() % 3 == 1 && edits.last().is_some_and(|&c| c != 0);
    if cut {
        let keep = bad.len() - 1 - usize::from(edits[edits.len() - 1]) % bad.len();
        bad.truncate(keep);
    }
    let opened = DocFilter::from_bytes(bad.clone());
    if (changed == 1 && !cut) || (changed == 0 && cut) {
        assert!(opened.is_err(), "one damage went unnoticed");
    }
    if let Ok(f) = opened {
        exercise(&f, &docids);
    }
    // The damaged payload with a correct seal.
    let start = format!("{MAGIC_NAME} {VERSION}\n").len() + SEAL_LINE_LEN;
    if bad.len() >= start {
        let resealed = seal_binary(MAGIC_NAME, VERSION, &bad[start..]);
        if let Ok(f) = DocFilter::from_bytes(resealed) {
            exercise(&f, &docids);
        }
    }
});

sieve_fuzz::replay_main!();
