//! `sieve-search sweep` and `compare --html` end to end, on CACM with
//! MADE-UP spam percentiles (`tests/data/spam/made-up-cacm-spam.txt`) and
//! on the hand-made hostile documents of `tests/data/page/`: every setting
//! has its row, the table's means are `eval`'s, the run files are `run`'s,
//! the SVG and the pages parse as XML, the pages reference nothing
//! external and show hostile text inert.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::util::{Dir, fails, fixture, ok, repo_root};

/// CACM indexed with the made-up spam percentiles.
pub(crate) fn cacm(dir: &Dir) -> PathBuf {
    let ix = dir.join("cacm");
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--input"])
        .arg(fixture("cacm/cacm.trec.gz"))
        .arg("--index")
        .arg(&ix)
        .arg("--spam")
        .arg(fixture("spam/made-up-cacm-spam.txt")));
    ix
}

/// `sieve-search sweep` of the CACM index `ix` over its topics and qrels,
/// into `out`; the caller adds the thresholds and options.
pub(crate) fn sweep_cacm(dir: &Dir, ix: &Path, out: &Path) -> std::process::Command {
    let mut cmd = dir.cmd("sieve-search");
    cmd.args(["sweep", "--index"])
        .arg(ix)
        .arg("--topics")
        .arg(topics())
        .arg("--qrels")
        .arg(qrels())
        .arg("--output-dir")
        .arg(out);
    cmd
}

pub(crate) fn topics() -> PathBuf {
    repo_root().join("topics/topics.cacm.txt")
}

pub(crate) fn qrels() -> PathBuf {
    fixture("eval/qrels.cacm.txt")
}

/// `sweep.tsv` as rows of column name -> value, in row order; asserts
/// every row has the header's number of columns.
pub(crate) fn read_tsv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).expect("sweep.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            assert_eq!(cells.len(), header.len(), "{l}");
            header
                .iter()
                .zip(cells)
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect()
        })
        .collect()
}

/// Elements a page may hold: HTML text structure, tables, and inline SVG.
const ALLOWED: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "h1",
    "h2",
    "h3",
    "p",
    "br",
    "b",
    "span",
    "bdi",
    "table",
    "tr",
    "th",
    "td",
    "div",
    "details",
    "summary",
    "figure",
    "figcaption",
    "svg",
    "g",
    "rect",
    "line",
    "polyline",
    "polygon",
    "path",
    "text",
];

/// Parses `page` as XML and asserts it is self-contained and offline: only
/// the elements of [`ALLOWED`]; no attribute that loads or links anything
/// (`src`, `href`, any `on*` handler, ...); `://` only in `xmlns`; no
/// `url(` or `@import` in the style sheet. Returns the number of elements.
pub fn assert_offline(page: &str) -> usize {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(page);
    let mut elements = 0;
    let mut in_style = false;
    loop {
        match reader.read_event() {
            Ok(Event::Eof) => break,
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => {
                elements += 1;
                let name = String::from_utf8_lossy(e.name().as_ref()).to_lowercase();
                assert!(ALLOWED.contains(&name.as_str()), "element <{name}>");
                in_style = name == "style";
                for a in e.attributes() {
                    let a = a.expect("attribute");
                    let key = String::from_utf8_lossy(a.key.as_ref()).to_lowercase();
                    let value = String::from_utf8_lossy(&a.value).to_lowercase();
                    assert!(
                        ![
                            "src",
                            "href",
                            "xlink:href",
                            "action",
                            "formaction",
                            "srcset",
                            "poster",
                            "background",
                            "style"
                        ]
                        .contains(&key.as_str())
                            && !key.starts_with("on"),
                        "<{name} {key}=...>"
                    );
                    if key != "xmlns" {
                        assert!(
                            !value.contains("://") && !value.contains("url("),
                            "<{name} {key}={value:?}>"
                        );
                    }
                }
            }
            Ok(Event::Text(t)) if in_style => {
                let css = String::from_utf8_lossy(&t).to_lowercase();
                assert!(!css.contains("url(") && !css.contains("@import"), "{css}");
            }
            Ok(Event::End(_)) => in_style = false,
            Ok(_) => {}
            Err(e) => panic!("not well-formed at byte {}: {e}", reader.buffer_position()),
        }
    }
    elements
}

/// `eval --json`'s means of `run`.
fn eval_means(dir: &Dir, run: &Path) -> serde_json::Value {
    let out = ok(dir
        .cmd("sieve-search")
        .args(["eval", "--json", "--qrels"])
        .arg(qrels())
        .arg(run));
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    v[0]["mean"].clone()
}

