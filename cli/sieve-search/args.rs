//! The command line of `sieve-search`: every subcommand's flags, as clap
//! reads them. Flags several subcommands share are declared once, in a
//! group flattened into each subcommand that takes them:
//! [`AllowUnfinished`], the query ([`QueryArgs`]), [`Hits`], [`Threads`],
//! the [`Output`] file, the models ([`ModelArgs`]) and feedback
//! ([`FeedbackArgs`]). (`--index` is declared by each subcommand:
//! each says in its help what several indexes mean to it.)

use std::path::PathBuf;

use clap::{Parser, Subcommand};
pub use sieve_cli::args::AllowUnfinished;
use sieve_filters::docfilter::Unscored;
use sieve_searcher::batch::StatsMode;
use sieve_searcher::eval::Measure;
use sieve_searcher::qrels::QrelsFormat;
use sieve_searcher::topics::TopicField;

#[derive(Parser)]
#[command(
    name = "sieve-search",
    version,
    about = "Run TREC topics over sieve indexes, evaluate and compare runs"
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Run a topic file over one or more indexes (shards, scored with global
    /// statistics) and write TREC run files, one per BM25 setting and filter.
    Run(Box<RunArgs>),
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
    /// combinations; optionally model and feedback settings) in one pass
    /// over the postings: every setting evaluated and compared with the
    /// unfiltered run (sweep.tsv, sweep.svg, optionally run files and an
    /// HTML page).
    Sweep(Box<SweepArgs>),
    /// Two-stage search, stage 1: write the global BM25 statistics (N, total
    /// tokens, df of every analysed query term) of one or more indexes as
    /// JSON, for `sum-stats` and `run --global-stats`.
    #[command(alias = "stats")]
    GlobalStats(StatsArgs),
    /// Sum global-statistics files written by `global-stats` (their headers
    /// must be equal: same analyser, fields and topics) into one.
    SumStats(SumStatsArgs),
    /// Feedback over shards searched apart, per shard: the term vectors of
    /// a first-stage run's feedback documents that these indexes hold
    /// (JSON lines, for `merge-vectors`). Give it the feedback flags of
    /// `run`.
    FeedbackVectors(Box<FeedbackVectorsArgs>),
    /// Merge the feedback vectors of every shard (headers must be equal;
    /// a document two parts hold is refused) into one file, for
    /// `global-stats --vocabulary` and `expand-queries`.
    MergeVectors(MergeVectorsArgs),
    /// Feedback over shards searched apart, on the driver (no index): each
    /// topic's feedback query from the first-stage run, the merged vectors
    /// and their summed statistics, as a weighted-queries file for `run
    /// --weighted-queries`.
    ExpandQueries(Box<ExpandQueriesArgs>),
    /// Two-stage search, last step: merge shard runs (each searched with
    /// `run --global-stats`) into the best K hits per topic, ties broken as
    /// in one index (score descending, docid descending).
    MergeRuns(MergeRunsArgs),
    /// Fuse two or more runs into one, byte for byte as Anserini 1.7.1's
    /// FuseRuns: reciprocal rank fusion (rrf), interpolation of two runs,
    /// average or weighted sums, optionally of min-max normalised scores.
    /// Refused: fewer than 2 runs, an empty run, a malformed line, a
    /// document twice in one topic of a run, non-finite scores, weights or
    /// alpha, and an output that is an input. A topic missing from a run
    /// contributes nothing from it (stderr says how many each run lacks).
    Fuse(FuseArgs),
    /// Serve indexes read-only over HTTP: a JSON API (Anserini's REST
    /// routes and answers, with sieve's models, filters, documents and
    /// batch runs) and a page to look into them (docs/service.md).
    Serve(ServeArgs),
}

// The arguments of each subcommand, in `Cmd` order.

