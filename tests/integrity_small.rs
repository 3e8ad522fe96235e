//! Smaller integrity promises, each named after the defect it guards
//! against: `show` checks a record's bytes, not only its file's size and
//! time; `show --html` isolates untrusted text against bidirectional
//! overrides; a docid listed twice in a spam file is named with its file
//! and lines; a topic with an empty query is named and skipped in every
//! topic format; `compare` says the gdeval measures were not computed for
//! a run with NaN scores.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::util::{Dir, fails, fixture, ok};

/// One WARC/1.0 response record with an HTTP/1.1 200 head.
fn response(id: &str, url: &str, body: &str) -> Vec<u8> {
    let http = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n";
    let mut out = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-TREC-ID: {id}\r\nWARC-Target-URI: {url}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len() + body.len()
    )
    .into_bytes();
    out.extend_from_slice(http.as_bytes());
    out.extend_from_slice(body.as_bytes());
    out.extend_from_slice(b"\r\n\r\n");
    out
}

fn build(dir: &Dir, inputs: &[&Path], extra: &[&str]) -> PathBuf {
    let ix = dir.join("ix");
    let mut cmd = dir.cmd("sieve-index");
    cmd.args(["build", "--threads", "1", "--input"]);
    for i in inputs {
        cmd.arg(i);
    }
    cmd.arg("--index").arg(&ix).args(extra);
    ok(&mut cmd);
    ix
}

