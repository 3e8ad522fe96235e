//! `sieve-search sweep` and the HTML page of `compare --html`: argument
//! handling only; the work is in `sieve_searcher::{sweep, page, docinfo}`.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sieve_filters::docfilter::Unscored;
use sieve_searcher::batch::StatsMode;
use sieve_searcher::compare::{self, MeasureComparison};
use sieve_searcher::eval::{Evaluation, Measure};
use sieve_report::page::{self, Docs, Section};
use sieve_searcher::qrels::Qrels;
use sieve_searcher::run::Run;
use sieve_searcher::sweep::{self, Axis, Rule, SweepSpec, table};

use crate::{QueryArgs, StatsArg, UnscoredArg};

#[derive(clap::Args)]
pub struct SweepArgs {
    /// Index directories (`--index A B` or `--index A --index B`; several
    /// are searched as shards of one collection).
    #[arg(long, required = true, num_args = 1.., value_name = "DIR")]
    index: Vec<PathBuf>,
    /// Read an index whose build did not finish (killed, or being
    /// resumed): only its committed documents, with a warning on stderr.
    #[arg(long)]
    allow_unfinished: bool,
    #[command(flatten)]
    query: QueryArgs,
    /// The qrels file (`qid iter docno rel`).
    #[arg(long, value_name = "FILE")]
    qrels: PathBuf,
    /// trec_eval -c: average over every qrels topic (default: over the
    /// topic file's judged topics); a topic a setting retrieves nothing
    /// for counts 0 either way.
    #[arg(short = 'c')]
    complete: bool,
    /// Spam thresholds to sweep: keep documents with spam percentile >= P
    /// (comma-separated list).
    #[arg(long, value_delimiter = ',', value_name = "P")]
    min_spam_percentile: Vec<u8>,
    /// Invalid 4/5/6-byte rates to sweep: drop documents with more than X
    /// per KB (comma-separated list).
    #[arg(long, value_delimiter = ',', value_name = "X")]
    max_invalid_456_per_kb: Vec<f64>,
    /// Rates of any error class to sweep, `CLASS=X,Y,...`: drop documents
    /// with more than X errors of CLASS per KB (classes:
    /// unexpected_continuation, missing_continuation, surrogate,
    /// invalid_4_5_6, overlong_nul, overlong_ascii, overlong_non_ascii).
    /// Repeatable, one class each.
    #[arg(long = "max-rate", value_name = "CLASS=X,Y")]
    max_rate: Vec<String>,
    /// Near-duplicates to sweep: keep them, drop them (every member of a
    /// near-duplicate cluster but its representative, as `run
    /// --drop-near-duplicates`), or both (`keep,drop`). Needs an index
    /// built with near-duplicate clusters.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "keep,drop")]
    near_duplicates: Vec<NearDupArg>,
    /// Sweep every combination of one threshold per rule (default: each
    /// threshold of each rule alone).
    #[arg(long)]
    cross: bool,
    /// Documents without a spam score, under a spam threshold: keep or drop.
    #[arg(long, value_enum, default_value = "keep")]
    unscored: UnscoredArg,
    /// BM25 k1 (comma-separated list: every threshold for each value).
    #[arg(long, value_delimiter = ',', default_value = "0.9")]
    k1: Vec<f32>,
    /// BM25 b (comma-separated list).
    #[arg(long, value_delimiter = ',', default_value = "0.4")]
    b: Vec<f32>,
    /// Hits per topic.
    #[arg(long, default_value_t = 1000)]
    hits: usize,
    /// Run tag (a suffix names each setting).
    #[arg(long, default_value = "sieve")]
    tag: String,
    /// Which documents BM25's collection statistics count in a filtered
    /// run: full (every indexed document) or filtered (only the kept ones).
    #[arg(long = "collection-stats", default_value = "full")]
    stats: StatsArg,
    /// Comma-separated measures, named as `eval` prints them (default:
    /// what `eval` prints without -m).
    #[arg(short = 'm', long, value_delimiter = ',')]
    measure: Vec<Measure>,
    /// Directory for sweep.tsv and sweep.svg (created if missing; those
    /// two files in it are replaced).
    #[arg(long, value_name = "DIR")]
    output_dir: PathBuf,
    /// Also write every setting's run file, DIR/runs/TAG.run.
    #[arg(long)]
    runs: bool,
    /// Also write the HTML page (figure, table, per-topic charts, the
    /// documents that entered or left the top 10) to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// How many of the most changed topics the page details per setting.
    #[arg(long, default_value_t = 5)]
    top: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// A value of `--near-duplicates`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum NearDupArg {
    Keep,
    Drop,
}

