//! `sieve-index`: build tantivy indexes from web crawls.
//!
//! A thin command line over `sieve_indexer`: each subcommand turns its
//! parsed arguments into one library call and prints the result. Flag
//! names appear only here (see [`with_flags`]).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use sieve_indexer::Error;
use sieve_indexer::analysis::{AnalyzerConfig, Stemmer, Stopwords};
use sieve_indexer::build::build;
use sieve_indexer::charset::CharsetMode;
use sieve_indexer::exit::ExitStatus;
use sieve_indexer::index::{STATS, create_private_dir, list_docids};
use sieve_indexer::inputs::{self, Inputs};
use sieve_indexer::options::{BuildOptions, DocTimeout, Progress, check_threads, default_threads};
use sieve_indexer::report::{ReportOptions, write_report};
use sieve_indexer::shard::{build_shard, merge_shards, read_stats};
use sieve_indexer::stats::{BuildStats, FileStats};
use sieve_indexer::summary::summary;

/// Build tantivy indexes from WARC and TREC crawls.
#[derive(Debug, Parser)]
#[command(name = "sieve-index", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Index crawl files (WARC, .warc.gz, TREC SGML) into DIR.
    Build(BuildArgs),
    /// Build one shard (single-threaded, written to a temporary directory and
    /// renamed into place; a retried task is harmless). With `--input -`,
    /// reads one input path per line from stdin (for Spark's RDD.pipe).
    BuildShard {
        #[command(flatten)]
        build: BuildArgs,
        /// Print the shard record as one JSON line (for the driver).
        #[arg(long)]
        record: bool,
    },
    /// Read crawl files without indexing: one JSON line per file with the
    /// records, responses and HTML documents recovered, framing anomalies,
    /// the error that stopped reading (if any) and the seconds taken.
    Scan {
        /// Input files, directories (recursive) or glob patterns.
        #[arg(long, short, required = true, num_args = 1..)]
        input: Vec<String>,
        /// Largest HTTP body kept per record, in bytes (as for build).
        #[arg(long, default_value_t = 10 * 1024 * 1024)]
        max_record_bytes: u64,
    },
    /// Merge finished shards into one index.
    Merge {
        /// Shard directories.
        #[arg(long, required = true, num_args = 1..)]
        shards: Vec<PathBuf>,
        /// The merged index directory (must not exist).
        #[arg(long)]
        out: PathBuf,
    },
    /// Write the encoding-error report (the paper's Table 1 and Figure 5,
    /// significance tests, charset sources) from an index's fast fields.
    Report {
        /// The index directory.
        #[arg(long)]
        index: PathBuf,
        /// Spam rankings to use instead of the index's stored percentiles.
        #[arg(long, num_args = 1..)]
        spam: Vec<PathBuf>,
        /// Output directory (created).
        #[arg(long)]
        out: PathBuf,
        /// Add ATIRE-compatible counts to Table 1, side by side.
        #[arg(long)]
        atire_counts: bool,
        /// Bin Figure 5 by spam decile instead of percentile.
        #[arg(long)]
        deciles: bool,
    },
    /// (Re)build the block-max bounds files (IDX/bounds/<segment>.bmx) of
    /// an index built before they existed, or whose bounds are damaged:
    /// valid files are kept, missing or invalid ones rewritten, files of
    /// segments no longer in the index removed.
    Bounds {
        /// The index directory.
        #[arg(long)]
        index: PathBuf,
    },
    /// Print every docid of an index, one per line, sorted; with --stats,
    /// a TSV of per-document statistics instead (the input format of
    /// `sieve-filter build --stats FILE.tsv`).
    Docids {
        /// The index directory.
        #[arg(long)]
        index: PathBuf,
        /// Print `docid bytes spam <seven class counts>` per document, in
        /// index order (streamed; not sorted).
        #[arg(long)]
        stats: bool,
    },
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
    #[arg(long, short, required = true, num_args = 1..)]
    input: Vec<String>,
    /// The index directory (created).
    #[arg(long)]
    index: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Charset handling.
    #[arg(long, value_enum, default_value = "auto")]
    charset: Charset,
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
    /// Continue an interrupted build in DIR.
    #[arg(long)]
    resume: bool,
    /// Drop documents this filter file (from `sieve-filter build`) does not keep.
    #[arg(long)]
    filter: Option<PathBuf>,
    /// Waterloo spam-ranking files (`percentile docid`, plain or .gz); the
    /// percentile is stored as a fast field.
    #[arg(long, num_args = 1..)]
    spam: Vec<PathBuf>,
    /// Memory budget of the tantivy writer, in MB.
    #[arg(long, default_value_t = 256)]
    writer_mb: usize,
    /// Print the statistics as JSON instead of a summary.
    #[arg(long)]
    json: bool,
}

