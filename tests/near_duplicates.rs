//! Near-duplicates and `extract`, end to end: answers known by
//! construction (copies of pages under other docids), brute-force Jaccard
//! on CACM, the rule applied at index time and at query time, and
//! `extract` giving the documents `build` indexes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use sieve_filters::minhash::{jaccard, shingles};

use crate::pipeline::{scores, untagged};
use crate::util::{Dir, code, fails, fixture, ok};

/// Runs `cmd`, asserts it exited with `want`, returns stderr.
fn stderr_of(cmd: &mut std::process::Command, want: i32) -> String {
    let out = fails(cmd);
    assert_eq!(out.status.code(), Some(want), "{cmd:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `sieve-index near-duplicates` of `index`: docid -> representative.
fn index_clusters(dir: &Dir, index: &Path) -> Vec<(String, String)> {
    let out = ok(dir
        .cmd("sieve-index")
        .args(["near-duplicates", "--index"])
        .arg(index));
    out.lines()
        .map(|l| {
            let (a, b) = l.split_once('\t').expect("docid<TAB>representative");
            (a.to_string(), b.to_string())
        })
        .collect()
}

fn gunzip(path: &Path) -> String {
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).expect("open"))
        .read_to_string(&mut s)
        .expect("gunzip");
    s
}

/// `extract`'s near-duplicates.tsv.gz, without its header.
fn extract_clusters(out: &Path) -> Vec<(String, String)> {
    gunzip(&out.join("near-duplicates.tsv.gz"))
        .lines()
        .skip(1)
        .map(|l| {
            let (a, b) = l.split_once('\t').expect("docid<TAB>representative");
            (a.to_string(), b.to_string())
        })
        .collect()
}

/// Every record of an extract, in output order (files by name).
fn extract_records(out: &Path) -> Vec<serde_json::Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(out)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".jsonl.gz"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            gunzip(f)
                .lines()
                .map(|l| serde_json::from_str(l).expect("JSON line"))
                .collect::<Vec<serde_json::Value>>()
        })
        .collect()
}

/// The docid -> representative map of all documents (alone: itself).
fn reps(all: &[String], clusters: &[(String, String)]) -> BTreeMap<String, String> {
    let listed: HashMap<&String, &String> = clusters.iter().map(|(a, b)| (a, b)).collect();
    all.iter()
        .map(|d| (d.clone(), listed.get(d).map_or(d.clone(), |r| (*r).clone())))
        .collect()
}

