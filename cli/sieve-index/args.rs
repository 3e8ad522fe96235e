//! The command line of `sieve-index`: every subcommand's flags, as clap
//! reads them. Flags several subcommands share are declared once, in a
//! group ([`BuildArgs`], [`RunFlags`], [`IndexDir`], [`AllowUnfinished`])
//! flattened into each subcommand that takes them.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
pub use sieve_cli::args::AllowUnfinished;

/// Build tantivy indexes from web crawls and IR collections, and show their documents.
#[derive(Debug, Parser)]
#[command(name = "sieve-index", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Index crawl files (WARC incl. ClueWeb22, TREC SGML, SMART, JSON lines,
    /// TSV; plain or gzipped, detected from the bytes) into DIR.
    Build(BuildCmd),
    /// Build one shard with one thread (Spark runs many shards at once),
    /// written to a temporary directory and renamed into place, so a
    /// retried task is harmless. With `--input -`, reads one input path per
    /// line from stdin (for Spark's RDD.pipe).
    BuildShard(BuildShardCmd),
    /// Write the documents of crawl files as a corpus instead of indexing
    /// them: one gzipped JSON-lines (or Parquet) file per input in DIR (docid, URL,
    /// charset and its source, the seven error counts, spam percentile,
    /// title, text in paragraphs), the near-duplicate clusters
    /// (near-duplicates.tsv.gz), stats.json and losses.jsonl. The same
    /// reader, caps, filter, quarantine, exit codes and --resume as build.
    #[command(
        mut_arg("index", |a| a.required(false).hide(true)),
        mut_arg("progress_every", |a| {
            a.help("Progress line every SECS seconds when stderr is not a terminal")
        }),
        mut_arg("resume", |a| a.help("Continue an interrupted extract in DIR"))
    )]
    Extract(ExtractCmd),
    /// Print the near-duplicates of an index: `docid<TAB>representative`
    /// for every document in a near-duplicate cluster of two or more, in
    /// index order (the representative, the cluster's smallest docid,
    /// names itself); documents not listed are alone.
    ///
    /// With --extracts instead: cluster the documents of several finished
    /// extracts together (the parts of a distributed extract) and write
    /// the list, gzipped, to --output FILE.
    NearDuplicates(NearDuplicatesCmd),
    /// Read crawl files without indexing: one JSON line per file with the
    /// records, responses and HTML documents recovered, framing anomalies,
    /// the error that stopped reading (if any) and the seconds taken.
    Scan(ScanCmd),
    /// Merge finished shards into one index.
    Merge(MergeCmd),
    /// Write a finished index again with each segment's documents in
    /// recursive-graph-bisection order (documents sharing terms side by
    /// side: a smaller index and faster top-k), as a new index; every
    /// document, field and score stays the same. The manifest records the
    /// order; a reordered index cannot be resumed.
    Reorder(ReorderCmd),
    /// Write the encoding-error report (the paper's Table 1 and Figure 5,
    /// significance tests, charset sources) from an index's fast fields.
    Report(ReportCmd),
    /// (Re)build the block-max bounds files (IDX/bounds/<segment>.bmx) of
    /// an index built before they existed, or whose bounds are damaged:
    /// valid files are kept, missing or invalid ones rewritten, files of
    /// segments no longer in the index removed.
    Bounds(IndexDir),
    /// Show documents of an index: for each DOCID, the source file and
    /// offset of its record, record id, URL, language, charset and the
    /// source that decided it, the seven UTF-8 error counts, spam
    /// percentile, and the title and text extracted again from the record
    /// (which must be unchanged since the build: size and modification time
    /// are checked). Works on shards and merged indexes.
    Show(ShowCmd),
    /// Print every docid of an index, one per line, sorted; with
    /// --doc-stats, a TSV of per-document statistics instead (the input of
    /// `sieve-filter build --doc-stats FILE.tsv`).
    Docids(DocidsCmd),
    /// Check every file of an index against its checksum (sieve.json,
    /// stats.json, every tantivy segment file, the block-max bounds and
    /// near-duplicate sidecars) and name each missing or damaged one, and
    /// say whether its build finished; exit 1 if a file is missing or
    /// damaged or the build is unfinished. Reads the whole index once.
    Verify(IndexDir),
}

// The arguments of each subcommand, in `Command` order.

/// `build`: the build flags, then how this run goes.
#[derive(Debug, clap::Args)]
pub struct BuildCmd {
    #[command(flatten)]
    pub build: BuildArgs,
    #[command(flatten)]
    pub run: RunFlags,
}

