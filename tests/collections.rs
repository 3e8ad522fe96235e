//! The collections beyond ClueWeb09/12 and TREC, end to end: ClueWeb22 (`html` and `txt`
//! parts), JSON lines (Anserini, BEIR), TSV (MS MARCO), `--docid-header`,
//! and documents back out with `sieve-index show` (text, `--json`, `--html
//! --query`, `--raw`) on single, shard and merged indexes, refused when the
//! source moved or changed.
//!
//! `show --raw` is checked against an oracle that does not use sieve's
//! reader: the record cut from the (decompressed) fixture by its format's
//! own boundaries (a ClueWeb22 `.offset` entry, a line, `<DOC>`..`</DOC>`,
//! `.I` to `.I`, `WARC/` to `WARC/`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::util::{Dir, code, fixture, json_lines, ok};

fn build(dir: &Dir, name: &str, inputs: &[&Path], extra: &[&str]) -> PathBuf {
    let ix = dir.join(name);
    let mut cmd = dir.cmd("sieve-index");
    cmd.arg("build").arg("--input");
    for i in inputs {
        cmd.arg(i);
    }
    cmd.arg("--index")
        .arg(&ix)
        .args(["--threads", "2"])
        .args(extra);
    ok(&mut cmd);
    ix
}

fn docids(dir: &Dir, ix: &Path) -> Vec<String> {
    ok(dir.cmd("sieve-index").args(["docids", "--index"]).arg(ix))
        .lines()
        .map(str::to_string)
        .collect()
}

fn show(dir: &Dir, ix: &Path, args: &[&str]) -> Output {
    dir.cmd("sieve-index")
        .args(["show", "--index"])
        .arg(ix)
        .args(args)
        .output()
        .expect("spawn")
}

fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn decompressed(p: &Path) -> Vec<u8> {
    let raw = std::fs::read(p).unwrap();
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        // A truncated sample ends in an error: keep what was decompressed.
        let _ = flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out);
        out
    } else {
        raw
    }
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The lines of `bytes`, each with its `\n`.
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// Positions where `pat` starts a line.
fn line_starts(bytes: &[u8], pat: &[u8]) -> Vec<usize> {
    let mut v: Vec<usize> = Vec::new();
    if bytes.starts_with(pat) {
        v.push(0);
    }
    let mut i = 0;
    while let Some(k) = find(&bytes[i..], &[b"\n", pat].concat()) {
        v.push(i + k + 1);
        i += k + 1;
    }
    v
}

/// WARC records of a decompressed file, cut at each `WARC/1.0` or
/// `WARC/0.18` line, with the docid the record names (WARC-TREC-ID, else
/// ClueWeb22-ID, else WARC-Record-ID).
fn warc_records(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut starts: Vec<usize> = line_starts(bytes, b"WARC/1.0\r\n");
    starts.extend(line_starts(bytes, b"WARC/0.18\n"));
    starts.extend(line_starts(bytes, b"WARC/1.1\r\n"));
    starts.sort_unstable();
    starts.dedup();
    starts.push(bytes.len());
    let mut out = Vec::new();
    for w in starts.windows(2) {
        let piece = &bytes[w[0]..w[1]];
        let head_end = find(piece, b"\n\r\n")
            .map(|i| i + 3)
            .or_else(|| find(piece, b"\n\n").map(|i| i + 2))
            .unwrap_or(piece.len());
        let head = String::from_utf8_lossy(&piece[..head_end]);
        // The record: its header, its Content-Length block, and a trailer of
        // at most four CR/LF bytes (WARC/1.x: CRLF CRLF) when what follows
        // the block is only line ends; else (a wrong Content-Length, as in
        // damaged ClueWeb09 copies) the whole piece.
        let cl = head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case("Content-Length")
                .then(|| v.trim().parse::<usize>().ok())?
        });
        let rec = match cl {
            Some(cl)
                if head_end + cl <= piece.len()
                    && piece[head_end + cl..]
                        .iter()
                        .all(|&b| b == b'\r' || b == b'\n') =>
            {
                &piece[..(head_end + cl + 4).min(piece.len())]
            }
            _ => piece,
        };
        let field = |name: &str| {
            head.lines().find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.trim().eq_ignore_ascii_case(name).then(|| {
                    v.trim()
                        .trim_start_matches('<')
                        .trim_end_matches('>')
                        .to_string()
                })
            })
        };
        let id = field("WARC-TREC-ID")
            .or_else(|| field("ClueWeb22-ID"))
            .or_else(|| field("WARC-Record-ID"))
            .unwrap_or_default();
        out.push((id, rec.to_vec()));
    }
    out
}