/// Connected components (by smallest index) of the pairs of `texts` whose
/// shingle sets have a Jaccard similarity of at least `t`, by brute force
/// (pairs sharing no shingle have similarity 0, so only pairs sharing one
/// are compared).
fn brute_components(texts: &[String], t: f64) -> Vec<usize> {
    let sets: Vec<Vec<u64>> = texts
        .iter()
        .map(|x| {
            let mut s = shingles(x, 5);
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    let mut by_shingle: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, s) in sets.iter().enumerate() {
        for &h in s {
            by_shingle.entry(h).or_default().push(i);
        }
    }
    let mut pairs = BTreeSet::new();
    for docs in by_shingle.values() {
        for (a, &i) in docs.iter().enumerate() {
            for &j in &docs[a + 1..] {
                pairs.insert((i, j));
            }
        }
    }
    let mut comp: Vec<usize> = (0..texts.len()).collect();
    fn find(p: &[usize], mut x: usize) -> usize {
        while p[x] != x {
            x = p[x];
        }
        x
    }
    for (i, j) in pairs {
        if jaccard(&sets[i], &sets[j]) >= t {
            let (a, b) = (find(&comp, i), find(&comp, j));
            comp[a.max(b)] = a.min(b);
        }
    }
    (0..texts.len()).map(|i| find(&comp, i)).collect()
}

/// The text the band keys are computed from: the body, else the title.
fn keyed_text(r: &serde_json::Value) -> String {
    let body = r["text"].as_str().unwrap_or("");
    if shingles(body, 5).is_empty() {
        r["title"].as_str().unwrap_or("").to_string()
    } else {
        body.to_string()
    }
}

/// Checks clusters against brute force: every pair with Jaccard >= 0.9 is
/// in one cluster, and every cluster lies inside one connected component of
/// the pairs with Jaccard >= 0.3 (LSH finds pairs below its threshold of
/// 0.71 only with falling probability, 0.06 at 0.5, 0.001 at 0.3). Returns
/// (clusters of two or more, brute-force components of two or more at
/// 0.71).
fn check_against_brute_force(
    records: &[serde_json::Value],
    clusters: &[(String, String)],
) -> (usize, usize) {
    let docids: Vec<String> = records
        .iter()
        .map(|r| r["docid"].as_str().unwrap().to_string())
        .collect();
    let texts: Vec<String> = records.iter().map(keyed_text).collect();
    let rep = reps(&docids, clusters);
    let strong = brute_components(&texts, 0.9);
    let weak = brute_components(&texts, 0.3);
    let mid = brute_components(&texts, sieve_format::dups::PARAMS.threshold());
    let mut by_strong: HashMap<usize, &String> = HashMap::new();
    let mut weak_of_rep: HashMap<&String, usize> = HashMap::new();
    for (i, d) in docids.iter().enumerate() {
        let r = &rep[d];
        if let Some(first) = by_strong.insert(strong[i], r) {
            assert_eq!(first, r, "{d}: a pair with Jaccard >= 0.9 is split");
        }
        if let Some(w) = weak_of_rep.insert(r, weak[i]) {
            assert_eq!(
                w, weak[i],
                "{d}: clustered with a document below Jaccard 0.3"
            );
        }
    }
    let count = |c: &[usize]| {
        let mut m: HashMap<usize, usize> = HashMap::new();
        for &x in c {
            *m.entry(x).or_default() += 1;
        }
        m.values().filter(|&&n| n > 1).count()
    };
    let clustered: BTreeSet<&String> = clusters.iter().map(|(_, r)| r).collect();
    (clustered.len(), count(&mid))
}

sieve_test!(cacm_clusters_agree_with_brute_force_jaccard, |dir| {
    let cacm = fixture("cacm/cacm.trec.gz");
    let index = dir.join("idx");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--threads", "2", "--input"])
        .arg(&cacm)
        .arg("--index")
        .arg(&index));
    let out = dir.join("ex");
    ok(dir
        .cmd("sieve-index")
        .args(["extract", "--threads", "2", "--input"])
        .arg(&cacm)
        .arg("--output-dir")
        .arg(&out));
    let records = extract_records(&out);
    assert_eq!(records.len(), 3204);
    let from_index = index_clusters(&dir, &index);
    // build and extract find the same clusters, in the same order.
    assert_eq!(from_index, extract_clusters(&out));
    let (lsh, brute) = check_against_brute_force(&records, &from_index);
    eprintln!("CACM: {lsh} clusters of two or more; brute force at J >= 0.707: {brute}");
    // CACM has no pair at or above the threshold by brute force, and LSH
    // finds none either.
    assert_eq!((lsh, brute), (0, 0));
});

/// Made-up TREC documents (none from a real collection; generated here):
/// 20 pages D00-D19; exact copies of pages 0-9 under smaller docids
/// (C.. < D..), copies of pages 10-19 with their last word changed
/// (Jaccard 0.97) under larger ones (E..). Clusters: {C_p, D_p}
/// represented by C_p (p < 10), {D_p, E_p} by D_p (p >= 10): 20
/// near-duplicates, D00-D09 and E10-E19. Returns the file and the words.
pub(crate) fn made_up_copies(dir: &Dir) -> (PathBuf, Vec<String>) {
    let words: Vec<String> = (0..400)
        .map(|i| format!("w{}x{}", i * 7919 % 401, i % 13))
        .collect();
    let page = |p: usize| -> Vec<String> {
        (0..80)
            .map(|k| words[(p * 37 + k * k * 11 + k) % 400].clone())
            .collect()
    };
    let mut trec = String::new();
    let mut doc = |id: &str, text: &[String]| {
        trec.push_str(&format!(
            "<DOC>\n<DOCNO>{id}</DOCNO>\n<TEXT>\n{}\n</TEXT>\n</DOC>\n",
            text.join(" ")
        ));
    };
    for p in 0..20 {
        doc(&format!("D{p:02}"), &page(p));
    }
    for p in 0..10 {
        doc(&format!("C{p:02}"), &page(p));
    }
    for p in 10..20 {
        let mut t = page(p);
        t[79] = "changed".into();
        doc(&format!("E{p:02}"), &t);
    }
    (dir.write("dups.trec", trec.as_bytes()), words)
}