/// `run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Index directories (`--index A B` or `--index A --index B`); several
    /// are searched as shards of one collection with global BM25 statistics.
    #[arg(long, required = true, num_args = 1.., value_name = "DIR")]
    pub index: Vec<PathBuf>,
    #[command(flatten)]
    pub unfinished: AllowUnfinished,
    #[command(flatten)]
    pub query: QueryArgs,
    /// Score with these statistics (from `global-stats`, summed by
    /// `sum-stats`) instead of those of the given indexes: stage 2 of a
    /// two-stage search. Refused unless made for the same analyser, fields
    /// and topics.
    #[arg(long, value_name = "FILE")]
    pub global_stats: Option<PathBuf>,
    #[command(flatten)]
    pub models: ModelArgs,
    #[command(flatten)]
    pub hits: Hits,
    /// Run tag (with several runs, a suffix names each setting).
    #[arg(long, default_value = "sieve")]
    pub tag: String,
    /// Output run file (one run; default stdout).
    #[arg(
        long,
        alias = "out",
        value_name = "FILE",
        conflicts_with = "output_dir"
    )]
    pub output: Option<PathBuf>,
    /// Directory for the run files when there are several (TAG.run names).
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Keep documents with spam percentile >= P (comma-separated list: one run each).
    #[arg(long, value_delimiter = ',', value_name = "P")]
    pub min_spam_percentile: Vec<u8>,
    /// Drop documents with more than X invalid 4/5/6-byte sequences per KB
    /// (comma-separated list: one run each).
    #[arg(long, value_delimiter = ',', value_name = "X")]
    pub max_invalid_456_per_kb: Vec<f64>,
    /// Documents without a spam score, when filtering on spam: keep or drop.
    #[arg(long, value_enum, default_value = "keep")]
    pub unscored: UnscoredArg,
    /// Old spelling of `--unscored drop`.
    #[arg(long, hide = true, conflicts_with = "unscored")]
    pub drop_unscored: bool,
    /// Filter files from `sieve-filter build` (one run each).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub filter: Vec<PathBuf>,
    /// Also drop near-duplicates (every member of a near-duplicate cluster
    /// but its representative, the smallest docid) in every run; alone, one
    /// run that drops only near-duplicates.
    #[arg(long)]
    pub drop_near_duplicates: bool,
    /// Which documents BM25's collection statistics (N, average length,
    /// document frequencies) count in a filtered run: full (every indexed
    /// document) or filtered (only the kept ones).
    #[arg(long = "collection-stats", alias = "stats", default_value = "full")]
    pub stats: StatsArg,
    /// Quoted text in topics: ignore (quotes are punctuation, the topic is
    /// its bag of words) or exact (each quoted phrase of two or more terms
    /// is also an exact-phrase clause, BM25; the index needs --positions).
    #[arg(long, value_enum, default_value = "ignore", value_name = "HOW")]
    pub phrases: PhrasesArg,
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub feedback: FeedbackArgs,
    /// Print each topic's feedback query (term^weight) to this file, per run.
    #[arg(long, value_name = "FILE", help_heading = FEEDBACK_HEADING)]
    pub feedback_queries: Option<PathBuf>,
    /// Search these feedback queries (from `expand-queries`) instead of
    /// the topics: the second stage of feedback over shards searched apart,
    /// with the statistics of `global-stats --vocabulary` (--global-stats)
    /// and the first stage's model and filter flags. One run, tagged as
    /// `run --feedback` tags it.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["feedback", "feedback_queries"])]
    pub weighted_queries: Option<PathBuf>,
}

/// `topics`.
#[derive(clap::Args)]
pub struct TopicsArgs {
    /// The topic file (TREC SGML, Web Track XML, `N:query`, TSV or Anserini CACM).
    pub file: PathBuf,
    /// Which text is the query: title, desc or title+desc.
    #[arg(long, default_value = "title")]
    pub field: TopicField,
    /// Print every parsed field as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `eval`.
#[derive(clap::Args)]
#[command(
    override_usage = "sieve-search eval [-q] [-c] [-M N] [-m MEASURE]... QRELS RUN...\n       \
                      sieve-search eval --qrels QRELS [-q] [-c] [-M N] [-m MEASURE]... RUN..."
)]
pub struct EvalArgs {
    /// The qrels file (`qid iter docno rel`). Without it, the first file
    /// given is the qrels, as in trec_eval.
    #[arg(long)]
    pub qrels: Option<PathBuf>,
    /// The qrels' layout: detect (4 columns TREC, 3 cranqrel), trec, or
    /// sample (sample_eval.pl's `qid iter docno stratum rel`, for xinfAP).
    #[arg(long, default_value = "detect", value_name = "detect|trec|sample")]
    pub qrels_format: QrelsFormat,
    /// trec_eval -c: average over all qrels topics (missing ones score 0).
    #[arg(short = 'c')]
    pub complete: bool,
    /// trec_eval -M: evaluate only the first N documents of each topic
    /// (trec_eval measures only).
    #[arg(short = 'M', value_name = "N")]
    pub max_docs: Option<usize>,
    /// trec_eval -J: evaluate judged documents only (each ranking without
    /// the documents that have no judgement of grade >= 0 for the topic,
    /// after -M); gdeval's measures get the same condensation (sieve's:
    /// gdeval has no -J).
    #[arg(short = 'J', long = "judged-only")]
    pub judged_only: bool,
    /// trec_eval -m, repeatable: a measure (map, P_10, infAP, ndcg@20,
    /// judged_10), a family with cutoffs (P.5,10, ndcg_cut.20,
    /// success.1,5,10, judged.10,20; P, recall, ndcg_cut, success alone:
    /// trec_eval's default cutoffs; judged alone: 10 and 20) or a set
    /// (official, all_trec, gdeval). Default: num_ret, num_rel, num_rel_ret,
    /// map, P_5..P_30, recall_1000, ndcg@20, err@20.
    #[arg(short = 'm', long, value_name = "MEASURE")]
    pub measure: Vec<String>,
    /// Keep the best-scored copy of a document retrieved twice for a topic
    /// instead of refusing the run (trec_eval refuses it).
    #[arg(long)]
    pub dedup: bool,
    /// [QRELS] then run files (`qid Q0 docno rank score tag`).
    #[arg(required = true, value_name = "FILES")]
    pub files: Vec<PathBuf>,
    /// Also print a row per topic and measure.
    #[arg(long = "per-topic", short = 'q')]
    pub per_topic: bool,
    /// Print JSON at full precision.
    #[arg(long)]
    pub json: bool,
}