/// The rules and thresholds of `a`, in flag order: spam, invalid 4/5/6,
/// each `--max-rate`, then near-duplicates (last, so that a crossed
/// setting is tagged as `run --drop-near-duplicates` tags it:
/// `spam70_nodup`).
fn axes(a: &SweepArgs) -> Result<Vec<Axis>> {
    let mut axes = Vec::new();
    if !a.min_spam_percentile.is_empty() {
        let v = a
            .min_spam_percentile
            .iter()
            .map(|&p| f64::from(p))
            .collect();
        axes.push(Axis::new(Rule::MinSpamPercentile, v).context("--min-spam-percentile")?);
    }
    if !a.max_invalid_456_per_kb.is_empty() {
        let rule = Rule::MaxRatePerKb(sieve_filters::utf8::ErrorClass::Invalid456);
        axes.push(
            Axis::new(rule, a.max_invalid_456_per_kb.clone())
                .context("--max-invalid-456-per-kb")?,
        );
    }
    for r in &a.max_rate {
        let axis = Axis::parse(r).with_context(|| format!("--max-rate {r:?}"))?;
        anyhow::ensure!(
            matches!(axis.rule, Rule::MaxRatePerKb(_)),
            "--max-rate {r:?}: expected CLASS=X,Y,... with an error class (use --min-spam-percentile for spam, --near-duplicates for near-duplicates)"
        );
        axes.push(axis);
    }
    if !a.near_duplicates.is_empty() {
        let v = a
            .near_duplicates
            .iter()
            .map(|d| match d {
                NearDupArg::Keep => sweep::rules::KEEP,
                NearDupArg::Drop => sweep::rules::DROP,
            })
            .collect();
        axes.push(Axis::new(Rule::NearDuplicates, v).context("--near-duplicates")?);
    }
    anyhow::ensure!(
        !axes.is_empty(),
        "nothing to sweep: give thresholds with --min-spam-percentile, --max-invalid-456-per-kb, --max-rate CLASS=X,Y or --near-duplicates keep,drop"
    );
    Ok(axes)
}

/// Refuses a sweep whose outputs (sweep.tsv, sweep.svg, the page, the
/// run files) include one of its inputs, before anything is written.
fn refuse_inputs(a: &SweepArgs, plan: &sweep::Plan) -> Result<()> {
    let mut inputs: Vec<&Path> = a.index.iter().map(|p| p.as_path()).collect();
    inputs.push(&a.query.topics);
    inputs.push(&a.qrels);
    let mut outputs = vec![
        a.output_dir.join("sweep.tsv"),
        a.output_dir.join("sweep.svg"),
    ];
    outputs.extend(a.html.clone());
    if a.runs {
        let dir = a.output_dir.join("runs");
        outputs.extend(
            plan.settings
                .iter()
                .map(|s| sieve_searcher::batch::run_path(&dir, &s.tag)),
        );
    }
    for o in &outputs {
        sieve_format::outfile::refuse_same_file(o, &inputs)?;
    }
    Ok(())
}

