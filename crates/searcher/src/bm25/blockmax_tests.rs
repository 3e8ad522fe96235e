//! Block-max pruning against the scorer without bounds: random k1 (0 to
//! 3, 0 included), b (0, 1 and between), one to three settings in one
//! pass, filters, full, filtered and global statistics (summed over two
//! shards, of all or of the kept documents), k of 1, 10 and 1000, on random
//! indexes of one or two segments with skewed term frequencies and lengths
//! and many ties. Results must be identical: same documents, same order,
//! same score bits. The scorer without bounds reads docids from tantivy's
//! dictionary, the one with bounds from the sidecar's docid table, so the
//! two are compared too; `bm25::tests` compares the scorer with brute force.

use super::tests::{
    ABSENT_WINDOWS, BLOCK_PRUNED_WINDOWS, COMPLETE_WINDOWS, ONE_ESSENTIAL_WINDOWS, PRUNED_WINDOWS,
    SINGLE_WINDOWS, SUMMED_WINDOWS, brute_force, build, query, shard,
};
use super::*;
use crate::stats::{GlobalStats, SubsetStats};
use proptest::prelude::*;
use sieve_format::bounds::segment_payload;
use std::cell::Cell;
use std::thread::LocalKey;
use tantivy::Index;

const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "omega",
];

/// A xorshift generator, so one proptest seed makes a whole corpus.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `n` documents: a third of them one to three words long (many equal
/// lengths), Zipf-like words ("alpha" in most documents, "theta" rare,
/// "omega" never), some with a word repeated up to 40 times, a quarter
/// copies of the previous document (equal scores, ties broken by docid).
fn corpus(seed: u64, n: usize) -> Vec<(String, String)> {
    let mut r = Rng(seed | 1);
    let mut docs: Vec<(String, String)> = Vec::with_capacity(n);
    for i in 0..n {
        // Docids are not in insertion order (100003 is prime).
        let id = format!("x{:06}", (i * 7919) % 100_003);
        if i > 0 && r.below(4) == 0 {
            let body = docs[i - 1].1.clone();
            docs.push((id, body));
            continue;
        }
        let len = if r.below(3) == 0 {
            1 + r.below(3)
        } else {
            3 + r.below(80)
        };
        let mut words: Vec<&str> = (0..len)
            .map(|_| {
                let z = (r.next() | (1 << 7)).trailing_zeros() as usize;
                WORDS[z.min(WORDS.len() - 2)]
            })
            .collect();
        if r.below(5) == 0 {
            let w = WORDS[r.below(WORDS.len() as u64 - 1) as usize];
            words.extend(std::iter::repeat_n(w, 1 + r.below(40) as usize));
        }
        docs.push((id, words.join(" ")));
    }
    docs
}

/// A shard over `index` with the block-max bounds of every segment.
fn with_bounds(name: &str, index: &Index) -> Shard {
    let mut s = shard(name, index);
    let schema = index.schema();
    let path = std::path::Path::new("in-memory");
    s.bounds = s
        .searcher
        .segment_readers()
        .iter()
        .map(|seg| {
            let payload = segment_payload(seg, &schema).unwrap();
            Some(Arc::new(
                SegmentBounds::from_payload(path, &payload, seg, &schema).unwrap(),
            ))
        })
        .collect();
    s
}

/// The same shard without bounds: today's scorer.
fn without_bounds(s: &Shard) -> Shard {
    Shard {
        bounds: Vec::new(),
        ..s.clone()
    }
}

/// One shard of `corpus(seed, n)` in `segments` segments, with its bounds,
/// and the same shard without them (what each variant alone is searched
/// on).
fn bounded_and_plain(seed: u64, n: usize, segments: usize) -> (Vec<Shard>, Vec<Shard>) {
    let shards = vec![with_bounds("s", &build(&corpus(seed, n), segments))];
    let plain = shards.iter().map(without_bounds).collect();
    (shards, plain)
}

/// The documents of every segment of `shards` that `keep` (given the
/// segment's document count and the doc id) keeps.
fn subset_where(shards: &[Shard], mut keep: impl FnMut(u32, u32) -> bool) -> Subset {
    shards
        .iter()
        .map(|s| {
            s.searcher
                .segment_readers()
                .iter()
                .map(|seg| {
                    let m = seg.max_doc();
                    Some((0..m).filter(|&d| keep(m, d)).collect())
                })
                .collect()
        })
        .collect()
}

/// A random subset keeping about `percent` % of every segment.
fn random_subset(shards: &[Shard], seed: u64, percent: u64) -> Subset {
    let mut r = Rng(seed | 1);
    subset_where(shards, |_, _| r.below(100) < percent)
}

/// A query of 1-5 words drawn from `WORDS`.
fn random_query(r: &mut Rng) -> BagOfWords {
    let len = 1 + r.below(5) as usize;
    let text: Vec<&str> = (0..len)
        .map(|_| WORDS[r.below(WORDS.len() as u64) as usize])
        .collect();
    query(&text.join(" "))
}

/// Each variant's hits in `together` (one search of all `vs`) equal those
/// of the variant searched alone in `plain` (no bounds, no membership).
fn assert_each_as_alone(
    together: &[Vec<Hit>],
    vs: &[Variant<'_>],
    plain: &[Shard],
    q: &BagOfWords,
    k: usize,
) {
    for (i, v) in vs.iter().enumerate() {
        let one = Variant {
            params: v.params,
            stats: v.stats,
            subset: v.subset,
        };
        let alone = search(plain, TextField::Body, q, &[one], k).unwrap();
        assert_identical(
            &together[i..=i],
            &alone,
            &format!("variant {i} of {} k={k} {q:?}", vs.len()),
        );
    }
}

fn assert_identical(pruned: &[Vec<Hit>], exhaustive: &[Vec<Hit>], what: &str) {
    assert_eq!(pruned.len(), exhaustive.len());
    for (p, e) in pruned.iter().zip(exhaustive) {
        assert_eq!(p.len(), e.len(), "{what}");
        for (a, b) in p.iter().zip(e) {
            assert_eq!(a.docid, b.docid, "{what}\npruned {p:?}\nexhaustive {e:?}");
            assert_eq!(
                a.score.to_bits(),
                b.score.to_bits(),
                "{what}: {a:?} vs {b:?}"
            );
        }
    }
}

/// How the statistics and filter of a case are chosen.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// One index, statistics of every document.
    Full,
    /// One index, statistics of the documents the filter keeps.
    Filtered,
    /// Two shards, statistics summed over both.
    Global,
    /// Two shards, statistics of the documents the filter keeps in both.
    GlobalFiltered,
}

