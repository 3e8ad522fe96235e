//! `sweep.tsv` and the terminal summary of a sweep.
//!
//! # `sweep.tsv`
//!
//! One header line, then one row per setting, in the order of
//! [`super::Plan::settings`] (each baseline before its filters). Columns:
//!
//! | column | value |
//! |---|---|
//! | `setting` | the run tag ([`super`] module docs) |
//! | `baseline` | the tag of the unfiltered setting it is compared with (its own tag for a baseline) |
//! | `model` | `bm25` or `qld` |
//! | `k1`, `b` | BM25 parameters (`NA` for QLD) |
//! | `mu` | the Dirichlet prior of QLD (`NA` for BM25) |
//! | `feedback` | the feedback setting's label, as in the tag ([`crate::feedback::Feedback::label`], `rm3_t10_d10_w0.5`), or `none` |
//! | one per rule of the sweep (`spam`, `invalid_4_5_6`, ...) | the setting's threshold for that rule, `NA` when the rule does not filter it |
//! | `kept` | live documents the setting keeps |
//! | `kept_fraction` | `kept` over the index's live documents |
//! | `num_q` | topics evaluated (module docs of [`super`]) |
//! | `rel_removed` | judgements of grade `>= 1` of the evaluated topics whose document the index holds and the filter removes ([`crate::judged`]; 0 for a baseline) |
//! | `rel_removed_share` | `rel_removed` over the judged relevant documents the index holds (`NA` when it holds none) |
//! | `nonrel_removed` | the same for grade `<= 0` (judged non-relevant, and negative grades) |
//! | `removed_grade_G`, one per grade `G` of the evaluated judgements, ascending | judgements of grade `G` removed |
//! | `rel_removed_top10`, `rel_removed_topN` (`N` the run depth) | relevant documents among the first 10 (`N`) of the baseline's ranking for the topic that the filter removes, summed over topics |
//! | `judged_not_in_index`, `rel_not_in_index` | judgements (of grade `>= 1`) whose document the index does not hold: no filter removes them, so they are not counted above; the same on every row |
//! | per count measure (`num_ret`, `num_rel`, `num_rel_ret`) | its sum over topics, as `eval` prints it |
//! | per other measure `M` | `M` (the mean, as `eval` prints it), `M_diff` (mean per-topic difference from the baseline), `M_ci_low`, `M_ci_high` (its 95% confidence interval), `M_p` (paired two-sided t-test), `M_p_holm` (Holm-corrected over the sweep's filtered settings), `M_wins`, `M_losses`, `M_ties` (topics better, worse, equal), `M_p_rand`, `M_p_rand_holm` (paired randomisation test, [`crate::robust`]), `M_p_wilcoxon`, `M_p_wilcoxon_holm` (Wilcoxon signed-rank test), `M_boot_ci_low`, `M_boot_ci_high` (95% bootstrap interval of the mean difference), `M_urisk1`, `M_urisk5`, `M_trisk1`, `M_trisk5` (URisk and TRisk at alpha 1 and 5 against the baseline, [`crate::risk`]), then `M_georisk1`, `M_georisk5` (GeoRisk among the settings sharing the baseline, the baseline's row included) |
//! | with `--judged-only`, then per measure `M` but the judged share | the same columns of the evaluation with trec_eval `-J` (each run without its unjudged documents), named `M_J`, `M_J_diff`, ..., `M_J_ties` (`num_ret_J` for a count); the Holm family of `M_J_p_holm` is `M_J` over the filtered settings |
//!
//! The judged share `judged_10` / `judged_20` (in the default measures)
//! says how much of each setting's top 10 / 20 is judged: when a filter
//! deepens the ranking into unjudged documents, its `P_10` falls partly
//! because unjudged documents count as non-relevant, and `P_10_J`
//! (`--judged-only`) shows the difference without them.
//!
//! Numbers are written in Rust's shortest round-trip form (full
//! precision); `NA` marks a value that does not exist (the comparison
//! columns of a baseline, a statistic of fewer than two topics, a p-value
//! of identical runs).

use std::fmt::Write as _;

use super::{Outcome, Table, Test};
use crate::eval::Measure;

