//! `sieve-index build`, `sieve-search run`, `sieve-filter build`: end to end
//! on the committed fixtures (the CACM collection too: `tests/data/cacm/cacm.trec.gz`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{Dir, code, fails, fixture, ok, partial};

pub(crate) const TOPICS: &str = "1:web page\n2:computer program\n3:news from the world\n4:information retrieval\n5:home\n6:university research\n";

/// The committed WARC fixtures (not the fuzz-derived corrupt file beside them).
pub(crate) fn warc_glob() -> String {
    format!("{}/*.warc.gz", fixture("warc").display())
}

/// The inputs `build` indexes, one path per file, sorted: one shard each in
/// the scale-out tests.
fn shard_inputs() -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(fixture("warc"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    inputs.push(fixture("trec/cacm-first5.trec"));
    inputs.sort();
    inputs
}

/// The exit code of `build-shard` on one committed input: 3 (part of the
/// input lost) for the truncated gzip, 0 for the others.
fn shard_code(input: &Path) -> i32 {
    if input.ends_with("resiliparse__clipped.warc.gz") {
        3
    } else {
        0
    }
}

/// `sieve-index build` of the committed WARC samples and TREC file into `out`.
pub(crate) fn build_cmd(dir: &Dir, out: &Path) -> Command {
    let mut cmd = dir.cmd("sieve-index");
    cmd.arg("build")
        .arg("--input")
        .arg(warc_glob())
        .arg(fixture("trec"))
        .arg("--index")
        .arg(out);
    cmd
}

pub(crate) fn build(dir: &Dir, index: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(index);
    partial(build_cmd(dir, &out).args(extra));
    out
}

pub(crate) fn run(dir: &Dir, indexes: &[&Path], extra: &[&str]) -> String {
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
    // The time taken, and the seal over the bytes that include it.
    v.as_object_mut().unwrap().remove("seconds");
    v.as_object_mut().unwrap().remove("sieve_seal");
    v
}

pub(crate) fn docids(dir: &Dir, index: &Path) -> String {
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
    // Plus one `file_error` line for the truncated gzip (a file-level loss).
    let file_errors = losses
        .lines()
        .filter(|l| l.contains(r#""reason":"file_error""#))
        .count() as u64;
    assert_eq!(file_errors, 1);
    assert_eq!(
        losses.lines().count() as u64,
        skipped + anomalies + caps + file_errors
    );
    // The truncated gzip is named (and the build exited 3: see `build`).
    assert_eq!(sa["failed_files"].as_array().unwrap().len(), 1);
});

sieve_test!(scan_counts_equal_build_counts, |dir| {
    let index = build(&dir, "idx", &["--threads", "1"]);
    let st = stats_without_timing(&index);
    let scanned = crate::util::json_lines(&partial(
        dir.cmd("sieve-index")
            .arg("scan")
            .arg("--input")
            .arg(warc_glob())
            .arg(fixture("trec")),
    ));
    let files = st["files"].as_array().unwrap();
    assert_eq!(scanned.len(), files.len());
    for (s, f) in scanned.iter().zip(files) {
        for key in ["records", "responses"] {
            assert_eq!(s[key], f[key], "{key} of {}", s["file"]);
        }
        assert!(s["records"].as_u64().unwrap() > 0, "{s}");
        assert!(s["seconds"].as_f64().unwrap() >= 0.0);
    }
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
    // A file that cannot be read at all, and nothing else: exit code 4
    // (done, nothing indexed), file named.
    let junk = dir.write("junk.bin", b"\x00\x01 not a crawl at all");
    let out = fails(
        dir.cmd("sieve-index")
            .args(["build", "--input"])
            .arg(&junk)
            .arg("--index")
            .arg(dir.join("j")),
    );
    assert_eq!(out.status.code(), Some(4));
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
        partial(
            dir.cmd("sieve-index")
                .arg("build")
                .arg("--input")
                .arg(warc_glob())
                .arg(fixture("trec"))
                .arg("--index")
                .arg(&ix)
                .args(["--threads", "1", "--resume"]),
        );
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

sieve_test!(
    regression_resume_after_a_kill_while_the_manifest_was_written,
    |dir| {
        // A build killed between writing its manifest's temporary file and
        // renaming it leaves a directory holding only that file; `--resume`
        // (and a plain build) refused it as somebody else's directory.
        let whole = build(&dir, "whole", &["--threads", "1"]);
        for (name, extra) in [("resumed", &["--resume"][..]), ("again", &[][..])] {
            let ix = dir.join(name);
            std::fs::create_dir(&ix).unwrap();
            std::fs::write(ix.join("sieve.json.tmp"), b"{\"tool\": \"sieve").unwrap();
            partial(build_cmd(&dir, &ix).args(["--threads", "1"]).args(extra));
            assert_eq!(docids(&dir, &ix), docids(&dir, &whole), "{name}");
            assert!(!ix.join("sieve.json.tmp").exists(), "{name}");
        }
        // Anything else beside it is still refused.
        let ix = dir.join("foreign");
        std::fs::create_dir(&ix).unwrap();
        std::fs::write(ix.join("sieve.json.tmp"), b"{").unwrap();
        std::fs::write(ix.join("notes.txt"), b"mine").unwrap();
        let out = fails(build_cmd(&dir, &ix).arg("--resume"));
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory of sieve's"));
        assert_eq!(std::fs::read(ix.join("notes.txt")).unwrap(), b"mine");
    }
);

/// Replaces each line's tag so that runs from different commands compare.
pub(crate) fn untagged(run: &str) -> Vec<(String, String, String)> {
    run.lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[2].to_string(), f[3].to_string())
        })
        .collect()
}

pub(crate) fn scores(run: &str) -> Vec<f64> {
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

sieve_test!(filter_from_stats_tsv_equals_filter_from_index, |dir| {
    // Spam scores are MADE UP (tests/data/SOURCES.md).
    let spam = fixture("spam/made-up-spam.txt");
    let index = build(&dir, "full", &["--spam", spam.to_str().unwrap()]);
    let tsv = ok(dir
        .cmd("sieve-index")
        .args(["docids", "--stats", "--index"])
        .arg(&index));
    let lines: Vec<&str> = tsv.lines().collect();
    assert!(lines[0].starts_with("docid\tbytes\tspam\t"), "{}", lines[0]);
    assert_eq!(lines.len() - 1, docids(&dir, &index).lines().count());
    // Reversed, to show that order does not matter.
    let mut body: Vec<&str> = lines[1..].to_vec();
    body.reverse();
    let tsv_path = dir.write(
        "stats.tsv",
        format!("{}\n{}\n", lines[0], body.join("\n")).as_bytes(),
    );
    let rule = [
        "--min-percentile",
        "50",
        "--max-invalid-456-per-kb",
        "0.001",
    ];
    let mut listed = Vec::new();
    for (name, stats) in [("from-index.flt", &index), ("from-tsv.flt", &tsv_path)] {
        let out = dir.join(name);
        ok(dir
            .cmd("sieve-filter")
            .arg("build")
            .arg("--stats")
            .arg(stats)
            .args(rule)
            .args(["--store", "exclude", "--out"])
            .arg(&out));
        let inspect: serde_json::Value =
            serde_json::from_str(&ok(dir.cmd("sieve-filter").arg("inspect").arg(&out))).unwrap();
        let all_ids: Vec<String> = docids(&dir, &index).lines().map(str::to_string).collect();
        // `contains` exits 4 when some docid is dropped: run it without `ok`.
        let answers = dir
            .cmd("sieve-filter")
            .arg("contains")
            .arg(&out)
            .args(&all_ids)
            .output()
            .unwrap();
        listed.push((
            inspect["counts"].clone(),
            inspect["listed"].clone(),
            String::from_utf8(answers.stdout).unwrap(),
        ));
    }
    assert!(
        listed[0].0["excluded"].as_u64().unwrap() > 0,
        "{:?}",
        listed[0]
    );
    assert!(listed[0].0["kept"].as_u64().unwrap() > 0, "{:?}", listed[0]);
    assert_eq!(listed[0], listed[1]);
    // A rule over a class the TSV lacks is refused, naming the column.
    let narrow = dir.write("narrow.tsv", b"docid\tbytes\nD1\t100\n");
    let e = fails(
        dir.cmd("sieve-filter")
            .arg("build")
            .arg("--stats")
            .arg(&narrow)
            .args(["--max-invalid-456-per-kb", "1", "--out"])
            .arg(dir.join("x.flt")),
    );
    let msg = String::from_utf8_lossy(&e.stderr);
    assert!(
        msg.contains("invalid_4_5_6") && msg.contains("narrow.tsv"),
        "{msg}"
    );
    // A docid listed twice is an error, not a silent double count.
    // Whether the duplicated docid is in the stored list or the other one.
    let dup = dir.write("dup.tsv", b"docid\tbytes\tspam\nD1\t100\t10\nD1\t100\t10\n");
    for store in ["exclude", "keep"] {
        let out = dir.join(&format!("d-{store}.flt"));
        let e = fails(
            dir.cmd("sieve-filter")
                .arg("build")
                .arg("--stats")
                .arg(&dup)
                .args(["--min-percentile", "70", "--store", store, "--out"])
                .arg(&out),
        );
        assert!(
            String::from_utf8_lossy(&e.stderr).contains("more than one line"),
            "--store {store}"
        );
        assert!(!out.exists(), "--store {store}");
    }
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
        .arg(crate::util::repo_root().join("topics/topics.cacm.txt"))
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
        let mut shards = Vec::new();
        for (i, input) in shard_inputs().iter().enumerate() {
            let out = dir.join(&format!("shards/s{i}"));
            for attempt in 0..2 {
                let line = code(
                    dir.cmd("sieve-index")
                        .args(["build-shard", "--record", "--input"])
                        .arg(input)
                        .arg("--index")
                        .arg(&out),
                    shard_code(input),
                );
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
        // One shard holds the truncated gzip: the merge says so (code 3).
        partial(&mut cmd);
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

/// One shard per committed input file, as `scale/spark_build.py` builds them.
fn shard_per_file(dir: &Dir) -> Vec<PathBuf> {
    shard_inputs()
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let out = dir.join(&format!("shards/shard-{i:05}"));
            code(
                dir.cmd("sieve-index")
                    .args(["build-shard", "--input"])
                    .arg(input)
                    .arg("--index")
                    .arg(&out),
                shard_code(input),
            );
            out
        })
        .collect()
}

sieve_test!(
    two_stage_search_stats_then_shard_runs_then_merge_equals_one_index,
    |dir| {
        // What scale/spark_search.py does, without Spark: stage 1 per shard,
        // sum, stage 2 per shard with the global statistics, merge.
        let single = build(&dir, "single", &[]);
        let topics = dir.write("topics.txt", TOPICS.as_bytes());
        let shards = shard_per_file(&dir);
        assert_eq!(shards.len(), 6);
        let mut stats_files = Vec::new();
        for s in &shards {
            let f = s.with_extension("stats.json");
            ok(dir
                .cmd("sieve-search")
                .args(["stats", "--index"])
                .arg(s)
                .arg("--topics")
                .arg(&topics)
                .arg("--output")
                .arg(&f));
            stats_files.push(f);
        }
        let global = dir.join("global.json");
        ok(dir
            .cmd("sieve-search")
            .arg("sum-stats")
            .args(&stats_files)
            .arg("--output")
            .arg(&global));
        let g: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&global).unwrap()).unwrap();
        assert_eq!(g["shards"], 6, "{g}");
        assert_eq!(g["header"]["format"], "sieve-bm25-stats", "{g}");
        // The summed statistics are those of the single index.
        let one = ok(dir
            .cmd("sieve-search")
            .args(["stats", "--index"])
            .arg(&single)
            .arg("--topics")
            .arg(&topics));
        let mut one: serde_json::Value = serde_json::from_str(&one).unwrap();
        one["shards"] = 6.into();
        // Each file is sealed over its own bytes (another `shards`, another
        // seal): compare what the seals cover.
        assert!(g["sieve_seal"]["crc32"].is_string(), "{g}");
        let mut g_body = g.clone();
        for v in [&mut one, &mut g_body] {
            v.as_object_mut().unwrap().remove("sieve_seal");
        }
        assert_eq!(one, g_body);

        let search = |index: &Path, hits: usize, extra: &[&str]| {
            ok(dir
                .cmd("sieve-search")
                .args(["run", "--index"])
                .arg(index)
                .arg("--topics")
                .arg(&topics)
                .args(["--hits", &hits.to_string()])
                .args(extra))
        };
        for hits in [3usize, 20] {
            let want = search(&single, hits, &[]);
            let mut runs = Vec::new();
            for s in &shards {
                let r = s.with_extension(format!("{hits}.run"));
                search(
                    s,
                    hits,
                    &[
                        "--global-stats",
                        global.to_str().unwrap(),
                        "--output",
                        r.to_str().unwrap(),
                    ],
                );
                runs.push(r);
            }
            let merged = ok(dir
                .cmd("sieve-search")
                .arg("merge-runs")
                .args(&runs)
                .args(["--hits", &hits.to_string(), "--topics"])
                .arg(&topics));
            assert!(merged.lines().count() >= 3 * 4, "{merged}");
            assert_eq!(untagged(&merged), untagged(&want), "hits {hits}");
            for (a, b) in scores(&merged).iter().zip(scores(&want)) {
                assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
            }
            // Equal statistics give bit-equal scores: the same file.
            assert_eq!(merged, want, "hits {hits}");
            // Each shard alone (its own statistics) ranks differently.
            let local = search(&shards[0], hits, &[]);
            let global_s0 = std::fs::read_to_string(&runs[0]).unwrap();
            assert_ne!(scores(&local), scores(&global_s0));
        }
    }
);

sieve_test!(global_stats_for_another_search_are_refused, |dir| {
    let shards = shard_per_file(&dir);
    let topics = dir.write("topics.txt", TOPICS.as_bytes());
    let stats = |index: &Path, topics: &Path, extra: &[&str], out: &str| {
        let f = dir.join(out);
        ok(dir
            .cmd("sieve-search")
            .args(["stats", "--index"])
            .arg(index)
            .arg("--topics")
            .arg(topics)
            .args(extra)
            .arg("--out")
            .arg(&f));
        f
    };
    let good = stats(&shards[0], &topics, &[], "good.json");
    let refused = |topics: &Path, index: &Path, extra: &[&str], file: &Path| {
        let out = fails(
            dir.cmd("sieve-search")
                .args(["run", "--index"])
                .arg(index)
                .arg("--topics")
                .arg(topics)
                .arg("--global-stats")
                .arg(file)
                .args(extra),
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // Another topic set, another topic field, another index field.
    let other = dir.write("other.txt", b"1:web page\n");
    let e = refused(&other, &shards[0], &[], &good);
    assert!(e.contains("good.json") && e.contains("topics"), "{e}");
    let e = refused(&topics, &shards[0], &["--field", "desc"], &good);
    assert!(e.contains("topic_field"), "{e}");
    let e = refused(&topics, &shards[0], &["--search-field", "title"], &good);
    assert!(e.contains("search_field"), "{e}");
    // Another analyser.
    let nostem = dir.join("nostem");
    ok(dir
        .cmd("sieve-index")
        .args(["build-shard", "--no-stem", "--input"])
        .arg(fixture("warc/jwarc__cc.warc.gz"))
        .arg("--index")
        .arg(&nostem));
    let e = refused(&topics, &nostem, &[], &good);
    assert!(e.contains("stemmer"), "{e}");
    let bad = stats(&nostem, &topics, &[], "nostem.json");
    let out = fails(
        dir.cmd("sieve-search")
            .arg("sum-stats")
            .arg(&good)
            .arg(&bad),
    );
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("nostem.json") && e.contains("stemmer"), "{e}");
    // Statistics of fewer documents than the searched shard holds.
    let tiny = stats(&shards[3], &topics, &[], "tiny.json");
    let e = refused(&topics, &shards[1], &[], &tiny);
    assert!(e.contains("num_docs"), "{e}");
    // Filtered statistics need every shard at hand.
    let e = refused(
        &topics,
        &shards[0],
        &["--min-spam-percentile", "50", "--stats", "filtered"],
        &good,
    );
    assert!(e.contains("stats"), "{e}");
});

/// The CACM collection split into `n` TREC files (document `i` in file
/// `i % n`), each built as a shard with `--docvectors` and the made-up
/// spam scores (`extra`: more `build-shard` flags), in `dir/cacm-shards`.
fn cacm_shards(dir: &Dir, n: usize, extra: &[&str]) -> Vec<PathBuf> {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(fixture("cacm/cacm.trec.gz")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let docs: Vec<&str> = text
        .split("<DOC>")
        .filter(|d| !d.trim().is_empty())
        .collect();
    assert!(docs.len() > 3000, "{} documents", docs.len());
    (0..n)
        .map(|s| {
            let part: String = docs
                .iter()
                .enumerate()
                .filter(|(i, _)| i % n == s)
                .map(|(_, d)| format!("<DOC>{d}"))
                .collect();
            let input = dir.write(&format!("cacm-parts/part-{s}.trec"), part.as_bytes());
            let out = dir.join(&format!("cacm-shards/s{s}"));
            ok(dir
                .cmd("sieve-index")
                .args(["build-shard", "--docvectors", "--input"])
                .arg(&input)
                .arg("--spam")
                .arg(fixture("spam/made-up-cacm-spam.txt"))
                .arg("--index")
                .arg(&out)
                .args(extra));
            out
        })
        .collect()
}

/// The staged feedback protocol over `shards` searched apart, each step a
/// separate process with files in and out (in the test's directory), as
/// `scale/spark_search.py --feedback` runs it.
struct Staged<'a> {
    dir: &'a Dir,
    shards: &'a [PathBuf],
    topics: &'a Path,
}

impl Staged<'_> {
    fn search(&self) -> Command {
        let mut c = self.dir.cmd("sieve-search");
        c.current_dir(self.dir.path());
        c
    }

    /// `global-stats` of every shard (with `extra`), summed into `name`.
    fn stats(&self, name: &str, extra: &[&str]) -> PathBuf {
        let mut parts = Vec::new();
        for (i, s) in self.shards.iter().enumerate() {
            let part = self.dir.join(&format!("{name}.part{i}"));
            ok(self
                .search()
                .args(["global-stats", "--index"])
                .arg(s)
                .arg("--topics")
                .arg(self.topics)
                .args(extra)
                .arg("--output")
                .arg(&part));
            parts.push(part);
        }
        let out = self.dir.join(name);
        ok(self
            .search()
            .arg("sum-stats")
            .args(&parts)
            .arg("--output")
            .arg(&out));
        out
    }

    /// `run` on every shard with `extra`, merged (`merge-runs --hits
    /// hits`, tagged as the shard runs are) into `name`.
    fn run(&self, name: &str, hits: usize, extra: &[&str]) -> PathBuf {
        let mut runs = Vec::new();
        for (i, s) in self.shards.iter().enumerate() {
            let r = self.dir.join(&format!("{name}.shard{i}"));
            ok(self
                .search()
                .args(["run", "--index"])
                .arg(s)
                .arg("--topics")
                .arg(self.topics)
                .args(["--hits", &hits.to_string()])
                .args(extra)
                .arg("--output")
                .arg(&r));
            runs.push(r);
        }
        let tags: std::collections::BTreeSet<String> = runs
            .iter()
            .flat_map(|r| {
                std::fs::read_to_string(r)
                    .unwrap()
                    .lines()
                    .map(|l| l.split(' ').nth(5).unwrap().to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(tags.len() <= 1, "{tags:?}");
        let out = self.dir.join(name);
        ok(self
            .search()
            .arg("merge-runs")
            .args(&runs)
            .args(["--hits", &hits.to_string(), "--topics"])
            .arg(self.topics)
            .args(["--tag", tags.first().map_or("sieve", String::as_str)])
            .arg("--output")
            .arg(&out));
        out
    }

    /// `feedback-vectors` of `run` on each shard (flags `fb`): the parts.
    fn vector_parts(&self, name: &str, run: &Path, fb: &[&str]) -> Vec<PathBuf> {
        self.shards
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let part = self.dir.join(&format!("{name}.part{i}"));
                ok(self
                    .search()
                    .args(["feedback-vectors", "--index"])
                    .arg(s)
                    .arg("--topics")
                    .arg(self.topics)
                    .arg("--run")
                    .arg(run)
                    .args(fb)
                    .arg("--output")
                    .arg(&part));
                part
            })
            .collect()
    }

    /// The whole protocol (`search`: the model and filter flags of both
    /// stages; `fb`: the feedback flags): the final run's text.
    fn protocol(&self, name: &str, search: &[&str], fb: &[&str], hits: usize) -> String {
        let depth = fb
            .windows(2)
            .find(|w| w[0] == "--rerank-cutoff")
            .map_or("50", |w| w[1]);
        let g = self.stats(&format!("{name}.g.json"), &[]);
        let r1 = self.run(
            &format!("{name}.r1.run"),
            depth.parse().unwrap(),
            &[&["--global-stats", g.to_str().unwrap()], search].concat(),
        );
        let parts = self.vector_parts(&format!("{name}.vectors"), &r1, fb);
        let vectors = self.dir.join(&format!("{name}.vectors.jsonl"));
        ok(self
            .search()
            .arg("merge-vectors")
            .args(&parts)
            .arg("--output")
            .arg(&vectors));
        let g2 = self.stats(
            &format!("{name}.g2.json"),
            &["--vocabulary", vectors.to_str().unwrap()],
        );
        let w = self.dir.join(&format!("{name}.queries.jsonl"));
        // The driver's step: no index.
        ok(self
            .search()
            .arg("expand-queries")
            .arg("--topics")
            .arg(self.topics)
            .arg("--run")
            .arg(&r1)
            .arg("--vectors")
            .arg(&vectors)
            .arg("--global-stats")
            .arg(&g2)
            .args(search.iter().take_while(|f| !f.starts_with("--min-spam")))
            .args(fb)
            .arg("--output")
            .arg(&w));
        let fin = self.run(
            &format!("{name}.final.run"),
            hits,
            &[
                &[
                    "--global-stats",
                    g2.to_str().unwrap(),
                    "--weighted-queries",
                    w.to_str().unwrap(),
                ],
                search,
            ]
            .concat(),
        );
        std::fs::read_to_string(fin).unwrap()
    }
}

sieve_test!(
    staged_feedback_over_shards_searched_apart_equals_one_index,
    |dir| {
        // Three CACM shards, each step of the staged protocol a process of
        // its own: every feedback run is the merged index's, byte for byte.
        let shards = cacm_shards(&dir, 3, &[]);
        let merged = dir.join("merged");
        ok(dir
            .cmd("sieve-index")
            .args(["merge", "--index"])
            .arg(&merged)
            .arg("--shards")
            .args(&shards));
        let topics = crate::util::repo_root().join("topics/topics.cacm.txt");
        let staged = Staged {
            dir: &dir,
            shards: &shards,
            topics: &topics,
        };
        let cases: [(&str, &[&str], &[&str]); 6] = [
            ("rm3", &[], &["--feedback", "rm3"]),
            ("bm25prf", &[], &["--feedback", "bm25prf"]),
            (
                "rocchio",
                &[],
                &["--feedback", "rocchio", "--rocchio-use-negative"],
            ),
            ("qld-rm3", &["--model", "qld"], &["--feedback", "rm3"]),
            (
                "rm3-spam",
                &["--min-spam-percentile", "50"],
                &["--feedback", "rm3", "--rerank-cutoff", "20"],
            ),
            (
                "bm25-k1",
                &["--k1", "1.2", "--b", "0.75"],
                &[
                    "--feedback",
                    "rm3",
                    "--rm3-fb-docs",
                    "5",
                    "--rm3-fb-terms",
                    "20",
                ],
            ),
        ];
        for (name, search, fb) in cases {
            let want = ok(dir
                .cmd("sieve-search")
                .arg("run")
                .arg("--index")
                .arg(&merged)
                .arg("--topics")
                .arg(&topics)
                .args(["--hits", "1000"])
                .args(search)
                .args(fb));
            assert!(
                want.lines().count() > 30_000,
                "{name}: {} lines",
                want.lines().count()
            );
            let got = staged.protocol(name, search, fb, 1000);
            assert!(
                got == want,
                "{name}: the staged run differs from the merged index's"
            );
        }
    }
);

sieve_test!(staged_feedback_refuses_files_of_another_search, |dir| {
    let shards = cacm_shards(&dir, 2, &[]);
    let topics_path = crate::util::repo_root().join("topics/topics.cacm.txt");
    let staged = Staged {
        dir: &dir,
        shards: &shards,
        topics: &topics_path,
    };
    let fb = ["--feedback", "rm3"];
    let g = staged.stats("g.json", &[]);
    let r1 = staged.run("r1.run", 50, &["--global-stats", g.to_str().unwrap()]);
    let parts = staged.vector_parts("v", &r1, &fb);
    let stderr = |out: std::process::Output| String::from_utf8_lossy(&out.stderr).into_owned();
    // A part made with another topic file (one topic's text changed).
    let text = std::fs::read_to_string(&topics_path).unwrap();
    let changed = text.replacen("Time Sharing", "Parsing Sharing", 1);
    assert_ne!(changed, text);
    let other_topics = dir.write("other-topics.txt", changed.as_bytes());
    let other = dir.join("v.other");
    ok(staged
        .search()
        .args(["feedback-vectors", "--index"])
        .arg(&shards[1])
        .arg("--topics")
        .arg(&other_topics)
        .arg("--run")
        .arg(&r1)
        .args(fb)
        .arg("--output")
        .arg(&other));
    let e = stderr(fails(
        staged
            .search()
            .arg("merge-vectors")
            .arg(&parts[0])
            .arg(&other)
            .arg("--output")
            .arg(dir.join("never.jsonl")),
    ));
    assert!(e.contains("v.other") && e.contains("topics_digest"), "{e}");
    assert!(!dir.join("never.jsonl").exists());
    // A part of a shard built with another analyser.
    let nostem = dir.join("nostem");
    ok(dir
        .cmd("sieve-index")
        .args(["build-shard", "--no-stem", "--docvectors", "--input"])
        .arg(dir.join("cacm-parts/part-1.trec"))
        .arg("--index")
        .arg(&nostem));
    let nostem_part = dir.join("v.nostem");
    ok(staged
        .search()
        .args(["feedback-vectors", "--index"])
        .arg(&nostem)
        .arg("--topics")
        .arg(&topics_path)
        .arg("--run")
        .arg(&r1)
        .args(fb)
        .arg("--output")
        .arg(&nostem_part));
    let e = stderr(fails(
        staged
            .search()
            .arg("merge-vectors")
            .arg(&parts[0])
            .arg(&nostem_part),
    ));
    assert!(e.contains("v.nostem") && e.contains("stemmer"), "{e}");
    // The same shard's part twice: its documents claimed twice.
    let e = stderr(fails(
        staged
            .search()
            .arg("merge-vectors")
            .arg(&parts[0])
            .arg(&parts[1])
            .arg(dir.join("v.part1")),
    ));
    assert!(e.contains("docid") && e.contains("v.part1"), "{e}");
    // A part left out: a feedback document on no shard is an error naming it.
    let half = dir.join("half.jsonl");
    ok(staged
        .search()
        .arg("merge-vectors")
        .arg(&parts[0])
        .arg("--output")
        .arg(&half));
    let g2_half = staged.stats("g2-half.json", &["--vocabulary", half.to_str().unwrap()]);
    let expand = |vectors: &Path, g2: &Path, topics: &Path, run: &Path| {
        let mut c = staged.search();
        c.arg("expand-queries")
            .arg("--topics")
            .arg(topics)
            .arg("--run")
            .arg(run)
            .arg("--vectors")
            .arg(vectors)
            .arg("--global-stats")
            .arg(g2)
            .args(fb);
        c
    };
    let e = stderr(fails(&mut expand(&half, &g2_half, &topics_path, &r1)));
    assert!(
        e.contains("no shard's part holds it") && e.contains("half.jsonl"),
        "{e}"
    );
    // The whole protocol's files, then each refused where it does not fit.
    let vectors = dir.join("v.jsonl");
    ok(staged
        .search()
        .arg("merge-vectors")
        .args(&parts)
        .arg("--output")
        .arg(&vectors));
    let g2 = staged.stats("g2.json", &["--vocabulary", vectors.to_str().unwrap()]);
    // Statistics of the topic terms only, or of another vocabulary.
    let e = stderr(fails(&mut expand(&vectors, &g, &topics_path, &r1)));
    assert!(e.contains("g.json") && e.contains("vocabulary"), "{e}");
    let e = stderr(fails(&mut expand(&vectors, &g2_half, &topics_path, &r1)));
    assert!(
        e.contains("g2-half.json") && e.contains("vocabulary"),
        "{e}"
    );
    // Another topic file.
    let e = stderr(fails(&mut expand(&vectors, &g2, &other_topics, &r1)));
    assert!(e.contains("v.jsonl") && e.contains("topics_digest"), "{e}");
    // Another first-stage run (another k1: other scores and documents).
    let r1_bm = staged.run(
        "r1-k1.run",
        50,
        &["--global-stats", g.to_str().unwrap(), "--k1", "1.2"],
    );
    let e = stderr(fails(&mut expand(&vectors, &g2, &topics_path, &r1_bm)));
    assert!(e.contains("first_stage"), "{e}");
    // A run with a topic the topic file lacks, named with its line.
    let run_text = std::fs::read_to_string(&r1).unwrap();
    let bad_run = dir.write(
        "bad.run",
        format!("{run_text}999 Q0 CACM-0001 1 1.5 x\n").as_bytes(),
    );
    let e = stderr(fails(&mut expand(&vectors, &g2, &topics_path, &bad_run)));
    let line = run_text.lines().count() + 1;
    assert!(
        e.contains("bad.run") && e.contains(&format!("line {line}")) && e.contains("\"999\""),
        "{e}"
    );
    let w = dir.join("w.jsonl");
    ok(expand(&vectors, &g2, &topics_path, &r1)
        .arg("--output")
        .arg(&w));
    let second = |w: &Path, g: &Path, extra: &[&str]| {
        let mut c = staged.search();
        c.args(["run", "--index"])
            .arg(&shards[0])
            .arg("--topics")
            .arg(&topics_path)
            .arg("--global-stats")
            .arg(g)
            .arg("--weighted-queries")
            .arg(w)
            .args(extra);
        c
    };
    ok(&mut second(&w, &g2, &[]));
    // The statistics of the topic terms alone cannot score the queries.
    let e = stderr(fails(&mut second(&w, &g, &[])));
    assert!(e.contains("g.json") && e.contains("vocabulary"), "{e}");
    // Another first-stage model.
    let e = stderr(fails(&mut second(&w, &g2, &["--model", "qld"])));
    assert!(e.contains("w.jsonl") && e.contains("k1-0.9_b-0.4"), "{e}");
    // With feedback flags.
    let e = stderr(fails(&mut second(&w, &g2, &["--feedback", "rm3"])));
    assert!(e.contains("--feedback"), "{e}");
    // A weighted-queries file of another version.
    let text = std::fs::read_to_string(&w).unwrap();
    let v2 = dir.write(
        "w2.jsonl",
        text.replacen("\"version\":1", "\"version\":2", 1)
            .as_bytes(),
    );
    let e = stderr(fails(&mut second(&v2, &g2, &[])));
    assert!(
        e.contains("w2.jsonl") && e.contains("line 1") && e.contains("version 2"),
        "{e}"
    );
    // A line lost: the count of the header refuses it.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(3);
    let cut = dir.write("cut.jsonl", format!("{}\n", lines.join("\n")).as_bytes());
    let e = stderr(fails(&mut second(&cut, &g2, &[])));
    assert!(e.contains("cut.jsonl") && e.contains("counts"), "{e}");
    // Another topic file.
    let e = stderr(fails(
        staged
            .search()
            .args(["run", "--index"])
            .arg(&shards[0])
            .arg("--topics")
            .arg(&other_topics)
            .arg("--global-stats")
            .arg(&g2)
            .arg("--weighted-queries")
            .arg(&w),
    ));
    assert!(e.contains("w.jsonl") && e.contains("topics_digest"), "{e}");
});
