//! The scorer against tantivy's own BM25 and against a brute-force oracle.

use super::*;
use crate::stats::{GlobalStats, SubsetStats};
use proptest::prelude::*;
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_format::schema::Fields;
use sieve_format::testing;
use tantivy::collector::TopDocs;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{Index, IndexWriter, Term};

fn analyzer() -> EnglishAnalyzer {
    EnglishAnalyzer::new(AnalyzerConfig::default())
}

/// An in-RAM index of `docs`, committed in `segments` roughly equal
/// segments (never merged).
pub(crate) fn build(docs: &[(String, String)], segments: usize) -> Index {
    let docs = docs.iter().map(|(id, body)| testing::doc(id, body));
    testing::index_in_ram(docs, segments)
}

/// A shard of an in-RAM index (no bounds, no directory); the searcher's
/// other test modules use it too.
pub(crate) fn shard(name: &str, index: &Index) -> Shard {
    Shard {
        name: name.into(),
        dir: std::path::PathBuf::new(),
        searcher: index.reader().unwrap().searcher(),
        fields: Fields::from_schema(&index.schema()).unwrap(),
        bounds: Vec::new(),
        docid_columns: Default::default(),
        token_totals: None,
    }
}

/// Per segment of `s`, the bitmap of the documents whose docid `keep`
/// accepts (the searcher's test modules build their subsets with it).
pub(crate) fn segments_keeping(
    s: &Shard,
    keep: &mut dyn FnMut(&str) -> bool,
) -> Vec<Option<roaring::RoaringBitmap>> {
    let mut buf = String::new();
    s.searcher
        .segment_readers()
        .iter()
        .map(|seg| {
            let ids = seg
                .fast_fields()
                .str(sieve_format::schema::DOCID)
                .unwrap()
                .unwrap();
            let kept: roaring::RoaringBitmap = (0..seg.max_doc())
                .filter(|&doc| {
                    let ord = ids.term_ords(doc).next().unwrap();
                    ids.ord_to_str(ord, &mut buf).unwrap();
                    keep(&buf)
                })
                .collect();
            Some(kept)
        })
        .collect()
}

pub(super) fn query(text: &str) -> BagOfWords {
    BagOfWords::from_terms(analyzer().terms(text))
}

fn run_one(shards: &[Shard], q: &BagOfWords, params: Bm25Params, k: usize) -> Vec<Hit> {
    let stats = GlobalStats::new(shards);
    let v = Variant {
        params,
        stats: &stats,
        subset: None,
    };
    search(shards, TextField::Body, q, &[v], k)
        .unwrap()
        .remove(0)
}

/// One variant per parameter setting, all over `stats` and every document.
fn variants_of<'a>(params: &[Bm25Params], stats: &'a GlobalStats<'a>) -> Vec<Variant<'a>> {
    params
        .iter()
        .map(|&p| Variant {
            params: p,
            stats,
            subset: None,
        })
        .collect()
}

fn docs_of(bodies: &[&str]) -> Vec<(String, String)> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (format!("doc-{i:03}"), (*b).to_string()))
        .collect()
}

const CORPUS: &[&str] = &[
    "the quick brown fox jumps over the lazy dog",
    "a fox a fox a fox",
    "brown bread and brown butter",
    "dogs and foxes are mammals of the order carnivora",
    "lazy afternoon",
    "quick quick quick",
    "nothing relevant here at all, just some words",
    "fox",
    "the dog barks at the brown fox while the other dog sleeps in the sun",
    "bread",
];

#[test]
fn same_ranking_as_tantivy() {
    let index = build(&docs_of(CORPUS), 2);
    let s = shard("one", &index);
    let body = s.fields.body;
    for text in ["fox", "brown fox", "quick lazy dog", "bread butter fox fox"] {
        let q = query(text);
        let ours = run_one(
            std::slice::from_ref(&s),
            &q,
            Bm25Params { k1: 1.2, b: 0.75 },
            100,
        );
        // A repeated query term is one SHOULD clause per occurrence, which
        // is what the qtf factor computes.
        let clauses: Vec<(Occur, Box<dyn Query>)> = q
            .terms
            .iter()
            .flat_map(|(t, qtf)| std::iter::repeat_n(t, *qtf as usize))
            .map(|t| {
                let tq: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(body, t),
                    IndexRecordOption::WithFreqs,
                ));
                (Occur::Should, tq)
            })
            .collect();
        let theirs = s
            .searcher
            .search(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(100).order_by_score(),
            )
            .unwrap();
        assert_eq!(ours.len(), theirs.len(), "{text}");
        let mut theirs_hits: Vec<Hit> = theirs
            .iter()
            .map(|(score, addr)| {
                let seg = s.searcher.segment_reader(addr.segment_ord);
                let id = sieve_format::index::docid_of(seg, addr.doc_id, std::path::Path::new(""))
                    .unwrap();
                Hit {
                    docid: id,
                    score: *score / 2.2,
                }
            })
            .collect();
        theirs_hits.sort_by(trec_order);
        for (a, b) in ours.iter().zip(&theirs_hits) {
            assert_eq!(a.docid, b.docid, "{text}: {ours:?} vs {theirs_hits:?}");
            assert!(
                (a.score - b.score).abs() <= 1e-5 * a.score.abs().max(1.0),
                "{text}"
            );
        }
    }
}

