//! `sieve-search`: run TREC topics, evaluate and compare runs.
//!
//! One subcommand per variant of [`Cmd`], each handled by one small function
//! over the `sieve_searcher` library.

mod anserini;
mod sweep;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use sieve_format::index::Unfinished;
use sieve_format::outfile::OutFile;
use sieve_searcher::compare;
use sieve_searcher::eval::{
    EvalOptions, Evaluation, Measure, MeasureSpec, evaluate_run, read_judgements,
};
use sieve_searcher::run::{Duplicates, read_run};
use sieve_searcher::topics::{TopicField, read_topics};
use sieve_searcher::twostage;

#[derive(Parser)]
#[command(
    name = "sieve-search",
    version,
    about = "Run TREC topics over sieve indexes, evaluate and compare runs"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a topic file over one or more indexes (shards, scored with global
    /// statistics) and write TREC run files, one per BM25 setting and filter.
    Run(RunArgs),
    /// Parse a topic file and print what was read: format, count, then
    /// `id<TAB>query` per topic (or everything with --json).
    Topics(TopicsArgs),
    /// Evaluate runs as trec_eval 9.0.8 (map, P_k, recall_k, ndcg_cut_k,
    /// Rprec, bpref, recip_rank, success_k, counts) and gdeval (ndcg@20,
    /// err@20) do; `eval [-q] [-c] [-M N] [-m MEASURE]... QRELS RUN`.
    Eval(EvalArgs),
    /// Compare two runs: means, difference, wins/losses/ties, paired t-test,
    /// most changed topics; --html writes a self-contained page.
    Compare(CompareArgs),
    /// Sweep filter thresholds (spam percentile, per-KB error rates, their
    /// combinations; optionally k1/b lists) in one pass over the postings:
    /// every setting evaluated and compared with the unfiltered run
    /// (sweep.tsv, sweep.svg, optionally run files and an HTML page).
    Sweep(sweep::SweepArgs),
    /// Two-stage search, stage 1: write the global BM25 statistics (N, total
    /// tokens, df of every analysed query term) of one or more indexes as
    /// JSON, for `sum-stats` and `run --global-stats`.
    #[command(alias = "stats")]
    GlobalStats(StatsArgs),
    /// Sum global-statistics files written by `global-stats` (their headers
    /// must be equal: same analyser, fields and topics) into one.
    SumStats(SumStatsArgs),
    /// Two-stage search, last step: merge shard runs (each searched with
    /// `run --global-stats`) into the best K hits per topic, ties broken as
    /// in one index (score descending, docid descending).
    MergeRuns(MergeRunsArgs),
}

/// What a query is made of: shared by `run` and `stats`.
#[derive(clap::Args)]
struct QueryArgs {
    /// The topic file (format detected).
    #[arg(long, value_name = "FILE")]
    topics: PathBuf,
    /// Which topic text is the query: title, desc or title+desc.
    #[arg(long, default_value = "title")]
    field: TopicField,
    /// Index field searched: body (title + text) or title.
    #[arg(long, default_value = "body")]
    search_field: SearchField,
    /// Unique analysed terms searched per topic: the first N in query order
    /// are kept, the rest dropped with a warning naming the topic.
    #[arg(long, default_value_t = sieve_searcher::queries::DEFAULT_MAX_QUERY_TERMS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_query_terms: usize,
}

