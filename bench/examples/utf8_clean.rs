//! Cleans one input many times, for instruction and branch counts under
//! valgrind (`cachegrind --branch-sim=yes`), which do not depend on the
//! machine's load:
//!
//! ```sh
//! cargo build --release -p sieve-bench --example utf8_clean
//! valgrind --tool=cachegrind --branch-sim=yes target/release/examples/utf8_clean FILE|random [REPS]
//! ```
//!
//! `random` is the 8 MiB of xorshift bytes of the `utf8` bench. Prints the
//! bytes cleaned and the counts.

use sieve_filters::utf8::{Counting, clean_in_place_with};

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "random".into());
    let reps: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
    let input = if what == "random" {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..8 << 20)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x.to_le_bytes()[0]
            })
            .collect()
    } else {
        match std::fs::read(&what) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("utf8_clean: {what}: {e}");
                std::process::exit(2);
            }
        }
    };
    let mut buf = input.clone();
    let mut total = 0;
    for _ in 0..reps {
        buf.copy_from_slice(&input);
        total += clean_in_place_with(&mut buf, Counting::Exact).total();
    }
    println!(
        "{} bytes x {reps}: {total} malformed sequences",
        input.len()
    );
}
