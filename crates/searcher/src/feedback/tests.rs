//! The feedback models on small inputs whose weights are worked out by
//! hand in the comments, and the rules of the module documentation.

use super::*;

fn v(terms: &[(&str, u32)]) -> Vec<(String, u32)> {
    terms.iter().map(|(t, n)| (t.to_string(), *n)).collect()
}

fn input(hits: &[(f32, Vec<(&str, u32)>)], df: &[(&str, u64)], num_docs: u64) -> InMemory {
    InMemory {
        hits: hits.iter().map(|(s, t)| (*s, v(t))).collect(),
        num_docs,
        df: df.iter().map(|(t, n)| (t.to_string(), *n)).collect(),
    }
}

fn weight(e: &Expansion, term: &str) -> Option<f32> {
    e.terms.iter().find(|(t, _)| t == term).map(|(_, w)| *w)
}

fn close(a: Option<f32>, b: f64) -> bool {
    a.is_some_and(|a| (f64::from(a) - b).abs() < 1e-6)
}

/// Two documents: "the" is in half the collection (too common), "x" too
/// short, "Zed" not lower-case.
fn two_docs() -> InMemory {
    input(
        &[
            (
                2.0,
                vec![
                    ("apple", 3),
                    ("banana", 1),
                    ("the", 5),
                    ("x", 2),
                    ("Zed", 1),
                ],
            ),
            (1.0, vec![("cherry", 1), ("apple", 1)]),
        ],
        &[("the", 50), ("apple", 3), ("banana", 2), ("cherry", 2)],
        100,
    )
}

fn query(terms: &[(&str, u32)]) -> Vec<(String, u32)> {
    v(terms)
}

#[test]
fn rm3_weights_by_hand() {
    // Doc 0: apple 3, banana 1 (norm 4, score 2); doc 1: apple 1, cherry 1
    // (norm 2, score 1). apple 3/4·2 + 1/2·1 = 2, banana 0.5, cherry 0.5:
    // L1 2/3, 1/6, 1/6. Query apple, pie: 1/2 each. Interpolated at 0.5.
    let e = Feedback::Rm3(Rm3Params::ANSERINI)
        .expand(&query(&[("apple", 1), ("pie", 1)]), &two_docs())
        .unwrap();
    assert!(close(weight(&e, "apple"), 0.25 + 0.5 * 2.0 / 3.0), "{e:?}");
    assert!(close(weight(&e, "banana"), 0.5 / 6.0), "{e:?}");
    assert!(close(weight(&e, "cherry"), 0.5 / 6.0), "{e:?}");
    assert!(close(weight(&e, "pie"), 0.25), "{e:?}");
    assert_eq!(e.terms.len(), 4, "the, x and Zed filtered: {e:?}");
    assert_eq!(e.rescoring, Rescoring::FirstStage);
    let names: Vec<&str> = e.terms.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(names, ["apple", "banana", "cherry", "pie"], "byte order");
}

#[test]
fn rm3_without_term_filter_keeps_capitals() {
    let p = Rm3Params {
        term_filter: false,
        ..Rm3Params::ANSERINI
    };
    let e = Feedback::Rm3(p)
        .expand(&query(&[("apple", 1)]), &two_docs())
        .unwrap();
    assert!(weight(&e, "Zed").is_some(), "{e:?}");
    assert!(weight(&e, "x").is_none() && weight(&e, "the").is_none());
}

#[test]
fn rm3_prunes_each_document_and_the_model_with_ties_by_term() {
    // fb_terms 1: doc 0 keeps apple (3); doc 1 ties apple/cherry at 1 and
    // keeps apple (term order). The model is apple alone: weight 1.
    let p = Rm3Params {
        fb_terms: 1,
        ..Rm3Params::ANSERINI
    };
    let e = Feedback::Rm3(p)
        .expand(&query(&[("pie", 1)]), &two_docs())
        .unwrap();
    assert!(close(weight(&e, "apple"), 0.5), "{e:?}");
    assert!(weight(&e, "cherry").is_none() && weight(&e, "banana").is_none());
    // One document: fb_docs 1 sees doc 0 only; cherry is never seen.
    let p = Rm3Params {
        fb_docs: 1,
        ..Rm3Params::ANSERINI
    };
    let e = Feedback::Rm3(p)
        .expand(&query(&[("pie", 1)]), &two_docs())
        .unwrap();
    assert!(close(weight(&e, "apple"), 0.5 * 0.75) && weight(&e, "cherry").is_none());
}

