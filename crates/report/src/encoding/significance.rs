//! The two significance tests of the report: Welch's t-test and the
//! Mann–Whitney U test, both over histograms of spam percentiles.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

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
pub(super) fn moments(h: &[u64]) -> (f64, f64, f64) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::tally::PERCENTILES;

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
}
