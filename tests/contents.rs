//! The contents of a built index are pinned: speeding up the
//! build must not change which documents are indexed, their terms, term
//! frequencies, field lengths, stored fields or fast fields, whatever
//! `--threads`. Two digests per input set: the *legacy* one covers the
//! fields the schema had at commit e4b2d38 (taken with the build as it was
//! before the build's parallel reading and analysis) and must not move unless the analyser or the
//! extractor is changed on purpose; the *full* one covers every field,
//! including those added since ([`LATER_FIELDS`]), and moves with the
//! schema.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tantivy::schema::document::Document as _;
use tantivy::schema::{FieldType, IndexRecordOption};
use tantivy::{DocSet, Index, TantivyDocument, Term};

use crate::util::{Dir, fixture, ok};

/// FNV-1a, 64 bits: enough to notice any change in the dump.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Fields added to the schema after e4b2d38 (the JSON lines and TSV
/// collections, main-content extraction): left out of
/// the legacy dump.
const LATER_FIELDS: [&str; 7] = [
    "record_crc",
    "record_id",
    "language",
    "record_len",
    "gz_member",
    "gz_member_start",
    "minhash",
];

/// The full dump and the legacy one (without [`LATER_FIELDS`]), written in
/// one pass over the index.
#[derive(Default)]
struct Dumps {
    full: String,
    legacy: String,
}

impl Dumps {
    /// A line of field `name` (or of no field): in both dumps, unless the
    /// field is a later one.
    fn line(&mut self, name: Option<&str>, text: &str) {
        self.two(
            text,
            (!name.is_some_and(|n| LATER_FIELDS.contains(&n))).then_some(text),
        );
    }

    /// A line whose legacy text differs (or is absent).
    fn two(&mut self, full: &str, legacy: Option<&str>) {
        writeln!(self.full, "{full}").unwrap();
        if let Some(l) = legacy {
            writeln!(self.legacy, "{l}").unwrap();
        }
    }
}

/// Everything an index holds, as text, independent of how its documents
/// are split into segments: per document (in index order) the stored
/// fields, every fast field and the field-length codes of the analysed
/// fields; per analysed field every term with its postings (ordinal, term
/// frequency). Returns (full dump, legacy dump).
fn dump(index_dir: &Path) -> (String, String) {
    let index = Index::open_in_dir(index_dir).expect("open index");
    let schema = index.schema();
    let searcher = index.reader().expect("reader").searcher();
    let mut out = Dumps::default();
    let mut base = Vec::new();
    let mut n = 0u32;
    for seg in searcher.segment_readers() {
        base.push(n);
        n += seg.max_doc();
    }
    out.line(None, &format!("docs {n}"));
    for (s, seg) in searcher.segment_readers().iter().enumerate() {
        let store = seg.get_store_reader(1).expect("store");
        let ids = sieve_format::index::docid_column(seg, index_dir).expect("docid column");
        let mut docid = String::new();
        for doc in 0..seg.max_doc() {
            let d: TantivyDocument = store.get(doc).expect("stored doc");
            // serde_json's maps are sorted: the legacy text is the one from
            // before the later fields once their keys are gone. The docid,
            // no longer stored (schema version 5), is taken from its fast
            // field where the store had it, so the dump says what the
            // index holds however it keeps it.
            let mut v: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&d.to_json(&schema)).expect("stored doc as JSON");
            sieve_format::index::read_docid(&ids, doc, &mut docid).expect("docid");
            v.entry("docid")
                .or_insert_with(|| vec![docid.clone()].into());
            let json = serde_json::to_string(&v).expect("JSON");
            for f in LATER_FIELDS {
                v.remove(f);
            }
            let old = serde_json::to_string(&v).expect("JSON");
            let ord = base[s] + doc;
            out.two(
                &format!("doc {ord} {json}"),
                Some(&format!("doc {ord} {old}")),
            );
            for (field, entry) in schema.fields() {
                let name = entry.name();
                let ff = seg.fast_fields();
                let v = match entry.field_type() {
                    FieldType::U64(o) if o.is_fast() => {
                        format!("{:?}", ff.u64(name).expect("u64 column").first(doc))
                    }
                    FieldType::Bool(o) if o.is_fast() => {
                        format!("{:?}", ff.bool(name).expect("bool column").first(doc))
                    }
                    FieldType::Str(o)
                        if o.get_indexing_options()
                            .is_some_and(|i| i.index_option() == IndexRecordOption::WithFreqs) =>
                    {
                        let norms = seg.get_fieldnorms_reader(field).expect("norms");
                        format!("norm {}", norms.fieldnorm_id(doc))
                    }
                    _ => continue,
                };
                out.line(Some(name), &format!("  {name} {v}"));
            }
        }
    }
    for (field, entry) in schema.fields() {
        let FieldType::Str(o) = entry.field_type() else {
            continue;
        };
        if o.get_indexing_options()
            .is_none_or(|i| i.index_option() != IndexRecordOption::WithFreqs)
        {
            continue;
        }
        let mut terms = std::collections::BTreeSet::new();
        for seg in searcher.segment_readers() {
            let inv = seg.inverted_index(field).expect("inverted index");
            let mut stream = inv.terms().stream().expect("terms");
            while stream.advance() {
                terms.insert(stream.key().to_vec());
            }
        }
        // Terms go to both dumps, as before the later fields.
        out.line(
            None,
            &format!("field {} terms {}", entry.name(), terms.len()),
        );
        for key in terms {
            let term = Term::from_field_bytes(field, &key);
            let mut line = format!("{} :", String::from_utf8_lossy(&key));
            for (s, seg) in searcher.segment_readers().iter().enumerate() {
                let inv = seg.inverted_index(field).expect("inverted index");
                let Some(mut p) = inv
                    .read_postings(&term, IndexRecordOption::WithFreqs)
                    .expect("postings")
                else {
                    continue;
                };
                while p.doc() != tantivy::TERMINATED {
                    use tantivy::postings::Postings as _;
                    write!(line, " {}x{}", base[s] + p.doc(), p.term_freq()).unwrap();
                    p.advance();
                }
            }
            out.line(None, &line);
        }
    }
    (out.full, out.legacy)
}

