//! The sweep page's table of the tests with fewer assumptions than the
//! t-test and of the risk measures (`sieve_searcher::robust`,
//! `sieve_searcher::risk`), for the first measure that is not a count:
//! per filtered setting, the randomisation and Wilcoxon p-values with
//! their Holm correction, the bootstrap interval, URisk and TRisk at
//! alpha 1 and 5, and GeoRisk at alpha 5 beside its baseline's.

use std::fmt::Write as _;

use sieve_searcher::sweep::table::p_text;
use sieve_searcher::sweep::{Outcome, Table};

use crate::svg::escape;

/// `x` in 4 decimals with a sign; `-` for none.
fn signed(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:+.4}"))
}

/// A p-value and its Holm correction.
fn p_pair(p: Option<f64>, holm: Option<f64>) -> String {
    format!("{} ({})", p_text(p), p_text(holm))
}

/// The table (nothing when every measure is a count).
pub(super) fn sweep_table(s: &mut String, outcome: &Outcome, table: &Table) {
    let Some(j) = table.measures.iter().position(|m| !m.is_count()) else {
        return;
    };
    let name = escape(&table.measures[j].name());
    let _ = writeln!(
        s,
        "<h2>Robust tests and risk, {name}</h2>\n<div class=\"wide\">\n<table class=\"robust\">\n\
         <tr><th>setting</th><th>p randomisation (Holm)</th><th>p Wilcoxon (Holm)</th>\
         <th>bootstrap 95% CI</th><th>URisk α=1</th><th>URisk α=5</th><th>TRisk α=1</th>\
         <th>TRisk α=5</th><th>GeoRisk α=5 (unfiltered)</th></tr>"
    );
    for (i, setting) in outcome.settings.iter().enumerate() {
        let Some(v) = &table.versus[i][j] else {
            continue;
        };
        let r = &v.robust;
        let ci = r.boot_ci.map_or_else(
            || "-".to_string(),
            |(lo, hi)| format!("[{lo:+.4}, {hi:+.4}]"),
        );
        let geo = |k: usize| {
            signed(table.georisk[k][j][1])
                .trim_start_matches('+')
                .to_string()
        };
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{ci}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{} ({})</td></tr>",
            escape(&setting.tag),
            p_pair(r.p_rand, r.p_rand_holm),
            p_pair(r.p_wilcoxon, r.p_wilcoxon_holm),
            signed(r.urisk[0]),
            signed(r.urisk[1]),
            signed(r.trisk[0]),
            signed(r.trisk[1]),
            geo(i),
            geo(setting.baseline),
        );
    }
    s.push_str(
        "</table>\n</div>\n<p class=\"note\">Randomisation: paired sign-flip test (every pattern \
         up to 16 topics, else seeded draws); Wilcoxon: signed-rank test as scipy.stats.wilcoxon; \
         Holm over the sweep's settings. URisk: mean per-topic difference from the unfiltered run \
         with losses weighted 1+α (below 0: the filter hurts more than it helps); TRisk: URisk \
         over its standard error (below −2: a significant risk). GeoRisk: among the settings \
         sharing the unfiltered run, higher is better. Every measure's values are in \
         sweep.tsv.</p>\n",
    );
}