/// `compare`.
#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("index_use").multiple(true))]
pub struct CompareArgs {
    #[command(flatten)]
    pub input: RunInput,
    /// Run A (the baseline).
    pub run_a: PathBuf,
    /// Run B.
    pub run_b: PathBuf,
    /// Comma-separated measures, named as `eval` prints them (map, P_5,
    /// P_10, P_20, P_30, recall_1000, ndcg_cut_10, Rprec, bpref, recip_rank,
    /// ndcg@20, err@20, ...).
    #[arg(
        short = 'm',
        long,
        value_delimiter = ',',
        default_value = "map,P_10,ndcg@20,err@20"
    )]
    pub measure: Vec<Measure>,
    /// How many of the most changed topics to list per measure.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Print JSON at full precision.
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML page to FILE: the summary table, a
    /// per-topic difference chart per measure, and the documents that
    /// entered or left the top 10 of the most changed topics.
    #[arg(long, value_name = "FILE", group = "index_use")]
    pub html: Option<PathBuf>,
    /// The index the runs were made from: for the page's document details
    /// (URL, title, spam percentile, charset, encoding errors) and for
    /// what B's filter removed that was judged (the --b-* flags).
    #[arg(long, num_args = 1.., value_name = "DIR", requires = "index_use")]
    pub index: Vec<PathBuf>,
    #[command(flatten)]
    pub unfinished: AllowUnfinished,
    #[command(flatten)]
    pub b_filter: FilterOfB,
    #[command(flatten)]
    pub draws: Draws,
}

/// How the randomisation test and the bootstrap draw (`compare`, `sweep`).
#[derive(clap::Args)]
pub struct Draws {
    /// Sign patterns the randomisation test draws (beyond 16 topics; up to
    /// 16, all 2^n are enumerated).
    #[arg(long, default_value_t = sieve_searcher::robust::DEFAULT_RESAMPLES,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub permutations: usize,
    /// Bootstrap resamples of the mean difference.
    #[arg(long, default_value_t = sieve_searcher::robust::DEFAULT_BOOTSTRAP,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub bootstrap: usize,
    /// Seed of the randomisation test's and the bootstrap's generator
    /// (SplitMix64): the same seed gives the same p-values and intervals.
    #[arg(long, default_value_t = sieve_searcher::robust::DEFAULT_SEED)]
    pub seed: u64,
}

impl Draws {
    /// As the library takes them.
    pub fn resampling(&self) -> sieve_searcher::robust::Resampling {
        sieve_searcher::robust::Resampling {
            permutations: self.permutations,
            bootstrap: self.bootstrap,
            seed: self.seed,
        }
    }
}

/// The values of `sweep --test`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum TestArg {
    /// The paired t-test.
    T,
    /// The paired randomisation test.
    Randomisation,
    /// The Wilcoxon signed-rank test.
    Wilcoxon,
}

impl TestArg {
    /// The library's test.
    pub fn test(self) -> sieve_searcher::sweep::Test {
        match self {
            TestArg::T => sieve_searcher::sweep::Test::T,
            TestArg::Randomisation => sieve_searcher::sweep::Test::Randomisation,
            TestArg::Wilcoxon => sieve_searcher::sweep::Test::Wilcoxon,
        }
    }
}

/// The filter run B was searched with, A being the same search without
/// it, as `run`'s filter flags name it: `compare` then reports what the
/// filter removed that was judged (needs --index). One rule at most (`run`
/// makes one run per rule), with or without near-duplicates dropped.
#[derive(clap::Args)]
pub struct FilterOfB {
    /// B kept documents with spam percentile >= P.
    #[arg(id = "b_spam", long = "b-min-spam-percentile", value_name = "P")]
    #[arg(requires = "index", group = "index_use")]
    #[arg(conflicts_with_all = ["b_i456", "b_filter_file"])]
    pub min_spam_percentile: Option<u8>,
    /// B's spam filter: documents without a spam score kept or dropped.
    #[arg(long = "b-unscored", value_enum, default_value = "keep")]
    #[arg(requires = "b_spam")]
    pub unscored: UnscoredArg,
    /// B dropped documents with more than X invalid 4/5/6-byte sequences
    /// per KB.
    #[arg(id = "b_i456", long = "b-max-invalid-456-per-kb", value_name = "X")]
    #[arg(
        requires = "index",
        group = "index_use",
        conflicts_with = "b_filter_file"
    )]
    pub max_invalid_456_per_kb: Option<f64>,
    /// B kept the documents of this filter file.
    #[arg(id = "b_filter_file", long = "b-filter", value_name = "FILE")]
    #[arg(requires = "index", group = "index_use")]
    pub filter: Option<PathBuf>,
    /// B dropped near-duplicates (alone, or with one rule above).
    #[arg(id = "b_nodup", long = "b-drop-near-duplicates")]
    #[arg(requires = "index", group = "index_use")]
    pub drop_near_duplicates: bool,
}

