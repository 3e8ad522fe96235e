//! Unit tests of the evaluation: hand-computed values, `-c`, output, errors.

use super::*;
use crate::qrels::parse_qrels;
use crate::run::{Duplicates, parse_run};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Qrels: topic 1 has relevant a(1), b(2), c(1), d(0), j(-2) => num_rel 3.
/// Run order after re-sorting: b(5) j(4) x(3) a(3) z(1) — the tie
/// between x and a goes to x (docno descending).
fn hand() -> Evaluation {
    let q =
        parse_qrels(b"1 0 a 1\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 j -2\n2 0 a 0\n3 0 q 1\n").unwrap();
    let r = parse_run(
        b"1 Q0 a 9 3 t\n1 Q0 b 1 5 t\n1 Q0 x 2 3 t\n1 Q0 j 3 4 t\n1 Q0 z 4 1 t\n2 Q0 a 1 1 t\n4 Q0 a 1 1 t\n",
        Duplicates::Error,
    )
    .unwrap();
    evaluate(&q, &r, "t", EvalOptions::default()).unwrap()
}

#[test]
fn hand_computed_trec_eval_measures() {
    let e = hand();
    // topic 4 is not in the qrels: ignored; topic 3 not in the run.
    assert_eq!(
        e.topics.iter().map(|t| t.qid.as_str()).collect::<Vec<_>>(),
        ["1", "2"]
    );
    let t = e.topic("1").unwrap();
    // ranks: 1 b rel, 2 j junk, 3 x unjudged, 4 a rel, 5 z unjudged
    // AP = (1/1 + 2/4) / 3 = 0.5
    assert!(close(t.get(Measure::Map).unwrap(), 0.5));
    assert!(close(t.get(Measure::P5).unwrap(), 2.0 / 5.0));
    assert!(close(t.get(Measure::P10).unwrap(), 2.0 / 10.0));
    assert!(close(t.get(Measure::P30).unwrap(), 2.0 / 30.0));
    assert!(close(t.get(Measure::RECALL1000).unwrap(), 2.0 / 3.0));
    assert_eq!(t.get(Measure::NumRet), Some(5.0));
    assert_eq!(t.get(Measure::NumRel), Some(3.0));
    assert_eq!(t.get(Measure::NumRelRet), Some(2.0));
    // gdeval: gains 2,0,0,1,0; ideal 2,1,1
    let dcg = 3.0 / 2f64.ln() + 1.0 / 5f64.ln();
    let idcg = 3.0 / 2f64.ln() + 1.0 / 3f64.ln() + 1.0 / 4f64.ln();
    assert!(close(t.get(Measure::Ndcg20).unwrap(), dcg / idcg));
    // ERR: R1 = 3/16 at rank 1, R4 = 1/16 at rank 4
    let err = 3.0 / 16.0 + (1.0 - 3.0 / 16.0) * (1.0 / 16.0) / 4.0;
    assert!(close(t.get(Measure::Err20).unwrap(), err));
    // topic 2: no relevant document: 0 for trec_eval, skipped by gdeval
    let t2 = e.topic("2").unwrap();
    assert_eq!(t2.get(Measure::Map), Some(0.0));
    assert_eq!(t2.get(Measure::Ndcg20), None);
    // means: trec_eval over 2 topics, gdeval over the 1 topic it evaluates
    assert!(close(e.mean(Measure::Map), 0.25));
    assert!(close(e.mean(Measure::Ndcg20), dcg / idcg));
    assert_eq!(e.mean(Measure::NumRel), 3.0);
    assert_eq!(e.num_q(), 2);
}

#[test]
fn complete_flag_divides_by_qrels_topics() {
    let mut e = hand();
    e.options.complete = true;
    // qrels topics 1, 2, 3; topic 3 missing from the run scores 0.
    assert_eq!(e.num_q(), 3);
    assert!(close(e.mean(Measure::Map), 0.5 / 3.0));
    // gdeval measures over qrels topics with a relevant doc: 1 and 3.
    let nd = e.topic("1").unwrap().get(Measure::Ndcg20).unwrap();
    assert!(close(e.mean(Measure::Ndcg20), nd / 2.0));
    assert_eq!(e.mean(Measure::NumRet), 6.0);
}

