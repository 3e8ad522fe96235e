//! UTF-8 cleaner throughput against baselines measured in the same run.
//!
//! Baselines: `std::str::from_utf8` over the same bytes (validation only; it
//! stops at the first error, so on invalid input it does far less work than
//! a cleaner), and std's lossy decoding, which walks every byte of invalid
//! input as a cleaner must: `<[u8]>::utf8_chunks` (each valid run and each
//! invalid sequence, nothing written) and `String::from_utf8_lossy` (a new
//! string with U+FFFD for each invalid sequence). Inputs: the real ClueWeb09
//! English and Chinese WARC samples read as UTF-8 (the Chinese one is GB2312
//! text, so error-dense: a malformed sequence every few bytes), the English
//! one cleaned first (all valid) and with one error every 1 KB, and 8 MiB of
//! random bytes (the worst case: nearly every sequence checked on the exact
//! path). Run: `cargo bench -p sieve-bench --bench utf8`.

use sieve_bench::{median, report};
use sieve_filters::utf8::{Counting, clean_in_place_scalar, clean_in_place_with};
use sieve_testdata::shared_file;

fn run(name: &str, input: &[u8]) {
    let runs = 15;
    let base = median(runs, || std::str::from_utf8(input).is_ok());
    let mut probe = input.to_vec();
    let counts = clean_in_place_with(&mut probe, Counting::Exact);
    println!(
        "-- {name}: {} bytes, {} malformed sequences (one per {:.0} bytes)",
        input.len(),
        counts.total(),
        input.len() as f64 / counts.total().max(1) as f64
    );
    report("std::str::from_utf8 (baseline)", input.len(), base, base);
    let t = median(runs, || {
        input
            .utf8_chunks()
            .filter(|c| !c.invalid().is_empty())
            .count()
    });
    report("std utf8_chunks, invalid counted", input.len(), t, base);
    let lossy = t;
    let t = median(runs, || String::from_utf8_lossy(input).len());
    report("std String::from_utf8_lossy", input.len(), t, base);
    let mut buf = input.to_vec();
    let t = median(runs, || {
        buf.copy_from_slice(input);
        clean_in_place_with(&mut buf, Counting::Exact)
    });
    report("clean_in_place (simdutf8 fast path)", input.len(), t, base);
    println!(
        "{:<44} utf8_chunks/clean_in_place = {:.2}",
        "",
        lossy.as_secs_f64() / t.as_secs_f64()
    );
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
    let read = |name: &str| {
        let path = data.join("warc").join(name);
        let bytes = std::fs::read(&path);
        if bytes.is_err() {
            eprintln!("SKIPPED: {} not readable", path.display());
        }
        bytes.ok()
    };
    let (Some(real), Some(chinese)) = (
        read("freequery__ClueWeb09_English_Sample.warc"),
        read("freequery__ClueWeb09_Chinese_Sample.warc"),
    ) else {
        return;
    };
    run("ClueWeb09 English sample (raw WARC bytes)", &real);
    run(
        "ClueWeb09 Chinese sample (raw WARC bytes, GB2312 read as UTF-8)",
        &chinese,
    );
    let mut valid = real.clone();
    clean_in_place_with(&mut valid, Counting::Exact);
    run("same English, cleaned first (all valid)", &valid);
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