#[derive(clap::Args)]
struct StatsArgs {
    /// Index directories (the statistics are summed over them): `--index A
    /// B` or `--index A --index B`.
    #[arg(long, required = true, num_args = 1.., value_name = "DIR")]
    index: Vec<PathBuf>,
    /// Read an index whose build did not finish (killed, or being
    /// resumed): only its committed documents, with a warning on stderr.
    #[arg(long)]
    allow_unfinished: bool,
    #[command(flatten)]
    query: QueryArgs,
    /// Output file (default stdout).
    #[arg(long, alias = "out", value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
struct SumStatsArgs {
    /// Global-statistics files from `global-stats`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output file (default stdout).
    #[arg(long, alias = "out", value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
struct MergeRunsArgs {
    /// Shard runs (TREC run files), each cut at --hits or more per topic.
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// Hits per topic in the merged run.
    #[arg(long, default_value_t = 1000)]
    hits: usize,
    /// Write topics in this topic file's order (default: first appearance).
    #[arg(long, value_name = "FILE")]
    topics: Option<PathBuf>,
    /// Run tag.
    #[arg(long, default_value = "sieve")]
    tag: String,
    /// Output run file (default stdout).
    #[arg(long, alias = "out", value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
struct RunArgs {
    /// Index directories (`--index A B` or `--index A --index B`); several
    /// are searched as shards of one collection with global BM25 statistics.
    #[arg(long, required = true, num_args = 1.., value_name = "DIR")]
    index: Vec<PathBuf>,
    /// Read an index whose build did not finish (killed, or being
    /// resumed): only its committed documents, with a warning on stderr.
    #[arg(long)]
    allow_unfinished: bool,
    #[command(flatten)]
    query: QueryArgs,
    /// Score with these statistics (from `global-stats`, summed by
    /// `sum-stats`) instead of those of the given indexes: stage 2 of a
    /// two-stage search. Refused unless made for the same analyser, fields
    /// and topics.
    #[arg(long, value_name = "FILE")]
    global_stats: Option<PathBuf>,
    /// BM25 k1 (comma-separated list: one run per value).
    #[arg(long, value_delimiter = ',', default_value = "0.9")]
    k1: Vec<f32>,
    /// BM25 b (comma-separated list: one run per value).
    #[arg(long, value_delimiter = ',', default_value = "0.4")]
    b: Vec<f32>,
    /// Hits per topic.
    #[arg(long, default_value_t = 1000)]
    hits: usize,
    /// Run tag (with several runs, a suffix names each setting).
    #[arg(long, default_value = "sieve")]
    tag: String,
    /// Output run file (one run; default stdout).
    #[arg(
        long,
        alias = "out",
        value_name = "FILE",
        conflicts_with = "output_dir"
    )]
    output: Option<PathBuf>,
    /// Directory for the run files when there are several (TAG.run names).
    #[arg(long, value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// Keep documents with spam percentile >= P (comma-separated list: one run each).
    #[arg(long, value_delimiter = ',', value_name = "P")]
    min_spam_percentile: Vec<u8>,
    /// Drop documents with more than X invalid 4/5/6-byte sequences per KB
    /// (comma-separated list: one run each).
    #[arg(long, value_delimiter = ',', value_name = "X")]
    max_invalid_456_per_kb: Vec<f64>,
    /// Documents without a spam score, when filtering on spam: keep or drop.
    #[arg(long, value_enum, default_value = "keep")]
    unscored: UnscoredArg,
    /// Old spelling of `--unscored drop`.
    #[arg(long, hide = true, conflicts_with = "unscored")]
    drop_unscored: bool,
    /// Filter files from `sieve-filter build` (one run each).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    filter: Vec<PathBuf>,
    /// Also drop near-duplicates (every member of a near-duplicate cluster
    /// but its representative, the smallest docid) in every run; alone, one
    /// run that drops only near-duplicates.
    #[arg(long)]
    drop_near_duplicates: bool,
    /// Which documents BM25's collection statistics (N, average length,
    /// document frequencies) count in a filtered run: full (every indexed
    /// document) or filtered (only the kept ones).
    #[arg(long = "collection-stats", alias = "stats", default_value = "full")]
    stats: StatsArg,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SearchField {
    Body,
    Title,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum UnscoredArg {
    Keep,
    Drop,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum StatsArg {
    Full,
    Filtered,
}

#[derive(clap::Args)]
struct TopicsArgs {
    /// The topic file (TREC SGML, Web Track XML, `N:query`, TSV or Anserini CACM).
    file: PathBuf,
    /// Which text is the query: title, desc or title+desc.
    #[arg(long, default_value = "title")]
    field: TopicField,
    /// Print every parsed field as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct RunInput {
    /// The qrels file (`qid iter docno rel`).
    #[arg(long)]
    qrels: PathBuf,
    /// trec_eval -c: average over all qrels topics (missing ones score 0).
    #[arg(short = 'c')]
    complete: bool,
    /// Keep the best-scored copy of a document retrieved twice for a topic
    /// instead of refusing the run (trec_eval refuses it).
    #[arg(long)]
    dedup: bool,
}

#[derive(clap::Args)]
#[command(
    override_usage = "sieve-search eval [-q] [-c] [-M N] [-m MEASURE]... QRELS RUN...\n       \
                      sieve-search eval --qrels QRELS [-q] [-c] [-M N] [-m MEASURE]... RUN..."
)]
struct EvalArgs {
    /// The qrels file (`qid iter docno rel`). Without it, the first file
    /// given is the qrels, as in trec_eval.
    #[arg(long)]
    qrels: Option<PathBuf>,
    /// trec_eval -c: average over all qrels topics (missing ones score 0).
    #[arg(short = 'c')]
    complete: bool,
    /// trec_eval -M: evaluate only the first N documents of each topic
    /// (trec_eval measures only).
    #[arg(short = 'M', value_name = "N")]
    max_docs: Option<usize>,
    /// trec_eval -m, repeatable: a measure (map, P_10, ndcg@20), a family
    /// with cutoffs (P.5,10, ndcg_cut.20, success.1,5,10; P, recall,
    /// ndcg_cut, success alone: trec_eval's default cutoffs) or a set
    /// (official, all_trec, gdeval). Default: num_ret, num_rel, num_rel_ret,
    /// map, P_5..P_30, recall_1000, ndcg@20, err@20.
    #[arg(short = 'm', long, value_name = "MEASURE")]
    measure: Vec<String>,
    /// Keep the best-scored copy of a document retrieved twice for a topic
    /// instead of refusing the run (trec_eval refuses it).
    #[arg(long)]
    dedup: bool,
    /// [QRELS] then run files (`qid Q0 docno rank score tag`).
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
    /// Also print a row per topic and measure.
    #[arg(long = "per-topic", short = 'q')]
    per_topic: bool,
    /// Print JSON at full precision.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct CompareArgs {
    #[command(flatten)]
    input: RunInput,
    /// Run A (the baseline).
    run_a: PathBuf,
    /// Run B.
    run_b: PathBuf,
    /// Comma-separated measures, named as `eval` prints them (map, P_5,
    /// P_10, P_20, P_30, recall_1000, ndcg_cut_10, Rprec, bpref, recip_rank,
    /// ndcg@20, err@20, ...).
    #[arg(
        short = 'm',
        long,
        value_delimiter = ',',
        default_value = "map,P_10,ndcg@20,err@20"
    )]
    measure: Vec<Measure>,
    /// How many of the most changed topics to list per measure.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Print JSON at full precision.
    #[arg(long)]
    json: bool,
    /// Also write a self-contained HTML page to FILE: the summary table, a
    /// per-topic difference chart per measure, and the documents that
    /// entered or left the top 10 of the most changed topics.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The index the runs were made from, for the page's document details
    /// (URL, title, spam percentile, charset, encoding errors).
    #[arg(long, num_args = 1.., value_name = "DIR", requires = "html")]
    index: Vec<PathBuf>,
    /// Read an index whose build did not finish (killed, or being
    /// resumed): only its committed documents, with a warning on stderr.
    #[arg(long)]
    allow_unfinished: bool,
}

