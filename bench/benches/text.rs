//! Throughput of charset decoding (`sieve_text::charset::decode`) and
//! HTML-to-text (`sieve_text::html::extract`) on real pages, in MB/s of
//! input. Inputs: the article-extraction benchmark pages (UTF-8 news
//! pages) and the chardet corpus (legacy-encoded feeds) from the shared data
//! (`$SIEVE_SHARED_DATA`, else `../shared/data` beside the checkout), else the committed
//! fixtures in `tests/data/html/`. Each benchmark iteration processes every
//! page of its set once.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sieve_filters::utf8::Counting;
use sieve_text::charset::{CharsetMode, decode};
use sieve_text::html::{HtmlOptions, extract};
use std::hint::black_box;
use std::io::Read;
use std::path::{Path, PathBuf};

fn files_in(dir: &Path, recursive: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            if recursive {
                out.extend(files_in(&p, true));
            }
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn read_page(p: &Path) -> Vec<u8> {
    let raw = std::fs::read(p).expect("read page");
    if p.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .expect("gunzip");
        out
    } else {
        raw
    }
}

/// (UTF-8 article pages, legacy-encoded pages).
fn inputs() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (articles, legacy) =
        match sieve_testdata::shared_file("", "text bench (article and chardet pages)") {
            Some(d) => (
                files_in(&d.join("html/article-extraction-benchmark/html"), false),
                files_in(&d.join("html/chardet-tests/tests"), true),
            ),
            None => {
                eprintln!("shared data absent (set SIEVE_SHARED_DATA): using committed fixtures");
                (
                    files_in(&root.join("tests/data/html/articles"), false),
                    files_in(&root.join("tests/data/html/charsets"), false),
                )
            }
        };
    let name = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let articles: Vec<PathBuf> = articles
        .into_iter()
        .filter(|p| name(p).ends_with(".html.gz"))
        .collect();
    let legacy: Vec<PathBuf> = legacy
        .into_iter()
        .filter(|p| !name(p).starts_with("LICENSE") && !name(p).starts_with("README"))
        .collect();
    (
        articles.iter().map(|p| read_page(p)).collect(),
        legacy.iter().map(|p| read_page(p)).collect(),
    )
}

fn bench_text(c: &mut Criterion) {
    let (articles, legacy) = inputs();
    let article_bytes: usize = articles.iter().map(Vec::len).sum();
    let legacy_bytes: usize = legacy.iter().map(Vec::len).sum();
    eprintln!(
        "inputs: {} UTF-8 article pages ({article_bytes} bytes), {} legacy pages ({legacy_bytes} bytes)",
        articles.len(),
        legacy.len()
    );
    let decoded: Vec<String> = articles
        .iter()
        .map(|b| decode(b.clone(), None, None, CharsetMode::Auto, Counting::Exact).text)
        .collect();
    let opts = HtmlOptions::default();

    let mut g = c.benchmark_group("text");
    g.throughput(Throughput::Bytes(article_bytes as u64));
    g.bench_function("decode_articles_utf8", |b| {
        b.iter_batched(
            || articles.clone(),
            |pages| {
                for p in pages {
                    black_box(decode(p, None, None, CharsetMode::Auto, Counting::Exact));
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.bench_function("extract_articles", |b| {
        b.iter(|| {
            for t in &decoded {
                black_box(extract(t, &opts));
            }
        })
    });
    g.bench_function("decode_and_extract_articles", |b| {
        b.iter_batched(
            || articles.clone(),
            |pages| {
                for p in pages {
                    let d = decode(p, None, None, CharsetMode::Auto, Counting::Exact);
                    black_box(extract(&d.text, &opts));
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.throughput(Throughput::Bytes(legacy_bytes as u64));
    g.bench_function("decode_chardet_corpus", |b| {
        b.iter_batched(
            || legacy.clone(),
            |pages| {
                for p in pages {
                    black_box(decode(p, None, None, CharsetMode::Auto, Counting::Exact));
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench_text);
criterion_main!(benches);