#[test]
fn rm3_counts_repeated_query_terms() {
    // apple twice, pie once: 2/3 and 1/3 of the query share.
    let e = Feedback::Rm3(Rm3Params::ANSERINI)
        .expand(&query(&[("apple", 2), ("pie", 1)]), &InMemory::default())
        .unwrap();
    assert!(close(weight(&e, "apple"), 0.5 * 2.0 / 3.0), "{e:?}");
    assert!(close(weight(&e, "pie"), 0.5 / 3.0), "{e:?}");
}

#[test]
fn rm3_with_zero_scores_adds_no_term() {
    let mut i = two_docs();
    for h in &mut i.hits {
        h.0 = 0.0;
    }
    let e = Feedback::Rm3(Rm3Params::ANSERINI)
        .expand(&query(&[("pie", 1)]), &i)
        .unwrap();
    assert_eq!(e.terms, [("pie".to_string(), 0.5)]);
}

#[test]
fn no_first_stage_hit_leaves_the_query_terms() {
    let none = InMemory {
        num_docs: 100,
        ..Default::default()
    };
    let q = query(&[("apple", 1), ("pie", 3)]);
    let rm3 = Feedback::Rm3(Rm3Params::ANSERINI)
        .expand(&q, &none)
        .unwrap();
    assert_eq!(rm3.terms, [("apple".into(), 0.125), ("pie".into(), 0.375)]);
    let rocchio = Feedback::Rocchio(RocchioParams::ANSERINI)
        .expand(&q, &none)
        .unwrap();
    // alpha · q / |q|: 1/√10 and 3/√10.
    assert!(close(weight(&rocchio, "apple"), 1.0 / 10f64.sqrt()));
    assert!(close(weight(&rocchio, "pie"), 3.0 / 10f64.sqrt()));
    let prf = Feedback::Bm25Prf(Bm25PrfParams::ANSERINI)
        .expand(&q, &none)
        .unwrap();
    // R = 0, r = 0, df 0: ln((0.5)(100.5) / ((0.5)(0.5))) = ln 201.
    assert!(close(weight(&prf, "apple"), 201f64.ln()), "{prf:?}");
    assert_eq!(prf.terms.len(), 2);
}

#[test]
fn results_do_not_depend_on_the_order_of_a_term_vector() {
    let mut shuffled = two_docs();
    for h in &mut shuffled.hits {
        h.1.reverse();
    }
    let q = query(&[("apple", 1)]);
    for fb in [
        Feedback::Rm3(Rm3Params::ANSERINI),
        Feedback::Bm25Prf(Bm25PrfParams::ANSERINI),
        Feedback::Rocchio(RocchioParams::ANSERINI),
    ] {
        assert_eq!(
            fb.expand(&q, &two_docs()).unwrap(),
            fb.expand(&q, &shuffled).unwrap()
        );
    }
}

#[test]
fn bm25prf_relevance_weight_by_hand() {
    let c = bm25prf::Counts {
        df: 5,
        rel_df: 3,
        docs: 1000,
        rel_docs: 10,
    };
    // (3.5)(1000 − 5 − 10 + 3 + 0.5) / ((2.5)(7.5)) = 3459.75 / 18.75.
    let rw = (3.5f64 * 988.5 / 18.75).ln() * f64::from(0.2f32);
    assert!((bm25prf::relevance_weight(c, 0.2) - rw).abs() < 1e-12);
    assert_eq!(bm25prf::offer_weight(c, 0.2), (rw * 3f64.ln()) as f32);
    // A negative odds ratio floors at 1e-6 (Java: NaN).
    let odd = bm25prf::Counts {
        df: 1,
        rel_df: 1,
        docs: 1,
        rel_docs: 5,
    };
    assert_eq!(bm25prf::relevance_weight(odd, 1.0), 1e-6);
}

