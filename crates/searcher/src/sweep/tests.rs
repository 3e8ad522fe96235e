//! Unit tests of sweep planning.

use super::*;
use crate::runspec::ModelName;
use sieve_filters::utf8::ErrorClass;

fn spec(axes: Vec<Axis>, cross: bool, k1: &[f32], b: &[f32]) -> SweepSpec {
    SweepSpec {
        tag: "sieve".into(),
        axes,
        cross,
        unscored: Unscored::Keep,
        models: Vec::new(),
        mu: vec![1000.0],
        k1: k1.to_vec(),
        b: b.to_vec(),
        stats: StatsMode::Full,
        hits: 1000,
        max_query_terms: 1024,
        feedback: Vec::new(),
        rerank_cutoff: crate::feedback::DEFAULT_RERANK_CUTOFF,
    }
}

fn spam(v: &[f64]) -> Axis {
    Axis::new(Rule::MinSpamPercentile, v.to_vec()).unwrap()
}

fn i456(v: &[f64]) -> Axis {
    Axis::new(Rule::MaxRatePerKb(ErrorClass::Invalid456), v.to_vec()).unwrap()
}

fn tags(p: &Plan) -> Vec<&str> {
    p.settings.iter().map(|s| s.tag.as_str()).collect()
}

#[test]
fn one_rule_gives_the_baseline_then_each_threshold() {
    let p = spec(vec![spam(&[50.0, 70.0])], false, &[0.9], &[0.4])
        .plan()
        .unwrap();
    assert_eq!(tags(&p), ["sieve", "sieve_spam50", "sieve_spam70"]);
    assert!(p.settings[0].is_baseline());
    assert!(p.settings.iter().all(|s| s.baseline == 0));
    assert_eq!(p.selections.len(), 2);
    assert_eq!(p.selections[1].thresholds.min_spam_percentile, Some(70));
    assert_eq!(p.settings[2].describe(), "spam >= 70");
    assert_eq!(p.settings[0].describe(), "unfiltered");
}

#[test]
fn several_rules_alone_or_crossed() {
    let p = spec(
        vec![spam(&[50.0, 70.0]), i456(&[0.5])],
        false,
        &[0.9],
        &[0.4],
    )
    .plan()
    .unwrap();
    assert_eq!(
        tags(&p),
        ["sieve", "sieve_spam50", "sieve_spam70", "sieve_i456le0.5"]
    );
    let p = spec(
        vec![spam(&[50.0, 70.0]), i456(&[0.5, 1.0])],
        true,
        &[0.9],
        &[0.4],
    )
    .plan()
    .unwrap();
    assert_eq!(
        tags(&p),
        [
            "sieve",
            "sieve_spam50_i456le0.5",
            "sieve_spam50_i456le1",
            "sieve_spam70_i456le0.5",
            "sieve_spam70_i456le1"
        ]
    );
    let t = &p.selections[3].thresholds;
    assert_eq!(t.min_spam_percentile, Some(70));
    assert_eq!(t.max_rate_per_kb["invalid_4_5_6"], 1.0);
    assert_eq!(
        p.settings[3].describe(),
        "spam >= 70 and invalid_4_5_6 <= 0.5/KB"
    );
}

#[test]
fn bm25_lists_cross_every_filter_each_with_its_baseline() {
    let p = spec(vec![spam(&[70.0])], false, &[0.9, 1.2], &[0.4])
        .plan()
        .unwrap();
    assert_eq!(
        tags(&p),
        [
            "sieve_k1-0.9_b-0.4",
            "sieve_k1-0.9_b-0.4_spam70",
            "sieve_k1-1.2_b-0.4",
            "sieve_k1-1.2_b-0.4_spam70"
        ]
    );
    let base: Vec<usize> = p.settings.iter().map(|s| s.baseline).collect();
    assert_eq!(base, [0, 0, 2, 2]);
    assert!(p.several_params);
    // the filter's selection is shared by both BM25 settings
    assert_eq!(p.settings[1].selection, p.settings[3].selection);
}

#[test]
fn nonsense_is_refused() {
    assert!(spec(vec![], false, &[0.9], &[0.4]).plan().is_err());
    assert!(
        spec(vec![spam(&[50.0]), spam(&[60.0])], false, &[0.9], &[0.4])
            .plan()
            .is_err()
    );
    assert!(
        spec(vec![spam(&[50.0])], false, &[], &[0.4])
            .plan()
            .is_err()
    );
    assert!(
        spec(vec![spam(&[50.0])], false, &[-1.0], &[0.4])
            .plan()
            .is_err()
    );
    let many: Vec<f64> = (0..=100).map(f64::from).collect();
    let e = spec(vec![spam(&many)], false, &[0.9, 1.0, 1.1, 1.2, 1.3], &[0.4])
        .plan()
        .unwrap_err();
    assert!(e.to_string().contains("510 settings"), "{e}");
}

