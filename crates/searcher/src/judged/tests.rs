//! Judged loss against a brute-force count over the qrels and the kept set.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use super::*;
use crate::bm25::tests::{build, segments_keeping, shard};
use crate::qrels::parse_qrels;

/// The subset of `shards` keeping the docids in `keep`.
fn subset_of(shards: &[Shard], keep: &BTreeSet<String>) -> Subset {
    shards
        .iter()
        .map(|s| segments_keeping(s, &mut |id| keep.contains(id)))
        .collect()
}

/// The brute-force loss: every judgement looked at once.
struct Expected {
    removed: BTreeMap<i64, u64>,
    absent: BTreeMap<i64, u64>,
    top10: u64,
    top_depth: u64,
}

fn brute_force(
    judgements: &[(String, String, i64)],
    indexed: &BTreeSet<String>,
    keep: &BTreeSet<String>,
    ranks: &RelevantRanks,
    depth: usize,
) -> Expected {
    let mut e = Expected {
        removed: BTreeMap::new(),
        absent: BTreeMap::new(),
        top10: 0,
        top_depth: 0,
    };
    for (qid, doc, grade) in judgements {
        if !indexed.contains(doc) {
            *e.absent.entry(*grade).or_default() += 1;
        } else if !keep.contains(doc) {
            *e.removed.entry(*grade).or_default() += 1;
            let rank = ranks.get(qid).and_then(|r| r.get(doc));
            if let (Some(&r), true) = (rank, *grade >= 1) {
                e.top10 += u64::from(r < 10);
                e.top_depth += u64::from(r < depth);
            }
        }
    }
    e
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn judged_loss_equals_a_brute_force_count(
        n_docs in 1usize..40,
        keep_mask in proptest::collection::vec(any::<bool>(), 40),
        judged in proptest::collection::vec((0usize..4, 0usize..50, -2i64..4), 0..120),
        run_order in proptest::collection::vec(0usize..50, 0..60),
        split in 0usize..40,
        depth in 1usize..30,
    ) {
        let docs: Vec<(String, String)> =
            (0..n_docs).map(|i| (format!("d{i}"), format!("word{} body", i % 7))).collect();
        let split = split.min(n_docs);
        let a = build(&docs[..split], 2);
        let b = build(&docs[split..], 1);
        let shards = [shard("a", &a), shard("b", &b)];
        let indexed: BTreeSet<String> = docs.iter().map(|(d, _)| d.clone()).collect();
        let keep: BTreeSet<String> = docs
            .iter()
            .zip(&keep_mask)
            .filter(|(_, k)| **k)
            .map(|(d, _)| d.0.clone())
            .collect();
        // qrels: the first judgement of each (topic, doc) pair (the reader
        // refuses a pair judged twice)
        let mut text = String::new();
        let mut first: BTreeMap<(String, String), i64> = BTreeMap::new();
        for (t, d, g) in &judged {
            let key = (format!("t{t}"), format!("d{d}"));
            if let std::collections::btree_map::Entry::Vacant(slot) = first.entry(key) {
                text.push_str(&format!("t{t} 0 d{d} {g}\n"));
                slot.insert(*g);
            }
        }
        let qrels = parse_qrels(text.as_bytes()).unwrap();
        let judgements: Vec<(String, String, i64)> =
            first.into_iter().map(|((q, d), g)| (q, d, g)).collect();
        let mut ranks = RelevantRanks::new();
        for qid in qrels.topic_ids() {
            let ranked: Vec<String> = run_order.iter().map(|d| format!("d{d}")).collect();
            let mut seen = BTreeSet::new();
            let unique: Vec<&str> =
                ranked.iter().filter(|d| seen.insert(*d)).map(String::as_str).collect();
            ranks.insert(qid.to_string(), relevant_ranks(&qrels, qid, unique.iter().copied()));
        }
        let located = Judgements::locate(&shards, &qrels).unwrap();
        let loss = located.loss(&subset_of(&shards, &keep), &ranks, depth);
        let want = brute_force(&judgements, &indexed, &keep, &ranks, depth);
        prop_assert_eq!(&loss.removed.by_grade, &want.removed);
        prop_assert_eq!(&located.absent.by_grade, &want.absent);
        prop_assert_eq!((loss.top10, loss.top_depth), (want.top10, want.top_depth));
        let per_topic: u64 = loss.per_topic.values().map(|t| t.removed.total()).sum();
        prop_assert_eq!(per_topic, loss.removed.total());
        prop_assert_eq!(
            located.present.total() + located.absent.total(),
            judgements.len() as u64
        );
    }
}

#[test]
fn an_unfiltered_subset_removes_nothing_and_absent_documents_are_counted_apart() {
    let docs: Vec<(String, String)> = ["a", "b"]
        .iter()
        .map(|d| (d.to_string(), "text".to_string()))
        .collect();
    let index = build(&docs, 1);
    let shards = [shard("s", &index)];
    let qrels = parse_qrels(b"1 0 a 2\n1 0 b 0\n1 0 gone 1\n2 0 gone -2\n").unwrap();
    let located = Judgements::locate(&shards, &qrels).unwrap();
    let all: Subset = vec![vec![None]];
    let loss = located.loss(&all, &RelevantRanks::new(), 1000);
    assert_eq!(loss.removed.total(), 0);
    assert_eq!(
        (located.absent.relevant(), located.absent.nonrelevant()),
        (1, 1)
    );
    assert_eq!(loss.relevant_in_index, 1);
    let only_b: Subset = subset_of(&shards, &BTreeSet::from(["b".to_string()]));
    let mut ranks = RelevantRanks::new();
    ranks.insert("1".into(), relevant_ranks(&qrels, "1", ["b", "a"]));
    let loss = located.loss(&only_b, &ranks, 1);
    assert_eq!(loss.removed.by_grade, BTreeMap::from([(2, 1)]));
    assert_eq!(
        (loss.top10, loss.top_depth),
        (1, 0),
        "a is at rank 2, depth 1"
    );
    assert_eq!(loss.relevant_share(), 1.0);
}
