//! `sieve-index build`, `build-shard`, `merge` and `extract`: the commands
//! that write an index (or a corpus), their summaries and exit statuses.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, anyhow};
use sieve_cli::exit::ExitStatus;
use sieve_format::index::STATS;
use sieve_format::stats::BuildStats;
use sieve_ingest::Error;
use sieve_ingest::build::build;
use sieve_ingest::extract::{ExtractOptions, Format, RecordSpec, extract};
use sieve_ingest::options::default_threads;
use sieve_ingest::reorder::bp::BpParams;
use sieve_ingest::reorder::{Progress, ReorderOptions, reorder};
use sieve_ingest::shard::{build_shard, merge_shards, read_stats};
use sieve_ingest::summary::summary;

use crate::args::{BuildCmd, BuildShardCmd, ExtractCmd, FormatArg, MergeCmd, ReorderCmd, RunFlags};
use crate::options::{build_options, with_flags};
use crate::{exit, progress};

/// `sieve-index build`.
pub fn run_build(a: BuildCmd) -> anyhow::Result<ExitCode> {
    let every = progress_interval(a.run.progress_every)?;
    let index = a.build.index.clone().context("--index DIR is required")?;
    let opts = build_options(&a.build, &index, threads(&a.run), a.run.resume)?;
    let progress = progress::Reporter::new(std::io::stderr().is_terminal(), every);
    let stats = build(&opts, &progress).map_err(with_flags);
    progress.finish();
    let footer = format!("every count, per file: {}", index.join(STATS).display());
    print_stats(&stats?, a.run.json, &footer)
}

/// `sieve-index extract`.
pub fn run_extract(a: ExtractCmd) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        a.build.index.is_none(),
        "extract writes to --output-dir DIR; --index is for build"
    );
    let every = progress_interval(a.run.progress_every)?;
    let out = &a.output_dir;
    let build = build_options(&a.build, out, threads(&a.run), a.run.resume)?;
    let progress = progress::Reporter::new(std::io::stderr().is_terminal(), every);
    let spec = RecordSpec {
        format: match a.format {
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Parquet => Format::Parquet,
        },
        full: a.full,
        max_paragraph_docs: a.max_paragraph_docs,
    };
    let opts = ExtractOptions { build, spec };
    let stats = extract(&opts, &progress).map_err(|e| match e {
        Error::IndexExists { path } => anyhow!(
            "{}: an extract already exists here; pass --resume to continue it, or choose a new directory",
            path.display()
        ),
        e => with_flags(e),
    });
    progress.finish();
    let footer = format!(
        "documents in {}, every count per file in {}",
        out.display(),
        out.join(STATS).display()
    );
    print_stats(&stats?, a.run.json, &footer)
}

/// `sieve-index build-shard`.
pub fn run_build_shard(mut a: BuildShardCmd) -> anyhow::Result<ExitCode> {
    if a.threads.is_some_and(|t| t != 1) {
        eprintln!("sieve-index: build-shard builds with one thread; --threads is ignored");
    }
    if a.build.input == ["-"] {
        a.build.input = std::io::stdin()
            .lines()
            .map(|l| l.map(|l| l.trim().to_string()))
            .filter(|l| l.as_ref().map_or(true, |l| !l.is_empty()))
            .collect::<Result<_, _>>()?;
    }
    let out = a.build.index.clone().context("--index DIR is required")?;
    let opts = build_options(&a.build, &out, 1, false)?;
    let rec = build_shard(opts, &out).map_err(with_flags)?;
    if a.record {
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

/// `sieve-index merge`.
pub fn run_merge(a: &MergeCmd) -> anyhow::Result<ExitCode> {
    let stats = merge_shards(&a.shards, &a.out)?;
    summary(&stats, &mut std::io::stdout())?;
    Ok(exit(ExitStatus::of_build(&stats)))
}

/// `reorder`: the index written again in bisection order, with progress
/// per segment on stderr and what was done on stdout.
pub fn run_reorder(a: &ReorderCmd) -> anyhow::Result<ExitCode> {
    let mut opts = ReorderOptions::new(a.index.clone(), a.output.clone());
    opts.threads = a.threads.unwrap_or_else(default_threads);
    opts.bp = BpParams {
        max_iters: a.bp_iters,
        min_partition: a.bp_min_partition,
        ..BpParams::default()
    };
    opts.min_df = a.bp_min_df;
    opts.by_spam = a.by_spam;
    opts.drop_band_keys = a.drop_band_keys;
    let progress = |p: Progress<'_>| match p {
        Progress::Resumed { kept, total } => eprintln!(
            "reorder: resumed: {kept} of {total} segments were written by an interrupted reorder \
             of the same input with the same options, and are kept"
        ),
        Progress::Discarded { why } => eprintln!(
            "reorder: starting over: the work an earlier reorder to {} left was removed: {why}",
            a.output.display()
        ),
        Progress::Segment { done, total } => eprintln!("reorder: segment {done} of {total}"),
    };
    let stats = reorder(&opts, &progress)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        println!(
            "{}: {} documents in {} segments reordered ({} postings): read {:.1} s, \
             bisection {:.1} s, write {:.1} s, sidecars {:.1} s",
            a.output.display(),
            stats.documents,
            stats.segments,
            stats.postings,
            stats.read_seconds,
            stats.bp_seconds,
            stats.write_seconds,
            stats.sidecar_seconds
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The worker threads of `--threads` (default: all cores).
fn threads(run: &RunFlags) -> usize {
    run.threads.unwrap_or_else(default_threads)
}

/// The interval of `--progress-every SECS` (`None` for 0), refused when
/// not a number of seconds.
fn progress_interval(every: f64) -> anyhow::Result<Option<Duration>> {
    anyhow::ensure!(
        every.is_finite() && every >= 0.0,
        "--progress-every {every}: expected a number of seconds, 0 for none"
    );
    Ok((every > 0.0).then(|| Duration::from_secs_f64(every)))
}

/// Prints the statistics of a build or extract, as JSON or as a summary
/// followed by `footer` (where the counts are), then its exit status.
fn print_stats(stats: &BuildStats, json: bool, footer: &str) -> anyhow::Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string_pretty(stats)?);
    } else {
        summary(stats, &mut std::io::stdout())?;
        println!("{footer}");
    }
    Ok(build_exit(stats, json))
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
