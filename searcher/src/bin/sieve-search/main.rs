//! `sieve-search`: run TREC topics, evaluate and compare runs.
//!
//! One subcommand per variant of [`Cmd`], each handled by one small function
//! over the `sieve_searcher` library.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use sieve_searcher::compare;
use sieve_searcher::eval::{EvalOptions, Evaluation, Measure, evaluate};
use sieve_searcher::qrels::read_qrels;
use sieve_searcher::run::{Duplicates, read_run};
use sieve_searcher::topics::{TopicField, read_topics};

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
    /// Parse a topic file and print what was read: format, count, then
    /// `id<TAB>query` per topic (or everything with --json).
    Topics(TopicsArgs),
    /// Evaluate runs as trec_eval (map, P_5..P_30, recall_1000) and gdeval
    /// (ndcg@20, err@20) do.
    Eval(EvalArgs),
    /// Compare two runs: means, difference, wins/losses/ties, paired t-test,
    /// most changed topics.
    Compare(CompareArgs),
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
struct EvalArgs {
    #[command(flatten)]
    input: RunInput,
    /// Run files (`qid Q0 docno rank score tag`).
    #[arg(required = true)]
    runs: Vec<PathBuf>,
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
    /// Comma-separated measures (map, P@5, P@10, P@20, P@30, ndcg@20, err@20, recall@1000).
    #[arg(long, value_delimiter = ',', default_value = "map,P@10,ndcg@20,err@20")]
    measure: Vec<Measure>,
    /// How many of the most changed topics to list per measure.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Print JSON at full precision.
    #[arg(long)]
    json: bool,
}

fn main() -> Result<()> {
    match Cli::parse().cmd {
        Cmd::Topics(a) => cmd_topics(a),
        Cmd::Eval(a) => cmd_eval(a),
        Cmd::Compare(a) => cmd_compare(a),
    }
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

fn evaluate_file(
    input: &RunInput,
    qrels: &sieve_searcher::qrels::Qrels,
    run: &Path,
) -> Result<Evaluation> {
    let dups = if input.dedup {
        Duplicates::KeepBest
    } else {
        Duplicates::Error
    };
    let r = read_run(run, dups)?;
    let name = r.tag.clone().unwrap_or_else(|| run.display().to_string());
    let opts = EvalOptions {
        complete: input.complete,
    };
    evaluate(qrels, &r, &name, opts).with_context(|| format!("evaluating {}", run.display()))
}

fn cmd_eval(a: EvalArgs) -> Result<()> {
    let qrels = read_qrels(&a.input.qrels)?;
    let mut out = std::io::stdout().lock();
    let mut json = Vec::new();
    for run in &a.runs {
        let e = evaluate_file(&a.input, &qrels, run)?;
        if a.json {
            json.push(e.to_json());
        } else {
            write!(out, "{}", e.to_text(a.per_topic, 4))?;
        }
    }
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
    }
    Ok(())
}

fn cmd_compare(a: CompareArgs) -> Result<()> {
    let qrels = read_qrels(&a.input.qrels)?;
    let ea = evaluate_file(&a.input, &qrels, &a.run_a)?;
    let eb = evaluate_file(&a.input, &qrels, &a.run_b)?;
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
    Ok(())
}
