//! UTF-8 cleaner throughput against a baseline measured in the same run.
//!
//! Baseline: `std::str::from_utf8` over the same bytes (validation only, the
//! least any cleaner must do). Inputs: a real ClueWeb09 WARC sample (mostly
//! valid, some errors), the same text with one error every 1 KB, and pure
//! random bytes (the worst case, every sequence checked on the exact path).
//! Run: `cargo bench -p sieve-bench --bench utf8`.

use sieve_bench::{median, report};
use sieve_filters::utf8::{Counting, clean_in_place_scalar, clean_in_place_with};
use sieve_indexer::testdata::shared_file;

fn run(name: &str, input: &[u8]) {
    let runs = 15;
    let base = median(runs, || std::str::from_utf8(input).is_ok());
    println!("-- {name}: {} bytes", input.len());
    report("std::str::from_utf8 (baseline)", input.len(), base, base);
    let mut buf = input.to_vec();
    let t = median(runs, || {
        buf.copy_from_slice(input);
        clean_in_place_with(&mut buf, Counting::Exact)
    });
    report("clean_in_place (simdutf8 fast path)", input.len(), t, base);
    let t = median(runs, || {
        buf.copy_from_slice(input);
        clean_in_place_scalar(&mut buf, Counting::Exact)
    });
    report(
        "clean_in_place_scalar (exact path only)",
        input.len(),
        t,
        base,
    );
}

fn main() {
    let Some(data) = shared_file("", "utf8 bench on ClueWeb09 sample") else {
        return;
    };
    let path = data.join("warc/freequery__ClueWeb09_English_Sample.warc");
    let Ok(real) = std::fs::read(&path) else {
        eprintln!("SKIPPED: {} not readable", path.display());
        return;
    };
    run("ClueWeb09 English sample (raw WARC bytes)", &real);
    let mut valid = real.clone();
    clean_in_place_with(&mut valid, Counting::Exact);
    run("same, cleaned first (all valid)", &valid);
    let mut sparse = valid.clone();
    for i in (0..sparse.len()).step_by(1024) {
        sparse[i] = 0xC1;
    }
    run("cleaned, one C1 byte per KB", &sparse);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let random: Vec<u8> = (0..8 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[0]
        })
        .collect();
    run("8 MiB random bytes", &random);
}
