//! Per-stage throughput of the indexing pipeline (issue 3): docs/s and MB/s
//! for gunzip, WARC/HTTP parsing, charset decoding, UTF-8 cleaning, HTML to
//! text, and indexing (analysis + tantivy `add_document` + commit).
//!
//! Input: every WARC sample in the shared data (`$SIEVE_SHARED_DATA/warc`,
//! else `../shared/data/warc` beside the checkout; the largest are the ClueWeb09 English
//! and Chinese samples), decompressed and concatenated in memory, else the
//! committed fixtures in `tests/data/warc`. Each stage runs on the output of
//! the one before it, prepared outside the timed region, so every figure is
//! that stage alone. The gunzip stage decompresses the concatenation
//! compressed as one gzip member per record (ClueWeb's layout).
//!
//! MB/s is always over the same number: the decompressed WARC bytes, so the
//! stage rates add up like the pipeline does (1/total = Σ 1/stage). The
//! baseline, measured in the same run, is one copy of those bytes (a
//! `memcpy`, the floor of any pass over them; UTF-8 validation would stop
//! at the first invalid byte of these crawls); `baseline/this` says what
//! fraction of memory speed each stage reaches.
//!
//! The index stage adds the documents as many times as it takes to reach
//! `INDEX_DOCS` (docids suffixed) into one in-RAM index and commits once, so the commit's fixed
//! cost is spread as in a real build (sieve commits once per input file).
//!
//! `cargo bench -p sieve-bench --bench stages` (`SIEVE_BENCH_RUNS`, default 7;
//! `SIEVE_BENCH_WARC=DIR` reads the `*.warc.gz` files of DIR instead, e.g.
//! the peer comparison's 300 MB corpus in `bench/peers/.work/corpus-300mb`).
use std::io::{Cursor, Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use sieve_bench::{mb_per_s, median};
use sieve_filters::utf8::{Counting, clean_in_place};
use sieve_indexer::analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_indexer::charset::{CharsetMode, decode};
use sieve_indexer::crawl::{CrawlEvent, CrawlOptions, RawDoc, from_reader};
use sieve_indexer::document::IndexDoc;
use sieve_indexer::html::{HtmlOptions, extract};
use sieve_indexer::schema::{Fields, build_schema, register_analyzers};

/// Documents (at least) added before the index stage's one commit.
const INDEX_DOCS: usize = 3000;

fn warc_files() -> Vec<PathBuf> {
    if let Some(dir) = std::env::var_os("SIEVE_BENCH_WARC") {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("read $SIEVE_BENCH_WARC")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
            .collect();
        files.sort();
        return files;
    }
    let dir = match sieve_indexer::testdata::shared_file("", "stage bench: shared WARC samples") {
        Some(d) => d.join("warc"),
        None => {
            eprintln!("using the committed fixtures in tests/data/warc instead");
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/warc")
        }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read WARC dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            // WAT/WET files hold metadata and extracted text, not responses.
            (n.ends_with(".warc") || n.ends_with(".warc.gz"))
                && !n.contains(".wat")
                && !n.contains(".wet")
        })
        .collect();
    files.sort();
    files
}

fn read_decompressed(p: &PathBuf) -> Vec<u8> {
    let raw = std::fs::read(p).expect("read WARC");
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        // A truncated sample ends in an error; keep what was decompressed.
        let _ = MultiGzDecoder::new(&raw[..]).read_to_end(&mut out);
        out
    } else {
        raw
    }
}

fn parse(warc: &[u8]) -> Vec<RawDoc> {
    let reader = from_reader(
        "bench",
        Cursor::new(warc.to_vec()),
        &CrawlOptions::default(),
    )
    .expect("open in-memory crawl");
    reader
        .filter_map(|e| match e {
            Ok(CrawlEvent::Doc(d)) => Some(d),
            _ => None,
        })
        .collect()
}

/// Splits the concatenation at each `WARC/` version line and gzips every
/// piece as its own member.
fn gzip_per_record(warc: &[u8]) -> Vec<u8> {
    let mut starts: Vec<usize> = vec![0];
    let mut i = 1;
    while let Some(k) = memfind(&warc[i..], b"\nWARC/") {
        starts.push(i + k + 1);
        i += k + 2;
    }
    starts.push(warc.len());
    let mut out = Vec::new();
    for w in starts.windows(2) {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(&warc[w[0]..w[1]]).expect("gzip");
        out.extend(enc.finish().expect("gzip"));
    }
    out
}

fn memfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn line(stage: &str, docs: usize, bytes: usize, t: Duration, baseline: Duration) {
    println!(
        "{stage:<42} median {:>9.2} ms  {:>9.0} docs/s  {:>8.1} MB/s  baseline/this = {:.3}",
        t.as_secs_f64() * 1e3,
        docs as f64 / t.as_secs_f64(),
        mb_per_s(bytes, t),
        baseline.as_secs_f64() / t.as_secs_f64()
    );
}