/// The suffixes of a non-count measure's comparison columns, after the
/// mean (`NA` on a baseline's row).
pub const STAT_COLUMNS: [&str; 18] = [
    "diff",
    "ci_low",
    "ci_high",
    "p",
    "p_holm",
    "wins",
    "losses",
    "ties",
    "p_rand",
    "p_rand_holm",
    "p_wilcoxon",
    "p_wilcoxon_holm",
    "boot_ci_low",
    "boot_ci_high",
    "urisk1",
    "urisk5",
    "trisk1",
    "trisk5",
];

/// The suffixes of a non-count measure's GeoRisk columns, after the
/// comparison columns (on every row).
pub const GEORISK_COLUMNS: [&str; 2] = ["georisk1", "georisk5"];

fn num(x: f64) -> String {
    if x.is_nan() {
        "NA".into()
    } else {
        format!("{x}")
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "NA".into(), num)
}

/// The header of `sweep.tsv`, with the `-J` columns of `judged`.
pub fn header(outcome: &Outcome, measures: &[Measure], judged: Option<&Table>) -> Vec<String> {
    let mut h: Vec<String> = ["setting", "baseline", "model", "k1", "b", "mu", "feedback"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    h.extend(outcome.rules.iter().map(|r| r.key().to_string()));
    h.extend(
        ["kept", "kept_fraction", "num_q"]
            .iter()
            .map(|s| s.to_string()),
    );
    h.extend(judged_header(outcome));
    measure_header(&mut h, measures, "");
    if let Some(j) = judged {
        measure_header(&mut h, &j.measures, "_J");
    }
    h
}

/// The columns of `measures`, each name followed by `suffix`.
fn measure_header(h: &mut Vec<String>, measures: &[Measure], suffix: &str) {
    for m in measures {
        let name = format!("{}{suffix}", m.name());
        if !m.is_count() {
            h.push(name.clone());
            let cols = STAT_COLUMNS.iter().chain(&GEORISK_COLUMNS);
            h.extend(cols.map(|c| format!("{name}_{c}")));
        } else {
            h.push(name);
        }
    }
}

/// The `model`, `k1`, `b` and `mu` columns of a setting (`NA` where the
/// model has no such parameter), then `feedback`.
fn model_columns(setting: &super::Setting) -> [String; 5] {
    let feedback = setting
        .feedback
        .as_ref()
        .map_or_else(|| "none".to_string(), |f| f.label());
    match setting.qld {
        Some(q) => [
            "qld".into(),
            "NA".into(),
            "NA".into(),
            format!("{}", q.mu),
            feedback,
        ],
        None => [
            "bm25".into(),
            format!("{}", setting.params.k1),
            format!("{}", setting.params.b),
            "NA".into(),
            feedback,
        ],
    }
}

/// `sweep.tsv` (module docs).
pub fn to_tsv(outcome: &Outcome, table: &Table) -> String {
    let judged = table.judged_only.as_deref();
    let mut s = header(outcome, &table.measures, judged).join("\t");
    s.push('\n');
    for (i, setting) in outcome.settings.iter().enumerate() {
        let mut row: Vec<String> = vec![
            setting.tag.clone(),
            outcome.settings[setting.baseline].tag.clone(),
        ];
        row.extend(model_columns(setting));
        for rule in &outcome.rules {
            row.push(
                setting
                    .conditions
                    .iter()
                    .find(|(r, _)| r == rule)
                    .map_or_else(|| "NA".into(), |(r, x)| r.value_text(*x)),
            );
        }
        row.push(outcome.kept[i].to_string());
        row.push(num(if outcome.total_docs == 0 {
            f64::NAN
        } else {
            outcome.kept[i] as f64 / outcome.total_docs as f64
        }));
        row.push(outcome.evals[i].num_q().to_string());
        row.extend(judged_cells(outcome, i));
        measure_cells(&mut row, table, i);
        if let Some(j) = judged {
            measure_cells(&mut row, j, i);
        }
        s.push_str(&row.join("\t"));
        s.push('\n');
    }
    s
}

/// The cells of setting `i` for every measure of `table`.
fn measure_cells(row: &mut Vec<String>, table: &Table, i: usize) {
    for (j, m) in table.measures.iter().enumerate() {
        let mean = table.means[i][j];
        row.push(if m.is_count() {
            format!("{}", mean as u64)
        } else {
            num(mean)
        });
        if m.is_count() {
            continue;
        }
        match &table.versus[i][j] {
            None => row.extend(STAT_COLUMNS.iter().map(|_| "NA".to_string())),
            Some(v) => row.extend(versus_cells(v)),
        }
        row.extend(table.georisk[i][j].iter().map(|g| opt(*g)));
    }
}

/// The comparison cells of one measure of a filtered setting, in the
/// order of [`STAT_COLUMNS`].
fn versus_cells(v: &super::Versus) -> Vec<String> {
    let (p, r) = (&v.paired, &v.robust);
    vec![
        num(p.mean),
        opt(p.ci.map(|c| c.0)),
        opt(p.ci.map(|c| c.1)),
        opt(p.p),
        opt(v.p_holm),
        p.wins.to_string(),
        p.losses.to_string(),
        p.ties.to_string(),
        opt(r.p_rand),
        opt(r.p_rand_holm),
        opt(r.p_wilcoxon),
        opt(r.p_wilcoxon_holm),
        opt(r.boot_ci.map(|c| c.0)),
        opt(r.boot_ci.map(|c| c.1)),
        opt(r.urisk[0]),
        opt(r.urisk[1]),
        opt(r.trisk[0]),
        opt(r.trisk[1]),
    ]
}

/// The grades of the evaluated judgements, ascending.
fn grades(outcome: &Outcome) -> Vec<i64> {
    let j = &outcome.judgements;
    let mut g: Vec<i64> = j
        .present
        .by_grade
        .keys()
        .chain(j.absent.by_grade.keys())
        .copied()
        .collect();
    g.sort_unstable();
    g.dedup();
    g
}

/// The judged-loss columns' names (module docs).
fn judged_header(outcome: &Outcome) -> Vec<String> {
    let mut h = vec![
        "rel_removed".to_string(),
        "rel_removed_share".into(),
        "nonrel_removed".into(),
    ];
    h.extend(grades(outcome).iter().map(|g| format!("removed_grade_{g}")));
    h.push(format!("rel_removed_top{}", crate::judged::TOP_K));
    h.push(format!("rel_removed_top{}", outcome.depth));
    h.extend(["judged_not_in_index".to_string(), "rel_not_in_index".into()]);
    h
}

/// Setting `i`'s judged-loss cells (zeros for a baseline).
fn judged_cells(outcome: &Outcome, i: usize) -> Vec<String> {
    let none = crate::judged::Loss {
        relevant_in_index: outcome.judgements.present.relevant(),
        ..Default::default()
    };
    let loss = outcome
        .losses
        .get(i)
        .and_then(Option::as_ref)
        .unwrap_or(&none);
    let mut c = vec![
        loss.removed.relevant().to_string(),
        num(loss.relevant_share()),
        loss.removed.nonrelevant().to_string(),
    ];
    c.extend(grades(outcome).iter().map(|g| {
        loss.removed
            .by_grade
            .get(g)
            .copied()
            .unwrap_or(0)
            .to_string()
    }));
    c.push(loss.top10.to_string());
    c.push(loss.top_depth.to_string());
    let absent = &outcome.judgements.absent;
    c.extend([absent.total().to_string(), absent.relevant().to_string()]);
    c
}

/// The width of the setting column: the longest tag, at least 7.
fn tag_width(outcome: &Outcome) -> usize {
    outcome
        .settings
        .iter()
        .map(|x| x.tag.chars().count())
        .max()
        .unwrap_or(7)
        .max(7)
}

/// 4 decimals with a sign; `-` for none.
fn signed(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:+.4}"))
}

