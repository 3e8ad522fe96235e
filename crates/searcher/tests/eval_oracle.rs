//! Evaluation against oracles.
//!
//! - Always: the Anserini CACM BM25 run (tests/data/eval, Apache-2.0) gives
//!   the figures Anserini's own TrecEvalTest and pytrec_eval give.
//! - With the venv from `scripts/setup-python.sh` (`.venv/` in the repo
//!   root): every per-topic value of every trec_eval measure (`all_trec`)
//!   equals pytrec_eval's (trec_eval 9) to 1e-9 and gdeval.pl's (bundled
//!   with ir_measures, printed with 5 decimals) to its rounding, on the CACM
//!   run, on random runs with ties, missing and extra topics against random
//!   graded qrels with -2 and topics without relevant documents, on the Web
//!   Track qrels when the shared data is present, and on thousands of random
//!   cases (ties at f32 and f64, NaN and infinite scores, grades above 4,
//!   `-c`, `-M`) evaluated in one oracle call. Without the venv these print
//!   `SKIPPED` to stderr.
//! - Judged documents only (`-J`): the same, every measure against
//!   pytrec_eval's `judged_docs_only_flag=True` and gdeval.pl on the run
//!   without its unjudged documents, on the CACM run and the random cases.
//! - The judged share `judged_10` / `judged_20` against ir_measures'
//!   `Judged@10` / `Judged@20`; `infAP` (in `all_trec`) against pytrec_eval.
//! - Always: `xinfAP` on made-up sample qrels against the recorded output
//!   of NIST's `sample_eval.pl` (tests/data/eval/sample, SOURCES.md there).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use sieve_searcher::eval::{EvalOptions, Measure, MeasureSpec, evaluate};
use sieve_searcher::qrels::read_qrels;
use sieve_searcher::run::{Duplicates, read_run};
use sieve_testdata::shared_file;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/data/eval").join(name)
}

fn python() -> Option<PathBuf> {
    let p = repo().join(".venv/bin/python");
    p.exists().then_some(p)
}

#[test]
fn cacm_anserini_run_matches_published_figures() {
    let q = read_qrels(&fixture("qrels.cacm.txt")).unwrap();
    let r = read_run(&fixture("anserini__cacm-bm25.run.txt"), Duplicates::Error).unwrap();
    assert_eq!((q.num_topics(), q.num_judgments()), (52, 796));
    assert_eq!((r.num_topics(), r.num_hits()), (64, 1920));
    let e = evaluate(&q, &r, "Anserini", EvalOptions::default()).unwrap();
    assert_eq!(e.num_q(), 52);
    // Anserini's TrecEvalTest: P_30 = 0.1942; pytrec_eval MAP over the top 30 = 0.2744.
    assert_eq!(format!("{:.4}", e.mean(Measure::P30)), "0.1942");
    assert_eq!(format!("{:.4}", e.mean(Measure::Map)), "0.2744");
    assert_eq!(e.mean(Measure::NumRet), 52.0 * 30.0);
    // -c: all 52 qrels topics are in the run, so nothing changes
    let complete = EvalOptions {
        complete: true,
        ..EvalOptions::default()
    };
    let c = evaluate(&q, &r, "Anserini", complete).unwrap();
    assert_eq!(c.mean(Measure::Map), e.mean(Measure::Map));
}

type PerTopic = BTreeMap<String, BTreeMap<String, f64>>;

#[test]
fn xinf_ap_equals_sample_eval_pl() {
    use sieve_searcher::qrels::{QrelsFormat, read_qrels_as};
    let dir = fixture("sample");
    let q = read_qrels_as(&dir.join("qrels.sample.txt"), QrelsFormat::Sample).unwrap();
    let r = read_run(&dir.join("madeup.run"), Duplicates::Error).unwrap();
    let e = evaluate(&q, &r, "madeup", EvalOptions::default()).unwrap();
    let out = std::fs::read_to_string(dir.join("sample_eval.out")).unwrap();
    // `infAP<TAB><TAB>qid<TAB><TAB>value` rows, per topic then `all`
    let rows: Vec<(&str, &str)> = out
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3 && f[0] == "infAP").then(|| (f[1], f[2]))
        })
        .collect();
    assert_eq!(rows.len(), 31);
    let mut nonzero = 0;
    for (qid, want) in rows {
        let got = match qid {
            "all" => e.mean(Measure::XinfAP),
            _ => e.topic(qid).unwrap().get(Measure::XinfAP).unwrap(),
        };
        assert_eq!(format!("{got:.4}"), want, "topic {qid}");
        nonzero += usize::from(got > 0.0);
    }
    assert!(nonzero > 25, "{nonzero}");
    // not trec_eval's infAP, which reads the strata as one pool
    let t = e.topic("2").unwrap();
    assert_ne!(
        format!("{:.4}", t.get(Measure::InfAP).unwrap()),
        format!("{:.4}", t.get(Measure::XinfAP).unwrap())
    );
    assert!(
        e.to_text_of(&[Measure::XinfAP], false, 4)
            .contains("xinfAP")
    );
    // the same judgements as 4-column qrels have no strata: no xinfAP row
    let mut plain = Vec::new();
    q.write(&mut plain).unwrap();
    let text = String::from_utf8(plain).unwrap();
    let four: String = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            format!("{} 0 {} {}\n", f[0], f[2], f[4])
        })
        .collect();
    let q4 = sieve_searcher::qrels::parse_qrels(four.as_bytes()).unwrap();
    let e4 = evaluate(&q4, &r, "madeup", EvalOptions::default()).unwrap();
    assert!(
        !e4.to_text_of(&[Measure::XinfAP], true, 4)
            .contains("xinfAP")
    );
    assert_eq!(e4.mean(Measure::InfAP), e.mean(Measure::InfAP));
}