fn main() {
    // `cargo bench` passes `--bench`; ignore arguments.
    let runs: usize = std::env::var("SIEVE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let files = warc_files();
    let mut warc = Vec::new();
    for f in &files {
        let mut bytes = read_decompressed(f);
        if !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        warc.extend(bytes);
    }
    let gz = gzip_per_record(&warc);
    let docs = parse(&warc);
    let n = docs.len();
    let bytes = warc.len();
    println!(
        "input: {} files, {:.2} MB decompressed ({:.2} MB as per-record gzip), {n} HTML docs; median of {runs} runs",
        files.len(),
        bytes as f64 / 1e6,
        gz.len() as f64 / 1e6
    );

    let baseline = median(runs, || warc.clone());
    line(
        "baseline: copy the bytes (memcpy)",
        n,
        bytes,
        baseline,
        baseline,
    );

    let mut total = Duration::ZERO;
    let t = median(runs, || {
        let mut out = Vec::with_capacity(bytes);
        MultiGzDecoder::new(&gz[..])
            .read_to_end(&mut out)
            .expect("gunzip");
        out.len()
    });
    total += t;
    line("gunzip (flate2, per-record gzip)", n, bytes, t, baseline);

    let t = median(runs, || parse(&warc).len());
    total += t;
    line("parse (WARC + HTTP, sieve reader)", n, bytes, t, baseline);

    // Charset decoding includes cleaning for UTF-8 bodies (the cleaner runs
    // inside `decode`); the clean stage below is the cleaner alone.
    let t = median(runs, || {
        docs.iter()
            .map(|d| {
                decode(
                    d.body.clone(),
                    d.http_charset.as_deref(),
                    d.url.as_deref(),
                    CharsetMode::Auto,
                    Counting::Exact,
                )
                .text
                .len()
            })
            .sum::<usize>()
    });
    let copy = median(runs, || {
        docs.iter().map(|d| d.body.clone().len()).sum::<usize>()
    });
    let t = t.saturating_sub(copy);
    total += t;
    line("charset decode (incl. clean)", n, bytes, t, baseline);

    let t = median(runs, || {
        docs.iter()
            .map(|d| {
                let mut b = d.body.clone();
                clean_in_place(&mut b).total()
            })
            .sum::<u64>()
    });
    line(
        "  of which: UTF-8 clean alone",
        n,
        bytes,
        t.saturating_sub(copy),
        baseline,
    );

    let decoded: Vec<(String, Option<String>, String)> = docs
        .iter()
        .map(|d| {
            let dec = decode(
                d.body.clone(),
                d.http_charset.as_deref(),
                d.url.as_deref(),
                CharsetMode::Auto,
                Counting::Exact,
            );
            (d.docid.clone(), d.url.clone(), dec.text)
        })
        .collect();
    let opts = HtmlOptions::default();
    let t = median(runs, || {
        decoded
            .iter()
            .map(|(_, _, text)| extract(text, &opts).body.len())
            .sum::<usize>()
    });
    total += t;
    line("HTML to text", n, bytes, t, baseline);

    let extracted: Vec<IndexDoc> = decoded
        .iter()
        .map(|(docid, url, text)| {
            let x = extract(text, &opts);
            IndexDoc {
                docid: docid.clone(),
                url: url.clone(),
                title: x.title,
                body: x.body,
                source: "bench".into(),
                ..IndexDoc::default()
            }
        })
        .collect();
    let copies = INDEX_DOCS.div_ceil(n.max(1));
    let analyzer = EnglishAnalyzer::new(AnalyzerConfig::default());
    let schema_fields = Fields::from_schema(&build_schema()).expect("fields");
    let analyse = median(runs, || {
        extracted
            .iter()
            .map(|d| d.clone().into_document(&schema_fields, &analyzer).len())
            .sum::<usize>()
    });
    let t = median(runs, || {
        let index = tantivy::Index::create_in_ram(build_schema());
        register_analyzers(&index, AnalyzerConfig::default());
        let fields = Fields::from_schema(&index.schema()).expect("fields");
        let mut writer: tantivy::IndexWriter<sieve_indexer::document::SieveDocument> =
            index.writer_with_num_threads(1, 64 << 20).expect("writer");
        for copy in 0..copies {
            for d in &extracted {
                let mut d = d.clone();
                d.docid = format!("{}-{copy}", d.docid);
                writer
                    .add_document(d.into_document(&fields, &analyzer))
                    .expect("add");
            }
        }
        writer.commit().expect("commit")
    });
    let t = t / copies as u32;
    total += t;
    line("index (analyse + tantivy, 1 thread)", n, bytes, t, baseline);
    line(
        "  of which: analysis (Porter, stopwords)",
        n,
        bytes,
        analyse,
        baseline,
    );
    line(
        "  of which: tantivy add + commit",
        n,
        bytes,
        t.saturating_sub(analyse),
        baseline,
    );
    line("sum of stages", n, bytes, total, baseline);
}
