//! Per-stage throughput of the indexing pipeline: docs/s and MB/s
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
//! **JSON lines**: the same documents written as Anserini's
//! `JsonCollection` would hold them (`{"id": ..., "contents": title, blank
//! line, text}`, one per line, gzipped as one stream like a ClueWeb22 `txt`
//! file or a BEIR corpus), then gunzip, parse (sieve's JSON lines reader),
//! clean (UTF-8, the format fixes the charset), text (plain text) and index
//! stages as above; MB/s there is over the decompressed JSON bytes. The last
//! lines compare the two inputs per byte (MB/s of their own decompressed
//! bytes) and per document.
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
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_bench::{mb_per_s, median};
use sieve_crawl::{CrawlEvent, CrawlOptions, RawDoc, from_reader};
use sieve_filters::utf8::{Counting, clean_in_place};
use sieve_format::document::IndexDoc;
use sieve_format::schema::{Fields, build_schema, register_analyzers};
use sieve_text::charset::{CharsetMode, decode, decode_utf8};
use sieve_text::html::{HtmlOptions, extract, plain_text};

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
    let dir = match sieve_testdata::shared_file("", "stage bench: shared WARC samples") {
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

/// `s` as a JSON string (quotes, backslashes and control characters
/// escaped).
fn json_string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            c if (c as u32) < 0x20 => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
            }
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
    out.push(b'"');
}

/// Indexes `docs` `copies` times into a fresh in-RAM index (one commit).
fn index_docs(docs: &[IndexDoc], copies: usize, analyzer: &EnglishAnalyzer) -> u64 {
    let index = tantivy::Index::create_in_ram(build_schema());
    register_analyzers(&index, AnalyzerConfig::default());
    let fields = Fields::from_schema(&index.schema()).expect("fields");
    let mut writer: tantivy::IndexWriter<sieve_format::document::SieveDocument> =
        index.writer_with_num_threads(1, 64 << 20).expect("writer");
    for copy in 0..copies {
        for d in docs {
            let mut d = d.clone();
            d.docid = format!("{}-{copy}", d.docid);
            writer
                .add_document(d.into_document(&fields, analyzer))
                .expect("add");
        }
    }
    writer.commit().expect("commit")
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
    let t = median(runs, || index_docs(&extracted, copies, &analyzer));
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
    let warc_total = total;

    // ---- JSON lines: the same documents, as Anserini's JsonCollection.
    let mut jsonl = Vec::new();
    for d in &extracted {
        jsonl.extend_from_slice(b"{\"id\": ");
        json_string(&d.docid, &mut jsonl);
        jsonl.extend_from_slice(b", \"contents\": ");
        json_string(&format!("{}\n\n{}", d.title, d.body), &mut jsonl);
        jsonl.extend_from_slice(b"}\n");
    }
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(&jsonl).expect("gzip");
    let jgz = enc.finish().expect("gzip");
    let jdocs = parse(&jsonl);
    let (jn, jbytes) = (jdocs.len(), jsonl.len());
    println!(
        "JSON lines: {:.2} MB ({:.2} MB as one gzip stream), {jn} docs",
        jbytes as f64 / 1e6,
        jgz.len() as f64 / 1e6
    );
    let jbase = median(runs, || jsonl.clone());
    line(
        "json baseline: copy the bytes (memcpy)",
        jn,
        jbytes,
        jbase,
        jbase,
    );
    let mut jtotal = Duration::ZERO;
    let t = median(runs, || {
        let mut out = Vec::with_capacity(jbytes);
        MultiGzDecoder::new(&jgz[..])
            .read_to_end(&mut out)
            .expect("gunzip");
        out.len()
    });
    jtotal += t;
    line("json gunzip (flate2, one stream)", jn, jbytes, t, jbase);
    let t = median(runs, || parse(&jsonl).len());
    jtotal += t;
    line("json parse (sieve JSON lines reader)", jn, jbytes, t, jbase);
    let jcopy = median(runs, || {
        jdocs.iter().map(|d| d.body.clone().len()).sum::<usize>()
    });
    let t = median(runs, || {
        jdocs
            .iter()
            .map(|d| {
                decode_utf8(d.body.clone(), CharsetMode::Auto, Counting::Exact)
                    .text
                    .len()
            })
            .sum::<usize>()
    })
    .saturating_sub(jcopy);
    jtotal += t;
    line("json clean (UTF-8, decode_utf8)", jn, jbytes, t, jbase);
    let jdecoded: Vec<String> = jdocs
        .iter()
        .map(|d| decode_utf8(d.body.clone(), CharsetMode::Auto, Counting::Exact).text)
        .collect();
    let t = median(runs, || {
        jdecoded
            .iter()
            .map(|text| plain_text(text, &opts).body.len())
            .sum::<usize>()
    });
    jtotal += t;
    line("json text (plain text)", jn, jbytes, t, jbase);
    let jextracted: Vec<IndexDoc> = jdocs
        .iter()
        .zip(&jdecoded)
        .map(|(d, text)| {
            let x = plain_text(text, &opts);
            IndexDoc {
                docid: d.docid.clone(),
                title: x.title,
                body: x.body,
                source: "bench".into(),
                ..IndexDoc::default()
            }
        })
        .collect();
    let jcopies = INDEX_DOCS.div_ceil(jn.max(1));
    let t = median(runs, || index_docs(&jextracted, jcopies, &analyzer)) / jcopies as u32;
    jtotal += t;
    line(
        "json index (analyse + tantivy, 1 thread)",
        jn,
        jbytes,
        t,
        jbase,
    );
    line("json sum of stages", jn, jbytes, jtotal, jbase);
    let (w, j) = (mb_per_s(bytes, warc_total), mb_per_s(jbytes, jtotal));
    let (wd, jd) = (
        n as f64 / warc_total.as_secs_f64(),
        jn as f64 / jtotal.as_secs_f64(),
    );
    println!(
        "per byte of input: JSON lines {j:.1} MB/s, WARC {w:.1} MB/s (JSON/WARC = {:.2}); \
         per document: JSON lines {jd:.0} docs/s, WARC {wd:.0} docs/s (JSON/WARC = {:.2}); \
         reader alone per byte: see the two parse lines",
        j / w,
        jd / wd
    );
}
