//! The encoding-error report: the paper's Table 1 and Figure 5 for any
//! index built by [`crate::build`], with significance tests and charset
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
//! * `table1.tsv`, `table1.md`: for each [`ErrorClass`] (in
//!   [`ErrorClass::ALL`] order) the total number of occurrences and the
//!   number of documents containing it at least once, then a `total` row
//!   (sum of occurrences; documents containing any class) and the number of
//!   documents and body bytes. With [`ReportOptions::atire_counts`], two more
//!   columns give the same under ATIRE-compatible counting, which differs
//!   only for unexpected continuation bytes: occurrences are
//!   `err_unexpected_continuation + atire_extra`, and a document contains the
//!   class when either is non-zero.
//! * `by-percentile.tsv`, `figure5.svg`: for each spam bin (percentile 0–99,
//!   0 spammiest, or decile 0–9 with [`ReportOptions::deciles`]; decile
//!   `d` holds percentiles `10d..=10d+9`) the number of scored documents and,
//!   per class, how many contain it and that proportion. Documents without a
//!   spam score are left out (their number is [`ReportSummary::unscored`]).
//!   The SVG is a line chart of the proportions, one labelled series per
//!   class; bins with no documents are left out of the lines.
//! * `significance.tsv`: per class, among scored documents, the mean spam
//!   percentile of documents with and without the error, Welch's unequal
//!   variance t-test (t, Welch–Satterthwaite df, two-sided p), and the
//!   Mann–Whitney U test (U of the documents with the error, normal
//!   approximation with tie correction and continuity correction, as
//!   SciPy's `mannwhitneyu(method="asymptotic")`; z and two-sided p). Both
//!   are computed exactly from the 100-bin percentile histograms of the two
//!   groups (ties get midranks). A statistic that is undefined (a group too
//!   small, zero variance) is written `NA`.
//! * `charsets.tsv`: per charset source ([`CharsetSource::key`], in code
//!   order; `unrecorded` for code 0, `code_N` for unknown codes) the number
//!   of documents and how many of them had disagreeing declared charsets.
//!
//! Proportions, means and statistics are written with six decimals
//! (statistics in scientific notation outside 1e-4..1e6), p-values in
//! scientific notation with six decimals, or `<2.2e-308` when the p-value
//! is below the smallest normal `f64` (it underflowed).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use sieve_filters::spam::SpamMap;
use sieve_filters::utf8::ErrorClass;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use tantivy::SegmentReader;
use tantivy::columnar::{Column, ColumnIndex, ColumnValues};

use crate::build::{create_file, open_index};
use crate::charset::CharsetSource;
use crate::schema::{
    ATIRE_EXTRA, BYTES, CHARSET_DISAGREE, CHARSET_SOURCE, DOCID, NO_SPAM_SCORE, SPAM,
    error_field_name,
};
use crate::{Error, Result};

/// Documents read from each fast field at a time.
pub const BLOCK_DOCS: usize = 4096;

/// Number of spam percentiles (0–99).
const PERCENTILES: usize = 100;
/// Number of error classes.
const CLASSES: usize = ErrorClass::ALL.len();
/// Charset-source codes counted in a fixed array (others go to a map).
const SMALL_CODES: usize = 16;

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
    /// `by-percentile.tsv` and `figure5.svg`. The significance tests always
    /// use the percentiles.
    pub deciles: bool,
}

/// What [`write_report`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportSummary {
    /// Live documents read.
    pub docs: u64,
    /// Of those, documents without a spam score (left out of
    /// `by-percentile.tsv`, `figure5.svg` and `significance.tsv`).
    pub unscored: u64,
    /// Wall-clock seconds (reading and writing).
    pub seconds: f64,
    /// The files written, in the order written.
    pub files: Vec<PathBuf>,
}

/// Counters accumulated over documents. Merging two tallies gives the
/// tally of the union, whatever the order.
#[derive(Debug, Clone, PartialEq)]
struct Tally {
    docs: u64,
    bytes: u64,
    occurrences: [u64; CLASSES],
    docs_with: [u64; CLASSES],
    docs_any: u64,
    atire_extra: u64,
    atire_docs_uc: u64,
    atire_docs_any: u64,
    unscored: u64,
    /// Scored documents per percentile.
    scored: [u64; PERCENTILES],
    /// Scored documents containing each class, per percentile.
    scored_with: [[u64; PERCENTILES]; CLASSES],
    /// `[docs, disagreeing]` per charset-source code below [`SMALL_CODES`].
    charset_small: [[u64; 2]; SMALL_CODES],
    /// The same for larger codes.
    charset_other: BTreeMap<u64, [u64; 2]>,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            docs: 0,
            bytes: 0,
            occurrences: [0; CLASSES],
            docs_with: [0; CLASSES],
            docs_any: 0,
            atire_extra: 0,
            atire_docs_uc: 0,
            atire_docs_any: 0,
            unscored: 0,
            scored: [0; PERCENTILES],
            scored_with: [[0; PERCENTILES]; CLASSES],
            charset_small: [[0; 2]; SMALL_CODES],
            charset_other: BTreeMap::new(),
        }
    }
}

impl Tally {
    fn merge(mut self, o: Tally) -> Tally {
        self.docs += o.docs;
        self.bytes += o.bytes;
        for c in 0..CLASSES {
            self.occurrences[c] += o.occurrences[c];
            self.docs_with[c] += o.docs_with[c];
            for p in 0..PERCENTILES {
                self.scored_with[c][p] += o.scored_with[c][p];
            }
        }
        self.docs_any += o.docs_any;
        self.atire_extra += o.atire_extra;
        self.atire_docs_uc += o.atire_docs_uc;
        self.atire_docs_any += o.atire_docs_any;
        self.unscored += o.unscored;
        for p in 0..PERCENTILES {
            self.scored[p] += o.scored[p];
        }
        for (a, b) in self.charset_small.iter_mut().zip(o.charset_small) {
            a[0] += b[0];
            a[1] += b[1];
        }
        for (k, v) in o.charset_other {
            let e = self.charset_other.entry(k).or_default();
            e[0] += v[0];
            e[1] += v[1];
        }
        self
    }

    /// `(code, [docs, disagreeing])` for every code seen, in code order.
    fn charsets(&self) -> Vec<(u64, [u64; 2])> {
        let mut out: Vec<(u64, [u64; 2])> = self
            .charset_small
            .iter()
            .enumerate()
            .filter(|(_, v)| v[0] > 0)
            .map(|(code, v)| (code as u64, *v))
            .collect();
        out.extend(self.charset_other.iter().map(|(k, v)| (*k, *v)));
        out
    }
}