/// `eval -c --json`'s means of `run`, each read from its text by Rust's
/// correctly rounded parser (serde_json's default float parsing may be
/// one ulp off).
fn eval_c_means(dir: &Dir, run: &Path) -> BTreeMap<String, f64> {
    eval_c_means_with(dir, run, &[])
}

/// [`eval_c_means`] with more `eval` flags (`-J`, `-m ...`).
fn eval_c_means_with(dir: &Dir, run: &Path, flags: &[&str]) -> BTreeMap<String, f64> {
    let out = ok(dir
        .cmd("sieve-search")
        .args(["eval", "-c", "--json"])
        .args(flags)
        .arg("--qrels")
        .arg(qrels())
        .arg(run));
    let mean = &out[out.find("\"mean\": {").expect("a mean")..];
    mean[..mean.find('}').unwrap()]
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, value) = l.trim().trim_end_matches(',').split_once(": ").unwrap();
            (name.trim_matches('"').to_string(), value.parse().unwrap())
        })
        .collect()
}

/// The measures `eval` prints without `-m`, as `sweep.tsv` names them.
const EVAL_MEASURES: [&str; 11] = [
    "map",
    "P_5",
    "P_10",
    "P_20",
    "P_30",
    "recall_1000",
    "ndcg@20",
    "err@20",
    "num_ret",
    "num_rel",
    "num_rel_ret",
];

