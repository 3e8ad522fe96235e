//! Tests of paired per-topic differences `d = B − A` with fewer
//! assumptions than the t-test ([`crate::paired`]): the paired
//! randomisation (sign-flip permutation) test, the Wilcoxon signed-rank
//! test, and a bootstrap confidence interval of the mean difference.
//!
//! Exact semantics:
//!
//! * **Randomisation test** ([`randomisation`]), two-sided, statistic
//!   `|Σ d|` (the mean's, `n` being fixed). With `n <=` [`EXACT_UP_TO`]
//!   every one of the `2^n` sign patterns is enumerated and
//!   `p = #{patterns with |Σ s·d| >= |Σ d| − tol} / 2^n` (the observed
//!   pattern is one of them). Otherwise `permutations` sign patterns are
//!   drawn from [`SplitMix64`] seeded with `seed`, and
//!   `p = (1 + #{drawn patterns with |Σ s·d| >= |Σ d| − tol}) /
//!   (permutations + 1)` (the observed statistic counted once, Smucker,
//!   Allan and Carterette's recommendation). A pattern is drawn as
//!   `⌈n / 64⌉` consecutive outputs of the generator; bit `j` (least
//!   significant first) of output `k` gives topic `64k + j` the sign `−`
//!   when set. `tol = 1e-12 · Σ|d|` absorbs the rounding of sums taken in
//!   another order. No difference: undefined (`None`); every difference 0:
//!   `p = 1`.
//! * **Wilcoxon signed-rank test** ([`wilcoxon`]), as
//!   `scipy.stats.wilcoxon(d)` with its defaults in scipy 1.17
//!   (`zero_method="wilcox"`: zero differences are dropped before ranking;
//!   `correction=False`; `method="auto"`; two-sided), checked against it:
//!   the absolute non-zero differences get average ranks; `R+` is the sum
//!   of the ranks of the positive ones. With more than 50 differences
//!   (zeros included), the normal approximation: `z = (R+ − m) / s` with
//!   `m = c(c+1)/4`, `s² = (c(c+1)(2c+1) − Σ(t³ − t)/2) / 24` (`c` the
//!   non-zero differences, `t` the size of each group of tied absolute
//!   values), `p = 2·P(Z > |z|)`. With at most 50, no zero and no tie: the
//!   exact null distribution of `R+` over `c`,
//!   `p = min(1, 2·min(P(R+ >= r), P(R+ <= r)))`. With at most 13 and a
//!   zero or a tie: every one of the `2^n` sign patterns (zeros included,
//!   as scipy's permutation test enumerates them),
//!   `p = min(1, 2·min(#{R+* <= r}, #{R+* >= r}) / 2^n)`. Otherwise (zeros
//!   or ties, 14 to 50 differences) the normal approximation. No
//!   difference, or every difference 0 beyond 13 of them: undefined
//!   (`None`; scipy: NaN); every difference 0, at most 13: `p = 1`.
//! * **Bootstrap interval** ([`bootstrap_ci`]): `resamples` resamples of
//!   the `n` differences drawn with replacement from [`SplitMix64`] seeded
//!   with `seed` (index `⌊u · n / 2^64⌋` for each output `u`, resample
//!   after resample), the mean of each, and the 2.5% and 97.5% quantiles
//!   of those means with numpy's default (linear) interpolation: for
//!   sorted means `v` and level `q`, `h = (resamples − 1)·q`,
//!   `v[⌊h⌋] + (h − ⌊h⌋)·(v[⌊h⌋ + 1] − v[⌊h⌋])`. Fewer than two
//!   differences: `None`.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

use crate::risk::{ALPHAS, trisk, urisk};

/// The most differences for which the randomisation test enumerates every
/// sign pattern (65,536 patterns) instead of drawing them.
pub const EXACT_UP_TO: usize = 16;

/// Default number of drawn sign patterns of the randomisation test.
pub const DEFAULT_RESAMPLES: usize = 10_000;

/// Default number of bootstrap resamples (Efron and Tibshirani's advice
/// for percentile intervals is at least 1,000).
pub const DEFAULT_BOOTSTRAP: usize = 2_000;

/// Default seed of the generator.
pub const DEFAULT_SEED: u64 = 20_130_101;

/// How the resampling statistics are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resampling {
    /// Sign patterns drawn by the randomisation test (beyond
    /// [`EXACT_UP_TO`] topics).
    pub permutations: usize,
    /// Bootstrap resamples.
    pub bootstrap: usize,
    /// The generator's seed (the same for every comparison, so each is
    /// reproducible alone).
    pub seed: u64,
}

