//! What a filter removed that was judged (`sweep.tsv`'s judged-loss
//! columns, the summary, the page, and `compare --b-*`), against a brute-force
//! count over the qrels, the MADE-UP spam percentiles the CACM index was
//! built with (every CACM document has one) and the unfiltered run file.
//! CACM's qrels name 55 documents the index does not hold (judgements
//! written `CACM-115` where the collection's docid is `CACM-0115`): they
//! are counted apart, never as removed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::sweep::{cacm, qrels, read_tsv, sweep_cacm};
use crate::util::{fails, fixture, ok};

/// docid -> made-up spam percentile of the CACM fixture.
fn spam() -> BTreeMap<String, u8> {
    let text = std::fs::read_to_string(fixture("spam/made-up-cacm-spam.txt")).unwrap();
    text.lines()
        .map(|l| {
            let (p, d) = l.split_once(' ').unwrap();
            (d.to_string(), p.parse().unwrap())
        })
        .collect()
}

/// (qid, docid, grade) of every judgement.
fn judgements() -> Vec<(String, String, i64)> {
    let text = std::fs::read_to_string(qrels()).unwrap();
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[2].to_string(), f[3].parse().unwrap())
        })
        .collect()
}

/// Per topic, the docids of a run file in its rank order.
fn ranked(run: &Path) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    for l in std::fs::read_to_string(run).unwrap().lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        out.entry(f[0].into())
            .or_default()
            .push((f[3].parse().unwrap(), f[2].into()));
    }
    out.into_iter()
        .map(|(q, mut v)| {
            v.sort();
            (q, v.into_iter().map(|(_, d)| d).collect())
        })
        .collect()
}

/// The brute-force judged-loss columns of a spam threshold `p`, as
/// `sweep.tsv` names them; `depth` the run depth.
fn expected(p: u8, base: &BTreeMap<String, Vec<String>>, depth: usize) -> BTreeMap<String, String> {
    let spam = spam();
    let mut removed: BTreeMap<i64, u64> = BTreeMap::new();
    let (mut rel_in_index, mut absent, mut absent_rel) = (0u64, 0u64, 0u64);
    let (mut top10, mut top_depth) = (0u64, 0u64);
    for (q, d, g) in judgements() {
        let Some(&score) = spam.get(&d) else {
            absent += 1;
            absent_rel += u64::from(g >= 1);
            continue;
        };
        rel_in_index += u64::from(g >= 1);
        if score >= p {
            continue;
        }
        *removed.entry(g).or_default() += 1;
        let rank = base.get(&q).and_then(|r| r.iter().position(|x| *x == d));
        if let (true, Some(r)) = (g >= 1, rank) {
            top10 += u64::from(r < 10);
            top_depth += u64::from(r < depth);
        }
    }
    let rel: u64 = removed.range(1..).map(|(_, n)| n).sum();
    let nonrel: u64 = removed.range(..1).map(|(_, n)| n).sum();
    let mut want = BTreeMap::from([
        ("rel_removed".to_string(), rel.to_string()),
        ("nonrel_removed".into(), nonrel.to_string()),
        (
            "rel_removed_share".into(),
            format!("{}", rel as f64 / rel_in_index as f64),
        ),
        ("rel_removed_top10".into(), top10.to_string()),
        (format!("rel_removed_top{depth}"), top_depth.to_string()),
        ("judged_not_in_index".into(), absent.to_string()),
        ("rel_not_in_index".into(), absent_rel.to_string()),
    ]);
    want.insert(
        "removed_grade_1".into(),
        removed.get(&1).copied().unwrap_or(0).to_string(),
    );
    want
}

sieve_test!(sweep_judged_loss_equals_a_brute_force_count, |dir| {
    let ix = cacm(&dir);
    // the index holds exactly the documents of the spam file
    assert_eq!(spam().len(), 3204);
    let out = dir.join("sweep");
    let html = dir.join("sweep.html");
    let stdout = ok(sweep_cacm(&dir, &ix, &out)
        .args([
            "--min-spam-percentile",
            "0,30,70,100",
            "--hits",
            "200",
            "--runs",
            "-m",
            "map",
        ])
        .arg("--html")
        .arg(&html));
    let rows = read_tsv(&out.join("sweep.tsv"));
    let base = ranked(&out.join("runs/sieve.run"));
    for (row, p) in rows[1..].iter().zip([0u8, 30, 70, 100]) {
        for (col, want) in expected(p, &base, 200) {
            assert_eq!(row[&col], want, "{} {col}", row["setting"]);
        }
    }
    // the baseline removes nothing; absent judgements are on every row
    assert_eq!(rows[0]["rel_removed"], "0");
    assert_eq!(rows[0]["judged_not_in_index"], "55");
    // CACM has one grade: one per-grade column
    assert!(!rows[0].contains_key("removed_grade_0"));
    assert!(
        stdout.contains("judged documents each filter removes"),
        "{stdout}"
    );
    assert!(stdout.contains("55 judgements (55 relevant) name documents the index does not hold"));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("What each filter removed that was judged"));
    assert!(page.contains("Judged documents the filter removed, per topic"));
    let svg = std::fs::read_to_string(out.join("sweep.svg")).unwrap();
    assert!(svg.contains("class=\"panel judged-loss\""));
});

