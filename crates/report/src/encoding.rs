//! The encoding-error report: the paper's Table 1 and Figure 5 for any
//! index built by `sieve_ingest::build`, with significance tests and charset
//! statistics.
//!
//! [`write_report`] streams once over the index's **fast fields only**
//! (never the stored documents, never the crawl), segment by segment, in
//! blocks of [`BLOCK_DOCS`] documents. Everything it accumulates is a fixed
//! number of integer counters (seven error classes × 100 spam percentiles,
//! and a few totals), so memory does not grow with the collection; the one
//! exception is a spam override ([`ReportOptions::spam`]), which needs one
//! byte per distinct docid of the segment being read. All sums are exact
//! integers, so the output is identical whatever the order or number of
//! threads that read the segments. Deleted documents are skipped.
//!
//! # Files written into the output directory
//!
//! * `table1.tsv`, `table1.md`: for each
//!   [`ErrorClass`](sieve_filters::utf8::ErrorClass) (in
//!   [`ErrorClass::ALL`](sieve_filters::utf8::ErrorClass::ALL) order) the total number of occurrences and the
//!   number of documents containing it at least once, then a `total` row
//!   (sum of occurrences; documents containing any class) and the number of
//!   documents and body bytes. With [`ReportOptions::atire_counts`], two more
//!   columns give the same under ATIRE-compatible counting, which differs
//!   only for unexpected continuation bytes: occurrences are
//!   `err_unexpected_continuation + atire_extra`, and a document contains the
//!   class when either is non-zero.
//! * `by-percentile.tsv` (or `by-decile.tsv` with
//!   [`ReportOptions::deciles`]): for each spam bin (percentile 0–99, 0
//!   spammiest, or decile 0–9; decile `d` holds percentiles `10d..=10d+9`)
//!   the number of scored documents and, per class, how many contain it
//!   and that proportion (`NA` for a bin without documents), then
//!   `near_duplicates` and `near_duplicate_rate`: how many of the bin's
//!   documents are near-duplicates of another document (members of a
//!   near-duplicate cluster other than its representative, [`sieve_format::dups`])
//!   and that share (`NA` for a bin without documents; both `NA` for an
//!   index without cluster columns). Documents without a spam score are
//!   left out (their number is [`ReportSummary::unscored`]).
//! * With [`ReportOptions::cumulative`], `cumulative-by-percentile.tsv` (or
//!   `cumulative-by-decile.tsv`): per bin, the scored documents and, per
//!   class, its occurrences in the bin and the **cumulative percentage**:
//!   the percentage of all the class's occurrences in scored documents
//!   that lie in documents with spam percentile at most the bin's last
//!   percentile (`NA` for a class without occurrences). This is the form
//!   of the paper's Figure 5.
//! * Figure 5, one SVG: `figure5.svg` (proportions by percentile),
//!   `figure5-deciles.svg`, `figure5-cumulative.svg` or
//!   `figure5-cumulative-deciles.svg`; a line chart of the proportions or
//!   cumulative percentages, one series per class, linear or (with
//!   [`ReportOptions::log_y`]) logarithmic y axis; see `figure.rs` for what
//!   it draws. When it has nothing to show, a warning says why, in the
//!   figure, in `table1.md` and in [`ReportSummary::warnings`].
//! * `near-duplicates-by-percentile.tsv` (or `-by-decile.tsv`), for an
//!   index with near-duplicate clusters ([`sieve_format::dups`]): per spam bin,
//!   the scored documents, how many of them are near-duplicates of another
//!   document (members of a cluster other than its representative) and
//!   that rate (`NA` for an empty bin): the duplicate rate next to Figure
//!   5, as the paper counts duplicates among the unwanted content (the
//!   same numbers as the last columns of `by-percentile.tsv`).
//! * In `table1.md` (and [`ReportSummary::near_duplicates`], which the
//!   command prints), one sentence: the near-duplicates among all
//!   documents and among the scored ones, and their share per spam decile;
//!   or, for an index without cluster columns (built with near-duplicate
//!   detection off, or before sieve had them: no `IDX/dups`), that it has
//!   none: the report is written all the same.
//! * `significance.tsv`: per class, among scored documents, the mean spam
//!   percentile of documents with and without the error, Welch's unequal
//!   variance t-test (t, Welch–Satterthwaite df, two-sided p), and the
//!   Mann–Whitney U test (U of the documents with the error, normal
//!   approximation with tie correction and continuity correction, as
//!   SciPy's `mannwhitneyu(method="asymptotic")`; z and two-sided p). Both
//!   are computed exactly from the 100-bin percentile histograms of the two
//!   groups (ties get midranks). A statistic that is undefined (a group too
//!   small, zero variance) is written `NA`.
//! * `charsets.tsv`: per charset source
//!   ([`CharsetSource::key`](sieve_text::charset::CharsetSource::key), in code
//!   order; `unrecorded` for code 0, `code_N` for unknown codes) the number
//!   of documents and how many of them had disagreeing declared charsets.
//!
//! Proportions, means and statistics are written with six decimals
//! (statistics in scientific notation outside 1e-4..1e6), p-values in
//! scientific notation with six decimals, or `<2.2e-308` when the p-value
//! is below the smallest normal `f64` (it underflowed).
//!
//! # Layout
//!
//! `tally` reads the fast fields into counters, `significance` holds the
//! two tests, `tables` formats the TSV and Markdown files and `figure`
//! (with `axis`) draws Figure 5; this module writes them.

