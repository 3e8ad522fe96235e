use std::path::Path;

use super::*;
use crate::feedback::{InMemory, Rm3Params};
use crate::twostage::{STATS_FORMAT, STATS_VERSION};

fn key() -> SearchKey {
    SearchKey {
        stemmer: "porter".into(),
        stopwords: "lucene".into(),
        search_field: "body".into(),
        topic_field: "title".into(),
        topics: 2,
        terms: 3,
        topics_digest: "fnv1a64:0000000000000001".into(),
    }
}

fn ids() -> Vec<String> {
    vec!["1".into(), "2".into()]
}

fn first() -> FirstStage {
    parse_first_stage(
        Path::new("r1"),
        b"1 Q0 b 1 2.5 t\n1 Q0 a 2 2.5 t\n1 Q0 c 3 1 t\n2 Q0 d 1 3 t\n",
        &ids(),
        50,
    )
    .unwrap()
}

fn vectors(docs: &[(&str, &[(&str, u32)])], shards: u64) -> VectorsFile {
    let docs: BTreeMap<String, TermVector> = docs
        .iter()
        .map(|(d, v)| {
            (
                d.to_string(),
                v.iter().map(|(t, f)| (t.to_string(), *f)).collect(),
            )
        })
        .collect();
    VectorsFile {
        header: VectorsHeader {
            format: VECTORS_FORMAT.into(),
            version: VECTORS_VERSION,
            search: key(),
            first_stage: first().digest,
            rerank_cutoff: 50,
            read_top: 10,
            read_bottom: 0,
            shards,
            documents: docs.len(),
        },
        docs,
    }
}

#[test]
fn first_stage_is_ranked_as_anserini_and_named_by_its_hits() {
    let f = first();
    // Ties by docid ascending (Anserini), whatever the file's order.
    let docs: Vec<&str> = f.topics[0].1.iter().map(|h| h.docid.as_str()).collect();
    assert_eq!(docs, ["a", "b", "c"]);
    assert_eq!(f.topics[1].1[0].score, 3.0);
    // Another tag and line order: the same run.
    let again = parse_first_stage(
        Path::new("r1"),
        b"2 Q0 d 1 3 x\n1 Q0 c 3 1 x\n\n1 Q0 a 2 2.5 x\n1 Q0 b 1 2.5 x\n",
        &ids(),
        50,
    )
    .unwrap();
    assert_eq!(again, f);
    // Another score: another digest.
    let other = parse_first_stage(Path::new("r1"), b"2 Q0 d 1 3.0000002 x\n", &ids(), 50).unwrap();
    assert_ne!(other.digest, f.digest);
    assert!(other.topics[0].1.is_empty());
}