#[test]
fn near_duplicates_crossed_last_is_tagged_as_run_tags_it() {
    let nd = Axis::new(Rule::NearDuplicates, vec![rules::KEEP, rules::DROP]).unwrap();
    let p = spec(vec![spam(&[70.0]), nd.clone()], true, &[0.9], &[0.4])
        .plan()
        .unwrap();
    assert_eq!(
        tags(&p),
        ["sieve", "sieve_spam70_keepdup", "sieve_spam70_nodup"]
    );
    assert!(!p.selections[0].thresholds.drop_near_duplicates);
    assert!(p.selections[1].thresholds.drop_near_duplicates);
    assert_eq!(p.selections[1].thresholds.min_spam_percentile, Some(70));
    // the selection `run --min-spam-percentile 70 --drop-near-duplicates` makes
    let run = crate::runspec::drop_near_duplicates(Some(crate::runspec::spam_selection(
        70,
        Unscored::Keep,
    )));
    assert_eq!(p.selections[1].name, run.name);
    assert_eq!(p.selections[1].thresholds, run.thresholds);
    assert_eq!(
        p.settings[2].describe(),
        "spam >= 70 and near-duplicates dropped"
    );
    let p = spec(vec![nd], false, &[0.9], &[0.4]).plan().unwrap();
    assert_eq!(tags(&p), ["sieve", "sieve_keepdup", "sieve_nodup"]);
}

fn rm3() -> Feedback {
    Feedback::Rm3(crate::feedback::Rm3Params::ANSERINI)
}

fn rocchio() -> Feedback {
    Feedback::Rocchio(crate::feedback::RocchioParams::ANSERINI)
}

#[test]
fn without_feedback_there_is_no_feedback_plan() {
    let p = spec(vec![spam(&[70.0])], false, &[0.9], &[0.4])
        .plan()
        .unwrap();
    assert!(p.feedback.is_none());
    assert!(p.settings.iter().all(|s| s.feedback.is_none()));
}

#[test]
fn feedback_settings_each_have_a_baseline_and_are_tagged_as_run_tags_them() {
    let mut s = spec(vec![spam(&[50.0, 70.0])], false, &[0.9], &[0.4]);
    s.feedback = vec![rm3()];
    let p = s.plan().unwrap();
    // `run --feedback rm3 [--min-spam-percentile P]` tags: the feedback
    // label after the filter.
    assert_eq!(
        tags(&p),
        [
            "sieve_rm3_t10_d10_w0.5",
            "sieve_spam50_rm3_t10_d10_w0.5",
            "sieve_spam70_rm3_t10_d10_w0.5"
        ]
    );
    assert!(p.settings.iter().all(|s| s.feedback == Some(rm3())));
    assert!(p.settings.iter().all(|s| s.baseline == 0));
    let f = p.feedback.as_ref().unwrap();
    let first: Vec<&str> = f.first_stage.iter().map(|v| v.tag.as_str()).collect();
    assert_eq!(first, ["sieve", "sieve_spam50", "sieve_spam70"]);
    assert_eq!(f.source, [0, 1, 2]);

    // Two models, two feedback settings: 2 x 2 baselines, each with every
    // filter; one first stage per model setting and filter.
    let mut s = spec(vec![spam(&[70.0])], false, &[0.9], &[0.4]);
    s.models = vec![ModelName::Bm25, ModelName::Qld];
    s.feedback = vec![rm3(), rocchio()];
    let p = s.plan().unwrap();
    let (r, c) = ("rm3_t10_d10_w0.5", "rocchio_t10_d10_a1_b0.75");
    let want: Vec<String> = [
        format!("sieve_k1-0.9_b-0.4_{r}"),
        format!("sieve_k1-0.9_b-0.4_spam70_{r}"),
        format!("sieve_k1-0.9_b-0.4_{c}"),
        format!("sieve_k1-0.9_b-0.4_spam70_{c}"),
        format!("sieve_qld_mu-1000_{r}"),
        format!("sieve_qld_mu-1000_spam70_{r}"),
        format!("sieve_qld_mu-1000_{c}"),
        format!("sieve_qld_mu-1000_spam70_{c}"),
    ]
    .to_vec();
    assert_eq!(tags(&p), want);
    let base: Vec<usize> = p.settings.iter().map(|s| s.baseline).collect();
    assert_eq!(base, [0, 0, 2, 2, 4, 4, 6, 6]);
    let f = p.feedback.as_ref().unwrap();
    assert_eq!(f.first_stage.len(), 4, "2 models x (baseline + 1 filter)");
    // Each setting's run in the feedback batch is its own model, filter
    // and feedback setting.
    for (s, &src) in p.settings.iter().zip(&f.source) {
        let v = &f.first_stage[src / f.settings.len()];
        assert_eq!(
            (v.params, v.qld, v.selection),
            (s.params, s.qld, s.selection),
            "{}",
            s.tag
        );
        assert_eq!(
            Some(f.settings[src % f.settings.len()]),
            s.feedback,
            "{}",
            s.tag
        );
    }
    let mut sorted = f.source.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..8).collect::<Vec<_>>(), "a permutation");
}

