//! Near-duplicates of crawl files, checked by brute force: reads every
//! HTML document as `build` does (charset, cleaner, `--text all`), then
//! prints the pairs whose shingle sets have a Jaccard similarity of at
//! least 0.5, with their similarity and whether they share a band key,
//! and the number of clusters found both ways.
//!
//! ```sh
//! cargo run --release -p sieve-bench --example near_dups -- FILE...
//! ```

use std::path::Path;

use sieve_crawl::{CrawlEvent, CrawlOptions, open};
use sieve_filters::minhash::{cluster, jaccard, shingles};
use sieve_filters::utf8::Counting;
use sieve_format::dups::PARAMS;
use sieve_ingest::dedup::band_keys;
use sieve_text::charset::{CharsetMode, decode};
use sieve_text::html::{HtmlOptions, TextMode, extract_text};

fn main() {
    let mut docs = Vec::new();
    for f in std::env::args().skip(1) {
        let r = open(Path::new(&f), &CrawlOptions::default()).expect("open");
        for ev in r {
            if let Ok(CrawlEvent::Doc(d)) = ev {
                let dec = decode(
                    d.body,
                    d.http_charset.as_deref(),
                    d.url.as_deref(),
                    CharsetMode::Auto,
                    Counting::Exact,
                );
                let x = extract_text(&dec.text, &HtmlOptions::default(), TextMode::All, None);
                let text = if shingles(&x.body, 5).is_empty() {
                    x.title.clone()
                } else {
                    x.body.clone()
                };
                let keys = band_keys(&x.title, &x.body);
                docs.push((
                    d.docid,
                    shingles(&text, PARAMS.shingle_words as usize),
                    keys,
                ));
            }
        }
    }
    let n = docs.len();
    let mut pairs = 0;
    let mut strong = 0;
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            x = p[x];
        }
        x
    }
    for i in 0..n {
        for j in i + 1..n {
            let jac = jaccard(&docs[i].1, &docs[j].1);
            if jac >= 0.5 {
                let share = docs[i].2.iter().any(|k| docs[j].2.contains(k));
                println!(
                    "{:.3}\t{}\t{}\t{}\t{}",
                    jac,
                    share,
                    docs[i].0,
                    docs[j].0,
                    docs[i].1.len().min(docs[j].1.len())
                );
                pairs += 1;
            }
            if jac >= PARAMS.threshold() {
                strong += 1;
                let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let brute: std::collections::HashSet<usize> = (0..n).map(|i| find(&mut parent, i)).collect();
    let input: Vec<(String, Option<Vec<u64>>)> = docs
        .iter()
        .map(|(d, _, k)| (d.clone(), (!k.is_empty()).then(|| k.clone())))
        .collect();
    let lsh: std::collections::HashSet<usize> = cluster(&input).into_iter().collect();
    eprintln!(
        "{n} documents; {pairs} pairs with J >= 0.5, {strong} with J >= {:.3}; clusters: brute force (J >= threshold) {}, LSH {}",
        PARAMS.threshold(),
        brute.len(),
        lsh.len()
    );
}