/// A fast field as dense per-document values (`default` where a document
/// has none).
fn dense<T>(col: Column<T>, default: T) -> Arc<dyn ColumnValues<T>>
where
    T: PartialOrd + Copy + std::fmt::Debug + Send + Sync + 'static,
{
    if matches!(col.index, ColumnIndex::Full) {
        col.values
    } else {
        col.first_or_default_col(default)
    }
}

/// For a spam override: the percentile of every docid term ordinal of the
/// segment (`NO_SPAM_SCORE` if absent or above 99), and the per-document
/// ordinal column.
fn spam_by_ord(
    segment: &SegmentReader,
    spam: &SpamMap<Vec<u8>>,
) -> Result<(Vec<u8>, Arc<dyn ColumnValues<u64>>)> {
    let docids = segment
        .fast_fields()
        .str(DOCID)?
        .ok_or_else(|| Error::Schema {
            expected: DOCID,
            detail: "docid is not a fast field".into(),
        })?;
    let dict = docids.dictionary();
    let mut table = vec![NO_SPAM_SCORE as u8; dict.num_terms()];
    let mut stream = dict.stream().map_err(tantivy::TantivyError::from)?;
    while stream.advance() {
        let ord = stream.term_ord() as usize;
        if let Ok(key) = std::str::from_utf8(stream.key())
            && let Some(p) = spam.get(key)
            && usize::from(p) < PERCENTILES
            && let Some(slot) = table.get_mut(ord)
        {
            *slot = p;
        }
    }
    // An ordinal past the table (no docid) reads as unscored.
    let ords = dense(docids.ords().clone(), u64::MAX);
    Ok((table, ords))
}

/// Reads one segment's fast fields into a [`Tally`].
fn scan_segment(segment: &SegmentReader, spam: Option<&SpamMap<Vec<u8>>>) -> Result<Tally> {
    let ff = segment.fast_fields();
    let u64_col = |name: &str, default: u64| -> Result<Arc<dyn ColumnValues<u64>>> {
        Ok(dense(ff.u64(name)?, default))
    };
    let mut errs = Vec::with_capacity(CLASSES);
    for class in ErrorClass::ALL {
        errs.push(u64_col(error_field_name(class), 0)?);
    }
    let atire = u64_col(ATIRE_EXTRA, 0)?;
    let bytes = u64_col(BYTES, 0)?;
    let source = u64_col(CHARSET_SOURCE, 0)?;
    let disagree = dense(ff.bool(CHARSET_DISAGREE)?, false);
    let (spam_table, spam_col) = match spam {
        Some(map) => {
            let (table, ords) = spam_by_ord(segment, map)?;
            (Some(table), ords)
        }
        None => (None, u64_col(SPAM, NO_SPAM_SCORE)?),
    };
    let alive = segment.alive_bitset();

    let mut t = Tally::default();
    let max_doc = segment.max_doc() as usize;
    let mut err_buf = vec![[0u64; BLOCK_DOCS]; CLASSES];
    let mut atire_buf = [0u64; BLOCK_DOCS];
    let mut bytes_buf = [0u64; BLOCK_DOCS];
    let mut source_buf = [0u64; BLOCK_DOCS];
    let mut disagree_buf = [false; BLOCK_DOCS];
    let mut spam_buf = [0u64; BLOCK_DOCS];
    let mut start = 0usize;
    while start < max_doc {
        let len = BLOCK_DOCS.min(max_doc - start);
        for (col, buf) in errs.iter().zip(err_buf.iter_mut()) {
            col.get_range(start as u64, &mut buf[..len]);
        }
        atire.get_range(start as u64, &mut atire_buf[..len]);
        bytes.get_range(start as u64, &mut bytes_buf[..len]);
        source.get_range(start as u64, &mut source_buf[..len]);
        disagree.get_range(start as u64, &mut disagree_buf[..len]);
        spam_col.get_range(start as u64, &mut spam_buf[..len]);
        for i in 0..len {
            if let Some(a) = alive
                && !a.is_alive((start + i) as u32)
            {
                continue;
            }
            t.docs += 1;
            t.bytes += bytes_buf[i];
            let percentile = match &spam_table {
                Some(table) => usize::try_from(spam_buf[i])
                    .ok()
                    .and_then(|ord| table.get(ord))
                    .map_or(NO_SPAM_SCORE as usize, |p| usize::from(*p)),
                None => usize::try_from(spam_buf[i]).unwrap_or(usize::MAX),
            };
            let scored = percentile < PERCENTILES;
            if scored {
                t.scored[percentile] += 1;
            } else {
                t.unscored += 1;
            }
            let mut any = false;
            for (c, counts) in err_buf.iter().enumerate() {
                let n = counts[i];
                if n > 0 {
                    any = true;
                    t.occurrences[c] += n;
                    t.docs_with[c] += 1;
                    if scored {
                        t.scored_with[c][percentile] += 1;
                    }
                }
            }
            if any {
                t.docs_any += 1;
            }
            let extra = atire_buf[i];
            t.atire_extra += extra;
            if extra > 0 || err_buf[0][i] > 0 {
                t.atire_docs_uc += 1;
            }
            if extra > 0 || any {
                t.atire_docs_any += 1;
            }
            let code = source_buf[i];
            let d = u64::from(disagree_buf[i]);
            let slot = match usize::try_from(code) {
                Ok(small) if small < SMALL_CODES => &mut t.charset_small[small],
                _ => t.charset_other.entry(code).or_default(),
            };
            slot[0] += 1;
            slot[1] += d;
        }
        start += len;
    }
    Ok(t)
}

/// Welch's unequal-variance t-test of two samples given by their size, sum
/// and sum of squares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    /// Mean of the first sample minus mean of the second, over the pooled
    /// standard error `sqrt(v1/n1 + v2/n2)` (sample variances).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value from Student's t with `df` degrees of freedom.
    pub p: f64,
}

impl Welch {
    /// The test, or `None` when either sample has fewer than two values or
    /// both variances are zero.
    pub fn from_moments(a: (f64, f64, f64), b: (f64, f64, f64)) -> Option<Welch> {
        let (n1, s1, q1) = a;
        let (n2, s2, q2) = b;
        if n1 < 2.0 || n2 < 2.0 {
            return None;
        }
        let m1 = s1 / n1;
        let m2 = s2 / n2;
        let v1 = ((q1 - s1 * m1) / (n1 - 1.0)).max(0.0);
        let v2 = ((q2 - s2 * m2) / (n2 - 1.0)).max(0.0);
        let e1 = v1 / n1;
        let e2 = v2 / n2;
        let se2 = e1 + e2;
        if se2 <= 0.0 {
            return None;
        }
        let t = (m1 - m2) / se2.sqrt();
        let df = se2 * se2 / (e1 * e1 / (n1 - 1.0) + e2 * e2 / (n2 - 1.0));
        let dist = StudentsT::new(0.0, 1.0, df).ok()?;
        let p = (2.0 * dist.cdf(-t.abs())).min(1.0);
        Some(Welch { t, df, p })
    }