sieve_test!(clusters_do_not_depend_on_commits_and_merges, |dir| {
    // The made-up copies (`made_up_copies`) dealt round-robin into 9 files,
    // so that clusters span files. A commit per file makes 9 segments, and
    // the near-duplicate keys of those committed before the last file are
    // read while it is indexed (build.rs, `start_early_keys`); with a merge
    // cap of 4 documents no merge runs, otherwise merges may take some of
    // those segments in meanwhile. The clusters are the same as one
    // commit's, either way.
    let (input, _) = made_up_copies(&dir);
    let text = std::fs::read_to_string(&input).unwrap();
    let docs: Vec<&str> = text.split_inclusive("</DOC>\n").collect();
    assert_eq!(docs.len(), 40);
    let files: Vec<PathBuf> = (0..9)
        .map(|f| {
            let part: String = docs.iter().skip(f).step_by(9).copied().collect();
            dir.write(&format!("part{f}.trec"), part.as_bytes())
        })
        .collect();
    let clusters = |name: &str, extra: &[&str]| {
        let index = dir.join(name);
        let mut c = dir.cmd("sieve-index");
        c.args(["build", "--threads", "2", "--index"])
            .arg(&index)
            .args(extra);
        for f in &files {
            c.arg("--input").arg(f);
        }
        ok(&mut c);
        index_clusters(&dir, &index)
    };
    let one = clusters("one", &[]);
    assert_eq!(one.len(), 40, "{one:?}");
    for (name, extra) in [
        ("each", &["--commit-every-mb", "0"][..]),
        (
            "each-unmerged",
            &["--commit-every-mb", "0", "--max-merge-docs", "4"][..],
        ),
    ] {
        assert_eq!(clusters(name, extra), one, "{extra:?}");
    }
});

sieve_test!(copies_of_pages_cluster_with_their_originals, |dir| {
    // Made-up documents: see `made_up_copies`.
    let (input, words) = made_up_copies(&dir);
    let index = dir.join("idx");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(&input)
        .arg("--index")
        .arg(&index));
    let clusters: BTreeSet<(String, String)> = index_clusters(&dir, &index).into_iter().collect();
    let mut want = BTreeSet::new();
    for p in 0..10 {
        want.insert((format!("C{p:02}"), format!("C{p:02}")));
        want.insert((format!("D{p:02}"), format!("C{p:02}")));
    }
    for p in 10..20 {
        want.insert((format!("D{p:02}"), format!("D{p:02}")));
        want.insert((format!("E{p:02}"), format!("D{p:02}")));
    }
    assert_eq!(clusters, want);
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(index.join("stats.json")).unwrap()).unwrap();
    let nd = &stats["near_duplicates"];
    assert_eq!(
        (
            nd["clustered"].as_u64(),
            nd["clusters"].as_u64(),
            nd["duplicates"].as_u64()
        ),
        (Some(40), Some(20), Some(20))
    );

    // The rule everywhere: a filter file built from the index drops the 20
    // copies at index time, and the same rule at query time with filtered
    // statistics gives the same run.
    let filter = dir.join("nodup.filter");
    ok(dir
        .cmd("sieve-filter")
        .args(["build", "--drop-near-duplicates", "--index"])
        .arg(&index)
        .arg("--output")
        .arg(&filter));
    let filtered = dir.join("idx-nodup");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(&input)
        .arg("--index")
        .arg(&filtered)
        .arg("--filter")
        .arg(&filter));
    let kept = ok(dir
        .cmd("sieve-index")
        .args(["docids", "--index"])
        .arg(&filtered));
    let kept: BTreeSet<&str> = kept.lines().collect();
    let want_kept: BTreeSet<String> = (0..10)
        .map(|p| format!("C{p:02}"))
        .chain((10..20).map(|p| format!("D{p:02}")))
        .collect();
    assert_eq!(kept, want_kept.iter().map(String::as_str).collect());
    let topics = dir.write(
        "topics.tsv",
        format!(
            "1\t{} {}\n2\t{} changed\n3\t{}\n",
            words[3], words[50], words[100], words[222]
        )
        .as_bytes(),
    );
    let run = |idx: &Path, extra: &[&str]| {
        let out = dir.join(&format!("run-{}", extra.len()));
        ok(dir
            .cmd("sieve-search")
            .args(["run", "--index"])
            .arg(idx)
            .arg("--topics")
            .arg(&topics)
            .arg("--output")
            .arg(&out)
            .args(extra));
        std::fs::read_to_string(&out).unwrap()
    };
    let at_index = run(&filtered, &[]);
    let at_query = run(
        &index,
        &["--drop-near-duplicates", "--collection-stats", "filtered"],
    );
    assert!(!at_index.is_empty());
    assert_eq!(untagged(&at_query), untagged(&at_index));
    for (a, b) in scores(&at_query).iter().zip(scores(&at_index)) {
        assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
    }
    for (_, docid, _) in untagged(&at_query) {
        assert!(want_kept.contains(&docid), "{docid} ranked");
    }
    // The report counts near-duplicates per spam percentile (scores MADE
    // UP here: C.. 10, D.. and E.. 80).
    let mut spam = String::new();
    for p in 0..20 {
        spam.push_str(&format!("80 D{p:02}\n"));
        if p < 10 {
            spam.push_str(&format!("10 C{p:02}\n"));
        } else {
            spam.push_str(&format!("80 E{p:02}\n"));
        }
    }
    let spam = dir.write("made-up-spam.txt", spam.as_bytes());
    let report = dir.join("report");
    ok(dir
        .cmd("sieve-index")
        .args(["report", "--index"])
        .arg(&index)
        .arg("--spam")
        .arg(&spam)
        .arg("--output-dir")
        .arg(&report));
    let tsv = std::fs::read_to_string(report.join("near-duplicates-by-percentile.tsv")).unwrap();
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines[0], "percentile\tdocs\tnear_duplicates\trate");
    assert_eq!(lines[1 + 10], "10\t10\t0\t0.000000");
    assert_eq!(lines[1 + 80], "80\t30\t20\t0.666667");
    assert_eq!(lines[1 + 50], "50\t0\t0\tNA");
    // A statistics TSV has no clusters: refused, naming the flag to use.
    let tsv = dir.write("docs.tsv", b"docid\tbytes\nD00\t10\n");
    let err = stderr_of(
        dir.cmd("sieve-filter")
            .args(["build", "--drop-near-duplicates", "--doc-stats"])
            .arg(&tsv)
            .arg("--output")
            .arg(dir.join("x.filter")),
        1,
    );
    assert!(err.contains("needs an index (--index DIR)"), "{err}");
});

