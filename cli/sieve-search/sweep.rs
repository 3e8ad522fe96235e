//! `sieve-search sweep`: the flags turned into a sweep's spec, the sweep
//! run by `sieve_searcher::sweep`, and its files written (`sweep.tsv`,
//! `sweep.svg` drawn by `sieve_report::sweep_figure`, the page of
//! `--html` gathered by `sieve_report::sweep_html`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use sieve_analysis::EnglishAnalyzer;
use sieve_searcher::bm25::Shard;
use sieve_searcher::eval::{Evaluation, Measure, read_judgements_as};
use sieve_searcher::qrels::Qrels;
use sieve_searcher::sweep::{self, Axis, Outcome, Rule, SweepSpec, Table, table};

use crate::args::{NearDupArg, StatsArg, SweepArgs};
use crate::setup::{open_shards, read_queries, set_threads};

/// Runs `sieve-search sweep`.
pub fn cmd_sweep(a: SweepArgs) -> Result<()> {
    set_threads(a.threads.threads)?;
    let spec = sweep_spec(&a)?;
    let plan = spec.plan().map_err(|e| match &e {
        sieve_searcher::Error::InvalidParameter { name: "model", .. } => {
            anyhow::anyhow!("--model: {e}")
        }
        _ => e.into(),
    })?;
    let feedback_note = feedback_note(&spec);
    refuse_inputs(&a, &plan)?;
    let qrels = read_judgements_as(&a.qrels, a.qrels_format)?;
    let (shards, config) = open_shards(&a.index, &a.unfinished)?;
    let analyzer = EnglishAnalyzer::new(config);
    let topics = read_queries(&analyzer, &a.query)?;
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
        judged_only: a.judged_only,
    };
    let n_settings = plan.settings.len();
    match &plan.feedback {
        None => eprintln!(
            "sweep: {n_settings} settings ({} filters and the unfiltered run, times {} k1/b), {} topics, one pass over the postings per topic",
            plan.selections.len(),
            n_settings / (plan.selections.len() + 1),
            topics.len()
        ),
        Some(f) => {
            crate::feedback::warn_without_vectors(&shards, inputs.field);
            eprintln!(
                "sweep: {n_settings} settings ({} filters and the unfiltered run, times {} model settings, times {} feedback settings), {} topics, one first-stage pass over the postings per topic ({} deep; under a filter, feedback documents come from the filtered ranking), then one search per setting",
                plan.selections.len(),
                f.first_stage.len() / (plan.selections.len() + 1),
                f.settings.len(),
                topics.len(),
                spec.rerank_cutoff
            );
        }
    }
    let mut progress = progress_lines(topics.len());
    let outcome = sweep::run(&spec, plan, &inputs, &files, &mut progress)?;
    let measures = if a.measure.is_empty() {
        Measure::SWEEP_DEFAULT.to_vec()
    } else {
        a.measure.clone()
    };
    let tbl = Table::with(&outcome, &measures, a.draws.resampling());
    let written = write_files(
        &a,
        (&outcome, &tbl),
        (topics.len(), feedback_note.as_deref()),
        (&qrels, &shards),
    )?;
    let first = tbl.measures.iter().position(|m| !m.is_count()).unwrap_or(0);
    print!("{}", table::to_text(&outcome, &tbl, first, a.test.test()));
    print!("\n{}", table::judged_text(&outcome));
    say_done(&a, &outcome, (topics.len(), n_settings), &written);
    Ok(())
}

/// The sweep `a` asks for: its rules and thresholds, model settings,
/// statistics and feedback settings.
fn sweep_spec(a: &SweepArgs) -> Result<SweepSpec> {
    Ok(SweepSpec {
        tag: a.tag.clone(),
        hits: a.hits.checked()?,
        axes: axes(a)?,
        cross: a.cross,
        unscored: a.unscored.rule(),
        models: a.models.names()?,
        mu: a.models.mu.clone(),
        k1: a.models.k1.clone(),
        b: a.models.b.clone(),
        stats: a.stats.mode(),
        max_query_terms: a.query.max_query_terms,
        feedback: a.feedback.settings()?,
        rerank_cutoff: a.feedback.rerank_cutoff,
    })
}

