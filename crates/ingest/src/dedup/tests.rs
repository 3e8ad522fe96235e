//! The external-sort clustering against the in-memory reference
//! ([`sieve_filters::minhash::cluster`]), with tiny sorted runs so that
//! every merge path and long chains (many rounds) are exercised.

use std::collections::BTreeMap;

use proptest::prelude::*;
use sieve_format::document::IndexDoc;
use sieve_format::dups::{Role, read_segment_dups};
use sieve_format::testing;
use tantivy::{Index, SegmentReader};

use super::*;

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
            Ok,
            |_, r| Ok(docs[(r & 0xFFFF_FFFF) as usize].0.clone()),
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

/// Indexes `docs` (docid, band keys) in `segments` commits in a new index
/// in `dir`, clusters it with runs of `run_lines` records and returns each
/// document's line of its segment's cluster column, in index order.
fn index_columns(
    dir: &Path,
    docs: &[(String, Vec<u64>)],
    segments: usize,
    run_lines: usize,
) -> (Vec<String>, ClusterSummary) {
    let index = made_up_index(dir, docs, segments);
    let summary = write_index_dups(dir, &index, run_lines).unwrap();
    (index_lines(dir, &index), summary)
}

/// Each document's line of its segment's cluster column, in index order.
fn index_lines(dir: &Path, index: &Index) -> Vec<String> {
    let searcher = index.reader().unwrap().searcher();
    let mut segs: Vec<&SegmentReader> = searcher.segment_readers().iter().collect();
    // Index order: segments by their first document's offset.
    let first = |seg: &SegmentReader| {
        use tantivy::schema::Value;
        let store = seg.get_store_reader(1).unwrap();
        let doc: tantivy::TantivyDocument = store.get(0).unwrap();
        let f = index
            .schema()
            .get_field(sieve_format::schema::OFFSET)
            .unwrap();
        doc.get_first(f).and_then(|v| v.as_u64()).unwrap()
    };
    segs.sort_by_key(|s| first(s));
    let mut lines = Vec::new();
    for seg in segs {
        read_segment_dups(dir, seg, |_, role| {
            lines.push(match role {
                Role::Alone => String::new(),
                Role::Representative => "=".into(),
                Role::DuplicateOf(rep) => rep.to_string(),
            })
        })
        .unwrap();
    }
    lines
}

/// A new index in `dir` of `docs` (docid, band keys; made up), committed
/// in `segments` segments.
fn made_up_index(dir: &Path, docs: &[(String, Vec<u64>)], segments: usize) -> Index {
    let docs = docs.iter().enumerate().map(|(i, (docid, keys))| IndexDoc {
        offset: i as u64,
        minhash: keys.clone(),
        ..testing::doc(docid, "made up")
    });
    testing::index_in_dir(dir, docs, segments)
}

/// The final passes of a build (block-max bounds on a one-thread pool,
/// then near-duplicates), and the early reading of near-duplicate keys,
/// keep at most two of the index's segments mapped
/// at any time, however many it has: a thread samples `/proc/self/maps`
/// while they run and counts the segments (by id) whose files are mapped.
/// (Before, one searcher mapped every segment for the whole pass.)
#[test]
fn final_passes_map_at_most_two_segments_at_a_time() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    if std::fs::read_to_string("/proc/self/maps").is_err() {
        println!("SKIPPED: no /proc/self/maps");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // 6,000 documents in 8 segments, each sharing its key with the
    // documents 750 apart (so clusters span segments).
    let docs: Vec<(String, Vec<u64>)> = (0..6000u64)
        .map(|i| (format!("doc-{i:05}"), vec![i % 750, 10_000 + i % 7]))
        .collect();
    let index = made_up_index(dir, &docs, 8);
    let ids: Vec<String> = index
        .searchable_segments()
        .unwrap()
        .iter()
        .map(|s| s.id().uuid_string())
        .collect();
    assert_eq!(ids.len(), 8);
    let metas = index.searchable_segment_metas().unwrap();
    let (stop, most, samples) = (
        AtomicBool::new(false),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
                let mapped = ids.iter().filter(|id| maps.contains(id.as_str())).count();
                most.fetch_max(mapped, Ordering::Relaxed);
                if mapped > 0 {
                    samples.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        // At least 3 rounds, and until the sampler has seen a segment
        // mapped (the passes are quick: on a busy machine the sampler may
        // not be scheduled during one).
        for round in 0..200 {
            if round >= 3 && samples.load(Ordering::Relaxed) > 0 {
                break;
            }
            std::fs::remove_dir_all(dir.join(sieve_format::bounds::BOUNDS_DIR)).ok();
            pool.install(|| sieve_format::bounds::write_index_bounds(dir, &index))
                .unwrap();
            write_index_dups(dir, &index, 500).unwrap();
            // The keys a build reads early, one segment at a time too.
            drop(EarlyKeys::read(dir, &index, &metas, 500).unwrap());
        }
        stop.store(true, Ordering::Relaxed);
    });
    let (most, samples) = (most.into_inner(), samples.into_inner());
    assert!(samples > 0, "the sampler never saw a segment mapped");
    assert!(most <= 2, "{most} of 8 segments mapped at once");
}

