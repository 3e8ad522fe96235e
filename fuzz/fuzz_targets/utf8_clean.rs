//! Checks the UTF-8 cleaner against the slow reference cleaner: for any bytes
//! and either counting mode, `clean_in_place_with` gives the reference's bytes
//! and counts, `count` gives the same counts, the output is valid UTF-8 of the
//! same length, and a `StreamCleaner` fed the input in chunks (sizes taken
//! from the first input byte) gives the same bytes and counts.
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_filters::utf8::{
    Counting, StreamCleaner, clean_in_place_with, count, reference::reference_clean,
};

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, input)) = data.split_first() else {
        return;
    };
    let counting = if ctl & 1 == 1 {
        Counting::Atire
    } else {
        Counting::Exact
    };
    let (want, want_counts) = reference_clean(input, counting);

    let mut got = input.to_vec();
    let counts = clean_in_place_with(&mut got, counting);
    assert_eq!(counts, want_counts);
    assert_eq!(got, want);
    assert_eq!(count(input, counting), want_counts);
    assert_eq!(got.len(), input.len());
    assert!(std::str::from_utf8(&got).is_ok());

    let chunk = usize::from(ctl >> 1).max(1);
    let mut out = Vec::new();
    let mut s = StreamCleaner::new(counting);
    for c in input.chunks(chunk) {
        s.feed(c, &mut out);
    }
    assert_eq!(s.finish(&mut out), want_counts);
    assert_eq!(out, want);
});

sieve_fuzz::replay_main!();