/// Runs `queries` with and without bounds and compares every variant.
#[allow(clippy::too_many_arguments)]
fn compare(
    bounded: &[Shard],
    mode: Mode,
    subset: Option<&Subset>,
    params: &[Bm25Params],
    queries: &[BagOfWords],
    k: usize,
) {
    let plain: Vec<Shard> = bounded.iter().map(without_bounds).collect();
    for q in queries {
        let run = |shards: &[Shard]| {
            let global = GlobalStats::new(shards);
            let filtered = subset.map(|s| SubsetStats::new(shards, s).unwrap());
            let stats: &dyn Bm25StatisticsProvider = match (&mode, &filtered) {
                (Mode::Filtered | Mode::GlobalFiltered, Some(f)) => f,
                _ => &global,
            };
            let vs: Vec<Variant<'_>> = params
                .iter()
                .map(|&p| Variant {
                    params: p,
                    stats,
                    subset,
                })
                .collect();
            search(shards, TextField::Body, q, &vs, k).unwrap()
        };
        let what = format!(
            "{mode:?} k={k} {params:?} {q:?} filter={}",
            subset.is_some()
        );
        assert_identical(&run(bounded), &run(&plain), &what);
    }
}

fn setting(k1_pick: u8, k1: f32, b_pick: u8, b: f32) -> Bm25Params {
    Bm25Params {
        k1: if k1_pick == 0 { 0.0 } else { k1 },
        b: match b_pick {
            0 => 0.0,
            1 => 1.0,
            _ => b,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn block_max_equals_exhaustive_for_any_k1_b_filter_and_statistics(
        seed in any::<u64>(),
        n in 1500usize..4000,
        segments in 1usize..3,
        mode in 0u8..4,
        k_pick in 0usize..3,
        settings in proptest::collection::vec((0u8..3, 0.0f32..3.0, 0u8..3, 0.0f32..=1.0), 1..4),
        filter in proptest::option::of(10u64..95),
    ) {
        let docs = corpus(seed, n);
        let k = [1, 10, 1000][k_pick];
        let params: Vec<Bm25Params> =
            settings.iter().map(|&(kp, k1, bp, b)| setting(kp, k1, bp, b)).collect();
        let mut r = Rng(seed.rotate_left(17) | 1);
        let queries: Vec<BagOfWords> = (0..4).map(|_| random_query(&mut r)).collect();
        let cut = n / 3;
        let (mode, indexes) = match mode {
            0 => (Mode::Full, vec![build(&docs, segments)]),
            1 => (Mode::Filtered, vec![build(&docs, segments)]),
            2 => (Mode::Global, vec![build(&docs[..cut], 1), build(&docs[cut..], segments)]),
            _ => (
                Mode::GlobalFiltered,
                vec![build(&docs[..cut], 1), build(&docs[cut..], segments)],
            ),
        };
        let shards: Vec<Shard> =
            indexes.iter().enumerate().map(|(i, x)| with_bounds(&format!("s{i}"), x)).collect();
        // The corpus is large enough for bounds to exist.
        prop_assert!(shards.iter().all(|s| s.segments_without_bounds() == 0));
        let filter = match mode {
            Mode::Filtered | Mode::GlobalFiltered => Some(filter.unwrap_or(50)),
            _ => filter,
        };
        let subset = filter.map(|p| random_subset(&shards, seed ^ 0x9e37, p));
        compare(&shards, mode, subset.as_ref(), &params, &queries, k);
    }
}

/// A corpus where the first block holds short documents repeating
/// "alpha", and every later one long documents with one "alpha": once the
/// top 10 is full of first-block documents, the later blocks' bounds are
/// below the threshold for every setting, so whole windows are skipped,
/// and the results still equal brute force and the scorer without bounds.
#[test]
fn block_max_skips_windows_and_equals_brute_force() {
    let docs: Vec<(String, String)> = (0..6000)
        .map(|i| {
            let body = if i < 500 {
                format!(
                    "alpha alpha alpha beta{}",
                    if i % 3 == 0 { " gamma" } else { "" }
                )
            } else {
                let filler = "gamma delta eps zeta eta theta ".repeat(6);
                format!("alpha {filler}{}", if i % 2 == 0 { "beta" } else { "" })
            };
            (format!("y{:05}", (i * 7919) % 100_003), body)
        })
        .collect();
    let index = build(&docs, 1);
    let s = with_bounds("s", &index);
    let shards = std::slice::from_ref(&s);
    let before = BLOCK_PRUNED_WINDOWS.with(|n| n.get());
    let params = [
        Bm25Params::ANSERINI,
        Bm25Params { k1: 0.0, b: 0.0 },
        Bm25Params { k1: 3.0, b: 1.0 },
    ];
    let mut several = 0;
    for text in ["alpha", "alpha beta", "beta alpha gamma"] {
        let q = query(text);
        let skipped = BLOCK_PRUNED_WINDOWS.with(|n| n.get());
        // Three settings in one pass with bounds, and without.
        compare(
            shards,
            Mode::Full,
            None,
            &params,
            std::slice::from_ref(&q),
            10,
        );
        // k1 = 0 scores every document with the term alike: with it no
        // window can be skipped, so the count is taken without it.
        let skipped = BLOCK_PRUNED_WINDOWS.with(|n| n.get()) - skipped;
        let before_graded = BLOCK_PRUNED_WINDOWS.with(|n| n.get());
        compare(
            shards,
            Mode::Full,
            None,
            &[params[0], Bm25Params { k1: 1.2, b: 0.75 }, params[2]],
            std::slice::from_ref(&q),
            10,
        );
        several += skipped + BLOCK_PRUNED_WINDOWS.with(|n| n.get()) - before_graded;
        for p in params {
            let ours = run(shards, &q, p, 10);
            let want = brute_force(&docs, &|_| true, &q, p, 10);
            assert_identical(&[ours], &[want], text);
        }
    }
    assert!(
        BLOCK_PRUNED_WINDOWS.with(|n| n.get()) > before,
        "no window was skipped: the test does not exercise block-max bounds"
    );
    assert!(
        several > 0,
        "no window was skipped with several settings in one pass"
    );
}

/// The plain query's path (one setting, nothing filtered): MaxScore's
/// lookups, the looked-up score tested before the score in term order,
/// the threshold raised after every offer, over three segments with
/// bounds, windows of tied scores (the same few bodies repeated, so that
/// whole windows tie with the threshold) and rarer better documents. Any
/// k gives brute force's documents, order and score bits.
#[test]
fn plain_path_with_ties_across_windows_and_segments_equals_brute_force() {
    let bodies = [
        "alpha beta filler filler filler",
        "alpha filler filler filler filler",
        "beta filler filler filler filler",
        "alpha alpha beta beta gamma",
        "gamma filler",
    ];
    let docs: Vec<(String, String)> = (0..9000)
        .map(|i| {
            // Mostly the tied first three bodies; one in 97 better.
            let body = if i % 97 == 0 {
                bodies[3]
            } else {
                bodies[(i * 31 / 7) % 3]
            };
            let body = if i % 11 == 0 { bodies[4] } else { body };
            (format!("t{:05}", (i * 7919) % 100_003), body.to_string())
        })
        .collect();
    let index = build(&docs, 3);
    let s = with_bounds("s", &index);
    let shards = std::slice::from_ref(&s);
    for text in ["alpha beta", "beta alpha gamma", "alpha", "gamma beta"] {
        let q = query(text);
        for p in [Bm25Params::ANSERINI, Bm25Params { k1: 1.2, b: 0.75 }] {
            for k in [1, 7, 100, 1000] {
                let ours = run(shards, &q, p, k);
                let want = brute_force(&docs, &|_| true, &q, p, k);
                assert_identical(&[ours], &[want], &format!("{text} {p:?} k={k}"));
            }
        }
    }
}

/// Several k1/b settings in one pass, nothing filtered (the lanes path:
/// every group's score side by side, MaxScore and block-max with each
/// group's own bounds and threshold), on the tied windows of
/// `plain_path_with_ties_across_windows_and_segments_equals_brute_force`:
/// 2, 4, 6 and 8 settings, and 9 (more groups than lanes: the general
/// path), each setting's hits identical to brute force's.
#[test]
fn settings_side_by_side_with_ties_equal_brute_force() {
    let bodies = [
        "alpha beta filler filler filler",
        "alpha filler filler filler filler",
        "beta filler filler filler filler",
        "alpha alpha beta beta gamma",
        "gamma filler",
        "alpha gamma gamma filler filler filler filler filler filler",
    ];
    let docs: Vec<(String, String)> = (0..9000)
        .map(|i| {
            let body = match i {
                _ if i % 97 == 0 => bodies[3],
                _ if i % 11 == 0 => bodies[4],
                _ if i % 13 == 0 => bodies[5],
                _ => bodies[(i * 31 / 7) % 3],
            };
            (format!("t{:05}", (i * 7919) % 100_003), body.to_string())
        })
        .collect();
    let index = build(&docs, 3);
    let s = with_bounds("s", &index);
    let shards = std::slice::from_ref(&s);
    let stats = GlobalStats::new(shards);
    let all: Vec<Bm25Params> = [
        (0.9, 0.4),
        (1.2, 0.75),
        (0.0, 0.0),
        (3.0, 1.0),
        (0.5, 0.0),
        (2.0, 0.3),
        (1.2, 0.4),
        (0.9, 0.75),
        (1.6, 1.0),
    ]
    .into_iter()
    .map(|(k1, b)| Bm25Params { k1, b })
    .collect();
    let before = PRUNED_WINDOWS.with(|n| n.get());
    for text in [
        "alpha beta",
        "beta alpha gamma",
        "gamma",
        "gamma beta filler",
    ] {
        let q = query(text);
        let every: Vec<Vec<Hit>> = all
            .iter()
            .map(|&p| brute_force(&docs, &|_| true, &q, p, usize::MAX))
            .collect();
        for count in [2, 4, 6, 8, 9] {
            let params = &all[..count];
            let vs: Vec<Variant<'_>> = params
                .iter()
                .map(|&params| Variant {
                    params,
                    stats: &stats,
                    subset: None,
                })
                .collect();
            for k in [1, 7, 100, 1000] {
                let together = search(shards, TextField::Body, &q, &vs, k).unwrap();
                for ((p, ours), want) in params.iter().zip(together).zip(&every) {
                    let want = want[..k.min(want.len())].to_vec();
                    assert_identical(&[ours], &[want], &format!("{text} {count} {p:?} k={k}"));
                }
            }
        }
    }
    assert!(
        PRUNED_WINDOWS.with(|n| n.get()) > before,
        "no term was ever non-essential: the test does not exercise MaxScore"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    /// Two to nine random k1/b settings (0 and 1 included) in one pass,
    /// nothing filtered, full or global statistics over one or two
    /// shards: each setting's hits equal brute force's (same documents,
    /// order and score bits).
    #[test]
    fn settings_side_by_side_equal_brute_force(
        seed in any::<u64>(),
        n in 1500usize..3500,
        segments in 1usize..3,
        two_shards in any::<bool>(),
        k_pick in 0usize..3,
        settings in proptest::collection::vec((0u8..3, 0.0f32..3.0, 0u8..3, 0.0f32..=1.0), 2..10),
    ) {
        let docs = corpus(seed, n);
        let k = [1, 10, 1000][k_pick];
        let params: Vec<Bm25Params> =
            settings.iter().map(|&(kp, k1, bp, b)| setting(kp, k1, bp, b)).collect();
        let cut = n / 3;
        let indexes = if two_shards {
            vec![build(&docs[..cut], 1), build(&docs[cut..], segments)]
        } else {
            vec![build(&docs, segments)]
        };
        let shards: Vec<Shard> =
            indexes.iter().enumerate().map(|(i, x)| with_bounds(&format!("s{i}"), x)).collect();
        let stats = GlobalStats::new(&shards);
        let vs: Vec<Variant<'_>> = params
            .iter()
            .map(|&params| Variant { params, stats: &stats, subset: None })
            .collect();
        let mut r = Rng(seed.rotate_left(41) | 1);
        for _ in 0..3 {
            let q = random_query(&mut r);
            let together = search(&shards, TextField::Body, &q, &vs, k).unwrap();
            for (p, ours) in params.iter().zip(together) {
                let want = brute_force(&docs, &|_| true, &q, *p, k);
                assert_identical(&[ours], &[want], &format!("{p:?} k={k} {q:?}"));
            }
        }
    }
}

fn run(shards: &[Shard], q: &BagOfWords, params: Bm25Params, k: usize) -> Vec<Hit> {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Variants grouped by identical weights (see [`Groups`]): a sweep's
    /// settings (equal k1/b and full statistics, each with its own
    /// subset, one with none), mixed with other k1/b and with filtered
    /// statistics that differ per variant, all in one pass. Every
    /// variant's hits must equal those of the variant searched alone
    /// without bounds (the exhaustive scorer, itself checked against
    /// brute force in `bm25::tests`): same documents, order, score bits.
    #[test]
    fn shared_scores_of_equal_weights_equal_each_variant_alone(
        seed in any::<u64>(),
        n in 1500usize..3500,
        segments in 1usize..3,
        k_pick in 0usize..3,
        percents in proptest::collection::vec(5u64..100, 1..5),
        other in (0.0f32..3.0, 0.0f32..=1.0),
        filtered_pick in proptest::collection::vec(any::<bool>(), 5),
    ) {
        let k = [1, 10, 1000][k_pick];
        let (shards, plain) = bounded_and_plain(seed, n, segments);
        let subsets: Vec<Subset> = percents
            .iter()
            .enumerate()
            .map(|(i, &p)| random_subset(&shards, seed ^ ((i as u64 + 1) * 0x9e37), p))
            .collect();
        let global = GlobalStats::new(&shards);
        let filtered: Vec<SubsetStats> =
            subsets.iter().map(|s| SubsetStats::new(&shards, s).unwrap()).collect();
        let (p, q_params) = (
            Bm25Params::ANSERINI,
            Bm25Params { k1: other.0, b: other.1 },
        );
        // Unfiltered; each subset with full statistics (one group with
        // the unfiltered variant); each subset with its filtered
        // statistics where picked; the subsets again with other k1/b;
        // a duplicate of the first variant.
        let mut vs: Vec<Variant<'_>> = vec![Variant { params: p, stats: &global, subset: None }];
        for (i, s) in subsets.iter().enumerate() {
            vs.push(Variant { params: p, stats: &global, subset: Some(s) });
            if filtered_pick[i] {
                vs.push(Variant { params: p, stats: &filtered[i], subset: Some(s) });
            }
            vs.push(Variant { params: q_params, stats: &global, subset: Some(s) });
        }
        vs.push(Variant { params: p, stats: &global, subset: None });
        let mut r = Rng(seed.rotate_left(29) | 1);
        for _ in 0..3 {
            let q = random_query(&mut r);
            let together = search(&shards, TextField::Body, &q, &vs, k).unwrap();
            assert_each_as_alone(&together, &vs, &plain, &q, k);
        }
    }
}

/// Grouping: equal weights share a group whatever the subset; another
/// k1/b, or statistics giving another df or N, make another group.
#[test]
fn groups_are_variants_with_bit_identical_weights() {
    let docs = corpus(7, 600);
    let shards = vec![shard("s", &build(&docs, 1))];
    let global = GlobalStats::new(&shards);
    let subset = random_subset(&shards, 3, 40);
    let filtered = SubsetStats::new(&shards, &subset).unwrap();
    let p = Bm25Params::ANSERINI;
    let vs = [
        Variant {
            params: p,
            stats: &global,
            subset: None,
        },
        Variant {
            params: p,
            stats: &global,
            subset: Some(&subset),
        },
        Variant {
            params: p,
            stats: &filtered,
            subset: Some(&subset),
        },
        Variant {
            params: Bm25Params { k1: 1.2, b: 0.75 },
            stats: &global,
            subset: None,
        },
        Variant {
            params: p,
            stats: &filtered,
            subset: None,
        },
    ];
    let field = shards[0].fields.text(TextField::Body);
    let terms: Vec<(Term, Score)> = query("alpha beta")
        .terms
        .iter()
        .map(|(t, q)| (Term::from_field_text(field, t), *q as Score))
        .collect();
    let weights = vs
        .iter()
        .map(|v| Weights::new(v, field, &terms, Idf::Lucene).unwrap())
        .collect();
    let groups = Groups::new(weights);
    assert_eq!(groups.of, [Some(0), Some(0), Some(1), Some(2), Some(1)]);
    assert_eq!(groups.weights.len(), 3);
}

/// A sweep's variants with `p` and full statistics: the unfiltered run,
/// then one per subset, each with the subset it reads (`None`: every
/// document).
fn sweep_variants<'a>(
    p: Bm25Params,
    global: &'a GlobalStats<'a>,
    subsets: &'a [Subset],
) -> (Vec<Variant<'a>>, Vec<Option<usize>>) {
    let all = std::iter::once(None).chain(subsets.iter().map(Some));
    let vs = all
        .map(|subset| Variant {
            params: p,
            stats: global,
            subset,
        })
        .collect();
    let of = std::iter::once(None)
        .chain((0..subsets.len()).map(Some))
        .collect();
    (vs, of)
}

/// The documents of each segment whose value, falling from 99 at its first
/// doc id to 0 at its last, is at least `min`: a prefix of the segment, as
/// a spam threshold's documents are in an index ordered by spam percentile
/// (`sieve-index reorder --by-spam`).
fn prefix_subset(shards: &[Shard], min: u64) -> Subset {
    subset_where(shards, |m, d| 99 - u64::from(d) * 100 / u64::from(m) >= min)
}

/// The documents whose per-document value (a hash of `seed` and the doc
/// id, 0-99, like a spam percentile) is at least `min`: subsets made with
/// one `seed` and rising `min` are nested, as a sweep's are.
fn threshold_subset(shards: &[Shard], seed: u64, min: u64) -> Subset {
    subset_where(shards, |_, d| {
        let h = (u64::from(d) ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 40) % 100 >= min
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// A batch's membership words ([`Membership`]) instead of the
    /// bitmaps: a sweep of nested thresholds with full statistics (one
    /// group: the direct paths, each document's threshold from its word
    /// through the cache of effective thresholds), random subsets, some variants with other k1/b or
    /// filtered statistics (several groups), with and without bounds.
    /// Every variant's hits must equal those of the variant searched
    /// alone, without bounds or membership: same documents, order, score
    /// bits.
    #[test]
    fn membership_words_give_the_hits_of_each_variant_alone(
        seed in any::<u64>(),
        n in 1500usize..3500,
        segments in 1usize..3,
        k_pick in 0usize..3,
        mins in proptest::collection::vec(0u64..100, 1..12),
        randoms in proptest::collection::vec(5u64..100, 0..3),
        several_groups in any::<bool>(),
        other in (0.0f32..3.0, 0.0f32..=1.0),
        in_spam_order in any::<bool>(),
    ) {
        let k = [1, 10, 1000][k_pick];
        let (shards, plain) = bounded_and_plain(seed, n, segments);
        let mut mins = mins;
        mins.sort_unstable();
        let mut subsets: Vec<Subset> = mins
            .iter()
            .map(|&m| {
                if in_spam_order {
                    prefix_subset(&shards, m)
                } else {
                    threshold_subset(&shards, seed, m)
                }
            })
            .collect();
        subsets.extend(
            randoms
                .iter()
                .enumerate()
                .map(|(i, &p)| random_subset(&shards, seed ^ ((i as u64 + 7) * 0x9e37), p)),
        );
        let global = GlobalStats::new(&shards);
        let filtered = SubsetStats::new(&shards, &subsets[0]).unwrap();
        let p = Bm25Params::ANSERINI;
        // The unfiltered variant, then every selection; with
        // `several_groups`, the first selection again with other k1/b and
        // with its filtered statistics.
        let (mut vs, mut of) = sweep_variants(p, &global, &subsets);
        if several_groups {
            let q_params = Bm25Params { k1: other.0, b: other.1 };
            vs.push(Variant { params: q_params, stats: &global, subset: Some(&subsets[0]) });
            of.push(Some(0));
            vs.push(Variant { params: p, stats: &filtered, subset: Some(&subsets[0]) });
            of.push(Some(0));
        }
        let membership = Membership::new(&shards, &subsets).unwrap();
        let mut r = Rng(seed.rotate_left(17) | 1);
        for _ in 0..3 {
            let q = random_query(&mut r);
            for searched in [&shards, &plain] {
                let together = search_with(
                    searched,
                    TextField::Body,
                    &q,
                    &vs,
                    k,
                    Some((&membership, &of)),
                )
                .unwrap();
                assert_each_as_alone(&together, &vs, &plain, &q, k);
            }
        }
    }
}

/// A sweep through membership words (ten nested spam-like thresholds and
/// the unfiltered run, full statistics: several variants of one group)
/// takes each direct path (one essential term, several summed, a single
/// cursor, every term essential), with each document's own threshold
/// from its word, and every variant's hits equal those of the variant
/// searched alone without bounds or membership.
#[test]
fn a_sweep_through_membership_words_takes_the_direct_paths() {
    let counters = [
        (&ONE_ESSENTIAL_WINDOWS, "one essential"),
        (&SUMMED_WINDOWS, "summed"),
        (&SINGLE_WINDOWS, "single"),
        (&COMPLETE_WINDOWS, "complete"),
    ];
    let count = || counters.map(|(c, _)| c.with(Cell::get));
    // Windows of each path in the sweeps alone (each variant searched
    // alone takes the direct paths too).
    let mut taken = [0u64; 4];
    for (seed, bounds) in [(1, true), (2, false), (3, true), (4, false)] {
        let (shards, plain) = bounded_and_plain(seed, 5000, 2);
        let subsets: Vec<Subset> = (0..10)
            .map(|i| threshold_subset(&shards, seed, 5 + 10 * i))
            .collect();
        let global = GlobalStats::new(&shards);
        let p = Bm25Params::ANSERINI;
        let (vs, of) = sweep_variants(p, &global, &subsets);
        let membership = Membership::new(&shards, &subsets).unwrap();
        let searched = if bounds { &shards } else { &plain };
        for q in mixed_queries(seed) {
            for k in [10, 1000] {
                let before = count();
                let together = search_with(
                    searched,
                    TextField::Body,
                    &q,
                    &vs,
                    k,
                    Some((&membership, &of)),
                )
                .unwrap();
                for ((t, after), b) in taken.iter_mut().zip(count()).zip(before) {
                    *t += after - b;
                }
                assert_each_as_alone(&together, &vs, &plain, &q, k);
            }
        }
    }
    for ((_, name), t) in counters.iter().zip(taken) {
        assert!(t > 0, "no window of a sweep took the {name} path");
    }
}

/// A sweep on an index in spam order (each threshold's documents a prefix
/// of every segment), with full statistics (one group) and with filtered
/// statistics (a group per variant), with and without block-max bounds:
/// windows that hold none of a strict variant's documents leave that
/// variant's threshold out of their pruning, and every variant's hits
/// equal those of the variant searched alone.
#[test]
fn a_sweep_in_spam_order_prunes_without_the_variants_a_window_lacks() {
    let mut absent = 0;
    for (seed, bounds) in [(11, true), (12, false), (13, true)] {
        let (shards, plain) = bounded_and_plain(seed, 6000, 2);
        let subsets: Vec<Subset> = (0..10)
            .map(|i| prefix_subset(&shards, 5 + 10 * i))
            .collect();
        let global = GlobalStats::new(&shards);
        let filtered: Vec<SubsetStats> = subsets
            .iter()
            .map(|s| SubsetStats::new(&shards, s).unwrap())
            .collect();
        let p = Bm25Params::ANSERINI;
        let (full, of) = sweep_variants(p, &global, &subsets);
        let (mut own, _) = sweep_variants(p, &global, &subsets);
        for (v, stats) in own.iter_mut().skip(1).zip(&filtered) {
            v.stats = stats;
        }
        let membership = Membership::new(&shards, &subsets).unwrap();
        let searched = if bounds { &shards } else { &plain };
        for vs in [&full, &own] {
            for q in mixed_queries(seed) {
                for k in [10, 1000] {
                    let before = ABSENT_WINDOWS.with(Cell::get);
                    let together = search_with(
                        searched,
                        TextField::Body,
                        &q,
                        vs,
                        k,
                        Some((&membership, &of)),
                    )
                    .unwrap();
                    absent += ABSENT_WINDOWS.with(Cell::get) - before;
                    assert_each_as_alone(&together, vs, &plain, &q, k);
                }
            }
        }
    }
    assert!(
        absent > 0,
        "no window left out a variant it holds no document of"
    );
}

/// A plain query (one setting, nothing filtered) on random indexes, with
/// and without block-max bounds, any k1/b, k from 1 to 1000: brute force's
/// documents, order and score bits. Windows with a single essential term
/// (a rare word beside common ones) take the scorer's direct path over
/// that term's postings (`documents_one_essential`), whose windows end
/// mid-block, at a list's end and past it.
fn plain_equals_brute_force(seed: u64, n: usize, segments: usize, bounds: bool, p: Bm25Params) {
    let mut r = Rng(seed.rotate_left(9) | 1);
    let mut queries: Vec<BagOfWords> = (0..3).map(|_| random_query(&mut r)).collect();
    queries.extend(["theta alpha", "eta beta alpha", "zeta gamma", "omega alpha"].map(query));
    plain_queries_equal_brute_force(seed, n, segments, bounds, p, &queries);
}

/// [`plain_equals_brute_force`] for the given queries.
fn plain_queries_equal_brute_force(
    seed: u64,
    n: usize,
    segments: usize,
    bounds: bool,
    p: Bm25Params,
    queries: &[BagOfWords],
) {
    let docs = corpus(seed, n);
    let index = build(&docs, segments);
    let s = if bounds {
        with_bounds("s", &index)
    } else {
        shard("s", &index)
    };
    let shards = std::slice::from_ref(&s);
    for q in queries {
        for k in [1, 10, 100, 1000] {
            let ours = run(shards, q, p, k);
            let want = brute_force(&docs, &|_| true, q, p, k);
            assert_identical(
                &[ours],
                &[want],
                &format!("seed {seed} n {n} bounds {bounds} {p:?} k={k} {q:?}"),
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn plain_query_with_one_essential_term_equals_brute_force(
        seed in any::<u64>(),
        n in 1500usize..6000,
        segments in 1usize..3,
        bounds in any::<bool>(),
        k1_pick in 0u8..3,
        k1 in 0.0f32..3.0,
        b_pick in 0u8..3,
        b in 0.0f32..=1.0,
    ) {
        plain_equals_brute_force(seed, n, segments, bounds, setting(k1_pick, k1, b_pick, b));
    }
}

/// A scorer path's window counter (see `bm25::tests`) and its name.
type PathCounter = (&'static LocalKey<Cell<u64>>, &'static str);

/// Runs `check(seed, bounds)` for seeds 1 to 4 (with bounds, without,
/// alternately) and asserts that each counter rose: the paths a property
/// test is about really run on its corpora (else it would not test them).
fn assert_paths_run(counters: &[PathCounter], check: impl Fn(u64, bool)) {
    let before: Vec<u64> = counters.iter().map(|(c, _)| c.with(Cell::get)).collect();
    for (seed, bounds) in [(1, true), (2, false), (3, true), (4, false)] {
        check(seed, bounds);
    }
    for ((c, name), b) in counters.iter().zip(before) {
        assert!(c.with(Cell::get) > b, "no window took the {name} path");
    }
}

/// The direct path of single-essential windows really runs on the
/// corpora of the property test above.
#[test]
fn one_essential_term_windows_are_scored_directly_and_equal_brute_force() {
    assert_paths_run(
        &[(&ONE_ESSENTIAL_WINDOWS, "single-essential")],
        |seed, bounds| plain_equals_brute_force(seed, 5000, 2, bounds, Bm25Params::ANSERINI),
    );
}

/// Three to six distinct words of the corpus, some repeated (`qtf` > 1):
/// queries whose windows often have two or more essential terms beside
/// non-essential ones.
fn long_query(r: &mut Rng) -> BagOfWords {
    let len = 3 + r.below(4) as usize;
    let mut words: Vec<&str> = Vec::with_capacity(len + 1);
    while words.len() < len {
        let w = WORDS[r.below(WORDS.len() as u64 - 1) as usize];
        if !words.contains(&w) {
            words.push(w);
        }
    }
    if r.below(3) == 0 {
        words.push(words[0]);
    }
    query(&words.join(" "))
}

/// Queries of three to six terms, and fixed ones with two or three rare
/// terms beside common ones.
fn long_queries(seed: u64) -> Vec<BagOfWords> {
    let mut r = Rng(seed.rotate_left(23) | 1);
    let mut queries: Vec<BagOfWords> = (0..4).map(|_| long_query(&mut r)).collect();
    queries.extend(
        [
            "eta theta alpha beta",
            "zeta eta theta alpha beta gamma",
            "delta eps zeta eta",
        ]
        .map(query),
    );
    queries
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Windows with two or more essential terms and MaxScore's lookups
    /// (`documents_summed`): brute force's documents, order and score bits.
    #[test]
    fn plain_query_with_several_essential_terms_equals_brute_force(
        seed in any::<u64>(),
        n in 1500usize..6000,
        segments in 1usize..3,
        bounds in any::<bool>(),
        k1_pick in 0u8..3,
        k1 in 0.0f32..3.0,
        b_pick in 0u8..3,
        b in 0.0f32..=1.0,
    ) {
        let p = setting(k1_pick, k1, b_pick, b);
        plain_queries_equal_brute_force(seed, n, segments, bounds, p, &long_queries(seed));
    }
}

/// The summed path of windows with several essential terms really runs
/// on the corpora of the property test above.
#[test]
fn several_essential_term_windows_are_summed_and_equal_brute_force() {
    assert_paths_run(&[(&SUMMED_WINDOWS, "summed")], |seed, bounds| {
        let queries = long_queries(seed);
        plain_queries_equal_brute_force(seed, 5000, 2, bounds, Bm25Params::ANSERINI, &queries)
    });
}

/// One- to three-term queries: one-term queries (every window with its
/// single cursor, `documents_single`), and two or three terms, frequent or
/// rare, some repeated, whose windows before a threshold (and those where
/// every term's bound is needed) have every term essential
/// (`documents_complete`).
fn short_queries(seed: u64) -> Vec<BagOfWords> {
    let mut r = Rng(seed.rotate_left(41) | 1);
    let mut queries: Vec<BagOfWords> = (0..3)
        .map(|_| {
            let len = 1 + r.below(3) as usize;
            let text: Vec<&str> = (0..len)
                .map(|_| WORDS[r.below(WORDS.len() as u64 - 1) as usize])
                .collect();
            query(&text.join(" "))
        })
        .collect();
    queries.extend(
        [
            "alpha",
            "theta",
            "alpha beta",
            "beta beta gamma",
            "eta theta",
            "alpha gamma zeta",
        ]
        .map(query),
    );
    queries
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Windows of a plain query in which every term is essential
    /// (`documents_single`, `documents_complete`): brute force's
    /// documents, order and score bits.
    #[test]
    fn plain_query_with_every_term_essential_equals_brute_force(
        seed in any::<u64>(),
        n in 1500usize..6000,
        segments in 1usize..3,
        bounds in any::<bool>(),
        k1_pick in 0u8..3,
        k1 in 0.0f32..3.0,
        b_pick in 0u8..3,
        b in 0.0f32..=1.0,
    ) {
        let p = setting(k1_pick, k1, b_pick, b);
        plain_queries_equal_brute_force(seed, n, segments, bounds, p, &short_queries(seed));
    }
}

/// Both paths of windows with every term essential really run on the
/// corpora of the property test above.
#[test]
fn every_term_essential_windows_are_summed_and_equal_brute_force() {
    let counters = [
        (&SINGLE_WINDOWS, "single-cursor"),
        (&COMPLETE_WINDOWS, "every-term-essential summed"),
    ];
    assert_paths_run(&counters, |seed, bounds| {
        let queries = short_queries(seed);
        plain_queries_equal_brute_force(seed, 5000, 2, bounds, Bm25Params::ANSERINI, &queries)
    });
}

/// Whether document `i` of a corpus is kept by the filter of `seed` that
/// keeps about `percent` % of the documents.
fn kept_by(seed: u64, percent: u64, i: usize) -> bool {
    let mut r = Rng((seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1);
    r.next();
    r.below(100) < percent
}

/// The subset of `s`'s documents whose position in `docs` (found through
/// the docid field) `keep` accepts.
fn subset_of(s: &Shard, docs: &[(String, String)], keep: &dyn Fn(usize) -> bool) -> Subset {
    let position: std::collections::HashMap<&str, usize> = docs
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (id.as_str(), i))
        .collect();
    vec![super::tests::segments_keeping(s, &mut |id| {
        keep(position[id])
    })]
}

/// How a filter reaches the scorer in [`filtered_queries_equal_brute_force`].
#[derive(Debug, Clone, Copy)]
struct FilterCase {
    /// About this % of the documents kept.
    percent: u64,
    /// Filtered statistics (else full).
    filtered_stats: bool,
    /// Through a batch's membership words (the filter the second of two
    /// selections, as `sieve-search run` prepares them), else the bitmap.
    words: bool,
}

/// One setting with a filter (one variant with a subset: the direct paths,
/// which test the filter on a document that reaches the threshold), with
/// filtered or full statistics, from a bitmap or membership words, on a
/// random index with or without bounds, k from 1 to 1000: brute force's
/// documents, order and score bits. Brute force with filtered statistics
/// scores the kept documents alone; with full statistics it scores every
/// document and the ones the filter drops are then removed from its
/// ranking.
fn filtered_queries_equal_brute_force(
    seed: u64,
    n: usize,
    segments: usize,
    bounds: bool,
    p: Bm25Params,
    case: FilterCase,
    queries: &[BagOfWords],
) {
    let FilterCase {
        percent,
        filtered_stats,
        words,
    } = case;
    let docs = corpus(seed, n);
    let index = build(&docs, segments);
    let s = if bounds {
        with_bounds("s", &index)
    } else {
        shard("s", &index)
    };
    let keep = |i: usize| kept_by(seed, percent, i);
    let subset = subset_of(&s, &docs, &keep);
    let shards = std::slice::from_ref(&s);
    let other = subset_of(&s, &docs, &|i| kept_by(seed ^ 1, 50, i));
    let membership = Membership::new(shards, &[other, subset.clone()]).unwrap();
    let of = [Some(1)];
    let global = GlobalStats::new(shards);
    let filtered = SubsetStats::new(shards, &subset).unwrap();
    let stats: &dyn Bm25StatisticsProvider = if filtered_stats { &filtered } else { &global };
    let position: std::collections::HashMap<&str, usize> = docs
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (id.as_str(), i))
        .collect();
    for q in queries {
        for k in [1, 10, 100, 1000] {
            let v = Variant {
                params: p,
                stats,
                subset: Some(&subset),
            };
            let ours = search_with(
                shards,
                TextField::Body,
                q,
                &[v],
                k,
                words.then_some((&membership, &of[..])),
            )
            .unwrap()
            .remove(0);
            let want: Vec<Hit> = if filtered_stats {
                brute_force(&docs, &keep, q, p, k)
            } else {
                brute_force(&docs, &|_| true, q, p, usize::MAX)
                    .into_iter()
                    .filter(|h| keep(position[h.docid.as_str()]))
                    .take(k)
                    .collect()
            };
            assert_identical(
                &[ours],
                &[want],
                &format!("seed {seed} n {n} bounds {bounds} {p:?} {case:?} k={k} {q:?}"),
            );
        }
    }
}

/// Queries of one to six terms: every direct path's windows.
fn mixed_queries(seed: u64) -> Vec<BagOfWords> {
    let mut queries = short_queries(seed);
    queries.extend(long_queries(seed));
    queries
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// One setting with a filter, filtered or full statistics: brute
    /// force's documents, order and score bits.
    #[test]
    fn one_setting_with_a_filter_equals_brute_force(
        seed in any::<u64>(),
        n in 1500usize..5000,
        segments in 1usize..3,
        bounds in any::<bool>(),
        k1_pick in 0u8..3,
        k1 in 0.0f32..3.0,
        b_pick in 0u8..3,
        b in 0.0f32..=1.0,
        percent in 5u64..95,
        filtered_stats in any::<bool>(),
        words in any::<bool>(),
    ) {
        let p = setting(k1_pick, k1, b_pick, b);
        let case = FilterCase { percent, filtered_stats, words };
        filtered_queries_equal_brute_force(seed, n, segments, bounds, p, case, &mixed_queries(seed));
    }
}

/// One setting with a filter, from a bitmap or from membership words,
/// takes each direct path (one essential term, several summed, a single
/// cursor, every term essential) on the corpora of the property test
/// above, and equals brute force.
#[test]
fn one_setting_with_a_filter_takes_the_direct_paths() {
    let counters = [
        (&ONE_ESSENTIAL_WINDOWS, "one essential"),
        (&SUMMED_WINDOWS, "summed"),
        (&SINGLE_WINDOWS, "single"),
        (&COMPLETE_WINDOWS, "complete"),
    ];
    assert_paths_run(&counters, |seed, bounds| {
        // Filtered and full statistics, the bitmap (seeds 1, 2) and
        // membership words (3, 4).
        let case = FilterCase {
            percent: 30,
            filtered_stats: seed % 2 == 1,
            words: seed >= 3,
        };
        let queries = mixed_queries(seed);
        filtered_queries_equal_brute_force(
            seed,
            5000,
            2,
            bounds,
            Bm25Params::ANSERINI,
            case,
            &queries,
        )
    });
}

/// Weighted BM25 queries (feedback's second search) through the pruning
/// scorer ([`crate::weighted::search_weighted`] routes them here) against
/// the exhaustive weighted scorer: random positive weights with arbitrary
/// low bits, 2-9 terms, BM25 and BM25 with unit idf, full and filtered,
/// with block-max bounds and without, k of 1, 10 and 1000. Identical
/// documents, order and score bits.
mod weighted_routes {
    use super::*;
    use crate::stats::CollectionStats;
    use crate::weighted::{
        Model, ModelVariant, WeightedQuery, WeightedTerm, search_exhaustive, search_weighted,
    };

    fn random_weighted(r: &mut Rng) -> WeightedQuery {
        let len = 2 + r.below(8) as usize;
        let mut terms: Vec<WeightedTerm> = Vec::new();
        for _ in 0..len {
            let text = WORDS[r.below(WORDS.len() as u64) as usize].to_string();
            if terms.iter().any(|t| t.text == text) {
                continue;
            }
            // 1e-3 to ~8, any mantissa.
            let weight = (1 + r.below(8000)) as f32 / 1000.0
                * (1.0 + r.below(1 << 20) as f32 / (1 << 23) as f32);
            terms.push(WeightedTerm { text, weight });
        }
        WeightedQuery { terms }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn pruned_equals_exhaustive(seed in any::<u64>(), n in 50usize..1500, segments in 1usize..3, filtered in any::<bool>()) {
            let (bounded, plain) = bounded_and_plain(seed, n, segments);
            let subsets = [random_subset(&bounded, seed ^ 0x5555, 70)];
            let subset = &subsets[0];
            let family = crate::stats::SubsetFamily::new(&bounded, &subsets).unwrap();
            let sub_stats = family.member(0);
            let full = GlobalStats::new(&bounded);
            let stats: &dyn CollectionStats = if filtered { &sub_stats } else { &full };
            let mut r = Rng(seed ^ 0xabcdef);
            for _ in 0..4 {
                let q = random_weighted(&mut r);
                let k1 = [0.0, 0.9, 1.2, 2.5][r.below(4) as usize];
                let b = [0.0, 0.4, 0.75, 1.0][r.below(4) as usize];
                let p = Bm25Params { k1, b };
                for model in [Model::Bm25(p), Model::Bm25UnitIdf(p)] {
                    let v = ModelVariant { model, stats, subset: filtered.then_some(subset) };
                    for k in [1, 10, 1000] {
                        let want = search_exhaustive(&plain, TextField::Body, &q, std::slice::from_ref(&v), k).unwrap();
                        for shards in [&bounded, &plain] {
                            let got = search_weighted(shards, TextField::Body, &q, std::slice::from_ref(&v), k).unwrap();
                            assert_identical(&got, &want, &format!("{model:?} k={k} {q:?}"));
                        }
                    }
                }
            }
        }
    }
}