/// TREC documents: `<DOC>` through `</DOC>`, by DOCNO.
fn trec_records(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(s) = find(&bytes[i..], b"<DOC>") {
        let s = i + s;
        let e = s + find(&bytes[s..], b"</DOC>").unwrap() + 6;
        let rec = &bytes[s..e];
        let a = find(rec, b"<DOCNO>").unwrap() + 7;
        let b = find(rec, b"</DOCNO>").unwrap();
        out.push((
            String::from_utf8_lossy(&rec[a..b]).trim().to_string(),
            rec.to_vec(),
        ));
        i = e;
    }
    out
}

/// SMART records: from a `.I` line to the next.
fn smart_records(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut starts = line_starts(bytes, b".I ");
    starts.push(bytes.len());
    starts
        .windows(2)
        .map(|w| {
            let rec = &bytes[w[0]..w[1]];
            let first = lines(rec)[0];
            (
                String::from_utf8_lossy(&first[3..]).trim().to_string(),
                rec.to_vec(),
            )
        })
        .collect()
}

/// Checks `show --raw` on every (docid, expected bytes) pair: one call with
/// all the docids gives their records concatenated, in the order asked.
fn check_raw(dir: &Dir, ix: &Path, want: &[(String, Vec<u8>)]) {
    let indexed = docids(dir, ix);
    let want: Vec<&(String, Vec<u8>)> =
        want.iter().filter(|(id, _)| indexed.contains(id)).collect();
    assert!(!want.is_empty(), "{}: nothing to check", ix.display());
    assert_eq!(
        want.len(),
        indexed.len(),
        "{}: oracle and index disagree on the documents",
        ix.display()
    );
    let ids: Vec<&str> = want.iter().map(|(id, _)| id.as_str()).collect();
    let out = show(dir, ix, &[&["--raw"][..], &ids].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected: Vec<u8> = want.iter().flat_map(|(_, b)| b.iter().copied()).collect();
    if out.stdout != expected {
        // Name the first record that differs, and where.
        let mut at = 0;
        for (id, b) in &want {
            let got = &out.stdout[at.min(out.stdout.len())..(at + b.len()).min(out.stdout.len())];
            let first = got.iter().zip(b.iter()).position(|(x, y)| x != y);
            assert!(
                got == &b[..],
                "{}: raw bytes of {id}: {} bytes expected, {} got, first difference at {first:?}",
                ix.display(),
                b.len(),
                got.len()
            );
            at += b.len();
        }
        panic!("{}: raw output longer than the records", ix.display());
    }
}

sieve_test!(clueweb22_html_docids_are_its_clueweb22_ids, |dir| {
    let ix = build(&dir, "ix", &[&fixture("clueweb22/html")], &[]);
    assert_eq!(
        docids(&dir, &ix),
        [
            "clueweb22-en0000-00-00000",
            "clueweb22-en0000-00-00001",
            "clueweb22-en0000-00-00002"
        ]
    );
    // The offset file beside the WARC is recognised and named, not a failure.
    let stats = read_json(&ix.join("stats.json"));
    assert_eq!(stats["totals"]["skipped"]["offset_index"], 1, "{stats}");
    assert_eq!(stats["totals"]["indexed"], 3);
    assert!(stats["failed_files"].as_array().unwrap().is_empty());
    let m = read_json(&ix.join("sieve.json"));
    assert_eq!(
        m["options"]["docid_header"],
        "WARC-TREC-ID,ClueWeb22-ID,WARC-Record-ID"
    );
    // Language, record id, counts: from show --json.
    let out = show(
        &dir,
        &ix,
        &[
            "--json",
            "clueweb22-en0000-00-00001",
            "clueweb22-en0000-00-00002",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = json_lines(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(
        docs[0]["record_id"],
        "urn:uuid:5d2a7b6e-1b0e-4a61-9c1d-000000000001"
    );
    assert_eq!(docs[0]["language"], "en");
    assert_eq!(docs[0]["charset_source"], "meta");
    let errors: std::collections::HashMap<String, u64> =
        serde_json::from_value(serde_json::Value::Object(
            docs[0]["utf8_errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_str().unwrap().to_string(), p[1].clone()))
                .collect(),
        ))
        .unwrap();
    assert_eq!(errors["unexpected_continuation"], 1);
    assert_eq!(errors["overlong_nul"], 1);
    assert_eq!(docs[1]["language"], "fr");
    assert_eq!(docs[1]["charset"], "windows-1252");
    assert_eq!(docs[1]["title"], "Français");
});

sieve_test!(
    docid_header_is_recorded_and_a_resume_with_another_is_refused,
    |dir| {
        let input = fixture("clueweb22/html/en0000-00.warc.gz");
        let ix = build(&dir, "ix", &[&input], &["--docid-header", "WARC-Record-ID"]);
        let ids = docids(&dir, &ix);
        assert_eq!(ids[0], "urn:uuid:5d2a7b6e-1b0e-4a61-9c1d-000000000000");
        assert_eq!(
            read_json(&ix.join("sieve.json"))["options"]["docid_header"],
            "WARC-Record-ID"
        );
        let mut cmd = dir.cmd("sieve-index");
        cmd.args(["build", "--resume", "--input"])
            .arg(&input)
            .arg("--index")
            .arg(&ix)
            .args(["--docid-header", "ClueWeb22-ID"]);
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("another docid header"), "{err}");
        assert!(
            err.contains("WARC-Record-ID") && err.contains("ClueWeb22-ID"),
            "{err}"
        );
        // A header no record has: every record skipped as no_docid, exit 4.
        let mut cmd = dir.cmd("sieve-index");
        cmd.args(["build", "--input"])
            .arg(&input)
            .arg("--index")
            .arg(dir.join("none"))
            .args(["--docid-header", "X-Not-There"]);
        code(&mut cmd, 4);
        let stats = read_json(&dir.join("none/stats.json"));
        assert_eq!(stats["totals"]["skipped"]["no_docid"], 3);
    }
);

sieve_test!(json_lines_and_tsv_collections_with_losses_counted, |dir| {
    let ix = build(
        &dir,
        "ix",
        &[&fixture("jsonl"), &fixture("tsv/collection.tsv")],
        &[],
    );
    let mut ids = docids(&dir, &ix);
    ids.sort();
    assert_eq!(
        ids,
        [
            "0", "1", "4", "beir-1", "beir-2", "beir-3", "doc1", "doc2", "doc6"
        ]
    );
    let stats = read_json(&ix.join("stats.json"));
    let t = &stats["totals"];
    // Docid "4" is in a JSON-lines file and in the TSV file: the second
    // copy is a named loss, not a second document.
    assert_eq!(t["skipped"]["duplicate_docid"], 1, "{t}");
    assert_eq!(t["skipped"]["malformed_line"], 2, "{t}");
    assert_eq!(t["skipped"]["no_docid"], 1, "{t}");
    assert_eq!(t["skipped"]["empty_body"], 2, "{t}");
    // The lone surrogate escape and the raw 0xFF byte are counted.
    assert_eq!(t["utf8_errors"]["surrogate"], 1, "{t}");
    assert_eq!(t["utf8_errors"]["invalid_4_5_6"], 1, "{t}");
    assert_eq!(t["charset_sources"]["format"], 7, "{t}");
    let losses = json_lines(&std::fs::read_to_string(ix.join("losses.jsonl")).unwrap());
    let malformed: Vec<&serde_json::Value> = losses
        .iter()
        .filter(|l| l["reason"] == "malformed_line")
        .collect();
    assert_eq!(malformed.len(), 2);
    assert_eq!(malformed[0]["offset"], 191);
    assert_eq!(
        malformed[0]["detail"],
        "byte 48 of the line: the line ends inside a string"
    );
    assert_eq!(malformed[1]["detail"], "1 column(s), expected 2 (id,text)");
    // Other field names and columns by flags.
    let d = dir.write(
        "other.jsonl",
        b"{\"pid\": \"p1\", \"passage\": \"mapped text\", \"headline\": \"mapped title\"}\n",
    );
    let ix2 = build(
        &dir,
        "ix2",
        &[&d, &fixture("tsv/msmarco-docs.tsv.gz")],
        &[
            "--id-field",
            "pid",
            "--text-field",
            "passage",
            "--title-field",
            "headline",
            "--tsv-columns",
            "id,url,title,text",
        ],
    );
    assert_eq!(docids(&dir, &ix2), ["D1", "D2", "p1"]);
    let out = show(&dir, &ix2, &["--json", "p1", "D2"]);
    let docs = json_lines(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(docs[0]["title"], "mapped title");
    assert_eq!(docs[0]["text"], "mapped text");
    assert_eq!(docs[1]["url"], "https://sieve.example/d2");
    let m = read_json(&ix2.join("sieve.json"));
    assert_eq!(
        m["options"]["tsv_columns"],
        serde_json::json!(["id", "url", "title", "text"])
    );
    assert_eq!(
        m["options"]["json_fields"]["id"],
        serde_json::json!(["pid"])
    );
    // A bad column list is refused before anything is built.
    let mut cmd = dir.cmd("sieve-index");
    cmd.args(["build", "--input"])
        .arg(&d)
        .args(["--index", "ix3", "--tsv-columns", "id,body"]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--tsv-columns id,body: unknown column `body`")
    );
    assert!(!dir.join("ix3").exists());
});

sieve_test!(
    show_raw_returns_exactly_the_record_bytes_for_every_layout,
    |dir| {
        // ClueWeb22 html and txt: per-record gzip members, cut by the .offset files.
        for (part, file, offsets) in [
            (
                "html",
                "clueweb22/html/en0000-00.warc.gz",
                "clueweb22/html/en0000-00.warc.offset",
            ),
            (
                "txt",
                "clueweb22/txt/en0000-00.json.gz",
                "clueweb22/txt/en0000-00.offset",
            ),
        ] {
            let gz = std::fs::read(fixture(file)).unwrap();
            let offs: Vec<usize> = std::fs::read_to_string(fixture(offsets))
                .unwrap()
                .lines()
                .map(|l| l.parse().unwrap())
                .collect();
            let want: Vec<(String, Vec<u8>)> = offs
                .windows(2)
                .enumerate()
                .map(|(i, w)| {
                    let mut rec = Vec::new();
                    flate2::read::GzDecoder::new(&gz[w[0]..w[1]])
                        .read_to_end(&mut rec)
                        .unwrap();
                    (format!("clueweb22-en0000-00-0000{i}"), rec)
                })
                .collect();
            let ix = build(&dir, part, &[&fixture(file)], &[]);
            check_raw(&dir, &ix, &want);
        }
        // JSON lines (plain; one gzip stream) and TSV: a line each.
        // The id cut from the bytes (serde_json would refuse the lines with a
        // lone surrogate escape or a raw invalid byte, which sieve indexes).
        let jsonl_ids = |bytes: &[u8]| -> Vec<(String, Vec<u8>)> {
            lines(bytes)
                .into_iter()
                .filter_map(|l| {
                    let at = find(l, b"\"id\": ").or_else(|| find(l, b"\"_id\": "))?;
                    let rest = &l[at..];
                    let rest = &rest[find(rest, b": ")? + 2..];
                    let id = match rest.strip_prefix(b"\"") {
                        Some(r) => &r[..find(r, b"\"")?],
                        None => &rest[..rest.iter().position(|b| !b.is_ascii_digit())?],
                    };
                    Some((String::from_utf8_lossy(id).into_owned(), l.to_vec()))
                })
                .collect()
        };
        for f in ["jsonl/anserini.jsonl", "jsonl/beir-corpus.jsonl.gz"] {
            let ix = build(&dir, &f.replace('/', "_"), &[&fixture(f)], &[]);
            check_raw(&dir, &ix, &jsonl_ids(&decompressed(&fixture(f))));
        }
        let tsv = std::fs::read(fixture("tsv/collection.tsv")).unwrap();
        let want: Vec<(String, Vec<u8>)> = lines(&tsv)
            .into_iter()
            .filter_map(|l| {
                let tab = l.iter().position(|&b| b == b'\t')?;
                Some((String::from_utf8_lossy(&l[..tab]).into_owned(), l.to_vec()))
            })
            .collect();
        let ix = build(&dir, "tsv", &[&fixture("tsv/collection.tsv")], &[]);
        check_raw(&dir, &ix, &want);
        // TREC, plain; SMART, plain.
        let ix = build(&dir, "trec", &[&fixture("trec/cacm-first5.trec")], &[]);
        check_raw(
            &dir,
            &ix,
            &trec_records(&std::fs::read(fixture("trec/cacm-first5.trec")).unwrap()),
        );
        let ix = build(
            &dir,
            "smart",
            &[&fixture("cranfield/cran.all.first50")],
            &[],
        );
        check_raw(
            &dir,
            &ix,
            &smart_records(&std::fs::read(fixture("cranfield/cran.all.first50")).unwrap()),
        );
        // Real WARC samples: ClueWeb09 and ClueWeb12 (gzip), Common Crawl (per-record gzip).
        for f in [
            "warc/copycat__cw09-en0000-00.warc.gz",
            "warc/copycat__cw12-0000tw-00.warc.gz",
            "warc/resiliparse__warcfile.warc.gz",
            "warc/jwarc__cc.warc.gz",
        ] {
            let ix = build(&dir, &f.replace('/', "_"), &[&fixture(f)], &[]);
            check_raw(&dir, &ix, &warc_records(&decompressed(&fixture(f))));
        }
        // The same ClueWeb12 file plain, and as one gzip stream.
        let plain = decompressed(&fixture("warc/copycat__cw12-0000tw-00.warc.gz"));
        let p = dir.write("cw12.warc", &plain);
        let ix = build(&dir, "cw12-plain", &[&p], &[]);
        check_raw(&dir, &ix, &warc_records(&plain));
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut enc, &plain).unwrap();
        let one = dir.write("cw12-one.warc.gz", &enc.finish().unwrap());
        let ix = build(&dir, "cw12-one", &[&one], &[]);
        check_raw(&dir, &ix, &warc_records(&plain));
        // TREC as one gzip stream (CACM, 3,204 documents): the cost of reaching
        // a record grows with its offset, and is said on stderr.
        let ix = build(&dir, "cacm", &[&fixture("cacm/cacm.trec.gz")], &[]);
        let cacm = trec_records(&decompressed(&fixture("cacm/cacm.trec.gz")));
        let out = show(&dir, &ix, &["--raw", &cacm[3203].0]);
        assert_eq!(out.stdout, cacm[3203].1);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("one gzip stream")
                && err.contains("decompressed from the start of the file"),
            "{err}"
        );
        let out = show(&dir, &ix, &["--raw", &cacm[0].0]);
        assert_eq!(out.stdout, cacm[0].1);
        assert!(
            out.stderr.is_empty(),
            "the first record needs nothing before it"
        );
    }
);

sieve_test!(show_text_agrees_with_what_was_indexed, |dir| {
    let inputs = [
        fixture("clueweb22"),
        fixture("jsonl"),
        fixture("tsv/collection.tsv"),
        fixture("trec/cacm-first5.trec"),
        fixture("warc/copycat__cw12-0000tw-00.warc.gz"),
        fixture("warc/jwarc__cc.warc.gz"),
        fixture("cranfield/cran.all.first50"),
    ];
    let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let ix = build(&dir, "ix", &refs, &[]);
    let mut ids = docids(&dir, &ix);
    ids.dedup();
    let mut args = vec!["--json"];
    args.extend(ids.iter().map(String::as_str));
    let out = show(&dir, &ix, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = json_lines(&String::from_utf8(out.stdout).unwrap());
    assert!(docs.len() >= ids.len());
    // The text extracted again analyses to as many tokens as the index
    // holds for the document.
    for d in &docs {
        assert_eq!(d["tokens"], d["indexed_tokens"], "{}", d["docid"]);
        assert!(d["tokens"].as_u64().unwrap() > 0, "{}", d["docid"]);
    }
    // Text output names the facts.
    let out = show(&dir, &ix, &["doc2"]);
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "docid        doc2",
        "charset      UTF-8 (decided by format)",
        "surrogate 1",
        "spam         none",
        "lone",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    // A docid not in the index: named, the others still shown, exit 4.
    let out = show(&dir, &ix, &["doc1", "no-such-doc"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stdout).contains("docid        doc1"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no document with docid \"no-such-doc\"")
    );
});

sieve_test!(show_html_marks_query_terms_and_escapes_the_text, |dir| {
    let f = dir.write(
        "c.jsonl",
        b"{\"id\": \"x1\", \"title\": \"Foxes <b>& hounds\", \"contents\": \"The quick fox jumps; <script>alert(1)</script> FOXES run.\"}\n",
    );
    let ix = build(&dir, "ix", &[&f], &[]);
    let out = show(&dir, &ix, &["--html", "--query", "running fox", "x1"]);
    assert!(out.status.success());
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        html.contains("<h1 dir=\"auto\"><mark>Foxes</mark> &lt;b&gt;&amp; hounds</h1>"),
        "{html}"
    );
    assert!(html.contains("The quick <mark>fox</mark> jumps; &lt;script&gt;alert(1)&lt;/script&gt; <mark>FOXES</mark> <mark>run</mark>."), "{html}");
    // Self-contained: nothing loaded from elsewhere, no script.
    for bad in ["<script", "src=", "<link", "http://", "https://"] {
        assert!(!html.contains(bad), "{bad} in {html}");
    }
    // --query needs --html; --raw excludes --html.
    assert_eq!(
        show(&dir, &ix, &["--query", "fox", "x1"]).status.code(),
        Some(2)
    );
    assert_eq!(
        show(&dir, &ix, &["--raw", "--html", "x1"]).status.code(),
        Some(2)
    );
});

sieve_test!(
    show_works_on_shards_and_merged_indexes_from_another_directory,
    |dir| {
        // Inputs named relative to where the shards are built.
        std::fs::create_dir_all(dir.join("data")).unwrap();
        for (from, to) in [
            ("clueweb22/html/en0000-00.warc.gz", "data/cw22.warc.gz"),
            ("jsonl/anserini.jsonl", "data/a.jsonl"),
        ] {
            std::fs::copy(fixture(from), dir.join(to)).unwrap();
        }
        for (shard, input) in [("s1", "data/cw22.warc.gz"), ("s2", "data/a.jsonl")] {
            ok(dir
                .cmd("sieve-index")
                .args(["build-shard", "--input", input, "--index", shard]));
        }
        ok(dir
            .cmd("sieve-index")
            .args(["merge", "--shards", "s1", "s2", "--index", "merged"]));
        let want_cw = {
            let gz = std::fs::read(dir.join("data/cw22.warc.gz")).unwrap();
            let mut rec = Vec::new();
            flate2::read::GzDecoder::new(&gz[412..861])
                .read_to_end(&mut rec)
                .unwrap();
            rec
        };
        let want_json = lines(&std::fs::read(dir.join("data/a.jsonl")).unwrap())[1].to_vec();
        // From another working directory: the manifest's canonical paths.
        let elsewhere = Dir::new("elsewhere");
        for ix in [dir.join("s1"), dir.join("merged")] {
            let out = show(&elsewhere, &ix, &["--raw", "clueweb22-en0000-00-00001"]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(out.stdout, want_cw);
        }
        let out = show(&elsewhere, &dir.join("merged"), &["--raw", "doc2"]);
        assert_eq!(out.stdout, want_json);
        let out = show(
            &elsewhere,
            &dir.join("merged"),
            &["doc2", "clueweb22-en0000-00-00000"],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("source       data/a.jsonl"), "{text}");
        assert!(text.contains("title        Sieve fixture one"), "{text}");
    }
);

sieve_test!(show_refuses_a_source_that_moved_or_changed, |dir| {
    let src = dir.join("c.jsonl");
    std::fs::copy(fixture("jsonl/anserini.jsonl"), &src).unwrap();
    let ix = build(&dir, "ix", &[&src], &[]);
    assert!(show(&dir, &ix, &["doc1"]).status.success());
    // Changed: same path, other size.
    let mut bytes = std::fs::read(&src).unwrap();
    bytes.extend_from_slice(b"{\"id\":\"new\",\"contents\":\"appended\"}\n");
    std::fs::write(&src, &bytes).unwrap();
    let out = show(&dir, &ix, &["--raw", "doc1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("changed since the build") && err.contains("459 bytes"),
        "{err}"
    );
    // Moved.
    std::fs::rename(&src, dir.join("moved.jsonl")).unwrap();
    let out = show(&dir, &ix, &["doc1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is gone") && err.contains("moved or deleted"),
        "{err}"
    );
});
