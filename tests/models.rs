//! Retrieval models other than BM25 (`sieve-search run --model`), pinned
//! to Anserini 1.7.1 on CACM and Cranfield (figures from
//! `bench/peers/anserini_models.sh`, in `bench/README.md`), and searched
//! as BM25 is: several shards, global statistics files, filters.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::util::{Dir, fixture, ok, repo_root};

/// MAP and P@10 of a run, rounded to 4 decimals as trec_eval prints them.
fn map_p10(dir: &Dir, qrels: &Path, run: &Path) -> (String, String, serde_json::Value) {
    let eval = ok(dir
        .cmd("sieve-search")
        .args(["eval", "--json", "--qrels"])
        .arg(qrels)
        .arg(run));
    let v: serde_json::Value = serde_json::from_str(&eval).unwrap();
    let mean = &v[0]["mean"];
    let get = |m: &str| format!("{:.4}", mean[m].as_f64().unwrap_or_else(|| panic!("{v}")));
    (get("map"), get("P_10"), v[0].clone())
}

fn build(dir: &Dir, name: &str, inputs: &[&Path]) -> PathBuf {
    let ix = dir.join(name);
    let mut cmd = dir.cmd("sieve-index");
    cmd.arg("build");
    for i in inputs {
        cmd.arg("--input").arg(i);
    }
    ok(cmd.arg("--index").arg(&ix));
    ix
}

/// `sieve-search run` over `indexes` with the CACM topics, top 1000.
fn run(dir: &Dir, indexes: &[&Path], out: &Path, extra: &[&str]) -> String {
    let mut cmd = dir.cmd("sieve-search");
    cmd.arg("run");
    for ix in indexes {
        cmd.arg("--index").arg(ix);
    }
    ok(cmd
        .arg("--topics")
        .arg(repo_root().join("topics/topics.cacm.txt"))
        .args(["--hits", "1000", "--output"])
        .arg(out)
        .args(extra));
    std::fs::read_to_string(out).unwrap()
}

/// The run without its tag column.
fn untagged(run: &str) -> Vec<String> {
    run.lines()
        .map(|l| l.rsplit_once(' ').unwrap().0.to_string())
        .collect()
}

sieve_test!(cacm_qld_matches_anserini, |dir| {
    let ix = build(&dir, "cacm", &[&fixture("cacm/cacm.trec.gz")]);
    let out = dir.join("qld.run");
    let text = run(&dir, &[&ix], &out, &["--model", "qld"]);
    assert!(
        text.lines().all(|l| l.ends_with(" sieve_qld_mu-1000")),
        "a QLD run names its model"
    );
    let (map, p10, eval) = map_p10(&dir, &fixture("eval/qrels.cacm.txt"), &out);
    eprintln!("CACM QLD mu=1000: MAP {map} P@10 {p10} (Anserini 0.3265 / 0.3000)");
    // Anserini 1.7.1 -qld (mu 1000) -hits 1000, pytrec_eval over the 52
    // judged topics (bench/peers/anserini_models.sh): MAP 0.3265, P_10 0.3000.
    let m: f64 = map.parse().unwrap();
    let p: f64 = p10.parse().unwrap();
    assert!((m - 0.3265).abs() <= 0.001, "MAP {map} {eval}");
    assert!((p - 0.3000).abs() <= 0.001, "P@10 {p10} {eval}");
    // --mu 1000 is the default; another mu is another ranking.
    let other = dir.join("mu.run");
    let text2 = run(&dir, &[&ix], &other, &["--model", "qld", "--mu", "2000"]);
    assert_ne!(untagged(&text), untagged(&text2));
});