sieve_test!(
    sweep_rows_equal_eval_and_run_and_the_files_are_well_formed,
    |dir| {
        let ix = cacm(&dir);
        let out = dir.join("sweep");
        let html = dir.join("sweep.html");
        let stdout = ok(sweep_cacm(&dir, &ix, &out)
            .args([
                "--min-spam-percentile",
                "0,50,100",
                "--hits",
                "100",
                "--runs",
            ])
            .arg("--html")
            .arg(&html));
        let rows = read_tsv(&out.join("sweep.tsv"));
        let tags: Vec<&str> = rows.iter().map(|r| r["setting"].as_str()).collect();
        assert_eq!(
            tags,
            ["sieve", "sieve_spam0", "sieve_spam50", "sieve_spam100"]
        );
        for t in &tags {
            assert!(stdout.contains(t), "{stdout}");
        }
        // The baseline: everything kept, no comparison, no feedback.
        assert_eq!(rows[0]["kept"], "3204");
        assert!(rows.iter().all(|r| r["feedback"] == "none"));
        assert_eq!(rows[0]["spam"], "NA");
        assert_eq!(rows[0]["map_diff"], "NA");
        // spam >= 0 keeps everything: identical runs, all-zero differences.
        assert_eq!(rows[1]["kept"], "3204");
        assert_eq!(rows[1]["map"], rows[0]["map"]);
        for (col, want) in [
            ("map_diff", "0"),
            ("map_ci_low", "0"),
            ("map_ci_high", "0"),
            ("map_p", "NA"),
            ("map_p_holm", "NA"),
            ("map_ties", "52"),
        ] {
            assert_eq!(rows[1][col], want, "{col}");
        }
        // spam >= 100 keeps nothing: every judged topic counts 0.
        assert_eq!(rows[3]["kept"], "0");
        assert_eq!(rows[3]["num_ret"], "0");
        assert_eq!(rows[3]["map"], "0");
        assert_eq!(rows[3]["num_q"], "52");
        // The means are what `eval` prints for the run files (every judged
        // topic retrieves something at spam >= 50).
        for r in &rows[..3] {
            let means = eval_means(&dir, &out.join(format!("runs/{}.run", r["setting"])));
            for m in [
                "map",
                "P_5",
                "P_10",
                "P_20",
                "P_30",
                "recall_1000",
                "ndcg@20",
                "err@20",
            ] {
                let got: f64 = r[m].parse().unwrap();
                assert_eq!(got, means[m].as_f64().unwrap(), "{} {m}", r["setting"]);
            }
            for m in ["num_ret", "num_rel", "num_rel_ret"] {
                let got: f64 = r[m].parse().unwrap();
                assert_eq!(got, means[m].as_f64().unwrap(), "{} {m}", r["setting"]);
            }
        }
        // The difference is the difference of the means (both over the same
        // 52 topics), inside its confidence interval, and significant.
        let num = |r: &BTreeMap<String, String>, c: &str| r[c].parse::<f64>().unwrap();
        let d = num(&rows[2], "map") - num(&rows[0], "map");
        assert!((num(&rows[2], "map_diff") - d).abs() < 1e-12);
        assert!(num(&rows[2], "map_ci_low") < d && d < num(&rows[2], "map_ci_high"));
        assert!(num(&rows[2], "map_p_holm") < 0.05);
        // Holm over the two defined p-values (spam >= 0 has none): the smaller
        // doubled, the larger at least that.
        let (p50, p100) = (num(&rows[2], "map_p"), num(&rows[3], "map_p"));
        let low = (2.0 * p50.min(p100)).min(1.0);
        let (h50, h100) = if p50 <= p100 {
            (low, p100.max(low))
        } else {
            (p50.max(low), low)
        };
        assert_eq!(num(&rows[2], "map_p_holm"), h50);
        assert_eq!(num(&rows[3], "map_p_holm"), h100);
        // Run files are byte for byte those of `run` with the same threshold.
        let runs = dir.join("runs");
        ok(dir
            .cmd("sieve-search")
            .args(["run", "--index"])
            .arg(&ix)
            .arg("--topics")
            .arg(topics())
            .args([
                "--min-spam-percentile",
                "50",
                "--hits",
                "100",
                "--output-dir",
            ])
            .arg(&runs));
        assert_eq!(
            std::fs::read(out.join("runs/sieve_spam50.run")).unwrap(),
            std::fs::read(runs.join("sieve_spam50.run")).unwrap()
        );
        // No temporary file is left behind.
        let leftovers: Vec<_> = std::fs::read_dir(out.join("runs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        // The figure: well-formed, one panel per measure that is not a count,
        // a marker per filtered setting in each, renders to a non-blank PNG.
        let svg = std::fs::read_to_string(out.join("sweep.svg")).unwrap();
        assert_offline(&svg);
        // (the eight of `eval`'s defaults and judged_10, judged_20; and the
        // judged-loss panel's three points)
        assert_eq!(svg.matches("<g class=\"panel\"").count(), 10);
        assert_eq!(svg.matches("<g class=\"point\">").count(), 10 * 3 + 3);
        assert_eq!(svg.matches("class=\"panel judged-loss\"").count(), 1);
        assert_eq!(svg.matches("class=\"baseline\"").count(), 10);
        // Filled markers where significant (spam >= 50 removes half the
        // collection), hollow for spam >= 0 (identical runs, no p-value).
        assert!(svg.contains("class=\"marker significant\""));
        assert!(svg.contains("<title>threshold 0: mean"));
        let (ink, size) = crate::sweep::render(&svg);
        assert!(ink > 0.02, "{ink}");
        assert_eq!(size.0, 1000);
        // The page: well-formed, offline, a section per filtered setting.
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(assert_offline(&page) > 100);
        assert_eq!(page.matches("<details").count(), 3);
        assert!(page.contains("class=\"sieve-sweep\""));
        assert!(page.contains("class=\"diffchart\""));
        assert!(page.contains("Entered the top 10"));
        for t in &tags {
            assert!(page.contains(&format!("<td>{t}</td>")), "{t}");
        }
    }
);

sieve_test!(
    sweep_with_bm25_lists_and_filtered_statistics_equals_run,
    |dir| {
        let ix = cacm(&dir);
        let out = dir.join("sweep");
        ok(sweep_cacm(&dir, &ix, &out)
            .args([
                "--min-spam-percentile",
                "30,70",
                "--k1",
                "0.9,1.2",
                "--hits",
                "50",
            ])
            .args(["--collection-stats", "filtered", "--runs", "-m", "map,P_10"]));
        let rows = read_tsv(&out.join("sweep.tsv"));
        let got: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r["setting"].as_str(), r["baseline"].as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("sieve_k1-0.9_b-0.4", "sieve_k1-0.9_b-0.4"),
                ("sieve_k1-0.9_b-0.4_spam30", "sieve_k1-0.9_b-0.4"),
                ("sieve_k1-0.9_b-0.4_spam70", "sieve_k1-0.9_b-0.4"),
                ("sieve_k1-1.2_b-0.4", "sieve_k1-1.2_b-0.4"),
                ("sieve_k1-1.2_b-0.4_spam30", "sieve_k1-1.2_b-0.4"),
                ("sieve_k1-1.2_b-0.4_spam70", "sieve_k1-1.2_b-0.4"),
            ]
        );
        let header: Vec<&str> = rows[0].keys().map(String::as_str).collect();
        assert!(header.contains(&"P_10_p_holm") && !header.contains(&"P_5"));
        let runs = dir.join("runs");
        ok(dir
            .cmd("sieve-search")
            .args(["run", "--index"])
            .arg(&ix)
            .arg("--topics")
            .arg(topics())
            .args([
                "--min-spam-percentile",
                "30,70",
                "--k1",
                "0.9,1.2",
                "--hits",
                "50",
            ])
            .args(["--collection-stats", "filtered", "--output-dir"])
            .arg(&runs));
        for r in &rows {
            let tag = &r["setting"];
            if tag.ends_with("b-0.4") {
                continue; // `run` names an unfiltered run only without filters
            }
            assert_eq!(
                std::fs::read(out.join(format!("runs/{tag}.run"))).unwrap(),
                std::fs::read(runs.join(format!("{tag}.run"))).unwrap(),
                "{tag}"
            );
        }
        let svg = std::fs::read_to_string(out.join("sweep.svg")).unwrap();
        assert_offline(&svg);
        // two panels (map, P_10), two series, a baseline per series
        assert_eq!(svg.matches("<g class=\"panel\"").count(), 2);
        assert_eq!(svg.matches("class=\"baseline\"").count(), 4);
        assert!(svg.contains("k1=1.2 b=0.4"));
    }
);

