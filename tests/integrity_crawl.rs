//! Crawl reading integrity: a damaged gzip member does not lose
//! the rest of the file, and directory inputs are walked once per file
//! (symlink loops, duplicates, FIFOs). Every run has a watchdog, so a
//! regression to a hang fails instead of blocking the suite.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::{Dir, json_lines};

/// Runs `cmd`, killing it (and failing) if it runs longer than 60 s.
fn run_guarded(cmd: &mut Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} still running after 60 s: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
    }
}

fn text(o: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// One WARC/1.0 response record with an HTML body of a few KB.
fn record(i: usize) -> Vec<u8> {
    let mut body = format!("<html><title>page {i}</title><body>");
    let mut x = i as u64 * 2654435761 + 1;
    for _ in 0..400 + 20 * i {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let w: String = (0..3 + (x >> 61) as usize)
            .map(|k| char::from(b'a' + ((x >> ((k * 5 + 7) % 60)) % 26) as u8))
            .collect();
        body.push_str(&w);
        body.push(' ');
    }
    body.push_str("</body></html>");
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
    let mut out = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-TREC-ID: doc-{i:02}\r\nWARC-Target-URI: http://example.org/{i}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    out.extend_from_slice(http.as_bytes());
    out.extend_from_slice(b"\r\n\r\n");
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A per-record gzip WARC of 20 members (doc-01..doc-20) with member 10
/// damaged `how`; returns the file and the compressed start and (damaged)
/// length of member 10.
fn damaged_warc(how: &str) -> (Vec<u8>, u64, u64) {
    let mut file = Vec::new();
    let mut start = 0;
    let mut len = 0;
    for i in 1..=20 {
        let mut m = gzip(&record(i));
        if i == 10 {
            start = file.len() as u64;
            match how {
                "overwritten" => {
                    let mid = m.len() / 2;
                    m[mid..mid + 16].fill(0xA5);
                }
                "truncated" => m.truncate(m.len() / 2),
                "bad_crc" => {
                    let at = m.len() - 8;
                    m[at] ^= 0xFF;
                }
                "bad_magic" => m[..2].copy_from_slice(b"PK"),
                other => panic!("no damage {other}"),
            }
            len = m.len() as u64;
        }
        file.extend(m);
    }
    (file, start, len)
}

fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .unwrap()
}

fn docids(dir: &Dir, index: &Path) -> Vec<String> {
    let out = run_guarded(
        dir.cmd("sieve-index")
            .arg("docids")
            .arg("--index")
            .arg(index),
    );
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn build(dir: &Dir, inputs: &[&Path], index: &str, extra: &[&str]) -> (Output, PathBuf) {
    let idx = dir.join(index);
    let mut cmd = dir.cmd("sieve-index");
    cmd.arg("build").arg("--input").args(inputs);
    let out = run_guarded(cmd.arg("--index").arg(&idx).args(extra));
    (out, idx)
}

sieve_test!(
    regression_corrupt_gzip_member_loses_the_rest_of_the_file,
    |dir| {
        let want: Vec<String> = (1..=20)
            .filter(|&i| i != 10)
            .map(|i| format!("doc-{i:02}"))
            .collect();
        for how in ["overwritten", "truncated", "bad_crc", "bad_magic"] {
            let (file, start, len) = damaged_warc(how);
            let input = dir.write(&format!("{how}/crawl.warc.gz"), &file);
            let q = dir.join(&format!("{how}-q"));
            let (out, idx) = build(
                &dir,
                &[&input],
                &format!("{how}-idx"),
                &["--threads", "1", "--quarantine", q.to_str().unwrap()],
            );
            // Completed with a whole part of a file lost: exit code 3.
            assert_eq!(out.status.code(), Some(3), "{how}: {}", text(&out));
            assert!(
                !String::from_utf8_lossy(&out.stdout).contains("FAILED"),
                "{how}"
            );
            assert_eq!(docids(&dir, &idx), want, "{how}");
            let stats = read_json(&idx.join("stats.json"));
            let f = &stats["files"][0];
            assert!(f["error"].is_null(), "{how}: {f}");
            assert!(stats["totals"]["error"].is_null());
            assert_eq!(f["anomalies"]["gzip_member"], 1, "{how}: {f}");
            assert_eq!(f["gzip_members"][0]["compressed_offset"], start, "{how}");
            assert_eq!(f["gzip_members"][0]["compressed_bytes"], len, "{how}");
            let losses = json_lines(&std::fs::read_to_string(idx.join("losses.jsonl")).unwrap());
            let gz: Vec<_> = losses
                .iter()
                .filter(|l| l["reason"] == "gzip_member")
                .collect();
            assert_eq!(gz.len(), 1, "{how}: {losses:?}");
            assert_eq!(gz[0]["compressed_offset"], start, "{how}");
            assert_eq!(gz[0]["bytes"], len, "{how}");
            assert!(gz[0]["detail"].as_str().is_some_and(|d| !d.is_empty()));
            let ql = json_lines(&std::fs::read_to_string(q.join("quarantine.jsonl")).unwrap());
            let item = ql
                .iter()
                .find(|l| l["reason"] == "gzip_member")
                .unwrap_or_else(|| panic!("{how}: not quarantined: {ql:?}"));
            assert_eq!(item["content"], "gzip");
            assert_eq!(item["bytes"], len);
            let kept = std::fs::read(q.join(item["file"].as_str().unwrap())).unwrap();
            assert_eq!(kept, &file[start as usize..(start + len) as usize], "{how}");
            assert!(
                item["detail"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("compressed offset {start}")),
                "{item}"
            );
        }
    }
);

sieve_test!(
    regression_one_stream_gzip_damaged_in_the_middle_says_so,
    |dir| {
        let plain: Vec<u8> = (1..=20).flat_map(record).collect();
        let mut gz = gzip(&plain);
        let mid = gz.len() / 2;
        gz[mid..mid + 32].fill(0x5A);
        let input = dir.write("one.warc.gz", &gz);
        let (out, idx) = build(&dir, &[&input], "idx", &["--threads", "1"]);
        // Read in part: named, exit code 3 (input lost at file level).
        assert_eq!(out.status.code(), Some(3), "{}", text(&out));
        let stats = read_json(&idx.join("stats.json"));
        let err = stats["files"][0]["error"].as_str().unwrap().to_string();
        assert!(err.contains("one-stream gzip"), "{err}");
        assert!(err.contains("nothing after compressed offset"), "{err}");
        let ids = docids(&dir, &idx);
        assert!(ids.len() >= 5, "{ids:?}");
        // Records before the damage are indexed (output decoded past it before
        // the decoder noticed may be garbage, and is indexed as read).
        for i in 1..=5 {
            let id = format!("doc-{i:02}");
            assert!(ids.contains(&id), "{id} missing: {ids:?}");
        }
    }
);

/// One small WARC file (3 documents).
fn warc3() -> Vec<u8> {
    (1..=3).flat_map(record).collect()
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[cfg(unix)]
sieve_test!(regression_symlink_loop_indexes_everything_41_times, |dir| {
    for (case, loops) in [("one", &["loop"][..]), ("two", &["loop", "loop2"][..])] {
        let d = dir.join(case);
        dir.write(&format!("{case}/a.warc"), &warc3());
        std::fs::create_dir_all(d.join("sub")).unwrap();
        for l in loops {
            symlink("..", &d.join("sub").join(l));
        }
        let (out, idx) = build(&dir, &[&d], &format!("{case}-idx"), &["--threads", "1"]);
        assert!(out.status.success(), "{case}: {}", text(&out));
        assert_eq!(
            docids(&dir, &idx),
            ["doc-01", "doc-02", "doc-03"],
            "{case}: each document once"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stats = read_json(&idx.join("stats.json"));
        assert_eq!(stats["files"].as_array().unwrap().len(), 1);
        let skipped = stats["skipped_inputs"].as_array().unwrap();
        assert_eq!(skipped.len(), loops.len(), "{case}: {skipped:?}");
        for l in loops {
            let p = d.join("sub").join(l);
            assert!(
                skipped.iter().any(|s| s["path"] == p.to_str().unwrap()
                    && s["reason"].as_str().unwrap().starts_with("symlink loop")),
                "{case}: {skipped:?}"
            );
            assert!(stderr.contains(&format!("skipped {}: symlink loop", p.display())));
        }
        let losses = std::fs::read_to_string(idx.join("losses.jsonl")).unwrap();
        assert_eq!(losses.matches("\"skipped_input\"").count(), loops.len());
    }
});

#[cfg(unix)]
fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().expect("mkfifo");
    assert!(st.success());
}

#[cfg(unix)]
sieve_test!(regression_fifo_in_a_directory_is_named_not_hung, |dir| {
    let d = dir.join("d");
    dir.write("d/a.warc", &warc3());
    mkfifo(&d.join("pipe"));
    let (out, idx) = build(&dir, &[&d], "idx", &["--threads", "1"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(docids(&dir, &idx).len(), 3);
    let stats = read_json(&idx.join("stats.json"));
    assert_eq!(stats["skipped_inputs"][0]["reason"], "fifo");
    assert_eq!(
        stats["skipped_inputs"][0]["path"],
        d.join("pipe").to_str().unwrap()
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("pipe: fifo"));
    // Named directly: an error that says what it is.
    let (out, _) = build(&dir, &[&d.join("pipe")], "idx2", &[]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is a FIFO"), "{stderr}");
});

#[cfg(unix)]
sieve_test!(
    regression_file_reached_by_two_paths_is_indexed_once,
    |dir| {
        let d = dir.join("d");
        let a = dir.write("d/a.warc", &warc3());
        symlink("a.warc", &d.join("b.warc"));
        std::fs::hard_link(&a, d.join("c.warc")).unwrap();
        // The directory, and the file once more by name.
        let (out, idx) = build(&dir, &[&d, &a], "idx", &["--threads", "1"]);
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(docids(&dir, &idx), ["doc-01", "doc-02", "doc-03"]);
        let stats = read_json(&idx.join("stats.json"));
        let files: Vec<&str> = stats["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert_eq!(files, [a.to_str().unwrap()]);
        let skipped = stats["skipped_inputs"].as_array().unwrap();
        let want = format!("duplicate of {}", a.display());
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert!(
            skipped.iter().all(|s| s["reason"] == want.as_str()),
            "{skipped:?}"
        );
    }
);
