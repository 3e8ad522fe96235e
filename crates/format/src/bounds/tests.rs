//! The bounds against the postings they bound, and the docid table
//! against the docid dictionary.

use proptest::prelude::*;
use tantivy::postings::Postings;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocSet, Index, TERMINATED};

use super::*;
use crate::Error;
use crate::schema::DOCID;
use crate::testing;

const WORDS: &[&str] = &["alpha", "beta", "gamma", "delta", "omega"];

/// An in-RAM index of `n` made-up documents (skewed words and lengths,
/// docids not in insertion order), committed in `segments` segments.
fn index(seed: u64, n: usize, segments: usize) -> Index {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let docs: Vec<_> = (0..n)
        .map(|i| {
            let len = 1 + next() % if next() % 3 == 0 { 4 } else { 120 };
            let body: Vec<&str> = (0..len)
                .map(|_| WORDS[((next() | 16).trailing_zeros() as usize).min(WORDS.len() - 1)])
                .collect();
            testing::doc(&format!("d-{:07}", (i * 7919) % 1_000_003), &body.join(" "))
        })
        .collect();
    testing::index_in_ram(docs, segments)
}

fn open(index: &Index) -> Vec<(SegmentReader, SegmentBounds)> {
    let schema = index.schema();
    index
        .reader()
        .unwrap()
        .searcher()
        .segment_readers()
        .iter()
        .map(|seg| {
            let payload = segment_payload(seg, &schema).unwrap();
            let b =
                SegmentBounds::from_payload(Path::new("t.bmx"), &payload, seg, &schema).unwrap();
            (seg.clone(), b)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Every posting is dominated by a point of its entry's frontier
    /// and of the term's global frontier; entries are whole grid
    /// blocks, ascending, and hold at least ENTRY_POSTINGS postings
    /// each (but the last); terms below MIN_DOC_FREQ have no entry.
    #[test]
    fn entries_bound_every_posting(seed in any::<u64>(), n in 300usize..5000, segments in 1usize..3) {
        let index = index(seed, n, segments);
        let field = index.schema().get_field(BODY).unwrap();
        for (seg, b) in open(&index) {
            let inverted = seg.inverted_index(field).unwrap();
            let norms = seg.get_fieldnorms_reader(field).unwrap();
            let mut stream = inverted.terms().stream().unwrap();
            while stream.advance() {
                let info = stream.value().clone();
                let tb = b.term(BODY, stream.term_ord()).unwrap();
                let Some(tb) = tb else {
                    prop_assert!(info.doc_freq < MIN_DOC_FREQ);
                    continue;
                };
                prop_assert!(info.doc_freq >= MIN_DOC_FREQ);
                prop_assert!(tb.lasts.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(tb.global.len() <= TERM_POINTS);
                let mut per_entry = vec![0u32; tb.lasts.len()];
                let mut p = inverted
                    .read_postings_from_terminfo(&info, IndexRecordOption::WithFreqs)
                    .unwrap();
                let mut e = 0;
                while p.doc() != TERMINATED {
                    let (doc, tf) = (p.doc(), p.term_freq());
                    let fid = norms.fieldnorm_id(doc);
                    while tb.lasts[e] < doc / BLOCK_DOCS {
                        e += 1;
                    }
                    per_entry[e] += 1;
                    let covers = |pts: &[Point]| pts.iter().any(|q| q.tf >= tf && q.fid <= fid);
                    prop_assert!(tb.entry(e).len() <= BLOCK_POINTS);
                    prop_assert!(covers(tb.entry(e)), "entry {e} misses doc {doc} tf {tf} fid {fid}");
                    prop_assert!(covers(&tb.global), "global misses doc {doc}");
                    p.advance();
                }
                let (last, rest) = per_entry.split_last().unwrap();
                prop_assert!(*last > 0);
                prop_assert!(rest.iter().all(|c| *c >= ENTRY_POSTINGS), "{per_entry:?}");
            }
        }
    }

    /// The docid table gives every ordinal's docid as tantivy's
    /// dictionary does, also after `touch_docids` (which skips
    /// ordinals past the end); an ordinal past the end is an error.
    #[test]
    fn docid_table_equals_the_docid_dictionary(seed in any::<u64>(), n in 1usize..2000) {
        let index = index(seed, n, 1);
        for (seg, b) in open(&index) {
            let column = seg.fast_fields().str(DOCID).unwrap().unwrap();
            let dict = column.dictionary();
            prop_assert!(b.has_docids());
            let mut ours = Vec::new();
            let mut theirs = Vec::new();
            let all: Vec<u64> = (0..dict.num_terms() as u64 + 40).collect();
            std::hint::black_box(b.touch_docids(&all));
            for ord in 0..dict.num_terms() as u64 {
                b.docid(ord, &mut ours).unwrap();
                prop_assert!(dict.ord_to_term(ord, &mut theirs).unwrap());
                prop_assert_eq!(&ours, &theirs);
            }
            let past = b.docid(dict.num_terms() as u64, &mut ours);
            prop_assert!(matches!(past, Err(Error::Bounds { .. })), "{past:?}");
        }
    }
}

/// A payload whose docid table was damaged (a restart offset pointing
/// past the data, a shared prefix longer than the docid before it) is
/// refused or read as an error, never a panic. (A damaged file on disk
/// is refused by its CRC-32 seal before this parser sees it.)
#[test]
fn damaged_docid_table_is_an_error() {
    let index = index(7, 600, 1);
    let schema = index.schema();
    let searcher = index.reader().unwrap().searcher();
    let seg = &searcher.segment_readers()[0];
    let payload = segment_payload(seg, &schema).unwrap();
    let path = Path::new("t.bmx");
    // Every single-byte change in the docid table's last 300 bytes.
    let from = payload.len().saturating_sub(300);
    let mut refused = 0;
    for at in from..payload.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut bad = payload.clone();
            bad[at] ^= mask;
            match SegmentBounds::from_payload(path, &bad, seg, &schema) {
                Err(_) => refused += 1,
                Ok(b) => {
                    // Touching reads only what is there (ordinals past
                    // the end included): no panic.
                    let ords: Vec<u64> = (0..700).collect();
                    std::hint::black_box(b.touch_docids(&ords));
                    let mut out = Vec::new();
                    for ord in 0..600 {
                        if b.docid(ord, &mut out).is_err() {
                            refused += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(refused > 0, "no damage was noticed");
}
