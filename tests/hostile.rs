//! Hostile input and long jobs: the quarantine, the per-document time
//! budget, cap accounting, and peak memory on a huge record and a gzip bomb.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::util::{Dir, fails, json_lines, ok};

/// One WARC/1.0 response record with an HTTP/1.1 200 head.
fn response(id: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n");
    let mut out = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-TREC-ID: {id}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len() + body.len()
    )
    .into_bytes();
    out.extend_from_slice(http.as_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// A crawl with one of each thing that is not indexed, and record ids that
/// look like paths.
fn hostile_warc() -> Vec<u8> {
    let mut w = Vec::new();
    w.extend_from_slice(b"WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <../../../../etc/passwd>\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n");
    w.extend(response(
        "ok-1",
        "text/html",
        b"<title>kept</title><p>indexed text</p>",
    ));
    w.extend_from_slice(b"garbage between records that is not a header\n");
    w.extend(response(
        "/tmp/evil",
        "image/png",
        b"\x89PNG\r\n\x1a\nnot html",
    ));
    w.extend(response("..", "text/html", b"<script>only script</script>"));
    let mut deep = "<div>".repeat(400).into_bytes();
    deep.extend_from_slice(b"deep text");
    w.extend(response("deep", "text/html", &deep));
    w.extend(response("ok-2", "text/html", b"<p>more indexed text</p>"));
    w
}

fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .unwrap()
}

fn sum(v: &serde_json::Value) -> u64 {
    v.as_object()
        .map_or(0, |o| o.values().map(|x| x.as_u64().unwrap()).sum())
}

/// Quarantine directory contents: sorted (name, bytes).
fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn build_q(dir: &Dir, input: &Path, index: &str, q: &str, extra: &[&str]) -> PathBuf {
    let ix = dir.join(index);
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(input)
        .arg("--index")
        .arg(&ix)
        .arg("--quarantine")
        .arg(dir.join(q))
        .args(extra));
    ix
}

sieve_test!(
    quarantine_names_items_by_ordinal_and_offset_for_any_threads,
    |dir| {
        let input = dir.write("in/a.warc", &hostile_warc());
        let a = build_q(&dir, &input, "ix1", "q1", &["--threads", "1"]);
        let b = build_q(&dir, &input, "ix2", "q2", &["--threads", "2"]);
        let (qa, qb) = (listing(&dir.join("q1")), listing(&dir.join("q2")));
        assert_eq!(qa, qb, "quarantine differs between --threads 1 and 2");

        let stats = read_json(&a.join("stats.json"));
        let t = &stats["totals"];
        assert_eq!(t["indexed"], 3, "{t}"); // ok-1, ok-2, deep (depth-capped)
        let lines = json_lines(&std::fs::read_to_string(dir.join("q1/quarantine.jsonl")).unwrap());
        // Every skipped record, the garbage, and the capped document.
        assert_eq!(t["skipped"]["not_response:warcinfo"], 1, "{t}");
        assert_eq!(t["skipped"]["not_html"], 1, "{t}");
        assert_eq!(t["skipped"]["empty_text"], 1, "{t}");
        assert_eq!(t["caps"]["html_depth"], 1, "{t}");
        assert_eq!(lines.len() as u64, sum(&t["skipped"]) + 1 + 1, "{lines:?}");
        assert_eq!(t["quarantined"], lines.len() as u64);
        let reasons: Vec<&str> = lines
            .iter()
            .map(|l| l["reason"].as_str().unwrap())
            .collect();
        assert_eq!(
            reasons,
            [
                "not_response:warcinfo",
                "resync",
                "not_html",
                "empty_text",
                "cap:html_depth"
            ]
        );
        let warc = hostile_warc();
        for l in &lines {
            let name = l["file"].as_str().unwrap();
            let off = l["offset"].as_u64().unwrap();
            assert_eq!(name, format!("f0000-{off:012}.rec"), "{l}");
            let bytes = std::fs::read(dir.join("q1").join(name)).unwrap();
            assert_eq!(l["bytes"].as_u64().unwrap(), bytes.len() as u64);
            assert_eq!(l["source"].as_str().unwrap(), input.to_str().unwrap());
            match l["content"].as_str().unwrap() {
                // Records and garbage are the input bytes at their offset.
                "record" | "garbage" => {
                    let at = usize::try_from(off).unwrap();
                    assert_eq!(&warc[at..at + bytes.len()], bytes.as_slice(), "{l}");
                }
                "body" => assert!(bytes.starts_with(b"<"), "{l}"),
                other => panic!("content {other}"),
            }
        }
        assert_eq!(lines[0]["record_id"], "../../../../etc/passwd");
        assert!(
            !dir.path().join("etc").exists() && !Path::new("/tmp/evil").exists(),
            "a record id became a path"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join("q1"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o007, 0, "quarantine readable by others: {mode:o}");
        }

        // losses.jsonl: every skip, every anomaly and every cap hit, one line each.
        let losses = json_lines(&std::fs::read_to_string(a.join("losses.jsonl")).unwrap());
        assert_eq!(
            losses.len() as u64,
            sum(&t["skipped"]) + sum(&t["anomalies"]) + sum(&t["caps"])
        );
        assert!(losses.iter().any(|l| l["reason"] == "cap"
            && l["cap"] == "html_depth"
            && l["record_id"] == "deep"
            && l["indexed"] == true));
        // The index does not depend on the quarantine.
        let plain = dir.join("plain");
        ok(dir
            .cmd("sieve-index")
            .args(["build", "--input"])
            .arg(&input)
            .arg("--index")
            .arg(&plain));
        let mut ps = read_json(&plain.join("stats.json"));
        let mut qs = stats.clone();
        for s in [&mut ps, &mut qs] {
            let o = s.as_object_mut().unwrap();
            o.remove("seconds");
            o.remove("sieve_seal");
            o["totals"].as_object_mut().unwrap().remove("quarantined");
            o["files"][0].as_object_mut().unwrap().remove("quarantined");
        }
        assert_eq!(ps, qs);
        let _ = b;
    }
);

