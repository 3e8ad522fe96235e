//! Query latency and the cost of query-time filtering.
//!
//! **Bench index.** No real web collection big enough to time is public
//! here, so the bench makes one: `SIEVE_BENCH_DOCS` documents (default
//! 100,000) of words drawn from a Zipf(1) law over the vocabulary of real
//! text (the CACM collection and the WT10g sample from the shared data,
//! else the committed CACM copy), with lengths 50–1,175 words (mean
//! 425, before the analyser drops stopwords). Every document gets a MADE-UP
//! spam percentile, uniform over 0–99 from the same seeded generator. It
//! is built once with `sieve_ingest::build::build` (the production
//! pipeline) into `target/bench-data/search-N/` and reused.
//!
//! **Topics.** The 200 TREC Web Track titles and the 250 robust04 titles
//! from `topics/`, analysed as `sieve-search run` does.
//!
//! **Measured**, single thread, top 1000, each topic timed alone (median of
//! `SIEVE_BENCH_RUNS` runs, default 5), then mean / p50 / p99 over topics:
//!
//! * baseline: tantivy's own BM25 (`BooleanQuery` of `TermQuery`s,
//!   `TopDocs` with block-max WAND; k1 = 1.2, b = 0.75 are fixed there);
//! * sieve's scorer (`sieve_searcher::bm25::search`), k1 = 0.9, b = 0.4;
//! * the same on the index written again in bisection order
//!   (`plain_reordered`; `sieve_ingest::reorder`, made once beside the
//!   bench index as `index-bp`, its cost printed on a `REORDER` line);
//! * the same with a query-time filter (spam ≥ 70) and full statistics;
//! * the same with filtered statistics (`--collection-stats filtered`);
//! * four BM25 settings scored in one pass (`--k1 0.9,1.2 --b 0.4,0.75`);
//! * a threshold sweep: ten spam thresholds (5, 15, ..., 95)
//!   and the unfiltered run, eleven variants scored in one pass, with full
//!   and with filtered statistics (`sieve-search sweep`'s scoring), as a
//!   ratio to the single unfiltered run; the one-off costs of its bitmaps
//!   (`batch::select_all`, one read of the fast fields for all ten) and of
//!   its filtered statistics (`stats::SubsetFamily`) are printed apart;
//! * the unfiltered run, the spam ≥ 70 run and both sweeps on the index
//!   written again in spam order (`plain_spam`, `full_spam`, `sweep_spam`,
//!   `sweepf_spam`; `reorder --by-spam`, made once beside the bench index
//!   as `index-spam`, its cost on a `REORDER_BY_SPAM` line), and there the
//!   sweep's ten thresholds as ten separate runs with full and with
//!   filtered statistics (`each_spam`, `eachf_spam`): what each sweep
//!   replaces, with `plain_spam`.
//!
//! The one-off cost of turning a filter into bitmaps (`batch::select`) is
//! reported separately, per million documents.
//!
//! **Block-max bounds**: the build writes them; an index built
//! before gets them from `sieve_format::bounds::write_index_bounds`, timed
//! and sized here. `SIEVE_BENCH_PRUNING=off` drops them (today's scorer
//! without block-max pruning); `SIEVE_BENCH_HITS` sets k (default 1000).
//!
//! `cargo bench -p sieve-bench --bench search`
/// The allocator `sieve-search` runs with, so that the bench times what
/// the command does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use flate2::Compression;
use flate2::write::GzEncoder;
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_bench::synth::{Corpus, bench_dir, topic_terms, write_trec_doc};
use sieve_filters::docfilter::Unscored;
use sieve_format::manifest::read_manifest;
use sieve_format::schema::TextField;
use sieve_ingest::build::build;
use sieve_ingest::options::{BuildOptions, NoProgress};
use sieve_ingest::reorder::{ReorderOptions, reorder};
use sieve_ingest::spamfile::{build_spam_map, open_spam_map};
use sieve_searcher::batch::{
    DocSelection, Prepared, QueryPlan, RunVariant, StatsMode, open_shards, select, select_all,
};
use sieve_searcher::bm25::{BagOfWords, Bm25Params, Shard, Subset, Variant, search};
use sieve_searcher::runspec::spam_selection;
use sieve_searcher::stats::{GlobalStats, SubsetFamily};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;

