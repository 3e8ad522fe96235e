//! `sieve-filter build | inspect | contains`: docid filter files.

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use sieve_filters::docfilter::{ListKind, Thresholds, Unscored};
use sieve_filters::utf8::ErrorClass;
use sieve_ingest::filterbuild::{FilterSpec, build_filter, load_filter};
use sieve_ingest::spamfile::load_spam_map;
use sieve_ingest::{Error, RuleInput};

/// Arguments of `sieve-filter build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Waterloo spam rankings (`percentile docid` lines, plain or .gz,
    /// sorted or not).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    spam: Vec<PathBuf>,
    /// Keep documents with spam percentile >= this (70 is the usual cut).
    #[arg(long, alias = "min-percentile", value_name = "P")]
    min_spam_percentile: Option<u8>,
    /// An index built by sieve-index: its documents are the ones the filter
    /// decides on, its fast fields give the error counts (and the spam
    /// percentiles, without --spam).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["doc_stats", "stats"])]
    index: Option<PathBuf>,
    /// A per-document statistics TSV instead of an index (header: docid,
    /// bytes, optional spam and class columns; `sieve-index docids
    /// --doc-stats` writes one).
    #[arg(long, value_name = "TSV", conflicts_with = "stats")]
    doc_stats: Option<PathBuf>,
    /// Old spelling of --index DIR or --doc-stats TSV (either).
    #[arg(long, hide = true, value_name = "INDEX_OR_TSV")]
    stats: Option<PathBuf>,
    /// Drop documents with more than X invalid 4/5/6-byte sequences per KB.
    #[arg(long, value_name = "X")]
    max_invalid_456_per_kb: Option<f64>,
    /// Any class: CLASS=X drops documents with more than X errors of CLASS
    /// per KB (classes: unexpected_continuation, missing_continuation,
    /// surrogate, invalid_4_5_6, overlong_nul, overlong_ascii,
    /// overlong_non_ascii). Repeatable.
    #[arg(long = "max-rate")]
    max_rate: Vec<String>,
    /// Drop near-duplicates: every member of a near-duplicate cluster but
    /// its representative (the smallest docid), from the index's clusters
    /// (needs --index).
    #[arg(long)]
    drop_near_duplicates: bool,
    /// Documents without a spam score: keep or drop.
    #[arg(long, default_value = "keep")]
    unscored: UnscoredArg,
    /// Which list to store: the smaller (default), keep or exclude.
    #[arg(long, default_value = "smaller")]
    store: StoreArg,
    /// The filter file to write.
    #[arg(long = "output", alias = "out", value_name = "FILE")]
    out: PathBuf,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum UnscoredArg {
    Keep,
    Drop,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum StoreArg {
    Smaller,
    Keep,
    Exclude,
}

/// The rule given on the command line.
fn thresholds(a: &BuildArgs) -> anyhow::Result<Thresholds> {
    let mut thresholds = Thresholds {
        min_spam_percentile: a.min_spam_percentile,
        unscored: match a.unscored {
            UnscoredArg::Keep => Unscored::Keep,
            UnscoredArg::Drop => Unscored::Drop,
        },
        drop_near_duplicates: a.drop_near_duplicates,
        ..Default::default()
    };
    if let Some(x) = a.max_invalid_456_per_kb {
        thresholds
            .max_rate_per_kb
            .insert(ErrorClass::Invalid456.key().to_string(), x);
    }
    for r in &a.max_rate {
        let (k, v) = r
            .split_once('=')
            .with_context(|| format!("--max-rate {r:?}: expected CLASS=X"))?;
        let x: f64 = v
            .parse()
            .with_context(|| format!("--max-rate {r:?}: {v:?} is not a number"))?;
        thresholds.max_rate_per_kb.insert(k.to_string(), x);
    }
    if thresholds.is_empty() {
        bail!(
            "no rule given: use --min-spam-percentile, --max-invalid-456-per-kb, --max-rate or --drop-near-duplicates"
        );
    }
    Ok(thresholds)
}

/// Runs `sieve-filter build`.
pub fn build(a: &BuildArgs) -> anyhow::Result<()> {
    let doc_stats = a
        .index
        .as_ref()
        .or(a.doc_stats.as_ref())
        .or(a.stats.as_ref());
    if let Some(ix) = &a.index {
        sieve_format::index::check_index_dir(ix)?;
    }
    if a.spam.is_empty() && doc_stats.is_none() {
        bail!("give --spam FILES, --index DIR (or --doc-stats TSV), or both");
    }
    let inputs: Vec<&Path> = a
        .spam
        .iter()
        .map(|p| p.as_path())
        .chain(doc_stats.map(|p| p.as_path()))
        .collect();
    sieve_format::outfile::refuse_same_file(&a.out, &inputs)?;
    let thresholds = thresholds(a)?;
    thresholds.validate()?;
    let tmp = tempfile::tempdir().context("temporary directory")?;
    let spam = if a.spam.is_empty() {
        None
    } else {
        let map_path = tmp.path().join("spam.fst");
        let (map, st) = load_spam_map(&a.spam, &map_path, tmp.path())?;
        eprintln!("spam scores: {} lines, {} docids", st.lines, st.docids);
        Some(map)
    };
    let mut sources: Vec<String> = a
        .spam
        .iter()
        .map(|p| format!("spam:{}", p.display()))
        .collect();
    if let Some(s) = doc_stats {
        let kind = if s.is_dir() { "index" } else { "stats" };
        sources.push(format!("{kind}:{}", s.display()));
    }
    let spec = FilterSpec {
        thresholds,
        spam: spam.as_ref(),
        stats: doc_stats.map(PathBuf::as_path),
        store: match a.store {
            StoreArg::Smaller => None,
            StoreArg::Keep => Some(ListKind::Keep),
            StoreArg::Exclude => Some(ListKind::Exclude),
        },
        sources,
    };
    let started = std::time::Instant::now();
    let header = build_filter(&spec, &a.out).map_err(with_flags)?;
    let c = header.counts;
    println!(
        "{}: {} documents considered, {} kept, {} excluded ({} had no spam score); {}",
        a.out.display(),
        c.considered,
        c.kept,
        c.excluded,
        c.unscored,
        match header.stores {
            ListKind::Keep => "the file lists the kept docids: any other docid is dropped",
            ListKind::Exclude => "the file lists the excluded docids: any other docid is kept",
        }
    );
    eprintln!("built in {:.3}s", started.elapsed().as_secs_f64());
    if let Some(m) = &spam
        && doc_stats.is_some()
    {
        eprintln!(
            "spam coverage: {} docs without a score; the map has {} docids",
            c.unscored,
            m.len()
        );
    }
    Ok(())
}

/// Names the flags that give what a rule needs (the library names none).
fn with_flags(e: Error) -> anyhow::Error {
    match e {
        Error::RuleNeeds {
            path,
            needs: RuleInput::Counts,
        } => anyhow!(
            "{}: error-rate thresholds need an index (--index DIR) for the per-document counts",
            path.display()
        ),
        Error::RuleNeeds {
            path,
            needs: RuleInput::Spam,
        } => anyhow!(
            "{}: the rule needs spam percentiles: give --spam or a spam column",
            path.display()
        ),
        Error::RuleNeeds {
            path,
            needs: RuleInput::NearDuplicates,
        } => anyhow!(
            "{}: --drop-near-duplicates needs an index (--index DIR) for the near-duplicate clusters",
            path.display()
        ),
        e => e.into(),
    }
}

/// Runs `sieve-filter inspect`.
pub fn inspect(path: &Path) -> anyhow::Result<()> {
    let f = load_filter(path)?;
    eprintln!("{}: checksum ok ({})", path.display(), f.seal());
    let mut v = serde_json::to_value(f.header())?;
    v["listed"] = serde_json::json!(f.listed());
    v["checksum"] = serde_json::json!("ok");
    v["unseen_docids"] = serde_json::json!(f.header().unseen_rule());
    println!("{}", serde_json::to_string_pretty(&v)?);
    Ok(())
}

/// Runs `sieve-filter contains`: prints `keep` or `drop` per docid; the exit
/// code is 0 when every docid is kept, 1 otherwise.
pub fn contains(path: &Path, docids: &[String]) -> anyhow::Result<bool> {
    let f = load_filter(path)?;
    let mut all = true;
    for d in docids {
        let keep = f.keeps(d);
        all &= keep;
        println!(
            "{d}\t{}\t{}",
            if keep { "keep" } else { "drop" },
            if f.contains(d) { "listed" } else { "unlisted" }
        );
    }
    Ok(all)
}
