//! `extract --format parquet`: the Parquet files read back with the
//! parquet crate's reader hold exactly the documents and fields of the
//! JSON lines of the same input; the `--full` columns; the same bytes for
//! any thread count and after a kill and `--resume`; template removal;
//! a resume in another format refused.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::Value;

use crate::util::{Dir, code, fails, fixture, ok};

/// The files of `out` whose name ends in `ext`, by name.
fn outputs(out: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(out)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    files.sort();
    files
}

/// A JSON record without its null fields (a JSON record omits `spam` and
/// the `--full` fields when absent; a Parquet row has them as nulls).
fn without_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        v => v,
    }
}

fn field_json(f: &Field) -> Value {
    match f {
        Field::Null => Value::Null,
        Field::Str(s) => Value::String(s.clone()),
        Field::ULong(n) => Value::from(*n),
        Field::UByte(n) => Value::from(*n),
        Field::Group(row) => Value::Object(
            row.get_column_iter()
                .map(|(k, v)| (k.clone(), field_json(v)))
                .collect(),
        ),
        other => panic!("unexpected Parquet value {other:?}"),
    }
}

/// The rows of a Parquet file as JSON objects (column order kept in
/// `columns`), and the file's row-group sizes.
fn parquet_rows(path: &Path) -> (Vec<String>, Vec<Value>, Vec<i64>) {
    let reader =
        SerializedFileReader::new(std::fs::File::open(path).expect("open")).expect("parquet");
    let groups = reader
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    let columns: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema()
        .get_fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    let rows = reader
        .get_row_iter(None)
        .expect("rows")
        .map(|r| {
            let r = r.expect("row");
            Value::Object(
                r.get_column_iter()
                    .map(|(k, v)| (k.clone(), field_json(v)))
                    .collect(),
            )
        })
        .collect();
    (columns, rows, groups)
}

fn jsonl_rows(path: &Path) -> Vec<Value> {
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).expect("open"))
        .read_to_string(&mut s)
        .expect("gunzip");
    s.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// Runs `extract` into `name` with `args`, expecting exit status `want`.
fn extract(dir: &Dir, name: &str, inputs: &[PathBuf], args: &[&str], want: i32) -> PathBuf {
    let out = dir.join(name);
    let mut c = dir.cmd("sieve-index");
    c.arg("extract").args(args).arg("--output-dir").arg(&out);
    for p in inputs {
        c.arg("--input").arg(p);
    }
    code(&mut c, want);
    out
}

/// The bytes of every Parquet and gzip file under `out`, by relative name.
fn all_bytes(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    let mut stack = vec![out.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p.strip_prefix(out).unwrap().to_string_lossy().into_owned();
            if rel.ends_with(".parquet") || rel.ends_with(".gz") {
                m.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    m
}

/// Asserts the Parquet files of `pq` hold the records of the JSON-lines
/// files of `js`, file by file, row by row, field by field; returns the
/// number of records.
fn same_records(js: &Path, pq: &Path, full: bool) -> usize {
    let j = outputs(js, ".jsonl.gz");
    let p = outputs(pq, ".parquet");
    assert!(!j.is_empty());
    assert_eq!(
        j.iter()
            .map(|f| f
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".jsonl.gz", ""))
            .collect::<Vec<_>>(),
        p.iter()
            .map(|f| f
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".parquet", ""))
            .collect::<Vec<_>>(),
        "one Parquet file per JSON-lines file, same names"
    );
    let mut want_cols: Vec<&str> = vec![
        "docid",
        "url",
        "source",
        "offset",
        "charset",
        "charset_source",
        "errors",
        "spam",
        "title",
        "text",
    ];
    if full {
        want_cols.extend(["warc_headers", "http_headers", "html"]);
    }
    let mut n = 0;
    for (jf, pf) in j.iter().zip(&p) {
        sieve_ingest::parquetfile::check(pf).expect("version and checksum");
        let (cols, rows, _) = parquet_rows(pf);
        assert_eq!(cols, want_cols, "{}", pf.display());
        let records = jsonl_rows(jf);
        assert_eq!(rows.len(), records.len(), "{}", pf.display());
        for (row, rec) in rows.iter().zip(&records) {
            // Every field of the JSON record is a column, in the same order.
            let keys: Vec<&String> = rec.as_object().unwrap().keys().collect();
            let cols: Vec<&String> = row.as_object().unwrap().keys().collect();
            assert!(keys.iter().all(|k| cols.contains(k)), "{keys:?} {cols:?}");
            assert_eq!(
                without_nulls(row.clone()),
                without_nulls(rec.clone()),
                "{}: {}",
                pf.display(),
                rec["docid"]
            );
            n += 1;
        }
    }
    n
}

