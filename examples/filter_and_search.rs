//! Walkthrough: build a docid filter from spam scores and search with it.
//!
//! Builds an index from the committed WARC fixtures, then a filter file with
//! [`sieve_ingest::filterbuild::build_filter`] (what `sieve-filter build`
//! does): the universe is the index's documents, the rule keeps documents
//! whose spam percentile is at least 70, and the percentiles come from the
//! committed, **made-up** Waterloo-format ranking
//! `tests/data/spam/made-up-spam.txt`. The filter file (an FST of whichever
//! list is smaller) is read back as a [`DocFilter`] and one query is run
//! twice, without and with it, through [`DocSelection`].
//!
//! ```sh
//! cargo run --example filter_and_search
//! ```

use sieve_analysis::EnglishAnalyzer;
use sieve_crawl::inputs::expand_inputs;
use sieve_filters::docfilter::{DocFilter, Thresholds};
use sieve_format::schema::TextField;
use sieve_ingest::build::build;
use sieve_ingest::filterbuild::{FilterSpec, build_filter};
use sieve_ingest::options::{BuildOptions, NoProgress};
use sieve_ingest::spamfile::load_spam_map;
use sieve_searcher::batch::{
    DocSelection, QueryPlan, RunVariant, StatsMode, open_shards, run_batch,
};
use sieve_searcher::bm25::Bm25Params;
use sieve_searcher::queries::{DEFAULT_MAX_QUERY_TERMS, TopicQueries};
use sieve_searcher::topics::{TopicField, parse_topics};
use sieve_testdata::fixture;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let index = tmp.path().join("index");
    let inputs = expand_inputs(&[format!("{}/*.warc.gz", fixture("warc").display())])?;
    build(&BuildOptions::new(inputs, index.clone()), &NoProgress)?;

    // Spam ranking -> spam map (an FST) -> filter file over the index's docids.
    let map_path = tmp.path().join("spam.map");
    let (spam, _) = load_spam_map(&[fixture("spam/made-up-spam.txt")], &map_path, tmp.path())?;
    let thresholds = Thresholds {
        min_spam_percentile: Some(70),
        ..Thresholds::default()
    };
    let filter_path = tmp.path().join("spam70.filter");
    let header = build_filter(
        &FilterSpec {
            thresholds,
            spam: Some(&spam),
            stats: Some(&index),
            store: None,
            sources: vec!["made-up-spam.txt".into()],
        },
        &filter_path,
    )?;
    println!("filter: {:?}", header.counts);
    let filter = DocFilter::from_bytes(std::fs::read(&filter_path)?)?;

    let (shards, config) = open_shards(&[index])?;
    let (_, topics) = parse_topics(b"1:web page\n")?;
    let selections = [DocSelection {
        name: "spam70".into(),
        filter: Some(filter),
        ..DocSelection::default()
    }];
    let variants: Vec<RunVariant> = [None, Some(0)]
        .into_iter()
        .map(|selection| RunVariant {
            params: Bm25Params { k1: 0.9, b: 0.4 },
            qld: None,
            sdm: false,
            selection,
            tag: if selection.is_some() { "spam70" } else { "all" }.into(),
        })
        .collect();
    let plan = QueryPlan {
        shards: &shards,
        field: TextField::Body,
        variants: &variants,
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
    let runs = run_batch(&plan, &queries, &selections)?;
    for (variant, run) in variants.iter().zip(&runs) {
        println!("{} (top 5 for \"web page\"):", variant.tag);
        for hit in &run[0].1 {
            println!("  {:<40} {:.4}", hit.docid, hit.score);
        }
    }
    Ok(())
}