/// Runs `sieve-search sweep`.
pub fn cmd_sweep(a: SweepArgs) -> Result<()> {
    crate::set_threads(a.threads)?;
    anyhow::ensure!(a.hits >= 1, "--hits must be at least 1");
    let measures = if a.measure.is_empty() {
        Measure::ALL.to_vec()
    } else {
        a.measure.clone()
    };
    let spec = SweepSpec {
        tag: a.tag.clone(),
        axes: axes(&a)?,
        cross: a.cross,
        unscored: match a.unscored {
            UnscoredArg::Keep => Unscored::Keep,
            UnscoredArg::Drop => Unscored::Drop,
        },
        k1: a.k1.clone(),
        b: a.b.clone(),
        stats: match a.stats {
            StatsArg::Full => StatsMode::Full,
            StatsArg::Filtered => StatsMode::Filtered,
        },
        hits: a.hits,
        max_query_terms: a.query.max_query_terms,
    };
    let plan = spec.plan()?;
    refuse_inputs(&a, &plan)?;
    let qrels = crate::read_judgements(&a.qrels)?;
    let (shards, config) = crate::open_indexes(&a.index, a.allow_unfinished)?;
    crate::warn_missing_bounds(&shards);
    let analyzer = sieve_analysis::EnglishAnalyzer::new(config);
    let (_, topics) = sieve_searcher::topics::read_topics(&a.query.topics)?;
    crate::warn_queries(&analyzer, &topics, &a.query);
    std::fs::create_dir_all(&a.output_dir)
        .with_context(|| format!("cannot create {}", a.output_dir.display()))?;
    let files = sweep::RunFiles {
        dir: a.runs.then(|| a.output_dir.join("runs")),
    };
    let inputs = sweep::Inputs {
        shards: &shards,
        analyzer: &analyzer,
        topics: &topics,
        topic_field: a.query.field,
        field: a.query.search_field.text_field(),
        qrels: &qrels,
        complete: a.complete,
    };
    let n_settings = plan.settings.len();
    eprintln!(
        "sweep: {n_settings} settings ({} filters and the unfiltered run, times {} k1/b), {} topics, one pass over the postings per topic",
        plan.selections.len(),
        n_settings / (plan.selections.len() + 1),
        topics.len()
    );
    let started = std::time::Instant::now();
    let mut last = started;
    let quiet = std::io::stderr().is_terminal();
    let total = topics.len();
    let mut progress = |done: usize| {
        if !quiet && last.elapsed().as_secs_f64() >= 10.0 && done < total {
            eprintln!(
                "sieve-search: progress: {done} of {total} topics searched and evaluated ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
            last = std::time::Instant::now();
        }
    };
    let outcome = sweep::run(&spec, plan, &inputs, &files, &mut progress)?;
    let tbl = sweep::Table::new(&outcome, &measures);
    let tsv = a.output_dir.join("sweep.tsv");
    sweep::write_atomic(&tsv, table::to_tsv(&outcome, &tbl).as_bytes())?;
    let judged = outcome.evals.first().map_or(0, Evaluation::num_q);
    let subtitle = format!(
        "{} topics judged{}; BM25 statistics: {}; {} documents in the index",
        judged,
        if a.complete {
            " (-c: every qrels topic)"
        } else {
            ""
        },
        match a.stats {
            StatsArg::Full => "full collection",
            StatsArg::Filtered => "kept documents only",
        },
        outcome.total_docs
    );
    let svg_text = sieve_report::sweep_figure::sweep_svg(&outcome, &tbl, &subtitle);
    let svg_path = a.output_dir.join("sweep.svg");
    sweep::write_atomic(&svg_path, svg_text.as_bytes())?;
    if let Some(html) = &a.html {
        let meta = vec![
            format!("index: {}", join_paths(&a.index)),
            format!(
                "topics: {} ({} topics)",
                a.query.topics.display(),
                topics.len()
            ),
            format!("qrels: {}", a.qrels.display()),
            subtitle.clone(),
        ];
        let page = sweep_html(&outcome, &tbl, &qrels, &shards, &meta, &svg_text, a.top)?;
        sweep::write_atomic(html, page.as_bytes())
            .with_context(|| format!("writing {}", html.display()))?;
    }
    let first = tbl.measures.iter().position(|m| !m.is_count()).unwrap_or(0);
    print!("{}", table::to_text(&outcome, &tbl, first));
    eprintln!(
        "searched and evaluated {} topics for each of {n_settings} settings in {:.3}s (documents selected in {:.3}s); wrote {} and {}{}{}",
        topics.len(),
        outcome.search_seconds,
        outcome.select_seconds,
        tsv.display(),
        svg_path.display(),
        if outcome.run_files.is_empty() {
            String::new()
        } else {
            format!(
                ", {} run files in {}",
                outcome.run_files.len(),
                a.output_dir.join("runs").display()
            )
        },
        a.html
            .as_ref()
            .map_or(String::new(), |h| format!(", {}", h.display()))
    );
    Ok(())
}

fn join_paths(p: &[PathBuf]) -> String {
    p.iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The sweep's page: one section per filtered setting against its
/// baseline, on the first measure that is not a count.
fn sweep_html(
    outcome: &sweep::Outcome,
    tbl: &sweep::Table,
    qrels: &Qrels,
    shards: &[sieve_searcher::bm25::Shard],
    meta: &[String],
    svg_text: &str,
    top: usize,
) -> Result<String> {
    let m: Vec<Measure> = tbl
        .measures
        .iter()
        .copied()
        .filter(|m| !m.is_count())
        .take(1)
        .collect();
    let mut cmps: Vec<(usize, Vec<MeasureComparison>)> = Vec::new();
    for (i, s) in outcome.settings.iter().enumerate() {
        if s.is_baseline() {
            continue;
        }
        let c = compare::compare(&outcome.evals[s.baseline], &outcome.evals[i], &m, top);
        cmps.push((i, c));
    }
    let mut sections = Vec::with_capacity(cmps.len());
    for (i, c) in &cmps {
        let s = &outcome.settings[*i];
        let base = &outcome.settings[s.baseline];
        let pairs = m
            .iter()
            .map(|&mm| compare::pairs(&outcome.evals[s.baseline], &outcome.evals[*i], mm))
            .collect();
        let topics = c
            .first()
            .map(|c| {
                page::topic_docs(
                    &c.most_changed,
                    &outcome.top_docs[s.baseline],
                    &outcome.top_docs[*i],
                )
            })
            .unwrap_or_default();
        let heading = match c.first() {
            Some(c) => format!(
                "{} ({}): {} {:.4} vs {:.4} unfiltered, {:+.4}, p (Holm) {}",
                s.tag,
                s.describe(),
                c.measure.name(),
                c.mean_b,
                c.mean_a,
                c.diff(),
                table::p_text(
                    tbl.measures
                        .iter()
                        .position(|x| *x == c.measure)
                        .and_then(|j| tbl.versus[*i][j].as_ref())
                        .and_then(|v| v.p_holm)
                )
            ),
            None => s.tag.clone(),
        };
        sections.push(Section {
            heading,
            a: format!("{} (unfiltered)", base.tag),
            b: format!("{} ({})", s.tag, s.describe()),
            cmp: c,
            pairs,
            topics,
        });
    }
    let ids: Vec<&str> = sections
        .iter()
        .flat_map(|s| s.topics.iter())
        .flat_map(|t| t.left.iter().chain(&t.entered).map(|(_, d)| d.as_str()))
        .collect();
    let info = sieve_searcher::docinfo::lookup(shards, ids)?;
    let docs = Docs {
        info: Some(&info),
        why: "",
        qrels,
    };
    Ok(page::sweep_page(
        meta, svg_text, outcome, tbl, &sections, &docs,
    ))
}

/// The top 10 docids per topic of `run`, in trec_eval's order.
fn top_docs(run: &Run) -> BTreeMap<String, Vec<String>> {
    run.topic_ids()
        .map(|q| {
            (
                q.to_string(),
                run.trec_eval_ranked(q)
                    .iter()
                    .take(sweep::TOP_DOCS)
                    .map(|h| h.docno.clone())
                    .collect(),
            )
        })
        .collect()
}

/// Writes the page of `compare --html`.
#[allow(clippy::too_many_arguments)]
pub fn compare_html(
    path: &Path,
    cmp: &[MeasureComparison],
    (ea, eb): (&Evaluation, &Evaluation),
    (ra, rb): (&Run, &Run),
    (na, nb): (&str, &str),
    qrels: &Qrels,
    shards: Option<&[sieve_searcher::bm25::Shard]>,
) -> Result<()> {
    let pairs = cmp
        .iter()
        .map(|c| compare::pairs(ea, eb, c.measure))
        .collect();
    let topics = cmp
        .first()
        .map(|c| page::topic_docs(&c.most_changed, &top_docs(ra), &top_docs(rb)))
        .unwrap_or_default();
    let sec = Section {
        heading: String::new(),
        a: na.to_string(),
        b: nb.to_string(),
        cmp,
        pairs,
        topics,
    };
    let info = if let Some(shards) = shards {
        let ids: Vec<&str> = sec
            .topics
            .iter()
            .flat_map(|t| t.left.iter().chain(&t.entered).map(|(_, d)| d.as_str()))
            .collect();
        Some(sieve_searcher::docinfo::lookup(shards, ids)?)
    } else {
        None
    };
    let docs = Docs {
        info: info.as_ref(),
        why: "no index was given (compare --index IDX adds them)",
        qrels,
    };
    sweep::write_atomic(path, page::compare_page(&sec, &docs).as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
