//! The weighted-term scorer against the BM25 path and a brute-force QLD
//! oracle written from Lucene's formula.

use super::*;
use crate::bm25::{Variant, search};
use crate::stats::GlobalStats;
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_format::testing;
use tantivy::Index;
use tantivy::query::Bm25StatisticsProvider;

fn analyzer() -> EnglishAnalyzer {
    EnglishAnalyzer::new(AnalyzerConfig::default())
}

fn index(bodies: &[&str], segments: usize) -> Index {
    let docs = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| testing::doc(&format!("doc-{i:03}"), b));
    testing::index_in_ram(docs, segments)
}

fn shard(index: &tantivy::Index) -> Shard {
    crate::bm25::tests::shard("mem", index)
}

const CORPUS: &[&str] = &[
    "the quick brown fox jumps over the lazy dog",
    "a fox a fox a fox",
    "brown bread and brown butter",
    "dogs and foxes are mammals of the order carnivora",
    "lazy afternoon",
    "quick quick quick",
    "nothing relevant here at all",
];

/// The hits of `q` under `model` over `shards`, through
/// [`search_weighted`] (pruned where it can be).
fn run(shards: &[Shard], q: &str, model: Model, k: usize) -> Vec<Hit> {
    run_with(search_weighted, shards, q, model, k)
}

/// [`run`] through the exhaustive scorer, whatever the model.
fn run_exhaustive(shards: &[Shard], q: &str, model: Model, k: usize) -> Vec<Hit> {
    run_with(search_exhaustive, shards, q, model, k)
}

type Search = fn(
    &[Shard],
    TextField,
    &WeightedQuery,
    &[ModelVariant<'_>],
    usize,
) -> crate::Result<Vec<Vec<Hit>>>;

fn run_with(search: Search, shards: &[Shard], q: &str, model: Model, k: usize) -> Vec<Hit> {
    let stats = GlobalStats::new(shards);
    let bag = BagOfWords::from_terms(analyzer().terms(q));
    let v = ModelVariant {
        model,
        stats: &stats,
        subset: None,
    };
    search(
        shards,
        TextField::Body,
        &WeightedQuery::from_bag(&bag),
        &[v],
        k,
    )
    .unwrap()
    .remove(0)
}

#[test]
fn bm25_equals_the_bm25_path_bit_for_bit() {
    let idx = index(CORPUS, 3);
    let shards = [shard(&idx)];
    for q in [
        "quick fox",
        "brown brown lazy dog",
        "fox fox butter nothing",
    ] {
        let params = Bm25Params::ANSERINI;
        let ours = run_exhaustive(&shards, q, Model::Bm25(params), 10);
        let stats = GlobalStats::new(&shards);
        let bag = BagOfWords::from_terms(analyzer().terms(q));
        let v = Variant {
            params,
            stats: &stats,
            subset: None,
        };
        let theirs = search(&shards, TextField::Body, &bag, &[v], 10)
            .unwrap()
            .remove(0);
        assert_eq!(ours, theirs, "query {q:?}");
        assert!(!ours.is_empty());
    }
}

/// Lucene's `LMDirichletSimilarity` written out for one document.
fn oracle(tfs: &[(u32, f32, u64)], dl: u32, total: u64, mu: f32) -> f32 {
    let mu = f64::from(mu);
    let mut sum = 0.0f64;
    for &(tf, boost, ttf) in tfs {
        let p = (ttf as f64 + 1.0) / (total as f64 + 1.0);
        let s = f64::from(boost)
            * ((1.0 + f64::from(tf) / (mu * p)).ln() + (mu / (f64::from(dl) + mu)).ln());
        sum += f64::from(if s > 0.0 { s as f32 } else { 0.0 });
    }
    sum as f32
}

#[test]
fn qld_equals_lucenes_formula() {
    let idx = index(CORPUS, 2);
    let shards = [shard(&idx)];
    // Small mu, so that the scores are not all clipped to 0.
    let mu = 5.0;
    let hits = run(
        &shards,
        "fox fox brown quick",
        Model::Qld(QldParams { mu }),
        10,
    );
    // Analysed: fox (qtf 2), brown, quick.
    let total = shards[0]
        .searcher
        .total_num_tokens(shards[0].fields.body)
        .unwrap();
    let ttf = |t: &str| {
        let term = Term::from_field_text(shards[0].fields.body, t);
        GlobalStats::new(&shards).total_term_freq(&term).unwrap()
    };
    // fox: once in doc-000, three times in doc-001, `foxes` in doc-003.
    assert_eq!(ttf("fox"), 5);
    assert_eq!(ttf("brown"), 3);
    // doc-001 "a fox a fox a fox": fox tf 3, length 3 (stopwords removed).
    let d1 = hits
        .iter()
        .find(|h| h.docid == "doc-001")
        .expect("doc-001 matches");
    let want = oracle(&[(3, 2.0, ttf("fox"))], 3, total, mu);
    assert_eq!(d1.score.to_bits(), want.to_bits(), "{} vs {want}", d1.score);
    // doc-000: fox, brown, quick once each; length 7 (`the` twice removed).
    let d0 = hits
        .iter()
        .find(|h| h.docid == "doc-000")
        .expect("doc-000 matches");
    let want = oracle(
        &[
            (1, 2.0, ttf("fox")),
            (1, 1.0, ttf("brown")),
            (1, 1.0, ttf("quick")),
        ],
        7,
        total,
        mu,
    );
    assert_eq!(d0.score.to_bits(), want.to_bits(), "{} vs {want}", d0.score);
    // Documents matching no term are absent; those matching are all there.
    assert!(
        hits.iter()
            .all(|h| h.docid != "doc-004" && h.docid != "doc-006")
    );
    assert_eq!(hits.len(), 5);
}

#[test]
fn qld_clips_each_term_at_zero_and_keeps_zero_scored_matches() {
    // A term clips when tf · (T + 1) / (ttf + 1) < dl, whatever mu:
    // T = 26, ttf = 6; doc-000: 4 · 27 / 7 > 4; the others: 27 / 7 < 11.
    let words = format!("common {}", ["word"; 10].join(" "));
    let idx = index(&["common common common common", &words, &words], 2);
    let shards = [shard(&idx)];
    for mu in [10.0, 1000.0] {
        let hits = run(&shards, "common", Model::Qld(QldParams { mu }), 10);
        assert_eq!(hits.len(), 3, "mu {mu}");
        assert_eq!(hits[0].docid, "doc-000");
        assert!(hits[0].score > 0.0);
        // Zero-scored matches are kept, ties broken by docid, descending.
        assert_eq!((hits[1].docid.as_str(), hits[1].score), ("doc-002", 0.0));
        assert_eq!((hits[2].docid.as_str(), hits[2].score), ("doc-001", 0.0));
    }
}

#[test]
fn same_results_for_any_segment_layout() {
    let one = index(CORPUS, 1);
    let many = index(CORPUS, 4);
    let model = Model::Qld(QldParams { mu: 10.0 });
    let a = run(&[shard(&one)], "quick brown fox dog", model, 3);
    let b = run(&[shard(&many)], "quick brown fox dog", model, 3);
    assert_eq!(a, b);
    assert_eq!(a.len(), 3);
}

#[test]
fn invalid_mu_is_refused() {
    assert!(QldParams { mu: 0.0 }.validate().is_err());
    assert!(QldParams { mu: f32::NAN }.validate().is_err());
    assert!(QldParams { mu: 1000.0 }.validate().is_ok());
}
