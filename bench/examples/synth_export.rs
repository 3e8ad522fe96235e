//! Exports the search bench's synthetic collection and topics for the
//! peers (PISA), **analysed by sieve**, so every system scores the
//! same terms: each document's text and each topic's title become sieve's
//! analysed terms (Porter stems, stopwords removed) joined by spaces, and
//! a peer indexes them without stemming or stopwords of its own.
//!
//! ```sh
//! cargo run --release -p sieve-bench --example synth_export -- DOCS DOCS_OUT TOPICS_OUT
//! ```
//!
//! `DOCS_OUT` gets one JSON object per line, `{"docno": "SYN-000000000",
//! "text": "..."}` (`-` writes to standard output, so a peer can index 10M
//! documents without the file); `TOPICS_OUT` gets `N<TAB>terms` for the
//! bench's topics in the bench's order (Web 1-200 titles, then robust04),
//! `N` counting from 0, repeated terms repeated.
//!
//! ```sh
//! cargo run --release -p sieve-bench --example synth_export -- --trec DOCS TREC_OUT
//! ```
//!
//! writes instead the TREC records the search bench indexes (raw words,
//! unanalysed, byte for byte as the bench writes them; `-` for standard
//! output), for a peer that analyses text itself as sieve does (Anserini's
//! English analyser: Lucene's stopwords, Porter).
use std::fs::File;
use std::io::{BufWriter, Write};

use sieve_analysis::{AnalyzerConfig, EnglishAnalyzer};
use sieve_bench::synth::{Corpus, topic_terms, write_trec_doc};

/// `s` as a JSON string (the analyser's terms are plain, but be exact).
fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Standard output for `-`, else a new file.
fn sink(path: &str) -> BufWriter<Box<dyn Write>> {
    let w: Box<dyn Write> = if path == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(File::create(path).expect("create docs file"))
    };
    BufWriter::with_capacity(1 << 20, w)
}

/// `--trec DOCS OUT`: the bench's TREC records.
fn export_trec(docs: usize, out: &str) {
    let mut out = sink(out);
    for (i, d) in Corpus::new(docs).enumerate() {
        if write_trec_doc(&mut out, &d).is_err() {
            // The reader went away (a closed pipe): stop quietly.
            std::process::exit(1);
        }
        if (i + 1) % 1_000_000 == 0 {
            eprintln!("synth_export: {} documents", i + 1);
        }
    }
    out.flush().expect("write docs");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, docs, out] = args.as_slice()
        && flag == "--trec"
    {
        export_trec(docs.parse().expect("DOCS is a number"), out);
        return;
    }
    let [docs, docs_out, topics_out] = args.as_slice() else {
        eprintln!(
            "usage: synth_export DOCS DOCS_OUT|- TOPICS_OUT\n       synth_export --trec DOCS TREC_OUT|-"
        );
        std::process::exit(2);
    };
    let docs: usize = docs.parse().expect("DOCS is a number");
    let analyzer = EnglishAnalyzer::new(AnalyzerConfig::default());

    let mut topics = BufWriter::new(File::create(topics_out).expect("create topics file"));
    let queries = topic_terms(&analyzer);
    let n = queries.len();
    for (i, terms) in queries.iter().enumerate() {
        writeln!(topics, "{i}\t{}", terms.join(" ")).expect("write topics");
    }
    topics.flush().expect("write topics");
    eprintln!("synth_export: {n} topics");

    let mut out = sink(docs_out);
    let mut line = String::new();
    for (i, d) in Corpus::new(docs).enumerate() {
        line.clear();
        line.push_str("{\"docno\": ");
        json_string(&d.docid, &mut line);
        line.push_str(", \"text\": ");
        json_string(&analyzer.terms(&d.text).join(" "), &mut line);
        line.push_str("}\n");
        if out.write_all(line.as_bytes()).is_err() {
            // The reader went away (a closed pipe): stop quietly.
            std::process::exit(1);
        }
        if (i + 1) % 1_000_000 == 0 {
            eprintln!("synth_export: {} documents", i + 1);
        }
    }
    out.flush().expect("write docs");
}