#[test]
fn text_output_like_trec_eval() {
    let s = hand().to_text(false, 4);
    assert!(s.contains("map                   \tall\t0.2500\n"), "{s}");
    assert!(s.contains("num_rel_ret           \tall\t2\n"), "{s}");
    assert!(s.contains("runid                 \tall\tt\n"), "{s}");
    let s = hand().to_text(true, 4);
    assert!(s.contains("P_5                   \t1\t0.4000\n"), "{s}");
    assert!(!s.contains("ndcg@20               \t2\t"), "{s}");
    let j = hand().to_json();
    assert_eq!(j["mean"]["map"], 0.25);
    assert!(j["topics"][1]["ndcg@20"].is_null());
}

#[test]
fn errors() {
    // a grade above 4 no longer fails the evaluation: see
    // regression_grade_above_4_refuses_only_gdeval
    let r = parse_run(b"1 Q0 a 1 1 t\n", Duplicates::Error).unwrap();
    let q = parse_qrels(b"2 0 a 1\n").unwrap();
    let e = evaluate(&q, &r, "t", EvalOptions::default()).unwrap_err();
    assert!(matches!(e, Error::NoCommonTopics { .. }), "{e}");
    assert!("P@7".parse::<Measure>().is_err());
    for m in Measure::ALL {
        assert_eq!(m.name().parse::<Measure>().unwrap(), m);
    }
    assert_eq!("nDCG@20".parse::<Measure>().unwrap(), Measure::Ndcg20);
    assert_eq!("P@10".parse::<Measure>().unwrap(), Measure::P10);
}

#[test]
fn qid_order_numeric() {
    let mut v = vec!["10", "9", "wt09-1", "051", "100", "1"];
    v.sort_by(|a, b| qid_order(a, b));
    assert_eq!(v, ["1", "9", "10", "051", "100", "wt09-1"]);
}

fn eval_text(qrels: &[u8], run: &[u8], options: EvalOptions) -> Evaluation {
    let q = parse_qrels(qrels).unwrap();
    let r = parse_run(run, Duplicates::Error).unwrap();
    evaluate(&q, &r, "t", options).unwrap()
}

const TIE_QRELS: &[u8] =
    b"1 0 10 1\n1 0 9 0\n1 0 100 1\n1 0 2 1\n2 0 A 1\n2 0 B 0\n2 0 C 2\n3 0 x 1\n";

#[test]
fn regression_f32_scores_tie_as_trec_eval() {
    // 0.10000000149 and 0.1 are the same f32: they tie and "9" > "10"
    // comes first; 1.0000001 and 1.0000002 stay distinct as f32.
    let e = eval_text(
        TIE_QRELS,
        b"1 Q0 10 1 0.10000000149 t\n1 Q0 9 2 0.1 t\n1 Q0 2 3 1.0000001 t\n\
          1 Q0 100 4 1.0000002 t\n2 Q0 A 1 3 t\n3 Q0 x 1 1 t\n",
        EvalOptions::default(),
    );
    let t1 = e.topic("1").unwrap();
    // trec_eval 9.0.8: map 1 0.9167, all 0.8056 (f64 order gave 1.0, 0.8333)
    assert!(close(t1.get(Measure::Map).unwrap(), 11.0 / 12.0));
    assert_eq!(format!("{:.4}", e.mean(Measure::Map)), "0.8056");
    // gdeval compares Perl (f64) numbers: 100, 2, 10, 9: all relevant first
    assert!(close(t1.get(Measure::Ndcg20).unwrap(), 1.0));
}

#[test]
fn regression_complete_counts_num_rel_of_missing_topics() {
    let o = EvalOptions {
        complete: true,
        ..EvalOptions::default()
    };
    let e = eval_text(TIE_QRELS, b"1 Q0 10 1 3 t\n1 Q0 9 2 2 t\n3 Q0 x 1 1 t\n", o);
    // trec_eval -c: num_rel 6 (topic 2's two count), num_q 3, map 0.4444
    assert_eq!(e.mean(Measure::NumRel), 6.0);
    assert_eq!(e.mean(Measure::NumRelRet), 2.0);
    assert_eq!(e.mean(Measure::NumRet), 3.0);
    assert_eq!(e.num_q(), 3);
    assert_eq!(format!("{:.4}", e.mean(Measure::Map)), "0.4444");
    assert!(close(e.mean(Measure::RecipRank), 2.0 / 3.0));
    // without -c: the evaluated topics only
    let e = eval_text(
        TIE_QRELS,
        b"1 Q0 10 1 3 t\n1 Q0 9 2 2 t\n3 Q0 x 1 1 t\n",
        EvalOptions::default(),
    );
    assert_eq!(e.mean(Measure::NumRel), 4.0);
}

