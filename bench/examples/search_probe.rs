//! Probes the search bench's single-setting case (`plain`: BM25 0.9/0.4,
//! no filter, one thread) topic by topic, on the bench index that
//! `cargo bench -p sieve-bench --bench search` built (`SIEVE_BENCH_DATA`,
//! `SIEVE_BENCH_DOCS`; the topics as the bench reads them, numbered from 0
//! in its order).
//!
//! ```sh
//! cargo run --release -p sieve-bench --example search_probe -- MODE [ARGS]
//! ```
//!
//! * `slowest N RUNS`: every topic's best of `RUNS` searches (after one
//!   warm-up), the `N` slowest printed with their terms, and the 5th
//!   slowest (about the bench's p99 over 450 topics) on a line of its own.
//! * `dump FILE`: every topic's hits, one line per hit (`topic docid
//!   score-bits`), to compare the hits of two builds exactly.
//! * `run TOPICS REPS`: searches the comma-separated topics `REPS` times
//!   each (for callgrind: the instructions of `run TOPICS REPS` minus
//!   those of `run none 0`, the fixed cost of opening the index).
//!
//! `SIEVE_BENCH_HITS` sets k (default 1000); `SIEVE_PROBE_SETTINGS=four`
//! searches the bench's four settings in one pass instead of one;
//! `SIEVE_PROBE_FILTER=full` or `filtered` searches BM25 0.9/0.4 with the
//! bench's query-time filter (spam >= 70) and full or filtered statistics,
//! as its `full` and `filtered` cases do, instead.
use std::io::{BufWriter, Write};
use std::time::{Duration, Instant};

use sieve_analysis::EnglishAnalyzer;
use sieve_bench::synth::{index_dir, topic_terms};
use sieve_filters::docfilter::Unscored;
use sieve_format::schema::TextField;
use sieve_searcher::batch::{Prepared, QueryPlan, RunVariant, StatsMode, open_shards, select};
use sieve_searcher::bm25::{BagOfWords, Bm25Params, Hit, Variant, search};
use sieve_searcher::runspec::spam_selection;
use sieve_searcher::stats::GlobalStats;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let docs: usize = std::env::var("SIEVE_BENCH_DOCS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let hits: usize = std::env::var("SIEVE_BENCH_HITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let settings: Vec<(f32, f32)> =
        if std::env::var("SIEVE_PROBE_SETTINGS").is_ok_and(|v| v == "four") {
            vec![(0.9, 0.4), (0.9, 0.75), (1.2, 0.4), (1.2, 0.75)]
        } else {
            vec![(0.9, 0.4)]
        };
    let index = index_dir(docs);
    let (shards, config) = open_shards(std::slice::from_ref(&index)).expect("open bench index");
    let analyzer = EnglishAnalyzer::new(config);
    let queries: Vec<BagOfWords> = topic_terms(&analyzer)
        .into_iter()
        .map(BagOfWords::from_terms)
        .collect();
    let global = GlobalStats::new(&shards);
    let filter = std::env::var("SIEVE_PROBE_FILTER").ok();
    let spam70: Vec<_> = filter
        .iter()
        .map(|_| select(&shards, &spam_selection(70, Unscored::Keep)).expect("select"))
        .collect();
    let one = [RunVariant {
        params: Bm25Params { k1: 0.9, b: 0.4 },
        qld: None,
        sdm: false,
        selection: Some(0),
        tag: String::new(),
    }];
    let prepared = filter.as_deref().map(|mode| {
        let stats = match mode {
            "full" => StatsMode::Full,
            "filtered" => StatsMode::Filtered,
            other => panic!("SIEVE_PROBE_FILTER={other}: full or filtered"),
        };
        let plan = QueryPlan {
            shards: &shards,
            field: TextField::Body,
            variants: &one,
            stats_mode: stats,
            global: None,
            hits,
        };
        Prepared::new(plan, &spam70).expect("prepare")
    });
    let run = |q: &BagOfWords| -> Vec<Vec<Hit>> {
        if let Some(p) = &prepared {
            return p.search(q).expect("search");
        }
        let v: Vec<Variant<'_>> = settings
            .iter()
            .map(|&(k1, b)| Variant {
                params: Bm25Params { k1, b },
                stats: &global,
                subset: None,
            })
            .collect();
        search(&shards, TextField::Body, q, &v, hits).expect("search")
    };
    let terms = |q: &BagOfWords| {
        q.terms
            .iter()
            .map(|(t, _)| t.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    match args.first().map(String::as_str) {
        Some("slowest") => {
            let n: usize = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(10);
            let runs: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(5);
            let mut best: Vec<(Duration, usize)> = queries
                .iter()
                .enumerate()
                .map(|(i, q)| {
                    std::hint::black_box(run(q));
                    let t = (0..runs.max(1))
                        .map(|_| {
                            let t = Instant::now();
                            std::hint::black_box(run(q));
                            t.elapsed()
                        })
                        .min()
                        .unwrap();
                    (t, i)
                })
                .collect();
            best.sort_by(|a, b| b.cmp(a));
            for (t, i) in best.iter().take(n) {
                println!(
                    "{i:>4} {:>8.3} ms  {}",
                    t.as_secs_f64() * 1e3,
                    terms(&queries[*i])
                );
            }
            let ms: f64 = best.iter().map(|(t, _)| t.as_secs_f64() * 1e3).sum();
            println!(
                "5th slowest {:.3} ms; mean {:.3} ms",
                best[4.min(best.len() - 1)].0.as_secs_f64() * 1e3,
                ms / best.len() as f64
            );
        }
        Some("dump") => {
            let path = args.get(1).expect("dump FILE");
            let mut out = BufWriter::new(std::fs::File::create(path).expect("create dump"));
            for (i, q) in queries.iter().enumerate() {
                for (v, hits) in run(q).iter().enumerate() {
                    for h in hits {
                        writeln!(out, "{i} {v} {} {:08x}", h.docid, h.score.to_bits()).unwrap();
                    }
                }
            }
            out.flush().unwrap();
        }
        Some("run") => {
            let topics: Vec<usize> = args
                .get(1)
                .expect("run TOPICS REPS")
                .split(',')
                .filter_map(|t| t.parse().ok())
                .collect();
            let reps: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(1);
            for &i in &topics {
                for _ in 0..reps {
                    std::hint::black_box(run(&queries[i]));
                }
            }
        }
        _ => {
            eprintln!("usage: search_probe slowest N RUNS | dump FILE | run TOPICS REPS");
            std::process::exit(2);
        }
    }
}
