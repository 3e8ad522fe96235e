//! Duplicate docids: the first record with a docid (in input order) is
//! indexed, every later one is a `duplicate_docid` loss naming both places,
//! within a file, across files, in every crawl format, across `--resume`
//! and across merged shards; `sieve-search run` and `sweep` then succeed,
//! and BM25 scores equal those of the input with the copies removed by
//! hand.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use crate::util::{Dir, json_lines, ok};

/// Topics whose words are in every copy (so a run retrieves both copies
/// of a duplicate if both are indexed) and in one copy only.
const TOPICS: &str = "1\tshared words\n2\tfirstcopy\n3\tlatercopy\n4\tshared other\n";
/// Judgments for `sweep`.
const QRELS: &str = "1 0 D1 1\n2 0 D1 1\n3 0 D2 1\n4 0 D2 1\n";

/// One duplicate expected: docid, (file, offset) kept, (file, offset) skipped.
struct Expect<'a> {
    docid: &'a str,
    kept: (&'a Path, u64),
    skipped: (&'a Path, u64),
}

/// `sieve-index build` of `inputs` into `index` (one thread, `extra`).
fn build(dir: &Dir, inputs: &[PathBuf], index: &Path, extra: &[&str]) -> String {
    let mut c = dir.cmd("sieve-index");
    c.args(["build", "--threads", "1", "--index"]).arg(index);
    for p in inputs {
        c.arg("--input").arg(p);
    }
    ok(c.args(extra))
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The `duplicate_docid` lines of `index`'s losses log.
fn dup_losses(index: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(index.join("losses.jsonl")).unwrap_or_default();
    json_lines(&text)
        .into_iter()
        .filter(|l| l["reason"] == "duplicate_docid")
        .collect()
}

/// `sieve-search run` of [`TOPICS`] over `indexes`: the run file.
fn run(dir: &Dir, indexes: &[&Path], name: &str) -> String {
    let topics = dir.write("topics.tsv", TOPICS.as_bytes());
    let out = dir.join(name);
    let mut c = dir.cmd("sieve-search");
    c.arg("run");
    for ix in indexes {
        c.arg("--index").arg(ix);
    }
    ok(c.arg("--topics").arg(&topics).arg("--output").arg(&out));
    std::fs::read_to_string(&out).unwrap()
}

/// Asserts that no topic of a run file lists a docid twice.
fn assert_no_duplicate_per_topic(run: &str, what: &str) {
    let mut seen = HashSet::new();
    for line in run.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert!(
            seen.insert((f[0].to_string(), f[2].to_string())),
            "{what}: topic {} lists {} twice:\n{run}",
            f[0],
            f[2]
        );
    }
}

/// `sieve-search sweep` over `index` (with its run files): every run file
/// written, none with a docid twice in a topic.
fn sweep(dir: &Dir, index: &Path, name: &str) {
    let topics = dir.write("topics.tsv", TOPICS.as_bytes());
    let qrels = dir.write("qrels.txt", QRELS.as_bytes());
    let out = dir.join(name);
    ok(dir
        .cmd("sieve-search")
        .args([
            "sweep",
            "--runs",
            "-m",
            "map,P_5",
            "--max-invalid-456-per-kb",
            "0,1",
        ])
        .arg("--index")
        .arg(index)
        .arg("--topics")
        .arg(&topics)
        .arg("--qrels")
        .arg(&qrels)
        .arg("--output-dir")
        .arg(&out));
    let mut runs = 0;
    for e in std::fs::read_dir(out.join("runs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "run") {
            assert_no_duplicate_per_topic(&std::fs::read_to_string(&p).unwrap(), "sweep");
            runs += 1;
        }
    }
    assert!(runs > 0, "sweep wrote no run file");
}

/// The documents `show --json` finds for `docid` in `index`: (source, offset, text).
fn show(dir: &Dir, index: &Path, docid: &str) -> Vec<(String, u64, String)> {
    let out = ok(dir
        .cmd("sieve-index")
        .args(["show", "--json", "--index"])
        .arg(index)
        .arg(docid));
    json_lines(&out)
        .into_iter()
        .map(|d| {
            (
                d["source"].as_str().unwrap_or_default().to_string(),
                d["offset"].as_u64().unwrap_or(u64::MAX),
                d.to_string(),
            )
        })
        .collect()
}

/// Checks the rule on `index` (built from input with duplicates): each
/// expected copy is a loss line naming both places, counted in
/// `stats.json` (per file and in total); the first copy is the one shown;
/// `run` and `sweep` succeed without a docid twice in a topic, and the run
/// equals, byte for byte (scores to the bit), the run of `clean` (an index
/// of the input with the copies removed by hand).
fn check_rule(dir: &Dir, index: &Path, clean: &Path, expect: &[Expect<'_>]) {
    let losses = dup_losses(index);
    assert_eq!(losses.len(), expect.len(), "{losses:?}");
    for (l, e) in losses.iter().zip(expect) {
        assert_eq!(l["record_id"], e.docid, "{l}");
        assert_eq!(l["file"], e.skipped.0.to_str().unwrap(), "{l}");
        assert_eq!(l["offset"], e.skipped.1, "{l}");
        assert_eq!(l["kept_file"], e.kept.0.to_str().unwrap(), "{l}");
        assert_eq!(l["kept_offset"], e.kept.1, "{l}");
        let shown = show(dir, index, e.docid);
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert_eq!(shown[0].0, e.kept.0.to_str().unwrap());
        assert_eq!(shown[0].1, e.kept.1);
        assert!(shown[0].2.contains("firstcopy"), "{:?}", shown[0]);
    }
    let stats = read_json(&index.join("stats.json"));
    let clean_stats = read_json(&clean.join("stats.json"));
    assert_eq!(
        stats["totals"]["skipped"]["duplicate_docid"],
        expect.len() as u64,
        "{stats}"
    );
    assert_eq!(stats["totals"]["indexed"], clean_stats["totals"]["indexed"]);
    let mut per_file: BTreeMap<String, u64> = BTreeMap::new();
    for e in expect {
        *per_file
            .entry(e.skipped.0.display().to_string())
            .or_default() += 1;
    }
    for f in stats["files"].as_array().unwrap() {
        let path = f["path"].as_str().unwrap();
        let want = per_file.get(path).copied();
        assert_eq!(f["skipped"]["duplicate_docid"].as_u64(), want, "{f}");
    }
    let got = run(dir, &[index], "dups.run");
    assert_no_duplicate_per_topic(&got, "run");
    assert!(!got.is_empty());
    assert_eq!(got, run(dir, &[clean], "clean.run"), "BM25 differs");
    sweep(dir, index, "sweep");
}

fn jsonl(docs: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (id, text) in docs {
        out.extend_from_slice(format!("{{\"id\":\"{id}\",\"contents\":\"{text}\"}}\n").as_bytes());
    }
    out
}

sieve_test!(
    duplicate_docid_in_one_json_file_keeps_the_first_copy,
    |dir| {
        // D2 is long: its length is not exact in tantivy's quantised field
        // norms, from which a merge of a segment with deleted documents
        // estimates the token total; the scores must still be exact.
        let long = format!("shared other words {}", "filler ".repeat(297));
        let first = ("D1", "shared words firstcopy");
        let other = ("D2", long.as_str());
        let later = ("D1", "shared words latercopy");
        let input = dir.write("a.jsonl", &jsonl(&[first, other, later]));
        let hand = dir.write("clean/a.jsonl", &jsonl(&[first, other]));
        let later_at = std::fs::read(&hand).unwrap().len() as u64;
        let (ix, clean) = (dir.join("ix"), dir.join("clean-ix"));
        build(&dir, std::slice::from_ref(&input), &ix, &[]);
        build(&dir, &[hand], &clean, &[]);
        let expect = Expect {
            docid: "D1",
            kept: (&input, 0),
            skipped: (&input, later_at),
        };
        check_rule(&dir, &ix, &clean, &[expect]);
    }
);

sieve_test!(
    duplicate_docid_across_two_files_keeps_the_first_file,
    |dir| {
        let a = dir.write(
            "a.jsonl",
            &jsonl(&[
                ("D2", "shared other words"),
                ("D1", "shared words firstcopy"),
            ]),
        );
        let b = dir.write(
            "b.jsonl",
            &jsonl(&[
                ("D1", "shared words latercopy"),
                ("D3", "shared more words"),
            ]),
        );
        let hand_b = dir.write("clean/b.jsonl", &jsonl(&[("D3", "shared more words")]));
        let kept_at = jsonl(&[("D2", "shared other words")]).len() as u64;
        let (ix, clean) = (dir.join("ix"), dir.join("clean-ix"));
        build(&dir, &[a.clone(), b.clone()], &ix, &[]);
        build(&dir, &[a.clone(), hand_b], &clean, &[]);
        let expect = Expect {
            docid: "D1",
            kept: (&a, kept_at),
            skipped: (&b, 0),
        };
        check_rule(&dir, &ix, &clean, &[expect]);
    }
);

/// A WARC response record with `WARC-TREC-ID: id` and an HTML body of `text`.
fn warc_record(id: &str, text: &str) -> Vec<u8> {
    let body = format!("<html><head><title>{id}</title></head><body><p>{text}</p></body></html>");
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-TREC-ID: {id}\r\nWARC-Target-URI: http://example.com/{id}\r\n\
         WARC-Date: 2009-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:{id}-{}>\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        text.len(),
        http.len()
    )
    .into_bytes()
}

sieve_test!(duplicate_warc_trec_id_keeps_the_first_record, |dir| {
    let first = warc_record("D1", "shared words firstcopy");
    let other = warc_record("D2", "shared other words");
    let later = warc_record("D1", "shared words latercopy");
    let input = dir.write("a.warc", &[first.clone(), other.clone(), later].concat());
    let hand = dir.write("clean/a.warc", &[first.clone(), other.clone()].concat());
    let later_at = (first.len() + other.len()) as u64;
    let (ix, clean) = (dir.join("ix"), dir.join("clean-ix"));
    build(&dir, std::slice::from_ref(&input), &ix, &[]);
    build(&dir, &[hand], &clean, &[]);
    let expect = Expect {
        docid: "D1",
        kept: (&input, 0),
        skipped: (&input, later_at),
    };
    check_rule(&dir, &ix, &clean, &[expect]);
});

fn trec_doc(id: &str, text: &str) -> Vec<u8> {
    format!("<DOC>\n<DOCNO>{id}</DOCNO>\n<TEXT>\n{text}\n</TEXT>\n</DOC>\n").into_bytes()
}

sieve_test!(duplicate_trec_docno_keeps_the_first_document, |dir| {
    let first = trec_doc("D1", "shared words firstcopy");
    let other = trec_doc("D2", "shared other words");
    let later = trec_doc("D1", "shared words latercopy");
    let input = dir.write("a.trec", &[first.clone(), other.clone(), later].concat());
    let hand = dir.write("clean/a.trec", &[first.clone(), other.clone()].concat());
    let later_at = (first.len() + other.len()) as u64;
    let (ix, clean) = (dir.join("ix"), dir.join("clean-ix"));
    build(&dir, std::slice::from_ref(&input), &ix, &[]);
    build(&dir, &[hand], &clean, &[]);
    let expect = Expect {
        docid: "D1",
        kept: (&input, 0),
        skipped: (&input, later_at),
    };
    check_rule(&dir, &ix, &clean, &[expect]);
});

sieve_test!(smart_id_broken_over_two_lines_is_a_duplicate_loss, |dir| {
    // As in CACM: `.I 2856` broken after `28` reads as a second `.I 28`.
    let first = b".I 28\n.T\nfirstcopy title\n.W\nshared words firstcopy\n".to_vec();
    let other = b".I D2\n.W\nshared other words\n".to_vec();
    let later = b".I 28\n56\n.T\nlatercopy title\n.W\nshared words latercopy\n".to_vec();
    let input = dir.write("cacm.all", &[first.clone(), other.clone(), later].concat());
    let hand = dir.write("clean/cacm.all", &[first.clone(), other.clone()].concat());
    let later_at = (first.len() + other.len()) as u64;
    let (ix, clean) = (dir.join("ix"), dir.join("clean-ix"));
    build(&dir, std::slice::from_ref(&input), &ix, &[]);
    build(&dir, &[hand], &clean, &[]);
    let expect = Expect {
        docid: "28",
        kept: (&input, 0),
        skipped: (&input, later_at),
    };
    check_rule(&dir, &ix, &clean, &[expect]);
});

/// `n` filler documents `F{tag}{i}` (to make a file slow enough to kill a
/// build in).
fn filler(tag: &str, n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        out.extend_from_slice(
            format!("{{\"id\":\"F{tag}{i}\",\"contents\":\"filler text number {i} of {tag}\"}}\n")
                .as_bytes(),
        );
    }
    out
}