#[test]
fn regression_grade_above_4_refuses_only_gdeval() {
    let e = eval_text(
        b"1 0 a 5\n1 0 b 1\n",
        b"1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n",
        EvalOptions::default(),
    );
    let t = e.topic("1").unwrap();
    assert!(close(t.get(Measure::Map).unwrap(), 1.0));
    // trec_eval's gain is the grade: DCG 1 + 5/log2(3), ideal 5 + 1/log2(3)
    let want = (1.0 + 5.0 / 3f64.log2()) / (5.0 + 1.0 / 3f64.log2());
    assert!(close(t.get(Measure::NdcgCut(5)).unwrap(), want));
    assert_eq!(t.get(Measure::Ndcg20), None);
    assert!(matches!(
        e.gdeval_refused,
        Some(GdevalRefusal::GradeAboveMax { rel: 5, .. })
    ));
    let s = e.to_text(true, 4);
    assert!(!s.contains("ndcg@20") && s.contains("map"), "{s}");
    assert!(
        e.to_json()["gdeval_refused"]
            .as_str()
            .unwrap()
            .contains("grade 5")
    );
}

#[test]
fn regression_nan_scores_ordered_as_trec_eval() {
    // trec_eval 9.0.8 (glibc qsort) ranks e b d c a: map 0.3250, recip_rank 0.25
    let e = eval_text(
        b"1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 0\n1 0 e 0\n",
        b"1 Q0 a 1 nan t\n1 Q0 b 2 2 t\n1 Q0 c 3 nan t\n1 Q0 d 4 1 t\n1 Q0 e 5 3 t\n",
        EvalOptions::default(),
    );
    let t = e.topic("1").unwrap();
    assert!(close(t.get(Measure::Map).unwrap(), 0.325));
    assert!(close(t.get(Measure::RecipRank).unwrap(), 0.25));
    assert!(matches!(
        e.gdeval_refused,
        Some(GdevalRefusal::NanScore { .. })
    ));
    // trec_eval sorts the lines by docno before its qsort, so file order does
    // not matter: trec_eval 9.0.8 prints map 0.4333 here (file order would
    // give 0.3857, pytrec_eval gives 0.4000)
    let e = eval_text(
        b"81 0 doc-1 0\n81 0 x2 2\n81 0 doc-3 3\n81 0 d4 -2\n81 0 x5 2\n81 0 d7 -2\n\
          81 0 D8 0\n81 0 D10 3\n81 0 x11 1\n81 0 D12 -1\n",
        b"81 Q0 doc-0 0 0e0 r\n81 Q0 x2 2 0.5 r\n81 Q0 doc-3 3 0.500 r\n81 Q0 d4 4 NaN r\n\
          81 Q0 doc-6 6 1 r\n81 Q0 d7 7 0.500 r\n81 Q0 D8 8 NaN r\n81 Q0 doc-9 9 nan r\n\
          81 Q0 x11 11 1.000 r\n81 Q0 D12 12 0.750 r\n81 Q0 unjudged1 0 0.75 r\n",
        EvalOptions::default(),
    );
    assert_eq!(format!("{:.4}", e.mean(Measure::Map)), "0.4333");
}

