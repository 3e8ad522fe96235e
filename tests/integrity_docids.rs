//! Docids that would break a TREC run file are never indexed: a document
//! whose id is empty or holds whitespace (C `isspace` or Unicode) or a
//! control character is skipped by every reader as a counted, logged loss
//! (`bad_docid`), and every run line `sieve-search run` writes has exactly
//! six fields however it is split. Fixtures are built here, in a temporary
//! directory: one bad docid per refused character, per reader.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::util::{Dir, code, json_lines, ok};

/// The characters tried inside a docid: C `isspace`, other C0/C1 controls
/// and DEL, and Unicode whitespace beyond ASCII.
const BAD: &[char] = &[
    ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\0', '\u{1}', '\u{1b}', '\u{1f}', '\u{7f}', '\u{80}',
    '\u{85}', '\u{9f}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2009}', '\u{200a}', '\u{2028}',
    '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}',
];

/// The six characters C `isspace` splits on (C locale), as trec_eval does.
const C_SPACE: &[char] = &[' ', '\t', '\n', '\u{b}', '\u{c}', '\r'];

/// Unicode White_Space, written out (not `char::is_whitespace`, so the
/// test does not share the code it tests).
fn is_unicode_space(c: char) -> bool {
    C_SPACE.contains(&c)
        || matches!(
            c,
            '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
        )
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
        )
}

/// The rule a docid holding `c` breaks.
fn rule_of(c: char) -> &'static str {
    if is_unicode_space(c) {
        "whitespace"
    } else {
        "control"
    }
}