#[test]
fn bm25prf_new_terms_need_two_feedback_documents_and_a_word_shape() {
    let i = input(
        &[
            (
                3.0,
                vec![
                    ("apple", 1),
                    ("pear", 2),
                    ("1984", 1),
                    ("plum", 1),
                    ("a", 1),
                ],
            ),
            (
                2.0,
                vec![("apple", 1), ("pear", 1), ("1984", 1), ("fig", 1), ("a", 1)],
            ),
        ],
        &[
            ("apple", 4),
            ("pear", 3),
            ("1984", 3),
            ("plum", 2),
            ("fig", 2),
            ("a", 2),
        ],
        100,
    );
    let e = Feedback::Bm25Prf(Bm25PrfParams::ANSERINI)
        .expand(&query(&[("apple", 1)]), &i)
        .unwrap();
    let names: Vec<&str> = e.terms.iter().map(|(t, _)| t.as_str()).collect();
    // pear: in both; 1984 all digits, plum and fig in one, "a" too short.
    assert_eq!(names, ["apple", "pear"], "{e:?}");
    let pear = bm25prf::Counts {
        df: 3,
        rel_df: 2,
        docs: 100,
        rel_docs: 2,
    };
    let apple = bm25prf::Counts { df: 4, ..pear };
    assert_eq!(
        weight(&e, "pear"),
        Some(bm25prf::relevance_weight(pear, 0.2) as f32)
    );
    assert_eq!(
        weight(&e, "apple"),
        Some(bm25prf::relevance_weight(apple, 1.0) as f32)
    );
    assert_eq!(
        e.rescoring,
        Rescoring::Bm25UnitIdf(Bm25Params { k1: 0.9, b: 0.4 })
    );
}

#[test]
fn bm25prf_ties_keep_java_hash_map_order() {
    // zz, ab and ac tie (same df, in both documents). Their Java hashes
    // are 3904, 3105 and 3106: buckets 0, 1 and 2 of a 16-bucket table,
    // so Java's stable sort keeps zz, ab, ac, and fb_terms 2 keeps zz and
    // ab, where term order would keep ab and ac.
    let doc = vec![("zz", 1), ("ab", 1), ("ac", 1), ("q", 1)];
    let i = input(
        &[(2.0, doc.clone()), (1.0, doc)],
        &[("zz", 5), ("ab", 5), ("ac", 5)],
        100,
    );
    let p = Bm25PrfParams {
        fb_terms: 2,
        ..Bm25PrfParams::ANSERINI
    };
    let e = Feedback::Bm25Prf(p)
        .expand(&query(&[("q", 1)]), &i)
        .unwrap();
    let names: Vec<&str> = e.terms.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(names, ["ab", "q", "zz"], "{e:?}");
}

#[test]
fn rocchio_weights_by_hand() {
    // Top docs: doc 0 apple 3, banana 1 ("the" too common, "x" too short;
    // "Zed" kept: Rocchio has no letter rule): norm √11; doc 1 cherry 1,
    // apple 1: norm √2. Mean: apple (3/√11 + 1/√2)/2, banana (1/√11)/2,
    // Zed (1/√11)/2, cherry (1/√2)/2; then L2-normalised, times 0.75;
    // plus the query apple (weight 1).
    let e = Feedback::Rocchio(RocchioParams::ANSERINI)
        .expand(&query(&[("apple", 1)]), &two_docs())
        .unwrap();
    let (s11, s2) = (11f64.sqrt(), 2f64.sqrt());
    let m = [(3.0 / s11 + 1.0 / s2) / 2.0, 0.5 / s11, 0.5 / s11, 0.5 / s2];
    let norm = m.iter().map(|x| x * x).sum::<f64>().sqrt();
    assert!(
        close(weight(&e, "apple"), 1.0 + 0.75 * m[0] / norm),
        "{e:?}"
    );
    assert!(close(weight(&e, "banana"), 0.75 * m[1] / norm), "{e:?}");
    assert!(close(weight(&e, "Zed"), 0.75 * m[2] / norm), "{e:?}");
    assert!(close(weight(&e, "cherry"), 0.75 * m[3] / norm), "{e:?}");
    assert_eq!(e.terms.len(), 4);
}