#[test]
fn new_measures_hand_computed() {
    let e = hand();
    let t = e.topic("1").unwrap();
    // ranks: 1 b(2), 2 j(-2), 3 x unjudged, 4 a(1), 5 z unjudged; R = 3, N = 1
    assert!(close(t.get(Measure::Bpref).unwrap(), 2.0 / 3.0));
    assert!(close(t.get(Measure::Rprec).unwrap(), 1.0 / 3.0));
    assert!(close(t.get(Measure::RecipRank).unwrap(), 1.0));
    assert_eq!(t.get(Measure::Success(1)), Some(1.0));
    let dcg = 2.0 + 1.0 / 5f64.log2();
    let idcg = 2.0 + 1.0 / 3f64.log2() + 0.5;
    assert!(close(t.get(Measure::NdcgCut(5)).unwrap(), dcg / idcg));
    assert!(close(t.get(Measure::NdcgCut(1)).unwrap(), 1.0));
    let t2 = e.topic("2").unwrap();
    for m in [Measure::Bpref, Measure::RecipRank, Measure::NdcgCut(10)] {
        assert_eq!(t2.get(m), Some(0.0), "{m}");
    }
    // regression: no relevant document prints 0.0000 as trec_eval, not -0.0000
    assert!(
        e.to_text_of(&[Measure::NdcgCut(5)], true, 4)
            .contains("ndcg_cut_5            \t2\t0.0000\n")
    );
    // bpref with non-relevant documents above a relevant one
    let e = eval_text(
        b"1 0 n 0\n1 0 m 0\n1 0 r 1\n1 0 s 1\n1 0 t 1\n",
        b"1 Q0 r 1 4 t\n1 Q0 n 2 3 t\n1 Q0 s 3 2 t\n1 Q0 m 4 1 t\n",
        EvalOptions::default(),
    );
    // r: 1; s: 1 - min(1, 3) / min(2, 3) = 0.5; over R = 3
    assert!(close(e.topics[0].get(Measure::Bpref).unwrap(), 0.5));
}

#[test]
fn max_docs_cuts_trec_eval_measures_only() {
    let mut e = hand();
    let gd = e.topic("1").unwrap().get(Measure::Ndcg20);
    let q =
        parse_qrels(b"1 0 a 1\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 j -2\n2 0 a 0\n3 0 q 1\n").unwrap();
    let r = parse_run(
        b"1 Q0 a 9 3 t\n1 Q0 b 1 5 t\n1 Q0 x 2 3 t\n1 Q0 j 3 4 t\n1 Q0 z 4 1 t\n2 Q0 a 1 1 t\n",
        Duplicates::Error,
    )
    .unwrap();
    let o = EvalOptions {
        max_docs: Some(2),
        ..EvalOptions::default()
    };
    e = evaluate(&q, &r, "t", o).unwrap();
    let t = e.topic("1").unwrap();
    // only b, j are evaluated
    assert_eq!(t.get(Measure::NumRet), Some(2.0));
    assert!(close(t.get(Measure::Map).unwrap(), 1.0 / 3.0));
    assert!(close(t.get(Measure::P5).unwrap(), 0.2));
    assert_eq!(t.get(Measure::Ndcg20), gd);
}