sieve_test!(extract_writes_the_documents_build_indexes, |dir| {
    let inputs = [fixture("warc"), fixture("trec")];
    let index = dir.join("idx");
    let out = dir.join("ex");
    // The warc fixtures include a clipped gzip: exit code 3 for both.
    code(
        dir.cmd("sieve-index")
            .args(["build", "--input"])
            .args(&inputs)
            .arg("--index")
            .arg(&index),
        3,
    );
    code(
        dir.cmd("sieve-index")
            .args(["extract", "--threads", "3", "--input"])
            .args(&inputs)
            .arg("--output-dir")
            .arg(&out),
        3,
    );
    let tsv = ok(dir
        .cmd("sieve-index")
        .args(["docids", "--doc-stats", "--index"])
        .arg(&index));
    let indexed: Vec<&str> = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let records = extract_records(&out);
    let extracted: Vec<&str> = records
        .iter()
        .map(|r| r["docid"].as_str().unwrap())
        .collect();
    // One rule for docids, two outcomes: build indexes the first record
    // with a docid and skips the later ones; extract keeps the later ones
    // in its output (written before the copy is known) and names each in
    // losses.jsonl as `duplicate_docid`.
    let mut seen = std::collections::HashSet::new();
    let first: Vec<&str> = extracted
        .iter()
        .copied()
        .filter(|d| seen.insert(*d))
        .collect();
    assert_eq!(first, indexed, "same documents, same order");
    let losses = std::fs::read_to_string(out.join("losses.jsonl")).unwrap();
    let named = losses
        .lines()
        .filter(|l| l.contains("\"reason\":\"duplicate_docid\""))
        .count();
    assert_eq!(named, extracted.len() - first.len(), "{losses}");
    assert!(named > 0, "the fixtures hold a docid twice");
    let read = |p: PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let (a, b) = (read(index.join("stats.json")), read(out.join("stats.json")));
    // The build's skips are extract's plus the later copies of a docid.
    let mut skipped = b["totals"]["skipped"].clone();
    skipped["duplicate_docid"] = named.into();
    assert_eq!(a["totals"]["skipped"], skipped);
    let indexed = b["totals"]["indexed"].as_u64().unwrap() - named as u64;
    assert_eq!(a["totals"]["indexed"], indexed);
    assert_eq!(a["totals"]["utf8_errors"], b["totals"]["utf8_errors"]);
    assert_eq!(a["failed_files"], b["failed_files"]);
    // Paragraphs: separated by one blank line, lines trimmed, none empty.
    for r in &records {
        let text = r["text"].as_str().unwrap();
        for p in text.split("\n\n").filter(|_| !text.is_empty()) {
            assert!(!p.is_empty(), "{}", r["docid"]);
            for line in p.split('\n') {
                assert!(
                    !line.is_empty() && line.trim() == line,
                    "{}: {line:?}",
                    r["docid"]
                );
            }
        }
        assert!(r["errors"]["invalid_4_5_6"].is_u64() && r["charset_source"].is_string());
    }
    // The same again is refused; --resume of a finished extract changes nothing.
    let before = gunzip(&out.join("near-duplicates.tsv.gz"));
    let err = stderr_of(
        dir.cmd("sieve-index")
            .args(["extract", "--input"])
            .args(&inputs)
            .arg("--output-dir")
            .arg(&out),
        1,
    );
    assert!(err.contains("already exists"), "{err}");
    code(
        dir.cmd("sieve-index")
            .args(["extract", "--resume", "--input"])
            .args(&inputs)
            .arg("--output-dir")
            .arg(&out),
        3,
    );
    assert_eq!(extract_records(&out), records);
    assert_eq!(gunzip(&out.join("near-duplicates.tsv.gz")), before);
});