/// Runs the command line; errors are printed once, as one line without a
/// backtrace, and exit with code 1; a closed stdout (`| head`) ends it
/// quietly with code 0 (see `sieve_cli::exit`).
fn main() -> ExitCode {
    sieve_cli::exit::run_guarded("sieve-search", || match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => sieve_cli::exit::report_error("sieve-search", e.as_ref()),
    })
}

/// Parses the command line and runs the subcommand.
fn run() -> Result<()> {
    let args = sieve_cli::argv::normalize(
        std::env::args_os(),
        anserini::ANSERINI,
        anserini::SHORTS,
    );
    let args = args.unwrap_or_else(|e| {
        clap::Error::raw(clap::error::ErrorKind::UnknownArgument, format!("{e}\n")).exit()
    });
    match Cli::parse_from(args).cmd {
        Cmd::Run(a) => cmd_run(a),
        Cmd::Topics(a) => cmd_topics(a),
        Cmd::Eval(a) => cmd_eval(a),
        Cmd::Compare(a) => cmd_compare(a),
        Cmd::Sweep(a) => sweep::cmd_sweep(a),
        Cmd::GlobalStats(a) => cmd_stats(a),
        Cmd::SumStats(a) => cmd_sum_stats(a),
        Cmd::MergeRuns(a) => cmd_merge_runs(a),
    }
}