#[test]
fn first_stage_refusals_name_the_line() {
    let err = |bytes: &[u8], cutoff| {
        parse_first_stage(Path::new("r1.run"), bytes, &ids(), cutoff)
            .unwrap_err()
            .to_string()
    };
    let e = err(b"1 Q0 a 1 2 t\n3 Q0 b 1 2 t\n", 50);
    assert!(e.contains("r1.run: line 2") && e.contains("\"3\""), "{e}");
    let e = err(b"1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n", 50);
    assert!(e.contains("line 2") && e.contains("first on line 1"), "{e}");
    let e = err(b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n", 1);
    assert!(e.contains("line 2") && e.contains("--hits 1"), "{e}");
    let e = err(b"1 Q0 a 1 nan t\n", 50);
    assert!(e.contains("r1.run") && e.contains("line 1"), "{e}");
}

#[test]
fn feedback_ranks_are_the_top_and_bottom() {
    assert_eq!(feedback_ranks(5, (2, 0)), [0, 1]);
    assert_eq!(feedback_ranks(5, (2, 2)), [0, 1, 3, 4]);
    assert_eq!(feedback_ranks(3, (10, 10)), [0, 1, 2]);
    assert!(feedback_ranks(0, (10, 0)).is_empty());
}

#[test]
fn vectors_file_round_trips_and_refuses_damage() {
    let v = vectors(&[("a", &[("x", 2), ("y", 1)]), ("b", &[("y", 3)])], 1);
    let text = v.to_jsonl();
    assert!(text.starts_with("{\"header\":{\"format\":\"sieve-feedback-vectors\",\"version\":1,"));
    assert_eq!(
        VectorsFile::parse(Path::new("v"), text.as_bytes()).unwrap(),
        v
    );
    assert_eq!(v.vocabulary(), ["x", "y"]);
    let err = |t: &str| {
        VectorsFile::parse(Path::new("v.jsonl"), t.as_bytes())
            .unwrap_err()
            .to_string()
    };
    let e = err(&text.replacen("\"version\":1", "\"version\":7", 1));
    assert!(
        e.contains("v.jsonl: line 1") && e.contains("version 7"),
        "{e}"
    );
    let e = err(&text.replacen("sieve-feedback-vectors", "sieve-bm25-stats", 1));
    assert!(
        e.contains("line 1") && e.contains("format sieve-bm25-stats"),
        "{e}"
    );
    let e = err(&text[..text.len() - 1]);
    assert!(e.contains("newline"), "{e}");
    let e = err(&text[..text.len() - 5]);
    assert!(e.contains("newline"), "{e}");
    let e = err("");
    assert!(e.contains("empty"), "{e}");
    let lines: Vec<&str> = text.lines().collect();
    let e = err(&format!("{}\n{}\n", lines[0], lines[1]));
    assert!(e.contains("counts 2 lines") && e.contains("has 1"), "{e}");
    let e = err(&format!("{}\n{}\n{}\n", lines[0], lines[2], lines[1]));
    assert!(e.contains("line 3") && e.contains("byte order"), "{e}");
    let e = err(&format!(
        "{}\n{}\n{{\"docid\": \"c\"}}\n",
        lines[0], lines[1]
    ));
    assert!(e.contains("line 3") && e.contains("terms"), "{e}");
    let e = err(&format!(
        "{}\n{}\n{{\"docid\":\"c\",\"terms\":[[\"y\",1],[\"x\",1]]}}\n",
        lines[0], lines[1]
    ));
    assert!(e.contains("line 3") && e.contains("terms of \"c\""), "{e}");
}

#[test]
fn merge_sums_shards_and_refuses_other_headers_and_shared_documents() {
    let a = vectors(&[("a", &[("x", 1)])], 1);
    let b = vectors(&[("b", &[("y", 1)]), ("c", &[("z", 1)])], 2);
    let m = VectorsFile::merge(&[("a".into(), a.clone()), ("b".into(), b.clone())]).unwrap();
    assert_eq!((m.header.shards, m.header.documents), (3, 3));
    assert_eq!(m.docs.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    let mut other = b.clone();
    other.header.search.stemmer = "none".into();
    let e = VectorsFile::merge(&[("a".into(), a.clone()), ("o".into(), other)]).unwrap_err();
    assert!(
        matches!(&e, Error::FeedbackMismatch { key: "stemmer", path, .. } if path == Path::new("o")),
        "{e}"
    );
    let mut other = b.clone();
    other.header.first_stage = "fnv1a64:ffffffffffffffff".into();
    let e = VectorsFile::merge(&[("a".into(), a.clone()), ("o".into(), other)]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::FeedbackMismatch {
                key: "first_stage",
                ..
            }
        ),
        "{e}"
    );
    let e = VectorsFile::merge(&[("a".into(), a.clone()), ("a2".into(), a)]).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("a2") && msg.contains("\"a\""), "{msg}");
    assert!(VectorsFile::merge(&[]).is_err());
}

fn queries_file(weights: &[f32]) -> WeightedQueriesFile {
    WeightedQueriesFile {
        header: QueriesHeader {
            format: QUERIES_FORMAT.into(),
            version: QUERIES_VERSION,
            search: key(),
            vocabulary: "fnv1a64:0000000000000002".into(),
            first_stage: first().digest,
            model: "k1-0.9_b-0.4".into(),
            feedback: "bm25prf_t20_d10_k1-0.9_b-0.4_w0.2".into(),
            rescoring: RescoringSpec::Bm25UnitIdf {
                k1: "0.9".into(),
                b: "0.4".into(),
            },
            queries: 2,
        },
        queries: vec![
            (
                "1".into(),
                weights
                    .iter()
                    .enumerate()
                    .map(|(i, w)| (format!("t{i:02}"), *w))
                    .collect(),
            ),
            ("2".into(), vec![]),
        ],
    }
}

