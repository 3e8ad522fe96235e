//! The short human summary of a build's statistics (`sieve-index build`
//! and `merge` print it).

use std::io::Write;

use sieve_filters::utf8::ErrorClass;
use sieve_format::stats::{BuildStats, FileStats};
use sieve_format::unique::DUPLICATE_DOCID;

/// `x` rounded to three significant figures, for rates read by people
/// (`39.8283` gives `39.8`, `1234.5` gives `1230`, `0.012345` gives
/// `0.0123`); zero, negative and non-finite values print as `0`.
pub fn three_figures(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return "0".into();
    }
    let magnitude = x.log10().floor() as i32;
    if magnitude >= 2 {
        let unit = 10f64.powi(magnitude - 2);
        format!("{:.0}", (x / unit).round() * unit)
    } else {
        let decimals = (2 - magnitude) as usize;
        let s = format!("{x:.decimals$}");
        // Rounding up may add a digit (99.96 gives 100.0): drop the decimal.
        if s.trim_start_matches(['0', '.']).replace('.', "").len() > 3 {
            format!("{x:.0$}", decimals.saturating_sub(1))
        } else {
            s
        }
    }
}

/// Writes `stats` as a short human summary.
pub fn summary(stats: &BuildStats, out: &mut impl Write) -> std::io::Result<()> {
    let t = &stats.totals;
    writeln!(
        out,
        "read {} file{}: {} records, {} HTTP responses (TREC documents count as responses), {} HTML documents, {} indexed ({:.1}s)",
        stats.files.len(),
        if stats.files.len() == 1 { "" } else { "s" },
        t.records,
        t.responses,
        t.html,
        t.indexed,
        stats.seconds
    )?;
    write_losses(t, out)?;
    write_encodings(t, out)?;
    if let Some(d) = &stats.near_duplicates {
        writeln!(
            out,
            "near-duplicates: {} documents in {} clusters of two or more; {} are copies of their cluster's representative (smallest docid)",
            d.clustered, d.clusters, d.duplicates
        )?;
    }
    for f in &stats.failed_files {
        writeln!(out, "FAILED (read in part or not at all): {f}")?;
    }
    Ok(())
}

/// `key=value` pairs joined by spaces.
fn pairs<K: std::fmt::Display, V: std::fmt::Display>(
    map: impl IntoIterator<Item = (K, V)>,
) -> String {
    let s: Vec<String> = map.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    s.join(" ")
}

/// The lines of what was not indexed, or not whole: records skipped (and
/// the later copies of docids among them), framing anomalies, caps hit,
/// records quarantined; each only when there is any.
fn write_losses(t: &FileStats, out: &mut impl Write) -> std::io::Result<()> {
    if !t.skipped.is_empty() {
        writeln!(out, "records not indexed, by reason: {}", pairs(&t.skipped))?;
    }
    if let Some(n) = t.skipped.get(DUPLICATE_DOCID) {
        writeln!(
            out,
            "duplicate docids: {n} later record{} skipped, the first record with each docid kept (each in losses.jsonl, naming both)",
            if *n == 1 { "" } else { "s" }
        )?;
    }
    if !t.anomalies.is_empty() {
        writeln!(
            out,
            "framing anomalies (damage stepped over while reading; {} bytes affected): {}",
            t.anomaly_bytes,
            pairs(&t.anomalies)
        )?;
    }
    if !t.caps.is_empty() {
        writeln!(
            out,
            "size caps hit (each in losses.jsonl): {}",
            pairs(&t.caps)
        )?;
    }
    if t.quarantined > 0 {
        writeln!(out, "quarantined records: {}", t.quarantined)?;
    }
    Ok(())
}

/// The lines of the UTF-8 errors per class (occurrences and documents)
/// and of the sources that decided the charsets.
fn write_encodings(t: &FileStats, out: &mut impl Write) -> std::io::Result<()> {
    let e: Vec<String> = ErrorClass::ALL
        .iter()
        .map(|c| {
            format!(
                "{}={}/{}",
                c.key(),
                t.utf8_errors.get(*c),
                t.utf8_docs.get(*c)
            )
        })
        .collect();
    writeln!(
        out,
        "UTF-8 errors, class=occurrences/documents: {}",
        e.join(" ")
    )?;
    writeln!(
        out,
        "charset decided by: {} (declared charsets disagreed in {} documents)",
        pairs(&t.charset_sources),
        t.charset_disagree
    )
}

#[cfg(test)]
mod tests {
    use super::three_figures;

    #[test]
    fn rates_are_rounded_to_three_significant_figures() {
        for (x, want) in [
            (39.8283, "39.8"),
            (1234.5, "1230"),
            (0.012345, "0.0123"),
            (5.0, "5.00"),
            (99.96, "100"),
            (999.6, "1000"),
            (0.0, "0"),
            (f64::NAN, "0"),
        ] {
            assert_eq!(three_figures(x), want, "{x}");
        }
    }
}