/// Keys read early of the index's first segments ([`EarlyKeys`], as a
/// build reads them while its last file is indexed) give the same columns
/// and summary as a pass that reads every segment, for any such prefix;
/// keys read of segments that are not the index's first, or with other
/// runs, are dropped and every segment is read again. (An early clusterer
/// holding no keys but claiming the first segments shows that a matching
/// one is used.)
#[test]
fn early_keys_give_the_same_clusters() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // 3,000 documents in 6 segments; keys shared 400 documents apart, so
    // clusters span segments; every 97th docid holds a tab.
    let docs: Vec<(String, Vec<u64>)> = (0..3000u64)
        .map(|i| {
            let tab = if i % 97 == 0 { "\t" } else { "" };
            (
                format!("doc-{:05}{tab}", 2999 - i),
                vec![i % 400, 10_000 + i],
            )
        })
        .collect();
    let index = made_up_index(dir, &docs, 6);
    let metas = index.searchable_segment_metas().unwrap();
    assert_eq!(metas.len(), 6);
    // Runs of 500 records: label propagation; of 2,000: union-find.
    for lines in [500, 2000] {
        let want = write_index_dups(dir, &index, lines).unwrap();
        let want_lines = index_lines(dir, &index);
        assert!(want.clusters > 100 && want.unclusterable > 0, "{want:?}");
        let run = |early: EarlyKeys| {
            let got = write_index_dups_from(dir, &index, lines, Some(early)).unwrap();
            (got, index_lines(dir, &index))
        };
        for k in 0..=6 {
            let early = EarlyKeys::read(dir, &index, &metas[..k], lines).unwrap();
            let got = run(early);
            assert_eq!(
                got,
                (want.clone(), want_lines.clone()),
                "first {k} segments"
            );
        }
        // (One clusterer at a time: a new one removes the temporary
        // directories of others, as a build's final pass relies on.)
        for (what, from, runs) in [("segments 2 and 3", 1, lines), ("other runs", 0, lines - 1)] {
            let early = EarlyKeys::read(dir, &index, &metas[from..3], runs).unwrap();
            let got = run(early);
            assert_eq!(got, (want.clone(), want_lines.clone()), "{what}");
        }
        let empty = EarlyKeys {
            clusterer: Clusterer::new(dir, lines).unwrap(),
            segments: metas[..3].iter().map(|m| m.id()).collect(),
            run_lines: lines,
        };
        assert_ne!(run(empty).0, want, "the early keys are used");
    }
}