mod axis;
mod figure;
#[cfg(test)]
mod figure_tests;
mod significance;
mod tables;
mod tally;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use sieve_filters::spam::SpamMap;
use sieve_format::index::open_index_with;

use crate::{Error, Result};

pub use figure::{FIGURE5_TITLE, figure_title};
pub use significance::{MannWhitney, Welch};
pub use tally::BLOCK_DOCS;

use figure::{FigureOptions, figure_name, figure5_svg};
use tables::{
    bins, by_bin_tsv, charsets_tsv, cumulative_tsv, significance_tsv, table1_md, table1_tsv,
};
use tally::{Tally, scan_segment};

/// What [`write_report`] computes.
#[derive(Default)]
pub struct ReportOptions {
    /// Add ATIRE-compatible counts to Table 1, side by side.
    pub atire_counts: bool,
    /// Spam percentiles by docid. When given, they replace the index's
    /// `spam` fast field for every document: a document whose docid is not
    /// in the map, or maps to a value above 99, is unscored.
    pub spam: Option<SpamMap<Vec<u8>>>,
    /// Bin spam scores by decile (0–9) instead of percentile (0–99) in
    /// the per-bin files and Figure 5 (`by-decile.tsv`,
    /// `figure5-deciles.svg`). The significance tests always use the
    /// percentiles.
    pub deciles: bool,
    /// Draw Figure 5 in the paper's cumulative form (and write the
    /// cumulative per-bin file) instead of proportions of documents.
    pub cumulative: bool,
    /// Draw Figure 5 on a logarithmic y axis (zeros on a separate
    /// baseline below it).
    pub log_y: bool,
    /// The files the report is made from besides the index (spam
    /// rankings): no report file may be one of them.
    pub inputs: Vec<PathBuf>,
    /// Whether an index whose build did not finish is refused or read.
    pub unfinished: sieve_format::index::Unfinished,
}

/// What [`write_report`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportSummary {
    /// Live documents read.
    pub docs: u64,
    /// Of those, documents without a spam score (left out of the per-bin
    /// files, Figure 5 and `significance.tsv`).
    pub unscored: u64,
    /// Wall-clock seconds (reading and writing).
    pub seconds: f64,
    /// The files written, in the order written.
    pub files: Vec<PathBuf>,
    /// Warnings about the output, also written into `table1.md`. Today one
    /// kind: "Figure 5 is empty: " and why (the index has no documents;
    /// none has a spam score; or no scored document contains an error),
    /// also written in the figure.
    pub warnings: Vec<String>,
    /// The sentence on near-duplicates written into `table1.md` (module
    /// docs).
    pub near_duplicates: String,
}

/// Why Figure 5 shows nothing, if it does not: the index has no
/// documents; none has a spam score (`spam_given`: the scores came from
/// rankings given to the report rather than the index); or no scored
/// document contains any error class, so every proportion is 0 and no
/// cumulative percentage is defined.
fn figure_warning(t: &Tally, spam_given: bool) -> Option<String> {
    let scored: u64 = t.scored.iter().sum();
    let why = if t.docs == 0 {
        "the index has no documents".to_string()
    } else if scored == 0 {
        format!(
            "{} ({})",
            if t.docs == 1 {
                "the index's one document has no spam score".to_string()
            } else {
                format!("none of the {} documents has a spam score", t.docs)
            },
            if spam_given {
                "no docid of the index is in the spam rankings given"
            } else {
                "the index holds no spam scores and no spam rankings were given"
            }
        )
    } else if t.scored_occurrences.iter().flatten().all(|&n| n == 0) {
        format!(
            "{}, so every class is 0 in every bin",
            if scored == 1 {
                "the one document with a spam score contains no UTF-8 error".to_string()
            } else {
                format!("none of the {scored} documents with a spam score contains a UTF-8 error")
            }
        )
    } else {
        return None;
    };
    Some(format!("Figure 5 is empty: {why}."))
}