sieve_test!(sweep_with_a_model_axis_equals_run, |dir| {
    let ix = cacm(&dir);
    let out = dir.join("sweep");
    let settings = ["--model", "bm25,qld", "--mu", "1000,2000", "--hits", "50"];
    ok(dir
        .cmd("sieve-search")
        .args(["sweep", "--index"])
        .arg(&ix)
        .arg("--topics")
        .arg(topics())
        .arg("--qrels")
        .arg(qrels())
        .args(["--min-spam-percentile", "70"])
        .args(settings)
        .args(["--runs", "-m", "map,P_10", "--output-dir"])
        .arg(&out));
    let rows = read_tsv(&out.join("sweep.tsv"));
    let got: Vec<[&str; 6]> = rows
        .iter()
        .map(|r| {
            [
                &r["setting"],
                &r["baseline"],
                &r["model"],
                &r["k1"],
                &r["mu"],
                &r["feedback"],
            ]
            .map(String::as_str)
        })
        .collect();
    let (b, q1, q2) = (
        "sieve_k1-0.9_b-0.4",
        "sieve_qld_mu-1000",
        "sieve_qld_mu-2000",
    );
    assert_eq!(
        got,
        [
            [b, b, "bm25", "0.9", "NA", "none"],
            ["sieve_k1-0.9_b-0.4_spam70", b, "bm25", "0.9", "NA", "none"],
            [q1, q1, "qld", "NA", "1000", "none"],
            ["sieve_qld_mu-1000_spam70", q1, "qld", "NA", "1000", "none"],
            [q2, q2, "qld", "NA", "2000", "none"],
            ["sieve_qld_mu-2000_spam70", q2, "qld", "NA", "2000", "none"],
        ]
    );
    // Every filtered setting's run file is the one `run` writes.
    let runs = dir.join("runs");
    ok(dir
        .cmd("sieve-search")
        .args(["run", "--index"])
        .arg(&ix)
        .arg("--topics")
        .arg(topics())
        .args(["--min-spam-percentile", "70"])
        .args(settings)
        .arg("--output-dir")
        .arg(&runs));
    for r in rows.iter().filter(|r| r["setting"].ends_with("spam70")) {
        let tag = &r["setting"];
        assert_eq!(
            std::fs::read(out.join(format!("runs/{tag}.run"))).unwrap(),
            std::fs::read(runs.join(format!("{tag}.run"))).unwrap(),
            "{tag}"
        );
    }
    let svg = std::fs::read_to_string(out.join("sweep.svg")).unwrap();
    assert!(
        svg.contains("qld mu=2000"),
        "the figure names the QLD series"
    );
});