#[test]
fn measure_spec_grammar() {
    use Measure::*;
    let p = |s: &str| MeasureSpec::parse(s).unwrap();
    assert_eq!(p("map"), [Map]);
    assert_eq!(p("P.10,5,10"), [P(5), P(10)]);
    assert_eq!(p("P").len(), 9);
    assert_eq!(p("ndcg_cut.20"), [NdcgCut(20)]);
    assert_eq!(p("success"), [Success(1), Success(5), Success(10)]);
    assert_eq!(p("success.1,5,10"), p("success"));
    assert_eq!(p("recip_rank"), [RecipRank]);
    assert_eq!(p("Rprec"), [Rprec]);
    assert_eq!(p("bpref"), [Bpref]);
    assert_eq!(p("P.7"), [P(7)]);
    assert!(MeasureSpec::parse("P_7").is_err());
    let off = p("official");
    assert!(off.contains(&Bpref) && off.contains(&P(1000)) && !off.contains(&Ndcg20));
    let all = p("all_trec");
    assert!(all.contains(&NdcgCut(1000)) && all.contains(&Success(10)) && all.contains(&Recall(5)));
    assert!(all.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(p("gdeval"), [Ndcg20, Err20]);
    assert_eq!(p("ndcg@20"), [Ndcg20]);
    assert!(p("runid").is_empty());
    for bad in [
        "P.0",
        "P.x",
        "P.",
        "gm_map",
        "iprec_at_recall",
        "map.5",
        "nope",
    ] {
        assert!(MeasureSpec::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(MeasureSpec::parse_all::<&str>(&[]).unwrap(), Measure::ALL);
    assert_eq!(
        MeasureSpec::parse_all(&["P.5", "map", "P.5,10"]).unwrap(),
        [Map, P(5), P(10)]
    );
    for m in [
        Rprec,
        Bpref,
        RecipRank,
        NdcgCut(20),
        Success(5),
        P(15),
        Recall(5),
    ] {
        assert_eq!(m.name().parse::<Measure>().unwrap(), m);
    }
}

#[test]
fn absorbing_parts_equals_evaluating_the_whole_run() {
    // The committed Anserini CACM run, split into topic groups of every
    // size from 1 to 13, evaluated part by part, with and without -c.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/eval");
    let q = crate::qrels::read_qrels(&root.join("qrels.cacm.txt")).unwrap();
    let text = std::fs::read_to_string(root.join("anserini__cacm-bm25.run.txt")).unwrap();
    let whole = parse_run(text.as_bytes(), Duplicates::Error).unwrap();
    let ids: Vec<&str> = whole.topic_ids().collect();
    for complete in [false, true] {
        let o = EvalOptions {
            complete,
            ..EvalOptions::default()
        };
        let want = evaluate(&q, &whole, "r", o).unwrap();
        for size in 1..=13 {
            let mut got: Option<Evaluation> = None;
            for group in ids.chunks(size) {
                let lines: String = text
                    .lines()
                    .filter(|l| group.contains(&l.split_whitespace().next().unwrap()))
                    .map(|l| format!("{l}\n"))
                    .collect();
                let part = parse_run(lines.as_bytes(), Duplicates::Error).unwrap();
                // a group without judged topics has nothing to evaluate
                let Ok(e) = evaluate(&q, &part, "r", o) else {
                    continue;
                };
                match &mut got {
                    None => got = Some(e),
                    Some(g) => g.absorb(e),
                }
            }
            assert_eq!(
                got.as_ref(),
                Some(&want),
                "size {size}, complete {complete}"
            );
        }
    }
}

/// [`hand`]'s input evaluated with `options`.
fn hand_with(options: EvalOptions) -> Evaluation {
    let q =
        parse_qrels(b"1 0 a 1\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 j -2\n2 0 a 0\n3 0 q 1\n").unwrap();
    let r = parse_run(
        b"1 Q0 a 9 3 t\n1 Q0 b 1 5 t\n1 Q0 x 2 3 t\n1 Q0 j 3 4 t\n1 Q0 z 4 1 t\n2 Q0 a 1 1 t\n4 Q0 a 1 1 t\n",
        Duplicates::Error,
    )
    .unwrap();
    evaluate(&q, &r, "t", options).unwrap()
}

#[test]
fn judged_only_drops_unjudged_and_negative_grades() {
    let j = EvalOptions {
        judged_only: true,
        ..EvalOptions::default()
    };
    let e = hand_with(j);
    let t = e.topic("1").unwrap();
    // b j x a z -> b a: j (-2) goes as trec_eval's "in the pool, unjudged"
    assert_eq!(t.get(Measure::NumRet), Some(2.0));
    assert_eq!(t.get(Measure::NumRel), Some(3.0));
    assert!(close(t.get(Measure::Map).unwrap(), (1.0 + 1.0) / 3.0));
    assert!(close(t.get(Measure::P5).unwrap(), 2.0 / 5.0));
    assert_eq!(t.get(Measure::Judged(10)), Some(1.0));
    // gdeval condensed the same way: gains 2, 1 at ranks 1, 2
    let dcg = 3.0 / 2f64.ln() + 1.0 / 3f64.ln();
    let idcg = 3.0 / 2f64.ln() + 1.0 / 3f64.ln() + 1.0 / 4f64.ln();
    assert!(close(t.get(Measure::Ndcg20).unwrap(), dcg / idcg));
    assert!(e.to_json()["judged_only"].as_bool().unwrap());
}

#[test]
fn regression_judged_only_applies_after_max_docs() {
    // -M 3 keeps b j x; -J then keeps b alone (not the first 3 judged: b a)
    let e = hand_with(EvalOptions {
        judged_only: true,
        max_docs: Some(3),
        ..EvalOptions::default()
    });
    let t = e.topic("1").unwrap();
    assert_eq!(t.get(Measure::NumRet), Some(1.0));
    assert!(close(t.get(Measure::Map).unwrap(), 1.0 / 3.0));
}

#[test]
fn evaluating_with_and_without_judged_only_at_once_equals_two_evaluations() {
    let q =
        parse_qrels(b"1 0 a 1\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 j -2\n2 0 a 0\n3 0 q 1\n").unwrap();
    let r = parse_run(
        b"1 Q0 a 9 3 t\n1 Q0 b 1 5 t\n1 Q0 x 2 3 t\n1 Q0 j 3 4 t\n1 Q0 z 4 1 t\n2 Q0 a 1 1 t\n",
        Duplicates::Error,
    )
    .unwrap();
    for complete in [false, true] {
        let o = EvalOptions {
            complete,
            max_docs: Some(4),
            ..EvalOptions::default()
        };
        let (plain, judged) = evaluate_with_judged_only(&q, &r, "t", o).unwrap();
        assert_eq!(plain, evaluate(&q, &r, "t", o).unwrap());
        let j = EvalOptions {
            judged_only: true,
            ..o
        };
        assert_eq!(judged, evaluate(&q, &r, "t", j).unwrap());
        assert_ne!(plain.mean(Measure::Map), judged.mean(Measure::Map));
    }
}

#[test]
fn judged_share_divides_by_the_documents_retrieved_up_to_k() {
    let e = hand();
    let t = e.topic("1").unwrap();
    // b j x a z: 3 of 5 have a qrels line (j's -2 counts as judged)
    assert!(close(t.get(Measure::Judged(10)).unwrap(), 3.0 / 5.0));
    assert!(close(t.get(Measure::Judged(2)).unwrap(), 1.0));
    assert!(close(t.get(Measure::Judged(3)).unwrap(), 2.0 / 3.0));
    assert_eq!(e.topic("2").unwrap().get(Measure::Judged(20)), Some(1.0));
    assert!(close(e.mean(Measure::Judged(10)), (0.6 + 1.0) / 2.0));
    assert_eq!(
        MeasureSpec::parse("judged").unwrap(),
        [Measure::Judged(10), Measure::Judged(20)]
    );
    assert_eq!(
        MeasureSpec::parse("judged.5").unwrap(),
        [Measure::Judged(5)]
    );
    assert_eq!("Judged@10".parse::<Measure>().unwrap(), Measure::Judged(10));
    assert_eq!("judged_20".parse::<Measure>().unwrap(), Measure::Judged(20));
    assert!(
        !MeasureSpec::parse("all_trec")
            .unwrap()
            .contains(&Measure::Judged(10))
    );
}

#[test]
fn inf_ap_hand_computed() {
    // ranks: 1 a rel, 2 u unsampled (-1), 3 x unjudged, 4 n nonrel, 5 b rel
    let q = parse_qrels(b"1 0 a 1\n1 0 u -1\n1 0 n 0\n1 0 b 2\n1 0 c 1\n").unwrap();
    let r = parse_run(
        b"1 Q0 a 1 5 t\n1 Q0 u 2 4 t\n1 Q0 x 3 3 t\n1 Q0 n 4 2 t\n1 Q0 b 5 1 t\n",
        Duplicates::Error,
    )
    .unwrap();
    let e = evaluate(&q, &r, "t", EvalOptions::default()).unwrap();
    let eps = 0.00001;
    // b at j = 4: r = 2, n = 1, u = 1
    let b = 1.0 / 5.0 + (4.0 / 5.0) * ((1.0 + 1.0 + 1.0) / 4.0) * ((1.0 + eps) / (2.0 + 2.0 * eps));
    let want = (1.0 + b) / 3.0;
    let got = e.topic("1").unwrap().get(Measure::InfAP).unwrap();
    assert!(close(got, want), "{got} vs {want}");
    assert!(
        MeasureSpec::parse("all_trec")
            .unwrap()
            .contains(&Measure::InfAP)
    );
    assert_eq!("infAP".parse::<Measure>().unwrap(), Measure::InfAP);
}

#[test]
fn regression_judged_only_empty_ranking_scores_plus_zero() {
    // -J leaves topic 1 nothing: every measure is +0 (an empty float sum
    // in Rust is -0.0, which would print "-0.0000")
    let q = parse_qrels(b"1 0 a 1\n1 0 j -2\n").unwrap();
    let r = parse_run(b"1 Q0 x 1 2 t\n1 Q0 j 2 1 t\n", Duplicates::Error).unwrap();
    let o = EvalOptions {
        judged_only: true,
        ..EvalOptions::default()
    };
    let e = evaluate(&q, &r, "t", o).unwrap();
    let t = e.topic("1").unwrap();
    for m in [
        Measure::Map,
        Measure::NdcgCut(10),
        Measure::Ndcg20,
        Measure::Err20,
        Measure::Judged(10),
        Measure::InfAP,
    ] {
        assert_eq!(t.get(m).map(f64::to_bits), Some(0f64.to_bits()), "{m}");
    }
    assert!(!e.to_text(true, 4).contains("-0.0"));
}
