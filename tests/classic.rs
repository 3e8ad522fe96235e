//! Classic test collections as shipped: Cranfield's SMART documents
//! (`cran.all.1400`), SMART queries (`cran.qry`, numbered in file order)
//! and 3-column qrels (`cranqrel`), indexed, searched and evaluated with no
//! conversion, against figures measured with Anserini on the same text
//! (`bench/peers/anserini_cranfield.sh`, numbers in `bench/README.md`).

use std::path::Path;

use crate::util::{Dir, fixture, ok};

/// Builds an index of `docs`, runs BM25 k1=0.9 b=0.4 top 1000 over
/// `topics`, evaluates with `qrels`; returns (stats.json, the run's eval
/// JSON, the run).
fn build_run_eval(
    dir: &Dir,
    docs: &Path,
    topics: &Path,
    qrels: &Path,
) -> (serde_json::Value, serde_json::Value, String) {
    let ix = dir.join("index");
    ok(dir
        .cmd("sieve-index")
        .arg("build")
        .arg("--input")
        .arg(docs)
        .arg("--index")
        .arg(&ix));
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ix.join("stats.json")).unwrap()).unwrap();
    let run_file = dir.join("bm25.run");
    ok(dir
        .cmd("sieve-search")
        .arg("run")
        .arg("--index")
        .arg(&ix)
        .arg("--topics")
        .arg(topics)
        .args(["--k1", "0.9", "--b", "0.4", "--hits", "1000", "--output"])
        .arg(&run_file));
    let eval = ok(dir
        .cmd("sieve-search")
        .args(["eval", "--json", "--qrels"])
        .arg(qrels)
        .arg(&run_file));
    let v: serde_json::Value = serde_json::from_str(&eval).unwrap();
    let run = std::fs::read_to_string(&run_file).unwrap();
    (stats, v[0].clone(), run)
}

/// MAP and P@10 of an eval JSON, rounded to 4 decimals as trec_eval
/// prints them.
fn map_p10(eval: &serde_json::Value) -> (String, String) {
    let mean = &eval["mean"];
    let get = |m: &str| {
        let x = mean[m]
            .as_f64()
            .unwrap_or_else(|| panic!("no {m} in {mean}"));
        format!("{x:.4}")
    };
    (get("map"), get("P_10"))
}

sieve_test!(cranfield_slice_as_shipped_matches_anserini, |dir| {
    // The committed slice: 50 documents, the first 11 queries (written
    // `.I 001` ... `.I 018`, judged as 1..11) and their 115 qrels lines.
    let (stats, eval, run) = build_run_eval(
        &dir,
        &fixture("cranfield/cran.all.first50"),
        &fixture("cranfield/cran.qry.first11"),
        &fixture("cranfield/cranqrel.first11"),
    );
    let t = &stats["totals"];
    assert_eq!(t["indexed"], 50, "{stats}");
    assert_eq!(t["records"], 50, "{stats}");
    let topics: std::collections::BTreeSet<u32> = run
        .lines()
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(topics, (1..=11).collect(), "queries numbered in file order");
    assert!(run.lines().all(|l| {
        let d: u32 = l.split(' ').nth(2).unwrap().parse().unwrap();
        (1..=50).contains(&d)
    }));
    // Anserini 1.7.1 on the same slice (smart_to_anserini.py, JsonCollection,
    // TsvInt topics, BM25 k1=0.9 b=0.4 top 1000), pytrec_eval: 413 run lines,
    // MAP 0.11555766635013046, P_10 0.1272727272727273.
    assert_eq!(run.lines().count(), 413);
    assert_eq!(
        map_p10(&eval),
        ("0.1156".to_string(), "0.1273".to_string()),
        "{eval}"
    );
});

