//! Queries are bounded: a topic keeps its first
//! `--max-query-terms` unique analysed terms, with a warning naming it, and
//! a topic without searchable terms is named in a warning.

use std::time::{Duration, Instant};

use crate::util::{Dir, fixture, ok};

/// A small index over one committed WARC sample.
fn small_index(dir: &Dir) -> std::path::PathBuf {
    let index = dir.join("ix");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--threads", "1", "--input"])
        .arg(fixture("warc/jwarc__cc.warc.gz"))
        .arg("--index")
        .arg(&index));
    index
}

/// `sieve-search run` of `topics` (`id:query` lines) on `index`: (stdout, stderr).
fn run(dir: &Dir, index: &std::path::Path, topics: &str, extra: &[&str]) -> (String, String) {
    let file = dir.write("topics.txt", topics.as_bytes());
    let out = dir
        .cmd("sieve-search")
        .arg("run")
        .arg("--index")
        .arg(index)
        .arg("--topics")
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

sieve_test!(million_term_topic_is_capped_and_named, |dir| {
    let index = small_index(&dir);
    // 1,000,000 distinct terms (letters only, so the analyser keeps them),
    // after a term the index holds.
    let mut q = String::from("7:common");
    for i in 0..1_000_000u32 {
        let mut n = i;
        q.push(' ');
        for _ in 0..5 {
            q.push(char::from(b'a' + (n % 26) as u8));
            n /= 26;
        }
        q.push('q');
    }
    q.push('\n');
    let started = Instant::now();
    let (run_out, err) = run(&dir, &index, &q, &[]);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(60), "took {took:?}");
    assert!(
        err.contains("topic 7:") && err.contains("first 1024 in query order"),
        "{err}"
    );
    let dropped = err
        .split("topic 7: ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok());
    // Porter stemming may merge a few of the generated words: most go.
    assert!(dropped.is_some_and(|d| d > 900_000), "{err}");
    // The kept first term still finds documents; a cap of 1 keeps only it.
    let (one, err1) = run(&dir, &index, &q, &["--max-query-terms", "1"]);
    assert!(err1.contains("the first 1 in query order"), "{err1}");
    let plain = run(&dir, &index, "7:common\n", &[]).0;
    assert_eq!(one, plain);
    assert!(!run_out.is_empty());
});

sieve_test!(all_stopword_topic_is_named_in_a_warning, |dir| {
    let index = small_index(&dir);
    let (out, err) = run(&dir, &index, "1:the of and\n2:common\n", &[]);
    assert!(
        err.contains("topic 1: no searchable terms") && err.contains("no lines in the run"),
        "{err}"
    );
    assert!(!err.contains("topic 2"), "{err}");
    assert!(out.lines().all(|l| l.starts_with("2 ")), "{out}");
    // 0 is not a cap.
    let file = dir.write("t0.txt", b"1:common\n");
    let bad = dir
        .cmd("sieve-search")
        .arg("run")
        .arg("--index")
        .arg(&index)
        .arg("--topics")
        .arg(file)
        .args(["--max-query-terms", "0"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
});