impl SearchField {
    fn text_field(self) -> sieve_format::schema::TextField {
        match self {
            SearchField::Body => sieve_format::schema::TextField::Body,
            SearchField::Title => sieve_format::schema::TextField::Title,
        }
    }
}

/// Where a command's result goes: a file given with `--output`, written
/// at a temporary name and renamed into place by [`Out::finish`] (complete
/// or absent: dropped on an error, it leaves the previous file as it
/// was), or stdout.
enum Out {
    File(OutFile),
    Stdout(std::io::BufWriter<std::io::Stdout>),
}

impl Out {
    /// Commits the file (or flushes stdout).
    fn finish(self) -> Result<()> {
        match self {
            Out::File(f) => f.commit()?,
            Out::Stdout(mut w) => w.flush()?,
        }
        Ok(())
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Out::File(f) => f.write(buf),
            Out::Stdout(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Out::File(f) => f.flush(),
            Out::Stdout(w) => w.flush(),
        }
    }
}

/// The output `path` (checked already with [`refuse_inputs`]), or stdout.
fn sink(path: Option<&Path>) -> Result<Out> {
    Ok(match path {
        Some(p) => Out::File(OutFile::create(p)?),
        None => Out::Stdout(std::io::BufWriter::new(std::io::stdout())),
    })
}

/// Refuses an output that is one of the command's inputs (same file, by
/// any path), before anything is written.
fn refuse_inputs(output: Option<&Path>, inputs: &[&Path]) -> Result<()> {
    if let Some(o) = output {
        sieve_format::outfile::refuse_same_file(o, inputs)?;
    }
    Ok(())
}

/// Prints a warning for every topic whose query was capped or has no
/// searchable terms (`--max-query-terms`).
fn warn_queries(
    analyzer: &sieve_analysis::EnglishAnalyzer,
    topics: &[sieve_searcher::topics::Topic],
    q: &QueryArgs,
) {
    for note in sieve_searcher::queries::query_notes(analyzer, topics, q.field, q.max_query_terms) {
        match note {
            sieve_searcher::queries::QueryNote::Capped { .. } => {
                eprintln!("warning: {note} (--max-query-terms)")
            }
            _ => eprintln!("warning: {note}"),
        }
    }
}

/// Opens the indexes `dirs` as shards: an unfinished one is refused
/// unless `allow` (`--allow-unfinished`), and then warned about, on every
/// run.
pub(crate) fn open_indexes(
    dirs: &[PathBuf],
    allow: bool,
) -> Result<(
    Vec<sieve_searcher::bm25::Shard>,
    sieve_analysis::AnalyzerConfig,
)> {
    let opened = sieve_searcher::batch::open_shards_with(dirs, Unfinished::allow_if(allow))?;
    for dir in dirs {
        if let Some(w) = sieve_format::index::unfinished_warning(dir) {
            eprintln!("sieve-search: warning: {w}");
        }
    }
    Ok(opened)
}

