//! The flags of `build`, `build-shard` and `extract` turned into the
//! library's [`BuildOptions`], and the flag names added to the library's
//! errors (the library names no flag).

use std::path::Path;

use anyhow::anyhow;
use sieve_analysis::{AnalyzerConfig, Stemmer, Stopwords};
use sieve_crawl::CrawlOptions;
use sieve_crawl::inputs::{self, Inputs};
use sieve_ingest::Error;
use sieve_ingest::options::{BuildOptions, DocTimeout, check_threads};
use sieve_text::charset::CharsetMode;
use sieve_text::html::TextMode;

use crate::args::{BuildArgs, Charset, DocTimeoutArg, TextArg};

/// Names the flag that fixes a library error (the library names none).
pub fn with_flags(e: Error) -> anyhow::Error {
    match e {
        Error::IndexExists { path } => anyhow!(
            "{}: an index already exists here; pass --resume to continue it, or choose a new directory",
            path.display()
        ),
        Error::ResumeQuarantine { path, had, has } => anyhow!(
            "{}: cannot resume with a different --quarantine: the interrupted build had {had}, this run has {has}",
            path.display()
        ),
        e => e.into(),
    }
}

/// Expands the inputs, warning about each entry skipped.
pub fn expand(specs: &[String]) -> anyhow::Result<Inputs> {
    let inputs = inputs::expand(specs)?;
    for s in &inputs.skipped {
        eprintln!("sieve-index: warning: skipped {}: {}", s.path, s.reason);
    }
    Ok(inputs)
}

/// The library's options from the command line's plain values: `a` read
/// into `out` with `threads` workers, resuming an interrupted run if
/// `resume`. Flags are checked in the order the help lists them.
pub fn build_options(
    a: &BuildArgs,
    out: &Path,
    threads: usize,
    resume: bool,
) -> anyhow::Result<BuildOptions> {
    let inputs = expand(&a.input)?;
    let mut opts = BuildOptions::new(inputs.files, out.to_path_buf());
    opts.skipped_inputs = inputs.skipped;
    opts.threads = check_threads(threads)
        .map_err(|_| anyhow!("--threads must be at least 1"))?
        .get();
    opts.charset = match a.charset {
        Charset::Auto => CharsetMode::Auto,
        Charset::Utf8 => CharsetMode::ForceUtf8,
    };
    opts.near_duplicates = !a.no_near_duplicates;
    opts.contents.positions = a.positions;
    opts.contents.docvectors = a.docvectors;
    opts.text = match a.text {
        TextArg::All => TextMode::All,
        TextArg::Main => TextMode::Main,
    };
    set_reading(a, &mut opts.crawl)?;
    set_document_caps(a, &mut opts);
    opts.quarantine = a.quarantine.clone();
    opts.analyzer = analyzer(a);
    opts.resume = resume;
    opts.set_writer_mb(a.writer_mb);
    opts.set_commit_mb(a.commit_every_mb);
    opts.max_merge_docs = a.max_merge_docs.max(1);
    if let Some(f) = &a.filter {
        opts.set_filter_file(f)?;
    }
    if !a.spam.is_empty() {
        load_spam(&mut opts, a)?;
    }
    Ok(opts)
}

/// How records are read: size caps, the docid header, the JSON keys and
/// the TSV columns.
fn set_reading(a: &BuildArgs, crawl: &mut CrawlOptions) -> anyhow::Result<()> {
    crawl.max_record_bytes = a.max_record_bytes;
    crawl.max_decompression_ratio = a.max_decompression_ratio;
    if let Some(h) = &a.docid_header {
        anyhow::ensure!(
            !h.trim().is_empty() && !h.contains(':') && h.trim() == h,
            "--docid-header {h:?}: expected a header name such as ClueWeb22-ID"
        );
        crawl.docid_header = Some(h.clone());
    }
    let f = &mut crawl.json_fields;
    for (given, keys) in [
        (&a.id_field, &mut f.id),
        (&a.title_field, &mut f.title),
        (&a.text_field, &mut f.text),
        (&a.url_field, &mut f.url),
        (&a.language_field, &mut f.language),
    ] {
        if !given.is_empty() {
            keys.clone_from(given);
        }
    }
    crawl.tsv_columns = sieve_crawl::parse_tsv_columns(&a.tsv_columns)
        .map_err(|e| anyhow!("--tsv-columns {}: {e}", a.tsv_columns))?;
    Ok(())
}

/// The caps on one document's extraction: HTML depth, text length, time.
fn set_document_caps(a: &BuildArgs, opts: &mut BuildOptions) {
    opts.html.max_depth = a.max_html_depth;
    opts.html.max_text_bytes = a.max_text_bytes;
    opts.set_max_doc_ms(a.max_doc_ms);
    opts.doc_timeout = match a.doc_timeout {
        DocTimeoutArg::Skip => DocTimeout::Skip,
        DocTimeoutArg::Truncate => DocTimeout::Truncate,
    };
}

/// The analyser of `--no-stem` and `--keep-stopwords`.
fn analyzer(a: &BuildArgs) -> AnalyzerConfig {
    AnalyzerConfig {
        stemmer: if a.no_stem {
            Stemmer::None
        } else {
            Stemmer::Porter
        },
        stopwords: if a.keep_stopwords {
            Stopwords::None
        } else {
            Stopwords::Lucene
        },
    }
}

/// Reads the `--spam` rankings into a map, saying on stderr how many lines
/// and docids it holds.
fn load_spam(opts: &mut BuildOptions, a: &BuildArgs) -> anyhow::Result<()> {
    // In the temporary directory: nothing is written beside the index
    // before the build holds its lock.
    let st = opts.set_spam_files_in_temp(&a.spam)?;
    eprintln!(
        "spam scores: {} lines read, {} distinct docids{}",
        st.lines,
        st.docids,
        if st.runs > 1 {
            format!(" (sorted on disk in {} parts)", st.runs)
        } else {
            String::new()
        }
    );
    Ok(())
}
