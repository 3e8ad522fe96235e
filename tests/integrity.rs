//! The integrity of sieve's own files.
//!
//! * Damaged filter and BM25 statistics files (truncated by one byte, a
//!   byte flipped in the header, in the middle, in the last byte) are
//!   refused by every command that reads them, with an error naming the
//!   file and the expected and found length or checksum: no panic (exit
//!   101), and `sieve-index build --filter` leaves no index directory.
//! * A filter means the same at index time and at query time, however it
//!   was made: the matrix of sources (spam rankings alone, an index, a stats
//!   TSV) × unscored keep/drop × stored list (the default, keep, exclude).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::pipeline::{TOPICS, build, build_cmd, docids, run, scores, untagged};
use crate::util::{Dir, fails, fixture, ok};

/// The damages every test applies: (name, damaged bytes). `header_at` is a
/// byte offset inside the file's header, `body_at` where its body starts.
fn damages(good: &[u8], header_at: usize, body_at: usize) -> Vec<(&'static str, Vec<u8>)> {
    let flip = |at: usize| {
        let mut b = good.to_vec();
        b[at] ^= 0x01;
        b
    };
    vec![
        ("truncated", good[..good.len() - 1].to_vec()),
        ("header", flip(header_at)),
        ("middle", flip((body_at + good.len()) / 2)),
        ("last", flip(good.len() - 1)),
    ]
}

