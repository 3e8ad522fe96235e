//! Block-max bounds sidecars (`sieve_format::bounds`, `IDX/bounds/*.bmx`):
//! a payload checked against a real segment must never panic, however it
//! was damaged, and neither may reading every term's bounds from whatever
//! it accepts. The payload of a small in-memory index (600 documents, so
//! that terms reach `MIN_DOC_FREQ` postings and get bounds) is made once;
//! each input is arbitrary bytes tried as a payload, then edits of the
//! valid payload (3 bytes each: position, position, XOR mask) and a cut.
//! The unchanged payload must open and give every stored term's bounds;
//! docids are read from the docid table too.
//! (The file's CRC-32 seal is `sealed::open_binary`, fuzzed with the filter
//! files; this target reaches the parser behind it.)
#![cfg_attr(fuzzing, no_main)]
use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sieve_analysis::AnalyzerConfig;
use sieve_format::bounds::{SegmentBounds, segment_payload};
use sieve_format::schema::{BODY, DOCID, TITLE, build_schema, register_analyzers};
use tantivy::schema::Schema;
use tantivy::{Index, IndexWriter, SegmentReader, TantivyDocument};

struct Fixture {
    segment: SegmentReader,
    schema: Schema,
    payload: Vec<u8>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let index = Index::create_in_ram(build_schema());
        register_analyzers(&index, AnalyzerConfig::default());
        let schema = index.schema();
        let body = schema.get_field(BODY).expect("body field");
        let title = schema.get_field(TITLE).expect("title field");
        let docid = schema.get_field(DOCID).expect("docid field");
        let mut w: IndexWriter = index
            .writer_with_num_threads(1, 15_000_000)
            .expect("writer");
        let words = ["alpha", "beta", "gamma", "delta", "epsilon"];
        for i in 0..600usize {
            let mut d = TantivyDocument::new();
            let n = 1 + (i * 7919) % 37;
            let text: Vec<&str> = (0..n).map(|j| words[(i + j * j) % words.len()]).collect();
            d.add_text(body, text.join(" "));
            d.add_text(docid, format!("doc-{:05}", (i * 7919) % 10007));
            d.add_text(title, words[i % words.len()]);
            w.add_document(d).expect("add");
        }
        w.commit().expect("commit");
        let searcher = index.reader().expect("reader").searcher();
        let segment = searcher.segment_readers()[0].clone();
        let payload = segment_payload(&segment, &schema).expect("payload");
        Fixture {
            segment,
            schema,
            payload,
        }
    })
}

fn exercise(b: &SegmentBounds) {
    for field in [BODY, TITLE, "nonesuch"] {
        for ord in 0..16u64 {
            let _ = b.term(field, ord);
        }
        let _ = b.term(field, u64::MAX);
    }
    let mut docid = Vec::new();
    for ord in (0..40u64).chain([599, 600, u64::MAX]) {
        let _ = b.docid(ord, &mut docid);
    }
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let path = Path::new("fuzz.bmx");
    if let Ok(b) = SegmentBounds::from_payload(path, data, &f.segment, &f.schema) {
        exercise(&b);
    }
    let good = SegmentBounds::from_payload(path, &f.payload, &f.segment, &f.schema)
        .expect("the valid payload opens");
    exercise(&good);
    let mut bad = f.payload.clone();
    for e in data.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([e[0], e[1]])) % bad.len();
        bad[at] ^= e[2];
    }
    if data.len() % 3 == 1 {
        let cut = usize::from(data[data.len() - 1]) % bad.len();
        bad.truncate(bad.len() - cut);
    }
    if let Ok(b) = SegmentBounds::from_payload(path, &bad, &f.segment, &f.schema) {
        exercise(&b);
    }
});

sieve_fuzz::replay_main!();