    /// The test of two samples of percentiles given as histograms
    /// (`h[v]` = number of values equal to `v`).
    pub fn from_histograms(a: &[u64], b: &[u64]) -> Option<Welch> {
        Welch::from_moments(moments(a), moments(b))
    }
}

/// `(n, sum, sum of squares)` of a histogram, exactly in integers, then as
/// floats.
fn moments(h: &[u64]) -> (f64, f64, f64) {
    let (mut n, mut s, mut q) = (0u128, 0u128, 0u128);
    for (v, &c) in h.iter().enumerate() {
        let (v, c) = (v as u128, u128::from(c));
        n += c;
        s += c * v;
        q += c * v * v;
    }
    (n as f64, s as f64, q as f64)
}

/// The Mann–Whitney U test of two samples given as histograms over the same
/// ordered values, with the normal approximation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// U of the first sample: its rank sum (midranks for ties) minus
    /// `n1 (n1 + 1) / 2`.
    pub u: f64,
    /// `(U - n1 n2 / 2 ∓ 0.5) / sigma`, with the continuity correction
    /// towards zero (0 when `|U - n1 n2 / 2| <= 0.5`) and the tie-corrected
    /// `sigma² = n1 n2 / 12 · ((N + 1) - Σ(t³ - t) / (N (N - 1)))`.
    pub z: f64,
    /// Two-sided p-value `2 Φ(-|z|)`.
    pub p: f64,
}

impl MannWhitney {
    /// The test, or `None` when either sample is empty or all values are
    /// tied (sigma is zero).
    pub fn from_histograms(a: &[u64], b: &[u64]) -> Option<MannWhitney> {
        let n1: f64 = a.iter().map(|&c| c as f64).sum();
        let n2: f64 = b.iter().map(|&c| c as f64).sum();
        if n1 == 0.0 || n2 == 0.0 {
            return None;
        }
        let n = n1 + n2;
        let mut below = 0.0f64;
        let mut rank_sum = 0.0f64;
        let mut ties = 0.0f64;
        for (&ca, &cb) in a.iter().zip(b) {
            let t = (ca + cb) as f64;
            if t == 0.0 {
                continue;
            }
            let midrank = below + (t + 1.0) / 2.0;
            rank_sum += ca as f64 * midrank;
            ties += t * t * t - t;
            below += t;
        }
        let u = rank_sum - n1 * (n1 + 1.0) / 2.0;
        let mu = n1 * n2 / 2.0;
        let var = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
        if var.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        let d = u - mu;
        let corrected = (d.abs() - 0.5).max(0.0).copysign(d);
        let z = corrected / var.sqrt();
        let normal = Normal::standard();
        let p = (2.0 * normal.cdf(-z.abs())).min(1.0);
        Some(MannWhitney { u, z, p })
    }
}

/// Writes the report of the index in `index_dir` into `out_dir` (created
/// if needed); see the module docs for the files and their semantics.
pub fn write_report(
    index_dir: &Path,
    out_dir: &Path,
    opts: &ReportOptions,
) -> Result<ReportSummary> {
    let started = Instant::now();
    let (index, _manifest) = open_index(index_dir)?;
    let reader = index.reader()?;
    let searcher = reader.searcher();
    let spam = opts.spam.as_ref();
    let tallies: Vec<Tally> = searcher
        .segment_readers()
        .par_iter()
        .map(|segment| scan_segment(segment, spam))
        .collect::<Result<_>>()?;
    let tally = tallies.into_iter().fold(Tally::default(), Tally::merge);

    std::fs::create_dir_all(out_dir).map_err(|source| Error::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let mut files = Vec::new();
    let mut put = |name: &str, text: String| -> Result<()> {
        let path = out_dir.join(name);
        write_text(&path, &text)?;
        files.push(path);
        Ok(())
    };
    put("table1.tsv", table1_tsv(&tally, opts.atire_counts))?;
    put("table1.md", table1_md(&tally, opts.atire_counts))?;
    let bins = bins(&tally, opts.deciles);
    put("by-percentile.tsv", by_percentile_tsv(&bins, opts.deciles))?;
    let svg = figure5_svg(&bins, opts.deciles).map_err(|detail| Error::Plot {
        path: out_dir.join("figure5.svg"),
        detail,
    })?;
    put("figure5.svg", svg)?;
    put("significance.tsv", significance_tsv(&tally))?;
    put("charsets.tsv", charsets_tsv(&tally))?;
    Ok(ReportSummary {
        docs: tally.docs,
        unscored: tally.unscored,
        seconds: started.elapsed().as_secs_f64(),
        files,
    })
}

fn write_text(path: &Path, text: &str) -> Result<()> {
    let mut f = create_file(path)?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.flush())
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
}

fn ratio(num: u64, den: u64) -> String {
    if den == 0 {
        "NA".into()
    } else {
        format!("{:.6}", num as f64 / den as f64)
    }
}

fn table1_rows(t: &Tally, atire: bool) -> Vec<[String; 7]> {
    let mut rows = Vec::new();
    for (c, class) in ErrorClass::ALL.into_iter().enumerate() {
        let (ao, ad) = if c == 0 {
            (t.occurrences[0] + t.atire_extra, t.atire_docs_uc)
        } else {
            (t.occurrences[c], t.docs_with[c])
        };
        rows.push([
            class.key().to_string(),
            class.label().to_string(),
            t.occurrences[c].to_string(),
            t.docs_with[c].to_string(),
            ratio(t.docs_with[c], t.docs),
            if atire { ao.to_string() } else { String::new() },
            if atire { ad.to_string() } else { String::new() },
        ]);
    }
    let total: u64 = t.occurrences.iter().sum();
    rows.push([
        "total".into(),
        "Any error".into(),
        total.to_string(),
        t.docs_any.to_string(),
        ratio(t.docs_any, t.docs),
        if atire {
            (total + t.atire_extra).to_string()
        } else {
            String::new()
        },
        if atire {
            t.atire_docs_any.to_string()
        } else {
            String::new()
        },
    ]);
    rows
}

fn table1_tsv(t: &Tally, atire: bool) -> String {
    let mut s = String::from("class\tlabel\toccurrences\tdocuments\tdocument_fraction");
    if atire {
        s.push_str("\tatire_occurrences\tatire_documents");
    }
    s.push('\n');
    for row in table1_rows(t, atire) {
        let n = if atire { 7 } else { 5 };
        s.push_str(&row[..n].join("\t"));
        s.push('\n');
    }
    let _ = writeln!(s, "n_documents\t\t\t{}\t", t.docs);
    let _ = writeln!(s, "n_bytes\t\t{}\t\t", t.bytes);
    s
}

