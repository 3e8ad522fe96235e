//! Paired statistics over per-topic differences `d = B − A`: the mean
//! difference with its confidence interval, the paired two-sided Student
//! t-test, wins/losses/ties, and Holm's correction of a family of p-values.
//!
//! Exact semantics (each matches `scipy.stats.ttest_rel(B, A)` and its
//! `confidence_interval()`, tested against scipy 1.17):
//!
//! * `n` differences, mean `m`, sample variance `s² = Σ(d − m)² / (n − 1)`
//!   (two passes, as numpy), standard error `se = √(s² / n)`.
//! * `t = m / se` with `n − 1` degrees of freedom; `p = 2 · P(T > |t|)`.
//! * The `level` confidence interval is `m ± q · se`, `q` the
//!   `(1 + level) / 2` quantile of Student's t with `n − 1` degrees of
//!   freedom.
//! * Fewer than two differences: no t, no p, no interval (scipy: NaN).
//! * Every difference equal (`s² = 0`): the interval is `[m, m]`; when
//!   `m = 0` (identical runs, all-zero differences) t and p are undefined
//!   (`None`; scipy: NaN), otherwise `t = ±∞` and `p = 0` (scipy too).
//!
//! [`holm`] is Holm's step-down correction (Holm 1979), as statsmodels'
//! `multipletests(method="holm")`: with the `m` defined p-values sorted
//! ascending, `p̃(i) = max_{j ≤ i} min(1, (m − j + 1) · p(j))`. Undefined
//! p-values (`None`) are not members of the family and stay `None`.

use serde::Serialize;
use statrs::distribution::{Continuous, ContinuousCDF, StudentsT};

/// The confidence level of every interval sieve prints.
pub const CONFIDENCE: f64 = 0.95;

/// The significance level for "significant" markers (Holm-corrected).
pub const ALPHA: f64 = 0.05;

/// Paired statistics of one set of differences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paired {
    /// Number of differences (topics).
    pub n: usize,
    /// Mean difference (0 when `n = 0`).
    pub mean: f64,
    /// The [`CONFIDENCE`] interval of the mean difference (`None` when
    /// `n < 2`).
    pub ci: Option<(f64, f64)>,
    /// The t statistic (`None` when undefined; see the module docs).
    pub t: Option<f64>,
    /// Its two-sided p-value.
    pub p: Option<f64>,
    /// Differences `> 0`.
    pub wins: usize,
    /// Differences `< 0`.
    pub losses: usize,
    /// Differences `= 0`.
    pub ties: usize,
}

