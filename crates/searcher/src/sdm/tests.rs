//! The span frequencies against values worked out by hand from Lucene's
//! `NearSpansOrdered`, `NearSpansUnordered`, `SpanScorer` and
//! `ExactPhraseMatcher`, and against brute-force versions; the query
//! structure against Anserini's `SdmQueryGenerator`; a search over an
//! index with positions.

use proptest::prelude::*;

use super::*;
use crate::stats::GlobalStats;
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_format::schema::{Fields, IndexContents, build_schema_with};
use sieve_format::testing;

/// `1/3` as `SpanScorer` adds it to 0.
const THIRD: f32 = (1.0f64 / 3.0) as f32;

#[test]
fn ordered_windows() {
    // Adjacent: width 0.
    assert_eq!(ordered_freq(&[0], &[1], 1), Some(1.0));
    // One position between: width 1.
    assert_eq!(ordered_freq(&[0], &[2], 1), Some(0.5));
    assert_eq!(ordered_freq(&[0], &[3], 1), None);
    assert_eq!(ordered_freq(&[0], &[3], 2), Some(THIRD));
    // Wrong order never matches.
    assert_eq!(ordered_freq(&[5], &[4], 1), None);
    // Two positions of `a` share one `b`: 0.5 + 1.
    assert_eq!(ordered_freq(&[0, 1], &[2], 1), Some(1.5));
    // The window (a, a) in "a a a": 0→1, 1→2, then 2 has no successor.
    assert_eq!(ordered_freq(&[0, 1, 2], &[0, 1, 2], 1), Some(2.0));
    assert_eq!(ordered_freq(&[0, 2], &[0, 2], 1), Some(0.5));
    // `b`'s cursor runs out: the later `a` positions are not tried.
    assert_eq!(ordered_freq(&[0, 7], &[1], 1), Some(1.0));
    assert_eq!(ordered_freq(&[], &[1], 1), None);
}

#[test]
fn unordered_windows() {
    // Adjacent either way: width 2 (maxEnd − start), 1/3.
    assert_eq!(unordered_freq(&[0], &[1], 8), Some(THIRD));
    assert_eq!(unordered_freq(&[1], &[0], 8), Some(THIRD));
    // Nine apart is the widest slop 8 allows: maxEnd 10 − 0 − 2 = 8.
    assert_eq!(unordered_freq(&[0], &[9], 8), Some((1.0f64 / 11.0) as f32));
    assert_eq!(unordered_freq(&[0], &[10], 8), None);
    // a@0 b@3 (width 4), then a@5 b@3 (width 3).
    let expected = (f64::from(0.2f32) + 0.25) as f32;
    assert_eq!(unordered_freq(&[0, 5], &[3], 8), Some(expected));
    // (a, a) in "a a": both at 0 (width 1: 1/2), a@1 b@0 (width 2: 1/3),
    // both at 1 (width 1: 1/2), then b runs out.
    let expected = (f64::from((0.5f64 + 1.0 / 3.0) as f32) + 0.5) as f32;
    assert_eq!(unordered_freq(&[0, 1], &[0, 1], 8), Some(expected));
    // Once the top term runs out the document is done, even if the other
    // term has a later position that would match.
    assert_eq!(unordered_freq(&[0], &[20, 21], 8), None);
    assert_eq!(unordered_freq(&[], &[0], 8), None);
}

#[test]
fn phrases() {
    let a: &[u32] = &[0, 3];
    let b: &[u32] = &[1, 5];
    assert_eq!(phrase_freq(&[(a, 0), (b, 1)]), 1);
    assert_eq!(phrase_freq(&[(a, 0), (b, 2)]), 1);
    assert_eq!(phrase_freq(&[(b, 0), (a, 1)]), 0);
    let aaa: &[u32] = &[0, 1, 2];
    assert_eq!(phrase_freq(&[(aaa, 0), (aaa, 1)]), 2);
    assert_eq!(phrase_freq(&[(aaa, 0), (aaa, 1), (aaa, 2)]), 1);
    assert_eq!(phrase_freq(&[(aaa, 0), (&[], 1)]), 0);
}

/// Ordered windows by definition: each position of `a` pairs with the
/// first position of `b` after it, searched from scratch.
fn ordered_brute(pa: &[u32], pb: &[u32], slop: u32) -> Option<f32> {
    let mut freq = 0.0f32;
    let mut matched = false;
    for &p in pa {
        let Some(&q) = pb.iter().filter(|&&q| q > p).min() else {
            break;
        };
        if q - p - 1 <= slop {
            freq = (f64::from(freq) + 1.0 / (1.0 + f64::from(q - p - 1))) as f32;
            matched = true;
        }
    }
    matched.then_some(freq)
}

/// Unordered windows as a queue of sub-spans: the end recomputed from
/// every current position at each step, the top the least current
/// position (the current top kept on a tie).
fn unordered_brute(pa: &[u32], pb: &[u32], slop: u32) -> Option<f32> {
    let lists = [pa, pb];
    if lists.iter().any(|l| l.is_empty()) {
        return None;
    }
    let mut at = [0usize; 2];
    let cur = |at: &[usize; 2], c: usize| lists[c][at[c]];
    let mut top = if cur(&at, 1) < cur(&at, 0) { 1 } else { 0 };
    let mut seen_end = 0;
    let mut freq = 0.0f32;
    let mut matched = false;
    loop {
        let end = (0..2).map(|c| cur(&at, c) + 1).max().unwrap();
        seen_end = seen_end.max(end);
        assert_eq!(seen_end, end, "the greatest end is the current one");
        let start = cur(&at, top);
        if end as i64 - start as i64 - 2 <= slop as i64 {
            freq = (f64::from(freq) + 1.0 / (1.0 + f64::from(end - start))) as f32;
            matched = true;
        }
        at[top] += 1;
        if at[top] == lists[top].len() {
            break;
        }
        let other = 1 - top;
        if cur(&at, other) < cur(&at, top) {
            top = other;
        }
    }
    matched.then_some(freq)
}