/// Asserts a command refused a damaged file cleanly: failed, not by a
/// panic, naming the file and what was expected and found.
fn refused(out: &Output, file: &Path, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{what}: succeeded");
    assert_ne!(out.status.code(), Some(101), "{what}: panicked\n{err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
    let name = file.file_name().unwrap().to_string_lossy();
    assert!(
        err.contains(name.as_ref()) && err.contains("expected") && err.contains("found"),
        "{what}: the error must name {name} and the expected and found value\n{err}"
    );
}

/// The demo crawl indexed with the MADE-UP spam scores (tests/data/SOURCES.md).
fn full_index(dir: &Dir) -> PathBuf {
    let spam = fixture("spam/made-up-spam.txt");
    build(dir, "full", &["--spam", spam.to_str().unwrap()])
}

fn build_with_filter(dir: &Dir, index: &Path, filter: &Path) -> Output {
    build_cmd(dir, index)
        .arg("--filter")
        .arg(filter)
        .output()
        .unwrap()
}

sieve_test!(damaged_filter_file_is_refused_not_a_panic, |dir| {
    let full = full_index(&dir);
    let good = dir.join("f.filter");
    ok(dir
        .cmd("sieve-filter")
        .args(["build", "--stats"])
        .arg(&full)
        .args(["--max-rate", "unexpected_continuation=0.5"])
        .args(["--store", "keep", "--out"])
        .arg(&good));
    let out = dir
        .cmd("sieve-filter")
        .arg("inspect")
        .arg(&good)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("f.filter: checksum ok"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["checksum"], "ok", "{v}");
    assert!(
        v["unseen_docids"].as_str().unwrap().starts_with("dropped"),
        "{v}"
    );
    let bytes = std::fs::read(&good).unwrap();
    assert!(bytes.starts_with(b"SIEVE-FILTER 2\nsieve-seal crc32="));
    let header_at = bytes.iter().position(|&b| b == b'{').unwrap() + 5;
    let body_at = header_at + bytes[header_at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    assert!(bytes.len() - body_at > 100, "a body to damage");
    let docid = docids(&dir, &full).lines().next().unwrap().to_string();
    let topics = dir.write("topics.txt", TOPICS.as_bytes());
    for (case, damaged) in damages(&bytes, header_at, body_at) {
        let t = dir.write(&format!("{case}.filter"), &damaged);
        let what = |cmd: &str| format!("{case}: {cmd}");
        let out = dir
            .cmd("sieve-filter")
            .arg("contains")
            .arg(&t)
            .arg(&docid)
            .output();
        refused(&out.unwrap(), &t, &what("contains"));
        let out = dir.cmd("sieve-filter").arg("inspect").arg(&t).output();
        refused(&out.unwrap(), &t, &what("inspect"));
        let out = dir
            .cmd("sieve-search")
            .args(["run", "--index"])
            .arg(&full)
            .arg("--topics")
            .arg(&topics)
            .arg("--filter")
            .arg(&t)
            .output();
        refused(&out.unwrap(), &t, &what("search run --filter"));
        let index = dir.join(&format!("idx-{case}"));
        refused(
            &build_with_filter(&dir, &index, &t),
            &t,
            &what("index build --filter"),
        );
        assert!(!index.exists(), "{case}: build left {}", index.display());
    }
    // A version 1 file (no seal) is refused with what to do.
    let v1 = dir.write("v1.filter", b"SIEVE-FILTER 1\n{\"stores\":\"keep\"}\n");
    let out = fails(dir.cmd("sieve-filter").arg("inspect").arg(&v1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("v1.filter") && err.contains("rebuild it"),
        "{err}"
    );
});

sieve_test!(
    damaged_global_statistics_file_is_refused_not_a_panic,
    |dir| {
        let full = build(&dir, "full", &[]);
        let topics = dir.write("topics.txt", TOPICS.as_bytes());
        let good = dir.join("stats.json");
        ok(dir
            .cmd("sieve-search")
            .args(["stats", "--index"])
            .arg(&full)
            .arg("--topics")
            .arg(&topics)
            .arg("--output")
            .arg(&good));
        let bytes = std::fs::read(&good).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["header"]["version"], 3, "{v}");
        // The good file works (and sums with itself).
        ok(dir
            .cmd("sieve-search")
            .args(["run", "--index"])
            .arg(&full)
            .arg("--topics")
            .arg(&topics)
            .arg("--global-stats")
            .arg(&good));
        ok(dir
            .cmd("sieve-search")
            .arg("sum-stats")
            .arg(&good)
            .arg(&good));
        let text = String::from_utf8_lossy(&bytes);
        let header_at = text.find("stemmer").unwrap();
        let body_at = text.find("doc_freq").unwrap();
        for (case, damaged) in damages(&bytes, header_at, body_at) {
            let t = dir.write(&format!("{case}.json"), &damaged);
            let out = dir
                .cmd("sieve-search")
                .args(["run", "--index"])
                .arg(&full)
                .arg("--topics")
                .arg(&topics)
                .arg("--global-stats")
                .arg(&t)
                .output();
            refused(&out.unwrap(), &t, &format!("{case}: run --global-stats"));
            let out = dir
                .cmd("sieve-search")
                .arg("sum-stats")
                .arg(&good)
                .arg(&t)
                .output();
            refused(&out.unwrap(), &t, &format!("{case}: sum-stats"));
        }
        // A file without a seal (version 1, or edited by hand) is refused.
        let mut v1 = v.clone();
        v1.as_object_mut().unwrap().remove("sieve_seal");
        v1["header"]["version"] = 1.into();
        let t = dir.write(
            "v1.json",
            serde_json::to_string_pretty(&v1).unwrap().as_bytes(),
        );
        let out = fails(dir.cmd("sieve-search").arg("sum-stats").arg(&t));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("v1.json") && err.contains("sieve_seal"),
            "{err}"
        );
    }
);

/// `docid -> spam percentile` (None when unscored) from `sieve-index docids
/// --stats`.
fn spam_column(tsv: &str) -> Vec<(String, Option<u8>)> {
    let mut lines = tsv.lines();
    assert!(lines.next().unwrap().starts_with("docid\tbytes\tspam\t"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[2].parse().ok())
        })
        .collect()
}

/// The docids `sieve-filter contains` says the filter keeps.
fn kept_by_file(dir: &Dir, filter: &Path, all: &[String]) -> BTreeSet<String> {
    // `contains` exits 1 when some docid is dropped: run it without `ok`.
    let out = dir
        .cmd("sieve-filter")
        .arg("contains")
        .arg(filter)
        .args(all)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(101));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.split('\t').nth(1) == Some("keep"))
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

fn assert_same_run(a: &str, b: &str, what: &str) {
    assert!(!a.is_empty(), "{what}: empty run");
    assert_eq!(untagged(a), untagged(b), "{what}");
    for (x, y) in scores(a).iter().zip(scores(b)) {
        assert!(
            (x - y).abs() <= 1e-5 * y.abs().max(1.0),
            "{what}: {x} vs {y}"
        );
    }
}