fn show(dir: &Dir, ix: &Path, args: &[&str]) -> Output {
    dir.cmd("sieve-index")
        .args(["show", "--index"])
        .arg(ix)
        .args(args)
        .output()
        .expect("spawn")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

sieve_test!(
    source_rewritten_with_same_size_and_mtime_is_refused_by_show,
    |dir| {
        let first = response(
            "d-1",
            "http://a.example/",
            "<title>one</title><p>first page</p>",
        );
        let second = response(
            "d-2",
            "http://b.example/",
            "<title>two</title><p>apples</p>",
        );
        let mut warc = first.clone();
        warc.extend_from_slice(&second);
        let src = dir.write("crawl.warc", &warc);
        let ix = build(&dir, &[&src], &[]);
        let before = show(&dir, &ix, &["d-2"]);
        assert_eq!(before.status.code(), Some(0), "{}", stderr(&before));
        let text = String::from_utf8_lossy(&before.stdout).into_owned();
        assert!(text.contains("apples"), "{text}");
        assert!(text.contains("CRC-32"), "show says what it checked: {text}");
        // The same size, a different page, the modification time put back.
        let mtime = std::fs::metadata(&src).unwrap().modified().unwrap();
        let mut changed = warc.clone();
        let at = changed.len() - b"apples</p>\r\n\r\n".len();
        changed[at..at + 6].copy_from_slice(b"pears!");
        std::fs::write(&src, &changed).unwrap();
        let f = std::fs::File::options().write(true).open(&src).unwrap();
        f.set_modified(mtime).unwrap();
        drop(f);
        assert_eq!(std::fs::metadata(&src).unwrap().len(), warc.len() as u64);
        for args in [
            &["d-2"][..],
            &["--raw", "d-2"],
            &["--json", "d-2"],
            &["--html", "d-2"],
        ] {
            let out = show(&dir, &ix, args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(
                !String::from_utf8_lossy(&out.stdout).contains("pears"),
                "{args:?}"
            );
            let offset = format!("offset {}", first.len());
            for needle in [
                "crawl.warc",
                offset.as_str(),
                "CRC-32",
                "changed since the build",
            ] {
                assert!(err.contains(needle), "{args:?}: {needle:?} not in {err}");
            }
        }
        // The record before it is unchanged and still shown.
        let out = show(&dir, &ix, &["--raw", "d-1"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(out.stdout, first);
    }
);

/// Every character of `html` outside tags that is one of `needles`, with
/// whether it is isolated: inside a `<bdi>` or an element with
/// `dir="auto"`, or (in `<title>`, which holds only text) between U+2068
/// FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE.
fn isolation(html: &str, needles: &[char]) -> Vec<(usize, bool)> {
    let mut stack: Vec<(String, bool)> = Vec::new();
    let mut found = Vec::new();
    let mut fsi = 0usize;
    let mut rest = html;
    let mut at = 0;
    while let Some(c) = rest.chars().next() {
        if c == '<' {
            let end = rest.find('>').expect("tag ends");
            let tag = &rest[1..end];
            if let Some(name) = tag.strip_prefix('/') {
                let name = name.trim().to_ascii_lowercase();
                if let Some(i) = stack.iter().rposition(|(n, _)| *n == name) {
                    stack.truncate(i);
                }
            } else if !tag.starts_with('!') {
                let name: String = tag
                    .split(|c: char| c.is_whitespace() || c == '/')
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                let isolates = name == "bdi" || tag.contains("dir=\"auto\"");
                if !matches!(name.as_str(), "meta" | "br" | "hr" | "img") {
                    stack.push((name, isolates));
                }
            }
            at += end + 1;
            rest = &rest[end + 1..];
            continue;
        }
        match c {
            '\u{2068}' => fsi += 1,
            '\u{2069}' => fsi = fsi.saturating_sub(1),
            _ => {}
        }
        if needles.contains(&c) {
            let in_title = stack.iter().any(|(n, _)| n == "title");
            let isolated = stack.iter().any(|(_, iso)| *iso) || (in_title && fsi > 0);
            found.push((at, isolated));
        }
        at += c.len_utf8();
        rest = &rest[c.len_utf8()..];
    }
    found
}

sieve_test!(right_to_left_override_in_show_html_is_isolated, |dir| {
    let rlo = '\u{202E}';
    let body = format!("<title>evil{rlo}title</title><p>text {rlo}reversed words</p>");
    let warc = response(
        &format!("rtl{rlo}id"),
        &format!("http://x.example/{rlo}path"),
        &body,
    );
    let src = dir.write(&format!("crawl{rlo}.warc"), &warc);
    let ix = build(&dir, &[&src], &[]);
    let docids = ok(dir.cmd("sieve-index").args(["docids", "--index"]).arg(&ix));
    let docid = docids.lines().next().expect("one document").to_string();
    assert!(docid.contains(rlo), "{docid:?}");
    let out = show(&dir, &ix, &["--html", "--query", "reversed", &docid]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let html = String::from_utf8(out.stdout).unwrap();
    let found = isolation(&html, &[rlo]);
    // The docid (page title and fact), source, url, title and text.
    assert!(found.len() >= 6, "{found:?}\n{html}");
    let open: Vec<&str> = found
        .iter()
        .filter(|(_, iso)| !iso)
        .map(|(at, _)| &html[at.saturating_sub(40)..*at])
        .collect();
    assert!(open.is_empty(), "not isolated after: {open:#?}\n{html}");
});

/// The spam file `lines` written to `name`, and the stderr of a failed
/// `sieve-filter build --spam` and `sieve-index build --spam` over it.
fn spam_errors(dir: &Dir, name: &str, lines: &str) -> (PathBuf, Vec<String>) {
    let spam = dir.write(name, lines.as_bytes());
    let filter = fails(
        dir.cmd("sieve-filter")
            .args(["build", "--min-spam-percentile", "50", "--output"])
            .arg(dir.join(&format!("{name}.filter")))
            .arg("--spam")
            .arg(&spam),
    );
    let index = fails(
        dir.cmd("sieve-index")
            .args(["build", "--threads", "1", "--input"])
            .arg(fixture("warc/jwarc__cc.warc.gz"))
            .arg("--index")
            .arg(dir.join(&format!("{name}.ix")))
            .arg("--spam")
            .arg(&spam),
    );
    assert_eq!(filter.status.code(), Some(1));
    assert_eq!(index.status.code(), Some(1));
    (spam, vec![stderr(&filter), stderr(&index)])
}

sieve_test!(
    duplicate_docid_in_spam_file_names_the_file_and_both_lines,
    |dir| {
        // Sorted (the map is streamed) and unsorted (the entries go through an
        // external sort first): either way the user's file and lines are named.
        for (name, lines, first, second) in [
            (
                "sorted.txt",
                "10 clueweb09-a\n20 clueweb09-a\n30 clueweb09-b\n",
                1,
                2,
            ),
            (
                "unsorted.txt",
                "10 clueweb09-b\n20 clueweb09-a\n\n30 clueweb09-b\n",
                1,
                4,
            ),
        ] {
            let (spam, errors) = spam_errors(&dir, name, lines);
            for err in errors {
                assert!(err.contains(&spam.display().to_string()), "{err}");
                assert!(
                    !err.contains("spam.fst"),
                    "an internal file is named: {err}"
                );
                assert!(err.contains(&format!("line {first}")), "{err}");
                assert!(err.contains(&format!("line {second}")), "{err}");
            }
        }
    }
);

/// `sieve-search run` of the topic file `text` on `index`: (stdout, stderr).
fn run_topics(dir: &Dir, index: &Path, name: &str, text: &str) -> (String, String) {
    let file = dir.write(name, text.as_bytes());
    let out = dir
        .cmd("sieve-search")
        .args(["run", "--index"])
        .arg(index)
        .arg("--topics")
        .arg(file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
    let err = stderr(&out);
    (String::from_utf8(out.stdout).unwrap(), err)
}

sieve_test!(
    topic_with_empty_query_is_named_and_skipped_in_every_format,
    |dir| {
        let ix = build(&dir, &[&fixture("warc/jwarc__cc.warc.gz")], &[]);
        let formats = [
            (
                "sgml.txt",
                "<top>\n<num> Number: 1\n<title> common crawl\n</top>\n\
             <top>\n<num> Number: 2\n<title>\n<desc> Description:\nnothing\n</top>\n",
            ),
            (
                "web.xml",
                "<webtrack>\n<topic number=\"1\"><query>common crawl</query></topic>\n\
             <topic number=\"2\"><query>  </query></topic>\n</webtrack>\n",
            ),
            ("colon.txt", "1:common crawl\n2:\n"),
            ("tabs.tsv", "1\tcommon crawl\n2\t \n"),
            (
                "cacm.txt",
                "<DOC>\n<DOCNO> 1 </DOCNO>\ncommon crawl\n</DOC>\n<DOC>\n<DOCNO> 2 </DOCNO>\n\n</DOC>\n",
            ),
        ];
        for (name, text) in formats {
            let (run, err) = run_topics(&dir, &ix, name, text);
            assert!(
                err.contains("warning: topic 2:") && err.contains("empty"),
                "{name}: {err}"
            );
            assert!(!err.contains("topic 1:"), "{name}: {err}");
            assert!(run.lines().all(|l| l.starts_with("1 ")), "{name}: {run}");
            assert!(!run.is_empty(), "{name}: topic 1 is searched");
        }
    }
);

sieve_test!(
    compare_of_run_with_nan_scores_says_gdeval_not_computed,
    |dir| {
        let qrels = dir.write("qrels", b"1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d4 0\n");
        let a = dir.write(
            "a.run",
            b"1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n2 Q0 d4 1 2.0 a\n2 Q0 d3 2 1.0 a\n",
        );
        let b = dir.write(
            "b.run",
            b"1 Q0 d1 1 NaN b\n1 Q0 d2 2 1.0 b\n2 Q0 d3 1 2.0 b\n2 Q0 d4 2 1.0 b\n",
        );
        let compare = |extra: &[&str]| {
            let out = dir
                .cmd("sieve-search")
                .args(["compare", "--qrels"])
                .arg(&qrels)
                .arg(&a)
                .arg(&b)
                .args(extra)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            String::from_utf8(out.stdout).unwrap()
        };
        let text = compare(&[]);
        for m in ["ndcg@20", "err@20"] {
            let row = text
                .lines()
                .find(|l| l.starts_with(m))
                .unwrap_or_else(|| panic!("no {m} row: {text}"));
            assert!(row.contains("not computed"), "{row}");
            assert!(!row.contains("0.0000"), "{row}");
        }
        let map = text.lines().find(|l| l.starts_with("map")).unwrap();
        assert!(
            map.contains('2'),
            "map is still compared over 2 topics: {map}"
        );
        let json: serde_json::Value = serde_json::from_str(&compare(&["--json"])).unwrap();
        for m in json["measures"].as_array().unwrap() {
            let name = m["measure"].as_str().unwrap();
            if name == "ndcg@20" || name == "err@20" {
                let why = m["not_computed"].as_str().unwrap_or_default();
                assert!(why.contains("NaN"), "{m}");
                assert!(m["mean_a"].is_null() && m["mean_b"].is_null(), "{m}");
            } else {
                assert!(m["not_computed"].is_null(), "{m}");
                assert_eq!(m["n"], 2, "{m}");
            }
        }
    }
);
