//! Tests of fusion: hand-computed fusions, the refusals, and properties
//! every fused run has.

use std::path::Path;

use proptest::prelude::*;

use super::*;

fn run(text: &str) -> FusionRun {
    parse_fusion_run(text.as_bytes(), Path::new("r"), 1000).unwrap()
}

fn params(method: Method) -> FuseParams {
    FuseParams {
        method,
        ..FuseParams::default()
    }
}

fn written(runs: &[FusionRun], p: &FuseParams) -> String {
    let fused = fuse(runs, p).unwrap();
    String::from_utf8(write_fused(Vec::new(), "t", &fused).unwrap()).unwrap()
}

#[test]
fn rrf_scores_the_rank_column() {
    // b's rank column says 5 although it is the second line
    let a = run("1 Q0 a 1 9 x\n1 Q0 b 5 8 x\n");
    let b = run("1 Q0 b 1 3 x\n");
    let out = written(&[a, b], &params(Method::Rrf));
    // b: 1/65 + 1/61 = 0.031778; a: 1/61 = 0.016393
    assert_eq!(out, "1 Q0 b 1 0.031778 t\n1 Q0 a 2 0.016393 t\n");
}

#[test]
fn interpolation_weights_the_first_run_by_alpha() {
    let a = run("1 Q0 a 1 10 x\n1 Q0 b 2 2 x\n");
    let b = run("1 Q0 b 1 20 x\n1 Q0 c 2 1 x\n");
    let p = FuseParams {
        alpha: 0.25,
        ..params(Method::Interpolation)
    };
    // b: 0.5 + 15 = 15.5; a: 2.5; c: 0.75
    let out = written(&[a, b], &p);
    assert_eq!(
        out,
        "1 Q0 b 1 15.500000 t\n1 Q0 a 2 2.500000 t\n1 Q0 c 3 0.750000 t\n"
    );
}

#[test]
fn min_max_then_average_over_three_runs() {
    let a = run("1 Q0 a 1 4 x\n1 Q0 b 2 2 x\n");
    let b = run("1 Q0 a 1 7 x\n1 Q0 b 2 7 x\n");
    let c = run("2 Q0 z 1 1 x\n");
    let p = FuseParams {
        min_max: true,
        ..params(Method::Average)
    };
    // topic 1: a: (1 + 1)/3, b: (0 + 1)/3; topic 2: z: 1/3
    let out = written(&[a, b, c], &p);
    assert_eq!(
        out,
        "1 Q0 a 1 0.666667 t\n1 Q0 b 2 0.333333 t\n2 Q0 z 1 0.333333 t\n"
    );
    let (all, lacking) =
        missing_topics(&[run("1 Q0 a 1 1 x\n"), run("2 Q0 a 1 1 x\n3 Q0 a 1 1 x\n")]);
    assert_eq!((all, lacking), (3, vec![2, 1]));
}

#[test]
fn topics_in_utf16_order_and_hits_cut() {
    // U+1F600 sorts after U+FF21 by code point, before it by UTF-16 unit
    // (its first unit is the surrogate 0xD83D)
    let a = run("\u{1F600} Q0 a 1 1 x\n\u{FF21} Q0 a 1 1 x\n1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n");
    let b = run("1 Q0 c 1 1 x\n");
    let p = FuseParams {
        hits: 1,
        ..params(Method::Weighted)
    };
    let p = FuseParams {
        weights: vec![1.0, 1.0],
        ..p
    };
    let fused = fuse(&[a, b], &p).unwrap();
    let topics: Vec<&str> = fused.topics.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(topics, ["1", "\u{1F600}", "\u{FF21}"]);
    assert!(fused.topics.iter().all(|t| t.1.len() == 1));
}