sieve_test!(sweep_with_feedback_equals_run_with_feedback, |dir| {
    let ix = cacm(&dir);
    let out = dir.join("sweep");
    let html = dir.join("sweep.html");
    ok(dir
        .cmd("sieve-search")
        .args(["sweep", "--index"])
        .arg(&ix)
        .arg("--topics")
        .arg(topics())
        .arg("--qrels")
        .arg(qrels())
        .args(["--min-spam-percentile", "30,70", "--feedback", "rm3"])
        .args(["--hits", "200", "--runs", "--output-dir"])
        .arg(&out)
        .arg("--html")
        .arg(&html));
    let rows = read_tsv(&out.join("sweep.tsv"));
    let rm3 = "rm3_t10_d10_w0.5";
    let got: Vec<[&str; 4]> = rows
        .iter()
        .map(|r| [&r["setting"], &r["baseline"], &r["feedback"], &r["spam"]].map(String::as_str))
        .collect();
    let base = "sieve_rm3_t10_d10_w0.5";
    assert_eq!(
        got,
        [
            [base, base, rm3, "NA"],
            ["sieve_spam30_rm3_t10_d10_w0.5", base, rm3, "30"],
            ["sieve_spam70_rm3_t10_d10_w0.5", base, rm3, "70"],
        ]
    );
    // The feedback column comes right after the model columns.
    let header = std::fs::read_to_string(out.join("sweep.tsv")).unwrap();
    assert!(
        header.starts_with("setting\tbaseline\tmodel\tk1\tb\tmu\tfeedback\tspam\tkept\t"),
        "{}",
        header.lines().next().unwrap()
    );
    // Each run file is, byte for byte, the run `run --feedback rm3` writes
    // with the same threshold (its feedback documents from the filtered
    // ranking), or without one for the baseline.
    for (threshold, tag) in [
        (None, base),
        (Some("30"), "sieve_spam30_rm3_t10_d10_w0.5"),
        (Some("70"), "sieve_spam70_rm3_t10_d10_w0.5"),
    ] {
        let runs = dir.join(&format!("runs-{}", threshold.unwrap_or("all")));
        let mut cmd = dir.cmd("sieve-search");
        cmd.args(["run", "--index"])
            .arg(&ix)
            .arg("--topics")
            .arg(topics())
            .args(["--feedback", "rm3", "--hits", "200", "--output-dir"])
            .arg(&runs);
        if let Some(p) = threshold {
            cmd.args(["--min-spam-percentile", p]);
        }
        ok(&mut cmd);
        let sweep_run = out.join(format!("runs/{tag}.run"));
        assert_eq!(
            std::fs::read(&sweep_run).unwrap(),
            std::fs::read(runs.join(format!("{tag}.run"))).unwrap(),
            "{tag}"
        );
        // The row's numbers are `eval`'s of that run file (-c: a topic the
        // setting retrieves nothing for counts 0, as in the sweep).
        let row = rows.iter().find(|r| r["setting"] == tag).unwrap();
        let means = eval_c_means(&dir, &sweep_run);
        for m in EVAL_MEASURES {
            let got: f64 = row[m].parse().unwrap();
            assert_eq!(got, means[m], "{tag} {m}");
        }
    }
    // Feedback changes the runs: the baseline is not the plain BM25 run.
    let plain = dir.join("plain.run");
    ok(dir
        .cmd("sieve-search")
        .args(["run", "--index"])
        .arg(&ix)
        .arg("--topics")
        .arg(topics())
        .args(["--hits", "200", "--output"])
        .arg(&plain));
    assert_ne!(
        eval_c_means(&dir, &plain)["map"],
        rows[0]["map"].parse::<f64>().unwrap()
    );
    // The figure names the feedback series; the page has a feedback
    // column and says where the feedback documents come from.
    let svg = std::fs::read_to_string(out.join("sweep.svg")).unwrap();
    assert_offline(&svg);
    assert!(svg.contains(rm3), "the legend names the feedback setting");
    assert!(svg.contains("feedback documents come from the filtered ranking"));
    let page = std::fs::read_to_string(&html).unwrap();
    assert_offline(&page);
    assert!(page.contains("<th>feedback</th>"));
    assert!(page.contains(&format!("<td>{rm3}</td>")));
    assert!(page.contains("under a filter, the filtered ranking"));
});

