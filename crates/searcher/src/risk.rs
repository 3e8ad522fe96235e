//! Risk-sensitive evaluation: does a setting that helps on average badly
//! hurt some topics?
//!
//! Exact semantics, over per-topic values (every setting evaluated over
//! the same topics, [`crate::sweep`]):
//!
//! * **URisk** (TREC 2013–2014 Web Track, Collins-Thompson et al.) of a
//!   run against its baseline, with the per-topic differences
//!   `Δ = run − baseline` over `c` topics:
//!   `URisk_α = (1/c) · (Σ_{Δ>0} Δ − (1 + α) · Σ_{Δ<0} |Δ|)`, the mean of
//!   the risk-adjusted differences `r = Δ` (a gain) or `(1 + α)·Δ` (a
//!   loss). Higher is better; `α` weighs losses (1 and 5 are the Web
//!   Track's). No topic: `None`.
//! * **TRisk** (Dinçer, Macdonald and Ounis, SIGIR 2014):
//!   `URisk_α / SE`, `SE = s_r / √c` with `s_r` the sample standard
//!   deviation (`c − 1`) of the risk-adjusted differences: the paired
//!   t statistic of `r`, so `|TRisk| > 2` is a significant risk (or
//!   reward). Fewer than two topics, or `s_r = 0`: `None`.
//! * **GeoRisk** (Dinçer, Macdonald and Ounis, SIGIR 2016) of each of a
//!   set of runs (the columns of a topics × runs matrix `x` of values
//!   `>= 0`): with run total `S_i`, topic total `T_j` and grand total `N`,
//!   the expected value `e_ij = S_i · T_j / N`, `z_ij = (x_ij − e_ij) /
//!   √e_ij` (0 when `e_ij = 0`), `ZRisk_i = Σ_j z_ij` with each negative
//!   `z_ij` weighted `(1 + α)`, and `GeoRisk_i = √(S_i / c · Φ(ZRisk_i /
//!   c))`, `Φ` the standard normal distribution function. It rewards a
//!   high mean and penalises topics where the run falls below what its
//!   share of the totals predicts. A matrix with no topic or a zero grand
//!   total: `None` for every run.

use statrs::distribution::{ContinuousCDF, Normal};

/// The `α` values reported (the Web Track's).
pub const ALPHAS: [f64; 2] = [1.0, 5.0];

/// The risk-adjusted differences `r` of `d` (module docs).
fn adjusted(d: &[f64], alpha: f64) -> impl Iterator<Item = f64> + '_ {
    d.iter()
        .map(move |&x| if x < 0.0 { (1.0 + alpha) * x } else { x })
}

/// `URisk_α` of the differences `d` (module docs).
pub fn urisk(d: &[f64], alpha: f64) -> Option<f64> {
    if d.is_empty() {
        return None;
    }
    Some(adjusted(d, alpha).sum::<f64>() / d.len() as f64)
}

/// `TRisk_α` of the differences `d` (module docs).
pub fn trisk(d: &[f64], alpha: f64) -> Option<f64> {
    let c = d.len();
    if c < 2 {
        return None;
    }
    let u = urisk(d, alpha)?;
    let var = adjusted(d, alpha).map(|r| (r - u).powi(2)).sum::<f64>() / (c - 1) as f64;
    (var > 0.0).then(|| u / (var / c as f64).sqrt())
}

/// `GeoRisk_α` of every run of `x` (`x[run][topic]`, every run over the
/// same topics; module docs).
pub fn georisk(x: &[Vec<f64>], alpha: f64) -> Vec<Option<f64>> {
    let c = x.first().map_or(0, Vec::len);
    let s: Vec<f64> = x.iter().map(|run| run.iter().sum()).collect();
    let total: f64 = s.iter().sum();
    if c == 0 || total <= 0.0 || x.iter().any(|run| run.len() != c) {
        return vec![None; x.len()];
    }
    let t: Vec<f64> = (0..c).map(|j| x.iter().map(|run| run[j]).sum()).collect();
    let Ok(normal) = Normal::new(0.0, 1.0) else {
        return vec![None; x.len()];
    };
    x.iter()
        .zip(&s)
        .map(|(run, &si)| {
            let zrisk: f64 = run
                .iter()
                .zip(&t)
                .map(|(&xij, &tj)| {
                    let e = si * tj / total;
                    let z = if e > 0.0 { (xij - e) / e.sqrt() } else { 0.0 };
                    if z < 0.0 { (1.0 + alpha) * z } else { z }
                })
                .sum();
            Some((si / c as f64 * normal.cdf(zrisk / c as f64)).sqrt())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urisk_weighs_losses_and_trisk_is_its_t_statistic() {
        let d = [0.2, -0.1, 0.0, 0.3];
        // (0.2 - 2 * 0.1 + 0 + 0.3) / 4 with alpha 1
        assert!((urisk(&d, 1.0).unwrap() - 0.075).abs() < 1e-15);
        assert!((urisk(&d, 5.0).unwrap() - (0.2 - 0.6 + 0.3) / 4.0).abs() < 1e-15);
        let r = [0.2, -0.2, 0.0, 0.3];
        let t = crate::paired::paired_t_test(&r).unwrap().0;
        assert!((trisk(&d, 1.0).unwrap() - t).abs() < 1e-12);
        assert_eq!(urisk(&[], 1.0), None);
        assert_eq!(trisk(&[0.1], 1.0), None);
        assert_eq!(trisk(&[0.1, 0.1], 1.0), None, "no spread");
    }

    #[test]
    fn georisk_of_equal_runs_is_the_root_of_half_the_mean() {
        // equal runs: every z is 0, Phi(0) = 1/2
        let x = vec![vec![0.2, 0.4], vec![0.2, 0.4]];
        for g in georisk(&x, 5.0) {
            assert!((g.unwrap() - (0.3f64 * 0.5).sqrt()).abs() < 1e-15);
        }
        assert_eq!(georisk(&[vec![0.0, 0.0]], 1.0), vec![None]);
    }
}