#[test]
fn feedback_counts_in_the_settings_limit_and_bad_feedback_is_refused() {
    let many: Vec<f64> = (0..=100).map(f64::from).collect();
    let mut s = spec(vec![spam(&many)], false, &[0.9], &[0.4]);
    s.feedback = vec![
        rm3(),
        rocchio(),
        Feedback::Bm25Prf(crate::feedback::Bm25PrfParams::ANSERINI),
    ];
    s.feedback.extend([rm3(), rm3()]);
    let e = s.plan().unwrap_err();
    assert!(e.to_string().contains("510 settings"), "{e}");
    let mut s = spec(vec![spam(&[50.0])], false, &[0.9], &[0.4]);
    s.feedback = vec![Feedback::Rm3(crate::feedback::Rm3Params {
        fb_docs: 0,
        ..crate::feedback::Rm3Params::ANSERINI
    })];
    assert!(s.plan().is_err());
    s.feedback = vec![rm3()];
    s.rerank_cutoff = 0;
    assert!(s.plan().is_err());
}

#[test]
fn feedback_sources_follow_the_batch_order() {
    // settings: model, feedback, filter; batch: model, filter, feedback
    assert_eq!(feedback_sources(1, 1, 3), [0, 1, 2]);
    assert_eq!(feedback_sources(1, 2, 2), [0, 2, 1, 3]);
    assert_eq!(feedback_sources(2, 2, 2), [0, 2, 1, 3, 4, 6, 5, 7]);
}

/// A made-up outcome of `plan`: every setting retrieved nothing.
fn outcome(plan: Plan) -> Outcome {
    let qrels = crate::qrels::parse_qrels(b"1 0 d1 1\n").unwrap();
    let opts = crate::eval::EvalOptions {
        complete: true,
        ..crate::eval::EvalOptions::default()
    };
    let n = plan.settings.len();
    Outcome {
        evals: plan
            .settings
            .iter()
            .map(|s| crate::eval::nothing_retrieved(&qrels, &s.tag, opts))
            .collect(),
        settings: plan.settings,
        rules: plan.rules,
        several_params: plan.several_params,
        kept: vec![1; n],
        total_docs: 2,
        judged_evals: None,
        top_docs: vec![BTreeMap::new(); n],
        run_files: Vec::new(),
        judgements: Default::default(),
        losses: vec![None; n],
        depth: 1000,
        select_seconds: 0.0,
        search_seconds: 0.0,
    }
}

#[test]
fn the_table_has_a_feedback_column_after_the_model_columns() {
    let measures = [Measure::Map];
    let plain = outcome(
        spec(vec![spam(&[70.0])], false, &[0.9], &[0.4])
            .plan()
            .unwrap(),
    );
    let tsv = table::to_tsv(&plain, &Table::new(&plain, &measures));
    let mut lines = tsv.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("setting\tbaseline\tmodel\tk1\tb\tmu\tfeedback\tspam\tkept\t")
    );
    assert!(lines.all(|l| l.split('\t').nth(6) == Some("none")));
    assert!(!plain.has_feedback());
    assert_eq!(plain.baselines(), 1);
    let text = table::to_text(&plain, &Table::new(&plain, &measures), 0, Test::T);
    assert!(!text.contains("feedback"), "{text}");

    let mut s = spec(vec![spam(&[70.0])], false, &[0.9], &[0.4]);
    s.models = vec![ModelName::Qld];
    s.feedback = vec![rm3(), rocchio()];
    let fb = outcome(s.plan().unwrap());
    assert!(fb.has_feedback());
    assert_eq!(fb.baselines(), 2);
    let tsv = table::to_tsv(&fb, &Table::new(&fb, &measures));
    let cells: Vec<Vec<&str>> = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    let got: Vec<[&str; 4]> = cells.iter().map(|c| [c[0], c[2], c[5], c[6]]).collect();
    let (r, c) = ("rm3_t10_d10_w0.5", "rocchio_t10_d10_a1_b0.75");
    assert_eq!(
        got,
        [
            ["sieve_qld_mu-1000_rm3_t10_d10_w0.5", "qld", "1000", r],
            [
                "sieve_qld_mu-1000_spam70_rm3_t10_d10_w0.5",
                "qld",
                "1000",
                r
            ],
            [
                "sieve_qld_mu-1000_rocchio_t10_d10_a1_b0.75",
                "qld",
                "1000",
                c
            ],
            [
                "sieve_qld_mu-1000_spam70_rocchio_t10_d10_a1_b0.75",
                "qld",
                "1000",
                c
            ],
        ]
    );
    let text = table::to_text(&fb, &Table::new(&fb, &measures), 0, Test::T);
    assert!(
        text.contains("same model setting and feedback setting"),
        "{text}"
    );
}