/// Brute force: every document, scored from its stored tokens with the
/// formula in the module docs, sorted by `trec_order`, cut at `k`.
pub(super) fn brute_force(
    docs: &[(String, String)],
    kept: &dyn Fn(usize) -> bool,
    q: &BagOfWords,
    params: Bm25Params,
    k: usize,
) -> Vec<Hit> {
    let corpus = analysed_corpus(docs);
    let kept: Vec<bool> = (0..docs.len()).map(kept).collect();
    let n = kept.iter().filter(|&&x| x).count() as u64;
    let total: u64 = (0..docs.len())
        .filter(|&i| kept[i])
        .map(|i| u64::from(corpus.lens[i]))
        .sum();
    let avgdl = total as f32 / n as f32;
    // Each document's norm; tantivy quantises a length to the largest
    // table value not above it.
    let norm: Vec<f32> = corpus
        .lens
        .iter()
        .map(|&len| {
            let id = (0..=255u8)
                .rev()
                .find(|&id| FieldNormReader::id_to_fieldnorm(id) <= len)
                .unwrap();
            let dl = FieldNormReader::id_to_fieldnorm(id) as f32;
            params.k1 * (1.0 - params.b + params.b * (dl / avgdl))
        })
        .collect();
    // Term by term in query order, so each document's score is summed in
    // the order of the formula.
    let mut score = vec![0.0f32; docs.len()];
    let mut matched = vec![false; docs.len()];
    for (t, qtf) in &q.terms {
        let postings: Vec<(usize, u32)> = corpus
            .postings
            .get(t)
            .map(|p| p.iter().copied().filter(|&(i, _)| kept[i]).collect())
            .unwrap_or_default();
        let w = *qtf as f32 * idf(postings.len() as u64, n);
        for (i, tf) in postings {
            let tf = tf as f32;
            matched[i] = true;
            score[i] += w * (tf / (tf + norm[i]));
        }
    }
    let mut hits: Vec<Hit> = (0..docs.len())
        .filter(|&i| matched[i])
        .map(|i| Hit {
            docid: docs[i].0.clone(),
            score: score[i],
        })
        .collect();
    hits.sort_by(trec_order);
    hits.truncate(k);
    hits
}

/// A corpus as the oracle reads it: each document's analysed length, and
/// for each term the documents it occurs in with its frequency there.
struct Corpus {
    lens: Vec<u32>,
    postings: std::collections::HashMap<String, Vec<(usize, u32)>>,
}