sieve_test!(extract_parquet_holds_the_jsonl_records, |dir| {
    let inputs = [fixture("warc"), fixture("trec")];
    let spam = fixture("spam/made-up-spam.txt");
    let spam = spam.to_str().unwrap();
    // The warc fixtures include a clipped gzip: exit status 3.
    let common = ["--spam", spam, "--threads", "2"];
    let js = extract(&dir, "js", &inputs, &common, 3);
    let pq = extract(
        &dir,
        "pq",
        &inputs,
        &[&common[..], &["--format", "parquet"]].concat(),
        3,
    );
    let n = same_records(&js, &pq, false);
    assert!(n > 40, "{n} records");
    // Non-null spam scores, nulls for the others, URLs and their nulls.
    let rows: Vec<Value> = outputs(&pq, ".parquet")
        .iter()
        .flat_map(|f| parquet_rows(f).1)
        .collect();
    assert!(rows.iter().any(|r| r["spam"].is_u64()));
    assert!(rows.iter().any(|r| r["spam"].is_null()));
    assert!(rows.iter().any(|r| r["url"].is_null()));
    assert!(
        rows.iter()
            .any(|r| r["errors"]["unexpected_continuation"].as_u64() > Some(0))
    );
    // The rest of the directory is that of a JSON-lines extract.
    for f in ["near-duplicates.tsv.gz", "stats.json", "losses.jsonl"] {
        assert!(pq.join(f).is_file(), "{f}");
    }
    let js_bands = all_bytes(&js.join("minhash"));
    assert_eq!(all_bytes(&pq.join("minhash")), js_bands);
    assert_eq!(
        std::fs::read(pq.join("near-duplicates.tsv.gz")).unwrap(),
        std::fs::read(js.join("near-duplicates.tsv.gz")).unwrap()
    );
    // --full: the heads and the HTML as three more columns.
    let js = extract(&dir, "js-full", &inputs, &["--full"], 3);
    let pq = extract(
        &dir,
        "pq-full",
        &inputs,
        &["--full", "--format", "parquet", "--threads", "1"],
        3,
    );
    assert_eq!(same_records(&js, &pq, true), n);
    let rows: Vec<Value> = outputs(&pq, ".parquet")
        .iter()
        .flat_map(|f| parquet_rows(f).1)
        .collect();
    assert!(rows.iter().any(|r| {
        r["html"]
            .as_str()
            .is_some_and(|h| h.to_ascii_lowercase().contains("<html"))
    }));
    assert!(rows.iter().any(|r| {
        r["warc_headers"]
            .as_str()
            .is_some_and(|h| h.starts_with("WARC/"))
    }));
    assert!(rows.iter().any(|r| {
        r["http_headers"]
            .as_str()
            .is_some_and(|h| h.starts_with("HTTP/"))
    }));
    // TREC records have no heads: nulls.
    assert!(
        rows.iter().any(
            |r| r["warc_headers"].is_null() && r["source"].as_str().unwrap().ends_with(".trec")
        )
    );
    // Same bytes for 1 and 2 threads.
    let pq2 = extract(
        &dir,
        "pq-full-2",
        &inputs,
        &["--full", "--format", "parquet", "--threads", "2"],
        3,
    );
    assert_eq!(all_bytes(&pq2), all_bytes(&pq));
    // A resume in the other format is refused, naming both.
    let out = fails(
        dir.cmd("sieve-index")
            .args([
                "extract",
                "--resume",
                "--full",
                "--format",
                "jsonl",
                "--output-dir",
            ])
            .arg(&pq)
            .arg("--input")
            .arg(&inputs[0])
            .arg("--input")
            .arg(&inputs[1]),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot resume in another output format")
            && err.contains("written as parquet")
            && err.contains("asks for jsonl"),
        "{err}"
    );
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(pq.join("extract.json")).unwrap()).unwrap();
    assert!(m.to_string().contains("parquet full"), "{m}");
});

