//! The text sieve extracts from HTML files, as JSON lines, for the
//! extraction benchmark (`bench/peers/extraction.py`).
//!
//! ```sh
//! cargo run --release -p sieve-bench --example html_text -- all|main FILE...
//! ```
//!
//! Each FILE (plain or gzipped HTML) is decoded as `build` decodes a body
//! with no HTTP charset (BOM, `<meta>`, then the detector) and extracted
//! with `--text all` or `--text main`; one line per file:
//! `{"file": ..., "title": ..., "text": ...}`.

use std::io::Read;

use sieve_filters::utf8::Counting;
use sieve_text::charset::{CharsetMode, decode};
use sieve_text::html::{HtmlOptions, TextMode, extract_text};

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = match args.next().as_deref() {
        Some("all") => TextMode::All,
        Some("main") => TextMode::Main,
        _ => {
            eprintln!("usage: html_text all|main FILE...");
            std::process::exit(2);
        }
    };
    for path in args {
        let raw = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(&raw[..])
                .read_to_end(&mut out)
                .unwrap_or_else(|e| panic!("{path}: {e}"));
            out
        } else {
            raw
        };
        let d = decode(bytes, None, None, CharsetMode::Auto, Counting::Exact);
        let x = extract_text(&d.text, &HtmlOptions::default(), mode, None);
        let line = serde_json::json!({"file": path, "title": x.title, "text": x.body});
        println!("{line}");
    }
}