fn phrase_brute(parts: &[(&[u32], u32)]) -> u32 {
    (0..64u32)
        .filter(|&s| parts.iter().all(|(p, o)| p.contains(&(s + o))))
        .count() as u32
}

fn positions() -> impl Strategy<Value = Vec<u32>> {
    proptest::collection::btree_set(0u32..40, 0..12).prop_map(|s| s.into_iter().collect())
}

proptest! {
    #[test]
    fn windows_equal_their_brute_force(a in positions(), b in positions(), slop in 0u32..10) {
        prop_assert_eq!(ordered_freq(&a, &b, slop), ordered_brute(&a, &b, slop));
        prop_assert_eq!(unordered_freq(&a, &b, slop), unordered_brute(&a, &b, slop));
        // A term with itself.
        prop_assert_eq!(ordered_freq(&a, &a, slop), ordered_brute(&a, &a, slop));
        prop_assert_eq!(unordered_freq(&a, &a, slop), unordered_brute(&a, &a, slop));
    }

    #[test]
    fn phrases_equal_their_brute_force(a in positions(), b in positions(), gap in 1u32..4) {
        let parts: [(&[u32], u32); 2] = [(&a, 0), (&b, gap)];
        prop_assert_eq!(phrase_freq(&parts), phrase_brute(&parts));
        let three: [(&[u32], u32); 3] = [(&a, 0), (&b, gap), (&a, gap + 1)];
        prop_assert_eq!(phrase_freq(&three), phrase_brute(&three));
    }
}

fn strings(s: &[&str]) -> Vec<String> {
    s.iter().map(|t| t.to_string()).collect()
}

#[test]
fn sdm_query_is_anserinis() {
    let q = PositionalQuery::sdm(&strings(&["a"]), SdmWeights::ANSERINI);
    assert_eq!(
        q.groups,
        [Group {
            clauses: vec![(Clause::Term(0), 1.0)]
        }]
    );
    assert!(PositionalQuery::sdm(&[], SdmWeights::ANSERINI).is_empty());
    // "a b a b": a and b twice, the window (a, b) twice, (b, a) once.
    let q = PositionalQuery::sdm(&strings(&["a", "b", "a", "b"]), SdmWeights::ANSERINI);
    assert_eq!(q.terms, ["a", "b"]);
    assert_eq!(
        q.groups[0].clauses,
        [(Clause::Term(0), 1.7), (Clause::Term(1), 1.7)]
    );
    let o = |first, second| Clause::Ordered {
        first,
        second,
        slop: 1,
    };
    assert_eq!(q.groups[1].clauses, [(o(0, 1), 0.2), (o(1, 0), 0.1)]);
    let u = |first, second| Clause::Unordered {
        first,
        second,
        slop: 8,
    };
    assert_eq!(q.groups[2].clauses, [(u(0, 1), 0.1), (u(1, 0), 0.05)]);
}

fn positional_index(bodies: &[&str]) -> Shard {
    let schema = build_schema_with(IndexContents { positions: true });
    let docs = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| testing::doc(&format!("doc-{i}"), b));
    let index = testing::write_docs(tantivy::Index::create_in_ram(schema.clone()), docs, 2);
    Shard {
        name: "mem".into(),
        dir: std::path::PathBuf::new(),
        searcher: index.reader().unwrap().searcher(),
        fields: Fields::from_schema(&schema).unwrap(),
        bounds: Vec::new(),
        docid_columns: Default::default(),
        token_totals: None,
    }
}

#[test]
fn proximity_orders_documents_with_equal_term_scores() {
    let shard = positional_index(&[
        "white house garden party",
        "house of the white garden",
        "white garden, party house",
        "nothing here",
    ]);
    let shards = [shard];
    let stats = GlobalStats::new(&shards);
    let v = PositionalVariant {
        params: Bm25Params::ANSERINI,
        stats: &stats,
        subset: None,
    };
    let tokens = EnglishAnalyzer::new(AnalyzerConfig::default()).terms("white house");
    let q = PositionalQuery::sdm(&tokens, SdmWeights::ANSERINI);
    let hits = search_positional(&shards, TextField::Body, &q, &[v], 10).unwrap();
    let ids: Vec<&str> = hits[0].iter().map(|h| h.docid.as_str()).collect();
    // Same length, same term frequencies: "white house" adjacent first,
    // then "house … white" (within 8, unordered only), then the rest.
    assert_eq!(ids[0], "doc-0");
    assert_eq!(ids.len(), 3);
    assert!(hits[0][0].score > hits[0][1].score);
    // Phrases: only doc-0 has "white house".
    let bag = BagOfWords::from_terms(tokens.clone());
    let phrase = vec![(tokens[0].clone(), 0), (tokens[1].clone(), 1)];
    let q = PositionalQuery::bag_with_phrases(&bag, &[phrase]);
    let v = PositionalVariant {
        params: Bm25Params::ANSERINI,
        stats: &stats,
        subset: None,
    };
    let hits = search_positional(&shards, TextField::Body, &q, &[v], 10).unwrap();
    assert_eq!(hits[0][0].docid, "doc-0");
    assert_eq!(hits[0].len(), 3);
}