sieve_test!(
    sweep_with_feedback_and_models_has_a_baseline_per_pair,
    |dir| {
        let ix = cacm(&dir);
        let out = dir.join("sweep");
        let settings = [
            "--feedback",
            "rm3,rocchio",
            "--model",
            "bm25,qld",
            "--hits",
            "30",
        ];
        ok(dir
            .cmd("sieve-search")
            .args(["sweep", "--index"])
            .arg(&ix)
            .arg("--topics")
            .arg(topics())
            .arg("--qrels")
            .arg(qrels())
            .args(["--min-spam-percentile", "70"])
            .args(settings)
            .args(["--runs", "-m", "map,P_10", "--output-dir"])
            .arg(&out));
        let rows = read_tsv(&out.join("sweep.tsv"));
        let (r, c) = ("rm3_t10_d10_w0.5", "rocchio_t10_d10_a1_b0.75");
        let got: Vec<[&str; 4]> = rows
            .iter()
            .map(|x| {
                [&x["setting"], &x["baseline"], &x["model"], &x["feedback"]].map(String::as_str)
            })
            .collect();
        let b = |m: &str, f: &str| format!("sieve_{m}_{f}");
        let f = |m: &str, f: &str| format!("sieve_{m}_spam70_{f}");
        let (bm, qm) = ("k1-0.9_b-0.4", "qld_mu-1000");
        let want: Vec<[String; 4]> = [
            (bm, "bm25", r),
            (bm, "bm25", c),
            (qm, "qld", r),
            (qm, "qld", c),
        ]
        .into_iter()
        .flat_map(|(m, model, fb)| {
            [
                [b(m, fb), b(m, fb), model.into(), fb.into()],
                [f(m, fb), b(m, fb), model.into(), fb.into()],
            ]
        })
        .collect();
        let want: Vec<[&str; 4]> = want
            .iter()
            .map(|w| w.each_ref().map(String::as_str))
            .collect();
        assert_eq!(got, want);
        // 2 models x 2 feedback settings: four baselines.
        let baselines: Vec<&str> = rows
            .iter()
            .filter(|x| x["setting"] == x["baseline"])
            .map(|x| x["setting"].as_str())
            .collect();
        assert_eq!(baselines.len(), 4, "{baselines:?}");
        assert!(baselines.iter().all(|t| !t.contains("spam")));
        // Every filtered setting's run is `run`'s with the same flags (each
        // comes from its own model's first stage and its own feedback setting).
        let runs = dir.join("runs");
        ok(dir
            .cmd("sieve-search")
            .args(["run", "--index"])
            .arg(&ix)
            .arg("--topics")
            .arg(topics())
            .args(["--min-spam-percentile", "70"])
            .args(settings)
            .arg("--output-dir")
            .arg(&runs));
        for x in rows.iter().filter(|x| x["setting"] != x["baseline"]) {
            let tag = &x["setting"];
            assert_eq!(
                std::fs::read(out.join(format!("runs/{tag}.run"))).unwrap(),
                std::fs::read(runs.join(format!("{tag}.run"))).unwrap(),
                "{tag}"
            );
        }
        let svg = std::fs::read_to_string(out.join("sweep.svg")).unwrap();
        assert_offline(&svg);
        // two panels (map, P_10), a baseline per model and feedback setting
        assert_eq!(svg.matches("class=\"baseline\"").count(), 2 * 4);
        assert!(svg.contains(&format!("qld mu=1000, {c}")));
    }
);

