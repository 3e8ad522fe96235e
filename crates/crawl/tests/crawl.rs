//! Crawl readers over the shared sample data (`SIEVE_SHARED_DATA`), and the
//! `warc` crate measurement (ignored tests).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use sieve_crawl::{self as crawl, CrawlEvent, CrawlOptions};
use sieve_testdata::shared_file;

/// Per-file summary of what our reader produced.
#[derive(Debug, Default)]
struct Summary {
    /// Records (docs + skips).
    records: usize,
    docs: usize,
    docids: Vec<String>,
    skips: BTreeMap<String, usize>,
    anomalies: BTreeMap<String, u64>,
    truncated_docs: usize,
    error: Option<String>,
}

fn summarize(path: &Path) -> Summary {
    let mut s = Summary::default();
    let reader = match crawl::open(path, &CrawlOptions::default()) {
        Ok(r) => r,
        Err(e) => {
            s.error = Some(e.to_string());
            return s;
        }
    };
    let mut last_off = 0u64;
    for ev in reader {
        match ev {
            Ok(CrawlEvent::Doc(d)) => {
                assert!(d.offset >= last_off, "offsets must be monotonic");
                last_off = d.offset;
                s.records += 1;
                s.docs += 1;
                s.truncated_docs += usize::from(d.truncated);
                s.docids.push(d.docid);
            }
            Ok(CrawlEvent::Skip(k)) => {
                assert!(k.offset >= last_off, "offsets must be monotonic");
                last_off = k.offset;
                s.records += 1;
                *s.skips.entry(k.reason.key()).or_default() += 1;
            }
            Ok(CrawlEvent::Anomaly(a)) => {
                *s.anomalies.entry(a.kind.key().to_string()).or_default() += a.bytes.max(1);
            }
            Err(e) => s.error = Some(e.to_string()),
        }
    }
    s
}

/// Decompresses a whole (small) file, tolerating a truncated gzip tail.
fn decompress(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap();
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        let _ = flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out);
        out
    } else {
        raw
    }
}

/// The second, naive reader: counts `WARC-Type:` header lines and collects
/// `WARC-TREC-ID:` values by plain line matching over the decompressed bytes.
fn naive_warc(bytes: &[u8]) -> (usize, Vec<String>) {
    let mut records = 0;
    let mut ids = Vec::new();
    for line in bytes.split(|&b| b == b'\n') {
        if line.starts_with(b"WARC-Type:") {
            records += 1;
        } else if let Some(v) = line.strip_prefix(b"WARC-TREC-ID:") {
            ids.push(String::from_utf8_lossy(v).trim().to_string());
        }
    }
    (records, ids)
}

/// Expected figures per file: (file, records, indexed docs, first docid,
/// last docid, error substring). Records and response counts come from
/// the shared data directory's `SOURCES.md` (warcio 1.8.1 / FastWARC 2.0.1 counts, the
/// lenient splitter for raw ClueWeb09); doc counts are the HTML 2xx responses
/// (SOURCES.md says "all text/html" for the ClueWeb and dolma files; the ukwa
/// figures are ours, checked against the HTTP headers by hand: IAH-urls-wget has
/// 11 HTML responses of which 9 are 3xx redirects).
const WARC_TABLE: &[(&str, usize, usize, &str, &str, &str)] = &[
    ("ccwhirlwind__whirlwind.warc.gz", 4, 1, "", "", ""),
    ("ccwhirlwind__whirlwind.warc.wat.gz", 2, 0, "", "", ""),
    ("ccwhirlwind__whirlwind.warc.wet.gz", 2, 0, "", "", ""),
    (
        "copycat__cw09-en0000-00.warc.gz",
        24,
        23,
        "clueweb09-en0000-00-00000",
        "clueweb09-en0000-00-00022",
        "",
    ),
    (
        "copycat__cw12-0000tw-00.warc.gz",
        4,
        3,
        "clueweb12-0000tw-00-00000",
        "clueweb12-0000tw-00-00002",
        "",
    ),
    ("dolma__sample-0000.warc.gz", 48, 22, "", "", ""),
    ("dolma__sample-0001.warc.gz", 34, 15, "", "", ""),
    (
        "freequery__ClueWeb09_Chinese_Sample.warc",
        101,
        100,
        "clueweb09-zh0020-29-00000",
        "clueweb09-zh0020-29-04344",
        "",
    ),
    (
        "freequery__ClueWeb09_English_Sample.warc",
        101,
        100,
        "clueweb09-en0040-54-00000",
        "clueweb09-en0040-54-00401",
        "",
    ),
    (
        "ClueWeb09_English_Sample_File.warc.gz",
        101,
        100,
        "clueweb09-en0039-05-00000",
        "clueweb09-en0039-05-00683",
        "",
    ),
    ("jwarc__cc.warc.gz", 1, 1, "", "", ""),
    (
        "resiliparse__clipped.warc.gz",
        1,
        1,
        "",
        "",
        "unexpected end of gzip stream",
    ),
    (
        "resiliparse__clueweb-quirk.warc.gz",
        30,
        29,
        "clueweb09-ja0016-50-00000",
        "clueweb09-ja0016-50-00028",
        "",
    ),
    ("resiliparse__warcfile.warc.gz", 50, 16, "", "", ""),
    (
        "ukwa__BL-20140325121225068-00000-32090-opera-8443.warc.gz",
        190,
        36,
        "",
        "",
        "",
    ),
    (
        "ukwa__IAH-20080430204825-00000-blackbook-truncated.warc.gz",
        23,
        2,
        "",
        "",
        "",
    ),
    ("ukwa__IAH-urls-wget.warc.gz", 36, 2, "", "", ""),
];