/// With feedback, the line the page's facts give about it: the settings,
/// and where their feedback documents come from.
fn feedback_note(spec: &SweepSpec) -> Option<String> {
    if spec.feedback.is_empty() {
        return None;
    }
    let labels: Vec<String> = spec.feedback.iter().map(|f| f.label()).collect();
    Some(format!(
        "feedback: {}; feedback documents from each setting's first stage, {} deep (under a filter, the filtered ranking)",
        labels.join(", "),
        spec.rerank_cutoff
    ))
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

/// A progress line on stderr every 10 seconds while topics are searched
/// and evaluated (none on a terminal, nor once all `total` are done).
fn progress_lines(total: usize) -> impl FnMut(usize) {
    let started = Instant::now();
    let mut last = started;
    let quiet = std::io::stderr().is_terminal();
    move |done: usize| {
        if !quiet && last.elapsed().as_secs_f64() >= 10.0 && done < total {
            eprintln!(
                "sieve-search: progress: {done} of {total} topics searched and evaluated ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
            last = Instant::now();
        }
    }
}

/// Writes `sweep.tsv`, `sweep.svg` and the page of `--html` (its documents'
/// grades from `qrels`, their details from `shards`; its facts end with
/// `feedback`, when given); returns the paths of the first two.
fn write_files(
    a: &SweepArgs,
    (outcome, tbl): (&Outcome, &Table),
    (n_topics, feedback): (usize, Option<&str>),
    (qrels, shards): (&Qrels, &[Shard]),
) -> Result<(PathBuf, PathBuf)> {
    let tsv = a.output_dir.join("sweep.tsv");
    sweep::write_atomic(&tsv, table::to_tsv(outcome, tbl).as_bytes())?;
    let subtitle = subtitle(a, outcome);
    let svg_text = sieve_report::sweep_figure::sweep_svg(outcome, tbl, &subtitle);
    let svg_path = a.output_dir.join("sweep.svg");
    sweep::write_atomic(&svg_path, svg_text.as_bytes())?;
    if let Some(html) = &a.html {
        let mut meta = vec![
            format!("index: {}", join_paths(&a.index)),
            format!("topics: {} ({n_topics} topics)", a.query.topics.display()),
            format!("qrels: {}", a.qrels.display()),
            subtitle,
        ];
        meta.extend(feedback.map(str::to_string));
        let page = sieve_report::sweep_html(&sieve_report::SweepPage {
            outcome,
            table: tbl,
            qrels,
            shards,
            meta: &meta,
            figure: &svg_text,
            top: a.top,
        })?;
        sweep::write_atomic(html, page.as_bytes())
            .with_context(|| format!("writing {}", html.display()))?;
    }
    Ok((tsv, svg_path))
}

/// The figure's subtitle (and the page's last line of facts): topics
/// judged, BM25 statistics, documents in the index.
fn subtitle(a: &SweepArgs, outcome: &Outcome) -> String {
    let judged = outcome.evals.first().map_or(0, Evaluation::num_q);
    format!(
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
    )
}

/// The closing line on stderr: what was searched, in how long, and every
/// file written (`tsv` and `svg` the paths of `sweep.tsv` and `sweep.svg`).
fn say_done(
    a: &SweepArgs,
    outcome: &Outcome,
    (n_topics, n_settings): (usize, usize),
    (tsv, svg): &(PathBuf, PathBuf),
) {
    eprintln!(
        "searched and evaluated {n_topics} topics for each of {n_settings} settings in {:.3}s (documents selected in {:.3}s); wrote {} and {}{}{}",
        outcome.search_seconds,
        outcome.select_seconds,
        tsv.display(),
        svg.display(),
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
}

/// The paths `p`, joined by commas.
fn join_paths(p: &[PathBuf]) -> String {
    p.iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