sieve_test!(
    extract_full_adds_heads_and_html_and_skips_open_files,
    |dir| {
        let warc = fixture("warc/copycat__cw12-0000tw-00.warc.gz");
        let crawl = dir.join("crawl");
        std::fs::create_dir(&crawl).unwrap();
        std::fs::copy(&warc, crawl.join("crawl-00000.warc.gz")).unwrap();
        std::fs::copy(&warc, crawl.join("crawl-00001.warc.gz.open")).unwrap();
        let out = dir.join("ex");
        ok(dir
            .cmd("sieve-index")
            .args(["extract", "--full", "--text", "main", "--input"])
            .arg(&crawl)
            .arg("--output-dir")
            .arg(&out));
        let records = extract_records(&out);
        assert!(!records.is_empty());
        for r in &records {
            assert!(
                r["warc_headers"].as_str().unwrap().starts_with("WARC/"),
                "{r}"
            );
            assert!(
                r["http_headers"].as_str().unwrap().starts_with("HTTP/"),
                "{r}"
            );
            assert!(
                r["html"]
                    .as_str()
                    .unwrap()
                    .to_ascii_lowercase()
                    .contains("<html"),
                "{r}"
            );
        }
        let stats: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap())
                .unwrap();
        let skipped = stats["skipped_inputs"].to_string();
        assert!(
            skipped.contains("crawl-00001.warc.gz.open") && skipped.contains("still being written"),
            "{skipped}"
        );
    }
);

sieve_test!(bench_corpus_copies_cluster_as_their_originals, |dir| {
    // make_corpus.py writes byte-identical copies of the 252 ClueWeb09
    // sample pages under new docids (directory 1000 + replica). The pages
    // are not all distinct in text: their own clusters are the answer,
    // and every replica must fall in the cluster of its original.
    let Some(_) = sieve_testdata::shared_file("warc", "bench corpus sources") else {
        return;
    };
    let py = |out: &Path, mb: &str| {
        let st = std::process::Command::new("python3")
            .arg(crate::util::repo_root().join("bench/peers/make_corpus.py"))
            .arg(out)
            .args(["--size-mb", mb])
            .output()
            .expect("python3");
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
    };
    let one = dir.join("one");
    let three = dir.join("three");
    py(&one, "4");
    py(&three, "12");
    let (one, three) = (
        one.join("bench-00000.warc.gz"),
        three.join("bench-00000.warc.gz"),
    );
    let ex1 = dir.join("ex1");
    ok(dir
        .cmd("sieve-index")
        .args(["extract", "--input"])
        .arg(&one)
        .arg("--output-dir")
        .arg(&ex1));
    let records = extract_records(&ex1);
    assert_eq!(records.len(), 252);
    let c1 = extract_clusters(&ex1);
    let (clusters1, brute1) = check_against_brute_force(&records, &c1);
    let ids1: Vec<String> = records
        .iter()
        .map(|r| r["docid"].as_str().unwrap().to_string())
        .collect();
    let rep1 = reps(&ids1, &c1);
    let groups1: BTreeSet<&String> = rep1.values().collect();
    let index = dir.join("idx3");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--threads", "2", "--input"])
        .arg(&three)
        .arg("--index")
        .arg(&index));
    let c3 = index_clusters(&dir, &index);
    assert_eq!(c3.len(), 3 * 252, "every document has two copies");
    // Replica r's docid has directory 1000 + r; the original is r = 0.
    let original = |d: &str| {
        d.replacen("1001-", "1000-", 1)
            .replacen("1002-", "1000-", 1)
    };
    for (d, r) in &c3 {
        assert_eq!(*r, rep1[&original(d)], "{d}");
    }
    let groups3: BTreeSet<&String> = c3.iter().map(|(_, r)| r).collect();
    assert_eq!(groups3.len(), groups1.len());
    eprintln!(
        "bench corpus: 252 pages form {} clusters ({clusters1} of two or more; brute force at J >= 0.707: {brute1} of two or more); 756 documents in 3 replicas: {} clusters",
        groups1.len(),
        groups3.len()
    );
    let ex3 = dir.join("ex3");
    ok(dir
        .cmd("sieve-index")
        .args(["extract", "--threads", "1", "--input"])
        .arg(&three)
        .arg("--output-dir")
        .arg(&ex3));
    assert_eq!(extract_clusters(&ex3), c3);
});