/// A p-value in 4 decimals, or scientific below 1e-4; `-` for none.
pub fn p_text(p: Option<f64>) -> String {
    match p {
        None => "-".into(),
        Some(v) if v != 0.0 && v < 1e-4 => format!("{v:.1e}"),
        Some(v) => format!("{v:.4}"),
    }
}

/// The terminal summary: per setting, documents kept, then for measure
/// `table.measures[j]` the mean, the difference with its interval, the
/// Holm-corrected p-value of `test` and wins/losses/ties, and a legend
/// naming the test.
pub fn to_text(outcome: &Outcome, table: &Table, j: usize, test: Test) -> String {
    let m = table.measures[j];
    let mut s = String::new();
    let width = tag_width(outcome);
    let _ = writeln!(
        s,
        "{:<width$} {:>7} {:>8} {:>8} {:>19} {:>9} {:>11}",
        "setting",
        "kept%",
        m.name(),
        "diff",
        "95% CI",
        "p (Holm)",
        "win/loss/tie"
    );
    for (i, setting) in outcome.settings.iter().enumerate() {
        let kept = if outcome.total_docs == 0 {
            0.0
        } else {
            100.0 * outcome.kept[i] as f64 / outcome.total_docs as f64
        };
        let mean = table.means[i][j];
        let (diff, ci, p, wlt) = match &table.versus[i][j] {
            Some(v) => (
                signed(Some(v.paired.mean)),
                v.paired.ci.map_or_else(
                    || "-".to_string(),
                    |(lo, hi)| format!("[{lo:+.4}, {hi:+.4}]"),
                ),
                p_text(v.p_holm_of(test)),
                format!("{}/{}/{}", v.paired.wins, v.paired.losses, v.paired.ties),
            ),
            None => ("base".into(), String::new(), String::new(), String::new()),
        };
        let _ = writeln!(
            s,
            "{:<width$} {:>7.2} {:>8.4} {:>8} {:>19} {:>9} {:>11}",
            setting.tag, kept, mean, diff, ci, p, wlt
        );
    }
    let _ = writeln!(
        s,
        "(kept%: documents the filter keeps; diff: mean per-topic difference from the unfiltered\n \
         run of the same model setting{}; 95% CI of that difference; p: {}, Holm-corrected\n \
         over the sweep, - when undefined; win/loss/tie: topics better/worse/equal than unfiltered)",
        if outcome.has_feedback() {
            " and feedback setting"
        } else {
            ""
        },
        test_name(test)
    );
    s
}

