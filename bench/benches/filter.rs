//! Filter-file build speed, in spam-ranking lines per second.
//!
//! Input: a MADE-UP Waterloo-format spam ranking (`percentile docid`) of
//! `SIEVE_BENCH_SPAM_LINES` lines (default 5,000,000) with ClueWeb09-shaped
//! docids, written once under `target/bench-data/spam-N/`:
//!
//! * `sorted.txt`: one file sorted by docid, as the ClueWeb09 rankings are;
//! * `unsorted/part-NNN.txt`: the same lines shuffled over 8 files, as the
//!   358 ClueWeb12 files are (this takes the external-sort path:
//!   `RUN_LINES` = 2,000,000 entries per spilled run).
//!
//! Measured (median of `SIEVE_BENCH_RUNS`, default 3):
//!
//! * baseline: reading the sorted file's lines (`BufRead::read_until`), the
//!   floor any reader pays;
//! * `spamfile::build_spam_map` on the sorted file and on the unsorted parts;
//! * `filterbuild::build_filter` from the spam map with `--min-spam-percentile 70`
//!   (two passes over the map, writes the smaller list as an FST set).
//!
//! `cargo bench -p sieve-bench --bench filter`
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sieve_filters::docfilter::Thresholds;
use sieve_ingest::filterbuild::{FilterSpec, build_filter};
use sieve_ingest::spamfile::{build_spam_map, open_spam_map};

fn lcg(x: &mut u64) -> u64 {
    *x = x
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *x >> 33
}

fn docid(i: usize) -> String {
    // 40,000 records per file, 100 files per directory, as in ClueWeb09.
    format!(
        "clueweb09-en{:04}-{:02}-{:05}",
        i / 4_000_000,
        (i / 40_000) % 100,
        i % 40_000
    )
}

fn write_inputs(dir: &Path, lines: usize) -> (PathBuf, Vec<PathBuf>) {
    let sorted = dir.join("sorted.txt");
    let parts: Vec<PathBuf> = (0..8)
        .map(|k| dir.join(format!("unsorted/part-{k:03}.txt")))
        .collect();
    if sorted.exists() && parts.iter().all(|p| p.exists()) {
        return (sorted, parts);
    }
    std::fs::create_dir_all(dir.join("unsorted")).expect("bench dir");
    let mut seed = 7u64;
    let mut all: Vec<String> = (0..lines)
        .map(|i| format!("{} {}\n", lcg(&mut seed) % 100, docid(i)))
        .collect();
    let mut w = BufWriter::new(File::create(&sorted).expect("create"));
    for l in &all {
        w.write_all(l.as_bytes()).expect("write");
    }
    w.flush().expect("flush");
    // Fisher–Yates with the same generator.
    for i in (1..all.len()).rev() {
        let j = (lcg(&mut seed) as usize) % (i + 1);
        all.swap(i, j);
    }
    let per = all.len().div_ceil(parts.len());
    for (p, chunk) in parts.iter().zip(all.chunks(per)) {
        let mut w = BufWriter::new(File::create(p).expect("create"));
        for l in chunk {
            w.write_all(l.as_bytes()).expect("write");
        }
        w.flush().expect("flush");
    }
    (sorted, parts)
}

fn line(name: &str, lines: usize, t: Duration, baseline: Duration) {
    println!(
        "{name:<48} median {:>8.3} s  {:>12.0} lines/s  baseline/this = {:.3}",
        t.as_secs_f64(),
        lines as f64 / t.as_secs_f64(),
        baseline.as_secs_f64() / t.as_secs_f64()
    );
}

fn main() {
    let lines: usize = std::env::var("SIEVE_BENCH_SPAM_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000_000);
    let runs: usize = std::env::var("SIEVE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../target/bench-data/spam-{lines}"));
    let (sorted, parts) = write_inputs(&dir, lines);
    let bytes = std::fs::metadata(&sorted).expect("size").len();
    println!(
        "input: {lines} MADE-UP spam lines, {:.1} MB; median of {runs} runs",
        bytes as f64 / 1e6
    );
    let work = dir.join("work");
    std::fs::create_dir_all(&work).expect("work dir");

    let baseline = sieve_bench::median(runs, || {
        let mut r = BufReader::with_capacity(1 << 20, File::open(&sorted).expect("open"));
        let mut buf = Vec::new();
        let mut n = 0usize;
        while r.read_until(b'\n', &mut buf).expect("read") > 0 {
            n += 1;
            buf.clear();
        }
        n
    });
    line("baseline: read lines", lines, baseline, baseline);

    let map = work.join("spam.fst");
    let t_map = sieve_bench::median(runs, || {
        let s = build_spam_map(std::slice::from_ref(&sorted), &map, &work).expect("build");
        assert_eq!(s.runs, 0, "sorted input must not spill");
        s.docids
    });
    line(
        "spam map, sorted input (ClueWeb09 shape)",
        lines,
        t_map,
        baseline,
    );

    let map2 = work.join("spam-unsorted.fst");
    let t = sieve_bench::median(runs, || {
        build_spam_map(&parts, &map2, &work).expect("build").runs
    });
    line(
        "spam map, 8 unsorted files (external sort)",
        lines,
        t,
        baseline,
    );
    assert_eq!(
        std::fs::read(&map).expect("map"),
        std::fs::read(&map2).expect("map2"),
        "sorted and unsorted inputs must give the same map"
    );

    let spam = open_spam_map(&map).expect("open map");
    let out = work.join("filter.fst");
    let t = sieve_bench::median(runs, || {
        let spec = FilterSpec {
            thresholds: Thresholds {
                min_spam_percentile: Some(70),
                ..Thresholds::default()
            },
            spam: Some(&spam),
            stats: None,
            store: None,
            sources: vec!["made-up".into()],
        };
        build_filter(&spec, &out).expect("filter")
    });
    line(
        "filter file from the map, --min-spam-percentile 70",
        lines,
        t,
        baseline,
    );
    line(
        "end to end: sorted map + filter file",
        lines,
        t_map + t,
        baseline,
    );
}