/// What `compare` evaluates its runs against.
#[derive(clap::Args)]
pub struct RunInput {
    /// The qrels file (`qid iter docno rel`).
    #[arg(long)]
    pub qrels: PathBuf,
    /// The qrels' layout (as `eval --qrels-format`).
    #[arg(long, default_value = "detect", value_name = "detect|trec|sample")]
    pub qrels_format: QrelsFormat,
    /// trec_eval -c: average over all qrels topics (missing ones score 0).
    #[arg(short = 'c')]
    pub complete: bool,
    /// trec_eval -J: evaluate judged documents only (as `eval -J`).
    #[arg(short = 'J', long = "judged-only")]
    pub judged_only: bool,
    /// Keep the best-scored copy of a document retrieved twice for a topic
    /// instead of refusing the run (trec_eval refuses it).
    #[arg(long)]
    pub dedup: bool,
}

/// `sweep`.
#[derive(clap::Args)]
pub struct SweepArgs {
    /// Index directories (`--index A B` or `--index A --index B`; several
    /// are searched as shards of one collection).
    #[arg(long, required = true, num_args = 1.., value_name = "DIR")]
    pub index: Vec<PathBuf>,
    #[command(flatten)]
    pub unfinished: AllowUnfinished,
    #[command(flatten)]
    pub query: QueryArgs,
    /// The qrels file (`qid iter docno rel`).
    #[arg(long, value_name = "FILE")]
    pub qrels: PathBuf,
    /// The qrels' layout (as `eval --qrels-format`).
    #[arg(long, default_value = "detect", value_name = "detect|trec|sample")]
    pub qrels_format: QrelsFormat,
    /// trec_eval -c: average over every qrels topic (default: over the
    /// topic file's judged topics); a topic a setting retrieves nothing
    /// for counts 0 either way.
    #[arg(short = 'c')]
    pub complete: bool,
    /// Spam thresholds to sweep: keep documents with spam percentile >= P
    /// (comma-separated list).
    #[arg(long, value_delimiter = ',', value_name = "P")]
    pub min_spam_percentile: Vec<u8>,
    /// Invalid 4/5/6-byte rates to sweep: drop documents with more than X
    /// per KB (comma-separated list).
    #[arg(long, value_delimiter = ',', value_name = "X")]
    pub max_invalid_456_per_kb: Vec<f64>,
    /// Rates of any error class to sweep, `CLASS=X,Y,...`: drop documents
    /// with more than X errors of CLASS per KB (classes:
    /// unexpected_continuation, missing_continuation, surrogate,
    /// invalid_4_5_6, overlong_nul, overlong_ascii, overlong_non_ascii).
    /// Repeatable, one class each.
    #[arg(long = "max-rate", value_name = "CLASS=X,Y")]
    pub max_rate: Vec<String>,
    /// Near-duplicates to sweep: keep them, drop them (every member of a
    /// near-duplicate cluster but its representative, as `run
    /// --drop-near-duplicates`), or both (`keep,drop`). Needs an index
    /// built with near-duplicate clusters.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "keep,drop")]
    pub near_duplicates: Vec<NearDupArg>,
    /// Sweep every combination of one threshold per rule (default: each
    /// threshold of each rule alone).
    #[arg(long)]
    pub cross: bool,
    /// Documents without a spam score, under a spam threshold: keep or drop.
    #[arg(long, value_enum, default_value = "keep")]
    pub unscored: UnscoredArg,
    #[command(flatten)]
    pub models: ModelArgs,
    #[command(flatten)]
    pub hits: Hits,
    /// Run tag (a suffix names each setting).
    #[arg(long, default_value = "sieve")]
    pub tag: String,
    /// Which documents BM25's collection statistics count in a filtered
    /// run: full (every indexed document) or filtered (only the kept ones).
    #[arg(long = "collection-stats", default_value = "full")]
    pub stats: StatsArg,
    /// Comma-separated measures, named as `eval` prints them (default:
    /// what `eval` prints without -m, and judged_10, judged_20).
    #[arg(short = 'm', long, value_delimiter = ',')]
    pub measure: Vec<Measure>,
    /// Which test's Holm-corrected p-value the terminal summary shows
    /// (sweep.tsv has every test's).
    #[arg(long, value_enum, default_value = "t")]
    pub test: TestArg,
    #[command(flatten)]
    pub draws: Draws,
    /// Also evaluate every setting with trec_eval -J (judged documents
    /// only): sweep.tsv gets the columns M_J, M_J_diff, ... of each
    /// measure M (but the judged share).
    #[arg(long)]
    pub judged_only: bool,
    /// Directory for sweep.tsv and sweep.svg (created if missing; those
    /// two files in it are replaced).
    #[arg(long, value_name = "DIR")]
    pub output_dir: PathBuf,
    /// Also write every setting's run file, DIR/runs/TAG.run.
    #[arg(long)]
    pub runs: bool,
    /// Also write the HTML page (figure, table, per-topic charts, the
    /// documents that entered or left the top 10) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// How many of the most changed topics the page details per setting.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub feedback: FeedbackArgs,
}