struct Bar(Option<ProgressBar>);

impl Progress for Bar {
    fn file(&self, path: &Path, index: usize, total: usize) {
        if let Some(b) = &self.0 {
            b.set_message(format!("[{}/{}] {}", index + 1, total, path.display()));
        }
    }
    fn docs(&self, docs: u64) {
        if let Some(b) = &self.0 {
            b.inc(docs);
        }
    }
}

impl Bar {
    /// A spinner on a terminal, nothing otherwise.
    fn new() -> Bar {
        if !std::io::stderr().is_terminal() {
            return Bar(None);
        }
        let b = ProgressBar::new_spinner();
        b.set_style(
            ProgressStyle::with_template("{spinner} {pos} docs {per_sec} {elapsed} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        b.enable_steady_tick(std::time::Duration::from_millis(200));
        Bar(Some(b))
    }
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
fn build_options(a: &BuildArgs) -> anyhow::Result<BuildOptions> {
    let inputs = expand(&a.input)?;
    let mut opts = BuildOptions::new(inputs.files, a.index.clone());
    opts.skipped_inputs = inputs.skipped;
    opts.threads = check_threads(a.threads.unwrap_or_else(default_threads))
        .map_err(|_| anyhow!("--threads must be at least 1"))?
        .get();
    opts.charset = match a.charset {
        Charset::Auto => CharsetMode::Auto,
        Charset::Utf8 => CharsetMode::ForceUtf8,
    };
    opts.crawl.max_record_bytes = a.max_record_bytes;
    opts.crawl.max_decompression_ratio = a.max_decompression_ratio;
    opts.html.max_depth = a.max_html_depth;
    opts.html.max_text_bytes = a.max_text_bytes;
    opts.max_doc_time = (a.max_doc_ms > 0).then(|| std::time::Duration::from_millis(a.max_doc_ms));
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
    opts.resume = a.resume;
    opts.writer_heap = a.writer_mb.max(15) << 20;
    if let Some(f) = &a.filter {
        opts.set_filter_file(f)?;
    }
    if !a.spam.is_empty() {
        let tmp = tempfile::tempdir().context("temporary directory for sorting spam scores")?;
        let map_path = a.index.with_extension("spam.fst.tmp");
        let st = opts.set_spam_files(&a.spam, &map_path, tmp.path())?;
        eprintln!(
            "spam scores: {} lines, {} docids ({} sorted runs)",
            st.lines, st.docids, st.runs
        );
    }
    Ok(opts)
}

/// `sieve-index build`.
fn run_build(a: BuildArgs) -> anyhow::Result<ExitCode> {
    let opts = build_options(&a)?;
    let progress = Bar::new();
    let stats = build(&opts, &progress).map_err(with_flags)?;
    if let Some(b) = &progress.0 {
        b.finish_and_clear();
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        summary(&stats, &mut std::io::stdout())?;
        println!("stats: {}", a.index.join(STATS).display());
    }
    Ok(build_exit(&stats))
}

/// Reports spam coverage and the files not read to their end; the exit
/// status follows [`ExitStatus::of_build`] (3: a file lost in whole or in
/// part, 4: nothing indexed).
fn build_exit(stats: &BuildStats) -> ExitCode {
    if let Some(unscored) = stats.spam_without_doc {
        eprintln!(
            "spam coverage: {} indexed docs without a score, {} scores without an indexed doc",
            stats.totals.indexed - stats.totals.spam_scored,
            unscored
        );
    }
    for f in stats.files.iter().filter_map(FileStats::failure) {
        eprintln!("sieve-index: not read to the end: {f}");
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
    exit(ExitStatus::of_build(stats))
}

/// The process exit code of `status`.
fn exit(status: ExitStatus) -> ExitCode {
    ExitCode::from(status.code())
}

/// `sieve-index build-shard`.
fn run_build_shard(mut build: BuildArgs, record: bool) -> anyhow::Result<ExitCode> {
    if build.input == ["-"] {
        build.input = std::io::stdin()
            .lines()
            .map(|l| l.map(|l| l.trim().to_string()))
            .filter(|l| l.as_ref().map_or(true, |l| !l.is_empty()))
            .collect::<Result<_, _>>()?;
    }
    let out = build.index.clone();
    let opts = build_options(&build)?;
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

/// `sieve-index report`.
fn run_report(
    index: &Path,
    spam: &[PathBuf],
    out: &Path,
    atire_counts: bool,
    deciles: bool,
) -> anyhow::Result<ExitCode> {
    let spam = if spam.is_empty() {
        None
    } else {
        let tmp = tempfile::tempdir().context("temporary directory")?;
        let map_path = tmp.path().join("spam.fst");
        Some(sieve_indexer::spamfile::load_spam_map(spam, &map_path, tmp.path())?.0)
    };
    create_private_dir(out)?;
    let opts = ReportOptions {
        atire_counts,
        spam,
        deciles,
    };
    let s = write_report(index, out, &opts)?;
    println!(
        "{} docs ({} without a spam score) in {:.3}s",
        s.docs, s.unscored, s.seconds
    );
    for f in &s.files {
        println!("wrote {}", f.display());
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
    let opts = sieve_indexer::crawl::CrawlOptions {
        max_record_bytes,
        ..Default::default()
    };
    let mut out = std::io::stdout().lock();
    let (mut records, mut lost) = (0, 0);
    for path in expand(input)?.files {
        let s = sieve_indexer::scan::scan(&path, &opts);
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

/// `sieve-index docids`.
fn run_docids(index: &Path, stats: bool) -> anyhow::Result<ExitCode> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if stats {
        sieve_indexer::filterbuild::write_stats_tsv(index, &mut out)?;
    } else {
        for d in list_docids(index)? {
            writeln!(out, "{d}")?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `sieve-index bounds`.
fn run_bounds(index: &Path) -> anyhow::Result<ExitCode> {
    let (tantivy_index, _) = sieve_indexer::index::open_index(index)?;
    let _lock = sieve_indexer::lock::DirLock::acquire(index)?;
    let s = sieve_indexer::bounds::write_index_bounds(index, &tantivy_index)?;
    println!(
        "bounds: {} segment(s), {} file(s) written, {} stale removed, {} bytes",
        s.segments, s.written, s.removed, s.bytes
    );
    Ok(ExitCode::SUCCESS)
}

fn main() -> anyhow::Result<ExitCode> {
    let args = sieve_indexer::argv::normalize(std::env::args_os(), &[], "ihV");
    let args = args.unwrap_or_else(|e| {
        clap::Error::raw(clap::error::ErrorKind::UnknownArgument, format!("{e}\n")).exit()
    });
    match Cli::parse_from(args).command {
        Command::Build(a) => run_build(a),
        Command::BuildShard { build, record } => run_build_shard(build, record),
        Command::Report {
            index,
            spam,
            out,
            atire_counts,
            deciles,
        } => run_report(&index, &spam, &out, atire_counts, deciles),
        Command::Merge { shards, out } => run_merge(&shards, &out),
        Command::Scan {
            input,
            max_record_bytes,
        } => run_scan(&input, max_record_bytes),
        Command::Docids { index, stats } => run_docids(&index, stats),
        Command::Bounds { index } => run_bounds(&index),
    }
}
