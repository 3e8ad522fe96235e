//! Tests of the whole report: hand-built indexes, the golden files of the
//! bundled samples, deleted documents, spam maps and the figure.

use sieve_filters::spam::SpamMapBuilder;
use sieve_filters::utf8::ErrorClass;
use sieve_filters::utf8::Utf8Counts;
use sieve_format::document::IndexDoc;
use sieve_format::manifest::{MANIFEST, Manifest, ManifestOptions};
use sieve_format::schema::DOCID;
use sieve_format::schema::{Fields, SCHEMA_VERSION, build_schema};
use sieve_text::charset::CharsetSource;
use tantivy::{Index, IndexWriter, Term};

use super::figure::COLOURS;
use super::tally::CLASSES;
use super::*;

/// Writes `batches` of documents (one commit, hence usually one
/// segment, per batch) into a new index with a manifest in `dir`.
pub(super) fn build_index(dir: &Path, batches: Vec<Vec<IndexDoc>>) -> Index {
    let index = Index::create_in_dir(dir, build_schema()).expect("create index");
    let index = sieve_format::testing::write_batches(index, batches);
    let manifest = Manifest {
        tool: "sieve-index test".into(),
        schema_version: SCHEMA_VERSION,
        options: ManifestOptions {
            stemmer: "porter".into(),
            stopwords: "lucene".into(),
            charset: "auto".into(),
            max_record_bytes: 1 << 20,
            max_decompression_ratio: 100,
            max_html_depth: 256,
            max_text_bytes: 1 << 20,
            max_doc_ms: 0,
            doc_timeout: "skip".into(),
            filter: None,
            spam: None,
            docid_header: sieve_crawl::DEFAULT_DOCID_HEADERS.join(","),
            json_fields: sieve_crawl::JsonFields::default(),
            tsv_columns: sieve_crawl::CrawlOptions::default().tsv_columns,
            text: "all".into(),
            minhash: None,
            positions: false,
            docvectors: false,
            output: None,
        },
        inputs: Vec::new(),
        state: Some(sieve_format::manifest::BuildState::Finished),
        order: None,
        band_keys_dropped: false,
    };
    sieve_format::index::write_json(&dir.join(MANIFEST), &manifest).expect("manifest");
    index
}

pub(super) fn doc(id: &str, counts: Utf8Counts, atire_extra: u64, spam: Option<u8>) -> IndexDoc {
    IndexDoc {
        docid: id.into(),
        title: format!("title {id}"),
        body: "some body text".into(),
        bytes: 100,
        counts,
        atire_extra,
        spam,
        charset: "UTF-8".into(),
        charset_source: CharsetSource::Default.code(),
        ..IndexDoc::default()
    }
}

/// Five documents with known errors, in two segments.
pub(super) fn hand_built() -> Vec<Vec<IndexDoc>> {
    let mut d0 = doc(
        "d0",
        Utf8Counts {
            unexpected_continuation: 3,
            ..Default::default()
        },
        0,
        Some(0),
    );
    d0.charset_source = CharsetSource::HttpHeader.code();
    d0.charset_disagree = true;
    let mut d1 = doc(
        "d1",
        Utf8Counts {
            missing_continuation: 2,
            surrogate: 1,
            ..Default::default()
        },
        0,
        Some(0),
    );
    d1.charset_source = CharsetSource::Meta.code();
    let mut d2 = doc("d2", Utf8Counts::default(), 2, Some(50));
    d2.charset_source = CharsetSource::Detector.code();
    d2.bytes = 1000;
    let mut d3 = doc(
        "d3",
        Utf8Counts {
            overlong_nul: 1,
            invalid_4_5_6: 4,
            ..Default::default()
        },
        0,
        None,
    );
    d3.charset_source = 0;
    let mut d4 = doc(
        "d4",
        Utf8Counts {
            unexpected_continuation: 1,
            ..Default::default()
        },
        1,
        Some(99),
    );
    d4.charset_source = CharsetSource::HttpHeader.code();
    d4.charset_disagree = true;
    vec![vec![d0, d1, d2], vec![d3, d4]]
}

pub(super) fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).expect(name)
}

pub(super) fn line<'a>(text: &'a str, first: &str) -> &'a str {
    text.lines()
        .find(|l| l.split('\t').next() == Some(first))
        .unwrap_or_else(|| panic!("no line {first:?} in\n{text}"))
}