sieve_test!(duplicate_docid_across_a_resume_is_found, |dir| {
    // a.jsonl is committed alone (--commit-every-mb 0: after every file);
    // the build is killed while it writes b.jsonl, which repeats a's D1
    // after many filler documents; the resume reads b again and must find
    // the copy that spans the two runs.
    let a = dir.write(
        "a.jsonl",
        &jsonl(&[
            ("D1", "shared words firstcopy"),
            ("D2", "shared other words"),
        ]),
    );
    let fill = filler("b", 15_000);
    let b = dir.write(
        "b.jsonl",
        &[fill.clone(), jsonl(&[("D1", "shared words latercopy")])].concat(),
    );
    let hand_b = dir.write("clean/b.jsonl", &fill);
    let clean = dir.join("clean-ix");
    build(&dir, &[a.clone(), hand_b], &clean, &[]);
    let mut killed = false;
    for attempt in 0..4 {
        let ix = dir.join(&format!("ix{attempt}"));
        let mut c = dir.cmd("sieve-index");
        c.args(["build", "--threads", "1", "--commit-every-mb", "0"]);
        c.args(["--progress-every", "0.01", "--index"]).arg(&ix);
        c.arg("--input").arg(&a).arg("--input").arg(&b);
        let mut child = c
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        for line in std::io::BufRead::lines(stderr) {
            let Ok(line) = line else { break };
            if line.contains("file [2/2]") {
                break;
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        // Killed before the end: no statistics yet.
        if ix.join("stats.json").exists() {
            continue;
        }
        killed = true;
        ok(c.arg("--resume")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()));
        let expect = Expect {
            docid: "D1",
            kept: (&a, 0),
            skipped: (&b, fill.len() as u64),
        };
        check_rule(&dir, &ix, &clean, &[expect]);
        break;
    }
    assert!(killed, "no kill landed before the end of the build");
});

sieve_test!(
    duplicate_docid_across_merged_shards_keeps_the_first_shard,
    |dir| {
        let a = dir.write(
            "a.jsonl",
            &jsonl(&[
                ("D1", "shared words firstcopy"),
                ("D2", "shared other words"),
            ]),
        );
        let b = dir.write(
            "b.jsonl",
            &jsonl(&[
                ("D3", "shared more words"),
                ("D1", "shared words latercopy"),
            ]),
        );
        let hand_b = dir.write("clean/b.jsonl", &jsonl(&[("D3", "shared more words")]));
        let later_at = jsonl(&[("D3", "shared more words")]).len() as u64;
        for (input, shard) in [(&a, "s1"), (&b, "s2")] {
            ok(dir
                .cmd("sieve-index")
                .args(["build-shard", "--input"])
                .arg(input)
                .arg("--index")
                .arg(dir.join(shard)));
        }
        let merged = dir.join("merged");
        ok(dir
            .cmd("sieve-index")
            .args(["merge", "--index"])
            .arg(&merged)
            .arg("--shards")
            .arg(dir.join("s1"))
            .arg("--shards")
            .arg(dir.join("s2")));
        let clean = dir.join("clean-ix");
        build(&dir, &[a.clone(), hand_b], &clean, &[]);
        let expect = Expect {
            docid: "D1",
            kept: (&a, 0),
            skipped: (&b, later_at),
        };
        check_rule(&dir, &merged, &clean, &[expect]);
    }
);

sieve_test!(
    extract_names_and_counts_every_later_copy_of_a_docid,
    |dir| {
        // extract keeps input order but writes each output file once: a later
        // copy stays in the output, named in losses.jsonl and counted.
        let a = dir.write(
            "a.jsonl",
            &jsonl(&[
                ("D1", "shared words firstcopy"),
                ("D2", "shared other words"),
            ]),
        );
        let b = dir.write(
            "b.jsonl",
            &jsonl(&[("D1", "shared words latercopy"), ("D2", "shared again")]),
        );
        let out = dir.join("out");
        ok(dir
            .cmd("sieve-index")
            .args(["extract", "--threads", "1", "--input"])
            .arg(&a)
            .arg("--input")
            .arg(&b)
            .arg("--output-dir")
            .arg(&out));
        let losses = dup_losses(&out);
        let b_d2 = jsonl(&[("D1", "shared words latercopy")]).len() as u64;
        let a_d2 = jsonl(&[("D1", "shared words firstcopy")]).len() as u64;
        let mut got: Vec<(String, u64, String, u64, String)> = losses
            .iter()
            .map(|l| {
                (
                    l["record_id"].as_str().unwrap().to_string(),
                    l["offset"].as_u64().unwrap(),
                    l["file"].as_str().unwrap().to_string(),
                    l["kept_offset"].as_u64().unwrap(),
                    l["kept_file"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        got.sort();
        let (a, b) = (a.display().to_string(), b.display().to_string());
        assert_eq!(
            got,
            [
                ("D1".to_string(), 0, b.clone(), 0, a.clone()),
                ("D2".to_string(), b_d2, b.clone(), a_d2, a.clone()),
            ]
        );
        let stats = read_json(&out.join("stats.json"));
        assert_eq!(stats["totals"]["duplicate_docids"], 2, "{stats}");
        assert_eq!(stats["files"][1]["duplicate_docids"], 2, "{stats}");
    }
);