/// `global-stats`.
#[derive(clap::Args)]
pub struct StatsArgs {
    /// Index directories (the statistics are summed over them): `--index A
    /// B` or `--index A --index B`.
    #[arg(long, required = true, num_args = 1.., value_name = "DIR")]
    pub index: Vec<PathBuf>,
    #[command(flatten)]
    pub unfinished: AllowUnfinished,
    #[command(flatten)]
    pub query: QueryArgs,
    /// Also the statistics of every term of this feedback vectors file
    /// (from `merge-vectors`): for `expand-queries` and `run
    /// --weighted-queries`.
    #[arg(long, value_name = "FILE")]
    pub vocabulary: Option<PathBuf>,
    #[command(flatten)]
    pub output: Output,
}

/// `feedback-vectors`.
#[derive(clap::Args)]
pub struct FeedbackVectorsArgs {
    /// Index directories (shards searched apart; the documents of the run
    /// they hold): `--index A B` or `--index A --index B`.
    #[arg(long, required = true, num_args = 1.., value_name = "DIR")]
    pub index: Vec<PathBuf>,
    #[command(flatten)]
    pub unfinished: AllowUnfinished,
    #[command(flatten)]
    pub query: QueryArgs,
    /// The first-stage run (`merge-runs --hits D` of the shard runs, D the
    /// --rerank-cutoff).
    #[arg(long, value_name = "FILE")]
    pub run: PathBuf,
    #[command(flatten)]
    pub feedback: FeedbackArgs,
    #[command(flatten)]
    pub output: Output,
}

/// `merge-vectors`.
#[derive(clap::Args)]
pub struct MergeVectorsArgs {
    /// Feedback vectors files from `feedback-vectors`, one or more per shard.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub output: Output,
}

/// `expand-queries`.
#[derive(clap::Args)]
pub struct ExpandQueriesArgs {
    #[command(flatten)]
    pub query: QueryArgs,
    /// The first-stage run (as given to `feedback-vectors`).
    #[arg(long, value_name = "FILE")]
    pub run: PathBuf,
    /// The merged feedback vectors (`merge-vectors`).
    #[arg(long, value_name = "FILE")]
    pub vectors: PathBuf,
    /// The statistics of the topic terms and the vectors' terms
    /// (`global-stats --vocabulary`, summed by `sum-stats`).
    #[arg(long, value_name = "FILE")]
    pub global_stats: PathBuf,
    /// The first stage's model (one setting; the second stage must use it).
    #[command(flatten)]
    pub models: ModelArgs,
    #[command(flatten)]
    pub feedback: FeedbackArgs,
    #[command(flatten)]
    pub output: Output,
}

/// `sum-stats`.
#[derive(clap::Args)]
pub struct SumStatsArgs {
    /// Global-statistics files from `global-stats`.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub output: Output,
}

/// `merge-runs`.
#[derive(clap::Args)]
pub struct MergeRunsArgs {
    /// Shard runs (TREC run files), each cut at --hits or more per topic.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Hits per topic in the merged run.
    #[arg(long, default_value_t = 1000)]
    pub hits: usize,
    /// Write topics in this topic file's order (default: first appearance).
    #[arg(long, value_name = "FILE")]
    pub topics: Option<PathBuf>,
    /// Run tag.
    #[arg(long, default_value = "sieve")]
    pub tag: String,
    /// Output run file (default stdout).
    #[arg(long, alias = "out", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `serve`.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// An index to serve, `NAME=DIR`; several directories (`NAME=A,B`)
    /// are shards searched as one collection. Repeat for more indexes.
    #[arg(long, required = true, value_name = "NAME=DIR[,DIR...]")]
    pub index: Vec<String>,
    /// The address to listen on: loopback unless another is named; port 0
    /// picks a free port (the first line of stdout says which).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: std::net::SocketAddr,
    /// Searches at once (default: the number of cores).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub workers: Option<usize>,
    /// Connections at once (more wait to be accepted).
    #[arg(long, default_value_t = 1024, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65536))]
    pub max_connections: usize,
    /// Seconds a client has to send a request's header.
    #[arg(long, default_value_t = 10, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=3600))]
    pub header_seconds: u64,
    /// Longest stall, in seconds, of a read or write of a connection.
    #[arg(long, default_value_t = 30, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=3600))]
    pub io_seconds: u64,
    /// Seconds given to requests in flight after SIGTERM or SIGINT.
    #[arg(long, default_value_t = 10, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(0..=3600))]
    pub drain_seconds: u64,
}

