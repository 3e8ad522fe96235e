//! The commands that read an index or crawl files and say what is in them
//! (`report`, `docids`, `near-duplicates`, `scan`, `verify`), and `bounds`,
//! which rewrites an index's block-max sidecars.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use sieve_cli::exit::ExitStatus;
use sieve_format::index::{create_private_dir, list_docids, open_index_with};
use sieve_report::encoding::{ReportOptions, write_report};

use crate::args::{DocidsCmd, NearDuplicatesCmd, ReportCmd, ScanCmd};
use crate::options::expand;
use crate::{exit, warn_unfinished};

/// `sieve-index report`: its spam map loaded here from `--spam` when given.
pub fn run_report(a: ReportCmd) -> anyhow::Result<ExitCode> {
    let index = &a.index.index;
    let mut opts = ReportOptions {
        atire_counts: a.atire_counts,
        spam: None,
        deciles: a.deciles,
        cumulative: a.cumulative,
        log_y: a.log_y,
        inputs: a.spam.clone(),
        unfinished: a.unfinished.mode(),
    };
    if !a.spam.is_empty() {
        let tmp = tempfile::tempdir().context("temporary directory")?;
        let map_path = tmp.path().join("spam.fst");
        opts.spam = Some(sieve_ingest::spamfile::load_spam_map(&a.spam, &map_path, tmp.path())?.0);
    }
    // Refused (or warned about) before the output directory is made.
    open_index_with(index, opts.unfinished)?;
    warn_unfinished(index);
    create_private_dir(&a.out)?;
    let s = write_report(index, &a.out, &opts)?;
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

/// `sieve-index near-duplicates`: of an index, or of several extracts
/// written to `--output`.
pub fn run_near_duplicates(a: NearDuplicatesCmd) -> anyhow::Result<ExitCode> {
    match (a.index, a.output) {
        (Some(index), _) => index_near_duplicates(&index),
        (None, Some(out)) => extracts_near_duplicates(&a.extracts, &out),
        (None, None) => Err(anyhow!("--extracts needs --output FILE")),
    }
}

/// The near-duplicates of one index, on stdout.
fn index_near_duplicates(index: &Path) -> anyhow::Result<ExitCode> {
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

/// The near-duplicates of the documents of several extracts, clustered
/// together and written to `out`.
fn extracts_near_duplicates(extracts: &[PathBuf], out: &Path) -> anyhow::Result<ExitCode> {
    let s = sieve_ingest::extract::merge_near_duplicates(extracts, out)?;
    println!(
        "near-duplicates: {} documents in {} clusters of two or more ({} copies of their representative), {}",
        s.clustered,
        s.clusters,
        s.duplicates,
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `sieve-index scan`.
pub fn run_scan(a: &ScanCmd) -> anyhow::Result<ExitCode> {
    let opts = sieve_crawl::CrawlOptions {
        max_record_bytes: a.max_record_bytes,
        ..Default::default()
    };
    let mut out = std::io::stdout().lock();
    let (mut records, mut lost) = (0, 0);
    for path in expand(&a.input)?.files {
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

/// `sieve-index docids`.
pub fn run_docids(a: &DocidsCmd) -> anyhow::Result<ExitCode> {
    let (index, unfinished) = (&a.index.index, a.unfinished.mode());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if a.stats {
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

/// `sieve-index bounds`.
pub fn run_bounds(index: &Path) -> anyhow::Result<ExitCode> {
    let (tantivy_index, _) = sieve_format::index::open_index(index)?;
    let _lock = sieve_format::lock::DirLock::acquire(index)?;
    let s = sieve_format::bounds::write_index_bounds(index, &tantivy_index)?;
    println!(
        "bounds: {} segment(s), {} file(s) written, {} stale removed, {} bytes",
        s.segments, s.written, s.removed, s.bytes
    );
    Ok(ExitCode::SUCCESS)
}

/// `sieve-index verify`: every damaged file, the build's state, a verdict.
pub fn run_verify(index: &Path) -> anyhow::Result<ExitCode> {
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