#[test]
fn rocchio_negative_feedback_subtracts_the_bottom_documents() {
    // Three hits; bottom 1 is the last (doc 2: banana 1). Its mean is
    // banana 1; banana's weight goes 0.75·b − 0.15·1, apple unchanged.
    let i = input(
        &[
            (3.0, vec![("apple", 1), ("banana", 1)]),
            (2.0, vec![("apple", 1)]),
            (1.0, vec![("banana", 1)]),
        ],
        &[("apple", 2), ("banana", 2)],
        100,
    );
    let plain = RocchioParams {
        top_fb_docs: 2,
        bottom_fb_docs: 1,
        ..RocchioParams::ANSERINI
    };
    let negative = RocchioParams {
        use_negative: true,
        ..plain
    };
    let q = query(&[("apple", 1)]);
    let a = Feedback::Rocchio(plain).expand(&q, &i).unwrap();
    let b = Feedback::Rocchio(negative).expand(&q, &i).unwrap();
    assert_eq!(weight(&a, "apple"), weight(&b, "apple"));
    let banana = weight(&a, "banana").unwrap();
    assert!(
        close(weight(&b, "banana"), f64::from(banana) - 0.15),
        "{a:?} {b:?}"
    );
    // A large gamma drops banana (weight <= 0).
    let drop = RocchioParams {
        gamma: 10.0,
        ..negative
    };
    assert!(weight(&Feedback::Rocchio(drop).expand(&q, &i).unwrap(), "banana").is_none());
}

#[test]
fn parameters_are_checked() {
    let bad = [
        Feedback::Rm3(Rm3Params {
            original_query_weight: f32::NAN,
            ..Rm3Params::ANSERINI
        }),
        Feedback::Rm3(Rm3Params {
            original_query_weight: 1.5,
            ..Rm3Params::ANSERINI
        }),
        Feedback::Rm3(Rm3Params {
            fb_terms: 0,
            ..Rm3Params::ANSERINI
        }),
        Feedback::Bm25Prf(Bm25PrfParams {
            new_term_weight: -0.2,
            ..Bm25PrfParams::ANSERINI
        }),
        Feedback::Bm25Prf(Bm25PrfParams {
            b: 2.0,
            ..Bm25PrfParams::ANSERINI
        }),
        Feedback::Rocchio(RocchioParams {
            beta: f32::INFINITY,
            ..RocchioParams::ANSERINI
        }),
        Feedback::Rocchio(RocchioParams {
            gamma: -1.0,
            ..RocchioParams::ANSERINI
        }),
    ];
    for fb in bad {
        let e = fb.validate().unwrap_err();
        assert!(matches!(e, Error::InvalidParameter { .. }), "{fb:?}: {e}");
    }
    let e = Feedback::Rm3(Rm3Params {
        original_query_weight: f32::NAN,
        ..Rm3Params::ANSERINI
    })
    .validate()
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid RM3 original query weight: expected a number in [0, 1], got NaN"
    );
    for ok in [
        Feedback::Rm3(Rm3Params::ANSERINI),
        Feedback::Bm25Prf(Bm25PrfParams::ANSERINI),
        Feedback::Rocchio(RocchioParams::ANSERINI),
    ] {
        assert_eq!(ok.validate().unwrap(), ok);
    }
}

#[test]
fn labels_name_every_parameter() {
    assert_eq!(
        Feedback::Rm3(Rm3Params::ANSERINI).label(),
        "rm3_t10_d10_w0.5"
    );
    assert_eq!(
        Feedback::Bm25Prf(Bm25PrfParams::ANSERINI).label(),
        "bm25prf_t20_d10_k1-0.9_b-0.4_w0.2"
    );
    assert_eq!(
        Feedback::Rocchio(RocchioParams::ANSERINI).label(),
        "rocchio_t10_d10_a1_b0.75"
    );
    let neg = RocchioParams {
        use_negative: true,
        ..RocchioParams::ANSERINI
    };
    assert_eq!(
        Feedback::Rocchio(neg).label(),
        "rocchio_t10_d10_a1_b0.75_neg_t10_d10_g0.15"
    );
}