/// Runs the oracle (`-J` with `judged_only`); returns (trec_eval per
/// topic, gdeval per topic).
fn oracle(py: &Path, qrels: &Path, run: &Path, judged_only: bool) -> (PerTopic, PerTopic) {
    let out = Command::new(py)
        .arg(repo().join("scripts/eval_oracle.py"))
        .arg(if judged_only { "eval-J" } else { "eval" })
        .arg(qrels)
        .arg(run)
        .output()
        .expect("run eval_oracle.py");
    assert!(
        out.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let parse = |k: &str| -> PerTopic { serde_json::from_value(v[k].clone()).unwrap() };
    (parse("trec_eval"), parse("gdeval"))
}

/// Compares our per-topic values with the oracles'; returns the number of
/// values compared.
fn compare_with_oracle(py: &Path, qrels: &Path, run: &Path) -> usize {
    compare_with_oracle_as(py, qrels, run, EvalOptions::default())
}

/// [`compare_with_oracle`] with `options` (`judged_only`: trec_eval `-J`).
fn compare_with_oracle_as(py: &Path, qrels: &Path, run: &Path, options: EvalOptions) -> usize {
    let q = read_qrels(qrels).unwrap();
    let r = read_run(run, Duplicates::Error).unwrap();
    let e = evaluate(&q, &r, "t", options).unwrap();
    let (te, gd) = oracle(py, qrels, run, options.judged_only);
    let ours: Vec<&str> = e.topics.iter().map(|t| t.qid.as_str()).collect();
    let mut theirs: Vec<&str> = te.keys().map(String::as_str).collect();
    theirs.sort_by(|a, b| sieve_searcher::eval::qid_order(a, b));
    assert_eq!(ours, theirs, "evaluated topics differ from trec_eval's");
    let mut n = 0;
    let mut measures = MeasureSpec::parse("all_trec").unwrap();
    measures.extend(MeasureSpec::parse("gdeval").unwrap());
    for t in &e.topics {
        for &m in &measures {
            let name = m.name();
            if let Some(&want) = te[&t.qid].get(&name) {
                let got = t.get(m).unwrap();
                assert!(
                    (got - want).abs() < 1e-9,
                    "topic {} {name}: ours {got} trec_eval {want}",
                    t.qid
                );
                n += 1;
            }
            if matches!(m, Measure::Ndcg20 | Measure::Err20) {
                match (t.get(m), gd.get(&t.qid)) {
                    (Some(got), Some(g)) => {
                        let want = g[&name];
                        assert_eq!(
                            format!("{got:.5}"),
                            format!("{want:.5}"),
                            "topic {} {name}",
                            t.qid
                        );
                        n += 1;
                    }
                    (None, None) => {}
                    (a, b) => panic!("topic {} {name}: ours {a:?}, gdeval {b:?}", t.qid),
                }
            }
        }
    }
    // gdeval's mean over the topics it reports
    let gd_mean: f64 = gd.values().map(|g| g["ndcg@20"]).sum::<f64>() / gd.len().max(1) as f64;
    assert!(
        (e.mean(Measure::Ndcg20) - gd_mean).abs() < 1e-5,
        "{} vs {gd_mean}",
        e.mean(Measure::Ndcg20)
    );
    n
}

#[test]
fn cacm_judged_only_equals_pytrec_eval_and_gdeval() {
    let Some(py) = python() else {
        eprintln!(
            "SKIPPED: no .venv (run scripts/setup-python.sh) for the pytrec_eval/gdeval oracle"
        );
        return;
    };
    let (qp, rp) = (
        fixture("qrels.cacm.txt"),
        fixture("anserini__cacm-bm25.run.txt"),
    );
    let j = EvalOptions {
        judged_only: true,
        ..EvalOptions::default()
    };
    let n = compare_with_oracle_as(&py, &qp, &rp, j);
    assert!(n > 52 * 9, "{n}");
    // -J changes the figures: CACM's top 30 holds many unjudged documents
    let (q, r) = (
        read_qrels(&qp).unwrap(),
        read_run(&rp, Duplicates::Error).unwrap(),
    );
    let plain = evaluate(&q, &r, "t", EvalOptions::default()).unwrap();
    let judged = evaluate(&q, &r, "t", j).unwrap();
    assert!(judged.mean(Measure::P10) > plain.mean(Measure::P10));
    assert!(judged.mean(Measure::NumRet) < plain.mean(Measure::NumRet));
    assert_eq!(judged.mean(Measure::NumRel), plain.mean(Measure::NumRel));
}

#[test]
fn cacm_judged_share_equals_ir_measures() {
    let Some(py) = python() else {
        eprintln!("SKIPPED: no .venv (run scripts/setup-python.sh) for the ir_measures oracle");
        return;
    };
    let (qp, rp) = (
        fixture("qrels.cacm.txt"),
        fixture("anserini__cacm-bm25.run.txt"),
    );
    let out = Command::new(&py)
        .arg(repo().join("scripts/eval_oracle.py"))
        .arg("judged")
        .args([&qp, &rp])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: PerTopic = serde_json::from_slice(&out.stdout).unwrap();
    let q = read_qrels(&qp).unwrap();
    let r = read_run(&rp, Duplicates::Error).unwrap();
    let e = evaluate(&q, &r, "t", EvalOptions::default()).unwrap();
    assert_eq!(want.len(), e.topics.len());
    let mut some_partial = false;
    for t in &e.topics {
        for k in [10, 20] {
            let got = t.get(Measure::Judged(k)).unwrap();
            let w = want[&t.qid][&format!("judged_{k}")];
            assert!(
                (got - w).abs() < 1e-12,
                "topic {} judged_{k}: {got} vs {w}",
                t.qid
            );
            some_partial |= got > 0.0 && got < 1.0;
        }
    }
    assert!(some_partial);
}

#[test]
fn cacm_per_topic_equals_pytrec_eval_and_gdeval() {
    let Some(py) = python() else {
        eprintln!(
            "SKIPPED: no .venv (run scripts/setup-python.sh) for the pytrec_eval/gdeval oracle"
        );
        return;
    };
    let n = compare_with_oracle(
        &py,
        &fixture("qrels.cacm.txt"),
        &fixture("anserini__cacm-bm25.run.txt"),
    );
    assert!(n > 52 * 9, "{n}");
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn random_graded_runs_equal_pytrec_eval_and_gdeval() {
    let Some(py) = python() else {
        eprintln!(
            "SKIPPED: no .venv (run scripts/setup-python.sh) for the pytrec_eval/gdeval oracle"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut total = 0;
    for seed in 0..12u64 {
        let mut rng = Rng(seed);
        let (mut qrels, mut run) = (String::new(), String::new());
        for topic in 1..=15u64 {
            let ndocs = 5 + rng.below(60);
            // topics 1-2: judgments but nothing relevant; others graded -2..4
            for d in 0..ndocs {
                if rng.below(3) == 0 {
                    let g = if topic <= 2 {
                        [-2, 0][rng.below(2) as usize]
                    } else {
                        [-2, 0, 0, 1, 1, 2, 3, 4][rng.below(8) as usize]
                    };
                    if topic != 14 {
                        let _ = writeln!(qrels, "{topic} 0 doc-{d:03} {g}");
                    }
                }
            }
            if topic == 15 {
                continue; // in the qrels, not in the run
            }
            // retrieve a random subset, with scores from a small set (ties)
            for d in 0..ndocs {
                if rng.below(4) != 0 {
                    let score = rng.below(8) as f64 * 0.5 - 1.0;
                    let _ = writeln!(run, "{topic} Q0 doc-{d:03} {} {score:.1} rnd", d + 1);
                }
            }
        }
        let (qp, rp) = (
            dir.path().join(format!("q{seed}")),
            dir.path().join(format!("r{seed}")),
        );
        std::fs::write(&qp, qrels).unwrap();
        std::fs::write(&rp, run).unwrap();
        total += compare_with_oracle(&py, &qp, &rp);
    }
    assert!(total > 1000, "{total}");
}

#[test]
fn web_track_qrels_random_runs_equal_pytrec_eval_and_gdeval() {
    let Some(py) = python() else {
        eprintln!(
            "SKIPPED: no .venv (run scripts/setup-python.sh) for the pytrec_eval/gdeval oracle"
        );
        return;
    };
    let Some(data) = shared_file("topics-qrels", "Web Track qrels oracle") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for name in ["qrels.web.51-100.txt", "qrels.web.151-200.txt"] {
        let qp = data.join(name);
        let q = read_qrels(&qp).unwrap();
        // A run made from the judged documents of each topic, shuffled, with
        // tied scores, plus unjudged documents.
        let mut rng = Rng(7);
        let mut run = String::new();
        for qid in q.topic_ids() {
            for (i, (docno, _)) in q.topic(qid).unwrap().sorted().into_iter().enumerate() {
                if rng.below(3) == 0 {
                    let _ = writeln!(run, "{qid} Q0 {docno} {i} {} web", rng.below(50));
                }
            }
            let _ = writeln!(run, "{qid} Q0 unjudged-{qid} 0 25 web");
        }
        let rp = dir.path().join(name);
        std::fs::write(&rp, run).unwrap();
        assert!(compare_with_oracle(&py, &qp, &rp) > 500);
    }
}

#[test]
fn compare_t_test_equals_scipy_on_cacm() {
    use sieve_searcher::compare::compare;
    let q = read_qrels(&fixture("qrels.cacm.txt")).unwrap();
    let a = read_run(&fixture("anserini__cacm-bm25.run.txt"), Duplicates::Error).unwrap();
    // B: the same run with the scores of each topic's top 10 reversed
    let text = std::fs::read_to_string(fixture("anserini__cacm-bm25.run.txt")).unwrap();
    let mut b = String::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let rank: u32 = f[3].parse().unwrap();
        let score = if rank <= 10 {
            100.0 + f64::from(rank)
        } else {
            f[4].parse().unwrap()
        };
        let _ = writeln!(b, "{} Q0 {} {} {score} B", f[0], f[2], f[3]);
    }
    let b = sieve_searcher::run::parse_run(b.as_bytes(), Duplicates::Error).unwrap();
    let o = EvalOptions::default();
    let (ea, eb) = (
        evaluate(&q, &a, "A", o).unwrap(),
        evaluate(&q, &b, "B", o).unwrap(),
    );
    let cmp = compare(&ea, &eb, &[Measure::Map, Measure::P5, Measure::Ndcg20], 5);
    assert_eq!(cmp[0].n, 52);
    assert!(cmp[0].losses > cmp[0].wins, "{:?}", cmp[0]);
    let Some(py) = python() else {
        eprintln!("SKIPPED: no .venv (run scripts/setup-python.sh) for the scipy t-test oracle");
        return;
    };
    for c in &cmp {
        let ta: Vec<String> = c_pairs(&ea, &eb, c.measure)
            .iter()
            .map(|p| format!("{:e}", p.0))
            .collect();
        let tb: Vec<String> = c_pairs(&ea, &eb, c.measure)
            .iter()
            .map(|p| format!("{:e}", p.1))
            .collect();
        let out = Command::new(&py)
            .arg(repo().join("scripts/eval_oracle.py"))
            .args(["ttest", &ta.join(","), &tb.join(",")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let (t, p) = (v["t"].as_f64().unwrap(), v["p"].as_f64().unwrap());
        assert!(
            (c.t.unwrap() - t).abs() < 1e-9,
            "{}: t {:?} scipy {t}",
            c.measure,
            c.t
        );
        assert!(
            (c.p_value.unwrap() - p).abs() < 1e-9 * p.max(1e-300) + 1e-15,
            "{}: p {:?} scipy {p}",
            c.measure,
            c.p_value
        );
    }
}

/// (A, B) values of the topics evaluated in both, for measures defined on them.
fn c_pairs(
    a: &sieve_searcher::eval::Evaluation,
    b: &sieve_searcher::eval::Evaluation,
    m: Measure,
) -> Vec<(f64, f64)> {
    a.topics
        .iter()
        .filter_map(|t| Some((t.get(m)?, b.topic(&t.qid)?.get(m)?)))
        .collect()
}

#[test]
fn regression_prels_web_1_50_refused_as_statap() {
    let Some(prels) = shared_file("topics-qrels/prels.web.1-50.txt", "prels.web.1-50.txt") else {
        return;
    };
    let e = read_qrels(&prels).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("prels.web.1-50.txt") && msg.contains("statAP") && msg.contains("line 1"),
        "{msg}"
    );
    // and the real Web Track qrels read, with -2 grades kept
    let q = read_qrels(&prels.with_file_name("qrels.web.51-100.txt")).unwrap();
    assert_eq!((q.num_topics(), q.num_judgments()), (48, 25329));
    let neg: usize = q
        .topic_ids()
        .map(|t| q.topic(t).unwrap().iter().filter(|&(_, r)| r == -2).count())
        .sum();
    assert_eq!(neg, 1431);
}

/// One random evaluation case: its own topic ids `10 * case + t`.
struct Case {
    qrels: String,
    run: String,
    options: EvalOptions,
    /// 0: ordinary; 1: grades up to 7; 2: NaN scores.
    kind: u64,
    /// A grade above 4 or a NaN score was drawn: gdeval is refused.
    refused: bool,
}

/// A score as written in a run line, drawn by `mode`: ties at f64 in
/// different spellings, ties only at f32, distinct values, special values.
fn random_score(rng: &mut Rng, mode: u64, nan: bool) -> String {
    if nan && rng.below(4) == 0 {
        return ["nan", "NaN"][rng.below(2) as usize].into();
    }
    match mode {
        0 => {
            let v = rng.below(5) as f64 * 0.25;
            match rng.below(3) {
                0 => format!("{v}"),
                1 => format!("{v:.3}"),
                _ => format!("{v:e}"),
            }
        }
        1 => {
            // equal as f32, distinct as f64: within an eighth of an f32 ulp
            let b = (rng.below(40) as f32 + 1.0) / 7.0;
            let ulp = f64::from(f32::from_bits(b.to_bits() + 1) - b);
            let off = (rng.below(3) as f64 - 1.0) * ulp / 8.0;
            format!("{:.17e}", f64::from(b) + off)
        }
        2 => format!("{:.6}", (rng.next() as f64 / u64::MAX as f64 - 0.5) * 1e3),
        _ => [
            "inf", "-inf", "0", "-0", "1e-46", "1e39", "-1e39", "2", "0.5",
        ][rng.below(9) as usize]
            .into(),
    }
}

fn random_case(rng: &mut Rng, case: u64) -> Case {
    let kind = [0, 0, 0, 0, 0, 0, 1, 2][rng.below(8) as usize];
    let grades: &[i64] = if kind == 1 {
        &[-2, -1, 0, 0, 1, 2, 3, 4, 5, 7]
    } else {
        &[-2, -1, 0, 0, 0, 1, 1, 2, 3, 4]
    };
    let (mut qrels, mut run) = (String::new(), String::new());
    for t in 1..=1 + rng.below(6) {
        let qid = 10 * case + t;
        let (in_qrels, in_run) = (t == 1 || rng.below(10) != 0, t == 1 || rng.below(7) != 0);
        let mode = rng.below(4);
        // trec_eval 9.0.8 (and pytrec_eval) stop or crash on a topic whose
        // judgments are all negative: give each topic a grade >= 0
        let mut nonneg = false;
        for d in 0..1 + rng.below(25) {
            let docno = format!("{}{d}", ["d", "D", "doc-", "x"][rng.below(4) as usize]);
            if in_qrels && rng.below(5) < 3 {
                let g = grades[rng.below(grades.len() as u64) as usize];
                nonneg |= g >= 0;
                let _ = writeln!(qrels, "{qid} 0 {docno} {g}");
            }
            if in_run && rng.below(10) < 7 {
                let s = random_score(rng, mode, kind == 2);
                let _ = writeln!(run, "{qid} Q0 {docno} {d} {s} r{case}");
            }
        }
        if in_qrels && !nonneg {
            let _ = writeln!(qrels, "{qid} 0 judged{t} 0");
        }
        if in_run && rng.below(3) == 0 {
            let s = random_score(rng, mode, kind == 2);
            let _ = writeln!(run, "{qid} Q0 unjudged{t} 0 {s} r{case}");
        }
    }
    let max_docs = (kind != 2 && rng.below(3) == 0).then(|| 1 + rng.below(15) as usize);
    let high = |l: &str| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap() > 4;
    let nan = |l: &str| l.to_ascii_lowercase().contains(" nan ");
    let refused = qrels.lines().any(high) || run.lines().any(nan);
    Case {
        refused,
        qrels,
        run,
        options: EvalOptions {
            complete: rng.below(2) == 0,
            max_docs,
            judged_only: false,
        },
        kind,
    }
}

/// Compares one case's evaluation with the oracle's per-topic values and
/// trec_eval's averaging of them; returns the number of values compared.
fn check_case(c: &Case, te: &PerTopic, gd: &PerTopic, measures: &[Measure]) -> usize {
    use sieve_searcher::qrels::parse_qrels;
    use sieve_searcher::run::parse_run;
    let q = parse_qrels(c.qrels.as_bytes()).unwrap();
    let r = parse_run(c.run.as_bytes(), Duplicates::Error).unwrap();
    let Ok(e) = evaluate(&q, &r, "t", c.options) else {
        // no topic in common: trec_eval evaluates nothing either
        assert!(r.topic_ids().all(|t| !te.contains_key(t)), "{}", c.run);
        return 0;
    };
    let ours: Vec<&str> = e.topics.iter().map(|t| t.qid.as_str()).collect();
    let theirs: Vec<&str> = r.topic_ids().filter(|t| te.contains_key(*t)).collect();
    let mut theirs = theirs;
    theirs.sort_by(|a, b| sieve_searcher::eval::qid_order(a, b));
    assert_eq!(ours, theirs, "evaluated topics\n{}{}", c.qrels, c.run);
    assert_eq!(
        e.gdeval_refused.is_some(),
        c.refused,
        "{:?}",
        e.gdeval_refused
    );
    // pytrec_eval hands trec_eval a topic's hits in another order than
    // trec_eval's own reader, so NaN scores land elsewhere: topics with a NaN
    // are not compared (the unit tests pin them to trec_eval 9.0.8's output)
    let has_nan = |q: &str| r.hits(q).unwrap().iter().any(|h| h.score.is_nan());
    let judged = |qid: &str, d: &str| q.topic(qid).and_then(|t| t.get(d)).is_some_and(|g| g >= 0);
    let emptied = |q: &str| r.hits(q).unwrap().iter().all(|h| !judged(q, &h.docno));
    let all_compared = e.topics.iter().all(|t| !has_nan(&t.qid));
    let mut n = 0;
    for &m in measures {
        let mut sum = 0.0;
        for t in e.topics.iter().filter(|t| !has_nan(&t.qid)) {
            let ctx = || format!("topic {} {m} {:?}\n{}{}", t.qid, c.options, c.qrels, c.run);
            if m.is_gdeval() {
                let (got, want) = (t.get(m), gd.get(&t.qid).map(|g| g[&m.name()]));
                match (got, want) {
                    (Some(a), Some(b)) => {
                        assert_eq!(format!("{a:.5}"), format!("{b:.5}"), "{}", ctx())
                    }
                    (None, None) => {}
                    // -J left the topic no document: gdeval.pl does not see
                    // it in the condensed run; sieve scores it 0
                    (Some(a), None) if c.options.judged_only && emptied(&t.qid) => {
                        assert_eq!(a.to_bits(), 0f64.to_bits(), "{}", ctx())
                    }
                    (a, b) => panic!("ours {a:?} gdeval {b:?}: {}", ctx()),
                }
                n += 1;
                continue;
            }
            let (got, want) = (t.get(m).unwrap(), te[&t.qid][&m.name()]);
            assert!(
                (got - want).abs() < 1e-9,
                "ours {got} trec_eval {want}: {}",
                ctx()
            );
            sum += want;
            n += 1;
        }
        if m.is_gdeval() || !all_compared {
            continue;
        }
        // trec_eval's `all` row from its per-topic values
        let want = match m {
            Measure::NumRel if c.options.complete => e.qrels_num_rel as f64,
            m if m.is_count() => sum,
            _ => sum / e.num_q() as f64,
        };
        assert!(
            (e.mean(m) - want).abs() < 1e-9,
            "mean {m}: {} vs {want}",
            e.mean(m)
        );
    }
    n
}

/// The oracle's answer (`mode`: `batch` or `batch-J`) for all `cases` in
/// one call.
fn batch_oracle(py: &Path, cases: &[Case], mode: &str) -> serde_json::Value {
    let (mut qrels, mut run, mut gq, mut gr) =
        (String::new(), String::new(), String::new(), String::new());
    let mut max_docs = serde_json::Map::new();
    for c in cases {
        qrels.push_str(&c.qrels);
        run.push_str(&c.run);
        if !c.refused {
            gq.push_str(&c.qrels);
            gr.push_str(&c.run);
        }
        if let Some(m) = c.options.max_docs {
            for line in c.run.lines() {
                let qid = line.split(' ').next().unwrap();
                max_docs.insert(qid.into(), m.into());
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    for (name, text) in [("q", &qrels), ("r", &run), ("gq", &gq), ("gr", &gr)] {
        std::fs::write(p(name), text).unwrap();
    }
    std::fs::write(p("m"), serde_json::Value::Object(max_docs).to_string()).unwrap();
    let out = Command::new(py)
        .arg(repo().join("scripts/eval_oracle.py"))
        .arg(mode)
        .args([p("q"), p("r"), p("m"), p("gq"), p("gr")])
        .output()
        .expect("run eval_oracle.py");
    assert!(
        out.status.success(),
        "oracle failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Checks every case against the oracle's trec_eval and gdeval values;
/// returns the number of values compared.
fn check_cases(cases: &[Case], v: &serde_json::Value) -> usize {
    let te: PerTopic = serde_json::from_value(v["trec_eval"].clone()).unwrap();
    let gd: PerTopic = serde_json::from_value(v["gdeval"].clone()).unwrap();
    let mut measures = MeasureSpec::parse("all_trec").unwrap();
    measures.extend(MeasureSpec::parse("gdeval").unwrap());
    let n: usize = cases
        .iter()
        .map(|c| check_case(c, &te, &gd, &measures))
        .sum();
    let kinds = |k| cases.iter().filter(|c| c.kind == k && c.refused).count();
    eprintln!(
        "{} random cases ({} with grades > 4, {} with NaN, {} with -M, {} with -c), {n} values",
        cases.len(),
        kinds(1),
        kinds(2),
        cases
            .iter()
            .filter(|c| c.options.max_docs.is_some())
            .count(),
        cases.iter().filter(|c| c.options.complete).count(),
    );
    n
}

/// Checks each case's judged share against ir_measures' (`judged`: per
/// topic `judged_10`, `judged_20`); returns the number of values compared.
fn check_judged_share(cases: &[Case], judged: &PerTopic) -> usize {
    use sieve_searcher::qrels::parse_qrels;
    use sieve_searcher::run::parse_run;
    let mut n = 0;
    for c in cases {
        let q = parse_qrels(c.qrels.as_bytes()).unwrap();
        let r = parse_run(c.run.as_bytes(), Duplicates::Error).unwrap();
        let Ok(e) = evaluate(&q, &r, "t", c.options) else {
            continue;
        };
        for t in &e.topics {
            // NaN scores: Python's sort places them elsewhere (as above)
            if r.hits(&t.qid).unwrap().iter().any(|h| h.score.is_nan()) {
                continue;
            }
            for k in [10, 20] {
                let got = t.get(Measure::Judged(k)).unwrap();
                let want = judged[&t.qid][&format!("judged_{k}")];
                assert!(
                    (got - want).abs() < 1e-12,
                    "topic {} judged_{k}: ours {got} ir_measures {want}\n{}{}",
                    t.qid,
                    c.qrels,
                    c.run
                );
                n += 1;
            }
        }
    }
    n
}

#[test]
fn random_cases_equal_pytrec_eval_and_gdeval() {
    let Some(py) = python() else {
        eprintln!(
            "SKIPPED: no .venv (run scripts/setup-python.sh) for the pytrec_eval/gdeval oracle"
        );
        return;
    };
    const CASES: u64 = 2000;
    let mut rng = Rng(2026);
    let cases: Vec<Case> = (0..CASES).map(|i| random_case(&mut rng, i)).collect();
    let v = batch_oracle(&py, &cases, "batch");
    let n = check_cases(&cases, &v);
    assert!(n > 100_000, "{n}");
    let judged: PerTopic = serde_json::from_value(v["judged"].clone()).unwrap();
    let n = check_judged_share(&cases, &judged);
    assert!(n > 5_000, "{n}");
}

#[test]
fn random_cases_judged_only_equal_pytrec_eval_and_gdeval() {
    let Some(py) = python() else {
        eprintln!(
            "SKIPPED: no .venv (run scripts/setup-python.sh) for the pytrec_eval/gdeval oracle"
        );
        return;
    };
    const CASES: u64 = 2000;
    let mut rng = Rng(2027);
    let cases: Vec<Case> = (0..CASES)
        .map(|i| {
            let mut c = random_case(&mut rng, i);
            c.options.judged_only = true;
            c
        })
        .collect();
    let v = batch_oracle(&py, &cases, "batch-J");
    let n = check_cases(&cases, &v);
    assert!(n > 100_000, "{n}");
}

/// A deterministic generator for the statistics cases (xorshift64*).
struct StatGen(u64);
impl StatGen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The per-topic values of two runs, as (a, b).
type PairCase = (Vec<f64>, Vec<f64>);

/// Random and edge cases of paired values: continuous measures, measures
/// on a grid (P@10: many tied differences), mostly-equal runs, identical
/// runs (all differences 0), one topic, two topics, a constant non-zero
/// difference, huge and tiny spreads.
fn paired_cases() -> Vec<PairCase> {
    let mut g = StatGen(0x9E37_79B9_7F4A_7C15);
    let mut cases: Vec<PairCase> = Vec::new();
    for i in 0..300 {
        let n = match i % 6 {
            0 => 2 + g.below(3) as usize,
            1 => 5 + g.below(20) as usize,
            _ => 10 + g.below(250) as usize,
        };
        let grid = i % 3 == 0;
        let value = |g: &mut StatGen| {
            if grid {
                g.below(11) as f64 / 10.0
            } else {
                g.below(1 << 30) as f64 / (1u64 << 30) as f64
            }
        };
        let a: Vec<f64> = (0..n).map(|_| value(&mut g)).collect();
        let b: Vec<f64> = a
            .iter()
            .map(|&x| match g.below(4) {
                0 => x, // a tie
                _ => value(&mut g),
            })
            .collect();
        cases.push((a, b));
    }
    let a: Vec<f64> = (0..50).map(|i| f64::from(i % 7) / 8.0).collect();
    cases.push((a.clone(), a.clone())); // identical runs
    cases.push((vec![0.0; 40], vec![0.0; 40])); // all zero
    cases.push((vec![0.25], vec![0.5])); // one topic
    cases.push((vec![0.25], vec![0.25])); // one topic, tied
    cases.push((vec![0.5, 0.25], vec![0.75, 0.25])); // two topics
    // constant non-zero difference, exact in binary
    cases.push((a.clone(), a.iter().map(|x| x + 0.25).collect()));
    // one topic changes, all others tie
    let mut b = a.clone();
    b[7] += 0.125;
    cases.push((a.clone(), b));
    // huge and tiny differences
    cases.push((vec![0.0, 0.0, 0.0], vec![1e-12, 3e-12, 2e-12]));
    cases.push((vec![0.0; 4], vec![1e6, -2e6, 3e6, 1.0]));
    cases
}

fn json_num(v: &serde_json::Value) -> Option<f64> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) if s == "inf" => Some(f64::INFINITY),
        serde_json::Value::String(s) if s == "-inf" => Some(f64::NEG_INFINITY),
        v => v.as_f64(),
    }
}

fn close_rel(got: Option<f64>, want: Option<f64>, what: &str) {
    match (got, want) {
        (None, None) => {}
        (Some(g), Some(w)) if g.is_infinite() || w.is_infinite() => assert_eq!(g, w, "{what}"),
        (Some(g), Some(w)) => assert!(
            (g - w).abs() <= 1e-9 * w.abs() + 1e-13,
            "{what}: sieve {g:e}, scipy {w:e}"
        ),
        (g, w) => panic!("{what}: sieve {g:?}, scipy {w:?}"),
    }
}

#[test]
fn paired_statistics_and_holm_match_scipy() {
    use sieve_searcher::paired::{holm, paired};
    let cases = paired_cases();
    let ours: Vec<_> = cases
        .iter()
        .map(|(a, b)| {
            let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
            paired(&d)
        })
        .collect();
    // Edge cases, whatever the oracle: as scipy (checked below when it runs).
    let n = cases.len();
    assert_eq!((ours[n - 9].t, ours[n - 9].ci), (None, Some((0.0, 0.0))));
    assert_eq!(ours[n - 7].ci, None); // one topic
    assert_eq!(ours[n - 4].p, Some(0.0)); // constant difference
    // Holm families: slices of the p-values, with ties and undefined ones.
    let ps: Vec<Option<f64>> = ours.iter().map(|p| p.p).collect();
    let mut g = StatGen(42);
    let mut families: Vec<Vec<Option<f64>>> = (0..80)
        .map(|_| {
            let len = 1 + g.below(30) as usize;
            (0..len)
                .map(|_| ps[g.below(ps.len() as u64) as usize])
                .collect()
        })
        .collect();
    families.push(vec![Some(0.01), Some(0.01), Some(0.04), None, Some(0.5)]);
    families.push(vec![None, None]);
    let Some(py) = python() else {
        eprintln!(
            "SKIPPED: no .venv (run scripts/setup-python.sh) for the scipy paired-statistics oracle"
        );
        return;
    };
    let pairs: Vec<serde_json::Value> = cases
        .iter()
        .map(|(a, b)| serde_json::json!({"a": a, "b": b}))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("cases.json");
    std::fs::write(
        &input,
        serde_json::json!({"pairs": pairs, "families": families}).to_string(),
    )
    .unwrap();
    let out = Command::new(&py)
        .arg(repo().join("scripts/eval_oracle.py"))
        .arg("paired")
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["pairs"].as_array().unwrap().len(), ours.len());
    assert_eq!(v["holm"].as_array().unwrap().len(), families.len());
    for (i, (p, want)) in ours.iter().zip(v["pairs"].as_array().unwrap()).enumerate() {
        let what = format!("case {i} (n = {})", cases[i].0.len());
        close_rel(p.t, json_num(&want["t"]), &format!("{what} t"));
        close_rel(p.p, json_num(&want["p"]), &format!("{what} p"));
        close_rel(
            p.ci.map(|c| c.0),
            json_num(&want["lo"]),
            &format!("{what} CI low"),
        );
        close_rel(
            p.ci.map(|c| c.1),
            json_num(&want["hi"]),
            &format!("{what} CI high"),
        );
    }
    for (f, want) in families.iter().zip(v["holm"].as_array().unwrap()) {
        let got = holm(f);
        let want: Vec<Option<f64>> = want.as_array().unwrap().iter().map(json_num).collect();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.into_iter().zip(want) {
            close_rel(g, w, &format!("holm of {f:?}"));
        }
    }
}
