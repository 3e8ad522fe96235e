//! Unit tests of sweep planning.

use super::*;
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