sieve_test!(cranfield_bm25_matches_anserini, |dir| {
    let Some(cran) = sieve_testdata::shared_file("cranfield", "Cranfield vs Anserini") else {
        return;
    };
    let (stats, eval, run) = build_run_eval(
        &dir,
        &cran.join("cran.all.1400"),
        &cran.join("cran.qry"),
        &cran.join("cranqrel"),
    );
    let t = &stats["totals"];
    // Records 471 and 995 have empty fields (Anserini skips them too).
    assert_eq!(t["records"], 1400, "{stats}");
    assert_eq!(t["indexed"], 1398, "{stats}");
    assert_eq!(t["skipped"]["empty_body"], 2, "{stats}");
    assert_eq!(eval["num_q"], 225, "{eval}");
    let (map, p10) = map_p10(&eval);
    eprintln!("Cranfield BM25 k1=0.9 b=0.4: MAP {map} P@10 {p10} (Anserini 0.2879 / 0.2227)");
    // Anserini 1.7.1 (bench/peers/anserini_cranfield.sh), pytrec_eval over
    // the 225 queries: MAP 0.28792956658481406, P_10 0.22266666666666693.
    assert_eq!((map.as_str(), p10.as_str()), ("0.2879", "0.2227"), "{eval}");
    assert!(
        run.lines().count() > 225 * 100,
        "top 1000 of 1398 documents"
    );
});

sieve_test!(regression_smart_losses_are_counted_and_named, |dir| {
    // A damaged SMART file: an invalid UTF-8 byte in a title, an unknown
    // field, a record with no `.I` number, an empty record and one over
    // the per-record cap.
    let mut bytes = b".I 1\n.T\ncaf\x80 title\n.W\nsome text\n.Q\nunknown field\n".to_vec();
    bytes.extend_from_slice(b".I\n.W\nno number\n.I 3\n.A\nonly an author\n");
    bytes.extend_from_slice(format!(".I 4\n.W\n{}\n", "long ".repeat(100)).as_bytes());
    let input = dir.write("damaged.smart", &bytes);
    let ix = dir.join("ix");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--max-record-bytes", "100", "--input"])
        .arg(&input)
        .arg("--index")
        .arg(&ix));
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ix.join("stats.json")).unwrap()).unwrap();
    let t = &stats["totals"];
    assert_eq!(t["records"], 4, "{stats}");
    assert_eq!(t["indexed"], 2, "{stats}");
    assert_eq!(t["skipped"]["no_docid"], 1, "{stats}");
    assert_eq!(t["skipped"]["empty_body"], 1, "{stats}");
    assert_eq!(t["anomalies"]["unknown_field"], 1, "{stats}");
    assert_eq!(t["caps"]["record_bytes"], 1, "{stats}");
    // The same cleaner as every body: the stray continuation byte is counted.
    assert_eq!(t["utf8_errors"]["unexpected_continuation"], 1, "{stats}");
    let losses =
        crate::util::json_lines(&std::fs::read_to_string(ix.join("losses.jsonl")).unwrap());
    let has = |reason: &str, id: Option<&str>| {
        losses
            .iter()
            .any(|l| l["reason"] == reason && l["record_id"].as_str() == id)
    };
    assert!(has("unknown_field", Some("1")), "{losses:?}");
    assert!(has("no_docid", None), "{losses:?}");
    assert!(has("empty_body", Some("3")), "{losses:?}");
    assert!(has("cap", Some("4")), "{losses:?}");
    assert_eq!(losses.len(), 4, "{losses:?}");
    // The unknown field is not indexed; the record's own text is.
    let run = dir.join("q.run");
    let topics = dir.write("q.tsv", b"1\tunknown\n2\ttext\n");
    ok(dir
        .cmd("sieve-search")
        .arg("run")
        .arg("--index")
        .arg(&ix)
        .arg("--topics")
        .arg(&topics)
        .arg("--output")
        .arg(&run));
    let run = std::fs::read_to_string(&run).unwrap();
    assert!(!run.lines().any(|l| l.starts_with("1 ")), "{run}");
    assert!(run.lines().any(|l| l.starts_with("2 Q0 1 ")), "{run}");
});