/// How the summary names `test`.
pub fn test_name(test: Test) -> &'static str {
    match test {
        Test::T => "paired two-sided t-test",
        Test::Randomisation => "paired two-sided randomisation test",
        Test::Wilcoxon => "Wilcoxon signed-rank test (as scipy.stats.wilcoxon)",
    }
}

/// The terminal summary's judged loss: per filtered setting, the judged
/// relevant documents removed (and their share of those the index holds),
/// the judged non-relevant ones, and the relevant ones of the baseline's
/// first 10 and first `depth` removed; then the judgements of documents
/// the index does not hold.
pub fn judged_text(outcome: &Outcome) -> String {
    let j = &outcome.judgements;
    let mut s = String::new();
    let width = tag_width(outcome);
    let _ = writeln!(
        s,
        "judged documents each filter removes ({} judged relevant documents of the evaluated topics are in the index):",
        j.present.relevant()
    );
    let top_depth = format!("rel top{}", outcome.depth);
    let _ = writeln!(
        s,
        "{:<width$} {:>11} {:>7} {:>14} {:>10} {:>12}",
        "setting", "rel removed", "share", "nonrel removed", "rel top10", top_depth
    );
    for (setting, loss) in outcome.settings.iter().zip(&outcome.losses) {
        let Some(l) = loss else { continue };
        let share = l.relevant_share();
        let share = if share.is_nan() {
            "-".to_string()
        } else {
            format!("{:.2}%", 100.0 * share)
        };
        let _ = writeln!(
            s,
            "{:<width$} {:>11} {:>7} {:>14} {:>10} {:>12}",
            setting.tag,
            l.removed.relevant(),
            share,
            l.removed.nonrelevant(),
            l.top10,
            l.top_depth
        );
    }
    let _ = writeln!(
        s,
        "(rel top10/top{}: relevant documents of the unfiltered run's first 10/{} that the filter removes;\n \
         {} judgements ({} relevant) name documents the index does not hold: not counted as removed)",
        outcome.depth,
        outcome.depth,
        j.absent.total(),
        j.absent.relevant()
    );
    s
}