#[test]
fn counts_match_hand_built_documents() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
    std::fs::create_dir(&idx).expect("mkdir");
    let index = build_index(&idx, hand_built());
    assert_eq!(index.searchable_segment_ids().expect("ids").len(), 2);
    let opts = ReportOptions {
        atire_counts: true,
        ..Default::default()
    };
    let summary = write_report(&idx, &out, &opts).expect("report");
    assert_eq!(summary.docs, 5);
    assert_eq!(summary.unscored, 1);
    let names: Vec<String> = summary
        .files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "table1.tsv",
            "table1.md",
            "by-percentile.tsv",
            "figure5.svg",
            "significance.tsv",
            "charsets.tsv"
        ]
    );

    let t1 = read(&out, "table1.tsv");
    assert_eq!(
        t1.lines().next(),
        Some(
            "class\tlabel\toccurrences\tdocuments\tdocument_fraction\t\
             atire_occurrences\tatire_documents"
        )
    );
    assert_eq!(
        line(&t1, "unexpected_continuation"),
        "unexpected_continuation\tUnexpected continuation bytes\t4\t2\t0.400000\t7\t3"
    );
    assert_eq!(
        line(&t1, "missing_continuation"),
        "missing_continuation\tNot enough continuation bytes\t2\t1\t0.200000\t2\t1"
    );
    assert_eq!(
        line(&t1, "surrogate"),
        "surrogate\tInvalid surrogate halves\t1\t1\t0.200000\t1\t1"
    );
    assert_eq!(
        line(&t1, "invalid_4_5_6"),
        "invalid_4_5_6\tInvalid 4/5/6-byte sequences\t4\t1\t0.200000\t4\t1"
    );
    assert_eq!(
        line(&t1, "overlong_nul"),
        "overlong_nul\tOver-long NUL\t1\t1\t0.200000\t1\t1"
    );
    assert_eq!(
        line(&t1, "overlong_ascii"),
        "overlong_ascii\tOver-long ASCII\t0\t0\t0.000000\t0\t0"
    );
    // Any error: d0, d1, d3, d4 (exact); d2 too under ATIRE.
    assert_eq!(
        line(&t1, "total"),
        "total\tAny error\t12\t4\t0.800000\t15\t5"
    );
    assert_eq!(line(&t1, "n_documents"), "n_documents\t\t\t5\t");
    assert_eq!(line(&t1, "n_bytes"), "n_bytes\t\t1400\t\t");

    let md = read(&out, "table1.md");
    assert!(
        md.contains("| Unexpected continuation bytes | 4 | 2 | 40.0000 | 7 | 3 |"),
        "{md}"
    );
    assert!(md.contains("N = 5 documents"), "{md}");

    let bp = read(&out, "by-percentile.tsv");
    assert_eq!(bp.lines().count(), 101);
    let p0: Vec<&str> = line(&bp, "0").split('\t').collect();
    assert_eq!(
        &p0[..8],
        ["0", "2", "1", "0.500000", "1", "0.500000", "1", "0.500000"]
    );
    let p50: Vec<&str> = line(&bp, "50").split('\t').collect();
    assert_eq!(&p50[..4], ["50", "1", "0", "0.000000"]);
    let p99: Vec<&str> = line(&bp, "99").split('\t').collect();
    assert_eq!(&p99[..4], ["99", "1", "1", "1.000000"]);
    assert_eq!(
        &line(&bp, "1").split('\t').collect::<Vec<_>>()[..4],
        ["1", "0", "0", "NA"]
    );

    let cs = read(&out, "charsets.tsv");
    assert_eq!(
        cs,
        "source\tcode\tdocuments\tdisagree\n\
         unrecorded\t0\t1\t0\n\
         http_header\t1\t2\t2\n\
         meta\t3\t1\t0\n\
         detector\t4\t1\t0\n\
         total\t\t5\t2\n"
    );

    let sig = read(&out, "significance.tsv");
    // unexpected_continuation among scored docs: with = {0, 99},
    // without = {0, 50}.
    let uc: Vec<&str> = line(&sig, "unexpected_continuation").split('\t').collect();
    assert_eq!(
        &uc[..5],
        [
            "unexpected_continuation",
            "2",
            "2",
            "49.500000",
            "25.000000"
        ]
    );
    // Oracle (mpmath): Welch t 0.44180016, df 1.4789873, p 0.71460393;
    // U = 2.5 = n1 n2 / 2 + 0.5, so the continuity-corrected z is 0.
    assert_eq!(
        line(&sig, "unexpected_continuation"),
        "unexpected_continuation\t2\t2\t49.500000\t25.000000\t0.441800\t1.478987\t\
         7.146039e-1\t2.5\t0.000000\t1.000000e0"
    );
    // overlong_nul is only in the unscored d3.
    let nul: Vec<&str> = line(&sig, "overlong_nul").split('\t').collect();
    assert_eq!(
        &nul[..],
        [
            "overlong_nul",
            "0",
            "4",
            "NA",
            "37.250000",
            "NA",
            "NA",
            "NA",
            "NA",
            "NA",
            "NA"
        ]
    );
}