sieve_test!(
    spam_filter_unscored_rule_holds_at_index_and_query_time,
    |dir| {
        const MIN: u8 = 70;
        let full = full_index(&dir);
        let tsv_text = ok(dir
            .cmd("sieve-index")
            .args(["docids", "--stats", "--index"])
            .arg(&full));
        let tsv = dir.write("stats.tsv", tsv_text.as_bytes());
        let column = spam_column(&tsv_text);
        let all: Vec<String> = column.iter().map(|(d, _)| d.clone()).collect();
        let unscored = column.iter().filter(|(_, p)| p.is_none()).count();
        assert!(unscored > 0 && unscored < all.len(), "{unscored} unscored");
        let spam = fixture("spam/made-up-spam.txt");
        let sources: [(&str, Vec<&std::ffi::OsStr>); 3] = [
            ("spam", vec!["--spam".as_ref(), spam.as_os_str()]),
            ("index", vec!["--stats".as_ref(), full.as_os_str()]),
            ("tsv", vec!["--stats".as_ref(), tsv.as_os_str()]),
        ];
        for (source, args) in &sources {
            for drop_unscored in [false, true] {
                let policy = if drop_unscored { "drop" } else { "keep" };
                // The rule, computed here from the spam column.
                let want: BTreeSet<String> = column
                    .iter()
                    .filter(|(_, p)| p.map_or(!drop_unscored, |p| p >= MIN))
                    .map(|(d, _)| d.clone())
                    .collect();
                assert!(!want.is_empty() && want.len() < all.len());
                let rule: Vec<String> = [format!("--min-spam-percentile={MIN}")]
                    .into_iter()
                    .chain(drop_unscored.then(|| "--drop-unscored".to_string()))
                    .collect();
                for store in ["smaller", "keep", "exclude"] {
                    let cell = format!("{source} unscored={policy} store={store}");
                    let f = dir.join(&format!("{source}-{policy}-{store}.filter"));
                    let mut cmd = dir.cmd("sieve-filter");
                    cmd.arg("build")
                        .args(args)
                        .args(["--min-percentile", &MIN.to_string()])
                        .args(["--unscored", policy, "--store", store, "--out"])
                        .arg(&f);
                    // Over spam rankings alone, every document outside the
                    // rankings is unscored and unlisted: only one list honours
                    // the unscored rule.
                    let contradicts = *source == "spam"
                        && store != "smaller"
                        && (store == "keep") != drop_unscored;
                    if contradicts {
                        let err = String::from_utf8_lossy(&fails(&mut cmd).stderr).into_owned();
                        assert!(
                            err.contains("must store the")
                                && err.contains(&format!("not the {store} list")),
                            "{cell}: {err}"
                        );
                        assert!(!f.exists(), "{cell}");
                        continue;
                    }
                    ok(&mut cmd);
                    assert_eq!(kept_by_file(&dir, &f, &all), want, "{cell}: contains");
                    let filtered = dir.join(&format!("idx-{source}-{policy}-{store}"));
                    let out = build_with_filter(&dir, &filtered, &f);
                    assert!(
                        out.status.code() == Some(3), // the clipped gzip sample is read in part
                        "{cell}: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    let at_index_ids: BTreeSet<String> = docids(&dir, &filtered)
                        .lines()
                        .map(str::to_string)
                        .collect();
                    assert_eq!(at_index_ids, want, "{cell}: index-time filter");
                    let fpath = f.to_str().unwrap();
                    let at_index = run(&dir, &[&filtered], &[]);
                    for stats in ["filtered", "full"] {
                        let by_file = run(&dir, &[&full], &["--filter", fpath, "--stats", stats]);
                        let mut by_rule_args: Vec<&str> = rule.iter().map(String::as_str).collect();
                        by_rule_args.extend(["--stats", stats]);
                        let by_rule = run(&dir, &[&full], &by_rule_args);
                        assert_same_run(&by_file, &by_rule, &format!("{cell}: --stats {stats}"));
                        for (_, docid, _) in untagged(&by_file) {
                            assert!(want.contains(&docid), "{cell}: {docid} ranked");
                        }
                        if stats == "filtered" {
                            assert_same_run(
                                &by_file,
                                &at_index,
                                &format!("{cell}: index vs query"),
                            );
                        }
                    }
                }
            }
        }
    }
);

/// Copies the files of an index directory (not its subdirectories' files
/// one level down, which a flipped segment byte does not concern, but
/// those too, so the copy is a whole index).
fn copy_index(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_index(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

sieve_test!(damaged_segment_file_is_an_error_not_a_panic, |dir| {
    // tantivy does not check a segment file's checksum when it opens an
    // index, and asserts (panics) on some damaged fast-field bytes: found
    // through the Python binding, where a flipped byte in a `.fast` file
    // made `sieve-search run` die with exit 101 and a panic dump.
    let good = build(&dir, "good", &[]);
    let verdict = ok(dir
        .cmd("sieve-index")
        .args(["verify", "--index"])
        .arg(&good));
    assert!(verdict.contains(": ok:"), "{verdict}");
    let mut fast: Vec<PathBuf> = std::fs::read_dir(&good)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "fast"))
        .collect();
    // The largest segment's (a build has a segment per input file).
    fast.sort_by_key(|p| (std::fs::metadata(p).unwrap().len(), p.clone()));
    let largest = fast.last().unwrap();
    let name = largest.file_name().unwrap().to_owned();
    let bytes = std::fs::read(largest).unwrap();
    let topics = dir.write("topics.txt", TOPICS.as_bytes());
    let flips = 24;
    let mut outcomes = BTreeSet::new();
    for i in 0..flips {
        // Spread over the file, denser near its end (dictionaries, footer).
        let at = if i < flips / 2 {
            bytes.len() * i / (flips / 2)
        } else {
            bytes.len() - 1 - (bytes.len() / 8) * (i - flips / 2) / (flips / 2)
        };
        let copy = dir.join(&format!("d{i}"));
        copy_index(&good, &copy);
        let mut damaged = bytes.clone();
        damaged[at] ^= 0xff;
        std::fs::write(copy.join(&name), &damaged).unwrap();
        let out = dir
            .cmd("sieve-search")
            .args(["run", "--hits", "20", "--index"])
            .arg(&copy)
            .arg("--topics")
            .arg(&topics)
            .arg("--output")
            .arg(dir.join(&format!("d{i}.run")))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let what = format!("byte {at} of {} flipped", bytes.len());
        assert!(!err.contains("panicked"), "{what}: {err}");
        match out.status.code() {
            Some(0) => {
                outcomes.insert("ran");
            }
            Some(1) => {
                let lines: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
                assert_eq!(lines.len(), 1, "{what}: one error line\n{err}");
                assert!(
                    lines[0].starts_with("sieve-search: error: "),
                    "{what}: {err}"
                );
                outcomes.insert(if err.contains("internal failure") {
                    "internal failure"
                } else {
                    "error"
                });
            }
            other => panic!("{what}: exit {other:?}\n{err}"),
        }
        let out = dir
            .cmd("sieve-index")
            .args(["verify", "--index"])
            .arg(&copy)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{what}: verify must fail\n{err}"
        );
        assert!(
            err.contains(&*name.to_string_lossy())
                && (err.contains("checksum mismatch") || err.contains("no readable footer")),
            "{what}: verify must name the file\n{err}"
        );
    }
    eprintln!("outcomes of {flips} flipped bytes: {outcomes:?}");
});

sieve_test!(verify_checks_the_bounds_sidecars, |dir| {
    // A damaged block-max bounds sidecar is named by `verify` (exit 1); a
    // missing one is a note (searches are exact without it), exit 0.
    let good = build(&dir, "good", &[]);
    let mut sidecars: Vec<PathBuf> = std::fs::read_dir(good.join("bounds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    sidecars.sort();
    assert!(!sidecars.is_empty(), "a build writes bounds sidecars");
    let first = sidecars[0].file_name().unwrap().to_owned();

    let damaged = dir.join("damaged");
    copy_index(&good, &damaged);
    let path = damaged.join("bounds").join(&first);
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let out = dir
        .cmd("sieve-index")
        .args(["verify", "--index"])
        .arg(&damaged)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("damaged:") && err.contains(&*first.to_string_lossy()),
        "{err}"
    );

    let missing = dir.join("missing");
    copy_index(&good, &missing);
    std::fs::remove_file(missing.join("bounds").join(&first)).unwrap();
    let out = dir
        .cmd("sieve-index")
        .args(["verify", "--index"])
        .arg(&missing)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("note:") && err.contains("no block-max bounds sidecar"),
        "{err}"
    );
});