#[test]
fn shared_warc_table() {
    let Some(root) = shared_file("", "shared WARC table") else {
        return;
    };
    let mut checked = 0;
    for &(file, records, docs, first, last, err) in WARC_TABLE {
        let path = root.join("warc").join(file);
        if !path.exists() {
            eprintln!("SKIPPED: {} absent (set SIEVE_SHARED_DATA)", path.display());
            continue;
        }
        let s = summarize(&path);
        eprintln!(
            "{file}: records {} docs {} truncated {} skips {:?} anomalies {:?} err {:?}",
            s.records, s.docs, s.truncated_docs, s.skips, s.anomalies, s.error
        );
        assert_eq!(s.records, records, "{file}: records");
        assert_eq!(s.docs, docs, "{file}: docs");
        if !first.is_empty() {
            assert_eq!(s.docids.first().map(String::as_str), Some(first), "{file}");
            assert_eq!(s.docids.last().map(String::as_str), Some(last), "{file}");
        }
        let mut uniq = s.docids.clone();
        uniq.sort();
        uniq.dedup();
        assert_eq!(uniq.len(), s.docids.len(), "{file}: duplicate docids");
        match (&s.error, err) {
            (None, "") => {}
            (Some(e), want) if !want.is_empty() => assert!(e.contains(want), "{file}: {e}"),
            (got, want) => panic!("{file}: error {got:?}, expected {want:?}"),
        }
        // second reader: naive line matching over the decompressed bytes
        let (naive_records, naive_ids) = naive_warc(&decompress(&path));
        assert_eq!(s.records, naive_records, "{file}: naive record count");
        if !naive_ids.is_empty() {
            assert_eq!(s.docids, naive_ids, "{file}: docids vs naive reader");
        }
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn shared_trec_table() {
    let Some(root) = shared_file("", "shared TREC table") else {
        return;
    };
    for (file, docs, first, last) in [
        ("cacm/cacm.derived.trec", 3204, "CACM-0001", "CACM-3204"),
        ("trecweb-wt10g/wt10g-sample-B01", 262, "WTX001-B01-1", ""),
        ("trecweb-wt10g/wt10g-sample-B02", 401, "", ""),
        ("trecweb-wt10g/wt10g-sample-B03", 366, "", ""),
    ] {
        let path = root.join(file);
        if !path.exists() {
            eprintln!("SKIPPED: {} absent (set SIEVE_SHARED_DATA)", path.display());
            continue;
        }
        let s = summarize(&path);
        eprintln!(
            "{file}: docs {} anomalies {:?} err {:?}",
            s.docs, s.anomalies, s.error
        );
        assert_eq!(
            (s.records, s.docs, s.error.as_deref()),
            (docs, docs, None),
            "{file}"
        );
        if !first.is_empty() {
            assert_eq!(s.docids[0], first);
        }
        if !last.is_empty() {
            assert_eq!(s.docids.last().unwrap(), last);
        }
        // second reader: `<DOCNO>` count
        let bytes = std::fs::read(&path).unwrap();
        let naive = memchr::memmem::find_iter(&bytes, b"<DOCNO>").count();
        assert_eq!(naive, docs, "{file}: naive DOCNO count");
    }
    // WT10g: URL from DOCHDR and HTTP content type
    let path = root.join("trecweb-wt10g/wt10g-sample-B01");
    if path.exists() {
        let mut with_url = 0;
        let mut html = 0;
        for ev in crawl::open(&path, &CrawlOptions::default()).unwrap() {
            if let CrawlEvent::Doc(d) = ev.unwrap() {
                with_url += usize::from(d.url.as_deref().is_some_and(|u| u.starts_with("http://")));
                html += usize::from(d.content_type.as_deref() == Some("text/html"));
            }
        }
        assert_eq!(with_url, 262);
        assert!(html > 200, "{html}");
    }
}

/// Measures the `warc` crate (0.4) against our reader on every shared WARC
/// file: `cargo test -p sieve-ingest --test crawl -- --ignored warc_crate --nocapture`.
#[test]
#[ignore = "measurement; prints a table"]
fn warc_crate_measurement() {
    let Some(root) = shared_file("", "warc crate measurement") else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(root.join("warc"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_none_or(|e| e != "tsv"))
        .collect();
    files.sort();
    println!(
        "| file | ours: records | ours: docs | warc 0.4 raw: records | warc 0.4 raw: error | warc 0.4 records: records | warc 0.4 records: error |"
    );
    println!("|---|---|---|---|---|---|---|");
    for f in files {
        let s = summarize(&f);
        let bytes = decompress(&f);
        let reader = || warc::WarcReader::new(std::io::BufReader::new(&bytes[..]));
        let (raw_n, raw_err) = count_until_error(reader().iter_raw_records());
        let (rec_n, rec_err) = count_until_error(reader().iter_records());
        let short = |e: &str| e.chars().take(60).collect::<String>().replace('|', "/");
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            f.file_name().unwrap().to_string_lossy(),
            s.records,
            s.docs,
            raw_n,
            short(&raw_err),
            rec_n,
            short(&rec_err)
        );
    }
}

/// Items of `it` read before its first error (at most 100,000), and that
/// error's text (empty if none).
fn count_until_error<T, E: std::fmt::Display>(
    it: impl Iterator<Item = Result<T, E>>,
) -> (usize, String) {
    let mut n = 0;
    for item in it.take(100_000) {
        match item {
            Ok(_) => n += 1,
            Err(e) => return (n, e.to_string()),
        }
    }
    (n, String::new())
}

/// CPU seconds (user + system) of the calling thread, from
/// `/proc/thread-self/stat` (Linux; 0 elsewhere). Used so throughput figures
/// are not skewed by other processes on a shared machine.
fn thread_cpu_secs() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/thread-self/stat") else {
        return 0.0;
    };
    let after = &stat[stat.rfind(')').map_or(0, |i| i + 2)..];
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap_or(0.0) + f[12].parse::<f64>().unwrap_or(0.0);
    ticks / 100.0
}

