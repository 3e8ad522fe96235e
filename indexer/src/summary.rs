//! The short human summary of a build's statistics (`sieve-index build`
//! and `merge` print it).

use std::io::Write;

use sieve_filters::utf8::ErrorClass;

use crate::stats::BuildStats;

/// Writes `stats` as a short human summary.
pub fn summary(stats: &BuildStats, out: &mut impl Write) -> std::io::Result<()> {
    let t = &stats.totals;
    writeln!(
        out,
        "files {}  records {}  responses {}  html {}  indexed {}  ({:.1}s)",
        stats.files.len(),
        t.records,
        t.responses,
        t.html,
        t.indexed,
        stats.seconds
    )?;
    if !t.skipped.is_empty() {
        let s: Vec<String> = t.skipped.iter().map(|(k, v)| format!("{k}={v}")).collect();
        writeln!(out, "skipped: {}", s.join(" "))?;
    }
    if !t.anomalies.is_empty() {
        let s: Vec<String> = t
            .anomalies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        writeln!(
            out,
            "anomalies ({} bytes): {}",
            t.anomaly_bytes,
            s.join(" ")
        )?;
    }
    if !t.caps.is_empty() {
        let s: Vec<String> = t.caps.iter().map(|(k, v)| format!("{k}={v}")).collect();
        writeln!(out, "caps hit: {}", s.join(" "))?;
    }
    if t.quarantined > 0 {
        writeln!(out, "quarantined: {}", t.quarantined)?;
    }
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
    writeln!(out, "utf8 errors (occurrences/docs): {}", e.join(" "))?;
    let c: Vec<String> = t
        .charset_sources
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    writeln!(
        out,
        "charset sources: {}  (disagreements {})",
        c.join(" "),
        t.charset_disagree
    )?;
    for f in &stats.failed_files {
        writeln!(out, "FAILED: {f}")?;
    }
    Ok(())
}