/// Warns about index segments without block-max bounds: they are scored
/// without block-max pruning (same results, more postings read).
fn warn_missing_bounds(shards: &[sieve_searcher::bm25::Shard]) {
    for s in shards {
        let n = s.segments_without_bounds();
        if n > 0 {
            eprintln!(
                "sieve-search: warning: {}: {n} segment(s) without block-max bounds, scored without block-max pruning (same results, slower); `sieve-index bounds --index {}` builds them",
                s.name, s.name
            );
        }
    }
}

fn cmd_stats(a: StatsArgs) -> Result<()> {
    let mut inputs: Vec<&Path> = a.index.iter().map(|p| p.as_path()).collect();
    inputs.push(&a.query.topics);
    refuse_inputs(a.output.as_deref(), &inputs)?;
    let (shards, config) = open_indexes(&a.index, a.allow_unfinished)?;
    warn_missing_bounds(&shards);
    let (_, topics) = read_topics(&a.query.topics)?;
    warn_queries(
        &sieve_analysis::EnglishAnalyzer::new(config),
        &topics,
        &a.query,
    );
    let stats = twostage::gather_stats(
        &shards,
        config,
        &topics,
        a.query.field,
        a.query.search_field.text_field(),
        a.query.max_query_terms,
    )?;
    let mut out = sink(a.output.as_deref())?;
    out.write_all(stats.to_json().as_bytes())?;
    out.finish()?;
    Ok(())
}

fn cmd_sum_stats(a: SumStatsArgs) -> Result<()> {
    let inputs: Vec<&Path> = a.files.iter().map(|p| p.as_path()).collect();
    refuse_inputs(a.output.as_deref(), &inputs)?;
    let parts = a
        .files
        .iter()
        .map(|p| Ok((p.clone(), twostage::ShardStats::read(p)?)))
        .collect::<Result<Vec<_>>>()?;
    let total = twostage::ShardStats::sum(&parts)?;
    let mut out = sink(a.output.as_deref())?;
    out.write_all(total.to_json().as_bytes())?;
    out.finish()?;
    Ok(())
}

fn cmd_merge_runs(a: MergeRunsArgs) -> Result<()> {
    anyhow::ensure!(a.hits >= 1, "--hits must be at least 1");
    let mut inputs: Vec<&Path> = a.runs.iter().map(|p| p.as_path()).collect();
    inputs.extend(a.topics.as_deref());
    refuse_inputs(a.output.as_deref(), &inputs)?;
    let order = match &a.topics {
        Some(p) => Some(
            read_topics(p)?
                .1
                .into_iter()
                .map(|t| t.id)
                .collect::<Vec<_>>(),
        ),
        None => None,
    };
    let merged = twostage::merge_runs(&a.runs, a.hits, order.as_deref())?;
    // Checked before the output file is created: a refused run leaves none.
    sieve_searcher::runspec::check_run(&a.tag, &merged)?;
    sieve_searcher::runspec::write_run(sink(a.output.as_deref())?, &a.tag, &merged)?.finish()?;
    Ok(())
}

fn cmd_topics(a: TopicsArgs) -> Result<()> {
    let (format, topics) = read_topics(&a.file)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        let v =
            serde_json::json!({ "format": format.name(), "count": topics.len(), "topics": topics });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    writeln!(out, "format\t{}\ncount\t{}", format.name(), topics.len())?;
    for t in &topics {
        writeln!(out, "{}\t{}", t.id, t.query(a.field))?;
    }
    Ok(())
}

/// Evaluates the run file `run`, warning about refused gdeval measures;
/// returns the evaluation and what [`Evaluation::coverage`] says of it.
fn evaluate_file(
    dedup: bool,
    opts: EvalOptions,
    qrels: &sieve_searcher::qrels::Qrels,
    run: &Path,
) -> Result<(Evaluation, Option<String>, sieve_searcher::run::Run)> {
    let dups = if dedup {
        Duplicates::KeepBest
    } else {
        Duplicates::Error
    };
    let r = read_run(run, dups)?;
    let (e, note) = evaluate_run(qrels, &r, run, opts)?;
    if let Some(why) = &e.gdeval_refused {
        eprintln!("warning: {}: {why}", run.display());
    }
    Ok((e, note, r))
}

