//! Shared helpers for the sieve benchmarks.
//!
//! Every benchmark measures its baseline in the same run and prints ratios,
//! because the machines are shared and absolute times are noisy. Figures are
//! medians of several runs.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The shared data directory: `$SIEVE_SHARED_DATA`, else `/work/shared/data`,
/// else `../shared/data` beside the repository. `None` (with a `SKIPPED`
/// line on stderr naming `what`) when none exists.
pub fn shared_data(what: &str) -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("SIEVE_SHARED_DATA").map(PathBuf::from),
        Some(PathBuf::from("/work/shared/data")),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.is_dir());
    if found.is_none() {
        eprintln!("SKIPPED: {what}: shared data not found (set SIEVE_SHARED_DATA)");
    }
    found
}

/// Runs `f` `runs` times (after one warm-up) and returns the median time.
pub fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    std::hint::black_box(f());
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// Megabytes (10^6 bytes) per second for `bytes` processed in `t`.
pub fn mb_per_s(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / 1e6 / t.as_secs_f64()
}

/// Prints one result line: name, median, throughput and the ratio of the
/// baseline's time to this one (> 1 means faster than the baseline).
pub fn report(name: &str, bytes: usize, t: Duration, baseline: Duration) {
    println!(
        "{name:<44} median {:>9.3} ms  {:>9.1} MB/s  baseline/this = {:.2}",
        t.as_secs_f64() * 1e3,
        mb_per_s(bytes, t),
        baseline.as_secs_f64() / t.as_secs_f64()
    );
}