/// `build-shard`: the build flags; the run flags of `build` are accepted
/// and ignored.
#[derive(Debug, clap::Args)]
pub struct BuildShardCmd {
    #[command(flatten)]
    pub build: BuildArgs,
    /// Print the shard record as one JSON line (for the driver).
    #[arg(long)]
    pub record: bool,
    /// Ignored (a shard is built with one thread); accepted so that old
    /// scripts keep working.
    #[arg(long, hide = true)]
    pub threads: Option<usize>,
    /// Ignored (a shard is built whole or not at all, and a finished one
    /// is kept); accepted so that old scripts keep working.
    #[arg(long, hide = true)]
    pub resume: bool,
    /// Ignored (`--record` prints the shard record as JSON); accepted so
    /// that old scripts keep working.
    #[arg(long, hide = true)]
    pub json: bool,
}

/// `extract`: the build flags, what to write, then how this run goes
/// (`Command::Extract` rewords two of [`RunFlags`]' help lines).
#[derive(Debug, clap::Args)]
pub struct ExtractCmd {
    #[command(flatten)]
    pub build: BuildArgs,
    /// The output directory (created; its parent must exist).
    #[arg(long = "output-dir", value_name = "DIR")]
    pub output_dir: PathBuf,
    /// Output format: gzipped JSON lines, or Parquet (the same fields as
    /// columns, snappy-compressed).
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: FormatArg,
    /// Also write each record's WARC and HTTP headers and its HTML
    /// (decoded to UTF-8).
    #[arg(long)]
    pub full: bool,
    /// Template removal: drop every paragraph found in more than K
    /// documents of the same input file (and the documents left without
    /// text).
    #[arg(long, value_name = "K")]
    pub max_paragraph_docs: Option<u32>,
    #[command(flatten)]
    pub run: RunFlags,
}

/// `near-duplicates`: of one index, or of several extracts.
#[derive(Debug, clap::Args)]
pub struct NearDuplicatesCmd {
    /// The index directory.
    #[arg(
        long,
        value_name = "DIR",
        required_unless_present = "extracts",
        conflicts_with = "extracts"
    )]
    pub index: Option<PathBuf>,
    /// Extract output directories, in input order.
    #[arg(long, num_args = 1.., value_name = "DIR", requires = "output")]
    pub extracts: Vec<PathBuf>,
    /// The near-duplicates file to write (with --extracts; must not exist).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `scan`.
#[derive(Debug, clap::Args)]
pub struct ScanCmd {
    /// Input files, directories (recursive) or glob patterns.
    #[arg(long, short, required = true, num_args = 1.., value_name = "PATH")]
    pub input: Vec<String>,
    /// Largest HTTP body kept per record, in bytes (as for build).
    #[arg(long, default_value_t = 10 * 1024 * 1024)]
    pub max_record_bytes: u64,
}

/// `merge`.
#[derive(Debug, clap::Args)]
pub struct MergeCmd {
    /// Shard directories.
    #[arg(long, required = true, num_args = 1.., value_name = "DIR")]
    pub shards: Vec<PathBuf>,
    /// The merged index directory (created; must not exist).
    #[arg(long = "index", alias = "out", alias = "output", value_name = "DIR")]
    pub out: PathBuf,
}

/// `reorder`.
#[derive(Debug, clap::Args)]
pub struct ReorderCmd {
    /// The finished index to read (left as it is).
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// The reordered index (created; must not exist).
    #[arg(
        long = "output-dir",
        alias = "output",
        alias = "out",
        value_name = "DIR"
    )]
    pub output: PathBuf,
    /// Threads of the bisection (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Swap rounds per bisection at most.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub bp_iters: usize,
    /// Parts of fewer than twice this many documents are not split.
    #[arg(long, default_value_t = 32, value_name = "N")]
    pub bp_min_partition: usize,
    /// Terms held by fewer documents of a segment are not read by the
    /// bisection (every term is written again).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub bp_min_df: u32,
    /// Order each segment by spam percentile first, highest first
    /// (unscored documents before all), and bisect within each percentile:
    /// a spam threshold's documents are then a prefix of every segment,
    /// which makes threshold sweeps and filtered runs cheaper.
    #[arg(long)]
    pub by_spam: bool,
    /// Leave the near-duplicate band keys out of the reordered index (128
    /// bytes per document). Its clusters stay; it can no longer be merged
    /// with other indexes (merge clusters again from the keys).
    #[arg(long)]
    pub drop_band_keys: bool,
    /// Print what was done as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `report`.