#[test]
fn without_atire_counts_table_has_five_columns() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
    std::fs::create_dir(&idx).expect("mkdir");
    build_index(&idx, hand_built());
    write_report(&idx, &out, &ReportOptions::default()).expect("report");
    let t1 = read(&out, "table1.tsv");
    for l in t1.lines() {
        assert!(l.split('\t').count() <= 5, "{l}");
    }
    assert!(!read(&out, "table1.md").contains("ATIRE"));
}

#[test]
fn deciles_group_ten_percentiles() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
    std::fs::create_dir(&idx).expect("mkdir");
    let uc = Utf8Counts {
        unexpected_continuation: 1,
        ..Default::default()
    };
    let docs = vec![
        doc("a", uc, 0, Some(10)),
        doc("b", Utf8Counts::default(), 0, Some(19)),
        doc("c", Utf8Counts::default(), 0, Some(20)),
        doc("d", uc, 0, Some(95)),
    ];
    build_index(&idx, vec![docs]);
    let opts = ReportOptions {
        deciles: true,
        ..Default::default()
    };
    write_report(&idx, &out, &opts).expect("report");
    let bp = read(&out, "by-decile.tsv");
    assert!(!out.join("by-percentile.tsv").exists());
    assert!(bp.starts_with("decile\tdocuments\t"));
    assert_eq!(bp.lines().count(), 11);
    assert_eq!(
        &line(&bp, "1").split('\t').collect::<Vec<_>>()[..4],
        ["1", "2", "1", "0.500000"]
    );
    assert_eq!(
        &line(&bp, "2").split('\t').collect::<Vec<_>>()[..4],
        ["2", "1", "0", "0.000000"]
    );
    assert_eq!(
        &line(&bp, "9").split('\t').collect::<Vec<_>>()[..4],
        ["9", "1", "1", "1.000000"]
    );
}

#[test]
fn spam_map_overrides_the_fast_field() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
    std::fs::create_dir(&idx).expect("mkdir");
    build_index(&idx, hand_built());
    // d3 (unscored in the index) becomes 7; d0 moves to 42; d1, d2, d4
    // are not in the map, so unscored.
    let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
    b.insert("d0", 42).expect("insert");
    b.insert("d3", 7).expect("insert");
    b.insert("zz-not-indexed", 3).expect("insert");
    let map = SpamMap::new(b.finish().expect("finish")).expect("map");
    let opts = ReportOptions {
        spam: Some(map),
        ..Default::default()
    };
    let summary = write_report(&idx, &out, &opts).expect("report");
    assert_eq!(summary.unscored, 3);
    let bp = read(&out, "by-percentile.tsv");
    let total: u64 = bp
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 2);
    assert_eq!(
        &line(&bp, "7").split('\t').collect::<Vec<_>>()[..2],
        ["7", "1"]
    );
    assert_eq!(
        &line(&bp, "42").split('\t').collect::<Vec<_>>()[..4],
        ["42", "1", "1", "1.000000"]
    );
    assert_eq!(
        &line(&bp, "0").split('\t').collect::<Vec<_>>()[..2],
        ["0", "0"]
    );
}

#[test]
fn deleted_documents_are_not_counted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
    std::fs::create_dir(&idx).expect("mkdir");
    let index = build_index(&idx, hand_built());
    let fields = Fields::from_schema(&index.schema()).expect("fields");
    let mut writer: IndexWriter<sieve_format::document::SieveDocument> =
        index.writer_with_num_threads(1, 50 << 20).expect("writer");
    writer.delete_term(Term::from_field_text(fields.docid, "d0"));
    writer.commit().expect("commit");
    drop(writer);
    let summary = write_report(&idx, &out, &ReportOptions::default()).expect("report");
    assert_eq!(summary.docs, 4);
    let t1 = read(&out, "table1.tsv");
    assert!(
        line(&t1, "unexpected_continuation").contains("\t1\t1\t"),
        "{t1}"
    );
}

/// Checks that `svg` is well-formed XML as far as element nesting goes:
/// every start tag is closed, in order, and there is one root.
pub(super) fn assert_well_formed(svg: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = svg;
    let mut roots = 0;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let close = after.find('>').expect("unterminated tag");
        let tag = &after[..close];
        rest = &after[close + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "mismatched </{name}>");
            continue;
        }
        if stack.is_empty() {
            roots += 1;
        }
        let name = tag
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap();
        if !tag.ends_with('/') {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    assert_eq!(roots, 1);
}