impl Default for Resampling {
    fn default() -> Self {
        Resampling {
            permutations: DEFAULT_RESAMPLES,
            bootstrap: DEFAULT_BOOTSTRAP,
            seed: DEFAULT_SEED,
        }
    }
}

/// The robust tests and the risk measures ([`crate::risk`]) of one set of
/// differences (one measure of B against A).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Robust {
    /// The paired randomisation test's p-value.
    pub p_rand: Option<f64>,
    /// Holm-corrected over a sweep's settings (`None` outside a sweep).
    pub p_rand_holm: Option<f64>,
    /// The Wilcoxon signed-rank test's p-value.
    pub p_wilcoxon: Option<f64>,
    /// Holm-corrected over a sweep's settings (`None` outside a sweep).
    pub p_wilcoxon_holm: Option<f64>,
    /// The 95% bootstrap interval of the mean difference.
    pub boot_ci: Option<(f64, f64)>,
    /// URisk at each of [`ALPHAS`].
    pub urisk: [Option<f64>; 2],
    /// TRisk at each of [`ALPHAS`].
    pub trisk: [Option<f64>; 2],
}

impl Robust {
    /// Every statistic of the differences `d`, drawn as `draws` says (no
    /// Holm correction).
    pub fn of(d: &[f64], draws: Resampling) -> Robust {
        Robust {
            p_rand: randomisation(d, draws.permutations, draws.seed),
            p_rand_holm: None,
            p_wilcoxon: wilcoxon(d),
            p_wilcoxon_holm: None,
            boot_ci: bootstrap_ci(d, draws.bootstrap, draws.seed),
            urisk: ALPHAS.map(|a| urisk(d, a)),
            trisk: ALPHAS.map(|a| trisk(d, a)),
        }
    }
}

/// Vigna's SplitMix64: `state += 0x9E3779B97F4A7C15`, then the output is
/// `state` mixed by `z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27;
/// z *= 0x94D049BB133111EB; z ^= z >> 31` (wrapping arithmetic).
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next output.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An index in `0..n`: `⌊u · n / 2^64⌋` of the next output `u`.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// The two-sided paired randomisation test of `d` (module docs).
pub fn randomisation(d: &[f64], permutations: usize, seed: u64) -> Option<f64> {
    if d.is_empty() {
        return None;
    }
    let observed = d.iter().sum::<f64>().abs();
    let tol = 1e-12 * d.iter().map(|x| x.abs()).sum::<f64>();
    let at_least = |s: f64| s.abs() >= observed - tol;
    if d.len() <= EXACT_UP_TO {
        let patterns = 1u64 << d.len();
        let hits = (0..patterns)
            .filter(|&bits| at_least(signed_sum(d, &[bits])))
            .count();
        return Some(hits as f64 / patterns as f64);
    }
    let mut rng = SplitMix64::new(seed);
    let tables = ByteSums::new(d);
    let mut words = vec![0u64; d.len().div_ceil(64)];
    let mut hits = 0usize;
    for _ in 0..permutations {
        for w in &mut words {
            *w = rng.next();
        }
        hits += usize::from(at_least(tables.sum(&words)));
    }
    Some((hits + 1) as f64 / (permutations + 1) as f64)
}

/// `Σ s·d` of a sign pattern by table lookup: for each run of 8 topics,
/// the signed sum of each of the 256 sign patterns of its 8 bits, so a
/// pattern costs one lookup per 8 topics instead of 8 additions (the
/// tolerance of [`randomisation`] absorbs the other order of summation).
struct ByteSums {
    tables: Vec<[f64; 256]>,
}

impl ByteSums {
    fn new(d: &[f64]) -> ByteSums {
        let tables = d
            .chunks(8)
            .map(|chunk| {
                let mut t = [0.0; 256];
                for (bits, slot) in t.iter_mut().enumerate() {
                    *slot = signed_sum(chunk, &[bits as u64]);
                }
                t
            })
            .collect();
        ByteSums { tables }
    }

    /// The signed sum of the pattern `words` (bit `i % 64` of
    /// `words[i / 64]` for topic `i`).
    #[inline]
    fn sum(&self, words: &[u64]) -> f64 {
        self.tables
            .iter()
            .enumerate()
            .map(|(k, t)| t[((words[k / 8] >> (8 * (k % 8))) & 0xFF) as usize])
            .sum()
    }
}

/// `Σ s·d`, topic `i` negated when bit `i % 64` of `words[i / 64]` is set.
#[inline]
fn signed_sum(d: &[f64], words: &[u64]) -> f64 {
    let mut s = 0.0;
    for (chunk, &w) in d.chunks(64).zip(words) {
        for (j, &x) in chunk.iter().enumerate() {
            s += if (w >> j) & 1 == 1 { -x } else { x };
        }
    }
    s
}

