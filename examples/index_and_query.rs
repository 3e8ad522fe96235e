//! Walkthrough: build an index from web crawls and run one BM25 query.
//!
//! Shows the highest-level calls: [`sieve_ingest::build::build`] with
//! [`BuildOptions`] (the pipeline behind `sieve-index build`: crawl reading,
//! charset decoding, UTF-8 cleaning, HTML to text, analysis, tantivy), then
//! [`sieve_searcher::batch::run_batch`] (the engine behind `sieve-search
//! run`: topics analysed as the index was, BM25 with any k1/b over the
//! postings, ties broken as trec_eval reads a run). The index goes to a
//! temporary directory that is removed at the end.
//!
//! ```sh
//! cargo run --example index_and_query [-- "your query"]
//! ```

use sieve_analysis::EnglishAnalyzer;
use sieve_crawl::inputs::expand_inputs;
use sieve_format::schema::TextField;
use sieve_ingest::build::build;
use sieve_ingest::options::{BuildOptions, NoProgress};
use sieve_searcher::batch::{QueryPlan, RunVariant, StatsMode, open_shards, run_batch};
use sieve_searcher::bm25::Bm25Params;
use sieve_searcher::queries::{DEFAULT_MAX_QUERY_TERMS, TopicQueries};
use sieve_searcher::topics::{TopicField, parse_topics};
use sieve_testdata::fixture;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let query = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "web archive".into());
    // The committed WARC fixtures (ClueWeb09, ClueWeb12, Common Crawl).
    let inputs = expand_inputs(&[format!("{}/*.warc.gz", fixture("warc").display())])?;
    let tmp = tempfile::tempdir()?;
    let index = tmp.path().join("index");
    let stats = build(&BuildOptions::new(inputs, index.clone()), &NoProgress)?;
    println!(
        "indexed {} documents from {} files",
        stats.totals.indexed,
        stats.files.len()
    );

    let (shards, config) = open_shards(&[index])?;
    let (_, topics) = parse_topics(format!("1:{query}\n").as_bytes())?;
    let variant = RunVariant {
        params: Bm25Params { k1: 0.9, b: 0.4 },
        qld: None,
        sdm: false,
        selection: None,
        tag: "example".into(),
    };
    let plan = QueryPlan {
        shards: &shards,
        field: TextField::Body,
        variants: &[variant],
        stats_mode: StatsMode::Full,
        global: None,
        hits: 5,
    };
    let queries = TopicQueries {
        analyzer: &EnglishAnalyzer::new(config),
        topics: &topics,
        field: TopicField::Title,
        max_terms: DEFAULT_MAX_QUERY_TERMS,
    };
    let runs = run_batch(&plan, &queries, &[])?;
    println!("top 5 for {query:?} (BM25 k1=0.9 b=0.4):");
    for (_, hits) in &runs[0] {
        for (rank, hit) in hits.iter().enumerate() {
            println!("{:>2}  {:<40} {:.4}", rank + 1, hit.docid, hit.score);
        }
    }
    Ok(())
}