sieve_test!(
    quarantine_resume_keeps_the_directory_and_refuses_another,
    |dir| {
        let input = dir.write("in/a.warc", &hostile_warc());
        let ix = build_q(&dir, &input, "ix", "q", &[]);
        let before = listing(&dir.join("q"));
        // A resume of a finished build changes nothing in the quarantine.
        build_q(&dir, &input, "ix", "q", &["--resume"]);
        assert_eq!(listing(&dir.join("q")), before);
        // Another directory (or none) is refused.
        let out = fails(
            dir.cmd("sieve-index")
                .args(["build", "--resume", "--input"])
                .arg(&input)
                .arg("--index")
                .arg(&ix)
                .arg("--quarantine")
                .arg(dir.join("other")),
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("--quarantine"));
        // A new build never mixes into a used quarantine.
        let out = fails(
            dir.cmd("sieve-index")
                .args(["build", "--input"])
                .arg(&input)
                .arg("--index")
                .arg(dir.join("ix-new"))
                .arg("--quarantine")
                .arg(dir.join("q")),
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("already holds a quarantine"));
    }
);

sieve_test!(build_shard_quarantine_goes_under_the_shard_name, |dir| {
    let input = dir.write("in/a.warc", &hostile_warc());
    for _ in 0..2 {
        // The second run finds the shard built and writes nothing.
        ok(dir
            .cmd("sieve-index")
            .args(["build-shard", "--input"])
            .arg(&input)
            .arg("--index")
            .arg(dir.join("shards/s0"))
            .arg("--quarantine")
            .arg(dir.join("q")));
    }
    let names: Vec<String> = std::fs::read_dir(dir.join("q"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["s0"]);
    let lines = json_lines(&std::fs::read_to_string(dir.join("q/s0/quarantine.jsonl")).unwrap());
    assert_eq!(lines.len(), 5);
});

/// A page whose extraction takes far longer than 1 ms in any build: many
/// small tags.
fn slow_page() -> Vec<u8> {
    let mut p = b"<title>slow</title>".to_vec();
    for i in 0..200_000 {
        write!(p, "<span>w{i}</span> ").unwrap();
    }
    p
}

sieve_test!(time_budget_skips_or_truncates_and_is_counted, |dir| {
    let mut w = response("slow", "text/html", &slow_page());
    w.extend(response("fast", "text/html", b"<p>quick</p>"));
    let input = dir.write("in/slow.warc", &w);
    let run = |index: &str, action: &str| {
        let ix = dir.join(index);
        let out = dir
            .cmd("sieve-index")
            .args([
                "build",
                "--threads",
                "1",
                "--max-doc-ms",
                "1",
                "--doc-timeout",
                action,
            ])
            .arg("--input")
            .arg(&input)
            .arg("--index")
            .arg(&ix)
            .output()
            .unwrap();
        let stats = read_json(&ix.join("stats.json"));
        // Exit 4 (an empty index) only when a stall capped both pages.
        let empty = stats["files"][0]["indexed"] == 0;
        assert_eq!(
            out.status.code(),
            Some(if empty { 4 } else { 0 }),
            "{out:?}"
        );
        (
            stats,
            std::fs::read_to_string(ix.join("losses.jsonl")).unwrap(),
        )
    };
    // The slow page always exceeds the budget. The quick one does not,
    // unless a loaded machine stalls the thread for a millisecond (the
    // budget is wall-clock): then it is capped too, and counted as such.
    let (s, losses) = run("skip", "skip");
    let t = &s["files"][0];
    let capped = t["caps"]["time_budget"].as_u64().unwrap();
    assert!((1..=2).contains(&capped), "{t}");
    assert_eq!(t["skipped"]["time_budget"], capped, "{t}");
    assert_eq!(t["indexed"], 2 - capped, "{t}");
    let l = json_lines(&losses);
    assert!(
        l.iter().any(|l| l["cap"] == "time_budget"
            && l["record_id"] == "slow"
            && l["offset"] == 0
            && l["indexed"] == false),
        "{losses}"
    );
    assert_eq!(
        read_json(&dir.join("skip/sieve.json"))["options"]["max_doc_ms"],
        1
    );

    let (s, losses) = run("trunc", "truncate");
    let t = &s["files"][0];
    let capped = t["caps"]["time_budget"].as_u64().unwrap();
    assert!((1..=2).contains(&capped), "{t}");
    assert_eq!(t["indexed"], 2, "{t}");
    assert!(
        json_lines(&losses)
            .iter()
            .any(|l| l["cap"] == "time_budget" && l["indexed"] == true)
    );
});

/// Peak resident set (VmHWM, bytes) of a running child, by polling
/// `/proc/<pid>/status` every 10 ms until it exits (VmHWM is the kernel's
/// high-water mark, so only growth in the last 10 ms before exit could be
/// missed). Returns (output, peak, seconds).
fn run_measuring_rss(cmd: &mut std::process::Command) -> (std::process::Output, u64, f64) {
    let start = Instant::now();
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    loop {
        if let Ok(s) = std::fs::read_to_string(&status_path)
            && let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak_kb = peak_kb.max(kb);
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("output");
    (out, peak_kb * 1024, start.elapsed().as_secs_f64())
}

/// Writes a plain WARC whose one HTML response has a body of `body_mb` MiB
/// (a short page, then an unterminated comment: text extraction is cheap,
/// the bytes still have to be streamed), then a small page.
fn write_big_record(path: &Path, body_mb: usize) {
    let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let head = b"<html><title>big</title><body>";
    let body_len = body_mb << 20;
    let http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
    write!(
        f,
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-TREC-ID: big-200mb\r\nContent-Length: {}\r\n\r\n{http}",
        http.len() + body_len
    )
    .unwrap();
    f.write_all(head).unwrap();
    let para = b"<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>\n";
    let chunk: Vec<u8> = para.iter().copied().cycle().take(1 << 20).collect();
    let mut left = body_len - head.len();
    while left > 0 {
        let n = left.min(chunk.len());
        f.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    f.write_all(b"\r\n\r\n").unwrap();
    f.write_all(&response(
        "after-big",
        "text/html",
        b"<p>after the big one</p>",
    ))
    .unwrap();
    f.flush().unwrap();
}

/// Writes a .warc.gz holding a response header that declares `gb` GiB,
/// then that many zero bytes, as gzip members of 64 MiB of zeros each
/// (about 64 KiB compressed: one is compressed, then written again and
/// again; the reader sees one stream, as for a per-record .warc.gz). The
/// reader must stop at the decompression-ratio cap, not inflate 4 GiB.
fn write_gzip_bomb(path: &Path, gb: u64) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let total = gb << 30;
    let http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    write!(
        gz,
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-TREC-ID: bomb\r\nContent-Length: {}\r\n\r\n{http}",
        http.len() as u64 + total
    )
    .unwrap();
    f.write_all(&gz.finish().unwrap()).unwrap();
    let member = 64u64 << 20;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..(member >> 20) {
        gz.write_all(&zeros).unwrap();
    }
    let zeros_gz = gz.finish().unwrap();
    for _ in 0..total / member {
        f.write_all(&zeros_gz).unwrap();
    }
    f.flush().unwrap();
}

sieve_test!(
    peak_rss_is_bounded_on_a_200mb_record_and_a_gzip_bomb,
    |dir| {
        if !Path::new("/proc/self/status").exists() {
            eprintln!("SKIPPED: peak RSS is read from /proc/<pid>/status (Linux only)");
            return;
        }
        let t0 = Instant::now();
        let big = dir.join("in/a-big.warc");
        std::fs::create_dir_all(big.parent().unwrap()).unwrap();
        write_big_record(&big, 200);
        let bomb = dir.join("in/b-bomb.warc.gz");
        write_gzip_bomb(&bomb, 4);
        let gen_s = t0.elapsed().as_secs_f64();
        let ix = dir.join("ix");
        let (out, peak, secs) = run_measuring_rss(
            dir.cmd("sieve-index")
                .args(["build", "--threads", "2", "--input"])
                .arg(dir.join("in"))
                .arg("--index")
                .arg(&ix),
        );
        // The bomb is cut at the ratio cap: done, part of the input lost (3).
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!(
            "peak RSS {:.1} MiB, build {secs:.1}s (inputs generated in {gen_s:.1}s: {} + {} bytes)",
            peak as f64 / (1 << 20) as f64,
            std::fs::metadata(&big).unwrap().len(),
            std::fs::metadata(&bomb).unwrap().len()
        );
        let s = read_json(&ix.join("stats.json"));
        let (a, b) = (&s["files"][0], &s["files"][1]);
        // The 200 MiB record is cut at the 10 MiB record cap and indexed; the
        // page after it is read normally.
        assert_eq!(a["caps"]["record_bytes"], 1, "{a}");
        assert_eq!(a["indexed"], 2, "{a}");
        assert!(a["error"].is_null(), "{a}");
        // The bomb stops its file at the ratio cap.
        assert_eq!(b["caps"]["decompression_ratio"], 1, "{b}");
        assert!(b["error"].as_str().unwrap().contains("ratio"), "{b}");
        let losses = json_lines(&std::fs::read_to_string(ix.join("losses.jsonl")).unwrap());
        for (file, cap) in [(&big, "record_bytes"), (&bomb, "decompression_ratio")] {
            assert!(
                losses
                    .iter()
                    .any(|l| l["cap"] == cap && l["file"] == file.to_str().unwrap()),
                "{cap} hit not in losses.jsonl: {losses:?}"
            );
        }
        // Memory: the record cap (10 MiB) and the 32 MiB batch bound what is
        // held per record; decoding, extraction and analysis of one capped
        // document add a few copies of it; the tantivy writer allocates its
        // arena as documents arrive. Nothing may scale with the 200 MiB record
        // or the 4 GiB bomb.
        assert!(peak > 0 && peak < 400 << 20, "peak RSS {} MiB", peak >> 20);
    }
);