/// Writes the synthetic TREC collection (gzipped files of at most a
/// million documents) and its made-up spam file.
fn write_corpus(dir: &Path, docs: usize) -> (Vec<PathBuf>, PathBuf) {
    let spam = dir.join("made-up-spam.txt");
    let mut sp = BufWriter::new(File::create(&spam).expect("create spam file"));
    writeln!(sp,).unwrap();
    let mut files = Vec::new();
    let mut out: Option<GzEncoder<BufWriter<File>>> = None;
    for (i, d) in Corpus::new(docs).enumerate() {
        if i % 1_000_000 == 0 {
            if let Some(o) = out.take() {
                o.finish().expect("finish corpus file").flush().unwrap();
            }
            let path = dir.join(format!("corpus-{:03}.trec.gz", i / 1_000_000));
            let f = BufWriter::new(File::create(&path).expect("create corpus"));
            out = Some(GzEncoder::new(f, Compression::fast()));
            files.push(path);
        }
        let o = out.as_mut().expect("open corpus file");
        write_trec_doc(o, &d).unwrap();
        writeln!(sp, "{} {}", d.spam, d.docid).unwrap();
    }
    if let Some(o) = out.take() {
        o.finish().expect("finish corpus file").flush().unwrap();
    }
    sp.flush().unwrap();
    (files, spam)
}

fn bench_index(docs: usize) -> PathBuf {
    let dir = bench_dir(docs);
    let index = dir.join("index");
    if read_manifest(&index).is_ok() {
        eprintln!("reusing bench index {}", index.display());
        return index;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("bench dir");
    let t = Instant::now();
    let (trec, spam) = write_corpus(&dir, docs);
    eprintln!(
        "wrote {docs} synthetic docs in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let map = dir.join("spam.fst");
    build_spam_map(&[spam], &map, &dir).expect("spam map");
    let mut opts = BuildOptions::new(trec.clone(), index.clone());
    opts.threads = 2;
    opts.spam = Some(open_spam_map(&map).expect("open spam map"));
    let t = Instant::now();
    let cpu = cpu_seconds();
    let stats = build(&opts, &NoProgress).expect("build bench index");
    let _ = std::fs::write(
        dir.join("build-cpu-seconds"),
        format!("{:.2}\n", cpu_seconds() - cpu),
    );
    eprintln!(
        "built bench index: {} docs in {:.1} s",
        stats.totals.indexed,
        t.elapsed().as_secs_f64()
    );
    for f in &trec {
        let _ = std::fs::remove_file(f);
    }
    index
}

/// The bench index written again in bisection order (`sieve-index
/// reorder`, two threads) beside it as `index-bp`, made once and reused;
/// its time and size are printed.
/// With `by_spam`, in spam order (`reorder --by-spam`) as `index-spam`.
fn reordered_index(index: &Path, by_spam: bool) -> PathBuf {
    let out = index.with_file_name(if by_spam { "index-spam" } else { "index-bp" });
    if read_manifest(&out).is_ok() {
        eprintln!("reusing reordered bench index {}", out.display());
        return out;
    }
    let mut opts = ReorderOptions::new(index.to_path_buf(), out.clone());
    opts.threads = 2;
    opts.by_spam = by_spam;
    let t = Instant::now();
    let cpu = cpu_seconds();
    let stats = reorder(&opts, &|_| {}).expect("reorder bench index");
    println!(
        "REORDER{} wall_s {:.1} cpu_s {:.1} read_s {:.1} bp_s {:.1} write_s {:.1} sidecar_s {:.1} postings {} bytes_before {} bytes_after {}",
        if by_spam { "_BY_SPAM" } else { "" },
        t.elapsed().as_secs_f64(),
        cpu_seconds() - cpu,
        stats.read_seconds,
        stats.bp_seconds,
        stats.write_seconds,
        stats.sidecar_seconds,
        stats.postings,
        dir_bytes(index),
        dir_bytes(&out)
    );
    out
}

/// A prepared batch of `variants` over `shards` with `subsets`.
fn prepare<'a>(
    shards: &'a [Shard],
    variants: &'a [RunVariant],
    subsets: &'a [Subset],
    stats_mode: StatsMode,
    hits: usize,
) -> Prepared<'a> {
    Prepared::new(
        QueryPlan {
            shards,
            field: TextField::Body,
            variants,
            stats_mode,
            global: None,
            hits,
        },
        subsets,
    )
    .expect("prepare")
}

