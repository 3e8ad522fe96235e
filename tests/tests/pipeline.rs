//! `sieve-index build`, `sieve-search run`, `sieve-filter build`: end to end
//! on the committed fixtures (and on CACM from the shared data).

use std::path::{Path, PathBuf};

use sieve_tests::{Dir, fails, fixture, ok, sieve_test};

const TOPICS: &str = "1:web page\n2:computer program\n3:news from the world\n4:information retrieval\n5:home\n6:university research\n";

/// The committed WARC fixtures (not the fuzz-derived corrupt file beside them).
fn warc_glob() -> String {
    format!("{}/*.warc.gz", fixture("warc").display())
}

fn build(dir: &Dir, index: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(index);
    ok(dir
        .cmd("sieve-index")
        .arg("build")
        .arg("--input")
        .arg(warc_glob())
        .arg(fixture("trec"))
        .arg("--index")
        .arg(&out)
        .args(extra));
    out
}

fn run(dir: &Dir, indexes: &[&Path], extra: &[&str]) -> String {
    let topics = dir.write("topics.txt", TOPICS.as_bytes());
    let mut cmd = dir.cmd("sieve-search");
    cmd.arg("run");
    for i in indexes {
        cmd.arg("--index").arg(i);
    }
    ok(cmd
        .arg("--topics")
        .arg(topics)
        .args(["--hits", "20"])
        .args(extra))
}

fn stats_without_timing(index: &Path) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(index.join("stats.json")).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("seconds");
    v
}

fn docids(dir: &Dir, index: &Path) -> String {
    ok(dir
        .cmd("sieve-index")
        .arg("docids")
        .arg("--index")
        .arg(index))
}