#[test]
fn weighted_queries_round_trip_bit_for_bit() {
    let weights = [
        0.1f32 + 0.2,
        1.0 / 3.0,
        f32::MIN_POSITIVE,
        1e-45,
        3.4028235e38,
        f32::from_bits(0.3f32.to_bits() + 1),
        16_777_216.0,
        -0.5,
        0.0,
    ];
    let w = queries_file(&weights);
    let text = w.to_jsonl();
    let back = WeightedQueriesFile::parse(Path::new("w"), text.as_bytes()).unwrap();
    assert_eq!(back, w);
    for ((_, a), (_, b)) in back.queries[0].1.iter().zip(&w.queries[0].1) {
        assert_eq!(a.to_bits(), b.to_bits());
    }
    assert_eq!(
        back.model(Model::Bm25(Bm25Params::ANSERINI)),
        Model::Bm25UnitIdf(Bm25Params { k1: 0.9, b: 0.4 })
    );
    assert_eq!(back.terms().len(), weights.len());
    back.check_search(Path::new("w"), &key(), &ids()).unwrap();
    let e = back
        .check_search(Path::new("w"), &key(), &["1".into(), "3".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 3") && e.contains("\"3\""), "{e}");
    let mut k = key();
    k.topic_field = "desc".into();
    let e = back.check_search(Path::new("w"), &k, &ids()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::FeedbackMismatch {
                key: "topic_field",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn weighted_queries_refusals_name_the_line() {
    let text = queries_file(&[0.5, 0.25]).to_jsonl();
    let err = |t: &str| {
        WeightedQueriesFile::parse(Path::new("w.jsonl"), t.as_bytes())
            .unwrap_err()
            .to_string()
    };
    let e = err(&text.replacen("\"version\":1", "\"version\":2", 1));
    assert!(
        e.contains("w.jsonl: line 1") && e.contains("version 2"),
        "{e}"
    );
    let e = err(&text.replacen("\"0.5\"", "\"inf\"", 1));
    assert!(e.contains("line 2") && e.contains("finite"), "{e}");
    let e = err(&text.replacen("\"0.5\"", "0.5", 1));
    assert!(e.contains("line 2"), "{e}");
    let e = err(&text.replacen("\"k1\":\"0.9\"", "\"k1\":\"-1\"", 1));
    assert!(e.contains("line 1") && e.contains("rescoring"), "{e}");
    let e = err(&text.replacen("\"queries\":2", "\"queries\":1", 1));
    assert!(e.contains("line 3") && e.contains("counts 1"), "{e}");
    let e = err(&text.replacen("\"t00\"", "\"t02\"", 1));
    assert!(e.contains("line 2") && e.contains("byte order"), "{e}");
}

fn stats(vocabulary: &str) -> ShardStats {
    let terms = ["apple", "pie", "tart", "crust", "sugar"];
    ShardStats {
        header: StatsHeader {
            format: STATS_FORMAT.into(),
            version: STATS_VERSION,
            stemmer: "porter".into(),
            stopwords: "lucene".into(),
            search_field: "body".into(),
            topic_field: "title".into(),
            topics: 2,
            terms: terms.len(),
            topics_digest: key().topics_digest,
            vocabulary: Some(vocabulary.into()),
        },
        shards: 2,
        num_docs: 100,
        total_tokens: 1000,
        doc_freq: terms
            .iter()
            .zip([3, 9, 2, 5, 1])
            .map(|(t, d)| (t.to_string(), d))
            .collect(),
        total_term_freq: terms.iter().map(|t| (t.to_string(), 20)).collect(),
    }
}

#[test]
fn expand_queries_equals_expand_over_the_same_input_in_memory() {
    let f = first();
    let docs: [(&str, &[(&str, u32)]); 4] = [
        ("a", &[("apple", 2), ("tart", 1)]),
        ("b", &[("crust", 3), ("pie", 1)]),
        ("c", &[("apple", 1), ("sugar", 2)]),
        ("d", &[("pie", 4), ("tart", 2)]),
    ];
    let v = vectors(&docs, 2);
    let g = stats(&v.vocabulary_digest());
    let mut header = g.header.clone();
    header.terms = key().terms;
    header.vocabulary = None;
    let queries = vec![
        (
            "1".to_string(),
            BagOfWords::from_terms(["apple".to_string(), "pie".to_string()]),
        ),
        ("2".to_string(), BagOfWords::from_terms(["pie".to_string()])),
    ];
    let inputs = ExpandInputs {
        topics: (&header, &queries),
        first: (Path::new("r1"), &f),
        rerank_cutoff: 50,
        vectors: (Path::new("v"), &v),
        stats: (Path::new("g2"), &g),
    };
    let setting = Feedback::Rm3(Rm3Params {
        fb_docs: 2,
        fb_terms: 10,
        original_query_weight: 0.5,
        term_filter: true,
    });
    let (file, expansions) = expand_queries(&inputs, &setting, "k1-0.9_b-0.4").unwrap();
    assert_eq!(file.header.feedback, setting.label());
    assert_eq!(file.header.rescoring, RescoringSpec::FirstStage);
    assert_eq!(file.queries.len(), 2);
    for ((id, bag), (fid, hits)) in queries.iter().zip(&f.topics) {
        assert_eq!(id, fid);
        let mem = InMemory {
            hits: hits
                .iter()
                .map(|h| (h.score, v.docs[&h.docid].clone()))
                .collect(),
            num_docs: g.num_docs,
            df: g.doc_freq.iter().map(|(t, d)| (t.clone(), *d)).collect(),
        };
        let want = setting.expand(&bag.terms, &mem).unwrap();
        let got = &expansions.iter().find(|(t, _)| t == id).unwrap().1;
        assert_eq!(got, &want, "topic {id}");
    }
    // A feedback document that no part holds.
    let mut half = v.clone();
    half.docs.remove("b");
    let g_half = stats(&half.vocabulary_digest());
    let e = expand_queries(
        &ExpandInputs {
            vectors: (Path::new("half"), &half),
            stats: (Path::new("g2"), &g_half),
            ..inputs
        },
        &setting,
        "k1-0.9_b-0.4",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("\"b\"") && e.contains("rank 2 of topic \"1\""),
        "{e}"
    );
    // Statistics of another vocabulary; vectors read for fewer documents.
    let other = stats("fnv1a64:0000000000000000");
    let e = expand_queries(
        &ExpandInputs {
            stats: (Path::new("g-other"), &other),
            ..inputs
        },
        &setting,
        "k1-0.9_b-0.4",
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            Error::StatsMismatch {
                key: "vocabulary",
                ..
            }
        ),
        "{e}"
    );
    let mut few = v.clone();
    few.header.read_top = 1;
    let e = expand_queries(
        &ExpandInputs {
            vectors: (Path::new("few"), &few),
            ..inputs
        },
        &setting,
        "k1-0.9_b-0.4",
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            Error::FeedbackMismatch {
                key: "read_top/read_bottom",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn search_key_names_its_analyser() {
    assert_eq!(key().analyzer().unwrap(), AnalyzerConfig::default());
    let mut k = key();
    k.stemmer = "snowball".into();
    assert!(k.analyzer().unwrap_err().contains("snowball"));
    let mut other = key();
    other.terms = 9;
    assert_eq!(key().difference(&other).map(|d| d.0), Some("terms"));
    assert_eq!(key().difference_except_terms(&other), None);
}

#[test]
fn committed_fuzz_seeds_are_valid_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds");
    let v = VectorsFile::read(&root.join("feedback_vectors/two-docs.jsonl")).unwrap();
    assert_eq!(v.docs.len(), 2);
    let w = WeightedQueriesFile::read(&root.join("weighted_queries/two-topics.jsonl")).unwrap();
    assert_eq!(
        w.queries[0].1,
        [("page".to_string(), 1.0), ("web".to_string(), 0.2)]
    );
}