/// Every variant's hits of `prep` as (docid, score bits).
fn all_hits(prep: &Prepared<'_>, q: &BagOfWords) -> Vec<Vec<(String, u32)>> {
    prep.search(q)
        .expect("search")
        .into_iter()
        .map(|v| {
            v.into_iter()
                .map(|h| (h.docid, h.score.to_bits()))
                .collect()
        })
        .collect()
}

/// One BM25 search of `shards` with `p` and no filter, top `hits`.
fn one_on<'a>(
    shards: &'a [Shard],
    global: &'a GlobalStats<'a>,
    p: Bm25Params,
    hits: usize,
) -> impl Fn(&BagOfWords) -> usize + 'a {
    move |q: &BagOfWords| {
        let v = [Variant {
            params: p,
            stats: global,
            subset: None,
        }];
        search(shards, TextField::Body, q, &v, hits).expect("search")[0].len()
    }
}

/// Bytes of the files under `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    walk_bytes(dir).unwrap_or(0)
}

fn walk_bytes(dir: &Path) -> std::io::Result<u64> {
    let mut n = 0;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let m = e.metadata()?;
        n += if m.is_dir() {
            walk_bytes(&e.path())?
        } else {
            m.len()
        };
    }
    Ok(n)
}

/// Times the bounds pass over the whole index (rewriting every file) and
/// prints its time and size beside the index's.
fn bounds_pass(index: &Path) -> BoundsFigures {
    if std::env::var("SIEVE_BENCH_BOUNDS_PASS").is_ok_and(|v| v == "1") {
        let _ = std::fs::remove_dir_all(index.join(sieve_format::bounds::BOUNDS_DIR));
    }
    let tantivy_index = tantivy::Index::open_in_dir(index).expect("open bench index");
    let t = Instant::now();
    let cpu = cpu_seconds();
    let s = sieve_format::bounds::write_index_bounds(index, &tantivy_index).expect("bounds");
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let total: u64 = std::fs::read_dir(index)
        .expect("index dir")
        .filter_map(|e| e.ok()?.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    // `"seconds": S` in stats.json (the build's wall time).
    let build_secs = std::fs::read_to_string(index.join("stats.json"))
        .ok()
        .and_then(|t| {
            let rest = &t[t.rfind("\"seconds\":")? + 10..];
            let end = rest.find([',', '\n', '}']).unwrap_or(rest.len());
            rest[..end].trim().parse::<f64>().ok()
        })
        .unwrap_or(f64::NAN);
    // The build's CPU seconds, when this bench built the index.
    let build_cpu = std::fs::read_to_string(index.with_file_name("build-cpu-seconds"))
        .ok()
        .and_then(|t| t.trim().parse::<f64>().ok())
        .unwrap_or(f64::NAN);
    BoundsFigures {
        segments: s.segments,
        written: s.written,
        secs,
        cpu,
        build_cpu,
        build_secs,
        bytes: s.bytes,
        index_bytes: total,
    }
}

/// This process's CPU time (user + system), from `/proc/self/stat` (Linux;
/// NaN elsewhere), in seconds.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // Fields after the command name (which is in parentheses).
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        f.get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 here;
    // 100 ticks per second on Linux.
    (ticks(11) + ticks(12)) / 100.0
}