/// The ranks of the non-zero `|d|` (average ranks for ties), in the
/// order of `d` (0 for a zero), and the sizes of the tie groups.
fn signed_ranks(d: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut order: Vec<usize> = (0..d.len()).filter(|&i| d[i] != 0.0).collect();
    order.sort_by(|&a, &b| d[a].abs().total_cmp(&d[b].abs()));
    let mut ranks = vec![0.0; d.len()];
    let mut groups = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && d[order[end]].abs() == d[order[start]].abs() {
            end += 1;
        }
        // ranks start + 1 ..= end, averaged
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        groups.push(end - start);
        start = end;
    }
    (ranks, groups)
}

/// `R+`: the sum of the ranks of the positive differences.
fn r_plus(d: &[f64], ranks: &[f64]) -> f64 {
    d.iter()
        .zip(ranks)
        .filter(|(x, _)| **x > 0.0)
        .map(|(_, r)| r)
        .sum()
}

/// The two-sided Wilcoxon signed-rank test of `d`, as scipy's (module
/// docs).
pub fn wilcoxon(d: &[f64]) -> Option<f64> {
    let n = d.len();
    if n == 0 {
        return None;
    }
    let (ranks, groups) = signed_ranks(d);
    let r = r_plus(d, &ranks);
    let zeros = d.contains(&0.0);
    let ties = groups.iter().any(|&t| t > 1);
    if n > 50 {
        return wilcoxon_normal(r, &groups);
    }
    if !zeros && !ties {
        return Some(wilcoxon_exact(r, n));
    }
    if n <= 13 {
        return Some(wilcoxon_enumerated(d, &ranks, r));
    }
    wilcoxon_normal(r, &groups)
}

/// The normal approximation of the signed-rank test (`None` when every
/// difference is 0).
fn wilcoxon_normal(r: f64, groups: &[usize]) -> Option<f64> {
    let c = groups.iter().sum::<usize>() as f64;
    let ties: f64 = groups.iter().map(|&t| (t as f64).powi(3) - t as f64).sum();
    let var = (c * (c + 1.0) * (2.0 * c + 1.0) - ties / 2.0) / 24.0;
    if var <= 0.0 {
        return None;
    }
    let z = (r - c * (c + 1.0) / 4.0) / var.sqrt();
    let normal = Normal::new(0.0, 1.0).ok()?;
    Some((2.0 * normal.sf(z.abs())).min(1.0))
}

/// The exact two-sided p-value of `R+ = r` over `n` untied non-zero
/// differences: the number of subsets of `1..=n` with each sum, over
/// `2^n`.
fn wilcoxon_exact(r: f64, n: usize) -> f64 {
    let max = n * (n + 1) / 2;
    let mut counts = vec![0f64; max + 1];
    counts[0] = 1.0;
    for k in 1..=n {
        for s in (k..=max).rev() {
            counts[s] += counts[s - k];
        }
    }
    let total = 2f64.powi(n as i32);
    let r = r as usize;
    let cdf: f64 = counts[..=r.min(max)].iter().sum::<f64>() / total;
    let sf: f64 = counts[r.min(max + 1)..].iter().sum::<f64>() / total;
    (2.0 * cdf.min(sf)).min(1.0)
}

/// The two-sided p-value of `R+ = r` over every sign pattern of `d`
/// (zeros included).
fn wilcoxon_enumerated(d: &[f64], ranks: &[f64], r: f64) -> f64 {
    let gamma = (f64::EPSILON * 100.0 * r).abs();
    let patterns = 1u64 << d.len();
    let (mut less, mut greater) = (0u64, 0u64);
    for bits in 0..patterns {
        let rp: f64 = (0..d.len())
            .filter(|&i| {
                let x = if (bits >> i) & 1 == 1 { -d[i] } else { d[i] };
                x > 0.0
            })
            .map(|i| ranks[i])
            .sum();
        less += u64::from(rp <= r + gamma);
        greater += u64::from(rp >= r - gamma);
    }
    (2.0 * less.min(greater) as f64 / patterns as f64).min(1.0)
}

/// The 95% percentile bootstrap interval of the mean of `d` (module
/// docs).
pub fn bootstrap_ci(d: &[f64], resamples: usize, seed: u64) -> Option<(f64, f64)> {
    let n = d.len();
    if n < 2 || resamples == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| d[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    Some((quantile(&means, 0.025), quantile(&means, 0.975)))
}

/// numpy's default (linear) quantile `q` of the sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

#[cfg(test)]
mod tests;