sieve_test!(build_is_deterministic_across_thread_counts, |dir| {
    let a = build(&dir, "t1", &["--threads", "1"]);
    let b = build(&dir, "t2", &["--threads", "2"]);
    let sa = stats_without_timing(&a);
    assert_eq!(sa, stats_without_timing(&b));
    assert_eq!(sa["totals"]["indexed"], 49, "{sa}");
    assert_eq!(docids(&dir, &a), docids(&dir, &b));
    let ra = run(&dir, &[&a], &[]);
    assert!(ra.lines().count() > 20, "{ra}");
    assert_eq!(ra, run(&dir, &[&b], &[]));
    // Nothing lost silently: every skipped record, anomaly and cap hit is in
    // losses.jsonl.
    let losses = std::fs::read_to_string(a.join("losses.jsonl")).unwrap();
    let skipped: u64 = sa["totals"]["skipped"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    let anomalies: u64 = sa["totals"]["anomalies"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    let caps: u64 = sa["totals"]["caps"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(losses.lines().count() as u64, skipped + anomalies + caps);
    // The truncated gzip is named, but it was partly read, so exit code 0.
    assert_eq!(sa["failed_files"].as_array().unwrap().len(), 1);
});

sieve_test!(existing_index_needs_resume_and_bad_input_is_named, |dir| {
    let a = build(&dir, "ix", &[]);
    let out = fails(
        dir.cmd("sieve-index")
            .args(["build", "--input"])
            .arg(fixture("trec"))
            .arg("--index")
            .arg(&a),
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume"));
    let out =
        fails(
            dir.cmd("sieve-index")
                .args(["build", "--input", "no/such/file", "--index", "x"]),
        );
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file"));
    // A file that cannot be read at all: exit code 2, file named.
    let junk = dir.write("junk.bin", b"\x00\x01 not a crawl at all");
    let out = fails(
        dir.cmd("sieve-index")
            .args(["build", "--input"])
            .arg(&junk)
            .arg("--index")
            .arg(dir.join("j")),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("junk.bin"));
});

sieve_test!(resume_after_kill_indexes_every_document_once, |dir| {
    let whole = build(&dir, "whole", &["--threads", "1"]);
    let want_ids = docids(&dir, &whole);
    let want_run = run(&dir, &[&whole], &[]);
    for (i, delay_ms) in [0u64, 30, 80, 150, 300].into_iter().enumerate() {
        let ix = dir.join(&format!("killed{i}"));
        let mut child = dir
            .cmd("sieve-index")
            .arg("build")
            .arg("--input")
            .arg(warc_glob())
            .arg(fixture("trec"))
            .arg("--index")
            .arg(&ix)
            .args(["--threads", "1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        ok(dir
            .cmd("sieve-index")
            .arg("build")
            .arg("--input")
            .arg(warc_glob())
            .arg(fixture("trec"))
            .arg("--index")
            .arg(&ix)
            .args(["--threads", "1", "--resume"]));
        assert_eq!(docids(&dir, &ix), want_ids, "delay {delay_ms} ms");
        assert_eq!(run(&dir, &[&ix], &[]), want_run, "delay {delay_ms} ms");
        assert_eq!(stats_without_timing(&ix), stats_without_timing(&whole));
    }
    // Resuming with different options is refused.
    let out = fails(
        dir.cmd("sieve-index")
            .arg("build")
            .arg("--input")
            .arg(warc_glob())
            .arg(fixture("trec"))
            .arg("--index")
            .arg(&whole)
            .args(["--resume", "--charset", "utf8"]),
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("different options"));
});

/// Replaces each line's tag so that runs from different commands compare.
fn untagged(run: &str) -> Vec<(String, String, String)> {
    run.lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[2].to_string(), f[3].to_string())
        })
        .collect()
}

fn scores(run: &str) -> Vec<f64> {
    run.lines()
        .map(|l| l.split_whitespace().nth(4).unwrap().parse().unwrap())
        .collect()
}

sieve_test!(query_time_filter_equals_index_time_filter, |dir| {
    // Spam scores are MADE UP (tests/data/SOURCES.md).
    let spam = fixture("spam/made-up-spam.txt");
    let full = build(&dir, "full", &["--spam", spam.to_str().unwrap()]);
    let filter = dir.join("f.flt");
    ok(dir
        .cmd("sieve-filter")
        .arg("build")
        .arg("--stats")
        .arg(&full)
        .args([
            "--min-percentile",
            "50",
            "--max-invalid-456-per-kb",
            "0.001",
        ])
        .arg("--out")
        .arg(&filter));
    let filtered = build(&dir, "filtered", &["--filter", filter.to_str().unwrap()]);
    let st = stats_without_timing(&filtered);
    assert!(
        st["totals"]["skipped"]["filtered"].as_u64().unwrap() > 0,
        "{st}"
    );
    let at_index = run(&dir, &[&filtered], &[]);
    let at_query = run(
        &dir,
        &[&full],
        &["--filter", filter.to_str().unwrap(), "--stats", "filtered"],
    );
    assert!(!at_index.is_empty());
    assert_eq!(untagged(&at_query), untagged(&at_index));
    for (a, b) in scores(&at_query).iter().zip(scores(&at_index)) {
        assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
    }
    // The same cut by spam percentile alone, from the fast field.
    let f50 = dir.join("s50.flt");
    ok(dir
        .cmd("sieve-filter")
        .arg("build")
        .arg("--stats")
        .arg(&full)
        .args(["--min-percentile", "50"])
        .arg("--out")
        .arg(&f50));
    let by_file = run(
        &dir,
        &[&full],
        &["--filter", f50.to_str().unwrap(), "--stats", "filtered"],
    );
    let by_field = run(
        &dir,
        &[&full],
        &["--min-spam-percentile", "50", "--stats", "filtered"],
    );
    assert_eq!(untagged(&by_file), untagged(&by_field));
    // Full statistics give other scores than filtered ones (same documents).
    let full_stats = run(&dir, &[&full], &["--min-spam-percentile", "50"]);
    assert_ne!(scores(&full_stats), scores(&by_field));
});

sieve_test!(threshold_lists_write_one_run_each, |dir| {
    let spam = fixture("spam/made-up-spam.txt");
    let full = build(&dir, "full", &["--spam", spam.to_str().unwrap()]);
    let out = dir.join("runs");
    run(
        &dir,
        &[&full],
        &[
            "--min-spam-percentile",
            "50,70",
            "--k1",
            "0.9,1.2",
            "--output-dir",
            out.to_str().unwrap(),
        ],
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "sieve_k1-0.9_b-0.4_spam50.run",
            "sieve_k1-0.9_b-0.4_spam70.run",
            "sieve_k1-1.2_b-0.4_spam50.run",
            "sieve_k1-1.2_b-0.4_spam70.run"
        ]
    );
    let single = run(
        &dir,
        &[&full],
        &["--min-spam-percentile", "70", "--k1", "1.2"],
    );
    let multi = std::fs::read_to_string(out.join("sieve_k1-1.2_b-0.4_spam70.run")).unwrap();
    assert_eq!(untagged(&single), untagged(&multi));
    assert_eq!(scores(&single), scores(&multi));
});

sieve_test!(cacm_bm25_matches_anserini, |dir| {
    // Committed copies: the documents (gzipped TREC), topics and qrels.
    let ix = dir.join("cacm");
    ok(dir
        .cmd("sieve-index")
        .arg("build")
        .arg("--input")
        .arg(fixture("cacm/cacm.trec.gz"))
        .arg("--index")
        .arg(&ix));
    let run_file = dir.join("cacm.run");
    ok(dir
        .cmd("sieve-search")
        .arg("run")
        .arg("--index")
        .arg(&ix)
        .arg("--topics")
        .arg(sieve_tests::repo_root().join("topics/topics.cacm.txt"))
        .args(["--k1", "0.9", "--b", "0.4", "--hits", "1000", "--output"])
        .arg(&run_file));
    let eval = ok(dir
        .cmd("sieve-search")
        .args(["eval", "--json", "--qrels"])
        .arg(fixture("eval/qrels.cacm.txt"))
        .arg(&run_file));
    let v: serde_json::Value = serde_json::from_str(&eval).unwrap();
    let m = &v[0]["mean"];
    let map = m["map"].as_f64().unwrap_or_else(|| panic!("{v}"));
    let p30 = m["P_30"].as_f64().unwrap();
    eprintln!("CACM BM25 k1=0.9 b=0.4: MAP {map:.4} P@30 {p30:.4} (Anserini 0.3123 / 0.1942)");
    assert!((map - 0.3123).abs() <= 0.005, "MAP {map}");
    assert!((p30 - 0.1942).abs() <= 0.005, "P@30 {p30}");
});

sieve_test!(
    shards_with_global_stats_and_merged_shards_equal_one_index,
    |dir| {
        let single = build(&dir, "single", &[]);
        let want = run(&dir, &[&single], &[]);
        // One shard per input file, as a Spark task would build them; the
        // second attempt at a shard is harmless.
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(fixture("warc"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
            .collect();
        inputs.push(fixture("trec/cacm-first5.trec"));
        inputs.sort();
        let mut shards = Vec::new();
        for (i, input) in inputs.iter().enumerate() {
            let out = dir.join(&format!("shards/s{i}"));
            for attempt in 0..2 {
                let line = ok(dir
                    .cmd("sieve-index")
                    .args(["build-shard", "--record", "--input"])
                    .arg(input)
                    .arg("--index")
                    .arg(&out));
                let rec: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
                assert_eq!(rec["built"], attempt == 0, "{rec}");
            }
            shards.push(out);
        }
        let refs: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
        let sharded = run(&dir, &refs, &[]);
        assert_eq!(untagged(&sharded), untagged(&want));
        for (a, b) in scores(&sharded).iter().zip(scores(&want)) {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
        }
        let merged = dir.join("merged");
        let mut cmd = dir.cmd("sieve-index");
        cmd.args(["merge", "--out"]).arg(&merged).arg("--shards");
        for s in &shards {
            cmd.arg(s);
        }
        ok(&mut cmd);
        assert_eq!(docids(&dir, &merged), docids(&dir, &single));
        let m = run(&dir, &[&merged], &[]);
        assert_eq!(untagged(&m), untagged(&want));
    }
);

sieve_test!(
    report_writes_table1_figure5_and_tests_from_fast_fields,
    |dir| {
        // Spam scores are MADE UP (tests/data/SOURCES.md).
        let spam = fixture("spam/made-up-spam.txt");
        let ix = build(&dir, "ix", &["--spam", spam.to_str().unwrap()]);
        let out = dir.join("report");
        let said = ok(dir
            .cmd("sieve-index")
            .args(["report", "--atire-counts", "--index"])
            .arg(&ix)
            .arg("--out")
            .arg(&out));
        assert!(said.contains("49 docs (4 without a spam score)"), "{said}");
        let stats = stats_without_timing(&ix);
        let table = std::fs::read_to_string(out.join("table1.tsv")).unwrap();
        // Table 1 agrees with the builder's own totals, class by class.
        for (key, label) in [
            ("missing_continuation", "Not enough continuation bytes"),
            ("unexpected_continuation", "Unexpected continuation bytes"),
        ] {
            let occ = stats["totals"]["utf8_errors"][key].as_u64().unwrap();
            let docs = stats["totals"]["utf8_docs"][key].as_u64().unwrap();
            let line = table
                .lines()
                .find(|l| l.contains(label))
                .unwrap_or_else(|| panic!("{table}"));
            assert!(
                line.contains(&format!("\t{occ}\t{docs}\t")),
                "{line} vs {occ}/{docs}"
            );
        }
        let svg = std::fs::read_to_string(out.join("figure5.svg")).unwrap();
        assert!(svg.trim_start().starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        for f in [
            "by-percentile.tsv",
            "significance.tsv",
            "charsets.tsv",
            "table1.md",
        ] {
            assert!(out.join(f).is_file(), "{f}");
        }
    }
);