/// `fuse`.
#[derive(clap::Args)]
pub struct FuseArgs {
    /// The run files (TREC format), in order: interpolation weights the
    /// first by alpha, `--weights` are taken in this order.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    /// Fusion method; a comma-separated list writes one run per method
    /// (then give --output-dir).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "rrf")]
    pub method: Vec<FuseMethod>,
    /// rrf: a line ranked r (the rank column) contributes 1/(K + r)
    /// [default: 60].
    #[arg(long, value_name = "K")]
    pub rrf_k: Option<u32>,
    /// interpolation: the first run's scores x ALPHA plus the second's x
    /// (1 - ALPHA) [default: 0.5].
    #[arg(long)]
    pub alpha: Option<f64>,
    /// weighted: one weight per run, comma-separated (`0.7,0.3`).
    #[arg(long, value_delimiter = ',', value_name = "W,W")]
    pub weights: Vec<f64>,
    /// Min-max normalise each run's scores per topic before fusing
    /// (Anserini's -min_max_normalization; rrf does not read scores).
    #[arg(long)]
    pub min_max: bool,
    /// Lines of each topic of each run considered: the first N in file
    /// order (Anserini caps instead the contributions a document sums;
    /// the same output when N is at least the number of runs and every
    /// run's lines per topic).
    #[arg(long, default_value_t = 1000, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub depth: usize,
    /// Hits per topic in the fused run.
    #[arg(long, short = 'k', default_value_t = 1000,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub hits: usize,
    /// Run tag (with several methods, `_METHOD` is appended).
    #[arg(long, default_value = "sieve.fusion")]
    pub tag: String,
    /// Output run file (one method; default stdout).
    #[arg(
        long,
        alias = "out",
        value_name = "FILE",
        conflicts_with = "output_dir"
    )]
    pub output: Option<PathBuf>,
    /// Directory for the fused runs (TAG.run names).
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
}

/// The values of `fuse --method`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FuseMethod {
    Rrf,
    Interpolation,
    Average,
    Weighted,
}

impl FuseMethod {
    /// The library's method.
    pub fn method(self) -> sieve_searcher::fusion::Method {
        use sieve_searcher::fusion::Method;
        match self {
            FuseMethod::Rrf => Method::Rrf,
            FuseMethod::Interpolation => Method::Interpolation,
            FuseMethod::Average => Method::Average,
            FuseMethod::Weighted => Method::Weighted,
        }
    }
}

// The groups of flags several subcommands share.

/// What a query is made of: shared by `run`, `sweep` and `global-stats`.
#[derive(clap::Args)]
pub struct QueryArgs {
    /// The topic file (format detected).
    #[arg(long, value_name = "FILE")]
    pub topics: PathBuf,
    /// Which topic text is the query: title, desc or title+desc.
    #[arg(long, default_value = "title")]
    pub field: TopicField,
    /// Index field searched: body (title + text) or title.
    #[arg(long, default_value = "body")]
    pub search_field: SearchField,
    /// Unique analysed terms searched per topic: the first N in query order
    /// are kept, the rest dropped with a warning naming the topic.
    #[arg(long, default_value_t = sieve_searcher::queries::DEFAULT_MAX_QUERY_TERMS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_query_terms: usize,
}

/// `--hits`, of `run` and `sweep`.
#[derive(clap::Args)]
pub struct Hits {
    /// Hits per topic.
    #[arg(long, default_value_t = 1000)]
    pub hits: usize,
}

impl Hits {
    /// The hits per topic, refused when 0.
    pub fn checked(&self) -> anyhow::Result<usize> {
        anyhow::ensure!(self.hits >= 1, "--hits must be at least 1");
        Ok(self.hits)
    }
}

/// `--threads`, of `run` and `sweep`.
#[derive(clap::Args)]
pub struct Threads {
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

/// `--output FILE` of the statistics commands (default stdout).
#[derive(clap::Args)]
pub struct Output {
    /// Output file (default stdout).
    #[arg(long, alias = "out", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The values of `--search-field`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SearchField {
    Body,
    Title,
}

impl SearchField {
    /// The index field searched.
    pub fn text_field(self) -> sieve_format::schema::TextField {
        match self {
            SearchField::Body => sieve_format::schema::TextField::Body,
            SearchField::Title => sieve_format::schema::TextField::Title,
        }
    }
}

/// The values of `--unscored`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum UnscoredArg {
    Keep,
    Drop,
}

impl UnscoredArg {
    /// What a spam threshold does with a document without a score.
    pub fn rule(self) -> Unscored {
        match self {
            UnscoredArg::Keep => Unscored::Keep,
            UnscoredArg::Drop => Unscored::Drop,
        }
    }
}

/// The values of `--collection-stats`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum StatsArg {
    Full,
    Filtered,
}

impl StatsArg {
    /// Which documents BM25's statistics count.
    pub fn mode(self) -> StatsMode {
        match self {
            StatsArg::Full => StatsMode::Full,
            StatsArg::Filtered => StatsMode::Filtered,
        }
    }
}

/// The values of `--phrases`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PhrasesArg {
    Ignore,
    Exact,
}