sieve_test!(extract_drops_template_paragraphs, |dir| {
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
    let input = dir.write("site.trec", trec.as_bytes());
    let extract = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        ok(dir
            .cmd("sieve-index")
            .args(["extract", "--input"])
            .arg(&input)
            .arg("--output-dir")
            .arg(&out)
            .args(extra));
        out
    };
    let plain = extract_records(&extract("plain", &[]));
    assert_eq!(plain.len(), 6);
    assert!(
        plain[0]["text"]
            .as_str()
            .unwrap()
            .ends_with("All rights reserved.")
    );
    // The footer is in 6 documents: dropped with K = 5, kept with K = 6.
    let out = extract("k5", &["--max-paragraph-docs", "5"]);
    let records = extract_records(&out);
    let ids: Vec<&str> = records
        .iter()
        .map(|r| r["docid"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["P0", "P1", "P2", "P3", "P4"]);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(
            r["text"],
            format!("Page {i} says something of its own, number {i}.")
        );
    }
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["totals"]["template_paragraphs"], 6);
    assert_eq!(stats["totals"]["skipped"]["template_only"], 1);
    assert_eq!(stats["totals"]["indexed"], 5);
    let losses = std::fs::read_to_string(out.join("losses.jsonl")).unwrap();
    assert!(
        losses.contains("\"template_only\"") && losses.contains("\"F\""),
        "{losses}"
    );
    let kept = extract_records(&extract("k6", &["--max-paragraph-docs", "6"]));
    assert_eq!(kept, plain);
});

sieve_test!(
    clusters_are_the_same_for_any_threads_shards_and_resume,
    |dir| {
        // 18 copies of the same 23 pages under other docids: every page is a
        // cluster of 18.
        let mut inputs = crate::determinism::many_inputs(&dir);
        inputs.sort();
        let build = |name: &str, cmd: &str, threads: &str| {
            let mut c = dir.cmd("sieve-index");
            c.args([cmd, "--threads", threads, "--index", name]);
            for p in &inputs {
                c.arg("--input").arg(p);
            }
            ok(&mut c);
            index_clusters(&dir, &dir.join(name))
        };
        let whole = build("whole", "build", "2");
        assert_eq!(whole.len(), 18 * 23);
        let reps: BTreeSet<&String> = whole.iter().map(|(_, r)| r).collect();
        assert_eq!(reps.len(), 23);
        assert!(reps.iter().all(|r| r.starts_with("f00-")), "{reps:?}");
        assert_eq!(build("one-thread", "build", "1"), whole);
        // Shards, then merged: clustered again over all the documents.
        let half = inputs.len() / 2;
        for (name, part) in [("s1", &inputs[..half]), ("s2", &inputs[half..])] {
            let mut c = dir.cmd("sieve-index");
            c.args(["build-shard", "--index", name]);
            for p in part {
                c.arg("--input").arg(p);
            }
            ok(&mut c);
        }
        assert_eq!(
            index_clusters(&dir, &dir.join("s2")).len(),
            (18 - half) * 23
        );
        ok(dir
            .cmd("sieve-index")
            .args(["merge", "--index", "merged", "--shards", "s1", "s2"]));
        assert_eq!(index_clusters(&dir, &dir.join("merged")), whole);
        // One extract per input (as scale/spark_extract.py runs them), then
        // clustered together: the clusters of the whole collection.
        let mut parts = Vec::new();
        for (i, p) in inputs.iter().enumerate() {
            let part = dir.join(&format!("part-{i:05}"));
            ok(dir
                .cmd("sieve-index")
                .args(["extract", "--threads", "1", "--input"])
                .arg(p)
                .arg("--output-dir")
                .arg(&part));
            parts.push(part);
        }
        let nd = dir.join("near-duplicates.tsv.gz");
        ok(dir
            .cmd("sieve-index")
            .args(["near-duplicates", "--extracts"])
            .args(&parts)
            .arg("--output")
            .arg(&nd));
        let merged_parts: Vec<(String, String)> = gunzip(&nd)
            .lines()
            .skip(1)
            .map(|l| {
                let (a, b) = l.split_once('\t').unwrap();
                (a.to_string(), b.to_string())
            })
            .collect();
        assert_eq!(merged_parts, whole);
        // extract, whole and killed then resumed.
        let extract = |name: &str| {
            let mut c = dir.cmd("sieve-index");
            c.args(["extract", "--threads", "2", "--output-dir", name]);
            for p in &inputs {
                c.arg("--input").arg(p);
            }
            c
        };
        ok(&mut extract("ex"));
        let records = extract_records(&dir.join("ex"));
        assert_eq!(extract_clusters(&dir.join("ex")), whole);
        for (n, delay_ms) in [60u64, 200].into_iter().enumerate() {
            let name = format!("killed{n}");
            let mut c = extract(&name);
            c.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            let mut child = c.spawn().unwrap();
            std::thread::sleep(std::time::Duration::from_millis(delay_ms));
            let _ = child.kill(); // SIGKILL
            let _ = child.wait();
            let mut c = extract(&name);
            ok(c.arg("--resume"));
            let out = dir.join(&name);
            assert_eq!(extract_records(&out), records, "resume after {delay_ms} ms");
            assert_eq!(extract_clusters(&out), whole);
            let parts: Vec<_> = std::fs::read_dir(&out)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".part"))
                .collect();
            assert!(parts.is_empty(), "{parts:?}");
        }
    }
);

