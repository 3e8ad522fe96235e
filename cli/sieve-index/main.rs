//! `sieve-index`: build tantivy indexes from web crawls.
//!
//! A thin command line over `sieve_ingest` and `sieve_report`: each subcommand turns its
//! parsed arguments into one library call and prints the result. Flag
//! names appear only here (see [`with_flags`]).

mod progress;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use clap::{Parser, Subcommand, ValueEnum};
use sieve_ingest::Error;
use sieve_analysis::{AnalyzerConfig, Stemmer, Stopwords};
use sieve_ingest::build::build;
use sieve_text::charset::CharsetMode;
use sieve_cli::exit::{ExitStatus, error_chain};
use sieve_ingest::extract::{ExtractOptions, Format, RecordSpec, extract};
use sieve_text::html::TextMode;
use sieve_format::index::{STATS, Unfinished, create_private_dir, list_docids, open_index_with};
use sieve_crawl::inputs::{self, Inputs};
use sieve_ingest::options::{BuildOptions, DocTimeout, check_threads, default_threads};
use sieve_report::encoding::{ReportOptions, write_report};
use sieve_ingest::shard::{build_shard, merge_shards, read_stats};
use sieve_report::show::ShowIndex;
use sieve_format::stats::BuildStats;
use sieve_ingest::summary::summary;