/// Copies `files` into `dir/in/` and builds `dir/NAME` from them with
/// relative paths (the `source` field stores the path as given); returns
/// the full and the legacy dump.
fn build(
    dir: &Dir,
    files: &[PathBuf],
    name: &str,
    threads: &str,
    extra: &[&str],
) -> (String, String) {
    let mut c = dir.cmd("sieve-index");
    c.args(["build", "--threads", threads, "--index", name]);
    c.args(extra);
    for f in files {
        let rel = format!("in/{}", f.file_name().unwrap().to_string_lossy());
        if !dir.join(&rel).exists() {
            dir.write(&rel, &std::fs::read(f).unwrap());
        }
        c.args(["--input", &rel]);
    }
    ok(&mut c);
    dump(&dir.join(name))
}

/// Builds `files` at 1, 2 and 3 threads, checks the dumps are equal and
/// returns the digests (full, legacy), with the dumps written to the
/// temporary directory for a diff.
fn digest(dir: &Dir, files: &[PathBuf]) -> ((u64, usize), (u64, usize)) {
    let first = build(dir, files, "t1", "1", &[]);
    for t in ["2", "3"] {
        assert!(
            build(dir, files, &format!("t{t}"), t, &[]) == first,
            "--threads {t} gives other index contents than --threads 1"
        );
    }
    let pin = |text: &str| {
        let h = fnv(text.as_bytes());
        let keep = std::env::temp_dir().join(format!("sieve-contents-{h:016x}.txt"));
        let _ = std::fs::write(&keep, text);
        eprintln!(
            "index dump: {} ({} lines)",
            keep.display(),
            text.lines().count()
        );
        (h, text.lines().count())
    };
    (pin(&first.0), pin(&first.1))
}

sieve_test!(index_contents_are_pinned_on_the_committed_fixtures, |dir| {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture("warc"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".warc.gz") && !n.contains("clipped")
        })
        .collect();
    files.push(fixture("trec/cacm-first5.trec"));
    files.sort();
    let (full, legacy) = digest(&dir, &files);
    assert_eq!(
        legacy,
        (11_584_451_639_871_596_077, 6008),
        "index contents of the e4b2d38 fields changed"
    );
    assert_eq!(
        full,
        (17_134_828_699_911_582_110, 6056),
        "index contents changed"
    );
});

sieve_test!(index_contents_are_pinned_on_the_clueweb09_samples, |dir| {
    let Some(data) = sieve_testdata::shared_data() else {
        eprintln!("SKIPPED: no shared data");
        return;
    };
    let files: Vec<PathBuf> = [
        "freequery__ClueWeb09_English_Sample.warc",
        "freequery__ClueWeb09_Chinese_Sample.warc",
        "resiliparse__clueweb-quirk.warc.gz",
        "dolma__sample-0000.warc.gz",
        "ukwa__IAH-urls-wget.warc.gz",
    ]
    .iter()
    .map(|f| data.join("warc").join(f))
    .collect();
    if let Some(f) = files.iter().find(|f| !f.exists()) {
        eprintln!("SKIPPED: {} missing", f.display());
        return;
    }
    let (full, legacy) = digest(&dir, &files);
    assert_eq!(
        legacy,
        (12_783_488_596_217_402_744, 19_086),
        "index contents of the e4b2d38 fields changed"
    );
    assert_eq!(
        full,
        (0x0934_e8b4_b0bb_a198, 19_339),
        "index contents changed"
    );
});

sieve_test!(index_contents_do_not_depend_on_commits_and_merges, |dir| {
    // 18 files of 23 documents: the default commits once (one
    // segment); a commit per file makes 18 segments, merged 8 or more at a
    // time (order.rs); a merge cap of 40 documents leaves all 18.
    let inputs = crate::determinism::many_inputs(&dir);
    let segments = |name: &str| {
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join(name).join("meta.json")).unwrap())
                .unwrap();
        meta["segments"].as_array().unwrap().len()
    };
    let one = build(&dir, &inputs, "one", "2", &[]);
    // The default cadence (256 MB) is far above these inputs: the last file
    // is the only commit.
    assert_eq!(segments("one"), 1, "the default commits more than once");
    for (n, extra) in [
        (0, &["--commit-every-mb", "0"][..]),
        (1, &["--commit-every-mb", "0", "--max-merge-docs", "40"][..]),
        // Files of 0.45 MB: a group of 9 files (4 MB), then the next 7 close
        // before the last file (a quarter of the mark is pending), which
        // commits alone: 3 segments.
        (2, &["--commit-every-mb", "4"][..]),
    ] {
        let name = format!("cadence{n}");
        assert!(
            build(&dir, &inputs, &name, "2", extra) == one,
            "{extra:?} gives other index contents than the default"
        );
        let segments = segments(&name);
        // Merges run in the background: how many are done when the build
        // ends depends on timing, not their order.
        match n {
            0 => assert!((2..=4).contains(&segments), "{extra:?}: {segments}"),
            1 => assert_eq!(segments, 18, "{extra:?}"),
            _ => assert_eq!(segments, 3, "{extra:?}"),
        }
    }
});
