//! Throughput of the English analyser (`sieve_analysis`) on real
//! English text, against tantivy's built-in `en_stem`-style analyser
//! (SimpleTokenizer + RemoveLongFilter(40) + LowerCaser + Stemmer(English)) as
//! the baseline measured in the same run.
//!
//! Text: the CACM collection (`$SIEVE_SHARED_DATA/cacm/cacm.derived.trec`,
//! else `../shared/data` beside the checkout), split into its `<DOC>`s; when absent, the
//! committed Porter vocabulary (`tests/data/analysis/porter_voc.txt`) in
//! 100-line documents. Prints median MB/s, tokens/s and the ratio to the
//! baseline, then runs the criterion benchmarks.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer, Token,
    TokenStream,
};

fn corpus() -> (String, Vec<String>) {
    let cacm = sieve_testdata::shared_file("", "analysis bench (CACM)")
        .map(|d| d.join("cacm/cacm.derived.trec"))
        .unwrap_or_default();
    if let Ok(text) = std::fs::read_to_string(&cacm) {
        let docs = text
            .split("</DOC>")
            .filter(|d| !d.trim().is_empty())
            .map(str::to_string)
            .collect();
        return (cacm.display().to_string(), docs);
    }
    eprintln!(
        "SKIPPED CACM: {} not found (set SIEVE_SHARED_DATA); using porter_voc.txt",
        cacm.display()
    );
    let voc = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/analysis/porter_voc.txt"
    );
    let text = std::fs::read_to_string(voc).expect("porter_voc.txt");
    let lines: Vec<&str> = text.lines().collect();
    let docs = lines.chunks(100).map(|c| c.join(" ")).collect();
    (voc.to_string(), docs)
}

fn baseline() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(Stemmer::new(Language::English))
        .build()
}

fn run_sieve(analyzer: &EnglishAnalyzer, docs: &[String], buf: &mut Vec<Token>) -> usize {
    let mut n = 0;
    for d in docs {
        buf.clear();
        n += analyzer.analyze_into(d, buf);
    }
    n
}

fn run_baseline(analyzer: &mut TextAnalyzer, docs: &[String]) -> usize {
    let mut n = 0;
    for d in docs {
        let mut stream = analyzer.token_stream(d);
        while stream.advance() {
            black_box(&stream.token().text);
            n += 1;
        }
    }
    n
}

fn median_secs(mut f: impl FnMut() -> usize, runs: usize) -> (f64, usize) {
    let mut times = Vec::with_capacity(runs);
    let mut tokens = 0;
    for _ in 0..runs {
        let t = Instant::now();
        tokens = black_box(f());
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    (times[runs / 2], tokens)
}

fn main() {
    let (source, docs) = corpus();
    let bytes: usize = docs.iter().map(String::len).sum();
    let sieve = EnglishAnalyzer::new(AnalyzerConfig::default());
    let mut tantivy_en = baseline();
    let mut buf = Vec::new();

    let runs = 11;
    let (s_secs, s_tokens) = median_secs(|| run_sieve(&sieve, &docs, &mut buf), runs);
    let (b_secs, b_tokens) = median_secs(|| run_baseline(&mut tantivy_en, &docs), runs);
    let mb = bytes as f64 / 1e6;
    println!(
        "analysis bench: {source}: {} docs, {bytes} bytes, median of {runs} runs",
        docs.len()
    );
    println!(
        "  sieve_en      : {:8.1} MB/s {:10.0} tokens/s ({s_tokens} tokens)",
        mb / s_secs,
        s_tokens as f64 / s_secs
    );
    println!(
        "  tantivy en    : {:8.1} MB/s {:10.0} tokens/s ({b_tokens} tokens)",
        mb / b_secs,
        b_tokens as f64 / b_secs
    );
    println!("  ratio sieve_en / tantivy (MB/s): {:.2}", b_secs / s_secs);

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("analysis");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group.bench_function("sieve_en", |b| {
        b.iter(|| run_sieve(&sieve, &docs, &mut buf))
    });
    group.bench_function("tantivy_en_stem", |b| {
        b.iter(|| run_baseline(&mut tantivy_en, &docs))
    });
    group.finish();
    c.final_summary();
}