#[test]
fn refusals() {
    let a = || run("1 Q0 a 1 3e38 x\n");
    let err = |runs: &[FusionRun], p: FuseParams| fuse(runs, &p).unwrap_err().to_string();
    assert!(err(&[a()], params(Method::Rrf)).contains("at least 2 runs"));
    let e = err(&[a(), a(), a()], params(Method::Interpolation));
    assert!(e.contains("exactly 2 runs"), "{e}");
    let e = err(
        &[a(), a()],
        FuseParams {
            weights: vec![1.0],
            ..params(Method::Weighted)
        },
    );
    assert!(e.contains("1 weights for 2 runs"), "{e}");
    let e = err(
        &[a(), a()],
        FuseParams {
            weights: vec![1.0, f64::NAN],
            ..params(Method::Weighted)
        },
    );
    assert!(e.contains("finite"), "{e}");
    let e = err(
        &[a(), a()],
        FuseParams {
            alpha: f64::INFINITY,
            ..params(Method::Interpolation)
        },
    );
    assert!(e.contains("alpha"), "{e}");
    // 3e38 × 2 overflows f32; so does the sum 3e38 + 3e38
    let e = err(
        &[a(), a()],
        FuseParams {
            weights: vec![2.0, 1.0],
            ..params(Method::Weighted)
        },
    );
    assert!(e.contains("weighted of run 1") && e.contains("inf"), "{e}");
    let e = err(
        &[a(), a()],
        FuseParams {
            weights: vec![1.0, 1.0],
            ..params(Method::Weighted)
        },
    );
    assert!(e.contains("sum"), "{e}");
    let neg = run("1 Q0 a -60 1 x\n");
    let e = err(&[neg, a()], params(Method::Rrf));
    assert!(e.contains("rrf of run 1"), "{e}");
}

/// A run of topics "q0".."q2", each a ranked list of distinct docids drawn
/// from a small pool (so runs overlap and fused scores tie), ranks 1..n in
/// file order and scores descending.
fn run_strategy() -> impl Strategy<Value = String> {
    let topic = proptest::sample::subsequence((0..30).collect::<Vec<u32>>(), 1..20).prop_shuffle();
    proptest::collection::vec(topic, 1..4).prop_map(|topics| {
        let mut s = String::new();
        for (t, docs) in topics.iter().enumerate() {
            for (i, d) in docs.iter().enumerate() {
                let score = 100.0 - 3.5 * i as f32;
                s.push_str(&format!("q{t} Q0 d{d} {} {score} x\n", i + 1));
            }
        }
        s
    })
}

proptest! {
    #[test]
    fn rrf_of_a_run_with_itself_is_its_rank_order(text in run_strategy(), hits in 1usize..25) {
        let r = run(&text);
        let p = FuseParams { hits, ..params(Method::Rrf) };
        let fused = fuse(&[r.clone(), r.clone()], &p).unwrap();
        for (qid, docs) in &fused.topics {
            let want: Vec<&str> = r.topics[qid].iter().take(hits).map(|h| h.docid.as_str()).collect();
            let got: Vec<&str> = docs.iter().map(|d| d.0.as_str()).collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn fused_runs_are_sorted_and_cut(
        texts in proptest::collection::vec(run_strategy(), 2..5),
        hits in 1usize..25,
        method in proptest::sample::select(vec![Method::Rrf, Method::Average, Method::Weighted]),
        min_max in any::<bool>(),
    ) {
        let runs: Vec<FusionRun> = texts.iter().map(|t| run(t)).collect();
        let p = FuseParams { method, hits, min_max, weights: vec![0.7; runs.len()], ..FuseParams::default() };
        let fused = fuse(&runs, &p).unwrap();
        prop_assert!(fused.topics.windows(2).all(|w| java_string_cmp(&w[0].0, &w[1].0) == Ordering::Less));
        for (qid, docs) in &fused.topics {
            prop_assert!(docs.len() <= hits);
            prop_assert!(docs.windows(2).all(|w| w[0].1 >= w[1].1));
            let union: std::collections::BTreeSet<&str> = runs.iter()
                .filter_map(|r| r.topics.get(qid))
                .flat_map(|h| h.iter().map(|h| h.docid.as_str()))
                .collect();
            prop_assert_eq!(docs.len(), union.len().min(hits));
            let distinct: std::collections::BTreeSet<&str> = docs.iter().map(|d| d.0.as_str()).collect();
            prop_assert_eq!(distinct.len(), docs.len());
            prop_assert!(distinct.is_subset(&union));
        }
        // the written run reads back as a run with these topics and lines
        let out = write_fused(Vec::new(), "t", &fused).unwrap();
        let back = crate::run::parse_run(&out, crate::run::Duplicates::Error).unwrap();
        prop_assert_eq!(back.num_topics(), fused.topics.len());
    }
}
