//! The robust tests and the risk measures against independent references,
//! in one Python call with the repository's venv (`scripts/setup-python.sh`;
//! without it the oracle test prints `SKIPPED`): the Wilcoxon test against
//! `scipy.stats.wilcoxon`; the randomisation test and the bootstrap
//! against a pure-Python implementation of the same generator, seed and
//! draws (written here from the module docs, not from the Rust), the exact
//! randomisation test against `itertools.product`; GeoRisk against numpy.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::*;
use crate::risk;

fn python() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    p.exists().then_some(p)
}

const ORACLE: &str = r#"
import itertools, json, math, sys
import numpy as np
from scipy import stats

M = (1 << 64) - 1
def splitmix(seed):
    s = seed
    while True:
        s = (s + 0x9E3779B97F4A7C15) & M
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        yield z ^ (z >> 31)

def randomisation(d, perms, seed):
    n = len(d)
    obs = abs(sum(d))
    tol = 1e-12 * sum(abs(x) for x in d)
    if n <= 16:
        hits = sum(1 for signs in itertools.product([1, -1], repeat=n)
                   if abs(sum(s * x for s, x in zip(signs, d))) >= obs - tol)
        return hits / 2 ** n
    g = splitmix(seed)
    words = (n + 63) // 64
    hits = 0
    for _ in range(perms):
        ws = [next(g) for _ in range(words)]
        s = sum(-x if (ws[i // 64] >> (i % 64)) & 1 else x for i, x in enumerate(d))
        hits += abs(s) >= obs - tol
    return (hits + 1) / (perms + 1)

def bootstrap(d, b, seed):
    n = len(d)
    g = splitmix(seed)
    means = []
    for _ in range(b):
        means.append(sum(d[(next(g) * n) >> 64] for _ in range(n)) / n)
    lo, hi = np.quantile(np.array(means), [0.025, 0.975])
    return [float(lo), float(hi)]

def georisk(x, alpha):
    x = np.array(x, dtype=float)  # runs x topics
    c = x.shape[1]
    s = x.sum(axis=1)
    t = x.sum(axis=0)
    e = np.outer(s, t) / x.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(e > 0, (x - e) / np.sqrt(e), 0.0)
    z = np.where(z < 0, (1 + alpha) * z, z)
    return [float(math.sqrt(si / c * stats.norm.cdf(zi / c))) for si, zi in zip(s, z.sum(axis=1))]

out = []
for case in json.load(sys.stdin):
    d = case["d"]
    r = {}
    if d:
        w = stats.wilcoxon(d).pvalue
        r["wilcoxon"] = None if math.isnan(w) else float(w)
    r["rand"] = randomisation(d, case["perms"], case["seed"]) if d else None
    r["boot"] = bootstrap(d, case["boot"], case["seed"]) if len(d) >= 2 else None
    r["geo"] = georisk(case["matrix"], 5.0)
    out.append(r)
json.dump(out, sys.stdout)
"#;

/// One case: differences, with how many draws, and a GeoRisk matrix.
struct Case {
    d: Vec<f64>,
    perms: usize,
    boot: usize,
    seed: u64,
    matrix: Vec<Vec<f64>>,
}

/// Differences of random and adversarial shapes: ties, zeros, every
/// difference equal, one non-zero, small and large `n` (1 to 60).
fn cases() -> Vec<Case> {
    let mut rng = SplitMix64::new(7);
    let mut out = Vec::new();
    for k in 0..90usize {
        let n = 1 + k % 60;
        let grid = rng.below(3); // 0: continuous, 1: coarse (ties), 2: with zeros
        let d: Vec<f64> = (0..n)
            .map(|_| {
                let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.45;
                match grid {
                    0 => u,
                    1 => (u * 8.0).round() / 8.0,
                    _ if rng.below(3) == 0 => 0.0,
                    _ => (u * 20.0).round() / 20.0,
                }
            })
            .collect();
        let matrix: Vec<Vec<f64>> = (0..3)
            .map(|_| {
                (0..n.max(2))
                    .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64)
                    .collect()
            })
            .collect();
        out.push(Case {
            d,
            perms: 200 + k,
            boot: 300 + k,
            seed: k as u64 * 31 + 1,
            matrix,
        });
    }
    for d in [
        vec![0.0; 5],
        vec![0.0; 20],
        vec![0.25; 7],
        vec![0.25; 30],
        {
            let mut v = vec![0.0; 15];
            v[3] = -0.5;
            v
        },
    ] {
        out.push(Case {
            d,
            perms: 100,
            boot: 100,
            seed: 3,
            matrix: vec![vec![0.1, 0.2], vec![0.3, 0.0]],
        });
    }
    out
}

fn to_json(cases: &[Case]) -> String {
    let items: Vec<serde_json::Value> = cases
        .iter()
        .map(|c| {
            serde_json::json!({"d": c.d, "perms": c.perms, "boot": c.boot, "seed": c.seed, "matrix": c.matrix})
        })
        .collect();
    serde_json::Value::Array(items).to_string()
}

fn close(a: Option<f64>, b: &serde_json::Value, what: &str, d: &[f64]) {
    match (a, b.as_f64()) {
        (None, None) => {}
        (Some(x), Some(y)) => assert!(
            (x - y).abs() <= 1e-9 * y.abs().max(1e-300) + 1e-15,
            "{what}: sieve {x}, reference {y}, d = {d:?}"
        ),
        _ => panic!("{what}: sieve {a:?}, reference {b}, d = {d:?}"),
    }
}

#[test]
fn robust_tests_and_georisk_equal_independent_references() {
    let Some(py) = python() else {
        eprintln!("SKIPPED: robust tests against scipy (no .venv; run scripts/setup-python.sh)");
        return;
    };
    let cases = cases();
    let mut child = Command::new(py)
        .args(["-c", ORACLE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(to_json(&cases).as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let want: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(want.len(), cases.len());
    let compared = want.iter().filter(|w| w["wilcoxon"].is_f64()).count();
    assert!(
        compared >= 80,
        "only {compared} Wilcoxon p-values from scipy"
    );
    for (c, w) in cases.iter().zip(&want) {
        close(wilcoxon(&c.d), &w["wilcoxon"], "wilcoxon", &c.d);
        close(
            randomisation(&c.d, c.perms, c.seed),
            &w["rand"],
            "randomisation",
            &c.d,
        );
        match (bootstrap_ci(&c.d, c.boot, c.seed), w["boot"].as_array()) {
            (Some((lo, hi)), Some(b)) => {
                close(Some(lo), &b[0], "bootstrap low", &c.d);
                close(Some(hi), &b[1], "bootstrap high", &c.d);
            }
            (None, None) => {}
            (ours, theirs) => panic!("bootstrap: {ours:?} against {theirs:?}"),
        }
        let geo = risk::georisk(&c.matrix, 5.0);
        for (g, r) in geo.iter().zip(w["geo"].as_array().unwrap()) {
            close(*g, r, "georisk", &c.d);
        }
    }
}

#[test]
fn randomisation_is_exact_for_few_topics_and_reproducible_beyond() {
    // two topics, d = (1, 1): patterns ++ and -- reach |2| of four
    assert_eq!(randomisation(&[1.0, 1.0], 10, 1), Some(0.5));
    assert_eq!(randomisation(&[0.0, 0.0, 0.0], 10, 1), Some(1.0));
    assert_eq!(randomisation(&[], 10, 1), None);
    let d: Vec<f64> = (0..40).map(|i| (i as f64 - 15.0) / 100.0).collect();
    assert_eq!(randomisation(&d, 500, 9), randomisation(&d, 500, 9));
    assert_ne!(randomisation(&d, 500, 9), randomisation(&d, 500, 10));
}

#[test]
fn wilcoxon_and_bootstrap_edge_cases() {
    assert_eq!(wilcoxon(&[]), None);
    assert_eq!(wilcoxon(&[0.0; 5]), Some(1.0));
    assert_eq!(wilcoxon(&[0.0; 20]), None, "scipy: NaN");
    assert_eq!(bootstrap_ci(&[0.3], 100, 1), None);
    assert_eq!(bootstrap_ci(&[0.3, 0.3], 100, 1), Some((0.3, 0.3)));
}