/// Every document of `docs` analysed, once per corpus: the property tests
/// score dozens of queries over one corpus, and analysing it again for
/// each was most of their time. Cached for the last corpus of the thread,
/// keyed by its address, its length and a hash of every 16th document
/// (the tests' corpora are random: two of the same length at the same
/// address differ in the sampled documents).
fn analysed_corpus(docs: &[(String, String)]) -> std::rc::Rc<Corpus> {
    use std::hash::{Hash, Hasher};
    type Cached = Option<(u64, std::rc::Rc<Corpus>)>;
    thread_local! {
        static LAST: std::cell::RefCell<Cached> = const { std::cell::RefCell::new(None) };
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (docs.as_ptr() as usize, docs.len()).hash(&mut h);
    docs.iter().step_by(16).for_each(|d| d.hash(&mut h));
    let key = h.finish();
    if let Some((k, c)) = LAST.with(|l| l.borrow().clone())
        && k == key
    {
        return c;
    }
    let a = analyzer();
    let mut corpus = Corpus {
        lens: Vec::with_capacity(docs.len()),
        postings: std::collections::HashMap::new(),
    };
    for (i, (_, body)) in docs.iter().enumerate() {
        let terms = a.terms(body);
        corpus.lens.push(terms.len() as u32);
        for t in terms {
            let p = corpus.postings.entry(t).or_default();
            match p.last_mut() {
                Some((d, tf)) if *d == i => *tf += 1,
                _ => p.push((i, 1)),
            }
        }
    }
    let corpus = std::rc::Rc::new(corpus);
    LAST.with(|l| *l.borrow_mut() = Some((key, corpus.clone())));
    corpus
}

fn assert_same(ours: &[Hit], want: &[Hit]) {
    let ids = |h: &[Hit]| h.iter().map(|x| x.docid.clone()).collect::<Vec<_>>();
    assert_eq!(ids(ours), ids(want), "\nours {ours:?}\nwant {want:?}");
    for (a, b) in ours.iter().zip(want) {
        assert!(
            (a.score - b.score).abs() <= 1e-5 * b.score.abs().max(1.0),
            "{a:?} vs {b:?}"
        );
    }
}

const VOCAB: &[&str] = &["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"];

fn corpus() -> impl Strategy<Value = Vec<(String, String)>> {
    proptest::collection::vec(proptest::collection::vec(0..VOCAB.len(), 0..40), 1..30).prop_map(
        |docs| {
            docs.into_iter()
                .enumerate()
                .map(|(i, words)| {
                    let body: Vec<&str> = words.into_iter().map(|w| VOCAB[w]).collect();
                    // Docids are not in insertion order, so ties exercise the cut.
                    (format!("d{:02}", (i * 7) % 31), body.join(" "))
                })
                .collect()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn top_k_equals_brute_force(
        docs in corpus(),
        qwords in proptest::collection::vec(0..VOCAB.len(), 1..5),
        segments in 1usize..4,
        k in 1usize..12,
        k1 in 0.0f32..3.0,
        b in 0.0f32..=1.0,
    ) {
        let index = build(&docs, segments);
        let s = shard("s", &index);
        let text: Vec<&str> = qwords.iter().map(|&w| VOCAB[w]).collect();
        let q = query(&text.join(" "));
        let params = Bm25Params { k1, b };
        let ours = run_one(std::slice::from_ref(&s), &q, params, k);
        assert_same(&ours, &brute_force(&docs, &|_| true, &q, params, k));
    }

    #[test]
    fn shards_with_global_stats_equal_one_index(
        docs in corpus(),
        qwords in proptest::collection::vec(0..VOCAB.len(), 1..4),
        cut in 0usize..30,
    ) {
        let text: Vec<&str> = qwords.iter().map(|&w| VOCAB[w]).collect();
        let q = query(&text.join(" "));
        let cut = cut.min(docs.len());
        let whole = build(&docs, 1);
        let a = build(&docs[..cut], 1);
        let b = build(&docs[cut..], 2);
        let single = run_one(&[shard("all", &whole)], &q, Bm25Params::ANSERINI, 10);
        let sharded = run_one(&[shard("a", &a), shard("b", &b)], &q, Bm25Params::ANSERINI, 10);
        assert_same(&sharded, &single);
    }

    #[test]
    fn subset_stats_equal_an_index_of_the_kept_docs(
        docs in corpus(),
        keep in proptest::collection::vec(any::<bool>(), 30),
        qwords in proptest::collection::vec(0..VOCAB.len(), 1..4),
        segments in 1usize..3,
    ) {
        let text: Vec<&str> = qwords.iter().map(|&w| VOCAB[w]).collect();
        let q = query(&text.join(" "));
        let index = build(&docs, segments);
        let s = shard("s", &index);
        // Map each segment's doc ids back to positions in `docs` through the docid field.
        let mut subset: Subset = vec![Vec::new()];
        for seg in s.searcher.segment_readers() {
            let ids = seg.fast_fields().str(sieve_format::schema::DOCID).unwrap().unwrap();
            let mut bitmap = RoaringBitmap::new();
            for doc in 0..seg.max_doc() {
                let ord = ids.term_ords(doc).next().unwrap();
                let mut buf = String::new();
                ids.ord_to_str(ord, &mut buf).unwrap();
                let i = docs.iter().position(|(id, _)| *id == buf).unwrap();
                if keep[i] {
                    bitmap.insert(doc);
                }
            }
            subset[0].push(Some(bitmap));
        }
        let shards = [s];
        let stats = SubsetStats::new(&shards, &subset).unwrap();
        let v = Variant { params: Bm25Params::ANSERINI, stats: &stats, subset: Some(&subset) };
        let ours = search(&shards, TextField::Body, &q, &[v], 10).unwrap().remove(0);
        let kept: Vec<(String, String)> =
            docs.iter().zip(&keep).filter(|(_, k)| **k).map(|(d, _)| d.clone()).collect();
        if kept.is_empty() {
            prop_assert!(ours.is_empty());
        } else {
            let filtered = build(&kept, 1);
            let want = run_one(&[shard("kept", &filtered)], &q, Bm25Params::ANSERINI, 10);
            assert_same(&ours, &want);
        }
    }
}

#[test]
fn ties_break_by_docid_descending_across_segments() {
    // Six identical documents in three segments: all scores tie, so the
    // top 4 are the 4 largest docids, in descending order.
    let docs: Vec<(String, String)> = ["b", "f", "a", "e", "c", "d"]
        .iter()
        .map(|id| ((*id).to_string(), "same words here".to_string()))
        .collect();
    let index = build(&docs, 3);
    let s = shard("s", &index);
    assert_eq!(s.searcher.segment_readers().len(), 3);
    let hits = run_one(&[s], &query("words"), Bm25Params::ANSERINI, 4);
    let ids: Vec<&str> = hits.iter().map(|h| h.docid.as_str()).collect();
    assert_eq!(ids, ["f", "e", "d", "c"]);
}

#[test]
fn many_variants_in_one_pass_equal_separate_runs() {
    let index = build(&docs_of(CORPUS), 2);
    let shards = [shard("s", &index)];
    let stats = GlobalStats::new(&shards);
    let params = [
        Bm25Params { k1: 0.9, b: 0.4 },
        Bm25Params { k1: 1.2, b: 0.75 },
        Bm25Params { k1: 0.0, b: 0.0 },
        Bm25Params { k1: 2.5, b: 1.0 },
    ];
    let variants = variants_of(&params, &stats);
    let q = query("brown fox dog");
    let together = search(&shards, TextField::Body, &q, &variants, 5).unwrap();
    for (p, got) in params.iter().zip(together) {
        assert_eq!(got, run_one(&shards, &q, *p, 5));
    }
}

#[test]
fn invalid_parameters_are_rejected_with_the_value() {
    let err = Bm25Params { k1: -1.0, b: 0.4 }.validate().unwrap_err();
    assert!(err.to_string().contains("-1"), "{err}");
    assert!(Bm25Params { k1: 0.9, b: 1.5 }.validate().is_err());
    assert!(
        Bm25Params {
            k1: f32::NAN,
            b: 0.5
        }
        .validate()
        .is_err()
    );
    assert!(Bm25Params::ANSERINI.validate().is_ok());
}

#[test]
fn unknown_terms_and_empty_queries_give_no_hits() {
    let index = build(&docs_of(CORPUS), 1);
    let shards = [shard("s", &index)];
    assert!(run_one(&shards, &query("zzzz"), Bm25Params::ANSERINI, 10).is_empty());
    assert!(run_one(&shards, &query(""), Bm25Params::ANSERINI, 10).is_empty());
}

/// Segments bigger than the scoring window (4096 docs), with matches spread
/// over many windows and whole windows without any: the top k equals brute
/// force, with exact scores (same terms summed in the same order).
#[test]
fn windowed_scoring_over_many_windows_equals_brute_force() {
    let docs: Vec<(String, String)> = (0..13_000)
        .map(|i: usize| {
            let mut words = Vec::new();
            if i.is_multiple_of(3) {
                words.push("alpha");
            }
            if i.is_multiple_of(7) {
                words.extend(["beta", "beta"]);
            }
            // A rare term, absent from most windows.
            if i % 4500 == 17 {
                words.push("gamma");
            }
            words.push(["delta", "eps", "zeta"][i % 3]);
            (format!("w{:05}", (i * 7919) % 13_000), words.join(" "))
        })
        .collect();
    let index = build(&docs, 2);
    let s = shard("s", &index);
    for text in ["alpha beta gamma", "gamma", "beta eps", "alpha"] {
        let q = query(text);
        for k in [1, 10, 1000, 20_000] {
            let ours = run_one(std::slice::from_ref(&s), &q, Bm25Params::ANSERINI, k);
            let want = brute_force(&docs, &|_| true, &q, Bm25Params::ANSERINI, k);
            assert_eq!(ours.len(), want.len(), "{text} k={k}");
            assert_same(&ours, &want);
            for (a, b) in ours.iter().zip(&want) {
                assert_eq!(a.score.to_bits(), b.score.to_bits(), "{text}: {a:?} {b:?}");
            }
        }
    }
}

/// Deleted documents are never returned (regression guard for the
/// window-at-a-time scorer, which checks the alive bitset per window).
#[test]
fn deleted_documents_are_not_returned() {
    let docs = docs_of(CORPUS);
    let index = build(&docs, 2);
    let fields = Fields::from_schema(&index.schema()).unwrap();
    let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
    writer.delete_term(Term::from_field_text(fields.docid, "doc-007"));
    writer.commit().unwrap();
    let s = shard("s", &index);
    let hits = run_one(
        std::slice::from_ref(&s),
        &query("fox"),
        Bm25Params::ANSERINI,
        100,
    );
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h.docid != "doc-007"), "{hits:?}");
    assert!(hits.iter().any(|h| h.docid == "doc-001"), "{hits:?}");
}

thread_local! {
    /// Windows in which MaxScore skipped at least one term's postings on
    /// this thread (counted by the scorer in test builds), so a test can
    /// show that the pruning really ran.
    pub(super) static PRUNED_WINDOWS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Windows in which some variant took no document because its subset
    /// holds none of the window's (by the membership words' block
    /// summaries) on this thread.
    pub(super) static ABSENT_WINDOWS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Windows skipped whole by block-max bounds on this thread.
    pub(super) static BLOCK_PRUNED_WINDOWS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Windows scored by `documents_one_essential` on this thread.
    pub(super) static ONE_ESSENTIAL_WINDOWS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Windows scored by `documents_summed` on this thread.
    pub(super) static SUMMED_WINDOWS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Windows of a plain query with a single cursor, all essential,
    /// scored by `documents_single` on this thread.
    pub(super) static SINGLE_WINDOWS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Windows of a plain query with several cursors, all essential,
    /// scored by `documents_complete` on this thread.
    pub(super) static COMPLETE_WINDOWS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// MaxScore pruning against brute force: a corpus of several windows with
/// a Zipf-like spread of term frequencies (so common terms become
/// non-essential once the heaps fill), random queries, several k, k1 and b,
/// and several variants in one pass. Top k and scores must be bit-identical.
#[test]
fn maxscore_pruning_equals_brute_force() {
    const WORDS: &[&str] = &[
        "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa",
    ];
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let docs: Vec<(String, String)> = (0..12_000)
        .map(|i| {
            let len = 3 + (next() % 12) as usize;
            let words: Vec<&str> = (0..len)
                .map(|_| {
                    // P(word r) roughly 1/2^(r+1): "alpha" everywhere, "kappa" rare.
                    let r = (next() | (1 << 9)).trailing_zeros() as usize;
                    WORDS[r.min(WORDS.len() - 1)]
                })
                .collect();
            (format!("z{:05}", (i * 7919) % 12_000), words.join(" "))
        })
        .collect();
    let index = build(&docs, 1);
    let s = shard("s", &index);
    let before = PRUNED_WINDOWS.with(|n| n.get());
    let params = [
        Bm25Params::ANSERINI,
        Bm25Params { k1: 1.2, b: 0.75 },
        Bm25Params { k1: 2.5, b: 0.1 },
    ];
    for qi in 0..8 {
        let n = 1 + (next() % 4) as usize;
        let text: Vec<&str> = (0..n).map(|_| WORDS[(next() % 10) as usize]).collect();
        let q = query(&text.join(" "));
        let stats = GlobalStats::new(std::slice::from_ref(&s));
        let vs = variants_of(&params, &stats);
        let k = [1, 7, 40][qi % 3];
        let together = search(std::slice::from_ref(&s), TextField::Body, &q, &vs, k).unwrap();
        for (p, ours) in params.iter().zip(&together) {
            let want = brute_force(&docs, &|_| true, &q, *p, k);
            assert_eq!(ours.len(), want.len(), "{text:?} {p:?} k={k}");
            for (a, b) in ours.iter().zip(&want) {
                assert_eq!(a.docid, b.docid, "{text:?} {p:?} k={k}");
                assert_eq!(a.score.to_bits(), b.score.to_bits(), "{text:?} {p:?}");
            }
        }
    }
    assert!(
        PRUNED_WINDOWS.with(|n| n.get()) > before,
        "no window was pruned: the test does not exercise MaxScore"
    );
}

#[test]
fn capped_bag_keeps_the_first_unique_terms_with_their_counts() {
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let (bag, dropped) = BagOfWords::capped(words("a b a c d b c e"), 2);
    assert_eq!(bag.terms, vec![("a".into(), 2), ("b".into(), 2)]);
    assert_eq!(dropped, 3);
    let (bag, dropped) = BagOfWords::capped(words("a b a"), 5);
    assert_eq!(bag.terms, vec![("a".into(), 2), ("b".into(), 1)]);
    assert_eq!(dropped, 0);
}