#[test]
fn figure5_is_well_formed_with_a_series_per_class() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
    std::fs::create_dir(&idx).expect("mkdir");
    build_index(&idx, hand_built());
    write_report(&idx, &out, &ReportOptions::default()).expect("report");
    let svg = read(&out, "figure5.svg");
    let trimmed = svg.trim();
    assert!(trimmed.starts_with("<svg"), "{}", &trimmed[..40]);
    assert!(trimmed.ends_with("</svg>"));
    assert_well_formed(trimmed);
    assert!(svg.contains(FIGURE5_TITLE));
    assert!(svg.contains("Spam percentile"));
    assert!(svg.contains("Proportion of documents containing the error"));
    for (c, class) in ErrorClass::ALL.into_iter().enumerate() {
        assert!(svg.contains(class.label()), "label {}", class.label());
        let (r, g, b) = COLOURS[c];
        let stroke = format!("stroke=\"#{r:02X}{g:02X}{b:02X}\"");
        // The legend sample only: no two neighbouring percentiles hold
        // documents here (0, 50, 99), so no series line joins them (the
        // lines themselves: `empty_bins_break_the_lines`).
        let lines = svg
            .lines()
            .filter(|l| l.contains("<polyline") && l.contains(&stroke))
            .count();
        assert_eq!(
            lines,
            1,
            "{} has {lines} polylines with {stroke}",
            class.key()
        );
        // A marker per data point (3 bins with documents) and one in the
        // legend.
        let markers = svg
            .lines()
            .filter(|l| l.contains(&format!("class=\"marker m-{}\"", class.key())))
            .count();
        assert_eq!(markers, 4, "{} markers", class.key());
    }
}

/// A made-up spam percentile: FNV-1a of the docid, modulo 100.
fn made_up_percentile(docid: &[u8]) -> u8 {
    let h = docid.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    (h % 100) as u8
}