impl PhrasesArg {
    /// How quoted phrases are searched.
    pub fn mode(self) -> sieve_searcher::queries::Phrases {
        match self {
            PhrasesArg::Ignore => sieve_searcher::queries::Phrases::Ignore,
            PhrasesArg::Exact => sieve_searcher::queries::Phrases::Exact,
        }
    }
}

/// A value of `--near-duplicates`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NearDupArg {
    Keep,
    Drop,
}

/// The help heading of the feedback flags.
pub const FEEDBACK_HEADING: &str = "Feedback (each a comma list: one setting per combination)";

/// Pseudo-relevance feedback, of `run` and `sweep` (each flag a comma
/// list: one feedback setting per combination; defaults are Anserini
/// 1.7.1's).
#[derive(clap::Args)]
#[command(next_help_heading = FEEDBACK_HEADING)]
pub struct FeedbackArgs {
    /// Feedback models: rm3, bm25prf, rocchio (comma list). Each topic's
    /// first stage (the run's model and filter) gives the feedback
    /// documents: with a filter, they come from the filtered ranking (kept
    /// documents only). The expanded query is searched again in the same
    /// documents, --hits deep. `run`: one run file per setting; `sweep`:
    /// each setting crossed with every threshold, with its own unfiltered
    /// baseline. Tags end in the model and its parameters
    /// (rm3_t10_d10_w0.5).
    #[arg(long, value_delimiter = ',', value_name = "MODEL")]
    pub feedback: Vec<String>,
    /// First-stage hits feedback reads (Anserini's -rerankCutoff); Rocchio's
    /// bottom documents are the last of them.
    #[arg(long, default_value_t = sieve_searcher::feedback::DEFAULT_RERANK_CUTOFF,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub rerank_cutoff: usize,
    /// RM3: feedback terms.
    #[arg(long, value_delimiter = ',', default_value = "10", value_name = "N")]
    pub rm3_fb_terms: Vec<usize>,
    /// RM3: feedback documents.
    #[arg(long, value_delimiter = ',', default_value = "10", value_name = "N")]
    pub rm3_fb_docs: Vec<usize>,
    /// RM3: the original query's weight, in [0, 1].
    #[arg(long, value_delimiter = ',', default_value = "0.5", value_name = "W")]
    pub rm3_original_query_weight: Vec<f32>,
    /// RM3: keep non-[a-z0-9] feedback terms (Anserini's -rm3.noTermFilter).
    #[arg(long)]
    pub rm3_no_term_filter: bool,
    /// BM25-PRF: expansion terms.
    #[arg(long, value_delimiter = ',', default_value = "20", value_name = "N")]
    pub bm25prf_fb_terms: Vec<usize>,
    /// BM25-PRF: feedback documents.
    #[arg(long, value_delimiter = ',', default_value = "10", value_name = "N")]
    pub bm25prf_fb_docs: Vec<usize>,
    /// BM25-PRF: k1 of its second search.
    #[arg(long, value_delimiter = ',', default_value = "0.9", value_name = "K1")]
    pub bm25prf_k1: Vec<f32>,
    /// BM25-PRF: b of its second search.
    #[arg(long, value_delimiter = ',', default_value = "0.4", value_name = "B")]
    pub bm25prf_b: Vec<f32>,
    /// BM25-PRF: weight of the expansion terms.
    #[arg(long, value_delimiter = ',', default_value = "0.2", value_name = "W")]
    pub bm25prf_new_term_weight: Vec<f32>,
    /// Rocchio: terms from the top documents.
    #[arg(long, value_delimiter = ',', default_value = "10", value_name = "N")]
    pub rocchio_top_fb_terms: Vec<usize>,
    /// Rocchio: top documents.
    #[arg(long, value_delimiter = ',', default_value = "10", value_name = "N")]
    pub rocchio_top_fb_docs: Vec<usize>,
    /// Rocchio: terms from the bottom documents (with --rocchio-use-negative).
    #[arg(long, value_delimiter = ',', default_value = "10", value_name = "N")]
    pub rocchio_bottom_fb_terms: Vec<usize>,
    /// Rocchio: bottom documents (with --rocchio-use-negative).
    #[arg(long, value_delimiter = ',', default_value = "10", value_name = "N")]
    pub rocchio_bottom_fb_docs: Vec<usize>,
    /// Rocchio: the query's weight.
    #[arg(long, value_delimiter = ',', default_value = "1", value_name = "A")]
    pub rocchio_alpha: Vec<f32>,
    /// Rocchio: the top documents' weight.
    #[arg(long, value_delimiter = ',', default_value = "0.75", value_name = "B")]
    pub rocchio_beta: Vec<f32>,
    /// Rocchio: the bottom documents' weight (with --rocchio-use-negative).
    #[arg(long, value_delimiter = ',', default_value = "0.15", value_name = "G")]
    pub rocchio_gamma: Vec<f32>,
    /// Rocchio: subtract the bottom documents.
    #[arg(long)]
    pub rocchio_use_negative: bool,
}