sieve_test!(verify_names_a_damaged_cluster_column, |dir| {
    let index = dir.join("idx");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(fixture("cacm/cacm.trec.gz"))
        .arg("--index")
        .arg(&index));
    ok(dir
        .cmd("sieve-index")
        .args(["verify", "--index"])
        .arg(&index));
    let col = std::fs::read_dir(index.join("dups"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .expect("a cluster column");
    let mut bytes = std::fs::read(&col).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&col, &bytes).unwrap();
    let err = stderr_of(
        dir.cmd("sieve-index")
            .args(["verify", "--index"])
            .arg(&index),
        1,
    );
    let out = &err;
    assert!(out.contains(".dup.gz"), "{out}");
    // Searching with the rule refuses the damaged column, naming it.
    let topics = dir.write("t.tsv", b"1\tcomputer program\n");
    let err = stderr_of(
        dir.cmd("sieve-search")
            .args(["run", "--drop-near-duplicates", "--index"])
            .arg(&index)
            .arg("--topics")
            .arg(&topics),
        1,
    );
    assert!(err.contains(".dup.gz"), "{err}");
});

sieve_test!(sweep_near_duplicates_keeps_what_run_keeps, |dir| {
    // Made-up documents (`made_up_copies`) with MADE-UP spam percentiles
    // (C.. 10, D.. and E.. 80) and made-up judgements.
    let (input, words) = made_up_copies(&dir);
    let mut spam = String::new();
    for p in 0..20 {
        spam.push_str(&format!("80 D{p:02}\n"));
        spam.push_str(&if p < 10 {
            format!("10 C{p:02}\n")
        } else {
            format!("80 E{p:02}\n")
        });
    }
    let spam = dir.write("made-up-spam.txt", spam.as_bytes());
    let index = dir.join("idx");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(&input)
        .arg("--index")
        .arg(&index)
        .arg("--spam")
        .arg(&spam));
    let topics = dir.write(
        "topics.tsv",
        format!(
            "1\t{} {}\n2\t{} changed\n3\t{}\n",
            words[3], words[50], words[100], words[222]
        )
        .as_bytes(),
    );
    let qrels = dir.write(
        "qrels.txt",
        b"1 0 D03 1\n1 0 C05 1\n2 0 E12 1\n2 0 D15 1\n3 0 C02 1\n3 0 E11 1\n",
    );
    let sweep = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        ok(dir
            .cmd("sieve-search")
            .args(["sweep", "--runs", "-m", "map,P_5", "--index"])
            .arg(&index)
            .arg("--topics")
            .arg(&topics)
            .arg("--qrels")
            .arg(&qrels)
            .arg("--output-dir")
            .arg(&out)
            .args(extra));
        out
    };
    let run = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        ok(dir
            .cmd("sieve-search")
            .args(["run", "--index"])
            .arg(&index)
            .arg("--topics")
            .arg(&topics)
            .arg("--output-dir")
            .arg(&out)
            .args(extra));
        out
    };
    let read = |p: PathBuf| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    let column = |out: &Path, col: &str| -> Vec<String> {
        let tsv = read(out.join("sweep.tsv"));
        let mut lines = tsv.lines();
        let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let i = header.iter().position(|h| *h == col).expect(col);
        lines
            .map(|l| l.split('\t').nth(i).unwrap().to_string())
            .collect()
    };

    // Alone: the baseline, keep (everything) and drop (the 20 copies).
    let alone = sweep("alone", &["--near-duplicates", "keep,drop"]);
    assert_eq!(
        column(&alone, "setting"),
        ["sieve", "sieve_keepdup", "sieve_nodup"]
    );
    assert_eq!(column(&alone, "near_duplicates"), ["NA", "keep", "drop"]);
    assert_eq!(column(&alone, "kept"), ["40", "40", "20"]);
    // drop: byte for byte the run file of `run --drop-near-duplicates`;
    // keep: the unfiltered run, under its own tag.
    let r = run("run-nodup", &["--drop-near-duplicates"]);
    assert_eq!(
        read(alone.join("runs/sieve_nodup.run")),
        read(r.join("sieve_nodup.run"))
    );
    let unfiltered = read(run("run-all", &[]).join("sieve.run"));
    let keep = read(alone.join("runs/sieve_keepdup.run"));
    assert!(!unfiltered.is_empty());
    assert_eq!(untagged(&keep), untagged(&unfiltered));
    assert_eq!(scores(&keep), scores(&unfiltered));
    assert!(
        keep.lines().all(|l| l.ends_with(" sieve_keepdup")),
        "{keep}"
    );
    // The figure: a panel per measure and the judged-loss panel, x axis
    // keep and drop.
    let svg = read(alone.join("sweep.svg"));
    crate::sweep::assert_offline(&svg);
    assert_eq!(svg.matches("<g class=\"panel\"").count(), 2);
    assert_eq!(svg.matches("class=\"panel judged-loss\"").count(), 1);
    assert_eq!(svg.matches("<g class=\"point\">").count(), 3 * 2);
    assert_eq!(svg.matches(">keep</text>").count(), 3, "{svg}");
    assert_eq!(svg.matches(">drop</text>").count(), 3, "{svg}");
    assert!(svg.contains("near-duplicates (drop keeps each cluster"));

    // Crossed with spam, filtered statistics: each combination is the run
    // of `run` with the same rules.
    let crossed = sweep(
        "crossed",
        &[
            "--near-duplicates",
            "keep,drop",
            "--min-spam-percentile",
            "50",
            "--cross",
            "--collection-stats",
            "filtered",
        ],
    );
    assert_eq!(
        column(&crossed, "setting"),
        ["sieve", "sieve_spam50_keepdup", "sieve_spam50_nodup"]
    );
    assert_eq!(column(&crossed, "spam"), ["NA", "50", "50"]);
    assert_eq!(column(&crossed, "near_duplicates"), ["NA", "keep", "drop"]);
    // spam >= 50: D.. and E.. (30); without near-duplicates D10-D19 (10).
    assert_eq!(column(&crossed, "kept"), ["40", "30", "10"]);
    let r = run(
        "run-spam-nodup",
        &[
            "--min-spam-percentile",
            "50",
            "--drop-near-duplicates",
            "--collection-stats",
            "filtered",
        ],
    );
    let nodup = read(crossed.join("runs/sieve_spam50_nodup.run"));
    assert_eq!(nodup, read(r.join("sieve_spam50_nodup.run")));
    for (_, docid, _) in untagged(&nodup) {
        assert!(docid.starts_with("D1"), "{docid} ranked");
    }
    let r = run(
        "run-spam",
        &[
            "--min-spam-percentile",
            "50",
            "--collection-stats",
            "filtered",
        ],
    );
    let (a, b) = (
        read(crossed.join("runs/sieve_spam50_keepdup.run")),
        read(r.join("sieve_spam50.run")),
    );
    assert_eq!((untagged(&a), scores(&a)), (untagged(&b), scores(&b)));
    // x: spam; a series per near-duplicate value.
    let svg = read(crossed.join("sweep.svg"));
    crate::sweep::assert_offline(&svg);
    assert!(svg.contains("near-duplicates kept") && svg.contains("near-duplicates dropped"));

    // An index without cluster columns: refused, naming the index; no
    // file written.
    let bare = dir.join("bare");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--no-near-duplicates", "--input"])
        .arg(&input)
        .arg("--index")
        .arg(&bare));
    let out = dir.join("bare-sweep");
    let err = stderr_of(
        dir.cmd("sieve-search")
            .args(["sweep", "--near-duplicates", "drop", "--index"])
            .arg(&bare)
            .arg("--topics")
            .arg(&topics)
            .arg("--qrels")
            .arg(&qrels)
            .arg("--output-dir")
            .arg(&out),
        1,
    );
    assert!(
        err.contains(&format!(
            "index {}: has no near-duplicate clusters",
            bare.display()
        )),
        "{err}"
    );
    assert!(!out.join("sweep.tsv").exists());
    // `--near-duplicates` takes keep and drop only.
    let out = fails(
        dir.cmd("sieve-search")
            .args(["sweep", "--near-duplicates", "yes", "--index"])
            .arg(&index)
            .arg("--topics")
            .arg(&topics)
            .arg("--qrels")
            .arg(&qrels)
            .arg("--output-dir")
            .arg(dir.join("x")),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--near-duplicates"));
});