sieve_test!(sweep_with_feedback_refuses_naming_the_flag, |dir| {
    let ix = cacm(&dir);
    let base = |dir: &Dir| {
        let mut c = dir.cmd("sieve-search");
        c.args(["sweep", "--index"])
            .arg(&ix)
            .arg("--topics")
            .arg(topics())
            .arg("--qrels")
            .arg(qrels())
            .args(["--min-spam-percentile", "50", "--output-dir"])
            .arg(dir.join("out"));
        c
    };
    for (args, want) in [
        (vec!["--feedback", "rm4"], "--feedback"),
        (
            vec!["--feedback", "rm3", "--rm3-fb-docs", "0"],
            "--rm3-fb-docs",
        ),
        (vec!["--feedback", "rm3", "--model", "sdm"], "--model"),
        (
            vec!["--feedback", "rm3", "--rerank-cutoff", "0"],
            "--rerank-cutoff",
        ),
        // `run` writes the feedback queries; a sweep does not take the flag.
        (
            vec!["--feedback", "rm3", "--feedback-queries", "q.tsv"],
            "--feedback-queries",
        ),
    ] {
        let out = fails(base(&dir).args(&args));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    assert!(!dir.join("out/sweep.tsv").exists());
});

sieve_test!(sweep_crossed_rules_name_every_combination, |dir| {
    let ix = cacm(&dir);
    let out = dir.join("sweep");
    ok(sweep_cacm(&dir, &ix, &out)
        .args([
            "--min-spam-percentile",
            "40,80",
            "--max-rate",
            "surrogate=0,2.5",
        ])
        .args([
            "--max-invalid-456-per-kb",
            "1",
            "--cross",
            "--hits",
            "20",
            "-m",
            "P_10",
        ]));
    let rows = read_tsv(&out.join("sweep.tsv"));
    let tags: Vec<&str> = rows.iter().map(|r| r["setting"].as_str()).collect();
    assert_eq!(
        tags,
        [
            "sieve",
            "sieve_spam40_i456le1_surrogate_le0",
            "sieve_spam40_i456le1_surrogate_le2.5",
            "sieve_spam80_i456le1_surrogate_le0",
            "sieve_spam80_i456le1_surrogate_le2.5",
        ]
    );
    assert_eq!(rows[2]["surrogate"], "2.5");
    assert_eq!(rows[2]["invalid_4_5_6"], "1");
    assert_eq!(rows[2]["spam"], "40");
    // CACM has no encoding error: the rate rules keep everything, so the
    // two rates give the same documents.
    assert_eq!(rows[1]["kept"], rows[2]["kept"]);
    assert_eq!(rows[1]["P_10"], rows[2]["P_10"]);
    let svg = std::fs::read_to_string(out.join("sweep.svg")).unwrap();
    assert_offline(&svg);
    // one panel (x: spam), a series per combination of the other rules
    assert_eq!(svg.matches("<g class=\"panel\"").count(), 1);
    assert!(svg.contains("invalid_4_5_6 &lt;= 1/KB, surrogate &lt;= 2.5/KB"));
});

sieve_test!(sweep_refuses_nonsense_naming_the_flag, |dir| {
    let ix = cacm(&dir);
    let base = |dir: &Dir| {
        let mut c = dir.cmd("sieve-search");
        c.args(["sweep", "--index"])
            .arg(&ix)
            .arg("--topics")
            .arg(topics())
            .arg("--qrels")
            .arg(qrels())
            .arg("--output-dir")
            .arg(dir.join("out"));
        c
    };
    for (args, want) in [
        (vec![], "nothing to sweep"),
        (vec!["--max-rate", "spam=50"], "--max-rate"),
        (vec!["--max-rate", "nope=1"], "--max-rate"),
        (vec!["--max-rate", "surrogate=1,1"], "twice"),
        (
            vec!["--max-invalid-456-per-kb=-1"],
            "--max-invalid-456-per-kb",
        ),
        (
            vec!["--min-spam-percentile", "101"],
            "--min-spam-percentile",
        ),
    ] {
        let out = fails(base(&dir).args(&args));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // A topic file without judged topics.
    let t = dir.write("t.txt", b"9001:algebraic language\n");
    let out = fails(
        dir.cmd("sieve-search")
            .args(["sweep", "--index"])
            .arg(&ix)
            .arg("--topics")
            .arg(&t)
            .arg("--qrels")
            .arg(qrels())
            .args(["--min-spam-percentile", "50", "--output-dir"])
            .arg(dir.join("out2")),
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has judgements in the qrels"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
});

sieve_test!(
    compare_html_shows_hostile_documents_inert_and_needs_an_index_for_details,
    |dir| {
        let ix = dir.join("hostile");
        ok(dir
            .cmd("sieve-index")
            .args(["build", "--input"])
            .arg(fixture("page/hostile.trec"))
            .arg("--index")
            .arg(&ix));
        let compare = |html: &Path, index: bool| {
            let mut c = dir.cmd("sieve-search");
            c.args(["compare", "--qrels"])
                .arg(fixture("page/qrels.txt"))
                .arg(fixture("page/a.run"))
                .arg(fixture("page/b.run"))
                .args(["-m", "map,P_5", "--html"])
                .arg(html);
            if index {
                c.arg("--index").arg(&ix);
            }
            ok(&mut c)
        };
        let with = dir.join("with.html");
        let text = compare(&with, true);
        assert!(text.contains("map"), "{text}");
        let page = std::fs::read_to_string(&with).unwrap();
        assert_offline(&page);
        // The hostile titles and URLs are shown, escaped, isolated.
        assert!(page.contains(
        "<bdi>&lt;img src=x onerror=&quot;document.body.setAttribute('data-pwned','title')&quot;&gt;"
    ));
        assert!(page.contains("&lt;script&gt;document.body.setAttribute("));
        assert!(page.contains("<bdi>javascript://alert(document.domain)/&lt;style&gt;"));
        // (an `onerror=` in the text is inert; assert_offline checks that no
        // attribute is a handler)
        for live in ["<img", "<script", "<link", "<a ", "<iframe"] {
            assert!(!page.contains(live), "{live}");
        }
        assert_eq!(page.matches("<style>").count(), 1);
        // Both documents entered topic 1's top 10; grades from the qrels.
        assert!(page.contains("Entered the top 10 (in B's, not in A's)</b> (2)"));
        assert!(page.contains("<bdi>HOSTILE-1</bdi>") && page.contains("<bdi>HOSTILE-2</bdi>"));
        assert!(page.contains("<bdi>UTF-8</bdi>"));
        // Without an index: docids and grades, and the page says why no more.
        let without = dir.join("without.html");
        compare(&without, false);
        let page = std::fs::read_to_string(&without).unwrap();
        assert_offline(&page);
        assert!(page.contains("no index was given (compare --index IDX adds them)"));
        assert!(page.contains("<bdi>HOSTILE-1</bdi>"));
        assert!(!page.contains("<th>URL</th>"));
        // --index without --html or B's filter is a usage error.
        let out = fails(
            dir.cmd("sieve-search")
                .args(["compare", "--qrels"])
                .arg(fixture("page/qrels.txt"))
                .arg(fixture("page/a.run"))
                .arg(fixture("page/b.run"))
                .arg("--index")
                .arg(&ix),
        );
        assert_eq!(out.status.code(), Some(2));
    }
);

/// Renders `svg` with resvg, without its text (the tests' resvg has no
/// font shaping): (share of pixels that are not white, size).
pub fn render(svg: &str) -> (f64, (u32, u32)) {
    let opt = resvg::usvg::Options::default();
    let tree = resvg::usvg::Tree::from_str(svg, &opt).expect("parse svg");
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("pixmap");
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    let ink = pixmap
        .pixels()
        .iter()
        .filter(|p| {
            let c = p.demultiply();
            c.alpha() > 0 && c.red().min(c.green()).min(c.blue()) < 245
        })
        .count();
    (
        ink as f64 / pixmap.pixels().len() as f64,
        (size.width(), size.height()),
    )
}

sieve_test!(readme_sweep_sample_is_well_formed_and_not_blank, |_dir| {
    // The guide's figure (docs/sweep-sample.svg in GUIDE.md, the demo's sweep).
    let svg = std::fs::read_to_string(repo_root().join("docs/sweep-sample.svg")).unwrap();
    assert_offline(&svg);
    assert_eq!(svg.matches("<g class=\"panel\"").count(), 4);
    let (ink, size) = render(&svg);
    assert!(ink > 0.02, "{ink}");
    assert_eq!(size, (1000, 780));
});

sieve_test!(sweep_judged_only_columns_equal_eval_judged_only, |dir| {
    let ix = cacm(&dir);
    let out = dir.join("sweep");
    ok(dir
        .cmd("sieve-search")
        .args(["sweep", "--judged-only", "--index"])
        .arg(&ix)
        .arg("--topics")
        .arg(topics())
        .arg("--qrels")
        .arg(qrels())
        .args(["--min-spam-percentile", "50", "--hits", "30", "--runs"])
        .arg("--output-dir")
        .arg(&out));
    let rows = read_tsv(&out.join("sweep.tsv"));
    assert_eq!(rows.len(), 2);
    // the judged share is a default measure, compared like the others;
    // it has no -J column (-J makes it 1)
    for col in [
        "judged_10",
        "judged_20",
        "judged_10_diff",
        "map_J",
        "map_J_p_holm",
    ] {
        assert!(rows[0].contains_key(col), "{col}");
    }
    assert!(!rows[0].contains_key("judged_10_J"));
    assert_eq!(rows[0]["map_J_diff"], "NA");
    let num = |r: &BTreeMap<String, String>, c: &str| r[c].parse::<f64>().unwrap();
    let flags = [
        "-m", "map", "-m", "P_10", "-m", "ndcg@20", "-m", "num_ret", "-m", "judged",
    ];
    for r in &rows {
        let run = out.join(format!("runs/{}.run", r["setting"]));
        let plain = eval_c_means_with(&dir, &run, &flags);
        let mut j_flags = vec!["-J"];
        j_flags.extend(flags);
        let judged = eval_c_means_with(&dir, &run, &j_flags);
        for m in ["judged_10", "judged_20", "map", "P_10"] {
            assert_eq!(num(r, m), plain[m], "{} {m}", r["setting"]);
        }
        for m in ["map", "P_10", "ndcg@20", "num_ret"] {
            let col = format!("{m}_J");
            assert_eq!(num(r, &col), judged[m], "{} {col}", r["setting"]);
        }
        // CACM's top 30 is far from fully judged: -J changes the figures
        assert!(num(r, "judged_10") < 1.0);
        assert!(num(r, "num_ret_J") < num(r, "num_ret"));
        assert!(num(r, "P_10_J") > num(r, "P_10"));
    }
    // the -J comparison is computed as the plain one is
    let d = num(&rows[1], "map_J") - num(&rows[0], "map_J");
    assert!((num(&rows[1], "map_J_diff") - d).abs() < 1e-12);
    assert!(num(&rows[1], "map_J_ci_low") <= d && d <= num(&rows[1], "map_J_ci_high"));
    let wlt: u64 = ["map_J_wins", "map_J_losses", "map_J_ties"]
        .iter()
        .map(|c| rows[1][*c].parse::<u64>().unwrap())
        .sum();
    assert_eq!(wlt, 52);
});