/// Build tantivy indexes from web crawls and IR collections, and show their documents.
#[derive(Debug, Parser)]
#[command(name = "sieve-index", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Index crawl files (WARC incl. ClueWeb22, TREC SGML, SMART, JSON lines,
    /// TSV; plain or gzipped, detected from the bytes) into DIR.
    Build {
        #[command(flatten)]
        build: BuildArgs,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// When stderr is not a terminal (a log file, a cluster job), print a
        /// progress line every SECS seconds (fractions allowed); 0 for none.
        /// On a terminal a spinner shows progress instead.
        #[arg(long, value_name = "SECS", default_value_t = 30.0)]
        progress_every: f64,
        /// Continue an interrupted build in DIR.
        #[arg(long)]
        resume: bool,
        /// Print the statistics as JSON instead of a summary.
        #[arg(long)]
        json: bool,
    },
    /// Build one shard with one thread (Spark runs many shards at once),
    /// written to a temporary directory and renamed into place, so a
    /// retried task is harmless. With `--input -`, reads one input path per
    /// line from stdin (for Spark's RDD.pipe).
    BuildShard {
        #[command(flatten)]
        build: BuildArgs,
        /// Print the shard record as one JSON line (for the driver).
        #[arg(long)]
        record: bool,
        /// Ignored (a shard is built with one thread); accepted so that old
        /// scripts keep working.
        #[arg(long, hide = true)]
        threads: Option<usize>,
        /// Ignored (a shard is built whole or not at all, and a finished one
        /// is kept); accepted so that old scripts keep working.
        #[arg(long, hide = true)]
        resume: bool,
        /// Ignored (`--record` prints the shard record as JSON); accepted so
        /// that old scripts keep working.
        #[arg(long, hide = true)]
        json: bool,
    },
    /// Write the documents of crawl files as a corpus instead of indexing
    /// them: one gzipped JSON-lines (or Parquet) file per input in DIR (docid, URL,
    /// charset and its source, the seven error counts, spam percentile,
    /// title, text in paragraphs), the near-duplicate clusters
    /// (near-duplicates.tsv.gz), stats.json and losses.jsonl. The same
    /// reader, caps, filter, quarantine, exit codes and --resume as build.
    #[command(mut_arg("index", |a| a.required(false).hide(true)))]
    Extract {
        #[command(flatten)]
        build: BuildArgs,
        /// The output directory (created; its parent must exist).
        #[arg(long = "output-dir", value_name = "DIR")]
        output_dir: PathBuf,
        /// Output format: gzipped JSON lines, or Parquet (the same fields as
        /// columns, snappy-compressed).
        #[arg(long, value_enum, default_value = "jsonl")]
        format: FormatArg,
        /// Also write each record's WARC and HTTP headers and its HTML
        /// (decoded to UTF-8).
        #[arg(long)]
        full: bool,
        /// Template removal: drop every paragraph found in more than K
        /// documents of the same input file (and the documents left without
        /// text).
        #[arg(long, value_name = "K")]
        max_paragraph_docs: Option<u32>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Progress line every SECS seconds when stderr is not a terminal.
        #[arg(long, value_name = "SECS", default_value_t = 30.0)]
        progress_every: f64,
        /// Continue an interrupted extract in DIR.
        #[arg(long)]
        resume: bool,
        /// Print the statistics as JSON instead of a summary.
        #[arg(long)]
        json: bool,
    },
    /// Print the near-duplicates of an index: `docid<TAB>representative`
    /// for every document in a near-duplicate cluster of two or more, in
    /// index order (the representative, the cluster's smallest docid,
    /// names itself); documents not listed are alone.
    ///
    /// With --extracts instead: cluster the documents of several finished
    /// extracts together (the parts of a distributed extract) and write
    /// the list, gzipped, to --output FILE.
    NearDuplicates {
        /// The index directory.
        #[arg(
            long,
            value_name = "DIR",
            required_unless_present = "extracts",
            conflicts_with = "extracts"
        )]
        index: Option<PathBuf>,
        /// Extract output directories, in input order.
        #[arg(long, num_args = 1.., value_name = "DIR", requires = "output")]
        extracts: Vec<PathBuf>,
        /// The near-duplicates file to write (with --extracts; must not exist).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Read crawl files without indexing: one JSON line per file with the
    /// records, responses and HTML documents recovered, framing anomalies,
    /// the error that stopped reading (if any) and the seconds taken.
    Scan {
        /// Input files, directories (recursive) or glob patterns.
        #[arg(long, short, required = true, num_args = 1.., value_name = "PATH")]
        input: Vec<String>,
        /// Largest HTTP body kept per record, in bytes (as for build).
        #[arg(long, default_value_t = 10 * 1024 * 1024)]
        max_record_bytes: u64,
    },
    /// Merge finished shards into one index.
    Merge {
        /// Shard directories.
        #[arg(long, required = true, num_args = 1.., value_name = "DIR")]
        shards: Vec<PathBuf>,
        /// The merged index directory (created; must not exist).
        #[arg(long = "index", alias = "out", alias = "output", value_name = "DIR")]
        out: PathBuf,
    },
    /// Write the encoding-error report (the paper's Table 1 and Figure 5,
    /// significance tests, charset sources) from an index's fast fields.
    Report {
        /// The index directory.
        #[arg(long, value_name = "DIR")]
        index: PathBuf,
        /// Spam rankings to use instead of the index's stored percentiles.
        #[arg(long, num_args = 1.., value_name = "FILE")]
        spam: Vec<PathBuf>,
        /// Directory for the report's files (created).
        #[arg(long = "output-dir", alias = "out", value_name = "DIR")]
        out: PathBuf,
        /// Read an index whose build did not finish (killed, or being
        /// resumed): only its committed documents, with a warning on stderr.
        #[arg(long)]
        allow_unfinished: bool,
        /// Add ATIRE-compatible counts to Table 1, side by side.
        #[arg(long)]
        atire_counts: bool,
        /// Bin Figure 5 by spam decile instead of percentile (writes
        /// by-decile.tsv and figure5-deciles.svg).
        #[arg(long)]
        deciles: bool,
        /// Draw Figure 5 as the paper does: per class, the cumulative
        /// percentage of its occurrences in documents at or below each
        /// spam percentile (writes cumulative-by-*.tsv and
        /// figure5-cumulative*.svg).
        #[arg(long)]
        cumulative: bool,
        /// Draw Figure 5 on a logarithmic y axis (zeros are drawn as
        /// hollow markers on a separate 0 line below the axis).
        #[arg(long)]
        log_y: bool,
    },
    /// (Re)build the block-max bounds files (IDX/bounds/<segment>.bmx) of
    /// an index built before they existed, or whose bounds are damaged:
    /// valid files are kept, missing or invalid ones rewritten, files of
    /// segments no longer in the index removed.
    Bounds {
        /// The index directory.
        #[arg(long, value_name = "DIR")]
        index: PathBuf,
    },
    /// Show documents of an index: for each DOCID, the source file and
    /// offset of its record, record id, URL, language, charset and the
    /// source that decided it, the seven UTF-8 error counts, spam
    /// percentile, and the title and text extracted again from the record
    /// (which must be unchanged since the build: size and modification time
    /// are checked). Works on shards and merged indexes.
    Show {
        /// The index directory.
        #[arg(long, value_name = "DIR")]
        index: PathBuf,
        /// Docids to show.
        #[arg(required = true, value_name = "DOCID")]
        docids: Vec<String>,
        /// Read an index whose build did not finish (killed, or being
        /// resumed): only its committed documents, with a warning on stderr.
        #[arg(long)]
        allow_unfinished: bool,
        /// Write the original bytes of each record, exactly as in the source
        /// file, instead (concatenated: WARC records make a WARC file). A
        /// one-stream gzip file is decompressed from its start to reach a
        /// record (said on stderr); a per-record gzip member is read alone.
        #[arg(long, conflicts_with_all = ["html", "json"])]
        raw: bool,
        /// Write one self-contained HTML page (title, facts, text), with the
        /// terms of --query marked.
        #[arg(long, conflicts_with = "json")]
        html: bool,
        /// Mark the words of this query in the --html page (analysed as the
        /// index analyses text, so `running` marks `runs`).
        #[arg(long, value_name = "TEXT", requires = "html")]
        query: Option<String>,
        /// One JSON object per document instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print every docid of an index, one per line, sorted; with
    /// --doc-stats, a TSV of per-document statistics instead (the input of
    /// `sieve-filter build --doc-stats FILE.tsv`).
    Docids {
        /// The index directory.
        #[arg(long, value_name = "DIR")]
        index: PathBuf,
        /// Print `docid bytes spam <seven class counts>` per document, in
        /// index order (streamed; not sorted).
        #[arg(long = "doc-stats", alias = "stats")]
        stats: bool,
        /// Read an index whose build did not finish (killed, or being
        /// resumed): only its committed documents, with a warning on stderr.
        #[arg(long)]
        allow_unfinished: bool,
    },
    /// Check every file of an index against its checksum (sieve.json,
    /// stats.json, every tantivy segment file, the block-max bounds and
    /// near-duplicate sidecars) and name each missing or damaged one, and
    /// say whether its build finished; exit 1 if a file is missing or
    /// damaged or the build is unfinished. Reads the whole index once.
    Verify {
        /// The index directory.
        #[arg(long, value_name = "DIR")]
        index: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FormatArg {
    /// Gzipped JSON lines.
    Jsonl,
    /// Parquet.
    Parquet,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TextArg {
    /// All visible text (the default for indexing, as Anserini does).
    All,
    /// The main content only: running text without navigation, headers,
    /// footers, link lists and widgets.
    Main,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Charset {
    /// HTTP header, BOM, <meta>, then a detector; valid UTF-8 is UTF-8.
    Auto,
    /// Every byte is UTF-8 (ATIRE's treatment, as in the paper).
    Utf8,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum DocTimeoutArg {
    /// Do not index the document.
    Skip,
    /// Index the text extracted before the deadline.
    Truncate,
}

#[derive(Debug, clap::Args)]
struct BuildArgs {
    /// Input files, directories (recursive) or glob patterns.
    #[arg(long, short, required = true, num_args = 1.., value_name = "PATH")]
    input: Vec<String>,
    /// The index directory (created; its parent must exist).
    #[arg(long, value_name = "DIR", required = true)]
    index: Option<PathBuf>,
    /// Charset handling.
    #[arg(long, value_enum, default_value = "auto")]
    charset: Charset,
    /// Which text of a page is kept.
    #[arg(long, value_enum, default_value = "all")]
    text: TextArg,
    /// Do not compute near-duplicates (no MinHash band keys, no clusters;
    /// --drop-near-duplicates then cannot be used on the index).
    #[arg(long)]
    no_near_duplicates: bool,
    /// Largest HTTP body kept per record, in bytes; longer ones are truncated and counted.
    #[arg(long, default_value_t = 10 * 1024 * 1024)]
    max_record_bytes: u64,
    /// Largest decompressed/compressed ratio of a gzip input before it is treated as a bomb.
    #[arg(long, default_value_t = 200)]
    max_decompression_ratio: u64,
    /// Deepest HTML nesting followed.
    #[arg(long, default_value_t = 256)]
    max_html_depth: usize,
    /// Longest extracted text per document, in bytes.
    #[arg(long, default_value_t = 4 << 20)]
    max_text_bytes: usize,
    /// Time budget per document (charset decoding, cleaning, HTML
    /// extraction, analysis), in milliseconds; 0 (the default) for none. A
    /// wall-clock budget makes the index depend on the machine's speed and
    /// load: only set it for untrusted crawls.
    #[arg(long, default_value_t = 0)]
    max_doc_ms: u64,
    /// What happens to a document over `--max-doc-ms`: `skip` it, or index
    /// the text extracted before the deadline (`truncate`).
    #[arg(long, value_enum, default_value = "skip")]
    doc_timeout: DocTimeoutArg,
    /// Write every record not indexed (and every document that hit a cap) to
    /// DIR, named by input ordinal and offset, indexed by DIR/quarantine.jsonl.
    /// `build-shard` writes to DIR/<shard name>.
    #[arg(long, value_name = "DIR")]
    quarantine: Option<PathBuf>,
    /// Turn off the Porter stemmer.
    #[arg(long)]
    no_stem: bool,
    /// Keep stopwords.
    #[arg(long)]
    keep_stopwords: bool,
    /// Drop documents this filter file (from `sieve-filter build`) does not keep.
    #[arg(long, value_name = "FILE")]
    filter: Option<PathBuf>,
    /// Waterloo spam-ranking files (`percentile docid`, plain or .gz); the
    /// percentile is stored as a fast field.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    spam: Vec<PathBuf>,
    /// Memory budget of the tantivy writer, in MB.
    #[arg(long, default_value_t = 256)]
    writer_mb: usize,
    /// Commit after a group of whole input files that hold at least this
    /// many MB (their sizes on disk); the last file always commits; 0:
    /// after every file. A kill costs the work since the last commit (a
    /// resumed build reads those files again); the index is the same for
    /// any value.
    #[arg(long, value_name = "MB", default_value_t = sieve_ingest::options::DEFAULT_COMMIT_MB)]
    commit_every_mb: u64,
    /// No merge makes a segment of more documents than this.
    #[arg(long, hide = true, default_value_t = sieve_ingest::order::MAX_MERGE_DOCS)]
    max_merge_docs: u32,
    /// The WARC header read as the docid (e.g. ClueWeb22-ID); a record
    /// without it is skipped (no_docid). Default: the first present of
    /// WARC-TREC-ID, ClueWeb22-ID, WARC-Record-ID. Recorded in sieve.json; a
    /// resume with another is refused.
    #[arg(long, value_name = "NAME")]
    docid_header: Option<String>,
    /// JSON lines: the key(s) of the docid, the first met wins (default:
    /// id, _id, docid, ClueWeb22-ID).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    id_field: Vec<String>,
    /// JSON lines: the key(s) of the title, the first met wins (default: title).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    title_field: Vec<String>,
    /// JSON lines: the key(s) of the text, all present are joined
    /// (default: contents, text, body, Clean-Text).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    text_field: Vec<String>,
    /// JSON lines: the key(s) of the URL (default: url, URL).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    url_field: Vec<String>,
    /// JSON lines: the key(s) of the language (default: language, Language).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    language_field: Vec<String>,
    /// TSV lines: the columns, comma-separated, from id, title, text, url,
    /// language and - (not read); the last takes the rest of the line
    /// (MS MARCO documents: id,url,title,text).
    #[arg(long, value_name = "LIST", default_value = "id,text")]
    tsv_columns: String,
}

/// Names the flag that fixes a library error (the library names none).
fn with_flags(e: Error) -> anyhow::Error {
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
fn expand(specs: &[String]) -> anyhow::Result<Inputs> {
    let inputs = inputs::expand(specs)?;
    for s in &inputs.skipped {
        eprintln!("sieve-index: warning: skipped {}: {}", s.path, s.reason);
    }
    Ok(inputs)
}

/// The library's options from the command line's plain values.
fn build_options(
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
    opts.text = match a.text {
        TextArg::All => TextMode::All,
        TextArg::Main => TextMode::Main,
    };
    opts.crawl.max_record_bytes = a.max_record_bytes;
    opts.crawl.max_decompression_ratio = a.max_decompression_ratio;
    if let Some(h) = &a.docid_header {
        anyhow::ensure!(
            !h.trim().is_empty() && !h.contains(':') && h.trim() == h,
            "--docid-header {h:?}: expected a header name such as ClueWeb22-ID"
        );
        opts.crawl.docid_header = Some(h.clone());
    }
    let f = &mut opts.crawl.json_fields;
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
    opts.crawl.tsv_columns = sieve_crawl::parse_tsv_columns(&a.tsv_columns)
        .map_err(|e| anyhow!("--tsv-columns {}: {e}", a.tsv_columns))?;
    opts.html.max_depth = a.max_html_depth;
    opts.html.max_text_bytes = a.max_text_bytes;
    opts.set_max_doc_ms(a.max_doc_ms);
    opts.doc_timeout = match a.doc_timeout {
        DocTimeoutArg::Skip => DocTimeout::Skip,
        DocTimeoutArg::Truncate => DocTimeout::Truncate,
    };
    opts.quarantine = a.quarantine.clone();
    opts.analyzer = AnalyzerConfig {
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
    };
    opts.resume = resume;
    opts.set_writer_mb(a.writer_mb);
    opts.set_commit_mb(a.commit_every_mb);
    opts.max_merge_docs = a.max_merge_docs.max(1);
    if let Some(f) = &a.filter {
        opts.set_filter_file(f)?;
    }
    if !a.spam.is_empty() {
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
    }
    Ok(opts)
}

/// The flags of `build` that `build-shard` does not honour.
struct BuildOnly {
    threads: Option<usize>,
    progress_every: f64,
    resume: bool,
    json: bool,
}

/// `sieve-index build`.
fn run_build(a: BuildArgs, flags: BuildOnly) -> anyhow::Result<ExitCode> {
    let BuildOnly {
        threads,
        progress_every: every,
        resume,
        json,
    } = flags;
    anyhow::ensure!(
        every.is_finite() && every >= 0.0,
        "--progress-every {every}: expected a number of seconds, 0 for none"
    );
    let index = a.index.clone().context("--index DIR is required")?;
    let opts = build_options(&a, &index, threads.unwrap_or_else(default_threads), resume)?;
    let every = (every > 0.0).then(|| std::time::Duration::from_secs_f64(every));
    let progress = progress::Reporter::new(std::io::stderr().is_terminal(), every);
    let stats = build(&opts, &progress).map_err(with_flags);
    progress.finish();
    let stats = stats?;
    if json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        summary(&stats, &mut std::io::stdout())?;
        println!("every count, per file: {}", index.join(STATS).display());
    }
    Ok(build_exit(&stats, json))
}

/// `sieve-index near-duplicates`.
fn run_near_duplicates(index: &Path) -> anyhow::Result<ExitCode> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut err = None;
    sieve_ingest::dedup::for_each_clustered_doc(index, |docid, rep| {
        if err.is_none() {
            err = writeln!(out, "{docid}\t{rep}").err();
        }
    })?;
    if let Some(e) = err {
        return Err(e.into());
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `sieve-index extract`.
fn run_extract(
    a: BuildArgs,
    out: &Path,
    spec: RecordSpec,
    flags: BuildOnly,
) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        a.index.is_none(),
        "extract writes to --output-dir DIR; --index is for build"
    );
    let BuildOnly {
        threads,
        progress_every: every,
        resume,
        json,
    } = flags;
    anyhow::ensure!(
        every.is_finite() && every >= 0.0,
        "--progress-every {every}: expected a number of seconds, 0 for none"
    );
    let build = build_options(&a, out, threads.unwrap_or_else(default_threads), resume)?;
    let every = (every > 0.0).then(|| std::time::Duration::from_secs_f64(every));
    let progress = progress::Reporter::new(std::io::stderr().is_terminal(), every);
    let opts = ExtractOptions { build, spec };
    let stats = extract(&opts, &progress).map_err(|e| match e {
        Error::IndexExists { path } => anyhow!(
            "{}: an extract already exists here; pass --resume to continue it, or choose a new directory",
            path.display()
        ),
        e => with_flags(e),
    });
    progress.finish();
    let stats = stats?;
    if json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        summary(&stats, &mut std::io::stdout())?;
        println!(
            "documents in {}, every count per file in {}",
            out.display(),
            out.join(STATS).display()
        );
    }
    Ok(build_exit(&stats, json))
}

/// Reports spam coverage and the files not read to their end (with the
/// reason when `json` replaced the summary that gives it); the exit status
/// follows [`ExitStatus::of_build`] (3: a file lost in whole or in
/// part, 4: nothing indexed).
fn build_exit(stats: &BuildStats, json: bool) -> ExitCode {
    if let Some(unscored) = stats.spam_without_doc {
        eprintln!(
            "spam coverage: {} indexed docs without a score, {} scores without an indexed doc",
            stats.totals.indexed - stats.totals.spam_scored,
            unscored
        );
    }
    for (file, f) in stats
        .files
        .iter()
        .filter_map(|file| Some((file, file.failure()?)))
    {
        if json {
            eprintln!("sieve-index: not read to the end: {f}");
        } else {
            // The summary on stdout gave the reason.
            eprintln!("sieve-index: not read to the end: {}", file.path);
        }
        let gaps = stats
            .totals
            .anomalies
            .get("gzip_member")
            .copied()
            .unwrap_or(0);
        if gaps > 0 {
            eprintln!("sieve-index: {gaps} damaged gzip member(s) skipped; see losses.jsonl");
        }
    }
    let status = ExitStatus::of_build(stats);
    if status == ExitStatus::PartialInput {
        eprintln!(
            "sieve-index: done, but part of the input was lost (see stats.json and losses.jsonl): exit code 3"
        );
    }
    exit(status)
}

/// The process exit code of `status`.
fn exit(status: ExitStatus) -> ExitCode {
    ExitCode::from(status.code())
}

/// `sieve-index build-shard`.
fn run_build_shard(
    mut build: BuildArgs,
    record: bool,
    threads: Option<usize>,
) -> anyhow::Result<ExitCode> {
    if threads.is_some_and(|t| t != 1) {
        eprintln!("sieve-index: build-shard builds with one thread; --threads is ignored");
    }
    if build.input == ["-"] {
        build.input = std::io::stdin()
            .lines()
            .map(|l| l.map(|l| l.trim().to_string()))
            .filter(|l| l.as_ref().map_or(true, |l| !l.is_empty()))
            .collect::<Result<_, _>>()?;
    }
    let out = build.index.clone().context("--index DIR is required")?;
    let opts = build_options(&build, &out, 1, false)?;
    let rec = build_shard(opts, &out).map_err(with_flags)?;
    if record {
        println!("{}", serde_json::to_string(&rec)?);
    } else {
        println!(
            "{} {}: {} docs",
            if rec.built { "built" } else { "already built" },
            rec.shard,
            rec.indexed
        );
    }
    Ok(exit(ExitStatus::of_build(&read_stats(&out)?)))
}

/// `sieve-index report`: `opts` as given on the command line, its spam
/// map loaded here from `spam` when that is not empty.
fn run_report(
    index: &Path,
    spam: &[PathBuf],
    out: &Path,
    mut opts: ReportOptions,
) -> anyhow::Result<ExitCode> {
    if !spam.is_empty() {
        let tmp = tempfile::tempdir().context("temporary directory")?;
        let map_path = tmp.path().join("spam.fst");
        opts.spam = Some(sieve_ingest::spamfile::load_spam_map(spam, &map_path, tmp.path())?.0);
    }
    // Refused (or warned about) before the output directory is made.
    open_index_with(index, opts.unfinished)?;
    warn_unfinished(index);
    create_private_dir(out)?;
    let s = write_report(index, out, &opts)?;
    println!(
        "{} docs ({} without a spam score) in {:.3}s",
        s.docs, s.unscored, s.seconds
    );
    println!("{}", s.near_duplicates);
    for f in &s.files {
        println!("wrote {}", f.display());
    }
    for w in &s.warnings {
        eprintln!("sieve-index report: warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `sieve-index merge`.
fn run_merge(shards: &[PathBuf], out: &Path) -> anyhow::Result<ExitCode> {
    let stats = merge_shards(shards, out)?;
    summary(&stats, &mut std::io::stdout())?;
    Ok(exit(ExitStatus::of_build(&stats)))
}

/// `sieve-index scan`.
fn run_scan(input: &[String], max_record_bytes: u64) -> anyhow::Result<ExitCode> {
    let opts = sieve_crawl::CrawlOptions {
        max_record_bytes,
        ..Default::default()
    };
    let mut out = std::io::stdout().lock();
    let (mut records, mut lost) = (0, 0);
    for path in expand(input)?.files {
        let s = sieve_crawl::scan::scan(&path, &opts);
        if let Some(e) = &s.error {
            // The error names the file.
            eprintln!("sieve-index scan: stopped: {e}");
            lost += 1;
        }
        records += s.records;
        writeln!(out, "{}", serde_json::to_string(&s)?)?;
    }
    Ok(exit(ExitStatus::of_outcome(records, lost)))
}

/// Warns, on every run, when `--allow-unfinished` lets the unfinished
/// index `index` be read.
fn warn_unfinished(index: &Path) {
    if let Some(w) = sieve_format::index::unfinished_warning(index) {
        eprintln!("sieve-index: warning: {w}");
    }
}

/// `sieve-index docids`.
fn run_docids(index: &Path, stats: bool, unfinished: Unfinished) -> anyhow::Result<ExitCode> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if stats {
        sieve_ingest::filterbuild::write_stats_tsv(index, unfinished, &mut out)?;
    } else {
        for d in list_docids(index, unfinished)? {
            writeln!(out, "{d}")?;
        }
    }
    warn_unfinished(index);
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Opens the index of `sieve-index show` (warning when it is unfinished
/// and allowed).
fn open_show(index: &Path, unfinished: Unfinished) -> anyhow::Result<ShowIndex> {
    let ix = ShowIndex::open(index, unfinished)?;
    warn_unfinished(index);
    Ok(ix)
}

/// `sieve-index show`: each docid in turn; a docid not found or whose
/// source cannot be read is named on stderr and the others still shown.
/// Exit 1 if a source could not be read, else 4 if a docid was not found.
fn run_show(
    ix: &ShowIndex,
    docids: &[String],
    raw: bool,
    html: bool,
    query: Option<&str>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (mut missing, mut failed) = (0usize, 0usize);
    let mut page = Vec::new();
    for docid in docids {
        let result = if raw {
            ix.raw(docid, &mut out).map(|reads| {
                for (r, checked) in &reads {
                    if r.skipped > 0 {
                        eprintln!(
                            "sieve-index show: {docid}: one gzip stream: {} bytes decompressed from the start of the file to reach the record",
                            r.skipped
                        );
                    }
                    if *checked == sieve_report::show::Checked::SizeAndTime {
                        eprintln!("sieve-index show: {docid}: checked {}", checked.text());
                    }
                }
            })
        } else {
            ix.show(docid).and_then(|docs| {
                for d in docs {
                    if html {
                        page.push(d);
                    } else if json {
                        writeln!(out, "{}", serde_json::to_string(&d).unwrap_or_default())
                            .map_err(|e| sieve_report::Error::Io {
                                path: "(stdout)".into(),
                                source: e,
                            })?;
                    } else {
                        sieve_report::show::write_text(&d, &mut out)
                            .and_then(|()| writeln!(out))
                            .map_err(|e| sieve_report::Error::Io {
                                path: "(stdout)".into(),
                                source: e,
                            })?;
                    }
                }
                Ok(())
            })
        };
        match result {
            Ok(()) => {}
            Err(e @ sieve_report::Error::NoSuchDocid { .. }) => {
                eprintln!("sieve-index show: {}", error_chain(&e));
                missing += 1;
            }
            // The reader of stdout stopped early: not an error.
            Err(e) if sieve_cli::exit::is_broken_pipe(&e) => return Ok(ExitCode::SUCCESS),
            Err(e) => {
                eprintln!("sieve-index show: error: {}", error_chain(&e));
                failed += 1;
            }
        }
    }
    if html {
        let terms = query.map(|q| ix.query_terms(q)).unwrap_or_default();
        ix.write_html(&page, &terms, &mut out)?;
    }
    out.flush()?;
    Ok(exit(if failed > 0 {
        ExitStatus::Error
    } else if missing > 0 {
        ExitStatus::Empty
    } else {
        ExitStatus::Success
    }))
}

/// `sieve-index bounds`.
fn run_bounds(index: &Path) -> anyhow::Result<ExitCode> {
    let (tantivy_index, _) = sieve_format::index::open_index(index)?;
    let _lock = sieve_format::lock::DirLock::acquire(index)?;
    let s = sieve_format::bounds::write_index_bounds(index, &tantivy_index)?;
    println!(
        "bounds: {} segment(s), {} file(s) written, {} stale removed, {} bytes",
        s.segments, s.written, s.removed, s.bytes
    );
    Ok(ExitCode::SUCCESS)
}

fn run_verify(index: &Path) -> anyhow::Result<ExitCode> {
    let report = sieve_format::verify::verify_index(index)?;
    for (path, problem) in &report.problems {
        eprintln!("sieve-index: damaged: {}: {problem}", path.display());
    }
    for (path, note) in &report.notes {
        eprintln!("sieve-index: note: {}: {note}", path.display());
    }
    if let Some(why) = &report.unfinished {
        eprintln!("sieve-index: unfinished: {}: {why}", index.display());
    }
    let verdict = match (report.unfinished.is_some(), report.problems.is_empty()) {
        (false, true) => "ok",
        (false, false) => "DAMAGED",
        (true, true) => "UNFINISHED",
        (true, false) => "UNFINISHED, DAMAGED",
    };
    println!(
        "{}: {verdict}: {} file(s), {} bytes checked, {} problem(s)",
        index.display(),
        report.files,
        report.bytes,
        report.problems.len()
    );
    Ok(if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        exit(ExitStatus::Error)
    })
}

/// Runs the command line; errors are printed once, as one line without a
/// backtrace, and exit with code 1; a closed stdout (`| head`) ends it
/// quietly with code 0 (see `sieve_cli::exit`).
fn main() -> ExitCode {
    sieve_cli::exit::run_guarded("sieve-index", || {
        run().unwrap_or_else(|e| sieve_cli::exit::report_error("sieve-index", e.as_ref()))
    })
}

/// Parses the command line and runs the subcommand.
fn run() -> anyhow::Result<ExitCode> {
    let args = sieve_cli::argv::normalize(std::env::args_os(), &[], "ihV");
    let args = args.unwrap_or_else(|e| {
        clap::Error::raw(clap::error::ErrorKind::UnknownArgument, format!("{e}\n")).exit()
    });
    match Cli::parse_from(args).command {
        Command::Build {
            build,
            threads,
            progress_every,
            resume,
            json,
        } => run_build(
            build,
            BuildOnly {
                threads,
                progress_every,
                resume,
                json,
            },
        ),
        Command::Extract {
            build,
            output_dir,
            format,
            full,
            max_paragraph_docs,
            threads,
            progress_every,
            resume,
            json,
        } => run_extract(
            build,
            &output_dir,
            RecordSpec {
                format: match format {
                    FormatArg::Jsonl => Format::Jsonl,
                    FormatArg::Parquet => Format::Parquet,
                },
                full,
                max_paragraph_docs,
            },
            BuildOnly {
                threads,
                progress_every,
                resume,
                json,
            },
        ),
        Command::NearDuplicates {
            index,
            extracts,
            output,
        } => match (index, output) {
            (Some(index), _) => run_near_duplicates(&index),
            (None, Some(out)) => {
                let s = sieve_ingest::extract::merge_near_duplicates(&extracts, &out)?;
                println!(
                    "near-duplicates: {} documents in {} clusters of two or more ({} copies of their representative), {}",
                    s.clustered,
                    s.clusters,
                    s.duplicates,
                    out.display()
                );
                Ok(ExitCode::SUCCESS)
            }
            (None, None) => Err(anyhow!("--extracts needs --output FILE")),
        },
        Command::BuildShard {
            build,
            record,
            threads,
            ..
        } => run_build_shard(build, record, threads),
        Command::Report {
            index,
            spam,
            out,
            atire_counts,
            deciles,
            cumulative,
            log_y,
            allow_unfinished,
        } => run_report(
            &index,
            &spam,
            &out,
            ReportOptions {
                atire_counts,
                spam: None,
                deciles,
                cumulative,
                log_y,
                inputs: spam.clone(),
                unfinished: Unfinished::allow_if(allow_unfinished),
            },
        ),
        Command::Merge { shards, out } => run_merge(&shards, &out),
        Command::Scan {
            input,
            max_record_bytes,
        } => run_scan(&input, max_record_bytes),
        Command::Docids {
            index,
            stats,
            allow_unfinished,
        } => run_docids(&index, stats, Unfinished::allow_if(allow_unfinished)),
        Command::Show {
            index,
            docids,
            raw,
            html,
            query,
            json,
            allow_unfinished,
        } => run_show(
            &open_show(&index, Unfinished::allow_if(allow_unfinished))?,
            &docids,
            raw,
            html,
            query.as_deref(),
            json,
        ),
        Command::Bounds { index } => run_bounds(&index),
        Command::Verify { index } => run_verify(&index),
    }
}

/// `sieve.build`'s keyword table (the Python extension's), read here to
/// check it against this command line.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../python/src/keywords.rs"]
mod python_keywords;

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::python_keywords::{BUILD_KEYWORDS, NOT_KEYWORDS};

    /// Every flag of `sieve-index build` has a `sieve.build` keyword (or
    /// is listed with the reason it has none), and every keyword names a
    /// flag: the Python binding cannot fall behind the command line.
    #[test]
    fn every_build_flag_is_a_python_keyword() {
        let cli = super::Cli::command();
        let build = cli.find_subcommand("build").expect("build subcommand");
        let mut flags: Vec<String> = build
            .get_arguments()
            .filter(|a| !a.is_hide_set())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        flags.push("--help".into());
        flags.sort();
        flags.dedup();
        let mut listed: Vec<String> = BUILD_KEYWORDS
            .iter()
            .map(|k| k.flag.to_string())
            .chain(NOT_KEYWORDS.iter().map(|(f, _)| f.to_string()))
            .collect();
        listed.sort();
        let missing: Vec<&String> = flags.iter().filter(|f| !listed.contains(f)).collect();
        let stale: Vec<&String> = listed.iter().filter(|f| !flags.contains(f)).collect();
        assert!(
            missing.is_empty(),
            "sieve-index build flags without a sieve.build keyword (python/src/keywords.rs): {missing:?}"
        );
        assert!(stale.is_empty(), "keywords for no flag: {stale:?}");
        let mut names: Vec<&str> = BUILD_KEYWORDS.iter().map(|k| k.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BUILD_KEYWORDS.len(), "a keyword twice");
    }
}