/// The docid as `losses.jsonl` names it: Rust's `escape_debug`, with
/// every refused character as an escape (`\t`, `\n`, `\r`, `\0`, else
/// `\u{hex}`).
fn escaped(id: &str) -> String {
    let mut out = String::new();
    for c in id.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if is_unicode_space(c) || (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// One fixture's documents: each id, and the refused character in it.
struct Ids {
    ids: Vec<(String, Option<char>)>,
}

impl Ids {
    /// Good ids first (so the format is detected from a clean record),
    /// then one bad id per character of `BAD` the format can carry (not in
    /// `cannot`), each followed by another good one.
    fn new(cannot: &[char]) -> Self {
        let mut ids = vec![("good-0".to_string(), None)];
        for (i, &c) in BAD.iter().filter(|c| !cannot.contains(c)).enumerate() {
            ids.push((format!("bad{i}{c}x"), Some(c)));
            ids.push((format!("good-{}", i + 1), None));
        }
        Ids { ids }
    }

    fn good(&self) -> BTreeSet<String> {
        self.ids
            .iter()
            .filter(|(_, c)| c.is_none())
            .map(|(d, _)| d.clone())
            .collect()
    }

    fn bad(&self) -> impl Iterator<Item = (&str, char)> {
        self.ids
            .iter()
            .filter_map(|(d, c)| c.map(|c| (d.as_str(), c)))
    }
}

/// Builds `input` into an index and checks: the bad records are absent and
/// each is one `bad_docid` loss naming its rule and escaped docid, counted in
/// `stats.json`; the good ones are indexed; a run over them has six fields
/// per line under C `isspace` and Unicode whitespace splitting.
fn check_build(dir: &Dir, input: &Path, ids: &Ids) {
    let ix = dir.join(&format!(
        "ix-{}",
        input.file_name().unwrap().to_string_lossy()
    ));
    let o = dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(input)
        .arg("--index")
        .arg(&ix)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(0), "{said}");
    let n_bad = ids.bad().count();
    assert!(
        said.contains(&format!("bad_docid={n_bad}")),
        "the summary counts them: {said}"
    );
    let losses = json_lines(&std::fs::read_to_string(ix.join("losses.jsonl")).unwrap());
    let bad_lines: Vec<_> = losses
        .iter()
        .filter(|l| l["reason"] == "bad_docid")
        .collect();
    for (id, c) in ids.bad() {
        let want = escaped(id);
        let hits: Vec<_> = bad_lines
            .iter()
            .filter(|l| l["record_id"] == want.as_str())
            .collect();
        assert_eq!(
            hits.len(),
            1,
            "{input:?}: docid {want} not logged once: {losses:?}"
        );
        let detail = hits[0]["detail"].as_str().unwrap_or_default();
        assert_eq!(
            detail.split(':').next(),
            Some(rule_of(c)),
            "{want}: {detail}"
        );
    }
    assert_eq!(bad_lines.len(), n_bad, "{input:?}: {losses:?}");
    assert_eq!(
        losses.len(),
        n_bad,
        "{input:?}: only the bad docids are lost: {losses:?}"
    );
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ix.join("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["totals"]["skipped"]["bad_docid"], n_bad, "{stats}");
    assert_eq!(stats["totals"]["indexed"], ids.good().len(), "{stats}");
    let listed: BTreeSet<String> = ok(dir.cmd("sieve-index").args(["docids", "--index"]).arg(&ix))
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(listed, ids.good(), "{input:?}");
    let run = search(dir, &ix);
    let found: BTreeSet<String> = run.iter().map(|f| f[2].clone()).collect();
    assert_eq!(
        found,
        ids.good(),
        "{input:?}: the run holds the good docids"
    );
}

/// `sieve-search run` for one topic matching every document; the run's
/// lines, each checked to have six fields under both splits.
fn search(dir: &Dir, ix: &Path) -> Vec<Vec<String>> {
    let topics = dir.write("topics.tsv", b"1\tapple\n");
    let out = dir.join("docid.run");
    ok(dir
        .cmd("sieve-search")
        .args(["run", "--hits", "1000", "--index"])
        .arg(ix)
        .arg("--topics")
        .arg(&topics)
        .arg("--output")
        .arg(&out));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_six_fields(&text);
    text.lines()
        .map(|l| {
            l.split(C_SPACE)
                .filter(|f| !f.is_empty())
                .map(String::from)
                .collect()
        })
        .collect()
}

/// Every line of `run` has exactly six fields split on C `isspace` (as
/// trec_eval reads it) and on Unicode whitespace (as Python's `str.split`).
fn assert_six_fields(run: &str) {
    for line in run.lines() {
        let c = line.split(C_SPACE).filter(|f| !f.is_empty()).count();
        let u = line
            .split(is_unicode_space)
            .filter(|f| !f.is_empty())
            .count();
        assert_eq!((c, u), (6, 6), "run line {line:?}");
    }
}

fn body(i: usize) -> String {
    format!("apple banana cherry number{i}")
}

fn json_file(ids: &Ids) -> Vec<u8> {
    let mut out = String::new();
    for (i, (id, _)) in ids.ids.iter().enumerate() {
        let v = serde_json::json!({ "id": id, "contents": body(i) });
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out.into_bytes()
}

fn tsv_file(ids: &Ids) -> Vec<u8> {
    let lines: Vec<String> = ids
        .ids
        .iter()
        .enumerate()
        .map(|(i, (id, _))| format!("{id}\t{}\n", body(i)))
        .collect();
    lines.concat().into_bytes()
}

fn trec_file(ids: &Ids) -> Vec<u8> {
    let docs: Vec<String> = ids
        .ids
        .iter()
        .enumerate()
        .map(|(i, (id, _))| {
            format!(
                "<DOC>\n<DOCNO> {id} </DOCNO>\n<TEXT>\n{}\n</TEXT>\n</DOC>\n",
                body(i)
            )
        })
        .collect();
    docs.concat().into_bytes()
}

fn smart_file(ids: &Ids) -> Vec<u8> {
    let docs: Vec<String> = ids
        .ids
        .iter()
        .enumerate()
        .map(|(i, (id, _))| format!(".I {id}\n.W\n{}\n", body(i)))
        .collect();
    docs.concat().into_bytes()
}

/// A WARC/1.0 file of HTML responses whose id is in `header`
/// (`WARC-TREC-ID`, `ClueWeb22-ID`, or `WARC-Record-ID` alone).
fn warc_file(ids: &Ids, header: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, (id, _)) in ids.ids.iter().enumerate() {
        let html = format!("<html><body><p>{}</p></body></html>", body(i));
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{html}");
        let ids_head = if header == "WARC-Record-ID" {
            format!("WARC-Record-ID: <{id}>\r\n")
        } else {
            format!("WARC-Record-ID: <urn:uuid:r{i}>\r\n{header}: {id}\r\n")
        };
        out.extend_from_slice(
            format!(
                "WARC/1.0\r\nWARC-Type: response\r\n{ids_head}WARC-Target-URI: http://example.org/{i}\r\n\
                 Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
                http.len()
            )
            .as_bytes(),
        );
    }
    out
}

fn write(dir: &Dir, name: &str, bytes: &[u8]) -> PathBuf {
    dir.write(name, bytes)
}

sieve_test!(
    json_docid_with_whitespace_or_control_is_skipped_as_a_loss,
    |dir| {
        let ids = Ids::new(&[]);
        check_build(&dir, &write(&dir, "docs.jsonl", &json_file(&ids)), &ids);
    }
);

sieve_test!(
    tsv_docid_with_whitespace_or_control_is_skipped_as_a_loss,
    |dir| {
        // A tab ends the id column and a line end the line: neither can be in
        // a TSV docid.
        let ids = Ids::new(&['\t', '\n']);
        check_build(&dir, &write(&dir, "docs.tsv", &tsv_file(&ids)), &ids);
    }
);

sieve_test!(
    trec_docno_with_whitespace_or_control_is_skipped_as_a_loss,
    |dir| {
        let ids = Ids::new(&[]);
        check_build(&dir, &write(&dir, "docs.trec", &trec_file(&ids)), &ids);
    }
);

sieve_test!(
    smart_id_with_whitespace_or_control_is_skipped_as_a_loss,
    |dir| {
        // A line end ends the `.I` line.
        let ids = Ids::new(&['\n']);
        check_build(&dir, &write(&dir, "docs.smart", &smart_file(&ids)), &ids);
    }
);

sieve_test!(
    warc_trec_id_with_whitespace_or_control_is_skipped_as_a_loss,
    |dir| {
        // A line end ends a header line.
        let ids = Ids::new(&['\n', '\r']);
        check_build(
            &dir,
            &write(&dir, "trec-id.warc", &warc_file(&ids, "WARC-TREC-ID")),
            &ids,
        );
    }
);

sieve_test!(
    clueweb22_id_with_whitespace_or_control_is_skipped_as_a_loss,
    |dir| {
        let ids = Ids::new(&['\n', '\r']);
        check_build(
            &dir,
            &write(&dir, "cw22.warc", &warc_file(&ids, "ClueWeb22-ID")),
            &ids,
        );
    }
);

sieve_test!(
    warc_record_id_with_whitespace_or_control_is_skipped_as_a_loss,
    |dir| {
        let ids = Ids::new(&['\n', '\r']);
        check_build(
            &dir,
            &write(&dir, "record-id.warc", &warc_file(&ids, "WARC-Record-ID")),
            &ids,
        );
    }
);

sieve_test!(
    merge_runs_refuses_a_docid_with_nbsp_before_writing_anything,
    |dir| {
        // A run from elsewhere (or from an index built before docids were
        // checked): the docid holds U+00A0, which trec_eval reads as part of
        // the field but Python's `str.split` splits on.
        let a = dir.write(
            "a.run",
            "1 Q0 good 1 2 t\n2 Q0 nb\u{a0}sp 1 1 t\n".as_bytes(),
        );
        let out = dir.join("merged.run");
        let o = crate::util::fails(
            dir.cmd("sieve-search")
                .args(["merge-runs", "--output"])
                .arg(&out)
                .arg(&a),
        );
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("nb\\u{a0}sp") && err.contains("whitespace"),
            "{err}"
        );
        assert!(!out.exists(), "nothing is written: {err}");
    }
);

sieve_test!(topic_id_with_control_character_is_refused, |dir| {
    // U+0001 is not whitespace, but a control character: refused like a
    // docid holding one (and so are U+00A0 and U+3000, as whitespace).
    let ix = dir.join("ix");
    let ids = Ids::new(&[]);
    let input = write(
        &dir,
        "docs.jsonl",
        &json_file(&Ids {
            ids: ids.ids[..1].to_vec(),
        }),
    );
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(&input)
        .arg("--index")
        .arg(&ix));
    for qid in ["a\u{1}b", "a\u{a0}b", "a\u{3000}b", "a\u{7f}b"] {
        let topics = dir.write("t.tsv", format!("{qid}\tapple\n").as_bytes());
        let out = dir.join("q.run");
        let o = crate::util::fails(
            dir.cmd("sieve-search")
                .args(["run", "--index"])
                .arg(&ix)
                .arg("--topics")
                .arg(&topics)
                .arg("--output")
                .arg(&out),
        );
        assert_eq!(o.status.code(), Some(1), "{qid:?}");
        assert!(!out.exists(), "{qid:?}");
    }
});

sieve_test!(extract_and_scan_skip_a_bad_docid_as_build_does, |dir| {
    let ids = Ids::new(&[]);
    let input = write(&dir, "docs.jsonl", &json_file(&ids));
    let n_bad = ids.bad().count();
    // extract: the same losses as a build.
    let out = dir.join("extracted");
    code(
        dir.cmd("sieve-index")
            .args(["extract", "--input"])
            .arg(&input)
            .arg("--output-dir")
            .arg(&out),
        0,
    );
    let losses = json_lines(&std::fs::read_to_string(out.join("losses.jsonl")).unwrap());
    let bad = losses.iter().filter(|l| l["reason"] == "bad_docid").count();
    assert_eq!(bad, n_bad, "{losses:?}");
    // scan: the bad records are read, but not as documents.
    let scan = ok(dir.cmd("sieve-index").args(["scan", "--input"]).arg(&input));
    let s: serde_json::Value = serde_json::from_str(scan.trim()).unwrap();
    assert_eq!(s["records"], ids.ids.len(), "{s}");
    assert_eq!(s["html"], ids.good().len(), "{s}");
});