sieve_test!(
    extract_parquet_drops_template_paragraphs_as_jsonl_does,
    |dir| {
        // Made-up pages: each has its own paragraph and the site's footer; one
        // page is the footer alone.
        let mut trec = String::new();
        for i in 0..5 {
            trec.push_str(&format!(
                "<DOC>\n<DOCNO>P{i}</DOCNO>\n<p>Page {i} says something of its own, number {i}.</p>\
             <p>Copyright 2020 Example Inc. All rights reserved.</p>\n</DOC>\n"
            ));
        }
        trec.push_str("<DOC>\n<DOCNO>F</DOCNO>\n<p>Copyright 2020 Example Inc. All rights reserved.</p>\n</DOC>\n");
        let input = [dir.write("site.trec", trec.as_bytes())];
        let k5 = ["--max-paragraph-docs", "5"];
        let js = extract(&dir, "js", &input, &k5, 0);
        let pq = extract(
            &dir,
            "pq",
            &input,
            &[&k5[..], &["--format", "parquet"]].concat(),
            0,
        );
        assert_eq!(same_records(&js, &pq, false), 5);
        let (_, rows, _) = parquet_rows(&outputs(&pq, ".parquet")[0]);
        assert_eq!(
            rows[0]["text"],
            "Page 0 says something of its own, number 0."
        );
        let (a, b) = (
            std::fs::read_to_string(js.join("losses.jsonl")).unwrap(),
            std::fs::read_to_string(pq.join("losses.jsonl")).unwrap(),
        );
        assert_eq!(a, b);
        assert!(b.contains("\"template_only\""), "{b}");
        // Nothing but the outputs is left: no spool, no part.
        let left: Vec<String> = std::fs::read_dir(&pq)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".part"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
);

sieve_test!(extract_parquet_is_the_same_after_a_kill_and_resume, |dir| {
    let mut inputs = crate::determinism::many_inputs(&dir);
    inputs.sort();
    let args = ["--format", "parquet", "--threads", "2"];
    let whole = extract(&dir, "whole", &inputs, &args, 0);
    let want = all_bytes(&whole);
    assert_eq!(outputs(&whole, ".parquet").len(), inputs.len());
    let mut interrupted = 0;
    for (n, delay_ms) in [60u64, 150, 400].into_iter().enumerate() {
        let name = format!("killed{n}");
        let out = dir.join(&name);
        let mut c = dir.cmd("sieve-index");
        c.arg("extract").args(args).arg("--output-dir").arg(&out);
        for p in &inputs {
            c.arg("--input").arg(p);
        }
        c.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut child = c.spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        // What the killed run left: every finished name is a whole file
        // (its checksum verifies); anything unfinished is a `.part`, which
        // no name of an output ends with.
        if !out.is_dir() || outputs(&out, ".parquet").len() < inputs.len() {
            interrupted += 1;
        }
        if out.is_dir() {
            for f in outputs(&out, ".parquet") {
                sieve_ingest::parquetfile::check(&f).expect("a finished output is whole");
            }
            for f in outputs(&out, ".part") {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                assert!(
                    name.ends_with(".parquet.part") || name.contains(".gz"),
                    "{name}"
                );
                assert!(!outputs(&out, ".parquet").contains(&f));
            }
        }
        let mut c = dir.cmd("sieve-index");
        c.arg("extract")
            .args(args)
            .arg("--resume")
            .arg("--output-dir")
            .arg(&out);
        for p in &inputs {
            c.arg("--input").arg(p);
        }
        ok(&mut c);
        assert_eq!(all_bytes(&out), want, "resume after {delay_ms} ms");
        assert!(outputs(&out, ".part").is_empty());
    }
    assert!(interrupted > 0, "no run was killed before its end");
});

sieve_test!(
    regression_extract_resumes_after_a_kill_while_the_manifest_was_written,
    |dir| {
        // As for a build (pipeline.rs): a run killed between writing its
        // manifest's temporary file and renaming it left a directory that
        // `--resume` refused as somebody else's.
        let mut inputs = crate::determinism::many_inputs(&dir);
        inputs.sort();
        let whole = extract(&dir, "whole", &inputs, &[], 0);
        let out = dir.join("killed");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("extract.json.tmp"), b"{\"tool\"").unwrap();
        extract(&dir, "killed", &inputs, &["--resume"], 0);
        assert_eq!(all_bytes(&out), all_bytes(&whole));
        assert!(!out.join("extract.json.tmp").exists());
    }
);