sieve_test!(bm25_and_qld_runs_together_keep_bm25_unchanged, |dir| {
    let ix = build(&dir, "cacm", &[&fixture("cacm/cacm.trec.gz")]);
    let alone = run(&dir, &[&ix], &dir.join("bm25.run"), &[]);
    let qld = run(&dir, &[&ix], &dir.join("qld.run"), &["--model", "qld"]);
    let out = dir.join("runs");
    ok(dir
        .cmd("sieve-search")
        .args(["run", "--index"])
        .arg(&ix)
        .arg("--topics")
        .arg(repo_root().join("topics/topics.cacm.txt"))
        .args(["--hits", "1000", "--model", "bm25,qld", "--mu", "1000,500"])
        .arg("--output-dir")
        .arg(&out));
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    assert_eq!(untagged(&read("sieve_k1-0.9_b-0.4.run")), untagged(&alone));
    assert_eq!(untagged(&read("sieve_qld_mu-1000.run")), untagged(&qld));
    assert!(read("sieve_qld_mu-500.run").lines().count() > 1000);
    // An unknown model is refused.
    let e = crate::util::fails(
        dir.cmd("sieve-search")
            .args(["run", "--model", "lmjm", "--index"])
            .arg(&ix)
            .arg("--topics")
            .arg(repo_root().join("topics/topics.cacm.txt")),
    );
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(err.contains("bm25, qld or sdm"), "{err}");
});

/// CACM's documents split into two TREC files (the first `n` documents,
/// then the rest).
fn split_cacm(dir: &Dir, n: usize) -> (PathBuf, PathBuf) {
    let raw = std::fs::read(fixture("cacm/cacm.trec.gz")).unwrap();
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(&raw[..])
        .read_to_string(&mut text)
        .unwrap();
    let docs: Vec<&str> = text.split_inclusive("</DOC>").collect();
    assert!(docs.len() > 3000);
    let a = dir.write("a/part1.trec", docs[..n].concat().as_bytes());
    let b = dir.write("b/part2.trec", docs[n..].concat().as_bytes());
    (a, b)
}

sieve_test!(
    qld_over_shards_and_with_global_stats_equals_one_index,
    |dir| {
        let (a, b) = split_cacm(&dir, 1500);
        let single = build(&dir, "single", &[&a, &b]);
        let s1 = build(&dir, "s1", &[&a]);
        let s2 = build(&dir, "s2", &[&b]);
        let want = run(&dir, &[&single], &dir.join("one.run"), &["--model", "qld"]);
        let sharded = run(&dir, &[&s1, &s2], &dir.join("two.run"), &["--model", "qld"]);
        assert_eq!(untagged(&sharded), untagged(&want));
        // Stage 1 and 2 of a two-stage search: statistics of both shards,
        // each shard searched with them; shard 1's run holds exactly the
        // single index's hits from shard 1, with the same scores.
        let stats = dir.join("global.json");
        let mut cmd = dir.cmd("sieve-search");
        cmd.args(["global-stats", "--index"]).arg(&s1).arg(&s2);
        ok(cmd
            .arg("--topics")
            .arg(repo_root().join("topics/topics.cacm.txt"))
            .arg("--output")
            .arg(&stats));
        let g: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
        assert_eq!(g["header"]["version"], 3, "{g}");
        assert!(
            g["total_term_freq"]
                .as_object()
                .is_some_and(|m| !m.is_empty()),
            "{g}"
        );
        let part = run(
            &dir,
            &[&s1],
            &dir.join("s1.run"),
            &["--model", "qld", "--global-stats", stats.to_str().unwrap()],
        );
        // (qid, docid, score) of shard 1's documents in the single index's run.
        let key = |l: &str| {
            let f: Vec<&str> = l.split(' ').collect();
            (f[0].to_string(), f[2].to_string(), f[4].to_string())
        };
        let in_s1: std::collections::HashSet<String> =
            ok(dir.cmd("sieve-index").args(["docids", "--index"]).arg(&s1))
                .lines()
                .map(String::from)
                .collect();
        let want_s1: Vec<_> = want
            .lines()
            .map(key)
            .filter(|(_, d, _)| in_s1.contains(d))
            .collect();
        let got: Vec<_> = part.lines().map(key).collect();
        // Shard 1's top 1000 per topic contains every single-index hit of it.
        for w in &want_s1 {
            assert!(got.contains(w), "{w:?} missing from the shard run");
        }
    }
);