/// Throughput of our reader (run with `--release`): reads each of the
/// largest shared files `SIEVE_BENCH_REPEAT` times (default 20) from memory.
#[test]
#[ignore = "measurement; run in release"]
fn throughput() {
    let Some(root) = shared_file("", "reader throughput") else {
        return;
    };
    let repeat: usize = std::env::var("SIEVE_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    for file in [
        "warc/freequery__ClueWeb09_Chinese_Sample.warc",
        "warc/freequery__ClueWeb09_English_Sample.warc",
        "warc/resiliparse__warcfile.warc.gz",
        "trecweb-wt10g/wt10g-sample-B03",
        "cacm/cacm.derived.trec",
    ] {
        let path = root.join(file);
        if !path.exists() {
            continue;
        }
        let raw = std::fs::read(&path).unwrap();
        let decompressed = decompress(&path).len();
        let t = std::time::Instant::now();
        let cpu0 = thread_cpu_secs();
        let mut recs = 0usize;
        for _ in 0..repeat {
            let r = crawl::from_reader(
                file,
                std::io::Cursor::new(raw.clone()),
                &CrawlOptions::default(),
            )
            .unwrap();
            for ev in r {
                if !matches!(ev.unwrap(), CrawlEvent::Anomaly(_)) {
                    recs += 1;
                }
            }
        }
        let secs = t.elapsed().as_secs_f64();
        let cpu = thread_cpu_secs() - cpu0;
        let mb = (decompressed * repeat) as f64 / 1e6;
        let mut line = format!(
            "{file}: ours {:.0} records/s, {:.1} MB/s (decompressed) wall; {:.0} records/CPU-s, {:.1} MB/CPU-s",
            recs as f64 / secs,
            mb / secs,
            recs as f64 / cpu,
            mb / cpu
        );
        if file.contains("warcfile") {
            // the warc crate reads this file; compare on the same decompressed bytes
            let bytes = decompress(&path);
            let c = thread_cpu_secs();
            let mut n = 0usize;
            for _ in 0..repeat {
                let r = warc::WarcReader::new(std::io::BufReader::new(&bytes[..]));
                n += r.iter_records().filter(Result::is_ok).count();
            }
            let s2 = thread_cpu_secs() - c;
            let c = thread_cpu_secs();
            let mut m = 0usize;
            for _ in 0..repeat {
                let r = crawl::from_reader(
                    file,
                    std::io::Cursor::new(bytes.clone()),
                    &CrawlOptions::default(),
                )
                .unwrap();
                m += r
                    .filter(|e| !matches!(e, Ok(CrawlEvent::Anomaly(_))))
                    .count();
            }
            let s3 = thread_cpu_secs() - c;
            line += &format!(
                "; plain bytes: ours {:.1} MB/CPU-s ({m} records), warc 0.4 {:.1} MB/CPU-s ({n} records)",
                (bytes.len() * repeat) as f64 / 1e6 / s3,
                (bytes.len() * repeat) as f64 / 1e6 / s2
            );
        }
        println!("{line}");
    }
}