#[test]
fn anserini_order_breaks_ties_by_docid_ascending() {
    let mut hits = vec![
        Hit {
            docid: "b".into(),
            score: 1.0,
        },
        Hit {
            docid: "c".into(),
            score: 2.0,
        },
        Hit {
            docid: "a".into(),
            score: 1.0,
        },
    ];
    anserini_order(&mut hits);
    let ids: Vec<&str> = hits.iter().map(|h| h.docid.as_str()).collect();
    assert_eq!(ids, ["c", "a", "b"]);
}

/// Stored document vectors (`--docvectors`) against the postings: for
/// random documents (title and body, stop words, repeats, stems, digits,
/// accents), several segments, the stored vector of every document equals
/// the terms and frequencies read from the postings.
mod stored_vectors {
    use super::super::index::{
        DocAt, has_stored_vectors, term_vectors, term_vectors_from_postings,
    };
    use crate::bm25::Shard;
    use proptest::prelude::*;
    use sieve_format::schema::{Fields, IndexContents, TextField};
    use sieve_format::testing;

    fn shard(index: &tantivy::Index) -> Shard {
        crate::bm25::tests::shard("mem", index)
    }

    const WORDS: &[&str] = &[
        "the",
        "running",
        "runs",
        "ran",
        "Fox",
        "foxes",
        "a",
        "of",
        "42",
        "x",
        "café",
        "naïve",
        "données",
        "it's",
        "U.S.A.",
        "e-mail",
        "über",
        "3.14",
        "日本語",
        "ΑΘΗΝΑ",
        "don't",
        "and",
    ];

    fn text(picks: &[usize]) -> String {
        picks
            .iter()
            .map(|&i| WORDS[i % WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn vectors_equal_postings(
            docs in proptest::collection::vec(
                (proptest::collection::vec(0usize..64, 0..4), proptest::collection::vec(0usize..64, 0..40)),
                1..30,
            ),
            segments in 1usize..4,
        ) {
            let made = docs.iter().enumerate().map(|(i, (title, body))| {
                let mut d = testing::doc(&format!("d{i:03}"), &text(body));
                d.title = text(title);
                d
            });
            let contents = IndexContents { docvectors: true, ..IndexContents::default() };
            let index = testing::index_in_ram_with(contents, made, segments);
            let shards = [shard(&index)];
            prop_assert!(has_stored_vectors(&shards, TextField::Body));
            prop_assert!(!has_stored_vectors(&shards, TextField::Title));
            let mut at = Vec::new();
            for (g, seg) in shards[0].searcher.segment_readers().iter().enumerate() {
                for doc in 0..seg.max_doc() {
                    at.push(DocAt { shard: 0, segment: g, doc });
                }
            }
            let stored = term_vectors(&shards, TextField::Body, &at).unwrap();
            let postings = term_vectors_from_postings(&shards, TextField::Body, &at).unwrap();
            prop_assert_eq!(stored, postings);
        }
    }

    #[test]
    fn a_damaged_vector_is_an_error_not_a_panic() {
        use sieve_format::schema::{build_schema_with, register_analyzers};
        let contents = IndexContents {
            docvectors: true,
            ..IndexContents::default()
        };
        let index = tantivy::Index::create_in_ram(build_schema_with(contents));
        register_analyzers(&index, sieve_analysis::AnalyzerConfig::default());
        let fields = Fields::from_schema(&index.schema()).unwrap();
        let mut w: tantivy::IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        let mut d = tantivy::TantivyDocument::new();
        d.add_text(fields.docid, "d0");
        d.add_text(fields.body, "apple pie");
        // One term announced, none there.
        d.add_bytes(fields.body_vector.unwrap(), &[1u8, 1]);
        w.add_document(d).unwrap();
        w.commit().unwrap();
        let shards = [shard(&index)];
        let at = [DocAt {
            shard: 0,
            segment: 0,
            doc: 0,
        }];
        let e = term_vectors(&shards, TextField::Body, &at)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("segment 0 document 0: stored field body_vector"),
            "{e}"
        );
        assert!(
            e.contains("at byte 2: expected a shared prefix length"),
            "{e}"
        );
    }
}