fn table1_md(t: &Tally, atire: bool) -> String {
    let mut s = String::from("| Error class | Occurrences | Documents | % of documents |");
    if atire {
        s.push_str(" Occurrences (ATIRE) | Documents (ATIRE) |");
    }
    s.push_str("\n|---|---:|---:|---:|");
    if atire {
        s.push_str("---:|---:|");
    }
    s.push('\n');
    for row in table1_rows(t, atire) {
        let pct = if t.docs == 0 {
            "NA".to_string()
        } else {
            format!(
                "{:.4}",
                100.0 * row[3].parse::<f64>().unwrap_or(0.0) / t.docs as f64
            )
        };
        let bold = row[0] == "total";
        let cell = |x: &str| {
            if bold {
                format!("**{x}**")
            } else {
                x.to_string()
            }
        };
        let _ = write!(
            s,
            "| {} | {} | {} | {} |",
            cell(&row[1]),
            cell(&row[2]),
            cell(&row[3]),
            cell(&pct)
        );
        if atire {
            let _ = write!(s, " {} | {} |", cell(&row[5]), cell(&row[6]));
        }
        s.push('\n');
    }
    let _ = writeln!(s, "\nN = {} documents, {} body bytes.", t.docs, t.bytes);
    if atire {
        s.push_str(
            "\nATIRE-compatible counting differs only for unexpected continuation bytes \
             (it adds the leftover bytes of over-long forms).\n",
        );
    }
    s
}

/// One spam bin of Figure 5.
struct Bin {
    docs: u64,
    with: [u64; CLASSES],
}

fn bins(t: &Tally, deciles: bool) -> Vec<Bin> {
    let width = if deciles { 10 } else { 1 };
    (0..PERCENTILES / width)
        .map(|b| {
            let range = b * width..(b + 1) * width;
            let mut with = [0; CLASSES];
            for (c, w) in with.iter_mut().enumerate() {
                *w = t.scored_with[c][range.clone()].iter().sum();
            }
            Bin {
                docs: t.scored[range].iter().sum(),
                with,
            }
        })
        .collect()
}

fn by_percentile_tsv(bins: &[Bin], deciles: bool) -> String {
    let mut s = String::from(if deciles { "decile" } else { "percentile" });
    s.push_str("\tdocuments");
    for class in ErrorClass::ALL {
        let _ = write!(s, "\t{0}_documents\t{0}_proportion", class.key());
    }
    s.push('\n');
    for (b, bin) in bins.iter().enumerate() {
        let _ = write!(s, "{b}\t{}", bin.docs);
        for w in bin.with {
            let _ = write!(s, "\t{w}\t{}", ratio(w, bin.docs));
        }
        s.push('\n');
    }
    s
}

/// Title of Figure 5.
pub const FIGURE5_TITLE: &str =
    "Proportion of documents with each UTF-8 error class by spam percentile";

/// Series colours (Okabe–Ito, readable by colour-blind readers).
const COLOURS: [(u8, u8, u8); CLASSES] = [
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (204, 121, 167),
    (230, 159, 0),
    (86, 180, 233),
    (0, 0, 0),
];

fn figure5_svg(bins: &[Bin], deciles: bool) -> std::result::Result<String, String> {
    use plotters::prelude::*;
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let series: Vec<Vec<(f64, f64)>> = (0..CLASSES)
        .map(|c| {
            bins.iter()
                .enumerate()
                .filter(|(_, b)| b.docs > 0)
                .map(|(i, b)| (i as f64, b.with[c] as f64 / b.docs as f64))
                .collect()
        })
        .collect();
    let y_max = series.iter().flatten().map(|p| p.1).fold(0.0f64, f64::max);
    let y_top = if y_max > 0.0 { y_max * 1.1 } else { 1.0 };
    let x_max = (bins.len().max(2) - 1) as f64;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 640)).into_drawing_area();
        root.fill(&WHITE).map_err(|x| e(&x))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(FIGURE5_TITLE, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(0f64..x_max, 0f64..y_top)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .x_desc(if deciles {
                "Spam decile (0 = spammiest)"
            } else {
                "Spam percentile (0 = spammiest, 99 = least spammy)"
            })
            .y_desc("Proportion of documents containing the error")
            .x_labels(if deciles { 10 } else { 11 })
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.3}"))
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .draw()
            .map_err(|x| e(&x))?;
        for (c, class) in ErrorClass::ALL.into_iter().enumerate() {
            let (r, g, b) = COLOURS[c];
            let colour = RGBColor(r, g, b);
            chart
                .draw_series(LineSeries::new(
                    series[c].iter().copied(),
                    colour.stroke_width(2),
                ))
                .map_err(|x| e(&x))?
                .label(class.label())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(|x| e(&x))?;
        root.present().map_err(|x| e(&x))?;
    }
    Ok(svg)
}

fn fmt_stat(x: f64) -> String {
    if !x.is_finite() {
        "NA".into()
    } else if x == 0.0 || (1e-4..1e6).contains(&x.abs()) {
        format!("{x:.6}")
    } else {
        format!("{x:.6e}")
    }
}

fn fmt_p(p: f64) -> String {
    if p < f64::MIN_POSITIVE {
        // Below the smallest normal f64: the value underflowed.
        "<2.2e-308".into()
    } else {
        format!("{p:.6e}")
    }
}

fn significance_tsv(t: &Tally) -> String {
    let mut s = String::from(
        "class\tn_with\tn_without\tmean_percentile_with\tmean_percentile_without\t\
         welch_t\twelch_df\twelch_p\tmwu_u\tmwu_z\tmwu_p\n",
    );
    for (c, class) in ErrorClass::ALL.into_iter().enumerate() {
        let with = &t.scored_with[c];
        let without: Vec<u64> = t.scored.iter().zip(with).map(|(a, w)| a - w).collect();
        let (n1, s1, _) = moments(with);
        let (n2, s2, _) = moments(&without);
        let mean = |s: f64, n: f64| {
            if n > 0.0 {
                format!("{:.6}", s / n)
            } else {
                "NA".into()
            }
        };
        let _ = write!(
            s,
            "{}\t{}\t{}\t{}\t{}",
            class.key(),
            n1,
            n2,
            mean(s1, n1),
            mean(s2, n2)
        );
        match Welch::from_histograms(with, &without) {
            Some(w) => {
                let _ = write!(s, "\t{}\t{}\t{}", fmt_stat(w.t), fmt_stat(w.df), fmt_p(w.p));
            }
            None => s.push_str("\tNA\tNA\tNA"),
        }
        match MannWhitney::from_histograms(with, &without) {
            Some(m) => {
                let _ = write!(s, "\t{}\t{}\t{}", m.u, fmt_stat(m.z), fmt_p(m.p));
            }
            None => s.push_str("\tNA\tNA\tNA"),
        }
        s.push('\n');
    }
    s
}

