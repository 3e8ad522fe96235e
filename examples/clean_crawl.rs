//! Walkthrough: read a web crawl leniently and count its malformed UTF-8.
//!
//! Shows the two lowest layers of sieve: [`sieve_crawl`] streams a
//! WARC (or TREC) file record by record, never failing on damaged framing
//! (skipped records and framing anomalies are events too), and
//! [`sieve_filters::utf8::clean_in_place`] repairs each document's bytes in
//! place (same length, valid UTF-8 afterwards) and counts the seven error
//! classes of "Malformed UTF-8 and Spam" (ADCS 2013). The bodies are cleaned
//! as raw bytes, before any charset decoding: this is the paper's (ATIRE's)
//! view, so pages in Latin-1 or GBK show up as errors.
//!
//! Run it on the committed ClueWeb09 fixture, or on any crawl file:
//!
//! ```sh
//! cargo run --example clean_crawl [-- FILE.warc.gz]
//! ```

use std::path::PathBuf;

use sieve_crawl::{CrawlEvent, CrawlOptions};
use sieve_filters::utf8::{Utf8Counts, clean_in_place};
use sieve_testdata::fixture;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| fixture("warc/copycat__cw09-en0000-00.warc.gz"));
    let (mut docs, mut skipped, mut anomalies) = (0u64, 0u64, 0u64);
    let mut total = Utf8Counts::default();
    for event in sieve_crawl::open(&path, &CrawlOptions::default())? {
        match event? {
            CrawlEvent::Doc(mut doc) => {
                docs += 1;
                let counts = clean_in_place(&mut doc.body);
                if !counts.is_clean() {
                    println!("{:<28} {:>4} errors", doc.docid, counts.total());
                }
                total += counts;
            }
            CrawlEvent::Skip(_) => skipped += 1,
            CrawlEvent::Anomaly(_) => anomalies += 1,
        }
    }
    println!(
        "{}: {docs} documents, {skipped} records skipped, {anomalies} anomalies",
        path.display()
    );
    for (class, n) in total.iter() {
        println!("  {:<24} {n}", class.key());
    }
    Ok(())
}