fn cmd_eval(a: EvalArgs) -> Result<()> {
    let measures = MeasureSpec::parse_all(&a.measure)?;
    let (qrels_path, runs) = match &a.qrels {
        Some(q) => (q, &a.files[..]),
        None => {
            anyhow::ensure!(
                a.files.len() >= 2,
                "give the qrels and at least one run (QRELS RUN...), or --qrels QRELS RUN..."
            );
            (&a.files[0], &a.files[1..])
        }
    };
    let qrels = read_judgements(qrels_path)?;
    let opts = EvalOptions {
        complete: a.complete,
        max_docs: a.max_docs,
    };
    let mut out = std::io::stdout().lock();
    let mut json = Vec::new();
    for run in runs {
        let (e, note, _) = evaluate_file(a.dedup, opts, &qrels, run)?;
        if let Some(note) = note {
            eprintln!("note: {}: {note}", run.display());
        }
        if a.json {
            json.push(e.to_json_of(&measures));
        } else {
            write!(out, "{}", e.to_text_of(&measures, a.per_topic, 4))?;
        }
    }
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
    }
    Ok(())
}

fn cmd_compare(a: CompareArgs) -> Result<()> {
    let mut inputs: Vec<&Path> = vec![&a.input.qrels, &a.run_a, &a.run_b];
    inputs.extend(a.index.iter().map(|p| p.as_path()));
    refuse_inputs(a.html.as_deref(), &inputs)?;
    // The index (for the page's document details) is opened first: an
    // unfinished one is refused before anything is read or written.
    let shards = match a.index.is_empty() {
        true => None,
        false => Some(open_indexes(&a.index, a.allow_unfinished)?.0),
    };
    let qrels = read_judgements(&a.input.qrels)?;
    let opts = EvalOptions {
        complete: a.input.complete,
        ..EvalOptions::default()
    };
    let (ea, note_a, ra) = evaluate_file(a.input.dedup, opts, &qrels, &a.run_a)?;
    let (eb, note_b, rb) = evaluate_file(a.input.dedup, opts, &qrels, &a.run_b)?;
    if note_a == note_b {
        if let Some(n) = note_a {
            eprintln!("note: both runs: {n}");
        }
    } else {
        for (run, note) in [(&a.run_a, note_a), (&a.run_b, note_b)] {
            if let Some(n) = note {
                eprintln!("note: {}: {n}", run.display());
            }
        }
    }
    let cmp = compare::compare(&ea, &eb, &a.measure, a.top);
    let (na, nb) = (a.run_a.display().to_string(), a.run_b.display().to_string());
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&compare::to_json(&cmp, &na, &nb))?
        )?;
    } else {
        write!(out, "{}", compare::to_text(&cmp, &na, &nb))?;
    }
    if let Some(html) = &a.html {
        sweep::compare_html(
            html,
            &cmp,
            (&ea, &eb),
            (&ra, &rb),
            (&na, &nb),
            &qrels,
            shards.as_deref(),
        )?;
        eprintln!("wrote {}", html.display());
    }
    Ok(())
}

