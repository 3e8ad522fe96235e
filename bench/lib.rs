//! Shared helpers for the sieve benchmarks.
//!
//! Every benchmark measures its baseline in the same run and prints ratios,
//! because the machines are shared and absolute times are noisy. Figures are
//! medians of several runs. Inputs come from the shared data directory,
//! resolved by [`sieve_testdata::shared_file`] (one rule for every
//! test and bench).

use std::time::{Duration, Instant};

pub mod synth;

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