/// The report of an index built from the bundled crawl samples, with
/// MADE-UP spam percentiles (FNV-1a of the docid mod 100; every third
/// docid, by FNV hash, left unscored), against the golden files in
/// `tests/data/report/` (`SIEVE_BLESS=1` rewrites them).
#[test]
fn golden_report_for_bundled_samples_with_made_up_spam() {
    use sieve_ingest::build::build;
    use sieve_ingest::options::{BuildOptions, NoProgress};
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    // The WARC samples, not the fuzz-derived corrupt file beside them
    // (its records before the damage are read, and repeat a docid).
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(data.join("warc"))
        .expect("warc samples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    inputs.push(data.join("trec/cacm-first5.trec"));
    inputs.sort();
    let tmp = tempfile::tempdir().expect("tmp");
    let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
    let stats = build(&BuildOptions::new(inputs, idx.clone()), &NoProgress).expect("build");

    // Made-up scores for the docids in the index.
    let (index, _) = sieve_format::index::open_index(&idx).expect("open");
    let searcher = index.reader().expect("reader").searcher();
    let mut docids = Vec::new();
    for seg in searcher.segment_readers() {
        let col = seg.fast_fields().str(DOCID).expect("docid").expect("fast");
        let mut stream = col.dictionary().stream().expect("stream");
        while stream.advance() {
            docids.push(stream.key().to_vec());
        }
    }
    docids.sort();
    docids.dedup();
    assert!(docids.len() > 10, "{} docids", docids.len());
    let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
    for d in &docids {
        let p = made_up_percentile(d);
        if !p.is_multiple_of(3) {
            b.insert(std::str::from_utf8(d).expect("utf8"), p)
                .expect("insert");
        }
    }
    let opts = ReportOptions {
        atire_counts: true,
        spam: Some(SpamMap::new(b.finish().expect("finish")).expect("map")),
        deciles: true,
        cumulative: true,
        log_y: false,
        ..Default::default()
    };
    let summary = write_report(&idx, &out, &opts).expect("report");
    assert_eq!(summary.docs, docids.len() as u64);

    // Oracle: the builder counted the same things independently, while
    // indexing, into stats.json.
    let totals = &stats.totals;
    assert_eq!(summary.docs, totals.indexed);
    let t1 = read(&out, "table1.tsv");
    for class in ErrorClass::ALL {
        let cols: Vec<&str> = line(&t1, class.key()).split('\t').collect();
        assert_eq!(cols[2], totals.utf8_errors.get(class).to_string(), "{t1}");
        assert_eq!(cols[3], totals.utf8_docs.get(class).to_string(), "{t1}");
    }
    let uc: Vec<&str> = line(&t1, "unexpected_continuation").split('\t').collect();
    assert_eq!(
        uc[5],
        (totals.utf8_errors.unexpected_continuation + totals.atire_extra).to_string()
    );
    let cs = read(&out, "charsets.tsv");
    for (key, n) in &totals.charset_sources {
        let cols: Vec<&str> = line(&cs, key).split('\t').collect();
        assert_eq!(cols[2], n.to_string(), "{key}: {cs}");
    }
    assert_eq!(
        line(&cs, "total"),
        format!("total\t\t{}\t{}", totals.indexed, totals.charset_disagree)
    );

    let golden = data.join("report");
    let bless = std::env::var_os("SIEVE_BLESS").is_some();
    for name in [
        "table1.tsv",
        "table1.md",
        "by-decile.tsv",
        "cumulative-by-decile.tsv",
        "significance.tsv",
        "charsets.tsv",
    ] {
        let got = read(&out, name);
        let path = golden.join(name);
        if bless {
            std::fs::create_dir_all(&golden).expect("mkdir");
            std::fs::write(&path, &got).expect("bless");
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with SIEVE_BLESS=1)", path.display()));
        assert_eq!(got, want, "{name} differs from {}", path.display());
    }
}

/// Throughput on a synthetic index. Run with
/// `cargo test --release -p sieve-ingest report::tests::throughput -- --ignored --nocapture`
/// (`SIEVE_REPORT_DOCS` sets the number of documents, default 200000;
/// `SIEVE_REPORT_OUT` keeps the reports, in `index-spam/` and `map-spam/`;
/// `SIEVE_REPORT_DECILES` bins by decile).
/// The error rates and spam scores are made up.
#[test]
#[ignore = "performance measurement; builds a large index"]
fn throughput() {
    let n: u64 = std::env::var("SIEVE_REPORT_DOCS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let tmp = tempfile::tempdir().expect("tmp");
    let idx = tmp.path().join("idx");
    let out =
        std::env::var_os("SIEVE_REPORT_OUT").map_or_else(|| tmp.path().join("out"), PathBuf::from);
    std::fs::create_dir(&idx).expect("mkdir");
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let built = Instant::now();
    let docs: Vec<IndexDoc> = (0..n)
        .map(|i| {
            let r = next();
            let spam = u8::try_from((r >> 48) % 101).ok().filter(|&p| p < 100);
            // Made-up rates that fall with the spam percentile: class k
            // is present with probability RATES[k] / 1024 * (2 - p / 99).
            const RATES: [u64; CLASSES] = [300, 200, 40, 60, 8, 15, 25];
            let p = u64::from(spam.unwrap_or(50));
            let mut counts = Utf8Counts::default();
            for (k, class) in ErrorClass::ALL.into_iter().enumerate() {
                let draw = next() & 1023;
                if draw * 99 < RATES[k] * (198 - p) {
                    *counts.get_mut(class) = 1 + ((r >> (k * 3)) & 7);
                }
            }
            let mut d = doc(&format!("clueweb-{i:010}"), counts, (r >> 56) & 1, spam);
            d.title = String::new();
            d.body = String::new();
            d.charset_source = (r >> 60) % 9;
            d.charset_disagree = r & 1 == 1;
            d
        })
        .collect();
    let mut batches = Vec::new();
    let mut docs = docs.into_iter().peekable();
    while docs.peek().is_some() {
        batches.push(docs.by_ref().take(50_000).collect());
    }
    build_index(&idx, batches);
    eprintln!("built {n} docs in {:.1}s", built.elapsed().as_secs_f64());
    for spam in [false, true] {
        let map = spam.then(|| {
            let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
            for i in 0..n {
                b.insert(&format!("clueweb-{i:010}"), (i % 100) as u8)
                    .expect("insert");
            }
            SpamMap::new(b.finish().expect("finish")).expect("map")
        });
        let opts = ReportOptions {
            atire_counts: true,
            spam: map,
            deciles: std::env::var_os("SIEVE_REPORT_DECILES").is_some(),
            ..Default::default()
        };
        let dir = out.join(if spam { "map-spam" } else { "index-spam" });
        let s = write_report(&idx, &dir, &opts).expect("report");
        assert_eq!(s.docs, n);
        eprintln!(
            "report (spam override: {spam}): {} docs in {:.3}s = {:.0} docs/s",
            s.docs,
            s.seconds,
            s.docs as f64 / s.seconds
        );
    }
}