fn charsets_tsv(t: &Tally) -> String {
    let mut s = String::from("source\tcode\tdocuments\tdisagree\n");
    for (code, [docs, disagree]) in t.charsets() {
        let key = match CharsetSource::from_code(code) {
            Some(src) => src.key().to_string(),
            None if code == 0 => "unrecorded".into(),
            None => format!("code_{code}"),
        };
        let _ = writeln!(s, "{key}\t{code}\t{docs}\t{disagree}");
    }
    let total_disagree: u64 = t.charsets().iter().map(|(_, v)| v[1]).sum();
    let _ = writeln!(s, "total\t\t{}\t{}", t.docs, total_disagree);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{AnalyzerConfig, EnglishAnalyzer};
    use crate::build::{MANIFEST, Manifest, ManifestOptions};
    use crate::document::IndexDoc;
    use crate::schema::{Fields, SCHEMA_VERSION, build_schema, register_analyzers};
    use sieve_filters::spam::SpamMapBuilder;
    use sieve_filters::utf8::Utf8Counts;
    use tantivy::{Index, IndexWriter, Term};

    /// Writes `batches` of documents (one commit, hence usually one
    /// segment, per batch) into a new index with a manifest in `dir`.
    fn build_index(dir: &Path, batches: Vec<Vec<IndexDoc>>) -> Index {
        let index = Index::create_in_dir(dir, build_schema()).expect("create index");
        register_analyzers(&index, AnalyzerConfig::default());
        let fields = Fields::from_schema(&index.schema()).expect("fields");
        let analyzer = EnglishAnalyzer::new(AnalyzerConfig::default());
        let mut writer: IndexWriter<crate::document::SieveDocument> =
            index.writer_with_num_threads(1, 50 << 20).expect("writer");
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        for batch in batches {
            for doc in batch {
                writer
                    .add_document(doc.into_document(&fields, &analyzer))
                    .expect("add");
            }
            writer.commit().expect("commit");
        }
        writer.wait_merging_threads().expect("merge threads");
        let manifest = Manifest {
            tool: "sieve-index test".into(),
            schema_version: SCHEMA_VERSION,
            options: ManifestOptions {
                stemmer: "porter".into(),
                stopwords: "lucene".into(),
                charset: "auto".into(),
                max_record_bytes: 1 << 20,
                max_decompression_ratio: 100,
                max_html_depth: 256,
                max_text_bytes: 1 << 20,
                max_doc_ms: 0,
                doc_timeout: "skip".into(),
                filter: None,
                spam: None,
            },
            inputs: Vec::new(),
        };
        std::fs::write(
            dir.join(MANIFEST),
            serde_json::to_vec_pretty(&manifest).expect("json"),
        )
        .expect("manifest");
        index
    }

    fn doc(id: &str, counts: Utf8Counts, atire_extra: u64, spam: Option<u8>) -> IndexDoc {
        IndexDoc {
            docid: id.into(),
            title: format!("title {id}"),
            body: "some body text".into(),
            bytes: 100,
            counts,
            atire_extra,
            spam,
            charset: "UTF-8".into(),
            charset_source: CharsetSource::Default.code(),
            ..IndexDoc::default()
        }
    }

    /// Five documents with known errors, in two segments.
    fn hand_built() -> Vec<Vec<IndexDoc>> {
        let mut d0 = doc(
            "d0",
            Utf8Counts {
                unexpected_continuation: 3,
                ..Default::default()
            },
            0,
            Some(0),
        );
        d0.charset_source = CharsetSource::HttpHeader.code();
        d0.charset_disagree = true;
        let mut d1 = doc(
            "d1",
            Utf8Counts {
                missing_continuation: 2,
                surrogate: 1,
                ..Default::default()
            },
            0,
            Some(0),
        );
        d1.charset_source = CharsetSource::Meta.code();
        let mut d2 = doc("d2", Utf8Counts::default(), 2, Some(50));
        d2.charset_source = CharsetSource::Detector.code();
        d2.bytes = 1000;
        let mut d3 = doc(
            "d3",
            Utf8Counts {
                overlong_nul: 1,
                invalid_4_5_6: 4,
                ..Default::default()
            },
            0,
            None,
        );
        d3.charset_source = 0;
        let mut d4 = doc(
            "d4",
            Utf8Counts {
                unexpected_continuation: 1,
                ..Default::default()
            },
            1,
            Some(99),
        );
        d4.charset_source = CharsetSource::HttpHeader.code();
        d4.charset_disagree = true;
        vec![vec![d0, d1, d2], vec![d3, d4]]
    }

    fn read(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).expect(name)
    }

    fn line<'a>(text: &'a str, first: &str) -> &'a str {
        text.lines()
            .find(|l| l.split('\t').next() == Some(first))
            .unwrap_or_else(|| panic!("no line {first:?} in\n{text}"))
    }

    #[test]
    fn counts_match_hand_built_documents() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
        std::fs::create_dir(&idx).expect("mkdir");
        let index = build_index(&idx, hand_built());
        assert_eq!(index.searchable_segment_ids().expect("ids").len(), 2);
        let opts = ReportOptions {
            atire_counts: true,
            ..Default::default()
        };
        let summary = write_report(&idx, &out, &opts).expect("report");
        assert_eq!(summary.docs, 5);
        assert_eq!(summary.unscored, 1);
        let names: Vec<String> = summary
            .files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "table1.tsv",
                "table1.md",
                "by-percentile.tsv",
                "figure5.svg",
                "significance.tsv",
                "charsets.tsv"
            ]
        );

        let t1 = read(&out, "table1.tsv");
        assert_eq!(
            t1.lines().next(),
            Some(
                "class\tlabel\toccurrences\tdocuments\tdocument_fraction\t\
                 atire_occurrences\tatire_documents"
            )
        );
        assert_eq!(
            line(&t1, "unexpected_continuation"),
            "unexpected_continuation\tUnexpected continuation bytes\t4\t2\t0.400000\t7\t3"
        );
        assert_eq!(
            line(&t1, "missing_continuation"),
            "missing_continuation\tNot enough continuation bytes\t2\t1\t0.200000\t2\t1"
        );
        assert_eq!(
            line(&t1, "surrogate"),
            "surrogate\tInvalid surrogate halves\t1\t1\t0.200000\t1\t1"
        );
        assert_eq!(
            line(&t1, "invalid_4_5_6"),
            "invalid_4_5_6\tInvalid 4/5/6-byte sequences\t4\t1\t0.200000\t4\t1"
        );
        assert_eq!(
            line(&t1, "overlong_nul"),
            "overlong_nul\tOver-long NUL\t1\t1\t0.200000\t1\t1"
        );
        assert_eq!(
            line(&t1, "overlong_ascii"),
            "overlong_ascii\tOver-long ASCII\t0\t0\t0.000000\t0\t0"
        );
        // Any error: d0, d1, d3, d4 (exact); d2 too under ATIRE.
        assert_eq!(
            line(&t1, "total"),
            "total\tAny error\t12\t4\t0.800000\t15\t5"
        );
        assert_eq!(line(&t1, "n_documents"), "n_documents\t\t\t5\t");
        assert_eq!(line(&t1, "n_bytes"), "n_bytes\t\t1400\t\t");

        let md = read(&out, "table1.md");
        assert!(
            md.contains("| Unexpected continuation bytes | 4 | 2 | 40.0000 | 7 | 3 |"),
            "{md}"
        );
        assert!(md.contains("N = 5 documents"), "{md}");

        let bp = read(&out, "by-percentile.tsv");
        assert_eq!(bp.lines().count(), 101);
        let p0: Vec<&str> = line(&bp, "0").split('\t').collect();
        assert_eq!(
            &p0[..8],
            ["0", "2", "1", "0.500000", "1", "0.500000", "1", "0.500000"]
        );
        let p50: Vec<&str> = line(&bp, "50").split('\t').collect();
        assert_eq!(&p50[..4], ["50", "1", "0", "0.000000"]);
        let p99: Vec<&str> = line(&bp, "99").split('\t').collect();
        assert_eq!(&p99[..4], ["99", "1", "1", "1.000000"]);
        assert_eq!(
            &line(&bp, "1").split('\t').collect::<Vec<_>>()[..4],
            ["1", "0", "0", "NA"]
        );

        let cs = read(&out, "charsets.tsv");
        assert_eq!(
            cs,
            "source\tcode\tdocuments\tdisagree\n\
             unrecorded\t0\t1\t0\n\
             http_header\t1\t2\t2\n\
             meta\t3\t1\t0\n\
             detector\t4\t1\t0\n\
             total\t\t5\t2\n"
        );

        let sig = read(&out, "significance.tsv");
        // unexpected_continuation among scored docs: with = {0, 99},
        // without = {0, 50}.
        let uc: Vec<&str> = line(&sig, "unexpected_continuation").split('\t').collect();
        assert_eq!(
            &uc[..5],
            [
                "unexpected_continuation",
                "2",
                "2",
                "49.500000",
                "25.000000"
            ]
        );
        // Oracle (mpmath): Welch t 0.44180016, df 1.4789873, p 0.71460393;
        // U = 2.5 = n1 n2 / 2 + 0.5, so the continuity-corrected z is 0.
        assert_eq!(
            line(&sig, "unexpected_continuation"),
            "unexpected_continuation\t2\t2\t49.500000\t25.000000\t0.441800\t1.478987\t\
             7.146039e-1\t2.5\t0.000000\t1.000000e0"
        );
        // overlong_nul is only in the unscored d3.
        let nul: Vec<&str> = line(&sig, "overlong_nul").split('\t').collect();
        assert_eq!(
            &nul[..],
            [
                "overlong_nul",
                "0",
                "4",
                "NA",
                "37.250000",
                "NA",
                "NA",
                "NA",
                "NA",
                "NA",
                "NA"
            ]
        );
    }

    #[test]
    fn without_atire_counts_table_has_five_columns() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
        std::fs::create_dir(&idx).expect("mkdir");
        build_index(&idx, hand_built());
        write_report(&idx, &out, &ReportOptions::default()).expect("report");
        let t1 = read(&out, "table1.tsv");
        for l in t1.lines() {
            assert!(l.split('\t').count() <= 5, "{l}");
        }
        assert!(!read(&out, "table1.md").contains("ATIRE"));
    }

    #[test]
    fn deciles_group_ten_percentiles() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
        std::fs::create_dir(&idx).expect("mkdir");
        let uc = Utf8Counts {
            unexpected_continuation: 1,
            ..Default::default()
        };
        let docs = vec![
            doc("a", uc, 0, Some(10)),
            doc("b", Utf8Counts::default(), 0, Some(19)),
            doc("c", Utf8Counts::default(), 0, Some(20)),
            doc("d", uc, 0, Some(95)),
        ];
        build_index(&idx, vec![docs]);
        let opts = ReportOptions {
            deciles: true,
            ..Default::default()
        };
        write_report(&idx, &out, &opts).expect("report");
        let bp = read(&out, "by-percentile.tsv");
        assert!(bp.starts_with("decile\tdocuments\t"));
        assert_eq!(bp.lines().count(), 11);
        assert_eq!(
            &line(&bp, "1").split('\t').collect::<Vec<_>>()[..4],
            ["1", "2", "1", "0.500000"]
        );
        assert_eq!(
            &line(&bp, "2").split('\t').collect::<Vec<_>>()[..4],
            ["2", "1", "0", "0.000000"]
        );
        assert_eq!(
            &line(&bp, "9").split('\t').collect::<Vec<_>>()[..4],
            ["9", "1", "1", "1.000000"]
        );
    }

    #[test]
    fn spam_map_overrides_the_fast_field() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
        std::fs::create_dir(&idx).expect("mkdir");
        build_index(&idx, hand_built());
        // d3 (unscored in the index) becomes 7; d0 moves to 42; d1, d2, d4
        // are not in the map, so unscored.
        let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
        b.insert("d0", 42).expect("insert");
        b.insert("d3", 7).expect("insert");
        b.insert("zz-not-indexed", 3).expect("insert");
        let map = SpamMap::new(b.finish().expect("finish")).expect("map");
        let opts = ReportOptions {
            spam: Some(map),
            ..Default::default()
        };
        let summary = write_report(&idx, &out, &opts).expect("report");
        assert_eq!(summary.unscored, 3);
        let bp = read(&out, "by-percentile.tsv");
        let total: u64 = bp
            .lines()
            .skip(1)
            .map(|l| l.split('\t').nth(1).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(total, 2);
        assert_eq!(
            &line(&bp, "7").split('\t').collect::<Vec<_>>()[..2],
            ["7", "1"]
        );
        assert_eq!(
            &line(&bp, "42").split('\t').collect::<Vec<_>>()[..4],
            ["42", "1", "1", "1.000000"]
        );
        assert_eq!(
            &line(&bp, "0").split('\t').collect::<Vec<_>>()[..2],
            ["0", "0"]
        );
    }

    #[test]
    fn deleted_documents_are_not_counted() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
        std::fs::create_dir(&idx).expect("mkdir");
        let index = build_index(&idx, hand_built());
        let fields = Fields::from_schema(&index.schema()).expect("fields");
        let mut writer: IndexWriter<crate::document::SieveDocument> =
            index.writer_with_num_threads(1, 50 << 20).expect("writer");
        writer.delete_term(Term::from_field_text(fields.docid, "d0"));
        writer.commit().expect("commit");
        drop(writer);
        let summary = write_report(&idx, &out, &ReportOptions::default()).expect("report");
        assert_eq!(summary.docs, 4);
        let t1 = read(&out, "table1.tsv");
        assert!(
            line(&t1, "unexpected_continuation").contains("\t1\t1\t"),
            "{t1}"
        );
    }

    /// Checks that `svg` is well-formed XML as far as element nesting goes:
    /// every start tag is closed, in order, and there is one root.
    fn assert_well_formed(svg: &str) {
        let mut stack: Vec<&str> = Vec::new();
        let mut rest = svg;
        let mut roots = 0;
        while let Some(open) = rest.find('<') {
            let after = &rest[open + 1..];
            let close = after.find('>').expect("unterminated tag");
            let tag = &after[..close];
            rest = &after[close + 1..];
            if tag.starts_with('?') || tag.starts_with('!') {
                continue;
            }
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop(), Some(name.trim()), "mismatched </{name}>");
                continue;
            }
            if stack.is_empty() {
                roots += 1;
            }
            let name = tag
                .split(|c: char| c.is_whitespace() || c == '/')
                .next()
                .unwrap();
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        assert_eq!(roots, 1);
    }

    #[test]
    fn figure5_is_well_formed_with_a_series_per_class() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
        std::fs::create_dir(&idx).expect("mkdir");
        build_index(&idx, hand_built());
        write_report(&idx, &out, &ReportOptions::default()).expect("report");
        let svg = read(&out, "figure5.svg");
        let trimmed = svg.trim();
        assert!(trimmed.starts_with("<svg"), "{}", &trimmed[..40]);
        assert!(trimmed.ends_with("</svg>"));
        assert_well_formed(trimmed);
        assert!(svg.contains(FIGURE5_TITLE));
        assert!(svg.contains("Spam percentile"));
        assert!(svg.contains("Proportion of documents containing the error"));
        for (c, class) in ErrorClass::ALL.into_iter().enumerate() {
            assert!(svg.contains(class.label()), "label {}", class.label());
            let (r, g, b) = COLOURS[c];
            let stroke = format!("stroke=\"#{r:02X}{g:02X}{b:02X}\"");
            // The series line and its legend sample.
            let lines = svg
                .lines()
                .filter(|l| l.contains("<polyline") && l.contains(&stroke))
                .count();
            assert!(
                lines >= 2,
                "{} has {lines} polylines with {stroke}",
                class.key()
            );
        }
    }

    // Expected values computed with mpmath (40 digits) from the raw samples:
    // Welch's t and df by definition, p = I_{df/(df+t²)}(df/2, 1/2); U from
    // midranks of the pooled sample, z with tie and continuity corrections,
    // p = erfc(|z|/√2). The script is in the commit message of this test.
    fn hist(values: &[usize]) -> Vec<u64> {
        let mut h = vec![0u64; PERCENTILES];
        for &v in values {
            h[v] += 1;
        }
        h
    }

    fn close(got: f64, want: f64, rel: f64) {
        assert!(
            (got - want).abs() <= rel * want.abs(),
            "got {got}, want {want}"
        );
    }

    #[test]
    fn welch_and_mann_whitney_match_oracle_small_sample() {
        let a = hist(&[0, 0, 1, 3, 3, 3, 7, 50]);
        let b = hist(&[1, 2, 2, 3, 9, 9, 9, 40, 60, 99]);
        let w = Welch::from_histograms(&a, &b).expect("welch");
        close(w.t, -1.248_897_738_897_41, 1e-12);
        close(w.df, 13.975_955_187_239_832, 1e-12);
        close(w.p, 0.232_216_990_575_477_44, 1e-9);
        let m = MannWhitney::from_histograms(&a, &b).expect("mwu");
        assert_eq!(m.u, 23.0);
        close(m.z, -1.479_095_404_051_31, 1e-12);
        close(m.p, 0.139_114_818_376_722_58, 1e-9);
    }

    #[test]
    fn welch_and_mann_whitney_match_oracle_heavy_ties() {
        let mut av = vec![5; 30];
        av.extend([6; 10]);
        let mut bv = vec![5; 10];
        bv.extend([6; 30]);
        bv.extend([7; 5]);
        let (a, b) = (hist(&av), hist(&bv));
        let w = Welch::from_histograms(&a, &b).expect("welch");
        close(w.t, -5.807_393_016_013_57, 1e-12);
        close(w.df, 81.278_099_571_997_6, 1e-12);
        close(w.p, 1.186_627_190_505_120_3e-7, 1e-7);
        let m = MannWhitney::from_histograms(&a, &b).expect("mwu");
        assert_eq!(m.u, 400.0);
        close(m.z, -4.943_344_009_878_333_4, 1e-12);
        close(m.p, 7.679_379_970_859_505e-7, 1e-7);
    }

    #[test]
    fn tests_are_undefined_for_degenerate_samples() {
        let one = hist(&[3]);
        let many = hist(&[1, 2, 3]);
        assert_eq!(Welch::from_histograms(&one, &many), None);
        let same = hist(&[4, 4, 4]);
        assert_eq!(Welch::from_histograms(&same, &same), None);
        assert_eq!(MannWhitney::from_histograms(&same, &same), None);
        assert_eq!(MannWhitney::from_histograms(&hist(&[]), &many), None);
        // Identical distributions: no difference at all.
        let m = MannWhitney::from_histograms(&many, &many).expect("mwu");
        assert_eq!(m.z, 0.0);
        assert_eq!(m.p, 1.0);
    }

    #[test]
    fn p_values_that_underflow_are_marked() {
        assert_eq!(fmt_p(0.0), "<2.2e-308");
        assert_eq!(fmt_p(0.05), "5.000000e-2");
        assert_eq!(fmt_p(1e-300), "1.000000e-300");
        assert_eq!(fmt_stat(f64::NAN), "NA");
        assert_eq!(fmt_stat(-76.768_161_4), "-76.768161");
        assert_eq!(fmt_stat(3.0e7), "3.000000e7");
    }

    /// A made-up spam percentile: FNV-1a of the docid, modulo 100.
    fn made_up_percentile(docid: &[u8]) -> u8 {
        let h = docid.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        (h % 100) as u8
    }

    /// The report of an index built from the bundled crawl samples, with
    /// MADE-UP spam percentiles (FNV-1a of the docid mod 100; every third
    /// docid, by FNV hash, left unscored), against the golden files in
    /// `tests/data/report/` (`SIEVE_BLESS=1` rewrites them).
    #[test]
    fn golden_report_for_bundled_samples_with_made_up_spam() {
        use crate::build::{BuildOptions, NoProgress, build};
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
        // The WARC samples, not the fuzz-derived corrupt file beside them
        // (its records before the damage are read, and repeat a docid).
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(data.join("warc"))
            .expect("warc samples")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
            .collect();
        inputs.push(data.join("trec/cacm-first5.trec"));
        inputs.sort();
        let tmp = tempfile::tempdir().expect("tmp");
        let (idx, out) = (tmp.path().join("idx"), tmp.path().join("out"));
        let stats = build(&BuildOptions::new(inputs, idx.clone()), &NoProgress).expect("build");

        // Made-up scores for the docids in the index.
        let (index, _) = open_index(&idx).expect("open");
        let searcher = index.reader().expect("reader").searcher();
        let mut docids = Vec::new();
        for seg in searcher.segment_readers() {
            let col = seg.fast_fields().str(DOCID).expect("docid").expect("fast");
            let mut stream = col.dictionary().stream().expect("stream");
            while stream.advance() {
                docids.push(stream.key().to_vec());
            }
        }
        docids.sort();
        docids.dedup();
        assert!(docids.len() > 10, "{} docids", docids.len());
        let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
        for d in &docids {
            let p = made_up_percentile(d);
            if !p.is_multiple_of(3) {
                b.insert(std::str::from_utf8(d).expect("utf8"), p)
                    .expect("insert");
            }
        }
        let opts = ReportOptions {
            atire_counts: true,
            spam: Some(SpamMap::new(b.finish().expect("finish")).expect("map")),
            deciles: true,
        };
        let summary = write_report(&idx, &out, &opts).expect("report");
        assert_eq!(summary.docs, docids.len() as u64);

        // Oracle: the builder counted the same things independently, while
        // indexing, into stats.json.
        let totals = &stats.totals;
        assert_eq!(summary.docs, totals.indexed);
        let t1 = read(&out, "table1.tsv");
        for class in ErrorClass::ALL {
            let cols: Vec<&str> = line(&t1, class.key()).split('\t').collect();
            assert_eq!(cols[2], totals.utf8_errors.get(class).to_string(), "{t1}");
            assert_eq!(cols[3], totals.utf8_docs.get(class).to_string(), "{t1}");
        }
        let uc: Vec<&str> = line(&t1, "unexpected_continuation").split('\t').collect();
        assert_eq!(
            uc[5],
            (totals.utf8_errors.unexpected_continuation + totals.atire_extra).to_string()
        );
        let cs = read(&out, "charsets.tsv");
        for (key, n) in &totals.charset_sources {
            let cols: Vec<&str> = line(&cs, key).split('\t').collect();
            assert_eq!(cols[2], n.to_string(), "{key}: {cs}");
        }
        assert_eq!(
            line(&cs, "total"),
            format!("total\t\t{}\t{}", totals.indexed, totals.charset_disagree)
        );

        let golden = data.join("report");
        let bless = std::env::var_os("SIEVE_BLESS").is_some();
        for name in [
            "table1.tsv",
            "table1.md",
            "by-percentile.tsv",
            "significance.tsv",
            "charsets.tsv",
        ] {
            let got = read(&out, name);
            let path = golden.join(name);
            if bless {
                std::fs::create_dir_all(&golden).expect("mkdir");
                std::fs::write(&path, &got).expect("bless");
            }
            let want = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e} (run with SIEVE_BLESS=1)", path.display()));
            assert_eq!(got, want, "{name} differs from {}", path.display());
        }
    }

    /// Throughput on a synthetic index. Run with
    /// `cargo test --release -p sieve-indexer report::tests::throughput -- --ignored --nocapture`
    /// (`SIEVE_REPORT_DOCS` sets the number of documents, default 200000;
    /// `SIEVE_REPORT_OUT` keeps the reports, in `index-spam/` and `map-spam/`;
    /// `SIEVE_REPORT_DECILES` bins by decile).
    /// The error rates and spam scores are made up.
    #[test]
    #[ignore = "performance measurement; builds a large index"]
    fn throughput() {
        let n: u64 = std::env::var("SIEVE_REPORT_DOCS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(200_000);
        let tmp = tempfile::tempdir().expect("tmp");
        let idx = tmp.path().join("idx");
        let out = std::env::var_os("SIEVE_REPORT_OUT")
            .map_or_else(|| tmp.path().join("out"), PathBuf::from);
        std::fs::create_dir(&idx).expect("mkdir");
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let built = Instant::now();
        let docs: Vec<IndexDoc> = (0..n)
            .map(|i| {
                let r = next();
                let spam = u8::try_from((r >> 48) % 101).ok().filter(|&p| p < 100);
                // Made-up rates that fall with the spam percentile: class k
                // is present with probability RATES[k] / 1024 * (2 - p / 99).
                const RATES: [u64; CLASSES] = [300, 200, 40, 60, 8, 15, 25];
                let p = u64::from(spam.unwrap_or(50));
                let mut counts = Utf8Counts::default();
                for (k, class) in ErrorClass::ALL.into_iter().enumerate() {
                    let draw = next() & 1023;
                    if draw * 99 < RATES[k] * (198 - p) {
                        *counts.get_mut(class) = 1 + ((r >> (k * 3)) & 7);
                    }
                }
                let mut d = doc(&format!("clueweb-{i:010}"), counts, (r >> 56) & 1, spam);
                d.title = String::new();
                d.body = String::new();
                d.charset_source = (r >> 60) % 9;
                d.charset_disagree = r & 1 == 1;
                d
            })
            .collect();
        let mut batches = Vec::new();
        let mut docs = docs.into_iter().peekable();
        while docs.peek().is_some() {
            batches.push(docs.by_ref().take(50_000).collect());
        }
        build_index(&idx, batches);
        eprintln!("built {n} docs in {:.1}s", built.elapsed().as_secs_f64());
        for spam in [false, true] {
            let map = spam.then(|| {
                let mut b = SpamMapBuilder::new(Vec::new()).expect("builder");
                for i in 0..n {
                    b.insert(&format!("clueweb-{i:010}"), (i % 100) as u8)
                        .expect("insert");
                }
                SpamMap::new(b.finish().expect("finish")).expect("map")
            });
            let opts = ReportOptions {
                atire_counts: true,
                spam: map,
                deciles: std::env::var_os("SIEVE_REPORT_DECILES").is_some(),
            };
            let dir = out.join(if spam { "map-spam" } else { "index-spam" });
            let s = write_report(&idx, &dir, &opts).expect("report");
            assert_eq!(s.docs, n);
            eprintln!(
                "report (spam override: {spam}): {} docs in {:.3}s = {:.0} docs/s",
                s.docs,
                s.seconds,
                s.docs as f64 / s.seconds
            );
        }
    }
}
