//! The report's tables: Table 1 (TSV and Markdown), the per-percentile
//! proportions, the significance tests and the charset sources, and the
//! number formats they share.

use std::fmt::Write as _;

use sieve_filters::utf8::ErrorClass;
use sieve_text::charset::CharsetSource;

use super::significance::{MannWhitney, Welch, moments};
use super::tally::{CLASSES, PERCENTILES, Tally};

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

pub(super) fn table1_tsv(t: &Tally, atire: bool) -> String {
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

pub(super) fn table1_md(t: &Tally, atire: bool) -> String {
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

/// One spam bin of Figure 5: a percentile, or a decile (`d` holds
/// percentiles `10d..=10d+9`).
pub(super) struct Bin {
    /// Scored documents in the bin.
    pub(super) docs: u64,
    /// Of those, documents containing each class.
    pub(super) with: [u64; CLASSES],
    /// Occurrences of each class in the bin's documents.
    pub(super) occurrences: [u64; CLASSES],
    /// Of the bin's documents, near-duplicates (members of a near-duplicate
    /// cluster other than its representative); `None` for an index without
    /// cluster columns.
    pub(super) near_duplicates: Option<u64>,
}

pub(super) fn bins(t: &Tally, deciles: bool) -> Vec<Bin> {
    let width = if deciles { 10 } else { 1 };
    (0..PERCENTILES / width)
        .map(|b| {
            let range = b * width..(b + 1) * width;
            let sum = |counts: &[[u64; PERCENTILES]; CLASSES]| -> [u64; CLASSES] {
                std::array::from_fn(|c| counts[c][range.clone()].iter().sum())
            };
            Bin {
                docs: t.scored[range.clone()].iter().sum(),
                with: sum(&t.scored_with),
                occurrences: sum(&t.scored_occurrences),
                near_duplicates: t.near_duplicates.map(|n| n[range.clone()].iter().sum()),
            }
        })
        .collect()
}

/// The first column's name of the per-bin files.
fn bin_column(deciles: bool) -> &'static str {
    if deciles { "decile" } else { "percentile" }
}

/// `by-percentile.tsv` or `by-decile.tsv`: per bin, the scored documents
/// and, per class, how many contain it and that proportion; then the
/// near-duplicates among the bin's documents and their share
/// (`near_duplicates`, `near_duplicate_rate`: both `NA` for an index
/// without cluster columns; the rate `NA` for an empty bin).
pub(super) fn by_bin_tsv(bins: &[Bin], deciles: bool) -> String {
    let mut s = String::from(bin_column(deciles));
    s.push_str("\tdocuments");
    for class in ErrorClass::ALL {
        let _ = write!(s, "\t{0}_documents\t{0}_proportion", class.key());
    }
    s.push_str("\tnear_duplicates\tnear_duplicate_rate\n");
    for (b, bin) in bins.iter().enumerate() {
        let _ = write!(s, "{b}\t{}", bin.docs);
        for w in bin.with {
            let _ = write!(s, "\t{w}\t{}", ratio(w, bin.docs));
        }
        match bin.near_duplicates {
            Some(n) => {
                let _ = write!(s, "\t{n}\t{}", ratio(n, bin.docs));
            }
            None => s.push_str("\tNA\tNA"),
        }
        s.push('\n');
    }
    s
}

/// The report's sentence on near-duplicates (in `table1.md` and on the
/// terminal): how many documents are near-duplicates of another (members
/// of a near-duplicate cluster other than its representative), of all
/// documents and of the scored ones, and their share per spam decile; or
/// that the index has no cluster columns.
pub(super) fn near_duplicates_line(t: &Tally) -> String {
    let Some(near) = &t.near_duplicates else {
        return "Near-duplicates: the index has no near-duplicate clusters (it was built with \
                near-duplicate detection off, or by an older sieve), so no duplicate rate is \
                reported."
            .into();
    };
    let pct = |n: u64, d: u64| {
        if d == 0 {
            "NA".to_string()
        } else {
            format!("{:.2}%", 100.0 * n as f64 / d as f64)
        }
    };
    let scored_dups: u64 = near.iter().sum();
    let scored: u64 = t.scored.iter().sum();
    let all = scored_dups + t.near_duplicates_unscored;
    let mut s = format!(
        "Near-duplicates (members of a near-duplicate cluster other than its representative): \
         {all} of the {} documents ({}); {scored_dups} of the {scored} with a spam score ({})",
        t.docs,
        pct(all, t.docs),
        pct(scored_dups, scored)
    );
    if scored > 0 {
        s.push_str("; by spam decile (0 spammiest):");
        for d in 0..10 {
            let r = d * 10..d * 10 + 10;
            let docs: u64 = t.scored[r.clone()].iter().sum();
            let dups: u64 = near[r].iter().sum();
            let _ = write!(s, " {d}: {}", pct(dups, docs));
            s.push(if d < 9 { ',' } else { '.' });
        }
    } else {
        s.push('.');
    }
    s
}

/// For class `c`, per bin `b`: the percentage of all the class's
/// occurrences in scored documents that lie in bins `0..=b` (documents
/// with spam percentile at most the bin's last percentile). `None` in every
/// bin when scored documents hold no occurrence of the class.
pub(super) fn cumulative_percent(bins: &[Bin], c: usize) -> Vec<Option<f64>> {
    let total: u64 = bins.iter().map(|b| b.occurrences[c]).sum();
    let mut upto = 0u64;
    bins.iter()
        .map(|b| {
            upto += b.occurrences[c];
            (total > 0).then(|| 100.0 * upto as f64 / total as f64)
        })
        .collect()
}

/// `cumulative-by-percentile.tsv` or `cumulative-by-decile.tsv`: per bin,
/// the scored documents and, per class, the occurrences in the bin and
/// [`cumulative_percent`] (six decimals, `NA` for a class without
/// occurrences).
pub(super) fn cumulative_tsv(bins: &[Bin], deciles: bool) -> String {
    let mut s = String::from(bin_column(deciles));
    s.push_str("\tdocuments");
    for class in ErrorClass::ALL {
        let _ = write!(s, "\t{0}_occurrences\t{0}_cumulative_percent", class.key());
    }
    s.push('\n');
    let cumulative: Vec<Vec<Option<f64>>> =
        (0..CLASSES).map(|c| cumulative_percent(bins, c)).collect();
    for (b, bin) in bins.iter().enumerate() {
        let _ = write!(s, "{b}\t{}", bin.docs);
        for (c, occ) in bin.occurrences.iter().enumerate() {
            let _ = match cumulative[c][b] {
                Some(p) => write!(s, "\t{occ}\t{p:.6}"),
                None => write!(s, "\t{occ}\tNA"),
            };
        }
        s.push('\n');
    }
    s
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

pub(super) fn significance_tsv(t: &Tally) -> String {
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

pub(super) fn charsets_tsv(t: &Tally) -> String {
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

/// `near-duplicates-by-percentile.tsv` (or by decile): per bin, scored
/// documents, near-duplicates among them and their rate.
pub(super) fn near_duplicates_tsv(scored: &[u64; 100], near: &[u64; 100], deciles: bool) -> String {
    let bin = if deciles { "decile" } else { "percentile" };
    let mut out = format!("{bin}\tdocs\tnear_duplicates\trate\n");
    let width = if deciles { 10 } else { 1 };
    for b in 0..100 / width {
        let docs: u64 = scored[b * width..(b + 1) * width].iter().sum();
        let dups: u64 = near[b * width..(b + 1) * width].iter().sum();
        let rate = if docs == 0 {
            "NA".to_string()
        } else {
            format!("{:.6}", dups as f64 / docs as f64)
        };
        out.push_str(&format!("{b}\t{docs}\t{dups}\t{rate}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_that_underflow_are_marked() {
        assert_eq!(fmt_p(0.0), "<2.2e-308");
        assert_eq!(fmt_p(0.05), "5.000000e-2");
        assert_eq!(fmt_p(1e-300), "1.000000e-300");
        assert_eq!(fmt_stat(f64::NAN), "NA");
        assert_eq!(fmt_stat(-76.768_161_4), "-76.768161");
        assert_eq!(fmt_stat(3.0e7), "3.000000e7");
    }
}