impl FeedbackArgs {
    /// The feedback settings asked for (none without --feedback), checked.
    pub fn settings(&self) -> anyhow::Result<Vec<sieve_searcher::feedback::Feedback>> {
        use sieve_searcher::feedback::{FeedbackSpec, Method};
        let methods = self
            .feedback
            .iter()
            .map(|m| Method::parse(m))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| anyhow::anyhow!("--feedback: {e}"))?;
        let spec = FeedbackSpec {
            methods,
            rm3_fb_terms: self.rm3_fb_terms.clone(),
            rm3_fb_docs: self.rm3_fb_docs.clone(),
            rm3_original_query_weight: self.rm3_original_query_weight.clone(),
            rm3_term_filter: !self.rm3_no_term_filter,
            bm25prf_fb_terms: self.bm25prf_fb_terms.clone(),
            bm25prf_fb_docs: self.bm25prf_fb_docs.clone(),
            bm25prf_k1: self.bm25prf_k1.clone(),
            bm25prf_b: self.bm25prf_b.clone(),
            bm25prf_new_term_weight: self.bm25prf_new_term_weight.clone(),
            rocchio_top_fb_terms: self.rocchio_top_fb_terms.clone(),
            rocchio_top_fb_docs: self.rocchio_top_fb_docs.clone(),
            rocchio_bottom_fb_terms: self.rocchio_bottom_fb_terms.clone(),
            rocchio_bottom_fb_docs: self.rocchio_bottom_fb_docs.clone(),
            rocchio_alpha: self.rocchio_alpha.clone(),
            rocchio_beta: self.rocchio_beta.clone(),
            rocchio_gamma: self.rocchio_gamma.clone(),
            rocchio_use_negative: self.rocchio_use_negative,
        };
        spec.settings().map_err(|e| {
            let flag = match &e {
                sieve_searcher::Error::InvalidParameter { name, .. } => Some(feedback_flag(name)),
                _ => None,
            };
            match flag {
                Some(f) => anyhow::anyhow!("{f}: {e}"),
                None => e.into(),
            }
        })
    }
}

/// The flag of a feedback parameter the library names.
fn feedback_flag(name: &str) -> &'static str {
    match name {
        "RM3 feedback terms" => "--rm3-fb-terms",
        "RM3 feedback documents" => "--rm3-fb-docs",
        "RM3 original query weight" => "--rm3-original-query-weight",
        "BM25-PRF feedback terms" => "--bm25prf-fb-terms",
        "BM25-PRF feedback documents" => "--bm25prf-fb-docs",
        "k1" => "--bm25prf-k1",
        "b" => "--bm25prf-b",
        "BM25-PRF new term weight" => "--bm25prf-new-term-weight",
        "Rocchio top feedback terms" => "--rocchio-top-fb-terms",
        "Rocchio top feedback documents" => "--rocchio-top-fb-docs",
        "Rocchio bottom feedback terms" => "--rocchio-bottom-fb-terms",
        "Rocchio bottom feedback documents" => "--rocchio-bottom-fb-docs",
        "Rocchio alpha" => "--rocchio-alpha",
        "Rocchio beta" => "--rocchio-beta",
        "Rocchio gamma" => "--rocchio-gamma",
        _ => "--feedback",
    }
}

/// The retrieval models and their parameters (`run`, `sweep`): each
/// value of each list is one model setting, crossed with the filters.
#[derive(Debug, clap::Args)]
pub struct ModelArgs {
    /// BM25 k1 (comma-separated list: one setting per value).
    #[arg(long, value_delimiter = ',', default_value = "0.9")]
    pub k1: Vec<f32>,
    /// BM25 b (comma-separated list: one setting per value).
    #[arg(long, value_delimiter = ',', default_value = "0.4")]
    pub b: Vec<f32>,
    /// Retrieval models (comma-separated list of bm25, qld, sdm): BM25 one
    /// setting per k1 and b, query likelihood with Dirichlet smoothing
    /// (Anserini's -qld) one per --mu, the sequential dependence model
    /// with BM25 (Anserini's -sdm; the index needs --positions) one per k1
    /// and b.
    #[arg(long, value_delimiter = ',', default_value = "bm25")]
    pub model: Vec<String>,
    /// The sequential dependence model alone: `--model sdm`.
    #[arg(long, conflicts_with = "model")]
    pub sdm: bool,
    /// QLD's Dirichlet prior (comma-separated list: one qld setting per
    /// value).
    #[arg(long, value_delimiter = ',', default_value = "1000")]
    pub mu: Vec<f32>,
}

impl ModelArgs {
    /// The models named by --model.
    pub fn names(&self) -> anyhow::Result<Vec<sieve_searcher::runspec::ModelName>> {
        if self.sdm {
            return Ok(vec![sieve_searcher::runspec::ModelName::Sdm]);
        }
        self.model
            .iter()
            .map(|m| sieve_searcher::runspec::ModelName::parse(m))
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow::anyhow!("--model: {e}"))
    }
}