fn cmd_run(a: RunArgs) -> Result<()> {
    use sieve_searcher::batch::StatsMode;
    use sieve_searcher::queries::TopicQueries;
    use sieve_searcher::runspec::{RunSpec, write_run};

    set_threads(a.threads)?;
    anyhow::ensure!(a.hits >= 1, "--hits must be at least 1");
    let (shards, config) = open_indexes(&a.index, a.allow_unfinished)?;
    warn_missing_bounds(&shards);
    let analyzer = sieve_analysis::EnglishAnalyzer::new(config);
    let (_, topics) = read_topics(&a.query.topics)?;
    warn_queries(&analyzer, &topics, &a.query);
    let field = a.query.search_field.text_field();
    let queries = TopicQueries {
        analyzer: &analyzer,
        topics: &topics,
        field: a.query.field,
        max_terms: a.query.max_query_terms,
    };
    let global = match &a.global_stats {
        Some(p) => Some(twostage::open_global_stats(p, &shards, field, &queries)?),
        None => None,
    };
    let spec = RunSpec {
        selections: selections(&a)?,
        tag: a.tag,
        k1: a.k1,
        b: a.b,
        stats: match a.stats {
            StatsArg::Full => StatsMode::Full,
            StatsArg::Filtered => StatsMode::Filtered,
        },
        hits: a.hits,
        output: a.output,
        output_dir: a.output_dir,
    };
    let runs = spec.runs()?;
    if runs.len() > 1 && spec.output_dir.is_none() {
        anyhow::bail!(
            "{} runs requested (k1 x b x filters): give --output-dir DIR for their files",
            runs.len()
        );
    }
    let mut inputs: Vec<&Path> = a.index.iter().map(|p| p.as_path()).collect();
    inputs.push(&a.query.topics);
    inputs.extend(a.global_stats.as_deref());
    inputs.extend(a.filter.iter().map(|p| p.as_path()));
    for run in &runs {
        refuse_inputs(run.output.as_deref(), &inputs)?;
    }
    let started = std::time::Instant::now();
    let global = global.as_ref().map(|g| g as _);
    let results = spec.search(&runs, &shards, field, global, &queries)?;
    let elapsed = started.elapsed();
    // Every run is checked before the first file is created: a docid that
    // would break a run file's columns (from an index built before docids
    // were checked) leaves no partial run behind.
    for (run, res) in runs.iter().zip(&results) {
        sieve_searcher::runspec::check_run(&run.variant.tag, res)?;
    }
    if let Some(dir) = &spec.output_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    for (run, res) in runs.iter().zip(&results) {
        write_run(sink(run.output.as_deref())?, &run.variant.tag, res)?.finish()?;
    }
    eprintln!(
        "searched {} topics for each of {} run{} (one per k1, b and filter) in {:.3}s ({:.2} ms per topic, all runs)",
        topics.len(),
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e3 / topics.len().max(1) as f64
    );
    Ok(())
}

/// Sets the worker pool's size (`--threads`), if given.
fn set_threads(threads: Option<usize>) -> Result<()> {
    if let Some(t) = threads {
        let t = sieve_ingest::options::check_threads(t)
            .map_err(|_| anyhow::anyhow!("--threads must be at least 1"))?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(t.get())
            .build_global()
            .context("thread pool")?;
    }
    Ok(())
}

/// The document selections of `run`: one per spam percentile, per invalid
/// 4/5/6-byte rate and per filter file, in that order.
fn selections(a: &RunArgs) -> Result<Vec<sieve_searcher::batch::DocSelection>> {
    use sieve_filters::docfilter::Unscored;
    use sieve_searcher::runspec::{MIN_SPAM_PERCENTILE, SelectionSpec};

    let unscored = match (a.unscored, a.drop_unscored) {
        (UnscoredArg::Drop, _) | (_, true) => Unscored::Drop,
        (UnscoredArg::Keep, false) => Unscored::Keep,
    };
    let spec = SelectionSpec {
        min_spam_percentile: &a.min_spam_percentile,
        unscored,
        max_invalid_456_per_kb: &a.max_invalid_456_per_kb,
        filters: &a.filter,
        drop_near_duplicates: a.drop_near_duplicates,
    };
    spec.selections().map_err(|e| match e {
        sieve_searcher::Error::InvalidParameter { name, got, .. }
            if name == MIN_SPAM_PERCENTILE =>
        {
            anyhow::anyhow!("--min-spam-percentile {got}: expected 0-100")
        }
        e => e.into(),
    })
}
