//! `sieve-search eval` (runs evaluated as trec_eval does) and `compare`
//! (two runs compared, optionally as an HTML page).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sieve_searcher::batch::DocSelection;
use sieve_searcher::eval::{
    EvalOptions, Evaluation, MeasureSpec, evaluate_run, read_judgements_as,
};
use sieve_searcher::qrels::Qrels;
use sieve_searcher::run::{Duplicates, Run, read_run};
use sieve_searcher::runspec::SelectionSpec;
use sieve_searcher::{compare, judged};

use crate::args::{CompareArgs, EvalArgs};
use crate::output::refuse_inputs;
use crate::setup::open_indexes;

/// Evaluates the run file `run`, warning about refused gdeval measures;
/// returns the evaluation, what [`Evaluation::coverage`] says of it, and
/// the run.
fn evaluate_file(
    dedup: bool,
    opts: EvalOptions,
    qrels: &Qrels,
    run: &Path,
) -> Result<(Evaluation, Option<String>, Run)> {
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

/// `sieve-search eval`: each run's measures, as text or JSON.
pub fn cmd_eval(a: EvalArgs) -> Result<()> {
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
    let qrels = read_judgements_as(qrels_path, a.qrels_format)?;
    let opts = EvalOptions {
        complete: a.complete,
        max_docs: a.max_docs,
        judged_only: a.judged_only,
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

/// `sieve-search compare`: the comparison as text or JSON, and the page of
/// `--html`.
pub fn cmd_compare(a: CompareArgs) -> Result<()> {
    let mut inputs: Vec<&Path> = vec![&a.input.qrels, &a.run_a, &a.run_b];
    inputs.extend(a.index.iter().map(|p| p.as_path()));
    inputs.extend(a.b_filter.filter.as_deref());
    refuse_inputs(a.html.as_deref(), &inputs)?;
    let b_filter = b_selection(&a)?;
    // The index (for the page's document details) is opened first: an
    // unfinished one is refused before anything is read or written.
    let shards = match a.index.is_empty() {
        true => None,
        false => Some(open_indexes(&a.index, a.unfinished.mode())?.0),
    };
    let qrels = read_judgements_as(&a.input.qrels, a.input.qrels_format)?;
    let opts = EvalOptions {
        complete: a.input.complete,
        judged_only: a.input.judged_only,
        ..EvalOptions::default()
    };
    let (ea, note_a, ra) = evaluate_file(a.input.dedup, opts, &qrels, &a.run_a)?;
    let (eb, note_b, rb) = evaluate_file(a.input.dedup, opts, &qrels, &a.run_b)?;
    say_notes([(&a.run_a, note_a), (&a.run_b, note_b)]);
    let cmp = compare::compare_with(&ea, &eb, &a.measure, a.top, a.draws.resampling());
    let (na, nb) = (a.run_a.display().to_string(), a.run_b.display().to_string());
    let judged = match (b_filter, &shards) {
        (Some(sel), Some(shards)) => {
            let evaluated = evaluated_qrels(&qrels, a.input.complete, [&ra, &rb]);
            Some(judged::run_loss(shards, &evaluated, &ra, &sel)?)
        }
        _ => None,
    };
    let mut out = std::io::stdout().lock();
    if a.json {
        let mut json = compare::to_json(&cmp, &na, &nb);
        if let Some((j, loss)) = &judged {
            json["judged_loss"] = judged::to_json(j, loss);
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
    } else {
        write!(out, "{}", compare::to_text(&cmp, &na, &nb))?;
        if let Some((j, loss)) = &judged {
            write!(out, "\n{}", judged::to_text(j, loss))?;
        }
    }
    if let Some(html) = &a.html {
        let side = |name, eval, run| sieve_report::Side { name, eval, run };
        let page = sieve_report::compare_html(&sieve_report::Comparison {
            cmp: &cmp,
            a: side(&na, &ea, &ra),
            b: side(&nb, &eb, &rb),
            qrels: &qrels,
            shards: shards.as_deref(),
            loss: judged.as_ref().map(|(_, l)| l),
        })?;
        sieve_searcher::sweep::write_atomic(html, page.as_bytes())
            .with_context(|| format!("writing {}", html.display()))?;
        eprintln!("wrote {}", html.display());
    }
    Ok(())
}

/// The coverage notes of runs A and B on stderr: once when they say the
/// same, else each with its run.
fn say_notes([(run_a, note_a), (run_b, note_b)]: [(&PathBuf, Option<String>); 2]) {
    if note_a == note_b {
        if let Some(n) = note_a {
            eprintln!("note: both runs: {n}");
        }
    } else {
        for (run, note) in [(run_a, note_a), (run_b, note_b)] {
            if let Some(n) = note {
                eprintln!("note: {}: {n}", run.display());
            }
        }
    }
}

/// The filter run B was searched with (`--b-*`), as one selection; `None`
/// when no `--b-*` flag is given.
fn b_selection(a: &CompareArgs) -> Result<Option<DocSelection>> {
    let f = &a.b_filter;
    let spam: Vec<u8> = f.min_spam_percentile.into_iter().collect();
    let rate: Vec<f64> = f.max_invalid_456_per_kb.into_iter().collect();
    let files: Vec<PathBuf> = f.filter.iter().cloned().collect();
    let spec = SelectionSpec {
        min_spam_percentile: &spam,
        unscored: f.unscored.rule(),
        max_invalid_456_per_kb: &rate,
        filters: &files,
        drop_near_duplicates: f.drop_near_duplicates,
    };
    let mut sels = spec.selections()?;
    // clap lets one rule through (with or without near-duplicates): one
    // selection at most
    anyhow::ensure!(
        sels.len() <= 1,
        "B's filter: one rule, as `run` makes one run per rule"
    );
    Ok(sels.pop())
}

/// The judgements of the topics a comparison evaluates: every qrels topic
/// with -c, else those of the qrels that either run has.
fn evaluated_qrels(qrels: &Qrels, complete: bool, runs: [&Run; 2]) -> Qrels {
    if complete {
        return qrels.clone();
    }
    qrels.only(|q| runs.iter().any(|r| r.hits(q).is_some()))
}
