//! Stats TSV reader (`sieve_filters::docstats`): the header and line parsers
//! never panic on arbitrary bytes; every accepted line written back with
//! `format_row` under the full header parses to the same docid, length,
//! spam percentile and counts (for the classes the header named; the rest
//! must read as 0).
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_filters::docstats::{StatsColumns, format_row, header_line};

fuzz_target!(|data: &[u8]| {
    let mut lines = data.split_inclusive(|&b| b == b'\n');
    let Some(head) = lines.next() else { return };
    let Ok(cols) = StatsColumns::from_header(head) else {
        return;
    };
    let missing = cols.missing();
    let full = StatsColumns::from_header(header_line().as_bytes()).expect("own header");
    for (i, line) in lines.enumerate() {
        let Ok(Some(row)) = cols.parse(line, i as u64 + 2) else {
            continue;
        };
        for c in &missing {
            assert_eq!(row.counts.get(*c), 0);
        }
        // Docids with tabs or newlines cannot be written back as one field.
        let Ok(docid) = std::str::from_utf8(row.docid) else {
            continue;
        };
        if docid.contains(['\t', '\n', '\r']) || docid.starts_with('#') {
            continue;
        }
        let written = format_row(docid, row.bytes, row.spam, &row.counts);
        let back = full
            .parse(written.as_bytes(), 2)
            .expect("re-parse written row")
            .expect("not a comment");
        assert_eq!(back, row);
    }
});

sieve_fuzz::replay_main!();