sieve_test!(
    feedback_over_shards_equals_one_index_and_refuses_a_stats_file,
    |dir| {
        let (a, b) = split_cacm(&dir, 1500);
        let single = build(&dir, "single", &[&a, &b]);
        let s1 = build(&dir, "s1", &[&a]);
        let s2 = build(&dir, "s2", &[&b]);
        for flags in [
            &["--feedback", "rm3,rocchio", "--model", "bm25"][..],
            &["--feedback", "bm25prf", "--model", "qld"][..],
        ] {
            let (one, two) = (dir.join("one"), dir.join("two"));
            let mut args = flags.to_vec();
            args.push("--output-dir");
            let go = |ix: &[&Path], out: &Path| {
                let mut cmd = dir.cmd("sieve-search");
                cmd.arg("run");
                for i in ix {
                    cmd.arg("--index").arg(i);
                }
                ok(cmd
                    .arg("--topics")
                    .arg(repo_root().join("topics/topics.cacm.txt"))
                    .args(["--hits", "1000"])
                    .args(&args)
                    .arg(out));
            };
            go(&[&single], &one);
            go(&[&s1, &s2], &two);
            let mut names: Vec<_> = std::fs::read_dir(&one)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            assert!(!names.is_empty());
            for n in names {
                let read = |d: &Path| std::fs::read_to_string(d.join(&n)).unwrap();
                assert!(read(&one).lines().count() > 1000, "{n:?}");
                assert_eq!(read(&one), read(&two), "{flags:?} {n:?}");
            }
            std::fs::remove_dir_all(&one).unwrap();
            std::fs::remove_dir_all(&two).unwrap();
        }
        let stats = dir.join("global.json");
        ok(dir
            .cmd("sieve-search")
            .args(["global-stats", "--index"])
            .arg(&s1)
            .arg(&s2)
            .arg("--topics")
            .arg(repo_root().join("topics/topics.cacm.txt"))
            .arg("--output")
            .arg(&stats));
        let out = crate::util::fails(
            dir.cmd("sieve-search")
                .args(["run", "--feedback", "rm3", "--index"])
                .arg(&s1)
                .arg("--topics")
                .arg(repo_root().join("topics/topics.cacm.txt"))
                .arg("--global-stats")
                .arg(&stats),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no statistics file with feedback"), "{err}");
    }
);

sieve_test!(cranfield_qld_matches_anserini, |dir| {
    let Some(cran) = sieve_testdata::shared_file("cranfield", "Cranfield QLD vs Anserini") else {
        return;
    };
    let ix = build(&dir, "cran", &[&cran.join("cran.all.1400")]);
    let out = dir.join("qld.run");
    ok(dir
        .cmd("sieve-search")
        .args(["run", "--model", "qld", "--hits", "1000", "--index"])
        .arg(&ix)
        .arg("--topics")
        .arg(cran.join("cran.qry"))
        .arg("--output")
        .arg(&out));
    let (map, p10, eval) = map_p10(&dir, &cran.join("cranqrel"), &out);
    eprintln!("Cranfield QLD mu=1000: MAP {map} P@10 {p10} (Anserini 0.2628 / 0.2018)");
    assert_eq!(eval["num_q"], 225, "{eval}");
    // Anserini 1.7.1 -qld -hits 1000 (bench/peers/anserini_models.sh),
    // pytrec_eval over the 225 queries: MAP 0.2628, P_10 0.2018.
    let m: f64 = map.parse().unwrap();
    let p: f64 = p10.parse().unwrap();
    assert!((m - 0.2628).abs() <= 0.001, "MAP {map}");
    assert!((p - 0.2018).abs() <= 0.001, "P@10 {p10}");
});

sieve_test!(
    cacm_sdm_matches_anserini_and_quoted_phrases_need_positions,
    |dir| {
        let cacm = fixture("cacm/cacm.trec.gz");
        let plain = build(&dir, "cacm", &[&cacm]);
        let ix = dir.join("cacm-positions");
        ok(dir
            .cmd("sieve-index")
            .args(["build", "--positions", "--input"])
            .arg(&cacm)
            .arg("--index")
            .arg(&ix));
        let out = dir.join("sdm.run");
        let text = run(&dir, &[&ix], &out, &["--sdm"]);
        assert!(
            text.lines().all(|l| l.ends_with(" sieve_sdm_k1-0.9_b-0.4")),
            "an SDM run names its model"
        );
        let (map, p10, eval) = map_p10(&dir, &fixture("eval/qrels.cacm.txt"), &out);
        eprintln!("CACM SDM: MAP {map} P@10 {p10} (Anserini 0.3212 / 0.3212)");
        // Anserini 1.7.1 -bm25 -sdm (k1 0.9, b 0.4) -hits 1000, pytrec_eval over
        // the 52 judged topics (bench/peers/anserini_models.sh): 0.3212 / 0.3212.
        let m: f64 = map.parse().unwrap();
        let p: f64 = p10.parse().unwrap();
        assert!((m - 0.3212).abs() <= 0.003, "MAP {map} {eval}");
        assert!((p - 0.3212).abs() <= 0.003, "P@10 {p10} {eval}");
        // BM25 on the index with positions is BM25 on the one without.
        let with = run(&dir, &[&ix], &dir.join("bm25p.run"), &[]);
        let without = run(&dir, &[&plain], &dir.join("bm25.run"), &[]);
        assert_eq!(with, without);
        assert_ne!(untagged(&with), untagged(&text));

        // --sdm on an index without positions is refused, naming the flag.
        let topics = repo_root().join("topics/topics.cacm.txt");
        let e = crate::util::fails(
            dir.cmd("sieve-search")
                .args(["run", "--sdm", "--index"])
                .arg(&plain)
                .arg("--topics")
                .arg(&topics),
        );
        let err = String::from_utf8_lossy(&e.stderr);
        assert!(
            err.contains("--positions") && err.contains("--sdm"),
            "{err}"
        );

        // CACM's topics quote titles: by default quotes are plain words, as
        // before; with --phrases exact they need positions, and change runs.
        let e = crate::util::fails(
            dir.cmd("sieve-search")
                .args(["run", "--phrases", "exact", "--index"])
                .arg(&plain)
                .arg("--topics")
                .arg(&topics),
        );
        let err = String::from_utf8_lossy(&e.stderr);
        assert!(
            err.contains("--positions") && err.contains("--phrases ignore"),
            "{err}"
        );
        let exact = run(
            &dir,
            &[&ix],
            &dir.join("exact.run"),
            &["--phrases", "exact"],
        );
        assert_ne!(exact, with);
        let quoted = dir.write(
            "q.txt",
            b"1:\"time sharing\" systems\n2:time sharing systems\n",
        );
        let phrase_run = |extra: &[&str]| {
            let out = dir.join("p.run");
            let mut cmd = dir.cmd("sieve-search");
            ok(cmd
                .args(["run", "--index"])
                .arg(&ix)
                .arg("--topics")
                .arg(&quoted)
                .arg("--output")
                .arg(&out)
                .args(extra));
            std::fs::read_to_string(&out).unwrap()
        };
        let (ignored, honoured) = (phrase_run(&[]), phrase_run(&["--phrases", "exact"]));
        let topic = |run: &str, id: &str| -> Vec<String> {
            run.lines()
                .filter(|l| l.starts_with(&format!("{id} ")))
                .map(String::from)
                .collect()
        };
        // A topic without quotes is searched as before.
        assert_eq!(topic(&ignored, "2"), topic(&honoured, "2"));
        assert_ne!(topic(&ignored, "1"), topic(&honoured, "1"));
    }
);