/// The lines the cluster column should hold, from the in-memory reference
/// (documents whose docid holds a control character are never clustered).
fn reference_lines(docs: &[(String, Vec<u64>)]) -> Vec<String> {
    let input: Vec<(String, Option<Vec<u64>>)> = docs
        .iter()
        .map(|(id, k)| {
            let ok = !k.is_empty() && !id.bytes().any(|b| b < 0x20);
            (id.clone(), ok.then(|| k.clone()))
        })
        .collect();
    let reps = sieve_filters::minhash::cluster(&input);
    let mut size = vec![0usize; docs.len()];
    for &r in &reps {
        size[r] += 1;
    }
    (0..docs.len())
        .map(|i| {
            let rep = &docs[reps[i]].0;
            if size[reps[i]] < 2 {
                String::new()
            } else if *rep == docs[i].0 {
                "=".into()
            } else {
                rep.clone()
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The cluster columns of an index of several segments, with tiny
    /// runs (several spilled and one in memory per sort), repeated
    /// docids, docids with a tab and documents without keys: the lines
    /// the in-memory reference gives.
    #[test]
    fn index_columns_agree_with_the_in_memory_reference(
        docs in proptest::collection::vec(
            // A document's keys are distinct, as band keys are.
            (
                "[a-e]{0,3}(\t)?",
                proptest::collection::btree_set(0u64..40, 0..4)
                    .prop_map(|k| k.into_iter().collect::<Vec<u64>>()),
            ),
            1..60,
        ),
        segments in 1usize..5,
        run_lines in 1usize..30,
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let (got, s) = index_columns(tmp.path(), &docs, segments, run_lines);
        prop_assert_eq!(&got, &reference_lines(&docs));
        let tabbed = docs.iter().filter(|(id, k)| !k.is_empty() && id.contains('\t')).count();
        prop_assert_eq!(s.unclusterable, tabbed as u64);
        // Nothing of the sorts is left behind.
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".sieve-dedup-"))
            .collect();
        prop_assert!(left.is_empty());
    }
}

/// Everything [`Clusterer::finish`] says about `docs` (runs of
/// `run_lines` records): the documents asked for a lookup key, the
/// docids asked for, each (document, docid, representative) given, and
/// the summary.
type Trace = (
    Vec<u64>,
    Vec<u64>,
    Vec<(u64, String, String)>,
    ClusterSummary,
);

fn trace(docs: &[(String, Vec<u64>)], run_lines: usize) -> Trace {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = Clusterer::new(tmp.path(), run_lines).unwrap();
    // Several groups, with gaps in their positions (as inputs and
    // segments have documents without text).
    let place = |i: usize| doc_ref(3 + (i / 7) as u32, (i % 7 * 3) as u32);
    let index: std::collections::HashMap<u64, usize> =
        (0..docs.len()).map(|i| (place(i), i)).collect();
    for (i, (id, keys)) in docs.iter().enumerate() {
        c.add(place(i), id, keys).unwrap();
    }
    let (mut lookups, mut asked, mut given) = (Vec::new(), Vec::new(), Vec::new());
    let summary = c
        .finish(
            |r| {
                lookups.push(r);
                Ok(r ^ 0xFF)
            },
            |k, r| {
                asked.push(k);
                assert_eq!(k, r ^ 0xFF);
                Ok(docs[index[&r]].0.clone())
            },
            |r, own, rep| {
                given.push((r, own.to_string(), rep.to_string()));
                Ok(())
            },
        )
        .unwrap();
    (lookups, asked, given, summary)
}

/// Documents few enough for memory (at most twice the records of a run)
/// are clustered by union-find, more by label propagation over sorted
/// runs; and named by a sort in memory when at most a run of docid lines
/// (a quarter of a run's records), by sorted runs of lines when more: the
/// two say exactly the same (only `rounds` tells them apart: 0 in memory).
fn in_memory_and_external_agree(docs: &[(String, Vec<u64>)]) -> Result<(), TestCaseError> {
    let keyed = docs
        .iter()
        .filter(|(id, k)| !k.is_empty() && !id.bytes().any(|b| b < 0x20))
        .count();
    let (ml, ma, mg, mut ms) = trace(docs, (4 * keyed).max(1));
    let (el, ea, eg, mut es) = trace(docs, 1);
    prop_assert_eq!(ms.rounds, 0);
    prop_assert!(keyed < 3 || es.rounds > 0, "{:?}", es);
    (ms.rounds, es.rounds) = (0, 0);
    prop_assert_eq!(ml, el);
    prop_assert_eq!(ma, ea);
    prop_assert_eq!(mg, eg);
    prop_assert_eq!(ms, es);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Random documents over a small key space (keys repeated within a
    /// document too, docids with a tab, documents without keys).
    #[test]
    fn union_find_in_memory_says_what_label_propagation_says(
        docs in proptest::collection::vec(
            ("[a-e]{1,3}(\t)?", proptest::collection::vec(0u64..50, 0..5)),
            0..90,
        ),
    ) {
        in_memory_and_external_agree(&docs)?;
    }
}

/// A band key given twice for one document (and for no other) does not
/// make the document a cluster of its own (label propagation named it the
/// representative of a one-document cluster, counted in `clusters`).
#[test]
fn a_key_repeated_in_one_document_does_not_cluster_it_with_itself() {
    let docs: Vec<(String, Vec<u64>)> = vec![
        ("a".into(), vec![7, 7, 1]),
        ("b".into(), vec![2]),
        ("c".into(), vec![2, 9, 9]),
    ];
    for run_lines in [1, 100] {
        let (_, _, given, s) = trace(&docs, run_lines);
        let names: Vec<&str> = given.iter().map(|(_, own, _)| own.as_str()).collect();
        assert_eq!(names, ["b", "c"], "runs of {run_lines}");
        assert_eq!((s.clustered, s.clusters, s.duplicates), (2, 1, 1));
    }
    in_memory_and_external_agree(&docs).unwrap();
}

/// The clusters of [`a_long_chain_takes_several_rounds_and_ends_at_the_smallest_docid`]
/// found in memory.
#[test]
fn a_long_chain_in_memory_ends_at_the_smallest_docid() {
    let docs: Vec<(String, Vec<u64>)> = (0..40u64)
        .map(|i| (format!("d{:03}", 100 - i), vec![i, i + 1, 1000 + i * 7]))
        .collect();
    let (got, s) = external(&docs, 1000);
    assert!(got.iter().all(|r| r == "d061"), "{got:?}");
    assert_eq!(
        (s.clustered, s.clusters, s.duplicates, s.rounds),
        (40, 1, 39, 0)
    );
    in_memory_and_external_agree(&docs).unwrap();
}

/// In memory up to exactly twice a run's records of documents with keys
/// (`rounds` 0), label propagation from one more.
#[test]
fn documents_cluster_in_memory_up_to_twice_the_run_records() {
    let docs = |n: u64| -> Vec<(String, Vec<u64>)> {
        (0..n)
            .map(|i| (format!("d{i:03}"), vec![i / 2, 500 + i]))
            .collect()
    };
    let (_, _, _, s) = trace(&docs(14), 7);
    assert_eq!((s.clustered, s.rounds), (14, 0));
    let (_, _, _, s) = trace(&docs(15), 7);
    assert_eq!(s.clustered, 14);
    assert!(s.rounds > 0, "{s:?}");
}