#[derive(Debug, clap::Args)]
pub struct ReportCmd {
    #[command(flatten)]
    pub index: IndexDir,
    /// Spam rankings to use instead of the index's stored percentiles.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub spam: Vec<PathBuf>,
    /// Directory for the report's files (created).
    #[arg(long = "output-dir", alias = "out", value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub unfinished: AllowUnfinished,
    /// Add ATIRE-compatible counts to Table 1, side by side.
    #[arg(long)]
    pub atire_counts: bool,
    /// Bin Figure 5 by spam decile instead of percentile (writes
    /// by-decile.tsv and figure5-deciles.svg).
    #[arg(long)]
    pub deciles: bool,
    /// Draw Figure 5 as the paper does: per class, the cumulative
    /// percentage of its occurrences in documents at or below each
    /// spam percentile (writes cumulative-by-*.tsv and
    /// figure5-cumulative*.svg).
    #[arg(long)]
    pub cumulative: bool,
    /// Draw Figure 5 on a logarithmic y axis (zeros are drawn as
    /// hollow markers on a separate 0 line below the axis).
    #[arg(long)]
    pub log_y: bool,
}

/// `show`.
#[derive(Debug, clap::Args)]
pub struct ShowCmd {
    #[command(flatten)]
    pub index: IndexDir,
    /// Docids to show.
    #[arg(required = true, value_name = "DOCID")]
    pub docids: Vec<String>,
    #[command(flatten)]
    pub unfinished: AllowUnfinished,
    /// Write the original bytes of each record, exactly as in the source
    /// file, instead (concatenated: WARC records make a WARC file). A
    /// one-stream gzip file is decompressed from its start to reach a
    /// record (said on stderr); a per-record gzip member is read alone.
    #[arg(long, conflicts_with_all = ["html", "json"])]
    pub raw: bool,
    /// Write one self-contained HTML page (title, facts, text), with the
    /// terms of --query marked.
    #[arg(long, conflicts_with = "json")]
    pub html: bool,
    /// Mark the words of this query in the --html page (analysed as the
    /// index analyses text, so `running` marks `runs`).
    #[arg(long, value_name = "TEXT", requires = "html")]
    pub query: Option<String>,
    /// One JSON object per document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `docids`.
#[derive(Debug, clap::Args)]
pub struct DocidsCmd {
    #[command(flatten)]
    pub index: IndexDir,
    /// Print `docid bytes spam <seven class counts>` per document, in
    /// index order (streamed; not sorted).
    #[arg(long = "doc-stats", alias = "stats")]
    pub stats: bool,
    #[command(flatten)]
    pub unfinished: AllowUnfinished,
}

// The groups of flags several subcommands share.

/// `--index DIR` of a subcommand that reads one finished index.
#[derive(Debug, clap::Args)]
pub struct IndexDir {
    /// The index directory.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
}

/// How a `build` or `extract` run goes: workers, progress, resume, output.
#[derive(Debug, clap::Args)]
pub struct RunFlags {
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// When stderr is not a terminal (a log file, a cluster job), print a
    /// progress line every SECS seconds (fractions allowed); 0 for none.
    /// On a terminal a spinner shows progress instead.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub progress_every: f64,
    /// Continue an interrupted build in DIR.
    #[arg(long)]
    pub resume: bool,
    /// Print the statistics as JSON instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// The flags of `build`, `build-shard` and `extract`: inputs, index, reading, caps and analysis.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Input files, directories (recursive) or glob patterns.
    #[arg(long, short, required = true, num_args = 1.., value_name = "PATH")]
    pub input: Vec<String>,
    /// The index directory (created; its parent must exist).
    #[arg(long, value_name = "DIR", required = true)]
    pub index: Option<PathBuf>,
    /// Charset handling.
    #[arg(long, value_enum, default_value = "auto")]
    pub charset: Charset,
    /// Which text of a page is kept.
    #[arg(long, value_enum, default_value = "all")]
    pub text: TextArg,
    /// Do not compute near-duplicates (no MinHash band keys, no clusters;
    /// --drop-near-duplicates then cannot be used on the index).
    #[arg(long)]
    pub no_near_duplicates: bool,
    /// Index term positions (about twice the postings): needed by
    /// `sieve-search run --sdm` and by quoted phrases in topics.
    #[arg(long)]
    pub positions: bool,
    /// Store each document's analysed body terms with their frequencies
    /// (document vectors): `sieve-search run --feedback` then reads a
    /// feedback document's terms directly instead of scanning the term
    /// dictionary.
    #[arg(long)]
    pub docvectors: bool,
    /// Largest HTTP body kept per record, in bytes; longer ones are truncated and counted.
    #[arg(long, default_value_t = 10 * 1024 * 1024)]
    pub max_record_bytes: u64,
    /// Largest decompressed/compressed ratio of a gzip input before it is treated as a bomb.
    #[arg(long, default_value_t = 200)]
    pub max_decompression_ratio: u64,
    /// Deepest HTML nesting followed.
    #[arg(long, default_value_t = 256)]
    pub max_html_depth: usize,
    /// Longest extracted text per document, in bytes.
    #[arg(long, default_value_t = 4 << 20)]
    pub max_text_bytes: usize,
    /// Time budget per document (charset decoding, cleaning, HTML
    /// extraction, analysis), in milliseconds; 0 (the default) for none. A
    /// wall-clock budget makes the index depend on the machine's speed and
    /// load: only set it for untrusted crawls.
    #[arg(long, default_value_t = 0)]
    pub max_doc_ms: u64,
    /// What happens to a document over `--max-doc-ms`: `skip` it, or index
    /// the text extracted before the deadline (`truncate`).
    #[arg(long, value_enum, default_value = "skip")]
    pub doc_timeout: DocTimeoutArg,
    /// Write every record not indexed (and every document that hit a cap) to
    /// DIR, named by input ordinal and offset, indexed by DIR/quarantine.jsonl.
    /// `build-shard` writes to DIR/<shard name>.
    #[arg(long, value_name = "DIR")]
    pub quarantine: Option<PathBuf>,
    /// Turn off the Porter stemmer.
    #[arg(long)]
    pub no_stem: bool,
    /// Keep stopwords.
    #[arg(long)]
    pub keep_stopwords: bool,
    /// Drop documents this filter file (from `sieve-filter build`) does not keep.
    #[arg(long, value_name = "FILE")]
    pub filter: Option<PathBuf>,
    /// Waterloo spam-ranking files (`percentile docid`, plain or .gz); the
    /// percentile is stored as a fast field.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub spam: Vec<PathBuf>,
    /// Memory budget of the tantivy writer, in MB.
    #[arg(long, default_value_t = 256)]
    pub writer_mb: usize,
    /// Commit after a group of whole input files that hold at least this
    /// many MB (their sizes on disk); the last file always commits; 0:
    /// after every file. A kill costs the work since the last commit (a
    /// resumed build reads those files again); the index is the same for
    /// any value.
    #[arg(long, value_name = "MB", default_value_t = sieve_ingest::options::DEFAULT_COMMIT_MB)]
    pub commit_every_mb: u64,
    /// No merge makes a segment of more documents than this.
    #[arg(long, hide = true, default_value_t = sieve_ingest::order::MAX_MERGE_DOCS)]
    pub max_merge_docs: u32,
    /// The WARC header read as the docid (e.g. ClueWeb22-ID); a record
    /// without it is skipped (no_docid). Default: the first present of
    /// WARC-TREC-ID, ClueWeb22-ID, WARC-Record-ID. Recorded in sieve.json; a
    /// resume with another is refused.
    #[arg(long, value_name = "NAME")]
    pub docid_header: Option<String>,
    /// JSON lines: the key(s) of the docid, the first met wins (default:
    /// id, _id, docid, ClueWeb22-ID).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    pub id_field: Vec<String>,
    /// JSON lines: the key(s) of the title, the first met wins (default: title).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    pub title_field: Vec<String>,
    /// JSON lines: the key(s) of the text, all present are joined
    /// (default: contents, text, body, Clean-Text).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    pub text_field: Vec<String>,
    /// JSON lines: the key(s) of the URL (default: url, URL).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    pub url_field: Vec<String>,
    /// JSON lines: the key(s) of the language (default: language, Language).
    #[arg(long, num_args = 1.., value_name = "KEY")]
    pub language_field: Vec<String>,
    /// TSV lines: the columns, comma-separated, from id, title, text, url,
    /// language and - (not read); the last takes the rest of the line
    /// (MS MARCO documents: id,url,title,text).
    #[arg(long, value_name = "LIST", default_value = "id,text")]
    pub tsv_columns: String,
}

/// The values of `extract --format`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// Gzipped JSON lines.
    Jsonl,
    /// Parquet.
    Parquet,
}

/// The values of `--text`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TextArg {
    /// All visible text (the default for indexing, as Anserini does).
    All,
    /// The main content only: running text without navigation, headers,
    /// footers, link lists and widgets.
    Main,
}

/// The values of `--charset`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Charset {
    /// HTTP header, BOM, <meta>, then a detector; valid UTF-8 is UTF-8.
    Auto,
    /// Every byte is UTF-8 (ATIRE's treatment, as in the paper).
    Utf8,
}

/// The values of `--doc-timeout`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DocTimeoutArg {
    /// Do not index the document.
    Skip,
    /// Index the text extracted before the deadline.
    Truncate,
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
