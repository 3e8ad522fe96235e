//! The external-sort clustering against the in-memory reference
//! ([`sieve_filters::minhash::cluster`]), with tiny sorted runs so that
//! every merge path and long chains (many rounds) are exercised.

use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Clusters `docs` with [`Clusterer`] (runs of `run_lines` lines) and
/// returns each document's representative docid, and the summary.
fn external(docs: &[(String, Vec<u64>)], run_lines: usize) -> (Vec<String>, ClusterSummary) {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = Clusterer::new(tmp.path(), run_lines).unwrap();
    for (i, (id, keys)) in docs.iter().enumerate() {
        c.add(doc_ref(7, i as u32), id, keys).unwrap();
    }
    let mut reps: BTreeMap<u64, (String, bool)> = BTreeMap::new();
    let mut last = None;
    let summary = c
        .finish(
            |r| Ok(docs[(r & 0xFFFF_FFFF) as usize].0.clone()),
            |r, own, rep| {
                assert!(last < Some(r), "documents come in order");
                last = Some(r);
                assert_eq!(own, docs[(r & 0xFFFF_FFFF) as usize].0);
                let is_rep = own == rep;
                reps.insert(r, (rep.to_string(), is_rep));
                Ok(())
            },
        )
        .unwrap();
    // The temporary directory is gone with the clusterer.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    let out = docs
        .iter()
        .enumerate()
        .map(|(i, (id, _))| {
            reps.get(&doc_ref(7, i as u32))
                .map_or(id.clone(), |(rep, _)| rep.clone())
        })
        .collect();
    (out, summary)
}

fn reference(docs: &[(String, Vec<u64>)]) -> Vec<String> {
    let input: Vec<(String, Option<Vec<u64>>)> = docs
        .iter()
        .map(|(id, k)| (id.clone(), (!k.is_empty()).then(|| k.clone())))
        .collect();
    sieve_filters::minhash::cluster(&input)
        .into_iter()
        .map(|r| docs[r].0.clone())
        .collect()
}

#[test]
fn a_long_chain_takes_several_rounds_and_ends_at_the_smallest_docid() {
    // doc i shares key i with doc i+1: one cluster of 40 linked in a line,
    // the smallest docid at the far end.
    let docs: Vec<(String, Vec<u64>)> = (0..40u64)
        .map(|i| (format!("d{:03}", 100 - i), vec![i, i + 1, 1000 + i * 7]))
        .collect();
    let (got, s) = external(&docs, 3);
    assert!(got.iter().all(|r| r == "d061"), "{got:?}");
    assert_eq!((s.clustered, s.clusters, s.duplicates), (40, 1, 39));
    assert!(s.rounds > 2, "{s:?}");
    assert_eq!(got, reference(&docs));
}

#[test]
fn copies_singletons_and_unclusterable_docids() {
    let mut docs = Vec::new();
    for r in 0..5 {
        docs.push((format!("page-a-r{r}"), vec![1, 2, 3]));
        docs.push((format!("page-b-r{r}"), vec![4, 5, 6]));
        docs.push((format!("alone-{r}"), vec![100 + r]));
    }
    docs.push(("no-text".into(), vec![]));
    docs.push(("tab\there".into(), vec![1, 2, 3]));
    let (got, s) = external(&docs, 4);
    assert_eq!(got[0], "page-a-r0");
    assert_eq!(got[12], "page-a-r0");
    assert_eq!(got[13], "page-b-r0");
    assert_eq!(got[1], "page-b-r0");
    assert_eq!(got[2], "alone-0");
    assert_eq!(got[15], "no-text");
    assert_eq!(got[16], "tab\there");
    assert_eq!(
        (
            s.documents,
            s.clustered,
            s.clusters,
            s.duplicates,
            s.unclusterable,
            s.rounds
        ),
        (16, 10, 2, 8, 1, 2)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random documents over a small key space (so clusters merge and
    /// chain): the same representatives as the in-memory union-find.
    #[test]
    fn agrees_with_the_in_memory_reference(
        docs in proptest::collection::vec(
            ("[a-e]{1,3}", proptest::collection::vec(0u64..60, 0..4)),
            0..80,
        ),
        run_lines in 1usize..20,
    ) {
        let (got, _) = external(&docs, run_lines);
        prop_assert_eq!(got, reference(&docs));
    }
}