/// Mean and sample variance (two passes); variance `NaN` for `n < 2`.
fn moments(d: &[f64]) -> (f64, f64) {
    let n = d.len() as f64;
    if d.is_empty() {
        return (0.0, f64::NAN);
    }
    let mean = d.iter().sum::<f64>() / n;
    if d.len() < 2 {
        return (mean, f64::NAN);
    }
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// Paired two-sided t-test on the differences `d`: `(t, p)`, or `None`
/// when undefined (fewer than two differences, or every difference 0).
pub fn paired_t_test(d: &[f64]) -> Option<(f64, f64)> {
    let (mean, var) = moments(d);
    if d.len() < 2 || !var.is_finite() || !mean.is_finite() {
        return None;
    }
    if var <= 0.0 {
        return (mean != 0.0).then(|| (f64::INFINITY.copysign(mean), 0.0));
    }
    let nf = d.len() as f64;
    let t = mean / (var / nf).sqrt();
    let dist = StudentsT::new(0.0, 1.0, nf - 1.0).ok()?;
    let p = (2.0 * dist.sf(t.abs())).min(1.0);
    Some((t, p))
}

/// The `prob` quantile of Student's t with `df` degrees of freedom:
/// statrs' inverse, polished by Newton steps on its CDF (to about 1e-13
/// relative, which statrs' inverse alone does not reach).
pub fn t_quantile(prob: f64, df: f64) -> Option<f64> {
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    let mut x = dist.inverse_cdf(prob);
    for _ in 0..8 {
        let f = dist.cdf(x) - prob;
        let dens = dist.pdf(x);
        if dens.is_nan() || dens <= 0.0 || !x.is_finite() {
            break;
        }
        let step = f / dens;
        x -= step;
        if step.abs() <= 1e-15 * x.abs().max(1.0) {
            break;
        }
    }
    x.is_finite().then_some(x)
}

/// The `level` confidence interval of the mean of `d` (`None` when
/// `d.len() < 2`).
pub fn confidence_interval(d: &[f64], level: f64) -> Option<(f64, f64)> {
    let (mean, var) = moments(d);
    if d.len() < 2 || !var.is_finite() {
        return None;
    }
    if var <= 0.0 {
        return Some((mean, mean));
    }
    let nf = d.len() as f64;
    let q = t_quantile((1.0 + level) / 2.0, nf - 1.0)?;
    let half = q * (var / nf).sqrt();
    Some((mean - half, mean + half))
}

/// Every statistic of the module for the differences `d`.
pub fn paired(d: &[f64]) -> Paired {
    let (mean, _) = moments(d);
    let tt = paired_t_test(d);
    let wins = d.iter().filter(|&&x| x > 0.0).count();
    let losses = d.iter().filter(|&&x| x < 0.0).count();
    Paired {
        n: d.len(),
        mean,
        ci: confidence_interval(d, CONFIDENCE),
        t: tt.map(|x| x.0),
        p: tt.map(|x| x.1),
        wins,
        losses,
        ties: d.len() - wins - losses,
    }
}

/// Holm-corrected p-values, in the order of `p` (see the module docs).
pub fn holm(p: &[Option<f64>]) -> Vec<Option<f64>> {
    let mut order: Vec<usize> = (0..p.len())
        .filter(|&i| p[i].is_some_and(|x| !x.is_nan()))
        .collect();
    order.sort_by(|&a, &b| p[a].unwrap_or(1.0).total_cmp(&p[b].unwrap_or(1.0)));
    let m = order.len();
    let mut out = vec![None; p.len()];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        let adj = ((m - rank) as f64 * p[i].unwrap_or(1.0)).min(1.0);
        running = running.max(adj);
        out[i] = Some(running);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_test_matches_scipy() {
        // scipy.stats.ttest_rel([2,2,5,7], [1,2,3,4]) (scipy 1.17.1, .venv):
        // t = 2.32379000772445, p = 0.10272807885839899
        let d = [1.0, 0.0, 2.0, 3.0];
        let (t, p) = paired_t_test(&d).unwrap();
        assert!((t - 2.32379000772445).abs() < 1e-12, "{t}");
        assert!((p - 0.10272807885839899).abs() < 1e-9, "{p}");
        // hand-computed: mean 0.4, s^2 = 1.8, t = 0.4 / sqrt(0.36)
        let (t, _) = paired_t_test(&[1.0, -1.0, 1.0, -1.0, 2.0]).unwrap();
        assert!((t - 0.4 / 0.36f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn degenerate_inputs_follow_scipy() {
        // one topic: everything undefined
        let one = paired(&[0.3]);
        assert_eq!((one.n, one.t, one.p, one.ci), (1, None, None, None));
        assert_eq!((one.wins, one.losses, one.ties), (1, 0, 0));
        // identical runs: t and p undefined, interval [0, 0]
        let zero = paired(&[0.0; 5]);
        assert_eq!((zero.t, zero.p, zero.ci), (None, None, Some((0.0, 0.0))));
        assert_eq!(zero.ties, 5);
        // a constant non-zero difference: t infinite, p 0, interval [c, c]
        let c = paired(&[0.5, 0.5, 0.5]);
        assert_eq!(
            (c.t, c.p, c.ci),
            (Some(f64::INFINITY), Some(0.0), Some((0.5, 0.5)))
        );
        let c = paired(&[-0.25, -0.25]);
        assert_eq!((c.t, c.p), (Some(f64::NEG_INFINITY), Some(0.0)));
        assert_eq!(paired(&[]).n, 0);
        assert_eq!(paired(&[]).mean, 0.0);
    }

    #[test]
    fn t_quantiles_are_exact() {
        // scipy.stats.t.ppf(0.975, df)
        for (df, q) in [
            (1.0, 12.706204736174694),
            (2.0, 4.302652729749462),
            (9.0, 2.262157162798205),
            (49.0, 2.0095752371292392),
            (199.0, 1.9719565442517533),
        ] {
            let x = t_quantile(0.975, df).unwrap();
            assert!((x - q).abs() < 1e-12 * q, "df {df}: {x} vs {q}");
        }
    }

    #[test]
    fn holm_by_hand() {
        // sorted 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.06, 0.06, 0.5
        let p = [Some(0.03), Some(0.01), None, Some(0.5), Some(0.02)];
        let h = holm(&p);
        let want = [Some(0.06), Some(0.04), None, Some(0.5), Some(0.06)];
        for (h, w) in h.iter().zip(want) {
            match (h, w) {
                (Some(h), Some(w)) => assert!((h - w).abs() < 1e-15, "{h} {w}"),
                _ => assert_eq!(*h, w),
            }
        }
        assert_eq!(holm(&[Some(0.9), Some(0.8)]), [Some(1.0), Some(1.0)]);
        assert_eq!(holm(&[]), Vec::<Option<f64>>::new());
        assert_eq!(holm(&[None, Some(0.01)]), [None, Some(0.01)]);
        // equal p-values: the same corrected value
        assert_eq!(holm(&[Some(0.01), Some(0.01)]), [Some(0.02), Some(0.02)]);
    }
}