/// What [`bounds_pass`] measured.
struct BoundsFigures {
    segments: usize,
    written: usize,
    secs: f64,
    cpu: f64,
    build_cpu: f64,
    build_secs: f64,
    bytes: u64,
    index_bytes: u64,
}

struct Latency {
    mean: f64,
    p50: f64,
    p99: f64,
}

fn latency(per_topic: &mut [Duration]) -> Latency {
    per_topic.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let n = per_topic.len();
    // Nearest-rank percentiles.
    let pct = |p: f64| ms(per_topic[((p * n as f64).ceil() as usize).clamp(1, n) - 1]);
    Latency {
        mean: per_topic.iter().map(|d| ms(*d)).sum::<f64>() / n as f64,
        p50: pct(0.50),
        p99: pct(0.99),
    }
}

fn main() {
    let docs: usize = std::env::var("SIEVE_BENCH_DOCS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let runs: usize = std::env::var("SIEVE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let hits: usize = std::env::var("SIEVE_BENCH_HITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let index = bench_index(docs);
    let bf = bounds_pass(&index);
    let (mut shards, config) = open_shards(std::slice::from_ref(&index)).expect("open bench index");
    let docid_bytes: u64 = shards[0]
        .bounds
        .iter()
        .flatten()
        .map(|b| b.docid_table_bytes())
        .sum();
    let bound_bytes = bf.bytes - docid_bytes;
    println!(
        "sidecars: {} segment(s), {} file(s) written in {:.2} s ({:.1}% of the build's {:.1} s); {} bytes = block-max bounds {} ({:.2}% of the index's other files, {} bytes) + docid table {} ({:.2}%)",
        bf.segments,
        bf.written,
        bf.secs,
        100.0 * bf.secs / bf.build_secs,
        bf.build_secs,
        bf.bytes,
        bound_bytes,
        100.0 * bound_bytes as f64 / bf.index_bytes as f64,
        bf.index_bytes,
        docid_bytes,
        100.0 * docid_bytes as f64 / bf.index_bytes as f64,
    );
    println!(
        "sidecar pass CPU {:.2} s = {:.1}% of the build's CPU {:.1} s (the build includes its own sidecar pass; NaN when this run did not build the index)",
        bf.cpu,
        100.0 * bf.cpu / (bf.build_cpu - bf.cpu),
        bf.build_cpu
    );
    println!(
        "INDEX {docs} build_s {:.1} build_cpu_s {:.1} sidecar_s {:.2} sidecar_cpu_s {:.2} index_bytes {} bounds_bytes {bound_bytes} docid_table_bytes {docid_bytes}",
        bf.build_secs, bf.build_cpu, bf.secs, bf.cpu, bf.index_bytes
    );
    let pruning = std::env::var("SIEVE_BENCH_PRUNING").map_or(true, |v| v != "off");
    if !pruning {
        for s in &mut shards {
            s.bounds.clear();
        }
    }
    println!("block-max pruning: {}", if pruning { "on" } else { "off" });
    let analyzer = EnglishAnalyzer::new(config);
    assert_eq!(config, AnalyzerConfig::default());

    let queries: Vec<BagOfWords> = topic_terms(&analyzer)
        .into_iter()
        .map(BagOfWords::from_terms)
        .collect();
    let searcher = &shards[0].searcher;
    let num_docs = searcher.num_docs();
    let body = shards[0].fields.text(TextField::Body);
    println!(
        "bench index: {num_docs} docs, {} segment(s); {} topics (Web 1-200 + robust04 titles); top {hits}; 1 thread; median of {runs} runs per topic",
        searcher.segment_readers().len(),
        queries.len()
    );

    // `SIEVE_BENCH_CASES=tantivy,plain,plain12,plain_reordered,full,filtered,four,sweep,sweepf,each`
    // (default: all).
    let cases = std::env::var("SIEVE_BENCH_CASES").ok();
    let want = |name: &str| {
        cases
            .as_deref()
            .is_none_or(|c| c.split(',').any(|x| x.trim() == name))
    };

    let tantivy_case = |q: &BagOfWords| {
        let clauses: Vec<(Occur, Box<dyn Query>)> = q
            .terms
            .iter()
            .map(|(t, _)| {
                let term = tantivy::Term::from_field_text(body, t);
                (
                    Occur::Should,
                    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs)) as Box<dyn Query>,
                )
            })
            .collect();
        searcher
            .search(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(hits).order_by_score(),
            )
            .expect("tantivy search")
            .len()
    };
    let global = GlobalStats::new(&shards);
    // `plain_reordered`: the same search on the index in bisection order
    // (the bench index itself when that case is not chosen).
    let bp_index = if want("plain_reordered") {
        reordered_index(&index, false)
    } else {
        index.clone()
    };
    let (bp_shards, _) = open_shards(std::slice::from_ref(&bp_index)).expect("open bp index");
    let bp_global = GlobalStats::new(&bp_shards);
    // The `*_spam` cases: the same searches on the index in spam order
    // (`reorder --by-spam`; the bench index itself when none is chosen).
    let spam_cases = [
        "plain_spam",
        "full_spam",
        "sweep_spam",
        "sweepf_spam",
        "each_spam",
        "eachf_spam",
    ];
    let spam_index = if spam_cases.iter().any(|c| want(c)) {
        reordered_index(&index, true)
    } else {
        index.clone()
    };
    let (spam_shards, _) = open_shards(std::slice::from_ref(&spam_index)).expect("open index");
    let spam_global = GlobalStats::new(&spam_shards);
    let one = |p: Bm25Params| one_on(&shards, &global, p, hits);
    let p = Bm25Params { k1: 0.9, b: 0.4 };
    let sel = spam_selection(70, Unscored::Keep);
    let t = Instant::now();
    let subset = select(&shards, &sel).expect("select");
    let select_time = t.elapsed();
    let kept: u64 = subset.iter().flatten().flatten().map(|b| b.len()).sum();
    // The filtered cases search as `sieve-search run` does: through a
    // prepared batch (its selections' membership words built once).
    let rv = |selection: Option<usize>| RunVariant {
        params: p,
        qld: None,
        sdm: false,
        selection,
        tag: String::new(),
    };
    let spam70 = std::slice::from_ref(&subset);
    let one_filtered = [rv(Some(0))];
    let t = Instant::now();
    let full_prep = prepare(&shards, &one_filtered, spam70, StatsMode::Full, hits);
    let filtered_prep = prepare(&shards, &one_filtered, spam70, StatsMode::Filtered, hits);
    let prep_time = t.elapsed();
    let full_case = |q: &BagOfWords| full_prep.search(q).expect("search")[0].len();
    let filtered_case = |q: &BagOfWords| filtered_prep.search(q).expect("search")[0].len();
    let four_case = |q: &BagOfWords| {
        let v: Vec<Variant<'_>> = [(0.9, 0.4), (0.9, 0.75), (1.2, 0.4), (1.2, 0.75)]
            .into_iter()
            .map(|(k1, b)| Variant {
                params: Bm25Params { k1, b },
                stats: &global,
                subset: None,
            })
            .collect();
        search(&shards, TextField::Body, q, &v, hits)
            .expect("search")
            .len()
    };
    // A sweep of ten spam thresholds and the unfiltered run, in
    // one pass, with full and with filtered statistics.
    // `SIEVE_BENCH_SWEEP=5,50,95` picks other thresholds (default: 5, 15, ..., 95).
    let sweep_thresholds: Vec<u8> = std::env::var("SIEVE_BENCH_SWEEP")
        .ok()
        .map(|s| {
            s.split(',')
                .map(|x| x.trim().parse().expect("SIEVE_BENCH_SWEEP: percentiles"))
                .collect()
        })
        .unwrap_or_else(|| (0..10u8).map(|i| 5 + 10 * i).collect());
    let sweep_sels: Vec<DocSelection> = sweep_thresholds
        .iter()
        .map(|&t| spam_selection(t, Unscored::Keep))
        .collect();
    let t = Instant::now();
    let sweep_subsets = select_all(&shards, &sweep_sels).expect("select_all");
    let sweep_select = t.elapsed();
    let t = Instant::now();
    let family = SubsetFamily::new(&shards, &sweep_subsets).expect("subset family");
    let family_time = t.elapsed();
    drop(family);
    let sweep_variants: Vec<RunVariant> = std::iter::once(None)
        .chain((0..sweep_subsets.len()).map(Some))
        .map(rv)
        .collect();
    let t = Instant::now();
    let sweep_prep = prepare(
        &shards,
        &sweep_variants,
        &sweep_subsets,
        StatsMode::Full,
        hits,
    );
    let sweep_prep_time = t.elapsed();
    let sweepf_prep = prepare(
        &shards,
        &sweep_variants,
        &sweep_subsets,
        StatsMode::Filtered,
        hits,
    );
    // The same thresholds as separate runs, one after another (what a
    // sweep replaces).
    let single_variants: Vec<[RunVariant; 1]> =
        (0..sweep_subsets.len()).map(|i| [rv(Some(i))]).collect();
    let singles: Vec<Prepared<'_>> = single_variants
        .iter()
        .map(|v| prepare(&shards, v, &sweep_subsets, StatsMode::Full, hits))
        .collect();
    // Separate runs, one after another: the hits of all of them.
    let sum_of = |runs: &[Prepared<'_>], q: &BagOfWords| -> usize {
        runs.iter()
            .map(|p| p.search(q).expect("search")[0].len())
            .sum()
    };
    let each_case = |q: &BagOfWords| sum_of(&singles, q);
    let sweep_case = |q: &BagOfWords| sweep_prep.search(q).expect("search").len();
    let sweepf_case = |q: &BagOfWords| sweepf_prep.search(q).expect("search").len();
    let spam_subsets = select_all(&spam_shards, &sweep_sels).expect("select_all");
    let spam70_subset = [select(&spam_shards, &sel).expect("select")];
    let (full, filtered) = (StatsMode::Full, StatsMode::Filtered);
    let full_spam_prep = prepare(&spam_shards, &one_filtered, &spam70_subset, full, hits);
    let sweep_spam_prep = prepare(&spam_shards, &sweep_variants, &spam_subsets, full, hits);
    let sweepf_spam_prep = prepare(&spam_shards, &sweep_variants, &spam_subsets, filtered, hits);
    // The sweep's thresholds as separate runs on the index in spam order,
    // with full and with filtered statistics: what the sweeps there replace.
    let separate = |stats: StatsMode| -> Vec<Prepared<'_>> {
        single_variants
            .iter()
            .map(|v| prepare(&spam_shards, v, &spam_subsets, stats, hits))
            .collect()
    };
    let (each_spam, eachf_spam) = if want("each_spam") || want("eachf_spam") {
        (separate(full), separate(filtered))
    } else {
        (Vec::new(), Vec::new())
    };
    let each_spam_case = |q: &BagOfWords| sum_of(&each_spam, q);
    let eachf_spam_case = |q: &BagOfWords| sum_of(&eachf_spam, q);
    let full_spam_case = |q: &BagOfWords| full_spam_prep.search(q).expect("search")[0].len();
    let sweep_spam_case = |q: &BagOfWords| sweep_spam_prep.search(q).expect("search").len();
    let sweepf_spam_case = |q: &BagOfWords| sweepf_spam_prep.search(q).expect("search").len();
    let plain_spam_case = one_on(&spam_shards, &spam_global, p, hits);
    let plain_case = one(p);
    let plain12_case = one(Bm25Params { k1: 1.2, b: 0.75 });
    let reordered_case = one_on(&bp_shards, &bp_global, p, hits);
    type Case<'a> = (&'static str, &'static str, &'a dyn Fn(&BagOfWords) -> usize);
    let all: [Case<'_>; 16] = [
        (
            "tantivy",
            "tantivy BM25 TopDocs (block-max WAND, 1.2/0.75)",
            &tantivy_case,
        ),
        ("plain", "sieve BM25 0.9/0.4, no filter", &plain_case),
        ("plain12", "sieve BM25 1.2/0.75, no filter", &plain12_case),
        (
            "plain_reordered",
            "sieve BM25 0.9/0.4, index in bisection order",
            &reordered_case,
        ),
        (
            "full",
            "sieve + filter spam>=70, --collection-stats full",
            &full_case,
        ),
        (
            "filtered",
            "sieve + filter spam>=70, --collection-stats filtered",
            &filtered_case,
        ),
        ("four", "sieve, 4 BM25 settings in one pass", &four_case),
        (
            "sweep",
            "sweep: 10 spam thresholds + unfiltered, full",
            &sweep_case,
        ),
        (
            "sweepf",
            "sweep: 10 spam thresholds + unfiltered, filtered",
            &sweepf_case,
        ),
        (
            "each",
            "the sweep's 10 thresholds as 10 separate runs",
            &each_case,
        ),
        (
            "plain_spam",
            "sieve BM25 0.9/0.4, index in spam order",
            &plain_spam_case,
        ),
        (
            "full_spam",
            "filter spam>=70, full stats, index in spam order",
            &full_spam_case,
        ),
        (
            "sweep_spam",
            "sweep, full stats, index in spam order",
            &sweep_spam_case,
        ),
        (
            "sweepf_spam",
            "sweep, filtered stats, index in spam order",
            &sweepf_spam_case,
        ),
        (
            "each_spam",
            "the sweep's 10 thresholds as 10 separate runs, full stats, index in spam order",
            &each_spam_case,
        ),
        (
            "eachf_spam",
            "the sweep's 10 thresholds as 10 separate runs, filtered stats, index in spam order",
            &eachf_spam_case,
        ),
    ];
    // `SIEVE_BENCH_SAME=0` skips the checks that reordered indexes give
    // the same hits (`callgrind_search.sh` counts the cases alone).
    let check = std::env::var("SIEVE_BENCH_SAME").map_or(true, |v| v != "0");
    if check && spam_cases.iter().any(|c| want(c)) {
        let same = queries
            .iter()
            .filter(|q| {
                all_hits(&sweep_prep, q) == all_hits(&sweep_spam_prep, q)
                    && all_hits(&sweepf_prep, q) == all_hits(&sweepf_spam_prep, q)
            })
            .count();
        println!(
            "index in spam order: {same} of {} topics give the same hits, docids, scores and order in every variant of both sweeps",
            queries.len()
        );
    }
    if check && want("plain_reordered") {
        let same = queries
            .iter()
            .filter(|q| {
                let hits_of = |shards, global| {
                    let v = [Variant {
                        params: p,
                        stats: global,
                        subset: None,
                    }];
                    let mut h = search(shards, TextField::Body, q, &v, hits).expect("search");
                    h.swap_remove(0)
                        .into_iter()
                        .map(|h| (h.docid, h.score.to_bits()))
                        .collect::<Vec<_>>()
                };
                hits_of(&shards, &global) == hits_of(&bp_shards, &bp_global)
            })
            .count();
        println!(
            "reordered index: {same} of {} topics give the same hits, docids, scores and order",
            queries.len()
        );
    }
    let chosen: Vec<&Case<'_>> = all.iter().filter(|c| want(c.0)).collect();
    // Per topic, every case in turn, run after run (the first a warm-up),
    // so that a change in the machine's load falls on every case alike.
    let mut per: Vec<Vec<Duration>> = vec![Vec::with_capacity(queries.len()); chosen.len()];
    for q in &queries {
        let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); chosen.len()];
        for run in 0..=runs.max(1) {
            for (c, case) in chosen.iter().enumerate() {
                let t = Instant::now();
                std::hint::black_box((case.2)(q));
                if run > 0 {
                    times[c].push(t.elapsed());
                }
            }
        }
        for (c, mut t) in times.into_iter().enumerate() {
            t.sort();
            per[c].push(t[t.len() / 2]);
        }
    }
    let mut results: Vec<(&str, Latency)> = Vec::new();
    for (case, mut p) in chosen.iter().zip(per) {
        let l = latency(&mut p);
        let first = results.first().map_or(l.mean, |r| r.1.mean);
        println!(
            "{:<52} mean {:>8.3} ms  p50 {:>8.3} ms  p99 {:>8.3} ms  mean/first = {:.2}",
            case.1,
            l.mean,
            l.p50,
            l.p99,
            l.mean / first
        );
        results.push((case.0, l));
    }
    let mean_of = |name: &str| results.iter().find(|r| r.0 == name).map(|r| r.1.mean);
    if let Some(plain) = mean_of("plain") {
        // A case not chosen in SIEVE_BENCH_CASES says so instead of NaN.
        let ratio = |name: &str| {
            mean_of(name).map_or_else(|| "not run".to_string(), |m| format!("{:.2}x", m / plain))
        };
        println!(
            "vs one setting, no filter (mean latency): filter with full stats {}, filtered stats {} (kept {kept} of {num_docs} docs); 4 settings in one pass {}",
            ratio("full"),
            ratio("filtered"),
            ratio("four"),
        );
    }
    if let Some(plain) = mean_of("plain") {
        // A case not chosen in SIEVE_BENCH_CASES says so instead of NaN.
        let ratio = |name: &str| {
            mean_of(name).map_or_else(|| "not run".to_string(), |m| format!("{:.2}x", m / plain))
        };
        println!(
            "sweep of 10 thresholds vs one unfiltered run (mean latency): full stats {}, filtered stats {}; on the index in spam order: full stats {}, filtered stats {}, filter spam>=70 {}, unfiltered {}; one-off: bitmaps of all 10 {:.1} ms, filtered statistics of all 10 {:.1} ms, the batch's membership words {:.1} ms",
            ratio("sweep"),
            ratio("sweepf"),
            ratio("sweep_spam"),
            ratio("sweepf_spam"),
            ratio("full_spam"),
            ratio("plain_spam"),
            sweep_select.as_secs_f64() * 1e3,
            family_time.as_secs_f64() * 1e3,
            sweep_prep_time.as_secs_f64() * 1e3
        );
    }
    if let (Some(sweep), Some(each)) = (mean_of("sweep"), mean_of("each")) {
        let n = sweep_thresholds.len() as f64;
        println!(
            "sweep of {n} thresholds vs the same as {n} separate runs: {:.2}x their sum, {:.2}x their mean",
            sweep / each,
            sweep / (each / n)
        );
    }
    // In spam order: each sweep against its variants run one by one (the
    // ten thresholds, then the unfiltered run).
    for (sweep, each) in [("sweep_spam", "each_spam"), ("sweepf_spam", "eachf_spam")] {
        if let (Some(s), Some(e), Some(u)) = (mean_of(sweep), mean_of(each), mean_of("plain_spam"))
        {
            println!(
                "{sweep} vs its 11 variants as separate runs on the index in spam order: {:.2}x their sum",
                s / (e + u)
            );
        }
    }
    if let (Some(s), Some(t)) = (mean_of("plain"), mean_of("tantivy")) {
        println!("sieve 0.9/0.4 mean / tantivy mean = {:.3}", s / t);
    }
    // One line per case for scripts: `RESULT case docs hits mean p50 p99`.
    for (name, l) in &results {
        println!(
            "RESULT {name} {num_docs} {hits} {:.4} {:.4} {:.4}",
            l.mean, l.p50, l.p99
        );
    }
    println!(
        "one-off bitmap build (batch::select, spam>=70): {:.1} ms = {:.1} ms per million docs",
        select_time.as_secs_f64() * 1e3,
        select_time.as_secs_f64() * 1e3 * 1e6 / num_docs as f64
    );
    println!(
        "one-off preparation of the spam>=70 batches (membership words, filtered statistics): {:.1} ms",
        prep_time.as_secs_f64() * 1e3
    );
}