sieve_test!(
    compare_with_b_filter_reports_what_the_sweep_reports,
    |dir| {
        let ix = cacm(&dir);
        let out = dir.join("sweep");
        ok(sweep_cacm(&dir, &ix, &out).args([
            "--min-spam-percentile",
            "70",
            "--hits",
            "100",
            "--runs",
            "-m",
            "map",
        ]));
        let row = &read_tsv(&out.join("sweep.tsv"))[1];
        // the unfiltered run against the spam-70 run, with the index
        let compare = || {
            let mut c = dir.cmd("sieve-search");
            c.arg("compare")
                .arg(out.join("runs/sieve.run"))
                .arg(out.join("runs/sieve_spam70.run"))
                .arg("--qrels")
                .arg(qrels())
                .arg("--index")
                .arg(&ix);
            c
        };
        let json = ok(compare().args(["--b-min-spam-percentile", "70", "--json", "-m", "map"]));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let j = &v["judged_loss"];
        assert_eq!(j["relevant_removed"].to_string(), row["rel_removed"]);
        assert_eq!(j["nonrelevant_removed"].to_string(), row["nonrel_removed"]);
        assert_eq!(j["loss"]["top10"].to_string(), row["rel_removed_top10"]);
        assert_eq!(
            j["loss"]["top_depth"].to_string(),
            row["rel_removed_top100"]
        );
        assert_eq!(j["judged_not_in_index"]["by_grade"]["1"], 55);
        let topics: BTreeSet<&String> =
            j["loss"]["per_topic"].as_object().unwrap().keys().collect();
        assert!(!topics.is_empty());
        // two rules for B are a usage error
        let e = fails(compare().args([
            "--b-min-spam-percentile",
            "70",
            "--b-max-invalid-456-per-kb",
            "1",
        ]));
        assert_eq!(e.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&e.stderr).contains("cannot be used with"));
    }
);

sieve_test!(
    sweep_tsv_has_every_test_and_risk_and_test_picks_the_summary,
    |dir| {
        let ix = cacm(&dir);
        let out = dir.join("sweep");
        let run = |test: &str| {
            ok(sweep_cacm(&dir, &ix, &out)
                .args([
                    "--min-spam-percentile",
                    "30,70",
                    "-m",
                    "map",
                    "--test",
                    test,
                ])
                .args(["--permutations", "999", "--seed", "7"]))
        };
        let t = run("t");
        let rows = read_tsv(&out.join("sweep.tsv"));
        for col in [
            "map_p_rand",
            "map_p_rand_holm",
            "map_p_wilcoxon",
            "map_p_wilcoxon_holm",
            "map_boot_ci_low",
            "map_boot_ci_high",
            "map_urisk1",
            "map_urisk5",
            "map_trisk1",
            "map_trisk5",
            "map_georisk1",
            "map_georisk5",
        ] {
            assert_eq!(rows[0][col] == "NA", !col.contains("georisk"), "{col}");
            assert_ne!(rows[2][col], "NA", "{col}");
        }
        // 52 topics: 999 drawn patterns, the observed statistic counted once
        let p: f64 = rows[2]["map_p_rand"].parse().unwrap();
        assert!((p * 1000.0 - (p * 1000.0).round()).abs() < 1e-9, "{p}");
        // the summary shows the chosen test's Holm p and names it
        let w = run("wilcoxon");
        assert!(t.contains("p: paired two-sided t-test, Holm-corrected"));
        assert!(w.contains("p: Wilcoxon signed-rank test"));
        let holm: f64 = read_tsv(&out.join("sweep.tsv"))[2]["map_p_wilcoxon_holm"]
            .parse()
            .unwrap();
        assert!(
            w.contains(&sieve_searcher::sweep::table::p_text(Some(holm))),
            "{w}"
        );
        // the same seed gives the same numbers
        run("wilcoxon");
        assert_eq!(
            read_tsv(&out.join("sweep.tsv"))[2]["map_p_rand"],
            rows[2]["map_p_rand"]
        );
    }
);