/// Writes the report of the index in `index_dir` into `out_dir` (created
/// if needed); see the module docs for the files and their semantics.
pub fn write_report(
    index_dir: &Path,
    out_dir: &Path,
    opts: &ReportOptions,
) -> Result<ReportSummary> {
    let started = Instant::now();
    let (index, manifest) = open_index_with(index_dir, opts.unfinished)?;
    let reader = index.reader()?;
    let searcher = reader.searcher();
    let spam = opts.spam.as_ref();
    // Cluster columns exist when the index was built with near-duplicates
    // and clustered (a missing or damaged column of one segment of such an
    // index is an error).
    let with_dups =
        manifest.options.minhash.is_some() && index_dir.join(sieve_format::dups::DUPS_DIR).is_dir();
    let tallies: Vec<Tally> = searcher
        .segment_readers()
        .par_iter()
        .map(|segment| {
            let dups = if with_dups {
                Some(sieve_format::dups::SegmentDups::open(index_dir, segment)?)
            } else {
                None
            };
            scan_segment(segment, spam, dups.as_ref())
        })
        .collect::<Result<_>>()?;
    let tally = tallies.into_iter().fold(Tally::default(), Tally::merge);

    // Every file is made first, then checked against the inputs, then
    // written: a refused report writes nothing.
    let mut made: Vec<(PathBuf, String)> = Vec::new();
    let mut put = |name: &str, text: String| -> Result<()> {
        made.push((out_dir.join(name), text));
        Ok(())
    };
    let warnings: Vec<String> = figure_warning(&tally, spam.is_some()).into_iter().collect();
    put("table1.tsv", table1_tsv(&tally, opts.atire_counts))?;
    let mut md = table1_md(&tally, opts.atire_counts);
    let near_duplicates = tables::near_duplicates_line(&tally);
    md.push_str(&format!("\n{near_duplicates}\n"));
    for w in &warnings {
        md.push_str(&format!("\n**Warning:** {w}\n"));
    }
    put("table1.md", md)?;
    let bins = bins(&tally, opts.deciles);
    let by = if opts.deciles { "decile" } else { "percentile" };
    put(&format!("by-{by}.tsv"), by_bin_tsv(&bins, opts.deciles))?;
    if let Some(near) = &tally.near_duplicates {
        put(
            &format!("near-duplicates-by-{by}.tsv"),
            tables::near_duplicates_tsv(&tally.scored, near, opts.deciles),
        )?;
    }
    if opts.cumulative {
        put(
            &format!("cumulative-by-{by}.tsv"),
            cumulative_tsv(&bins, opts.deciles),
        )?;
    }
    let fig = FigureOptions {
        deciles: opts.deciles,
        cumulative: opts.cumulative,
        log_y: opts.log_y,
    };
    let svg = figure5_svg(&bins, fig, warnings.first().map(String::as_str));
    put(figure_name(fig), svg)?;
    put("significance.tsv", significance_tsv(&tally))?;
    put("charsets.tsv", charsets_tsv(&tally))?;
    let files = write_files(index_dir, out_dir, &opts.inputs, made)?;
    Ok(ReportSummary {
        docs: tally.docs,
        unscored: tally.unscored,
        seconds: started.elapsed().as_secs_f64(),
        files,
        warnings,
        near_duplicates,
    })
}

/// Refuses any of `made` that is the index's or one of `inputs`, then
/// creates `out_dir` and writes each file (complete or absent:
/// [`sieve_format::outfile`]); returns their paths.
fn write_files(
    index_dir: &Path,
    out_dir: &Path,
    inputs: &[PathBuf],
    made: Vec<(PathBuf, String)>,
) -> Result<Vec<PathBuf>> {
    let mut all: Vec<&Path> = vec![index_dir];
    all.extend(inputs.iter().map(PathBuf::as_path));
    for (path, _) in &made {
        sieve_format::outfile::refuse_same_file(path, &all)?;
    }
    std::fs::create_dir_all(out_dir).map_err(|source| Error::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let mut files = Vec::with_capacity(made.len());
    for (path, text) in made {
        sieve_format::outfile::write_atomic(&path, text.as_bytes())?;
        files.push(path);
    }
    Ok(files)
}
